"""Counting rules per model family: one model's rules, part by part (:class:`Rules`), for OpenAI,
Anthropic and Gemini here, every other family in :mod:`agentcost.tokens.framing`, and
:func:`rules_for`, which picks them by the model's family (:func:`family_of`, families.yaml)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from copy import copy
from dataclasses import replace
from typing import TYPE_CHECKING, Literal, Protocol

from agentcost.errors import InputError
from agentcost.infra.jsontext import dump_json
from agentcost.scenario.model import Content, Round, ToolChoice, ToolDef
from agentcost.tokens.anthropic import (
    ANTHROPIC_FORCED_TOOL_FRAMING,
    ANTHROPIC_MESSAGE_FRAMING,
    ANTHROPIC_OUTPUT_FRAMING,
    ANTHROPIC_SYSTEM_FRAMING,
    ANTHROPIC_TOOL_DEF_FRAMING,
    ANTHROPIC_TOOL_RESULT_FRAMING,
    ANTHROPIC_TOOLS_FRAMING,
    claude_family,
    ctok_module,
    ctok_scheme_id,
    is_claude3,
    tool_use_framing,
)
from agentcost.tokens.counts import RoundTokens
from agentcost.tokens.families import Family, family_of, maker_of
from agentcost.tokens.memo import DEFAULT_MEMO, TokenMemo
from agentcost.tokens.openai import (
    OPENAI_REPLY_PRIMING,
    OPENAI_TOOL_CALL_FRAMING,
    OPENAI_TOOL_RESULT_FRAMING,
    function_tokens,
    openai_encoding_name,
    openai_message_constants,
    openai_tool_constants,
)
from agentcost.tokens.textcount import BodyTail, KindArg, Notes, RatioCounter, TextKind

if TYPE_CHECKING:
    from agentcost.tokens.apicount import ApiTexts

__all__ = [
    "AnthropicRules",
    "Family",
    "GeminiRules",
    "KindArg",
    "Notes",
    "OpenAIRules",
    "Rules",
    "TextKind",
    "family_of",
    "maker_of",
    "rules_for",
]

ProviderName = Literal["anthropic", "openai", "google"]


class Rules(Protocol):
    """One model's counting rules, part by part (what ``count_tokens`` assembles)."""

    encoding: str
    approximate: bool
    method: str
    per_request: int
    family: Family  # the model's family: exact or approximate, how, and the source

    def prefetch(self, texts: Iterable[str]) -> None: ...

    def tools(self, tools: Sequence[ToolDef], tool_choice: ToolChoice) -> int: ...

    def system(self, content: Content | None) -> int: ...

    def user(self, content: Content) -> int: ...

    def round(self, round_: Round) -> RoundTokens: ...

    def final(self, content: Content) -> int: ...

    def server_result(self, content: Content) -> int: ...

    def notes(self) -> tuple[str, ...]: ...


def _tool_json(tool: ToolDef) -> str:
    return dump_json(
        {"name": tool.name, "description": tool.description, "input_schema": tool.input_schema},
        separators=(", ", ": "),
        ensure_ascii=True,
    )


class OpenAIRules(BodyTail):
    """Exact text counts with the model's encoding; cookbook framing + ours for the agent loop."""

    approximate = False
    per_request = OPENAI_REPLY_PRIMING

    def __init__(self, model_id: str, *, memo: TokenMemo | None = None, provider: str = "openai") -> None:
        self.model_id = model_id
        self.memo = memo or DEFAULT_MEMO
        self.encoding, fallback = openai_encoding_name(model_id)
        self.family = replace(
            family_of(provider, model_id),
            method=f"tiktoken {self.encoding} (exact) + OpenAI cookbook framing",
            backend=f"tiktoken {self.encoding}",
        )
        self._per_message, self._per_name = openai_message_constants(model_id)
        self._notes = Notes()
        self._notes.add(fallback)
        self._notes.add(
            "framing: cookbook (3 per message + role, 3 reply-priming tokens, tool-definition "
            "recipe); ours, unpublished: tool call = 3 + role + per call name + arguments + "
            f"{OPENAI_TOOL_CALL_FRAMING}, tool result = 3 + role + name + "
            f"{OPENAI_TOOL_RESULT_FRAMING} + content (Harmony rendering)"
        )
        self.method = f"tiktoken {self.encoding}, exact text + OpenAI cookbook framing"

    def _n(self, text: str) -> int:
        return self.memo.tiktoken(self.encoding, text) if text else 0

    def _body(self, content: Content) -> int:
        return content.tokens if content.tokens is not None else self._n(content.text or "")

    def _message(self, role: str, content: Content) -> int:
        return self._per_message + self._n(role) + self._body(content)

    def prefetch(self, texts: Iterable[str]) -> None:
        self.memo.prefetch_tiktoken(self.encoding, texts)

    def tools(self, tools: Sequence[ToolDef], tool_choice: ToolChoice) -> int:
        if not tools:
            return 0
        constants = openai_tool_constants(self.model_id)
        if not constants.cookbook:
            self._notes.add(
                f"{self.model_id}: the cookbook has no tool-definition constants for this model; "
                f"the {constants.family} row is used"
            )
        total = constants.func_end
        extended = False
        for tool in tools:
            tokens, ext = function_tokens(tool.name, tool.description, tool.input_schema, constants, self._n)
            total += tokens
            extended = extended or ext
        if extended:
            self._notes.add(
                "tool schemas go beyond the cookbook recipe (nested objects, missing descriptions "
                "or types): counted with our recursive extension of it"
            )
        return total

    def system(self, content: Content | None) -> int:
        return 0 if content is None else self._message("system", content)

    def user(self, content: Content) -> int:
        return self._message("user", content)

    def round(self, round_: Round) -> RoundTokens:
        text = self._body(round_.text) if round_.text is not None else 0
        calls = sum(self._n(c.tool) + self._body(c.input) + OPENAI_TOOL_CALL_FRAMING for c in round_.calls)
        echo = self._per_message + self._n("assistant") + text + calls
        result = sum(
            self._per_message
            + self._n("tool")
            + self._n(c.tool)
            + OPENAI_TOOL_RESULT_FRAMING
            + self._body(c.result)
            for c in round_.calls
        )
        if round_.user is not None:  # a chat turn: the user's next message
            result += self.user(round_.user)
        return RoundTokens(
            tools=tuple(c.tool for c in round_.calls),
            output=text + calls + round_.thinking,
            echo=echo,
            result=result,
            reply=round_.is_chat,
        )


class _RatioCounter(RatioCounter):
    """``ceil(o200k_base count x ratio)`` with the facts module's per-kind ratios."""

    def __init__(self, provider: str, model_id: str, memo: TokenMemo) -> None:
        from agentcost import facts

        self.prose = facts.token_ratio(provider, model_id, "prose")
        self.json = facts.token_ratio(provider, model_id, "json")
        super().__init__(self.prose.value, self.json.value, memo)


class AnthropicRules(BodyTail):
    """Approximate Claude counts: o200k_base x ratio, or ctok when chosen (``--count ctok``); calibrated
    framing.

    ``tool_choice``: the requests' tool_choice, which sets a tool_use block's framing (forced or not,
    :func:`~agentcost.tokens.anthropic.tool_use_framing`); :meth:`choosing` gives the rules for another.
    """

    approximate = True
    api: ApiTexts | None = None  # --count api: the provider's counts, consulted first

    def __init__(
        self,
        model_id: str,
        *,
        memo: TokenMemo | None = None,
        use_ctok: bool | None = None,
        provider: str = "anthropic",
        tool_choice: ToolChoice = "auto",
        snapshot: str | None = None,
    ) -> None:
        self.model_id = model_id
        self.snapshot = snapshot or model_id  # the dated id when known: its own tool-prompt row
        self.tool_choice: ToolChoice = tool_choice
        self.memo = memo or DEFAULT_MEMO
        self.claude = claude_family(model_id)
        self.per_request = self.claude.per_request
        self._notes = Notes()
        self._notes.add(self.claude.assumed)
        if use_ctok is None:  # the run's choice: --count ctok (AGENTCOST_COUNT=ctok), never by default
            from agentcost.tokens.countmode import mode

            use_ctok = mode() == "ctok"
            ctok = ctok_module() if use_ctok else None
            if use_ctok and ctok is None:
                raise InputError(
                    "--count ctok (or AGENTCOST_COUNT=ctok): the 'ctok' package is not importable",
                    hint="ctok needs Python >= 3.12, where pip installs it with agentcost; without"
                    " --count ctok Claude texts are counted on the o200k_base × ratio path",
                )
        else:
            ctok = ctok_module() if use_ctok else None
            if use_ctok and ctok is None:
                raise RuntimeError("use_ctok=True but the 'ctok' package is not importable")
        self._ctok = ctok
        self._ratio: _RatioCounter | None = None
        if ctok is not None:
            version = self.claude.ctok_version
            self.encoding = f"ctok {version}"
            self.method = f"ctok v{version} (Claude tokenizer reconstruction) + calibrated framing"
            backend = f"ctok v{version}"
            self._notes.add(
                f"Claude's tokenizer is not public: texts counted offline with ctok (--count ctok; family "
                f"v{version}, its {self.claude.ctok_frame}-token message frame removed)"
            )
        else:
            ratio = _RatioCounter("anthropic", model_id, self.memo)
            self._ratio = ratio
            self.encoding = "o200k_base × ratio"
            self.method = "o200k_base × Claude ratio, + framing calibrated on Anthropic cookbook/docs counts"
            backend = "o200k_base × ratio"
            self._notes.add(
                f"Claude's tokenizer is not public: texts counted as "
                f"o200k_base × {ratio.prose.value} (prose) / × {ratio.json.value} (JSON, incl. "
                f"tool arguments/results that parse as JSON), tool definitions with the prose "
                f"ratio ({ratio.prose.cite}), the same on every Python; --count ctok counts them with ctok "
                f"(Python >= 3.12)"
            )
        self._notes.add(
            f"Claude framing calibrated on Claude 3/3.5 Sonnet and Sonnet 4 counts: "
            f"{ANTHROPIC_MESSAGE_FRAMING} per message, {self.per_request} after the last message, "
            f"tool definitions JSON + {ANTHROPIC_TOOL_DEF_FRAMING} each + "
            f"{ANTHROPIC_TOOLS_FRAMING}, {tool_use_framing('auto', model_id)} per tool_use block "
            f"({tool_use_framing('tool', model_id)} when tool_choice forces a tool, assumed), "
            f"{ANTHROPIC_TOOL_RESULT_FRAMING} per tool_result block"
            + (
                " (tool_use measured on Claude 3 Sonnet; tool_result fitted on Claude 3.5 and 4.x)"
                if is_claude3(model_id)
                else " (both fitted on recorded Claude 3.5 and 4.x requests)"
            )
        )
        if self.claude.ctok_version != "3.0":
            self._notes.add(
                f"framing constants were measured on the v3 tokenizer family; applied unchanged "
                f"to v{self.claude.ctok_version} except the message frame ({self.claude.ctok_frame})"
            )
        self.family = replace(
            family_of(provider, model_id), exact=False, method=f"{self.method} (approximate)", backend=backend
        )

    def text(self, text: str, kind: KindArg = "auto") -> int:
        """Approximate Claude tokens of ``text`` (no framing)."""
        if not text:
            return 0
        if self.api is not None and (counted := self.api.text(text)) is not None:
            return counted
        if self._ctok is not None:
            ctok = self._ctok
            version = self.claude.ctok_version
            frame = self.claude.ctok_frame
            return self.memo.count(
                f"ctok {version}",
                text,
                lambda t: max(0, int(ctok.token_count(t, version)) - frame),
                disk_scheme=ctok_scheme_id(version, frame),
            )
        assert self._ratio is not None
        return self._ratio(text, kind)

    def _body(self, content: Content, kind: KindArg = "auto") -> int:
        return content.tokens if content.tokens is not None else self.text(content.text or "", kind)

    def choosing(self, tool_choice: ToolChoice) -> AnthropicRules:
        """These rules for requests sent with ``tool_choice`` (the same memo, notes and counts)."""
        if tool_choice == self.tool_choice:
            return self
        other = copy(self)
        other.tool_choice = tool_choice
        return other

    def prefetch(self, texts: Iterable[str]) -> None:
        if self._ratio is not None:
            self._ratio.prefetch(texts)

    def hidden_tool_prompt(self, tool_choice: ToolChoice) -> int:
        """Anthropic's tool-use system prompt for this model (the facts table, or our fallback)."""
        from agentcost import facts

        fact = facts.anthropic_tool_prompt_tokens(self.snapshot, tool_choice)
        if fact is not None:
            self._notes.add(
                f"hidden tool-use system prompt: {fact.value} tokens for tool_choice "
                f"{tool_choice} ({fact.cite})"
            )
            return fact.value
        column = "auto_none" if tool_choice in ("auto", "none") else "any_tool"
        values = [
            int(str(value[column]))
            for row in facts.table_rows("anthropic_tool_prompt_tokens")
            if isinstance(value := row["value"], Mapping) and column in value
        ]
        fallback = max(values) if values else 0
        self._notes.add(
            f"{self.snapshot}: tool-use system prompt size unknown (Anthropic's table lists none for "
            f"this model); the largest published size for tool_choice {tool_choice} ({fallback}) is "
            "counted, an upper bound"
        )
        return fallback

    def tools(self, tools: Sequence[ToolDef], tool_choice: ToolChoice) -> int:
        if not tools:
            return 0
        if self.api is not None and (block := self.api.tools_block(tools, tool_choice)) is not None:
            return block
        total = self.hidden_tool_prompt(tool_choice) + ANTHROPIC_TOOLS_FRAMING
        if tool_choice == "tool":
            total += ANTHROPIC_FORCED_TOOL_FRAMING
        for tool in tools:
            total += self.text(_tool_json(tool), "prose") + ANTHROPIC_TOOL_DEF_FRAMING
        return total

    def system(self, content: Content | None) -> int:
        return 0 if content is None else ANTHROPIC_SYSTEM_FRAMING + self._body(content)

    def user(self, content: Content) -> int:
        return ANTHROPIC_MESSAGE_FRAMING + self._body(content)

    def _tool_use(self, round_: Round) -> int:
        """The round's tool_use blocks (its output, and its echo in the next request)."""
        framing = tool_use_framing(self.tool_choice, self.model_id)
        return sum(self.text(c.tool, "prose") + self._body(c.input, "json") + framing for c in round_.calls)

    def round(self, round_: Round) -> RoundTokens:
        text = self._body(round_.text) if round_.text is not None else 0
        calls = self._tool_use(round_)
        result = 0
        if round_.calls:
            result = ANTHROPIC_MESSAGE_FRAMING + sum(
                ANTHROPIC_TOOL_RESULT_FRAMING + self._body(c.result) for c in round_.calls
            )
        if round_.user is not None:  # a chat turn: the user's next message
            result += self.user(round_.user)
        return RoundTokens(
            tools=tuple(c.tool for c in round_.calls),
            output=ANTHROPIC_OUTPUT_FRAMING + text + calls + round_.thinking,
            echo=ANTHROPIC_MESSAGE_FRAMING + text + calls,
            result=result,
            reply=round_.is_chat,
        )

    def final(self, content: Content) -> int:
        return ANTHROPIC_OUTPUT_FRAMING + self._body(content)


GEMINI_PER_REQUEST = 1  # docs: count_tokens 10 vs usage prompt_token_count 11 for the same prompt


class GeminiRules(BodyTail):
    """Approximate Gemini counts: o200k_base x ratio, content only, 1 token per request."""

    approximate = True
    per_request = GEMINI_PER_REQUEST
    api: ApiTexts | None = None  # --count api: the provider's counts, consulted first

    def __init__(self, model_id: str, *, memo: TokenMemo | None = None, provider: str = "google") -> None:
        self.model_id = model_id
        self.memo = memo or DEFAULT_MEMO
        self._ratio = _RatioCounter("google", model_id, self.memo)
        self.encoding = "o200k_base × ratio"
        prose, js = self._ratio.prose, self._ratio.json
        self.method = "o200k_base × Gemini ratio (no offline Gemini tokenizer exists)"
        self.family = replace(family_of(provider, model_id), exact=False)
        self._notes = Notes()
        self._notes.add(
            f"Gemini's tokenizer is not available offline: texts counted as o200k_base × "
            f"{prose.value} (prose) / × {js.value} (JSON), a documented default with weak evidence "
            f"({prose.cite})"
        )
        self._notes.add(
            "Gemini framing assumed: none per message (countTokens counts content only), "
            f"{GEMINI_PER_REQUEST} per request; tool declarations counted as their JSON, calls as "
            "name + arguments, results as name + content"
        )

    def _n(self, text: str, kind: KindArg = "auto") -> int:
        if text and self.api is not None and (counted := self.api.text(text)) is not None:
            return counted
        return self._ratio(text, kind)

    def _body(self, content: Content, kind: KindArg = "auto") -> int:
        return content.tokens if content.tokens is not None else self._n(content.text or "", kind)

    def prefetch(self, texts: Iterable[str]) -> None:
        self._ratio.prefetch(texts)

    def tools(self, tools: Sequence[ToolDef], tool_choice: ToolChoice) -> int:
        return sum(
            self._n(
                dump_json(
                    {"name": t.name, "description": t.description, "parameters": t.input_schema},
                    separators=(", ", ": "),
                    ensure_ascii=True,
                ),
                "prose",
            )
            for t in tools
        )

    def system(self, content: Content | None) -> int:
        return 0 if content is None else self._body(content)

    def user(self, content: Content) -> int:
        return self._body(content)

    def round(self, round_: Round) -> RoundTokens:
        text = self._body(round_.text) if round_.text is not None else 0
        calls = sum(self._n(c.tool, "prose") + self._body(c.input, "json") for c in round_.calls)
        result = sum(self._n(c.tool, "prose") + self._body(c.result) for c in round_.calls)
        if round_.user is not None:  # a chat turn: the user's next message
            result += self.user(round_.user)
        return RoundTokens(
            tools=tuple(c.tool for c in round_.calls),
            output=text + calls + round_.thinking,
            echo=text + calls,
            result=result,
            reply=round_.is_chat,
        )


def rules_for(
    provider: str,
    model_id: str,
    *,
    memo: TokenMemo | None = None,
    use_ctok: bool | None = None,
    use_offline: bool | None = None,
    tool_choice: ToolChoice = "auto",
) -> Rules:
    """The counting rules for any model, by its family (:func:`family_of`): OpenAI models on any host
    (Azure, OpenRouter) the OpenAI rules, Claude on any host (Bedrock, Vertex) the Anthropic rules,
    Gemini and Gemma the Google rules, every other family its chat template's rules
    (:mod:`agentcost.tokens.framing`); an unknown family counts as o200k_base × 1.0, approximate,
    with a note. Never raises for an unknown provider or model. Host prefixes and version suffixes
    are removed first (``us.anthropic.claude-...-v1:0`` counts as ``claude-...``).

    ``use_ctok``: ``None`` follows the run's counting mode (ctok only under ``--count ctok``, which
    raises :class:`~agentcost.errors.InputError` when ctok is not importable; the default, the ratio
    path, gives the same counts on every Python), ``False`` never, ``True`` requires it.
    ``use_offline``: ``None`` uses an offline tokenizer
    (agentcost-estimate[tokenizers]) when installed and verified, ``False`` never. ``tool_choice``:
    the scenario's, for the rules whose framing depends on it (Claude's tool_use blocks).
    """
    from agentcost.tokens.families import canonical_model_id, spec_of

    model = canonical_model_id(model_id)
    spec = spec_of(provider, model)
    if spec.rules == "openai":
        return OpenAIRules(model, memo=memo, provider=provider)
    if spec.rules == "anthropic":
        snapshot = canonical_model_id(model_id, keep_date=True)
        return AnthropicRules(
            model, memo=memo, use_ctok=use_ctok, provider=provider, tool_choice=tool_choice, snapshot=snapshot
        )
    if spec.rules == "google":
        return GeminiRules(model, memo=memo, provider=provider)
    from agentcost.tokens.framing import template_rules

    return template_rules(provider, model, memo=memo or DEFAULT_MEMO, use_offline=use_offline)
