//! The documented caps of the command line's count arguments. A value
//! beyond its cap is a usage error (exit 2) before anything is allocated.

/// Most candidates one `synthesize --count` run makes (all are held in
/// memory until their environments are written).
pub const MAX_CANDIDATES: u64 = 10_000;
/// `shrink --train-rows`: the micro task's training rows (as the shrinker).
pub const TRAIN_ROWS: std::ops::RangeInclusive<u64> = 50..=200;
/// Most training rows `panel --max-train-rows` fits on.
pub const MAX_PANEL_ROWS: u64 = 100_000_000;
/// Largest `--k` of `map_at_k`.
pub const MAX_K: u64 = 1_000;

/// A `usize` argument within `range` (a usage error, exit 2, beyond it).
pub fn usize_in(range: std::ops::RangeInclusive<u64>) -> clap::builder::RangedU64ValueParser<usize> {
    clap::builder::RangedU64ValueParser::<usize>::new().range(range)
}
