//! The agent's Python environment in the sandbox: a virtualenv with the ML
//! stack (`SANDMLE_PYTHON`, which CI sets to its virtualenv with numpy,
//! pandas and scikit-learn) runs scikit-learn programs cold and warm, and
//! an environment that would expose too much is refused.
//!
//! Without `SANDMLE_PYTHON` the ML-stack test is skipped with a message;
//! with it set, an environment lacking pandas or scikit-learn fails it.

mod common;

use common::{assert_warm, bwrap_or_skip, executor, py_step};
use sandmle_core::{ExecStatus, Workspace};
use sandmle_exec::{CodeSteps, Limits, PythonChoice, PythonEnv, SandboxError as Error};
use std::path::PathBuf;
use std::time::Duration;

fn seed(name: &str) -> sandmle_core::Environment {
    sandmle_core::Environment::read(format!("{}/../examples/seeds/{name}", env!("CARGO_MANIFEST_DIR"))).unwrap()
}

const FIT: &str = r#"
import pandas as pd
from sklearn.linear_model import LogisticRegression
train, test = pd.read_csv("train.csv"), pd.read_csv("test.csv")
sample = pd.read_csv("sample_submission.csv")
target = [c for c in sample.columns if c != "id"][0]
features = [c for c in test.columns if c != "id"]
model = LogisticRegression(max_iter=1000).fit(train[features].fillna(0), train[target])
sample[target] = model.predict_proba(test[features].fillna(0))[:, 1]
sample.to_csv("submission.csv", index=False)
print("fitted", len(train))
"#;

#[test]
fn scikit_learn_runs_in_the_sandbox_cold_and_warm_with_the_ml_virtualenv() {
    let Some(python) = std::env::var_os("SANDMLE_PYTHON").filter(|p| !p.is_empty()) else {
        eprintln!("skipped: set SANDMLE_PYTHON to a virtualenv with numpy, pandas and scikit-learn (CI does)");
        return;
    };
    if !bwrap_or_skip() {
        return;
    }
    let env_py = PythonEnv::resolve(&PythonChoice::Interpreter(PathBuf::from(&python))).unwrap();
    for module in ["numpy", "pandas", "sklearn"] {
        assert!(env_py.installed().iter().any(|m| m == module), "{python:?} lacks {module}");
    }
    let env = seed("breast_cancer");
    for steps in [CodeSteps::Cold, CodeSteps::Warm] {
        let mut ws = executor(Limits::default(), steps).open(&env.public_view()).unwrap();
        let out = py_step(&mut ws, "main_1.py", FIT, Duration::from_secs(120));
        assert_eq!(out.status, ExecStatus::Completed, "{steps:?}: {}", out.stderr_tail);
        assert!(out.stdout_tail.contains("fitted"), "{}", out.stdout_tail);
        assert_eq!(out.submission.as_ref().unwrap().n_rows(), env.test.n_rows());
        assert!(out.isolation.contains(&format!("python {}", env_py.version())), "{}", out.isolation);
        if steps == CodeSteps::Warm {
            assert_warm(&out);
            assert!(out.isolation.contains("preloaded: numpy, pandas, sklearn"), "{}", out.isolation);
        }
        assert!(ws.has_submission());
    }
}

#[test]
fn only_the_environment_is_exposed() {
    let env_py = PythonEnv::resolve(&PythonChoice::CallerPath).unwrap();
    for p in env_py.exposed() {
        assert!(p.components().count() >= 3, "too broad: {}", p.display());
        for system in ["/etc", "/proc", "/dev", "/workspace"] {
            assert!(!p.starts_with(system), "{}", p.display());
        }
    }
}

/// A fake interpreter answering the probe with `answer`.
fn fake_python(dir: &std::path::Path, answer: &str) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let path = dir.join("python3");
    std::fs::write(&path, format!("#!/bin/sh\ncat <<'JSON'\n{answer}\nJSON\n")).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

/// [`PythonEnv::resolve`] of a script this process has just written.
///
/// Another test thread that forks while the script is open for writing
/// holds that descriptor until its child execs, and running the script
/// meanwhile fails with "Text file busy" (ETXTBSY, seen once in CI): the
/// probe is retried while that is the reason.
fn resolve_fresh_script(script: &std::path::Path) -> Result<PythonEnv, Error> {
    for _ in 0..100 {
        match PythonEnv::resolve(&PythonChoice::Interpreter(script.to_path_buf())) {
            Err(e) if e.to_string().contains("Text file busy") => std::thread::sleep(Duration::from_millis(10)),
            other => return other,
        }
    }
    PythonEnv::resolve(&PythonChoice::Interpreter(script.to_path_buf()))
}

#[test]
fn an_environment_that_would_expose_too_much_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    for path in ["/", "/home", "/etc/ssl"] {
        let exe = dir.path().join("python3");
        let answer = format!(
            r#"{{"executable": "{}", "prefix": "/x", "base_prefix": "/x", "version": "3.11.0", "path": ["{path}"], "libdir": "", "installed": []}}"#,
            exe.display()
        );
        let fake = fake_python(dir.path(), &answer);
        let e = resolve_fresh_script(&fake).unwrap_err();
        assert!(matches!(e, Error::Python { ref reason, .. } if reason.contains("refusing to expose")), "{path}: {e}");
    }
    let missing = PythonEnv::resolve(&PythonChoice::Interpreter(dir.path().join("nothing"))).unwrap_err();
    assert!(matches!(missing, Error::Python { .. }), "{missing}");
}

#[test]
fn a_bad_preload_name_is_refused_when_the_workspace_opens() {
    let env = sandmle_core::testing::tiny_environment();
    let mut exec = executor(Limits::default(), CodeSteps::Warm);
    exec.python.preload = Some(vec!["os; import shutil".into()]);
    let e = exec.open(&env.public_view()).unwrap_err();
    assert!(matches!(e, Error::Python { .. }), "{e}");
}
