//! Searches and counts whose shards are spread over nodes (OpenSearch's query-then-fetch in its
//! simplest form, "query and fetch per node"): the coordinating node picks a copy of each target
//! shard (its own when it serves here, else an active copy elsewhere, the primary first), sends
//! each other node one `indices:data/read/search[phase/query+fetch]` for its shards with the
//! request's page widened to the top `from + size`, runs its own shards the same way, and merges
//! the node results ([`super::node_result::finish`]). The shards of a node that cannot be
//! reached are tried once more on another copy; those with none fail (partial results). Requests whose state lives on shards between requests (scroll, point
//! in time) run through their contexts (`remote_scroll.rs`, `remote_pit.rs`); those that need
//! global statistics first (`dfs_query_then_fetch`) run a dfs round before (`dfs_phase.rs`).

use std::sync::Arc;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use super::aggs::AggResult;
use super::body::{HitJson, SearchBody};
use super::context::{self, FailedShard, ShardContext};
use super::copy_choice::Choice;
use super::execute;
use super::node_result::{self, FailureEntry, MergeSort, NodeHit, NodeResult};
use super::request::SearchRequest;
use crate::cluster::resolve::{self, IndicesOptions};
use crate::cluster::ClusterService;
use crate::engine::query::SortValue;
use crate::error::{ErrorKind, OsError, OsResult};

/// The node-level query+fetch of a search (or count) across nodes.
pub const ACTION_QUERY_FETCH: &str = "indices:data/read/search[phase/query+fetch]";

const TIMEOUT: Duration = Duration::from_secs(300);

/// The shards of one node: `(index, shard)`.
pub type NodeShards = (String, Vec<(String, u32)>);

/// The target shards no copy on this node serves, grouped by the node holding the active copy
/// picked (the primary first), in the order of their first shard; and the shards with no active
/// copy anywhere. `preference=_only_local` keeps the search on this node.
pub fn remote_targets(
    cs: &ClusterService,
    expr: &str,
    opts: IndicesOptions,
    req: &SearchRequest,
) -> OsResult<(Vec<NodeShards>, Vec<FailedShard>)> {
    let mut groups: Vec<NodeShards> = Vec::new();
    let mut unavailable = Vec::new();
    let st = cs.state();
    let names = resolve::resolve(&st.metadata, expr, opts)?;
    cs.check_blocks(crate::cluster::blocks::Level::Read, &names.iter().map(String::as_str).collect::<Vec<_>>())?;
    let keep = context::shard_filter(cs, req.routing.as_deref(), req.preference.as_deref())?;
    let me = cs.node.node_id.as_str();
    let only_local = req.preference.as_deref().is_some_and(|p| p.ends_with("_only_local"));
    let weighting = super::copy_choice::Weighting::in_force(&st.metadata, || cs.cluster_settings(&st.metadata));
    super::copy_choice::check_preference(req.preference.as_deref(), weighting.as_ref())?;
    for name in names {
        let Ok(svc) = cs.index(&name) else { continue };
        for id in 0..svc.metadata().number_of_shards() {
            if !keep(&name, id) {
                continue;
            }
            let local = svc.shard(id).is_some();
            match super::copy_choice::choose(&st, me, &name, id, local, req.preference.as_deref(), weighting.as_ref()) {
                Choice::Local => {}
                Choice::Remote(node) => match groups.iter_mut().find(|g| g.0 == node) {
                    Some(g) => g.1.push((name.clone(), id)),
                    None => groups.push((node, vec![(name.clone(), id)])),
                },
                // `_only_local` leaves other nodes' shards out (as a node alone does).
                Choice::Nothing if only_local => {}
                Choice::Nothing => {
                    unavailable.push((name.clone(), id, format!("[{name}][{id}] no active copy of the shard")))
                }
            }
        }
    }
    Ok((groups, unavailable))
}

/// Whether shard `index`/`shard` is read elsewhere: its chosen copy is on another node
/// (`remote`), or no copy fits (`unavailable`). This node's copy is then not read.
pub fn read_elsewhere(remote: &[NodeShards], unavailable: &[FailedShard], index: &str, shard: u32) -> bool {
    remote.iter().any(|g| g.1.iter().any(|x| x.0 == index && x.1 == shard))
        || unavailable.iter().any(|u| u.0 == index && u.1 == shard)
}

/// Refuses what a search across nodes cannot answer correctly yet (a scroll or a point in time
/// across nodes runs through its contexts: `remote_scroll.rs`, `remote_pit.rs`).
pub fn refuse_across_nodes(req: &SearchRequest) -> OsResult<()> {
    refuse(req, false)
}

/// [`refuse_across_nodes`] for a PIT or scroll across nodes, whose `_shard_doc` values name the
/// shard's place in the id and whose slices pick shards by their number (only `routing` or
/// `preference` would make a slice depend on the shards each node searches).
pub fn refuse_contexts_across_nodes(req: &SearchRequest) -> OsResult<()> {
    refuse(req, true)
}

fn refuse(req: &SearchRequest, contexts: bool) -> OsResult<()> {
    let narrowed = req.routing.is_some() || req.preference.is_some();
    let what = if req.dfs && contexts {
        Some("[search_type=dfs_query_then_fetch]")
    } else if req.slice.is_some() && (!contexts || narrowed) {
        Some("[slice]")
    } else if contexts && req.collapse.as_ref().is_some_and(|c| !c.inner_hits.is_empty()) {
        Some("[collapse] with [inner_hits]")
    } else if !contexts && req.sort.iter().any(|s| s.field == "_shard_doc") {
        Some("[_shard_doc] sort")
    } else {
        None
    };
    match what {
        Some(w) => Err(OsError::illegal(format!(
            "{w} is not supported yet on a search whose shards are spread over several nodes"
        ))),
        None => Ok(()),
    }
}

#[derive(Debug, Serialize, Deserialize)]
struct WireSearch {
    expr: String,
    shards: Vec<(String, u32)>,
    req: SearchRequest,
    count: bool,
    /// `dfs_query_then_fetch`: the dfs round's summed statistics.
    #[serde(default)]
    dfs: Option<crate::engine::query::dfs::DfsStats>,
}

#[derive(Debug, Serialize, Deserialize)]
pub enum WireValue {
    F(u32),
    L(i64),
    D(u64),
    B(Vec<u8>),
    N,
}

#[derive(Debug, Serialize, Deserialize)]
struct WireHit {
    json: String,
    score: u32,
    sort: Vec<WireValue>,
    key: Option<Value>,
    #[serde(default)]
    shard: Option<(String, u32)>,
}

#[derive(Debug, Serialize, Deserialize)]
pub struct WireResult {
    hits: Vec<WireHit>,
    total: u64,
    total_gte: bool,
    max_score: Option<u32>,
    sort: Vec<(bool, bool, bool)>,
    /// Per sort field, whether it is an `unsigned_long`.
    #[serde(default)]
    unsigned: Vec<bool>,
    aggs: Vec<Vec<AggResult>>,
    /// With `"profile": true`: the node's shard profiles (`profile.shards[]` entries).
    #[serde(default)]
    profiles: Vec<Value>,
    timed_out: bool,
    terminated_early: Option<bool>,
    shards: usize,
    failed: usize,
    failures: Vec<FailureEntry>,
    /// The deprecation warnings the node's query parsers left.
    #[serde(default)]
    warnings: Vec<String>,
}

/// A sort value as sent between nodes (floats by their bits).
pub(super) fn to_wire_value(v: SortValue) -> WireValue {
    match v {
        SortValue::Float(f) => WireValue::F(f.to_bits()),
        SortValue::Long(l) => WireValue::L(l),
        SortValue::Double(d) => WireValue::D(d.to_bits()),
        SortValue::Bytes(b) => WireValue::B(b),
        SortValue::Null => WireValue::N,
    }
}

/// The sort value [`to_wire_value`] sent.
pub(super) fn from_wire_value(v: WireValue) -> SortValue {
    match v {
        WireValue::F(f) => SortValue::Float(f32::from_bits(f)),
        WireValue::L(l) => SortValue::Long(l),
        WireValue::D(d) => SortValue::Double(f64::from_bits(d)),
        WireValue::B(b) => SortValue::Bytes(b),
        WireValue::N => SortValue::Null,
    }
}

/// [`from_wire_value`] of a borrowed value.
pub(super) fn from_wire_value_ref(v: &WireValue) -> SortValue {
    match v {
        WireValue::F(f) => SortValue::Float(f32::from_bits(*f)),
        WireValue::L(l) => SortValue::Long(*l),
        WireValue::D(d) => SortValue::Double(f64::from_bits(*d)),
        WireValue::B(b) => SortValue::Bytes(b.clone()),
        WireValue::N => SortValue::Null,
    }
}

pub(super) fn to_wire(r: NodeResult, warnings: Vec<String>) -> WireResult {
    let value = to_wire_value;
    WireResult {
        hits: r
            .hits
            .into_iter()
            .map(|h| WireHit {
                json: match h.json {
                    HitJson::Raw(b) => String::from_utf8_lossy(&b).into_owned(),
                    HitJson::Value(v) => v.to_string(),
                },
                score: h.score.to_bits(),
                sort: h.sort_values.into_iter().map(value).collect(),
                key: h.key,
                shard: h.shard,
            })
            .collect(),
        total: r.total,
        total_gte: r.total_gte,
        max_score: r.max_score.map(f32::to_bits),
        sort: r.sort.iter().map(|s| (s.score, s.desc, s.missing_first)).collect(),
        unsigned: r.sort.iter().map(|s| s.unsigned).collect(),
        aggs: r.aggs,
        profiles: r.profiles,
        timed_out: r.timed_out,
        terminated_early: r.terminated_early,
        shards: r.shards,
        failed: r.failed,
        failures: r.failures,
        warnings,
    }
}

/// The node result, and the warnings it carried (added to `req`'s).
pub(super) fn from_wire(w: WireResult, req: &SearchRequest) -> NodeResult {
    for m in w.warnings {
        req.warnings.warn(m);
    }
    let value = from_wire_value;
    NodeResult {
        hits: w
            .hits
            .into_iter()
            .map(|h| NodeHit {
                json: HitJson::Raw(h.json.into_bytes()),
                score: f32::from_bits(h.score),
                sort_values: h.sort.into_iter().map(value).collect(),
                key: h.key,
                mark: None,
                shard: h.shard,
            })
            .collect(),
        total: w.total,
        total_gte: w.total_gte,
        max_score: w.max_score.map(f32::from_bits),
        sort: w
            .sort
            .into_iter()
            .enumerate()
            .map(|(i, (score, desc, missing_first))| MergeSort {
                score,
                desc,
                missing_first,
                unsigned: w.unsigned.get(i).copied().unwrap_or(false),
            })
            .collect(),
        aggs: w.aggs,
        profiles: w.profiles,
        timed_out: w.timed_out,
        terminated_early: w.terminated_early,
        shards: w.shards,
        failed: w.failed,
        failures: w.failures,
    }
}

/// The failures of shards that did not open here, as a node result (OpenSearch's "no shard
/// available" for a shard without a serving copy).
pub(super) fn failed_open(failed: &[FailedShard]) -> NodeResult {
    let mut shards = json!({});
    context::add_failed(&mut shards, failed);
    let failures = shards["failures"].as_array().cloned().unwrap_or_default().into_iter().map(|f| (503, f)).collect();
    NodeResult { shards: failed.len(), failed: failed.len(), failures, ..NodeResult::default() }
}

/// One node's answer, or the failure of its shards when the error is theirs only (listed with
/// the node's id when it is another node).
pub(super) fn node_outcome(
    r: OsResult<NodeResult>,
    shards: &[(String, u32)],
    node: Option<&str>,
) -> OsResult<NodeResult> {
    match r {
        Ok(mut r) => {
            // Shard failures on another node name it, as OpenSearch's shard failures do.
            if let Some(n) = node {
                for f in r.failures.iter_mut().filter(|f| f.1["node"].is_null()) {
                    f.1["node"] = json!(n);
                }
            }
            Ok(r)
        }
        Err(e) if node_result::fails_shards_only(&e) => {
            let mut r = node_result::all_failed_result(&e, shards);
            for f in r.failures.iter_mut().filter(|_| node.is_some()) {
                f.1["node"] = json!(node);
            }
            Ok(r)
        }
        Err(e) => Err(e),
    }
}

/// Whether a node-level search error means the node could not be reached (its shards may be
/// tried on other copies, as OpenSearch moves a failed shard to its next copy).
fn node_unreachable(e: &OsError) -> bool {
    matches!(e.kind, ErrorKind::ConnectTransport | ErrorKind::NodeDisconnected | ErrorKind::NodeNotConnected)
}

/// The shards of nodes that could not be reached, searched on the next active copy of each on
/// another node (one more round); a shard with no such copy fails with its node's error.
fn retry_on_next_copies(
    cs: &ClusterService,
    expr: &str,
    sub: &SearchRequest,
    req: &SearchRequest,
    unreachable: Vec<(String, Vec<(String, u32)>, OsError)>,
) -> OsResult<Vec<NodeResult>> {
    let st = cs.state();
    let me = cs.node.node_id.as_str();
    let weighting = super::copy_choice::Weighting::in_force(&st.metadata, || cs.cluster_settings(&st.metadata));
    let bad: Vec<&str> = unreachable.iter().map(|(n, _, _)| n.as_str()).collect();
    let mut groups: Vec<NodeShards> = Vec::new();
    let mut parts = Vec::new();
    for (node, shards, e) in &unreachable {
        let mut lost = Vec::new();
        for (index, shard) in shards {
            let next = super::copy_choice::candidates(
                &st,
                me,
                index,
                *shard,
                false,
                req.preference.as_deref(),
                weighting.as_ref(),
            )
            .into_iter()
            .find_map(|c| match c {
                Choice::Remote(n) if !bad.contains(&n.as_str()) => Some(n),
                _ => None,
            });
            match next {
                Some(n) => match groups.iter_mut().find(|g| g.0 == n) {
                    Some(g) => g.1.push((index.clone(), *shard)),
                    None => groups.push((n, vec![(index.clone(), *shard)])),
                },
                None => lost.push((index.clone(), *shard)),
            }
        }
        if !lost.is_empty() {
            parts.push(node_outcome(Err(e.clone()), &lost, Some(node))?);
        }
    }
    let ((), answers) = query_nodes(cs, expr, sub, req, &groups, || ());
    for (r, (node, shards)) in answers.into_iter().zip(&groups) {
        parts.push(node_outcome(r, shards, Some(node))?);
    }
    Ok(parts)
}

/// One query+fetch per node of `groups`, in parallel, while this thread runs `local`: `local`'s
/// answer and each node's result (its shards searched with `sub`, with the dfs round's
/// statistics when it has them), in `groups`' order.
fn query_nodes<T>(
    cs: &ClusterService,
    expr: &str,
    sub: &SearchRequest,
    req: &SearchRequest,
    groups: &[NodeShards],
    local: impl FnOnce() -> T,
) -> (T, Vec<OsResult<NodeResult>>) {
    std::thread::scope(|s| {
        let handles: Vec<_> = groups
            .iter()
            .map(|(node, shards)| {
                let w = WireSearch {
                    expr: expr.to_string(),
                    shards: shards.clone(),
                    req: sub.clone(),
                    count: false,
                    dfs: sub.dfs_stats.as_deref().cloned(),
                };
                s.spawn(move || {
                    send(cs, node, &w).and_then(|b| {
                        serde_json::from_slice::<WireResult>(&b)
                            .map(|w| from_wire(w, req))
                            .map_err(|e| OsError::internal(format!("malformed search answer: {e}")))
                    })
                })
            })
            .collect();
        let mine = local();
        let answers = handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|_| Err(OsError::internal("a search thread panicked"))))
            .collect();
        (mine, answers)
    })
}

fn send(cs: &ClusterService, node: &str, w: &WireSearch) -> OsResult<Vec<u8>> {
    let payload = serde_json::to_vec(w).map_err(|e| OsError::internal(e.to_string()))?;
    cs.send(node, ACTION_QUERY_FETCH, payload, TIMEOUT)
}

fn ids(ctxs: &[ShardContext]) -> Vec<(String, u32)> {
    ctxs.iter().map(|c| (c.index.clone(), c.shard)).collect()
}

/// A search whose shards are this node's `ctxs` (and `failed`, which did not open) and the
/// `remote` nodes' shards.
pub fn search(
    cs: &ClusterService,
    expr: &str,
    req: &SearchRequest,
    ctxs: Vec<ShardContext>,
    failed: Vec<FailedShard>,
    remote: Vec<NodeShards>,
) -> OsResult<SearchBody> {
    refuse_across_nodes(req)?;
    if req.scroll.is_some() || req.pit.is_some() {
        // Their own paths keep the contexts; a plain search across nodes would drop them.
        return Err(OsError::illegal("[scroll] and [point in time] searches run through their contexts"));
    }
    let start = Instant::now();
    let mut sub = req.clone();
    sub.from = 0;
    sub.size = req.from.saturating_add(req.size);
    sub.total_shards = Some(ctxs.len() + failed.len() + remote.iter().map(|g| g.1.len()).sum::<usize>());
    // `collapse` with `inner_hits`: the nodes return the group heads; their groups are searched
    // across nodes once the page is known.
    let expand = req.collapse.as_ref().filter(|c| !c.inner_hits.is_empty());
    let targets = expand.map(|_| super::remote_collapse::Targets {
        ctxs: ctxs.clone(),
        failed: failed.clone(),
        remote: remote.clone(),
    });
    if let Some(c) = &mut sub.collapse {
        c.inner_hits.clear();
    }
    // `dfs_query_then_fetch`: the dfs round first; shards whose round failed leave the query round.
    let mut dfs_failures = Vec::new();
    let (ctxs, remote) = if req.dfs {
        let g = super::dfs_phase::gather(cs, expr, req, &ctxs, &remote)?;
        sub.dfs_stats = Some(Arc::new(g.stats));
        dfs_failures = g.failures;
        let ctxs = if g.local_failed { Vec::new() } else { ctxs };
        (ctxs, remote.into_iter().filter(|(n, _)| !g.failed_nodes.contains(n)).collect::<Vec<_>>())
    } else {
        (ctxs, remote)
    };
    let (local, answers) =
        query_nodes(cs, expr, &sub, req, &remote, || (!ctxs.is_empty()).then(|| execute::node_search(&ctxs, &sub)));
    let mut parts = Vec::with_capacity(remote.len() + 2);
    if let Some(r) = local {
        parts.push(node_outcome(r, &ids(&ctxs), None)?);
    }
    if !failed.is_empty() {
        parts.push(failed_open(&failed));
    }
    let mut unreachable = Vec::new();
    for (r, (node, shards)) in answers.into_iter().zip(&remote) {
        match r {
            // A node that cannot be reached: its shards are tried on their next copies.
            Err(e) if node_unreachable(&e) && sub.dfs_stats.is_none() => {
                unreachable.push((node.clone(), shards.clone(), e))
            }
            r => parts.push(node_outcome(r, shards, Some(node))?),
        }
    }
    if !unreachable.is_empty() {
        parts.extend(retry_on_next_copies(cs, expr, &sub, req, unreachable)?);
    }
    parts.extend(dfs_failures);
    let mut body = node_result::finish(parts, req, start, false)?;
    if let (Some(c), Some(t)) = (expand, &targets) {
        super::remote_collapse::expand(cs, expr, req, c, t, &mut body)?;
        body.took = start.elapsed().as_millis() as u64;
    }
    Ok(body)
}

/// `_count` over this node's `ctxs` (and `failed`) and the `remote` nodes' shards: the counts and
/// the shard counts summed.
pub fn count(
    cs: &ClusterService,
    expr: &str,
    req: &SearchRequest,
    ctxs: Vec<ShardContext>,
    failed: Vec<FailedShard>,
    remote: Vec<NodeShards>,
) -> OsResult<Value> {
    let (local, answers) = std::thread::scope(|s| {
        let handles: Vec<_> = remote
            .iter()
            .map(|(node, shards)| {
                let w = WireSearch {
                    expr: expr.to_string(),
                    shards: shards.clone(),
                    req: req.clone(),
                    count: true,
                    dfs: None,
                };
                s.spawn(move || {
                    send(cs, node, &w).and_then(|b| {
                        serde_json::from_slice::<Value>(&b)
                            .map_err(|e| OsError::internal(format!("malformed count answer: {e}")))
                    })
                })
            })
            .collect();
        let local = (!ctxs.is_empty()).then(|| super::count::count_contexts(&ctxs, req));
        let answers: Vec<OsResult<Value>> = handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|_| Err(OsError::internal("a count thread panicked"))))
            .collect();
        (local, answers)
    });
    let mut parts: Vec<(Value, Vec<(String, u32)>)> = Vec::new();
    if let Some(r) = local {
        parts.push((r.or_else(|e| count_failure(e, &ids(&ctxs)))?, ids(&ctxs)));
    }
    if !failed.is_empty() {
        let mut shards = json!({"total": 0, "successful": 0, "skipped": 0, "failed": 0});
        context::add_failed(&mut shards, &failed);
        parts.push((json!({"count": 0, "_shards": shards}), Vec::new()));
    }
    for (r, (_, shards)) in answers.into_iter().zip(&remote) {
        parts.push((r.or_else(|e| count_failure(e, shards))?, shards.clone()));
    }
    let (mut n, mut total, mut ok, mut bad) = (0u64, 0u64, 0u64, 0u64);
    let mut terminated: Option<bool> = None;
    let mut failures: Vec<FailureEntry> = Vec::new();
    for (v, _) in parts {
        for m in v["warnings"].as_array().into_iter().flatten().filter_map(Value::as_str) {
            req.warnings.warn(m);
        }
        n += v["count"].as_u64().unwrap_or(0);
        total += v["_shards"]["total"].as_u64().unwrap_or(0);
        ok += v["_shards"]["successful"].as_u64().unwrap_or(0);
        bad += v["_shards"]["failed"].as_u64().unwrap_or(0);
        if let Some(t) = v["terminated_early"].as_bool() {
            terminated = Some(terminated.unwrap_or(false) || t);
        }
        let status = v["status"].as_u64().unwrap_or(503) as u16;
        for f in v["_shards"]["failures"].as_array().into_iter().flatten() {
            failures.push((status, f.clone()));
        }
    }
    if total > 0 && bad == total {
        return Err(node_result::all_failed(&failures));
    }
    let mut shards = json!({"total": total, "successful": ok, "skipped": 0, "failed": bad});
    if bad > 0 {
        shards["failures"] = Value::Array(failures.into_iter().map(|f| f.1).collect());
    }
    let mut body = json!({"count": n, "_shards": shards});
    if let Some(t) = terminated {
        body["terminated_early"] = json!(t);
    }
    Ok(body)
}

/// A count answer for shards that all failed with `e` (or `e` itself when it fails the request).
fn count_failure(e: OsError, shards: &[(String, u32)]) -> OsResult<Value> {
    if !node_result::fails_shards_only(&e) {
        return Err(e);
    }
    let r = node_result::all_failed_result(&e, shards);
    let fails: Vec<Value> = r.failures.into_iter().map(|f| f.1).collect();
    Ok(json!({
        "count": 0,
        "status": e.status,
        "_shards": {"total": shards.len(), "successful": 0, "skipped": 0, "failed": shards.len(), "failures": fails},
    }))
}

/// The receiving side of [`ACTION_QUERY_FETCH`]: the query+fetch (or count) of the listed
/// shards of this node.
pub fn handle(cs: &ClusterService, payload: &[u8]) -> OsResult<Vec<u8>> {
    let w: WireSearch =
        serde_json::from_slice(payload).map_err(|e| OsError::illegal(format!("malformed search request: {e}")))?;
    let mut req = w.req;
    req.dfs_stats = w.dfs.map(Arc::new);
    if let Some(a) = &req.aggs_source {
        req.aggs = Some(Arc::new(super::aggs::parse::parse_aggs(a)?));
    }
    let (ctxs, failed) = context::acquire_shards(cs, &w.expr, &w.shards)?;
    let out = if w.count {
        let mut v = if ctxs.is_empty() {
            json!({"count": 0, "_shards": {"total": 0, "successful": 0, "skipped": 0, "failed": 0}})
        } else {
            super::count::count_contexts(&ctxs, &req)?
        };
        context::add_failed(&mut v["_shards"], &failed);
        v["warnings"] = json!(req.warnings.take());
        serde_json::to_vec(&v)
    } else {
        let mut r = execute::node_search(&ctxs, &req)?;
        let f = failed_open(&failed);
        r.shards += f.shards;
        r.failed += f.failed;
        r.failures.extend(f.failures);
        if r.shards > 0 && r.failed == r.shards {
            return Err(OsError::new(ErrorKind::SearchPhaseExecution, "all shards failed")
                .status(503)
                .with("phase", "query")
                .with("grouped", true)
                .with("failed_shards", Value::Array(r.failures.into_iter().map(|f| f.1).collect())));
        }
        serde_json::to_vec(&to_wire(r, req.warnings.take()))
    };
    out.map_err(|e| OsError::internal(e.to_string()))
}

#[cfg(test)]
#[path = "remote_tests.rs"]
mod tests;
