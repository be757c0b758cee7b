//! An index or delete of one document whose primary is on another node: sent there as a
//! one-item shard-level bulk (OpenSearch runs single-document writes through the bulk action
//! too), its answer read back as this request's outcome.

use std::time::{Duration, Instant};

use serde_json::{json, Map, Value};

use super::{ActiveWait, Refresh, WriteOutcome};
use crate::action::bulk::remote::{send_shard_bulk, ShardBulkDefaults};
use crate::action::deferred::Deferred;
use crate::cluster::routing::shard_id;
use crate::cluster::routing_table::ShardState;
use crate::cluster::{ClusterService, IndexService};
use crate::engine::translog::Location;
use crate::error::{ErrorKind, OsError, OsResult};
use crate::shard::engine::WriteResult;
use crate::shard::versioning::{Constraints, VersionType};

/// The node holding the active primary of the document's shard, when it is another node.
pub fn remote_primary(cs: &ClusterService, svc: &IndexService, id: &str, routing: Option<&str>) -> Option<String> {
    let m = svc.metadata();
    let shard = shard_id(routing.unwrap_or(id), m.number_of_shards(), m.routing_num_shards);
    let st = cs.state();
    let p = st.routing.shard(&svc.name, shard)?.primary()?;
    if !matches!(p.state, ShardState::Started | ShardState::Relocating) {
        return None;
    }
    p.node.clone().filter(|n| *n != cs.node.node_id)
}

/// Errors after which a write is tried again on the next cluster state (OpenSearch's
/// `ReroutePhase` retries): the primary's node cannot be reached, the primary is not active
/// (failing over), or no cluster manager is elected. A timeout is not among them: the write may be running.
pub(crate) fn retryable(cs: &ClusterService, e: &OsError) -> bool {
    // No cluster manager (the only retryable block, 503): the next one lifts it.
    if e.kind == ErrorKind::ClusterBlock && e.status == 503 {
        return true;
    }
    // A node alone has no other copy to wait for.
    cs.state().nodes.len() > 1
        && matches!(
            e.kind,
            ErrorKind::ConnectTransport
                | ErrorKind::NodeDisconnected
                | ErrorKind::NodeNotConnected
                | ErrorKind::UnavailableShards
        )
}

/// Runs `attempt`, and again after each newer cluster state while it fails with a
/// [`retryable`] error, until `timeout`; the last outcome.
pub fn retry_primary<T>(
    cs: &ClusterService,
    timeout: Duration,
    mut attempt: impl FnMut() -> OsResult<T>,
) -> OsResult<T> {
    let deadline = Instant::now() + timeout;
    loop {
        let seen = cs.state().version;
        match attempt() {
            Err(e) if retryable(cs, &e) && Instant::now() < deadline => {
                let left = deadline.saturating_duration_since(Instant::now());
                // A state that moved on, or at most a second (a node's failure is noticed by
                // the cluster manager first; the state follows).
                cs.wait_for_state(left.min(Duration::from_secs(1)), |st| st.version > seen);
            }
            r => return r,
        }
    }
}

/// What the primary's node reported of the replicas (`_shards` of the item).
fn replicated_of(item: &Value) -> crate::cluster::replication::Replicated {
    let s = &item["_shards"];
    let failed = s["failures"]
        .as_array()
        .map(|f| {
            f.iter()
                .map(|x| {
                    let node = x["_node"].as_str().unwrap_or_default().to_string();
                    (node, x["reason"]["reason"].as_str().unwrap_or_default().to_string())
                })
                .collect()
        })
        .unwrap_or_default();
    crate::cluster::replication::Replicated {
        shard: s["failures"][0]["_shard"].as_u64().unwrap_or(0) as u32,
        successful: (s["successful"].as_u64().unwrap_or(1) as u32).saturating_sub(1),
        failed,
    }
}

/// The action line of the item.
fn action_line(op: &str, index: &str, id: &str, routing: Option<&str>, c: &Constraints) -> Vec<u8> {
    let mut m = Map::new();
    m.insert("_index".into(), json!(index));
    m.insert("_id".into(), json!(id));
    if let Some(r) = routing {
        m.insert("routing".into(), json!(r));
    }
    if let Some(s) = c.if_seq_no {
        m.insert("if_seq_no".into(), json!(s));
    }
    if let Some(t) = c.if_primary_term {
        m.insert("if_primary_term".into(), json!(t));
    }
    if let Some(v) = c.version {
        m.insert("version".into(), json!(v));
    }
    match c.version_type {
        VersionType::Internal => {}
        VersionType::External => {
            m.insert("version_type".into(), json!("external"));
        }
        VersionType::ExternalGte => {
            m.insert("version_type".into(), json!("external_gte"));
        }
    }
    let mut out = serde_json::to_vec(&json!({ op: Value::Object(m) })).unwrap_or_default();
    out.push(b'\n');
    out
}

/// Sends one index (`source: Some`) or delete item to `node`; the item's answer as an outcome.
#[allow(clippy::too_many_arguments)]
pub fn write(
    cs: &ClusterService,
    node: &str,
    index: &str,
    id: &str,
    routing: Option<&str>,
    c: &Constraints,
    source: Option<&[u8]>,
    refresh: Refresh,
    wait: ActiveWait,
) -> OsResult<WriteOutcome> {
    let op = match source {
        Some(_) if c.create => "create",
        Some(_) => "index",
        None => "delete",
    };
    let mut body = action_line(op, index, id, routing, c);
    if let Some(s) = source {
        body.extend_from_slice(s);
        body.push(b'\n');
    }
    let d = ShardBulkDefaults { refresh, wait };
    let answer = send_shard_bulk(cs, node, &d, &body)?;
    let item = &answer["items"][0][op];
    let status = item["status"].as_u64().and_then(|s| u16::try_from(s).ok()).unwrap_or(500);
    if let Some(e) = item.get("error") {
        return Err(OsError::from_json(e, status));
    }
    let result: &'static str = match item["result"].as_str() {
        Some("created") => "created",
        Some("updated") => "updated",
        Some("deleted") => "deleted",
        Some("not_found") => "not_found",
        _ => "noop",
    };
    let w = WriteResult {
        seq_no: item["_seq_no"].as_i64().unwrap_or(-2),
        primary_term: item["_primary_term"].as_u64().unwrap_or(0),
        version: item["_version"].as_i64().unwrap_or(0),
        created_or_found: matches!(result, "created" | "deleted"),
        location: Location { generation: 0, offset: 0, size: 0 },
    };
    Ok(WriteOutcome {
        index: item["_index"].as_str().unwrap_or(index).to_string(),
        id: id.to_string(),
        result,
        write: Some(w),
        shards_total: item["_shards"]["total"].as_u64().unwrap_or(1) as u32,
        forced_refresh: item["forced_refresh"] == true,
        deferred: Deferred::default(),
        replicated: replicated_of(item),
        status,
    })
}
