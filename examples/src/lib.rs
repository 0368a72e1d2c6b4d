//! # sandmle
//!
//! Where the SandMLE-rs crates meet: the `sandmle` command line (installable
//! with `cargo install --path examples`), the runnable examples and the
//! bundled real seed tasks. The library part holds what those share —
//! composing the concrete crates behind core's traits, and finding the
//! seeds.
//!
//! Design decision: the library crates never name each other; this crate
//! is the one place that does ([`Composition`]). A user who wants another
//! grader, panel or verifier builds their own composition the same way.
//!
//! ```
//! let seeds = sandmle::repository_seeds();
//! let names = sandmle::seed_names_in(&seeds).unwrap();
//! assert!(names.iter().any(|s| s == "wine"));
//! let env = sandmle_core::Environment::read(seeds.join("wine")).unwrap();
//! let c = sandmle::Composition::new();
//! assert!(c.grader.check(&env.grading_task()).is_ok());
//! // The Foundry over the built-in roles: one candidate of the wine seed.
//! let foundry = c.foundry(sandmle_agents::foundry::FoundryConfig { per_seed: 1, ..Default::default() });
//! let out = std::env::temp_dir().join(format!("sandmle-lib-doc-{}", std::process::id()));
//! let seeds = [sandmle_agents::foundry::SeedTask { name: "wine".into(), env }];
//! let report = foundry.run(&seeds, &out, &|_, _| {}).unwrap();
//! assert_eq!(report.yield_.total.candidates, 1);
//! # std::fs::remove_dir_all(&out).ok();
//! ```
#![forbid(unsafe_code)]

pub mod failure;
pub mod fidelity;
pub mod program_fidelity;
#[cfg(feature = "server")]
pub mod serve;

use sandmle_agents::foundry::{Foundry, FoundryConfig};
use sandmle_agents::roles::builtin::{Developer, MlOps, Strategist, Writer};
use sandmle_core::{BaselinePanel, Environment, GateResult, Grader, Result, Synthesizer, Verifier, calibrate};
use sandmle_exec::Panel;
use sandmle_metrics::StandardGrader;
use sandmle_synth::{DnaSynthesizer, GateVerifier};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The concrete crates composed behind core's traits: the standard grader,
/// the baseline panel, the gate verifier and the DNA synthesizer.
#[derive(Clone)]
pub struct Composition {
    /// Grades submissions (sandmle-metrics).
    pub grader: Arc<dyn Grader>,
    /// Ranks baselines (sandmle-exec).
    pub panel: Arc<dyn BaselinePanel>,
    /// Checks environments (sandmle-synth), with the grader above.
    pub verifier: Arc<dyn Verifier>,
    /// Extracts DNA, plans candidates and realises plans (sandmle-synth).
    pub synthesizer: Arc<dyn Synthesizer>,
}

impl Composition {
    /// The default composition.
    pub fn new() -> Self {
        let grader: Arc<dyn Grader> = Arc::new(StandardGrader);
        let panel: Arc<dyn BaselinePanel> = Arc::new(Panel::default());
        let verifier: Arc<dyn Verifier> = Arc::new(GateVerifier::new(Arc::clone(&grader)));
        Composition { grader, panel, verifier, synthesizer: Arc::new(DnaSynthesizer::default()) }
    }

    /// The Foundry with the four built-in roles over this composition.
    pub fn foundry(&self, config: FoundryConfig) -> Foundry {
        Foundry {
            strategist: Arc::new(Strategist::new(Arc::clone(&self.synthesizer))),
            developer: Arc::new(Developer {
                synthesizer: Arc::clone(&self.synthesizer),
                panel: Arc::clone(&self.panel),
                grader: Arc::clone(&self.grader),
            }),
            mlops: Arc::new(MlOps { grader: Arc::clone(&self.grader), verifier: Arc::clone(&self.verifier) }),
            writer: Arc::new(Writer),
            verifier: Arc::clone(&self.verifier),
            config,
        }
    }

    /// The Foundry with the LLM-backed roles over `model`, each wrapping its
    /// built-in role (the strategist dresses the built-in plan, the
    /// developer sets hardness then builds, the MLOps engineer reviews the
    /// built-in checks, the writer writes from the built-in facts).
    pub fn llm_foundry(&self, config: FoundryConfig, model: Arc<dyn sandmle_core::ChatModel>) -> Foundry {
        let settings = sandmle_agents::llm::LlmSettings::new(model);
        let builtin = self.foundry(config);
        Foundry {
            strategist: Arc::new(sandmle_agents::llm::LlmStrategist {
                settings: settings.clone(),
                base: Arc::clone(&builtin.strategist),
                families: self.rule_families(),
            }),
            developer: Arc::new(sandmle_agents::llm::LlmDeveloper {
                settings: settings.clone(),
                base: Arc::clone(&builtin.developer),
            }),
            mlops: Arc::new(sandmle_agents::llm::LlmMlOps {
                settings: settings.clone(),
                base: Arc::clone(&builtin.mlops),
            }),
            writer: Arc::new(sandmle_agents::llm::LlmWriter { settings }),
            ..builtin
        }
    }

    /// [`Composition::llm_foundry`] whose ML Developer writes the data's
    /// program ([`sandmle_agents::llm::ProgramDeveloper`], the paper's
    /// design), run by `executor` under `timeout`; plans whose data is not
    /// a table (images, audio) go to the hardness-setting developer.
    pub fn llm_program_foundry(
        &self,
        config: FoundryConfig,
        model: Arc<dyn sandmle_core::ChatModel>,
        executor: Arc<dyn sandmle_core::Executor>,
        timeout: std::time::Duration,
    ) -> Foundry {
        let foundry = self.llm_foundry(config, Arc::clone(&model));
        let developer = sandmle_agents::llm::ProgramDeveloper {
            settings: sandmle_agents::llm::LlmSettings::new(model),
            synthesizer: Arc::clone(&self.synthesizer),
            executor,
            panel: Arc::clone(&self.panel),
            grader: Arc::clone(&self.grader),
            verifier: Arc::clone(&self.verifier),
            timeout,
            fallback: Some(Arc::clone(&foundry.developer)),
        };
        Foundry { developer: Arc::new(developer), ..foundry }
    }

    /// The rule families the synthesizer realises (for LLM strategists).
    pub fn rule_families(&self) -> Vec<String> {
        sandmle_synth::FAMILIES.iter().map(|f| f.name()).collect()
    }

    /// Panel, leaderboard, thresholds and gates ([`sandmle_core::calibrate`]),
    /// for environments the Foundry did not make (a shrunk seed, say).
    ///
    /// # Errors
    /// As [`sandmle_core::calibrate`].
    pub fn calibrate(&self, env: &mut Environment) -> Result<Vec<GateResult>> {
        calibrate(env, self.panel.as_ref(), self.grader.as_ref(), self.verifier.as_ref())
    }

    /// The panel's version.
    pub fn panel_version(&self) -> &str {
        self.panel.version()
    }
}

impl Default for Composition {
    fn default() -> Self {
        Self::new()
    }
}

/// The ports an RL episode runs on: the standard grader, the sandboxed
/// process executor (bubblewrap required unless `unsandboxed`) and the
/// pipeline executor, both with `step_timeout` as their limit. Code steps
/// run warm, with the Python of [`python_settings`]`(None, false)`.
pub fn rl_backends(step_timeout: std::time::Duration, unsandboxed: bool) -> sandmle_agents::Backends {
    rl_backends_with(step_timeout, unsandboxed, python_settings(None, false))
}

/// The Python settings of the command line: the interpreter or prefix
/// `python` when given, else `$SANDMLE_PYTHON` when set, else the
/// environment of `python3` on `PATH`; cold code steps when `cold`, else
/// warm ones.
pub fn python_settings(python: Option<&Path>, cold: bool) -> sandmle_exec::PythonSettings {
    let choice = match python.map(Path::to_path_buf).or_else(|| std::env::var_os("SANDMLE_PYTHON").map(PathBuf::from)) {
        Some(p) if !p.as_os_str().is_empty() => sandmle_exec::PythonChoice::Interpreter(p),
        _ => sandmle_exec::PythonChoice::CallerPath,
    };
    let code_steps = if cold { sandmle_exec::CodeSteps::Cold } else { sandmle_exec::CodeSteps::Warm };
    sandmle_exec::PythonSettings { choice, code_steps, ..sandmle_exec::PythonSettings::default() }
}

/// [`rl_backends`] with the given Python settings.
pub fn rl_backends_with(
    step_timeout: std::time::Duration,
    unsandboxed: bool,
    python: sandmle_exec::PythonSettings,
) -> sandmle_agents::Backends {
    let sandbox =
        if unsandboxed { sandmle_exec::SandboxMode::Unsandboxed } else { sandmle_exec::SandboxMode::Required };
    let process = sandmle_exec::ProcessExecutor { sandbox, python, ..sandmle_exec::ProcessExecutor::default() };
    sandmle_agents::Backends {
        grader: Arc::new(StandardGrader),
        code: Some(Arc::new(process)),
        pipeline: Some(Arc::new(sandmle_exec::PipelineExecutor::with_time_limit(step_timeout))),
    }
}

/// The sandboxed process executor (bubblewrap required unless
/// `unsandboxed`) with `python`, for programs run outside an episode
/// (generator programs, solution programs).
pub fn code_executor(unsandboxed: bool, python: sandmle_exec::PythonSettings) -> Arc<dyn sandmle_core::Executor> {
    let sandbox =
        if unsandboxed { sandmle_exec::SandboxMode::Unsandboxed } else { sandmle_exec::SandboxMode::Required };
    Arc::new(sandmle_exec::ProcessExecutor { sandbox, python, ..sandmle_exec::ProcessExecutor::default() })
}

/// The baseline panel's specs for `env`, as JSON (the `PanelPolicy`'s
/// menu).
pub fn panel_specs(env: &Environment) -> Vec<serde_json::Value> {
    Panel::default().specs(env.task(), env.train.n_rows()).iter().filter_map(|s| serde_json::to_value(s).ok()).collect()
}

/// A short JSON summary of an environment.
///
/// # Errors
/// As [`Environment::id`].
pub fn env_summary(env: &Environment) -> Result<serde_json::Value> {
    let task = env.task();
    Ok(serde_json::json!({
        "id": env.id()?,
        "task": task.id,
        "kind": task.kind,
        "metric": task.metric.name,
        "train_rows": env.train.n_rows(),
        "test_rows": env.test.n_rows(),
        "thresholds": env.grading.thresholds,
    }))
}

/// The seeds folder of the checkout this crate was built from (for the
/// examples, tests and benches of the repository; an installed `sandmle`
/// uses [`find_seeds`]).
pub fn repository_seeds() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("seeds")
}

/// Why no seeds folder was found.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SeedsError {
    /// `--seeds` names something that is not a folder of seeds.
    #[error("{}: not a folder of seed environments", path.display())]
    NotSeeds {
        /// The folder given.
        path: PathBuf,
    },
    /// None given and none found around the working directory.
    #[error(
        "no seeds folder: pass --seeds DIR (the bundled seeds are examples/seeds/ in a checkout of the repository)"
    )]
    NotFound,
}

/// The seeds folder: `explicit` when given, else `examples/seeds` of the
/// repository checkout holding the working directory (searched upwards),
/// never a path fixed when the binary was built.
///
/// # Errors
/// [`SeedsError`].
pub fn find_seeds(explicit: Option<&Path>) -> std::result::Result<PathBuf, SeedsError> {
    let is_seeds = |d: &Path| d.is_dir() && seed_names_in(d).is_ok_and(|n| !n.is_empty());
    if let Some(dir) = explicit {
        return if is_seeds(dir) { Ok(dir.to_path_buf()) } else { Err(SeedsError::NotSeeds { path: dir.into() }) };
    }
    let cwd = std::env::current_dir().map_err(|_| SeedsError::NotFound)?;
    cwd.ancestors()
        .flat_map(|a| [a.join("examples/seeds"), a.join("seeds")])
        .find(|d| is_seeds(d) && d.parent().is_some_and(|p| p.join("Cargo.toml").is_file()))
        .ok_or(SeedsError::NotFound)
}

/// The names of the seed environments in `dir`, sorted.
///
/// # Errors
/// [`sandmle_core::Error::Io`] if the folder cannot be listed.
pub fn seed_names_in(dir: &Path) -> Result<Vec<String>> {
    let entries =
        std::fs::read_dir(dir).map_err(|source| sandmle_core::Error::Io { path: dir.to_path_buf(), source })?;
    let mut names: Vec<String> = entries
        .filter_map(|e| e.ok())
        .filter(|e| e.path().join("prepared").is_dir())
        .filter_map(|e| e.file_name().into_string().ok())
        .collect();
    names.sort();
    Ok(names)
}

/// Reads a seed of the repository by name, checking every file's hash.
///
/// # Errors
/// As [`Environment::read`].
pub fn load_seed(name: &str) -> Result<Environment> {
    Environment::read(repository_seeds().join(name))
}
