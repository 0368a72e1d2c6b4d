//! Generating features: latent Gaussian blocks made into numeric,
//! categorical and text columns of a DNA's shape, and missing values.

use crate::lexicon::{Domain, base_name};
use crate::random::{from_uniform, gaussian};
use crate::stats::normal_cdf;
use crate::units::{realistic, unit_of};
use rand::RngExt;
use sandmle_core::Mutations;
use sandmle_core::{Column, FeatureDna, NumericShape, PlannedFeature, SeedRng, TaskDna};

/// A feature being generated: its observed column and its latent signal.
///
/// The latent of a numeric or categorical signal feature is, once its
/// column is drawn, replaced by what the column shows: the normal scores
/// of its values, the middle of its level's band. A rule over it then
/// reads the quantity a person sees (a price, a category), not a hidden
/// variable the column only hints at: a cut inside one level or between
/// two equal whole numbers would be invisible to every model. Text keeps
/// its latent: the words are a noisy view of it, as text is.
pub(crate) struct Generated {
    pub name: String,
    pub column: Column,
    pub latent: Vec<f64>,
    /// The latent factor as drawn, before the column replaced it (what
    /// value-dependent missingness reads: a dominant category's rows are
    /// as likely to be missing as its latent says).
    pub drawn: Vec<f64>,
    /// Part of the rule's inputs (not a pure-noise feature).
    pub signal: bool,
    pub missing_rate: f64,
}

/// The features to generate: the DNA's, with the feature-count mutation
/// applied (removing random features, keeping two, or repeating random
/// ones), then the
/// irrelevant ones, which copy a numeric shape (or a standard normal).
pub(crate) fn feature_plan(dna: &TaskDna, m: &Mutations, rng: &mut SeedRng) -> Vec<(FeatureDna, bool)> {
    let mut plan: Vec<(FeatureDna, bool)> = dna.features.iter().cloned().map(|f| (f, true)).collect();
    if m.feature_delta < 0 {
        // Keep at least two features (or all, if there are fewer).
        for _ in 0..m.feature_delta.unsigned_abs() {
            if plan.len() > 2 {
                let i = rng.random_range(0..plan.len());
                plan.remove(i);
            }
        }
    } else if !plan.is_empty() {
        for _ in 0..m.feature_delta {
            let i = rng.random_range(0..plan.len());
            plan.push(plan[i].clone());
        }
    }
    let noise_shape = plan
        .iter()
        .find_map(|(f, _)| match f {
            FeatureDna::Numeric { shape, .. } => Some(shape.clone()),
            _ => None,
        })
        .unwrap_or(NumericShape {
            mean: 0.0,
            sd: 1.0,
            skew: 0.0,
            min: -3.0,
            max: 3.0,
            quantiles: [-1.645, -0.674, 0.0, 0.674, 1.645],
            integer: false,
            distinct: 1000,
        });
    for _ in 0..m.irrelevant {
        plan.push((FeatureDna::Numeric { missing_rate: 0.0, shape: noise_shape.clone() }, false));
    }
    plan.truncate(128);
    plan
}

pub(crate) fn generate_features(
    plan: &[PlannedFeature],
    domain: Option<&Domain>,
    n: usize,
    rng: &mut SeedRng,
) -> Vec<Generated> {
    let n_numeric = plan.iter().filter(|f| matches!(f.dna, FeatureDna::Numeric { .. })).count();
    let n_blocks = n_numeric.div_ceil(4).max(1);
    let blocks: Vec<Vec<f64>> = (0..n_blocks).map(|_| (0..n).map(|_| gaussian(rng)).collect()).collect();
    let mut out = Vec::with_capacity(plan.len());
    for (j, f) in plan.iter().enumerate() {
        let lambda: f64 = rng.random_range(0.3..0.9);
        let block = &blocks[j % n_blocks];
        let mut latent: Vec<f64> = if f.signal {
            block.iter().map(|&z| lambda * z + (1.0 - lambda * lambda).sqrt() * gaussian(rng)).collect()
        } else {
            (0..n).map(|_| gaussian(rng)).collect()
        };
        let drawn = latent.clone();
        let column = match &f.dna {
            FeatureDna::Numeric { shape, .. } => {
                let values: Vec<f64> = match unit_of(&f.name) {
                    Some((_, lo, hi)) => realistic(&latent, shape, &f.name, (lo, hi)),
                    None => latent.iter().map(|&z| from_uniform(shape, normal_cdf(z))).collect(),
                };
                if f.signal {
                    latent = crate::stats::normal_scores(&values);
                }
                Column::Numeric(values)
            }
            FeatureDna::Categorical { shares, cardinality, .. } => {
                let base = base_name(&f.name);
                let levels: &[&str] =
                    domain.and_then(|d| d.categorical.iter().find(|(b, _)| *b == base)).map_or(&[], |(_, l)| l);
                let mut shares: Vec<f64> = if shares.is_empty() { vec![1.0] } else { shares.clone() };
                shares.truncate((*cardinality).clamp(1, 50));
                let total: f64 = shares.iter().sum();
                let cum: Vec<f64> = shares
                    .iter()
                    .scan(0.0, |acc, s| {
                        *acc += s / total;
                        Some(*acc)
                    })
                    .collect();
                let level =
                    |i: usize| if i < levels.len() { levels[i].to_owned() } else { format!("{base}_{}", i + 1) };
                let index: Vec<usize> =
                    latent.iter().map(|&z| cum.partition_point(|&c| c < normal_cdf(z)).min(shares.len() - 1)).collect();
                let values: Vec<String> = index.iter().map(|&i| level(i)).collect();
                if f.signal {
                    // The middle of the level's band of the latent.
                    let middle = |i: usize| {
                        let below = if i == 0 { 0.0 } else { cum[i - 1] };
                        crate::stats::normal_quantile((0.5 * (below + cum[i])).clamp(1e-9, 1.0 - 1e-9))
                    };
                    latent = index.iter().map(|&i| middle(i)).collect();
                }
                Column::categorical(values.iter().map(|s| Some(s.as_str())))
            }
            FeatureDna::Text { mean_tokens, sd_tokens, .. } => {
                Column::Text(crate::prose::documents(&latent, *mean_tokens, *sd_tokens, domain.map(|d| d.name), rng))
            }
        };
        out.push(Generated {
            name: f.name.clone(),
            column,
            latent,
            drawn,
            signal: f.signal,
            missing_rate: f.dna.missing_rate(),
        });
    }
    out
}

/// The DNA's missing rates (times the mutation), completely at random for
/// even-positioned features and only above the latent median for odd ones.
pub(crate) fn apply_missingness(feats: &mut [Generated], factor: f64, rng: &mut SeedRng) {
    for (j, f) in feats.iter_mut().enumerate() {
        let rate = (f.missing_rate * factor).min(0.9);
        if rate <= 0.0 {
            continue;
        }
        let missing: Vec<bool> = f
            .drawn
            .iter()
            .map(|&z| {
                let p = if j % 2 == 0 {
                    rate
                } else if z > 0.0 {
                    (2.0 * rate).min(0.95)
                } else {
                    0.0
                };
                rng.random::<f64>() < p
            })
            .collect();
        f.column = match std::mem::replace(&mut f.column, Column::Numeric(vec![])) {
            Column::Numeric(v) => {
                Column::Numeric(v.iter().zip(&missing).map(|(&x, &m)| if m { f64::NAN } else { x }).collect())
            }
            Column::Text(v) => {
                Column::Text(v.into_iter().zip(&missing).map(|(x, &m)| if m { None } else { x }).collect())
            }
            c @ Column::Categorical(_) => {
                let values: Vec<Option<String>> = (0..c.len())
                    .map(|i| if missing[i] { None } else { c.get_str(i).map(|s| s.into_owned()) })
                    .collect();
                Column::categorical(values.iter().map(|s| s.as_deref()))
            }
        };
    }
}
