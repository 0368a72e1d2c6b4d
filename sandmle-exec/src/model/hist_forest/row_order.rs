//! Each feature's training rows listed once in bin order, through which
//! a tree node sorts its rows by a candidate's bins ([`RowOrder::sort`]).

use super::MAX_BINS;

/// Per feature, the training rows in (bin, row) order and each row's
/// place in that order: the rows of a node, in increasing order, marked
/// by their places in a bitmap and read back place by place, come out in
/// (bin, row) order, which is the order a sort of the node's rows by bin
/// gives (rows of one bin in node order), in one pass over the node's
/// rows and one over the bitmap's words, none over the bins
/// ([`RowOrder::sort`]).
pub(super) struct RowOrder {
    rows: usize,
    /// `order[f * rows + k]`: feature `f`'s `k`-th row in (bin, row) order.
    order: Vec<u16>,
    /// `place[f * rows + r]`: row `r`'s place in feature `f`'s order.
    place: Vec<u16>,
}

impl RowOrder {
    /// The most rows kept in order: a bitmap of this many bits is 16 words.
    pub(super) const MAX_ROWS: usize = 1024;

    /// The most cells (rows times features) kept in order: four bytes a
    /// cell, 16 MiB, four times the codes themselves. A wider table sorts
    /// as before rather than hold them.
    pub(super) const MAX_CELLS: usize = 1 << 22;

    /// Each feature's order, by a stable counting sort of its codes;
    /// `None` for more than [`RowOrder::MAX_ROWS`] rows or
    /// [`RowOrder::MAX_CELLS`] cells.
    pub(super) fn new(codes: &[Vec<u8>]) -> Option<RowOrder> {
        let rows = codes.first().map_or(0, Vec::len);
        if rows > Self::MAX_ROWS || rows.saturating_mul(codes.len()) > Self::MAX_CELLS {
            return None;
        }
        let (mut order, mut place) = (vec![0u16; rows * codes.len()], vec![0u16; rows * codes.len()]);
        for (f, col) in codes.iter().enumerate() {
            let mut next = [0u16; MAX_BINS + 1];
            for &c in col {
                next[usize::from(c)] += 1;
            }
            let mut before = 0;
            for slot in &mut next {
                (*slot, before) = (before, before + *slot);
            }
            let (order, place) = (&mut order[f * rows..][..rows], &mut place[f * rows..][..rows]);
            for (r, &c) in col.iter().enumerate() {
                let k = &mut next[usize::from(c)];
                order[usize::from(*k)] = r as u16;
                place[r] = *k;
                *k += 1;
            }
        }
        Some(RowOrder { rows, order, place })
    }

    /// `rows` (distinct training rows, in increasing order) sorted by
    /// feature `feature`'s bins, rows of one bin in increasing order, into
    /// `scratch` (which only grows): each row's place set in a bitmap,
    /// then the set places read in order.
    #[inline(always)]
    pub(super) fn sort<'s>(&self, feature: usize, rows: &[u32], scratch: &'s mut Vec<u64>) -> &'s [u64] {
        let words = self.rows.div_ceil(64);
        let n = rows.len();
        if scratch.len() < words + n {
            scratch.resize(words + n, 0);
        }
        let (bits, out) = scratch[..words + n].split_at_mut(words);
        bits.fill(0);
        let place = &self.place[feature * self.rows..][..self.rows];
        for &r in rows {
            let p = usize::from(place[r as usize]);
            bits[p >> 6] |= 1u64 << (p & 63);
        }
        let order = &self.order[feature * self.rows..][..self.rows];
        let mut i = 0;
        for (w, &word) in bits.iter().enumerate() {
            let mut word = word;
            while word != 0 {
                let t = word.trailing_zeros() as usize;
                word &= word - 1;
                out[i] = u64::from(order[w * 64 + t]);
                i += 1;
            }
        }
        debug_assert_eq!(i, n, "a node's rows are distinct");
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::RngExt;
    use sandmle_core::rng_for;

    /// A node's rows sorted through a feature's row order come out as a
    /// comparison sort by (bin, row) puts them, for nodes of every size
    /// on features of one to 256 bins, over tables of one row, of 64
    /// (one bitmap word) and of [`RowOrder::MAX_ROWS`]; a longer or wider
    /// table has no row order.
    #[test]
    fn row_orders_sort_a_nodes_rows_by_bin_then_row() {
        let mut rng = rng_for(23, "row order fixture");
        for rows in [1, 64, 200, RowOrder::MAX_ROWS] {
            let codes: Vec<Vec<u8>> = [1u16, 2, 7, 256]
                .iter()
                .map(|&bins| (0..rows).map(|_| rng.random_range(0..bins) as u8).collect())
                .collect();
            let order = RowOrder::new(&codes).unwrap();
            let mut scratch = Vec::new();
            for (f, col) in codes.iter().enumerate() {
                for keep in [1, 2, 5, 100] {
                    let node: Vec<u32> = (0..rows as u32).filter(|_| rng.random_range(0..keep) == 0).collect();
                    let mut want = node.clone();
                    want.sort_by_key(|&r| (col[r as usize], r));
                    let got: Vec<u32> = order.sort(f, &node, &mut scratch).iter().map(|&r| r as u32).collect();
                    assert_eq!(got, want, "{rows} rows, feature {f}, one row in {keep}");
                }
            }
        }
        assert!(RowOrder::new(&[vec![0; RowOrder::MAX_ROWS + 1]]).is_none());
        let wide = vec![vec![0u8; RowOrder::MAX_ROWS]; RowOrder::MAX_CELLS / RowOrder::MAX_ROWS];
        assert!(RowOrder::new(&wide).is_some());
        let wider = vec![vec![0u8; RowOrder::MAX_ROWS]; RowOrder::MAX_CELLS / RowOrder::MAX_ROWS + 1];
        assert!(RowOrder::new(&wider).is_none(), "a table wider than the cells kept sorts as before");
    }
}
