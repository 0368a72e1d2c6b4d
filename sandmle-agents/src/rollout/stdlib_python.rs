//! [`StdlibPythonPolicy`]: writes a real Python program that uses only the
//! standard library — nearest centroids on standardised numeric features
//! for classes (probabilities a softmax of negative squared distances),
//! ridge regression by the normal equations for values — runs it, scores
//! it and answers. An end-to-end code episode therefore runs anywhere
//! `python3` does.
//!
//! On an image task ([`TaskSpec::images`]) the program first reads every
//! row's PNG with a small decoder built on the standard library's `zlib`
//! (8-bit, non-interlaced; grey, grey + alpha, RGB, RGBA and palette
//! images; all five row filters) and turns it into features: the grey
//! image averaged over an 8 x 8 grid, and each colour channel's mean. On
//! an audio task it reads every row's clip (PCM WAV through `wave`, AIFF
//! through a small reader of its `COMM` and `SSND` chunks; told apart by
//! their first bytes, since imported clips may have no suffix) and takes log
//! energies at 16 log-spaced frequencies (Goertzel's algorithm over at most
//! 4000 samples), the RMS level and the zero-crossing rate. Rows that share
//! a file (a key column) read it once.

use super::{Policy, PolicyTurn};
use crate::codec::Codec;
use crate::env::Action;
use crate::error::Result;
use sandmle_core::{Message, SubmissionForm, TaskSpec, ToolSpec};
use std::sync::Arc;

const PROGRAM: &str = r#"import csv, io, math, struct, wave, zlib

ID, TARGETS, PREDS, FORM, TEMP, ALPHA, IMAGES, AUDIO = __CONFIG__

def read(path):
    with open(path, newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    return rows

def num(v):
    try:
        x = float(v)
        return x if math.isfinite(x) else None
    except (TypeError, ValueError):
        return None

def png_pixels(path):
    """(width, height, channels, rows of samples) of an 8-bit PNG."""
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError(path + ": not a PNG file")
    pos, idat, palette, head = 8, [], b"", None
    while pos + 8 <= len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        pos += 12 + n
        if kind == b"IHDR":
            head = struct.unpack(">IIBBBBB", body)
        elif kind == b"PLTE":
            palette = body
        elif kind == b"IDAT":
            idat.append(body)
        elif kind == b"IEND":
            break
    w, h, depth, ctype, _, _, interlace = head
    if depth != 8 or interlace:
        raise ValueError(path + ": only 8-bit, non-interlaced PNG files are read here")
    ch = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}[ctype]
    raw, stride = zlib.decompress(b"".join(idat)), w * ch
    prev, rows, i = bytearray(stride), [], 0
    for _ in range(h):
        f, line = raw[i], bytearray(raw[i + 1:i + 1 + stride])
        i += 1 + stride
        for x in range(stride):
            a = line[x - ch] if x >= ch else 0
            b = prev[x]
            c = prev[x - ch] if x >= ch else 0
            if f == 1:
                line[x] = (line[x] + a) & 255
            elif f == 2:
                line[x] = (line[x] + b) & 255
            elif f == 3:
                line[x] = (line[x] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(line)
        prev = line
    if ctype == 3:
        rows = [bytearray(v for k in line for v in palette[3 * k:3 * k + 3]) for line in rows]
        ch = 3
    return w, h, ch, rows

def clip_samples(path):
    """(rate, samples in [-1, 1]) of a PCM WAV or AIFF clip (channels averaged)."""
    data = open(path, "rb").read()
    if data[:4] == b"FORM":  # AIFF, whatever the file's name
        if data[8:12] not in (b"AIFF", b"AIFC"):
            raise ValueError(path + ": not an AIFF file")
        pos, comm, sound = 12, None, None
        while pos + 8 <= len(data):
            kind, n = data[pos:pos + 4], struct.unpack(">I", data[pos + 4:pos + 8])[0]
            body = data[pos + 8:pos + 8 + n]
            pos += 8 + n + (n & 1)
            if kind == b"COMM":
                comm = body
            elif kind == b"SSND":
                offset = struct.unpack(">I", body[:4])[0]
                sound = body[8 + offset:]
        channels, frames, bits = struct.unpack(">hIh", comm[:8])
        exponent, mantissa = struct.unpack(">HQ", comm[8:18])
        rate = mantissa * 2.0 ** ((exponent & 0x7FFF) - 16383 - 63)
        width, order = (bits + 7) // 8, "big"
        raw = sound[:frames * channels * width]
    else:
        with wave.open(io.BytesIO(data)) as w:
            channels, width, rate = w.getnchannels(), w.getsampwidth(), w.getframerate()
            raw = w.readframes(w.getnframes())
        order = "little"
    scale, out = float(1 << (8 * width - 1)), []
    step = width * channels
    for i in range(0, len(raw) - step + 1, step):
        total = 0
        for c in range(channels):
            b = raw[i + c * width:i + (c + 1) * width]
            v = int.from_bytes(b, order, signed=width > 1 or order == "big")
            total += v - 128 if width == 1 and order == "little" else v
        out.append(total / channels / scale)
    return rate, out


def audio_features(path, bands=16):
    """Log energies at 16 frequencies spaced evenly in log scale from 50 Hz
    to the Nyquist frequency (Goertzel over at most 4000 samples), the RMS
    level and the zero-crossing rate."""
    rate, x = clip_samples(path)
    if len(x) > 4000:
        stride = len(x) / 4000.0
        x, rate = [x[int(i * stride)] for i in range(4000)], rate / stride
    n = max(1, len(x))
    top = rate / 2.0
    feats = []
    for b in range(bands):
        f = 50.0 * (top / 50.0) ** ((b + 0.5) / bands)
        coeff, s1, s2 = 2.0 * math.cos(2.0 * math.pi * f / rate), 0.0, 0.0
        for v in x:
            s1, s2 = v + coeff * s1 - s2, s1
        feats.append(math.log(max(s1 * s1 + s2 * s2 - coeff * s1 * s2, 0.0) / n + 1e-10))
    rms = math.sqrt(sum(v * v for v in x) / n)
    zcr = sum(1 for a, b in zip(x, x[1:]) if (a < 0) != (b < 0)) / n
    return feats + [rms, zcr]


def image_features(path, grid=8):
    w, h, ch, rows = png_pixels(path)
    colours = 3 if ch >= 3 else 1
    sums, counts, means = [0.0] * (grid * grid), [0] * (grid * grid), [0.0] * colours
    for y, line in enumerate(rows):
        for x in range(w):
            px = line[x * ch:x * ch + colours]
            for k in range(colours):
                means[k] += px[k]
            cell = (y * grid // h) * grid + x * grid // w
            sums[cell] += sum(px) / colours
            counts[cell] += 1
    cells = [s / max(1, c) / 255.0 for s, c in zip(sums, counts)]
    return cells + [m / (w * h) / 255.0 for m in means] if colours == 3 else cells

train, test = read("train.csv"), read("test.csv")
print("train rows:", len(train), "test rows:", len(test))
if IMAGES:
    folder, suffix, key = IMAGES
    read_file = audio_features if AUDIO else image_features
    cache = {}
    for r in train + test:
        name = folder + "/" + r[key] + suffix
        if name not in cache:
            cache[name] = read_file(name)
        for j, v in enumerate(cache[name]):
            r["_file_%d" % j] = v
    print("file features per row:", len([c for c in test[0] if c.startswith("_file_")]))
cols = [c for c in test[0].keys() if c != ID and c not in TARGETS]
feats = [c for c in cols if sum(num(r[c]) is not None for r in train) >= 0.5 * len(train)]
stats = {}
for c in feats:
    xs = [num(r[c]) for r in train if num(r[c]) is not None]
    m = sum(xs) / len(xs)
    s = math.sqrt(sum((x - m) ** 2 for x in xs) / max(1, len(xs) - 1)) or 1.0
    stats[c] = (m, s)

def vec(r):
    out = []
    for c in feats:
        m, s = stats[c]
        x = num(r[c])
        out.append(0.0 if x is None else (x - m) / s)
    return out

X, T = [vec(r) for r in train], [vec(r) for r in test]
print("features used:", len(feats))

def key(v):
    x = num(v)
    return (0, x, "") if x is not None else (1, 0.0, v)

def centroid_probs(labels):
    classes = sorted(set(labels), key=key)
    cents = {}
    for k in classes:
        rows = [x for x, y in zip(X, labels) if y == k]
        cents[k] = [sum(col) / len(rows) for col in zip(*rows)] if feats else []
    out = []
    for t in T:
        d = [sum((a - b) ** 2 for a, b in zip(t, cents[k])) / max(1, len(feats)) for k in classes]
        lo = min(d)
        w = [math.exp(-(x - lo) / TEMP) for x in d]
        z = sum(w)
        out.append([x / z for x in w])
    return classes, out

def ridge(y):
    n, p = len(X), len(feats) + 1
    A = [[0.0] * p for _ in range(p)]
    b = [0.0] * p
    for x, t in zip(X, y):
        xx = x + [1.0]
        for i in range(p):
            b[i] += xx[i] * t
            for j in range(p):
                A[i][j] += xx[i] * xx[j]
    for i in range(p - 1):
        A[i][i] += ALPHA
    for i in range(p):
        piv = max(range(i, p), key=lambda r: abs(A[r][i]))
        A[i], A[piv], b[i], b[piv] = A[piv], A[i], b[piv], b[i]
        if abs(A[i][i]) < 1e-12:
            continue
        for r in range(p):
            if r != i:
                f = A[r][i] / A[i][i]
                A[r] = [a - f * c for a, c in zip(A[r], A[i])]
                b[r] -= f * b[i]
    w = [b[i] / A[i][i] if abs(A[i][i]) >= 1e-12 else 0.0 for i in range(p)]
    lo, hi = min(y), max(y)
    return [min(hi, max(lo, sum(a * c for a, c in zip(t + [1.0], w)))) for t in T]

out = {ID: [r[ID] for r in test]}
if FORM == "value":
    for t, c in zip(TARGETS, PREDS):
        ys = [num(r[t]) for r in train]
        mean = sum(y for y in ys if y is not None) / max(1, sum(y is not None for y in ys))
        out[c] = ridge([mean if y is None else y for y in ys])
elif FORM in ("label", "probability", "column_probabilities"):
    for t, c in zip(TARGETS, PREDS):
        classes, probs = centroid_probs([r[t] for r in train])
        if FORM == "label":
            out[c] = [classes[max(range(len(p)), key=p.__getitem__)] for p in probs]
        else:
            out[c] = [p[-1] if len(classes) > 1 else float(classes[0] == "1") for p in probs]
else:
    classes, probs = centroid_probs([r[TARGETS[0]] for r in train])
    for c in PREDS:
        j = classes.index(c) if c in classes else None
        out[c] = [p[j] if j is not None else 0.0 for p in probs]
with open("submission.csv", "w", newline="", encoding="utf-8") as f:
    w = csv.writer(f, lineterminator="\n")
    w.writerow([ID] + PREDS)
    for i in range(len(test)):
        w.writerow([out[ID][i]] + [out[c][i] for c in PREDS])
print("wrote submission.csv with", len(test), "rows")
"#;

/// The program for `task` (temperature and ridge strength from `variant`,
/// so that a group's rollouts differ).
pub fn stdlib_program(task: &TaskSpec, variant: u64) -> String {
    let form = match task.submission_form() {
        SubmissionForm::Value => "value",
        SubmissionForm::Label | SubmissionForm::LabelSet => "label",
        SubmissionForm::Probability => "probability",
        SubmissionForm::ColumnProbabilities => "column_probabilities",
        _ => "class_probabilities",
    };
    let temps = [0.5, 1.0, 2.0, 4.0];
    let alphas = [0.1, 1.0, 10.0, 100.0];
    let i = usize::try_from(variant % 4).unwrap_or(0);
    let images = task
        .images
        .as_ref()
        .map_or(serde_json::json!([]), |s| serde_json::json!([s.dir, s.suffix, s.key(&task.id_column)]));
    let config = serde_json::json!([
        task.id_column,
        task.target_columns,
        task.prediction_columns,
        form,
        temps[i],
        alphas[i],
        images,
        // 0 or 1: the configuration is read as a Python literal, which has no `true`.
        u8::from(task.modality == sandmle_core::Modality::Audio)
    ]);
    PROGRAM.replace("__CONFIG__", &config.to_string())
}

/// Writes [`stdlib_program`], runs it, scores the submission, answers.
pub struct StdlibPythonPolicy {
    codec: Arc<dyn Codec>,
    plan: Vec<(String, Action)>,
    next: usize,
}

impl std::fmt::Debug for StdlibPythonPolicy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StdlibPythonPolicy").field("next", &self.next).finish()
    }
}

impl StdlibPythonPolicy {
    /// A policy for `task` in `codec`'s format; `seed` picks the variant.
    pub fn new(task: &TaskSpec, seed: u64, codec: Arc<dyn Codec>) -> Self {
        let plan = vec![
            (
                "Standard-library Python only: nearest centroids for classes, ridge for values.".to_owned(),
                Action::RunCode { code: stdlib_program(task, seed) },
            ),
            ("Grade the submission.".to_owned(), Action::Score),
            ("The submission is ready.".to_owned(), Action::Finish { answer: "submission".into() }),
        ];
        StdlibPythonPolicy { codec, plan, next: 0 }
    }
}

impl Policy for StdlibPythonPolicy {
    fn name(&self) -> &str {
        "stdlib_python"
    }

    fn act(&mut self, _messages: &[Message], _tools: &[ToolSpec]) -> Result<PolicyTurn> {
        let (think, action) = self
            .plan
            .get(self.next)
            .cloned()
            .unwrap_or_else(|| ("Done.".to_owned(), Action::Finish { answer: "submission".into() }));
        let message = self.codec.assistant_turn(&think, &action, &format!("call_{}", self.next));
        self.next += 1;
        Ok(PolicyTurn { message, tokens: None })
    }
}
