//! The stratified shrinker on every bundled real seed, and its properties.

mod common;

use common::{TABLE_SEEDS as SEEDS, seed};

use proptest::prelude::*;
use sandmle_core::{Environment, SubmissionForm, WriteOptions};
use sandmle_synth::{StratifiedShrinker, test_rows_for};
use std::collections::{BTreeMap, BTreeSet};
use std::sync::OnceLock;

fn small_seeds() -> &'static BTreeMap<&'static str, Environment> {
    static CACHE: OnceLock<BTreeMap<&'static str, Environment>> = OnceLock::new();
    CACHE.get_or_init(|| ["breast_cancer", "default", "wine", "diabetes"].into_iter().map(|n| (n, seed(n))).collect())
}

fn classes(env: &Environment, table: &sandmle_core::Table) -> BTreeMap<String, usize> {
    let target = &env.task().target_columns[0];
    let c = table.column(target).unwrap();
    let mut m = BTreeMap::new();
    for i in 0..c.len() {
        *m.entry(c.get_str(i).unwrap().into_owned()).or_insert(0) += 1;
    }
    m
}

/// Every class with at least `k` seed rows shows in both splits; the
/// answers carry every test row's class.
fn check_coverage(seed_env: &Environment, micro: &Environment, k: usize) {
    if seed_env.task().submission_form() == SubmissionForm::Value {
        return;
    }
    let seed_classes = classes(seed_env, &seed_env.train);
    let train_classes = classes(micro, &micro.train);
    for (c, n) in &seed_classes {
        if *n >= k {
            assert!(train_classes.contains_key(c), "class {c} missing from train");
        }
    }
    // Test classes live in the answers (one-hot for class probabilities).
    let answers = &micro.answers;
    for (c, n) in &seed_classes {
        if *n < k {
            continue;
        }
        let present = match answers.column(c) {
            Ok(onehot) => onehot.as_numeric().unwrap().contains(&1.0),
            Err(_) => {
                let col = answers.column(&micro.task().prediction_columns[0]).unwrap();
                (0..col.len()).any(|i| col.get_str(i).unwrap() == c.as_str())
            }
        };
        assert!(present, "class {c} missing from test");
    }
}

#[test]
fn every_real_seed_shrinks_within_bounds() {
    for name in SEEDS {
        let s = seed(name);
        let micro = StratifiedShrinker::default().shrink_env(&s, 11).unwrap_or_else(|e| panic!("{name}: {e}"));
        let pool = s.train.n_rows();
        let train_rows = 200.min((pool / 2).max(50));
        assert_eq!(micro.train.n_rows(), train_rows, "{name}");
        assert!((50..=200).contains(&train_rows));
        let shares: Vec<f64> = classes(&s, &s.train).values().map(|&c| c as f64 / pool as f64).collect();
        let expected_test = test_rows_for(s.task().submission_form(), &shares, pool - train_rows);
        // Rows repeating a training row's features are skipped: a few short.
        assert!(micro.test.n_rows() <= expected_test && micro.test.n_rows() * 10 >= expected_test * 9, "{name}");
        check_coverage(&s, &micro, 5);
        // Same columns as the seed; ids re-keyed to a permutation of 0..n.
        assert_eq!(micro.train.names(), s.train.names(), "{name}");
        let ids: BTreeSet<usize> = [&micro.train, &micro.test]
            .iter()
            .flat_map(|t| {
                let c = t.column("id").unwrap();
                (0..c.len()).map(|i| c.get_str(i).unwrap().parse::<usize>().unwrap()).collect::<Vec<_>>()
            })
            .collect();
        assert_eq!(ids, (0..micro.train.n_rows() + micro.test.n_rows()).collect(), "{name}");
        // Test targets are only in the answers.
        for t in &micro.task().target_columns {
            assert!(!micro.test.has_column(t), "{name}: test.csv holds the target");
        }
        micro.validate().unwrap();
    }
}

#[test]
fn no_test_row_repeats_a_training_row() {
    // sms_spam holds the same message many times.
    let s = seed("sms_spam");
    let micro = StratifiedShrinker::default().shrink_env(&s, 4).unwrap();
    let text = |t: &sandmle_core::Table| -> BTreeSet<String> {
        let c = t.column("text").unwrap();
        (0..c.len()).filter_map(|i| c.get_str(i).map(|s| s.into_owned())).collect()
    };
    assert!(text(&micro.train).is_disjoint(&text(&micro.test)));
}

#[test]
fn the_test_size_rule() {
    assert_eq!(test_rows_for(SubmissionForm::Value, &[], 10_000), 400);
    assert_eq!(test_rows_for(SubmissionForm::Probability, &[0.5, 0.5], 10_000), 400);
    // Default: 3.3% positives -> ceil(80 / 0.0333) = 2403 rows.
    assert_eq!(test_rows_for(SubmissionForm::Probability, &[0.9667, 0.0333], 10_000), 2403);
    assert_eq!(test_rows_for(SubmissionForm::Probability, &[0.999, 0.001], 100_000), 4000);
    assert_eq!(test_rows_for(SubmissionForm::Label, &[0.99, 0.01], 300), 300);
}

#[test]
fn missing_rates_stay_within_tolerance() {
    // The synthetic tiny seed has missing values; make a larger one by
    // repetition with fresh ids.
    let s = small_seeds()["breast_cancer"].clone();
    let mut env = s.clone();
    let x = env.train.column("mean_radius").unwrap().as_numeric().unwrap().to_vec();
    let with_gaps: Vec<f64> = x.iter().enumerate().map(|(i, &v)| if i % 5 == 0 { f64::NAN } else { v }).collect();
    env.train.set_column("mean_radius", sandmle_core::Column::Numeric(with_gaps)).unwrap();
    let micro = StratifiedShrinker::default().shrink_env(&env, 3).unwrap();
    let rate = micro.train.column("mean_radius").unwrap().missing_count() as f64 / micro.train.n_rows() as f64;
    let tol = (3.0f64 * (0.2 * 0.8 / 200.0f64).sqrt()).max(0.05);
    assert!((rate - 0.2).abs() <= tol, "missing rate {rate}");
}

#[test]
fn bad_settings_are_typed_errors() {
    let s = &small_seeds()["wine"];
    for rows in [10, 49, 201] {
        let r = StratifiedShrinker { train_rows: rows, ..StratifiedShrinker::default() }.shrink_env(s, 0);
        assert!(matches!(r, Err(sandmle_synth::Error::BadSetting { .. })), "{rows}");
    }
    // wine has 142 training rows: half of them train the micro task.
    let micro = StratifiedShrinker::default().shrink_env(s, 0).unwrap();
    assert_eq!((micro.train.n_rows(), micro.test.n_rows()), (71, 71));
    let mut tiny = s.clone();
    tiny.train = tiny.train.take(&(0..99).collect::<Vec<_>>()).unwrap();
    let r = StratifiedShrinker::default().shrink_env(&tiny, 0);
    assert!(matches!(r, Err(sandmle_synth::Error::TooFewRows { needed: 100, available: 99 })));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn sizes_coverage_determinism_and_no_answers_in_public(
        seed in any::<u64>(),
        rows in 50usize..=200,
        which in prop::sample::select(vec!["breast_cancer", "default", "diabetes"]),
    ) {
        let s = &small_seeds()[which];
        let shrinker = StratifiedShrinker { train_rows: rows, ..StratifiedShrinker::default() };
        let a = shrinker.shrink_env(s, seed).unwrap();
        // Half the seed at most (diabetes has 354 training rows).
        prop_assert_eq!(a.train.n_rows(), rows.min((s.train.n_rows() / 2).max(50)));
        // The test-size rule, never more than the rows left; a few short at most
        // where rows repeat a training row's features.
        let left = s.train.n_rows() - a.train.n_rows();
        prop_assert!(a.test.n_rows() <= left.min(4000));
        prop_assert!(a.test.n_rows() * 10 >= 400.min(left) * 9, "{} test rows of {left}", a.test.n_rows());
        check_coverage(s, &a, 5);
        let b = shrinker.shrink_env(s, seed).unwrap();
        prop_assert_eq!(a.render(&WriteOptions::default()).unwrap(), b.render(&WriteOptions::default()).unwrap());
        // No public file holds the answers: the answers' file bytes are in
        // private/ only, and no public table carries an answer column.
        for (path, bytes) in a.render(&WriteOptions::default()).unwrap() {
            if path.contains("/public/") {
                let text = String::from_utf8(bytes).unwrap();
                prop_assert!(!text.contains("hidden_rule"));
                if path.ends_with("test.csv") {
                    for t in &a.task().target_columns {
                        prop_assert!(!text.lines().next().unwrap().split(',').any(|h| h == t));
                    }
                }
            }
        }
    }
}

/// A task of items (`group_column`) keeps every item whole: each kept
/// item has all its seed rows, in one split only.
#[test]
fn items_are_kept_whole_and_in_one_split() {
    let mut env = seed("wine");
    let n = env.train.n_rows();
    let batch = |rows: usize| sandmle_core::Column::Numeric((0..rows).map(|r| (r / 7) as f64).collect());
    env.train.push_column("batch", batch(n)).unwrap();
    env.test.push_column("batch", batch(env.test.n_rows())).unwrap();
    env.grading.task.group_column = Some("batch".into());
    env.validate().unwrap();
    let seed_sizes = {
        let mut m: BTreeMap<String, usize> = BTreeMap::new();
        for b in env.train.column("batch").unwrap().label_texts() {
            *m.entry(b).or_default() += 1;
        }
        m
    };
    let micro = StratifiedShrinker { train_rows: 60, ..StratifiedShrinker::default() }.shrink_env(&env, 4).unwrap();
    assert_eq!(micro.task().group_column.as_deref(), Some("batch"));
    let count = |t: &sandmle_core::Table| {
        let mut m: BTreeMap<String, usize> = BTreeMap::new();
        for b in t.column("batch").unwrap().label_texts() {
            *m.entry(b).or_default() += 1;
        }
        m
    };
    let (train, test) = (count(&micro.train), count(&micro.test));
    assert!(micro.train.n_rows() <= 60 && micro.train.n_rows() >= 50, "{}", micro.train.n_rows());
    for (b, k) in train.iter().chain(&test) {
        assert_eq!(seed_sizes[b], *k, "item {b} is cut");
    }
    let shared: BTreeSet<&String> = train.keys().filter(|b| test.contains_key(*b)).collect();
    assert!(shared.is_empty(), "items in both splits: {shared:?}");
}

/// A seed whose rows all repeat a few feature rows leaves nothing for the
/// test split: a typed error saying so, not an invalid environment.
#[test]
fn a_seed_of_repeated_rows_is_refused_by_name() {
    let mut env = seed("wine");
    let n = env.train.n_rows();
    let target = env.task().target_columns[0].clone();
    let labels = env.train.column(&target).unwrap().clone();
    let ids = env.train.column("id").unwrap().clone();
    env.train = env.train.take(&vec![0; n]).unwrap();
    env.train.set_column("id", ids).unwrap();
    env.train.set_column(&target, labels).unwrap();
    let e = StratifiedShrinker::default().shrink_env(&env, 1).unwrap_err();
    assert!(e.to_string().contains("repeat a training row"), "{e}");
}

/// A seed of more than ten classes shrinks to its ten most frequent, their
/// rows alone, said in the provenance and the description.
#[test]
fn a_many_class_seed_keeps_its_ten_most_frequent_classes() {
    let mut env = seed("digits");
    let target = env.task().target_columns[0].clone();
    let n = env.train.n_rows();
    // 14 classes: even rows spread over all, odd rows over the first five.
    let labels: Vec<f64> = (0..n).map(|i| if i % 2 == 0 { (i / 2 % 14) as f64 } else { (i / 2 % 5) as f64 }).collect();
    env.train.set_column(&target, sandmle_core::Column::Numeric(labels.clone())).unwrap();
    let micro = StratifiedShrinker::default().shrink_env(&env, 3).unwrap();
    // Ties between the less frequent classes go to the earlier label text.
    let mut counts = BTreeMap::<String, usize>::new();
    for l in &labels {
        *counts.entry((*l as u64).to_string()).or_default() += 1;
    }
    let mut ranked: Vec<(String, usize)> = counts.into_iter().collect();
    ranked.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    let mut top: Vec<String> = ranked[..10].iter().map(|(l, _)| l.clone()).collect();
    top.sort();
    let kept: Vec<String> = serde_json::from_value(micro.provenance.details["kept_classes"].clone()).unwrap();
    assert_eq!(kept, top);
    for t in [&micro.train, &micro.answers] {
        let seen: BTreeSet<String> = t.column(&target).unwrap().label_texts().into_iter().collect();
        assert!(seen.iter().all(|l| kept.contains(l)), "{seen:?}");
    }
    assert!(micro.description.contains("10 most frequent classes"));
}
