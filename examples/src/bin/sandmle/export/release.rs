//! `--format sandmle-release`: environments laid out as SandMLE's release
//! reads its tasks, so its harness runs them unchanged.
//!
//! ```text
//! OUT/
//!   ok_competitions_sanity.json        # the task names whose sample submission grades as valid
//!   <task>/prepared/public/            # what the agent sees (its Score tool runs here)
//!     description.md  train.csv  test.csv  sample_submission.csv  evaluator.py
//!   .private/<task>/                   # the whole environment, answers included: never agent-visible
//! ```
//!
//! `evaluator.py` is a short shim: `python evaluator.py --submission_path
//! P` (from `prepared/public`, as SandMLE's Score tool calls it) runs
//! `sandmle --json evaluate` against `.private/<task>` (found relative to
//! the shim, so the tree can move) and prints exactly one JSON object —
//! the evaluator keys of the design's §4 — on stdout. It exits 0 for a
//! graded submission, 1 for an invalid one, and 2 (still printing one
//! object, with `error`) when grading itself cannot run (no `sandmle`
//! binary, a broken environment) or its arguments are bad. A submission
//! named `-x.csv` is passed on as a path (`--submission_path=-x.csv`). The binary is `$SANDMLE_BIN`, else the
//! one that wrote the export. Gzip-stored tables are written decompressed,
//! as the release reads plain `.csv` files.

use super::{Source, copy_tree, plain_table, write as write_file};
use crate::output::{Failure, Kind};
use sandmle_core::{Grader, GradingBundle};
use sandmle_metrics::StandardGrader;
use std::path::Path;

/// The files of `prepared/public` the release's agent sees.
const PUBLIC_FILES: [&str; 4] = ["description.md", "train.csv", "test.csv", "sample_submission.csv"];

const PRIVATE_DIR: &str = ".private";

fn shim(task: &str, sandmle_bin: &Path) -> String {
    let task = serde_json::to_string(task).unwrap_or_else(|_| "\"\"".into());
    let bin = serde_json::to_string(&sandmle_bin.display().to_string()).unwrap_or_else(|_| "\"sandmle\"".into());
    format!(
        r#"#!/usr/bin/env python3
"""SandMLE evaluator for task {task}: grades a submission with `sandmle evaluate`.

Prints exactly one JSON object on stdout (score, is_lower_better, the four
thresholds, valid_submission, medal, ...). Exit 0: graded; 1: invalid
submission; 2: grading could not run. The answers live outside this folder.
"""
import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

TASK = {task}
PRIVATE = Path(__file__).resolve().parents[3] / "{PRIVATE_DIR}" / TASK
SANDMLE = os.environ.get("SANDMLE_BIN") or {bin}


def fail(message):
    print(json.dumps({{"score": None, "valid_submission": False, "error": message}}))
    return 2


class Parser(argparse.ArgumentParser):
    """Bad arguments get the one JSON object too, not argparse's usage text."""

    def error(self, message):
        sys.exit(fail(f"bad arguments: {{message}}"))


def main():
    parser = Parser(description=__doc__)
    parser.add_argument("--submission_path", default="submission.csv")
    args = parser.parse_args()
    # `--submission_path=P`: a file whose name starts with `-` stays a path.
    cmd = [SANDMLE, "--json", "evaluate", "--env", str(PRIVATE), "--submission_path=" + args.submission_path]
    try:
        run = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    except (OSError, subprocess.SubprocessError) as e:
        return fail(f"sandmle evaluate could not run: {{e}}")
    try:
        report = json.loads(run.stdout)
    except ValueError:
        return fail(f"sandmle evaluate printed no JSON (exit {{run.returncode}})")
    if not isinstance(report, dict):
        return fail("sandmle evaluate printed no JSON object")
    if run.returncode not in (0, 1) or "error" in report and isinstance(report["error"], dict):
        error = report.get("error")
        return fail(error.get("message") if isinstance(error, dict) else str(error))
    print(json.dumps(report))
    return run.returncode


if __name__ == "__main__":
    sys.exit(main())
"#
    )
}

/// Writes the release layout of `sources` into `out` (an empty folder);
/// answers the summary (`tasks`, `skipped`, `sandmle_bin`).
pub fn write(sources: &[Source], out: &Path, bin: &Path) -> Result<serde_json::Value, Failure> {
    let mut ok = Vec::new();
    let mut skipped = Vec::new();
    for Source { dir, name } in sources {
        // Every hash checked, and the grader accepts the task.
        let broken = |e: sandmle_core::Error| Failure::broken(format!("{}: {e}", dir.display()));
        let bundle = GradingBundle::read(dir).map_err(broken)?;
        let task = bundle.grading_task();
        StandardGrader.check(&task).map_err(broken)?;
        bundle.spec.require_thresholds().map_err(broken)?;
        copy_tree(dir, &out.join(PRIVATE_DIR).join(name))?;
        let public = out.join(name).join("prepared").join("public");
        for f in PUBLIC_FILES {
            let rel = format!("prepared/public/{f}");
            let bytes = if f.ends_with(".csv") {
                plain_table(dir, &rel)?
            } else {
                std::fs::read(dir.join(&rel))
                    .map_err(|e| Failure::new(Kind::System, format!("{}: {e}", dir.join(&rel).display())))?
            };
            write_file(&public.join(f), bytes)?;
        }
        // An image task's folder goes as it is.
        if let Some(images) = &bundle.spec.task.images {
            copy_tree(&dir.join("prepared/public").join(&images.dir), &public.join(&images.dir))?;
        }
        write_file(&public.join("evaluator.py"), shim(name, bin))?;
        // The sanity check: the sample submission grades as valid.
        let sample = public.join("sample_submission.csv");
        match StandardGrader.grade_file(&task, &sample) {
            Ok(r) if r.valid_submission => ok.push(name.clone()),
            Ok(r) => skipped.push(serde_json::json!({"task": name, "reason": r.error})),
            Err(e) => skipped.push(serde_json::json!({"task": name, "reason": e.to_string()})),
        }
    }
    let text = serde_json::to_string_pretty(&ok).map_err(|e| Failure::new(Kind::System, e.to_string()))?;
    write_file(&out.join("ok_competitions_sanity.json"), text + "\n")?;
    Ok(serde_json::json!({"tasks": ok, "skipped": skipped, "sandmle_bin": bin}))
}
