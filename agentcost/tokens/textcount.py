"""Shared parts of every family's counting rules: the notes a count collects, JSON detection, and
texts counted as ``ceil(o200k_base count × ratio)``."""

from __future__ import annotations

import json
import math
from collections.abc import Iterable
from dataclasses import field
from decimal import Decimal
from typing import Literal

from agentcost.infra.record import record
from agentcost.scenario.model import Content
from agentcost.tokens.memo import TokenMemo

TextKind = Literal["prose", "json"]
KindArg = Literal["prose", "json", "auto"]


@record(frozen=False)
class Notes:
    """Notes gathered while counting, each kept once, in order."""

    items: list[str] = field(default_factory=list)

    def add(self, note: str | None) -> None:
        if note and note not in self.items:
            self.items.append(note)


def looks_like_json(text: str) -> bool:
    stripped = text.strip()
    if not stripped or stripped[0] not in "{[" or stripped[-1] not in "}]":
        return False
    try:
        json.loads(stripped)
    except ValueError:
        return False
    return True


class RatioCounter:
    """``ceil(o200k_base count × ratio)``: the JSON ratio for texts that parse as JSON (or are said
    to be JSON), the prose ratio for every other text."""

    def __init__(self, prose: Decimal, json_ratio: Decimal, memo: TokenMemo) -> None:
        self.memo = memo
        self.prose_ratio = prose
        self.json_ratio = json_ratio
        self._kinds: dict[str, TextKind] = {}

    def kind(self, text: str) -> TextKind:
        known = self._kinds.get(text)
        if known is None:
            known = "json" if looks_like_json(text) else "prose"
            self._kinds[text] = known
        return known

    def __call__(self, text: str, kind: KindArg) -> int:
        if not text:
            return 0
        base = self.memo.tiktoken("o200k_base", text)
        resolved = self.kind(text) if kind == "auto" else kind
        ratio = self.json_ratio if resolved == "json" else self.prose_ratio
        return math.ceil(Decimal(base) * ratio)

    def prefetch(self, texts: Iterable[str]) -> None:
        self.memo.prefetch_tiktoken("o200k_base", texts)


class BodyTail:
    """What every family's rules share: the final answer and a server tool's results count as
    their body (a family with output framing overrides :meth:`final`), and the notes gathered."""

    _notes: Notes

    def _body(self, content: Content) -> int:
        raise NotImplementedError

    def final(self, content: Content) -> int:
        return self._body(content)

    def server_result(self, content: Content) -> int:
        """A server tool's results as they enter the context (no framing known: the body only)."""
        return self._body(content)

    def notes(self) -> tuple[str, ...]:
        return tuple(self._notes.items)
