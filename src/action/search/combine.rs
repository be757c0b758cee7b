//! Queries whose score combines sub-queries' scores: `dis_max`, `boosting`, `function_score`.
//!
//! `dis_max` is the engine's [`Query::DisMax`]. The others are expressed with the engine's
//! operators: `boosting` matches `positive` and scores it (the demotion of `negative` matches is
//! not applied yet); `function_score` supports `weight` (a constant factor with
//! `boost_mode: multiply/replace`) and parses the other functions without applying them.

use serde_json::Value;

use super::dsl::{body, f32_of, parse_at, perr, str_of, QueryContext};
use crate::engine::query::Query;
use crate::error::OsResult;

/// `dis_max` of at least two clauses.
pub fn dis_max(queries: Vec<Query>, tie: f32) -> Query {
    Query::DisMax { queries, tie_breaker: tie, boost: 1.0 }
}

/// `boosting`.
pub fn boosting(positive: Query, _negative: Query, _negative_boost: f32) -> Query {
    positive
}

/// `function_score`.
pub fn function_score(v: &Value, ctx: &QueryContext<'_>, depth: usize) -> OsResult<Query> {
    let name = "function_score";
    let m = body(name, v)?;
    let mut query = Query::MatchAll { boost: 1.0 };
    let mut boost = 1.0;
    let mut weight: Option<f32> = None;
    let mut boost_mode = "multiply".to_string();
    let mut functions = 0usize;
    for (k, val) in m {
        match k.as_str() {
            "query" => query = parse_at(val, ctx, depth)?,
            "boost" => boost = f32_of(name, k, val)?,
            "weight" => weight = Some(f32_of(name, k, val)?),
            "boost_mode" => boost_mode = str_of(name, k, val)?,
            "functions" => {
                let a = val.as_array().ok_or_else(|| perr("[function_score] functions must be an array"))?;
                for f in a {
                    let fm = f.as_object().ok_or_else(|| perr("[function_score] malformed query, expected a [START_OBJECT] while parsing functions but got a [VALUE]"))?;
                    functions += 1;
                    for (fk, fv) in fm {
                        match fk.as_str() {
                            "weight" => weight = Some(weight.unwrap_or(1.0) * f32_of(name, fk, fv)?),
                            "filter" => {
                                parse_at(fv, ctx, depth)?;
                            }
                            "field_value_factor" | "random_score" | "script_score" | "gauss" | "linear" | "exp" => {}
                            other => return Err(perr(format!("function_score query does not support [{other}]"))),
                        }
                    }
                }
            }
            "field_value_factor" | "random_score" | "script_score" | "score_mode" | "max_boost" | "min_score" | "_name" => {}
            other => return Err(perr(format!("function_score query does not support [{other}]"))),
        }
    }
    let _ = functions;
    let factor = weight.unwrap_or(1.0);
    let q = match boost_mode.as_str() {
        "replace" => Query::ConstantScore { query: Box::new(query), boost: factor },
        _ => super::dsl::boosted(query, factor),
    };
    Ok(super::dsl::boosted(q, boost))
}
