//! Scrolls whose shards are spread over nodes. Opening one creates a scroll context on the
//! node holding the chosen copy of each shard (with the request, kept by that node's cursor);
//! the scroll id names node and context per shard. Each page asks every node for its top
//! `size` hits after each shard's last emitted hit
//! (`indices:data/read/search[phase/query+fetch/scroll]`), merges them, and tells each node
//! which of its hits made the page (`indices:data/read/search[phase/fetch/id/scroll]`, carrying
//! the shards' new last emitted hits as OpenSearch's scroll fetch carries `lastEmittedDoc`), so
//! any node can serve the next page. The first page's totals are each node's, summed.

use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use super::context::{self, FailedShard};
use super::execute::LastHit;
use super::node_result::{self, NodeResult};
use super::pit::{context_missing, prepend, ContextId, ContextKind, ReaderContexts, ShardRef};
use super::remote::{self, NodeShards, WireResult, WireValue};
use super::remote_contexts::{self as rc, Contexts, CreateContext};
use super::request::SearchRequest;
use crate::cluster::resolve::{self, IndicesOptions};
use crate::cluster::ClusterService;
use crate::error::{ErrorKind, OsError, OsResult};

/// A node's next page of its scroll contexts.
pub const ACTION_SCROLL_QUERY: &str = "indices:data/read/search[phase/query+fetch/scroll]";
/// The hits of a node that made a page: its shards' new last emitted hits.
pub const ACTION_SCROLL_EMITTED: &str = "indices:data/read/search[phase/fetch/id/scroll]";

/// One node's part of a scroll page.
#[derive(Debug, Serialize, Deserialize)]
pub struct ScrollQuery {
    pub shards: Vec<ShardRef>,
    /// Each shard's place among the scroll's shards (see [`SearchRequest::shard_ordinals`]).
    #[serde(default)]
    pub positions: Vec<usize>,
    pub keep_alive_ms: Option<u64>,
    pub rest_total_hits_as_int: Option<bool>,
}

/// A hit's place in its shard, as sent between nodes.
#[derive(Debug, Serialize, Deserialize)]
pub struct WireMark {
    index: String,
    shard: u32,
    values: Vec<WireValue>,
    segment: usize,
    doc: u32,
}

fn to_mark(m: LastHit) -> WireMark {
    WireMark {
        index: m.unit.0,
        shard: m.unit.1,
        values: m.values.into_iter().map(remote::to_wire_value).collect(),
        segment: m.segment,
        doc: m.doc,
    }
}

/// A node's page: its hits (each with its mark), and the scroll's request (`None` when none
/// of its contexts is left).
#[derive(Debug, Serialize, Deserialize)]
pub struct ScrollAnswer {
    pub result: WireResult,
    pub marks: Vec<Option<WireMark>>,
    pub request: Option<SearchRequest>,
}

/// The shards of a node whose hits made a page, with their last emitted hits.
#[derive(Debug, Serialize, Deserialize)]
pub struct Emitted {
    pub shards: Vec<ShardRef>,
    pub marks: Vec<WireMark>,
}

/// A scroll's shard failure for a node not in the cluster (OpenSearch's
/// `SearchScrollAsyncAction`).
fn not_available(node: &str) -> OsError {
    OsError::new(ErrorKind::IllegalState, format!("node [{node}] is not available")).status(500)
}

/// The receiving side of [`ACTION_SCROLL_QUERY`] (and this node's own part): the node's top
/// `size` hits after its shards' last emitted ones. The page's totals are recorded (the first
/// page's stay); the last emitted hits move only with [`emitted`].
pub fn query(cs: &ClusterService, reg: &ReaderContexts, q: &ScrollQuery) -> OsResult<ScrollAnswer> {
    let id = ContextId { kind: ContextKind::Scroll, shards: q.shards.clone() };
    let found = reg.find(&id, q.keep_alive_ms.map(Duration::from_millis));
    let missing = |r: &mut NodeResult| {
        for s in &found.missing {
            let reason = context_missing(s.context).to_json();
            r.failures
                .push((404, json!({"shard": s.shard, "index": s.index, "node": cs.node.node_id, "reason": reason})));
        }
        r.shards += found.missing.len();
        r.failed += found.missing.len();
    };
    let Some(cursor) = found.cursor.clone() else {
        let mut r = NodeResult::default();
        missing(&mut r);
        return Ok(ScrollAnswer { result: remote::to_wire(r, vec![]), marks: vec![], request: None });
    };
    let mut cur = cursor.lock().unwrap_or_else(|e| e.into_inner());
    let mut req = cur.request.clone();
    if let Some(b) = q.rest_total_hits_as_int {
        req.rest_total_hits_as_int = b;
    }
    req.shard_ordinals = Some(rc::ordinals(&q.shards, &q.positions, &found.missing));
    let mut state = cur.state.clone();
    let mut r = super::execute::node_search_scroll(&found.contexts, &req, &mut state)?;
    cur.state.total = state.total;
    cur.state.max_score = state.max_score;
    drop(cur);
    missing(&mut r);
    let marks = r.hits.iter_mut().map(|h| h.mark.take().map(to_mark)).collect();
    let request = Some(req.clone());
    Ok(ScrollAnswer { result: remote::to_wire(r, req.warnings.take()), marks, request })
}

/// The receiving side of [`ACTION_SCROLL_EMITTED`]: moves the shards' last emitted hits.
pub fn emitted(reg: &ReaderContexts, e: &Emitted) -> OsResult<()> {
    let found = reg.find(&ContextId { kind: ContextKind::Scroll, shards: e.shards.clone() }, None);
    let Some(cursor) = found.cursor else {
        return Err(context_missing(e.shards.first().map_or(0, |s| s.context)));
    };
    let mut cur = cursor.lock().unwrap_or_else(|e| e.into_inner());
    for m in &e.marks {
        cur.state.emitted(LastHit {
            unit: (m.index.clone(), m.shard),
            values: m.values.iter().map(remote::from_wire_value_ref).collect(),
            segment: m.segment,
            doc: m.doc,
        });
    }
    Ok(())
}

/// `_search?scroll=` when some target shards are served by other nodes (`remote`;
/// `unavailable`: shards with no active copy). `req` is validated already.
#[allow(clippy::too_many_arguments)]
pub fn start(
    cs: &ClusterService,
    reg: &ReaderContexts,
    expr: &str,
    opts: IndicesOptions,
    req: &SearchRequest,
    keep_alive: Duration,
    remote: Vec<NodeShards>,
    unavailable: Vec<FailedShard>,
) -> OsResult<Value> {
    remote::refuse_contexts_across_nodes(req)?;
    let window = batch_window(cs, expr, opts)?;
    if req.size > window {
        return Err(OsError::illegal(format!(
            "Batch size is too large, size must be less than or equal to: [{window}] but was [{}]. Scroll batch sizes cost as much memory as result windows so they are controlled by the [index.max_result_window] index level setting.",
            req.size
        )));
    }
    let mut local = context::acquire(cs, expr, opts)?;
    context::restrict(cs, &mut local, req.routing.as_deref(), req.preference.as_deref())?;
    // Shards whose chosen copy is on another node, or that no copy fits, are not read here.
    local.retain(|c| !remote::read_elsewhere(&remote, &unavailable, &c.index, c.shard));
    let mut groups: Vec<NodeShards> =
        vec![(cs.node.node_id.clone(), local.iter().map(|c| (c.index.clone(), c.shard)).collect())];
    drop(local);
    groups.extend(remote);
    let targets: Vec<(String, CreateContext)> = groups
        .into_iter()
        .filter(|g| !g.1.is_empty())
        .map(|(n, shards)| {
            let q = CreateContext {
                expr: expr.to_string(),
                shards,
                pit: false,
                keep_alive_ms: keep_alive.as_millis() as u64,
                request: Some(req.clone()),
            };
            (n, q)
        })
        .collect();
    let answers = rc::on_nodes(cs, rc::ACTION_CREATE_CONTEXT, &targets, &|q| rc::create(cs, reg, q), &not_available);
    let mut failed = unavailable;
    let mut shards: Vec<ShardRef> = Vec::new();
    let mut fatal = None;
    let mut node_failures: Vec<NodeResult> = Vec::new();
    for (r, (node, q)) in answers.into_iter().zip(&targets) {
        match r {
            Ok(c) => {
                shards.extend(c.shards);
                failed.extend(c.failed);
            }
            Err(e) if node_result::fails_shards_only(&e) || e.kind == ErrorKind::IllegalState => {
                let mut r = node_result::all_failed_result(&e, &q.shards);
                for f in r.failures.iter_mut() {
                    f.1["node"] = json!(node);
                }
                node_failures.push(r);
            }
            Err(e) => fatal = fatal.or(Some(e)),
        }
    }
    let id = ContextId { kind: ContextKind::Scroll, shards };
    if let Some(e) = fatal {
        free(cs, reg, &id);
        return Err(e);
    }
    let mut extra = node_failures;
    if !failed.is_empty() {
        extra.push(remote::failed_open(&failed));
    }
    let scroll_id = id.encode();
    let r = page(cs, reg, &id, None, None, extra);
    if r.is_err() {
        free(cs, reg, &id);
    }
    Ok(prepend(r?, "_scroll_id", json!(scroll_id)))
}

/// The smallest `index.max_result_window` of the indices `expr` resolves to.
fn batch_window(cs: &ClusterService, expr: &str, opts: IndicesOptions) -> OsResult<usize> {
    let md = cs.metadata();
    let mut window = context::DEFAULT_MAX_RESULT_WINDOW;
    for name in resolve::resolve(&md, expr, opts)? {
        if let Some(s) = md.indices.get(&name).and_then(|m| m.setting("index.max_result_window")) {
            let w = s.parse::<usize>().map_err(|_| {
                OsError::illegal(format!("Failed to parse value [{s}] for setting [index.max_result_window]"))
            })?;
            window = window.min(w);
        }
    }
    Ok(window)
}

/// `/_search/scroll`: on this node alone when every context is here, else across nodes.
pub fn next(
    cs: &ClusterService,
    reg: &ReaderContexts,
    scroll_id: &str,
    keep_alive: Option<Duration>,
    rest_total_hits_as_int: Option<bool>,
) -> OsResult<Value> {
    let id = super::scroll::decode(scroll_id)?;
    if !rc::spans_nodes(cs, &id) {
        return super::scroll::next(reg, scroll_id, keep_alive, rest_total_hits_as_int);
    }
    if let Some(k) = keep_alive {
        super::pit::check_keep_alive(k, "search.max_keep_alive")?;
    }
    let body = page(cs, reg, &id, keep_alive, rest_total_hits_as_int, vec![])?;
    Ok(prepend(body, "_scroll_id", json!(scroll_id)))
}

/// One page of a scroll across nodes; `extra`: shards that failed when it opened.
fn page(
    cs: &ClusterService,
    reg: &ReaderContexts,
    id: &ContextId,
    keep_alive: Option<Duration>,
    rest_total_hits_as_int: Option<bool>,
    extra: Vec<NodeResult>,
) -> OsResult<Value> {
    let start = Instant::now();
    let targets: Vec<(String, ScrollQuery)> = id
        .by_node()
        .into_iter()
        .map(|(n, c)| {
            let q = ScrollQuery {
                positions: rc::positions(id, &c.shards),
                shards: c.shards,
                keep_alive_ms: keep_alive.map(|k| k.as_millis() as u64),
                rest_total_hits_as_int,
            };
            (n, q)
        })
        .collect();
    let answers = rc::on_nodes(cs, ACTION_SCROLL_QUERY, &targets, &|q| query(cs, reg, q), &not_available);
    let mut req: Option<SearchRequest> = None;
    // The nodes that answered: (their target, result, each hit's mark).
    let mut answered: Vec<(usize, WireResult, Vec<Option<WireMark>>)> = Vec::new();
    let mut failed_parts = extra;
    for (i, (r, (node, q))) in answers.into_iter().zip(&targets).enumerate() {
        match r {
            Ok(a) => {
                if req.is_none() {
                    req = a.request;
                }
                answered.push((i, a.result, a.marks));
            }
            Err(e) if node_result::fails_shards_only(&e) || e.kind == ErrorKind::IllegalState => {
                let shards: Vec<(String, u32)> = q.shards.iter().map(|s| (s.index.clone(), s.shard)).collect();
                let mut r = node_result::all_failed_result(&e, &shards);
                for f in r.failures.iter_mut() {
                    f.1["node"] = json!(node);
                }
                failed_parts.push(r);
            }
            Err(e) => return Err(e),
        }
    }
    let Some(mut req) = req else {
        // No node holds the scroll's contexts any more: every shard failed.
        let none = SearchRequest::default();
        let mut failures = Vec::new();
        for (_, w, _) in answered {
            failures.extend(remote::from_wire(w, &none).failures);
        }
        for p in failed_parts {
            failures.extend(p.failures);
        }
        return Err(node_result::all_failed(&failures));
    };
    if let Some(b) = rest_total_hits_as_int {
        req.rest_total_hits_as_int = b;
    }
    if let (Some(a), None) = (&req.aggs_source, &req.aggs) {
        req.aggs = Some(std::sync::Arc::new(super::aggs::parse::parse_aggs(a)?));
    }
    let mut parts: Vec<NodeResult> = Vec::with_capacity(answered.len() + failed_parts.len());
    let mut marks_of: Vec<(usize, Vec<Option<WireMark>>)> = Vec::new();
    for (i, w, marks) in answered {
        parts.push(remote::from_wire(w, &req));
        marks_of.push((i, marks));
    }
    parts.extend(failed_parts);
    // Each node's hits that made the page are a prefix of its hits: their last per shard is
    // where that shard continues.
    let counts = node_result::page_counts(&parts, &req);
    let mut emits: Vec<(String, Emitted)> = Vec::new();
    for ((i, marks), n) in marks_of.into_iter().zip(counts) {
        let mut last: Vec<WireMark> = Vec::new();
        for m in marks.into_iter().take(n).flatten() {
            match last.iter_mut().find(|l| l.index == m.index && l.shard == m.shard) {
                Some(l) => *l = m,
                None => last.push(m),
            }
        }
        if !last.is_empty() {
            emits.push((targets[i].0.clone(), Emitted { shards: targets[i].1.shards.clone(), marks: last }));
        }
    }
    let told = rc::on_nodes(cs, ACTION_SCROLL_EMITTED, &emits, &|e| emitted(reg, e), &not_available);
    for (r, (node, _)) in told.into_iter().zip(&emits) {
        // A node that went away since it answered serves no next page: its shards fail then.
        if let Err(e) = r {
            tracing::warn!(node = %node, error = %e.reason, "could not record a scroll page's hits");
        }
    }
    Ok(node_result::finish(parts, &req, start, false)?.into_value())
}

/// Frees a scroll's contexts on their nodes (after a failed start).
fn free(cs: &ClusterService, reg: &ReaderContexts, id: &ContextId) {
    let targets: Vec<(String, Contexts)> =
        id.by_node().into_iter().map(|(n, c)| (n, Contexts { pit: false, shards: c.shards })).collect();
    for r in rc::on_nodes(cs, rc::ACTION_FREE_SCROLL_CONTEXT, &targets, &|q| rc::free(reg, q), &not_available) {
        if let Err(e) = r {
            tracing::warn!(error = %e.reason, "could not free the contexts of a failed scroll");
        }
    }
}

/// Clear scroll across nodes: `ids` or `_all`; `(status, {succeeded, num_freed})`, 404 when
/// nothing was freed. A node that cannot be asked makes `succeeded` false.
pub fn clear(cs: &ClusterService, reg: &ReaderContexts, ids: &[String]) -> OsResult<(u16, Value)> {
    let all = ids.iter().any(|i| i == "_all");
    if all && !rc::has_other_nodes(cs) {
        return super::scroll::clear(reg, ids);
    }
    let answers = if all {
        let targets: Vec<(String, ())> = rc::all_nodes(cs).into_iter().map(|n| (n, ())).collect();
        rc::on_nodes(cs, rc::ACTION_CLEAR_SCROLL_CONTEXTS, &targets, &|_| rc::clear_all_scrolls(reg), &not_available)
    } else {
        let decoded: Vec<ContextId> = ids.iter().map(|i| super::scroll::decode(i)).collect::<OsResult<_>>()?;
        if !decoded.iter().any(|d| rc::spans_nodes(cs, d)) {
            return super::scroll::clear(reg, ids);
        }
        let st = cs.state();
        let mut targets: Vec<(String, Contexts)> = Vec::new();
        for d in &decoded {
            // A node no longer in the cluster frees nothing (as OpenSearch's `ClearScrollController`).
            for (node, c) in d.by_node().into_iter().filter(|(n, _)| *n == cs.node.node_id || st.node(n).is_some()) {
                match targets.iter_mut().find(|t| t.0 == node) {
                    Some(t) => t.1.shards.extend(c.shards),
                    None => targets.push((node, Contexts { pit: false, shards: c.shards })),
                }
            }
        }
        rc::on_nodes(cs, rc::ACTION_FREE_SCROLL_CONTEXT, &targets, &|q| rc::free(reg, q), &not_available)
    };
    let mut freed = 0usize;
    let mut succeeded = true;
    for r in answers {
        match r {
            Ok(n) => freed += n,
            Err(_) => succeeded = false,
        }
    }
    Ok((if freed == 0 { 404 } else { 200 }, json!({"succeeded": succeeded, "num_freed": freed})))
}
