//! A `sandmle::serve` server in this process on 127.0.0.1, and the
//! WebSocket and HTTP helpers the server tests share.

use futures_util::{SinkExt, StreamExt};
use sandmle::serve::{Catalog, ServeConfig, ServeError, serve};
use serde_json::Value;
use std::net::SocketAddr;
use std::time::Duration;
use tokio::net::TcpStream;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream, connect_async};

pub type Ws = WebSocketStream<MaybeTlsStream<TcpStream>>;

pub const GUARD: Duration = Duration::from_secs(120);

pub fn bwrap_works() -> bool {
    let ok = sandmle_exec::bubblewrap_available();
    assert!(ok || std::env::var_os("SANDMLE_REQUIRE_BWRAP").is_none(), "bubblewrap is required but cannot run here");
    ok
}

pub struct Server {
    pub addr: SocketAddr,
    stop: Option<oneshot::Sender<()>>,
    task: JoinHandle<Result<(), ServeError>>,
}

impl Server {
    pub async fn start(config: ServeConfig) -> Server {
        let catalog = Catalog::load(&[sandmle::repository_seeds().join("wine")]).unwrap();
        let backends = sandmle::rl_backends(config.step_timeout, false);
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let (stop, rx) = oneshot::channel::<()>();
        let task = tokio::spawn(serve(listener, catalog, backends, config, async move {
            let _ = rx.await;
        }));
        Server { addr, stop: Some(stop), task }
    }

    pub async fn connect(&self) -> Ws {
        let (ws, _) = tokio::time::timeout(GUARD, connect_async(format!("ws://{}/ws", self.addr)))
            .await
            .expect("connect does not hang")
            .unwrap();
        ws
    }

    pub async fn shutdown(mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        tokio::time::timeout(GUARD, self.task).await.expect("shutdown does not hang").unwrap().unwrap();
    }

    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }
}

/// The next JSON frame, or `None` once the server closed the connection.
pub async fn recv(ws: &mut Ws) -> Option<Value> {
    loop {
        let next = tokio::time::timeout(GUARD, ws.next()).await.expect("a reply does not hang");
        match next {
            None | Some(Err(_)) | Some(Ok(Message::Close(_))) => return None,
            Some(Ok(Message::Text(t))) => return Some(serde_json::from_str(t.as_str()).unwrap()),
            Some(Ok(_)) => continue,
        }
    }
}

pub async fn ask(ws: &mut Ws, frame: Value) -> Value {
    ws.send(Message::Text(frame.to_string().into())).await.unwrap();
    recv(ws).await.expect("a reply, not a closed connection")
}

pub async fn raw(ws: &mut Ws, text: &str) -> Value {
    ws.send(Message::Text(text.to_owned().into())).await.unwrap();
    recv(ws).await.expect("a reply, not a closed connection")
}

pub fn code_of(reply: &Value) -> &str {
    assert_eq!(reply["type"], "error", "{reply}");
    reply["data"]["code"].as_str().unwrap()
}

pub const SPEC: &str =
    r#"{"steps": [{"op": "impute", "strategy": "median"}], "model": {"type": "logistic_regression", "c": 1.0}}"#;

pub fn pipeline_turn() -> String {
    format!(
        "<think>fit</think>\n<tool_call>\n{{\"name\": \"RunPipeline\", \"arguments\": {{\"spec\": {SPEC}}}}}\n</tool_call>"
    )
}

pub fn http(method: &str, url: &str, body: Option<&str>) -> (u16, Value) {
    let agent: ureq::Agent =
        ureq::Agent::config_builder().http_status_as_error(false).timeout_global(Some(GUARD)).build().into();
    let mut resp = match (method, body) {
        ("GET", _) => agent.get(url).call().unwrap(),
        (_, b) => agent.post(url).content_type("application/json").send(b.unwrap_or("")).unwrap(),
    };
    let status = resp.status().as_u16();
    let text = resp.body_mut().read_to_string().unwrap();
    (status, serde_json::from_str(&text).unwrap_or(Value::String(text)))
}
