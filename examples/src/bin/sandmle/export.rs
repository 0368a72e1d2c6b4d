//! `export --format sandmle-release`: environments laid out as SandMLE's
//! release reads its tasks, so its harness runs them unchanged.
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
//! object, with `error`) only when grading itself cannot run (no `sandmle`
//! binary, a broken environment). The binary is `$SANDMLE_BIN`, else the
//! one that wrote the export.

use crate::Globals;
use crate::output::{Failure, Kind, print_json, say};
use clap::Args;
use sandmle_core::{Grader, GradingBundle};
use sandmle_metrics::StandardGrader;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(Args)]
pub struct ExportArgs {
    /// The layout to write (`sandmle-release`).
    #[arg(long, default_value = "sandmle-release")]
    format: String,
    /// A folder of environment directories.
    #[arg(long, conflicts_with = "index")]
    envs: Option<PathBuf>,
    /// A manifest of environments (JSON lines with a `path` field).
    #[arg(long)]
    index: Option<PathBuf>,
    /// The folder to write (new, or empty).
    #[arg(long)]
    out: PathBuf,
    /// The `sandmle` binary the evaluators call (default: this one).
    #[arg(long = "sandmle-bin")]
    sandmle_bin: Option<PathBuf>,
}

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


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--submission_path", default="submission.csv")
    args = parser.parse_args()
    cmd = [SANDMLE, "--json", "evaluate", "--env", str(PRIVATE), "--submission_path", args.submission_path]
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

fn copy_tree(from: &Path, to: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(to)?;
    for entry in std::fs::read_dir(from)? {
        let entry = entry?;
        let kind = entry.file_type()?;
        let target = to.join(entry.file_name());
        if kind.is_dir() {
            copy_tree(&entry.path(), &target)?;
        } else if kind.is_file() {
            std::fs::copy(entry.path(), &target)?;
        }
        // Symlinks and special files are not part of an environment: skipped.
    }
    Ok(())
}

pub fn export(a: &ExportArgs, g: &Globals) -> Result<ExitCode, Failure> {
    if a.format != "sandmle-release" {
        return Err(Failure::usage(format!("--format: sandmle-release, not `{}`", a.format)));
    }
    let dirs = crate::rollout::env_dirs(a.envs.as_deref(), a.index.as_deref())?;
    if a.out.exists() {
        let empty = a.out.is_dir() && std::fs::read_dir(&a.out).map(|mut d| d.next().is_none()).unwrap_or(false);
        if !empty {
            return Err(Failure::usage(format!("--out {}: exists and is not an empty folder", a.out.display())));
        }
    }
    let bin = match &a.sandmle_bin {
        Some(b) => b.clone(),
        None => std::env::current_exe().map_err(|e| Failure::new(Kind::System, format!("this binary's path: {e}")))?,
    };
    let bin = std::fs::canonicalize(&bin).unwrap_or(bin);
    let io = |what: &Path, e: std::io::Error| Failure::new(Kind::System, format!("{}: {e}", what.display()));
    let mut names: Vec<String> = Vec::new();
    let mut ok = Vec::new();
    let mut skipped = Vec::new();
    for dir in &dirs {
        let name = dir.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        if name.is_empty() || name.starts_with('.') || names.contains(&name) {
            return Err(Failure::usage(format!(
                "{}: task names must be unique, non-hidden folder names",
                dir.display()
            )));
        }
        names.push(name.clone());
        // Every hash checked, and the grader accepts the task.
        let broken = |e: sandmle_core::Error| Failure::broken(format!("{}: {e}", dir.display()));
        let bundle = GradingBundle::read(dir).map_err(broken)?;
        let task = bundle.grading_task();
        StandardGrader.check(&task).map_err(broken)?;
        bundle.spec.require_thresholds().map_err(broken)?;
        let private = a.out.join(PRIVATE_DIR).join(&name);
        copy_tree(dir, &private).map_err(|e| io(&private, e))?;
        let public = a.out.join(&name).join("prepared").join("public");
        std::fs::create_dir_all(&public).map_err(|e| io(&public, e))?;
        for f in PUBLIC_FILES {
            let from = dir.join("prepared").join("public").join(f);
            std::fs::copy(&from, public.join(f)).map_err(|e| io(&from, e))?;
        }
        let shim_path = public.join("evaluator.py");
        std::fs::write(&shim_path, shim(&name, &bin)).map_err(|e| io(&shim_path, e))?;
        // The sanity check: the sample submission grades as valid.
        let sample = public.join("sample_submission.csv");
        match StandardGrader.grade_file(&task, &sample) {
            Ok(r) if r.valid_submission => ok.push(name),
            Ok(r) => skipped.push(serde_json::json!({"task": name, "reason": r.error})),
            Err(e) => skipped.push(serde_json::json!({"task": name, "reason": e.to_string()})),
        }
    }
    let list = a.out.join("ok_competitions_sanity.json");
    let text = serde_json::to_string_pretty(&ok).map_err(|e| Failure::new(Kind::System, e.to_string()))?;
    std::fs::write(&list, text + "\n").map_err(|e| io(&list, e))?;
    if g.json {
        print_json(&serde_json::json!({
            "format": a.format, "out": a.out, "tasks": ok, "skipped": skipped, "sandmle_bin": bin,
        }));
    } else {
        say!("{} task(s) written to {} ({} skipped)", ok.len(), a.out.display(), skipped.len());
    }
    Ok(ExitCode::SUCCESS)
}
