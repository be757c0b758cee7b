//! The query DSL: JSON → engine [`Query`], per index (the mapping decides how values are
//! encoded and text analyzed) and per shard (fuzzy and regexp expand over the shard's terms).
//! Compound queries live here; leaf queries in [`super::dsl_term`] and [`super::dsl_text`].
//!
//! Errors are OpenSearch's `parsing_exception` (400) with its messages.

use std::sync::Arc;

use serde_json::{Map, Value};

use super::{dsl_term, dsl_text, query_string};
use crate::action::deferred::Warnings;
use crate::engine::analysis::{AnalyzerRegistry, IndexAnalysis};
use crate::engine::query::{Query, SegmentView};
use crate::engine::schema::{FieldKind, Mapping};
use crate::error::{OsError, OsResult};

/// What parsing a query needs to know.
pub struct QueryContext<'a> {
    /// The index's mapping.
    pub mapping: &'a Mapping,
    /// Analyzers by name.
    pub analyzers: &'a AnalyzerRegistry,
    /// The shard's segments (for term expansion: fuzzy, regexp).
    pub segments: &'a [Arc<dyn SegmentView>],
    /// The concrete index name (for `_index` queries).
    pub index: &'a str,
    /// `now` for date math, epoch millis.
    pub now_millis: i64,
    /// The index's analysis chains, for keyword `normalizer`s (`None`: no normalizer applies).
    pub analysis: Option<&'a IndexAnalysis>,
    /// `index.max_regex_length`: the longest `regexp` pattern a query may use.
    pub max_regex_length: usize,
    /// Where the parsers leave deprecation warnings for the answer.
    pub warnings: &'a Warnings,
    /// The path of the enclosing `nested` query (OpenSearch's `nestedScope`), `None` at the top.
    pub nested_scope: Option<&'a str>,
    /// `search.allow_expensive_queries`: false refuses the expensive queries ([`check_expensive`]).
    pub allow_expensive: bool,
}

#[cfg(test)]
impl<'a> QueryContext<'a> {
    /// A context for parser tests: built-in analyzers, no index analysis, index `idx`, `now` 0,
    /// default limits, warnings kept for the test's lifetime.
    pub fn for_tests(mapping: &'a Mapping, segments: &'a [Arc<dyn SegmentView>]) -> QueryContext<'a> {
        QueryContext {
            mapping,
            analyzers: super::execute::analyzers(),
            segments,
            index: "idx",
            now_millis: 0,
            analysis: None,
            max_regex_length: super::limits::DEFAULT_MAX_REGEX_LENGTH,
            warnings: Box::leak(Box::default()),
            nested_scope: None,
            allow_expensive: true,
        }
    }
}

impl std::fmt::Debug for QueryContext<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("QueryContext")
            .field("index", &self.index)
            .field("segments", &self.segments.len())
            .finish_non_exhaustive()
    }
}

/// Nesting limit of compound queries (OpenSearch's `indices.query.bool.max_nested_depth` is 20
/// for bool; this bounds every compound).
pub const MAX_DEPTH: usize = 64;

/// The query names OpenSearch's registry knows (with its plugins' and modules'), the
/// candidates of its `unknown query [x] did you mean [y]?` suggestion.
pub const QUERY_NAMES: &[&str] = &[
    "bool",
    "boosting",
    "combined_fields",
    "constant_score",
    "dis_max",
    "distance_feature",
    "exists",
    "field_masking_span",
    "function_score",
    "fuzzy",
    "geo_bounding_box",
    "geo_distance",
    "geo_polygon",
    "geo_shape",
    "has_child",
    "has_parent",
    "hybrid",
    "ids",
    "intervals",
    "knn",
    "match",
    "match_all",
    "match_bool_prefix",
    "match_none",
    "match_phrase",
    "match_phrase_prefix",
    "more_like_this",
    "multi_match",
    "nested",
    "neural",
    "parent_id",
    "percolate",
    "prefix",
    "query_string",
    "range",
    "rank_feature",
    "regexp",
    "script",
    "script_score",
    "simple_query_string",
    "span_containing",
    "span_field_masking",
    "span_first",
    "span_gap",
    "span_multi",
    "span_near",
    "span_not",
    "span_or",
    "span_term",
    "span_within",
    "term",
    "terms",
    "terms_set",
    "wildcard",
    "wrapper",
    "xy_shape",
];

/// `unknown query [x]` with OpenSearch's suggestion of close query names
/// (`AbstractQueryBuilder.parseInnerQueryBuilder`).
pub fn unknown_query(name: &str) -> OsError {
    perr(format!("unknown query [{name}]{}", crate::error::did_you_mean(name, QUERY_NAMES, 0.5)))
}

/// A `parsing_exception`.
pub fn perr(reason: impl Into<String>) -> OsError {
    OsError::parsing(reason).status(400)
}

/// The body of a query (`{"match": BODY}`), which must be an object.
pub fn body<'v>(name: &str, v: &'v Value) -> OsResult<&'v Map<String, Value>> {
    v.as_object().ok_or_else(|| perr(format!("[{name}] query malformed, no start_object after query name")))
}

/// A float parameter.
pub fn f32_of(name: &str, key: &str, v: &Value) -> OsResult<f32> {
    match v {
        Value::Number(n) => {
            n.as_f64().map(|f| f as f32).ok_or_else(|| perr(format!("[{name}] [{key}] must be a number")))
        }
        Value::String(s) => {
            s.trim().parse::<f32>().map_err(|_| perr(format!("[{name}] failed to parse [{key}] value [{s}]")))
        }
        other => Err(perr(format!("[{name}] [{key}] must be a number, got {other}"))),
    }
}

/// An integer parameter.
pub fn i64_of(name: &str, key: &str, v: &Value) -> OsResult<i64> {
    match v {
        Value::Number(n) => n
            .as_i64()
            .or_else(|| n.as_f64().map(|f| f as i64))
            .ok_or_else(|| perr(format!("[{name}] [{key}] must be an integer"))),
        Value::String(s) => {
            s.trim().parse::<i64>().map_err(|_| perr(format!("[{name}] failed to parse [{key}] value [{s}]")))
        }
        other => Err(perr(format!("[{name}] [{key}] must be an integer, got {other}"))),
    }
}

/// A boolean parameter.
pub fn bool_of(name: &str, key: &str, v: &Value) -> OsResult<bool> {
    match v {
        Value::Bool(b) => Ok(*b),
        Value::String(s) if s == "true" => Ok(true),
        Value::String(s) if s == "false" => Ok(false),
        other => Err(perr(format!("[{name}] [{key}] must be a boolean, got {other}"))),
    }
}

/// A string parameter (numbers and booleans print as text, as OpenSearch's `parser.text()`).
pub fn str_of(name: &str, key: &str, v: &Value) -> OsResult<String> {
    match v {
        Value::String(s) => Ok(s.clone()),
        Value::Number(n) => Ok(n.to_string()),
        Value::Bool(b) => Ok(b.to_string()),
        other => Err(perr(format!("[{name}] [{key}] must be a string, got {other}"))),
    }
}

/// The single `field: params` entry of a field-level query (`{"term": {"user": ...}}`), with the
/// query-level `boost` and `_name` allowed beside it.
pub fn single_field<'v>(name: &str, m: &'v Map<String, Value>) -> OsResult<(&'v str, &'v Value, f32)> {
    let mut field = None;
    let mut boost = 1.0;
    for (k, v) in m {
        match k.as_str() {
            "boost" if !v.is_object() => boost = f32_of(name, "boost", v)?,
            "_name" if !v.is_object() => {}
            _ => {
                if let Some((prev, _)) = field {
                    return Err(perr(format!(
                        "[{name}] query doesn't support multiple fields, found [{prev}] and [{k}]"
                    )));
                }
                field = Some((k.as_str(), v));
            }
        }
    }
    let (f, v) = field.ok_or_else(|| perr(format!("[{name}] query malformed, no field specified")))?;
    Ok((f, v, boost))
}

/// Multiplies a query's boost (OpenSearch wraps it in a `BoostQuery`).
pub fn boosted(q: Query, boost: f32) -> Query {
    if boost == 1.0 || q == Query::MatchNone {
        return q;
    }
    let b = q.boost() * boost;
    q.with_boost(b)
}

/// Parses a query object (`{"match_all": {}}`).
pub fn parse(v: &Value, ctx: &QueryContext<'_>) -> OsResult<Query> {
    Ok(super::match_only::verify_phrases(parse_at(v, ctx, 0)?, ctx))
}

/// Parses a query object at nesting `depth`.
pub fn parse_at(v: &Value, ctx: &QueryContext<'_>, depth: usize) -> OsResult<Query> {
    if depth > MAX_DEPTH {
        return Err(perr(format!("query nested deeper than {MAX_DEPTH} levels")));
    }
    let m = v.as_object().ok_or_else(|| perr("[_na] query malformed, must start with start_object".to_string()))?;
    let mut it = m.iter();
    let Some((name, inner)) = it.next() else {
        return Err(perr("query malformed, empty clause found"));
    };
    if it.next().is_some() {
        return Err(perr(format!("[{name}] malformed query, expected [END_OBJECT] but found [FIELD_NAME]")));
    }
    let d = depth + 1;
    match name.as_str() {
        "match_all" => {
            let b = boost_only(name, inner)?;
            Ok(Query::MatchAll { boost: b })
        }
        "match_none" => {
            boost_only(name, inner)?;
            Ok(Query::MatchNone)
        }
        "bool" => bool_query(inner, ctx, d),
        "constant_score" => {
            let m = body(name, inner)?;
            let mut boost = 1.0;
            let mut filter = None;
            for (k, v) in m {
                match k.as_str() {
                    "filter" => filter = Some(parse_at(v, ctx, d)?),
                    "boost" => boost = f32_of(name, k, v)?,
                    "_name" => {}
                    other => return Err(perr(format!("[constant_score] query does not support [{other}]"))),
                }
            }
            let mut f = filter.ok_or_else(|| perr("[constant_score] requires a 'filter' element"))?;
            if f == Query::MatchNone {
                return Ok(Query::MatchNone);
            }
            // Lucene's `ConstantScoreQuery.rewrite`: a constant-score filter (a keyword term)
            // needs no second wrapper.
            if let Query::ConstantScore { query, .. } = f {
                f = *query;
            }
            Ok(Query::ConstantScore { query: Box::new(f), boost })
        }
        "dis_max" => {
            let m = body(name, inner)?;
            let (mut boost, mut tie) = (1.0, 0.0);
            let mut queries = Vec::new();
            for (k, v) in m {
                match k.as_str() {
                    "queries" => match v {
                        Value::Array(a) => {
                            for q in a {
                                queries.push(parse_at(q, ctx, d)?);
                            }
                        }
                        Value::Object(_) => queries.push(parse_at(v, ctx, d)?),
                        _ => return Err(perr("[dis_max] queries must be an array")),
                    },
                    "tie_breaker" => tie = f32_of(name, k, v)?,
                    "boost" => boost = f32_of(name, k, v)?,
                    "_name" => {}
                    other => return Err(perr(format!("[dis_max] query does not support [{other}]"))),
                }
            }
            if queries.is_empty() {
                return Err(perr("[dis_max] requires 'queries' field with at least one clause"));
            }
            Ok(boosted(dis_max(queries, tie), boost))
        }
        "boosting" => {
            let m = body(name, inner)?;
            let (mut pos, mut neg, mut nb, mut boost) = (None, None, None, 1.0);
            for (k, v) in m {
                match k.as_str() {
                    "positive" => pos = Some(parse_at(v, ctx, d)?),
                    "negative" => neg = Some(parse_at(v, ctx, d)?),
                    "negative_boost" => nb = Some(f32_of(name, k, v)?),
                    "boost" => boost = f32_of(name, k, v)?,
                    "_name" => {}
                    other => return Err(perr(format!("[boosting] query does not support [{other}]"))),
                }
            }
            let pos = pos.ok_or_else(|| perr("[boosting] query requires 'positive' query to be set'"))?;
            let neg = neg.ok_or_else(|| perr("[boosting] query requires 'negative' query to be set'"))?;
            let nb =
                nb.ok_or_else(|| perr("[boosting] query requires 'negative_boost' to be set to be a positive value'"))?;
            Ok(boosted(super::combine::boosting(pos, neg, nb), boost))
        }
        "function_score" => super::combine::function_score(inner, ctx, d),
        "ids" => dsl_term::ids(inner),
        "term" | "terms" | "range" | "exists" | "prefix" | "wildcard" | "regexp" | "fuzzy" => {
            check_expensive(name, inner, ctx)?;
            super::dsl_doc_values::rewrite(dsl_term::parse(name, inner, ctx)?, ctx.mapping, name != "exists")
        }
        "match" | "match_phrase" | "match_phrase_prefix" | "match_bool_prefix" | "multi_match" => {
            super::dsl_doc_values::rewrite(dsl_text::parse(name, inner, ctx)?, ctx.mapping, false)
        }
        "query_string" | "simple_query_string" => query_string::parse_dsl(name, inner, ctx),
        "intervals" => super::dsl_intervals::parse(inner, ctx),
        n if super::dsl_span::SPAN_QUERIES.contains(&n) => super::dsl_span::parse(n, inner, ctx, d),
        "distance_feature" => super::dsl_distance_feature::parse(inner, ctx),
        "combined_fields" => super::dsl_combined_fields::parse(inner, ctx),
        "geo_distance" | "geo_bounding_box" | "geo_polygon" => super::dsl_geo::parse(name, inner, ctx),
        "geo_shape" => super::dsl_geo::parse_shape_query(inner, ctx),
        "nested" => {
            check_expensive(name, inner, ctx)?;
            super::dsl_nested::parse(inner, ctx, d)
        }
        other => Err(unknown_query(other)),
    }
}

/// OpenSearch's refusals of expensive queries when `search.allow_expensive_queries` is false:
/// prefix, fuzzy, regexp and wildcard queries, ranges on text and keyword fields, and joining
/// (`nested`) queries. OpenSearch answers them with a plain `exception`; the request is the
/// client's to change, so the status is 400.
fn check_expensive(name: &str, inner: &Value, ctx: &QueryContext<'_>) -> OsResult<()> {
    if ctx.allow_expensive {
        return Ok(());
    }
    let refuse = |what: &str, extra: &str| {
        Err(OsError::new(
            crate::error::ErrorKind::Exception,
            format!(
                "[{what}] queries cannot be executed when 'search.allow_expensive_queries' is set to false.{extra}"
            ),
        )
        .status(400))
    };
    match name {
        "prefix" => refuse("prefix", " For optimised prefix queries on text fields please enable [index_prefixes]."),
        "fuzzy" | "regexp" | "wildcard" => refuse(name, ""),
        "nested" => refuse("joining", ""),
        "range" => {
            let field = inner.as_object().and_then(|m| m.keys().find(|k| !k.starts_with('_') && *k != "boost"));
            let text_like = field
                .and_then(|f| ctx.mapping.field_type(f))
                .is_some_and(|ft| matches!(ft.kind, FieldKind::Text(_) | FieldKind::Keyword(_)));
            if text_like {
                Err(OsError::new(
                    crate::error::ErrorKind::Exception,
                    "[range] queries on [text] or [keyword] fields cannot be executed when 'search.allow_expensive_queries' is set to false.",
                )
                .status(400))
            } else {
                Ok(())
            }
        }
        _ => Ok(()),
    }
}

/// A query that takes only `boost` and `_name`.
fn boost_only(name: &str, v: &Value) -> OsResult<f32> {
    let m = body(name, v)?;
    let mut b = 1.0;
    for (k, v) in m {
        match k.as_str() {
            "boost" => b = f32_of(name, k, v)?,
            "_name" => {}
            other => return Err(perr(format!("[{name}] query does not support [{other}]"))),
        }
    }
    Ok(b)
}

/// Lucene's `DisjunctionMaxQuery`: the best clause's score plus `tie` times the others'.
pub fn dis_max(mut queries: Vec<Query>, tie: f32) -> Query {
    queries.retain(|q| *q != Query::MatchNone);
    match queries.len() {
        0 => Query::MatchNone,
        1 => queries.pop().unwrap_or(Query::MatchNone),
        _ => super::combine::dis_max(queries, tie),
    }
}

fn clauses(name: &str, v: &Value, ctx: &QueryContext<'_>, d: usize) -> OsResult<Vec<Query>> {
    match v {
        Value::Array(a) => a.iter().map(|q| parse_at(q, ctx, d)).collect(),
        Value::Object(_) => Ok(vec![parse_at(v, ctx, d)?]),
        _ => Err(perr(format!("[bool] query does not support [{name}]"))),
    }
}

fn bool_query(v: &Value, ctx: &QueryContext<'_>, d: usize) -> OsResult<Query> {
    let m = body("bool", v)?;
    let (mut must, mut should, mut must_not, mut filter) = (vec![], vec![], vec![], vec![]);
    let mut msm: Option<Value> = None;
    let mut boost = 1.0;
    for (k, v) in m {
        match k.as_str() {
            "must" => must.extend(clauses(k, v, ctx, d)?),
            "should" => should.extend(clauses(k, v, ctx, d)?),
            "must_not" | "mustNot" => must_not.extend(clauses(k, v, ctx, d)?),
            "filter" => filter.extend(clauses(k, v, ctx, d)?),
            "minimum_should_match" | "minimumShouldMatch" => msm = Some(v.clone()),
            "boost" => boost = f32_of("bool", k, v)?,
            "adjust_pure_negative" | "_name" => {}
            other => return Err(perr(format!("[bool] query does not support [{other}]"))),
        }
    }
    if must.is_empty() && should.is_empty() && must_not.is_empty() && filter.is_empty() {
        return Ok(Query::MatchAll { boost });
    }
    let msm_n = match &msm {
        Some(v) => min_should_match(&str_of("bool", "minimum_should_match", v)?, should.len())?,
        None if must.is_empty() && filter.is_empty() => 0,
        None => 0,
    };
    if must.is_empty() && filter.is_empty() && should.is_empty() {
        // Only must_not: OpenSearch adds a match_all.
        must.push(Query::MatchAll { boost: 1.0 });
    }
    if msm_n > should.len() {
        return Ok(Query::MatchNone);
    }
    Ok(Query::Bool { must, should, must_not, filter, minimum_should_match: msm_n as u32, boost })
}

/// OpenSearch's `Queries.calculateMinShouldMatch` for `n` optional clauses: `3`, `-2`, `75%`,
/// `-25%`, `3<90%`, `2<-25% 9<-3`.
pub fn min_should_match(spec: &str, n: usize) -> OsResult<usize> {
    let s = spec.trim();
    if s.is_empty() {
        return Ok(0);
    }
    let n = n as i64;
    if s.contains('<') {
        let mut result = n;
        for part in s.split_whitespace() {
            let (lhs, rhs) =
                part.split_once('<').ok_or_else(|| perr(format!("Invalid minimum_should_match [{spec}]")))?;
            let upper: i64 = lhs.trim().parse().map_err(|_| perr(format!("Invalid minimum_should_match [{spec}]")))?;
            if n <= upper {
                return Ok(result.clamp(0, n) as usize);
            }
            result = simple_msm(rhs, n, spec)?;
        }
        return Ok(result.clamp(0, n) as usize);
    }
    Ok(simple_msm(s, n, spec)?.clamp(0, n) as usize)
}

fn simple_msm(s: &str, n: i64, spec: &str) -> OsResult<i64> {
    let bad = || perr(format!("Invalid minimum_should_match [{spec}]")).status(400);
    let r = if let Some(p) = s.strip_suffix('%') {
        let pct: i64 = p.trim().parse().map_err(|_| bad())?;
        let v = n * pct / 100;
        if pct < 0 {
            n + v
        } else {
            v
        }
    } else {
        let v: i64 = s.trim().parse().map_err(|_| bad())?;
        if v < 0 {
            n + v
        } else {
            v
        }
    };
    Ok(r)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn minimum_should_match_forms() {
        assert_eq!(min_should_match("2", 5).unwrap(), 2);
        assert_eq!(min_should_match("-2", 5).unwrap(), 3);
        assert_eq!(min_should_match("75%", 4).unwrap(), 3);
        assert_eq!(min_should_match("-25%", 4).unwrap(), 3);
        assert_eq!(min_should_match("3<90%", 3).unwrap(), 3);
        assert_eq!(min_should_match("3<90%", 10).unwrap(), 9);
        assert_eq!(min_should_match("10", 3).unwrap(), 3);
        assert!(min_should_match("x", 3).is_err());
    }
}
