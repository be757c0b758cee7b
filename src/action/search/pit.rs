//! Point in time: a node-level registry of reader contexts ([`ReaderContexts`]), each one shard's
//! pinned [`ShardContext`] kept alive for a point in time or a scroll, and the PIT APIs over it.
//! PIT and scroll ids are [`ContextId`]s (`context_id.rs`).
//!
//! Lifetime: a context expires when `last_access + keep_alive` passes; [`ReaderContexts::reap`]
//! (run by the node's scheduler) drops expired contexts and those of indices no longer open, and
//! with the last clone of their searchers the segment files they pinned become deletable. A
//! search clones the contexts it needs out of the registry under the lock and runs without it,
//! so a reap during a search only delays the release to the end of that search.

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use serde_json::{json, Map, Value};

use super::context::{acquire, ShardContext};
pub use super::context_id::{decode_pit_id, ContextId, ContextKind, ShardRef};
use super::request::SearchRequest;
use crate::clock::now_millis;
use crate::cluster::resolve::IndicesOptions;
use crate::cluster::ClusterService;
use crate::error::{ErrorKind, OsError, OsResult};

/// Default `search.max_open_pit_context` (per node, counted per shard context).
pub const DEFAULT_MAX_OPEN_PIT_CONTEXT: usize = 300;
/// `point_in_time.max_keep_alive` and `search.max_keep_alive` (24 h).
pub const MAX_KEEP_ALIVE: Duration = Duration::from_secs(24 * 3600);
/// The shared cursor of one scroll (see `scroll.rs`).
#[derive(Debug)]
pub struct ScrollCursor {
    pub request: SearchRequest,
    /// Each unit's last emitted hit, the first page's total.
    pub state: super::execute::ScrollState,
}

/// One shard's reader context.
#[derive(Debug)]
struct ReaderContext {
    ctx: ShardContext,
    kind: ContextKind,
    /// The PIT or scroll id this context belongs to.
    owner: String,
    keep_alive: Duration,
    created_ms: i64,
    last_access: Instant,
    cursor: Option<Arc<Mutex<ScrollCursor>>>,
    /// Counts the context in its copy's search stats while it is open.
    _counted: Option<crate::shard::stats::OpenContext>,
}

/// The node's reader contexts (PITs and scrolls), by context number.
#[derive(Debug)]
pub struct ReaderContexts {
    /// This node's id (named by the ids of its contexts).
    node: String,
    session: String,
    next: AtomicU64,
    default_max_open_pit: usize,
    contexts: Mutex<BTreeMap<u64, ReaderContext>>,
}

/// A context missing from the registry: OpenSearch's `search_context_missing_exception`.
pub fn context_missing(id: u64) -> OsError {
    OsError::new(ErrorKind::SearchContextMissing, format!("No search context found for id [{id}]"))
}

/// `TimeValue.toString()` of milliseconds (`1d`, `1.5h`, `500ms`): one decimal, truncated,
/// dropped when zero.
pub fn time_value(ms: u64) -> String {
    const UNITS: [(&str, u64); 4] = [("d", 86_400_000), ("h", 3_600_000), ("m", 60_000), ("s", 1000)];
    for (suffix, unit) in UNITS {
        if ms >= unit {
            let tenths = ms * 10 / unit;
            return if tenths % 10 == 0 {
                format!("{}{suffix}", tenths / 10)
            } else {
                format!("{}.{}{suffix}", tenths / 10, tenths % 10)
            };
        }
    }
    format!("{ms}ms")
}

/// Checks a keep alive against the 24 h maximum (`setting`: the setting that raises it).
pub fn check_keep_alive(d: Duration, setting: &str) -> OsResult<()> {
    if d > MAX_KEEP_ALIVE {
        return Err(OsError::illegal(format!(
            "Keep alive for request ({}) is too large. It must be less than ({}). This limit can be set by changing the [{setting}] cluster level setting.",
            time_value(d.as_millis() as u64),
            time_value(MAX_KEEP_ALIVE.as_millis() as u64)
        )));
    }
    Ok(())
}

/// Contexts found for an id, and the shards whose context is gone.
#[derive(Debug)]
pub struct Found {
    pub contexts: Vec<ShardContext>,
    pub missing: Vec<ShardRef>,
    pub cursor: Option<Arc<Mutex<ScrollCursor>>>,
}

impl ReaderContexts {
    /// An empty registry (`max_open_pit`: `search.max_open_pit_context` from node settings).
    pub fn new(max_open_pit: usize) -> ReaderContexts {
        ReaderContexts::for_node(max_open_pit, "_na_")
    }

    /// [`ReaderContexts::new`] of the node `node` (the node id its contexts' ids name).
    pub fn for_node(max_open_pit: usize, node: &str) -> ReaderContexts {
        ReaderContexts {
            node: node.to_string(),
            session: crate::cluster::indices::new_uuid(),
            next: AtomicU64::new(1),
            default_max_open_pit: max_open_pit,
            contexts: Mutex::new(BTreeMap::new()),
        }
    }

    fn lock(&self) -> MutexGuard<'_, BTreeMap<u64, ReaderContext>> {
        self.contexts.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// This process's session id (embedded in ids).
    pub fn session(&self) -> &str {
        &self.session
    }

    /// Open shard contexts of a kind.
    pub fn open_count(&self, kind: ContextKind) -> usize {
        self.lock().values().filter(|c| c.kind == kind).count()
    }

    /// Registers `ctxs` as one PIT or scroll; returns its id. `max_open` bounds the PIT contexts.
    pub fn register(
        &self,
        ctxs: Vec<ShardContext>,
        kind: ContextKind,
        keep_alive: Duration,
        max_open: Option<usize>,
        cursor: Option<ScrollCursor>,
    ) -> OsResult<String> {
        let shards = self.open(ctxs, kind, keep_alive, max_open, cursor)?;
        let numbers: Vec<u64> = shards.iter().map(|s| s.context).collect();
        let id = ContextId { kind, shards }.encode();
        self.adopt(&numbers, &id, None);
        Ok(id)
    }

    /// Registers `ctxs` as this node's part of one PIT or scroll (its id is set with
    /// [`ReaderContexts::adopt`] once every node's part is known); returns their references.
    pub fn open(
        &self,
        ctxs: Vec<ShardContext>,
        kind: ContextKind,
        keep_alive: Duration,
        max_open: Option<usize>,
        cursor: Option<ScrollCursor>,
    ) -> OsResult<Vec<ShardRef>> {
        let mut map = self.lock();
        if let Some(max) = max_open {
            let open = map.values().filter(|c| c.kind == ContextKind::Pit).count();
            if open + ctxs.len() > max {
                return Err(OsError::new(
                    ErrorKind::RejectedExecution,
                    format!("Trying to create too many Point In Time contexts. Must be less than or equal to: [{max}]. This limit can be set by changing the [search.max_open_pit_context] setting."),
                ));
            }
        }
        let shards: Vec<ShardRef> = ctxs
            .iter()
            .map(|c| ShardRef {
                index: c.index.clone(),
                index_uuid: c.index_uuid.clone(),
                shard: c.shard,
                node: self.node.clone(),
                session: self.session.clone(),
                context: self.next.fetch_add(1, Ordering::Relaxed),
            })
            .collect();
        let now = Instant::now();
        let created_ms = now_millis();
        let cursor = cursor.map(|c| Arc::new(Mutex::new(c)));
        for (ctx, s) in ctxs.into_iter().zip(&shards) {
            let counted =
                ctx.counters.as_ref().map(|c| crate::shard::stats::OpenContext::open(c, kind == ContextKind::Scroll));
            map.insert(
                s.context,
                ReaderContext {
                    _counted: counted,
                    ctx,
                    kind,
                    owner: String::new(),
                    keep_alive,
                    created_ms,
                    last_access: now,
                    cursor: cursor.clone(),
                },
            );
        }
        Ok(shards)
    }

    /// Names the id the contexts `numbers` belong to (and, with `created_ms`, their creation
    /// time: a PIT's is the same on every node); returns how many are still open.
    pub fn adopt(&self, numbers: &[u64], owner: &str, created_ms: Option<i64>) -> usize {
        let mut map = self.lock();
        let mut n = 0;
        for k in numbers {
            let Some(c) = map.get_mut(k) else { continue };
            c.owner = owner.to_string();
            if let Some(t) = created_ms {
                c.created_ms = t;
            }
            n += 1;
        }
        n
    }

    /// This node's id.
    pub fn node(&self) -> &str {
        &self.node
    }

    /// Looks up the contexts of a decoded id, marks them used and, with `keep_alive`, extends
    /// their keep alive to it.
    pub fn find(&self, id: &ContextId, keep_alive: Option<Duration>) -> Found {
        let mut map = self.lock();
        let mut found = Found { contexts: Vec::new(), missing: Vec::new(), cursor: None };
        for s in &id.shards {
            let hit = if s.session == self.session {
                map.get_mut(&s.context).filter(|c| c.kind == id.kind && c.ctx.index_uuid == s.index_uuid)
            } else {
                None
            };
            match hit {
                Some(c) => {
                    c.last_access = Instant::now();
                    if let Some(k) = keep_alive {
                        // As OpenSearch's `ReaderContext.keepAlive`: a use never shortens it.
                        c.keep_alive = c.keep_alive.max(k);
                    }
                    if found.cursor.is_none() {
                        found.cursor = c.cursor.clone();
                    }
                    found.contexts.push(c.ctx.clone());
                }
                None => found.missing.push(s.clone()),
            }
        }
        found
    }

    /// Frees the contexts of an id; returns how many were freed.
    pub fn free(&self, id: &ContextId) -> usize {
        let mut map = self.lock();
        id.shards
            .iter()
            .filter(|s| {
                s.session == self.session
                    && map.get(&s.context).is_some_and(|c| c.kind == id.kind)
                    && map.remove(&s.context).is_some()
            })
            .count()
    }

    /// Frees every context of a kind; returns the owners' ids (in creation order) with their count.
    pub fn free_all(&self, kind: ContextKind) -> Vec<(String, usize)> {
        let mut map = self.lock();
        let mut out: Vec<(String, usize)> = Vec::new();
        map.retain(|_, c| {
            if c.kind != kind {
                return true;
            }
            match out.iter_mut().find(|o| o.0 == c.owner) {
                Some(o) => o.1 += 1,
                None => out.push((c.owner.clone(), 1)),
            }
            false
        });
        out
    }

    /// Drops expired contexts, and those of indices no longer open (`is_open(index_uuid)`; an
    /// index deleted or closed frees its contexts, as in OpenSearch); returns how many.
    pub fn reap(&self, is_open: &dyn Fn(&str) -> bool) -> usize {
        let now = Instant::now();
        let mut map = self.lock();
        let before = map.len();
        map.retain(|_, c| now.saturating_duration_since(c.last_access) <= c.keep_alive && is_open(&c.ctx.index_uuid));
        before - map.len()
    }

    /// [`ReaderContexts::reap`] against the cluster's current metadata.
    pub fn reap_in(&self, cs: &ClusterService) -> usize {
        let md = cs.metadata();
        let open: std::collections::HashSet<&str> = md
            .indices
            .values()
            .filter(|m| m.state == crate::cluster::metadata::IndexState::Open)
            .map(|m| m.uuid.as_str())
            .collect();
        self.reap(&|u| open.contains(u))
    }

    /// Every live PIT: `(pit_id, creation_time ms, keep_alive ms)` in creation order.
    pub fn list_pits(&self) -> Vec<(String, i64, u64)> {
        let map = self.lock();
        let mut out: Vec<(String, i64, u64)> = Vec::new();
        // A PIT still being created across nodes has no id yet.
        for c in map.values().filter(|c| c.kind == ContextKind::Pit && !c.owner.is_empty()) {
            if !out.iter().any(|o| o.0 == c.owner) {
                out.push((c.owner.clone(), c.created_ms, c.keep_alive.as_millis() as u64));
            }
        }
        out
    }

    /// The pinned contexts of every live PIT (for `_cat/pit_segments/_all`).
    pub fn all_pit_contexts(&self) -> Vec<ShardContext> {
        self.lock().values().filter(|c| c.kind == ContextKind::Pit).map(|c| c.ctx.clone()).collect()
    }

    /// `search.max_open_pit_context`: the cluster's persistent setting, else the node's.
    pub fn max_open_pit(&self, cs: &ClusterService) -> OsResult<usize> {
        let md = cs.metadata();
        match md
            .transient_settings
            .get("search.max_open_pit_context")
            .or(md.persistent_settings.get("search.max_open_pit_context"))
        {
            None | Some(Value::Null) => Ok(self.default_max_open_pit),
            Some(v) => {
                let s = match v {
                    Value::String(s) => s.clone(),
                    other => other.to_string(),
                };
                s.parse::<usize>().map_err(|_| {
                    OsError::illegal(format!("Failed to parse value [{s}] for setting [search.max_open_pit_context]"))
                })
            }
        }
    }
}

/// Parameters of a PIT creation.
#[derive(Debug, Clone)]
pub struct CreatePit {
    pub keep_alive: Option<Duration>,
    pub routing: Option<String>,
    /// `allow_partial_pit_creation` (default true): a PIT over the shards that opened when
    /// some did not (only across nodes: on one node every shard opens or none does).
    pub allow_partial: bool,
}

/// `POST /{targets}/_search/point_in_time`: `{pit_id, _shards, creation_time}`.
pub fn create(
    cs: &ClusterService,
    reg: &ReaderContexts,
    expr: &str,
    opts: IndicesOptions,
    p: &CreatePit,
) -> OsResult<Value> {
    let keep_alive = p.keep_alive.ok_or_else(|| OsError::validation(&["keep alive not specified".to_string()]))?;
    check_keep_alive(keep_alive, "point_in_time.max_keep_alive")?;
    let pit_req = SearchRequest { routing: p.routing.clone(), pit: Some(json!({})), ..SearchRequest::default() };
    let (remote, unavailable) = super::remote::remote_targets(cs, expr, opts, &pit_req)?;
    if !remote.is_empty() {
        return super::remote_pit::create(cs, reg, expr, opts, p, keep_alive, remote, unavailable);
    }
    let mut ctxs = acquire(cs, expr, opts)?;
    super::context::restrict(cs, &mut ctxs, p.routing.as_deref(), None)?;
    let n = ctxs.len();
    let creation_time = now_millis();
    let max = reg.max_open_pit(cs)?;
    let id = reg.register(ctxs, ContextKind::Pit, keep_alive, Some(max), None)?;
    Ok(json!({
        "pit_id": id,
        "_shards": {"total": n, "successful": n, "skipped": 0, "failed": 0},
        "creation_time": creation_time,
    }))
}

/// The error of a search whose every shard context is gone.
pub fn all_missing(missing: &[ShardRef]) -> OsError {
    let first = missing.first().map_or(0, |s| s.context);
    let failed: Vec<Value> = missing
        .iter()
        .map(|s| json!({"shard": -1, "index": null, "reason": context_missing(s.context).to_json()}))
        .take(1)
        .collect();
    OsError::new(ErrorKind::SearchPhaseExecution, "all shards failed")
        .status(404)
        .with("phase", "query")
        .with("grouped", true)
        .with("failed_shards", Value::Array(failed))
        .caused_by(context_missing(first))
}

/// Runs `req` over found contexts; contexts that are gone count as failed shards.
pub fn search_found(found: &Found, req: &SearchRequest) -> OsResult<Value> {
    search_found_with(found, req, None)
}

/// [`search_found`] for a scroll page (see [`super::execute::search_contexts_with`]).
pub fn search_found_with(
    found: &Found,
    req: &SearchRequest,
    scroll: Option<&mut super::execute::ScrollState>,
) -> OsResult<Value> {
    if found.contexts.is_empty() {
        return Err(all_missing(&found.missing));
    }
    let mut body = super::execute::search_contexts_with(&found.contexts, req, scroll)?;
    if !found.missing.is_empty() {
        let shards = &mut body["_shards"];
        let add = found.missing.len() as u64;
        shards["total"] = json!(shards["total"].as_u64().unwrap_or(0) + add);
        shards["failed"] = json!(shards["failed"].as_u64().unwrap_or(0) + add);
        let mut fails = shards["failures"].as_array().cloned().unwrap_or_default();
        for s in &found.missing {
            fails.push(json!({"shard": s.shard, "index": s.index, "node": "fathom", "reason": context_missing(s.context).to_json()}));
        }
        shards["failures"] = Value::Array(fails);
    }
    Ok(body)
}

/// Puts `key` first in an object body (as OpenSearch prints `_scroll_id` and `pit_id`).
pub fn prepend(body: Value, key: &str, v: Value) -> Value {
    match body {
        Value::Object(m) => {
            let mut out = Map::new();
            out.insert(key.to_string(), v);
            out.extend(m);
            Value::Object(out)
        }
        other => other,
    }
}

/// `_search` with `"pit": {"id", "keep_alive"}`.
pub fn search(reg: &ReaderContexts, pit: &Value, req: &SearchRequest) -> OsResult<Value> {
    let (id, keep_alive) = pit_params(pit)?;
    let decoded = decode_pit_id(id)?;
    let found = reg.find(&decoded, keep_alive);
    let body = search_found(&found, req)?;
    Ok(prepend(body, "pit_id", json!(id)))
}

/// The `id` and `keep_alive` of a search's `"pit"`.
pub fn pit_params(pit: &Value) -> OsResult<(&str, Option<Duration>)> {
    let id = pit
        .get("id")
        .and_then(Value::as_str)
        .ok_or_else(|| OsError::parsing("[point_in_time] failed to parse field [id]"))?;
    let keep_alive = match pit.get("keep_alive") {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) => {
            let d = crate::cluster::settings::parse_time(s, "keep_alive")?.unwrap_or(Duration::ZERO);
            check_keep_alive(d, "point_in_time.max_keep_alive")?;
            Some(d)
        }
        Some(_) => return Err(OsError::parsing("[point_in_time] failed to parse field [keep_alive]")),
    };
    Ok((id, keep_alive))
}

/// `GET /_search/point_in_time/_all`.
pub fn list(reg: &ReaderContexts) -> Value {
    let pits: Vec<Value> = reg
        .list_pits()
        .into_iter()
        .map(|(id, c, k)| json!({"pit_id": id, "creation_time": c, "keep_alive": k}))
        .collect();
    json!({ "pits": pits })
}

/// The `pit_id` list of a body (`"pit_id": "..."` or `[...]`).
pub fn body_pit_ids(body: &Value) -> OsResult<Vec<String>> {
    let ids = match body.get("pit_id") {
        Some(Value::String(s)) => vec![s.clone()],
        Some(Value::Array(a)) => a
            .iter()
            .map(|v| {
                v.as_str()
                    .map(str::to_string)
                    .ok_or_else(|| OsError::parsing("[pit_id] must be a string or a list of strings"))
            })
            .collect::<OsResult<Vec<_>>>()?,
        Some(_) => return Err(OsError::parsing("[pit_id] must be a string or a list of strings")),
        None => vec![],
    };
    if ids.is_empty() {
        return Err(OsError::validation(&["no pit ids specified".to_string()]));
    }
    Ok(ids)
}

/// `DELETE /_search/point_in_time`: every id is freed (an already gone PIT counts as freed, as
/// in OpenSearch).
pub fn delete(reg: &ReaderContexts, ids: &[String]) -> OsResult<Value> {
    let decoded: Vec<ContextId> = ids.iter().map(|i| decode_pit_id(i)).collect::<OsResult<_>>()?;
    let pits: Vec<Value> = ids
        .iter()
        .zip(&decoded)
        .map(|(id, d)| {
            reg.free(d);
            json!({"successful": true, "pit_id": id})
        })
        .collect();
    Ok(json!({ "pits": pits }))
}

/// `DELETE /_search/point_in_time/_all`.
pub fn delete_all(reg: &ReaderContexts) -> Value {
    let pits: Vec<Value> = reg
        .free_all(ContextKind::Pit)
        .into_iter()
        .filter(|(id, _)| !id.is_empty())
        .map(|(id, _)| json!({"successful": true, "pit_id": id}))
        .collect();
    json!({ "pits": pits })
}

/// The shard contexts of PIT ids (for `_cat/pit_segments`); unknown ids contribute nothing.
pub fn pit_contexts(reg: &ReaderContexts, ids: &[String]) -> OsResult<Vec<ShardContext>> {
    let mut out = Vec::new();
    let mut seen: HashMap<(String, u32, u64), ()> = HashMap::new();
    for id in ids {
        let d = decode_pit_id(id)?;
        let found = reg.find(&d, None);
        for c in found.contexts {
            if seen.insert((c.index_uuid.clone(), c.shard, c.reader.version()), ()).is_none() {
                out.push(c);
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
#[path = "pit_tests.rs"]
mod tests;
