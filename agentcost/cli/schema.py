"""``agentcost schema``: the JSON Schema of scenario files, or of the JSON reports."""

import sys
from typing import Annotated

import typer


def register(app: typer.Typer) -> None:
    """Add ``schema`` to ``app``."""
    app.command("schema", epilog="Example: agentcost schema > agentcost.schema.json")(schema)


def schema(
    report: Annotated[
        bool, typer.Option("--report", metavar="", help="Print the JSON Schema of the JSON reports instead.")
    ] = False,
) -> None:
    """Print the JSON Schema of scenario files (for editors: yaml-language-server, VS Code)."""
    import json

    if report:
        from agentcost.render.schema import report_schema

        sys.stdout.write(json.dumps(report_schema(), indent=2) + "\n")
        return
    from agentcost.scenario.format import json_schema

    sys.stdout.write(json.dumps(json_schema(), indent=2) + "\n")
