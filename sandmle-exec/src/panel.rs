//! [`Panel`]: the versioned baseline panel, weak to strong.
//!
//! For classes: the class prior, logistic regression on the 1, 2 and 5
//! best features and on all of them at three penalties, Gaussian naive
//! Bayes, trees of depth 1, 3, 6 and unlimited, kNN with k = 1, 5, 15 and
//! 31, and histogram forests of 10, 30 and 100 trees (the first 10 and 30
//! trees of the forest of 100), of 100 trees cut at depth 4 (the trees of
//! that forest, cut) and of 100 trees with leaves of at least 5 (the
//! forest of 100's seed: its trees replay that forest's split searches
//! where the larger leaves allow the same cut). For values: the mean and the
//! median, least squares on the 1, 3 and all features, ridge, lasso,
//! elastic net, and the same trees, kNN and forests. Every spec imputes medians, one-hot encodes categories (20
//! levels), hashes text (256 buckets) and standardises; values are clipped
//! to the training target's range.
//!
//! On a task whose one label column mostly copies a feature (a token of
//! text normalization is mostly itself), `lookup-copy` joins them
//! ([`crate::lookup`]): each input's most frequent label in training, the
//! input itself when training never saw it (panel v12; earlier versions
//! lacked it, and give the same leaderboards on every other task).
//!
//! SVMs are not in the panel: smartcore's SVC takes 100–200 ms on 200 rows,
//! more than the rest of the panel together, which would halve the
//! generation throughput.
//!
//! The steps every member starts with run once per panel run, and each
//! distinct list of steps runs only its remaining ones (the `SelectBest`
//! of the `*-best-k` members), on a copy of only the columns it keeps
//! when its first step keeps named columns, else on a whole copy; the kNN members share one list of
//! nearest rows per test row (the longest any of them needs; the others
//! take its prefix, which is exactly their own), the histogram forests
//! and trees one binning of the training matrix, and the forests of 10, 30
//! and 100 trees and the one of depth 4 one forest of 100 (each takes its
//! first trees, cut at its depth, which are exactly the ones it grows
//! alone), and the trees of depth 1, 3 and 6 one tree of depth 6 (the
//! other two its cuts).
//! All are shortcuts only: every member's submission is the one it makes
//! alone.
//!
//! On a large training table every spec is fitted on the same
//! deterministic subsample of [`Panel::max_train_rows`] rows (and kNN is
//! left out above [`KNN_MAX_ROWS`] rows): the
//! panel then runs in minutes on 100,000-row seeds. The test rows are never
//! subsampled.
//!
//! On an image task every spec learns from the image features of
//! [`crate::image`], computed once per panel run (after the subsample) and
//! shared by every member.

use crate::executor::{Partial, Prepared, fit_and_assemble};
use crate::image::clashing_name;
use crate::model::{Clock, NeighbourCache, SharedBins, SharedForests};
use crate::spec::{EncodeMethod, ImputeStrategy, ModelSpec, PipelineSpec, ScaleMethod, Step};
use rayon::prelude::*;
use sandmle_core::{
    BaselinePanel, Environment, Grader, Leaderboard, LeaderboardEntry, PublicView, SubmissionForm, Table, TaskSpec,
    rng_for,
};
use serde::Serialize;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The panel's version: bumped whenever its specs or their scores change.
///
/// v4: logistic regression is this crate's (scikit-learn's lbfgs fit), no
/// longer smartcore's.
/// v5: kNN is brute force (ties to the earlier training row), no longer
/// smartcore's cover tree; histogram forests for values try every feature
/// per split (scikit-learn's default), no longer a third.
/// v6: histogram forests split as scikit-learn's trees do (thresholds
/// midway between a node's own values, zero-gain cuts taken); the text
/// step hashes as scikit-learn's `HashingVectorizer`; Gaussian naive Bayes
/// is this crate's (scikit-learn's fit); smartcore's forest of 30 trees is
/// no longer a member (it took a fifth of the panel's time).
/// v7: a histogram tree's node holds its rows in increasing order (a
/// split partitions them stably), so each bin's values are summed in row
/// order: forests and trees for values can differ in the last bits of a
/// gain, hence on near ties; class trees are the same (their sums are
/// whole numbers).
/// v8: the forests of 10 and 30 trees take the seed of the forest of 100,
/// so their trees are its first 10 and 30 (one forest of 100 is grown per
/// panel run), no longer forests of their own seeds; logistic regression's
/// L-BFGS sums its dot products in four lanes, so its coefficients can
/// differ in their last bits (no bundled seed's score moved).
/// v9: a histogram tree's nodes draw their candidate features from one
/// stream per depth (not one stream for the whole tree), so a tree grown
/// to depth `d` is the unlimited tree of its seed cut at `d`; the forest
/// of depth 4 takes the seed of the forest of 100 and is its trees cut at
/// depth 4 (one forest fewer grown per panel run). Every tree and forest
/// is drawn anew.
/// v10: the forest of 100 trees with leaves of 5 takes the seed of the
/// forest of 100 (it was seed 5), so its trees draw the same bootstraps
/// and candidates and replay that forest's split searches wherever the
/// larger leaves allow the same cut (the same trees as grown alone, with
/// about half the search work on an image task); only its own score
/// moves.
/// v11: each tree node above depth 8 draws its candidates from a place of
/// its own in its tree's stream (its depth and turns from the root), not
/// from its depth's stream after the nodes searched before it, so the
/// forest of leaves of 5 replays the forest of 100's searches at every
/// node above depth 8 they share (its fit in about 70 % of the time on an
/// image task). Every forest and tree is drawn anew.
/// v13: an image task's features gain the five object features
/// ([`crate::image::objects`]: regions off the background, their count,
/// areas and fill); every member's score on an image task moves.
pub const PANEL_VERSION: &str = "panel-v13";
/// kNN is left out of the panel above this many training rows.
pub const KNN_MAX_ROWS: usize = 20_000;

/// The baseline panel.
#[derive(Debug, Clone, Copy)]
pub struct Panel {
    /// Fit every spec on a deterministic subsample of at most this many
    /// training rows (`None`: all rows). Default 20,000.
    pub max_train_rows: Option<usize>,
}

impl Default for Panel {
    fn default() -> Self {
        Panel { max_train_rows: Some(20_000) }
    }
}

/// One panel member's outcome.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PanelEntry {
    /// The spec's name.
    pub name: String,
    /// Its score, if it ran and its submission was valid.
    pub score: Option<f64>,
    /// Why it has no score.
    pub error: Option<String>,
    /// Wall-clock microseconds to run and grade it.
    pub micros: u64,
}

/// The outcome of running the panel on an environment.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PanelReport {
    /// The panel version.
    pub version: &'static str,
    /// Every member, in panel order.
    pub entries: Vec<PanelEntry>,
    /// The members with a score, best first (ties keep panel order).
    pub leaderboard: Leaderboard,
    /// The training rows the specs were fitted on.
    pub train_rows_used: usize,
    /// The training rows the environment has.
    pub train_rows: usize,
}

fn prep() -> Vec<Step> {
    vec![
        Step::Impute { strategy: ImputeStrategy::Median, value: None },
        Step::Encode { method: EncodeMethod::OneHot, max_levels: Some(20) },
        Step::Text { n_features: Some(256), ngram_max: Some(1), tfidf: true },
        Step::Scale { method: ScaleMethod::Standard },
    ]
}

fn spec(name: &str, seed: u64, extra: Option<Step>, model: ModelSpec) -> PipelineSpec {
    let mut steps = prep();
    steps.extend(extra);
    PipelineSpec { name: name.into(), seed, steps, model, clip_to_target_range: true }
}

fn best(k: usize) -> Option<Step> {
    Some(Step::SelectBest { k })
}

fn tree(max_depth: Option<u16>, min_samples_leaf: usize) -> ModelSpec {
    ModelSpec::DecisionTree { max_depth, min_samples_leaf }
}

fn forest(n_trees: usize, max_depth: Option<u16>, min_samples_leaf: usize) -> ModelSpec {
    ModelSpec::HistForest { n_trees, max_depth, min_samples_leaf, max_features: None }
}

fn knn(k: usize, distance_weighted: bool) -> ModelSpec {
    ModelSpec::Knn { k, distance_weighted }
}

impl Panel {
    /// The panel's specs for a task with `train_rows` training rows (kNN
    /// only up to [`KNN_MAX_ROWS`] rows).
    pub fn specs(&self, task: &TaskSpec, train_rows: usize) -> Vec<PipelineSpec> {
        let rows = self.max_train_rows.map_or(train_rows, |cap| train_rows.min(cap));
        let values = task.submission_form() == SubmissionForm::Value;
        let mut s = if values {
            vec![
                spec("mean", 0, None, ModelSpec::Constant { median: false }),
                spec("median", 0, None, ModelSpec::Constant { median: true }),
                spec("linear-best-1", 0, best(1), ModelSpec::LinearRegression),
                spec("linear-best-3", 0, best(3), ModelSpec::LinearRegression),
                spec("linear", 0, None, ModelSpec::LinearRegression),
                spec("ridge-1", 0, None, ModelSpec::Ridge { alpha: 1.0 }),
                spec("ridge-100", 0, None, ModelSpec::Ridge { alpha: 100.0 }),
                spec("lasso-0.1", 0, None, ModelSpec::Lasso { alpha: 0.1 }),
                spec("elastic-net", 0, None, ModelSpec::ElasticNet { alpha: 0.1, l1_ratio: 0.5 }),
            ]
        } else {
            vec![
                spec("prior", 0, None, ModelSpec::Constant { median: false }),
                spec("logistic-best-1", 0, best(1), ModelSpec::LogisticRegression { c: Some(1.0) }),
                spec("logistic-best-2", 0, best(2), ModelSpec::LogisticRegression { c: Some(1.0) }),
                spec("logistic-best-5", 0, best(5), ModelSpec::LogisticRegression { c: Some(1.0) }),
                spec("logistic-c0.01", 0, None, ModelSpec::LogisticRegression { c: Some(0.01) }),
                spec("logistic-c1", 0, None, ModelSpec::LogisticRegression { c: Some(1.0) }),
                spec("logistic-c100", 0, None, ModelSpec::LogisticRegression { c: Some(100.0) }),
                spec("gaussian-nb", 0, None, ModelSpec::GaussianNb { var_smoothing: 1e-9 }),
            ]
        };
        s.extend([
            spec("stump", 0, None, tree(Some(1), 1)),
            spec("tree-3", 0, None, tree(Some(3), 1)),
            spec("tree-6", 0, None, tree(Some(6), 1)),
            spec("tree-leaf-5", 0, None, tree(None, 5)),
        ]);
        // kNN members share one neighbour list: on an image task's 350
        // features (200 x 400 rows of 32 x 32 RGB) the four cost 15-25 ms
        // together, under a tenth of the panel.
        if rows <= KNN_MAX_ROWS {
            s.extend([
                spec("knn-1", 0, None, knn(1, false)),
                spec("knn-5", 0, None, knn(5, false)),
                spec("knn-15", 0, None, knn(15, false)),
                spec("knn-31-distance", 0, None, knn(31, true)),
            ]);
        }
        s.extend([
            spec("forest-10", 3, None, forest(10, None, 1)),
            spec("forest-30", 3, None, forest(30, None, 1)),
            spec("forest-100", 3, None, forest(100, None, 1)),
            spec("forest-100-depth-4", 3, None, forest(100, Some(4), 1)),
            spec("forest-100-leaf-5", 3, None, forest(100, None, 5)),
        ]);
        s
    }

    /// Runs every spec on `env` (in parallel, results in panel order) and
    /// grades each with `grader`. A member that fails or whose submission
    /// is invalid gets no score, with the reason. An image task's images
    /// are featurized once for all members.
    ///
    /// # Errors
    /// When the grader finds the environment broken (no member could have
    /// been graded), or an image is missing or cannot be decoded
    /// ([`sandmle_core::Error::InvalidEnvironment`]), or a table already
    /// has a column of an image feature's name
    /// ([`sandmle_core::Error::DuplicateColumn`]).
    pub fn run(&self, env: &Environment, grader: &dyn Grader) -> sandmle_core::Result<PanelReport> {
        let train_rows = env.train.n_rows();
        let mut fit_env;
        let env_used = match self.max_train_rows {
            Some(cap) if train_rows > cap => {
                let mut rng = rng_for(0, "panel-subsample");
                let mut rows: Vec<usize> = rand::seq::index::sample(&mut rng, train_rows, cap).into_vec();
                rows.sort_unstable();
                fit_env = env.clone();
                fit_env.train = env.train.take(&rows).unwrap_or_else(|_| env.train.clone());
                &fit_env
            }
            _ => env,
        };
        // An image task's images are decoded and featurized once, here, and
        // every member runs on the features, moved into the shared tables
        // (the executor does not featurize them again).
        let view = env_used.public_view();
        let start = Instant::now();
        let featurized = match (&env.task().images, env_used.images.is_empty()) {
            (Some(_), false) => Some((crate::row_files::file_features(&view)?, start.elapsed())),
            _ => None,
        };
        // A table's column of an image feature's name breaks the
        // environment, not one member.
        if let Some(name) = featurized.as_ref().and_then(|((train, _), _)| clashing_name(&view, train.names())) {
            return Err(sandmle_core::Error::DuplicateColumn { name: name.clone() });
        }
        let specs = self.specs(env.task(), env_used.train.n_rows());
        let prepared = prepare_shared(&specs, &view, featurized);
        let entries: Vec<PanelEntry> = specs
            .into_par_iter()
            .enumerate()
            .map(|(i, spec)| {
                let start = Instant::now();
                let name = spec.name.clone();
                let outcome = spec.check().map_err(|e| e.to_string()).and_then(|spec| match prepared[i].as_ref() {
                    Ok(p) => fit_and_assemble(&spec, view.task, p, &Clock::default()).map_err(|e| e.to_string()),
                    Err(e) => Err(e.clone()),
                });
                let (score, error) = match outcome {
                    Ok(run) => {
                        // The leaderboard holds scores as graders compare
                        // them (rounded to 5 decimals, as MLE-bench does),
                        // so a submission reproducing a baseline ties it.
                        let report = grader.grade(&env.grading_task(), &run.submission)?;
                        (report.score, report.error)
                    }
                    Err(e) => (None, Some(e)),
                };
                Ok(PanelEntry { name, score, error, micros: start.elapsed().as_micros() as u64 })
            })
            .collect::<sandmle_core::Result<Vec<_>>>()?;
        let mut entries = entries;
        // A task whose label mostly copies an input gets the copy baseline.
        let start = Instant::now();
        if let Some(submission) = crate::lookup::lookup_copy(view.task, &env_used.train, &env_used.test) {
            let report = grader.grade(&env.grading_task(), &submission)?;
            entries.push(PanelEntry {
                name: crate::lookup::LOOKUP_COPY.into(),
                score: report.score,
                error: report.error,
                micros: start.elapsed().as_micros() as u64,
            });
        }
        let direction = env.task().direction;
        let mut ranked: Vec<&PanelEntry> = entries.iter().filter(|e| e.score.is_some()).collect();
        ranked.sort_by(|a, b| {
            let (x, y) = (a.score.unwrap_or(f64::NAN), b.score.unwrap_or(f64::NAN));
            if direction.better(x, y) {
                std::cmp::Ordering::Less
            } else if direction.better(y, x) {
                std::cmp::Ordering::Greater
            } else {
                std::cmp::Ordering::Equal
            }
        });
        let leaderboard = Leaderboard {
            entries: ranked
                .iter()
                .map(|e| LeaderboardEntry { name: e.name.clone(), score: e.score.unwrap_or(f64::NAN) })
                .collect(),
        };
        Ok(PanelReport {
            version: PANEL_VERSION,
            entries,
            leaderboard,
            train_rows_used: env_used.train.n_rows(),
            train_rows,
        })
    }
}

/// Per spec, its steps' prepared matrices (or why they failed), shared by
/// every spec with the same steps. The steps every spec starts with run
/// once; each distinct list of steps then runs its own remaining steps on
/// a copy: of the columns its first step keeps, when that step keeps
/// named columns ([`Partial::narrowed`]), else of the whole tables (the
/// last such group takes the tables themselves). The histogram forests and trees of a preparation share its
/// binned training matrix, kNN members one neighbour cache (as long as
/// the longest list they need), and histogram forests of one seed and
/// shape one forest, as large as the largest wants ([`SharedForests`]). A
/// step is a function of the tables and the target, so each member's
/// matrices are the ones it would make alone.
fn prepare_shared(
    specs: &[PipelineSpec],
    view: &PublicView<'_>,
    featurized: Option<((Table, Table), Duration)>,
) -> Vec<Arc<Result<Prepared, String>>> {
    let mut groups: Vec<(&[Step], Vec<usize>)> = Vec::new();
    for (i, s) in specs.iter().enumerate() {
        match groups.iter_mut().find(|(steps, _)| *steps == s.steps.as_slice()) {
            Some((_, members)) => members.push(i),
            None => groups.push((&s.steps, vec![i])),
        }
    }
    let shared = groups.iter().map(|(steps, _)| steps.len()).min().unwrap_or(0);
    let shared = (0..shared).take_while(|&j| groups.iter().all(|(steps, _)| steps[j] == groups[0].0[j])).count();
    let clock = Clock::default();
    let prefix = groups.first().map_or(&[][..], |(steps, _)| &steps[..shared]);
    let base = Partial::start_with(view, featurized).and_then(|mut p| p.apply(prefix, &clock).map(|()| p));
    // A group whose own steps start by keeping named columns (the
    // `select_best` members) copies only those from the shared tables,
    // its steps applied here; every other group takes a copy of the whole
    // tables, and the last of them the tables themselves.
    let base = base.map_err(|e| e.to_string());
    let mut starts: Vec<Option<(Result<Partial, String>, bool)>> = groups
        .iter()
        .map(|(steps, _)| {
            let partial = base.as_ref().ok()?.narrowed(&steps[shared..], &clock)?;
            Some((partial.map_err(|e| e.to_string()), true))
        })
        .collect();
    let whole: Vec<usize> = (0..groups.len()).filter(|&g| starts[g].is_none()).collect();
    let mut base = Some(base);
    for (n, &g) in whole.iter().enumerate() {
        let copy = if n + 1 == whole.len() { base.take() } else { base.clone() };
        starts[g] = copy.map(|p| (p, false));
    }
    let starts = starts.into_iter().map(|s| s.unwrap_or_else(|| (Err("the shared tables were taken".into()), true)));
    let done: Vec<Arc<Result<Prepared, String>>> = groups
        .par_iter()
        .zip(starts.collect::<Vec<_>>())
        .map(|((steps, members), (base, applied))| {
            let k = members.iter().filter_map(|&i| match specs[i].model {
                ModelSpec::Knn { k, .. } => Some(k),
                _ => None,
            });
            let clock = Clock::default();
            let mut p = match base {
                Ok(partial) if applied => partial.finish().map_err(|e| e.to_string()),
                Ok(mut partial) => {
                    partial.apply(&steps[shared..], &clock).and_then(|()| partial.finish()).map_err(|e| e.to_string())
                }
                Err(e) => Err(e),
            };
            if let (Ok(p), Some(k)) = (&mut p, k.max()) {
                p.neighbours = Some(NeighbourCache::new(k));
            }
            if let Ok(p) = &mut p {
                p.bins = Some(SharedBins::default());
                let forests = SharedForests::for_specs(members.iter().map(|&i| &specs[i]));
                p.forests = Some(forests.predicting(p.x_test()));
            }
            Arc::new(p)
        })
        .collect();
    let mut out: Vec<Option<Arc<Result<Prepared, String>>>> = vec![None; specs.len()];
    for ((_, members), p) in groups.iter().zip(done) {
        for &i in members {
            out[i] = Some(Arc::clone(&p));
        }
    }
    // Every spec is in exactly one group.
    out.into_iter().flatten().collect()
}

impl BaselinePanel for Panel {
    fn version(&self) -> &str {
        PANEL_VERSION
    }

    fn leaderboard(&self, env: &Environment, grader: &dyn Grader) -> sandmle_core::Result<Leaderboard> {
        let report = self.run(env, grader)?;
        if report.leaderboard.entries.is_empty() {
            return Err(sandmle_core::Error::InvalidEnvironment {
                reason: "no baseline of the panel produced a valid submission".into(),
            });
        }
        Ok(report.leaderboard)
    }
}
