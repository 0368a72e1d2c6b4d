//! [`FrontierSampler`]: which task to roll out next, so that groups carry
//! a learning signal.
//!
//! GRPO learns nothing from a group whose rewards are all equal: a task the
//! policy always solves, or never does. The sampler keeps, per difficulty
//! band ([`sandmle_core::Difficulty`]), the policy's recent pass rate `p`
//! (a Beta(1, 1) prior and exponentially decayed counts, so that an old
//! verdict fades back toward 1/2 and a band is revisited as the policy
//! changes), and draws a band with weight `(4 p (1 − p))^sharpness +
//! floor`: the variance of a pass, greatest where the policy succeeds half
//! the time, sharpened so that a band passed nine times in ten is rarely
//! drawn. The task is
//! then drawn uniformly among the band's. Every draw comes from a seeded
//! ChaCha stream, so a run replays exactly.
//!
//! ```
//! use sandmle_agents::rollout::FrontierSampler;
//!
//! let tasks = vec![("easy".to_owned(), 1), ("hard".to_owned(), 5)];
//! let mut sampler = FrontierSampler::new(tasks, 7).unwrap();
//! let task = sampler.next_task().to_owned();
//! // The group's rewards, each a pass when at least the pass mark (0.5).
//! sampler.record(&task, &[1.0, 0.0, 1.0, 1.0]);
//! assert_eq!(sampler.pass_rate(if task == "easy" { 1 } else { 5 }), Some(4.0 / 6.0));
//! ```

use crate::error::{Error, Result};
use rand_chacha::rand_core::Rng;
use sandmle_core::SeedRng;
use std::collections::BTreeMap;

/// A sampler of tasks by band toward the policy's frontier (see the module
/// docs).
#[derive(Debug, Clone)]
pub struct FrontierSampler {
    /// Task ids by band, in the order given.
    bands: BTreeMap<u8, Vec<String>>,
    /// Each task's band.
    band_of: BTreeMap<String, u8>,
    /// Decayed (passes, episodes) per band.
    counts: BTreeMap<u8, (f64, f64)>,
    rng: SeedRng,
    /// Multiplies every band's counts at each recorded group.
    pub decay: f64,
    /// Added to every band's weight, so that no band is starved.
    pub floor: f64,
    /// The power the pass variance is raised to (1: weights as the
    /// variance itself).
    pub sharpness: f64,
    /// A reward at least this is a pass.
    pub pass_mark: f64,
}

impl FrontierSampler {
    /// A sampler over `(task id, band)` pairs (bands 1 to 5), seeded.
    /// Defaults: decay 0.98, floor 0.02, sharpness 4, pass mark 0.5.
    ///
    /// # Errors
    /// [`Error::BadSetting`] for no tasks, a band outside 1–5 or a task
    /// named twice.
    pub fn new(tasks: Vec<(String, u8)>, seed: u64) -> Result<Self> {
        let bad = |reason: String| Error::BadSetting { setting: "curriculum", reason };
        if tasks.is_empty() {
            return Err(bad("no tasks to sample".into()));
        }
        let mut bands: BTreeMap<u8, Vec<String>> = BTreeMap::new();
        let mut band_of = BTreeMap::new();
        for (id, band) in tasks {
            if !(1..=5).contains(&band) {
                return Err(bad(format!("task `{id}`: band {band} is not 1 to 5")));
            }
            if band_of.insert(id.clone(), band).is_some() {
                return Err(bad(format!("task `{id}` is named twice")));
            }
            bands.entry(band).or_default().push(id);
        }
        Ok(FrontierSampler {
            bands,
            band_of,
            counts: BTreeMap::new(),
            rng: sandmle_core::rng_for(seed, "frontier-sampler"),
            decay: 0.98,
            floor: 0.02,
            sharpness: 4.0,
            pass_mark: 0.5,
        })
    }

    /// The band's recent pass rate (the prior's 1/2 folded in), or `None`
    /// for a band without tasks.
    pub fn pass_rate(&self, band: u8) -> Option<f64> {
        self.bands.contains_key(&band).then(|| {
            let (passes, episodes) = self.counts.get(&band).copied().unwrap_or((0.0, 0.0));
            (passes + 1.0) / (episodes + 2.0)
        })
    }

    /// Each band's weight, in band order.
    pub fn weights(&self) -> Vec<(u8, f64)> {
        self.bands
            .keys()
            .map(|&b| {
                let p = self.pass_rate(b).unwrap_or(0.5);
                (b, libm::pow(4.0 * p * (1.0 - p), self.sharpness) + self.floor)
            })
            .collect()
    }

    /// The next task's id.
    pub fn next_task(&mut self) -> &str {
        let weights = self.weights();
        let total: f64 = weights.iter().map(|(_, w)| w).sum();
        let mut at = self.uniform() * total;
        let mut band = weights.last().map_or(1, |(b, _)| *b);
        for &(b, w) in &weights {
            if at < w {
                band = b;
                break;
            }
            at -= w;
        }
        let tasks = &self.bands[&band];
        let i = ((u128::from(self.rng.next_u64()) * tasks.len() as u128) >> 64) as usize;
        &tasks[i.min(tasks.len() - 1)]
    }

    /// Records a group's rewards on `task` (an unknown task is ignored):
    /// every band's counts decay, then the task's band gains the group's
    /// passes and episodes.
    pub fn record(&mut self, task: &str, rewards: &[f64]) {
        let Some(&band) = self.band_of.get(task) else { return };
        for c in self.counts.values_mut() {
            c.0 *= self.decay;
            c.1 *= self.decay;
        }
        let passes = rewards.iter().filter(|&&r| r >= self.pass_mark).count() as f64;
        let c = self.counts.entry(band).or_insert((0.0, 0.0));
        c.0 += passes;
        c.1 += rewards.len() as f64;
    }

    /// A uniform draw in `[0, 1)`.
    fn uniform(&mut self) -> f64 {
        (self.rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A policy whose skill grows with the episodes it has seen and whose
    /// chance of passing a task falls with the task's band past its skill.
    fn pass(skill: f64, band: u8, draw: f64) -> bool {
        let p = 1.0 / (1.0 + (-2.5 * (skill - f64::from(band))).exp());
        draw < p
    }

    fn mean(v: &[u8]) -> f64 {
        v.iter().map(|&b| f64::from(b)).sum::<f64>() / v.len() as f64
    }

    /// A curriculum run: as the policy's skill grows from band 1 to band 5,
    /// the bands drawn follow it (the last quarter of the run draws bands
    /// at least 1.5 higher than the first), and more groups carry signal
    /// (rewards that are not all equal) than under uniform draws.
    #[test]
    fn sampled_bands_move_with_the_policy_s_pass_rate() {
        let tasks: Vec<(String, u8)> = (1..=5u8).flat_map(|b| (0..4).map(move |i| (format!("b{b}-{i}"), b))).collect();
        let run = |frontier: bool| {
            let mut sampler = FrontierSampler::new(tasks.clone(), 3).unwrap();
            let mut outcomes = sandmle_core::rng_for(9, "outcomes");
            let mut uniform = sandmle_core::rng_for(9, "uniform");
            let (mut drawn, mut mixed) = (Vec::new(), 0usize);
            let groups = 400;
            for g in 0..groups {
                let skill = 0.5 + 5.0 * g as f64 / groups as f64;
                let task = if frontier {
                    sampler.next_task().to_owned()
                } else {
                    tasks[((u128::from(uniform.next_u64()) * tasks.len() as u128) >> 64) as usize].0.clone()
                };
                let band = sampler.band_of[&task];
                let rewards: Vec<f64> = (0..8)
                    .map(|_| {
                        let draw = (outcomes.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
                        f64::from(u8::from(pass(skill, band, draw)))
                    })
                    .collect();
                mixed += usize::from(rewards.iter().any(|&r| r != rewards[0]));
                sampler.record(&task, &rewards);
                drawn.push(band);
            }
            (drawn, mixed)
        };
        let (drawn, mixed) = run(true);
        let quarter = drawn.len() / 4;
        let (first, last) = (mean(&drawn[..quarter]), mean(&drawn[drawn.len() - quarter..]));
        assert!(last - first >= 1.5, "bands drawn: first quarter {first:.2}, last {last:.2}");
        let (_, mixed_uniform) = run(false);
        assert!(mixed > mixed_uniform, "groups with signal: frontier {mixed}, uniform {mixed_uniform}");
    }

    #[test]
    fn the_same_seed_draws_the_same_tasks() {
        let tasks: Vec<(String, u8)> = (1..=5u8).map(|b| (format!("t{b}"), b)).collect();
        let draws = |seed| {
            let mut s = FrontierSampler::new(tasks.clone(), seed).unwrap();
            (0..50)
                .map(|i| {
                    let t = s.next_task().to_owned();
                    s.record(&t, &[f64::from(u8::from(i % 3 == 0))]);
                    t
                })
                .collect::<Vec<_>>()
        };
        assert_eq!(draws(1), draws(1));
        assert_ne!(draws(1), draws(2));
    }

    #[test]
    fn bad_task_lists_are_typed_errors() {
        assert!(FrontierSampler::new(vec![], 0).is_err());
        assert!(FrontierSampler::new(vec![("a".into(), 0)], 0).is_err());
        assert!(FrontierSampler::new(vec![("a".into(), 6)], 0).is_err());
        assert!(FrontierSampler::new(vec![("a".into(), 1), ("a".into(), 2)], 0).is_err());
    }
}
