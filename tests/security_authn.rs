//! Security, authentication and authorization over real HTTPS (the demo setup): 401 with the
//! challenge without or with wrong credentials, basic login, the admin certificate as super
//! admin, anonymous login, blocking after failed logins, the login cache after a configuration
//! change, `authinfo`/`whoami`, and per-endpoint allow/deny for users of several roles.

mod common;

use std::path::Path;

use common::secure::{call, client, hash, start, PASSWORD};
use fathom::security::demo;
use serde_json::Value;

/// The demo setup plus users: `reader` (backend role readall), `logs` (role `logs_rw` on
/// `logs-*`), `own` (role `own_index` on `${user.name}-*`), `nobody` (no role); and an ip
/// failure listener (3 tries) when `listeners`, anonymous auth when `anonymous`.
fn configure(conf: &Path, anonymous: bool, listeners: bool) {
    assert_eq!(demo::setup(conf, Some(PASSWORD)).unwrap(), demo::Outcome::Installed);
    let dir = conf.join("opensearch-security");
    let mut users = std::fs::read_to_string(dir.join("internal_users.yml")).unwrap();
    for (name, roles) in [("reader", "[readall]"), ("logs", "[logs]"), ("own", "[]"), ("nobody", "[]")] {
        users.push_str(&format!(
            "\n{name}:\n  hash: \"{}\"\n  backend_roles: {roles}\n",
            hash(&format!("{name}-Pass1!"))
        ));
    }
    std::fs::write(dir.join("internal_users.yml"), users).unwrap();
    let mut roles = std::fs::read_to_string(dir.join("roles.yml")).unwrap();
    roles.push_str(
        "\nlogs_rw:\n  cluster_permissions: [cluster_composite_ops, cluster_monitor]\n  index_permissions:\n  - index_patterns: [\"logs-*\"]\n    allowed_actions: [crud, create_index]\n\
         \nown_index_rw:\n  cluster_permissions: [cluster_composite_ops]\n  index_permissions:\n  - index_patterns: [\"${user.name}-*\"]\n    allowed_actions: [crud, create_index]\n",
    );
    std::fs::write(dir.join("roles.yml"), roles).unwrap();
    let mut mapping = std::fs::read_to_string(dir.join("roles_mapping.yml")).unwrap();
    mapping.push_str("\nlogs_rw:\n  backend_roles: [logs]\nown_index_rw:\n  users: [own]\n");
    if anonymous {
        mapping = mapping.replace(
            "readall:\n  reserved: false\n  backend_roles:\n  - \"readall\"",
            "readall:\n  reserved: false\n  backend_roles:\n  - \"readall\"\n  - \"opendistro_security_anonymous_backendrole\"",
        );
    }
    std::fs::write(dir.join("roles_mapping.yml"), mapping).unwrap();
    let mut config = std::fs::read_to_string(dir.join("config.yml")).unwrap();
    if anonymous {
        config = config.replace("anonymous_auth_enabled: false", "anonymous_auth_enabled: true");
    }
    if listeners {
        config = config.replace(
            "    authc:\n",
            "    auth_failure_listeners:\n      ip_rate_limiting:\n        type: ip\n        allowed_tries: 3\n        time_window_seconds: 3600\n        block_expiry_seconds: 3600\n    authc:\n",
        );
    }
    std::fs::write(dir.join("config.yml"), config).unwrap();
}

#[test]
fn authentication_challenges_logins_admin_cert_and_authinfo() {
    let conf = tempfile::tempdir().unwrap();
    let data = tempfile::tempdir().unwrap();
    configure(conf.path(), false, false);
    let node = start(conf.path(), data.path());
    let cfg = client(conf.path(), false);
    let a = node.addr;
    // No credentials: 401 with the challenge and the plugin's body.
    let r = call(a, &cfg, None, "GET", "/", "");
    assert_eq!(r.status, 401, "{}", r.body);
    assert!(
        r.head.contains("WWW-Authenticate: Basic realm=\"OpenSearch Security\"")
            || r.head.to_lowercase().contains("www-authenticate: basic realm=\"opensearch security\""),
        "{}",
        r.head
    );
    assert_eq!(r.body, "Unauthorized");
    // Wrong password, unknown user: 401.
    assert_eq!(call(a, &cfg, Some(("admin", "wrong")), "GET", "/", "").status, 401);
    assert_eq!(call(a, &cfg, Some(("ghost", PASSWORD)), "GET", "/", "").status, 401);
    // The right password: 200, and again (cached).
    for _ in 0..2 {
        let r = call(a, &cfg, Some(("admin", PASSWORD)), "GET", "/", "");
        assert_eq!(r.status, 200, "{}", r.body);
    }
    // authinfo.
    let r = call(a, &cfg, Some(("admin", PASSWORD)), "GET", "/_plugins/_security/authinfo?verbose=true", "");
    assert_eq!(r.status, 200, "{}", r.body);
    let v = r.json();
    assert_eq!(v["user_name"], "admin");
    assert_eq!(v["user"], "User [name=admin, backend_roles=[admin], requestedTenant=null]");
    assert_eq!(v["backend_roles"], serde_json::json!(["admin"]));
    assert!(v["roles"].as_array().unwrap().iter().any(|r| r == "all_access"), "{v}");
    assert_eq!(v["tenants"]["admin"], true);
    assert_eq!(v["tenants"]["global_tenant"], true);
    assert!(v["remote_address"].as_str().unwrap().starts_with("127.0.0.1:"), "{v}");
    assert_eq!(v["peer_certificates"], "0");
    assert!(v["size_of_user"].as_str().unwrap().ends_with("bytes"), "{v}");
    // The admin certificate: super admin without a password, system indices included.
    let admin = client(conf.path(), true);
    assert_eq!(call(a, &admin, None, "GET", "/", "").status, 200);
    let r = call(a, &admin, None, "GET", "/_plugins/_security/authinfo", "");
    assert_eq!(r.json()["principal"], demo::ADMIN_DN);
    let r = call(a, &admin, None, "GET", "/_plugins/_security/whoami", "");
    assert_eq!(r.json()["is_admin"], true, "{}", r.body);
    // whoami needs no authentication.
    let r = call(a, &cfg, None, "GET", "/_plugins/_security/whoami", "");
    assert_eq!((r.status, r.json()["is_admin"].clone()), (200, Value::Bool(false)), "{}", r.body);
    // A user mapped through a backend role.
    let r = call(a, &cfg, Some(("reader", "reader-Pass1!")), "GET", "/_plugins/_security/authinfo", "");
    assert_eq!(r.status, 200, "{}", r.body);
    assert!(r.json()["roles"].as_array().unwrap().iter().any(|r| r == "readall"), "{}", r.body);
}

#[test]
fn per_endpoint_authorization_by_role() {
    let conf = tempfile::tempdir().unwrap();
    let data = tempfile::tempdir().unwrap();
    configure(conf.path(), false, false);
    let node = start(conf.path(), data.path());
    let cfg = client(conf.path(), false);
    let a = node.addr;
    let admin = Some(("admin", PASSWORD));
    for idx in ["logs-1", "secret", "own-1"] {
        let r = call(a, &cfg, admin, "PUT", &format!("/{idx}/_doc/1?refresh=true"), r#"{"f":"x"}"#);
        assert_eq!(r.status, 201, "{}", r.body);
    }
    let reader = Some(("reader", "reader-Pass1!"));
    let logs = Some(("logs", "logs-Pass1!"));
    let own = Some(("own", "own-Pass1!"));
    let nobody = Some(("nobody", "nobody-Pass1!"));
    let rows: Vec<(Option<(&str, &str)>, &str, &str, &str, u16)> = vec![
        (admin, "GET", "/secret/_search", "", 200),
        (admin, "PUT", "/_cluster/settings", r#"{"transient":{"cluster.routing.allocation.enable":"all"}}"#, 200),
        (reader, "GET", "/secret/_search", "", 200),
        (reader, "GET", "/secret/_doc/1", "", 200),
        (reader, "PUT", "/secret/_doc/2", r#"{"f":1}"#, 403),
        (reader, "PUT", "/_cluster/settings", r#"{"transient":{"cluster.routing.allocation.enable":"all"}}"#, 403),
        (logs, "GET", "/logs-1/_search", "", 200),
        (logs, "GET", "/logs-*/_search", "", 200),
        (logs, "PUT", "/logs-2/_doc/1", r#"{"f":1}"#, 201),
        (logs, "GET", "/secret/_search", "", 403),
        (logs, "GET", "/_search", "", 403),
        (logs, "POST", "/_bulk", "{\"index\":{\"_index\":\"logs-1\"}}\n{\"a\":1}\n", 200),
        (logs, "POST", "/_bulk", "{\"index\":{\"_index\":\"secret\"}}\n{\"a\":1}\n", 403),
        (logs, "GET", "/_cluster/health", "", 200),
        (own, "GET", "/own-1/_search", "", 200),
        (own, "PUT", "/own-2/_doc/1", r#"{"f":1}"#, 201),
        (own, "GET", "/logs-1/_search", "", 403),
        (nobody, "GET", "/logs-1/_search", "", 403),
        (nobody, "GET", "/", "", 403),
        (nobody, "GET", "/_plugins/_security/authinfo", "", 200),
        (admin, "GET", "/.opendistro_security/_search", "", 403),
    ];
    for (i, (who, method, path, body, want)) in rows.iter().enumerate() {
        let r = call(a, &cfg, *who, method, path, body);
        assert_eq!(r.status, *want, "row {i}: {who:?} {method} {path}: {}", r.body);
        if *want == 403 {
            let v = r.json();
            assert_eq!(v["error"]["type"], "security_exception", "{}", r.body);
            let name = who.map(|w| w.0).unwrap_or_default();
            assert!(v["error"]["reason"].as_str().unwrap_or("").starts_with("no permissions for ["), "{}", r.body);
            assert!(
                v["error"]["reason"].as_str().unwrap_or("").contains(&format!("User [name={name}, ")),
                "{}",
                r.body
            );
            assert_eq!(v["status"], 403);
        }
    }
}

#[test]
fn anonymous_login_and_failed_login_blocking() {
    let conf = tempfile::tempdir().unwrap();
    let data = tempfile::tempdir().unwrap();
    configure(conf.path(), true, true);
    let node = start(conf.path(), data.path());
    let cfg = client(conf.path(), false);
    let a = node.addr;
    // Anonymous: no credentials needed; the anonymous backend role maps to readall here.
    let r = call(a, &cfg, None, "GET", "/_plugins/_security/authinfo", "");
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.json()["user_name"], "opendistro_security_anonymous");
    assert_eq!(r.json()["backend_roles"], serde_json::json!(["opendistro_security_anonymous_backendrole"]));
    assert_eq!(call(a, &cfg, None, "GET", "/_search", "").status, 200);
    assert_eq!(call(a, &cfg, None, "PUT", "/x/_doc/1", "{}").status, 403);
    // Three failed logins from 127.0.0.1 block the address: even the right password fails.
    for _ in 0..3 {
        assert_eq!(call(a, &cfg, Some(("admin", "wrong")), "GET", "/", "").status, 401);
    }
    let r = call(a, &cfg, Some(("admin", PASSWORD)), "GET", "/", "");
    assert_eq!((r.status, r.body.as_str()), (401, "Authentication finally failed"));
    // A configuration reload starts the limiters (and the login cache) over.
    let running = node.running.as_ref().unwrap();
    let svc = running.node.security.get().unwrap();
    svc.reload((*svc.current()).clone());
    assert_eq!(call(a, &cfg, Some(("admin", PASSWORD)), "GET", "/", "").status, 200);
}

#[test]
fn a_changed_password_invalidates_the_cached_login() {
    let conf = tempfile::tempdir().unwrap();
    let data = tempfile::tempdir().unwrap();
    configure(conf.path(), false, false);
    let node = start(conf.path(), data.path());
    let cfg = client(conf.path(), false);
    let a = node.addr;
    let old = Some(("nobody", "nobody-Pass1!"));
    assert_eq!(call(a, &cfg, old, "GET", "/_plugins/_security/authinfo", "").status, 200);
    let running = node.running.as_ref().unwrap();
    let svc = running.node.security.get().unwrap();
    let mut next = (*svc.current()).clone();
    next.internal_users.entries.get_mut("nobody").unwrap().hash = hash("New-Pass2!");
    svc.reload(next);
    assert_eq!(call(a, &cfg, old, "GET", "/_plugins/_security/authinfo", "").status, 401);
    assert_eq!(call(a, &cfg, Some(("nobody", "New-Pass2!")), "GET", "/_plugins/_security/authinfo", "").status, 200);
}

#[test]
fn do_not_fail_on_forbidden_narrows_a_search_to_the_allowed_indices() {
    let conf = tempfile::tempdir().unwrap();
    let data = tempfile::tempdir().unwrap();
    configure(conf.path(), false, false);
    let path = conf.path().join("opensearch-security").join("config.yml");
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::write(&path, text.replacen("    http:\n", "    do_not_fail_on_forbidden: true\n    http:\n", 1)).unwrap();
    let node = start(conf.path(), data.path());
    let cfg = client(conf.path(), false);
    let a = node.addr;
    let admin = Some(("admin", PASSWORD));
    for idx in ["logs-1", "secret"] {
        let r = call(a, &cfg, admin, "PUT", &format!("/{idx}/_doc/1?refresh=true"), r#"{"f":"x"}"#);
        assert_eq!(r.status, 201, "{}", r.body);
    }
    let logs = Some(("logs", "logs-Pass1!"));
    // `*` and `_search` over everything: only logs-1 is searched.
    for path in ["/*/_search", "/_search", "/logs-1,secret/_search"] {
        let r = call(a, &cfg, logs, "GET", path, "");
        assert_eq!(r.status, 200, "{path}: {}", r.body);
        assert_eq!(r.json()["hits"]["total"]["value"], 1, "{path}: {}", r.body);
        assert_eq!(r.json()["hits"]["hits"][0]["_index"], "logs-1", "{path}: {}", r.body);
    }
    // Nothing allowed: still 403; writes are never narrowed.
    assert_eq!(call(a, &cfg, logs, "GET", "/secret/_search", "").status, 403);
    assert_eq!(call(a, &cfg, logs, "PUT", "/secret/_doc/2", "{}").status, 403);
}
