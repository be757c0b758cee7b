use std::borrow::Cow;

use proptest::prelude::*;
use serde_json::{json, Value};

use super::meta::{self, OpType};
use super::render;

fn err(line: &str) -> String {
    meta::parse(line.as_bytes(), 3).unwrap_err().reason
}

#[test]
fn fast_path_borrows_plain_strings() {
    let (op, m) =
        meta::parse(br#"{"index":{"_index":"logs","_id":"a1","routing":"r","if_seq_no":3,"if_primary_term":1}}"#, 1)
            .unwrap();
    assert_eq!(op, OpType::Index);
    assert!(matches!(m.index, Some(Cow::Borrowed("logs"))));
    assert!(matches!(m.id, Some(Cow::Borrowed("a1"))));
    assert_eq!((m.routing(), m.if_seq_no, m.if_primary_term), (Some("r"), Some(3), Some(1)));
    let (op, m) = meta::parse(br#"{"index":{"op_type":"create","_id":"q\"x"}}"#, 1).unwrap();
    assert_eq!((op, m.id.as_deref()), (OpType::Create, Some("q\"x")));
}

#[test]
fn other_shapes_go_through_the_value_path() {
    // Numbers as ids, non-integer versions (ignored), `_source` on updates, duplicate keys.
    let (_, m) = meta::parse(br#"{"delete":{"_index":"i","_id":5}}"#, 1).unwrap();
    assert_eq!(m.id.as_deref(), Some("5"));
    let (_, m) = meta::parse(br#"{"index":{"_index":"i","version":1.5}}"#, 1).unwrap();
    assert_eq!(m.version, None);
    let (op, m) = meta::parse(br#"{"update":{"_index":"i","_id":"1","_source":true}}"#, 1).unwrap();
    assert_eq!((op, m.source_filter), (OpType::Update, Some(json!(true))));
    let (_, m) = meta::parse(br#"{"index":{"_id":"a","_id":"b"}}"#, 1).unwrap();
    assert_eq!(m.id.as_deref(), Some("b"));
}

#[test]
fn malformed_lines_keep_opensearch_messages() {
    assert_eq!(err("{bad"), "Malformed action/metadata line [3], expected START_OBJECT but found [VALUE_STRING]");
    assert_eq!(
        err("[1]"),
        "Malformed action/metadata line [3], expected START_OBJECT or END_OBJECT but found [VALUE_STRING]"
    );
    assert_eq!(err("{}"), "Malformed action/metadata line [3], expected FIELD_NAME but found [END_OBJECT]");
    assert_eq!(
        err(r#"{"index":{},"create":{}}"#),
        "Malformed action/metadata line [3], expected a simple value for field [create] but found [START_OBJECT]"
    );
    assert_eq!(
        err(r#"{"upsert":{}}"#),
        "Malformed action/metadata line [3], expected field [create], [delete], [index] or [update] but found [upsert]"
    );
    assert_eq!(
        err(r#"{"index":"x"}"#),
        "Malformed action/metadata line [3], expected START_OBJECT but found [VALUE_STRING]"
    );
    assert_eq!(err(r#"{"index":{"_foo":1}}"#), "Action/metadata line [3] contains an unknown parameter [_foo]");
    assert_eq!(err(r#"{"index":{"op_type":"upsert"}}"#), "opType must be 'create' or 'index', found: [upsert]");
}

fn scalar() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i32>().prop_map(|n| json!(n)),
        (-2.0f64..2.0).prop_map(|f| json!(f)),
        "[a-z\"\\\\ ]{0,6}".prop_map(Value::String),
    ]
}

proptest! {
    /// Whatever the field values, the fast path and the `Value` path agree: a line either
    /// parses to the same metadata both ways or fails with the same message.
    #[test]
    fn fast_and_value_paths_agree(
        op in prop::sample::select(vec!["index", "create", "update", "delete"]),
        fields in prop::collection::vec((prop::sample::select(vec!["_index", "_id", "routing", "_routing", "if_seq_no", "if_primary_term", "version", "version_type", "pipeline", "require_alias", "retry_on_conflict", "op_type"]), scalar()), 0..5),
    ) {
        let mut m = serde_json::Map::new();
        for (k, v) in fields {
            m.insert(k.to_string(), v);
        }
        let line = json!({ op: Value::Object(m.clone()) });
        let text = serde_json::to_string(&line).unwrap();
        let fast = meta::parse(text.as_bytes(), 1);
        // The Value path alone: force it with a key order serde's struct can't take (a duplicate).
        let mut dup = serde_json::to_string(&m).unwrap();
        if !m.is_empty() {
            let (k, v) = m.iter().next().unwrap();
            dup.insert_str(1, &format!("{}:{},", serde_json::to_string(k).unwrap(), v));
        }
        let slow_text = format!("{{\"{op}\":{dup}}}");
        let slow = meta::parse(slow_text.as_bytes(), 1);
        match (fast, slow) {
            (Ok(a), Ok(b)) => prop_assert_eq!(a, b),
            (Err(a), Err(b)) => prop_assert_eq!(a.reason, b.reason),
            (a, b) => prop_assert!(false, "fast {:?} vs value path {:?}", a.map(|x| x.0), b.map(|x| x.0)),
        }
    }
}

#[test]
fn written_item_matches_the_value_rendering() {
    let mut out = Vec::new();
    let w = render::Written {
        op: OpType::Create,
        index: "lo\"gs",
        id: "a/b",
        version: 1,
        result: "created",
        forced_refresh: true,
        shards_total: 2,
        seq_no: 7,
        primary_term: 1,
        status: 201,
    };
    let at = render::written(&mut out, &w);
    let v: Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(
        v,
        json!({"create": {"_index": "lo\"gs", "_id": "a/b", "_version": 1, "result": "created", "forced_refresh": true,
            "_shards": {"total": 2, "successful": 1, "failed": 0}, "_seq_no": 7, "_primary_term": 1, "status": 201}})
    );
    let keys: Vec<&String> = v["create"].as_object().unwrap().keys().collect();
    assert_eq!(
        keys,
        ["_index", "_id", "_version", "result", "forced_refresh", "_shards", "_seq_no", "_primary_term", "status"]
    );
    // Replication's counts are written in place.
    let mut patched = out.clone();
    render::patch_shards(&mut patched, at, 2, 0);
    let p: Value = serde_json::from_slice(&patched).unwrap();
    assert_eq!(p["create"]["_shards"], json!({"total": 2, "successful": 2, "failed": 0}));
    let mut patched = out.clone();
    render::patch_shards(&mut patched, at, 1, 1);
    let p: Value = serde_json::from_slice(&patched).unwrap();
    assert_eq!(p["create"]["_shards"], json!({"total": 2, "successful": 1, "failed": 1}));
    let mut f = Vec::new();
    render::failed(&mut f, OpType::Delete, "i", None, 400, &json!({"type": "x"}));
    assert_eq!(
        String::from_utf8(f).unwrap(),
        r#"{"delete":{"_index":"i","_id":null,"status":400,"error":{"type":"x"}}}"#
    );
    let body = render::body(3, false, br#"{"a":1},{"b":2}"#);
    assert_eq!(
        serde_json::from_slice::<Value>(&body).unwrap(),
        json!({"took": 3, "errors": false, "items": [{"a": 1}, {"b": 2}]})
    );
}
