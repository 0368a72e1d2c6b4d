//! Each scheme's value table, pinned from the formulas by hand, with the
//! release's corner cases: inclusive thresholds (a score equal to the
//! median earns the median tier though the grader's `above_median` is
//! strict), one tier only, invalid submissions, lower-is-better.

use sandmle_agents::reward::{RewardInput, format_rate, reward_by_name};
use sandmle_core::{Direction, GradeReport, Leaderboard, LeaderboardEntry, Thresholds};

fn higher() -> Thresholds {
    Thresholds { num_teams: 5, is_lower_better: false, gold: 0.9, silver: 0.8, bronze: 0.7, median: 0.5 }
}

fn board() -> Leaderboard {
    let entries = [0.95, 0.9, 0.8, 0.6, 0.5]
        .iter()
        .enumerate()
        .map(|(i, s)| LeaderboardEntry { name: format!("b{i}"), score: *s })
        .collect();
    Leaderboard { entries }
}

fn value(scheme: &str, score: Option<f64>, format: f64, t: &Thresholds, d: Direction) -> f64 {
    let lb = board();
    let grade = match score {
        Some(s) => GradeReport::scored(s, d, Some(t), Some(&lb)),
        None => GradeReport::invalid(d, Some(t), "bad"),
    };
    let r = reward_by_name(scheme).unwrap();
    let v = r.reward(&RewardInput { format_rate: format, grade: Some(&grade), thresholds: t });
    let sum: f64 = v.breakdown.values().sum();
    assert!((sum - v.value).abs() < 1e-12, "the breakdown sums to the value");
    v.value
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-12
}

/// (score, released, paper, sparse, human_rank) at format rate 1 and 0.5.
#[test]
fn value_tables_higher_is_better() {
    let t = higher();
    let d = Direction::HigherIsBetter;
    // HumanRank on [0.95, 0.9, 0.8, 0.6, 0.5]: position = 1 + strictly better.
    #[rustfmt::skip]
    let table: [(Option<f64>, f64, f64, f64, f64); 9] = [
        (Some(0.95), 0.9, 0.9, 0.9, 0.9),              // gold; rank 5/5
        (Some(0.9), 0.9, 0.9, 0.9, 0.9 * 4.0 / 5.0),   // = gold: gold (inclusive); rank 4/5
        (Some(0.85), 0.8, 0.8, 0.0, 0.9 * 3.0 / 5.0),  // silver
        (Some(0.8), 0.8, 0.8, 0.0, 0.9 * 3.0 / 5.0),   // = silver
        (Some(0.75), 0.7, 0.6, 0.0, 0.9 * 2.0 / 5.0),  // bronze
        (Some(0.6), 0.3, 0.4, 0.0, 0.9 * 2.0 / 5.0),   // >= median
        (Some(0.5), 0.3, 0.4, 0.0, 0.9 * 1.0 / 5.0),   // = median: the median tier (inclusive)
        (Some(0.4), 0.2, 0.3, 0.0, 0.0),               // valid, below every tier
        (None, 0.0, 0.0, 0.0, 0.0),                    // invalid
    ];
    for (score, released, paper, sparse, rank) in table {
        for f in [1.0, 0.5] {
            assert!(close(value("released_dense", score, f, &t, d), released + 0.1 * f), "{score:?} {f}");
            assert!(close(value("paper_dense", score, f, &t, d), paper + 0.1 * f), "{score:?} {f}");
            assert!(close(value("sparse", score, f, &t, d), sparse + 0.1 * f), "{score:?} {f}");
            assert!(close(value("human_rank", score, f, &t, d), rank + 0.1 * f), "{score:?} {f}");
        }
    }
}

#[test]
fn one_tier_only_and_lower_is_better() {
    let t = Thresholds { num_teams: 5, is_lower_better: true, gold: 0.1, silver: 0.2, bronze: 0.3, median: 0.5 };
    let d = Direction::LowerIsBetter;
    for (score, released) in [(0.05, 0.9), (0.1, 0.9), (0.2, 0.8), (0.25, 0.7), (0.5, 0.3), (0.51, 0.2)] {
        assert!(close(value("released_dense", Some(score), 0.0, &t, d), released), "{score}");
    }
    // Gold gives 0.7, not 0.7 + 0.6 + 0.5 + 0.1.
    assert!(close(value("released_dense", Some(0.0), 0.0, &t, d), 0.9));
}

#[test]
fn format_rate_is_the_share_of_turns_starting_with_a_non_empty_think() {
    let turns = [
        "<think>plan</think><tool_call>x</tool_call>",
        "  \n<think>\nleading whitespace is fine\n</think>",
        "<think>   </think>empty body",
        "text first <think>late</think>",
        "<think>never closed",
        "</think><think>closed before opened",
    ];
    assert!(close(format_rate(&turns), 2.0 / 6.0));
    assert_eq!(format_rate::<&str>(&[]), 0.0);
}

#[test]
fn nothing_graded_is_worth_the_format_term_only() {
    let t = higher();
    for scheme in ["released_dense", "paper_dense", "sparse", "human_rank"] {
        let r = reward_by_name(scheme).unwrap();
        let v = r.reward(&RewardInput { format_rate: 1.0, grade: None, thresholds: &t });
        assert!(close(v.value, 0.1), "{scheme}");
    }
}
