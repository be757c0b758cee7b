//! `match_only_text` phrases: the field is indexed without positions, so a phrase query on it
//! becomes OpenSearch's `SourceFieldMatchQuery`: the conjunction of its terms finds candidates,
//! and each candidate's `_source` values are re-analyzed into a one-document index where the
//! phrase itself must match. Matches score the query's boost (a constant).

use std::sync::Arc;

use serde_json::Value;

use super::dsl::QueryContext;
use super::fetch::values_at;
use crate::engine::analysis::Analyzer;
use crate::engine::query::memory_index::MemoryIndex;
use crate::engine::query::verified::{CheckRef, DocCheck};
use crate::engine::query::{Query, SegmentView};
use crate::engine::schema::{FieldKind, Mapper, Mapping};
use crate::engine::segment::DocId;
use crate::engine::{Error, Result};

/// Rewrites every phrase over a `match_only_text` field in `q` into a source-checked query.
pub fn verify_phrases(q: Query, ctx: &QueryContext<'_>) -> Query {
    rewrite(q, ctx, 0)
}

fn rewrite(q: Query, ctx: &QueryContext<'_>, depth: usize) -> Query {
    if depth > 128 {
        return q;
    }
    let all = |v: Vec<Query>| v.into_iter().map(|c| rewrite(c, ctx, depth + 1)).collect::<Vec<_>>();
    match q {
        Query::Phrase { ref field, ref terms, boost, .. } if terms.len() > 1 => match checker(ctx, field, &q) {
            Some(check) => {
                let filter = terms
                    .iter()
                    .map(|(t, _)| Query::Term { field: field.clone(), term: t.clone(), boost: 1.0 })
                    .collect();
                verified(filter, check, boost)
            }
            None => q,
        },
        Query::MultiPhrase { ref field, ref positions, boost, .. } if positions.len() > 1 => {
            match checker(ctx, field, &q) {
                Some(check) => {
                    let filter = positions
                        .iter()
                        .map(|(ts, _)| match ts.as_slice() {
                            [one] => Query::Term { field: field.clone(), term: one.clone(), boost: 1.0 },
                            many => Query::Terms { field: field.clone(), terms: many.to_vec(), boost: 1.0 },
                        })
                        .collect();
                    verified(filter, check, boost)
                }
                None => q,
            }
        }
        Query::Bool { must, should, must_not, filter, minimum_should_match, boost } => Query::Bool {
            must: all(must),
            should: all(should),
            must_not: all(must_not),
            filter: all(filter),
            minimum_should_match,
            boost,
        },
        Query::ConstantScore { query, boost } => {
            Query::ConstantScore { query: Box::new(rewrite(*query, ctx, depth + 1)), boost }
        }
        // The children's source is their nested object's (see `nested_source`).
        Query::Nested { mut join, boost } => {
            join.query = rewrite(join.query, ctx, depth + 1);
            Query::Nested { join, boost }
        }
        Query::DisMax { queries, tie_breaker, boost } => Query::DisMax { queries: all(queries), tie_breaker, boost },
        Query::Boosting { positive, negative, negative_boost, boost } => Query::Boosting {
            positive: Box::new(rewrite(*positive, ctx, depth + 1)),
            negative: Box::new(rewrite(*negative, ctx, depth + 1)),
            negative_boost,
            boost,
        },
        Query::FunctionScore { mut spec, boost } => {
            spec.query = rewrite(spec.query, ctx, depth + 1);
            for f in spec.functions.iter_mut() {
                if let Some(fq) = f.filter.take() {
                    f.filter = Some(rewrite(fq, ctx, depth + 1));
                }
            }
            Query::FunctionScore { spec, boost }
        }
        other => other,
    }
}

fn verified(filter: Vec<Query>, check: SourcePhrase, boost: f32) -> Query {
    let approx =
        Query::Bool { must: vec![], should: vec![], must_not: vec![], filter, minimum_should_match: 0, boost: 1.0 };
    Query::Verified { approx: Box::new(approx), check: CheckRef(Arc::new(check)), boost }
}

/// The check of a phrase over `field` when it is a `match_only_text` field.
fn checker(ctx: &QueryContext<'_>, field: &str, phrase: &Query) -> Option<SourcePhrase> {
    let ft = ctx.mapping.field_type(field)?;
    let FieldKind::Text(p) = &ft.kind else { return None };
    if !p.match_only {
        return None;
    }
    let analyzer_name = p.analyzer.clone().unwrap_or_else(|| "default".into());
    let analyzer = ctx.analyzers.get(&analyzer_name)?;
    let gap = p.position_increment_gap.unwrap_or(100);
    Some(SourcePhrase {
        field: field.to_string(),
        source_paths: source_paths(ctx.mapping, field),
        analyzer,
        gap,
        phrase: phrase.with_boost(1.0),
    })
}

/// Where a field's values come from in `_source`: its own path (the parent's for a
/// multi-field) and the paths of the fields that `copy_to` it.
fn source_paths(mapping: &Mapping, field: &str) -> Vec<String> {
    let mut own = field.to_string();
    while !matches!(mapping.mapper(&own), Some(Mapper::Field(_))) {
        match own.rfind('.') {
            Some(i) => own.truncate(i),
            None => {
                own = field.to_string();
                break;
            }
        }
    }
    let mut out = vec![own];
    for (path, ft) in mapping.leaf_fields() {
        if ft.copy_to.iter().any(|c| c == field) && !out.contains(&path) {
            out.push(path);
        }
    }
    out
}

/// Re-analyzes a candidate's `_source` values and runs the phrase on them.
struct SourcePhrase {
    field: String,
    source_paths: Vec<String>,
    analyzer: Arc<dyn Analyzer>,
    gap: u32,
    phrase: Query,
}

impl SourcePhrase {
    /// The one-document index of `source`'s values for the field.
    fn index_of(&self, source: &Value) -> MemoryIndex {
        let mut values = Vec::new();
        for p in &self.source_paths {
            values_at(source, p, &mut values);
        }
        let mut mem = MemoryIndex::new();
        let mut next: Option<u32> = None;
        for v in values {
            let text = match v {
                Value::String(s) => s,
                Value::Number(n) => n.to_string(),
                Value::Bool(b) => b.to_string(),
                _ => continue,
            };
            let first = next.map_or(0, |n| n + self.gap);
            let end =
                self.analyzer.analyze(&text, first, &mut |tok| mem.add(&self.field, tok.term.as_bytes(), tok.position));
            next = Some(end.next_position);
        }
        mem
    }
}

impl DocCheck for SourcePhrase {
    fn matches(&self, seg: &dyn SegmentView, doc: DocId) -> Result<bool> {
        let Some(bytes) = seg.source(doc)? else { return Ok(false) };
        if bytes.is_empty() {
            return Ok(false);
        }
        let source: Value = serde_json::from_slice(&bytes)
            .map_err(|e| Error::InvalidArgument(format!("stored _source of doc {doc} is not JSON: {e}")))?;
        self.index_of(&source).matches(&self.phrase)
    }

    fn describe(&self) -> String {
        self.phrase.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::analysis::AnalyzerRegistry;
    use serde_json::json;

    fn check(phrase: Query) -> SourcePhrase {
        let reg = AnalyzerRegistry::with_builtins();
        SourcePhrase {
            field: "t".into(),
            source_paths: vec!["t".into()],
            analyzer: reg.get("standard").expect("standard analyzer"),
            gap: 100,
            phrase,
        }
    }

    fn phrase(words: &[&str], slop: u32) -> Query {
        Query::Phrase {
            field: "t".into(),
            terms: words.iter().enumerate().map(|(i, w)| (w.as_bytes().to_vec(), i as u32)).collect(),
            slop,
            boost: 1.0,
        }
    }

    #[test]
    fn phrases_match_the_reanalyzed_source() {
        let src = json!({"t": "Peter Piper picked a peck of pickled peppers"});
        assert!(check(phrase(&["peter", "piper"], 0)).index_of(&src).matches(&phrase(&["peter", "piper"], 0)).unwrap());
        let c = check(phrase(&["peter", "picked"], 0));
        assert!(!c.index_of(&src).matches(&c.phrase).unwrap());
        let c = check(phrase(&["peter", "picked"], 1));
        assert!(c.index_of(&src).matches(&c.phrase).unwrap());
    }

    #[test]
    fn array_values_are_apart_by_the_gap() {
        let src = json!({"t": ["one two", "three four"]});
        let c = check(phrase(&["two", "three"], 0));
        assert!(!c.index_of(&src).matches(&c.phrase).unwrap());
        let c = check(phrase(&["two", "three"], 100));
        assert!(c.index_of(&src).matches(&c.phrase).unwrap());
        let c = check(phrase(&["three", "four"], 0));
        assert!(c.index_of(&src).matches(&c.phrase).unwrap());
    }
}
