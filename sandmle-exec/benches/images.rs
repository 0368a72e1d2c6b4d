//! Image tasks: featurizing 600 images of 32 x 32 RGB (a 200-train,
//! 400-test environment: decode + features + tables), the whole
//! baseline panel on that environment, and featurizing the 1,028 grey
//! 32 x 32 images of a `digits_png` environment (200 train, 828 test).
//!
//! `RAYON_NUM_THREADS=1 cargo bench -p sandmle-exec --bench images` for the
//! one-core figures.

// criterion_group! generates undocumented public functions.
#![allow(missing_docs)]

#[path = "../tests/common/image_env.rs"]
mod image_env;

use criterion::{Criterion, criterion_group, criterion_main};
use sandmle_exec::Panel;
use sandmle_exec::image::image_feature_tables;
use sandmle_metrics::StandardGrader;
use std::hint::black_box;

fn images(c: &mut Criterion) {
    let env = image_env::square_environment(200, 400, 32, 3, 7);
    let mut g = c.benchmark_group("images_32x32_rgb");
    g.sample_size(20);
    g.bench_function("featurize_600", |b| {
        b.iter(|| image_feature_tables(black_box(&env.public_view())).unwrap().0.n_cols())
    });
    g.bench_function("panel_200_train_400_test", |b| {
        b.iter(|| Panel::default().run(black_box(&env), &StandardGrader).unwrap().leaderboard.entries.len())
    });
    g.finish();
    // The shape of a `digits_png` environment: 200 train and 828 test
    // images of 32 x 32 grey.
    let grey = image_env::square_environment(200, 828, 32, 1, 7);
    let mut g = c.benchmark_group("images_32x32_grey");
    g.sample_size(20);
    g.bench_function("featurize_1028", |b| {
        b.iter(|| image_feature_tables(black_box(&grey.public_view())).unwrap().0.n_cols())
    });
    g.finish();
}

criterion_group!(benches, images);
criterion_main!(benches);
