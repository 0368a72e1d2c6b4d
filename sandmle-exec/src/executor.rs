//! [`PipelineExecutor`]: runs a [`PipelineSpec`] in-process.

use crate::error::{Error, Result};
use crate::image::{append_columns, clashing_name};
use crate::model::{self, Clock, NeighbourCache, Prediction, SharedBins, SharedForests};
use crate::preprocess::{Frames, TargetSignal};
use crate::spec::{CheckedPipeline, PipelineSpec, Step};
use crate::submission::{Output, assemble};
use crate::target::{self, Classes};
use ndarray::Array2;
use sandmle_core::{
    Column, ExecStatus, Execution, Executor, PublicView, Solution, SubmissionForm, Table, TaskSpec, Timings, bounded,
};
use std::time::{Duration, Instant};

/// The in-process pipeline executor: the fast path, milliseconds on micro
/// data. Deterministic for a given spec seed.
///
/// A time limit, when set, is checked between preprocessing steps, before
/// every model call and between the trees of a forest, so a run stops
/// within one such unit of work after its limit (an RL step's budget holds
/// for pipelines as for programs).
#[derive(Debug, Clone, Copy, Default)]
pub struct PipelineExecutor {
    /// Wall-clock limit of one run; `None` for none.
    pub time_limit: Option<Duration>,
}

/// What the in-process executor reports as its isolation.
const IN_PROCESS: &str = "in-process: a declarative pipeline reads only the public view";

/// A pipeline's submission and phase timings.
#[derive(Debug, Clone, PartialEq)]
pub struct PipelineRun {
    /// The submission (id column and prediction columns).
    pub submission: Table,
    /// `load`, `preprocess`, `fit`, `predict` and `assemble`, in
    /// microseconds; first `image_features` on an image task whose view
    /// holds its images.
    pub timings: Timings,
}

impl PipelineExecutor {
    /// An executor whose runs stop at `limit`.
    pub fn with_time_limit(limit: Duration) -> Self {
        PipelineExecutor { time_limit: Some(limit) }
    }

    /// Runs a checked pipeline on `view`: fits every step and the model on
    /// the training rows (one model per target column), predicts the test
    /// rows, and assembles the submission in the form the metric needs.
    /// On an image task whose view holds its images, the image features
    /// ([`crate::image::image_feature_tables`]) are appended to both tables
    /// first.
    ///
    /// # Errors
    /// Typed errors for unknown columns, features left non-numeric or
    /// incomplete, models unfit for the task, too few rows, smartcore
    /// failures and the time limit ([`Error::is_solution_fault`] tells them
    /// from the executor's own faults); [`Error::Image`] for a missing or
    /// undecodable image (the environment's fault).
    pub fn run(&self, spec: &CheckedPipeline, view: &PublicView<'_>) -> Result<PipelineRun> {
        let clock = Clock::with_limit(self.time_limit);
        let prepared = prepare(&spec.steps, view, &clock)?;
        fit_and_assemble(spec, view.task, &prepared, &clock)
    }
}

/// A view's tables after a list of steps: the matrices every model of a
/// pipeline with those steps learns from, the targets and the test ids.
/// The panel prepares once per distinct list of steps and runs each of its
/// members on the result; the kNN members also share their neighbour
/// lists (`neighbours`), and histogram forests of one seed and shape their
/// trees (`forests`).
pub(crate) struct Prepared {
    x: Array2<f64>,
    x_test: Array2<f64>,
    /// The training features column by column, `x`'s columns in order (the
    /// table `x` was built from): histogram models bin these rather than
    /// gather each column back out of the row-major `x`.
    train: Table,
    ids: Column,
    targets: Vec<Target>,
    /// `image_features`, `load` and `preprocess`.
    timings: Timings,
    /// Neighbour lists for kNN members, computed by the first that needs them.
    pub neighbours: Option<NeighbourCache>,
    /// The binned training matrix for histogram models, likewise.
    pub bins: Option<SharedBins>,
    /// Histogram forests for members whose trees are a prefix of them.
    pub forests: Option<SharedForests>,
}

impl Prepared {
    /// The test matrix every member predicts.
    pub(crate) fn x_test(&self) -> &Array2<f64> {
        &self.x_test
    }
}

/// Applies `steps` to `view`'s tables (featurizing an image task's images
/// first when the view holds them); see [`PipelineExecutor::run`].
pub(crate) fn prepare(steps: &[Step], view: &PublicView<'_>, clock: &Clock) -> Result<Prepared> {
    let mut partial = Partial::start(view, clock)?;
    partial.apply(steps, clock)?;
    partial.finish()
}

/// A view's tables part way through a list of steps: the panel applies the
/// steps its members share once and each member's own on a copy.
#[derive(Clone)]
pub(crate) struct Partial {
    frames: Frames,
    ids: Column,
    targets: Vec<Target>,
    /// `image_features` and `load`.
    timings: Timings,
    /// Time spent in steps so far.
    preprocess: Duration,
}

impl Partial {
    /// What the first of `targets` tells a supervised step.
    fn signal(targets: &[Target]) -> Result<TargetSignal<'_>> {
        match targets.first() {
            Some(Target::Classes(c)) => Ok(TargetSignal::Classes(&c.y, c.k())),
            Some(Target::Values(v)) => Ok(TargetSignal::Values(v)),
            None => Err(Error::UnsupportedTask { reason: "the task names no target column".into() }),
        }
    }

    /// Applies `steps` in order.
    pub(crate) fn apply(&mut self, steps: &[Step], clock: &Clock) -> Result<()> {
        let start = Instant::now();
        let signal = Partial::signal(&self.targets)?;
        for step in steps {
            clock.check_deadline()?;
            self.frames.apply(step, signal)?;
        }
        self.preprocess += start.elapsed();
        Ok(())
    }

    /// A copy of this partial after `steps`, when the first of them keeps
    /// named columns ([`Frames::narrowed`]): only those columns are
    /// copied, not the whole tables. `None` for any other first step.
    pub(crate) fn narrowed(&self, steps: &[Step], clock: &Clock) -> Option<Result<Partial>> {
        let start = Instant::now();
        if let Err(e) = clock.check_deadline() {
            return Some(Err(e));
        }
        let signal = match Partial::signal(&self.targets) {
            Ok(s) => s,
            Err(e) => return Some(Err(e)),
        };
        let frames = self.frames.narrowed(steps.first()?, signal)?;
        Some(frames.and_then(|frames| {
            let mut p = Partial {
                frames,
                ids: self.ids.clone(),
                targets: self.targets.clone(),
                timings: self.timings.clone(),
                preprocess: self.preprocess + start.elapsed(),
            };
            p.apply(&steps[1..], clock)?;
            Ok(p)
        }))
    }

    /// The matrices the models learn from.
    pub(crate) fn finish(self) -> Result<Prepared> {
        let Partial { frames, ids, targets, mut timings, preprocess } = self;
        let start = Instant::now();
        let (x, x_test) = frames.matrices()?;
        timings.push("preprocess", preprocess + start.elapsed());
        let train = frames.train;
        Ok(Prepared { x, x_test, train, ids, targets, timings, neighbours: None, bins: None, forests: None })
    }

    /// The view's feature tables, test ids and targets, before any step;
    /// an image task's images featurized first when the view holds them.
    pub(crate) fn start(view: &PublicView<'_>, clock: &Clock) -> Result<Partial> {
        if view.train.n_rows() < 2 {
            return Err(Error::TooFewRows { what: "a pipeline".into(), needed: 2, found: view.train.n_rows() });
        }
        let start = Instant::now();
        let images = if view.task.images.is_some() && !view.images.is_empty() {
            let features = crate::row_files::file_features(view)?;
            clock.check_deadline()?;
            Some((features, start.elapsed()))
        } else {
            None
        };
        Partial::start_with(view, images)
    }

    /// [`Partial::start`] with the image features already computed
    /// (train and test tables of the image feature columns alone, and the
    /// time they took): they join the view's own features after them,
    /// moved (copied when the view has feature columns of its own, which
    /// an image task's tables rarely have). The panel featurizes once for
    /// all its members.
    ///
    /// # Errors
    /// As [`Partial::start`]; an image feature's name that is already a
    /// column of the view's tables is the clash appending the features
    /// would meet ([`sandmle_core::Error::DuplicateColumn`]), found before
    /// a missing test column, as then.
    pub(crate) fn start_with(view: &PublicView<'_>, images: Option<((Table, Table), Duration)>) -> Result<Partial> {
        let task = view.task;
        if view.train.n_rows() < 2 {
            return Err(Error::TooFewRows { what: "a pipeline".into(), needed: 2, found: view.train.n_rows() });
        }
        let mut timings = Timings::default();
        let start = Instant::now();
        let (train, test) = (view.train, view.test);
        let id = task.id_column.as_str();
        if let Some(name) = images.as_ref().and_then(|((image_train, _), _)| clashing_name(view, image_train.names())) {
            return Err(sandmle_core::Error::DuplicateColumn { name: name.clone() }.into());
        }
        let features: Vec<String> = train.names().iter().filter(|n| task.is_feature(n)).cloned().collect();
        if let Some(missing) = features.iter().find(|f| !test.has_column(f)) {
            return Err(Error::MissingTestColumn { column: missing.clone() });
        }
        let frames = match images {
            None => Frames { train: train.select(&features)?, test: test.select(&features)? },
            Some(((image_train, image_test), took)) => {
                timings.push("image_features", took);
                if features.is_empty() {
                    Frames { train: image_train, test: image_test }
                } else {
                    let (mut own_train, mut own_test) = (train.select(&features)?, test.select(&features)?);
                    append_columns(&mut own_train, &image_train)?;
                    append_columns(&mut own_test, &image_test)?;
                    Frames { train: own_train, test: own_test }
                }
            }
        };
        let ids = test.column(id)?.clone();
        let classes = !matches!(task.submission_form(), SubmissionForm::Value);
        let targets: Vec<Target> = task
            .target_columns
            .iter()
            .map(|name| {
                let col = train.column(name)?;
                Ok(if classes {
                    Target::Classes(Classes::from_column(name, col)?)
                } else {
                    Target::Values(target::values(name, col)?)
                })
            })
            .collect::<Result<_>>()?;
        timings.push("load", start.elapsed());
        Ok(Partial { frames, ids, targets, timings, preprocess: Duration::ZERO })
    }
}

/// Fits `spec`'s model on prepared matrices, predicts and assembles the
/// submission; the timings are the preparation's and this run's.
pub(crate) fn fit_and_assemble(
    spec: &PipelineSpec,
    task: &TaskSpec,
    prepared: &Prepared,
    clock: &Clock,
) -> Result<PipelineRun> {
    let Prepared { x, x_test, train, ids, targets, timings, neighbours, bins, forests } = prepared;
    // `matrices` checked that every training column is numeric; a model
    // reading the columns checks their shape against `x`.
    let columns: Vec<&[f64]> = train.iter().filter_map(|(_, c)| c.as_numeric()).collect();
    let mut timings = timings.clone();
    let mut outputs = Vec::with_capacity(targets.len());
    for (i, t) in targets.iter().enumerate() {
        let d = model::Data {
            clock,
            x,
            x_test,
            columns: Some(&columns),
            seed: sandmle_core::derive_seed(spec.seed, &format!("target-{i}")),
        };
        let caches = model::Caches {
            neighbours: neighbours.as_ref(),
            bins: bins.as_ref(),
            forests: forests.as_ref().and_then(|f| f.share(spec)),
        };
        outputs.push(match t {
            Target::Classes(c) => match model::fit_predict(&d, caches, &spec.model, model::Target::Classes(c))? {
                Prediction::Probs(p) => Output::Probs(c.clone(), p),
                Prediction::Values(_) => {
                    return Err(Error::UnsupportedTask { reason: "a classifier predicted values".into() });
                }
            },
            Target::Values(v) => {
                let Prediction::Values(mut pred) =
                    model::fit_predict(&d, caches, &spec.model, model::Target::Values(v))?
                else {
                    return Err(Error::UnsupportedTask { reason: "a regressor predicted classes".into() });
                };
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
    let submission = assemble(task, ids, outputs)?;
    timings.push("assemble", start.elapsed());
    Ok(PipelineRun { submission, timings })
}

#[derive(Clone)]
enum Target {
    Classes(Classes),
    Values(Vec<f64>),
}

impl Executor for PipelineExecutor {
    fn name(&self) -> &str {
        "pipeline"
    }

    /// Runs a pipeline spec. A spec the agent got wrong (invalid JSON for a
    /// spec, a parameter out of range, a model unfit for the task, a column
    /// the data lacks) is a [`ExecStatus::Rejected`] execution, a run past
    /// the time limit a [`ExecStatus::TimedOut`] one; `Err` only for the
    /// executor's own faults and for programs, which it does not run.
    fn execute(&self, solution: &Solution, task: &PublicView<'_>) -> sandmle_core::Result<Execution> {
        let Solution::Pipeline(json) = solution else {
            return Err(sandmle_core::Error::Unsupported {
                component: "pipeline executor".into(),
                what: "programs (use the process executor)".into(),
            });
        };
        let start = Instant::now();
        let outcome = PipelineSpec::from_json(json).and_then(|spec| self.run(&spec, task));
        match outcome {
            Ok(run) => Ok(Execution {
                status: ExecStatus::Completed,
                submission: Some(run.submission),
                timings: run.timings,
                stdout_tail: String::new(),
                stderr_tail: String::new(),
                isolation: IN_PROCESS.into(),
            }),
            Err(e) if e.is_solution_fault() => {
                let mut timings = Timings::default();
                timings.push("run", start.elapsed());
                let mut execution = Execution::rejected(bounded(&e.to_string()), timings, IN_PROCESS);
                if matches!(e, Error::TimeLimit { .. }) {
                    execution.status = ExecStatus::TimedOut;
                }
                Ok(execution)
            }
            Err(e) => Err(e.into()),
        }
    }
}
