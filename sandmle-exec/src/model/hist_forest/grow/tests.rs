//! Tests of the parent module.

use super::*;
use rand::RngExt;
use sandmle_core::rng_for;

/// Nodes on both sides of [`COUNT_SORT_MIN`], with codes from one bin
/// to all 256: the keys come out in (bin, place) order, each place
/// once, as a comparison sort puts them.
#[test]
fn rank_and_counting_sorts_by_bin_order_keys_as_a_comparison_sort() {
    let mut rng = rng_for(7, "sort_by_bin");
    let mut keys = Vec::new();
    let count = COUNT_SORT_MIN;
    for len in [0, 1, 2, 5, 15, 16, 17, count - 1, count, count + 1, 200, 1000] {
        for bins in [1u16, 2, 17, 256] {
            let codes: Vec<u8> = (0..len).map(|_| rng.random_range(0..bins) as u8).collect();
            let mut expected: Vec<u64> =
                codes.iter().enumerate().map(|(i, &c)| (u64::from(c) << 32) | i as u64).collect();
            expected.sort();
            let sorted = sort_by_bin(&mut keys, codes.iter().copied());
            assert_eq!(sorted, &expected[..], "{len} rows, {bins} bins");
            assert!(sorted.iter().all(|&k| codes[key_place(k)] == key_bin(k)));
        }
    }
}

/// Node places never share a word: every node above [`PLACED_DEPTHS`]
/// starts its own window, wide enough for two words a feature, and the
/// last place ends within the stream's 2^68 words.
#[test]
fn node_places_are_disjoint_windows_within_the_stream() {
    for features in [1usize, 202, 1 << 19, (1 << 19) + 1, 1 << 26, 1 << 32] {
        let window = (2 * features as u128).max(1 << 20);
        let mut starts: Vec<u128> = Vec::new();
        for depth in 0..PLACED_DEPTHS {
            for turns in 0..1u64 << depth {
                starts.push(node_place(depth, turns, features).expect("a place"));
            }
        }
        starts.sort_unstable();
        assert!(starts.windows(2).all(|w| w[1] - w[0] >= window), "{features} features");
        assert!(starts.last().unwrap() + window <= 1u128 << 68, "{features} features");
    }
    assert_eq!(node_place(PLACED_DEPTHS, 0, 202), None);
}
