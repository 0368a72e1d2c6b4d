//! Every synthesized environment records its oracle, calibration grades it,
//! and the medal ladder sits under it.

mod common;

use common::seed;

use sandmle_core::{
    AudioDna, Environment, GateResult, ImageDna, Modality, ORACLE_DETAIL, TaskDna, calibrate, ladder, testing,
};
use sandmle_exec::Panel;
use sandmle_metrics::StandardGrader;
use sandmle_synth::{DnaSynthesizer, GateVerifier, extract_dna};
use std::sync::Arc;

/// A seed's DNA as if its rows were images or audio clips.
fn as_files(mut dna: TaskDna, modality: Modality) -> TaskDna {
    dna.modality = modality;
    dna.features.clear();
    dna.correlations.clear();
    match modality {
        Modality::Audio => dna.audio = Some(AudioDna { sample_rate: 8000, seconds: 0.5, rms: 0.2 }),
        _ => dna.images = Some(ImageDna { width: 24, height: 24, channels: 3, mean_intensity: 0.3, sd_intensity: 0.2 }),
    }
    dna
}

fn sample_score(env: &Environment) -> f64 {
    let report = sandmle_core::Grader::grade(&StandardGrader, &env.grading_task(), &env.sample_submission).unwrap();
    report.score_raw.unwrap()
}

/// Calibrates with the real panel and returns the gates.
fn calibrated(env: &mut Environment) -> Vec<GateResult> {
    let verifier = GateVerifier::new(Arc::new(StandardGrader));
    calibrate(env, &Panel::default(), &StandardGrader, &verifier).unwrap()
}

/// Tabular seeds of every task kind and metric form (two classes under
/// AUC and log loss, ten classes under accuracy, three under multiclass
/// log loss, values under RMSE and RMSLE, text), images (a cut, an argmax
/// of rules, looks) and audio.
#[test]
fn every_modality_records_an_oracle_the_ladder_sits_under() {
    let mut dnas: Vec<(String, TaskDna)> =
        ["breast_cancer", "oj", "digits", "wine", "diabetes", "bikeshare", "sms_spam"]
            .iter()
            .map(|s| (s.to_string(), extract_dna(&seed(s)).unwrap()))
            .collect();
    for s in ["breast_cancer", "wine", "diabetes"] {
        let dna = extract_dna(&seed(s)).unwrap();
        dnas.push((format!("{s}-images"), as_files(dna.clone(), Modality::Image)));
        dnas.push((format!("{s}-audio"), as_files(dna, Modality::Audio)));
    }
    dnas.push(("digits-png".into(), extract_dna(&seed("digits_png")).unwrap()));
    for (name, dna) in dnas {
        let mut env =
            DnaSynthesizer::default().synthesize_env(&dna, &name, 11).unwrap_or_else(|e| panic!("{name}: {e}"));
        let record = env.provenance.details.get(ORACLE_DETAIL).cloned().unwrap_or_else(|| panic!("{name}: no oracle"));
        assert!(
            record.get("prediction").is_some() && env.grading.oracle.is_none(),
            "{name}: graded before calibration"
        );
        let gates = calibrated(&mut env);
        assert!(gates.iter().all(|g| g.passed), "{name}: {gates:?}");
        let recorded = env.grading.oracle.unwrap_or_else(|| panic!("{name}: the oracle was not graded"));
        let oracle = recorded.score;
        let record = &env.provenance.details[ORACLE_DETAIL];
        assert_eq!(record["score"].as_f64(), Some(oracle), "{name}");
        let se = recorded.standard_error.unwrap_or_else(|| panic!("{name}: no standard error"));
        assert_eq!(record["standard_error"].as_f64(), Some(se), "{name}");
        assert!(se > 0.0 && se < 0.5 * (oracle - sample_score(&env)).abs(), "{name}: standard error {se}");
        assert!(record.get("prediction").is_none(), "{name}: the prediction is dropped once graded");
        let direction = env.task().direction;
        assert!(direction.better(oracle, sample_score(&env)), "{name}: oracle {oracle} vs the sample");
        let thresholds = env.grading.thresholds.unwrap();
        let leaderboard = env.leaderboard.as_ref().unwrap();
        assert_eq!(Some(thresholds), ladder(leaderboard, &recorded, direction), "{name}");
        assert!(direction.better(oracle, thresholds.gold), "{name}: gold {} vs oracle {oracle}", thresholds.gold);
        let steps = [
            thresholds.gold - thresholds.silver,
            thresholds.silver - thresholds.bronze,
            thresholds.bronze - thresholds.median,
        ];
        assert!(steps.iter().all(|s| s.abs() >= se * (1.0 - 1e-12)), "{name}: steps {steps:?} under {se}");
    }
}

/// An environment without an oracle (an import, a shrunk seed) keeps
/// MLE-bench's rule on its panel.
#[test]
fn without_an_oracle_the_thresholds_are_mlebench_s() {
    let mut env = testing::tiny_environment();
    calibrated(&mut env);
    assert_eq!(env.grading.oracle, None);
    let lb = env.leaderboard.as_ref().unwrap();
    assert_eq!(env.grading.thresholds, Some(sandmle_core::Grader::thresholds(&StandardGrader, lb).unwrap()));
}

/// An oracle whose prediction is not a valid submission is the
/// environment's fault, named.
#[test]
fn an_invalid_oracle_prediction_is_a_broken_environment() {
    let dna = extract_dna(&seed("breast_cancer")).unwrap();
    let mut env = DnaSynthesizer::default().synthesize_env(&dna, "breast_cancer", 2).unwrap();
    let record = env.provenance.details.get_mut(ORACLE_DETAIL).unwrap();
    record["prediction"]["values"][1][0] = serde_json::json!(7.5);
    let verifier = GateVerifier::new(Arc::new(StandardGrader));
    let e = calibrate(&mut env, &Panel::default(), &StandardGrader, &verifier).unwrap_err();
    assert!(matches!(e, sandmle_core::Error::BrokenEnvironment { .. }), "{e}");
    assert!(e.to_string().contains("oracle"), "{e}");
}
