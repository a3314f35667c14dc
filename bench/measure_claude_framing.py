"""Measure Claude and Gemini framing constants and token ratios with the providers' counting endpoints.

``python bench/measure_claude_framing.py [MODEL ...] [--write FILE]`` (issue 19). A maintainer
script: it needs ``ANTHROPIC_API_KEY`` (Claude) and/or ``GOOGLE_API_KEY``/``GEMINI_API_KEY``
(Gemini), or a compatible server's ``ANTHROPIC_BASE_URL``/``GEMINI_BASE_URL``; without any of
them it exits 2. Requests go through :mod:`agentcost.tokens.apicount` (same endpoints, headers,
retries and rate limit as ``--count api``). Default models: :data:`DEFAULT_MODELS`.

Every figure is a difference of two ``count_tokens`` (``countTokens``) requests that differ in one
thing. ``t(x)``, a text counted bare, is apicount's method: the request with ``x`` as ``system``
(Gemini: as a second part) minus the request without it, so the system framing is taken as 0, as
in the calibration. With ``U`` = the user message ``"."``:

* per message: ``[U, assistant ".", U]`` minus ``[U]``, minus 2 × t("."), halved;
* per request (after the last message): ``[U]`` minus one message minus t(".");
* per tool definition: tools ``[a, b]`` minus tools ``[a]`` minus t(JSON of b) (JSON as the rules
  write it, ``json.dumps`` of name, description, input_schema);
* hidden tool-use prompt (+ the tools block's own framing) for tool_choice auto, any and tool:
  ``[U]`` with tools ``[a]`` minus ``[U]`` minus t(JSON of a) minus the per-tool framing; the
  ``anthropic_tool_prompt_tokens`` columns are these minus ANTHROPIC_TOOLS_FRAMING (1), and the
  forced-tool extra is tool minus any;
* tool_use block: ``[U, assistant [tool_use]]`` minus ``[U]`` (both with tools ``[a]``) minus one
  message minus t(name) minus t(compact input JSON);
* tool_result block: ``[U, assistant [tool_use], user [tool_result]]`` minus ``[U]`` minus 2
  messages, the tool_use figure, t(name), t(input) and t(content). Should the API refuse a request
  ending on a tool_use, only their sum (``tool_use + tool_result``) is reported;
* ratios: t(sample) ÷ its o200k_base count, for :data:`PROSE` and :data:`JSON_SAMPLE`.

Gemini: per content (message), per request and the two ratios. Output framing cannot be measured
(the endpoints count input only). The table goes to stdout; ``--write FILE`` writes a YAML fragment
in facts.yaml row format (url, read = today, note naming the endpoint) for a maintainer to check and
paste: ``token_ratio`` and ``anthropic_tool_prompt_tokens`` rows go into agentcost/facts.yaml, the
``*_framing`` rows are the constants of agentcost/tokens/anthropic.py (and GEMINI_PER_REQUEST),
which have no facts table yet. Nothing in the project is changed by this script.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from decimal import ROUND_HALF_EVEN, Decimal
from fractions import Fraction
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from agentcost.tokens import anthropic as calib  # noqa: E402
from agentcost.tokens import apicount  # noqa: E402

DEFAULT_MODELS = (
    "claude-opus-4-1",  # Claude 4.0/4.1 tool-prompt row (313/315), tokenizer v3
    "claude-sonnet-4-5",  # 4.5 row (496/588), tokenizer v3
    "claude-haiku-4-5",
    "claude-opus-4-7",  # the newer tokenizer (ratio 1.49/1.40)
    "gemini-2.5-pro",
)
SCRIPT = "bench/measure_claude_framing.py"
DOCS_URL = {
    "anthropic": "https://platform.claude.com/docs/en/build-with-claude/token-counting",
    "google": "https://ai.google.dev/api/tokens",
}
KEY_VARS = ("ANTHROPIC_API_KEY", "GOOGLE_API_KEY", "GEMINI_API_KEY")
BASE_VARS = ("ANTHROPIC_BASE_URL", "GEMINI_BASE_URL")

PROSE = """\
The estimate starts from a scenario: a system prompt, a task, and the rounds an agent is expected to
take before it answers. Each round is one request to the model, and each request carries everything
that came before it, so the cost of a long task grows faster than its length.

Caching changes the picture. When the provider keeps the prefix of a conversation for a few minutes,
later requests read that prefix at a fraction of the price, and only the new tail is billed in full.
Whether a prefix is cached depends on its length, on the time since the last request, and on where
the client placed its breakpoints; none of this is visible in the final bill.

Tools add their own weight. Every definition is sent with every request, and some providers add a
hidden instruction that explains how tools are called. A result that is long, such as a file or a
log, is carried again by each later request until the agent trims it or the context is edited.
"""

JSON_SAMPLE = json.dumps(
    {
        "id": "run-0042",
        "model": "example-model",
        "created": "2026-12-02T03:00:00Z",
        "usage": {"input_tokens": 1834, "output_tokens": 211, "cache_read_input_tokens": 1536},
        "rounds": [
            {"tool": "read_file", "input": {"path": "src/app/main.py", "start": 1, "end": 120}, "ok": True},
            {"tool": "run_tests", "input": {"args": ["-q", "tests/test_api.py"]}, "ok": False},
            {"tool": "edit_file", "input": {"path": "src/app/api.py", "line": 88}, "ok": True},
        ],
        "prices": {"input": "3.00", "output": "15.00", "cache_read": "0.30", "currency": "USD"},
        "tags": ["bugfix", "python", "ci"],
    },
    indent=2,
)

TOOL_A = {
    "name": "get_weather",
    "description": "Get the current weather in a given city.",
    "input_schema": {
        "type": "object",
        "properties": {"city": {"type": "string", "description": "The city, e.g. Paris"}},
        "required": ["city"],
    },
}
TOOL_B = {
    "name": "get_time",
    "description": "Get the current local time in a given city.",
    "input_schema": {
        "type": "object",
        "properties": {"city": {"type": "string", "description": "The city, e.g. Tokyo"}},
        "required": ["city"],
    },
}
CALL_INPUT = {"city": "Paris"}
RESULT = '{"temp": 21, "sky": "clear"}'
USER = {"role": "user", "content": "."}

# (key, label, the calibrated value or None) in table order
ANTHROPIC_ROWS: tuple[tuple[str, str], ...] = (
    ("message", "per message"),
    ("per_request", "per request (after the last message)"),
    ("tool_def", "per tool definition"),
    ("tool_prompt_auto", "tool prompt, tool_choice auto (auto_none)"),
    ("tool_prompt_any", "tool prompt, tool_choice any (any_tool)"),
    ("forced_tool", "tool_choice tool, more than any"),
    ("tool_use", "per tool_use block"),
    ("tool_result", "per tool_result block"),
    ("tool_use_and_result", "tool_use + tool_result"),
    ("prose", "prose ratio (÷ o200k_base)"),
    ("json", "JSON ratio (÷ o200k_base)"),
)
GEMINI_ROWS = (
    ("message", "per message"),
    ("per_request", "per request (after the last message)"),
    ("prose", "prose ratio (÷ o200k_base)"),
    ("json", "JSON ratio (÷ o200k_base)"),
)

Number = int | Decimal
_NOT_FRAMING = ("prose", "json", "tool_prompt_auto", "tool_prompt_any")  # rows of their own tables


@dataclass
class Measured:
    """One model's measured figures (None: could not be measured, ``failed`` says why)."""

    provider: str
    model: str
    endpoint: str  # the URL the requests went to
    values: dict[str, Number | None] = field(default_factory=dict)
    failed: dict[str, str] = field(default_factory=dict)
    requests: int = 0


def _number(value: Fraction) -> Number:
    """An integral difference as int, otherwise a Decimal to one place (it should be integral)."""
    if value.denominator == 1:
        return int(value)
    return (Decimal(value.numerator) / Decimal(value.denominator)).quantize(Decimal("0.1"))


def _ratio(api: int, o200k: int) -> Decimal:
    return (Decimal(api) / Decimal(o200k)).quantize(Decimal("0.01"), rounding=ROUND_HALF_EVEN)


def o200k(text: str) -> int:
    from agentcost.tokens.memo import TokenMemo

    return TokenMemo().tiktoken("o200k_base", text)


class Counter:
    """Counts requests of one model with its endpoint."""

    def __init__(self, ep: apicount.Endpoint, key: tuple[str, str], out: Measured) -> None:
        self.ep = ep
        self.key = key
        self.out = out
        self._bare: dict[str, int] = {}
        self._base: int | None = None

    def post(self, payload: dict[str, Any]) -> int:
        self.out.requests += 1
        body = json.dumps(payload, ensure_ascii=False).encode("utf-8")
        return self.ep.post(body, self.key)

    def base(self) -> int:
        if self._base is None:
            self.out.requests += 1
            self._base = self.ep.post(self.ep.body(None), self.key)
        return self._base

    def bare(self, text: str) -> int:
        """The text's count: the minimal request with it minus the one without (apicount's method)."""
        if text not in self._bare:
            self.out.requests += 1
            self._bare[text] = self.ep.post(self.ep.body(text), self.key) - self.base()
        return self._bare[text]

    def ratios(self) -> None:
        self.out.values["prose"] = _ratio(self.bare(PROSE), o200k(PROSE))
        self.out.values["json"] = _ratio(self.bare(JSON_SAMPLE), o200k(JSON_SAMPLE))


def _anthropic_request(
    model: str, messages: list[dict[str, Any]], tools: Sequence[dict[str, Any]] = (), choice: Any = None
) -> dict[str, Any]:
    payload: dict[str, Any] = {"model": model, "messages": messages}
    if tools:
        payload["tools"] = list(tools)
        payload["tool_choice"] = choice or {"type": "auto"}
    return payload


def measure_anthropic(c: Counter) -> None:
    """The Anthropic figures (see the module docstring), into ``c.out.values``."""
    model, v = c.ep.model, c.out.values
    req = _anthropic_request
    base, dot = c.base(), c.bare(".")
    three = c.post(req(model, [USER, {"role": "assistant", "content": "."}, USER]))
    message = Fraction(three - base - 2 * dot, 2)
    v["message"] = _number(message)
    v["per_request"] = _number(base - message - dot)

    a_json, b_json = json.dumps(TOOL_A), json.dumps(TOOL_B)
    with_a = c.post(req(model, [USER], [TOOL_A]))
    with_ab = c.post(req(model, [USER], [TOOL_A, TOOL_B]))
    per_tool = with_ab - with_a - c.bare(b_json)
    v["tool_def"] = per_tool
    fixed: dict[str, int] = {"auto": with_a - base - c.bare(a_json) - per_tool}
    for name, choice in (("any", {"type": "any"}), ("tool", {"type": "tool", "name": TOOL_A["name"]})):
        counted = c.post(req(model, [USER], [TOOL_A], choice))
        fixed[name] = counted - base - c.bare(a_json) - per_tool
    v["tool_prompt_auto"] = fixed["auto"] - calib.ANTHROPIC_TOOLS_FRAMING
    v["tool_prompt_any"] = fixed["any"] - calib.ANTHROPIC_TOOLS_FRAMING
    v["forced_tool"] = fixed["tool"] - fixed["any"]

    use = {"type": "tool_use", "id": "toolu_01", "name": TOOL_A["name"], "input": CALL_INPUT}
    result = {"type": "tool_result", "tool_use_id": "toolu_01", "content": RESULT}
    texts = c.bare(str(TOOL_A["name"])) + c.bare(json.dumps(CALL_INPUT, separators=(",", ":")))
    pair = c.post(
        req(
            model,
            [USER, {"role": "assistant", "content": [use]}, {"role": "user", "content": [result]}],
            [TOOL_A],
        )
    )
    both = pair - with_a - 2 * message - texts - c.bare(RESULT)
    v["tool_use_and_result"] = _number(both)
    try:
        alone = c.post(req(model, [USER, {"role": "assistant", "content": [use]}], [TOOL_A]))
    except apicount.CountFailed as err:
        c.out.failed["tool_use"] = c.out.failed["tool_result"] = f"a request ending on a tool_use: {err}"
        v["tool_use"] = v["tool_result"] = None
    else:
        tool_use = alone - with_a - message - texts
        v["tool_use"] = _number(tool_use)
        v["tool_result"] = _number(both - tool_use)
    c.ratios()


def measure_gemini(c: Counter) -> None:
    """Gemini: per content, per request and the ratios."""
    base, dot = c.base(), c.bare(".")
    part = [{"text": "."}]
    contents = [
        {"role": "user", "parts": part},
        {"role": "model", "parts": part},
        {"role": "user", "parts": part},
    ]
    three = c.post({"contents": contents})
    message = Fraction(three - base - 2 * dot, 2)
    c.out.values["message"] = _number(message)
    c.out.values["per_request"] = _number(base - message - dot)
    c.ratios()


def provider_of(model: str) -> str:
    return "google" if model.lower().removeprefix("models/").startswith(("gemini", "gemma")) else "anthropic"


def _key(ep: apicount.Endpoint) -> tuple[str, str] | None:
    """The endpoint's key; a placeholder for a compatible server given by base URL; None: neither."""
    for name in ep.key_names:
        value = os.environ.get(name, "").strip()
        if value:
            return name, value
    if os.environ.get(ep.base_var, "").strip():
        return ep.key_names[-1], "unset"
    return None


def measure(model: str) -> Measured:
    """Every figure of one model. KeyRejected and CountFailed of a required request propagate."""
    provider = provider_of(model)
    ep = apicount.endpoint_for(provider, model)
    assert ep is not None
    key = _key(ep)
    out = Measured(provider, ep.model, ep.url)
    if key is None:
        out.failed["*"] = f"{' or '.join(ep.key_names)} / {ep.base_var} not set"
        return out
    counter = Counter(ep, key, out)
    (measure_anthropic if provider == "anthropic" else measure_gemini)(counter)
    return out


def calibration(provider: str, model: str) -> dict[str, Number | None]:
    """What agentcost assumes today for the same figures (the documented calibration)."""
    from agentcost import facts

    ratios: dict[str, Number | None] = {
        kind: facts.token_ratio(provider, model, kind).value for kind in ("prose", "json")
    }
    if provider == "google":
        from agentcost.tokens.rules import GEMINI_PER_REQUEST

        return {"message": 0, "per_request": GEMINI_PER_REQUEST, **ratios}
    auto = facts.anthropic_tool_prompt_tokens(model, "auto")
    any_ = facts.anthropic_tool_prompt_tokens(model, "any")
    family = calib.claude_family(model)
    return {
        "message": calib.ANTHROPIC_MESSAGE_FRAMING,
        "per_request": family.per_request,
        "tool_def": calib.ANTHROPIC_TOOL_DEF_FRAMING,
        "tool_prompt_auto": None if auto is None else auto.value,
        "tool_prompt_any": None if any_ is None else any_.value,
        "forced_tool": calib.ANTHROPIC_FORCED_TOOL_FRAMING,
        "tool_use": calib.tool_use_framing("auto", model),
        "tool_result": calib.ANTHROPIC_TOOL_RESULT_FRAMING,
        "tool_use_and_result": calib.tool_use_framing("auto", model) + calib.ANTHROPIC_TOOL_RESULT_FRAMING,
        **ratios,
    }


def table(results: Sequence[Measured]) -> str:
    """A markdown table: one row per figure, one column per model, ``measured (calibration)``."""
    rows = {k: label for k, label in (*ANTHROPIC_ROWS, *GEMINI_ROWS)}
    lines = ["| figure | " + " | ".join(r.model for r in results) + " |"]
    lines.append("|---|" + "---:|" * len(results))
    for key, label in rows.items():
        cells = []
        for r in results:
            wanted = dict(ANTHROPIC_ROWS if r.provider == "anthropic" else GEMINI_ROWS)
            if key not in wanted:
                cells.append("")
                continue
            value = r.values.get(key)
            shown = "—" if value is None else str(value)
            known = calibration(r.provider, r.model).get(key)
            cells.append(f"{shown} ({'?' if known is None else known})")
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    lines.append("")
    lines.append("measured (today's calibration); — not measured")
    for r in results:
        for what, why in r.failed.items():
            lines.append(f"{r.model}: {what}: {why}")
    return "\n".join(lines)


def _row(r: Measured, value: dict[str, Any], today: date, what: str) -> dict[str, Any]:
    base = r.endpoint.split("/v1")[0]
    return {
        "provider": r.provider,
        "models": [r.model],
        "value": value,
        "url": DOCS_URL[r.provider],
        "read": today,
        "note": f"measured by {SCRIPT} against {base}: {what}",
        "provenance": f"{SCRIPT} output of {today.isoformat()}, {r.requests} requests to {r.endpoint}",
    }


def fragment(results: Sequence[Measured], today: date) -> str:
    """The YAML rows (facts.yaml format) of what was measured, grouped by table."""
    import yaml

    tables: dict[str, list[dict[str, Any]]] = {
        "token_ratio": [],
        "anthropic_tool_prompt_tokens": [],
        "anthropic_framing": [],
        "gemini_framing": [],
    }
    for r in results:
        v = r.values
        if v.get("prose") is not None and v.get("json") is not None:
            ratio = {"prose": str(v["prose"]), "json": str(v["json"])}
            name = "count_tokens" if r.provider == "anthropic" else "countTokens"
            what = f"{name} difference ÷ o200k_base count of the script's prose and JSON samples"
            tables["token_ratio"].append(_row(r, ratio, today, what))
        framing_keys = [k for k, _ in (ANTHROPIC_ROWS if r.provider == "anthropic" else GEMINI_ROWS)]
        framing = {k: _plain(v[k]) for k in framing_keys if k not in _NOT_FRAMING and v.get(k) is not None}
        if r.provider == "anthropic":
            if v.get("tool_prompt_auto") is not None and v.get("tool_prompt_any") is not None:
                prompt = {"auto_none": v["tool_prompt_auto"], "any_tool": v["tool_prompt_any"]}
                what = "tools [a] minus no tools minus a's JSON and the per-tool and tools-block framing"
                tables["anthropic_tool_prompt_tokens"].append(_row(r, prompt, today, what))
            if framing:
                what = "differences of count_tokens requests (constants of agentcost/tokens/anthropic.py)"
                tables["anthropic_framing"].append(_row(r, framing, today, what))
        elif framing:
            what = "differences of countTokens requests (GEMINI_PER_REQUEST, agentcost/tokens/rules.py)"
            tables["gemini_framing"].append(_row(r, framing, today, what))
    kept = {name: rows for name, rows in tables.items() if rows}
    head = (
        f"# {SCRIPT}, {today.isoformat()}: rows for agentcost/facts.yaml (token_ratio,\n"
        "# anthropic_tool_prompt_tokens); the *_framing rows have no table yet: they are the constants\n"
        "# of agentcost/tokens/anthropic.py and GEMINI_PER_REQUEST. Check before pasting.\n"
    )

    class Dumper(yaml.SafeDumper):
        def ignore_aliases(self, data: Any) -> bool:
            return True  # the same date in every row: written out, not as an anchor

        def increase_indent(self, flow: bool = False, indentless: bool = False) -> None:
            super().increase_indent(flow, False)  # lists indented as in facts.yaml

    text = yaml.dump(
        kept, Dumper=Dumper, sort_keys=False, allow_unicode=True, width=100, default_flow_style=None
    )
    return head + text


def _plain(value: Number | None) -> Any:
    return str(value) if isinstance(value, Decimal) else value


def main(argv: Sequence[str] | None = None, today: Callable[[], date] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("models", nargs="*", help=f"default: {' '.join(DEFAULT_MODELS)}")
    parser.add_argument("--write", metavar="FILE", help="also write the facts.yaml rows to FILE")
    args = parser.parse_args(argv)
    if not any(os.environ.get(n, "").strip() for n in (*KEY_VARS, *BASE_VARS)):
        sys.stderr.write(
            f"measure_claude_framing: set {', '.join(KEY_VARS)} (a key) or {' or '.join(BASE_VARS)} "
            "(a compatible server); nothing can be measured without one\n"
        )
        return 2
    results = []
    for model in args.models or DEFAULT_MODELS:
        try:
            results.append(measure(model))
        except apicount.KeyRejected as err:
            sys.stderr.write(f"measure_claude_framing: {model}: the endpoint rejected the key ({err})\n")
            return 2
        except apicount.CountFailed as err:
            provider = provider_of(model)
            out = Measured(provider, model, "")
            out.failed["*"] = str(err)
            results.append(out)
    print(table(results))
    if args.write:
        day = (today or (lambda: datetime.now(UTC).date()))()
        Path(args.write).write_text(fragment(results, day), encoding="utf-8")
        print(f"wrote {args.write}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
