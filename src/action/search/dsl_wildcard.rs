//! Queries on `wildcard` fields, as OpenSearch's `WildcardFieldType` answers them.
//!
//! A wildcard field is indexed like a keyword (see `KeywordParams::wildcard`): one term per
//! value, the whole normalized value, plus sorted-set doc values. OpenSearch indexes trigrams and
//! verifies candidates against the values; Fathom matches a pattern against the field's distinct
//! values in each segment's term dictionary instead (the `wildcard`/`prefix` engine queries scan
//! the terms from the pattern's literal prefix; `regexp` and `case_insensitive` expand over all
//! of them). The results are the same; the cost is one pass over the field's distinct values per
//! segment for a pattern with a leading wildcard (OpenSearch: the trigram postings plus one
//! value check per candidate document).
//!
//! What differs from a keyword field:
//! - every query is constant-score (`WildcardMatchingQuery` is a `ConstantScoreWeight`);
//! - `prefix` is a wildcard query of `value*` (the value's own `*`/`?` stay wildcards);
//! - `regexp` patterns are normalized by the field's normalizer;
//! - `terms` compares the values as given (OpenSearch's `termsQuery` does not normalize);
//! - `fuzzy` and `range` are rejected.

use super::dsl::QueryContext;
use super::dsl_keyword;
use crate::engine::query::Query;
use crate::engine::schema::{FieldKind, KeywordParams};
use crate::error::OsError;

/// Whether `field` is mapped as `wildcard`.
pub fn is_wildcard(ctx: &QueryContext<'_>, field: &str) -> bool {
    matches!(
        ctx.mapping.field_type(field).map(|f| &f.kind),
        Some(FieldKind::Keyword(KeywordParams { wildcard: true, .. }))
    )
}

/// `term`: the normalized value, constant score.
pub fn term(ctx: &QueryContext<'_>, field: &str, value: &str, boost: f32) -> Query {
    let t = dsl_keyword::normalize(ctx, field, value);
    Query::ConstantScore {
        query: Box::new(Query::Term { field: field.into(), term: t.into_bytes(), boost: 1.0 }),
        boost,
    }
}

/// `terms`: any of the values exactly as given (constant score).
pub fn terms(field: &str, values: Vec<String>, boost: f32) -> Query {
    if values.is_empty() {
        return Query::MatchNone;
    }
    Query::Terms { field: field.into(), terms: values.into_iter().map(String::into_bytes).collect(), boost }
}

/// The wildcard pattern a `prefix` query on a wildcard field runs: `value*`, normalized.
pub fn prefix_pattern(ctx: &QueryContext<'_>, field: &str, value: &str) -> String {
    dsl_keyword::normalize_wildcard(ctx, field, &format!("{value}*"))
}

/// A `regexp` pattern as the field's normalizer leaves it.
pub fn regexp_pattern(ctx: &QueryContext<'_>, field: &str, pattern: &str) -> String {
    dsl_keyword::normalize(ctx, field, pattern)
}

/// The error of a `fuzzy` query on a wildcard field.
pub fn fuzzy_error(field: &str) -> OsError {
    OsError::illegal(format!(
        "Can only use fuzzy queries on keyword and text fields - not on [{field}] which is of type [wildcard]"
    ))
}

/// The error of a `range` query on a wildcard field (OpenSearch has none: "TODO").
pub fn range_error(field: &str) -> OsError {
    OsError::illegal(format!("[range] queries are not supported on [wildcard] field [{field}]"))
}

#[cfg(test)]
#[path = "dsl_wildcard_tests.rs"]
mod tests;
