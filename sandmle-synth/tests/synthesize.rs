//! Synthesis from the DNA of every bundled real seed.

mod common;

use common::{TABLE_SEEDS as SEEDS, seed};
use sandmle_core::PlanRequest;
use sandmle_core::{FeatureDna, TargetDna, WriteOptions};
use sandmle_synth::{DnaSynthesizer, extract_dna};
use std::collections::BTreeSet;

#[test]
fn every_seed_dna_yields_a_valid_environment_of_its_shape() {
    for name in SEEDS {
        let s = seed(name);
        let dna = extract_dna(&s).unwrap();
        // The DNA is stripped of names: no column name of the seed in it.
        let json = serde_json::to_string(&dna).unwrap();
        // (Column names that are also DNA words, like a column called
        // `text`, are skipped.)
        let dna_words = ["text", "numeric", "categorical", "classes", "continuous", "shape", "type"];
        for col in s.train.names().iter().filter(|c| c.len() > 3 && !dna_words.contains(&c.as_str())) {
            assert!(!json.contains(&format!("\"{col}\"")), "{name}: DNA names column {col}");
        }
        let synth = DnaSynthesizer { mutate: false, ..DnaSynthesizer::default() };
        let env = synth.synthesize_env(&dna, &s.task().id, 5).unwrap_or_else(|e| panic!("{name}: {e}"));
        env.validate().unwrap();
        assert_eq!(env.train.n_rows(), 200);
        assert_eq!(env.task().metric, s.task().metric);
        assert_eq!(env.task().kind, s.task().kind);
        let micro = extract_dna(&env).unwrap();
        // Without mutations: the same feature types in the same order.
        let types = |d: &sandmle_core::TaskDna| d.features.iter().map(FeatureDna::column_type).collect::<Vec<_>>();
        assert_eq!(types(&micro), types(&dna), "{name}");
        // Class balance within sampling error of the seed's: four standard
        // errors of a share on 200 rows, plus a point. The shares are
        // compared in size order: the re-homed classes' names, which order
        // the environment's DNA, need not sort as the seed's do.
        if let (TargetDna::Classes { shares: a, .. }, TargetDna::Classes { shares: b, .. }) =
            (&dna.targets[0], &micro.targets[0])
        {
            assert_eq!(a.len(), b.len(), "{name}: class count");
            let sorted = |v: &[f64]| {
                let mut v = v.to_vec();
                v.sort_by(f64::total_cmp);
                v
            };
            let (mut a, b) = (sorted(a), sorted(b));
            // Of two classes, the rarer takes at least MIN_CLASS_SHARE.
            if a.len() == 2 && a[0] < sandmle_synth::MIN_CLASS_SHARE {
                a = vec![sandmle_synth::MIN_CLASS_SHARE, 1.0 - sandmle_synth::MIN_CLASS_SHARE];
            }
            for (x, y) in a.iter().zip(&b) {
                let tolerance = 4.0 * (x * (1.0 - x) / 200.0).sqrt() + 0.01;
                assert!((x - y).abs() < tolerance, "{name}: shares {a:?} vs {b:?}");
            }
        }
        // Numeric marginals keep their shape: the median's place between
        // the minimum and the maximum is the seed's (values are mapped into
        // their column's unit range by an increasing affine map). A seed
        // column whose quantiles tie (a flag, a small count, mostly zeros)
        // would pile rows on one value, and takes a smooth shape instead.
        let smooth = |s: &sandmle_core::NumericShape| {
            s.distinct >= 50 && s.quantiles.windows(2).all(|w| w[0] < w[1]) && s.min < s.quantiles[0]
        };
        for (f, g) in dna.features.iter().zip(&micro.features) {
            if let (FeatureDna::Numeric { shape: a, .. }, FeatureDna::Numeric { shape: b, .. }) = (f, g)
                && smooth(a)
            {
                let place = |s: &sandmle_core::NumericShape| {
                    if s.max > s.min { (s.quantiles[2] - s.min) / (s.max - s.min) } else { 0.5 }
                };
                let spread = (a.quantiles[3] - a.quantiles[1]).max(a.sd) / (a.max - a.min).max(1e-9);
                assert!(
                    (place(a) - place(b)).abs() <= 0.5 * spread + 0.05,
                    "{name}: median at {} vs {} of the range",
                    place(a),
                    place(b)
                );
            }
        }
        // Every column with a unit lies within its plausible range.
        for (col, values) in env.train.iter().filter_map(|(n, c)| c.as_numeric().map(|v| (n, v))) {
            if let Some((_, lo, hi)) = sandmle_synth::unit_range(col) {
                assert!(values.iter().filter(|v| v.is_finite()).all(|v| (lo..=hi).contains(v)), "{name}: {col}");
            }
        }
        // Column names are distinct identifiers, qualified rather than
        // numbered when a lexicon list runs out.
        let names = env.train.names();
        let distinct: BTreeSet<&String> = names.iter().collect();
        assert_eq!(distinct.len(), names.len(), "{name}: {names:?}");
        for n in names.iter().filter(|n| !n.starts_with("px_")) {
            assert!(!n.rsplit('_').next().is_some_and(|t| t.chars().all(|c| c.is_ascii_digit())), "{name}: {n}");
        }
    }
}

#[test]
fn same_dna_and_seed_give_the_same_bytes_and_seeds_vary_the_dress() {
    let s = seed("breast_cancer");
    let dna = extract_dna(&s).unwrap();
    let synth = DnaSynthesizer::default();
    let render = |seed: u64| {
        synth.synthesize_env(&dna, "breast_cancer", seed).unwrap().render(&WriteOptions::default()).unwrap()
    };
    assert_eq!(render(3), render(3));
    let domains: BTreeSet<String> = (0..12)
        .map(|seed| {
            synth.synthesize_env(&dna, "breast_cancer", seed).unwrap().provenance.details["plan"]["domain"].to_string()
        })
        .collect();
    assert!(domains.len() >= 3, "{domains:?}");
}

/// The candidates of one seed spread over the domains: ten candidates of
/// every bundled seed see at least six of the eight.
#[test]
fn ten_candidates_of_a_seed_see_at_least_six_domains() {
    let synth = DnaSynthesizer::default();
    for name in ["breast_cancer", "wine", "diabetes", "sms_spam", "oj"] {
        let dna = extract_dna(&seed(name)).unwrap();
        let domains: BTreeSet<String> = (0..10)
            .map(|index| {
                let request = PlanRequest { seed_task: name.into(), run_seed: 2026, index, attempt: 0, modality: None };
                synth.plan(&dna, &request).unwrap().domain
            })
            .collect();
        assert!(domains.len() >= 6, "{name}: {domains:?}");
    }
}

#[test]
fn plans_that_cannot_be_realised_are_typed_errors() {
    let synth = DnaSynthesizer::default();
    let dna = extract_dna(&seed("wine")).unwrap();
    let request = PlanRequest { seed_task: "wine".into(), run_seed: 1, index: 0, attempt: 0, modality: None };
    let plan = synth.plan(&dna, &request).unwrap();
    let mut twice = plan.clone();
    twice.features[1].name = twice.features[0].name.clone();
    let mut family = plan.clone();
    family.rule_family = "astrology".into();
    let mut spaced = plan.clone();
    spaced.targets[0] = "Cultivar Class".into();
    for bad in [twice, family, spaced] {
        assert!(matches!(synth.realize(&bad), Err(sandmle_synth::Error::BadPlan { .. })));
    }
    assert!(synth.realize(&plan).is_ok());
}

#[test]
fn the_hidden_rule_is_only_in_private_provenance() {
    let s = seed("wage");
    let env = DnaSynthesizer::default().synthesize_env(&extract_dna(&s).unwrap(), "wage", 9).unwrap();
    let rule = env.provenance.hidden_rule.clone().unwrap();
    let family = rule["targets"][0]["rule"]["family"].as_str().unwrap().to_owned();
    for (path, bytes) in env.render(&WriteOptions::default()).unwrap() {
        let text = String::from_utf8(bytes).unwrap();
        if path.contains("/public/") {
            assert!(!text.contains(&family) && !text.contains("hidden_rule") && !text.contains("noise_sd"), "{path}");
        } else if path.ends_with("provenance.json") {
            assert!(text.contains("hidden_rule") && text.contains(&family));
        }
    }
}

#[test]
fn bad_settings_are_typed_errors() {
    let dna = sandmle_core::testing::tiny_dna();
    for synth in [
        DnaSynthesizer { train_rows: 20, ..DnaSynthesizer::default() },
        DnaSynthesizer { difficulty: 1.5, ..DnaSynthesizer::default() },
    ] {
        assert!(matches!(synth.synthesize_env(&dna, "tiny", 0), Err(sandmle_synth::Error::BadSetting { .. })));
    }
    let mut one_class = dna.clone();
    one_class.targets = vec![TargetDna::Classes { shares: vec![1.0], numeric_labels: true }];
    assert!(matches!(
        DnaSynthesizer::default().synthesize_env(&one_class, "tiny", 0),
        Err(sandmle_synth::Error::Unsupported { .. })
    ));
}

mod properties {
    use proptest::prelude::*;
    use sandmle_core::{TargetDna, WriteOptions};
    use sandmle_synth::{DnaSynthesizer, extract_dna, test_rows_for};
    use std::sync::OnceLock;

    fn dnas() -> &'static Vec<sandmle_core::TaskDna> {
        static DNAS: OnceLock<Vec<sandmle_core::TaskDna>> = OnceLock::new();
        DNAS.get_or_init(|| ["oj", "wine", "diabetes"].iter().map(|n| extract_dna(&super::seed(n)).unwrap()).collect())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(24))]

        #[test]
        fn sizes_classes_determinism_and_private_answers(
            seed in any::<u64>(),
            rows in 50usize..=200,
            difficulty in 0.0f64..=1.0,
            which in 0usize..3,
        ) {
            let dna = &dnas()[which];
            let synth = DnaSynthesizer { train_rows: rows, difficulty, mutate: true };
            let env = synth.synthesize_env(dna, "prop", seed).unwrap();
            let form = env.task().submission_form();
            let shares = match &dna.targets[0] {
                TargetDna::Classes { shares, .. } => shares.clone(),
                TargetDna::Continuous { .. } => vec![],
            };
            prop_assert_eq!(env.train.n_rows(), rows);
            // Test rows repeating a training row's features are skipped.
            let wanted = test_rows_for(form, &shares, usize::MAX);
            prop_assert!(env.test.n_rows() <= wanted && env.test.n_rows() * 10 >= wanted * 9);
            // Every class of the DNA appears in training.
            if !shares.is_empty() {
                let t = env.train.column(&env.task().target_columns[0]).unwrap();
                let distinct: std::collections::BTreeSet<String> = (0..t.len()).map(|i| t.get_str(i).unwrap().into_owned()).collect();
                prop_assert_eq!(distinct.len(), shares.len());
            }
            let files = env.render(&WriteOptions::default()).unwrap();
            prop_assert_eq!(&files, &synth.synthesize_env(dna, "prop", seed).unwrap().render(&WriteOptions::default()).unwrap());
            for (path, bytes) in &files {
                if path.contains("/public/") {
                    let text = String::from_utf8_lossy(bytes);
                    prop_assert!(!text.contains("hidden_rule"));
                    if path.ends_with("test.csv") {
                        let header = text.lines().next().unwrap_or_default().to_owned();
                        for t in &env.task().target_columns {
                            prop_assert!(!header.split(',').any(|h| h == t));
                        }
                    }
                }
            }
        }
    }
}

#[test]
fn features_too_coarse_to_hold_out_test_rows_are_refused() {
    // One two-level category: every test row would repeat a training row.
    let mut dna = sandmle_core::testing::tiny_dna();
    dna.features.retain(|f| matches!(f, FeatureDna::Categorical { .. }));
    let r = DnaSynthesizer { mutate: false, ..DnaSynthesizer::default() }.synthesize_env(&dna, "coarse", 1);
    assert!(
        matches!(r, Err(sandmle_synth::Error::Unsupported { ref reason }) if reason.contains("too coarse")),
        "{r:?}"
    );
}

/// The regression test of an empty class: wine's three classes at
/// difficulty 0, where two rules moved together and the labelling swung
/// every row between two classes, left `band_1` with no row.
#[test]
fn a_noise_free_three_class_task_labels_every_class() {
    let dna = extract_dna(&seed("wine")).unwrap();
    let synth = DnaSynthesizer { train_rows: 50, difficulty: 0.0, mutate: true };
    let env = synth.synthesize_env(&dna, "prop", 1090549613359833641).unwrap();
    let t = env.train.column(&env.task().target_columns[0]).unwrap();
    let distinct: std::collections::BTreeSet<String> =
        (0..t.len()).map(|i| t.get_str(i).unwrap().into_owned()).collect();
    assert_eq!(distinct.len(), 3, "{distinct:?}");
}
