"""What a recorded request carries that replay does not count: documents, images, audio, video and
server-tool blocks, found in message content of every format a reader takes.

Their tokens are in the reported usage but not in our count (a PDF or an image is priced by the
provider from its pages and pixels, a server tool's result is often encrypted), so the gap between
reported and counted input is attributed to them (:mod:`agentcost.replay.attribution`) rather than
to an unrecorded system prompt. The block shapes read, as the providers document them (read
2026-12-08):

- Anthropic Messages (https://docs.anthropic.com/en/api/messages): ``image``, ``document``
  (a PDF, or ``source.type`` ``text`` / ``content``, whose text is counted), the server tools'
  ``server_tool_use`` / ``mcp_tool_use`` and ``*_tool_result`` blocks (``web_search_tool_result``,
  ``web_fetch_tool_result``, ``code_execution_tool_result``...), also inside a ``tool_result``;
- OpenAI Chat Completions parts ``image_url``, ``input_audio``, ``file``; Responses items
  ``input_image``, ``input_file``, ``input_audio``;
- Gemini ``parts`` (as Langfuse and Vertex keep them): ``inline_data`` / ``inlineData`` and
  ``file_data`` / ``fileData``, the kind read from their MIME type;
- OpenTelemetry GenAI message parts ``blob``, ``uri`` and ``file`` (their ``modality`` or MIME type).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

DOCUMENT, IMAGE, AUDIO, VIDEO, SERVER_TOOL = "document", "image", "audio", "video", "server tool"
KINDS = (DOCUMENT, IMAGE, AUDIO, VIDEO, SERVER_TOOL)
"""Every kind of uncounted block, in the order a note names them."""

_BY_TYPE = {
    "image": IMAGE,
    "image_url": IMAGE,
    "input_image": IMAGE,
    "input_audio": AUDIO,
    "file": DOCUMENT,
    "input_file": DOCUMENT,
    "server_tool_use": SERVER_TOOL,
    "mcp_tool_use": SERVER_TOOL,
    "container_upload": SERVER_TOOL,
}
_GEMINI_DATA = ("inline_data", "inlineData", "file_data", "fileData")
_OTEL_DATA = ("blob", "uri")


def kind_of_mime(mime: Any) -> str:
    """The kind of a block by its MIME type (``image/png`` -> image); a PDF or anything else is a
    document."""
    major = mime.split("/", 1)[0].lower() if isinstance(mime, str) else ""
    return {"image": IMAGE, "audio": AUDIO, "video": VIDEO}.get(major, DOCUMENT)


def text_document(block: Mapping[str, Any]) -> bool:
    """An Anthropic ``document`` block whose source is plain text (counted as text, not uncounted)."""
    source = block.get("source")
    return isinstance(source, dict) and source.get("type") in ("text", "content")


def block_kind(block: Any) -> str | None:
    """The kind of one content block or part that replay does not count, or None (text, tool calls
    and results, thinking... are counted; unknown blocks are left to their reader)."""
    if not isinstance(block, dict):
        return None
    kind = block.get("type")
    if kind == "document":
        return None if text_document(block) else DOCUMENT
    if isinstance(kind, str):
        if kind in _BY_TYPE:
            return _BY_TYPE[kind]
        if kind.endswith("_tool_result") and kind != "tool_result":  # web_search_tool_result...
            return SERVER_TOOL
        if kind in _OTEL_DATA or (kind == "file" and "modality" in block):
            modality = block.get("modality")
            return modality if modality in (IMAGE, AUDIO, VIDEO) else kind_of_mime(block.get("mime_type"))
    for key in _GEMINI_DATA:
        data = block.get(key)
        if isinstance(data, dict):
            return kind_of_mime(data.get("mime_type", data.get("mimeType")))
    return None


def content_kinds(content: Any) -> tuple[str, ...]:
    """The uncounted blocks of message content (a list of blocks or parts), one kind per block, in
    order; blocks inside a ``tool_result``'s content too (a tool that returns an image or a PDF)."""
    if not isinstance(content, list):
        return ()
    out: list[str] = []
    for block in content:
        kind = block_kind(block)
        if kind is not None:
            out.append(kind)
        elif isinstance(block, dict) and block.get("type") == "tool_result":
            out.extend(content_kinds(block.get("content")))
    return tuple(out)


def named(kinds: tuple[str, ...] | frozenset[str]) -> str:
    """Kinds as a note names them: "document", "image and document"..."""
    ordered = [k for k in KINDS if k in kinds]
    if len(ordered) <= 1:
        return "".join(ordered)
    return ", ".join(ordered[:-1]) + " and " + ordered[-1]
