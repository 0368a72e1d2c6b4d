//! [`import`]: the tables found, read and joined into an environment.

use crate::columns::{
    collapse_one_hot, fill_empty_sample, has_free_text, ids, layout, prepend, refuse_answers_in_train, refuse_id_like,
    table_with, targets, text_column, train_table,
};
use crate::detect;
use crate::error::{Error, Result};
use crate::files::Files;
use crate::media::{collect, file_train, locate, rekey};
use crate::options::{FilePlan, ImportOptions, ImportPlan, TestSource, TrainSource};
use crate::pixels;
use crate::rows::{self, Index};
use crate::tables::read_table;
use sandmle_core::csv::ReadOptions;
use sandmle_core::{
    ColumnType, Environment, GradingSpec, IMPORT_GENERATOR, ImageSet, ImageSpec, Leaderboard, MetricSpec, Modality,
    Provenance, Table, TaskKind, TaskSpec,
};
use sandmle_core::{MetricInput, metric_info};
use std::collections::BTreeSet;

/// Version of the import, recorded in provenance.
pub const IMPORT_VERSION: &str = "2";

/// An imported competition: the environment and what detection decided.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Imported {
    /// The environment (thresholds unset: derive them from its
    /// leaderboard with a grader).
    pub environment: Environment,
    /// Every decision the import made (also in the environment's
    /// provenance, `details.import`).
    pub plan: ImportPlan,
}

/// The two columns of a test table whose values joined by `_` are each
/// row's sample id, in row order (`sentence_id`, `token_id` for ids like
/// `12_3`): the rows are items' parts, the first column the item. `None`
/// unless every row matches.
fn composed_ids(table: &Table, ids: &[String]) -> Option<(String, String)> {
    if table.n_rows() != ids.len() || ids.is_empty() {
        return None;
    }
    let names = table.names();
    for a in names {
        for b in names.iter().filter(|b| *b != a) {
            let (Ok(ca), Ok(cb)) = (table.column(a), table.column(b)) else { continue };
            let matches = ids.iter().enumerate().all(|(r, id)| match (ca.get_label(r), cb.get_label(r)) {
                (Some(x), Some(y)) => {
                    id.len() == x.len() + 1 + y.len()
                        && id.starts_with(&*x)
                        && id.ends_with(&*y)
                        && id.as_bytes()[x.len()] == b'_'
                }
                _ => false,
            });
            if matches {
                return Some((a.clone(), b.clone()));
            }
        }
    }
    None
}

/// The task kind a metric implies.
fn kind_for(input: MetricInput, name: &str) -> TaskKind {
    match input {
        MetricInput::Probability | MetricInput::Scores => TaskKind::BinaryClassification,
        MetricInput::ColumnProbabilities => TaskKind::MultiLabelClassification,
        MetricInput::ClassProbabilities => TaskKind::MulticlassClassification,
        MetricInput::LabelLists => TaskKind::Ranking,
        MetricInput::LabelSets => TaskKind::MultiLabelClassification,
        MetricInput::Values | MetricInput::ColumnValues => TaskKind::Regression,
        MetricInput::Labels if ["f1", "precision", "recall"].contains(&name) => TaskKind::BinaryClassification,
        MetricInput::Labels => TaskKind::MulticlassClassification,
    }
}

/// Imports a prepared MLE-bench competition (see the crate docs).
///
/// # Errors
/// [`Error::Layout`] or [`Error::File`] naming the file a layout or a
/// record breaks, [`Error::Options`] for options that are wrong or a
/// choice detection cannot make, [`Error::Core`] for tables, images and
/// the environment's own checks. Nothing is written.
pub fn import(options: &ImportOptions) -> Result<Imported> {
    let files = Files::scan(&options.competition, options.budget)?;
    let found = detect::find(&files, options)?;
    let description = description(&files)?;
    let task = options.task.as_ref();

    // The submission's shape, from the sample submission's header.
    let header = read_table(&files, &found.sample, &ReadOptions::default())?;
    let id_column = match (task, &options.id_column) {
        (Some(t), _) => t.id_column.clone(),
        (None, Some(id)) => id.clone(),
        (None, None) => header.names().first().cloned().ok_or_else(|| layout(&files, &found.sample, "a header"))?,
    };
    let prediction_columns: Vec<String> = match task {
        Some(t) => t.prediction_columns.clone(),
        None => header.names().iter().filter(|n| **n != id_column).cloned().collect(),
    };
    let metric: MetricSpec = match (task, &options.metric) {
        (Some(t), _) => t.metric.clone(),
        (None, Some(m)) => m.clone(),
        (None, None) => {
            return Err(Error::Options { reason: "give a metric (--metric) or a task spec (--task)".into() });
        }
    };
    metric.check()?;
    let info = metric_info(&metric.name)
        .ok_or_else(|| Error::Options { reason: format!("unknown metric `{}`", metric.name) })?;
    let kind = task.map_or_else(|| kind_for(info.input, info.name), |t| t.kind);

    let mut answer_options = ReadOptions::with_id(id_column.clone());
    if info.input.label_text() {
        answer_options.types.extend(prediction_columns.iter().map(|c| (c.clone(), ColumnType::Text)));
    }
    let needs: Vec<&String> = std::iter::once(&id_column).chain(&prediction_columns).collect();
    let mut sample = table_with(&files, &found.sample, &answer_options, &needs)?;
    let answers = table_with(&files, &found.answers, &answer_options, &needs)?.select(&needs)?;
    if sample == answers {
        return Err(layout(&files, &found.sample, "a sample submission, not the answers (it equals them)"));
    }
    let test_ids = ids(&sample, &id_column)?;

    let media = rows::media_dirs(&files, &options.file_dirs)?;
    if let Some(labels) = &options.item_labels {
        let flat = Flat {
            labels,
            sample: &found.sample,
            answers: &found.answers,
            test_ids: &test_ids,
            prediction_columns: &prediction_columns,
        };
        let (spec, plan, train, test, images) =
            item_label_rows(options, &files, flat, media.as_ref(), (&id_column, metric, info))?;
        return finish(Parts { options, found: &found, description, spec, plan, train, test, sample, answers, images });
    }
    if info.input == MetricInput::Values
        && prediction_columns.len() == 1
        && task.is_none_or(|t| t.images.is_none())
        && let Some(dirs) = pixels::detect(&files, media.as_ref(), &test_ids)?
    {
        let target = prediction_columns[0].clone();
        let (train, test) = pixels::tables(&files, &dirs, &id_column, &target, &found.sample, &test_ids)?;
        let spec = TaskSpec {
            id: task.map_or_else(|| competition_name(options), |t| t.id.clone()),
            modality: Modality::Image,
            kind: TaskKind::Regression,
            id_column: id_column.clone(),
            target_columns: vec![target.clone()],
            prediction_columns: prediction_columns.clone(),
            metric,
            direction: task.map_or(info.direction, |t| t.direction),
            images: None,
            train_only_columns: Vec::new(),
            group_column: Some(sandmle_core::pixel_rows::ITEM.into()),
        };
        let plan = ImportPlan {
            sample_submission: found.sample.clone(),
            answers: found.answers.clone(),
            train: TrainSource::Pixels { inputs: dirs.inputs.clone(), targets: dirs.targets.clone() },
            test: TestSource::Pixels { dir: dirs.test.clone() },
            id_column,
            target_columns: vec![target],
            prediction_columns,
            train_only_columns: Vec::new(),
            one_hot: Vec::new(),
            sample_filled: Vec::new(),
            label_codes: Vec::new(),
            rekeyed: None,
            composed_ids: None,
            files: None,
            archives: files.archives().to_vec(),
            modality: Modality::Image,
            kind: TaskKind::Regression,
        };
        let images = ImageSet::new();
        return finish(Parts { options, found: &found, description, spec, plan, train, test, sample, answers, images });
    }
    let mut label_codes = Vec::new();
    // With no training table, a labels table is one (ids and labels, the
    // rows' files found by id).
    let (train_file, labels_file) = match (&found.train, &found.labels) {
        (None, Some(labels)) => (Some(labels.clone()), None),
        (train, labels) => (train.clone(), labels.clone()),
    };
    let (mut train, train_source, file_rows) = match (&train_file, &media) {
        (Some(rel), _) => {
            let (table, labels) =
                train_table(&files, rel, labels_file.as_deref(), options, &id_column, &prediction_columns)?;
            (table, TrainSource::Table { file: rel.clone(), labels }, None)
        }
        (None, Some(m)) => {
            let (rows, source) = rows::rows_from_files(&files, &m.train, options.label_source)?;
            (Table::new(), TrainSource::Files { dirs: m.train.clone(), labels: source }, Some(rows))
        }
        (None, None) => {
            let opened: Vec<&str> =
                files.archives().iter().map(String::as_str).filter(|a| a.starts_with("public/")).collect();
            let archives =
                if opened.is_empty() { String::new() } else { format!(" (archives opened: {})", opened.join(", ")) };
            return Err(layout(
                &files,
                "public",
                format!(
                    "a training table (`train.csv`, or name it with --train) or folders of training images or clips{archives}"
                ),
            ));
        }
    };

    // Test rows: the public table, or the sample submission's ids.
    let mut composed = None;
    let (mut test, test_source) = match &found.test {
        Some(rel) => {
            let types = train.schema().into_iter().filter(|(n, _)| *n != id_column).collect();
            let mut table = read_table(
                &files,
                rel,
                &ReadOptions { id_column: Some(id_column.clone()), types, ..ReadOptions::default() },
            )?;
            if !table.has_column(&id_column) {
                composed = composed_ids(&table, &test_ids);
                if composed.is_none() {
                    refuse_id_like(&files, &table, rel, &id_column)?;
                }
                if table.n_rows() != test_ids.len() {
                    return Err(layout(
                        &files,
                        rel,
                        format!(
                            "a column `{id_column}`, or one row per sample submission row ({} rows, it has {})",
                            test_ids.len(),
                            table.n_rows()
                        ),
                    ));
                }
                table = prepend(table, &id_column, text_column(&test_ids))?;
            }
            (table, TestSource::Table { file: rel.clone() })
        }
        None => (Table::from_columns([(id_column.clone(), text_column(&test_ids))])?, TestSource::SampleIds),
    };

    // Rows' files: where each row's file is, and the suffix after ids.
    let mut images = ImageSet::new();
    let mut file_plan = None;
    let mut rekeyed = None;
    let mut image_spec = None;
    if let Some(m) = &media {
        let test_index = Index::new(&files, &m.test);
        let (test_files, suffix) = locate(&files, &test_index, &test_ids, options.file_suffix.as_deref(), &m.test)?;
        let train_files: Vec<(String, String)> = match &file_rows {
            Some(rows) => {
                let (table, pairs, codes) =
                    file_train(rows, &suffix, &id_column, &prediction_columns, info.input, options)?;
                train = table;
                label_codes = codes;
                pairs
            }
            None => {
                let train_ids = ids(&train, &id_column)?;
                let train_index = Index::new(&files, &m.train);
                let (found, _) = locate(&files, &train_index, &train_ids, Some(&suffix), &m.train)?;
                train_ids.into_iter().zip(found).collect()
            }
        };
        let mut train_files = train_files;
        let test_set: BTreeSet<&String> = test_ids.iter().collect();
        if train_files.iter().any(|(id, _)| test_set.contains(id)) {
            if file_rows.is_none() {
                refuse_answers_in_train(&files, &train, &answers, &id_column, &prediction_columns, &test_set)?;
            }
            rekey(&mut train, &id_column, &mut train_files)?;
            rekeyed = Some("training ids prefixed `train_`: they repeat test ids".to_owned());
        }
        let shape = collect(
            &files,
            m.modality,
            &mut images,
            train_files.iter().map(|(id, r)| (id.as_str(), r.as_str())),
            &suffix,
        )?
        .and(collect(
            &files,
            m.modality,
            &mut images,
            test_ids.iter().zip(&test_files).map(|(i, r)| (i.as_str(), r.as_str())),
            &suffix,
        )?);
        image_spec = Some(ImageSpec {
            dir: if m.modality == Modality::Audio { "clips" } else { "images" }.into(),
            suffix: suffix.clone(),
            width: shape.map(|s| s.0),
            height: shape.map(|s| s.1),
            channels: shape.map(|s| s.2),
            key_column: None,
        });
        file_plan = Some(FilePlan {
            modality: m.modality,
            train_dirs: m.train.clone(),
            test_dirs: m.test.clone(),
            suffix,
            key: None,
        });
    } else if task.is_some_and(|t| t.images.is_some()) {
        return Err(layout(&files, "public", "folders of images for the task's image rows"));
    }
    if rekeyed.is_none() {
        let train_ids = ids(&train, &id_column)?;
        let test_set: BTreeSet<&String> = test_ids.iter().collect();
        if train_ids.iter().any(|i| test_set.contains(i)) {
            refuse_answers_in_train(&files, &train, &answers, &id_column, &prediction_columns, &test_set)?;
            rekey(&mut train, &id_column, &mut Vec::new())?;
            rekeyed = Some("training ids prefixed `train_`: they repeat test ids".to_owned());
        }
    }

    // Targets and the columns only the training table has. Class
    // probabilities shipped one-hot become one label column.
    let mut given: Vec<String> = task.map_or_else(|| options.targets.clone(), |t| t.target_columns.clone());
    let mut one_hot = Vec::new();
    if info.input == MetricInput::ClassProbabilities
        && given.iter().all(|g| !train.has_column(g))
        && let Some(label) = collapse_one_hot(&mut train, &prediction_columns, given.first().map(String::as_str))?
    {
        one_hot = prediction_columns.clone();
        given = vec![label];
    }
    let target_columns = targets(&files, &train, &test, &given, &id_column, &prediction_columns)?;
    test = test.without(&target_columns);
    let sample_filled = fill_empty_sample(&mut sample, &train, &target_columns, &prediction_columns, info.input)?;
    let test_names: BTreeSet<&String> = test.names().iter().collect();
    let train_only_columns: Vec<String> = train
        .names()
        .iter()
        .filter(|n| **n != id_column && !target_columns.contains(n) && !test_names.contains(n))
        .cloned()
        .collect();
    // Rows with nothing to learn from: no feature column and no file.
    let features = train.names().iter().filter(|n| **n != id_column && !target_columns.contains(n)).count();
    if media.is_none() && features <= train_only_columns.len() {
        let opened: Vec<&str> = files.archives().iter().map(String::as_str).collect();
        let archives =
            if opened.is_empty() { String::new() } else { format!(" (archives opened: {})", opened.join(", ")) };
        return Err(layout(
            &files,
            "public",
            format!(
                "inputs for the rows: feature columns shared by the training and test tables, or image or clip files{archives}"
            ),
        ));
    }
    let modality = match (task, options.modality, &media) {
        (Some(t), _, _) => t.modality,
        (None, Some(m), _) => m,
        (None, None, Some(m)) => m.modality,
        (None, None, None) if has_free_text(&train, &id_column, &target_columns) => Modality::Text,
        _ => Modality::Tabular,
    };
    let spec = TaskSpec {
        id: task.map_or_else(|| competition_name(options), |t| t.id.clone()),
        modality,
        kind,
        id_column: id_column.clone(),
        target_columns: target_columns.clone(),
        prediction_columns: prediction_columns.clone(),
        metric,
        direction: task.map_or(info.direction, |t| t.direction),
        images: image_spec,
        train_only_columns: task.map_or_else(|| train_only_columns.clone(), |t| t.train_only_columns.clone()),
        group_column: task
            .map_or_else(|| composed.as_ref().map(|(g, _): &(String, String)| g.clone()), |t| t.group_column.clone()),
    };
    let plan = ImportPlan {
        sample_submission: found.sample.clone(),
        answers: found.answers.clone(),
        train: train_source,
        test: test_source,
        id_column,
        target_columns,
        prediction_columns,
        train_only_columns: spec.train_only_columns.clone(),
        one_hot,
        sample_filled,
        label_codes,
        rekeyed,
        composed_ids: composed,
        files: file_plan,
        archives: files.archives().to_vec(),
        modality,
        kind,
    };
    finish(Parts { options, found: &found, description, spec, plan, train, test, sample, answers, images })
}

/// The sample's side of an (item, label) import.
struct Flat<'a> {
    labels: &'a str,
    sample: &'a str,
    answers: &'a str,
    test_ids: &'a [String],
    prediction_columns: &'a [String],
}

/// The parts of an environment of (item, label) rows
/// ([`crate::label_rows`]).
fn item_label_rows(
    options: &ImportOptions,
    files: &Files,
    flat: Flat<'_>,
    media: Option<&rows::MediaDirs>,
    (id_column, metric, info): (&str, MetricSpec, &sandmle_core::MetricInfo),
) -> Result<(TaskSpec, ImportPlan, Table, Table, ImageSet)> {
    let ([target], MetricInput::Probability | MetricInput::Scores) = (flat.prediction_columns, info.input) else {
        return Err(Error::Options {
            reason: format!(
                "(item, label) rows (--item-labels) need one probability per row: a metric such as `roc_auc`, not `{}`",
                metric.name
            ),
        });
    };
    let media = media.ok_or_else(|| layout(files, "public", "folders of the items' files (images or clips)"))?;
    let labels = crate::detect::public_file(files, flat.labels, "--item-labels")?;
    let names =
        options.item_files.as_deref().map(|n| crate::detect::public_file(files, n, "--item-files")).transpose()?;
    let rows = crate::label_rows::flatten(
        files,
        (&labels, names.as_deref()),
        (flat.sample, flat.test_ids),
        (id_column, target),
        media,
    )?;
    let mut images = ImageSet::new();
    let shape = collect(
        files,
        media.modality,
        &mut images,
        rows.files.iter().map(|(i, r)| (i.as_str(), r.as_str())),
        &rows.suffix,
    )?;
    let image_spec = ImageSpec {
        dir: if media.modality == Modality::Audio { "clips" } else { "images" }.into(),
        suffix: rows.suffix.clone(),
        width: shape.map(|s| s.0),
        height: shape.map(|s| s.1),
        channels: shape.map(|s| s.2),
        key_column: Some(rows.item.clone()),
    };
    let kind = options.task.as_ref().map_or(TaskKind::BinaryClassification, |t| t.kind);
    let spec = TaskSpec {
        id: options.task.as_ref().map_or_else(|| competition_name(options), |t| t.id.clone()),
        modality: media.modality,
        kind,
        id_column: id_column.to_owned(),
        target_columns: vec![target.clone()],
        prediction_columns: vec![target.clone()],
        metric,
        direction: options.task.as_ref().map_or(info.direction, |t| t.direction),
        images: Some(image_spec),
        train_only_columns: Vec::new(),
        group_column: Some(rows.item.clone()),
    };
    let plan = ImportPlan {
        sample_submission: flat.sample.to_owned(),
        answers: flat.answers.to_owned(),
        train: TrainSource::ItemLabels { labels, names, stride: rows.stride },
        test: TestSource::SampleIds,
        id_column: id_column.to_owned(),
        target_columns: vec![target.clone()],
        prediction_columns: vec![target.clone()],
        train_only_columns: Vec::new(),
        one_hot: Vec::new(),
        sample_filled: Vec::new(),
        label_codes: Vec::new(),
        rekeyed: None,
        composed_ids: None,
        files: Some(FilePlan {
            modality: media.modality,
            train_dirs: media.train.clone(),
            test_dirs: media.test.clone(),
            suffix: rows.suffix,
            key: Some(rows.item),
        }),
        archives: files.archives().to_vec(),
        modality: media.modality,
        kind,
    };
    Ok((spec, plan, rows.train, rows.test, images))
}

/// What [`finish`] makes an environment of.
struct Parts<'a> {
    options: &'a ImportOptions,
    found: &'a crate::detect::Found,
    description: String,
    spec: TaskSpec,
    plan: ImportPlan,
    train: Table,
    test: Table,
    sample: Table,
    answers: Table,
    images: ImageSet,
}

/// The environment of an import's tables: the leaderboard, the
/// provenance (with the plan unless the layout was the project's own),
/// the description's notes; validated.
fn finish(parts: Parts<'_>) -> Result<Imported> {
    let Parts { options, found, description, spec, plan, train, test, sample, answers, images, .. } = parts;
    let leaderboard = options.leaderboard.as_ref().map(|p| read_leaderboard(p)).transpose()?;
    let mut provenance = Provenance::new(&spec.id, IMPORT_GENERATOR, IMPORT_VERSION, 0);
    let answers_file = found.answers.strip_prefix("private/").unwrap_or(&found.answers).to_owned();
    provenance.details.insert("answers_file".into(), serde_json::Value::String(answers_file));
    if !is_plain(&plan) {
        let value = serde_json::to_value(&plan).map_err(|e| Error::Options { reason: e.to_string() })?;
        provenance.details.insert("import".into(), value);
    }
    let mut grading = GradingSpec::new(spec);
    grading.submission.empty_labels_are_wrong = empty_labels_are_wrong(&plan, &grading.task);
    let environment = Environment {
        description: with_notes(description, &plan, grading.submission.empty_labels_are_wrong),
        train,
        test,
        sample_submission: sample,
        answers,
        grading,
        leaderboard,
        provenance,
        images,
    };
    environment.validate()?;
    Ok(Imported { environment, plan })
}

/// Whether an empty label is a wrong prediction here: the competition's
/// own sample submission left a label column empty under a metric of
/// labels, so its grader takes an empty label as a prediction (MLE-bench's
/// paddy-disease-classification scores its sample 0.0), not as an invalid
/// submission.
fn empty_labels_are_wrong(plan: &ImportPlan, task: &TaskSpec) -> bool {
    !plan.sample_filled.is_empty()
        && sandmle_core::metric_info(&task.metric.name).is_some_and(|i| i.input == sandmle_core::MetricInput::Labels)
}

/// Whether the competition was laid out as the project's own environments
/// are (nothing to record or to tell the agent).
fn is_plain(plan: &ImportPlan) -> bool {
    let plain_train = matches!(&plan.train, TrainSource::Table { file, labels: None } if file == "public/train.csv");
    let plain_test = matches!(&plan.test, TestSource::Table { file } if file == "public/test.csv");
    plain_train
        && plain_test
        && plan.sample_submission == "public/sample_submission.csv"
        && plan.train_only_columns.is_empty()
        && plan.rekeyed.is_none()
        && plan.one_hot.is_empty()
        && plan.sample_filled.is_empty()
        && plan.files.is_none()
        && plan.archives.is_empty()
}

fn competition_name(options: &ImportOptions) -> String {
    options.competition.file_name().map_or_else(|| "imported".into(), |n| n.to_string_lossy().into_owned())
}

fn description(files: &Files) -> Result<String> {
    let rel = "public/description.md";
    let bytes = files.read(rel)?;
    if bytes.len() as u64 > sandmle_core::MAX_JSON_BYTES {
        return Err(layout(files, rel, "a description of at most 64 MiB"));
    }
    String::from_utf8(bytes.to_vec()).map_err(|_| layout(files, rel, "UTF-8 text"))
}

/// What the agent must know that the competition's own description does
/// not say: the columns the test lacks, where the rows' files now are.
fn with_notes(description: String, plan: &ImportPlan, empty_labels_wrong: bool) -> String {
    let mut notes = Vec::new();
    if !plan.train_only_columns.is_empty() {
        let cols: Vec<String> = plan.train_only_columns.iter().map(|c| format!("`{c}`")).collect();
        notes.push(format!(
            "`test.csv` lacks these columns of `train.csv`, so a model cannot use them as inputs: {}.",
            cols.join(", ")
        ));
    }
    if let TrainSource::ItemLabels { labels, stride, .. } = &plan.train
        && let Some(item) = plan.files.as_ref().and_then(|f| f.key.as_deref())
        && let [target] = plan.prediction_columns.as_slice()
    {
        let labels = labels.strip_prefix("public/").unwrap_or(labels);
        notes.push(format!(
            "Each row is one (`{item}`, `label`) pair of the competition's one-row-per-label submission, \
             `{}` = `{item}` × {stride} + `label`; in `train.csv`, `{target}` is 1 when item `{item}` has the \
             label (the competition lists each item's labels in `{labels}`).",
            plan.id_column
        ));
    }
    if let Some(f) = &plan.files {
        let (what, dir) = if f.modality == Modality::Audio { ("audio clip", "clips") } else { ("image", "images") };
        notes.push(format!(
            "Every row's {what} is in `{dir}/`, named after the row's `{}` followed by `{}`.",
            f.key.as_deref().unwrap_or(&plan.id_column),
            f.suffix
        ));
    }
    if let Some((item, part)) = &plan.composed_ids {
        notes.push(format!(
            "Each test row's `{}` is its `{item}` and `{part}` joined by `_`; rows sharing a `{item}` are one item.",
            plan.id_column
        ));
    }
    if !plan.sample_filled.is_empty() {
        let cols: Vec<String> = plan.sample_filled.iter().map(|c| format!("`{c}`")).collect();
        notes.push(format!(
            "The competition's sample submission left {} empty; here it holds one constant valid prediction.",
            cols.join(", ")
        ));
    }
    if empty_labels_wrong {
        notes.push("An empty label in a submission counts as a wrong prediction, as the competition grades it.".into());
    }
    if notes.is_empty() {
        return description;
    }
    let mut out = description.trim_end().to_owned();
    out.push_str("\n\n## About this environment's files\n\n");
    for n in notes {
        out.push_str(&format!("- {n}\n"));
    }
    out
}

fn read_leaderboard(path: &std::path::Path) -> Result<Leaderboard> {
    let head = sandmle_core::read_regular(path, sandmle_core::MAX_JSON_BYTES)?;
    if head.starts_with(b"version https://git-lfs") {
        return Err(Error::Layout {
            path: path.to_owned(),
            expected: "a leaderboard CSV, not a Git LFS pointer (run `git lfs pull` in the MLE-bench checkout)".into(),
        });
    }
    Ok(Leaderboard::from_csv_bytes(&head, path)?)
}
