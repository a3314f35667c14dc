"""agentcost: estimate what an LLM tool-using agent loop will cost before it runs."""

__version__ = "0.1.0"
