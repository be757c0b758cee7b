//! Queries on `constant_keyword` fields, answered from the mapping as OpenSearch's
//! `ConstantKeywordFieldType` does: the query picks the matching values among the field's
//! `value`/`values`; none matches nothing, a field with one value matches every document, one of
//! several is a term query on its ordinal (when indexed), all of them is `exists`, otherwise a
//! terms query on their ordinals (see `engine::schema::constant`).

use serde_json::Value;

use super::dsl::{perr, QueryContext};
use super::dsl_fuzzy::{edit_distance, fuzzy_edits};
use crate::engine::query::multi_term::{parse_wildcard, wildcard_matches, WildcardToken};
use crate::engine::query::Query;
use crate::engine::schema::{ConstantKeywordParams, FieldKind, FieldType};
use crate::error::{OsError, OsResult};

/// The field type and parameters of `field` when it is a `constant_keyword`.
pub fn of<'m>(ctx: &QueryContext<'m>, field: &str) -> Option<(&'m FieldType, &'m ConstantKeywordParams)> {
    let ft = ctx.mapping.field_type(field)?;
    match &ft.kind {
        FieldKind::ConstantKeyword(c) => Some((ft, c)),
        _ => None,
    }
}

/// The text of a query value (`inputToString`).
pub fn text(v: &Value) -> OsResult<String> {
    match v {
        Value::String(s) => Ok(s.clone()),
        Value::Number(n) => Ok(n.to_string()),
        Value::Bool(b) => Ok(b.to_string()),
        other => Err(perr(format!("[term] query does not support value {other}"))),
    }
}

/// The query for the keys `pred` accepts (`buildQuery`).
pub fn build(
    field: &str,
    ft: &FieldType,
    c: &ConstantKeywordParams,
    pred: impl Fn(&str) -> bool,
    boost: f32,
) -> OsResult<Query> {
    let keys = c.keys();
    let matching: Vec<usize> = (0..keys.len()).filter(|&i| pred(&keys[i])).collect();
    of_ordinals(field, ft, c, &matching, boost)
}

fn of_ordinals(field: &str, ft: &FieldType, c: &ConstantKeywordParams, ords: &[usize], boost: f32) -> OsResult<Query> {
    if ords.is_empty() {
        return Ok(Query::MatchNone);
    }
    if c.keys().len() == 1 {
        return Ok(Query::MatchAll { boost });
    }
    let index = ft.effective_index();
    if !index && !ft.effective_doc_values() {
        return Err(OsError::illegal(format!(
            "Cannot search on field [{field}] since it is not indexed nor has doc values."
        )));
    }
    let term = |o: usize| ConstantKeywordParams::term_of(o).into_bytes();
    if ords.len() == 1 && index {
        return Ok(Query::Term { field: field.into(), term: term(ords[0]), boost });
    }
    if ords.len() == c.keys().len() {
        return Ok(exists(field, ft, c, boost));
    }
    Ok(Query::Terms { field: field.into(), terms: ords.iter().map(|&o| term(o)).collect(), boost })
}

/// `exists`: every document when there is one value; else the documents with an ordinal.
pub fn exists(field: &str, ft: &FieldType, c: &ConstantKeywordParams, boost: f32) -> Query {
    if c.keys().len() == 1 {
        return Query::MatchAll { boost };
    }
    if !ft.effective_index() && !ft.effective_doc_values() {
        return Query::MatchNone;
    }
    // The ordinals' postings cover every document with a value (constant.rs keeps them).
    let terms = (0..c.keys().len()).map(|o| ConstantKeywordParams::term_of(o).into_bytes()).collect();
    Query::Terms { field: field.into(), terms, boost }
}

/// `term` (`case_insensitive`: OpenSearch's `Regex.simpleMatch(value, key, true)`).
pub fn term(
    field: &str,
    ft: &FieldType,
    c: &ConstantKeywordParams,
    value: &str,
    case_insensitive: bool,
    boost: f32,
) -> OsResult<Query> {
    if case_insensitive {
        return build(field, ft, c, |k| simple_match(value, k), boost);
    }
    build(field, ft, c, |k| k == value, boost)
}

/// `terms`.
pub fn terms(field: &str, ft: &FieldType, c: &ConstantKeywordParams, values: &[String], boost: f32) -> OsResult<Query> {
    build(field, ft, c, |k| values.iter().any(|v| v == k), boost)
}

/// `prefix`.
pub fn prefix(
    field: &str,
    ft: &FieldType,
    c: &ConstantKeywordParams,
    value: &str,
    case_insensitive: bool,
    boost: f32,
) -> OsResult<Query> {
    if case_insensitive {
        let lower = value.to_lowercase();
        return build(field, ft, c, |k| k.to_lowercase().starts_with(&lower), boost);
    }
    build(field, ft, c, |k| k.starts_with(value), boost)
}

/// `wildcard`.
pub fn wildcard(
    field: &str,
    ft: &FieldType,
    c: &ConstantKeywordParams,
    pattern: &str,
    case_insensitive: bool,
    boost: f32,
) -> OsResult<Query> {
    if case_insensitive {
        let p = parse_wildcard(&pattern.to_lowercase());
        return build(field, ft, c, |k| wildcard_matches(&p, &k.to_lowercase()), boost);
    }
    let p = parse_wildcard(pattern);
    build(field, ft, c, |k| wildcard_matches(&p, k), boost)
}

/// `regexp` (anchored, like Lucene's).
pub fn regexp(
    field: &str,
    ft: &FieldType,
    c: &ConstantKeywordParams,
    pattern: &str,
    case_insensitive: bool,
    boost: f32,
) -> OsResult<Query> {
    let re = regex::RegexBuilder::new(&format!("^(?:{pattern})$"))
        .case_insensitive(case_insensitive)
        .size_limit(1 << 20)
        .build()
        .map_err(|e| OsError::illegal(format!("failed to parse regexp [{pattern}]: {e}")))?;
    build(field, ft, c, |k| re.is_match(k), boost)
}

/// `fuzzy`: the keys within the allowed edits of `value` (the first `prefix_len` characters exact).
#[allow(clippy::too_many_arguments)]
pub fn fuzzy(
    field: &str,
    ft: &FieldType,
    c: &ConstantKeywordParams,
    value: &str,
    fz: &str,
    prefix_len: usize,
    transpositions: bool,
    boost: f32,
) -> OsResult<Query> {
    let v: Vec<char> = value.chars().collect();
    let edits = fuzzy_edits(fz, v.len())?;
    let pre = prefix_len.min(v.len());
    build(
        field,
        ft,
        c,
        |k| {
            let kc: Vec<char> = k.chars().collect();
            kc.len() >= pre
                && kc[..pre] == v[..pre]
                && edit_distance(&v[pre..], &kc[pre..], edits, transpositions) <= edits
        },
        boost,
    )
}

/// `range` over the sorted keys (`rangeQuery`: Java string order).
#[allow(clippy::too_many_arguments)] // the range query's parts, as OpenSearch's rangeQuery takes them
pub fn range(
    field: &str,
    ft: &FieldType,
    c: &ConstantKeywordParams,
    lo: Option<&str>,
    hi: Option<&str>,
    inc_lo: bool,
    inc_hi: bool,
    boost: f32,
) -> OsResult<Query> {
    let cmp = |a: &str, b: &str| a.encode_utf16().cmp(b.encode_utf16());
    let keys = c.keys();
    let ords: Vec<usize> = (0..keys.len())
        .filter(|&i| {
            let k = keys[i].as_str();
            let above = lo.is_none_or(|l| if inc_lo { cmp(k, l).is_ge() } else { cmp(k, l).is_gt() });
            let below = hi.is_none_or(|h| if inc_hi { cmp(k, h).is_le() } else { cmp(k, h).is_lt() });
            above && below
        })
        .collect();
    of_ordinals(field, ft, c, &ords, boost)
}

/// OpenSearch's `Regex.simpleMatch(pattern, s, ignoreCase)`: `*` matches any sequence, every
/// other character itself (ignoring case).
fn simple_match(pattern: &str, s: &str) -> bool {
    let p: Vec<WildcardToken> = pattern
        .to_lowercase()
        .chars()
        .map(|c| if c == '*' { WildcardToken::Any } else { WildcardToken::Char(c) })
        .collect();
    wildcard_matches(&p, &s.to_lowercase())
}

#[cfg(test)]
#[path = "dsl_constant_tests.rs"]
mod tests;
