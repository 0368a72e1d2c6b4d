//! Episode options as every front end takes them — the server's reset
//! options, the Python package's `Env(...)` keywords, `sandmle rollout`'s
//! flags — parsed and checked in one place.
//!
//! [`EpisodeOptions`] is the unchecked form (serde, the names the server
//! documents); [`EpisodeOptions::check`] turns it into the codec, the
//! reward and an [`EpisodeConfig`] before anything runs, or says which
//! option is wrong ([`crate::Error::BadSetting`], the caller's fault).
//!
//! | option | values | default |
//! |---|---|---|
//! | `codec` | `sandmle_react`, `hermes_json`, `openai_tools` | `sandmle_react` |
//! | `reward` (or `reward_scheme`) | `released_dense`, `paper_dense`, `sparse`, `human_rank` | `released_dense` |
//! | `reward_mode` | `delta`, `terminal` | `delta` |
//! | `max_turns` | 1 to 1,000 | 15 |
//! | `step_timeout_s` | seconds, at most the caller's limit | the limit (300) |
//! | `episode_time_s` (or `episode_timeout_s`) | seconds, at most a week | 1200 |
//! | `tools` | any of `python` (`code`, `Python`, `PythonInterpreter`), `pipeline` (`RunPipeline`); `Score` is always offered and may be named | `["python"]` |
//! | `graded` | `last`, `best` | `last` |

use super::{EpisodeConfig, Graded, RewardMode, ToolSet};
use crate::codec::{CODECS, Codec, codec_by_name};
use crate::error::{Error, Result};
use crate::reward::{REWARD_SCHEMES, Reward, reward_by_name};
use serde::{Deserialize, Serialize};
use std::sync::Arc;
use std::time::Duration;

/// The most turns an episode may be given.
pub const MAX_TURNS: u32 = 1_000;

/// An episode's options, unchecked (every field optional: absent means the
/// default).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct EpisodeOptions {
    /// The codec.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub codec: Option<String>,
    /// The reward scheme.
    #[serde(default, alias = "reward_scheme", skip_serializing_if = "Option::is_none")]
    pub reward: Option<String>,
    /// `delta` or `terminal`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reward_mode: Option<String>,
    /// Most assistant turns.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_turns: Option<u32>,
    /// Seconds a code or pipeline step may run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub step_timeout_s: Option<f64>,
    /// Seconds the episode may run.
    #[serde(default, alias = "episode_timeout_s", skip_serializing_if = "Option::is_none")]
    pub episode_time_s: Option<f64>,
    /// The tools offered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<Vec<String>>,
    /// Which scored submission is graded: `last` or `best`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub graded: Option<String>,
}

/// Checked options: what an episode is built from.
#[derive(Clone)]
pub struct CheckedEpisode {
    /// The codec.
    pub codec: Arc<dyn Codec>,
    /// The reward scheme.
    pub reward: Arc<dyn Reward>,
    /// The settings.
    pub config: EpisodeConfig,
}

impl std::fmt::Debug for CheckedEpisode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CheckedEpisode")
            .field("codec", &self.codec.name())
            .field("reward", &self.reward.name())
            .field("config", &self.config)
            .finish()
    }
}

fn bad(setting: &'static str, reason: impl Into<String>) -> Error {
    Error::BadSetting { setting, reason: reason.into() }
}

/// A positive duration of `s` seconds, at most a week.
fn seconds(setting: &'static str, s: f64) -> Result<Duration> {
    Duration::try_from_secs_f64(s)
        .ok()
        .filter(|d| !d.is_zero() && d.as_secs() <= 7 * 24 * 3600)
        .ok_or_else(|| bad(setting, "a positive number of seconds, at most a week"))
}

/// The tool set a list of names asks for (see the module documentation).
///
/// # Errors
/// [`Error::BadSetting`] for an unknown name or no tool but Score.
pub fn tool_set(names: &[String]) -> Result<ToolSet> {
    let mut set = ToolSet { code: false, pipeline: false };
    for t in names {
        match t.as_str() {
            "python" | "Python" | "PythonInterpreter" | "code" => set.code = true,
            "pipeline" | "RunPipeline" => set.pipeline = true,
            "Score" => {}
            other => return Err(bad("tools", format!("python or pipeline, not `{}`", sandmle_core::bounded(other)))),
        }
    }
    Ok(set)
}

impl EpisodeOptions {
    /// Checks every option; `max_step` bounds `step_timeout_s` (a server's
    /// limit) and is its default.
    ///
    /// # Errors
    /// [`Error::BadSetting`] naming the first wrong option.
    pub fn check(&self, max_step: Duration) -> Result<CheckedEpisode> {
        let codec_name = self.codec.as_deref().unwrap_or("sandmle_react");
        let codec = codec_by_name(codec_name).ok_or_else(|| bad("codec", format!("one of {}", CODECS.join(", "))))?;
        let reward_name = self.reward.as_deref().unwrap_or("released_dense");
        let reward = reward_by_name(reward_name)
            .ok_or_else(|| bad("reward", format!("one of {}", REWARD_SCHEMES.join(", "))))?;
        let mut config = EpisodeConfig { step_timeout: max_step, ..EpisodeConfig::default() };
        if let Some(t) = self.max_turns {
            if t == 0 || t > MAX_TURNS {
                return Err(bad("max_turns", format!("from 1 to {MAX_TURNS}")));
            }
            config.max_turns = t;
        }
        if let Some(s) = self.step_timeout_s {
            config.step_timeout = seconds("step_timeout_s", s)?.min(max_step);
        }
        if let Some(s) = self.episode_time_s {
            config.episode_time = seconds("episode_time_s", s)?;
        }
        config.reward_mode = match self.reward_mode.as_deref() {
            None | Some("delta") => RewardMode::Delta,
            Some("terminal") => RewardMode::Terminal,
            Some(other) => {
                return Err(bad("reward_mode", format!("delta or terminal, not `{}`", sandmle_core::bounded(other))));
            }
        };
        config.graded = match self.graded.as_deref() {
            None | Some("last") => Graded::Last,
            Some("best") => Graded::Best,
            Some(other) => return Err(bad("graded", format!("last or best, not `{}`", sandmle_core::bounded(other)))),
        };
        if let Some(tools) = &self.tools {
            config.tools = tool_set(tools)?;
        }
        Ok(CheckedEpisode { codec, reward, config })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(json: serde_json::Value) -> Result<CheckedEpisode> {
        serde_json::from_value::<EpisodeOptions>(json).unwrap().check(Duration::from_secs(300))
    }

    #[test]
    fn defaults_are_the_releases_and_aliases_are_one_option() {
        let c = check(serde_json::json!({})).unwrap();
        assert_eq!((c.codec.name(), c.reward.name()), ("sandmle_react", "released_dense"));
        assert_eq!(c.config, EpisodeConfig::default());
        let a = check(serde_json::json!({"episode_timeout_s": 60, "reward_scheme": "sparse"})).unwrap();
        let b = check(serde_json::json!({"episode_time_s": 60, "reward": "sparse"})).unwrap();
        assert_eq!(a.config, b.config);
        assert_eq!(a.reward.name(), b.reward.name());
    }

    /// The Python package took `PythonInterpreter` and `Score` as tool
    /// names and `graded`; the server did not.
    #[test]
    fn tool_names_and_graded_are_the_same_everywhere() {
        let c = check(serde_json::json!({"tools": ["PythonInterpreter", "Score", "RunPipeline"], "graded": "best"}))
            .unwrap();
        assert_eq!(c.config.tools, ToolSet { code: true, pipeline: true });
        assert_eq!(c.config.graded, Graded::Best);
    }

    #[test]
    fn wrong_options_are_named_and_the_step_limit_is_a_ceiling() {
        for (bad, setting) in [
            (serde_json::json!({"codec": "x"}), "codec"),
            (serde_json::json!({"reward": "x"}), "reward"),
            (serde_json::json!({"reward_mode": "x"}), "reward_mode"),
            (serde_json::json!({"graded": "x"}), "graded"),
            (serde_json::json!({"tools": ["bash"]}), "tools"),
            (serde_json::json!({"max_turns": 0}), "max_turns"),
            (serde_json::json!({"step_timeout_s": -1.0}), "step_timeout_s"),
            (serde_json::json!({"episode_time_s": 1e12}), "episode_time_s"),
        ] {
            match check(bad.clone()) {
                Err(Error::BadSetting { setting: s, .. }) => assert_eq!(s, setting, "{bad}"),
                other => panic!("{bad}: {other:?}"),
            }
        }
        let c = check(serde_json::json!({"step_timeout_s": 9000})).unwrap();
        assert_eq!(c.config.step_timeout, Duration::from_secs(300));
    }
}
