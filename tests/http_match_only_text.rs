//! `match_only_text` over HTTP (issue 16): indexed docs-only without norms, term queries score
//! BM25 with freq 1, phrases are checked against the re-analyzed `_source` (through merges and
//! several segments), `exists` finds it through `_field_names`, and the parameters it refuses
//! get OpenSearch's messages.

mod common;

use common::http::{get, post, put, TestServer};
use serde_json::{json, Value};

fn bulk(s: &TestServer, index: &str, docs: &[Value]) {
    let mut b = String::new();
    for (i, d) in docs.iter().enumerate() {
        b.push_str(&format!("{{\"index\":{{\"_id\":\"{i}\"}}}}\n{d}\n"));
    }
    let r = common::http::send(
        s.addr,
        "POST",
        &format!("/{index}/_bulk?refresh=true"),
        Some(b.as_bytes()),
        &[("Content-Type", "application/x-ndjson")],
    );
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.json()["errors"], json!(false), "{}", r.text());
}

fn ids(v: &Value) -> Vec<String> {
    let mut out: Vec<String> = v["hits"]["hits"]
        .as_array()
        .map(|a| a.iter().filter_map(|h| h["_id"].as_str().map(str::to_string)).collect())
        .unwrap_or_default();
    out.sort();
    out
}

#[test]
fn phrases_are_checked_against_the_source() {
    let dir = tempfile::tempdir().unwrap();
    let s = TestServer::start(dir.path(), &[]);
    let r = put(
        s.addr,
        "/m",
        r#"{"mappings":{"properties":{"t":{"type":"match_only_text"},"k":{"type":"keyword","copy_to":"c"},"c":{"type":"match_only_text"}}}}"#,
    );
    assert_eq!(r.status, 200, "{}", r.text());
    let m = get(s.addr, "/m/_mapping").json();
    assert_eq!(m["m"]["mappings"]["properties"]["t"], json!({"type": "match_only_text"}), "{m}");
    bulk(
        &s,
        "m",
        &[
            json!({"t": "peter piper picked a peck", "k": "red fox"}),
            json!({"t": "piper peter picked", "k": "fox red"}),
            json!({"t": ["one peter", "piper two"]}),
            json!({"t": "Peter Piper peter piper piper"}),
        ],
    );
    let search = |q: Value| post(s.addr, "/m/_search", &json!({"query": q}).to_string()).json();
    let r = search(json!({"match_phrase": {"t": "peter piper"}}));
    assert_eq!(ids(&r), vec!["0", "3"], "{r}");
    // Constant score: the query's boost.
    let r = search(json!({"match_phrase": {"t": {"query": "peter piper", "boost": 2.5}}}));
    assert!(r["hits"]["hits"].as_array().unwrap().iter().all(|h| h["_score"] == json!(2.5)), "{r}");
    // Across the values of an array only with a slop over the position gap.
    assert_eq!(ids(&search(json!({"match_phrase": {"t": {"query": "peter piper", "slop": 2}}}))), vec!["0", "1", "3"]);
    assert_eq!(
        ids(&search(json!({"match_phrase": {"t": {"query": "peter piper", "slop": 101}}}))),
        vec!["0", "1", "2", "3"]
    );
    let r = get(s.addr, "/m/_search?q=%22peter%20picked%22~1&df=t").json();
    assert_eq!(ids(&r), vec!["0", "1"], "{r}");
    // A copy_to target checks the values copied into it.
    assert_eq!(ids(&search(json!({"match_phrase": {"c": "red fox"}}))), vec!["0"]);
    // Terms score BM25 with freq 1 and no norms: doc 3 (five tokens, "piper" thrice) ties doc 0.
    let r = search(json!({"match": {"t": "piper"}}));
    let hits = r["hits"]["hits"].as_array().unwrap();
    assert_eq!(hits.len(), 4, "{r}");
    assert!(hits.iter().all(|h| h["_score"] == hits[0]["_score"]), "{r}");
    let r = search(json!({"exists": {"field": "t"}}));
    assert_eq!(r["hits"]["total"]["value"], json!(4), "{r}");
    // After a merge into one segment the same answers.
    let r = post(s.addr, "/m/_forcemerge?max_num_segments=1", "");
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(ids(&search(json!({"match_phrase": {"t": "peter piper"}}))), vec!["0", "3"]);
    assert_eq!(search(json!({"exists": {"field": "t"}}))["hits"]["total"]["value"], json!(4));
}

#[test]
fn refused_parameters() {
    let dir = tempfile::tempdir().unwrap();
    let s = TestServer::start(dir.path(), &[]);
    for (def, msg) in [
        (json!({"type": "match_only_text", "norms": true}), "Norms cannot be enabled on for match_only_text field"),
        (json!({"type": "match_only_text", "index_options": "positions"}), "accepted values are [docs]"),
        (
            json!({"type": "match_only_text", "index_phrases": true}),
            "Index phrases cannot be enabled on for match_only_text field",
        ),
        (
            json!({"type": "match_only_text", "index_prefixes": {}}),
            "Index prefixes cannot be enabled on for match_only_text field",
        ),
    ] {
        let r = put(s.addr, "/bad", &json!({"mappings": {"properties": {"f": def}}}).to_string());
        assert_eq!(r.status, 400, "{}", r.text());
        assert!(r.text().contains(msg), "{}", r.text());
    }
    let r = put(
        s.addr,
        "/ok",
        r#"{"mappings":{"properties":{"f":{"type":"match_only_text","norms":false,"index_options":"docs"}}}}"#,
    );
    assert_eq!(r.status, 200, "{}", r.text());
    // A text field cannot become match_only_text.
    let r = put(s.addr, "/t", r#"{"mappings":{"properties":{"f":{"type":"text"}}}}"#);
    assert_eq!(r.status, 200, "{}", r.text());
    let r = put(s.addr, "/t/_mapping", r#"{"properties":{"f":{"type":"match_only_text"}}}"#);
    assert_eq!(r.status, 400, "{}", r.text());
    assert!(r.text().contains("cannot be changed from type [text] to [match_only_text]"), "{}", r.text());
}
