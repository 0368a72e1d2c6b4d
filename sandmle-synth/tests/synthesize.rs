//! Synthesis from the DNA of every bundled real seed.

use sandmle_core::{Environment, FeatureDna, TargetDna, WriteOptions};
use sandmle_synth::{DnaSynthesizer, extract_dna};
use std::collections::BTreeSet;

fn seed(name: &str) -> Environment {
    Environment::read(format!("{}/../examples/seeds/{name}", env!("CARGO_MANIFEST_DIR"))).unwrap()
}

const SEEDS: [&str; 11] = [
    "bikeshare",
    "breast_cancer",
    "caravan",
    "default",
    "diabetes",
    "digits",
    "flights",
    "oj",
    "sms_spam",
    "wage",
    "wine",
];

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
        // Class balance within 5 points of the seed's.
        if let (TargetDna::Classes { shares: a, .. }, TargetDna::Classes { shares: b, .. }) =
            (&dna.targets[0], &micro.targets[0])
        {
            assert_eq!(a.len(), b.len(), "{name}: class count");
            for (x, y) in a.iter().zip(b) {
                assert!((x - y).abs() < 0.05, "{name}: shares {a:?} vs {b:?}");
            }
        }
        // Numeric marginals: medians near the seed's (relative to its spread).
        for (f, g) in dna.features.iter().zip(&micro.features) {
            if let (FeatureDna::Numeric { shape: a, .. }, FeatureDna::Numeric { shape: b, .. }) = (f, g) {
                let spread = (a.quantiles[3] - a.quantiles[1]).max(a.sd).max(1e-9);
                assert!(
                    (a.quantiles[2] - b.quantiles[2]).abs() <= 0.5 * spread + 1e-9,
                    "{name}: median {} vs {}",
                    a.quantiles[2],
                    b.quantiles[2]
                );
            }
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
        .map(|seed| synth.synthesize_env(&dna, "breast_cancer", seed).unwrap().provenance.details["domain"].to_string())
        .collect();
    assert!(domains.len() >= 3, "{domains:?}");
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
