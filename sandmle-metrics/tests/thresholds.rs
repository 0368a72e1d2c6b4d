//! Medal thresholds of real MLE-bench leaderboards against values computed
//! with MLE-bench's rule and pandas (`tests/fixtures/leaderboards/thresholds.json`).

use sandmle_core::Leaderboard;
use sandmle_metrics::thresholds_from_scores;
use serde::Deserialize;
use std::collections::BTreeMap;

#[derive(Deserialize, Debug)]
struct Expected {
    num_teams: usize,
    is_lower_better: bool,
    gold: f64,
    silver: f64,
    bronze: f64,
    median: f64,
}

#[test]
fn real_leaderboards_give_mlebench_thresholds() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/leaderboards");
    let expected: BTreeMap<String, Expected> =
        serde_json::from_str(&std::fs::read_to_string(format!("{dir}/thresholds.json")).unwrap()).unwrap();
    let mut checked = 0;
    let mut branches = std::collections::BTreeSet::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "csv") {
            continue;
        }
        let name = path.file_stem().unwrap().to_str().unwrap().to_owned();
        let lb = Leaderboard::read(&path).unwrap();
        let t = thresholds_from_scores(&lb.scores()).unwrap();
        let e = &expected[&name];
        assert_eq!(t.num_teams, e.num_teams, "{name}");
        assert_eq!(t.is_lower_better, e.is_lower_better, "{name}");
        assert_eq!((t.gold, t.silver, t.bronze), (e.gold, e.silver, e.bronze), "{name}");
        assert!((t.median - e.median).abs() <= 1e-12 * e.median.abs().max(1.0), "{name}: {} vs {}", t.median, e.median);
        branches.insert(match t.num_teams {
            n if n < 100 => 0,
            n if n < 250 => 1,
            n if n < 1000 => 2,
            _ => 3,
        });
        checked += 1;
    }
    assert_eq!(checked, 8);
    assert_eq!(branches.len(), 4, "every branch of the rule is covered");
}
