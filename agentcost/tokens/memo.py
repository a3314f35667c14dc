"""The token memo: each distinct text counted once per process and counting scheme.

Comparing five OpenAI models on one scenario tokenizes each text once; counts also go to the
persistent cache (:mod:`agentcost.infra.diskcache`) so that a later process need not load the
encoding at all.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import replace

from agentcost.infra.record import record
from agentcost.tokens.encodings import LONG_TEXT as LONG_TEXT  # re-exported: it lived here
from agentcost.tokens.encodings import get_encoding, tiktoken_scheme_id
from agentcost.tokens.encodings import ordinary_tokens as ordinary_tokens  # re-exported: it lived here

ROLE_COUNTS: dict[str, dict[str, int]] = {
    encoding: {"system": 1, "developer": 1, "user": 1, "assistant": 1, "tool": 1, "function": 1}
    for encoding in ("o200k_base", "cl100k_base")
}
"""Tokens of the chat roles' names in the bundled encodings (each one token; tests/test_tokens.py
checks them against the encodings). Known without loading an encoding, so that a scenario whose
texts are all given as token counts, or all cached, never builds one for the message framing."""


@record(frozen=False)
class MemoStats:
    """Per counting scheme: texts actually tokenized, their characters, and memo hits."""

    texts_counted: int = 0
    chars_counted: int = 0
    hits: int = 0
    seconds: float = 0.0  # time spent tokenizing (not loading)
    disk_hits: int = 0  # texts found in the persistent cache (agentcost.infra.diskcache), not tokenized


class TokenMemo:
    """``text -> token count`` per counting scheme ("o200k_base", "cl100k_base", "ctok 4.7", ...).

    Shared by every model that uses the same scheme, so a text is tokenized once however many
    models are compared. Counts of OpenAI encodings use ``encode_ordinary`` (special-token text
    such as ``<|endoftext|>`` is counted as plain text, never rejected). Thread-safe for readers;
    concurrent writers may count a text twice (harmless).

    ``persistent``: also look counts up in, and add them to, the on-disk cache
    (:mod:`agentcost.infra.diskcache`: the store's key of the scheme id, which adds agentcost's code and
    every dependency, and the sha256 of the text), so that a later process
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
        fixed = ROLE_COUNTS.get(encoding_name, {}).get(text)
        if fixed is not None:
            return fixed
        table, stats = self._table(encoding_name)
        cached = table.get(text)
        if cached is not None:
            stats.hits += 1
            return cached

        def counter(t: str) -> int:
            return ordinary_tokens(get_encoding(encoding_name), t)

        return self.count(encoding_name, text, counter, disk_scheme=self._disk_scheme(encoding_name))

    def _disk_scheme(self, encoding_name: str) -> str | None:
        return tiktoken_scheme_id(encoding_name) if self.persistent else None

    def prefetch_tiktoken(self, encoding_name: str, texts: Iterable[str]) -> None:
        """Count, once each, the texts not yet memoised (the encoding is loaded only if needed:
        texts the persistent cache has are not tokenized).

        One thread: tiktoken's threaded ``encode_ordinary_batch`` showed no consistent gain over a
        plain loop on a 2-core machine (bench/bench_tokens.py: 10-23 MB/s either way, noisy).
        """

        def load() -> Callable[[str], int]:
            encoding = get_encoding(encoding_name)
            return lambda text: ordinary_tokens(encoding, text)

        self.prefetch(
            encoding_name,
            texts,
            load,
            disk_scheme=tiktoken_scheme_id(encoding_name),
        )

    def prefetch(
        self,
        scheme: str,
        texts: Iterable[str],
        load: Callable[[], Callable[[str], int]],
        *,
        disk_scheme: str | None = None,
    ) -> None:
        """:meth:`prefetch_tiktoken` for any counter: ``load()`` gives it, called only when some text
        is neither memoised nor in the persistent cache (an offline tokenizer's vocabulary is then
        not loaded at all)."""
        table, stats = self._table(scheme)
        missing = list({t: None for t in texts if t and t not in table})
        if not missing:
            return
        disk = disk_scheme if self.persistent else None
        stored = self._from_disk(disk, missing)
        if stored:
            table.update(stored)
            stats.disk_hits += len(stored)
            missing = [t for t in missing if t not in stored]
            if not missing:
                return
        counted: dict[str, int] = {}
        counter = load()
        started = time.perf_counter()
        for text in missing:
            counted[text] = table[text] = counter(text)
        stats.seconds += time.perf_counter() - started
        stats.texts_counted += len(missing)
        stats.chars_counted += sum(len(t) for t in missing)
        self._to_disk(disk, counted)

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
