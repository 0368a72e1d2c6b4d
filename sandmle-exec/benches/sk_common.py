"""Helpers shared by compare_sklearn.py's rows: building and running the
Rust side, micro environments, scikit-learn's counterpart of the default
pipeline, scores and spreads. Works with pandas 3.x (string dtype: column
kinds come from pandas.api.types, never `dtype == object`) and
scikit-learn 1.9."""
import json, os, platform, subprocess, time, warnings

import numpy as np
import pandas as pd
from pandas.api import types as ptypes
from sklearn.compose import make_column_transformer
from sklearn.ensemble import RandomForestClassifier, RandomForestRegressor
from sklearn.feature_extraction.text import HashingVectorizer, TfidfTransformer
from sklearn.impute import SimpleImputer
from sklearn.metrics import accuracy_score, log_loss, roc_auc_score, root_mean_squared_error, root_mean_squared_log_error
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OneHotEncoder, StandardScaler

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TARGET = os.environ.get("CARGO_TARGET_DIR", f"{ROOT}/target")
SANDMLE = f"{TARGET}/release/sandmle"
TIMING = f"{TARGET}/release/examples/pipeline_timing"
ONE_THREAD = {**os.environ, "RAYON_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1"}


def machine():
    model = platform.processor() or platform.machine()
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
        mem = next(int(l.split()[1]) for l in open("/proc/meminfo") if l.startswith("MemTotal")) / 2**20
    except (OSError, StopIteration):
        mem = float("nan")
    return f"{model}, {os.cpu_count()} cores, {mem:.0f} GiB"


def sandmle(*args, env=None):
    return json.loads(subprocess.check_output([SANDMLE, *args, "--json"], cwd=ROOT, env=env or ONE_THREAD))


def shrink(seed, out, shrink_seed=0):
    """A 200-row micro environment of a bundled seed; its directory."""
    return sandmle("shrink", "--seed-env", seed, "--seed", str(shrink_seed), "--out", out)["env"]


def rust_runs(env, spec_path, reps):
    """pipeline_timing's JSON: medians `ms`, every run's `runs`, `score`."""
    out = subprocess.check_output([TIMING, env, spec_path, str(reps)], cwd=ROOT, env=ONE_THREAD)
    return json.loads(out)


def write_spec(path, model, name="forest", seed=0, tfidf=False):
    steps = [{"op": "impute", "strategy": "median"}, {"op": "encode", "method": "one_hot", "max_levels": 20},
             {"op": "text", "n_features": 256, "ngram_max": 1, "tfidf": tfidf}, {"op": "scale", "method": "standard"}]
    json.dump({"name": name, "seed": seed, "steps": steps, "model": model}, open(path, "w"))
    return path


def spread(xs):
    xs = sorted(xs)
    return xs[len(xs) // 2], xs[0], xs[-1]


def fmt(xs, unit=1.0, digits=1):
    m, lo, hi = spread([x * unit for x in xs])
    return f"{m:.{digits}f} ({lo:.{digits}f}-{hi:.{digits}f})"


def read_csv(dir_, name):
    path = f"{dir_}/{name}.gz" if os.path.exists(f"{dir_}/{name}.gz") else f"{dir_}/{name}"
    return pd.read_csv(path)


def grading(env):
    task = json.load(open(f"{env}/prepared/private/grading.json"))["task"]
    return task["id_column"], task["target_columns"][0], task["metric"]["name"]


def is_text(col):
    """A string column whose values are sentences (several words on average)."""
    return ptypes.is_string_dtype(col) and col.dropna().astype(str).str.count(" ").mean() >= 3


def sklearn_pipeline(train, feats, classes, random_state=0, model=None, tfidf=False):
    """The default pipeline in scikit-learn: median impute + scale numbers,
    one-hot categories (20 levels), hashed text (256 features), a random
    forest of 100 trees (scikit-learn's defaults)."""
    text = [c for c in feats if is_text(train[c])]
    nums = [c for c in feats if c not in text and ptypes.is_numeric_dtype(train[c])]
    cats = [c for c in feats if c not in text and c not in nums]
    parts = [(make_pipeline(SimpleImputer(strategy="median"), StandardScaler()), nums)]
    if cats:
        parts.append((make_pipeline(SimpleImputer(strategy="most_frequent"),
                                    OneHotEncoder(handle_unknown="ignore", max_categories=21)), cats))
    for c in text:
        hv = HashingVectorizer(n_features=256, alternate_sign=False, norm=None, token_pattern=r"(?u)[^\W_]+")
        parts.append((make_pipeline(SimpleImputer(strategy="constant", fill_value=""), _Flatten(), hv,
                                    *([TfidfTransformer()] if tfidf else [])), [c]))
    if model is None:
        forest = RandomForestClassifier if classes else RandomForestRegressor
        model = forest(n_estimators=100, n_jobs=1, random_state=random_state)
    return make_pipeline(make_column_transformer(*parts, sparse_threshold=0), model)


class _Flatten:
    """A 2-D column of strings as the 1-D sequence HashingVectorizer wants."""

    def fit(self, x, y=None):
        return self

    def transform(self, x):
        return np.asarray(x).ravel().astype(str)

    def get_params(self, deep=True):
        return {}


def score(metric, truth, model, x_test):
    """The environment's metric on scikit-learn's predictions."""
    if metric in ("rmse", "rmsle"):
        p = model.predict(x_test)
        return root_mean_squared_error(truth, p) if metric == "rmse" else root_mean_squared_log_error(truth, np.maximum(p, 0))
    proba = model.predict_proba(x_test)
    classes = model.classes_
    if metric == "accuracy":
        return accuracy_score(truth, classes[proba.argmax(axis=1)])
    if metric == "roc_auc":
        return roc_auc_score(truth, proba[:, 1])
    return log_loss(truth, proba, labels=classes)


def sklearn_run(env, random_state=0, model=None, tfidf=False):
    """Load, fit, predict, grade; phase milliseconds and the score."""
    t = {}
    s = time.perf_counter()
    pub, priv = f"{env}/prepared/public", f"{env}/prepared/private"
    train, test = read_csv(pub, "train.csv"), read_csv(pub, "test.csv")
    answers = pd.read_csv(f"{priv}/answers.csv")
    id_col, target, metric = grading(env)
    t["load"] = (time.perf_counter() - s) * 1e3
    feats = [c for c in train.columns if c not in (id_col, target)]
    classes = metric not in ("rmse", "rmsle")
    pipe = sklearn_pipeline(train, feats, classes, random_state, model, tfidf)
    s = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pipe.fit(train[feats], train[target])
    t["fit"] = (time.perf_counter() - s) * 1e3
    s = time.perf_counter()
    answers = answers.set_index(id_col).loc[test[id_col]]
    # One-hot answers (multi-class log loss): the class is the column set to 1.
    truth = (answers[target] if target in answers else answers.idxmax(axis=1)).values
    value = score(metric, truth, pipe, test[feats])
    t["predict+grade"] = (time.perf_counter() - s) * 1e3
    t["total"] = sum(t.values())
    return t, value
