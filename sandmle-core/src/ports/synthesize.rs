use super::forward_impls;
use crate::dna::TaskDna;
use crate::environment::Environment;
use crate::error::Result;
use crate::plan::{PlanRequest, TaskPlan};
use crate::table::Table;

/// Builds new tasks with a seed's structure and a hidden rule, in the
/// three steps the SandMLE roles split between them: the DNA of a seed,
/// a plan for one candidate (the Data Strategist's decisions), and the data
/// the plan asks for (the ML Developer's).
pub trait Synthesizer: Send + Sync {
    /// The seed's DNA: its structure without names or meaning.
    ///
    /// # Errors
    /// When the seed cannot be analysed (a target column missing, ...).
    fn extract_dna(&self, seed_env: &Environment) -> Result<TaskDna>;

    /// A plan for the candidate `request` names: domain, names, rule family,
    /// difficulty and mutations, deterministic in the request.
    ///
    /// # Errors
    /// When the DNA cannot be planned for.
    fn plan(&self, dna: &TaskDna, request: &PlanRequest) -> Result<TaskPlan>;

    /// The environment `plan` asks for: the same plan gives the same
    /// environment, byte for byte. Thresholds are not set (they come from a
    /// [`crate::BaselinePanel`]) and the description is a plain one (the
    /// Technical Writer's job).
    ///
    /// # Errors
    /// When the plan cannot be realised (names not distinct, a feature count
    /// the DNA cannot give, features too coarse to hold out test rows, ...).
    fn synthesize(&self, plan: &TaskPlan) -> Result<Environment>;

    /// What a generator program must write for `plan` (the columns, their
    /// types and ranges, the classes, the row counts, the seed), as JSON,
    /// for an ML Developer that writes the data's program instead of
    /// drawing it. The default: this synthesizer assembles no program's
    /// rows.
    ///
    /// # Errors
    /// [`crate::Error::Unsupported`] by default, or for a plan whose data
    /// no program may write (images, say).
    fn program_brief(&self, plan: &TaskPlan) -> Result<serde_json::Value> {
        let _ = plan;
        Err(crate::Error::Unsupported { component: "synthesizer".into(), what: "generator programs".into() })
    }

    /// The environment of `plan` from the `rows` a generator program wrote
    /// to its brief, the program's `source` kept in the provenance.
    /// Thresholds are not set, as with [`Synthesizer::synthesize`].
    ///
    /// # Errors
    /// The rows' faults (a column missing, a label outside the classes);
    /// [`crate::Error::Unsupported`] by default.
    fn assemble(&self, plan: &TaskPlan, rows: &Table, source: &str) -> Result<Environment> {
        let _ = (plan, rows, source);
        Err(crate::Error::Unsupported { component: "synthesizer".into(), what: "generator programs".into() })
    }
}

forward_impls!(Synthesizer {
    fn extract_dna(&self, seed_env: &Environment) -> Result<TaskDna>;
    fn plan(&self, dna: &TaskDna, request: &PlanRequest) -> Result<TaskPlan>;
    fn synthesize(&self, plan: &TaskPlan) -> Result<Environment>;
    fn program_brief(&self, plan: &TaskPlan) -> Result<serde_json::Value>;
    fn assemble(&self, plan: &TaskPlan, rows: &Table, source: &str) -> Result<Environment>;
});
