//! The shards a search runs on: each a pinned engine searcher with the index's mapping and
//! settings as of acquisition. A search (and later a PIT or scroll) runs against an explicit list
//! of [`ShardContext`]s, so a PIT only has to keep the list alive to see a frozen view.

use std::sync::Arc;

use crate::cluster::resolve::{self, IndicesOptions};
use crate::cluster::ClusterService;
use crate::engine::index::IndexReader;
use crate::engine::schema::Mapping;
use crate::error::{ErrorKind, OsError, OsResult};
use crate::shard::failure::ShardFailer;

/// OpenSearch's default `index.max_result_window`.
pub const DEFAULT_MAX_RESULT_WINDOW: usize = 10_000;

/// One shard pinned for searching.
#[derive(Clone, Debug)]
pub struct ShardContext {
    /// The concrete index name.
    pub index: String,
    /// The index's uuid.
    pub index_uuid: String,
    /// The shard number.
    pub shard: u32,
    /// The index mapping when the context was acquired.
    pub mapping: Arc<Mapping>,
    /// `index.max_result_window` (default 10 000).
    pub max_result_window: usize,
    /// The index's other search limits (`index.max_docvalue_fields_search` and the like).
    pub limits: super::limits::IndexLimits,
    /// `index.max_slices_per_scroll` (default 1024).
    pub max_slices_per_scroll: i64,
    /// The index's `number_of_shards` (sliced searches split by it).
    pub num_shards: u32,
    /// The index's analyzers (query text is analyzed with the field's search analyzer).
    pub analyzers: Arc<crate::engine::analysis::AnalyzerRegistry>,
    /// The index's analysis chains (keyword normalizers for term-level queries).
    pub analysis: Option<Arc<crate::engine::analysis::IndexAnalysis>>,
    /// The filter of the aliases the index was reached through (see [`alias_filter`]).
    pub alias_filter: Option<serde_json::Value>,
    /// The pinned segments (files stay alive while this exists).
    pub reader: IndexReader,
    /// Fails the shard's engine when the search finds damaged bytes in its segments (`None`
    /// for contexts not backed by a live shard, as in tests).
    pub failer: Option<ShardFailer>,
    /// The node's request cache and this copy's part of it (`None` in tests).
    pub request_cache: Option<super::request_cache::CacheHandle>,
    /// The node's circuit breakers (`None` in tests).
    pub breakers: Option<Arc<crate::cluster::breakers::Breakers>>,
    /// The node's fielddata cache (`None` in tests).
    pub fielddata: Option<Arc<crate::cluster::fielddata_cache::FielddataCache>>,
    /// The node's query cache and this copy's part of it; `None` in tests and when
    /// `index.queries.cache.enabled` is false.
    pub query_cache: Option<crate::engine::query::cached::Scope>,
    /// The copy's counters the query and fetch phases count in (`None` as for `failer`).
    pub counters: Option<Arc<crate::shard::stats::ShardCounters>>,
    /// The id of the node holding this copy (the search profile's shard id).
    pub node_id: Arc<str>,
}

impl ShardContext {
    /// A shard that failed since it was pinned (a PIT or scroll outlives it, or another request
    /// met damage in it meanwhile) is out of serving: its pinned segments are not searched
    /// again, the search counts it failed (OpenSearch frees a failed shard's reader contexts).
    pub fn check_serving(&self) -> OsResult<()> {
        match &self.failer {
            Some(f) if f.is_failed() => Err(OsError::new(
                ErrorKind::NoShardAvailableAction,
                format!("[{}][{}] shard failure, reason [{}]", self.index, self.shard, f.failure().unwrap_or_default()),
            )
            .status(503)),
            _ => Ok(()),
        }
    }

    /// Reports what a search of this shard met: corruption (damaged bytes in a segment it
    /// read) fails the shard as every other reader of its files would (marker, out of serving).
    pub fn report_corruption(&self, source: &str, e: &OsError) {
        if let (true, Some(f)) = (e.is_corruption(), &self.failer) {
            f.fail(&format!("corrupt file (source: [{source}]): {}", e.reason), true);
        }
    }
}

/// Resolves `expr` and pins a searcher on every shard of every resolved index, in index then
/// shard order.
pub fn acquire(cs: &ClusterService, expr: &str, opts: IndicesOptions) -> OsResult<Vec<ShardContext>> {
    Ok(acquire_with_failed(cs, expr, opts)?.0)
}

/// A shard of a resolved index that failed to open: `(index, shard, reason)`.
pub type FailedShard = (String, u32, String);

/// [`acquire`], and the shards of the resolved indices that failed to open (searched as failed
/// shards: counted in `_shards.total` and `_shards.failed`).
pub fn acquire_with_failed(
    cs: &ClusterService,
    expr: &str,
    opts: IndicesOptions,
) -> OsResult<(Vec<ShardContext>, Vec<FailedShard>)> {
    let mut failed = Vec::new();
    let md = cs.metadata();
    let names = resolve::resolve(&md, expr, opts)?;
    let refs: Vec<&str> = names.iter().map(String::as_str).collect();
    cs.check_blocks(crate::cluster::blocks::Level::Read, &refs)?;
    let mut out = Vec::new();
    for name in names {
        let svc = match cs.index(&name) {
            Ok(s) => s,
            Err(e) if opts.ignore_unavailable => {
                tracing::debug!(index = %name, error = %e.reason, "skipping unavailable index");
                continue;
            }
            Err(e) => return Err(e),
        };
        failed.extend(svc.failed().into_iter().map(|f| (svc.name.clone(), f.id, f.reason)));
        out.extend(index_contexts(cs, &md, expr, &svc, svc.shards())?);
    }
    Ok((out, failed))
}

/// Keeps the shards a search with `routing` (comma-separated values: each value's shard of each
/// index) and `preference` (`_shards:0,2`, optionally followed by `|` and another preference)
/// reaches; `_shards.total` then counts only them. Other preferences pick a copy.
pub fn restrict(
    cs: &ClusterService,
    ctxs: &mut Vec<ShardContext>,
    routing: Option<&str>,
    preference: Option<&str>,
) -> OsResult<()> {
    let keep = shard_filter(cs, routing, preference)?;
    ctxs.retain(|c| keep(&c.index, c.shard));
    Ok(())
}

/// Adds the `failed` shards to a response's `_shards` (total, failed, failures), as OpenSearch
/// reports shards with no active copy; with nothing else searched, the search fails.
pub fn add_failed(shards: &mut serde_json::Value, failed: &[FailedShard]) {
    if failed.is_empty() {
        return;
    }
    let add = failed.len() as u64;
    shards["total"] = serde_json::json!(shards["total"].as_u64().unwrap_or(0) + add);
    shards["failed"] = serde_json::json!(shards["failed"].as_u64().unwrap_or(0) + add);
    let mut fails = shards["failures"].as_array().cloned().unwrap_or_default();
    for (index, shard, reason) in failed {
        let e = OsError::new(ErrorKind::NoShardAvailableAction, reason.clone()).status(503);
        fails.push(serde_json::json!({"shard": shard, "index": index, "node": null, "reason": e.to_json()}));
    }
    shards["failures"] = serde_json::Value::Array(fails);
}

/// The error of a search whose every shard failed to open.
pub fn all_failed_to_open(failed: &[FailedShard]) -> OsError {
    let mut shards = serde_json::json!({});
    add_failed(&mut shards, failed);
    OsError::new(ErrorKind::SearchPhaseExecution, "all shards failed")
        .status(503)
        .with("phase", "query")
        .with("grouped", true)
        .with("failed_shards", shards["failures"].clone())
}

/// The alias filter a search of `expr` applies to `index` (OpenSearch's
/// `IndicesService.buildAliasFilter`): when the index is reached only through aliases that all
/// carry a filter, the filters combined with OR; `None` when any part of the expression reaches
/// it directly, through a wildcard over index names, or through an alias without a filter.
pub fn alias_filter(md: &crate::cluster::metadata::Metadata, expr: &str, index: &str) -> Option<serde_json::Value> {
    let mut filters = alias_filters(md, expr, index)?;
    match filters.len() {
        0 => None,
        1 => filters.pop(),
        _ => Some(serde_json::json!({"bool": {"should": filters, "minimum_should_match": 1}})),
    }
}

/// The filters of the aliases `expr` reaches `index` through, when every path to it is a
/// filtered alias (see [`alias_filter`]); `None` otherwise.
pub fn alias_filters(
    md: &crate::cluster::metadata::Metadata,
    expr: &str,
    index: &str,
) -> Option<Vec<serde_json::Value>> {
    use crate::cluster::resolve::glob;
    let meta = md.indices.get(index)?;
    let mut filters = Vec::new();
    let mut any = false;
    for part in expr.split(',').map(str::trim).filter(|p| !p.is_empty() && !p.starts_with('-')) {
        if part == "_all" || part == "*" || glob(part, index) {
            return None;
        }
        for (alias, a) in &meta.aliases {
            if names_alias(part, alias) {
                any = true;
                match &a.filter {
                    None => return None,
                    Some(f) => filters.push(f.clone()),
                }
            }
        }
    }
    (any && !filters.is_empty()).then_some(filters)
}

/// Whether the expression part `part` names `alias` (exactly, or as a wildcard pattern).
pub fn names_alias(part: &str, alias: &str) -> bool {
    part == alias || (part.contains('*') && crate::cluster::resolve::glob(part, alias))
}

/// Pins `shards` of `svc`, reached through `expr` (for its alias filter).
fn index_contexts(
    cs: &ClusterService,
    md: &crate::cluster::metadata::Metadata,
    expr: &str,
    svc: &crate::cluster::IndexService,
    shards: Vec<Arc<crate::cluster::IndexShard>>,
) -> OsResult<Vec<ShardContext>> {
    let meta = svc.metadata();
    let max_result_window = match meta.setting("index.max_result_window") {
        Some(s) => s.parse::<usize>().map_err(|_| {
            OsError::illegal(format!("Failed to parse value [{s}] for setting [index.max_result_window]"))
        })?,
        None => DEFAULT_MAX_RESULT_WINDOW,
    };
    let limits =
        super::limits::IndexLimits::from_settings(&|k| meta.setting(k).map(str::to_string), max_result_window)?;
    let max_slices_per_scroll = match meta.setting("index.max_slices_per_scroll") {
        Some(s) => s.parse::<i64>().map_err(|_| {
            OsError::illegal(format!("Failed to parse value [{s}] for setting [index.max_slices_per_scroll]"))
        })?,
        None => super::slice::DEFAULT_MAX_SLICES_PER_SCROLL,
    };
    let num_shards = meta.number_of_shards();
    let cache_enabled = crate::cluster::settings::get_bool(&meta.settings, "index.requests.cache.enable", true)?;
    let query_cache = crate::cluster::settings::get_bool(&meta.settings, "index.queries.cache.enabled", true)?;
    let cache_everything = crate::cluster::settings::get_bool(&meta.settings, "index.queries.cache.everything", false)?;
    let mapping = svc.mapping();
    let mut out = Vec::with_capacity(shards.len());
    for shard in shards {
        out.push(ShardContext {
            alias_filter: alias_filter(md, expr, &svc.name),
            index: svc.name.clone(),
            index_uuid: svc.uuid.clone(),
            shard: shard.id,
            mapping: mapping.clone(),
            max_result_window,
            limits,
            max_slices_per_scroll,
            num_shards,
            analyzers: svc.analyzers().clone(),
            analysis: Some(svc.analysis().clone()),
            reader: shard.engine.reader()?,
            failer: Some(shard.engine.failer().clone()),
            request_cache: Some(super::request_cache::CacheHandle {
                node: cs.request_cache.clone(),
                shard: shard.request_cache.clone(),
                enabled: cache_enabled,
                mapping_version: meta.mapping_version,
            }),
            breakers: Some(cs.breakers().clone()),
            fielddata: Some(cs.fielddata.clone()),
            query_cache: query_cache.then(|| crate::engine::query::cached::Scope {
                cache: cs.query_cache.clone(),
                shard: shard.query_cache.clone(),
                always: cache_everything,
                reserve: Some(request_breaker(cs.breakers())),
            }),
            counters: Some(shard.engine.counters().clone()),
            node_id: Arc::from(cs.node.node_id.as_str()),
        });
    }
    Ok(out)
}

/// Pins exactly the shards `ids` (index, shard) of this node, reached through `expr`, for
/// another node's search across nodes; a shard not serving here is a failed shard.
pub fn acquire_shards(
    cs: &ClusterService,
    expr: &str,
    ids: &[(String, u32)],
) -> OsResult<(Vec<ShardContext>, Vec<FailedShard>)> {
    let md = cs.metadata();
    let (mut out, mut failed) = (Vec::new(), Vec::new());
    for (index, id) in ids {
        let svc = cs.index(index)?;
        match svc.shard(*id) {
            Some(s) => out.extend(index_contexts(cs, &md, expr, &svc, vec![s])?),
            None => failed.push((index.clone(), *id, format!("[{index}][{id}] no serving copy on this node"))),
        }
    }
    Ok((out, failed))
}

/// Whether the shard `shard` of `index` is among those `routing` and `preference` reach (see
/// [`restrict`]).
pub fn shard_filter(
    cs: &ClusterService,
    routing: Option<&str>,
    preference: Option<&str>,
) -> OsResult<impl Fn(&str, u32) -> bool> {
    let md = cs.metadata();
    let values: Option<Vec<String>> = routing
        .filter(|r| !r.is_empty())
        .map(|r| r.split(',').map(str::trim).filter(|v| !v.is_empty()).map(str::to_string).collect());
    let mut shards: Option<Vec<u32>> = None;
    if let Some(p) = preference {
        if let Some(rest) = p.strip_prefix("_shards:") {
            let list = rest.split('|').next().unwrap_or("");
            let mut ids = Vec::new();
            for s in list.split(',').map(str::trim) {
                ids.push(s.parse::<u32>().map_err(|_| OsError::illegal(format!("No shard id found in [{p}]")))?);
            }
            shards = Some(ids);
        } else if p.starts_with('_') {
            let known = [
                "_local",
                "_only_local",
                "_primary",
                "_primary_first",
                "_replica",
                "_replica_first",
                "_only_nodes:",
                "_prefer_nodes:",
                "_only_primary",
            ];
            if !known.iter().any(|k| p == *k || (k.ends_with(':') && p.starts_with(k))) {
                return Err(OsError::illegal(format!("no Preference for [{p}]")));
            }
        }
    }
    Ok(move |index: &str, shard: u32| {
        if let Some(values) = &values {
            let (n, rn) = md.indices.get(index).map_or((1, 1), |m| (m.number_of_shards(), m.routing_num_shards));
            if !values.iter().any(|v| crate::cluster::routing::shard_id(v, n, rn) == shard) {
                return false;
            }
        }
        shards.as_ref().is_none_or(|s| s.contains(&shard))
    })
}

/// The query cache's hold on the request breaker while it builds a large set.
fn request_breaker(b: &Arc<crate::cluster::breakers::Breakers>) -> crate::engine::query::cached::Reserve {
    let b = b.clone();
    Arc::new(move |bytes| {
        let held = b.reserve(crate::cluster::breakers::Kind::Request, bytes, "<query_cache>").ok()?;
        Some(Box::new(held) as Box<dyn std::any::Any + Send>)
    })
}
