"""The tokens stage: a scenario -> :class:`~agentcost.tokens.counts.TokenCounts` under one model's
counting rules (offline encodings, per-provider framing, and the loop mechanics that change what is
sent)."""
