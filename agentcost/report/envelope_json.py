"""The envelope of every JSON report, and where each kind's body is defined.

``{"version": 1, "kind": KIND, <the kind's fields>, "gates": [...]}`` (:mod:`agentcost.render.jsonfmt`).
A kind's fields are one TypedDict (:data:`KINDS`); :mod:`agentcost.render.schema` generates the
published JSON Schema (``docs/report.schema.json``) from these definitions.
"""

from __future__ import annotations

from typing import TypedDict

from agentcost.report.gates import GateName


class GateJson(TypedDict):
    """A gate the command checked (budget, context window, a diff's increase); warn_* gates (diff
    --warn-increase) never exit 1."""

    name: GateName
    tripped: bool
    message: str
    file: str | None
    line: int | None


KINDS: dict[str, str] = {  # kind -> "module:TypedDict" of its body, in the schema's order
    "estimate": "agentcost.report.estimate_json:EstimateJson",
    "batch": "agentcost.report.batch_json:BatchJson",
    "compare": "agentcost.report.compare_json:CompareJson",
    "diff": "agentcost.report.diff_json:DiffJson",
    "models": "agentcost.report.prices_json:ModelsJson",
    "prices": "agentcost.report.prices_json:PricesJson",
    "reconcile": "agentcost.report.reconcile_json:ReconcileJson",
    "replay": "agentcost.report.replay_json:ReplayJson",
    "replay_many": "agentcost.report.replay_many_json:ReplayManyJson",  # replay DIR... (many runs)
    "mcp_footprint": "agentcost.report.mcp_json:McpFootprintJson",  # agentcost mcp footprint
    "caps": "agentcost.report.caps_json:CapsJson",
}
"""Each kind's body: ``module:TypedDict``."""
