//! Task DNA: the Data Strategist's analysis of a seed task.

use crate::error::Result;
use crate::labelled::tables;
use crate::random::shuffle;
use crate::stats::{correlated_pairs, mean, sd, shape};
use sandmle_core::{
    AudioDna, Column, Environment, Executor, FeatureDna, GradeReport, Grader, GradingTask, ImageDna, ImageSpec,
    Modality, Signal, Solution, TargetDna, TaskDna, TaskKind, decode_audio, decode_image, rng_for,
};
use std::borrow::Cow;
use std::collections::BTreeMap;

/// Correlations between numeric features above this (in absolute value)
/// are kept in the DNA.
pub const CORRELATION_FLOOR: f64 = 0.3;

/// The DNA of an environment: its structure, without names or meaning.
/// The signal is left unset; see [`measure_signal`]. For an image task
/// ([`sandmle_core::TaskSpec::images`]) the features are the tables' (none,
/// usually) and [`TaskDna::images`] holds the images' size, channels and
/// intensity, decoded from the training rows' PNGs.
///
/// # Errors
/// [`crate::Error::Core`] if a target column is missing;
/// [`crate::Error::Unsupported`] for an image task none of whose training
/// images is a readable PNG.
pub fn extract_dna(env: &Environment) -> Result<TaskDna> {
    let task = env.task();
    let feature_names: Vec<&str> =
        env.train.names().iter().map(String::as_str).filter(|n| task.is_feature(n)).collect();
    let mut features = Vec::with_capacity(feature_names.len());
    let mut numeric: Vec<(usize, &[f64])> = Vec::new();
    for (i, name) in feature_names.iter().enumerate() {
        let col = env.train.column(name)?;
        let missing_rate = col.missing_count() as f64 / col.len().max(1) as f64;
        features.push(match col {
            Column::Numeric(v) => {
                numeric.push((i, v.as_slice()));
                match shape(v) {
                    Some(shape) => FeatureDna::Numeric { missing_rate, shape },
                    None => FeatureDna::Categorical { missing_rate, cardinality: 0, shares: vec![] },
                }
            }
            Column::Categorical(cat) => {
                // Counted by code, then by level (two codes may share a
                // level's text); empty levels are left out like missing rows.
                let mut by_code = vec![0usize; cat.levels().len()];
                for &c in cat.codes().iter().flatten() {
                    by_code[c as usize] += 1;
                }
                let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
                for (level, &n) in cat.levels().iter().zip(&by_code) {
                    if n > 0 && !level.is_empty() {
                        *counts.entry(level).or_insert(0) += n;
                    }
                }
                let present: usize = counts.values().sum();
                let mut shares: Vec<f64> = counts.values().map(|&c| c as f64 / present.max(1) as f64).collect();
                shares.sort_by(|a, b| b.total_cmp(a));
                let cardinality = shares.len();
                shares.truncate(50);
                FeatureDna::Categorical { missing_rate, cardinality, shares }
            }
            Column::Text(v) => {
                let docs: Vec<&str> = v.iter().flatten().map(|d| d.as_str()).collect();
                let counts: Vec<f64> = docs.iter().map(|d| d.split_whitespace().count() as f64).collect();
                // Distinct lowercase tokens, counted by sorting: a token of
                // ASCII with no capital is its own lowercase and is not
                // copied.
                let mut vocab: Vec<Cow<'_, str>> = docs
                    .iter()
                    .flat_map(|d| d.split_whitespace())
                    .map(|t| {
                        if t.bytes().any(|b| b.is_ascii_uppercase() || !b.is_ascii()) {
                            Cow::Owned(t.to_lowercase())
                        } else {
                            Cow::Borrowed(t)
                        }
                    })
                    .collect();
                vocab.sort_unstable();
                vocab.dedup();
                FeatureDna::Text {
                    missing_rate,
                    mean_tokens: mean(&counts),
                    sd_tokens: sd(&counts),
                    vocab_size: vocab.len(),
                }
            }
        });
    }
    let columns: Vec<&[f64]> = numeric.iter().map(|&(_, v)| v).collect();
    let correlations = correlated_pairs(&columns, CORRELATION_FLOOR)
        .into_iter()
        .map(|(a, b, r)| (numeric[a].0, numeric[b].0, r))
        .collect();
    let targets = task
        .target_columns
        .iter()
        .map(|t| {
            let col = env.train.column(t)?;
            // Ranked label lists (MAP@k) draw from the target's labels as classes do.
            Ok(if task.kind.is_classification() || task.kind == TaskKind::Ranking {
                let mut counts: BTreeMap<String, usize> = BTreeMap::new();
                for l in col.label_texts() {
                    *counts.entry(l).or_insert(0) += 1;
                }
                let n: usize = counts.values().sum();
                // Shares in sorted label order (numeric order for numbers).
                let mut labels: Vec<(String, usize)> = counts.into_iter().collect();
                let numeric_labels = matches!(col, Column::Numeric(_));
                if numeric_labels {
                    labels.sort_by(|a, b| {
                        a.0.parse::<f64>().unwrap_or(0.0).total_cmp(&b.0.parse::<f64>().unwrap_or(0.0))
                    });
                }
                TargetDna::Classes {
                    shares: labels.iter().map(|(_, c)| *c as f64 / n.max(1) as f64).collect(),
                    numeric_labels,
                }
            } else {
                let v = col.to_f64_lenient().unwrap_or_default();
                let shape = shape(&v)
                    .ok_or_else(|| crate::Error::Unsupported { reason: format!("target `{t}` has no values") })?;
                TargetDna::Continuous { shape }
            })
        })
        .collect::<Result<Vec<_>>>()?;
    Ok(TaskDna {
        modality: task.modality,
        kind: task.kind,
        metric: task.metric.clone(),
        direction: task.direction,
        metric_family: task.metric.check()?.info.family,
        n_train: env.train.n_rows(),
        n_test: env.test.n_rows(),
        features,
        targets,
        n_prediction_columns: task.prediction_columns.len(),
        correlations,
        signal: None,
        images: match &task.images {
            Some(spec) if task.modality != Modality::Audio => Some(image_dna(env, spec)?),
            _ => None,
        },
        audio: match &task.images {
            Some(spec) if task.modality == Modality::Audio => Some(audio_dna(env, spec)?),
            _ => None,
        },
        pixels: if sandmle_core::pixel_rows::is_pixel_task(task, &env.train) { Some(pixel_dna(env)?) } else { None },
    })
}

/// The images of a per-pixel task: the median size of the training
/// images (their largest row and column), how many each split holds and
/// the training targets' mean.
fn pixel_dna(env: &Environment) -> Result<sandmle_core::PixelDna> {
    use sandmle_core::pixel_rows::{COL, ITEM, ROW};
    let sizes = |t: &sandmle_core::Table| -> Result<BTreeMap<String, (f64, f64)>> {
        let (items, rows, cols) = (t.column(ITEM)?.label_texts(), t.column(ROW)?, t.column(COL)?);
        let (rows, cols) = (rows.to_f64_lenient().unwrap_or_default(), cols.to_f64_lenient().unwrap_or_default());
        let mut m: BTreeMap<String, (f64, f64)> = BTreeMap::new();
        for ((item, r), c) in items.into_iter().zip(rows).zip(cols) {
            let e = m.entry(item).or_insert((0.0, 0.0));
            *e = (e.0.max(c), e.1.max(r));
        }
        Ok(m)
    };
    let train = sizes(&env.train)?;
    let test = sizes(&env.test)?;
    let median = |f: fn(&(f64, f64)) -> f64| -> u32 {
        let mut v: Vec<f64> = train.values().map(f).collect();
        v.sort_by(f64::total_cmp);
        v.get(v.len() / 2).map_or(0, |&x| x as u32)
    };
    let target = env.task().target_columns.first().map(|t| env.train.column(t)).transpose()?;
    let values: Vec<f64> =
        target.and_then(|c| c.to_f64_lenient()).unwrap_or_default().into_iter().filter(|x| x.is_finite()).collect();
    Ok(sandmle_core::PixelDna {
        width: median(|s| s.0),
        height: median(|s| s.1),
        train_images: train.len(),
        test_images: test.len(),
        mean_target: values.iter().sum::<f64>() / values.len().max(1) as f64,
    })
}

/// The shape of a task's training clips, decoded (at most
/// [`IMAGE_SAMPLE`], in row order): the most common sample rate (the
/// lower on ties), the median length and the median root-mean-square
/// level. Files that do not decode are skipped.
fn audio_dna(env: &Environment, spec: &ImageSpec) -> Result<AudioDna> {
    let ids = env.train.column(spec.key(&env.task().id_column))?;
    let mut seen = std::collections::BTreeSet::new();
    let mut rates: BTreeMap<u32, usize> = BTreeMap::new();
    let (mut seconds, mut levels) = (Vec::new(), Vec::new());
    for r in 0..ids.len() {
        if seconds.len() >= IMAGE_SAMPLE {
            break;
        }
        let Some(id) = ids.get_str(r) else { continue };
        // Rows sharing a file by a key column count it once.
        if !seen.insert(id.to_string()) {
            continue;
        }
        let name = spec.file_name(&id);
        let Some(bytes) = env.images.get(&name) else { continue };
        let Ok(clip) = decode_audio(bytes, &name) else { continue };
        *rates.entry(clip.sample_rate).or_insert(0) += 1;
        seconds.push(clip.seconds());
        let energy: f64 = clip.samples.iter().map(|&x| f64::from(x) * f64::from(x)).sum();
        levels.push((energy / clip.samples.len().max(1) as f64).sqrt());
    }
    if seconds.is_empty() {
        return Err(crate::Error::Unsupported {
            reason: "no training clip of the task is a readable WAV or AIFF".into(),
        });
    }
    let median = |v: &mut Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[(v.len() - 1) / 2]
    };
    let sample_rate = rates.iter().fold((0u32, 0usize), |best, (&r, &k)| if k > best.1 { (r, k) } else { best }).0;
    Ok(AudioDna { sample_rate, seconds: median(&mut seconds), rms: median(&mut levels) })
}

/// Most training images decoded for the DNA.
const IMAGE_SAMPLE: usize = 2000;

/// The shape of a task's training images, decoded from their PNGs (at most
/// [`IMAGE_SAMPLE`], in row order): the median width and height, the most
/// common channel count (the smaller on ties), and the mean and standard
/// deviation of every colour sample (alpha aside) scaled to `[0, 1]`.
/// Files that are not readable PNGs are skipped.
fn image_dna(env: &Environment, spec: &ImageSpec) -> Result<ImageDna> {
    let ids = env.train.column(spec.key(&env.task().id_column))?;
    let mut seen = std::collections::BTreeSet::new();
    let (mut widths, mut heights) = (Vec::new(), Vec::new());
    let mut channels: BTreeMap<u8, usize> = BTreeMap::new();
    let (mut sum, mut sum_sq, mut count) = (0.0f64, 0.0f64, 0u64);
    for r in 0..ids.len() {
        if widths.len() >= IMAGE_SAMPLE {
            break;
        }
        let Some(id) = ids.get_str(r) else { continue };
        // Rows sharing a file by a key column count it once.
        if !seen.insert(id.to_string()) {
            continue;
        }
        let name = spec.file_name(&id);
        let Some(bytes) = env.images.get(&name) else { continue };
        let Ok(px) = decode_image(bytes, &name) else { continue };
        widths.push(px.width);
        heights.push(px.height);
        *channels.entry(px.channels).or_insert(0) += 1;
        let colour =
            if px.channels == 2 || px.channels == 4 { usize::from(px.channels) - 1 } else { usize::from(px.channels) };
        let (mut s, mut q, mut c) = (0u64, 0u64, 0u64);
        for (i, &v) in px.data.iter().enumerate() {
            if i % usize::from(px.channels.max(1)) < colour {
                s += u64::from(v);
                q += u64::from(v) * u64::from(v);
                c += 1;
            }
        }
        sum += s as f64;
        sum_sq += q as f64;
        count += c;
    }
    if widths.is_empty() {
        return Err(crate::Error::Unsupported { reason: "no training image of the task is a readable PNG".into() });
    }
    let median = |v: &mut Vec<u32>| {
        v.sort_unstable();
        v[(v.len() - 1) / 2]
    };
    let n = count.max(1) as f64;
    let mean = sum / n / 255.0;
    let var = (sum_sq / n / (255.0 * 255.0) - mean * mean).max(0.0);
    let channels = channels.iter().fold((0u8, 0usize), |best, (&c, &k)| if k > best.1 { (c, k) } else { best }).0;
    Ok(ImageDna {
        width: median(&mut widths),
        height: median(&mut heights),
        channels,
        mean_intensity: mean,
        sd_intensity: var.sqrt(),
    })
}

/// Signal strength: the mean `folds`-fold cross-validated score of
/// `solution` on the training rows, against the constant sample
/// submission's, graded with `grader`. The gap is positive when the
/// solution is better.
///
/// # Errors
/// When the executor cannot run the solution or a fold's submission is
/// invalid.
pub fn measure_signal(
    env: &Environment,
    executor: &dyn Executor,
    grader: &dyn Grader,
    solution: &Solution,
    folds: usize,
    seed: u64,
) -> Result<Signal> {
    let task = env.task();
    let n = env.train.n_rows();
    let folds = folds.max(2);
    // Each fold trains on at least two rows and tests on at least one.
    if n < 3 * folds {
        return Err(crate::Error::TooFewRows { needed: 3 * folds, available: n });
    }
    let mut rows: Vec<usize> = (0..n).collect();
    let mut rng = rng_for(seed, "signal-folds");
    shuffle(&mut rows, &mut rng);
    let (mut model, mut constant) = (0.0, 0.0);
    for f in 0..folds {
        let held: Vec<usize> = rows.iter().copied().skip(f).step_by(folds).collect();
        let kept: Vec<usize> =
            rows.iter().copied().enumerate().filter(|(i, _)| i % folds != f).map(|(_, r)| r).collect();
        let t = tables(task, env.train.take(&kept)?, env.train.take(&held)?)?;
        let mut fold = env.clone();
        fold.train = t.train;
        fold.test = t.test;
        fold.answers = t.answers;
        fold.sample_submission = t.sample;
        fold.grading.thresholds = None;
        let grading = GradingTask::new(&fold.grading, &fold.answers, None);
        let run = executor.execute(solution, &fold.public_view())?;
        let score = |r: GradeReport| {
            r.score.ok_or_else(|| crate::Error::Unsupported {
                reason: format!("fold {f}: {}", r.error.as_deref().unwrap_or("no score")),
            })
        };
        let sub = run.submission.ok_or_else(|| crate::Error::Unsupported {
            reason: format!("fold {f}: no submission ({:?})", run.status),
        })?;
        model += score(grader.grade(&grading, &sub)?)?;
        constant += score(grader.grade(&grading, &fold.sample_submission)?)?;
    }
    let (model, constant) = (model / folds as f64, constant / folds as f64);
    let gap = if task.direction.is_lower_better() { constant - model } else { model - constant };
    Ok(Signal { constant_score: constant, model_score: model, gap })
}

#[cfg(test)]
mod tests {
    use super::*;
    use sandmle_core::Categorical;

    /// Categories are counted by their text: two codes of one level text
    /// are one category, and empty levels count as missing.
    #[test]
    fn categories_are_counted_by_their_text() {
        let mut env = sandmle_core::testing::tiny_environment();
        let levels = vec!["red".to_string(), "blue".to_string(), "red".to_string(), String::new()];
        let codes = vec![Some(0), Some(1), Some(2), Some(3), None, Some(2)];
        let colour = Column::Categorical(Categorical::from_parts(levels, codes).unwrap());
        env.train.set_column("colour", colour).unwrap();
        let dna = extract_dna(&env).unwrap();
        let colour = dna.features.iter().find_map(|f| match f {
            FeatureDna::Categorical { cardinality, shares, .. } => Some((*cardinality, shares.clone())),
            _ => None,
        });
        // red 3 of 4 present rows, blue 1.
        assert_eq!(colour, Some((2, vec![0.75, 0.25])));
    }

    /// A text's vocabulary is its distinct tokens once lowercased, capitals
    /// and letters beyond ASCII included (a titlecase letter is no capital
    /// but lowercases all the same).
    #[test]
    fn a_texts_vocabulary_counts_lowercased_tokens() {
        let mut env = sandmle_core::testing::tiny_environment();
        let n = env.train.n_rows();
        let docs = ["Hello hello HELLO", "Émile émile x", "\u{1c5}a \u{1c6}a", "x  y\tz"];
        let text = Column::Text((0..n).map(|i| Some(docs[i % docs.len()].into())).collect());
        env.train.set_column("colour", text).unwrap();
        let dna = extract_dna(&env).unwrap();
        let vocab = dna.features.iter().find_map(|f| match f {
            FeatureDna::Text { vocab_size, .. } => Some(*vocab_size),
            _ => None,
        });
        assert!(n >= docs.len(), "every text is in the table");
        // hello, émile, x, ǆa, y, z.
        assert_eq!(vocab, Some(6));
    }
}
