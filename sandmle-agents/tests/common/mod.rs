//! The concrete crates composed behind the roles, for the tests.

// Each test binary uses part of this module.
#![allow(dead_code)]

use sandmle_agents::foundry::{Foundry, FoundryConfig, SeedTask};
use sandmle_agents::roles::builtin::{Developer, MlOps, Strategist, Writer};
use sandmle_core::{BaselinePanel, Environment, Grader, Synthesizer, Verifier};
use sandmle_exec::Panel;
use sandmle_metrics::StandardGrader;
use sandmle_synth::{DnaSynthesizer, GateVerifier};
use std::sync::Arc;

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
    MlOps { grader: Arc::clone(&p.grader) }
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
