//! Tests of the schema module. Expected messages and mapping JSON follow OpenSearch 3.3
//! (messages from its mappers; dynamic mapping from https://docs.opensearch.org/latest/mappings/
//! "Dynamic mapping types" and the `ignore_above` page: dynamic strings get a `keyword` sub-field
//! with `ignore_above: 256`).

use proptest::prelude::*;
use serde_json::{json, Value};

use super::*;

fn mapping(v: Value) -> Mapping {
    Mapping::from_json(&v).expect("test mapping is valid")
}

fn parse(m: &Mapping, doc: Value) -> Result<ParsedDocument, MappingError> {
    m.parse("1", doc.to_string().as_bytes())
}

/// Values of field `name` (in order).
fn values(d: &ParsedDocument, name: &str) -> Vec<FieldValue> {
    d.fields.iter().filter(|f| f.name == name).map(|f| f.value.clone()).collect()
}

fn one(m: &Mapping, field: &str, v: Value) -> Vec<FieldValue> {
    let d = parse(m, json!({ field: v })).expect("document parses");
    values(&d, field)
}

/// The root-cause reason of parsing `{field: v}`.
fn cause(m: &Mapping, field: &str, v: Value) -> String {
    let e = parse(m, json!({ field: v })).expect_err("document must be rejected");
    e.root_cause().reason.clone()
}

fn typed(t: &str) -> Mapping {
    mapping(json!({"properties": {"f": {"type": t}}}))
}

fn kw(s: &str) -> FieldValue {
    FieldValue::Keyword(s.into())
}

// ---------------------------------------------------------------- dynamic mapping

#[test]
fn dynamic_mapping_matches_opensearch_get_mapping() {
    let m = Mapping::new_dynamic();
    let d = parse(
        &m,
        json!({
            "title": "Hello", "count": 5, "price": 1.5, "active": true,
            "user": {"name": "x"}, "created": "2015-01-01T12:10:30Z", "slash": "2015/09/02",
            "empty": [], "nothing": null, "two_colons": "12:30:00"
        }),
    )
    .expect("parses");
    let update = d.mapping_update.clone().expect("new fields");
    let text_kw = json!({"type": "text", "fields": {"keyword": {"type": "keyword", "ignore_above": 256}}});
    assert_eq!(
        update.to_json(),
        json!({"properties": {
            "active": {"type": "boolean"},
            "count": {"type": "long"},
            "created": {"type": "date"},
            "price": {"type": "float"},
            "slash": {"type": "date", "format": "yyyy/MM/dd HH:mm:ss||yyyy/MM/dd||epoch_millis"},
            "title": text_kw,
            "two_colons": text_kw,
            "user": {"properties": {"name": text_kw}}
        }})
    );
    assert_eq!(values(&d, "created"), vec![FieldValue::Long(1_420_114_230_000)]);
    assert_eq!(values(&d, "slash"), vec![FieldValue::Long(1_441_152_000_000)]);
    assert_eq!(values(&d, "count"), vec![FieldValue::Long(5)]);
    assert_eq!(values(&d, "price"), vec![FieldValue::Double(1.5)]);
    assert_eq!(values(&d, "user.name.keyword"), vec![kw("x")]);
    assert_eq!(d.fields[0], IndexableField { name: "_id".into(), value: kw("1"), index: true, doc_values: false });

    // Merged, the same document adds nothing new.
    let merged = m.merge(&update).expect("merge");
    let again = parse(&merged, json!({"title": "Hi", "user": {"name": "y"}})).expect("parses");
    assert!(again.mapping_update.is_none());
    assert_eq!(merged.field_type("title.keyword").map(|f| f.type_name()), Some("keyword"));
    assert_eq!(merged.field_type("user.name").map(|f| f.type_name()), Some("text"));
    assert!(merged.field_type("user").is_none());
}

#[test]
fn dynamic_array_takes_first_non_null_value_and_later_values_use_it() {
    let m = Mapping::new_dynamic();
    let d = parse(&m, json!({"a": [null, 1, "2", [3]]})).expect("parses");
    assert_eq!(values(&d, "a"), vec![FieldValue::Long(1), FieldValue::Long(2), FieldValue::Long(3)]);
    let e = parse(&m, json!({"a": [1, "x"]})).expect_err("x is not a long");
    assert_eq!(
        e.reason,
        "failed to parse field [a] of type [long] in document with id '1'. Preview of field's value: 'x'"
    );
    assert_eq!(e.root_cause().kind, crate::error::ErrorKind::NumberFormat);
    assert_eq!(e.root_cause().reason, "For input string: \"x\"");
}

#[test]
fn dynamic_long_text_is_indexed_as_text_but_not_as_keyword() {
    let long = "x".repeat(257);
    let d = parse(&Mapping::new_dynamic(), json!({"t": long})).expect("parses");
    assert_eq!(values(&d, "t").len(), 1);
    assert!(values(&d, "t.keyword").is_empty());
}

#[test]
fn numeric_detection_and_date_detection_settings() {
    let m = mapping(json!({"numeric_detection": true, "date_detection": false}));
    let d = parse(&m, json!({"i": "42", "f": "1.5", "d": "2015-01-01T00:00:00Z"})).expect("parses");
    let u = d.mapping_update.expect("update").to_json();
    assert_eq!(u["properties"]["i"], json!({"type": "long"}));
    assert_eq!(u["properties"]["f"], json!({"type": "float"}));
    assert_eq!(u["properties"]["d"]["type"], json!("text"));
    assert_eq!(m.to_json(), json!({"date_detection": false, "numeric_detection": true}));

    let m = mapping(json!({"dynamic_date_formats": ["MM/dd/yyyy"]}));
    let d = parse(&m, json!({"d": "12/31/2020"})).expect("parses");
    assert_eq!(
        d.mapping_update.expect("update").to_json()["properties"]["d"],
        json!({"type": "date", "format": "MM/dd/yyyy"})
    );
}

#[test]
fn strict_and_false_dynamic() {
    let m = mapping(json!({"dynamic": "strict", "properties": {
        "a": {"type": "keyword"},
        "loose": {"type": "object", "dynamic": true},
        "quiet": {"dynamic": false, "properties": {"k": {"type": "keyword"}}}
    }}));
    let e = parse(&m, json!({"b": 1})).expect_err("strict");
    assert_eq!(e.kind, crate::error::ErrorKind::StrictDynamicMapping);
    assert_eq!(e.reason, "mapping set to strict, dynamic introduction of [b] within [_doc] is not allowed");
    let d = parse(&m, json!({"loose": {"x": 1}, "quiet": {"k": "v", "y": 2}})).expect("parses");
    assert_eq!(values(&d, "loose.x"), vec![FieldValue::Long(1)]);
    assert_eq!(values(&d, "quiet.k"), vec![kw("v")]);
    assert!(values(&d, "quiet.y").is_empty());
    let u = d.mapping_update.expect("update").to_json();
    assert_eq!(u, json!({"properties": {"loose": {"dynamic": "true", "properties": {"x": {"type": "long"}}}}}));

    let m = mapping(json!({"properties": {"o": {"dynamic": "strict", "properties": {}}}}));
    let e = parse(&m, json!({"o": {"z": 1}})).expect_err("strict object");
    assert_eq!(e.reason, "mapping set to strict, dynamic introduction of [z] within [o] is not allowed");
    // Null values introduce nothing, so they are allowed even under strict.
    assert!(parse(&m, json!({"o": {"z": null}})).is_ok());
}

#[test]
fn metadata_fields_are_refused_in_documents() {
    for name in ["_id", "_routing", "_source", "_seq_no", "_primary_term", "_version"] {
        let e = parse(&Mapping::new_dynamic(), json!({ name: "x" })).expect_err("metadata field");
        assert_eq!(e.kind, crate::error::ErrorKind::MapperParsing);
        assert_eq!(
            e.reason,
            format!("Field [{name}] is a metadata field and cannot be added inside a document. Use the index API request parameters.")
        );
    }
    // Not at the root, such names are ordinary.
    assert!(parse(&Mapping::new_dynamic(), json!({"o": {"_id": "x"}})).is_ok());
}

#[test]
fn dotted_keys_are_objects() {
    let m = Mapping::new_dynamic();
    let d = parse(&m, json!({"a.b": 1, "a": {"c": 2}})).expect("parses");
    assert_eq!(values(&d, "a.b"), vec![FieldValue::Long(1)]);
    assert_eq!(values(&d, "a.c"), vec![FieldValue::Long(2)]);
    let u = d.mapping_update.expect("update").to_json();
    assert_eq!(u, json!({"properties": {"a": {"properties": {"b": {"type": "long"}, "c": {"type": "long"}}}}}));
    assert_eq!(
        parse(&m, json!({"a.": 1})).expect_err("ambiguous").root_cause().reason,
        "object field starting or ending with a [.] makes object resolution ambiguous: [a.]"
    );
    assert_eq!(
        parse(&m, json!({"": 1})).expect_err("empty").root_cause().reason,
        "field name cannot be an empty string"
    );
    for doc in [json!({".": 1}), json!({"..": 1}), json!({"o": {".": 1}})] {
        let e = parse(&m, doc).expect_err("only dots");
        assert_eq!(
            (e.reason.as_str(), e.root_cause().reason.as_str()),
            ("failed to parse", "field name cannot contain only the character [.]")
        );
    }
    let t = typed("text");
    let e = parse(&t, json!({"f.x": "v"})).expect_err("text is not an object");
    assert_eq!(
        e.reason,
        "Could not dynamically add mapping for field [f.x]. Existing mapping for [f] must be of type object but found [text]."
    );
    // The message names the key as written and the full path of the field in the way.
    let m = mapping(json!({"properties": {"k": {"properties": {"app": {"type": "keyword"}}}}}));
    let e = parse(&m, json!({"k": {"app.kubernetes.io/name": "x"}})).expect_err("keyword is not an object");
    assert_eq!(
        e.reason,
        "Could not dynamically add mapping for field [app.kubernetes.io/name]. Existing mapping for [k.app] must be of type object but found [keyword]."
    );
}

// ---------------------------------------------------------------- objects

#[test]
fn objects_arrays_and_enabled_false() {
    let m = mapping(json!({"properties": {
        "user": {"properties": {"name": {"type": "keyword"}}},
        "blob": {"type": "object", "enabled": false}
    }}));
    let d = parse(&m, json!({"user": [{"name": "a"}, {"name": ["b", "c"]}], "blob": {"anything": [1, {"x": 2}]}}))
        .expect("parses");
    assert_eq!(values(&d, "user.name"), vec![kw("a"), kw("b"), kw("c")]);
    assert_eq!(d.fields.len(), 4, "_id + three names; nothing from the disabled object");
    assert!(d.mapping_update.is_none());
    let e = parse(&m, json!({"user": "x"})).expect_err("concrete value for object");
    assert_eq!(e.reason, "object mapping for [user] tried to parse field [user] as object, but found a concrete value");
    assert_eq!(m.to_json()["properties"]["blob"], json!({"type": "object", "enabled": false}));
}

#[test]
fn invalid_json_and_non_object_source() {
    let m = Mapping::new_dynamic();
    let e = m.parse("1", b"{\"a\": ").expect_err("bad json");
    assert_eq!((e.kind, e.reason.as_str()), (crate::error::ErrorKind::MapperParsing, "failed to parse"));
    assert_eq!(e.root_cause().kind, crate::error::ErrorKind::JsonParse);
    let e = m.parse("1", b"[1]").expect_err("array");
    assert_eq!(e.root_cause().reason, "Malformed content, must start with an object");
}

// ---------------------------------------------------------------- numbers

#[test]
fn integer_types_range_checks() {
    let cases = [
        ("integer", json!(3_000_000_000i64), "Value [3000000000] is out of range for an integer"),
        ("integer", json!("3000000000"), "Value [3000000000] is out of range for an integer"),
        ("short", json!(40000), "Value [40000] is out of range for a short"),
        ("byte", json!(128), "Value [128] is out of range for a byte"),
        ("byte", json!(-129), "Value [-129] is out of range for a byte"),
        ("long", json!(9_223_372_036_854_775_808u64), "Value [9223372036854775808] is out of range for a long"),
        ("long", json!("9223372036854775808"), "Value [9223372036854775808] is out of range for a long"),
        ("unsigned_long", json!(-1), "Value [-1] is out of range for an unsigned long"),
    ];
    for (t, v, msg) in cases {
        let m = typed(t);
        let e = parse(&m, json!({"f": v.clone()})).expect_err("out of range");
        assert_eq!(e.kind, crate::error::ErrorKind::MapperParsing, "{t} {v}");
        assert!(
            e.reason.starts_with(&format!("failed to parse field [f] of type [{t}] in document with id '1'")),
            "{}",
            e.reason
        );
        assert_eq!(e.root_cause().reason, msg, "{t} {v}");
        assert_eq!(e.root_cause().kind, crate::error::ErrorKind::IllegalArgument);
    }
    assert_eq!(one(&typed("byte"), "f", json!(127)), vec![FieldValue::Long(127)]);
    assert_eq!(one(&typed("short"), "f", json!(-32768)), vec![FieldValue::Long(-32768)]);
    assert_eq!(one(&typed("long"), "f", json!(i64::MIN)), vec![FieldValue::Long(i64::MIN)]);
    assert_eq!(one(&typed("unsigned_long"), "f", json!(u64::MAX)), vec![FieldValue::UnsignedLong(u64::MAX)]);
    // Decimal strings truncate exactly (no rounding through a double).
    assert_eq!(
        one(&typed("unsigned_long"), "f", json!("10223372036854775807.23")),
        vec![FieldValue::UnsignedLong(10223372036854775807)]
    );
    assert_eq!(one(&typed("long"), "f", json!("-9223372036854775807.9")), vec![FieldValue::Long(-9223372036854775807)]);
    assert_eq!(one(&typed("long"), "f", json!("-.5")), vec![FieldValue::Long(0)]);
    assert_eq!(
        one(&typed("unsigned_long"), "f", json!("18446744073709551615")),
        vec![FieldValue::UnsignedLong(u64::MAX)]
    );
}

#[test]
fn coercion_of_strings_and_fractions() {
    let m = typed("integer");
    assert_eq!(one(&m, "f", json!("12")), vec![FieldValue::Long(12)]);
    assert_eq!(one(&m, "f", json!(" 12 ")), vec![FieldValue::Long(12)]);
    assert_eq!(one(&m, "f", json!(12.7)), vec![FieldValue::Long(12)]);
    assert_eq!(one(&m, "f", json!(-12.7)), vec![FieldValue::Long(-12)]);
    assert_eq!(one(&m, "f", json!("12.7")), vec![FieldValue::Long(12)]);
    assert_eq!(one(&m, "f", json!("1e3")), vec![FieldValue::Long(1000)]);
    assert_eq!(one(&typed("long"), "f", json!("12.9")), vec![FieldValue::Long(12)]);
    assert!(one(&m, "f", json!("")).is_empty(), "empty string is null");
    assert_eq!(cause(&m, "f", json!("abc")), "For input string: \"abc\"");
    assert_eq!(
        cause(&m, "f", json!(true)),
        "Current token (VALUE_TRUE) not numeric, can not use numeric value accessors"
    );

    let strict = mapping(json!({"properties": {
        "i": {"type": "integer", "coerce": false}, "l": {"type": "long", "coerce": false},
        "d": {"type": "double", "coerce": false}
    }}));
    assert_eq!(cause(&strict, "i", json!("12")), "Integer value passed as String");
    assert_eq!(cause(&strict, "l", json!("12")), "Long value passed as String");
    assert_eq!(cause(&strict, "d", json!("1.5")), "Double value passed as String");
    assert_eq!(cause(&strict, "i", json!(12.5)), "12.5 cannot be converted to Integer without data loss");
    assert_eq!(one(&strict, "i", json!(12.0)), vec![FieldValue::Long(12)]);
}

#[test]
fn floating_types_round_to_their_precision() {
    assert_eq!(one(&typed("double"), "f", json!(0.1)), vec![FieldValue::Double(0.1)]);
    assert_eq!(one(&typed("float"), "f", json!(0.1)), vec![FieldValue::Double(f64::from(0.1f32))]);
    assert_eq!(one(&typed("half_float"), "f", json!(0.1)), vec![FieldValue::Double(0.0999755859375)]);
    assert_eq!(one(&typed("half_float"), "f", json!(1.0)), vec![FieldValue::Double(1.0)]);
    assert_eq!(one(&typed("half_float"), "f", json!(65504.0)), vec![FieldValue::Double(65504.0)]);
    assert_eq!(one(&typed("float"), "f", json!("2.5")), vec![FieldValue::Double(2.5)]);
    assert_eq!(cause(&typed("double"), "f", json!("NaN")), "[double] supports only finite values, but got [NaN]");
    assert_eq!(cause(&typed("float"), "f", json!(1e39)), "[float] supports only finite values, but got [Infinity]");
    let sf = mapping(json!({"properties": {"f": {"type": "scaled_float", "scaling_factor": 100}}}));
    assert_eq!(one(&sf, "f", json!(1.234)), vec![FieldValue::Long(123)]);
    assert_eq!(one(&sf, "f", json!(1.235)), vec![FieldValue::Long(124)]);
    assert_eq!(one(&sf, "f", json!("-1.5")), vec![FieldValue::Long(-150)]);
}

#[test]
fn f16_rounding_matches_ieee_half() {
    use super::values::f16_round;
    assert_eq!(f16_round(0.1), 0.099_975_586);
    assert_eq!(f16_round(2049.0), 2048.0, "tie to even");
    assert_eq!(f16_round(2051.0), 2052.0, "tie to even");
    assert_eq!(f16_round(1e-8), 0.0);
    assert_eq!(f16_round(6.0e-8), 2f32.powi(-24), "smallest subnormal");
    assert_eq!(f16_round(70000.0), f32::INFINITY);
    assert_eq!(f16_round(-3.3), -3.300_781_3);
}

#[test]
fn null_value_and_ignore_malformed() {
    let m = mapping(json!({"properties": {
        "n": {"type": "integer", "null_value": 7},
        "k": {"type": "keyword", "null_value": "NULL"},
        "b": {"type": "boolean", "null_value": true},
        "i": {"type": "integer", "ignore_malformed": true},
        "ip": {"type": "ip", "ignore_malformed": true}
    }}));
    let d = parse(&m, json!({"n": null, "k": [null, "a"], "b": "", "i": "abc", "ip": "nope"})).expect("parses");
    assert_eq!(values(&d, "n"), vec![FieldValue::Long(7)]);
    assert_eq!(values(&d, "k"), vec![kw("NULL"), kw("a")]);
    assert_eq!(values(&d, "b"), vec![FieldValue::Bool(true)]);
    assert!(values(&d, "i").is_empty());
    assert_eq!(values(&d, "_ignored"), vec![kw("i"), kw("ip")]);
    // ignore_malformed does not hide an object given to a leaf field.
    assert!(parse(&m, json!({"i": {"x": 1}})).is_err());
}

// ---------------------------------------------------------------- strings, booleans, ip, binary

#[test]
fn keyword_parameters() {
    let m = mapping(
        json!({"properties": {"k": {"type": "keyword", "ignore_above": 3, "doc_values": false, "index": false}}}),
    );
    let d = parse(&m, json!({"k": ["abc", "abcd", 12, true, "ééé"]})).expect("parses");
    assert_eq!(values(&d, "k"), vec![kw("abc"), kw("12"), kw("ééé")]);
    let f = d.fields.iter().find(|f| f.name == "k").expect("k");
    assert!(!f.index && !f.doc_values);
    let e = parse(&typed("keyword"), json!({"f": {"a": 1}})).expect_err("object");
    assert_eq!(
        e.reason,
        "failed to parse field [f] of type [keyword] in document with id '1'. Preview of field's value: '{a=1}'"
    );
    assert_eq!(
        (e.root_cause().kind, e.root_cause().reason.as_str()),
        (crate::error::ErrorKind::IllegalState, "Can't get text on a START_OBJECT")
    );
}

#[test]
fn text_parameters_and_multi_fields() {
    let m = mapping(json!({"properties": {"t": {
        "type": "text", "analyzer": "english", "index_options": "offsets", "norms": false,
        "position_increment_gap": 10, "fields": {"raw": {"type": "keyword"}, "len": {"type": "integer", "ignore_malformed": true}}
    }}}));
    let d = parse(&m, json!({"t": ["Hello world", "42"]})).expect("parses");
    assert_eq!(
        values(&d, "t")[0],
        FieldValue::Text {
            text: "Hello world".into(),
            analyzer: "english".into(),
            freqs: true,
            positions: true,
            offsets: true,
            norms: false,
            position_increment_gap: 10
        }
    );
    assert_eq!(values(&d, "t.raw"), vec![kw("Hello world"), kw("42")]);
    assert_eq!(values(&d, "t.len"), vec![FieldValue::Long(42)]);
    let t = d.fields.iter().find(|f| f.name == "t").expect("t");
    assert!(t.index && !t.doc_values);
    let d = parse(&typed("text"), json!({"f": "x"})).expect("parses");
    assert!(
        matches!(&values(&d, "f")[0], FieldValue::Text { analyzer, positions: true, offsets: false, norms: true, position_increment_gap: 100, .. } if analyzer == "default")
    );
}

#[test]
fn booleans() {
    let m = typed("boolean");
    assert_eq!(
        one(&m, "f", json!([true, "false", "true"])),
        vec![FieldValue::Bool(true), FieldValue::Bool(false), FieldValue::Bool(true)]
    );
    assert!(one(&m, "f", json!("")).is_empty());
    assert_eq!(cause(&m, "f", json!("yes")), "Failed to parse value [yes] as only [true] or [false] are allowed.");
    assert_eq!(cause(&m, "f", json!(1)), "Current token (VALUE_NUMBER_INT) not of boolean type");
}

#[test]
fn ip_values() {
    let m = typed("ip");
    assert_eq!(one(&m, "f", json!("192.168.0.1")), vec![FieldValue::Ip(0xffff_c0a8_0001)]);
    assert_eq!(one(&m, "f", json!("::1")), vec![FieldValue::Ip(1)]);
    assert_eq!(cause(&m, "f", json!("192.168.0.256")), "'192.168.0.256' is not an IP string literal.");
    assert_eq!(cause(&m, "f", json!("01.1.1.1")), "'01.1.1.1' is not an IP string literal.");
    assert_eq!(ip::format_ip(0xffff_c0a8_0001), "192.168.0.1");
    assert_eq!(ip::format_ip(ip::parse_ip("2001:DB8:0:0:0:0:0:1").expect("valid")), "2001:db8::1");
}

#[test]
fn binary_values() {
    let m = mapping(json!({"properties": {"b": {"type": "binary", "doc_values": true}, "n": {"type": "binary"}}}));
    let d = parse(&m, json!({"b": "aGVsbG8=", "n": "aGVsbG8"})).expect("parses");
    assert_eq!(values(&d, "b"), vec![FieldValue::Binary(b"hello".to_vec())]);
    // No doc values, not indexed: the value is only recorded as present (`_field_names`).
    let n = d.fields.iter().find(|f| f.name == "n").expect("n");
    assert!(!n.index && !n.doc_values);
    let f = d.fields.iter().find(|f| f.name == "b").expect("b");
    assert!(!f.index && f.doc_values);
    assert!(cause(&m, "b", json!("@@@")).starts_with("Failed to decode VALUE_STRING as base64"));
}

// ---------------------------------------------------------------- dates

#[test]
fn date_default_format() {
    let f = date::DEFAULT_FORMAT;
    let p = |s| date::parse_date(s, f);
    assert_eq!(p("2015-01-01T12:10:30Z"), Ok(1_420_114_230_000));
    assert_eq!(p("2015-01-01"), Ok(1_420_070_400_000));
    assert_eq!(p("2015-01"), Ok(1_420_070_400_000));
    assert_eq!(p("2015-01-01T12:10:30.123+01:00"), Ok(1_420_110_630_123));
    assert_eq!(p("2015-01-01T12:10:30.1239-0130"), Ok(1_420_114_230_123 + 5_400_000));
    assert_eq!(p("2015-01-01T12:10"), Ok(1_420_114_200_000));
    assert_eq!(p("1969-07-20T20:17:40Z"), Ok(-14_182_940_000));
    assert_eq!(p("1420070400001"), Ok(1_420_070_400_001));
    assert_eq!(p("-1"), Ok(-1));
    // As java.time's EXCEEDS_PAD years: a sign is accepted, so "-1000" is the year -1000 ...
    assert_eq!(p("-1000"), Ok(-93_724_128_000_000));
    // ... and more than four digits need a '+', so long numbers fall through to epoch_millis.
    assert_eq!(p("+10000-01-01"), Ok(253_402_300_800_000));
    assert_eq!(p("10000"), Ok(10_000));
    for bad in ["2015-1-1", "2015-02-30", "2015-01-01T25:00:00Z", "2015-01-01 12:00:00", "yesterday", ""] {
        assert_eq!(p(bad), Err(format!("failed to parse date field [{bad}] with format [{f}]")), "{bad}");
    }
    assert_eq!(date::parse_date("2015-1-1", "date_optional_time"), Ok(1_420_070_400_000));
    assert_eq!(date::format_date(1_420_114_230_000, f), "2015-01-01T12:10:30.000Z");
    assert_eq!(date::format_date(-1, f), "1969-12-31T23:59:59.999Z");
    assert_eq!(date::format_date(5, "epoch_millis"), "5");
    assert_eq!(date::format_date(1500, "epoch_second"), "1.5");
}

#[test]
fn date_custom_patterns() {
    let p = date::parse_date;
    assert_eq!(p("2015-01-01 12:10:30", "yyyy-MM-dd HH:mm:ss"), Ok(1_420_114_230_000));
    assert_eq!(p("2015-01-01", "yyyy-MM-dd HH:mm:ss||yyyy-MM-dd"), Ok(1_420_070_400_000));
    assert_eq!(p("10/Oct/2000:13:55:36 -0700", "dd/MMM/yyyy:HH:mm:ss Z"), Ok(971_211_336_000));
    assert_eq!(p("2015-01-01T12:10:30.5", "yyyy-MM-dd'T'HH:mm:ss.S"), Ok(1_420_114_230_500));
    assert_eq!(p("2015-01-01 12:10:30 PM", "yyyy-MM-dd hh:mm:ss a"), Ok(1_420_114_230_000));
    assert_eq!(p("2015-01-01", "yyyy-MM-dd[ HH:mm]"), Ok(1_420_070_400_000));
    assert_eq!(p("1420114230", "epoch_second"), Ok(1_420_114_230_000));
    assert_eq!(p("1420114230.5", "epoch_second"), Ok(1_420_114_230_500));
    assert_eq!(p("2015-01-01 12:10:30 AM", "yyyy-MM-dd hh:mm:ss a"), Ok(1_420_114_230_000 - 43_200_000));
    assert!(p("2015/01/01", "yyyy-MM-dd").is_err());
    assert_eq!(date::format_date(1_420_114_230_000, "yyyy/MM/dd HH:mm:ss"), "2015/01/01 12:10:30");
    assert_eq!(date::format_date(971_211_336_000, "EEE, dd MMM yyyy HH:mm:ss Z"), "Tue, 10 Oct 2000 20:55:36 +0000");
    assert!(date::validate_format("yyyy-qq").is_err());
    assert!(date::validate_format("strict_nonsense").is_err());
    let e = Mapping::from_json(&json!({"properties": {"d": {"type": "date", "format": "yyyy-qq"}}}))
        .expect_err("bad format");
    assert_eq!(e.reason, "Invalid format: [yyyy-qq]: Unknown pattern letter: q");
}

#[test]
fn date_and_date_nanos_fields() {
    let m = mapping(json!({"properties": {
        "d": {"type": "date"}, "n": {"type": "date_nanos"},
        "c": {"type": "date", "format": "yyyy-MM-dd HH:mm:ss||epoch_millis"}
    }}));
    let d = parse(&m, json!({"d": ["2015-01-01T12:10:30.123456789Z", 1_420_070_400_001i64], "n": "2015-01-01T12:10:30.123456789Z", "c": "2015-01-01 12:10:30"})).expect("parses");
    assert_eq!(values(&d, "d"), vec![FieldValue::Long(1_420_114_230_123), FieldValue::Long(1_420_070_400_001)]);
    assert_eq!(values(&d, "n"), vec![FieldValue::Long(1_420_114_230_123_456_789)]);
    assert_eq!(values(&d, "c"), vec![FieldValue::Long(1_420_114_230_000)]);
    assert_eq!(
        cause(&m, "d", json!("nope")),
        "failed to parse date field [nope] with format [strict_date_optional_time||epoch_millis]"
    );
    assert_eq!(
        cause(&m, "n", json!("1969-12-31T23:59:59Z")),
        "date[1969-12-31T23:59:59.000Z] is before the epoch in 1970 and cannot be stored in nanosecond resolution"
    );
    assert!(cause(&m, "n", json!("2262-04-12T00:00:00Z")).contains("cannot be stored in nanosecond resolution"));
    assert_eq!(
        date::format_date_nanos(1_420_114_230_123_456_789, date::DEFAULT_NANOS_FORMAT),
        "2015-01-01T12:10:30.123456789Z"
    );
    assert_eq!(
        date::format_date_nanos(1_420_114_230_120_000_000, date::DEFAULT_NANOS_FORMAT),
        "2015-01-01T12:10:30.120Z"
    );
    // The millisecond format prints milliseconds of a nanosecond date (OpenSearch's
    // `search/240_date_nanos.yml` "doc value fields").
    assert_eq!(date::format_date_nanos(1_540_815_132_123_456_789, date::DEFAULT_FORMAT), "2018-10-29T12:12:12.123Z");
    assert_eq!(date::format_date_nanos(1_540_815_132_123_456_789, "epoch_millis"), "1540815132123.456789");
}

#[test]
fn copy_to_copies_values_once() {
    let m = mapping(json!({"properties": {
        "first": {"type": "text", "copy_to": "full"},
        "last": {"type": "keyword", "copy_to": ["full", "other.k"]},
        "full": {"type": "text", "copy_to": "first"}
    }}));
    let d = parse(&m, json!({"first": "John", "last": "Smith"})).expect("parses");
    let full: Vec<String> = values(&d, "full")
        .into_iter()
        .map(|v| match v {
            FieldValue::Text { text, .. } => text,
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(full, vec!["John", "Smith"]);
    assert_eq!(values(&d, "first").len(), 1, "copy_to is not followed transitively");
    assert_eq!(values(&d, "other.k.keyword"), vec![kw("Smith")], "a dynamic target is text + keyword");
    let u = d.mapping_update.expect("other.k is new").to_json();
    assert_eq!(u["properties"]["other"]["properties"]["k"]["type"], json!("text"));
    assert_eq!(m.to_json()["properties"]["last"]["copy_to"], json!(["full", "other.k"]));
}

// ---------------------------------------------------------------- mapping definitions

#[test]
fn mapping_round_trips_through_json() {
    let def = json!({
        "dynamic": "strict",
        "_source": {"enabled": false},
        "_routing": {"required": true},
        "properties": {
            "title": {"type": "text", "analyzer": "english", "search_analyzer": "standard", "index_options": "freqs",
                      "norms": false, "position_increment_gap": 5, "fields": {"raw": {"type": "keyword", "ignore_above": 10}}},
            "tag": {"type": "keyword", "normalizer": "lower", "null_value": "none", "doc_values": false, "store": true},
            "price": {"type": "scaled_float", "scaling_factor": 100.0},
            "n": {"type": "integer", "coerce": false, "ignore_malformed": true, "index": false},
            "when": {"type": "date", "format": "yyyy-MM-dd"},
            "nanos": {"type": "date_nanos"},
            "addr": {"type": "ip", "null_value": "0.0.0.0"},
            "blob": {"type": "binary", "doc_values": true},
            "flag": {"type": "boolean", "boost": 2.0, "meta": {"unit": "none"}},
            "body": {"type": "text", "term_vector": "with_positions_offsets", "fielddata": true, "copy_to": "tag"},
            "when2": {"type": "date", "locale": "en"},
            "u": {"type": "unsigned_long"}, "h": {"type": "half_float"}, "s": {"type": "short"}, "b": {"type": "byte"},
            "dd": {"type": "double"}, "ff": {"type": "float"}, "l": {"type": "long"},
            "empty": {"type": "object"},
            "user": {"dynamic": "false", "properties": {"name": {"type": "keyword"}}}
        }
    });
    let m = mapping(def.clone());
    assert_eq!(m.to_json(), def);
    assert_eq!(Mapping::from_json(&m.to_json()).expect("reparses"), m);
    // Defaults are omitted, as GET _mapping does.
    let m = mapping(
        json!({"properties": {"t": {"type": "text", "norms": true, "index": true, "position_increment_gap": 100},
                                           "d": {"type": "date", "format": "strict_date_optional_time||epoch_millis"},
                                           "a.b": {"type": "long"}}}),
    );
    assert_eq!(
        m.to_json(),
        json!({"properties": {"t": {"type": "text"}, "d": {"type": "date"}, "a": {"properties": {"b": {"type": "long"}}}}})
    );
    assert_eq!(Mapping::new_dynamic().to_json(), json!({}));
    // The legacy `_doc` wrapper is accepted.
    assert_eq!(
        mapping(json!({"_doc": {"properties": {"a": {"type": "long"}}}})),
        mapping(json!({"properties": {"a": {"type": "long"}}}))
    );
    let m = mapping(
        json!({"properties": {"t": {"type": "text", "fields": {"raw": {"type": "keyword"}}}, "o": {"properties": {"n": {"type": "long"}}}}}),
    );
    let leaves: Vec<(String, &str)> = m.leaf_fields().into_iter().map(|(p, f)| (p, f.type_name())).collect();
    assert_eq!(leaves, vec![("o.n".into(), "long"), ("t".into(), "text"), ("t.raw".into(), "keyword")]);
    assert!(m.field_type("o.missing").is_none() && m.field_type("t.raw.x").is_none() && m.field_type("").is_none());
}

#[test]
fn mapping_definition_errors() {
    let err = |v: Value| Mapping::from_json(&v).expect_err("invalid mapping");
    let e = err(json!({"properties": {"f": {"type": "strng"}}}));
    assert_eq!(
        (e.kind, e.reason.as_str()),
        (crate::error::ErrorKind::MapperParsing, "No handler for type [strng] declared on field [f]")
    );
    let e = err(json!({"properties": {"f": {"type": "long", "analyzer": "x"}}}));
    assert_eq!(e.reason, "unknown parameter [analyzer] on mapper [f] of type [long]");
    let e = err(json!({"properties": {"f": {"type": "text", "doc_values": true}}}));
    assert_eq!(e.reason, "unknown parameter [doc_values] on mapper [f] of type [text]");
    let e = err(json!({"properties": {"f": {"type": "scaled_float"}}}));
    assert_eq!(e.reason, "Field [f] misses required parameter [scaling_factor]");
    let e = err(json!({"foo": "bar"}));
    assert_eq!(e.reason, "Root mapping definition has unsupported parameters:  [foo : \"bar\"]");
    let e = err(json!({"dynamic": "sometimes"}));
    assert_eq!(e.kind, crate::error::ErrorKind::MapperParsing);
    let e = err(json!({"properties": {"f": {"type": "text", "index_options": "all"}}}));
    assert_eq!(
        e.reason,
        "Unknown value [all] for field [index_options] - accepted values are [docs, freqs, positions, offsets]"
    );
    let e = err(json!({"properties": {"f": {"type": "keyword", "index": "maybe"}}}));
    assert_eq!(e.root_cause().reason, "Failed to parse value [maybe] as only [true] or [false] are allowed.");
}

#[test]
fn merge_rules() {
    let base = mapping(json!({"properties": {
        "n": {"type": "long"}, "k": {"type": "keyword", "ignore_above": 10},
        "t": {"type": "text", "analyzer": "english", "fields": {"raw": {"type": "keyword"}}},
        "o": {"properties": {"x": {"type": "long"}}}
    }}));
    let e = base.merge(&mapping(json!({"properties": {"n": {"type": "text"}}}))).expect_err("type change");
    assert_eq!(
        (e.kind, e.reason.as_str()),
        (crate::error::ErrorKind::IllegalArgument, "mapper [n] cannot be changed from type [long] to [text]")
    );
    let e = base.merge(&mapping(json!({"properties": {"o": {"type": "keyword"}}}))).expect_err("object to field");
    assert_eq!(e.reason, "can't merge a non object mapping [o] with an object mapping");
    let e = base
        .merge(&mapping(json!({"properties": {"n": {"properties": {"y": {"type": "long"}}}}})))
        .expect_err("field to object");
    assert_eq!(e.reason, "mapper [n] cannot be changed from type [long] to [object]");
    let e = base
        .merge(&mapping(json!({"properties": {"t": {"type": "text", "analyzer": "standard"}}})))
        .expect_err("analyzer");
    assert_eq!(e.reason, "Mapper for [t] conflicts with existing mapper:\n\tCannot update parameter [analyzer] from [english] to [standard]");
    let e = base
        .merge(&mapping(json!({"properties": {"o": {"properties": {"x": {"type": "integer"}}}}})))
        .expect_err("nested");
    assert_eq!(e.reason, "mapper [o.x] cannot be changed from type [long] to [integer]");

    let merged = base
        .merge(&mapping(json!({"dynamic": "strict", "properties": {
            "k": {"type": "keyword", "ignore_above": 20},
            "t": {"type": "text", "analyzer": "english", "search_analyzer": "simple", "fields": {"len": {"type": "integer"}}},
            "o": {"properties": {"y": {"type": "date"}}},
            "new": {"type": "boolean"}
        }})))
        .expect("compatible update");
    let j = merged.to_json();
    assert_eq!(j["dynamic"], json!("strict"));
    assert_eq!(j["properties"]["k"], json!({"type": "keyword", "ignore_above": 20}));
    assert_eq!(j["properties"]["t"]["search_analyzer"], json!("simple"));
    assert_eq!(j["properties"]["t"]["fields"], json!({"len": {"type": "integer"}, "raw": {"type": "keyword"}}));
    assert_eq!(j["properties"]["o"]["properties"], json!({"x": {"type": "long"}, "y": {"type": "date"}}));
    assert_eq!(j["properties"]["new"], json!({"type": "boolean"}));
    // Restating a default is no change.
    assert!(base.merge(&mapping(json!({"properties": {"n": {"type": "long", "index": true}}}))).is_ok());
}

// ---------------------------------------------------------------- properties

fn arb_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|i| json!(i)),
        any::<f64>().prop_filter("finite", |f| f.is_finite()).prop_map(|f| json!(f)),
        "[a-z0-9:./ -]{0,12}".prop_map(Value::String),
        Just(json!("2015-01-01T00:00:00Z")),
    ];
    leaf.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::btree_map("[a-z_.]{0,4}", inner, 0..4)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

proptest! {
    #[test]
    fn ip_round_trips(v in any::<u128>(), v4 in any::<u32>()) {
        prop_assert_eq!(ip::parse_ip(&ip::format_ip(v)), Some(v));
        let mapped = 0xffff_0000_0000u128 | u128::from(v4);
        prop_assert_eq!(ip::format_ip(mapped), std::net::Ipv4Addr::from(v4).to_string());
        prop_assert_eq!(ip::parse_ip(&ip::format_ip(mapped)), Some(mapped));
    }

    #[test]
    fn date_millis_round_trip(ms in -62_135_596_800_000i64..253_402_300_799_999i64) {
        for f in [date::DEFAULT_FORMAT, "epoch_millis", "yyyy-MM-dd'T'HH:mm:ss.SSSXXX", "strict_date_time"] {
            let s = date::format_date(ms, f);
            prop_assert_eq!(date::parse_date(&s, f), Ok(ms), "{} {}", f, s);
        }
    }

    #[test]
    fn date_nanos_round_trip(ns in 0i64..i64::MAX) {
        let s = date::format_date_nanos(ns, date::DEFAULT_NANOS_FORMAT);
        prop_assert_eq!(date::parse_date_nanos(&s, date::DEFAULT_NANOS_FORMAT), Ok(ns));
        prop_assert_eq!(date::parse_date_nanos(&date::format_date_nanos(ns, "epoch_second"), "epoch_second"), Ok(ns));
    }

    #[test]
    fn date_parsing_never_panics(s in "\\PC{0,30}", f in "[a-zA-Z':. \\[\\]|_-]{0,20}") {
        let _ = date::parse_date(&s, &f);
        let _ = date::parse_date(&s, date::DEFAULT_FORMAT);
        let _ = date::format_date(0, &f);
    }

    #[test]
    fn parsing_any_document_never_panics_and_updates_merge(doc in arb_json()) {
        let m = Mapping::new_dynamic();
        let bytes = doc.to_string();
        if let Ok(d) = m.parse("x", bytes.as_bytes()) {
            if let Some(u) = d.mapping_update {
                let merged = m.merge(&u);
                prop_assert!(merged.is_ok(), "{:?}", merged);
                let merged = merged.expect("checked");
                // Re-parsing with the merged mapping gives the same fields and no update.
                let again = merged.parse("x", bytes.as_bytes()).expect("parses with its own update");
                prop_assert!(again.mapping_update.is_none());
                prop_assert_eq!(again.fields, d.fields);
            }
        }
    }

    #[test]
    fn parsing_arbitrary_bytes_never_panics(bytes in prop::collection::vec(any::<u8>(), 0..64)) {
        let m = mapping(json!({"properties": {"d": {"type": "date"}, "i": {"type": "byte"}, "k": {"type": "keyword"}}}));
        let _ = m.parse("x", &bytes);
    }
}

#[test]
fn token_count_needs_an_analyzer_and_carries_the_text() {
    let e = Mapping::from_json(&json!({"properties": {"c": {"type": "token_count"}}})).expect_err("no analyzer");
    assert_eq!(e.reason, "Analyzer must be set for field [c] but wasn't.");
    let m = mapping(
        json!({"properties": {"c": {"type": "token_count", "analyzer": "standard", "enable_position_increments": false}}}),
    );
    assert_eq!(
        m.to_json()["properties"]["c"],
        json!({"type": "token_count", "analyzer": "standard", "enable_position_increments": false})
    );
    assert_eq!(
        values(&parse(&m, json!({"c": "two words"})).unwrap(), "c"),
        vec![FieldValue::TokenCount {
            text: "two words".into(),
            analyzer: "standard".into(),
            position_increments: false
        }]
    );
}

#[test]
fn negative_epoch_millis_that_look_like_long_years_parse_as_millis() {
    use crate::engine::schema::date::parse_date;
    let f = "strict_date_optional_time||epoch_millis";
    assert_eq!(parse_date("-2160000000", f), Ok(-2_160_000_000));
    assert_eq!(parse_date("-5", f), Ok(-5));
    assert_eq!(parse_date("1969-12-07T00:00:00Z", f), Ok(-2_160_000_000));
    assert!(parse_date("-2160000000", "strict_date_optional_time").is_err());
}
