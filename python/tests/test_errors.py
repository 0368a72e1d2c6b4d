"""Rust errors become the exception classes named after the command line's
failure kinds: a broken environment, bad arguments, a bad submission."""

import json
import shutil

import pytest
import sandmle

from conftest import WINE, run_cli

SAMPLE = WINE / "prepared" / "public" / "sample_submission.csv"


def test_the_classes_name_the_kinds():
    kinds = {
        sandmle.InvalidSubmission: "invalid_submission",
        sandmle.SolutionFailed: "solution_failed",
        sandmle.BadArguments: "bad_arguments",
        sandmle.BrokenEnvironment: "broken_environment",
        sandmle.SystemFault: "system",
    }
    for cls, kind in kinds.items():
        assert issubclass(cls, sandmle.SandmleError) and cls.kind == kind


@pytest.fixture
def tampered(tmp_path):
    """A copy of the wine seed whose private answers were edited."""
    env = tmp_path / "wine"
    shutil.copytree(WINE, env)
    answers = env / "prepared" / "private" / "answers.csv"
    answers.write_text(answers.read_text().replace("\n", "\n\n", 1))
    return env


def test_a_tampered_environment_is_broken_for_env_evaluate_and_the_cli(tampered, sandmle_bin):
    with pytest.raises(sandmle.BrokenEnvironment) as e:
        sandmle.Env(str(tampered))
    assert "answers.csv" in str(e.value)
    with pytest.raises(sandmle.BrokenEnvironment):
        sandmle.evaluate(str(tampered), str(SAMPLE))
    cli = run_cli(sandmle_bin, "evaluate", "--env", str(tampered), "--submission_path", str(SAMPLE), check=False)
    assert cli.returncode == 2 and json.loads(cli.stdout)["error"]["kind"] == "broken_environment"


def test_an_environment_with_an_unknown_metric_is_broken(tmp_path):
    env = tmp_path / "wine"
    shutil.copytree(WINE, env)
    grading = env / "prepared" / "private" / "grading.json"
    spec = json.loads(grading.read_text())
    spec["task"]["metric"]["name"] = "no_such_metric"
    grading.write_text(json.dumps(spec))
    with pytest.raises(sandmle.BrokenEnvironment):
        sandmle.evaluate(str(env), str(SAMPLE))
    with pytest.raises(sandmle.BrokenEnvironment):
        sandmle.Env(str(env), tools=["pipeline"]).reset()


def test_a_missing_environment_is_broken_not_a_crash(tmp_path):
    with pytest.raises(sandmle.SandmleError) as e:
        sandmle.Env(str(tmp_path / "nowhere"))
    assert e.value.kind in ("broken_environment", "system")


@pytest.mark.parametrize(
    "kwargs",
    [
        {"codec": "xml"},
        {"reward": "money"},
        {"reward_mode": "sometimes"},
        {"max_turns": 0},
        {"step_timeout_s": -1.0},
        {"tools": ["browser"]},
    ],
)
def test_bad_settings_are_bad_arguments(kwargs):
    with pytest.raises(sandmle.BadArguments):
        sandmle.Env(str(WINE), **kwargs)


def test_bad_arguments_to_the_functions(tmp_path):
    with pytest.raises(sandmle.BadArguments):
        sandmle.group_advantages([1.0, 2.0], estimator="ppo")
    with pytest.raises(sandmle.BadArguments):
        sandmle.group_advantages([])
    with pytest.raises(sandmle.BadArguments):
        sandmle.generate(str(tmp_path), per_seed=0)
    with pytest.raises(sandmle.BadArguments):
        sandmle.generate(str(tmp_path), shard="3/2")
    with pytest.raises(sandmle.BadArguments, match="unknown modality"):
        sandmle.generate(str(tmp_path), mix="video=1")
    with pytest.raises(sandmle.BadArguments):
        sandmle.rollout_group(str(WINE), policy="random")
    with pytest.raises(sandmle.BadArguments):
        sandmle.rollout_group(str(WINE), policy="openai")  # no base_url
    with pytest.raises(sandmle.BadArguments):
        sandmle.write_trajectories(str(tmp_path / "t.jsonl"), [{"not": "a trajectory"}])
    with pytest.raises(ValueError):
        env = sandmle.Env(str(WINE), codec="openai_tools", tools=["pipeline"])
        env.reset()
        env.call_tool("RunPipeline", {"spec": object()})
