#!/usr/bin/env python3
"""Makes real MLE-bench `prepare.py` output, from small fabricated raw data, for 26 competitions.

For each competition below this script
  1. fabricates a small raw download in the competition's real Kaggle layout (the files,
     columns, archive members and file naming that the competition's `prepare.py` reads),
     deterministically (a numpy Generator seeded from the competition id) and with a learnable
     signal (the label depends on the features, an image's colour, a tone's pitch, ... plus noise);
  2. runs that competition's own `prepare(raw, public, private)` from MLE-bench, writing
     OUT/<id>/raw, OUT/<id>/prepared/public and OUT/<id>/prepared/private, then writes
     public/description.md as `mlebench prepare` does, and copies the competition's
     leaderboard.csv to OUT/<id>/leaderboard.csv;
  3. grades the prepared sample submission (the one config.yaml names) and the private answers
     (as a submission: cut to the sample submission's columns, written to
     OUT/<id>/answers_as_submission.csv) with MLE-bench's own grader, and writes
     OUT/<id>/mlebench_grades.json (scores, grader name and function, metric imports).
OUT's layout is MLE-bench's data dir (registry.set_data_dir(OUT) finds everything).

In the MLE-bench repository every *.csv, the leaderboards included, is stored in Git LFS; a
checkout without LFS content has pointer files there. Such a leaderboard is copied as it is and
the grades are then computed by the competition's Grader (the score grade_csv would report,
rounded to 5 places) without medal thresholds; with real leaderboards `grade_csv` is used.

Run by hand, with a Python >= 3.11 that has MLE-bench's grading dependencies (pandas 2.2,
numpy, scikit-learn 1.5, scipy, pillow, pyyaml, appdirs, tqdm, py7zr, diskcache, tenacity):

    python examples/scripts/mlebench_seeds.py --mlebench /tmp/mle-bench --out /tmp/mlebench-prepared [--only id1,id2]

--mlebench is an MLE-bench checkout (put first on sys.path). Exits 1 if any competition's
fabrication, prepare or grading fails, naming it. Checked against MLE-bench commit
783b15af77404fbaffe7255b0c4a934b46153389 (2026-02-26).
"""
import argparse
import csv
import hashlib
import importlib
import json
import os
import re
import shutil
import struct
import sys
import tempfile
import time
import traceback
import wave
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd
from PIL import Image

MLEBENCH_COMMIT = "783b15af77404fbaffe7255b0c4a934b46153389"
COMPETITIONS = {}  # id -> (split, family, fabricate(raw, rng))


def competition(cid, split, family):
    def register(fn):
        COMPETITIONS[cid] = (split, family, fn)
        return fn
    return register


# ----------------------------------------------------------------------------- shared helpers

def rng_for(cid):
    return np.random.default_rng(int.from_bytes(hashlib.sha256(cid.encode()).digest()[:8], "little"))


def hex_ids(rng, count, n, numeric_ok=True):
    """`count` distinct lowercase hex strings of length n (optionally never parseable as a number)."""
    out, seen = [], set()
    while len(out) < count:
        h = rng.bytes((n + 1) // 2).hex()[:n]
        if h in seen or (not numeric_ok and re.fullmatch(r"[0-9]*e?[0-9]*", h)):
            continue
        seen.add(h)
        out.append(h)
    return out


def distinct_ints(rng, lo, hi, n):
    """n distinct sorted integers in [lo, hi) without materialising the range."""
    return np.sort(rng.choice(np.unique(rng.integers(lo, hi, 2 * n)), n, replace=False))


def hue(t, radius=70.0):
    a = 2 * np.pi * t
    return 128 + radius * np.array([np.cos(a), np.cos(a - 2.094), np.cos(a + 2.094)])


def picture(rng, rgb, w, h, jitter=22.0, noise=28.0, spots=()):
    """An RGB image: a class colour (+ per-image jitter and pixel noise), a random ellipse
    carrying no signal, and small discs for each (colour, count) in spots."""
    arr = np.asarray(rgb, float) + rng.normal(0, jitter, 3) + rng.normal(0, noise, (h, w, 3))
    yy, xx = np.mgrid[:h, :w]
    cy, cx, ry, rx = rng.uniform(.3, .7) * h, rng.uniform(.3, .7) * w, rng.uniform(.15, .35) * h, rng.uniform(.15, .35) * w
    arr[((yy - cy) / ry) ** 2 + ((xx - cx) / rx) ** 2 < 1] += rng.uniform(-40, 40)
    for colour, count in spots:
        for _ in range(count):
            sy, sx, r = rng.uniform(0, h), rng.uniform(0, w), rng.uniform(2, 4)
            arr[(yy - sy) ** 2 + (xx - sx) ** 2 < r * r] = colour
    return Image.fromarray(np.clip(arr, 0, 255).astype(np.uint8))


def save(img, path, **kw):
    path.parent.mkdir(parents=True, exist_ok=True)
    img.save(path, **kw)


def tone(rng, freqs, sr, dur, snr=1.0):
    """Float samples in [-1, 1]: a sum of sines at freqs with an envelope, plus white noise."""
    t = np.arange(int(sr * dur)) / sr
    x = sum(np.sin(2 * np.pi * f * t + rng.uniform(0, 6.28)) for f in freqs) / max(len(freqs), 1)
    x = x * np.hanning(len(t)) ** 0.3 * 0.5 + rng.normal(0, 0.5 / snr * 0.5, len(t))
    return np.clip(x, -1, 1)


def write_wav(path, x, sr):
    path.parent.mkdir(parents=True, exist_ok=True)
    with wave.open(str(path), "wb") as w:
        w.setnchannels(1), w.setsampwidth(2), w.setframerate(sr)
        w.writeframes((x * 32767).astype("<i2").tobytes())


def write_aiff(path, x, sr):
    """16-bit mono AIFF (FORM/COMM/SSND, big-endian, 80-bit extended sample rate)."""
    data = (x * 32767).astype(">i2").tobytes()
    e = int(np.floor(np.log2(sr)))
    rate = struct.pack(">HQ", 16383 + e, int(sr) << (63 - e))
    comm = b"COMM" + struct.pack(">ihIh", 18, 1, len(x), 16) + rate
    ssnd = b"SSND" + struct.pack(">iII", 8 + len(data), 0, 0) + data
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"FORM" + struct.pack(">i", 4 + len(comm) + len(ssnd)) + b"AIFF" + comm + ssnd)


def zip_tree(zip_path, root, member):
    """Zip root/member (a file or a folder, recursively) with archive names relative to root."""
    src = root / member
    files = sorted(p for p in src.rglob("*") if p.is_file()) if src.is_dir() else [src]
    with zipfile.ZipFile(zip_path, "w", zipfile.ZIP_DEFLATED) as z:
        for p in files:
            z.write(p, arcname=p.relative_to(root).as_posix())


def sevenz_tree(path, root, member, arcname=None):
    """7z root/member (recursively) as arcname (default: member); LZMA2 at a fast preset."""
    import py7zr
    with py7zr.SevenZipFile(path, "w", filters=[{"id": py7zr.FILTER_LZMA2, "preset": 1}]) as z:
        z.writeall(root / member, arcname=arcname or member)


def logistic(x):
    return 1 / (1 + np.exp(-x))


def words(rng, vocab, n):
    return " ".join(rng.choice(vocab, n))


FILLER = ("the a of to and in is it that for on with as this was but be at by from or have an "
          "not are they you we one all there their what so up out if about who get which go me "
          "when make can like time just him know take people into year your good some could them "
          "see other than then now look only come its over think also back after use two how our "
          "work first well way even new want because any these give day most us").split()

# ----------------------------------------------------------------------------- tabular


@competition("spaceship-titanic", "dev", "plain tabular CSV; bool target; NaNs; compound string ids")
def spaceship_titanic(raw, rng):
    n = 1300
    groups = np.sort(rng.choice(np.arange(1, 1800), n))
    pid = [f"{g:04d}_{(groups[:i] == g).sum() + 1:02d}" for i, g in enumerate(groups)]
    home = rng.choice(["Earth", "Europa", "Mars"], n, p=[.54, .25, .21])
    cryo = rng.random(n) < .35
    side = rng.choice(["P", "S"], n)
    cabin = [f"{d}/{k}/{s}" for d, k, s in zip(rng.choice(list("ABCDEFGT"), n, p=[.03, .09, .09, .06, .1, .33, .29, .01]), rng.integers(0, 1900, n), side)]
    dest = rng.choice(["TRAPPIST-1e", "55 Cancri e", "PSO J318.5-22"], n, p=[.69, .21, .10])
    amen = ["RoomService", "FoodCourt", "ShoppingMall", "Spa", "VRDeck"]
    spend = np.where(cryo[:, None], 0.0, np.round(rng.exponential(350, (n, 5)) * (rng.random((n, 5)) < .6)))
    logit = -0.3 + 2.0 * cryo - 0.0012 * spend.sum(1) + 0.5 * (side == "S") + 0.6 * (home == "Europa")
    first = ["Ada", "Bo", "Cyra", "Dax", "Eli", "Fen", "Gia", "Hal", "Ira", "Jun", "Kai", "Lia"]
    last = ["Ambler", "Borow", "Cruz", "Dunning", "Eckle", "Fraser", "Glenn", "Hardy", "Ivers"]
    df = pd.DataFrame({"PassengerId": pid, "HomePlanet": home, "CryoSleep": cryo, "Cabin": cabin,
                       "Destination": dest, "Age": np.round(rng.gamma(4, 7, n)), "VIP": rng.random(n) < .03,
                       **{a: spend[:, i] for i, a in enumerate(amen)},
                       "Name": [f"{rng.choice(first)} {last[g % len(last)]}" for g in groups],
                       "Transported": logit + rng.logistic(0, 1, n) > 0})
    for col in df.columns[1:-1]:
        df[col] = df[col].astype(object).where(rng.random(n) > .02)
    df.to_csv(raw / "train.csv", index=False)


@competition("playground-series-s3e18", "dev", "tabular; multi-label (EC1..EC6 in train, only EC1/EC2 predicted)")
def playground_s3e18(raw, rng):
    feats = ["BertzCT", "Chi1", "Chi1n", "Chi1v", "Chi2n", "Chi2v", "Chi3v", "Chi4n", "EState_VSA1",
             "EState_VSA2", "ExactMolWt", "FpDensityMorgan1", "FpDensityMorgan2", "FpDensityMorgan3",
             "HallKierAlpha", "HeavyAtomMolWt", "Kappa3", "MaxAbsEStateIndex", "MinEStateIndex",
             "NumHeteroatoms", "PEOE_VSA10", "PEOE_VSA14", "PEOE_VSA6", "PEOE_VSA7", "PEOE_VSA8",
             "SMR_VSA10", "SMR_VSA5", "SlogP_VSA3", "VSA_EState9", "fr_COO", "fr_COO2"]
    n = 1200
    z = rng.normal(size=(n, len(feats)))
    df = pd.DataFrame({"id": np.arange(n)})
    for i, f in enumerate(feats):
        df[f] = np.round(np.abs(z[:, i]) * rng.uniform(1, 300) if i % 3 else z[:, i] * rng.uniform(1, 20), 6)
    df["fr_COO"] = (z[:, 29] > 1).astype(int)
    df["fr_COO2"] = df["fr_COO"]
    w = rng.normal(0, 1, (6, 5))
    for k in range(6):
        df[f"EC{k + 1}"] = (z[:, 0:15:3] @ w[k] + rng.logistic(0, 1, n) > 0.3).astype(int)
    df.to_csv(raw / "train.csv", index=False)


@competition("ventilator-pressure-prediction", "medium", "tabular time series (80 rows per breath); ids reset per split (collide); grader uses answers-only u_out")
def ventilator(raw, rng):
    rows, nid = [], 1
    breath_ids = np.sort(rng.choice(np.arange(1, 400), 150, replace=False))
    for b in breath_ids:
        R, C = rng.choice([5, 20, 50]), rng.choice([10, 20, 50])
        t = np.cumsum(np.r_[0, rng.uniform(0.031, 0.036, 79)])
        u_out = (t > 1.0).astype(int)
        u_in = np.where(u_out == 0, np.clip(rng.uniform(5, 30) * (1 - np.exp(-t * 8)) + rng.normal(0, 2, 80), 0, 100), 0)
        vol = np.cumsum(u_in * np.r_[0, np.diff(t)])
        p = 5 + R * u_in / 40 + 20 * vol / C + rng.normal(0, 0.7, 80)
        for i in range(80):
            rows.append((nid, b, R, C, round(t[i], 7), round(u_in[i], 6), u_out[i], round(p[i], 6)))
            nid += 1
    pd.DataFrame(rows, columns=["id", "breath_id", "R", "C", "time_step", "u_in", "u_out", "pressure"]).to_csv(raw / "train.csv", index=False)


@competition("predict-volcanic-eruptions-ingv-oe", "high", "one CSV file per item (10 sensor columns, NaN-only sensors); regression")
def volcanic(raw, rng):
    ids = rng.permutation(distinct_ints(rng, 10 ** 6, 2 * 10 ** 9, 1000))
    tte = rng.integers(6000, 49_000_000, 1000)
    for sid, y in zip(ids, tte):
        amp = 300 + 3000 * (1 - y / 5e7) * rng.uniform(0.7, 1.3)
        x = rng.normal(0, 1, (300, 10)).cumsum(0) * 0.3 + rng.normal(0, 1, (300, 10))
        df = pd.DataFrame(np.round(x * amp / 3), columns=[f"sensor_{k}" for k in range(1, 11)]).astype("Int64")
        for k in rng.choice(10, rng.integers(0, 3), replace=False):
            df.iloc[:, k] = pd.NA
        (raw / "train").mkdir(exist_ok=True)
        df.to_csv(raw / "train" / f"{sid}.csv", index=False)
    pd.DataFrame({"segment_id": ids, "time_to_eruption": tte}).to_csv(raw / "train.csv", index=False)


# ----------------------------------------------------------------------------- images


@competition("paddy-disease-classification", "dev", "JPEG; labels in CSV; nested train_images/<label>/; extra train-only columns; no public test.csv")
def paddy(raw, rng):
    labels = ["bacterial_leaf_blight", "bacterial_leaf_streak", "bacterial_panicle_blight", "blast",
              "brown_spot", "dead_heart", "downy_mildew", "hispa", "normal", "tungro"]
    varieties = ["ADT45", "IR20", "KarnatakaPonni", "Onthanel", "Ponni", "Surya", "Zonal", "AndraPonni", "AtchayaPonni", "RR"]
    n = 1300
    ids = rng.permutation(np.arange(100001, 100001 + n))
    y = rng.integers(0, 10, n)
    df = pd.DataFrame({"image_id": [f"{i}.jpg" for i in ids], "label": [labels[k] for k in y],
                       "variety": [varieties[k] if rng.random() < .4 else "ADT45" for k in y],
                       "age": np.clip(45 + 3 * y + rng.integers(-5, 20, n), 45, 82)})
    for row, k in zip(df.itertuples(), y):
        save(picture(rng, hue(k / 10), 48, 64), raw / "train_images" / row.label / row.image_id, quality=90)
    df.to_csv(raw / "train.csv", index=False)
    pd.DataFrame({"image_id": [f"{200001 + i}.jpg" for i in range(5)], "label": ""}).to_csv(raw / "sample_submission.csv", index=False)


@competition("plant-seedlings-classification", "dev", "PNG of varying sizes; label = folder name (with spaces); no CSV at all in raw")
def plant_seedlings(raw, rng):
    species = ["Black-grass", "Charlock", "Cleavers", "Common Chickweed", "Common wheat", "Fat Hen",
               "Loose Silky-bent", "Maize", "Scentless Mayweed", "Shepherds Purse", "Small-flowered Cranesbill", "Sugar beet"]
    for name in hex_ids(rng, 1000, 9):
        k = rng.integers(0, 12)
        s = int(rng.integers(40, 73))
        save(picture(rng, hue(k / 12), s, s), raw / "train" / species[k] / f"{name}.png")


@competition("invasive-species-monitoring", "dev", "JPEG in 7z folders; labels in a zipped CSV; integer ids; sample submission only zipped (public) + private copy")
def invasive(raw, rng):
    n = 1000
    y = (rng.random(n) < .63).astype(int)
    for i in range(n):
        spots = [((150, 110, 230), int(rng.poisson(4 if y[i] else 0.8)))]
        save(picture(rng, (70, 120, 60), 64, 48, spots=spots), raw / "train" / f"{i + 1}.jpg", quality=90)
    pd.DataFrame({"name": np.arange(1, n + 1), "invasive": y}).to_csv(raw / "train_labels.csv", index=False)
    sevenz_tree(raw / "train.7z", raw, "train")
    zip_tree(raw / "train_labels.csv.zip", raw, "train_labels.csv")
    shutil.rmtree(raw / "train"), (raw / "train_labels.csv").unlink()


@competition("petfinder-pawpularity-score", "medium", "JPEG + tabular metadata in CSV; regression in [1,100]")
def petfinder(raw, rng):
    cols = ["Subject Focus", "Eyes", "Face", "Near", "Action", "Accessory", "Group", "Collage", "Human", "Occlusion", "Info", "Blur"]
    n = 1200
    meta = (rng.random((n, 12)) < rng.uniform(.05, .8, 12)).astype(int)
    bright = rng.uniform(0, 1, n)
    score = np.clip(np.round(20 + 35 * bright + 8 * meta[:, 2] + 6 * meta[:, 3] - 8 * meta[:, 11] + rng.normal(0, 12, n)), 1, 100).astype(int)
    ids = hex_ids(rng, n, 32)
    for i, pid in enumerate(ids):
        save(picture(rng, np.full(3, 40 + 170 * bright[i]), 64, 64), raw / "train" / f"{pid}.jpg", quality=90)
    df = pd.DataFrame(meta, columns=cols)
    df.insert(0, "Id", ids)
    df["Pawpularity"] = score
    df.to_csv(raw / "train.csv", index=False)


@competition("plant-pathology-2021-fgvc8", "medium", "JPEG; multi-label as space-separated string in CSV")
def plant_pathology_2021(raw, rng):
    diseases = {"scab": (90, 60, 30), "frog_eye_leaf_spot": (240, 240, 200), "rust": (230, 120, 0), "powdery_mildew": (255, 255, 255)}
    names, labels = hex_ids(rng, 1000, 16), []
    for name in names:
        has = [d for d in diseases if rng.random() < .25]
        lab = "healthy" if not has else ("complex" if len(has) > 2 else " ".join(has))
        labels.append(lab)
        spots = [(diseases[d], int(rng.integers(3, 7)) if rng.random() < .85 else 0) for d in has]
        save(picture(rng, (60, 150, 60), 64, 48, spots=spots), raw / "train_images" / f"{name}.jpg", quality=90)
    pd.DataFrame({"image": [f"{n}.jpg" for n in names], "labels": labels}).to_csv(raw / "train.csv", index=False)


@competition("whale-categorization-playground", "medium", "JPEG; label column named 'Id' (id column 'Image'); MAP@5 with space-separated ranked predictions; new_whale")
def whale_categorization(raw, rng):
    whales = [f"w_{h}" for h in hex_ids(rng, 150, 7)]
    rows = []
    for k, w in enumerate(["new_whale"] + whales):
        count = 150 if k == 0 else int(rng.choice([1, 2, 3, 4, 6], p=[.3, .3, .2, .1, .1]))
        rows += [(w, k) for _ in range(count)]
    rows = [rows[i] for i in rng.permutation(len(rows))]
    names = hex_ids(rng, len(rows), 8)
    for name, (w, k) in zip(names, rows):
        colour = (128, 128, 128) if k == 0 else hue(k / 151, 90)
        save(picture(rng, colour, 64, 32, jitter=10, noise=20), raw / "train" / f"{name}.jpg", quality=90)
    pd.DataFrame({"Image": [f"{n}.jpg" for n in names], "Id": [w for w, _ in rows]}).to_csv(raw / "train.csv", index=False)


@competition("tgs-salt-identification-challenge", "medium", "zipped PNG images + masks; RLE (column-major) submission; depths.csv for train ids only")
def tgs_salt(raw, rng):
    base = raw / "competition_data"
    ids, extra = (lambda a: (a[:600], a[600:]))(hex_ids(rng, 650, 10, numeric_ok=False))
    z = rng.integers(50, 960, 600)
    rles = []
    yy, xx = np.mgrid[:101, :101]
    for i, sid in zip(range(600), ids):
        mask = np.zeros((101, 101), bool)
        if rng.random() < .6:
            level = rng.uniform(10, 90) + (z[i] - 500) / 20
            mask = yy > level + 8 * np.sin(xx / rng.uniform(8, 20))
        img = np.where(mask, 150, 90) + rng.normal(0, 35, (101, 101))
        save(Image.fromarray(np.clip(img, 0, 255).astype(np.uint8)).convert("RGB"), base / "train" / "images" / f"{sid}.png")
        save(Image.fromarray((mask * 65535).astype(np.uint16)), base / "train" / "masks" / f"{sid}.png")
        dots = np.flatnonzero(mask.T.flatten())
        runs = np.split(dots, np.flatnonzero(np.diff(dots) > 1) + 1) if len(dots) else []
        rles.append(" ".join(f"{r[0] + 1} {len(r)}" for r in runs))
    pd.DataFrame({"id": ids, "rle_mask": rles}).to_csv(base / "train.csv", index=False)
    pd.DataFrame({"id": ids + extra, "z": list(z) + list(rng.integers(50, 960, 50))}).to_csv(raw / "depths.csv", index=False)
    zip_tree(raw / "competition_data.zip", raw, "competition_data")
    shutil.rmtree(base)


@competition("vesuvius-challenge-ink-detection", "high", "TIFF (16-bit, 65-slice volumes) + PNG masks; per-pixel task with row-major RLE; a single test item 'a'")
def vesuvius(raw, rng):
    for frag, (w, h) in {"1": (80, 64), "2": (72, 56), "3": (96, 64)}.items():
        d = raw / "train" / frag
        yy, xx = np.mgrid[:h, :w]
        ink = np.zeros((h, w), bool)
        for _ in range(6):  # a few "letters": strokes
            cy, cx, ang = rng.uniform(8, h - 8), rng.uniform(8, w - 8), rng.uniform(0, np.pi)
            ink |= (np.abs((yy - cy) * np.cos(ang) - (xx - cx) * np.sin(ang)) < 1.8) & (np.hypot(yy - cy, xx - cx) < 9)
        mask = np.ones((h, w), bool)
        mask[:3, :] = False
        papyrus = 2000 * np.sin(xx / rng.uniform(4, 9)) * np.cos(yy / rng.uniform(5, 11))
        for s in range(65):
            vol = 20000 + papyrus + 3000 * ink * np.exp(-((s - 32) / 8) ** 2) + rng.normal(0, 8000, (h, w))
            save(Image.fromarray(np.clip(vol, 0, 65535).astype(np.uint16)), d / "surface_volume" / f"{s:02d}.tif")
        save(Image.fromarray((mask * 255).astype(np.uint8)), d / "mask.png")
        save(Image.fromarray((ink * 255).astype(np.uint8)), d / "inklabels.png")
        save(Image.fromarray(np.clip(120 + 60 * ink + rng.normal(0, 20, (h, w)), 0, 255).astype(np.uint8)), d / "ir.png")
        dots = np.flatnonzero(ink.flatten())
        runs = np.split(dots, np.flatnonzero(np.diff(dots) > 1) + 1)
        pd.DataFrame({"Id": [frag], "Predicted": [" ".join(f"{r[0] + 1} {len(r)}" for r in runs)]}).to_csv(d / "inklabels_rle.csv", index=False)


@competition("dogs-vs-cats-redux-kernels-edition", "low", "label in file name (cat.N.jpg / dog.N.jpg); zipped image folders; integer test ids")
def dogs_vs_cats(raw, rng):
    for i in range(1100):
        dog = rng.random() < .5
        kind = "dog" if dog else "cat"
        save(picture(rng, (150, 110, 70) if dog else (110, 110, 150), 48, 48, jitter=30), raw / "train" / f"{kind}.{i}.jpg", quality=90)
    for i in range(1, 31):
        save(picture(rng, (130, 110, 110), 48, 48), raw / "test" / f"{i}.jpg", quality=90)
    zip_tree(raw / "train.zip", raw, "train"), zip_tree(raw / "test.zip", raw, "test")
    shutil.rmtree(raw / "train"), shutil.rmtree(raw / "test")


@competition("histopathologic-cancer-detection", "low", "TIFF images (RGB); labels in train_labels.csv; 40-hex ids; test ids only in the sample submission")
def histopathologic(raw, rng):
    ids = hex_ids(rng, 600, 40, numeric_ok=False)
    y = rng.integers(0, 2, len(ids))
    for name, k in zip(ids, y):
        # Tumour tissue is darker purple, with more dark nuclei.
        save(picture(rng, (150, 90, 160) if k else (200, 150, 190), 32, 32, jitter=25,
                     spots=[((60, 20, 90), 6 if k else 2)]), raw / "train" / f"{name}.tif")
    for name in hex_ids(rng, 100, 40, numeric_ok=False):
        save(picture(rng, (175, 120, 175), 32, 32), raw / "test" / f"{name}.tif")
    pd.DataFrame({"id": ids, "label": y}).to_csv(raw / "train_labels.csv", index=False)


@competition("denoising-dirty-documents", "low", "image-to-image (PNG pairs in zips); per-pixel submission rows '<img>_<row>_<col>'; sampleSubmission.csv")
def denoising(raw, rng):
    nums = np.sort(rng.choice(np.arange(1, 220), 60, replace=False))
    for num in nums:
        h = int(rng.choice([32, 48]))
        clean = np.ones((h, 64))
        for line in range(4, h - 6, 9):  # text lines: dark glyph blocks
            glyphs = rng.random(64) < .55
            clean[line:line + 5, glyphs] = rng.uniform(0.0, 0.25)
        stain = 0.25 * np.exp(-((np.mgrid[:h, :64][1] - rng.uniform(0, 64)) / 20) ** 2)
        dirty = np.clip(clean * 0.85 - stain + rng.normal(0, 0.08, (h, 64)) + 0.1, 0, 1)
        save(Image.fromarray((clean * 255).astype(np.uint8)), raw / "train_cleaned" / f"{num}.png")
        save(Image.fromarray((dirty * 255).astype(np.uint8)), raw / "train" / f"{num}.png")
    zip_tree(raw / "train.zip", raw, "train"), zip_tree(raw / "train_cleaned.zip", raw, "train_cleaned")
    shutil.rmtree(raw / "train"), shutil.rmtree(raw / "train_cleaned")


# ----------------------------------------------------------------------------- audio


@competition("tensorflow-speech-recognition-challenge", "medium", "WAV (16 kHz) in a 7z; label = folder name; file names collide across folders; test renamed clip_*.wav; no public test.csv")
def speech(raw, rng):
    words_ = ["yes", "no", "up", "down", "left", "right", "on", "off", "stop", "go", "bed", "cat", "dog", "happy"]
    speakers = hex_ids(rng, 90, 8)
    audio, lists = raw / "train" / "audio", []
    for k, word in enumerate(words_):
        f0 = 300 + 150 * k
        for spk in rng.choice(speakers, 72, replace=False):
            name = f"{spk}_nohash_{int(rng.integers(0, 3))}.wav"
            write_wav(audio / word / name, tone(rng, [f0 * rng.uniform(.93, 1.07), 2.3 * f0], 16000, 0.5, snr=1.5), 16000)
            lists.append(f"{word}/{name}")
    for name in ["doing_the_dishes", "dude_miaowing", "exercise_bike", "pink_noise", "running_tap", "white_noise"]:
        write_wav(audio / "_background_noise_" / f"{name}.wav", np.clip(rng.normal(0, .2, 32000), -1, 1), 16000)
    lists = sorted(set(lists))
    (raw / "train" / "validation_list.txt").write_text("\n".join(lists[::10]) + "\n")
    (raw / "train" / "testing_list.txt").write_text("\n".join(lists[5::10]) + "\n")
    sevenz_tree(raw / "train.7z", raw, "train")
    shutil.rmtree(raw / "train")


@competition("the-icml-2013-whale-challenge-right-whale-redux", "low", "AIFF (2 kHz) in a zip; label = file-name suffix _0/_1; split by date in file name; sampleSubmission.csv")
def icml_whale(raw, rng):
    for d, date in enumerate(["20090328", "20090329", "20090330", "20090331"]):
        for j in range(130):
            idx = d * 130 + j
            up = rng.random() < .3  # a right-whale up-call: a rising chirp, 2 s at 2 kHz
            sweep = rng.uniform(80, 200) + 80 * np.linspace(0, 1, 4000)
            ship = rng.random() < .4  # ship noise: a steady tone in the same band
            x = (rng.uniform(.04, .3) * up * np.sin(2 * np.pi * np.cumsum(sweep) / 2000) * np.hanning(4000)
                 + ship * rng.uniform(.02, .2) * np.sin(2 * np.pi * rng.uniform(90, 280) * np.arange(4000) / 2000)
                 + rng.normal(0, .3, 4000))
            secs = j * 27 + int(rng.integers(0, 20))
            hhmmss = f"{secs // 3600:02d}{secs // 60 % 60:02d}{secs % 60:02d}"
            name = f"{date}_{hhmmss}_{secs % 900}s{int(rng.integers(0, 10))}ms_TRAIN{idx}_{int(up)}.aif"
            write_aiff(raw / "train2" / name, np.clip(x, -1, 1), 2000)
    zip_tree(raw / "train2.zip", raw, "train2")
    shutil.rmtree(raw / "train2")


@competition("mlsp-2013-birds", "low", "WAV (16 kHz) named through rec_id2filename.txt; multi-label flattened to one row per (recording, species), Id = rec_id*100+species; labels in a ragged txt; global ROC AUC")
def mlsp_birds(raw, rng):
    root = raw / "mlsp_contest_dataset"
    ess, sup = root / "essential_data", root / "supplemental_data"
    n_train, n_hidden, sr = 320, 40, 8000  # fold 0 (prepare.py takes 20 % of it as test: 64) and the hidden fold 1
    # Each species sings at its own pitch: a recording holds 0-3 species' calls over wind noise.
    pitch = [500 + 160 * s for s in range(19)]
    species_rows = ["class_id,code,species"] + [f"{s},SP{s:02d},Species {s}" for s in range(19)]
    folds, names, labels = ["rec_id,fold"], ["rec_id,filename"], ["rec_id,[labels]"]
    for rec in range(n_train + n_hidden):
        fold = 0 if rec < n_train else 1
        name = f"PC{1 + rec % 13}_2009{6 + rec % 3:02d}{1 + rec % 28:02d}_{rec:06d}_{int(rng.integers(0, 9999)):04d}"
        present = sorted(rng.choice(19, int(rng.choice([0, 1, 1, 2, 2, 3])), replace=False).tolist())
        t = np.arange(int(sr * 1.5)) / sr
        x = rng.normal(0, 0.25, len(t))
        for s in present:
            start = rng.uniform(0, 1.0)
            call = (t >= start) & (t < start + 0.4)
            x += call * rng.uniform(.2, .5) * np.sin(2 * np.pi * pitch[s] * rng.uniform(.97, 1.03) * t)
        write_wav(ess / "src_wavs" / f"{name}.wav", np.clip(x, -1, 1), sr)
        folds.append(f"{rec},{fold}")
        names.append(f"{rec},{name}")
        labels.append(f"{rec},?" if fold else (f"{rec}," + ",".join(map(str, present)) if present else f"{rec}"))
        for d in ["filtered_spectrograms", "spectrograms", "supervised_segmentation"] + (["segmentation_examples"] if rec % 5 == 0 else []):
            save(Image.fromarray(rng.integers(0, 255, (8, 16), dtype=np.uint8)), sup / d / f"{name}.bmp")
    for f, rows in [("CVfolds_2.txt", folds), ("rec_id2filename.txt", names), ("rec_labels_test_hidden.txt", labels), ("species_list.txt", species_rows)]:
        (ess / f).write_text("\n".join(rows) + "\n")
    for f in ["segment_clusters.bmp", "segment_mosaic.bmp"]:
        save(Image.fromarray(rng.integers(0, 255, (16, 16), dtype=np.uint8)), sup / f)
    for f, k in [("histogram_of_segments.txt", 100), ("segment_features.txt", 38), ("segment_rectangles.txt", 4)]:
        rows = ["rec_id,[histogram of segment features]"] + [f"{r}," + ",".join(f"{v:.4f}" for v in rng.random(k)) for r in range(n_train + n_hidden)]
        (sup / f).write_text("\n".join(rows) + "\n")
    zip_tree(raw / "mlsp_contest_dataset.zip", raw, "mlsp_contest_dataset")
    shutil.rmtree(root)


# ----------------------------------------------------------------------------- text


@competition("movie-review-sentiment-analysis-kernels-only", "dev", "text classification (5 classes); zipped TSV; phrases nested in sentences; sampleSubmission.csv")
def movie_review(raw, rng):
    pos = "good great brilliant moving funny charming superb delightful".split()
    neg = "bad dull awful boring tedious messy weak clumsy".split()
    rows, seen, pid = [], set(), 1
    for sid in range(1, 260):
        toks = list(rng.choice(FILLER, 9))
        for j in rng.choice(9, 3, replace=False):
            toks[j] = rng.choice(pos if rng.random() < .5 else neg)
        spans = [(0, 9)] + [(a, a + L) for L in (1, 2, 4) for a in rng.choice(9 - L + 1, 2, replace=False)]
        for a, b in spans:
            phrase = " ".join(toks[a:b])
            if phrase in seen:
                continue
            seen.add(phrase)
            pol = sum((t in pos) - (t in neg) for t in toks[a:b]) + rng.normal(0, .6)
            rows.append((pid, sid, phrase, int(np.clip(np.round(2 + pol), 0, 4))))
            pid += 1
    pd.DataFrame(rows, columns=["PhraseId", "SentenceId", "Phrase", "Sentiment"]).to_csv(raw / "train.tsv", sep="\t", index=False)
    zip_tree(raw / "train.tsv.zip", raw, "train.tsv")
    (raw / "train.tsv").unlink()


@competition("jigsaw-unintended-bias-in-toxicity-classification", "medium", "text; separate private test file (no split); 43 train-only columns; grader needs answers-only identity columns")
def jigsaw_unintended(raw, rng):
    idents = ["male", "female", "transgender", "other_gender", "heterosexual", "homosexual_gay_or_lesbian", "bisexual",
              "other_sexual_orientation", "christian", "jewish", "muslim", "hindu", "buddhist", "atheist", "other_religion",
              "black", "white", "asian", "latino", "other_race_or_ethnicity", "physical_disability",
              "intellectual_or_learning_disability", "psychiatric_or_mental_illness", "other_disability"]
    subtypes = ["severe_toxicity", "obscene", "identity_attack", "insult", "threat", "sexual_explicit"]
    civil = ["created_date", "publication_id", "parent_id", "article_id", "rating", "funny", "wow", "sad", "likes", "disagree"]
    toxic_words = "idiot stupid pathetic moron garbage hate loser disgusting".split()

    def make(n, id0):
        df = pd.DataFrame({"id": id0 + np.sort(rng.choice(n * 3, n, replace=False))})
        tox = rng.random(n) < .2
        annotated = rng.random(n) < .6
        texts, ident_vals = [], {c: np.full(n, np.nan) for c in idents}
        for i in range(n):
            toks = list(rng.choice(FILLER, 14))
            if rng.random() < (.85 if tox[i] else .05):  # toxic words mark toxicity, with noise
                toks[:2] = rng.choice(toxic_words, 2)
            for c in idents:
                if annotated[i]:
                    ident_vals[c][i] = 0.0
                if rng.random() < (.12 if c in ("male", "female", "christian", "jewish", "muslim", "black", "white", "homosexual_gay_or_lesbian", "psychiatric_or_mental_illness") else .02):
                    toks.append(c.split("_")[0])
                    if annotated[i]:
                        ident_vals[c][i] = round(rng.uniform(.5, 1), 6)
            texts.append(" ".join(rng.permutation(toks)))
        df["comment_text"] = texts
        df["toxicity"] = np.round(np.where(tox, rng.uniform(.5, 1, n), rng.uniform(0, .45, n)), 6)
        for c in subtypes:
            df[c] = np.round(df["toxicity"] * rng.uniform(0, .6, n), 6)
        for c in idents:
            df[c] = ident_vals[c]
        df["created_date"] = [f"2016-{m:02d}-{d:02d} 10:{mi:02d}:41.987077+00" for m, d, mi in zip(rng.integers(1, 13, n), rng.integers(1, 29, n), rng.integers(0, 60, n))]
        df["publication_id"] = rng.choice([2, 6, 13, 21, 54], n)
        df["parent_id"] = np.where(rng.random(n) < .5, rng.integers(10 ** 5, 10 ** 6, n).astype(float), np.nan)
        df["article_id"] = rng.integers(2006, 399541, n)
        df["rating"] = rng.choice(["approved", "rejected"], n, p=[.9, .1])
        for c in ["funny", "wow", "sad", "likes", "disagree"]:
            df[c] = rng.poisson(.5, n)
        df["identity_annotator_count"] = np.where(annotated, 4, 0)
        df["toxicity_annotator_count"] = rng.integers(4, 10, n)
        return df

    train = make(1500, 239575).rename(columns={"toxicity": "target"})
    order = ["id", "target", "comment_text"] + subtypes[:5] + sorted(idents) + civil + ["sexual_explicit", "identity_annotator_count", "toxicity_annotator_count"]
    train[order].to_csv(raw / "train.csv", index=False)
    test = make(1000, 7000000)
    test[["id", "comment_text"] + civil + ["toxicity"] + subtypes + idents + ["identity_annotator_count", "toxicity_annotator_count"]].to_csv(raw / "test_private_expanded.csv", index=False)


@competition("google-quest-challenge", "medium", "text; 30 continuous target columns (multi-target); extra metadata columns")
def google_quest(raw, rng):
    CLASSES = importlib.import_module("mlebench.competitions.google-quest-challenge.classes").CLASSES
    n = 1100
    cats = ["TECHNOLOGY", "STACKOVERFLOW", "CULTURE", "SCIENCE", "LIFE_ARTS"]
    topics = [f"topic{k}" for k in range(6)]
    latent = rng.normal(size=(n, 6))
    w = rng.normal(0, 1, (30, 6))
    df = pd.DataFrame({"qa_id": np.sort(rng.choice(np.arange(10000), n, replace=False))})
    marks = lambda i: " ".join(f"{t}" for k, t in enumerate(topics) for _ in range(max(0, int(round(latent[i, k] + 1)))))
    df["question_title"] = [f"How to {words(rng, FILLER, 5)} {marks(i)}" for i in range(n)]
    df["question_body"] = [f"{words(rng, FILLER, 25)} {marks(i)}" for i in range(n)]
    df["question_user_name"] = [f"user{u}" for u in rng.integers(0, 900, n)]
    df["question_user_page"] = [f"https://stackexchange.com/users/{u}" for u in rng.integers(0, 10 ** 6, n)]
    df["answer"] = [f"{words(rng, FILLER, 30)} {marks(i)}" for i in range(n)]
    df["answer_user_name"] = [f"user{u}" for u in rng.integers(0, 900, n)]
    df["answer_user_page"] = [f"https://stackexchange.com/users/{u}" for u in rng.integers(0, 10 ** 6, n)]
    df["category"] = rng.choice(cats, n)
    df["host"] = [f"{c.lower()}.stackexchange.com" for c in df["category"]]
    df["url"] = [f"http://{h}/questions/{q}" for h, q in zip(df["host"], df["qa_id"])]
    df = df[["qa_id", "question_title", "question_body", "question_user_name", "question_user_page", "answer",
             "answer_user_name", "answer_user_page", "url", "category", "host"]]
    for k, c in enumerate(CLASSES):
        v = logistic(latent @ w[k] + rng.normal(0, 1, n) - (3 if c == "question_type_spelling" else 0))
        df[c] = np.round(np.round(v * 3) / 3, 6)
    df.to_csv(raw / "train.csv", index=False)


@competition("lmsys-chatbot-arena", "medium", "text pairs with JSON-encoded list strings; 3 one-hot target columns -> probabilities; train-only model_a/model_b")
def lmsys(raw, rng):
    models = ["gpt-4-0613", "claude-2.1", "llama-2-70b-chat", "mistral-medium", "vicuna-13b", "gemini-pro"]
    n, rows = 1200, []
    for rid in distinct_ints(rng, 30192, 4294947231, n):
        la, lb = rng.integers(3, 40, 2)
        d = (la - lb) / 10 + rng.normal(0, 1)
        win = 2 if abs(d) < .5 else (0 if d > 0 else 1)
        resp = lambda L: json.dumps([words(rng, FILLER, int(L))])
        ma, mb = rng.choice(models, 2, replace=False)
        rows.append((rid, ma, mb, json.dumps([f"{words(rng, FILLER, 8)}?"]), resp(la), resp(lb), int(win == 0), int(win == 1), int(win == 2)))
    pd.DataFrame(rows, columns=["id", "model_a", "model_b", "prompt", "response_a", "response_b", "winner_model_a",
                                "winner_model_b", "winner_tie"]).to_csv(raw / "train.csv", index=False)


NUMS = "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen".split()
TENS = "_ _ twenty thirty forty fifty sixty seventy eighty ninety".split()


def say(n):
    if n < 20:
        return NUMS[n]
    if n < 100:
        return TENS[n // 10] + ("" if n % 10 == 0 else " " + NUMS[n % 10])
    return NUMS[n // 100] + " hundred" + ("" if n % 100 == 0 else " " + say(n % 100))


@competition("text-normalization-challenge-english-language", "low", "per-token rows (sentence_id, token_id) -> id '<s>_<t>'; zipped CSVs; ids reset per split (collide); QUOTE_NONNUMERIC")
def text_normalization(raw, rng):
    rows = []
    for sid in range(420):
        for tid in range(int(rng.integers(5, 11))):
            r = rng.random()
            if r < .12:
                v = int(rng.integers(0, 1000))
                rows.append((sid, tid, "CARDINAL", str(v), say(v)))
            elif r < .18:
                s = "".join(rng.choice(list("ABCDEFGHIKLMPRSTUVW"), int(rng.integers(2, 5))))
                rows.append((sid, tid, "LETTERS", s, " ".join(s.lower())))
            elif r < .28:
                p = str(rng.choice(list(".,;:!?")))
                rows.append((sid, tid, "PUNCT", p, p))
            else:
                w = str(rng.choice(FILLER))
                rows.append((sid, tid, "PLAIN", w, w))
    q = {"index": False, "quoting": csv.QUOTE_NONNUMERIC}
    pd.DataFrame(rows, columns=["sentence_id", "token_id", "class", "before", "after"]).to_csv(raw / "en_train.csv", **q)
    test = pd.DataFrame([(s, t, str(rng.choice(FILLER))) for s in range(40) for t in range(6)], columns=["sentence_id", "token_id", "before"])
    test.to_csv(raw / "en_test_2.csv", **q)
    pd.DataFrame({"id": test.sentence_id.astype(str) + "_" + test.token_id.astype(str), "after": test.before}).to_csv(raw / "en_sample_submission_2.csv", **q)
    for name in ["en_train.csv", "en_test_2.csv", "en_sample_submission_2.csv"]:
        zip_tree(raw / f"{name}.zip", raw, name)
        (raw / name).unlink()


# ----------------------------------------------------------------------------- arrays / JSON


@competition("ml2021spring-hw2", "dev", "NumPy .npy arrays (no ids; labels as strings); per-frame classification; Id = row index; sampleSubmission.csv")
def ml2021_hw2(raw, rng):
    d = raw / "timit_11" / "timit_11"
    d.mkdir(parents=True)
    centroids = rng.normal(0, 0.3, (39, 39))

    def frames(n):  # a stream of phoneme segments; row i = the 11 frames (x 39 MFCC-like) around frame i
        lab = np.repeat(rng.integers(0, 39, n), rng.integers(4, 12, n))[:n + 10]
        f = centroids[lab] + rng.normal(0, 1.0, (len(lab), 39))
        window = np.arange(5, n + 5)[:, None] + np.arange(-5, 6)
        return f[window].reshape(n, 429).astype(np.float32), lab[5:n + 5]

    x, y = frames(2000)
    np.save(d / "train_11.npy", x)
    np.save(d / "train_label_11.npy", y.astype("<U2"))  # labels are strings, as in the real files
    np.save(d / "test_11.npy", frames(730)[0])


@competition("statoil-iceberg-classifier-challenge", "medium", "JSON array records (75x75 bands as flat lists, inc_angle 'na') in 7z; sample submission only as .csv.7z in public")
def statoil(raw, rng):
    def record(iceberg, labelled):
        yy, xx = np.mgrid[:75, :75]
        spread = rng.uniform(2.0, 3.6) if iceberg else rng.uniform(1.2, 2.6)
        blob = np.exp(-((yy - 37 + rng.normal(0, 4)) ** 2 + (xx - 37 + rng.normal(0, 4)) ** 2) / (2 * spread ** 2))
        amp = rng.uniform(5, 18)
        b1 = -25 + amp * blob + rng.normal(0, 2.5, (75, 75))
        b2 = -27 + amp * (rng.uniform(.3, .7) if iceberg else rng.uniform(.6, 1.0)) * blob + rng.normal(0, 2.5, (75, 75))
        rec = {"id": rng.bytes(4).hex(), "band_1": np.round(b1, 3).ravel().tolist(), "band_2": np.round(b2, 3).ravel().tolist(),
               "inc_angle": "na" if rng.random() < .08 else round(float(rng.uniform(30, 46)), 4)}
        if labelled:
            rec["is_iceberg"] = int(iceberg)
        return rec

    out = raw / "data" / "processed"
    out.mkdir(parents=True)
    (out / "train.json").write_text(json.dumps([record(rng.random() < .47, True) for _ in range(500)]))
    (out / "test.json").write_text(json.dumps([record(rng.random() < .5, False) for _ in range(20)]))
    for name in ["train.json", "test.json"]:
        sevenz_tree(raw / f"{name}.7z", out, name, arcname=f"data/processed/{name}")
    shutil.rmtree(raw / "data")


@competition("stanford-covid-vaccine", "high", "JSON-lines records with per-position arrays; submission flattened to id_seqpos rows; 'index' reset per split (collides); train-only error columns")
def stanford_covid(raw, rng):
    targets = ["reactivity", "deg_Mg_pH10", "deg_pH10", "deg_Mg_50C", "deg_50C"]
    errors = ["reactivity_error", "deg_error_Mg_pH10", "deg_error_pH10", "deg_error_Mg_50C", "deg_error_50C"]

    def molecule(i, labelled):
        seq = "GGAAA" + "".join(rng.choice(list("ACGU"), 102))
        s = ["."] * 107
        for start in range(5, 95, 22):
            L, loop = int(rng.integers(4, 8)), int(rng.integers(3, 7))
            if start + 2 * L + loop < 107:
                s[start:start + L] = "(" * L
                s[start + L + loop:start + 2 * L + loop] = ")" * L
        struct_ = "".join(s)
        loops = "".join("S" if c in "()" else ("H" if 0 < j < 106 and "(" in struct_[:j] and ")" in struct_[j:] else "E") for j, c in enumerate(struct_))
        rec = {"index": i, "id": f"id_{rng.bytes(5).hex()[:9]}", "sequence": seq, "structure": struct_, "predicted_loop_type": loops}
        if not labelled:
            return {**rec, "seq_length": 107, "seq_scored": 68}
        sn = float(rng.uniform(0.2, 8))
        rec.update({"signal_to_noise": round(sn, 3), "SN_filter": int(sn > 1), "seq_length": 107, "seq_scored": 68})
        rec.update({e: np.round(rng.uniform(.05, .3, 68), 4).tolist() for e in errors})
        base = 0.2 + 0.6 * np.array([c == "." for c in struct_[:68]]) + 0.2 * np.array([b in "AG" for b in seq[:68]])
        rec.update({t: np.round(base * rng.uniform(.7, 1.4) + rng.normal(0, .25, 68), 4).tolist() for t in targets})
        return rec

    pd.DataFrame([molecule(i, True) for i in range(400)]).to_json(raw / "train.json", orient="records", lines=True)
    test = pd.DataFrame([molecule(i, False) for i in range(20)])
    test.to_json(raw / "test.json", orient="records", lines=True)
    sub = pd.DataFrame({"id_seqpos": [f"{m}_{j}" for m in test["id"] for j in range(107)]})
    for t in targets:
        sub[t] = 0.0
    sub.to_csv(raw / "sample_submission.csv", index=False)


# ----------------------------------------------------------------------------- running + grading

ANSWER_RENAMES = {"jigsaw-unintended-bias-in-toxicity-classification": {"toxicity": "prediction"}}


def grade(cid, comp, base, reg_grade_csv):
    from mlebench.utils import read_csv
    sample = read_csv(comp.sample_submission)
    answers = read_csv(comp.answers)
    as_sub = answers.rename(columns=ANSWER_RENAMES.get(cid, {}))[list(sample.columns)]
    as_sub_path = base / "answers_as_submission.csv"
    as_sub.to_csv(as_sub_path, index=False)
    lb_is_lfs = comp.leaderboard.read_bytes()[:40].startswith(b"version https://git-lfs")
    reports = {}
    for key, path in [("sample_submission", comp.sample_submission), ("answers", as_sub_path)]:
        if lb_is_lfs:
            score = comp.grader(read_csv(path), read_csv(comp.answers))
            reports[key] = {"score": None if score is None else float(score), "valid_submission": score is not None}
        else:
            reports[key] = reg_grade_csv(path, comp).to_dict()
        reports[key]["submission_path"] = str(path.relative_to(base.parent))
    grade_py = (Path(comp.grader.grade_fn.__code__.co_filename)).read_text()
    return {
        "competition_id": cid, "split": COMPETITIONS[cid][0], "family": COMPETITIONS[cid][1],
        "mlebench_commit": MLEBENCH_COMMIT,
        "grader": {"name": comp.grader.name, "grade_fn": f"{comp.grader.grade_fn.__module__}:{comp.grader.grade_fn.__name__}",
                   "metric_imports": sorted(set(re.findall(r"^from (sklearn\.\S+|scipy\.\S+|mlebench\.metrics) import (.+)$", grade_py, re.M)))},
        "answers_path": str(comp.answers.relative_to(base.parent)),
        "sample_submission_path": str(comp.sample_submission.relative_to(base.parent)),
        "leaderboard_is_lfs_pointer": lb_is_lfs, **reports,
    }


def run(cid, out, reg, grade_csv):
    split, family, fabricate = COMPETITIONS[cid]
    comp = reg.get_competition(cid)
    base = out / cid
    if base.exists():
        shutil.rmtree(base)
    for d in (comp.raw_dir, comp.public_dir, comp.private_dir):
        d.mkdir(parents=True)
    fabricate(comp.raw_dir, rng_for(cid))
    comp.prepare_fn(raw=comp.raw_dir, public=comp.public_dir, private=comp.private_dir)
    (comp.public_dir / "description.md").write_text(comp.description)  # as `mlebench prepare` does
    shutil.copy(comp.leaderboard, base / "leaderboard.csv")
    grades = grade(cid, comp, base, grade_csv)
    (base / "mlebench_grades.json").write_text(json.dumps(grades, indent=2) + "\n")
    return grades


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--mlebench", type=Path, required=True, help="an MLE-bench checkout")
    p.add_argument("--out", type=Path, required=True, help="MLE-bench data dir to write")
    p.add_argument("--only", default="", help="comma-separated competition ids")
    a = p.parse_args()
    sys.path.insert(0, str(a.mlebench.resolve()))
    out = a.out.resolve()
    out.mkdir(parents=True, exist_ok=True)
    scratch = tempfile.mkdtemp(prefix="mlebench-seeds-")
    os.chdir(scratch)  # mlebench.data opens a diskcache named "cache" in the working directory
    from mlebench.grade import grade_csv
    from mlebench.registry import registry
    reg = registry.set_data_dir(out)
    ids = [c for c in a.only.split(",") if c] or list(COMPETITIONS)
    unknown = [c for c in ids if c not in COMPETITIONS]
    if unknown:
        sys.exit(f"unknown competition(s): {', '.join(unknown)}")
    failed = []
    for cid in ids:
        try:
            t0 = time.time()
            g = run(cid, out, reg, grade_csv)
            print(f"ok   {cid:55s} sample={g['sample_submission']['score']} answers={g['answers']['score']} ({time.time() - t0:.0f}s)", flush=True)
        except Exception:
            traceback.print_exc()
            print(f"FAIL {cid}", flush=True)
            failed.append(cid)
    shutil.rmtree(scratch, ignore_errors=True)
    if failed:
        print(f"failed: {', '.join(failed)}", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
