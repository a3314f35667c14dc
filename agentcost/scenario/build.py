"""Validated scenario file -> the spec dataclasses of :mod:`agentcost.scenario.model`.

The validated file is the Spec mappings of :mod:`agentcost.scenario.format`; :class:`ScenarioBuilder`
reads the files the scenario names (each once in the whole load, subagents' too:
:class:`~agentcost.infra.files.SharedReads`; only inside the directories the run's policy allows:
:func:`~agentcost.infra.policy.confine`), normalises the tool definitions, builds the
distributions, applies ``defaults`` and unrolls ``repeat``; the subagents a call names are loaded by
:mod:`agentcost.scenario.subagents`.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from agentcost.errors import InputError
from agentcost.infra.files import SharedReads
from agentcost.infra.jsontext import dump_json
from agentcost.infra.policy import OutsideRoots, confine
from agentcost.infra.record import record
from agentcost.infra.yamlread import Doc, KeyPath, Unreadable, closest, key_text, parse, quoted, shown
from agentcost.scenario.format import (
    CacheTTLSpec,
    CallSpec,
    ChatTurnSpec,
    ContextEditingSpec,
    DefaultsSpec,
    LimitsSpec,
    OutcomeSpec,
    PacingSpec,
    RetriesSpec,
    RoundSpec,
    ScenarioFile,
    ServerToolSpec,
    TrimSpec,
    success_dist,
)
from agentcost.scenario.model import (
    MAX_ROUNDS,
    CacheTTL,
    Content,
    ContextEditing,
    Dist,
    Limits,
    Outcome,
    Pacing,
    ResultTrim,
    Retries,
    Round,
    Scenario,
    ServerToolDef,
    ServerToolUse,
    SizeField,
    Spread,
    ToolDef,
    ToolUse,
)
from agentcost.scenario.servers import (
    Waiting,
    called_server_tool,
    check_declared,
    check_server_only,
    check_uses,
    declared,
    server_call_error,
    server_only,
)
from agentcost.scenario.tools import tool_def, tool_file_models
from agentcost.scenario.values import (
    MAX_EMPIRICAL_VALUES,
    AnyDist,
    AnyToolModel,
    FileContent,
    McpTools,
    ProviderTool,
    ServerToolModel,
    TextContent,
    TokensContent,
    ToolFile,
    build_dist,
    select_tools,
)

if TYPE_CHECKING:
    from agentcost.scenario.subagents import FromDoc


@record
class _Origin:
    """Where a tool was defined, for error messages."""

    doc: Doc
    path: KeyPath

    @property
    def where(self) -> str:
        return self.doc.where(self.path)


class ScenarioBuilder:
    """Turns a validated scenario file into a :class:`Scenario`, reading the files it names."""

    def __init__(
        self,
        doc: Doc,
        spec: ScenarioFile,
        read_text: Callable[[Path], str],
        from_doc: FromDoc,
        *,
        depth: int = 0,
    ) -> None:
        self.doc = doc
        self.spec = spec
        self.base = doc.path.parent
        # one reader for the whole load, subagents included: each file is read once
        self.read_text = read_text if isinstance(read_text, SharedReads) else SharedReads(read_text)
        self.from_doc = from_doc  # builds a subagent's scenario (agentcost.scenario.load.scenario_from_doc)
        self.texts: dict[Path, str] = {}  # by the path as named: no second confinement check
        self.depth = depth  # 0: the scenario given; 1: a subagent of it; ...
        self.dists: dict[KeyPath, Dist] = {}  # each distribution is built once (defaults are shared)
        self.spreads: list[Spread] = []
        self.server_defs: list[ServerToolDef] = []  # server tools declared in tools

    def scenario(self, overrides: tuple[str, ...]) -> Scenario:
        spec, doc = self.spec, self.doc
        tools = self.tools(spec.tools or [])
        self.check_tool_choice(spec, bool(tools) or bool(self.server_defs))  # server tools: any may force one
        limits = spec.limits or LimitsSpec()
        rounds = self.rounds(tuple(tool.name for tool in tools))
        final_thinking = spec.final_thinking
        return Scenario(
            path=doc.path,
            model=spec.model,
            model_line=doc.own_line(("model",)),
            provider=spec.provider,
            system=None if spec.system is None else self.content(spec.system, ("system",)),
            tools=tools,
            tool_choice=spec.tool_choice or "auto",
            task=self.content(spec.task, ("task",)),
            rounds=rounds,
            final=self.content(spec.final, ("final",)),
            caching=spec.caching,
            **self.cache_ttl(spec.cache_ttl),
            cache_ttl_given="cache_ttl" in spec.fields_set,
            limits=Limits(
                max_rounds=limits.max_rounds,
                budget_usd=limits.budget_usd,
                max_rounds_line=doc.own_line(("limits", "max_rounds")),
                budget_line=doc.own_line(("limits", "budget_usd")),
                max_budget_usd=limits.max_budget_usd,
                max_budget_line=doc.own_line(("limits", "max_budget_usd")),
                max_concurrent_subagents=limits.max_concurrent_subagents,
                max_tokens=limits.max_tokens,
                max_tokens_line=doc.own_line(("limits", "max_tokens")),
            ),
            name=spec.name,
            description=spec.description,
            overrides=overrides,
            pacing=Pacing(round_seconds=(spec.pacing or PacingSpec()).round_seconds),
            service_tier=spec.service_tier or "standard",
            service_tier_line=doc.own_line(("service_tier",)),
            thinking_retention=spec.thinking_retention or "auto",
            final_thinking=self.count(final_thinking, ("final_thinking",)) or 0,
            server_tool_quota=spec.server_tool_quota or "spent",
            retries=self.retries(spec.retries),
            trim=None if spec.trim is None else self.trim(spec.trim),
            context_editing=self.context_editing(spec.context_editing, tools),
            tool_search_stub=spec.tool_search_stub if spec.tool_search_stub is not None else 9,
            server_tool_defs=tuple(self.server_defs),
            spreads=tuple(self.spreads),
            final_dist=self.dist_at(spec.final, ("final",)),
            final_thinking_dist=self.dist_at(final_thinking, ("final_thinking",)),
            outcome=self.outcome(spec.outcome),
            quotes=doc.quotes,
        )

    def cache_ttl(self, value: CacheTTL | CacheTTLSpec | None) -> dict[str, Any]:
        """``Scenario.cache_ttl`` and ``prefix_cache_ttl`` (None unless the two TTLs differ)."""
        if not isinstance(value, CacheTTLSpec):
            return {"cache_ttl": value or "5m"}
        if value.prefix == "5m" and value.conversation == "1h":
            raise self.doc.error(
                ("cache_ttl", "conversation"),
                "a 1h conversation entry cannot follow a 5m prefix entry",
                "Anthropic requires cache entries with a longer TTL to come before shorter ones; "
                "use {prefix: 1h, conversation: 5m}, or one TTL",
            )
        prefix = value.prefix if value.prefix != value.conversation else None
        return {"cache_ttl": value.conversation, "prefix_cache_ttl": prefix}

    # -- agent dynamics

    def retries(self, item: RetriesSpec | None) -> Retries:
        if item is None:
            return Retries()
        if item.share is not None and item.count is not None:
            raise self.doc.error(
                ("retries", "count"), "share and count exclude each other", "give one of them"
            )
        error = None if item.error is None else self.content(item.error, ("retries", "error"))
        if item.attempts is None:
            return Retries(share=item.share or Decimal(0), count=item.count or 0, error=error)
        at, attempts = ("retries", "attempts"), self.count(item.attempts, ("retries", "attempts"), 2) or 0
        if item.share is None and item.count is None:
            hint = "give count (e.g. count: 1 for one failing call) or share with attempts"
            raise self.doc.error(at, "attempts needs the failing calls", hint)
        if attempts < 2:
            hint = "attempts counts the successful one too: 2 is one failure, then success"
            raise self.doc.error(at, f"attempts must be at least 2, got {attempts}", hint)
        dist = self.dist_at(item.attempts, at, 2)
        return Retries(item.share or Decimal(0), item.count or 0, error, attempts, dist)

    def outcome(self, item: OutcomeSpec | None) -> Outcome | None:
        if item is None:
            return None
        policy = item.on_failure or "retry"
        if policy == "abandon" and item.max_attempts is not None:
            raise self.doc.error(
                ("outcome", "max_attempts"),
                "max_attempts applies to on_failure: retry",
                "an abandoned run is never made again; remove max_attempts or use on_failure: retry",
            )
        line = self.doc.own_line(("outcome", "success"))
        p, dist = success_dist(item.success, line)
        by_model = tuple((item.success_by_model or {}).items())
        return Outcome(p, policy, item.max_attempts, line, item.failure_rounds, by_model, dist)

    def trim(self, item: TrimSpec) -> ResultTrim:
        if item.max_tokens is None and item.keep_last is None:
            raise self.doc.error(("trim",), "trim sets nothing", "give max_tokens, keep_last or both")
        if item.keep_last is not None and self.spec.context_editing is not None:
            raise self.doc.error(
                ("trim", "keep_last"),
                "trim.keep_last and context_editing exclude each other",
                "both clear old tool results; keep one of them",
            )
        return ResultTrim(max_tokens=item.max_tokens, keep_last=item.keep_last)

    def context_editing(
        self, item: ContextEditingSpec | None, tools: tuple[ToolDef, ...]
    ) -> ContextEditing | None:
        if item is None:
            return None
        names = tuple(tool.name for tool in tools)
        excluded = item.exclude_tools or []
        for i, name in enumerate(excluded):
            if names and name not in names:
                raise self.unknown_tool(("context_editing", "exclude_tools", i), name, names)
        default = ContextEditing()
        return ContextEditing(
            trigger=item.trigger if item.trigger is not None else default.trigger,
            keep=item.keep if item.keep is not None else default.keep,
            clear_at_least=item.clear_at_least if item.clear_at_least is not None else default.clear_at_least,
            placeholder=item.placeholder if item.placeholder is not None else default.placeholder,
            exclude_tools=tuple(excluded),
        )

    def _load_subagent(self, value: dict[str, Any], path: KeyPath, line: int | None, depth: int) -> Scenario:
        """The subagent a tool call hands work to: ``value`` is the raw ``subagent`` mapping at key
        path ``path`` (line ``line``) of this file, ``{file: path}`` or an inline scenario; ``depth``
        is the subagent's nesting depth (1 for a subagent of the top-level scenario).

        Hook for the subagents mechanism (loading, depth limit, cycles)."""
        from agentcost.scenario.subagents import load_subagent

        return load_subagent(
            value,
            parent_path=self.doc.path,
            line=line,
            reader=self.read_text,
            from_doc=self.from_doc,
            depth=depth,
            doc=self.doc,
            at=path,
        )

    # -- content and files

    # -- distributions

    def dist_at(self, value: Any, path: KeyPath, minimum: int = 0) -> Dist | None:
        """The distribution written at ``path`` (None if ``value`` is not one)."""
        if not isinstance(value, AnyDist):
            return None
        if path not in self.dists:
            self.dists[path] = self.dist(value, path, minimum)
        return self.dists[path]

    def dist(self, value: AnyDist, path: KeyPath, minimum: int) -> Dist:
        return build_dist(self.doc, value, path, minimum, self.empirical_file)

    def empirical_file(self, name: str, path: KeyPath) -> list[int]:
        """The whole numbers of a file of observed values: one or more per line (commas or spaces
        between them), ``#`` starts a comment."""
        text = self.read(name, (*path, "file"))
        file = self.file_path(name)
        hint = f"observed values for {key_text(path, quotes=self.doc.quotes)}, one or more per line"
        values: list[int] = []
        for n, line in enumerate(text.splitlines(), start=1):
            for word in line.split("#", 1)[0].replace(",", " ").split():
                if not word.isascii() or not word.isdigit() or int(word) > 1_000_000_000:
                    raise InputError(
                        f"not a whole number from 0 to 1,000,000,000: {shown(word, quote=False)}",
                        file=file,
                        line=n,
                        hint=hint,
                    )
                values.append(int(word))
                if len(values) > MAX_EMPIRICAL_VALUES:
                    raise InputError(
                        f"more than {MAX_EMPIRICAL_VALUES:,} values", file=file, line=n, hint="sample them"
                    )
        if not values:
            raise InputError("no values", file=file, hint=hint)
        return values

    def count(self, value: Any, path: KeyPath, minimum: int = 0) -> int | None:
        """A count or size: the number, or the median of the distribution written there."""
        if value is None or isinstance(value, int):
            return value
        from agentcost.scenario.dists import median

        dist = self.dist_at(value, path, minimum)
        assert dist is not None
        return median(dist)

    def content(self, value: Any, path: KeyPath) -> Content:
        if isinstance(value, AnyDist):
            tokens = self.count(value, path)
            assert tokens is not None
            return Content(tokens=tokens)
        if isinstance(value, int):
            return Content(tokens=value)
        if isinstance(value, str):
            return Content(text=value)
        if isinstance(value, TokensContent):
            return Content(tokens=value.tokens)
        if isinstance(value, TextContent):
            return Content(text=value.text)
        if isinstance(value, FileContent):
            return Content(text=self.read(value.file, (*path, "file")))
        raise TypeError(f"unexpected content {value!r}")  # pragma: no cover - a bug, not input

    def file_path(self, name: str) -> Path:
        return self.base / name

    def shown_path(self, file: Path) -> str:
        """``file``, a path written in this file, as a message names it: not at all when the file's
        text is never quoted (a subagent file: docs/security.md)."""
        return str(file) if self.doc.quotes else "the file named here"

    def named(self, file: Path, path: KeyPath) -> Path:
        """The real path of ``file``, named at ``path`` of this file, if the run may read it there
        (else the error at ``path``, naming the path it resolves to and ``--allow-path``)."""
        from agentcost.scenario.subagents import top_file

        try:
            return confine(file, self.doc.path, top_file(self.doc.path))
        except OutsideRoots as e:
            raise self.doc.error(path, e.text(quotes=self.doc.quotes), e.hint) from None

    def read(self, name: str, path: KeyPath) -> str:
        file = self.file_path(name)
        key = Path(os.path.abspath(file))  # unlike resolve(), never touches the file system
        if key not in self.texts:
            real = self.named(file, path)
            try:
                self.texts[key] = self.read_text(real)
            except Unreadable as e:
                raise self.doc.error(path, f"cannot read {self.shown_path(file)}: {e.reason}") from None
        return self.texts[key]

    # -- tools

    def tools(self, items: list[Any]) -> tuple[ToolDef, ...]:
        tools: list[ToolDef] = []
        seen: dict[str, _Origin] = {}
        for i, item in enumerate(items):
            line = self.doc.line(("tools", i))
            defer = item.defer_loading if isinstance(item, ToolFile | McpTools) else None
            found = self.tool_models(item, ("tools", i))
            for model, origin in select_tools(item, found, self.doc, ("tools", i)):  # include/exclude
                if isinstance(model, ServerToolModel):  # a server tool: the rounds' server_tools
                    for server in declared(model, origin.doc, origin.path, line):
                        if isinstance(model, ProviderTool) and model.name is not None:
                            self.check_name(server.name, origin, seen)
                        self.server_defs.append(server)
                    continue
                tool = tool_def(model, line, defer)
                self.check_name(tool.name, origin, seen)
                tools.append(tool)
        return tuple(tools)

    @staticmethod
    def check_name(name: str, origin: _Origin, seen: dict[str, _Origin]) -> None:
        """Tool names are unique (a server tool's name too, where the provider's format gives one)."""
        if name in seen:
            first = f"first defined at {seen[name].where}"
            named = f" {quoted(name)}" if origin.doc.quotes else ""
            raise origin.doc.error((*origin.path, "name"), f"duplicate tool name{named}", first)
        seen[name] = origin

    def tool_models(self, item: Any, path: KeyPath) -> list[tuple[AnyToolModel, _Origin]]:
        if isinstance(item, McpTools):  # an MCP config's servers, each from its committed tools/list
            from agentcost.scenario.mcpconfig import scenario_tools  # only a scenario with an mcp: entry

            return [(m, _Origin(d, w)) for m, d, w in scenario_tools(item, self.doc, path, self.read)]
        if not isinstance(item, ToolFile):
            return [(item, _Origin(self.doc, path))]
        file = self.file_path(item.file)
        real = self.named(file, (*path, "file"))
        try:
            text = self.read_text(real)
        except Unreadable as e:
            raise self.doc.error(
                (*path, "file"), f"cannot read {self.shown_path(file)}: {e.reason}"
            ) from None
        hint = f"tool file named at {self.doc.where(path)}"
        tool_doc = parse(Doc(file, hint=hint, quotes=False), text)
        return [(model, _Origin(tool_doc, where)) for model, where in tool_file_models(tool_doc)]

    def unknown_tool(self, path: KeyPath, tool: str, names: tuple[str, ...]) -> InputError:
        """``tool``, at ``path``, is none of the tools defined (``names``): named, with the tools
        defined, unless this file is never quoted (a file named inside another: docs/security.md)."""
        if not self.doc.quotes:
            return self.doc.error(path, "unknown tool", "not a name of the tools this file defines")
        shown = ", ".join(names[:12]) + (f", ... ({len(names)} in all)" if len(names) > 12 else "")
        close = closest(tool, names)
        hint = f"defined: {shown}" + (f"; did you mean {close!r}?" if close else "")
        return self.doc.error(path, f"unknown tool {quoted(tool)}", hint)

    def check_tool_choice(self, spec: ScenarioFile, has_tools: bool) -> None:
        choice, path = spec.tool_choice or "auto", ("tool_choice",)
        if choice in ("any", "tool") and not has_tools:
            raise self.doc.error(path, f"{choice!r} needs tools, but none are defined")
        tool_rounds = [item for item in spec.rounds or [] if isinstance(item, RoundSpec)]
        if choice == "none" and tool_rounds:
            raise self.doc.error(
                path,
                f"'none' forbids tool calls, but rounds has {len(tool_rounds)} tool round(s)",
                "use auto, or remove the tool rounds",
            )

    # -- rounds

    def rounds(self, tool_names: tuple[str, ...]) -> tuple[Round, ...]:
        defaults = self.spec.defaults or DefaultsSpec()
        rounds: list[Round] = []
        waiting = Waiting()  # server tools of rounds of server tools only, for the next response
        for i, item in enumerate(self.spec.rounds or []):
            path: KeyPath = ("rounds", i)
            keys = set(item.fields_set)
            if isinstance(item, RoundSpec) and server_only(keys, item.server_tools):
                check_server_only(self.doc, path, keys)
                waiting.add(self.server_tools(item.server_tools, defaults, path), path)
                continue
            repeat_dist = self.dist_at(item.repeat, (*path, "repeat"))
            repeat = self.count(item.repeat, (*path, "repeat"))
            repeat = 1 if repeat is None else repeat
            if repeat_dist is not None:
                from agentcost.scenario.dists import upper

                most = upper(repeat_dist)
                if most is not None and len(rounds) + most > MAX_ROUNDS:
                    raise self.doc.error(
                        (*path, "repeat"), f"more than {MAX_ROUNDS:,} rounds after repeats at the maximum"
                    )
            if len(rounds) + repeat > MAX_ROUNDS:
                raise self.doc.error(path, f"more than {MAX_ROUNDS:,} rounds after repeats")
            if isinstance(item, ChatTurnSpec):
                one = self.chat_turn(item, defaults, path)
            else:
                one = self.round(item, defaults, path, tool_names)
            sizes = self.sizes(item, defaults, path)
            waiting.check_spread(self.doc, path, repeat, repeat_dist is not None or bool(sizes))
            first = waiting.into(one)
            check_uses(self.doc, path, first, tuple(self.server_defs))
            if repeat_dist is not None or sizes:
                self.spreads.append(Spread(len(rounds), repeat, first, repeat_dist, sizes))
            rounds.extend([first] + [one] * (repeat - 1) if repeat else [])
        waiting.check_done(self.doc)
        return tuple(rounds)

    def sizes(
        self, item: RoundSpec | ChatTurnSpec, defaults: DefaultsSpec, path: KeyPath
    ) -> tuple[tuple[SizeField, int, Dist], ...]:
        """The distributions among a rounds item's sizes (its own or from defaults)."""
        found: list[tuple[SizeField, int, Dist | None]] = []

        def own(value: Any, default: Any, key: str, at: KeyPath = path) -> Dist | None:
            given, given_path = _own_or_default(value, default, at, key)
            return self.dist_at(given, given_path, 1 if key == "call_tokens" else 0)

        found.append(("thinking", 0, own(item.thinking, defaults.thinking, "thinking")))
        if isinstance(item, ChatTurnSpec):
            found.append(("text", 0, self.dist_at(item.reply, (*path, "reply"))))
            found.append(("user", 0, self.dist_at(item.user, (*path, "user"))))
        else:
            found.append(("text", 0, own(item.text, defaults.text, "text")))
            calls: list[tuple[RoundSpec | CallSpec, KeyPath]] = (
                [(call, (*path, "calls", j)) for j, call in enumerate(item.calls)]
                if item.calls is not None
                else [(item, path)]
            )
            for j, (call, at) in enumerate(calls):
                if call.subagent is None:
                    found.append(("result", j, own(call.result, defaults.result, "result", at)))
                if call.input is None:
                    found.append(("call", j, own(call.call_tokens, defaults.call_tokens, "call_tokens", at)))
        return tuple((name, j, dist) for name, j, dist in found if dist is not None)

    def chat_turn(self, item: ChatTurnSpec, defaults: DefaultsSpec, path: KeyPath) -> Round:
        """A chat turn: no call; the reply is the assistant's text; the user's message comes back.

        Of ``defaults``, the keys of a response apply (thinking, seconds, server_tools); those of a
        tool call (call_tokens, result, text) do not."""
        thinking, thinking_path = _own_or_default(item.thinking, defaults.thinking, path, "thinking")
        seconds = item.seconds if item.seconds is not None else defaults.seconds
        return Round(
            calls=(),
            thinking=self.count(thinking, thinking_path) or 0,
            text=self.content(item.reply, (*path, "reply")),
            line=self.doc.line(path),
            seconds=seconds,
            server_tools=self.server_tools(item.server_tools, defaults, path),
            user=self.content(item.user, (*path, "user")),
        )

    def server_tools(
        self, own: list[ServerToolSpec] | None, defaults: DefaultsSpec, path: KeyPath
    ) -> tuple[ServerToolUse, ...]:
        servers, servers_path = _own_or_default(own, defaults.server_tools, path, "server_tools")
        return tuple(self.server_tool(server, (*servers_path, i)) for i, server in enumerate(servers or []))

    def round(
        self, item: RoundSpec, defaults: DefaultsSpec, path: KeyPath, tool_names: tuple[str, ...]
    ) -> Round:
        thinking, thinking_path = _own_or_default(item.thinking, defaults.thinking, path, "thinking")
        text, text_path = _own_or_default(item.text, defaults.text, path, "text")
        if item.calls is not None:  # parallel calls: several tool_use blocks in one response
            for key in ("tool", "input", "call_tokens", "result", "subagent"):
                if getattr(item, key) is not None:
                    raise self.doc.error(
                        (*path, key),
                        f"calls and {key} exclude each other",
                        "give each call's tool, input or call_tokens, and result in an item of calls",
                    )
            calls = tuple(
                self.tool_use(call, defaults, (*path, "calls", j), tool_names, "call")
                for j, call in enumerate(item.calls)
            )
        else:
            calls = (self.tool_use(item, defaults, path, tool_names, "round"),)
        seconds = item.seconds if item.seconds is not None else defaults.seconds
        return Round(
            calls=calls,
            thinking=self.count(thinking, thinking_path) or 0,
            text=None if text is None else self.content(text, text_path),
            line=self.doc.line(path),
            model=item.model,
            seconds=seconds,
            server_tools=self.server_tools(item.server_tools, defaults, path),
            container_seconds=item.container_seconds,
        )

    def tool_use(
        self,
        item: RoundSpec | CallSpec,
        defaults: DefaultsSpec,
        path: KeyPath,
        tool_names: tuple[str, ...],
        what: Literal["round", "call"],
    ) -> ToolUse:
        """The tool call of a round (``what`` "round"), or one of its parallel calls ("call")."""
        if item.tool is None:
            raise self.doc.error(
                (*path, "tool"),
                "required key is missing",
                "the name of the tool this round calls; calls: [...] for parallel calls; reply and "
                "user for a chat turn; or server_tools alone for a round of server tools only",
            )
        server = called_server_tool(item.tool, tuple(self.server_defs))
        if server is not None and item.tool not in tool_names:
            raise server_call_error(self.doc, path, server)
        if tool_names and item.tool not in tool_names:
            raise self.unknown_tool((*path, "tool"), item.tool, tool_names)
        subagent: Scenario | None = None
        subagent_line: int | None = None
        if item.subagent is not None:
            if item.result is not None:
                raise self.doc.error(
                    (*path, "result"),
                    "subagent and result exclude each other",
                    "the subagent's final answer is the result",
                )
            subagent_path = (*path, "subagent")
            subagent_line = self.doc.line(subagent_path)
            subagent = self._load_subagent(item.subagent, subagent_path, subagent_line, self.depth + 1)
            result = subagent.final
        else:
            given, result_path = _own_or_default(item.result, defaults.result, path, "result")
            if given is None:
                raise self.doc.error(
                    path,
                    f"the {what} has no result",
                    "add result: N tokens, a text or {file: path}, or set defaults.result",
                )
            result = self.content(given, result_path)
        return ToolUse(
            tool=item.tool,
            input=self.call(item, defaults, path, what),
            result=result,
            subagent=subagent,
            subagent_line=subagent_line,
        )

    def server_tool(self, item: ServerToolSpec, path: KeyPath) -> ServerToolUse:
        check_declared(self.doc, path, item.tool, tuple(self.server_defs))
        return ServerToolUse(
            tool=item.tool,
            uses=item.uses if item.uses is not None else 1,
            result=None if item.result is None else self.content(item.result, (*path, "result")),
            line=self.doc.line(path),
        )

    def call(
        self,
        item: RoundSpec | CallSpec,
        defaults: DefaultsSpec,
        path: KeyPath,
        what: Literal["round", "call"] = "round",
    ) -> Content:
        if item.input is not None and item.call_tokens is not None:
            raise self.doc.error(
                (*path, "call_tokens"), "input and call_tokens exclude each other", "give one of them"
            )
        if item.input is not None:
            return Content(text=dump_json(item.input))
        given, given_path = _own_or_default(item.call_tokens, defaults.call_tokens, path, "call_tokens")
        tokens = self.count(given, given_path, minimum=1)
        if tokens is None:
            raise self.doc.error(
                path,
                f"the {what} has neither input nor call_tokens",
                "add input: {...} or call_tokens: N, or set defaults.call_tokens",
            )
        return Content(tokens=tokens)


def _own_or_default(own: Any, default: Any, path: KeyPath, key: str) -> tuple[Any, KeyPath]:
    """A round's own value for ``key``, else the default, each with the key path it came from."""
    if own is not None:
        return own, (*path, key)
    return default, ("defaults", key)
