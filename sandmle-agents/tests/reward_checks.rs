//! Reward validation on real environments: the bundled seeds pass every
//! check under the default scheme; the checks find what they are for — a
//! scheme that pays constants (`human_rank` against a leaderboard with
//! constant entries), a median threshold a useless submission reaches.

mod common;

use sandmle_agents::reward::{HumanRank, ReleasedDense};
use sandmle_agents::reward_check::validate_rewards;
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
