//! A node's split search: the candidates drawn, the histograms built or
//! the rows sorted by bin, and the scans that find each candidate's best cut.

use super::*;

impl Grower<'_> {
    /// The best split over `max_features` random candidates, trying further
    /// features (in random order) until one can be cut.
    pub(super) fn best_split(&mut self, rows: &[u32], at: usize, total: f64) -> Option<Split> {
        if let (true, &[r0, r1]) = (self.two_rows, rows) {
            return match self.kind {
                Kind::Values => self.split_two_values(r0 as usize, r1 as usize, total),
                Kind::Classes(_) => self.split_two_rows(rows, at, total),
            };
        }
        let batched = self.presorted.is_none()
            && rows.len() >= self.batch_min_rows
            && self.p.max_features.min(self.bins.codes.len()) > 1;
        if !batched {
            // Rows are gathered once, if a candidate sorts them.
            let mut gathered = false;
            return self.best_split_with(|g, f| {
                if !gathered && !g.counts(f) && g.presorted.is_none() {
                    g.gather(rows);
                    gathered = true;
                }
                g.split_one(f, rows, at, total)
            });
        }
        let wanted = self.draw_candidates();
        let order = std::mem::take(&mut self.order);
        let mut best: Option<Split> = None;
        // A feature with more bins than the node has rows is cheaper to
        // sort than to scan bin by bin; the candidates keep their order.
        let mut listed = std::mem::take(&mut self.listed);
        listed.clear();
        listed
            .extend(order[..wanted].iter().copied().filter(|&f| !self.counts(f) && self.histogram_pays(f, rows.len())));
        // Rows are gathered once, if a candidate sorts them: neither a
        // counted one nor a histogram candidate does; a further feature
        // does unless counted.
        let mut gathered = false;
        if order[..wanted].iter().any(|&f| !self.counts(f) && !listed.contains(&f)) {
            self.gather(rows);
            gathered = true;
        }
        if !listed.is_empty() {
            // Zeros for as many histograms as the batch has: a tree of
            // every feature (hundreds of them) would otherwise zero
            // megabytes per tree that its presorted nodes never read.
            let need = listed.len() * (MAX_BINS + 1) * self.stride();
            if self.hist.len() < need {
                self.hist.resize(need, 0.0);
            }
            self.batch_histograms(&listed, rows);
        }
        let mut c = 0;
        for &f in &order[..wanted] {
            let s = if listed.get(c) == Some(&f) {
                // Scanned even past an unbeatable cut: the scan leaves
                // the histogram zeroed for the next node.
                c += 1;
                self.scan_histogram(f, c - 1, total)
            } else if self.unbeatable(best) {
                continue;
            } else {
                self.split_one(f, rows, at, total)
            };
            keep(s, &mut best);
        }
        self.listed = listed;
        self.order = order;
        for i in wanted..self.bins.codes.len() {
            if best.is_some() {
                break;
            }
            let f = self.draw_further(i);
            if !gathered && !self.counts(f) {
                self.gather(rows);
                gathered = true;
            }
            keep(self.split_one(f, rows, at, total), &mut best);
        }
        best
    }

    /// [`Grower::best_split`] of a class node of two rows, `r0 < r1`: a
    /// candidate either holds them in one bin (no cut) or cuts between
    /// their two bins, and the cut's gain depends only on which row is in
    /// the lower bin. So the first candidate of each order is searched as
    /// any node's, and the others only compare their two bins and take
    /// its gain. A third of a fully grown tree's splits are of two rows.
    pub(super) fn split_two_rows(&mut self, rows: &[u32], at: usize, total: f64) -> Option<Split> {
        let (r0, r1) = (rows[0] as usize, rows[1] as usize);
        // By which row is in the lower bin: the gain, once searched.
        let mut gains: [Option<Option<f64>>; 2] = [None, None];
        let mut gathered = false;
        self.best_split_with(|g, f| {
            let (c0, c1) = (g.bins.codes[f][r0], g.bins.codes[f][r1]);
            if c0 == c1 {
                return None;
            }
            let order = usize::from(c0 > c1);
            let gain = match gains[order] {
                Some(gain) => gain,
                None => {
                    if !gathered && !g.counts(f) && g.presorted.is_none() {
                        g.gather(rows);
                        gathered = true;
                    }
                    let gain = g.split_one(f, rows, at, total).map(|s| s.3);
                    gains[order] = Some(gain);
                    gain
                }
            };
            gain.map(|gain| (f, c0.min(c1), c0.max(c1), gain))
        })
    }

    /// [`Grower::best_split`] of a value node of two rows, `r0 < r1`: a
    /// candidate's one cut puts one row on each side, and its gain is one
    /// of two numbers, by which row is on the left. Both are computed once
    /// as [`Scan::values`] computes them (the same additions in the same
    /// order), and each candidate only compares its two bins. A third of
    /// a fully grown value tree's splits are of two rows.
    pub(super) fn split_two_values(&mut self, r0: usize, r1: usize, total: f64) -> Option<Split> {
        let (tw, ts) = (self.sums[0], self.sums[1]);
        let parent = purity(Kind::Values, &[tw, ts]);
        let min_leaf = self.p.min_samples_leaf as f64;
        let gain = |a: Add| {
            let (lw, ls) = (0.0 + (0.0 + a.weight), 0.0 + (0.0 + a.amount));
            let (rw, rs) = (tw - lw, ts - ls);
            (lw >= min_leaf && rw >= min_leaf).then(|| (ls * ls / lw + rs * rs / rw - parent) / total)
        };
        let (first, second) = (gain(self.adds[r0]), gain(self.adds[r1]));
        self.best_split_with(|g, f| {
            let codes = &g.bins.codes[f];
            match codes[r0].cmp(&codes[r1]) {
                std::cmp::Ordering::Less => first.map(|gain| (f, codes[r0], codes[r1], gain)),
                std::cmp::Ordering::Greater => second.map(|gain| (f, codes[r1], codes[r0], gain)),
                std::cmp::Ordering::Equal => None,
            }
        })
    }

    /// Whether a batched node of `rows` rows scans feature `feature`'s
    /// histogram rather than sorting its rows by bin: a histogram costs a
    /// look at every bin and, for classes, an update of every class per
    /// occupied bin; a sort, a few steps per row. With more bins than rows
    /// (a continuous feature in a node of 200 rows) the sort wins: digits_png
    /// (350 image features, 10 classes) and breast_cancer generate about
    /// 18 % faster.
    pub(super) fn histogram_pays(&self, feature: usize, rows: usize) -> bool {
        !self.sort_wide || self.bins.edges[feature].len() < rows
    }

    /// What each of the node's rows adds, by place, for [`Grower::split_on`]
    /// (presorted scans, and nodes that sort through row orders, read it
    /// by row instead).
    pub(super) fn gather(&mut self, rows: &[u32]) {
        if self.presorted.is_none() && !self.sorts_by_row_order(rows.len()) {
            self.local.clear();
            self.local.extend(rows.iter().map(|&r| self.adds[r as usize]));
        }
    }

    /// Whether a node of `n` rows sorts them by a candidate's bins through
    /// the candidate's row order (and so never reads `local`).
    pub(super) fn sorts_by_row_order(&self, n: usize) -> bool {
        self.row_order && n >= ROW_ORDER_MIN_ROWS && self.bins.row_order().is_some()
    }

    /// The best split on one feature without a histogram of floats: by
    /// counting a two-bin feature's upper bin, a two-class histogram of
    /// packed weights, over the presorted rows, or by sorting the node's
    /// rows.
    pub(super) fn split_one(&mut self, feature: usize, rows: &[u32], at: usize, total: f64) -> Option<Split> {
        if self.counts(feature) {
            self.split_counted(feature, rows, total)
        } else if self.presorted.is_some() {
            self.split_presorted(feature, at, rows.len(), total)
        } else {
            self.split_on(feature, rows, total)
        }
    }

    /// One pass over the rows: each candidate's histogram (candidate `c` at
    /// `c * (MAX_BINS + 1) * stride`).
    pub(super) fn batch_histograms(&mut self, candidates: &[usize], rows: &[u32]) {
        let stride = self.stride();
        let per = (MAX_BINS + 1) * stride;
        let width = self.bins.codes.len();
        let bins = self.bins;
        let codes = bins.row_codes();
        for &r in rows {
            let a = self.adds[r as usize];
            let row = &codes[r as usize * width..(r as usize + 1) * width];
            for (c, &f) in candidates.iter().enumerate() {
                let at = c * per + row[f] as usize * stride;
                self.hist[at] += a.weight;
                self.hist[at + a.slot] += a.amount;
            }
        }
    }

    /// The best split in candidate `c`'s histogram (feature `feature`),
    /// which it then zeroes.
    pub(super) fn scan_histogram(&mut self, feature: usize, c: usize, total: f64) -> Option<Split> {
        let stride = self.stride();
        let n_bins = self.bins.edges[feature].len() + 1;
        let base = c * (MAX_BINS + 1) * stride;
        let hist = &mut self.hist[base..base + n_bins * stride];
        let mut cut = Cuts::new(self.kind, self.p.min_samples_leaf, feature, total, &mut self.sums);
        for b in 0..n_bins {
            let bin = &hist[b * stride..(b + 1) * stride];
            if bin[0] != 0.0 {
                cut.add_bin(b as u8, bin);
            }
        }
        hist.fill(0.0);
        cut.best.split
    }

    /// The best split of `rows` on one feature: the rows sorted by bin
    /// (then by their place in `rows`) and scanned in that order, cuts
    /// between runs of equal bins. Small nodes cost a sort of their own
    /// rows, no histogram: through the feature's row order when the table
    /// has row orders and the node has at least [`ROW_ORDER_MIN_ROWS`]
    /// rows (rows in increasing order, so the same order), else by ranks
    /// or counts ([`sort_by_bin`]).
    ///
    /// Compiled for AVX2 where the processor has it ([`pulp::Arch`]): the
    /// rank sort compares twice the keys to an instruction. The same IEEE
    /// additions, products and quotients either way (nothing fused), so
    /// the same split; a `digits_png` candidate took 2 % less time.
    pub(super) fn split_on(&mut self, feature: usize, rows: &[u32], total: f64) -> Option<Split> {
        struct SplitOn<'g, 'a>(&'g mut Grower<'a>, usize, &'g [u32], f64);
        impl pulp::WithSimd for SplitOn<'_, '_> {
            type Output = Option<Split>;
            #[inline(always)]
            fn with_simd<S: pulp::Simd>(self, _simd: S) -> Option<Split> {
                let SplitOn(g, feature, rows, total) = self;
                g.split_on_in(feature, rows, total)
            }
        }
        pulp::Arch::new().dispatch(SplitOn(self, feature, rows, total))
    }

    /// [`Grower::split_on`]'s work, inlined into each processor's route.
    #[inline(always)]
    pub(super) fn split_on_in(&mut self, feature: usize, rows: &[u32], total: f64) -> Option<Split> {
        if self.bins.edges[feature].is_empty() {
            return None;
        }
        let codes = &self.bins.codes[feature];
        let scan = Scan { min_leaf: self.p.min_samples_leaf as f64, feature, total, squares: self.squares };
        if let Some(order) = self.bins.row_order().filter(|_| self.sorts_by_row_order(rows.len())) {
            let sorted = order.sort(feature, rows, &mut self.keys);
            let adds = &self.adds;
            let sorted = sorted.iter().map(|&r| (codes[r as usize], adds[r as usize]));
            return match self.kind {
                Kind::Values => scan.values(sorted, &self.sums, &mut self.scan_runs),
                Kind::Classes(k) => scan.classes(sorted, k, &mut self.sums, &mut self.scan_runs),
            };
        }
        let mut keys = std::mem::take(&mut self.keys);
        let sorted = sort_by_bin(&mut keys, rows.iter().map(|&r| codes[r as usize]));
        let local = &self.local;
        let sorted = sorted.iter().map(|&k| (key_bin(k), local[key_place(k)]));
        let best = match self.kind {
            Kind::Values => scan.values(sorted, &self.sums, &mut self.scan_runs),
            Kind::Classes(k) => scan.classes(sorted, k, &mut self.sums, &mut self.scan_runs),
        };
        self.keys = keys;
        best
    }

    /// [`Grower::split_on`] over the presorted rows of the node at place
    /// `at` with `len` rows: the same scan in the same order, without a sort.
    pub(super) fn split_presorted(&mut self, feature: usize, at: usize, len: usize, total: f64) -> Option<Split> {
        let pre = self.presorted.as_ref()?;
        if self.bins.edges[feature].is_empty() {
            return None;
        }
        let (codes, adds) = (&self.bins.codes[feature], &self.adds);
        let list = &pre.lists[feature * pre.m + at..][..len];
        let sorted = list.iter().map(|&r| (codes[r as usize], adds[r as usize]));
        let scan = Scan { min_leaf: self.p.min_samples_leaf as f64, feature, total, squares: self.squares };
        match self.kind {
            Kind::Values => scan.values(sorted, &self.sums, &mut self.scan_runs),
            Kind::Classes(k) => scan.classes(sorted, k, &mut self.sums, &mut self.scan_runs),
        }
    }
}
