//! `text`: hashed bag of words (1- and 2-grams), optionally tf-idf
//! weighted.
//!
//! Tokens are lower-cased runs of alphanumeric characters; an n-gram is its
//! tokens joined by one space; its bucket is scikit-learn's
//! `HashingVectorizer` bucket (`alternate_sign=False`): MurmurHash3
//! (x86, 32-bit, seed 0) of its UTF-8 bytes, read as a signed integer,
//! absolute value modulo `n_features`. So the step's counts are those of
//! `HashingVectorizer(n_features=n, alternate_sign=False, norm=None,
//! token_pattern=r"(?u)[^\W_]+")`: an agent's scikit-learn pipeline sees
//! the features the panel's baselines saw. (Tokens differ only where Rust's
//! and Python's Unicode alphanumeric classes do, in a few combining marks.) With `tfidf`, counts are weighted by
//! `ln((1 + n) / (1 + df)) + 1` (scikit-learn's smoothed idf, fitted on the
//! training rows) and each row is L2-normalised.

use super::Frames;
use crate::error::Result;
use sandmle_core::{Column, ColumnType};

pub(super) fn hash_text(f: &mut Frames, n_features: usize, ngram_max: usize, tfidf: bool) -> Result<()> {
    let text: Vec<String> =
        f.train.iter().filter(|(_, c)| c.column_type() == ColumnType::Text).map(|(n, _)| n.to_owned()).collect();
    for name in text {
        let (train, test) = (f.train.remove_column(&name)?, f.test.remove_column(&name)?);
        let mut tr = counts(&train, n_features, ngram_max);
        let mut te = counts(&test, n_features, ngram_max);
        if tfidf {
            let n = tr.len() as f64;
            let idf: Vec<f64> = (0..n_features)
                .map(|j| {
                    let df = tr.iter().filter(|row| row[j] > 0.0).count() as f64;
                    ((1.0 + n) / (1.0 + df)).ln() + 1.0
                })
                .collect();
            for row in tr.iter_mut().chain(te.iter_mut()) {
                for (x, w) in row.iter_mut().zip(&idf) {
                    *x *= w;
                }
                let norm = row.iter().map(|x| x * x).sum::<f64>().sqrt();
                if norm > 0.0 {
                    row.iter_mut().for_each(|x| *x /= norm);
                }
            }
        }
        for j in 0..n_features {
            let col = |rows: &[Vec<f64>]| Column::Numeric(rows.iter().map(|r| r[j]).collect());
            f.train.push_column(format!("{name}#{j}"), col(&tr))?;
            f.test.push_column(format!("{name}#{j}"), col(&te))?;
        }
    }
    Ok(())
}

fn counts(c: &Column, n_features: usize, ngram_max: usize) -> Vec<Vec<f64>> {
    (0..c.len())
        .map(|i| {
            let mut row = vec![0.0; n_features];
            let doc = c.get_str(i).map(|s| s.to_lowercase()).unwrap_or_default();
            let tokens: Vec<&str> = doc.split(|ch: char| !ch.is_alphanumeric()).filter(|t| !t.is_empty()).collect();
            for t in &tokens {
                row[bucket(t.as_bytes(), n_features)] += 1.0;
            }
            if ngram_max == 2 {
                for pair in tokens.windows(2) {
                    let bigram = format!("{} {}", pair[0], pair[1]);
                    row[bucket(bigram.as_bytes(), n_features)] += 1.0;
                }
            }
            row
        })
        .collect()
}

/// scikit-learn's bucket of a token: `abs(murmurhash3_32(token)) % n`,
/// with `abs(-2**31)` taken as scikit-learn takes it.
fn bucket(bytes: &[u8], n: usize) -> usize {
    let h = murmur3_32(bytes, 0) as i32;
    if h == i32::MIN { (i32::MAX as usize - (n - 1)) % n } else { h.unsigned_abs() as usize % n }
}

/// MurmurHash3, x86 32-bit variant (Austin Appleby's reference).
fn murmur3_32(data: &[u8], seed: u32) -> u32 {
    const C1: u32 = 0xcc9e_2d51;
    const C2: u32 = 0x1b87_3593;
    let mix = |k: u32| k.wrapping_mul(C1).rotate_left(15).wrapping_mul(C2);
    let mut h = seed;
    let blocks = data.chunks_exact(4);
    let tail = blocks.remainder();
    for b in blocks {
        h ^= mix(u32::from_le_bytes([b[0], b[1], b[2], b[3]]));
        h = h.rotate_left(13).wrapping_mul(5).wrapping_add(0xe654_6b64);
    }
    if !tail.is_empty() {
        h ^= mix(tail.iter().rev().fold(0u32, |k, &b| (k << 8) | u32::from(b)));
    }
    h ^= data.len() as u32;
    h ^= h >> 16;
    h = h.wrapping_mul(0x85eb_ca6b);
    h ^= h >> 13;
    h = h.wrapping_mul(0xc2b2_ae35);
    h ^ (h >> 16)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `sklearn.utils.murmurhash3_32(s, seed=0)` (scikit-learn 1.9.1).
    #[test]
    fn murmur3_is_scikit_learns() {
        let cases: [(&str, i32); 7] = [
            ("", 0),
            ("a", 1009084850),
            ("hello", 613153351),
            ("free entry", 1360786885),
            ("naïve", 992511445),
            ("abcd", 1139631978),
            ("abcde", -392455434),
        ];
        for (s, want) in cases {
            assert_eq!(murmur3_32(s.as_bytes(), 0) as i32, want, "{s:?}");
        }
    }

    /// The non-zero buckets of
    /// `HashingVectorizer(n_features=256, alternate_sign=False, norm=None,
    /// token_pattern=r"(?u)[^\W_]+", ngram_range=(1, 2))` on two documents.
    #[test]
    fn counts_are_scikit_learns_hashing_vectorizer() {
        let docs = Column::text(["Free entry in 2 a wkly comp", "naïve café Ok lar"].map(Some));
        let rows = counts(&docs, 256, 2);
        let nonzero =
            |r: &Vec<f64>| r.iter().enumerate().filter(|(_, v)| **v != 0.0).map(|(i, v)| (i, *v)).collect::<Vec<_>>();
        let one = |ix: &[usize]| ix.iter().map(|&i| (i, 1.0)).collect::<Vec<_>>();
        let mut first = one(&[17, 23, 30, 51, 102, 109, 110, 116, 178, 215, 253]);
        first.insert(9, (197, 2.0));
        assert_eq!(nonzero(&rows[0]), first);
        assert_eq!(nonzero(&rows[1]), one(&[8, 12, 30, 54, 161, 205, 213]));
    }
}
