"""The starter scenario ``agentcost init`` writes: a valid, commented scenario file from a few answers.

:func:`starter_text` is pure text: every key it writes is a key of the scenario format (version 1),
explained by a comment beside it, and the file estimates offline as written. The answers
(:class:`Answers`) are checked here, so that the CLI and its questions share one set of rules.
"""

from __future__ import annotations

from decimal import Decimal

from agentcost.infra.record import record

DEFAULT_PATH = "agentcost-scenario.yaml"
"""The file ``agentcost init`` writes when no PATH is given."""

MAX_TOOLS = 50
MAX_ROUNDS = 200


@record
class Answers:
    """What the starter scenario is made from: the model, how many tools it is given, how many tool
    rounds it runs before its final answer, and its budget per run in dollars (0: none)."""

    model: str = "claude-sonnet-4-5"
    tools: int = 3
    rounds: int = 6
    budget_usd: Decimal = Decimal("0.25")

    def problem(self) -> tuple[str, str] | None:
        """The first answer that cannot make a valid scenario, as (key, reason), or None."""
        if not self.model or any(c.isspace() for c in self.model):
            return "model", "a model id has no spaces, e.g. claude-sonnet-4-5 (see `agentcost models`)"
        if not 0 <= self.tools <= MAX_TOOLS:
            return "tools", f"must be a whole number from 0 to {MAX_TOOLS}, got {self.tools}"
        if not 0 <= self.rounds <= MAX_ROUNDS:
            return "rounds", f"must be a whole number from 0 to {MAX_ROUNDS}, got {self.rounds}"
        if self.rounds and not self.tools:
            return "rounds", "with 0 tools there are no tool calls: give 0 rounds, or 1 tool or more"
        if not self.budget_usd.is_finite() or self.budget_usd < 0:
            return "budget", f"must be a dollar amount of 0 (no budget) or more, got {self.budget_usd}"
        return None


# The tools a starter scenario defines, in order: name, description, properties (all strings), and the
# arguments its first call writes. More tools than these are tool_7, tool_8...
_TOOLS: tuple[tuple[str, str, tuple[str, ...], str], ...] = (
    ("Read", "Read a file.", ("path",), "{path: src/orders.py}"),
    ("Edit", "Replace a string in a file.", ("path", "old", "new"), "{path: src/orders.py, old: x, new: y}"),
    ("Bash", "Run a shell command and return its output.", ("command",), "{command: pytest -q}"),
    ("Grep", "Search the repository for a pattern.", ("pattern",), "{pattern: def total}"),
    ("WebSearch", "Search the web.", ("query",), "{query: sodium-ion battery cost}"),
    ("WebFetch", "Fetch a web page as text.", ("url",), "{url: 'https://example.com'}"),
)

_COMMENT_COLUMN = 34


def _line(text: str, comment: str = "") -> str:
    """``text`` with ``# comment`` beside it, aligned."""
    if not comment:
        return text
    return f"{text.ljust(_COMMENT_COLUMN - 1)} # {comment}"


def _tool(number: int) -> tuple[str, str, tuple[str, ...], str]:
    if number < len(_TOOLS):
        return _TOOLS[number]
    name = f"tool_{number + 1}"
    return name, f"Describe what {name} does (the model reads this).", ("input",), "{input: some text}"


def _usd(amount: Decimal) -> str:
    text = format(amount.normalize(), "f")
    return f"{text}0" if "." in text and len(text.split(".")[1]) == 1 else text


def starter_text(answers: Answers, *, path: str = DEFAULT_PATH) -> str:
    """The commented starter scenario for ``answers`` (assumed free of :meth:`Answers.problem`);
    ``path`` is the name the header tells the reader to estimate."""
    tools = [_tool(i) for i in range(answers.tools)]
    out = [
        "# A starter scenario written by `agentcost init`: one run of a tool-using agent loop.",
        "# Edit it to match your agent (sizes are in tokens; text counts as written), then run",
        f"#   agentcost estimate {path}",
        "# Every key is documented in docs/scenario.md (distributions, pacing, subagents, retries...).",
        "# Editor completion: `agentcost schema > scenario.schema.json`, then make the first line",
        "#   # yaml-language-server: $schema=scenario.schema.json",
        _line("version: 1", "the format's version: always 1"),
        _line("name: My agent", "the report's title"),
        _line("model: " + answers.model, "the model id the API takes (`agentcost models` lists them)"),
        _line("system: |-", "the system prompt: text, a size (system: 2500) or {file: path}"),
        "  You are a coding agent working in a repository. Use the tools to read the code, make the",
        "  change, and run the tests. Answer with a short summary of what you changed.",
    ]
    if tools:
        out.append(_line("tools:", "the tool definitions sent with every request"))
        for number, (name, description, params, _) in enumerate(tools):
            props = "{" + ", ".join(f"{p}: {{type: string}}" for p in params) + "}"
            required = f"[{', '.join(params)}]"
            flow = f"    input_schema: {{type: object, properties: {props}, required: {required}}}"
            if number == 0 or len(flow) > 100:
                first = number == 0
                out += [
                    _line(f"  - name: {name}", "the name the model calls it by" if first else ""),
                    _line(
                        f"    description: {description}", "what the model reads about it" if first else ""
                    ),
                    _line("    input_schema:", "the JSON Schema of its arguments" if first else ""),
                    "      type: object",
                    f"      properties: {props}",
                    f"      required: {required}",
                ]
            else:
                out += [f"  - name: {name}", f"    description: {description}", flow]
    else:
        out.append(_line("tools: []", "no tools: the model answers in one request"))
    out += [
        _line("task: >-", "the first user message: text, a size or {file: path}"),
        "  The test tests/test_orders.py::test_total fails: an order without a total is accepted.",
        "  Make POST /orders reject it with a 400.",
    ]
    if answers.rounds:
        out += [
            _line("defaults:", "applied to every round that does not set its own"),
            _line("  call_tokens: 40", "the size of the arguments of a tool call"),
            _line("  result: 800", "the size of what a tool sends back"),
            _line("rounds:", "a round: the model calls a tool, its result is sent back"),
        ]
        name, _, _, example = tools[0]
        out += [
            _line(f"  - tool: {name}", "which of `tools` the model calls"),
            _line(f"    input: {example}", "its arguments as written (instead of call_tokens)"),
            _line("    result: 1500", "what it returns; unsure? {lognormal: {median: 900, p90: 4000}}"),
        ]
        rest = [tools[i % len(tools)][0] for i in range(1, answers.rounds)]
        explained = False
        while rest:
            same = next((i for i, t in enumerate(rest) if t != rest[0]), len(rest))
            out.append(f"  - tool: {rest[0]}")
            if same > 1:
                note = "" if explained else "the same round this many times in a row"
                out.append(_line(f"    repeat: {same}", note))
                explained = True
            rest = rest[same:]
    else:
        out.append(_line("rounds: []", "no tool rounds: one request, then the final answer"))
    out += [
        _line("final: 300", "the answer that ends the loop: a size, text or {file: path}"),
        _line("caching: conversation", "prompt caching: none, prefix (tools, system) or conversation"),
    ]
    if answers.budget_usd:
        out += [
            _line("limits:", "what the run must stay within"),
            _line(f"  budget_usd: {_usd(answers.budget_usd)}", "exit 1 when a run costs more"),
        ]
    else:
        out += [
            "# limits:                        # no budget given; to gate on one, uncomment these lines",
            _line("#   budget_usd: 0.25", "exit 1 when a run costs more"),
        ]
    return "\n".join(out) + "\n"
