"""``sandmle.verifiers``: a verifiers (0.4, ``verifiers.v1``) evaluation of
``sandmle serve`` episodes.

Four rollouts of the bundled wine seed through verifiers' own runner
(``run_eval``, in-process), the model being a local OpenAI-compatible stub
that streams a scripted episode: copy the sample submission, a turn with no
tool call (its observation has no message), Score, answer. Every rollout's
reward must be the total the server logged for that episode, and positive
(a valid submission). verifiers runs its chat program with ``uv``: it must be
on ``PATH`` (or beside this Python).
"""

import asyncio

import pytest

import serve_helper

serve_helper.require("verifiers")
serve_helper.require("aiohttp")

from openai_stub import OpenAIStub  # noqa: E402
from verifiers.v1.cli.eval.runner import run_eval  # noqa: E402
from verifiers.v1.configs.cli.eval import EvalConfig  # noqa: E402
from verifiers.v1.utils.loaders import env_config_type, taskset_class  # noqa: E402

import sandmle.verifiers as sv  # noqa: E402
from sandmle.openenv import list_tasks  # noqa: E402

NO_TOOL = "<think>Let me look at the data first.</think> I will check the files."
SCRIPT = [serve_helper.COPY_SUBMISSION, NO_TOOL, serve_helper.SCORE, serve_helper.FINISH]
RESET = {"codec": "sandmle_react", "tools": ["python", "pipeline"], "max_turns": 6}


@pytest.fixture(scope="module")
def server(tmp_path_factory, sandmle_bin):
    s = serve_helper.start(tmp_path_factory.mktemp("envs"), sandmle_bin)
    yield s
    serve_helper.stop(s)


@pytest.fixture(scope="module", autouse=True)
def uv_on_path():
    serve_helper.uv_on_path()


def taskset(server) -> dict:
    config = {"id": "sandmle", "base_url": server.url, "reset": RESET}
    try:
        list_tasks(server.url)
    except LookupError:  # a server without GET /tasks
        config["task_ids"] = ["wine"]
    return config


def test_the_loader_finds_the_taskset_and_env():
    assert taskset_class("sandmle") is sv.SandmleTaskset
    assert env_config_type("sandmle") is sv.SandmleEnvConfig


def test_four_rollouts_score_what_the_server_scored(server, tmp_path):
    played_before = len(server.played())
    with OpenAIStub(SCRIPT) as llm:
        config = EvalConfig.model_validate({
            "env": {"taskset": taskset(server), "player": {"max_turns": 10}},
            "model": "stub-model",
            "client": {"type": "eval", "base_url": llm.url, "api_key_var": "SANDMLE_STUB_API_KEY"},
            "num_rollouts": 4, "max_concurrent": 4, "rich": None, "push": False,
            "output_dir": str(tmp_path / "outputs"),
        })
        episodes = asyncio.run(asyncio.wait_for(run_eval(config), serve_helper.GUARD_S * 3))
    assert len(episodes) == 4
    errors = [e.message for ep in episodes for e in ep.errors]
    assert all(ep.ok for ep in episodes), errors
    traces = [tr for ep in episodes for tr in ep.traces]
    assert len(traces) == 4

    played = server.played_since(played_before, 4)
    assert len(played) == 4
    assert sorted(tr.reward for tr in traces) == pytest.approx(sorted(s["reward"] for s in played))
    for tr in traces:
        assert tr.reward > 0
        assert tr.rewards["sandmle"].score == pytest.approx(tr.reward)
        assert tr.metrics["sandmle/valid"] > 0 and tr.metrics["sandmle/done"] == 1.0
        assert tr.metrics["sandmle/turns"] == 4.0
        info = tr.info["sandmle"]
        assert info["termination"] == "answer" and info["final_grade"]["valid_submission"] is True
        assert sum(info["reward_components"].values()) == pytest.approx(tr.reward)
        assert [m.content for m in tr.assistant_messages] == SCRIPT
    assert all(s["termination"] == "answer" and s["steps"] == 4 for s in played)

    # The model saw the server's prompt (system, user) first, then the tool's replies.
    first = llm.requests[0]["messages"]
    assert [m["role"] for m in first[:2]] == ["system", "user"]
    assert "Kaggle" in str(first[0]["content"])
    last = max(llm.requests, key=lambda r: len(r["messages"]))["messages"]
    assert any("copied" in str(m.get("content")) for m in last if m["role"] == "user")
    assert any("Submission OK" in str(m.get("content")) for m in last if m["role"] == "user")
