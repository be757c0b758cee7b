//! The `intervals` query (OpenSearch's `IntervalQueryBuilder` and `IntervalsSourceProvider`):
//! rules `match`, `prefix`, `wildcard`, `regexp`, `fuzzy`, `all_of`, `any_of`, with `filter`s,
//! built into Lucene's interval sources (see [`crate::engine::query::intervals`]) as
//! OpenSearch's `IntervalBuilder` builds them from the analyzed text.
//!
//! Multi-term rules expand over the shard's terms here, segment by segment: more than
//! `max_expansions` (default 128) terms in one segment is Lucene's "expanded to too many terms".

use serde_json::{Map, Value};

use super::dsl::{bool_of, f32_of, i64_of, perr, str_of, QueryContext};
use super::dsl_fuzzy::{edit_distance, fuzzy_edits};
use super::dsl_term::MAX_TERMS_VISITED;
use crate::action::deferred::Warnings;
use crate::engine::analysis::Analyzer;
use crate::engine::query::intervals::{self as iv, Source};
use crate::engine::query::multi_term::{parse_wildcard, wildcard_matches};
use crate::engine::query::Query;
use crate::engine::schema::{FieldKind, TextIndexOptions};
use crate::error::{ErrorKind, OsError, OsResult};

/// Lucene's `Intervals.DEFAULT_MAX_EXPANSIONS`.
const DEFAULT_MAX_EXPANSIONS: usize = 128;
/// Most tokens a `match` rule's text may analyze to.
const MAX_TOKENS: usize = 1024;

fn xparse(reason: impl Into<String>) -> OsError {
    OsError::new(ErrorKind::XContentParse, reason).status(400)
}

/// How the parts of a rule combine (OpenSearch's `IntervalMode`).
#[derive(Debug, Clone, Copy, PartialEq)]
enum Mode {
    Ordered,
    Unordered,
    UnorderedNoOverlap,
}

/// Parses `{"intervals": {FIELD: {RULE: {...}, "boost": .., "_name": ..}}}`.
pub fn parse(v: &Value, ctx: &QueryContext<'_>) -> OsResult<Query> {
    let m = v.as_object().ok_or_else(|| perr("Expected [FIELD_NAME] but got [VALUE]"))?;
    let mut it = m.iter();
    let Some((field, spec)) = it.next() else { return Err(perr("Expected [FIELD_NAME] but got [END_OBJECT]")) };
    if it.next().is_some() {
        return Err(perr("Expected [END_OBJECT] but got [FIELD_NAME]"));
    }
    let spec =
        spec.as_object().ok_or_else(|| perr(format!("Expected [START_OBJECT] but got [{}]", token_name(spec))))?;
    let mut boost = 1.0f32;
    let mut rule: Option<(&str, &Value)> = None;
    for (k, v) in spec {
        match k.as_str() {
            "_name" => {}
            "boost" => boost = f32_of("intervals", "boost", v)?,
            other => {
                if let Some((prev, _)) = rule {
                    return Err(perr(format!("Only one interval rule can be specified, found [{prev}] and [{other}]")));
                }
                rule = Some((other, v));
            }
        }
    }
    let (name, body) = rule.ok_or_else(|| perr("Missing intervals from interval query definition"))?;
    let rule = Rule::parse(name, body, ctx.warnings)?;
    // Unmapped fields (the query's or a `use_field`) match nothing, as OpenSearch is lenient.
    if ctx.mapping.field_type(field).is_none() {
        return Ok(Query::MatchNone);
    }
    let mut used = Vec::new();
    rule.use_fields(&mut used);
    if used.iter().any(|f| ctx.mapping.field_type(f).is_none()) {
        return Ok(Query::MatchNone);
    }
    let source = rule.source(ctx, field)?;
    Ok(Query::Intervals { field: field.clone(), source: Box::new(source), boost })
}

fn token_name(v: &Value) -> &'static str {
    match v {
        Value::Object(_) => "START_OBJECT",
        Value::Array(_) => "START_ARRAY",
        Value::String(_) => "VALUE_STRING",
        Value::Number(_) => "VALUE_NUMBER",
        Value::Bool(_) => "VALUE_BOOLEAN",
        Value::Null => "VALUE_NULL",
    }
}

/// A parsed rule (OpenSearch's providers).
#[derive(Debug, Clone)]
enum Rule {
    Match {
        query: String,
        max_gaps: i32,
        mode: Mode,
        analyzer: Option<String>,
        filter: Option<Box<Filter>>,
        use_field: Option<String>,
    },
    AnyOf {
        subs: Vec<Rule>,
        filter: Option<Box<Filter>>,
    },
    AllOf {
        subs: Vec<Rule>,
        mode: Mode,
        max_gaps: i32,
        filter: Option<Box<Filter>>,
    },
    Prefix {
        prefix: String,
        analyzer: Option<String>,
        use_field: Option<String>,
    },
    Wildcard {
        pattern: String,
        analyzer: Option<String>,
        use_field: Option<String>,
        max_expansions: Option<usize>,
    },
    Regexp {
        pattern: String,
        use_field: Option<String>,
        max_expansions: Option<usize>,
        case_insensitive: bool,
    },
    Fuzzy {
        term: String,
        prefix_length: usize,
        transpositions: bool,
        fuzziness: String,
        analyzer: Option<String>,
        use_field: Option<String>,
    },
}

/// A rule's `filter`.
#[derive(Debug, Clone)]
struct Filter {
    kind: String,
    rule: Rule,
}

fn obj<'v>(name: &str, v: &'v Value) -> OsResult<&'v Map<String, Value>> {
    v.as_object().ok_or_else(|| xparse(format!("[{name}] expected an object, got [{}]", token_name(v))))
}

fn int_of(name: &str, key: &str, v: &Value) -> OsResult<i32> {
    let n = i64_of(name, key, v)?;
    i32::try_from(n).map_err(|_| xparse(format!("[{name}] failed to parse field [{key}]")))
}

fn mode_of(ordered: Option<bool>, mode: Option<String>) -> OsResult<Mode> {
    if let Some(o) = ordered {
        return Ok(if o { Mode::Ordered } else { Mode::Unordered });
    }
    match mode {
        None => Ok(Mode::Unordered),
        Some(m) => match m.to_ascii_lowercase().as_str() {
            "ordered" => Ok(Mode::Ordered),
            "unordered" => Ok(Mode::Unordered),
            "unordered_no_overlap" => Ok(Mode::UnorderedNoOverlap),
            _ => Err(OsError::illegal(format!("no mode can be parsed from value [{m}]"))),
        },
    }
}

fn ordered_deprecated(w: &Warnings) {
    w.warn("Deprecated field [ordered] used, this field is unused and will be removed entirely");
}

/// `{"RULE": {...}}` inside `intervals` lists and filters.
fn inner_rule(v: &Value, w: &Warnings) -> OsResult<Rule> {
    let m = v.as_object().ok_or_else(|| perr(format!("Expected [FIELD_NAME] but got [{}]", token_name(v))))?;
    let mut it = m.iter();
    let Some((name, body)) = it.next() else { return Err(perr("Expected [FIELD_NAME] but got [END_OBJECT]")) };
    if it.next().is_some() {
        return Err(perr("Expected [END_OBJECT] but got [FIELD_NAME]"));
    }
    Rule::parse(name, body, w)
}

fn rules_of(name: &str, v: &Value, w: &Warnings) -> OsResult<Vec<Rule>> {
    match v {
        Value::Array(a) => a.iter().map(|r| inner_rule(r, w)).collect(),
        Value::Object(_) => Ok(vec![inner_rule(v, w)?]),
        other => Err(xparse(format!("[{name}] intervals doesn't support values of type: {}", token_name(other)))),
    }
}

impl Filter {
    fn parse(v: &Value, w: &Warnings) -> OsResult<Filter> {
        let m = obj("filter", v)?;
        let mut it = m.iter();
        let Some((kind, body)) = it.next() else { return Err(perr("Expected [FIELD_NAME] but got [END_OBJECT]")) };
        if kind == "script" {
            return Err(OsError::illegal("script filters of interval rules are not supported"));
        }
        let b =
            body.as_object().ok_or_else(|| perr(format!("Expected [START_OBJECT] but got [{}]", token_name(body))))?;
        let mut bi = b.iter();
        let Some((rname, rbody)) = bi.next() else { return Err(perr("Expected [FIELD_NAME] but got [END_OBJECT]")) };
        if bi.next().is_some() || it.next().is_some() {
            return Err(perr("Expected [END_OBJECT] but got [FIELD_NAME]"));
        }
        Ok(Filter { kind: kind.to_lowercase(), rule: Rule::parse(rname, rbody, w)? })
    }
}

impl Rule {
    fn parse(name: &str, v: &Value, w: &Warnings) -> OsResult<Rule> {
        let known = ["match", "any_of", "all_of", "prefix", "wildcard", "regexp", "fuzzy"];
        if !known.contains(&name) {
            return Err(perr(format!(
                "Unknown interval type [{name}], expecting one of [match, any_of, all_of, prefix, wildcard, regexp]"
            )));
        }
        let m = obj(name, v)?;
        let s = |k: &str, v: &Value| str_of(name, k, v);
        let unknown = |k: &str| xparse(format!("[{name}] unknown field [{k}]"));
        let required = |k: &str| xparse(format!("Required [{k}]"));
        Ok(match name {
            "match" => {
                let (mut query, mut max_gaps, mut ordered, mut mode, mut analyzer, mut filter, mut use_field) =
                    (None, -1, None, None, None, None, None);
                for (k, v) in m {
                    match k.as_str() {
                        "query" => query = Some(s(k, v)?),
                        "max_gaps" => max_gaps = int_of(name, k, v)?,
                        "ordered" => {
                            ordered_deprecated(w);
                            ordered = Some(bool_of(name, k, v)?)
                        }
                        "mode" => mode = Some(s(k, v)?),
                        "analyzer" => analyzer = Some(s(k, v)?),
                        "filter" => filter = Some(Box::new(Filter::parse(v, w)?)),
                        "use_field" => use_field = Some(s(k, v)?),
                        other => return Err(unknown(other)),
                    }
                }
                let query = query.ok_or_else(|| required("query"))?;
                Rule::Match { query, max_gaps, mode: mode_of(ordered, mode)?, analyzer, filter, use_field }
            }
            "any_of" => {
                let (mut subs, mut filter) = (None, None);
                for (k, v) in m {
                    match k.as_str() {
                        "intervals" => subs = Some(rules_of(name, v, w)?),
                        "filter" => filter = Some(Box::new(Filter::parse(v, w)?)),
                        other => return Err(unknown(other)),
                    }
                }
                Rule::AnyOf { subs: subs.ok_or_else(|| required("intervals"))?, filter }
            }
            "all_of" => {
                let (mut subs, mut ordered, mut mode, mut max_gaps, mut filter) = (None, None, None, -1, None);
                for (k, v) in m {
                    match k.as_str() {
                        "intervals" => subs = Some(rules_of(name, v, w)?),
                        "ordered" => {
                            ordered_deprecated(w);
                            ordered = Some(bool_of(name, k, v)?)
                        }
                        "mode" => mode = Some(s(k, v)?),
                        "max_gaps" => max_gaps = int_of(name, k, v)?,
                        "filter" => filter = Some(Box::new(Filter::parse(v, w)?)),
                        other => return Err(unknown(other)),
                    }
                }
                Rule::AllOf {
                    subs: subs.ok_or_else(|| required("intervals"))?,
                    mode: mode_of(ordered, mode)?,
                    max_gaps,
                    filter,
                }
            }
            "prefix" => {
                let (mut prefix, mut analyzer, mut use_field) = (None, None, None);
                for (k, v) in m {
                    match k.as_str() {
                        "prefix" => prefix = Some(s(k, v)?),
                        "analyzer" => analyzer = Some(s(k, v)?),
                        "use_field" => use_field = Some(s(k, v)?),
                        other => return Err(unknown(other)),
                    }
                }
                Rule::Prefix { prefix: prefix.ok_or_else(|| required("prefix"))?, analyzer, use_field }
            }
            "wildcard" => {
                let (mut pattern, mut analyzer, mut use_field, mut max_expansions) = (None, None, None, None);
                for (k, v) in m {
                    match k.as_str() {
                        "pattern" => pattern = Some(s(k, v)?),
                        "analyzer" => analyzer = Some(s(k, v)?),
                        "use_field" => use_field = Some(s(k, v)?),
                        "max_expansions" => max_expansions = Some(int_of(name, k, v)?),
                        other => return Err(unknown(other)),
                    }
                }
                let max_expansions = max_expansions.filter(|n| *n > 0).map(|n| n as usize);
                Rule::Wildcard {
                    pattern: pattern.ok_or_else(|| required("pattern"))?,
                    analyzer,
                    use_field,
                    max_expansions,
                }
            }
            "regexp" => {
                let (mut pattern, mut use_field, mut max_expansions, mut ci) = (None, None, None, false);
                for (k, v) in m {
                    match k.as_str() {
                        "pattern" => pattern = Some(s(k, v)?),
                        "flags" => {
                            let f = s(k, v)?;
                            if !f.split('|').all(|x| x.trim().eq_ignore_ascii_case("ALL")) {
                                return Err(OsError::illegal(format!(
                                    "regexp flags [{f}] are not supported in interval rules (only ALL)"
                                )));
                            }
                        }
                        "flags_value" => {
                            let f = int_of(name, k, v)?;
                            if f != 0xff && f != 0xffff && f != -1 {
                                return Err(OsError::illegal(format!(
                                    "regexp flags_value [{f}] is not supported in interval rules (only ALL)"
                                )));
                            }
                        }
                        "use_field" => use_field = Some(s(k, v)?),
                        "max_expansions" => max_expansions = Some(int_of(name, k, v)?),
                        "case_insensitive" => ci = bool_of(name, k, v)?,
                        other => return Err(unknown(other)),
                    }
                }
                let max_expansions = max_expansions.filter(|n| *n > 0).map(|n| n as usize);
                Rule::Regexp {
                    pattern: pattern.ok_or_else(|| required("pattern"))?,
                    use_field,
                    max_expansions,
                    case_insensitive: ci,
                }
            }
            _ => {
                let (mut term, mut prefix_length, mut transpositions, mut fuzziness, mut analyzer, mut use_field) =
                    (None, 0usize, true, "AUTO".to_string(), None, None);
                for (k, v) in m {
                    match k.as_str() {
                        "term" => term = Some(s(k, v)?),
                        "prefix_length" => prefix_length = int_of(name, k, v)?.max(0) as usize,
                        "transpositions" => transpositions = bool_of(name, k, v)?,
                        "fuzziness" => fuzziness = s(k, v)?,
                        "analyzer" => analyzer = Some(s(k, v)?),
                        "use_field" => use_field = Some(s(k, v)?),
                        other => return Err(unknown(other)),
                    }
                }
                Rule::Fuzzy {
                    term: term.ok_or_else(|| required("term"))?,
                    prefix_length,
                    transpositions,
                    fuzziness,
                    analyzer,
                    use_field,
                }
            }
        })
    }

    /// The `use_field`s of the rule and its sub-rules (OpenSearch's `extractFields`; filters
    /// are not visited, as in OpenSearch).
    fn use_fields(&self, out: &mut Vec<String>) {
        match self {
            Rule::Match { use_field, .. }
            | Rule::Prefix { use_field, .. }
            | Rule::Wildcard { use_field, .. }
            | Rule::Regexp { use_field, .. }
            | Rule::Fuzzy { use_field, .. } => out.extend(use_field.iter().cloned()),
            Rule::AnyOf { subs, .. } | Rule::AllOf { subs, .. } => subs.iter().for_each(|s| s.use_fields(out)),
        }
    }

    /// The interval source of the rule on `field`.
    fn source(&self, ctx: &QueryContext<'_>, field: &str) -> OsResult<Source> {
        let lucene = |e: String| OsError::illegal(e);
        Ok(match self {
            Rule::Match { query, max_gaps, mode, analyzer, filter, use_field } => {
                let f = use_field.as_deref().unwrap_or(field);
                let s = analyzed(ctx, f, analyzer.as_deref(), query, *max_gaps, *mode)?;
                // OpenSearch filters with the rule's own field (`use_field` when set).
                with_filter(ctx, f, s, filter.as_deref())?
            }
            Rule::AnyOf { subs, filter } => {
                let srcs = subs.iter().map(|r| r.source(ctx, field)).collect::<OsResult<Vec<_>>>()?;
                with_filter(ctx, field, iv::or(srcs), filter.as_deref())?
            }
            Rule::AllOf { subs, mode, max_gaps, filter } => {
                let srcs = subs.iter().map(|r| r.source(ctx, field)).collect::<OsResult<Vec<_>>>()?;
                let s = combine(srcs, *max_gaps, *mode).map_err(lucene)?;
                with_filter(ctx, field, s, filter.as_deref())?
            }
            Rule::Prefix { prefix, analyzer, use_field } => {
                let f = use_field.as_deref().unwrap_or(field);
                text_field(ctx, f)?;
                let p = normalize(ctx, f, analyzer.as_deref(), prefix)?;
                let pat = format!("{p}*");
                expand(ctx, f, p.as_bytes(), DEFAULT_MAX_EXPANSIONS, &pat, &|t| t.starts_with(p.as_bytes()))?
            }
            Rule::Wildcard { pattern, analyzer, use_field, max_expansions } => {
                let f = use_field.as_deref().unwrap_or(field);
                text_field(ctx, f)?;
                let p = normalize_wildcard(ctx, f, analyzer.as_deref(), pattern)?;
                let toks = parse_wildcard(&p);
                let lit: String = p.chars().take_while(|c| !matches!(c, '*' | '?' | '\\')).collect();
                expand(ctx, f, lit.as_bytes(), max_expansions.unwrap_or(DEFAULT_MAX_EXPANSIONS), &p, &|t| {
                    t.starts_with(lit.as_bytes())
                        && std::str::from_utf8(t).map(|s| wildcard_matches(&toks, s)).unwrap_or(false)
                })?
            }
            Rule::Regexp { pattern, use_field, max_expansions, case_insensitive } => {
                let f = use_field.as_deref().unwrap_or(field);
                text_field(ctx, f)?;
                let re = regex::bytes::RegexBuilder::new(&format!("^(?:{pattern})$"))
                    .case_insensitive(*case_insensitive)
                    .size_limit(1 << 20)
                    .build()
                    .map_err(|e| OsError::illegal(format!("failed to parse regexp [{pattern}]: {e}")))?;
                expand(ctx, f, b"", max_expansions.unwrap_or(DEFAULT_MAX_EXPANSIONS), pattern, &|t| re.is_match(t))?
            }
            Rule::Fuzzy { term, prefix_length, transpositions, fuzziness, analyzer, use_field } => {
                let f = use_field.as_deref().unwrap_or(field);
                text_field(ctx, f)?;
                let norm = normalize(ctx, f, analyzer.as_deref(), term)?;
                let edits = fuzzy_edits(fuzziness, term.chars().count())?;
                let chars: Vec<char> = norm.chars().collect();
                let prefix: String = chars.iter().take(*prefix_length).collect();
                let tr = *transpositions;
                expand(ctx, f, prefix.as_bytes(), DEFAULT_MAX_EXPANSIONS, term, &|t| {
                    let Ok(s) = std::str::from_utf8(t) else { return false };
                    if !s.starts_with(&prefix) {
                        return false;
                    }
                    let tc: Vec<char> = s.chars().collect();
                    edit_distance(&chars, &tc, edits, tr) <= edits
                })?
            }
        })
    }
}

/// Applies a rule's `filter` (OpenSearch's `IntervalFilter.filter`).
fn with_filter(ctx: &QueryContext<'_>, field: &str, s: Source, filter: Option<&Filter>) -> OsResult<Source> {
    let Some(f) = filter else { return Ok(s) };
    let other = f.rule.source(ctx, field)?;
    let r = match f.kind.as_str() {
        "containing" => iv::containing(s, other),
        "contained_by" => iv::contained_by(s, other),
        "not_containing" => iv::not_containing(s, other),
        "not_contained_by" => iv::not_contained_by(s, other),
        "overlapping" => Ok(iv::overlapping(s, other)),
        "not_overlapping" => Ok(iv::non_overlapping(s, other)),
        "before" => iv::before(s, other),
        "after" => iv::after(s, other),
        k => return Err(OsError::illegal(format!("Unknown filter type [{k}]"))),
    };
    r.map_err(OsError::illegal)
}

/// OpenSearch's `IntervalBuilder.combineSources`.
fn combine(mut sources: Vec<Source>, max_gaps: i32, mode: Mode) -> Result<Source, String> {
    match sources.len() {
        0 => return Ok(Source::NoMatch),
        1 => return Ok(sources.pop().unwrap_or(Source::NoMatch)),
        _ => {}
    }
    if max_gaps == 0 && mode == Mode::Ordered {
        return iv::phrase(sources);
    }
    let inner = match mode {
        Mode::Ordered => iv::ordered(sources),
        Mode::Unordered => iv::unordered(sources),
        Mode::UnorderedNoOverlap => {
            let mut it = sources.into_iter();
            let (a, b) = (it.next().unwrap_or(Source::NoMatch), it.next().unwrap_or(Source::NoMatch));
            let mut inner = iv::unordered_no_overlaps(a, b);
            for s in it {
                let left = if max_gaps == -1 { inner } else { iv::max_gaps(max_gaps, inner)? };
                inner = iv::unordered_no_overlaps(left, s);
            }
            inner
        }
    };
    if max_gaps == -1 {
        return Ok(inner);
    }
    iv::max_gaps(max_gaps, inner)
}

/// The field must be a text field indexing positions (`TextFieldType.intervals`).
fn text_field(ctx: &QueryContext<'_>, field: &str) -> OsResult<()> {
    let ft = ctx.mapping.field_type(field).ok_or_else(|| {
        OsError::illegal(format!("Cannot create intervals over field [{field}] with no positions indexed"))
    })?;
    match &ft.kind {
        FieldKind::Text(p) => {
            if p.index_options.is_some_and(|o| o < TextIndexOptions::Positions) {
                return Err(OsError::illegal(format!(
                    "Cannot create intervals over field [{field}] with no positions indexed"
                )));
            }
            Ok(())
        }
        _ => Err(OsError::illegal(format!(
            "Can only use interval queries on text fields - not on [{field}] which is of type [{}]",
            ft.type_name()
        ))),
    }
}

/// The search analyzer of `field` (or the one named), with its name.
fn analyzer_of(
    ctx: &QueryContext<'_>,
    field: &str,
    named: Option<&str>,
) -> OsResult<(String, std::sync::Arc<dyn Analyzer>)> {
    let name = match (named, ctx.mapping.field_type(field).map(|f| &f.kind)) {
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
    Ok((name, a))
}

/// Lucene's `Analyzer.normalize`: the char filters and the normalizing token filters of the
/// analyzer over the whole text (built-in analyzers other than `whitespace` and `keyword`
/// lowercase).
fn normalize(ctx: &QueryContext<'_>, field: &str, named: Option<&str>, text: &str) -> OsResult<String> {
    let (name, a) = analyzer_of(ctx, field, named)?;
    if let Some(chain) = a.as_chain() {
        let mut t = text.to_string();
        for cf in &chain.char_filters {
            t = cf.component.filter(&t).0;
        }
        let len = t.len();
        let mut toks = vec![crate::engine::analysis::TokenState::new(&t, 0, len, "word")];
        for f in &chain.filters {
            if f.component.normalizing() {
                let mut end = 0;
                toks = f.component.filter(toks, &mut end);
            }
        }
        return Ok(toks.into_iter().map(|t| t.term).collect());
    }
    Ok(match name.as_str() {
        "whitespace" | "keyword" => text.to_string(),
        _ => text.to_lowercase(),
    })
}

/// A wildcard pattern normalized between its wildcards (escapes kept).
fn normalize_wildcard(ctx: &QueryContext<'_>, field: &str, named: Option<&str>, pattern: &str) -> OsResult<String> {
    let mut out = String::with_capacity(pattern.len());
    let mut chunk = String::new();
    let mut chars = pattern.chars();
    while let Some(c) = chars.next() {
        let special = match c {
            '\\' => Some(chars.next().map(|n| format!("\\{n}")).unwrap_or_else(|| "\\".into())),
            '?' | '*' => Some(c.to_string()),
            _ => None,
        };
        match special {
            Some(s) => {
                if !chunk.is_empty() {
                    out.push_str(&normalize(ctx, field, named, &chunk)?);
                    chunk.clear();
                }
                out.push_str(&s);
            }
            None => chunk.push(c),
        }
    }
    if !chunk.is_empty() {
        out.push_str(&normalize(ctx, field, named, &chunk)?);
    }
    Ok(out)
}

/// The terms of `field` from `from` on accepted by `accept`, as a multi-term source; more than
/// `max` in one segment is an error (Lucene's `MultiTermIntervalsSource`).
fn expand(
    ctx: &QueryContext<'_>,
    field: &str,
    from: &[u8],
    max: usize,
    pattern: &str,
    accept: &dyn Fn(&[u8]) -> bool,
) -> OsResult<Source> {
    let mut all: std::collections::BTreeSet<Vec<u8>> = std::collections::BTreeSet::new();
    for seg in ctx.segments {
        let (mut n, mut visited, mut over) = (0usize, 0usize, false);
        seg.visit_terms(field, from, &mut |t| {
            visited += 1;
            if visited > MAX_TERMS_VISITED || !t.starts_with(from) {
                over = visited > MAX_TERMS_VISITED;
                return false;
            }
            if accept(t) {
                n += 1;
                if n > max {
                    return false;
                }
                all.insert(t.to_vec());
            }
            true
        })?;
        if n > max {
            return Err(OsError::illegal(format!("Automaton [{pattern}] expanded to too many terms (limit {max})")));
        }
        if over {
            return Err(OsError::illegal(format!("query on [{field}] visits more than {MAX_TERMS_VISITED} terms")));
        }
    }
    if all.is_empty() {
        return Ok(Source::NoMatch);
    }
    Ok(Source::MultiTerm { field: field.to_string(), terms: all.into_iter().collect(), pattern: pattern.to_string() })
}

/// OpenSearch's `IntervalBuilder.analyzeText` for a `match` rule.
fn analyzed(
    ctx: &QueryContext<'_>,
    field: &str,
    named: Option<&str>,
    text: &str,
    max_gaps: i32,
    mode: Mode,
) -> OsResult<Source> {
    text_field(ctx, field)?;
    let (_, a) = analyzer_of(ctx, field, named)?;
    // (term, position increment, position length)
    let mut toks: Vec<(String, u32, u32)> = Vec::new();
    let mut prev: i64 = -1;
    a.analyze(text, 0, &mut |t| {
        if toks.len() < MAX_TOKENS {
            let inc = (t.position as i64 - prev).max(0) as u32;
            prev = t.position as i64;
            toks.push((t.term.to_string(), inc, t.position_length));
        }
    });
    if toks.is_empty() {
        return Ok(Source::NoMatch);
    }
    if toks.len() == 1 {
        return Ok(iv::term(field, toks[0].0.as_bytes()));
    }
    if toks.iter().any(|t| t.2 > 1) {
        return Err(OsError::illegal("interval rules over multi-position (graph) tokens are not supported"));
    }
    let extend =
        |s: Source, spaces: u32| if spaces == 0 { s } else { iv::extend(s, spaces.min(i32::MAX as u32) as i32, 0) };
    let parts = if toks.iter().any(|t| t.1 == 0) {
        // Phrase with single-term synonyms: stacked terms become disjunctions.
        let mut parts = Vec::new();
        let mut group: Vec<Source> = Vec::new();
        let mut spaces = 0u32;
        for (t, inc, _) in &toks {
            if *inc > 0 {
                if !group.is_empty() {
                    parts.push(extend(iv::or(std::mem::take(&mut group)), spaces));
                }
                spaces = inc - 1;
            }
            group.push(iv::term(field, t.as_bytes()));
        }
        parts.push(extend(iv::or(group), spaces));
        parts
    } else {
        toks.iter().map(|(t, inc, _)| extend(iv::term(field, t.as_bytes()), inc.saturating_sub(1))).collect()
    };
    combine(parts, max_gaps, mode).map_err(OsError::illegal)
}
