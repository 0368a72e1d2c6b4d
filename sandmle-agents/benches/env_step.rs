#![allow(missing_docs)]
//! Environment overhead per step, excluding the solution's own run: an
//! executor that returns the sample submission at once stands in for the
//! pipeline, so what is timed is reset, parsing, writing the submission,
//! grading, rewarding and rendering (one episode = reset + 3 steps).

use criterion::{Criterion, criterion_group, criterion_main};
use sandmle_agents::codec::codec_by_name;
use sandmle_agents::reward::reward_by_name;
use sandmle_agents::{Backends, Episode, EpisodeConfig, Task, ToolSet};
use sandmle_core::{ExecStatus, Execution, Executor, PublicView, Solution, Timings};
use std::sync::Arc;

struct Instant;

impl Executor for Instant {
    fn name(&self) -> &str {
        "instant"
    }
    fn execute(&self, _: &Solution, task: &PublicView<'_>) -> sandmle_core::Result<Execution> {
        Ok(Execution {
            status: ExecStatus::Completed,
            submission: Some(task.sample_submission.clone()),
            timings: Timings::default(),
            stdout_tail: String::new(),
            stderr_tail: String::new(),
            isolation: "none".into(),
        })
    }
}

fn bench(c: &mut Criterion) {
    let task = Task::read(format!("{}/../examples/seeds/wine", env!("CARGO_MANIFEST_DIR"))).unwrap();
    let backends =
        Backends { grader: Arc::new(sandmle_metrics::StandardGrader), code: None, pipeline: Some(Arc::new(Instant)) };
    let config = EpisodeConfig { tools: ToolSet { code: false, pipeline: true }, ..EpisodeConfig::default() };
    let turns = [
        "<think>fit</think>\n<tool_call>\n{\"name\": \"RunPipeline\", \"arguments\": {\"spec\": {\"model\": {\"type\": \"constant\"}}}}\n</tool_call>",
        "<think>grade</think>\n<tool_call>\n{\"name\": \"Score\", \"arguments\": {\"competition_id\": \"wine\"}}\n</tool_call>",
        "<think>done</think>\n<answer>submission</answer>",
    ];
    for codec in ["sandmle_react", "hermes_json"] {
        let mut ep = Episode::new(
            task.clone(),
            backends.clone(),
            codec_by_name(codec).unwrap(),
            reward_by_name("released_dense").unwrap(),
            config.clone(),
        )
        .unwrap();
        c.bench_function(&format!("episode overhead: reset + 3 steps ({codec}, wine micro-scale)"), |b| {
            b.iter(|| {
                ep.reset().unwrap();
                for t in turns {
                    std::hint::black_box(ep.step_text(t).unwrap());
                }
            })
        });
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
