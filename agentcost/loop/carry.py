"""Carry cost: what re-sending each block of the context cost over a run, and the run split into the
fixed prefix, the re-sent history, output and other charges.

A block is written once and then sent in every later request: the tool definitions (one block: the
counts know the tool prefix in aggregate; ``--explain``'s tool footprint splits it by tool), the
system prompt, the task, the per-request framing, and for each round its call (the assistant turn
echoed back), its result (a subagent's answer is its call's result), the thinking kept for one turn
and the server-tool results read inside its own request.

**How a request's input dollars go to its blocks.** Each request's prompt is laid out in the order
it is sent: tools, system, task, then each earlier round's call and result, then the tail that is
never cached (the previous round's transient thinking, this round's inline server-tool results, the
per-request framing). The accountant's ledger line says how many of those tokens were cache reads
(the first ones: a cache entry is a prefix), how many were cache writes (the next ones) and how many
were uncached (the rest), and what each part cost (:class:`~agentcost.tokens.request.RequestCost`'s
parts, from the pricer). Each part's dollars are shared among the tokens it covers, so a block gets
the cache-read price for its tokens inside the read part, the write price for those inside the
written part (5-minute and 1-hour writes together) and the input price for the rest. In exact
``Decimal``: the share of the tokens ``[0, x)`` of a part of ``t`` tokens costing ``U`` is
``U × x / t`` cut to :data:`QUANTUM` (and exactly ``U`` at ``x = t``); a block's share is the step
between the shares at its two ends, so the blocks of a part sum to ``U`` exactly, and the run's
blocks, output and other charges to its cost exactly.

**The split.** ``fixed_usd``: tools, system, task and per-request framing; ``history_usd``: every
round's blocks; ``output_usd``: the output of every request; ``other_usd``: server-tool fees (container
time included) and a Gemini explicit cache's creation and storage. A subagent's run is split the
same way and added in (its prefix to ``fixed_usd``, its history to ``history_usd``...), as
``totals.output_usd`` already adds its output, so that ``fixed_usd + history_usd + output_usd +
other_usd`` is the task's cost exactly. The per-block list is this run's own; each subagent's is in
its own estimate.

Context editing and ``trim.keep_last`` shrink a cleared result to its placeholder from the request
it is cleared before: the clearings are replayed (:class:`~agentcost.loop.editing.ContextEditor`, the
same decisions the accountant made) and the block is carried at its cleared size from then on.
Where a request's blocks do not add up to its input (routing together with context editing), its
history is carried as one block, ``history (not split)``.

Cost: the block list is ``requests × blocks`` steps. Past :data:`MAX_SENDS` block-sends it is not
made (``Carry.complete`` is False) and only the split is worked out, a few steps per request: the
fixed pieces are the prompt's two ends (tools, system and task first, the framing last).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from decimal import Decimal
from functools import cached_property
from typing import TYPE_CHECKING, Literal

from agentcost.infra.record import record
from agentcost.loop.editing import ContextEditor
from agentcost.tokens.counts import RoundTokens, TokenCounts

if TYPE_CHECKING:
    from agentcost.loop.accountant import LedgerRow
    from agentcost.loop.estimate import Estimate

QUANTUM = Decimal("1e-12")
"""A share of a part is cut to this (far below a cent); the shares of a part still sum to it exactly."""
MAX_SENDS = 400_000
"""Block-sends (a block carried in a request) past which the per-block list is not made: 390,000 took
0.9 s of CPU (a 440-round Claude run, measured 2026-12-07)."""
NOT_SPLIT = "history (not split)"

Group = Literal["fixed", "history"]
Kind = Literal["prefix", "call", "result", "subagent", "thinking", "server", "turn", "search"]
ZERO = Decimal(0)


@record
class Block:
    """One block of the context over the run: sent in ``times_sent`` requests, for ``cost_usd``."""

    name: str  # readable: "round 2 result (fetch_page)", "system prompt", "tool definitions"
    group: Group  # fixed: the prefix sent in every request; history: written by a round
    round: int | None  # the 1-based scenario round that wrote it (None: the fixed prefix)
    tokens: int  # its size as written, on the scenario's model (uncleared)
    times_sent: int  # requests that carried it, continuations and retries included
    cost_usd: Decimal  # its share of those requests' input dollars, after caching
    kind: Kind = "result"

    @property
    def resent(self) -> int:
        """Times it was sent after the first."""
        return max(self.times_sent - 1, 0)


@record
class RequestSplit:
    """One request's cost split: its blocks' input dollars by group, its output and its fees."""

    fixed_usd: Decimal
    history_usd: Decimal
    output_usd: Decimal
    other_usd: Decimal


@record
class Split:
    """A run's cost as ``fixed_usd + history_usd + output_usd + other_usd`` (exactly its cost)."""

    fixed_usd: Decimal
    history_usd: Decimal
    output_usd: Decimal
    other_usd: Decimal

    @property
    def total_usd(self) -> Decimal:
        return self.fixed_usd + self.history_usd + self.output_usd + self.other_usd

    def fraction(self, part: Decimal) -> Decimal | None:
        """``part`` (one of the four) over the total; None when the run costs nothing."""
        total = self.total_usd
        return part / total if total else None

    def __add__(self, other: Split) -> Split:
        return Split(
            self.fixed_usd + other.fixed_usd,
            self.history_usd + other.history_usd,
            self.output_usd + other.output_usd,
            self.other_usd + other.other_usd,
        )


class Carry:
    """The carry cost of an estimate, worked out when first read (a report that never shows it pays
    nothing). ``split`` includes the subagents; ``blocks`` and ``requests`` are this run's own."""

    def __init__(self, est: Estimate) -> None:
        self._est = est

    @cached_property
    def complete(self) -> bool:
        """The per-block list is made (the run has at most :data:`MAX_SENDS` block-sends)."""
        return _sends(self._est) <= MAX_SENDS

    @cached_property
    def _own(self) -> tuple[tuple[Block, ...], tuple[RequestSplit, ...]]:
        return _account(self._est, detail=self.complete)

    @property
    def blocks(self) -> tuple[Block, ...]:
        """Every block in the order it is sent (empty when not :attr:`complete`)."""
        return self._own[0]

    @property
    def requests(self) -> tuple[RequestSplit, ...]:
        """Each request's split, in the ledger's order."""
        return self._own[1]

    @cached_property
    def own_split(self) -> Split:
        """This run's own requests and per-run charges, subagents left out."""
        est = self._est
        rs = self.requests
        storage = est.ledger.storage
        per_run = ZERO if storage is None else storage.creation_usd + storage.storage_usd
        return Split(
            sum((r.fixed_usd for r in rs), ZERO),
            sum((r.history_usd for r in rs), ZERO),
            sum((r.output_usd for r in rs), ZERO),
            sum((r.other_usd for r in rs), ZERO) + per_run,
        )

    @cached_property
    def split(self) -> Split:
        """The task's split: this run's and every subagent's (their own subagents' included)."""
        out = self.own_split
        for sub in self._est.subagents.values():
            out = out + Carry(sub).split
        return out

    def share(self, block: Block) -> Decimal | None:
        """``block``'s cost over the task's (``split``, subagents included); None when it costs nothing."""
        total = self.split.total_usd
        return block.cost_usd / total if total else None

    def heaviest(self, n: int) -> tuple[Block, ...]:
        """The ``n`` history blocks that cost most, re-sent at least once (most dollars first)."""
        resent = [b for b in self.blocks if b.group == "history" and b.times_sent > 1 and b.cost_usd > 0]
        resent.sort(key=lambda b: (-b.cost_usd, -b.tokens, b.name))
        return tuple(resent[:n])


TOP_CARRIED = 3
"""Re-sent blocks ``--explain`` names, most dollars first (JSON ``carry``: every block)."""


@record
class Carried:
    """A heavy re-sent block, as ``--explain`` names it: what it cost, and the change that cuts it."""

    block: Block
    share: Decimal | None  # of the task's cost (``Carry.share``)
    lever: str  # the change that cuts it, in the scenario's words
    lever_names: tuple[str, ...] = ()  # the priced levers of --explain that make it (Lever.name)


def heaviest_carried(est: Estimate, n: int = TOP_CARRIED) -> tuple[Carried, ...]:
    """The ``n`` history blocks of ``est``'s run that cost most to carry, each with its lever."""
    carry = Carry(est)
    return tuple(Carried(b, carry.share(b), *_lever(b, est)) for b in carry.heaviest(n))


def _lever(b: Block, est: Estimate) -> tuple[str, tuple[str, ...]]:
    """The change that cuts what carrying ``b`` costs, and the names of the levers that price it
    (:mod:`agentcost.loop.insights`: ``trim_results``, ``keep_last_results``, ``thinking_drop``)."""
    s = est.scenario
    if b.kind == "subagent":
        return "ask the subagent for a shorter answer (its final output is this result)", ()
    if b.kind == "result":
        capped = s.trim is not None and s.trim.max_tokens is not None
        clears = s.context_editing is not None or (s.trim is not None and s.trim.keep_last is not None)
        trim = "trim or summarise it (trim.max_tokens)" if not capped else "summarise it before it is sent"
        clear = "clear it sooner" if clears else "clear it once used"
        names = (() if capped else ("trim_results",)) + (() if clears else ("keep_last_results",))
        return f"{trim}, or {clear} (context_editing, trim.keep_last)", names
    if b.kind == "thinking":
        return "drop thinking from earlier turns (thinking_retention: drop)", ("thinking_drop",)
    if b.kind == "call":
        return "shorter tool inputs (the call is echoed back in every later request)", ()
    if b.kind == "server":
        return "fewer or shorter server-tool results", ()
    return "summarise older turns", ()


def _sends(est: Estimate) -> int:
    """Block-sends of the run, bounded above: requests × (fixed blocks + 2 per round before it)."""
    n = len(est.ledger.rows)
    return n * (4 + 2 * min(n, len(est.counts.rounds)) + 2)


# --- the layout of a request, and its pieces -------------------------------------------------------------


@record
class _Piece:
    """One block of context inside one request: its tokens there and where it came from."""

    name: str
    group: Group
    round: int | None
    tokens: int  # in this request
    kind: Kind = "prefix"
    size: int = 0  # as written, on the scenario's model (Block.tokens)


def _round_numbers(counts: TokenCounts) -> list[int]:
    """The 1-based scenario round each counted round belongs to (an inserted tool search or failed
    attempt: the round it comes before)."""
    out = [0] * len(counts.rounds)
    number = sum(1 for r in counts.rounds if not r.inserted)
    for i in range(len(counts.rounds) - 1, -1, -1):
        if not counts.rounds[i].inserted:
            out[i] = number
            number -= 1
        else:
            out[i] = number + 1
    return out


def _names(est: Estimate) -> list[tuple[str, str, str, str]]:
    """(call, result, thinking, inline) block names of each counted round."""
    counts = est.counts
    numbers = _round_numbers(counts)
    scenario_index = [n - 1 for n in numbers]
    out: list[tuple[str, str, str, str]] = []
    for i, r in enumerate(counts.rounds):
        n = numbers[i]
        what = _what(est, r, scenario_index[i])
        if r.search:
            stem = f"tool search before round {n}"
            out.append((f"{stem}: call", f"{stem}: loaded definitions", f"{stem}: thinking", stem))
            continue
        if r.reply:
            stem = f"turn {n}"
            names = (f"{stem} reply", f"{stem} user message", f"{stem} thinking", f"{stem} server results")
            out.append(names)
            continue
        stem = f"round {n} failed attempt" if r.failed else f"round {n}"
        out.append(
            (
                f"{stem} call ({what})",
                f"{stem} {'error result' if r.failed else 'result'} ({what})",
                f"{stem} thinking (kept one turn)",
                f"{stem} server-tool results ({what})",
            )
        )
    seen: dict[tuple[str, str, str, str], int] = {}
    for i, names in enumerate(out):  # several failed attempts before one round: numbered
        seen[names] = seen.get(names, 0) + 1
        if seen[names] > 1:
            out[i] = tuple(f"{name} #{seen[names]}" for name in names)  # type: ignore[assignment]
    return out


def _what(est: Estimate, r: RoundTokens, index: int) -> str:
    """The tools a round called, a subagent's call marked as such."""
    rounds = est.scenario.rounds
    calls = rounds[index].calls if 0 <= index < len(rounds) else ()
    names = list(dict.fromkeys(c.tool + (" subagent" if c.subagent is not None else "") for c in calls))
    if not names:
        names = list(dict.fromkeys(r.tools))
    return ", ".join(names) if names else "no tool"


def _kinds(est: Estimate, r: RoundTokens, index: int) -> tuple[Kind, Kind]:
    """The kinds of a counted round's two blocks: its call and its result."""
    if r.search:
        return "search", "search"
    if r.reply:
        return "turn", "turn"
    rounds = est.scenario.rounds
    calls = rounds[index].calls if 0 <= index < len(rounds) and not r.failed else ()
    return "call", "subagent" if any(c.subagent is not None for c in calls) else "result"


def _fixed(c: TokenCounts, own: TokenCounts) -> list[_Piece]:
    return [
        _Piece("tool definitions", "fixed", None, c.tools, size=own.tools),
        _Piece("system prompt", "fixed", None, c.system, size=own.system),
        _Piece("task", "fixed", None, c.task, size=own.task),
    ]


def _layouts(est: Estimate) -> Iterator[tuple[LedgerRow, list[_Piece]]]:
    """Each ledger row with its prompt's pieces, in the order they are sent."""
    counts = est.counts
    names = _names(est)
    kinds = [_kinds(est, r, n - 1) for r, n in zip(counts.rounds, _round_numbers(counts), strict=True)]
    numbers = _round_numbers(counts)
    routes = dict(counts.routes)
    editor = None if counts.context_editing is None else ContextEditor(counts.context_editing, counts)
    models = [(None, counts), *((name, route.counts) for name, route in routes.items())]
    grown: dict[str | None, int] = {name: 0 for name, _ in models}  # each model's history, uncleared
    cleared = 0  # tokens the clearings so far removed (on the scenario's model)
    k = -1
    for row in est.ledger.rows:
        key = row.model if row.model in routes else None
        c = routes[key].counts if key is not None else counts
        if not row.continuation:
            k += 1
            if k > 0:
                for name, cc in models:
                    grown[name] += cc.rounds[k - 1].appended
            if editor is not None:  # the same clearings the accountant made, replayed with its input
                transient = c.rounds[k - 1].transient if k > 0 else 0
                inline = c.rounds[k].inline if row.kind != "final" and k < len(c.rounds) else 0
                written = counts.prefix + counts.task + grown[None] - cleared
                edit = editor.before(k, written + transient + inline + counts.per_request)
                cleared += 0 if edit is None else edit.saved
        pieces = _fixed(c, counts)
        saved = editor.saved_in_round if editor is not None and c is counts else None
        for i in range(min(k, len(c.rounds))):
            r, own = c.rounds[i], counts.rounds[i]
            result = r.result - (saved[i] if saved is not None else 0)
            call, answer = kinds[i]
            pieces.append(_Piece(names[i][0], "history", numbers[i], r.echo, call, own.echo))
            pieces.append(_Piece(names[i][1], "history", numbers[i], result, answer, own.result))
        if k > 0 and k - 1 < len(c.rounds):
            thinking = c.rounds[k - 1].transient
            size = counts.rounds[k - 1].transient
            pieces.append(_Piece(names[k - 1][2], "history", numbers[k - 1], thinking, "thinking", size))
        if k < len(c.rounds) and row.kind != "final":
            size = counts.rounds[k].inline
            pieces.append(_Piece(names[k][3], "history", numbers[k], c.rounds[k].inline, "server", size))
        pieces.append(_Piece("per-request framing", "fixed", None, c.per_request, size=counts.per_request))
        if sum(p.tokens for p in pieces) != row.usage.input_tokens:
            # routing with context editing: the cleared sizes are not known per round on this model
            rest = row.usage.input_tokens - sum(p.tokens for p in pieces[:3]) - c.per_request
            pieces = [*pieces[:3], _Piece(NOT_SPLIT, "history", None, rest, "turn", rest), pieces[-1]]
        yield row, pieces


def _parts(row: LedgerRow) -> list[tuple[int, Decimal]]:
    """The request's input as (tokens, dollars) parts in prompt order: cache reads, cache writes, the
    rest (one part when the pricer gave the input as a sum)."""
    u, cost = row.usage, row.cost
    if cost.uncached_input_usd is None:
        return [(u.input_tokens, cost.input_usd)]
    read, write = u.cache_read_tokens, u.cache_write_tokens + u.cache_write_1h_tokens
    return [
        (read, cost.cache_read_usd),
        (write, cost.cache_write_5m_usd + cost.cache_write_1h_usd),
        (u.input_tokens - read - write, cost.uncached_input_usd),
    ]


def _upto(x: int, start: int, tokens: int, usd: Decimal) -> Decimal:
    """The dollars of the first ``x`` tokens of the prompt that fall in a part of ``tokens`` tokens
    from ``start`` costing ``usd``: ``usd × taken / tokens`` cut to :data:`QUANTUM` (0 and ``usd`` at
    its two ends)."""
    taken = x - start
    if taken <= 0:
        return ZERO
    if taken >= tokens:
        return usd
    return (usd * taken / tokens).quantize(QUANTUM)


def shares(parts: Sequence[tuple[int, Decimal]], sizes: Sequence[int]) -> list[Decimal]:
    """The dollars of ``parts`` (consecutive token ranges, each (tokens, dollars)) that fall to each of
    ``sizes`` (consecutive token ranges over the same tokens): within a part of ``t`` tokens and ``U``
    dollars, the first ``x`` tokens cost ``U × x / t`` cut to :data:`QUANTUM` (``U`` at ``x = t``),
    and a size's share is the step between its two ends'. The shares sum to the parts' dollars."""
    out = [ZERO] * len(sizes)
    start = 0
    for tokens, usd in parts:
        if tokens <= 0:
            continue
        end = start + tokens
        lo = 0
        for j, size in enumerate(sizes):
            hi = lo + size
            if hi > start and lo < end:
                out[j] += _upto(hi, start, tokens, usd) - _upto(lo, start, tokens, usd)
            lo = hi
            if lo >= end:
                break
        start = end
    return out


@record(frozen=False)
class _Tally:
    """A block's running tally over the requests that carried it."""

    group: Group
    round: int | None
    tokens: int
    kind: Kind
    times_sent: int = 0
    cost_usd: Decimal = ZERO


def _splits(est: Estimate) -> tuple[RequestSplit, ...]:
    """Each request's split without the block list, in a few steps a request: the fixed pieces are
    the prompt's first tokens (tools, system, task) and its last (the per-request framing), so their
    dollars are the shares of those two ranges (:func:`shares`' steps telescope: the same figures as
    the block list's), and the history has the rest."""
    counts = est.counts
    routes = dict(counts.routes)
    out: list[RequestSplit] = []
    for row in est.ledger.rows:
        c = routes[row.model].counts if row.model in routes else counts
        head = c.tools + c.system + c.task
        framing = max(head, row.usage.input_tokens - c.per_request)  # where the framing starts
        fixed = whole = ZERO
        start = 0
        for tokens, usd in _parts(row):
            if tokens <= 0:
                continue
            whole += usd
            fixed += _upto(head, start, tokens, usd) + usd - _upto(framing, start, tokens, usd)
            start += tokens
        out.append(RequestSplit(fixed, whole - fixed, row.cost.output_usd, row.cost.fees_usd))
    return tuple(out)


def _account(est: Estimate, *, detail: bool) -> tuple[tuple[Block, ...], tuple[RequestSplit, ...]]:
    """The blocks of ``est``'s run (when ``detail``) and each request's split."""
    if not detail:
        return (), _splits(est)
    blocks: dict[str, _Tally] = {}
    splits: list[RequestSplit] = []
    for row, pieces in _layouts(est):
        dollars = shares(_parts(row), [p.tokens for p in pieces])
        fixed = history = ZERO
        for piece, usd in zip(pieces, dollars, strict=True):
            if piece.group == "fixed":
                fixed += usd
            else:
                history += usd
            if piece.tokens <= 0:
                continue
            tally = blocks.setdefault(piece.name, _Tally(piece.group, piece.round, piece.size, piece.kind))
            tally.times_sent += 1
            tally.cost_usd += usd
        splits.append(RequestSplit(fixed, history, row.cost.output_usd, row.cost.fees_usd))
    listed = tuple(
        Block(name, t.group, t.round, t.tokens, t.times_sent, t.cost_usd, t.kind)
        for name, t in blocks.items()
    )
    return listed, tuple(splits)
