use super::forward_impls;
use crate::environment::Environment;
use crate::error::Result;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The result of one verification gate.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GateResult {
    /// The gate's name.
    pub gate: String,
    /// Whether the environment passed it.
    pub passed: bool,
    /// The figures the decision rests on.
    pub figures: BTreeMap<String, f64>,
    /// A one-line explanation.
    pub detail: String,
}

/// Checks an environment before anyone trains on it.
pub trait Verifier: Send + Sync {
    /// Every gate's result, in a fixed order.
    ///
    /// # Errors
    /// When the checks themselves cannot run.
    fn verify(&self, env: &Environment) -> Result<Vec<GateResult>>;

    /// The results of the gates named in `gates` only, in the fixed order
    /// (the checks a role runs itself, say). The default runs every gate
    /// and keeps those; implementations run only what is asked.
    ///
    /// # Errors
    /// As [`Verifier::verify`].
    fn verify_gates(&self, env: &Environment, gates: &[&str]) -> Result<Vec<GateResult>> {
        Ok(self.verify(env)?.into_iter().filter(|g| gates.contains(&g.gate.as_str())).collect())
    }
}

forward_impls!(Verifier {
    fn verify(&self, env: &Environment) -> Result<Vec<GateResult>>;
    fn verify_gates(&self, env: &Environment, gates: &[&str]) -> Result<Vec<GateResult>>;
});
