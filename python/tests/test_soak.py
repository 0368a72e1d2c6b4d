"""A soak of `sandmle serve`: 32 sessions of mixed hostile and normal steps
for two minutes (``SANDMLE_SOAK_S`` overrides), as a trainer's worst day
would bring them. Throughout, ``/health`` must answer; the server's resident
memory must stay under ``RSS_BOUND_MB``; at the end SIGTERM must stop it
cleanly and no workspace may be left in its temporary folder.

Hostile steps: a 30,000-deep directory chain, 20,000 files past the
workspace's file budget, a fork bomb, a flood of output, a step that outlives its
time limit, a memory hog, a `chmod 000` folder, a submission linked to a
host file, snooping in ``/proc``. Hostile clients: hanging up mid-step,
sending messages without waiting for replies. Normal steps: copying the
sample submission, a pipeline step, Score, the answer.
"""

import asyncio
import json
import os
import queue
import random
import signal
import subprocess
import threading
import time
import urllib.request
from pathlib import Path

import pytest

from conftest import REPO, bwrap_works

SESSIONS = 32
SOAK_S = float(os.environ.get("SANDMLE_SOAK_S", "120"))
#: The bound on the server's resident memory, documented in the README.
RSS_BOUND_MB = 512

websockets = pytest.importorskip("websockets")

HOSTILE = {
    "deep_chain": "import os\nfor i in range(30000):\n    os.mkdir('d'); os.chdir('d')",
    "file_flood": "for i in range(20000):\n    open(f'e{i}', 'w').close()",
    "fork_bomb": "import os, time\nfor i in range(2000):\n    try:\n        if os.fork() == 0:\n            time.sleep(30); os._exit(0)\n    except OSError:\n        break",
    "output_flood": "import sys\nfor i in range(50000):\n    sys.stdout.write('x' * 1000 + '\\n')",
    "outlives_its_limit": "import time\ntime.sleep(600)",
    "memory_hog": "b = bytearray(16 << 30)",
    "chmod_000": "import os\nos.makedirs('locked/inner')\nopen('locked/inner/f', 'w').write('x')\nos.chmod('locked/inner', 0)\nos.chmod('locked', 0)",
    "linked_submission": "import os\nos.symlink('/etc/passwd', 'submission.csv')",
    "proc_snooping": "import os\nprint(os.listdir('/proc'))\nprint(open('/proc/1/cmdline','rb').read())\nprint(os.listdir('/'))",
}
NORMAL = {
    "copy_sample": "import shutil\nshutil.copy('sample_submission.csv', 'submission.csv')\nprint('copied')",
}
SPEC = {"steps": [{"op": "impute", "strategy": "median"}], "model": {"type": "logistic_regression", "c": 1.0}}


def code_turn(code: str) -> str:
    return f"<think>run</think>\n<tool_call>\npython\n<code>\n{code}\n</code>\n</tool_call>"


PIPELINE = "<think>fit</think><tool_call>" + json.dumps({"name": "RunPipeline", "arguments": {"spec": SPEC}}) + "</tool_call>"
SCORE = '<think>grade</think><tool_call>{"name": "Score", "arguments": {}}</tool_call>'
ANSWER = "<think>done</think><answer>submission.csv</answer>"


def run_dirs(tmp: Path) -> list:
    return [p for p in tmp.iterdir() if p.name.startswith("sandmle-run-")]


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


async def session_loop(url: str, idx: int, deadline: float, counts: dict) -> None:
    rng = random.Random(idx)
    while time.monotonic() < deadline:
        try:
            async with websockets.connect(url, max_size=None, open_timeout=60) as ws:
                reset = {"type": "reset", "data": {"task_id": "wine", "tools": ["python", "pipeline"],
                                                    "step_timeout_s": 5, "max_turns": 8, "seed": idx}}
                await ws.send(json.dumps(reset))
                reply = json.loads(await asyncio.wait_for(ws.recv(), 300))
                if reply["type"] == "error":
                    counts["refused"] += 1
                    await asyncio.sleep(1)
                    continue
                for _ in range(rng.randint(1, 4)):
                    kind = rng.random()
                    if kind < 0.45:
                        name = rng.choice(sorted(HOSTILE))
                        turn = code_turn(HOSTILE[name])
                    elif kind < 0.65:
                        name, turn = "copy_sample", code_turn(NORMAL["copy_sample"])
                    elif kind < 0.8:
                        name, turn = "pipeline", PIPELINE
                    else:
                        name, turn = "score", SCORE
                    await ws.send(json.dumps({"type": "step", "data": {"content": turn}}))
                    if rng.random() < 0.1:
                        counts["hung_up"] += 1
                        break  # hang up mid-step
                    if rng.random() < 0.05:
                        # Messages without waiting for the replies.
                        for _ in range(5):
                            await ws.send(json.dumps({"type": "state"}))
                        for _ in range(6):
                            await asyncio.wait_for(ws.recv(), 300)
                    else:
                        step = json.loads(await asyncio.wait_for(ws.recv(), 300))
                        assert step["type"] in ("observation", "error"), step
                    counts[name] = counts.get(name, 0) + 1
                    counts["steps"] += 1
                else:
                    await ws.send(json.dumps({"type": "step", "data": {"content": ANSWER}}))
                    await asyncio.wait_for(ws.recv(), 300)
                    await ws.send(json.dumps({"type": "close"}))
                    counts["episodes"] += 1
        except (OSError, asyncio.TimeoutError, websockets.exceptions.WebSocketException) as e:
            counts["client_errors"] += 1
            counts.setdefault("last_error", repr(e))
            await asyncio.sleep(0.5)


def health_loop(base: str, stop: threading.Event, out: dict) -> None:
    while not stop.is_set():
        started = time.monotonic()
        try:
            with urllib.request.urlopen(base + "/health", timeout=10) as r:
                ok = r.status == 200 and json.loads(r.read())["status"] == "healthy"
        except OSError:
            ok = False
        out["checks"] += 1
        out["slowest_s"] = max(out["slowest_s"], time.monotonic() - started)
        if not ok:
            out["failures"] += 1
        stop.wait(0.5)


@pytest.mark.skipif(not bwrap_works(), reason="the soak's hostile programs need the sandbox")
def test_soak_of_hostile_and_normal_sessions(tmp_path, sandmle_bin):
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    for d in (tmp_path, tmp):
        d.chmod(0o755)
    index = tmp_path / "index.jsonl"
    index.write_text(json.dumps({"path": str(REPO / "examples" / "seeds" / "wine")}) + "\n")
    cmd = [str(sandmle_bin), "--json", "serve", "--index", str(index), "--port", "0",
           "--max-sessions", str(SESSIONS)]
    env = dict(os.environ, TMPDIR=str(tmp))
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env)
    lines: "queue.Queue[str]" = queue.Queue()
    threading.Thread(target=lambda: lines.put(proc.stdout.readline()), daemon=True).start()
    info = json.loads(lines.get(timeout=120))
    base = info["listening"]
    url = base.replace("http://", "ws://") + "/ws"
    health = {"checks": 0, "failures": 0, "slowest_s": 0.0}
    stop = threading.Event()
    checker = threading.Thread(target=health_loop, args=(base, stop, health), daemon=True)
    checker.start()
    rss = {"max_mb": 0.0}

    def sample_rss():
        while not stop.is_set():
            rss["max_mb"] = max(rss["max_mb"], rss_mb(proc.pid))
            stop.wait(1.0)

    sampler = threading.Thread(target=sample_rss, daemon=True)
    sampler.start()
    counts = {"steps": 0, "episodes": 0, "hung_up": 0, "refused": 0, "client_errors": 0}
    deadline = time.monotonic() + SOAK_S

    async def main():
        await asyncio.gather(*(session_loop(url, i, deadline, counts) for i in range(SESSIONS)))

    try:
        asyncio.run(main())
    finally:
        stop.set()
        checker.join(timeout=30)
        sampler.join(timeout=30)
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
            pytest.fail("sandmle serve did not stop within 60 s of SIGTERM")
    print(f"\nsoak: {json.dumps(counts)} health: {json.dumps(health)} rss: {rss['max_mb']:.0f} MB")
    assert proc.returncode == 0
    assert health["checks"] > 0 and health["failures"] == 0, health
    assert rss["max_mb"] < RSS_BOUND_MB, rss
    assert counts["steps"] > SESSIONS, counts
    assert not run_dirs(tmp), [p.name for p in run_dirs(tmp)]
