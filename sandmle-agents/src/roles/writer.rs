//! The built-in Technical Writer's `description.md`: the domain story,
//! every file and column with its type and unit, the metric and its
//! direction, the submission format with an example row, and the budgets —
//! never the hidden rule. Every column is described on a line of its own,
//! so no line names the rule's features together ([`super::leaks`]).

use sandmle_core::{ColumnType, Environment, TaskPlan, format_f64};
use serde::{Deserialize, Serialize};

/// What the description tells the agent about its working conditions:
/// SandMLE's release defaults (15 turns, 300 s a code step, 20 minutes an
/// episode).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Brief {
    /// Assistant turns per episode.
    pub max_turns: u32,
    /// Seconds per code step.
    pub step_timeout_s: u64,
    /// Seconds per episode.
    pub episode_timeout_s: u64,
}

impl Default for Brief {
    fn default() -> Self {
        Brief { max_turns: 15, step_timeout_s: 300, episode_timeout_s: 1200 }
    }
}

fn type_word(t: ColumnType) -> &'static str {
    match t {
        ColumnType::Numeric => "number",
        ColumnType::Categorical => "category",
        ColumnType::Text => "free text",
    }
}

/// The description of `env` (see the module docs).
pub fn write_description(env: &Environment, plan: &TaskPlan, brief: &Brief) -> String {
    let task = env.task();
    let targets = task.target_columns.iter().map(|c| format!("`{c}`")).collect::<Vec<_>>().join(", ");
    let what = task.kind.prediction_phrase();
    let mut lines = vec![
        format!("# {}", plan.story.title),
        String::new(),
        plan.story.context.clone(),
        String::new(),
        format!("Each row is one {}. Predict {what} of {targets} for every row of `test.csv`.", plan.story.row_noun),
        String::new(),
        "## Files".into(),
        String::new(),
        format!("- `train.csv`: {} rows: `{}`, the features below and {targets}.", env.train.n_rows(), task.id_column),
        format!("- `test.csv`: {} rows: `{}` and the features.", env.test.n_rows(), task.id_column),
        "- `sample_submission.csv`: a valid submission with a constant prediction.".into(),
    ];
    if let Some(images) = &task.images {
        let size = match (images.width, images.height, images.channels) {
            (Some(w), Some(h), Some(c)) => format!(" {w} x {h} pixel, {c}-channel"),
            _ => String::new(),
        };
        lines.push(format!(
            "- `{}`: one{size} image per row of `train.csv` and `test.csv`, named by the row's `{}`.",
            images.public_path(&images.key_column.as_ref().map_or_else(|| "<id>".to_owned(), |k| format!("<{k}>"))),
            images.key(&task.id_column)
        ));
    }
    lines.extend([String::new(), "## Columns".into(), String::new()]);
    let features = env.train.names().iter().filter(|n| task.is_feature(n)).count();
    if features == 0 && task.images.is_some() {
        lines.push("No feature columns: each row's image is what the prediction is made from.".into());
    }
    for (name, col) in env.train.iter() {
        if !task.is_feature(name) {
            continue;
        }
        let unit = plan.features.iter().find(|f| f.name == name).and_then(|f| f.unit.as_deref());
        let missing = col.missing_count();
        let mut line = format!("- `{name}`: {}", type_word(col.column_type()));
        if let Some(u) = unit {
            line.push_str(&format!(", in {u}"));
        }
        if missing > 0 {
            line.push_str(&format!(", {missing} of {} missing in train.csv", col.len()));
        }
        lines.push(line);
    }
    let better = if task.direction.is_lower_better() { "lower" } else { "higher" };
    let form = task.submission_form().phrase();
    let header: Vec<&str> =
        std::iter::once(task.id_column.as_str()).chain(task.prediction_columns.iter().map(String::as_str)).collect();
    lines.extend([
        String::new(),
        "## Evaluation".into(),
        String::new(),
        format!("Submissions are scored with `{}`; {better} is better.", task.metric.name),
        String::new(),
        "## Submission format".into(),
        String::new(),
        format!(
            "Write `submission.csv`: the header `{}`, then one row per id of `test.csv`, holding {form}. For example:",
            header.join(",")
        ),
        String::new(),
        "```".into(),
        header.join(","),
        example_row(env, &header),
        "```".into(),
        String::new(),
        "## Budgets".into(),
        String::new(),
        format!(
            "You have {} turns, {} seconds per code run and {} minutes in all.",
            brief.max_turns,
            brief.step_timeout_s,
            brief.episode_timeout_s / 60
        ),
    ]);
    let mut text = lines.join("\n");
    text.push('\n');
    text
}

/// The sample submission's first row, in the header's column order.
fn example_row(env: &Environment, header: &[&str]) -> String {
    header
        .iter()
        .map(|c| match env.sample_submission.column(c) {
            Ok(col) => match col.as_numeric() {
                Some(v) => v.first().map_or_else(String::new, |x| format_f64(*x)),
                None => col.get_str(0).map(|s| s.into_owned()).unwrap_or_default(),
            },
            Err(_) => String::new(),
        })
        .collect::<Vec<_>>()
        .join(",")
}
