//! Span queries parsed against a small shard: OpenSearch's errors, and `span_multi` expanded
//! (or rewritten to the `index_prefixes` subfield) like a naive filter of the shard's terms.

use std::sync::Arc;

use serde_json::json;

use crate::action::search::dsl::{parse, QueryContext};
use crate::engine::query::model::{MDoc, ModelSegment};
use crate::engine::query::spans::SpanQuery;
use crate::engine::query::{Query, SegmentView};
use crate::engine::schema::Mapping;

const WORDS: [&str; 6] = ["short", "words", "word", "wordy", "stupendous", "ab"];

fn run_with(v: serde_json::Value, extra_words: &[String]) -> Result<Query, crate::error::OsError> {
    let m = Mapping::from_json(&json!({"properties": {
        "text": {"type": "text", "index_prefixes": {"min_chars": 2, "max_chars": 5}},
        "plain": {"type": "text"},
        "k": {"type": "keyword"},
    }}))
    .expect("valid mapping");
    let words: Vec<String> = WORDS.iter().map(|w| w.to_string()).chain(extra_words.iter().cloned()).collect();
    let doc = MDoc {
        text: vec![("text".into(), words.clone()), ("plain".into(), words)],
        keyword: vec![("k".into(), vec!["x".into()])],
        ..Default::default()
    };
    let segs: Vec<Arc<dyn SegmentView>> = vec![Arc::new(ModelSegment::new(vec![doc], &[], 4))];
    let ctx = QueryContext::for_tests(&m, &segs);
    parse(&v, &ctx)
}

fn run(v: serde_json::Value) -> Result<Query, crate::error::OsError> {
    run_with(v, &[])
}

fn err(v: serde_json::Value) -> String {
    run(v).expect_err("an error").reason
}

fn span(q: Query) -> SpanQuery {
    match q {
        Query::Spans { query, .. } => *query,
        other => panic!("{other:?}"),
    }
}

#[test]
fn errors_are_opensearch_s() {
    let t = json!({"span_term": {"plain": "a"}});
    assert_eq!(
        err(json!({"span_near": {"clauses": [{"span_term": {"plain": {"value": "a", "boost": 2}}}, t]}})),
        "span_near [clauses] as a nested span clause can't have non-default boost value [2.0]"
    );
    assert_eq!(
        err(json!({"span_or": {"clauses": [{"match": {"plain": "a"}}]}})),
        "span_or [clauses] must be of type span query"
    );
    assert_eq!(err(json!({"span_near": {"clauses": []}})), "span_near must include [clauses]");
    assert_eq!(err(json!({"span_near": {"clauses": [t], "foo": 1}})), "[span_near] query does not support [foo]");
    assert_eq!(
        err(json!({"span_not": {"include": t, "exclude": t, "dist": 1, "pre": 2}})),
        "span_not can either use [dist] or [pre] & [post] (or none)"
    );
    assert_eq!(err(json!({"span_not": {"include": t}})), "span_not must have [exclude] span query clause");
    assert_eq!(err(json!({"span_first": {"match": t}})), "span_first must have [end] set for it");
    assert_eq!(err(json!({"span_containing": {"big": t}})), "inner clause [little] cannot be null.");
    assert_eq!(err(json!({"field_masking_span": {"query": t}})), "span_field_masking must have [field] set for it");
    assert_eq!(
        err(json!({"span_term": {"plain": "a", "text": "b"}})),
        "[span_term] query doesn't support multiple fields, found [plain] and [text]"
    );
    assert_eq!(
        err(json!({"span_multi": {"match": {"term": {"plain": "a"}}}})),
        "[span_multi] [match] must be of type multi term query"
    );
    assert_eq!(
        err(json!({"span_near": {"clauses": [t, {"span_gap": {"plain": 1}}, t], "in_order": false}})),
        "Gaps can only be added to ordered near queries"
    );
    assert_eq!(
        err(json!({"span_near": {"clauses": [t, {"span_term": {"text": "a"}}]}})),
        "Cannot add clause text:a to SpanNearQuery for field plain"
    );
    // A keyword term query is constant score: no term to extract (`MappedFieldType.extractTerm`).
    assert_eq!(
        err(json!({"span_term": {"k": "x"}})),
        "Cannot extract a term from a query of type class org.apache.lucene.search.ConstantScoreQuery: ConstantScore(k:x)"
    );
    let e = run(json!({"span_multi": {"match": {"prefix": {"k": "x"}}}})).unwrap_err();
    assert_eq!(e.reason, "field \"k\" was indexed without position data; cannot run SpanTermQuery (term=x)");
}

#[test]
fn span_multi_expands_over_the_shard_s_terms() {
    // No index_prefixes: the prefix's terms, in order.
    let q = span(run(json!({"span_multi": {"match": {"prefix": {"plain": "word"}}}})).unwrap());
    let want: Vec<&str> = {
        let mut w: Vec<&str> = WORDS.iter().copied().filter(|w| w.starts_with("word")).collect();
        w.sort();
        w
    };
    assert_eq!(
        q.to_string(),
        format!("spanOr([{}])", want.iter().map(|w| format!("plain:{w}")).collect::<Vec<_>>().join(", "))
    );
    // index_prefixes within min..max chars: the subfield's term, masked as the field.
    let q = span(run(json!({"span_multi": {"match": {"prefix": {"text": "word"}}}})).unwrap());
    assert_eq!(q.to_string(), "mask(text._index_prefix:word) as text");
    let SpanQuery::Mask { inner, .. } = &q else { panic!() };
    let SpanQuery::IndexPrefix { terms, .. } = &**inner else { panic!() };
    assert_eq!(terms.len(), want.len());
    // Longer than max_chars: expanded as usual.
    let q = span(run(json!({"span_multi": {"match": {"prefix": {"text": "stupen"}}}})).unwrap());
    assert_eq!(q.to_string(), "text:stupendous");
    // Nothing matches: no span.
    let q = span(run(json!({"span_multi": {"match": {"wildcard": {"plain": "zz*"}}}})).unwrap());
    assert!(q.is_no_match());
    // Too many terms.
    let many: Vec<String> = (0..1100).map(|i| format!("w{i:04}")).collect();
    let e = run_with(json!({"span_multi": {"match": {"prefix": {"plain": "w"}}}}), &many).unwrap_err();
    assert!(e.reason.ends_with("exceeds maxClauseCount [ Boolean maxClauseCount is set to 1024]"), "{}", e.reason);
}
