"""The README's adapter examples are ``python/examples/``'s scripts verbatim,
and each runs against ``sandmle serve``: the OpenEnv episode, the TRL
training (with a tiny local model, two steps on CPU) and the verifiers
evaluation (against a scripted OpenAI-compatible stub). Plus
``sandmle.openenv``'s helpers on their own."""

import json
import os
import re
import subprocess
import sys

import pytest

import serve_helper
from conftest import REPO
from sandmle.openenv import ServerError, Session, episode_reward, list_tasks

EXAMPLES = REPO / "python" / "examples"
SCRIPTS = ["openenv_play.py", "trl_grpo.py", "verifiers_eval.py"]
RUN_S = 600  # a bound on each script's run, not a timing assertion


@pytest.fixture(scope="module")
def server(tmp_path_factory, sandmle_bin):
    s = serve_helper.start(tmp_path_factory.mktemp("envs"), sandmle_bin)
    yield s
    serve_helper.stop(s)


def readme_section() -> str:
    text = (REPO / "README.md").read_text()
    start = text.index("## Train with verl / rLLM / TRL / verifiers\n")
    end = text.index("\n## ", start + 1)
    return text[start:end]


@pytest.mark.parametrize("script", SCRIPTS)
def test_the_readme_shows_each_example_verbatim(script):
    blocks = re.findall(r"```python\n(.*?)```", readme_section(), flags=re.S)
    assert (EXAMPLES / script).read_text() in blocks, f"README's section lacks python/examples/{script} verbatim"


def task_env(server) -> dict:
    """``TASK_IDS`` for a server without ``GET /tasks``."""
    try:
        list_tasks(server.url)
        return {}
    except LookupError:
        return {"TASK_IDS": "wine"}


def run(script, tmp_path, **env):
    proc = subprocess.run([sys.executable, str(EXAMPLES / script)], cwd=tmp_path, capture_output=True, text=True,
                          timeout=RUN_S, env={**os.environ, **env})
    assert proc.returncode == 0, f"{script} exited {proc.returncode}:\n{proc.stdout[-3000:]}\n{proc.stderr[-6000:]}"
    return [json.loads(line) for line in proc.stdout.splitlines() if line.startswith('{"')]


def test_the_openenv_example_plays_an_episode(server, tmp_path):
    serve_helper.require("openenv")
    before = len(server.played())
    (row,) = run("openenv_play.py", tmp_path, SANDMLE_URL=server.url)
    (logged,) = server.played_since(before, 1)
    assert row["termination"] == "answer" and row["total_reward"] > 0
    assert row["total_reward"] == pytest.approx(logged["reward"])
    assert sum(row["reward_components"].values()) == pytest.approx(row["total_reward"])


def test_the_trl_example_trains(server, tmp_path):
    serve_helper.require("trl")
    import tiny_lm
    from sandmle.openenv import reset_prompt

    prompt = reset_prompt(server.url, task_id="wine", max_turns=2)["messages"]
    model = tiny_lm.build(str(tmp_path / "tiny"), corpus=[m["content"] for m in prompt])
    before = len(server.played())
    run("trl_grpo.py", tmp_path, SANDMLE_URL=server.url, MODEL=model, TRAIN_STEPS="2", MAX_TURNS="2",
        TURN_TOKENS="16", TRL_EXPERIMENTAL_SILENCE="1", **task_env(server))
    played = server.played_since(before, 2 * 4)
    assert len(played) == 2 * 4  # two steps of four episodes each
    assert all(s["termination"] == "max_turns" and s["steps"] == 2 for s in played)


def test_the_verifiers_example_evaluates(server, tmp_path):
    serve_helper.require("verifiers")
    serve_helper.uv_on_path()
    from openai_stub import OpenAIStub

    before = len(server.played())
    with OpenAIStub(serve_helper.GOOD_EPISODE) as llm:
        rows = run("verifiers_eval.py", tmp_path, SANDMLE_URL=server.url, OPENAI_BASE_URL=llm.url,
                   MODEL="stub-model", OPENAI_API_KEY="sk-stub", **task_env(server))
    played = server.played_since(before, len(rows))
    assert len(rows) == len(played) == 4
    assert sorted(r["reward"] for r in rows) == pytest.approx(sorted(s["reward"] for s in played))
    assert all(r["reward"] > 0 and r["termination"] == "answer" for r in rows)
    assert (tmp_path / "outputs").is_dir()


def test_a_raw_session_and_its_errors(server):
    serve_helper.require("websockets")
    with Session(server.url) as s:
        first = s.reset(task_id="wine", max_turns=2)
        assert [m["role"] for m in first["observation"]["messages"]] == ["system", "user"]
        step = s.step(serve_helper.SCORE)
        assert step["done"] is False and step["observation"]["messages"]
        last = s.step(serve_helper.FINISH)
        assert last["done"] is True
        total, _ = episode_reward([step["observation"]["info"], last["observation"]["info"]],
                                  [step["reward"], last["reward"]])
        assert total == pytest.approx(step["reward"] + last["reward"])
    with Session(server.url) as s:
        with pytest.raises(ServerError, match="no such environment") as e:
            s.reset(task_id="no-such-task")
        assert e.value.code == "VALIDATION_ERROR"


def test_episode_reward_reads_components_then_the_breakdown():
    comps = {"valid": {"weight": 0.2, "value": 1.0, "reward": 0.2},
             "format": {"weight": 0.1, "value": 0.5, "reward": 0.05}}
    # reward_components: the episode's so far, on the last step.
    last = {"total_reward": 0.25, "reward_breakdown": {"valid": 0.2, "tier": 0.0, "format": 0.05},
            "reward_components": comps}
    assert episode_reward([{}, last], [0.1, 0.15]) == (0.25, {"valid": 0.2, "format": 0.05})
    # Without components: the breakdown.
    last = {"total_reward": 0.25, "reward_breakdown": {"valid": 0.2, "tier": 0.0, "format": 0.05}}
    assert episode_reward([last]) == (0.25, {"valid": 0.2, "tier": 0.0, "format": 0.05})
    # Components given per step as increments add up.
    steps = [{"reward_components": {"format": {"weight": 0.1, "value": 0.5, "reward": 0.05}}},
             {"total_reward": 0.25, "reward_components": {"valid": {"weight": 0.2, "value": 1.0, "reward": 0.2}}}]
    assert episode_reward(steps, [0.05, 0.2]) == (0.25, {"format": 0.05, "valid": 0.2})
    # An unfinished episode: the steps' rewards so far.
    assert episode_reward([{}, {}], [0.1, None]) == (0.1, {})


def test_list_tasks_reads_get_tasks_and_passes_the_split_and_band():
    """``GET /tasks`` as the server documents it, from a stand-in server."""
    import http.server
    import threading

    tasks = [{"task_id": "wine-1", "name": "wine", "split": "train", "difficulty": {"value": 0.1, "band": 1}},
             {"task_id": "oj-2", "name": "oj", "split": "test", "difficulty": {"value": 0.5, "band": 3}}]
    asked = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            asked.append(self.path)
            if not self.path.startswith("/tasks"):
                self.send_error(404)
                return
            rows = [t for t in tasks if "split=test" not in self.path or t["split"] == "test"]
            body = json.dumps({"num_tasks": len(rows), "tasks": rows}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    httpd = http.server.HTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{httpd.server_port}"
        assert list_tasks(url) == tasks
        assert list_tasks(url.replace("http://", "ws://") + "/ws", split="test") == tasks[1:]
        assert list_tasks(url, band=3) == tasks[1:]
        assert list_tasks(url, split="train", band=3) == []
        assert asked == ["/tasks", "/tasks?split=test", "/tasks?band=3", "/tasks?split=train&band=3"]
    finally:
        httpd.shutdown()
