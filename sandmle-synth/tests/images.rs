//! Image tasks: DNA from PNGs, synthesis of image environments, their
//! determinism, their hidden rule and the leakage gate on them.

mod common;

use common::seed;

use sandmle_core::testing::{tiny_environment, tiny_image_environment};
use sandmle_core::{Environment, ImageDna, ImageSpec, Modality, PlanRequest, TaskDna, WriteOptions, decode_png};
use sandmle_metrics::StandardGrader;
use sandmle_synth::image::{ImageFactors, ImageRule};
use sandmle_synth::{DnaSynthesizer, Gate, GateVerifier, extract_dna, png_chunk_types};
use std::collections::BTreeMap;
use std::sync::Arc;

fn image_dna(channels: u8) -> TaskDna {
    let mut dna = extract_dna(&tiny_image_environment()).unwrap();
    if let Some(images) = dna.images.as_mut() {
        images.width = 32;
        images.height = 32;
        images.channels = channels;
    }
    dna
}

/// A seed's DNA as if its data were 24 x 24 RGB images.
fn as_images(mut dna: TaskDna) -> TaskDna {
    dna.modality = Modality::Image;
    dna.features.clear();
    dna.correlations.clear();
    dna.images = Some(ImageDna { width: 24, height: 24, channels: 3, mean_intensity: 0.3, sd_intensity: 0.2 });
    dna
}

fn plan(synth: &DnaSynthesizer, dna: &TaskDna, seed: u64) -> sandmle_core::TaskPlan {
    let request = PlanRequest { seed_task: "tiny-images".into(), run_seed: seed, index: 0, attempt: 0, modality: None };
    synth.plan(dna, &request).unwrap()
}

fn ids(t: &sandmle_core::Table) -> Vec<String> {
    t.column("id").unwrap().label_texts()
}

#[test]
fn image_dna_is_read_from_the_pngs_and_tables_keep_none() {
    let dna = extract_dna(&tiny_image_environment()).unwrap();
    assert!(dna.features.is_empty());
    let images = dna.images.unwrap();
    assert_eq!((images.width, images.height, images.channels), (4, 4, 1));
    // Training levels: 40, 201, 42, 203, 44, 205.
    let mean = (40.0 + 201.0 + 42.0 + 203.0 + 44.0 + 205.0) / 6.0 / 255.0;
    assert!((images.mean_intensity - mean).abs() < 1e-9, "{}", images.mean_intensity);
    assert!(images.sd_intensity > 0.2);
    assert_eq!(extract_dna(&tiny_environment()).unwrap().images, None);
}

#[test]
fn an_image_dna_synthesizes_a_valid_image_environment_that_round_trips() {
    let env = DnaSynthesizer::default().synthesize_env(&image_dna(1), "tiny-images", 7).unwrap();
    env.validate().unwrap();
    let task = env.task();
    assert_eq!(task.modality, Modality::Image);
    assert_eq!(task.images, Some(ImageSpec::png(32, 32, 1)));
    assert_eq!(env.train.n_cols(), 2, "train.csv holds the id and the label");
    assert_eq!(env.test.names(), ["id"]);
    assert_eq!(env.train.n_rows(), 200);
    assert_eq!(env.images.len(), env.train.n_rows() + env.test.n_rows());
    for id in ids(&env.train).iter().chain(&ids(&env.test)) {
        let px = decode_png(env.images.get(&format!("{id}.png")).unwrap(), id).unwrap();
        assert_eq!((px.width, px.height, px.channels), (32, 32, 1));
    }
    let d = &env.description;
    assert!(d.contains("images/<id>.png") && d.contains("32x32") && d.contains("greyscale"), "{d}");
    assert!(d.contains("`id` only"), "{d}");
    for secret in ["circle", "stripe", "hue", "count", "rule"] {
        assert!(!d.to_lowercase().contains(secret), "the description names `{secret}`: {d}");
    }
    let dir = tempfile::tempdir().unwrap();
    env.write(dir.path().join("e"), &WriteOptions::default()).unwrap();
    let back = Environment::read(dir.path().join("e")).unwrap();
    assert_eq!(back.images, env.images);
    assert_eq!(back.train, env.train);
    assert_eq!(back.test, env.test);
    assert_eq!(back.answers, env.answers);
    assert_eq!(back.task(), env.task());
    // The micro task's DNA is an image DNA of the drawn size.
    let micro = extract_dna(&back).unwrap();
    assert!(micro.features.is_empty());
    assert_eq!(micro.images.map(|i| (i.width, i.height, i.channels)), Some((32, 32, 1)));
}

#[test]
fn multiclass_and_regression_dnas_give_image_environments() {
    for name in ["wine", "diabetes", "digits"] {
        let dna = as_images(extract_dna(&seed(name)).unwrap());
        let env = DnaSynthesizer::default().synthesize_env(&dna, name, 3).unwrap_or_else(|e| panic!("{name}: {e}"));
        env.validate().unwrap();
        assert_eq!(env.task().images, Some(ImageSpec::png(24, 24, 3)), "{name}");
        assert_eq!(env.test.names(), ["id"], "{name}");
        assert_eq!(env.task().metric, dna.metric, "{name}");
    }
}

#[test]
fn the_same_plan_gives_the_same_bytes_on_one_and_two_threads() {
    let synth = DnaSynthesizer::default();
    let p = plan(&synth, &image_dna(3), 11);
    let pool = |n| rayon::ThreadPoolBuilder::new().num_threads(n).build().unwrap();
    let one = pool(1).install(|| synth.realize(&p)).unwrap();
    let two = pool(2).install(|| synth.realize(&p)).unwrap();
    let again = synth.realize(&p).unwrap();
    assert_eq!(one.images, two.images);
    assert_eq!(one, two);
    assert_eq!(one, again);
    // Written files too.
    let dir = tempfile::tempdir().unwrap();
    one.write(dir.path().join("a"), &WriteOptions::default()).unwrap();
    two.write(dir.path().join("b"), &WriteOptions::default()).unwrap();
    let grading = |d: &str| std::fs::read(dir.path().join(d).join("prepared/private/grading.json")).unwrap();
    assert_eq!(grading("a"), grading("b"), "grading.json hashes every file");
    // Another seed draws other images.
    let other = synth.realize(&plan(&synth, &image_dna(3), 12)).unwrap();
    assert_ne!(one.images, other.images);
}

/// Every row's factors from `provenance.json`, by id.
fn recorded_factors(env: &Environment) -> BTreeMap<String, ImageFactors> {
    let rows = env.provenance.details["image_factors"]["rows"].as_array().unwrap();
    rows.iter()
        .map(|row| {
            let codes: Vec<u16> = row.as_array().unwrap().iter().map(|v| v.as_u64().unwrap() as u16).collect();
            (codes[0].to_string(), ImageFactors::from_codes(&codes[1..]).unwrap())
        })
        .collect()
}

#[test]
fn at_difficulty_zero_the_recorded_rule_recomputes_the_labels() {
    let synth = DnaSynthesizer { difficulty: 0.0, mutate: false, ..DnaSynthesizer::default() };
    let mut families = std::collections::BTreeSet::new();
    for seed in 0..8 {
        let env = synth.realize(&plan(&synth, &image_dna(3), seed)).unwrap();
        let rule_record = &env.provenance.hidden_rule.as_ref().unwrap()["targets"][0];
        families.insert(env.provenance.hidden_rule.as_ref().unwrap()["family"].as_str().unwrap().to_owned());
        let rule: ImageRule = serde_json::from_value(rule_record["rule"].clone()).unwrap();
        let cut = rule_record["cut"].as_f64().unwrap();
        let factors = recorded_factors(&env);
        let target = &env.task().target_columns[0];
        let mut agree = 0;
        let mut total = 0;
        for (table, column) in [(&env.train, target.as_str()), (&env.answers, target.as_str())] {
            let labels = table.column(column).unwrap().label_texts();
            for (id, label) in ids(table).iter().zip(&labels) {
                let predicted = rule.score(&factors[id]) > cut;
                agree += usize::from(predicted == (label == "1"));
                total += 1;
            }
        }
        let rate = agree as f64 / total as f64;
        assert!(rate >= 0.99, "seed {seed}: the recorded rule gives {rate:.3} of the labels");
    }
    assert!(families.len() >= 3, "families drawn: {families:?}");
}

fn spearman(a: &[f64], b: &[f64]) -> f64 {
    let rank = |v: &[f64]| {
        let mut idx: Vec<usize> = (0..v.len()).collect();
        idx.sort_by(|&i, &j| v[i].total_cmp(&v[j]));
        let mut r = vec![0.0; v.len()];
        let mut i = 0;
        while i < idx.len() {
            let mut j = i;
            while j + 1 < idx.len() && v[idx[j + 1]] == v[idx[i]] {
                j += 1;
            }
            for k in i..=j {
                r[idx[k]] = (i + j) as f64 / 2.0;
            }
            i = j + 1;
        }
        r
    };
    let (ra, rb) = (rank(a), rank(b));
    let n = a.len() as f64;
    let (ma, mb) = (ra.iter().sum::<f64>() / n, rb.iter().sum::<f64>() / n);
    let cov: f64 = ra.iter().zip(&rb).map(|(x, y)| (x - ma) * (y - mb)).sum();
    let va: f64 = ra.iter().map(|x| (x - ma) * (x - ma)).sum();
    let vb: f64 = rb.iter().map(|y| (y - mb) * (y - mb)).sum();
    cov / (va * vb).sqrt()
}

#[test]
fn file_names_sizes_and_chunks_tell_nothing_about_the_label() {
    for seed in 0..4 {
        let env = DnaSynthesizer::default().synthesize_env(&image_dna(3), "tiny-images", seed).unwrap();
        let sizes: Vec<usize> = env.images.iter().map(|(_, b)| b.len()).collect();
        assert!(sizes.iter().all(|&s| s == sizes[0]), "every file has the same size");
        let chunks: Vec<String> = env.images.iter().map(|(_, b)| png_chunk_types(b)).collect();
        assert!(chunks.iter().all(|c| *c == "IDAT,IEND,IHDR"), "{:?}", chunks[0]);
        let target = &env.task().target_columns[0];
        let labels: Vec<f64> = env.train.column(target).unwrap().to_f64_lenient().unwrap();
        let id_numbers: Vec<f64> = ids(&env.train).iter().map(|i| i.parse().unwrap()).collect();
        let rho = spearman(&id_numbers, &labels);
        assert!(rho.abs() < 0.2, "seed {seed}: ids correlate with the label ({rho:.3})");
    }
}

fn no_leakage(env: &Environment) -> sandmle_core::GateResult {
    let results = GateVerifier::new(Arc::new(StandardGrader)).run(env).unwrap();
    Gate::NoLeakage.result_in(&results).unwrap().clone()
}

#[test]
fn no_leakage_passes_a_synthesized_image_environment_and_fails_crafted_ones() {
    let env = DnaSynthesizer::default().synthesize_env(&image_dna(1), "tiny-images", 5).unwrap();
    let ok = no_leakage(&env);
    assert!(ok.passed, "{}", ok.detail);
    assert_eq!(ok.figures["duplicate_test_rows"], 0.0);
    assert!(ok.figures["image_size_association"] <= 0.5 + 1e-9);
    assert_eq!(ok.figures["image_chunks_association"], 0.0);

    // A test image that repeats a training image.
    let mut dup = env.clone();
    let (train_id, test_id) = (ids(&env.train)[0].clone(), ids(&env.test)[0].clone());
    let bytes = env.images.get(&format!("{train_id}.png")).unwrap().to_vec();
    dup.images.insert(format!("{test_id}.png"), bytes).unwrap();
    let r = no_leakage(&dup);
    assert!(!r.passed && r.figures["duplicate_test_rows"] == 1.0, "{}", r.detail);

    // A text chunk on the positive class's files: size and chunk types leak.
    let mut tagged = env.clone();
    let target = &env.task().target_columns[0];
    let labels = env.train.column(target).unwrap().label_texts();
    for (id, label) in ids(&env.train).iter().zip(&labels) {
        if label == "1" {
            let name = format!("{id}.png");
            let png = env.images.get(&name).unwrap();
            tagged.images.insert(name, with_text_chunk(png)).unwrap();
        }
    }
    let r = no_leakage(&tagged);
    assert!(!r.passed, "{}", r.detail);
    assert!(r.figures["image_size_association"] > 0.995, "{}", r.detail);
    assert!(r.figures["image_chunks_association"] > 0.995, "{}", r.detail);
}

/// The PNG with a `tEXt` chunk before `IEND` (the CRC is not checked by
/// the gate).
fn with_text_chunk(png: &[u8]) -> Vec<u8> {
    let iend = png.len() - 12;
    let mut out = png[..iend].to_vec();
    let text = b"Comment\0label";
    out.extend((text.len() as u32).to_be_bytes());
    out.extend(b"tEXt");
    out.extend(text);
    out.extend([0, 0, 0, 0]);
    out.extend(&png[iend..]);
    out
}
