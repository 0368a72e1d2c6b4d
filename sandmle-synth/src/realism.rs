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
//! | `missing_values` | share of the feature columns with gaps | always (reported) |
//!
//! Real tables pass them: the bundled seeds' SMS messages are one word in
//! 0.7 % of rows and repeat a word in 1.5 %. `sandmle verify` prints the
//! checks after the gates; they do not change its verdict (a real
//! competition's table is what it is).

use crate::units::{Grain, grain_of};
use sandmle_core::{Column, Environment};
use serde::Serialize;

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

/// Whether the text `cell` has a word straight after itself.
fn repeats_a_word(cell: &str) -> bool {
    let words: Vec<&str> = cell.split_whitespace().collect();
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
                if sorted.len() >= 5 && !name.starts_with("px_") {
                    let (lo, hi) = (sorted[0], sorted[sorted.len() - 1]);
                    let at = |b: f64| present.iter().filter(|&&v| v == b).count();
                    piled += usize::from(share(at(lo).max(at(hi)), present.len()) >= 0.25);
                }
            }
            Column::Text(_) => {
                for i in 0..column.len() {
                    if let Some(cell) = column.get_str(i) {
                        cells += 1;
                        one_word += usize::from(cell.split_whitespace().count() == 1);
                        repeated += usize::from(repeats_a_word(&cell));
                    }
                }
            }
            Column::Categorical(_) => {}
        }
    }
    let check = |check, value: f64, bound: f64, passed: bool, detail: String| RealismCheck {
        check,
        passed,
        value,
        bound,
        detail,
    };
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
        check("missing_values", share(gaps, features), 1.0, true, format!("{gaps} of {features} feature columns")),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repeats_are_words_straight_after_themselves() {
        assert!(repeats_a_word("the claimant claimant called"));
        assert!(repeats_a_word("Stop stop"));
        assert!(!repeats_a_word("the claimant called the claimant"));
        assert!(!repeats_a_word("one"));
    }
}
