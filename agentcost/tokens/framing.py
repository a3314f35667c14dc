"""Counting rules of every family but OpenAI, Claude and Gemini: texts by the family's offline tokenizer
(or o200k_base, or o200k_base × its measured ratio) and its chat template's framing constants.

The constants (families.yaml, ``framing``) were measured by rendering each family's published chat
template (Meta's Llama 3.1 template, Qwen's, DeepSeek V4's ``encoding_dsv4.py``, mistral-common,
GLM's, MiniMax's, openai-harmony for gpt-oss) and subtracting the texts' own tokens:

* a request: ``fixed`` (begin-of-text, reply priming, a template's always-present default prompt);
  the system message ``system`` + text (``no_system`` when there is none: a default system prompt);
  each user message ``user`` + text; each assistant text message ``assistant`` + text;
* tools: ``tools_preamble`` once + per tool ``per_tool`` + its compact JSON
  ``{"name", "description", "parameters"}`` (gpt-oss: OpenAI's cookbook recipe, which matches
  harmony's TypeScript rendering within a token on the measured tools);
* a tool round: per call ``call`` + name + arguments (echoed and generated); the round's first
  result ``result`` + content, each further result ``result_next`` + content.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace

from agentcost.infra.jsontext import dump_json
from agentcost.scenario.model import Content, Round, ToolChoice, ToolDef
from agentcost.tokens import offline
from agentcost.tokens.counts import RoundTokens
from agentcost.tokens.families import Family, FamilySpec, family_of, ratio_method, spec_of
from agentcost.tokens.memo import TokenMemo
from agentcost.tokens.textcount import BodyTail, KindArg, Notes, RatioCounter


def _tool_json(tool: ToolDef) -> str:
    return dump_json(
        {"name": tool.name, "description": tool.description, "parameters": tool.input_schema},
        separators=(", ", ": "),
        ensure_ascii=True,
    )


class TemplateRules(BodyTail):
    """One open-weight (or otherwise non-OpenAI/Claude/Gemini) family's counting rules."""

    def __init__(
        self, provider: str, model_id: str, spec: FamilySpec, *, memo: TokenMemo, use_offline: bool | None
    ) -> None:
        assert spec.framing is not None
        self.model_id = model_id
        self.memo = memo
        self.spec = spec
        self.framing = spec.framing
        self.per_request = spec.framing.fixed
        self._notes = Notes()
        family = family_of(provider, model_id)
        self._offline: str | None = None
        self._ratio: RatioCounter | None = None
        if spec.text == "tiktoken":  # gpt-oss: o200k text, exact
            self.encoding = "o200k_base"
            self.approximate = True
            self._notes.add(spec.note)
        elif spec.text in offline.TOKENIZERS and use_offline is not False and offline.status(spec.text).ready:
            self._offline = spec.text
            self.encoding = offline.encoding_name(spec.text)
            self.approximate = False
            self._notes.add(
                f"{spec.label}: texts counted exactly with the {offline.status(spec.text).backend} "
                f"(vocabulary sha256-verified, offline; {spec.source})"
            )
            self._notes.add(spec.note)
        else:
            ratio = spec.ratio
            assert ratio is not None
            self._ratio = RatioCounter(ratio.prose, ratio.json, memo)
            self.encoding = "o200k_base × ratio"
            self.approximate = True
            if family.exact:  # an offline tokenizer was there but not to be used
                family = replace(
                    family,
                    exact=False,
                    method=f"{ratio_method(spec)} + {spec.framing_label} (approximate)",
                    backend="o200k_base × ratio",
                    note="offline tokenizer not used (use_offline=False)",
                )
            self._notes.add(family.note)
            self._notes.add(
                f"{spec.label}: texts counted as {ratio_method(spec)}, the JSON ratio for texts that "
                f"parse as JSON" + (f" ({ratio.measurement.cite()})" if ratio.measurement is not None else "")
            )
        self.family: Family = family
        self.method = family.method
        f = self.framing
        tools = (
            "tool definitions by OpenAI's cookbook recipe (≈ harmony's TypeScript rendering)"
            if spec.rules == "harmony"
            else f"tools {f.tools_preamble} once + {f.per_tool} each + their JSON"
        )
        self._notes.add(
            f"{spec.framing_label} ({f.source}): {f.fixed} per request, "
            f"system {f.system} (none: {f.no_system}), {f.user} per user and {f.assistant} per "
            f"assistant message, {tools}, {f.call} per tool call + name + arguments, {f.result} for "
            f"a round's first tool result and {f.result_next} for each further one + content"
        )

    # -- texts ----------------------------------------------------------------------------------

    def _n(self, text: str, kind: KindArg = "auto") -> int:
        if not text:
            return 0
        if self._ratio is not None:
            return self._ratio(text, kind)
        if self._offline is not None:
            name = self._offline
            return self.memo.count(
                self.encoding, text, lambda t: offline.counter(name)(t), disk_scheme=offline.disk_scheme(name)
            )
        return self.memo.tiktoken("o200k_base", text)

    def _body(self, content: Content, kind: KindArg = "auto") -> int:
        return content.tokens if content.tokens is not None else self._n(content.text or "", kind)

    def prefetch(self, texts: Iterable[str]) -> None:
        if self._ratio is not None:
            self._ratio.prefetch(texts)
        elif self._offline is not None:
            name = self._offline
            self.memo.prefetch(
                self.encoding, texts, lambda: offline.counter(name), disk_scheme=offline.disk_scheme(name)
            )
        else:
            self.memo.prefetch_tiktoken("o200k_base", texts)

    # -- parts ----------------------------------------------------------------------------------

    def tools(self, tools: Sequence[ToolDef], tool_choice: ToolChoice) -> int:
        if not tools:
            return 0
        if self.spec.rules == "harmony":
            from agentcost.tokens.openai import function_tokens, openai_tool_constants

            constants = openai_tool_constants("gpt-4o")
            total = constants.func_end
            for tool in tools:
                total += function_tokens(tool.name, tool.description, tool.input_schema, constants, self._n)[
                    0
                ]
            return total
        f = self.framing
        return f.tools_preamble + sum(f.per_tool + self._n(_tool_json(t), "prose") for t in tools)

    def system(self, content: Content | None) -> int:
        if content is None:
            return self.framing.no_system
        return self.framing.system + self._body(content)

    def user(self, content: Content) -> int:
        return self.framing.user + self._body(content)

    def round(self, round_: Round) -> RoundTokens:
        f = self.framing
        text = self._body(round_.text) if round_.text is not None else 0
        calls = sum(self._n(c.tool, "prose") + self._body(c.input, "json") + f.call for c in round_.calls)
        echo = text + calls + (0 if round_.calls else f.assistant)
        result = sum(
            (f.result if i == 0 else f.result_next) + self._body(c.result) for i, c in enumerate(round_.calls)
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


def template_rules(
    provider: str, model_id: str, *, memo: TokenMemo, use_offline: bool | None = None
) -> TemplateRules:
    """The rules of a family counted by its chat template (``rules: template`` or ``harmony``)."""
    return TemplateRules(provider, model_id, spec_of(provider, model_id), memo=memo, use_offline=use_offline)
