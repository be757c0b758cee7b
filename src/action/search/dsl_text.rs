//! Full-text queries: `match` (operator, minimum_should_match, analyzer, zero_terms_query,
//! fuzziness, prefix_length, lenient), `match_phrase` (slop), `match_phrase_prefix`,
//! `match_bool_prefix` and `multi_match` (every type, `tie_breaker`, field boosts `title^2`).
//! Text is analyzed with the field's search analyzer; other field types take the value as a term.

use serde_json::{Map, Value};

use super::dsl::{body, bool_of, boosted, dis_max, f32_of, i64_of, min_should_match, perr, str_of, QueryContext};
use super::dsl_term;
use crate::engine::query::Query;
use crate::engine::schema::FieldKind;
use crate::error::{OsError, OsResult};

/// Most tokens one query text may produce.
pub const MAX_QUERY_TOKENS: usize = 10_000;
/// Default `max_expansions` of phrase-prefix queries.
pub const PREFIX_MAX_EXPANSIONS: usize = 50;

/// How a `match`-family query combines its terms.
#[derive(Debug, Clone)]
pub struct MatchOptions {
    /// `operator`: true for AND.
    pub and: bool,
    pub minimum_should_match: Option<String>,
    pub analyzer: Option<String>,
    /// `zero_terms_query: all`.
    pub zero_terms_all: bool,
    pub fuzziness: Option<String>,
    pub prefix_length: usize,
    pub max_expansions: usize,
    pub transpositions: bool,
    pub lenient: bool,
    pub slop: u32,
    pub boost: f32,
}

impl Default for MatchOptions {
    fn default() -> Self {
        MatchOptions {
            and: false,
            minimum_should_match: None,
            analyzer: None,
            zero_terms_all: false,
            fuzziness: None,
            prefix_length: 0,
            max_expansions: PREFIX_MAX_EXPANSIONS,
            transpositions: true,
            lenient: false,
            slop: 0,
            boost: 1.0,
        }
    }
}

/// The kind of match query.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MatchKind {
    Bool,
    Phrase,
    PhrasePrefix,
    BoolPrefix,
}

/// Reads the options shared by the match family (unknown keys are errors).
fn options(name: &str, m: &Map<String, Value>, skip: &[&str]) -> OsResult<MatchOptions> {
    let mut o = MatchOptions::default();
    for (k, v) in m {
        match k.as_str() {
            "operator" => {
                o.and = match str_of(name, k, v)?.to_ascii_lowercase().as_str() {
                    "and" => true,
                    "or" => false,
                    other => {
                        return Err(OsError::illegal(format!(
                            "No enum constant org.opensearch.index.query.Operator.{}",
                            other.to_ascii_uppercase()
                        )))
                    }
                }
            }
            "minimum_should_match" => o.minimum_should_match = Some(str_of(name, k, v)?),
            "analyzer" => o.analyzer = Some(str_of(name, k, v)?),
            "zero_terms_query" => {
                o.zero_terms_all = match str_of(name, k, v)?.to_ascii_lowercase().as_str() {
                    "all" => true,
                    "none" => false,
                    other => return Err(perr(format!("Unsupported zero_terms_query value [{other}]"))),
                }
            }
            "fuzziness" => o.fuzziness = Some(str_of(name, k, v)?),
            "prefix_length" => o.prefix_length = i64_of(name, k, v)?.max(0) as usize,
            "max_expansions" => o.max_expansions = i64_of(name, k, v)?.max(1) as usize,
            "fuzzy_transpositions" => o.transpositions = bool_of(name, k, v)?,
            "lenient" => o.lenient = bool_of(name, k, v)?,
            "slop" | "phrase_slop" => o.slop = i64_of(name, k, v)?.clamp(0, u32::MAX as i64) as u32,
            "boost" => o.boost = f32_of(name, k, v)?,
            "_name" | "auto_generate_synonyms_phrase_query" | "fuzzy_rewrite" | "cutoff_frequency" => {}
            other if skip.contains(&other) => {}
            other => return Err(perr(format!("[{name}] query does not support [{other}]"))),
        }
    }
    Ok(o)
}

/// Parses a full-text query.
pub fn parse(name: &str, v: &Value, ctx: &QueryContext<'_>) -> OsResult<Query> {
    let m = body(name, v)?;
    if name == "multi_match" {
        return multi_match(m, ctx);
    }
    let kind = match name {
        "match_phrase" => MatchKind::Phrase,
        "match_phrase_prefix" => MatchKind::PhrasePrefix,
        "match_bool_prefix" => MatchKind::BoolPrefix,
        _ => MatchKind::Bool,
    };
    let mut field = None;
    for (k, v) in m {
        if k == "boost" || k == "_name" {
            continue;
        }
        if let Some((prev, _)) = field {
            return Err(perr(format!("[{name}] query doesn't support multiple fields, found [{prev}] and [{k}]")));
        }
        field = Some((k.as_str(), v));
    }
    let (field, spec) = field.ok_or_else(|| perr(format!("[{name}] query malformed, no field specified")))?;
    let (text, opts) = match spec {
        Value::Object(fm) => {
            let q = fm.get("query").ok_or_else(|| perr("No text specified for text query".to_string()))?;
            (q.clone(), options(name, fm, &["query"])?)
        }
        Value::Array(_) => return Err(perr(format!("[{name}] unknown token [START_ARRAY] after [{field}]"))),
        other => (other.clone(), MatchOptions::default()),
    };
    let outer = match m.get("boost") {
        Some(b) => f32_of(name, "boost", b)?,
        None => 1.0,
    };
    Ok(boosted(match_field(ctx, field, &text, kind, &opts)?, outer))
}

/// The terms of `text` analyzed for `field` with their positions.
pub fn analyze(
    ctx: &QueryContext<'_>,
    field: &str,
    analyzer: Option<&str>,
    text: &str,
) -> OsResult<Vec<(String, u32)>> {
    let ft = ctx.mapping.field_type(field);
    let name = match (analyzer, ft.map(|f| &f.kind)) {
        (Some(a), _) => a.to_string(),
        (None, Some(FieldKind::Text(p))) => {
            p.search_analyzer.clone().or_else(|| p.analyzer.clone()).unwrap_or_else(|| "default".into())
        }
        (None, _) => "default".into(),
    };
    let a = ctx
        .analyzers
        .get(&name)
        .ok_or_else(|| OsError::illegal(format!("analyzer [{name}] has not been configured in mappings")))?;
    let mut out = Vec::new();
    a.analyze(text, 0, &mut |t| {
        if out.len() < MAX_QUERY_TOKENS {
            out.push((t.term.to_string(), t.position));
        }
    });
    Ok(out)
}

/// A match-family query on one field.
pub fn match_field(
    ctx: &QueryContext<'_>,
    field: &str,
    text: &Value,
    kind: MatchKind,
    o: &MatchOptions,
) -> OsResult<Query> {
    let field = ctx.mapping.resolve_alias(field);
    if super::dsl_flat_object::split(ctx, field).is_some() {
        // A flat_object's search analyzer is the keyword analyzer: the text is one term.
        return dsl_term::parse("term", &serde_json::json!({ field: { "value": text, "boost": o.boost } }), ctx);
    }
    let ft = ctx.mapping.field_type(field);
    let is_text = matches!(ft.map(|f| &f.kind), Some(FieldKind::Text(_)));
    if ft.is_none() && field != "_id" && field != "_index" && field != "_routing" {
        return Ok(Query::MatchNone);
    }
    if !is_text {
        // Keyword, numeric, date, boolean, ip: the value is one term.
        if matches!(ft.map(|f| &f.kind), Some(FieldKind::Keyword(_))) && o.fuzziness.is_some() {
            let s = str_of("match", "query", text)?;
            let fz = o.fuzziness.as_deref().unwrap_or("AUTO");
            return Ok(boosted(
                super::dsl_fuzzy::fuzzy(ctx, field, &s, fz, o.prefix_length, o.max_expansions, o.transpositions, 1.0)?,
                o.boost,
            ));
        }
        if matches!(kind, MatchKind::PhrasePrefix | MatchKind::BoolPrefix)
            && matches!(ft.map(|f| &f.kind), Some(FieldKind::Keyword(_)))
        {
            let s = super::dsl_keyword::normalize(ctx, field, &str_of("match", "query", text)?);
            if kind == MatchKind::PhrasePrefix {
                return Ok(boosted(phrase_prefix(ctx, field, &[(s, 0)], o)?, o.boost));
            }
            return Ok(Query::Prefix { field: field.into(), prefix: s.into_bytes(), boost: o.boost });
        }
        return match dsl_term::term(ctx, field, text, o.boost) {
            Ok(q) => Ok(q),
            Err(_) if o.lenient => Ok(Query::MatchNone),
            Err(e) => Err(e),
        };
    }
    let s = str_of("match", "query", text)?;
    let tokens = analyze(ctx, field, o.analyzer.as_deref(), &s)?;
    if tokens.is_empty() {
        return Ok(if o.zero_terms_all { Query::MatchAll { boost: o.boost } } else { Query::MatchNone });
    }
    let term = |t: &str| Query::Term { field: field.into(), term: t.as_bytes().to_vec(), boost: 1.0 };
    let q = match kind {
        MatchKind::Bool | MatchKind::BoolPrefix => {
            let last = tokens.len() - 1;
            let mut clauses = Vec::with_capacity(tokens.len());
            for (i, (t, _)) in tokens.iter().enumerate() {
                let c = if kind == MatchKind::BoolPrefix && i == last {
                    Query::Prefix { field: field.into(), prefix: t.as_bytes().to_vec(), boost: 1.0 }
                } else if let Some(fz) = &o.fuzziness {
                    super::dsl_fuzzy::fuzzy(
                        ctx,
                        field,
                        t,
                        fz,
                        o.prefix_length,
                        o.max_expansions,
                        o.transpositions,
                        1.0,
                    )?
                } else {
                    term(t)
                };
                clauses.push(c);
            }
            if clauses.len() == 1 && o.minimum_should_match.is_none() {
                clauses.pop().unwrap_or(Query::MatchNone)
            } else if o.and {
                if clauses.contains(&Query::MatchNone) {
                    Query::MatchNone
                } else {
                    Query::and(clauses)
                }
            } else {
                let msm = match &o.minimum_should_match {
                    Some(s) => min_should_match(s, clauses.len())?,
                    None => 0,
                };
                Query::Bool {
                    must: vec![],
                    should: clauses,
                    must_not: vec![],
                    filter: vec![],
                    minimum_should_match: msm as u32,
                    boost: 1.0,
                }
            }
        }
        MatchKind::Phrase => {
            if tokens.len() == 1 {
                term(&tokens[0].0)
            } else {
                Query::Phrase {
                    field: field.into(),
                    terms: tokens.iter().map(|(t, p)| (t.as_bytes().to_vec(), *p)).collect(),
                    slop: o.slop,
                    boost: 1.0,
                }
            }
        }
        MatchKind::PhrasePrefix => phrase_prefix(ctx, field, &tokens, o)?,
    };
    Ok(boosted(q, o.boost))
}

/// `match_phrase_prefix`: OpenSearch's `MultiPhrasePrefixQuery`. The last term expands to the
/// field's terms starting with it, collected segment by segment in term order until
/// `max_expansions` are found (`getPrefixTerms`), and the phrase becomes Lucene's
/// `MultiPhraseQuery` with those alternatives at the last position (one position: a disjunction
/// of the expansions' term queries). No expansion: nothing matches.
pub fn phrase_prefix(
    ctx: &QueryContext<'_>,
    field: &str,
    tokens: &[(String, u32)],
    o: &MatchOptions,
) -> OsResult<Query> {
    let Some(((last, last_pos), head)) = tokens.split_last() else { return Ok(Query::MatchNone) };
    let expansions = prefix_expansions(ctx, field, last.as_bytes(), o.max_expansions)?;
    if expansions.is_empty() {
        return Ok(Query::MatchNone);
    }
    let mut positions: Vec<(Vec<Vec<u8>>, u32)> = head.iter().map(|(t, p)| (vec![t.as_bytes().to_vec()], *p)).collect();
    positions.push((expansions, *last_pos));
    Ok(Query::MultiPhrase { field: field.into(), positions, slop: o.slop, boost: 1.0 })
}

/// `MultiPhrasePrefixQuery.getPrefixTerms`: terms starting with `prefix`, leaf by leaf, until
/// `max` distinct ones are found.
fn prefix_expansions(ctx: &QueryContext<'_>, field: &str, prefix: &[u8], max: usize) -> OsResult<Vec<Vec<u8>>> {
    let mut seen: std::collections::HashSet<Vec<u8>> = std::collections::HashSet::new();
    let mut out: Vec<Vec<u8>> = Vec::new();
    for seg in ctx.segments {
        if out.len() >= max.max(1) {
            break;
        }
        let mut n = 0usize;
        seg.visit_terms(field, prefix, &mut |t| {
            n += 1;
            if !t.starts_with(prefix) || n > dsl_term::MAX_TERMS_VISITED {
                return false;
            }
            if seen.insert(t.to_vec()) {
                out.push(t.to_vec());
            }
            out.len() < max.max(1)
        })?;
    }
    Ok(out)
}

/// `title^2` → (`title`, 2).
pub fn field_and_boost(spec: &str) -> OsResult<(String, f32)> {
    match spec.rsplit_once('^') {
        Some((f, b)) => Ok((
            f.to_string(),
            b.trim().parse::<f32>().map_err(|_| perr(format!("failed to parse boost of field [{spec}]")))?,
        )),
        None => Ok((spec.to_string(), 1.0)),
    }
}

/// Expands field patterns (`title*`, `*`) against the mapping; `*` alone keeps text and keyword
/// fields (the fields a query_string over all fields can search).
pub fn expand_fields(ctx: &QueryContext<'_>, specs: &[(String, f32)]) -> Vec<(String, f32)> {
    let mut out: Vec<(String, f32)> = Vec::new();
    for (pat, b) in specs {
        if pat.contains('*') {
            for (path, ft) in ctx.mapping.leaf_fields() {
                let searchable = matches!(ft.kind, FieldKind::Text(_) | FieldKind::Keyword(_));
                if (pat != "*" || searchable) && crate::cluster::resolve::glob(pat, &path) {
                    let path = ctx.mapping.resolve_alias(&path).to_string();
                    if !out.iter().any(|(p, _)| *p == path) {
                        out.push((path, *b));
                    }
                }
            }
        } else {
            let path = ctx.mapping.resolve_alias(pat);
            if !out.iter().any(|(p, _)| p == path) {
                out.push((path.to_string(), *b));
            }
        }
    }
    out
}

fn multi_match(m: &Map<String, Value>, ctx: &QueryContext<'_>) -> OsResult<Query> {
    let name = "multi_match";
    let text = m.get("query").ok_or_else(|| perr("[multi_match] requires query value"))?;
    let mut fields = Vec::new();
    if let Some(f) = m.get("fields") {
        match f {
            Value::Array(a) => {
                for x in a {
                    fields.push(field_and_boost(&str_of(name, "fields", x)?)?);
                }
            }
            Value::String(s) => fields.push(field_and_boost(s)?),
            _ => return Err(perr("[multi_match] fields must be a list of strings")),
        }
    }
    let mut typ = "best_fields".to_string();
    let mut tie: Option<f32> = None;
    if let Some(t) = m.get("type") {
        typ = str_of(name, "type", t)?.to_ascii_lowercase();
    }
    if let Some(t) = m.get("tie_breaker") {
        tie = Some(f32_of(name, "tie_breaker", t)?);
    }
    let mut o = options(name, m, &["query", "fields", "type", "tie_breaker"])?;
    let outer = o.boost;
    o.boost = 1.0;
    let lenient_default = fields.is_empty();
    if fields.is_empty() {
        fields.push(("*".into(), 1.0));
    }
    let fields = expand_fields(ctx, &fields);
    if lenient_default {
        o.lenient = true;
    }
    let kind = match typ.as_str() {
        "best_fields" | "most_fields" | "cross_fields" => MatchKind::Bool,
        "phrase" => MatchKind::Phrase,
        "phrase_prefix" => MatchKind::PhrasePrefix,
        "bool_prefix" => MatchKind::BoolPrefix,
        other => return Err(perr(format!("[multi_match] query does not support type {other}"))),
    };
    if kind == MatchKind::BoolPrefix {
        // OpenSearch's MultiMatchQueryBuilder.fromXContent.
        if o.slop != 0 {
            return Err(perr("[slop] not allowed for type [bool_prefix]"));
        }
        if m.get("cutoff_frequency").is_some_and(|v| !v.is_null()) {
            return Err(perr("[cutoff_frequency] not allowed for type [bool_prefix]"));
        }
    }
    if typ == "cross_fields" {
        return Ok(boosted(super::dsl_cross_fields::cross_fields(ctx, &fields, text, &o, tie.unwrap_or(0.0))?, outer));
    }
    let mut per_field = Vec::new();
    for (f, b) in &fields {
        let q = match_field(ctx, f, text, kind, &MatchOptions { boost: *b, ..o.clone() })?;
        if q != Query::MatchNone {
            per_field.push(q);
        }
    }
    let q = if typ == "most_fields" {
        match per_field.len() {
            0 => Query::MatchNone,
            1 => per_field.pop().unwrap_or(Query::MatchNone),
            _ => Query::or(per_field),
        }
    } else {
        dis_max(per_field, tie.unwrap_or(0.0))
    };
    Ok(boosted(q, outer))
}
