//! Times a pipeline spec on an environment, end to end, and prints one JSON
//! line: median milliseconds per phase (`ms`) and every run's milliseconds
//! per phase (`runs`). Used by
//! `benches/compare_sklearn.py` to compare with scikit-learn side by side.
//!
//! `cargo run --release -p sandmle-exec --example pipeline_timing -- ENV_DIR SPEC.json REPS`

use sandmle_core::{Environment, Grader};
use sandmle_exec::{PipelineExecutor, PipelineSpec};
use sandmle_metrics::StandardGrader;
use std::collections::BTreeMap;
use std::time::Instant;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let (dir, spec_path) = (&args[1], &args[2]);
    let reps: usize = args.get(3).map_or(Ok(5), |r| r.parse())?;
    let spec = PipelineSpec::from_json(&serde_json::from_str(&std::fs::read_to_string(spec_path)?)?)?;
    let mut phases: BTreeMap<String, Vec<f64>> = BTreeMap::new();
    let mut score = f64::NAN;
    for _ in 0..reps {
        let total = Instant::now();
        let start = Instant::now();
        let env = Environment::read(dir)?;
        phases.entry("load".into()).or_default().push(start.elapsed().as_secs_f64() * 1e3);
        let run = PipelineExecutor::default().run(&spec, &env.public_view())?;
        for (phase, us) in &run.timings.phases {
            phases.entry(phase.clone()).or_default().push(*us as f64 / 1e3);
        }
        let start = Instant::now();
        score = StandardGrader.grade(&env.grading_task(), &run.submission)?.score.unwrap_or(f64::NAN);
        phases.entry("grade".into()).or_default().push(start.elapsed().as_secs_f64() * 1e3);
        phases.entry("total".into()).or_default().push(total.elapsed().as_secs_f64() * 1e3);
    }
    let medians: BTreeMap<&String, f64> = phases
        .iter()
        .map(|(k, v)| {
            let mut v = v.clone();
            v.sort_by(f64::total_cmp);
            (k, v[v.len() / 2])
        })
        .collect();
    println!("{}", serde_json::json!({"ms": medians, "runs": phases, "score": score, "reps": reps}));
    Ok(())
}
