//! [`Episode`]: reset, step, close.

use super::action::{run_observation, timeout_observation};
use super::prompt::prompt_messages;
use super::score::score_observation;
use super::step::{Reset, Step, StepInfo, StepRecord, Termination};
use super::{Action, Backends, EpisodeConfig, Graded, RewardMode, Task};
use crate::codec::{Call, Codec, NoAction, format_ok};
use crate::error::{Error, Result};
use crate::reward::{Reward, RewardInput, RewardValue, format_rate};
use sandmle_core::{
    Cancel, ExecStatus, Execution, GradeReport, Message, Solution, Table, ToolCall, ToolSpec, Workspace,
};
use std::sync::Arc;
use std::time::{Duration, Instant};

enum Files {
    Workspace(Box<dyn Workspace>),
    Memory(Option<Table>),
}

/// One episode; see the [module documentation](super).
pub struct Episode {
    task: Task,
    backends: Backends,
    codec: Arc<dyn Codec>,
    reward: Arc<dyn Reward>,
    config: EpisodeConfig,
    files: Option<Files>,
    prompt: Vec<Message>,
    completion: Vec<Message>,
    texts: Vec<String>,
    steps: Vec<StepRecord>,
    scores: Vec<GradeReport>,
    last_total: f64,
    started: Option<Instant>,
    env_time: Duration,
    done: Option<Termination>,
    outcome: Option<(RewardValue, GradeReport)>,
    cancel: Option<Cancel>,
}

impl std::fmt::Debug for Episode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Episode")
            .field("task", &self.task.id())
            .field("codec", &self.codec.name())
            .field("turn", &self.steps.len())
            .field("done", &self.done)
            .finish_non_exhaustive()
    }
}

fn status_name(s: &ExecStatus) -> &'static str {
    match s {
        ExecStatus::Completed => "completed",
        ExecStatus::Rejected { .. } => "rejected",
        ExecStatus::Failed { .. } => "failed",
        ExecStatus::TimedOut => "timed_out",
        ExecStatus::MemoryExceeded => "memory_exceeded",
        ExecStatus::OutputLimitExceeded => "output_limit_exceeded",
        _ => "failed",
    }
}

fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

impl Episode {
    /// A new episode (nothing runs until [`Episode::reset`]).
    ///
    /// # Errors
    /// [`Error::BadSetting`] when `config` does not fit `backends`.
    pub fn new(
        task: Task,
        backends: Backends,
        codec: Arc<dyn Codec>,
        reward: Arc<dyn Reward>,
        config: EpisodeConfig,
    ) -> Result<Episode> {
        config.check(&backends)?;
        Ok(Episode {
            task,
            backends,
            codec,
            reward,
            config,
            files: None,
            prompt: Vec::new(),
            completion: Vec::new(),
            texts: Vec::new(),
            steps: Vec::new(),
            scores: Vec::new(),
            last_total: 0.0,
            started: None,
            env_time: Duration::ZERO,
            done: None,
            outcome: None,
            cancel: None,
        })
    }

    /// Watches `cancel` from now on: a code step running when it is set is
    /// stopped (its program killed), and later code steps end at once. A
    /// server sets one per session and cancels it when the session's
    /// client leaves or the server stops.
    pub fn set_cancel(&mut self, cancel: Cancel) {
        if let Some(Files::Workspace(ws)) = &mut self.files {
            ws.set_cancel(cancel.clone());
        }
        self.cancel = Some(cancel);
    }

    /// Opens the workspace and returns the prompt. A second call starts the
    /// episode over in a fresh workspace.
    ///
    /// # Errors
    /// The code executor's faults (no sandbox here, a workspace that cannot
    /// be written) and a grader that finds the environment broken.
    pub fn reset(&mut self) -> Result<Reset> {
        let start = Instant::now();
        self.close();
        let env = self.task.environment();
        self.backends.grader.check(&env.grading_task())?;
        let files = match (&self.backends.code, self.config.tools.code) {
            (Some(exec), true) => {
                let mut ws = exec.open_workspace(&env.public_view())?;
                if let Some(c) = &self.cancel {
                    ws.set_cancel(c.clone());
                }
                Files::Workspace(ws)
            }
            _ => Files::Memory(None),
        };
        self.files = Some(files);
        (self.completion, self.texts, self.steps, self.scores) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        (self.last_total, self.done, self.outcome) = (0.0, None, None);
        let tools = &self.config.tools;
        self.prompt = prompt_messages(&self.task, self.codec.as_ref(), &self.config);
        self.started = Some(start);
        self.env_time = start.elapsed();
        Ok(Reset { messages: self.prompt.clone(), tools: self.codec.tools(tools), info: self.info() })
    }

    fn info(&self) -> serde_json::Value {
        let c = &self.config;
        serde_json::json!({
            "task_id": self.task.id(),
            "env_version": self.task.version(),
            "codec": self.codec.name(),
            "reward_scheme": self.reward.name(),
            "tools": c.tools.names(),
            "max_turns": c.max_turns,
            "step_timeout_s": c.step_timeout.as_secs_f64(),
            "episode_time_s": c.episode_time.as_secs_f64(),
            "reward_weights": self.reward_weights(),
        })
    }

    /// The weight of each of the reward scheme's components.
    pub fn reward_weights(&self) -> std::collections::BTreeMap<String, f64> {
        let input = RewardInput { format_rate: 0.0, grade: None, thresholds: self.task.thresholds() };
        self.reward.reward(&input).weights()
    }

    /// One step from the assistant's raw text.
    ///
    /// # Errors
    /// As [`Episode::step_message`].
    pub fn step_text(&mut self, text: &str) -> Result<Step> {
        self.step_message(Message::assistant(text))
    }

    /// One step from a tool call the trainer parsed itself: recorded as an
    /// assistant message with that call and empty text.
    ///
    /// # Errors
    /// As [`Episode::step_message`].
    pub fn step_tool(&mut self, name: &str, arguments: serde_json::Value, call_id: &str) -> Result<Step> {
        let mut m = Message::assistant("");
        m.tool_calls.push(ToolCall { id: call_id.to_owned(), name: name.to_owned(), arguments });
        self.step_message(m)
    }

    /// One step from a whole assistant message: parse, act, observe,
    /// reward. A malformed turn consumes the turn and returns an error
    /// observation.
    ///
    /// # Errors
    /// [`Error::EpisodeNotRunning`] before `reset` or after the end; the
    /// executors' and grader's own faults (never the agent's).
    pub fn step_message(&mut self, message: Message) -> Result<Step> {
        let (Some(started), None) = (self.started, self.done) else {
            return Err(Error::EpisodeNotRunning);
        };
        let step_start = Instant::now();
        let turn = u32::try_from(self.steps.len() + 1).unwrap_or(u32::MAX);
        let tools = self.config.tools;
        let parsed = self.codec.parse(&message, &tools);
        let format = format_ok(&message.content);
        self.texts.push(message.content.clone());
        self.completion.push(message);
        let left = self.config.episode_time.saturating_sub(started.elapsed());
        let mut grade = None;
        let mut out_of_time = left.is_zero();
        let (action, status, observation) = if out_of_time {
            ("none".to_owned(), "skipped".to_owned(), Vec::new())
        } else {
            match &parsed.call {
                Call::None => {
                    let status = if parsed.answer.is_some() { "answer" } else { "no_action" };
                    let action = if parsed.answer.is_some() { "finish" } else { "none" };
                    (action.to_owned(), status.to_owned(), Vec::new())
                }
                Call::Malformed { reason, call_ids } => {
                    ("malformed".to_owned(), "malformed".to_owned(), self.codec.render_result(reason, call_ids))
                }
                Call::Action { action, call_ids } => {
                    let timeout = self.config.step_timeout.min(left);
                    let (status, text, report) = self.act(action, timeout, turn)?;
                    if status == "timed_out" && timeout < self.config.step_timeout {
                        out_of_time = true;
                    }
                    grade = report;
                    (action.kind().to_owned(), status, self.codec.render_result(&text, call_ids))
                }
            }
        };
        if out_of_time || started.elapsed() >= self.config.episode_time {
            self.done = Some(Termination::TimeLimit);
        } else if parsed.answer.is_some() {
            self.done = Some(Termination::Answer);
        } else if matches!(parsed.call, Call::None) && self.codec.no_action() == NoAction::Stop {
            self.done = Some(Termination::NoToolCall);
        } else if turn >= self.config.max_turns {
            self.done = Some(Termination::MaxTurns);
        }
        self.completion.extend(observation.iter().cloned());
        let final_step = self.done.is_some();
        let (total, final_grade) = if final_step || self.config.reward_mode == RewardMode::Delta {
            let (value, report) = self.evaluate(final_step)?;
            (Some(value), report)
        } else {
            (None, None)
        };
        let reward = match (self.config.reward_mode, &total) {
            (RewardMode::Delta, Some(t)) => t.value - std::mem::replace(&mut self.last_total, t.value),
            (RewardMode::Terminal, Some(t)) if final_step => t.value,
            _ => 0.0,
        };
        let current = total.clone();
        let wall = step_start.elapsed();
        self.env_time += wall;
        let record = StepRecord { turn, action, format_ok: format, status, wall_ms: millis(wall), reward, grade };
        self.steps.push(record.clone());
        let (total, final_grade) = if final_step {
            if let (Some(t), Some(g)) = (&total, &final_grade) {
                self.outcome = Some((t.clone(), g.clone()));
            }
            (total, final_grade)
        } else {
            (None, None)
        };
        let termination = self.done;
        Ok(Step {
            observation,
            reward,
            terminated: termination.is_some_and(|t| !t.is_truncation()),
            truncated: termination.is_some_and(Termination::is_truncation),
            info: StepInfo { record, termination, total, current, final_grade },
        })
    }

    /// Runs one action: `(status, observation text, score report)`.
    fn act(&mut self, action: &Action, timeout: Duration, turn: u32) -> Result<(String, String, Option<GradeReport>)> {
        match action {
            Action::RunCode { code } => {
                let file = format!("main_{turn}.py");
                let mut command = self.config.interpreter.clone();
                command.push(file.clone());
                let Some(Files::Workspace(ws)) = self.files.as_mut() else {
                    return Err(Error::EpisodeNotRunning);
                };
                ws.write_file(&file, code.as_bytes())?;
                let run = ws.run(&command, timeout)?;
                let has = ws.has_submission();
                Ok(observe_run(&run, has, timeout))
            }
            Action::RunPipeline { spec } => {
                let Some(exec) = self.backends.pipeline.clone() else {
                    return Err(Error::EpisodeNotRunning);
                };
                let run = exec.execute(&Solution::Pipeline(spec.clone()), &self.task.environment().public_view())?;
                if let Some(sub) = &run.submission {
                    match self.files.as_mut() {
                        Some(Files::Workspace(ws)) => {
                            ws.write_file("submission.csv", &sandmle_core::csv::to_csv_bytes(sub)?)?
                        }
                        Some(Files::Memory(slot)) => *slot = Some(sub.clone()),
                        None => return Err(Error::EpisodeNotRunning),
                    }
                }
                let (status, mut text, _) = observe_run(&run, self.has_submission(), timeout);
                if let (ExecStatus::Completed, Some(sub)) = (&run.status, &run.submission) {
                    text = format!(
                        "[Output]\nThe pipeline ran and wrote submission.csv ({} rows).\n\nNote: no stderr, and \
                         submission.csv found.",
                        sub.n_rows()
                    );
                }
                Ok((status, text, None))
            }
            Action::Score => {
                let report = self.grade_current()?;
                let text = score_observation(&report, self.task.thresholds(), self.config.show_thresholds);
                let status = if report.valid_submission { "scored" } else { "invalid_submission" };
                self.scores.push(report.clone());
                Ok((status.to_owned(), text, Some(report)))
            }
            Action::Finish { .. } => Ok(("answer".to_owned(), String::new(), None)),
        }
    }

    fn has_submission(&self) -> bool {
        match &self.files {
            Some(Files::Workspace(ws)) => ws.has_submission(),
            Some(Files::Memory(slot)) => slot.is_some(),
            None => false,
        }
    }

    /// Grades the workspace's `submission.csv` as it is now.
    fn grade_current(&self) -> Result<GradeReport> {
        let env = self.task.environment();
        let t = self.task.thresholds();
        let invalid = |why: String| GradeReport::invalid(env.task().direction, Some(t), why);
        let table = match &self.files {
            Some(Files::Workspace(ws)) if !ws.has_submission() => return Ok(invalid(NO_SUBMISSION.into())),
            Some(Files::Workspace(ws)) => match ws.submission()? {
                Ok(table) => table,
                Err(why) => return Ok(invalid(why)),
            },
            Some(Files::Memory(Some(table))) => table.clone(),
            _ => return Ok(invalid(NO_SUBMISSION.into())),
        };
        Ok(self.backends.grader.grade(&env.grading_task(), &table)?)
    }

    /// The reward of the episode so far and the report it graded: the last
    /// (or best) valid Score report, else the current `submission.csv`
    /// (graded only at the end or when it exists).
    fn evaluate(&self, final_step: bool) -> Result<(RewardValue, Option<GradeReport>)> {
        let d = self.task.environment().task().direction;
        let valid = self.scores.iter().filter(|g| g.valid_submission && g.score.is_some());
        let picked = match self.config.graded {
            Graded::Last => valid.clone().next_back().cloned(),
            Graded::Best => valid
                .fold(None::<&GradeReport>, |best, g| match (best, g.score, best.and_then(|b| b.score)) {
                    (Some(b), Some(s), Some(bs)) if !d.better(s, bs) => Some(b),
                    _ => Some(g),
                })
                .cloned(),
        };
        let report = match picked {
            Some(r) => Some(r),
            None if final_step || self.has_submission() => Some(self.grade_current()?),
            None => None,
        };
        let input = RewardInput {
            format_rate: format_rate(&self.texts),
            grade: report.as_ref(),
            thresholds: self.task.thresholds(),
        };
        Ok((self.reward.reward(&input), report))
    }

    /// Ends the episode's workspace (removing it). Safe to call twice.
    pub fn close(&mut self) {
        self.files = None;
    }

    /// Marks the episode ended by a policy failure (for rollouts), grading
    /// what it has.
    ///
    /// # Errors
    /// The grader's faults.
    pub fn abort(&mut self) -> Result<()> {
        if self.done.is_none() && self.started.is_some() {
            self.done = Some(Termination::PolicyError);
            let (value, report) = self.evaluate(true)?;
            if let Some(r) = report {
                self.outcome = Some((value, r));
            }
        }
        Ok(())
    }

    /// The prompt and the completion so far, in order.
    pub fn messages(&self) -> Vec<Message> {
        self.prompt.iter().chain(self.completion.iter()).cloned().collect()
    }

    /// The prompt messages.
    pub fn prompt(&self) -> &[Message] {
        &self.prompt
    }

    /// The completion messages (assistant turns verbatim, observations).
    pub fn completion(&self) -> &[Message] {
        &self.completion
    }

    /// The tool schemas of this episode.
    pub fn tools(&self) -> Vec<ToolSpec> {
        self.codec.tools(&self.config.tools)
    }

    /// The steps so far.
    pub fn steps(&self) -> &[StepRecord] {
        &self.steps
    }

    /// Why the episode ended, once it has.
    pub fn termination(&self) -> Option<Termination> {
        self.done
    }

    /// The final reward and the graded report, once the episode has ended.
    pub fn outcome(&self) -> Option<&(RewardValue, GradeReport)> {
        self.outcome.as_ref()
    }

    /// The task.
    pub fn task(&self) -> &Task {
        &self.task
    }

    /// The codec's name.
    pub fn codec_name(&self) -> &str {
        self.codec.name()
    }

    /// The reward scheme's name.
    pub fn reward_name(&self) -> &str {
        self.reward.name()
    }

    /// The settings.
    pub fn config(&self) -> &EpisodeConfig {
        &self.config
    }

    /// Time spent in the environment (reset and steps), **not
    /// deterministic**.
    pub fn env_time(&self) -> Duration {
        self.env_time
    }
}

const NO_SUBMISSION: &str = "submission.csv not found in the working directory; write it with your code first";

/// `(status, observation)` of a run, by the release's layout.
fn observe_run(run: &Execution, submission: bool, timeout: Duration) -> (String, String, Option<GradeReport>) {
    let status = status_name(&run.status).to_owned();
    let text = match &run.status {
        ExecStatus::TimedOut => timeout_observation(timeout.as_secs_f64()),
        ExecStatus::Completed => run_observation(&run.stdout_tail, &run.stderr_tail, submission, None),
        ExecStatus::Failed { reason } if reason.contains("no submission.csv") || reason.starts_with("exited") => {
            run_observation(&run.stdout_tail, &run.stderr_tail, submission, None)
        }
        ExecStatus::Failed { reason } | ExecStatus::Rejected { reason } => {
            run_observation(&run.stdout_tail, &run.stderr_tail, submission, Some(reason))
        }
        ExecStatus::MemoryExceeded => {
            run_observation(&run.stdout_tail, &run.stderr_tail, submission, Some("the program ran out of memory"))
        }
        _ => run_observation(&run.stdout_tail, &run.stderr_tail, submission, Some("the program exceeded a limit")),
    };
    (status, text, None)
}
