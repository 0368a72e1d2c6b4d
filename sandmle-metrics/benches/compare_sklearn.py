#!/usr/bin/env python3
"""Side-by-side timing of sandmle-metrics and scikit-learn on the same data.

Writes answers/submission CSVs (binary target, probabilities rounded to 4
decimals so that ties occur, submission rows shuffled so alignment by id is
needed) for 1e3, 1e5 and 1e6 rows, times scikit-learn on the same arrays and
a pandas evaluator (read both CSVs, align by id, AUC), then runs the Rust
side (`examples/timing.rs`) on the same files and prints both.

Usage: python3 sandmle-metrics/benches/compare_sklearn.py [--rust-only-build]
Run from the repository root; needs numpy, pandas and scikit-learn.
"""
import json, os, platform, subprocess, sys, tempfile, time

import numpy as np
import pandas as pd
import sklearn
from sklearn.metrics import log_loss, roc_auc_score, root_mean_squared_error

SIZES = [1_000, 100_000, 1_000_000]


def median_seconds(reps, f):
    times = []
    for _ in range(reps):
        s = time.perf_counter()
        f()
        times.append(time.perf_counter() - s)
    return sorted(times)[reps // 2]


def python_evaluator(answers_path, submission_path):
    ans = pd.read_csv(answers_path)
    sub = pd.read_csv(submission_path)
    ans = ans.sort_values("id")
    sub = sub.sort_values("id")
    assert (ans["id"].values == sub["id"].values).all()
    return roc_auc_score(ans["target"].values, sub["target"].values)


def main():
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    tmp = tempfile.mkdtemp(prefix="sandmle-metrics-bench-")
    rng = np.random.default_rng(20261129)
    py = {}
    for n in SIZES:
        truth = (rng.random(n) < 0.3).astype(int)
        prob = np.round(0.3 * truth + 0.7 * rng.random(n), 4)
        ids = np.array([f"id{i:07d}" for i in range(n)])
        pd.DataFrame({"id": ids, "target": truth}).to_csv(f"{tmp}/answers_{n}.csv", index=False)
        order = rng.permutation(n)
        pd.DataFrame({"id": ids[order], "target": prob[order]}).to_csv(f"{tmp}/submission_{n}.csv", index=False)
        reps = 7 if n >= 1_000_000 else 25
        py[str(n)] = {
            "roc_auc": median_seconds(reps, lambda: roc_auc_score(truth, prob)),
            "log_loss": median_seconds(reps, lambda: log_loss(truth, prob)),
            "rmse": median_seconds(reps, lambda: root_mean_squared_error(truth, prob)),
            "grade_from_csv": median_seconds(reps, lambda: python_evaluator(f"{tmp}/answers_{n}.csv", f"{tmp}/submission_{n}.csv")),
            "auc_value": roc_auc_score(truth, prob),
        }
    cmd = ["cargo", "run", "--quiet", "--release", "-p", "sandmle-metrics", "--example", "timing", "--", tmp] + [str(n) for n in SIZES]
    rust = json.loads(subprocess.check_output(cmd, cwd=root, env={**os.environ, "RAYON_NUM_THREADS": "1"}))
    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores; "
          f"scikit-learn {sklearn.__version__}, pandas {pd.__version__}, numpy {np.__version__}")
    print(f"{'work':<16}{'rows':>10}{'sandmle ms':>14}{'sklearn ms':>14}{'ratio':>9}")
    for n in SIZES:
        r, p = rust[str(n)], py[str(n)]
        assert abs(r["auc_value"] - p["auc_value"]) < 1e-12, (r["auc_value"], p["auc_value"])
        for k in ["roc_auc", "log_loss", "rmse", "grade_from_csv"]:
            print(f"{k:<16}{n:>10}{r[k]*1e3:>14.3f}{p[k]*1e3:>14.3f}{p[k]/r[k]:>8.1f}x")


if __name__ == "__main__":
    main()
