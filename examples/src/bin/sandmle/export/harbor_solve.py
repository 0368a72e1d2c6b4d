"""The reference solution of a SandMLE task exported for Harbor: the
baseline panel's best model, as scikit-learn fits it, on the public files
in the working directory; writes submission.csv there.

CONFIG holds the task's columns and form and the model's pipeline spec
(this project's JSON: {"steps": [...], "model": {"type": ..., ...}}).
"""
import json
import os

import numpy as np
import pandas as pd

CONFIG = json.loads(__CONFIG__)


def model_of(spec, classification):
    from sklearn import ensemble, linear_model, naive_bayes, neighbors, svm, tree
    from sklearn.dummy import DummyClassifier, DummyRegressor

    kind = spec.get("type", "hist_forest")
    depth = spec.get("max_depth")
    leaf = spec.get("min_samples_leaf", 1)
    if kind == "constant":
        if classification:
            return DummyClassifier(strategy="prior")
        return DummyRegressor(strategy="median" if spec.get("median") else "mean")
    if kind == "logistic_regression" and classification:
        c = spec.get("c", 1.0)
        return linear_model.LogisticRegression(C=c, max_iter=2000) if c is not None else \
            linear_model.LogisticRegression(penalty=None, max_iter=2000)
    if kind == "linear_regression" and not classification:
        return linear_model.LinearRegression()
    if kind in ("ridge", "lasso", "elastic_net") and not classification:
        alpha = spec.get("alpha", 1.0)
        if kind == "ridge":
            return linear_model.Ridge(alpha=alpha)
        if kind == "lasso":
            return linear_model.Lasso(alpha=alpha)
        return linear_model.ElasticNet(alpha=alpha, l1_ratio=spec.get("l1_ratio", 0.5))
    if kind == "decision_tree":
        cls = tree.DecisionTreeClassifier if classification else tree.DecisionTreeRegressor
        return cls(max_depth=depth, min_samples_leaf=leaf, random_state=0)
    if kind == "knn":
        cls = neighbors.KNeighborsClassifier if classification else neighbors.KNeighborsRegressor
        return cls(n_neighbors=spec.get("k", 5), weights="distance" if spec.get("distance_weighted") else "uniform")
    if kind == "gaussian_nb" and classification:
        return naive_bayes.GaussianNB(var_smoothing=spec.get("var_smoothing", 1e-9))
    if kind == "multinomial_nb" and classification:
        return naive_bayes.MultinomialNB(alpha=spec.get("alpha", 1.0))
    if kind == "svm":
        return svm.SVC(C=spec.get("c", 1.0), probability=True, random_state=0) if classification else \
            svm.SVR(C=spec.get("c", 1.0))
    # Forests, and anything without a scikit-learn twin.
    cls = ensemble.RandomForestClassifier if classification else ensemble.RandomForestRegressor
    return cls(n_estimators=spec.get("n_trees", 100), max_depth=depth, min_samples_leaf=leaf,
               n_jobs=1, random_state=0)


def image_features(ids):
    from PIL import Image

    rows = []
    for i in ids:
        img = Image.open(os.path.join(CONFIG["images"], f"{i}{CONFIG['image_suffix']}")).convert("RGB")
        grey = np.asarray(img.convert("L").resize((8, 8)), dtype=float).ravel() / 255.0
        colour = np.asarray(img, dtype=float).reshape(-1, 3).mean(axis=0) / 255.0
        rows.append(np.concatenate([grey, colour]))
    return pd.DataFrame(rows, columns=[f"px{j}" for j in range(len(rows[0]))] if rows else None)


def features(train, test):
    """Numbers as they are (missing: the training median), categories
    one-hot (the 20 most common levels), text as TF-IDF, images as pixels."""
    from sklearn.feature_extraction.text import TfidfVectorizer

    drop = [CONFIG["id"]] + CONFIG["targets"]
    x_train = train.drop(columns=[c for c in drop if c in train.columns])
    x_test = test.drop(columns=[c for c in drop if c in test.columns])
    x_test = x_test[[c for c in x_train.columns if c in x_test.columns]]
    x_train = x_train[x_test.columns]
    parts_train, parts_test = [], []
    for col in x_train.columns:
        a, b = x_train[col], x_test[col]
        if pd.api.types.is_numeric_dtype(a):
            med = a.median() if a.notna().any() else 0.0
            parts_train.append(a.fillna(med).to_frame())
            parts_test.append(b.fillna(med).to_frame())
        elif a.astype(str).str.len().mean() > 30:
            vec = TfidfVectorizer(max_features=2000)
            ta = vec.fit_transform(a.fillna("").astype(str)).toarray()
            tb = vec.transform(b.fillna("").astype(str)).toarray()
            names = [f"{col}_tfidf{j}" for j in range(ta.shape[1])]
            parts_train.append(pd.DataFrame(ta, columns=names, index=a.index))
            parts_test.append(pd.DataFrame(tb, columns=names, index=b.index))
        else:
            top = a.astype(str).value_counts().index[:20]
            for level in top:
                parts_train.append((a.astype(str) == level).astype(float).rename(f"{col}={level}").to_frame())
                parts_test.append((b.astype(str) == level).astype(float).rename(f"{col}={level}").to_frame())
    if CONFIG.get("images"):
        key = CONFIG.get("image_key") or CONFIG["id"]
        parts_train.append(image_features(train[key]).set_index(train.index))
        parts_test.append(image_features(test[key]).set_index(test.index))
    empty = lambda df: pd.DataFrame({"bias": np.zeros(len(df))}, index=df.index)
    xa = pd.concat(parts_train, axis=1) if parts_train else empty(train)
    xb = pd.concat(parts_test, axis=1) if parts_test else empty(test)
    return xa.to_numpy(dtype=float), xb.to_numpy(dtype=float)


def main():
    train = pd.read_csv("train.csv")
    test = pd.read_csv("test.csv")
    sample = pd.read_csv("sample_submission.csv")
    form = CONFIG["form"]
    classification = form != "value"
    xa, xb = features(train, test)
    from sklearn.preprocessing import StandardScaler

    scaler = StandardScaler().fit(xa)
    xa, xb = scaler.transform(xa), scaler.transform(xb)
    out = pd.DataFrame({CONFIG["id"]: test[CONFIG["id"]]})
    spec = CONFIG["model"]
    if form == "column_probabilities" or (form == "value" and len(CONFIG["targets"]) > 1):
        for target, column in zip(CONFIG["targets"], CONFIG["predictions"]):
            y = train[target]
            m = model_of(spec, form != "value").fit(xa, y)
            if form == "value":
                out[column] = m.predict(xb)
            else:
                proba = m.predict_proba(xb)
                classes = list(m.classes_)
                out[column] = proba[:, classes.index(1)] if 1 in classes else 0.0
    else:
        y = train[CONFIG["targets"][0]]
        m = model_of(spec, classification).fit(xa, y)
        column = CONFIG["predictions"][0]
        if form == "value":
            out[column] = m.predict(xb)
        elif form == "label":
            out[column] = m.predict(xb)
        else:
            proba = m.predict_proba(xb)
            classes = [str(c) for c in m.classes_]
            if form == "probability":
                positive = sorted(classes)[-1]
                out[column] = proba[:, classes.index(positive)] if len(classes) > 1 else 0.5
            elif form == "class_probabilities":
                for c in CONFIG["predictions"]:
                    out[c] = proba[:, classes.index(c)] if c in classes else 0.0
            else:  # label_list: the most likely labels, best first
                order = np.argsort(-proba, axis=1)[:, : CONFIG.get("k", 5)]
                out[column] = [" ".join(classes[j] for j in row) for row in order]
    out = out[list(sample.columns)]
    out.to_csv("submission.csv", index=False)
    print(f"wrote submission.csv ({len(out)} rows) with {spec.get('type')}")


if __name__ == "__main__":
    main()
