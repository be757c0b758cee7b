//! `_cluster/settings` over real HTTP: persistent and transient settings round trip, survive a
//! restart, are refused when unknown or invalid, and take effect at once (allocation,
//! auto-create, `search.max_buckets`), over the node's own values.

mod common;

use common::http::{get, put, TestServer};
use serde_json::{json, Value};

fn health(addr: std::net::SocketAddr, index: &str) -> Value {
    get(addr, &format!("/_cluster/health/{index}?timeout=2s&wait_for_status=green")).json()
}

#[test]
fn settings_round_trip_and_survive_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    {
        let s = TestServer::start(dir.path(), &[("node.attr.rack", "r1")]);
        let r = put(
            s.addr,
            "/_cluster/settings",
            r#"{"persistent":{"cluster":{"max_voting_config_exclusions":3}},"transient":{"search.max_buckets":100}}"#,
        );
        assert_eq!(r.status, 200, "{}", r.text());
        assert_eq!(
            r.json(),
            json!({"acknowledged": true, "persistent": {"cluster": {"max_voting_config_exclusions": "3"}}, "transient": {"search": {"max_buckets": "100"}}})
        );
        let flat = get(s.addr, "/_cluster/settings?flat_settings=true").json();
        assert_eq!(
            flat,
            json!({"persistent": {"cluster.max_voting_config_exclusions": "3"}, "transient": {"search.max_buckets": "100"}})
        );
        let d = get(s.addr, "/_cluster/settings?include_defaults=true&flat_settings=true").json();
        assert_eq!(d["defaults"]["node.attr.rack"], "r1", "{d}");
        assert_eq!(d["defaults"]["cluster.routing.allocation.enable"], "all");
        assert!(d["defaults"].get("search.max_buckets").is_none(), "a set key is not a default: {d}");
        s.stop();
    }
    let s = TestServer::start(dir.path(), &[]);
    let flat = get(s.addr, "/_cluster/settings?flat_settings=true").json();
    assert_eq!(flat["persistent"]["cluster.max_voting_config_exclusions"], "3", "{flat}");
    assert_eq!(flat["transient"]["search.max_buckets"], "100", "{flat}");
    // null resets, a wildcard resets every match.
    let r = put(
        s.addr,
        "/_cluster/settings",
        r#"{"persistent":{"cluster.*":null},"transient":{"search.max_buckets":null}}"#,
    );
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(get(s.addr, "/_cluster/settings").json(), json!({"persistent": {}, "transient": {}}));
}

#[test]
fn bad_updates_are_refused_and_change_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let s = TestServer::start(dir.path(), &[]);
    let cases = [
        (
            r#"{"persistent":{"no_idea":1}}"#,
            "illegal_argument_exception",
            "persistent setting [no_idea], not recognized",
        ),
        (
            r#"{"transient":{"cluster.routing.allocation.enable":"sometimes","search.max_buckets":5}}"#,
            "illegal_argument_exception",
            "Illegal value [sometimes] for setting [cluster.routing.allocation.enable]",
        ),
        (
            r#"{"persistent":{"cluster.max_voting_config_exclusions":0}}"#,
            "illegal_argument_exception",
            "Failed to parse value [0] for setting [cluster.max_voting_config_exclusions] must be >= 1",
        ),
        (r#"{"persistnt":{}}"#, "x_content_parse_exception", "unknown field [persistnt] did you mean [persistent]?"),
        (r#"{"persistent":{}}"#, "action_request_validation_exception", "no settings to update"),
    ];
    for (body, kind, reason) in cases {
        let r = put(s.addr, "/_cluster/settings", body);
        assert_eq!(r.status, 400, "{body}: {}", r.text());
        let v = r.json();
        assert_eq!(v["error"]["type"], kind, "{body}: {v}");
        assert!(v["error"]["reason"].as_str().unwrap().contains(reason), "{body}: {v}");
    }
    assert_eq!(get(s.addr, "/_cluster/settings").json(), json!({"persistent": {}, "transient": {}}));
}

#[test]
fn dynamic_settings_take_effect_at_once() {
    let dir = tempfile::tempdir().unwrap();
    // The node's own value is the bottom layer: new primaries wait until it is overridden.
    let s = TestServer::start(dir.path(), &[("cluster.routing.allocation.enable", "none")]);
    assert_eq!(put(s.addr, "/a", r#"{"settings":{"number_of_replicas":0}}"#).status, 200);
    assert_eq!(health(s.addr, "a")["status"], "red");
    let r = put(s.addr, "/_cluster/settings", r#"{"transient":{"cluster.routing.allocation.enable":"all"}}"#);
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(health(s.addr, "a")["status"], "green");

    // Auto-create off refuses a write to a missing index; back on, it creates it.
    let r = put(s.addr, "/_cluster/settings", r#"{"persistent":{"action.auto_create_index":false}}"#);
    assert_eq!(r.status, 200, "{}", r.text());
    let r = put(s.addr, "/missing/_doc/1", r#"{"x":1}"#);
    assert_eq!(r.status, 404, "{}", r.text());
    assert!(r.text().contains("[action.auto_create_index] is [false]"), "{}", r.text());
    put(s.addr, "/_cluster/settings", r#"{"persistent":{"action.auto_create_index":null}}"#);
    assert_eq!(put(s.addr, "/missing/_doc/1", r#"{"x":1}"#).status, 201);

    // search.max_buckets bounds the final reduce.
    for (i, tag) in ["x", "y", "z"].iter().enumerate() {
        put(s.addr, &format!("/a/_doc/{i}?refresh=true"), &json!({"tag": tag}).to_string());
    }
    let agg = r#"{"size":0,"aggs":{"t":{"terms":{"field":"tag.keyword"}}}}"#;
    let ok = common::http::post(s.addr, "/a/_search", agg);
    assert_eq!(ok.json()["aggregations"]["t"]["buckets"].as_array().map(Vec::len), Some(3), "{}", ok.text());
    put(s.addr, "/_cluster/settings", r#"{"transient":{"search.max_buckets":2}}"#);
    let r = common::http::post(s.addr, "/a/_search", agg);
    assert!(r.status >= 400, "{}", r.text());
    assert!(r.text().contains("Trying to create too many buckets"), "{}", r.text());
}

#[test]
fn cluster_read_only_blocks_writes_until_lifted() {
    let dir = tempfile::tempdir().unwrap();
    let s = TestServer::start(dir.path(), &[]);
    assert_eq!(put(s.addr, "/b/_doc/1?refresh=true", r#"{"x":1}"#).status, 201);
    let r = put(s.addr, "/_cluster/settings", r#"{"persistent":{"cluster.blocks.read_only":true}}"#);
    assert_eq!(r.status, 200, "{}", r.text());
    let r = put(s.addr, "/b/_doc/2", r#"{"x":2}"#);
    assert_eq!(r.status, 403, "{}", r.text());
    assert_eq!(r.json()["error"]["reason"], "blocked by: [FORBIDDEN/6/cluster read-only (api)];");
    assert_eq!(get(s.addr, "/b/_doc/1").status, 200, "reads go on");
    let st = get(s.addr, "/_cluster/state/blocks").json();
    assert_eq!(st["blocks"]["global"]["6"]["description"], "cluster read-only (api)", "{st}");
    // Other settings are blocked too; lifting the block alone goes through.
    let r = put(s.addr, "/_cluster/settings", r#"{"persistent":{"search.max_buckets":10}}"#);
    assert_eq!(r.status, 403, "{}", r.text());
    let r = put(s.addr, "/_cluster/settings", r#"{"persistent":{"cluster.blocks.read_only":false}}"#);
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(put(s.addr, "/b/_doc/2", r#"{"x":2}"#).status, 201);
    // read_only_allow_delete still lets an index be deleted.
    put(s.addr, "/_cluster/settings", r#"{"transient":{"cluster.blocks.read_only_allow_delete":true}}"#);
    assert_eq!(put(s.addr, "/b/_doc/3", r#"{"x":3}"#).status, 403);
    assert_eq!(common::http::delete(s.addr, "/b").status, 200);
}
