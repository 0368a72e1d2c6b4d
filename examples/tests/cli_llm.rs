//! `rollout --policy openai` and `generate --roles llm` end to end against
//! a real HTTP server on 127.0.0.1 that speaks OpenAI's chat-completions
//! JSON. The server answers from the request itself: an episode's turn by
//! how many assistant turns the conversation holds, a role by its system
//! prompt (echoing the example, current values or facts the prompt gives).

mod common;

use common::{json, seed};
use serde_json::{Value, json};
use std::path::Path;
use std::process::Command;

const KEY: &str = "sk-never-printed-0123456789";

/// The program the ML Developer "writes" (a real generator program).
const GENERATOR: &str = include_str!("../generators/latent_traits.py");

fn completion(content: &str) -> String {
    json!({"choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
           "usage": {"prompt_tokens": 10, "completion_tokens": 5}})
    .to_string()
}

const EPISODE: [&str; 3] = [
    "<think>Copy the sample submission first.</think>\n<tool_call>\npython\n<code>\nimport shutil\nshutil.copy('sample_submission.csv', 'submission.csv')\nprint('written')\n</code>\n</tool_call>",
    "<think>Score it.</think>\n<tool_call>{\"name\": \"Score\", \"arguments\": {}}</tool_call>",
    "<think>Done.</think>\n<answer>submission.csv</answer>",
];

/// The reply to one request.
fn answer(body: &Value) -> String {
    let messages = body["messages"].as_array().cloned().unwrap_or_default();
    let system = messages.first().and_then(|m| m["content"].as_str()).unwrap_or_default().to_owned();
    let last = messages.last().and_then(|m| m["content"].as_str()).unwrap_or_default().to_owned();
    let embedded = |text: &str| -> Value {
        let at = text.find('{').unwrap_or(0);
        serde_json::Deserializer::from_str(&text[at..])
            .into_iter::<Value>()
            .next()
            .and_then(Result::ok)
            .unwrap_or_default()
    };
    if system.contains("Data Strategist") {
        return completion(&embedded(&last)["example"].to_string());
    }
    if system.contains("self-contained Python 3 program") {
        return completion(&format!("```python\n{GENERATOR}```"));
    }
    if system.contains("ML Developer") {
        return completion(&embedded(&last)["current"].to_string());
    }
    if system.contains("MLOps Engineer") {
        return completion(&json!({"accept": true}).to_string());
    }
    if system.contains("Technical Writer") {
        let facts = last.split("\n\n").skip(1).collect::<Vec<_>>().join("\n\n");
        let facts = facts.rsplit_once("\n\nKeep every fact").map_or(facts.as_str(), |(f, _)| f).to_owned();
        return completion(&json!({"description": facts}).to_string());
    }
    let turns = messages.iter().filter(|m| m["role"] == "assistant").count();
    completion(EPISODE[turns.min(EPISODE.len() - 1)])
}

/// Serves until the test ends; returns the base URL.
fn serve() -> String {
    let server = tiny_http::Server::http("127.0.0.1:0").unwrap();
    let port = server.server_addr().to_ip().unwrap().port();
    std::thread::spawn(move || {
        for mut request in server.incoming_requests() {
            let mut text = String::new();
            let _ = request.as_reader().read_to_string(&mut text);
            let authorized = request
                .headers()
                .iter()
                .any(|h| h.field.equiv("Authorization") && h.value == format!("Bearer {KEY}").as_str());
            let body: Value = serde_json::from_str(&text).unwrap_or_default();
            let response = if authorized {
                tiny_http::Response::from_string(answer(&body))
            } else {
                tiny_http::Response::from_string("{\"error\": {\"message\": \"no key\"}}").with_status_code(401)
            };
            let _ = request.respond(response);
        }
    });
    format!("http://127.0.0.1:{port}/v1")
}

fn sandmle(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_sandmle")).args(args).env("SANDMLE_TEST_LLM_KEY", KEY).output().unwrap()
}

fn assert_no_key(dir: &Path, outputs: &[&std::process::Output]) {
    for o in outputs {
        assert!(!String::from_utf8_lossy(&o.stdout).contains(KEY) && !String::from_utf8_lossy(&o.stderr).contains(KEY));
    }
    for (path, bytes) in common::tree(dir) {
        assert!(!String::from_utf8_lossy(&bytes).contains(KEY), "{path}");
    }
}

#[test]
fn a_sandmle_react_rollout_against_an_openai_compatible_server() {
    let url = serve();
    let out = tempfile::tempdir().unwrap();
    let envs = tempfile::tempdir().unwrap();
    let wine = Path::new(&seed("wine")).to_path_buf();
    sandmle_core::Environment::read(&wine).unwrap().write(envs.path().join("wine"), &Default::default()).unwrap();
    let traj = out.path().join("t.jsonl");
    let o = sandmle(&[
        "rollout",
        "--envs",
        envs.path().to_str().unwrap(),
        "--policy",
        "openai",
        "--base-url",
        &url,
        "--model",
        "m",
        "--api-key-env",
        "SANDMLE_TEST_LLM_KEY",
        "--group",
        "2",
        "--codec",
        "sandmle_react",
        "--out",
        traj.to_str().unwrap(),
        "--step-timeout",
        "60",
        "--json",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    let v = json(&o);
    assert_eq!(v["trajectories"], 2);
    let lines = std::fs::read_to_string(&traj).unwrap();
    for line in lines.lines() {
        let t: Value = serde_json::from_str(line).unwrap();
        assert_eq!(t["final_grade"]["valid_submission"], true, "{t}");
        // released_dense: 0.2 for a valid score, no tier (the sample is a
        // constant), 0.1 for three of three well-formatted turns.
        assert!((t["reward"].as_f64().unwrap() - 0.3).abs() < 1e-9, "{}", t["reward"]);
    }
    assert_no_key(out.path(), &[&o]);
}

fn generate_with_llm_roles(developer: &str) {
    let url = serve();
    let out = tempfile::tempdir().unwrap();
    let seeds = Path::new(&seed("wine")).parent().unwrap().to_str().unwrap().to_owned();
    let args = [
        "generate",
        "--seeds",
        &seeds,
        "--seed-env",
        "wine",
        "--per-seed",
        "2",
        "--seed",
        "4",
        "--roles",
        "llm",
        "--base-url",
        &url,
        "--model",
        "m",
        "--api-key-env",
        "SANDMLE_TEST_LLM_KEY",
        "--llm-developer",
        developer,
        "--out",
        out.path().to_str().unwrap(),
        "--json",
    ];
    let o = sandmle(&args);
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    let v = json(&o);
    assert_eq!(v["yield"]["total"]["kept"], 2, "{}", v["yield"]);
    assert_eq!(v["yield"]["settings"]["roles"]["technical_writer"], "writer-v1");
    if developer == "program" {
        assert_eq!(v["yield"]["settings"]["roles"]["ml_developer"], "program-developer-v1");
        // The kept environments hold the program in their provenance.
        let kept: Vec<_> = common::tree(out.path())
            .into_iter()
            .filter(|(path, _)| path.ends_with("provenance.json"))
            .map(|(_, bytes)| serde_json::from_slice::<Value>(&bytes).unwrap())
            .collect();
        assert_eq!(kept.len(), 2);
        assert!(kept.iter().all(|p| p["details"]["generator_program"] == GENERATOR));
    }
    // Without the key every LLM role fails: the funnel counts it apart.
    let bare = tempfile::tempdir().unwrap();
    let mut no_key: Vec<&str> = args.to_vec();
    let at = no_key.iter().position(|a| *a == "--api-key-env").unwrap();
    no_key.drain(at..at + 2);
    let k = no_key.iter().position(|a| *a == "--out").unwrap();
    let bare_path = bare.path().to_str().unwrap().to_owned();
    no_key[k + 1] = &bare_path;
    let o2 = sandmle(&no_key);
    assert_eq!(o2.status.code(), Some(0), "{}", String::from_utf8_lossy(&o2.stderr));
    let total = &json(&o2)["yield"]["total"];
    assert_eq!(total["kept"], 0);
    assert_eq!(total["llm_failures"], 6, "2 slots x 3 attempts: {total}");
    assert_no_key(out.path(), &[&o, &o2]);
}

#[test]
fn generate_with_llm_roles_whose_developer_sets_hardness() {
    generate_with_llm_roles("hardness");
}

#[test]
fn generate_with_llm_roles_whose_developer_writes_the_data_s_program() {
    if !common::bwrap_or_skip() {
        return;
    }
    generate_with_llm_roles("program");
}
