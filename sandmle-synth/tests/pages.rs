//! Page restoration: DNA from a per-pixel seed, synthesis of page tasks,
//! their determinism, and a panel that learns to clean the scans.

use sandmle_core::pixel_rows::{COL, ITEM, PIXEL, ROW, pixel_id, split_pixel_id};
use sandmle_core::{
    BaselinePanel, Column, Environment, GradingSpec, ImageSet, MetricSpec, Modality, Provenance, Table, TaskKind,
    TaskSpec,
};
use sandmle_synth::{DnaSynthesizer, extract_dna};

/// Pixel rows of `pages` images of 20 x 12: ink where `(r + c) % 5 == 0`,
/// the scan darker and uneven.
fn pixel_rows(pages: std::ops::Range<usize>, with_value: bool) -> Table {
    let (mut id, mut item, mut row, mut col, mut pixel, mut value) = (vec![], vec![], vec![], vec![], vec![], vec![]);
    for p in pages {
        for r in 1..=12usize {
            for c in 1..=20usize {
                let clean = if (r + c) % 5 == 0 { 0.1 } else { 1.0 };
                id.push(Some(pixel_id(&format!("{}", 100 + p), r, c).into()));
                item.push(Some(format!("{}", 100 + p).into()));
                row.push(r as f64);
                col.push(c as f64);
                pixel.push(clean * 0.85 + 0.05 * ((r * c) % 3) as f64);
                value.push(clean);
            }
        }
    }
    let mut t = Table::from_columns([
        ("id".to_owned(), Column::Text(id)),
        (ITEM.to_owned(), Column::Text(item)),
        (ROW.to_owned(), Column::Numeric(row)),
        (COL.to_owned(), Column::Numeric(col)),
        (PIXEL.to_owned(), Column::Numeric(pixel)),
    ])
    .unwrap();
    if with_value {
        t.push_column("value", Column::Numeric(value)).unwrap();
    }
    t
}

fn pixel_seed() -> Environment {
    let train = pixel_rows(0..3, true);
    let labelled = pixel_rows(3..4, true);
    let test = labelled.without(&["value"]);
    let answers = labelled.select(&["id", "value"]).unwrap();
    let mut sample = answers.clone();
    sample.set_column("value", Column::Numeric(vec![1.0; answers.n_rows()])).unwrap();
    let task = TaskSpec {
        id: "pages".into(),
        modality: Modality::Image,
        kind: TaskKind::Regression,
        id_column: "id".into(),
        target_columns: vec!["value".into()],
        prediction_columns: vec!["value".into()],
        metric: MetricSpec::named("rmse"),
        direction: sandmle_core::Direction::LowerIsBetter,
        images: None,
        train_only_columns: Vec::new(),
        group_column: Some(ITEM.into()),
    };
    let env = Environment {
        description: "# Pages\n".into(),
        train,
        test,
        sample_submission: sample,
        answers,
        grading: GradingSpec::new(task),
        leaderboard: None,
        provenance: Provenance::new("pages", "test", "1", 0),
        images: ImageSet::new(),
    };
    env.validate().unwrap();
    env
}

#[test]
fn pixel_dna_is_read_from_the_rows() {
    let dna = extract_dna(&pixel_seed()).unwrap();
    let pixels = dna.pixels.unwrap();
    assert_eq!((pixels.width, pixels.height, pixels.train_images, pixels.test_images), (20, 12, 3, 1));
    assert!((pixels.mean_target - (0.1 * 48.0 + 192.0) / 240.0).abs() < 1e-12, "{}", pixels.mean_target);
    assert!(dna.images.is_none() && dna.audio.is_none());
}

#[test]
fn a_pixel_dna_synthesizes_whole_pages_deterministically() {
    let dna = extract_dna(&pixel_seed()).unwrap();
    let synth = DnaSynthesizer::default();
    let env = synth.synthesize_env(&dna, "pages", 3).unwrap();
    let task = env.task();
    assert_eq!(task.group_column.as_deref(), Some(ITEM));
    assert_eq!(task.kind, TaskKind::Regression);
    // Every row is the pixel its id names, and every page is whole: 32 x 24.
    for t in [&env.train, &env.test] {
        let ids = t.column("id").unwrap().label_texts();
        let items = t.column(ITEM).unwrap().label_texts();
        let rows = t.column(ROW).unwrap().to_f64_lenient().unwrap();
        let cols = t.column(COL).unwrap().to_f64_lenient().unwrap();
        let mut pages = std::collections::BTreeMap::<String, usize>::new();
        for i in 0..ids.len() {
            let (image, r, c) = split_pixel_id(&ids[i]).unwrap();
            assert_eq!((image, r as f64, c as f64), (items[i].as_str(), rows[i], cols[i]));
            *pages.entry(items[i].clone()).or_default() += 1;
        }
        assert!(pages.values().all(|&n| n == 32 * 24), "{pages:?}");
    }
    let values = env.train.column("value").unwrap().to_f64_lenient().unwrap();
    assert!(values.iter().all(|v| (0.0..=1.0).contains(v) && (v * 255.0 - (v * 255.0).round()).abs() < 1e-9));
    let paper = values.iter().filter(|&&v| v == 1.0).count() as f64 / values.len() as f64;
    assert!((0.5..0.97).contains(&paper), "white paper with ink on it: {paper}");
    let text = &env.description;
    assert!(text.contains("`pixel`") && !text.contains("noise_sd") && !text.contains("bleed"));
    assert_eq!(synth.synthesize_env(&dna, "pages", 3).unwrap(), env, "the same seed gives the same environment");
    let pool = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
    assert_eq!(pool.install(|| synth.synthesize_env(&dna, "pages", 3)).unwrap(), env, "and on one thread");
}

/// The scans carry the clean page: the panel's best member, on the pixel
/// rows alone, cuts the constant's RMSE by more than half.
#[test]
fn the_panel_learns_to_clean_a_synthesized_page() {
    let dna = extract_dna(&pixel_seed()).unwrap();
    let env = DnaSynthesizer::default().synthesize_env(&dna, "pages", 11).unwrap();
    let board = sandmle_exec::Panel::default().leaderboard(&env, &sandmle_metrics::StandardGrader).unwrap();
    let scores = board.scores();
    let best = scores.iter().copied().fold(f64::INFINITY, f64::min);
    let constant = board.entries.iter().find(|e| e.name == "mean").unwrap().score;
    assert!(best < 0.5 * constant, "best {best}, constant {constant}");
}
