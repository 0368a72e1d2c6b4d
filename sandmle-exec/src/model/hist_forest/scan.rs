//! The cut search over one feature: the best cut between two consecutive
//! occupied bins, from a histogram ([`Cuts`], large nodes) or from a
//! small node's rows sorted by bin ([`Scan`]). Both add each bin's numbers
//! in row order and the bins in bin order, so they find the same cut.
//! Class trees' sums are whole numbers (bootstrap multiplicities), and
//! with fewer than 2^26 training rows every sum of squared class weights
//! is exact too, so [`PackedScan`] (a two-class histogram of integers) and
//! [`two_bin_cut`] (a two-bin feature) find the same cuts from integer
//! counts.

use super::{Kind, MAX_BINS};

/// A split candidate: feature, the node's last occupied bin on the left,
/// its first occupied bin on the right, gain.
pub(super) type Split = (usize, u8, u8, f64);

/// What one row adds to a histogram: its weight, and the slot and amount
/// of its target (its class weight, or its weight times its value).
#[derive(Clone, Copy)]
pub(super) struct Add {
    pub weight: f64,
    pub slot: usize,
    pub amount: f64,
}

/// The cut search over a node's rows on one feature given in bin order
/// (rows of one bin in increasing order), each as its bin and what it
/// adds. The node's totals are in the first slots of the sums passed in.
#[derive(Clone, Copy)]
pub(super) struct Scan {
    pub min_leaf: f64,
    pub feature: usize,
    pub total: f64,
    /// Classes: the node's sum of squared class weights, in class order
    /// (found once per node, not once per candidate: [`node_squares`]).
    pub squares: f64,
}

impl Scan {
    /// The scan for values: each run of equal bins summed in row order,
    /// then joining the left side, the same additions in the same order
    /// as [`Cuts`], so the same cut.
    ///
    /// Two passes without a branch on the data, as [`Scan::classes`]: a
    /// run's sums join the left side where it ends by a choice, not a
    /// branch (the sums the branch would add), and the cuts' gains are
    /// found after the rows.
    #[inline(always)]
    pub(super) fn values(
        &self,
        rows: impl Iterator<Item = (u8, Add)>,
        sums: &[f64],
        runs: &mut ScanRuns,
    ) -> Option<Split> {
        use std::hint::select_unpredictable as choose;
        let (tw, ts) = (sums[0], sums[1]);
        let parent = purity(Kind::Values, &[tw, ts]);
        let (mut lw, mut ls) = (0.0, 0.0);
        let mut rows = rows;
        let (first, a) = rows.next()?;
        // The current run's bin and sums (each added from zero).
        let (mut run, mut bw, mut bs) = (first, 0.0 + a.weight, 0.0 + a.amount);
        let mut n = 0;
        for (code, a) in rows {
            debug_assert!(code >= run, "rows come in bin order");
            let ends = code != run;
            lw = choose(ends, lw + bw, lw);
            ls = choose(ends, ls + bs, ls);
            // The left side after run `n` (overwritten until a run ends).
            runs.at[n] = run;
            runs.sides[n] = [lw, ls, 0.0];
            n += usize::from(ends);
            bw = choose(ends, 0.0, bw) + a.weight;
            bs = choose(ends, 0.0, bs) + a.amount;
            run = code;
        }
        runs.at[n] = run;
        let min_leaf = self.min_leaf;
        let most = gains(&mut runs.raw[..n], &runs.sides[..n], |[lw, ls, _]| {
            let (rw, rs) = (tw - lw, ts - ls);
            // Both sides hold rows, whose weights are at least 1: each
            // purity is its squared sum over its weight ([`purity`]).
            let gain = ls * ls / lw + rs * rs / rw - parent;
            if lw >= min_leaf && rw >= min_leaf { gain } else { f64::NEG_INFINITY }
        });
        cut_of_greatest(self.feature, &runs.at[..=n], &runs.raw[..n], most, self.total)
    }

    /// The scan for classes. Weights are whole numbers
    /// (bootstrap multiplicities), so every class weight, its square and
    /// the sums of squares are exact in `f64`: keeping the sums of squares
    /// up to date row by row gives [`Cuts`]' purities exactly, at a cost
    /// per row and per cut that does not grow with the number of classes.
    ///
    /// Two passes, neither with a branch on the data (where runs end and
    /// which cut beats the best so far are as good as random to the
    /// processor, and each mispredicted offer waited on its divisions):
    /// the rows' pass lists each run's bin and the left side's weight and
    /// sums of squares after it; the cuts' pass finds every cut's undivided
    /// gain, and [`first_greatest_of`] takes the first cut of the greatest
    /// gain, the one [`Best`] keeps when the cuts are offered one by one.
    #[inline(always)]
    pub(super) fn classes(
        &self,
        rows: impl Iterator<Item = (u8, Add)>,
        k: usize,
        sums: &mut [f64],
        runs: &mut ScanRuns,
    ) -> Option<Split> {
        let (totals, rest) = sums.split_at_mut(k + 1);
        let left = &mut rest[..k];
        left.fill(0.0);
        let tw = totals[0];
        // The node's purity is its sum of squares over its weight (at
        // least 1: every row weighs at least one), as [`purity`] finds it.
        debug_assert_eq!(self.squares.to_bits(), node_squares(totals).to_bits());
        let parent = self.squares / tw;
        let (mut lw, mut lsq) = (0.0, 0.0);
        let mut rsq = self.squares;
        let mut rows = rows.peekable();
        let mut run = rows.peek()?.0;
        let mut n = 0;
        for (code, a) in rows {
            debug_assert!(code >= run, "rows come in bin order");
            // The left side after run `n` (this row's run, if it is the
            // same: overwritten until a run ends).
            runs.at[n] = run;
            runs.sides[n] = [lw, lsq, rsq];
            n += usize::from(code != run);
            run = code;
            let (c, w) = (a.slot - 1, a.weight);
            let (l, r) = (left[c], totals[a.slot] - left[c]);
            lsq += (2.0 * l + w) * w;
            rsq -= (2.0 * r - w) * w;
            left[c] = l + w;
            lw += w;
        }
        runs.at[n] = run;
        let min_leaf = self.min_leaf;
        let most = gains(&mut runs.raw[..n], &runs.sides[..n], |[lw, lsq, rsq]| {
            let rw = tw - lw;
            let gain = lsq / lw + rsq / rw - parent;
            if lw >= min_leaf && rw >= min_leaf { gain } else { f64::NEG_INFINITY }
        });
        cut_of_greatest(self.feature, &runs.at[..=n], &runs.raw[..n], most, self.total)
    }
}

/// [`Scan::values`]' and [`Scan::classes`]' lists, reused node after
/// node: a node's rows hold at most [`MAX_BINS`] + 1 runs of one bin.
pub(super) struct ScanRuns {
    /// Each run's bin.
    at: Box<[u8; MAX_BINS + 1]>,
    /// After each run, the left side's weight and sums of squared class
    /// weights on the left and on the right (values: its weight and sum).
    sides: Box<[[f64; 3]; MAX_BINS + 1]>,
    /// Per cut, its undivided gain, or -inf when a side is too light.
    raw: Box<[f64; MAX_BINS + 1]>,
}

impl Default for ScanRuns {
    fn default() -> Self {
        ScanRuns {
            at: Box::new([0; MAX_BINS + 1]),
            sides: Box::new([[0.0; 3]; MAX_BINS + 1]),
            raw: Box::new([0.0; MAX_BINS + 1]),
        }
    }
}

/// The best cut of a scan so far, with its gain before the division by the
/// node's total weight.
///
/// That division is monotone (the total is positive, and rounding keeps
/// order), so a cut whose undivided gain is no more than the best's cannot
/// have a greater gain: it is passed over without dividing, and the cuts
/// kept are the ones a division per cut keeps.
#[derive(Default)]
pub(super) struct Best {
    pub split: Option<Split>,
    raw: f64,
}

impl Best {
    /// Offers a cut of undivided gain `raw`: kept if `raw / total` beats
    /// the best gain (or there is none yet).
    #[inline]
    fn offer(&mut self, raw: f64, total: f64, (feature, last, next): (usize, u8, u8)) {
        if self.split.is_some() && raw <= self.raw {
            return;
        }
        let gain = raw / total;
        if self.split.is_none_or(|s| gain > s.3) {
            self.split = Some((feature, last, next, gain));
            self.raw = raw;
        }
    }
}

/// The scan over one feature's occupied bins in increasing order: the
/// best cut between two consecutive ones. `sums` holds the node's totals
/// in its first `stride` slots and is scratch after them.
pub(super) struct Cuts<'s> {
    kind: Kind,
    min_leaf: f64,
    feature: usize,
    total: f64,
    parent: f64,
    totals: &'s [f64],
    left: &'s mut [f64],
    right: &'s mut [f64],
    /// Classes: the sums of squared class weights on the left and the
    /// right, kept up to date bin by bin (exact: whole numbers).
    squares: (f64, f64),
    last: Option<u8>,
    /// The best cut so far.
    pub best: Best,
}

impl<'s> Cuts<'s> {
    pub(super) fn new(kind: Kind, min_samples_leaf: usize, feature: usize, total: f64, sums: &'s mut [f64]) -> Self {
        let stride = kind.width() + 1;
        let (totals, rest) = sums.split_at_mut(stride);
        let (left, rest) = rest.split_at_mut(stride);
        let right = &mut rest[..stride];
        left.fill(0.0);
        let parent = purity(kind, totals);
        let squares = (0.0, totals[1..].iter().map(|c| c * c).sum());
        Cuts {
            kind,
            min_leaf: min_samples_leaf as f64,
            feature,
            total,
            parent,
            totals,
            left,
            right,
            squares,
            last: None,
            best: Best::default(),
        }
    }

    /// The next occupied bin `b` and its sums: first the cut between the
    /// previous occupied bin and `b`, then `b` joins the left side.
    pub(super) fn add_bin(&mut self, b: u8, bin: &[f64]) {
        if let Some(last) = self.last {
            self.consider(last, b);
        }
        if let Kind::Classes(_) = self.kind {
            // A class absent from the bin adds exact zeros (the sums are
            // whole numbers, never -0), so every class is updated, without
            // a branch per class.
            let (dl, dr) = square_changes(&mut self.left[1..], &self.totals[1..], &bin[1..]);
            self.squares.0 += dl;
            self.squares.1 -= dr;
            self.left[0] += bin[0];
        } else {
            self.left.iter_mut().zip(bin).for_each(|(l, v)| *l += v);
        }
        self.last = Some(b);
    }

    fn consider(&mut self, last: u8, next: u8) {
        if let Kind::Classes(_) = self.kind {
            let (lw, rw) = (self.left[0], self.totals[0] - self.left[0]);
            if lw < self.min_leaf || rw < self.min_leaf {
                return;
            }
            let raw = self.squares.0 / lw + self.squares.1 / rw - self.parent;
            self.best.offer(raw, self.total, (self.feature, last, next));
            return;
        }
        for ((r, t), l) in self.right.iter_mut().zip(self.totals).zip(self.left.iter()) {
            *r = t - l;
        }
        if self.left[0] < self.min_leaf || self.right[0] < self.min_leaf {
            return;
        }
        // Any valid cut is a candidate, a zero gain included: as in
        // scikit-learn, a node that is not pure splits whenever one of its
        // drawn features can be cut.
        let raw = purity(self.kind, self.left) + purity(self.kind, self.right) - self.parent;
        self.best.offer(raw, self.total, (self.feature, last, next));
    }
}

/// A bin of class weights `bin` joining the left side: adds it to `left`
/// and returns how much the sums of squared class weights grow on the left
/// and shrink on the right (`totals - left` before the bin).
///
/// Every term is a whole number well below 2^53, so each sum is exact in
/// any order: four lanes keep four additions in flight instead of one
/// chain through every class, and the result is the one a single chain
/// gives, bit for bit.
#[inline]
fn square_changes(left: &mut [f64], totals: &[f64], bin: &[f64]) -> (f64, f64) {
    let (mut dl, mut dr) = ([0.0f64; 4], [0.0f64; 4]);
    let mut lanes = left.chunks_exact_mut(4).zip(totals.chunks_exact(4)).zip(bin.chunks_exact(4));
    for ((l, t), w) in &mut lanes {
        for i in 0..4 {
            dl[i] += (2.0 * l[i] + w[i]) * w[i];
            dr[i] += (2.0 * (t[i] - l[i]) - w[i]) * w[i];
            l[i] += w[i];
        }
    }
    let done = left.len() / 4 * 4;
    for ((l, &t), &w) in left[done..].iter_mut().zip(&totals[done..]).zip(&bin[done..]) {
        dl[0] += (2.0 * *l + w) * w;
        dr[0] += (2.0 * (t - *l) - w) * w;
        *l += w;
    }
    ((dl[0] + dl[1]) + (dl[2] + dl[3]), (dr[0] + dr[1]) + (dr[2] + dr[3]))
}

/// The cut between a class node's two bins `lower` and `upper` (each its
/// weight, then its class weights; `totals` the node's), as [`Cuts`]
/// offers it: when both bins are occupied and hold `min_leaf`. Every
/// number is whole and well below 2^53, so the sums of squares are the
/// ones [`Cuts`] keeps bin by bin, exactly, and the gain is the same
/// expression of the same numbers.
pub(super) fn two_bin_cut(
    min_leaf: f64,
    feature: usize,
    total: f64,
    totals: &[f64],
    lower: &[f64],
    upper: &[f64],
) -> Option<Split> {
    let (lw, rw) = (lower[0], upper[0]);
    if lw == 0.0 || rw == 0.0 || lw < min_leaf || rw < min_leaf {
        return None;
    }
    let squares = |s: &[f64]| s[1..].iter().map(|c| c * c).sum::<f64>();
    let raw = squares(lower) / lw + squares(upper) / rw - purity(Kind::Classes(totals.len() - 1), totals);
    Some((feature, 0, 1, raw / total))
}

/// [`two_bin_cut`] for two classes, the upper bin given as the packed sum
/// of its rows: the same expression of the same numbers (the lower bin is
/// the node's totals less the upper's, each side's sum of squares is its
/// two squares added in class order, the node's purity its
/// [`purity`]), without the slices.
pub(super) fn two_bin_packed_cut(
    min_leaf: f64,
    feature: usize,
    total: f64,
    totals: &[f64],
    upper: u64,
) -> Option<Split> {
    let [rw, r0, r1] = unpack(upper);
    let (lw, l0, l1) = (totals[0] - rw, totals[1] - r0, totals[2] - r1);
    if lw == 0.0 || rw == 0.0 || lw < min_leaf || rw < min_leaf {
        return None;
    }
    let raw = (l0 * l0 + l1 * l1) / lw + (r0 * r0 + r1 * r1) / rw - purity(Kind::Classes(2), totals);
    Some((feature, 0, 1, raw / total))
}

/// A row of weight `w` packed for a two-class tree: the weight, and 32
/// bits up the weight again if the row's class is the second. A node's
/// weights sum below 2^32 (at most the training rows, `u32` indices), so
/// sums of packed rows never carry from one half into the other.
pub(super) fn pack(w: u32, second: bool) -> u64 {
    let w = u64::from(w);
    w | (w * u64::from(second)) << 32
}

/// A sum of packed rows as a bin of [`Cuts`]: the weight, then the
/// first and the second class's weights.
pub(super) fn unpack(sum: u64) -> [f64; 3] {
    // Each half below 2^32: converted from 32 bits, which takes the
    // processor one instruction where 64 unsigned bits take several.
    let (weight, second) = (f64::from(sum as u32), f64::from((sum >> 32) as u32));
    [weight, weight - second, second]
}

/// The cut search over a two-class node's occupied bins of packed
/// weights (each bin's weight and, 32 bits up, its second class's
/// weight), between consecutive occupied bins, as [`Cuts`] finds it: the
/// integer sums are its whole-number sums, so each cut's sums of squares
/// are the ones [`Cuts`] keeps bin by bin, exactly, and its gain the same
/// expression of the same numbers. It runs in straight passes: the
/// occupied bins and the left side's packed sum after each are listed
/// ([`PackedScan::list_histogram`], [`PackedScan::list_occupied`]), every
/// cut's gain before the division by the node's weight is found in one
/// loop without a branch (two divisions a cut, two cuts to an instruction
/// where the processor has vector division), and [`PackedScan::best`]
/// takes the first cut of the greatest gain, the one [`Best`] keeps when
/// the cuts are offered one by one. Its buffers are reused node after
/// node.
pub(super) struct PackedScan {
    /// The occupied bins, in increasing order.
    at: Box<[u8; MAX_BINS + 1]>,
    /// After each occupied bin, the packed sum of it and every bin before.
    left: Box<[u64; MAX_BINS + 1]>,
    /// Per cut, its undivided gain, or -inf when a side is too light.
    raw: Box<[f64; MAX_BINS + 1]>,
    /// The occupied bins listed.
    len: usize,
}

impl Default for PackedScan {
    fn default() -> Self {
        PackedScan {
            at: Box::new([0; MAX_BINS + 1]),
            left: Box::new([0; MAX_BINS + 1]),
            raw: Box::new([0.0; MAX_BINS + 1]),
            len: 0,
        }
    }
}

impl PackedScan {
    /// Lists the occupied bins of the first `n_bins` of `hist` (packed
    /// sums), without a branch per bin: which bins a node occupies is as
    /// good as random to the processor.
    pub(super) fn list_histogram(&mut self, hist: &[u64], n_bins: usize) {
        let (mut k, mut sum) = (0, 0u64);
        for (b, &h) in hist[..n_bins].iter().enumerate() {
            sum += h;
            self.at[k] = b as u8;
            self.left[k] = sum;
            k += usize::from(h != 0);
        }
        self.len = k;
    }

    /// Lists the occupied bins of `hist`, those whose bits are set in
    /// `occupied` (bin `b` at bit `b % 64` of word `b / 64`), and zeroes
    /// them: a pass over the occupied bins alone, where
    /// [`PackedScan::list_histogram`] passes over every bin. A node with
    /// few rows for its feature's bins occupies few of them.
    pub(super) fn list_occupied(&mut self, hist: &mut [u64; MAX_BINS + 1], occupied: [u64; 4]) {
        let (mut k, mut sum) = (0, 0u64);
        for (word, mut bits) in occupied.into_iter().enumerate() {
            while bits != 0 {
                let b = word * 64 + bits.trailing_zeros() as usize;
                bits &= bits - 1;
                debug_assert_ne!(hist[b], 0, "an occupied bin holds a row's weight");
                sum += std::mem::take(&mut hist[b]);
                self.at[k] = b as u8;
                self.left[k] = sum;
                k += 1;
            }
        }
        self.len = k;
    }

    /// The best cut between consecutive listed bins whose sides each
    /// weigh `min_leaf` or more, of the node of weight and class weights
    /// `totals` (`total` its weight).
    pub(super) fn best(&mut self, min_leaf: f64, feature: usize, total: f64, totals: &[f64]) -> Option<Split> {
        let cuts = self.len.checked_sub(1)?;
        let parent = purity(Kind::Classes(2), totals);
        let (t0, t1, t2) = (totals[0], totals[1], totals[2]);
        for (r, &left) in self.raw[..cuts].iter_mut().zip(&self.left[..cuts]) {
            let [lw, l0, l1] = unpack(left);
            let (rw, r0, r1) = (t0 - lw, t1 - l0, t2 - l1);
            let gain = (l0 * l0 + l1 * l1) / lw + (r0 * r0 + r1 * r1) / rw - parent;
            *r = if lw >= min_leaf && rw >= min_leaf { gain } else { f64::NEG_INFINITY };
        }
        // The greatest in a pass of its own: kept in the loop above, it
        // cost a two-class fit 2 % more instructions.
        let raw = &self.raw[..cuts];
        cut_of_greatest(feature, &self.at[..=cuts], raw, greatest(raw), total)
    }
}

/// The split of feature `feature` between listed bins `at[i]` and
/// `at[i + 1]` whose undivided gain `raw[i]` is [`first_greatest_of`];
/// `most` is the greatest of `raw` ([`greatest`]'s value), which the class
/// and value scans find as they fill `raw` rather than in a pass of its own.
#[inline(always)]
fn cut_of_greatest(feature: usize, at: &[u8], raw: &[f64], most: f64, total: f64) -> Option<Split> {
    debug_assert_eq!(most, greatest(raw));
    let i = first_greatest_of(raw, most, total)?;
    Some((feature, at[i], at[i + 1], raw[i] / total))
}

/// The greatest of `raw`, -inf when it is empty (NaNs passed over).
fn greatest(raw: &[f64]) -> f64 {
    raw.iter().fold(f64::NEG_INFINITY, |m, &r| greater(m, r))
}

/// Fills `raw` with each cut's undivided gain from its left side's
/// numbers, and returns the greatest ([`greatest`]'s value). Four running
/// maxima, taken together at the end, let the processor work on four
/// cuts at once: one would chain every cut to the one before it.
#[inline(always)]
fn gains(raw: &mut [f64], sides: &[[f64; 3]], gain: impl Fn([f64; 3]) -> f64) -> f64 {
    let mut most = [f64::NEG_INFINITY; 4];
    let mut raws = raw.chunks_exact_mut(4);
    let mut lefts = sides.chunks_exact(4);
    for (r, l) in (&mut raws).zip(&mut lefts) {
        for j in 0..4 {
            r[j] = gain(l[j]);
            most[j] = greater(most[j], r[j]);
        }
    }
    for (r, &l) in raws.into_remainder().iter_mut().zip(lefts.remainder()) {
        *r = gain(l);
        most[0] = greater(most[0], *r);
    }
    greater(greater(most[0], most[1]), greater(most[2], most[3]))
}

/// The greater of `m` and `r`, `m` when `r` is NaN: `f64::max` for an `m`
/// that is never NaN (it starts at -inf), in one instruction where
/// `f64::max`'s care for a NaN `m` takes five, on the scans' critical path.
#[inline(always)]
fn greater(m: f64, r: f64) -> f64 {
    if r > m { r } else { m }
}

/// [`first_greatest_of`], the greatest found here.
#[cfg(test)]
fn first_greatest(raw: &[f64], total: f64) -> Option<usize> {
    first_greatest_of(raw, greatest(raw), total)
}

/// The first of the undivided gains `raw` (-inf: no cut) whose gain
/// `raw / total` is the greatest, the cut [`Best`] keeps when they are
/// offered in order, given `most`, the greatest of `raw` ([`greatest`]);
/// `None` when every one is -inf. Rounding keeps the
/// gains' order, so only a cut whose undivided gain is within rounding of
/// the greatest can divide to the greatest gain: the division is done for
/// those alone, and not at all when the first of them is the greatest
/// (no cut before it comes near, and it divides to the greatest gain by
/// definition). Most searches end there: two dependent divisions a
/// search were a tenth of the packed scan's time.
#[inline(always)]
fn first_greatest_of(raw: &[f64], most: f64, total: f64) -> Option<usize> {
    if most == f64::NEG_INFINITY {
        return None;
    }
    // An infinite gain (sums past f64's range) is kept as `Best` keeps
    // it: the first of them.
    let near = if most.is_finite() { most - (most.abs() * 1e-12 + 1e-300) } else { most };
    let first = raw.iter().position(|&r| r >= near)?;
    if raw[first] == most {
        return Some(first);
    }
    let best = most / total;
    raw[first..].iter().position(|&r| r >= near && r / total == best).map(|i| first + i)
}

/// A class node's sum of squared class weights, in class order, of its
/// weight and class weights `totals`: the numerator of its [`purity`].
pub(super) fn node_squares(totals: &[f64]) -> f64 {
    totals[1..].iter().map(|c| c * c).sum()
}

/// Weighted purity: the sum of squared class weights over the weight
/// (Gini), or the squared sum over the weight (variance); higher is purer.
pub(super) fn purity(kind: Kind, s: &[f64]) -> f64 {
    if s[0] <= 0.0 {
        return 0.0;
    }
    match kind {
        Kind::Classes(_) => node_squares(s) / s[0],
        Kind::Values => s[1] * s[1] / s[0],
    }
}

#[cfg(test)]
mod tests;
