//! Sandboxed code episodes: `StdlibPythonPolicy` writes a standard-library
//! Python program that runs in bubblewrap and scores, and a step past its
//! limit times out. With `SANDMLE_REQUIRE_BWRAP=1` (as CI sets) a machine
//! without a working sandbox fails these tests; without it they are
//! skipped there.

use sandmle_agents::codec::codec_by_name;
use sandmle_agents::reward::reward_by_name;
use sandmle_agents::rollout::{Estimator, StdlibPythonPolicy};
use sandmle_agents::trajectory::validate_line;
use sandmle_agents::{Backends, Episode, EpisodeConfig, Policy, RolloutConfig, Task, Termination};
use sandmle_core::{Executor, Grader};
use std::sync::Arc;
use std::time::Duration;

fn bwrap_or_skip() -> bool {
    let ok = sandmle_exec::bubblewrap_available();
    if !ok {
        assert!(std::env::var_os("SANDMLE_REQUIRE_BWRAP").is_none(), "bubblewrap is required but cannot run here");
        eprintln!("bubblewrap cannot run here: this test is skipped");
    }
    ok
}

fn backends() -> Backends {
    let grader: Arc<dyn Grader> = Arc::new(sandmle_metrics::StandardGrader);
    let code: Arc<dyn Executor> = Arc::new(sandmle_exec::ProcessExecutor::default());
    Backends { grader, code: Some(code), pipeline: None }
}

fn seed(name: &str) -> Task {
    Task::read(format!("{}/../examples/seeds/{name}", env!("CARGO_MANIFEST_DIR"))).unwrap()
}

#[test]
fn stdlib_python_completes_a_sandboxed_code_episode_with_a_valid_submission() {
    if !bwrap_or_skip() {
        return;
    }
    for (name, codec) in [("wine", "sandmle_react"), ("diabetes", "openai_tools"), ("breast_cancer", "hermes_json")] {
        let task = seed(name);
        let codec = codec_by_name(codec).unwrap();
        let config = RolloutConfig {
            episode: EpisodeConfig::default(),
            codec: Arc::clone(&codec),
            reward: reward_by_name("released_dense").unwrap(),
            estimator: Estimator::Grpo,
            seed: 1,
        };
        let spec = task.environment().task().clone();
        let factory = |_: usize, s: u64| -> sandmle_agents::Result<Box<dyn Policy>> {
            Ok(Box::new(StdlibPythonPolicy::new(&spec, s, Arc::clone(&codec))))
        };
        let group = sandmle_agents::rollout_group(&task, &backends(), 2, &factory, &config).unwrap();
        for t in &group.trajectories {
            assert_eq!(t.steps[0].action, "run_code");
            assert_eq!(t.steps[0].status, "completed", "{name}: {:?}", t.completion.get(1));
            assert!(t.final_grade.valid_submission, "{name}: {:?}", t.final_grade.error);
            assert_eq!(t.termination, Termination::Answer);
            assert!(t.reward >= 0.2 + 0.1 - 1e-12, "{name}: valid and formatted ({})", t.reward);
            validate_line(&t.to_json_line().unwrap()).unwrap();
        }
    }
}

#[test]
fn a_code_step_past_its_limit_times_out_and_files_persist() {
    if !bwrap_or_skip() {
        return;
    }
    let config = EpisodeConfig { step_timeout: Duration::from_millis(500), ..EpisodeConfig::default() };
    let mut ep = Episode::new(
        seed("wine"),
        backends(),
        codec_by_name("sandmle_react").unwrap(),
        reward_by_name("released_dense").unwrap(),
        config,
    )
    .unwrap();
    ep.reset().unwrap();
    let code = |c: &str| format!("<think>run</think>\n<tool_call>\npython\n<code>\n{c}\n</code>\n</tool_call>");
    let s = ep.step_text(&code("open('note.txt', 'w').write('kept')\nprint('hello')")).unwrap();
    assert!(s.observation[0].content.contains("[Output]\nhello"), "{}", s.observation[0].content);
    assert!(s.observation[0].content.contains("submission.csv not found"));
    let s = ep.step_text(&code("import time\ntime.sleep(30)")).unwrap();
    assert_eq!(s.info.record.status, "timed_out");
    assert!(s.observation[0].content.contains("Python execution timed out after 0.5s"));
    let s = ep.step_text(&code("print(open('note.txt').read())")).unwrap();
    assert!(s.observation[0].content.contains("kept"), "files persist across steps");
    let last = ep.step_text("<think>stop</think><answer>submission</answer>").unwrap();
    assert!(!last.info.final_grade.unwrap().valid_submission);
}

#[test]
fn the_episode_wall_time_truncates_a_running_step() {
    if !bwrap_or_skip() {
        return;
    }
    let config = EpisodeConfig { episode_time: Duration::from_millis(800), ..EpisodeConfig::default() };
    let mut ep = Episode::new(
        seed("wine"),
        backends(),
        codec_by_name("sandmle_react").unwrap(),
        reward_by_name("released_dense").unwrap(),
        config,
    )
    .unwrap();
    ep.reset().unwrap();
    let s = ep
        .step_text(
            "<think>slow</think>\n<tool_call>\npython\n<code>\nimport time\ntime.sleep(30)\n</code>\n</tool_call>",
        )
        .unwrap();
    assert!(s.truncated);
    assert_eq!(s.info.termination, Some(Termination::TimeLimit));
}
