//! [`PipelineExecutor`]: runs a [`PipelineSpec`] in-process.

use crate::error::{Error, Result};
use crate::model::{self, Clock};
use crate::preprocess::{Frames, TargetSignal};
use crate::spec::PipelineSpec;
use crate::submission::{Output, assemble};
use crate::target::{self, Classes};
use sandmle_core::{ExecStatus, Execution, Executor, PublicView, Solution, SubmissionForm, Table, Timings};
use std::time::Instant;

/// The in-process pipeline executor: the fast path, milliseconds on micro
/// data. Deterministic for a given spec seed.
#[derive(Debug, Clone, Copy, Default)]
pub struct PipelineExecutor;

/// A pipeline's submission and phase timings.
#[derive(Debug, Clone, PartialEq)]
pub struct PipelineRun {
    /// The submission (id column and prediction columns).
    pub submission: Table,
    /// `load`, `preprocess`, `fit`, `predict` and `assemble`, in microseconds.
    pub timings: Timings,
}

impl PipelineExecutor {
    /// Runs `spec` on `view`: fits every step and the model on the training
    /// rows (one model per target column), predicts the test rows, and
    /// assembles the submission in the form the metric needs.
    ///
    /// # Errors
    /// Typed errors for unknown columns, features left non-numeric or
    /// incomplete, models unfit for the task, bad hyper-parameters, too few
    /// rows, and smartcore failures.
    pub fn run(&self, spec: &PipelineSpec, view: &PublicView<'_>) -> Result<PipelineRun> {
        spec.check()?;
        let task = view.task;
        if view.train.n_rows() < 2 {
            return Err(Error::TooFewRows { what: "a pipeline".into(), needed: 2, found: view.train.n_rows() });
        }
        let mut timings = Timings::default();
        let start = Instant::now();
        let id = task.id_column.as_str();
        let features: Vec<String> =
            view.train.names().iter().filter(|n| *n != id && !task.target_columns.contains(n)).cloned().collect();
        if let Some(missing) = features.iter().find(|f| !view.test.has_column(f)) {
            return Err(Error::MissingTestColumn { column: missing.clone() });
        }
        let mut frames = Frames { train: view.train.select(&features)?, test: view.test.select(&features)? };
        let ids = view.test.column(id)?.clone();
        let classes = !matches!(task.submission_form(), SubmissionForm::Value);
        let targets: Vec<Target> = task
            .target_columns
            .iter()
            .map(|name| {
                let col = view.train.column(name)?;
                Ok(if classes {
                    Target::Classes(Classes::from_column(name, col)?)
                } else {
                    Target::Values(target::values(name, col)?)
                })
            })
            .collect::<Result<_>>()?;
        timings.push("load", start.elapsed());

        let start = Instant::now();
        let signal = match targets.first() {
            Some(Target::Classes(c)) => TargetSignal::Classes(&c.y, c.k()),
            Some(Target::Values(v)) => TargetSignal::Values(v),
            None => return Err(Error::UnsupportedTask { reason: "the task names no target column".into() }),
        };
        for step in &spec.steps {
            frames.apply(step, signal)?;
        }
        let (x, x_test) = frames.matrices()?;
        timings.push("preprocess", start.elapsed());

        let clock = Clock::default();
        let mut outputs = Vec::with_capacity(targets.len());
        for (i, t) in targets.into_iter().enumerate() {
            let d = model::Data {
                clock: &clock,
                x: &x,
                x_test: &x_test,
                seed: sandmle_core::derive_seed(spec.seed, &format!("target-{i}")),
            };
            outputs.push(match t {
                Target::Classes(c) => {
                    let p = model::classify(&d, &spec.model, &c)?;
                    Output::Probs(c, p)
                }
                Target::Values(v) => {
                    let mut pred = model::regress(&d, &spec.model, &v)?;
                    if spec.clip_to_target_range {
                        let lo = v.iter().copied().fold(f64::INFINITY, f64::min);
                        let hi = v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
                        pred.iter_mut().for_each(|p| *p = p.clamp(lo, hi));
                    }
                    Output::Values(pred)
                }
            });
        }
        let (fit, predict) = clock.totals();
        timings.push("fit", fit);
        timings.push("predict", predict);

        let start = Instant::now();
        let submission = assemble(task, &ids, outputs)?;
        timings.push("assemble", start.elapsed());
        Ok(PipelineRun { submission, timings })
    }
}

enum Target {
    Classes(Classes),
    Values(Vec<f64>),
}

impl Executor for PipelineExecutor {
    fn name(&self) -> &str {
        "pipeline"
    }

    fn execute(&self, solution: &Solution, task: &PublicView<'_>) -> sandmle_core::Result<Execution> {
        let Solution::Pipeline(json) = solution else {
            return Err(sandmle_core::Error::Unsupported {
                component: "pipeline executor".into(),
                what: "programs (use the process executor)".into(),
            });
        };
        let spec = PipelineSpec::from_json(json)?;
        let run = self.run(&spec, task)?;
        Ok(Execution {
            status: ExecStatus::Completed,
            submission: Some(run.submission),
            timings: run.timings,
            stdout_tail: String::new(),
            stderr_tail: String::new(),
            isolation: "in-process: a declarative pipeline reads only the public view".into(),
        })
    }
}
