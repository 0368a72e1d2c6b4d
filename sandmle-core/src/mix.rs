//! A modality mix: the shares of candidates a generation run asks to be
//! images, tables, text, image-and-table pairs or audio, whatever their
//! seed's own modality.
//!
//! The SandMLE paper's 912 environments are 49 % image tasks, 25 %
//! tabular, 10 % text, 10 % multimodal, 4 % graph and 2 % audio, because
//! its 60 seeds are. A run over a few seeds of one kind can still train a
//! policy on the paper's spread: each candidate draws its modality from the
//! mix ([`Mix::draw`]), and the synthesizer recasts the seed's DNA into it
//! (its targets, metric and class balance kept; its features replaced where
//! the new modality has none of its own). [`Mix::paper`] is the paper's
//! spread; a seed that cannot take a modality (a regression seed asked for
//! a graph task, a page-restoration seed for anything) keeps its own. Forecasting
//! (`time_series`: daily series split in time) is a task type the paper
//! counts among its tabular tasks; a mix names it explicitly
//! (`tabular=20,time_series=5,...`), and a seed with no single value
//! target keeps its own modality when asked for it. Sequence labelling
//! (`sequence`: every word of short documents tagged) is, likewise, a task
//! type of the paper's text tasks, named explicitly; only a seed of one
//! class target of two to ten classes is recast into it.
//!
//! ```
//! use sandmle_core::{Mix, Modality};
//!
//! let mix = Mix::parse("paper").unwrap();
//! assert_eq!(mix, Mix::paper());
//! let custom = Mix::parse("image=3,tabular=1").unwrap();
//! assert_eq!(custom.share(Modality::Image), 0.75);
//! // The same seed always draws the same modality.
//! assert_eq!(mix.draw(7), mix.draw(7));
//! assert!(Mix::parse("video=1").is_err());
//! ```

use crate::error::{Error, Result};
use crate::task::Modality;
use rand_chacha::rand_core::Rng;
use serde::{Deserialize, Serialize};

/// The modalities a mix may ask for, with their names on the command line.
pub const MIX_MODALITIES: [(Modality, &str); 8] = [
    (Modality::Image, "image"),
    (Modality::Tabular, "tabular"),
    (Modality::Text, "text"),
    (Modality::Multimodal, "multimodal"),
    (Modality::Audio, "audio"),
    (Modality::TimeSeries, "time_series"),
    (Modality::Graph, "graph"),
    (Modality::Sequence, "sequence"),
];

/// Shares of candidates per modality (see the module docs): positive
/// weights, normalised to sum to one, in [`MIX_MODALITIES`]' order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Mix {
    /// The name it was given (`paper`, or the weights as written).
    pub name: String,
    /// Each modality's share, in `(0, 1]`, summing to one.
    pub shares: Vec<(Modality, f64)>,
}

impl Mix {
    /// The paper's spread: image 49, tabular 25, text 10, multimodal 10,
    /// graph 4, audio 2.
    pub fn paper() -> Mix {
        let weights = [
            (Modality::Image, 49.0),
            (Modality::Tabular, 25.0),
            (Modality::Text, 10.0),
            (Modality::Multimodal, 10.0),
            (Modality::Audio, 2.0),
            (Modality::Graph, 4.0),
        ];
        Mix::from_weights("paper", &weights)
    }

    fn from_weights(name: &str, weights: &[(Modality, f64)]) -> Mix {
        let total: f64 = weights.iter().map(|(_, w)| w).sum();
        let shares = MIX_MODALITIES
            .iter()
            .filter_map(|(m, _)| weights.iter().find(|(n, _)| n == m).map(|&(m, w)| (m, w / total)))
            .collect();
        Mix { name: name.to_owned(), shares }
    }

    /// `paper`, or comma-separated `modality=weight` pairs
    /// (`image=3,tabular=1`) over [`MIX_MODALITIES`]' names, each weight a
    /// positive finite number.
    ///
    /// # Errors
    /// [`Error::InvalidMix`] for an unknown modality, a modality named
    /// twice, a weight that is not a positive finite number, or nothing.
    pub fn parse(spec: &str) -> Result<Mix> {
        let bad = |reason: String| Error::InvalidMix { reason };
        if spec.trim() == "paper" {
            return Ok(Mix::paper());
        }
        let mut weights: Vec<(Modality, f64)> = Vec::new();
        for part in spec.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let (name, weight) = part
                .split_once('=')
                .ok_or_else(|| bad(format!("`{}` is not modality=weight", crate::bounded(part))))?;
            let modality =
                MIX_MODALITIES.iter().find(|(_, n)| *n == name.trim()).map(|(m, _)| *m).ok_or_else(|| {
                    let names: Vec<&str> = MIX_MODALITIES.iter().map(|(_, n)| *n).collect();
                    bad(format!("unknown modality `{}` (one of: {})", crate::bounded(name), names.join(", ")))
                })?;
            let weight: f64 = weight
                .trim()
                .parse()
                .ok()
                .filter(|w: &f64| w.is_finite() && *w > 0.0)
                .ok_or_else(|| bad(format!("the weight of `{}` must be a positive number", name.trim())))?;
            if weights.iter().any(|(m, _)| *m == modality) {
                return Err(bad(format!("`{}` is named twice", name.trim())));
            }
            weights.push((modality, weight));
        }
        if weights.is_empty() {
            return Err(bad("no modality named (`paper`, or modality=weight pairs)".into()));
        }
        Ok(Mix::from_weights(spec.trim(), &weights))
    }

    /// The share of `modality` (0 when the mix does not name it).
    pub fn share(&self, modality: Modality) -> f64 {
        self.shares.iter().find(|(m, _)| *m == modality).map_or(0.0, |(_, s)| *s)
    }

    /// The modality of the candidate whose mix seed is `seed`: a uniform
    /// draw from its own stream, read against the cumulative shares.
    pub fn draw(&self, seed: u64) -> Modality {
        let u = (crate::rng_for(seed, "mix").next_u64() >> 11) as f64 / (1u64 << 53) as f64;
        let mut cumulative = 0.0;
        for &(m, s) in &self.shares {
            cumulative += s;
            if u < cumulative {
                return m;
            }
        }
        self.shares.last().map_or(Modality::Tabular, |(m, _)| *m)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Over many seeds, each modality is drawn close to its share.
    #[test]
    fn draws_follow_the_shares() {
        let mix = Mix::paper();
        let n = 20_000;
        for &(m, share) in &mix.shares {
            let drawn = (0..n).filter(|&s| mix.draw(s) == m).count() as f64 / n as f64;
            assert!((drawn - share).abs() < 0.012, "{m:?}: drawn {drawn}, share {share}");
        }
        assert!((mix.share(Modality::Image) - 0.49).abs() < 1e-12);
        assert!((mix.share(Modality::Graph) - 0.04).abs() < 1e-12);
    }

    #[test]
    fn bad_mixes_are_refused_with_the_reason() {
        for (spec, says) in [
            ("", "no modality"),
            ("image", "modality=weight"),
            ("image=0", "positive"),
            ("image=nan", "positive"),
            ("image=1,image=2", "twice"),
            ("video=1", "unknown modality"),
        ] {
            let e = Mix::parse(spec).unwrap_err().to_string();
            assert!(e.contains(says), "{spec}: {e}");
        }
    }
}
