//! Realism checks: what a practitioner reading an environment's public
//! training table would notice at once, measured.
//!
//! [`realism_checks`] reads `train.csv`'s feature columns (every column
//! but the id and the targets) and reports, each with its figure and the
//! bound it is held to:
//!
//! | check | figure | passes when |
//! |---|---|---|
//! | `whole_counts` | share of count-like columns (the lexicon's counts, ages, days, ...) holding whole numbers only | 1 |
//! | `piled_on_a_bound` | share of numeric columns (five distinct values or more; a picture's `px_` pixels aside) with a quarter of their rows on their smallest or largest value | at most 0.05 |
//! | `one_word_texts` | share of the text cells that are one word | at most 0.05 |
//! | `repeated_words` | share of the text cells with a word straight after itself | at most 0.10 |
//! | `relations_hold` | share of rows breaking a relation between columns a table has (a diastolic pressure above the systolic less 20, an approved amount above the request, a BMI off its weight and height, a trip's minutes off plausible speeds; [`crate::relations`]) | at most 0.01 |
//! | `missing_values` | share of the feature columns with gaps | always (reported) |
//!
//! The text checks read prose columns only: every text column but those
//! whose layout is not prose by design — a sequence task's words (one a
//! row), a graph task's [`crate::graph::NEIGHBOURS`] (lists of ids), the
//! task's group column (the item a row belongs to: a page's image name)
//! and columns of dates (`YYYY-MM-DD`, a forecasting task's). The pile-up
//! check skips a picture's `px_` pixels and a page-restoration task's
//! pixel rows (a white page is white).
//!
//! Real tables pass them: the bundled seeds' SMS messages are one word in
//! 0.7 % of rows and repeat a word (punctuation aside) in 2.3 % of the
//! training rows. `sandmle verify` prints the
//! checks after the gates; they do not change its verdict (a real
//! competition's table is what it is). The Foundry's built-in MLOps
//! engineer holds every candidate it checks to them ([`REALISM_GATE`],
//! asked of [`crate::GateVerifier`] by name, [`realism_gate`]): a
//! synthesized table that fails one — a generator program's fractional
//! counts, say — is refused and retried with a fresh seed.

use crate::units::{Grain, grain_of};
use sandmle_core::{Column, Environment, GateResult};
use serde::Serialize;

/// The name under which [`crate::GateVerifier`]'s
/// [`sandmle_core::Verifier::verify_gates`] runs the realism checks as one
/// gate ([`realism_gate`]); not among [`crate::Gate::ALL`], so `verify`
/// and the nine gates are unchanged.
pub const REALISM_GATE: &str = "realistic";

/// One realism check's outcome.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RealismCheck {
    /// The check's name (`whole_counts`, ...).
    pub check: &'static str,
    /// Whether the figure is within its bound.
    pub passed: bool,
    /// The figure (a share in `[0, 1]`).
    pub value: f64,
    /// What the figure is compared with.
    pub bound: f64,
    /// What was measured, in words.
    pub detail: String,
}

/// Whether the text `cell` has a word straight after itself (case and
/// the punctuation around a word aside: "Pain. pain" repeats).
fn repeats_a_word(cell: &str) -> bool {
    let words: Vec<&str> = cell
        .split_whitespace()
        .map(|w| w.trim_matches(|c: char| !c.is_alphanumeric()))
        .filter(|w| !w.is_empty())
        .collect();
    words.windows(2).any(|w| w[0].eq_ignore_ascii_case(w[1]))
}

fn share(part: usize, whole: usize) -> f64 {
    if whole == 0 { 0.0 } else { part as f64 / whole as f64 }
}

/// The realism checks of `env`'s training table (see the module docs), in
/// the table's order.
pub fn realism_checks(env: &Environment) -> Vec<RealismCheck> {
    let task = env.task();
    let train = &env.train;
    let mut skip: Vec<&str> = vec![task.id_column.as_str()];
    skip.extend(task.target_columns.iter().map(String::as_str));
    let (mut counts, mut whole, mut numeric, mut piled, mut features, mut gaps) = (0, 0, 0, 0, 0, 0);
    let (mut cells, mut one_word, mut repeated) = (0, 0, 0);
    let pixel_rows = sandmle_core::pixel_rows::is_pixel_task(task, train);
    for (name, column) in train.iter() {
        if skip.contains(&name) {
            continue;
        }
        features += 1;
        gaps += usize::from((0..column.len()).any(|i| column.is_missing(i)));
        match column {
            Column::Numeric(values) => {
                let present: Vec<f64> = values.iter().copied().filter(|v| v.is_finite()).collect();
                if present.is_empty() {
                    continue;
                }
                numeric += 1;
                if grain_of(name) == Grain::Whole && crate::units::unit_of(name).is_some() {
                    counts += 1;
                    whole += usize::from(present.iter().all(|v| v.fract() == 0.0));
                }
                let mut sorted = present.clone();
                sorted.sort_by(f64::total_cmp);
                sorted.dedup();
                if sorted.len() >= 5 && !name.starts_with("px_") && !pixel_rows {
                    let (lo, hi) = (sorted[0], sorted[sorted.len() - 1]);
                    let at = |b: f64| present.iter().filter(|&&v| v == b).count();
                    piled += usize::from(share(at(lo).max(at(hi)), present.len()) >= 0.25);
                }
            }
            Column::Text(_) if is_prose(task, name, column) => {
                for i in 0..column.len() {
                    if let Some(cell) = column.get_str(i) {
                        cells += 1;
                        one_word += usize::from(cell.split_whitespace().count() == 1);
                        repeated += usize::from(repeats_a_word(&cell));
                    }
                }
            }
            Column::Text(_) | Column::Categorical(_) => {}
        }
    }
    let check = |check, value: f64, bound: f64, passed: bool, detail: String| RealismCheck {
        check,
        passed,
        value,
        bound,
        detail,
    };
    let numeric_columns: Vec<(&str, &[f64])> = train
        .iter()
        .filter(|(name, _)| !skip.contains(name))
        .filter_map(|(name, c)| c.as_numeric().map(|v| (name, v)))
        .collect();
    let (broken, checked) = crate::relations::violations(&numeric_columns);
    let whole_share = if counts == 0 { 1.0 } else { share(whole, counts) };
    vec![
        check("whole_counts", whole_share, 1.0, whole == counts, format!("{whole} of {counts} count-like columns")),
        check(
            "piled_on_a_bound",
            share(piled, numeric),
            0.05,
            share(piled, numeric) <= 0.05,
            format!("{piled} of {numeric} numeric columns"),
        ),
        check(
            "one_word_texts",
            share(one_word, cells),
            0.05,
            share(one_word, cells) <= 0.05,
            format!("{one_word} of {cells} text cells"),
        ),
        check(
            "repeated_words",
            share(repeated, cells),
            0.10,
            share(repeated, cells) <= 0.10,
            format!("{repeated} of {cells} text cells"),
        ),
        check(
            "relations_hold",
            share(broken, checked),
            0.01,
            share(broken, checked) <= 0.01,
            format!("{broken} of {checked} rows checked break a relation"),
        ),
        check("missing_values", share(gaps, features), 1.0, true, format!("{gaps} of {features} feature columns")),
    ]
}

/// Whether the text column `name` of `task` is prose (see the module docs).
fn is_prose(task: &sandmle_core::TaskSpec, name: &str, column: &Column) -> bool {
    let date = |cell: &str| {
        cell.len() == 10
            && cell.bytes().enumerate().all(|(i, b)| if i == 4 || i == 7 { b == b'-' } else { b.is_ascii_digit() })
    };
    let dates = (0..column.len()).filter_map(|i| column.get_str(i)).all(|cell| date(&cell));
    task.modality != sandmle_core::Modality::Sequence
        && name != crate::graph::NEIGHBOURS
        && task.group_column.as_deref() != Some(name)
        && !dates
}

/// The realism checks as one gate ([`REALISM_GATE`]): passed when every
/// check passes, its detail the failed checks' figures.
pub fn realism_gate(env: &Environment) -> GateResult {
    let checks = realism_checks(env);
    let failed: Vec<String> = checks
        .iter()
        .filter(|c| !c.passed)
        .map(|c| format!("{} {:.3} (bound {:.2}): {}", c.check, c.value, c.bound, c.detail))
        .collect();
    GateResult {
        gate: REALISM_GATE.to_owned(),
        passed: failed.is_empty(),
        figures: checks.iter().map(|c| (c.check.to_owned(), c.value)).collect(),
        detail: if failed.is_empty() { "every realism check within its bound".to_owned() } else { failed.join("; ") },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prose_is_every_text_but_words_links_and_dates() {
        let text = |cells: &[&str]| Column::Text(cells.iter().map(|c| Some((*c).into())).collect());
        let mut task = sandmle_core::testing::tiny_environment().task().clone();
        assert!(is_prose(&task, "note", &text(&["the claimant called", "a storm", "one"])));
        assert!(is_prose(&task, "comment", &text(&["good", "late", "good"])), "one-word prose is prose");
        assert!(!is_prose(&task, "date", &text(&["2021-03-01", "2021-03-02"])), "dates");
        assert!(!is_prose(&task, crate::graph::NEIGHBOURS, &text(&["12 40 7", "3 9"])), "a graph's links");
        task.group_column = Some("image".into());
        assert!(!is_prose(&task, "image", &text(&["page_1", "page_2"])), "the items' names");
        task.modality = sandmle_core::Modality::Sequence;
        assert!(!is_prose(&task, "word", &text(&["fever", "dose", "the"])), "a sequence task's words");
    }

    #[test]
    fn repeats_are_words_straight_after_themselves() {
        assert!(repeats_a_word("the claimant claimant called"));
        assert!(repeats_a_word("Stop stop"));
        assert!(repeats_a_word("No fever. Fever today."));
        assert!(!repeats_a_word("the claimant called the claimant"));
        assert!(!repeats_a_word("one"));
    }
}
