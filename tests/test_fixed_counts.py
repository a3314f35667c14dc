"""Chat role names have fixed token counts: a scenario given as token counts never builds an encoding."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

import agentcost.tokens.memo as memo_module
from agentcost.loop.estimate import estimate
from agentcost.tokens.encodings import get_encoding
from agentcost.tokens.memo import ROLE_COUNTS, TokenMemo


@pytest.mark.parametrize("encoding", sorted(ROLE_COUNTS))
def test_role_counts_are_the_encodings_own(encoding: str) -> None:
    built = get_encoding(encoding)
    assert ROLE_COUNTS[encoding] == {role: len(built.encode_ordinary(role)) for role in ROLE_COUNTS[encoding]}


def test_a_scenario_of_token_counts_builds_no_encoding(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def refuse(name: str) -> None:
        raise AssertionError(f"the {name} encoding was built")

    monkeypatch.setattr(memo_module, "get_encoding", refuse)
    monkeypatch.setattr(memo_module, "DEFAULT_MEMO", TokenMemo(persistent=False))
    monkeypatch.setenv("AGENTCOST_CACHE", "off")
    path = tmp_path / "counts.yaml"
    path.write_text(
        "version: 1\nname: counts only\nmodel: gpt-4o\n"
        "system: {tokens: 500}\ntask: {tokens: 50}\nfinal: {tokens: 40}\n",
        encoding="utf-8",
    )
    est = estimate(path, as_of=datetime(2026, 11, 30, tzinfo=UTC))
    # one request: system 3 + role 1 + 500, user 3 + role 1 + 50, the reply's priming 3 (the cookbook's
    # framing, tokens/openai.py); the answer is 40 tokens of text
    [row] = est.ledger.rows
    assert (row.usage.input_tokens, row.usage.output_tokens) == (561, 40)
