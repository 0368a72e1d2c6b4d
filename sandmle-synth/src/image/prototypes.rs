//! Classes a person can tell apart: each class of a many-class image task
//! is a look — a shape kind, a colour, plain or striped, and one large
//! shape or a group of small ones — and its images show that look under
//! every nuisance (the exact count and size, place, rotation, clutter,
//! blur, noise).

use super::factors::{ImageFactors, SHAPE_KINDS, ShapeKind};
use crate::random::shuffle;
use rand::RngExt;
use sandmle_core::SeedRng;
use serde::{Deserialize, Serialize};

/// The hues a look takes, in degrees (red, amber, green, teal, cyan): far
/// enough apart to tell on sight, and five distinct brightnesses in grey
/// (which shows a hue's warmth, `cos hue`).
pub const LOOK_HUES: [u16; 5] = [0, 50, 95, 135, 180];

/// The visible look of one class.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Look {
    /// The shapes' kind.
    pub shape: ShapeKind,
    /// The shapes' hue, one of [`LOOK_HUES`].
    pub hue: u16,
    /// Whether the shapes are striped.
    pub striped: bool,
    /// A group of three to five small shapes rather than one large one
    /// ([`look_sizes`]): an arrangement seen at a glance, even in a coarse
    /// grid of the pixels.
    #[serde(default)]
    pub group: bool,
}

/// Draws `k` distinct looks (of the 100 there are), no two closer than
/// [`MIN_LOOK_DISTANCE`] where the 100 allow it (twelve looks or more;
/// more than that, some pairs are one step apart), in a random order.
///
/// Design decision: looks drawn at random let two classes differ only
/// where the eye cannot tell them apart (two groups of small shapes of
/// different kinds, three pixels across), which held a ten-class task near
/// chance. Looks as far apart as possible went too far the other way: the
/// three looks of a three-class task differed in everything, the stock
/// baselines matched the hidden rule's own score, and no medal fitted
/// under it. So each look is the next in a random order that keeps
/// [`MIN_LOOK_DISTANCE`] from those taken ([`look_distance`]), the
/// farthest one when none does.
pub fn draw_looks(k: usize, rng: &mut SeedRng) -> Vec<Look> {
    let mut all: Vec<Look> = SHAPE_KINDS
        .iter()
        .flat_map(|&shape| {
            LOOK_HUES.iter().flat_map(move |&hue| {
                [(false, false), (false, true), (true, false), (true, true)].map(move |(striped, group)| Look {
                    shape,
                    hue,
                    striped,
                    group,
                })
            })
        })
        .collect();
    shuffle(&mut all, rng);
    let k = k.min(all.len());
    let mut picked: Vec<Look> = Vec::with_capacity(k);
    // Each look's distance to the nearest one taken.
    let mut nearest: Vec<u32> = vec![u32::MAX; all.len()];
    while picked.len() < k {
        let free = |i: &usize| !picked.contains(&all[*i]);
        let at = (0..all.len()).filter(free).find(|&i| nearest[i] >= MIN_LOOK_DISTANCE).unwrap_or_else(|| {
            (0..all.len())
                .filter(free)
                .fold(usize::MAX, |best, i| if best == usize::MAX || nearest[i] > nearest[best] { i } else { best })
        });
        let look = all[at];
        picked.push(look);
        for (d, other) in nearest.iter_mut().zip(&all) {
            *d = (*d).min(look_distance(&look, other));
        }
    }
    picked
}

/// The number of looks from which [`look_sizes`] keeps shapes large
/// enough to show their kind and stripes.
pub const MANY_LOOKS: usize = 6;

/// The least [`look_distance`] between two classes' looks.
pub const MIN_LOOK_DISTANCE: u32 = 2;

/// How differently two looks read at a glance: a group of small shapes
/// against one large shape counts 2, hues their steps apart in
/// [`LOOK_HUES`] (at most 2), and the kind and the stripes 1 each where
/// both looks are one large shape (a small shape is too small to show
/// either).
pub fn look_distance(a: &Look, b: &Look) -> u32 {
    let step = |hue: u16| LOOK_HUES.iter().position(|&h| h == hue).unwrap_or(0) as u32;
    let mut d = step(a.hue).abs_diff(step(b.hue)).min(2);
    if a.group != b.group {
        d += 2;
    } else if !a.group {
        d += u32::from(a.shape != b.shape) + u32::from(a.striped != b.striped);
    }
    d
}

/// The radii a look's one shape and a group's shapes are drawn at, in
/// percent of a canvas `side` pixels across, for a task of `classes`
/// looks: 11–16 % and 7–10 %; with [`MANY_LOOKS`] or more, never under
/// 5.5 and 3.2 pixels, the least that shows a kind and stripes (so 18–23 %
/// and 10–13 % on a 32-pixel canvas; at most 40–45 % on a tiny one). A
/// group of three or more is drawn at four fifths of its size
/// ([`super::render`]).
///
/// Design decision: a few looks differ in hue and arrangement, which show
/// at any size, and drawn large they were so plain that the stock
/// baselines matched the hidden rule's own score (no medal fitted under
/// it); many looks must also differ in kind and stripes, which a shape
/// four pixels across does not show.
pub fn look_sizes(side: u32, classes: usize) -> (std::ops::RangeInclusive<u8>, std::ops::RangeInclusive<u8>) {
    let least = |pixels: f64, floor: u8| {
        if classes < MANY_LOOKS {
            return floor;
        }
        floor.max((pixels * 100.0 / f64::from(side.max(1))).ceil().min(40.0) as u8)
    };
    let (one, group) = (least(5.5, 11), least(3.2, 7));
    (one..=one + 5, group..=group + 3)
}

/// Labels by the shares (each class its largest-remainder quota of `n`,
/// the rows in random order) and dresses each row's factors in its class's
/// look (its arrangement's count and size for a canvas `side` pixels
/// across, [`look_sizes`], the group's centre within 30
/// to 70 % of each side, the background's
/// spread around its mean cut to a fifth); a `swap` share of rows shows
/// another class's look instead (the label noise). Returns the labels and
/// the class whose look each row shows.
pub fn label_by_looks(
    factors: &mut [ImageFactors],
    looks: &[Look],
    shares: &[f64],
    swap: f64,
    side: u32,
    rng: &mut SeedRng,
) -> (Vec<usize>, Vec<usize>) {
    let (one, group) = look_sizes(side, looks.len());
    let n = factors.len();
    let k = looks.len().min(shares.len());
    let total: f64 = shares[..k].iter().sum::<f64>().max(f64::MIN_POSITIVE);
    let exact: Vec<f64> = shares[..k].iter().map(|s| s / total * n as f64).collect();
    let mut quota: Vec<usize> = exact.iter().map(|x| x.floor() as usize).collect();
    let mut order: Vec<usize> = (0..k).collect();
    order.sort_by(|&a, &b| (exact[b] - exact[b].floor()).total_cmp(&(exact[a] - exact[a].floor())).then(a.cmp(&b)));
    for &c in order.iter().cycle().take(n.saturating_sub(quota.iter().sum())) {
        quota[c] += 1;
    }
    // One paper for the task: the background within a few levels of its
    // mean, so that a look's colour reads the same on every image.
    let centre = (factors.iter().map(|f| f64::from(f.background)).sum::<f64>() / n.max(1) as f64).round() as i16;
    let mut labels: Vec<usize> = quota.iter().enumerate().flat_map(|(c, &q)| std::iter::repeat_n(c, q)).collect();
    shuffle(&mut labels, rng);
    let mut shown_classes = Vec::with_capacity(n);
    for (f, &label) in factors.iter_mut().zip(&labels) {
        let shown = if k > 1 && rng.random_range(0.0..1.0) < swap {
            let other = rng.random_range(0..k - 1);
            if other >= label { other + 1 } else { other }
        } else {
            label
        };
        shown_classes.push(shown);
        let look = looks[shown];
        f.shape = look.shape;
        f.hue = (look.hue + 360 + rng.random_range(0..25u16) - 12) % 360;
        f.stripes = if look.striped { [3, 5, 8][rng.random_range(0..3)] } else { 0 };
        // One large shape or a group of small ones, each large enough to
        // show its kind.
        (f.count, f.size) = if look.group {
            (rng.random_range(3..=5), rng.random_range(group.clone()))
        } else {
            (1, rng.random_range(one.clone()))
        };
        f.background = (centre + (i16::from(f.background) - centre) / 5).clamp(0, 255) as u8;
        // A crop centred on its subject, as a classification set's are:
        // the group's centre within 30 to 70 % of each side.
        (f.x, f.y) = (30 + (f.x - 20) * 2 / 3, 30 + (f.y - 20) * 2 / 3);
    }
    (labels, shown_classes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use sandmle_core::rng_for;

    /// The regression test of ten classes near chance: no two of ten looks
    /// differ in less than two steps a person sees, and they are distinct.
    #[test]
    fn ten_looks_differ_in_what_the_eye_sees() {
        for seed in 0..20 {
            let looks = draw_looks(10, &mut rng_for(seed, "looks"));
            assert_eq!(looks.len(), 10);
            for (i, a) in looks.iter().enumerate() {
                for b in &looks[i + 1..] {
                    assert!(a != b);
                    assert!(look_distance(a, b) >= MIN_LOOK_DISTANCE, "seed {seed}: {a:?} {b:?}");
                }
            }
        }
        // The order and the choice follow the seed.
        assert_ne!(draw_looks(10, &mut rng_for(1, "looks")), draw_looks(10, &mut rng_for(2, "looks")));
        assert_eq!(draw_looks(100, &mut rng_for(1, "looks")).len(), 100);
    }

    /// Many looks on a small canvas are drawn large enough to show a kind
    /// (5.5 pixels a radius), a few or a large canvas at the usual sizes.
    #[test]
    fn many_looks_on_a_small_canvas_are_drawn_large() {
        assert_eq!(look_sizes(64, 10), (11..=16, 7..=10));
        assert_eq!(look_sizes(32, 3), (11..=16, 7..=10));
        assert_eq!(look_sizes(32, 10), (18..=23, 10..=13));
        assert_eq!(look_sizes(0, 10), (40..=45, 40..=43));
    }
}
