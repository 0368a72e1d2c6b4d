"""``sandmle.ray`` on a local Ray cluster (2 CPUs, one node, no
dashboard): sharded generation gives the tree of one ``sandmle generate``
byte for byte, rollout groups give the trajectories of one ``sandmle
rollout``, and a task whose worker is killed is retried to the same
output."""

import json
import os

import pytest

ray = pytest.importorskip("ray")
import sandmle.ray  # noqa: E402

from conftest import GEN_SEEDS, SEEDS, run_cli, tree, without_timing  # noqa: E402

PER_SEED, RUN_SEED = 3, 1


@pytest.fixture(scope="module", autouse=True)
def cluster():
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


def kill_once(marker, index):
    """An ``on_start`` hook that kills its worker process the first time
    task ``index`` starts (the marker file remembers it)."""

    def on_start(i):
        if i == index and not os.path.exists(marker):
            with open(marker, "w") as f:
                f.write(str(os.getpid()))
            os._exit(1)

    return on_start


@pytest.fixture(scope="module")
def cli_generated(tmp_path_factory, sandmle_bin):
    out = tmp_path_factory.mktemp("cli") / "out"
    seed_args = [a for s in GEN_SEEDS for a in ("--seed-env", s)]
    run_cli(sandmle_bin, "--seeds", str(SEEDS), "generate", *seed_args, "--per-seed", str(PER_SEED),
            "--seed", str(RUN_SEED), "--out", str(out))
    return out


def ray_generate(out, **kwargs):
    return sandmle.ray.generate(str(SEEDS), PER_SEED, RUN_SEED, str(out), 2, seed_envs=GEN_SEEDS, **kwargs)


def test_sharded_generation_is_byte_identical_to_one_cli_run(tmp_path, cli_generated):
    result = ray_generate(tmp_path / "out")
    assert len(result["shards"]) == 2
    assert sum(s["processed"] for s in result["shards"]) == PER_SEED * len(GEN_SEEDS)
    expected = tree(cli_generated)
    assert result["yield"]["total"]["kept"] >= 2
    assert tree(tmp_path / "out") == expected


def test_a_killed_shard_is_retried_and_the_tree_is_still_identical(tmp_path, cli_generated):
    marker = tmp_path / "killed"
    result = ray_generate(tmp_path / "out", on_start=kill_once(str(marker), 1), max_retries=2)
    assert marker.exists(), "the shard's worker was not killed"
    assert int(marker.read_text()) != os.getpid()
    assert tree(tmp_path / "out") == tree(cli_generated)
    assert result["yield"] == json.loads((cli_generated / "yield.json").read_text())


def cli_rollout(sandmle_bin, index, out, policy, unsandboxed):
    extra = ["--unsandboxed"] if unsandboxed and policy == "stdlib_python" else []
    run_cli(sandmle_bin, "rollout", "--index", str(index), "--policy", policy, "--group", "3", "--seed", "2",
            "--out", str(out), *extra)
    return [json.loads(l) for l in out.read_text().splitlines()]


@pytest.mark.parametrize("policy", ["panel", "stdlib_python"])
def test_rollout_groups_as_ray_tasks_match_one_cli_run(policy, tmp_path, cli_generated, sandmle_bin, unsandboxed):
    index = cli_generated / "index.jsonl"
    expected = cli_rollout(sandmle_bin, index, tmp_path / "cli.jsonl", policy, unsandboxed)
    out = tmp_path / "ray.jsonl"
    rows = sandmle.ray.rollouts(str(index), policy, 3, seed=2, out=str(out), unsandboxed=unsandboxed)
    written = [json.loads(l) for l in out.read_text().splitlines()]
    assert len(expected) == 3 * len(sandmle.ray.env_dirs(str(index)))
    assert [without_timing(r) for r in written] == [without_timing(r) for r in expected]
    assert [without_timing(r) for r in rows] == [without_timing(r) for r in expected]
    # The same writer: each line's keys in the command line's order.
    assert [list(r) for r in written] == [list(r) for r in expected]


def test_a_killed_rollout_group_is_retried_to_the_same_trajectories(tmp_path, cli_generated, sandmle_bin):
    index = cli_generated / "index.jsonl"
    expected = cli_rollout(sandmle_bin, index, tmp_path / "cli.jsonl", "panel", False)
    marker = tmp_path / "killed"
    rows = sandmle.ray.rollouts(str(index), "panel", 3, seed=2, on_start=kill_once(str(marker), 0), max_retries=2)
    assert marker.exists(), "the group's worker was not killed"
    assert [without_timing(r) for r in rows] == [without_timing(r) for r in expected]
