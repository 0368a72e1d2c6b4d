//! Tests of the parent module.

use super::binning::*;
use super::*;
use sandmle_core::rng_for;

/// 400 rows: two continuous features (many bins), two with few values,
/// one constant; three classes and a noisy value target.
fn fixture() -> (Array2<f64>, Vec<usize>, Vec<f64>) {
    let mut rng = rng_for(16, "fixture");
    let x = Array2::from_shape_fn((400, 5), |(_, j)| match j {
        0 | 1 => rng.random_range(-3.0..3.0),
        2 => f64::from(rng.random_range(0..4u8)),
        3 => f64::from(rng.random_range(0..2u8)),
        _ => 1.0,
    });
    let classes = x.rows().into_iter().map(|r| usize::from(r[0] + r[2] > 1.0) + usize::from(r[1] > 1.5)).collect();
    let values = x.rows().into_iter().map(|r| r[0] * r[0] + 3.0 * r[3] + rng.random_range(-0.5..0.5)).collect();
    (x, classes, values)
}

fn params(max_features: usize) -> HistParams {
    HistParams { n_trees: 8, max_depth: None, min_samples_leaf: 1, max_features, bootstrap: true, keep_inner: None }
}

/// A node that holds only the values 0 and 10 of a feature whose
/// training values are 0, 4, 6 and 10 (rows 4 and 6 out of the tree's
/// bootstrap) splits at 5, midway between its own values, as
/// scikit-learn's trees do: not at 2, the bin edge next to 0, which
/// sent test values 2-5 to the side of 10.
#[test]
fn a_split_lies_midway_between_the_nodes_own_values() {
    let x = Array2::from_shape_vec((4, 1), vec![0.0, 4.0, 6.0, 10.0]).unwrap();
    let bins = Bins::fit(&x, None);
    let y = [0, 0, 1, 1];
    let mut g = Grower::new(&bins, &y, &[], Kind::Classes(2), params(1), 0, grow::Scratch::default());
    g.grow_tree(&mut [0, 3], &[1, 0, 0, 1]);
    let tree = g.finish(&mut grow::Scratch::default());
    let root = tree.nodes[0];
    assert!(!root.is_leaf() && root.feature == 0 && root.threshold == 5.0, "{:?}", tree.nodes);
    assert_eq!(tree.leaf_of(&[4.9]), &[1.0, 0.0]);
    assert_eq!(tree.leaf_of(&[5.1]), &[0.0, 1.0]);
}

/// [`draw`] takes the numbers `random_range` takes from the same
/// stream: small and large ranges, offsets, and ranges near 2^31 and
/// 2^32 whose biased zone (a second draw) is wide.
#[test]
fn draws_are_rands_draws() {
    let ranges = [(0, 1), (0, 2), (0, 3), (3, 10), (0, 1000), (0, 200_000), (5, (1 << 31) + 7), (0, u32::MAX as usize)];
    for (low, high) in ranges {
        let (mut ours, mut rands) = (rng_for(7, "draws"), rng_for(7, "draws"));
        for _ in 0..20_000 {
            assert_eq!(draw(&mut ours, low, high), rands.random_range(low..high), "{low}..{high}");
        }
    }
}

/// Columns come out whole and in order, across blocks (eleven columns
/// are a block of eight and one of three) and from a matrix laid out
/// column by column.
#[test]
fn each_column_is_gathered_whole_and_in_order() {
    let x = Array2::from_shape_fn((5, 11), |(i, j)| (10 * j + i) as f64);
    let by_column = x.t().as_standard_layout().t().to_owned();
    assert!(by_column.as_slice().is_none(), "laid out column by column");
    for x in [x, by_column] {
        let mut seen = Vec::new();
        for_each_column(&x, |col| seen.push(col.to_vec()));
        let columns: Vec<Vec<f64>> = x.columns().into_iter().map(|c| c.to_vec()).collect();
        assert_eq!(seen, columns);
    }
}

/// Columns are binned without a sort: the same edges as sorting
/// finds, on few values (one-hot, `-0.0` beside `0.0`, exactly
/// [`MAX_BINS`] values), on many (one more, continuous, 400 values
/// with duplicates), and left to the sort with a NaN or with zeros of
/// both signs making [`MAX_BINS`] values of one more bit pattern.
#[test]
fn columns_get_the_edges_sorting_gives() {
    let mut rng = rng_for(3, "few_distinct");
    let n = 2000;
    let columns: Vec<Vec<f64>> = vec![
        (0..n).map(|_| f64::from(rng.random_range(0..2u8))).collect(),
        (0..n).map(|_| [-0.0, 0.0, 1.5][rng.random_range(0..3usize)]).collect(),
        (0..n).map(|i| (i % MAX_BINS) as f64 * 0.25 - 3.0).collect(),
        (0..n).map(|i| (i % (MAX_BINS + 1)) as f64).collect(),
        (0..n).map(|_| rng.random_range(-1.0..1.0)).collect(),
        (0..n).map(|i| ((i * 7919) % 400) as f64 * 0.5).collect(),
        (0..n).map(|i| if i == 7 { f64::NAN } else { f64::from(rng.random_range(0..4u8)) }).collect(),
        (0..n).map(|i| if i % 256 == 255 { -0.0 } else { (i % 256) as f64 }).collect(),
    ];
    for (k, col) in columns.iter().enumerate() {
        let edges = match distinct_values(col) {
            Distinct::Few(d, _) => {
                assert!(k < 3, "column {k}: the pass finds few values");
                midpoints(&d)
            }
            Distinct::Many => {
                assert!((3..6).contains(&k), "column {k}: the pass finds many values");
                quantile_cuts(col)
            }
            Distinct::Unsure => {
                assert!(k >= 6, "column {k}: the pass leaves it to the sort");
                sorted_edges(col)
            }
        };
        let sorted = sorted_edges(col);
        assert_eq!(edges.len(), sorted.len(), "column {k}");
        assert!(edges.iter().zip(&sorted).all(|(a, b)| a.to_bits() == b.to_bits()), "column {k}");
    }
    assert_eq!(sorted_edges(&columns[0]), vec![0.5]);
}

/// Selection finds every quantile place's value a sort finds, on
/// distinct values and on values with duplicates, from 256 rows up.
#[test]
fn selected_quantiles_are_the_sorted_ones() {
    let mut rng = rng_for(5, "quantiles");
    for n in [256, 257, 300, 1000, 4099] {
        for distinct in [n, 300] {
            let col: Vec<f64> = (0..n).map(|_| f64::from(rng.random_range(0..distinct as u32)) * 0.37).collect();
            let mut sorted = col.clone();
            sorted.sort_unstable_by(f64::total_cmp);
            let mut expected: Vec<f64> = (1..MAX_BINS).map(|i| sorted[i * n / MAX_BINS]).collect();
            expected.dedup();
            assert_eq!(quantile_cuts(&col), expected, "{n} rows of {distinct} values");
        }
    }
}

/// Each bin's least and greatest value are its rows', whichever way
/// the column was binned: one value per bin, `-0.0` and `0.0` in one
/// bin, two neighbouring floats whose midpoint rounds up to the second
/// (one bin holds both), and quantile bins.
#[test]
fn bins_hold_the_least_and_greatest_value_of_their_rows() {
    let one = 1.0f64;
    let (a, b) = (f64::from_bits(one.to_bits() + 1), f64::from_bits(one.to_bits() + 2));
    assert_eq!(midpoints(&[a, b]), vec![b], "the midpoint rounds up");
    let mut rng = rng_for(4, "bin_bounds");
    let x = Array2::from_shape_fn((600, 4), |(i, j)| match j {
        0 => f64::from(rng.random_range(0..2u8)),
        1 => [-0.0, 0.0, 1.5][i % 3],
        2 => [a, b, 5.0][i % 3],
        _ => rng.random_range(-1.0..1.0),
    });
    let bins = Bins::fit(&x, None);
    for (f, col) in x.columns().into_iter().enumerate() {
        let n = bins.edges[f].len() + 1;
        let (mut lo, mut hi) = (vec![f64::INFINITY; n], vec![f64::NEG_INFINITY; n]);
        for (&v, &c) in col.iter().zip(&bins.codes[f]) {
            lo[c as usize] = lo[c as usize].min(v);
            hi[c as usize] = hi[c as usize].max(v);
        }
        let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&bins.lo[f]), bits(&lo), "feature {f}");
        assert_eq!(bits(&bins.hi[f]), bits(&hi), "feature {f}");
    }
    assert_eq!(bins.codes[2][..3], [0, 0, 2], "the two neighbours share a bin, the next is empty");
}

/// The short routes give what the general ones give: a column's
/// patterns when it has at most two (zeros of both signs, infinities,
/// a NaN, long runs, a third value late in the column) or at most
/// [`MAX_BINS`] rows (sorted whole), and a two-bin column's codes
/// (values on the edge, either side, NaN, infinities).
#[test]
fn short_routes_to_a_columns_patterns_and_codes_give_the_general_answers() {
    let mut rng = rng_for(6, "two_patterns");
    let specials = [0.0, -0.0, 1.0, -1.5, f64::INFINITY, f64::NEG_INFINITY, f64::NAN, 1e-300];
    for case in 0..400 {
        let n = [1, 2, 255, 256, 257, 600][case % 6];
        let a = specials[rng.random_range(0..specials.len())];
        let b = specials[rng.random_range(0..specials.len())];
        let mut col: Vec<f64> = (0..n).map(|_| if rng.random_range(0..3) == 0 { b } else { a }).collect();
        if case % 5 == 0 {
            col[rng.random_range(0..n)] = 7.25;
        }
        if case % 7 == 0 {
            for v in col.iter_mut().step_by(3) {
                *v = specials[rng.random_range(0..specials.len())] + f64::from(rng.random_range(0..40u8));
            }
        }
        let short = two_patterns(&col);
        let general = inserted_patterns(&col);
        let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        if n <= MAX_BINS {
            // Short columns are sorted whole: the same patterns.
            match (sorted_patterns(&col), &general) {
                (Ok(a), Ok(b)) => assert_eq!(bits(&a), bits(b), "{col:?}"),
                (Err(Distinct::Unsure), Err(Distinct::Unsure)) => {}
                _ => panic!("sorted and inserted patterns disagree on {col:?}"),
            }
        }
        if let Some(set) = &short {
            assert_eq!(bits(set), bits(general.as_ref().ok().unwrap()), "{col:?}");
        } else {
            // Left to the loop: a NaN or a third pattern.
            let mut patterns: Vec<u64> = col.iter().map(|x| x.to_bits()).collect();
            patterns.sort_unstable();
            patterns.dedup();
            assert!(col.iter().any(|x| x.is_nan()) || patterns.len() > 2, "{col:?}");
        }
        let edges: Vec<Vec<f64>> = vec![vec![], vec![a], vec![1.0], vec![-0.0], vec![-1.5, 1.0]];
        for e in edges.iter().filter(|e| e.iter().all(|t| !t.is_nan())) {
            let want: Vec<u8> = col.iter().map(|&v| e.partition_point(|&t| t < v) as u8).collect();
            assert_eq!(bin_codes(&col, e), want, "{e:?}");
        }
    }
}

/// A short column's bins from one sort of its rows are the general
/// route's, bit for bit, and the sort declines what it cannot rank
/// (zeros of both signs, a NaN, an infinity's NaN midpoint,
/// neighbouring floats whose midpoint rounds up, long columns); on
/// columns of continuous values, small integers and two values it
/// answers.
#[test]
fn short_columns_ranked_in_one_sort_bin_as_the_general_route() {
    let mut rng = rng_for(7, "ranked_bins");
    let one = 1.0f64;
    let (a, b) = (f64::from_bits(one.to_bits() + 1), f64::from_bits(one.to_bits() + 2));
    let specials = [0.0, -0.0, 1.0, -1.5, f64::INFINITY, f64::NEG_INFINITY, f64::NAN, 1e-300, a, b];
    let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
    let mut answered = 0;
    for case in 0..600 {
        let n = [1, 2, 3, 50, 200, 255, 256][case % 7];
        let mut col: Vec<f64> = match case % 4 {
            0 => (0..n).map(|_| rng.random_range(-3.0..3.0)).collect(),
            1 => (0..n).map(|_| f64::from(rng.random_range(0..9u8))).collect(),
            2 => (0..n).map(|_| f64::from(rng.random_range(0..2u8))).collect(),
            _ => (0..n).map(|_| specials[rng.random_range(0..specials.len())]).collect(),
        };
        if case % 9 == 0 {
            col[rng.random_range(0..n)] = specials[rng.random_range(0..specials.len())];
        }
        let general = column_bins(&col);
        match ranked_bins(&col) {
            Some((e, c, values)) => {
                answered += 1;
                assert_eq!(bits(&e), bits(&general.0), "edges of {col:?}");
                assert_eq!(c, general.1, "codes of {col:?}");
                assert_eq!(bits(&values), bits(&general.2), "least values of {col:?}");
                assert_eq!(bits(&values), bits(&general.3), "greatest values of {col:?}");
            }
            None => assert!(
                n > MAX_BINS
                    || col.iter().any(|v| !v.is_finite())
                    || (col.contains(&0.0) && col.iter().any(|v| v.to_bits() != 0.0f64.to_bits() && *v == 0.0))
                    || (col.contains(&a) && col.contains(&b)),
                "declined {col:?}"
            ),
        }
    }
    assert!(answered > 350, "{answered} of 600 columns ranked");
    assert_eq!(ranked_bins(&[a, b, 2.0]), None, "the midpoint of two neighbours rounds onto the second");
    assert_eq!(ranked_bins(&[-0.0, 0.0, 1.0]), None, "zeros of both signs are one value to the general route");
}

/// Binning the caller's columns gives what binning the matrix gives,
/// and columns that are not the matrix's shape are not read; the
/// codes laid out row by row on first use are the row-major ones.
#[test]
fn bins_of_the_callers_columns_are_the_matrixs_bins() {
    let mut rng = rng_for(5, "caller_columns");
    let x = Array2::from_shape_fn((700, 12), |(i, j)| match j % 4 {
        0 => f64::from(rng.random_range(0..2u8)),
        1 => (i % 7) as f64,
        2 => rng.random_range(-1.0..1.0),
        _ => f64::from(i == 3 * j),
    });
    let owned: Vec<Vec<f64>> = x.columns().into_iter().map(|c| c.to_vec()).collect();
    let columns: Vec<&[f64]> = owned.iter().map(Vec::as_slice).collect();
    let key = |b: &Bins| {
        let bits = |v: &[Vec<f64>]| v.iter().flatten().map(|x| x.to_bits()).collect::<Vec<_>>();
        (
            b.codes.clone(),
            bits(&b.edges),
            bits(&b.lo),
            bits(&b.hi),
            b.records.as_ref().map(|r| (r.places.clone(), r.rows.clone())),
        )
    };
    let from_matrix = Bins::fit(&x, None);
    assert!(from_matrix.records.is_some(), "the twelve features fit in a record");
    assert_eq!(key(&Bins::fit(&x, Some(&columns))), key(&from_matrix));
    // A column short, or one too few: the matrix is binned instead.
    let short: Vec<&[f64]> = columns.iter().map(|c| &c[1..]).collect();
    assert_eq!(key(&Bins::fit(&x, Some(&short))), key(&from_matrix));
    assert_eq!(key(&Bins::fit(&x, Some(&columns[1..]))), key(&from_matrix));
    let row_major: Vec<u8> = (0..x.nrows())
        .flat_map(|r| (0..x.ncols()).map(move |f| (r, f)))
        .map(|(r, f)| from_matrix.codes[f][r])
        .collect();
    assert_eq!(from_matrix.row_codes(), row_major.as_slice());
}

/// Quantile bins (more distinct values than bins) cut between the
/// largest value of the left bin and the smallest of the right one.
#[test]
fn quantile_bins_cut_between_the_values_they_hold() {
    let x = Array2::from_shape_fn((1000, 1), |(i, _)| i as f64);
    let bins = Bins::fit(&x, None);
    assert!(bins.edges[0].len() < 999, "quantile bins");
    let (l, r) = (bins.codes[0][100], bins.codes[0][900]);
    let t = bins.threshold(0, l, r);
    assert_eq!(t, (bins.hi[0][l as usize] + bins.lo[0][r as usize]) / 2.0);
    assert!(bins.hi[0][l as usize] >= 100.0 && bins.lo[0][r as usize] <= 900.0 && t > 100.0 && t < 900.0);
}

/// A cut between a bin holding only -inf and one holding only +inf
/// (a node of quantile bins can hold just those rows): the midpoint is
/// NaN, which marks a leaf, so the threshold is the left value, which
/// sends each value's rows where the fit sent them.
#[test]
fn a_cut_between_minus_and_plus_infinity_is_a_split_not_a_leaf() {
    let inf = f64::INFINITY;
    let bins = Bins {
        codes: vec![vec![0, 1]],
        row_codes: OnceLock::new(),
        row_order: OnceLock::new(),
        edges: vec![vec![0.0]],
        lo: vec![vec![-inf, inf]],
        hi: vec![vec![-inf, inf]],
        records: None,
    };
    let t = bins.threshold(0, 0, 1);
    assert_eq!(t, -inf);
    let split = Node::split(0, 0, t, 1, 2);
    assert!(!split.is_leaf());
    assert_eq!((split.next(0, -inf), split.next(0, inf)), (1, 2));
    // A leaf keeps its payload's place and stays put.
    let leaf = Node::leaf(7, 123_456_789);
    assert!(leaf.is_leaf() && leaf.payload() == 123_456_789);
    assert_eq!((leaf.next(7, -inf), leaf.next(7, f64::NAN), leaf.next(7, 0.0)), (7, 7, 7));
    assert_eq!(std::mem::size_of::<Node>(), 16);
}

/// Rows walked eight at a time reach the leaves a row-by-row walk
/// reaches, whatever the number of rows (a partial last block, one row).
#[test]
fn walking_rows_in_lockstep_finds_each_rows_own_leaf() {
    let (x, classes, values) = fixture();
    let bins = Bins::fit(&x, None);
    for kind in [Kind::Classes(3), Kind::Values] {
        let training = Training { bins: &bins, n: 400, y_class: &classes, y_value: &values, kind };
        let trees = grow_trees(&training, params(2), 11, None, Search::FASTEST).unwrap();
        // Test rows between and beyond the training values, NaN included.
        let mut rng = rng_for(5, "test rows");
        for rows in [1, 7, 8, 9, 13, 64, 101] {
            let test: Vec<f64> =
                (0..rows * 5).map(|i| if i % 37 == 3 { f64::NAN } else { rng.random_range(-4.0..4.0) }).collect();
            for tree in &trees {
                let mut walked = vec![0.0; rows * tree.width];
                predict::add_leaves(tree, &test, 5, &mut walked);
                let one_by_one: Vec<f64> = test.chunks(5).flat_map(|row| tree.leaf_of(row).to_vec()).collect();
                assert_eq!(walked, one_by_one, "{rows} rows");
            }
        }
    }
}

/// A tree's node indices, features and leaf places are 32 bits: the
/// forest takes tables whose every index fits below the split marker,
/// and refuses the others with an error rather than wrapping them.
#[test]
fn forests_refuse_tables_whose_indices_need_more_than_32_bits() {
    assert!(indices_fit(1 << 30, 48, 2));
    assert!(indices_fit(1 << 30, 48, 1), "nodes: fewer than twice the rows");
    assert!(!indices_fit(1 << 31, 48, 2));
    assert!(!indices_fit(1 << 29, 5, 10), "ten classes a leaf");
    assert!(!indices_fit(10, u32::MAX as usize, 2), "features");
    assert!(!indices_fit(usize::MAX, 1, 2), "no overflow");
}

/// Blocks of test rows walked through every tree in turn add each
/// row's leaves in the same order as trees walked one at a time, so
/// the sums are the same bit for bit, whatever the block size.
#[test]
fn blocks_of_rows_and_tree_by_tree_give_the_same_sums() {
    let (x, classes, values) = fixture();
    let bins = Bins::fit(&x, None);
    let mut rng = rng_for(9, "test rows");
    let test: Vec<f64> = (0..101 * 5).map(|_| rng.random_range(-4.0..4.0)).collect();
    for kind in [Kind::Classes(3), Kind::Values] {
        let training = Training { bins: &bins, n: 400, y_class: &classes, y_value: &values, kind };
        let trees = grow_trees(&training, params(2), 5, None, Search::FASTEST).unwrap();
        let sums = |order| predict::leaf_sums(&trees, &test, (5, 101), kind.width(), order);
        let bits = |v: Vec<f64>| v.into_iter().map(f64::to_bits).collect::<Vec<_>>();
        let by_tree = bits(sums(predict::Order::ByTree));
        assert!(by_tree.iter().any(|&b| b != 0));
        for block in [1, 7, 8, 64, 101, 1000] {
            assert_eq!(bits(sums(predict::Order::ByRows(block))), by_tree, "blocks of {block}");
        }
    }
    // The fixture's forest is small: it walks many rows by blocks, rows
    // that fit in cache tree by tree.
    let training = Training { bins: &bins, n: 400, y_class: &classes, y_value: &values, kind: Kind::Values };
    let trees = grow_trees(&training, params(2), 5, None, Search::FASTEST).unwrap();
    assert!(matches!(predict::Order::for_forest(&trees, 5, 100_000), predict::Order::ByRows(_)));
    assert_eq!(predict::Order::for_forest(&trees, 5, 20_000), predict::Order::ByTree);
    assert_eq!(predict::Order::for_forest(&trees, 0, 100_000), predict::Order::ByTree);
}

#[test]
fn batched_histograms_and_presorted_rows_grow_the_trees_the_per_feature_scan_grows() {
    let (x, classes, values) = fixture();
    let bins = Bins::fit(&x, None);
    // Two classes take the packed integer counts.
    let two: Vec<usize> = classes.iter().map(|&c| usize::from(c > 0)).collect();
    let cases = [
        (Kind::Classes(3), 2),
        (Kind::Classes(3), 5),
        (Kind::Classes(2), 2),
        (Kind::Classes(2), 5),
        (Kind::Values, 5),
        (Kind::Values, 1),
    ];
    for (kind, max_features) in cases {
        let y_class = if let Kind::Classes(2) = kind { &two } else { &classes };
        let training = Training { bins: &bins, n: 400, y_class, y_value: &values, kind };
        // Presorted trees take the two-row shortcut, the others search
        // every candidate.
        let grow_with = |batch_min_rows, presort, sort_wide, count_binary, stop_unbeatable, row_order| {
            let two_rows = presort;
            let records = false;
            let search = Search {
                batch_min_rows,
                presort,
                sort_wide,
                count_binary,
                records,
                two_rows,
                stop_unbeatable,
                row_order,
            };
            grow_trees(&training, params(max_features), 7, None, search).unwrap()
        };
        let grow = |batch_min_rows, presort, sort_wide, count_binary| {
            grow_with(batch_min_rows, presort, sort_wide, count_binary, true, true)
        };
        // Every candidate of every node searched, the plain way.
        let scan = grow_with(usize::MAX, false, true, false, false, false);
        assert!(scan.iter().all(|t| t.nodes.len() > 20), "the fixture grows real trees");
        // Features 0 and 1 have more bins than most nodes have rows,
        // features 2-4 at most four, feature 3 two.
        for count in [false, true] {
            let case = format!("{max_features} features, integer counts {count}");
            assert_eq!(scan, grow(usize::MAX, false, true, count), "{case}: every node sorted");
            assert_eq!(
                scan,
                grow_with(usize::MAX, false, true, count, true, false),
                "{case}: every node sorted by ranks or counts"
            );
            assert_eq!(scan, grow(0, false, false, count), "{case}: every node batched, every histogram");
            assert_eq!(
                scan,
                grow(0, false, true, count),
                "{case}: every node batched, wide ones sorted (float counts)"
            );
            assert_eq!(scan, grow(grow::BATCH_MIN_ROWS, false, true, count), "{case}: large nodes batched");
            // Presorted rows (taken when every feature is tried).
            assert_eq!(scan, grow(grow::BATCH_MIN_ROWS, true, true, count), "{case}: presorted");
            let records = grow_trees(&training, params(max_features), 7, None, Search::FASTEST).unwrap();
            assert_eq!(scan, records, "{case}: the fastest search, row records for two classes");
        }
    }
    assert!(bins.records.is_some(), "the fixture's five features fit in a record");
    // A leaf minimum of two: a two-row node with a row of weight one
    // has one side too light.
    let training = Training { bins: &bins, n: 400, y_class: &classes, y_value: &values, kind: Kind::Values };
    let p = HistParams { min_samples_leaf: 2, ..params(5) };
    let scan = Search { presort: false, two_rows: false, ..Search::FASTEST };
    let grow = |search| grow_trees(&training, p, 9, None, search).unwrap();
    assert_eq!(grow(scan), grow(Search { presort: false, ..Search::FASTEST }), "leaf minimum 2, two rows");
    assert_eq!(grow(scan), grow(Search::FASTEST), "leaf minimum 2, presorted");
    // Without bootstrap (a decision tree), every row once.
    for kind in [Kind::Classes(3), Kind::Values] {
        let training = Training { bins: &bins, n: 400, y_class: &classes, y_value: &values, kind };
        let p = HistParams { bootstrap: false, n_trees: 2, ..params(5) };
        let grow = |presort| grow_trees(&training, p, 3, None, Search { presort, ..Search::FASTEST }).unwrap();
        assert_eq!(grow(false), grow(true));
    }
}

/// A two-class node with at least two rows a bin for a feature counts
/// its packed histogram, lists every bin and zeroes them after; a
/// smaller node marks the bins it occupies and zeroes those alone.
/// Nodes of both kinds, on features of 255, 40 and 2 bins one after
/// another, grow the trees the per-feature float scan grows (the
/// fixture of 400 rows never takes the whole listing for a wide
/// feature).
#[test]
fn packed_counts_listed_whole_or_by_marks_grow_the_scanned_trees() {
    let mut rng = rng_for(17, "packed fixture");
    let x = Array2::from_shape_fn((2000, 3), |(_, j)| match j {
        0 => rng.random_range(-3.0..3.0),
        1 => f64::from(rng.random_range(0..40u8)),
        _ => f64::from(rng.random_range(0..2u8)),
    });
    // A rule over all three features, one label in ten flipped: deep
    // trees with nodes of every size.
    let two: Vec<usize> = x
        .rows()
        .into_iter()
        .map(|r| usize::from(r[0] + r[1] / 10.0 + r[2] > 2.0) ^ usize::from(rng.random_range(0..10u8) == 0))
        .collect();
    let bins = Bins::fit(&x, None);
    assert_eq!(bins.edges.iter().map(|e| e.len() + 1).collect::<Vec<_>>(), [255, 40, 2]);
    let training = Training { bins: &bins, n: 2000, y_class: &two, y_value: &[], kind: Kind::Classes(2) };
    let scan_search = Search {
        batch_min_rows: usize::MAX,
        presort: false,
        sort_wide: false,
        count_binary: false,
        records: false,
        two_rows: false,
        stop_unbeatable: false,
        row_order: false,
    };
    for max_features in [1, 3] {
        let grow = |search| grow_trees(&training, params(max_features), 5, None, search).unwrap();
        let scan = grow(scan_search);
        assert!(scan.iter().all(|t| t.nodes.len() > 100), "the fixture grows deep trees");
        let counts = Search { count_binary: true, ..scan_search };
        assert_eq!(scan, grow(counts), "{max_features} features, packed counts per feature");
        assert_eq!(scan, grow(Search::FASTEST), "{max_features} features, the fastest search");
    }
}

/// Two classes over one-hot columns (a byte shared by eight features),
/// a flag and two continuous features: the trees grown over row
/// records in node order are the trees the per-feature counts grow,
/// at every node size and number of candidates.
#[test]
fn row_records_grow_the_trees_the_per_feature_counts_grow() {
    let mut rng = rng_for(3, "one-hot fixture");
    let x = Array2::from_shape_fn((600, 11), |(i, j)| match j {
        0 => rng.random_range(-3.0..3.0),
        1..=8 => f64::from(u8::from((i * 7 + i / 5) % 8 == j - 1)),
        9 => f64::from(rng.random_range(0..2u8)),
        _ => f64::from(rng.random_range(0..40u8)),
    });
    let y: Vec<usize> = x
        .rows()
        .into_iter()
        .map(|r| usize::from(r[0] + r[3] + r[5] - r[9] + r[10] / 20.0 + rng.random_range(-1.0..1.0) > 1.0))
        .collect();
    let bins = Bins::fit(&x, None);
    let records = bins.records.as_ref().expect("four bytes");
    assert_eq!(records.places[1..=8].iter().filter(|p| matches!(p, grow::Place::Member(1, _))).count(), 8);
    let training = Training { bins: &bins, n: 600, y_class: &y, y_value: &[], kind: Kind::Classes(2) };
    for (max_features, bootstrap) in [(1, true), (3, true), (11, true), (3, false)] {
        let p = HistParams { min_samples_leaf: 1 + max_features % 3, bootstrap, ..params(max_features) };
        let grow = |records| grow_trees(&training, p, 21, None, Search { records, ..Search::FASTEST }).unwrap();
        let per_feature = grow(false);
        assert!(per_feature.iter().all(|t| t.nodes.len() > 30), "the fixture grows real trees");
        assert_eq!(grow(true), per_feature, "{max_features} candidates, bootstrap {bootstrap}");
    }
    // A table without two-bin features: records without groups.
    let (x, classes, _) = fixture();
    let x = x.select(ndarray::Axis(1), &[0, 1, 2, 4]);
    let two: Vec<usize> = classes.iter().map(|&c| usize::from(c > 0)).collect();
    let bins = Bins::fit(&x, None);
    assert!(bins.records.as_ref().is_some_and(|r| r.places.iter().all(|p| matches!(p, grow::Place::Bin(_)))));
    let training = Training { bins: &bins, n: 400, y_class: &two, y_value: &[], kind: Kind::Classes(2) };
    let grow = |records| grow_trees(&training, params(2), 4, None, Search { records, ..Search::FASTEST }).unwrap();
    assert_eq!(grow(true), grow(false), "no groups");
}

/// Whether a node below node `at` (at depth `depth`) splits at depth
/// `wanted`.
fn splits_at(t: &Tree, at: usize, depth: u16, wanted: u16) -> bool {
    let node = t.nodes[at];
    !node.is_leaf()
        && (depth == wanted
            || splits_at(t, at + 1, depth + 1, wanted)
            || splits_at(t, node.right as usize, depth + 1, wanted))
}

/// With each node above [`grow::PLACED_DEPTHS`] drawing its candidates
/// from its own place in its tree's stream, a tree grown to depth `d`
/// (at most that) is the unlimited tree of
/// its seed cut at `d`, node for node and payload for payload: for
/// classes (two classes over row records included) and values,
/// sampled candidates or all, leaf minimums, bootstrap or not, and
/// cuts from the root down to [`grow::PLACED_DEPTHS`], past
/// [`grow::CUT_DEPTHS`] (with one stream per depth above 6, cuts below
/// 6 were not the trees grown).
#[test]
fn a_tree_grown_to_a_depth_is_the_unlimited_tree_cut_there() {
    let (x, classes, values) = fixture();
    let two: Vec<usize> = classes.iter().map(|&c| usize::from(c > 0)).collect();
    let bins = Bins::fit(&x, None);
    assert!(bins.records.is_some(), "two classes grow over row records");
    let (mut cuts, mut refused) = (0, 0);
    let kinds = [
        ("3 classes", Kind::Classes(3), &classes),
        ("2 classes", Kind::Classes(2), &two),
        ("values", Kind::Values, &classes),
    ];
    for (name, kind, y_class) in kinds {
        let training = Training { bins: &bins, n: 400, y_class, y_value: &values, kind };
        // Cuts at 7 and 8 end on split nodes of some tree of the kind.
        let mut splits_at_7 = false;
        for (max_features, min_samples_leaf, bootstrap) in [(2, 1, true), (5, 1, true), (3, 4, true), (5, 1, false)] {
            let p = HistParams { min_samples_leaf, bootstrap, n_trees: 4, ..params(max_features) };
            let deepest = HistParams { keep_inner: Some(8), ..p };
            let full = grow_trees(&training, deepest, 5, None, Search::FASTEST).unwrap();
            assert!(
                full.iter().any(|t| t.cut(4).is_some_and(|c| c.nodes.len() < t.nodes.len())),
                "{name}: deeper than 4"
            );
            splits_at_7 |= full.iter().any(|t| splits_at(t, 0, 0, 7));
            for depth in [0, 1, 2, 4, 6, 7, 8] {
                let limited = HistParams { max_depth: Some(depth), ..p };
                let grown = grow_trees(&training, limited, 5, None, Search::FASTEST).unwrap();
                let cut: Vec<Tree> = full.iter().map(|t| t.cut(depth).unwrap()).collect();
                let case = format!("{name}, {max_features} candidates, leaf {min_samples_leaf}, depth {depth}");
                assert_eq!(cut, grown, "{case}");
                cuts += 1;
            }
            // A cut where a node splits below the payloads kept (at
            // depth 9) is refused; one where none does is the tree.
            for t in &full {
                assert_eq!(t.cut(9).is_none(), splits_at(t, 0, 0, 9), "{name}");
                refused += usize::from(t.cut(9).is_none());
            }
        }
        assert!(splits_at_7, "{name}: some tree splits at depth 7");
    }
    assert_eq!(cuts, 84);
    assert!(refused > 0);
}
