"""The interpreter lock is released on long calls: a thread pool steps many
environments at once (the speed-up over one thread is printed, never
asserted), and a rollout whose policy is a model server running in this
very interpreter completes, which it could not if the lock were held."""

import json
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
import sandmle

from conftest import WINE, without_timing

FOREST = {
    "steps": [{"op": "impute", "strategy": "median"}, {"op": "scale", "method": "standard"}],
    "model": {"type": "random_forest", "n_trees": 100},
}
EPISODES = 8
STEPS = 5


def episode(seed: int) -> dict:
    """An episode of forest fits, a Score and an answer; its record."""
    with sandmle.Env(str(WINE), tools=["pipeline"], max_turns=STEPS + 3) as env:
        env.reset(seed=seed)
        for _ in range(STEPS):
            call = {"name": "RunPipeline", "arguments": {"spec": FOREST}}
            env.step(f"<think>fit</think><tool_call>{json.dumps(call)}</tool_call>")
        env.step('<think>grade</think><tool_call>{"name": "Score", "arguments": {}}</tool_call>')
        env.step("<think>done</think><answer>submission.csv</answer>")
        return env.record()


def timed(threads: int):
    start = time.perf_counter()
    with ThreadPoolExecutor(max_workers=threads) as pool:
        records = list(pool.map(episode, range(EPISODES)))
    return time.perf_counter() - start, records


def test_a_thread_pool_steps_environments_at_once():
    one_s, one = timed(1)
    two_s, two = timed(2)
    assert [without_timing(r) for r in one] == [without_timing(r) for r in two]
    assert all(r["final_grade"]["valid_submission"] for r in one)
    print(
        f"\n{EPISODES} episodes x {STEPS} forest steps: 1 thread {one_s:.2f} s, 2 threads {two_s:.2f} s, "
        f"speed-up {one_s / two_s:.2f}x"
    )


class _Chat(BaseHTTPRequestHandler):
    """An OpenAI-compatible server that always answers at once."""

    requests = 0
    lock = threading.Lock()

    def do_POST(self):  # noqa: N802 (http.server's name)
        length = int(self.headers.get("Content-Length", 0))
        json.loads(self.rfile.read(length))
        with _Chat.lock:
            _Chat.requests += 1
        body = json.dumps({
            "choices": [{"index": 0, "finish_reason": "stop",
                         "message": {"role": "assistant", "content": "<think>Done.</think><answer>x</answer>"}}],
        }).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


@pytest.fixture
def chat_server():
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Chat)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    _Chat.requests = 0
    yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    server.shutdown()
    server.server_close()


def test_a_rollout_reaches_a_model_served_by_this_interpreter(chat_server, unsandboxed):
    rows = sandmle.rollout_group(
        str(WINE), policy="openai", base_url=chat_server, model="m", group=3, seed=5,
        request_timeout_s=20.0, unsandboxed=unsandboxed,
    )
    assert [r["termination"] for r in rows] == ["answer"] * 3
    assert _Chat.requests == 3
    assert [r["rollout_idx"] for r in rows] == [0, 1, 2]
