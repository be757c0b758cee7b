use proptest::prelude::*;
use serde_json::{json, Map, Value};

use super::*;

fn mapping() -> Mapping {
    Mapping::from_json(&json!({"properties": {
        "title": {"type": "text", "fields": {"raw": {"type": "keyword"}}},
        "tag": {"type": "keyword", "ignore_above": 5, "store": true},
        "n": {"type": "integer"},
        "f": {"type": "float"},
        "when": {"type": "date"},
        "day": {"type": "date", "format": "yyyy-MM-dd"},
        "ok": {"type": "boolean"},
        "addr": {"type": "ip"},
        "nodv": {"type": "keyword", "doc_values": false},
        "user": {"properties": {"name": {"type": "keyword"}, "age": {"type": "long"}}}
    }}))
    .unwrap()
}

fn fields(m: &Mapping, src: Value, specs: &[FieldAndFormat]) -> Map<String, Value> {
    let bytes = serde_json::to_vec(&src).unwrap();
    let parsed = ParsedSource::new(m, "1", &bytes);
    let mut out = Map::new();
    fields_api(m, &parsed, &src, specs, &mut out);
    out
}

fn ff(field: &str, format: Option<&str>) -> FieldAndFormat {
    FieldAndFormat { field: field.into(), format: format.map(str::to_string) }
}

#[test]
fn parses_strings_and_objects() {
    let v = json!(["a", {"field": "b", "format": "epoch_millis"}, {"field": "c", "format": null}]);
    assert_eq!(parse_list("fields", &v).unwrap(), vec![ff("a", None), ff("b", Some("epoch_millis")), ff("c", None)]);
    assert_eq!(parse_list("fields", &json!("x")).unwrap(), vec![ff("x", None)]);
    let e = parse_list("fields", &json!([{"field": "a", "include_unmapped": true}])).unwrap_err();
    assert_eq!((e.kind, e.status), (crate::error::ErrorKind::XContentParse, 400));
    assert!(e.reason.contains("[docvalues_field] unknown field [include_unmapped]"));
    assert!(parse_list("fields", &json!([{"format": "x"}])).is_err());
    assert!(parse_list("fields", &json!({"field": "a"})).is_err());
}

#[test]
fn expands_wildcards_and_skips_unmapped() {
    let m = mapping();
    let names: Vec<String> = expand(&m, "user.*").into_iter().map(|(p, _)| p).collect();
    assert_eq!(names, vec!["user.age", "user.name"]);
    assert_eq!(expand(&m, "title.*").len(), 1);
    assert!(expand(&m, "nope").is_empty());
    assert!(expand(&m, "user").is_empty(), "an object is not a field");
}

#[test]
fn fields_api_coerces_and_formats() {
    let m = mapping();
    let src = json!({"title": "Hello World", "tag": ["abc", "toolong"], "n": "7", "f": 1.1, "when": "2015-01-01",
        "day": "2020-02-03", "ok": "true", "addr": "::ffff:10.0.0.1", "user": {"name": "kim", "age": 3.9}});
    let all = fields(&m, src.clone(), &[ff("*", None)]);
    assert_eq!(all["title"], json!(["Hello World"]));
    assert_eq!(all["title.raw"], json!(["Hello World"]), "a multi-field gives its parent's value");
    assert_eq!(all["tag"], json!(["abc"]), "ignore_above drops long values");
    assert_eq!(all["n"], json!([7]));
    assert_eq!(all["f"], json!([1.1]));
    assert_eq!(all["when"], json!(["2015-01-01T00:00:00.000Z"]));
    assert_eq!(all["day"], json!(["2020-02-03"]));
    assert_eq!(all["ok"], json!([true]));
    assert_eq!(all["addr"], json!(["10.0.0.1"]));
    assert_eq!(all["user.name"], json!(["kim"]));
    assert_eq!(all["user.age"], json!([3]));
    let millis = fields(&m, src, &[ff("when", Some("epoch_millis"))]);
    assert_eq!(millis["when"], json!(["1420070400000"]));
}

#[test]
fn fields_api_without_values_leaves_the_field_out() {
    let m = mapping();
    let out = fields(&m, json!({"title": "x"}), &[ff("n", None), ff("unmapped", None)]);
    assert!(out.is_empty(), "{out:?}");
}

#[test]
fn stored_fields_only_stored() {
    let m = mapping();
    let src = json!({"tag": "ab", "n": 1});
    let bytes = serde_json::to_vec(&src).unwrap();
    let parsed = ParsedSource::new(&m, "1", &bytes);
    let mut out = Map::new();
    stored_fields(&m, &parsed, &src, &["*".to_string()], &mut out);
    assert_eq!(Value::Object(out), json!({"tag": ["ab"]}));
}

#[test]
fn docvalue_checks() {
    let m = mapping();
    let e = check_docvalue_fields(&m, &[ff("title", None)]).unwrap_err();
    assert!(e.reason.starts_with("Text fields are not optimised"), "{}", e.reason);
    assert!(e.reason.contains("fielddata=true on [title]"));
    let e = check_docvalue_fields(&m, &[ff("nodv", None)]).unwrap_err();
    assert_eq!(e.reason, "Can't load fielddata on [nodv] because fielddata is unsupported on fields of type [keyword]. Use doc values instead.");
    let e = check_docvalue_fields(&m, &[ff("tag", Some("x"))]).unwrap_err();
    assert_eq!(e.reason, "Field [tag] of type [keyword] does not support custom formats");
    check_docvalue_fields(
        &m,
        &[ff("when", Some("yyyy-MM-dd")), ff("n", Some("#.0")), ff("tag", Some(USE_FIELD_MAPPING)), ff("nope", None)],
    )
    .unwrap();
    let e = check_fields(&m, &[ff("n", Some("#.0"))]).unwrap_err();
    assert_eq!(e.reason, "Field [n] of type [integer] doesn't support formats.");
}

#[test]
fn decimal_formats() {
    assert_eq!(decimal_format(3.0, "#.0"), "3.0");
    assert_eq!(decimal_format(2.71628, "0.00"), "2.72");
    assert_eq!(decimal_format(1234567.0, "#,##0"), "1,234,567");
    assert_eq!(decimal_format(0.5, "#.#"), ".5");
    assert_eq!(decimal_format(-2.0, "0"), "-2");
    assert_eq!(decimal_format(2.5, "0"), "2");
    assert_eq!(decimal_format(3.5, "0"), "4");
}

proptest! {
    /// With `0.00` the printed value reads back within half a unit of the last place.
    #[test]
    fn decimal_format_two_places(x in -1.0e9f64..1.0e9) {
        let s = decimal_format(x, "0.00");
        let back: f64 = s.parse().unwrap();
        prop_assert!((back - x).abs() <= 0.005 + 1e-6, "{} -> {}", x, s);
        prop_assert_eq!(s.split('.').nth(1).map(str::len), Some(2));
    }
}
