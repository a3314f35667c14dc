"""``python -m agentcost``: the same as the ``agentcost`` command."""

from agentcost.launch import main

main()
