//! `_cluster/reroute` commands (OpenSearch's `MoveAllocationCommand`, `CancelAllocationCommand`,
//! `AllocateReplicaAllocationCommand`, `AllocateEmptyPrimaryAllocationCommand`,
//! `AllocateStalePrimaryAllocationCommand`), each a pure function over the table with
//! OpenSearch's messages. With `explain`, a rejected command becomes a NO decision in its
//! explanation and changes nothing; without, it is an error.
//!
//! Nodes are named by id, name, host address or transport address (`DiscoveryNodes.resolveNode`).

use serde_json::{json, Map, Value};

use super::combine::{can_allocate, Debug, Decisions};
use super::deciders::{d, Ctx, Decision, Kind, ShardRef};
use super::relocate::{cancel_relocation, start_relocation};
use super::settings::AllocSettings;
use super::AllocNode;
use crate::cluster::metadata::Metadata;
use crate::cluster::routing_table::{RecoverySource, RoutingTable, ShardState, UnassignedInfo};

/// One command of the request body.
#[derive(Debug, Clone, PartialEq)]
pub enum Command {
    Move { index: String, shard: u32, from_node: String, to_node: String },
    Cancel { index: String, shard: u32, node: String, allow_primary: bool },
    AllocateReplica { index: String, shard: u32, node: String },
    AllocateEmptyPrimary { index: String, shard: u32, node: String, accept_data_loss: bool },
    AllocateStalePrimary { index: String, shard: u32, node: String, accept_data_loss: bool },
}

/// Why a command was refused.
#[derive(Debug, Clone, PartialEq)]
pub enum CommandError {
    /// `illegal_argument_exception`.
    Illegal(String),
    /// `index_not_found_exception` for the index.
    IndexNotFound(String),
}

impl Command {
    /// The command's name (`move`, `cancel`, `allocate_replica`, ...).
    pub fn name(&self) -> &'static str {
        match self {
            Command::Move { .. } => "move",
            Command::Cancel { .. } => "cancel",
            Command::AllocateReplica { .. } => "allocate_replica",
            Command::AllocateEmptyPrimary { .. } => "allocate_empty_primary",
            Command::AllocateStalePrimary { .. } => "allocate_stale_primary",
        }
    }
    /// Its parameters as `toXContent` prints them.
    pub fn parameters(&self) -> Value {
        match self {
            Command::Move { index, shard, from_node, to_node } => {
                json!({"index": index, "shard": shard, "from_node": from_node, "to_node": to_node})
            }
            Command::Cancel { index, shard, node, allow_primary } => {
                json!({"index": index, "shard": shard, "node": node, "allow_primary": allow_primary})
            }
            Command::AllocateReplica { index, shard, node } => json!({"index": index, "shard": shard, "node": node}),
            Command::AllocateEmptyPrimary { index, shard, node, accept_data_loss }
            | Command::AllocateStalePrimary { index, shard, node, accept_data_loss } => {
                json!({"index": index, "shard": shard, "node": node, "accept_data_loss": accept_data_loss})
            }
        }
    }
}

/// `DiscoveryNode.toString()`: `{name}{id}{ephemeral id}{host}{address}{roles}{attributes}`.
pub fn node_string(n: &AllocNode) -> String {
    let mut roles: Vec<&str> = n
        .roles
        .iter()
        .filter_map(|r| match r.as_str() {
            "cluster_manager" => Some("m"),
            "data" => Some("d"),
            "ingest" => Some("i"),
            "remote_cluster_client" => Some("r"),
            _ => None,
        })
        .collect();
    roles.sort_unstable();
    let mut s = format!("{{{}}}{{{}}}{{{}}}{{{}}}{{{}}}", n.name, n.id, n.id, n.host, n.transport_address);
    if !roles.is_empty() {
        s.push_str(&format!("{{{}}}", roles.concat()));
    }
    if !n.attributes.is_empty() {
        let a: Vec<String> = n.attributes.iter().map(|(k, v)| format!("{k}={v}")).collect();
        s.push_str(&format!("{{{}}}", a.join(", ")));
    }
    s
}

/// `DiscoveryNodes.resolveNode`.
pub(crate) fn resolve_node<'a>(nodes: &'a [AllocNode], name: &str) -> Result<&'a AllocNode, String> {
    let found: Vec<&AllocNode> = nodes
        .iter()
        .filter(|n| n.id == name || n.name == name || n.host == name || n.transport_address == name)
        .collect();
    match found.as_slice() {
        [one] => Ok(one),
        [] => Err(format!("failed to resolve [{name}], no matching nodes")),
        many => Err(format!(
            "resolved [{name}] into [{}] nodes, where expected to be resolved to a single node",
            many.len()
        )),
    }
}

/// What one command did: its explanation (`RerouteExplanation`), and whether it applied.
#[derive(Debug, Clone)]
pub struct Executed {
    pub explanation: Value,
    pub applied: bool,
}

fn explanation(cmd: &Command, decisions: &[Decision]) -> Value {
    let list: Vec<Value> = decisions
        .iter()
        .map(|x| json!({"decider": x.decider, "decision": x.kind.name(), "explanation": x.explanation}))
        .collect();
    json!({"command": cmd.name(), "parameters": cmd.parameters(), "decisions": list})
}

/// `Decision.toString()` of the deciders' answers in a rejection message.
fn decisions_string(ds: &Decisions) -> String {
    let parts: Vec<String> =
        ds.list.iter().map(|x| format!("[{}({})][{}]", x.kind.name(), x.decider, x.explanation)).collect();
    parts.join(", ")
}

/// Runs `cmd` on `t` (see the module docs). `Err` only without `explain`.
#[allow(clippy::too_many_arguments)]
pub fn execute(
    t: &mut RoutingTable,
    md: &Metadata,
    nodes: &[AllocNode],
    cluster_settings: &Map<String, Value>,
    cmd: &Command,
    explain: bool,
    now_millis: i64,
    new_id: &mut dyn FnMut() -> String,
) -> Result<Executed, CommandError> {
    let s = AllocSettings::parse(cluster_settings);
    match run(t, md, nodes, &s, cmd, now_millis, new_id) {
        Ok(ds) => Ok(Executed { explanation: explanation(cmd, &ds), applied: true }),
        Err(Reject::Decision(decider, e)) | Err(Reject::Illegal(decider, e)) if explain => {
            // `explainOrThrowRejectedCommand`: the reason without the command's prefix.
            let prefix = format!("[{}] ", cmd.name());
            let e = e.strip_prefix(prefix.as_str()).map_or(e.clone(), str::to_string);
            Ok(Executed { explanation: explanation(cmd, &[d(decider, Kind::No, e)]), applied: false })
        }
        // The deciders' own NO, as OpenSearch keeps it.
        Err(Reject::Deciders(_, ds)) if explain => {
            Ok(Executed { explanation: explanation(cmd, &ds.list), applied: false })
        }
        Err(Reject::Decision(_, e)) | Err(Reject::Illegal(_, e)) | Err(Reject::Deciders(e, _)) => {
            Err(CommandError::Illegal(e))
        }
        Err(Reject::IndexNotFound(i)) if explain => Ok(Executed {
            explanation: explanation(cmd, &[d(allocate_decider(cmd), Kind::No, format!("no such index [{i}]"))]),
            applied: false,
        }),
        Err(Reject::IndexNotFound(i)) => Err(CommandError::IndexNotFound(i)),
    }
}

/// Why `run` refused a command.
enum Reject {
    /// A shard not found or not started: a NO decision of `decider`, or the error message.
    Decision(&'static str, String),
    /// An argument that does not fit: a NO decision of `decider`, or the error message.
    Illegal(&'static str, String),
    /// The deciders said NO: the error message, or their decisions.
    Deciders(String, Decisions),
    IndexNotFound(String),
}

fn allocate_decider(cmd: &Command) -> &'static str {
    match cmd {
        Command::AllocateReplica { .. } => "allocate_replica (allocation command)",
        Command::AllocateEmptyPrimary { .. } => "allocate_empty_primary (allocation command)",
        Command::AllocateStalePrimary { .. } => "allocate_stale_primary (allocation command)",
        Command::Move { .. } => "move_allocation_command",
        Command::Cancel { .. } => "cancel_allocation_command",
    }
}

fn run(
    t: &mut RoutingTable,
    md: &Metadata,
    nodes: &[AllocNode],
    s: &AllocSettings,
    cmd: &Command,
    now_millis: i64,
    new_id: &mut dyn FnMut() -> String,
) -> Result<Vec<Decision>, Reject> {
    let data: Vec<&AllocNode> = super::reroute::data_nodes(nodes);
    let dec = allocate_decider(cmd);
    match cmd {
        Command::Move { index, shard, from_node, to_node } => {
            let from = resolve_node(nodes, from_node).map_err(|e| Reject::Illegal(dec, e))?;
            let to = resolve_node(nodes, to_node).map_err(|e| Reject::Illegal(dec, e))?;
            let not_data = |n: &AllocNode| {
                format!(
                    "[move_allocation] can't move [{index}][{shard}] from {} to {}: source [{}] is not a data node.",
                    node_string(from),
                    node_string(to),
                    n.name
                )
            };
            if !from.is_data() {
                return Err(Reject::Illegal(dec, not_data(from)));
            }
            if !to.is_data() {
                return Err(Reject::Illegal(dec, not_data(to)));
            }
            let pos = t.indices.get(index).and_then(|ir| {
                ir.shards
                    .iter()
                    .position(|st| st.id == *shard)
                    .and_then(|si| ir.shards[si].copies.iter().position(|c| c.on(&from.id)).map(|ci| (si, ci)))
            });
            let Some((si, ci)) = pos else {
                return Err(Reject::Decision(
                    dec,
                    format!("[move_allocation] can't move {shard}, failed to find it on node {}", node_string(from)),
                ));
            };
            let copy = t.indices[index].shards[si].copies[ci].clone();
            if copy.state != ShardState::Started {
                return Err(Reject::Decision(
                    dec,
                    format!(
                        "[move_allocation] can't move {shard}, shard is not started (state = {}]",
                        copy.state.name()
                    ),
                ));
            }
            let ds = {
                let c = Ctx { table: &*t, md, nodes: data.clone(), s };
                let sh = ShardRef { index, id: *shard, copy: &copy };
                can_allocate(&c, sh, to, Debug::On)
            };
            if ds.kind == Kind::No {
                return Err(Reject::Deciders(
                    format!(
                        "[move_allocation] can't move {shard}, from {}, to {}, since its not allowed, reason: {}",
                        node_string(from),
                        node_string(to),
                        decisions_string(&ds)
                    ),
                    ds,
                ));
            }
            let st = &mut t.indices.get_mut(index).expect("found above").shards[si];
            start_relocation(st, ci, &to.id, new_id);
            Ok(ds.list)
        }
        Command::Cancel { index, shard, node, allow_primary } => {
            let n = resolve_node(nodes, node).map_err(|e| Reject::Illegal(dec, e))?;
            let st = t
                .indices
                .get_mut(index)
                .ok_or_else(|| Reject::IndexNotFound(index.clone()))?
                .shards
                .iter_mut()
                .find(|st| st.id == *shard);
            let fail =
                || format!("[cancel_allocation] can't cancel {shard}, failed to find it on node {}", node_string(n));
            let Some(st) = st else { return Err(Reject::Decision(dec, fail())) };
            // The copy on the node: a copy held there, or a relocation target moving there.
            let held = st.copies.iter().position(|c| c.on(&n.id) && c.state != ShardState::Unassigned);
            let target = st
                .copies
                .iter()
                .position(|c| c.state == ShardState::Relocating && c.relocating_node.as_deref() == Some(&n.id));
            let ok = format!("shard {shard} on node {} can be cancelled", node_string(n));
            if let Some(i) = target.filter(|_| held.is_none()) {
                // Cancelling a relocation target (a primary's too, without allow_primary).
                cancel_relocation(st, i);
                return Ok(vec![d(dec, Kind::Yes, ok)]);
            }
            let Some(i) = held else { return Err(Reject::Decision(dec, fail())) };
            let c = &st.copies[i];
            if c.primary && !allow_primary {
                return Err(Reject::Illegal(
                    dec,
                    format!(
                        "[cancel_allocation] can't cancel {shard} on node {}, shard is primary and {}",
                        node_string(n),
                        c.state.name().to_ascii_lowercase()
                    ),
                ));
            }
            let f = super::failures::Failure {
                reason: "REROUTE_CANCELLED",
                details: "reroute cancelled".into(),
                at_millis: now_millis,
                delayed: false,
                mark_stale: true,
            };
            super::failures::fail_copy(st, i, &f);
            Ok(vec![d(dec, Kind::Yes, ok)])
        }
        Command::AllocateReplica { index, shard, node } => {
            let name = cmd.name();
            let n = resolve_node(nodes, node).map_err(|e| Reject::Illegal(dec, e))?;
            if !n.is_data() {
                return Err(missing_routing_node(dec, n));
            }
            let si = shard_pos(t, index, *shard)?;
            let st = &t.indices[index].shards[si];
            if !st.copies.iter().any(|c| c.primary && c.node.is_some()) {
                return Err(Reject::Illegal(dec, format!("[{name}] trying to allocate a replica shard [{index}][{shard}], while corresponding primary shard is still unassigned")));
            }
            let Some(ci) = st.copies.iter().position(|c| !c.primary && c.state == ShardState::Unassigned) else {
                return Err(Reject::Illegal(
                    dec,
                    format!(
                        "[{name}] all copies of [{index}][{shard}] are already assigned. Use the move allocation command instead"
                    ),
                ));
            };
            let ds = {
                let c = Ctx { table: &*t, md, nodes: data.clone(), s };
                let sh = ShardRef { index, id: *shard, copy: &st.copies[ci] };
                can_allocate(&c, sh, n, Debug::On)
            };
            if ds.kind == Kind::No {
                return Err(Reject::Deciders(
                    format!(
                        "[{name}] allocation of [{index}][{shard}] on node {} is not allowed, reason: {}",
                        node_string(n),
                        decisions_string(&ds)
                    ),
                    ds,
                ));
            }
            initialize(t, index, si, ci, &n.id, None, None, new_id);
            Ok(ds.list)
        }
        Command::AllocateEmptyPrimary { index, shard, node, accept_data_loss }
        | Command::AllocateStalePrimary { index, shard, node, accept_data_loss } => {
            let empty = matches!(cmd, Command::AllocateEmptyPrimary { .. });
            let name = cmd.name();
            let n = resolve_node(nodes, node).map_err(|e| Reject::Illegal(dec, e))?;
            if !n.is_data() {
                return Err(missing_routing_node(dec, n));
            }
            let si = shard_pos(t, index, *shard)?;
            let st = &t.indices[index].shards[si];
            let Some(ci) = st.copies.iter().position(|c| c.primary && c.state == ShardState::Unassigned) else {
                return Err(Reject::Illegal(dec, format!("[{name}] primary [{index}][{shard}] is already assigned")));
            };
            let source = st.copies[ci].recovery_source;
            let loss = format!("[{name}] allocating an empty primary for [{index}][{shard}] can result in data loss. Please confirm by setting the accept_data_loss parameter to true");
            if empty {
                if source != Some(RecoverySource::EmptyStore) && !accept_data_loss {
                    return Err(Reject::Illegal(dec, loss));
                }
            } else {
                if !accept_data_loss {
                    return Err(Reject::Illegal(dec, loss));
                }
                if source != Some(RecoverySource::ExistingStore) {
                    return Err(Reject::Illegal(dec, format!("[{name}] trying to allocate an existing primary shard [{index}][{shard}], while no such shard has ever been active")));
                }
            }
            let info = empty.then(|| {
                let u = st.copies[ci].unassigned.clone();
                let (reason, details) =
                    u.as_ref().map_or(("INDEX_CREATED".to_string(), None), |u| (u.reason.clone(), u.details.clone()));
                UnassignedInfo {
                    reason: "FORCED_EMPTY_PRIMARY".into(),
                    at_millis: now_millis,
                    delayed: false,
                    failed_attempts: 0,
                    details: Some(format!(
                        "force empty allocation from previous reason {reason}, {}",
                        details.unwrap_or_else(|| "null".into())
                    )),
                    last_node: None,
                    allocation_status: "no_attempt".into(),
                }
            });
            let recovery = if empty { RecoverySource::EmptyStore } else { RecoverySource::ExistingStore };
            initialize(t, index, si, ci, &n.id, info, Some(recovery), new_id);
            // The copy's data is what the shard now holds (OpenSearch's forced allocations
            // reset the in-sync set to the new copy when it starts).
            let st = &mut t.indices.get_mut(index).expect("found above").shards[si];
            let aid = st.copies[ci].allocation_id.clone().unwrap_or_default();
            st.in_sync = vec![aid];
            Ok(vec![d(dec, Kind::Yes, "ignore deciders")])
        }
    }
}

fn missing_routing_node(dec: &'static str, n: &AllocNode) -> Reject {
    Reject::Illegal(dec, format!("Allocation can only be done on data nodes, not [{}]", node_string(n)))
}

fn shard_pos(t: &RoutingTable, index: &str, shard: u32) -> Result<usize, Reject> {
    let ir = t.indices.get(index).ok_or_else(|| Reject::IndexNotFound(index.to_string()))?;
    ir.shards
        .iter()
        .position(|st| st.id == shard)
        .ok_or_else(|| Reject::Illegal("allocation command", format!("[{index}][{shard}] no such shard")))
}

/// Assigns the unassigned copy `ci` to `node` (`initializeUnassignedShard`).
#[allow(clippy::too_many_arguments)]
fn initialize(
    t: &mut RoutingTable,
    index: &str,
    si: usize,
    ci: usize,
    node: &str,
    info: Option<UnassignedInfo>,
    source: Option<RecoverySource>,
    new_id: &mut dyn FnMut() -> String,
) {
    let st = &mut t.indices.get_mut(index).expect("an index of the table").shards[si];
    let c = &mut st.copies[ci];
    c.state = ShardState::Initializing;
    c.node = Some(node.to_string());
    c.allocation_id = Some(new_id());
    if let Some(i) = info {
        c.unassigned = Some(i);
    }
    if let Some(s) = source {
        c.recovery_source = Some(s);
    }
    if c.primary {
        st.primary_term += 1;
    }
}

/// `retry_failed`: every unassigned copy's failed allocation count starts over.
pub fn reset_failed_counters(t: &mut RoutingTable) -> bool {
    let mut changed = false;
    for ir in t.indices.values_mut() {
        for st in &mut ir.shards {
            for c in st.copies.iter_mut().filter(|c| c.state == ShardState::Unassigned) {
                if let Some(u) = c.unassigned.as_mut().filter(|u| u.failed_attempts > 0) {
                    u.failed_attempts = 0;
                    changed = true;
                }
            }
        }
    }
    changed
}
