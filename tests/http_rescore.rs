//! `rescore` over real HTTP: the rescored score of each hit is OpenSearch's combination of the
//! two passes' scores (each checked against the plain search of that query), the window bounds
//! what is rescored, several rescorers chain, and the refusals (sort, scroll, window limit).
#![cfg(feature = "server")]

mod common;

use common::http::*;
use serde_json::{json, Value};

fn scores(r: &Resp) -> Vec<(String, f64)> {
    let v = r.json();
    v["hits"]["hits"]
        .as_array()
        .unwrap_or_else(|| panic!("no hits: {v}"))
        .iter()
        .map(|h| (h["_id"].as_str().unwrap().to_string(), h["_score"].as_f64().unwrap()))
        .collect()
}

fn score_of(list: &[(String, f64)], id: &str) -> Option<f64> {
    list.iter().find(|(i, _)| i == id).map(|(_, s)| *s)
}

#[test]
fn rescore_combines_scores_as_opensearch() {
    let dir = tempfile::tempdir().unwrap();
    let s = TestServer::start(dir.path(), &[]);
    assert_eq!(put(s.addr, "/r", r#"{"settings": {"number_of_shards": 1}}"#).status, 200);
    let docs = [
        "the quick brown fox",
        "quick quick brown dog",
        "a fox that is quick and brown",
        "brown fox quick",
        "slow brown bear",
        "quick fox",
    ];
    let mut bulk = String::new();
    for (i, d) in docs.iter().enumerate() {
        bulk.push_str(&format!("{{\"index\": {{\"_id\": \"{i}\"}}}}\n{}\n", json!({"t": d})));
    }
    let r = send(
        s.addr,
        "POST",
        "/r/_bulk?refresh=true",
        Some(bulk.as_bytes()),
        &[("Content-Type", "application/x-ndjson")],
    );
    assert_eq!(r.json()["errors"], false);

    let first_q = json!({"match": {"t": "quick brown"}});
    let second_q = json!({"match_phrase": {"t": "quick brown"}});
    let first = scores(&post(s.addr, "/r/_search", &json!({"query": first_q}).to_string()));
    let second = scores(&post(s.addr, "/r/_search", &json!({"query": second_q}).to_string()));
    assert_eq!(first.len(), 6);
    assert!(!second.is_empty());

    for (mode, combine) in [
        ("total", (|a: f64, b: f64| a + b) as fn(f64, f64) -> f64),
        ("multiply", |a, b| a * b),
        ("avg", |a, b| (a + b) / 2.0),
        ("max", f64::max),
        ("min", f64::min),
    ] {
        let body = json!({"query": first_q, "rescore": {"window_size": 50, "query": {
            "rescore_query": second_q, "query_weight": 0.7, "rescore_query_weight": 1.5, "score_mode": mode}}});
        let r = post(s.addr, "/r/_search", &body.to_string());
        assert_eq!(r.status, 200, "{}", r.text());
        let got = scores(&r);
        assert_eq!(got.len(), 6, "{mode}");
        for (id, f) in &first {
            let want = match score_of(&second, id) {
                Some(sc) => combine(f * 0.7, sc * 1.5),
                None => f * 0.7,
            };
            let have = score_of(&got, id).unwrap();
            assert!((have - want).abs() < 1e-4 * want.abs().max(1.0), "{mode} doc {id}: {have} vs {want}");
        }
        // Sorted by the new score, and max_score is the first hit's.
        assert!(got.windows(2).all(|w| w[0].1 >= w[1].1), "{mode}: {got:?}");
        assert_eq!(r.json()["hits"]["max_score"].as_f64(), Some(got[0].1));
    }

    // A window of 2: only the two best first-pass hits are rescored, the rest keep first * weight.
    let body = json!({"query": first_q, "rescore": {"window_size": 2, "query": {"rescore_query": second_q, "query_weight": 1.0, "rescore_query_weight": 100.0}}});
    let got = scores(&post(s.addr, "/r/_search", &body.to_string()));
    let top2: Vec<&String> = first.iter().take(2).map(|(i, _)| i).collect();
    for (id, f) in &first {
        let have = score_of(&got, id).unwrap();
        let want = match (top2.contains(&id), score_of(&second, id)) {
            (true, Some(sc)) => f + sc * 100.0,
            _ => *f,
        };
        assert!((have - want).abs() < 1e-3 * want.max(1.0), "doc {id}: {have} vs {want}");
    }

    // Two rescorers chain; explain shows the rescore parts.
    let body = json!({"query": first_q, "explain": true, "rescore": [
        {"window_size": 10, "query": {"rescore_query": second_q}},
        {"window_size": 10, "query": {"rescore_query": {"match": {"t": "fox"}}, "score_mode": "max"}}]});
    let r = post(s.addr, "/r/_search", &body.to_string());
    assert_eq!(r.status, 200, "{}", r.text());
    let hit0: Value = r.json()["hits"]["hits"][0].clone();
    let expl = hit0["_explanation"].to_string();
    assert!(expl.contains("primaryWeight"), "{expl}");
    assert!((hit0["_explanation"]["value"].as_f64().unwrap() - hit0["_score"].as_f64().unwrap()).abs() < 1e-4);

    // Refusals.
    let r = post(
        s.addr,
        "/r/_search",
        &json!({"sort": ["_doc"], "rescore": {"query": {"rescore_query": second_q}}}).to_string(),
    );
    assert_eq!(r.status, 400, "{}", r.text());
    assert!(r.text().contains("Cannot use [sort] option in conjunction with [rescore]."), "{}", r.text());
    let r =
        post(s.addr, "/r/_search?scroll=1m", &json!({"rescore": {"query": {"rescore_query": second_q}}}).to_string());
    assert_eq!(r.status, 400, "{}", r.text());
    assert!(r.text().contains("using [rescore] is not allowed in a scroll context"), "{}", r.text());
    let r = post(
        s.addr,
        "/r/_search",
        &json!({"rescore": {"window_size": 20000, "query": {"rescore_query": second_q}}}).to_string(),
    );
    assert_eq!(r.status, 400, "{}", r.text());
    assert!(r.text().contains("Rescore window [20000] is too large"), "{}", r.text());
    let r = post(s.addr, "/r/_search", &json!({"rescore": {"window_size": 2}}).to_string());
    assert_eq!(r.status, 400, "{}", r.text());
    assert!(r.text().contains("missing rescore type"), "{}", r.text());
}
