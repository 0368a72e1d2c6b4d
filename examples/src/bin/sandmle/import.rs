//! `import`: a prepared MLE-bench competition (or a staged seed) as an
//! environment.

use crate::Globals;
use crate::output::{Failure, say};
use clap::Args;
use sandmle_core::{
    Direction, Grader, MetricSpec, MlebenchImport, Modality, TaskKind, TaskSpec, WriteOptions, import_mlebench,
};
use sandmle_metrics::{Input, StandardGrader, StandardMetric};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Args)]
pub struct ImportArgs {
    /// The competition directory (holding `prepared/public` and `prepared/private`).
    #[arg(long)]
    competition: PathBuf,
    /// The answers file's name inside `prepared/private/`.
    #[arg(long, default_value = "answers.csv")]
    answers: String,
    /// A JSON task spec; without it the task is built from the flags below.
    #[arg(long)]
    task: Option<PathBuf>,
    /// Metric name (without --task).
    #[arg(long)]
    metric: Option<String>,
    /// `k` for `map_at_k` (without --task; 1 to 1,000).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=crate::caps::MAX_K))]
    k: Option<u64>,
    /// The id column (without --task).
    #[arg(long = "id-column", default_value = "id")]
    id_column: String,
    /// Target column(s) of train.csv, comma-separated (default: the
    /// sample submission's columns).
    #[arg(long, value_delimiter = ',')]
    targets: Vec<String>,
    /// Modality (without --task).
    #[arg(long, default_value = "tabular")]
    modality: String,
    /// A leaderboard CSV; thresholds are derived from it.
    #[arg(long)]
    leaderboard: Option<PathBuf>,
    /// An image task: the folders of `prepared/public/` holding the rows'
    /// image files, comma-separated (`train,test`). Sets the task's images
    /// (without --task) and where they are looked for.
    #[arg(long, value_delimiter = ',')]
    images: Vec<String>,
    /// What follows a row's id in its image's file name (with --images;
    /// empty when the ids carry the extension).
    #[arg(long = "image-suffix", default_value = ".png")]
    image_suffix: String,
    /// Gzip tables whose CSV exceeds this many bytes.
    #[arg(long = "gzip-over")]
    gzip_over: Option<usize>,
    /// Replace an existing output directory.
    #[arg(long)]
    overwrite: bool,
    /// The output environment directory.
    #[arg(long)]
    out: PathBuf,
}

fn parse_enum<T: serde::de::DeserializeOwned>(what: &str, value: &str) -> Result<T, Failure> {
    serde_json::from_value(serde_json::Value::String(value.to_owned()))
        .map_err(|_| Failure::usage(format!("unknown {what} `{value}`")))
}

/// The task kind a metric implies (labels: decided by the caller).
fn kind_for(input: Input, name: &str) -> TaskKind {
    match input {
        Input::Probability | Input::Scores => TaskKind::BinaryClassification,
        Input::ColumnProbabilities => TaskKind::MultiLabelClassification,
        Input::ClassProbabilities => TaskKind::MulticlassClassification,
        Input::LabelLists => TaskKind::Ranking,
        Input::Values | Input::ColumnValues => TaskKind::Regression,
        Input::Labels if ["f1", "precision", "recall"].contains(&name) => TaskKind::BinaryClassification,
        Input::Labels => TaskKind::MulticlassClassification,
    }
}

fn task_from_flags(a: &ImportArgs) -> Result<TaskSpec, Failure> {
    let name = a.metric.clone().ok_or_else(|| Failure::usage("give --task FILE or --metric NAME"))?;
    let mut metric = MetricSpec::named(&name);
    if let Some(k) = a.k {
        metric.params.insert("k".into(), serde_json::json!(k));
    }
    let info = StandardMetric::from_spec(&metric)?.info();
    let sample_path = a.competition.join("prepared/public/sample_submission.csv");
    let sample = sandmle_core::csv::read_csv(&sample_path, &sandmle_core::csv::ReadOptions::with_id(&a.id_column))?;
    let prediction_columns: Vec<String> = sample.names().iter().filter(|n| **n != a.id_column).cloned().collect();
    let target_columns = if a.targets.is_empty() { prediction_columns.clone() } else { a.targets.clone() };
    let id = a.competition.file_name().map_or_else(|| "imported".into(), |n| n.to_string_lossy().into_owned());
    Ok(TaskSpec {
        id,
        modality: parse_enum::<Modality>("modality", &a.modality)?,
        kind: kind_for(info.input, info.name),
        id_column: a.id_column.clone(),
        target_columns,
        prediction_columns,
        metric,
        direction: info.direction,
        images: None,
        train_only_columns: Vec::new(),
    })
}

pub fn import(a: &ImportArgs, g: &Globals) -> Result<ExitCode, Failure> {
    let task: TaskSpec = match &a.task {
        Some(path) => {
            let text = sandmle_core::read_regular_string(path, sandmle_core::MAX_JSON_BYTES)?;
            serde_json::from_str(&text).map_err(|e| Failure::usage(format!("{}: {e}", path.display())))?
        }
        None => task_from_flags(a)?,
    };
    let mut task = task;
    if !a.images.is_empty() && task.images.is_none() {
        task.modality = Modality::Image;
        task.images = Some(sandmle_core::ImageSpec {
            dir: "images".into(),
            suffix: a.image_suffix.clone(),
            width: None,
            height: None,
            channels: None,
        });
    }
    let expected: Direction = StandardMetric::from_spec(&task.metric)?.info().direction;
    if expected != task.direction {
        return Err(Failure::usage(format!(
            "metric `{}` is {:?}, the task says {:?}",
            task.metric.name, expected, task.direction
        )));
    }
    let mut import = MlebenchImport::new(&a.competition, &a.answers, task);
    import.leaderboard = a.leaderboard.clone();
    import.image_dirs = a.images.clone();
    let mut env = import_mlebench(&import)?;
    if let Some(lb) = &env.leaderboard {
        let t = StandardGrader.thresholds(lb)?;
        let scores = lb.scores();
        let flat = scores.first() == scores.last();
        if !flat && t.is_lower_better != expected.is_lower_better() {
            return Err(Failure::usage(format!(
                "the leaderboard's order says {} is better, but `{}` is {:?}",
                if t.is_lower_better { "lower" } else { "higher" },
                env.task().metric.name,
                expected
            )));
        }
        env.grading.thresholds = Some(t);
    }
    StandardGrader
        .check(&env.grading_task())
        .map_err(|e| Failure::broken(format!("{}: {e}", a.competition.display())))?;
    env.write(&a.out, &WriteOptions { overwrite: a.overwrite, gzip_over_bytes: a.gzip_over })?;
    if g.json {
        crate::output::print_json(&serde_json::json!({"env": a.out, "id": env.id()?}));
    } else {
        say!("{}", a.out.display());
    }
    Ok(ExitCode::SUCCESS)
}
