//! Episodes in each codec driven by scripted assistant texts in SandMLE's
//! format (a lenient parse and a malformed turn included), budgets,
//! delta rewards, advantages and the trajectory rows.

use proptest::prelude::*;
use sandmle_agents::codec::{Call, codec_by_name};
use sandmle_agents::env::{Action, PIPELINE_TOOL};
use sandmle_agents::reward::{format_rate, reward_by_name, tiers};
use sandmle_agents::rollout::{Estimator, PanelPolicy, ScriptedPolicy, advantages};
use sandmle_agents::trajectory::validate_line;
use sandmle_agents::{Backends, Episode, EpisodeConfig, Policy, RewardMode, RolloutConfig, Task, Termination, ToolSet};
use sandmle_core::{Executor, Grader, Message, ToolCall};
use std::sync::Arc;

fn task() -> Task {
    Task::read(format!("{}/../examples/seeds/wine", env!("CARGO_MANIFEST_DIR"))).unwrap()
}

fn backends() -> Backends {
    let grader: Arc<dyn Grader> = Arc::new(sandmle_metrics::StandardGrader);
    let pipeline: Arc<dyn Executor> = Arc::new(sandmle_exec::PipelineExecutor::default());
    Backends { grader, code: None, pipeline: Some(pipeline) }
}

fn config() -> EpisodeConfig {
    EpisodeConfig { tools: ToolSet { code: false, pipeline: true }, ..EpisodeConfig::default() }
}

fn episode(codec: &str, scheme: &str, config: EpisodeConfig) -> Episode {
    Episode::new(task(), backends(), codec_by_name(codec).unwrap(), reward_by_name(scheme).unwrap(), config).unwrap()
}

const SPEC: &str = r#"{"name": "logreg", "steps": [{"op": "impute", "strategy": "median"}, {"op": "scale", "method": "standard"}], "model": {"type": "logistic_regression", "c": 1.0}}"#;

/// SandMLE-format turns: a malformed JSON call, a pipeline call whose
/// `</tool_call>` is missing (the release's leniency), a Score call, an
/// answer.
fn react_turns() -> Vec<String> {
    vec![
        "<think>\nGrade first.\n</think>\n<tool_call>\n{\"name\": \"Score\", \"arguments\": {\n</tool_call>".into(),
        format!("<think>\nFit a linear model.\n</think>\n<tool_call>\n{{\"name\": \"{PIPELINE_TOOL}\", \"arguments\": {{\"spec\": {SPEC}}}}}"),
        "<think>\nGrade it.\n</think>\n<tool_call>\n{\"name\": \"Score\", \"arguments\": {\"competition_id\": \"wine\"}}\n</tool_call>".into(),
        "no reasoning here\n<answer>submission</answer>".into(),
    ]
}

fn expected(scheme: &str, ep: &Episode, format: f64) -> f64 {
    let (_, grade) = ep.outcome().unwrap();
    let [gold, silver, bronze, median] = tiers(Some(grade), ep.task().thresholds());
    let valid = if grade.valid_submission { 1.0 } else { 0.0 };
    let b = |x: bool| if x { 1.0 } else { 0.0 };
    match scheme {
        "released_dense" => {
            let tier = if gold {
                0.7
            } else if silver {
                0.6
            } else if bronze {
                0.5
            } else if median {
                0.1
            } else {
                0.0
            };
            0.2 * valid + tier + 0.1 * format
        }
        "paper_dense" => {
            0.1 * format + 0.3 * valid + 0.1 * b(median) + 0.2 * b(bronze) + 0.2 * b(silver) + 0.1 * b(gold)
        }
        "sparse" => 0.1 * format + 0.9 * b(gold),
        _ => 0.1 * format + 0.9 * grade.human_rank.unwrap_or(0.0),
    }
}

#[test]
fn a_react_episode_reaches_a_scored_submission_under_each_scheme() {
    for scheme in ["released_dense", "paper_dense", "sparse", "human_rank"] {
        let mut ep = episode("sandmle_react", scheme, config());
        let reset = ep.reset().unwrap();
        assert_eq!(reset.messages.len(), 2);
        assert!(reset.messages[1].content.contains(&format!("## Competition ID: {}", ep.task().id())));
        assert!(reset.messages[1].content.contains("- sample_submission.csv"));
        let turns = react_turns();
        let s1 = ep.step_text(&turns[0]).unwrap();
        assert_eq!(s1.info.record.status, "malformed");
        assert!(s1.observation[0].content.contains("Tool call is not a valid JSON"));
        assert!(s1.observation[0].content.starts_with("<tool_response>\n"));
        let s2 = ep.step_text(&turns[1]).unwrap();
        assert_eq!(s2.info.record.action, "run_pipeline");
        assert_eq!(s2.info.record.status, "completed", "{}", s2.observation[0].content);
        let s3 = ep.step_text(&turns[2]).unwrap();
        assert_eq!(s3.info.record.status, "scored");
        assert!(s3.observation[0].content.contains("\"score_primary (main competition metric for current code)\""));
        let s4 = ep.step_text(&turns[3]).unwrap();
        assert!(s4.terminated && !s4.truncated);
        assert_eq!(s4.info.termination, Some(Termination::Answer));
        let total = s4.info.total.clone().unwrap();
        let want = expected(scheme, &ep, 3.0 / 4.0);
        assert!((total.value - want).abs() < 1e-12, "{scheme}: {} vs {want}", total.value);
        let sum: f64 = ep.steps().iter().map(|s| s.reward).sum();
        assert!((sum - total.value).abs() < 1e-9);
        assert!(ep.outcome().unwrap().1.valid_submission);
        assert!(ep.step_text("more").is_err(), "an ended episode takes no step");
    }
}

#[test]
fn a_hermes_episode_and_an_openai_episode_score_under_each_scheme() {
    let spec: serde_json::Value = serde_json::from_str(SPEC).unwrap();
    for scheme in ["released_dense", "paper_dense", "sparse", "human_rank"] {
        // Hermes: results come back as role: tool messages.
        let mut ep = episode("hermes_json", scheme, config());
        ep.reset().unwrap();
        let call = serde_json::json!({"name": PIPELINE_TOOL, "arguments": {"spec": spec}});
        let s = ep.step_text(&format!("<think>fit</think>\n<tool_call>\n{call}\n</tool_call>")).unwrap();
        assert_eq!(s.observation[0].role, sandmle_core::Role::Tool);
        let s = ep
            .step_text("<think>grade</think><tool_call>{\"name\": \"Score\", \"arguments\": {}}</tool_call>")
            .unwrap();
        assert_eq!(s.info.record.status, "scored");
        let last = ep.step_text("<think>done</think>I am done.").unwrap();
        assert_eq!(last.info.termination, Some(Termination::NoToolCall));
        assert!(last.info.final_grade.clone().unwrap().valid_submission);
        let (v, want) = (last.info.total.clone().unwrap().value, expected(scheme, &ep, 1.0));
        assert!((v - want).abs() < 1e-12, "hermes {scheme}: {v} vs {want}");
        // OpenAI: native tool calls, one tool message per call id.
        let mut ep = episode("openai_tools", scheme, config());
        let reset = ep.reset().unwrap();
        assert!(reset.tools.iter().any(|t| t.name == PIPELINE_TOOL));
        let mut m = Message::assistant("<think>fit</think>");
        m.tool_calls.push(ToolCall {
            id: "c1".into(),
            name: PIPELINE_TOOL.into(),
            arguments: serde_json::json!({"spec": spec}),
        });
        m.tool_calls.push(ToolCall { id: "c2".into(), name: "Score".into(), arguments: serde_json::json!({}) });
        let s = ep.step_message(m).unwrap();
        assert_eq!(s.observation.len(), 2);
        assert_eq!(s.observation[1].tool_call_id.as_deref(), Some("c2"));
        let s = ep.step_tool("Score", serde_json::json!({}), "c3").unwrap();
        assert_eq!(s.info.record.status, "scored");
        assert!(!s.info.record.format_ok, "a bare tool call has no reasoning text");
        let last = ep.step_text("<think>done</think>").unwrap();
        assert!(last.terminated);
        // Two of the three assistant turns carry reasoning.
        let (v, want) = (last.info.total.clone().unwrap().value, expected(scheme, &ep, 2.0 / 3.0));
        assert!((v - want).abs() < 1e-12, "openai {scheme}: {v} vs {want}");
    }
}

#[test]
fn react_parsing_is_as_lenient_as_the_release() {
    let codec = codec_by_name("sandmle_react").unwrap();
    let tools = ToolSet::default();
    let parse = |t: &str| codec.parse(&Message::assistant(t), &tools);
    let code = |t: &str| match parse(t).call {
        Call::Action { action: Action::RunCode { code }, .. } => code,
        other => panic!("not code: {other:?}"),
    };
    // The exact format.
    assert_eq!(code("<think>x</think>\n<tool_call>\npython\n<code>\nprint(1)\n</code>\n</tool_call>"), "print(1)");
    // No </tool_call>, no </code>.
    assert_eq!(code("<think>x</think><tool_call>\npython\n<code>\nprint(2)\n"), "print(2)");
    // Several blocks: the last complete one.
    assert_eq!(code("<code>a = 1</code> then <tool_call>python<code>b = 2</code></tool_call>"), "b = 2");
    // Bare code after `python`, no <code> tags.
    assert_eq!(
        code("<tool_call>\npython\nimport os\nprint(os.getcwd())\n</tool_call>"),
        "import os\nprint(os.getcwd())"
    );
    // A tool response the model wrote itself is cut.
    assert!(matches!(
        parse("<tool_call>{\"name\": \"Score\", \"arguments\": {}}</tool_call><tool_response>fake").call,
        Call::Action { action: Action::Score, .. }
    ));
    // Empty code, unknown tools, bad JSON: malformed with the release's messages.
    let malformed = |t: &str| match parse(t).call {
        Call::Malformed { reason, .. } => reason,
        other => panic!("not malformed: {other:?}"),
    };
    assert!(malformed("<tool_call>python\n<code></code></tool_call>").contains("Formatting error"));
    assert!(
        malformed("<tool_call>{\"name\": \"Search\", \"arguments\": {}}</tool_call>").contains("Tool Search not found")
    );
    assert!(malformed("<tool_call>{name: Score}</tool_call>").contains("not a valid JSON"));
    // Neither call nor answer: no call, and the react codec continues.
    let t = parse("<think>just thinking</think>");
    assert_eq!((t.call, t.answer), (Call::None, None));
    // An answer needs both tags.
    assert_eq!(parse("<answer>submission").answer, None);
    assert_eq!(parse("<answer> submission </answer>").answer.as_deref(), Some("submission"));
}

#[test]
fn the_turn_limit_truncates() {
    let mut ep = episode("sandmle_react", "released_dense", EpisodeConfig { max_turns: 3, ..config() });
    ep.reset().unwrap();
    for turn in 1..=3 {
        let s = ep.step_text("<think>thinking, no call</think>").unwrap();
        assert_eq!(s.observation.len(), 0, "the react codec adds no observation to a turn without a call");
        assert_eq!(s.truncated, turn == 3);
    }
    assert_eq!(ep.termination(), Some(Termination::MaxTurns));
    let (value, grade) = ep.outcome().unwrap();
    assert!(!grade.valid_submission, "never scored and no submission.csv");
    assert!((value.value - 0.1).abs() < 1e-12, "format only");
}

#[test]
fn an_episode_out_of_wall_time_is_truncated_without_running_the_action() {
    let cfg = EpisodeConfig { episode_time: std::time::Duration::from_nanos(1), ..config() };
    let mut ep = episode("sandmle_react", "released_dense", cfg);
    ep.reset().unwrap();
    let s = ep.step_text(&react_turns()[1]).unwrap();
    assert!(s.truncated);
    assert_eq!(s.info.record.status, "skipped");
    assert_eq!(s.info.termination, Some(Termination::TimeLimit));
}

#[test]
fn the_best_option_and_terminal_rewards() {
    let cfg = EpisodeConfig { reward_mode: RewardMode::Terminal, graded: sandmle_agents::Graded::Best, ..config() };
    let mut ep = episode("sandmle_react", "released_dense", cfg);
    ep.reset().unwrap();
    let turns = react_turns();
    let rewards: Vec<f64> = [&turns[1], &turns[2], &turns[3]].iter().map(|t| ep.step_text(t).unwrap().reward).collect();
    assert_eq!(rewards[..2], [0.0, 0.0]);
    assert!(rewards[2] > 0.2);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, .. ProptestConfig::default() })]
    /// Delta rewards sum to the terminal reward, whatever the turns.
    #[test]
    fn delta_rewards_sum_to_the_episode_reward(picks in proptest::collection::vec(0usize..6, 1..8)) {
        let menu = {
            let mut m = react_turns();
            m.push("<think>hm</think>".into());
            m.push("plain text".into());
            m
        };
        let mut ep = episode("sandmle_react", "paper_dense", EpisodeConfig { max_turns: 8, ..config() });
        ep.reset().unwrap();
        let mut sum = 0.0;
        for p in picks {
            let s = ep.step_text(&menu[p]).unwrap();
            sum += s.reward;
            if s.terminated || s.truncated {
                break;
            }
        }
        if ep.termination().is_none() {
            let s = ep.step_text("<think>end</think><answer>submission</answer>").unwrap();
            sum += s.reward;
        }
        let total = ep.outcome().unwrap().0.value;
        prop_assert!((sum - total).abs() < 1e-9, "{sum} vs {total}");
        let texts: Vec<String> = ep.completion().iter().filter(|m| m.role == sandmle_core::Role::Assistant).map(|m| m.content.clone()).collect();
        prop_assert!(total >= 0.1 * format_rate(&texts) - 1e-12);
    }
}

#[test]
fn advantages_match_hand_computed_values() {
    let r = [1.0, 0.0, 0.0, 0.0];
    // mean 0.25; sample std sqrt((0.5625 + 3 * 0.0625) / 3) = 0.5.
    let g = advantages(&r, Estimator::Grpo);
    assert_eq!((g.mean, g.std), (0.25, 0.5));
    let want = [0.75 / 0.500001, -0.25 / 0.500001, -0.25 / 0.500001, -0.25 / 0.500001];
    assert!(g.values.iter().zip(want).all(|(a, b)| (a - b).abs() < 1e-12), "{:?}", g.values);
    assert_eq!(advantages(&r, Estimator::DrGrpo).values, vec![0.75, -0.25, -0.25, -0.25]);
    let rloo = advantages(&r, Estimator::Rloo).values;
    // Each reward against the mean of the others: 1 - 0 = 1; 0 - 1/3.
    assert!((rloo[0] - 1.0).abs() < 1e-12 && (rloo[1] + 1.0 / 3.0).abs() < 1e-12);
    let flat = advantages(&[0.3, 0.3, 0.3], Estimator::Grpo);
    assert!(flat.all_equal && flat.values.iter().all(|v| *v == 0.0));
    let one = advantages(&[0.5], Estimator::Grpo);
    assert!(one.singleton && (one.values[0] - 0.5 / 1.000001).abs() < 1e-15);
    assert_eq!(advantages(&[0.5], Estimator::Rloo).values, vec![0.5]);
}

fn panel_specs() -> Vec<serde_json::Value> {
    let t = task();
    let env = t.environment();
    sandmle_exec::Panel::default()
        .specs(env.task(), env.train.n_rows())
        .iter()
        .map(|s| serde_json::to_value(s).unwrap())
        .collect()
}

#[test]
fn a_panel_group_gives_valid_deterministic_trajectory_rows() {
    let t = task();
    let specs = panel_specs();
    let codec = codec_by_name("sandmle_react").unwrap();
    let config = RolloutConfig {
        episode: config(),
        codec: Arc::clone(&codec),
        reward: reward_by_name("released_dense").unwrap(),
        estimator: Estimator::Grpo,
        seed: 7,
        cancel: None,
    };
    let factory = |_: usize, seed: u64| -> sandmle_agents::Result<Box<dyn Policy>> {
        Ok(Box::new(PanelPolicy::new(&specs, 2, seed, Arc::clone(&codec))))
    };
    let run = || sandmle_agents::rollout_group(&t, &backends(), 4, &factory, &config).unwrap();
    let (a, b) = (run(), run());
    assert_eq!(a.trajectories.len(), 4);
    let strip = |tr: &sandmle_agents::Trajectory| {
        let mut v = serde_json::to_value(tr).unwrap();
        v["timing"] = serde_json::Value::Null;
        for s in v["steps"].as_array_mut().unwrap() {
            s["wall_ms"] = serde_json::Value::Null;
        }
        v.to_string()
    };
    for (x, y) in a.trajectories.iter().zip(&b.trajectories) {
        assert_eq!(strip(x), strip(y), "deterministic but for timings");
        validate_line(&x.to_json_line().unwrap()).unwrap();
        assert_eq!(x.episode_id, format!("{}:{}", t.id(), x.rollout_idx));
        assert!(x.final_grade.valid_submission);
        assert_eq!(x.advantage_estimator, "grpo");
    }
    let sum: f64 = a.advantages.values.iter().sum();
    assert!(sum.abs() < 1e-9, "GRPO advantages are centred");
    let sft = sandmle_agents::export::sft_row(&a.trajectories[0]);
    assert_eq!(sft["messages"].as_array().unwrap().len(), a.trajectories[0].messages().len());
    let verl = sandmle_agents::export::verl_row(&t, codec.as_ref(), &config.episode, 0, "wine");
    for key in ["data_source", "prompt", "reward_model", "extra_info"] {
        assert!(verl.get(key).is_some(), "{key}");
    }
    assert!(
        !verl.to_string().contains("answers.csv") && !verl.to_string().contains("private"),
        "no answers in the row"
    );
}

#[test]
fn a_scripted_policy_replays_and_then_answers() {
    let mut p = ScriptedPolicy::new(["a"]);
    assert_eq!(p.act(&[], &[]).unwrap().message.content, "a");
    assert!(p.act(&[], &[]).unwrap().message.content.contains("<answer>submission</answer>"));
}
