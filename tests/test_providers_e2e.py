"""Issue 15 acceptance: any provider genai-prices knows, end to end through the CLI.

Each model below is estimated from the command line on the shipped bugfix scenario; its JSON names
the provider, the price row's provider, the host, the counting family and whether counts are exact;
and the dollars of every request equal genai-prices' own ``calc_price`` on that request's usage at
the report's timestamp (the row found by its provider and id in genai-prices' data). ``compare``
takes a mix of them, sorts by cost and marks each row exact or approximate.
"""

from __future__ import annotations

import json
from datetime import datetime
from decimal import Decimal
from typing import Any

import pytest

from agentcost.cli import run
from agentcost.render.schema import report_schema
from tests.conftest import ROOT, validate_json

AS_OF = "2026-11-30"
SCENARIO = "scenarios/bugfix.yaml"

# (model as a user writes it, expected provider, expected host, expected counting family)
MODELS = [
    pytest.param(
        "us.anthropic.claude-sonnet-4-5-20250929-v1:0", "aws", "bedrock", "claude", id="bedrock-claude"
    ),
    pytest.param("azure/gpt-4o", "azure", "azure", "openai", id="azure-gpt"),
    pytest.param("vertex_ai/gemini-2.5-pro", "google", "vertex", "gemini", id="vertex-gemini"),
    pytest.param("deepseek-chat", "deepseek", None, "deepseek", id="deepseek"),
    pytest.param("mistral-large-latest", "mistral", None, "mistral", id="mistral-large"),
    pytest.param("grok-4", "x-ai", None, "grok", id="grok"),
    pytest.param("groq/llama-3.3-70b-versatile", "groq", None, "llama3", id="groq-llama"),
    pytest.param("qwen.qwen3-coder-480b-a35b-v1:0", "aws", "bedrock", "qwen3", id="bedrock-qwen"),
]


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = run(list(args))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def here(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    monkeypatch.setenv("AGENTCOST_CACHE", "off")


def _estimate(capsys: pytest.CaptureFixture[str], model: str) -> dict[str, Any]:
    code, out, err = _run(
        capsys, "estimate", SCENARIO, "--set", f"model={model}", "--as-of", AS_OF, "--format", "json"
    )
    assert (code, err) == (0, ""), err
    data: dict[str, Any] = json.loads(out)
    return data


def _genai_prices_usd(data: dict[str, Any], request: dict[str, Any]) -> Decimal:
    """genai-prices' ``calc_price`` on one request's usage, on the row the report names, at its time."""
    import genai_prices
    from genai_prices import data_snapshot

    provider = next(p for p in data_snapshot.get_snapshot().providers if p.id == data["price_provider"])
    info = next(m for m in provider.models if m.id == data["model"])
    usage = genai_prices.Usage(
        input_tokens=request["input_tokens"],
        output_tokens=request["output_tokens"],
        cache_read_tokens=request["cache_read_tokens"],
        cache_write_tokens=request["cache_write_tokens"],
    )
    when = datetime.fromisoformat(data["prices"]["as_of"])
    windows = data["prices"]["time_of_day"]
    if windows and data["prices"]["in_time_window"] is None:
        # a date alone is priced at the day's standard rates: DeepSeek's, in genai-prices' window
        start = datetime.strptime(windows[0]["start"], "%H:%M")
        when = when.replace(hour=start.hour, minute=start.minute)
    result = info.calc_price(usage, provider, genai_request_timestamp=when)
    return Decimal(result.total_price)


@pytest.mark.usefixtures("here", "no_ctok")
@pytest.mark.parametrize(("model", "provider", "host", "family"), MODELS)
def test_estimate_any_provider(
    model: str,
    provider: str,
    host: str | None,
    family: str,
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, err = _run(capsys, "estimate", SCENARIO, "--set", f"model={model}", "-q", "--as-of", AS_OF)
    assert (code, err) == (0, ""), err
    assert Decimal(out.strip().lstrip("$")) > 0

    data = _estimate(capsys, model)
    validate_json(data, report_schema())
    assert data["model_ref"] == model
    assert (data["provider"], data["host"], data["counts"]["family"]) == (provider, host, family)
    counts = data["counts"]
    assert counts["exact"] is (not counts["approximate"])
    assert counts["method"] and counts["family_method"] and counts["source"]
    assert data["caching"]["kind"] in ("automatic-prefix", "explicit", "implicit", "none", "unknown")
    assert data["requests"]
    for request in data["requests"]:
        assert Decimal(request["cost_usd"]) == _genai_prices_usd(data, request), request


@pytest.mark.usefixtures("here", "no_ctok")
def test_approximate_note_names_the_family(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _run(capsys, "estimate", SCENARIO, "--set", "model=deepseek-chat", "--as-of", AS_OF)
    assert (code, err) == (0, ""), err
    text = " ".join(out.split())
    assert "approximate: DeepSeek counted as o200k_base ×" in text
    # DeepSeek publishes no minimum cacheable length: no cache reads are assumed, and the report says so
    assert "Caching not modelled: deepseek publishes no minimum; costs are an upper bound" in text
    # its prices follow the time of day: a date alone is priced at the standard rates, and says so
    assert (
        "Deepseek prices follow the time of day: standard rates used; off-peak 16:30-00:30 UTC is 50% off"
        " — give --as-of with a time to price it. Source: genai-prices" in text
    )


@pytest.mark.usefixtures("here", "no_ctok")
def test_claude_on_bedrock_caches_with_breakpoints(capsys: pytest.CaptureFixture[str]) -> None:
    data = _estimate(capsys, "us.anthropic.claude-sonnet-4-5-20250929-v1:0")
    caching = data["caching"]
    assert (caching["kind"], caching["mode"], caching["note"]) == ("explicit", "conversation", None)
    assert caching["min_cacheable_tokens"] == 1024  # Anthropic's minimum for Sonnet 4.5
    assert data["totals"]["cache_read_tokens"] > 0


@pytest.mark.usefixtures("here", "no_ctok")
def test_azure_openai_caches_automatically(capsys: pytest.CaptureFixture[str]) -> None:
    data = _estimate(capsys, "azure/gpt-4o")
    caching = data["caching"]
    assert (caching["kind"], caching["mode"], caching["min_cacheable_tokens"]) == (
        "automatic-prefix",
        "conversation",
        1024,
    )
    assert data["price_provider"] == "openai"  # genai-prices prices Azure's gpt-4o with OpenAI's row


@pytest.mark.usefixtures("here", "no_ctok")
def test_caching_a_host_without_it_is_an_input_error(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _run(
        capsys,
        "estimate",
        SCENARIO,
        "--set",
        "model=groq/llama-3.3-70b-versatile",
        "--set",
        "caching=conversation",
        "--as-of",
        AS_OF,
    )
    assert code == 2 and out == ""
    assert "has no prompt caching" in err and "caching: none" in err
    assert "Traceback" not in err


@pytest.mark.usefixtures("here", "no_ctok")
def test_chosen_caching_on_an_unpublished_minimum_says_so(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _run(
        capsys,
        "estimate",
        SCENARIO,
        "--set",
        "model=deepseek-chat",
        "--set",
        "caching=conversation",
        "--as-of",
        AS_OF,
        "--format",
        "json",
    )
    assert (code, err) == (0, "")
    data = json.loads(out)
    assert data["caching"]["mode"] == "conversation" and data["caching"]["default"] is False
    assert "no minimum" in data["caching"]["note"]
    assert data["totals"]["cache_read_tokens"] > 0


COMPARED = [
    "us.anthropic.claude-sonnet-4-5-20250929-v1:0",
    "azure/gpt-4o",
    "deepseek-chat",
    "mistral-large-latest",
    "grok-4",
]
PROVIDERS = ("aws", "azure", "deepseek", "mistral", "x-ai")
FAMILIES = {"aws": "claude", "azure": "openai", "deepseek": "deepseek", "mistral": "mistral", "x-ai": "grok"}


@pytest.mark.usefixtures("here", "no_ctok")
def test_compare_a_mix_of_providers(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["compare", SCENARIO, "--as-of", AS_OF, "--format", "json"]
    for model in COMPARED:
        args += ["-m", model]
    code, out, err = _run(capsys, *args)
    assert (code, err) == (0, ""), err
    data = json.loads(out)
    validate_json(data, report_schema())
    rows = data["models"]
    assert [r["provider"] for r in rows if r["provider"] in PROVIDERS] == [r["provider"] for r in rows]
    assert {r["provider"] for r in rows} == set(PROVIDERS)
    costs = [Decimal(r["cost_usd"]) for r in rows]
    assert costs == sorted(costs)
    for row, estimate in zip(rows, data["estimates"], strict=True):  # exact or approximate, and why
        assert (estimate["provider"], estimate["model"]) == (row["provider"], row["model"])
        assert isinstance(row["approximate"], bool)
        assert estimate["counts"]["exact"] is (not row["approximate"])
        assert estimate["counts"]["family"] == FAMILIES[row["provider"]]
    assert any(r["approximate"] for r in rows) and any(not r["approximate"] for r in rows)

    code, out, err = _run(capsys, *args[:-2])  # the table: approximate rows marked
    assert (code, err) == (0, ""), err
    assert "*" in out


# --- the facts behind it: host mechanics as data ------------------------------------------------------


@pytest.mark.parametrize(
    ("provider", "model", "kind", "minimum"),
    [
        ("aws", "claude-sonnet-4-5-20250929", "explicit", 1024),  # Bedrock's row, Anthropic's minimum
        ("google", "claude-sonnet-4-5", "explicit", 1024),  # Claude on Vertex AI
        ("google", "gemini-2.5-pro", "implicit", 2048),
        ("azure", "gpt-4o", "automatic-prefix", 1024),  # Azure's own page
        ("azure", "claude-sonnet-4-5", "explicit", 1024),  # Claude in Foundry
        ("anthropic", "claude-sonnet-4-5", "explicit", 1024),
        ("openai", "gpt-5", "automatic-prefix", 1024),
        ("deepseek", "deepseek-chat", "automatic-prefix", None),  # no minimum published
        ("x-ai", "grok-4-0709", "automatic-prefix", None),
        ("groq", "openai/gpt-oss-120b", "automatic-prefix", None),
        ("groq", "llama-3.3-70b-versatile", "none", None),
        ("aws", "llama3-3-70b-instruct", "unknown", None),  # no page read: never assumed
        ("cerebras", "gpt-oss-120b", "unknown", None),
    ],
)
def test_host_mechanics(provider: str, model: str, kind: str, minimum: int | None) -> None:
    from agentcost import facts

    mechanics = facts.host_mechanics(provider, model)
    assert mechanics.caching == kind
    assert (mechanics.min_tokens.value if mechanics.min_tokens is not None else None) == minimum
    for fact in (mechanics.kind, mechanics.min_tokens, mechanics.ttl_seconds, mechanics.writes_extra):
        assert fact is None or (fact.url.startswith("https://") and fact.read is not None)


def test_host_tables_never_fall_back_to_the_maker() -> None:
    """Anthropic's own batch API is not Bedrock's: a host fact is read for the host only."""
    from agentcost import facts

    assert facts.host_mechanics("anthropic", "claude-sonnet-4-5").batch is not None
    assert facts.host_mechanics("aws", "claude-sonnet-4-5").batch is None


def test_every_host_row_has_a_public_source() -> None:
    from agentcost import facts

    for table in facts.HOST_TABLES:
        rows = facts.table_rows(table)
        assert rows, table
        for row in rows:
            assert str(row["url"]).startswith("https://") and row["read"] is not None, row
            if table == "caching_kind":
                assert row["value"] in facts.CACHING_KINDS[:-1], row  # unknown is the absence of a row


@pytest.mark.parametrize(
    ("windows", "when", "inside"),
    [
        ((("00:30", "16:30"),), "2026-11-30T00:00:00+00:00", False),
        ((("00:30", "16:30"),), "2026-11-30T00:30:00+00:00", True),
        ((("00:30", "16:30"),), "2026-11-30T16:30:00+00:00", False),
        ((("01:00", "04:00"), ("06:00", "10:00")), "2026-11-30T07:15:00+00:00", True),
        ((("22:00", "02:00"),), "2026-11-30T01:00:00+00:00", True),  # past midnight
        ((("22:00", "02:00"),), "2026-11-30T03:00:00+02:00", True),  # 01:00 UTC
        ((), "2026-11-30T03:00:00+00:00", None),
    ],
)
def test_time_of_day_window(windows: tuple[tuple[str, str], ...], when: str, inside: bool | None) -> None:
    from agentcost.report.build import in_time_window

    assert in_time_window(windows, datetime.fromisoformat(when)) is inside


@pytest.mark.usefixtures("here")
def test_a_scenario_names_any_provider(capsys: pytest.CaptureFixture[str]) -> None:
    """``provider:`` in a scenario takes any genai-prices provider (or alias); an unknown one is an
    input error at its line that points to the listing, and a malformed one is refused by its shape."""
    same = _run(capsys, "estimate", SCENARIO, "--set", "model=deepseek-chat", "--as-of", AS_OF, "-q")
    named = _run(
        capsys, "estimate", SCENARIO, "--set", "model=deepseek-chat", "--set", "provider=deepseek",
        "--as-of", AS_OF, "-q",
    )  # fmt: skip
    assert same[0] == named[0] == 0 and same[1] == named[1]
    code, _, err = _run(capsys, "estimate", SCENARIO, "--set", "provider=nosuch", "--as-of", AS_OF)
    assert code == 2
    assert "provider: unknown provider 'nosuch' ('agentcost models --all' lists every provider)" in err
    code, _, err = _run(capsys, "estimate", SCENARIO, "--set", "provider=a b", "--as-of", AS_OF)
    assert code == 2 and "--set provider=a b: must be an id of letters, digits, '-', '_' and '.'" in err
