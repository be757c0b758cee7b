//! Points in time whose shards are spread over nodes. Creating one opens a reader context on
//! the node holding the chosen copy of each shard ([`super::remote_contexts`]), then names the
//! PIT id on each (OpenSearch's two phases of `CreatePitController`); the id lists, per shard,
//! the node and its context number. A search with the id sends each node its shards' contexts
//! (`indices:data/read/search[phase/query+fetch/id]`, extending their keep alive) and merges the
//! node results as a search across nodes does; listing and deleting ask every node.

use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use super::context::{self, FailedShard};
use super::node_result::{self, FailureEntry, NodeResult};
use super::pit::{self, context_missing, decode_pit_id, prepend, ContextId, ContextKind, CreatePit, ReaderContexts};
use super::remote::{self, NodeShards, WireResult};
use super::remote_contexts::{self as rc, Contexts, CreateContext, Created, UpdateContext};
use super::request::SearchRequest;
use crate::clock::now_millis;
use crate::cluster::resolve::IndicesOptions;
use crate::cluster::ClusterService;
use crate::error::{ErrorKind, OsError, OsResult};

/// A node's query+fetch over its contexts of a PIT.
pub const ACTION_PIT_QUERY: &str = "indices:data/read/search[phase/query+fetch/id]";
/// A node's live PITs (the node-level part of `GET _search/point_in_time/_all`).
pub const ACTION_LIST_PITS: &str = "indices:data/read/point_in_time/readall[n]";

/// One node's part of a search with a PIT.
#[derive(Debug, Serialize, Deserialize)]
pub struct PitQuery {
    pub shards: Vec<pit::ShardRef>,
    /// Each shard's place among the PIT's shards (see [`SearchRequest::shard_ordinals`]).
    #[serde(default)]
    pub positions: Vec<usize>,
    pub keep_alive_ms: Option<u64>,
    pub req: SearchRequest,
}

/// A failure entry of shards that failed with `e` on `node`.
fn failures_of(e: &OsError, shards: &[(String, u32)], node: &str) -> NodeResult {
    let mut r = node_result::all_failed_result(e, shards);
    for f in r.failures.iter_mut() {
        if f.1.get("node").is_none_or(Value::is_null) {
            f.1["node"] = json!(node);
        }
    }
    r
}

/// Whether a node's error fails only its shards (unreachable, gone, or its shards failed).
fn shards_only(e: &OsError) -> bool {
    node_result::fails_shards_only(e) || matches!(e.kind, ErrorKind::IllegalState | ErrorKind::SearchContextMissing)
}

/// Frees what a failed creation opened (best effort: what is left expires with its keep alive).
fn cleanup(cs: &ClusterService, reg: &ReaderContexts, created: &[(String, Created)]) {
    let targets: Vec<(String, Contexts)> = created
        .iter()
        .filter(|c| !c.1.shards.is_empty())
        .map(|(n, c)| (n.clone(), Contexts { pit: true, shards: c.shards.clone() }))
        .collect();
    for (r, (node, _)) in rc::on_nodes(cs, rc::ACTION_FREE_PIT_CONTEXT, &targets, &|q| rc::free(reg, q), &rc::no_node)
        .into_iter()
        .zip(&targets)
    {
        if let Err(e) = r {
            tracing::warn!(node = %node, error = %e.reason, "could not free the contexts of a failed PIT creation");
        }
    }
}

/// `POST /{targets}/_search/point_in_time` when some target shards are served by other nodes
/// (`remote`; `unavailable`: shards with no active copy).
#[allow(clippy::too_many_arguments)]
pub fn create(
    cs: &ClusterService,
    reg: &ReaderContexts,
    expr: &str,
    opts: IndicesOptions,
    p: &CreatePit,
    keep_alive: Duration,
    remote: Vec<NodeShards>,
    unavailable: Vec<FailedShard>,
) -> OsResult<Value> {
    let mut local = context::acquire(cs, expr, opts)?;
    context::restrict(cs, &mut local, p.routing.as_deref(), None)?;
    // Shards whose chosen copy is on another node, or that no copy fits, are not read here.
    local.retain(|c| !remote::read_elsewhere(&remote, &unavailable, &c.index, c.shard));
    let mut groups: Vec<NodeShards> =
        vec![(cs.node.node_id.clone(), local.iter().map(|c| (c.index.clone(), c.shard)).collect())];
    drop(local);
    groups.extend(remote);
    let targets: Vec<(String, CreateContext)> = groups
        .iter()
        .filter(|g| !g.1.is_empty())
        .map(|(n, shards)| {
            let q = CreateContext {
                expr: expr.to_string(),
                shards: shards.clone(),
                pit: true,
                keep_alive_ms: keep_alive.as_millis() as u64,
                request: None,
            };
            (n.clone(), q)
        })
        .collect();
    let answers = rc::on_nodes(cs, rc::ACTION_CREATE_CONTEXT, &targets, &|q| rc::create(cs, reg, q), &rc::no_node);
    let total = unavailable.len() + targets.iter().map(|t| t.1.shards.len()).sum::<usize>();
    let mut failures: Vec<FailureEntry> = Vec::new();
    let mut failed = unavailable.len();
    let mut open = json!({});
    context::add_failed(&mut open, &unavailable);
    failures.extend(open["failures"].as_array().into_iter().flatten().map(|f| (503, f.clone())));
    let mut created: Vec<(String, Created)> = Vec::new();
    let mut fatal: Option<OsError> = None;
    for (r, (node, q)) in answers.into_iter().zip(&targets) {
        match r {
            Ok(c) => {
                let mut f = json!({});
                context::add_failed(&mut f, &c.failed);
                failures.extend(f["failures"].as_array().into_iter().flatten().map(|f| (503, f.clone())));
                failed += c.failed.len();
                created.push((node.clone(), c));
            }
            Err(e) if shards_only(&e) => {
                failed += q.shards.len();
                failures.extend(failures_of(&e, &q.shards, node).failures);
            }
            Err(e) => fatal = fatal.or(Some(e)),
        }
    }
    let opened: usize = created.iter().map(|c| c.1.shards.len()).sum();
    let phase_error = |reason: &str| {
        let mut e = node_result::all_failed(&failures);
        e.reason = reason.to_string();
        e.with("phase", "create_pit")
    };
    let err = match fatal {
        Some(e) => Some(e),
        None if opened == 0 => Some(phase_error("all shards failed")),
        None if failed > 0 && !p.allow_partial => Some(phase_error("Partial shards failure")),
        None => None,
    };
    if let Some(e) = err {
        cleanup(cs, reg, &created);
        return Err(e);
    }
    let mut shards: Vec<pit::ShardRef> = created.iter().flat_map(|c| c.1.shards.iter().cloned()).collect();
    shards.sort_by(|a, b| (&a.index, a.shard).cmp(&(&b.index, b.shard)));
    let id = ContextId { kind: ContextKind::Pit, shards }.encode();
    let creation_time = now_millis();
    let updates: Vec<(String, UpdateContext)> = created
        .iter()
        .map(|(n, c)| {
            let contexts = c.shards.iter().map(|s| s.context).collect();
            (n.clone(), UpdateContext { contexts, owner: id.clone(), created_ms: creation_time })
        })
        .collect();
    let answers = rc::on_nodes(cs, rc::ACTION_UPDATE_CONTEXT, &updates, &|q| rc::update(reg, q), &rc::no_node);
    for (r, (node, _)) in answers.into_iter().zip(&updates) {
        if let Err(e) = r {
            cleanup(cs, reg, &created);
            return Err(OsError::new(
                ErrorKind::Exception,
                format!("Create pit update phase for PIT ID [{id}] failed on node[{node}]"),
            )
            .caused_by(e));
        }
    }
    let mut shards_json = json!({"total": total, "successful": total - failed, "skipped": 0, "failed": failed});
    if failed > 0 {
        shards_json["failures"] = Value::Array(failures.into_iter().map(|f| f.1).collect());
    }
    Ok(json!({"pit_id": id, "_shards": shards_json, "creation_time": creation_time}))
}

/// The receiving side of [`ACTION_PIT_QUERY`] (and this node's own part): the query+fetch of
/// the node's contexts; contexts that are gone are failed shards.
pub fn query(cs: &ClusterService, reg: &ReaderContexts, q: &PitQuery) -> OsResult<WireResult> {
    let mut req = q.req.clone();
    if let (Some(a), None) = (&req.aggs_source, &req.aggs) {
        req.aggs = Some(std::sync::Arc::new(super::aggs::parse::parse_aggs(a)?));
    }
    let id = ContextId { kind: ContextKind::Pit, shards: q.shards.clone() };
    let found = reg.find(&id, q.keep_alive_ms.map(Duration::from_millis));
    req.shard_ordinals = Some(rc::ordinals(&q.shards, &q.positions, &found.missing));
    let mut r = if found.contexts.is_empty() {
        NodeResult::default()
    } else {
        super::execute::node_search(&found.contexts, &req)?
    };
    for s in &found.missing {
        let reason = context_missing(s.context).to_json();
        r.failures.push((404, json!({"shard": s.shard, "index": s.index, "node": cs.node.node_id, "reason": reason})));
    }
    r.shards += found.missing.len();
    r.failed += found.missing.len();
    Ok(remote::to_wire(r, req.warnings.take()))
}

/// `_search` with a PIT: on this node alone when every context is here, else across nodes.
pub fn search(cs: &ClusterService, reg: &ReaderContexts, p: &Value, req: &SearchRequest) -> OsResult<Value> {
    let (id, keep_alive) = pit::pit_params(p)?;
    let decoded = decode_pit_id(id)?;
    if !rc::spans_nodes(cs, &decoded) {
        return pit::search(reg, p, req);
    }
    remote::refuse_contexts_across_nodes(req)?;
    let start = Instant::now();
    let mut sub = req.clone();
    sub.from = 0;
    sub.size = req.from.saturating_add(req.size);
    sub.total_shards = Some(decoded.shards.len());
    let targets: Vec<(String, PitQuery)> = decoded
        .by_node()
        .into_iter()
        .map(|(n, c)| {
            let q = PitQuery {
                positions: rc::positions(&decoded, &c.shards),
                shards: c.shards,
                keep_alive_ms: keep_alive.map(|k| k.as_millis() as u64),
                req: sub.clone(),
            };
            (n, q)
        })
        .collect();
    let answers = rc::on_nodes(cs, ACTION_PIT_QUERY, &targets, &|q| query(cs, reg, q), &rc::no_node);
    let mut parts = Vec::with_capacity(answers.len());
    for (r, (node, q)) in answers.into_iter().zip(&targets) {
        match r {
            Ok(w) => parts.push(remote::from_wire(w, req)),
            Err(e) if shards_only(&e) => {
                let shards: Vec<(String, u32)> = q.shards.iter().map(|s| (s.index.clone(), s.shard)).collect();
                parts.push(failures_of(&e, &shards, node));
            }
            Err(e) => return Err(e),
        }
    }
    let body = node_result::finish(parts, req, start, false)?.into_value();
    Ok(prepend(body, "pit_id", json!(id)))
}

/// The receiving side of [`ACTION_LIST_PITS`].
pub fn list_local(reg: &ReaderContexts) -> OsResult<Vec<(String, i64, u64)>> {
    Ok(reg.list_pits())
}

/// `GET /_search/point_in_time/_all`: every node's PITs (each once); `(status, body)` with the
/// nodes that did not answer under `failures` (500 when no PIT is listed then).
pub fn list(cs: &ClusterService, reg: &ReaderContexts) -> (u16, Value) {
    if !rc::has_other_nodes(cs) {
        return (200, pit::list(reg));
    }
    let targets: Vec<(String, ())> = rc::all_nodes(cs).into_iter().map(|n| (n, ())).collect();
    let answers = rc::on_nodes(cs, ACTION_LIST_PITS, &targets, &|_| list_local(reg), &rc::no_node);
    let mut pits: Vec<Value> = Vec::new();
    let mut failures: Vec<Value> = Vec::new();
    for (r, (node, _)) in answers.into_iter().zip(&targets) {
        match r {
            Ok(list) => {
                for (id, created, keep_alive) in list {
                    if !pits.iter().any(|p| p["pit_id"] == id.as_str()) {
                        pits.push(json!({"pit_id": id, "creation_time": created, "keep_alive": keep_alive}));
                    }
                }
            }
            Err(e) => failures.push(json!({ node.as_str(): format!("Failed node [{node}]; {}", e.reason) })),
        }
    }
    let status = if !failures.is_empty() && pits.is_empty() { 500 } else { 200 };
    let mut body = json!({});
    if !failures.is_empty() {
        body["failures"] = Value::Array(failures);
    }
    body["pits"] = Value::Array(pits);
    (status, body)
}

/// `DELETE /_search/point_in_time`: each PIT's contexts freed on their nodes; a PIT with a
/// node that could not be asked is not `successful`.
pub fn delete(cs: &ClusterService, reg: &ReaderContexts, ids: &[String]) -> OsResult<Value> {
    let decoded: Vec<ContextId> = ids.iter().map(|i| decode_pit_id(i)).collect::<OsResult<_>>()?;
    if !decoded.iter().any(|d| rc::spans_nodes(cs, d)) {
        return pit::delete(reg, ids);
    }
    let mut targets: Vec<(String, Contexts)> = Vec::new();
    for d in &decoded {
        for (node, c) in d.by_node() {
            match targets.iter_mut().find(|t| t.0 == node) {
                Some(t) => t.1.shards.extend(c.shards),
                None => targets.push((node, Contexts { pit: true, shards: c.shards })),
            }
        }
    }
    let answers = rc::on_nodes(cs, rc::ACTION_FREE_PIT_CONTEXT, &targets, &|q| rc::free(reg, q), &rc::no_node);
    let failed_nodes: Vec<&str> =
        answers.iter().zip(&targets).filter(|(r, _)| r.is_err()).map(|(_, t)| t.0.as_str()).collect();
    let pits: Vec<Value> = ids
        .iter()
        .zip(&decoded)
        .map(|(id, d)| {
            let ok = !d.shards.iter().any(|s| failed_nodes.contains(&s.node.as_str()));
            json!({"successful": ok, "pit_id": id})
        })
        .collect();
    Ok(json!({ "pits": pits }))
}

/// `DELETE /_search/point_in_time/_all`: every node frees its PITs.
pub fn delete_all(cs: &ClusterService, reg: &ReaderContexts) -> OsResult<Value> {
    if !rc::has_other_nodes(cs) {
        return Ok(pit::delete_all(reg));
    }
    let targets: Vec<(String, ())> = rc::all_nodes(cs).into_iter().map(|n| (n, ())).collect();
    let answers =
        rc::on_nodes(cs, rc::ACTION_FREE_ALL_PIT_CONTEXTS, &targets, &|_| rc::free_all_pits(reg), &rc::no_node);
    let mut pits: Vec<Value> = Vec::new();
    for r in answers {
        for (id, _) in r? {
            if !pits.iter().any(|p| p["pit_id"] == id.as_str()) {
                pits.push(json!({"successful": true, "pit_id": id}));
            }
        }
    }
    Ok(json!({ "pits": pits }))
}
