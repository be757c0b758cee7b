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
    let privs = Privileges::new(1, &roles, &groups);
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

criterion_group!(benches, bench);
criterion_main!(benches);
