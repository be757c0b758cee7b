//! Security, TLS slice: `setup-security`'s demo configuration serves HTTPS; plain HTTP, a wrong
//! CA, an expired server certificate and (REQUIRE mode) a client certificate from another CA are
//! refused; broken TLS files stop the start with the file named.

mod common;

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use fathom::node::NodeSettings;
use fathom::security::demo::{self, Ca, ADMIN_DN, NODE_DN};
use fathom::security::tls::{load_certs, load_key, load_roots};
use rustls::pki_types::ServerName;

struct Node {
    rt: tokio::runtime::Runtime,
    running: Option<fathom::http::Running>,
    addr: SocketAddr,
}

impl Drop for Node {
    fn drop(&mut self) {
        if let Some(r) = self.running.take() {
            self.rt.block_on(r.stop());
        }
    }
}

/// A strong initial admin password.
const PASSWORD: &str = "myStrongPassword123!";

fn start(conf: &Path, data: &Path, extra: &[&str]) -> Result<Node, String> {
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    let mut overrides = vec![format!("path.data={}", data.display()), "http.port=0".into(), "transport.port=0".into()];
    overrides.extend(extra.iter().map(|s| s.to_string()));
    let settings = NodeSettings::load(Some(conf), &overrides).map_err(|e| e.0)?;
    let running = rt.block_on(fathom::http::start(settings))?;
    let addr = running.addr;
    Ok(Node { rt, running: Some(running), addr })
}

/// A client trusting the CAs of `ca_file`, with an optional client certificate and key.
fn client(ca_file: &Path, cert: Option<(&Path, &Path)>) -> Arc<rustls::ClientConfig> {
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let b = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_root_certificates(load_roots(ca_file).unwrap());
    Arc::new(match cert {
        Some((c, k)) => b.with_client_auth_cert(load_certs(c).unwrap(), load_key(k).unwrap()).unwrap(),
        None => b.with_no_client_auth(),
    })
}

/// One HTTPS request (Connection: close): the status line and body, or the TLS/IO error.
fn https(
    addr: SocketAddr,
    cfg: Arc<rustls::ClientConfig>,
    method: &str,
    path: &str,
    body: &str,
) -> Result<(u16, String), String> {
    let conn =
        rustls::ClientConnection::new(cfg, ServerName::try_from("localhost").unwrap()).map_err(|e| e.to_string())?;
    let tcp = TcpStream::connect(addr).map_err(|e| e.to_string())?;
    tcp.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    let mut s = rustls::StreamOwned::new(conn, tcp);
    // Requests are authenticated: the demo admin's password (an admin certificate wins over it).
    let auth = base64::Engine::encode(&base64::engine::general_purpose::STANDARD, format!("admin:{PASSWORD}"));
    let req = format!(
        "{method} {path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\nAuthorization: Basic {auth}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    s.write_all(req.as_bytes()).map_err(|e| e.to_string())?;
    let mut raw = Vec::new();
    match s.read_to_end(&mut raw) {
        Ok(_) => {}
        // A peer closing without close_notify after a full answer.
        Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof && !raw.is_empty() => {}
        Err(e) => return Err(e.to_string()),
    }
    let text = String::from_utf8_lossy(&raw).into_owned();
    let (head, body) = text.split_once("\r\n\r\n").ok_or_else(|| format!("no HTTP answer: {text:?}"))?;
    let status = head.split(' ').nth(1).and_then(|s| s.parse().ok()).ok_or("bad status line")?;
    Ok((status, body.to_string()))
}

/// A config dir with `setup-security`'s demo files, then the node certificate replaced by one
/// from `ca` expiring at the end of `expiry` (None: valid), and `root-ca.pem` by `ca`'s.
fn conf_with_ca(dir: &Path, ca: &Ca, expiry: Option<i32>) {
    assert_eq!(demo::setup(dir, Some(PASSWORD)).unwrap(), demo::Outcome::Installed);
    let node = ca.issue(NODE_DN, &["localhost", "127.0.0.1"], expiry).unwrap();
    std::fs::write(dir.join("esnode.pem"), node.cert_pem).unwrap();
    std::fs::write(dir.join("esnode-key.pem"), node.key_pem).unwrap();
    std::fs::write(dir.join("root-ca.pem"), ca.cert.pem()).unwrap();
}

#[test]
fn demo_configuration_serves_https_and_refuses_plain_http() {
    let conf = tempfile::tempdir().unwrap();
    let data = tempfile::tempdir().unwrap();
    assert_eq!(demo::setup(conf.path(), Some(PASSWORD)).unwrap(), demo::Outcome::Installed);
    let node = start(conf.path(), data.path(), &[]).unwrap();
    assert!(node.running.as_ref().unwrap().https);
    let cfg = client(&conf.path().join("root-ca.pem"), None);
    let (status, body) = https(node.addr, cfg.clone(), "GET", "/", "").unwrap();
    assert_eq!(status, 200, "{body}");
    assert!(body.contains("\"cluster_name\""), "{body}");
    let (status, body) =
        https(node.addr, cfg.clone(), "PUT", "/tls/_doc/1?refresh=true", r#"{"f":"over tls"}"#).unwrap();
    assert_eq!(status, 201, "{body}");
    let (status, body) =
        https(node.addr, cfg.clone(), "POST", "/tls/_search", r#"{"query":{"match":{"f":"tls"}}}"#).unwrap();
    assert_eq!(status, 200, "{body}");
    let v: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert_eq!(v["hits"]["total"]["value"], 1, "{body}");
    // The demo admin certificate is accepted as a client certificate (OPTIONAL mode).
    let admin = client(
        &conf.path().join("root-ca.pem"),
        Some((&conf.path().join("kirk.pem"), &conf.path().join("kirk-key.pem"))),
    );
    assert_eq!(https(node.addr, admin, "GET", "/", "").unwrap().0, 200);
    // Plain HTTP to the TLS port gets no HTTP answer.
    assert!(common::http::try_send(node.addr, "GET", "/", b"", Duration::from_secs(10)).is_none());
    // A client trusting another CA refuses the server.
    let other = tempfile::tempdir().unwrap();
    std::fs::write(other.path().join("ca.pem"), Ca::generate("CN=Other CA,O=other").unwrap().cert.pem()).unwrap();
    let e = https(node.addr, client(&other.path().join("ca.pem"), None), "GET", "/", "").unwrap_err();
    assert!(e.contains("UnknownIssuer"), "{e}");
}

#[test]
fn expired_server_certificate_is_refused_by_the_client() {
    let conf = tempfile::tempdir().unwrap();
    let data = tempfile::tempdir().unwrap();
    let ca = Ca::generate("CN=Test Root CA,O=test").unwrap();
    conf_with_ca(conf.path(), &ca, Some(2021));
    let node = start(conf.path(), data.path(), &[]).unwrap();
    let e = https(node.addr, client(&conf.path().join("root-ca.pem"), None), "GET", "/", "").unwrap_err();
    assert!(e.to_lowercase().contains("expired"), "{e}");
}

#[test]
fn require_mode_refuses_missing_and_foreign_client_certificates() {
    let conf = tempfile::tempdir().unwrap();
    let data = tempfile::tempdir().unwrap();
    let ca = Ca::generate("CN=Test Root CA,O=test").unwrap();
    conf_with_ca(conf.path(), &ca, None);
    let good = ca.issue(ADMIN_DN, &[], None).unwrap();
    let foreign = Ca::generate("CN=Foreign CA,O=elsewhere").unwrap().issue(ADMIN_DN, &[], None).unwrap();
    for (name, c) in [("good", &good), ("foreign", &foreign)] {
        std::fs::write(conf.path().join(format!("{name}.pem")), &c.cert_pem).unwrap();
        std::fs::write(conf.path().join(format!("{name}-key.pem")), &c.key_pem).unwrap();
    }
    let node = start(conf.path(), data.path(), &["plugins.security.ssl.http.clientauth_mode=REQUIRE"]).unwrap();
    let ca_file = conf.path().join("root-ca.pem");
    let p = |n: &str| conf.path().join(n);
    let ok = https(node.addr, client(&ca_file, Some((&p("good.pem"), &p("good-key.pem")))), "GET", "/", "").unwrap();
    assert_eq!(ok.0, 200);
    assert!(https(node.addr, client(&ca_file, None), "GET", "/", "").is_err());
    assert!(
        https(node.addr, client(&ca_file, Some((&p("foreign.pem"), &p("foreign-key.pem")))), "GET", "/", "").is_err()
    );
}

#[test]
fn broken_security_configuration_stops_the_start() {
    let conf = tempfile::tempdir().unwrap();
    let data = tempfile::tempdir().unwrap();
    assert_eq!(demo::setup(conf.path(), Some(PASSWORD)).unwrap(), demo::Outcome::Installed);
    std::fs::remove_file(conf.path().join("esnode-key.pem")).unwrap();
    let e = start(conf.path(), data.path(), &[]).err().expect("refused");
    assert!(e.contains("esnode-key.pem"), "{e}");
    let e =
        start(conf.path(), data.path(), &["plugins.security.ssl.http.clientauth_mode=MAYBE"]).err().expect("refused");
    assert!(e.contains("clientauth_mode"), "{e}");
    // Security off (the default) ignores the security files entirely and serves plain HTTP.
    let node = start(conf.path(), data.path(), &["plugins.security.disabled=true"]).unwrap();
    assert!(!node.running.as_ref().unwrap().https);
    assert_eq!(common::http::get(node.addr, "/").status, 200);
}

#[test]
fn security_files_are_loaded_at_start_and_broken_ones_refuse_it() {
    let conf = tempfile::tempdir().unwrap();
    let data = tempfile::tempdir().unwrap();
    assert_eq!(demo::setup(conf.path(), Some(PASSWORD)).unwrap(), demo::Outcome::Installed);
    let node = start(conf.path(), data.path(), &[]).unwrap();
    let running = node.running.as_ref().unwrap();
    let svc = running.node.security.get().expect("security configuration loaded");
    let cfg = svc.current();
    assert!(fathom::security::password::verify(PASSWORD, &cfg.internal_users.entries["admin"].hash));
    assert!(cfg.roles.entries["all_access"].is_static);
    drop(node);
    // A broken file: the node refuses to start, naming the file and the entry.
    let roles_mapping = conf.path().join("opensearch-security").join("roles_mapping.yml");
    let text = std::fs::read_to_string(&roles_mapping).unwrap();
    std::fs::write(&roles_mapping, format!("{text}\nbroken:\n  userz: [a]\n")).unwrap();
    let e = start(conf.path(), data.path(), &[]).err().expect("refused");
    assert!(e.contains("roles_mapping.yml") && e.contains("[broken]: unknown field `userz`"), "{e}");
    std::fs::write(&roles_mapping, "_meta:\n  type: rolesmapping\n  config_version: 1\n").unwrap();
    let e = start(conf.path(), data.path(), &[]).err().expect("refused");
    assert!(e.contains("Config version 1 is not supported; config type: ROLESMAPPING"), "{e}");
}

#[test]
fn setup_security_command_checks_the_admin_password() {
    let run = |conf: &Path, password: Option<&str>| {
        let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_fathom"));
        cmd.arg("setup-security").env("FATHOM_PATH_CONF", conf).env_remove("OPENSEARCH_INITIAL_ADMIN_PASSWORD");
        if let Some(p) = password {
            cmd.env("OPENSEARCH_INITIAL_ADMIN_PASSWORD", p);
        }
        cmd.output().unwrap()
    };
    let conf = tempfile::tempdir().unwrap();
    let out = run(conf.path(), None);
    assert_eq!(out.status.code(), Some(255));
    assert!(String::from_utf8_lossy(&out.stdout).contains("No custom admin password found."));
    let out = run(conf.path(), Some("weakpassword"));
    assert_eq!(out.status.code(), Some(255));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("Password weakpassword failed validation: \"Password does not match validation regex\""),
        "{stdout}"
    );
    assert!(!conf.path().join("opensearch-security").exists());
    let out = run(conf.path(), Some(PASSWORD));
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stdout).contains("Admin password set successfully."));
    let users = std::fs::read_to_string(conf.path().join("opensearch-security").join("internal_users.yml")).unwrap();
    assert!(users.contains("$2y$12$"), "{users}");
}
