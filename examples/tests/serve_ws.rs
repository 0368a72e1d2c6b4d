//! `sandmle::serve` over a real socket on 127.0.0.1: the WebSocket
//! protocol (reset, step, state, close, malformed messages), the session
//! cap, the idle reaper, graceful shutdown and the HTTP routes. Every wait
//! is a generous "does not hang" guard, never a timing assertion.

mod common;

use common::serve::*;
use futures_util::{SinkExt, StreamExt};
use sandmle::serve::ServeConfig;
use serde_json::{Value, json};
use std::time::Duration;
use tokio_tungstenite::tungstenite::Message;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_full_episode_over_the_websocket_with_malformed_messages_answered_not_fatal() {
    let server = Server::start(ServeConfig::default()).await;
    let mut ws = server.connect().await;

    // Malformed messages get OpenEnv's error codes and the session goes on.
    assert_eq!(code_of(&raw(&mut ws, "{not json").await), "INVALID_JSON");
    assert_eq!(code_of(&raw(&mut ws, "[1, 2]").await), "VALIDATION_ERROR");
    assert_eq!(code_of(&ask(&mut ws, json!({"type": "jump"})).await), "UNKNOWN_TYPE");
    // A step outside an episode is the caller's mistake, as Python's
    // `BadArguments` says (it was an EXECUTION_ERROR here).
    assert_eq!(code_of(&ask(&mut ws, json!({"type": "step", "data": {"content": "hi"}})).await), "VALIDATION_ERROR");
    assert_eq!(code_of(&ask(&mut ws, json!({"type": "reset", "data": {"codec": "nope"}})).await), "VALIDATION_ERROR");
    assert_eq!(code_of(&ask(&mut ws, json!({"type": "reset", "data": {"seed": -1}})).await), "VALIDATION_ERROR");
    assert_eq!(
        code_of(&ask(&mut ws, json!({"type": "reset", "data": {"task_id": "no-such-task"}})).await),
        "VALIDATION_ERROR"
    );

    let state = ask(&mut ws, json!({"type": "state"})).await;
    assert_eq!(state["type"], "state");
    assert_eq!(state["data"]["step_count"], 0);

    let reset =
        ask(&mut ws, json!({"type": "reset", "data": {"seed": 3, "tools": ["pipeline"], "episode_id": "ep-1"}})).await;
    assert_eq!(reset["type"], "observation", "{reset}");
    let data = &reset["data"];
    assert_eq!(data["done"], false);
    assert!(data["reward"].is_null());
    assert_eq!(data["observation"]["messages"].as_array().unwrap().len(), 2);
    assert_eq!(data["observation"]["episode_id"], "ep-1");
    assert!(data["observation"]["info"]["task_id"].as_str().unwrap().starts_with("wine"));

    // An action with an unknown field is refused (OpenEnv's actions forbid extras).
    assert_eq!(code_of(&ask(&mut ws, json!({"type": "step", "data": {"code": "x"}})).await), "VALIDATION_ERROR");

    let mut total = 0.0;
    let step = ask(&mut ws, json!({"type": "step", "data": {"content": pipeline_turn()}})).await;
    assert_eq!(step["type"], "observation", "{step}");
    assert_eq!(step["data"]["done"], false);
    total += step["data"]["reward"].as_f64().unwrap();
    let score = r#"<think>grade</think><tool_call>{"name": "Score", "arguments": {}}</tool_call>"#;
    let step = ask(&mut ws, json!({"type": "step", "data": {"content": score}})).await;
    assert_eq!(step["type"], "observation", "{step}");
    let text = step["data"]["observation"]["messages"][0]["content"].as_str().unwrap();
    assert!(text.contains("Submission OK"), "{text}");
    total += step["data"]["reward"].as_f64().unwrap();
    let last =
        ask(&mut ws, json!({"type": "step", "data": {"content": "<think>done</think><answer>ok</answer>"}})).await;
    assert_eq!(last["data"]["done"], true, "{last}");
    assert_eq!(last["data"]["observation"]["terminated"], true);
    total += last["data"]["reward"].as_f64().unwrap();
    let info = &last["data"]["observation"]["info"];
    assert!((info["total_reward"].as_f64().unwrap() - total).abs() < 1e-9, "{info}");
    assert!(total >= 0.3 - 1e-9, "a valid submission in format: {total}");
    assert_eq!(info["final_grade"]["valid_submission"], true);

    let state = ask(&mut ws, json!({"type": "state"})).await;
    assert_eq!(state["data"]["step_count"], 3);
    assert_eq!(state["data"]["done"], true);
    assert_eq!(state["data"]["episode_id"], "ep-1");
    // After the end a step is the caller's error.
    assert_eq!(code_of(&ask(&mut ws, json!({"type": "step", "data": {"content": "x"}})).await), "VALIDATION_ERROR");
    // A new reset starts over, here with native tool calls the trainer parsed itself.
    let again = ask(&mut ws, json!({"type": "reset", "data": {"tools": ["pipeline"], "codec": "openai_tools"}})).await;
    assert_eq!(again["type"], "observation");
    assert!(!again["data"]["observation"]["tools"].as_array().unwrap().is_empty());
    let call = json!({"type": "step", "data": {"tool_calls": [{"id": "c1", "name": "Score", "arguments": "{}"}]}});
    let step = ask(&mut ws, call).await;
    let reply = &step["data"]["observation"]["messages"][0];
    assert_eq!(reply["role"], "tool", "{step}");
    assert_eq!(reply["tool_call_id"], "c1");

    ws.send(Message::Text(json!({"type": "close"}).to_string().into())).await.unwrap();
    assert!(recv(&mut ws).await.is_none(), "close ends the session");
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sandboxed_code_step_writes_the_submission_in_the_persistent_workspace() {
    if !bwrap_works() {
        return;
    }
    let server = Server::start(ServeConfig::default()).await;
    let mut ws = server.connect().await;
    let reset = ask(&mut ws, json!({"type": "reset", "data": {}})).await;
    assert_eq!(reset["type"], "observation", "{reset}");
    let code = "<think>copy</think>\n<tool_call>\npython\n<code>\nimport shutil\nshutil.copy('sample_submission.csv', 'submission.csv')\nprint('copied')\n</code>\n</tool_call>";
    let step = ask(&mut ws, json!({"type": "step", "data": {"content": code}})).await;
    let text = step["data"]["observation"]["messages"][0]["content"].as_str().unwrap();
    assert!(text.contains("copied") && text.contains("submission.csv found"), "{text}");
    let last =
        ask(&mut ws, json!({"type": "step", "data": {"content": "<think>done</think><answer>ok</answer>"}})).await;
    assert_eq!(last["data"]["done"], true);
    assert_eq!(last["data"]["observation"]["info"]["final_grade"]["valid_submission"], true);
    // Shutdown with the session still open ends it and returns.
    let mut other = server.connect().await;
    assert_eq!(ask(&mut other, json!({"type": "reset", "data": {}})).await["type"], "observation");
    server.shutdown().await;
    assert!(recv(&mut ws).await.is_none());
    assert!(recv(&mut other).await.is_none());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_session_over_the_cap_is_refused_with_capacity_reached_and_a_freed_slot_is_reused() {
    let server = Server::start(ServeConfig { max_sessions: 2, ..ServeConfig::default() }).await;
    let reset = json!({"type": "reset", "data": {"tools": ["pipeline"]}});
    let mut a = server.connect().await;
    let mut b = server.connect().await;
    assert_eq!(ask(&mut a, reset.clone()).await["type"], "observation");
    assert_eq!(ask(&mut b, reset.clone()).await["type"], "observation");
    let mut c = server.connect().await;
    let refused = ask(&mut c, reset.clone()).await;
    assert_eq!(code_of(&refused), "CAPACITY_REACHED");
    assert_eq!(refused["data"]["max_sessions"], 2);
    assert_eq!(refused["data"]["active_sessions"], 2);
    assert!(recv(&mut c).await.is_none(), "the refused connection is closed");

    // Closing one frees its slot (released asynchronously: retry, bounded).
    a.send(Message::Text(json!({"type": "close"}).to_string().into())).await.unwrap();
    assert!(recv(&mut a).await.is_none());
    let mut admitted = false;
    for _ in 0..400 {
        let mut d = server.connect().await;
        let reply = ask(&mut d, reset.clone()).await;
        if reply["type"] == "observation" {
            admitted = true;
            break;
        }
        assert_eq!(code_of(&reply), "CAPACITY_REACHED");
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    assert!(admitted, "a freed slot is given to a new session");
    drop(b);
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_idle_reaper_closes_an_abandoned_session_and_frees_its_slot() {
    let config = ServeConfig { max_sessions: 1, idle_timeout: Duration::from_millis(300), ..ServeConfig::default() };
    let server = Server::start(config).await;
    let reset = json!({"type": "reset", "data": {"tools": ["pipeline"]}});
    let mut idle = server.connect().await;
    assert_eq!(ask(&mut idle, reset.clone()).await["type"], "observation");
    // The client sends only keep-alive pings, which are no activity: the
    // server closes the connection (bounded loop; the pause only paces it).
    let mut closed = false;
    for _ in 0..2000 {
        if idle.send(Message::Ping(vec![1, 2, 3].into())).await.is_err() {
            closed = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
        match tokio::time::timeout(Duration::from_millis(20), idle.next()).await {
            Ok(None) | Ok(Some(Err(_))) | Ok(Some(Ok(Message::Close(_)))) => {
                closed = true;
                break;
            }
            _ => {}
        }
    }
    assert!(closed, "an idle session is closed by the server");
    let mut admitted = false;
    for _ in 0..400 {
        let mut next = server.connect().await;
        let reply = ask(&mut next, reset.clone()).await;
        if reply["type"] == "observation" {
            admitted = true;
            break;
        }
        assert_eq!(code_of(&reply), "CAPACITY_REACHED");
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    assert!(admitted, "the reaped session's slot is free again");
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn http_routes_describe_the_server_and_reset_and_step_are_stateless() {
    let server = Server::start(ServeConfig::default()).await;
    let base = server.url("");
    let checks = tokio::task::spawn_blocking(move || {
        let (s, health) = http("GET", &format!("{base}/health"), None);
        assert_eq!((s, health), (200, json!({"status": "healthy"})));
        let (s, meta) = http("GET", &format!("{base}/metadata"), None);
        assert_eq!(s, 200);
        assert_eq!(meta["name"], "sandmle");
        let (_, schema) = http("GET", &format!("{base}/schema"), None);
        for k in ["action", "observation", "state"] {
            assert_eq!(schema[k]["type"], "object", "{k}");
        }
        let (_, openapi) = http("GET", &format!("{base}/openapi.json"), None);
        assert!(openapi["paths"]["/reset"].is_object());
        let (s, state) = http("GET", &format!("{base}/state"), None);
        assert_eq!((s, state["step_count"].clone()), (200, json!(0)));

        let (s, reset) = http("POST", &format!("{base}/reset"), Some(r#"{"seed": 1}"#));
        assert_eq!(s, 200, "{reset}");
        assert_eq!(reset["done"], false);
        assert_eq!(reset["observation"]["messages"].as_array().unwrap().len(), 2);
        let (s, _) = http("POST", &format!("{base}/reset"), None);
        assert_eq!(s, 200, "an empty body is no options");

        let body = json!({"action": {"content": pipeline_turn()}, "tools": ["pipeline"]}).to_string();
        let (s, step) = http("POST", &format!("{base}/step"), Some(&body));
        assert_eq!(s, 200, "{step}");
        assert_eq!(step["done"], false);
        assert!(step["reward"].is_number());
        let (s, _) = http("POST", &format!("{base}/step"), Some(r#"{"action": {"bogus": 1}}"#));
        assert_eq!(s, 422);
        let (s, _) = http("POST", &format!("{base}/step"), Some("{}"));
        assert_eq!(s, 422);
        let (s, _) = http("POST", &format!("{base}/reset"), Some("not json"));
        assert_eq!(s, 422);
    });
    tokio::time::timeout(GUARD, checks).await.expect("the HTTP checks do not hang").unwrap();
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_oversized_message_ends_its_session_and_the_server_goes_on() {
    let server = Server::start(ServeConfig { max_message_bytes: 1024, ..ServeConfig::default() }).await;
    let mut big = server.connect().await;
    let text = json!({"type": "step", "data": {"content": "x".repeat(4096)}}).to_string();
    let _ = big.send(Message::Text(text.into())).await;
    assert!(recv(&mut big).await.is_none(), "the oversized message closes the connection");
    let mut next = server.connect().await;
    assert_eq!(ask(&mut next, json!({"type": "reset", "data": {"tools": ["pipeline"]}})).await["type"], "observation");
    let url = server.url("/reset");
    let body = format!("{{\"episode_id\": \"{}\"}}", "x".repeat(4096));
    let (status, _) = tokio::task::spawn_blocking(move || http("POST", &url, Some(&body))).await.unwrap();
    assert_eq!(status, 413, "an oversized body is refused");
    server.shutdown().await;
}

#[test]
fn serve_refuses_bad_arguments_with_one_json_error_and_exit_2() {
    let tmp = tempfile::tempdir().unwrap();
    let missing = tmp.path().join("missing");
    let cases: [&[&str]; 3] = [
        &["--json", "serve", "--envs", missing.to_str().unwrap()],
        &["--json", "serve", "--envs", tmp.path().to_str().unwrap()],
        &["--json", "serve", "--envs", tmp.path().to_str().unwrap(), "--idle-timeout", "0"],
    ];
    for args in cases {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_sandmle")).args(args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert!(v["error"]["kind"].is_string(), "{v}");
    }
}

// ---- Episode mode: `run_group` ----

const GROUP_KEY: &str = "sk-group-never-echoed-42";

/// An OpenAI-compatible server on 127.0.0.1 that plays three turns (copy
/// the sample submission, score it, answer) and records each request's
/// sampling seed; it refuses requests without the bearer key.
fn model_server() -> (String, std::sync::Arc<std::sync::Mutex<Vec<u64>>>) {
    const TURNS: [&str; 3] = [
        "<think>Copy the sample.</think>\n<tool_call>\npython\n<code>\nimport shutil\nshutil.copy('sample_submission.csv', 'submission.csv')\n</code>\n</tool_call>",
        "<think>Score it.</think>\n<tool_call>{\"name\": \"Score\", \"arguments\": {}}</tool_call>",
        "<think>Done.</think>\n<answer>submission.csv</answer>",
    ];
    let server = tiny_http::Server::http("127.0.0.1:0").unwrap();
    let port = server.server_addr().to_ip().unwrap().port();
    let seeds = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let seen = std::sync::Arc::clone(&seeds);
    std::thread::spawn(move || {
        for mut request in server.incoming_requests() {
            let mut text = String::new();
            let _ = request.as_reader().read_to_string(&mut text);
            let authorized = request
                .headers()
                .iter()
                .any(|h| h.field.equiv("Authorization") && h.value == format!("Bearer {GROUP_KEY}").as_str());
            let body: Value = serde_json::from_str(&text).unwrap_or_default();
            if let Some(seed) = body["seed"].as_u64() {
                seen.lock().unwrap().push(seed);
            }
            let turns =
                body["messages"].as_array().map_or(0, |m| m.iter().filter(|m| m["role"] == "assistant").count());
            let reply = json!({"choices": [{"index": 0, "finish_reason": "stop",
                "message": {"role": "assistant", "content": TURNS[turns.min(2)]}}]});
            let response = if authorized {
                tiny_http::Response::from_string(reply.to_string())
            } else {
                tiny_http::Response::from_string("{\"error\": {\"message\": \"no key\"}}").with_status_code(401)
            };
            let _ = request.respond(response);
        }
    });
    (format!("http://127.0.0.1:{port}/v1"), seeds)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn run_group_plays_a_model_servers_rollouts_and_answers_rows_with_advantages() {
    if !bwrap_works() {
        return;
    }
    let (url, seeds) = model_server();
    let server = Server::start(ServeConfig::default()).await;
    let mut ws = server.connect().await;
    let request = json!({"type": "run_group", "data": {
        "task_id": "wine", "n": 3, "seed": 11, "codec": "sandmle_react", "reward": "released_dense",
        "client": {"base_url": url, "model": "m", "api_key": GROUP_KEY, "sampling": {"temperature": 0.7}},
    }});
    let reply = ask(&mut ws, request).await;
    assert_eq!(reply["type"], "group", "{reply}");
    let data = &reply["data"];
    let rows = data["trajectories"].as_array().unwrap();
    assert_eq!(rows.len(), 3);
    for (i, t) in rows.iter().enumerate() {
        assert_eq!(t["schema"], "sandmle.trajectory/v1");
        assert_eq!(t["rollout_idx"], i);
        assert_eq!(t["group_size"], 3);
        assert_eq!(t["final_grade"]["valid_submission"], true, "{t}");
        // released_dense: 0.2 for a valid score, 0.1 for three well-formatted turns.
        assert!((t["reward"].as_f64().unwrap() - 0.3).abs() < 1e-9, "{}", t["reward"]);
        assert_eq!(t["advantage"], 0.0);
    }
    assert_eq!(data["all_equal"], true);
    assert_eq!(data["estimator"], "grpo");
    // Every rollout's turns carried its own seed (three turns each).
    let mut seen = seeds.lock().unwrap().clone();
    seen.sort_unstable();
    seen.dedup();
    let row_seeds: std::collections::BTreeSet<u64> = rows.iter().map(|t| t["seed"].as_u64().unwrap()).collect();
    assert_eq!(seen.len(), 3);
    assert_eq!(seen.into_iter().collect::<std::collections::BTreeSet<_>>(), row_seeds);
    assert!(!reply.to_string().contains(GROUP_KEY), "the key is never echoed");
    // The connection goes on: a reset after the group works.
    assert_eq!(ask(&mut ws, json!({"type": "reset", "data": {"tools": ["pipeline"]}})).await["type"], "observation");
    server.shutdown().await;
}

/// A row without its wall times.
fn without_times(mut v: Value) -> Value {
    match &mut v {
        Value::Object(m) => {
            m.retain(|k, _| k != "timing" && !k.ends_with("_ms"));
            for x in m.values_mut() {
                *x = without_times(x.take());
            }
        }
        Value::Array(a) => {
            for x in a.iter_mut() {
                *x = without_times(x.take());
            }
        }
        _ => {}
    }
    v
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn run_group_over_http_with_the_panel_policy_is_reproducible_and_refuses_what_it_must() {
    let server = Server::start(ServeConfig { max_sessions: 4, ..ServeConfig::default() }).await;
    let base = server.url("");
    tokio::task::spawn_blocking(move || {
        let body = json!({"task_id": "wine", "n": 4, "seed": 5, "policy": "panel", "estimator": "rloo"}).to_string();
        let (s, first) = http("POST", &format!("{base}/run_group"), Some(&body));
        assert_eq!(s, 200, "{first}");
        let rewards: Vec<f64> = first["rewards"].as_array().unwrap().iter().map(|r| r.as_f64().unwrap()).collect();
        assert_eq!(rewards.len(), 4);
        let mean = rewards.iter().sum::<f64>() / 4.0;
        // RLOO: each reward minus the mean of the others.
        for (r, a) in rewards.iter().zip(first["advantages"].as_array().unwrap()) {
            let loo = (mean * 4.0 - r) / 3.0;
            assert!((a.as_f64().unwrap() - (r - loo)).abs() < 1e-9);
        }
        let (_, second) = http("POST", &format!("{base}/run_group"), Some(&body));
        assert_eq!(without_times(first), without_times(second), "the same seed gives the same group");

        let refused = |body: Value| {
            let (s, v) = http("POST", &format!("{base}/run_group"), Some(&body.to_string()));
            (s, v["detail"].to_string())
        };
        let (s, why) = refused(json!({"n": 0, "policy": "panel"}));
        assert_eq!(s, 422, "{why}");
        let (s, why) =
            refused(json!({"n": 2, "policy": "panel", "client": {"base_url": "http://127.0.0.1:1/v1", "model": "m"}}));
        assert_eq!(s, 422, "{why}");
        // The server calls the model itself: no address off loopback unless allowed.
        let (s, why) = refused(json!({"n": 1, "client": {"base_url": "http://10.1.2.3:8000/v1", "model": "m"}}));
        assert_eq!(s, 422);
        assert!(why.contains("--allow-endpoint"), "{why}");
        let (s, why) = refused(json!({"n": 5, "policy": "panel"}));
        assert_eq!(s, 503, "a group of 5 does not fit under 4 sessions: {why}");
    })
    .await
    .unwrap();
    server.shutdown().await;
}

#[test]
fn only_loopback_or_allowed_model_endpoints_pass() {
    use sandmle::serve::endpoint::{Endpoint, check_endpoint};
    for ok in ["http://127.0.0.1:8000/v1", "http://localhost/v1", "https://[::1]:9/v1", "HTTP://LOCALHOST:1"] {
        assert!(check_endpoint(ok, &[]).is_ok(), "{ok}");
    }
    for bad in ["http://127.0.0.1.example.com/v1", "http://127.0.0.1@example.com/v1", "ftp://127.0.0.1/", "127.0.0.1"] {
        assert!(check_endpoint(bad, &[]).is_err(), "{bad}");
    }
    let allowed = vec![Endpoint::parse("http://vllm.internal:8000/").unwrap()];
    assert!(check_endpoint("http://vllm.internal:8000/v1", &allowed).is_ok());
    assert!(check_endpoint("http://vllm.internal.example.com:8000/v1", &allowed).is_err());
}
