//! [`Generator`]: candidates from one seed's DNA through synthesis, the
//! baseline panel and the gates — the funnel of the SandMLE paper
//! (1,200 candidates, 912 kept). The funnel matches gate results by gate
//! ([`Gate::result_in`]), never by position.

use crate::gates::Gate;
use rayon::prelude::*;
use sandmle_core::{
    BaselinePanel, Environment, GateResult, Grader, Synthesizer, TaskDna, Verifier, calibrate, derive_seed,
};
use serde::Serialize;
use std::sync::Arc;

/// One candidate's outcome.
#[derive(Debug, Clone)]
pub struct Candidate {
    /// The candidate's index.
    pub index: usize,
    /// Its seed (derived from the run's seed and the index).
    pub seed: u64,
    /// The environment, with its leaderboard and thresholds, when synthesis
    /// and the panel succeeded.
    pub env: Option<Environment>,
    /// The gates' results (empty when synthesis failed).
    pub gates: Vec<GateResult>,
    /// Why synthesis or the panel failed, if it did.
    pub error: Option<String>,
}

impl Candidate {
    /// `true` when every gate passed.
    pub fn kept(&self) -> bool {
        self.env.is_some() && !self.gates.is_empty() && self.gates.iter().all(|g| g.passed)
    }
}

/// The funnel: how many candidates survive each stage.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Funnel {
    /// Candidates attempted.
    pub candidates: usize,
    /// Candidates synthesized and given a leaderboard.
    pub synthesized: usize,
    /// For each gate in order: candidates that passed it and every gate
    /// before it.
    pub gates: Vec<(String, usize)>,
    /// For each gate: candidates that failed it (of those synthesized).
    pub failed: Vec<(String, usize)>,
    /// Candidates that passed every gate.
    pub kept: usize,
    /// Why candidates failed before the gates: `(index, message)`.
    pub errors: Vec<(usize, String)>,
}

/// Synthesizes, calibrates ([`sandmle_core::calibrate`]) and verifies
/// candidates, every part a port.
#[derive(Clone)]
pub struct Generator {
    /// The synthesizer.
    pub synthesizer: Arc<dyn Synthesizer>,
    /// The baseline panel that gives each candidate its leaderboard.
    pub panel: Arc<dyn BaselinePanel>,
    /// The grader that scores the panel and derives thresholds.
    pub grader: Arc<dyn Grader>,
    /// The verifier whose gates decide what is kept.
    pub verifier: Arc<dyn Verifier>,
}

impl Generator {
    /// Runs `count` candidates from `dna` (in parallel; results in index
    /// order, the same whatever the thread count).
    pub fn run(&self, dna: &TaskDna, seed_task: &str, count: usize, seed: u64) -> Vec<Candidate> {
        (0..count)
            .into_par_iter()
            .map(|i| self.candidate(dna, seed_task, i, derive_seed(seed, &format!("candidate-{i}"))))
            .collect()
    }

    fn candidate(&self, dna: &TaskDna, seed_task: &str, index: usize, seed: u64) -> Candidate {
        let failed = |error: String| Candidate { index, seed, env: None, gates: vec![], error: Some(error) };
        let mut env = match self.synthesizer.synthesize(dna, seed_task, seed) {
            Ok(env) => env,
            Err(e) => return failed(e.to_string()),
        };
        match calibrate(&mut env, self.panel.as_ref(), self.grader.as_ref(), self.verifier.as_ref()) {
            Ok(gates) => Candidate { index, seed, env: Some(env), gates, error: None },
            Err(e) => failed(e.to_string()),
        }
    }
}

/// The funnel of a run.
pub fn funnel(candidates: &[Candidate]) -> Funnel {
    let synthesized: Vec<&Candidate> = candidates.iter().filter(|c| c.env.is_some()).collect();
    let mut gates = Vec::new();
    let mut failed = Vec::new();
    let passed = |c: &Candidate, g: Gate| g.result_in(&c.gates).is_some_and(|r| r.passed);
    for (i, &gate) in Gate::ALL.iter().enumerate() {
        let through = synthesized.iter().filter(|c| Gate::ALL[..=i].iter().all(|&g| passed(c, g))).count();
        let fails = synthesized.iter().filter(|c| gate.result_in(&c.gates).is_some_and(|r| !r.passed)).count();
        gates.push((gate.name().to_owned(), through));
        failed.push((gate.name().to_owned(), fails));
    }
    Funnel {
        candidates: candidates.len(),
        synthesized: synthesized.len(),
        gates,
        failed,
        kept: candidates.iter().filter(|c| c.kept()).count(),
        errors: candidates.iter().filter_map(|c| c.error.clone().map(|e| (c.index, e))).collect(),
    }
}

impl std::fmt::Debug for Generator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Generator").field("panel", &self.panel.version()).finish_non_exhaustive()
    }
}
