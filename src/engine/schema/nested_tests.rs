//! Tests of `nested` objects: parsing, printing (`GET _mapping`), merging with OpenSearch 3.3's
//! messages (`ObjectMapper.Nested.merge`), and nested documents.

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
fn nested_objects_become_their_own_documents_and_dynamic_updates_merge() {
    let m = nested_mapping();
    let d = m.parse("1", json!({"level1": [{"n": 1, "new": "x"}, {"n": 2}]}).to_string().as_bytes()).expect("parses");
    // Nothing of the nested objects in the root document.
    assert!(d.fields.iter().all(|f| !f.name.starts_with("level1")), "{:?}", d.fields);
    let docs: Vec<(&str, Vec<&FieldValue>)> = d
        .nested
        .iter()
        .map(|n| (n.path.as_str(), n.fields.iter().filter(|f| f.name == "level1.n").map(|f| &f.value).collect()))
        .collect();
    assert_eq!(docs, vec![("level1", vec![&FieldValue::Long(1)]), ("level1", vec![&FieldValue::Long(2)])]);
    // The dynamic update restates the parent as nested, so it merges cleanly.
    let update = d.mapping_update.expect("new field");
    assert!(update.object("level1").expect("object").nested);
    let merged = m.merge(&update).expect("dynamic update merges");
    assert_eq!(merged.field_type("level1.new").map(|f| f.type_name()), Some("text"));
}

#[test]
fn deeper_nested_objects_come_first_and_includes_copy_values_up() {
    let m = mapping(json!({"properties": {"a": {"type": "nested", "include_in_root": true, "properties": {
        "x": {"type": "long"},
        "b": {"type": "nested", "include_in_parent": true, "properties": {"y": {"type": "long"}}}
    }}}}));
    let src = json!({"a": [{"x": 1, "b": [{"y": 10}, {"y": 11}]}, {"x": 2, "b": {"y": 12}}], "r": 5});
    let d = m.parse("1", src.to_string().as_bytes()).expect("parses");
    let paths: Vec<&str> = d.nested.iter().map(|n| n.path.as_str()).collect();
    assert_eq!(paths, vec!["a.b", "a.b", "a", "a.b", "a"]);
    let longs = |fs: &[IndexableField], name: &str| -> Vec<i64> {
        fs.iter()
            .filter(|f| f.name == name)
            .filter_map(|f| if let FieldValue::Long(v) = f.value { Some(v) } else { None })
            .collect()
    };
    // b's values are copied into its parent a (include_in_parent), a's into the root.
    assert_eq!(longs(&d.nested[2].fields, "a.b.y"), vec![10, 11]);
    assert_eq!(longs(&d.nested[2].fields, "a.x"), vec![1]);
    assert_eq!(longs(&d.fields, "a.x"), vec![1, 2]);
    assert_eq!(longs(&d.fields, "a.b.y"), vec![10, 11, 12]);
    assert_eq!(longs(&d.fields, "r"), vec![5]);
    // A dotted key into a nested object makes a nested document too.
    let d = m.parse("2", json!({"a.x": 3}).to_string().as_bytes()).expect("parses");
    assert_eq!(d.nested.len(), 1);
    assert_eq!(longs(&d.nested[0].fields, "a.x"), vec![3]);
}

#[test]
fn copy_to_goes_to_the_document_of_the_target_scope() {
    let m = mapping(json!({"properties": {
        "all": {"type": "keyword"},
        "n": {"type": "nested", "properties": {
            "a": {"type": "keyword", "copy_to": ["all", "n.both"]},
            "both": {"type": "keyword"}
        }}
    }}));
    let d = m.parse("1", json!({"n": [{"a": "x"}, {"a": "y"}]}).to_string().as_bytes()).expect("parses");
    let kw = |fs: &[IndexableField], name: &str| -> Vec<String> {
        fs.iter()
            .filter(|f| f.name == name)
            .filter_map(|f| if let FieldValue::Keyword(s) = &f.value { Some(s.clone()) } else { None })
            .collect()
    };
    assert_eq!(kw(&d.fields, "all"), vec!["x", "y"]);
    assert!(kw(&d.fields, "n.both").is_empty());
    assert_eq!(kw(&d.nested[0].fields, "n.both"), vec!["x"]);
    assert_eq!(kw(&d.nested[1].fields, "n.both"), vec!["y"]);
    assert!(kw(&d.nested[0].fields, "all").is_empty());
}
