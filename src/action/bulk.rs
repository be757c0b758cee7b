//! `_bulk`: NDJSON action/source pairs. The whole body is parsed first (a malformed line fails
//! the request before anything executes, as OpenSearch's `BulkRequest` parsing does), then the
//! items execute in order with per-item results. Each item's source is sliced out of the body.
//! Writes are acknowledged after one translog fsync per touched shard (group commit), not one per
//! item. The response is written straight to JSON bytes ([`render`]).

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Instant;

use serde_json::{json, Value};

use super::deferred::Deferred;
use super::documents::active_shards::{self, ActiveShardCount, Shortfall};
use super::documents::{
    assign_id, delete_routed, index_routed, parse_version_type, route_doc, shards_total, write_target, ActiveWait,
    Refresh, WriteOutcome,
};
use super::ingest;
use super::update::{self, UpdateRequest};
use crate::cluster::node_counters::Stage;
use crate::cluster::{ClusterService, IndexService, IndexShard};
use crate::error::{ErrorKind, OsError, OsResult};
use crate::shard::engine::WriteResult;
use crate::shard::versioning::{Constraints, VersionType};

mod meta;
pub mod remote;
mod render;
mod retry;
#[cfg(test)]
mod tests;

use meta::{ItemMeta, OpType};

/// Defaults from the URL (`/{index}/_bulk?routing=&pipeline=&require_alias=`).
#[derive(Debug, Clone, Default)]
pub struct BulkDefaults {
    pub index: Option<String>,
    pub routing: Option<String>,
    pub pipeline: Option<String>,
    pub require_alias: bool,
    pub refresh: Refresh,
    pub source: Option<super::source_filter::SourceFilter>,
    pub wait: ActiveWait,
    /// Run every item here (a shard-level bulk from another node, or this node's part of a
    /// split one): never split again.
    pub forwarded: bool,
}

fn lines(body: &[u8]) -> impl Iterator<Item = (usize, &[u8])> {
    body.split(|b| *b == b'\n')
        .enumerate()
        .map(|(i, l)| (i + 1, l.strip_suffix(b"\r").unwrap_or(l)))
        .filter(|(_, l)| !l.iter().all(u8::is_ascii_whitespace))
}

/// One parsed item.
struct Item<'a> {
    op: OpType,
    meta: ItemMeta<'a>,
    /// The action line as given.
    raw: &'a [u8],
    source: Option<&'a [u8]>,
}

/// Parses every item of the body (no item executes if any line is malformed).
fn parse_items(body: &[u8]) -> OsResult<Vec<Item<'_>>> {
    let mut it = lines(body);
    let mut items = Vec::new();
    while let Some((line_no, line)) = it.next() {
        let (op, meta) = meta::parse(line, line_no)?;
        if op == OpType::Update
            && (meta.version.is_some() || parse_version_type(meta.version_type.as_deref())? != VersionType::Internal)
        {
            return Err(OsError::illegal(
                "Update requests do not support versioning. Please use `if_seq_no` and `if_primary_term` instead",
            ));
        }
        let source = if op == OpType::Delete {
            None
        } else {
            match it.next() {
                Some((_, l)) => Some(l),
                None => return Err(OsError::illegal("The bulk request must be terminated by a newline [\\n]")),
            }
        };
        items.push(Item { op, meta, raw: line, source });
    }
    Ok(items)
}

/// An item that found its shard short of active copies: rendered once all items are known
/// (the message counts the shard's items).
struct Unavailable {
    /// Offset in the rendered items where this item goes.
    at: usize,
    op: OpType,
    index: String,
    id: Option<String>,
    shard: *const IndexShard,
    describe: String,
}

/// Per-request state shared by the items.
struct Run<'c> {
    cs: &'c ClusterService,
    d: &'c BulkDefaults,
    deadline: Instant,
    /// Resolved write targets by (name, require_alias), with their `_shards.total`.
    targets: Vec<(String, bool, Arc<IndexService>, u32)>,
    /// Shards checked against `wait_for_active_shards`, with the result.
    checked: HashMap<*const IndexShard, Result<(), Shortfall>>,
    /// Items per shard (for the unavailable message).
    per_shard: HashMap<*const IndexShard, usize>,
    /// Per shard, the furthest translog location written: synced once at the end.
    to_sync: HashMap<*const IndexShard, (Arc<IndexShard>, WriteResult, Vec<i64>)>,
    /// Where each written item's `_shards` counts are, by shard (patched after replication).
    shard_counts: HashMap<*const IndexShard, Vec<usize>>,
    refreshed: Vec<Arc<IndexShard>>,
    /// Time spent in ingest pipelines, once any ran.
    ingest_nanos: Option<u64>,
}

impl Run<'_> {
    fn target(&mut self, name: &str, require_alias: bool) -> OsResult<(Arc<IndexService>, u32)> {
        if let Some((_, _, svc, total)) = self.targets.iter().find(|(n, r, _, _)| n == name && *r == require_alias) {
            return Ok((svc.clone(), *total));
        }
        let svc = write_target(self.cs, name, require_alias)?;
        let total = shards_total(&svc);
        self.targets.push((name.to_string(), require_alias, svc.clone(), total));
        Ok((svc, total))
    }

    /// Whether `shard` has the copies the request waits for (waiting once per shard).
    fn active_ok(&mut self, svc: &IndexService, shard: &Arc<IndexShard>) -> Result<(), Shortfall> {
        if self.d.wait.want.trivially_met() {
            return Ok(());
        }
        // Counted only when the request waits: the count is for the unavailable message.
        let key = Arc::as_ptr(shard);
        *self.per_shard.entry(key).or_insert(0) += 1;
        if let Some(r) = self.checked.get(&key) {
            return r.clone();
        }
        let r = active_shards::check(self.cs, svc, shard.id, self.d.wait.want, self.d.wait.timeout, self.deadline);
        self.checked.insert(key, r.clone());
        r
    }

    fn wrote(&mut self, shard: Arc<IndexShard>, w: WriteResult) {
        let key = Arc::as_ptr(&shard);
        if self.d.refresh != Refresh::False && !self.refreshed.iter().any(|s| Arc::ptr_eq(s, &shard)) {
            self.refreshed.push(shard.clone());
        }
        let e = self.to_sync.entry(key).or_insert_with(|| (shard, w, Vec::new()));
        if w.location > e.1.location {
            e.1 = w;
        }
        e.2.push(w.seq_no);
    }
}

/// What became of one item.
enum Outcome {
    Written {
        index: Arc<IndexService>,
        id: String,
        total: u32,
        w: WriteResult,
        result: &'static str,
        status: u16,
        shard: *const IndexShard,
    },
    Updated(WriteOutcome, Option<Value>),
    Unavailable {
        index: String,
        id: Option<String>,
        shard: *const IndexShard,
        describe: String,
    },
    /// An ingest pipeline dropped the document.
    Dropped {
        index: String,
        id: String,
    },
}

/// A failed item: the error and the `_index`/`_id` it reports.
struct Failure {
    index: String,
    id: Option<String>,
    error: OsError,
}

/// Runs a bulk request; returns the response body as compact JSON and the refreshes the
/// answer waits for.
pub fn bulk(cs: &ClusterService, body: &[u8], d: &BulkDefaults) -> OsResult<(Vec<u8>, Deferred)> {
    let start = Instant::now();
    // Indexing pressure: the request's bytes are in flight here until it answers.
    let _coordinating = (!d.forwarded).then(|| cs.counters.indexing_pressure.track(Stage::Coordinating, body.len()));
    let (out, deferred) = bulk_once(cs, body, d)?;
    if d.forwarded {
        return Ok((out, deferred));
    }
    retry::unavailable_items(cs, body, d, start, out, deferred, &|b, d2| bulk_once(cs, b, d2))
}

/// One pass over the items (see [`bulk`]).
fn bulk_once(cs: &ClusterService, body: &[u8], d: &BulkDefaults) -> OsResult<(Vec<u8>, Deferred)> {
    let start = Instant::now();
    let items = parse_items(body)?;
    if items.is_empty() {
        return Err(OsError::validation(&["no requests added".into()]));
    }
    if d.index.is_none() && items.iter().any(|i| i.meta.index.is_none()) {
        return Err(OsError::validation(&["index is missing".into()]));
    }
    if !d.forwarded {
        // Without a cluster manager, the whole request waits for one (a retryable block).
        cs.await_global_unblocked(crate::cluster::blocks::Level::Write, d.wait.timeout)?;
        if let Some(plan) = remote::plan(cs, &items, d) {
            return remote::execute(cs, &items, plan, d, start);
        }
    }
    // The items run on their primaries here.
    let _primary = cs.counters.indexing_pressure.track(Stage::Primary, body.len());
    let mut run = Run {
        cs,
        d,
        deadline: start + d.wait.timeout,
        targets: Vec::new(),
        checked: HashMap::new(),
        per_shard: HashMap::new(),
        to_sync: HashMap::new(),
        shard_counts: HashMap::new(),
        refreshed: Vec::new(),
        ingest_nanos: None,
    };
    let mut out: Vec<u8> = Vec::with_capacity(items.len() * 192);
    let mut errors = false;
    let mut pending: Vec<Unavailable> = Vec::new();
    for (n, item) in items.iter().enumerate() {
        if n > 0 {
            out.push(b',');
        }
        let Some(index) = item.meta.index.as_deref().or(d.index.as_deref()) else {
            return Err(OsError::validation(&["index is missing".into()])); // checked above
        };
        match run_item(&mut run, item, index) {
            Ok(Outcome::Written { index, id, total, w, result, status, shard }) => {
                let forced_refresh = d.refresh == Refresh::True;
                let r = render::Written {
                    op: item.op,
                    index: &index.name,
                    id: &id,
                    version: w.version,
                    result,
                    forced_refresh,
                    shards_total: total,
                    seq_no: w.seq_no,
                    primary_term: w.primary_term,
                    status,
                };
                let at = render::written(&mut out, &r);
                run.shard_counts.entry(shard).or_default().push(at);
            }
            Ok(Outcome::Updated(outcome, get)) => {
                let mut v = update::response(&outcome, get);
                if d.refresh == Refresh::True && outcome.write.is_some() {
                    v["forced_refresh"] = json!(true);
                }
                v["status"] = json!(outcome.status);
                render::other(&mut out, item.op, &v);
            }
            Ok(Outcome::Dropped { index, id }) => {
                // OpenSearch's answer for a dropped document: a noop update response.
                let v = json!({"_index": index, "_id": id, "_version": -3, "result": "noop",
                    "_shards": {"total": 0, "successful": 0, "failed": 0}, "status": 200});
                render::other(&mut out, item.op, &v);
            }
            Ok(Outcome::Unavailable { index, id, shard, describe }) => {
                errors = true;
                pending.push(Unavailable { at: out.len(), op: item.op, index, id, shard, describe });
            }
            Err(f) => {
                errors = true;
                render::failed(&mut out, item.op, &f.index, f.id.as_deref(), f.error.status, &f.error.to_json());
            }
        }
    }
    for (_, (shard, w, seq_nos)) in std::mem::take(&mut run.to_sync) {
        // Durable here and on every copy of its replication group, or nothing of this shard
        // is acknowledged (an error fails every item).
        let r = shard.sync_and_replicate(cs, w.location, &seq_nos, d.refresh.for_replicas())?;
        if r.successful > 0 || !r.failed.is_empty() {
            for at in run.shard_counts.get(&Arc::as_ptr(&shard)).into_iter().flatten() {
                render::patch_shards(&mut out, *at, 1 + r.successful, r.failed.len() as u32);
            }
        }
    }
    let mut deferred = Deferred::default();
    for s in std::mem::take(&mut run.refreshed) {
        if d.refresh == Refresh::WaitFor {
            // Each shard's next refresh, waited for before the answer is sent. When one is
            // forced instead (too many waiters, or nobody refreshes within the limit),
            // OpenSearch marks the items `forced_refresh`; here they do not show it.
            deferred.wait_for_refresh(&s);
        } else {
            s.refresh()?;
        }
    }
    if !pending.is_empty() {
        out = splice_unavailable(&run, out, pending);
    }
    let ingest_took = run.ingest_nanos.map(|n| n / 1_000_000);
    Ok((render::body_with_ingest(start.elapsed().as_millis() as u64, ingest_took, errors, &out), deferred))
}

/// Inserts the rendered unavailable items at their offsets.
fn splice_unavailable(run: &Run, out: Vec<u8>, pending: Vec<Unavailable>) -> Vec<u8> {
    let mut full = Vec::with_capacity(out.len() + pending.len() * 256);
    let mut from = 0;
    for p in pending {
        full.extend_from_slice(&out[from..p.at]);
        from = p.at;
        let e = match run.checked.get(&p.shard) {
            Some(Err(s)) => {
                let count = run.per_shard.get(&p.shard).copied().unwrap_or(1);
                s.error(&active_shards::describe_shard_request(&s.index, s.shard, count, &p.describe, run.d.refresh))
            }
            _ => OsError::internal("shard availability was not recorded"),
        };
        render::failed(&mut full, p.op, &p.index, p.id.as_deref(), e.status, &e.to_json());
    }
    full.extend_from_slice(&out[from..]);
    full
}

fn fail(index: &str, id: Option<String>) -> impl FnOnce(OsError) -> Failure + '_ {
    move |error| Failure { index: index.to_string(), id, error }
}

#[allow(clippy::result_large_err)] // a failed item is an answer, not a rare path to keep small
fn run_item(run: &mut Run, item: &Item, index: &str) -> Result<Outcome, Failure> {
    let m = &item.meta;
    let d = run.d;
    let given_id = m.id.as_deref().map(str::to_string);
    // Before an id is assigned, failures show `""` for index items and `null` otherwise.
    let pre_id =
        || if item.op == OpType::Index { Some(given_id.clone().unwrap_or_default()) } else { given_id.clone() };
    let routing = m.routing().map(str::to_string).or_else(|| d.routing.clone());
    let require_alias = m.require_alias.unwrap_or(d.require_alias);
    let constraints = Constraints {
        if_seq_no: m.if_seq_no,
        if_primary_term: m.if_primary_term,
        version: m.version,
        version_type: parse_version_type(m.version_type.as_deref()).map_err(fail(index, pre_id()))?,
        create: item.op == OpType::Create || m.op_type.as_deref() == Some("create"),
    };
    match item.op {
        OpType::Index | OpType::Create => {
            let source = item.source.unwrap_or_default();
            // Content detection (OpenSearch's XContentFactory) needs an object's opening brace;
            // malformed JSON after it is the document parser's `json_parse_exception`.
            if source.iter().find(|b| !b.is_ascii_whitespace()) != Some(&b'{') {
                let e = OsError::new(ErrorKind::MapperParsing, "failed to parse").caused_by(OsError::new(
                    ErrorKind::NotXContent,
                    "Compressor detection can only be called on some xcontent bytes or compressed xcontent bytes",
                ));
                return Err(fail(index, pre_id())(e));
            }
            let version_type = match constraints.version_type {
                VersionType::Internal => None,
                VersionType::External => Some("external"),
                VersionType::ExternalGte => Some("external_gte"),
            };
            let w = ingest::WriteDoc {
                index,
                id: given_id.as_deref(),
                routing: routing.as_deref(),
                version: constraints.version,
                version_type,
                op_type: Some(if constraints.create { "create" } else { "index" }),
                source,
            };
            let ingest_start = Instant::now();
            let ingested = ingest::run_for_write(run.cs, &w, m.pipeline.as_deref().or(d.pipeline.as_deref()))
                .map_err(fail(index, pre_id()))?;
            let owned_index;
            let owned_source;
            let (mut constraints, mut given_id, mut routing) = (constraints, given_id.clone(), routing);
            let mut index = index;
            let mut source = source;
            if let Some(g) = ingested {
                run.ingest_nanos = Some(run.ingest_nanos.unwrap_or(0) + ingest_start.elapsed().as_nanos() as u64);
                if g.dropped {
                    return Ok(Outcome::Dropped { index: index.to_string(), id: given_id.unwrap_or_default() });
                }
                owned_index = g.index;
                index = &owned_index;
                given_id = g.id;
                routing = g.routing;
                owned_source = g.source;
                source = &owned_source;
                if g.op_type.as_deref() == Some("create") {
                    constraints.create = true;
                }
            }
            let (svc, total) = run.target(index, require_alias).map_err(fail(index, pre_id()))?;
            let (id, auto) = assign_id(given_id.clone(), &constraints).map_err(fail(&svc.name, pre_id()))?;
            // From here on the item reports its (possibly generated) id.
            let shard = route_doc(&svc, &id, routing.as_deref()).map_err(fail(&svc.name, Some(id.clone())))?;
            if run.active_ok(&svc, &shard).is_err() {
                let describe = active_shards::describe_index(&svc.name, &id, source);
                return Ok(Outcome::Unavailable {
                    index: svc.name.clone(),
                    id: Some(id),
                    shard: Arc::as_ptr(&shard),
                    describe,
                });
            }
            let w = index_routed(run.cs, &svc, &shard, id.clone(), auto, routing, source.to_vec(), constraints)
                .map_err(fail(&svc.name, Some(id.clone())))?;
            let key = Arc::as_ptr(&shard);
            run.wrote(shard, w);
            let (result, status) = if w.created_or_found { ("created", 201) } else { ("updated", 200) };
            Ok(Outcome::Written { index: svc, id, total, w, result, status, shard: key })
        }
        OpType::Delete => {
            let Some(id) = given_id.clone() else {
                return Err(fail(index, None)(OsError::validation(&["id is missing".into()])));
            };
            let (svc, total) = run.target(index, require_alias).map_err(fail(index, Some(id.clone())))?;
            let shard = route_doc(&svc, &id, routing.as_deref()).map_err(fail(&svc.name, Some(id.clone())))?;
            if run.active_ok(&svc, &shard).is_err() {
                let describe = active_shards::describe_delete(&svc.name, &id);
                return Ok(Outcome::Unavailable {
                    index: svc.name.clone(),
                    id: Some(id),
                    shard: Arc::as_ptr(&shard),
                    describe,
                });
            }
            let w = delete_routed(&svc, &shard, &id, constraints).map_err(fail(&svc.name, Some(id.clone())))?;
            let key = Arc::as_ptr(&shard);
            run.wrote(shard, w);
            let (result, status) = if w.created_or_found { ("deleted", 200) } else { ("not_found", 404) };
            Ok(Outcome::Written { index: svc, id, total, w, result, status, shard: key })
        }
        OpType::Update => {
            let Some(id) = given_id.clone() else {
                return Err(fail(index, None)(OsError::validation(&["id is missing".into()])));
            };
            let failed = fail(index, Some(id.clone()));
            let body: Value = match serde_json::from_slice(item.source.unwrap_or_default()) {
                Ok(b) => b,
                Err(e) => return Err(failed(OsError::from(e))),
            };
            let mut req = UpdateRequest {
                index: index.to_string(),
                id: id.clone(),
                routing: routing.clone(),
                retry_on_conflict: m.retry_on_conflict.unwrap_or(0) as u32,
                if_seq_no: constraints.if_seq_no,
                if_primary_term: constraints.if_primary_term,
                require_alias,
                source: d.source.clone(),
                wait: ActiveWait { want: ActiveShardCount::Count(0), timeout: d.wait.timeout },
                pipeline: m.pipeline.as_deref().or(d.pipeline.as_deref()).map(str::to_string),
                ..Default::default()
            };
            if let Err(e) = req.apply_body(&body) {
                return Err(fail(index, Some(id))(e));
            }
            if let Some(s) = &m.source_filter {
                match super::source_filter::SourceFilter::from_json(s) {
                    Ok(f) => req.source = Some(f),
                    Err(e) => return Err(fail(index, Some(id))(OsError::parsing(e))),
                }
            }
            if let Ok((svc, _)) = run.target(index, require_alias) {
                let shard =
                    svc.route(routing.as_deref().unwrap_or(&id)).map_err(fail(index, Some(id.clone())))?.clone();
                if run.active_ok(&svc, &shard).is_err() {
                    let describe = active_shards::describe_update(&svc.name, &req);
                    return Ok(Outcome::Unavailable {
                        index: svc.name.clone(),
                        id: Some(id),
                        shard: Arc::as_ptr(&shard),
                        describe,
                    });
                }
            }
            let (outcome, get) = update::update(run.cs, &req).map_err(fail(index, Some(id.clone())))?;
            // Updates synced inside the update action already; the entry only drives refresh.
            if d.refresh != Refresh::False && outcome.write.is_some() {
                if let Some(shard) =
                    run.cs.index(&outcome.index).ok().and_then(|svc| svc.route(routing.as_deref().unwrap_or(&id)).ok())
                {
                    if !run.refreshed.iter().any(|s| Arc::ptr_eq(s, &shard)) {
                        run.refreshed.push(shard);
                    }
                }
            }
            Ok(Outcome::Updated(outcome, get))
        }
    }
}
