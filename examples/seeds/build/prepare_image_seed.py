#!/usr/bin/env python3
"""Stages the `digits_png` seed: the bundled `digits` seed's images as PNG files.

Reads the committed `examples/seeds/digits` environment (scikit-learn's
`load_digits`, see its SOURCE.md) and writes, in MLE-bench's prepared layout
of an image competition:

  OUT/digits_png/prepared/public/train/<id>.png   one 8x8 grey PNG per training row
  OUT/digits_png/prepared/public/test/<id>.png    one per test row
  OUT/digits_png/prepared/public/{train,test,sample_submission}.csv, description.md
  OUT/digits_png/prepared/private/answers.csv
  OUT/digits_png/task.json, SOURCE.md

The split, the ids and the labels are the `digits` seed's. A pixel value
v in 0..16 becomes round(v * 255 / 16). PNGs are written with the standard
library alone: 8-bit grey, filter type 0 on every row, one IDAT of stored
(uncompressed) deflate blocks, no ancillary chunk, so every file has the
same size and no metadata. Then build the environment with

  sandmle import --competition OUT/digits_png --task OUT/digits_png/task.json \\
      --images train,test --out examples/seeds/digits_png
  cp OUT/digits_png/SOURCE.md examples/seeds/digits_png/
  sandmle panel --env examples/seeds/digits_png --write

(examples/seeds/build/build_image_seed.sh does all three).
"""
import csv, json, os, struct, sys, zlib

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
SRC = os.path.join(ROOT, "examples", "seeds", "digits", "prepared")
SIDE = 8


def png_grey(pixels: list[int]) -> bytes:
    raw = b"".join(b"\x00" + bytes(pixels[y * SIDE:(y + 1) * SIDE]) for y in range(SIDE))

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    header = struct.pack(">IIBBBBB", SIDE, SIDE, 8, 0, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw, 0)) + chunk(b"IEND", b"")


def rows(path: str) -> list[dict]:
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def write_rows(path: str, header: list[str], data: list[list]) -> None:
    with open(path, "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(header)
        w.writerows(data)


def main(out_root: str) -> int:
    out = os.path.join(out_root, "digits_png")
    pub, priv = os.path.join(out, "prepared", "public"), os.path.join(out, "prepared", "private")
    for d in (os.path.join(pub, "train"), os.path.join(pub, "test"), priv):
        os.makedirs(d, exist_ok=True)
    train, test = rows(os.path.join(SRC, "public", "train.csv")), rows(os.path.join(SRC, "public", "test.csv"))
    answers = rows(os.path.join(SRC, "private", "answers.csv"))
    pix = [f"pixel_{i}" for i in range(SIDE * SIDE)]
    for r in train + answers:
        r["label"] = str(int(float(r["label"])))
    for split, table in (("train", train), ("test", test)):
        for r in table:
            values = [round(int(float(r[p])) * 255 / 16) for p in pix]
            with open(os.path.join(pub, split, f"{r['id']}.png"), "wb") as f:
                f.write(png_grey(values))
    write_rows(os.path.join(pub, "train.csv"), ["id", "label"], [[r["id"], r["label"]] for r in train])
    write_rows(os.path.join(pub, "test.csv"), ["id"], [[r["id"]] for r in test])
    common = max(range(10), key=lambda k: (sum(r["label"] == str(k) for r in train), -k))
    write_rows(os.path.join(pub, "sample_submission.csv"), ["id", "label"], [[r["id"], common] for r in test])
    write_rows(os.path.join(priv, "answers.csv"), ["id", "label"], [[r["id"], r["label"]] for r in answers])
    with open(os.path.join(pub, "description.md"), "w") as f:
        f.write(DESCRIPTION.format(n_train=len(train), n_test=len(test)))
    task = {
        "id": "digits_png",
        "modality": "image",
        "kind": "multiclass_classification",
        "id_column": "id",
        "target_columns": ["label"],
        "prediction_columns": ["label"],
        "metric": {"name": "accuracy"},
        "direction": "higher_is_better",
        "images": {"dir": "images", "suffix": ".png", "width": SIDE, "height": SIDE, "channels": 1},
    }
    with open(os.path.join(out, "task.json"), "w") as f:
        json.dump(task, f, indent=2)
        f.write("\n")
    with open(os.path.join(out, "SOURCE.md"), "w") as f:
        f.write(SOURCE.format(n_train=len(train), n_test=len(test)))
    print(out)
    return 0


DESCRIPTION = """# Handwritten Digit Recognition (8x8 PNG images)

## Overview

Each row is a handwritten digit scanned as an 8x8 grey-scale image, given as a PNG file. Predict the digit (0-9).

## Data

- `images/<id>.png` — one 8x8 grey-scale PNG (8 bits, one channel) per row of `train.csv` and `test.csv`; darker is less ink, 255 is a block fully inked.
- `train.csv` — {n_train} rows: `id` and the target `label`, the digit 0..9.
- `test.csv` — {n_test} rows: `id` only.
- `sample_submission.csv` — a valid submission in the expected format (a constant prediction).

## Evaluation

Submissions are scored with classification accuracy: the share of test rows whose predicted label equals the true label. Higher is better.

## Submission format

For every `id` in `test.csv`, submit the predicted `label`. The file must contain exactly one row per test `id` and a header row:

```
id,label
2,0
...
```
"""

SOURCE = """# Seed `digits_png` — provenance

## Origin

The bundled `digits` seed (scikit-learn's `sklearn.datasets.load_digits()`; see `../digits/SOURCE.md`), with each row's 64 pixel columns written as an 8x8 PNG file. Original: test part of the Optical Recognition of Handwritten Digits data set, E. Alpaydin and C. Kaynak, Bogazici University, 1998; UCI Machine Learning Repository.

## License

As `digits`: shipped inside scikit-learn (BSD-3-Clause); the original data set is in the UCI Machine Learning Repository under Creative Commons Attribution 4.0 (CC BY 4.0), credited here.

## Shape

- `prepared/public/images/<id>.png`: {n_train} + {n_test} PNG files, 8x8 pixels, 1 channel (8-bit grey), pixel = round(v * 255 / 16) for the source's ink count v in 0..16.
- `prepared/public/train.csv`: {n_train} rows x 2 columns (`id`, target `label`).
- `prepared/public/test.csv`: {n_test} rows x 1 column (`id`).
- `prepared/public/sample_submission.csv`: `id` + `label` (the most frequent training class).
- `prepared/private/answers.csv`: `id` + `label`.
- `prepared/private/images.sha256`: the manifest of the image folder, hashed in `grading.json`.

The PNGs are written by `examples/seeds/build/prepare_image_seed.py` with Python's standard library: no row filter, stored deflate blocks, no ancillary chunk, so every file has the same size (and no metadata that could carry the label).

## Task

multiclass classification, metric `accuracy` (higher is better). The images are staged as an MLE-bench image competition (`public/train/`, `public/test/`) and imported with `sandmle import --images train,test`, which is how a prepared MLE-bench image competition with PNG files is imported.

## Split

The `digits` seed's: the same ids in the same split.

## Leaderboard

`prepared/private/leaderboard.csv` holds the baseline panel's valid results on this seed's own split (features computed from the PNG files: downsampled pixels, intensity histograms and gradient-orientation histograms), best first; `grading.json`'s thresholds derive from it with MLE-bench's rule. Regenerate with `sandmle panel --env examples/seeds/digits_png --write`. Logistic regression leads at accuracy 0.98329 (three values of `C` tie), so on this full seed gold and silver coincide and its `thresholds_ordered` gate fails; the gates are for the micro environments shrunk from it, which pass them (the quickstart's table).
"""

if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "/tmp/sandmle-image-seed"))
