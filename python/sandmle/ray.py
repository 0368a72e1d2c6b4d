"""Generation and rollouts spread over a Ray cluster.

We do not schedule: each Ray task runs one piece of work the command line
already shards cleanly, and the driver puts the pieces together.

- :func:`generate` runs the Foundry's shards (``sandmle generate --shard
  I/N``) as Ray tasks writing into one shared output folder, then rebuilds
  ``yield.json`` and ``index.jsonl``: the tree is byte-identical to one
  ``sandmle generate`` run.
- :func:`rollouts` runs one rollout group per environment as a Ray task and
  gathers the trajectories, in the environments' order, into one JSON-lines
  file written as ``sandmle rollout --out`` writes it: for a deterministic
  policy the same content (every field but the wall times).

Both are safe to retry: a shard skips the slots an earlier attempt
finished, and a group is recomputed whole from its seed. A task whose
worker dies is retried up to ``max_retries`` times (Ray's own retries of
system failures). Workers must see the same paths: on a cluster, put the
seeds, the environments and ``out`` on a shared filesystem.

``ray.init()`` first (or let Ray start a local cluster)::

    import ray, sandmle.ray
    ray.init(num_cpus=2, include_dashboard=False)
    sandmle.ray.generate("examples/seeds", per_seed=4, seed=0, out="out", num_shards=2)
    sandmle.ray.rollouts("out/index.jsonl", policy="panel", group=4, out="t.jsonl")
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable, Sequence

import ray

from . import _sandmle

#: Called in the worker with the task's index before the task's work
#: starts (set up logging or tracing; the tests kill the worker here).
OnStart = Callable[[int], None]


def _generate_shard(i: int, n: int, kwargs: dict[str, Any], on_start: OnStart | None) -> dict[str, Any]:
    if on_start is not None:
        on_start(i)
    return _sandmle.generate(shard=(i, n), **kwargs)


def generate(
    seeds_dir: str | None,
    per_seed: int,
    seed: int,
    out: str,
    num_shards: int,
    *,
    seed_envs: Sequence[str] | None = None,
    retries: int = 2,
    threads_per_shard: int = 1,
    max_retries: int = 3,
    on_start: OnStart | None = None,
    mix: str | None = None,
) -> dict[str, Any]:
    """Runs ``sandmle generate`` as ``num_shards`` Ray tasks (shard ``I/N``
    each, ``threads_per_shard`` CPUs each) into the shared folder ``out``,
    then reindexes it. Returns ``{"yield": ..., "shards": [report, ...]}``
    (each shard's run report, in shard order). ``mix`` asks each slot for a
    modality, as ``sandmle generate --mix`` does."""
    if num_shards < 1:
        raise _sandmle.BadArguments("num_shards: at least 1")
    Path(out).mkdir(parents=True, exist_ok=True)
    kwargs = {
        "out": str(Path(out).resolve()),
        "per_seed": per_seed,
        "seed": seed,
        "seeds_dir": None if seeds_dir is None else str(Path(seeds_dir).resolve()),
        "seed_envs": None if seed_envs is None else list(seed_envs),
        "retries": retries,
        "threads": threads_per_shard,
        "mix": mix,
    }
    task = ray.remote(num_cpus=threads_per_shard, max_retries=max_retries)(_generate_shard)
    reports = ray.get([task.remote(i, num_shards, kwargs, on_start) for i in range(num_shards)])
    return {"yield": _sandmle.reindex(kwargs["out"]), "shards": reports}


def env_dirs(index: str | Sequence[str]) -> list[str]:
    """The environment directories ``index`` names, as ``sandmle rollout``
    reads ``--index`` and ``--envs``: a JSON-lines manifest (``index.jsonl``,
    a ``path`` per line, relative to the manifest), a folder of environment
    directories (sorted by name), or a list of directories."""
    if not isinstance(index, (str, Path)):
        return [str(Path(p).resolve()) for p in index]
    p = Path(index)
    if p.is_dir():
        names = sorted(d.name for d in p.iterdir() if (d / "prepared").is_dir())
        if not names:
            raise _sandmle.BadArguments(f"{p}: no environment directories")
        return [str((p / n).resolve()) for n in names]
    dirs = []
    for i, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            path = json.loads(line)["path"]
        except (ValueError, KeyError, TypeError) as e:
            raise _sandmle.BadArguments(f"{p}:{i}: no `path` field ({e})") from None
        q = Path(path)
        dirs.append(str((q if q.is_absolute() else p.parent / q).resolve()))
    return dirs


def _rollout_group(i: int, env_dir: str, kwargs: dict[str, Any], on_start: OnStart | None) -> list[dict[str, Any]]:
    if on_start is not None:
        on_start(i)
    return _sandmle.rollout_group(env_dir, **kwargs)


def rollouts(
    index: str | Sequence[str],
    policy: str = "panel",
    group: int = 4,
    *,
    seed: int = 0,
    out: str | None = None,
    codec: str = "sandmle_react",
    reward: str = "released_dense",
    estimator: str = "grpo",
    step_timeout_s: float = 300.0,
    base_url: str | None = None,
    model: str | None = None,
    api_key_env: str | None = None,
    temperature: float | None = None,
    max_tokens: int | None = None,
    unsandboxed: bool = False,
    threads_per_group: int = 1,
    max_retries: int = 3,
    on_start: OnStart | None = None,
) -> list[dict[str, Any]]:
    """One rollout group per environment of ``index`` as Ray tasks
    (``threads_per_group`` CPUs each), with the arguments of
    :func:`sandmle.rollout_group` (``policy`` ``panel``, ``stdlib_python``,
    or ``openai`` with ``base_url`` and ``model``). Returns every trajectory,
    environments in order, and writes them to ``out`` when given."""
    dirs = env_dirs(index)
    kwargs = {
        "policy": policy,
        "group": group,
        "seed": seed,
        "codec": codec,
        "reward": reward,
        "estimator": estimator,
        "step_timeout_s": step_timeout_s,
        "base_url": base_url,
        "model": model,
        "api_key_env": api_key_env,
        "temperature": temperature,
        "max_tokens": max_tokens,
        "unsandboxed": unsandboxed,
        "threads": threads_per_group,
    }
    task = ray.remote(num_cpus=threads_per_group, max_retries=max_retries)(_rollout_group)
    groups = ray.get([task.remote(i, d, kwargs, on_start) for i, d in enumerate(dirs)])
    trajectories = [t for g in groups for t in g]
    if out is not None:
        _sandmle.write_trajectories(out, trajectories)
    return trajectories
