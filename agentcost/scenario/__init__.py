"""Stage 1, scenario: YAML files -> a validated, bounded :class:`~agentcost.scenario.model.Scenario`."""
