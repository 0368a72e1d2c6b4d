//! The oracle of a synthesized task: the prediction of the hidden rule
//! that labelled its rows, the noise integrated out.
//!
//! Every labelling of this crate is one of a few shapes ([`Truth`]), each
//! over noise-free scores the generator knows and Gaussian noise of a known
//! standard deviation `sd`:
//!
//! | shape | label | the oracle's belief |
//! |---|---|---|
//! | [`Truth::Cut`] | 1 when `score + noise > cut` | `P(1) = Φ((score − cut) / sd)` |
//! | [`Truth::Argmax`] | the class of the greatest `score_c + offset_c + noise_c` | `P(c) = ∫ φ(z) Π_{d≠c} Φ((μ_c − μ_d) / sd + z) dz`, on a grid |
//! | [`Truth::Monotone`] | `G(score + noise)`, `G` increasing (the noisy score's rank mapped onto the target's marginal) | `G` of the noisy score, integrated on a grid |
//! | [`Truth::Posterior`] | drawn from known per-row class probabilities | those probabilities |
//!
//! The prediction is then put in the submission's form as the metric
//! rewards it: class probabilities, the positive class's probability, the
//! most probable label (Bayes-optimal for accuracy), the `k` most probable
//! labels, or for values the conditional mean (squared errors,
//! correlations), median (absolute and percentage errors) or the mean in
//! `log1p` space (RMSLE). The oracle reads the latent factors, which the
//! columns show only through their marginals, categories and gaps: it is a
//! ceiling, not always a reachable score.

use crate::error::{Error, Result};
use sandmle_core::{Column, OraclePrediction, OracleRecord, SubmissionForm, Table, TaskSpec};

/// How one target's labels were drawn from noise-free scores (indexed by
/// the generator's row).
#[derive(Debug, Clone)]
pub(crate) enum Truth {
    /// Class 1 when `score + noise > cut`.
    Cut { score: Vec<f64>, cut: f64 },
    /// The class of the greatest `score_c + offset_c + noise_c` (scores
    /// class by class).
    Argmax { scores: Vec<Vec<f64>>, offsets: Vec<f64> },
    /// `G(score + noise)` with `G` increasing, known at the drawn rows by
    /// their noisy scores and values.
    Monotone { score: Vec<f64>, noisy: Vec<f64>, values: Vec<f64> },
    /// Each row's class probabilities, known exactly.
    Posterior { probabilities: Vec<Vec<f64>> },
}

/// One target's truth: its shape, the noise and its class labels.
#[derive(Debug, Clone)]
pub(crate) struct TargetTruth {
    pub truth: Truth,
    /// Standard deviation of the noise added to the scores.
    pub noise_sd: f64,
    /// The class labels in class order (empty for values).
    pub classes: Vec<String>,
    /// Whether the labels are numbers.
    pub numeric: bool,
}

/// The integration grid: `z` from −7 to 7 in steps of 1/8 with normal
/// weights summing to 1.
fn grid() -> Vec<(f64, f64)> {
    let points: Vec<f64> = (-56..=56).map(|i| f64::from(i) / 8.0).collect();
    let weights: Vec<f64> = points.iter().map(|z| libm::exp(-0.5 * z * z)).collect();
    let total: f64 = weights.iter().sum();
    points.into_iter().zip(weights.into_iter().map(|w| w / total)).collect()
}

/// The standard normal distribution function.
fn phi(x: f64) -> f64 {
    0.5 * libm::erfc(-x / std::f64::consts::SQRT_2)
}

/// What the oracle believes of one row: class probabilities or, for
/// values, the noisy score's distribution through `G`.
enum Belief {
    Classes(Vec<f64>),
    Value(f64),
}

impl TargetTruth {
    /// The increasing map of a [`Truth::Monotone`], built once per target.
    fn map(&self) -> Option<Monotone> {
        match &self.truth {
            Truth::Monotone { noisy, values, .. } => Some(Monotone::new(noisy, values)),
            _ => None,
        }
    }

    /// `g` is [`TargetTruth::map`] (for values).
    fn belief(
        &self,
        row: usize,
        form: SubmissionForm,
        metric: &str,
        grid: &[(f64, f64)],
        g: Option<&Monotone>,
    ) -> Belief {
        let sd = self.noise_sd;
        match &self.truth {
            Truth::Cut { score, cut } => {
                let p = if sd > 0.0 { phi((score[row] - cut) / sd) } else { f64::from(u8::from(score[row] > *cut)) };
                Belief::Classes(vec![1.0 - p, p])
            }
            Truth::Argmax { scores, offsets } => {
                let mu: Vec<f64> = scores.iter().zip(offsets).map(|(s, o)| s[row] + o).collect();
                let first_max = |v: &[f64]| (0..v.len()).fold(0, |b, c| if v[c] > v[b] { c } else { b });
                // A label alone needs only the most probable class: with
                // equal noise on every class it is the greatest mean.
                if sd <= 0.0 || form == SubmissionForm::Label || form == SubmissionForm::LabelSet {
                    let mut p = vec![0.0; mu.len()];
                    p[first_max(&mu)] = 1.0;
                    return Belief::Classes(p);
                }
                let mut p: Vec<f64> = (0..mu.len())
                    .map(|c| {
                        grid.iter()
                            .map(|&(z, w)| {
                                let others: f64 =
                                    (0..mu.len()).filter(|&d| d != c).map(|d| phi((mu[c] - mu[d]) / sd + z)).product();
                                w * others
                            })
                            .sum()
                    })
                    .collect();
                let total: f64 = p.iter().sum();
                if total > 0.0 {
                    p.iter_mut().for_each(|x| *x /= total);
                }
                Belief::Classes(p)
            }
            Truth::Posterior { probabilities } => Belief::Classes(probabilities[row].clone()),
            Truth::Monotone { score, noisy, values } => {
                let built;
                let g = match g {
                    Some(g) => g,
                    None => {
                        built = Monotone::new(noisy, values);
                        &built
                    }
                };
                let s = score[row];
                let value = if sd <= 0.0 || matches!(metric, "mae" | "mape") {
                    // The median of an increasing map of a symmetric noise.
                    g.at(s)
                } else if metric == "rmsle" || metric == "mean_column_rmsle" {
                    libm::expm1(grid.iter().map(|&(z, w)| w * libm::log1p(g.at(s + sd * z).max(-0.999_999))).sum())
                } else {
                    grid.iter().map(|&(z, w)| w * g.at(s + sd * z)).sum()
                };
                Belief::Value(value)
            }
        }
    }
}

/// An increasing map known at points, linear between them and flat
/// beyond.
struct Monotone {
    x: Vec<f64>,
    y: Vec<f64>,
}

impl Monotone {
    fn new(noisy: &[f64], values: &[f64]) -> Self {
        let mut order: Vec<usize> = (0..noisy.len().min(values.len())).collect();
        order.sort_by(|&a, &b| noisy[a].total_cmp(&noisy[b]).then(a.cmp(&b)));
        Monotone { x: order.iter().map(|&i| noisy[i]).collect(), y: order.iter().map(|&i| values[i]).collect() }
    }

    fn at(&self, v: f64) -> f64 {
        let n = self.x.len();
        if n == 0 {
            return f64::NAN;
        }
        let i = self.x.partition_point(|&x| x < v);
        if i == 0 {
            return self.y[0];
        }
        if i == n {
            return self.y[n - 1];
        }
        let (x0, x1, y0, y1) = (self.x[i - 1], self.x[i], self.y[i - 1], self.y[i]);
        if x1 > x0 { y0 + (y1 - y0) * (v - x0) / (x1 - x0) } else { y1 }
    }
}

/// The oracle's record for a task: its prediction at the generator's
/// `rows` (in the answers' order, `ids` their id column), one
/// [`TargetTruth`] per target column.
///
/// # Errors
/// [`Error::Unsupported`] for a form the truths cannot fill (a class
/// probability form over values, target counts that disagree).
pub(crate) fn oracle_record(
    task: &TaskSpec,
    truths: &[TargetTruth],
    rows: &[usize],
    ids: &Column,
) -> Result<OracleRecord> {
    let form = task.submission_form();
    let metric = task.metric.name.as_str();
    let grid = grid();
    let unsupported = |what: &str| Error::Unsupported { reason: format!("the oracle cannot predict {what}") };
    let mut table = Table::new();
    table.push_column(task.id_column.clone(), ids.clone())?;
    let beliefs = |t: &TargetTruth| -> Vec<Belief> {
        let g = t.map();
        rows.iter().map(|&r| t.belief(r, form, metric, &grid, g.as_ref())).collect()
    };
    let probabilities = |b: &[Belief]| -> Result<Vec<Vec<f64>>> {
        b.iter()
            .map(|b| match b {
                Belief::Classes(p) => Ok(p.clone()),
                Belief::Value(_) => Err(unsupported("class probabilities of values")),
            })
            .collect()
    };
    let most_probable = |p: &[f64]| (0..p.len()).fold(0, |b, c| if p[c] > p[b] { c } else { b });
    match form {
        SubmissionForm::ClassProbabilities => {
            let [t] = truths else { return Err(unsupported("class probabilities of several targets")) };
            let p = probabilities(&beliefs(t))?;
            if task.prediction_columns.len() != t.classes.len() {
                return Err(unsupported("a class column per class"));
            }
            for (c, name) in task.prediction_columns.iter().enumerate() {
                table.push_column(name.clone(), Column::Numeric(p.iter().map(|row| row[c]).collect()))?;
            }
        }
        _ => {
            if truths.len() != task.prediction_columns.len() {
                return Err(unsupported("a prediction column per target"));
            }
            for (t, name) in truths.iter().zip(&task.prediction_columns) {
                let b = beliefs(t);
                let column = match form {
                    SubmissionForm::Value => Column::Numeric(
                        b.iter()
                            .map(|b| match b {
                                Belief::Value(v) => Ok(*v),
                                Belief::Classes(_) => Err(unsupported("values of classes")),
                            })
                            .collect::<Result<_>>()?,
                    ),
                    SubmissionForm::Probability | SubmissionForm::ColumnProbabilities => {
                        // The positive class is the greater of two.
                        Column::Numeric(probabilities(&b)?.iter().map(|p| p.get(1).copied().unwrap_or(0.0)).collect())
                    }
                    SubmissionForm::LabelList => {
                        let k = task.metric.params.get("k").and_then(serde_json::Value::as_u64).unwrap_or(5) as usize;
                        let lists: Vec<String> = probabilities(&b)?
                            .iter()
                            .map(|p| {
                                let mut order: Vec<usize> = (0..p.len()).collect();
                                order.sort_by(|&a, &c| p[c].total_cmp(&p[a]).then(a.cmp(&c)));
                                let top: Vec<&str> = order.iter().take(k).map(|&c| t.classes[c].as_str()).collect();
                                top.join(" ")
                            })
                            .collect();
                        Column::text(lists.iter().map(|s| Some(s.as_str())))
                    }
                    SubmissionForm::Label | SubmissionForm::LabelSet | SubmissionForm::ClassProbabilities => {
                        let labels: Vec<usize> = probabilities(&b)?.iter().map(|p| most_probable(p)).collect();
                        crate::synthesize::label_column(&labels, &t.classes, t.numeric && form == SubmissionForm::Label)
                    }
                };
                table.push_column(name.clone(), column)?;
            }
        }
    }
    Ok(OracleRecord {
        method: "the hidden rule's prediction, its noise integrated out (it reads the latent factors)".into(),
        score: None,
        standard_error: None,
        prediction: Some(OraclePrediction::from_table(&table)),
    })
}

/// The generator's rows of a task's test table, in its order: the kept
/// rows at positions `n_train..` of `kept`, sorted by the fresh ids of
/// [`crate::synthesize::split_with_fresh_ids`].
pub(crate) fn test_rows_in_order(kept: &[usize], ids: &[usize], n_train: usize) -> Vec<usize> {
    let mut positions: Vec<usize> = (n_train..kept.len()).collect();
    positions.sort_by_key(|&p| ids[p]);
    positions.into_iter().map(|p| kept[p]).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_grid_integrates_the_normal_distribution() {
        let g = grid();
        let mass: f64 = g.iter().map(|&(_, w)| w).sum();
        let var: f64 = g.iter().map(|&(z, w)| w * z * z).sum();
        assert!((mass - 1.0).abs() < 1e-12 && (var - 1.0).abs() < 1e-6, "{mass} {var}");
        // P(score + noise > cut) by the grid matches Φ.
        let p: f64 = g.iter().filter(|&&(z, _)| 0.3 + 0.5 * z > 0.0).map(|&(_, w)| w).sum();
        assert!((p - phi(0.6)).abs() < 0.03, "{p}");
    }

    /// Two classes by argmax are a cut: `P(1) = Φ((μ1 − μ0) / (sd √2))`.
    #[test]
    fn argmax_of_two_classes_agrees_with_the_cut() {
        let t = TargetTruth {
            truth: Truth::Argmax { scores: vec![vec![0.2], vec![0.5]], offsets: vec![0.0, 0.1] },
            noise_sd: 0.7,
            classes: vec!["a".into(), "b".into()],
            numeric: false,
        };
        let Belief::Classes(p) = t.belief(0, SubmissionForm::ClassProbabilities, "multiclass_log_loss", &grid(), None)
        else {
            panic!("classes")
        };
        let want = phi(0.4 / (0.7 * std::f64::consts::SQRT_2));
        assert!((p[1] - want).abs() < 1e-9, "{} {want}", p[1]);
    }

    /// The oracle's class probabilities against the labelling itself: many
    /// rows of the same scores labelled by the generator's own functions
    /// ([`crate::rule::binary_labels`]' comparison with a cut,
    /// [`crate::rule::multiclass_labels`]' argmax of noisy scores plus
    /// offsets), the label frequencies within 0.01 of the oracle's belief.
    #[test]
    fn beliefs_match_the_frequencies_of_the_labelling_they_integrate() {
        use crate::random::gaussian;
        let mut rng = sandmle_core::rng_for(7, "oracle-test");
        let draws = 40_000;
        let sd = 0.8;
        // Two classes by a cut.
        let t = TargetTruth {
            truth: Truth::Cut { score: vec![0.3], cut: 0.5 },
            noise_sd: sd,
            classes: vec!["no".into(), "yes".into()],
            numeric: false,
        };
        let Belief::Classes(p) = t.belief(0, SubmissionForm::Probability, "roc_auc", &grid(), None) else { panic!() };
        let hits = (0..draws).filter(|_| 0.3 + sd * gaussian(&mut rng) > 0.5).count();
        assert!((p[1] - hits as f64 / f64::from(draws)).abs() < 0.01, "{} {hits}", p[1]);
        // Four classes by an argmax with offsets.
        let (mu, offsets) = ([0.4, -0.2, 0.1, 0.9], [0.0, 0.5, 0.2, -0.6]);
        let t = TargetTruth {
            truth: Truth::Argmax { scores: mu.iter().map(|&m| vec![m]).collect(), offsets: offsets.to_vec() },
            noise_sd: sd,
            classes: (0..4).map(|c| c.to_string()).collect(),
            numeric: true,
        };
        let Belief::Classes(p) = t.belief(0, SubmissionForm::ClassProbabilities, "multiclass_log_loss", &grid(), None)
        else {
            panic!()
        };
        let mut counts = [0usize; 4];
        for _ in 0..draws {
            let noisy: Vec<f64> = (0..4).map(|c| mu[c] + offsets[c] + sd * gaussian(&mut rng)).collect();
            counts[(0..4).fold(0, |b, c| if noisy[c] > noisy[b] { c } else { b })] += 1;
        }
        for c in 0..4 {
            assert!((p[c] - counts[c] as f64 / f64::from(draws)).abs() < 0.01, "class {c}: {p:?} {counts:?}");
        }
    }

    #[test]
    fn values_take_the_metric_s_centre() {
        // G(x) = x over [-10, 10]: mean and median are the score itself.
        let xs: Vec<f64> = (-100..=100).map(|i| f64::from(i) / 10.0).collect();
        let t = TargetTruth {
            truth: Truth::Monotone { score: vec![1.5], noisy: xs.clone(), values: xs },
            noise_sd: 1.0,
            classes: vec![],
            numeric: true,
        };
        for metric in ["rmse", "mae"] {
            let Belief::Value(v) = t.belief(0, SubmissionForm::Value, metric, &grid(), t.map().as_ref()) else {
                panic!("value")
            };
            assert!((v - 1.5).abs() < 1e-9, "{metric}: {v}");
        }
    }
}
