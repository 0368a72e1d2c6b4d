#!/usr/bin/env python3
"""Import speed, side by side with pandas and Pillow doing the same work.

Two prepared competitions in MLE-bench's layout are fabricated once:

- `jpegs`: 20,000 JPEG images (64 x 64 RGB) in `public/train/` (16,000)
  and `public/test/` (4,000), `train.csv` of `id,label`, the test ids only
  in the sample submission;
- `rows`: a 5,000,000-row `train.csv` (an id, eight numbers, a category,
  a binary target; about 400 MB), a 100,000-row `test.csv`.

Then the same import is done two ways, each a command to time from outside
(hyperfine, or `/usr/bin/time -v`, pair by pair):

    sandmle import --competition WORK/jpegs --metric accuracy --out OUT
    python import_speed.py pandas --competition WORK/jpegs --out OUT

`pandas` reads every table with pandas, opens and decodes every image with
Pillow (its size and mode, as the import records them), hashes each file
(sha256, as the environment's manifest does) and writes the tables and the
files into the output folder: the work `sandmle import` does, without its
checks.

    python examples/scripts/import_speed.py make --work /tmp/import-speed
    python examples/scripts/import_speed.py pandas --competition /tmp/import-speed/jpegs --out /tmp/out
"""

import argparse
import hashlib
import pathlib
import random
import shutil
import sys


def make_jpegs(root, n_train=16_000, n_test=4_000):
    from PIL import Image

    public, private = root / "prepared/public", root / "prepared/private"
    for d in (public / "train", public / "test", private):
        d.mkdir(parents=True, exist_ok=True)
    rng = random.Random(0)
    train, sample, answers = ["id,label"], ["id,label"], ["id,label"]
    for i in range(n_train + n_test):
        label = i % 2
        shade = 60 + 120 * label + rng.randrange(40)
        img = Image.new("RGB", (64, 64), (shade, rng.randrange(256), 128))
        for _ in range(6):
            x, y = rng.randrange(60), rng.randrange(60)
            img.paste((rng.randrange(256),) * 3, (x, y, x + 4, y + 4))
        ident = f"img{i:05d}"
        split = "train" if i < n_train else "test"
        img.save(public / split / f"{ident}.jpg", quality=90)
        if i < n_train:
            train.append(f"{ident},{label}")
        else:
            sample.append(f"{ident},0")
            answers.append(f"{ident},{label}")
    (public / "train.csv").write_text("\n".join(train) + "\n")
    (public / "sample_submission.csv").write_text("\n".join(sample) + "\n")
    (public / "description.md").write_text("# Shades\n\nTell light images from dark ones.\n")
    (private / "answers.csv").write_text("\n".join(answers) + "\n")


def make_rows(root, n_train=5_000_000, n_test=100_000):
    public, private = root / "prepared/public", root / "prepared/private"
    for d in (public, private):
        d.mkdir(parents=True, exist_ok=True)
    rng = random.Random(1)
    header = "id," + ",".join(f"x{j}" for j in range(8)) + ",kind"
    with open(public / "train.csv", "w") as train:
        train.write(header + ",target\n")
        for i in range(n_train):
            xs = [rng.gauss(0, 1) for _ in range(8)]
            target = int(xs[0] + xs[1] > 0)
            train.write(f"r{i}," + ",".join(f"{x:.6f}" for x in xs) + f",k{i % 7},{target}\n")
    with open(public / "test.csv", "w") as test, open(public / "sample_submission.csv", "w") as sample, open(
        private / "answers.csv", "w"
    ) as answers:
        test.write(header + "\n")
        sample.write("id,target\n")
        answers.write("id,target\n")
        for i in range(n_test):
            xs = [rng.gauss(0, 1) for _ in range(8)]
            test.write(f"t{i}," + ",".join(f"{x:.6f}" for x in xs) + f",k{i % 7}\n")
            sample.write(f"t{i},0\n")
            answers.write(f"t{i},{int(xs[0] + xs[1] > 0)}\n")
    (public / "description.md").write_text("# Rows\n\nPredict the target.\n")


def pandas_import(competition, out):
    import pandas as pd
    from PIL import Image

    public, private = competition / "prepared/public", competition / "prepared/private"
    tables = {name: pd.read_csv(public / name, dtype={"id": str}) for name in ("train.csv", "sample_submission.csv")}
    if (public / "test.csv").exists():
        tables["test.csv"] = pd.read_csv(public / "test.csv", dtype={"id": str})
    answers = pd.read_csv(private / "answers.csv", dtype={"id": str})
    if out.exists():
        shutil.rmtree(out)
    (out / "prepared/public/images").mkdir(parents=True)
    (out / "prepared/private").mkdir(parents=True)
    manifest = []
    for split in ("train", "test"):
        folder = public / split
        if not folder.is_dir():
            continue
        for path in sorted(folder.iterdir()):
            data = path.read_bytes()
            with Image.open(path) as img:
                img.load()
                _ = (img.size, img.mode)
            manifest.append(f"{hashlib.sha256(data).hexdigest()}  {path.name}")
            (out / "prepared/public/images" / path.name).write_bytes(data)
    for name, frame in tables.items():
        frame.to_csv(out / "prepared/public" / name, index=False)
    answers.to_csv(out / "prepared/private/answers.csv", index=False)
    (out / "prepared/private/images.sha256").write_text("\n".join(manifest) + "\n")
    shutil.copy(public / "description.md", out / "prepared/public/description.md")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    make = sub.add_parser("make")
    make.add_argument("--work", required=True, type=pathlib.Path)
    run = sub.add_parser("pandas")
    run.add_argument("--competition", required=True, type=pathlib.Path)
    run.add_argument("--out", required=True, type=pathlib.Path)
    args = parser.parse_args()
    if args.command == "make":
        make_jpegs(args.work / "jpegs")
        make_rows(args.work / "rows")
        total = sum(f.stat().st_size for f in args.work.rglob("*") if f.is_file())
        print(f"{args.work}: {total / 1e6:.0f} MB", file=sys.stderr)
    else:
        pandas_import(args.competition, args.out)


if __name__ == "__main__":
    main()
