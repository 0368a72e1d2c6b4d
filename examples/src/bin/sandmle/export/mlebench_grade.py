"""MLE-bench grader for a SandMLE environment (written by `sandmle export --format mlebench`).

`grade(submission, answers)` validates the submission as `sandmle evaluate`
does (columns, row count, ids, values, in that order) and scores it with
the environment's metric. An invalid submission raises
`InvalidSubmissionError`, which MLE-bench's `Grader` turns into `score: None`.
"""
import json
import math
import warnings

import numpy as np
import pandas as pd

try:
    from mlebench.grade_helpers import InvalidSubmissionError
except ImportError:  # graded outside MLE-bench

    class InvalidSubmissionError(Exception):
        """The submission, not the grader, is at fault."""


SPEC = json.loads(__SPEC__)
ID = SPEC["id_column"]
COLUMNS = SPEC["prediction_columns"]
METRIC = SPEC["metric"]
PARAMS = SPEC["params"]
PROBABILITY_METRICS = {"roc_auc", "mean_column_roc_auc", "log_loss", "multiclass_log_loss"}
LABEL_METRICS = {
    "accuracy", "balanced_accuracy", "f1", "f1_macro", "f1_micro", "f1_weighted",
    "precision", "recall", "mcc", "quadratic_weighted_kappa", "map_at_k", "label_set_f1_micro",
}


def _id_text(value):
    """An id as text: whole numbers without `.0`, as sandmle compares them."""
    if isinstance(value, (bool, np.bool_)):
        return str(value)
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    if isinstance(value, (float, np.floating)):
        if math.isnan(value):
            return None
        return str(int(value)) if float(value).is_integer() else repr(float(value))
    return None if pd.isna(value) else str(value)


def _invalid(message):
    raise InvalidSubmissionError(message)


def _validate(submission, answers):
    """The submission's prediction columns aligned to the answers' rows."""
    wanted = [ID] + COLUMNS
    missing = [c for c in wanted if c not in submission.columns]
    if missing:
        _invalid(f"missing columns: {missing}")
    extra = [c for c in submission.columns if c not in wanted]
    if extra and not SPEC["allow_extra_columns"]:
        _invalid(f"unexpected columns: {extra}")
    if len(submission) != len(answers):
        _invalid(f"expected {len(answers)} rows, found {len(submission)}")
    have = [_id_text(v) for v in submission[ID]]
    if None in have:
        _invalid(f"row {have.index(None) + 1}: missing id")
    want = {i: row for row, i in enumerate(_id_text(v) for v in answers[ID])}
    order = [None] * len(want)
    for row, i in enumerate(have):
        at = want.get(i)
        if at is None:
            _invalid(f"unknown id {i!r}")
        if order[at] is not None:
            _invalid(f"duplicate id {i!r}")
        order[at] = row
    prediction = submission[COLUMNS].iloc[order].reset_index(drop=True)
    truth = answers[COLUMNS].reset_index(drop=True)
    for c in COLUMNS:
        col = prediction[c]
        # An empty label is a wrong prediction where the rules say so (and
        # the answers' labels are text), as grade.py fills labels with "".
        if (SPEC.get("empty_labels_are_wrong") and METRIC in LABEL_METRICS - {"map_at_k", "label_set_f1_micro"}
                and not pd.api.types.is_numeric_dtype(truth[c])):
            prediction[c] = col.astype(object).where(col.notna(), "")
            continue
        if col.isna().any() and METRIC != "label_set_f1_micro":  # an empty label set is a set
            _invalid(f"column {c!r}: missing value")
        if METRIC in LABEL_METRICS:
            continue
        values = pd.to_numeric(col, errors="coerce")
        if values.isna().any():
            _invalid(f"column {c!r}: not a number")
        if METRIC in PROBABILITY_METRICS and ((values < 0) | (values > 1)).any():
            _invalid(f"column {c!r}: a probability outside [0, 1]")
        prediction[c] = values.astype(float)
    tolerance = SPEC["probability_sum_tolerance"]
    if METRIC == "multiclass_log_loss" and tolerance is not None:
        sums = prediction[COLUMNS].sum(axis=1)
        if ((sums - 1.0).abs() > tolerance).any():
            _invalid("class probabilities must sum to 1")
    return prediction, truth


def _labels(truth, pred):
    """Truth and prediction labels of one type: numbers if both are, else text."""
    t, p = truth.to_numpy(), pred.to_numpy()
    if pd.api.types.is_numeric_dtype(truth) and pd.api.types.is_numeric_dtype(pred):
        return t.astype(float), p.astype(float)
    text = lambda a: np.array([_id_text(v) for v in a], dtype=object)  # noqa: E731
    return text(t), text(p)


def _rmsle(t, p):
    if (p <= -1).any() or (t <= -1).any():
        _invalid("RMSLE needs values above -1")
    return float(np.sqrt(np.mean((np.log1p(p) - np.log1p(t)) ** 2)))


def _apk(actual, predicted, k):
    actual = set(actual)
    if not actual:
        return 0.0
    predicted = predicted[:k]
    hits, score = 0.0, 0.0
    for i, p in enumerate(predicted):
        if p in actual and p not in predicted[:i]:
            hits += 1.0
            score += hits / (i + 1.0)
    return score / min(len(actual), k)


def _score(truth, pred):
    from sklearn import metrics as m

    c = COLUMNS[0]
    if METRIC in LABEL_METRICS and METRIC not in ("map_at_k", "label_set_f1_micro"):
        t, p = _labels(truth[c], pred[c])
        one = 1.0 if t.dtype == float else "1"
        fns = {
            "accuracy": lambda: m.accuracy_score(t, p),
            "balanced_accuracy": lambda: m.balanced_accuracy_score(t, p),
            "f1": lambda: m.f1_score(t, p, pos_label=one),
            "f1_macro": lambda: m.f1_score(t, p, average="macro"),
            "f1_micro": lambda: m.f1_score(t, p, average="micro"),
            "f1_weighted": lambda: m.f1_score(t, p, average="weighted"),
            "precision": lambda: m.precision_score(t, p, pos_label=one),
            "recall": lambda: m.recall_score(t, p, pos_label=one),
            "mcc": lambda: m.matthews_corrcoef(t, p),
            "quadratic_weighted_kappa": lambda: m.cohen_kappa_score(t, p, weights="quadratic"),
        }
        return fns[METRIC]()
    if METRIC == "label_set_f1_micro":
        from sklearn.preprocessing import MultiLabelBinarizer

        t, p = truth[c].fillna("").astype(str).str.split(), pred[c].fillna("").astype(str).str.split()
        mlb = MultiLabelBinarizer(classes=sorted({label for row in t for label in row}), sparse_output=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # labels no answer holds are ignored, as the fitted binarizer does
            return m.f1_score(mlb.fit_transform(t), mlb.transform(p), average="micro")
    if METRIC == "map_at_k":
        k = int(PARAMS["k"])
        rows = zip(truth[c].astype(str), pred[c].astype(str))
        return float(np.mean([_apk(a.split(), p.split(), k) for a, p in rows]))
    if METRIC == "multiclass_log_loss":
        y = truth[COLUMNS].to_numpy(dtype=float).argmax(axis=1)
        return m.log_loss(y, pred[COLUMNS].to_numpy(dtype=float), labels=list(range(len(COLUMNS))))
    if METRIC == "mean_column_roc_auc":
        scored = truth[COLUMNS].to_numpy(dtype=float).sum(axis=1) >= 0
        return float(np.mean([m.roc_auc_score(truth[k][scored], pred[k][scored]) for k in COLUMNS]))
    if METRIC == "mean_column_spearman":
        return float(np.mean([pd.Series(truth[k]).corr(pd.Series(pred[k]), method="spearman") for k in COLUMNS]))
    if METRIC == "mean_column_rmsle":
        return float(np.mean([_rmsle(truth[k].to_numpy(float), pred[k].to_numpy(float)) for k in COLUMNS]))
    t, p = truth[c].to_numpy(dtype=float), pred[c].to_numpy(dtype=float)
    fns = {
        "roc_auc": lambda: m.roc_auc_score(t, p),
        "average_precision": lambda: m.average_precision_score(t, p),
        "log_loss": lambda: m.log_loss(t, p, labels=[0, 1]),
        "rmse": lambda: math.sqrt(m.mean_squared_error(t, p)),
        "mse": lambda: m.mean_squared_error(t, p),
        "mae": lambda: m.mean_absolute_error(t, p),
        "r2": lambda: m.r2_score(t, p),
        "rmsle": lambda: _rmsle(t, p),
        "mape": lambda: m.mean_absolute_percentage_error(t, p),
        "pearson": lambda: float(np.corrcoef(t, p)[0, 1]),
        "spearman": lambda: float(pd.Series(t).corr(pd.Series(p), method="spearman")),
    }
    return fns[METRIC]()


def grade(submission: pd.DataFrame, answers: pd.DataFrame) -> float:
    """The submission's score; raises `InvalidSubmissionError` for an invalid one."""
    prediction, truth = _validate(submission, answers)
    score = float(_score(truth, prediction))
    if not math.isfinite(score):
        _invalid(f"the metric is not finite ({score})")
    return score
