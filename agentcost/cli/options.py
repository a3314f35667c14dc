"""The options the CLI's commands share, and the parsing of their values (the CLI words their errors).

Typer reads the options from these ``Annotated`` aliases. The parsers raise :class:`InputError`
naming the flag (``--budget``, ``--max-increase``...), which :mod:`agentcost.cli` reports with
exit 2. The library names the options it takes by neutral keys (``as_of``, ``model``...):
:func:`flagged` words its errors with the CLI's flags. Also: the run's input policy
(``--allow-path``, ``--max-input-bytes``: :func:`set_input_policy`), whether a scenarios argument
is a project file, standard input (``-``), and the ``--version`` callback.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Collection
from decimal import Decimal, InvalidOperation
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from agentcost.errors import InputError
from agentcost.render.formats import Format

if TYPE_CHECKING:
    from agentcost.prices.user import UserPrices


def path_arg(value: str) -> Path:
    """A file named on the command line. Typer's own path type calls ``os.stat``, which raises
    ``ValueError`` (a crash, exit 3) for a NUL character; no file name can hold one, so it is a usage
    error here (exit 2), and the file itself is read, and checked, where it is used."""
    if "\x00" in value:
        raise typer.BadParameter("embedded null byte")
    return Path(value)


# Options shared by the commands that read scenarios. Typer reads them from these aliases.
FormatOpt = Annotated[
    Format,
    typer.Option(
        "--format",
        "-f",
        metavar="FORMAT",
        help="Output format: table (default), json, markdown, csv or svg.",
    ),
]
OutputOpt = Annotated[
    Path | None,
    typer.Option(
        "--output",
        "-o",
        metavar="FILE",
        help="Write the report to this file (atomically) instead of stdout.",
        parser=path_arg,
    ),
]
SummaryOpt = Annotated[
    bool,
    typer.Option("--summary", metavar="", help="Also append the Markdown report to $GITHUB_STEP_SUMMARY."),
]
QuietOpt = Annotated[
    bool,
    typer.Option(
        "--quiet", "-q", metavar="", help="Print only the total in dollars (one number), for scripts."
    ),
]
EstimateQuietOpt = Annotated[
    bool,
    typer.Option(
        "--quiet",
        "-q",
        metavar="",
        help="Print only the figure the budget gate uses, in dollars (one exact number), for scripts: the"
        " total per run (of every scenario, for several or a project); per completed task with --per task"
        " and a budget; with --at STAT, that statistic of the simulated runs (never the mean unless"
        " --at mean).",
    ),
]
ChartOpt = Annotated[
    bool,
    typer.Option("--chart", metavar="", help="Add a bar chart of the costs: per request, model or scenario."),
]
VerboseOpt = Annotated[
    bool, typer.Option("--verbose", "-v", metavar="", help="All assumptions and their sources.")
]
AllOpt = Annotated[
    bool,
    typer.Option(
        "--all",
        metavar="",
        help="Every request in the table (a ledger of more than 50 shows the first 20 and last 10, the"
        " middle summed in one row; JSON and CSV always have every request).",
    ),
]
SetOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--set",
        metavar="PATH=VALUE",
        help="Override a scenario field, e.g. --set limits.max_rounds=40 (repeatable).",
    ),
]
AsOfOpt = Annotated[
    str | None,
    typer.Option("--as-of", metavar="DATE", help="Price date (ISO date or datetime, UTC). Default: today."),
]
BudgetOpt = Annotated[
    str | None,
    typer.Option(
        "--budget",
        metavar="USD",
        help="Gate: exit 1 when a scenario's estimate is over this many dollars per run.",
    ),
]

ExplainOpt = Annotated[
    bool,
    typer.Option(
        "--explain",
        metavar="",
        help="Add Insights: six checks and the levers that save most, each re-estimated (one scenario only).",
    ),
]


DEFAULT_SIMULATION_RUNS = 10_000  # --at without --simulate

EstimateModelOpt = Annotated[
    str | None,
    typer.Option("--model", "-m", metavar="MODEL", help="Price a different model than the scenario's."),
]

SimulateOpt = Annotated[
    int | None,
    typer.Option(
        "--simulate",
        metavar="N",
        help="Monte Carlo: N runs drawing the scenario's distributions; percentiles, a histogram"
        " and the inputs that move p90 most (one scenario, its counts or sizes written as distributions,"
        " e.g. repeat: {triangular: [4, 6, 12]}); of a project file: N 30-day months, p50/p90/p99 and"
        " the share over monthly_budget_usd.",
    ),
]

SeedOpt = Annotated[
    int,
    typer.Option("--seed", metavar="N", help="Seed of --simulate: the same seed gives the same numbers."),
]

AtOpt = Annotated[
    str | None,
    typer.Option(
        "--at",
        metavar="STAT",
        help="Gate the budget at this statistic of the simulated runs: p90, p99, mean, max..."
        f" (simulates {DEFAULT_SIMULATION_RUNS:,} runs unless --simulate says).",
    ),
]


class ServiceTier(StrEnum):
    standard = "standard"
    batch = "batch"
    flex = "flex"
    priority = "priority"


class ListFormat(StrEnum):
    table = "table"
    json = "json"


class Per(StrEnum):
    run = "run"
    task = "task"


PerOpt = Annotated[
    Per,
    typer.Option(
        "--per",
        metavar="UNIT",
        help="run or task: figures and gates per run, or per completed task (expected, from the"
        " scenario's outcome: success rate and what a failed run costs).",
    ),
]


class Count(StrEnum):
    offline = "offline"
    ctok = "ctok"
    api = "api"


CountOpt = Annotated[
    Count | None,
    typer.Option(
        "--count",
        metavar="HOW",
        help="offline (default: the same figures on every Python), ctok (Claude texts with the ctok"
        " tokenizer reconstruction; Python >= 3.12) or api (Claude and Gemini texts with the provider's"
        " free token-counting endpoint; needs ANTHROPIC_API_KEY / GEMINI_API_KEY; counts are cached)."
        " Default: $AGENTCOST_COUNT, else offline.",
    ),
]


def use_count(count: Count | None) -> None:
    """Set the run's counting mode (``--count``, else ``AGENTCOST_COUNT``)."""
    from agentcost.tokens.countmode import set_mode

    set_mode(None if count is None else count.value)


# `agentcost diff`: warning-level gates, new scenarios in the gates, the pull-request comment (issue 18).
class CommentHost(StrEnum):
    github = "github"
    gitlab = "gitlab"


WarnIncreaseOpt = Annotated[
    str | None,
    typer.Option(
        "--warn-increase",
        metavar="PERCENT",
        help="Warning: report (::warning in GitHub Actions) when a cost rises more than this, e.g. 10%;"
        " exit 0.",
    ),
]
WarnIncreaseUsdOpt = Annotated[
    str | None,
    typer.Option(
        "--warn-increase-usd",
        metavar="USD",
        help="Warning: report when a cost rises more than this many dollars; exit 0.",
    ),
]
GateNewScenariosOpt = Annotated[
    bool,
    typer.Option(
        "--gate-new-scenarios",
        metavar="",
        help="Gate added scenarios too, and the whole total (default: the scenarios on both sides).",
    ),
]
CommentOpt = Annotated[
    CommentHost | None,
    typer.Option(
        "--comment",
        metavar="HOST",
        help="github or gitlab: print a pull/merge-request comment (Markdown with a hidden marker) and"
        " write changed=true|false to $GITHUB_OUTPUT when set.",
    ),
]


ServiceTierOpt = Annotated[
    ServiceTier | None,
    typer.Option(
        "--service-tier",
        metavar="TIER",
        help="Price at this service tier instead of the scenario's service_tier (refused where the model"
        " does not offer it).",
    ),
]
PricesOpt = Annotated[
    Path | None,
    typer.Option(
        "--prices",
        metavar="FILE",
        help="A YAML file of your own prices, overriding or adding models (version: 1, then models: a list"
        " of id, provider, rates per million tokens such as input_mtok, and source).",
        parser=path_arg,
    ),
]
ListFormatOpt = Annotated[
    ListFormat,
    typer.Option("--format", "-f", metavar="FORMAT", help="Output format: table (default) or json."),
]
# `agentcost models`: which providers to list.
ModelsProviderOpt = Annotated[
    str | None,
    typer.Option(
        "--provider",
        "-p",
        metavar="NAME",
        help="List this provider's models (a genai-prices provider id or alias: aws, azure, deepseek,"
        " mistral, xai, groq, openrouter, ...).",
    ),
]
ModelsAllOpt = Annotated[
    bool,
    typer.Option(
        "--all",
        help="List every provider genai-prices prices (the table lists anthropic, openai and google"
        " by default; --format json lists every provider).",
    ),
]

# Options of every command that reads input files (scenarios, projects, price files, traces).
AllowPathOpt = Annotated[
    list[Path] | None,
    typer.Option(
        "--allow-path",
        metavar="DIR",
        help="Also let files named inside input files ({file: ...}, tools, subagents...) be read from"
        " DIR (repeatable; by default only the directories of the files given, and their git work tree).",
        parser=path_arg,
    ),
]
MaxInputBytesOpt = Annotated[
    int | None,
    typer.Option(
        "--max-input-bytes",
        metavar="N",
        min=1,
        help="Most characters of text one run may tokenize, after aliases, files and repeats"
        " (default 67,108,864: 64 MiB).",
    ),
]


# `agentcost replay DIR...`: many runs (agentcost.commands.replay_many).
JobsOpt = Annotated[
    int,
    typer.Option("--jobs", "-j", metavar="N", min=1, help="Replay many runs in N worker processes."),
]
MaxFilesOpt = Annotated[
    int | None,
    typer.Option(
        "--max-files",
        metavar="N",
        min=1,
        help="Replay of many runs: read at most N log files (default 10,000).",
    ),
]
MaxTotalBytesOpt = Annotated[
    int | None,
    typer.Option(
        "--max-total-bytes",
        metavar="N",
        min=1,
        help="Replay of many runs: read at most N bytes of log files in all (default 10,000,000,000).",
    ),
]

# The example request of `agentcost prices`.
ExampleInputOpt = Annotated[
    int | None,
    typer.Option(
        "--input-tokens",
        metavar="N",
        min=0,
        help="Example request: input tokens, cached ones included (10,000).",
    ),
]
ExampleOutputOpt = Annotated[
    int | None,
    typer.Option("--output-tokens", metavar="N", min=0, help="Example request: output tokens (1,000)."),
]
ExampleCacheReadOpt = Annotated[
    int | None,
    typer.Option(
        "--cache-read-tokens",
        metavar="N",
        min=0,
        help="Example request: input tokens read from cache (2,000 where the model has a cache-read"
        " price and no token option is given, else 0).",
    ),
]
ExampleCacheWriteOpt = Annotated[
    int | None,
    typer.Option(
        "--cache-write-tokens",
        metavar="N",
        min=0,
        help="Example request: input tokens written to cache (1,000 where the model has a"
        " cache-write price and no token option is given, else 0).",
    ),
]


# Options shared by the commands that read a recorded run (replay, calibrate).
FormatInOpt = Annotated[
    str | None,
    typer.Option(
        "--format-in", metavar="NAME", help="The log's format (default: detected), e.g. claude-code."
    ),
]
TraceModelOpt = Annotated[
    str | None,
    typer.Option("--model", metavar="MODEL", help="The model of the run, when the log does not say."),
]
RunConfigOpt = Annotated[
    Path | None,
    typer.Option(
        "--config",
        metavar="FILE",
        help="The run's config naming the model (SWE-agent args.yaml).",
        parser=path_arg,
    ),
]


# The library's neutral keys for the options it takes -> the CLI's flags for them.
OPTION_FLAGS: dict[str, str] = {
    "as_of": "--as-of",
    "model": "--model",
    "service_tier": "--service-tier",
    "at": "--at",
    "runs": "--simulate",
    "output": "--output",
    "models_file": "--models",
    "provider": "--provider",
}
_FILE_OPTIONS = frozenset({"output", "models_file"})  # options that are a file: their errors name that file


def flagged(err: InputError, options: Collection[str]) -> InputError:
    """``err`` worded for the command line: a neutral key among ``options`` (the command's options,
    e.g. ``as_of``) becomes the flag (``--as-of``). An error with a file is about a key of that file
    (a scenario's ``model:``) and keeps its key, unless the option is that file (``--output``)."""
    key = err.key
    if key is None or key not in options or (err.file is not None and key not in _FILE_OPTIONS):
        return err
    return InputError(err.message, file=err.file, line=err.line, key=OPTION_FLAGS[key], hint=err.hint)


def parse_usd(value: str | None, key: str, *, allow_zero: bool = False) -> Decimal | None:
    """A dollar amount from an option (``0.05`` or ``$0.05``), at most MAX_BUDGET_USD."""
    if value is None:
        return None
    from agentcost.scenario.model import MAX_BUDGET_USD  # here: ~10 ms that --help does not need

    try:
        amount = Decimal(value.strip().lstrip("$"))
    except InvalidOperation:
        raise InputError(f"not a dollar amount: {value!r}", key=key, hint=f"e.g. {key} 0.05") from None
    if not amount.is_finite() or amount < 0 or (amount == 0 and not allow_zero) or amount > MAX_BUDGET_USD:
        lowest = "0 or more" if allow_zero else "above 0"
        raise InputError(
            f"must be a dollar amount {lowest} and at most {MAX_BUDGET_USD:,}, got {value!r}", key=key
        )
    return amount


def parse_budget(value: str | None) -> Decimal | None:
    return parse_usd(value, "--budget")


def parse_option(parse: Callable[[str], Decimal], value: str | None, key: str) -> Decimal | None:
    if value is None:
        return None
    try:
        return parse(value)
    except ValueError as err:
        raise InputError(str(err), key=key) from None


def read_user_prices(path: Path | None) -> UserPrices | None:
    """Load a --prices file (InputError with its file, line and key when it is wrong)."""
    if path is None:
        return None
    from agentcost.prices.user import load_user_prices

    return load_user_prices(path)


def set_input_policy(ctx: typer.Context, allow_path: list[Path] | None, max_input_bytes: int | None) -> None:
    """The run's :class:`~agentcost.infra.policy.InputPolicy`, from ``--allow-path`` (each an existing
    directory, kept as its real path) and ``--max-input-bytes``, in force until the command ends."""
    from agentcost.infra.policy import DEFAULT_MAX_INPUT_BYTES, InputPolicy, using_policy

    roots: list[Path] = []
    for given in allow_path or ():
        if not given.is_dir():
            raise InputError(
                f"not a directory: {given}", key="--allow-path", hint="give a directory that exists"
            )
        roots.append(Path(os.path.realpath(given)))
    most = max_input_bytes if max_input_bytes is not None else DEFAULT_MAX_INPUT_BYTES
    ctx.with_resource(using_policy(InputPolicy(tuple(roots), most)))
    check_input_paths(ctx)


_NOT_INPUTS = frozenset({"output", "allow_path"})  # the command's Path parameters that are not read


def check_input_paths(ctx: typer.Context) -> None:
    """In CI (``CI`` set), refuse an input path of the command line that a symlink leads out of the
    working tree (:func:`agentcost.infra.policy.leaves_tree`) unless ``--allow-path`` names where it
    leads: a pull request may commit ``agentcost.yml`` as a symlink to any file of the runner."""
    from agentcost.infra.policy import ALLOW_OPTION, in_ci, leaves_tree

    if not in_ci():
        return
    for param in ctx.command.params:
        value = ctx.params.get(param.name or "")
        if param.name in _NOT_INPUTS or value is None:
            continue
        for path in value if isinstance(value, list | tuple) else (value,):
            if not isinstance(path, Path) or os.fspath(path) == "-":
                continue
            real = leaves_tree(path)
            if real is not None:
                flag = next((opt for opt in param.opts if opt.startswith("--")), None)
                raise InputError(
                    f"a symlink out of the working tree, to {real}",
                    file=path,
                    key=flag if param.param_type_name == "option" else None,
                    hint=f"in CI a path on the command line must stay inside the working directory or its git"
                    f" work tree; pass {ALLOW_OPTION} {os.path.dirname(real)} to read it",
                )


def tier_name(value: ServiceTier | None) -> str | None:
    return None if value is None else value.value


def is_project(path: Path) -> bool:
    from agentcost.scenario.project import is_project_file

    return is_project_file(path)
