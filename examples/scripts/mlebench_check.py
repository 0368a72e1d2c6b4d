#!/usr/bin/env python3
"""Grades a `sandmle export --format mlebench` folder with MLE-bench itself.

Run with a Python where MLE-bench is installed (`pip install -e <mle-bench
checkout>`). The exported competitions are copied into MLE-bench's
registry (its package's `competitions/` folder; a folder there that is not
a sandmle export is never replaced), then for every competition the sample
submission, the answers and a perturbed submission (rows reversed, the
last row's values replaced by the first's) and a truncated one are graded
by MLE-bench's `grade_csv` and by `sandmle evaluate`, and every key the two
reports share is compared.

    python examples/scripts/mlebench_check.py --export OUT --envs ENVS [--sandmle target/release/sandmle]

Prints one line per submission and exits 1 on any difference.
"""
import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import mlebench
from mlebench.grade import grade_csv
from mlebench.registry import registry

KEYS = ["score", "gold_threshold", "silver_threshold", "bronze_threshold", "median_threshold",
        "gold_medal", "silver_medal", "bronze_medal", "any_medal", "above_median",
        "valid_submission", "is_lower_better"]


def submissions(answers: Path, sample: Path, scratch: Path):
    lines = answers.read_text().splitlines()
    header, rows = lines[0], lines[1:][::-1]
    first = rows[0].split(",", 1)[1]
    rows[-1] = rows[-1].split(",", 1)[0] + "," + first
    perturbed = scratch / "perturbed.csv"
    perturbed.write_text(header + "\n" + "\n".join(rows) + "\n")
    truncated = scratch / "truncated.csv"
    truncated.write_text("\n".join(lines[:-1]) + "\n")
    return {"sample": sample, "answers": answers, "perturbed": perturbed, "truncated": truncated}


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--export", type=Path, required=True)
    p.add_argument("--envs", type=Path, required=True, help="the environments that were exported")
    p.add_argument("--sandmle", default="sandmle")
    a = p.parse_args()
    target = Path(mlebench.__file__).parent / "competitions"
    data = (a.export / "data").resolve()
    reg = registry.set_data_dir(data)
    differences = 0
    for comp in sorted((a.export / "competitions").iterdir()):
        dest = target / comp.name
        if dest.exists() and not (dest / "sandmle_task.json").exists():
            sys.exit(f"{dest}: an MLE-bench competition of that name exists; not replaced")
        shutil.rmtree(dest, ignore_errors=True)
        shutil.copytree(comp, dest)
        competition = reg.get_competition(comp.name)
        prepared = data / comp.name / "prepared"
        with tempfile.TemporaryDirectory() as scratch:
            subs = submissions(prepared / "private/answers.csv", prepared / "public/sample_submission.csv", Path(scratch))
            for label, path in subs.items():
                theirs = grade_csv(path, competition).to_dict()
                run = subprocess.run([a.sandmle, "--json", "evaluate", "--env", str(a.envs / comp.name),
                                      "--submission_path", str(path)], capture_output=True, text=True)
                ours = json.loads(run.stdout)
                diff = [k for k in KEYS if ours.get(k) != theirs.get(k)]
                differences += bool(diff)
                status = "same" if not diff else "DIFFERENT " + ", ".join(f"{k}: {ours.get(k)} vs {theirs.get(k)}" for k in diff)
                print(f"{comp.name:16s} {competition.grader.name:22s} {label:10s} score {ours.get('score')!s:>10s}  {status}")
    sys.exit(1 if differences else 0)


if __name__ == "__main__":
    main()
