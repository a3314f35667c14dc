"""Where the reported input that our count lacks went: attributed to what the log shows.

The gap between reported and counted input has several causes a log can show: documents (PDF),
images, audio and video, and server-tool blocks, which replay does not count
(:mod:`agentcost.replay.media`), and, when the log lacks them, the system prompt and tool
definitions (an *unrecorded prefix*). Each request's gap is attributed to the kinds of uncounted
blocks it carries; the part of it an unrecorded prefix explains is taken off first, estimated as
the median gap of the requests that carry none (the prefix is sent with every request). When every
request carries some, the prefix cannot be told apart and the note says so. What is left over is
the unrecorded prefix (or, when the log records everything sent, the counting gap). The parts sum
to the gap exactly, each with its share of it.
"""

from __future__ import annotations

from collections.abc import Sequence
from decimal import ROUND_HALF_UP, Decimal
from statistics import median_low

from agentcost.infra.record import record
from agentcost.replay.media import named

SHARE_STEP = Decimal("0.000001")
PREFIX = "unrecorded prefix"


@record
class GapPart:
    """One cause of the input gap: ``what`` (kinds of uncounted blocks, e.g. "image and document",
    or "unrecorded prefix" / "gap" for the rest), its ``tokens``, the ``requests`` it is found in and
    its ``share`` of the whole gap (None when the gap is not positive)."""

    what: str
    tokens: int
    requests: int
    share: Decimal | None


def _share(tokens: int, gap: int) -> Decimal | None:
    return (Decimal(tokens) / Decimal(gap)).quantize(SHARE_STEP) if gap > 0 else None


def attribute(
    gaps: Sequence[int | None], kinds: Sequence[tuple[str, ...]], gap: int, rest: str
) -> tuple[tuple[GapPart, ...], bool]:
    """The parts of ``gap`` (reported - counted input of the run) by what each request carries:
    ``gaps`` per request (None when not known), ``kinds`` its uncounted blocks, ``rest`` the label
    of what is left ("unrecorded prefix" or "gap"). Empty when no request carries an uncounted
    block. The flag: True when an unrecorded prefix could be told apart from the blocks' tokens."""
    carrying = [i for i, k in enumerate(kinds) if k]
    if not carrying:
        return (), True
    groups: dict[str, list[int]] = {}  # what -> [tokens, requests]
    per_request = all(g is not None for g in gaps)
    plain = [g for g, k in zip(gaps, kinds, strict=True) if not k and g is not None]
    separable = bool(plain) or rest != PREFIX
    if per_request:
        base = max(median_low(plain), 0) if plain and rest == PREFIX else 0
        for i in carrying:
            g = gaps[i] or 0
            part = g - min(base, g) if g > 0 else 0
            entry = groups.setdefault(named(frozenset(kinds[i])), [0, 0])
            entry[0] += part
            entry[1] += 1
    else:  # run totals only: the blocks cannot be told apart from anything else unrecorded
        separable = False
        entry = groups.setdefault(named(frozenset(k for i in carrying for k in kinds[i])), [0, 0])
        entry[0], entry[1] = max(gap, 0), len(carrying)
    parts = [GapPart(what, t, n, _share(t, gap)) for what, (t, n) in groups.items()]
    parts.sort(key=lambda p: (-p.tokens, p.what))
    left = gap - sum(p.tokens for p in parts)
    if left:
        label = rest if left > 0 else "gap"  # an over-count is a counting error, not a prefix
        parts.append(GapPart(label, left, len(gaps), _share(left, gap)))  # sent with every request
    return tuple(parts), separable


def note(parts: Sequence[GapPart], gap: int, separable: bool) -> str:
    """The note that names each part of the gap with its share."""

    def one(p: GapPart) -> str:
        share = "" if p.share is None else f" ({(p.share * 100).quantize(Decimal('0.1'), ROUND_HALF_UP)}%)"
        if p.what == PREFIX:
            return (
                f"{p.tokens:,}{share} an unrecorded prefix (system prompt or tool definitions not recorded)"
            )
        if p.what == "gap":
            return f"{p.tokens:,}{share} a counting gap"
        requests = f"{p.requests} request{'s' if p.requests != 1 else ''}"
        return f"{p.tokens:,}{share} the {p.what} blocks of {requests} (not counted offline)"

    text = f"{gap:,} reported input tokens are not in our count: " + "; ".join(one(p) for p in parts)
    if not separable:
        text += (
            "; every request carries such blocks (or only run totals are reported), so an unrecorded "
            "system prompt or tool definitions cannot be told apart from them"
        )
    return text


def zero_note(calls: int, requests: int) -> str:
    """The note for usage that is all zeros (``calls`` requests, or the run totals when 0)."""
    which = "the run totals" if not calls else f"{calls} of {requests} requests"
    return (
        f"{which} report all-zero usage (no real request has no input: a replayed, mocked or failed "
        "run, not API usage): taken as not reported, priced from our counts"
    )


def explain(
    kinds: Sequence[tuple[str, ...]],
    rows: Sequence[tuple[int | None, bool]],
    *,
    prefix_recorded: bool,
    gap: int | None,
) -> tuple[str, tuple[GapPart, ...], list[str]]:
    """The run's gap label, its parts and the notes that say so: ``kinds`` the uncounted blocks of
    each request, ``rows`` each request's gap and whether it was priced from our count."""
    notes: list[str] = []
    unpriced = [k for k, (_, counted) in zip(kinds, rows, strict=True) if k and counted]
    if unpriced:
        notes.append(
            f"{len(unpriced)} requests carry {named(frozenset(x for k in unpriced for x in k))} blocks, "
            "which are not counted offline, and report no usage: priced from our counts, their cost "
            "is understated"
        )
    rest = PREFIX if not prefix_recorded else "gap"
    if gap is not None:
        parts, separable = attribute([g for g, _ in rows], kinds, gap, rest)
        if any(p.tokens > 0 and p.what != rest for p in parts):
            notes.append(note(parts, gap, separable))
            return "uncounted content", parts, notes
    label = rest if (gap or 0) > 0 else "gap"
    if gap and label == PREFIX:
        notes.append(
            f"{gap:,} reported input tokens are not in the log (system prompt or tool definitions "
            "not recorded): shown as an unrecorded prefix"
        )
    return label, (), notes
