#!/usr/bin/env python3
"""How realistic and how learnable a `sandmle generate` run's environments are.

Runs (unless --envs names a finished run)

    sandmle generate --per-seed N --seed S --out OUT/envs
    sandmle export --format harbor --envs OUT/envs --out OUT/harbor

then, for every environment, reads its public files as a Kaggle practitioner would and measures

- count-like columns (a unit of things counted or of whole years, days, months, hours: `items`,
  `visits`, `years`, ...) and whether every value is a whole number;
- numeric columns piled on a bound: a quarter of the rows or more on the column's smallest or
  largest value (columns of five distinct values or more: a flag or a small count is not a pile;
  the pixel intensities of a table of pixels, `px_*`, are not counted: a dark background is the
  picture, not a range's bound);
- whether any feature has missing values;
- text cells (columns of long strings) that are one word, or have a word straight after itself,
  case and punctuation aside (the real SMS seed: 0.7 % and 2.3 %);
- the title, domain, modality, rule family and column set (near-duplicates: two environments of
  one target name whose feature sets are at least 80 % alike, Jaccard);
- learnability: a plain scikit-learn RandomForest (100 trees, random_state 0, the Harbor export's
  reference solution with its model swapped) against the constant sample submission, both graded
  by `sandmle evaluate`; normalised gain = (forest - constant) / (perfect - constant), perfect 1
  for higher-is-better metrics and 0 for lower-is-better ones; and the medal the forest takes;
- with --strong, the medal a stronger agent-style model takes (a stack of a 300-tree forest,
  gradient boosting and a scaled linear model, combined by 5-fold cross-validation): gold should be
  out of stock code's reach, not out of every model's;
- with --text-models, on environments with text: the same forest on TF-IDF of words and word
  pairs (`ngram_range=(1, 2)`) beside the reference's words alone — does word order pay?
- whether the environment records its oracle (the hidden rule's score, `grading.json`'s `oracle`).

Prints a markdown summary (and writes OUT/realism.json with every environment's figures).

    python examples/scripts/realism_report.py --sandmle target/release/sandmle --out /tmp/realism \\
        [--per-seed 10] [--seed 3] [--mix paper] [--python /path/to/python-with-sklearn]

Needs pandas, numpy, scikit-learn and Pillow in --python (default: this interpreter).
"""
import argparse
import json
import math
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import pandas as pd

COUNT_UNITS = {
    "items", "visits", "returns", "points", "pages", "stops", "retries", "deploys", "connections",
    "messages", "lines", "payments", "inquiries", "steps", "years", "days", "months", "hour",
}


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


def evaluate(sandmle, env, submission):
    done = run([sandmle, "--json", "evaluate", "--env", str(env), "--submission_path", str(submission)])
    lines = done.stdout.strip().splitlines()
    try:
        return json.loads(lines[-1]) if lines else {}
    except json.JSONDecodeError:
        return {}


# A stronger, agent-style model: a stack of a forest, gradient boosting and a
# scaled linear model, combined by 5-fold cross-validation (replaces the
# solution's model_of).
STACK = """
def model_of(spec, classification):
    from sklearn import ensemble, linear_model
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler
    forest = (ensemble.RandomForestClassifier if classification else ensemble.RandomForestRegressor)(
        n_estimators=300, n_jobs=1, random_state=0)
    boost = (ensemble.HistGradientBoostingClassifier if classification else ensemble.HistGradientBoostingRegressor)(
        max_iter=200, learning_rate=0.05, random_state=0)
    linear = make_pipeline(StandardScaler(), linear_model.LogisticRegression(max_iter=3000) if classification
                           else linear_model.RidgeCV())
    members = [("forest", forest), ("boost", boost), ("linear", linear)]
    if classification:
        return ensemble.StackingClassifier(members, cv=5)
    return ensemble.StackingRegressor(members, cv=5)
"""


def forest_submission(task_dir, python, strong=False, pairs=False):
    """The Harbor reference solution with a plain RandomForest (or, strong, the
    stack above; with pairs, its TF-IDF over words and word pairs); the
    submission's path or None."""
    solve = (task_dir / "solution" / "solve.sh").read_text()
    body = solve.split("<<'SANDMLE_SOLVE'\n", 1)[1].split("\nSANDMLE_SOLVE", 1)[0]
    config = json.loads(json.loads(re.search(r"^CONFIG = json\.loads\((.*)\)$", body, re.M).group(1)))
    config["model"] = {"type": "random_forest", "n_trees": 100}
    body = re.sub(r"^CONFIG = json\.loads\(.*\)$", lambda _: "CONFIG = " + repr(config), body, count=1, flags=re.M)
    if strong:
        body = body.replace("\ndef image_features(", STACK + "\n\ndef image_features(", 1)
    if pairs:
        words = "TfidfVectorizer(max_features=2000)"
        if words not in body:
            sys.exit("the reference solution's text features changed: update --text-models")
        body = body.replace(words, "TfidfVectorizer(max_features=2000, ngram_range=(1, 2))")
    work = Path(tempfile.mkdtemp(prefix="realism-"))
    for f in (task_dir / "environment" / "data").iterdir():
        (shutil.copytree if f.is_dir() else shutil.copy)(f, work / f.name)
    (work / "solve.py").write_text(body)
    done = run([python, "solve.py"], cwd=work)
    sub = work / "submission.csv"
    return (sub if done.returncode == 0 and sub.exists() else None), work, done.stderr[-300:]


def column_units(description):
    return dict(re.findall(r"^- `([^`]+)`: number, in (.+)$", description, re.M))


def figures(env, task_dir, sandmle, python, strong=False, text_models=False):
    pre = env / "prepared"
    grading = json.loads((pre / "private" / "grading.json").read_text())
    task = grading["task"]
    provenance = json.loads((pre / "private" / "provenance.json").read_text())
    plan = provenance.get("details", {}).get("plan", {})
    description = (pre / "public" / "description.md").read_text()
    train = pd.read_csv(pre / "public" / "train.csv")
    features = [c for c in train.columns if c != task["id_column"] and c not in task["target_columns"]]
    units = column_units(description)
    counts, integral, piled, numeric = 0, 0, 0, 0
    for c in features:
        col = train[c]
        if not pd.api.types.is_numeric_dtype(col):
            continue
        values = col.dropna()
        if values.empty:
            continue
        numeric += 1
        if units.get(c, "").split("/")[0] in COUNT_UNITS:
            counts += 1
            integral += int(bool((values == values.round()).all()))
        if values.nunique() >= 5 and not c.startswith("px_"):
            share = max((values == values.min()).mean(), (values == values.max()).mean())
            piled += int(share >= 0.25)
    row = {
        "env": env.name,
        "seed": provenance.get("seed_task"),
        "title": description.splitlines()[0].lstrip("# ").strip() if description else "",
        "domain": plan.get("domain"),
        "modality": task["modality"],
        "kind": task["kind"],
        "metric": task["metric"]["name"],
        "rule_family": plan.get("rule_family"),
        "targets": task["target_columns"],
        "columns": sorted(features),
        "numeric_columns": numeric,
        "count_columns": counts,
        "integral_count_columns": integral,
        "piled_columns": piled,
        "missing_values": bool(train[features].isna().any().any()) if features else False,
    }
    # Text cells: one word long, or with a word straight after itself.
    strip = lambda w: re.sub(r"^[\W_]+|[\W_]+$", "", w).lower()  # noqa: E731
    raw = [str(v).split() for c in features if not pd.api.types.is_numeric_dtype(train[c])
           and train[c].dropna().astype(str).str.len().mean() > 30 for v in train[c].dropna()]
    cells = [[strip(w) for w in words if strip(w)] for words in raw]
    row["text_cells"] = len(cells)
    row["one_word_cells"] = sum(len(w) == 1 for w in raw)
    row["repeated_word_cells"] = sum(any(a == b for a, b in zip(w, w[1:])) for w in cells)
    higher = task["direction"] == "higher_is_better"
    constant = evaluate(sandmle, env, pre / "public" / "sample_submission.csv").get("score")
    sub, work, err = forest_submission(task_dir, python)
    forest = evaluate(sandmle, env, sub) if sub else {}
    shutil.rmtree(work, ignore_errors=True)
    row["constant"], row["forest"] = constant, forest.get("score")
    row["forest_medal"] = forest.get("medal")
    if sub is None:
        row["forest_error"] = err
    if strong:
        sub, work, err = forest_submission(task_dir, python, strong=True)
        stack = evaluate(sandmle, env, sub) if sub else {}
        shutil.rmtree(work, ignore_errors=True)
        row["stack"], row["stack_medal"] = stack.get("score"), stack.get("medal")
        if sub is None:
            row["stack_error"] = err
    if text_models and cells:
        sub, work, err = forest_submission(task_dir, python, pairs=True)
        pairs = evaluate(sandmle, env, sub) if sub else {}
        shutil.rmtree(work, ignore_errors=True)
        row["forest_pairs"] = pairs.get("score")
        if sub is None:
            row["forest_pairs_error"] = err
    row["oracle"] = grading.get("oracle")
    perfect = 1.0 if higher else 0.0
    if constant is not None and row["forest"] is not None and perfect != constant:
        row["gain"] = (row["forest"] - constant) / (perfect - constant)
    if constant is not None and row.get("forest_pairs") is not None and perfect != constant:
        row["gain_pairs"] = (row["forest_pairs"] - constant) / (perfect - constant)
    return row


def jaccard(a, b):
    a, b = set(a), set(b)
    return len(a & b) / max(len(a | b), 1)


def stack_figures(rows):
    """The stack's medal and gold shares over the environments it ran on (--strong)."""
    ran = [r for r in rows if "stack" in r]
    if not ran:
        return {}
    return {
        "stack_measured": len(ran),
        "stack_medal_share": sum(bool(r.get("stack_medal")) for r in ran) / len(ran),
        "stack_gold_share": sum(r.get("stack_medal") == "gold" for r in ran) / len(ran),
    }


def summary(rows):
    n = len(rows)
    gains = [r["gain"] for r in rows if r.get("gain") is not None]
    counts = sum(r["count_columns"] for r in rows)
    numeric = sum(r["numeric_columns"] for r in rows)
    dups = sum(
        1
        for i, a in enumerate(rows)
        for b in rows[i + 1:]
        if a["targets"] == b["targets"] and jaccard(a["columns"], b["columns"]) >= 0.8
    )
    medals = [r for r in rows if r.get("forest_medal")]
    return {
        "environments": n,
        "median_gain": statistics.median(gains) if gains else None,
        "gain_at_most_0.1": sum(g <= 0.1 for g in gains),
        "gain_measured": len(gains),
        "count_columns": counts,
        "integral_count_share": sum(r["integral_count_columns"] for r in rows) / counts if counts else None,
        "numeric_columns": numeric,
        "piled_share": sum(r["piled_columns"] for r in rows) / numeric if numeric else None,
        "with_missing_share": sum(r["missing_values"] for r in rows) / n if n else None,
        "text_cells": sum(r.get("text_cells", 0) for r in rows),
        "one_word_text_share": (sum(r.get("one_word_cells", 0) for r in rows) / max(1, sum(r.get("text_cells", 0) for r in rows))),
        "repeated_word_text_share": (sum(r.get("repeated_word_cells", 0) for r in rows) / max(1, sum(r.get("text_cells", 0) for r in rows))),
        "distinct_titles": len({r["title"] for r in rows}),
        "distinct_titles_share": len({r["title"] for r in rows}) / n if n else None,
        "domains": len({r["domain"] for r in rows if r["domain"]}),
        "modalities": sorted({r["modality"] for r in rows}),
        "rule_families": len({r["rule_family"] for r in rows if r["rule_family"]}),
        "near_duplicate_pairs": dups,
        "forest_medal_share": len(medals) / n if n else None,
        "forest_gold_share": sum(r["forest_medal"] == "gold" for r in medals) / n if n else None,
        "oracle_recorded_share": sum(r.get("oracle") is not None for r in rows) / n if n else None,
        **stack_figures(rows),
        **text_figures(rows),
    }


def text_figures(rows):
    """Words alone against words and word pairs, over the environments with
    text (--text-models)."""
    ran = [r for r in rows if r.get("gain_pairs") is not None and r.get("gain") is not None]
    if not ran:
        return {}
    words, pairs = [r["gain"] for r in ran], [r["gain_pairs"] for r in ran]
    return {
        "text_measured": len(ran),
        "text_median_gain_words": statistics.median(words),
        "text_median_gain_pairs": statistics.median(pairs),
        "text_words_at_most_0.1": sum(g <= 0.1 for g in words),
        "text_pairs_at_most_0.1": sum(g <= 0.1 for g in pairs),
        "text_pairs_better_share": sum(b > a for a, b in zip(words, pairs)) / len(ran),
    }


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--sandmle", required=True)
    p.add_argument("--out", type=Path, required=True)
    p.add_argument("--envs", type=Path, help="a finished generate run (skips generating)")
    p.add_argument("--per-seed", type=int, default=10)
    p.add_argument("--seed", type=int, default=3)
    p.add_argument("--python", default=sys.executable)
    p.add_argument("--mix", help="generate with this modality mix (`paper`, or modality=weight pairs)")
    p.add_argument("--strong", action="store_true",
                   help="also grade a stack of forest, gradient boosting and a linear model (is gold reachable?)")
    p.add_argument("--text-models", action="store_true",
                   help="on text environments, also grade the forest on words and word pairs (does word order pay?)")
    a = p.parse_args()
    a.out.mkdir(parents=True, exist_ok=True)
    envs = a.envs or a.out / "envs"
    if a.envs is None:
        shutil.rmtree(envs, ignore_errors=True)
        mix = ["--mix", a.mix] if a.mix else []
        done = run([a.sandmle, "generate", "--per-seed", str(a.per_seed), "--seed", str(a.seed), *mix, "--out", str(envs)])
        if done.returncode != 0:
            sys.exit(f"generate failed: {done.stderr[-500:]}")
    harbor = a.out / "harbor"
    shutil.rmtree(harbor, ignore_errors=True)
    done = run([a.sandmle, "export", "--format", "harbor", "--envs", str(envs), "--out", str(harbor)])
    if done.returncode != 0:
        sys.exit(f"export failed: {done.stderr[-500:]}")
    rows = []
    dirs = sorted(d for d in envs.iterdir() if (d / "prepared").is_dir())
    for k, env in enumerate(dirs):
        rows.append(figures(env, harbor / env.name, a.sandmle, a.python, a.strong, a.text_models))
        print(f"\r{k + 1}/{len(dirs)} {env.name:40s}", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    s = summary(rows)
    (a.out / "realism.json").write_text(json.dumps({"summary": s, "environments": rows}, indent=1) + "\n")
    fmt = lambda v: "-" if v is None else (f"{v:.2f}" if isinstance(v, float) else str(v))
    print("| figure | value |\n|---|---|")
    for k, v in s.items():
        print(f"| {k} | {fmt(v) if not isinstance(v, list) else ', '.join(v)} |")
    print("\n| seed | envs | median gain | min gain | RF medals | integral counts | piled | with missing |")
    print("|---|---|---|---|---|---|---|---|")
    for seed in sorted({r["seed"] for r in rows}):
        rs = [r for r in rows if r["seed"] == seed]
        g = [r["gain"] for r in rs if r.get("gain") is not None]
        c = sum(r["count_columns"] for r in rs)
        num = sum(r["numeric_columns"] for r in rs)
        print(
            f"| {seed} | {len(rs)} | {fmt(statistics.median(g)) if g else '-'} | {fmt(min(g)) if g else '-'} | "
            f"{sum(1 for r in rs if r.get('forest_medal'))} | "
            f"{sum(r['integral_count_columns'] for r in rs)}/{c} | {sum(r['piled_columns'] for r in rs)}/{num} | "
            f"{sum(r['missing_values'] for r in rs)} |"
        )


if __name__ == "__main__":
    main()
