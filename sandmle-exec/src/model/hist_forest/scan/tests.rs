//! Tests of the parent module.

use super::*;

/// [`PackedScan`] over the packed histogram `bins`, listed both ways:
/// every bin ([`PackedScan::list_histogram`]) and the occupied ones
/// marked ([`PackedScan::list_occupied`], which leaves the histogram
/// all zeros). Both must find the same cut.
fn packed_cut(bins: &[u64], min_leaf: f64, feature: usize, total: f64, totals: &[f64]) -> Option<Split> {
    let mut hist = [0u64; MAX_BINS + 1];
    hist[..bins.len()].copy_from_slice(bins);
    let mut scan = PackedScan::default();
    scan.list_histogram(&hist, bins.len());
    let every = scan.best(min_leaf, feature, total, totals);
    let mut occupied = [0u64; 4];
    for (b, _) in bins.iter().enumerate().filter(|&(_, &h)| h != 0) {
        occupied[b / 64] |= 1 << (b % 64);
    }
    scan.list_occupied(&mut hist, occupied);
    assert!(hist.iter().all(|&h| h == 0), "the occupied bins zeroed");
    let marked = scan.best(min_leaf, feature, total, totals);
    let bits = |s: Option<Split>| s.map(|(f, l, r, g)| (f, l, r, g.to_bits()));
    assert_eq!(bits(every), bits(marked), "listing every bin or the occupied ones");
    every
}

/// A small congruential generator: `next(m)` draws below `m`.
fn numbers(seed: u64) -> impl FnMut(u64) -> u64 {
    let mut state = seed;
    move |m| {
        state = state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        (state >> 33) % m
    }
}

/// Random two-class histograms (empty bins, one-row bins, a leaf
/// minimum of 1 or 3): the packed scan and the two-bin cut find what
/// [`Cuts`] finds, to the bit.
#[test]
fn packed_and_two_bin_cuts_are_the_cuts_of_the_float_histogram() {
    let mut next = numbers(11);
    let mut sums = vec![0.0; 9];
    for case in 0..8_000 {
        let n_bins = [2, 3, 17, 256][case % 4];
        let min_leaf = [1, 3][case % 2];
        // Per bin: (first class, second class) weights, small (many
        // exact ties), as large as a 200,000-row node's, or totals
        // near 2^26 (where products of three weights are not exact).
        let scale = [30, 30, 1_000, 80_000][(case / 4) % 4];
        let bins: Vec<(u64, u64)> = (0..n_bins)
            .map(|_| if next(3) == 0 { (0, 0) } else { (next(4) * next(scale), next(4) * next(scale)) })
            .collect();
        let (c0, c1) = bins.iter().fold((0, 0), |(a, b), &(x, y)| (a + x, b + y));
        if c0 + c1 == 0 {
            continue;
        }
        let totals = [(c0 + c1) as f64, c0 as f64, c1 as f64];
        sums[..3].copy_from_slice(&totals);
        let mut cuts = Cuts::new(Kind::Classes(2), min_leaf, 4, totals[0], &mut sums);
        for (b, &(x, y)) in bins.iter().enumerate() {
            if x + y != 0 {
                cuts.add_bin(b as u8, &[(x + y) as f64, x as f64, y as f64]);
            }
        }
        let expected = cuts.best.split;
        let packed: Vec<u64> = bins.iter().map(|&(x, y)| (x + y) | y << 32).collect();
        let found = packed_cut(&packed, min_leaf as f64, 4, totals[0], &totals);
        let bits = |s: Option<Split>| s.map(|(f, l, r, g)| (f, l, r, g.to_bits()));
        assert_eq!(bits(found), bits(expected), "case {case}");
        if n_bins == 2 {
            let (x, y) = bins[0];
            let lower = [(x + y) as f64, x as f64, y as f64];
            let upper = [totals[0] - lower[0], totals[1] - lower[1], totals[2] - lower[2]];
            let two = two_bin_cut(min_leaf as f64, 4, totals[0], &totals, &lower, &upper);
            assert_eq!(bits(two), bits(expected), "case {case}");
            let two_packed = two_bin_packed_cut(min_leaf as f64, 4, totals[0], &totals, packed[1]);
            assert_eq!(bits(two_packed), bits(expected), "case {case}");
        }
    }
}

/// Undivided gains that differ by an ulp or two, some dividing to the
/// same gain, zeros of both signs and cuts too light (-inf), over
/// weights up to 2^32: the first greatest gain is the cut [`Best`]
/// keeps offered one by one.
#[test]
fn an_infinite_gain_is_kept_as_offered_one_by_one() {
    for raw in [vec![1.0, f64::INFINITY, f64::INFINITY], vec![f64::INFINITY], vec![f64::NEG_INFINITY, f64::INFINITY]] {
        let mut best = Best::default();
        for (i, &r) in raw.iter().enumerate().filter(|(_, r)| **r != f64::NEG_INFINITY) {
            best.offer(r, 7.0, (i, 0, 0));
        }
        assert_eq!(first_greatest(&raw, 7.0), best.split.map(|s| s.0), "{raw:?}");
    }
}

#[test]
fn the_first_greatest_gain_is_the_cut_offered_one_by_one_keeps() {
    let mut next = numbers(41);
    let mut collapsed = 0;
    for case in 0..20_000 {
        let total = [3.0, 1_000.0, 123_457.0, 4_294_967_295.0][case % 4];
        let base = [0.0, 1e-300, 0.37, 5.5e3, 1.3e9][next(5) as usize];
        let raw: Vec<f64> = (0..1 + next(12))
            .map(|_| match next(6) {
                0 => f64::NEG_INFINITY,
                1 => -0.0,
                2 => -base,
                _ => f64::from_bits(base.to_bits() + next(4)),
            })
            .collect();
        let mut best = Best::default();
        for (i, &r) in raw.iter().enumerate() {
            if r != f64::NEG_INFINITY {
                best.offer(r, total, (i, 0, 0));
            }
        }
        let expected = best.split.map(|s| s.0);
        assert_eq!(first_greatest(&raw, total), expected, "case {case}: {raw:?} over {total}");
        let gains: Vec<f64> = raw.iter().filter(|r| r.is_finite()).map(|r| r / total).collect();
        collapsed += usize::from(gains.windows(2).any(|w| w[0] == w[1]));
    }
    assert!(collapsed > 1_000, "gains that divide to the same number: {collapsed}");
}

#[test]
fn four_lane_square_changes_equal_one_chain_through_the_classes() {
    let mut draw = numbers(7);
    let mut next = |m: u64| draw(m) as f64;
    for k in [1, 2, 3, 4, 5, 7, 10, 17] {
        for _ in 0..200 {
            let bin: Vec<f64> = (0..k).map(|_| if next(3) == 0.0 { 0.0 } else { next(40) }).collect();
            let left: Vec<f64> = (0..k).map(|_| next(5_000)).collect();
            let totals: Vec<f64> = left.iter().zip(&bin).map(|(l, w)| l + w + next(5_000)).collect();
            let (mut lsq, mut rsq) = (0.0f64, 0.0f64);
            let mut chain = left.clone();
            for ((l, &t), &w) in chain.iter_mut().zip(&totals).zip(&bin) {
                lsq += (2.0 * *l + w) * w;
                rsq -= (2.0 * (t - *l) - w) * w;
                *l += w;
            }
            let mut lanes = left.clone();
            let (dl, dr) = square_changes(&mut lanes, &totals, &bin);
            assert_eq!(lanes, chain);
            assert_eq!((0.0 + dl).to_bits(), lsq.to_bits(), "k {k}");
            assert_eq!((0.0 - dr).to_bits(), rsq.to_bits(), "k {k}");
        }
    }
}
