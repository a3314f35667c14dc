"""Replay recorded agent runs (``agentcost replay``): detect the log format and read it.

Supported: SWE-agent trajectories (``swe-agent``). ``agentcost.replay.trace`` has the trace model
and :func:`replay`, the ledger.
"""

from __future__ import annotations

import json
from pathlib import Path

from agentcost.errors import InputError
from agentcost.replay.ledger import replay
from agentcost.replay.trace import ReplayReport, Trace

__all__ = ["FORMATS", "ReplayReport", "Trace", "detect_format", "load_trace", "replay"]

FORMATS = (
    "swe-agent",
    "claude-code",
    "anthropic-jsonl",
    "openai-chat-jsonl",
    "openai-responses-jsonl",
    "otel",
    "langfuse",
)


def _unsupported(path: Path) -> InputError:
    return InputError(
        "cannot tell the log format",
        file=path,
        hint=f"supported: {', '.join(FORMATS)}; pass --format-in to name it",
    )


def detect_format(path: Path, text: str) -> str:
    """The format of a log: ``.traj`` or JSON with ``history`` + ``info.model_stats`` is swe-agent
    (0.x or 1.x)."""
    from agentcost.replay import swe_agent

    if path.suffix == ".traj":
        return swe_agent.FORMAT
    from agentcost.replay import claude_code

    if claude_code.looks_like(text):
        return claude_code.FORMAT
    from agentcost.replay import anthropic_jsonl, jsonl, openai_jsonl

    first = jsonl.first_object(text)
    from agentcost.replay import langfuse, otel

    if first is not None and otel.looks_like(first):
        return otel.FORMAT
    if first is not None and not swe_agent.looks_like(first):
        if (sniffed := openai_jsonl.sniff(first)) is not None:
            return sniffed
        if anthropic_jsonl.looks_like(first):
            return anthropic_jsonl.FORMAT
    from agentcost.replay.files import loads

    try:
        data = loads(text, path)
    except json.JSONDecodeError:
        if otel.sniff_concatenated(text):
            return otel.FORMAT
        raise _unsupported(path) from None
    if swe_agent.looks_like(data):
        return swe_agent.FORMAT
    if otel.looks_like(data):
        return otel.FORMAT
    if langfuse.looks_like(data):
        return langfuse.FORMAT
    raise _unsupported(path)


def load_trace(
    path: Path,
    *,
    format_in: str | None = None,
    model: str | None = None,
    config: Path | None = None,
    tools: Path | None = None,
    system: Path | None = None,
    subagents: bool = False,
) -> Trace:
    """Read a recorded run. ``model`` (``--model``) wins over ``config`` (a SWE-agent args.yaml),
    which wins over the model a SWE-agent 1.x trajectory names (``replay_config``); without any,
    SWE-agent's ``args.yaml`` beside the trajectory is read when there is one.

    ``subagents``: fold a Claude Code session's subagent transcripts (``<session>/subagents/
    agent-*.jsonl``) in after its own requests, as ``replay`` does (``calibrate`` reads the session's
    own conversation only); ``--tools`` and ``--system`` are the session's, not added to them."""
    from agentcost.replay import swe_agent
    from agentcost.replay.files import read_text

    text = read_text(path)  # at most MAX_TRACE_BYTES, checked before reading
    if not text.strip():
        raise InputError(
            "the file is empty", file=path, line=1, hint="a recorded run has one API call or more"
        )
    fmt = format_in or detect_format(path, text)
    if fmt not in FORMATS:
        raise InputError(
            f"unknown log format {fmt!r}", key="--format-in", hint=f"supported: {', '.join(FORMATS)}"
        )
    if fmt in ("otel", "langfuse"):
        from agentcost.replay import langfuse, otel, prefix

        reader = otel.read if fmt == otel.FORMAT else langfuse.read
        return prefix.add_prefix(reader(path, text=text, model=model), tools=tools, system=system)
    if fmt in ("claude-code", "anthropic-jsonl", "openai-chat-jsonl", "openai-responses-jsonl"):
        from agentcost.replay import anthropic_jsonl, claude_code, openai_jsonl, prefix

        if fmt == claude_code.FORMAT:  # Claude Code logs record neither its system prompt nor its tools
            read = claude_code.read(path, model=model, text=text)
            read = prefix.add_prefix(read, tools=tools, system=system)
            return claude_code.with_subagents(read, path, model=model) if subagents else read
        if fmt == anthropic_jsonl.FORMAT:
            read = anthropic_jsonl.read(path, text=text, model=model)
        else:
            read = openai_jsonl.read(path, text=text, fmt=fmt, model=model)
        return prefix.add_prefix(read, tools=tools, system=system)
    beside = None
    if model is None:
        if config is not None:
            model = swe_agent.model_from_config(config)
        else:  # read only when the trajectory does not name the model (1.x: replay_config)
            beside = _run_config_beside(path)
    else:
        model = swe_agent.model_name(model)
    return swe_agent.read(path, model=model, text=text, beside=beside, tools=tools, system=system)


def _run_config_beside(path: Path) -> Path | None:
    """SWE-agent's run config next to a trajectory: ``args.yaml`` (as SWE-agent writes it), else the
    only ``*args.yaml`` in the folder (copies are often renamed, e.g. ``test-repo-i1.args.yaml``)."""
    plain = path.parent / "args.yaml"
    if plain.is_file():
        return plain
    found = sorted(p for p in path.parent.glob("*args.yaml") if p.is_file())
    return found[0] if len(found) == 1 else None
