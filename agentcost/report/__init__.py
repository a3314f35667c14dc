"""Estimate -> Report: every figure a renderer shows is derived here, once. Renderers do no arithmetic.

One report, many renderers (the Infracost model): ``table.render_table``, ``jsonfmt.render_json``.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from agentcost.estimate import Estimate

REPORT_VERSION = 1


@dataclass(frozen=True)
class RequestLine:
    index: int
    kind: str  # "tool_use" | "final"
    tools: tuple[str, ...]
    input_tokens: int
    cache_read_tokens: int
    cache_write_tokens: int
    output_tokens: int
    cost_usd: Decimal
    running_usd: Decimal

    @property
    def label(self) -> str:
        return "final answer" if self.kind == "final" else ", ".join(self.tools)


@dataclass(frozen=True)
class Totals:
    requests: int
    input_tokens: int
    cache_read_tokens: int
    cache_write_tokens: int
    output_tokens: int
    input_usd: Decimal
    output_usd: Decimal
    cost_usd: Decimal
    cached_share: Decimal | None  # cache reads / all input tokens; None when there is no input


@dataclass(frozen=True)
class BudgetLine:
    limit_usd: Decimal
    source: str
    over: bool
    headroom_usd: Decimal  # limit - total; negative when over


@dataclass(frozen=True)
class Report:
    version: int
    scenario_path: str
    scenario_name: str | None
    model_line: int | None  # the scenario's model: line (None when --model chose the model)
    budget_line: int | None  # the scenario's limits.budget_usd line (None when --budget set it)
    model: str
    model_id: str
    model_name: str
    provider: str
    price_source: str
    price_version: str
    as_of: str  # ISO 8601, UTC
    pricing_urls: tuple[str, ...]
    rates: dict[str, Decimal | None]  # per MTok: input, output, cache_read, cache_write, cache_write_1h
    caching_mode: str
    caching_is_default: bool
    cache_ttl: str
    cache_min_tokens: int
    encoding: str
    approximate: bool
    count_method: str
    count_notes: tuple[str, ...]
    requests: tuple[RequestLine, ...]
    totals: Totals
    budget: BudgetLine | None
    truncated: bool
    rounds_planned: int
    rounds_run: int
    context_window: int | None
    max_input_tokens: int
    warnings: tuple[str, ...]

    @property
    def over_budget(self) -> bool:
        return self.budget is not None and self.budget.over


def build_report(est: Estimate) -> Report:
    ledger, prices, counts = est.ledger, est.prices, est.counts
    t = ledger.totals
    requests = tuple(
        RequestLine(
            index=row.index,
            kind=row.kind,
            tools=row.tools,
            input_tokens=row.usage.input_tokens,
            cache_read_tokens=row.usage.cache_read_tokens,
            cache_write_tokens=row.cache_write_total,
            output_tokens=row.usage.output_tokens,
            cost_usd=row.cost.total_usd,
            running_usd=row.running_usd,
        )
        for row in ledger.rows
    )
    totals = Totals(
        requests=t.requests,
        input_tokens=t.input_tokens,
        cache_read_tokens=t.cache_read_tokens,
        cache_write_tokens=t.cache_write_tokens,
        output_tokens=t.output_tokens,
        input_usd=t.input_usd,
        output_usd=t.output_usd,
        cost_usd=t.cost_usd,
        cached_share=Decimal(t.cache_read_tokens) / Decimal(t.input_tokens) if t.input_tokens else None,
    )
    budget = None
    if est.budget is not None:
        budget = BudgetLine(
            limit_usd=est.budget.limit_usd,
            source=est.budget.source,
            over=est.over_budget,
            headroom_usd=est.budget.limit_usd - t.cost_usd,
        )
    warnings: list[str] = []
    if ledger.truncated:
        warnings.append(
            f"run truncated by limits.max_rounds: {ledger.rounds_run} of {ledger.rounds_planned} rounds,"
            " no final answer"
        )
    if est.scenario.cache_ttl == "1h" and prices.provider != "anthropic":
        warnings.append(
            f"cache_ttl: 1h has no effect on {prices.provider}: only Anthropic sells 1-hour cache writes"
        )
    window = prices.context_window
    if window is not None and t.max_input_tokens > window:
        warnings.append(
            f"largest request ({t.max_input_tokens:,} input tokens) exceeds the context window of"
            f" {prices.model_id} ({window:,})"
        )
    return Report(
        version=REPORT_VERSION,
        scenario_path=str(est.scenario.path),
        scenario_name=est.scenario.name,
        model_line=est.scenario.model_line if est.prices.model_ref == est.scenario.model else None,
        budget_line=(
            est.scenario.limits.budget_line
            if est.budget is not None and est.budget.source == "limits.budget_usd"
            else None
        ),
        model=prices.model_ref,
        model_id=prices.model_id,
        model_name=prices.name,
        provider=prices.provider,
        price_source=prices.source.name,
        price_version=prices.source.version,
        as_of=prices.source.as_of.isoformat(),
        pricing_urls=prices.source.urls,
        rates={
            "input": prices.input_mtok,
            "output": prices.output_mtok,
            "cache_read": prices.cache_read_mtok,
            "cache_write": prices.cache_write_mtok,
            "cache_write_1h": prices.cache_write_1h_mtok,
        },
        caching_mode=ledger.policy.mode,
        caching_is_default=est.caching_is_default,
        cache_ttl=ledger.policy.ttl,
        cache_min_tokens=ledger.policy.min_tokens,
        encoding=counts.encoding,
        approximate=counts.approximate,
        count_method=counts.method,
        count_notes=counts.notes,
        requests=requests,
        totals=totals,
        budget=budget,
        truncated=ledger.truncated,
        rounds_planned=ledger.rounds_planned,
        rounds_run=ledger.rounds_run,
        context_window=window,
        max_input_tokens=t.max_input_tokens,
        warnings=tuple(warnings),
    )
