//! The authorization matrix: every route of Fathom's REST table, called over HTTPS by users of
//! five kinds (the issue's list): `all_access` (the demo admin), `readall`, an index-pattern
//! role (`logs-*`), a PIT-only role and no role at all. Each route's path parameters are filled
//! with values naming `logs-1` (allowed to the pattern roles) or `secret` (allowed to none of
//! them). Checked for every call: an authenticated user never gets a 401 or a 5xx; a denial is a
//! 403 `security_exception` naming the user; no user gets a 2xx the role does not grant (by an
//! oracle written here from the action names, independent of Fathom's evaluator); the admin is
//! never refused a read.

mod common;

use std::path::Path;

use common::secure::{call, client, hash, start, Resp, PASSWORD};
use fathom::security::demo;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Who {
    Admin,
    Reader,
    Logs,
    Pit,
    Nobody,
}

impl Who {
    fn creds(self) -> (&'static str, String) {
        match self {
            Who::Admin => ("admin", PASSWORD.to_string()),
            Who::Reader => ("reader", "reader-Pass1!".into()),
            Who::Logs => ("logs", "logs-Pass1!".into()),
            Who::Pit => ("pit", "pit-Pass1!".into()),
            Who::Nobody => ("nobody", "nobody-Pass1!".into()),
        }
    }
}

/// The demo setup plus `reader` (backend role readall), `logs` (role `logs_rw`: crud on
/// `logs-*`), `pit` (role `pit_only`: PIT create/delete on `logs-*`) and `nobody`.
fn configure(conf: &Path) {
    assert_eq!(demo::setup(conf, Some(PASSWORD)).unwrap(), demo::Outcome::Installed);
    let dir = conf.join("opensearch-security");
    let mut users = std::fs::read_to_string(dir.join("internal_users.yml")).unwrap();
    for (name, roles) in [("reader", "[readall]"), ("logs", "[logs]"), ("pit", "[pit]"), ("nobody", "[]")] {
        users.push_str(&format!(
            "\n{name}:\n  hash: \"{}\"\n  backend_roles: {roles}\n",
            hash(&format!("{name}-Pass1!"))
        ));
    }
    std::fs::write(dir.join("internal_users.yml"), users).unwrap();
    let mut roles = std::fs::read_to_string(dir.join("roles.yml")).unwrap();
    roles.push_str(
        "\nlogs_rw:\n  cluster_permissions: [cluster_composite_ops, cluster_monitor]\n  index_permissions:\n  - index_patterns: [\"logs-*\"]\n    allowed_actions: [crud, create_index]\n\
         \npit_only:\n  index_permissions:\n  - index_patterns: [\"logs-*\"]\n    allowed_actions: [\"indices:data/read/point_in_time/create\", \"indices:data/read/point_in_time/delete\"]\n",
    );
    std::fs::write(dir.join("roles.yml"), roles).unwrap();
    let mut mapping = std::fs::read_to_string(dir.join("roles_mapping.yml")).unwrap();
    mapping.push_str("\nlogs_rw:\n  backend_roles: [logs]\npit_only:\n  backend_roles: [pit]\n");
    std::fs::write(dir.join("roles_mapping.yml"), mapping).unwrap();
}

/// A concrete path for a route pattern, naming `index` wherever an index goes.
fn fill(pattern: &str, index: &str) -> String {
    let mut out = String::new();
    for seg in pattern.split('/').filter(|s| !s.is_empty()) {
        out.push('/');
        let v = match seg {
            "{index}" => index,
            "{id}" => "1",
            "{name}" | "{alias}" | "{fields}" | "{repository}" => "x",
            "{node_id}" | "{node_name}" => "_local",
            "{metric}" | "{index_metric}" => "_all",
            "{task_id}" => "nodeid:1",
            "{scroll_id}" | "{pit_id}" => "bm90LWEtc2Nyb2xs",
            "{block}" => "write",
            "{thread_pools}" => "search",
            "{attribute}" | "{awareness_attribute_name}" => "zone",
            "{awareness_attribute_value}" => "a",
            s if s.starts_with('{') => "0",
            s => s,
        };
        out.push_str(v);
    }
    if out.is_empty() {
        out.push('/');
    }
    out
}

fn is_security_api(pattern: &str) -> bool {
    pattern.starts_with("/_plugins/_security") || pattern.starts_with("/_opendistro/_security")
}

/// Endpoints every authenticated user may call: the security plugin's own user endpoints, and
/// `GET /_cat` (the list of cat endpoints runs no transport action, so the plugin checks none).
fn open_to_everyone(pattern: &str) -> bool {
    pattern == "/_cat"
        || (["/authinfo", "/whoami", "/health", "/api/account"].iter().any(|p| pattern.ends_with(p))
            && is_security_api(pattern))
}

/// Whether `who` may get a 2xx for `action` on `path`, by the roles this test configured
/// (an upper bound: a 2xx outside it is an unauthorized success).
fn may_succeed(who: Who, action: &str, pattern: &str, path: &str) -> bool {
    if open_to_everyone(pattern) {
        return true;
    }
    let write = action.starts_with("indices:data/write")
        || action.starts_with("cluster:admin/")
        || [
            "indices:admin/create",
            "indices:admin/delete",
            "indices:admin/close",
            "indices:admin/open",
            "indices:admin/settings/update",
            "indices:admin/mapping/put",
            "indices:admin/aliases",
        ]
        .contains(&action);
    match who {
        Who::Admin => true,
        Who::Nobody => false,
        Who::Reader => !write && !is_security_api(pattern),
        // Cluster permissions are checked alone, whatever indices the request names (the
        // plugin's `isClusterPerm` branch): `cluster_monitor` answers `_cluster/health/secret`.
        Who::Logs => {
            (action.starts_with("cluster:monitor/") || !path.contains("secret"))
                && !action.starts_with("cluster:admin/")
                && !is_security_api(pattern)
        }
        Who::Pit => action.contains("point_in_time") && !path.contains("secret") && !path.contains("_all"),
    }
}

fn invalid(r: &Resp) -> bool {
    r.status == 400 && r.json()["error"]["type"] == "action_request_validation_exception"
}

/// A security API route its setting leaves off (configuration versions) answers as an unknown
/// route, as the plugin registers none then.
fn switched_off(pattern: &str, r: &Resp) -> bool {
    is_security_api(pattern) && r.status == 400 && r.body.starts_with("{\"error\":\"no handler found")
}

fn check_denial(who: Who, r: &Resp) -> Result<(), String> {
    if r.body.is_empty() && r.status == 403 {
        // `configupdate` refuses anyone but the admin certificate with an empty 403, as the plugin.
        return Ok(());
    }
    let v = r.json();
    if !v["error"].is_object() {
        // The security REST API answers its own refusals (`{"status":"FORBIDDEN",...}`).
        return if v["status"] == "FORBIDDEN" { Ok(()) } else { Err(format!("not a security refusal: {}", r.body)) };
    }
    let reason = v["error"]["reason"].as_str().unwrap_or("");
    if v["error"]["type"] != "security_exception"
        || !reason.starts_with("no permissions for [")
        || !reason.contains(&format!("User [name={}, ", who.creds().0))
    {
        return Err(format!("not the plugin's denial: {}", r.body));
    }
    Ok(())
}

#[test]
fn every_route_by_every_kind_of_user() {
    let conf = tempfile::tempdir().unwrap();
    let data = tempfile::tempdir().unwrap();
    configure(conf.path());
    let node = start(conf.path(), data.path());
    let cfg = client(conf.path(), false);
    let a = node.addr;
    let admin = Some(("admin", PASSWORD));
    for idx in ["logs-1", "secret"] {
        let r = call(a, &cfg, admin, "PUT", &format!("/{idx}/_doc/1?refresh=true"), r#"{"f":"x"}"#);
        assert_eq!(r.status, 201, "{}", r.body);
    }
    let routes = fathom::http::route_table();
    let mut calls = 0usize;
    let mut denials = 0usize;
    let mut successes = 0usize;
    let mut bad: Vec<String> = Vec::new();
    // The admin last, and only with reads: the others are refused or fail on their empty bodies.
    for who in [Who::Nobody, Who::Pit, Who::Reader, Who::Logs, Who::Admin] {
        let (user, pw) = who.creds();
        for &(method, pattern, action) in &routes {
            if who == Who::Admin && !matches!(method, "GET" | "HEAD") {
                continue;
            }
            let targets: &[&str] = if pattern.contains("{index}") { &["logs-1", "secret"] } else { &["logs-1"] };
            for target in targets {
                let path = fill(pattern, target);
                let label = format!("{who:?} {method} {path} ({action})");
                let r = call(a, &cfg, Some((user, &pw)), method, &path, "");
                calls += 1;
                let ok = (200..300).contains(&r.status);
                let mut fail = |what: &str| bad.push(format!("{label}: {what}: {} {}", r.status, r.body));
                if r.status == 401 {
                    fail("an authenticated user got 401");
                }
                if r.status >= 500 && r.status != 503 {
                    fail("server error");
                }
                if ok {
                    successes += 1;
                    if !may_succeed(who, action, pattern, &path) {
                        fail("unauthorized success");
                    }
                }
                match who {
                    // A request that fails its validation answers 400 before any action filter
                    // runs (`TransportAction.execute` validates first), as in OpenSearch.
                    Who::Nobody
                        if !open_to_everyone(pattern)
                            && r.status != 403
                            && !invalid(&r)
                            && !switched_off(pattern, &r) =>
                    {
                        fail("a user without a role must be refused")
                    }
                    Who::Admin if r.status == 403 => fail("the admin was refused"),
                    _ => {}
                }
                if r.status == 403 && method != "HEAD" {
                    denials += 1;
                    if let Err(e) = check_denial(who, &r) {
                        bad.push(format!("{label}: {e}"));
                    }
                }
            }
        }
    }
    assert!(bad.is_empty(), "{} violations:\n{}", bad.len(), bad.join("\n"));
    assert!(calls > 500 && denials > 200 && successes > 100, "calls {calls}, denials {denials}, successes {successes}");

    // The PIT-only role: create and delete its own PITs; list-all and delete-all need `*`.
    let pit = Some(("pit", "pit-Pass1!"));
    let r = call(a, &cfg, pit, "POST", "/logs-1/_search/point_in_time?keep_alive=1m", "");
    assert_eq!(r.status, 200, "{}", r.body);
    let id = r.json()["pit_id"].as_str().unwrap().to_string();
    let r = call(a, &cfg, pit, "POST", "/secret/_search/point_in_time?keep_alive=1m", "");
    assert_eq!(r.status, 403, "{}", r.body);
    for (method, path) in [("GET", "/_search/point_in_time/_all"), ("DELETE", "/_search/point_in_time/_all")] {
        let r = call(a, &cfg, pit, method, path, "");
        assert_eq!(r.status, 403, "{method} {path}: {}", r.body);
        check_denial(Who::Pit, &r).unwrap();
    }
    let r = call(a, &cfg, pit, "DELETE", "/_search/point_in_time", &format!(r#"{{"pit_id":["{id}"]}}"#));
    assert_eq!(r.status, 200, "{}", r.body);
}
