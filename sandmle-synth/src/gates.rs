//! [`GateVerifier`]: the checks an environment passes before anyone trains
//! on it.
//!
//! | gate | passes when |
//! |---|---|
//! | `schema` | the tables agree with the task, and train and test share their feature columns, numeric in both or in neither |
//! | `sample_submission` | the sample submission grades as valid |
//! | `thresholds_ordered` | gold is strictly better than silver, silver than bronze, bronze than the median (thresholds from the baseline-panel leaderboard) |
//! | `gold_beats_sample` | gold is strictly better than the sample submission's score |
//! | `solvable` | the best baseline beats the sample (constant) submission by at least `solvable_margin` of the sample's score (an absolute 0.05 when that score is 0) |
//! | `not_saturated` | the sample submission does not reach bronze |
//! | `no_leakage` | ids are uninformative (absolute Spearman correlation of numeric ids with the first target at most 0.3), no test row repeats a training row's features, and no single numeric feature reproduces the target: below `leak_limit` its ROC AUC (two classes), its class separation (more classes: 1 when sorting by it leaves each class in one run) or its absolute Spearman correlation (values) |
//! | `no_answers_in_public` | no column of `test.csv` or `sample_submission.csv` equals an answer column |
//!
//! The panel and the grader come in through core's traits
//! ([`sandmle_core::BaselinePanel`], [`sandmle_core::Grader`]): this crate
//! depends on neither implementation.

use crate::error::Result;
use crate::stats::{correlation, ranks};
use sandmle_core::{
    BaselinePanel, Column, ColumnType, Environment, GateResult, Grader, Leaderboard, Table, Thresholds, Verifier,
};
use std::collections::{BTreeMap, HashSet};
use std::sync::Arc;

/// Gate names, in the order they run.
pub const GATES: [&str; 8] = [
    "schema",
    "sample_submission",
    "thresholds_ordered",
    "gold_beats_sample",
    "solvable",
    "not_saturated",
    "no_leakage",
    "no_answers_in_public",
];

/// The verifier.
#[derive(Clone)]
pub struct GateVerifier {
    /// The baseline panel (used when the environment has no leaderboard).
    pub panel: Arc<dyn BaselinePanel>,
    /// The grader.
    pub grader: Arc<dyn Grader>,
    /// Relative margin of the `solvable` gate (default 0.05).
    pub solvable_margin: f64,
    /// Single-feature ROC AUC or absolute correlation at or above which a
    /// feature counts as leaking the target (default 0.995).
    pub leak_limit: f64,
}

impl GateVerifier {
    /// A verifier with the default margins.
    pub fn new(panel: Arc<dyn BaselinePanel>, grader: Arc<dyn Grader>) -> Self {
        GateVerifier { panel, grader, solvable_margin: 0.05, leak_limit: 0.995 }
    }

    /// The environment's leaderboard, or the panel's.
    pub fn leaderboard(&self, env: &Environment) -> sandmle_core::Result<Leaderboard> {
        match &env.leaderboard {
            Some(lb) => Ok(lb.clone()),
            None => self.panel.leaderboard(env, self.grader.as_ref()),
        }
    }

    /// Every gate's result, in [`GATES`] order.
    ///
    /// # Errors
    /// Never for a bad environment (that is a failed gate); only when the
    /// checks themselves fail to run.
    pub fn run(&self, env: &Environment) -> Result<Vec<GateResult>> {
        let direction = env.task().direction;
        let mut out = Vec::with_capacity(GATES.len());
        let gate = |name: &str, passed: bool, figures: &[(&str, f64)], detail: String| GateResult {
            gate: name.to_owned(),
            passed,
            figures: figures.iter().map(|(k, v)| ((*k).to_owned(), *v)).collect(),
            detail,
        };
        out.push(match schema(env) {
            Ok(()) => gate("schema", true, &[], "tables agree with the task".into()),
            Err(why) => gate("schema", false, &[], why),
        });
        let sample = self.grader.grade(&env.grading_task(), &env.sample_submission);
        let sample_score = sample.score.unwrap_or(f64::NAN);
        out.push(gate(
            "sample_submission",
            sample.valid_submission && sample.score.is_some(),
            &[("score", sample_score)],
            sample.error.unwrap_or_else(|| "valid".into()),
        ));
        let lb = self.leaderboard(env);
        let thresholds: Option<Thresholds> = lb.as_ref().ok().and_then(|lb| self.grader.thresholds(lb).ok());
        let best = lb.as_ref().ok().and_then(|lb| lb.entries.first().map(|e| e.score));
        out.push(match &thresholds {
            Some(t) => gate(
                "thresholds_ordered",
                t.strictly_ordered(),
                &[
                    ("gold", t.gold),
                    ("silver", t.silver),
                    ("bronze", t.bronze),
                    ("median", t.median),
                    ("teams", t.num_teams as f64),
                ],
                format!("{} baselines on the leaderboard", t.num_teams),
            ),
            None => gate("thresholds_ordered", false, &[], lb.err().map_or("no thresholds".into(), |e| e.to_string())),
        });
        out.push(match &thresholds {
            Some(t) => gate(
                "gold_beats_sample",
                direction.better(t.gold, sample_score),
                &[("gold", t.gold), ("sample", sample_score)],
                String::new(),
            ),
            None => gate("gold_beats_sample", false, &[], "no thresholds".into()),
        });
        let need = if sample_score == 0.0 { 0.05 } else { self.solvable_margin * sample_score.abs() };
        out.push(match best {
            Some(b) => {
                let gain = if direction.is_lower_better() { sample_score - b } else { b - sample_score };
                gate(
                    "solvable",
                    gain >= need,
                    &[("best", b), ("sample", sample_score), ("gain", gain), ("needed", need)],
                    String::new(),
                )
            }
            None => gate("solvable", false, &[], "no baseline scored".into()),
        });
        out.push(match &thresholds {
            Some(t) => gate(
                "not_saturated",
                !direction.at_least(sample_score, t.bronze),
                &[("sample", sample_score), ("bronze", t.bronze)],
                String::new(),
            ),
            None => gate("not_saturated", false, &[], "no thresholds".into()),
        });
        let (leak_ok, leak_figures, leak_detail) = self.leakage(env);
        out.push(GateResult { gate: "no_leakage".into(), passed: leak_ok, figures: leak_figures, detail: leak_detail });
        out.push(match answers_in_public(env) {
            None => gate("no_answers_in_public", true, &[], "no public column equals an answer column".into()),
            Some(why) => gate("no_answers_in_public", false, &[], why),
        });
        Ok(out)
    }

    fn leakage(&self, env: &Environment) -> (bool, BTreeMap<String, f64>, String) {
        let task = env.task();
        let mut figures = BTreeMap::new();
        let Some(target) = task.target_columns.first() else {
            return (false, figures, "no target".into());
        };
        let Ok(tcol) = env.train.column(target) else {
            return (false, figures, format!("no target column `{target}`"));
        };
        let y = target_signal(tcol);
        // Ids.
        let ids: Option<Vec<f64>> = env.train.column(&task.id_column).ok().and_then(Column::to_f64_lenient);
        let id_corr = ids.map_or(0.0, |ids| correlation(&ranks(&ids), &ranks(&y)).abs());
        figures.insert("id_spearman".into(), id_corr);
        // Duplicated feature rows across the split.
        let features: Vec<&str> =
            env.test.names().iter().map(String::as_str).filter(|n| *n != task.id_column).collect();
        let key = |t: &Table, r: usize| -> String {
            features
                .iter()
                .map(|f| t.column(f).ok().and_then(|c| c.get_str(r)).unwrap_or_default())
                .collect::<Vec<_>>()
                .join("\u{1f}")
        };
        let train_rows: HashSet<String> = (0..env.train.n_rows()).map(|r| key(&env.train, r)).collect();
        let dups = (0..env.test.n_rows()).filter(|&r| train_rows.contains(&key(&env.test, r))).count();
        figures.insert("duplicate_test_rows".into(), dups as f64);
        // Single-feature reproduction of the target.
        let classes = task.kind.is_classification();
        let mut worst = (0.0, String::new());
        for (name, col) in env.train.iter() {
            if name == task.id_column || task.target_columns.iter().any(|t| t == name) {
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
        let ok = id_corr <= 0.3 && dups == 0 && worst.0 < self.leak_limit;
        let detail = format!(
            "id |rho| {id_corr:.3}, {dups} duplicated test rows, strongest feature `{}` {:.3}",
            worst.1, worst.0
        );
        (ok, figures, detail)
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
        if name == task.id_column || task.target_columns.iter().any(|t| t == name) {
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
    if env.test.n_cols() + task.target_columns.len() != env.train.n_cols() {
        return Err("test.csv does not hold exactly the training features".into());
    }
    Ok(())
}

/// A public column (other than the id) equal to an answer column, by id.
fn answers_in_public(env: &Environment) -> Option<String> {
    let id = &env.task().id_column;
    let answer_ids = env.answers.column(id).ok()?.label_texts();
    for (file, table) in [("test.csv", &env.test), ("sample_submission.csv", &env.sample_submission)] {
        let ids = table.column(id).ok()?.label_texts();
        let pos: BTreeMap<&String, usize> = ids.iter().enumerate().map(|(i, v)| (v, i)).collect();
        for (aname, acol) in env.answers.iter().filter(|(n, _)| *n != id) {
            let answers = acol.label_texts();
            // A constant answer column is no leak (the constant sample of an
            // all-one-class test set would "equal" it).
            if answers.iter().all(|a| *a == answers[0]) {
                continue;
            }
            for (pname, pcol) in table.iter().filter(|(n, _)| *n != id) {
                let public = pcol.label_texts();
                let equal = answer_ids.iter().zip(&answers).all(|(i, a)| pos.get(i).is_some_and(|&r| public[r] == *a));
                if equal {
                    return Some(format!("{file} column `{pname}` equals answer column `{aname}`"));
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
}

impl std::fmt::Debug for GateVerifier {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GateVerifier")
            .field("panel", &self.panel.version())
            .field("solvable_margin", &self.solvable_margin)
            .field("leak_limit", &self.leak_limit)
            .finish()
    }
}
