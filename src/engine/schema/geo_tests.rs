//! Tests of geo_point: value forms, messages (OpenSearch 3.3's `GeoUtils`, `GeoPoint`,
//! `GeoPointFieldMapper`), Lucene's encoding, and the field in a mapping and a document.

use proptest::prelude::*;
use serde_json::{json, Value};

use super::*;
use crate::engine::schema::{FieldValue, Mapping, MappingError, ParsedDocument};

fn pt(lat: f64, lon: f64) -> GeoPoint {
    GeoPoint { lat, lon }
}

fn points(v: Value) -> Vec<GeoPoint> {
    parse_field_value(&v, "geo", true, false).expect("valid geo_point value")
}

fn err(v: Value) -> MappingError {
    parse_field_value(&v, "geo", true, false).expect_err("malformed geo_point value")
}

fn close(a: GeoPoint, b: GeoPoint) -> bool {
    (a.lat - b.lat).abs() < 1e-6 && (a.lon - b.lon).abs() < 1e-6
}

// ---------------------------------------------------------------- value forms

#[test]
fn every_single_point_form_gives_the_same_point() {
    let expected = pt(41.12, -71.34);
    for v in [
        json!({"lat": 41.12, "lon": -71.34}),
        json!({"lat": "41.12", "lon": "-71.34"}),
        json!([-71.34, 41.12]),
        json!("41.12,-71.34"),
        json!(" 41.12 , -71.34 "),
        json!("POINT (-71.34 41.12)"),
        json!("point(-71.34 41.12)"),
        json!({"type": "Point", "coordinates": [-71.34, 41.12]}),
        json!({"type": "point", "coordinates": [-71.34, 41.12]}),
    ] {
        assert_eq!(points(v.clone()), vec![expected], "{v}");
    }
}

#[test]
fn geohash_is_the_bottom_left_corner_of_its_cell() {
    // drm3btev3e86 is the cell of (41.12, -71.34) at 12 characters: its corner is within 2e-7°.
    let p = points(json!("drm3btev3e86"));
    assert!(close(p[0], pt(41.12, -71.34)), "{p:?}");
    assert!(p[0].lat <= 41.12 && p[0].lon <= -71.34);
    assert_eq!(points(json!({"geohash": "drm3btev3e86"})), p);
    // One character: "s" is lon [0, 45), lat [0, 45).
    assert_eq!(points(json!("s")), vec![pt(0.0, 0.0)]);
    assert_eq!(points(json!("0")), vec![pt(-90.0, -180.0)]);
    // Characters past the twelfth are not read.
    assert_eq!(points(json!("drm3btev3e86zzzz!")), p);
    assert_eq!(geohash_encode(pt(41.12, -71.34)), "drm3btev3e86");
}

#[test]
fn z_values_are_dropped_or_refused() {
    for v in [
        json!([1.0, 2.0, 3.0]),
        json!("2.0,1.0,3.0"),
        json!("POINT (1.0 2.0 3.0)"),
        json!({"type": "Point", "coordinates": [1.0, 2.0, 3.0]}),
    ] {
        assert_eq!(points(v.clone()), vec![pt(2.0, 1.0)], "{v}");
    }
    let e = parse_field_value(&json!([1.0, 2.0, 3.0]), "geo", false, false).expect_err("z refused");
    assert_eq!(e.kind, crate::error::ErrorKind::Parse);
    assert_eq!(
        e.reason,
        "Exception parsing coordinates: found Z value [3.0] but [ignore_z_value] parameter is [false]"
    );
    let e = parse_field_value(&json!("2,1,3"), "geo", false, false).expect_err("z refused");
    assert_eq!(
        e.reason,
        "Exception parsing coordinates: found Z value [3.0] but [ignore_z_value] parameter is [false]"
    );
    let e = parse_field_value(&json!("POINT (1 2 3)"), "geo", false, false).expect_err("z refused");
    assert_eq!(e.reason, "Invalid WKT format");
    assert_eq!(e.root_cause().reason, "found Z value [3.0] but [ignore_z_value] parameter is [false]");
}

#[test]
fn arrays_of_points_are_multi_values() {
    let v = json!([{"lat": 1.0, "lon": 2.0}, "3.0,4.0", [6.0, 5.0], "POINT (8 7)", "s"]);
    assert_eq!(points(v), vec![pt(1.0, 2.0), pt(3.0, 4.0), pt(5.0, 6.0), pt(7.0, 8.0), pt(0.0, 0.0)]);
    assert_eq!(points(json!([])), vec![]);
    assert_eq!(points(json!([[1.0, 2.0], [3.0, 4.0]])), vec![pt(2.0, 1.0), pt(4.0, 3.0)]);
    // A numeric first element makes the array one point; its second value may be a numeric string.
    assert_eq!(points(json!([1.0, "2.0"])), vec![pt(2.0, 1.0)]);
}

#[test]
fn malformed_values_have_opensearch_messages() {
    let cases = [
        (json!({"lat": 1.0}), "field [lon] missing"),
        (json!({"lon": 1.0}), "field [lat] missing"),
        (json!({"lat": 1.0, "lon": 2.0, "x": 3}), "field must be either [lon|lat], [type|coordinates], or [geohash]"),
        (json!({"foo": 1}), "field must be either [lon|lat], [type|coordinates], or [geohash]"),
        (json!({}), "token [END_OBJECT] not allowed"),
        (json!({"lat": true, "lon": 1}), "lat must be a number"),
        (json!({"lat": "abc", "lon": 1}), "[lon] and [lat] must be valid double values"),
        (json!({"geohash": 5}), "geohash must be a string"),
        (json!({"type": "LineString", "coordinates": [1, 2]}), "type must be Point"),
        (json!({"type": 1, "coordinates": [1, 2]}), "type must be a string"),
        (json!({"coordinates": [1, 2]}), "field [type] missing"),
        (json!({"type": "Point"}), "field [coordinates] missing"),
        (json!({"type": "Point", "coordinates": 5}), "coordinates must be an array"),
        (json!([[1.0]]), "[geo_point] field type should have at least two dimensions"),
        (json!([[1.0, 2.0, 3.0, 4.0]]), "[geo_point] field type does not accept more than 3 values"),
        (json!([["a", "b"]]), "numeric value expected"),
        (json!([1.0, 2.0, 3.0, 4.0]), "field type does not accept > 3 dimensions"),
        (json!(5), "geo_point expected"),
        (json!(true), "geo_point expected"),
        (json!([{"lat": 1, "lon": 2}, null]), "geo_point expected"),
        (json!("abc,1"), "latitude must be a number"),
        (json!("1,abc"), "longitude must be a number"),
        (json!("1,2,3,4"), "failed to parse [4], expected 2 or 3 coordinates but found: [{}]"),
        (json!("DRM3"), "unsupported symbol [D] in geohash [DRM3]"),
        (json!(""), "empty geohash"),
        (json!("MULTIPOINT (1 2, 3 4)"), "[geo_point] supports only POINT among WKT primitives, but found MULTIPOINT"),
        // Without "point" in it, a string is coordinates or a geohash (as in OpenSearch).
        (json!("LINESTRING (1 2, 3 4)"), "latitude must be a number"),
        (json!("POINT (1)"), "Invalid WKT format"),
        (json!("POINT (1 2) x"), "Invalid WKT format"),
    ];
    for (v, reason) in cases {
        let e = err(v.clone());
        assert_eq!(e.reason, reason, "{v}");
    }
    assert_eq!(err(json!({"lat": "abc", "lon": 1})).root_cause().reason, "For input string: \"abc\"");
    let e = err(json!([1.0]));
    assert_eq!(
        (e.kind, e.reason.as_str()),
        (
            crate::error::ErrorKind::JsonParse,
            "Current token (END_ARRAY) not numeric, can not use numeric value accessors"
        )
    );
    assert_eq!(err(json!("1,")).kind, crate::error::ErrorKind::ArrayIndexOutOfBounds);
}

#[test]
fn ranges_are_checked_with_the_field_name() {
    let e = err(json!({"lat": 91.0, "lon": 0.0}));
    assert_eq!(
        (e.kind, e.reason.as_str()),
        (crate::error::ErrorKind::IllegalArgument, "illegal latitude value [91.0] for geo")
    );
    assert_eq!(err(json!([181, 0])).reason, "illegal longitude value [181.0] for geo");
    assert_eq!(err(json!("-90.5,0")).reason, "illegal latitude value [-90.5] for geo");
    // The bounds themselves are valid.
    assert_eq!(points(json!([180.0, 90.0])), vec![pt(90.0, 180.0)]);
    assert_eq!(points(json!([-180.0, -90.0])), vec![pt(-90.0, -180.0)]);
    // WKT checks ranges while parsing.
    assert_eq!(err(json!("POINT (0 95)")).root_cause().reason, "invalid latitude 95.0; must be between -90.0 and 90.0");
    // NaN passes OpenSearch's range check but not Lucene's encoder.
    let nan = points(json!("NaN,0"));
    assert_eq!(doc_value(nan[0]).expect_err("NaN").reason, "invalid latitude NaN; must be between -90.0 and 90.0");
}

#[test]
fn ignore_malformed_normalizes_out_of_range_points() {
    let norm = |v: Value| parse_field_value(&v, "geo", true, true).expect("normalized");
    assert_eq!(norm(json!([190.0, 10.0])), vec![pt(10.0, -170.0)]);
    assert_eq!(norm(json!({"lat": 100.0, "lon": 10.0})), vec![pt(80.0, -170.0)]);
    assert_eq!(norm(json!({"lat": -100.0, "lon": 0.0})), vec![pt(-80.0, 180.0)]);
    assert_eq!(norm(json!([540.0, 0.0])), vec![pt(0.0, 180.0)]);
    let e = parse_field_value(&json!("NaN,1"), "geo", true, true).expect_err("NaN");
    assert_eq!(e.reason, "cannot normalize the point - not a number");
}

#[test]
fn null_value_is_checked_without_the_field_name() {
    assert_eq!(parse_null_value(&json!("1,2"), true, false).expect("valid"), pt(1.0, 2.0));
    let e = parse_null_value(&json!([0, 100]), true, false).expect_err("out of range");
    assert_eq!(e.reason, "illegal latitude value [100.0]");
    assert_eq!(parse_null_value(&json!([0, 100]), true, true).expect("normalized"), pt(80.0, 180.0));
}

// ---------------------------------------------------------------- encoding

#[test]
fn encoding_matches_lucene() {
    // Values from Lucene's GeoEncodingUtils (encode = floor(x * 2^32 / 180|360)).
    assert_eq!(encode_latitude(0.0), 0);
    assert_eq!(encode_latitude(90.0), i32::MAX);
    assert_eq!(encode_latitude(-90.0), i32::MIN);
    assert_eq!(encode_longitude(180.0), i32::MAX);
    assert_eq!(encode_longitude(-180.0), i32::MIN);
    assert_eq!(encode_latitude(45.0), 1 << 30);
    assert_eq!(encode_longitude(-90.0), -(1 << 30));
    let dv = doc_value(pt(45.0, -90.0)).expect("in range");
    assert_eq!(dv, (1i64 << 62) | 0xC000_0000);
    assert_eq!(decode_doc_value(dv), pt(45.0, -90.0));
}

proptest! {
    #[test]
    fn encode_decode_stays_within_one_cell(lat in -90.0f64..=90.0, lon in -180.0f64..=180.0) {
        let dv = doc_value(pt(lat, lon)).expect("in range");
        let back = decode_doc_value(dv);
        // Lucene: decode(encode(x)) <= x < decode(encode(x)) + DECODE (one cell: 180/2^32, 360/2^32).
        let (lat_cell, lon_cell) = (180.0 / 4294967296.0, 360.0 / 4294967296.0);
        prop_assert!(back.lat <= lat && lat - back.lat <= lat_cell, "{} -> {}", lat, back.lat);
        prop_assert!(back.lon <= lon && lon - back.lon <= lon_cell, "{} -> {}", lon, back.lon);
        // Decoded values encode to themselves.
        prop_assert_eq!(doc_value(back).expect("in range"), dv);
    }

    #[test]
    fn geohash_round_trips_within_its_cell(lat in -90.0f64..90.0, lon in -180.0f64..180.0) {
        let h = geohash_encode(pt(lat, lon));
        prop_assert_eq!(h.len(), 12);
        let corner = geohash_decode(&h).expect("valid geohash");
        // A 12-character cell is 180/2^30 by 360/2^30 degrees.
        prop_assert!(corner.lat <= lat && lat - corner.lat < 180.0 / 1073741824.0);
        prop_assert!(corner.lon <= lon && lon - corner.lon < 360.0 / 1073741824.0);
    }

    #[test]
    fn any_json_value_parses_or_errors(s in ".{0,20}", x in proptest::num::f64::ANY, y in proptest::num::f64::ANY) {
        for v in [json!(s), json!([x, y]), json!({"lat": x, "lon": s.clone()}), json!([s.clone(), [x, y]])] {
            let _ = parse_field_value(&v, "geo", false, false);
            let _ = parse_field_value(&v, "geo", true, true);
        }
    }
}

// ---------------------------------------------------------------- in a mapping

fn geo_mapping(params: Value) -> Mapping {
    let mut def = json!({"type": "geo_point"});
    if let (Some(d), Value::Object(p)) = (def.as_object_mut(), params) {
        d.extend(p);
    }
    Mapping::from_json(&json!({"properties": {"loc": def}})).expect("valid mapping")
}

fn parse(m: &Mapping, doc: Value) -> Result<ParsedDocument, MappingError> {
    m.parse("1", doc.to_string().as_bytes())
}

fn longs(d: &ParsedDocument, name: &str) -> Vec<i64> {
    d.fields
        .iter()
        .filter(|f| f.name == name)
        .filter_map(|f| match f.value {
            FieldValue::Long(l) => Some(l),
            _ => None,
        })
        .collect()
}

#[test]
fn mapping_parses_prints_and_merges() {
    let m = geo_mapping(json!({}));
    assert_eq!(m.to_json(), json!({"properties": {"loc": {"type": "geo_point"}}}));
    assert_eq!(m.field_type("loc").map(|f| f.type_name()), Some("geo_point"));
    let m = geo_mapping(json!({"ignore_malformed": false, "ignore_z_value": true, "null_value": "1,2"}));
    let printed = json!({"properties": {"loc": {
        "type": "geo_point", "ignore_malformed": false, "ignore_z_value": true,
        "null_value": {"lat": 1.0, "lon": 2.0}
    }}});
    assert_eq!(m.to_json(), printed);
    assert_eq!(Mapping::from_json(&printed).expect("round trip"), m);
    let e = Mapping::from_json(&json!({"properties": {"loc": {"type": "geo_point", "coerce": true}}}))
        .expect_err("unknown parameter");
    assert_eq!(e.reason, "unknown parameter [coerce] on mapper [loc] of type [geo_point]");
    let e = Mapping::from_json(&json!({"properties": {"loc": {"type": "geo_point", "null_value": [0, 95]}}}))
        .expect_err("null_value out of range");
    assert_eq!(e.reason, "illegal latitude value [95.0]");
    // Merging keeps options the update does not state; the type cannot change.
    let merged = m.merge(&geo_mapping(json!({"ignore_malformed": true}))).expect("updateable");
    let f = merged.field_type("loc").expect("field");
    assert_eq!((f.ignore_malformed, f.null_value.clone()), (Some(true), Some(json!({"lat": 1.0, "lon": 2.0}))));
    let e = m.merge(&Mapping::from_json(&json!({"properties": {"loc": {"type": "keyword"}}})).expect("valid"));
    assert_eq!(e.expect_err("type change").reason, "mapper [loc] cannot be changed from type [geo_point] to [keyword]");
}

#[test]
fn documents_index_sorted_numeric_doc_values() {
    let m = geo_mapping(json!({}));
    let d = parse(&m, json!({"loc": [-71.34, 41.12]})).expect("one point");
    let expected = doc_value(pt(41.12, -71.34)).expect("in range");
    assert_eq!(longs(&d, "loc"), vec![expected]);
    let f = d.fields.iter().find(|f| f.name == "loc").expect("field");
    assert!(!f.index && f.doc_values);
    let d = parse(&m, json!({"loc": ["41.12,-71.34", {"lat": 41.12, "lon": -71.34}, [-71.34, 41.12]]})).expect("three");
    assert_eq!(longs(&d, "loc"), vec![expected; 3]);
    // null without null_value indexes nothing; with it, the null_value point.
    assert_eq!(longs(&parse(&m, json!({"loc": null})).expect("null"), "loc"), Vec::<i64>::new());
    let m2 = geo_mapping(json!({"null_value": [-71.34, 41.12]}));
    assert_eq!(longs(&parse(&m2, json!({"loc": null})).expect("null"), "loc"), vec![expected]);
    // doc_values: false writes no doc values (no points index yet): one field entry with neither,
    // which only records the field name in `_field_names` (for `exists`), however many points.
    let m3 = geo_mapping(json!({"doc_values": false}));
    let d3 = parse(&m3, json!({"loc": ["1,2", "3,4"]})).expect("parses");
    let f3: Vec<_> = d3.fields.iter().filter(|f| f.name == "loc").collect();
    assert_eq!(f3.len(), 1);
    assert!(!f3[0].index && !f3[0].doc_values);
}

#[test]
fn malformed_documents_are_rejected_or_ignored() {
    let m = geo_mapping(json!({}));
    let e = parse(&m, json!({"loc": {"lat": 100, "lon": 0}})).expect_err("out of range");
    assert_eq!(e.kind, crate::error::ErrorKind::MapperParsing);
    assert_eq!(e.reason, "failed to parse field [loc] of type [geo_point]");
    assert_eq!(e.root_cause().reason, "illegal latitude value [100.0] for loc");
    let m = geo_mapping(json!({"ignore_malformed": true}));
    let d = parse(&m, json!({"loc": ["1,2", "bad!"]})).expect("ignored");
    assert_eq!(longs(&d, "loc"), Vec::<i64>::new());
    assert!(d.fields.iter().any(|f| f.name == "_ignored" && f.value == FieldValue::Keyword("loc".into())));
    // ignore_malformed normalizes instead of rejecting out-of-range points.
    let d = parse(&m, json!({"loc": [190.0, 10.0]})).expect("normalized");
    assert_eq!(longs(&d, "loc"), vec![doc_value(pt(10.0, -170.0)).expect("in range")]);
}

#[test]
fn multi_fields_get_geohashes_and_copy_to_gets_the_value() {
    let m = Mapping::from_json(&json!({"properties": {
        "loc": {"type": "geo_point", "fields": {"hash": {"type": "keyword"}}, "copy_to": "other"},
        "other": {"type": "geo_point"}
    }}))
    .expect("valid");
    let d = parse(&m, json!({"loc": [-71.34, 41.12]})).expect("parses");
    let hashes: Vec<&FieldValue> = d.fields.iter().filter(|f| f.name == "loc.hash").map(|f| &f.value).collect();
    assert_eq!(hashes, vec![&FieldValue::Keyword("drm3btev3e86".into())]);
    assert_eq!(longs(&d, "other"), longs(&d, "loc"));
    let d = parse(&m, json!({"loc": ["s", "0"]})).expect("parses");
    let hashes: Vec<&FieldValue> = d.fields.iter().filter(|f| f.name == "loc.hash").map(|f| &f.value).collect();
    assert_eq!(hashes, vec![&FieldValue::Keyword("[s00000000000,000000000000]".into())]);
}
