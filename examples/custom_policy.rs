//! A policy written outside the library crates plugs into
//! `rollout_group`: it runs one ridge or logistic-regression pipeline spec
//! (with a regularisation strength drawn from its seed), scores it, and
//! answers — in whatever codec the rollout uses.
//!
//! Run with `cargo run --release --example custom_policy`.

use sandmle_agents::codec::{Codec, codec_by_name};
use sandmle_agents::reward::reward_by_name;
use sandmle_agents::rollout::Estimator;
use sandmle_agents::{Action, EpisodeConfig, Policy, PolicyTurn, RolloutConfig, Task, ToolSet};
use sandmle_core::{Message, SubmissionForm, ToolSpec};
use std::sync::Arc;
use std::time::Duration;

/// One linear pipeline, then Score, then the answer.
struct LinearPolicy {
    codec: Arc<dyn Codec>,
    plan: Vec<Action>,
    turn: usize,
}

impl LinearPolicy {
    fn new(task: &Task, seed: u64, codec: Arc<dyn Codec>) -> Self {
        let strength = [0.1, 1.0, 10.0][(seed % 3) as usize];
        let model = if task.environment().task().submission_form() == SubmissionForm::Value {
            serde_json::json!({"type": "ridge", "alpha": strength})
        } else {
            serde_json::json!({"type": "logistic_regression", "c": strength})
        };
        let spec = serde_json::json!({
            "name": "linear",
            "steps": [{"op": "impute", "strategy": "median"}, {"op": "encode", "method": "one_hot", "max_levels": 20},
                      {"op": "scale", "method": "standard"}],
            "model": model,
        });
        let plan = vec![Action::RunPipeline { spec }, Action::Score, Action::Finish { answer: "submission".into() }];
        LinearPolicy { codec, plan, turn: 0 }
    }
}

impl Policy for LinearPolicy {
    fn name(&self) -> &str {
        "linear"
    }

    fn act(&mut self, _messages: &[Message], _tools: &[ToolSpec]) -> sandmle_agents::Result<PolicyTurn> {
        let action = self.plan.get(self.turn).cloned().unwrap_or(Action::Finish { answer: "submission".into() });
        let message = self.codec.assistant_turn("A regularised linear model.", &action, &format!("c{}", self.turn));
        self.turn += 1;
        Ok(PolicyTurn { message, tokens: None })
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let backends = sandmle::rl_backends(Duration::from_secs(300), false);
    for (seed, codec_name) in
        [("wine", "sandmle_react"), ("diabetes", "openai_tools"), ("breast_cancer", "hermes_json")]
    {
        let task = Task::read(sandmle::repository_seeds().join(seed))?;
        let codec = codec_by_name(codec_name).ok_or("unknown codec")?;
        let config = RolloutConfig {
            episode: EpisodeConfig { tools: ToolSet { code: false, pipeline: true }, ..EpisodeConfig::default() },
            codec: Arc::clone(&codec),
            reward: reward_by_name("released_dense").ok_or("unknown reward")?,
            estimator: Estimator::Rloo,
            seed: 3,
            cancel: None,
        };
        let factory = |_: usize, s: u64| -> sandmle_agents::Result<Box<dyn Policy>> {
            Ok(Box::new(LinearPolicy::new(&task, s, Arc::clone(&codec))))
        };
        let group = sandmle_agents::rollout_group(&task, &backends, 3, &factory, &config)?;
        for t in &group.trajectories {
            if !t.final_grade.valid_submission {
                return Err(format!("{seed}: invalid submission: {:?}", t.final_grade.error).into());
            }
        }
        let rewards: Vec<String> = group.trajectories.iter().map(|t| format!("{:.3}", t.reward)).collect();
        let adv: Vec<String> = group.advantages.values.iter().map(|a| format!("{a:+.3}")).collect();
        println!("{seed:<14} {codec_name:<14} rewards [{}]  rloo [{}]", rewards.join(", "), adv.join(", "));
    }
    Ok(())
}
