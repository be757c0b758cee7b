//! Security over real HTTPS for the integration tests: a node started from a config directory
//! (the demo setup), rustls clients with or without the admin certificate, one request per
//! connection with optional basic credentials.

#![allow(dead_code)]

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use base64::Engine as _;
use fathom::node::NodeSettings;
use fathom::security::tls::{load_certs, load_key, load_roots};
use rustls::pki_types::ServerName;
use serde_json::Value;

pub struct Node {
    pub rt: tokio::runtime::Runtime,
    pub running: Option<fathom::http::Running>,
    pub addr: SocketAddr,
}

impl Drop for Node {
    fn drop(&mut self) {
        if let Some(r) = self.running.take() {
            self.rt.block_on(r.stop());
        }
    }
}

pub const PASSWORD: &str = "myStrongPassword123!";

pub fn start(conf: &Path, data: &Path) -> Node {
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    let overrides = vec![format!("path.data={}", data.display()), "http.port=0".into(), "transport.port=0".into()];
    let settings = NodeSettings::load(Some(conf), &overrides).unwrap();
    let running = rt.block_on(fathom::http::start(settings)).unwrap();
    let addr = running.addr;
    let node = Node { rt, running: Some(running), addr };
    wait_loaded(conf, addr);
    node
}

/// Waits (at most 30 s) until the node enforces the configuration from the security index
/// (`health` says UP): a later load from the index would reset limiters and caches a test set up.
pub fn wait_loaded(conf: &Path, addr: SocketAddr) {
    let cfg = client(conf, false);
    for _ in 0..300 {
        let r = call(addr, &cfg, None, "GET", "/_plugins/_security/health", "");
        if r.status == 200 && r.json()["status"] == "UP" {
            return;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    panic!("the security configuration was not loaded from its index within 30 s");
}

pub fn client(conf: &Path, admin_cert: bool) -> Arc<rustls::ClientConfig> {
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let b = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_root_certificates(load_roots(&conf.join("root-ca.pem")).unwrap());
    Arc::new(if admin_cert {
        b.with_client_auth_cert(
            load_certs(&conf.join("kirk.pem")).unwrap(),
            load_key(&conf.join("kirk-key.pem")).unwrap(),
        )
        .unwrap()
    } else {
        b.with_no_client_auth()
    })
}

pub struct Resp {
    pub status: u16,
    pub head: String,
    pub body: String,
}

impl Resp {
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or(Value::Null)
    }
}

/// One HTTPS request with optional basic credentials.
pub fn call(
    addr: SocketAddr,
    cfg: &Arc<rustls::ClientConfig>,
    creds: Option<(&str, &str)>,
    method: &str,
    path: &str,
    body: &str,
) -> Resp {
    let conn = rustls::ClientConnection::new(cfg.clone(), ServerName::try_from("localhost").unwrap()).unwrap();
    let tcp = TcpStream::connect(addr).unwrap();
    tcp.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
    let mut s = rustls::StreamOwned::new(conn, tcp);
    let auth = creds
        .map(|(u, p)| {
            format!("Authorization: Basic {}\r\n", base64::engine::general_purpose::STANDARD.encode(format!("{u}:{p}")))
        })
        .unwrap_or_default();
    let ctype =
        if path.contains("_bulk") || path.contains("_msearch") { "application/x-ndjson" } else { "application/json" };
    let req = format!(
        "{method} {path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n{auth}Content-Type: {ctype}\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    s.write_all(req.as_bytes()).unwrap();
    let mut raw = Vec::new();
    if let Err(e) = s.read_to_end(&mut raw) {
        assert!(e.kind() == std::io::ErrorKind::UnexpectedEof && !raw.is_empty(), "{e}");
    }
    let text = String::from_utf8_lossy(&raw).into_owned();
    let (head, body) = text.split_once("\r\n\r\n").expect("an HTTP answer");
    let status = head.split(' ').nth(1).and_then(|s| s.parse().ok()).expect("a status");
    Resp { status, head: head.to_string(), body: body.to_string() }
}

pub fn hash(pw: &str) -> String {
    bcrypt::hash(pw, 4).unwrap()
}
