//! A get whose shard has no copy on this node (OpenSearch's `TransportGetAction` on a shard
//! of another node): sent as `indices:data/read/get[s]` to a node holding an active copy (the
//! primary first, as a realtime get reads the primary's latest), answered as that node's get.

use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{get_local, GetRequest};
use crate::action::source_filter::SourceFilter;
use crate::cluster::routing::shard_id;
use crate::cluster::{ClusterService, IndexService};
use crate::error::{OsError, OsResult};
use crate::shard::versioning::VersionType;

/// The shard-level get.
pub const ACTION_GET: &str = "indices:data/read/get[s]";

const TIMEOUT: Duration = Duration::from_secs(60);

#[derive(Debug, Serialize, Deserialize)]
struct WireGet {
    index: String,
    id: String,
    routing: Option<String>,
    source: Option<(bool, Vec<String>, Vec<String>)>,
    stored_fields: Option<Vec<String>>,
    version: Option<i64>,
    version_type: String,
    refresh: bool,
    not_realtime: bool,
}

#[derive(Debug, Serialize, Deserialize)]
struct WireAnswer {
    found: bool,
    body: Value,
}

/// The node holding an active copy of the request's shard, when this node holds none.
pub fn remote_holder(cs: &ClusterService, svc: &IndexService, req: &GetRequest) -> Option<String> {
    let m = svc.metadata();
    let shard = shard_id(req.routing.as_deref().unwrap_or(&req.id), m.number_of_shards(), m.routing_num_shards);
    if svc.shard(shard).is_some() {
        return None;
    }
    let st = cs.state();
    let table = st.routing.shard(&svc.name, shard)?;
    let mut copies: Vec<_> = table.copies.iter().filter(|c| c.active()).collect();
    copies.sort_by_key(|c| !c.primary);
    copies.first().and_then(|c| c.node.clone()).filter(|n| *n != cs.node.node_id)
}

/// Runs the get on `node`.
pub fn forward(cs: &ClusterService, node: &str, req: &GetRequest) -> OsResult<(bool, Value)> {
    let w = WireGet {
        index: req.index.clone(),
        id: req.id.clone(),
        routing: req.routing.clone(),
        source: req.source.as_ref().map(|s| (s.disabled, s.includes.clone(), s.excludes.clone())),
        stored_fields: req.stored_fields.clone(),
        version: req.version,
        version_type: match req.version_type {
            VersionType::Internal => "internal",
            VersionType::External => "external",
            VersionType::ExternalGte => "external_gte",
        }
        .into(),
        refresh: req.refresh,
        not_realtime: req.not_realtime,
    };
    let payload = serde_json::to_vec(&w).map_err(|e| OsError::internal(e.to_string()))?;
    let bytes = cs.send(node, ACTION_GET, payload, TIMEOUT)?;
    let a: WireAnswer =
        serde_json::from_slice(&bytes).map_err(|e| OsError::internal(format!("malformed get answer: {e}")))?;
    Ok((a.found, a.body))
}

/// The receiving side of [`ACTION_GET`]: the get on this node's copy.
pub fn handle(cs: &ClusterService, payload: &[u8]) -> OsResult<Vec<u8>> {
    let w: WireGet =
        serde_json::from_slice(payload).map_err(|e| OsError::illegal(format!("malformed get request: {e}")))?;
    let req = GetRequest {
        index: w.index,
        id: w.id,
        routing: w.routing,
        source: w.source.map(|(disabled, includes, excludes)| SourceFilter { disabled, includes, excludes }),
        stored_fields: w.stored_fields,
        version: w.version,
        version_type: super::parse_version_type(Some(&w.version_type))?,
        refresh: w.refresh,
        not_realtime: w.not_realtime,
    };
    let (found, body) = get_local(cs, &req)?;
    serde_json::to_vec(&WireAnswer { found, body }).map_err(|e| OsError::internal(e.to_string()))
}
