//! The hidden Markov model a sequence-labelling task's words and tags are
//! drawn from, and its exact posterior (forward–backward), which is the
//! task's oracle.

use rand::RngExt;
use sandmle_core::SeedRng;

/// A hidden Markov model whose states each carry a tag: a tag's own state,
/// or a cue state (tagged as outside a mention) that announces one.
#[derive(Debug, Clone)]
pub(super) struct Hmm {
    /// The tag of each state.
    pub tags: Vec<usize>,
    /// The first word's state distribution.
    pub start: Vec<f64>,
    /// `trans[i][j]`: the probability of state `j` after state `i`.
    pub trans: Vec<Vec<f64>>,
    /// `emit[i][w]`: the probability that state `i` shows word `w`.
    pub emit: Vec<Vec<f64>>,
}

/// The index drawn from the weights `p` (summing to one) by `u` in `[0, 1)`.
fn pick(p: &[f64], u: f64) -> usize {
    let mut acc = 0.0;
    for (i, &x) in p.iter().enumerate() {
        acc += x;
        if u < acc {
            return i;
        }
    }
    p.iter().rposition(|&x| x > 0.0).unwrap_or(0)
}

impl Hmm {
    /// The number of tags.
    pub fn n_tags(&self) -> usize {
        self.tags.iter().max().map_or(0, |m| m + 1)
    }

    /// One sequence of `len` words: each word's tag and word index.
    pub fn sample(&self, len: usize, rng: &mut SeedRng) -> (Vec<usize>, Vec<usize>) {
        let (mut tags, mut words) = (Vec::with_capacity(len), Vec::with_capacity(len));
        let mut state = pick(&self.start, rng.random());
        for t in 0..len {
            if t > 0 {
                state = pick(&self.trans[state], rng.random());
            }
            tags.push(self.tags[state]);
            words.push(pick(&self.emit[state], rng.random()));
        }
        (tags, words)
    }

    /// Each word's tag probabilities given the whole sequence `words`
    /// (forward–backward, scaled at every step).
    pub fn posteriors(&self, words: &[usize]) -> Vec<Vec<f64>> {
        let n = self.tags.len();
        let len = words.len();
        if len == 0 {
            return Vec::new();
        }
        let normalise = |v: &mut Vec<f64>| {
            let total: f64 = v.iter().sum();
            if total > 0.0 {
                v.iter_mut().for_each(|x| *x /= total);
            }
        };
        let mut alpha: Vec<Vec<f64>> = Vec::with_capacity(len);
        let mut first: Vec<f64> = (0..n).map(|i| self.start[i] * self.emit[i][words[0]]).collect();
        normalise(&mut first);
        alpha.push(first);
        for t in 1..len {
            let prev = &alpha[t - 1];
            let mut a: Vec<f64> = (0..n)
                .map(|j| (0..n).map(|i| prev[i] * self.trans[i][j]).sum::<f64>() * self.emit[j][words[t]])
                .collect();
            normalise(&mut a);
            alpha.push(a);
        }
        let mut beta = vec![vec![1.0; n]; len];
        for t in (0..len - 1).rev() {
            let mut b: Vec<f64> = (0..n)
                .map(|i| (0..n).map(|j| self.trans[i][j] * self.emit[j][words[t + 1]] * beta[t + 1][j]).sum())
                .collect();
            normalise(&mut b);
            beta[t] = b;
        }
        let k = self.n_tags();
        (0..len)
            .map(|t| {
                let mut p = vec![0.0; k];
                for i in 0..n {
                    p[self.tags[i]] += alpha[t][i] * beta[t][i];
                }
                normalise(&mut p);
                p
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sandmle_core::rng_for;

    /// Three states (two tags' and a cue's, tagged 0), three words; the
    /// posterior by brute force over every state path of three words.
    #[test]
    fn posteriors_are_the_brute_force_marginals() {
        let hmm = Hmm {
            tags: vec![0, 1, 0],
            start: vec![0.5, 0.3, 0.2],
            trans: vec![vec![0.6, 0.3, 0.1], vec![0.2, 0.7, 0.1], vec![0.0, 1.0, 0.0]],
            emit: vec![vec![0.8, 0.2, 0.0], vec![0.1, 0.3, 0.6], vec![0.0, 0.0, 1.0]],
        };
        let words = [1, 2, 1];
        let mut marginal = vec![vec![0.0; 2]; 3];
        let mut total = 0.0;
        for a in 0..3 {
            for b in 0..3 {
                for c in 0..3 {
                    let p = hmm.start[a]
                        * hmm.emit[a][words[0]]
                        * hmm.trans[a][b]
                        * hmm.emit[b][words[1]]
                        * hmm.trans[b][c]
                        * hmm.emit[c][words[2]];
                    total += p;
                    for (t, s) in [a, b, c].into_iter().enumerate() {
                        marginal[t][hmm.tags[s]] += p;
                    }
                }
            }
        }
        let post = hmm.posteriors(&words);
        for t in 0..3 {
            for tag in 0..2 {
                assert!((post[t][tag] - marginal[t][tag] / total).abs() < 1e-12, "{t} {tag}");
            }
        }
        let (tags, words) = hmm.sample(50, &mut rng_for(1, "hmm"));
        assert_eq!((tags.len(), words.len()), (50, 50));
        // State 2 (a cue) only shows word 2 and is always followed by tag 1.
        assert!(words.windows(2).zip(tags.windows(2)).all(|(w, t)| w[0] != 2 || t[0] == 1 || t[1] == 1));
    }
}
