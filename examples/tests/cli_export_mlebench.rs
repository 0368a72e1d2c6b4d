//! `sandmle export --format mlebench`: the registry and data layout, and
//! the round trip — the exported competition imported back with `sandmle
//! import` grades every submission exactly as the original environment
//! does (score, thresholds, medals, validity, rank among the leaderboard).

mod common;

use common::{json, sandmle, seed};
use serde_json::Value;
use std::path::Path;

/// Seeds covering a metric each: multiclass log loss, ROC AUC on a
/// gzip-stored table, RMSE, accuracy, binary log loss.
const SEEDS: [&str; 5] = ["wine", "caravan", "diabetes", "digits", "oj"];

fn copy_seeds(to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for s in SEEDS {
        let ok = std::process::Command::new("cp").arg("-r").arg(seed(s)).arg(to.join(s)).status().unwrap();
        assert!(ok.success());
    }
}

/// `sandmle --json export --format mlebench --envs ENVS --out OUT`.
fn export(envs: &Path, out: &Path) -> std::process::Output {
    sandmle(&[
        "--json",
        "export",
        "--format",
        "mlebench",
        "--envs",
        envs.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ])
}

fn evaluate(env: &Path, submission: &Path) -> Value {
    let o = sandmle(&[
        "--json",
        "evaluate",
        "--env",
        env.to_str().unwrap(),
        "--submission_path",
        submission.to_str().unwrap(),
    ]);
    assert!(matches!(o.status.code(), Some(0 | 1)), "{}", String::from_utf8_lossy(&o.stderr));
    json(&o)
}

/// A submission with the answers' rows in reverse order and the last
/// prediction value replaced by the first's: valid, imperfect, and
/// aligned by id, not by position.
fn reversed_and_perturbed(answers: &str) -> String {
    let mut lines: Vec<&str> = answers.lines().collect();
    let header = lines.remove(0);
    lines.reverse();
    let mut rows: Vec<String> = lines.iter().map(|l| (*l).to_owned()).collect();
    let first_values = rows[0].split_once(',').map(|(_, v)| v.to_owned()).unwrap();
    let last = rows.len() - 1;
    let id = rows[last].split_once(',').map(|(id, _)| id.to_owned()).unwrap();
    rows[last] = format!("{id},{first_values}");
    format!("{header}\n{}\n", rows.join("\n"))
}

#[test]
fn an_mlebench_export_round_trips_through_import_with_identical_grading() {
    let tmp = tempfile::tempdir().unwrap();
    let envs = tmp.path().join("envs");
    copy_seeds(&envs);
    let out = tmp.path().join("mlebench");
    let o = export(&envs, &out);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let summary = json(&o);
    assert_eq!(summary["tasks"].as_array().unwrap().len(), SEEDS.len());
    assert_eq!(summary["data_dir"], serde_json::json!(out.join("data")));
    // Nothing is left beside the export.
    let beside: Vec<_> = std::fs::read_dir(tmp.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(beside.len(), 2, "{beside:?}");

    for name in SEEDS {
        let registry = out.join("competitions").join(name);
        for f in ["config.yaml", "description.md", "grade.py", "prepare.py", "leaderboard.csv", "checksums.yaml"] {
            assert!(registry.join(f).is_file(), "{name}/{f}");
        }
        let config = std::fs::read_to_string(registry.join("config.yaml")).unwrap();
        assert!(config.contains(&format!("grade_fn: \"mlebench.competitions.{name}.grade:grade\"")), "{config}");
        assert!(config.contains(&format!("answers: \"{name}/prepared/private/answers.csv\"")), "{config}");
        let data = out.join("data").join(name).join("prepared");
        for f in ["public/train.csv", "public/test.csv", "public/sample_submission.csv", "public/description.md"] {
            let bytes = std::fs::read(data.join(f)).unwrap();
            assert!(!bytes.starts_with(&[0x1f, 0x8b]), "{name}/{f} is plain CSV for pandas");
        }
        let answers = data.join("private/answers.csv");

        let imported = tmp.path().join(format!("imported-{name}"));
        let o = sandmle(&[
            "--json",
            "import",
            "--competition",
            out.join("data").join(name).to_str().unwrap(),
            "--task",
            registry.join("sandmle_task.json").to_str().unwrap(),
            "--leaderboard",
            registry.join("leaderboard.csv").to_str().unwrap(),
            "--out",
            imported.to_str().unwrap(),
        ]);
        assert!(o.status.success(), "{name}: {}", String::from_utf8_lossy(&o.stderr));

        let perturbed = tmp.path().join(format!("{name}-perturbed.csv"));
        std::fs::write(&perturbed, reversed_and_perturbed(&std::fs::read_to_string(&answers).unwrap())).unwrap();
        let invalid = tmp.path().join(format!("{name}-invalid.csv"));
        let text = std::fs::read_to_string(&answers).unwrap();
        std::fs::write(&invalid, text.lines().take(text.lines().count() - 1).collect::<Vec<_>>().join("\n")).unwrap();
        let sample = data.join("public/sample_submission.csv");
        let mut valid = 0;
        for submission in [&sample, &answers, &perturbed, &invalid] {
            let original = evaluate(&envs.join(name), submission);
            let round_trip = evaluate(&imported, submission);
            assert_eq!(original, round_trip, "{name}: {}", submission.display());
            valid += usize::from(original["valid_submission"] == true);
        }
        assert_eq!(valid, 3, "{name}: the sample, the answers and the perturbed submission are valid");
    }
}

#[test]
fn a_failed_export_leaves_nothing_and_a_used_out_folder_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let envs = tmp.path().join("envs");
    copy_seeds(&envs);
    // One environment's answers altered after its hashes were recorded.
    let answers = envs.join("oj/prepared/private/answers.csv");
    let mut bytes = std::fs::read(&answers).unwrap();
    let last = bytes.len() - 2;
    bytes[last] = if bytes[last] == b'0' { b'1' } else { b'0' };
    std::fs::write(&answers, bytes).unwrap();
    let out = tmp.path().join("mlebench");
    let o = export(&envs, &out);
    assert_eq!(o.status.code(), Some(2), "a broken environment: {}", String::from_utf8_lossy(&o.stdout));
    assert!(String::from_utf8_lossy(&o.stdout).contains("answers.csv"));
    let beside: Vec<_> = std::fs::read_dir(tmp.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(beside, vec![std::ffi::OsString::from("envs")], "no partial export, no staging folder");

    std::fs::create_dir(&out).unwrap();
    std::fs::write(out.join("mine.txt"), "kept").unwrap();
    std::fs::remove_dir_all(envs.join("oj")).unwrap();
    let o = export(&envs, &out);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(std::fs::read_to_string(out.join("mine.txt")).unwrap(), "kept");
    assert_eq!(std::fs::read_dir(&out).unwrap().count(), 1);
}
