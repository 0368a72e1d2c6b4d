//! `sandmle shrink`, `generate` and `verify` on the bundled real seeds:
//! every gate passes, the funnel is written, and the output directories
//! are byte-identical across runs and thread counts.

mod common;

use common::{json, sandmle_with_threads, seed, tree};

use std::path::Path;

#[test]
fn shrink_gives_an_environment_passing_every_gate_with_its_fidelity() {
    for name in ["breast_cancer", "wage", "sms_spam", "digits_png"] {
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
fn generate_writes_kept_environments_the_yield_and_the_index_identically_on_threads_and_shards() {
    // Tabular seeds and the image seed: the image environments' PNG files
    // are byte-identical across thread counts and shards too.
    let run = |threads: &str, dir: &Path, shard: Option<&str>| {
        let d = dir.to_str().unwrap();
        let mut args = vec![
            "generate",
            "--seed-env",
            "oj",
            "--seed-env",
            "wine",
            "--seed-env",
            "digits_png",
            "--per-seed",
            "3",
            "--seed",
            "11",
            "--out",
            d,
            "--json",
        ];
        let seeds = seed("oj");
        let seeds_dir = Path::new(&seeds).parent().unwrap().to_str().unwrap().to_owned();
        args.extend(["--seeds", seeds_dir.as_str()]);
        if let Some(s) = shard {
            args.extend(["--shard", s]);
        }
        let out = sandmle_with_threads(&args, threads);
        assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
        json(&out)
    };
    let one = tempfile::tempdir().unwrap();
    let v = run("1", one.path(), None);
    let total = &v["yield"]["total"];
    assert_eq!(total["candidates"], 9);
    let kept = total["kept"].as_u64().unwrap();
    assert!(kept >= 5, "{total}");
    assert!(v["yield"]["seeds"]["digits_png"]["kept"].as_u64().unwrap() >= 2, "image environments kept: {total}");
    assert!(v["throughput"]["oj"]["per_minute_one_core"].as_f64().unwrap() > 0.0);
    let first = tree(one.path());
    let index = String::from_utf8(first["index.jsonl"].clone()).unwrap();
    assert_eq!(index.lines().count() as u64, kept);
    // Every kept environment passes every gate when verified afresh.
    for line in index.lines() {
        let e: serde_json::Value = serde_json::from_str(line).unwrap();
        let env = one.path().join(e["path"].as_str().unwrap());
        let verify = sandmle_with_threads(&["verify", "--env", env.to_str().unwrap()], "2");
        assert_eq!(verify.status.code(), Some(0), "{}", String::from_utf8_lossy(&verify.stdout));
    }
    let two = tempfile::tempdir().unwrap();
    run("2", two.path(), None);
    assert_eq!(tree(two.path()), first, "one and two threads");
    let sharded = tempfile::tempdir().unwrap();
    for s in ["0/3", "1/3", "2/3"] {
        run("2", sharded.path(), Some(s));
    }
    assert_eq!(tree(sharded.path()), first, "three shards");
    let bad =
        sandmle_with_threads(&["generate", "--out", one.path().to_str().unwrap(), "--shard", "3/3", "--json"], "1");
    assert_eq!(bad.status.code(), Some(2));
}

/// A mix of every modality (the paper's six, forecasting and sequence
/// labelling).
const EVERY: &str = "image=2,tabular=1,text=1,multimodal=1,audio=1,time_series=2,graph=1,sequence=2";

/// `generate --mix` asks each slot for a modality from the mix: a class
/// and a value seed give image, audio, graph, forecasting and sequence
/// environments too, every one passing the gates; the run records its mix
/// (a rerun with another mix into the same folder is refused); the tree
/// is the same on one thread, two threads and two shards.
#[test]
fn generate_with_a_mix_spreads_modalities_identically_on_threads_and_shards() {
    let run = |threads: &str, dir: &Path, mix: &str, shard: Option<&str>| {
        let d = dir.to_str().unwrap();
        let seeds = seed("oj");
        let seeds_dir = Path::new(&seeds).parent().unwrap().to_str().unwrap().to_owned();
        let mut args = vec![
            "generate",
            "--seed-env",
            "breast_cancer",
            "--seed-env",
            "wage",
            "--per-seed",
            "5",
            "--seed",
            "6",
            "--mix",
            mix,
            "--out",
            d,
            "--json",
            "--seeds",
            &seeds_dir,
        ];
        if let Some(s) = shard {
            args.extend(["--shard", s]);
        }
        sandmle_with_threads(&args, threads)
    };
    let one = tempfile::tempdir().unwrap();
    let out = run("1", one.path(), EVERY, None);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let v = json(&out);
    let modalities = v["yield"]["spread"]["modalities"].as_object().unwrap().clone();
    assert!(modalities.len() >= 5, "{modalities:?}");
    for m in ["graph", "time_series", "sequence"] {
        assert!(modalities.contains_key(m), "{m}: {modalities:?}");
    }
    assert_eq!(v["yield"]["settings"]["mix"]["name"], EVERY);
    let first = tree(one.path());
    let index = String::from_utf8(first["index.jsonl"].clone()).unwrap();
    for line in index.lines() {
        let e: serde_json::Value = serde_json::from_str(line).unwrap();
        let env = one.path().join(e["path"].as_str().unwrap());
        let verify = sandmle_with_threads(&["verify", "--env", env.to_str().unwrap()], "2");
        assert_eq!(verify.status.code(), Some(0), "{}", String::from_utf8_lossy(&verify.stdout));
    }
    let other = run("1", one.path(), "image=1", None);
    assert_ne!(other.status.code(), Some(0));
    assert!(
        String::from_utf8_lossy(&other.stdout).contains("other settings"),
        "{}",
        String::from_utf8_lossy(&other.stdout)
    );
    let two = tempfile::tempdir().unwrap();
    assert_eq!(run("2", two.path(), EVERY, None).status.code(), Some(0));
    assert_eq!(tree(two.path()), first, "one and two threads");
    let sharded = tempfile::tempdir().unwrap();
    for s in ["0/2", "1/2"] {
        assert_eq!(run("2", sharded.path(), EVERY, Some(s)).status.code(), Some(0));
    }
    assert_eq!(tree(sharded.path()), first, "two shards");
    let bad = run("1", two.path(), "video=1", None);
    assert_eq!(bad.status.code(), Some(2), "{}", String::from_utf8_lossy(&bad.stdout));
    assert!(
        String::from_utf8_lossy(&bad.stdout).contains("unknown modality"),
        "{}",
        String::from_utf8_lossy(&bad.stdout)
    );
}
