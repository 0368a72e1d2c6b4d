//! Helpers shared by the command-line tests.

// Each test binary compiles this module and uses only part of it.
#![allow(dead_code)]

pub mod serve;

use std::process::{Command, Output};

/// Runs `sandmle` with `args` (and `RAYON_NUM_THREADS=threads`).
pub fn sandmle_with_threads(args: &[&str], threads: &str) -> Output {
    Command::new(env!("CARGO_BIN_EXE_sandmle")).args(args).env("RAYON_NUM_THREADS", threads).output().unwrap()
}

/// Runs `sandmle` with `args`.
pub fn sandmle(args: &[&str]) -> Output {
    sandmle_with_threads(args, "2")
}

/// The JSON the command printed.
pub fn json(out: &Output) -> serde_json::Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stdout)))
}

/// The path of a bundled seed.
pub fn seed(name: &str) -> String {
    sandmle::repository_seeds().join(name).display().to_string()
}

/// Every file under `dir`, by relative path.
pub fn tree(dir: &std::path::Path) -> std::collections::BTreeMap<String, Vec<u8>> {
    let mut out = std::collections::BTreeMap::new();
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

/// Whether bubblewrap runs here; with `SANDMLE_REQUIRE_BWRAP` set (as CI
/// sets it) a machine where it cannot is a failure, otherwise the calling
/// test is skipped.
pub fn bwrap_or_skip() -> bool {
    let ok = sandmle_exec::bubblewrap_available();
    if !ok {
        assert!(std::env::var_os("SANDMLE_REQUIRE_BWRAP").is_none(), "bubblewrap is required but cannot run here");
        eprintln!("bubblewrap cannot run here: this test is skipped");
    }
    ok
}
