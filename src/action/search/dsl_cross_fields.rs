//! `multi_match` `cross_fields`, as OpenSearch's `MultiMatchQuery.CrossFieldsQueryBuilder`
//! builds it: the fields are grouped by search analyzer (text fields by their analyzer; keyword
//! fields without a normalizer and other types share Lucene's keyword analyzer; a normalizer is
//! its own group; an `analyzer` parameter puts every field in one group). A group of one field is
//! a plain `match` on it with its boost. In a larger group the text is analyzed once and each
//! term becomes a [`Query::Blended`] over the group's fields (`BlendedTermQuery.
//! dismaxBlendedQuery`: shared doc freqs, dis_max with the tie breaker); fields whose term query
//! is not a plain term (numbers, dates, booleans) join that dis_max as their own queries. The
//! operator and `minimum_should_match` apply to a group's terms; groups combine in a dis_max.

use serde_json::Value;

use super::dsl::{dis_max, min_should_match, str_of, QueryContext};
use super::dsl_keyword;
use super::dsl_term;
use super::dsl_text::{analyze, match_field, MatchKind, MatchOptions};
use crate::engine::query::blended::{Blend, BlendedTerm};
use crate::engine::query::Query;
use crate::engine::schema::FieldKind;
use crate::error::OsResult;

/// How a field's query text is analyzed (the grouping key).
#[derive(Debug, Clone, PartialEq, Eq)]
enum GroupKey {
    /// A text field's search analyzer (or the request's `analyzer`).
    Analyzer(String),
    /// A keyword field's normalizer.
    Normalizer(String),
    /// Lucene's keyword analyzer: keywords without a normalizer, numbers, dates, booleans, ips.
    Keyword,
}

fn group_key(ctx: &QueryContext<'_>, field: &str, analyzer: Option<&str>) -> Option<GroupKey> {
    let ft = ctx.mapping.field_type(field)?;
    if let Some(a) = analyzer {
        return Some(GroupKey::Analyzer(a.to_string()));
    }
    Some(match &ft.kind {
        FieldKind::Text(p) => GroupKey::Analyzer(
            p.search_analyzer.clone().or_else(|| p.analyzer.clone()).unwrap_or_else(|| "default".into()),
        ),
        FieldKind::Keyword(k) => match &k.normalizer {
            Some(n) => GroupKey::Normalizer(n.clone()),
            None => GroupKey::Keyword,
        },
        _ => GroupKey::Keyword,
    })
}

/// `cross_fields` over `fields` (already expanded, with boosts).
pub fn cross_fields(
    ctx: &QueryContext<'_>,
    fields: &[(String, f32)],
    text: &Value,
    o: &MatchOptions,
    tie: f32,
) -> OsResult<Query> {
    if let [(f, b)] = fields {
        return match_field(ctx, f, text, MatchKind::Bool, &MatchOptions { boost: *b, ..o.clone() });
    }
    let mut groups: Vec<(GroupKey, Vec<(String, f32)>)> = Vec::new();
    for (f, b) in fields {
        let Some(key) = group_key(ctx, f, o.analyzer.as_deref()) else { continue };
        match groups.iter_mut().find(|(k, _)| *k == key) {
            Some((_, fs)) => fs.push((f.clone(), *b)),
            None => groups.push((key, vec![(f.clone(), *b)])),
        }
    }
    let mut queries = Vec::with_capacity(groups.len());
    for (key, fs) in &groups {
        let q = match fs.as_slice() {
            [(f, b)] => match_field(ctx, f, text, MatchKind::Bool, &MatchOptions { boost: *b, ..o.clone() })?,
            _ => blended_group(ctx, key, fs, text, o, tie)?,
        };
        queries.push(q);
    }
    Ok(dis_max(queries, tie))
}

/// The match query of one group of several fields.
fn blended_group(
    ctx: &QueryContext<'_>,
    key: &GroupKey,
    fields: &[(String, f32)],
    text: &Value,
    o: &MatchOptions,
    tie: f32,
) -> OsResult<Query> {
    let s = str_of("multi_match", "query", text)?;
    let tokens: Vec<String> = match key {
        GroupKey::Analyzer(_) => {
            let first = &fields[0].0;
            analyze(ctx, first, o.analyzer.as_deref(), &s)?.into_iter().map(|(t, _)| t).collect()
        }
        // A normalizer (or the keyword analyzer) yields the whole text as one term.
        GroupKey::Normalizer(_) => vec![dsl_keyword::normalize(ctx, &fields[0].0, &s)],
        GroupKey::Keyword => vec![s.clone()],
    };
    if tokens.is_empty() {
        return Ok(if o.zero_terms_all { Query::MatchAll { boost: 1.0 } } else { Query::MatchNone });
    }
    let mut clauses = Vec::with_capacity(tokens.len());
    for t in &tokens {
        clauses.push(blend_term(ctx, fields, t, o.lenient, tie)?);
    }
    if clauses.len() == 1 && o.minimum_should_match.is_none() {
        return Ok(clauses.pop().unwrap_or(Query::MatchNone));
    }
    if o.and {
        return Ok(if clauses.contains(&Query::MatchNone) { Query::MatchNone } else { Query::and(clauses) });
    }
    let msm = match &o.minimum_should_match {
        Some(m) => min_should_match(m, clauses.len())?,
        None => 0,
    };
    Ok(Query::Bool {
        must: vec![],
        should: clauses,
        must_not: vec![],
        filter: vec![],
        minimum_should_match: msm as u32,
        boost: 1.0,
    })
}

/// `MultiMatchQuery.blendTerm`: the term over the group's fields.
fn blend_term(ctx: &QueryContext<'_>, fields: &[(String, f32)], t: &str, lenient: bool, tie: f32) -> OsResult<Query> {
    let mut terms = Vec::with_capacity(fields.len());
    let mut others = Vec::new();
    for (f, b) in fields {
        match ctx.mapping.field_type(f).map(|ft| &ft.kind) {
            Some(FieldKind::Text(_)) => {
                terms.push(BlendedTerm { field: f.clone(), term: t.as_bytes().to_vec(), boost: *b })
            }
            Some(FieldKind::Keyword(_)) => terms.push(BlendedTerm {
                field: f.clone(),
                term: dsl_keyword::normalize(ctx, f, t).into_bytes(),
                boost: *b,
            }),
            _ => match dsl_term::term(ctx, f, &Value::String(t.to_string()), 1.0) {
                Ok(q) => others.push(super::dsl::boosted(q, *b)),
                Err(_) if lenient => {}
                Err(e) => return Err(e),
            },
        }
    }
    if !terms.is_empty() {
        others.push(Query::Blended { terms, blend: Blend::CrossFields { tie_breaker: tie }, boost: 1.0 });
    }
    Ok(dis_max(others, tie))
}
