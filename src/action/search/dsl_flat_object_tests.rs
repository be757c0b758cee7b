//! flat_object queries: which sub-field and which values each query form becomes.

use serde_json::json;

use crate::action::search::dsl::{parse, QueryContext};
use crate::engine::query::{Query, RangeKind};
use crate::engine::schema::Mapping;

fn run(v: serde_json::Value) -> Result<Query, crate::error::OsError> {
    let m = Mapping::from_json(&json!({"properties": {
        "c": {"type": "flat_object"},
        "issue": {"properties": {"labels": {"type": "flat_object"}}},
        "k": {"type": "keyword"},
    }}))
    .expect("valid mapping");
    let ctx = QueryContext::for_tests(&m, &[]);
    parse(&v, &ctx)
}

/// A term on a flat_object sub-field: a keyword term, constant score (OpenSearch 3).
fn cterm(f: &str, v: &str) -> Query {
    Query::ConstantScore { query: Box::new(Query::term(f, v)), boost: 1.0 }
}

#[test]
fn root_and_key_paths_go_to_their_sub_fields() {
    assert_eq!(run(json!({"term": {"c": "Mike"}})).unwrap(), cterm("c._value", "Mike"));
    assert_eq!(
        run(json!({"term": {"c.author.given": "Mike"}})).unwrap(),
        cterm("c._valueAndPath", "c.author.given=Mike")
    );
    assert_eq!(
        run(json!({"term": {"issue.labels.status": 1}})).unwrap(),
        cterm("issue.labels._valueAndPath", "issue.labels.status=1")
    );
    assert_eq!(
        run(json!({"match": {"c.title": "Lucene in Action"}})).unwrap(),
        cterm("c._valueAndPath", "c.title=Lucene in Action")
    );
    assert_eq!(run(json!({"match": {"c": "Lucene in Action"}})).unwrap(), cterm("c._value", "Lucene in Action"));
    assert_eq!(
        run(json!({"prefix": {"c.author.given": {"value": "Mi"}}})).unwrap(),
        Query::Prefix { field: "c._valueAndPath".into(), prefix: b"c.author.given=Mi".to_vec(), boost: 1.0 }
    );
    assert_eq!(
        run(json!({"terms": {"c.a": ["x", "y"]}})).unwrap(),
        Query::Terms { field: "c._valueAndPath".into(), terms: vec![b"c.a=x".to_vec(), b"c.a=y".to_vec()], boost: 1.0 }
    );
    assert_eq!(
        run(json!({"wildcard": {"c.a*": "*P*"}})).unwrap(),
        Query::Wildcard { field: "c._valueAndPath".into(), pattern: "c.a\\*=*P*".into(), boost: 1.0 }
    );
    // The sub-fields by name are plain keyword fields.
    assert_eq!(run(json!({"term": {"c._value": "x"}})).unwrap(), cterm("c._value", "x"));
    // Other fields are untouched.
    assert_eq!(run(json!({"term": {"k": "x"}})).unwrap(), cterm("k", "x"));
}

#[test]
fn ranges_on_key_paths_stay_within_the_path() {
    let r = |lo: &str, hi: &str, il: bool, ih: bool| Query::Range {
        field: "c._valueAndPath".into(),
        lo: Some(lo.as_bytes().to_vec()),
        hi: Some(hi.as_bytes().to_vec()),
        include_lo: il,
        include_hi: ih,
        kind: RangeKind::Terms,
        boost: 1.0,
    };
    assert_eq!(
        run(json!({"range": {"c.id": {"gte": "c-0000", "lte": "c-0006"}}})).unwrap(),
        r("c.id=c-0000", "c.id=c-0006", true, true)
    );
    assert_eq!(run(json!({"range": {"c.id": {"gt": "b"}}})).unwrap(), r("c.id=b", "c.id>", false, false));
    assert_eq!(run(json!({"range": {"c.id": {"lt": "b"}}})).unwrap(), r("c.id=", "c.id=b", true, false));
    assert!(matches!(run(json!({"range": {"c": {"gte": "a"}}})).unwrap(), Query::Range { hi: None, .. }));
}

#[test]
fn boolean_similarity_scores_the_boost() {
    let m =
        Mapping::from_json(&json!({"properties": {"c": {"type": "flat_object", "similarity": "boolean"}}})).unwrap();
    let ctx = QueryContext::for_tests(&m, &[]);
    assert_eq!(
        parse(&json!({"term": {"c.a": {"value": "x", "boost": 2.0}}}), &ctx).unwrap(),
        Query::ConstantScore { query: Box::new(Query::term("c._valueAndPath", "c.a=x")), boost: 2.0 }
    );
}

#[test]
fn exists_reads_the_key_paths() {
    assert_eq!(run(json!({"exists": {"field": "c"}})).unwrap(), Query::Exists { field: "c".into(), boost: 1.0 });
    assert_eq!(
        run(json!({"exists": {"field": "c.id"}})).unwrap(),
        Query::ConstantScore { query: Box::new(Query::term("c", "c.id")), boost: 1.0 }
    );
}
