"""The replay ledger: a :class:`~agentcost.replay.trace.Trace` counted and priced request by request.

:func:`replay` counts every request with agentcost's token rules for the model's provider, puts the
reported figures beside our counts (error in % per request and in total), shows the gap between them
(attributed to what the log shows: :mod:`agentcost.replay.attribution`; never hidden), and prices the
run from the REPORTED usage (our counts where nothing is reported, and says so), each request with
:meth:`~agentcost.prices.pricing.ModelPrices.price` and its billed items
(:mod:`agentcost.prices.billing`), as an estimate's accountant prices its requests. The text a trace
would tokenize is measured first (:func:`check_trace`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from datetime import datetime
from decimal import Decimal
from typing import TYPE_CHECKING, Any, cast

from agentcost.errors import InputError
from agentcost.prices.billing import BilledRequest, Tally, search_preview_calls
from agentcost.prices.pricing import ModelPrices
from agentcost.replay import attribution
from agentcost.replay.subtotals import model_prices, per_agent, per_model, snapshot_note
from agentcost.replay.trace import (
    GrowthFit,
    Message,
    PricedFrom,
    ReplayReport,
    ReplayRequest,
    ReplayTotals,
    ReportedUsage,
    ToolPart,
    ToolResults,
    Trace,
)
from agentcost.tokens.request import RequestUsage

if TYPE_CHECKING:
    from agentcost.prices.user import UserPrices
    from agentcost.scenario.model import ToolChoice, ToolDef
    from agentcost.tokens.counts import RoundTokens
    from agentcost.tokens.rules import Rules


# ---------------------------------------------------------------------------------------------
# Counting
# ---------------------------------------------------------------------------------------------


def trace_chars(trace: Trace) -> int:
    """Characters of the text that counting ``trace`` tokenizes: each distinct text once (the memo
    counts an equal text once, however many requests repeat it): messages, their names, tool calls
    and results, responses and the results after them; each distinct tool definition as its JSON
    text (built one at a time; its length and hash kept). A 120 MB word took 82 s and 5.85 GB."""
    import json

    texts: set[str] = set()
    tools: set[int] = set()  # hashes of the tool definitions' JSON texts
    total = 0

    def add(*found: str | None) -> None:
        nonlocal total
        for text in found:
            if text and text not in texts:
                texts.add(text)
                total += len(text)

    for call in trace.calls:
        for m in call.messages or ():
            add(m.text, m.name, *(x for p in (*m.calls, *m.results) for x in (p.name, p.text)))
        for tool in call.tools or ():
            text = json.dumps(tool, ensure_ascii=True, separators=(", ", ": "), default=str)
            if hash(text) not in tools:
                tools.add(hash(text))
                total += len(text)
        add(call.output_text, call.result_text, *(x for p in call.output_calls for x in (p.name, p.text)))
    return total


def check_trace(trace: Trace) -> None:
    """Refuse (:class:`InputError`, naming the log) a run whose counting would tokenize more text
    than the run's policy allows (``--max-input-bytes``): the text budget, checked before anything
    is tokenized by :func:`replay` (so ``replay``, each run of ``replay DIR`` and ``calibrate``)."""
    from agentcost.scenario.budget import check_text

    counted = "each distinct text of the log once, tool definitions as JSON text"
    check_text(trace_chars(trace), file=trace.path, counted=counted)


class _Counter:
    """Counts a recorded request's messages and a response with the model's rules.

    One counting path with ``estimate``: plain messages by the cookbook (OpenAI) or the rules'
    ``system`` / ``user`` / ``final``; a message's tool calls and tool results, and a response's
    tool calls, as the rules count a scenario round's (:meth:`Rules.round`: its ``echo``,
    ``result`` and ``output``), so a tool call carries the same framing in both commands.
    """

    def __init__(self, model: str, prices: ModelPrices) -> None:
        from agentcost.tokens.openai import openai_encoding_name
        from agentcost.tokens.rules import OpenAIRules, maker_of, rules_for

        self.maker = maker_of(prices.provider, prices.rules_id)
        self.notes: list[str] = []
        if self.maker == "openai":
            # the model as the log names it: tiktoken knows dated snapshots genai-prices folds away
            name = model.split("/", 1)[1] if model.startswith("openai/") else model
            self.openai_model = name
            self.encoding, fallback = openai_encoding_name(name)
            if fallback:
                self.notes.append(fallback)
            self.rules: Rules = OpenAIRules(name)
            self.method = f"tiktoken {self.encoding} + OpenAI cookbook message framing"
            self.approximate = False
        else:
            self.rules = rules_for(prices.provider, _snapshot(model, prices.rules_id))
            self.method = self.rules.method
            self.approximate = self.rules.approximate
        self._tool_notes = False

    def text(self, text: str) -> int:
        """A response's text (or a tool result's) without tool calls."""
        from agentcost.tokens.memo import count_text

        if self.maker == "openai":
            return count_text(text, self.encoding)
        from agentcost.scenario.model import Content

        return self.rules.final(Content(text=text)) if text else 0

    def _round(
        self,
        text: str,
        calls: Sequence[ToolPart],
        results: Sequence[ToolPart] = (),
        tool_choice: str | None = None,
    ) -> RoundTokens:
        """The rules' counts of a scenario round made of these tool calls (or results) and text, in a
        request sent with ``tool_choice`` (Claude's tool_use framing depends on it)."""
        from agentcost.scenario.model import Content, Round, ToolUse
        from agentcost.tokens.rules import AnthropicRules

        empty = Content(text="")
        if not self._tool_notes:  # say which framing a recorded tool call or result is counted with
            self._tool_notes = True
            self.notes.append(_tool_framing_note(self.maker))
        uses = tuple(ToolUse(c.name, Content(text=c.text), empty) for c in calls) + tuple(
            ToolUse(r.name, empty, Content(text=r.text)) for r in results
        )
        rules = self.rules
        if isinstance(rules, AnthropicRules):
            rules = rules.choosing(_tool_choice(tool_choice))
        return rules.round(Round(calls=uses, text=Content(text=text) if text else None))

    def output(self, text: str, calls: Sequence[ToolPart] = (), tool_choice: str | None = None) -> int:
        """A response: its text, and its tool calls with the framing ``estimate`` gives a round's."""
        return self._round(text, calls, (), tool_choice).output if calls else self.text(text)

    def _body(self, text: str) -> int:
        """Tokens of ``text`` inside a message whose framing is counted elsewhere."""
        from agentcost.scenario.model import Content

        if not text:
            return 0
        return self.rules.user(Content(text=text)) - self.rules.user(Content(tokens=0))

    def _tool_message(self, m: Message, called: list[str], tool_choice: str | None = None) -> int:
        """A message with tool calls (an assistant's, as ``estimate`` echoes a round) or results
        (Anthropic ``tool_result`` blocks; an OpenAI ``role: tool`` message is one result, of the
        tool its ``name`` says, else of the next call of the assistant message before it)."""
        if m.role == "tool":
            name = m.name if m.name is not None else (called.pop(0) if called else "")
            return self._round("", (), (ToolPart(name, m.text),)).result
        if m.calls:
            return self._round(m.text, m.calls, (), tool_choice).echo
        return self._round("", (), m.results).result + self._body(m.text)

    def request(
        self,
        messages: Sequence[Message],
        tools: Sequence[Mapping[str, Any]] | None,
        tool_choice: str | None = None,
    ) -> int:
        from agentcost.scenario.model import Content

        structured, called, plain = 0, list[str](), list[Message]()
        for m in messages:
            if m.calls:
                called = [c.name for c in m.calls]
            if m.calls or m.results or m.role == "tool":
                structured += self._tool_message(m, called, tool_choice)
            else:
                plain.append(m)
        if self.maker == "openai":
            from agentcost.tokens.openai import num_tokens_for_tools, num_tokens_from_messages

            rows: list[dict[str, str]] = []
            for m in plain:
                row = {"role": m.role, "content": m.text}
                if m.name is not None:
                    row["name"] = m.name
                rows.append(row)
            if tools:
                return structured + num_tokens_for_tools(list(tools), rows, self.openai_model)
            return structured + num_tokens_from_messages(rows, self.openai_model)
        total = self.rules.per_request + structured
        for m in plain:
            content = Content(text=m.text)
            if m.role == "system":
                total += self.rules.system(content)
            elif m.role == "assistant":
                total += self.rules.final(content)
            else:
                total += self.rules.user(content)
        if tools:
            total += self.rules.tools([_tool_def(t) for t in tools], _tool_choice(tool_choice))
        return total


def _snapshot(recorded: str, rules_id: str) -> str:
    """The recorded model id when it is a dated snapshot of ``rules_id`` (its facts may differ:
    Claude 3.5 Sonnet's June and October snapshots), else ``rules_id``."""
    from agentcost.tokens.families import canonical_model_id

    return recorded if canonical_model_id(recorded) == rules_id else rules_id


def _tool_choice(recorded: str | None) -> ToolChoice:
    """A request's recorded tool_choice as the rules take it (``auto`` when not recorded or unknown)."""
    return cast("ToolChoice", recorded if recorded in ("auto", "any", "tool", "none") else "auto")


def _tool_framing_note(maker: str) -> str:
    """How recorded tool calls and results are counted: the framing ``estimate`` gives a round's."""
    if maker == "openai":
        from agentcost.tokens.openai import OPENAI_TOOL_CALL_FRAMING, OPENAI_TOOL_RESULT_FRAMING

        return (
            f"tool calls counted as name + arguments + {OPENAI_TOOL_CALL_FRAMING}, tool results as a "
            f"tool message + name + {OPENAI_TOOL_RESULT_FRAMING} (our framing, not published; the same "
            "rules as estimate)"
        )
    if maker == "anthropic":
        from agentcost.tokens.anthropic import (
            ANTHROPIC_TOOL_RESULT_FRAMING,
            ANTHROPIC_TOOL_USE_FRAMING_AUTO,
            ANTHROPIC_TOOL_USE_FRAMING_FORCED,
            CLAUDE3_TOOL_USE_FRAMING_AUTO,
            CLAUDE3_TOOL_USE_FRAMING_FORCED,
        )

        return (
            f"tool_use blocks counted as name + input JSON + {ANTHROPIC_TOOL_USE_FRAMING_AUTO}, or + "
            f"{ANTHROPIC_TOOL_USE_FRAMING_FORCED} in a request whose tool_choice forces a tool (Claude 3: "
            f"{CLAUDE3_TOOL_USE_FRAMING_AUTO} / {CLAUDE3_TOOL_USE_FRAMING_FORCED}), tool_result blocks as "
            f"content + {ANTHROPIC_TOOL_RESULT_FRAMING} (fitted on recorded Claude 3.5 and 4.x requests; "
            "the forced figure assumed); the same rules as estimate"
        )
    return "tool calls and results counted with the model family's framing, the same rules as estimate"


def _tool_def(tool: Mapping[str, Any]) -> ToolDef:
    """A recorded tool definition (Anthropic, OpenAI chat or Responses format) as a ToolDef."""
    from agentcost.scenario.model import ToolDef

    inner = tool.get("function")
    fn: Mapping[str, Any] = inner if isinstance(inner, Mapping) else tool
    schema = fn.get("input_schema") or fn.get("parameters") or {}
    return ToolDef(
        str(fn.get("name", "")),
        str(fn.get("description") or ""),
        dict(schema) if isinstance(schema, Mapping) else {},
    )


ERROR_STEP = Decimal("0.000001")  # a relative error, not money: six decimals (0.0001%) are plenty


def _error(counted: int | None, reported: int | None) -> Decimal | None:
    """(counted - reported) / reported, rounded half-even to ERROR_STEP."""
    if counted is None or reported is None or reported == 0:
        return None
    return ((Decimal(counted) - Decimal(reported)) / Decimal(reported)).quantize(ERROR_STEP)


def _fit(sizes: Sequence[int], source: PricedFrom) -> GrowthFit | None:
    if not sizes:
        return None
    n = len(sizes)
    b = sizes[0]
    r = Decimal(sizes[-1] - b) / Decimal(n - 1) if n > 1 else Decimal(0)
    fitted = [Decimal(b) + (i * r) for i in range(n)]
    deviations = [abs(Decimal(y) - f) for y, f in zip(sizes, fitted, strict=True)]
    mean = Decimal(sum(sizes)) / Decimal(n)
    ss_tot = sum((Decimal(y) - mean) ** 2 for y in sizes)
    ss_res = sum(d**2 for d in deviations)
    r2 = (Decimal(1) - ss_res / ss_tot).quantize(Decimal("0.000001")) if n >= 3 and ss_tot else None
    return GrowthFit(source, b, r, max(deviations), r2)


def _zero(usage: ReportedUsage) -> bool:
    """Usage that is all zeros: no real request has no input, so nothing was reported (a replayed,
    mocked or failed run)."""
    return not (usage.input_tokens or usage.output_tokens or usage.cache_read_tokens)


# ---------------------------------------------------------------------------------------------
# replay
# ---------------------------------------------------------------------------------------------


def replay(
    trace: Trace,
    *,
    as_of: datetime,
    user_prices: UserPrices | None = None,
    model: str | None = None,
) -> ReplayReport:
    """The per-request ledger of a recorded run: our counts, the reported usage, the gap, dollars."""
    name = model or trace.model
    if not name:
        raise InputError(
            "the log does not name the model",
            file=trace.path,
            hint="pass --model, or --config with the run config for SWE-agent",
        )
    if not trace.calls:
        raise InputError("no API calls found in the log", file=trace.path)
    check_trace(trace)  # the text budget, before anything is tokenized
    prices = model_prices(name, trace.path, as_of=as_of, user_prices=user_prices, given=bool(model))
    counter = _Counter(name, prices)
    notes: list[str] = list(trace.notes)
    rated: dict[str, tuple[ModelPrices, _Counter]] = {name: (prices, counter)}  # by model

    rows: list[ReplayRequest] = []
    running = Decimal(0)
    zero = [c.index for c in trace.calls if c.reported is not None and _zero(c.reported)]
    per_call_reported = all(c.reported is not None and not _zero(c.reported) for c in trace.calls)
    tally = Tally()  # the billed items beside the tokens, for the notes
    for call in trace.calls:
        own = call.model if trace.per_call_models and not model and call.model else name
        if own not in rated:  # a session mixing models: each request at its own model's rates
            mine = model_prices(own, trace.path, as_of=as_of, user_prices=user_prices, given=False)
            rated[own] = (mine, _Counter(own, mine))
        call_prices, call_counter = rated[own]
        counted_in = (
            call_counter.request(call.messages, call.tools, call.tool_choice)
            if call.messages is not None
            else None
        )
        counted_out = (
            call_counter.output(call.output_text or "", call.output_calls, call.tool_choice)
            if call.output_text is not None or call.output_calls
            else None
        )
        rep = call.reported if call.reported is not None and not _zero(call.reported) else None
        if rep is not None:
            out = counted_out if call.output_snapshot and counted_out is not None else None
            snapshot = out is not None  # a streaming-start snapshot: our count of the response
            billed = rep.billed()
            if out is not None:
                billed = BilledRequest(replace(billed.usage, output_tokens=out), billed.steps)
            priced_from: PricedFrom = "reported"
        else:
            if counted_in is None or counted_out is None:
                raise InputError(
                    f"request {call.index} has neither reported usage nor recorded messages and output",
                    file=trace.path,
                    line=call.line,
                )
            billed = BilledRequest(RequestUsage(counted_in, counted_out))
            priced_from, snapshot = "counted", False
        if not billed.usage.web_search_previews and search_preview_calls(
            call_prices.provider, call.model or name
        ):
            billed = BilledRequest(replace(billed.usage, web_search_previews=1), billed.steps)
        cost = tally.add(billed, call_prices.price, rep.thinking_tokens if rep else 0).total_usd
        running += cost
        result = call_counter.text(call.result_text) if call.result_text is not None else None
        rows.append(
            ReplayRequest(
                index=call.index,
                line=call.line,
                tool=call.action,
                counted_input=counted_in,
                counted_output=counted_out,
                reported_input=rep.input_tokens if rep else None,
                reported_output=rep.output_tokens if rep else None,
                cache_read_tokens=rep.cache_read_tokens if rep else 0,
                cache_write_tokens=rep.cache_write_tokens + rep.cache_write_1h_tokens if rep else 0,
                input_error=_error(counted_in, rep.input_tokens if rep else None),
                output_error=_error(counted_out, rep.output_tokens if rep else None),
                gap=(rep.input_tokens - counted_in) if rep and counted_in is not None else None,
                result_tokens=result,
                priced_from=priced_from,
                cost_usd=cost,
                running_usd=running,
                model=own,
                output_snapshot=snapshot,
                agent=call.agent,
            )
        )

    counted_in_total = sum(r.counted_input or 0 for r in rows)
    counted_out_total = sum(r.counted_output or 0 for r in rows)
    cost_total = running
    if per_call_reported:
        rep_in: int | None = sum(r.reported_input or 0 for r in rows)
        rep_out: int | None = sum(r.reported_output or 0 for r in rows)
        cache_read: int | None = sum(r.cache_read_tokens for r in rows)
        cache_write: int | None = sum(r.cache_write_tokens for r in rows)
        priced = "reported per request"
    elif trace.reported_totals is not None and not trace.truncated and not _zero(trace.reported_totals):
        t = trace.reported_totals
        rep_in, rep_out = t.input_tokens, t.output_tokens
        cache_read = cache_write = None  # the run totals do not split cached input
        if trace.reported_kind == "local_count":
            priced = "counted"
            notes.append(
                "the run totals are the agent's own local count, not API usage: priced from our "
                "per-request counts, compared with the local count"
            )
        elif prices.has_tiers:
            priced = "counted"
            notes.append(
                "only run totals are reported and the model has long-context tiers, which apply per "
                "request: priced from our per-request counts"
            )
        else:
            # the totals' tokens priced at once, and each further request's own fees (a per-request
            # fee: what an empty request costs, $0 on a row with token prices only)
            fee = prices.price(RequestUsage(0, 0)).total_usd
            cost_total = prices.price(RequestUsage(t.input_tokens, t.output_tokens)).total_usd
            cost_total += max(len(rows) - 1, 0) * fee
            priced = "reported run totals"
            notes.append(
                "per-request usage is not recorded: each request is priced from our count, the total "
                "from the reported run totals"
            )
    else:
        rep_in = rep_out = cache_read = cache_write = None
        priced = "counted" if not any(r.priced_from == "reported" for r in rows) else "mixed"
        notes.append("the log reports no usage: priced from our counts")

    if zero or (trace.reported_totals is not None and _zero(trace.reported_totals)):
        notes.append(attribution.zero_note(len(zero), len(rows)))
    notes += tally.notes()
    if (flagged := snapshot_note(rows)) is not None:
        notes.append(flagged)
    gap = rep_in - counted_in_total if rep_in is not None else None
    gap_label, gap_parts, gap_notes = attribution.explain(
        [tuple(k for m in c.messages or () for k in m.uncounted) for c in trace.calls],
        [(r.gap, r.priced_from == "counted") for r in rows],
        prefix_recorded=trace.prefix_recorded,
        gap=gap,
    )
    notes += gap_notes

    totals = ReplayTotals(
        requests=len(rows),
        counted_input=counted_in_total,
        counted_output=counted_out_total,
        reported_input=rep_in,
        reported_output=rep_out,
        input_error=_error(counted_in_total, rep_in),
        output_error=_error(counted_out_total, rep_out),
        gap=gap,
        gap_label=gap_label,
        cache_read_tokens=cache_read,
        cache_write_tokens=cache_write,
        priced_from=priced,
        cost_usd=cost_total,
        reported_cost_usd=trace.reported_cost_usd,
        gap_parts=gap_parts,
    )

    tools: dict[str, list[int]] = {}
    for r in rows:
        if r.tool is not None and r.result_tokens is not None:
            tools.setdefault(r.tool, []).append(r.result_tokens)
    tool_rows = tuple(
        ToolResults(tool, len(sizes), sum(sizes))
        for tool, sizes in sorted(tools.items(), key=lambda kv: (-sum(kv[1]), kv[0]))
    )

    cached_share = Decimal(cache_read) / Decimal(rep_in) if cache_read is not None and rep_in else None
    main = [r for r in rows if r.agent is None]  # the growth of the session's own conversation
    if per_call_reported:
        fit = _fit([r.reported_input or 0 for r in main], "reported")
    elif all(r.counted_input is not None for r in main):
        fit = _fit([r.counted_input or 0 for r in main], "counted")
    else:
        fit = None

    return ReplayReport(
        path=trace.path,
        format=trace.format,
        model=name,
        prices=prices,
        counting=counter.method,
        approximate=counter.approximate,
        requests=tuple(rows),
        totals=totals,
        tools=tool_rows,
        cached_share=cached_share,
        fit=fit,
        truncated=trace.truncated,
        warnings=trace.warnings + tuple(w for p, _ in rated.values() for w in p.warnings),
        notes=tuple(dict.fromkeys(notes + [n for _, c in rated.values() for n in c.notes])),
        reported_kind="none" if rep_in is None else (trace.reported_kind or "api"),
        models=per_model(rows, {m: p.model_id for m, (p, _) in rated.items()}),
        subagents=per_agent(rows),
    )
