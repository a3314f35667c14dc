"""The background build of o200k_base (``warm_up_encoding``) never races the caller's imports.

Cold runs once died with ``ImportError: partially initialized module 'tiktoken.core'`` (exit 3, about
1 in 200): the warm-up thread imported tiktoken while the main thread did too. Now every import the
build needs happens on the caller's thread before the thread starts."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

from tests.conftest import ROOT

PROBE = textwrap.dedent(
    """
    import sys
    from agentcost.tokens.encodings import warm_up_encoding
    assert "tiktoken" not in sys.modules
    warm_up_encoding("o200k_base")
    # the thread has only just started (reading and parsing the BPE file takes ~0.3 s): the modules
    # it will use must already be whole, imported by this thread
    module = sys.modules.get("tiktoken")
    print(module is not None and hasattr(module, "Encoding") and "tiktoken.core" in sys.modules)
    """
)


def test_warm_up_imports_tiktoken_before_its_thread_starts() -> None:
    done = subprocess.run(
        [sys.executable, "-c", PROBE], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert (done.returncode, done.stdout.strip(), done.stderr) == (0, "True", "")


def test_cold_runs_started_together_all_succeed(tmp_path: Path) -> None:
    """Two cold CLI runs at once, each with its own empty cache (so each one warms up and races its own
    warm-up thread; the deterministic check of the fix is the test above)."""
    cmd = [
        sys.executable,
        "-m",
        "agentcost",
        "estimate",
        "scenarios/bugfix.yaml",
        "--as-of",
        "2026-11-30",
        "-q",
    ]
    procs = []
    for n in range(2):
        env = dict(os.environ, XDG_CACHE_HOME=str(tmp_path / str(n)))
        procs.append(
            subprocess.Popen(
                cmd, env=env, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
            )
        )
    outs = [p.communicate(timeout=300) for p in procs]
    assert [p.returncode for p in procs] == [0] * 2, outs
    assert {out for out, _ in outs} == {"0.0320049\n"} and {err for _, err in outs} == {""}
