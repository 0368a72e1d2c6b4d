//! Generating features: latent Gaussian blocks made into numeric,
//! categorical and text columns of a DNA's shape, and missing values.

use crate::lexicon::{Domain, base_name};
use crate::random::{from_uniform, gaussian};
use crate::stats::normal_cdf;
use crate::units::{realistic, unit_of};
use rand::RngExt;
use sandmle_core::Mutations;
use sandmle_core::{CellText, Column, FeatureDna, NumericShape, PlannedFeature, SeedRng, TaskDna};

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
                Column::Text(documents(&latent, *mean_tokens, *sd_tokens, domain.map(|d| d.name), rng))
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

/// Documents of the DNA's lengths in the domain's words ([`crate::words`]):
/// everyday words and English fillers in a Zipf-like mix, and signal
/// phrases of the "up" set where the latent factor is high or of the
/// "down" set where it is low, a share of the tokens growing with the
/// factor's distance from its median (`0.05 + 0.2 |z|`, at most 0.45) —
/// the words carry the signal and how strongly, so a model that counts
/// them recovers the factor, not only its sign. Lengths are log-normal
/// with the DNA's mean and spread; no word follows itself.
fn documents(
    latent: &[f64],
    mean_tokens: f64,
    sd_tokens: f64,
    domain: Option<&str>,
    rng: &mut SeedRng,
) -> Vec<Option<CellText>> {
    let (everyday, up, down) = crate::words::words_of(domain);
    let vocab: Vec<&str> = everyday.iter().chain(crate::words::FILLERS).copied().collect();
    let size = vocab.len();
    let weights: Vec<f64> = (0..size).map(|r| 1.0 / (r as f64 + 1.0)).collect();
    let total: f64 = weights.iter().sum();
    let cum: Vec<f64> = weights
        .iter()
        .scan(0.0, |acc, w| {
            *acc += w / total;
            Some(*acc)
        })
        .collect();
    // Lengths log-normal with the DNA's mean and spread: right-skewed as
    // real messages are, rarely a single word (a normal length clipped at
    // one word made a tenth of the documents one word long).
    let mean = mean_tokens.max(1.0);
    let sigma2 = libm::log(1.0 + (sd_tokens / mean).powi(2));
    let (mu, sigma) = (libm::log(mean) - sigma2 / 2.0, sigma2.sqrt());
    latent
        .iter()
        .map(|&z| {
            let len = libm::exp(mu + sigma * gaussian(rng)).round().clamp(1.0, 200.0) as usize;
            let signal = if z > 0.0 { up } else { down };
            let rate = (0.05 + 0.2 * z.abs()).min(0.45);
            let mut words: Vec<&str> = Vec::with_capacity(len);
            let mut redraws = 0;
            while words.len() < len {
                let word = if rng.random::<f64>() < rate {
                    signal[rng.random_range(0..signal.len())]
                } else {
                    let u: f64 = rng.random();
                    vocab[cum.partition_point(|&c| c < u).min(size - 1)]
                };
                // No word straight after itself ("claimant claimant"): a
                // repeat is drawn again (eight times at most).
                let repeat = words.last().is_some_and(|last| last.rsplit(' ').next() == word.split(' ').next());
                if !repeat || redraws >= 8 {
                    words.push(word);
                    redraws = 0;
                } else {
                    redraws += 1;
                }
            }
            Some(words.join(" ").into())
        })
        .collect()
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

#[cfg(test)]
mod tests {
    use super::*;
    use sandmle_core::rng_for;

    /// Text is made of the domain's real words, and its signal words follow
    /// the latent factor.
    #[test]
    fn documents_use_the_domains_words_and_carry_the_signal() {
        let latent: Vec<f64> = (0..400).map(|i| if i % 2 == 0 { 1.0 } else { -1.0 }).collect();
        let docs = documents(&latent, 12.0, 3.0, Some("retail"), &mut rng_for(1, "t"));
        let (everyday, up, down) = crate::words::words_of(Some("retail"));
        let known: std::collections::BTreeSet<&str> =
            everyday.iter().chain(crate::words::FILLERS).chain(up).chain(down).flat_map(|p| p.split(' ')).collect();
        let (mut up_hits, mut down_hits) = ([0usize; 2], [0usize; 2]);
        for (doc, z) in docs.iter().zip(&latent) {
            let doc = doc.as_deref().unwrap();
            assert!(doc.split(' ').all(|w| known.contains(w)), "{doc}");
            let side = usize::from(*z > 0.0);
            up_hits[side] += up.iter().filter(|p| doc.contains(*p)).count();
            down_hits[side] += down.iter().filter(|p| doc.contains(*p)).count();
        }
        assert!(up_hits[1] > 0 && up_hits[0] == 0, "{up_hits:?}");
        assert!(down_hits[0] > 0 && down_hits[1] == 0, "{down_hits:?}");
    }
}
