//! A keyword sort with a custom `missing` value (`"missing": "zzz"`): documents without a value
//! sort as if they held it (OpenSearch replaces the missing ordinal with the value's). The engine
//! places missing keywords only first or last, so a unit runs twice: once over the documents with
//! a value and once over those without, whose sort value becomes the missing value, and the two
//! are merged.

use std::cmp::Ordering;

use serde_json::Value;

use super::sort::{SortSpec, ValueFormat};
use crate::engine::query::{
    self, sort::cmp_values, Hit, Query, Relation, SortBy, SortField, SortValue, TopDocs, TopSpec,
};
use crate::error::OsResult;

/// The first keyword sort field with a custom `missing` value: its index and the value's bytes.
pub fn keyword_missing(specs: &[SortSpec], fields: &[(SortField, ValueFormat)]) -> Option<(usize, Vec<u8>)> {
    specs.iter().zip(fields).enumerate().find_map(|(i, (s, (f, fmt)))| {
        let v = s.missing_value.as_ref()?;
        if !matches!(f.by, SortBy::Keyword(_)) || !matches!(fmt, ValueFormat::Plain) {
            return None;
        }
        Some((
            i,
            match v {
                Value::String(t) => t.clone().into_bytes(),
                other => other.to_string().into_bytes(),
            },
        ))
    })
}

fn bool_query(q: &Query, filter: Vec<Query>, must_not: Vec<Query>) -> Query {
    Query::Bool { must: vec![q.clone()], should: vec![], must_not, filter, minimum_should_match: 0, boost: 1.0 }
}

/// Runs `query` sorted by `spec` with field `fi` (a keyword) treating documents without a value
/// as holding `missing` (`spec.from` must be 0).
pub fn search(searcher: &query::Searcher, q: &Query, spec: &TopSpec, fi: usize, missing: &[u8]) -> OsResult<TopDocs> {
    let Some(SortField { by: SortBy::Keyword(field), .. }) = spec.sort.get(fi) else {
        return Ok(searcher.search(q, spec)?);
    };
    let exists = Query::Exists { field: field.clone(), boost: 1.0 };
    let with = searcher.search(&bool_query(q, vec![exists.clone()], vec![]), spec)?;
    let missing_v = SortValue::Bytes(missing.to_vec());
    // Documents without a value all sort as `missing` on this field: against `search_after` they
    // are all after it, all before it, or tied (then the later fields decide).
    let mut without_spec = spec.clone();
    let run_without = match &spec.after {
        None => true,
        Some(after) => match after.get(fi).map(|a| query::sort::cmp_value(&missing_v, a, &spec.sort[fi])) {
            Some(Ordering::Greater) | None => {
                without_spec.after = None;
                true
            }
            Some(Ordering::Less) => false,
            Some(Ordering::Equal) => {
                let mut a = after.clone();
                a[fi] = SortValue::Null;
                without_spec.after = Some(a);
                true
            }
        },
    };
    let without =
        if run_without { Some(searcher.search(&bool_query(q, vec![], vec![exists]), &without_spec)?) } else { None };
    let mut hits: Vec<Hit> = with.hits;
    let (mut total, mut relation, mut max_score) = (with.total.0, with.total.1, with.max_score);
    let mut timed_out = with.timed_out;
    if let Some(w) = without {
        timed_out |= w.timed_out;
        total += w.total.0;
        if w.total.1 == Relation::Gte {
            relation = Relation::Gte;
        }
        if let Some(m) = w.max_score {
            max_score = Some(max_score.map_or(m, |x: f32| x.max(m)));
        }
        hits.extend(w.hits.into_iter().map(|mut h| {
            if let Some(v) = h.sort_values.get_mut(fi) {
                *v = missing_v.clone();
            }
            h
        }));
    }
    hits.sort_by(|a, b| {
        cmp_values(&a.sort_values, &b.sort_values, &spec.sort).then(a.segment.cmp(&b.segment)).then(a.doc.cmp(&b.doc))
    });
    // Both runs skipped `spec.from` hits of their own; callers pass `from: 0`.
    hits.truncate(spec.size);
    Ok(TopDocs { total: (total, relation), hits, max_score, timed_out })
}
