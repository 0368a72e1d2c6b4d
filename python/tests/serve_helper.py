"""``sandmle serve`` for the adapter tests (TRL, verifiers, OpenEnv helpers,
the README's examples): the real binary on a free loopback port over a
folder holding the bundled wine seed, its stderr collected so that a test
can compare what an adapter reports with the server's own session lines."""

from __future__ import annotations

import importlib
import json
import os
import queue
import shutil
import signal
import subprocess
import sys
import threading
from pathlib import Path
from typing import List

import pytest

from conftest import REPO, bwrap_works

GUARD_S = 120  # "does not hang" guards only; nothing asserts on time

COPY_SUBMISSION = (
    "<think>Start from the sample submission.</think>\n"
    "<tool_call>\npython\n<code>\n"
    "import shutil\n"
    "shutil.copy('sample_submission.csv', 'submission.csv')\n"
    "print('copied')\n"
    "</code>\n</tool_call>"
)
SCORE = '<think>Grade it.</think><tool_call>{"name": "Score", "arguments": {}}</tool_call>'
FINISH = "<think>Done.</think><answer>submission.csv</answer>"
GOOD_EPISODE = [COPY_SUBMISSION, SCORE, FINISH]


def require(module: str):
    """``module``, imported; skips the calling test module when it is not
    installed, unless ``SANDMLE_REQUIRE_ADAPTERS`` is set (CI sets it, so
    that the adapters' tests cannot be skipped there unnoticed)."""
    if os.environ.get("SANDMLE_REQUIRE_ADAPTERS"):
        return importlib.import_module(module)
    return pytest.importorskip(module)


def uv_on_path() -> None:
    """verifiers runs its harness programs with ``uv``: found on ``PATH``, or
    beside this Python (``pip install uv`` in the virtualenv), else skip."""
    here = str(Path(sys.executable).parent)
    if shutil.which("uv") is None and shutil.which("uv", path=here):
        os.environ["PATH"] = here + os.pathsep + os.environ.get("PATH", "")
    if shutil.which("uv") is None:
        if os.environ.get("SANDMLE_REQUIRE_ADAPTERS"):
            pytest.fail("uv is not on PATH (verifiers runs its harness programs with it)")
        pytest.skip("uv is not on PATH (verifiers runs its harness programs with it)")


class Server:
    """A running ``sandmle serve``: ``url``, and ``sessions()``, the JSON
    lines it logged for the sessions that ended so far."""

    def __init__(self, proc: subprocess.Popen, url: str):
        self.proc = proc
        self.url = url
        self._lines: List[str] = []
        self._lock = threading.Lock()
        threading.Thread(target=self._drain, daemon=True).start()

    def _drain(self) -> None:
        for line in self.proc.stderr:
            with self._lock:
                self._lines.append(line)

    def sessions(self) -> List[dict]:
        with self._lock:
            lines = list(self._lines)
        out = []
        for line in lines:
            if line.startswith("{"):
                try:
                    row = json.loads(line)
                except ValueError:
                    continue
                if row.get("event") == "session":
                    out.append(row)
        return out

    def played(self) -> List[dict]:
        """The sessions that ran at least one step (not the prompts' resets)."""
        return [s for s in self.sessions() if s.get("steps")]

    def played_since(self, before: int, n: int) -> List[dict]:
        """The sessions played after the first ``before``, once ``n`` of
        them have logged: a session logs its line when it has closed and
        its workspace is gone, which may be a moment after its client saw
        the episode end (a bounded wait, never a timing assertion)."""
        import time

        deadline = time.monotonic() + GUARD_S
        while len(self.played()) < before + n and time.monotonic() < deadline:
            time.sleep(0.05)
        return self.played()[before:]

    def stderr(self) -> str:
        with self._lock:
            return "".join(self._lines)


def start(envs: Path, sandmle_bin: Path, max_sessions: int = 16) -> Server:
    shutil.copytree(REPO / "examples" / "seeds" / "wine", envs / "wine")
    cmd = [str(sandmle_bin), "--json", "serve", "--envs", str(envs), "--host", "127.0.0.1",
           "--port", "0", "--max-sessions", str(max_sessions)]
    if not bwrap_works():
        cmd.append("--unsandboxed")
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    lines: "queue.Queue[str]" = queue.Queue()
    threading.Thread(target=lambda: lines.put(proc.stdout.readline()), daemon=True).start()
    try:
        first = lines.get(timeout=GUARD_S)
    except queue.Empty:
        proc.kill()
        pytest.fail("sandmle serve did not start")
    if not first:
        proc.kill()
        pytest.fail(f"sandmle serve exited: {proc.stderr.read()}")
    return Server(proc, json.loads(first)["listening"])


def stop(server: Server) -> None:
    server.proc.send_signal(signal.SIGTERM)
    try:
        server.proc.wait(timeout=GUARD_S)
    except subprocess.TimeoutExpired:
        server.proc.kill()
        pytest.fail("sandmle serve did not shut down on SIGTERM")
    assert server.proc.returncode == 0, server.stderr()
