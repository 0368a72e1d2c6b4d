//! `--format openenv`: the environments as an OpenEnv package, the layout
//! `openenv validate` checks and `openenv push --no-interface` publishes.
//!
//! ```text
//! OUT/
//!   openenv.yaml  pyproject.toml  README.md  __init__.py  client.py  models.py
//!   uv.lock                  # with --lock (runs `uv lock`; `openenv validate` needs one)
//!   server/app.py            # main(): execs `sandmle serve --envs /envs` (or $SANDMLE_ENVS)
//!   Dockerfile               # bubblewrap, the agent's Python stack, the binary, the envs; a health check
//!   bin/sandmle              # the binary (this one, or --sandmle-bin)
//!   envs/<task>/...          # every environment, as it is
//! ```
//!
//! The Python side is a shim: the server is the Rust binary, started by
//! `uv run server`, `python -m server.app` or the image's `CMD`. Clients
//! use OpenEnv's own `GenericEnvClient` (re-exported by `client.py`). The
//! image runs agent programs in bubblewrap, which needs user namespaces
//! inside the container: run it with `--security-opt seccomp=unconfined
//! --security-opt apparmor=unconfined` (or a runtime that allows them);
//! without them every code step is refused (no silent fallback).

use super::{Source, copy_tree, write as write_file};
use crate::output::{Failure, Kind};
use std::path::Path;

/// The agent's Python packages in the image, pinned (the versions CI's
/// sandbox runs).
const AGENT_PACKAGES: &str = "numpy==2.4.6 pandas==3.1.1 scikit-learn==1.9.1";

fn files(tasks: &[String]) -> Vec<(&'static str, String)> {
    let version = env!("CARGO_PKG_VERSION");
    vec![
        (
            "openenv.yaml",
            format!(
                "spec_version: 1\nname: sandmle\ndescription: SandMLE micro-scale ML-engineering environments ({} \
                 tasks), served by the Rust `sandmle serve` binary\ntype: space\nruntime: docker\nport: 8000\n",
                tasks.len()
            ),
        ),
        (
            "pyproject.toml",
            format!(
                "[build-system]\nrequires = [\"setuptools>=61\"]\nbuild-backend = \"setuptools.build_meta\"\n\n\
                 [project]\nname = \"openenv-sandmle\"\nversion = \"{version}\"\n\
                 description = \"SandMLE micro-scale ML-engineering environments for OpenEnv (the server is the sandmle binary)\"\n\
                 requires-python = \">=3.10\"\ndependencies = [\"openenv-core>=0.2.0\"]\n\n\
                 [project.scripts]\nserver = \"sandmle_env.server.app:main\"\n\n\
                 [tool.setuptools]\npackages = [\"sandmle_env\", \"sandmle_env.server\"]\n\
                 package-dir = {{ \"sandmle_env\" = \".\", \"sandmle_env.server\" = \"server\" }}\n"
            ),
        ),
        ("__init__.py", "\"\"\"SandMLE environments for OpenEnv.\"\"\"\nfrom .client import SandmleEnv\n\n__all__ = [\"SandmleEnv\"]\n".into()),
        (
            "client.py",
            "\"\"\"The client: OpenEnv's generic one (actions and observations are plain dicts).\"\"\"\n\
             from openenv.core import GenericEnvClient as SandmleEnv\n\n__all__ = [\"SandmleEnv\"]\n"
                .into(),
        ),
        (
            "models.py",
            "\"\"\"Action and observation shapes (plain dicts over the wire; see GET /schema).\n\n\
             Action: {\"content\": \"<assistant text>\"} and/or {\"tool_calls\": [{\"id\", \"name\", \"arguments\"}]}.\n\
             Observation: {\"messages\": [...], \"info\": {...}, \"terminated\": bool, \"truncated\": bool}.\n\"\"\"\n"
                .into(),
        ),
        ("server/__init__.py", String::new()),
        (
            "server/app.py",
            "\"\"\"Entry point: the server is the Rust binary `sandmle serve`.\"\"\"\n\
             import argparse\nimport os\nimport shutil\nimport sys\nfrom pathlib import Path\n\n\
             HERE = Path(__file__).resolve().parents[1]\n\n\n\
             def main(host: str = \"0.0.0.0\", port: int = 8000, envs: str = \"\") -> None:\n\
             \x20   \"\"\"Replaces this process with `sandmle serve` over the package's environments.\"\"\"\n\
             \x20   exe = os.environ.get(\"SANDMLE_BIN\") or shutil.which(\"sandmle\") or str(HERE / \"bin\" / \"sandmle\")\n\
             \x20   if not Path(exe).exists():\n\
             \x20       sys.exit(\"the sandmle binary was not found (set SANDMLE_BIN)\")\n\
             \x20   envs = envs or os.environ.get(\"SANDMLE_ENVS\") or str(HERE / \"envs\")\n\
             \x20   os.execv(exe, [exe, \"serve\", \"--envs\", envs, \"--host\", host, \"--port\", str(port)])\n\n\n\
             if __name__ == \"__main__\":\n\
             \x20   parser = argparse.ArgumentParser(description=__doc__)\n\
             \x20   parser.add_argument(\"--host\", default=\"0.0.0.0\")\n\
             \x20   parser.add_argument(\"--port\", type=int, default=8000)\n\
             \x20   parser.add_argument(\"--envs\", default=\"\")\n\
             \x20   args = parser.parse_args()\n\
             \x20   main(host=args.host, port=args.port, envs=args.envs)\n"
                .into(),
        ),
        (
            "Dockerfile",
            format!(
                "FROM debian:bookworm-slim\n\
                 RUN apt-get update && apt-get install -y --no-install-recommends bubblewrap python3 python3-venv curl \\\n\
                 \x20   && rm -rf /var/lib/apt/lists/*\n\
                 # The agent's Python: its programs run in bubblewrap with this environment.\n\
                 RUN python3 -m venv /opt/agent && /opt/agent/bin/pip install --no-cache-dir {AGENT_PACKAGES}\n\
                 ENV SANDMLE_PYTHON=/opt/agent\n\
                 COPY bin/sandmle /usr/local/bin/sandmle\n\
                 COPY envs /envs\n\
                 EXPOSE 8000\n\
                 HEALTHCHECK --interval=30s --timeout=3s --start-period=5s --retries=3 \\\n\
                 \x20   CMD curl -f http://localhost:8000/health || exit 1\n\
                 # bubblewrap needs user namespaces: run with --security-opt seccomp=unconfined\n\
                 # --security-opt apparmor=unconfined (code steps are refused without them).\n\
                 CMD [\"sandmle\", \"serve\", \"--envs\", \"/envs\", \"--host\", \"0.0.0.0\", \"--port\", \"8000\"]\n"
            ),
        ),
        (
            "README.md",
            format!(
                "---\ntitle: sandmle\nsdk: docker\napp_port: 8000\ntags:\n  - openenv\n---\n\
                 # SandMLE environments for OpenEnv\n\n\
                 {} micro-scale ML-engineering tasks ({}): an agent writes Python that trains a model on \
                 `train.csv`, writes `submission.csv`, and scores it with the Score tool. The server is the \
                 `sandmle serve` binary (OpenEnv's HTTP + WebSocket protocol, `/mcp`, `GET /tasks`).\n\n\
                 ```sh\nuv run server                      # or: python -m server.app, or the Docker image\n```\n\n\
                 ```python\nfrom openenv.core import GenericEnvClient\n\n\
                 with GenericEnvClient(base_url=\"http://127.0.0.1:8000\", message_timeout_s=360).sync() as env:\n\
                 \x20   r = env.reset(task_id=\"{}\")\n\
                 \x20   print(r.observation[\"messages\"][1][\"content\"][:300])\n```\n\n\
                 Code steps run in bubblewrap: the image needs `--security-opt seccomp=unconfined \
                 --security-opt apparmor=unconfined`. Publish with `openenv push --no-interface` (the \
                 server has no `/web` page).\n",
                tasks.len(),
                tasks.join(", "),
                tasks.first().map_or("", String::as_str),
            ),
        ),
    ]
}

/// Writes the package of `sources` into `out`; runs `uv lock` there when
/// `lock` is set. Answers the summary (`tasks`, `skipped`, `locked`).
pub fn write(sources: &[Source], out: &Path, sandmle_bin: &Path, lock: bool) -> Result<serde_json::Value, Failure> {
    let mut tasks = Vec::new();
    for Source { dir, name } in sources {
        super::check_gradable(dir)?;
        copy_tree(dir, &out.join("envs").join(name))?;
        tasks.push(name.clone());
    }
    for (path, text) in files(&tasks) {
        write_file(&out.join(path), text)?;
    }
    let bin = out.join("bin").join("sandmle");
    write_file(&bin, [])?;
    std::fs::copy(sandmle_bin, &bin)
        .map_err(|e| Failure::new(Kind::System, format!("copying {}: {e}", sandmle_bin.display())))?;
    if lock {
        let done =
            std::process::Command::new("uv").arg("lock").current_dir(out).output().map_err(|e| {
                Failure::new(Kind::System, format!("--lock runs `uv lock`, which could not start: {e}"))
            })?;
        if !done.status.success() {
            let err = String::from_utf8_lossy(&done.stderr);
            return Err(Failure::new(Kind::System, format!("uv lock failed: {}", err.trim())));
        }
    }
    Ok(serde_json::json!({"tasks": tasks, "skipped": [], "locked": lock}))
}
