//! `_count` over pinned shards: each shard's count of the query (in parallel on the search
//! pool), summed, with `terminate_after` per shard.

use std::sync::Arc;

use serde_json::{json, Value};

use super::context::ShardContext;
use super::dsl::QueryContext;
use super::execute::{all_failed, build_query, shard_failures, with_alias_filter};
use super::request::SearchRequest;
use crate::engine::query::SegmentView;
use crate::error::{ErrorKind, OsResult};

/// One shard's count.
fn count_one(c: &ShardContext, req: &SearchRequest, now: i64) -> OsResult<u64> {
    c.check_serving()?;
    let segs: &Vec<Arc<dyn SegmentView>> = &c.reader.query().segments;
    let qc = QueryContext {
        mapping: &c.mapping,
        analyzers: &c.analyzers,
        segments: segs,
        index: &c.index,
        now_millis: now,
        analysis: c.analysis.as_deref(),
        max_regex_length: c.limits.max_regex_length,
        warnings: &req.warnings,
        nested_scope: None,
        allow_expensive: req.allow_expensive_queries,
    };
    let q = with_alias_filter(build_query(req, &qc)?, c, &qc)?;
    // Filters go through the node's query cache, as in a search.
    crate::engine::query::cached::with_scope(c.query_cache.clone(), || {
        Ok(if let Some(min) = req.min_score {
            c.reader.query().count_min_score(&q, min)?
        } else {
            c.reader.query().count(&q)?
        })
    })
}

/// `_count` over pinned shards (in parallel on the search pool): `{"count", "_shards"}`.
pub fn count_contexts(ctxs: &[ShardContext], req: &SearchRequest) -> OsResult<Value> {
    let now = crate::clock::now_millis();
    let counts: Vec<OsResult<u64>> = if ctxs.len() <= 1 {
        ctxs.iter().map(|c| count_one(c, req, now)).collect()
    } else {
        let shared = Arc::new((ctxs.to_vec(), req.clone()));
        crate::threadpool::fan_out(ctxs.len(), move |ci| count_one(&shared.0[ci], &shared.1, now))
    };
    let mut n = 0u64;
    let mut terminated = false;
    let mut failures = Vec::new();
    for (ci, r) in counts.into_iter().enumerate() {
        match r {
            // `terminate_after` counts per shard: a shard with more matches terminated early.
            Ok(x) => {
                n += match req.terminate_after {
                    Some(t) if t > 0 => {
                        terminated |= x > t;
                        x.min(t)
                    }
                    _ => x,
                }
            }
            Err(e) if e.kind == ErrorKind::Parsing => return Err(e),
            Err(e) => {
                ctxs[ci].report_corruption("count", &e);
                failures.push((ci, e))
            }
        }
    }
    if !ctxs.is_empty() && failures.len() == ctxs.len() {
        return Err(all_failed(failures, ctxs));
    }
    let mut shards =
        json!({"total": ctxs.len(), "successful": ctxs.len() - failures.len(), "skipped": 0, "failed": failures.len()});
    if !failures.is_empty() {
        shards["failures"] = shard_failures(&failures, ctxs);
    }
    let mut body = json!({"count": n, "_shards": shards});
    if let Some(t) = req.terminate_after {
        if t > 0 {
            body["terminated_early"] = json!(terminated);
        }
    }
    Ok(body)
}
