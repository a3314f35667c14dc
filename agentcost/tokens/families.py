"""Model families: which counting rules apply to a model id, read from ``families.yaml`` (issue 15).

:func:`family_of` maps any provider and model id (host forms included: ``us.anthropic.claude-...``,
``openai/gpt-4o``, ``claude-...@20250929``) to a :class:`Family`: its name, whether its counts are
exact, the one-line method and the public source. :func:`spec_of` gives the data behind it (ratios
and chat-template framing constants, each with its measurement). families.yaml is edited by hand; a
run reads it, once per process, from ``families_data.py``, generated from it by :data:`WRITE_DATA`
(no YAML parser on a run).
"""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation
from functools import lru_cache
from typing import Any

from agentcost.infra.record import record

FAMILIES_FILE = "families.yaml"
WRITE_DATA = "python -m agentcost.tokens.families --write-data"
"""The command that regenerates ``families_data.py`` after families.yaml is edited."""
INSTALL_HINT = "install agentcost-estimate[tokenizers] for exact Llama/Qwen counts"

RULES = ("openai", "anthropic", "google", "harmony", "template")
TEXTS = ("tiktoken", "ctok-or-ratio", "ratio", "llama3", "qwen", "qwen3.5")
FRAMING_KEYS = (
    "system",
    "no_system",
    "fixed",
    "user",
    "assistant",
    "tools_preamble",
    "per_tool",
    "call",
    "result",
    "result_next",
)


class FamiliesDataError(RuntimeError):
    """families.yaml is malformed: a packaging bug, not bad user input."""


@record
class Family:
    """How one model's tokens are counted: the family, exact or approximate, how, and the source."""

    name: str  # "openai", "claude", "gemini", "llama3", "qwen", "deepseek", "gpt-oss", "other", ...
    exact: bool
    method: str  # one line, e.g. "o200k_base × 1.040 (prose) / × 1.058 (JSON) (DeepSeek, measured)"
    source: str  # a public URL, or the measurement's script and date
    backend: str = "o200k_base × ratio"  # what counts a text: "tiktoken o200k_base", "quicktok llama3", ...
    note: str | None = None  # why approximate, when it is


@record
class Measurement:
    """Where a measured number comes from."""

    name: str
    date: str
    corpus: str
    script: str

    def cite(self) -> str:
        return f"measured {self.date}: {self.script}, on {self.corpus}"


@record
class Ratio:
    """Tokens of a family's tokenizer per o200k_base token, by kind of text."""

    prose: Decimal
    json: Decimal
    code: Decimal | None
    measurement: Measurement | None  # None: not measured (1.0 by default)


@record
class Framing:
    """Chat-template tokens besides the texts (see ``framing_keys`` in families.yaml)."""

    system: int
    no_system: int
    fixed: int
    user: int
    assistant: int
    tools_preamble: int
    per_tool: int
    call: int
    result: int
    result_next: int
    source: str
    measurement: Measurement | None


@record
class FamilySpec:
    """One entry of families.yaml."""

    name: str
    label: str
    match: str
    rules: str
    text: str
    exact: bool
    source: str
    note: str | None
    ratio: Ratio | None
    framing: Framing | None
    framing_name: str = ""

    @property
    def framing_label(self) -> str:
        """How a method line names the framing: ``Qwen3 chat-template framing``."""
        return self.framing_name or f"{self.label} chat-template framing"


# --------------------------------------------------------------------------------------------
# Model ids
# --------------------------------------------------------------------------------------------

_BEDROCK_GEO = re.compile(r"^(us|eu|apac|au|jp|ca|us-gov|global)\.")
_VENDOR_PREFIX = re.compile(
    r"^(anthropic|meta|mistral|amazon|deepseek|openai|qwen|cohere|writer|moonshotai|moonshot|zai|"
    r"google|nvidia|ai21|minimax|xai|x-ai)\."
)
_BEDROCK_VERSION = re.compile(r"-v\d+(:\d+)?$")
_VERTEX_VERSION = re.compile(r"@(\d+|latest|default)$")
_CLAUDE_SNAPSHOT = re.compile(r"^(claude-.+)-20\d{6}$")


def canonical_model_id(model_id: str, *, keep_date: bool = False) -> str:
    """The model's own id without host forms: the last ``/`` segment, no Bedrock geography or
    vendor prefix (``us.anthropic.``), no Bedrock ``-v1:0`` or Vertex ``@20250929`` suffix, and a
    Claude snapshot's date dropped (``claude-sonnet-4-5-20250929`` -> ``claude-sonnet-4-5``, the id
    genai-prices and facts.yaml use) unless ``keep_date`` (two snapshots of one model can differ:
    Claude 3.5 Sonnet's hidden tool prompt). Ids of the plain providers come back unchanged."""
    model = model_id.strip().rsplit("/", 1)[-1]
    if "." in model:
        model = _BEDROCK_GEO.sub("", model, count=1)
        model = _VENDOR_PREFIX.sub("", model, count=1)
    if ":" in model:
        model = _BEDROCK_VERSION.sub("", model)
    if "@" in model:
        model = _VERTEX_VERSION.sub("", model)
    if model.startswith("claude-") and not keep_date:
        model = _CLAUDE_SNAPSHOT.sub(r"\1", model)
    return model


# --------------------------------------------------------------------------------------------
# Loading families.yaml
# --------------------------------------------------------------------------------------------


def families_text() -> str:
    """The raw text of families.yaml."""
    from importlib import resources

    return resources.files(__package__).joinpath(FAMILIES_FILE).read_text(encoding="utf-8")


def _plain(text: str) -> Any:
    """The YAML's plain value (for :func:`data_module_text`; a run reads ``families_data.py``)."""
    import yaml

    return yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))


def _str(where: str, row: dict[str, Any], key: str, *, optional: bool = False) -> str | None:
    value = row.get(key)
    if value is None and optional:
        return None
    if not isinstance(value, str):
        raise FamiliesDataError(f"{FAMILIES_FILE}: {where}: {key} must be a string")
    return " ".join(value.split())


def _decimal(where: str, value: object) -> Decimal:
    if not isinstance(value, str):
        raise FamiliesDataError(f"{FAMILIES_FILE}: {where}: write ratios as strings, got {value!r}")
    try:
        number = Decimal(value)
    except InvalidOperation:
        raise FamiliesDataError(f"{FAMILIES_FILE}: {where}: bad ratio {value!r}") from None
    if not Decimal("0.5") <= number <= Decimal(2):
        raise FamiliesDataError(f"{FAMILIES_FILE}: {where}: ratio {value} out of range 0.5-2")
    return number


def _measurement(where: str, name: object, measurements: dict[str, Measurement]) -> Measurement | None:
    if name is None:
        return None
    if not isinstance(name, str) or name not in measurements:
        raise FamiliesDataError(f"{FAMILIES_FILE}: {where}: unknown measurement {name!r}")
    return measurements[name]


def _ratio(where: str, row: object, measurements: dict[str, Measurement]) -> Ratio | None:
    if row is None:
        return None
    if not isinstance(row, dict) or not {"prose", "json"} <= set(row):
        raise FamiliesDataError(f"{FAMILIES_FILE}: {where}: ratio needs prose and json")
    code = row.get("code")
    return Ratio(
        _decimal(where, row["prose"]),
        _decimal(where, row["json"]),
        None if code is None else _decimal(where, code),
        _measurement(where, row.get("measurement"), measurements),
    )


def _framing(where: str, row: object, measurements: dict[str, Measurement]) -> Framing | None:
    if row is None:
        return None
    if not isinstance(row, dict):
        raise FamiliesDataError(f"{FAMILIES_FILE}: {where}: framing must be a mapping")
    values: dict[str, int] = {}
    for key in FRAMING_KEYS:
        value = row.get(key, 0)
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 1000:
            raise FamiliesDataError(f"{FAMILIES_FILE}: {where}: framing.{key} must be an integer 0-1000")
        values[key] = value
    source = _str(where, row, "source")
    assert source is not None
    return Framing(
        **values, source=source, measurement=_measurement(where, row.get("measurement"), measurements)
    )


@record
class _Table:
    """The model families and the patterns that find them, in the order they are tried."""

    families: tuple[FamilySpec, ...]
    patterns: tuple[str, ...]  # compiled on first use (re's own cache), in the order they are tried
    provider_default: dict[str, str]


@lru_cache(maxsize=1)
def _table() -> _Table:
    """The families, read once per process when a family is first asked for, from
    ``families_data.py`` (families.yaml's plain value, checked by :func:`parse_families` when it
    was written)."""
    from agentcost.tokens import families_data

    return parse_families(families_data.DATA, check_patterns=False)


def data_module_text() -> str:
    """The text of ``families_data.py``: families.yaml's plain value, refused as :func:`parse_families`
    refuses it (:func:`_table` reads it back)."""
    from agentcost.infra.pysource import Assignment, module_text

    plain = _plain(families_text())
    parse_families(plain)
    return module_text(
        source=f"agentcost/tokens/{FAMILIES_FILE}",
        command=WRITE_DATA,
        purpose="families.yaml's plain value, keys and lists in the file's order (YAML comments left out).",
        assignments=[Assignment("DATA", "dict[str, Any]", plain)],
    )


def parse_families(data: object, *, check_patterns: bool = True) -> _Table:
    """families.yaml's plain value -> the table :func:`spec_of` searches (checked). A run reads the
    generated module, whose patterns were checked when it was written (``check_patterns=False``):
    each is then compiled only when a lookup reaches it (most lookups stop at one of the first
    three of 19)."""
    if not isinstance(data, dict) or data.get("version") != 1:
        raise FamiliesDataError(f"{FAMILIES_FILE}: expected a mapping with 'version: 1'")
    measurements: dict[str, Measurement] = {}
    for name, row in (data.get("measurements") or {}).items():
        where = f"measurements.{name}"
        if not isinstance(row, dict):
            raise FamiliesDataError(f"{FAMILIES_FILE}: {where} must be a mapping")
        fields = [_str(where, row, k) for k in ("date", "corpus", "script")]
        measurements[name] = Measurement(name, *(f or "" for f in fields))
    specs: list[FamilySpec] = []
    patterns: list[str] = []
    for index, row in enumerate(data.get("families") or ()):
        where = f"families[{index}]"
        if not isinstance(row, dict):
            raise FamiliesDataError(f"{FAMILIES_FILE}: {where} must be a mapping")
        name, label, match, rules, text, source = (
            _str(where, row, k) or "" for k in ("name", "label", "match", "rules", "text", "source")
        )
        if rules not in RULES or text not in TEXTS:
            raise FamiliesDataError(
                f"{FAMILIES_FILE}: {where}: rules must be one of {RULES}, text of {TEXTS}"
            )
        if not isinstance(row.get("exact"), bool):
            raise FamiliesDataError(f"{FAMILIES_FILE}: {where}: exact must be true or false")
        if check_patterns:
            try:
                re.compile(str(row["match"]))
            except re.error as err:
                raise FamiliesDataError(f"{FAMILIES_FILE}: {where}: bad match regex ({err})") from None
        patterns.append(str(row["match"]))
        spec = FamilySpec(
            name,
            label,
            match,
            rules,
            text,
            row["exact"],
            source,
            _str(where, row, "note", optional=True),
            _ratio(where, row.get("ratio"), measurements),
            _framing(where, row.get("framing"), measurements),
            _str(where, row, "framing_name", optional=True) or "",
        )
        if spec.rules in ("template", "harmony") and spec.framing is None:
            raise FamiliesDataError(f"{FAMILIES_FILE}: {where}: {spec.rules} rules need framing")
        if spec.rules == "template" and spec.ratio is None:
            raise FamiliesDataError(f"{FAMILIES_FILE}: {where}: template rules need a ratio")
        specs.append(spec)
    if not specs or specs[-1].match != "":
        raise FamiliesDataError(f"{FAMILIES_FILE}: the last family must match every id (match: '')")
    names = [s.name for s in specs]
    defaults = data.get("provider_default") or {}
    if not isinstance(defaults, dict) or not set(defaults.values()) <= set(names):
        raise FamiliesDataError(f"{FAMILIES_FILE}: provider_default must name families")
    return _Table(tuple(specs), tuple(patterns), {str(k): str(v) for k, v in defaults.items()})


def families() -> tuple[FamilySpec, ...]:
    """Every family, in the order they are tried."""
    return _table().families


# --------------------------------------------------------------------------------------------
# Lookups
# --------------------------------------------------------------------------------------------


@lru_cache(maxsize=4096)
def spec_of(provider: str, model_id: str) -> FamilySpec:
    """The family entry for a model: the first whose pattern the canonical id (else the id as
    written) matches; an id no pattern matches falls to its provider's default family (openai,
    anthropic, google), else ``other``."""
    table = _table()
    model = canonical_model_id(model_id).lower()
    written = model_id.strip().lower()
    for candidate in dict.fromkeys((model, written)):  # "deepseek.r1-v1:0": its vendor names it
        for spec, pattern in zip(table.families[:-1], table.patterns[:-1], strict=True):
            if re.search(pattern, candidate):
                return spec
    default = table.provider_default.get(provider.strip().lower())
    if default is not None:
        return next(s for s in table.families if s.name == default)
    return table.families[-1]


def ratio_method(spec: FamilySpec) -> str:
    """``o200k_base × 0.995 (prose) / × 0.987 (JSON) (Llama 3, measured 2026-12-01)``."""
    ratio = spec.ratio
    if ratio is None:
        return "o200k_base × ratio"
    if ratio.measurement is None:
        return f"o200k_base × {ratio.prose} (no ratio measured for {spec.label})"
    how = f"measured {ratio.measurement.date}"
    if ratio.prose == ratio.json:
        return f"o200k_base × {ratio.prose} ({spec.label}, {how})"
    return f"o200k_base × {ratio.prose} (prose) / × {ratio.json} (JSON) ({spec.label}, {how})"


def family_of(provider: str, model_id: str) -> Family:
    """The family whose rules count ``model_id`` and how, as this run counts it (an offline
    tokenizer is used only when installed and verified; ctok only under ``--count ctok``)."""
    from agentcost.tokens.countmode import mode

    return _family_of(provider, model_id, mode() == "ctok")


@lru_cache(maxsize=4096)
def _family_of(provider: str, model_id: str, ctok_chosen: bool) -> Family:
    spec = spec_of(provider, model_id)
    if spec.text == "tiktoken":
        if spec.rules == "harmony":
            return Family(
                spec.name,
                spec.exact,
                "tiktoken o200k_base text (exact) + harmony framing (approximate)",
                spec.source,
                "tiktoken o200k_base",
                spec.note,
            )
        return Family(
            spec.name,
            True,
            "tiktoken, the model's OpenAI encoding (exact) + OpenAI cookbook framing",
            spec.source,
            "tiktoken",
        )
    if spec.text == "ctok-or-ratio":
        if ctok_chosen and _ctok_installed():
            method = "ctok (Claude tokenizer reconstruction) + calibrated framing (approximate)"
            backend = "ctok"
        else:
            method = "o200k_base × Claude ratio + calibrated framing (approximate)"
            backend = "o200k_base × ratio"
        return Family(spec.name, False, method, spec.source, backend, spec.note)
    if spec.rules == "google":
        return Family(
            spec.name,
            False,
            "o200k_base × Gemini ratio (approximate, no offline Gemini tokenizer)",
            spec.source,
            "o200k_base × ratio",
            spec.note,
        )
    if spec.text != "ratio":
        from agentcost.tokens import offline

        status = offline.status(spec.text)
        if status.ready:
            return Family(
                spec.name,
                True,
                f"{status.backend} (exact text) + {spec.framing_label}",
                spec.source,
                status.backend,
                spec.note,
            )
        return Family(
            spec.name,
            False,
            f"{ratio_method(spec)} + {spec.framing_label} (approximate)",
            _ratio_source(spec),
            "o200k_base × ratio",
            status.why,
        )
    return Family(
        spec.name,
        False,
        f"{ratio_method(spec)} + {spec.framing_label} (approximate)",
        _ratio_source(spec),
        "o200k_base × ratio",
        spec.note,
    )


def _ctok_installed() -> bool:
    """Whether ``ctok`` can be imported, without importing it."""
    import importlib.util
    import sys

    if "ctok" in sys.modules:
        return sys.modules["ctok"] is not None
    try:
        return importlib.util.find_spec("ctok") is not None
    except (ImportError, ValueError):
        return False


def _ratio_source(spec: FamilySpec) -> str:
    if spec.ratio is not None and spec.ratio.measurement is not None:
        return f"{spec.source}; ratio {spec.ratio.measurement.cite()}"
    return spec.source


def maker_of(provider: str, model_id: str) -> str:
    """Whose rules apply: ``anthropic`` (Claude on any host), ``google`` (Gemini, Gemma),
    ``openai`` (OpenAI models on any host), else the family's name (``gpt-oss``, ``llama3``, ...)."""
    name = spec_of(provider, model_id).name
    return {"openai": "openai", "claude": "anthropic", "gemini": "google", "gemma": "google"}.get(name, name)


if __name__ == "__main__":
    import sys
    from pathlib import Path

    from agentcost.infra.pysource import write_main

    target = Path(__file__).with_name("families_data.py")
    sys.exit(write_main(sys.argv[1:], target, data_module_text, WRITE_DATA))
