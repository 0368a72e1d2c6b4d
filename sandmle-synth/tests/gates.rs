//! Every gate fails on a crafted bad environment (and passes on a good one).

use sandmle_core::{BaselinePanel, Column, Environment, GateResult, Grader, Leaderboard, LeaderboardEntry, calibrate};
use sandmle_metrics::StandardGrader;
use sandmle_synth::{Gate, GateVerifier, StratifiedShrinker};
use std::sync::Arc;

/// A stand-in panel with a fixed leaderboard.
struct FixedPanel(Vec<f64>);

impl BaselinePanel for FixedPanel {
    fn version(&self) -> &str {
        "fixed"
    }
    fn leaderboard(&self, _env: &Environment, _grader: &dyn Grader) -> sandmle_core::Result<Leaderboard> {
        Ok(Leaderboard {
            entries: self
                .0
                .iter()
                .enumerate()
                .map(|(i, &s)| LeaderboardEntry { name: format!("b{i}"), score: s })
                .collect(),
        })
    }
}

/// A leaderboard of 20 AUC-like scores from 0.95 down to 0.5.
fn good_scores() -> Vec<f64> {
    (0..20).map(|i| 0.95 - 0.45 * i as f64 / 19.0).collect()
}

/// The gates of `env` calibrated with a panel whose leaderboard is `scores`.
fn gates(scores: Vec<f64>, env: &Environment) -> Vec<GateResult> {
    let mut env = env.clone();
    let verifier = GateVerifier::new(Arc::new(StandardGrader));
    calibrate(&mut env, &FixedPanel(scores), &StandardGrader, &verifier).unwrap()
}

fn gate(scores: Vec<f64>, env: &Environment, which: Gate) -> GateResult {
    which.result_in(&gates(scores, env)).unwrap().clone()
}

fn micro() -> Environment {
    let s = Environment::read(format!("{}/../examples/seeds/breast_cancer", env!("CARGO_MANIFEST_DIR"))).unwrap();
    StratifiedShrinker::default().shrink_env(&s, 2).unwrap()
}

/// Makes test row 0 repeat training row 0 in every (numeric) feature.
fn repeat_first_training_row(env: &mut Environment) {
    let features: Vec<String> = env.test.names().iter().filter(|c| *c != "id").cloned().collect();
    for f in &features {
        let mut col = env.test.column(f).unwrap().as_numeric().unwrap().to_vec();
        col[0] = env.train.column(f).unwrap().as_numeric().unwrap()[0];
        env.test.set_column(f, Column::Numeric(col)).unwrap();
    }
}

fn failed(scores: Vec<f64>, env: &Environment) -> Vec<String> {
    gates(scores, env).into_iter().filter(|g| !g.passed).map(|g| g.gate).collect()
}

#[test]
fn a_good_environment_passes_every_gate() {
    let gates = gates(good_scores(), &micro());
    let names: Vec<&str> = Gate::ALL.iter().map(|g| g.name()).collect();
    assert_eq!(gates.iter().map(|g| g.gate.as_str()).collect::<Vec<_>>(), names);
    assert!(gates.iter().all(|g| g.passed), "{gates:#?}");
}

#[test]
fn schema_fails_when_test_lacks_a_feature() {
    let mut env = micro();
    env.test = env.test.without(&["mean_radius"]);
    assert_eq!(failed(good_scores(), &env), ["schema"]);
}

#[test]
fn sample_submission_fails_when_it_is_invalid() {
    let mut env = micro();
    let n = env.sample_submission.n_rows();
    env.sample_submission.set_column("diagnosis", Column::Numeric(vec![1.5; n])).unwrap();
    assert!(failed(good_scores(), &env).contains(&"sample_submission".to_owned()));
}

#[test]
fn thresholds_ordered_fails_on_a_flat_leaderboard() {
    assert!(failed(vec![0.8; 20], &micro()).contains(&"thresholds_ordered".to_owned()));
}

#[test]
fn gold_beats_sample_fails_when_gold_is_no_better_than_the_sample() {
    // The sample scores 0.5; gold (2nd of 20) 0.5.
    let mut scores = vec![0.5; 2];
    scores.extend((0..18).map(|i| 0.49 - 0.01 * i as f64));
    let f = failed(scores, &micro());
    assert!(f.contains(&"gold_beats_sample".to_owned()), "{f:?}");
}

#[test]
fn solvable_fails_when_the_best_baseline_barely_beats_the_sample() {
    // Best 0.51: a gain of 0.01 < 5% of 0.5.
    let scores: Vec<f64> = (0..20).map(|i| 0.51 - 0.02 * i as f64).collect();
    let f = failed(scores, &micro());
    assert!(f.contains(&"solvable".to_owned()) && !f.contains(&"thresholds_ordered".to_owned()), "{f:?}");
}

#[test]
fn not_saturated_fails_when_the_sample_reaches_bronze() {
    // Bronze (8th of 20) at 0.45: the sample's 0.5 reaches it.
    let scores: Vec<f64> = (0..20).map(|i| 0.9 - 0.065 * i as f64).collect();
    let f = failed(scores, &micro());
    assert!(f.contains(&"not_saturated".to_owned()), "{f:?}");
}

#[test]
fn no_leakage_fails_on_a_target_copy_duplicated_rows_or_telling_ids() {
    // A feature that separates the two classes perfectly (not equal to the
    // target: the target plus noise smaller than the gap).
    let mut env = micro();
    let y = env.train.numeric("diagnosis").unwrap().to_vec();
    let leak: Vec<f64> = y.iter().enumerate().map(|(i, v)| v * 10.0 + (i % 7) as f64).collect();
    env.train.push_column("leak", Column::Numeric(leak)).unwrap();
    let n = env.test.n_rows();
    env.test.push_column("leak", Column::Numeric(vec![0.0; n])).unwrap();
    assert!(failed(good_scores(), &env).contains(&"no_leakage".to_owned()));
    // A test row of a synthesized environment repeating a training row's
    // features.
    let mut env = micro();
    repeat_first_training_row(&mut env);
    env.provenance.generator = sandmle_core::SYNTH_GENERATOR.into();
    assert!(failed(good_scores(), &env).contains(&"no_leakage".to_owned()));
    // Ids that follow the target.
    let mut env = micro();
    let y = env.train.numeric("diagnosis").unwrap().to_vec();
    let mut order: Vec<usize> = (0..y.len()).collect();
    order.sort_by(|&a, &b| y[a].total_cmp(&y[b]).then(a.cmp(&b)));
    let mut ids = vec![String::new(); y.len()];
    for (rank, &row) in order.iter().enumerate() {
        ids[row] = (10_000 + rank).to_string();
    }
    env.train.set_column("id", Column::text(ids.iter().map(|i| Some(i.as_str())))).unwrap();
    assert!(failed(good_scores(), &env).contains(&"no_leakage".to_owned()));
}

/// Test row 0 repeats training row 0 in every original feature, and the
/// three added columns hold `train` and `test` in those rows (other rows
/// hold distinct values); how many test rows the gate finds duplicated.
fn duplicates_with(train: [Column; 3], test: [Column; 3]) -> f64 {
    let mut env = micro();
    repeat_first_training_row(&mut env);
    let (n, m) = (env.train.n_rows(), env.test.n_rows());
    let fill = |c: &Column, rows: usize, k: usize| match c {
        Column::Numeric(v) => {
            Column::Numeric((0..rows).map(|i| if i == 0 { v[0] } else { (k * 1000 + i) as f64 }).collect())
        }
        other => {
            let first = other.get_str(0).map(|s| s.into_owned());
            // Training levels sort after row 0's, test levels before it:
            // the same value under different codes.
            let other_value = |i: usize| if k == 1 { format!("v{i}") } else { format!("A{i}") };
            let values: Vec<Option<String>> =
                (0..rows).map(|i| if i == 0 { first.clone() } else { Some(other_value(i)) }).collect();
            match other {
                Column::Categorical(_) => Column::Categorical(
                    sandmle_core::Categorical::from_values(values.iter().map(|v| v.as_deref())).sorted(),
                ),
                _ => Column::text(values.iter().map(|v| v.as_deref())),
            }
        }
    };
    for (j, (a, b)) in train.iter().zip(&test).enumerate() {
        env.train.push_column(format!("extra{j}"), fill(a, n, 1)).unwrap();
        env.test.push_column(format!("extra{j}"), fill(b, m, 2)).unwrap();
    }
    gate(good_scores(), &env, Gate::NoLeakage).figures["duplicate_test_rows"]
}

#[test]
fn duplicated_rows_compare_values_not_their_encodings() {
    use sandmle_core::Categorical;
    let cat = |v: &[&str]| Column::Categorical(Categorical::from_values(v.iter().map(|s| Some(*s))));
    let num = |x: f64| Column::Numeric(vec![x]);
    let text = |s: Option<&str>| Column::text([s]);
    // The same level under other codes, equal numbers, equal text.
    let same = duplicates_with([cat(&["a"]), num(1.5), text(Some("x"))], [cat(&["a"]), num(1.5), text(Some("x"))]);
    assert_eq!(same, 1.0);
    // NaN repeats NaN; an empty text repeats a missing one.
    let missing =
        duplicates_with([cat(&["a"]), num(f64::NAN), text(Some(""))], [cat(&["a"]), num(f64::NAN), text(None)]);
    assert_eq!(missing, 1.0);
    // -0 and 0 print differently, so they are different values.
    assert_eq!(duplicates_with([cat(&["a"]), num(0.0), text(None)], [cat(&["a"]), num(-0.0), text(None)]), 0.0);
    assert_eq!(duplicates_with([cat(&["a"]), num(1.5), text(None)], [cat(&["ab"]), num(1.5), text(None)]), 0.0);
}

#[test]
fn no_answers_in_public_fails_when_a_public_column_is_an_answer_column() {
    let mut env = micro();
    let answers = env.answers.column("diagnosis").unwrap().clone();
    env.test.push_column("hint", answers).unwrap();
    let n = env.train.n_rows();
    env.train.push_column("hint", Column::Numeric(vec![0.0; n])).unwrap();
    assert!(failed(good_scores(), &env).contains(&"no_answers_in_public".to_owned()));
}

#[test]
fn no_leakage_catches_a_feature_that_orders_many_classes() {
    let s = Environment::read(format!("{}/../examples/seeds/wine", env!("CARGO_MANIFEST_DIR"))).unwrap();
    let mut env = StratifiedShrinker::default().shrink_env(&s, 2).unwrap();
    // Classes as three runs: label code times 10 plus noise below 10.
    let labels: Vec<String> = (0..env.train.n_rows())
        .map(|i| env.train.column("cultivar").unwrap().get_str(i).unwrap().into_owned())
        .collect();
    let leak: Vec<f64> = labels
        .iter()
        .enumerate()
        .map(|(i, l)| l.trim_start_matches("class_").parse::<f64>().unwrap() * 10.0 + (i % 9) as f64)
        .collect();
    env.train.push_column("leak", Column::Numeric(leak)).unwrap();
    let n = env.test.n_rows();
    env.test.push_column("leak", Column::Numeric(vec![0.0; n])).unwrap();
    let scores = vec![1.0, 0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3, 0.2, 0.1];
    let leak_gate = gate(scores, &env, Gate::NoLeakage);
    assert!(!leak_gate.passed, "{leak_gate:?}");
    assert_eq!(leak_gate.figures["max_feature_association"], 1.0);
}

#[test]
fn a_constant_feature_is_no_leak() {
    // Regression: ties were ordered by label, so a constant feature looked
    // like a perfect separator of digits' ten classes.
    let s = Environment::read(format!("{}/../examples/seeds/digits", env!("CARGO_MANIFEST_DIR"))).unwrap();
    let env = StratifiedShrinker::default().shrink_env(&s, 1).unwrap();
    assert!(env.train.numeric("pixel_0").unwrap().iter().all(|&v| v == 0.0));
    let leak_gate = gate(good_scores(), &env, Gate::NoLeakage);
    assert!(leak_gate.passed, "{leak_gate:?}");
}

/// `evaluate` grades with `grading.json`'s thresholds: inverted ones (the
/// hashes recomputed, so the files read back) must fail verification rather
/// than let the constant sample score gold.
#[test]
fn thresholds_recorded_fails_when_grading_json_disagrees_with_the_leaderboard() {
    let mut env = micro();
    let verifier = GateVerifier::new(Arc::new(StandardGrader));
    calibrate(&mut env, &FixedPanel(good_scores()), &StandardGrader, &verifier).unwrap();
    let t = env.grading.thresholds.as_mut().unwrap();
    (t.gold, t.median) = (t.median, t.gold);
    t.is_lower_better = !t.is_lower_better;
    let results = verifier.run(&env).unwrap();
    let failed: Vec<&str> = results.iter().filter(|g| !g.passed).map(|g| g.gate.as_str()).collect();
    assert!(failed.contains(&"thresholds_recorded"), "{failed:?}");
    env.grading.thresholds = None;
    assert!(!Gate::ThresholdsRecorded.result_in(&verifier.run(&env).unwrap()).unwrap().passed);
}

#[test]
fn gate_names_round_trip() {
    for g in Gate::ALL {
        assert_eq!(Gate::from_name(g.name()), Some(g));
    }
    assert_eq!(Gate::from_name("nope"), None);
}

/// Test rows copied into `train.csv` with their labels gave the answers
/// away unnoticed: the gate compared only the test and sample files.
#[test]
fn no_answers_in_public_catches_test_rows_copied_into_train_with_labels() {
    let env = micro();
    let target = env.task().target_columns[0].clone();
    // The test rows, with the answers as their target, as training rows.
    let mut leaked = env.clone();
    let mut rows = env.test.clone();
    rows.push_column(&target, env.answers.column(&target).unwrap().clone()).unwrap();
    leaked.train = rows.select(env.train.names()).unwrap();
    let results = failed(good_scores(), &leaked);
    assert!(results.contains(&"no_answers_in_public".to_owned()), "{results:?}");
    assert!(!failed(good_scores(), &env).contains(&"no_answers_in_public".to_owned()));
}

/// Kaggle competitions ship columns only the training rows have (a
/// patient id, a second diagnosis); the task names them and the schema
/// gate accepts them, while one it does not name still fails.
#[test]
fn schema_accepts_train_only_columns_the_task_names() {
    let mut env = micro();
    let n = env.train.n_rows();
    env.train.push_column("patient_id", Column::Numeric((0..n).map(|i| (i % 7) as f64).collect())).unwrap();
    assert_eq!(failed(good_scores(), &env), ["schema"]);
    env.grading.task.train_only_columns = vec!["patient_id".into()];
    assert!(failed(good_scores(), &env).is_empty());
}

/// A train-only copy of the target is no leak: no test row has it.
#[test]
fn a_train_only_copy_of_the_target_is_no_leak() {
    let mut env = micro();
    let copy = env.train.column("diagnosis").unwrap().clone();
    env.train.push_column("benign_malignant", copy).unwrap();
    env.grading.task.train_only_columns = vec!["benign_malignant".into()];
    assert!(failed(good_scores(), &env).is_empty());
}

/// MLE-bench's medal rule ties thresholds on real leaderboards (few teams,
/// shared top scores): an imported competition's real leaderboard passes
/// with ties, a generated one (or an import whose leaderboard the panel
/// replaced) must order them strictly.
#[test]
fn thresholds_may_tie_on_a_real_leaderboard_only() {
    // Gold (2nd of 20) and silver (4th) tie: the top four share a score.
    let mut scores = vec![0.95; 4];
    scores.extend((0..16).map(|i| 0.9 - 0.4 * i as f64 / 15.0));
    let mut env = micro();
    let generated = gate(scores.clone(), &env, Gate::ThresholdsOrdered);
    assert!(!generated.passed, "{generated:?}");
    env.provenance = sandmle_core::Provenance::new("breast_cancer", sandmle_core::IMPORT_GENERATOR, "1", 0);
    let real = gate(scores.clone(), &env, Gate::ThresholdsOrdered);
    assert!(real.passed, "{real:?}");
    env.provenance.details.insert("panel".into(), serde_json::json!({"version": "panel-v11"}));
    assert!(!gate(scores, &env, Gate::ThresholdsOrdered).passed);
}

/// A real competition's split is the truth: a token task repeats tokens
/// across it (text normalization's `the` at the same place in two
/// sentences). The repeat is reported, not refused, outside synthesized
/// environments.
#[test]
fn repeated_rows_of_real_data_are_reported_not_refused() {
    let mut env = micro();
    repeat_first_training_row(&mut env);
    assert!(!env.provenance.synthesized());
    let gates = gates(good_scores(), &env);
    let gate = gates.iter().find(|g| g.gate == "no_leakage").unwrap();
    assert!(gate.passed, "{gate:?}");
    assert_eq!(gate.figures["duplicate_test_rows"], 1.0);
}
