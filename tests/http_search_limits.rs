//! Per-index search limits and request checks over HTTP (issue 16): `size` beyond Java's int,
//! `request_cache` with `scroll`, `index.max_docvalue_fields_search`, `index.max_script_fields`
//! and `index.max_rescore_window` checked before the unbuilt parts are refused,
//! `index.max_regex_length`, `index.highlight.max_analyzed_offset`, multi-field and
//! `matched_fields` highlighting, `max_score` of score-led sorts and uppercase query_string
//! regexps on text fields.

mod common;

use common::http::{post, put, TestServer};
use serde_json::{json, Value};

fn search(s: &TestServer, path: &str, body: Value) -> (u16, Value) {
    let r = post(s.addr, path, &body.to_string());
    (r.status, r.json())
}

#[test]
fn request_checks_and_index_limits() {
    let dir = tempfile::tempdir().unwrap();
    let s = TestServer::start(dir.path(), &[]);
    let settings = json!({"settings": {"index.max_docvalue_fields_search": 2, "index.max_script_fields": 2, "index.max_regex_length": 5}});
    assert_eq!(put(s.addr, "/l", &settings.to_string()).status, 200);
    assert_eq!(put(s.addr, "/l/_doc/1?refresh=true", r#"{"foo":"bar"}"#).status, 201);

    let (st, b) = search(&s, "/l/_search", json!({"size": 2147483648u64}));
    assert_eq!(st, 400, "{b}");
    assert_eq!(b["error"]["type"], json!("input_coercion_exception"), "{b}");
    assert!(b.to_string().contains("Numeric value (2147483648) out of range of int"), "{b}");

    let (st, b) = search(&s, "/l/_search?scroll=1m&request_cache=true", json!({}));
    assert_eq!(st, 400, "{b}");
    assert!(b.to_string().contains("[request_cache] cannot be used in a scroll context"), "{b}");
    assert_eq!(search(&s, "/l/_search?scroll=1m&request_cache=false", json!({})).0, 200);

    let (st, b) = search(&s, "/l/_search", json!({"docvalue_fields": ["a", "b", "c"]}));
    assert_eq!(st, 400, "{b}");
    assert!(b.to_string().contains("Trying to retrieve too many docvalue_fields. Must be less than or equal to: [2] but was [3]. This limit can be set by changing the [index.max_docvalue_fields_search] index level setting."), "{b}");

    let sf = |n: usize| -> Value {
        (0..n).map(|i| (format!("f{i}"), json!({"script": {"source": "1;"}}))).collect::<serde_json::Map<_, _>>().into()
    };
    let (st, b) = search(&s, "/l/_search", json!({"script_fields": sf(3)}));
    assert_eq!(st, 400, "{b}");
    assert!(
        b.to_string()
            .contains("Trying to retrieve too many script_fields. Must be less than or equal to: [2] but was [3]."),
        "{b}"
    );
    // Within the limit, script_fields are still refused (not built).
    let (st, b) = search(&s, "/l/_search", json!({"script_fields": sf(2)}));
    assert_eq!((st, b["error"]["type"].clone()), (400, json!("parsing_exception")), "{b}");

    let rescore = json!({"rescore": [{"window_size": 10001, "query": {"rescore_query": {"match_all": {}}}}]});
    let (st, b) = search(&s, "/l/_search", rescore);
    assert_eq!(st, 400, "{b}");
    assert!(b.to_string().contains("Rescore window [10001] is too large. It must be less than [10000]."), "{b}");
    // Within the limit the rescorer runs (query and rescore query both match: 1 + 1).
    let (st, b) =
        search(&s, "/l/_search", json!({"rescore": {"window_size": 5, "query": {"rescore_query": {"match_all": {}}}}}));
    assert_eq!((st, b["hits"]["hits"][0]["_score"].clone()), (200, json!(2.0)), "{b}");

    let msg = "The length of regex [6] used in the Regexp Query request has exceeded the allowed maximum of [5]. This maximum can be set by changing the [index.max_regex_length] index level setting.";
    let (st, b) = search(&s, "/l/_search", json!({"query": {"regexp": {"foo": "ba.*rr"}}}));
    assert_eq!(st, 400, "{b}");
    assert!(b.to_string().contains(msg), "{b}");
    let (st, b) =
        search(&s, "/l/_search", json!({"query": {"query_string": {"query": "/ba.*rr/", "default_field": "foo"}}}));
    assert_eq!(st, 400, "{b}");
    assert!(b.to_string().contains(msg), "{b}");
    let (st, b) = search(&s, "/l/_search", json!({"query": {"regexp": {"foo": "ba.*"}}}));
    assert_eq!((st, b["hits"]["total"]["value"].clone()), (200, json!(1)), "{b}");
}

#[test]
fn highlight_limits_multi_fields_and_matched_fields() {
    let dir = tempfile::tempdir().unwrap();
    let s = TestServer::start(dir.path(), &[]);
    let body = json!({
        "settings": {"index.highlight.max_analyzed_offset": 10},
        "mappings": {"properties": {
            "f1": {"type": "text", "fields": {"sub": {"type": "text"}}},
            "f2": {"type": "text", "index_options": "offsets"},
            "st": {"type": "text", "analyzer": "stop", "fields": {"plain": {"type": "text", "analyzer": "standard"}}}
        }}
    });
    assert_eq!(put(s.addr, "/h", &body.to_string()).status, 200);
    let doc = json!({"f1": "The quick brown fox went", "f2": "The quick brown fox went", "st": "over the dog"});
    assert_eq!(put(s.addr, "/h/_doc/1?refresh=true", &doc.to_string()).status, 201);

    let hl = |field: &str, q: Value, opts: Value, ty: &str| json!({"query": q, "highlight": {"type": ty, "fields": {field: opts}}});
    let (st, b) = search(&s, "/h/_search", hl("f1", json!({"match": {"f1": "fox"}}), json!({}), "unified"));
    assert_eq!(st, 400, "{b}");
    assert!(b.to_string().contains("The length of [f1] field of [1] doc of [h] index has exceeded [10] - maximum allowed to be analyzed for highlighting."), "{b}");
    // Offsets in the index: unified does not re-analyze; plain always does.
    let (st, b) = search(&s, "/h/_search", hl("f2", json!({"match": {"f2": "fox"}}), json!({}), "unified"));
    assert_eq!(st, 200, "{b}");
    assert_eq!(b["hits"]["hits"][0]["highlight"]["f2"][0], json!("The quick brown <em>fox</em> went"), "{b}");
    assert_eq!(search(&s, "/h/_search", hl("f2", json!({"match": {"f2": "fox"}}), json!({}), "plain")).0, 400);
    // `max_analyzer_offset` analyzes only a prefix instead of failing.
    let (st, b) = search(
        &s,
        "/h/_search",
        hl("f1", json!({"match": {"f1": "quick fox"}}), json!({"max_analyzer_offset": 10}), "unified"),
    );
    assert_eq!(st, 200, "{b}");
    assert_eq!(b["hits"]["hits"][0]["highlight"]["f1"][0], json!("The <em>quick</em> brown fox went"), "{b}");
    // A multi-field highlights its parent's value.
    let (st, b) = search(
        &s,
        "/h/_search",
        hl("f1.sub", json!({"match": {"f1.sub": "fox"}}), json!({"max_analyzer_offset": 100}), "unified"),
    );
    assert_eq!(st, 200, "{b}");
    assert_eq!(b["hits"]["hits"][0]["highlight"]["f1.sub"][0], json!("The quick brown <em>fox</em> went"), "{b}");
    // `matched_fields` adds the other field's terms (the stopword `the`).
    let q = json!({"multi_match": {"query": "the dog", "fields": ["st", "st.plain"]}});
    let (st, b) = search(
        &s,
        "/h/_search",
        hl("st", q, json!({"matched_fields": ["st.plain"], "max_analyzer_offset": 100}), "unified"),
    );
    assert_eq!(st, 200, "{b}");
    assert_eq!(b["hits"]["hits"][0]["highlight"]["st"][0], json!("over <em>the</em> <em>dog</em>"), "{b}");
    let (st, b) = search(&s, "/h/_search", hl("st", json!({"match": {"st": "dog"}}), json!({}), "nope"));
    assert_eq!(st, 400, "{b}");
}

#[test]
fn max_score_of_score_led_sorts_and_uppercase_regexp() {
    let dir = tempfile::tempdir().unwrap();
    let s = TestServer::start(dir.path(), &[]);
    assert_eq!(put(s.addr, "/m", r#"{"mappings":{"properties":{"t":{"type":"text"}}}}"#).status, 200);
    assert_eq!(put(s.addr, "/m/_doc/1?refresh=true", r#"{"t":"some WORDS here"}"#).status, 201);
    assert_eq!(put(s.addr, "/m/_doc/2?refresh=true", r#"{"t":"words words"}"#).status, 201);
    let q = json!({"match": {"t": "words"}});
    let (_, desc) = search(&s, "/m/_search", json!({"query": q, "sort": [{"_score": "desc"}, {"_doc": "desc"}]}));
    let first = desc["hits"]["hits"][0]["_score"].as_f64().unwrap();
    assert_eq!(desc["hits"]["max_score"].as_f64(), Some(first), "{desc}");
    let (_, asc) = search(&s, "/m/_search", json!({"query": q, "sort": [{"_score": "asc"}, {"_doc": "desc"}]}));
    assert_eq!(asc["hits"]["max_score"], Value::Null, "{asc}");
    let (_, tracked) = search(&s, "/m/_search", json!({"query": q, "sort": [{"_score": "asc"}], "track_scores": true}));
    assert!(tracked["hits"]["max_score"].is_number(), "{tracked}");

    let (st, b) =
        search(&s, "/m/_search", json!({"query": {"query_string": {"query": "/WOR.S/", "default_field": "t"}}}));
    assert_eq!(st, 200, "{b}");
    assert_eq!(b["hits"]["total"]["value"], json!(2), "{b}");
}
