"""Shared loader for the solution programs (pandas + scikit-learn + Pillow).

Reads `task.json`, `train.csv`, `test.csv` and `sample_submission.csv` (each
possibly gzipped as `<name>.csv.gz`) and the images folder from the working
directory, builds feature matrices, and writes `submission.csv` from a
fitted estimator in the form the task's metric asks for:

- roc_auc / log_loss / average_precision: probability of the positive class
  (the label named like the prediction column, else the greater label, as
  roc_auc_score decides: 1 for 0/1 targets, "yes" for no/yes);
- multiclass_log_loss: one probability column per class; the train target
  is one label column, or one-hot columns named like the prediction columns;
- accuracy, f1 and other label metrics: labels of the target's own type;
- rmse, mae, ...: values; rmsle: the model is fitted on log1p(y) and its
  predictions are mapped back and clipped at 0.

Features: numeric columns (median impute), short string columns (one-hot,
at most 30 columns with rarer values pooled, missing as a value), free-text
columns (TF-IDF of word 1-2 grams, at most 20k features; a TruncatedSVD of
100 components for dense models) and images (greyscale, 16x16, pixels in
0..1). Test-only and train-only columns are not features.
"""
import json
import os

# One core: HistGradientBoosting and BLAS would otherwise use every core
# (set before numpy and scikit-learn load; import this module first).
for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from sklearn.compose import ColumnTransformer  # noqa: E402
from sklearn.decomposition import TruncatedSVD  # noqa: E402
from sklearn.dummy import DummyClassifier  # noqa: E402
from sklearn.feature_extraction.text import TfidfVectorizer  # noqa: E402
from sklearn.impute import SimpleImputer  # noqa: E402
from sklearn.model_selection import KFold, StratifiedKFold  # noqa: E402
from sklearn.pipeline import make_pipeline  # noqa: E402
from sklearn.preprocessing import OneHotEncoder, StandardScaler  # noqa: E402

PROBABILITY_METRICS = {"roc_auc", "log_loss", "average_precision", "mean_column_roc_auc"}
CLASS_PROBABILITY_METRICS = {"multiclass_log_loss"}
LOG_METRICS = {"rmsle", "mean_column_rmsle"}


def read_csv(name):
    """`name`.csv, or `name`.csv.gz when only that exists."""
    path = name + ".csv"
    return pd.read_csv(path if os.path.exists(path) else path + ".gz")


def label_text(value):
    """A label as the grader writes it: 2.0 -> "2", "cat" -> "cat"."""
    if isinstance(value, (float, np.floating)) and float(value).is_integer():
        return str(int(value))
    return str(value)


def folds(y, k, classify):
    """A k-fold splitter that cannot fail on tiny data: stratified when every
    class has k members, with fewer folds when the rarest class has fewer
    (but at least 2), else plain shuffled k-fold."""
    k = max(2, min(k, len(y) // 2))
    if classify:
        rarest = pd.Series(y).value_counts().min()
        if rarest >= 2:
            return StratifiedKFold(min(k, rarest), shuffle=True, random_state=0)
    return KFold(k, shuffle=True, random_state=0)


class Problem:
    """One model to fit: a target `y` (rows with a missing target dropped)
    and the submission columns its predictions fill."""

    def __init__(self, data, y, columns, classify, form):
        self.rows = np.flatnonzero(~pd.isna(y))
        if classify:  # a class of one row gets it twice: every CV training fold then holds every class
            counts = y.iloc[self.rows].value_counts()
            single = self.rows[y.iloc[self.rows].isin(counts.index[counts == 1])]
            self.rows = np.sort(np.concatenate([self.rows, single]))
        self.y = np.asarray(y.iloc[self.rows])
        self.columns, self.classify, self.form = columns, classify, form
        self.log = form == "value" and data.metric in LOG_METRICS
        if self.log:
            self.y = np.log1p(np.clip(self.y.astype(float), 0, None))
        if form == "probability":
            labels = sorted(set(self.y), key=lambda c: (label_text(c), str(c)))
            named = [c for c in labels if label_text(c).lower() == columns[0].lower()]
            self.positive = named[0] if named else max(set(self.y), default=1)
        metric = data.metric
        if not classify:
            self.scoring = "neg_mean_absolute_error" if metric == "mae" else "neg_root_mean_squared_error"
        else:
            self.scoring = "accuracy" if form == "label" else "neg_log_loss"

    def cv(self, k):
        return folds(self.y, k, self.classify)

    def predictions(self, est, X_test):
        """Submission columns from a fitted estimator."""
        if self.form == "value":
            p = est.predict(X_test).astype(float)
            return [np.clip(np.expm1(p), 0, None)] if self.log else [p]
        if self.form == "label":
            return [est.predict(X_test)]
        proba = est.predict_proba(X_test)
        by_class = {label_text(c): proba[:, i] for i, c in enumerate(est.classes_)}
        if self.form == "probability":
            return [by_class.get(label_text(self.positive), np.zeros(len(proba)))]
        # class probabilities: match each column to a class by name
        # ("2", "class_2", "<target>_2"), else by position in sorted order
        out = []
        for j, col in enumerate(self.columns):
            name = next((n for n in by_class if col == n or col.endswith("_" + n)), None)
            if name is None and len(by_class) == len(self.columns):
                name = list(by_class)[j]
            out.append(by_class.get(name, np.zeros(len(proba))))
        out = np.array(out)
        total = out.sum(axis=0)
        return list(np.where(total > 0, out / np.where(total > 0, total, 1), 1.0 / len(out)))


class Data:
    def __init__(self, max_rows=None):
        with open("task.json") as f:
            self.task = t = json.load(f)
        metric = t.get("metric")
        self.metric = metric.get("name") if isinstance(metric, dict) else metric
        self.id_col = t.get("id_column", "id")
        self.train, self.test = read_csv("train"), read_csv("test")
        self.sample = read_csv("sample_submission")
        if max_rows and len(self.train) > max_rows:
            self.train = self.train.sample(n=max_rows, random_state=0).reset_index(drop=True)
        targets, preds = t["target_columns"], t["prediction_columns"]
        # written in the sample's column order
        self.pred_cols = [c for c in self.sample.columns if c != self.id_col] or preds
        images = t.get("images") or None
        image_col = images.get("column") if images else None
        dropped = {self.id_col, image_col, *targets}
        self.features = [c for c in self.test.columns if c in self.train.columns and c not in dropped]
        self._split_columns()
        if images:  # pixels become numeric columns img_0 .. img_255
            pixels = [self._read_images(df, images) for df in (self.train, self.test)]
            names = [f"img_{i}" for i in range(pixels[0].shape[1])]
            self.train, self.test = (pd.concat([df, pd.DataFrame(px, columns=names)], axis=1)
                                     for df, px in zip((self.train, self.test), pixels))
            self.num_cols += names

        classify = t.get("kind", "regression") != "regression"
        if self.metric in CLASS_PROBABILITY_METRICS:
            if len(targets) > 1:  # one-hot target columns: the label is the column holding the maximum
                onehot = self.train[targets].apply(pd.to_numeric, errors="coerce")
                y = onehot.fillna(-1).idxmax(axis=1).where(onehot.notna().any(axis=1))
            else:
                y = self.train[targets[0]]
            self.problems = [Problem(self, y, preds, True, "classes")]
        else:
            form = "value" if not classify else "probability" if self.metric in PROBABILITY_METRICS else "label"
            self.problems = [Problem(self, self.train[tc], [pc], classify, form) for tc, pc in zip(targets, preds)]

    def _split_columns(self):
        """Numeric, categorical (short strings) and free-text columns."""
        self.num_cols, self.cat_cols, self.text_cols = [], [], []
        for c in self.features:
            if pd.api.types.is_numeric_dtype(self.train[c]) or pd.api.types.is_bool_dtype(self.train[c]):
                self.num_cols.append(c)
                for df in (self.train, self.test):
                    df[c] = pd.to_numeric(df[c], errors="coerce").astype(float)
                continue
            values = self.train[c].dropna().astype(str)
            words = values.str.split().str.len().mean() if len(values) else 0
            is_text = values.nunique() > 30 and words >= 3
            (self.text_cols if is_text else self.cat_cols).append(c)
            for df in (self.train, self.test):
                df[c] = df[c].astype(object).where(df[c].notna(), "" if is_text else "NA").astype(str)

    def _read_images(self, df, spec):
        from PIL import Image

        folder, col, suffix = spec.get("dir", "images"), spec.get("column"), spec.get("suffix") or ".png"
        rows = []
        for name in df[col or self.id_col]:
            name = label_text(name)
            path = os.path.join(folder, name if os.path.splitext(name)[1] else name + suffix)
            try:
                with Image.open(path) as im:
                    rows.append(np.asarray(im.convert("L").resize((16, 16), Image.BILINEAR), dtype=float).ravel() / 255)
            except OSError:  # a missing or unreadable file: a blank image
                rows.append(np.zeros(256))
        return np.array(rows)

    @property
    def has_text(self):
        return bool(self.text_cols)

    def matrices(self, scale=False, sparse=False):
        """(X_train, X_test). Dense by default, text as 100 SVD components;
        `scale=True` standardizes the numeric columns (and pixels);
        `sparse=True` keeps the TF-IDF sparse (numeric columns scaled)."""
        num = [SimpleImputer(strategy="median")] + ([StandardScaler()] if scale or sparse else [])
        parts = [("num", make_pipeline(*num), self.num_cols)] if self.num_cols else []
        if self.cat_cols:
            parts.append(("cat", OneHotEncoder(handle_unknown="infrequent_if_exist", max_categories=30), self.cat_cols))
        for c in self.text_cols:
            tfidf = TfidfVectorizer(ngram_range=(1, 2), max_features=20000 // len(self.text_cols), sublinear_tf=True)
            if not sparse:
                width = len(TfidfVectorizer(ngram_range=(1, 2)).fit(self.train[c]).vocabulary_)
                k = max(1, min(100, width - 1, len(self.train) - 1))
                tfidf = make_pipeline(tfidf, TruncatedSVD(n_components=k, random_state=0))
            parts.append(("text_" + c, tfidf, c))
        ct = ColumnTransformer(parts, sparse_threshold=1.0 if sparse else 0.0)
        return ct.fit_transform(self.train), ct.transform(self.test)

    def submit(self, make_model, X, X_test, path="submission.csv"):
        """Fits `make_model(problem)` on each problem and writes the submission."""
        out = pd.DataFrame({self.id_col: self.test[self.id_col]})
        for p in self.problems:
            model = make_model(p) if not p.classify or len(set(p.y)) > 1 else DummyClassifier()
            model.fit(X[p.rows], p.y)
            for col, values in zip(p.columns, p.predictions(model, X_test)):
                out[col] = values
        out[[self.id_col] + self.pred_cols].to_csv(path, index=False)
        print(f"wrote {path}: {len(out)} rows, columns {self.pred_cols}")


def load(max_rows=None):
    """The task in the working directory; `max_rows` caps the training rows
    (a seeded random sample) to bound run time on large tasks."""
    return Data(max_rows)
