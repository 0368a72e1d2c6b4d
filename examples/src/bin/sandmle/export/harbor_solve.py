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


def clip_samples(path):
    """(rate, mono samples in [-1, 1]) of a PCM WAV or AIFF clip."""
    import struct
    import wave

    data = open(path, "rb").read()
    if data[:4] == b"FORM":  # AIFF, whatever the file's name
        pos, comm, sound = 12, None, None
        while pos + 8 <= len(data):
            kind, n = data[pos:pos + 4], struct.unpack(">I", data[pos + 4:pos + 8])[0]
            body = data[pos + 8:pos + 8 + n]
            pos += 8 + n + (n & 1)
            if kind == b"COMM":
                comm = body
            elif kind == b"SSND":
                sound = body[8 + struct.unpack(">I", body[:4])[0]:]
        channels, frames, bits = struct.unpack(">hIh", comm[:8])
        exponent, mantissa = struct.unpack(">HQ", comm[8:18])
        rate = mantissa * 2.0 ** ((exponent & 0x7FFF) - 16383 - 63)
        width, order = (bits + 7) // 8, ">"
        raw = sound[:frames * channels * width]
    else:
        import io

        with wave.open(io.BytesIO(data)) as w:
            channels, width, rate = w.getnchannels(), w.getsampwidth(), w.getframerate()
            raw = w.readframes(w.getnframes())
        order = "<"
    if width == 3:  # 24-bit: widen to 32
        b = np.frombuffer(raw, dtype=np.uint8).reshape(-1, 3)
        zero = np.zeros((len(b), 1), np.uint8)
        b = np.hstack([zero, b] if order == "<" else [b, zero])
        width, raw = 4, b.tobytes()
    kind = {1: "u1" if order == "<" else "i1", 2: "i2", 4: "i4"}[width]
    x = np.frombuffer(raw, dtype=np.dtype(kind).newbyteorder(order)).astype(float)
    if kind == "u1":
        x -= 128.0
    x = x.reshape(-1, channels).mean(axis=1) / float(1 << (8 * width - 1))
    return float(rate), x


def audio_features(ids):
    """Log-mel band statistics, MFCCs, RMS, zero-crossing rate and spectral
    centroid over 25 ms frames, as the baseline panel computes them."""
    from scipy.fft import dct

    rows = []
    for i in ids:
        rate, x = clip_samples(os.path.join(CONFIG["images"], f"{i}{CONFIG['image_suffix']}"))
        n = 1 << max(0, round(np.log2(0.025 * rate)))
        if len(x) < n:
            x = np.pad(x, (0, n - len(x)))
        starts = range(0, len(x) - n + 1, n // 2)
        frames = np.stack([x[s:s + n] for s in starts])
        window = 0.5 - 0.5 * np.cos(2 * np.pi * np.arange(n) / n)
        power = np.abs(np.fft.rfft(frames * window, axis=1)) ** 2 / n
        mel = lambda hz: 2595.0 * np.log10(1.0 + hz / 700.0)  # noqa: E731
        edges_mel = np.linspace(mel(20.0), mel(min(8000.0, rate / 2)), 34)
        edges = 700.0 * (10 ** (edges_mel / 2595.0) - 1.0)
        freqs = np.arange(power.shape[1]) * rate / n
        bank = np.zeros((32, power.shape[1]))
        for b in range(32):
            lo, mid, hi = edges[b], edges[b + 1], edges[b + 2]
            up = (freqs - lo) / max(mid - lo, 1e-9)
            down = (hi - freqs) / max(hi - mid, 1e-9)
            bank[b] = np.clip(np.minimum(up, down), 0.0, None)
        logmel = np.log(power @ bank.T + 1e-10)
        mfcc = dct(logmel, type=2, norm="ortho", axis=1)[:, :13]
        rms = np.sqrt((frames ** 2).mean(axis=1))
        zcr = (np.diff(np.signbit(frames), axis=1)).mean(axis=1)
        total = power.sum(axis=1)
        centroid = np.where(total > 0, (power * freqs).sum(axis=1) / np.where(total > 0, total, 1) / 1000.0, 0.0)
        rows.append(np.concatenate([logmel.mean(0), logmel.std(0), mfcc.mean(0), mfcc.std(0),
                                    [rms.mean(), rms.std(), zcr.mean(), centroid.mean(), centroid.std(), len(x) / rate]]))
    return pd.DataFrame(rows, columns=[f"aud{j}" for j in range(len(rows[0]))] if rows else None)


def decoded(path):
    """An image's samples as the panel decodes them: grey (1 plane) or RGB
    (3), alpha composited over black (round(v * a / 255)), 16-bit samples
    scaled to 8 bits. The file is closed before returning."""
    from PIL import Image

    with Image.open(path) as img:
        img.load()
        mode = img.mode
        if mode.startswith("I") or mode == "F":
            grey = np.clip(np.round(np.asarray(img, dtype=float) / 257.0), 0, 255)
            return grey[..., None]
        if mode == "P":
            img = img.convert("RGBA")
        elif mode == "1":
            img = img.convert("L")
        elif mode in ("La", "PA"):
            img = img.convert("LA")
        elif mode not in ("L", "LA", "RGB", "RGBA"):
            img = img.convert("RGB")
        arr = np.asarray(img, dtype=float)
    if arr.ndim == 2:
        arr = arr[..., None]
    if arr.shape[2] in (2, 4):
        arr = np.floor(arr[..., :-1] * arr[..., -1:] / 255.0 + 0.5)
    return arr


def overlap(n, grid):
    """grid x n: how much of pixel i (covering [i*grid, (i+1)*grid)) lies in
    cell j (covering [j*n, (j+1)*n)), so any size maps to the grid."""
    i = np.arange(n)[None, :]
    j = np.arange(grid)[:, None]
    return np.clip(np.minimum((i + 1) * grid, (j + 1) * n) - np.maximum(i * grid, j * n), 0, None).astype(float)


def image_features(ids):
    """The panel's image features (sandmle-exec's ImageFeaturizer): each
    plane's means over an 8 x 8 grid split by area, its 8-bin histogram, a
    4 x 4 grid of 8-bin gradient-orientation histograms of the grey image
    (L2-normalised per cell), then each plane's mean and standard
    deviation, and the object features. Colour planes when any image has colour, else one grey
    plane."""
    images = [decoded(os.path.join(CONFIG["images"], f"{i}{CONFIG['image_suffix']}")) for i in ids]
    colour = any(a.shape[2] >= 3 for a in images)
    rows = []
    for a in images:
        h, w = a.shape[:2]
        if colour:
            rgb = np.repeat(a, 3, axis=2) if a.shape[2] == 1 else a
            planes = [rgb[..., k] for k in range(3)]
            grey = (299 * rgb[..., 0] + 587 * rgb[..., 1] + 114 * rgb[..., 2]) / 255000.0
        else:
            plane = a[..., 0] if a.shape[2] == 1 else np.floor(
                (299 * a[..., 0] + 587 * a[..., 1] + 114 * a[..., 2] + 500) / 1000.0)
            planes = [plane]
            grey = plane / 255.0
        wy, wx = overlap(h, 8), overlap(w, 8)
        parts = [(wy @ p @ wx.T / (h * w) / 255.0).ravel() for p in planes]
        parts += [np.bincount(np.clip(p.astype(int) // 32, 0, 7).ravel(), minlength=8) / p.size for p in planes]
        parts.append(gradient_histograms(grey))
        parts.append(np.array([p.mean() / 255.0 for p in planes]))
        parts.append(np.array([p.std() / 255.0 for p in planes]))
        parts.append(object_features(planes))
        rows.append(np.concatenate(parts))
    return pd.DataFrame(rows, columns=[f"img{j}" for j in range(len(rows[0]))] if rows else None)


def object_features(planes, threshold=24):
    """The panel's object features: 4-connected regions of pixels that
    differ from their plane's background (the lower middle of its sorted
    border samples) by more than `threshold` in some plane, counted when
    at least max(4, pixels / 1024) large: their count, mean and largest
    area (shares of the image), mean fill of their bounding box, and the
    foreground's share."""
    from scipy import ndimage

    h, w = planes[0].shape
    border = np.zeros((h, w), dtype=bool)
    border[0, :] = border[-1, :] = border[:, 0] = border[:, -1] = True
    foreground = np.zeros((h, w), dtype=bool)
    for p in planes:
        samples = np.sort(p[border])
        foreground |= np.abs(p - samples[(len(samples) - 1) // 2]) > threshold
    labels, count = ndimage.label(foreground)
    areas, fills = [], []
    for k, box in enumerate(ndimage.find_objects(labels), start=1):
        area = int((labels[box] == k).sum())
        if area >= max(4, (h * w) // 1024):
            areas.append(area)
            fills.append(area / ((box[0].stop - box[0].start) * (box[1].stop - box[1].start)))
    n = float(h * w)
    if not areas:
        return np.array([0.0, 0.0, 0.0, 0.0, foreground.sum() / n])
    return np.array([len(areas), np.mean(areas) / n, max(areas) / n, np.mean(fills), foreground.sum() / n])


def gradient_histograms(grey, grid=4, bins=8, eps=0.01):
    """A grid x grid of unsigned gradient-orientation histograms, each
    pixel's magnitude shared among the cells it overlaps."""
    padded = np.pad(grey, 1, mode="edge")
    gx = padded[1:-1, 2:] - padded[1:-1, :-2]
    gy = padded[2:, 1:-1] - padded[:-2, 1:-1]
    magnitude = np.hypot(gx, gy)
    b = np.minimum((np.mod(np.arctan2(gy, gx), np.pi) / (np.pi / bins)).astype(int), bins - 1)
    wy, wx = overlap(grey.shape[0], grid), overlap(grey.shape[1], grid)
    out = np.stack([wy @ np.where(b == k, magnitude, 0.0) @ wx.T for k in range(bins)], axis=2) / grid ** 2
    out /= np.sqrt((out ** 2).sum(axis=2, keepdims=True) + eps ** 2)
    return out.ravel()


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
        read = audio_features if CONFIG.get("modality") == "audio" else image_features
        # Rows sharing a file (a key column) read it once.
        names = pd.concat([train[key], test[key]]).astype(str).unique()
        table = read(names).set_index(pd.Index(names))
        parts_train.append(table.loc[train[key].astype(str)].set_index(train.index))
        parts_test.append(table.loc[test[key].astype(str)].set_index(test.index))
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
