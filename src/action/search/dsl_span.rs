//! Span queries (OpenSearch's `Span*QueryBuilder`s and `FieldMaskingSpanQueryBuilder`):
//! `span_term`, `span_multi`, `span_near` (with `span_gap` clauses), `span_or`, `span_not`,
//! `span_first`, `span_containing`, `span_within` and `span_field_masking` (also spelled
//! `field_masking_span`), built into the engine's [`SpanQuery`] tree with OpenSearch's parsing
//! errors and Lucene's construction checks.
//!
//! `span_multi` expands its multi-term query over the shard's terms as OpenSearch's
//! `SpanBooleanQueryRewriteWithMaxClause` does (at most 1024 terms); a `prefix` on a text field
//! with `index_prefixes` becomes the prefix subfield's term masked as the field, as
//! `TextFieldType.spanPrefixQuery` builds it.

use serde_json::{Map, Value};

use super::dsl::{body, bool_of, f32_of, i64_of, perr, str_of, QueryContext};
use crate::engine::query::bm25::java_float;
use crate::engine::query::multi_term::{parse_wildcard, wildcard_matches};
use crate::engine::query::spans::{prefix_field, SpanQuery};
use crate::engine::query::{Query, RangeKind};
use crate::engine::schema::{FieldKind, TextIndexOptions};
use crate::error::{ErrorKind, OsError, OsResult};

/// The names of the span queries.
pub const SPAN_QUERIES: [&str; 11] = [
    "span_term",
    "span_multi",
    "span_near",
    "span_or",
    "span_not",
    "span_first",
    "span_containing",
    "span_within",
    "span_field_masking",
    "field_masking_span",
    "span_gap",
];

/// Lucene's `IndexSearcher.getMaxClauseCount()` default: the most terms `span_multi` expands to.
const MAX_CLAUSE_COUNT: usize = 1024;

/// A parsed span query and its own boost (which nested clauses must leave at 1).
struct Parsed {
    q: SpanQuery,
    boost: f32,
}

/// Parses the top-level span query `name`.
pub fn parse(name: &str, v: &Value, ctx: &QueryContext<'_>, depth: usize) -> OsResult<Query> {
    if name == "span_gap" {
        // `SpanGapQueryBuilder.toQuery` is unsupported: a gap is only a `span_near` clause.
        parse_gap(v)?;
        return Err(
            OsError::new(ErrorKind::UnsupportedOperation, "[span_gap] can only be a clause of [span_near]").status(500)
        );
    }
    let p = parse_span(name, v, ctx, depth)?;
    Ok(Query::Spans { query: Box::new(p.q), boost: p.boost })
}

fn parse_span(name: &str, v: &Value, ctx: &QueryContext<'_>, depth: usize) -> OsResult<Parsed> {
    if depth > super::dsl::MAX_DEPTH {
        return Err(perr(format!("query nested deeper than {} levels", super::dsl::MAX_DEPTH)));
    }
    match name {
        "span_term" => span_term(v, ctx),
        "span_multi" => span_multi(v, ctx, depth),
        "span_near" => span_near(v, ctx, depth),
        "span_or" => span_or(v, ctx, depth),
        "span_not" => span_not(v, ctx, depth),
        "span_first" => span_first(v, ctx, depth),
        "span_containing" | "span_within" => span_contain(name, v, ctx, depth),
        "span_field_masking" | "field_masking_span" => field_masking(v, ctx, depth),
        other => Err(super::dsl::unknown_query(other)),
    }
}

/// A clause of a span query (`parseInnerQueryBuilder`, then the span type and boost checks).
/// `span_gap` comes back as a [`SpanQuery::Gap`] with the field name as written.
fn clause(
    outer: &str,
    key: &str,
    type_error: &str,
    v: &Value,
    ctx: &QueryContext<'_>,
    depth: usize,
) -> OsResult<SpanQuery> {
    let m = v.as_object().ok_or_else(|| perr("[_na] query malformed, must start with start_object"))?;
    let mut it = m.iter();
    let Some((name, inner)) = it.next() else { return Err(perr("query malformed, empty clause found")) };
    if it.next().is_some() {
        return Err(perr(format!("[{name}] malformed query, expected [END_OBJECT] but found [FIELD_NAME]")));
    }
    if name == "span_gap" {
        let (field, width) = parse_gap(inner)?;
        return Ok(SpanQuery::Gap { field, width });
    }
    if !SPAN_QUERIES.contains(&name.as_str()) {
        // The clause is parsed first: its own errors come before the type error.
        super::dsl::parse_at(v, ctx, depth + 1)?;
        return Err(perr(type_error.to_string()));
    }
    let p = parse_span(name, inner, ctx, depth + 1)?;
    if p.boost != 1.0 {
        return Err(perr(format!(
            "{outer} [{key}] as a nested span clause can't have non-default boost value [{}]",
            java_float(p.boost)
        )));
    }
    Ok(p.q)
}

/// `{"span_gap": {FIELD: width}}`.
fn parse_gap(v: &Value) -> OsResult<(String, i32)> {
    let m = body("span_gap", v)?;
    let mut found: Option<(String, i32)> = None;
    for (k, val) in m {
        if let Some((prev, _)) = &found {
            return Err(perr(format!("[span_gap] query doesn't support multiple fields, found [{prev}] and [{k}]")));
        }
        let w = if val.is_object() || val.is_array() { 0 } else { int32("span_gap", k, val)? };
        found = Some((k.clone(), w));
    }
    found.ok_or_else(|| OsError::illegal("[span_gap] field name is null or empty"))
}

fn int32(name: &str, key: &str, v: &Value) -> OsResult<i32> {
    let n = i64_of(name, key, v)?;
    i32::try_from(n).map_err(|_| perr(format!("[{name}] [{key}] value out of range for an integer: {n}")))
}

/// A term value as text (`BytesRefs.toBytesRef` of the parsed value).
fn value_text(v: &Value) -> OsResult<String> {
    match v {
        Value::String(s) => Ok(s.clone()),
        Value::Number(n) => Ok(n.to_string()),
        Value::Bool(b) => Ok(b.to_string()),
        Value::Null => Err(OsError::illegal("value cannot be null")),
        other => Ok(other.to_string()),
    }
}

fn span_term(v: &Value, ctx: &QueryContext<'_>) -> OsResult<Parsed> {
    let m = body("span_term", v)?;
    let mut field: Option<&str> = None;
    let mut value: Option<&Value> = None;
    let mut boost = 1.0;
    for (k, val) in m {
        if let Some(prev) = field {
            return Err(perr(format!("[span_term] query doesn't support multiple fields, found [{prev}] and [{k}]")));
        }
        field = Some(k);
        match val {
            Value::Object(o) => {
                for (ik, iv) in o {
                    match ik.as_str() {
                        "term" | "value" => value = Some(iv),
                        "boost" => boost = f32_of("span_term", ik, iv)?,
                        "_name" => {}
                        other => return Err(perr(format!("[span_term] query does not support [{other}]"))),
                    }
                }
            }
            other => value = Some(other),
        }
    }
    let field = field.filter(|f| !f.is_empty()).ok_or_else(|| OsError::illegal("field name is null or empty"))?;
    let value = value.filter(|v| !v.is_null()).ok_or_else(|| OsError::illegal("value cannot be null"))?;
    let field = ctx.mapping.resolve_alias(field);
    let text = value_text(value)?;
    let term = match ctx.mapping.field_type(field) {
        None => text.into_bytes(),
        Some(_) => match super::dsl_term::term(ctx, field, &Value::String(text.clone()), 1.0)? {
            Query::Term { term, .. } => term,
            Query::Terms { terms, .. } if terms.len() == 1 => terms.into_iter().next().unwrap_or_default(),
            Query::MatchNone => text.into_bytes(),
            other => {
                return Err(OsError::illegal(format!(
                    "Cannot extract a term from a query of type {}: {other}",
                    lucene_class(&other)
                )))
            }
        },
    };
    check_positions(ctx, field, &term)?;
    Ok(Parsed { q: SpanQuery::Term { field: field.to_string(), term }, boost })
}

/// The Lucene query class a non-term query of the DSL stands for (for error messages).
fn lucene_class(q: &Query) -> &'static str {
    match q {
        Query::Range { kind: RangeKind::Points, .. } => "class org.apache.lucene.search.IndexOrDocValuesQuery",
        Query::Terms { .. } => "class org.apache.lucene.search.TermInSetQuery",
        Query::MatchAll { .. } => "class org.apache.lucene.search.MatchAllDocsQuery",
        Query::ConstantScore { .. } => "class org.apache.lucene.search.ConstantScoreQuery",
        Query::DocValues { .. } => "class org.apache.lucene.search.IndexOrDocValuesQuery",
        _ => "class org.apache.lucene.search.Query",
    }
}

/// Lucene's `SpanTermWeight.getSpans` refuses fields indexed without positions (when the field
/// has terms in a segment).
fn check_positions(ctx: &QueryContext<'_>, field: &str, term: &[u8]) -> OsResult<()> {
    let Some(ft) = ctx.mapping.field_type(field) else { return Ok(()) };
    let positions = match &ft.kind {
        FieldKind::Text(p) => !p.match_only && p.index_options.is_none_or(|o| o >= TextIndexOptions::Positions),
        _ => false,
    };
    if positions || !ctx.segments.iter().any(|s| s.field_stats(field).is_some()) {
        return Ok(());
    }
    Err(OsError::new(
        ErrorKind::IllegalState,
        format!(
            "field \"{field}\" was indexed without position data; cannot run SpanTermQuery (term={})",
            String::from_utf8_lossy(term)
        ),
    )
    .status(500))
}

fn span_multi(v: &Value, ctx: &QueryContext<'_>, depth: usize) -> OsResult<Parsed> {
    let m = body("span_multi", v)?;
    let mut inner: Option<&Value> = None;
    let mut boost = 1.0;
    for (k, val) in m {
        match (k.as_str(), val) {
            ("match", Value::Object(_)) => inner = Some(val),
            (_, Value::Object(_)) => return Err(perr(format!("[span_multi] query does not support [{k}]"))),
            (_, Value::Array(_)) => {}
            ("_name", _) => {}
            ("boost", _) => boost = f32_of("span_multi", k, val)?,
            _ => return Err(perr(format!("[span_multi] query does not support [{k}]"))),
        }
    }
    let inner = inner.ok_or_else(|| perr("[span_multi] must have [match] multi term query clause"))?;
    let im = inner.as_object().ok_or_else(|| perr("[span_multi] must have [match] multi term query clause"))?;
    let Some((name, spec)) = im.iter().next() else { return Err(perr("query malformed, empty clause found")) };
    if im.len() > 1 {
        return Err(perr(format!("[{name}] malformed query, expected [END_OBJECT] but found [FIELD_NAME]")));
    }
    if !matches!(name.as_str(), "prefix" | "wildcard" | "regexp" | "fuzzy" | "range") {
        super::dsl::parse_at(inner, ctx, depth + 1)?;
        return Err(perr("[span_multi] [match] must be of type multi term query"));
    }
    if name == "prefix" {
        if let Some(q) = index_prefix(spec, ctx)? {
            return Ok(Parsed { q, boost });
        }
    }
    let q = super::dsl_term::parse(name, spec, ctx)?;
    let top = if name == "prefix" { prefix_top_terms(spec)? } else { None };
    Ok(Parsed { q: expand(ctx, &q, top)?, boost })
}

/// A `prefix` query's `top_terms_N` rewrite (`TopTermsSpanBooleanQueryRewrite`: the first N
/// terms, all boosts being equal), `None` for the others.
fn prefix_top_terms(spec: &Value) -> OsResult<Option<usize>> {
    let Some(r) = spec.as_object().and_then(|o| o.values().next()).and_then(|f| f.get("rewrite")) else {
        return Ok(None);
    };
    let r = str_of("prefix", "rewrite", r)?;
    for p in ["top_terms_blended_freqs_", "top_terms_boost_", "top_terms_"] {
        if let Some(n) = r.strip_prefix(p) {
            return n.parse::<usize>().map(Some).map_err(|_| OsError::illegal(format!("Failed to parse [{r}]")));
        }
    }
    Ok(None)
}

/// `TextFieldType.spanPrefixQuery` with `index_prefixes`: the prefix subfield's term (when the
/// prefix's length is within the subfield's `min_chars..=max_chars`), masked as the field.
fn index_prefix(spec: &Value, ctx: &QueryContext<'_>) -> OsResult<Option<SpanQuery>> {
    let Some(m) = spec.as_object() else { return Ok(None) };
    let Some((field, v)) = m.iter().find(|(k, _)| k.as_str() != "boost" && k.as_str() != "_name") else {
        return Ok(None);
    };
    let field = ctx.mapping.resolve_alias(field);
    let Some(ft) = ctx.mapping.field_type(field) else { return Ok(None) };
    let FieldKind::Text(p) = &ft.kind else { return Ok(None) };
    let Some(ip) = ft.extra.get("index_prefixes").filter(|v| v.is_object()) else { return Ok(None) };
    if p.match_only || p.index_options.is_some_and(|o| o < TextIndexOptions::Positions) {
        return Ok(None);
    }
    let min = ip.get("min_chars").and_then(Value::as_i64).unwrap_or(2);
    let max = ip.get("max_chars").and_then(Value::as_i64).unwrap_or(5);
    let value = match v {
        Value::Object(o) => match o.get("value").or_else(|| o.get("prefix")) {
            Some(x) => value_text(x)?,
            None => return Ok(None),
        },
        other => value_text(other)?,
    };
    let len = value.encode_utf16().count() as i64;
    if len < min || len > max {
        return Ok(None);
    }
    let prefix = value.into_bytes();
    let mut terms = Vec::new();
    super::dsl_term::visit_all(ctx, field, &prefix, &mut |t| {
        if !t.starts_with(&prefix) {
            return false;
        }
        terms.push(t.to_vec());
        true
    })?;
    terms.sort();
    terms.dedup();
    let inner = SpanQuery::IndexPrefix { field: prefix_field(field), parent: field.to_string(), prefix, terms };
    Ok(Some(SpanQuery::Mask { inner: Box::new(inner), field: field.to_string() }))
}

/// `SpanMultiTermQueryWrapper` rewritten by `SpanBooleanQueryRewriteWithMaxClause`: a span term
/// per matching term of the shard (an error past 1024), or the first `top` terms.
fn expand(ctx: &QueryContext<'_>, q: &Query, top: Option<usize>) -> OsResult<SpanQuery> {
    let mut q = q;
    while let Query::ConstantScore { query, .. } = q {
        q = query;
    }
    let (field, terms): (String, Vec<Vec<u8>>) = match q {
        Query::MatchNone => {
            return Ok(SpanQuery::NoMatch { field: String::new(), reason: "Inner query rewrote to match_none".into() })
        }
        Query::Prefix { field, prefix, .. } => {
            let mut out = Vec::new();
            super::dsl_term::visit_all(ctx, field, prefix, &mut |t| {
                if !t.starts_with(prefix) {
                    return false;
                }
                out.push(t.to_vec());
                true
            })?;
            (field.clone(), out)
        }
        Query::Wildcard { field, pattern, .. } => {
            let toks = parse_wildcard(pattern);
            let mut out = Vec::new();
            super::dsl_term::visit_all(ctx, field, b"", &mut |t| {
                if wildcard_matches(&toks, &String::from_utf8_lossy(t)) {
                    out.push(t.to_vec());
                }
                true
            })?;
            (field.clone(), out)
        }
        Query::Range { field, lo, hi, include_lo, include_hi, kind: RangeKind::Terms, .. } => {
            let mut out = Vec::new();
            let from = lo.clone().unwrap_or_default();
            super::dsl_term::visit_all(ctx, field, &from, &mut |t| {
                if let Some(h) = hi {
                    if t > &h[..] || (!include_hi && t == &h[..]) {
                        return false;
                    }
                }
                if lo.as_deref().is_some_and(|l| !include_lo && t == l) {
                    return true;
                }
                out.push(t.to_vec());
                true
            })?;
            (field.clone(), out)
        }
        Query::Terms { field, terms, .. } => (field.clone(), terms.clone()),
        Query::Blended { terms, .. } if !terms.is_empty() => {
            (terms[0].field.clone(), terms.iter().map(|t| t.term.clone()).collect())
        }
        other => {
            return Err(OsError::new(
                ErrorKind::UnsupportedOperation,
                format!(
                    "unsupported inner query, should be org.apache.lucene.search.MultiTermQuery but was {}",
                    lucene_class(other).trim_start_matches("class ")
                ),
            )
            .status(500))
        }
    };
    let mut terms = terms;
    terms.sort();
    terms.dedup();
    if let Some(n) = top {
        terms.truncate(n);
    } else if terms.len() > MAX_CLAUSE_COUNT {
        return Err(OsError::new(
            ErrorKind::Runtime,
            format!("[{q} ] exceeds maxClauseCount [ Boolean maxClauseCount is set to {MAX_CLAUSE_COUNT}]"),
        )
        .status(500));
    }
    if let Some(t) = terms.first() {
        check_positions(ctx, &field, t)?;
    }
    let mut clauses: Vec<SpanQuery> =
        terms.into_iter().map(|term| SpanQuery::Term { field: field.clone(), term }).collect();
    Ok(match clauses.len() {
        0 => SpanQuery::NoMatch { field: field.clone(), reason: format!("no expansion found for {q}") },
        1 => clauses.pop().unwrap_or(SpanQuery::NoMatch { field, reason: String::new() }),
        _ => SpanQuery::Or(clauses),
    })
}

/// The clauses of `span_near` / `span_or`.
fn clause_list(outer: &str, m: &Map<String, Value>, ctx: &QueryContext<'_>, depth: usize) -> OsResult<Vec<SpanQuery>> {
    let mut out = Vec::new();
    if let Some(Value::Array(a)) = m.get("clauses") {
        for c in a {
            out.push(clause(
                outer,
                "clauses",
                &format!("{outer} [clauses] must be of type span query"),
                c,
                ctx,
                depth,
            )?);
        }
    }
    Ok(out)
}

fn span_near(v: &Value, ctx: &QueryContext<'_>, depth: usize) -> OsResult<Parsed> {
    let m = body("span_near", v)?;
    let (mut slop, mut in_order, mut boost) = (0i32, true, 1.0f32);
    for (k, val) in m {
        match (k.as_str(), val) {
            ("clauses", Value::Array(_)) => {}
            ("in_order", _) if !val.is_object() && !val.is_array() => in_order = bool_of("span_near", k, val)?,
            ("slop", _) if !val.is_object() && !val.is_array() => slop = int32("span_near", k, val)?,
            ("boost", _) if !val.is_object() && !val.is_array() => boost = f32_of("span_near", k, val)?,
            ("_name", _) if !val.is_object() && !val.is_array() => {}
            _ => return Err(perr(format!("[span_near] query does not support [{k}]"))),
        }
    }
    let clauses = clause_list("span_near", m, ctx, depth)?;
    if clauses.is_empty() {
        return Err(perr("span_near must include [clauses]"));
    }
    if clauses.len() == 1 {
        let q =
            clauses.into_iter().next().unwrap_or(SpanQuery::NoMatch { field: String::new(), reason: String::new() });
        if matches!(q, SpanQuery::Gap { .. }) {
            return Err(
                OsError::new(ErrorKind::UnsupportedOperation, "[span_gap] cannot be alone in [span_near]").status(500)
            );
        }
        return Ok(Parsed { q, boost });
    }
    let field = match &clauses[0] {
        SpanQuery::Gap { field, .. } => ctx.mapping.resolve_alias(field).to_string(),
        q => q.field().to_string(),
    };
    let mut out = Vec::with_capacity(clauses.len());
    for c in clauses {
        match c {
            SpanQuery::Gap { field: gf, width } => {
                if ctx.mapping.resolve_alias(&gf) != field && !out.is_empty() {
                    return Err(OsError::illegal("[span_near] clauses must have same field"));
                }
                if !in_order {
                    return Err(OsError::illegal("Gaps can only be added to ordered near queries"));
                }
                out.push(SpanQuery::Gap { field: field.clone(), width });
            }
            q => {
                if q.field() != field {
                    return Err(OsError::illegal(format!("Cannot add clause {q} to SpanNearQuery for field {field}")));
                }
                out.push(q);
            }
        }
    }
    Ok(Parsed { q: SpanQuery::Near { clauses: out, slop, in_order }, boost })
}

fn span_or(v: &Value, ctx: &QueryContext<'_>, depth: usize) -> OsResult<Parsed> {
    let m = body("span_or", v)?;
    let mut boost = 1.0f32;
    for (k, val) in m {
        match (k.as_str(), val) {
            ("clauses", Value::Array(_)) => {}
            (_, Value::Array(_)) => return Err(perr(format!("[span_or] query does not support [{k}]"))),
            ("boost", _) => boost = f32_of("span_or", k, val)?,
            ("_name", _) => {}
            _ => return Err(perr(format!("[span_or] query does not support [{k}]"))),
        }
    }
    let clauses = clause_list("span_or", m, ctx, depth)?;
    if clauses.is_empty() {
        return Err(perr("span_or must include [clauses]"));
    }
    no_gap(&clauses)?;
    same_field(&clauses, "Clauses must have same field.")?;
    Ok(Parsed { q: SpanQuery::Or(clauses), boost })
}

fn no_gap(clauses: &[SpanQuery]) -> OsResult<()> {
    if clauses.iter().any(|c| matches!(c, SpanQuery::Gap { .. })) {
        return Err(
            OsError::new(ErrorKind::UnsupportedOperation, "[span_gap] can only be a clause of [span_near]").status(500)
        );
    }
    Ok(())
}

fn same_field(clauses: &[SpanQuery], msg: &str) -> OsResult<()> {
    let f = clauses.first().map(|c| c.field()).unwrap_or("");
    if clauses.iter().any(|c| c.field() != f) {
        return Err(OsError::illegal(msg));
    }
    Ok(())
}

fn span_not(v: &Value, ctx: &QueryContext<'_>, depth: usize) -> OsResult<Parsed> {
    let m = body("span_not", v)?;
    let (mut include, mut exclude) = (None, None);
    let (mut dist, mut pre, mut post) = (None, None, None);
    let mut boost = 1.0f32;
    for (k, val) in m {
        match (k.as_str(), val) {
            ("include", Value::Object(_)) => {
                include = Some(clause("span_not", k, "span_not [include] must be of type span query", val, ctx, depth)?)
            }
            ("exclude", Value::Object(_)) => {
                exclude = Some(clause("span_not", k, "span_not [exclude] must be of type span query", val, ctx, depth)?)
            }
            (_, Value::Object(_)) => return Err(perr(format!("[span_not] query does not support [{k}]"))),
            ("dist", _) => dist = Some(int32("span_not", k, val)?),
            ("pre", _) => pre = Some(int32("span_not", k, val)?),
            ("post", _) => post = Some(int32("span_not", k, val)?),
            ("boost", _) => boost = f32_of("span_not", k, val)?,
            ("_name", _) => {}
            _ => return Err(perr(format!("[span_not] query does not support [{k}]"))),
        }
    }
    let include = include.ok_or_else(|| perr("span_not must have [include] span query clause"))?;
    let exclude = exclude.ok_or_else(|| perr("span_not must have [exclude] span query clause"))?;
    if dist.is_some() && (pre.is_some() || post.is_some()) {
        return Err(perr("span_not can either use [dist] or [pre] & [post] (or none)"));
    }
    no_gap(&[include.clone(), exclude.clone()])?;
    let (pre, post) = match dist {
        Some(d) => (d.max(0), d.max(0)),
        None => (pre.unwrap_or(0).max(0), post.unwrap_or(0).max(0)),
    };
    if include.field() != exclude.field() {
        return Err(OsError::illegal("Clauses must have same field."));
    }
    Ok(Parsed { q: SpanQuery::Not { include: Box::new(include), exclude: Box::new(exclude), pre, post }, boost })
}

fn span_first(v: &Value, ctx: &QueryContext<'_>, depth: usize) -> OsResult<Parsed> {
    let m = body("span_first", v)?;
    let (mut inner, mut end, mut boost) = (None, None, 1.0f32);
    for (k, val) in m {
        match (k.as_str(), val) {
            ("match", Value::Object(_)) => {
                inner = Some(clause("span_first", k, "span_first [match] must be of type span query", val, ctx, depth)?)
            }
            (_, Value::Object(_)) => return Err(perr(format!("[span_first] query does not support [{k}]"))),
            ("boost", _) => boost = f32_of("span_first", k, val)?,
            ("end", _) => end = Some(int32("span_first", k, val)?),
            ("_name", _) => {}
            _ => return Err(perr(format!("[span_first] query does not support [{k}]"))),
        }
    }
    let inner = inner.ok_or_else(|| perr("span_first must have [match] span query clause"))?;
    let end = end.ok_or_else(|| perr("span_first must have [end] set for it"))?;
    if end < 0 {
        return Err(OsError::illegal("parameter [end] needs to be positive."));
    }
    no_gap(std::slice::from_ref(&inner))?;
    Ok(Parsed { q: SpanQuery::First { inner: Box::new(inner), end }, boost })
}

fn span_contain(name: &str, v: &Value, ctx: &QueryContext<'_>, depth: usize) -> OsResult<Parsed> {
    let m = body(name, v)?;
    let (mut big, mut little, mut boost) = (None, None, 1.0f32);
    for (k, val) in m {
        match (k.as_str(), val) {
            ("big", Value::Object(_)) => {
                big = Some(clause(name, k, &format!("{name} [big] must be of type span query"), val, ctx, depth)?)
            }
            ("little", Value::Object(_)) => {
                little = Some(clause(name, k, &format!("{name} [little] must be of type span query"), val, ctx, depth)?)
            }
            (_, Value::Object(_)) => return Err(perr(format!("[{name}] query does not support [{k}]"))),
            ("boost", _) => boost = f32_of(name, k, val)?,
            ("_name", _) => {}
            _ => return Err(perr(format!("[{name}] query does not support [{k}]"))),
        }
    }
    let big = big.ok_or_else(|| OsError::illegal("inner clause [big] cannot be null."))?;
    let little = little.ok_or_else(|| OsError::illegal("inner clause [little] cannot be null."))?;
    no_gap(&[big.clone(), little.clone()])?;
    if big.field() != little.field() {
        return Err(OsError::illegal("big and little not same field"));
    }
    let (big, little) = (Box::new(big), Box::new(little));
    let q = if name == "span_containing" {
        SpanQuery::Containing { big, little }
    } else {
        SpanQuery::Within { big, little }
    };
    Ok(Parsed { q, boost })
}

fn field_masking(v: &Value, ctx: &QueryContext<'_>, depth: usize) -> OsResult<Parsed> {
    const N: &str = "span_field_masking";
    let m = body(N, v)?;
    let (mut inner, mut field, mut boost) = (None, None, 1.0f32);
    for (k, val) in m {
        match (k.as_str(), val) {
            ("query", Value::Object(_)) => {
                inner = Some(clause(N, k, &format!("[{N}] query must be of type span query"), val, ctx, depth)?)
            }
            (_, Value::Object(_)) => return Err(perr(format!("[{N}] query does not support [{k}]"))),
            ("boost", _) => boost = f32_of(N, k, val)?,
            ("field", _) => field = Some(str_of(N, k, val)?),
            ("_name", _) => {}
            _ => return Err(perr(format!("[{N}] query does not support [{k}]"))),
        }
    }
    let inner = inner.ok_or_else(|| perr(format!("{N} must have [query] span query clause")))?;
    let field = field.ok_or_else(|| perr(format!("{N} must have [field] set for it")))?;
    if field.is_empty() {
        return Err(OsError::illegal("field name is null or empty"));
    }
    no_gap(std::slice::from_ref(&inner))?;
    let field = ctx.mapping.resolve_alias(&field).to_string();
    Ok(Parsed { q: SpanQuery::Mask { inner: Box::new(inner), field }, boost })
}

#[cfg(test)]
#[path = "dsl_span_tests.rs"]
mod tests;
