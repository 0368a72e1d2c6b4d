//! The same inputs and seed give byte-identical environments whatever the
//! thread count.

use sandmle_core::{BaselinePanel, Environment, Grader, WriteOptions};
use sandmle_exec::Panel;
use sandmle_metrics::StandardGrader;
use sandmle_synth::{DnaSynthesizer, GateVerifier, Generator, extract_dna, funnel};
use std::sync::Arc;

fn generator() -> Generator {
    let grader: Arc<dyn Grader> = Arc::new(StandardGrader);
    let panel: Arc<dyn BaselinePanel> = Arc::new(Panel::default());
    let verifier = Arc::new(GateVerifier::new(Arc::clone(&grader)));
    Generator { synthesizer: Arc::new(DnaSynthesizer::default()), panel, grader, verifier }
}

/// An environment's files: `(path, bytes)`.
type Files = Vec<(String, Vec<u8>)>;

fn rendered(threads: usize) -> (Vec<Files>, sandmle_synth::Funnel) {
    let s = Environment::read(format!("{}/../examples/seeds/oj", env!("CARGO_MANIFEST_DIR"))).unwrap();
    let dna = extract_dna(&s).unwrap();
    let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
    let candidates = pool.install(|| generator().run(&dna, "oj", 4, 2026));
    let envs =
        candidates.iter().filter_map(|c| c.env.as_ref()).map(|e| e.render(&WriteOptions::default()).unwrap()).collect();
    (envs, funnel(&candidates))
}

#[test]
fn one_and_two_threads_give_the_same_bytes() {
    let (one, f1) = rendered(1);
    let (two, f2) = rendered(2);
    assert!(!one.is_empty());
    assert_eq!(f1, f2);
    assert_eq!(one, two);
}
