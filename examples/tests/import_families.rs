//! Every format family MLE-bench's `prepare.py` writes, made small at test
//! time in its real layout (as `examples/scripts/mlebench_import_check.py`
//! found them in MLE-bench's own output), goes through `import`, `shrink`
//! (every gate on the micro task) and `generate` (at least one kept).

mod common;
use common::{json, sandmle};
use sandmle_core::{Pixels, encode_png, encode_wav};
use std::path::Path;

fn write(path: &Path, bytes: impl AsRef<[u8]>) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, bytes).unwrap();
}

/// A 16 x 16 RGB JPEG: a bright square on a dark field for label 1, a dark
/// square on a bright field for 0, its place moving with `i`; one image in
/// five shows the other label's picture (so no model is perfect).
fn jpeg(i: usize, label: usize) -> Vec<u8> {
    let shown = if i.is_multiple_of(5) { 1 - label } else { label };
    let (field, square) = if shown == 1 { (40u8, 220u8) } else { (200, 30) };
    let (x0, y0) = (i % 8, (i / 8) % 8);
    let mut data = Vec::with_capacity(16 * 16 * 3);
    for y in 0..16 {
        for x in 0..16 {
            let v = if (x0..x0 + 8).contains(&x) && (y0..y0 + 8).contains(&y) { square } else { field };
            data.extend([v, v / 2 + (i % 7) as u8, v]);
        }
    }
    let mut out = Vec::new();
    image::codecs::jpeg::JpegEncoder::new_with_quality(&mut out, 90)
        .encode(&data, 16, 16, image::ExtendedColorType::Rgb8)
        .unwrap();
    out
}

/// The same picture as [`jpeg`], as an RGB TIFF.
fn tiff(i: usize, label: usize) -> Vec<u8> {
    let pixels = image::load_from_memory(&jpeg(i, label)).unwrap().to_rgb8();
    let mut out = std::io::Cursor::new(Vec::new());
    pixels.write_to(&mut out, image::ImageFormat::Tiff).unwrap();
    out.into_inner()
}

/// histopathologic-cancer-detection: `<id>.tif` files, the labels in
/// `train_labels.csv`, test ids only in the sample submission, ROC AUC.
fn slides(dir: &Path) {
    let public = dir.join("prepared/public");
    let mut labels = String::from("id,label\n");
    for i in 0..120 {
        write(&public.join(format!("train/f{i:03}a.tif")), tiff(i, i % 2));
        labels.push_str(&format!("f{i:03}a,{}\n", i % 2));
    }
    let (mut sample, mut answers) = (String::from("id,label\n"), String::from("id,label\n"));
    for i in 0..40 {
        write(&public.join(format!("test/t{i:03}b.tif")), tiff(i + 2, i % 2));
        sample.push_str(&format!("t{i:03}b,0\n"));
        answers.push_str(&format!("t{i:03}b,{}\n", i % 2));
    }
    write(&public.join("train_labels.csv"), labels);
    write(&public.join("sample_submission.csv"), sample);
    write(&dir.join("prepared/private/answers.csv"), answers);
}

/// dogs-vs-cats-redux: labels in the training names, test ids only in the
/// sample submission, JPEG files, log loss.
fn dogs(dir: &Path) {
    let public = dir.join("prepared/public");
    for i in 0..120 {
        let (label, name) = if i % 2 == 1 { (1, "dog") } else { (0, "cat") };
        write(&public.join(format!("train/{name}.{i}.jpg")), jpeg(i, label));
    }
    let (mut sample, mut answers) = (String::from("id,label\n"), String::from("id,label\n"));
    for i in 1..=40 {
        write(&public.join(format!("test/{i}.jpg")), jpeg(i + 3, i % 2));
        sample.push_str(&format!("{i},0.5\n"));
        answers.push_str(&format!("{i},{}\n", i % 2));
    }
    write(&public.join("sample_submission.csv"), sample);
    write(&dir.join("prepared/private/answers.csv"), answers);
}

/// tensorflow-speech-recognition-challenge: clips in one folder per label,
/// the sample's `fname`, accuracy. A clip's pitch rises with a position
/// `u` in `[0, 1)`; `yes` is `u > 0.5`, except one clip in seven.
fn speech(dir: &Path) {
    let public = dir.join("prepared/public");
    let u = |i: usize| ((i * 37 + 11) % 101) as f64 / 101.0;
    let label = |i: usize| usize::from((u(i) > 0.5) != i.is_multiple_of(7));
    let clip = |i: usize| {
        let pitch = 220.0 * 4f64.powf(u(i));
        let samples: Vec<f32> =
            (0..2000).map(|t| (0.3 * (t as f64 * pitch * std::f64::consts::TAU / 8000.0).sin()) as f32).collect();
        encode_wav(&samples, 8000).unwrap()
    };
    let word = |l: usize| if l == 1 { "yes" } else { "no" };
    for i in 0..120 {
        write(&public.join(format!("train/audio/{}/{i:04}_nohash_0.wav", word(label(i)))), clip(i));
    }
    let (mut sample, mut answers) = (String::from("fname,label\n"), String::from("fname,label\n"));
    for i in 120..160 {
        write(&public.join(format!("test/audio/clip_{i:04}.wav")), clip(i));
        sample.push_str(&format!("clip_{i:04}.wav,no\n"));
        answers.push_str(&format!("clip_{i:04}.wav,{}\n", word(label(i))));
    }
    write(&public.join("sample_submission.csv"), sample);
    write(&dir.join("prepared/private/answers.csv"), answers);
}

/// plant-pathology-2021-fgvc8: space-separated label sets over JPEG leaves.
fn leaves(dir: &Path) {
    let public = dir.join("prepared/public");
    let sets = ["healthy", "scab", "rust scab"];
    let mut train = String::from("image,labels\n");
    for i in 0..150 {
        write(&public.join(format!("train_images/t{i}.jpg")), jpeg(i, usize::from(i % 3 != 0)));
        train.push_str(&format!("t{i}.jpg,{}\n", sets[i % 3]));
    }
    let (mut sample, mut answers) = (String::from("image,labels\n"), String::from("image,labels\n"));
    for i in 0..30 {
        write(&public.join(format!("test_images/s{i}.jpg")), jpeg(i + 1, usize::from(i % 3 != 0)));
        sample.push_str(&format!("s{i}.jpg,healthy\n"));
        answers.push_str(&format!("s{i}.jpg,{}\n", sets[i % 3]));
    }
    write(&public.join("train.csv"), train);
    write(&public.join("sample_submission.csv"), sample);
    write(&dir.join("prepared/private/answers.csv"), answers);
}

/// text-normalization-challenge-english-language: one row per token, the
/// test's ids `<sentence_id>_<token_id>` only in the sample.
fn tokens(dir: &Path) {
    let public = dir.join("prepared/public");
    let before = ["it", "costs", "12", "dollars", "on", "St.", "Lane", "."];
    let after = ["it", "costs", "twelve", "dollars", "on", "street", "Lane", "."];
    let class = ["PLAIN", "PLAIN", "CARDINAL", "PLAIN", "PLAIN", "ABBR", "PLAIN", "PUNCT"];
    // `12` late in a sentence is "one two", `St.` is "saint" in half the
    // sentences, `Lane` lower-cased in the later ones and `it` "it's" in one
    // sentence of seven: the words alone do not settle every token, and
    // models that read the places differently score differently.
    let spoken = |s: usize, t: usize, w: usize| match w {
        2 if t >= 3 => "one two",
        5 if s % 4 < 2 => "saint",
        6 if s > 60 => "lane",
        0 if s.is_multiple_of(7) => "it's",
        _ => after[w],
    };
    let mut train = String::from("\"sentence_id\",\"token_id\",\"class\",\"before\",\"after\"\n");
    for s in 0..120 {
        for t in 0..(4 + s % 5) {
            let w = (s * 3 + t) % 8;
            train.push_str(&format!("{s},{t},\"{}\",\"{}\",\"{}\"\n", class[w], before[w], spoken(s, t, w)));
        }
    }
    let mut test = String::from("\"sentence_id\",\"token_id\",\"before\"\n");
    let (mut sample, mut answers) = (String::from("\"id\",\"after\"\n"), String::from("\"id\",\"after\"\n"));
    for s in 0..10 {
        for t in 0..5 {
            let w = (s * 3 + t) % 8;
            test.push_str(&format!("{s},{t},\"{}\"\n", before[w]));
            sample.push_str(&format!("\"{s}_{t}\",\"{}\"\n", before[w]));
            answers.push_str(&format!("\"{s}_{t}\",\"{}\"\n", spoken(s, t, w)));
        }
    }
    write(&public.join("en_train.csv"), train);
    write(&public.join("en_test_2.csv"), test);
    write(&public.join("en_sample_submission_2.csv"), sample);
    write(&dir.join("prepared/private/answers.csv"), answers);
}

/// denoising-dirty-documents: scans beside clean pages, a per-pixel sample.
fn pages(dir: &Path) {
    let public = dir.join("prepared/public");
    let page = |i: usize, clean: bool| {
        let data: Vec<u8> = (0..32 * 24)
            .map(|p| {
                let (x, y) = (p % 32, p / 32);
                let ink = (y % 6 == 2 || y % 6 == 3) && !(x + i).is_multiple_of(5);
                let v: u8 = if ink { 30 } else { 255 };
                // The scan: lighting across the page and noise strong enough that
                // some ink and some paper look alike.
                let speckle = ((p * 7919 + i * 104_729) % 241) as f64 - 120.0;
                if clean {
                    v
                } else {
                    (f64::from(v) * (0.75 + 0.2 * (x as f64 / 32.0)) + speckle).clamp(0.0, 255.0) as u8
                }
            })
            .collect();
        encode_png(&Pixels { width: 32, height: 24, channels: 1, data }).unwrap()
    };
    for i in 0..4 {
        write(&public.join(format!("train/{}.png", 10 + i)), page(i, false));
        write(&public.join(format!("train_cleaned/{}.png", 10 + i)), page(i, true));
    }
    write(&public.join("test/20.png"), page(7, false));
    let (mut sample, mut answers) = (String::from("id,value\n"), String::from("id,value\n"));
    let clean = sandmle_core::decode_image(&page(7, true), "clean").unwrap();
    for r in 1..=24 {
        for c in 1..=32 {
            sample.push_str(&format!("20_{r}_{c},1\n"));
            answers.push_str(&format!("20_{r}_{c},{}\n", f64::from(clean.data[(r - 1) * 32 + c - 1]) / 255.0));
        }
    }
    write(&public.join("sampleSubmission.csv"), sample);
    write(&dir.join("prepared/private/answers.csv"), answers);
}

/// mlsp-2013-birds: one WAV per recording named through
/// `rec_id2filename.txt`, each recording's species in a ragged text file
/// (`?` for a test recording, the id alone for none), the sample one row
/// per (recording, species) with `Id = rec_id * 100 + species`.
fn birds(dir: &Path) {
    let ess = dir.join("prepared/public/essential_data");
    // Recording r holds species s when bit s of a scrambled r is set (some
    // hold none); each species sings at its own pitch.
    let has = |r: usize, s: usize| ((r * 2654435761) >> (7 + s)) & 1 == 1 && !(r + s).is_multiple_of(7);
    let clip = |r: usize| {
        let samples: Vec<f32> = (0..4000)
            .map(|t| {
                let x = t as f64 / 8000.0;
                let song: f64 = (0..4)
                    .filter(|&s| has(r, s))
                    .map(|s| (x * (600.0 + 500.0 * s as f64) * std::f64::consts::TAU).sin())
                    .sum();
                (0.2 * song + 0.1 * ((t * 7919 + r * 104729) % 200) as f64 / 100.0 - 0.1) as f32
            })
            .collect();
        encode_wav(&samples, 8000).unwrap()
    };
    let (mut names, mut labels) = (String::from("rec_id,filename\n"), String::from("rec_id,[labels]\n"));
    let (mut sample, mut answers) = (String::from("Id,Probability\n"), String::from("Id,Probability\n"));
    for r in 0..100 {
        write(&ess.join(format!("src_wavs/PC{}_{r:05}.wav", r % 4)), clip(r));
        names.push_str(&format!("{r},PC{}_{r:05}\n", r % 4));
        let species: Vec<String> = (0..4).filter(|&s| has(r, s)).map(|s| s.to_string()).collect();
        if r % 5 == 0 {
            labels.push_str(&format!("{r},?\n"));
            for s in 0..4 {
                sample.push_str(&format!("{},0\n", r * 100 + s));
                answers.push_str(&format!("{},{}\n", r * 100 + s, u8::from(has(r, s))));
            }
        } else if species.is_empty() {
            labels.push_str(&format!("{r}\n"));
        } else {
            labels.push_str(&format!("{r},{}\n", species.join(",")));
        }
    }
    write(&ess.join("rec_id2filename.txt"), names);
    write(&ess.join("rec_labels_test_hidden.txt"), labels);
    write(&dir.join("prepared/public/sample_submission.csv"), sample);
    write(&dir.join("prepared/private/answers.csv"), answers);
}

/// whale-categorization-playground: JPEGs of individuals, `train.csv`
/// (`Image`, `Id`) over 25 whales and a dominant `new_whale`, MAP@5 over
/// space-separated ranked ids; each whale's pictures share its colour, but
/// for one in four.
fn whales(dir: &Path) {
    let public = dir.join("prepared/public");
    let whale = |i: usize| if i % 5 < 2 { 0 } else { 1 + (i * 7) % 25 };
    let name = |w: usize| if w == 0 { "new_whale".to_owned() } else { format!("w_{:07x}", w * 104729) };
    // One picture in four shows another whale's colour (no model is
    // perfect).
    let picture = |i: usize, w: usize| {
        let w = if i.is_multiple_of(4) { (w + 3) % 26 } else { w };
        let (r, g, b) = ((w * 97 % 256) as u8, (w * 53 % 256) as u8, (w * 29 % 256) as u8);
        let mut data = Vec::with_capacity(16 * 16 * 3);
        for p in 0..256 {
            let n = ((p * 31 + i * 17) % 23) as u8;
            data.extend([r.saturating_add(n), g.saturating_add(n), b.saturating_add(n)]);
        }
        let mut out = Vec::new();
        image::codecs::jpeg::JpegEncoder::new_with_quality(&mut out, 90)
            .encode(&data, 16, 16, image::ExtendedColorType::Rgb8)
            .unwrap();
        out
    };
    let mut train = String::from("Image,Id\n");
    for i in 0..400 {
        write(&public.join(format!("train/{i:05x}.jpg")), picture(i, whale(i)));
        train.push_str(&format!("{i:05x}.jpg,{}\n", name(whale(i))));
    }
    let (mut sample, mut answers) = (String::from("Image,Id\n"), String::from("Image,Id\n"));
    let top: Vec<String> = (0..5).map(name).collect();
    for i in 400..480 {
        write(&public.join(format!("test/{i:05x}.jpg")), picture(i, whale(i)));
        sample.push_str(&format!("{i:05x}.jpg,{}\n", top.join(" ")));
        answers.push_str(&format!("{i:05x}.jpg,{}\n", name(whale(i))));
    }
    write(&public.join("train.csv"), train);
    write(&public.join("sample_submission.csv"), sample);
    write(&dir.join("prepared/private/answers.csv"), answers);
}

/// Imports, shrinks (every gate) and generates (one kept) a competition.
fn round_trip(name: &str, stage: fn(&Path), metric: &str) {
    round_trip_with(name, stage, metric, &[]);
}

/// [`round_trip`] with more import flags.
fn round_trip_with(name: &str, stage: fn(&Path), metric: &str, flags: &[&str]) {
    let tmp = tempfile::tempdir().unwrap();
    let comp = tmp.path().join(name);
    stage(&comp);
    write(&comp.join("prepared/public/description.md"), format!("# {name}\n"));
    let env = tmp.path().join("env");
    let s = |p: &Path| p.display().to_string();
    let (comp_arg, env_arg) = (s(&comp), s(&env));
    let mut args = vec!["--json", "import", "--competition", &comp_arg, "--metric", metric, "--out", &env_arg];
    args.extend(flags);
    let out = sandmle(&args);
    assert!(out.status.success(), "{name}: import: {}", String::from_utf8_lossy(&out.stdout));
    let micro = tmp.path().join("micro");
    let out = sandmle(&["--json", "shrink", "--seed-env", &s(&env), "--seed", "1", "--out", &s(&micro)]);
    let report = json(&out);
    assert!(out.status.success(), "{name}: shrink: {report}");
    let gates = report["gates"].as_array().unwrap();
    assert!(gates.iter().all(|g| g["passed"] == true), "{name}: {gates:?}");
    let generated = tmp.path().join("generated");
    let out = sandmle(&[
        "--json",
        "generate",
        "--seed-env",
        &s(&env),
        "--per-seed",
        "1",
        "--seed",
        "2",
        "--out",
        &s(&generated),
    ]);
    let report = json(&out);
    assert!(out.status.success(), "{name}: generate: {report}");
    let kept: u64 = report["throughput"].as_object().unwrap().values().map(|t| t["kept"].as_u64().unwrap()).sum();
    assert_eq!(kept, 1, "{name}: {report}");
}

#[test]
fn jpeg_images_labelled_by_name() {
    round_trip("dogs-vs-cats-redux-kernels-edition", dogs, "log_loss");
}

#[test]
fn tiff_images_with_a_labels_table() {
    round_trip("histopathologic-cancer-detection", slides, "roc_auc");
}

#[test]
fn audio_clips_labelled_by_folder() {
    round_trip("tensorflow-speech-recognition-challenge", speech, "accuracy");
}

#[test]
fn label_sets_over_jpeg_images() {
    round_trip("plant-pathology-2021-fgvc8", leaves, "label_set_f1_micro");
}

#[test]
fn token_rows_of_sentences() {
    round_trip("text-normalization-challenge-english-language", tokens, "accuracy");
}

#[test]
fn pixel_rows_of_pages() {
    round_trip("denoising-dirty-documents", pages, "rmse");
}

#[test]
fn flattened_item_label_rows_over_wav_recordings() {
    round_trip_with(
        "mlsp-2013-birds",
        birds,
        "roc_auc",
        &[
            "--item-labels",
            "essential_data/rec_labels_test_hidden.txt",
            "--item-files",
            "essential_data/rec_id2filename.txt",
        ],
    );
}

#[test]
fn many_classes_ranked_by_map_at_5() {
    round_trip_with("whale-categorization-playground", whales, "map_at_k", &["--k", "5"]);
}
