//! Queries whose score combines sub-queries' scores: `dis_max`, `boosting`, `function_score`.
//!
//! `dis_max` is the engine's [`Query::DisMax`], `boosting` its [`Query::Boosting`] (Lucene's
//! `FunctionScoreQuery.boostByQuery`) and `function_score` its [`Query::FunctionScore`]
//! (OpenSearch's `FunctionScoreQuery`): `weight`, `field_value_factor`, `random_score` and a
//! constant `script_score`, each with an optional `filter`, under `score_mode`, `boost_mode`,
//! `max_boost` and `min_score`.

use serde_json::Value;

use super::dsl::{body, f32_of, parse_at, perr, str_of, QueryContext};
use crate::engine::query::function_score::{
    java_string_hash, mix32, CombineMode, FilterFunction, FunctionScore, Modifier, RandomSource, ScoreFunction,
    ScoreMode,
};
use crate::engine::query::Query;
use crate::engine::schema::{FieldKind, NumberType};
use crate::error::{ErrorKind, OsError, OsResult};

/// `dis_max` of at least two clauses.
pub fn dis_max(queries: Vec<Query>, tie: f32) -> Query {
    Query::DisMax { queries, tie_breaker: tie, boost: 1.0 }
}

/// `boosting`: `positive`'s matches, demoted by `negative_boost` where `negative` matches.
pub fn boosting(positive: Query, negative: Query, negative_boost: f32) -> Query {
    if positive == Query::MatchNone {
        return positive;
    }
    Query::Boosting { positive: Box::new(positive), negative: Box::new(negative), negative_boost, boost: 1.0 }
}

fn score_mode(s: &str) -> OsResult<ScoreMode> {
    Ok(match s {
        "multiply" => ScoreMode::Multiply,
        "sum" => ScoreMode::Sum,
        "avg" => ScoreMode::Avg,
        "first" => ScoreMode::First,
        "max" => ScoreMode::Max,
        "min" => ScoreMode::Min,
        _ => return Err(OsError::illegal(format!("illegal function score mode: {s}"))),
    })
}

fn boost_mode(s: &str) -> OsResult<CombineMode> {
    Ok(match s {
        "multiply" => CombineMode::Multiply,
        "replace" => CombineMode::Replace,
        "sum" => CombineMode::Sum,
        "avg" => CombineMode::Avg,
        "max" => CombineMode::Max,
        "min" => CombineMode::Min,
        _ => {
            return Err(OsError::illegal(format!(
                "No enum constant org.opensearch.common.lucene.search.function.CombineFunction.{}",
                s.to_ascii_uppercase()
            )))
        }
    })
}

/// `function_score`.
pub fn function_score(v: &Value, ctx: &QueryContext<'_>, depth: usize) -> OsResult<Query> {
    let name = "function_score";
    let m = body(name, v)?;
    let mut query = None;
    let mut boost = 1.0;
    let mut spec = FunctionScore {
        query: Query::MatchAll { boost: 1.0 },
        functions: vec![],
        score_mode: ScoreMode::Multiply,
        boost_mode: CombineMode::Multiply,
        max_boost: f32::MAX,
        min_score: None,
    };
    let mut single: Option<String> = None;
    let mut array = false;
    let misplaced = |e: String| {
        perr(format!("failed to parse [function_score] query. [you can either define [functions] array or a single function, not both. {e}]"))
    };
    for (k, val) in m {
        match k.as_str() {
            "query" => {
                if !val.is_object() {
                    return Err(perr("[function_score] query malformed, no start_object after query name"));
                }
                query = Some(parse_at(val, ctx, depth)?);
            }
            "boost" => boost = f32_of(name, k, val)?,
            "_name" => {}
            "score_mode" => spec.score_mode = score_mode(&str_of(name, k, val)?)?,
            "boost_mode" => spec.boost_mode = boost_mode(&str_of(name, k, val)?)?,
            "max_boost" => spec.max_boost = f32_of(name, k, val)?,
            "min_score" => spec.min_score = Some(f32_of(name, k, val)?),
            "functions" => {
                if let Some(s) = &single {
                    return Err(misplaced(format!("already found [{s}], now encountering [functions].")));
                }
                let a = val.as_array().ok_or_else(|| {
                    perr("failed to parse [function_score] query. field [functions] is not supported")
                })?;
                array = true;
                for f in a.iter().take(10_000) {
                    spec.functions.push(filter_function(f, ctx, depth)?);
                }
            }
            other => {
                if let Some(s) = &single {
                    return Err(perr(format!("failed to parse [function_score] query. already found function [{s}], now encountering [{other}]. use [functions] array if you want to define several functions.")));
                }
                if array {
                    return Err(misplaced(format!("already found [functions] array, now encountering [{other}].")));
                }
                let function = if other == "weight" {
                    FilterFunction { filter: None, function: ScoreFunction::One, weight: Some(f32_of(name, k, val)?) }
                } else if val.is_object() {
                    FilterFunction { filter: None, function: score_function(other, val, ctx)?, weight: None }
                } else {
                    return Err(perr(format!(
                        "failed to parse [function_score] query. field [{other}] is not supported"
                    )));
                };
                spec.functions.push(function);
                single = Some(other.to_string());
            }
        }
    }
    let query = query.unwrap_or(Query::MatchAll { boost: 1.0 });
    if query == Query::MatchNone {
        return Ok(Query::MatchNone);
    }
    spec.query = query;
    Ok(Query::FunctionScore { spec: Box::new(spec), boost })
}

/// One entry of `functions`.
fn filter_function(f: &Value, ctx: &QueryContext<'_>, depth: usize) -> OsResult<FilterFunction> {
    let fm = f.as_object().ok_or_else(|| perr("failed to parse [START_OBJECT]. malformed query, expected a [VALUE] while parsing functions but got a [function_score] instead"))?;
    let (mut filter, mut function, mut weight) = (None, None, None);
    for (fk, fv) in fm {
        match fk.as_str() {
            "filter" => {
                let q = parse_at(fv, ctx, depth)?;
                filter =
                    if matches!(q, Query::MatchAll { .. }) && fv.get("match_all").is_some() { None } else { Some(q) };
            }
            "weight" => weight = Some(f32_of("function_score", fk, fv)?),
            "_name" => {}
            other if fv.is_object() => {
                if let Some((prev, _)) = &function {
                    return Err(perr(format!(
                        "failed to parse function_score functions. already found [{prev}], now encountering [{other}]."
                    )));
                }
                function = Some((other.to_string(), score_function(other, fv, ctx)?));
            }
            other => {
                return Err(perr(format!("failed to parse [function_score] query. field [{other}] is not supported")))
            }
        }
    }
    let function = match function {
        Some((_, f)) => f,
        None if weight.is_some() => ScoreFunction::One,
        None => {
            return Err(perr(
                "failed to parse [function_score] query. an entry in functions list is missing a function.",
            ))
        }
    };
    Ok(FilterFunction { filter, function, weight })
}

/// A score function by name.
fn score_function(name: &str, v: &Value, ctx: &QueryContext<'_>) -> OsResult<ScoreFunction> {
    match name {
        "field_value_factor" => field_value_factor(v, ctx),
        "random_score" => random_score(v, ctx),
        "script_score" => script_score(v),
        "gauss" | "linear" | "exp" => Err(OsError::illegal(format!("[{name}] decay functions are not supported"))),
        other => Err(perr(format!("unknown field [{other}]"))),
    }
}

fn field_value_factor(v: &Value, ctx: &QueryContext<'_>) -> OsResult<ScoreFunction> {
    let m = body("field_value_factor", v)?;
    let (mut field, mut factor, mut modifier, mut missing) = (None, 1.0f32, Modifier::None, None);
    for (k, val) in m {
        match k.as_str() {
            "field" => field = Some(str_of("field_value_factor", k, val)?),
            "factor" => factor = f32_of("field_value_factor", k, val)?,
            "modifier" => {
                let s = str_of("field_value_factor", k, val)?;
                modifier = Modifier::parse(&s).ok_or_else(|| OsError::illegal(format!("No enum constant org.opensearch.common.lucene.search.function.FieldValueFactorFunction.Modifier.{}", s.to_ascii_uppercase())))?;
            }
            "missing" => {
                missing =
                    Some(f32_of("field_value_factor", k, val).map(f64::from).or_else(|_| {
                        val.as_f64().ok_or_else(|| perr("[field_value_factor] [missing] must be a number"))
                    })?)
            }
            other => return Err(perr(format!("field_value_factor query does not support [{other}]"))),
        }
    }
    let field = field.ok_or_else(|| perr("[field_value_factor] required field 'field' missing"))?;
    let (has_column, doubles) = match ctx.mapping.field_type(&field).map(|ft| &ft.kind) {
        Some(FieldKind::Number(NumberType::Double | NumberType::Float | NumberType::HalfFloat)) => (true, true),
        Some(FieldKind::Number(_) | FieldKind::Date { .. } | FieldKind::Boolean | FieldKind::ScaledFloat { .. }) => {
            (true, false)
        }
        Some(_) => {
            return Err(OsError::illegal(format!(
                "Field [{field}] of type [{}] is not supported for field_value_factor",
                ctx.mapping.field_type(&field).map_or("", |f| f.type_name())
            )))
        }
        None if field == "_seq_no" || field == "_primary_term" || field == "_version" => (true, false),
        None => {
            if missing.is_none() {
                return Err(OsError::new(
                    ErrorKind::Exception,
                    format!("Unable to find a field mapper for field [{field}]. No 'missing' value defined."),
                ));
            }
            (false, false)
        }
    };
    Ok(ScoreFunction::FieldValueFactor { field, doubles, has_column, factor, modifier, missing })
}

fn random_score(v: &Value, ctx: &QueryContext<'_>) -> OsResult<ScoreFunction> {
    let m = body("random_score", v)?;
    let (mut seed, mut field) = (None, None);
    for (k, val) in m {
        match k.as_str() {
            "seed" => {
                seed = Some(match val {
                    Value::Number(n) => match n.as_i64() {
                        Some(i) if i32::try_from(i).is_ok() => i as i32,
                        Some(l) => (l ^ ((l as u64) >> 32) as i64) as i32,
                        None => {
                            return Err(perr(format!("random_score seed must be an int, long or string, not '{n}'")))
                        }
                    },
                    Value::String(s) => java_string_hash(s),
                    other => {
                        return Err(perr(format!("random_score seed must be an int, long or string, not '{other}'")))
                    }
                })
            }
            "field" => field = Some(str_of("random_score", k, val)?),
            "weight" | "_name" => {}
            other => return Err(perr(format!("random_score query does not support [{other}]"))),
        }
    }
    // OpenSearch salts with the index name and shard id (shard 0 here).
    let salt = java_string_hash(ctx.index).wrapping_shl(10);
    let Some(seed) = seed else {
        let now = ctx.now_millis;
        let s = (now ^ ((now as u64) >> 32) as i64) as i32;
        return Ok(ScoreFunction::Random { salted_seed: mix32(s ^ salt), source: RandomSource::DocId });
    };
    let salted_seed = mix32(seed ^ salt);
    let source = match field.as_deref() {
        // OpenSearch 3 reads `_id` field data when only a seed is given (with a deprecation).
        None | Some("_id") => RandomSource::Id,
        Some("_seq_no") => RandomSource::Long("_seq_no".into()),
        Some(f) => match ctx.mapping.field_type(f).map(|ft| &ft.kind) {
            Some(FieldKind::Keyword(_)) => RandomSource::Keyword(f.into()),
            Some(FieldKind::Number(NumberType::Double | NumberType::Float | NumberType::HalfFloat))
            | Some(FieldKind::Text(_))
            | Some(FieldKind::Binary) => {
                return Err(OsError::illegal(format!("Field [{f}] is not supported as a source of random numbers")))
            }
            Some(_) => RandomSource::Long(f.into()),
            None => {
                return Err(OsError::illegal(format!(
                    "Field [{f}] is not mapped and cannot be used as a source of random numbers."
                )))
            }
        },
    };
    Ok(ScoreFunction::Random { salted_seed, source })
}

/// `script_score` whose source is a number: a constant function (weight). Other scripts are not
/// run inside queries.
fn script_score(v: &Value) -> OsResult<ScoreFunction> {
    let script = v.get("script").ok_or_else(|| perr("script_score query requires a [script]"))?;
    let src = match script {
        Value::String(s) => s.as_str(),
        Value::Object(o) => o.get("source").and_then(Value::as_str).unwrap_or(""),
        _ => "",
    };
    match src.trim().trim_end_matches(['d', 'D', 'f', 'F']).parse::<f64>() {
        Ok(c) if c.is_finite() => Ok(ScoreFunction::FieldValueFactor {
            field: String::new(),
            doubles: false,
            has_column: false,
            factor: 1.0,
            modifier: Modifier::None,
            missing: Some(c),
        }),
        _ => Err(OsError::illegal(format!(
            "script_score: scripts other than constants are not supported in queries: [{src}]"
        ))),
    }
}
