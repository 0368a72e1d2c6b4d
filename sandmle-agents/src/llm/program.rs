//! [`ProgramDeveloper`]: the ML Developer that writes the data's program.
//!
//! The model is shown the plan's brief ([`Synthesizer::program_brief`]:
//! every column with its type and range, the classes, the row counts and
//! the seed) and answers with one self-contained Python program in a
//! ```` ```python ```` block. The program runs through the executor (the
//! process executor's sandbox, under its time, memory and disk budgets),
//! with the brief as `description.md` and empty tables naming the columns;
//! it writes `data.csv`, which the synthesizer turns into an environment
//! ([`Synthesizer::assemble`]). The panel then sets the thresholds (under
//! the program's own oracle when it declares one), and every gate of the
//! verifier runs.
//!
//! A program that fails (no code block, an exception, a timeout, rows that
//! do not fit the brief, a gate refused) is shown its error and asked
//! again, the paper's execution-verification loop, at most
//! [`LlmSettings::repairs`] times; then the candidate fails with
//! [`Error::GeneratorProgram`] naming the last error. The program that
//! succeeded is kept in the provenance (`private/provenance.json`,
//! `details.generator_program`).
//!
//! Plans the synthesizer gives no brief (images, audio and pages, whose
//! data is not a table) go to [`ProgramDeveloper::fallback`] when one is
//! set.

use super::LlmSettings;
use crate::error::{Error, Result};
use crate::roles::MlDeveloper;
use sandmle_core::Blame;
use sandmle_core::{
    BaselinePanel, Column, Environment, ExecStatus, Executor, Grader, Message, Program, PublicView, Solution, Table,
    TaskPlan, TaskSpec, Verifier,
};
use std::sync::Arc;
use std::time::Duration;

/// The program developer's prompt version.
pub const PROGRAM_DEVELOPER_PROMPT: &str = "program-developer-v1";

const SYSTEM: &str = "You are the ML Developer of SandMLE. You write one self-contained Python 3 program that \
simulates a realistic dataset for a machine-learning task from domain knowledge: typed columns with real units \
and ranges, relations that hold in the world, missing values at the given rates, and a hidden labelling rule \
over meaningful quantities with noise, so that a good model beats a constant prediction clearly but not \
perfectly. Use the standard library (numpy only if it is installed). Seed every random draw with the brief's \
`seed`. Read nothing from the network.";

/// Runs the model's program and hands its table back as the run's output.
/// A program that ends with `sys.exit(0)` (or `sys.exit()`) has
/// finished; any other exit status is its failure.
const DRIVER: &str = "import os, runpy, sys\n\
try:\n    runpy.run_path('generate.py', run_name='__main__')\n\
except SystemExit as e:\n    if e.code not in (None, 0):\n        raise\n\
if not os.path.isfile('data.csv'):\n    sys.exit('generate.py wrote no data.csv')\n\
os.replace('data.csv', 'submission.csv')\n";

/// The ML Developer of the paper: an LLM writes the program that simulates
/// the data (see the module docs).
#[derive(Clone)]
pub struct ProgramDeveloper {
    /// The model and repair budget.
    pub settings: LlmSettings,
    /// Gives the brief and assembles the program's rows.
    pub synthesizer: Arc<dyn sandmle_core::Synthesizer>,
    /// Runs the program (sandboxed: it is model-written code).
    pub executor: Arc<dyn Executor>,
    /// Gives the reference leaderboard.
    pub panel: Arc<dyn BaselinePanel>,
    /// Scores the panel and derives thresholds.
    pub grader: Arc<dyn Grader>,
    /// Runs every gate on the environment before it is handed on.
    pub verifier: Arc<dyn Verifier>,
    /// The program's wall-clock limit.
    pub timeout: Duration,
    /// Builds the plans the synthesizer gives no brief (images, audio and
    /// pages, whose data is not a table; a plan whose column names clash
    /// with the program's own); without one they fail.
    pub fallback: Option<Arc<dyn MlDeveloper>>,
}

/// Why a program failed: a one-line summary for the record, the whole
/// story for its author.
struct Failure {
    summary: String,
    detail: String,
}

impl Failure {
    fn plain(reason: String) -> Failure {
        Failure { summary: reason.clone(), detail: reason }
    }
}

/// `why`, with the last line of the program's standard error (a Python
/// traceback ends with the exception).
fn summary(why: &str, stderr: &str) -> String {
    match stderr.lines().rev().map(str::trim).find(|l| !l.is_empty()) {
        Some(line) => format!("{why}: {line}"),
        None => why.to_owned(),
    }
}

/// The brief's split column.
fn split_column(brief: &serde_json::Value) -> Option<String> {
    brief["split_column"].as_str().map(str::to_owned)
}

/// The first fenced code block of `text` (a `python` one preferred).
fn code_block(text: &str) -> Option<String> {
    let open = text.find("```python").map(|i| i + "```python".len()).or_else(|| text.find("```").map(|i| i + 3))?;
    let rest = &text[open..];
    let body = rest.strip_prefix('\n').or_else(|| rest.find('\n').map(|i| &rest[i + 1..]))?;
    let end = body.find("```")?;
    let code = body[..end].trim_end();
    (!code.trim().is_empty()).then(|| format!("{code}\n"))
}

/// The tail of a program's standard error, for its author.
fn tail(text: &str, max: usize) -> &str {
    let start = text.len().saturating_sub(max);
    let start = (start..=text.len()).find(|&i| text.is_char_boundary(i)).unwrap_or(text.len());
    &text[start..]
}

impl ProgramDeveloper {
    fn prompt(brief: &serde_json::Value) -> String {
        let pretty = serde_json::to_string_pretty(brief).unwrap_or_default();
        let split = split_column(brief).unwrap_or_default();
        let oracle = brief["oracle_prefix"].as_str().unwrap_or_default();
        format!(
            "Write the program that simulates this task's data. Brief (also in `description.md`, as JSON):\n\
             {pretty}\n\n\
             The program writes `data.csv` in its working directory: a header, then one row per record, with every \
             feature and target column named exactly as in the brief, and a `{split}` column holding `train` for \
             `train_rows` rows and `test` for `test_rows` rows. Numeric columns hold numbers (whole numbers when \
             `integer`), within `min` and `max`; a missing value is an empty cell; a target of `classes` holds one \
             of its classes. Optionally declare the best possible prediction of each test row under your rule \
             (noise integrated out), one column `{oracle}<name>` per prediction column, in the form the metric \
             scores (a probability for roc_auc or log_loss, a class for accuracy, a value for errors); leave it \
             empty on training rows. Reply with the whole program in one ```python block."
        )
    }

    /// The view the program runs on: the brief as `description.md` and an
    /// empty `train.csv` naming the columns it must write (the brief's
    /// features, targets and split column).
    fn brief_view(plan: &TaskPlan, brief: &serde_json::Value) -> Result<(TaskSpec, Table)> {
        let task = TaskSpec {
            id: format!("{}-generator", plan.seed_task),
            modality: plan.dna.modality,
            kind: plan.dna.kind,
            id_column: "id".into(),
            target_columns: plan.targets.clone(),
            prediction_columns: plan.targets.clone(),
            metric: plan.dna.metric.clone(),
            direction: plan.dna.direction,
            images: None,
            train_only_columns: Vec::new(),
            group_column: None,
        };
        let names = |key: &str| -> Vec<String> {
            brief[key].as_array().into_iter().flatten().filter_map(|c| c["name"].as_str().map(str::to_owned)).collect()
        };
        let mut header = Table::new();
        for name in names("features").into_iter().chain(names("targets")).chain(split_column(brief)) {
            header.push_column(name, Column::Text(Vec::new()))?;
        }
        Ok((task, header))
    }

    /// One program: `Ok(Err(failure))` when it is the program's fault.
    fn try_program(
        &self,
        plan: &TaskPlan,
        brief: &serde_json::Value,
        code: &str,
    ) -> Result<std::result::Result<Environment, Failure>> {
        let dir = tempfile::tempdir().map_err(|e| Error::Io { path: std::env::temp_dir(), source: e })?;
        for (name, text) in [("generate.py", code), ("driver.py", DRIVER)] {
            let path = dir.path().join(name);
            std::fs::write(&path, text).map_err(|source| Error::Io { path, source })?;
        }
        let (task, header) = Self::brief_view(plan, brief)?;
        let description = serde_json::to_string_pretty(brief).unwrap_or_default();
        let (empty, images) = (Table::new(), sandmle_core::ImageSet::new());
        let view = PublicView {
            task: &task,
            description: &description,
            train: &header,
            test: &empty,
            sample_submission: &empty,
            images: &images,
        };
        let program = Program {
            command: vec!["python3".into(), "driver.py".into()],
            code_dir: dir.path().to_path_buf(),
            timeout: self.timeout,
        };
        let run = self.executor.execute(&Solution::Program(program), &view)?;
        let rows = match (run.status, run.submission) {
            (ExecStatus::Completed, Some(rows)) => rows,
            (status, _) => {
                let why = match status {
                    ExecStatus::Failed { reason } | ExecStatus::Rejected { reason } => reason,
                    ExecStatus::TimedOut => format!("the program ran past its {:?} limit", self.timeout),
                    ExecStatus::MemoryExceeded => "the program ran out of memory".into(),
                    other => format!("{other:?}"),
                };
                let stderr = tail(&run.stderr_tail, 2000);
                return Ok(Err(Failure {
                    summary: summary(&why, stderr),
                    detail: format!("{why}\nstderr (its end):\n{stderr}"),
                }));
            }
        };
        let mut env = match self.synthesizer.assemble(plan, &rows, code) {
            Ok(env) => env,
            Err(e) => return Ok(Err(Failure::plain(format!("data.csv does not fit the brief: {e}")))),
        };
        match sandmle_core::set_thresholds(&mut env, self.panel.as_ref(), self.grader.as_ref()) {
            Ok(()) => {}
            // The panel's or grader's own faults are not the program's.
            Err(e) if e.fault() == sandmle_core::Fault::System => return Err(e.into()),
            Err(e) => return Ok(Err(Failure::plain(format!("the data cannot be calibrated: {e}")))),
        }
        let refused: Vec<String> = self
            .verifier
            .verify(&env)?
            .into_iter()
            .filter(|g| !g.passed)
            .map(|g| format!("gate `{}`: {}", g.gate, g.detail))
            .collect();
        if !refused.is_empty() {
            return Ok(Err(Failure::plain(format!("the environment fails its checks: {}", refused.join("; ")))));
        }
        Ok(Ok(env))
    }
}

impl MlDeveloper for ProgramDeveloper {
    fn name(&self) -> &str {
        PROGRAM_DEVELOPER_PROMPT
    }

    fn develop(&self, plan: &TaskPlan) -> Result<Environment> {
        let brief = match (self.synthesizer.program_brief(plan), &self.fallback) {
            (Ok(brief), _) => brief,
            (Err(_), Some(fallback)) => return fallback.develop(plan),
            (Err(e), None) => return Err(e.into()),
        };
        let mut messages = vec![Message::system(SYSTEM), Message::user(Self::prompt(&brief))];
        let mut last = String::new();
        for _ in 0..=self.settings.repairs {
            let reply = self.settings.model.chat(&messages, &[], &self.settings.sampling)?;
            let text = reply.message.content;
            let outcome = match code_block(&text) {
                Some(code) => self.try_program(plan, &brief, &code)?,
                None => Err(Failure::plain("the reply holds no ```python code block".to_owned())),
            };
            match outcome {
                Ok(env) => return Ok(env),
                Err(failure) => {
                    last = sandmle_core::bounded(&failure.summary);
                    messages.push(Message::assistant(text));
                    messages.push(Message::user(format!(
                        "The program failed: {}\nFix it and reply with the whole program in one ```python block.",
                        failure.detail
                    )));
                }
            }
        }
        Err(Error::GeneratorProgram { attempts: self.settings.repairs.saturating_add(1), reason: last })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_code_block_is_found_in_prose() {
        assert_eq!(code_block("Here:\n```python\nprint(1)\n```\nDone.").as_deref(), Some("print(1)\n"));
        assert_eq!(code_block("```\nx = 2\n```").as_deref(), Some("x = 2\n"));
        assert_eq!(code_block("no code"), None);
        assert_eq!(code_block("```python\n\n```"), None);
        assert_eq!(tail("abcdef", 2), "ef");
        assert_eq!(tail("é", 1), "");
    }
}
