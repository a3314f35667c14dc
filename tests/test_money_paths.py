"""Money is computed in one place: tokens x rates only in the pricing function and the accountant.

``ModelPrices.price`` (agentcost/prices/pricing.py, with its table's arithmetic in
agentcost/prices/table.py) prices every request, fees included; the accountant
(agentcost/loop/accountant.py) adds the ledger up and prices a stored cache's hours. Everything after
them reads the ledger's parts (docs/architecture.md). This scanner, like test_architecture's import
scanner, reads every module's syntax tree and refuses a multiplication or division anywhere else
whose operands read a rate: a rate's ``per``, a ``*_mtok`` / ``*_kcount`` price, a ``usd_per_*`` fee,
or ``Rate.at`` (the price a request's tier pays).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

from tests.conftest import MODULES

PRICING = {
    "agentcost.prices.pricing",  # ModelPrices.price: the one function that prices a request
    "agentcost.prices.table",  # its PriceTable arithmetic (genai-prices', unit by unit)
    "agentcost.loop.accountant",  # the ledger, and a Gemini explicit cache's storage hours
}

RATE = re.compile(r"^per$|_mtok$|_kcount$|^usd_per_|per_mtok")


def _reads_a_rate(node: ast.AST) -> bool:
    for sub in ast.walk(node):
        if isinstance(sub, ast.Attribute) and RATE.search(sub.attr):
            return True
        if isinstance(sub, ast.Name) and RATE.search(sub.id):
            return True
        if isinstance(sub, ast.Call) and isinstance(sub.func, ast.Attribute) and sub.func.attr == "at":
            return True
    return False


def rate_arithmetic(source: str) -> list[int]:
    """Lines where ``source`` multiplies or divides by something that reads a rate."""
    return sorted(
        {
            node.lineno
            for node in ast.walk(ast.parse(source))
            if isinstance(node, ast.BinOp)
            and isinstance(node.op, (ast.Mult, ast.Div))
            and (_reads_a_rate(node.left) or _reads_a_rate(node.right))
        }
    )


def test_only_the_pricing_function_and_the_accountant_multiply_by_rates() -> None:
    found = {
        name: lines
        for name, path in sorted(MODULES.items())
        if name not in PRICING and (lines := rate_arithmetic(Path(path).read_text(encoding="utf-8")))
    }
    assert not found, (
        f"money computed outside the pricing function (module: lines): {found}; price a request with "
        "ModelPrices.price and read the parts its RequestCost carries"
    )


def test_the_scanner_finds_a_split_worked_out_from_the_rates() -> None:
    """What agentcost/report/split.py did before the ledger carried the parts (issue 27)."""
    old_split = (
        "def usd(tokens, *keys):\n"
        "    rate = next((rates[k] for k in keys if k in rates), plain)\n"
        "    return rate.at(n) * tokens / rate.per\n"
        "fee = prices.cache_write_mtok * tokens / 1_000_000\n"
        "hours = s.tokens * s.usd_per_mtok_hour\n"
    )
    assert rate_arithmetic(old_split) == [3, 4, 5]
    assert rate_arithmetic("total = cost.input_usd + cost.output_usd\nshare = read / total\n") == []
    assert set(MODULES) >= PRICING
