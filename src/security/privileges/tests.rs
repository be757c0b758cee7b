//! The evaluator against a table of (roles, request, allowed?), with requests built from the
//! real route table, and a property: no role reaches a system index.

use std::collections::{BTreeMap, HashMap};

use super::*;
use crate::http::handlers::router;
use crate::http::request::Method;
use crate::http::router::Match;
use crate::security::actions::{required, Request};

fn perm(patterns: &[&str], actions: &[&str]) -> IndexPermission {
    IndexPermission {
        index_patterns: patterns.iter().map(|s| s.to_string()).collect(),
        allowed_actions: actions.iter().map(|s| s.to_string()).collect(),
    }
}

fn role(cluster: &[&str], index: Vec<IndexPermission>) -> RoleSpec {
    RoleSpec {
        cluster_permissions: cluster.iter().map(|s| s.to_string()).collect(),
        index_permissions: index,
        ..Default::default()
    }
}

fn roles() -> HashMap<String, RoleSpec> {
    let mut r = HashMap::new();
    r.insert("all_access".into(), role(&["*"], vec![perm(&["*"], &["*"])]));
    r.insert(
        "readall".into(),
        role(&["cluster_composite_ops_ro"], vec![perm(&["*"], &["read", "indices:admin/mappings/get"])]),
    );
    r.insert(
        "logs_rw".into(),
        role(
            &["cluster_composite_ops", "cluster_monitor"],
            vec![perm(&["logs-*"], &["crud", "create_index", "manage_aliases"])],
        ),
    );
    r.insert("point_in_time_full_access".into(), role(&[], vec![perm(&["*"], &["manage_point_in_time"])]));
    r.insert(
        "own_index".into(),
        role(&["cluster_composite_ops"], vec![perm(&["${user.name}-*", "${user_name}"], &["my_group"])]),
    );
    r.insert("dept".into(), role(&[], vec![perm(&["dept-${attr.internal.dept}"], &["read"])]));
    r.insert("regex".into(), role(&[], vec![perm(&["/metrics-[0-9]+/"], &["read"])]));
    r
}

fn groups() -> ActionGroups {
    let mut g = ActionGroups::new();
    g.insert("my_group".into(), vec!["crud".into(), "my_loop".into()]);
    g.insert("my_loop".into(), vec!["my_group".into(), "indices:admin/create".into()]);
    crate::security::privileges_static::with_static(&g)
}

fn cluster() -> ClusterIndices {
    let mut aliases = BTreeMap::new();
    aliases.insert("logs".to_string(), vec!["logs-1".to_string(), "logs-2".to_string()]);
    aliases.insert("mixed".to_string(), vec!["logs-1".to_string(), "secret".to_string()]);
    ClusterIndices {
        indices: [
            "logs-1",
            "logs-2",
            "secret",
            "bob-a",
            "alice-a",
            "dept-sales",
            "metrics-12",
            ".opendistro_security",
            ".tasks",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect(),
        aliases,
    }
}

fn user(name: &str) -> User {
    let mut attributes = BTreeMap::new();
    attributes.insert("attr.internal.dept".to_string(), "sales".to_string());
    User { name: name.into(), attributes, ..Default::default() }
}

/// Builds what a request needs through the real route table.
fn req(method: Method, path: &str, body: &str) -> RequiredPrivileges {
    let r = router();
    let Match::Found(route, params) = r.find(method, path) else { panic!("no route for {path}") };
    required(&Request { action: route.action, pattern: route.pattern, params: &params, body: Some(body.as_bytes()) })
}

fn check(role_names: &[&str], name: &str, p: &RequiredPrivileges) -> Result<(), Denied> {
    let privs = Privileges::new(1, &roles(), &groups());
    let roles: Vec<String> = role_names.iter().map(|s| s.to_string()).collect();
    privs.evaluate(&user(name), &roles, p, &cluster(), false)
}

const BULK_OK: &str =
    "{\"index\":{\"_index\":\"logs-1\"}}\n{\"a\":1}\n{\"delete\":{\"_index\":\"logs-2\",\"_id\":\"1\"}}\n";
const BULK_BAD: &str = "{\"index\":{\"_index\":\"logs-1\"}}\n{\"a\":1}\n{\"update\":{\"_index\":\"secret\",\"_id\":\"1\"}}\n{\"doc\":{}}\n";

#[test]
fn table() {
    use Method::*;
    let rows: Vec<(&[&str], &str, RequiredPrivileges, bool)> = vec![
        (&["all_access"], "admin", req(Get, "/secret/_search", ""), true),
        (&["all_access"], "admin", req(Put, "/_cluster/settings", "{}"), true),
        (&["all_access"], "admin", req(Get, "/.opendistro_security/_search", ""), false),
        (&["all_access"], "admin", req(Get, "/_search", ""), true),
        (&["readall"], "r", req(Get, "/secret/_search", ""), true),
        (&["readall"], "r", req(Get, "/secret/_doc/1", ""), true),
        (&["readall"], "r", req(Put, "/secret/_doc/1", "{}"), false),
        (&["readall"], "r", req(Post, "/_mget", "{\"docs\":[{\"_index\":\"secret\",\"_id\":\"1\"}]}"), true),
        (&["readall"], "r", req(Put, "/_cluster/settings", "{}"), false),
        (&["readall"], "r", req(Get, "/_search/scroll", ""), true),
        (&["logs_rw"], "l", req(Get, "/logs-1/_search", ""), true),
        (&["logs_rw"], "l", req(Get, "/logs-*/_search", ""), true),
        (&["logs_rw"], "l", req(Get, "/logs/_search", ""), true),
        (&["logs_rw"], "l", req(Get, "/mixed/_search", ""), false),
        (&["logs_rw"], "l", req(Get, "/secret/_search", ""), false),
        (&["logs_rw"], "l", req(Get, "/*/_search", ""), false),
        (&["logs_rw"], "l", req(Get, "/_search", ""), false),
        (&["logs_rw"], "l", req(Get, "/logs-*,-logs-2/_search", ""), true),
        (&["logs_rw"], "l", req(Post, "/_bulk", BULK_OK), true),
        (&["logs_rw"], "l", req(Post, "/_bulk", BULK_BAD), false),
        (&["logs_rw"], "l", req(Post, "/logs-1/_bulk", "{\"index\":{}}\n{}\n"), true),
        (&["logs_rw"], "l", req(Post, "/_msearch", "{\"index\":\"logs-1\"}\n{}\n{\"index\":\"secret\"}\n{}\n"), false),
        (&["logs_rw"], "l", req(Post, "/_msearch", "{\"index\":\"logs-1\"}\n{}\n{}\n{}\n"), false),
        (&["logs_rw"], "l", req(Post, "/logs-2/_msearch", "{\"index\":\"logs-1\"}\n{}\n{}\n{}\n"), true),
        (&["logs_rw"], "l", req(Put, "/logs-new", "{}"), true),
        (&["logs_rw"], "l", req(Delete, "/logs-1", ""), false),
        (
            &["logs_rw"],
            "l",
            req(Post, "/_aliases", "{\"actions\":[{\"add\":{\"index\":\"logs-1\",\"alias\":\"logs-x\"}}]}"),
            true,
        ),
        (
            &["logs_rw"],
            "l",
            req(Post, "/_aliases", "{\"actions\":[{\"add\":{\"index\":\"secret\",\"alias\":\"logs-x\"}}]}"),
            false,
        ),
        (&["logs_rw"], "l", req(Get, "/_cluster/health", ""), true),
        (&["logs_rw"], "l", req(Get, "/_cat/indices/logs-*", ""), false),
        (&["point_in_time_full_access"], "p", req(Post, "/secret/_search/point_in_time", ""), true),
        (&["point_in_time_full_access"], "p", req(Get, "/_search/point_in_time/_all", ""), true),
        (&["point_in_time_full_access"], "p", req(Delete, "/_search/point_in_time/_all", ""), true),
        (&["point_in_time_full_access"], "p", req(Get, "/secret/_doc/1", ""), false),
        (&["logs_rw"], "l", req(Get, "/_search/point_in_time/_all", ""), false),
        (&["logs_rw"], "l", req(Delete, "/_search/point_in_time/_all", ""), false),
        (&[], "nobody", req(Get, "/logs-1/_search", ""), false),
        (&[], "nobody", req(Get, "/", ""), false),
        (&["no_such_role"], "nobody", req(Get, "/logs-1/_search", ""), false),
        (&["own_index"], "bob", req(Put, "/bob-a/_doc/1", "{}"), true),
        (&["own_index"], "bob", req(Get, "/bob/_search", ""), true),
        (&["own_index"], "bob", req(Put, "/alice-a/_doc/1", "{}"), false),
        (&["own_index"], "alice", req(Put, "/alice-a/_doc/1", "{}"), true),
        (&["own_index"], "bob", req(Put, "/bob-new", "{}"), true),
        (&["dept"], "d", req(Get, "/dept-sales/_search", ""), true),
        (&["dept"], "d", req(Get, "/dept-other/_search", ""), false),
        (&["regex"], "m", req(Get, "/metrics-12/_search", ""), true),
        (&["regex"], "m", req(Get, "/metrics-x/_search", ""), false),
        (&["readall", "logs_rw"], "l", req(Put, "/logs-1/_doc/1", "{}"), true),
    ];
    for (i, (roles, name, p, allowed)) in rows.iter().enumerate() {
        let got = check(roles, name, p);
        assert_eq!(got.is_ok(), *allowed, "row {i}: roles {roles:?} user {name} needs {p:?}: {got:?}");
    }
}

#[test]
fn denial_messages() {
    let d = check(&[], "bob", &req(Method::Get, "/logs-1/_search", "")).unwrap_err();
    assert_eq!(
        d.message,
        "no permissions for [indices:data/read/search] and User [name=bob, backend_roles=[], requestedTenant=null]"
    );
    let d = check(&["readall"], "bob", &req(Method::Put, "/_cluster/settings", "{}")).unwrap_err();
    assert_eq!(d.message, "no permissions for [cluster:admin/settings/update] and User [name=bob, backend_roles=[], requestedTenant=null]");
    let e = d.to_error().to_json();
    assert_eq!(e["type"], "security_exception");
}

#[test]
fn super_admin_reaches_system_indices() {
    let privs = Privileges::new(1, &roles(), &groups());
    let p = req(Method::Get, "/.opendistro_security/_search", "");
    assert!(privs.evaluate(&user("admin"), &[], &p, &cluster(), true).is_ok());
}

#[test]
fn bulk_describes_items() {
    let p = req(Method::Post, "/_bulk", BULK_BAD);
    assert_eq!(p.cluster, vec!["indices:data/write/bulk"]);
    assert_eq!(
        p.indices,
        vec![
            (vec!["logs-1".to_string()], vec!["indices:data/write/bulk[s]", "indices:data/write/index"]),
            (vec!["secret".to_string()], vec!["indices:data/write/bulk[s]", "indices:data/write/update"]),
        ]
    );
}

#[test]
fn mapping() {
    let maps = vec![
        RoleMapping { role: "a".into(), users: vec!["bo*".into()], ..Default::default() },
        RoleMapping { role: "b".into(), backend_roles: vec!["ops".into()], ..Default::default() },
        RoleMapping { role: "c".into(), hosts: vec!["10.0.*".into()], ..Default::default() },
        RoleMapping { role: "d".into(), and_backend_roles: vec!["ops".into(), "dev".into()], ..Default::default() },
    ];
    let mut u = user("bob");
    u.security_roles = vec!["own".into()];
    assert_eq!(mapped_roles(&maps, &u, None), vec!["a", "own"]);
    u.name = "x".into();
    u.backend_roles = vec!["ops".into()];
    assert_eq!(mapped_roles(&maps, &u, Some("10.0.0.1")), vec!["b", "c", "own"]);
    u.backend_roles = vec!["ops".into(), "dev".into()];
    assert_eq!(mapped_roles(&maps, &u, None), vec!["b", "d", "own"]);
}

/// Every route of the table gets a description without panicking, whatever the body.
#[test]
fn every_route_is_described() {
    let r = router();
    for path in ["/", "/_cat", "/_cat/indices", "/_cat/aliases/x", "/_cat/pit_segments", "/_tasks", "/x/_refresh"] {
        if let Match::Found(route, params) = r.find(Method::Get, path).or_post(&r, path) {
            for body in ["", "{", "[]", "{\"actions\":1}", "\n\n{\"index\":5}\n"] {
                let _ = required(&Request {
                    action: route.action,
                    pattern: route.pattern,
                    params: &params,
                    body: Some(body.as_bytes()),
                });
            }
        }
    }
}

trait OrPost<'a> {
    fn or_post(self, r: &'a crate::http::router::Router, path: &str) -> Match<'a>;
}

impl<'a> OrPost<'a> for Match<'a> {
    fn or_post(self, r: &'a crate::http::router::Router, path: &str) -> Match<'a> {
        match self {
            Match::Found(..) => self,
            _ => r.find(Method::Post, path),
        }
    }
}

mod prop {
    use proptest::prelude::*;

    use super::*;

    fn pattern() -> impl Strategy<Value = String> {
        prop_oneof![
            Just("*".to_string()),
            Just(".*".to_string()),
            Just(".opendistro*".to_string()),
            Just(".tasks".to_string()),
            Just("/\\..*/".to_string()),
            Just("logs-*".to_string()),
            "[a-z.*?]{1,6}",
        ]
    }

    proptest! {
        #[test]
        fn no_role_reaches_a_system_index(pats in proptest::collection::vec(pattern(), 1..4),
                                          target in prop_oneof![Just(".opendistro_security"), Just(".tasks"),
                                                                Just(".opensearch_security_config_versions"),
                                                                Just(".opensearch-notifications-config")],
                                          wildcard in any::<bool>()) {
            let mut roles = HashMap::new();
            let pats: Vec<&str> = pats.iter().map(String::as_str).collect();
            roles.insert("r".to_string(), role(&["*"], vec![perm(&pats, &["*"])]));
            let privs = Privileges::new(1, &roles, &ActionGroups::new());
            let expr = if wildcard { ".*".to_string() } else { target.to_string() };
            let p = RequiredPrivileges { indices: vec![(vec![expr], vec!["indices:data/read/search"])], ..Default::default() };
            let mut c = cluster();
            c.indices.push(target.to_string());
            // Named: denied. Wildcard: the system index is skipped, so the request never
            // reaches it (it may still be allowed over the other matches).
            let got = privs.evaluate(&user("u"), &["r".to_string()], &p, &c, false);
            if !wildcard {
                prop_assert!(got.is_err());
            }
            prop_assert!(!matches!(resolve(&[".*".to_string()], &c), Resolved::Names(ref n) if n.iter().any(|n| is_system_index(n))));
        }
    }
}

#[test]
fn do_not_fail_on_forbidden_narrows_to_the_allowed_names() {
    let privs = Privileges::new(1, &roles(), &groups());
    let roles = vec!["logs_rw".to_string()];
    let all = privs.allowed_names(&user("l"), &roles, &["*".to_string()], &["indices:data/read/search"], &cluster());
    assert_eq!(all, vec!["logs", "logs-1", "logs-2"]);
    let none =
        privs.allowed_names(&user("l"), &roles, &["secret".to_string()], &["indices:data/read/search"], &cluster());
    assert!(none.is_empty());
    let sys =
        privs.allowed_names(&user("l"), &roles, &[".tasks".to_string()], &["indices:data/read/search"], &cluster());
    assert!(sys.is_empty());
    assert!(dnfof_action("indices:data/read/search") && !dnfof_action("indices:data/write/index"));
}
