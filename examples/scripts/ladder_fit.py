#!/usr/bin/env python3
"""Where real leaderboards put their medal thresholds: the ladder's constants.

For each of MLE-bench's real leaderboards (`../shared/data/mlebench-leaderboards/*.csv`), with the
medal thresholds MLE-bench's own rule gives it (`Grader.rank_score`, as committed in
`sandmle-metrics/tests/fixtures/leaderboards/thresholds.json`), measures where gold, silver and
bronze sit between the leaderboard's median score (0) and its top score (1), in the metric's better
direction, and prints the median of each share over the leaderboards, by size band and overall.

sandmle-core's `LADDER_GOLD`, `LADDER_SILVER` and `LADDER_BRONZE` are the overall medians.

    python3 examples/scripts/ladder_fit.py [--leaderboards DIR] [--thresholds FILE]

Needs pandas.
"""
import argparse
import json
import statistics
from pathlib import Path

import pandas as pd

REPO = Path(__file__).resolve().parents[2]


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--leaderboards", type=Path, default=REPO.parent / "shared" / "data" / "mlebench-leaderboards")
    p.add_argument("--thresholds", type=Path,
                   default=REPO / "sandmle-metrics" / "tests" / "fixtures" / "leaderboards" / "thresholds.json")
    a = p.parse_args()
    thresholds = json.loads(a.thresholds.read_text())
    shares = {"gold": [], "silver": [], "bronze": []}
    bands = {}
    skipped = []
    for name, t in sorted(thresholds.items()):
        scores = pd.read_csv(a.leaderboards / f"{name}.csv")["score"].dropna().astype(float)
        sign = -1.0 if t["is_lower_better"] else 1.0
        top, median = sign * scores.max() if sign > 0 else sign * scores.min(), sign * t["median"]
        if top <= median:
            skipped.append(name)
            continue
        n = t["num_teams"]
        band = "<100" if n < 100 else "100-249" if n < 250 else "250-999" if n < 1000 else ">=1000"
        for medal in shares:
            share = (sign * t[medal] - median) / (top - median)
            shares[medal].append(share)
            bands.setdefault(band, {}).setdefault(medal, []).append(share)
    print(f"{len(shares['gold'])} leaderboards ({len(skipped)} skipped: top no better than median)\n")
    print("| teams | leaderboards | gold | silver | bronze |\n|---|---|---|---|---|")
    for band in ["<100", "100-249", "250-999", ">=1000"]:
        if band in bands:
            b = bands[band]
            print(f"| {band} | {len(b['gold'])} | " + " | ".join(f"{statistics.median(b[m]):.3f}" for m in shares) + " |")
    print(f"| all | {len(shares['gold'])} | " + " | ".join(f"{statistics.median(shares[m]):.3f}" for m in shares) + " |")


if __name__ == "__main__":
    main()
