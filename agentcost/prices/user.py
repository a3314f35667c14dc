"""User price file (``--prices FILE``, YAML, version 1) -> :class:`UserPrices`.

The user's own prices: negotiated discounts, private or self-hosted models. Each model either
overrides the genai-prices model of the same provider and id, or adds a new one::

    version: 1
    models:
      - id: claude-sonnet-4-5          # same id as genai-prices: overrides it
        provider: anthropic
        base: claude-sonnet-4-5
        discount: 20%                  # off every list token rate of base (tiers, batch too)
        source: contract 2026-07
      - id: acme-coder-70b             # a new model
        provider: openai               # counting and caching follow this provider
        base: gpt-5                    # optional: whose tokenizer, facts and context window to use
        input_mtok: 0.40
        output_mtok: 1.60
        cache_read_mtok: 0.04
        source: self-hosted, cost per MTok from the 2026-10 capacity plan

The file is read as scenario and project files are (:mod:`agentcost.scenario.load`): composed with
PyYAML keeping line numbers, numbers with a fraction become ``Decimal`` from their text, validated by
the Spec mappings below (:mod:`agentcost.infra.spec`), and every problem is one
:class:`~agentcost.errors.InputError` naming the file, the 1-based line and the key path. Messages never
quote the file's text (it may be a file the user did not write): a wrong value is named by its type and
size (docs/limits.md). Prices are computed in :mod:`agentcost.prices.lookup`; ``provider`` is any
genai-prices provider (an id or an alias such as ``bedrock``), and ``base`` is found at it as
``--model`` would find it (:mod:`agentcost.prices.locate`: a Bedrock id, ``azure/<model>``, ...).
"""

from __future__ import annotations

import re
from dataclasses import field
from decimal import Decimal
from pathlib import Path
from typing import Any, Literal

from agentcost.errors import InputError
from agentcost.infra.doc import Doc, KeyPath
from agentcost.infra.files import Reader, Unreadable, text_reader
from agentcost.infra.record import record
from agentcost.infra.spec import AnyValue, Bounds, Int, ListOf, Lit, Model, Nullable, Schema, Spec, Str
from agentcost.infra.spec import field as spec_field
from agentcost.infra.spec import json_schema as spec_json_schema
from agentcost.infra.validate import amount, shown, validate
from agentcost.infra.yamlread import parse

__all__ = ["PRICES_VERSION", "UserModel", "UserPrices", "json_schema", "load_user_prices"]

PRICES_VERSION = 1
MAX_RATE = Decimal(1_000_000)  # USD per MTok; more is surely a typo
_PERCENT = re.compile(r"\s*(\d+(?:\.\d+)?)\s*%\s*")
_RATE_KEYS = ("input_mtok", "output_mtok", "cache_read_mtok", "cache_write_mtok", "cache_write_1h_mtok")


# --------------------------------------------------------------------------------------------
# The format
# --------------------------------------------------------------------------------------------

_RATE = Nullable(amount(ge=0, le=MAX_RATE))
_ID = Str(min_length=1)


class UserModelSpec(Spec):
    """One model's prices."""

    id: str = spec_field(
        _ID,
        "The model id scenarios and --model use. The id of a genai-prices model of the same "
        "provider overrides that model.",
    )
    provider: str = spec_field(
        _ID,
        "A genai-prices provider id (anthropic, openai, google, aws, azure, deepseek, mistral, "
        "x-ai, groq, ...; 'agentcost models --all' lists them): billing and caching follow this provider.",
    )
    base: str | None = spec_field(
        Nullable(_ID),
        "A genai-prices model of the same provider, written as for --model (a Bedrock id, "
        "azure/<model>, ...), whose tokenizer, billing facts, context window and per-use fees apply "
        "(and whose list prices a discount applies to).",
        default=None,
    )
    input_mtok: Decimal | None = spec_field(_RATE, "USD per million input tokens.", default=None)
    output_mtok: Decimal | None = spec_field(_RATE, "USD per million output tokens.", default=None)
    cache_read_mtok: Decimal | None = spec_field(
        _RATE, "USD per million cache-read tokens (default: billed as input).", default=None
    )
    cache_write_mtok: Decimal | None = spec_field(
        _RATE,
        "USD per million cache-write tokens, 5-minute writes on Anthropic (default: input).",
        default=None,
    )
    cache_write_1h_mtok: Decimal | None = spec_field(
        _RATE,
        "USD per million 1-hour cache-write tokens (Anthropic, or a base model with such a price).",
        default=None,
    )
    context_window: int | None = spec_field(
        Nullable(Bounds(Int(), ge=1)), "Context window in tokens (default: the base model's).", default=None
    )
    discount: Any = spec_field(
        Schema(AnyValue(), {"type": "string", "pattern": r"^\s*\d+(\.\d+)?\s*%\s*$"}),
        "A percentage off every list token rate of base, e.g. '20%' (instead of rates).",
        default=None,
    )
    source: Any = spec_field(
        Schema(AnyValue(), {"type": "string", "minLength": 1}),
        "Where these prices come from (required), e.g. 'contract 2026-07'. Shown in reports.",
        default=None,
    )


class UserPricesFile(Spec, title="agentcost prices"):
    """The user's own model prices for agentcost (--prices FILE)."""

    version: Literal[1] = spec_field(Lit(1), "Format version of this file: 1.")
    models: list[UserModelSpec] = spec_field(
        ListOf(Model(UserModelSpec)), "The models, each with its prices and their source."
    )


def json_schema() -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of user price files, for editors (docs/prices.schema.json)."""
    schema = spec_json_schema(UserPricesFile)
    for model in schema.get("$defs", {}).values():
        props = model.get("properties", {})
        if "source" in props:
            model["required"] = sorted({*model.get("required", []), "source"})
    return schema


# --------------------------------------------------------------------------------------------
# The loaded file
# --------------------------------------------------------------------------------------------


@record
class UserModel:
    """One model of a user price file. Rates are USD per million tokens; ``discount`` a fraction."""

    id: str
    provider: str
    source: str
    index: int  # its position in ``models:`` (for error locations)
    base: str | None = None  # the genai-prices id of the base model, as the file wrote it
    input_mtok: Decimal | None = None
    output_mtok: Decimal | None = None
    cache_read_mtok: Decimal | None = None
    cache_write_mtok: Decimal | None = None
    cache_write_1h_mtok: Decimal | None = None
    context_window: int | None = None
    discount: Decimal | None = None  # 0.2 for "20%"
    line: int | None = None  # the line of its "- id:" item


@record(eq=False)
class UserPrices:
    """A loaded ``--prices`` file. ``shown`` is the path as given (what reports name)."""

    path: Path
    shown: str
    models: tuple[UserModel, ...]
    lines: dict[KeyPath, int] = field(default_factory=dict, repr=False)

    def find(self, model: str, provider: str | None) -> UserModel | None:
        """The model with this id (case-insensitive), of ``provider`` when given."""
        wanted = model.strip().lower()
        for entry in self.models:
            if entry.id.lower() == wanted and provider in (None, entry.provider):
                return entry
        return None

    def error(self, entry: UserModel, key: str, message: str, hint: str | None = None) -> InputError:
        """An error about one key of ``entry``, located in the file."""
        at: KeyPath = ("models", entry.index, key)
        line = self.lines.get(at, entry.line)
        return InputError(message, file=self.path, line=line, key=f"models[{entry.index}].{key}", hint=hint)


def load_user_prices(path: Path | str, *, reader: Reader | None = None) -> UserPrices:
    """Read and check a user price file. Raises :class:`InputError` (``file:line: key: message``).

    Checks beyond the format: ids are unique; a model gives ``input_mtok`` and ``output_mtok``, or
    ``base`` with ``discount`` (not both); ``provider`` is a genai-prices provider; ``base`` is a
    genai-prices model of that provider; 1-hour cache writes only on Anthropic or with a base that
    has a 1-hour price; every model says its ``source``.
    """
    shown = str(path)
    path = Path(path)
    try:
        text = text_reader(reader)(path)
    except Unreadable as e:
        raise InputError(e.reason, file=path, line=e.line, key="--prices") from None
    doc = parse(Doc(path, quotes=False), text)
    _check_top_level(doc)
    spec = validate(UserPricesFile, doc, doc.value, ())
    if not spec.models:
        raise doc.error(("models",), "must list at least one model", "e.g. '- id: my-model'")
    models: list[UserModel] = []
    first_line: dict[str, int | None] = {}
    for i, item in enumerate(spec.models):
        entry = _entry(doc, i, item)
        seen = entry.id.lower()
        if seen in first_line:
            where = first_line[seen]
            raise doc.error(
                ("models", i, "id"),
                "duplicate model id",
                f"first at line {where}" if where is not None else None,
            )
        first_line[seen] = doc.line(("models", i, "id"))
        models.append(entry)
    return UserPrices(path=path, shown=shown, models=tuple(models), lines=dict(doc.lines))


def _check_top_level(doc: Doc) -> None:
    if not isinstance(doc.value, dict):
        raise doc.error(
            (), f"expected a mapping of price-file keys at the top level, got {shown(doc.value, quote=False)}"
        )
    if "version" not in doc.value:
        raise doc.error(
            ("version",), "required key is missing", f"add 'version: {PRICES_VERSION}' at the top"
        )
    version = doc.value["version"]
    if type(version) is not int:
        raise doc.error(
            ("version",),
            f"expected an integer, got {shown(version, quote=False)}",
            f"supported: {PRICES_VERSION}",
        )
    if version != PRICES_VERSION:
        raise doc.error(("version",), f"unsupported version {version}", f"supported: {PRICES_VERSION}")
    if "models" not in doc.value:
        raise doc.error(
            ("models",),
            "required key is missing",
            "a price file lists models: 'models: [{id: ..., provider: ..., input_mtok: ..., ...}]'",
        )


def _entry(doc: Doc, i: int, item: UserModelSpec) -> UserModel:
    at: KeyPath = ("models", i)
    model_id = item.id.strip()
    if "/" in model_id or not model_id or model_id != item.id:
        raise doc.error(
            (*at, "id"),
            f"a model id has no '/' and no surrounding spaces, got {shown(item.id, quote=False)}",
            "give the provider in provider:",
        )
    source = item.source
    if source is None:
        raise doc.error(
            (*at, "source"),
            "required key is missing",
            "say where these prices come from, e.g. 'source: contract 2026-07'",
        )
    if not isinstance(source, str):
        raise doc.error((*at, "source"), f"expected a text, got {shown(source, quote=False)}", "quote it")
    if not source.strip():
        raise doc.error((*at, "source"), "must not be empty", "say where these prices come from")
    discount = _discount(doc, (*at, "discount"), item.discount)
    given = [key for key in _RATE_KEYS if getattr(item, key) is not None]
    if discount is not None:
        if item.base is None:
            raise doc.error(
                (*at, "discount"),
                "a discount applies to a base model's list prices",
                "add 'base: <genai-prices model id>'",
            )
        if given:
            raise doc.error(
                (*at, given[0]),
                "give either discount or rates, not both",
                "a discount applies to every token rate of base",
            )
    else:
        for key in ("input_mtok", "output_mtok"):
            if getattr(item, key) is None:
                raise doc.error(
                    (*at, key),
                    "required key is missing",
                    "give input_mtok and output_mtok, or base and discount",
                )
    provider = _provider(doc, (*at, "provider"), item.provider)
    has_1h = False
    if item.base is not None:
        has_1h = _check_base(doc, (*at, "base"), item.base, provider)
    if item.cache_write_1h_mtok is not None and provider != "anthropic" and not has_1h:
        raise doc.error(
            (*at, "cache_write_1h_mtok"),
            f"{provider} has no 1-hour cache writes",
            "1-hour cache writes are an Anthropic feature; leave it out",
        )
    return UserModel(
        id=model_id,
        provider=provider,
        source=" ".join(source.split()),
        index=i,
        base=item.base,
        input_mtok=item.input_mtok,
        output_mtok=item.output_mtok,
        cache_read_mtok=item.cache_read_mtok,
        cache_write_mtok=item.cache_write_mtok,
        cache_write_1h_mtok=item.cache_write_1h_mtok,
        context_window=item.context_window,
        discount=discount,
        line=doc.line(at),
    )


def _discount(doc: Doc, at: KeyPath, value: Any) -> Decimal | None:
    if value is None:
        return None
    match = _PERCENT.fullmatch(value) if isinstance(value, str) else None
    if match is None:
        raise doc.error(at, f"expected a percentage such as '20%', got {shown(value, quote=False)}")
    percent = Decimal(match.group(1))
    if percent >= 100:
        raise doc.error(
            at, f"must be below 100%, got {shown(percent, quote=False)}%", "a free model has input_mtok: 0"
        )
    return percent / 100


def _provider(doc: Doc, at: KeyPath, value: str) -> str:
    """The genai-prices provider id ``value`` names (an id or an alias such as ``bedrock``)."""
    from agentcost.prices.catalog import find_provider

    found = find_provider(value)
    if found is None:
        raise doc.error(
            at,
            f"not a genai-prices provider id, got {shown(value, quote=False)}",
            "e.g. anthropic, openai, google, aws, azure, deepseek; 'agentcost models --all' lists them",
        )
    return found


def _check_base(doc: Doc, at: KeyPath, base: str, provider: str) -> bool:
    """Check ``base`` is a model of ``provider`` (as :func:`agentcost.prices.locate.locate` finds
    it); whether it has a 1-hour cache-write price."""
    from agentcost.prices.catalog import latest_price, suggest_model
    from agentcost.prices.locate import locate

    try:
        found = locate(base, provider)
    except InputError:
        try:
            owner: str | None = locate(base).provider
        except InputError:
            owner = None
        if owner is not None and owner != provider:
            raise doc.error(
                at,
                f"the base model belongs to provider {owner!r}, not {provider!r}",
                "base: must be a model of the same provider",
            ) from None
        raise doc.error(at, f"unknown {provider} model", suggest_model(base, provider)) from None
    return latest_price(found.info).cache_write_1h_mtok is not None


if __name__ == "__main__":  # python -m agentcost.prices.user > docs/prices.schema.json
    import json

    print(json.dumps(json_schema(), indent=2))
