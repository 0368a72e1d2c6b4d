//! [`ScriptedChatModel`]: replies from a list, requests recorded.

use sandmle_core::{ChatModel, ChatReply, Error, Message, Result, Sampling, ToolSpec};
use std::collections::VecDeque;
use std::sync::Mutex;

/// A chat model that replays scripted replies in order and records every
/// request's messages; past the script it fails with a typed error.
#[derive(Debug, Default)]
pub struct ScriptedChatModel {
    replies: Mutex<VecDeque<ChatReply>>,
    requests: Mutex<Vec<Vec<Message>>>,
}

impl ScriptedChatModel {
    /// A model replying with `texts`, in order.
    pub fn new<S: Into<String>>(texts: impl IntoIterator<Item = S>) -> Self {
        ScriptedChatModel::from_replies(texts.into_iter().map(ChatReply::text))
    }

    /// A model replying with `replies`, in order.
    pub fn from_replies(replies: impl IntoIterator<Item = ChatReply>) -> Self {
        ScriptedChatModel { replies: Mutex::new(replies.into_iter().collect()), requests: Mutex::new(Vec::new()) }
    }

    /// Every request's messages so far.
    pub fn requests(&self) -> Vec<Vec<Message>> {
        self.requests.lock().map(|r| r.clone()).unwrap_or_default()
    }

    /// Replies not yet given.
    pub fn remaining(&self) -> usize {
        self.replies.lock().map(|r| r.len()).unwrap_or(0)
    }
}

impl ChatModel for ScriptedChatModel {
    fn name(&self) -> &str {
        "scripted"
    }

    fn chat(&self, messages: &[Message], _tools: &[ToolSpec], _sampling: &Sampling) -> Result<ChatReply> {
        let poisoned =
            || Error::Unsupported { component: "scripted chat model".into(), what: "a poisoned lock".into() };
        self.requests.lock().map_err(|_| poisoned())?.push(messages.to_vec());
        self.replies.lock().map_err(|_| poisoned())?.pop_front().ok_or_else(|| Error::Unsupported {
            component: "scripted chat model".into(),
            what: "a request past the end of its script".into(),
        })
    }
}
