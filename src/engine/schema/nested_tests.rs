//! Tests of `nested` objects: parsing, printing (`GET _mapping`), merging with OpenSearch 3.3's
//! messages (`ObjectMapper.Nested.merge`), and flattened indexing.

use serde_json::{json, Value};

use super::*;

fn mapping(v: Value) -> Mapping {
    Mapping::from_json(&v).expect("test mapping is valid")
}

fn nested_mapping() -> Mapping {
    mapping(json!({"properties": {"level1": {"type": "nested", "properties": {
        "level2": {"type": "object", "properties": {"leaf1": {"type": "text", "index": false}}},
        "n": {"type": "long"}
    }}}}))
}

#[test]
fn nested_parses_and_prints_back() {
    let m = nested_mapping();
    let o = m.object("level1").expect("object");
    assert!(o.nested);
    assert_eq!(o.type_name(), "nested");
    assert!(!m.object("level1.level2").expect("object").nested);
    let printed = json!({"properties": {"level1": {"type": "nested", "properties": {
        "level2": {"properties": {"leaf1": {"type": "text", "index": false}}},
        "n": {"type": "long"}
    }}}});
    assert_eq!(m.to_json(), printed);
    assert_eq!(mapping(printed), m);
    // An empty nested object still prints its type; include_in_* print when true.
    let m =
        mapping(json!({"properties": {"a": {"type": "nested", "include_in_parent": true, "include_in_root": false}}}));
    assert_eq!(m.to_json(), json!({"properties": {"a": {"type": "nested", "include_in_parent": true}}}));
    let a = m.object("a").expect("object");
    assert_eq!((a.include_in_parent, a.include_in_root), (Some(true), Some(false)));
    // On plain objects include_in_* are accepted and dropped, as OpenSearch does.
    let m = mapping(json!({"properties": {"a": {"type": "object", "include_in_parent": true}}}));
    assert_eq!(m.to_json(), json!({"properties": {"a": {"type": "object"}}}));
    let e = Mapping::from_json(&json!({"properties": {"a": {"type": "nested", "include_in_root": "x"}}}));
    assert!(e.is_err());
}

#[test]
fn nested_never_becomes_object_and_back() {
    let nested = nested_mapping();
    let object = mapping(json!({"properties": {"level1": {"properties": {"n": {"type": "long"}}}}}));
    let e = nested.merge(&object).expect_err("nested to object");
    assert_eq!(
        (e.kind, e.reason.as_str()),
        (crate::error::ErrorKind::IllegalArgument, "cannot change object mapping from nested to non-nested")
    );
    let e = object.merge(&nested).expect_err("object to nested");
    assert_eq!(e.reason, "cannot change object mapping from non-nested to nested");
    let e = nested
        .merge(&mapping(json!({"properties": {"level1": {"type": "nested", "include_in_parent": true}}})))
        .expect_err("include_in_parent is fixed");
    assert_eq!(
        (e.kind, e.reason.as_str()),
        (
            crate::error::ErrorKind::Mapper,
            "the [include_in_parent] parameter can't be updated on a nested object mapping"
        )
    );
    // Adding fields to a nested object keeps it nested.
    let merged = nested
        .merge(&mapping(
            json!({"properties": {"level1": {"type": "nested", "properties": {"k": {"type": "keyword"}}}}}),
        ))
        .expect("new field");
    assert!(merged.object("level1").expect("object").nested);
    assert!(merged.field_type("level1.k").is_some() && merged.field_type("level1.n").is_some());
}

#[test]
fn nested_values_are_indexed_flattened_and_dynamic_updates_merge() {
    let m = nested_mapping();
    let d = m.parse("1", json!({"level1": [{"n": 1, "new": "x"}, {"n": 2}]}).to_string().as_bytes()).expect("parses");
    let ns: Vec<&FieldValue> = d.fields.iter().filter(|f| f.name == "level1.n").map(|f| &f.value).collect();
    assert_eq!(ns, vec![&FieldValue::Long(1), &FieldValue::Long(2)]);
    // The dynamic update restates the parent as nested, so it merges cleanly.
    let update = d.mapping_update.expect("new field");
    assert!(update.object("level1").expect("object").nested);
    let merged = m.merge(&update).expect("dynamic update merges");
    assert_eq!(merged.field_type("level1.new").map(|f| f.type_name()), Some("text"));
}
