//! constant_keyword queries: the values each query picks, compared with a naive filter of the
//! mapping's values, and the engine query that results.

use serde_json::json;

use crate::action::search::dsl::{parse, QueryContext};
use crate::engine::query::Query;
use crate::engine::schema::Mapping;

const KEYS: [&str; 4] = ["abcde", "fgh", "xYy", "xyz"];

fn run(v: serde_json::Value) -> Result<Query, crate::error::OsError> {
    let m = Mapping::from_json(&json!({"properties": {
        "all": {"type": "constant_keyword", "values": ["xyz", "abcde", "xYy", "fgh"]},
        "dv": {"type": "constant_keyword", "values": ["xyz", "abcde", "xYy", "fgh"], "index": false},
        "none": {"type": "constant_keyword", "values": ["xyz", "abcde", "xYy", "fgh"], "index": false, "doc_values": false},
        "one": {"type": "constant_keyword", "value": "d3efault"},
    }}))
    .expect("valid mapping");
    let ctx = QueryContext::for_tests(&m, &[]);
    parse(&v, &ctx)
}

/// The keys a query on field `all` picked (by the ordinals of its query).
fn picked(q: &Query) -> Vec<&'static str> {
    let of = |t: &[u8]| KEYS[t[0] as usize];
    match q {
        Query::MatchNone => vec![],
        Query::Term { term, .. } => vec![of(term)],
        Query::Terms { terms, .. } => terms.iter().map(|t| of(t)).collect(),
        other => panic!("{other:?}"),
    }
}

fn naive(pred: impl Fn(&str) -> bool) -> Vec<&'static str> {
    KEYS.iter().copied().filter(|k| pred(k)).collect()
}

#[test]
fn queries_pick_the_values_a_naive_filter_picks() {
    let cases: Vec<(serde_json::Value, Vec<&str>)> = vec![
        (json!({"term": {"all": "fgh"}}), naive(|k| k == "fgh")),
        (
            json!({"term": {"all": {"value": "fGh", "case_insensitive": true}}}),
            naive(|k| k.eq_ignore_ascii_case("fgh")),
        ),
        (json!({"terms": {"all": ["xyz", "xy2"]}}), naive(|k| k == "xyz")),
        (json!({"prefix": {"all": "x"}}), naive(|k| k.starts_with('x'))),
        (
            json!({"prefix": {"all": {"value": "XY", "case_insensitive": true}}}),
            naive(|k| k.to_lowercase().starts_with("xy")),
        ),
        (json!({"wildcard": {"all": "*g*"}}), naive(|k| k.contains('g'))),
        (json!({"regexp": {"all": "x.*"}}), naive(|k| k.starts_with('x'))),
        (json!({"fuzzy": {"all": {"value": "xz", "fuzziness": 2}}}), vec!["xYy", "xyz"]),
        (json!({"range": {"all": {"gte": "f", "lt": "xYy"}}}), naive(|k| ("f".."xYy").contains(&k))),
        (json!({"range": {"all": {"gt": "abcde", "lte": "xyz"}}}), naive(|k| k > "abcde" && k <= "xyz")),
        (json!({"term": {"all": "nope"}}), vec![]),
    ];
    for (q, want) in cases {
        let got = run(q.clone()).unwrap();
        let mut p = picked(&got);
        p.sort();
        assert_eq!(p, want, "{q}");
    }
}

#[test]
fn query_shapes_follow_opensearch() {
    // One value among several, indexed: a (scored) term query on its ordinal.
    assert_eq!(
        run(json!({"term": {"all": "fgh"}})).unwrap(),
        Query::Term { field: "all".into(), term: vec![1], boost: 1.0 }
    );
    // Not indexed: a terms query (doc-values-like, constant score).
    assert_eq!(
        run(json!({"term": {"dv": "fgh"}})).unwrap(),
        Query::Terms { field: "dv".into(), terms: vec![vec![1]], boost: 1.0 }
    );
    // Every value: exists.
    assert_eq!(run(json!({"exists": {"field": "all"}})).unwrap(), run(json!({"wildcard": {"all": "*"}})).unwrap());
    assert_eq!(run(json!({"exists": {"field": "none"}})).unwrap(), Query::MatchNone);
    assert!(run(json!({"term": {"none": "fgh"}})).is_err());
    // A single-valued field: all or nothing.
    assert_eq!(run(json!({"term": {"one": "d3efault"}})).unwrap(), Query::MatchAll { boost: 1.0 });
    assert_eq!(run(json!({"match": {"one": "d3efault"}})).unwrap(), Query::MatchAll { boost: 1.0 });
    assert_eq!(run(json!({"exists": {"field": "one"}})).unwrap(), Query::MatchAll { boost: 1.0 });
    assert_eq!(run(json!({"regexp": {"one": "d\\defau[a-z]?t"}})).unwrap(), Query::MatchAll { boost: 1.0 });
    assert_eq!(run(json!({"regexp": {"one": "d\\defa[a-z]?t"}})).unwrap(), Query::MatchNone);
    assert_eq!(
        run(json!({"range": {"one": {"from": "d3efault", "include_lower": "false"}}})).unwrap(),
        Query::MatchNone
    );
    assert_eq!(run(json!({"range": {"one": {"from": null, "to": null}}})).unwrap(), Query::MatchAll { boost: 1.0 });
    assert_eq!(
        run(json!({"range": {"one": {"from": "d3efaul", "to": "d3efault1"}}})).unwrap(),
        Query::MatchAll { boost: 1.0 }
    );
}
