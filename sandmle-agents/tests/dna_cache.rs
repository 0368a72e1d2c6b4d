//! The built-in strategist extracts a seed's DNA once per seed and plans
//! every candidate from it, exactly as it would from a fresh extraction;
//! preparing a seed is that extraction, done before its first plan.

mod common;

use common::Counting;
use sandmle_agents::roles::DataStrategist;
use sandmle_agents::roles::builtin::Strategist;
use sandmle_core::{PlanRequest, TaskPlan};
use std::sync::Arc;
use std::sync::atomic::Ordering;

fn request(index: usize) -> PlanRequest {
    PlanRequest { seed_task: "wine".into(), run_seed: 3, index, attempt: 0, modality: None }
}

#[test]
fn a_seed_is_analysed_once_and_plans_are_unchanged() {
    let p = common::parts();
    let counting = Arc::new(Counting::new(Arc::clone(&p.synthesizer)));
    let cached = Strategist::new(counting.clone());
    let seed = common::seed("wine").env;
    let plans: Vec<TaskPlan> = (0..3).map(|i| cached.plan(&seed, &request(i)).unwrap()).collect();
    assert_eq!(counting.extractions.load(Ordering::SeqCst), 1, "one extraction for three candidates");
    // A clone shares the cache; a fresh strategist plans the same.
    assert_eq!(cached.clone().plan(&seed, &request(0)).unwrap(), plans[0]);
    assert_eq!(counting.extractions.load(Ordering::SeqCst), 1);
    let fresh = Strategist::new(Arc::clone(&p.synthesizer));
    for (i, plan) in plans.iter().enumerate() {
        assert_eq!(&fresh.plan(&seed, &request(i)).unwrap(), plan);
    }
    // A seed built in memory (no file hashes) is analysed every time.
    let mut in_memory = seed.clone();
    in_memory.grading.files.clear();
    cached.plan(&in_memory, &request(0)).unwrap();
    cached.plan(&in_memory, &request(1)).unwrap();
    assert_eq!(counting.extractions.load(Ordering::SeqCst), 3);
}

/// Preparing a seed extracts its DNA once, which its plans then read; a
/// seed built in memory is not prepared (its plans extract their own).
#[test]
fn preparing_a_seed_extracts_the_dna_its_plans_read() {
    let p = common::parts();
    let counting = Arc::new(Counting::new(Arc::clone(&p.synthesizer)));
    let strategist = Strategist::new(counting.clone());
    let seed = common::seed("wine").env;
    strategist.prepare(&seed).unwrap();
    assert_eq!(counting.count(), 1);
    strategist.prepare(&seed).unwrap();
    strategist.plan(&seed, &request(0)).unwrap();
    assert_eq!(counting.count(), 1, "prepared once, planned from the cache");
    let mut in_memory = seed.clone();
    in_memory.grading.files.clear();
    strategist.prepare(&in_memory).unwrap();
    assert_eq!(counting.count(), 1);
}
