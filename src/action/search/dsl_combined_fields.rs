//! `combined_fields` (OpenSearch's `CombinedFieldsQueryBuilder`): the query text analyzed once
//! with the fields' shared search analyzer; each term becomes Lucene's `CombinedFieldQuery`
//! (BM25F) over the weighted fields, the terms combined with `operator` (`or`: should, `and`:
//! must) and `minimum_should_match`.

use serde_json::Value;

use super::dsl::{body, boosted, f32_of, min_should_match, perr, str_of, QueryContext};
use super::dsl_text::{expand_fields, field_and_boost};
use crate::engine::query::Query;
use crate::engine::schema::FieldKind;
use crate::error::{ErrorKind, OsError, OsResult};

const NAME: &str = "combined_fields";

fn xparse(reason: impl Into<String>) -> OsError {
    OsError::new(ErrorKind::XContentParse, reason).status(400)
}

/// Parses a `combined_fields` query.
pub fn parse(v: &Value, ctx: &QueryContext<'_>) -> OsResult<Query> {
    let m = body(NAME, v)?;
    let (mut text, mut specs, mut and, mut msm, mut boost) = (None, Vec::new(), false, None, 1.0f32);
    for (k, v) in m {
        match k.as_str() {
            "query" => text = Some(str_of(NAME, k, v)?),
            "fields" => match v {
                Value::Array(a) => {
                    for x in a {
                        specs.push(field_and_boost(&str_of(NAME, k, x)?)?);
                    }
                }
                Value::String(s) => specs.push(field_and_boost(s)?),
                _ => {
                    return Err(xparse(format!(
                        "[{NAME}] fields doesn't support values of type: {}",
                        if v.is_object() { "START_OBJECT" } else { "VALUE" }
                    )))
                }
            },
            "operator" => {
                and = match str_of(NAME, k, v)?.to_ascii_lowercase().as_str() {
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
            "minimum_should_match" => msm = Some(str_of(NAME, k, v)?),
            "boost" => boost = f32_of(NAME, k, v)?,
            "_name" => {}
            other => return Err(xparse(format!("[{NAME}] unknown field [{other}]"))),
        }
    }
    let text = text.ok_or_else(|| xparse("Required [query]"))?;
    // Mapped fields only (patterns expanded); none mapped: nothing matches.
    let mut fields: Vec<(String, f32)> =
        expand_fields(ctx, &specs).into_iter().filter(|(f, _)| ctx.mapping.field_type(f).is_some()).collect();
    if fields.is_empty() {
        return Ok(Query::MatchNone);
    }
    let mut analyzer: Option<String> = None;
    for (f, w) in &fields {
        let ft = ctx.mapping.field_type(f).ok_or_else(|| perr(format!("unknown field [{f}]")))?;
        let FieldKind::Text(p) = &ft.kind else {
            return Err(OsError::illegal(format!(
                "Field [{f}] of type [{}] does not support [{NAME}] queries",
                ft.type_name()
            )));
        };
        let a = p.search_analyzer.clone().or_else(|| p.analyzer.clone()).unwrap_or_else(|| "default".into());
        if analyzer.as_ref().is_some_and(|x| *x != a) {
            return Err(OsError::illegal(format!("All fields in [{NAME}] query must have the same search analyzer")));
        }
        analyzer = Some(a);
        if *w < 1.0 {
            return Err(OsError::illegal("weight must be greater or equal to 1"));
        }
    }
    // Lucene keeps the fields in a TreeMap (by name; a repeated field keeps its last weight).
    fields.sort_by(|a, b| a.0.cmp(&b.0));
    let mut dedup: Vec<(String, f32)> = Vec::with_capacity(fields.len());
    for (f, w) in fields {
        match dedup.last_mut() {
            Some(last) if last.0 == f => last.1 = w,
            _ => dedup.push((f, w)),
        }
    }
    let fields = dedup;
    let name = analyzer.unwrap_or_else(|| "default".into());
    let a = ctx
        .analyzers
        .get(&name)
        .ok_or_else(|| OsError::illegal(format!("analyzer [{name}] has not been configured in mappings")))?;
    // (term, position, position length)
    let mut toks: Vec<(String, u32, u32)> = Vec::new();
    a.analyze(&text, 0, &mut |t| {
        if toks.len() < super::dsl_text::MAX_QUERY_TOKENS {
            toks.push((t.term.to_string(), t.position, t.position_length));
        }
    });
    if toks.is_empty() {
        return Ok(Query::MatchNone);
    }
    if toks.iter().any(|t| t.2 > 1) {
        return Err(OsError::illegal(format!("[{NAME}] queries over multi-position (graph) tokens are not supported")));
    }
    let term = |t: &str| Query::CombinedField { fields: fields.clone(), term: t.as_bytes().to_vec(), boost: 1.0 };
    let combine = |clauses: Vec<Query>| {
        if and {
            Query::and(clauses)
        } else {
            Query::or(clauses)
        }
    };
    // Terms stacked at one position (synonyms) form a nested group combined the same way.
    let mut clauses: Vec<Query> = Vec::new();
    let mut i = 0;
    while i < toks.len() {
        let mut j = i + 1;
        while j < toks.len() && toks[j].1 == toks[i].1 {
            j += 1;
        }
        clauses.push(if j - i == 1 {
            term(&toks[i].0)
        } else {
            combine(toks[i..j].iter().map(|t| term(&t.0)).collect())
        });
        i = j;
    }
    let mut q = if clauses.len() == 1 { clauses.pop().unwrap_or(Query::MatchNone) } else { combine(clauses) };
    if let Some(s) = msm {
        q = match q {
            Query::Bool { must, should, must_not, filter, boost, .. } if !should.is_empty() => {
                let n = min_should_match(&s, should.len())?;
                Query::Bool { must, should, must_not, filter, minimum_should_match: n as u32, boost }
            }
            single @ Query::CombinedField { .. } if !and => {
                // One optional clause: Lucene's boolean of one clause takes the minimum too.
                let n = min_should_match(&s, 1)?;
                Query::Bool {
                    must: vec![],
                    should: vec![single],
                    must_not: vec![],
                    filter: vec![],
                    minimum_should_match: n as u32,
                    boost: 1.0,
                }
            }
            other => other,
        };
    }
    Ok(boosted(q, boost))
}
