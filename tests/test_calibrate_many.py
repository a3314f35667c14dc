"""``agentcost calibrate DIR`` over many runs: one scenario whose --simulate reproduces the corpus."""

from __future__ import annotations

import json
import math
import random
from collections import Counter
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path

import pytest

from agentcost.commands import replay_many as many
from agentcost.commands.calibrate_many import calibrate_many, fit, ks_lognormal

AS_OF = datetime(2026, 11, 30, tzinfo=UTC)
NOW = datetime(2026, 12, 1, tzinfo=UTC)
SYSTEM = "You are a coding agent. Read files, run commands and edit code until the tests pass."
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": name,
            "description": f"{name} a file or run a command in the repository.",
            "parameters": {"type": "object", "properties": {"arg": {"type": "string"}}, "required": ["arg"]},
        },
    }
    for name in ("read_file", "run_bash", "edit_file")
]


def _run(rng: random.Random, steps: int, sigma: float = 0.25, model: str = "gpt-4o") -> list[str]:
    """One OpenAI Chat Completions log: ``steps`` tool rounds, then a final answer, with usage."""
    messages: list[dict[str, object]] = [
        {"role": "system", "content": SYSTEM},
        {"role": "user", "content": "Fix the failing test in tests/test_orders.py. " * rng.randint(1, 4)},
    ]
    prompt = 260 + rng.randint(0, 30)
    lines = []
    for k in range(steps + 1):
        if k < steps:
            tool = rng.choices(["read_file", "run_bash", "edit_file"], weights=[6, 3, 1])[0]
            args = json.dumps({"arg": "src/orders.py" + " x" * rng.randint(0, 40)})
            out = 20 + rng.randint(0, 60)
            msg: dict[str, object] = {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {"id": f"call_{k}", "type": "function", "function": {"name": tool, "arguments": args}}
                ],
            }
        else:
            out = 150 + rng.randint(0, 200)
            msg = {"role": "assistant", "content": "Done: the order total is now required."}
        usage = {"prompt_tokens": prompt, "completion_tokens": out, "total_tokens": prompt + out}
        request = {"model": model, "messages": list(messages), "tools": TOOLS}
        response = {
            "object": "chat.completion",
            "model": model,
            "choices": [{"message": msg}],
            "usage": usage,
        }
        lines.append(json.dumps({"request": request, "response": response}))
        if k < steps:
            result = max(5, round(rng.lognormvariate(6.5, sigma)))
            messages += [msg, {"role": "tool", "tool_call_id": f"call_{k}", "content": "ok " * 8}]
            prompt += out + result + 12
    return lines


RUNS = 100


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """100 runs in three folders: 3, 5, 8, 12 or 20 tool rounds (10/20/30/25/15% of the runs, shuffled),
    result sizes lognormal around 665 tokens; a README the walk ignores."""
    root = tmp_path_factory.mktemp("runs")
    rng = random.Random(17)
    counts = [3] * 10 + [5] * 20 + [8] * 30 + [12] * 25 + [20] * 15
    rng.shuffle(counts)
    for i, steps in enumerate(counts):
        sub = root / f"batch{i % 3}"
        sub.mkdir(exist_ok=True)
        (sub / f"run{i:03d}.jsonl").write_text("\n".join(_run(rng, steps)) + "\n", encoding="utf-8")
    (root / "README.txt").write_text("not a log\n", encoding="utf-8")
    return root


def test_simulating_the_calibrated_scenario_reproduces_the_corpus_percentiles(corpus: Path) -> None:
    from agentcost.loop.estimate import estimate_scenario
    from agentcost.loop.simulate import simulate
    from agentcost.scenario.load import read_scenario

    options = many.Options(as_of=AS_OF)
    replayed = many.replay_many([str(corpus)], options)
    assert len(replayed.runs) == RUNS
    cal = calibrate_many([str(corpus)], options, now=NOW)
    assert (cal.runs, cal.skipped) == (RUNS, 0)
    assert (cal.p50_usd, cal.p90_usd) == (replayed.cost.p50, replayed.cost.p90)
    path = corpus.parent / "calibrated.yaml"
    path.write_text(cal.text, encoding="utf-8")
    est = estimate_scenario(read_scenario(path), as_of=AS_OF, compare=False)
    sim = simulate(est, 2000, seed=0, sensitivity=False)
    for ours, theirs in ((sim.cost.p50, replayed.cost.p50), (sim.cost.p90, replayed.cost.p90)):
        assert abs(ours - theirs) / theirs < Decimal("0.05"), (ours, theirs)
    assert "# Model: gpt-4o (all 100 runs)." in cal.text
    assert "prefix (system prompt and tool definitions): the same in all 100 runs, " in cal.text
    assert "repeat: {empirical: [" in cal.text


def test_fit_chooses_lognormal_when_it_fits_and_empirical_when_not() -> None:
    rng = random.Random(3)
    lognormal = Counter(max(1, round(rng.lognormvariate(6.0, 0.8))) for _ in range(400))
    chosen = fit(lognormal)
    assert chosen.kind == "lognormal" and chosen.ks is not None and chosen.ks < 1.36 / 20
    bimodal = Counter([10] * 200 + [5000] * 200)
    assert fit(bimodal).kind == "empirical"
    assert fit(Counter([7] * 50)).text == "{fixed: 7}"
    assert fit(Counter(range(1, 11))).kind == "empirical"  # fewer than 30 values
    many_values = fit(Counter(range(1, 5001)), family=False)  # 1,000 nearest-rank quantiles kept
    kept = [int(v) for v in many_values.text.split("[")[1].rstrip("]}").replace("\n", " ").split(",")]
    assert (len(kept), kept[0], kept[1], kept[-1]) == (1000, 3, 8, 4998)
    # one value 1: the draws at most 1 are X < 1.5, those below are X < 0.5; the gap at 1 is the larger
    below_1_5 = 0.5 * (1 + math.erf(math.log(1.5) / math.sqrt(2)))
    assert ks_lognormal(Counter({1: 1}), 0.0, 1.0) == pytest.approx(1 - below_1_5)


def test_cli_writes_the_scenario_and_keeps_one_file_as_before(
    corpus: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from agentcost.cli import run
    from agentcost.commands.conversations import calibrate_log
    from agentcost.replay import load_trace

    out = tmp_path / "fitted.yaml"
    assert run(["calibrate", str(corpus / "batch0"), "-o", str(out), "--as-of", "2026-11-30"]) == 0
    err = capsys.readouterr().err
    assert f"wrote {out}: 34 runs; replayed cost per run p50 $" in err
    assert out.read_text(encoding="utf-8").splitlines()[4].startswith("# Fixed prefix")
    assert run(["calibrate", f"{corpus}/batch1/*.jsonl", "-o", str(out), "--as-of", "2026-11-30"]) == 2
    assert "the file exists" in capsys.readouterr().err
    one = sorted((corpus / "batch0").iterdir())[0]
    assert run(["calibrate", str(one), "--as-of", "2026-11-30"]) == 0
    single = calibrate_log(load_trace(one), as_of=AS_OF).text
    got = capsys.readouterr().out
    assert got.split("\n", 1)[1] == single.split("\n", 1)[1]  # the first line holds the time


def test_mixed_models_are_named_and_bad_files_skipped(tmp_path: Path) -> None:
    rng = random.Random(5)
    for i, model in enumerate(["gpt-4o"] * 4 + ["gpt-4o-mini"] * 2):
        (tmp_path / f"r{i}.jsonl").write_text(
            "\n".join(_run(rng, 3 + i, model=model)) + "\n", encoding="utf-8"
        )
    (tmp_path / "broken.json").write_text("{", encoding="utf-8")
    cal = calibrate_many([str(tmp_path)], many.Options(as_of=AS_OF), now=NOW)
    assert (cal.runs, cal.skipped) == (6, 1)
    assert "# Model: gpt-4o (4 of 6 runs; others: gpt-4o-mini (2))." in cal.text
    assert cal.notes[0].startswith("mixed models: the most common is taken (4 of 6 runs)")
    assert "repeat: {empirical: [3, 4, 5, 6, 7, 8]}" in cal.text
