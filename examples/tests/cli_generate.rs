//! `sandmle shrink`, `synthesize` and `verify` on the bundled real seeds:
//! every gate passes, the funnel is written, and the output directories
//! are byte-identical across runs and thread counts.

mod common;

use common::{json, sandmle_with_threads, seed};

use std::collections::BTreeMap;
use std::path::Path;

/// Every file under `dir`, by relative path.
fn tree(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.insert(p.strip_prefix(dir).unwrap().display().to_string(), std::fs::read(&p).unwrap());
            }
        }
    }
    out
}

#[test]
fn shrink_gives_an_environment_passing_every_gate_with_its_fidelity() {
    for name in ["breast_cancer", "wage", "sms_spam"] {
        let dir = tempfile::tempdir().unwrap();
        let out = sandmle_with_threads(
            &["shrink", "--seed-env", &seed(name), "--seed", "7", "--out", dir.path().to_str().unwrap(), "--json"],
            "2",
        );
        assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
        let v = json(&out);
        let gates = v["gates"].as_array().unwrap();
        assert_eq!(gates.len(), 9);
        assert!(gates.iter().all(|g| g["passed"] == true), "{name}: {gates:#?}");
        let tau = v["fidelity_kendall_tau"].as_f64().unwrap();
        assert!((-1.0..=1.0).contains(&tau));
        let env_dir = v["env"].as_str().unwrap();
        let verify = sandmle_with_threads(&["verify", "--env", env_dir, "--json"], "2");
        assert_eq!(verify.status.code(), Some(0));
        assert_eq!(json(&verify)["passed"], true);
    }
}

#[test]
fn synthesize_writes_kept_environments_and_the_funnel_identically_on_one_and_two_threads() {
    let runs: Vec<(tempfile::TempDir, serde_json::Value)> = ["1", "2", "2"]
        .iter()
        .map(|threads| {
            let dir = tempfile::tempdir().unwrap();
            let out = sandmle_with_threads(
                &[
                    "synthesize",
                    "--seed-env",
                    &seed("oj"),
                    "--count",
                    "4",
                    "--seed",
                    "11",
                    "--out",
                    dir.path().to_str().unwrap(),
                    "--json",
                ],
                threads,
            );
            assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
            (dir, json(&out))
        })
        .collect();
    let (dir, v) = &runs[0];
    let funnel = &v["yield"]["funnel"];
    assert_eq!(funnel["candidates"], 4);
    let kept = funnel["kept"].as_u64().unwrap();
    assert!(kept >= 1, "{funnel}");
    let yield_file: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.path().join("yield.json")).unwrap()).unwrap();
    assert_eq!(&yield_file["funnel"], funnel);
    // Every kept environment passes every gate when verified afresh.
    for id in yield_file["kept"].as_array().unwrap() {
        let env = dir.path().join(id.as_str().unwrap());
        let verify = sandmle_with_threads(&["verify", "--env", env.to_str().unwrap()], "2");
        assert_eq!(verify.status.code(), Some(0), "{}", String::from_utf8_lossy(&verify.stdout));
    }
    // Byte-identical directories: one thread, two threads, and again.
    let first = tree(runs[0].0.path());
    assert_eq!(first.len() as u64, 1 + 8 * kept);
    for (other, _) in &runs[1..] {
        assert_eq!(tree(other.path()), first);
    }
}
