//! `sandmle rollout --curriculum N`: groups drawn by band with the
//! frontier sampler.

mod common;

use common::{json, sandmle, seed};
use std::path::Path;

fn envs(names: &[&str]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for name in names {
        let env = sandmle_core::Environment::read(Path::new(&seed(name))).unwrap();
        env.write(dir.path().join(name), &Default::default()).unwrap();
    }
    dir
}

fn curriculum(envs: &Path, out: &Path, extra: &[&str]) -> std::process::Output {
    let mut args = vec![
        "rollout",
        "--envs",
        envs.to_str().unwrap(),
        "--policy",
        "panel",
        "--curriculum",
        "6",
        "--group",
        "2",
        "--seed",
        "4",
        "--out",
        out.to_str().unwrap(),
        "--json",
    ];
    args.extend_from_slice(extra);
    sandmle(&args)
}

#[test]
fn a_curriculum_rollout_draws_its_groups_by_band_and_replays() {
    let envs = envs(&["wine", "breast_cancer", "diabetes"]);
    let out = tempfile::tempdir().unwrap();
    let (a, b) = (out.path().join("a.jsonl"), out.path().join("b.jsonl"));
    let o = curriculum(envs.path(), &a, &[]);
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    let v = json(&o);
    assert_eq!(v["trajectories"], 12);
    let groups = v["groups"].as_array().unwrap();
    assert_eq!(groups.len(), 6);
    for g in groups {
        let band = g["band"].as_u64().unwrap();
        assert!((1..=5).contains(&band), "{g}");
        assert_eq!(g["rewards"].as_array().unwrap().len(), 2);
    }
    let again = curriculum(envs.path(), &b, &[]);
    assert_eq!(again.status.code(), Some(0));
    let draws = |v: &serde_json::Value| -> Vec<String> {
        v["groups"]
            .as_array()
            .unwrap()
            .iter()
            .map(|g| format!("{} {} {}", g["task_id"], g["band"], g["rewards"]))
            .collect()
    };
    assert_eq!(draws(&v), draws(&json(&again)), "the same seed replays the same draws and rewards");
}

#[test]
fn a_curriculum_over_an_environment_without_a_band_or_a_bad_pass_mark_is_a_usage_error() {
    let envs = envs(&["wine"]);
    let out = tempfile::tempdir().unwrap();
    let unranked = tempfile::tempdir().unwrap();
    let mut env = sandmle_core::Environment::read(Path::new(&seed("wine"))).unwrap();
    env.leaderboard = None;
    env.write(unranked.path().join("wine"), &Default::default()).unwrap();
    let o = curriculum(unranked.path(), &out.path().join("t.jsonl"), &[]);
    assert_eq!(o.status.code(), Some(2), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(String::from_utf8_lossy(&o.stderr).contains("no difficulty band"));
    let o = curriculum(envs.path(), &out.path().join("t.jsonl"), &["--pass-mark", "2"]);
    assert_eq!(o.status.code(), Some(2), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(String::from_utf8_lossy(&o.stderr).contains("--pass-mark"));
}
