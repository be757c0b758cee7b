//! Dynamic templates: parsing, printing, matching, and documents mapped through them under each
//! `dynamic` mode.

use serde_json::json;

use super::*;
use crate::engine::schema::{FieldKind, Mapping, NumberType};

fn mapping(v: Value) -> Mapping {
    Mapping::from_json(&v).expect("valid mapping")
}

fn templates() -> Value {
    json!([
        {"strings": {"match": "s_*", "match_mapping_type": "string", "mapping": {"type": "keyword"}}},
        {"objects": {"match": "o_*", "match_mapping_type": "object", "mapping": {"type": "object", "properties": {"k": {"type": "keyword"}}}}},
        {"ints": {"match": "i_*", "match_mapping_type": "integer", "mapping": {"type": "integer"}}},
        {"named": {"path_match": "p.*", "mapping": {"type": "{dynamic_type}", "meta": {"from": "{name}"}}}},
        {"dates": {"match_mapping_type": "date", "mapping": {"type": "date", "format": "yyyy/MM/dd||epoch_millis"}}}
    ])
}

#[test]
fn simple_patterns() {
    assert!(simple_match("*", "anything"));
    assert!(simple_match("a*", "abc"));
    assert!(simple_match("*c", "abc"));
    assert!(simple_match("a*c*e", "abcde"));
    assert!(!simple_match("a*c*e", "abcd"));
    assert!(simple_match("abc", "abc"));
    assert!(!simple_match("ab*ba", "aba"));
}

#[test]
fn parses_prints_and_validates() {
    let m = mapping(json!({"dynamic_templates": templates()}));
    let printed = m.to_json();
    assert_eq!(
        printed["dynamic_templates"][0],
        json!({"strings": {"match": "s_*", "match_mapping_type": "string", "mapping": {"type": "keyword"}}})
    );
    assert_eq!(printed["dynamic_templates"].as_array().map(Vec::len), Some(5));
    // Round trip.
    assert_eq!(Mapping::from_json(&printed).unwrap(), m);
    let bad = |t: Value| Mapping::from_json(&json!({"dynamic_templates": t})).expect_err("invalid");
    assert_eq!(bad(json!({"a": {}})).reason, "Dynamic template syntax error. An array of named objects is expected.");
    assert_eq!(
        bad(json!([{"a": {"match": "x", "mapping": {}, "nope": 1}}])).reason,
        "Illegal dynamic template parameter: [nope]"
    );
    assert_eq!(bad(json!([{"a": {"match": "x"}}])).reason, "template must have mapping set");
    assert!(bad(json!([{"a": {"mapping": {"type": "keyword"}}}]))
        .reason
        .starts_with("template must have match, path_match or match_mapping_type set"));
    assert!(bad(json!([{"a": {"match_mapping_type": "str", "mapping": {}}}]))
        .reason
        .starts_with("No field type matched on [str]"));
    let e = bad(json!([{"a": {"match": "x", "mapping": {"type": "nope"}}}]));
    assert!(e.reason.starts_with("dynamic template [a] has invalid content"), "{}", e.reason);
}

#[test]
fn put_mapping_replaces_by_name_and_appends() {
    let base = mapping(
        json!({"dynamic_templates": [{"a": {"match": "a*", "mapping": {"type": "keyword"}}}, {"b": {"match": "b*", "mapping": {"type": "long"}}}]}),
    );
    let upd = mapping(
        json!({"dynamic_templates": [{"b": {"match": "b*", "mapping": {"type": "double"}}}, {"c": {"match": "c*", "mapping": {"type": "ip"}}}]}),
    );
    let merged = base.merge(&upd).unwrap().to_json();
    let names: Vec<String> = merged["dynamic_templates"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t.as_object().unwrap().keys().next().unwrap().clone())
        .collect();
    assert_eq!(names, ["a", "b", "c"]);
    assert_eq!(merged["dynamic_templates"][1]["b"]["mapping"]["type"], "double");
}

fn parsed(m: &Mapping, doc: Value) -> Result<Value, MappingError> {
    let d = m.parse("1", doc.to_string().as_bytes())?;
    Ok(d.mapping_update.map(|u| u.to_json()).unwrap_or(json!({})))
}

#[test]
fn templates_map_new_fields_first_match_wins() {
    let m = mapping(json!({"dynamic_templates": templates()}));
    let u = parsed(
        &m,
        json!({"s_a": "x", "o_b": {"k": "v", "z": 1}, "i_c": 5, "p": {"q": 1.5}, "d": "2020/01/02", "plain": "text"}),
    )
    .unwrap();
    let props = &u["properties"];
    assert_eq!(props["s_a"], json!({"type": "keyword"}));
    assert_eq!(props["o_b"]["properties"]["k"], json!({"type": "keyword"}));
    assert_eq!(props["o_b"]["properties"]["z"], json!({"type": "long"}));
    assert_eq!(props["i_c"], json!({"type": "integer"}));
    // `{dynamic_type}` is the detected type's default (`float` for a fraction), `{name}` the name.
    assert_eq!(props["p"]["properties"]["q"], json!({"type": "float", "meta": {"from": "q"}}));
    assert_eq!(props["d"], json!({"type": "date", "format": "yyyy/MM/dd||epoch_millis"}));
    assert_eq!(props["plain"]["type"], "text");
    assert_eq!(props["plain"]["fields"]["keyword"]["type"], "keyword");
    // A fraction does not match an integer template; a name pattern must match.
    let u = parsed(&m, json!({"i_d": 1.5, "x_s": "v"})).unwrap();
    assert_eq!(u["properties"]["i_d"]["type"], "float");
    assert_eq!(u["properties"]["x_s"]["type"], "text");
}

#[test]
fn allow_templates_modes() {
    let strict = mapping(
        json!({"dynamic": "strict_allow_templates", "dynamic_templates": templates(), "properties": {"known": {"type": "text"}}}),
    );
    let u = parsed(&strict, json!({"s_a": "x", "known": "y"})).unwrap();
    assert_eq!(u["properties"]["s_a"]["type"], "keyword");
    let e = parsed(&strict, json!({"s_a": "x", "other": "y"})).unwrap_err();
    assert_eq!(e.kind, crate::error::ErrorKind::StrictDynamicMapping);
    assert_eq!(
        e.reason,
        "mapping set to strict_allow_templates, dynamic introduction of [other] within [_doc] is not allowed"
    );
    let e = parsed(&strict, json!({"o_x": {"k": "v", "extra": 1}})).unwrap_err();
    assert_eq!(
        e.reason,
        "mapping set to strict_allow_templates, dynamic introduction of [extra] within [o_x] is not allowed"
    );

    let lenient = mapping(json!({"dynamic": "false_allow_templates", "dynamic_templates": templates()}));
    let u = parsed(&lenient, json!({"s_a": "x", "other": "y", "i_n": [1, 2]})).unwrap();
    let props = u["properties"].as_object().unwrap();
    assert_eq!(props.keys().collect::<Vec<_>>(), ["i_n", "s_a"]);
    let d = lenient.parse("1", br#"{"other": "y", "s_b": "z"}"#).unwrap();
    assert!(d.fields.iter().all(|f| f.name != "other"));
    assert!(d.fields.iter().any(|f| f.name == "s_b"));
}

#[test]
fn regex_patterns_match_whole_names() {
    let m = mapping(
        json!({"dynamic_templates": [{"r": {"match": "^num_\\d+$", "match_pattern": "regex", "mapping": {"type": "double"}}}]}),
    );
    let u = parsed(&m, json!({"num_12": 1, "num_x": 1})).unwrap();
    assert_eq!(u["properties"]["num_12"]["type"], "double");
    assert_eq!(u["properties"]["num_x"]["type"], "long");
    let ft = m.merge(&Mapping::from_json(&u).unwrap()).unwrap();
    assert!(matches!(ft.field_type("num_12").map(|f| &f.kind), Some(FieldKind::Number(NumberType::Double))));
}
