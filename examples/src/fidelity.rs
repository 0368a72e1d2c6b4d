//! Fidelity: does a micro environment rank solutions the way its full task
//! does, and is a synthesized task as learnable as its seed?
//!
//! For one seed ([`seed_fidelity`]):
//!
//! - **tau**: Kendall's tau-b between the baseline panel's leaderboard on
//!   each of `shrinks` micro environments (shrink seeds `0..shrinks`) and
//!   the seed's own leaderboard (the same panel on the full task), with the
//!   median and the min–max over the shrinks;
//! - **separable tau**: tau on the pairs of baselines whose full-task
//!   scores differ by more than the micro noise (each baseline's standard
//!   deviation over the shrinks; [`sandmle_synth::separable_tau`]) — pairs
//!   closer than that cannot be ranked by any micro task;
//! - **sensitivity**: the median tau again with fewer training rows (50,
//!   100) and with `test_factor` (default 4) times the test rows, each
//!   over the same shrink seeds;
//! - **learnability**: the normalised gain of the best baseline over the
//!   constant one, `(best - constant) / (perfect - constant)` (`perfect`
//!   the score of the answers themselves), median over the synthesized
//!   environments of the seed (the Foundry with the built-in roles) against
//!   the median over its micro environments; the ratio should lie in
//!   0.5–2.
//!
//! Honesty: the micro environments are drawn by the shrinker from the
//! seed's data alone; the full task's leaderboard is read only here, to
//! measure, never to choose a draw.

use crate::Composition;
use sandmle_agents::Result;
use sandmle_agents::foundry::{FoundryConfig, SeedTask, read_records};
use sandmle_core::{Environment, Leaderboard};
use sandmle_synth::{StratifiedShrinker, kendall_tau, separable_tau};
use serde::Serialize;

/// What [`seed_fidelity`] measures and how much.
#[derive(Debug, Clone, PartialEq)]
pub struct FidelityConfig {
    /// Micro environments per measurement (shrink seeds `0..shrinks`).
    pub shrinks: u64,
    /// Synthesized environments asked of the Foundry (0: no learnability).
    pub synthesized: usize,
    /// Also measure with fewer training rows and more test rows.
    pub sensitivity: bool,
    /// The larger test split of the sensitivity run, as a multiple of the
    /// default one (at least 2).
    pub test_factor: usize,
}

impl Default for FidelityConfig {
    fn default() -> Self {
        FidelityConfig { shrinks: 5, synthesized: 4, sensitivity: true, test_factor: 4 }
    }
}

/// A median with its range.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Spread {
    /// The median.
    pub median: f64,
    /// The smallest value.
    pub min: f64,
    /// The largest value.
    pub max: f64,
    /// How many values.
    pub n: usize,
}

impl Spread {
    /// The spread of the finite values, `None` for none.
    pub fn of(values: &[f64]) -> Option<Spread> {
        let mut v: Vec<f64> = values.iter().copied().filter(|x| x.is_finite()).collect();
        if v.is_empty() {
            return None;
        }
        v.sort_by(f64::total_cmp);
        let n = v.len();
        let median = if n % 2 == 1 { v[n / 2] } else { (v[n / 2 - 1] + v[n / 2]) / 2.0 };
        Some(Spread { median, min: v[0], max: v[n - 1], n })
    }
}

/// Median tau under one shrinker setting.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Sensitivity {
    /// Training rows.
    pub train_rows: usize,
    /// Test rows (the median over the shrinks).
    pub test_rows: usize,
    /// Tau over the shrinks.
    pub tau: Option<Spread>,
}

/// One seed's fidelity.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SeedFidelity {
    /// The seed's name.
    pub seed: String,
    /// Its metric.
    pub metric: String,
    /// Tau of the default micro environments.
    pub tau: Option<Spread>,
    /// Tau on the separable pairs.
    pub separable_tau: Option<Spread>,
    /// Pairs separable at full size, of all pairs.
    pub separable_pairs: (usize, usize),
    /// The default shrinker's sizes and the sensitivity runs.
    pub sensitivity: Vec<Sensitivity>,
    /// Normalised best-over-constant gain on the micro environments.
    pub micro_gain: Option<Spread>,
    /// The same on the synthesized environments.
    pub synthesized_gain: Option<Spread>,
    /// `synthesized_gain.median / micro_gain.median`.
    pub learnability_ratio: Option<f64>,
}

/// `(best - constant) / (perfect - constant)` of an environment with a
/// leaderboard: how much of the way from the constant baseline to a
/// perfect submission the best baseline goes.
pub fn normalised_gain(c: &Composition, env: &Environment) -> Result<Option<f64>> {
    let Some(lb) = &env.leaderboard else { return Ok(None) };
    let constant = lb.entries.iter().find(|e| e.name == "prior" || e.name == "mean").map(|e| e.score);
    let best = lb.entries.first().map(|e| e.score);
    let perfect = c.grader.grade(&env.grading_task(), &env.answers)?;
    Ok(match (best, constant, perfect.score) {
        (Some(b), Some(k), Some(p)) if (p - k).abs() > 1e-12 => Some((b - k) / (p - k)),
        _ => None,
    })
}

/// Micro environments of `seed_env` calibrated by the panel: their
/// leaderboards and test sizes (a shrink that fails is left out).
fn micros(c: &Composition, seed_env: &Environment, shrinker: &StratifiedShrinker, n: u64) -> Result<Vec<Environment>> {
    let mut out = Vec::new();
    for seed in 0..n {
        let Ok(mut env) = shrinker.shrink_env(seed_env, seed) else { continue };
        c.calibrate(&mut env)?;
        if env.leaderboard.is_some() {
            out.push(env);
        }
    }
    Ok(out)
}

fn taus(full: &Leaderboard, envs: &[Environment]) -> Vec<f64> {
    envs.iter().filter_map(|e| e.leaderboard.as_ref().and_then(|lb| kendall_tau(full, lb))).collect()
}

fn median_rows(envs: &[Environment]) -> usize {
    let v: Vec<f64> = envs.iter().map(|e| e.test.n_rows() as f64).collect();
    Spread::of(&v).map_or(0, |s| s.median.round() as usize)
}

/// Measures `seed_env` (named `name`) as the module docs say.
///
/// # Errors
/// The panel's, grader's and Foundry's system faults, and a temporary
/// folder that cannot be made. A seed without a
/// leaderboard gives `None` taus.
pub fn seed_fidelity(
    c: &Composition,
    name: &str,
    seed_env: &Environment,
    config: &FidelityConfig,
) -> Result<SeedFidelity> {
    let default = StratifiedShrinker::default();
    let envs = micros(c, seed_env, &default, config.shrinks)?;
    let full = seed_env.leaderboard.clone().unwrap_or_default();
    let tau = Spread::of(&taus(&full, &envs));
    let boards: Vec<Leaderboard> = envs.iter().filter_map(|e| e.leaderboard.clone()).collect();
    let sep = separable_tau(&full, &boards);
    let separable: Vec<f64> = sep.per_micro.iter().flatten().copied().collect();
    let mut sensitivity =
        vec![Sensitivity { train_rows: default.train_rows, test_rows: median_rows(&envs), tau: tau.clone() }];
    if config.sensitivity {
        for train_rows in [50, 100] {
            let shrinker = StratifiedShrinker { train_rows, ..default };
            let e = micros(c, seed_env, &shrinker, config.shrinks)?;
            sensitivity.push(Sensitivity { train_rows, test_rows: median_rows(&e), tau: Spread::of(&taus(&full, &e)) });
        }
        let shrinker =
            StratifiedShrinker { test_rows: Some(config.test_factor.max(2) * median_rows(&envs).max(25)), ..default };
        let e = micros(c, seed_env, &shrinker, config.shrinks)?;
        sensitivity.push(Sensitivity {
            train_rows: default.train_rows,
            test_rows: median_rows(&e),
            tau: Spread::of(&taus(&full, &e)),
        });
    }
    let mut gains = Vec::new();
    for e in &envs {
        gains.extend(normalised_gain(c, e)?);
    }
    let micro_gain = Spread::of(&gains);
    let synthesized_gain = if config.synthesized > 0 {
        let dir = tempfile::Builder::new()
            .prefix("sandmle-fidelity-")
            .tempdir()
            .map_err(|e| sandmle_agents::Error::Io { path: std::env::temp_dir(), source: e })?;
        let out = dir.path().join("generated");
        let foundry =
            c.foundry(FoundryConfig { per_seed: config.synthesized, run_seed: 1, ..FoundryConfig::default() });
        let seeds = [SeedTask { name: name.to_owned(), env: seed_env.clone() }];
        foundry.run(&seeds, &out, &|_, _| {})?;
        let records = read_records(&out)?;
        let mut gains = Vec::new();
        for id in records.iter().filter_map(|r| r.env_id.as_ref()) {
            if let Some(g) = normalised_gain(c, &Environment::read(out.join(id))?)? {
                gains.push(g);
            }
        }
        Spread::of(&gains)
    } else {
        None
    };
    let learnability_ratio = match (&micro_gain, &synthesized_gain) {
        (Some(m), Some(s)) if m.median.abs() > 1e-12 => Some(s.median / m.median),
        _ => None,
    };
    Ok(SeedFidelity {
        seed: name.to_owned(),
        metric: seed_env.task().metric.name.clone(),
        tau,
        separable_tau: Spread::of(&separable),
        separable_pairs: (sep.separable, sep.pairs),
        sensitivity,
        micro_gain,
        synthesized_gain,
        learnability_ratio,
    })
}
