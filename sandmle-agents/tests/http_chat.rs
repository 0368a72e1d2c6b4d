//! The HTTP chat model against a real HTTP server on 127.0.0.1 that speaks
//! OpenAI's chat-completions JSON and serves scripted replies.

use sandmle_agents::Error;
use sandmle_agents::http::{HttpChatConfig, HttpChatModel};
use sandmle_core::{ChatModel, FinishReason, Message, Sampling, ToolSpec};
use serde_json::json;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// One scripted reply: status, extra headers, body, delay before answering.
struct Scripted(u16, Vec<(&'static str, &'static str)>, String, Duration);

fn ok(body: serde_json::Value) -> Scripted {
    Scripted(200, vec![], body.to_string(), Duration::ZERO)
}

/// What the server saw of one request.
#[derive(Debug, Clone)]
struct Seen {
    authorization: Option<String>,
    body: serde_json::Value,
}

/// Serves `script` in order on a fresh port; returns the base URL and the
/// requests seen.
fn serve(script: Vec<Scripted>) -> (String, Arc<Mutex<Vec<Seen>>>) {
    let server = tiny_http::Server::http("127.0.0.1:0").unwrap();
    let port = server.server_addr().to_ip().unwrap().port();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = Arc::clone(&seen);
    std::thread::spawn(move || {
        for Scripted(status, headers, body, delay) in script {
            let Ok(mut request) = server.recv() else { return };
            let mut text = String::new();
            let _ = request.as_reader().read_to_string(&mut text);
            let authorization =
                request.headers().iter().find(|h| h.field.equiv("Authorization")).map(|h| h.value.to_string());
            log.lock().unwrap().push(Seen { authorization, body: serde_json::from_str(&text).unwrap_or_default() });
            std::thread::sleep(delay);
            let mut response = tiny_http::Response::from_string(body).with_status_code(status);
            for (k, v) in headers {
                response.add_header(tiny_http::Header::from_bytes(k.as_bytes(), v.as_bytes()).unwrap());
            }
            let _ = request.respond(response);
        }
    });
    (format!("http://127.0.0.1:{port}/v1"), seen)
}

/// The test's own variables (the process environment is left alone).
fn key_of(var: &str) -> Option<String> {
    match var {
        "SANDMLE_TEST_KEY_A" => Some("sk-secret-a".into()),
        "SANDMLE_TEST_KEY_B" => Some("sk-secret-b".into()),
        _ => None,
    }
}

fn model(url: &str, key_env: Option<&str>) -> HttpChatModel {
    let mut c = HttpChatConfig::new(url, "test-model");
    c.api_key_env = key_env.map(str::to_owned);
    c.backoff_base = Duration::from_millis(10);
    c.backoff_max = Duration::from_millis(200);
    c.timeout = Duration::from_millis(1500);
    c.max_attempts = 3;
    c.token_ids = true;
    HttpChatModel::with_key_lookup(c, key_of).unwrap()
}

fn completion(content: &str) -> serde_json::Value {
    json!({
        "id": "chatcmpl-1", "object": "chat.completion", "model": "test-model",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop",
                     "token_ids": [11, 12, 13],
                     "logprobs": {"content": [{"token": "a", "logprob": -0.1}, {"token": "b", "logprob": -0.2}, {"token": "c", "logprob": -0.3}]}}],
        "prompt_token_ids": [1, 2],
        "usage": {"prompt_tokens": 2, "completion_tokens": 3, "total_tokens": 5}
    })
}

#[test]
fn a_normal_reply_carries_text_usage_token_ids_and_logprobs() {
    let (url, seen) = serve(vec![ok(completion("<think>plan</think>hello"))]);
    let m = model(&url, Some("SANDMLE_TEST_KEY_A"));
    let sampling = Sampling { temperature: Some(0.7), max_tokens: Some(64), seed: Some(3), ..Sampling::default() };
    let reply = m.chat(&[Message::system("s"), Message::user("u")], &[], &sampling).unwrap();
    assert_eq!(reply.message.content, "<think>plan</think>hello");
    assert_eq!(reply.finish_reason, FinishReason::Stop);
    assert_eq!(reply.usage.unwrap().completion_tokens, 3);
    let tokens = reply.tokens.unwrap();
    assert_eq!((tokens.prompt_ids, tokens.completion_ids), (vec![1, 2], vec![11, 12, 13]));
    assert_eq!(tokens.logprobs, vec![-0.1, -0.2, -0.3]);
    let seen = seen.lock().unwrap();
    assert_eq!(seen[0].authorization.as_deref(), Some("Bearer sk-secret-a"));
    let body = &seen[0].body;
    assert_eq!(body["model"], "test-model");
    assert_eq!(body["temperature"], 0.7);
    assert_eq!(body["max_tokens"], 64);
    assert_eq!(body["messages"][1], json!({"role": "user", "content": "u"}));
    assert_eq!(body["return_token_ids"], true);
    assert!(!format!("{m:?}").contains("sk-secret-a"), "the key is never printed");
}

#[test]
fn a_tool_call_reply_is_parsed_and_tools_are_sent_as_functions() {
    let reply = json!({"choices": [{"message": {"role": "assistant", "content": null, "tool_calls": [
        {"id": "call_1", "type": "function", "function": {"name": "Score", "arguments": "{\"submission\": \"submission.csv\"}"}}
    ]}, "finish_reason": "tool_calls"}]});
    let (url, seen) = serve(vec![ok(reply)]);
    let tool = ToolSpec { name: "Score".into(), description: "score".into(), parameters: json!({"type": "object"}) };
    let r = model(&url, None).chat(&[Message::user("go")], &[tool], &Sampling::default()).unwrap();
    assert_eq!(r.finish_reason, FinishReason::ToolCalls);
    assert_eq!(r.message.tool_calls[0].name, "Score");
    assert_eq!(r.message.tool_calls[0].arguments, json!({"submission": "submission.csv"}));
    let first = seen.lock().unwrap()[0].clone();
    assert_eq!(first.body["tools"][0]["type"], "function");
    assert_eq!(first.body["tools"][0]["function"]["name"], "Score");
    assert!(first.authorization.is_none());
}

fn agents_error(e: sandmle_core::Error) -> Error {
    match e {
        sandmle_core::Error::Port { source, .. } => *source.downcast::<Error>().unwrap(),
        other => panic!("{other:?}"),
    }
}

#[test]
fn malformed_json_is_a_typed_error() {
    let (url, _) = serve(vec![Scripted(200, vec![], "{\"choices\": [".into(), Duration::ZERO)]);
    let e = agents_error(model(&url, None).chat(&[Message::user("x")], &[], &Sampling::default()).unwrap_err());
    assert!(matches!(e, Error::BadReply { .. }), "{e}");
}

#[test]
fn a_429_with_retry_after_and_a_500_are_retried() {
    let (url, seen) = serve(vec![
        Scripted(
            429,
            vec![("Retry-After", "0.05")],
            json!({"error": {"message": "slow down"}}).to_string(),
            Duration::ZERO,
        ),
        Scripted(500, vec![], "oops".into(), Duration::ZERO),
        ok(completion("third time")),
    ]);
    let start = std::time::Instant::now();
    let r = model(&url, None).chat(&[Message::user("x")], &[], &Sampling::default()).unwrap();
    assert_eq!(r.message.content, "third time");
    assert_eq!(seen.lock().unwrap().len(), 3);
    assert!(start.elapsed() >= Duration::from_millis(50), "Retry-After was honoured");
}

#[test]
fn a_reply_slower_than_the_timeout_is_retried_then_given_up() {
    let slow = || Scripted(200, vec![], completion("late").to_string(), Duration::from_millis(2500));
    let (url, seen) = serve(vec![slow(), slow(), slow()]);
    let e = agents_error(model(&url, None).chat(&[Message::user("x")], &[], &Sampling::default()).unwrap_err());
    assert!(matches!(&e, Error::Unavailable { attempts: 3, reason } if reason.contains("timeout")), "{e}");
    // The server answers one request at a time, so it has seen at least
    // the first two when the client gives up.
    assert!(seen.lock().unwrap().len() >= 2);
}

#[test]
fn a_401_is_an_error_at_once_with_the_servers_message_and_never_the_key() {
    let body = json!({"error": {"message": format!("invalid api key {}", "x".repeat(5000))}}).to_string();
    let (url, seen) = serve(vec![Scripted(401, vec![], body, Duration::ZERO)]);
    let e = agents_error(
        model(&url, Some("SANDMLE_TEST_KEY_B")).chat(&[Message::user("x")], &[], &Sampling::default()).unwrap_err(),
    );
    match &e {
        Error::Http { status: 401, message } => assert!(message.starts_with("invalid api key") && message.len() < 400),
        other => panic!("{other}"),
    }
    assert!(!e.to_string().contains("sk-secret-b"));
    assert_eq!(seen.lock().unwrap().len(), 1, "no retry");
    assert!(e.to_string().len() < 500);
}

#[test]
fn an_unset_key_variable_and_a_bad_url_are_refused() {
    let mut c = HttpChatConfig::new("http://127.0.0.1:9/v1", "m");
    c.api_key_env = Some("SANDMLE_TEST_KEY_UNSET".into());
    assert!(matches!(HttpChatModel::with_key_lookup(c, key_of), Err(Error::BadSetting { .. })));
    assert!(HttpChatModel::new(HttpChatConfig::new("ftp://x", "m")).is_err());
}

/// A model server could redirect the client (and its key) to any host the
/// machine reaches; the client never follows a redirect.
#[test]
fn a_redirect_is_never_followed() {
    let (elsewhere, seen_elsewhere) = serve(vec![ok(completion("from elsewhere"))]);
    let location: &'static str = Box::leak(format!("{elsewhere}/chat/completions").into_boxed_str());
    let (url, seen) = serve(vec![Scripted(302, vec![("Location", location)], String::new(), Duration::ZERO)]);
    let m = model(&url, Some("SANDMLE_TEST_KEY_A"));
    let err = agents_error(m.chat(&[Message::user("hi")], &[], &Sampling::default()).unwrap_err());
    assert!(matches!(err, Error::Http { status: 302, .. }), "{err:?}");
    assert!(!seen.lock().unwrap().is_empty());
    assert!(seen_elsewhere.lock().unwrap().is_empty(), "the redirect's target was called");
}
