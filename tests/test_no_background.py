"""No process outlives the command that started it (issue 27).

The runs here are given what once started a background server: every standard stream on a real
terminal and no ``CI`` variable. Each child gets a marker in its environment, which every process it
starts inherits (a daemon too, even one that leaves the session); once the command has exited, no
process on the machine may still carry the marker. Nothing here waits or times anything: a process
started by the run exists before the run exits, so the scan after the exit sees it.
"""

from __future__ import annotations

import os
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from tests.conftest import ROOT

pytestmark = pytest.mark.skipif(not Path("/proc/self/environ").exists(), reason="reads /proc (Linux)")


def carrying(marker: bytes) -> list[int]:
    """The processes whose environment holds ``marker``."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            environ = (entry / "environ").read_bytes()
        except OSError:  # gone, or not ours to read
            continue
        if marker in environ.split(b"\0"):
            found.append(int(entry.name))
    return found


def run_at_a_terminal(args: list[str], marker: str) -> int:
    """``python -m agentcost ARGS`` with stdin, stdout and stderr on one pseudo-terminal, ``CI``
    unset, ``marker`` in its environment; its exit code once it has exited and the terminal is
    drained."""
    controller, terminal = os.openpty()
    env = {k: v for k, v in os.environ.items() if k != "CI"}
    env.update(AGENTCOST_TEST_MARKER=marker, COLUMNS="100", PYTHONPATH=str(ROOT))
    proc = subprocess.Popen(
        [sys.executable, "-m", "agentcost", *args],
        cwd=ROOT,
        env=env,
        stdin=terminal,
        stdout=terminal,
        stderr=terminal,
        start_new_session=True,  # its own session and controlling terminal, as in a terminal window
    )
    os.close(terminal)
    while True:
        try:
            if not os.read(controller, 65536):
                break
        except OSError:  # EIO: every process holding the terminal has closed it
            break
    code = proc.wait(timeout=120)
    os.close(controller)
    return code


def test_a_run_at_a_terminal_leaves_no_process_behind() -> None:
    """``agentcost estimate`` at a terminal, where a background server once started and stayed for
    15 minutes; every command starts the same way (``agentcost.cli.main``), so one stands for all."""
    marker = f"agentcost-test-{uuid.uuid4().hex}"
    assert run_at_a_terminal(["estimate", "scenarios/bugfix.yaml", "--as-of", "2026-11-30"], marker) == 0
    assert carrying(f"AGENTCOST_TEST_MARKER={marker}".encode()) == []


def test_the_scan_finds_a_process_that_stays() -> None:
    """The check itself works: a child left running with the marker is found."""
    marker = f"agentcost-test-{uuid.uuid4().hex}"
    env = dict(os.environ, AGENTCOST_TEST_MARKER=marker)
    stay = subprocess.Popen(
        [sys.executable, "-c", "import sys; print('running', flush=True); sys.stdin.read()"],
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
    )
    try:
        # Scan only once the child says it runs: on a busy machine the new process may not yet
        # show its environment in /proc when Popen returns.
        assert stay.stdout is not None and stay.stdout.readline() == b"running\n"
        assert carrying(f"AGENTCOST_TEST_MARKER={marker}".encode()) == [stay.pid]
    finally:
        stay.communicate(b"")
    assert carrying(f"AGENTCOST_TEST_MARKER={marker}".encode()) == []
