//! Forecasting tasks from a value seed recast by a run's mix: daily series
//! split in time, a calendar that pays, counts that are whole, an oracle
//! recorded, the gates passed, the same bytes from the same plan.

mod common;

use common::seed;
use sandmle_core::{Modality, PlanRequest, calibrate};
use sandmle_exec::Panel;
use sandmle_metrics::StandardGrader;
use sandmle_synth::series::SERIES_ENTITIES;
use sandmle_synth::{DnaSynthesizer, GateVerifier, extract_dna};
use std::collections::BTreeSet;
use std::sync::Arc;

fn forecast(name: &str, index: usize) -> sandmle_core::Environment {
    let dna = extract_dna(&seed(name)).unwrap();
    let request =
        PlanRequest { seed_task: name.into(), run_seed: 9, index, attempt: 0, modality: Some(Modality::TimeSeries) };
    let synth = DnaSynthesizer::default();
    synth.realize(&synth.plan(&dna, &request).unwrap()).unwrap()
}

fn dates(t: &sandmle_core::Table) -> BTreeSet<String> {
    let col = t.column("date").unwrap();
    (0..t.n_rows()).map(|r| col.get_str(r).unwrap().into_owned()).collect()
}

/// Every test day comes after every training day, each day holds one row
/// per entity, the whole-number seed's counts are whole, the oracle is
/// recorded, and the real panel's thresholds pass every gate.
#[test]
fn the_test_rows_are_the_days_after_the_training_rows() {
    for (name, whole) in [("bikeshare", true), ("wage", false)] {
        for index in 0..3 {
            let mut env = forecast(name, index);
            assert_eq!(env.task().modality, Modality::TimeSeries);
            let (train, test) = (dates(&env.train), dates(&env.test));
            assert!(train.last().unwrap() < test.first().unwrap(), "{name}: {train:?} / {test:?}");
            assert_eq!(train.len() * SERIES_ENTITIES, env.train.n_rows());
            assert_eq!(test.len() * SERIES_ENTITIES, env.test.n_rows());
            let target = env.task().target_columns[0].clone();
            let values = env.train.column(&target).unwrap().as_numeric().unwrap().to_vec();
            assert!(values.iter().all(|v| *v >= 0.0 && (!whole || v.fract() == 0.0)), "{name}");
            assert!(env.provenance.details.contains_key(sandmle_core::ORACLE_DETAIL));
            let verifier = GateVerifier::new(Arc::new(StandardGrader));
            let gates = calibrate(&mut env, &Panel::default(), &StandardGrader, &verifier).unwrap();
            assert!(gates.iter().all(|g| g.passed), "{name} {index}: {gates:?}");
        }
    }
    assert_eq!(forecast("wage", 1).id().unwrap(), forecast("wage", 1).id().unwrap());
}

/// A forecasting plan is the built-in synthesizer's: a generator program,
/// which writes independent rows, is not briefed on one (an LLM developer
/// falls back to the built-in one).
#[test]
fn a_forecasting_plan_is_not_a_generator_program_s() {
    let dna = extract_dna(&seed("wage")).unwrap();
    let request = PlanRequest {
        seed_task: "wage".into(),
        run_seed: 1,
        index: 0,
        attempt: 0,
        modality: Some(Modality::TimeSeries),
    };
    let plan = DnaSynthesizer::default().plan(&dna, &request).unwrap();
    let e = sandmle_synth::program_brief(&plan, 200).unwrap_err();
    assert!(e.to_string().contains("forecasting"), "{e}");
}
