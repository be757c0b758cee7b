//! `_recovery` and the rows of `_cat/recovery`: each shard copy's recovery state
//! (OpenSearch's `RecoveryResponse` / `RecoveryState.toXContent`).
//!
//! Open indices report what their shard engines recorded when they opened (EMPTY_STORE for a
//! new index, EXISTING_STORE after a restart or reopen, with the files reused and the translog
//! operations replayed). A closed index has no engine in Fathom; OpenSearch keeps closed shards
//! allocated (recovered from their own store when the index closed), so a closed index reports
//! an EXISTING_STORE recovery, done, of the files in its store, dated by its last commit.

use std::path::Path;
use std::time::UNIX_EPOCH;

use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};

use super::nodes_fanout;
use crate::cluster::metadata::IndexState;
use crate::cluster::resolve::{resolve, ExpandWildcards, IndicesOptions};
use crate::cluster::ClusterService;
use crate::error::OsResult;
use crate::shard::recovery::{RecoverySource, RecoveryState, Stage, Timer};
use crate::units::{human_bytes, human_millis};

/// The node-level action answering with the recoveries of this node's copies
/// (`TransportRecoveryAction`'s per-node request).
pub const ACTION_NODE_RECOVERIES: &str = "indices:monitor/recovery[n]";

/// The node a copy recovered on: `target` in `_recovery`, the target columns of `_cat/recovery`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TargetNode {
    pub id: String,
    pub name: String,
    pub host: String,
    pub transport_address: String,
}

impl TargetNode {
    /// This node.
    pub fn local(cs: &ClusterService) -> TargetNode {
        TargetNode {
            id: cs.node.node_id.clone(),
            name: cs.node.node_name.clone(),
            host: cs.node.host.clone(),
            transport_address: cs.transport_address(),
        }
    }
}

/// The recovery of one shard copy.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ShardRecovery {
    pub index: String,
    pub shard: u32,
    pub state: RecoveryState,
    pub target: TargetNode,
}

/// What a node is asked for: the recoveries of its copies of `indices` (names the coordinating
/// node resolved).
#[derive(Debug, Serialize, Deserialize)]
struct NodeRequest {
    indices: Vec<String>,
    active_only: bool,
}

/// `RecoveryRequest`'s default: `STRICT_EXPAND_OPEN_CLOSED` (closed indices are reported).
pub fn default_options() -> IndicesOptions {
    IndicesOptions {
        ignore_unavailable: false,
        allow_no_indices: true,
        expand: ExpandWildcards { open: true, closed: true, hidden: false },
        forbid_closed: false,
    }
}

/// Files listed at most per closed shard store.
const MAX_STORE_FILES: usize = 100_000;

/// The recoveries of the indices `expr` names across the cluster, by index name, shard id and
/// then primary first; `active_only` keeps those not yet DONE. Each node holding copies reports
/// its own (a node that does not answer leaves its copies out, as OpenSearch's broadcast does).
pub fn recoveries(
    cs: &ClusterService,
    expr: &str,
    opts: IndicesOptions,
    active_only: bool,
) -> OsResult<Vec<ShardRecovery>> {
    let md = cs.metadata();
    let indices = resolve(&md, expr, opts)?;
    let members = nodes_fanout::members(cs);
    let ids: Vec<String> = members.iter().map(|m| m.node_id.clone()).collect();
    let req = NodeRequest { indices, active_only };
    let local = || Ok(serde_json::to_value(local_recoveries(cs, &req.indices, active_only)).unwrap_or(Value::Null));
    let payload = serde_json::to_value(&req).unwrap_or(Value::Null);
    let g = nodes_fanout::fan_out(cs, &ids, ACTION_NODE_RECOVERIES, &payload, nodes_fanout::DEFAULT_TIMEOUT, &local);
    for (m, e) in &g.failures {
        tracing::debug!(node = %m.node_id, error = %e, "a node did not report its recoveries");
    }
    let mut out: Vec<ShardRecovery> = g
        .answers
        .into_iter()
        .flat_map(|(_, v)| serde_json::from_value::<Vec<ShardRecovery>>(v).unwrap_or_default())
        .collect();
    out.sort_by(|a, b| (&a.index, a.shard, !a.state.primary).cmp(&(&b.index, b.shard, !b.state.primary)));
    Ok(out)
}

/// This node's answer to [`ACTION_NODE_RECOVERIES`].
pub fn handle(cs: &ClusterService, payload: &[u8]) -> OsResult<Vec<u8>> {
    let req: NodeRequest = serde_json::from_slice(payload)
        .map_err(|e| crate::error::OsError::illegal(format!("unreadable recovery request: {e}")))?;
    Ok(serde_json::to_vec(&local_recoveries(cs, &req.indices, req.active_only)).unwrap_or_default())
}

/// The recoveries of this node's copies of `indices`, by index then shard. A closed index has
/// no engine: its copies are the shard stores this node keeps.
pub fn local_recoveries(cs: &ClusterService, indices: &[String], active_only: bool) -> Vec<ShardRecovery> {
    let md = cs.metadata();
    let target = TargetNode::local(cs);
    let mut out = Vec::new();
    for name in indices {
        let Some(m) = md.indices.get(name) else { continue };
        let mut states: Vec<(u32, RecoveryState)> = match m.state {
            IndexState::Open => match cs.index(name) {
                Ok(svc) => svc.shards().iter().map(|s| (s.id, s.recovery_state())).collect(),
                // Closed or deleted since the metadata was read, or no copy here.
                Err(_) => Vec::new(),
            },
            IndexState::Close => (0..m.number_of_shards())
                .map(|i| (i, cs.shard_store_path(&m.uuid, i)))
                .filter(|(_, store)| store.is_dir())
                .map(|(i, store)| (i, closed_shard_state(m.creation_date(), &store)))
                .collect(),
        };
        states.sort_by_key(|(id, _)| *id);
        for (shard, state) in states {
            if active_only && state.stage() == Stage::Done {
                continue;
            }
            out.push(ShardRecovery { index: name.clone(), shard, state, target: target.clone() });
        }
    }
    out
}

/// The EXISTING_STORE recovery of a closed shard: every file of its store reused, no translog
/// operation to replay, dated by the newest file (the commit written when the index closed), or
/// by the index's creation when the store has no file.
fn closed_shard_state(creation_date: i64, store: &Path) -> RecoveryState {
    let mut rs = RecoveryState::new(RecoverySource::ExistingStore, true);
    rs.advance(Stage::Index);
    let mut newest: Option<u64> = None;
    let mut files: Vec<(String, u64)> = Vec::new();
    if let Ok(dir) = std::fs::read_dir(store) {
        for entry in dir.take(MAX_STORE_FILES).flatten() {
            let Ok(meta) = entry.metadata() else { continue };
            if !meta.is_file() {
                continue;
            }
            if let Some(ms) =
                meta.modified().ok().and_then(|t| t.duration_since(UNIX_EPOCH).ok()).map(|d| d.as_millis() as u64)
            {
                newest = Some(newest.map_or(ms, |n| n.max(ms)));
            }
            files.push((entry.file_name().to_string_lossy().into_owned(), meta.len()));
        }
    }
    files.sort();
    for (name, len) in files {
        rs.index.add_file(name, len, true);
    }
    rs.advance(Stage::Translog);
    rs.translog.total = 0;
    rs.translog.total_on_start = 0;
    rs.advance(Stage::Done);
    rs.timer = Timer::completed_at(newest.unwrap_or_else(|| u64::try_from(creation_date).unwrap_or(0)));
    rs
}

/// `percent` as OpenSearch prints it (`%1.1f%%`: one decimal, halves rounded up).
pub fn percent_string(p: f64) -> String {
    format!("{:.1}%", (p * 10.0).round() / 10.0)
}

/// Percent of the files to recover (those not reused) that are recovered: 0 while nothing is
/// known, 100 when nothing is left (`RecoveryState.Index.recoveredFilesPercent`).
pub fn files_percent(rs: &RecoveryState) -> f64 {
    let i = &rs.index;
    progress(i.total_files, i.total_files.saturating_sub(i.reused_files), i.recovered_files)
}

/// Percent of the bytes to recover that are recovered (`recoveredBytesPercent`).
pub fn bytes_percent(rs: &RecoveryState) -> f64 {
    let i = &rs.index;
    progress(i.total_files, i.total_bytes.saturating_sub(i.reused_bytes), i.recovered_bytes)
}

fn progress(files: u64, to_recover: u64, recovered: u64) -> f64 {
    if files == 0 {
        0.0
    } else if to_recover == recovered {
        100.0
    } else {
        100.0 * recovered as f64 / to_recover as f64
    }
}

/// Percent of translog operations replayed: -1 when the total is unknown.
pub fn translog_percent(rs: &RecoveryState) -> f64 {
    match rs.translog.total {
        t if t < 0 => -1.0,
        0 => 100.0,
        t => 100.0 * rs.translog.recovered as f64 / t as f64,
    }
}

/// Writes `raw: value` and, with `human`, `readable: text` (`humanReadableField`).
fn human_field(
    o: &mut Map<String, Value>,
    human: bool,
    raw: &str,
    readable: &str,
    value: Value,
    text: impl FnOnce() -> String,
) {
    if human {
        o.insert(readable.to_string(), Value::String(text()));
    }
    o.insert(raw.to_string(), value);
}

fn millis_field(o: &mut Map<String, Value>, human: bool, raw: &str, readable: &str, ms: u64) {
    human_field(o, human, raw, readable, json!(ms), || human_millis(ms));
}

fn bytes_field(o: &mut Map<String, Value>, human: bool, raw: &str, readable: &str, b: u64) {
    human_field(o, human, raw, readable, json!(b), || human_bytes(b));
}

/// One shard's object (`RecoveryState.toXContent`).
pub fn shard_json(r: &ShardRecovery, detailed: bool, human: bool) -> Value {
    let rs = &r.state;
    let mut o = Map::new();
    o.insert("id".into(), json!(r.shard));
    o.insert("type".into(), json!(rs.source.name()));
    o.insert("stage".into(), json!(rs.stage().name()));
    o.insert("primary".into(), json!(rs.primary));
    let start = rs.timer.start_millis();
    human_field(&mut o, human, "start_time_in_millis", "start_time", json!(start), || iso(start));
    let stop = rs.timer.stop_millis();
    if stop > 0 {
        human_field(&mut o, human, "stop_time_in_millis", "stop_time", json!(stop), || iso(stop));
    }
    millis_field(&mut o, human, "total_time_in_millis", "total_time", rs.timer.total_millis());
    let source = match (rs.source, &rs.source_node) {
        (RecoverySource::ExistingStore, _) => json!({"bootstrap_new_history_uuid": false}),
        (RecoverySource::Peer, Some(p)) => {
            let host = p.transport_address.rsplit_once(':').map_or(p.transport_address.as_str(), |(h, _)| h);
            json!({"id": p.id, "host": host, "transport_address": p.transport_address, "ip": host, "name": p.name})
        }
        _ => json!({}),
    };
    o.insert("source".into(), source);
    let t = &r.target;
    o.insert(
        "target".into(),
        json!({
            "id": t.id,
            "host": t.host,
            "transport_address": t.transport_address,
            "ip": t.host,
            "name": t.name,
        }),
    );
    o.insert("index".into(), index_json(rs, detailed, human));
    let mut t = Map::new();
    t.insert("recovered".into(), json!(rs.translog.recovered));
    t.insert("total".into(), json!(rs.translog.total));
    t.insert("percent".into(), json!(percent_string(translog_percent(rs))));
    t.insert("total_on_start".into(), json!(rs.translog.total_on_start));
    millis_field(&mut t, human, "total_time_in_millis", "total_time", rs.translog.timer.total_millis());
    o.insert("translog".into(), Value::Object(t));
    let mut v = Map::new();
    // Fathom's start-up checksum verification is the verify stage itself.
    let verify = rs.verify_index.total_millis();
    millis_field(&mut v, human, "check_index_time_in_millis", "check_index_time", verify);
    millis_field(&mut v, human, "total_time_in_millis", "total_time", verify);
    o.insert("verify_index".into(), Value::Object(v));
    Value::Object(o)
}

/// Epoch millis as OpenSearch's default date printer (`strict_date_optional_time`, UTC).
fn iso(ms: u64) -> String {
    crate::engine::schema::date::format_date(i64::try_from(ms).unwrap_or(i64::MAX), "strict_date_optional_time")
}

fn index_json(rs: &RecoveryState, detailed: bool, human: bool) -> Value {
    let i = &rs.index;
    let mut size = Map::new();
    bytes_field(&mut size, human, "total_in_bytes", "total", i.total_bytes);
    bytes_field(&mut size, human, "reused_in_bytes", "reused", i.reused_bytes);
    bytes_field(&mut size, human, "recovered_in_bytes", "recovered", i.recovered_bytes);
    size.insert("percent".into(), json!(percent_string(bytes_percent(rs))));
    let mut files = Map::new();
    files.insert("total".into(), json!(i.total_files));
    files.insert("reused".into(), json!(i.reused_files));
    files.insert("recovered".into(), json!(i.recovered_files));
    files.insert("percent".into(), json!(percent_string(files_percent(rs))));
    if detailed {
        let details: Vec<Value> = i
            .details
            .iter()
            .map(|f| {
                let mut d = Map::new();
                d.insert("name".into(), json!(f.name));
                bytes_field(&mut d, human, "length_in_bytes", "length", f.length);
                d.insert("reused".into(), json!(f.reused));
                bytes_field(&mut d, human, "recovered_in_bytes", "recovered", f.recovered);
                Value::Object(d)
            })
            .collect();
        files.insert("details".into(), Value::Array(details));
    }
    let mut o = Map::new();
    o.insert("size".into(), Value::Object(size));
    o.insert("files".into(), Value::Object(files));
    millis_field(&mut o, human, "total_time_in_millis", "total_time", i.timer.total_millis());
    // No throttling happens in a store recovery: OpenSearch's UNKNOWN (-1ns) prints as 0 ms, "-1".
    human_field(&mut o, human, "source_throttle_time_in_millis", "source_throttle_time", json!(0), || "-1".into());
    human_field(&mut o, human, "target_throttle_time_in_millis", "target_throttle_time", json!(0), || "-1".into());
    Value::Object(o)
}

/// The `_recovery` body: `{index: {"shards": [...]}}` for every index with a recovery to show.
pub fn response_json(recs: &[ShardRecovery], detailed: bool, human: bool) -> Value {
    let mut out = Map::new();
    for r in recs {
        let entry = out.entry(r.index.clone()).or_insert_with(|| json!({"shards": []}));
        if let Some(shards) = entry.get_mut("shards").and_then(Value::as_array_mut) {
            shards.push(shard_json(r, detailed, human));
        }
    }
    Value::Object(out)
}

#[cfg(test)]
mod tests;
