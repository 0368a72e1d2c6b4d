"""A generator program as the ML Developer writes one: it reads the brief
(description.md), draws entities from three latent traits, derives every
column from them with noise, labels rows by a hidden rule over the traits
(an interaction), and declares the rule's own best prediction of the test
rows. Standard library only."""

import csv
import json
import math
import random

brief = json.load(open("description.md"))
rng = random.Random(brief["seed"])
n_train, n_test = brief["train_rows"], brief["test_rows"]
n = n_train + n_test
TRAITS = 3
latent = [[rng.gauss(0, 1) for _ in range(TRAITS)] for _ in range(n)]
WORDS = ["steady", "rising", "falling", "late", "early", "clean", "worn", "fresh", "heavy", "light", "quiet", "busy"]


def phi(z):
    return 0.5 * (1.0 + math.erf(z / math.sqrt(2.0)))


columns = {}
for f in brief["features"]:
    weights = [rng.gauss(0, 1) for _ in range(TRAITS)]
    norm = math.sqrt(sum(w * w for w in weights)) or 1.0
    values = []
    for row in latent:
        z = 0.8 * sum(w * x for w, x in zip(weights, row)) / norm + 0.6 * rng.gauss(0, 1)
        u = min(max(phi(z), 0.001), 0.999)
        if f["type"] == "numeric":
            lo, hi = f["min"], f["max"]
            hi = hi if hi > lo else lo + 1.0
            v = lo + (hi - lo) * u
            v = round(v) if f["integer"] else round(v, 4)
        elif f["type"] == "categorical":
            levels = max(2, min(int(f["levels"]), 12))
            v = "%s_%d" % (f["name"], int(u * levels))
        else:
            start = int(u * (len(WORDS) - 3))
            v = " ".join(WORDS[start + rng.randrange(3)] for _ in range(max(3, int(f["mean_words"]))))
        if rng.random() < f["missing_rate"]:
            v = ""
        values.append(v)
    columns[f["name"]] = values

noise = 0.4 + brief["difficulty"]
score = [row[0] + 0.7 * row[1] * row[2] for row in latent]
prediction_columns = brief["prediction_columns"]
oracle = {p: [""] * n for p in prediction_columns}
metric = brief["metric"]
for t in brief["targets"]:
    name = t["name"]
    if t["type"] == "value":
        lo, hi = t["min"], t["max"]
        hi = hi if hi > lo else lo + 1.0
        columns[name] = [lo + (hi - lo) * phi(s + noise * rng.gauss(0, 1)) for s in score]
        if t["integer"]:
            columns[name] = [float(round(v)) for v in columns[name]]
        spread = math.sqrt(1.0 + noise * noise)
        for i in range(n_train, n):
            oracle[name][i] = lo + (hi - lo) * phi(score[i] / spread)
        continue
    classes = t["classes"]
    if len(classes) == 2:
        noisy = [s + noise * rng.gauss(0, 1) for s in score]
        share = t["shares"][1] if len(t["shares"]) > 1 else 0.5
        cut = sorted(noisy)[int((1.0 - share) * (n - 1))]
        columns[name] = [classes[1] if x > cut else classes[0] for x in noisy]
        for i in range(n_train, n):
            p = phi((score[i] - cut) / noise)
            oracle[name][i] = p if metric in ("roc_auc", "log_loss") else classes[int(p > 0.5)]
        continue
    # More classes: each class its own score over the traits; the label is
    # the noisy argmax, the oracle its probabilities by simulation.
    k = len(classes)
    centre = [[rng.gauss(0, 1.5) for _ in range(TRAITS)] for _ in range(k)]
    def class_scores(row):
        return [-sum((a - b) ** 2 for a, b in zip(row, c)) / 2.0 for c in centre]
    labels = []
    for row in latent:
        s = class_scores(row)
        labels.append(classes[max(range(k), key=lambda c: s[c] + noise * rng.gauss(0, 1))])
    columns[name] = labels
    sim = random.Random(brief["seed"] + 1)
    for i in range(n_train, n):
        s = class_scores(latent[i])
        counts = [0.5] * k
        for _ in range(200):
            counts[max(range(k), key=lambda c: s[c] + noise * sim.gauss(0, 1))] += 1
        total = sum(counts)
        if all(c in prediction_columns for c in classes):
            for c, cnt in zip(classes, counts):
                oracle[c][i] = cnt / total
        else:
            oracle[name][i] = classes[max(range(k), key=lambda c: counts[c])]

with open("data.csv", "w", newline="") as out:
    w = csv.writer(out)
    names = list(columns) + ["split"] + ["oracle_" + p for p in prediction_columns]
    w.writerow(names)
    for i in range(n):
        row = [columns[c][i] for c in columns] + ["train" if i < n_train else "test"]
        w.writerow(row + [oracle[p][i] for p in prediction_columns])
