"""Lead with the answer (issue 14): an estimate prints its table, then at most six lines (the total,
the budget, the price source with one date, at most three short notes); everything else is behind
``--verbose`` and always in the JSON ``notes``; warnings always show; what users see cites public
pages, never agentcost's internal notes or ``docs/`` paths a pip user does not have."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path

import pytest
from rich.console import Console

from agentcost import facts
from agentcost.cli import run
from agentcost.loop.estimate import estimate
from agentcost.render.markdown import render_markdown
from agentcost.render.notes import notes
from agentcost.render.schema import report_schema
from agentcost.report.build import build_report
from agentcost.report.notes import MAX_SHORT_NOTES, estimate_notes
from tests.conftest import validate_json

ROOT = Path(__file__).resolve().parent.parent
BUGFIX = ROOT / "scenarios" / "bugfix.yaml"
AS_OF = "2026-11-30"
INTERNAL = ("facts.yaml", "pricing-facts", "shared/", "§", "AP-TOOL", "docs/limits.md", "docs/scenario.md")


def cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = run(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def under_table(out: str) -> list[str]:
    """The lines after the table's bottom border."""
    lines = out.rstrip("\n").splitlines()
    last = max(i for i, line in enumerate(lines) if line.startswith("└"))
    return lines[last + 1 :]


@pytest.mark.parametrize("columns", ["80", "200"])
def test_bugfix_prints_the_table_and_at_most_six_lines(
    columns: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, fixed_terminal: None
) -> None:
    monkeypatch.setenv("COLUMNS", columns)
    code, out, err = cli(capsys, "estimate", str(BUGFIX), "--as-of", AS_OF)
    assert (code, err) == (0, "")
    lines = under_table(out)
    assert len(lines) <= 6, lines
    assert lines[:2] == [
        "Total $0.0286 per run: 9 requests, 83.9% of input tokens read from cache.",
        "Budget $0.1000 (limits.budget_usd): within budget, headroom $0.0714.",
    ]
    # the price source, then the counter every figure depends on (issue 29); 80 columns wrap it
    prices = (
        "Prices: genai-prices 0.2.3, in force on 2026-11-30. Counter: o200k_base × ratio. Details: --verbose."
    )
    assert " ".join(lines[2:4] if columns == "80" else lines[2:3]) == prices
    assert "Token counts marked * are approximate: Claude's tokenizer is not public." in lines
    assert "current on" not in out and "T00:00:00" not in out  # one date: the day in force
    for detail in ("Model:", "Caching:", "Cheapest for this pacing", "Note:", "× 1.06"):
        assert detail not in out


def test_verbose_shows_every_detail_once(capsys: pytest.CaptureFixture[str], fixed_terminal: None) -> None:
    code, out, _ = cli(capsys, "estimate", str(BUGFIX), "--as-of", AS_OF, "-v")
    assert code == 0
    text = " ".join(" ".join(under_table(out)).split())  # lines Rich wrapped joined again
    for detail in (
        "Total $0.0286 = input $0.0173 + output $0.0113.",
        "Price data: genai-prices 0.2.3, last known current on 2026-11-30;",
        "Model: Claude Sonnet 4.5 [claude-sonnet-4-5], provider anthropic;",
        "Caching: conversation (provider default), TTL 5m;",
        "Cheapest for this pacing: 5m TTL at $0.0286;",
        "Token counts (approximate, marked *):",
        "hidden tool-use system prompt: 496 tokens for tool_choice auto",
        "No pacing set: requests run back to back, so the cache never expires.",
    ):
        assert text.count(detail) == 1, detail
    assert "--verbose" not in text


def test_json_carries_every_note_with_its_level(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, _ = cli(capsys, "estimate", str(BUGFIX), "--as-of", AS_OF, "-f", "json")
    assert code == 0
    data = json.loads(out)
    validate_json(data, report_schema())
    levels = {n["kind"]: n["level"] for n in data["notes"]}
    assert levels["total"] == levels["budget"] == levels["prices"] == "essential"
    assert levels["model"] == levels["caching"] == levels["count_method"] == "detail"
    short = [
        n
        for n in data["notes"]
        if n["level"] == "essential" and n["kind"] not in ("total", "budget", "prices")
    ]
    assert [n["kind"] for n in short] == ["approximate", "pacing"]
    assert data["uncertain"] is False and data["budget"]["overrun"] is None


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "s.yaml"
    path.write_text(text, encoding="utf-8")
    return path


# gpt-5 with three warnings: a 1-hour TTL OpenAI does not sell, a run cut by max_rounds, and a request
# over the context window
WARNED = """\
version: 1
model: gpt-5
cache_ttl: 1h
task: {tokens: 500000}
rounds:
  - {tool: Read, call_tokens: 10, result: 100, repeat: 3}
final: 10
limits: {max_rounds: 1}
"""


def test_warnings_always_show_the_first_and_how_many_more(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], fixed_terminal: None
) -> None:
    path = write(tmp_path, WARNED)
    report = build_report(estimate(path, as_of=datetime(2026, 11, 30, tzinfo=UTC)))
    assert len(report.warnings) == 3
    code, out, err = cli(capsys, "estimate", str(path), "--as-of", AS_OF)
    assert code == 1  # the context window is also a gate
    lines = under_table(out)
    assert len(lines) <= 6, lines
    # the table's warnings go to stderr, every one (issue 30): none on stdout
    assert "Warning" not in out and "more warnings" not in out
    assert [line for line in err.splitlines() if line.startswith("agentcost: warning: ")] == [
        f"agentcost: warning: {w}" for w in report.warnings
    ]
    _, out, err = cli(capsys, "estimate", str(path), "--as-of", AS_OF, "--verbose")
    assert "Warning" not in out and err.count("agentcost: warning: ") == 3
    _, out, err = cli(capsys, "estimate", str(path), "--as-of", AS_OF, "-f", "markdown")
    assert out.count("> [!WARNING]") == 3 and "agentcost: warning: " not in err  # in the document


def test_short_notes_are_at_most_three_and_essential_first() -> None:
    report = build_report(
        estimate(ROOT / "scenarios" / "uncertain-steps.yaml", as_of=datetime(2026, 11, 30, tzinfo=UTC))
    )
    every = estimate_notes(report)
    short = [n for n in every if n.level == "essential" and n.kind not in ("total", "budget", "prices")]
    assert len(short) == MAX_SHORT_NOTES
    assert [n.kind for n in short] == ["distributions", "overrun", "approximate"]
    assert [n.kind for n in every if n.kind == "pacing"] == ["pacing"]  # demoted to a detail, not lost
    assert next(n for n in every if n.kind == "pacing").level == "detail"


def test_budget_verdict_in_colour_and_approximate_counts_dim() -> None:
    as_of = datetime(2026, 11, 30, tzinfo=UTC)
    within = build_report(estimate(BUGFIX, as_of=as_of))
    over = build_report(estimate(BUGFIX, as_of=as_of, budget_usd=Decimal("0.01")))

    def styles(report: object, words: str) -> set[str]:
        text = notes(report)  # type: ignore[arg-type]
        start = text.plain.index(words)
        return {str(s.style) for s in text.spans if s.start <= start < s.end}

    assert "green" in styles(within, "within budget")
    assert "bold red" in styles(over, "over budget")
    assert "dim" in styles(within, "Token counts marked * are approximate")
    console = Console(width=80, record=True, color_system=None)
    console.print(notes(over))
    assert "Budget $0.0100 (--budget): over budget by $0.0186." in console.export_text()


def test_markdown_keeps_the_details_in_a_details_block() -> None:
    md = render_markdown(build_report(estimate(BUGFIX, as_of=datetime(2026, 11, 30, tzinfo=UTC))))
    body, details = md.split("<details><summary>Assumptions</summary>")
    assert "Budget $0.1000 (limits.budget_usd): within budget, headroom $0.0714." in body
    assert "Model: Claude Sonnet 4.5" not in body
    assert "- Model: Claude Sonnet 4.5 \\[claude-sonnet-4-5\\]" in details
    assert md.rstrip().endswith(
        "<sub>Prices: genai-prices 0.2.3, in force on 2026-11-30. Counter: o200k_base × ratio.</sub>"
    )


# --- citations users can open ---------------------------------------------------------------------


def test_notes_and_prices_cite_public_pages_only(
    capsys: pytest.CaptureFixture[str], fixed_terminal: None
) -> None:
    for scenario in ("bugfix.yaml", "mcp-40-tools.yaml", "research.yaml", "chat-support.yaml"):
        code, out, _ = cli(capsys, "estimate", str(ROOT / "scenarios" / scenario), "--as-of", AS_OF, "-v")
        assert code == 0
        for word in INTERNAL:
            assert word not in " ".join(under_table(out)), (scenario, word)
    for model in ("claude-sonnet-4-5", "gpt-5", "gemini-2.5-pro"):
        code, out, _ = cli(capsys, "prices", model, "--as-of", AS_OF, "--verbose")
        assert code == 0
        for word in INTERNAL:
            assert word not in out, (model, word)
        assert "Source: https://" in " ".join(out.split())
        code, out, _ = cli(capsys, "prices", model, "--as-of", AS_OF, "-f", "json")
        for fact in json.loads(out)["facts"]:
            assert fact["url"] is None or fact["url"].startswith("https://")
            assert not any(word in fact["source"] for word in INTERNAL), fact


def test_facts_keep_their_provenance_for_maintainers_only() -> None:
    fact = facts.anthropic_tool_prompt_tokens("claude-sonnet-4-5", "auto")
    assert fact is not None
    assert fact.url == "https://platform.claude.com/docs/en/agents-and-tools/tool-use/overview#pricing"
    assert fact.provenance is not None and "§C.1" in fact.provenance
    assert "§" not in fact.source and "§" not in fact.cite
    assert fact.cite == f"{fact.url}, read 2026-07-13"
    for table in facts.TABLES:
        for row in facts.table_rows(table):
            assert str(row["url"]).startswith("https://"), row
            assert not any(word in str(row["source"]) for word in INTERNAL), row


@pytest.mark.parametrize(
    "command", ["estimate", "compare", "diff", "models", "prices", "replay", "calibrate", "schema"]
)
def test_help_says_the_thing_instead_of_pointing_at_docs(
    command: str, capsys: pytest.CaptureFixture[str], fixed_terminal: None
) -> None:
    assert run([command, "--help"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert not re.search(r"docs/\w+\.md", out), out


def test_compare_leads_with_the_answer_and_keeps_its_method_behind_verbose(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """compare: the cheapest model, the price source and the marks by default; how each column is
    derived and each model's caching with -v. Both carry the same table."""
    monkeypatch.setenv("COLUMNS", "100")
    args = ["compare", str(BUGFIX), "-m", "gpt-5", "-m", "claude-sonnet-4-5", "--as-of", AS_OF]
    code, short, _ = cli(capsys, *args)
    assert code == 0
    assert short.startswith("Within budget $0.1000 per run (limits.budget_usd): both models compared.\n")
    lines = [line for line in under_table(short) if not line.startswith("Not shown at")]
    assert lines[0].startswith("Cheapest of 2 models: gpt-5 (openai) at $0.0109 per run of 9 requests")
    assert (
        "Prices: genai-prices 0.2.3, in force on 2026-11-30. Counters: o200k_base (gpt-5), o200k_base × ratio"
        " (claude-sonnet-4-5). Details: --verbose." in " ".join(" ".join(lines).split())
    )
    assert not any(line.startswith(("Scenario:", "Caching:")) for line in lines)
    code, long, _ = cli(capsys, *args, "-v")
    assert code == 0
    assert long.split("Cheapest")[0] == short.split("Cheapest")[0]  # the same table
    assert "Caching: conversation for gpt-5, claude-sonnet-4-5." in long
    assert "Per request = total / requests" in long
