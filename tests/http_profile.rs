//! `"profile": true` over real HTTP: each shard reports its query tree (types, descriptions,
//! every breakdown key), its collectors and its aggregations' timed phases and debug figures;
//! range-like aggregations counted from the points index give the same buckets as the ones
//! that visit documents, and report which segments they counted that way.
#![cfg(feature = "server")]

mod common;

use common::http::*;
use serde_json::{json, Value};

const QUERY_KEYS: [&str; 9] = [
    "create_weight",
    "build_scorer",
    "next_doc",
    "advance",
    "match",
    "score",
    "shallow_advance",
    "compute_max_score",
    "set_min_competitive_score",
];
const AGG_KEYS: [&str; 6] =
    ["initialize", "build_leaf_collector", "collect", "post_collection", "build_aggregation", "reduce"];

fn search(addr: std::net::SocketAddr, index: &str, body: Value) -> Value {
    let r = post(addr, &format!("/{index}/_search"), &body.to_string());
    assert_eq!(r.status, 200, "{}", r.text());
    r.json()
}

/// Three segments of `n` docs each: `k` keyword, `n` long, `d` date, `x` double.
fn fill(addr: std::net::SocketAddr, index: &str) {
    let r = put(
        addr,
        &format!("/{index}"),
        r#"{"settings": {"number_of_shards": 1, "number_of_replicas": 0},
            "mappings": {"properties": {"k": {"type": "keyword"}, "n": {"type": "long"},
                                        "d": {"type": "date"}, "x": {"type": "double"}}}}"#,
    );
    assert_eq!(r.status, 200, "{}", r.text());
    let mut id = 0;
    for seg in 0..3 {
        let mut bulk = String::new();
        for i in 0..7 {
            id += 1;
            bulk.push_str(&format!("{{\"index\": {{\"_id\": \"{id}\"}}}}\n"));
            let day = 1 + (seg * 7 + i) % 28;
            bulk.push_str(
                &json!({"k": if i % 2 == 0 { "even" } else { "odd" }, "n": i, "d": format!("2024-0{}-{day:02}", 1 + seg),
                        "x": (id as f64) * 1.5})
                .to_string(),
            );
            bulk.push('\n');
        }
        let r = send(
            addr,
            "POST",
            &format!("/{index}/_bulk?refresh=true"),
            Some(bulk.as_bytes()),
            &[("content-type", "application/x-ndjson")],
        );
        assert_eq!(r.status, 200, "{}", r.text());
    }
}

#[test]
fn profile_reports_query_collectors_and_aggregations() {
    let dir = tempfile::tempdir().unwrap();
    let s = TestServer::start(dir.path(), &[]);
    fill(s.addr, "prof");
    let body = json!({
        "profile": true,
        "query": {"bool": {"must": [{"term": {"k": "even"}}], "filter": [{"range": {"n": {"gte": 0}}}]}},
        "aggs": {"by_n": {"terms": {"field": "n"}, "aggs": {"top": {"max": {"field": "x"}}}},
                 "card": {"cardinality": {"field": "k"}}}
    });
    let v = search(s.addr, "prof", body);
    let matches = v["hits"]["total"]["value"].as_u64().unwrap();
    assert_eq!(matches, 12);
    let shards = v["profile"]["shards"].as_array().unwrap();
    assert_eq!(shards.len(), 1);
    let sh = &shards[0];
    let id = sh["id"].as_str().unwrap();
    assert!(id.starts_with('[') && id.ends_with("][prof][0]"), "{id}");
    assert_eq!(sh["inbound_network_time_in_millis"], 0);
    let search0 = &sh["searches"][0];
    assert!(search0["rewrite_time"].as_u64().unwrap() > 0);
    let q = &search0["query"][0];
    assert_eq!(q["type"], "BooleanQuery");
    // A keyword term scores as a constant (Fathom's tree wraps it).
    assert_eq!(q["children"][0]["type"], "ConstantScoreQuery");
    assert_eq!(q["children"][0]["children"][0]["type"], "TermQuery");
    assert_eq!(q["children"][0]["children"][0]["description"], "k:even");
    assert_eq!(q["children"][1]["type"], "IndexOrDocValuesQuery");
    assert_eq!(q["children"][1]["description"], "n:[0 TO *]");
    for k in QUERY_KEYS {
        assert!(q["breakdown"][k].is_u64(), "{k}: {q}");
        assert!(q["breakdown"][format!("{k}_count")].is_u64(), "{k}_count: {q}");
    }
    // Every match is reached by `next_doc` (plus the call that finds none left, per segment).
    assert_eq!(q["breakdown"]["next_doc_count"].as_u64().unwrap(), matches);
    assert_eq!(q["breakdown"]["score_count"].as_u64().unwrap(), matches);
    assert_eq!(q["breakdown"]["create_weight_count"], 1);
    assert!(q["time_in_nanos"].as_u64().unwrap() > 0);
    let c = &search0["collector"][0];
    assert_eq!(c["name"], "MultiCollector");
    assert_eq!(c["children"][0]["name"], "SimpleTopScoreDocCollector");
    assert_eq!(c["children"][1]["reason"], "aggregation");

    let aggs = sh["aggregations"].as_array().unwrap();
    assert_eq!(aggs.len(), 2);
    let terms = &aggs[0];
    assert_eq!(terms["type"], "NumericTermsAggregator");
    assert_eq!(terms["description"], "by_n");
    for k in AGG_KEYS {
        assert!(terms["breakdown"][k].is_u64(), "{k}");
        assert!(terms["breakdown"][format!("{k}_count")].is_u64(), "{k}_count");
    }
    assert_eq!(terms["breakdown"]["collect_count"].as_u64().unwrap(), matches);
    assert_eq!(terms["breakdown"]["build_leaf_collector_count"], segments(s.addr));
    assert_eq!(terms["debug"]["result_strategy"], "long_terms");
    assert_eq!(terms["debug"]["total_buckets"], 4);
    let child = &terms["children"][0];
    assert_eq!(child["type"], "MaxAggregator");
    assert_eq!(child["description"], "top");
    assert_eq!(child["breakdown"]["collect_count"].as_u64().unwrap(), matches);
    let card = &aggs[1];
    assert_eq!(card["type"], "CardinalityAggregator");
    assert_eq!(card["debug"]["ordinals_collectors_used"], segments(s.addr));
    assert_eq!(card["debug"]["numeric_collectors_used"], 0);

    // `breadth_first`: the sub-aggregation collects only the documents of the kept bucket.
    let agg = |mode: &str| {
        json!({"size": 0, "profile": true, "query": {"term": {"k": "even"}},
               "aggs": {"t": {"terms": {"field": "n", "size": 1, "collect_mode": mode}, "aggs": {"m": {"max": {"field": "x"}}}}}})
    };
    let depth = search(s.addr, "prof", agg("depth_first"));
    let breadth = search(s.addr, "prof", agg("breadth_first"));
    assert_eq!(depth["aggregations"], breadth["aggregations"]);
    let kept = breadth["aggregations"]["t"]["buckets"][0]["doc_count"].as_u64().unwrap();
    let t = &breadth["profile"]["shards"][0]["aggregations"][0];
    assert_eq!(t["debug"]["deferred_aggregators"], json!(["m"]));
    assert_eq!(t["children"][0]["breakdown"]["collect_count"].as_u64().unwrap(), kept);
    let t = &depth["profile"]["shards"][0]["aggregations"][0];
    assert!(t["debug"].get("deferred_aggregators").is_none());
    assert_eq!(t["children"][0]["breakdown"]["collect_count"].as_u64().unwrap(), matches);

    // Without `profile` (or with false) there is no profile; a non-boolean is refused.
    let v = search(s.addr, "prof", json!({"profile": false}));
    assert!(v.get("profile").is_none(), "{v}");
    let r = post(s.addr, "/prof/_search", r#"{"profile": 3}"#);
    assert_eq!(r.status, 400, "{}", r.text());
    s.stop();
}

/// The buckets of `aggs` and the profile's first aggregation.
/// The index's segments.
fn segments(addr: std::net::SocketAddr) -> u64 {
    let r = get(addr, "/_cat/segments/prof?format=json");
    assert_eq!(r.status, 200, "{}", r.text());
    r.json().as_array().map_or(0, |a| a.len() as u64)
}

fn run_aggs(addr: std::net::SocketAddr, query: Value, aggs: Value) -> (Value, Value) {
    let v = search(addr, "prof", json!({"profile": true, "size": 0, "query": query, "aggs": aggs}));
    (v["aggregations"].clone(), v["profile"]["shards"][0]["aggregations"][0].clone())
}

#[test]
fn points_counting_matches_document_collection() {
    let dir = tempfile::tempdir().unwrap();
    let s = TestServer::start(dir.path(), &[]);
    fill(s.addr, "prof");
    let all = json!({"match_all": {}});
    let segs = segments(s.addr);
    assert!(segs >= 1);
    // The same buckets with a sub-aggregation (which makes the aggregation visit documents).
    let cases = [
        json!({"a": {"range": {"field": "x", "ranges": [{"to": 5}, {"from": 5, "to": 20}, {"from": 25}]}}}),
        json!({"a": {"range": {"field": "n", "ranges": [{"to": 2}, {"from": 2, "to": 4}, {"from": 6}]}}}),
        json!({"a": {"date_histogram": {"field": "d", "calendar_interval": "week"}}}),
        json!({"a": {"date_histogram": {"field": "d", "fixed_interval": "3d", "min_doc_count": 1}}}),
        json!({"a": {"auto_date_histogram": {"field": "d", "buckets": 3}}}),
    ];
    for agg in cases {
        let (fast, prof) = run_aggs(s.addr, all.clone(), agg.clone());
        assert_eq!(prof["debug"]["optimized_segments"], segs, "{agg}: {prof}");
        assert_eq!(prof["debug"]["unoptimized_segments"], 0, "{agg}: {prof}");
        assert_eq!(prof["breakdown"]["collect_count"], 0, "{agg}: {prof}");
        let mut slow_agg = agg.clone();
        slow_agg["a"]["aggs"] = json!({"c": {"value_count": {"field": "n"}}});
        let (slow, prof) = run_aggs(s.addr, all.clone(), slow_agg);
        assert!(prof["debug"].get("optimized_segments").is_none(), "{prof}");
        let strip = |v: &Value| -> Value {
            let mut v = v.clone();
            for b in v["a"]["buckets"].as_array_mut().into_iter().flatten() {
                if let Some(m) = b.as_object_mut() {
                    m.remove("c");
                }
            }
            v
        };
        assert_eq!(strip(&slow), fast, "{agg}");
    }
    // A range query on the date field clips a date histogram's buckets.
    let q = json!({"range": {"d": {"gte": "2024-01-05", "lt": "2024-02-03"}}});
    let agg = json!({"a": {"date_histogram": {"field": "d", "calendar_interval": "week"}}});
    let (fast, prof) = run_aggs(s.addr, q.clone(), agg.clone());
    assert_eq!(prof["debug"]["optimized_segments"], segs, "{prof}");
    let (slow, _) = run_aggs(s.addr, json!({"bool": {"filter": [q.clone()], "must": [{"match_all": {}}]}}), agg);
    assert_eq!(slow, fast);
    // Deleted documents: their segment is collected document by document.
    let r = delete(s.addr, "/prof/_doc/1?refresh=true");
    assert_eq!(r.status, 200, "{}", r.text());
    let agg = json!({"a": {"range": {"field": "n", "ranges": [{"to": 3}, {"from": 3}]}}});
    let (fast, prof) = run_aggs(s.addr, all, agg);
    let segs = segments(s.addr);
    if segs > 1 {
        assert_eq!(prof["debug"]["optimized_segments"], segs - 1, "{prof}");
        assert_eq!(prof["debug"]["unoptimized_segments"], 1, "{prof}");
    } else {
        assert!(prof["debug"].get("optimized_segments").is_none(), "{prof}");
    }
    let total: u64 = fast["a"]["buckets"].as_array().unwrap().iter().map(|b| b["doc_count"].as_u64().unwrap()).sum();
    assert_eq!(total, 20);
    s.stop();
}
