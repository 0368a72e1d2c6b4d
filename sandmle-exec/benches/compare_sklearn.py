#!/usr/bin/env python3
"""The default pipeline in sandmle-exec and in scikit-learn, side by side.

Default pipeline: median imputation, standard scaling, a random forest of
100 trees; load the CSV files, fit, predict, grade (ROC AUC).

  micro  a 200-row, 20-feature binary task (make_classification, 5% of
         values missing, 100 test rows), written in MLE-bench's layout and
         imported with `sandmle import`; many repetitions.
  full   the bundled `flights` seed at full size (261,877 training rows):
         once, with --trees trees (default 100).
  logistic
         logistic regression (C = 1; scikit-learn's lbfgs against this
         crate's) on micro environments shrunk from the bundled seeds with
         `sandmle shrink`: digits (200 x 64, 10 classes, multinomial) and
         breast cancer (200 x 30, binary), median imputation and standard
         scaling; and breast cancer unscaled (lbfgs then runs all 100
         iterations). Both sides alternate in rounds; medians and ranges of
         fit + predict (the model alone: imputation, scaling, fit,
         predict_proba) and of the whole run (load the CSVs, fit, predict,
         grade), with each side's score.

Both sides run in one process each, imports excluded, one thread
(n_jobs=1, RAYON_NUM_THREADS=1); times are medians in milliseconds.

  all    every row of issue #16's table, each against its goal (the rows
         are in sk_rows.py; `pipeline`, `flights`, `grade`, `generate`,
         `accuracy` and `knn` run one): the default forest pipeline on the
         breast cancer, digits and diabetes micro environments; the default
         forest on flights subsamples of 200 to 261,877 rows; grading a
         1M-row shuffled AUC submission, whole process with peak RSS;
         verified environments per minute per bundled seed; our forest's
         score against scikit-learn's random forest on every seed's micro
         environment; kNN on the text seed against a brute-force bound. The
         logistic row is `logistic`'s digits line.

Usage, from the repository root (with /usr/bin/time installed):
  python3 sandmle-exec/benches/compare_sklearn.py all [--quick]
  python3 sandmle-exec/benches/compare_sklearn.py micro [--reps 21]
  python3 sandmle-exec/benches/compare_sklearn.py full [--trees 100]
  python3 sandmle-exec/benches/compare_sklearn.py logistic [--reps 35]
"""
import argparse, json, os, platform, subprocess, sys, tempfile, time, warnings

import numpy as np
import pandas as pd
from pandas.api import types as ptypes
import sklearn
from sklearn.datasets import make_classification
from sklearn.ensemble import RandomForestClassifier
from sklearn.impute import SimpleImputer
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import accuracy_score, roc_auc_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OneHotEncoder, StandardScaler
from sklearn.compose import make_column_transformer

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TARGET = os.environ.get("CARGO_TARGET_DIR", f"{ROOT}/target")


def build():
    """The release `sandmle` binary and the pipeline_timing example (under
    flock /tmp/cargo.lock when that lock file exists: a shared machine)."""
    cmd = ["cargo", "build", "--quiet", "--release", "-p", "sandmle", "--bin", "sandmle",
           "-p", "sandmle-exec", "--example", "pipeline_timing"]
    if os.path.exists("/tmp/cargo.lock"):
        cmd = ["flock", "/tmp/cargo.lock"] + cmd
    subprocess.check_call(cmd, cwd=ROOT)


def write_micro(dir_):
    X, y = make_classification(n_samples=300, n_features=20, n_informative=8, random_state=20261129)
    rng = np.random.default_rng(7)
    X[rng.random(X.shape) < 0.05] = np.nan
    cols = [f"f{i}" for i in range(20)]
    df = pd.DataFrame(X, columns=cols)
    df.insert(0, "id", np.arange(300))
    df["target"] = y
    pub, priv = f"{dir_}/prepared/public", f"{dir_}/prepared/private"
    os.makedirs(pub), os.makedirs(priv)
    df.iloc[:200].to_csv(f"{pub}/train.csv", index=False)
    df.iloc[200:].drop(columns="target").to_csv(f"{pub}/test.csv", index=False)
    df.iloc[200:][["id", "target"]].to_csv(f"{priv}/answers.csv", index=False)
    pd.DataFrame({"id": df.id[200:], "target": 0.5}).to_csv(f"{pub}/sample_submission.csv", index=False)
    open(f"{pub}/description.md", "w").write("# micro\n")


def python_pipeline(env, n_trees, target, id_col="id"):
    """One run; returns phase times in ms and the AUC."""
    t = {}
    s = time.perf_counter()
    pub, priv = f"{env}/prepared/public", f"{env}/prepared/private"
    train = pd.read_csv(f"{pub}/train.csv.gz" if os.path.exists(f"{pub}/train.csv.gz") else f"{pub}/train.csv")
    test = pd.read_csv(f"{pub}/test.csv.gz" if os.path.exists(f"{pub}/test.csv.gz") else f"{pub}/test.csv")
    answers = pd.read_csv(f"{priv}/answers.csv")
    t["load"] = (time.perf_counter() - s) * 1e3
    feats = [c for c in train.columns if c not in (id_col, target)]
    cats = [c for c in feats if not ptypes.is_numeric_dtype(train[c])]
    nums = [c for c in feats if c not in cats]
    pre = make_column_transformer(
        (make_pipeline(SimpleImputer(strategy="median"), StandardScaler()), nums),
        (make_pipeline(SimpleImputer(strategy="most_frequent"), OneHotEncoder(handle_unknown="ignore", max_categories=21)), cats),
    )
    model = make_pipeline(pre, RandomForestClassifier(n_estimators=n_trees, n_jobs=1, random_state=0))
    s = time.perf_counter()
    model.fit(train[feats], train[target])
    t["fit"] = (time.perf_counter() - s) * 1e3
    s = time.perf_counter()
    p = model.predict_proba(test[feats])[:, 1]
    t["predict"] = (time.perf_counter() - s) * 1e3
    s = time.perf_counter()
    sub = pd.DataFrame({id_col: test[id_col], target: p}).sort_values(id_col)
    ans = answers.sort_values(id_col)
    auc = roc_auc_score(ans[target].values, sub[target].values)
    t["grade"] = (time.perf_counter() - s) * 1e3
    t["total"] = sum(t.values())
    return t, auc


def rust_pipeline(env, spec_path, reps):
    cmd = [f"{TARGET}/release/examples/pipeline_timing", env, spec_path, str(reps)]
    out = subprocess.check_output(cmd, cwd=ROOT, env={**os.environ, "RAYON_NUM_THREADS": "1"})
    return json.loads(out)


def spec_file(dir_, n_trees, model):
    spec = {
        "name": f"{model}-{n_trees}",
        "steps": [
            {"op": "impute", "strategy": "median"},
            {"op": "encode", "method": "one_hot", "max_levels": 20},
            {"op": "scale", "method": "standard"},
        ],
        "model": {"type": model, "n_trees": n_trees},
    }
    path = f"{dir_}/{model}.json"
    json.dump(spec, open(path, "w"))
    return path


# (row label, bundled seed, standard scaling)
LOGISTIC_CASES = [
    ("digits micro, 200 x 64, 10 classes", "digits", True),
    ("breast cancer micro, 200 x 30, binary", "breast_cancer", True),
    ("breast cancer micro, unscaled", "breast_cancer", False),
]


def python_logistic(env, scale, c=1.0):
    """One run of the logistic pipeline; phase times in ms and the score."""
    t = {}
    s = time.perf_counter()
    pub, priv = f"{env}/prepared/public", f"{env}/prepared/private"
    train, test = pd.read_csv(f"{pub}/train.csv"), pd.read_csv(f"{pub}/test.csv")
    answers = pd.read_csv(f"{priv}/answers.csv")
    grading = json.load(open(f"{priv}/grading.json"))["task"]
    id_col, target, metric = grading["id_column"], grading["target_columns"][0], grading["metric"]["name"]
    t["load"] = (time.perf_counter() - s) * 1e3
    feats = [c_ for c_ in train.columns if c_ not in (id_col, target)]
    steps = [SimpleImputer(strategy="median")] + ([StandardScaler()] if scale else [])
    model = make_pipeline(*steps, LogisticRegression(C=c, max_iter=100))
    s = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # ConvergenceWarning when unscaled
        model.fit(train[feats], train[target])
    p = model.predict_proba(test[feats])
    t["model"] = (time.perf_counter() - s) * 1e3
    s = time.perf_counter()
    truth = answers.set_index(id_col).loc[test[id_col], target].values
    if metric == "accuracy":
        score = accuracy_score(truth, model.classes_[p.argmax(axis=1)])
    else:
        score = roc_auc_score(truth, p[:, 1])
    t["grade"] = (time.perf_counter() - s) * 1e3
    t["total"] = sum(t.values())
    return t, score


def logistic_spec(dir_, scale, c=1.0):
    steps = [{"op": "impute", "strategy": "median"}] + ([{"op": "scale", "method": "standard"}] if scale else [])
    path = f"{dir_}/logistic-{'scaled' if scale else 'unscaled'}.json"
    json.dump({"name": "logistic", "steps": steps, "model": {"type": "logistic_regression", "c": c}}, open(path, "w"))
    return path


def spread(xs):
    xs = sorted(xs)
    return xs[len(xs) // 2], xs[0], xs[-1]


def logistic(tmp, reps, rounds=5, cases=LOGISTIC_CASES):
    build()
    envs = {}
    for _, seed, _ in cases:
        if seed not in envs:
            out = subprocess.check_output([f"{TARGET}/release/sandmle", "shrink",
                                           "--seed-env", seed, "--seed", "0", "--out", f"{tmp}/{seed}", "--json"], cwd=ROOT)
            envs[seed] = json.loads(out)["env"]
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores; scikit-learn {sklearn.__version__}, pandas {pd.__version__}; "
          f"logistic regression C = 1, {rounds} alternating rounds of {reps // rounds} runs per side; "
          "ms, median (min-max)")
    print(f"{'environment':<40}{'work':<14}{'sandmle ms':>22}{'scikit-learn ms':>24}{'ratio':>8}")
    for label, seed, scale in cases:
        env, spec = envs[seed], logistic_spec(tmp, scale)
        ours, theirs, our_score, their_score = {"model": [], "total": []}, {"model": [], "total": []}, None, None
        for _ in range(rounds):
            r = rust_pipeline(env, spec, reps // rounds)
            runs = r["runs"]
            ours["model"] += [sum(runs[k][i] for k in ("preprocess", "fit", "predict", "assemble")) for i in range(len(runs["total"]))]
            ours["total"] += runs["total"]
            our_score = r["score"]
            for _ in range(reps // rounds):
                t, their_score = python_logistic(env, scale)
                theirs["model"].append(t["model"])
                theirs["total"].append(t["total"])
        for work, key in [("fit+predict", "model"), ("whole run", "total")]:
            (om, olo, ohi), (tm, tlo, thi) = spread(ours[key]), spread(theirs[key])
            print(f"{label if key == 'model' else '':<40}{work:<14}{f'{om:.2f} ({olo:.2f}-{ohi:.2f})':>22}"
                  f"{f'{tm:.2f} ({tlo:.2f}-{thi:.2f})':>24}{tm / om:>7.1f}x")
        print(f"{'':<40}{'score':<14}{our_score:>22.5f}{their_score:>24.5f}")


ROWS = ["pipeline", "logistic", "flights", "grade", "generate", "accuracy", "knn"]


def run_rows(tmp, modes, quick):
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import sk_common, sk_rows
    build()
    print(f"machine: {sk_common.machine()}; scikit-learn {sklearn.__version__}, pandas {pd.__version__}, "
          f"numpy {np.__version__}; one thread (RAYON_NUM_THREADS=1, n_jobs=1); median (min-max)")
    for m in modes:
        if m == "logistic":
            logistic(tmp, 35, cases=LOGISTIC_CASES[:1])
        elif m == "flights" and quick:
            sk_rows.flights(tmp, sizes=(200, 2_000, 20_000), reps=(5, 3, 1))
        else:
            getattr(sk_rows, m)(tmp)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("mode", choices=["micro", "full", "all"] + ROWS)
    ap.add_argument("--quick", action="store_true", help="all: flights up to 20,000 rows only")
    ap.add_argument("--reps", type=int, default=21)
    ap.add_argument("--trees", type=int, default=100)
    ap.add_argument("--model", default="hist_forest", choices=["hist_forest", "random_forest"],
                    help="hist_forest (this crate's learner, the default pipeline's) or random_forest (smartcore's)")
    a = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="sandmle-exec-bench-")
    if a.mode == "all" or (a.mode in ROWS and a.mode != "logistic"):
        run_rows(tmp, ROWS if a.mode == "all" else [a.mode], a.quick)
        return
    if a.mode == "logistic":
        logistic(tmp, max(a.reps, 5))
        return
    if a.mode == "micro":
        raw = f"{tmp}/raw"
        write_micro(raw)
        env = f"{tmp}/env"
        build()
        subprocess.check_call([f"{TARGET}/release/sandmle", "import", "--competition", raw,
                               "--metric", "roc_auc", "--answers", "answers.csv", "--out", env], cwd=ROOT, stdout=subprocess.DEVNULL)
        target, reps = "target", a.reps
    else:
        env, target, reps = f"{ROOT}/examples/seeds/flights", "late_arrival", 1
    build()
    spec = spec_file(tmp, a.trees, a.model)
    rust = rust_pipeline(env, spec, reps)
    runs = [python_pipeline(env, a.trees, target) for _ in range(reps)]
    py = {k: sorted(r[0][k] for r in runs)[reps // 2] for k in runs[0][0]}
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores; scikit-learn {sklearn.__version__}, pandas {pd.__version__}; "
          f"{a.mode}, {a.model} of {a.trees} trees, median of {reps}")
    print(f"{'phase':<10}{'sandmle ms':>14}{'sklearn ms':>14}{'ratio':>9}")
    for k in ["load", "fit", "predict", "grade", "total"]:
        r = rust["ms"][k]
        print(f"{k:<10}{r:>14.2f}{py[k]:>14.2f}{py[k] / r:>8.1f}x")
    print(f"AUC: sandmle {rust['score']:.4f}, scikit-learn {runs[0][1]:.4f}")


if __name__ == "__main__":
    main()
