"""Anthropic counting: Claude tokenizer families (ctok versions) and the calibrated framing constants."""

from __future__ import annotations

import re
from typing import Any

from agentcost.infra.record import record


@record
class ClaudeFamily:
    """A Claude tokenizer generation as ctok reconstructs it."""

    ctok_version: str  # "3.0", "4.7" or "4.8"
    ctok_frame: int  # ctok's single-user-message frame: 7 / 11 / 6 tokens
    assumed: str | None = None  # why the family was assumed, when the model is not a known member

    @property
    def per_request(self) -> int:
        """Tokens after the last message: ctok's frame minus one message's framing."""
        return self.ctok_frame - ANTHROPIC_MESSAGE_FRAMING


_V3 = ("3.0", 7)
_V47 = ("4.7", 11)
_V48 = ("4.8", 6)

# Calibrated framing (Claude v3 family), fitted in-sample on the provider-reported counts in
# shared/validation/anthropic-cookbook/usage-examples.json with the texts counted by ctok 1.3.0 family
# v3 (frame removed); the text of each constant names the examples and any residual. There is no
# held-out data. tests/test_tokens.py asserts the error of every example on the ratio path.
#
# ANTHROPIC_MESSAGE_FRAMING = 3 per user/assistant message, and per_request = ctok frame - 3 (= 4):
#   prompt_caching_multiturn, all 3 runs x turns 2-4: cache_creation_input_tokens = assistant text +
#   next question + 6 in all 9 cases (e.g. 812ec1e3 turn 2: 36 = 19 + 11 + 6); the uncached tail is
#   input_tokens = 4 in every turn (everything after the last cache breakpoint); single_turn_cells
#   8/10: 17 = 13 (question block) + 4. ctok's one-message frame 7 = 3 + 4 agrees.
# ANTHROPIC_SYSTEM_FRAMING = 0: docs_token_counting_basic 14 = "You are a scientist" 4 +
#   "Hello, Claude" 3 + 3 + 4.
# ANTHROPIC_OUTPUT_FRAMING = 3: output_tokens = text + 3 in 11 of the 12 multi-turn answers (one +2)
#   and in cookbook_tool_choice_cell20 (69 = 66 + 3).
# ANTHROPIC_TOOLS_FRAMING = 1 once + ANTHROPIC_TOOL_DEF_FRAMING = 3 per tool, on
#   json.dumps({"name", "description", "input_schema"}) (default separators): docs_token_counting_tools
#   403 = 313 (Sonnet 4 tool prompt) + 70 + 1 + 3 + user 9 + 3 + 4, and cookbook_tool_choice_cell20/22
#   429/442 = 159 (Claude 3 Sonnet, auto) + 164 + 81 + 1 + 2 x 3 + user (11 / 24) + 3 + 4.
#   Tool schemas are mostly English descriptions: ctok/o200k on these three schemas is 1.04-1.08,
#   the prose ratio (1.06), not the JSON ratio (1.22, measured on data-like JSON), so definitions use
#   the prose ratio on the ratio path.
# Chat turns (scenario rounds with reply + user) use MESSAGE_FRAMING and OUTPUT_FRAMING only: the
#   multi-turn runs above are such turns (echo 3 + answer, result 3 + question, output 3 + answer).
# ANTHROPIC_FORCED_TOOL_FRAMING = 22 more for tool_choice "tool" than the any/tool column says:
#   cookbook_tool_choice_cell27/29 527/540 = 235 + 22 + the same 270/283 as cells 20/22 (one model,
#   Claude 3 Sonnet, staging API; the instruction presumably names the tool).
# CLAUDE3_TOOL_USE_FRAMING_AUTO / _FORCED = 56 / 46 per tool_use block besides name + compact input
#   JSON, by the request's tool_choice, for the Claude 3 models (claude-3-sonnet/opus/haiku; Claude 3
#   Sonnet output counts, texts by ctok v3):
#   AUTO (tool_choice auto; none too, where no tool is called): cookbook_tool_choice_cell22 output
#   101 = 3 + text 30 + name 1 + input 11 + 56.
#   FORCED (tool_choice tool): cookbook_tool_choice_cell27/29 output 79 = 3 + name 5 + input 25 + 46,
#   both. Anthropic's tool-use docs: with tool_choice any or tool "we will prefill the assistant
#   message to force a tool to be used", so part of the block is in the prompt, not the output.
#   tool_choice any: NOT MEASURED (the cookbook's any cells print no usage); assumed equal to FORCED,
#   the same documented prefill.
# ANTHROPIC_TOOL_USE_FRAMING_AUTO = 37 for Claude 3.5 and every later model, refit (issue 29) by
#   bench/fit_claude_framing.py on 10 real responses with tool_use blocks recorded in the VCR
#   cassettes of traceloop/openllmetry, Arize-ai/openinference and simonw/llm-anthropic (Apache-2.0;
#   bench/data/claude-framing/, PROVENANCE.md there; read 2026-12-07): per block 42-44 (Claude 3.5
#   Haiku and Sonnet), 34-36 (Sonnet 4.6, 3.5 Haiku with a text block first), 22.5-30 (Haiku 4.5;
#   a second block of one response costs less than the first), mean 37 (texts by ctok v3).
#   ANTHROPIC_TOOL_USE_FRAMING_FORCED = 27: NOT MEASURED for these models (no recording forces a
#   tool); assumed AUTO minus the 10 tokens Claude 3 Sonnet's forced blocks had less (the prefill).
#   The echo of a round's tool_use in the next request uses its round's constant: the request pairs
#   below measure echo + tool_result together.
# ANTHROPIC_TOOL_RESULT_FRAMING = 11 per tool_result block, refit by the same script on 3 pairs of
#   requests of one conversation (the second re-sends the first plus the assistant's tool_use
#   message and the user's tool_result message; the tools block and hidden prompt cancel): per
#   result 18.5 (Haiku 4.5, two results), 1 (Haiku 4.5), 13 (Claude 3.5 Haiku) after the tool_use's
#   37; mean 11 (echoed tool_use + tool_result 55.5 / 38 / 50 per call). Used for every Claude
#   model: Claude 3's is not measured (the cookbook has no tool_result). It was 20, an assumption.
ANTHROPIC_MESSAGE_FRAMING = 3
ANTHROPIC_SYSTEM_FRAMING = 0
ANTHROPIC_OUTPUT_FRAMING = 3
ANTHROPIC_TOOLS_FRAMING = 1
ANTHROPIC_TOOL_DEF_FRAMING = 3
ANTHROPIC_FORCED_TOOL_FRAMING = 22
CLAUDE3_TOOL_USE_FRAMING_AUTO = 56
CLAUDE3_TOOL_USE_FRAMING_FORCED = 46
ANTHROPIC_TOOL_USE_FRAMING_AUTO = 37
ANTHROPIC_TOOL_USE_FRAMING_FORCED = 27
ANTHROPIC_TOOL_RESULT_FRAMING = 11


def tool_use_framing(tool_choice: str, model_id: str) -> int:
    """Tokens of one tool_use block besides its name and input (output and echo) under ``tool_choice``:
    the Claude 3 constants for claude-3-sonnet/opus/haiku, the refit ones for Claude 3.5 and later."""
    forced = tool_choice in ("any", "tool")
    if is_claude3(model_id):
        return CLAUDE3_TOOL_USE_FRAMING_FORCED if forced else CLAUDE3_TOOL_USE_FRAMING_AUTO
    return ANTHROPIC_TOOL_USE_FRAMING_FORCED if forced else ANTHROPIC_TOOL_USE_FRAMING_AUTO


_CTOK_V48_MODELS = {("opus", (4, 8)), ("sonnet", (5, 0)), ("fable", (5, 0))}
_CLAUDE_NEW_STYLE = re.compile(r"^claude-(opus|sonnet|haiku|fable|mythos)-(\d+)(?:-(\d{1,2}))?(?=-|$)")
_CLAUDE_OLD_STYLE = re.compile(r"^claude-(\d+)(?:-(\d{1,2}))?-(opus|sonnet|haiku)(?=-|$)")


def claude_version(model_id: str) -> tuple[str, int, int] | None:
    """(tier, major, minor) of a Claude model id (``claude-3-5-sonnet-20240620`` -> sonnet, 3, 5),
    None when the id cannot be read."""
    model = model_id.lower()
    if new := _CLAUDE_NEW_STYLE.match(model):
        return new.group(1), int(new.group(2)), int(new.group(3) or 0)
    if old := _CLAUDE_OLD_STYLE.match(model):
        return old.group(3), int(old.group(1)), int(old.group(2) or 0)
    return None


def is_claude3(model_id: str) -> bool:
    """A Claude 3 model (Sonnet, Opus, Haiku 3.0), not 3.5 or later."""
    version = claude_version(model_id)
    return version is not None and version[1:] == (3, 0)


def claude_family(model_id: str) -> ClaudeFamily:
    """The ctok family for a Claude model id (genai-prices ids, dated snapshots included).

    v3 ("3.0"): Claude 3 through Opus 4.6 (incl. Sonnet 4.5/4.6, Haiku 4.5); v4.7: Opus 4.7;
    v4.8: Opus 4.8, Sonnet 5, Fable 5 (ctok's list) and, assumed, every later model and every id
    this function cannot read (claude-2, claude-v1, ...).
    """
    parsed = claude_version(model_id)
    if parsed is None:
        return ClaudeFamily(*_V48, assumed=f"{model_id}: unknown Claude model, newest family assumed")
    tier, major, minor = parsed
    version = (major, minor)
    if version < (3, 0):
        return ClaudeFamily(*_V48, assumed=f"{model_id}: pre-Claude-3 model, newest family assumed")
    if version < (4, 7):
        return ClaudeFamily(*_V3)
    if version < (4, 8):
        if tier == "opus":
            return ClaudeFamily(*_V47)
        return ClaudeFamily(*_V47, assumed=f"{model_id}: assumed to share Opus 4.7's tokenizer")
    if (tier, version) in _CTOK_V48_MODELS:
        return ClaudeFamily(*_V48)
    return ClaudeFamily(
        *_V48,
        assumed=(
            f"{model_id}: assumed to use the v4.8 tokenizer (ctok lists Opus 4.8, Sonnet 5 and "
            "Fable 5 for it)"
        ),
    )


def ctok_scheme_id(version: str, frame: int) -> str | None:
    """The persistent cache's id for ctok counts (None: no installed ctok to name, e.g. a stand-in)."""
    from agentcost.infra import diskcache

    fingerprint = diskcache.package_fingerprint("ctok")
    return None if fingerprint == "absent" else f"ctok/{version}/-{frame}/{fingerprint[:16]}"


def ctok_module() -> Any | None:
    try:
        import ctok  # type: ignore[import-not-found,unused-ignore]
    except ImportError:
        return None
    return ctok
