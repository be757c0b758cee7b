//! `boosting` and `function_score` over HTTP: scores recomputed from the plain query's scores
//! with OpenSearch's arithmetic, `min_score`, and the errors of bad functions.

mod common;

use common::http::{post, put, TestServer};
use serde_json::{json, Value};

fn setup(s: &TestServer) {
    let r = put(
        s.addr,
        "/t",
        r#"{"settings":{"number_of_shards":1,"number_of_replicas":0},
            "mappings":{"properties":{"body":{"type":"text"},"likes":{"type":"long"},"rank":{"type":"double"},"tag":{"type":"keyword"}}}}"#,
    );
    assert_eq!(r.status, 200, "{}", r.text());
    let docs = [
        json!({"body": "quick brown fox", "likes": 3, "rank": 0.5, "tag": "a"}),
        json!({"body": "lazy fox dog", "likes": [10, 1], "rank": 2.25, "tag": "b"}),
        json!({"body": "fox fox jumps", "rank": 1.0}),
        json!({"body": "the lazy dog", "likes": 7, "tag": "a"}),
        json!({"body": "fox and lazy cat", "likes": 0, "rank": 4.0, "tag": "c"}),
    ];
    let mut bulk = String::new();
    for (i, d) in docs.iter().enumerate() {
        bulk.push_str(&format!("{{\"index\":{{\"_id\":\"{i}\"}}}}\n{d}\n"));
    }
    let r = common::http::send(
        s.addr,
        "POST",
        "/t/_bulk?refresh=true",
        Some(bulk.as_bytes()),
        &[("Content-Type", "application/x-ndjson")],
    );
    assert_eq!(r.status, 200, "{}", r.text());
}

fn search(s: &TestServer, query: Value) -> (u16, Value) {
    let r = post(s.addr, "/t/_search", &json!({"query": query, "size": 20}).to_string());
    (r.status, r.json())
}

fn scores(s: &TestServer, query: Value) -> Vec<(String, f32)> {
    let (st, v) = search(s, query);
    assert_eq!(st, 200, "{v}");
    let mut out: Vec<(String, f32)> = v["hits"]["hits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| (h["_id"].as_str().unwrap().to_string(), h["_score"].as_f64().unwrap() as f32))
        .collect();
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

#[test]
fn boosting_and_function_score_over_http() {
    let dir = tempfile::tempdir().unwrap();
    let s = TestServer::start(dir.path(), &[]);
    setup(&s);
    let base = scores(&s, json!({"match": {"body": "fox"}}));
    assert_eq!(base.len(), 4);

    // boosting: docs 1 and 4 contain "lazy".
    let got = scores(
        &s,
        json!({"boosting": {"positive": {"match": {"body": "fox"}}, "negative": {"term": {"body": "lazy"}}, "negative_boost": 0.3, "boost": 2}}),
    );
    for ((id, b), (id2, g)) in base.iter().zip(&got) {
        assert_eq!(id, id2);
        let f = if id == "1" || id == "4" { *b as f64 * 0.3f32 as f64 } else { *b as f64 };
        assert_eq!(*g, (f * 2.0) as f32, "boosting {id}");
    }

    // field_value_factor (smallest value of multi-valued fields), sum boost mode.
    let got = scores(
        &s,
        json!({"function_score": {"query": {"match": {"body": "fox"}},
        "field_value_factor": {"field": "likes", "factor": 1.2, "modifier": "sqrt", "missing": 4}, "boost_mode": "sum"}}),
    );
    let likes = [("0", 3.0), ("1", 1.0), ("2", 4.0), ("4", 0.0)];
    for ((id, b), (_, g)) in base.iter().zip(&got) {
        let v = likes.iter().find(|l| l.0 == id).unwrap().1;
        assert_eq!(*g, (*b as f64 + (v * 1.2f32 as f64).sqrt()) as f32, "fvf {id}");
    }

    // Several filtered functions, score_mode sum, boost_mode replace, min_score.
    let got = scores(
        &s,
        json!({"function_score": {"query": {"match": {"body": "fox"}}, "functions": [
        {"filter": {"term": {"tag": "a"}}, "weight": 2},
        {"filter": {"term": {"body": "lazy"}}, "field_value_factor": {"field": "rank"}, "weight": 3}
    ], "score_mode": "sum", "boost_mode": "replace", "min_score": 1.5}}),
    );
    assert_eq!(got, vec![("0".to_string(), 2.0), ("1".to_string(), 6.75), ("4".to_string(), 12.0)]);

    // A single weight with the query's boost: the boost applies to the query score.
    let got = scores(&s, json!({"function_score": {"query": {"match": {"body": "fox"}}, "weight": 3, "boost": 2}}));
    let boosted = scores(&s, json!({"match": {"body": {"query": "fox", "boost": 2}}}));
    for ((id, b), (_, g)) in boosted.iter().zip(&got) {
        assert_eq!(*g, (*b as f64 * 3.0) as f32, "weight {id}");
    }

    // random_score with a seed is repeatable and within [0, 1).
    let q = json!({"function_score": {"random_score": {"seed": 10, "field": "_seq_no"}, "boost_mode": "replace"}});
    let a = scores(&s, q.clone());
    assert_eq!(a, scores(&s, q));
    assert!(a.iter().all(|(_, v)| (0.0..1.0).contains(v)), "{a:?}");

    // Errors.
    let (st, v) = search(&s, json!({"function_score": {"field_value_factor": {"field": "likes"}}}));
    // OpenSearch answers 500 (OpenSearchException); the engine's error maps to 400 here.
    assert!(st == 500 || st == 400, "{v}");
    assert!(v.to_string().contains("Missing value for field [likes]"), "{v}");
    let (st, v) = search(&s, json!({"function_score": {"field_value_factor": {"field": "likes", "modifier": "cube"}}}));
    assert_eq!(st, 400, "{v}");
    let (st, v) = search(&s, json!({"function_score": {"weight": 2, "random_score": {}}}));
    assert_eq!(st, 400, "{v}");
    assert!(v.to_string().contains("already found function ["), "{v}");
    s.stop();
}

fn sorted(s: &TestServer, sort: Value) -> Vec<(String, Value)> {
    let r = post(s.addr, "/t/_search", &json!({"sort": sort, "size": 20, "_source": false}).to_string());
    let v = r.json();
    assert_eq!(r.status, 200, "{v}");
    v["hits"]["hits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| (h["_id"].as_str().unwrap().to_string(), h["sort"][0].clone()))
        .collect()
}

#[test]
fn sort_modes_missing_and_numeric_type() {
    let dir = tempfile::tempdir().unwrap();
    let s = TestServer::start(dir.path(), &[]);
    setup(&s);
    // likes: 0 -> 3, 1 -> [10, 1], 2 -> none, 3 -> 7, 4 -> 0.
    let got = sorted(&s, json!([{"likes": {"order": "desc", "mode": "sum", "missing": 5}}]));
    assert_eq!(
        got,
        vec![
            ("1".into(), json!(11)),
            ("3".into(), json!(7)),
            ("2".into(), json!(5)),
            ("0".into(), json!(3)),
            ("4".into(), json!(0))
        ]
    );
    let got = sorted(&s, json!([{"likes": {"order": "asc", "mode": "avg", "missing": "_first"}}]));
    assert_eq!(got.first().map(|g| g.0.as_str()), Some("2"));
    assert_eq!(got.iter().find(|g| g.0 == "1").map(|g| g.1.clone()), Some(json!(6)));
    let got = sorted(&s, json!([{"likes": {"order": "desc", "mode": "min", "numeric_type": "double", "missing": 2}}]));
    assert_eq!(
        got,
        vec![
            ("3".into(), json!(7.0)),
            ("0".into(), json!(3.0)),
            ("2".into(), json!(2.0)),
            ("1".into(), json!(1.0)),
            ("4".into(), json!(0.0))
        ]
    );
    let got = sorted(&s, json!([{"rank": {"order": "asc", "missing": 1.5}}]));
    assert_eq!(
        got.iter().map(|g| g.1.clone()).collect::<Vec<_>>(),
        vec![json!(0.5), json!(1.0), json!(1.5), json!(2.25), json!(4.0)]
    );
    s.stop();
}
