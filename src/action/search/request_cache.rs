//! Which shard searches the node's request cache serves (OpenSearch's
//! `IndicesService.canCache`) and what a cached shard result keeps.
//!
//! Served: a search of one shard (not `dfs_query_then_fetch`, not a scroll) with `size: 0`,
//! unless `request_cache=false`, or unset while `index.requests.cache.enable` is false. As in
//! OpenSearch, `request_cache=true` does not cache a search with hits, and a request whose
//! result depends on the time it runs (`now` in date math) or on a script or random scoring is
//! not cached. The key is everything a size-0 shard result depends on: the copy and its reader
//! version (a refresh or merge changes it), the mapping version, and the request's query,
//! filters, aggregations and limits.

use std::sync::Arc;

use serde_json::{json, Value};

use super::aggs::AggResult;
use super::context::ShardContext;
use super::execute::Unit;
use super::request::SearchRequest;
use crate::cluster::request_cache::{RequestCache, ShardRequestCache};
use crate::engine::query::Relation;

/// The node's request cache and a copy's part of it, as a search context holds them.
#[derive(Clone)]
pub struct CacheHandle {
    pub node: Arc<RequestCache>,
    pub shard: Arc<ShardRequestCache>,
    /// `index.requests.cache.enable`.
    pub enabled: bool,
    pub mapping_version: u64,
}

impl std::fmt::Debug for CacheHandle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CacheHandle").field("instance", &self.shard.instance).field("enabled", &self.enabled).finish()
    }
}

/// What a cached size-0 shard result keeps.
#[derive(Debug, Clone)]
pub(super) struct Cached {
    pub total: (u64, Relation),
    pub max_score: Option<f32>,
    pub terminated: Option<bool>,
    pub aggs: Option<Vec<AggResult>>,
}

/// A unit's place in the cache: where to look and what to store.
pub(super) struct Probe {
    handle: CacheHandle,
    version: u64,
    key: String,
}

impl Probe {
    /// The cached result, counting a hit or a miss.
    pub fn get(&self) -> Option<Cached> {
        let v = self.handle.node.get(&self.handle.shard, self.version, &self.key)?;
        v.downcast_ref::<Cached>().cloned()
    }

    /// Keeps `c`.
    pub fn put(&self, c: Cached) {
        let bytes = weight(&c);
        self.handle.node.put(&self.handle.shard, self.version, &self.key, Arc::new(c), bytes);
    }
}

/// Bytes a cached result weighs: its aggregation results as their serialized size (what a
/// shard would send for them), plus the fixed part.
fn weight(c: &Cached) -> u64 {
    struct Count(u64);
    impl std::io::Write for Count {
        fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
            self.0 += b.len() as u64;
            Ok(b.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut n = Count(0);
    if let Some(a) = &c.aggs {
        let _ = serde_json::to_writer(&mut n, a);
    }
    n.0 + std::mem::size_of::<Cached>() as u64
}

/// The probe of unit `u` when the request cache serves it.
pub(super) fn probe(u: &Unit, ctxs: &[ShardContext], req: &SearchRequest) -> Option<Probe> {
    let c = ctxs.get(u.ctx)?;
    let handle = c.request_cache.as_ref()?;
    let wanted = match req.request_cache {
        Some(false) => false,
        Some(true) => true,
        None => handle.enabled,
    };
    // A profiled search measures its own run: never served from (or kept in) the cache.
    if !wanted || req.size != 0 || req.scroll.is_some() || req.dfs || req.dfs_stats.is_some() || req.profile {
        return None;
    }
    if u.origin.iter().any(|o| o.0 != u.ctx) {
        return None;
    }
    let parts = [req.query.as_ref(), req.post_filter.as_ref(), req.aggs_source.as_ref(), c.alias_filter.as_ref()];
    if parts.into_iter().flatten().any(depends_on_time_or_chance) {
        return None;
    }
    if req.q.as_ref().is_some_and(|q| q.q.contains("now")) {
        return None;
    }
    let key = json!({
        "index": c.index,
        "mapping_version": handle.mapping_version,
        "query": req.query,
        "q": req.q,
        "post_filter": req.post_filter,
        "aggs": req.aggs_source,
        "alias_filter": c.alias_filter,
        "track_total_hits": req.track_total_hits,
        "min_score": req.min_score,
        "terminate_after": req.terminate_after,
        "sort": req.sort,
        "track_scores": req.track_scores,
        "slice": req.slice,
        "routing": req.routing,
        "preference": req.preference,
        "boost": super::index_boost::boost_of(req, &c.index),
        "max_buckets": req.max_buckets,
        "timeout": req.timeout.map(|t| t.as_nanos() as u64),
    })
    .to_string();
    Some(Probe { handle: handle.clone(), version: c.reader.version(), key })
}

/// Whether a request part's result depends on when it runs (date math from `now`) or on chance
/// or code (scripts, random scores): such results are not cached.
fn depends_on_time_or_chance(v: &Value) -> bool {
    match v {
        Value::String(s) => s.trim_start().starts_with("now"),
        Value::Array(a) => a.iter().any(depends_on_time_or_chance),
        Value::Object(m) => m.iter().any(|(k, v)| {
            matches!(k.as_str(), "script" | "scripted_metric" | "random_score" | "script_score" | "bucket_script")
                || depends_on_time_or_chance(v)
        }),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::depends_on_time_or_chance;
    use serde_json::json;

    #[test]
    fn time_and_chance_are_not_cached() {
        assert!(depends_on_time_or_chance(&json!({"range": {"ts": {"gte": "now-1d/d"}}})));
        assert!(depends_on_time_or_chance(&json!({"bool": {"filter": [{"range": {"ts": {"lt": "now"}}}]}})));
        assert!(depends_on_time_or_chance(&json!({"function_score": {"random_score": {}}})));
        assert!(depends_on_time_or_chance(&json!({"a": {"terms": {"script": {"source": "1"}}}})));
        assert!(!depends_on_time_or_chance(&json!({"range": {"ts": {"gte": "2020-01-01"}}})));
        assert!(!depends_on_time_or_chance(&json!({"term": {"word": "snow"}})));
    }
}
