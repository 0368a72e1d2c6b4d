//! `text`: hashed bag of words (1- and 2-grams), optionally tf-idf
//! weighted.
//!
//! Tokens are lower-cased runs of alphanumeric characters; an n-gram is its
//! tokens joined by one space; its bucket is FNV-1a (64-bit) of its bytes
//! modulo `n_features`. FNV is fixed by its definition, so the features are
//! the same on every machine. With `tfidf`, counts are weighted by
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

fn bucket(bytes: &[u8], n: usize) -> usize {
    let h = bytes.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3));
    (h % n as u64) as usize
}
