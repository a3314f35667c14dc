"""``agentcost replay DIR_OR_GLOB...``: replay many recorded runs and summarise them as distributions.

The arguments are expanded into log files (:func:`find_logs`): a file is taken as it is; a directory
is walked recursively, its files (sorted by name) before its subdirectories (sorted), hidden entries
(a name starting with ``.``) and symbolic links to directories skipped, and only files ending in
``.traj``, ``.json`` or ``.jsonl`` taken (others are counted as ignored); an argument that does not
exist and holds ``*``, ``?`` or ``[`` is a glob (``**`` recurses), its matches sorted. A file met
twice is read once. A Claude Code subagent transcript (``<session>/subagents/agent-*.jsonl``) that
a directory or a glob finds beside its ``<session>.jsonl`` is not a run of its own: the session's
replay folds it in. The walk stops at ``max_files`` logs or ``max_bytes`` bytes of logs in all (the
report says so).

Each log is replayed on its own (:func:`replay_path`; with ``jobs`` > 1 in worker processes from a
fork server, :func:`_context`) into a compact :class:`RunRow` of a few numbers; the rows stream into
:class:`Summary`, which keeps those rows and per-tool counters of result sizes, never a trace (and
the token memo, which keeps every text it counted, is emptied past :data:`MEMO_CHARS`). Money
crosses processes as exact decimal strings. Rows come back in the order of the files whatever
``jobs`` is, so the report does not depend on it. Percentiles are nearest-rank, as ``--simulate``'s
(:func:`agentcost.loop.simulate.nearest_rank`): the p-th percentile is the ``ceil(p/100 * N)``-th
smallest value, a value some run had.
"""

from __future__ import annotations

import glob
import os
from collections import Counter, deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import field
from datetime import datetime
from decimal import ROUND_HALF_EVEN, ROUND_HALF_UP, Decimal
from pathlib import Path
from typing import TYPE_CHECKING

from agentcost.errors import InputError
from agentcost.infra.record import record
from agentcost.report.replay_many import SUFFIXES, ReplayManyReport, RunRow, Skipped, SkipReason, ToolSizes

if TYPE_CHECKING:
    from multiprocessing.context import BaseContext

    from agentcost.infra.policy import InputPolicy
    from agentcost.loop.simulate import Stat
    from agentcost.prices.user import UserPrices
    from agentcost.replay.trace import ReplayReport
    from agentcost.report.replay_caps import CapCheck, Caps, CapsOutcome

MAX_FILES = 10_000  # logs read at most (--max-files)
MAX_BYTES = 10_000_000_000  # bytes of logs read at most, in all (--max-total-bytes)
CHUNK = 8  # logs per task sent to a worker process
MEMO_CHARS = 8_000_000  # characters of counted text the token memo may hold between two runs
MEMO_TEXTS = 100_000  # distinct texts it may hold
NAMED_SKIPS = 5  # skipped files named in the report; the rest are counted
SHARE_STEP = Decimal("0.000001")  # a run's cached share, rounded half-even
_MEAN_USD = Decimal("1E-10")  # means rounded half up, as --simulate's
_MEAN_COUNT = Decimal("0.01")


# --- finding the logs ----------------------------------------------------------------------------


@record(frozen=False)
class Found:
    """What the arguments expand to: the logs in order, the arguments that gave none, the ignored."""

    files: list[Path] = field(default_factory=list)
    missing: list[tuple[str, str]] = field(default_factory=list)  # (argument, reason)
    ignored: int = 0  # files of a walked directory that are not logs by their name
    limit: str | None = None  # "--max-files N" or "--max-total-bytes N" when the walk stopped there


def _walk(root: Path) -> Iterator[Path]:
    """Files under ``root``: a directory's files, then its subdirectories', each in sorted order; hidden
    entries and linked directories skipped."""
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        for name in sorted(filenames):
            if not name.startswith("."):
                yield Path(dirpath) / name


def find_logs(args: Sequence[str], *, max_files: int = MAX_FILES, max_bytes: int = MAX_BYTES) -> Found:
    """The log files ``args`` name (files, directories, globs), within ``max_files`` and ``max_bytes``."""
    from agentcost.replay.claude_code import session_of

    found = Found()
    seen: set[str] = set()
    total = 0

    def take(path: Path, named: bool) -> bool:
        nonlocal total
        if not named and path.suffix not in SUFFIXES:
            found.ignored += 1
            return True
        if not path.is_file():
            if named:
                found.missing.append((str(path), "not a regular file"))
            return True
        key = os.path.realpath(path)
        if key in seen:
            return True
        if len(found.files) >= max_files:
            found.limit = f"--max-files {max_files}"
            return False
        size = path.stat().st_size
        if total + size > max_bytes:
            found.limit = f"--max-total-bytes {max_bytes}"
            return False
        seen.add(key)
        total += size
        found.files.append(path)
        return True

    for arg in args:
        path = Path(arg)
        if path.exists():
            matches = [path]
        elif any(c in arg for c in "*?["):
            matches = [Path(m) for m in sorted(glob.glob(arg, recursive=True))]
            if not matches:
                found.missing.append((arg, "no file matches the pattern"))
        else:
            found.missing.append((arg, "no such file or directory"))
            continue
        for match in matches:
            if match.is_dir():
                going = all(take(p, named=False) for p in _walk(match) if session_of(p) is None)
            elif not path.exists() and session_of(match) is not None:
                continue  # a glob's subagent transcript: replayed within its session
            else:
                going = take(match, named=path.exists() or match.suffix in SUFFIXES)
            if not going:
                return found
    return found


# --- one run --------------------------------------------------------------------------------------


@record
class Options:
    """What every run is replayed with (picklable: sent to the worker processes)."""

    as_of: datetime
    user_prices: UserPrices | None = None
    format_in: str | None = None
    model: str | None = None
    config: Path | None = None
    tools: Path | None = None
    system: Path | None = None
    policy: InputPolicy | None = None
    caps: Caps | None = None  # --caps: each run held against them (agentcost.commands.replay_caps)


Result = tuple[RunRow, tuple[tuple[str, tuple[int, ...]], ...]] | Skipped
"""A run's row and its result sizes per tool (merged into the summary, then dropped), or why not."""


def replay_path(path: Path, options: Options) -> Result:
    """Replay one log into its compact row; an :class:`InputError` becomes a :class:`Skipped`."""
    from contextlib import nullcontext

    from agentcost.infra.policy import using_policy
    from agentcost.replay import load_trace, replay
    from agentcost.report.fmt import exact

    policy = nullcontext() if options.policy is None else using_policy(options.policy)
    try:
        with policy:
            trace = load_trace(
                path,
                format_in=options.format_in,
                model=options.model,
                config=options.config,
                tools=options.tools,
                system=options.system,
                subagents=True,
            )
            report = replay(trace, as_of=options.as_of, user_prices=options.user_prices)
    except InputError as err:
        return Skipped(str(path), err.message, str(err))
    finally:
        _bound_memo()
    t = report.totals
    share = None if report.cached_share is None else report.cached_share.quantize(SHARE_STEP, ROUND_HALF_EVEN)
    row = RunRow(
        path=str(path),
        format=report.format,
        model=report.model,
        requests=t.requests,
        input_tokens=t.reported_input if t.reported_input is not None else t.counted_input,
        output_tokens=t.reported_output if t.reported_output is not None else t.counted_output,
        cache_read_tokens=t.cache_read_tokens,
        cost_usd=exact(t.cost_usd),
        cached_share=None if share is None else exact(share),
        reported_kind=report.reported_kind,
        priced_from=t.priced_from,
        truncated=report.truncated,
        warnings=len(report.warnings),
        model_id=report.prices.model_id,
        caps=None if options.caps is None else _check_caps(report, options.caps),
        succeeded=trace.succeeded,
        outcome_from=None if trace.succeeded is None else "log",
    )
    sizes: dict[str, list[int]] = {}
    for r in report.requests:
        if r.tool is not None and r.result_tokens is not None:
            sizes.setdefault(r.tool, []).append(r.result_tokens)
    return row, tuple((tool, tuple(v)) for tool, v in sorted(sizes.items()))


def _check_caps(report: ReplayReport, caps: Caps) -> CapCheck:
    from agentcost.commands.replay_caps import check_run

    return check_run(report, caps)


def _bound_memo() -> None:
    """Empty the process's token memo once it holds more than MEMO_CHARS characters of counted text
    (it keeps every distinct text it counted), and write the counts pending for the disk cache."""
    from agentcost.tokens.memo import DEFAULT_MEMO

    held = [DEFAULT_MEMO.stats(s) for s in DEFAULT_MEMO.schemes()]
    if (
        sum(s.chars_counted for s in held) > MEMO_CHARS
        or sum(s.texts_counted + s.disk_hits for s in held) > MEMO_TEXTS
    ):
        from agentcost.infra import diskcache

        DEFAULT_MEMO.clear()
        diskcache.flush()


def _replay_chunk(paths: Sequence[Path], options: Options) -> list[Result]:
    return [replay_path(p, options) for p in paths]


def _context() -> BaseContext:
    """Workers forked from a fork server (started once per process, agentcost's replay modules loaded)
    or spawned where there is none: never forked from this process, whose open disk-cache database a
    child must not share."""
    import multiprocessing

    if "forkserver" not in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context("spawn")
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload([__name__, "agentcost.replay", "agentcost.replay.trace"])
    return context


def replay_all(
    paths: Sequence[Path], options: Options, *, jobs: int = 1, chunk: int = CHUNK
) -> Iterator[Result]:
    """Each log's result, in the order of ``paths``. With ``jobs`` > 1, chunks of ``chunk`` logs go to
    ``jobs`` worker processes, at most ``2 * jobs`` chunks in flight (so results never pile up)."""
    if jobs <= 1:
        for p in paths:
            yield replay_path(p, options)
        return
    from concurrent.futures import Future, ProcessPoolExecutor

    chunks = (paths[i : i + chunk] for i in range(0, len(paths), chunk))
    with ProcessPoolExecutor(max_workers=jobs, mp_context=_context()) as pool:
        pending: deque[Future[list[Result]]] = deque()
        for part in chunks:
            pending.append(pool.submit(_replay_chunk, part, options))
            if len(pending) >= 2 * jobs:
                yield from pending.popleft().result()
        while pending:
            yield from pending.popleft().result()


# --- the summary ------------------------------------------------------------------------------------


class Summary:
    """The aggregates, updated run by run: rows, skip reasons, per-tool size counters, totals."""

    def __init__(self) -> None:
        self.rows: list[RunRow] = []
        self.skips: Counter[str] = Counter()
        self.first_skipped: list[Skipped] = []
        self.tool_sizes: dict[str, Counter[int]] = {}
        self.tool_runs: Counter[str] = Counter()
        self.total_usd = Decimal(0)

    def add(self, result: Result) -> None:
        if isinstance(result, Skipped):
            self.skip(result)
            return
        row, sizes = result
        self.rows.append(row)
        self.total_usd += Decimal(row.cost_usd)
        for tool, values in sizes:
            self.tool_sizes.setdefault(tool, Counter()).update(values)
            self.tool_runs[tool] += 1

    def skip(self, skipped: Skipped) -> None:
        self.skips[skipped.reason] += 1
        if len(self.first_skipped) < NAMED_SKIPS:
            self.first_skipped.append(skipped)

    def report(self, inputs: Sequence[str], found: Found, caps: Caps | None = None) -> ReplayManyReport:
        from agentcost.commands.outcomes import run_outcomes

        rows = tuple(self.rows)
        shares = [Decimal(r.cached_share) for r in rows if r.cached_share is not None]
        return ReplayManyReport(
            inputs=tuple(inputs),
            files=len(found.files),
            ignored=found.ignored,
            limit=found.limit,
            runs=rows,
            skipped=sum(self.skips.values()),
            reasons=tuple(
                SkipReason(reason, n)
                for reason, n in sorted(self.skips.items(), key=lambda kv: (-kv[1], kv[0]))
            ),
            first_skipped=tuple(self.first_skipped),
            cost=stat([Decimal(r.cost_usd) for r in rows], _MEAN_USD),
            requests=stat([Decimal(r.requests) for r in rows], _MEAN_COUNT),
            cached_share=stat(shares, SHARE_STEP) if shares else None,
            cached_runs=len(shares),
            tools=tuple(self._tools()),
            failed_share=None,
            retried_share=None,
            total_usd=self.total_usd,
            total_requests=sum(r.requests for r in rows),
            input_tokens=sum(r.input_tokens for r in rows),
            output_tokens=sum(r.output_tokens for r in rows),
            formats=_counted(r.format for r in rows),
            models=_counted(r.model_id or r.model for r in rows),
            model_names=_aliases(rows),
            caps=None if caps is None else _caps_outcome(caps, rows),
            outcomes=run_outcomes(rows, self.total_usd),
        )

    def _tools(self) -> Iterator[ToolSizes]:
        for tool, sizes in sorted(self.tool_sizes.items(), key=lambda kv: (-kv[1].total(), kv[0])):
            calls = sizes.total()
            total = sum(v * n for v, n in sizes.items())
            yield ToolSizes(
                tool=tool,
                calls=calls,
                runs=self.tool_runs[tool],
                p50=counted_percentile(sizes, 50),
                p90=counted_percentile(sizes, 90),
                mean=(Decimal(total) / calls).quantize(_MEAN_COUNT, ROUND_HALF_UP),
                max=max(sizes),
            )


def _caps_outcome(caps: Caps, rows: Sequence[RunRow]) -> CapsOutcome:
    from agentcost.commands.replay_caps import outcome

    return outcome(caps, [r.caps for r in rows if r.caps is not None])


def _aliases(rows: Sequence[RunRow]) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """Each model id whose runs name it otherwise (``gpt-4o-mini-2024-07-18`` for ``gpt-4o-mini``)
    with every name used, sorted: the price lookup's canonical id is what merges them."""
    names: dict[str, set[str]] = {}
    for r in rows:
        names.setdefault(r.model_id or r.model, set()).add(r.model)
    return tuple((i, tuple(sorted(n))) for i, n in sorted(names.items()) if n != {i})


def _counted(values: Iterable[str]) -> tuple[tuple[str, int], ...]:
    counts = Counter(values)
    return tuple(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))


def stat(values: Sequence[Decimal], mean_step: Decimal) -> Stat:
    """Mean (rounded half up to ``mean_step``), nearest-rank p50/p90/p99, min and max of ``values``."""
    from agentcost.loop.simulate import Stat, nearest_rank

    ordered = sorted(values)
    n = len(ordered)
    if not n:
        zero = Decimal(0)
        return Stat(zero, zero, zero, zero, zero, zero)
    at = [ordered[nearest_rank(range(n), Decimal(q))] for q in (50, 90, 99)]
    mean = (sum(ordered, Decimal(0)) / n).quantize(mean_step, ROUND_HALF_UP)
    return Stat(mean, at[0], at[1], at[2], ordered[0], ordered[-1])


def counted_percentile(counts: Counter[int], q: int) -> int:
    """The nearest-rank ``q``-th percentile of the values ``counts`` holds (value -> how many)."""
    from agentcost.loop.simulate import nearest_rank

    rank = nearest_rank(range(counts.total()), Decimal(q)) + 1
    seen = 0
    for value in sorted(counts):
        seen += counts[value]
        if seen >= rank:
            return value
    return max(counts)


def replay_many(
    args: Sequence[str],
    options: Options,
    *,
    jobs: int = 1,
    max_files: int = MAX_FILES,
    max_bytes: int = MAX_BYTES,
    progress: Callable[[int, int], None] | None = None,
) -> ReplayManyReport:
    """Replay every log ``args`` name and summarise them. InputError (exit 2) when no run was read."""
    found = find_logs(args, max_files=max_files, max_bytes=max_bytes)
    summary = Summary()
    for arg, reason in found.missing:
        summary.skip(Skipped(arg, reason, f"{arg}: {reason}"))
    for done, result in enumerate(replay_all(found.files, options, jobs=jobs), start=1):
        summary.add(result)
        if progress is not None:
            progress(done, len(found.files))
    suffixes = ", ".join(SUFFIXES)
    if not found.files and not found.missing:
        raise InputError(
            "no log file found",
            file=args[0] if len(args) == 1 else None,
            hint=f"a directory is searched for {suffixes} files; {found.ignored} other files ignored",
        )
    if not summary.rows:
        first = summary.first_skipped[0].detail if summary.first_skipped else None
        raise InputError(
            f"no run could be replayed: {summary.skips.total()} skipped, {found.ignored} ignored"
            + (f"; first: {first}" if first else ""),
            hint=f"a directory is searched for {suffixes} files",
        )
    return summary.report(args, found, options.caps)
