//! The fetch-phase options of `_search` over real HTTP: `docvalue_fields`, the `fields` API,
//! `stored_fields`, `track_scores`, `timeout`, keyword sort `missing`, and `_msearch` with a PIT.

mod common;

use common::http::*;
use serde_json::{json, Value};

fn server() -> (TestServer, tempfile::TempDir) {
    let dir = tempfile::tempdir().expect("temp dir");
    let s = TestServer::start(dir.path(), &[]);
    (s, dir)
}

fn setup(s: &TestServer) {
    let r = put(
        s.addr,
        "/t",
        &json!({"settings": {"number_of_shards": 2}, "mappings": {"properties": {
            "title": {"type": "text", "fields": {"raw": {"type": "keyword"}}},
            "tag": {"type": "keyword", "store": true},
            "n": {"type": "integer"},
            "f": {"type": "float"},
            "d": {"type": "double"},
            "when": {"type": "date"},
            "day": {"type": "date", "format": "yyyy-MM-dd"},
            "ok": {"type": "boolean"},
            "addr": {"type": "ip"},
            "user": {"properties": {"name": {"type": "keyword"}}}
        }}})
        .to_string(),
    );
    assert_eq!(r.status, 200, "{}", r.text());
    let docs = [
        json!({"title": "quick brown fox", "tag": "b", "n": 2, "f": 1.1, "d": 0.5, "when": "2015-01-01T12:10:30Z", "day": "2020-02-03", "ok": true, "addr": "10.0.0.1", "user": {"name": "kim"}}),
        json!({"title": "lazy dog", "tag": ["c", "a"], "n": "5", "f": 2.5, "when": 1420070400000u64, "ok": false}),
        json!({"title": "quick quick fox"}),
    ];
    let mut bulk = String::new();
    for (i, d) in docs.iter().enumerate() {
        bulk.push_str(&format!("{{\"index\":{{\"_id\":\"{}\"}}}}\n{d}\n", i + 1));
    }
    let r = send(
        s.addr,
        "POST",
        "/t/_bulk?refresh=true",
        Some(bulk.as_bytes()),
        &[("Content-Type", "application/x-ndjson")],
    );
    assert_eq!(r.status, 200, "{}", r.text());
}

fn search(s: &TestServer, body: Value) -> (u16, Value) {
    let r = post(s.addr, "/t/_search", &body.to_string());
    (r.status, r.json())
}

fn hit<'a>(body: &'a Value, id: &str) -> &'a Value {
    body["hits"]["hits"]
        .as_array()
        .and_then(|a| a.iter().find(|h| h["_id"] == id))
        .unwrap_or_else(|| panic!("no hit {id} in {body}"))
}

#[test]
fn docvalue_fields_render_like_doc_value_format() {
    let (s, _d) = server();
    setup(&s);
    let (st, b) = search(
        &s,
        json!({"query": {"ids": {"values": ["1", "2"]}}, "_source": false, "docvalue_fields": [
            "tag", "n", "f", "d", "when", "day", "ok", "addr", "title.raw",
            {"field": "when", "format": "epoch_millis"}, {"field": "u*"}
        ]}),
    );
    assert_eq!(st, 200, "{b}");
    let f1 = &hit(&b, "1")["fields"];
    assert_eq!(f1["tag"], json!(["b"]));
    assert_eq!(f1["n"], json!([2]));
    assert_eq!(f1["f"], json!([1.100000023841858]), "float widened to double");
    assert_eq!(f1["d"], json!([0.5]));
    // `when` asked twice: the mapping's format then epoch_millis.
    assert_eq!(f1["when"], json!(["2015-01-01T12:10:30.000Z", "1420114230000"]));
    assert_eq!(f1["day"], json!(["2020-02-03"]));
    assert_eq!(f1["ok"], json!([true]));
    assert_eq!(f1["addr"], json!(["10.0.0.1"]));
    assert_eq!(f1["title.raw"], json!(["quick brown fox"]));
    assert_eq!(f1["user.name"], json!(["kim"]));
    let f2 = &hit(&b, "2")["fields"];
    assert_eq!(f2["tag"], json!(["a", "c"]), "sorted-set values are ordered");
    assert_eq!(f2["ok"], json!([false]));
    assert!(hit(&b, "2").get("_source").is_none());

    let (st, b) = search(&s, json!({"docvalue_fields": ["title"]}));
    assert_eq!(st, 400, "{b}");
    assert_eq!(b["error"]["root_cause"][0]["type"], "illegal_argument_exception");
    assert!(
        b["error"]["root_cause"][0]["reason"].as_str().unwrap_or("").starts_with("Text fields are not optimised"),
        "{b}"
    );
    let (st, b) = search(&s, json!({"docvalue_fields": [{"field": "tag", "format": "x"}]}));
    assert_eq!(st, 400, "{b}");
}

#[test]
fn fields_api_parses_source_through_the_mapping() {
    let (s, _d) = server();
    setup(&s);
    let (st, b) = search(
        &s,
        json!({"query": {"ids": {"values": ["1", "2"]}}, "fields": ["title*", "n", {"field": "when", "format": "epoch_millis"}, "user.*", "nope"]}),
    );
    assert_eq!(st, 200, "{b}");
    let f1 = &hit(&b, "1")["fields"];
    assert_eq!(f1["title"], json!(["quick brown fox"]));
    assert_eq!(f1["title.raw"], json!(["quick brown fox"]));
    assert_eq!(f1["when"], json!(["1420114230000"]));
    assert_eq!(f1["user.name"], json!(["kim"]));
    assert!(f1.get("nope").is_none());
    assert_eq!(hit(&b, "2")["fields"]["n"], json!([5]), "\"5\" coerced to the integer 5");
    assert!(hit(&b, "1").get("_source").is_some());
    let (st, _) = search(&s, json!({"fields": [{"field": "n", "include_unmapped": true}]}));
    assert_eq!(st, 400);
}

#[test]
fn stored_fields_return_stored_fields_only() {
    let (s, _d) = server();
    setup(&s);
    let (st, b) = search(&s, json!({"query": {"ids": {"values": ["1"]}}, "stored_fields": ["tag", "n"]}));
    assert_eq!(st, 200, "{b}");
    let h = hit(&b, "1");
    assert_eq!(h["fields"], json!({"tag": ["b"]}));
    assert!(h.get("_source").is_none());
    let (_, b) = search(&s, json!({"query": {"ids": {"values": ["1"]}}, "stored_fields": ["*", "_source"]}));
    let h = hit(&b, "1");
    assert_eq!(h["fields"], json!({"tag": ["b"]}));
    assert!(h.get("_source").is_some());
    let (_, b) = search(&s, json!({"query": {"ids": {"values": ["1"]}}, "stored_fields": "_none_"}));
    let h = &b["hits"]["hits"][0];
    assert_eq!(h["_index"], "t");
    assert!(h.get("_id").is_none() && h.get("_source").is_none(), "{h}");
    let r = get(s.addr, "/t/_search?stored_fields=tag&q=_id:2");
    assert_eq!(r.json()["hits"]["hits"][0]["fields"], json!({"tag": ["c", "a"]}), "stored values keep source order");
}

#[test]
fn track_scores_with_a_field_sort() {
    let (s, _d) = server();
    setup(&s);
    let q = json!({"match": {"title": "quick"}});
    let (_, plain) = search(&s, json!({"query": q, "sort": ["n"]}));
    assert_eq!(plain["hits"]["max_score"], Value::Null);
    assert_eq!(plain["hits"]["hits"][0]["_score"], Value::Null);
    let (_, by_score) = search(&s, json!({"query": q}));
    let (st, b) = search(&s, json!({"query": q, "sort": ["n"], "track_scores": true}));
    assert_eq!(st, 200, "{b}");
    assert_eq!(b["hits"]["max_score"], by_score["hits"]["max_score"]);
    for h in b["hits"]["hits"].as_array().unwrap() {
        let id = h["_id"].as_str().unwrap();
        assert_eq!(h["_score"], hit(&by_score, id)["_score"], "{id}");
    }
}

#[test]
fn timeout_reports_partial_results() {
    let (s, _d) = server();
    setup(&s);
    let (st, b) = search(&s, json!({"timeout": "10s"}));
    assert_eq!(st, 200);
    assert_eq!(b["timed_out"], false);
    assert_eq!(b["hits"]["total"]["value"], 3);
    let (st, b) = search(&s, json!({"timeout": "1nanos"}));
    assert_eq!(st, 200, "{b}");
    assert_eq!(b["timed_out"], true);
    assert_eq!(b["_shards"]["failed"], 0);
    let r = get(s.addr, "/t/_search?timeout=1nanos");
    assert_eq!(r.json()["timed_out"], true);
    let (st, b) = search(&s, json!({"timeout": "ten"}));
    assert_eq!(st, 400, "{b}");
}

#[test]
fn keyword_sort_missing_value_and_bad_missing() {
    let (s, _d) = server();
    setup(&s);
    let ids = |b: &Value| {
        b["hits"]["hits"].as_array().unwrap().iter().map(|h| h["_id"].as_str().unwrap().to_string()).collect::<Vec<_>>()
    };
    // Doc 3 has no tag: as "0" it sorts first ascending, as "zzz" last.
    let (st, b) = search(&s, json!({"sort": [{"tag": {"order": "asc", "missing": "0"}}]}));
    assert_eq!(st, 200, "{b}");
    assert_eq!(ids(&b), ["3", "2", "1"]);
    assert_eq!(b["hits"]["hits"][0]["sort"], json!(["0"]));
    let (_, b) = search(&s, json!({"sort": [{"tag": {"order": "desc", "missing": "bb"}}]}));
    assert_eq!(ids(&b), ["2", "3", "1"]);
    let (st, b) = search(&s, json!({"sort": [{"n": {"missing": "abc"}}]}));
    assert_eq!(st, 400, "{b}");
    let (st, b) = search(&s, json!({"sort": [{"when": {"missing": "abc"}}]}));
    assert_eq!(st, 400, "{b}");
}

#[test]
fn msearch_with_a_point_in_time() {
    let (s, _d) = server();
    setup(&s);
    let r = post(s.addr, "/t/_search/point_in_time?keep_alive=1m", "");
    assert_eq!(r.status, 200, "{}", r.text());
    let pit = r.json()["pit_id"].as_str().unwrap().to_string();
    let body = format!("{{}}\n{}\n{{\"index\":\"t\"}}\n{{\"size\":0}}\n", json!({"pit": {"id": pit}, "size": 1}));
    let r = send(s.addr, "POST", "/_msearch", Some(body.as_bytes()), &[("Content-Type", "application/x-ndjson")]);
    assert_eq!(r.status, 200, "{}", r.text());
    let b = r.json();
    assert_eq!(b["responses"][0]["status"], 200, "{b}");
    assert_eq!(b["responses"][0]["pit_id"], json!(pit));
    assert_eq!(b["responses"][0]["hits"]["total"]["value"], 3);
    assert_eq!(b["responses"][1]["hits"]["total"]["value"], 3);
    let body = format!("{{\"index\":\"t\"}}\n{}\n", json!({"pit": {"id": pit}}));
    let r = send(s.addr, "POST", "/_msearch", Some(body.as_bytes()), &[("Content-Type", "application/x-ndjson")]);
    assert_eq!(r.json()["responses"][0]["status"], 400, "{}", r.text());
}
