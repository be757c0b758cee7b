//! The shard request cache over real HTTP: a repeated size-0 search is answered from the cache
//! (hit and miss counts and memory in `_stats`), a refresh that changes the shard invalidates
//! it, `request_cache=false`, `index.requests.cache.enable: false` and `now` keep searches out
//! of it, and `_cache/clear` empties it.

mod common;

use common::http::{get, post, put, TestServer};
use serde_json::{json, Value};

fn cache(addr: std::net::SocketAddr, index: &str) -> Value {
    let r = get(addr, &format!("/{index}/_stats/request_cache"));
    assert_eq!(r.status, 200, "{}", r.text());
    r.json()["indices"][index]["total"]["request_cache"].clone()
}

fn search(addr: std::net::SocketAddr, path: &str, body: Value) -> Value {
    let r = post(addr, path, &body.to_string());
    assert_eq!(r.status, 200, "{}", r.text());
    r.json()
}

#[test]
fn size_zero_searches_are_cached_per_reader() {
    let dir = tempfile::tempdir().unwrap();
    let s = TestServer::start(dir.path(), &[]);
    let settings = r#"{"settings":{"number_of_shards":1,"number_of_replicas":0}}"#;
    assert_eq!(put(s.addr, "/logs", settings).status, 200);
    for i in 0..20 {
        let r =
            put(s.addr, &format!("/logs/_doc/{i}"), &format!(r#"{{"level":"{}","n":{i}}}"#, ["info", "warn"][i % 2]));
        assert_eq!(r.status, 201);
    }
    assert_eq!(post(s.addr, "/logs/_refresh", "").status, 200);
    let agg =
        json!({"size": 0, "aggs": {"levels": {"terms": {"field": "level.keyword"}}, "sum": {"sum": {"field": "n"}}}});
    let before = cache(s.addr, "logs");
    assert_eq!(before, json!({"memory_size_in_bytes": 0, "evictions": 0, "hit_count": 0, "miss_count": 0}));

    let first = search(s.addr, "/logs/_search", agg.clone());
    let c = cache(s.addr, "logs");
    assert_eq!((c["hit_count"].as_u64(), c["miss_count"].as_u64()), (Some(0), Some(1)));
    assert!(c["memory_size_in_bytes"].as_u64().unwrap() > 0, "{c}");
    let second = search(s.addr, "/logs/_search", agg.clone());
    assert_eq!(cache(s.addr, "logs")["hit_count"], json!(1));
    assert_eq!(first["aggregations"], second["aggregations"]);
    assert_eq!(first["hits"]["total"], second["hits"]["total"]);
    assert_eq!(second["aggregations"]["sum"]["value"], json!(190.0));

    // Searches with hits are not cached, even when asked.
    search(s.addr, "/logs/_search?request_cache=true", json!({"size": 1}));
    search(s.addr, "/logs/_search?request_cache=false", agg.clone());
    let c = cache(s.addr, "logs");
    assert_eq!((c["hit_count"].as_u64(), c["miss_count"].as_u64()), (Some(1), Some(1)));

    // A new document and a refresh: a new reader, so a miss with the new figures.
    assert_eq!(put(s.addr, "/logs/_doc/x?refresh=true", r#"{"level":"error","n":10}"#).status, 201);
    let third = search(s.addr, "/logs/_search", agg.clone());
    assert_eq!(third["aggregations"]["sum"]["value"], json!(200.0));
    let c = cache(s.addr, "logs");
    assert_eq!((c["hit_count"].as_u64(), c["miss_count"].as_u64()), (Some(1), Some(2)));
    search(s.addr, "/logs/_search", agg.clone());
    assert_eq!(cache(s.addr, "logs")["hit_count"], json!(2));

    // `now` makes a request depend on when it runs: never cached.
    let relative = json!({"size": 0, "query": {"range": {"ts": {"gte": "now-1d"}}}});
    search(s.addr, "/logs/_search", relative.clone());
    search(s.addr, "/logs/_search", relative);
    let c = cache(s.addr, "logs");
    assert_eq!((c["hit_count"].as_u64(), c["miss_count"].as_u64()), (Some(2), Some(2)));

    // `_cache/clear?request=true` empties it; `query=true` alone leaves it.
    assert_eq!(post(s.addr, "/logs/_cache/clear?query=true", "").status, 200);
    assert!(cache(s.addr, "logs")["memory_size_in_bytes"].as_u64().unwrap() > 0);
    let r = post(s.addr, "/logs/_cache/clear?request=true", "");
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.json()["_shards"]["successful"], json!(1));
    assert_eq!(cache(s.addr, "logs")["memory_size_in_bytes"], json!(0));
    search(s.addr, "/logs/_search", agg.clone());
    assert_eq!(cache(s.addr, "logs")["miss_count"], json!(3));

    // The index setting turns it off (and is a known, dynamic setting).
    let r = put(s.addr, "/logs/_settings", r#"{"index.requests.cache.enable": false}"#);
    assert_eq!(r.status, 200, "{}", r.text());
    search(s.addr, "/logs/_search", agg.clone());
    search(s.addr, "/logs/_search", agg);
    let c = cache(s.addr, "logs");
    assert_eq!((c["hit_count"].as_u64(), c["miss_count"].as_u64()), (Some(2), Some(3)));
    let r = put(s.addr, "/logs/_settings", r#"{"index.requests.cache.enable": "maybe"}"#);
    assert_eq!(r.status, 400, "{}", r.text());
    let r = put(s.addr, "/other", r#"{"settings":{"index.requests.cache.unknown": true}}"#);
    assert_eq!(r.status, 400, "{}", r.text());
}
