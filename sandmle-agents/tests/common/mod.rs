//! The concrete crates composed behind the roles, for the tests.

// Each test binary uses part of this module.
#![allow(dead_code)]

use sandmle_agents::foundry::{Foundry, FoundryConfig, SeedTask};
use sandmle_agents::roles::builtin::{Developer, MlOps, Strategist, Writer};
use sandmle_core::{BaselinePanel, Environment, Grader, PlanRequest, Synthesizer, TaskDna, TaskPlan, Verifier};
use sandmle_exec::Panel;
use sandmle_metrics::StandardGrader;
use sandmle_synth::{DnaSynthesizer, GateVerifier};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

pub fn seed(name: &str) -> SeedTask {
    let env = Environment::read(format!("{}/../examples/seeds/{name}", env!("CARGO_MANIFEST_DIR"))).unwrap();
    SeedTask { name: name.into(), env }
}

pub struct Parts {
    pub synthesizer: Arc<dyn Synthesizer>,
    pub panel: Arc<dyn BaselinePanel>,
    pub grader: Arc<dyn Grader>,
    pub verifier: Arc<dyn Verifier>,
}

pub fn parts() -> Parts {
    let grader: Arc<dyn Grader> = Arc::new(StandardGrader);
    Parts {
        synthesizer: Arc::new(DnaSynthesizer::default()),
        panel: Arc::new(Panel::default()),
        verifier: Arc::new(GateVerifier::new(Arc::clone(&grader))),
        grader,
    }
}

pub fn strategist(p: &Parts) -> Strategist {
    Strategist::new(Arc::clone(&p.synthesizer))
}

pub fn developer(p: &Parts) -> Developer {
    Developer { synthesizer: Arc::clone(&p.synthesizer), panel: Arc::clone(&p.panel), grader: Arc::clone(&p.grader) }
}

pub fn mlops(p: &Parts) -> MlOps {
    MlOps { grader: Arc::clone(&p.grader), verifier: Arc::clone(&p.verifier) }
}

pub fn foundry(config: FoundryConfig) -> Foundry {
    let p = parts();
    Foundry {
        strategist: Arc::new(strategist(&p)),
        developer: Arc::new(developer(&p)),
        mlops: Arc::new(mlops(&p)),
        writer: Arc::new(Writer),
        verifier: Arc::clone(&p.verifier),
        config,
    }
}

pub fn families() -> Vec<String> {
    sandmle_synth::FAMILIES.iter().map(|f| f.name()).collect()
}

/// A synthesizer that counts its DNA extractions.
pub struct Counting {
    pub inner: Arc<dyn Synthesizer>,
    pub extractions: AtomicUsize,
}

impl Counting {
    pub fn new(inner: Arc<dyn Synthesizer>) -> Counting {
        Counting { inner, extractions: AtomicUsize::new(0) }
    }

    pub fn count(&self) -> usize {
        self.extractions.load(Ordering::SeqCst)
    }
}

impl Synthesizer for Counting {
    fn extract_dna(&self, seed_env: &Environment) -> sandmle_core::Result<TaskDna> {
        self.extractions.fetch_add(1, Ordering::SeqCst);
        self.inner.extract_dna(seed_env)
    }
    fn plan(&self, dna: &TaskDna, request: &PlanRequest) -> sandmle_core::Result<TaskPlan> {
        self.inner.plan(dna, request)
    }
    fn synthesize(&self, plan: &TaskPlan) -> sandmle_core::Result<Environment> {
        self.inner.synthesize(plan)
    }
}

/// Whether bubblewrap runs here; with `SANDMLE_REQUIRE_BWRAP` set (as CI
/// sets it) a machine where it cannot is a failure, otherwise the calling
/// test is skipped.
pub fn bwrap_or_skip() -> bool {
    let ok = sandmle_exec::bubblewrap_available();
    if !ok {
        assert!(std::env::var_os("SANDMLE_REQUIRE_BWRAP").is_none(), "bubblewrap is required but cannot run here");
        eprintln!("bubblewrap cannot run here: this test is skipped");
    }
    ok
}
