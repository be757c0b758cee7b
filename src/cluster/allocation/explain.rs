//! `_cluster/allocation/explain` (OpenSearch's `TransportClusterAllocationExplainAction`,
//! `ClusterAllocationExplanation`, `AllocateUnassignedDecision`): which shard copy, then why it
//! is where it is, or why not. Started copies are explained in `explain_move.rs`.

use serde_json::{json, Map, Value};

use super::assign::{copy_at, decide_balanced, in_sync_holders, remaining_delay, Pos};
use super::balance::Model;
use super::combine::{can_allocate, can_force_allocate_primary, Debug};
use super::deciders::{Ctx, Kind, ShardRef};
use super::explain_decisions::{node_object, node_results_json, time_value, NodeResult, Outcome};
use super::explain_move::move_decision;
use super::render::format_at;
use super::reroute::data_nodes;
use super::settings::{AllocSettings, IndexAlloc};
use super::AllocNode;
use crate::cluster::metadata::Metadata;
use crate::cluster::routing_table::{RecoverySource, RoutingTable, ShardState};
use crate::error::{ErrorKind, OsError, OsResult};

/// What to explain; all of `index`, `shard`, `primary` and `current_node` unset means "the first
/// unassigned shard".
#[derive(Debug, Clone, Default)]
pub struct ExplainRequest {
    pub index: Option<String>,
    pub shard: Option<u32>,
    pub primary: Option<bool>,
    pub current_node: Option<String>,
    pub include_yes_decisions: bool,
    pub include_disk_info: bool,
}

impl ExplainRequest {
    fn any_unassigned(&self) -> bool {
        self.index.is_none() && self.shard.is_none() && self.primary.is_none() && self.current_node.is_none()
    }
}

/// `ClusterAllocationExplainRequest.toString()` (OpenSearch leaves its bracket open).
impl std::fmt::Display for ExplainRequest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ClusterAllocationExplainRequest[")?;
        if self.any_unassigned() {
            f.write_str("useAnyUnassignedShard=true")?;
        } else {
            let opt = |v: Option<String>| v.unwrap_or_else(|| "null".into());
            write!(
                f,
                "index={},shard={},primary?={}",
                opt(self.index.clone()),
                opt(self.shard.map(|s| s.to_string())),
                opt(self.primary.map(|p| p.to_string()))
            )?;
            if let Some(n) = &self.current_node {
                write!(f, ",currentNode={n}")?;
            }
        }
        write!(f, ",includeYesDecisions?={}", self.include_yes_decisions)
    }
}

/// `DiscoveryNodes.resolveNode`: by id, else by name.
fn resolve_node<'a>(nodes: &[&'a AllocNode], name: &str) -> OsResult<&'a AllocNode> {
    if let Some(n) = nodes.iter().find(|n| n.id == name) {
        return Ok(n);
    }
    let found: Vec<&&AllocNode> = nodes.iter().filter(|n| n.name == name).collect();
    match found.len() {
        0 => Err(OsError::illegal(format!("failed to resolve [{name}], no matching nodes"))),
        1 => Ok(found[0]),
        k => Err(OsError::illegal(format!(
            "resolved [{name}] into [{k}] nodes, where expected to be resolved to a single node"
        ))),
    }
}

/// `findShardToExplain`.
fn find(table: &RoutingTable, all: &[&AllocNode], req: &ExplainRequest) -> OsResult<Pos> {
    if req.any_unassigned() {
        for (name, ir) in &table.indices {
            for (si, st) in ir.shards.iter().enumerate() {
                if let Some(ci) = st.copies.iter().position(|c| c.state == ShardState::Unassigned) {
                    return Ok((name.clone(), si, ci));
                }
            }
        }
        return Err(OsError::illegal(format!("unable to find any unassigned shards to explain [{req}]")));
    }
    let mut errors = Vec::new();
    for (missing, what) in
        [(req.index.is_none(), "index"), (req.shard.is_none(), "shard"), (req.primary.is_none(), "primary")]
    {
        if missing {
            errors.push(format!("{what} must be specified"));
        }
    }
    if !errors.is_empty() {
        return Err(OsError::validation(&errors));
    }
    let (index, shard, primary) =
        (req.index.clone().unwrap_or_default(), req.shard.unwrap_or(0), req.primary.unwrap_or(false));
    let ir = table.indices.get(&index).ok_or_else(|| OsError::index_not_found(&index))?;
    let si = ir.shards.iter().position(|s| s.id == shard).ok_or_else(|| {
        OsError::new(ErrorKind::ShardNotFound, "no such shard")
            .status(404)
            .with("index", index.as_str())
            .with("shard", shard.to_string())
            .with("index_uuid", ir.uuid.as_str())
    })?;
    let st = &ir.shards[si];
    let current = req.current_node.as_deref().map(|n| resolve_node(all, n)).transpose()?;
    let found = if primary {
        let ci = st.copies.iter().position(|c| c.primary);
        if let (Some(n), Some(ci)) = (current, ci) {
            if !st.copies[ci].on(&n.id) {
                return Err(OsError::illegal(format!(
                    "unable to find primary shard assigned to node [{}]",
                    req.current_node.as_deref().unwrap_or_default()
                )));
            }
        }
        ci
    } else if let Some(n) = current {
        let ci = st.copies.iter().position(|c| !c.primary && c.on(&n.id));
        if ci.is_none() {
            return Err(OsError::illegal(format!(
                "unable to find a replica shard assigned to node [{}]",
                req.current_node.as_deref().unwrap_or_default()
            )));
        }
        ci
    } else {
        let replicas: Vec<usize> = (0..st.copies.len()).filter(|&i| !st.copies[i].primary).collect();
        let mut pick = replicas.first().copied();
        for &i in &replicas {
            let (c, f) = (&st.copies[i], pick.map(|p| &st.copies[p]));
            if c.state == ShardState::Unassigned {
                pick = Some(i);
                break;
            }
            if c.state == ShardState::Started
                && f.is_some_and(|f| matches!(f.state, ShardState::Initializing | ShardState::Relocating))
            {
                pick = Some(i);
            }
        }
        pick
    };
    found
        .map(|ci| (index, si, ci))
        .ok_or_else(|| OsError::illegal(format!("unable to find any shards to explain [{req}] in the routing table")))
}

/// The `_cluster/allocation/explain` response. `cluster_info` is what `include_disk_info` adds
/// (disk usage is gathered by the caller; this module does no I/O).
pub fn explain(
    table: &RoutingTable,
    md: &Metadata,
    nodes: &[AllocNode],
    cluster_settings: &Map<String, Value>,
    req: &ExplainRequest,
    cluster_info: Option<&Value>,
    now_millis: i64,
) -> OsResult<Value> {
    let s = AllocSettings::parse(cluster_settings);
    let all: Vec<&AllocNode> = nodes.iter().collect();
    let p = find(table, &all, req)?;
    let c = Ctx { table, md, nodes: data_nodes(nodes), s: &s };
    let copy = copy_at(table, &p);
    let id = table.indices[&p.0].shards[p.1].id;
    let debug = if req.include_yes_decisions { Debug::On } else { Debug::ExcludeYes };
    let mut out = Map::new();
    out.insert("index".into(), json!(p.0));
    out.insert("shard".into(), json!(id));
    out.insert("primary".into(), json!(copy.primary));
    out.insert("current_state".into(), json!(copy.state.name().to_ascii_lowercase()));
    if let Some(u) = &copy.unassigned {
        let mut ui = Map::new();
        ui.insert("reason".into(), json!(u.reason));
        ui.insert("at".into(), json!(format_at(u.at_millis)));
        if u.failed_attempts > 0 {
            ui.insert("failed_allocation_attempts".into(), json!(u.failed_attempts));
        }
        if let Some(d) = &u.details {
            ui.insert("details".into(), json!(d));
        }
        ui.insert("last_allocation_status".into(), json!(Outcome::of_status(&u.allocation_status).name()));
        out.insert("unassigned_info".into(), Value::Object(ui));
    }
    let current = copy.node.as_deref().and_then(|n| all.iter().find(|x| x.id == n).copied());
    let decision = match copy.state {
        ShardState::Unassigned => Some((allocate_decision(&c, &p, debug, now_millis), 0)),
        ShardState::Started => move_decision(&c, &p, debug),
        _ => None,
    };
    if let Some(n) = current {
        let mut m = node_object(n);
        if let Some(r) = decision.as_ref().map(|d| d.1).filter(|r| *r > 0) {
            m.insert("weight_ranking".into(), json!(r));
        }
        out.insert("current_node".into(), Value::Object(m));
    }
    if let Some(ci) = cluster_info.filter(|_| req.include_disk_info) {
        out.insert("cluster_info".into(), ci.clone());
    }
    match decision {
        Some((d, _)) => out.extend(d),
        // A started copy on a node that is not a data node of `nodes` (a table not rerouted since
        // the node left): nothing to decide.
        None if copy.state == ShardState::Started => {}
        None => {
            let name = current.map_or_else(|| copy.node.clone().unwrap_or_default(), |n| n.name.clone());
            let e = if copy.state == ShardState::Relocating {
                let to = copy
                    .relocating_node
                    .as_deref()
                    .and_then(|r| all.iter().find(|x| x.id == r))
                    .map_or("", |n| n.name.as_str());
                format!("the shard is in the process of relocating from node [{name}] to node [{to}], wait until relocation has completed")
            } else {
                format!("the shard is in the process of initializing on node [{name}], wait until initialization has completed")
            };
            out.insert("explanation".into(), json!(e));
        }
    }
    Ok(Value::Object(out))
}

/// The `AllocateUnassignedDecision` fields.
fn allocate_decision(c: &Ctx, p: &Pos, debug: Debug, now_millis: i64) -> Map<String, Value> {
    let copy = copy_at(c.table, p);
    let sh = ShardRef { index: &p.0, id: c.table.indices[&p.0].shards[p.1].id, copy };
    let mut results: Vec<NodeResult> = Vec::new();
    let (outcome, target, allocation_id, reuse_store, delay);
    let u = copy.unassigned.as_ref();
    if copy.primary && copy.recovery_source == Some(RecoverySource::ExistingStore) {
        // PrimaryShardAllocator.
        let holders = in_sync_holders(c, p);
        let mut decided: Vec<(&AllocNode, super::combine::Decisions, String)> = Vec::new();
        for pass in [false, true] {
            decided = holders
                .iter()
                .filter_map(|h| {
                    let n = c.node(&h.0)?;
                    let d =
                        if pass { can_force_allocate_primary(c, sh, n, debug) } else { can_allocate(c, sh, n, debug) };
                    Some((n, d, h.1.clone()))
                })
                .collect();
            if decided.iter().any(|d| d.1.kind != Kind::No) {
                break;
            }
        }
        let yes = decided.iter().find(|d| d.1.kind == Kind::Yes);
        outcome = if holders.is_empty() {
            Outcome::NoValidShardCopy
        } else if yes.is_some() {
            Outcome::Yes
        } else if decided.iter().any(|d| d.1.kind == Kind::Throttle) {
            Outcome::Throttled
        } else {
            Outcome::No
        };
        target = yes.map(|d| d.0);
        allocation_id = yes.map(|d| d.2.clone());
        reuse_store = outcome == Outcome::No;
        delay = None;
        for n in &c.nodes {
            match decided.iter().find(|d| d.0.id == n.id) {
                Some((_, d, aid)) => results.push(NodeResult {
                    node: n,
                    outcome: Outcome::of(d.kind),
                    store: Some(json!({"in_sync": true, "allocation_id": aid})),
                    ranking: 0,
                    decisions: Some(d.clone()),
                }),
                None => results.push(NodeResult {
                    node: n,
                    outcome: Outcome::No,
                    store: Some(json!({"found": false})),
                    ranking: 0,
                    decisions: None,
                }),
            }
        }
    } else if !copy.primary && u.is_some_and(|u| u.reason != "INDEX_CREATED") && replica_taken(c, p, now_millis) {
        // ReplicaShardAllocator.
        let per: Vec<(&AllocNode, super::combine::Decisions)> =
            c.nodes.iter().map(|n| (*n, can_allocate(c, sh, n, debug))).collect();
        let best = per.iter().map(|x| x.1.kind).max().unwrap_or(Kind::No);
        let last = u.and_then(|u| u.last_node.as_deref()).filter(|_| u.is_some_and(|u| u.reason == "NODE_LEFT"));
        let matching = last.and_then(|l| per.iter().find(|x| x.0.id == l && x.1.kind != Kind::No));
        reuse_store = false;
        allocation_id = None;
        (outcome, target, delay) = if best != Kind::Yes {
            (Outcome::of(best), None, None)
        } else if let Some(m) = matching {
            (Outcome::of(m.1.kind), (m.1.kind == Kind::Yes).then_some(m.0), None)
        } else {
            let total = c.index_md(&p.0).map_or(60_000, |m| IndexAlloc(m).delayed_timeout_millis());
            (Outcome::AllocationDelayed, None, Some((total, remaining_delay(c, &p.0, copy, now_millis))))
        };
        results = per
            .into_iter()
            .map(|(n, d)| NodeResult {
                node: n,
                outcome: Outcome::of(d.kind),
                store: None,
                ranking: 0,
                decisions: Some(d),
            })
            .collect();
    } else {
        // BalancedShardsAllocator.decideAllocateUnassigned.
        let ids: Vec<&str> = c.nodes.iter().map(|n| n.id.as_str()).collect();
        let model = Model::build(c.table, &ids, c.s);
        let (kind, node, all) = decide_balanced(c, &model, p, debug);
        let mut ranked: Vec<(usize, f32, super::combine::Decisions)> = all;
        ranked.sort_by(|a, b| a.1.total_cmp(&b.1));
        results = ranked
            .into_iter()
            .enumerate()
            .filter_map(|(r, (i, _, d))| {
                let n = c.node(&model.nodes[i].id)?;
                Some(NodeResult {
                    node: n,
                    outcome: Outcome::of(d.kind),
                    store: None,
                    ranking: r + 1,
                    decisions: Some(d),
                })
            })
            .collect();
        outcome = Outcome::of(kind);
        target = node.and_then(|i| c.node(&model.nodes[i].id));
        (allocation_id, reuse_store, delay) = (None, false, None);
    }
    let any_yes = results.iter().any(|r| r.outcome == Outcome::Yes);
    let explanation = match outcome {
        Outcome::Yes => "can allocate the shard".to_string(),
        Outcome::Throttled => "allocation temporarily throttled".into(),
        Outcome::NoValidShardCopy => "cannot allocate because a previous copy of the primary shard existed but can no longer be found on the nodes in the cluster".into(),
        Outcome::AllocationDelayed => format!(
            "cannot allocate because the cluster is still waiting {} for the departed node holding a replica to rejoin{}",
            time_value(delay.map_or(0, |d| d.1)),
            if any_yes { ", despite being allowed to allocate the shard to at least one other node" } else { "" }
        ),
        _ if reuse_store => "cannot allocate because allocation is not permitted to any of the nodes that hold an in-sync shard copy".into(),
        _ => "cannot allocate because allocation is not permitted to any of the nodes".into(),
    };
    let mut m = Map::new();
    m.insert("can_allocate".into(), json!(outcome.name()));
    m.insert("allocate_explanation".into(), json!(explanation));
    if let Some(t) = target {
        m.insert("target_node".into(), Value::Object(node_object(t)));
    }
    if let Some(a) = allocation_id {
        m.insert("allocation_id".into(), json!(a));
    }
    if let Some((total, remaining)) = delay {
        m.insert("configured_delay_in_millis".into(), json!(total));
        m.insert("remaining_delay_in_millis".into(), json!(remaining));
    }
    if !results.is_empty() {
        m.insert("node_allocation_decisions".into(), node_results_json(results));
    }
    m
}

/// Whether `ReplicaShardAllocator` takes the decision: not when it would hand the copy to the
/// balanced allocator (every node allows, no matching last node, not delayed).
fn replica_taken(c: &Ctx, p: &Pos, _now_millis: i64) -> bool {
    !matches!(super::assign::decide_existing_replica(c, p), super::assign::Outcome::NotTaken)
}
