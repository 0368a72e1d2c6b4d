#!/usr/bin/env python3
"""`sandmle serve` speed: sessions per second and step-latency overhead at
1, 8 and 32 concurrent sessions, on a micro environment (breast cancer
shrunk to 200 training rows) with PanelPolicy-style pipeline steps.

Each session is one episode over the WebSocket: `reset` (pipeline tool),
a `RunPipeline` step (median imputation + logistic regression), a `Score`
step, and the final answer; then `close`. C clients run sessions back to
back for `--seconds` each level. Reported per level:

- `sessions_per_s`: finished episodes per second over the run;
- `pipeline_step_ms`: the client's round-trip time of the RunPipeline step;
- `pipeline_work_ms`: the server's own wall time of that step (`info.wall_ms`,
  whole milliseconds);
- `step_overhead_ms`: round trip minus work, per step (protocol, JSON,
  scheduling and queueing on the server's two cores);
- `state_rtt_ms`: a `state` message's round trip (no work at all).

With `--long-steps N` it also measures keepalive during long code steps: N
sessions in turn, each one sandboxed Python step that sleeps `--long-step-s`
seconds (10 by default) while the client pings every second. Reported: the
step's round trip minus its own work (`info.wall_ms`), and each ping's pong
latency while the step ran (the server answers pings as it reads its socket
during the step). Code steps need bubblewrap and the sandbox's Python
(`SANDMLE_PYTHON`).

Medians with the 10th-90th percentile range. Needs Python's `websockets`
package (openenv-core installs it). Usage:

    cargo build --release --bin sandmle
    python3 examples/scripts/serve_speed.py [--sandmle target/release/sandmle] [--seconds 20]
"""

import argparse
import asyncio
import json
import pathlib
import statistics
import subprocess
import tempfile
import time

import websockets

ROOT = pathlib.Path(__file__).resolve().parents[2]
SPEC = {"steps": [{"op": "impute", "strategy": "median"}], "model": {"type": "logistic_regression", "c": 1.0}}
PIPELINE = ("<think>fit</think>\n<tool_call>\n"
            + json.dumps({"name": "RunPipeline", "arguments": {"spec": SPEC}}) + "\n</tool_call>")
SCORE = '<think>grade</think><tool_call>{"name": "Score", "arguments": {}}</tool_call>'
ANSWER = "<think>done</think><answer>submission.csv</answer>"


def spread(xs):
    xs = sorted(xs)
    if not xs:
        return None
    q = statistics.quantiles(xs, n=10) if len(xs) > 1 else [xs[0]] * 9
    return {"median": round(statistics.median(xs), 3), "p10": round(q[0], 3), "p90": round(q[-1], 3), "n": len(xs)}


async def ask(ws, frame):
    start = time.perf_counter()
    await ws.send(json.dumps(frame))
    reply = json.loads(await ws.recv())
    if reply.get("type") == "error":
        raise RuntimeError(reply)
    return reply, (time.perf_counter() - start) * 1000


async def client(url, deadline, out):
    while time.perf_counter() < deadline:
        async with websockets.connect(url, max_size=None) as ws:
            await ask(ws, {"type": "reset", "data": {"tools": ["pipeline"]}})
            reply, rtt = await ask(ws, {"type": "step", "data": {"content": PIPELINE}})
            work = reply["data"]["observation"]["info"]["wall_ms"]
            out["step"].append(rtt)
            out["work"].append(work)
            out["overhead"].append(rtt - work)
            _, rtt = await ask(ws, {"type": "state"})
            out["state"].append(rtt)
            await ask(ws, {"type": "step", "data": {"content": SCORE}})
            reply, _ = await ask(ws, {"type": "step", "data": {"content": ANSWER}})
            assert reply["data"]["done"], reply
            await ws.send(json.dumps({"type": "close"}))
            out["sessions"] += 1


async def long_steps(url, n, sleep_s):
    code = ("<think>wait</think>\n<tool_call>\npython\n<code>\nimport time, shutil\n"
            f"time.sleep({sleep_s})\nshutil.copy('sample_submission.csv', 'submission.csv')\n</code>\n</tool_call>")
    overhead, pongs = [], []
    for _ in range(n):
        async with websockets.connect(url, max_size=None, ping_interval=None) as ws:
            await ask(ws, {"type": "reset", "data": {"tools": ["python"]}})
            start = time.perf_counter()
            await ws.send(json.dumps({"type": "step", "data": {"content": code}}))
            reply_task = asyncio.ensure_future(ws.recv())
            while not reply_task.done():
                await asyncio.wait([reply_task], timeout=1.0)
                if reply_task.done():
                    break
                sent = time.perf_counter()
                waiter = await ws.ping()
                await waiter
                pongs.append((time.perf_counter() - sent) * 1000)
            rtt = (time.perf_counter() - start) * 1000
            reply = json.loads(reply_task.result())
            work = reply["data"]["observation"]["info"]["wall_ms"]
            overhead.append(rtt - work)
            await ws.send(json.dumps({"type": "close"}))
    return {"long_step_s": sleep_s, "steps": n, "step_overhead_ms": spread(overhead), "pong_ms_during_step": spread(pongs)}


async def level(url, concurrency, seconds):
    out = {"step": [], "work": [], "overhead": [], "state": [], "sessions": 0}
    start = time.perf_counter()
    await asyncio.gather(*(client(url, start + seconds, out) for _ in range(concurrency)))
    elapsed = time.perf_counter() - start
    return {
        "concurrency": concurrency,
        "sessions_per_s": round(out["sessions"] / elapsed, 2),
        "pipeline_step_ms": spread(out["step"]),
        "pipeline_work_ms": spread(out["work"]),
        "step_overhead_ms": spread(out["overhead"]),
        "state_rtt_ms": spread(out["state"]),
    }


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--sandmle", default=str(ROOT / "target/release/sandmle"))
    p.add_argument("--seconds", type=float, default=20.0)
    p.add_argument("--levels", default="1,8,32")
    p.add_argument("--long-steps", type=int, default=0)
    p.add_argument("--long-step-s", type=float, default=10.0)
    a = p.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        envs = pathlib.Path(tmp) / "envs"
        envs.mkdir()
        subprocess.run([a.sandmle, "shrink", "--seed-env", str(ROOT / "examples/seeds/breast_cancer"), "--seed", "1",
                        "--train-rows", "200", "--out", str(envs)],
                       check=True, capture_output=True)
        server = subprocess.Popen([a.sandmle, "--json", "serve", "--envs", str(envs), "--port", "0",
                                   "--max-sessions", "64"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        try:
            port = json.loads(server.stdout.readline())["port"]
            url = f"ws://127.0.0.1:{port}/ws"
            levels = [asyncio.run(level(url, int(c), a.seconds)) for c in a.levels.split(",") if c]
            keepalive = asyncio.run(long_steps(url, a.long_steps, a.long_step_s)) if a.long_steps else None
        finally:
            server.terminate()
            server.wait(timeout=60)
    out = {"environment": "breast_cancer shrunk to 200 training rows", "levels": levels}
    if keepalive:
        out["keepalive"] = keepalive
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
