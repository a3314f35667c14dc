"""The catalogue commands, ``agentcost models`` and ``agentcost prices``: what can be priced, and how."""

import sys
from typing import Annotated

import typer

from agentcost.cli.options import (
    AllowPathOpt,
    AsOfOpt,
    ExampleCacheReadOpt,
    ExampleCacheWriteOpt,
    ExampleInputOpt,
    ExampleOutputOpt,
    ListFormat,
    ListFormatOpt,
    MaxInputBytesOpt,
    ModelsAllOpt,
    ModelsProviderOpt,
    PricesOpt,
    ServiceTier,
    read_user_prices,
    set_input_policy,
    tier_name,
)
from agentcost.cli.output import fail
from agentcost.errors import InputError


def register(app: typer.Typer) -> None:
    """Add ``models`` and ``prices`` to ``app``, in that order."""
    app.command(
        "models", epilog="Example: agentcost models 'claude-*'; agentcost models --provider deepseek"
    )(models)
    app.command("prices", epilog="Example: agentcost prices claude-sonnet-4-5 --input-tokens 50000")(prices)


def models(
    ctx: typer.Context,
    pattern: Annotated[
        str | None,
        typer.Argument(
            metavar="PATTERN", help="Filter: a substring, a glob such as 'claude-*', or 'deepseek/*'."
        ),
    ] = None,
    provider: ModelsProviderOpt = None,
    all_: ModelsAllOpt = False,
    as_of: AsOfOpt = None,
    format_: ListFormatOpt = ListFormat.table,
    prices: PricesOpt = None,
    allow_path: AllowPathOpt = None,
    max_input_bytes: MaxInputBytesOpt = None,
) -> None:
    """List the models agentcost can price, newest first: rates, context window, tiers, count accuracy."""
    from agentcost.loop.options import parse_as_of
    from agentcost.prices.listing import listing

    every = all_ or format_ is ListFormat.json
    try:
        set_input_policy(ctx, allow_path, max_input_bytes)
        when = parse_as_of(as_of)
        user = read_user_prices(prices)
        found = listing(as_of=when, pattern=pattern, user_prices=user, provider=provider, every=every)
    except InputError as err:
        raise fail(err, "as_of", "provider") from None
    if not found.models and not (format_ is ListFormat.json and found.not_estimable):
        raise fail(f"no known model matches {pattern!r} (try a shorter filter, or none)")
    if format_ is ListFormat.json:
        from agentcost.render.models import render_models_json
        from agentcost.report.models import models_report

        sys.stdout.write(render_models_json(models_report(found, as_of=when)))
        return
    from agentcost.cli.colour import print_rich
    from agentcost.render.table import render_models
    from agentcost.report.models import models_report

    print_rich(render_models(models_report(found, as_of=when)))


def prices(
    ctx: typer.Context,
    model: Annotated[
        str, typer.Argument(metavar="MODEL", help="A model id, e.g. claude-sonnet-4-5 or openai/gpt-5.")
    ],
    as_of: AsOfOpt = None,
    service_tier: Annotated[
        ServiceTier | None,
        typer.Option(
            "--service-tier",
            metavar="TIER",
            help="Price at this service tier (default: standard; refused where the model does not offer it).",
        ),
    ] = None,
    prices_file: PricesOpt = None,
    format_: ListFormatOpt = ListFormat.table,
    input_tokens: ExampleInputOpt = None,
    output_tokens: ExampleOutputOpt = None,
    cache_read_tokens: ExampleCacheReadOpt = None,
    cache_write_tokens: ExampleCacheWriteOpt = None,
    allow_path: AllowPathOpt = None,
    max_input_bytes: MaxInputBytesOpt = None,
    verbose: Annotated[
        bool, typer.Option("--verbose", "-v", metavar="", help="Also sources and genai-prices' notes.")
    ] = False,
) -> None:
    """Show which rates apply to MODEL and where each comes from, with an example request worked out.

    The example request is worked out line by line.
    """
    from agentcost.loop.options import parse_as_of
    from agentcost.report.prices import price_sheet

    given = (input_tokens, output_tokens, cache_read_tokens, cache_write_tokens)
    try:
        set_input_policy(ctx, allow_path, max_input_bytes)
        when = parse_as_of(as_of)
        example = None
        if any(v is not None for v in given):
            from agentcost.prices.pricing import Usage

            example = Usage(
                input_tokens=10_000 if input_tokens is None else input_tokens,
                output_tokens=1_000 if output_tokens is None else output_tokens,
                cache_read_tokens=cache_read_tokens or 0,
                cache_write_tokens=cache_write_tokens or 0,
            )
        sheet = price_sheet(
            model,
            as_of=when,
            service_tier=tier_name(service_tier) or "standard",
            user_prices=read_user_prices(prices_file),
            example=example,
        )
    except InputError as err:  # MODEL is an argument: its errors keep the key model
        raise fail(err, "as_of", "service_tier") from None
    if format_ is ListFormat.json:
        from agentcost.render.prices import render_price_sheet_json

        sys.stdout.write(render_price_sheet_json(sheet))
        return
    from agentcost.cli.colour import print_rich
    from agentcost.render.prices import render_price_sheet

    print_rich(render_price_sheet(sheet, verbose=verbose))
