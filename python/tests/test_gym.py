"""``sandmle.gym.SandmleEnv`` passes gymnasium's own environment checker
and plays an episode through gymnasium's API."""

import json

import gymnasium
from gymnasium.utils.env_checker import check_env

import pytest
from sandmle.gym import SandmleEnv

from conftest import WINE

SPEC = {"steps": [{"op": "impute", "strategy": "median"}], "model": {"type": "logistic_regression", "c": 1.0}}


def test_gymnasiums_checker_passes(unsandboxed):
    env = SandmleEnv(str(WINE), max_action_chars=2_000, unsandboxed=unsandboxed)
    check_env(env, skip_render_check=True)
    env.close()


def test_an_episode_through_gymnasiums_api():
    env = SandmleEnv(str(WINE), tools=["pipeline"], max_turns=5, render_mode="ansi")
    assert isinstance(env, gymnasium.Env)
    obs, info = env.reset(seed=0)
    assert obs in env.observation_space
    assert info["messages"][0]["role"] == "system" and obs.startswith(info["messages"][0]["content"])
    call = {"name": "RunPipeline", "arguments": {"spec": SPEC}}
    obs, reward, terminated, truncated, info = env.step(f"<think>fit</think><tool_call>{json.dumps(call)}</tool_call>")
    assert "wrote submission.csv" in obs and obs in env.observation_space
    assert "wall_ms" not in info and info["status"] == "completed"
    obs, reward, terminated, truncated, info = env.step("<think>done</think><answer>x</answer>")
    assert terminated and not truncated
    assert info["final_grade"]["valid_submission"] is True
    assert "[assistant]" in env.render()
    assert env.inner.record()["reward"] == pytest.approx(info["total_reward"])
    env.close()


def test_characters_beyond_the_plane_are_replaced(unsandboxed):
    env = SandmleEnv(str(WINE), max_turns=3, unsandboxed=unsandboxed)
    env.reset(seed=0)
    code = "print('ok \\U0001F600')\n"
    obs, *_ , info = env.step(f"<think>x</think>\n<tool_call>\npython\n<code>\n{code}</code>\n</tool_call>")
    assert obs in env.observation_space and "ok \ufffd" in obs
    assert "\U0001F600" in info["messages"][0]["content"]
    env.close()
