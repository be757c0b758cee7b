//! The streaming parse (`stream.rs`) against the tree walker (`parse.rs::parse_tree`): same
//! fields in the same order, same mapping update, same error.

use proptest::prelude::*;
use serde_json::json;

use super::parse::parse_tree;
use super::{stream, Mapping};

fn mapping(v: serde_json::Value) -> Mapping {
    Mapping::from_json(&v).expect("valid mapping")
}

/// The corpora's mappings (`benches/common`) and a mapping with every case the stream hands
/// back to the tree walker, under each root `dynamic`.
fn mappings() -> Vec<Mapping> {
    let rich = json!({
        "title": {"type": "text", "fields": {"raw": {"type": "keyword", "ignore_above": 5}}},
        "body": {"type": "text", "analyzer": "simple", "index_options": "freqs", "norms": false},
        "id": {"type": "keyword"},
        "kw": {"type": "keyword", "ignore_above": 3, "doc_values": false},
        "date": {"type": "date"},
        "d2": {"type": "date_nanos", "format": "epoch_millis"},
        "n": {"type": "integer", "ignore_malformed": true},
        "size": {"type": "long", "coerce": false},
        "dbl": {"type": "float", "fields": {"k": {"type": "keyword"}}},
        "flag": {"type": "boolean", "null_value": true},
        "nulls": {"type": "keyword", "null_value": "NULL"},
        "copy": {"type": "text", "copy_to": ["all"]},
        "all": {"type": "text"},
        "geo": {"type": "geo_point"},
        "clientip": {"type": "ip"},
        "bin": {"type": "binary"},
        "obj": {"properties": {"a": {"type": "long"}}},
        "off": {"type": "object", "enabled": false}
    });
    let mut out = vec![
        mapping(json!({"dynamic": false, "properties": {
            "title": {"type": "text"}, "body": {"type": "text"}, "id": {"type": "keyword"}, "date": {"type": "date"}
        }})),
        mapping(json!({"dynamic": false, "properties": {
            "@timestamp": {"type": "date", "format": "epoch_second"}, "clientip": {"type": "ip"},
            "request": {"type": "text"}, "status": {"type": "integer"}, "size": {"type": "integer"}
        }})),
        mapping(json!({"enabled": false})),
        Mapping::new_dynamic(),
    ];
    for dynamic in [json!(true), json!(false), json!("strict")] {
        out.push(mapping(json!({"dynamic": dynamic, "properties": rich.clone()})));
    }
    out
}

const KEYS: &[&str] = &[
    "title",
    "body",
    "id",
    "kw",
    "date",
    "d2",
    "n",
    "size",
    "dbl",
    "flag",
    "nulls",
    "copy",
    "all",
    "geo",
    "clientip",
    "bin",
    "obj",
    "off",
    "obj.a",
    "a.b",
    "unmapped",
    "_id",
    "",
    " . ",
    "@timestamp",
    "request",
    "status",
    "words",
    "ti\\u0074le",
];

const STRINGS: &[&str] = &[
    "\"\"",
    "\"A dictionary\"",
    "\"with\\nescapes \\\\0\\\\ \\\"q\\\"\"",
    "\"caf\\u00e9 é\"",
    "\"2025-07-26T07:39:03Z\"",
    "\"1.5\"",
    "\"12\"",
    "\"true\"",
    "\"false\"",
    "\"10.0.0.1\"",
    "\"::1\"",
    "\"abcdef\"",
    "\"aGVsbG8=\"",
    "\"1e3\"",
    "\"POINT (1 2)\"",
    "\"ab\"",
];

const NUMBERS: &[&str] = &[
    "0",
    "-3",
    "200",
    "3.5",
    "1e3",
    "898459201",
    "18446744073709551615",
    "-9223372036854775809",
    "99999999999999999999",
    "1e400",
    "2147483648",
    "-0.0",
];

/// A JSON value as text (so that objects may repeat a key).
fn arb_value() -> impl Strategy<Value = String> {
    let leaf = prop_oneof![
        prop::sample::select(STRINGS).prop_map(str::to_string),
        prop::sample::select(NUMBERS).prop_map(str::to_string),
        prop::sample::select(&["true", "false", "null"][..]).prop_map(str::to_string),
    ];
    leaf.prop_recursive(3, 12, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(|v| format!("[{}]", v.join(","))),
            prop::collection::vec((prop::sample::select(KEYS), inner), 0..3).prop_map(|kv| object(&kv)),
        ]
    })
}

fn object(kv: &[(&str, String)]) -> String {
    let members: Vec<String> = kv.iter().map(|(k, v)| format!("\"{k}\":{v}")).collect();
    format!("{{{}}}", members.join(","))
}

/// Both parses of `doc` against `m`, which must agree.
fn check(m: &Mapping, doc: &str) {
    let tree = parse_tree(m, "x", doc.as_bytes(), Default::default());
    let both = m.parse("x", doc.as_bytes());
    assert_eq!(both, tree, "document {doc}");
    if let Some(streamed) = stream::parse_document(m, "x", doc.as_bytes(), Default::default()) {
        assert_eq!(Ok(streamed), tree, "document {doc}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]
    #[test]
    fn streaming_parse_is_the_tree_walk(
        which in 0usize..7,
        kv in prop::collection::vec((prop::sample::select(KEYS), arb_value()), 0..8),
        damage in 0usize..12,
    ) {
        let m = &mappings()[which];
        let mut doc = object(&kv);
        match damage {
            0 => doc.push_str(" x"),
            1 => { doc.pop(); }
            2 => doc = format!("[{doc}]"),
            _ => {}
        }
        check(m, &doc);
    }
}

#[test]
fn corpus_documents_take_the_streaming_path() {
    let text = r#"{"id": "gcide:0", "source": "gcide", "title": "A dictionary", "body": "A dictionary\n  many hands \\0\\ adj.\n", "category": "", "refs": [], "words": 50, "senses": 1, "date": "2025-07-26T07:39:03Z", "date_natural": false}"#;
    let logs = r#"{"@timestamp":898459201,"clientip":"88.10.180.74","request":"GET /italian/help/tausami.js HTTP/1.1","status":200,"size":3841}"#;
    let ms = mappings();
    for (m, doc) in [(&ms[0], text), (&ms[1], logs)] {
        let streamed = stream::parse_document(m, "x", doc.as_bytes(), Default::default());
        assert!(streamed.is_some(), "{doc}");
        assert_eq!(streamed.map(Ok), Some(parse_tree(m, "x", doc.as_bytes(), Default::default())));
    }
    // Arrays of mapped scalars stream too.
    let doc = r#"{"id": ["a", "b", ["c"]], "title": ["x y", null], "date": [1, "2025-01-01"]}"#;
    assert!(stream::parse_document(&ms[0], "x", doc.as_bytes(), Default::default()).is_some());
    check(&ms[0], doc);
}

#[test]
fn declined_documents_match_the_tree() {
    let ms = mappings();
    // A repeated key: the tree keeps its first place and its last value.
    let dup = r#"{"title": "a", "body": "b", "title": "c"}"#;
    assert!(stream::parse_document(&ms[0], "x", dup.as_bytes(), Default::default()).is_none());
    check(&ms[0], dup);
    // A mapping error before a syntax error: the syntax error wins, as when the tree is built first.
    let late = r#"{"date": "not a date", "body": "b" x}"#;
    assert!(stream::parse_document(&ms[0], "x", late.as_bytes(), Default::default()).is_none());
    let e = ms[0].parse("x", late.as_bytes()).expect_err("invalid JSON");
    assert_eq!(e.root_cause().kind, crate::error::ErrorKind::JsonParse);
    // Nesting past serde_json's depth limit inside a dropped value is still an error.
    let deep = format!("{{\"unmapped\": {}{}}}", "[".repeat(200), "]".repeat(200));
    assert!(ms[0].parse("x", deep.as_bytes()).is_err());
    check(&ms[0], &deep);
    // Invalid UTF-8 inside a dropped value is an error too.
    let mut bad = br#"{"unmapped": "x"#.to_vec();
    bad.extend_from_slice(&[0xff, b'"', b'}']);
    assert!(ms[0].parse("x", &bad).is_err());
    assert!(stream::parse_document(&ms[0], "x", &bad, Default::default()).is_none());
}
