"""The loop stage: counts + prices -> the ledger (the accountant), baselines, subagents, simulations."""
