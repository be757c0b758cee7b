//! `_analyze` over real HTTP: a field's `position_increment_gap` between the values of a text
//! array, the token limit's status and message, `mapping` char filter rules in Lucene's syntax,
//! and filters that name other filters of the index.

mod common;

use common::http::{send, TestServer};
use serde_json::{json, Value};

fn call(s: &TestServer, method: &str, path: &str, body: Value) -> (u16, Value) {
    let b = body.to_string();
    let r = send(s.addr, method, path, Some(b.as_bytes()), &[]);
    (r.status, serde_json::from_slice(&r.body).unwrap_or(Value::Null))
}

fn tokens(body: &Value) -> Vec<(String, i64)> {
    body["tokens"]
        .as_array()
        .map(|t| {
            t.iter()
                .map(|t| (t["token"].as_str().unwrap_or("").to_owned(), t["position"].as_i64().unwrap_or(-1)))
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn analyze_defects_and_referring_filters() {
    let dir = tempfile::tempdir().expect("temp dir");
    let s = TestServer::start(dir.path(), &[]);

    let settings = json!({
        "settings": {
            "index.analyze.max_token_count": 3,
            "analysis": {
                "char_filter": {"marks": {"type": "mapping", "mappings": [
                    "# a comment line",
                    "",
                    "\\u0041 => a",
                    "\\\\ => slash",
                    "\\# => hash",
                    "x => \\t"
                ]}},
                "filter": {
                    "upper": {"type": "uppercase"},
                    "both": {"type": "multiplexer", "filters": ["upper", "reverse, upper"]}
                }
            }
        },
        "mappings": {"properties": {
            "gap10": {"type": "text", "analyzer": "simple", "position_increment_gap": 10},
            "plain": {"type": "text", "analyzer": "simple"}
        }}
    });
    let (status, body) = call(&s, "PUT", "/idx", settings);
    assert_eq!(status, 200, "{body}");

    // The mapping's gap, not the analyzer's 100, separates the values.
    let (status, body) = call(&s, "POST", "/idx/_analyze", json!({"field": "gap10", "text": ["one two", "three"]}));
    assert_eq!(status, 200, "{body}");
    assert_eq!(tokens(&body), vec![("one".into(), 0), ("two".into(), 1), ("three".into(), 12)]);
    let (_, body) = call(&s, "POST", "/idx/_analyze", json!({"field": "plain", "text": ["one two", "three"]}));
    assert_eq!(tokens(&body), vec![("one".into(), 0), ("two".into(), 1), ("three".into(), 102)]);

    // Over the limit: Java's IllegalStateException, a 500, with OpenSearch's message.
    let (status, body) =
        call(&s, "POST", "/idx/_analyze", json!({"analyzer": "standard", "text": "one two three four"}));
    assert_eq!(status, 500, "{body}");
    assert_eq!(body["error"]["type"], json!("illegal_state_exception"));
    assert_eq!(
        body["error"]["reason"],
        json!("The number of tokens produced by calling _analyze has exceeded the allowed maximum of [3]. This limit can be set by changing the [index.analyze.max_token_count] index level setting.")
    );

    // Comments and blank lines skipped, escapes resolved.
    let (status, body) =
        call(&s, "POST", "/idx/_analyze", json!({"tokenizer": "keyword", "char_filter": ["marks"], "text": "A\\#x"}));
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["tokens"][0]["token"], json!("aslashhash\t"));

    // A bad escape names its line.
    let (status, body) = call(
        &s,
        "POST",
        "/_analyze",
        json!({"tokenizer": "keyword", "char_filter": [{"type": "mapping", "mappings": ["a => b", "\\u00 => c"]}], "text": "a"}),
    );
    assert_eq!(status, 400, "{body}");
    assert_eq!(body["error"]["reason"], json!("Line [2]: Invalid escaped char in [\\u00]"));

    // A multiplexer over the index's own filters, one of them a chain.
    let (status, body) =
        call(&s, "POST", "/idx/_analyze", json!({"tokenizer": "whitespace", "filter": ["both"], "text": "ab"}));
    assert_eq!(status, 200, "{body}");
    assert_eq!(tokens(&body), vec![("ab".into(), 0), ("AB".into(), 0), ("BA".into(), 0)]);
    let (status, body) = call(
        &s,
        "PUT",
        "/bad",
        json!({"settings": {"analysis": {"filter": {"m": {"type": "multiplexer", "filters": ["nope"]}}}}}),
    );
    assert_eq!(status, 400, "{body}");
    assert_eq!(body["error"]["reason"], json!("Multiplexing filter [m] refers to undefined tokenfilter [nope]"));

    s.stop();
}
