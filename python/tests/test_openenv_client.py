"""`sandmle serve` driven by openenv-core's own client (GenericEnvClient).

Starts the real binary on a free loopback port (``--port 0``; the port is
read from its ``--json`` line) over a folder holding one bundled seed
environment, plays full episodes and checks the session cap. The binary is
``$SANDMLE_BIN``, else ``$CARGO_TARGET_DIR`` or ``target/`` ``release`` or
``debug``. Code steps run sandboxed with bubblewrap; where bubblewrap cannot
run (and ``SANDMLE_REQUIRE_BWRAP`` is unset) the server is started with
``--unsandboxed``, since the only code run is this file's own.
"""

import asyncio
import json
import urllib.request

import pytest
from openenv.core import GenericEnvClient

import serve_helper
from serve_helper import COPY_SUBMISSION, FINISH, GUARD_S, SCORE

MAX_SESSIONS = 3


@pytest.fixture(scope="module")
def server(tmp_path_factory, sandmle_bin):
    served = serve_helper.start(tmp_path_factory.mktemp("envs"), sandmle_bin, max_sessions=MAX_SESSIONS)
    yield served.url
    serve_helper.stop(served)
    # One JSON line per session on stderr.
    assert any(s.get("end") == "close" for s in served.sessions()), served.stderr()


def play(env) -> list:
    """reset, copy the sample submission, Score, finish: the step results."""
    first = env.reset(seed=7)
    assert first.done is False and first.reward is None
    assert [m["role"] for m in first.observation["messages"]] == ["system", "user"]
    results = [env.step({"content": COPY_SUBMISSION})]
    text = results[0].observation["messages"][0]["content"]
    assert "copied" in text and "submission.csv found" in text, text
    results.append(env.step({"content": SCORE}))
    assert "Submission OK" in results[1].observation["messages"][0]["content"]
    results.append(env.step({"content": FINISH}))
    return results


def test_a_full_episode_with_openenvs_generic_client(server):
    with GenericEnvClient(base_url=server).sync() as env:
        results = play(env)
        assert [r.done for r in results] == [False, False, True]
        last = results[-1]
        info = last.observation["info"]
        assert info["termination"] == "answer"
        assert info["final_grade"]["valid_submission"] is True
        # released_dense: 0.2 valid + 0.1 format, the sample submission earns no tier.
        assert info["total_reward"] == pytest.approx(0.3)
        assert sum(r.reward for r in results) == pytest.approx(info["total_reward"])
        state = env.state()
        assert state["step_count"] == 3 and state["done"] is True


def test_sessions_up_to_the_cap_run_at_once_and_one_more_is_refused(server):
    async def one(env):
        result = await env.reset()
        assert result.done is False
        step = await env.step({"content": SCORE})
        return step

    async def main():
        clients = [GenericEnvClient(base_url=server) for _ in range(MAX_SESSIONS)]
        try:
            for c in clients:
                await c.connect()
            steps = await asyncio.wait_for(asyncio.gather(*(one(c) for c in clients)), GUARD_S)
            assert all(s.done is False for s in steps)
            over = GenericEnvClient(base_url=server)
            try:
                with pytest.raises(RuntimeError, match="CAPACITY_REACHED"):
                    await asyncio.wait_for(over.reset(), GUARD_S)
            finally:
                await over.close()
        finally:
            for c in clients:
                await c.close()

    asyncio.run(main())


def test_health_and_schema_over_http(server):
    with urllib.request.urlopen(f"{server}/health", timeout=GUARD_S) as r:
        assert json.load(r) == {"status": "healthy"}
    with urllib.request.urlopen(f"{server}/schema", timeout=GUARD_S) as r:
        schema = json.load(r)
    assert set(schema) == {"action", "observation", "state"}
