//! Which file is which: the sample submission, the answers, the training
//! and test tables and a labels table, each given by the caller or found
//! by name among the competition's files.
//!
//! Detection only takes what is unambiguous; where two files could play a
//! part it names them and the option that settles it.

use crate::error::{Error, Result};
use crate::files::Files;
use crate::options::ImportOptions;
use crate::tables::TableFormat;

/// The tables an import reads, as paths below `prepared/`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Found {
    pub sample: String,
    pub answers: String,
    pub train: Option<String>,
    pub test: Option<String>,
    pub labels: Option<String>,
}

/// A file's name without its folders.
pub(crate) fn base(rel: &str) -> &str {
    rel.rsplit('/').next().unwrap_or(rel)
}

/// A file's name without folders and without everything from its first
/// dot (`train.csv.gz` → `train`).
pub(crate) fn stem(rel: &str) -> &str {
    let b = base(rel);
    b.split('.').next().unwrap_or(b)
}

fn folder_depth(rel: &str) -> usize {
    rel.matches('/').count()
}

/// A sample submission's name: `sample_submission.csv`,
/// `sampleSubmission.csv`, `en_sample_submission_2.csv`.
fn is_sample(rel: &str) -> bool {
    let lower = base(rel).to_ascii_lowercase().replace(['_', '-'], "");
    lower.contains("samplesubmission")
}

fn is_gold(rel: &str) -> bool {
    base(rel).to_ascii_lowercase().contains("gold_submission")
}

/// Tables of `prepared/<side>/`, shallowest first, then by name.
fn tables<'a>(files: &'a Files, side: &'a str) -> Vec<&'a str> {
    let mut found: Vec<&str> = files.under(side).filter(|p| TableFormat::of(p).is_some()).collect();
    found.sort_by_key(|p| (folder_depth(p), *p));
    found
}

/// The caller's name for a file: as given when the tree holds it, else
/// looked up in `prepared/<side>/`.
fn given(files: &Files, name: &str, side: &str, option: &str) -> Result<String> {
    let name = name.trim_start_matches("./");
    for candidate in [name.to_owned(), format!("{side}/{name}")] {
        if files.contains(&candidate) {
            return Ok(candidate);
        }
    }
    Err(Error::Options {
        reason: format!(
            "{option} `{name}`: no such file in {} (nor in its archives)",
            files.prepared().join(side).display()
        ),
    })
}

/// A file given for a public part (an item labels file, a names table):
/// never one of `private/`.
pub(crate) fn public_file(files: &Files, name: &str, option: &str) -> Result<String> {
    public_table(files, name, option)
}

/// A table given for a public part (training, test or labels rows): never
/// one of `private/`, whose rows the agent must not see.
fn public_table(files: &Files, name: &str, option: &str) -> Result<String> {
    let rel = given(files, name, "public", option)?;
    if !rel.starts_with("public/") {
        return Err(Error::Options {
            reason: format!(
                "{option} `{rel}`: a table of `public/` is expected (what is outside it is never shown to agents)"
            ),
        });
    }
    Ok(rel)
}

/// The one candidate, none, or an error naming them and the option.
fn one<'a>(candidates: &[&'a str], what: &str, option: &str) -> Result<Option<&'a str>> {
    match candidates {
        [] => Ok(None),
        [only] => Ok(Some(*only)),
        several => Err(Error::Options {
            reason: format!("{what}: several files could be it ({}); choose one with {option}", several.join(", ")),
        }),
    }
}

/// Finds the tables (see the module docs).
pub(crate) fn find(files: &Files, options: &ImportOptions) -> Result<Found> {
    let public = tables(files, "public");
    let private = tables(files, "private");
    let sample = match &options.sample_submission {
        Some(name) => given(files, name, "public", "--sample-submission")?,
        None => {
            let exact: Vec<&str> = public.iter().copied().filter(|p| base(p) == "sample_submission.csv").collect();
            let named: Vec<&str> = public.iter().copied().filter(|p| is_sample(p)).collect();
            let private_named: Vec<&str> = private.iter().copied().filter(|p| is_sample(p)).collect();
            let pick = match (exact.as_slice(), named.as_slice()) {
                ([only], _) => Some(*only),
                (_, [_, ..]) => one(&named, "the sample submission", "--sample-submission")?,
                _ => one(&private_named, "the sample submission", "--sample-submission")?,
            };
            pick.map(str::to_owned).ok_or_else(|| Error::Layout {
                path: files.prepared().join("public"),
                expected: "a sample submission (a table named like `sample_submission.csv` or `sampleSubmission.csv`, in `public/` or `private/`); name it with --sample-submission".into(),
            })?
        }
    };
    let answers = match &options.answers {
        Some(name) => given(files, name, "private", "--answers")?,
        None => {
            let rest: Vec<&str> =
                private.iter().copied().filter(|p| *p != sample && !is_sample(p) && !is_gold(p)).collect();
            let pick = ["private/answers.csv", "private/test.csv"]
                .into_iter()
                .find(|p| rest.contains(p))
                .map_or_else(|| one(&rest, "the answers", "--answers"), |p| Ok(Some(p)))?;
            pick.map(str::to_owned).ok_or_else(|| Error::Layout {
                path: files.prepared().join("private"),
                expected: "the answers: `answers.csv` or `test.csv` (or one other table) in `private/`; name it with --answers".into(),
            })?
        }
    };
    let candidates = |word: &str, not: &[&str]| -> Vec<&str> {
        let plain: Vec<&str> = public.iter().copied().filter(|p| stem(p).eq_ignore_ascii_case(word)).collect();
        if !plain.is_empty() {
            return plain;
        }
        public
            .iter()
            .copied()
            .filter(|p| *p != sample && !is_sample(p))
            .filter(|p| {
                let s = stem(p).to_ascii_lowercase();
                s.contains(word) && !not.iter().any(|n| s.contains(n))
            })
            .collect()
    };
    let train = match &options.train {
        Some(name) => Some(public_table(files, name, "--train")?),
        None => one(&candidates("train", &["label", "test"]), "the training table", "--train")?.map(str::to_owned),
    };
    let test = match &options.test {
        Some(name) => Some(public_table(files, name, "--test")?),
        None => one(&candidates("test", &["label", "train"]), "the test table", "--test")?.map(str::to_owned),
    };
    let labels = match &options.labels {
        Some(name) => Some(public_table(files, name, "--labels")?),
        None => {
            let named: Vec<&str> = public
                .iter()
                .copied()
                .filter(|p| Some(*p) != train.as_deref() && Some(*p) != test.as_deref() && *p != sample)
                .filter(|p| {
                    let s = stem(p).to_ascii_lowercase();
                    s.contains("label") && !s.contains("test")
                })
                .collect();
            one(&named, "the labels table", "--labels")?.map(str::to_owned)
        }
    };
    Ok(Found { sample, answers, train, test, labels })
}
