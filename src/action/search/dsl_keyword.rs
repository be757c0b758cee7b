//! Query values on keyword fields as OpenSearch's `KeywordFieldType` prepares them: normalized
//! by the field's `normalizer` (`indexedValueForSearch`, used by `term`, `terms`, `prefix`,
//! `fuzzy`; wildcard patterns normalize only their literal chunks, `normalizeWildcardPattern`),
//! and the `case_insensitive` forms of `term`, `prefix` and `wildcard` (Lucene's
//! case-insensitive automata: each character matches itself, its lower and its upper case),
//! which are constant-score queries over the matching terms.

use super::dsl::QueryContext;
use super::dsl_term::{MAX_REGEXP_TERMS, MAX_TERMS_VISITED};
use crate::engine::query::multi_term::{wildcard_matches, WildcardToken};
use crate::engine::query::Query;
use crate::engine::schema::FieldKind;
use crate::error::{OsError, OsResult};

/// `value` normalized for `field` (unchanged unless it is a keyword field with a normalizer the
/// index defines).
pub fn normalize(ctx: &QueryContext<'_>, field: &str, value: &str) -> String {
    let Some(FieldKind::Keyword(k)) = ctx.mapping.field_type(field).map(|f| &f.kind) else { return value.to_string() };
    let Some(norm) = k.normalizer.as_deref().and_then(|n| ctx.analysis.and_then(|a| a.normalizer(n))) else {
        return value.to_string();
    };
    // The normalizer's tokens joined, as `cluster::indices::normalize_keywords` indexes them.
    let mut out = String::new();
    norm.analyze(value, 0, &mut |t| out.push_str(t.term));
    out
}

/// A wildcard pattern normalized chunk by chunk: escapes (`\x`) and runs of `?`/`*` are kept,
/// the text between them normalized.
pub fn normalize_wildcard(ctx: &QueryContext<'_>, field: &str, pattern: &str) -> String {
    let mut out = String::with_capacity(pattern.len());
    let mut chunk = String::new();
    let mut chars = pattern.chars().peekable();
    while let Some(c) = chars.next() {
        let special = match c {
            '\\' => Some(match chars.next() {
                Some(n) => format!("\\{n}"),
                None => "\\".to_string(),
            }),
            '?' | '*' => Some(c.to_string()),
            _ => None,
        };
        match special {
            Some(s) => {
                if !chunk.is_empty() {
                    out.push_str(&normalize(ctx, field, &chunk));
                    chunk.clear();
                }
                out.push_str(&s);
            }
            None => chunk.push(c),
        }
    }
    if !chunk.is_empty() {
        out.push_str(&normalize(ctx, field, &chunk));
    }
    out
}

/// Whether `t` is `q`, or its lower or upper case (single-character mappings, as Java's
/// `Character.toLowerCase`/`toUpperCase` on code points).
fn char_ci(q: char, t: char) -> bool {
    fn single(mut it: impl Iterator<Item = char>) -> Option<char> {
        let c = it.next()?;
        it.next().is_none().then_some(c)
    }
    q == t || single(q.to_lowercase()) == Some(t) || single(q.to_uppercase()) == Some(t)
}

/// How a case-insensitive query compares a term.
#[derive(Debug, Clone)]
pub enum CaseInsensitive {
    Term(Vec<char>),
    Prefix(Vec<char>),
    Wildcard(Vec<WildcardToken>),
}

impl CaseInsensitive {
    fn matches(&self, term: &str) -> bool {
        match self {
            CaseInsensitive::Term(q) => {
                let t: Vec<char> = term.chars().collect();
                t.len() == q.len() && q.iter().zip(&t).all(|(&a, &b)| char_ci(a, b))
            }
            CaseInsensitive::Prefix(q) => {
                let t: Vec<char> = term.chars().take(q.len()).collect();
                t.len() == q.len() && q.iter().zip(&t).all(|(&a, &b)| char_ci(a, b))
            }
            CaseInsensitive::Wildcard(p) => {
                // Compare lower-cased forms: each literal then matches any casing.
                let lower: Vec<WildcardToken> = p
                    .iter()
                    .map(|t| match t {
                        WildcardToken::Char(c) => WildcardToken::Char(c.to_lowercase().next().unwrap_or(*c)),
                        other => other.clone(),
                    })
                    .collect();
                let lt: String = term.chars().map(|c| c.to_lowercase().next().unwrap_or(c)).collect();
                wildcard_matches(&lower, &lt)
            }
        }
    }
}

/// The terms of `field` matching `ci` over the shard's segments, as a constant-score query.
pub fn case_insensitive(ctx: &QueryContext<'_>, field: &str, ci: &CaseInsensitive, boost: f32) -> OsResult<Query> {
    let mut out: std::collections::BTreeSet<Vec<u8>> = std::collections::BTreeSet::new();
    let mut too_many = false;
    for seg in ctx.segments {
        let mut n = 0usize;
        let mut over = false;
        seg.visit_terms(field, b"", &mut |t| {
            n += 1;
            if n > MAX_TERMS_VISITED {
                over = true;
                return false;
            }
            if let Ok(s) = std::str::from_utf8(t) {
                if ci.matches(s) && !out.contains(t) {
                    if out.len() >= MAX_REGEXP_TERMS {
                        too_many = true;
                        return false;
                    }
                    out.insert(t.to_vec());
                }
            }
            true
        })?;
        if over {
            return Err(OsError::illegal(format!("query on [{field}] visits more than {MAX_TERMS_VISITED} terms")));
        }
    }
    if too_many {
        return Err(OsError::illegal(format!(
            "case insensitive query on [{field}] matches more than {MAX_REGEXP_TERMS} terms"
        )));
    }
    if out.is_empty() {
        return Ok(Query::MatchNone);
    }
    Ok(Query::Terms { field: field.into(), terms: out.into_iter().collect(), boost })
}
