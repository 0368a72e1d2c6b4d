//! [`leaks`]: what of the hidden rule a public text gives away.
//!
//! The rule sits in `provenance.json` (`hidden_rule`): its family, the
//! features it reads and its coefficients, cuts and frequencies. A text
//! for the agent leaks when it holds
//! - the family's name (`sparse_linear`, also written `sparse linear`);
//! - any of the rule's numbers with three or more significant digits, as
//!   written to 2, 3 or 4 decimals (`0.734`, `-1.25`);
//! - a line naming two or more of the features the rule reads (a list of
//!   "the features that matter"; every column on its own line is fine);
//! - the words `hidden rule`, `hidden_rule` or `noise_sd`.

use sandmle_core::Environment;
use std::collections::BTreeSet;

/// One way a text gives the rule away.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Leak {
    /// The rule family's name.
    Family(String),
    /// One of the rule's numbers.
    Coefficient(String),
    /// A line naming several of the rule's features.
    FeatureList(Vec<String>),
    /// A word about the rule itself.
    Word(String),
}

impl std::fmt::Display for Leak {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Leak::Family(n) => write!(f, "names the rule family `{n}`"),
            Leak::Coefficient(c) => write!(f, "holds the rule's number {c}"),
            Leak::FeatureList(v) => write!(f, "lists the rule's features {}", v.join(", ")),
            Leak::Word(w) => write!(f, "mentions `{w}`"),
        }
    }
}

/// What the rule is made of.
#[derive(Default)]
struct RuleParts {
    families: BTreeSet<String>,
    features: BTreeSet<String>,
    numbers: Vec<f64>,
}

fn walk(v: &serde_json::Value, columns: &BTreeSet<&str>, parts: &mut RuleParts, key: Option<&str>) {
    match v {
        serde_json::Value::Object(map) => {
            for (k, x) in map {
                // The target column names itself in public anyway, and the
                // class share and noise level are no part of the rule (the
                // sample submission may well show the share).
                if !["column", "positive_share", "noise_sd", "marginal"].contains(&k.as_str()) {
                    walk(x, columns, parts, Some(k));
                }
            }
        }
        serde_json::Value::Array(items) => items.iter().for_each(|x| walk(x, columns, parts, key)),
        serde_json::Value::String(s) if key == Some("family") => {
            parts.families.insert(s.clone());
        }
        serde_json::Value::String(s) if columns.contains(s.as_str()) => {
            parts.features.insert(s.clone());
        }
        serde_json::Value::Number(n) => parts.numbers.extend(n.as_f64()),
        _ => {}
    }
}

/// The ways `text` gives away `env`'s hidden rule (empty: none found).
pub fn leaks(env: &Environment, text: &str) -> Vec<Leak> {
    let Some(rule) = &env.provenance.hidden_rule else { return Vec::new() };
    let columns: BTreeSet<&str> = env.train.names().iter().map(String::as_str).collect();
    let mut parts = RuleParts::default();
    walk(rule, &columns, &mut parts, None);
    let lower = text.to_lowercase();
    let mut found = Vec::new();
    for f in &parts.families {
        if lower.contains(f) || lower.contains(&f.replace('_', " ")) {
            found.push(Leak::Family(f.clone()));
        }
    }
    for w in ["hidden rule", "hidden_rule", "noise_sd"] {
        if lower.contains(w) {
            found.push(Leak::Word(w.into()));
        }
    }
    let mut seen = BTreeSet::new();
    for x in parts.numbers.iter().filter(|x| x.is_finite() && x.abs() >= 1e-3 && x.fract() != 0.0) {
        for decimals in [2usize, 3, 4] {
            let s = format!("{x:.decimals$}");
            let significant = s.trim_start_matches(['-', '0', '.']).chars().filter(char::is_ascii_digit).count();
            if significant >= 3 && contains_number(text, &s) && seen.insert(s.clone()) {
                found.push(Leak::Coefficient(s));
            }
        }
    }
    for line in text.lines() {
        let named: Vec<String> = parts.features.iter().filter(|f| names_word(line, f)).cloned().collect();
        if named.len() >= 2 {
            found.push(Leak::FeatureList(named));
        }
    }
    found
}

/// `needle` in `hay` as a whole number (not inside a longer one).
fn contains_number(hay: &str, needle: &str) -> bool {
    let digit = |c: char| c.is_ascii_digit() || c == '.';
    hay.match_indices(needle).any(|(at, _)| {
        let before = hay[..at].chars().next_back().is_none_or(|c| !digit(c));
        let after = hay[at + needle.len()..].chars().next().is_none_or(|c| !digit(c));
        before && after
    })
}

/// `word` in `line` as a whole identifier.
fn names_word(line: &str, word: &str) -> bool {
    let ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
    line.match_indices(word).any(|(at, _)| {
        let before = line[..at].chars().next_back().is_none_or(|c| !ident(c));
        let after = line[at + word.len()..].chars().next().is_none_or(|c| !ident(c));
        before && after
    })
}
