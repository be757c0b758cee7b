//! The query DSL against a mapping (no segments): which engine queries come out, and the errors.

use serde_json::json;

use super::dsl::{parse, QueryContext};
use super::query_string::{parse_query_string, QsOptions};
use super::request::SearchRequest;
use crate::engine::query::{Query, RangeKind, TrackTotalHits};
use crate::engine::schema::Mapping;
use crate::engine::segment::points::sortable;

fn mapping() -> Mapping {
    Mapping::from_json(&json!({"properties": {
        "title": {"type": "text", "fields": {"raw": {"type": "keyword"}}},
        "tag": {"type": "keyword"},
        "n": {"type": "integer"},
        "price": {"type": "double"},
        "when": {"type": "date"},
        "ok": {"type": "boolean"},
        "addr": {"type": "ip"},
    }}))
    .expect("valid mapping")
}

fn q(v: serde_json::Value) -> Result<Query, crate::error::OsError> {
    let m = mapping();
    let ctx = QueryContext { now_millis: 86_400_000 * 10, ..QueryContext::for_tests(&m, &[]) };
    parse(&v, &ctx)
}

fn term(f: &str, t: &str) -> Query {
    Query::term(f, t)
}

#[test]
fn match_analyzes_text_and_combines_by_operator() {
    assert_eq!(
        q(json!({"match": {"title": "Brown FOX"}})).unwrap(),
        Query::or(vec![term("title", "brown"), term("title", "fox")])
    );
    assert_eq!(
        q(json!({"match": {"title": {"query": "a b", "operator": "and"}}})).unwrap(),
        Query::and(vec![term("title", "a"), term("title", "b")])
    );
    assert_eq!(q(json!({"match": {"title": "Fox"}})).unwrap(), term("title", "fox"));
    // A keyword term is constant score (OpenSearch 3's `KeywordFieldType.termQuery`).
    assert_eq!(
        q(json!({"match": {"tag": "Fox Den"}})).unwrap(),
        Query::ConstantScore { query: Box::new(term("tag", "Fox Den")), boost: 1.0 }
    );
    assert_eq!(q(json!({"match": {"missing": "x"}})).unwrap(), Query::MatchNone);
    assert_eq!(
        q(json!({"match": {"title": {"query": "", "zero_terms_query": "all"}}})).unwrap(),
        Query::MatchAll { boost: 1.0 }
    );
    match q(json!({"match": {"title": {"query": "a b c d", "minimum_should_match": "75%"}}})).unwrap() {
        Query::Bool { minimum_should_match, should, .. } => assert_eq!((minimum_should_match, should.len()), (3, 4)),
        other => panic!("{other:?}"),
    }
    match q(json!({"match_phrase": {"title": {"query": "quick fox", "slop": 2}}})).unwrap() {
        Query::Phrase { terms, slop, .. } => assert_eq!((terms.len(), slop), (2, 2)),
        other => panic!("{other:?}"),
    }
}

#[test]
fn term_level_queries_encode_by_field_type() {
    let k = |v: i64| Some(sortable::encode_i64(v).to_vec());
    assert_eq!(
        q(json!({"term": {"n": 5}})).unwrap(),
        Query::Range {
            field: "n".into(),
            lo: k(5),
            hi: k(5),
            include_lo: true,
            include_hi: true,
            kind: RangeKind::Points,
            boost: 1.0
        }
    );
    assert_eq!(q(json!({"term": {"n": 5.5}})).unwrap(), Query::MatchNone);
    assert_eq!(
        q(json!({"range": {"n": {"gt": 1.5, "lt": 4}}})).unwrap(),
        Query::Range {
            field: "n".into(),
            lo: k(2),
            hi: k(3),
            include_lo: true,
            include_hi: true,
            kind: RangeKind::Points,
            boost: 1.0
        }
    );
    let day = 86_400_000i64;
    assert_eq!(
        q(json!({"range": {"when": {"gte": "now-1d/d", "lte": "now/d"}}})).unwrap(),
        Query::Range {
            field: "when".into(),
            lo: k(9 * day),
            hi: k(11 * day - 1),
            include_lo: true,
            include_hi: true,
            kind: RangeKind::Points,
            boost: 1.0
        }
    );
    assert!(matches!(q(json!({"range": {"tag": {"gte": "a"}}})).unwrap(), Query::Range { kind: RangeKind::Terms, .. }));
    assert!(matches!(q(json!({"term": {"addr": "10.0.0.0/8"}})).unwrap(), Query::Range { .. }));
    assert_eq!(
        q(json!({"ids": {"values": ["1", "2"]}})).unwrap(),
        Query::Terms { field: "_id".into(), terms: vec![b"1".to_vec(), b"2".to_vec()], boost: 1.0 }
    );
    assert_eq!(q(json!({"term": {"_index": "id*"}})).unwrap(), Query::MatchAll { boost: 1.0 });
    assert_eq!(
        q(json!({"prefix": {"tag": "ab"}})).unwrap(),
        Query::Prefix { field: "tag".into(), prefix: b"ab".to_vec(), boost: 1.0 }
    );
}

#[test]
fn compound_queries() {
    match q(json!({"bool": {"must_not": {"term": {"tag": "x"}}}})).unwrap() {
        Query::Bool { must, must_not, .. } => {
            assert_eq!(must, vec![Query::MatchAll { boost: 1.0 }]);
            assert_eq!(must_not.len(), 1);
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(q(json!({"bool": {}})).unwrap(), Query::MatchAll { boost: 1.0 });
    assert!(matches!(
        q(json!({"dis_max": {"queries": [{"term": {"tag": "a"}}, {"term": {"tag": "b"}}], "tie_breaker": 0.3}}))
            .unwrap(),
        Query::DisMax { .. }
    ));
    assert!(matches!(
        q(json!({"multi_match": {"query": "fox", "fields": ["title^2", "tag"]}})).unwrap(),
        Query::DisMax { .. }
    ));
    assert!(matches!(
        q(json!({"multi_match": {"query": "fox", "fields": ["title", "tag"], "type": "most_fields"}})).unwrap(),
        Query::Bool { .. }
    ));
    assert_eq!(
        q(json!({"constant_score": {"filter": {"term": {"tag": "a"}}, "boost": 2}})).unwrap(),
        Query::ConstantScore { query: Box::new(term("tag", "a")), boost: 2.0 }
    );
}

#[test]
fn parsing_errors_use_opensearch_messages() {
    let reason = |v| q(v).map(|_| ()).unwrap_err().reason;
    assert_eq!(reason(json!({"nope": {}})), "unknown query [nope]");
    assert_eq!(reason(json!({"boool": {}})), "unknown query [boool] did you mean [bool]?");
    assert_eq!(
        reason(json!({"bool": {"must": {"matchall": {}}}})),
        "unknown query [matchall] did you mean any of [match_all, match]?"
    );
    assert_eq!(reason(json!({"match": "x"})), "[match] query malformed, no start_object after query name");
    assert_eq!(
        reason(json!({"term": {"a": 1}, "match": {}})),
        "[term] malformed query, expected [END_OBJECT] but found [FIELD_NAME]"
    );
    assert_eq!(reason(json!({})), "query malformed, empty clause found");
    assert_eq!(
        reason(json!({"term": {"a": 1, "b": 2}})),
        "[term] query doesn't support multiple fields, found [a] and [b]"
    );
    let mut deep = json!({"match_all": {}});
    for _ in 0..100 {
        deep = json!({"bool": {"must": [deep]}});
    }
    assert!(q(deep).is_err());
}

#[test]
fn query_string_syntax() {
    let m = mapping();
    let ctx = QueryContext::for_tests(&m, &[]);
    let o = QsOptions { fields: vec![("title".into(), 1.0)], ..QsOptions::default() };
    assert_eq!(parse_query_string("fox", &ctx, &o).unwrap(), term("title", "fox"));
    match parse_query_string("fox AND tag:a -tag:b", &ctx, &o).unwrap() {
        Query::Bool { must, must_not, .. } => assert_eq!((must.len(), must_not.len()), (2, 1)),
        other => panic!("{other:?}"),
    }
    assert!(matches!(parse_query_string("\"quick fox\"~1", &ctx, &o).unwrap(), Query::Phrase { slop: 1, .. }));
    assert!(matches!(parse_query_string("n:[1 TO 5]", &ctx, &o).unwrap(), Query::Range { .. }));
    assert!(matches!(parse_query_string("fo*", &ctx, &o).unwrap(), Query::Prefix { .. }));
    assert!(parse_query_string("\"open", &ctx, &o).is_err());
    let simple = QsOptions { simple: true, lenient: true, ..o };
    assert!(parse_query_string("\"open | (", &ctx, &simple).is_ok());
}

#[test]
fn request_body_and_params() {
    let r = SearchRequest::from_body(
        json!({"from": 2, "size": 3, "track_total_hits": 100, "sort": [{"n": "desc"}, "_score"]}),
    )
    .unwrap();
    assert_eq!((r.from, r.size, r.track_total_hits, r.sort.len()), (2, 3, TrackTotalHits::UpTo(100), 2));
    assert_eq!(
        SearchRequest::from_body(json!({"match": {}})).unwrap_err().reason,
        "Unknown key for a START_OBJECT in [match]."
    );
    let mut r = SearchRequest::from_body(json!({"size": 3})).unwrap();
    r.apply_params(&|k: &str| match k {
        "size" => Some("7".into()),
        "rest_total_hits_as_int" => Some("true".into()),
        _ => None,
    })
    .unwrap();
    assert_eq!((r.size, r.track_total_hits), (7, TrackTotalHits::Accurate));
    let mut r = SearchRequest::from_body(json!({"track_total_hits": 5})).unwrap();
    assert!(r.apply_params(&|k: &str| (k == "rest_total_hits_as_int").then(|| "true".into())).is_err());
}

#[test]
fn int_fields_overflow_and_request_cache_in_scroll() {
    let e = SearchRequest::from_body(json!({"size": 2147483648u64})).unwrap_err();
    assert_eq!((e.kind.name(), e.status), ("input_coercion_exception", 400));
    assert!(e.reason.starts_with("Numeric value (2147483648) out of range of int"), "{}", e.reason);
    assert_eq!(SearchRequest::from_body(json!({"from": 2147483647})).unwrap().from, 2147483647);
    let params = |cache: &'static str| {
        move |k: &str| match k {
            "scroll" => Some("1m".to_string()),
            "request_cache" => Some(cache.to_string()),
            _ => None,
        }
    };
    let mut r = SearchRequest::default();
    r.apply_params(&params("true")).unwrap();
    let e = super::scroll::validate(&mut r).unwrap_err();
    assert_eq!(e.reason, "Validation Failed: 1: [request_cache] cannot be used in a scroll context;");
    r.size = 0;
    let e = super::scroll::validate(&mut r).unwrap_err();
    assert_eq!(e.reason, "Validation Failed: 1: [size] cannot be [0] in a scroll context;2: [request_cache] cannot be used in a scroll context;");
    let mut r = SearchRequest::default();
    r.apply_params(&params("false")).unwrap();
    super::scroll::validate(&mut r).unwrap();
    // script_fields and rescore are kept for the shards' limit checks, then refused.
    let r = SearchRequest::from_body(json!({"script_fields": {"a": {}}, "rescore": []})).unwrap();
    assert_eq!(r.refuse_unbuilt().unwrap_err().reason, "Unknown key for a START_OBJECT in [script_fields].");
}

#[test]
fn integer_bounds_are_exact_and_out_of_range_matches_nothing() {
    let m = Mapping::from_json(
        &json!({"properties": {"u": {"type": "unsigned_long"}, "b": {"type": "byte"}, "l": {"type": "long"}}}),
    )
    .unwrap();
    let ctx = QueryContext::for_tests(&m, &[]);
    let p = |v: serde_json::Value| parse(&v, &ctx).unwrap();
    let u = |v: u64| Some(sortable::encode_u64(v).to_vec());
    let range = |f: &str, lo, hi| Query::Range {
        field: f.into(),
        lo,
        hi,
        include_lo: true,
        include_hi: true,
        kind: RangeKind::Points,
        boost: 1.0,
    };
    // A double would round 10223372036854775800 to ...5808.
    assert_eq!(
        p(json!({"term": {"u": 10223372036854775800u64}})),
        range("u", u(10223372036854775800), u(10223372036854775800))
    );
    assert_eq!(p(json!({"range": {"u": {"gt": "18446744073709551614"}}})), range("u", u(u64::MAX), None));
    assert_eq!(
        p(json!({"term": {"l": 9223372036854775807i64}})),
        range("l", Some(sortable::encode_i64(i64::MAX).to_vec()), Some(sortable::encode_i64(i64::MAX).to_vec()))
    );
    assert_eq!(p(json!({"term": {"b": 300}})), Query::MatchNone);
    assert_eq!(p(json!({"range": {"b": {"gte": 200}}})), Query::MatchNone);
    assert_eq!(p(json!({"range": {"u": {"lt": 0}}})), Query::MatchNone);
}

#[test]
fn ignored_metadata_field_is_a_keyword() {
    assert_eq!(q(json!({"term": {"_ignored": "my_date"}})).unwrap(), term("_ignored", "my_date"));
    assert_eq!(
        q(json!({"terms": {"_ignored": ["a", "b"]}})).unwrap(),
        Query::Terms { field: "_ignored".into(), terms: vec![b"a".to_vec(), b"b".to_vec()], boost: 1.0 }
    );
    assert_eq!(
        q(json!({"exists": {"field": "_ignored"}})).unwrap(),
        Query::Exists { field: "_ignored".into(), boost: 1.0 }
    );
}

#[test]
fn range_fields_are_queried_by_interval_relation() {
    use crate::engine::query::{DvFilter, IntervalRelation};
    let m = Mapping::from_json(&json!({"properties": {"r": {"type": "integer_range"}, "d": {"type": "date_range", "format": "yyyy-MM-dd"}, "nodv": {"type": "long_range", "doc_values": false}}})).unwrap();
    let ctx = QueryContext::for_tests(&m, &[]);
    let p = |v: serde_json::Value| parse(&v, &ctx);
    let k = |v: i64| sortable::encode_i64(v).to_vec();
    let iv = |lo, hi, relation| Query::DocValues {
        field: "r".into(),
        filter: DvFilter::Interval { lo, hi, relation },
        boost: 1.0,
    };
    assert_eq!(p(json!({"term": {"r": 5}})).unwrap(), iv(k(5), k(5), IntervalRelation::Intersects));
    assert_eq!(
        p(json!({"range": {"r": {"gt": 1, "lte": 9, "relation": "within"}}})).unwrap(),
        iv(k(2), k(9), IntervalRelation::Within)
    );
    assert_eq!(
        p(json!({"range": {"r": {"gte": 3, "relation": "CONTAINS"}}})).unwrap(),
        iv(k(3), vec![0xFF; 8], IntervalRelation::Contains)
    );
    assert_eq!(p(json!({"range": {"r": {"gt": 5, "lt": 6}}})).unwrap(), Query::MatchNone);
    assert!(p(json!({"range": {"r": {"gte": 3, "relation": "touches"}}})).is_err());
    assert_eq!(p(json!({"term": {"nodv": 3}})).unwrap_err().kind, crate::error::ErrorKind::QueryShard);
    assert_eq!(p(json!({"range": {"nodv": {"gte": 3}}})).unwrap_err().kind, crate::error::ErrorKind::QueryShard);
    let day = 86_400_000i64;
    assert_eq!(
        p(json!({"range": {"d": {"gte": "1970-01-02", "lt": "1970-01-03"}}})).unwrap(),
        Query::DocValues {
            field: "d".into(),
            filter: DvFilter::Interval { lo: k(day), hi: k(2 * day - 1), relation: IntervalRelation::Intersects },
            boost: 1.0
        }
    );
}

#[test]
fn keyword_terms_score_bm25_only_with_use_similarity() {
    let m = Mapping::from_json(&json!({"properties": {
        "plain": {"type": "keyword"},
        "scored": {"type": "keyword", "use_similarity": true},
    }}))
    .expect("valid mapping");
    let ctx = QueryContext::for_tests(&m, &[]);
    let q = |v: serde_json::Value| parse(&v, &ctx).unwrap();
    assert_eq!(
        q(json!({"term": {"plain": {"value": "a", "boost": 3}}})),
        Query::ConstantScore { query: Box::new(term("plain", "a")), boost: 3.0 }
    );
    assert_eq!(q(json!({"term": {"scored": {"value": "a", "boost": 3}}})), term("scored", "a").with_boost(3.0));
}
