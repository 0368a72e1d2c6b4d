//! What a candidate of each modality costs: realising its plan (the
//! simulator: rows, files, hidden rule and oracle) beside running the
//! baseline panel on the environment it gives, which every candidate pays
//! too. A class seed (`breast_cancer`) recast into every modality of the
//! mix, and a value seed (`bikeshare`) into a forecasting task.
//!
//! `RAYON_NUM_THREADS=1 cargo bench -p sandmle-synth --bench simulators`
//! for the one-core figures.

// criterion_group! generates undocumented public functions.
#![allow(missing_docs)]

#[path = "../tests/common/mod.rs"]
mod common;

use criterion::{Criterion, criterion_group, criterion_main};
use sandmle_core::{MIX_MODALITIES, Modality, PlanRequest};
use sandmle_exec::Panel;
use sandmle_metrics::StandardGrader;
use sandmle_synth::{DnaSynthesizer, extract_dna};
use std::hint::black_box;

fn simulators(c: &mut Criterion) {
    let synth = DnaSynthesizer::default();
    let mut g = c.benchmark_group("simulators");
    g.sample_size(10);
    for &(modality, name) in &MIX_MODALITIES {
        let seed = if modality == Modality::TimeSeries { "bikeshare" } else { "breast_cancer" };
        let dna = extract_dna(&common::seed(seed)).unwrap();
        let request =
            PlanRequest { seed_task: seed.into(), run_seed: 1, index: 0, attempt: 0, modality: Some(modality) };
        let plan = synth.plan(&dna, &request).unwrap();
        let env = synth.realize(&plan).unwrap();
        assert_eq!(env.task().modality, modality, "{name}");
        g.bench_function(format!("synthesize_{name}"), |b| b.iter(|| synth.realize(black_box(&plan)).unwrap()));
        g.bench_function(format!("panel_{name}"), |b| {
            b.iter(|| Panel::default().run(black_box(&env), &StandardGrader).unwrap().leaderboard.entries.len())
        });
    }
    g.finish();
}

criterion_group!(benches, simulators);
criterion_main!(benches);
