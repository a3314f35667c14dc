"""``agentcost replay DIR --caps FILE``: read the caps ``agentcost caps --format json`` wrote (an
untrusted file: bounded, validated, never echoed) and hold each replayed run against them
(:mod:`agentcost.report.replay_caps` says what stops a run)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agentcost.errors import InputError
from agentcost.report.replay_caps import CapCheck, Caps, CapsOutcome, StopCap

if TYPE_CHECKING:
    from agentcost.replay.trace import ReplayReport

MAX_CAPS_BYTES = 1_000_000  # a caps report is about 2 kB
_HINT = "give the output of agentcost caps SCENARIO --format json"
_MOST = 10**9  # the largest turns or tokens a cap may hold
_MOST_USD = Decimal(1_000_000_000)  # as any budget (docs/limits.md)


def read_caps(path: Path) -> Caps:
    """The caps of a caps file, or :class:`InputError` naming the file, the key and the fix."""
    from agentcost.infra.files import Unreadable, read_text
    from agentcost.infra.validate import shown

    try:
        text = read_text(path, limit=MAX_CAPS_BYTES)
    except Unreadable as e:
        raise InputError(e.reason, file=path, line=e.line, key="--caps", hint=_HINT) from None
    try:
        data = json.loads(text, parse_float=Decimal, parse_constant=_no_constant)
    except (ValueError, RecursionError) as e:
        line = e.lineno if isinstance(e, json.JSONDecodeError) else None
        raise InputError("not JSON", file=path, line=line, key="--caps", hint=_HINT) from None
    if not isinstance(data, dict):
        raise InputError(f"expected a JSON object, got {shown(data, quote=False)}", file=path, hint=_HINT)
    kind = data.get("kind", "caps")
    if kind != "caps":
        raise InputError(
            "not a caps report: its kind is another command's", file=path, key="kind", hint=_HINT
        )
    caps = Caps(
        path=str(path),
        max_turns=_whole(data, "max_turns", path),
        max_budget_usd=_usd(data, path),
        max_tokens=_whole(data, "max_tokens", path),
    )
    if caps.max_turns is None and caps.max_budget_usd is None and caps.max_tokens is None:
        raise InputError(
            "no cap in it: max_turns, max_budget_usd and max_tokens are all missing", file=path, hint=_HINT
        )
    return caps


def _no_constant(name: str) -> None:
    raise ValueError(f"{name} is not a number")


def _whole(data: dict[str, Any], key: str, path: Path) -> int | None:
    from agentcost.infra.validate import shown

    value = data.get(key)
    if value is None:
        return None
    if type(value) is not int or not 1 <= value <= _MOST:
        raise InputError(
            f"must be a whole number from 1 to {_MOST:,}, got {shown(value, quote=False)}", file=path, key=key
        )
    return value


def _usd(data: dict[str, Any], path: Path) -> Decimal | None:
    """``max_budget_usd``: dollars as the JSON reports write them (an exact decimal string), or a number."""
    from agentcost.infra.validate import shown

    value = data.get("max_budget_usd")
    if value is None:
        return None
    amount: Decimal | None = None
    if isinstance(value, str) and 0 < len(value) <= 40:
        try:
            amount = Decimal(value)
        except ArithmeticError:
            amount = None
    elif isinstance(value, int | Decimal) and not isinstance(value, bool):
        amount = Decimal(value)
    if amount is None or not amount.is_finite() or not 0 < amount <= _MOST_USD:
        raise InputError(
            f"must be dollars above 0 and at most {_MOST_USD:,}, got {shown(value, quote=False)}",
            file=path,
            key="max_budget_usd",
        )
    return amount


def check_run(report: ReplayReport, caps: Caps) -> CapCheck:
    """Where the caps would have stopped one replayed run, and what it spent past that point (the
    run's running cost at its last request less that at the stop)."""
    requests = report.requests
    own = [i for i, r in enumerate(requests) if r.agent is None]  # positions of the agent's requests
    turns_at = None  # the position of the last request max_turns lets the agent send
    if caps.max_turns is not None and len(own) > caps.max_turns:
        turns_at = own[caps.max_turns - 1]
    budget_at = None
    if caps.max_budget_usd is not None:
        budget_at = next(
            (i for i, r in enumerate(requests[:-1]) if r.running_usd > caps.max_budget_usd), None
        )  # passed by the last request: nothing left to stop
    stops: list[tuple[int, StopCap]] = []  # max_turns first: it is named when both stop at one request
    if turns_at is not None:
        stops.append((turns_at, "max_turns"))
    if budget_at is not None:
        stops.append((budget_at, "max_budget_usd"))
    first = min(stops, key=lambda stop: stop[0]) if stops else None
    beyond = Decimal(0) if first is None else requests[-1].running_usd - requests[first[0]].running_usd
    over_request = over_tokens = None
    if caps.max_tokens is not None:
        for r in requests:
            out = r.reported_output if r.reported_output is not None else r.counted_output
            if out is not None and out > caps.max_tokens:
                over_request, over_tokens = r.index, out
                break
    return CapCheck(
        turns=len(own),
        stopped_by=None if first is None else first[1],
        stopped_after=None if first is None else requests[first[0]].index,
        beyond_usd=beyond,
        turns_stop=None if turns_at is None else requests[turns_at].index,
        budget_stop=None if budget_at is None else requests[budget_at].index,
        over_tokens_request=over_request,
        over_tokens=over_tokens,
    )


def outcome(caps: Caps, checks: Sequence[CapCheck]) -> CapsOutcome:
    """The runs' checks summed."""
    stopped = [c for c in checks if c.stopped_by is not None]
    return CapsOutcome(
        caps=caps,
        runs=len(checks),
        stopped=len(stopped),
        by_turns=sum(1 for c in stopped if c.stopped_by == "max_turns"),
        by_budget=sum(1 for c in stopped if c.stopped_by == "max_budget_usd"),
        over_tokens=sum(1 for c in checks if c.over_tokens_request is not None),
        beyond_usd=sum((c.beyond_usd for c in stopped), Decimal(0)),
    )


__all__ = ["MAX_CAPS_BYTES", "check_run", "outcome", "read_caps"]
