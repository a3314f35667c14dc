"""Properties of random valid scenarios, end to end: YAML file -> ``load_scenario`` ->
``estimate_scenario`` (issue 8).

The generator (:func:`scenario_docs`) writes scenarios over six models of the three providers, with
every key of docs/scenario.md that changes the bill: caching modes (none, prefix, conversation,
Gemini explicit, the provider default), ``cache_ttl`` 5m / 1h / two TTLs, pacing and per-round
``seconds``, service tiers, 0-5 tool definitions in the four formats (some deferred), content as
token counts, short texts or JSON pages (which providers count differently), call sizes as
``input`` or ``call_tokens``, ``defaults``, thinking and ``thinking_retention``, parallel ``calls``,
chat turns, ``repeat``, ``server_tools`` (with pause_turn continuations past 10 uses on Anthropic),
retries, ``trim``, ``context_editing``, routing (a model per round, same or other provider), inline
subagents, ``limits.max_rounds`` and ``limits.max_budget_usd``.

Each test's docstring states exactly when its property is asserted. Runs are short by default;
``AGENTCOST_FUZZ_EXAMPLES=3000 python -m pytest tests/test_properties_scenarios.py`` runs that many
examples of every property instead (a long local fuzz).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from copy import deepcopy
from dataclasses import replace
from datetime import UTC, datetime
from decimal import Decimal
from functools import cache
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, assume, event, given, note, settings
from hypothesis import strategies as st

from agentcost.loop.accountant import Ledger
from agentcost.loop.estimate import Estimate, estimate_scenario
from agentcost.prices.lookup import resolve_model
from agentcost.prices.pricing import ModelPrices
from agentcost.render.jsonfmt import render_json
from agentcost.report.build import build_report
from agentcost.scenario.load import read_scenario as load_scenario
from agentcost.scenario.model import Scenario
from agentcost.tokens.counts import TokenCounts
from agentcost.tokens.request import CachePolicy
from tests.conftest import fuzz_examples

AS_OF = datetime(2026, 11, 30, tzinfo=UTC)

MODELS: dict[str, tuple[str, ...]] = {
    "anthropic": ("claude-sonnet-4-5", "claude-haiku-4-5"),
    "openai": ("gpt-5", "gpt-4o"),
    "google": ("gemini-2.5-pro", "gemini-2.5-flash"),
}
PROVIDER = {model: provider for provider, models in MODELS.items() for model in models}
TOOL_SEARCH = {"claude-sonnet-4-5", "claude-haiku-4-5"}  # MODELS with tool search (facts.yaml)
SERVER_TOOLS = {  # what each provider runs (facts.yaml server_tool_fees): OpenAI has no web_fetch
    "anthropic": ("web_search", "web_fetch", "code_execution"),
    "openai": ("web_search", "code_execution"),
    "google": ("web_search", "web_fetch", "code_execution"),
}
TIERS = {  # the service tiers each model is priced for on AS_OF
    "standard": set(PROVIDER),
    "batch": set(PROVIDER),
    "flex": {"gpt-5"},
    "priority": {"gpt-5", "gpt-4o"},
}
TOOL_NAMES = ("Read", "Bash", "Edit", "Grep", "web_search", "fetch_page", "list_issues")
WORDS = ("the", "order", "file", "total", "reject", "a", "test", "orders.py", "é", "400", "{", "}")


def _examples(default: int) -> int:
    """6-14 scenarios a property in the normal run (see ``fuzz_examples``)."""
    return fuzz_examples(default)


def _settings(default: int) -> settings:
    return settings(
        max_examples=_examples(default),
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )


# ---------------------------------------------------------------------------------------------
# The generator: a scenario as the plain data of a YAML file


def _text(min_words: int = 1, max_words: int = 30) -> st.SearchStrategy[str]:
    words = st.lists(st.sampled_from(WORDS), min_size=min_words, max_size=max_words).map(" ".join)
    return words.filter(lambda text: text != "400")  # a number as text is refused (scenario.md#numbers)


SMALL = st.integers(min_value=0, max_value=3_000)
SIZE = st.one_of(SMALL, SMALL, SMALL, st.integers(min_value=0, max_value=60_000))


def page(items: int) -> str:
    """A JSON tool result of ``items`` records: providers' counts of it differ by up to 22%."""
    return json.dumps([{"id": i, "name": f"item{i}", "ok": i % 3 == 0} for i in range(items)])


def content(sizes: st.SearchStrategy[int] = SIZE) -> st.SearchStrategy[Any]:
    """A content value in one of its forms: N, {tokens: N}, text, {text: ...}; a text is a few
    words or a JSON page of up to ~8,000 tokens."""
    return st.one_of(
        sizes,
        sizes.map(lambda n: {"tokens": n}),
        _text(),
        _text().map(lambda t: {"text": t}),
        st.integers(min_value=1, max_value=400).map(page),
    )


@st.composite
def tool_def(draw: st.DrawFn, name: str, deferrable: bool = True) -> dict[str, Any]:
    """One tool definition in one of the four formats, deferred or not (never when not
    ``deferrable``: a model without tool search refuses defer_loading)."""
    description = draw(_text(0, 40))
    props = {
        p: {"type": draw(st.sampled_from(["string", "integer"]))}
        for p in draw(st.lists(st.sampled_from(["path", "query", "n", "command"]), max_size=3, unique=True))
    }
    schema = {"type": "object", "properties": props}
    kind = draw(st.sampled_from(["anthropic", "openai-chat", "openai-responses", "mcp"]))
    tool: dict[str, Any]
    if kind == "anthropic":
        tool = {"name": name, "description": description, "input_schema": schema}
    elif kind == "openai-chat":
        tool = {
            "type": "function",
            "function": {"name": name, "description": description, "parameters": schema},
        }
    elif kind == "openai-responses":
        tool = {"type": "function", "name": name, "description": description, "parameters": schema}
    else:
        tool = {"name": name, "description": description, "inputSchema": schema}
    if deferrable and draw(st.integers(0, 3)) == 0:
        tool["defer_loading"] = True
    return tool


@st.composite
def server_tools(draw: st.DrawFn, offered: tuple[str, ...]) -> list[dict[str, Any]]:
    items = []
    for tool in draw(st.lists(st.sampled_from(offered), max_size=2)):
        item: dict[str, Any] = {"tool": tool}
        if draw(st.booleans()):
            item["uses"] = draw(st.integers(min_value=1, max_value=25))
        if draw(st.booleans()):
            item["result"] = draw(content(SMALL))
        items.append(item)
    return items


@st.composite
def tool_call(
    draw: st.DrawFn, names: tuple[str, ...], defaults: dict[str, Any], depth: int
) -> dict[str, Any]:
    """The keys of one call: tool, input or call_tokens (or the default), result or subagent."""
    call: dict[str, Any] = {"tool": draw(st.sampled_from(names))}
    size = draw(
        st.sampled_from(
            ["input", "call_tokens", "default"] if "call_tokens" in defaults else ["input", "call_tokens"]
        )
    )
    if size == "input":
        call["input"] = {"path": draw(_text(1, 6)), "n": draw(st.integers(0, 10_000))}
    elif size == "call_tokens":
        call["call_tokens"] = draw(st.integers(min_value=1, max_value=400))
    if depth == 0 and draw(st.integers(0, 19)) == 0:
        call["subagent"] = draw(scenario_docs(depth=1))
    elif "result" not in defaults or draw(st.booleans()):
        call["result"] = draw(content())
    return call


@st.composite
def scenario_docs(draw: st.DrawFn, depth: int = 0, tool_search: bool = False) -> dict[str, Any]:
    """A valid scenario (the YAML file's data); ``depth`` 1: an inline subagent (no subagents of its own);
    ``tool_search``: on models with tool search only (routes included)."""
    provider = "anthropic" if tool_search else draw(st.sampled_from(sorted(MODELS)))
    model = draw(st.sampled_from(MODELS[provider]))
    doc: dict[str, Any] = {} if depth else {"version": 1}
    doc["model"] = model
    if draw(st.integers(0, 3)) == 0:
        doc["provider"] = provider

    caching = draw(
        st.sampled_from(
            [None, "none", "prefix", "conversation"] + (["explicit"] if provider == "google" else [])
        )
    )
    if caching is not None:
        doc["caching"] = caching
    # routing: other models rounds may name (none with a Gemini explicit cache, which refuses routing)
    routes: list[str] = []
    if caching != "explicit" and draw(st.booleans()):
        routable = sorted(TOOL_SEARCH if tool_search else PROVIDER)
        routes = draw(st.lists(st.sampled_from(routable), min_size=1, max_size=2, unique=True))
    providers = {provider, *(PROVIDER[m] for m in routes)}
    ttl = draw(st.sampled_from([None, "5m", "1h", "two"]))
    if ttl == "two" and providers == {"anthropic"}:
        doc["cache_ttl"] = draw(
            st.sampled_from([{"prefix": "1h", "conversation": "5m"}, {"prefix": "1h", "conversation": "1h"}])
        )
    elif ttl in ("5m", "1h"):
        doc["cache_ttl"] = ttl
    offered = tuple(t for t in SERVER_TOOLS[provider] if all(t in SERVER_TOOLS[p] for p in providers))
    tiers = [t for t in TIERS if all(m in TIERS[t] for m in (model, *routes))]
    if draw(st.integers(0, 4)) == 0:
        doc["service_tier"] = draw(st.sampled_from(tiers))

    n_tools = draw(st.integers(min_value=0, max_value=5))
    names = tuple(
        draw(st.lists(st.sampled_from(TOOL_NAMES), min_size=n_tools, max_size=n_tools, unique=True))
    )
    if names:
        deferrable = all(m in TOOL_SEARCH for m in (model, *routes))
        doc["tools"] = [draw(tool_def(name, deferrable)) for name in names]
    call_names = names or TOOL_NAMES

    if draw(st.booleans()):
        doc["system"] = draw(content(st.one_of(SMALL, st.integers(min_value=0, max_value=10_000))))
    doc["task"] = draw(content())
    defaults: dict[str, Any] = {}
    for key, value in (
        ("call_tokens", st.integers(min_value=1, max_value=300)),
        ("result", content()),
        ("thinking", SMALL),
        ("text", content(SMALL)),
        ("seconds", st.sampled_from([0, 20, 299, 300, 301, 3_601])),
        ("server_tools", server_tools(offered)),
    ):
        if draw(st.integers(0, 4)) == 0:
            defaults[key] = draw(value)
    if defaults:
        doc["defaults"] = defaults

    chat_only = draw(st.integers(0, 9)) == 0
    choice = draw(st.sampled_from([None, "auto", "any", "tool", "none"]))
    if choice == "none":
        chat_only = True
    if choice is not None and (names or choice in ("auto", "none")):
        doc["tool_choice"] = choice
    rounds: list[dict[str, Any]] = []
    for _ in range(draw(st.integers(min_value=0, max_value=6))):
        item: dict[str, Any]
        if chat_only or draw(st.integers(0, 5)) == 0:
            item = {"reply": draw(content(SMALL)), "user": draw(content(SMALL))}
        elif draw(st.integers(0, 4)) == 0:
            item = {"calls": draw(st.lists(tool_call(call_names, defaults, depth), min_size=1, max_size=3))}
        else:
            item = draw(tool_call(call_names, defaults, depth))
        tool_round = "reply" not in item
        if tool_round and draw(st.integers(0, 3)) == 0:
            item["text"] = draw(content(SMALL))
        if tool_round and draw(st.integers(0, 3)) == 0:
            item["model"] = draw(st.sampled_from([model, *routes])) if routes else model
        if draw(st.integers(0, 3)) == 0:
            item["repeat"] = draw(st.one_of(st.integers(1, 4), st.integers(5, 15)))
        if draw(st.integers(0, 2)) == 0:
            item["thinking"] = draw(SIZE)
        if draw(st.integers(0, 3)) == 0:
            item["seconds"] = draw(st.sampled_from([0, 2.5, 30, 300, 301, 1_000, 3_600, 3_601]))
        if offered and draw(st.integers(0, 4)) == 0:
            item["server_tools"] = draw(server_tools(offered))
        rounds.append(item)
    if rounds:
        doc["rounds"] = rounds
    doc["final"] = draw(content())

    if draw(st.integers(0, 2)) == 0:
        doc["pacing"] = {"round_seconds": draw(st.sampled_from([0, 10, 120.5, 300, 301, 900, 3_600, 4_000]))}
    if draw(st.integers(0, 2)) == 0:
        doc["thinking_retention"] = draw(st.sampled_from(["auto", "keep", "last", "drop"]))
    if draw(st.integers(0, 2)) == 0:
        doc["final_thinking"] = draw(SIZE)
    if draw(st.integers(0, 3)) == 0:
        doc["server_tool_quota"] = draw(st.sampled_from(["spent", "available"]))
    limits: dict[str, Any] = {}
    if draw(st.integers(0, 3)) == 0:
        limits["max_rounds"] = draw(st.integers(min_value=1, max_value=8))
    if draw(st.integers(0, 3)) == 0:
        limits["max_budget_usd"] = draw(st.sampled_from([0.0001, 0.001, 0.004, 0.02, 0.1, 0.5]))
    if draw(st.integers(0, 4)) == 0:
        limits["budget_usd"] = draw(st.sampled_from([0.01, 0.25]))
    if limits:
        doc["limits"] = limits
    if draw(st.integers(0, 3)) == 0:
        retries: dict[str, Any] = (
            {"share": draw(st.sampled_from([0, 0.1, 0.25, 0.5, 1]))}
            if draw(st.booleans())
            else {"count": draw(st.integers(min_value=0, max_value=5))}
        )
        if draw(st.booleans()):
            retries["error"] = draw(content(SMALL))
        doc["retries"] = retries
    keep_last = False
    if draw(st.integers(0, 3)) == 0:
        trim: dict[str, Any] = {}
        if draw(st.booleans()):
            trim["max_tokens"] = draw(st.integers(min_value=1, max_value=3_000))
        if not trim or draw(st.booleans()):
            trim["keep_last"] = draw(st.integers(min_value=0, max_value=4))
            keep_last = True
        doc["trim"] = trim
    if not keep_last and draw(st.integers(0, 3)) == 0:
        editing: dict[str, Any] = {}
        for key, value in (
            ("trigger", st.integers(min_value=1, max_value=40_000)),
            ("keep", st.integers(min_value=0, max_value=4)),
            ("clear_at_least", st.integers(min_value=0, max_value=5_000)),
            ("placeholder", st.integers(min_value=0, max_value=50)),
            ("exclude_tools", st.lists(st.sampled_from(call_names), max_size=2, unique=True)),
        ):
            if draw(st.booleans()):
                editing[key] = draw(value)
        doc["context_editing"] = editing
    if draw(st.integers(0, 4)) == 0:
        doc["tool_search_stub"] = draw(st.integers(min_value=0, max_value=60))
    return doc


# ---------------------------------------------------------------------------------------------
# Loading and estimating


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("scenarios")


def write(workdir: Path, doc: dict[str, Any], name: str = "s.yaml") -> Path:
    path = workdir / name
    path.write_text(dump(doc), encoding="utf-8")
    return path


def run(scenario: Scenario, *, compare: bool = False) -> Estimate:
    return estimate_scenario(scenario, as_of=AS_OF, compare=compare)


def load_and_run(workdir: Path, doc: dict[str, Any], *, compare: bool = False) -> Estimate:
    return run(load_scenario(write(workdir, doc)), compare=compare)


def dump(doc: dict[str, Any]) -> str:
    """The scenario as YAML text (libyaml's emitter where PyYAML has it: ten times the pure-Python one's
    speed, the same document)."""
    dumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
    return yaml.dump(doc, Dumper=dumper, sort_keys=False, allow_unicode=True)


# ---------------------------------------------------------------------------------------------
# Invariants of one estimate

ZERO = Decimal(0)


def check_ledger(ledger: Ledger) -> None:
    """Every figure of a ledger is >= 0 and adds up exactly (Decimals, no rounding)."""
    rows, t = ledger.rows, ledger.totals
    assert [r.index for r in rows] == list(range(1, len(rows) + 1))
    running = ZERO
    for r in rows:
        u, c = r.usage, r.cost
        assert min(u.input_tokens, u.output_tokens, u.cache_read_tokens, u.cache_write_tokens) >= 0, r
        assert u.cache_write_1h_tokens >= 0, r
        assert u.cache_read_tokens + r.cache_write_total <= u.input_tokens, r
        assert min(c.input_usd, c.output_usd, c.fees_usd, c.total_usd) >= ZERO, r
        assert c.total_usd == c.input_usd + c.output_usd + c.fees_usd, r
        running += c.total_usd
        assert r.running_usd == running, r
    # start_seconds is the ledger's simulated pacing clock (seconds the scenario declares), never
    # measured time: requests are in the order they are sent
    assert all(a.start_seconds <= b.start_seconds for a, b in pairwise(rows))
    assert t.requests == len(rows)
    assert t.input_tokens == sum(r.usage.input_tokens for r in rows)
    assert t.cache_read_tokens == sum(r.usage.cache_read_tokens for r in rows)
    assert t.cache_write_tokens == sum(r.cache_write_total for r in rows)
    assert t.output_tokens == sum(r.usage.output_tokens for r in rows)
    assert t.input_usd == sum((r.cost.input_usd for r in rows), ZERO)
    assert t.output_usd == sum((r.cost.output_usd for r in rows), ZERO)
    assert t.fees_usd == sum((r.cost.fees_usd for r in rows), ZERO)
    assert t.failed_usd == sum((r.cost.total_usd for r in rows if r.failed), ZERO)
    assert t.failed_requests == sum(1 for r in rows if r.failed)
    assert t.cache_expiries == sum(1 for r in rows if r.cache_expired)
    assert t.max_input_tokens == max((r.usage.input_tokens for r in rows), default=0)
    assert min(t.storage_usd, t.cache_creation_usd, t.cost_usd) >= ZERO
    requests_usd = sum((r.cost.total_usd for r in rows), ZERO)
    assert t.cost_usd == requests_usd + t.storage_usd + t.cache_creation_usd
    assert (rows[-1].running_usd if rows else ZERO) == requests_usd
    # the rounds: each scenario round run has one (first) request, in order; the final answer last
    first = [r.round for r in rows if r.round is not None and not r.continuation]
    assert first == list(range(len(first)))
    assert ledger.rounds_run == len(first) <= ledger.rounds_planned
    finished = bool(rows) and rows[-1].kind == "final"
    assert finished == (not ledger.truncated)
    assert sum(1 for r in rows if r.kind == "final") == int(finished)
    if ledger.budget_stop is not None:
        assert ledger.budget_stop == len(rows) and ledger.truncated


def check_caching(est: Estimate) -> None:
    """No cache reads or writes without caching, no 1-hour writes without a 1-hour TTL, no expiry
    without pauses, and rows on routed models name one."""
    scenario, routes = est.scenario, dict(est.counts.routes)
    policies = {None: est.ledger.policy} | {name: r.policy for name, r in routes.items()}
    one_hour = "1h" in (scenario.cache_ttl, scenario.prefix_cache_ttl)
    pauses = bool(scenario.pacing.round_seconds) or any(r.seconds for r in scenario.rounds)
    for row in est.ledger.rows:
        assert row.model in policies, row
        if policies[row.model].mode == "none":
            assert row.usage.cache_read_tokens == row.cache_write_total == 0, row
        if not one_hour:
            assert row.usage.cache_write_1h_tokens == 0, row
        if not pauses:
            assert not row.cache_expired, row


@cache
def _prices(model: str, service_tier: str) -> ModelPrices:
    return resolve_model(model, as_of=AS_OF, service_tier=service_tier)


def long_context(est: Estimate) -> bool:
    """Whether a request of the run is priced at a long-context tier (over 200k on claude-sonnet-4-5
    and gemini-2.5-pro: every token of it at the higher rates)."""
    tier = est.scenario.service_tier
    return any(
        (est.prices if row.model is None else _prices(row.model, tier)).tier_label(row.usage.input_tokens)
        for row in est.ledger.rows
    )


def why_not_parallel(est: Estimate) -> str | None:
    """None when parallel calls cannot cost more than the same calls one per round (the report's
    "Parallel calls: saves ..."); else why they can (test_parallel_calls_can_cost_more):

    * retries: the failures are spread over more tool rounds once the batches are split, and a failed
      batch writes every call (and the response's thinking) again, a failed split round one call;
    * ``limits.max_budget_usd``: a batch's first response writes every call before the budget check,
      the split run's only the first;
    * a batch whose thinking is kept for one request (``thinking_retention`` last, the default of
      claude-sonnet-4-5 and claude-haiku-4-5): the request after the batch carries it, once per
      pause_turn continuation and at the next round's model's prices, where the split run's request
      after the batch's first call carries it, once and on the batch's model (found by the long
      fuzz: 371 thinking tokens before a round of 21 web searches, sent three times instead of once);
    * a request of the parallel run at a long-context tier: its tokens all cost the tier's rates, where
      the split run sent (and cached) part of them earlier in a request under the threshold.

    Otherwise prices are linear, and each parallel request carries no more than the split request
    after the same call.
    """
    scenario = est.scenario
    if scenario.retries.count or scenario.retries.share:
        return "retries"
    if scenario.limits.max_budget_usd is not None:
        return "limits.max_budget_usd"
    for _, counts, _ in _models(est):
        ran = [r for r in counts.rounds if not r.inserted]  # one per scenario round
        if any(len(r.calls) > 1 and t.transient for r, t in zip(scenario.rounds, ran, strict=True)):
            return "a batch's thinking kept for one request"
    if long_context(est):
        return "a long-context tier"
    return None


def check_estimate(est: Estimate) -> None:
    """The ledger's invariants, the baselines' costs >= 0 (and equal to the run's where they are the
    same run), parallel calls no dearer than sequential ones (:func:`why_not_parallel`), and the same
    for every subagent."""
    check_ledger(est.ledger)
    assert est.total_usd == est.ledger.totals.cost_usd + sum(
        (s.total_usd for s in est.subagents.values()), ZERO
    )
    check_caching(est)
    # the baselines; where the run is the same run (with the same max_budget_usd stop), they cost
    # the same (test_baselines_keep_max_budget_usd)
    for option in est.ttl_comparison:
        assert option.cost_usd >= ZERO and option.cache_expiries >= 0
    policy = est.ledger.policy
    if est.ttl_comparison and policy.mode != "none":
        (own,) = (o for o in est.ttl_comparison if o.label == policy.ttl_label)
        assert (own.cost_usd, own.cache_expiries) == (
            est.ledger.totals.cost_usd,
            est.ledger.totals.cache_expiries,
        )
    if est.context_editing is not None:
        assert min(est.context_editing.cost_usd, est.context_editing.baseline_usd) >= ZERO
        assert est.context_editing.cost_usd == est.ledger.totals.cost_usd
        if est.context_editing.edits == 0:
            assert est.context_editing.baseline_usd == est.context_editing.cost_usd
    if est.tool_search is not None:
        assert min(est.tool_search.cost_usd, est.tool_search.baseline_usd) >= ZERO
    if est.dynamics is not None:
        assert est.dynamics.cost_usd == est.ledger.totals.cost_usd
        assert est.dynamics.sequential_usd is None or est.dynamics.sequential_usd >= ZERO
        assert all(cost >= ZERO for _, cost in est.dynamics.baselines)
        saving = est.dynamics.parallel_saving_usd
        if saving is not None and why_not_parallel(est) is None:
            assert saving >= ZERO
    assert set(est.subagents) <= {
        (i, j)
        for i, r in enumerate(est.scenario.rounds[: est.ledger.rounds_run])
        for j in range(len(r.calls))
    }
    for sub in est.subagents.values():
        check_estimate(sub)


@_settings(14)
@given(doc=scenario_docs())
def test_every_random_scenario_estimates_and_adds_up(workdir: Path, doc: dict[str, Any]) -> None:
    """Always (no condition): a valid scenario estimates without an exception, with its baselines
    (parallel calls, routing, context editing, tool search, TTL options) and its JSON report; every
    cost is >= 0; every request reads plus writes at most its input tokens; the totals are the sums of
    the rows, tokens and dollars, exactly; the running column ends at the requests' total (the total
    without a Gemini explicit cache's creation and storage); no cache traffic without caching, no
    1-hour writes without a 1-hour TTL, no expiry without pauses; subagents likewise.

    Under conditions (:func:`check_estimate`): the TTL option of the scenario's own TTL costs what
    the run costs, and so does the context-editing baseline of a run that cleared nothing; parallel
    calls cost no more than the same calls one per round unless :func:`why_not_parallel` gives a
    reason."""
    note(dump(doc))
    est = load_and_run(workdir, doc, compare=True)
    check_estimate(est)
    render_json(build_report(est))


def same_counts(a: TokenCounts, b: TokenCounts) -> bool:
    """Equal counts, routes included (a route's pricer is a new function each time: not compared)."""
    routes = [[(name, r.counts, r.policy) for name, r in c.routes] for c in (a, b)]
    return replace(a, routes=()) == replace(b, routes=()) and routes[0] == routes[1]


@_settings(8)
@given(doc=scenario_docs())
def test_the_same_scenario_twice_gives_the_same_estimate(workdir: Path, doc: dict[str, Any]) -> None:
    """Always: loading and estimating the same file twice gives equal scenarios, ledgers (every
    request, every Decimal), baselines and subagents, and the same JSON report, character for
    character."""
    path = write(workdir, doc)
    note(path.read_text(encoding="utf-8"))
    a, b = load_scenario(path), load_scenario(path)
    assert a == b
    first, second = run(a, compare=True), run(b, compare=True)
    assert first.ledger == second.ledger and same_counts(first.counts, second.counts)
    assert first.ttl_comparison == second.ttl_comparison and first.dynamics == second.dynamics
    assert (first.context_editing, first.tool_search) == (second.context_editing, second.tool_search)
    assert {k: s.ledger for k, s in first.subagents.items()} == {
        k: s.ledger for k, s in second.subagents.items()
    }
    assert render_json(build_report(first)) == render_json(build_report(second))


# ---------------------------------------------------------------------------------------------
# Sizes: where the token counts of a scenario are written

SIZE_KEYS = frozenset(
    {"system", "task", "final", "final_thinking", "result", "call_tokens", "thinking", "text"}
    | {"reply", "user", "error"}
)
NOT_SIZES = frozenset({"input", "subagent", "tools", "limits", "trim", "context_editing", "pacing"})
Slot = tuple[str | int, ...]


def size_slots(value: Any, path: Slot = ()) -> Iterator[Slot]:
    """The key paths of every token size written in the scenario (an integer content value, the N
    of {tokens: N}, call_tokens, thinking, final_thinking), the subagents' excluded."""
    items: Any = (
        value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    )
    for key, v in items:
        if key in NOT_SIZES:
            continue
        if key in SIZE_KEYS and type(v) is int:
            yield (*path, key)
        elif key in SIZE_KEYS and isinstance(v, dict) and set(v) == {"tokens"}:
            yield (*path, key, "tokens")
        else:
            yield from size_slots(v, (*path, key))


def get(doc: Any, slot: Slot) -> Any:
    for key in slot:
        doc = doc[key]
    return doc


def with_value(doc: dict[str, Any], slot: Slot, value: Any) -> dict[str, Any]:
    copy = deepcopy(doc)
    get(copy, slot[:-1])[slot[-1]] = value
    return copy


def set_path(slot: Slot) -> str:
    """The --set PATH of a slot: rounds[2].calls[0].result."""
    return "".join(f"[{k}]" if isinstance(k, int) else f".{k}" for k in slot).lstrip(".")


# ---------------------------------------------------------------------------------------------
# Monotone in every size, where that is true


def _models(est: Estimate) -> list[tuple[str, TokenCounts, CachePolicy]]:
    """The scenario's model and every model a round is routed to, with their counts and cache policy."""
    own = (est.prices.model_id, est.counts, est.ledger.policy)
    return [own, *((name, r.counts, r.policy) for name, r in est.counts.routes)]


def why_not_monotone(est: Estimate, bump: int) -> str | None:
    """None when growing a size by ``bump`` tokens cannot lower the estimate; else why it can.

    * ``context_editing``: a larger input passes ``trigger`` sooner (or clears enough for
      ``clear_at_least``), and clearing removes tokens from every later request;
    * ``limits.max_budget_usd``: a dearer request passes the budget sooner and the run stops earlier;
    * caching on, with the prefix (tools + system) under the model's minimum cacheable length: a
      larger size can bring a breakpoint over the minimum, and what was paid as input becomes cheap
      cache reads (a 1.25x write once, then 0.1x reads);
    * OpenAI's automatic caching hits in 128-token steps past 1,024: one more token can move every
      later hit up a whole step (asserted only for bumps that are a multiple of 128, and without
      ``trim.max_tokens``, whose cap can turn such a bump into any other number);
    * ``trim.keep_last`` with caching: results are replaced only when that removes tokens, so a
      result growing past the 10-token placeholder is replaced a request sooner, and the cache is
      written again from a later point (test_a_larger_result_can_cost_less_with_keep_last_and_caching).
      Without caching, clearing more only ever removes tokens that grew.
    """
    scenario = est.scenario
    if scenario.context_editing is not None:
        return "context_editing"
    if scenario.limits.max_budget_usd is not None:
        return "limits.max_budget_usd"
    for name, counts, policy in _models(est):
        if policy.mode == "none":
            continue
        if scenario.trim is not None and scenario.trim.keep_last is not None:
            return f"{name}: trim.keep_last with caching"
        if counts.prefix < policy.min_tokens:
            return f"{name}: caching with a prefix of {counts.prefix} < {policy.min_tokens} tokens"
        if policy.style == "automatic" and policy.increment > 1:
            if bump % policy.increment:
                return f"{name}: cache hits in steps of {policy.increment}, bump {bump}"
            if scenario.trim is not None and scenario.trim.max_tokens is not None:
                return f"{name}: cache hits in steps of {policy.increment}, with trim.max_tokens"
    return None


BUMP = st.one_of(
    st.integers(min_value=1, max_value=3_000), st.integers(min_value=1, max_value=30).map(lambda k: 128 * k)
)


@st.composite
def monotone_cases(draw: st.DrawFn) -> tuple[dict[str, Any], Slot, int]:
    """A scenario, one of its sizes and a bump; half of them made to meet the conditions of
    :func:`why_not_monotone` (no context editing, no max_budget_usd; caching none or a prefix over
    every model's minimum) so that the property is asserted often."""
    doc = draw(scenario_docs(tool_search=True))
    if draw(st.booleans()):
        doc.pop("context_editing", None)
        doc.get("limits", {}).pop("max_budget_usd", None)
        if draw(st.booleans()):
            doc["caching"] = "none"
        else:
            doc["system"] = {"tokens": draw(st.integers(min_value=4_100, max_value=12_000))}
    slots = list(size_slots(doc))
    assume(slots)
    return doc, draw(st.sampled_from(slots)), draw(BUMP)


@_settings(9)
@given(case=monotone_cases())
def test_a_larger_size_never_lowers_the_cost(workdir: Path, case: tuple[dict[str, Any], Slot, int]) -> None:
    """Growing any one token size written in the scenario (a result, call_tokens, thinking, a text
    given as tokens, a reply or user message, a server tool's result, the retry error, the task, the
    system prompt, the final answer, final_thinking, or a default of these) never lowers the total,
    subagents included, when :func:`why_not_monotone` finds no reason it could: no context editing, no
    ``max_budget_usd``, and for every model that runs requests either no caching or a tools + system
    prefix already at its minimum cacheable length and no ``trim.keep_last`` (OpenAI: bumps in whole
    128-token steps, no ``trim.max_tokens``). Pacing, expiry, two TTLs, routing, retries,
    ``trim.max_tokens``, deferred tools, server tools, thinking retention, long-context tiers, parallel
    calls, chat turns, subagents and ``max_rounds`` are all allowed. The tests below show each
    excluded case lowering the cost."""
    doc, slot, bump = case
    note(dump(doc))
    before = load_and_run(workdir, doc)
    reason = why_not_monotone(before, bump)
    note(f"size {set_path(slot)} + {bump}; not asserted because: {reason}")
    after = load_and_run(workdir, with_value(doc, slot, get(doc, slot) + bump))
    check_estimate(after)
    cached = sorted({policy.style for _, _, policy in _models(before) if policy.mode != "none"})
    event(f"asserted, caching {'/'.join(cached) or 'off'}" if reason is None else "not asserted")
    if reason is None:
        assert after.total_usd >= before.total_usd


@_settings(8)
@given(doc=scenario_docs(), data=st.data())
def test_setting_a_size_to_its_own_value_changes_nothing(
    workdir: Path, doc: dict[str, Any], data: st.DataObject
) -> None:
    """Always: ``--set PATH=VALUE`` of any token size written in the scenario, to the value already
    written, gives the same scenario (but for the overrides it records) and the same estimate."""
    slots = list(size_slots(doc))
    assume(slots)
    slot = data.draw(st.sampled_from(slots))
    override = f"{set_path(slot)}={get(doc, slot)}"
    note(dump(doc))
    note(override)
    path = write(workdir, doc)
    plain, changed = load_scenario(path), load_scenario(path, overrides=[override])
    assert changed.overrides == (override,)
    assert replace(changed, overrides=()) == plain
    a, b = run(plain), run(changed)
    assert (a.ledger, a.ttl_comparison, a.total_usd) == (b.ledger, b.ttl_comparison, b.total_usd)
    assert same_counts(a.counts, b.counts)


# ---------------------------------------------------------------------------------------------
# Another round never lowers the cost, where that is true


def tool_names(doc: dict[str, Any]) -> tuple[str, ...]:
    return tuple(t["function"]["name"] if "function" in t else t["name"] for t in doc.get("tools", []))


@st.composite
def insertion_cases(draw: st.DrawFn) -> tuple[dict[str, Any], int, dict[str, Any]]:
    """A scenario, a position among its round items and a new round item (a chat turn, or a tool
    round on the scenario's model); half of them made to meet the conditions of :func:`why_not_more`."""
    doc = draw(scenario_docs(tool_search=True))
    if draw(st.booleans()):
        doc.pop("context_editing", None)
        doc.pop("retries", None)
        limits = doc.get("limits", {})
        limits.pop("max_budget_usd", None)
        limits.pop("max_rounds", None)
        if draw(st.booleans()):
            doc["caching"] = "none"
        else:
            doc["system"] = {"tokens": draw(st.integers(min_value=4_100, max_value=12_000))}
    at = draw(st.integers(min_value=0, max_value=len(doc.get("rounds", []))))
    new: dict[str, Any]
    if doc.get("tool_choice") == "none" or draw(st.integers(0, 3)) == 0:
        new = {"reply": draw(content(SMALL)), "user": draw(content(SMALL))}
    else:
        new = draw(tool_call(tool_names(doc) or TOOL_NAMES, doc.get("defaults", {}), depth=1))
    if draw(st.booleans()):
        new["thinking"] = draw(SMALL)
    if draw(st.booleans()):
        new["repeat"] = draw(st.integers(min_value=1, max_value=3))
    return doc, at, new


def why_not_more(est: Estimate, items: int, at: int, new: dict[str, Any]) -> str | None:
    """None when inserting round item ``new`` before item ``at`` of ``items`` cannot lower the cost;
    else why it can.

    * ``context_editing`` and ``limits.max_budget_usd``, as for sizes (:func:`why_not_monotone`);
    * ``limits.max_rounds``: before the last item the new round can push a dearer round out of the
      run; after it, once the run reaches the limit, the new round's response takes the place of the
      final answer, and it may be the smaller (found by the long fuzz);
    * retries with a new tool round: the failed calls are spread over one more tool round, and move;
    * a new round that calls a deferred tool: the tool-search request that loads it moves before the
      new round, where the context may be much smaller, from before a later round that calls it
      (found by the long fuzz);
    * inserted before the last item, with caching: every later prompt grows by the new round, which can
      bring a breakpoint over the minimum cacheable length or move OpenAI's cache hits up a 128-token
      step (the conditions of :func:`why_not_monotone` for a bump of one token). Inserted after the
      last item, caching never matters: the requests before the final answer are the same, and the
      final answer only moves one request later.
    """
    scenario = est.scenario
    if scenario.context_editing is not None:
        return "context_editing"
    if scenario.limits.max_budget_usd is not None:
        return "limits.max_budget_usd"
    if scenario.limits.max_rounds is not None:
        return "limits.max_rounds"
    if "reply" not in new and (scenario.retries.count or scenario.retries.share):
        return "retries"
    deferred = {t.name for t in scenario.tools if t.defer_loading}
    if {call["tool"] for call in new.get("calls", [new]) if "tool" in call} & deferred:
        return "the new round calls a deferred tool"
    return why_not_monotone(est, 1) if at < items else None


@_settings(9)
@given(case=insertion_cases())
def test_another_round_never_lowers_the_cost(
    workdir: Path, case: tuple[dict[str, Any], int, dict[str, Any]]
) -> None:
    """Inserting a round item (a tool round on the scenario's model, or a chat turn; repeated or not)
    anywhere in the rounds never lowers the total, subagents included, when :func:`why_not_more`
    finds no reason it could: no context editing, no ``max_budget_usd``, no ``max_rounds``; no retries
    if the new item is a tool round, and no deferred tool among its calls; and before the last item,
    the size conditions (no caching, or
    every prefix over its minimum, no OpenAI caching, no ``trim.keep_last``). After the last item,
    caching is never a reason. The tests below show the excluded cases."""
    doc, at, new = case
    rounds = doc.get("rounds", [])
    more = {**doc, "rounds": [*rounds[:at], new, *rounds[at:]]}
    note(dump(more))
    before = load_and_run(workdir, doc)
    reason = why_not_more(before, len(rounds), at, new)
    note(f"inserted at {at} of {len(rounds)}; not asserted because: {reason}")
    event("asserted" if reason is None else "not asserted")
    after = load_and_run(workdir, more)
    check_estimate(after)
    if reason is None:
        assert after.total_usd >= before.total_usd


# ---------------------------------------------------------------------------------------------
# Deferring a tool no round calls never raises the cost, where that is true


def _deferred(tool: dict[str, Any]) -> bool:
    return bool(tool.get("defer_loading") or tool.get("function", {}).get("defer_loading"))


@st.composite
def deferral_cases(draw: st.DrawFn) -> tuple[dict[str, Any], int]:
    """A scenario with a deferred tool and a tool no round calls, and the index of the latter; half
    of them made to meet the conditions of :func:`why_not_deferred` (as for :func:`monotone_cases`)."""
    doc = draw(scenario_docs(tool_search=True))
    if draw(st.booleans()):
        doc.pop("context_editing", None)
        doc.get("limits", {}).pop("max_budget_usd", None)
        if draw(st.booleans()):
            doc["caching"] = "none"
        else:
            doc["system"] = {"tokens": draw(st.integers(min_value=4_100, max_value=12_000))}
    tools = doc.setdefault("tools", [])
    names = set(tool_names(doc))
    called = {c.get("tool") for r in doc.get("rounds", []) for c in r.get("calls", [r])}
    named = called | set(doc.get("context_editing", {}).get("exclude_tools", []))
    if doc.get("tool_choice") in ("any", "tool") and not tools:
        doc.pop("tool_choice")
    for name in ("lookup_order", "refund_order"):  # one deferred, one to defer: neither is called
        if name not in names:
            tools.append(draw(tool_def(name)))
    if not any(_deferred(t) for t in tools):
        draw(st.sampled_from(tools))["defer_loading"] = True
    unused = [
        i for i, t in enumerate(tools) if not _deferred(t) and tool_names({"tools": [t]})[0] not in called
    ]
    if not unused:
        tools.append(draw(tool_def("refund_invoice")))
        tools[-1].pop("defer_loading", None)
        unused = [len(tools) - 1]
    if not names:  # tools were named freely; now that tools exist, define them
        for name in sorted(n for n in named if n and n not in tool_names(doc)):
            tools.append(draw(tool_def(name)))
    return doc, draw(st.sampled_from(unused))


def why_not_deferred(before: Estimate, after: Estimate) -> str | None:
    """None when deferring one more tool that no round calls, with a tool already deferred (so the
    tool-search tool is there either way), cannot raise the cost; else why it can:

    * the definition is smaller than ``tool_search_stub`` on some model (a stub of up to 60 tokens
      replaces a tool of a few words): the prefix grows;
    * ``context_editing``: a smaller input passes ``trigger`` later; ``limits.max_budget_usd``: a
      cheaper run stops later;
    * caching on, with the prefix under the model's minimum cacheable length once the tool is
      deferred (docs/accounting.md's exception: it stops being cached), or OpenAI caching (a prefix a
      few tokens shorter can move every cache hit down a 128-token step).
    """
    scenario = before.scenario
    if scenario.context_editing is not None:
        return "context_editing"
    if scenario.limits.max_budget_usd is not None:
        return "limits.max_budget_usd"
    for (name, old, _), (_, new, policy) in zip(_models(before), _models(after), strict=True):
        if new.tools > old.tools:
            return f"{name}: the definition is smaller than the stub"
        if policy.mode != "none" and new.prefix < policy.min_tokens:
            return f"{name}: caching with a prefix of {new.prefix} < {policy.min_tokens} tokens"
        if policy.mode != "none" and policy.style == "automatic" and policy.increment > 1:
            return f"{name}: cache hits in steps of {policy.increment}"
    return None


@_settings(6)
@given(case=deferral_cases())
def test_deferring_a_tool_no_round_calls_never_raises_the_cost(
    workdir: Path, case: tuple[dict[str, Any], int]
) -> None:
    """With a tool already deferred, deferring another that no round calls never raises the total
    when :func:`why_not_deferred` finds no reason it could: its definition is at least the stub on
    every model, no context editing, no ``max_budget_usd``, and for every model with caching the
    prefix stays at its minimum cacheable length and the caching is not OpenAI's. No tool-search
    request is added (the tool is never loaded). The tests below show each excluded case."""
    doc, index = case
    more = deepcopy(doc)
    more["tools"][index]["defer_loading"] = True
    note(dump(more))
    note(f"deferred: tools[{index}]")
    before, after = load_and_run(workdir, doc), load_and_run(workdir, more)
    check_estimate(after)
    assert sum(r.search for r in after.counts.rounds) == sum(r.search for r in before.counts.rounds)
    reason = why_not_deferred(before, after)
    note(f"not asserted because: {reason}")
    event("asserted" if reason is None else "not asserted")
    if reason is None:
        assert after.total_usd <= before.total_usd


# ---------------------------------------------------------------------------------------------
# Where "larger never costs less" is false: one example of each excluded case


def _chat(reply: int, user: int) -> dict[str, Any]:
    return {"reply": {"tokens": reply}, "user": {"tokens": user}}


def _cheaper(workdir: Path, before: dict[str, Any], after: dict[str, Any]) -> None:
    a, b = load_and_run(workdir, before), load_and_run(workdir, after)
    check_estimate(a)
    check_estimate(b)
    assert b.total_usd < a.total_usd


def test_a_larger_task_can_cost_less_once_the_prompt_reaches_the_cacheable_minimum(workdir: Path) -> None:
    """claude-sonnet-4-5, conversation caching (the default), minimum 1,024 tokens: a 1,000-token task
    (1,003 with framing) caches nothing, both requests pay full input; 1,100 tokens are written once at
    1.25x and read by the next request at 0.1x. $0.0094755 -> $0.0071724."""
    doc: dict[str, Any] = {
        "version": 1,
        "model": "claude-sonnet-4-5",
        "task": {"tokens": 1000},
        "final": 50,
        "rounds": [{"tool": "Read", "call_tokens": 20, "result": 100}],
    }
    _cheaper(workdir, doc, with_value(doc, ("task", "tokens"), 1100))


def test_one_more_token_can_cost_less_with_openai_cache_steps(workdir: Path) -> None:
    """gpt-5 caches in 128-token steps past 1,024: a first prompt of 1,151 tokens (task 1,147 + 4)
    is read back as 1,024; with one token more, 1,152 are. $0.0027155 -> $0.002574."""
    doc: dict[str, Any] = {
        "version": 1,
        "model": "gpt-5",
        "task": {"tokens": 1147},
        "final": 50,
        "rounds": [{"tool": "Read", "call_tokens": 20, "result": 100}],
    }
    _cheaper(workdir, doc, with_value(doc, ("task", "tokens"), 1148))


def test_a_larger_result_can_cost_less_with_context_editing(workdir: Path) -> None:
    """No caching, context editing at 3,000 tokens, keep 0: with a 100-token second result the final
    request stays under the trigger and carries the 2,500-token first result; with 500 it passes
    the trigger and both results are cleared."""
    doc: dict[str, Any] = {
        "version": 1,
        "model": "claude-sonnet-4-5",
        "caching": "none",
        "task": {"tokens": 100},
        "final": 50,
        "rounds": [
            {"tool": "Read", "call_tokens": 20, "result": 2500},
            {"tool": "Read", "call_tokens": 20, "result": 100},
        ],
        "context_editing": {"trigger": 3000, "keep": 0},
    }
    _cheaper(workdir, doc, with_value(doc, ("rounds", 1, "result"), 500))


def test_a_larger_result_can_cost_less_with_max_budget_usd(workdir: Path) -> None:
    """gpt-5, no caching, max_budget_usd 0.01: small results stay under the budget until the last
    request (which stops nothing), so the 20,000-token final answer is written; a 10,000-token first
    result passes the budget at request 2 and the run stops before the final answer."""
    doc: dict[str, Any] = {
        "version": 1,
        "model": "gpt-5",
        "caching": "none",
        "task": {"tokens": 100},
        "final": 20000,
        "rounds": [{"tool": "Read", "call_tokens": 20, "result": 10}] * 2,
        "limits": {"max_budget_usd": 0.01},
    }
    _cheaper(workdir, doc, with_value(doc, ("rounds", 0, "result"), 10000))


def test_a_larger_result_can_cost_less_with_keep_last_and_caching(workdir: Path) -> None:
    """claude-sonnet-4-5, a 2,000-token system prompt (over the minimum), ``trim: {keep_last: 1}``:
    a first result of 10 tokens is not worth replacing by the 10-token placeholder, so the last
    request clears it with the 5,000-token one and writes the cache again from the first; with 11
    tokens the first is replaced a request earlier, on its own, and the last request reads the cache
    up to the big result (109 tokens read instead of written). $0.0339687 -> $0.03371025."""
    doc: dict[str, Any] = {
        "version": 1,
        "model": "claude-sonnet-4-5",
        "system": {"tokens": 2000},
        "task": {"tokens": 100},
        "final": 10,
        "rounds": [
            {"tool": "Read", "call_tokens": 20, "result": 10},
            {"tool": "Read", "call_tokens": 20, "result": 5000},
            {"tool": "Read", "call_tokens": 20, "result": 10},
        ],
        "trim": {"keep_last": 1},
    }
    _cheaper(workdir, doc, with_value(doc, ("rounds", 0, "result"), 11))


def test_an_inserted_round_can_cost_less_with_caching(workdir: Path) -> None:
    """Caching on, a round inserted before others grows every later prompt: on claude-sonnet-4-5 it
    brings prompts of 1,007 to 1,025 tokens over the 1,024 minimum (nothing was cached, now all is);
    on gpt-5 an 8-token chat turn moves every later cache hit up a 128-token step."""
    doc: dict[str, Any] = {
        "version": 1,
        "model": "claude-sonnet-4-5",
        "task": {"tokens": 1000},
        "final": 10,
        "rounds": [{**_chat(0, 0), "repeat": 3}],
    }
    _cheaper(workdir, doc, {**doc, "rounds": [_chat(0, 100), *doc["rounds"]]})
    doc = {
        "version": 1,
        "model": "gpt-5",
        "task": {"tokens": 1147},
        "final": 10,
        "rounds": [{**_chat(60, 60), "repeat": 6}],
    }
    _cheaper(workdir, doc, {**doc, "rounds": [_chat(0, 0), *doc["rounds"]]})


def test_an_inserted_round_can_cost_less_with_max_rounds_or_retries(workdir: Path) -> None:
    """No caching. ``max_rounds: 2``: a cheap round inserted before a dear one (20,000 thinking tokens)
    pushes it out of the run; ``max_rounds: 1`` and no rounds: a chat turn appended twice is the
    run's only response, in place of the final answer, and a shorter one (found by the long fuzz). ``retries: {count: 1}``: over two tool rounds the failure retries the dear round (its
    thinking written twice); over three it moves to the new, cheap last round."""
    dear = {"tool": "Read", "call_tokens": 20, "result": 10, "thinking": 20000}
    cheap = {"tool": "Read", "call_tokens": 1, "result": 0}
    doc: dict[str, Any] = {
        "version": 1,
        "model": "gpt-5",
        "caching": "none",
        "task": {"tokens": 100},
        "final": 10,
        "rounds": [{"tool": "Read", "call_tokens": 20, "result": 10}, dear],
    }
    _cheaper(
        workdir,
        {**doc, "limits": {"max_rounds": 2}},
        {**doc, "rounds": [doc["rounds"][0], cheap, dear], "limits": {"max_rounds": 2}},
    )
    _cheaper(
        workdir,
        {**doc, "rounds": [], "limits": {"max_rounds": 1}},
        {**doc, "rounds": [{"reply": 0, "user": 0, "repeat": 2}], "limits": {"max_rounds": 1}},
    )
    _cheaper(
        workdir,
        {**doc, "retries": {"count": 1}},
        {**doc, "rounds": [*doc["rounds"], cheap], "retries": {"count": 1}},
    )


def test_an_inserted_round_can_cost_less_by_loading_a_deferred_tool_sooner(workdir: Path) -> None:
    """No caching, Bash deferred: a round calling it after a 50,000-token Read result needs a
    tool-search request that carries that result; a Bash round inserted first loads Bash while the
    context is small, and one request fewer carries the result. $0.1901625 -> $0.12860125 (found
    by the long fuzz, with trim.keep_last)."""
    tools: list[dict[str, Any]] = [
        {"name": "Read", "description": "Read a file.", "input_schema": {"type": "object"}},
        {
            "name": "Bash",
            "description": "Run a command.",
            "input_schema": {"type": "object"},
            "defer_loading": True,
        },
    ]
    bash = {"tool": "Bash", "call_tokens": 20, "result": 10}
    doc: dict[str, Any] = {
        "version": 1,
        "model": "gpt-5.4",  # gpt-5 has no tool search
        "caching": "none",
        "tools": tools,
        "task": {"tokens": 100},
        "rounds": [{"tool": "Read", "call_tokens": 20, "result": 50000}, bash],
        "final": 10,
    }
    _cheaper(workdir, doc, {**doc, "rounds": [bash, *doc["rounds"]]})


def _parallel_dearer(workdir: Path, doc: dict[str, Any]) -> None:
    est = load_and_run(workdir, doc, compare=True)
    check_estimate(est)
    assert est.dynamics is not None and est.dynamics.parallel_saving_usd is not None
    assert est.dynamics.parallel_saving_usd < 0


def test_parallel_calls_can_cost_more(workdir: Path) -> None:
    """Each case excluded by :func:`why_not_parallel`, on calls in one response. Retries (share 0.5):
    the one failure retries the batch, 20,000 thinking tokens and both calls written again; split, it
    falls on the second call, which has no thinking. max_budget_usd: the batch's response writes both
    5,000-token calls before the run stops, the split run one. Thinking kept for one request: the 371
    thinking tokens of a claude-sonnet-4-5 batch go with the next request, which makes 21 web
    searches and is sent three times (two pause_turn continuations), where split they go once with
    the request after the first call; and 20,000 thinking tokens of a batch routed to
    claude-haiku-4-5 are read by the next request on claude-sonnet-4-5, split by one on Haiku. A
    long-context tier (claude-sonnet-4-5, conversation caching): the batch's two 101,000-token
    results make a 202,299-token request, all of it written at the >200k rates; split, the first
    result is written in a request under 200k."""
    call: dict[str, Any] = {"tool": "Read", "call_tokens": 20, "result": 100}
    head: dict[str, Any] = {
        "version": 1,
        "model": "gpt-5",
        "caching": "none",
        "task": {"tokens": 100},
        "final": 10,
    }
    _parallel_dearer(
        workdir, {**head, "rounds": [{"calls": [call] * 2, "thinking": 20000}], "retries": {"share": 0.5}}
    )
    big = {**call, "call_tokens": 5000}
    _parallel_dearer(workdir, {**head, "rounds": [{"calls": [big] * 2}], "limits": {"max_budget_usd": 0.01}})
    claude = {**head, "model": "claude-sonnet-4-5", "caching": "conversation"}
    read = {**call, "result": 334}
    searches = {**read, "text": {"tokens": 364}, "server_tools": [{"tool": "web_search", "uses": 21}]}
    batch = {"calls": [read] * 3, "text": {"tokens": 364}, "thinking": 371}
    _parallel_dearer(workdir, {**claude, "task": {"tokens": 300}, "rounds": [batch, searches]})
    routed = {"calls": [call] * 2, "thinking": 20000, "model": "claude-haiku-4-5"}
    _parallel_dearer(workdir, {**claude, "rounds": [routed, call]})
    page = {**call, "result": 101000}
    _parallel_dearer(workdir, {**claude, "rounds": [{"calls": [page] * 2}]})


def _deferring_dearer(workdir: Path, doc: dict[str, Any]) -> None:
    """Deferring ``tools[2]`` (called by no round) makes ``doc`` dearer."""
    deferred = deepcopy(doc)
    deferred["tools"][2]["defer_loading"] = True
    _cheaper(workdir, deferred, doc)


def test_deferring_an_unused_tool_can_cost_more(workdir: Path) -> None:
    """Each case excluded by :func:`why_not_deferred`, deferring ``ping`` with ``lookup`` already
    deferred, on gpt-5.4 unless said. A ``tool_search_stub`` of 60 tokens in place of a bare tool's
    definition (claude-sonnet-4-5: OpenAI keeps a deferred function's name and description, whatever
    the stub size). OpenAI caching (gpt-5.4): deferring a one-parameter function sheds its parameter,
    the prefix shrinks by 9 tokens (179 to 170), and the second request's cache hit falls a step, from
    1,280 to 1,152 tokens.
    A prefix under the minimum (claude-sonnet-4-5, conversation caching): deferring a 68-word tool
    brings the second request's prompt under 1,024 tokens, so it is no longer cached.
    With that function, ``max_budget_usd`` $0.0188: the third request ($0.018840 in all) passes it and
    the run stops before a 20,000-token final answer; 9 tokens fewer per request ($0.0187725) and it
    passes nothing. Context editing at 6,374 tokens: the last request (6,378) clears both 3,000-token
    results; deferred (6,369), none."""
    tools: list[dict[str, Any]] = [
        {"name": "Read", "description": "Read a file.", "input_schema": {"type": "object"}},
        {
            "name": "lookup",
            "description": "Find an order.",
            "input_schema": {"type": "object"},
            "defer_loading": True,
        },
        {"name": "ping", "description": "", "input_schema": {"type": "object"}},
    ]
    read = {"tool": "Read", "call_tokens": 20, "result": 100}
    doc: dict[str, Any] = {
        "version": 1,
        "model": "gpt-5.4",  # gpt-5 has no tool search
        "caching": "none",
        "tools": tools,
        "task": {"tokens": 100},
        "rounds": [read],
        "final": 10,
    }
    _deferring_dearer(workdir, {**doc, "model": "claude-sonnet-4-5", "tool_search_stub": 60})
    tools = deepcopy(tools)
    tools[2]["description"] = "Check that the service answers."
    one_parameter = deepcopy(tools)
    one_parameter[2]["input_schema"] = {"type": "object", "properties": {"n": {"type": "integer"}}}
    cached = {**doc, "caching": "conversation", "system": {"tokens": 1000}, "tools": one_parameter}
    _deferring_dearer(workdir, {**cached, "rounds": [{**read, "result": 94}] * 4})
    claude = {**doc, "model": "claude-sonnet-4-5", "caching": "conversation", "rounds": [read] * 3}
    claude["tools"] = deepcopy(tools)
    claude["tools"][2]["description"] = "Check " * 68  # 65+ (ctok) / 61+ (ratio) cross 1,024
    _deferring_dearer(workdir, claude)
    two_pages = {**doc, "tools": one_parameter, "rounds": [{**read, "result": 3000}] * 2}
    three_pages = {**doc, "tools": one_parameter, "rounds": [{**read, "result": 2000}] * 3, "final": 20000}
    _deferring_dearer(workdir, {**three_pages, "limits": {"max_budget_usd": 0.0188}})
    _deferring_dearer(workdir, {**two_pages, "context_editing": {"trigger": 6374, "keep": 0}})


# ---------------------------------------------------------------------------------------------
# Bugs the properties found (regression tests)


@pytest.mark.usefixtures("no_ctok")
@pytest.mark.parametrize("caching", ["none", "conversation"])
def test_context_editing_clears_a_routed_model_s_own_result_sizes(workdir: Path, caching: str) -> None:
    """Found while writing these properties (the random search rarely meets it: it needs routing to
    another provider after context editing cleared large texts): claude-sonnet-4-5 counts a JSON
    result 6,590 tokens (o200k x 1.22), gpt-4o 5,401. Context editing cleared four such results and
    took 4 x 6,590 (the scenario model's bodies) off the gpt-4o request, whose input became -4,639 and
    failed pricing ("input_tokens must be a whole number >= 0"). Each model now loses the cleared
    bodies as it counts them, and keeps the placeholders."""
    page = json.dumps([{"id": i, "name": f"item{i}", "ok": True} for i in range(300)])
    doc: dict[str, Any] = {
        "version": 1,
        "model": "claude-sonnet-4-5",
        "caching": caching,
        "task": "Go.",
        "rounds": [
            {"tool": "Read", "call_tokens": 1, "result": page, "repeat": 4},
            {"tool": "Read", "call_tokens": 1, "result": 1, "model": "gpt-4o"},
        ],
        "final": 10,
        "context_editing": {"trigger": 100, "keep": 0, "placeholder": 5},
    }
    est = load_and_run(workdir, doc)
    check_estimate(est)
    gpt = dict(est.counts.routes)["gpt-4o"].counts
    assert [r.call_results for r in gpt.rounds[:4]] == [(("Read", 5401),)] * 4
    assert [r.call_results for r in est.counts.rounds[:4]] == [(("Read", 6590),)] * 4
    routed = est.ledger.rows[4]
    assert routed.model == "gpt-4o"
    history = sum(r.appended for r in gpt.rounds[:4]) - 4 * (5401 - 5)
    assert routed.usage.input_tokens == gpt.prefix + gpt.task + gpt.per_request + history
    assert routed.usage.cache_read_tokens == 0  # the first request on gpt-4o


def test_baselines_keep_max_budget_usd(workdir: Path) -> None:
    """Found by these property tests: a run stopped by ``max_budget_usd`` after request 2 costs
    $0.0264924, yet its own option in the TTL comparison and its context-editing baseline priced all
    four rounds and the final answer ($0.10208805, a "saving" though nothing was cleared): the
    baselines re-ran the loop without the budget stop. They now stop where the run stops."""
    doc: dict[str, Any] = {
        "version": 1,
        "model": "claude-sonnet-4-5",
        "system": {"tokens": 3000},
        "task": {"tokens": 100},
        "rounds": [{"tool": "Read", "call_tokens": 20, "result": 3000, "repeat": 4}],
        "final": 2000,
        "limits": {"max_budget_usd": 0.02},
        "context_editing": {"trigger": 50_000},
    }
    est = load_and_run(workdir, doc)
    assert est.ledger.budget_stop == 2 and est.context_editing is not None
    assert est.context_editing.edits == 0
    (own,) = (o for o in est.ttl_comparison if o.label == "5m")
    assert (own.cost_usd, est.context_editing.baseline_usd) == (est.ledger.totals.cost_usd,) * 2


def test_a_server_tool_is_not_a_call_of_the_deferred_client_tool_of_that_name(workdir: Path) -> None:
    """Found by a random search of deferring unused tools: a client tool named
    ``web_search`` (deferred) and a round that calls Read while the provider runs its own web search.
    ``RoundTokens.tools`` names both Read and the server tool, and deferral took it for a call of the
    client tool: a tool-search request loaded a definition no round uses. Deferral now reads the
    rounds' client calls."""
    doc: dict[str, Any] = {
        "version": 1,
        "model": "gpt-5.4",  # gpt-5 has no tool search
        "caching": "none",
        "tools": [
            {"name": "Read", "description": "Read a file.", "input_schema": {"type": "object"}},
            {
                "name": "web_search",
                "description": "Our search.",
                "input_schema": {"type": "object"},
                "defer_loading": True,
            },
        ],
        "task": {"tokens": 100},
        "rounds": [
            {"tool": "Read", "call_tokens": 20, "result": 300, "server_tools": [{"tool": "web_search"}]},
            {"reply": 30, "user": 10, "server_tools": [{"tool": "web_search"}]},
        ],
        "final": 50,
        "retries": {"count": 1},
    }
    est = load_and_run(workdir, doc)
    check_estimate(est)
    assert [r.tools for r in est.ledger.rows] == [("Read",), ("Read", "web_search"), ("web_search",), ()]
    assert [r.failed for r in est.ledger.rows] == [True, False, False, False]
    assert est.tool_search is not None
    assert (est.tool_search.searches, est.tool_search.loaded) == (0, ())
