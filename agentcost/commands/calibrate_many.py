"""Calibrate one scenario from many recorded runs (``agentcost calibrate DIR_OR_GLOB...``).

The logs are found as ``replay DIR_OR_GLOB...`` finds them (:func:`agentcost.commands.replay_many.find_logs`)
and each is replayed on its own into a compact :class:`RunShape` (its cost, step count, first-request
size, prefix key, model); its per-round sizes go straight into per-field counters (value -> how many),
so memory grows with the number of distinct sizes, never with the traces.

The scenario has ONE rounds item: its ``repeat`` is the step count (tool rounds per run, the empirical
distribution of the runs' counts: a discrete count with ties, which a continuous family fits badly),
and its ``call_tokens`` and ``result`` are fitted to every round of every run, whatever tool it called:
the scenario format draws each rounds item's ``repeat`` independently, so one item per tool would lose
that long runs use every tool more, and widen or narrow the step count. Each round is then a draw from
the mixture of the tools' sizes weighted by their calls, which is what a run's rounds are when the tools
are used in no fixed order. The per-tool fits are stated in the header. ``final`` is fitted too.

A fit (:func:`fit`): ``fixed`` when every value is the same; ``empirical`` when there are fewer than
:data:`SMALL` values or no named family fits; else ``lognormal`` fitted by maximum likelihood (the mean
and standard deviation of the logarithms) when its Kolmogorov-Smirnov distance to the values (of the
draws as agentcost makes them: rounded half up) is at most the 5% critical value ``1.36 / sqrt(n)``.
An empirical distribution of more than :data:`MAX_VALUES` values keeps that many evenly spaced
quantiles. Sizes are the tokens the scenario states: the framing the counting rules add to a tool call,
a result and the first request is measured on a probe scenario and taken off, as ``calibrate`` of one
run does.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import field
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from agentcost.commands.calibrate import _estimate_text, _layout, _q, _targets
from agentcost.commands.replay_many import MAX_BYTES, MAX_FILES, Options, _bound_memo, find_logs
from agentcost.errors import InputError, one_line
from agentcost.infra.record import record
from agentcost.report.replay_many import Skipped

if TYPE_CHECKING:
    from agentcost.prices.user import UserPrices

SMALL = 30  # fewer values than this: empirical, whatever fits
MAX_VALUES = 1000  # values an empirical distribution keeps at most (evenly spaced quantiles beyond)
KS_C = 1.36  # the Kolmogorov-Smirnov 5% critical value is KS_C / sqrt(n)
_Z90 = 1.2815515655446004
_WRAP = 96  # characters of values per line of an empirical list


@record
class RunShape:
    """One run in a few numbers (its per-round sizes went to the counters)."""

    path: str
    model: str
    cost_usd: Decimal
    steps: int  # rounds (requests after the first)
    first_input: int  # the first request's input tokens
    task: int  # our count of the first request's last message
    prefix: str  # a digest of the system messages and tool definitions of the first request
    layout: Literal["chat", "tools"]
    cached: bool  # the log records cache reads or writes


@record(frozen=False)
class Corpus:
    """The runs read: their shapes and the counters of their sizes (raw tokens as recorded)."""

    runs: list[RunShape] = field(default_factory=list)
    growths: Counter[tuple[int, int]] = field(default_factory=Counter)  # (output, input growth)
    finals: Counter[int] = field(default_factory=Counter)
    tool_growths: dict[str, Counter[tuple[int, int]]] = field(default_factory=dict)
    tools: Counter[str] = field(default_factory=Counter)
    skipped: list[Skipped] = field(default_factory=list)


@record
class Fit:
    """A fitted distribution: its YAML ``text``, ``kind``, KS distance (None: not computed) and why."""

    text: str
    kind: str
    ks: float | None
    why: str


@record
class ManyCalibration:
    """The scenario of many runs and what the summary line says."""

    text: str
    runs: int
    skipped: int
    p50_usd: Decimal
    p90_usd: Decimal
    notes: tuple[str, ...]


def _prefix_key(trace_call_messages: object, tools: object) -> str:
    data = json.dumps([trace_call_messages, tools], sort_keys=True, default=str)
    return hashlib.sha256(data.encode("utf-8")).hexdigest()[:16]


def shape_path(path: Path, options: Options, corpus: Corpus) -> None:
    """Replay one log and add it to ``corpus`` (or count it as skipped)."""
    from contextlib import nullcontext

    from agentcost.infra.policy import using_policy
    from agentcost.replay import load_trace, replay
    from agentcost.replay.ledger import _Counter

    policy = nullcontext() if options.policy is None else using_policy(options.policy)
    try:
        with policy:
            trace = load_trace(path, format_in=options.format_in, model=options.model, config=options.config)
            report = replay(trace, as_of=options.as_of, user_prices=options.user_prices)
            target_in, target_out, _ = _targets(trace, report)
            first = trace.calls[0].messages or ()
            task = _Counter(report.model, report.prices).text(first[-1].text) if first else 0
    except InputError as err:
        corpus.skipped.append(Skipped(str(path), err.message, str(err)))
        return
    finally:
        _bound_memo()
    n = len(target_in)
    system = [(m.role, m.text) for m in (trace.calls[0].messages or ()) if m.role == "system"]
    for k in range(n - 1):
        tool = trace.calls[k].action or "tool"
        pair = (target_out[k], max(target_in[k + 1] - target_in[k], 0))
        corpus.growths[pair] += 1
        corpus.tool_growths.setdefault(tool, Counter())[pair] += 1
        corpus.tools[tool] += 1
    corpus.finals[target_out[-1]] += 1
    corpus.runs.append(
        RunShape(
            path=str(path),
            model=report.model,
            cost_usd=report.totals.cost_usd,
            steps=n - 1,
            first_input=target_in[0],
            task=min(task, target_in[0]),
            prefix=_prefix_key(system, list(trace.calls[0].tools or ())),
            layout=_layout(trace, "auto"),
            cached=any(
                c.reported is not None and bool(c.reported.cache_read_tokens or c.reported.cache_write_tokens)
                for c in trace.calls
            ),
        )
    )


# --- fitting ----------------------------------------------------------------------------------------


def _quantiles(counts: Counter[int]) -> list[int]:
    """Every value in order, or MAX_VALUES evenly spaced nearest-rank quantiles of them."""
    n = counts.total()
    ordered = sorted(counts.items())
    if n <= MAX_VALUES:
        return [v for v, c in ordered for _ in range(c)]
    ranks = [min(n, math.ceil((i + 0.5) * n / MAX_VALUES)) for i in range(MAX_VALUES)]
    out: list[int] = []
    seen, it = 0, iter(ordered)
    value, count = next(it)
    for rank in ranks:
        while seen + count < rank:
            seen += count
            value, count = next(it)
        out.append(value)
    return out


def _phi(x: float) -> float:
    return 0.5 * (1 + math.erf(x / math.sqrt(2)))


def ks_lognormal(counts: Counter[int], mu: float, sigma: float) -> float:
    """The KS distance between the values and lognormal draws rounded half up (P(draw <= v) is
    P(X < v + 0.5))."""
    n = counts.total()

    def cdf(v: float) -> float:
        return 0.0 if v + 0.5 <= 0 else _phi((math.log(v + 0.5) - mu) / sigma)

    worst, below = 0.0, 0
    for v in sorted(counts):
        worst = max(worst, abs(below / n - cdf(v - 1)))
        below += counts[v]
        worst = max(worst, abs(below / n - cdf(v)))
    return worst


def _num(x: int) -> str:
    return f"{x:,}"


def _empirical(values: list[int], indent: int) -> str:
    lines: list[str] = []
    row = ""
    for v in values:
        item = f"{v}, "
        if len(row) + len(item) > _WRAP:
            lines.append(row.rstrip())
            row = ""
        row += item
    lines.append(row.rstrip().rstrip(","))
    pad = "\n" + " " * indent
    return "{empirical: [" + pad.join(lines) + "]}"


def fit(counts: Counter[int], *, indent: int = 6, family: bool = True) -> Fit:
    """The distribution of ``counts`` (value -> how many) to write (see the module docstring)."""
    n = counts.total()
    if len(counts) == 1:
        (v,) = counts
        return Fit(f"{{fixed: {v}}}", "fixed", 0.0, f"every one of {n:,} values is {v:,}")
    values = _quantiles(counts)
    kept = "" if len(values) == n else f", {len(values):,} evenly spaced quantiles kept"
    empirical = Fit(_empirical(values, indent), "empirical", None, "")
    if not family:
        return Fit(empirical.text, "empirical", None, f"empirical ({n:,} values{kept})")
    if n < SMALL or min(counts) < 1:
        reason = f"fewer than {SMALL} values" if n < SMALL else "a value is 0 (no lognormal)"
        return Fit(empirical.text, "empirical", None, f"empirical ({n:,} values{kept}): {reason}")
    logs = [(math.log(v), c) for v, c in counts.items()]
    mu = sum(x * c for x, c in logs) / n
    sigma = math.sqrt(sum((x - mu) ** 2 * c for x, c in logs) / n)
    critical = KS_C / math.sqrt(n)
    if sigma <= 0:  # pragma: no cover - two distinct values have a positive spread
        return Fit(empirical.text, "empirical", None, f"empirical ({n:,} values{kept})")
    med, p90 = math.exp(mu), math.exp(mu + _Z90 * sigma)
    median_i, p90_i = max(1, round(med)), max(2, round(p90))
    if p90_i <= median_i:
        p90_i = median_i + 1
    d = ks_lognormal(counts, math.log(median_i), (math.log(p90_i) - math.log(median_i)) / _Z90)
    ln = f"lognormal median {_num(median_i)}, p90 {_num(p90_i)} (maximum likelihood)"
    if d <= critical:
        text = f"{{lognormal: {{median: {median_i}, p90: {p90_i}}}}}"
        return Fit(text, "lognormal", d, f"{ln}: KS {d:.3f} <= {critical:.3f} ({n:,} values)")
    why = f"empirical ({n:,} values{kept}): the {ln} is off by KS {d:.3f} > {critical:.3f}"
    return Fit(empirical.text, "empirical", d, why)


# --- the scenario -----------------------------------------------------------------------------------


@record
class _Framing:
    out: int  # output tokens a round adds beyond its call_tokens / reply
    grow: int  # input growth beyond call_tokens + result (reply + user)
    first: int  # first-request input beyond system + task
    final: int  # final output beyond final's tokens


def _probe(
    model: str, tool: str, layout: str, caching: str, as_of: datetime, prices: UserPrices | None
) -> _Framing:
    """The framing the counting rules add, read off a one-round scenario of known sizes."""
    if layout == "chat":
        item = "  - {reply: {tokens: 50}, user: {tokens: 500}}"
    else:
        item = f"  - {{tool: {_q(tool)}, call_tokens: 50, result: {{tokens: 500}}}}"
    text = "\n".join(
        [
            "version: 1",
            f"model: {_q(model)}",
            "system: {tokens: 1000}",
            "task: {tokens: 100}",
            f"caching: {caching}",
            "rounds:",
            item,
            "final: {tokens: 40}",
            "",
        ]
    )
    rows, _ = _estimate_text(text, Path("calibrate-probe.yaml"), as_of=as_of, user_prices=prices)
    (in0, out0, _), (in1, out1, _) = rows
    return _Framing(out=out0 - 50, grow=in1 - in0 - 550, first=in0 - 1100, final=out1 - 40)


def _median(values: Sequence[int]) -> int:
    ordered = sorted(values)
    return ordered[(len(ordered) - 1) // 2]


def _sizes(pairs: Counter[tuple[int, int]], f: _Framing, min_call: int) -> tuple[Counter[int], Counter[int]]:
    """The call_tokens / reply and result / user sizes of rounds recorded as (output, input growth)."""
    calls: Counter[int] = Counter()
    results: Counter[int] = Counter()
    for (out, grow), c in pairs.items():
        call = max(out - f.out, min_call)
        calls[call] += c
        results[max(grow - call - f.grow, 0)] += c
    return calls, results


def _percentile(values: Sequence[Decimal], q: int) -> Decimal:
    from agentcost.loop.simulate import nearest_rank

    ordered = sorted(values)
    return ordered[nearest_rank(range(len(ordered)), Decimal(q))]


def _mostly(counter: Counter[str], what: str, notes: list[str]) -> tuple[str, str]:
    """The most common value and a phrase saying how common it is (a note when there were several)."""
    ranked = sorted(counter.items(), key=lambda kv: (-kv[1], kv[0]))
    top, count = ranked[0]
    total = counter.total()
    if len(ranked) == 1:
        return top, f"all {total:,} runs"
    others = ", ".join(f"{k} ({v:,})" for k, v in ranked[1:4]) + (", ..." if len(ranked) > 4 else "")
    notes.append(f"mixed {what}s: the most common is taken ({count:,} of {total:,} runs); others: {others}")
    return top, f"{count:,} of {total:,} runs; others: {others}"


def calibrate_corpus(
    corpus: Corpus,
    sources: Sequence[str],
    *,
    as_of: datetime,
    user_prices: UserPrices | None = None,
    now: datetime | None = None,
) -> ManyCalibration:
    """The scenario fitted to ``corpus`` (see the module docstring)."""
    runs = corpus.runs
    notes: list[str] = []
    model, model_note = _mostly(Counter(r.model for r in runs), "model", notes)
    layout, _ = _mostly(Counter(r.layout for r in runs), "layout", [])
    cached = sum(r.cached for r in runs)
    caching = "conversation" if 2 * cached > len(runs) else "none"
    tool = sorted(corpus.tools.items(), key=lambda kv: (-kv[1], kv[0]))[0][0] if corpus.tools else "tool"
    f = _probe(model, tool, layout, caching, as_of, user_prices)
    min_call = 1 if layout == "tools" else 0
    prefixes = Counter(r.prefix for r in runs)
    top_prefix, count = prefixes.most_common(1)[0]
    shared = count > 1 or len(prefixes) == 1
    same = [r for r in runs if r.prefix == top_prefix] if shared else runs
    task = _median([r.task for r in runs])
    system = max(_median([r.first_input - r.task for r in same]) - f.first, 0)
    if len(prefixes) == 1:
        prefix_note = f"the same in all {len(runs):,} runs"
    elif shared:
        prefix_note = f"the most common one, {count:,} of {len(runs):,} runs; {len(prefixes) - 1:,} others"
        notes.append(f"the runs have {len(prefixes):,} different prefixes: {prefix_note}")
    else:
        prefix_note = f"no two of the {len(runs):,} runs share one: the median of all runs"
        notes.append(f"the runs have {len(prefixes):,} different prefixes: {prefix_note}")
    steps: Counter[int] = Counter(r.steps for r in runs)
    step_fit = fit(steps, indent=14, family=False)
    calls, results = _sizes(corpus.growths, f, min_call)
    call_fit, result_fit = fit(calls), fit(results)
    final_fit = fit(Counter({max(v - f.final, 0): c for v, c in corpus.finals.items()}))
    costs = [r.cost_usd for r in runs]
    p50, p90 = _percentile(costs, 50), _percentile(costs, 90)
    when = (now or datetime.now(tz=UTC)).strftime("%Y-%m-%dT%H:%M:%SZ")
    shown = ", ".join(sources[:3]) + (", ..." if len(sources) > 3 else "")
    skipped = f", {len(corpus.skipped):,} skipped" if corpus.skipped else ""
    call_key, result_key = ("reply", "user") if layout == "chat" else ("call_tokens", "result")
    header = [
        f"Calibrated by agentcost calibrate from {len(runs):,} runs ({shown}{skipped}) at {when}.",
        f"Replayed cost per run (nearest rank): p50 ${p50}, p90 ${p90}; "
        f"prices as of {as_of.date().isoformat()}.",
        "Check: agentcost estimate THIS_FILE --simulate 2000 (p50 and p90 should land near those).",
        f"Model: {model} ({model_note}).",
        f"Fixed prefix (system prompt and tool definitions): {prefix_note}, "
        f"{system:,} tokens; task: the median first message, {task:,} tokens.",
        f"Caching: {caching} ({cached:,} of {len(runs):,} runs record cache reads or writes).",
        "Retries: none (no log read records a failed call).",
        f"Step count (repeat, tool rounds per run): {step_fit.why}; a count is discrete, with ties.",
        "One rounds item: each round's sizes are drawn from every round of every run, whatever its tool "
        f"(the mixture of the tools' sizes); the tool named is the most common ({tool}).",
        f"{call_key}: {call_fit.why}." if calls else "No run has a tool round or chat turn.",
        f"{result_key}: {result_fit.why}." if calls else "",
        f"final: {final_fit.why}.",
        f"KS: the largest gap between the runs' CDF and the fitted one; accepted at <= {KS_C}/sqrt(n) (5%).",
    ]
    for name, pairs in sorted(corpus.tool_growths.items(), key=lambda kv: (-kv[1].total(), kv[0])):
        tc, tr = _sizes(pairs, f, min_call)
        header.append(
            f"Tool {name} ({pairs.total():,} calls): {call_key} {fit(tc).why}; {result_key} {fit(tr).why}."
        )
    for note in notes:
        header.append(f"Note: {note}.")
    lines = [f"# {one_line(h)}" for h in header if h]  # a tool's name shown exact, escaped
    lines += [
        "version: 1",
        f"model: {_q(model)}",
        f"system: {{tokens: {system}}}",
        f"task: {{tokens: {task}}}",
        f"caching: {caching}",
    ]
    if steps.total() and max(steps) > 0:
        lines.append("rounds:")
        if layout == "chat":
            lines.append(f"  - reply: {call_fit.text}")
        else:
            lines.append(f"  - tool: {_q(tool)}")
            lines.append(f"    call_tokens: {call_fit.text}")
        lines.append(f"    {result_key if layout == 'tools' else 'user'}: {result_fit.text}")
        lines.append(f"    repeat: {step_fit.text}")
    lines.append(f"final: {final_fit.text}")
    return ManyCalibration(
        text="\n".join(lines) + "\n",
        runs=len(runs),
        skipped=len(corpus.skipped),
        p50_usd=p50,
        p90_usd=p90,
        notes=tuple(notes),
    )


def calibrate_many(
    args: Sequence[str],
    options: Options,
    *,
    max_files: int = MAX_FILES,
    max_bytes: int = MAX_BYTES,
    progress: Callable[[int, int], None] | None = None,
    now: datetime | None = None,
) -> ManyCalibration:
    """Replay every log ``args`` name and fit one scenario to them. InputError when no run was read."""
    found = find_logs(args, max_files=max_files, max_bytes=max_bytes)
    corpus = Corpus()
    for arg, reason in found.missing:
        corpus.skipped.append(Skipped(arg, reason, f"{arg}: {reason}"))
    for done, path in enumerate(found.files, start=1):
        shape_path(path, options, corpus)
        if progress is not None:
            progress(done, len(found.files))
    if not corpus.runs:
        first = corpus.skipped[0].detail if corpus.skipped else None
        raise InputError(
            f"no run could be replayed: {len(corpus.skipped)} skipped, {found.ignored} ignored"
            + (f"; first: {first}" if first else ""),
            file=args[0] if len(args) == 1 else None,
            hint="a directory is searched for .traj, .json and .jsonl files",
        )
    return calibrate_corpus(corpus, args, as_of=options.as_of, user_prices=options.user_prices, now=now)
