"""Stage 4, loop: counts + prices -> the ledger (the accountant), its baselines, subagents and simulations."""
