//! Hidden rules `label = f(z) + noise`: the families a synthesized task's
//! target is drawn from, and how scores become labels.

use crate::stats::{mean, quantile, sd};
use rand::RngExt;
use sandmle_core::SeedRng;
use serde::Serialize;

/// A rule family.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Family {
    /// `sum b_j x_j` over a few features.
    SparseLinear,
    /// A sparse linear part plus products of feature pairs.
    Interactions,
    /// A depth-2 tree of thresholds plus a small linear part.
    Thresholds,
    /// Sines of features plus a small linear part.
    Periodic,
}

impl Family {
    /// The family's name, as serialised (`"sparse_linear"`, ...).
    pub fn name(self) -> String {
        // Serialising a unit variant cannot fail; the test
        // `family_names_round_trip` checks every family.
        match serde_json::to_value(self) {
            Ok(serde_json::Value::String(s)) => s,
            _ => String::from("unknown"),
        }
    }

    /// The family a name means.
    pub fn from_name(name: &str) -> Option<Family> {
        FAMILIES.into_iter().find(|f| f.name() == name)
    }
}

/// Every family, in a fixed order.
pub const FAMILIES: [Family; 4] = [Family::SparseLinear, Family::Interactions, Family::Thresholds, Family::Periodic];

/// A rule over standardized signal features (indices into the signal
/// matrix).
#[derive(Debug, Clone, Serialize)]
pub struct Rule {
    /// The family.
    pub family: Family,
    /// Linear terms `(feature, weight)`.
    pub linear: Vec<(usize, f64)>,
    /// Products `(a, b, weight)`.
    pub pairs: Vec<(usize, usize, f64)>,
    /// A depth-2 tree of thresholds, if the family has one.
    pub tree: Option<Tree>,
    /// Sines `(feature, frequency, weight)`.
    pub sines: Vec<(usize, f64, f64)>,
}

/// A depth-2 tree of thresholds.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct Tree {
    /// `(feature, cut)` at the root, then at its left and right children.
    pub nodes: [(usize, f64); 3],
    /// Leaf values: left-left, left-right, right-left, right-right.
    pub leaves: [f64; 4],
}

/// A draw from `[lo, hi)` with a random sign.
pub(crate) fn signed(rng: &mut SeedRng, lo: f64, hi: f64) -> f64 {
    let w = rng.random_range(lo..hi);
    if rng.random::<bool>() { w } else { -w }
}

fn pick(rng: &mut SeedRng, n: usize, k: usize) -> Vec<usize> {
    let mut idx: Vec<usize> = (0..n).collect();
    for i in 0..k.min(n) {
        let j = rng.random_range(i..n);
        idx.swap(i, j);
    }
    idx.truncate(k.min(n));
    idx
}

/// Features a rule reads at most: a few quantities a domain expert would
/// name, so that two hundred rows can reveal them (a rule spread over
/// many features is noise to any model fitted on a micro training set).
pub const RULE_FEATURES: usize = 4;

/// The signal features one target's rules read: [`RULE_FEATURES`] of the
/// `n`, drawn (all of them when there are fewer).
pub fn rule_pool(n: usize, rng: &mut SeedRng) -> Vec<usize> {
    pick(rng, n, RULE_FEATURES)
}

impl Rule {
    /// Draws a rule of `family` over `n` signal features (reading at most
    /// [`RULE_FEATURES`] of them, drawn by [`rule_pool`]).
    pub fn draw(family: Family, n: usize, rng: &mut SeedRng) -> Rule {
        let pool = rule_pool(n, rng);
        Rule::draw_over(family, &pool, rng)
    }

    /// Draws a rule of `family` reading only the signal features of `pool`
    /// (the classes of one target share a pool: each class a region of the
    /// same few quantities, as real classes are).
    ///
    /// - sparse linear: every feature of the pool, weights 0.6 to 1.5;
    /// - interactions: a linear part over the pool's first three and one
    ///   product of two of them (weight 0.5 to 1.0);
    /// - thresholds: a depth-2 tree over the pool's first three whose
    ///   leaves are spread (one each near -1.5, -0.5, 0.5, 1.5, in a drawn
    ///   order), plus a small linear part;
    /// - periodic: one or two slow sines (1.0 to 2.0 radians per standard
    ///   deviation: a season, not a comb) plus a linear part.
    pub fn draw_over(family: Family, pool: &[usize], rng: &mut SeedRng) -> Rule {
        let mut rule = Rule { family, linear: vec![], pairs: vec![], tree: None, sines: vec![] };
        if pool.is_empty() {
            return rule;
        }
        let order = pick(rng, pool.len(), pool.len());
        let main: Vec<usize> = order.iter().map(|&i| pool[i]).collect();
        let small = |rng: &mut SeedRng| signed(rng, 0.2, 0.5);
        match family {
            Family::SparseLinear => rule.linear = main.iter().map(|&j| (j, signed(rng, 0.6, 1.5))).collect(),
            Family::Interactions => {
                rule.linear = main.iter().take(3).map(|&j| (j, signed(rng, 0.6, 1.2))).collect();
                if main.len() >= 2 {
                    rule.pairs = vec![(main[0], main[1], signed(rng, 0.5, 1.0))];
                }
            }
            Family::Thresholds => {
                let f = &main[..main.len().min(3)];
                let node = |rng: &mut SeedRng, i: usize| (f[i.min(f.len() - 1)], rng.random_range(-0.5..0.5));
                let nodes = [node(rng, 0), node(rng, 1), node(rng, 2)];
                let spots = pick(rng, 4, 4);
                let leaves: [f64; 4] = std::array::from_fn(|i| -1.5 + spots[i] as f64 + rng.random_range(-0.2..0.2));
                rule.tree = Some(Tree { nodes, leaves });
                rule.linear = main.iter().take(2).map(|&j| (j, small(rng))).collect();
            }
            Family::Periodic => {
                let sines = if main.len() >= 3 { 2 } else { 1 };
                rule.sines =
                    main.iter().take(sines).map(|&j| (j, rng.random_range(1.0..2.0), signed(rng, 0.8, 1.5))).collect();
                rule.linear = main.iter().skip(sines).take(2).map(|&j| (j, signed(rng, 0.3, 0.8))).collect();
            }
        }
        rule
    }

    /// `f(x)` of one row of the signal matrix (feature-major).
    pub fn score(&self, x: &[Vec<f64>], row: usize) -> f64 {
        let v = |j: usize| x[j][row];
        let mut s: f64 = self.linear.iter().map(|&(j, w)| w * v(j)).sum();
        s += self.pairs.iter().map(|&(a, b, w)| w * v(a) * v(b)).sum::<f64>();
        s += self.sines.iter().map(|&(j, f, w)| w * libm::sin(f * v(j))).sum::<f64>();
        if let Some(t) = &self.tree {
            let left = v(t.nodes[0].0) <= t.nodes[0].1;
            let (child, base) = if left { (t.nodes[1], 0) } else { (t.nodes[2], 2) };
            s += t.leaves[base + usize::from(v(child.0) > child.1)];
        }
        s
    }

    /// Scores of all rows, standardized to mean 0 and sd 1 (0 if constant).
    pub fn scores(&self, x: &[Vec<f64>], rows: usize) -> Vec<f64> {
        let s: Vec<f64> = (0..rows).map(|r| self.score(x, r)).collect();
        let (m, d) = (mean(&s), sd(&s));
        s.iter().map(|v| if d > 0.0 { (v - m) / d } else { 0.0 }).collect()
    }
}

/// Binary labels: 1 for the rows whose noisy score is in the top `share`.
pub fn binary_labels(noisy: &[f64], share: f64) -> (Vec<usize>, f64) {
    let mut sorted = noisy.to_vec();
    sorted.sort_by(f64::total_cmp);
    let cut = quantile(&sorted, 1.0 - share.clamp(0.01, 0.99));
    (noisy.iter().map(|&s| usize::from(s > cut)).collect(), cut)
}

/// Rows labelled together by [`multiclass_labels`].
const LABEL_ROWS: usize = 8;

/// The offsets' fit: each pass moves a class's offset by its step times
/// the log of its wanted share over the share it has, and halves the
/// step each time the move changes direction.
///
/// Design decision: a fixed step (half the log ratio) overshot on scores
/// that move together (a class's rule close to the average of two
/// others'): the whole table swung between two classes each pass and a
/// three-class task labelled none of its rows in the middle class. Halving
/// on a reversal settles every class within its share.
struct OffsetFit {
    steps: Vec<f64>,
    last: Vec<f64>,
}

impl OffsetFit {
    fn new(k: usize) -> OffsetFit {
        OffsetFit { steps: vec![0.5; k], last: vec![0.0; k] }
    }

    /// One pass, from the rows each class has (`counts`).
    fn step(&mut self, counts: &[f64], shares: &[f64], offsets: &mut [f64]) {
        let (n, k) = (counts.iter().sum::<f64>(), counts.len() as f64);
        for c in 0..counts.len() {
            let have = (counts[c] + 0.5) / (n + 0.5 * k);
            let want = libm::log(shares[c].max(1e-3) / have);
            if want * self.last[c] < 0.0 {
                self.steps[c] *= 0.5;
            }
            offsets[c] += self.steps[c] * want;
            self.last[c] = want;
        }
    }
}

/// Multi-class labels: the argmax of per-class noisy scores plus offsets
/// fitted so that the class shares match `shares`.
///
/// The offsets are refitted 200 times ([`OffsetFit`]), each time from the
/// labels of every row. A row's label is the first class of the greatest `score + offset`,
/// compared in class order. Each pass takes the rows eight at a time and,
/// for those eight, the classes one after another, each row's leader so
/// far and its score held in registers: a loop without a branch that the
/// compiler vectorizes. The leaders are 64-bit integers, as wide as the
/// scores, so that counting them converts nothing. (Taking the classes
/// over every row in turn, the leaders kept in memory as floats, was
/// slower: digits_png's generation spent 1.3 % of its time here, now
/// 0.8 %.)
pub fn multiclass_labels(scores: &[Vec<f64>], shares: &[f64]) -> (Vec<usize>, Vec<f64>) {
    let k = scores.len();
    let n = scores.first().map_or(0, Vec::len);
    debug_assert!(scores.iter().all(|c| c.len() == n), "one score per row in every class");
    let mut offsets = vec![0.0; k];
    if k == 0 {
        return (vec![0; n], offsets);
    }
    // Each row's leading class (64 bits wide, as the scores: the choice is
    // one blend of lanes the comparison's mask covers).
    let mut best = vec![0u64; n];
    let label = |offsets: &[f64], best: &mut [u64]| {
        let mut blocks = best.chunks_exact_mut(LABEL_ROWS);
        for (i, out) in (&mut blocks).enumerate() {
            let at = i * LABEL_ROWS;
            let first = &scores[0][at..at + LABEL_ROWS];
            let mut top: [f64; LABEL_ROWS] = std::array::from_fn(|j| first[j] + offsets[0]);
            let mut lead = [0u64; LABEL_ROWS];
            for (c, column) in scores.iter().enumerate().skip(1) {
                let (column, o, class) = (&column[at..at + LABEL_ROWS], offsets[c], c as u64);
                for j in 0..LABEL_ROWS {
                    let s = column[j] + o;
                    let better = s > top[j];
                    lead[j] = if better { class } else { lead[j] };
                    top[j] = if better { s } else { top[j] };
                }
            }
            out.copy_from_slice(&lead);
        }
        let done = n - blocks.into_remainder().len();
        for (r, b) in best.iter_mut().enumerate().skip(done) {
            let (mut top, mut lead) = (scores[0][r] + offsets[0], 0u64);
            for (c, column) in scores.iter().enumerate().skip(1) {
                let s = column[r] + offsets[c];
                if s > top {
                    (top, lead) = (s, c as u64);
                }
            }
            *b = lead;
        }
    };
    let mut counts = vec![0.0; k];
    let mut fit = OffsetFit::new(k);
    for _ in 0..200 {
        label(&offsets, &mut best);
        counts.fill(0.0);
        for &b in &best {
            counts[b as usize] += 1.0;
        }
        fit.step(&counts, shares, &mut offsets);
    }
    label(&offsets, &mut best);
    (best.iter().map(|&b| b as usize).collect(), offsets)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// [`multiclass_labels`] as its definition reads: each row's label the
    /// first class of the greatest `score + offset`, row by row.
    fn labels_row_by_row(scores: &[Vec<f64>], shares: &[f64]) -> (Vec<usize>, Vec<f64>) {
        let (k, n) = (scores.len(), scores[0].len());
        let label = |offsets: &[f64]| -> Vec<usize> {
            (0..n)
                .map(|r| {
                    let mut lead = 0;
                    for c in 1..k {
                        if scores[c][r] + offsets[c] > scores[lead][r] + offsets[lead] {
                            lead = c;
                        }
                    }
                    lead
                })
                .collect()
        };
        let mut offsets = vec![0.0; k];
        let mut fit = OffsetFit::new(k);
        for _ in 0..200 {
            let labels = label(&offsets);
            let counts: Vec<f64> = (0..k).map(|c| labels.iter().filter(|&&l| l == c).count() as f64).collect();
            fit.step(&counts, shares, &mut offsets);
        }
        (label(&offsets), offsets)
    }

    /// Rows labelled eight at a time get the labels and offsets of rows
    /// labelled one by one, bit for bit: ties (scores on a coarse grid)
    /// go to the first class, and row counts off the multiple of eight
    /// label their last rows alone.
    #[test]
    fn multiclass_labels_are_the_first_greatest_class_of_each_row() {
        let mut state = 0x1ABE1_u64;
        let mut next = || {
            state = state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            state >> 11
        };
        for (n, k, grid) in [(1, 3, 0.0), (7, 2, 0.0), (8, 10, 0.25), (9, 5, 0.5), (203, 10, 0.0), (1028, 10, 0.125)] {
            let scores: Vec<Vec<f64>> = (0..k)
                .map(|_| {
                    (0..n)
                        .map(|_| {
                            let v = (next() as f64 / (1u64 << 53) as f64) * 4.0 - 2.0;
                            if grid > 0.0 { (v / grid).round() * grid } else { v }
                        })
                        .collect()
                })
                .collect();
            let shares: Vec<f64> = (0..k).map(|c| (c + 1) as f64 / (k * (k + 1) / 2) as f64).collect();
            let (labels, offsets) = multiclass_labels(&scores, &shares);
            let (want, want_offsets) = labels_row_by_row(&scores, &shares);
            assert_eq!(labels, want, "{n} rows, {k} classes");
            let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(&offsets), bits(&want_offsets), "{n} rows, {k} classes");
        }
    }

    /// The regression test of an empty middle class: a class whose score is
    /// the average of two others' (noise-free, as at difficulty 0) still
    /// takes its share, where a fixed step swung every row between the
    /// outer two.
    #[test]
    fn a_class_between_two_others_takes_its_share() {
        let n = 650;
        let x: Vec<(f64, f64)> = (0..n)
            .map(|i| {
                let t = i as f64 / n as f64;
                (libm::sin(37.0 * t), libm::cos(11.0 * t))
            })
            .collect();
        let a: Vec<f64> = x.iter().map(|(u, v)| 0.8 * u - 1.3 * v).collect();
        let c: Vec<f64> = x.iter().map(|(u, v)| 0.7 * u - 1.2 * v + 0.01 * u * v).collect();
        let b: Vec<f64> = a.iter().zip(&c).map(|(a, c)| 0.5 * (a + c)).collect();
        let shares = [0.33, 0.40, 0.27];
        let (labels, _) = multiclass_labels(&[a, b, c], &shares);
        for (class, share) in shares.iter().enumerate() {
            let have = labels.iter().filter(|&&l| l == class).count() as f64 / n as f64;
            assert!((have - share).abs() < 0.1, "class {class}: {have} for {share}");
        }
    }
}
