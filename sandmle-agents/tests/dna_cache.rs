//! The built-in strategist extracts a seed's DNA once per seed and plans
//! every candidate from it, exactly as it would from a fresh extraction.

mod common;

use sandmle_agents::roles::DataStrategist;
use sandmle_agents::roles::builtin::Strategist;
use sandmle_core::{Environment, PlanRequest, Result, Synthesizer, TaskDna, TaskPlan};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

/// A synthesizer that counts its DNA extractions.
struct Counting {
    inner: Arc<dyn Synthesizer>,
    extractions: AtomicUsize,
}

impl Synthesizer for Counting {
    fn extract_dna(&self, seed_env: &Environment) -> Result<TaskDna> {
        self.extractions.fetch_add(1, Ordering::SeqCst);
        self.inner.extract_dna(seed_env)
    }
    fn plan(&self, dna: &TaskDna, request: &PlanRequest) -> Result<TaskPlan> {
        self.inner.plan(dna, request)
    }
    fn synthesize(&self, plan: &TaskPlan) -> Result<Environment> {
        self.inner.synthesize(plan)
    }
}

fn request(index: usize) -> PlanRequest {
    PlanRequest { seed_task: "wine".into(), run_seed: 3, index, attempt: 0 }
}

#[test]
fn a_seed_is_analysed_once_and_plans_are_unchanged() {
    let p = common::parts();
    let counting = Arc::new(Counting { inner: Arc::clone(&p.synthesizer), extractions: AtomicUsize::new(0) });
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
