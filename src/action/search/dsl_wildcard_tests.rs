//! Wildcard-field queries: the engine queries they become, and the terms `regexp` and
//! `case_insensitive` pick out of a segment's values compared with a naive matcher.

use std::collections::BTreeSet;
use std::sync::Arc;

use serde_json::json;

use crate::action::search::dsl::{parse, QueryContext};
use crate::action::search::execute::analyzers;
use crate::engine::analysis::IndexAnalysis;
use crate::engine::query::multi_term::{parse_wildcard, wildcard_matches};
use crate::engine::query::{Query, SegmentView, TermStats};
use crate::engine::schema::Mapping;
use crate::engine::segment::{DocId, Postings};

/// A segment that only has a term dictionary (what `regexp` and `case_insensitive` read).
struct TermsOnly(BTreeSet<Vec<u8>>);

impl SegmentView for TermsOnly {
    fn max_doc(&self) -> u32 {
        0
    }
    fn is_live(&self, _: DocId) -> bool {
        false
    }
    fn has_deletions(&self) -> bool {
        false
    }
    fn field_stats(&self, _: &str) -> Option<crate::engine::query::FieldStats> {
        None
    }
    fn term_stats(&self, _: &str, _: &[u8]) -> crate::engine::Result<Option<TermStats>> {
        Ok(None)
    }
    fn postings(&self, _: &str, _: &[u8], _: bool) -> crate::engine::Result<Option<Box<dyn Postings + '_>>> {
        Ok(None)
    }
    fn visit_terms(&self, field: &str, from: &[u8], f: &mut dyn FnMut(&[u8]) -> bool) -> crate::engine::Result<()> {
        if field == "w" || field == "w.lower" {
            for t in self.0.range(from.to_vec()..) {
                if !f(t) {
                    break;
                }
            }
        }
        Ok(())
    }
    fn norms(&self, _: &str) -> Option<&[u8]> {
        None
    }
    fn points_docs(&self, _: &str, _: &[u8], _: &[u8]) -> crate::engine::Result<Option<Vec<DocId>>> {
        Ok(None)
    }
    fn numeric_values(&self, _: &str, _: DocId, _: &mut Vec<i64>) -> bool {
        false
    }
    fn sorted_set_ords(&self, _: &str, _: DocId, _: &mut Vec<u64>) -> bool {
        false
    }
    fn sorted_set_term(&self, _: &str, _: u64) -> crate::engine::Result<Vec<u8>> {
        Ok(vec![])
    }
    fn has_value(&self, _: &str, _: DocId) -> bool {
        false
    }
}

const VALUES: [&str; 8] = ["AbCd", "ABCD", "abcd", "*", "\\*", "[2024] node x", "org.Node.Exception", "x?y"];

fn run(v: serde_json::Value) -> Result<Query, crate::error::OsError> {
    let m = Mapping::from_json(&json!({"properties": {
        "w": {"type": "wildcard", "fields": {"lower": {"type": "wildcard", "normalizer": "lowercase"}}},
        "k": {"type": "keyword"},
        "wa": {"type": "alias", "path": "w"},
    }}))
    .expect("valid mapping");
    let analysis = IndexAnalysis::from_settings(&json!({})).expect("analysis");
    let seg: Arc<dyn SegmentView> = Arc::new(TermsOnly(VALUES.iter().map(|v| v.as_bytes().to_vec()).collect()));
    let segs = [seg];
    let ctx = QueryContext {
        mapping: &m,
        analyzers: analyzers(),
        segments: &segs,
        index: "idx",
        now_millis: 0,
        analysis: Some(&analysis),
        max_regex_length: crate::action::search::limits::DEFAULT_MAX_REGEX_LENGTH,
        warnings: &Default::default(),
        nested_scope: None,
        allow_expensive: true,
    };
    parse(&v, &ctx)
}

fn terms_of(q: &Query) -> Vec<String> {
    match q {
        Query::Terms { terms, .. } => terms.iter().map(|t| String::from_utf8_lossy(t).into_owned()).collect(),
        Query::MatchNone => vec![],
        other => panic!("not a terms query: {other:?}"),
    }
}

#[test]
fn mapping_parses_and_prints_like_opensearch() {
    let m = Mapping::from_json(&json!({"properties": {
        "a": {"type": "wildcard"},
        "b": {"type": "wildcard", "doc_values": false, "ignore_above": 10, "null_value": "n", "normalizer": "lowercase"},
    }}))
    .unwrap();
    let out = m.to_json();
    assert_eq!(out["properties"]["a"], json!({"type": "wildcard", "doc_values": true}));
    assert_eq!(
        out["properties"]["b"],
        json!({"type": "wildcard", "doc_values": false, "ignore_above": 10, "null_value": "n", "normalizer": "lowercase"})
    );
    for bad in ["index", "store", "eager_global_ordinals"] {
        let e = Mapping::from_json(&json!({"properties": {"a": {"type": "wildcard", bad: true}}})).unwrap_err();
        assert!(e.to_string().contains(&format!("unknown parameter [{bad}] on mapper [a] of type [wildcard]")), "{e}");
    }
    // Not mergeable with keyword.
    let k = Mapping::from_json(&json!({"properties": {"a": {"type": "keyword"}}})).unwrap();
    assert!(m.merge(&k).is_err());
}

#[test]
fn values_index_as_one_keyword_term() {
    let m =
        Mapping::from_json(&json!({"properties": {"a": {"type": "wildcard", "ignore_above": 3, "null_value": "nil"}}}))
            .unwrap();
    use crate::engine::schema::FieldValue::Keyword;
    let vals = |src: &[u8]| -> Vec<_> {
        let doc = m.parse("1", src).unwrap();
        doc.fields.iter().filter(|f| f.name == "a").map(|f| (f.value.clone(), f.index, f.doc_values)).collect()
    };
    assert_eq!(vals(br#"{"a": ["abc", "abcd"]}"#), vec![(Keyword("abc".into()), true, true)]);
    assert_eq!(vals(br#"{"a": null}"#), vec![(Keyword("nil".into()), true, true)]);
}

#[test]
fn term_and_terms_are_constant_score() {
    let t = |f: &str, v: &str| Query::ConstantScore { query: Box::new(Query::term(f, v)), boost: 1.0 };
    assert_eq!(run(json!({"term": {"w": "AbCd"}})).unwrap(), t("w", "AbCd"));
    assert_eq!(run(json!({"term": {"w.lower": "ABCD"}})).unwrap(), t("w.lower", "abcd"));
    assert_eq!(run(json!({"match": {"w": "A b"}})).unwrap(), t("w", "A b"));
    // terms: values as given, even on a normalized field (OpenSearch's termsQuery).
    assert_eq!(terms_of(&run(json!({"terms": {"w.lower": ["ABCD", "\\*"]}})).unwrap()), vec!["ABCD", "\\*"]);
    // So are keyword term queries (OpenSearch 3), unless the mapping sets `use_similarity`.
    assert_eq!(run(json!({"term": {"k": "AbCd"}})).unwrap(), t("k", "AbCd"));
}

#[test]
fn prefix_is_a_wildcard_of_value_star() {
    assert_eq!(
        run(json!({"prefix": {"w": "[2024"}})).unwrap(),
        Query::Wildcard { field: "w".into(), pattern: "[2024*".into(), boost: 1.0 }
    );
    assert_eq!(
        run(json!({"prefix": {"w.lower": "NoDe"}})).unwrap(),
        Query::Wildcard { field: "w.lower".into(), pattern: "node*".into(), boost: 1.0 }
    );
    assert_eq!(
        terms_of(&run(json!({"prefix": {"w": {"value": "ab", "case_insensitive": true}}})).unwrap()),
        vec!["ABCD", "AbCd", "abcd"]
    );
}

#[test]
fn wildcard_patterns_normalize_their_literals() {
    assert_eq!(
        run(json!({"wildcard": {"w.lower": {"value": "*NODE*\\*"}}})).unwrap(),
        Query::Wildcard { field: "w.lower".into(), pattern: "*node*\\*".into(), boost: 1.0 }
    );
    assert_eq!(
        terms_of(&run(json!({"wildcard": {"w": {"value": "abcd", "case_insensitive": true}}})).unwrap()),
        vec!["ABCD", "AbCd", "abcd"]
    );
}

/// Regexp expansion against a naive check of every value.
#[test]
fn regexp_matches_the_values_a_naive_matcher_picks() {
    for (pattern, ci) in [
        (".*", false),
        ("AbCd", false),
        ("AbCd", true),
        ("\\*", false),
        ("\\\\\\*", false),
        (".*[Nn]ode.*", false),
        ("x.y", false),
    ] {
        let re = regex::RegexBuilder::new(&format!("^(?:{pattern})$")).case_insensitive(ci).build().unwrap();
        let mut want: Vec<&str> = VALUES.iter().copied().filter(|v| re.is_match(v)).collect();
        want.sort();
        let got = terms_of(&run(json!({"regexp": {"w": {"value": pattern, "case_insensitive": ci}}})).unwrap());
        assert_eq!(got, want, "{pattern} ci={ci}");
    }
    // The pattern is normalized on a normalized field.
    let got = terms_of(&run(json!({"regexp": {"w.lower": ".*NODE.*"}})).unwrap());
    assert_eq!(got, vec!["[2024] node x"]);
}

/// The engine's wildcard matcher agrees with a naive recursive matcher on the escapes the
/// conformance tests use.
#[test]
fn wildcard_matching_agrees_with_a_naive_model() {
    fn naive(p: &[char], t: &[char]) -> bool {
        match p.split_first() {
            None => t.is_empty(),
            Some(('*', rest)) => (0..=t.len()).any(|i| naive(rest, &t[i..])),
            Some(('?', rest)) => !t.is_empty() && naive(rest, &t[1..]),
            Some(('\\', rest)) if !rest.is_empty() => !t.is_empty() && t[0] == rest[0] && naive(&rest[1..], &t[1..]),
            Some((c, rest)) => !t.is_empty() && t[0] == *c && naive(rest, &t[1..]),
        }
    }
    for p in ["*", "\\*", "\\\\\\*", "*Node*Exception*", "?bcd", "a*d", "x\\?y", "*\\**"] {
        let pc: Vec<char> = p.chars().collect();
        for v in VALUES {
            let vc: Vec<char> = v.chars().collect();
            assert_eq!(wildcard_matches(&parse_wildcard(p), v), naive(&pc, &vc), "{p} on {v}");
        }
    }
}

/// query_string `/regexp/` clauses, and aliases resolved to their target by every query family.
#[test]
fn query_string_regexp_and_aliases() {
    let abcd = vec!["ABCD", "AbCd", "abcd"];
    assert_eq!(terms_of(&run(json!({"query_string": {"query": "w:/[Aa][Bb][Cc]d|ABCD/"}})).unwrap()), abcd);
    assert_eq!(terms_of(&run(json!({"query_string": {"query": "wa: /[Aa][Bb][Cc]d|ABCD/"}})).unwrap()), abcd);
    assert_eq!(terms_of(&run(json!({"regexp": {"wa": "[Aa][Bb][Cc]d|ABCD"}})).unwrap()), abcd);
    assert_eq!(run(json!({"term": {"wa": "x"}})).unwrap(), run(json!({"term": {"w": "x"}})).unwrap());
    assert_eq!(run(json!({"match": {"wa": "x"}})).unwrap(), run(json!({"match": {"w": "x"}})).unwrap());
    assert_eq!(run(json!({"exists": {"field": "wa"}})).unwrap(), Query::Exists { field: "w".into(), boost: 1.0 });
    assert!(run(json!({"query_string": {"query": "w:/abc"}})).is_err());
}

#[test]
fn fuzzy_and_range_are_rejected() {
    let e = run(json!({"fuzzy": {"w": "abc"}})).unwrap_err();
    assert!(
        format!("{e:?}")
            .contains("Can only use fuzzy queries on keyword and text fields - not on [w] which is of type [wildcard]"),
        "{e:?}"
    );
    assert!(run(json!({"range": {"w": {"gte": "a"}}})).is_err());
}
