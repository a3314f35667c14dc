"""``compare`` on globs and on scenarios too big for a model: a glob compares chat models only and
names the ones it skipped in one note; a model named outright is always compared; a model whose
context window is too small is a row marked OVER, never a failed run (exit 0, no "gate failed")."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from agentcost.cli import run
from agentcost.commands.compare import is_chat_model, select_models, skipped_note
from agentcost.errors import InputError
from agentcost.prices.lookup import resolve_model

AS_OF = datetime(2026, 11, 30, tzinfo=UTC)
BUGFIX = "scenarios/bugfix.yaml"


def cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = run([*args, "--as-of", "2026-11-30"])
    out, err = capsys.readouterr()
    return code, out, err


def chat(model_id: str) -> bool:
    return is_chat_model(resolve_model(model_id, as_of=AS_OF))


def test_chat_models_are_told_from_the_others() -> None:
    for model_id in (
        "gpt-5",
        "gpt-4o",
        "o3",
        "claude-sonnet-4-5",
        "gemini-2.5-flash",
        "gpt-4o-search-preview",
    ):
        assert chat(model_id), model_id
    for model_id in (
        "gpt-4o-transcribe",  # by name: priced per text token only
        "gpt-4o-mini-tts",
        "gpt-image-1",
        "gpt-realtime",  # by its audio output price too
        "gpt-audio",
        "gemini-2.5-flash-tts",
        "gemini-2.5-flash-image",
    ):
        assert not chat(model_id), model_id


def test_a_provider_glob_skips_the_models_that_are_not_chat_models() -> None:
    chosen = select_models(["anthropic/*", "openai/*"], as_of=AS_OF)
    assert "openai/gpt-5" in chosen.models and "anthropic/claude-sonnet-4-5" in chosen.models
    for model in ("openai/gpt-4o-transcribe", "openai/gpt-realtime", "openai/gpt-4o-mini-tts"):
        assert model in chosen.skipped and model not in chosen.models
    assert not set(chosen.models) & set(chosen.skipped)
    assert not any(m.startswith("anthropic/") for m in chosen.skipped)  # every Claude model chats


def test_a_model_named_outright_is_compared_and_not_listed_as_skipped() -> None:
    chosen = select_models(["openai/gpt-4o*", "gpt-4o-transcribe"], as_of=AS_OF)
    assert "gpt-4o-transcribe" in chosen.models  # as typed (issue 30)
    assert "openai/gpt-4o-transcribe" not in chosen.skipped
    assert "openai/gpt-4o-mini-transcribe" in chosen.skipped


def test_a_glob_of_only_other_models_is_an_error_saying_how_to_compare_one() -> None:
    with pytest.raises(InputError, match="matches no chat models, only gpt-realtime") as caught:
        select_models(["gpt-realtime*"], as_of=AS_OF)
    assert caught.value.hint is not None and "--model" in caught.value.hint


def test_the_skipped_note_is_one_short_line() -> None:
    assert skipped_note([]) is None
    assert skipped_note(["openai/tts-x"]) == (
        "skipped 1 model that is not a chat model: tts-x (name one with --model to compare it anyway)"
    )
    many = [f"openai/m{i}" for i in range(9)]
    assert skipped_note(many) == (
        "skipped 9 models that are not chat models: m0, m1, m2, m3, ..."
        " (name one with --model to compare it anyway)"
    )


def test_the_cli_prints_the_skipped_note_once_on_stderr(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = cli(capsys, "compare", BUGFIX, "-m", "openai/gpt-4o*", "-f", "json")
    assert code == 0, err
    notes = [line for line in err.splitlines() if "skipped" in line]
    assert len(notes) == 1 and notes[0].startswith("agentcost: note: skipped ")
    assert "gpt-4o-transcribe" in notes[0] or "..." in notes[0]
    models = [m["model"] for m in json.loads(out)["models"]]
    assert "gpt-4o" in models and not any("transcribe" in m or "tts" in m for m in models)


def test_an_explicitly_named_non_chat_model_is_compared(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = cli(capsys, "compare", BUGFIX, "-m", "gpt-5", "-m", "gpt-4o-transcribe", "-f", "json")
    assert code == 0, err
    assert "skipped" not in err
    assert {m["model"] for m in json.loads(out)["models"]} == {"gpt-5", "gpt-4o-transcribe"}


def test_a_scenario_too_big_for_one_window_exits_0_with_the_row_marked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "big.yaml"
    path.write_text("version: 1\nmodel: gpt-5\ntask: {tokens: 150000}\nfinal: 10\n", encoding="utf-8")
    code, out, err = cli(capsys, "compare", str(path), "-m", "gpt-4o", "-m", "gpt-5", "-f", "json")
    assert code == 0, err
    assert "gate failed" not in err
    data = json.loads(out)
    assert {m["model"]: m["fits_context"] for m in data["models"]} == {"gpt-5": True, "gpt-4o": False}
    assert [(g["name"], g["tripped"]) for g in data["gates"]] == [("context_window", False)] * 2
    assert not any("exceeds the context window" in w for w in data["warnings"])
    code, out, err = cli(capsys, "compare", str(path), "-m", "gpt-4o", "-m", "gpt-5")
    assert code == 0 and "gate failed" not in err
    assert "OVER" in out
    # estimate keeps its context gate
    code, _, err = cli(capsys, "estimate", str(path), "--model", "gpt-4o")
    assert code == 1 and "gate failed" in err
