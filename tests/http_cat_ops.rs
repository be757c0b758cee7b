//! The operational CAT APIs over real HTTP (`_cat/aliases`, `_cat/health`, `_cat/plugins`,
//! `_cat/fielddata`, `_cat/thread_pool`, `_cat/pending_tasks`), `_cluster/pending_tasks` and
//! `_nodes/usage`: columns, `format=json`, `h`, `s`, `v`, `help`, `ts` and the real counters.

mod common;

use common::http::{get, post, put, TestServer};
use serde_json::{json, Value};

#[test]
fn cat_aliases_lists_every_alias() {
    let dir = tempfile::tempdir().unwrap();
    let s = TestServer::start(dir.path(), &[]);
    assert_eq!(get(s.addr, "/_cat/aliases").text(), "");
    put(
        s.addr,
        "/b-index",
        r#"{"aliases":{"b1":{},"zz":{"filter":{"term":{"x":"y"}},"index_routing":"1","search_routing":"2,3","is_write_index":true}}}"#,
    );
    put(s.addr, "/a-index", r#"{"aliases":{"a1":{}}}"#);
    put(s.addr, "/.hidden-index", r#"{"settings":{"index.hidden":true},"aliases":{"h1":{}}}"#);
    let rows = get(s.addr, "/_cat/aliases?format=json&s=alias").json();
    assert_eq!(
        rows,
        json!([
            {"alias": "a1", "index": "a-index", "filter": "-", "routing.index": "-", "routing.search": "-", "is_write_index": "-"},
            {"alias": "b1", "index": "b-index", "filter": "-", "routing.index": "-", "routing.search": "-", "is_write_index": "-"},
            {"alias": "h1", "index": ".hidden-index", "filter": "-", "routing.index": "-", "routing.search": "-", "is_write_index": "-"},
            {"alias": "zz", "index": "b-index", "filter": "*", "routing.index": "1", "routing.search": "2,3", "is_write_index": "true"},
        ])
    );
    // Wildcards without hidden leave the hidden index out.
    let t = get(s.addr, "/_cat/aliases?expand_wildcards=open&h=alias&s=alias:desc").text();
    assert_eq!(t, "zz\nb1\na1\n");
    assert_eq!(get(s.addr, "/_cat/aliases/a*,z*?h=a,i&v=true&s=a").text(), "a  i\na1 a-index\nzz b-index\n");
    assert_eq!(get(s.addr, "/_cat/aliases/nothing").text(), "");
    let help = get(s.addr, "/_cat/aliases?help").text();
    assert!(help.starts_with("alias          | a                | alias name"), "{help}");
    assert!(help.contains("\nis_write_index | w,isWriteIndex   | write index"), "{help}");
    assert_eq!(get(s.addr, "/_cat/aliases?s=nope").status, 500);
    assert_eq!(get(s.addr, "/_cat/aliases?bogus=1").status, 400);
    s.stop();
}

#[test]
fn cat_health_plugins_and_fielddata() {
    let dir = tempfile::tempdir().unwrap();
    let s = TestServer::start(dir.path(), &[("cluster.name", "ops-test")]);
    put(s.addr, "/h1", r#"{"settings":{"number_of_shards":2,"number_of_replicas":0}}"#);
    get(s.addr, "/_cluster/health/h1?wait_for_status=green&timeout=10s");
    let h = get(s.addr, "/_cat/health?format=json").json();
    let row = &h[0];
    assert_eq!((row["cluster"].clone(), row["status"].clone()), (json!("ops-test"), json!("green")));
    assert_eq!(
        (row["node.total"].clone(), row["shards"].clone(), row["pri"].clone()),
        (json!("1"), json!("2"), json!("2"))
    );
    assert_eq!(row["discovered_cluster_manager"], "true");
    assert_eq!(row["active_shards_percent"], "100.0%");
    assert!(row["epoch"].as_str().unwrap().parse::<i64>().unwrap() > 1_600_000_000, "{row}");
    let ts = row["timestamp"].as_str().unwrap();
    assert!(ts.len() == 8 && ts.as_bytes()[2] == b':', "{ts}");
    let no_ts = get(s.addr, "/_cat/health?ts=false&v").text();
    assert!(no_ts.starts_with("cluster  status node.total"), "{no_ts}");
    assert_eq!(get(s.addr, "/_cat/health?h=cl,st").text(), "ops-test green\n");
    assert_eq!(get(s.addr, "/_cat/health?ts=maybe").status, 400);
    assert_eq!(get(s.addr, "/_cat/plugins?v").text(), "name component version\n");
    assert_eq!(get(s.addr, "/_cat/plugins?format=json").json(), json!([]));
    assert_eq!(get(s.addr, "/_cat/fielddata?v").text(), "id host ip node field size\n");
    assert_eq!(get(s.addr, "/_cat/fielddata/title?format=json").json(), json!([]));
    s.stop();
}

#[test]
fn cat_thread_pool_shows_the_pools_counters() {
    let dir = tempfile::tempdir().unwrap();
    let s = TestServer::start(dir.path(), &[("node.name", "tp-node")]);
    put(s.addr, "/t", r#"{"settings":{"number_of_replicas":0}}"#);
    for i in 0..5 {
        put(s.addr, &format!("/t/_doc/{i}?refresh=true"), r#"{"a":1}"#);
        post(s.addr, "/t/_search", r#"{"query":{"match_all":{}}}"#);
    }
    let rows = get(
        s.addr,
        "/_cat/thread_pool?format=json&h=node_name,name,type,size,queue_size,completed,largest,twt,active,rejected",
    )
    .json();
    let rows = rows.as_array().unwrap();
    let names: Vec<&str> = rows.iter().map(|r| r["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["flush", "force_merge", "generic", "get", "management", "refresh", "search", "write"]);
    let search = rows.iter().find(|r| r["name"] == "search").unwrap();
    assert_eq!((search["node_name"].clone(), search["type"].clone()), (json!("tp-node"), json!("fixed")));
    assert_eq!(search["queue_size"], "1000");
    assert!(search["completed"].as_str().unwrap().parse::<u64>().unwrap() >= 5, "{search}");
    assert!(search["largest"].as_str().unwrap().parse::<u64>().unwrap() >= 1, "{search}");
    assert!(search["twt"].as_str().unwrap().ends_with('s'), "{search}");
    let write = rows.iter().find(|r| r["name"] == "write").unwrap();
    assert!(write["completed"].as_str().unwrap().parse::<u64>().unwrap() >= 5, "{write}");
    let t = get(s.addr, "/_cat/thread_pool/wr*,get?v&h=name,active,queue,rejected").text();
    assert_eq!(t, "name  active queue rejected\nget        0     0        0\nwrite      0     0        0\n");
    let stats = get(s.addr, "/_nodes/stats/thread_pool").json();
    let node = stats["nodes"].as_object().unwrap().values().next().unwrap().clone();
    assert!(node["thread_pool"]["search"]["total_wait_time_in_nanos"].is_u64(), "{node}");
    assert!(node["thread_pool"]["search"]["largest"].as_u64().unwrap() >= 1);
    let info = get(s.addr, "/_nodes/thread_pool").json();
    let node = info["nodes"].as_object().unwrap().values().next().unwrap().clone();
    assert_eq!(node["thread_pool"]["write"]["queue_size"], 10000);
    s.stop();
}

#[test]
fn pending_tasks_and_usage() {
    let dir = tempfile::tempdir().unwrap();
    let s = TestServer::start(dir.path(), &[]);
    // Nothing is pending once every update was applied.
    put(s.addr, "/p", "{}");
    assert_eq!(get(s.addr, "/_cluster/pending_tasks").json(), json!({"tasks": []}));
    assert_eq!(get(s.addr, "/_cluster/pending_tasks?local=true").json(), json!({"tasks": []}));
    assert_eq!(get(s.addr, "/_cat/pending_tasks?v").text(), "insertOrder timeInQueue priority source\n");
    assert_eq!(get(s.addr, "/_cluster/pending_tasks?local=maybe").status, 400);
    let u = get(s.addr, "/_nodes/usage").json();
    assert_eq!(u["_nodes"], json!({"total": 1, "successful": 1, "failed": 0}));
    let node: &Value = u["nodes"].as_object().unwrap().values().next().unwrap();
    let ra = &node["rest_actions"];
    assert_eq!(ra["cluster:monitor/task"], 3, "{node}");
    assert_eq!(ra["cat:pending_tasks"], 1, "{node}");
    assert_eq!(ra["cluster:monitor/nodes/usage"], 1, "{node}");
    assert!(node["since"].as_i64().unwrap() <= node["timestamp"].as_i64().unwrap());
    // A request refused for its parameters is not counted.
    assert_eq!(
        get(s.addr, "/_nodes/_local/usage/rest_actions").json()["nodes"].as_object().unwrap().values().next().unwrap()
            ["rest_actions"]["cluster:monitor/task"],
        3
    );
    let e = get(s.addr, "/_nodes/usage/rest_action");
    assert_eq!(e.status, 400);
    assert!(e.json()["error"]["reason"].as_str().unwrap().contains("did you mean [rest_actions]?"));
    assert_eq!(get(s.addr, "/_nodes/usage/aggregations").status, 400);
    s.stop();
}
