//! Reward validation on real environments: the bundled seeds pass every
//! check under the default scheme; the checks find what they are for — a
//! scheme that pays constants (`human_rank` against a leaderboard with
//! constant entries), a median threshold a useless submission reaches.

mod common;

use sandmle_agents::reward::{HumanRank, ReleasedDense};
use sandmle_agents::reward_check::{difficulty_of, validate_rewards};
use sandmle_core::{Ceiling, Difficulty};
use sandmle_metrics::StandardGrader;

#[test]
fn every_seed_passes_every_reward_check_under_the_default_scheme() {
    for name in ["wine", "digits_png", "diabetes", "sms_spam", "oj", "breast_cancer"] {
        let env = common::seed(name).env;
        let r = validate_rewards(&env, &StandardGrader, &ReleasedDense).unwrap();
        // 0.2 valid + 0.7 gold + 0.1 format, and 0.2 valid + 0.1 format.
        assert!((r.max - 1.0).abs() < 1e-12 && (r.floor - 0.3).abs() < 1e-12, "{name}: {} {}", r.max, r.floor);
        assert!(r.passed(), "{name}: {:?}", r.checks);
        assert_eq!(r.checks.len(), 7);
    }
}

#[test]
fn a_scheme_that_pays_a_constant_is_found_out() {
    let env = common::seed("wine").env;
    let r = validate_rewards(&env, &StandardGrader, &HumanRank).unwrap();
    let failed = r.failed();
    assert!(failed.contains(&"constant_at_most_floor".to_owned()), "{failed:?}");
    assert!(failed.contains(&"sample_at_most_floor".to_owned()), "{failed:?}");
    for kept in ["answers_score_the_maximum", "hostile_at_most_floor", "replay_is_identical"] {
        assert!(!failed.contains(&kept.to_owned()), "{kept}: {failed:?}");
    }
}

#[test]
fn a_median_threshold_a_constant_reaches_is_found_out() {
    let mut env = common::seed("wine").env;
    // wine is log loss, lower is better: a median above the constant's score.
    let t = env.grading.thresholds.as_mut().unwrap();
    t.median = 5.0;
    let r = validate_rewards(&env, &StandardGrader, &ReleasedDense).unwrap();
    let constant = r.checks.iter().find(|c| c.name == "constant_at_most_floor").unwrap();
    assert!(!constant.passed && constant.reward > r.floor, "{constant:?}");
}

/// Difficulty from the panel leaderboard, the gold threshold (no oracle)
/// and the sample's score; a recorded one wins; a human leaderboard has none.
#[test]
fn difficulty_is_measured_from_the_stock_panel_or_read_where_recorded() {
    let mut env = common::seed("wine").env;
    let d = difficulty_of(&env, &StandardGrader).unwrap().unwrap();
    assert_eq!(d.ceiling, Ceiling::Gold);
    assert_eq!(d.best_baseline, env.leaderboard.as_ref().unwrap().entries[0].score);
    assert!((d.value, d.band) == (0.0, 1), "the panel's best beats its own gold: {d:?}");
    // An oracle beyond every baseline (log loss: lower is better): the
    // share of the road from the constant (1.09861) the best baseline
    // (0.01116) leaves, (0.01116 + 1) / (1.09861 + 1).
    env.provenance.details.insert("oracle".into(), serde_json::json!({"score": -1.0}));
    let d = difficulty_of(&env, &StandardGrader).unwrap().unwrap();
    assert_eq!(d.ceiling, Ceiling::Oracle);
    assert!((d.value - 1.01116 / 2.09861).abs() < 1e-9 && d.band == 3, "{d:?}");
    let recorded =
        Difficulty::measure(sandmle_core::Direction::HigherIsBetter, (Ceiling::Gold, 1.0), 0.5, 0.0).unwrap();
    env.provenance.details.insert("difficulty".into(), serde_json::to_value(recorded).unwrap());
    assert_eq!(difficulty_of(&env, &StandardGrader).unwrap(), Some(recorded));
    // An imported competition with a human leaderboard: no stock baseline.
    let mut human = common::seed("wine").env;
    human.provenance.details.remove("panel");
    assert_eq!(difficulty_of(&human, &StandardGrader).unwrap(), None);
}
