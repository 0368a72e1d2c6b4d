//! Typed actions, the tools that carry them, and the observation texts the
//! environment answers with (SandMLE's release wording, paraphrased).

use serde::{Deserialize, Serialize};

/// The Python tool's name in SandMLE's release.
pub const PYTHON_TOOL: &str = "PythonInterpreter";
/// The grading tool's name in SandMLE's release.
pub const SCORE_TOOL: &str = "Score";
/// This project's in-process pipeline tool (not in SandMLE's release; off
/// unless [`ToolSet::pipeline`] is set).
pub const PIPELINE_TOOL: &str = "RunPipeline";

/// One action of an episode.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Action {
    /// Run Python code in the episode's sandboxed workspace.
    RunCode {
        /// The program.
        code: String,
    },
    /// Run a pipeline spec in-process; its submission becomes the
    /// workspace's `submission.csv`.
    RunPipeline {
        /// The spec (JSON; its schema belongs to the pipeline executor).
        spec: serde_json::Value,
    },
    /// Grade the current `submission.csv`.
    Score,
    /// End the episode.
    Finish {
        /// The final answer's text.
        answer: String,
    },
}

impl Action {
    /// `run_code`, `run_pipeline`, `score` or `finish`.
    pub fn kind(&self) -> &'static str {
        match self {
            Action::RunCode { .. } => "run_code",
            Action::RunPipeline { .. } => "run_pipeline",
            Action::Score => "score",
            Action::Finish { .. } => "finish",
        }
    }

    /// The tool that carries the action and its arguments (`None` for
    /// [`Action::Finish`], which is an answer, not a tool).
    pub fn tool_call(&self) -> Option<(&'static str, serde_json::Value)> {
        match self {
            Action::RunCode { code } => Some((PYTHON_TOOL, serde_json::json!({ "code": code }))),
            Action::RunPipeline { spec } => Some((PIPELINE_TOOL, serde_json::json!({ "spec": spec }))),
            Action::Score => Some((SCORE_TOOL, serde_json::json!({}))),
            Action::Finish { .. } => None,
        }
    }
}

/// Which tools an episode offers. `Score` is always offered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolSet {
    /// The Python tool ([`PYTHON_TOOL`]).
    pub code: bool,
    /// The pipeline tool ([`PIPELINE_TOOL`]).
    pub pipeline: bool,
}

impl Default for ToolSet {
    /// SandMLE's release: Python and Score.
    fn default() -> Self {
        ToolSet { code: true, pipeline: false }
    }
}

impl ToolSet {
    /// The offered tools' names, in a fixed order.
    pub fn names(&self) -> Vec<&'static str> {
        let mut names = Vec::new();
        if self.code {
            names.push(PYTHON_TOOL);
        }
        if self.pipeline {
            names.push(PIPELINE_TOOL);
        }
        names.push(SCORE_TOOL);
        names
    }

    /// The action a tool call asks for, or the error text the model sees
    /// (an unknown or disabled tool, missing arguments).
    ///
    /// # Errors
    /// The observation text for a call that names no offered tool or lacks
    /// its arguments.
    pub fn action(&self, name: &str, arguments: &serde_json::Value) -> Result<Action, String> {
        let offered = self.names();
        let not_found = || format!("Tool {name} not found. Available tools: {offered:?}");
        match name {
            PYTHON_TOOL | "python" if self.code => match arguments.get("code").and_then(|c| c.as_str()) {
                Some(code) if !code.trim().is_empty() => Ok(Action::RunCode { code: code.to_owned() }),
                _ => Err(format!("Error: {PYTHON_TOOL} needs a non-empty string argument \"code\".")),
            },
            PIPELINE_TOOL if self.pipeline => match arguments.get("spec") {
                Some(spec) if spec.is_object() => Ok(Action::RunPipeline { spec: spec.clone() }),
                _ => Err(format!("Error: {PIPELINE_TOOL} needs an object argument \"spec\".")),
            },
            SCORE_TOOL => Ok(Action::Score),
            _ => Err(not_found()),
        }
    }
}

/// SandMLE's observation window: the last 20 lines of each stream.
pub const TAIL_LINES: usize = 20;

/// The last [`TAIL_LINES`] lines of `text` (trimmed), with a note of how
/// many earlier lines were cut.
pub fn tail_lines(text: &str) -> String {
    let text = text.trim();
    let lines: Vec<&str> = text.lines().collect();
    if lines.len() <= TAIL_LINES {
        return text.to_owned();
    }
    let cut = lines.len() - TAIL_LINES;
    let mut out = lines[cut..].join("\n");
    out.push_str(&format!("\n...[truncated {cut} earlier lines]"));
    out
}

/// The observation of a program run, in the release's layout: `[Output]`
/// and `[Stderr]` blocks (each the last 20 lines) and a note saying
/// whether `submission.csv` exists, or `[Timeout]` for a run killed at its
/// limit (the release's phrase "Python execution timed out", which its
/// harness counts).
pub fn run_observation(stdout: &str, stderr: &str, submission: bool, error: Option<&str>) -> String {
    let (out, err) = (tail_lines(stdout), tail_lines(stderr));
    let found = if submission { "submission.csv found" } else { "submission.csv not found" };
    let mut text = match (out.is_empty(), err.is_empty()) {
        (false, false) => format!("[Output]\n{out}\n\n[Stderr]\n{err}\n\nNote: {found}."),
        (false, true) => format!("[Output]\n{out}\n\nNote: no stderr, and {found}."),
        (true, false) => format!("No stdout, and {found}. Stderr:\n{err}"),
        (true, true) => format!("No stdout, and {found}."),
    };
    if let Some(e) = error {
        text = format!("[Error] {e}\n{text}");
    }
    text
}

/// The observation of a run killed at the step's time limit.
pub fn timeout_observation(seconds: f64) -> String {
    format!(
        "[Timeout] Python execution timed out after {seconds}s. Make the code faster so that it finishes \
         within {seconds}s."
    )
}
