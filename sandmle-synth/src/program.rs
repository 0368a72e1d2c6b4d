//! Environments from rows a generator program drew: the paper's ML
//! Developer writes a Python program that simulates the data a plan asks
//! for; this module says what the program must write ([`program_brief`])
//! and turns what it wrote into an environment ([`assemble_program_rows`]).
//!
//! The program writes one table: every planned feature and target column
//! (names as planned), a `split` column (`train` or `test`), and optionally
//! one `oracle_<prediction column>` column per prediction column: the
//! program's own best prediction of each test row under the rule it used
//! (class probabilities or the most probable label, a conditional mean or
//! median, in the submission's form). An `id` column, if any, is ignored:
//! rows get fresh ids as synthesized rows do. The declared oracle is
//! graded as the synthesizer's own (calibration puts the medal ladder under
//! it); without one the thresholds come from the panel alone.

use crate::error::{Error, Result};
use crate::synthesize::{TableTask, classes_for, finish_synthesized, record_oracle, split_with_fresh_ids, table_task};
use sandmle_core::{
    Column, Environment, FeatureDna, OraclePrediction, OracleRecord, SubmissionForm, Table, TargetDna, TaskPlan,
};
use serde_json::{Value, json};

/// The column a program marks each row's split in.
pub const SPLIT_COLUMN: &str = "split";
/// The prefix of a declared oracle's columns.
pub const ORACLE_PREFIX: &str = "oracle_";
/// The key of the provenance's details that keeps the program's source.
pub const PROGRAM_DETAIL: &str = "generator_program";
/// Most rows a program may write.
pub const MAX_PROGRAM_ROWS: usize = 100_000;

/// Each target's classes (empty for a value target) and the prediction
/// columns, as the synthesizer names them for `plan`.
fn targets_of(plan: &TaskPlan) -> Result<(Vec<Vec<String>>, Vec<String>)> {
    let form = plan.dna.metric.submission_form(plan.dna.kind);
    let mut classes = Vec::new();
    let mut prediction = Vec::new();
    for (t, name) in plan.dna.targets.iter().zip(&plan.targets) {
        match t {
            TargetDna::Classes { shares, numeric_labels } if shares.len() >= 2 => {
                let c = classes_for(plan, shares.len().min(20), *numeric_labels);
                if form == SubmissionForm::ClassProbabilities && c.len() > 2 {
                    prediction.extend(c.iter().cloned());
                } else {
                    prediction.push(name.clone());
                }
                classes.push(c);
            }
            TargetDna::Classes { .. } => {
                return Err(Error::Unsupported { reason: format!("target `{name}` has fewer than two classes") });
            }
            TargetDna::Continuous { .. } => {
                classes.push(vec![]);
                prediction.push(name.clone());
            }
        }
    }
    Ok((classes, prediction))
}

/// Refuses plans no program may write: images, audio and pages (not
/// tables), and a column named as the program's own (`split`,
/// `oracle_...`), which would be read as a feature.
fn check_plan(plan: &TaskPlan) -> Result<()> {
    if let Some(name) = plan.column_names().into_iter().find(|n| *n == SPLIT_COLUMN || n.starts_with(ORACLE_PREFIX)) {
        return Err(Error::Unsupported {
            reason: format!("the plan's column `{name}` is a name generator programs write for their own use"),
        });
    }
    let dna = &plan.dna;
    if dna.images.is_some()
        || dna.audio.is_some()
        || dna.pixels.is_some()
        || matches!(dna.modality, sandmle_core::Modality::TimeSeries | sandmle_core::Modality::Sequence)
    {
        return Err(Error::Unsupported {
            reason: "generator programs write tables of independent rows; image, audio, page, forecasting and sequence plans \
                     are the built-in synthesizer's"
                .into(),
        });
    }
    Ok(())
}

/// What a generator program must write for `plan`, as JSON: the story, the
/// task, the row counts (`train_rows` training rows, as the synthesizer
/// draws, and `test_rows`), every column with its type and range, the classes of each
/// label target, the prediction columns and the seed to draw from.
///
/// # Errors
/// [`Error::Unsupported`] for an image, audio or page plan, or a column
/// named `split` or `oracle_...`.
pub fn program_brief(plan: &TaskPlan, train_rows: usize) -> Result<Value> {
    check_plan(plan)?;
    let (classes, prediction) = targets_of(plan)?;
    let form = plan.dna.metric.submission_form(plan.dna.kind);
    let shares: Vec<f64> = match plan.dna.targets.first() {
        Some(TargetDna::Classes { shares, .. }) => shares.clone(),
        _ => vec![],
    };
    let features: Vec<Value> = plan
        .features
        .iter()
        .map(|f| match &f.dna {
            FeatureDna::Numeric { missing_rate, shape } => {
                // A column the lexicon knows takes its unit's range and grain,
                // as the built-in synthesizer's do: a count is whole, an age
                // in years.
                let (min, max) = crate::units::unit_of(&f.name).map_or((shape.min, shape.max), |(_, lo, hi)| (lo, hi));
                let integer = shape.integer || crate::units::grain_of(&f.name) == crate::units::Grain::Whole;
                json!({
                    "name": f.name, "type": "numeric", "unit": f.unit, "min": min, "max": max,
                    "integer": integer, "missing_rate": missing_rate, "signal": f.signal,
                })
            }
            FeatureDna::Categorical { missing_rate, cardinality, .. } => json!({
                "name": f.name, "type": "categorical", "levels": cardinality, "missing_rate": missing_rate,
                "signal": f.signal,
            }),
            FeatureDna::Text { missing_rate, mean_tokens, .. } => json!({
                "name": f.name, "type": "text", "mean_words": mean_tokens, "missing_rate": missing_rate,
                "signal": f.signal,
            }),
        })
        .collect();
    let targets: Vec<Value> = plan
        .dna
        .targets
        .iter()
        .zip(&plan.targets)
        .zip(&classes)
        .map(|((t, name), c)| match t {
            TargetDna::Continuous { shape } => json!({
                "name": name, "type": "value", "min": shape.min, "max": shape.max, "integer": shape.integer,
            }),
            TargetDna::Classes { shares, .. } => {
                json!({"name": name, "type": "classes", "classes": c, "shares": shares})
            }
        })
        .collect();
    Ok(json!({
        "seed": plan.seed,
        "domain": plan.domain,
        "title": plan.story.title,
        "row_noun": plan.story.row_noun,
        "context": plan.story.context,
        "task_kind": plan.dna.kind,
        "metric": plan.dna.metric.name,
        "train_rows": train_rows,
        "test_rows": crate::sizes::test_rows_for(form, &shares, usize::MAX),
        "features": features,
        "targets": targets,
        "prediction_columns": prediction,
        "rule_family": plan.rule_family,
        "difficulty": plan.difficulty,
        "split_column": SPLIT_COLUMN,
        "oracle_prefix": ORACLE_PREFIX,
    }))
}

fn bad(reason: impl Into<String>) -> Error {
    Error::BadPlan { reason: reason.into() }
}

/// The environment of `plan` from a generator program's `rows` (see the
/// module docs), its source kept in the provenance
/// ([`PROGRAM_DETAIL`]). Every fault is the program's: a column missing or
/// unexpected, a numeric feature holding text, a label outside the classes,
/// a split of the wrong size.
///
/// # Errors
/// [`Error::BadPlan`] naming what is wrong with the rows;
/// [`Error::Unsupported`] for an image, audio or page plan.
pub fn assemble_program_rows(plan: &TaskPlan, train_rows: usize, rows: &Table, program: &str) -> Result<Environment> {
    check_plan(plan)?;
    let (classes, prediction) = targets_of(plan)?;
    let planned: Vec<&str> =
        plan.features.iter().map(|f| f.name.as_str()).chain(plan.targets.iter().map(String::as_str)).collect();
    let oracle_names: Vec<String> = prediction.iter().map(|p| format!("{ORACLE_PREFIX}{p}")).collect();
    for name in planned.iter().copied().chain([SPLIT_COLUMN]) {
        if !rows.names().iter().any(|n| n == name) {
            return Err(bad(format!("the rows have no `{name}` column")));
        }
    }
    let extra: Vec<&String> = rows
        .names()
        .iter()
        .filter(|n| n.as_str() != "id" && n.as_str() != SPLIT_COLUMN && !planned.contains(&n.as_str()))
        .filter(|n| !oracle_names.contains(n))
        .collect();
    if !extra.is_empty() {
        return Err(bad(format!("unexpected columns: {}", sandmle_core::bounded(&format!("{extra:?}")))));
    }
    let declared = oracle_names.iter().filter(|n| rows.names().contains(n)).count();
    if declared != 0 && declared != oracle_names.len() {
        return Err(bad(format!("an oracle declares all of {oracle_names:?} or none")));
    }
    if rows.n_rows() > MAX_PROGRAM_ROWS {
        return Err(bad(format!("{} rows; at most {MAX_PROGRAM_ROWS}", rows.n_rows())));
    }
    let split = rows.column(SPLIT_COLUMN)?;
    let (mut train, mut test) = (Vec::new(), Vec::new());
    for r in 0..rows.n_rows() {
        match split.get_str(r).as_deref() {
            Some("train") => train.push(r),
            Some("test") => test.push(r),
            other => return Err(bad(format!("row {r}: split `{}` is neither train nor test", other.unwrap_or("")))),
        }
    }
    if train.len() < train_rows / 2 || train.len() > train_rows * 2 {
        return Err(bad(format!("{} training rows; the brief asks for {train_rows}", train.len())));
    }
    if test.len() < 20 {
        return Err(bad(format!("{} test rows; at least 20", test.len())));
    }
    for f in &plan.features {
        let col = rows.column(&f.name)?;
        if matches!(f.dna, FeatureDna::Numeric { .. }) && col.as_numeric().is_none() && col.missing_count() < col.len()
        {
            return Err(bad(format!("`{}` is planned numeric but holds text", f.name)));
        }
    }
    for ((t, name), c) in plan.dna.targets.iter().zip(&plan.targets).zip(&classes) {
        let col = rows.column(name)?;
        if matches!(t, TargetDna::Continuous { .. }) {
            let values = col.as_numeric().ok_or_else(|| bad(format!("target `{name}` holds text, not values")))?;
            if values.iter().any(|v| !v.is_finite()) {
                return Err(bad(format!("target `{name}` has a missing or infinite value")));
            }
            continue;
        }
        let labels = col.label_texts();
        if let Some((r, l)) = labels.iter().enumerate().find(|(_, l)| !c.contains(l)) {
            return Err(bad(format!("row {r}: `{name}` is `{}`, not one of {c:?}", sandmle_core::bounded(l))));
        }
        for (which, set) in [("training", &train), ("test", &test)] {
            let distinct: std::collections::BTreeSet<&String> = set.iter().map(|&r| &labels[r]).collect();
            if distinct.len() < 2 {
                return Err(bad(format!("the {which} rows hold a single class of `{name}`")));
            }
        }
    }
    let kept: Vec<usize> = train.iter().chain(&test).copied().collect();
    let mut all = rows.select(&planned)?;
    all.push_column("id", Column::Text(vec![None; rows.n_rows()]))?;
    let all = all.select(&std::iter::once("id").chain(planned.iter().copied()).collect::<Vec<_>>())?;
    let (train_t, test_t, ids) = split_with_fresh_ids(&all, &kept, train.len(), plan.seed)?;
    let TableTask { task, tables: t, description, mut provenance } =
        table_task(plan, plan.targets.clone(), prediction.clone(), train_t, test_t)?;
    provenance.details.insert(PROGRAM_DETAIL.into(), json!(program));
    if declared > 0 {
        // The test rows in the answers' order (by fresh id).
        let source = crate::oracle::test_rows_in_order(&kept, &ids, train.len());
        let declared = rows.select(&oracle_names)?.take(&source)?;
        let mut pred = Table::new();
        pred.push_column("id", t.answers.column("id")?.clone())?;
        for (p, o) in prediction.iter().zip(&oracle_names) {
            pred.push_column(p.clone(), declared.column(o)?.clone())?;
        }
        let record = OracleRecord {
            method: "declared by the generator program".into(),
            score: None,
            standard_error: None,
            prediction: Some(OraclePrediction::from_table(&pred)),
        };
        record_oracle(&mut provenance, &record)?;
    }
    finish_synthesized(task, t, description, provenance, plan, sandmle_core::ImageSet::new())
}
