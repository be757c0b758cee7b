//! Authorization of one `_search` (issue 21's budget: authentication + authorization at most
//! 20 µs a request): a user with 3 roles (a readall-like role, an index-pattern role with
//! custom action groups, a `${user.name}` role), the configuration compiled once (action
//! groups expanded per configuration version, not per request), over a cluster of 200
//! indices and 20 aliases, evaluating `GET /logs-*/_search` (a wildcard expanded and checked
//! index by index). Measures describing the request plus evaluating it.

use std::collections::{BTreeMap, HashMap};

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use fathom::security::actions::{required, Request};
use fathom::security::privileges::{
    mapped_roles, ActionGroups, ClusterIndices, IndexPermission, Privileges, RoleMapping, RoleSpec, User,
};

fn perm(p: &[&str], a: &[&str]) -> IndexPermission {
    IndexPermission {
        index_patterns: p.iter().map(|s| s.to_string()).collect(),
        allowed_actions: a.iter().map(|s| s.to_string()).collect(),
    }
}

fn bench(c: &mut Criterion) {
    let mut roles = HashMap::new();
    roles.insert(
        "reader".to_string(),
        RoleSpec {
            cluster_permissions: vec!["cluster_composite_ops_ro".into()],
            index_permissions: vec![perm(&["metrics-*"], &["read"])],
            ..Default::default()
        },
    );
    roles.insert(
        "logs".to_string(),
        RoleSpec {
            cluster_permissions: vec!["cluster_monitor".into()],
            index_permissions: vec![perm(&["logs-*", "/archive-[0-9]+/"], &["my_read", "indices_monitor"])],
            ..Default::default()
        },
    );
    roles.insert(
        "own".to_string(),
        RoleSpec { index_permissions: vec![perm(&["${user.name}-*"], &["crud"])], ..Default::default() },
    );
    let mut groups = ActionGroups::new();
    groups.insert("my_read".into(), vec!["search".into(), "get".into()]);
    let privs = Privileges::new(1, &roles, &fathom::security::privileges_static::with_static(&groups));
    let mappings: Vec<RoleMapping> = ["reader", "logs", "own"]
        .iter()
        .map(|r| RoleMapping { role: r.to_string(), backend_roles: vec!["staff".into()], ..Default::default() })
        .collect();
    let user = User { name: "bob".into(), backend_roles: vec!["staff".into()], ..Default::default() };
    let mut cluster = ClusterIndices::default();
    for i in 0..100 {
        cluster.indices.push(format!("logs-{i:03}"));
        cluster.indices.push(format!("metrics-{i:03}"));
    }
    let mut aliases = BTreeMap::new();
    for i in 0..20 {
        aliases.insert(format!("alias-{i}"), vec![format!("logs-{i:03}")]);
    }
    cluster.aliases = aliases;
    let mut params = HashMap::new();
    params.insert("index".to_string(), "logs-*".to_string());
    let body = br#"{"query":{"match_all":{}}}"#;

    let describe = |params: &HashMap<String, String>| {
        required(&Request { action: "indices:data/read/search", pattern: "/{index}/_search", params, body: Some(body) })
    };
    // The work is done: the user is allowed on the wildcard and denied elsewhere.
    let roles_now = mapped_roles(&mappings, &user, Some("127.0.0.1"));
    assert!(privs.evaluate(&user, &roles_now, &describe(&params), &cluster, false).is_ok());
    let mut denied = params.clone();
    denied.insert("index".to_string(), "secret".to_string());
    assert!(privs.evaluate(&user, &roles_now, &describe(&denied), &cluster, false).is_err());

    let mut g = c.benchmark_group("privileges");
    g.bench_function("search_3_roles_wildcard_over_200_indices", |b| {
        b.iter(|| {
            let roles = mapped_roles(&mappings, &user, Some("127.0.0.1"));
            let need = required(&Request {
                action: "indices:data/read/search",
                pattern: "/{index}/_search",
                params: &params,
                body: Some(body),
            });
            black_box(privs.evaluate(&user, &roles, &need, &cluster, false)).is_ok()
        })
    });
    params.insert("index".to_string(), "logs-007".to_string());
    g.bench_function("search_3_roles_one_index", |b| {
        b.iter(|| {
            let roles = mapped_roles(&mappings, &user, Some("127.0.0.1"));
            let need = required(&Request {
                action: "indices:data/read/search",
                pattern: "/{index}/_search",
                params: &params,
                body: Some(body),
            });
            black_box(privs.evaluate(&user, &roles, &need, &cluster, false)).is_ok()
        })
    });
    g.finish();
}

/// Authentication of a cached basic login plus authorization of `GET /logs-007/_search`, with
/// the demo configuration plus a user `bob` (backend role `staff`) mapped to a `logs-*` role;
/// the baseline in the same group only describes the request (what any request costs without
/// security).
fn authn_authz(c: &mut Criterion) {
    use base64::Engine as _;
    use fathom::security::authn::{AuthInput, Authenticator, AuthnSettings, Outcome};
    use std::sync::Arc;
    let dir = tempfile::tempdir().unwrap();
    for (name, text) in fathom::security::config::DEMO_FILES {
        std::fs::write(dir.path().join(name), text).unwrap();
    }
    let users = dir.path().join("internal_users.yml");
    let mut text = std::fs::read_to_string(&users).unwrap();
    text.push_str(&format!(
        "\nbob:\n  hash: \"{}\"\n  backend_roles: [staff]\n",
        fathom::security::password::hash("Bob-pass-123!").unwrap()
    ));
    std::fs::write(&users, text).unwrap();
    let roles = dir.path().join("roles.yml");
    let mut text = std::fs::read_to_string(&roles).unwrap();
    text.push_str("\nlogs_read:\n  cluster_permissions: [cluster_composite_ops_ro]\n  index_permissions:\n  - index_patterns: [\"logs-*\"]\n    allowed_actions: [read]\n");
    std::fs::write(&roles, text).unwrap();
    let mapping = dir.path().join("roles_mapping.yml");
    let mut text = std::fs::read_to_string(&mapping).unwrap();
    text.push_str("\nlogs_read:\n  backend_roles: [staff]\n");
    std::fs::write(&mapping, text).unwrap();
    let cfg = Arc::new(fathom::security::config::SecurityConfig::load_dir(dir.path()).unwrap());
    let authn = Authenticator::new(AuthnSettings {
        admin_dn: vec![],
        nodes_dn: vec![],
        ttl: std::time::Duration::from_secs(3600),
    })
    .unwrap();
    let input = AuthInput {
        authorization: Some(format!("Basic {}", base64::engine::general_purpose::STANDARD.encode("bob:Bob-pass-123!"))),
        remote: Some("127.0.0.1:50000".parse().unwrap()),
        ..Default::default()
    };
    // The first login verifies bcrypt (cost 12) and fills the cache.
    assert!(matches!(authn.authenticate(Some(&cfg), &input, true), Outcome::User(_)));
    let mut cluster = ClusterIndices::default();
    for i in 0..100 {
        cluster.indices.push(format!("logs-{i:03}"));
        cluster.indices.push(format!("metrics-{i:03}"));
    }
    let cluster = Arc::new(cluster);
    let mut params = HashMap::new();
    params.insert("index".to_string(), "logs-007".to_string());
    let body = br#"{"query":{"match_all":{}}}"#;
    let one = |params: &HashMap<String, String>| -> bool {
        let Outcome::User(user) = authn.authenticate(Some(&cfg), &input, false) else { return false };
        let state = authn.state(&cfg);
        let need = required(&Request {
            action: "indices:data/read/search",
            pattern: "/{index}/_search",
            params,
            body: Some(body),
        });
        state.compiled.privileges.evaluate(&user, &user.roles, &need, &cluster, user.is_admin).is_ok()
    };
    // The work is done: a cached login, allowed on logs-007, denied on metrics-001.
    assert!(one(&params));
    let mut denied = params.clone();
    denied.insert("index".to_string(), "metrics-001".to_string());
    assert!(!one(&denied));
    let mut g = c.benchmark_group("authn_authz");
    g.bench_function("baseline_describe_request", |b| {
        b.iter(|| {
            black_box(required(&Request {
                action: "indices:data/read/search",
                pattern: "/{index}/_search",
                params: &params,
                body: Some(body),
            }))
        })
    });
    g.bench_function("cached_basic_login_plus_search_one_index", |b| b.iter(|| black_box(one(&params))));
    g.finish();
}

criterion_group!(benches, bench, authn_authz);
criterion_main!(benches);
