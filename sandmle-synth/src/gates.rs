//! [`GateVerifier`]: the checks an environment passes before anyone trains
//! on it, one [`Gate`] each.
//!
//! | gate | passes when |
//! |---|---|
//! | `schema` | the tables agree with the task, and train and test share their feature columns (the task's train-only columns aside), numeric in both or in neither |
//! | `sample_submission` | the sample submission grades as valid |
//! | `thresholds_recorded` | `grading.json`'s thresholds — the ones `evaluate` grades with — equal the thresholds recomputed from the reference leaderboard (and the oracle's ladder, [`sandmle_core::reference_thresholds`]), so a hand-edited (say inverted) set cannot pass |
//! | `thresholds_ordered` | gold is strictly better than silver, silver than bronze, bronze than the median; for an imported competition's real leaderboard ([`sandmle_core::Provenance::has_real_leaderboard`]) at least as good, as MLE-bench's medal rule may tie them; under an oracle's ladder ([`sandmle_core::ladder`]) gold is strictly short of the oracle |
//! | `gold_beats_sample` | gold is strictly better than the sample submission's score |
//! | `solvable` | the best baseline beats the sample (constant) submission by at least `solvable_margin` of the sample's score (an absolute 0.05 when that score is 0) |
//! | `not_saturated` | the sample submission does not reach bronze |
//! | `no_leakage` | ids are uninformative (absolute Spearman correlation of numeric ids with the first target at most 0.3), no test row of a synthesized environment repeats a training row's features (for an image task: its features and the sha256 of its image file; a real competition's repeats are reported, not refused), and no single numeric feature reproduces the target: below `leak_limit` its ROC AUC (two classes), its class separation (more classes: 1 when sorting by it leaves each class in one run) or its absolute Spearman correlation (values); for an image task also the image file's size (as a numeric feature) and the set of its PNG chunk types ([`png_chunk_types`]; as a category: the share of the constant prediction's errors its groups remove, or the correlation ratio for values) stay below `leak_limit` |
//! | `no_answers_in_public` | no column of a public table (`train.csv`, `test.csv`, `sample_submission.csv`) equals an answer column at the test ids it holds; `prepared/public/` holds no other file (reading refuses one) |
//!
//! The thresholds gates read the environment's reference leaderboard and
//! `grading.json`'s thresholds: an environment without them fails those
//! gates (calibrate it first, [`sandmle_core::calibrate`]). Files in
//! `prepared/` that `grading.json` does not list are refused when the
//! environment is read, before any gate runs.
//!
//! The grader comes in through core's [`sandmle_core::Grader`] trait: this
//! crate depends on no implementation of it.

use crate::error::Result;
use crate::stats::{correlation, ranks};
use sandmle_core::{
    CellValue, Column, ColumnType, Environment, GateResult, GradeReport, Grader, Table, Thresholds, Verifier,
};
use std::collections::{BTreeMap, HashSet};
use std::sync::Arc;

/// A verification gate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Gate {
    /// The tables agree with the task.
    Schema,
    /// The sample submission grades as valid.
    SampleSubmission,
    /// `grading.json`'s thresholds are the leaderboard's.
    ThresholdsRecorded,
    /// Gold, silver, bronze and the median are strictly ordered.
    ThresholdsOrdered,
    /// Gold is strictly better than the sample submission.
    GoldBeatsSample,
    /// The best baseline clearly beats the sample submission.
    Solvable,
    /// The sample submission earns no medal.
    NotSaturated,
    /// Neither ids, duplicated rows nor a single feature give the answers away.
    NoLeakage,
    /// No public column equals an answer column.
    NoAnswersInPublic,
}

impl Gate {
    /// Every gate, in the order they run.
    pub const ALL: [Gate; 9] = [
        Gate::Schema,
        Gate::SampleSubmission,
        Gate::ThresholdsRecorded,
        Gate::ThresholdsOrdered,
        Gate::GoldBeatsSample,
        Gate::Solvable,
        Gate::NotSaturated,
        Gate::NoLeakage,
        Gate::NoAnswersInPublic,
    ];

    /// The gate's name in reports (`"thresholds_ordered"`, ...).
    pub fn name(self) -> &'static str {
        match self {
            Gate::Schema => "schema",
            Gate::SampleSubmission => "sample_submission",
            Gate::ThresholdsRecorded => "thresholds_recorded",
            Gate::ThresholdsOrdered => "thresholds_ordered",
            Gate::GoldBeatsSample => "gold_beats_sample",
            Gate::Solvable => "solvable",
            Gate::NotSaturated => "not_saturated",
            Gate::NoLeakage => "no_leakage",
            Gate::NoAnswersInPublic => "no_answers_in_public",
        }
    }

    /// The gate a report names, if any.
    pub fn from_name(name: &str) -> Option<Gate> {
        Gate::ALL.into_iter().find(|g| g.name() == name)
    }

    /// This gate's result among `results`.
    pub fn result_in(self, results: &[GateResult]) -> Option<&GateResult> {
        results.iter().find(|r| r.gate == self.name())
    }
}

/// The verifier.
#[derive(Clone)]
pub struct GateVerifier {
    /// The grader.
    pub grader: Arc<dyn Grader>,
    /// Relative margin of the `solvable` gate (default 0.05).
    pub solvable_margin: f64,
    /// Single-feature ROC AUC or absolute correlation at or above which a
    /// feature counts as leaking the target (default 0.995).
    pub leak_limit: f64,
}

/// What the gates share: the environment, the sample submission's grade
/// and the thresholds.
struct Context<'a> {
    env: &'a Environment,
    sample: GradeReport,
    sample_score: f64,
    /// `grading.json`'s thresholds (what `evaluate` grades with).
    recorded: Option<Thresholds>,
    /// The thresholds recomputed from the leaderboard, or why there are none.
    recomputed: std::result::Result<Thresholds, String>,
}

fn result(gate: Gate, passed: bool, figures: &[(&str, f64)], detail: impl Into<String>) -> GateResult {
    GateResult {
        gate: gate.name().to_owned(),
        passed,
        figures: figures.iter().map(|(k, v)| ((*k).to_owned(), *v)).collect(),
        detail: detail.into(),
    }
}

impl GateVerifier {
    /// A verifier with the default margins.
    pub fn new(grader: Arc<dyn Grader>) -> Self {
        GateVerifier { grader, solvable_margin: 0.05, leak_limit: 0.995 }
    }

    /// Every gate's result, in [`Gate::ALL`] order.
    ///
    /// # Errors
    /// Never for a bad environment (that is a failed gate); only when the
    /// grader finds the environment broken (it cannot grade anything).
    pub fn run(&self, env: &Environment) -> Result<Vec<GateResult>> {
        self.run_only(env, &Gate::ALL)
    }

    /// The results of `gates` only, in [`Gate::ALL`] order.
    ///
    /// # Errors
    /// As [`GateVerifier::run`].
    pub fn run_only(&self, env: &Environment, gates: &[Gate]) -> Result<Vec<GateResult>> {
        let sample = self.grader.grade(&env.grading_task(), &env.sample_submission)?;
        let recomputed = match &env.leaderboard {
            Some(lb) => {
                let oracle = env.grading.oracle.as_ref();
                sandmle_core::reference_thresholds(lb, oracle, env.task().direction, self.grader.as_ref())
                    .map_err(|e| e.to_string())
            }
            None => Err("the environment has no reference leaderboard".to_owned()),
        };
        let ctx = Context {
            env,
            sample_score: sample.score.unwrap_or(f64::NAN),
            sample,
            recorded: env.grading.thresholds,
            recomputed,
        };
        Ok(Gate::ALL.into_iter().filter(|g| gates.contains(g)).map(|g| self.check(g, &ctx)).collect())
    }

    /// One gate on the shared context.
    fn check(&self, gate: Gate, ctx: &Context<'_>) -> GateResult {
        match gate {
            Gate::Schema => match schema(ctx.env) {
                Ok(()) => result(gate, true, &[], "tables agree with the task"),
                Err(why) => result(gate, false, &[], why),
            },
            Gate::SampleSubmission => result(
                gate,
                ctx.sample.valid_submission,
                &[("score", ctx.sample_score)],
                ctx.sample.error.clone().unwrap_or_else(|| "valid".into()),
            ),
            Gate::ThresholdsRecorded => thresholds_recorded(ctx),
            Gate::ThresholdsOrdered => match &ctx.recorded {
                // An imported competition's leaderboard is a real one: MLE-bench's
                // medal rule may tie its thresholds there. A generated
                // leaderboard must order them strictly, and under an oracle's
                // ladder keep gold short of the oracle.
                Some(t) => {
                    let ordered =
                        if ctx.env.provenance.has_real_leaderboard() { t.ordered() } else { t.strictly_ordered() };
                    let oracle = ctx.env.grading.oracle;
                    let under_oracle = oracle.is_none_or(|o| t.direction().better(o.score, t.gold));
                    let mut figures = vec![
                        ("gold", t.gold),
                        ("silver", t.silver),
                        ("bronze", t.bronze),
                        ("median", t.median),
                        ("teams", t.num_teams as f64),
                    ];
                    let mut detail = format!("{} baselines on the leaderboard", t.num_teams);
                    if let Some(o) = oracle {
                        figures.push(("oracle", o.score));
                        figures.push(("standard_error", o.standard_error.unwrap_or(f64::NAN)));
                        if !under_oracle {
                            detail = format!(
                                "gold {} is not short of the oracle's {}: steps of at least the standard error \
                                 leave no room below it",
                                t.gold, o.score
                            );
                        }
                    }
                    result(gate, ordered && under_oracle, &figures, detail)
                }
                None => result(gate, false, &[], "grading.json has no thresholds"),
            },
            Gate::GoldBeatsSample => match &ctx.recorded {
                Some(t) => result(
                    gate,
                    ctx.env.task().direction.better(t.gold, ctx.sample_score),
                    &[("gold", t.gold), ("sample", ctx.sample_score)],
                    "",
                ),
                None => result(gate, false, &[], "grading.json has no thresholds"),
            },
            Gate::Solvable => self.solvable(ctx),
            Gate::NotSaturated => match &ctx.recorded {
                Some(t) => result(
                    gate,
                    !ctx.env.task().direction.at_least(ctx.sample_score, t.bronze),
                    &[("sample", ctx.sample_score), ("bronze", t.bronze)],
                    "",
                ),
                None => result(gate, false, &[], "grading.json has no thresholds"),
            },
            Gate::NoLeakage => self.leakage(ctx.env),
            Gate::NoAnswersInPublic => match answers_in_public(ctx.env) {
                None => result(gate, true, &[], "no public column equals an answer column"),
                Some(why) => result(gate, false, &[], why),
            },
        }
    }

    fn solvable(&self, ctx: &Context<'_>) -> GateResult {
        let direction = ctx.env.task().direction;
        let sample = ctx.sample_score;
        let best = ctx.env.leaderboard.as_ref().and_then(|lb| lb.entries.first().map(|e| e.score));
        let need = if sample == 0.0 { 0.05 } else { self.solvable_margin * sample.abs() };
        match best {
            Some(b) => {
                let gain = if direction.is_lower_better() { sample - b } else { b - sample };
                result(
                    Gate::Solvable,
                    gain >= need,
                    &[("best", b), ("sample", sample), ("gain", gain), ("needed", need)],
                    "",
                )
            }
            None => result(Gate::Solvable, false, &[], "no baseline on the leaderboard"),
        }
    }

    fn leakage(&self, env: &Environment) -> GateResult {
        let task = env.task();
        let mut figures = BTreeMap::new();
        let failed = |why: String| result(Gate::NoLeakage, false, &[], why);
        let Some(target) = task.target_columns.first() else {
            return failed("no target".into());
        };
        let Ok(tcol) = env.train.column(target) else {
            return failed(format!("no target column `{target}`"));
        };
        let y = target_signal(tcol);
        // Ids.
        let ids: Option<Vec<f64>> = env.train.column(&task.id_column).ok().and_then(Column::to_f64_lenient);
        let id_corr = ids.map_or(0.0, |ids| correlation(&ranks(&ids), &ranks(&y)).abs());
        figures.insert("id_spearman".into(), id_corr);
        // Duplicated feature rows across the split.
        let features: Vec<&str> =
            env.test.names().iter().map(String::as_str).filter(|n| *n != task.id_column).collect();
        // An image task's rows are their images: compare the files' sha256
        // (each file's computed once by the image set).
        let file_of = |t: &Table, r: usize| -> Option<String> {
            let spec = task.images.as_ref()?;
            Some(spec.file_name(&t.column(spec.key(&task.id_column)).ok()?.get_str(r)?))
        };
        let image_of = |t: &Table, r: usize| env.images.get(&file_of(t, r)?);
        let digest_of = |t: &Table, r: usize| env.images.sha256(&file_of(t, r)?);
        // Numbers are compared as numbers where both tables hold the column
        // as numbers (distinct numbers print distinctly), as text otherwise.
        let numeric = |t: &Table, f: &str| matches!(t.column(f), Ok(Column::Numeric(_)));
        let as_numbers: Vec<bool> = features.iter().map(|f| numeric(&env.train, f) && numeric(&env.test, f)).collect();
        let key = |train: bool, r: usize| {
            let t = if train { &env.train } else { &env.test };
            let cells: Vec<CellValue<'_>> = features
                .iter()
                .zip(&as_numbers)
                .map(|(f, &as_number)| match t.column(f) {
                    Ok(c @ Column::Numeric(_)) if as_number => CellValue::of(c, r),
                    Ok(c) => CellValue::text(c.get_str(r)),
                    Err(_) => CellValue::Missing,
                })
                .collect();
            (cells, task.images.as_ref().map(|_| digest_of(t, r).unwrap_or_default().to_owned()))
        };
        let train_rows: HashSet<_> = (0..env.train.n_rows()).map(|r| key(true, r)).collect();
        let dups = (0..env.test.n_rows()).filter(|&r| train_rows.contains(&key(false, r))).count();
        figures.insert("duplicate_test_rows".into(), dups as f64);
        // Single-feature reproduction of the target.
        let classes = task.kind.is_classification();
        let mut worst = (0.0, String::new());
        for (name, col) in env.train.iter() {
            if !task.is_feature(name) {
                continue;
            }
            if let Column::Numeric(x) = col {
                let (xs, ys): (Vec<f64>, Vec<f64>) =
                    x.iter().zip(&y).filter(|(a, b)| a.is_finite() && b.is_finite()).map(|(&a, &b)| (a, b)).unzip();
                let r = if classes { separation(&xs, &ys) } else { correlation(&ranks(&xs), &ranks(&ys)).abs() };
                if r > worst.0 {
                    worst = (r, name.to_owned());
                }
            }
        }
        figures.insert("max_feature_association".into(), worst.0);
        // An image file's size and its PNG chunk types, as features.
        let mut files_ok = true;
        let mut file_detail = String::new();
        if task.images.is_some() {
            let n = env.train.n_rows();
            let sizes: Vec<f64> =
                (0..n).map(|r| image_of(&env.train, r).map_or(f64::NAN, |b| b.len() as f64)).collect();
            let (xs, ys): (Vec<f64>, Vec<f64>) =
                sizes.iter().zip(&y).filter(|(a, b)| a.is_finite() && b.is_finite()).map(|(&a, &b)| (a, b)).unzip();
            let size_assoc = if classes { separation(&xs, &ys) } else { correlation(&ranks(&xs), &ranks(&ys)).abs() };
            let size_assoc = if size_assoc.is_finite() { size_assoc } else { 0.0 };
            let chunks: Vec<String> =
                (0..n).map(|r| png_chunk_types(image_of(&env.train, r).unwrap_or_default())).collect();
            let chunk_assoc = group_association(&chunks, &y, classes);
            figures.insert("image_size_association".into(), size_assoc);
            figures.insert("image_chunks_association".into(), chunk_assoc);
            files_ok = size_assoc < self.leak_limit && chunk_assoc < self.leak_limit;
            file_detail = format!(", image file size {size_assoc:.3}, PNG chunk types {chunk_assoc:.3}");
        }
        // A real competition's split is the truth: its test rows may repeat
        // training rows (a token task repeats tokens), which is reported;
        // a synthesized environment's may not.
        let dups_ok = dups == 0 || !env.provenance.synthesized();
        let ok = id_corr <= 0.3 && dups_ok && worst.0 < self.leak_limit && files_ok;
        let detail = format!(
            "id |rho| {id_corr:.3}, {dups} duplicated test rows, strongest feature `{}` {:.3}{file_detail}",
            worst.1, worst.0
        );
        GateResult { gate: Gate::NoLeakage.name().to_owned(), passed: ok, figures, detail }
    }
}

/// `grading.json`'s thresholds against the leaderboard's: equal field by
/// field (the same computation gives the same bits).
fn thresholds_recorded(ctx: &Context<'_>) -> GateResult {
    let gate = Gate::ThresholdsRecorded;
    match (&ctx.recorded, &ctx.recomputed) {
        (Some(r), Ok(t)) if r == t => result(gate, true, &[], "grading.json's thresholds are the leaderboard's"),
        (Some(r), Ok(t)) => result(
            gate,
            false,
            &[
                ("recorded_gold", r.gold),
                ("leaderboard_gold", t.gold),
                ("recorded_median", r.median),
                ("leaderboard_median", t.median),
            ],
            format!(
                "grading.json's thresholds (gold {}, silver {}, bronze {}, median {}, {} is better) are not the \
                 leaderboard's (gold {}, silver {}, bronze {}, median {}, {} is better)",
                r.gold,
                r.silver,
                r.bronze,
                r.median,
                if r.is_lower_better { "lower" } else { "higher" },
                t.gold,
                t.silver,
                t.bronze,
                t.median,
                if t.is_lower_better { "lower" } else { "higher" },
            ),
        ),
        (None, _) => result(gate, false, &[], "grading.json has no thresholds"),
        (Some(_), Err(why)) => result(gate, false, &[], why.clone()),
    }
}

/// How well one feature alone separates the classes: for two classes its
/// ROC AUC (or 1 - AUC, whichever is larger); for more, 1 when sorting by
/// the feature puts every class in one contiguous run with no value shared
/// by two classes, falling towards 0 as the sorted labels change more
/// often (a constant feature scores about one over the class count).
fn separation(x: &[f64], y: &[f64]) -> f64 {
    let mut classes: Vec<f64> = y.to_vec();
    classes.sort_by(f64::total_cmp);
    classes.dedup();
    let k = classes.len();
    if k < 2 || x.len() < 2 {
        return 0.0;
    }
    if k == 2 {
        let r = ranks(x);
        let pos: Vec<f64> = r.iter().zip(y).filter(|(_, l)| **l == classes[1]).map(|(r, _)| *r).collect();
        let (n1, n0) = (pos.len() as f64, (x.len() - pos.len()) as f64);
        let auc = (pos.iter().sum::<f64>() - n1 * (n1 + 1.0) / 2.0) / (n1 * n0);
        return auc.max(1.0 - auc);
    }
    // Group the rows by feature value (sorted). A group holding several
    // labels cannot be told apart by the feature: its minority rows count as
    // changes; so does each step between groups whose main labels differ.
    let mut order: Vec<usize> = (0..x.len()).collect();
    order.sort_by(|&a, &b| x[a].total_cmp(&x[b]));
    let mut changes = 0usize;
    let mut previous: Option<f64> = None;
    let mut i = 0;
    while i < order.len() {
        let j = i + order[i..].iter().take_while(|&&r| x[r] == x[order[i]]).count();
        let mut counts: Vec<(f64, usize)> = Vec::new();
        for &r in &order[i..j] {
            match counts.iter_mut().find(|(l, _)| *l == y[r]) {
                Some(c) => c.1 += 1,
                None => counts.push((y[r], 1)),
            }
        }
        let (main, most) = counts.iter().copied().fold((f64::NAN, 0), |best, c| if c.1 > best.1 { c } else { best });
        changes += (j - i) - most;
        if previous.is_some_and(|p| p != main) {
            changes += 1;
        }
        previous = Some(main);
        i = j;
    }
    let n = x.len() as f64;
    1.0 - (changes as f64 - (k - 1) as f64).max(0.0) / (n - k as f64).max(1.0)
}

/// The set of chunk types of a PNG file, sorted and comma-separated
/// (`IDAT,IEND,IHDR`); `not-png` for bytes without the PNG signature. The
/// walk stops at `IEND`, at a truncated chunk, or after 10,000 chunks.
pub fn png_chunk_types(bytes: &[u8]) -> String {
    const SIGNATURE: [u8; 8] = [137, 80, 78, 71, 13, 10, 26, 10];
    if !bytes.starts_with(&SIGNATURE) {
        return "not-png".into();
    }
    let mut types = std::collections::BTreeSet::new();
    let mut at = SIGNATURE.len();
    for _ in 0..10_000 {
        let Some(head) = bytes.get(at..at + 8) else { break };
        let len = u32::from_be_bytes([head[0], head[1], head[2], head[3]]) as usize;
        let kind = String::from_utf8_lossy(&head[4..8]).into_owned();
        let end = kind == "IEND";
        types.insert(kind);
        if end {
            break;
        }
        at = at.saturating_add(12).saturating_add(len);
    }
    types.into_iter().collect::<Vec<_>>().join(",")
}

/// How much a categorical feature (`groups`) tells about the target `y`:
/// for classes, the share of the errors of predicting the majority class
/// that predicting each group's majority class removes (0 for one group, 1
/// when the groups determine the class); for values, the correlation
/// ratio of the target's ranks on the groups.
fn group_association(groups: &[String], y: &[f64], classes: bool) -> f64 {
    let rows: Vec<(&String, f64)> = groups.iter().zip(y).filter(|(_, v)| v.is_finite()).map(|(g, &v)| (g, v)).collect();
    if rows.len() < 2 {
        return 0.0;
    }
    let n = rows.len() as f64;
    if classes {
        let majority = |labels: &mut dyn Iterator<Item = f64>| -> (usize, usize) {
            let mut counts: BTreeMap<u64, usize> = BTreeMap::new();
            let mut total = 0;
            for l in labels {
                *counts.entry(l.to_bits()).or_insert(0) += 1;
                total += 1;
            }
            (counts.values().copied().max().unwrap_or(0), total)
        };
        let (overall, _) = majority(&mut rows.iter().map(|r| r.1));
        let constant_errors = n - overall as f64;
        if constant_errors == 0.0 {
            return 0.0;
        }
        let mut by_group: BTreeMap<&String, Vec<f64>> = BTreeMap::new();
        for (g, v) in &rows {
            by_group.entry(g).or_default().push(*v);
        }
        let grouped_errors: f64 = by_group
            .values()
            .map(|ls| {
                let (best, total) = majority(&mut ls.iter().copied());
                (total - best) as f64
            })
            .sum();
        (constant_errors - grouped_errors) / constant_errors
    } else {
        let r = ranks(&rows.iter().map(|r| r.1).collect::<Vec<_>>());
        let m = r.iter().sum::<f64>() / n;
        let total: f64 = r.iter().map(|v| (v - m) * (v - m)).sum();
        if total == 0.0 {
            return 0.0;
        }
        let mut by_group: BTreeMap<&String, (f64, f64)> = BTreeMap::new();
        for ((g, _), v) in rows.iter().zip(&r) {
            let e = by_group.entry(g).or_insert((0.0, 0.0));
            e.0 += v;
            e.1 += 1.0;
        }
        let between: f64 = by_group.values().map(|(s, c)| c * (s / c - m) * (s / c - m)).sum();
        (between / total).sqrt()
    }
}

/// The first target as numbers for rank statistics: values, or label
/// positions in sorted label order. For two classes the absolute Spearman
/// correlation of a feature is a monotone function of its ROC AUC.
fn target_signal(c: &Column) -> Vec<f64> {
    if let Some(v) = c.to_f64_lenient() {
        return v;
    }
    let labels = c.label_texts();
    let mut sorted = labels.clone();
    sorted.sort();
    sorted.dedup();
    labels.iter().map(|l| sorted.binary_search(l).unwrap_or(0) as f64).collect()
}

fn schema(env: &Environment) -> std::result::Result<(), String> {
    env.validate().map_err(|e| e.to_string())?;
    let task = env.task();
    for (name, col) in env.train.iter() {
        if !task.is_feature(name) {
            continue;
        }
        let test = env.test.column(name).map_err(|_| format!("test.csv lacks feature `{name}`"))?;
        // A column all missing in one split reads back with another type.
        let comparable = col.missing_count() < col.len() && test.missing_count() < test.len();
        let numeric = |c: &Column| c.column_type() == ColumnType::Numeric;
        if comparable && numeric(col) != numeric(test) {
            return Err(format!(
                "feature `{name}` is {:?} in train.csv but {:?} in test.csv",
                col.column_type(),
                test.column_type()
            ));
        }
    }
    if env.test.n_cols() + task.target_columns.len() + task.train_only_columns.len() != env.train.n_cols() {
        return Err("test.csv does not hold exactly the training features".into());
    }
    Ok(())
}

/// A public column (other than the id) equal to an answer column, by id.
/// A public column that gives the answers away: in any public table, a
/// column whose values, at the answers' ids, equal an answer column's —
/// at every answer id the table holds, and it holds at least half of them
/// (`test.csv` and `sample_submission.csv` hold all; test rows copied into
/// `train.csv` with their labels are caught too).
fn answers_in_public(env: &Environment) -> Option<String> {
    let id = &env.task().id_column;
    let answer_ids = env.answers.column(id).ok()?.label_texts();
    let tables =
        [("train.csv", &env.train), ("test.csv", &env.test), ("sample_submission.csv", &env.sample_submission)];
    for (file, table) in tables {
        let Ok(ids) = table.column(id) else { continue };
        let ids = ids.label_texts();
        let pos: BTreeMap<&String, usize> = ids.iter().enumerate().map(|(i, v)| (v, i)).collect();
        let rows: Vec<Option<usize>> = answer_ids.iter().map(|i| pos.get(i).copied()).collect();
        let held = rows.iter().flatten().count();
        if held == 0 || held * 2 < answer_ids.len() {
            continue;
        }
        for (aname, acol) in env.answers.iter().filter(|(n, _)| *n != id) {
            let answers = acol.label_texts();
            // A constant answer column is no leak (the constant sample of an
            // all-one-class test set would "equal" it).
            if answers.iter().all(|a| *a == answers[0]) {
                continue;
            }
            for (pname, pcol) in table.iter().filter(|(n, _)| *n != id) {
                let public = pcol.label_texts();
                let equal = rows.iter().zip(&answers).all(|(r, a)| r.is_none_or(|r| public[r] == *a));
                if equal {
                    return Some(format!("{file} column `{pname}` equals answer column `{aname}` at {held} test ids"));
                }
            }
        }
    }
    None
}

impl Verifier for GateVerifier {
    fn verify(&self, env: &Environment) -> sandmle_core::Result<Vec<GateResult>> {
        Ok(self.run(env)?)
    }

    /// The gates named, in the fixed order, then the realism checks as one
    /// gate when [`crate::REALISM_GATE`] is named ([`crate::realism_gate`]).
    fn verify_gates(&self, env: &Environment, gates: &[&str]) -> sandmle_core::Result<Vec<GateResult>> {
        let chosen: Vec<Gate> = Gate::ALL.into_iter().filter(|g| gates.contains(&g.name())).collect();
        let mut results = self.run_only(env, &chosen)?;
        if gates.contains(&crate::REALISM_GATE) {
            results.push(crate::realism_gate(env));
        }
        Ok(results)
    }
}

impl std::fmt::Debug for GateVerifier {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GateVerifier")
            .field("solvable_margin", &self.solvable_margin)
            .field("leak_limit", &self.leak_limit)
            .finish()
    }
}
