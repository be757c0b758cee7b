//! The routing table as `_cluster/state` prints it (`ShardRouting.toXContent`,
//! `UnassignedInfo.toXContent`, `RoutingTable` / `RoutingNodes` XContent) and the one-line shard
//! summaries the deciders' messages quote (`ShardRouting.shortSummary`).

use serde_json::{json, Map, Value};

use super::AllocNode;
use crate::cluster::metadata::Metadata;
use crate::cluster::routing_table::{RecoverySource, RoutingTable, ShardCopy, ShardState, UnassignedInfo};

/// `UnassignedInfo.DATE_TIME_FORMATTER` (`date_optional_time` in UTC): `2024-01-02T03:04:05.678Z`.
pub(crate) fn format_at(millis: i64) -> String {
    crate::engine::schema::date::format_date(millis, "strict_date_optional_time")
}

/// A recovery source's `getDescription()`.
fn recovery_description(r: RecoverySource) -> &'static str {
    match r {
        RecoverySource::EmptyStore => "new shard recovery",
        RecoverySource::ExistingStore => "existing store recovery; bootstrap_history_uuid=false",
        RecoverySource::Peer => "peer recovery",
    }
}

/// `UnassignedInfo.toString()`: `unassigned_info[[reason=NODE_LEFT], at[...], delayed=true, ...]`.
pub(crate) fn unassigned_summary(u: &UnassignedInfo) -> String {
    let mut s = format!("unassigned_info[[reason={}], at[{}]", u.reason, format_at(u.at_millis));
    if u.failed_attempts > 0 {
        s.push_str(&format!(", failed_attempts[{}]", u.failed_attempts));
    }
    s.push_str(&format!(", delayed={}", u.delayed));
    if let Some(d) = &u.details {
        s.push_str(&format!(", details[{d}]"));
    }
    s.push_str(&format!(", allocation_status[{}]]", u.allocation_status));
    s
}

/// Whether a copy shows its allocation id: an unassigned copy remembers the id of the data it
/// held (see `failures.rs`) but OpenSearch's unassigned shards have none.
fn shown_allocation_id(c: &ShardCopy) -> Option<&str> {
    if c.state == ShardState::Unassigned {
        None
    } else {
        c.allocation_id.as_deref()
    }
}

/// Whether a copy shows its unassigned info: unassigned and initializing copies keep it
/// (OpenSearch clears it when the copy starts).
fn shown_unassigned(c: &ShardCopy) -> Option<&UnassignedInfo> {
    match c.state {
        ShardState::Unassigned | ShardState::Initializing => c.unassigned.as_ref(),
        _ => None,
    }
}

/// Whether a copy shows its recovery source: only while it is not active.
fn shown_recovery(c: &ShardCopy) -> Option<RecoverySource> {
    if c.active() {
        None
    } else {
        c.recovery_source
    }
}

/// `ShardRouting.shortSummary()`: `[index][0], node[id], [P], recovery_source[...], s[STARTED], a[id=...]`.
pub(crate) fn shard_summary(index: &str, shard: u32, c: &ShardCopy) -> String {
    let mut s = format!("[{index}][{shard}], node[{}], ", c.node.as_deref().unwrap_or("null"));
    if let Some(r) = &c.relocating_node {
        s.push_str(&format!("relocating [{r}], "));
    }
    s.push_str(if c.primary { "[P]" } else { "[R]" });
    if let Some(r) = shown_recovery(c) {
        s.push_str(&format!(", recovery_source[{}]", recovery_description(r)));
    }
    s.push_str(&format!(", s[{}]", c.state.name()));
    if let Some(a) = shown_allocation_id(c) {
        match &c.relocation_id {
            Some(r) => s.push_str(&format!(", a[id={a}, rId={r}]")),
            None => s.push_str(&format!(", a[id={a}]")),
        }
    }
    if let Some(u) = shown_unassigned(c) {
        s.push_str(&format!(", {}", unassigned_summary(u)));
    }
    s
}

/// `UnassignedInfo.toXContent`'s object.
pub(crate) fn unassigned_json(u: &UnassignedInfo) -> Value {
    let mut m = Map::new();
    m.insert("reason".into(), json!(u.reason));
    m.insert("at".into(), json!(format_at(u.at_millis)));
    if u.failed_attempts > 0 {
        m.insert("failed_attempts".into(), json!(u.failed_attempts));
    }
    m.insert("delayed".into(), json!(u.delayed));
    if let Some(d) = &u.details {
        m.insert("details".into(), json!(d));
    }
    m.insert("allocation_status".into(), json!(u.allocation_status));
    Value::Object(m)
}

/// `ShardRouting.toXContent`.
pub(crate) fn copy_json(index: &str, shard: u32, c: &ShardCopy) -> Value {
    let mut m = Map::new();
    m.insert("state".into(), json!(c.state.name()));
    m.insert("primary".into(), json!(c.primary));
    m.insert("node".into(), json!(c.node));
    m.insert("relocating_node".into(), json!(c.relocating_node));
    m.insert("shard".into(), json!(shard));
    m.insert("index".into(), json!(index));
    if let Some(r) = shown_recovery(c) {
        let v = match r {
            RecoverySource::ExistingStore => json!({"type": r.name(), "bootstrap_new_history_uuid": false}),
            _ => json!({"type": r.name()}),
        };
        m.insert("recovery_source".into(), v);
    }
    if let Some(a) = shown_allocation_id(c) {
        match &c.relocation_id {
            Some(r) => m.insert("allocation_id".into(), json!({"id": a, "relocation_id": r})),
            None => m.insert("allocation_id".into(), json!({"id": a})),
        };
    }
    if let Some(u) = shown_unassigned(c) {
        m.insert("unassigned_info".into(), unassigned_json(u));
    }
    Value::Object(m)
}

/// `_cluster/state`'s `routing_table`: `{"indices": {name: {"shards": {"0": [copies]}}}}`.
/// Indices absent from `md` (a table not yet synced with it) are left out.
pub fn render_routing_table(table: &RoutingTable, md: &Metadata) -> Value {
    let mut indices = Map::new();
    for (name, ir) in table.indices.iter().filter(|(n, _)| md.indices.contains_key(*n)) {
        let mut shards = Map::new();
        for st in &ir.shards {
            shards
                .insert(st.id.to_string(), Value::Array(st.copies.iter().map(|c| copy_json(name, st.id, c)).collect()));
        }
        indices.insert(name.clone(), json!({"shards": shards}));
    }
    json!({"indices": indices})
}

/// `_cluster/state`'s `routing_nodes`: the unassigned copies, and the copies of every data node
/// (and of any node the table still names), by node id.
pub fn render_routing_nodes(table: &RoutingTable, nodes: &[AllocNode]) -> Value {
    let mut unassigned = Vec::new();
    let mut by_node: std::collections::BTreeMap<String, Vec<Value>> =
        nodes.iter().filter(|n| n.is_data()).map(|n| (n.id.clone(), Vec::new())).collect();
    for (index, ir) in &table.indices {
        for st in &ir.shards {
            // Relocation targets are listed on the node they move to, as OpenSearch's
            // `RoutingNodes` hold them.
            for c in st.copies_and_targets() {
                match &c.node {
                    None => unassigned.push(copy_json(index, st.id, &c)),
                    Some(n) => by_node.entry(n.clone()).or_default().push(copy_json(index, st.id, &c)),
                }
            }
        }
    }
    let nodes: Map<String, Value> = by_node.into_iter().map(|(k, v)| (k, Value::Array(v))).collect();
    json!({"unassigned": unassigned, "nodes": nodes})
}
