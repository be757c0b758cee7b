//! Security, config-index slice: a node with `setup-security`'s demo configuration creates
//! `.opendistro_security` from the files and loads from it (health UP); the config REST API
//! over HTTPS with the admin certificate creates, reads, patches and deletes entries with the
//! plugin's replies and checks, each write reloading the node; without the admin certificate
//! (and no authenticated user yet) the API refuses; three nodes all reload after one change.

mod common;

use common::secure::client;

use std::net::SocketAddr;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use fathom::node::NodeSettings;
use fathom::security::demo;
use serde_json::{json, Value};

const PASSWORD: &str = "myStrongPassword123!";

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

impl Node {
    fn svc(&self) -> Arc<fathom::security::config::SecurityService> {
        self.running.as_ref().unwrap().node.security.get().unwrap().clone()
    }
}

fn start(conf: &Path, data: &Path, extra: &[String]) -> Node {
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    let mut overrides = vec![format!("path.data={}", data.display()), "http.port=0".into()];
    overrides.extend(extra.iter().cloned());
    if !extra.iter().any(|e| e.starts_with("transport.port=")) {
        overrides.push("transport.port=0".into());
    }
    let settings = NodeSettings::load(Some(conf), &overrides).unwrap();
    let running = rt.block_on(fathom::http::start(settings)).unwrap();
    let addr = running.addr;
    Node { rt, running: Some(running), addr }
}

/// One HTTPS request: status and JSON body (Null when the body is not JSON).
fn https(addr: SocketAddr, cfg: &Arc<rustls::ClientConfig>, method: &str, path: &str, body: &str) -> (u16, Value) {
    https_as(addr, cfg, None, method, path, body)
}

/// [`https`] with HTTP basic credentials.
fn https_as(
    addr: SocketAddr,
    cfg: &Arc<rustls::ClientConfig>,
    user: Option<(&str, &str)>,
    method: &str,
    path: &str,
    body: &str,
) -> (u16, Value) {
    let r = common::secure::call(addr, cfg, user, method, path, body);
    let (status, body) = (r.status, r.body);
    // Chunked bodies: take the JSON between the first `{` and the last `}`.
    let json = match (body.find(['{', '[']), body.rfind(['}', ']'])) {
        (Some(a), Some(b)) if b >= a => serde_json::from_str(&body[a..=b]).unwrap_or(Value::Null),
        _ => Value::Null,
    };
    (status, json)
}

fn wait_loaded(nodes: &[&Node], admin: &Arc<rustls::ClientConfig>) {
    let deadline = Instant::now() + Duration::from_secs(90);
    for n in nodes {
        loop {
            let (status, body) = https(n.addr, admin, "GET", "/_plugins/_security/health", "");
            if status == 200 && n.svc().loaded_from_index() {
                assert_eq!(body["status"], "UP", "{body}");
                break;
            }
            assert!(Instant::now() < deadline, "security index never loaded: {status} {body}");
            std::thread::sleep(Duration::from_millis(200));
        }
    }
}

fn msg(status: u16, s: &str, m: &str) -> (u16, Value) {
    (status, json!({"status": s, "message": m}))
}

#[test]
fn single_node_creates_the_index_and_serves_the_api() {
    let conf = tempfile::tempdir().unwrap();
    let data = tempfile::tempdir().unwrap();
    assert_eq!(demo::setup(conf.path(), Some(PASSWORD)).unwrap(), demo::Outcome::Installed);
    let node = start(conf.path(), data.path(), &[]);
    let admin = client(conf.path(), true);
    let anon = client(conf.path(), false);
    wait_loaded(&[&node], &admin);
    let a = node.addr;

    // The index holds one doc per type, the type's JSON base64'd.
    let (status, doc) = https(a, &admin, "GET", "/.opendistro_security/_doc/internalusers", "");
    assert_eq!(status, 200, "{doc}");
    assert!(doc["_source"]["internalusers"].is_string(), "{doc}");

    // Without credentials: refused by authentication.
    assert_eq!(https(a, &anon, "GET", "/_plugins/_security/api/roles", "").0, 401);
    // The demo admin (all_access, a roles_enabled role) over basic auth may use the API.
    let admin_user = Some(("admin", PASSWORD));
    let (status, body) = https_as(a, &anon, admin_user, "GET", "/_plugins/_security/api/roles/all_access", "");
    assert_eq!(status, 200, "{body}");

    // Users: create, read (hash blanked), update, validation, delete.
    let gen0 = node.svc().generation();
    let r = https(
        a,
        &admin,
        "PUT",
        "/_plugins/_security/api/internalusers/alice",
        r#"{"password":"Xq7#vLm2$Rt9","backend_roles":["dev"]}"#,
    );
    assert_eq!(r, msg(201, "CREATED", "'alice' created."));
    assert!(node.svc().generation() > gen0, "the write reloaded the node");
    let hash = node.svc().current().internal_users.entries["alice"].hash.clone();
    assert!(hash.starts_with("$2y$12$"), "{hash}");
    let (status, body) = https(a, &admin, "GET", "/_plugins/_security/api/internalusers/alice", "");
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["alice"]["hash"], "");
    assert_eq!(body["alice"]["backend_roles"], json!(["dev"]));
    let r = https(a, &admin, "PUT", "/_plugins/_security/api/internalusers/alice", r#"{"backend_roles":["ops"]}"#);
    assert_eq!(r, msg(200, "OK", "'alice' updated."));
    let cur = node.svc().current();
    assert_eq!(cur.internal_users.entries["alice"].hash, hash, "an update without password keeps the hash");
    assert_eq!(cur.internal_users.entries["alice"].backend_roles, ["ops"]);
    let (status, body) = https(a, &admin, "PUT", "/_plugins/_security/api/internalusers/bob", r#"{"password":"weak"}"#);
    assert_eq!((status, body["reason"].clone()), (400, json!("Password is too short")), "{body}");
    let (status, body) =
        https(a, &admin, "PUT", "/_plugins/_security/api/internalusers/bob", r#"{"backend_roles":[]}"#);
    assert_eq!(
        (status, body["message"].clone()),
        (400, json!("Please specify either 'hash' or 'password' when creating a new internal user."))
    );
    let (status, body) = https(a, &admin, "PUT", "/_plugins/_security/api/internalusers/bob", r#"{"pass":"x"}"#);
    assert_eq!(status, 400);
    assert_eq!(body, json!({"status": "error", "reason": "Invalid configuration", "invalid_keys": {"keys": "pass"}}));
    assert_eq!(
        https(a, &admin, "GET", "/_plugins/_security/api/internalusers/bob", ""),
        msg(404, "NOT_FOUND", "user 'bob' not found.")
    );

    // Roles and mappings: a mapping of a missing role is refused; static roles are listed.
    let r = https(
        a,
        &admin,
        "PUT",
        "/_plugins/_security/api/roles/logs_reader",
        r#"{"index_permissions":[{"index_patterns":["logs-*"],"allowed_actions":["read"]}]}"#,
    );
    assert_eq!(r, msg(201, "CREATED", "'logs_reader' created."));
    assert!(node.svc().current().roles.entries.contains_key("logs_reader"));
    assert_eq!(
        https(a, &admin, "PUT", "/_plugins/_security/api/rolesmapping/nope", r#"{"users":["alice"]}"#),
        msg(404, "NOT_FOUND", "role 'nope' not found.")
    );
    let r = https(a, &admin, "PUT", "/_plugins/_security/api/rolesmapping/logs_reader", r#"{"users":["alice"]}"#);
    assert_eq!(r, msg(201, "CREATED", "'logs_reader' created."));
    let (status, roles) = https(a, &admin, "GET", "/_plugins/_security/api/roles", "");
    assert_eq!(status, 200);
    assert_eq!(roles["all_access"]["static"], true, "{roles}");
    assert_eq!(roles["logs_reader"]["index_permissions"][0]["index_patterns"], json!(["logs-*"]));

    // Action groups: a group of itself is refused; allowed_actions is mandatory.
    let (status, body) =
        https(a, &admin, "PUT", "/_plugins/_security/api/actiongroups/g", r#"{"allowed_actions":["g"]}"#);
    assert_eq!((status, body["message"].clone()), (400, json!("g cannot be an allowed_action of itself")));
    let (status, body) = https(a, &admin, "PUT", "/_plugins/_security/api/actiongroups/g", r#"{"description":"x"}"#);
    assert_eq!((status, body["missing_mandatory_keys"]["keys"].clone()), (400, json!("allowed_actions")));

    // PATCH of one entry and of the whole type; unsupported operations.
    let r = https(
        a,
        &admin,
        "PATCH",
        "/_plugins/_security/api/roles/logs_reader",
        r#"[{"op":"add","path":"/cluster_permissions","value":["cluster_monitor"]}]"#,
    );
    assert_eq!(r, msg(200, "OK", "'logs_reader' updated."));
    assert_eq!(node.svc().current().roles.entries["logs_reader"].cluster_permissions, ["cluster_monitor"]);
    let r = https(
        a,
        &admin,
        "PATCH",
        "/_plugins/_security/api/tenants",
        r#"[{"op":"add","path":"/team","value":{"description":"the team"}}]"#,
    );
    assert_eq!(r, msg(200, "OK", "Resource updated."));
    assert!(node.svc().current().tenants.entries.contains_key("team"));
    let r =
        https(a, &admin, "PATCH", "/_plugins/_security/api/tenants", r#"[{"op":"move","from":"/team","path":"/t2"}]"#);
    assert_eq!(r, msg(400, "BAD_REQUEST", "Unsupported patch operation: move. Supported are: add,replace,remove"));
    let r = https(a, &admin, "PATCH", "/_plugins/_security/api/tenants", r#"{"op":"add"}"#);
    assert_eq!(r, msg(400, "BAD_REQUEST", "Wrong request body"));

    // Delete.
    assert_eq!(
        https(a, &admin, "DELETE", "/_plugins/_security/api/internalusers/alice", ""),
        msg(200, "OK", "'alice' deleted.")
    );
    assert!(!node.svc().current().internal_users.entries.contains_key("alice"));
    assert_eq!(
        https(a, &admin, "DELETE", "/_plugins/_security/api/internalusers/alice", ""),
        msg(404, "NOT_FOUND", "user 'alice' not found.")
    );

    // securityconfig: readable; changing it needs the unsupported setting.
    let (status, body) = https(a, &admin, "GET", "/_plugins/_security/api/securityconfig", "");
    assert_eq!(status, 200);
    assert!(body["config"]["dynamic"]["authc"].is_object(), "{body}");
    assert_eq!(
        https(a, &admin, "PUT", "/_plugins/_security/api/securityconfig/config", r#"{"dynamic":{}}"#),
        msg(403, "FORBIDDEN", "Access denied")
    );
    // Versions are off by default: no such route.
    assert_eq!(https(a, &admin, "GET", "/_plugins/_security/api/versions", "").0, 400);
    // The legacy prefix routes to the same API.
    assert_eq!(https(a, &admin, "GET", "/_opendistro/_security/api/tenants/team", "").0, 200);
}

#[test]
fn a_restarted_node_keeps_the_index_configuration() {
    let conf = tempfile::tempdir().unwrap();
    let data = tempfile::tempdir().unwrap();
    assert_eq!(demo::setup(conf.path(), Some(PASSWORD)).unwrap(), demo::Outcome::Installed);
    let admin = client(conf.path(), true);
    {
        let node = start(conf.path(), data.path(), &[]);
        wait_loaded(&[&node], &admin);
        let r = https(node.addr, &admin, "PUT", "/_plugins/_security/api/tenants/kept", r#"{"description":"k"}"#);
        assert_eq!(r.0, 201, "{}", r.1);
    }
    let node = start(conf.path(), data.path(), &[]);
    wait_loaded(&[&node], &admin);
    assert!(node.svc().current().tenants.entries.contains_key("kept"), "loaded from the index, not the files");
}

#[test]
fn three_nodes_all_reload_after_a_change() {
    let _turn = common::cluster::one_cluster_at_a_time();
    let conf = tempfile::tempdir().unwrap();
    assert_eq!(demo::setup(conf.path(), Some(PASSWORD)).unwrap(), demo::Outcome::Installed);
    let admin = client(conf.path(), true);
    let dirs: Vec<_> = (0..3).map(|_| tempfile::tempdir().unwrap()).collect();
    let ports: Vec<u16> = (0..3).map(|_| common::cluster::free_port()).collect();
    let seeds = ports.iter().map(|p| format!("127.0.0.1:{p}")).collect::<Vec<_>>().join(",");
    let names = ["s0", "s1", "s2"];
    let nodes: Vec<Node> = (0..3)
        .map(|i| {
            start(
                conf.path(),
                dirs[i].path(),
                &[
                    format!("transport.port={}", ports[i]),
                    format!("node.name={}", names[i]),
                    format!("discovery.seed_hosts={seeds}"),
                    format!("cluster.initial_cluster_manager_nodes={}", names.join(",")),
                ],
            )
        })
        .collect();
    let all: Vec<&Node> = nodes.iter().collect();
    // Every node in the cluster, and the security index on all of them (`0-all` replicas).
    let deadline = Instant::now() + Duration::from_secs(90);
    for n in &nodes {
        loop {
            let (_, h) = https(n.addr, &admin, "GET", "/_cluster/health/.opendistro_security", "");
            if h["number_of_nodes"] == 3 && h["status"] == "green" && h["active_shards"] == 3 {
                break;
            }
            assert!(Instant::now() < deadline, "no 3-node green security index: {h}");
            std::thread::sleep(Duration::from_millis(200));
        }
    }
    wait_loaded(&all, &admin);
    let r = https(
        nodes[1].addr,
        &admin,
        "PUT",
        "/_plugins/_security/api/roles/everywhere",
        r#"{"cluster_permissions":["cluster_monitor"]}"#,
    );
    assert_eq!(r, msg(201, "CREATED", "'everywhere' created."));
    // The write answered after every node reloaded.
    for (i, n) in nodes.iter().enumerate() {
        let (_, st) = https(n.addr, &admin, "GET", "/_cluster/state/nodes,cluster_manager_node", "");
        assert!(n.svc().current().roles.entries.contains_key("everywhere"), "node {i} did not reload: {st}");
    }
}

fn securityadmin(args: &[String]) -> (i32, String) {
    let out =
        std::process::Command::new(env!("CARGO_BIN_EXE_fathom")).arg("securityadmin").args(args).output().unwrap();
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stdout).into_owned())
}

#[test]
fn securityadmin_uploads_files_backs_up_and_needs_the_admin_certificate() {
    let conf = tempfile::tempdir().unwrap();
    let data = tempfile::tempdir().unwrap();
    assert_eq!(demo::setup(conf.path(), Some(PASSWORD)).unwrap(), demo::Outcome::Installed);
    let node = start(conf.path(), data.path(), &[]);
    let admin = client(conf.path(), true);
    wait_loaded(&[&node], &admin);
    let sec = conf.path().join("opensearch-security");
    let mut tenants = std::fs::read_to_string(sec.join("tenants.yml")).unwrap();
    tenants.push_str("\nfrom_files:\n  description: \"uploaded by securityadmin\"\n");
    std::fs::write(sec.join("tenants.yml"), tenants).unwrap();
    let p = |f: &str| conf.path().join(f).display().to_string();
    let common = |cert: &str, key: &str| -> Vec<String> {
        vec![
            "-cacert".into(),
            p("root-ca.pem"),
            "-cert".into(),
            p(cert),
            "-key".into(),
            p(key),
            "-h".into(),
            "localhost".into(),
            "-p".into(),
            node.addr.port().to_string(),
        ]
    };

    // A certificate that is not an admin DN (the node's own) is refused by the node.
    let mut a = vec!["-cd".to_string(), sec.display().to_string()];
    a.extend(common("esnode.pem", "esnode-key.pem"));
    let (code, out) = securityadmin(&a);
    assert_eq!(code, 255, "{out}");
    assert!(out.contains("is not an admin user"), "{out}");
    assert!(!node.svc().current().tenants.entries.contains_key("from_files"));

    // The admin certificate uploads every file and every node reloads.
    let mut a = vec!["-cd".to_string(), sec.display().to_string()];
    a.extend(common("kirk.pem", "kirk-key.pem"));
    let (code, out) = securityadmin(&a);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("Connected as \"CN=kirk,OU=client,O=client,L=test,C=de\""), "{out}");
    assert!(out.contains("   SUCC: Configuration for 'tenants' created or updated"), "{out}");
    assert!(out.contains("Done with success"), "{out}");
    assert!(node.svc().current().tenants.entries.contains_key("from_files"));

    // One file with its type.
    let one = conf.path().join("one_tenant.yml");
    std::fs::write(&one, "_meta:\n  type: \"tenants\"\n  config_version: 2\nonly_one: {}\n").unwrap();
    let mut a = vec!["-f".to_string(), one.display().to_string(), "-t".into(), "tenants".into()];
    a.extend(common("kirk.pem", "kirk-key.pem"));
    let (code, out) = securityadmin(&a);
    assert_eq!(code, 0, "{out}");
    let cur = node.svc().current();
    assert!(cur.tenants.entries.contains_key("only_one") && !cur.tenants.entries.contains_key("from_files"));

    // Backup: the index back into files.
    let backup = tempfile::tempdir().unwrap();
    let mut a = vec!["-backup".to_string(), backup.path().display().to_string()];
    a.extend(common("kirk.pem", "kirk-key.pem"));
    let (code, out) = securityadmin(&a);
    assert_eq!(code, 0, "{out}");
    let saved = std::fs::read_to_string(backup.path().join("tenants.yml")).unwrap();
    assert!(saved.contains("only_one"), "{saved}");
    assert!(backup.path().join("internal_users.yml").exists());
}

#[test]
fn upgrade_check_compares_the_shipped_roles_and_perform_restores_them() {
    let conf = tempfile::tempdir().unwrap();
    let data = tempfile::tempdir().unwrap();
    assert_eq!(demo::setup(conf.path(), Some(PASSWORD)).unwrap(), demo::Outcome::Installed);
    let node = start(conf.path(), data.path(), &[]);
    let admin = client(conf.path(), true);
    wait_loaded(&[&node], &admin);
    let a = node.addr;
    let check = |c: &Arc<rustls::ClientConfig>| https(a, c, "GET", "/_plugins/_security/api/_upgrade_check", "");
    assert_eq!(check(&admin), (200, json!({"status": "OK", "upgradeAvailable": false})));
    assert_eq!(
        https(a, &admin, "POST", "/_plugins/_security/api/_upgrade_perform", ""),
        msg(400, "BAD_REQUEST", "Unable to upgrade, no differences found")
    );
    // A shipped role deleted and another changed: upgrades available.
    assert_eq!(https(a, &admin, "DELETE", "/_plugins/_security/api/roles/kibana_read_only", "").0, 200);
    let r = https(
        a,
        &admin,
        "PATCH",
        "/_plugins/_security/api/roles/security_rest_api_access",
        r#"[{"op":"add","path":"/description","value":"changed"}]"#,
    );
    assert_eq!(r.0, 200, "{}", r.1);
    assert_eq!(
        check(&admin),
        (
            200,
            json!({"status": "OK", "upgradeAvailable": true, "upgradeActions": {"roles": {"add": ["kibana_read_only"], "remove": ["security_rest_api_access"]}}})
        )
    );
    let (status, body) = https(a, &admin, "POST", "/_plugins/_security/api/_upgrade_perform", "");
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["upgrades"]["roles"]["add"], json!(["kibana_read_only"]));
    assert!(node.svc().current().roles.entries.contains_key("kibana_read_only"));
    assert_eq!(check(&admin).1["upgradeAvailable"], false);
    // Health: UP once loaded from the index.
    let anon = client(conf.path(), false);
    let (status, body) =
        https_as(a, &anon, Some(("admin", PASSWORD)), "GET", "/_plugins/_security/health?mode=strict", "");
    assert_eq!(status, 200);
    assert_eq!(
        (body["message"].clone(), body["mode"].clone(), body["status"].clone()),
        (Value::Null, json!("strict"), json!("UP"))
    );
}

#[test]
fn versions_record_changes_and_roll_back() {
    let conf = tempfile::tempdir().unwrap();
    let data = tempfile::tempdir().unwrap();
    assert_eq!(demo::setup(conf.path(), Some(PASSWORD)).unwrap(), demo::Outcome::Installed);
    let node = start(conf.path(), data.path(), &["plugins.security.configurations_versions.enabled=true".to_string()]);
    let admin = client(conf.path(), true);
    wait_loaded(&[&node], &admin);
    let a = node.addr;
    let r = https(a, &admin, "PUT", "/_plugins/_security/api/tenants/versioned", r#"{"description":"v"}"#);
    assert_eq!(r.0, 201, "{}", r.1);
    let (status, body) = https(a, &admin, "GET", "/_plugins/_security/api/versions", "");
    assert_eq!(status, 200, "{body}");
    let ids: Vec<&str> =
        body["versions"].as_array().unwrap().iter().map(|v| v["version_id"].as_str().unwrap()).collect();
    assert_eq!(ids, ["v1", "v2"], "{body}");
    assert_eq!(body["versions"][0]["modified_by"], "system");
    assert!(body["versions"][1]["security_configs"]["tenants"]["configData"]["versioned"].is_object(), "{body}");
    let (status, one) = https(a, &admin, "GET", "/_plugins/_security/api/version/v1", "");
    assert_eq!((status, one["versions"][0]["version_id"].clone()), (200, json!("v1")));
    assert_eq!(
        https(a, &admin, "GET", "/_plugins/_security/api/version/v9", ""),
        msg(404, "NOT_FOUND", "Version v9 not found")
    );
    assert_eq!(
        https(a, &admin, "POST", "/_plugins/_security/api/version/rollback", ""),
        msg(200, "OK", "config rolled back to version v1")
    );
    assert!(!node.svc().current().tenants.entries.contains_key("versioned"), "rolled back on the node");
    let (_, body) = https(a, &admin, "GET", "/_plugins/_security/api/versions", "");
    assert_eq!(body["versions"].as_array().unwrap().len(), 3, "the rollback is a version too: {body}");
    assert_eq!(
        https(a, &admin, "POST", "/_plugins/_security/api/version/rollback/v2", ""),
        msg(200, "OK", "config rolled back to version v2")
    );
    assert!(node.svc().current().tenants.entries.contains_key("versioned"));
}

#[test]
fn with_security_off_the_plugin_routes_do_not_exist() {
    let data = tempfile::tempdir().unwrap();
    let s = common::http::TestServer::start(data.path(), &[]);
    for (m, p) in [
        ("GET", "/_plugins/_security/health"),
        ("GET", "/_plugins/_security/api/roles"),
        ("GET", "/_plugins/_security/api/account"),
    ] {
        let r = common::http::send(s.addr, m, p, None, &[]);
        assert_eq!(r.status, 400, "{p}: {}", r.text());
        assert_eq!(r.json()["error"], format!("no handler found for uri [{p}] and method [{m}]"));
    }
}
