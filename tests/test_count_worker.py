"""The counting child (agentcost.tokens.worker): a forked process builds o200k_base beside the run
and counts texts for it, with the same counts as this process; anything wrong falls back to counting
here."""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from agentcost.tokens import encodings, memo, worker
from agentcost.tokens.memo import TokenMemo, ordinary_tokens

TEXTS = [
    "",
    "Hello, world",
    "def total(order):\n    return sum(line.amount for line in order.lines)\n",
    "naïve café — 東京 🚀",
    "lone surrogate \udc80 inside",
    "<|endoftext|> is plain text here",
    "x" * 5_000,
]

pytestmark = pytest.mark.skipif(not worker.forking_allowed(), reason="the counting child needs fork (Linux)")


@pytest.fixture
def fresh(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """As in a new process: no encoding built here, no child started."""
    monkeypatch.setattr(encodings, "_ENCODINGS", {})
    monkeypatch.setattr(worker, "_STARTED", set())
    monkeypatch.setattr(worker, "_CHILDREN", {})
    yield
    worker.stop_all()


def _local(texts: list[str]) -> list[int]:
    built = encodings.get_encoding("o200k_base")
    return [ordinary_tokens(built, t) for t in texts]


@pytest.mark.usefixtures("fresh")
def test_the_child_counts_as_this_process_does() -> None:
    assert worker.start("o200k_base")
    assert not worker.start("o200k_base")  # never twice
    count = worker.counter("o200k_base")
    assert count is not None
    counted = count(TEXTS)
    assert not encodings.is_built("o200k_base")  # the child built it, not this process
    assert counted == _local(TEXTS)
    assert counted[1] == 3  # "Hello", ",", " world"


@pytest.mark.usefixtures("fresh")
def test_the_memo_counts_through_the_child_and_caches_the_same() -> None:
    assert worker.start("o200k_base")
    through = TokenMemo(persistent=False)
    through.prefetch_tiktoken("o200k_base", TEXTS)
    assert through.stats("o200k_base").texts_counted == len([t for t in TEXTS if t])
    assert not encodings.is_built("o200k_base")
    assert [through.tiktoken("o200k_base", t) for t in TEXTS] == _local(TEXTS)


@pytest.mark.usefixtures("fresh")
def test_a_dead_child_falls_back_to_counting_here() -> None:
    assert worker.start("o200k_base")
    [child] = worker._CHILDREN.values()
    os.kill(child.pid, 9)
    count = worker.counter("o200k_base")
    assert count is not None and count(["Hello, world"]) is None  # the pipe is closed: no answer
    assert worker.counter("o200k_base") is None  # and it is not asked again
    with pytest.raises(ChildProcessError):
        os.waitpid(child.pid, os.WNOHANG)  # reaped
    assert memo.TokenMemo(persistent=False).tiktoken("o200k_base", "Hello, world") == 3


@pytest.mark.usefixtures("fresh")
def test_no_child_once_the_encoding_is_built_or_with_other_threads() -> None:
    stop = threading.Event()
    other = threading.Thread(target=stop.wait)
    other.start()
    try:
        assert not worker.start("o200k_base")  # a fork would copy one thread of two
    finally:
        stop.set()
        other.join()
    worker._STARTED.clear()
    encodings.get_encoding("o200k_base")
    assert not worker.start("o200k_base") and worker.counter("o200k_base") is None


@pytest.mark.usefixtures("fresh")
def test_stop_all_kills_and_reaps() -> None:
    assert worker.start("o200k_base")
    [child] = worker._CHILDREN.values()
    worker.stop_all()
    with pytest.raises(ChildProcessError):
        os.waitpid(child.pid, os.WNOHANG)


@pytest.mark.usefixtures("fresh")
def test_the_child_ends_when_its_parent_dies_without_a_word() -> None:
    """A parent killed (SIGTERM, SIGKILL) closes its pipe ends without asking the child to stop: the
    child's input then ends, and so does the child (it holds none of the parent's ends itself)."""
    import time

    assert worker.start("o200k_base")
    child = worker._CHILDREN.pop("o200k_base")
    os.close(child.to_child)  # what the kernel does for a parent that dies
    os.close(child.from_child)
    deadline = time.monotonic() + 60
    while os.waitpid(child.pid, os.WNOHANG) == (0, 0):
        assert time.monotonic() < deadline, "the counting child outlived its parent's pipes"
        time.sleep(0.02)


def test_a_scenario_counted_through_the_child_is_the_same(
    monkeypatch: pytest.MonkeyPatch, fresh: None
) -> None:
    from agentcost.scenario.load import read_scenario
    from agentcost.tokens.count import count_tokens

    monkeypatch.setenv("AGENTCOST_CACHE", "off")
    scenario = read_scenario(Path(__file__).resolve().parent.parent / "scenarios" / "bugfix.yaml")
    assert worker.start("o200k_base")
    through = TokenMemo(persistent=False)
    counts = count_tokens(
        scenario, provider="anthropic", model_id="claude-sonnet-4-5", memo=through, use_ctok=False
    )
    assert not encodings.is_built("o200k_base") and through.stats("o200k_base").texts_counted > 10
    worker.stop_all()
    here = TokenMemo(persistent=False)
    again = count_tokens(
        scenario, provider="anthropic", model_id="claude-sonnet-4-5", memo=here, use_ctok=False
    )
    assert encodings.is_built("o200k_base") and here.stats("o200k_base").texts_counted > 10
    assert counts == again
    assert counts.prefix > 1_000  # the Claude tool prompt, three tools and the system prompt
