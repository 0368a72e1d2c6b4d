//! Synthesized prose: documents of sentences from a small grammar over a
//! domain's real words ([`crate::words`]).
//!
//! Design decision: the label's signal is carried by *phrasing*, not by
//! keyword presence alone. A document is sentences of one to three
//! clauses, each clause one of:
//!
//! - **context**: the domain's everyday words in a few telegraphic frames
//!   ("referred to the clinic", "the scan visit", "no dose today"), Zipf-like
//!   within one of two topics (alternate words of the everyday list); a
//!   document's topic leans weakly with the latent factor
//!   (`P(second topic) = 1 / (1 + e^(-0.6 z))`), as real topics do;
//! - **signal**: a phrase of the "up" set (said where the factor is high)
//!   or the "down" set, *affirmed* ("severe pain again", "reports
//!   dizziness" → its own side) or *negated* ("no severe pain", "not
//!   improving", "pain not resolved" → the other side), in the frames its
//!   kind takes ([`crate::phrasing`]). A clause for the high side affirms
//!   an "up" phrase ([`AFFIRMED`] of the time) or negates a "down" one
//!   that can be negated.
//!
//! So a bag of words learns (a side's phrases lean toward it), but about a
//! fifth of the negatable phrases' uses stand on the other side behind a
//! negation that only a model reading word order tells apart (the bigram
//! "no dizziness", a sequence model); negation words also negate context
//! ("no visit today"), so "no" alone says little. The share of signal
//! clauses grows with the factor's distance from its median
//! (`min(0.25 + 0.5 |z|, 0.9)`), so counting them recovers the factor's
//! size, not only its sign. Lengths are log-normal with the DNA's mean and
//! spread; sentences start with a capital and end with a full stop; no
//! word follows itself.

use crate::random::gaussian;
use rand::RngExt;
use sandmle_core::{CellText, SeedRng};

/// The share of signal clauses that affirm a phrase of their own side
/// (the rest negate one of the other side's).
pub(crate) const AFFIRMED: f64 = 0.8;

/// Prepositions of the context frames.
const PREPOSITIONS: &[&str] = &["in", "on", "at", "for", "with", "after", "before", "by", "to", "of"];

/// Words closing a context frame.
const TIMES: &[&str] = &["today", "again", "yesterday", "this week", "this morning", "since monday"];

/// The domains' everyday words that are not nouns, which never follow
/// "the" or "no" (reviewed by hand over [`crate::words::WORDS`]).
const NOT_NOUNS: &[&str] = &[
    "reports", "since", "noted", "left", "right", "mild", "referred", "online", "deploy", "restart", "checked",
    "reported", "cold", "warm", "called", "visited", "parked", "stolen", "north", "south", "rear", "front",
];

/// Joins between clauses of one sentence, with their weights.
const JOINS: &[(&str, f64)] = &[(", ", 0.6), (" and ", 0.25), (" but ", 0.15)];

/// Every word the frames add to the domain's words.
#[cfg(test)]
fn frame_words() -> Vec<&'static str> {
    let mut out: Vec<&str> = crate::phrasing::frame_words()
        .into_iter()
        .chain(PREPOSITIONS.iter().copied())
        .chain(TIMES.iter().flat_map(|t| t.split(' ')))
        .chain(JOINS.iter().map(|(j, _)| j.trim_matches([',', ' '])))
        .chain(["the", "no"])
        .filter(|w| !w.is_empty())
        .collect();
    out.sort_unstable();
    out.dedup();
    out
}

/// Documents of the DNA's lengths (`mean_tokens`, `sd_tokens`) in
/// `domain`'s words, one per latent value (see the module docs).
pub(crate) fn documents(
    latent: &[f64],
    mean_tokens: f64,
    sd_tokens: f64,
    domain: Option<&str>,
    rng: &mut SeedRng,
) -> Vec<Option<CellText>> {
    let (everyday, up, down) = crate::words::words_of(domain);
    let topics: [Zipf; 2] = [Zipf::new(everyday, 0), Zipf::new(everyday, 1)];
    let negatable = |phrases: &[&'static str]| -> Vec<&'static str> {
        phrases.iter().copied().filter(|p| crate::phrasing::kind(p) != crate::phrasing::Kind::Fixed).collect()
    };
    let (up_negatable, down_negatable) = (negatable(up), negatable(down));
    // Lengths log-normal with the DNA's mean and spread: right-skewed as
    // real messages are, rarely a single word.
    let mean = mean_tokens.max(1.0);
    let sigma2 = libm::log(1.0 + (sd_tokens / mean).powi(2));
    let (mu, sigma) = (libm::log(mean) - sigma2 / 2.0, sigma2.sqrt());
    latent
        .iter()
        .map(|&z| {
            let len = libm::exp(mu + sigma * gaussian(rng)).round().clamp(1.0, 200.0) as usize;
            let topic = &topics[usize::from(rng.random::<f64>() < 1.0 / (1.0 + libm::exp(-0.6 * z)))];
            let signal_rate = (0.25 + 0.5 * z.abs()).min(0.9);
            let (own, other) = if z > 0.0 { (up, &down_negatable[..]) } else { (down, &up_negatable[..]) };
            let mut doc = Document::default();
            while doc.words < len {
                let budget = len - doc.words;
                let mut clause = Vec::new();
                for _ in 0..8 {
                    clause = if rng.random::<f64>() < signal_rate {
                        signal_clause(own, other, budget, rng)
                    } else {
                        context_clause(topic, budget, rng)
                    };
                    if !doc.repeats_at_join(&clause) && !clause.windows(2).any(|w| w[0] == w[1]) {
                        break;
                    }
                }
                doc.push(clause, rng);
            }
            Some(doc.finish().into())
        })
        .collect()
}

/// A signal clause for the side whose phrases are `own` (see the module
/// docs), against the other side's phrases that can be negated,
/// `negatable`, in the frames its phrase's kind takes
/// ([`crate::phrasing`]); the phrase alone, or its shortest negation, when
/// `budget` is two words or fewer.
fn signal_clause(own: &[&str], negatable: &[&str], budget: usize, rng: &mut SeedRng) -> Vec<String> {
    use crate::phrasing::{affirming, kind, negated};
    let affirmed = rng.random::<f64>() < AFFIRMED;
    let text = if affirmed || negatable.is_empty() {
        let phrase = own[rng.random_range(0..own.len())];
        let frames = affirming(kind(phrase));
        let frame = if budget <= 2 { "{}" } else { frames[rng.random_range(0..frames.len())] };
        frame.replace("{}", phrase)
    } else {
        let phrase = negatable[rng.random_range(0..negatable.len())];
        let pick = if budget <= 2 { 0 } else { rng.random_range(0..12) };
        negated(phrase, kind(phrase), pick).unwrap_or_else(|| phrase.to_owned())
    };
    text.split(' ').map(str::to_owned).collect()
}

/// A context clause of everyday words from `topic`, at most about
/// `budget` words long.
fn context_clause(topic: &Zipf, budget: usize, rng: &mut SeedRng) -> Vec<String> {
    let pick = |rng: &mut SeedRng, list: &[&'static str]| list[rng.random_range(0..list.len())];
    let mut words: Vec<&str> = Vec::with_capacity(5);
    let kind = if budget <= 2 { rng.random_range(0..2) } else { rng.random_range(0..6) };
    match kind {
        0 => words.push(topic.draw(rng, None, false)),
        1 => {
            let a = topic.draw(rng, None, false);
            words.extend([a, topic.draw(rng, Some(a), true)]);
        }
        2 => {
            let a = topic.draw(rng, None, true);
            words.extend(["the", a, topic.draw(rng, Some(a), true)]);
        }
        3 => {
            let a = topic.draw(rng, None, false);
            words.extend([a, pick(rng, PREPOSITIONS), "the", topic.draw(rng, Some(a), true)]);
        }
        4 => {
            let a = topic.draw(rng, None, false);
            words.extend([a, topic.draw(rng, Some(a), true)]);
            words.extend(pick(rng, TIMES).split(' '));
        }
        _ => {
            words.extend(["no", topic.draw(rng, None, true)]);
            words.extend(pick(rng, TIMES).split(' '));
        }
    }
    words.into_iter().map(str::to_owned).collect()
}

/// A Zipf-like draw over a word list, the words of one parity (a topic)
/// weighted twice.
struct Zipf {
    words: &'static [&'static str],
    cum: Vec<f64>,
}

impl Zipf {
    fn new(words: &'static [&'static str], parity: usize) -> Zipf {
        let weights: Vec<f64> =
            (0..words.len()).map(|r| if r % 2 == parity { 2.0 } else { 1.0 } / (r as f64 + 1.0)).collect();
        let total: f64 = weights.iter().sum();
        let cum = weights
            .iter()
            .scan(0.0, |acc, w| {
                *acc += w / total;
                Some(*acc)
            })
            .collect();
        Zipf { words, cum }
    }

    /// A word, not `not`, and a noun if `noun` (drawn again, eight times
    /// at most).
    fn draw(&self, rng: &mut SeedRng, not: Option<&str>, noun: bool) -> &'static str {
        let mut word = "";
        for _ in 0..8 {
            let u: f64 = rng.random();
            word = self.words[self.cum.partition_point(|&c| c < u).min(self.words.len() - 1)];
            if Some(word) != not && !(noun && NOT_NOUNS.contains(&word)) {
                break;
            }
        }
        word
    }
}

/// A document being written: sentences of clauses.
#[derive(Default)]
struct Document {
    text: String,
    words: usize,
    /// Clauses in the sentence being written.
    clauses: usize,
    last: Option<String>,
}

impl Document {
    /// Whether `clause` would start with the word the document ends with.
    fn repeats_at_join(&self, clause: &[String]) -> bool {
        self.last.as_deref().is_some_and(|l| clause.first().is_some_and(|f| f == l))
    }

    /// Appends `clause`: to the sentence being written (after a comma or a
    /// conjunction) or as a new sentence.
    fn push(&mut self, clause: Vec<String>, rng: &mut SeedRng) {
        let new_sentence = self.clauses >= 3 || rng.random::<f64>() < 0.45;
        if self.text.is_empty() {
            self.clauses = 0;
        } else if new_sentence {
            self.text.push_str(". ");
            self.clauses = 0;
        } else {
            let u: f64 = rng.random();
            let mut acc = 0.0;
            let join = JOINS
                .iter()
                .find(|(_, w)| {
                    acc += w;
                    u < acc
                })
                .map_or(", ", |(j, _)| j);
            self.text.push_str(join);
            self.words += usize::from(join != ", ");
        }
        for (i, w) in clause.iter().enumerate() {
            if i > 0 {
                self.text.push(' ');
            }
            if i == 0 && self.clauses == 0 {
                let mut chars = w.chars();
                if let Some(first) = chars.next() {
                    self.text.extend(first.to_uppercase());
                    self.text.push_str(chars.as_str());
                }
            } else {
                self.text.push_str(w);
            }
        }
        self.words += clause.len();
        self.clauses += 1;
        self.last = clause.last().cloned();
    }

    fn finish(mut self) -> String {
        if !self.text.is_empty() {
            self.text.push('.');
        }
        self.text
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sandmle_core::rng_for;

    /// Lower-cased alphanumeric tokens, as a bag-of-words tokenizer reads
    /// them.
    fn tokens(doc: &str) -> Vec<String> {
        doc.split(|c: char| !c.is_alphanumeric() && c != '-').filter(|t| !t.is_empty()).map(str::to_lowercase).collect()
    }

    fn sides(n: usize) -> Vec<f64> {
        (0..n).map(|i| if i % 2 == 0 { 1.0 } else { -1.0 }).collect()
    }

    /// Every word is the domain's, a frame's or a function word; sentences
    /// start with a capital and end with a full stop; no word follows
    /// itself.
    #[test]
    fn documents_are_sentences_of_known_words() {
        for domain in ["healthcare", "retail", "it_operations", "insurance"] {
            let docs = documents(&sides(300), 14.0, 6.0, Some(domain), &mut rng_for(1, "t"));
            let (everyday, up, down) = crate::words::words_of(Some(domain));
            let known: std::collections::BTreeSet<&str> =
                everyday.iter().chain(up).chain(down).flat_map(|p| p.split(' ')).chain(frame_words()).collect();
            for doc in docs.iter().map(|d| d.as_deref().unwrap()) {
                assert!(
                    doc.ends_with('.') && doc.starts_with(|c: char| c.is_uppercase() || c.is_ascii_digit()),
                    "{doc}"
                );
                let words = tokens(doc);
                let unknown: Vec<&String> = words.iter().filter(|w| !known.contains(w.as_str())).collect();
                assert!(unknown.is_empty(), "{doc}: {unknown:?}");
                assert!(words.windows(2).all(|w| w[0] != w[1]), "{doc}");
            }
        }
    }

    /// Lengths follow the DNA's mean: within a fifth of it on average.
    #[test]
    fn documents_are_about_the_dnas_length() {
        for mean in [4.0, 15.0, 40.0] {
            let docs = documents(&sides(400), mean, mean / 2.0, Some("finance"), &mut rng_for(2, "t"));
            let avg = docs.iter().map(|d| tokens(d.as_deref().unwrap()).len()).sum::<usize>() as f64 / 400.0;
            assert!((avg - mean).abs() <= 0.2 * mean + 1.0, "mean {mean}: {avg}");
        }
    }

    /// The count of a side's phrase words against the other side's.
    fn bag_score(doc: &str, up: &[&str], down: &[&str]) -> i64 {
        let text = tokens(doc).join(" ");
        let count = |set: &[&str]| set.iter().map(|p| text.matches(p).count() as i64).sum::<i64>();
        count(up) - count(down)
    }

    /// The same count, each phrase after a negation frame counted for the
    /// other side.
    fn order_score(doc: &str, up: &[&str], down: &[&str]) -> i64 {
        let text = tokens(doc).join(" ");
        let mut score = 0;
        for (set, sign) in [(up, 1), (down, -1)] {
            for p in set {
                for (at, _) in text.match_indices(p) {
                    let before = &text[..at];
                    let negated = ["no ", "not ", "without ", "no sign of ", "never ", "no longer "]
                        .iter()
                        .any(|n| before.ends_with(n));
                    score += if negated { -sign } else { sign };
                }
            }
        }
        score
    }

    /// The regression test of keyword salad: a side's phrases stand on the
    /// other side behind a negation, so counting phrase words separates
    /// the sides, and reading the word before them separates them clearly
    /// better.
    #[test]
    fn negation_carries_signal_that_only_word_order_reads() {
        let latent = sides(2000);
        let docs = documents(&latent, 14.0, 6.0, Some("healthcare"), &mut rng_for(3, "t"));
        let (_, up, down) = crate::words::words_of(Some("healthcare"));
        let accuracy = |score: &dyn Fn(&str) -> i64| {
            let right: f64 = docs
                .iter()
                .zip(&latent)
                .map(|(d, z)| {
                    let s = score(d.as_deref().unwrap());
                    if s == 0 { 0.5 } else { f64::from(u8::from((s > 0) == (*z > 0.0))) }
                })
                .sum();
            right / latent.len() as f64
        };
        let bag = accuracy(&|d| bag_score(d, up, down));
        let order = accuracy(&|d| order_score(d, up, down));
        assert!(bag > 0.6, "a bag of words learns: {bag}");
        assert!(1.0 - order < 0.5 * (1.0 - bag), "word order pays, half the mistakes at most: {order} against {bag}");
        // Both sides' phrases appear on both sides.
        let negated_up = docs
            .iter()
            .zip(&latent)
            .filter(|(d, z)| **z < 0.0 && up.iter().any(|p| d.as_deref().unwrap().to_lowercase().contains(p)));
        assert!(negated_up.count() > 100);
    }

    /// The share of signal clauses grows with the factor's size.
    #[test]
    fn stronger_factors_say_more() {
        let (_, up, _) = crate::words::words_of(Some("retail"));
        let mean_hits = |z: f64| {
            let docs = documents(&vec![z; 400], 20.0, 5.0, Some("retail"), &mut rng_for(4, "t"));
            docs.iter().map(|d| up.iter().filter(|p| d.as_deref().unwrap().contains(*p)).count()).sum::<usize>() as f64
                / 400.0
        };
        assert!(mean_hits(2.0) > 1.5 * mean_hits(0.3), "{} {}", mean_hits(2.0), mean_hits(0.3));
    }
}
