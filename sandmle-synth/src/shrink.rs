//! [`StratifiedShrinker`]: a real seed task cut down to a micro task.
//!
//! Rows are drawn from the seed's labelled training rows only (rows with a
//! missing target are left out; the seed's own test answers stay unused).
//! The sizes:
//!
//! - **train**: `train_rows` (50 to 200; default 200), or half the seed's
//!   rows (at least 50) when the seed has fewer than twice that;
//! - **test**: for classes, enough rows for the rarest class to show about
//!   80 times — `clamp(ceil(80 / p_min), 400, 4000)` where `p_min` is the
//!   smallest class share — so that AUC and log loss are stable; for values,
//!   400 rows; never more than the rows left after training
//!   ([`crate::test_rows_for`]).
//!
//! Sampling is stratified: on the classes of the (first) target, or on its
//! deciles for values. Each stratum gets its share of both splits by the
//! largest-remainder method, and every class with at least `min_per_class`
//! seed rows gets at least one row in each split, taken from the largest
//! class (which keeps at least one). The sample is then checked: each
//! feature's missing rate within
//! `max(0.05, 3 sqrt(p (1 - p) / n))` of the seed's, and every category
//! with a seed share of 5% or more present in the training rows. A sample
//! outside tolerance is drawn again from the next stream (up to
//! `max_attempts`).
//!
//! A seed row whose features repeat a training row's is never drawn for
//! the test split (real tables have such duplicates; in a micro task they
//! would leak their labels), so the test split may fall a few rows short.
//!
//! A seed of more than ten classes keeps its ten most frequent and their
//! rows alone ([`crate::micro_classes`]): 200 rows over 120 classes teach
//! nothing.
//!
//! A task of items ([`sandmle_core::TaskSpec::group_column`]: a sentence's
//! tokens, a series' steps) is drawn by whole items instead: items in a
//! random order, each kept for training while it fits in `train_rows`,
//! the rest for test until the test size is reached; an item's rows keep
//! their order. Items are not stratified, and their repeated rows may
//! reach both splits (a token task repeats tokens).
//!
//! Ids are re-keyed: the kept rows get a random permutation of `0..n`, so
//! an id says nothing about the row; answers go to `private/`. A task of
//! items whose ids are the item and the row's place in it
//! (`<sentence>_<token>`, a sequence task's `<document>_<position>`) keeps
//! them, and its rows stay in the seed's order: such an id says nothing
//! its columns do not, and a description that names the form stays true.

use crate::describe::{Story, describe};
use crate::error::{Error, Result};
use crate::labelled::tables;
use crate::random::shuffle;
use crate::sizes::test_rows_for;
use sandmle_core::{
    CellText, CellValue, Column, Environment, GradingSpec, ImageSet, ImageSpec, Provenance, Shrinker, SubmissionForm,
    Table, TaskSpec, rng_for,
};
use serde_json::json;
use std::collections::{BTreeMap, HashSet};

/// What tells a seed row's features apart: its values but the id and the
/// targets ([`sandmle_core::Table::row_values`]), and its image's hash.
type RowKey<'a> = (Vec<CellValue<'a>>, Option<&'a str>);

/// Version of the shrinker: bumped whenever its output changes.
pub const SHRINK_VERSION: &str = "3";

/// The stratified, deterministic shrinker.
#[derive(Debug, Clone, Copy)]
pub struct StratifiedShrinker {
    /// Training rows of the micro task (50 to 200).
    pub train_rows: usize,
    /// Classes with at least this many seed rows appear in both splits.
    pub min_per_class: usize,
    /// Draws to try before giving up on the tolerance checks.
    pub max_attempts: usize,
    /// Test rows wanted instead of the rule above (still never more than
    /// the rows left after training); `None` keeps the rule.
    pub test_rows: Option<usize>,
}

impl Default for StratifiedShrinker {
    fn default() -> Self {
        StratifiedShrinker { train_rows: 200, min_per_class: 5, max_attempts: 20, test_rows: None }
    }
}

/// The strata of the pool: class labels, or target deciles for values.
fn strata(task: &TaskSpec, train: &Table) -> Result<Vec<usize>> {
    let target = task.target_columns.first().ok_or_else(|| Error::Unsupported { reason: "no target column".into() })?;
    let col = train.column(target)?;
    if task.submission_form() == SubmissionForm::Value {
        let v = col
            .to_f64_lenient()
            .ok_or_else(|| Error::Unsupported { reason: format!("target `{target}` is not numeric") })?;
        let mut sorted: Vec<f64> = v.iter().copied().filter(|x| x.is_finite()).collect();
        sorted.sort_by(f64::total_cmp);
        let cuts: Vec<f64> = (1..10).map(|i| crate::stats::quantile(&sorted, i as f64 / 10.0)).collect();
        Ok(v.iter().map(|x| cuts.partition_point(|c| c < x)).collect())
    } else {
        let labels = col.label_texts();
        let mut names: Vec<&String> = labels.iter().collect();
        names.sort();
        names.dedup();
        Ok(labels.iter().map(|l| names.binary_search(&l).unwrap_or(0)).collect())
    }
}

/// Splits `total` over strata of sizes `sizes` in proportion, largest
/// remainders first (ties: the earlier stratum).
fn apportion(sizes: &[usize], total: usize) -> Vec<usize> {
    let n: usize = sizes.iter().sum();
    if n == 0 {
        return vec![0; sizes.len()];
    }
    let exact: Vec<f64> = sizes.iter().map(|&s| s as f64 * total as f64 / n as f64).collect();
    let mut q: Vec<usize> = exact.iter().map(|x| x.floor() as usize).collect();
    let mut order: Vec<usize> = (0..sizes.len()).collect();
    order.sort_by(|&a, &b| (exact[b] - exact[b].floor()).total_cmp(&(exact[a] - exact[a].floor())).then(a.cmp(&b)));
    let mut left = total.saturating_sub(q.iter().sum());
    for &i in order.iter().cycle().take(sizes.len() * 2) {
        if left == 0 {
            break;
        }
        if q[i] < sizes[i] {
            q[i] += 1;
            left -= 1;
        }
    }
    q
}

impl StratifiedShrinker {
    fn check(&self) -> Result<()> {
        if !(50..=200).contains(&self.train_rows) {
            return Err(Error::BadSetting { setting: "train_rows", reason: "must lie between 50 and 200".into() });
        }
        if self.test_rows.is_some_and(|t| t < 20) {
            return Err(Error::BadSetting { setting: "test_rows", reason: "must be at least 20".into() });
        }
        if self.max_attempts == 0 {
            return Err(Error::BadSetting { setting: "max_attempts", reason: "must be at least 1".into() });
        }
        Ok(())
    }

    /// Training rows for a pool of `pool` rows (see the module docs).
    fn train_rows_for(&self, pool: usize) -> usize {
        self.train_rows.min((pool / 2).max(50))
    }

    /// Test rows for the pool ([`test_rows_for`]).
    fn test_rows(&self, task: &TaskSpec, sizes: &[usize], pool: usize) -> usize {
        let available = pool - self.train_rows_for(pool);
        if let Some(wanted) = self.test_rows {
            return wanted.min(available);
        }
        let shares: Vec<f64> = sizes.iter().map(|&s| s as f64 / pool as f64).collect();
        test_rows_for(task.submission_form(), &shares, available)
    }

    /// One stratified draw: `(train rows, test rows)` as seed row indices.
    /// A row whose features repeat a training row's is never drawn for
    /// test (real data has such duplicates; in a micro task they would
    /// leak their labels).
    fn draw<'k>(
        &self,
        strata: &[usize],
        (train_rows, test_rows): (usize, usize),
        classes: bool,
        key: &dyn Fn(usize) -> RowKey<'k>,
        rng: &mut sandmle_core::SeedRng,
    ) -> (Vec<usize>, Vec<usize>) {
        let k = strata.iter().copied().max().map_or(0, |m| m + 1);
        let mut members: Vec<Vec<usize>> = vec![Vec::new(); k];
        for (row, &s) in strata.iter().enumerate() {
            members[s].push(row);
        }
        for m in members.iter_mut() {
            shuffle(m, rng);
        }
        let sizes: Vec<usize> = members.iter().map(Vec::len).collect();
        let mut train_q = apportion(&sizes, train_rows);
        let left: Vec<usize> = sizes.iter().zip(&train_q).map(|(s, t)| s - t).collect();
        let mut test_q = apportion(&left, test_rows);
        if classes {
            // Every class with enough seed rows shows in both splits, taken
            // from the largest class.
            for c in 0..k {
                if sizes[c] >= self.min_per_class.max(2) {
                    for q in [&mut train_q, &mut test_q] {
                        if q[c] == 0
                            && let Some(big) = (0..k).max_by_key(|&j| (q[j], std::cmp::Reverse(j)))
                            && q[big] > 1
                        {
                            q[big] -= 1;
                            q[c] += 1;
                        }
                    }
                }
            }
        }
        let mut train = Vec::new();
        for c in 0..k {
            train.extend(&members[c][..train_q[c].min(sizes[c])]);
        }
        let seen: HashSet<RowKey<'k>> = train.iter().map(|&r| key(r)).collect();
        let mut test = Vec::new();
        for c in 0..k {
            let rest = &members[c][train_q[c].min(sizes[c])..];
            test.extend(rest.iter().copied().filter(|&r| !seen.contains(&key(r))).take(test_q[c]));
        }
        (train, test)
    }

    /// Missing rates and common categories of the sample against the seed.
    fn within_tolerance(&self, seed: &Table, sample: &Table, skip: &[&str]) -> std::result::Result<(), String> {
        for (name, col) in seed.iter() {
            if skip.contains(&name) {
                continue;
            }
            let Ok(micro) = sample.column(name) else { continue };
            let p = col.missing_count() as f64 / col.len().max(1) as f64;
            let q = micro.missing_count() as f64 / micro.len().max(1) as f64;
            let tol = (3.0 * (p * (1.0 - p) / micro.len().max(1) as f64).sqrt()).max(0.05);
            if (p - q).abs() > tol {
                return Err(format!("`{name}` missing rate {q:.3} against {p:.3} in the seed"));
            }
            if let Column::Categorical(_) = col {
                let mut counts: BTreeMap<String, usize> = BTreeMap::new();
                for t in col.label_texts().into_iter().filter(|t| !t.is_empty()) {
                    *counts.entry(t).or_insert(0) += 1;
                }
                let present: Vec<String> = micro.label_texts();
                for (level, c) in counts {
                    if c as f64 / col.len() as f64 >= 0.05 && !present.contains(&level) {
                        return Err(format!("`{name}` lost its common level `{level}`"));
                    }
                }
            }
        }
        Ok(())
    }

    /// Shrinks `seed_env` (see the module docs).
    ///
    /// # Errors
    /// [`Error::BadSetting`], [`Error::TooFewRows`],
    /// [`Error::OutOfTolerance`], [`Error::Unsupported`].
    pub fn shrink_env(&self, seed_env: &Environment, seed: u64) -> Result<Environment> {
        self.check()?;
        let source = labelled_rows(seed_env)?;
        // A many-class seed keeps its most frequent classes.
        let kept = crate::micro_classes::kept_classes(seed_env.task(), &source)?;
        let (narrowed, source) = match &kept {
            Some(kept) => crate::micro_classes::narrow(seed_env.task(), &source, kept)?,
            None => (seed_env.task().clone(), source),
        };
        let task = &narrowed;
        let pool = source.n_rows();
        let strata = strata(task, &source)?;
        let k = strata.iter().copied().max().map_or(0, |m| m + 1);
        let sizes: Vec<usize> = (0..k).map(|c| strata.iter().filter(|&&s| s == c).count()).collect();
        if pool < 100 {
            return Err(Error::TooFewRows { needed: 100, available: pool });
        }
        let train_rows = self.train_rows_for(pool);
        let test_rows = self.test_rows(task, &sizes, pool);
        let classes = task.submission_form() != SubmissionForm::Value;
        let mut skip: Vec<&str> = vec![task.id_column.as_str()];
        skip.extend(task.target_columns.iter().map(String::as_str));
        // An image row's features are its image: rows are told apart by
        // the image's hash too, so a duplicated image never reaches test.
        let image_hash: Vec<String> = match &task.images {
            Some(spec) => {
                let ids = source.column(spec.key(&task.id_column))?;
                (0..source.n_rows())
                    .map(|r| {
                        let name = spec.file_name(&ids.get_str(r).unwrap_or_default());
                        seed_env.images.get(&name).map(sandmle_core::sha256_hex).unwrap_or_default()
                    })
                    .collect()
            }
            None => Vec::new(),
        };
        let key = |r: usize| (source.row_values(r, &skip), image_hash.get(r).map(String::as_str));
        // A task of items (a sentence's tokens) keeps every item whole, its
        // rows in their order.
        let groups = match &task.group_column {
            Some(g) => Some(items(source.column(g)?)),
            None => None,
        };
        // Ids made of the item and the row's place in it (`<sentence>_<token>`)
        // say nothing the columns do not: they are kept, with the rows in the
        // seed's order, as MLE-bench's files have them.
        let keep_ids = match &task.group_column {
            Some(g) => ids_follow_items(source.column(&task.id_column)?, source.column(g)?),
            None => false,
        };
        let mut last = String::new();
        for attempt in 0..self.max_attempts {
            let mut rng = rng_for(seed, &format!("shrink-{attempt}"));
            let (mut train_idx, mut test_idx) = match &groups {
                Some(items) => draw_items(items, (train_rows, test_rows), &mut rng),
                None => self.draw(&strata, (train_rows, test_rows), classes, &key, &mut rng),
            };
            if keep_ids {
                train_idx.sort_unstable();
                test_idx.sort_unstable();
            }
            if test_idx.is_empty() {
                last = "no row is left for test that does not repeat a training row's features".into();
                continue;
            }
            let mut train = source.take(&train_idx)?;
            if let Err(why) = self.within_tolerance(&source, &train, &skip) {
                last = why;
                continue;
            }
            let mut test = source.take(&test_idx)?;
            let renamed = if keep_ids {
                let ids = source.column(&task.id_column)?;
                let id = |r: &usize| ids.get_str(*r).unwrap_or_default().into_owned();
                train_idx.iter().chain(&test_idx).map(|r| (id(r), id(r))).collect()
            } else {
                rekey(&mut train, &mut test, &task.id_column, &mut rng)?
            };
            let images = match &task.images {
                // Rows share files by a key the ids' renaming leaves alone.
                Some(spec @ ImageSpec { key_column: Some(key), .. }) => {
                    let mut images = ImageSet::new();
                    for t in [&train, &test] {
                        let keys = t.column(key)?;
                        for r in 0..t.n_rows() {
                            let name = spec.file_name(&keys.get_str(r).unwrap_or_default());
                            if images.get(&name).is_some() {
                                continue;
                            }
                            if let Some(bytes) = seed_env.images.get(&name) {
                                images.insert(name, bytes.to_vec())?;
                            }
                        }
                    }
                    images
                }
                Some(spec) => {
                    let mut images = ImageSet::new();
                    for (new, old) in renamed {
                        if let Some(bytes) = seed_env.images.get(&spec.file_name(&old)) {
                            images.insert(spec.file_name(&new), bytes.to_vec())?;
                        }
                    }
                    images
                }
                None => ImageSet::new(),
            };
            return self.assemble(seed_env, task, kept.as_deref(), (train, test, images), (seed, attempt));
        }
        Err(Error::OutOfTolerance { attempts: self.max_attempts, reason: last })
    }

    fn assemble(
        &self,
        seed_env: &Environment,
        task: &TaskSpec,
        kept: Option<&[String]>,
        (train, test, images): (Table, Table, ImageSet),
        (seed, attempt): (u64, usize),
    ) -> Result<Environment> {
        let mut task = task.clone();
        task.id = format!("{}-micro", seed_env.task().id);
        let t = tables(&task, train, test)?;
        let mut context = format!(
            "A micro-scale version of the `{}` task: the same columns and target on {} training rows.",
            seed_env.task().id,
            t.train.n_rows()
        );
        if let Some(kept) = kept {
            let names: Vec<String> = kept.iter().map(|c| format!("`{c}`")).collect();
            context.push_str(&format!(
                " It keeps the seed's {} most frequent classes, and only their rows: {}.",
                kept.len(),
                names.join(", ")
            ));
        }
        let story = Story { title: format!("{} (micro)", seed_env.task().id), row_noun: "record".into(), context };
        let description = describe(&task, &story, &t.train, t.test.n_rows());
        let mut provenance = Provenance::new(seed_env.task().id.clone(), "shrink", SHRINK_VERSION, seed);
        provenance.details.insert("train_rows".into(), json!(t.train.n_rows()));
        provenance.details.insert("test_rows".into(), json!(t.test.n_rows()));
        provenance.details.insert("attempt".into(), json!(attempt));
        provenance.details.insert("seed_rows".into(), json!(seed_env.train.n_rows()));
        if let Some(kept) = kept {
            provenance.details.insert("kept_classes".into(), json!(kept));
        }
        let env = Environment {
            description,
            train: t.train,
            test: t.test,
            sample_submission: t.sample,
            answers: t.answers,
            grading: GradingSpec { submission: seed_env.grading.submission.clone(), ..GradingSpec::new(task) },
            leaderboard: None,
            provenance,
            images,
        };
        env.validate()?;
        Ok(env)
    }
}

/// The rows of each item (rows sharing a group value), items in order of
/// first appearance, rows in table order.
fn items(group: &Column) -> Vec<Vec<usize>> {
    let mut at: BTreeMap<String, usize> = BTreeMap::new();
    let mut items: Vec<Vec<usize>> = Vec::new();
    for (row, value) in group.label_texts().into_iter().enumerate() {
        let next = items.len();
        let i = *at.entry(value).or_insert(next);
        if i == next {
            items.push(Vec::new());
        }
        items[i].push(row);
    }
    items
}

/// One draw of whole items: the items shuffled, each taken for training
/// while it fits in `train_rows` (the first always), the rest for test
/// until `test_rows` rows are reached.
fn draw_items(
    items: &[Vec<usize>],
    (train_rows, test_rows): (usize, usize),
    rng: &mut sandmle_core::SeedRng,
) -> (Vec<usize>, Vec<usize>) {
    let mut order: Vec<usize> = (0..items.len()).collect();
    shuffle(&mut order, rng);
    let (mut train, mut test) = (Vec::new(), Vec::new());
    let mut rest = Vec::new();
    for i in order {
        if train.is_empty() || train.len() + items[i].len() <= train_rows {
            train.extend(&items[i]);
        } else {
            rest.push(i);
        }
    }
    for i in rest {
        if test.len() >= test_rows {
            break;
        }
        test.extend(&items[i]);
    }
    (train, test)
}

/// The seed's training rows whose targets are all present: a row without
/// a label can be neither trained on nor graded.
fn labelled_rows(seed_env: &Environment) -> Result<Table> {
    let task = seed_env.task();
    let targets =
        task.target_columns.iter().map(|t| seed_env.train.column(t)).collect::<sandmle_core::Result<Vec<_>>>()?;
    let rows: Vec<usize> = (0..seed_env.train.n_rows()).filter(|&r| targets.iter().all(|c| !c.is_missing(r))).collect();
    if rows.len() == seed_env.train.n_rows() { Ok(seed_env.train.clone()) } else { Ok(seed_env.train.take(&rows)?) }
}

/// Whether every id is its row's item followed by `_` and more
/// (`<sentence>_<token>`, a sequence task's `<document>_<position>`).
fn ids_follow_items(ids: &Column, items: &Column) -> bool {
    !ids.is_empty()
        && (0..ids.len()).all(|r| match (ids.get_label(r), items.get_label(r)) {
            (Some(id), Some(item)) => {
                id.strip_prefix(item.as_ref()).is_some_and(|rest| rest.len() > 1 && rest.starts_with('_'))
            }
            _ => false,
        })
}

/// Gives the rows fresh ids — a random permutation of `0..n` over both
/// splits — and sorts each split by its new ids. Returns `(new, old)` id
/// pairs, so that files named by id (images) follow their rows.
fn rekey(
    train: &mut Table,
    test: &mut Table,
    id: &str,
    rng: &mut sandmle_core::SeedRng,
) -> Result<Vec<(String, String)>> {
    let n = train.n_rows() + test.n_rows();
    let mut renamed = Vec::with_capacity(n);
    let mut ids: Vec<usize> = (0..n).collect();
    shuffle(&mut ids, rng);
    let (a, b) = ids.split_at(train.n_rows());
    for (t, new) in [(train, a), (test, b)] {
        let mut order: Vec<usize> = (0..new.len()).collect();
        order.sort_by_key(|&i| new[i]);
        *t = t.take(&order)?;
        let old = t.column(id)?;
        for (row, &i) in order.iter().enumerate() {
            renamed.push((new[i].to_string(), old.get_str(row).unwrap_or_default().into_owned()));
        }
        let sorted: Vec<Option<CellText>> = order.iter().map(|&i| Some(new[i].to_string().into())).collect();
        t.set_column(id, Column::Text(sorted))?;
    }
    Ok(renamed)
}

impl Shrinker for StratifiedShrinker {
    fn shrink(&self, seed_env: &Environment, seed: u64) -> sandmle_core::Result<Environment> {
        Ok(self.shrink_env(seed_env, seed)?)
    }
}
