"""Split a recorded log into its conversations, and calibrate a log that holds several.

A log may record several independent conversations (an API log of unrelated calls), while a
scenario is one growing conversation. :func:`split_conversations` finds where each conversation
starts: a call continues the previous one when the messages it sends are the previous call's
messages followed by that call's response (roles and texts compared) and it goes to the same model
with the same tools and ``tool_choice`` (the system prompt is one of the messages); otherwise it
starts a new conversation. Calls whose messages are not recorded always continue the previous call.

The messages a log records are not always the whole story: a Claude Code session's lines form a
chain that breaks where the reader cannot follow it (lines of kinds it skips, a resumed session), so
one conversation can read as several. The usage the provider reported settles it:
:func:`join_cached` joins a part to the one before it when its first request reads back from the
cache at least what the previous request read and sends no fewer tokens -- the same growing
conversation, its cached context still warm -- so a session is not calibrated as conversations that
each start cold and write the shared prefix again.

:func:`calibrate_log` calibrates each conversation as its own scenario and, when there are several,
writes a project file listing them, so ``agentcost estimate`` of the project estimates the whole log.
"""

from __future__ import annotations

import dataclasses
from datetime import datetime
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING

from agentcost.commands.calibrate import Calibration, Layout, calibrate_trace, write_scenario
from agentcost.errors import InputError
from agentcost.infra.record import record
from agentcost.replay.ledger import check_trace, replay
from agentcost.replay.trace import Message, RecordedCall, Trace

if TYPE_CHECKING:
    from agentcost.prices.user import UserPrices


def _same_text(sent: str, output: str | None) -> bool:
    """Whether the assistant message sent back is the recorded response. Some logs keep only the
    text part of a response that also called a tool (Claude Code), so a prefix of it counts too."""
    if output is None:
        return True
    a, b = sent.strip(), output.strip()
    return a == b or b.startswith(a) or a.startswith(b)


def continues(prev: RecordedCall, call: RecordedCall) -> bool:
    """Whether ``call`` continues the conversation of ``prev`` (see the module docstring)."""
    if prev.messages is None or call.messages is None:
        return True  # nothing to compare: today's behaviour, one conversation
    if prev.model is not None and call.model is not None and prev.model != call.model:
        return False
    if tuple(prev.tools or ()) != tuple(call.tools or ()) or prev.tool_choice != call.tool_choice:
        return False
    before, now = prev.messages, call.messages
    n = len(before)
    if len(now) <= n or [_key(m) for m in now[:n]] != [_key(m) for m in before]:
        return False
    reply = now[n]
    same_calls = not (reply.calls and prev.output_calls) or [c.name for c in reply.calls] == [
        c.name for c in prev.output_calls
    ]
    return reply.role == "assistant" and _same_text(reply.text, prev.output_text) and same_calls


def _key(m: Message) -> tuple[object, ...]:
    return (m.role, m.text, m.calls, m.results)


def split_conversations(trace: Trace) -> list[Trace]:
    """The conversations of ``trace`` in order, each a :class:`Trace` of its calls (the calls keep
    their indexes). One conversation: ``[trace]`` itself. Several: the run totals and the framework's
    cost (which cover the whole log) are dropped, and only the last part is marked truncated."""
    if not trace.calls:
        return [trace]
    groups: list[list[RecordedCall]] = [[trace.calls[0]]]
    for call in trace.calls[1:]:
        if continues(groups[-1][-1], call):
            groups[-1].append(call)
        else:
            groups.append([call])
    if len(groups) == 1:
        return [trace]
    last = len(groups) - 1
    return [
        dataclasses.replace(
            trace,
            calls=tuple(calls),
            reported_totals=None,
            reported_cost_usd=None,
            truncated=trace.truncated and i == last,
        )
        for i, calls in enumerate(groups)
    ]


def continues_cached(prev: RecordedCall, call: RecordedCall) -> bool:
    """Whether the reported usage shows ``call`` continuing ``prev``'s conversation: the same model,
    at least as many input tokens, and a cache read of at least what ``prev`` read (more than 0).
    A new conversation that shares only the cached prefix reads less than a long conversation did."""
    a, b = prev.reported, call.reported
    if a is None or b is None:
        return False
    if prev.model is not None and call.model is not None and prev.model != call.model:
        return False
    return (
        b.cache_read_tokens > 0
        and b.cache_read_tokens >= a.cache_read_tokens
        and (b.input_tokens >= a.input_tokens)
    )


def join_cached(parts: list[Trace]) -> list[Trace]:
    """``parts`` (of :func:`split_conversations`) with each part whose first request continues the
    previous part's last request by the cache (:func:`continues_cached`) joined to it."""
    if len(parts) < 2:
        return parts
    groups: list[list[Trace]] = [[parts[0]]]
    for part in parts[1:]:
        if continues_cached(groups[-1][-1].calls[-1], part.calls[0]):
            groups[-1].append(part)
        else:
            groups.append([part])
    if len(groups) == len(parts):
        return parts
    return [
        g[0]
        if len(g) == 1
        else dataclasses.replace(g[0], calls=tuple(c for p in g for c in p.calls), truncated=g[-1].truncated)
        for g in groups
    ]


# ---------------------------------------------------------------------------------------------
# Calibrating a log of several conversations
# ---------------------------------------------------------------------------------------------


@record
class LogCalibration:
    """The calibration of a whole log.

    ``text``: what ``-o FILE`` gets (or stdout): the scenario when the log is one conversation, else a
    project file listing ``scenarios`` (each (path, text); the paths are beside FILE). ``error``:
    (sum of the scenarios' estimates - replayed total of the log) / replayed total.
    """

    text: str
    conversations: tuple[Trace, ...]
    calibrations: tuple[Calibration, ...]
    scenarios: tuple[tuple[Path, str], ...]
    requests: int
    replayed_usd: Decimal
    estimated_usd: Decimal
    error: Decimal | None
    notes: tuple[str, ...]


def scenario_path(output: Path, number: int) -> Path:
    """``out.yaml`` -> ``out.1.yaml`` (``out`` -> ``out.1``) beside it."""
    return (
        output.with_name(f"{output.stem}.{number}{output.suffix}")
        if output.suffix
        else (output.with_name(f"{output.name}.{number}"))
    )


def _span(trace: Trace) -> str:
    first, last = trace.calls[0].index, trace.calls[-1].index
    return f"request {first}" if first == last else f"requests {first}-{last}"


def calibrate_log(
    trace: Trace,
    *,
    as_of: datetime,
    output: Path | None = None,
    user_prices: UserPrices | None = None,
    model: str | None = None,
    layout: Layout = "auto",
    now: datetime | None = None,
) -> LogCalibration:
    """Calibrate every conversation of ``trace``; a project file lists them when there are several.

    ``output`` names the main file (the scenarios go beside it, see :func:`scenario_path`); without
    it they are named after the log (``LOG.1.yaml`` ...).
    """
    check_trace(trace)  # the whole log's text budget, before any part of it is tokenized
    split = split_conversations(trace)
    parts = join_cached(split)
    joined = None
    if len(parts) < len(split):
        joined = (
            f"the log's messages split into {len(split)} parts, but the reported cache reads show "
            f"{len(split) - len(parts)} of them continuing the part before (its cached context still "
            f"warm): calibrated as {len(parts)} conversation{'s' if len(parts) != 1 else ''}"
        )
    if len(parts) == 1:
        parts = [trace]  # one conversation after all: the whole log, with its totals
    cals = [
        calibrate_trace(p, as_of=as_of, user_prices=user_prices, model=model, layout=layout, now=now)
        for p in parts
    ]
    replayed = replay(trace, as_of=as_of, user_prices=user_prices, model=model).totals.cost_usd
    estimated = sum((c.estimated_usd for c in cals), Decimal(0))
    error = (estimated - replayed) / replayed if replayed else None
    notes = list(dict.fromkeys(n for c in cals for n in c.notes))
    if joined is not None:
        notes.insert(0, joined)
    if len(parts) == 1:
        c = cals[0]
        return LogCalibration(
            c.text, (trace,), (c,), (), c.requests, c.replayed_usd, c.estimated_usd, c.error, tuple(notes)
        )
    main = output if output is not None else Path(Path(trace.path).name).with_suffix(".yaml")
    count = len(parts)
    scenarios: list[tuple[Path, str]] = []
    entries: list[str] = []
    for i, (part, cal) in enumerate(zip(parts, cals, strict=True), start=1):
        path = scenario_path(main, i)
        label = f"conversation {i} of {count} ({_span(part)})"
        scenarios.append((path, f"# {label.capitalize()} of {trace.path}.\n{cal.text}"))
        entries += [f"  - path: {_q(path.name)}", f"    name: {_q(label)}"]
    shown = f"{error * 100:+.2f}%" if error is not None else "n/a"
    lines = [
        f"# Calibrated by agentcost calibrate from {trace.path} ({trace.format}, {len(trace.calls)} "
        f"requests in {count} separate conversations): one scenario per conversation.",
        f"# Replayed ${replayed}; the scenarios together estimate ${estimated} ({shown}).",
        "# Estimate them all with `agentcost estimate` of this file; add runs_per_day to each entry.",
        "version: 1",
        f"name: {_q(f'Calibrated from {Path(trace.path).name}')}",
        "scenarios:",
        *entries,
    ]
    notes.insert(
        0,
        f"the log holds {count} separate conversations (a call whose messages do not extend the "
        "previous call's starts a new one): one scenario each, listed in a project file",
    )
    return LogCalibration(
        text="\n".join(lines) + "\n",
        conversations=tuple(parts),
        calibrations=tuple(cals),
        scenarios=tuple(scenarios),
        requests=len(trace.calls),
        replayed_usd=replayed,
        estimated_usd=estimated,
        error=error,
        notes=tuple(notes),
    )


def _q(text: str) -> str:
    import json

    return json.dumps(text, ensure_ascii=False)


def write_log_calibration(
    result: LogCalibration, output: Path, *, trace_path: Path, force: bool = False
) -> None:
    """Write the scenarios, then ``output`` (each atomically). Every file is checked first: none is
    written when one exists (without ``force``) or is the trace."""
    files = [*result.scenarios, (output, result.text)]
    for path, _ in files:
        if path.exists() and trace_path.exists() and path.resolve() == trace_path.resolve():
            raise InputError("refusing to write over the trace", key="output", file=path)
        if path.exists() and not force:
            raise InputError("the file exists", key="output", file=path, hint="pass --force to overwrite it")
    for path, text in files:
        write_scenario(text, path, trace_path=trace_path, force=force)
