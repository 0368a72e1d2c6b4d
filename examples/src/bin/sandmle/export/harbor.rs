//! `--format harbor`: each environment as a Harbor task, the format rLLM,
//! TRL, verifiers and OpenEnv read.
//!
//! ```text
//! OUT/<task>/
//!   task.toml                  # separate verifier; the submission is the one artifact
//!   instruction.md             # the description, the files, the submission's form
//!   environment/Dockerfile     # Python with the agent's stack; the public files in /app
//!   environment/data/          # description.md, train.csv, test.csv, sample_submission.csv (images/)
//!   tests/test.sh              # grades /app/submission.csv with `sandmle evaluate`
//!   tests/env/prepared/private/  # the answers and grading.json: only ever in the verifier
//!   tests/bin/sandmle          # the binary that grades
//!   solution/solve.sh          # the baseline panel's best model, fitted by scikit-learn
//! ```
//!
//! Harbor builds the agent's container from `environment/` alone; `tests/`
//! is uploaded only after the agent has finished, into a fresh container
//! (`environment_mode = "separate"`) that receives `/app/submission.csv`
//! as an artifact, so the answers never share a file system with the
//! agent. `test.sh` writes `reward.json` — `reward` (the scheme's reward on
//! the submission: the transcript is Harbor's, so the format term is 0)
//! and each component's value (`valid`, `gold`, `silver`, `bronze`,
//! `median`, ...) with `score` and `human_rank` — and `reward.txt`.

use super::{Source, write as write_file};
use crate::output::{Failure, Kind};
use sandmle_core::{Environment, SubmissionForm};
use sandmle_exec::Panel;
use std::path::Path;

/// The agent's Python packages in the image, pinned.
const AGENT_PACKAGES: &str = "numpy==2.4.6 pandas==3.1.1 scikit-learn==1.9.1 pillow==12.0.0";

/// The reward scheme `test.sh` computes.
const SCHEME: &str = "released_dense";

const SOLVE: &str = include_str!("harbor_solve.py");

fn broken(dir: &Path, e: impl std::fmt::Display) -> Failure {
    Failure::broken(format!("{}: {e}", dir.display()))
}

fn form_name(form: SubmissionForm) -> &'static str {
    match form {
        SubmissionForm::Label => "label",
        SubmissionForm::Probability => "probability",
        SubmissionForm::ClassProbabilities => "class_probabilities",
        SubmissionForm::ColumnProbabilities => "column_probabilities",
        SubmissionForm::Value => "value",
        SubmissionForm::LabelList => "label_list",
        SubmissionForm::LabelSet => "label_set",
    }
}

/// The panel's best pipeline spec on `env`'s leaderboard (its first row's
/// name), else the panel's first forest.
fn best_spec(env: &Environment) -> serde_json::Value {
    let specs = Panel::default().specs(env.task(), env.train.n_rows());
    let best = env.leaderboard.as_ref().and_then(|lb| lb.entries.first()).map(|e| e.name.clone());
    let chosen = specs
        .iter()
        .find(|s| Some(&s.name) == best.as_ref())
        .or_else(|| specs.iter().find(|s| s.name.starts_with("forest")))
        .or(specs.first());
    chosen.and_then(|s| serde_json::to_value(s).ok()).unwrap_or(serde_json::json!({"model": {"type": "hist_forest"}}))
}

fn instruction(env: &Environment) -> String {
    let task = env.task();
    let mut files: Vec<String> =
        ["`train.csv`", "`test.csv`", "`sample_submission.csv`", "`description.md`"].map(String::from).to_vec();
    if let Some(spec) = &task.images {
        let what = if task.modality == sandmle_core::Modality::Audio { "audio clip" } else { "image" };
        files.push(format!("`{}/` (one {what} per row, named by its `{}`)", spec.dir, spec.key(&task.id_column)));
    }
    format!(
        "{}\n\n---\n\nThe files are in `/app`: {}. Train a model on `train.csv`, predict {} for every row of \
         `test.csv`, and write `/app/submission.csv` with the columns of `sample_submission.csv` ({}). It is graded \
         by {} ({} is better) against hidden answers once you finish; medals follow the task's leaderboard. Python \
         with numpy, pandas, scikit-learn and Pillow is installed; there is no network.\n",
        env.description.trim_end(),
        files.join(", "),
        task.kind.prediction_phrase(),
        task.submission_form().phrase(),
        task.metric.name,
        if task.direction.is_lower_better() { "lower" } else { "higher" },
    )
}

fn task_toml(name: &str, env: &Environment) -> String {
    let task = env.task();
    format!(
        "schema_version = \"1.4\"\n\
         # The agent's one output, copied into the verifier's fresh container.\n\
         artifacts = [\"/app/submission.csv\"]\n\n\
         [metadata]\nsandmle_env = \"{name}\"\nsandmle_task_id = \"{}\"\nmetric = \"{}\"\nreward_scheme = \"{SCHEME}\"\n\n\
         [verifier]\ntimeout_sec = 600.0\nenvironment_mode = \"separate\"\n\n\
         [agent]\ntimeout_sec = 1200.0\n\n\
         [environment]\nbuild_timeout_sec = 900.0\ncpus = 2\nmemory_mb = 4096\nstorage_mb = 10240\nnetwork_mode = \"no-network\"\n",
        env.id().unwrap_or_default(),
        task.metric.name
    )
}

fn dockerfile() -> String {
    format!(
        "FROM python:3.12-slim\n\
         RUN pip install --no-cache-dir {AGENT_PACKAGES}\n\
         WORKDIR /app\n\
         COPY data/ /app/\n"
    )
}

fn test_sh() -> String {
    format!(
        "#!/bin/bash\n\
         # Runs after the agent has finished, in a fresh container holding /app/submission.csv; /tests holds\n\
         # the answers (never in the agent's image). Harbor reads /logs/verifier/reward.json.\n\
         mkdir -p /logs/verifier\n\
         chmod +x /tests/bin/sandmle\n\
         /tests/bin/sandmle --json evaluate --env /tests/env --submission_path /app/submission.csv \\\n\
         \x20   --reward {SCHEME} --reward-json /logs/verifier/reward.json --reward-txt /logs/verifier/reward.txt \\\n\
         \x20   > /logs/verifier/evaluation.json\n\
         exit 0\n"
    )
}

fn solve_sh(env: &Environment) -> String {
    let task = env.task();
    let spec = best_spec(env);
    let config = serde_json::json!({
        "id": task.id_column,
        "targets": task.target_columns,
        "predictions": task.prediction_columns,
        "form": form_name(task.submission_form()),
        "k": task.metric.params.get("k").cloned().unwrap_or(serde_json::json!(5)),
        "modality": task.modality,
        "images": task.images.as_ref().map(|i| i.dir.clone()),
        "image_suffix": task.images.as_ref().map(|i| i.suffix.clone()),
        "image_key": task.images.as_ref().map(|i| i.key(&task.id_column).to_owned()),
        "model": spec.get("model").cloned().unwrap_or_default(),
        "panel_entry": spec.get("name").cloned().unwrap_or_default(),
    });
    let literal = serde_json::to_string(&config.to_string()).unwrap_or_else(|_| "\"{}\"".into());
    let program = SOLVE.replace("__CONFIG__", &literal);
    format!(
        "#!/bin/bash\n# The reference solution: the baseline panel's best model.\ncd /app\ncat > /tmp/solve.py <<'SANDMLE_SOLVE'\n{program}SANDMLE_SOLVE\npython3 /tmp/solve.py\n"
    )
}

/// Writes one Harbor task per environment into `out`; answers the summary.
pub fn write(sources: &[Source], out: &Path, sandmle_bin: &Path) -> Result<serde_json::Value, Failure> {
    let mut tasks = Vec::new();
    for Source { dir, name } in sources {
        super::check_gradable(dir)?;
        let env = Environment::read(dir).map_err(|e| broken(dir, e))?;
        let root = out.join(name);
        write_file(&root.join("task.toml"), task_toml(name, &env))?;
        write_file(&root.join("instruction.md"), instruction(&env))?;
        write_file(&root.join("environment/Dockerfile"), dockerfile())?;
        let public = dir.join(sandmle_core::PUBLIC_DIR);
        super::copy_tree(&public, &root.join("environment/data"))?;
        let private = sandmle_core::PRIVATE_DIR;
        super::copy_tree(&dir.join(private), &root.join("tests/env").join(private))?;
        write_file(&root.join("tests/test.sh"), test_sh())?;
        let bin = root.join("tests/bin/sandmle");
        write_file(&bin, [])?;
        std::fs::copy(sandmle_bin, &bin)
            .map_err(|e| Failure::new(Kind::System, format!("copying {}: {e}", sandmle_bin.display())))?;
        write_file(&root.join("solution/solve.sh"), solve_sh(&env))?;
        for script in ["tests/test.sh", "solution/solve.sh"] {
            executable(&root.join(script))?;
        }
        tasks.push(name.clone());
    }
    Ok(serde_json::json!({"tasks": tasks, "skipped": []}))
}

fn executable(path: &Path) -> Result<(), Failure> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755))
        .map_err(|e| Failure::new(Kind::System, format!("{}: {e}", path.display())))
}
