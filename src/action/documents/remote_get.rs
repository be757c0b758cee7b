//! Gets on the copy their `preference` picks (OpenSearch's `TransportSingleShardAction` behind
//! `TransportGetAction`): this node's copy when it has one (unless the preference says
//! otherwise), else another node's, sent as `indices:data/read/get[s]`; a copy that cannot
//! answer (its node gone, the shard not serving there) passes the get to the next copy. A
//! replica answers a realtime get as its primary does: it has applied every acknowledged write.

use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{get_local, GetRequest};
use crate::action::search::copy_choice::{candidates, check_preference, Choice, Weighting};
use crate::action::source_filter::SourceFilter;
use crate::cluster::routing::shard_id;
use crate::cluster::{ClusterService, IndexService};
use crate::error::{ErrorKind, OsError, OsResult};
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
    #[serde(default)]
    preference: Option<String>,
}

#[derive(Debug, Serialize, Deserialize)]
struct WireAnswer {
    found: bool,
    body: Value,
}

/// Whether a copy's failure passes the get to the next copy (the copy, not the request, failed).
fn copy_failed(e: &OsError) -> bool {
    matches!(
        e.kind,
        ErrorKind::ConnectTransport
            | ErrorKind::NodeDisconnected
            | ErrorKind::NodeNotConnected
            | ErrorKind::UnavailableShards
            | ErrorKind::ShardNotFound
    )
}

/// The get on the copies of its shard in preference order, until one answers.
pub fn get_on_copies(cs: &ClusterService, svc: &IndexService, req: &GetRequest) -> OsResult<(bool, Value)> {
    let key = req.routing.as_deref().unwrap_or(&req.id);
    read_on_copies(cs, svc, key, req.preference.as_deref(), || get_local(cs, req), |node| forward(cs, node, req))
}

/// A read of the shard `routing_key` routes to, run on its copies in `preference` order (`here`
/// on this node's, `there` on another node's) until one answers; OpenSearch's
/// `TransportSingleShardAction`. With no copy in the table that fits, this node answers (or
/// fails as a read of a shard it does not hold).
pub fn read_on_copies<T>(
    cs: &ClusterService,
    svc: &IndexService,
    routing_key: &str,
    preference: Option<&str>,
    here: impl Fn() -> OsResult<T>,
    there: impl Fn(&str) -> OsResult<T>,
) -> OsResult<T> {
    let m = svc.metadata();
    let shard = shard_id(routing_key, m.number_of_shards(), m.routing_num_shards);
    let local = svc.shard(shard).is_some();
    let st = cs.state();
    let weighting = Weighting::in_force(&st.metadata, || cs.cluster_settings(&st.metadata));
    check_preference(preference, weighting.as_ref())?;
    let copies = candidates(&st, &cs.node.node_id, &svc.name, shard, local, preference, weighting.as_ref());
    if copies.is_empty() {
        return here();
    }
    let mut last = None;
    for c in copies {
        let r = match &c {
            Choice::Local => here(),
            Choice::Remote(node) => there(node),
            Choice::Nothing => continue,
        };
        match r {
            Err(e) if copy_failed(&e) => last = Some(e),
            other => return other,
        }
    }
    Err(last.unwrap_or_else(|| OsError::internal("no copy answered the read")))
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
        preference: req.preference.clone(),
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
        preference: w.preference,
    };
    // The sender picked this copy: it answers here (or fails, and the sender tries the next).
    let (found, body) = get_local(cs, &req)?;
    serde_json::to_vec(&WireAnswer { found, body }).map_err(|e| OsError::internal(e.to_string()))
}
