//! One column's bins: its edges (the midpoints of its distinct values,
//! or its quantiles past [`MAX_BINS`] of them), each row's bin, and each
//! bin's smallest and largest value. [`ranked_bins`] bins a short column in
//! one sort of its rows; [`column_bins`] is the general route, for any
//! column, which [`Bins::fit`](super::Bins) falls back on.

use super::MAX_BINS;

/// A column's edges, codes, and each bin's smallest and largest value:
/// the general route, for any column.
pub(super) fn column_bins(col: &[f64]) -> (Vec<f64>, Vec<u8>, Vec<f64>, Vec<f64>) {
    let (e, few) = match distinct_values(col) {
        Distinct::Few(values, single) => (midpoints(&values), Some((values, single))),
        Distinct::Many => (quantile_cuts(col), None),
        Distinct::Unsure => (sorted_edges(col), None),
    };
    let c = bin_codes(col, &e);
    let (l, h) = match few {
        // Each bin holds one value, the same bits in every row: its
        // smallest and largest.
        Some((distinct, true)) if distinct.iter().enumerate().all(|(b, &v)| e.partition_point(|&t| t < v) == b) => {
            (distinct.clone(), distinct)
        }
        _ => {
            let (mut l, mut h) = (vec![f64::INFINITY; e.len() + 1], vec![f64::NEG_INFINITY; e.len() + 1]);
            for (&v, &b) in col.iter().zip(&c) {
                l[b as usize] = l[b as usize].min(v);
                h[b as usize] = h[b as usize].max(v);
            }
            (l, h)
        }
    };
    (e, c, l, h)
}

/// The bins of a short column (at most [`MAX_BINS`] rows, every micro
/// environment's) in one sort of its rows by value: its edges, codes and
/// distinct values (each bin's smallest and largest), the same as
/// [`column_bins`]' when every
/// value's bin is its rank among the distinct values, which is checked:
/// each midpoint lies at or above the value below it and under the value
/// above it. `None` for any other column (longer, a NaN, zeros of both
/// signs, or a midpoint that rounds onto the value above it), which the
/// general route bins. A value's rank comes from the sort, where the
/// general route searched the edges once per row.
pub(super) fn ranked_bins(col: &[f64]) -> Option<(Vec<f64>, Vec<u8>, Vec<f64>)> {
    if col.len() > MAX_BINS || col.is_empty() {
        return None;
    }
    // `total_cmp`'s order as unsigned integers (negative values' bits
    // flipped whole, positive values' sign bit set), the row below.
    let key = |v: f64| {
        let b = v.to_bits();
        if b >> 63 == 1 { !b } else { b | 1 << 63 }
    };
    let mut order: Vec<u128> = Vec::with_capacity(col.len());
    for (r, &v) in col.iter().enumerate() {
        if v.is_nan() {
            return None;
        }
        order.push(u128::from(key(v)) << 64 | r as u128);
    }
    order.sort_unstable();
    let mut codes = vec![0u8; col.len()];
    let mut distinct: Vec<f64> = Vec::new();
    let mut last = None;
    for &o in &order {
        let k = (o >> 64) as u64;
        if last != Some(k) {
            last = Some(k);
            distinct.push(col[o as u64 as usize]);
        }
        codes[o as u64 as usize] = (distinct.len() - 1) as u8;
    }
    // -0.0 and 0.0 are one value to the general route's `dedup`.
    if distinct.windows(2).any(|w| w[0] == w[1]) {
        return None;
    }
    let edges = midpoints(&distinct);
    let ranks = edges.iter().zip(distinct.windows(2)).all(|(&m, w)| w[0] <= m && m < w[1]);
    ranks.then_some((edges, codes, distinct))
}

/// A column's bin edges from its sorted values: the [`midpoints`] of its
/// distinct values if there are at most [`MAX_BINS`], else its quantiles
/// (duplicates merged).
pub(super) fn sorted_edges(col: &[f64]) -> Vec<f64> {
    let mut all = col.to_vec();
    // Values equal in this order are equal bits: the unstable sort gives
    // the stable one's order.
    all.sort_unstable_by(f64::total_cmp);
    let mut distinct = all.clone();
    distinct.dedup();
    if distinct.len() <= MAX_BINS {
        return midpoints(&distinct);
    }
    let mut cuts: Vec<f64> = (1..MAX_BINS).map(|i| all[i * all.len() / MAX_BINS]).collect();
    cuts.dedup();
    cuts
}

/// Midpoints between consecutive distinct values.
pub(super) fn midpoints(distinct: &[f64]) -> Vec<f64> {
    distinct.windows(2).map(|w| w[0] + (w[1] - w[0]) / 2.0).collect()
}

/// Each value's bin: the number of edges below it (`partition_point`),
/// found for a two-bin column (one-hot, two values) by one comparison a
/// value, which the compiler vectorizes.
pub(super) fn bin_codes(col: &[f64], edges: &[f64]) -> Vec<u8> {
    match edges {
        [] => vec![0; col.len()],
        [t] => col.iter().map(|&v| u8::from(*t < v)).collect(),
        _ => col.iter().map(|&v| edges.partition_point(|&t| t < v) as u8).collect(),
    }
}

/// What one pass finds of a column's distinct values ([`distinct_values`]).
pub(super) enum Distinct {
    /// Its distinct values in [`sorted_edges`]' order and as its `dedup`
    /// merges them (`-0.0` and `0.0` into the first), at most
    /// [`MAX_BINS`]; and whether each is one bit pattern (no zero of the
    /// other sign merged into it).
    Few(Vec<f64>, bool),
    /// More than [`MAX_BINS`] distinct values: it has quantile bins.
    Many,
    /// A NaN (which `dedup` never merges) or zeros of both signs among
    /// more than [`MAX_BINS`] bit patterns: [`sorted_edges`] decides.
    Unsure,
}

/// A column's distinct values, found without sorting it (see
/// [`Distinct`]): a one-hot or small-integer column of 261,877 rows is
/// binned in one pass rather than a sort, and a continuous one is known to
/// need quantiles within its first few hundred rows.
pub(super) fn distinct_values(col: &[f64]) -> Distinct {
    let mut set = match two_patterns(col) {
        Some(set) => set,
        None => match distinct_patterns(col) {
            Ok(set) => set,
            Err(other) => return other,
        },
    };
    let patterns = set.len();
    set.dedup();
    let single = set.len() == patterns;
    Distinct::Few(set, single)
}

/// The bit patterns of a column that holds at most two, neither a NaN,
/// in `total_cmp` order (as [`distinct_patterns`] finds them); `None` for
/// any other column. Most columns with few values are one-hot, whose rows
/// alternate unpredictably: this looks at them in passes without a branch
/// per row, where [`distinct_patterns`] mispredicts at every change.
pub(super) fn two_patterns(col: &[f64]) -> Option<Vec<f64>> {
    let a = col.first()?.to_bits();
    let b = col.iter().map(|v| v.to_bits()).find(|&x| x != a).unwrap_or(a);
    // Blocks of rows, so that a column of many values stops early.
    for block in col.chunks(256) {
        if !block.iter().fold(true, |ok, v| ok & ((v.to_bits() == a) | (v.to_bits() == b))) {
            return None;
        }
    }
    let (a, b) = (f64::from_bits(a), f64::from_bits(b));
    if a.is_nan() || b.is_nan() {
        return None;
    }
    let mut set = vec![a];
    if b.to_bits() != a.to_bits() {
        set.push(b);
    }
    set.sort_by(f64::total_cmp);
    Some(set)
}

/// A column's distinct bit patterns in `total_cmp` order, when there are
/// at most [`MAX_BINS`] and no NaN; otherwise what [`distinct_values`]
/// answers. A column of at most [`MAX_BINS`] rows (every micro
/// environment's) is sorted whole, which costs less than placing each
/// value in order; a longer one is read value by value, which stops at
/// the first value past [`MAX_BINS`] patterns.
pub(super) fn distinct_patterns(col: &[f64]) -> Result<Vec<f64>, Distinct> {
    if col.len() <= MAX_BINS {
        return sorted_patterns(col);
    }
    inserted_patterns(col)
}

/// [`distinct_patterns`] of a short column, by sorting a copy of it.
pub(super) fn sorted_patterns(col: &[f64]) -> Result<Vec<f64>, Distinct> {
    if col.iter().any(|v| v.is_nan()) {
        return Err(Distinct::Unsure);
    }
    let mut set = col.to_vec();
    // Values equal in `total_cmp` are one bit pattern.
    set.sort_unstable_by(f64::total_cmp);
    set.dedup_by(|a, b| a.to_bits() == b.to_bits());
    Ok(set)
}

/// [`distinct_patterns`], placing each new value in a sorted list.
pub(super) fn inserted_patterns(col: &[f64]) -> Result<Vec<f64>, Distinct> {
    let mut set: Vec<f64> = Vec::new();
    let mut last: Option<u64> = None;
    for &v in col {
        if last == Some(v.to_bits()) {
            continue;
        }
        if v.is_nan() {
            return Err(Distinct::Unsure);
        }
        if let Err(at) = set.binary_search_by(|s| s.total_cmp(&v)) {
            if set.len() == MAX_BINS {
                // MAX_BINS + 1 bit patterns, of which `dedup` merges at
                // most the two zeros.
                let zeros = set.iter().filter(|&&s| s == 0.0).count() + usize::from(v == 0.0);
                return Err(if zeros < 2 { Distinct::Many } else { Distinct::Unsure });
            }
            set.insert(at, v);
        }
        last = Some(v.to_bits());
    }
    Ok(set)
}

/// The quantile cuts of a column of more than [`MAX_BINS`] distinct
/// values, as [`sorted_edges`] finds them: the values at sorted places
/// `i * n / MAX_BINS`, duplicates merged. Each is found by selection,
/// which puts at a place the value a sort puts there (values equal in
/// total order are equal bits), at a fraction of a sort's cost.
pub(super) fn quantile_cuts(col: &[f64]) -> Vec<f64> {
    let mut all = col.to_vec();
    let places: Vec<usize> = (1..MAX_BINS).map(|i| i * all.len() / MAX_BINS).collect();
    select_places(&mut all, 0, &places);
    let mut cuts: Vec<f64> = places.iter().map(|&p| all[p]).collect();
    cuts.dedup();
    cuts
}

/// Puts at each of `places` (increasing, counted from `offset`, the
/// place of `v[0]`) the value a sort of `v` puts there: the middle place
/// is selected, then the places either side within their sides.
pub(super) fn select_places(v: &mut [f64], offset: usize, places: &[usize]) {
    let Some(&p) = places.get(places.len() / 2) else {
        return;
    };
    let below = places.partition_point(|&q| q < p);
    let above = places.partition_point(|&q| q <= p);
    let (left, _, right) = v.select_nth_unstable_by(p - offset, f64::total_cmp);
    select_places(left, offset, &places[..below]);
    select_places(right, p + 1, &places[above..]);
}
