#!/usr/bin/env python3
"""Speed of the Python side, measured side by side.

1. Generation (``sandmle.ray.generate``, 2 shards of one thread each) and
   rollouts (``sandmle.ray.rollouts``, the panel policy, one group per
   environment, one thread a group) on a local Ray cluster of 1 CPU and of
   2 CPUs: the local scaling figure.
2. The binding's per-call overhead: a turn with no action, a Score turn and
   ``group_advantages`` of 8 rewards through ``sandmle`` against the same
   calls from Rust (``cargo run --release --example call_overhead``).

Usage (after ``pip install ./python gymnasium ray``, from the repository
root): ``python3 python/bench/speed.py [--reps 3] [--per-seed 20]``.
Prints one JSON object; figures are medians.
"""

import argparse
import json
import os
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

import ray
import sandmle
import sandmle.ray

ROOT = Path(__file__).resolve().parents[2]
SEEDS = ROOT / "examples" / "seeds"
GEN_SEEDS = ["breast_cancer", "diabetes", "oj", "wine"]
BLOCKS, CALLS = 21, 100
NOOP = "<think>Thinking it over.</think>"
SCORE = '<think>grade</think><tool_call>{"name": "Score", "arguments": {}}</tool_call>'
FIT = (
    '<think>fit</think><tool_call>{"name": "RunPipeline", "arguments": {"spec": {"steps": [{"op": "impute", '
    '"strategy": "median"}], "model": {"type": "logistic_regression", "c": 1.0}}}}</tool_call>'
)


def scaling(cpus: int, reps: int, per_seed: int, tmp: Path) -> dict:
    ray.init(num_cpus=cpus, include_dashboard=False, log_to_driver=False)
    try:
        gen, roll, kept = [], [], 0
        for rep in range(reps):
            out = tmp / f"gen-{cpus}-{rep}"
            start = time.perf_counter()
            result = sandmle.ray.generate(str(SEEDS), per_seed, 0, str(out), 2, seed_envs=GEN_SEEDS)
            gen.append(time.perf_counter() - start)
            kept = result["yield"]["total"]["kept"]
            start = time.perf_counter()
            rows = sandmle.ray.rollouts(str(out / "index.jsonl"), "panel", 8, seed=0)
            roll.append(time.perf_counter() - start)
        return {
            "generate_s": statistics.median(gen),
            "candidates": per_seed * len(GEN_SEEDS),
            "kept": kept,
            "rollouts_s": statistics.median(roll),
            "episodes": len(rows),
        }
    finally:
        ray.shutdown()


def per_call_python() -> dict:
    env = sandmle.Env(str(SEEDS / "wine"), tools=["pipeline"], max_turns=1_000)
    rewards = [0.1, 0.7, 0.4, 0.4, 1.0, 0.2, 0.3, 0.9]
    noop, score, adv = [], [], []
    for _ in range(BLOCKS):
        env.reset()
        env.step(FIT)
        t = time.perf_counter()
        for _ in range(CALLS):
            env.step(NOOP)
        noop.append((time.perf_counter() - t) * 1e6 / CALLS)
        t = time.perf_counter()
        for _ in range(CALLS):
            env.step(SCORE)
        score.append((time.perf_counter() - t) * 1e6 / CALLS)
        t = time.perf_counter()
        for _ in range(CALLS):
            sandmle.group_advantages(rewards)
        adv.append((time.perf_counter() - t) * 1e6 / CALLS)
    env.close()
    med = statistics.median
    return {"step_noop_us": med(noop), "step_score_us": med(score), "group_advantages_us": med(adv)}


def per_call_rust() -> dict:
    proc = subprocess.run(
        ["cargo", "run", "-q", "--release", "--example", "call_overhead"],
        cwd=ROOT, check=True, capture_output=True, text=True,
    )
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--per-seed", type=int, default=20)
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        one = scaling(1, a.reps, a.per_seed, Path(tmp))
        two = scaling(2, a.reps, a.per_seed, Path(tmp))
    py, rust = per_call_python(), per_call_rust()
    overhead = {k: {"python_us": py[k], "rust_us": rust[k], "overhead_us": py[k] - rust[k]} for k in py}
    print(json.dumps({
        "ray_1_cpu": one,
        "ray_2_cpus": two,
        "generate_speedup": one["generate_s"] / two["generate_s"],
        "rollouts_speedup": one["rollouts_s"] / two["rollouts_s"],
        "per_call": overhead,
        "reps": a.reps,
        "cpus_on_machine": os.cpu_count(),
    }, indent=1))


if __name__ == "__main__":
    main()
