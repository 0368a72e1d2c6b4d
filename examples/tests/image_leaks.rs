//! Leak test of image environments: a model that sees only what an image
//! file says besides its pixels — its name (the row id), its size and its
//! PNG metadata (width, height, colour type, the list of chunks) — scores no
//! better than the constant baseline, on the real image seed's micro
//! environment and on environments synthesized from its DNA. Sizes and
//! metadata must be the same for every file; the file names (the ids) must
//! not lift the baseline panel's best score above what the same panel
//! reaches with the training labels shuffled (the best of five shuffles,
//! and never less than the constant baseline), plus one standard deviation.

use sandmle_core::{Column, Environment, ImageSet, Modality, Shrinker, Synthesizer, Table};
use sandmle_exec::Panel;
use sandmle_metrics::StandardGrader;

/// The chunk types of a PNG file, in order, and its IHDR fields.
fn png_metadata(bytes: &[u8]) -> (String, [f64; 4]) {
    let (mut pos, mut chunks, mut ihdr) = (8usize, Vec::new(), [0.0; 4]);
    while pos + 8 <= bytes.len() {
        let n = u32::from_be_bytes(bytes[pos..pos + 4].try_into().unwrap()) as usize;
        let kind = String::from_utf8_lossy(&bytes[pos + 4..pos + 8]).into_owned();
        if kind == "IHDR" {
            let b = &bytes[pos + 8..pos + 8 + n];
            let be = |i: usize| f64::from(u32::from_be_bytes(b[i..i + 4].try_into().unwrap()));
            ihdr = [be(0), be(4), f64::from(b[8]), f64::from(b[9])];
        }
        chunks.push(kind);
        pos += 12 + n;
    }
    (chunks.join("-"), ihdr)
}

/// The same task with the images replaced by their metadata columns.
fn metadata_only(env: &Environment) -> Environment {
    let task = env.task();
    let spec = task.images.clone().expect("an image task");
    let with_metadata = |t: &Table| -> Table {
        let ids = t.column(&task.id_column).unwrap();
        let (mut name, mut size, mut chunks, mut ihdr) = (Vec::new(), Vec::new(), Vec::new(), vec![Vec::new(); 4]);
        for r in 0..t.n_rows() {
            let id = ids.get_str(r).unwrap().into_owned();
            let bytes = env.images.get(&spec.file_name(&id)).unwrap();
            name.push(id.parse::<f64>().unwrap_or_else(|_| id.bytes().map(f64::from).sum()));
            size.push(bytes.len() as f64);
            let (c, h) = png_metadata(bytes);
            chunks.push(Some(c));
            for (k, v) in h.into_iter().enumerate() {
                ihdr[k].push(v);
            }
        }
        let mut out = t.clone();
        out.set_column("file_name_number", Column::Numeric(name)).unwrap();
        out.set_column("file_size", Column::Numeric(size)).unwrap();
        out.set_column("png_chunks", Column::categorical(chunks.iter().map(|c| c.as_deref()))).unwrap();
        for (k, name) in ["png_width", "png_height", "png_bit_depth", "png_colour_type"].iter().enumerate() {
            out.set_column(name, Column::Numeric(ihdr[k].clone())).unwrap();
        }
        out
    };
    let mut leak = env.clone();
    leak.train = with_metadata(&env.train);
    leak.test = with_metadata(&env.test);
    leak.grading.task.images = None;
    leak.grading.task.modality = Modality::Tabular;
    leak.images = ImageSet::new();
    leak.validate().unwrap();
    leak
}

/// The best panel score on `env` with its training labels shuffled: what
/// the same models reach when the features can hold no information.
fn best_without_information(env: &Environment, shuffle_seed: u64) -> f64 {
    let mut null = env.clone();
    let label = &env.task().target_columns[0];
    let mut order: Vec<usize> = (0..env.train.n_rows()).collect();
    order.sort_by_key(|i| sandmle_core::sha256_hex(format!("{shuffle_seed}-{i}").as_bytes()));
    let shuffled = env.train.select(std::slice::from_ref(label)).unwrap().take(&order).unwrap();
    null.train.set_column(label, shuffled.column(label).unwrap().clone()).unwrap();
    let report = Panel::default().run(&null, &StandardGrader).unwrap();
    report.leaderboard.entries[0].score
}

/// One standard deviation of an accuracy near `p` on the test rows.
fn accuracy_sd(env: &Environment, p: f64) -> f64 {
    (p * (1.0 - p) / env.answers.n_rows() as f64).sqrt()
}

fn assert_no_metadata_leak(env: &Environment, what: &str) {
    let leak = metadata_only(env);
    for column in ["file_size", "png_chunks", "png_width", "png_height", "png_bit_depth", "png_colour_type"] {
        let c = leak.train.column(column).unwrap();
        let first = c.get_str(0);
        assert!((0..c.len()).all(|i| c.get_str(i) == first), "{what}: `{column}` varies between files");
    }
    let report = Panel::default().run(&leak, &StandardGrader).unwrap();
    let prior = report.entries.iter().find(|e| e.name == "prior").and_then(|e| e.score).unwrap();
    let best = &report.leaderboard.entries[0];
    // The same panel with the labels shuffled (no feature can carry them)
    // sets how high a best-of-panel score goes by chance.
    let null = (0..5).map(|s| best_without_information(&leak, s)).fold(prior, f64::max);
    let allowed = null + accuracy_sd(env, null);
    assert!(
        best.score <= allowed,
        "{what}: {} on file names, sizes and PNG metadata scores {}, above {allowed:.5} (constant {prior}, \
         best with shuffled labels {null})",
        best.name,
        best.score
    );
}

fn seed() -> Environment {
    Environment::read(sandmle::repository_seeds().join("digits_png")).unwrap()
}

#[test]
fn the_real_image_seeds_micro_environments_leak_nothing_through_file_metadata() {
    let seed = seed();
    for s in 0..3 {
        let micro = sandmle_synth::StratifiedShrinker::default().shrink(&seed, s).unwrap();
        assert_eq!(micro.images.len(), micro.train.n_rows() + micro.test.n_rows());
        assert_no_metadata_leak(&micro, &format!("digits_png shrunk with seed {s}"));
    }
}

#[test]
fn synthesized_image_environments_leak_nothing_through_file_metadata() {
    let synth = sandmle_synth::DnaSynthesizer::default();
    let dna = synth.extract_dna(&seed()).unwrap();
    assert!(dna.images.is_some(), "the seed's DNA records its images");
    for s in 0..3 {
        let env = synth.synthesize_env(&dna, "digits_png", s).unwrap();
        assert!(env.task().images.is_some() && !env.images.is_empty(), "an image environment");
        assert_no_metadata_leak(&env, &format!("synthesized from digits_png with seed {s}"));
    }
}

#[test]
fn the_check_catches_file_sizes_that_follow_the_label() {
    let mut micro = sandmle_synth::StratifiedShrinker::default().shrink(&seed(), 0).unwrap();
    let task = micro.task().clone();
    let spec = task.images.clone().unwrap();
    let mut padded = ImageSet::new();
    for t in [&micro.train, &micro.answers] {
        let (ids, labels) = (t.column(&task.id_column).unwrap(), t.column("label").unwrap());
        for r in 0..t.n_rows() {
            let name = spec.file_name(&ids.get_str(r).unwrap());
            let mut bytes = micro.images.get(&name).unwrap().to_vec();
            let label = labels.get_str(r).unwrap().parse::<f64>().unwrap() as usize;
            bytes.extend(std::iter::repeat_n(0u8, label));
            padded.insert(name, bytes).unwrap();
        }
    }
    micro.images = padded;
    let caught = std::panic::catch_unwind(|| assert_no_metadata_leak(&micro, "padded by label"));
    assert!(caught.is_err(), "a file size equal to the label must be caught");
}
