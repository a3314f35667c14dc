"""The scenario stage: YAML files -> a validated, bounded :class:`~agentcost.scenario.model.Scenario`."""
