#!/usr/bin/env python3
"""Speed of ``sandmle.trl``'s rollout: a group of 8 episodes against
``sandmle serve``, as ``GRPOTrainer`` calls ``rollout_func`` once per
generation batch, with a scripted policy (copy the sample submission with
a sandboxed Python step, Score, answer) so that the model's time is nil and
what is measured is the adapter and the server.

Reported (medians over ``--reps`` groups): episodes per minute, the group's
wall time, the longest episode's own work as the server logs it (its
session's ``env_ms``: reset and steps; the group's episodes run side by
side, so this is the server's critical path), and the adapter's share of the
wall time — what is left over the longest episode: WebSockets, JSON,
tokenising and the adapter's bookkeeping.

Usage, from the repository root, with the package and the ``trl`` extra
installed and a release build (``cargo build --release --bin sandmle``):

    python3 python/bench/trl_rollout_speed.py [--reps 5] [--group 8]

Needs bubblewrap and the sandbox's Python (``SANDMLE_PYTHON``) for the code
step, as the server does.
"""

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from types import SimpleNamespace

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "python" / "tests"))

import serve_helper  # noqa: E402
import tiny_lm  # noqa: E402
from sandmle.openenv import reset_prompt  # noqa: E402
from sandmle.trl import make_rollout_func, task_dataset  # noqa: E402

EPISODE = {"codec": "sandmle_react", "tools": ["python", "pipeline"], "max_turns": 4}


def scripted(tok, turns):
    def generate(contexts, trainer, max_new_tokens):
        out = []
        for ctx in contexts:
            done = tok.decode(ctx).count("<|im_start|>assistant") - 1
            out.append((tok(turns[done], add_special_tokens=False)["input_ids"] + [tok.eos_token_id], None))
        return out
    return generate


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--sandmle", default=str(ROOT / "target/release/sandmle"))
    p.add_argument("--reps", type=int, default=5)
    p.add_argument("--group", type=int, default=8)
    a = p.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        server = serve_helper.start(Path(tmp) / "envs", Path(a.sandmle))
        try:
            prompt = reset_prompt(server.url, task_id="wine", **EPISODE)["messages"]
            tok = tiny_lm.load(tiny_lm.build(str(Path(tmp) / "tiny"), corpus=[m["content"] for m in prompt]))[1]
            dataset = task_dataset(server.url, task_ids=["wine"], **EPISODE)
            trainer = SimpleNamespace(processing_class=tok, args=SimpleNamespace(max_completion_length=4096),
                                      max_completion_length=4096, train_dataset=dataset, eval_dataset=None)
            rollout = make_rollout_func(server.url, generate=scripted(tok, serve_helper.GOOD_EPISODE),
                                        max_concurrent=a.group, **EPISODE)
            prompts = [dataset[0]["prompt"]] * a.group
            walls, shares = [], []
            for _ in range(a.reps + 1):
                played_before = len(server.played())
                start = time.perf_counter()
                out = rollout(prompts, trainer)
                wall = time.perf_counter() - start
                assert all(t == "answer" for t in out["sandmle_termination"]), out["sandmle_termination"]
                played = server.played_since(played_before, a.group)
                longest_s = max(s["env_ms"] for s in played) / 1000
                walls.append(wall)
                shares.append((longest_s, max(0.0, wall - longest_s) / wall))
            walls, shares = walls[1:], shares[1:]  # the first group warms the sandbox and caches
        finally:
            serve_helper.stop(server)
    median = statistics.median(walls)
    print(json.dumps({
        "group": a.group,
        "episodes_per_minute": round(60 * a.group / median, 1),
        "group_wall_s": {"median": round(median, 3), "min": round(min(walls), 3), "max": round(max(walls), 3)},
        "longest_episode_env_s": round(statistics.median(x for x, _ in shares), 3),
        "adapter_share": round(statistics.median(y for _, y in shares), 3),
        "reps": a.reps,
        "python": sys.version.split()[0],
        "cores": os.cpu_count(),
    }, indent=1))


if __name__ == "__main__":
    main()
