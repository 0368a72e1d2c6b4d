//! `description.md` for generated environments: what the rows are, the
//! columns, the metric and the submission format — never the hidden rule.

use sandmle_core::{ColumnType, Table, TaskSpec};
use std::fmt::Write;

/// The story a description tells: a title and what one row stands for.
#[derive(Debug, Clone)]
pub(crate) struct Story {
    pub title: String,
    pub row_noun: String,
    pub context: String,
}

pub(crate) fn type_word(t: ColumnType) -> &'static str {
    match t {
        ColumnType::Numeric => "number",
        ColumnType::Categorical => "category",
        ColumnType::Text => "text",
    }
}

/// Writes the description.
pub(crate) fn describe(task: &TaskSpec, story: &Story, train: &Table, test_rows: usize) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "# {}\n", story.title);
    let _ = writeln!(s, "{}\n", story.context);
    let what = task.kind.prediction_phrase();
    let targets = task.target_columns.iter().map(|c| format!("`{c}`")).collect::<Vec<_>>().join(", ");
    let _ =
        writeln!(s, "Each row is one {}. Predict {what} of {targets} for every row of `test.csv`.\n", story.row_noun);
    let _ = writeln!(s, "## Files\n");
    let _ =
        writeln!(s, "- `train.csv`: {} rows with `{}`, the features and {targets}.", train.n_rows(), task.id_column);
    let _ = writeln!(s, "- `test.csv`: {test_rows} rows with `{}` and the features.", task.id_column);
    let _ = writeln!(s, "- `sample_submission.csv`: a valid submission with a constant prediction.\n");
    let _ = writeln!(s, "## Columns\n");
    for (name, col) in train.iter() {
        if !task.is_feature(name) {
            continue;
        }
        let _ = writeln!(s, "- `{name}` ({}; {} missing)", type_word(col.column_type()), col.missing_count());
    }
    let _ = writeln!(s);
    evaluation(&mut s, task);
    s
}

/// The `## Evaluation` and `## Submission format` sections.
pub(crate) fn evaluation(s: &mut String, task: &TaskSpec) {
    let _ = writeln!(s, "## Evaluation\n");
    let better = if task.direction.is_lower_better() { "lower" } else { "higher" };
    let _ = writeln!(s, "Submissions are scored with `{}` ({better} is better).\n", task.metric.name);
    let _ = writeln!(s, "## Submission format\n");
    let form = task.submission_form().phrase();
    let header: Vec<&str> =
        std::iter::once(task.id_column.as_str()).chain(task.prediction_columns.iter().map(String::as_str)).collect();
    let _ = writeln!(s, "A CSV file with the header `{}` and one row per test id, holding {form}.", header.join(","));
}
