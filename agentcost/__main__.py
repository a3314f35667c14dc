"""``python -m agentcost``: the same as the ``agentcost`` command."""

from agentcost.cli import main

main()
