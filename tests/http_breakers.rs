//! Circuit breakers over real HTTP: an aggregation whose state passes `indices.breaker.request.limit`
//! and a request body past `network.breaker.inflight_requests.limit` are refused with 429
//! `circuit_breaking_exception` (the node keeps serving), the limits follow `_cluster/settings`
//! at once, and `_nodes/stats/breaker` counts the trips.

mod common;

use common::http::{get, post, put, send, TestServer};
use serde_json::{json, Value};

fn settings(addr: std::net::SocketAddr, transient: Value) {
    let r = put(addr, "/_cluster/settings", &json!({ "transient": transient }).to_string());
    assert_eq!(r.status, 200, "{}", r.text());
}

fn breaker(addr: std::net::SocketAddr, name: &str) -> Value {
    let r = get(addr, "/_nodes/stats/breaker");
    assert_eq!(r.status, 200, "{}", r.text());
    let v = r.json();
    let node = v["nodes"].as_object().unwrap().values().next().unwrap().clone();
    node["breakers"][name].clone()
}

#[test]
fn request_and_in_flight_breakers_trip_and_follow_settings() {
    let dir = tempfile::tempdir().unwrap();
    let s = TestServer::start(dir.path(), &[]);
    assert_eq!(put(s.addr, "/words", r#"{"settings":{"number_of_shards":1,"number_of_replicas":0}}"#).status, 200);
    let mut bulk = String::new();
    for i in 0..3000 {
        bulk.push_str(&format!("{{\"index\":{{}}}}\n{{\"w\":\"word-{i}\",\"n\":{i}}}\n"));
    }
    let r = send(
        s.addr,
        "POST",
        "/words/_bulk?refresh=true",
        Some(bulk.as_bytes()),
        &[("Content-Type", "application/x-ndjson")],
    );
    assert_eq!(r.status, 200);
    assert_eq!(r.json()["errors"], json!(false));

    let agg = json!({"size": 0, "aggs": {"words": {"terms": {"field": "w.keyword", "size": 5000}}}}).to_string();
    let ok = post(s.addr, "/words/_search?request_cache=false", &agg);
    assert_eq!(ok.status, 200, "{}", ok.text());
    assert_eq!(ok.json()["aggregations"]["words"]["buckets"].as_array().unwrap().len(), 3000);
    let defaults = breaker(s.addr, "request");
    assert_eq!(defaults["tripped"], json!(0));
    assert!(defaults["limit_size_in_bytes"].as_u64().unwrap() > 1 << 20, "{defaults}");
    assert_eq!(defaults["estimated_size_in_bytes"], json!(0), "the reservation is given back");

    // A small request limit: the terms state of 3000 buckets does not fit.
    settings(s.addr, json!({"indices.breaker.request.limit": "1kb"}));
    assert_eq!(breaker(s.addr, "request")["limit_size_in_bytes"], json!(1024));
    let r = post(s.addr, "/words/_search?request_cache=false", &agg);
    assert_eq!(r.status, 429, "{}", r.text());
    let e = r.json();
    let cause = &e["error"]["root_cause"][0];
    assert_eq!(cause["type"], json!("circuit_breaking_exception"), "{e}");
    let reason = cause["reason"].as_str().unwrap();
    assert!(reason.starts_with("[request] Data too large, data for [<agg [words]>] would be ["), "{reason}");
    assert!(reason.ends_with("which is larger than the limit of [1024/1kb]"), "{reason}");
    assert_eq!(breaker(s.addr, "request")["tripped"], json!(1));
    assert_eq!(breaker(s.addr, "request")["estimated_size_in_bytes"], json!(0));
    // Small aggregations still run under the same limit.
    let small = post(s.addr, "/words/_search", r#"{"size":0,"aggs":{"m":{"max":{"field":"n"}}}}"#);
    assert_eq!(small.status, 200, "{}", small.text());
    assert_eq!(small.json()["aggregations"]["m"]["value"], json!(2999.0));

    // Back to the default: the same search runs.
    settings(s.addr, json!({"indices.breaker.request.limit": null}));
    assert_eq!(post(s.addr, "/words/_search?request_cache=false", &agg).status, 200);

    // In-flight requests: a body of about 2 KiB with overhead 2 passes a 1 KiB limit.
    settings(s.addr, json!({"network.breaker.inflight_requests.limit": "1kb"}));
    let mut big = String::new();
    for i in 0..40 {
        big.push_str(&format!("{{\"index\":{{\"_id\":\"big{i}\"}}}}\n{{\"w\":\"padding padding\"}}\n"));
    }
    assert!(big.len() > 1024);
    let r = send(s.addr, "POST", "/words/_bulk", Some(big.as_bytes()), &[("Content-Type", "application/x-ndjson")]);
    assert_eq!(r.status, 429, "{}", r.text());
    let e = r.json();
    assert_eq!(e["error"]["type"], json!("circuit_breaking_exception"));
    assert!(
        e["error"]["reason"]
            .as_str()
            .unwrap()
            .starts_with("[in_flight_requests] Data too large, data for [<http_request>]"),
        "{e}"
    );
    assert_eq!(e["error"]["durability"], json!("TRANSIENT"));
    assert_eq!(e["status"], json!(429));
    assert_eq!(get(s.addr, "/words/_doc/big0").status, 404, "nothing of the refused bulk was written");
    settings(s.addr, json!({"network.breaker.inflight_requests.limit": null}));
    let r = send(s.addr, "POST", "/words/_bulk", Some(big.as_bytes()), &[("Content-Type", "application/x-ndjson")]);
    assert_eq!(r.status, 200, "{}", r.text());
    let inflight = breaker(s.addr, "in_flight_requests");
    assert_eq!(inflight["tripped"], json!(1));
    assert_eq!(inflight["overhead"], json!(2.0));

    // Bad limits are refused with OpenSearch's messages.
    let r = put(s.addr, "/_cluster/settings", r#"{"transient":{"indices.breaker.request.limit":"120%"}}"#);
    assert_eq!(r.status, 400, "{}", r.text());
    let r = put(s.addr, "/_cluster/settings", r#"{"transient":{"indices.breaker.total.limit":"lots"}}"#);
    assert_eq!(r.status, 400, "{}", r.text());
}
