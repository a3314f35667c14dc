"""Calibrate a scenario from a recorded run (``agentcost calibrate``).

:func:`calibrate` writes a version-1 scenario that reproduces a :class:`~agentcost.replay.Trace`:
the model, the first request's fixed prefix as ``system: {tokens: N}`` + ``task: {tokens: M}``,
one round per recorded response after the first (its output size, and a result / user message
sized so the next request's input grows exactly as recorded), the last response as ``final``, and
caching as observed (``none`` when the log has no cache fields, else ``conversation``; ``cache_ttl: 1h``
for 1-hour writes, ``{prefix: 1h, conversation: 5m}`` when a request writes both, the prefix sized
from its 1-hour part).

The framing the counting rules add around each message is not hard-coded: the scenario is
estimated, each request's input and output is compared with the trace, and the sizes are corrected
until they match (the counts are linear in the sizes, so this settles in two or three passes).

Two layouts: **chat turns** (``reply`` = the response, ``user`` = what is sent back) for logs whose
calls are plain chat messages (SWE-agent), and **tool rounds** (``call_tokens`` + ``result``) for
logs whose responses are tool calls.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from agentcost.errors import InputError, one_line
from agentcost.infra.record import record
from agentcost.replay.ledger import replay
from agentcost.replay.trace import ReplayReport, Trace

if TYPE_CHECKING:
    from agentcost.prices.user import UserPrices

Layout = Literal["auto", "chat", "tools"]

_PASSES = 6  # correction passes; linear counts settle in 2-3


@record
class Calibration:
    """A calibrated scenario: its YAML ``text``, the replayed and re-estimated totals, the fit.

    ``error``: (estimated - replayed) / replayed of the total cost. ``input_residual`` /
    ``output_residual``: the largest |estimated - recorded| tokens of one request (0 unless a size
    would have had to be negative).
    """

    text: str
    layout: Literal["chat", "tools"]
    caching: Literal["none", "conversation"]
    requests: int
    replayed_usd: Decimal
    estimated_usd: Decimal
    error: Decimal | None
    input_residual: int
    output_residual: int
    notes: tuple[str, ...]


@record(frozen=False)
class _Sizes:
    system: int
    task: int
    outputs: list[int]  # reply / call_tokens of each round
    results: list[int]  # user / result of each round
    final: int
    tools: list[str]


def _yaml_escape(char: str) -> str:
    """``char`` as a YAML double-quoted escape: ``\\x85``, ``\\u2028``, ``\\U000e0001``."""
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def _q(text: str) -> str:
    """A YAML scalar of exactly ``text``: JSON's double-quoted string (valid YAML), with every
    character that is not printable escaped, since YAML reads a raw NEL, U+2028 or U+2029 inside
    quotes as a line break and folds it into a space (a tool ``a\\x85b`` would come back ``a b``)."""
    quoted = json.dumps(text, ensure_ascii=False)
    if quoted.isprintable():
        return quoted
    return "".join(c if c.isprintable() else _yaml_escape(c) for c in quoted)


def _comment(text: str) -> str:
    """A YAML comment's text: one line, anything unprintable shown escaped (:func:`one_line`)."""
    return one_line(text)


def _rounds_yaml(sizes: _Sizes, layout: str, compress: bool) -> list[str]:
    rows: list[tuple[str, int, int]] = [
        (sizes.tools[k], sizes.outputs[k], sizes.results[k]) for k in range(len(sizes.outputs))
    ]
    groups: list[tuple[tuple[str, int, int], int]] = []
    for row in rows:
        if compress and groups and groups[-1][0] == row:
            groups[-1] = (row, groups[-1][1] + 1)
        else:
            groups.append((row, 1))
    out: list[str] = []
    for (tool, size, result), times in groups:
        rep = f", repeat: {times}" if times > 1 else ""
        if layout == "chat":
            out.append(f"  - {{reply: {{tokens: {size}}}, user: {{tokens: {result}}}{rep}}}")
        else:
            out.append(f"  - {{tool: {_q(tool)}, call_tokens: {size}, result: {{tokens: {result}}}{rep}}}")
    return out


def _yaml(
    sizes: _Sizes,
    *,
    model: str,
    layout: str,
    caching: str,
    header: Sequence[str],
    compress: bool,
    ttl_1h: bool = False,
    ttl_mixed: bool = False,
) -> str:
    lines = [f"# {_comment(h)}" for h in header]
    lines += [
        "version: 1",
        f"model: {_q(model)}",
        f"system: {{tokens: {sizes.system}}}",
        f"task: {{tokens: {sizes.task}}}",
        f"caching: {caching}",
    ]
    if ttl_mixed:  # the log writes the prefix for 1 hour and the conversation for 5 minutes
        lines.append("cache_ttl: {prefix: 1h, conversation: 5m}")
    elif ttl_1h:  # the log writes 1-hour cache entries
        lines.append("cache_ttl: 1h")
    if sizes.outputs:
        lines.append("rounds:")
        lines += _rounds_yaml(sizes, layout, compress)
    lines.append(f"final: {{tokens: {sizes.final}}}")
    return "\n".join(lines) + "\n"


def _estimate_text(
    text: str, path: Path, *, as_of: datetime, user_prices: UserPrices | None
) -> tuple[list[tuple[int, int, int]], Decimal]:
    """Each request's (input, output, 1-hour cache write) tokens and the total cost of a scenario
    given as text."""
    from agentcost.infra.yamlread import read_file
    from agentcost.loop.estimate import estimate_scenario
    from agentcost.scenario.load import read_scenario as load_scenario

    data = text.encode("utf-8")
    here = Path(os.path.abspath(path))

    def reader(p: Path) -> bytes:
        return data if p == here else read_file(p)

    scenario = load_scenario(path, reader=reader)
    est = estimate_scenario(scenario, as_of=as_of, user_prices=user_prices, compare=False)
    rows = [
        (r.usage.input_tokens, r.usage.output_tokens, r.usage.cache_write_1h_tokens) for r in est.ledger.rows
    ]
    return rows, est.total_usd


def _targets(trace: Trace, report: ReplayReport) -> tuple[list[int], list[int], str]:
    """Each request's input and output tokens to reproduce: reported per request, else counted."""
    rows = report.requests
    if all(r.reported_input is not None and r.reported_output is not None for r in rows):
        return [r.reported_input or 0 for r in rows], [r.reported_output or 0 for r in rows], "reported"
    if all(r.counted_input is not None and r.counted_output is not None for r in rows):
        return [r.counted_input or 0 for r in rows], [r.counted_output or 0 for r in rows], "counted"
    raise InputError(
        "cannot calibrate: some requests have neither reported usage nor recorded messages",
        file=trace.path,
    )


def _layout(trace: Trace, layout: Layout) -> Literal["chat", "tools"]:
    if layout != "auto":
        return layout
    if trace.format == "swe-agent":  # actions are written in the assistant's text: plain chat messages
        return "chat"
    return "tools" if any(c.action for c in trace.calls[:-1]) else "chat"


def calibrate_trace(
    trace: Trace,
    *,
    as_of: datetime,
    user_prices: UserPrices | None = None,
    model: str | None = None,
    layout: Layout = "auto",
    compress: bool = True,
    now: datetime | None = None,
) -> Calibration:
    """Fit a scenario to a recorded run and re-estimate it (see the module docstring)."""
    report = replay(trace, as_of=as_of, user_prices=user_prices, model=model)
    name = report.model
    target_in, target_out, source = _targets(trace, report)
    n = len(target_in)
    chosen = _layout(trace, layout)
    has_cache = any(
        c.reported is not None and (c.reported.cache_read_tokens or c.reported.cache_write_tokens)
        for c in trace.calls
    )
    caching: Literal["none", "conversation"] = "conversation" if has_cache else "none"
    ttl_1h = any(
        c.reported is not None and getattr(c.reported, "cache_write_1h_tokens", 0) for c in trace.calls
    )
    # a request writing both 5m and 1h entries: the prefix (its 1h part) and the conversation (5m)
    mixed = next(
        (
            (k, c.reported.cache_write_1h_tokens)
            for k, c in enumerate(trace.calls)
            if c.reported is not None and c.reported.cache_write_tokens and c.reported.cache_write_1h_tokens
        ),
        None,
    )
    notes: list[str] = []

    # first guesses: the task is the last message of request 1 when it is recorded
    first = trace.calls[0].messages
    task = 0
    if first:
        from agentcost.replay.ledger import _Counter

        task = _Counter(name, report.prices).text(first[-1].text)
    task = min(task, target_in[0])
    min_out = 1 if chosen == "tools" else 0
    sizes = _Sizes(
        system=max(target_in[0] - task, 0),
        task=task,
        outputs=[max(o, min_out) for o in target_out[:-1]],
        results=[max(target_in[k + 1] - target_in[k] - target_out[k], 0) for k in range(n - 1)],
        final=target_out[-1],
        tools=[c.action or "tool" for c in trace.calls[:-1]],
    )
    path = Path(trace.path).with_name(Path(trace.path).name + ".calibrated.yaml")

    def render(header: Sequence[str]) -> str:
        return _yaml(
            sizes,
            model=name,
            layout=chosen,
            caching=caching,
            header=header,
            compress=compress,
            ttl_1h=ttl_1h,
            ttl_mixed=mixed is not None,
        )

    rows: list[tuple[int, int, int]] = []
    total = Decimal(0)
    for _ in range(_PASSES):
        rows, total = _estimate_text(render(()), path, as_of=as_of, user_prices=user_prices)
        if len(rows) != n:  # pragma: no cover - the scenario has n - 1 rounds + final
            raise AssertionError(f"calibrated scenario has {len(rows)} requests, expected {n}")
        got_in = [r[0] for r in rows]
        got_out = [r[1] for r in rows]
        changed = False
        d = target_in[0] - got_in[0]
        if d:
            changed = True
            sizes.system += d
            if sizes.system < 0:  # the prefix is smaller than the task guess: shrink the task
                sizes.task = max(sizes.task + sizes.system, 0)
                sizes.system = 0
        if mixed is not None:  # two TTLs: the prefix is the 1h write; the task takes the rest
            shift = min(rows[mixed[0]][2] - mixed[1], sizes.system)
            if shift:
                changed = True
                sizes.system -= shift
                sizes.task = max(sizes.task + shift, 0)
        for k in range(n - 1):
            d_out = target_out[k] - got_out[k]
            new = max(sizes.outputs[k] + d_out, min_out)
            changed |= new != sizes.outputs[k]
            sizes.outputs[k] = new
            d_grow = (target_in[k + 1] - target_in[k]) - (got_in[k + 1] - got_in[k])
            new = max(sizes.results[k] + d_grow, 0)
            changed |= new != sizes.results[k]
            sizes.results[k] = new
        d = target_out[-1] - got_out[-1]
        new = max(sizes.final + d, 0)
        changed |= new != sizes.final
        sizes.final = new
        if not changed:
            break
    in_residual = max(abs(r[0] - t) for r, t in zip(rows, target_in, strict=True))
    out_residual = max(abs(r[1] - t) for r, t in zip(rows, target_out, strict=True))
    if in_residual or out_residual:
        notes.append(
            f"the scenario cannot match every request exactly (a size would be negative): up to "
            f"{in_residual:,} input / {out_residual:,} output tokens off in one request"
        )
    if has_cache:
        notes.append(
            "the log records cache reads/writes: the scenario says caching: conversation, and the "
            "estimate prices its own cache reads and writes"
        )
    replayed = report.totals.cost_usd
    error = (total - replayed) / replayed if replayed else None
    when = (now or datetime.now(tz=UTC)).strftime("%Y-%m-%dT%H:%M:%SZ")
    shown = f"{error * 100:+.2f}%" if error is not None else "n/a"
    header = [
        f"Calibrated by agentcost calibrate from {trace.path} ({trace.format}, {n} requests) at {when}.",
        f"Sizes fitted to the {source} tokens of each request; prices as of {as_of.date().isoformat()}.",
        f"Replayed ${replayed}; this scenario estimates ${total} ({shown}).",
        f"Layout: {'chat turns (reply/user)' if chosen == 'chat' else 'tool rounds (call_tokens/result)'}; "
        f"caching: {caching} ({'cache fields in the log' if has_cache else 'no cache fields in the log'}).",
    ]
    if trace.truncated:
        header.append(f"The log was truncated: only the {n} requests read are reproduced.")
    return Calibration(
        text=render(header),
        layout=chosen,
        caching=caching,
        requests=n,
        replayed_usd=replayed,
        estimated_usd=total,
        error=error,
        input_residual=in_residual,
        output_residual=out_residual,
        notes=tuple(notes),
    )


def calibrate(
    trace: Trace,
    *,
    as_of: datetime,
    user_prices: UserPrices | None = None,
    model: str | None = None,
    layout: Layout = "auto",
) -> str:
    """The YAML text of a version-1 scenario that reproduces ``trace`` (see :func:`calibrate_trace`)."""
    return calibrate_trace(trace, as_of=as_of, user_prices=user_prices, model=model, layout=layout).text


def write_scenario(text: str, output: Path, *, trace_path: Path, force: bool = False) -> None:
    """Write ``text`` to ``output`` atomically; refuse to overwrite a file unless ``force``, and
    never write over the trace or another input of the run, a directory or a device
    (:func:`agentcost.infra.writes.write_output`)."""
    from agentcost.infra.writes import check_output, write_output

    check_output(output, "output")  # a directory or a device: say so, not "the file exists"
    if output.exists() and trace_path.exists() and output.resolve() == trace_path.resolve():
        raise InputError("refusing to write over the trace", key="output", file=output)
    if output.exists() and not force:
        raise InputError("the file exists", key="output", file=output, hint="pass --force to overwrite it")
    try:
        write_output(output, text, newline="\n", key="output")
    except OSError as err:
        raise InputError(f"cannot write the scenario: {err.strerror}", key="output", file=output) from None
