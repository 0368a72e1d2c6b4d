//! A curriculum run through real episodes: `rollout_curriculum` with the
//! frontier sampler over a scripted policy whose success depends on the
//! drawn task's band and grows with the run.

use rand_chacha::rand_core::Rng;
use sandmle_agents::codec::codec_by_name;
use sandmle_agents::env::PIPELINE_TOOL;
use sandmle_agents::reward::reward_by_name;
use sandmle_agents::rollout::{Draw, Estimator, FrontierSampler, ScriptedPolicy, rollout_curriculum};
use sandmle_agents::{Backends, EpisodeConfig, Policy, RolloutConfig, Task, ToolSet};
use sandmle_core::{Environment, Executor, Grader};
use std::sync::Arc;

/// The wine seed five times over, one copy per band (each its own id).
fn tasks() -> Vec<(Task, u8)> {
    let env = Environment::read(format!("{}/../examples/seeds/wine", env!("CARGO_MANIFEST_DIR"))).unwrap();
    (1..=5u8)
        .map(|band| {
            let mut e = env.clone();
            e.provenance.seed = u64::from(band);
            (Task::new(e).unwrap(), band)
        })
        .collect()
}

fn backends() -> Backends {
    let grader: Arc<dyn Grader> = Arc::new(sandmle_metrics::StandardGrader);
    let pipeline: Arc<dyn Executor> = Arc::new(sandmle_exec::PipelineExecutor::default());
    Backends { grader, code: None, pipeline: Some(pipeline) }
}

const SPEC: &str = r#"{"name": "logreg", "steps": [{"op": "impute", "strategy": "median"}, {"op": "scale", "method": "standard"}], "model": {"type": "logistic_regression", "c": 1.0}}"#;

const GROUPS: usize = 400;

/// Passes (fits a model and submits it) with probability
/// `1 / (1 + exp(-2.5 (skill - band)))`, the skill growing from 0.5 to 5.5
/// over the run; otherwise answers without a submission.
fn policy(draw: &Draw<'_>, seed: u64) -> Box<dyn Policy> {
    let skill = 0.5 + 5.0 * draw.group as f64 / GROUPS as f64;
    let p = 1.0 / (1.0 + (-2.5 * (skill - f64::from(draw.band))).exp());
    let u = (sandmle_core::rng_for(seed, "pass").next_u64() >> 11) as f64 / (1u64 << 53) as f64;
    let turns = if u < p {
        vec![
            format!(
                "<think>\nFit.\n</think>\n<tool_call>\n{{\"name\": \"{PIPELINE_TOOL}\", \"arguments\": {{\"spec\": {SPEC}}}}}\n</tool_call>"
            ),
            "<think>\nDone.\n</think>\n<answer>submission</answer>".to_owned(),
        ]
    } else {
        vec!["<think>\nDone.\n</think>\n<answer>submission</answer>".to_owned()]
    };
    Box::new(ScriptedPolicy::new(turns))
}

fn mean(v: &[u8]) -> f64 {
    v.iter().map(|&b| f64::from(b)).sum::<f64>() / v.len() as f64
}

#[test]
fn the_bands_a_curriculum_rollout_draws_move_with_the_policy_s_pass_rate() {
    let tasks = tasks();
    let codec = codec_by_name("sandmle_react").unwrap();
    let config = RolloutConfig {
        episode: EpisodeConfig { tools: ToolSet { code: false, pipeline: true }, ..EpisodeConfig::default() },
        codec,
        reward: reward_by_name("released_dense").unwrap(),
        estimator: Estimator::Grpo,
        seed: 11,
        cancel: None,
    };
    let factory =
        |draw: &Draw<'_>, _: usize, seed: u64| -> sandmle_agents::Result<Box<dyn Policy>> { Ok(policy(draw, seed)) };
    let run = || {
        let mut sampler =
            FrontierSampler::new(tasks.iter().map(|(t, b)| (t.id().to_owned(), *b)).collect(), 5).unwrap();
        // A valid submission earns at least 0.2 + 0.1 (valid, format); none earns at most 0.1.
        sampler.pass_mark = 0.25;
        let groups =
            rollout_curriculum(&tasks, &mut sampler, GROUPS, 8, &backends(), &factory, &config, &mut |_| {}).unwrap();
        (groups, sampler.pass_rate(1).unwrap())
    };
    let (groups, easy) = run();
    assert_eq!(groups.len(), GROUPS);
    let passes: Vec<bool> = groups.iter().flat_map(|g| g.group.trajectories.iter().map(|t| t.reward >= 0.25)).collect();
    assert!(passes.iter().any(|&p| p) && passes.iter().any(|&p| !p), "the scripted policy both passes and fails");
    assert!(easy > 0.5, "band 1 is passed more often than not by the end (pass rate {easy:.2})");
    let drawn: Vec<u8> = groups.iter().map(|g| g.band).collect();
    let quarter = GROUPS / 4;
    let (first, last) = (mean(&drawn[..quarter]), mean(&drawn[GROUPS - quarter..]));
    assert!(last - first >= 1.5, "bands drawn: first quarter {first:.2}, last {last:.2}");
    // The same seeds replay the same run.
    let (again, _) = run();
    let rewards = |gs: &[sandmle_agents::rollout::CurriculumGroup]| -> Vec<(usize, Vec<f64>)> {
        gs.iter().map(|g| (g.task, g.group.trajectories.iter().map(|t| t.reward).collect())).collect()
    };
    assert_eq!(rewards(&groups), rewards(&again));
}

#[test]
fn a_sampler_over_other_tasks_is_a_typed_error() {
    let tasks = tasks();
    let codec = codec_by_name("sandmle_react").unwrap();
    let config = RolloutConfig {
        episode: EpisodeConfig::default(),
        codec,
        reward: reward_by_name("released_dense").unwrap(),
        estimator: Estimator::Grpo,
        seed: 0,
        cancel: None,
    };
    let mut sampler = FrontierSampler::new(vec![("elsewhere".into(), 2)], 0).unwrap();
    let factory =
        |draw: &Draw<'_>, _: usize, seed: u64| -> sandmle_agents::Result<Box<dyn Policy>> { Ok(policy(draw, seed)) };
    let e = rollout_curriculum(&tasks, &mut sampler, 1, 2, &backends(), &factory, &config, &mut |_| {}).unwrap_err();
    assert!(e.to_string().contains("elsewhere"), "{e}");
}
