#!/usr/bin/env python3
"""Rollout speed, measured side by side (Python standard library only).

1. Episodes per minute with the built-in PanelPolicy (pipeline actions,
   in-process) on the wine seed: `sandmle rollout --policy panel`.
2. A StdlibPythonPolicy code step's wall time inside the sandbox (from the
   trajectories' `steps[].wall_ms`) against the same program run by hand
   with `python3` in a plain copy of the public files: the overhead the
   sandbox adds.

Usage: python3 examples/scripts/rollout_speed.py [--sandmle target/release/sandmle] [--reps 5]
Build first: cargo build --release --bin sandmle. Prints one JSON object.
"""

import argparse
import json
import pathlib
import re
import shutil
import statistics
import subprocess
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[2]


def rollout(sandmle, envs, out, policy, group):
    start = time.perf_counter()
    subprocess.run(
        [sandmle, "rollout", "--envs", envs, "--policy", policy, "--group", str(group), "--out", out, "--json"],
        check=True,
        stdout=subprocess.DEVNULL,
    )
    return time.perf_counter() - start


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sandmle", default=str(ROOT / "target/release/sandmle"))
    ap.add_argument("--reps", type=int, default=5)
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        tmp = pathlib.Path(tmp)
        envs = tmp / "envs"
        envs.mkdir()
        shutil.copytree(ROOT / "examples/seeds/wine", envs / "wine")
        group = 8
        panel = [rollout(a.sandmle, envs, tmp / "p.jsonl", "panel", group) for _ in range(a.reps)]
        code_wall = [rollout(a.sandmle, envs, tmp / "c.jsonl", "stdlib_python", 2) for _ in range(a.reps)]
        rows = [json.loads(l) for l in (tmp / "c.jsonl").read_text().splitlines()]
        step_ms = [s["wall_ms"] for r in rows for s in r["steps"] if s["action"] == "run_code"]
        # The program the policy wrote, run by hand on a copy of the public files.
        text = next(m["content"] for m in rows[0]["completion"] if m["role"] == "assistant" and "<code>" in m["content"])
        code = re.search(r"<code>\n?(.*?)</code>", text, re.S).group(1)
        work = tmp / "by_hand"
        shutil.copytree(envs / "wine/prepared/public", work)
        (work / "main.py").write_text(code)
        by_hand = []
        for _ in range(a.reps):
            start = time.perf_counter()
            subprocess.run(["/usr/bin/python3", "main.py"], cwd=work, check=True, stdout=subprocess.DEVNULL)
            by_hand.append((time.perf_counter() - start) * 1000)
        print(json.dumps({
            "panel_policy_episodes_per_minute": group / statistics.median(panel) * 60,
            "panel_rollout_seconds_median": statistics.median(panel),
            "stdlib_python_rollout_seconds_median": statistics.median(code_wall),
            "sandboxed_code_step_ms_median": statistics.median(step_ms),
            "same_program_by_hand_ms_median": statistics.median(by_hand),
            "reps": a.reps,
        }))


if __name__ == "__main__":
    main()
