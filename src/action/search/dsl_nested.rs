//! The `nested` query (OpenSearch's `NestedQueryBuilder`): `path`, `query`, `score_mode`
//! (`avg` default, `sum`, `min`, `max`, `none`), `ignore_unmapped`, `boost`, `_name` and
//! `inner_hits` (run at fetch time, see [`super::inner_hits`]). The inner query is parsed in the
//! nested scope of `path`; the engine joins its matches to their parents
//! ([`crate::engine::query::block_join`]).

use serde_json::{Map, Value};

use super::dsl::{body, bool_of, f32_of, parse_at, perr, str_of, QueryContext};
use crate::engine::query::block_join::{Join, ScoreMode};
use crate::engine::query::Query;
use crate::error::{ErrorKind, OsError, OsResult};

/// The parts of a `nested` query body.
#[derive(Debug, Clone)]
pub struct NestedSpec<'v> {
    pub path: String,
    pub query: &'v Value,
    pub score_mode: ScoreMode,
    pub ignore_unmapped: bool,
    pub boost: f32,
    pub inner_hits: Option<&'v Map<String, Value>>,
}

/// Reads a `nested` query body (OpenSearch's `fromXContent` checks and messages).
pub fn spec(v: &Value) -> OsResult<NestedSpec<'_>> {
    let m = body("nested", v)?;
    let (mut path, mut query, mut inner_hits) = (None, None, None);
    let (mut score_mode, mut ignore_unmapped, mut boost) = (ScoreMode::Avg, false, 1.0);
    for (k, v) in m {
        match (k.as_str(), v) {
            ("query", Value::Object(_)) => query = Some(v),
            ("inner_hits", Value::Object(o)) => inner_hits = Some(o),
            ("path", _) if !v.is_object() && !v.is_array() => path = Some(str_of("nested", k, v)?),
            ("boost", _) if !v.is_object() && !v.is_array() => boost = f32_of("nested", k, v)?,
            ("ignore_unmapped", _) if !v.is_object() && !v.is_array() => ignore_unmapped = bool_of("nested", k, v)?,
            ("score_mode", _) if !v.is_object() && !v.is_array() => {
                let s = str_of("nested", k, v)?;
                score_mode = ScoreMode::parse(&s).filter(|_| s != "total").ok_or_else(|| {
                    OsError::illegal(format!("No score mode for child query [{s}] found")).status(400)
                })?;
            }
            ("_name", _) if !v.is_object() && !v.is_array() => {}
            _ => return Err(perr(format!("[nested] query does not support [{k}]"))),
        }
    }
    let query = query.ok_or_else(|| perr("[nested] requires 'query' field"))?;
    let path = path.ok_or_else(|| perr("[nested] requires 'path' field"))?;
    Ok(NestedSpec { path, query, score_mode, ignore_unmapped, boost, inner_hits })
}

/// `failed to create query: ...` as OpenSearch's `QueryShardException` over an
/// `IllegalStateException`.
fn shard_err(reason: String) -> OsError {
    OsError::new(ErrorKind::QueryShard, format!("failed to create query: {reason}"))
        .status(400)
        .caused_by(OsError::new(ErrorKind::IllegalState, reason).status(500))
}

/// Checks that `path` is a nested object of the mapping: `Ok(false)` when unmapped and
/// `ignore_unmapped` (the query matches nothing).
pub fn check_path(path: &str, ignore_unmapped: bool, ctx: &QueryContext<'_>) -> OsResult<bool> {
    match ctx.mapping.object(path).filter(|_| !path.is_empty()) {
        None if ignore_unmapped => Ok(false),
        None => Err(shard_err(format!("[nested] failed to find nested object under path [{path}]"))),
        Some(o) if !o.nested => {
            Err(shard_err(format!("[nested] nested object under path [{path}] is not of nested type")))
        }
        Some(_) => Ok(true),
    }
}

/// Parses a `nested` query at nesting depth `d`.
pub fn parse(v: &Value, ctx: &QueryContext<'_>, d: usize) -> OsResult<Query> {
    let s = spec(v)?;
    if !check_path(&s.path, s.ignore_unmapped, ctx)? {
        return Ok(Query::MatchNone);
    }
    let inner_ctx = QueryContext { nested_scope: Some(&s.path), ..*ctx };
    let query = parse_at(s.query, &inner_ctx, d)?;
    if query == Query::MatchNone {
        return Ok(Query::MatchNone);
    }
    let join =
        Join { path: s.path.clone(), scope: ctx.nested_scope.map(str::to_string), query, score_mode: s.score_mode };
    Ok(Query::Nested { join: Box::new(join), boost: s.boost })
}
