"""--explain's run-level context-editing lever: when re-sent history is over half of the input, keep
only the last 3 tool results (``trim.keep_last: 3``), priced by re-estimating (issue 31, item 5)."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path

from agentcost.loop.estimate import estimate_scenario
from agentcost.loop.insights import HISTORY_SHARE, _keep_last, explain, history_share
from agentcost.scenario.load import read_scenario

AS_OF = datetime(2026, 11, 30, tzinfo=UTC)

# gpt-4o, no caching: five rounds each sending back a 1,000-token result, then the final answer
SCENARIO = """version: 1
model: gpt-4o
caching: none
system: {{tokens: 100}}
task: {{tokens: 50}}
tools:
  - {{name: Read, input_schema: {{type: object}}}}
rounds:
  - {{tool: Read, call_tokens: 20, result: {result}, repeat: 5}}
final: 100
"""


def _estimate(tmp_path: Path, result: int = 1000):  # type: ignore[no-untyped-def]
    path = tmp_path / "s.yaml"
    path.write_text(SCENARIO.format(result=result))
    return estimate_scenario(read_scenario(path), as_of=AS_OF)


def test_the_lever_saves_what_clearing_the_old_results_saves(tmp_path: Path) -> None:
    est = _estimate(tmp_path)
    # every request carries 125 (tools + system) + 54 (task) + 3 (reply priming) = 182 tokens; each round
    # appends 1,046 (call 1 + 20 + 9 + its message framing, result 1,000 + framing), so the history
    # is 1,046 x (0 + 1 + ... + 5) = 15,690 of 6 x 182 + 15,690 = 16,782 input tokens: 93%
    assert est.ledger.totals.input_tokens == 16_782
    assert history_share(est) == Decimal(15_690) / Decimal(16_782) > HISTORY_SHARE
    levers = {lever.name: lever for lever in explain(est).levers}
    lever = levers["keep_last_results"]
    # request k carries the k-1 earlier results; keeping the last 3, request 5 clears 1 and request 6
    # clears 2, each body 1,000 tokens -> a 10-token placeholder: (1 + 2) x 990 = 2,970 input tokens
    # fewer, at gpt-4o's $2.50 per million input tokens: $0.007425
    assert est.prices.input_mtok == Decimal("2.5")
    assert lever.saved_usd == Decimal("0.007425")
    assert lever.cost_usd == est.total_usd - Decimal("0.007425")
    assert lever.description.startswith(
        "keep only the last 3 tool results (trim.keep_last: 3): re-sent history is"
    )


def test_no_lever_when_history_does_not_dominate(tmp_path: Path) -> None:
    est = _estimate(tmp_path, result=1)  # 1-token results: the history is small next to the prefix
    # 47 appended per round: 47 x 15 = 705 of 6 x 182 + 705 = 1,797 input tokens, 39%
    assert history_share(est) == Decimal(705) / Decimal(1_797) <= HISTORY_SHARE
    assert _keep_last(est) is None
