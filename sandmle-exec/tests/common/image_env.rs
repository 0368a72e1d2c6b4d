//! An image environment built in code: `side` x `side` images of noise
//! with a bright square in the left half (label 0) or the right half
//! (label 1). Shared by the image tests and the image bench.
#![allow(dead_code)]

use sandmle_core::{
    Column, Direction, Environment, GradingSpec, ImageSet, ImageSpec, MetricSpec, Modality, Pixels, Provenance, Table,
    TaskKind, TaskSpec, encode_png,
};

/// A small deterministic generator (SplitMix64), so the images do not
/// depend on any crate's random stream.
pub struct Mix(pub u64);

impl Mix {
    /// The next 64 random bits.
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `0..n`.
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// One image: noise in `0..60`, a `side / 4` square of `180..256` whose
/// left edge is in the left half (`right == false`) or the right half.
pub fn square_image(rng: &mut Mix, side: u32, channels: u8, right: bool) -> Pixels {
    let sq = (side / 4).max(1);
    let half = side / 2;
    let x0 = if right { half } else { 0 } + rng.below(u64::from(half - sq + 1)) as u32;
    let y0 = rng.below(u64::from(side - sq + 1)) as u32;
    let mut data = Vec::with_capacity((side * side) as usize * channels as usize);
    for y in 0..side {
        for x in 0..side {
            let inside = (x0..x0 + sq).contains(&x) && (y0..y0 + sq).contains(&y);
            for c in 0..channels {
                let v = if c == 3 {
                    255
                } else if inside {
                    180 + rng.below(76)
                } else {
                    rng.below(60)
                };
                data.push(v as u8);
            }
        }
    }
    Pixels { width: side, height: side, channels, data }
}

fn ids(prefix: &str, n: usize) -> Column {
    Column::Text((0..n).map(|i| Some(format!("{prefix}{i}").into())).collect())
}

/// A binary image task scored by ROC AUC: `n_train` and `n_test` rows of
/// `side` x `side` images with `channels` channels; labels alternate with
/// a 10 % share flipped (label noise).
pub fn square_environment(n_train: usize, n_test: usize, side: u32, channels: u8, seed: u64) -> Environment {
    let mut rng = Mix(seed);
    let mut images = ImageSet::new();
    let mut split = |prefix: &str, n: usize, rng: &mut Mix| -> Vec<f64> {
        (0..n)
            .map(|i| {
                let right = rng.below(2) == 1;
                let img = square_image(rng, side, channels, right);
                images.insert(format!("{prefix}{i}.png"), encode_png(&img).unwrap()).unwrap();
                let flipped = rng.below(10) == 0;
                if right != flipped { 1.0 } else { 0.0 }
            })
            .collect()
    };
    let y_train = split("tr", n_train, &mut rng);
    let y_test = split("te", n_test, &mut rng);
    let task = TaskSpec {
        id: "squares".into(),
        modality: Modality::Image,
        kind: TaskKind::BinaryClassification,
        id_column: "id".into(),
        target_columns: vec!["label".into()],
        prediction_columns: vec!["label".into()],
        metric: MetricSpec::named("roc_auc"),
        direction: Direction::HigherIsBetter,
        images: Some(ImageSpec::png(side, side, channels)),
        train_only_columns: Vec::new(),
        group_column: None,
    };
    Environment {
        description: "# Squares\n\nIs the bright square in the right half?\n".into(),
        train: Table::from_columns([("id", ids("tr", n_train)), ("label", Column::Numeric(y_train))]).unwrap(),
        test: Table::from_columns([("id", ids("te", n_test))]).unwrap(),
        sample_submission: Table::from_columns([
            ("id", ids("te", n_test)),
            ("label", Column::Numeric(vec![0.5; n_test])),
        ])
        .unwrap(),
        answers: Table::from_columns([("id", ids("te", n_test)), ("label", Column::Numeric(y_test))]).unwrap(),
        grading: GradingSpec::new(task),
        leaderboard: None,
        provenance: Provenance::new("squares", "hand-made", "1", seed),
        images,
    }
}
