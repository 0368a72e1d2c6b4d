//! `sandmle export --format sandmle-release`: the release's layout, and its
//! `evaluator.py` shim run as SandMLE's Score tool runs it (cwd
//! `prepared/public`, `python3 evaluator.py --submission_path P`) on a
//! valid, a perfect and an invalid submission.

mod common;

use common::{json, sandmle};
use std::path::Path;
use std::process::{Command, Output};

fn evaluator(public: &Path, submission: &Path) -> (Output, serde_json::Value) {
    evaluator_args(public, &["--submission_path".as_ref(), submission.as_os_str()])
}

fn evaluator_args(public: &Path, args: &[&std::ffi::OsStr]) -> (Output, serde_json::Value) {
    let out = Command::new("python3")
        .arg("evaluator.py")
        .args(args)
        .current_dir(public)
        .env_remove("SANDMLE_BIN")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert_eq!(text.trim().lines().count(), 1, "exactly one JSON line: {text}");
    let v: serde_json::Value = serde_json::from_str(text.trim()).unwrap_or_else(|e| panic!("{e}: {text}"));
    assert!(v.is_object());
    (out, v)
}

#[test]
fn the_release_layout_keeps_answers_outside_the_public_tree_and_its_evaluator_grades() {
    let tmp = tempfile::tempdir().unwrap();
    let envs = tmp.path().join("envs");
    std::fs::create_dir(&envs).unwrap();
    let copy = Command::new("cp").arg("-r").arg(common::seed("wine")).arg(envs.join("wine")).status().unwrap();
    assert!(copy.success());
    let out = tmp.path().join("release");
    let o = sandmle(&[
        "--json",
        "export",
        "--format",
        "sandmle-release",
        "--envs",
        envs.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(json(&o)["tasks"], serde_json::json!(["wine"]));
    let sanity: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("ok_competitions_sanity.json")).unwrap()).unwrap();
    assert_eq!(sanity, serde_json::json!(["wine"]));

    let public = out.join("wine/prepared/public");
    let mut files: Vec<String> =
        std::fs::read_dir(&public).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    files.sort();
    assert_eq!(files, ["description.md", "evaluator.py", "sample_submission.csv", "test.csv", "train.csv"]);
    // Nothing private under the task's folder.
    let listing = Command::new("find").arg(out.join("wine")).output().unwrap();
    let listing = String::from_utf8_lossy(&listing.stdout);
    assert!(!listing.contains("answers") && !listing.contains("private"), "{listing}");

    // Valid: the sample submission.
    let (o, v) = evaluator(&public, Path::new("sample_submission.csv"));
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(v["valid_submission"], true);
    for k in ["score", "is_lower_better", "gold_threshold", "silver_threshold", "bronze_threshold", "median_threshold"]
    {
        assert!(v.get(k).is_some(), "{k}: {v}");
    }
    assert!(v["score"].is_number());

    // Perfect: the private answers themselves.
    let answers = out.join(".private/wine/prepared/private/answers.csv");
    let (o, v) = evaluator(&public, &answers);
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(v["valid_submission"], true);
    assert_eq!(v["medal"], "gold", "{v}");

    // Invalid: wrong columns, and a missing file.
    let bad = tmp.path().join("bad.csv");
    std::fs::write(&bad, "a,b\n1,2\n").unwrap();
    let (o, v) = evaluator(&public, &bad);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(v["valid_submission"], false);
    assert!(v["error"].as_str().unwrap().contains("column"), "{v}");
    let (o, v) = evaluator(&public, &tmp.path().join("missing.csv"));
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(v["valid_submission"], false);

    // Bad arguments still print one object (argparse's own message went to
    // stderr with no JSON), and a file named `-x.csv` is read as a path.
    let (o, v) = evaluator_args(&public, &["--submission_path".as_ref(), "--env=/".as_ref()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(v["error"].as_str().unwrap().starts_with("bad arguments"), "{v}");
    let (o, v) = evaluator_args(&public, &["--submission_path".as_ref(), "x.csv".as_ref(), "--env=/".as_ref()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(v["error"].as_str().unwrap().contains("--env=/"), "{v}");
    std::fs::copy(public.join("sample_submission.csv"), public.join("-dash.csv")).unwrap();
    let (o, v) = evaluator_args(&public, &["--submission_path=-dash.csv".as_ref()]);
    assert_eq!(o.status.code(), Some(0), "{v}");
    assert_eq!(v["valid_submission"], true, "{v}");
    std::fs::remove_file(public.join("-dash.csv")).unwrap();

    // A second export into a non-empty folder is refused.
    let o = sandmle(&["--json", "export", "--envs", envs.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
}
