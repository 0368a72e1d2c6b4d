//! `import`: a prepared MLE-bench competition (or a staged seed) as an
//! environment. Detection and reading are `sandmle_import`'s; this front
//! turns flags into its options, derives thresholds from the leaderboard
//! and writes the environment.

use crate::Globals;
use crate::output::{Failure, say};
use clap::Args;
use sandmle_core::{Direction, Grader, MetricSpec, Modality, TaskSpec, WriteOptions};
use sandmle_import::{ImportOptions, LabelSource};
use sandmle_metrics::{StandardGrader, StandardMetric};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Args)]
pub struct ImportArgs {
    /// The competition directory (holding `prepared/public` and `prepared/private`).
    #[arg(long)]
    competition: PathBuf,
    /// The answers (default: `answers.csv`, else `test.csv`, else the one
    /// other table of `prepared/private/`).
    #[arg(long)]
    answers: Option<String>,
    /// A JSON task spec; without it the task is built from the flags below.
    #[arg(long)]
    task: Option<PathBuf>,
    /// Metric name (without --task).
    #[arg(long)]
    metric: Option<String>,
    /// `k` for `map_at_k` (without --task; 1 to 1,000).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=crate::caps::MAX_K))]
    k: Option<u64>,
    /// The id column (default: the sample submission's first column).
    #[arg(long = "id-column")]
    id_column: Option<String>,
    /// Target column(s) of the training table, comma-separated (default:
    /// the sample submission's columns).
    #[arg(long, value_delimiter = ',')]
    targets: Vec<String>,
    /// Modality (default: image or audio when rows are files, text when a
    /// feature is prose, else tabular).
    #[arg(long)]
    modality: Option<String>,
    /// The training table, below `prepared/` or `prepared/public/`
    /// (default: `train.*`, else the one table named like it).
    #[arg(long)]
    train: Option<String>,
    /// The public test table (default: `test.*`, else the one table named
    /// like it, else the sample submission's ids).
    #[arg(long)]
    test: Option<String>,
    /// The sample submission (default: `sample_submission.csv`,
    /// `sampleSubmission.csv` or the one table so named, public first).
    #[arg(long = "sample-submission")]
    sample_submission: Option<String>,
    /// A labels table joined to the training table by id, or row by row.
    #[arg(long)]
    labels: Option<String>,
    /// A file of each item's labels (`<item>,<label>,...`, `?` for a test
    /// item) for a submission of one row per (item, label) with ids
    /// `item × 10ᵏ + label` (mlsp-2013-birds): one training row per
    /// (item, label).
    #[arg(long = "item-labels")]
    item_labels: Option<String>,
    /// With --item-labels: a table of each item's id and its file's name
    /// without the extension (default: files named by the item).
    #[arg(long = "item-files")]
    item_files: Option<String>,
    /// A leaderboard CSV; thresholds are derived from it.
    #[arg(long)]
    leaderboard: Option<PathBuf>,
    /// The folders of `prepared/public/` holding the rows' images or clips,
    /// comma-separated (default: the top folders holding any, `train*`
    /// for training rows and `test*` for test rows).
    #[arg(long, alias = "images", value_delimiter = ',')]
    files: Vec<String>,
    /// What follows a row's id in its file's name (default: nothing when
    /// the ids carry the extension, else the files' extension).
    #[arg(long = "file-suffix", alias = "image-suffix")]
    file_suffix: Option<String>,
    /// Where training files' labels are: `folder`, `name_prefix`
    /// (`cat.1.jpg`) or `name_suffix` (`clip_0.aif`) (default: detected).
    #[arg(long = "label-source")]
    label_source: Option<String>,
    /// For two word labels under a probability metric: the label that is 1
    /// (default: the later in sorted order).
    #[arg(long = "positive-label")]
    positive_label: Option<String>,
    /// Print what detection decided (JSON) and write nothing.
    #[arg(long)]
    plan: bool,
    /// Gzip tables whose CSV exceeds this many bytes.
    #[arg(long = "gzip-over")]
    gzip_over: Option<usize>,
    /// Replace an existing output directory.
    #[arg(long)]
    overwrite: bool,
    /// The output environment directory.
    #[arg(long, required_unless_present = "plan")]
    out: Option<PathBuf>,
}

fn parse_enum<T: serde::de::DeserializeOwned>(what: &str, value: &str) -> Result<T, Failure> {
    serde_json::from_value(serde_json::Value::String(value.to_owned()))
        .map_err(|_| Failure::usage(format!("unknown {what} `{value}`")))
}

fn options(a: &ImportArgs) -> Result<ImportOptions, Failure> {
    let task: Option<TaskSpec> = match &a.task {
        Some(path) => {
            let text = sandmle_core::read_regular_string(path, sandmle_core::MAX_JSON_BYTES)?;
            Some(serde_json::from_str(&text).map_err(|e| Failure::usage(format!("{}: {e}", path.display())))?)
        }
        None => None,
    };
    let metric = match (&task, &a.metric) {
        (Some(_), _) => None,
        (None, Some(name)) => {
            let mut metric = MetricSpec::named(name);
            if let Some(k) = a.k {
                metric.params.insert("k".into(), serde_json::json!(k));
            }
            StandardMetric::from_spec(&metric)?;
            Some(metric)
        }
        (None, None) => return Err(Failure::usage("give --task FILE or --metric NAME")),
    };
    if let Some(t) = &task {
        let expected: Direction = StandardMetric::from_spec(&t.metric)?.info().direction;
        if expected != t.direction {
            return Err(Failure::usage(format!(
                "metric `{}` is {:?}, the task says {:?}",
                t.metric.name, expected, t.direction
            )));
        }
    }
    Ok(ImportOptions {
        competition: a.competition.clone(),
        task,
        metric,
        modality: a.modality.as_deref().map(|m| parse_enum::<Modality>("modality", m)).transpose()?,
        train: a.train.clone(),
        test: a.test.clone(),
        sample_submission: a.sample_submission.clone(),
        answers: a.answers.clone(),
        labels: a.labels.clone(),
        id_column: a.id_column.clone(),
        targets: a.targets.clone(),
        file_dirs: a.files.clone(),
        file_suffix: a.file_suffix.clone(),
        label_source: a.label_source.as_deref().map(|s| parse_enum::<LabelSource>("label source", s)).transpose()?,
        positive_label: a.positive_label.clone(),
        item_labels: a.item_labels.clone(),
        item_files: a.item_files.clone(),
        leaderboard: a.leaderboard.clone(),
        ..ImportOptions::default()
    })
}

pub fn import(a: &ImportArgs, g: &Globals) -> Result<ExitCode, Failure> {
    let imported = sandmle_import::import(&options(a)?)?;
    if a.plan {
        crate::output::print_json(&serde_json::to_value(&imported.plan).map_err(|e| Failure::system(e.to_string()))?);
        return Ok(ExitCode::SUCCESS);
    }
    let Some(out) = &a.out else { return Err(Failure::usage("give --out DIR")) };
    let mut env = imported.environment;
    let expected = env.task().direction;
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
    env.write(out, &WriteOptions { overwrite: a.overwrite, gzip_over_bytes: a.gzip_over })?;
    if g.json {
        crate::output::print_json(&serde_json::json!({"env": out, "id": env.id()?}));
    } else {
        say!("{}", out.display());
    }
    Ok(ExitCode::SUCCESS)
}
