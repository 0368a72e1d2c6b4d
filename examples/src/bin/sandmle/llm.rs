//! The flags that point a command at an OpenAI-compatible server.

use crate::output::Failure;
use clap::Args;
use sandmle_agents::http::{HttpChatConfig, HttpChatModel};
use std::sync::Arc;
use std::time::Duration;

#[derive(Args, Clone)]
pub struct LlmArgs {
    /// The server's base URL, up to `/v1` (`http://127.0.0.1:8000/v1`).
    #[arg(long = "base-url")]
    base_url: Option<String>,
    /// The model's name on the server.
    #[arg(long)]
    model: Option<String>,
    /// The environment variable holding the API key (the key itself is
    /// never printed or written).
    #[arg(long = "api-key-env")]
    api_key_env: Option<String>,
    /// Seconds one request may take.
    #[arg(long = "request-timeout", default_value_t = 120.0)]
    request_timeout: f64,
    /// Ask for token ids and log-probabilities (vLLM).
    #[arg(long = "token-ids")]
    token_ids: bool,
}

impl LlmArgs {
    /// The chat model these flags name.
    pub fn model(&self) -> Result<Arc<dyn sandmle_core::ChatModel>, Failure> {
        let (Some(url), Some(model)) = (&self.base_url, &self.model) else {
            return Err(Failure::usage("an LLM needs --base-url URL and --model NAME"));
        };
        let mut config = HttpChatConfig::new(url, model);
        config.api_key_env.clone_from(&self.api_key_env);
        config.token_ids = self.token_ids;
        config.timeout = Duration::try_from_secs_f64(self.request_timeout)
            .ok()
            .filter(|d| !d.is_zero())
            .ok_or_else(|| Failure::usage("--request-timeout must be a positive number of seconds"))?;
        Ok(Arc::new(HttpChatModel::new(config).map_err(|e| Failure::usage(e.to_string()))?))
    }
}
