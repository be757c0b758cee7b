//! The plugin's `configupdate` broadcast (`cluster:admin/opendistro_security/config/update`):
//! after a write to the security index, every node of the cluster reloads its configuration from
//! the index. A node answers `{"node": id, "reloaded": true}` or the error that kept it from
//! loading; the caller reports the first failure, as the plugin's `ConfigUpdatingActionListener`.

use std::time::Duration;

use serde_json::{json, Value};

use super::index;
use crate::action::nodes_fanout::{fan_out, members, Gathered};
use crate::cluster::ClusterService;
use crate::error::{ErrorKind, OsError, OsResult};
use crate::security::config::SecurityService;

/// The transport action every node answers.
pub const ACTION_CONFIG_UPDATE: &str = "cluster:admin/opendistro_security/config/update";

/// How long the broadcast waits for a node.
const TIMEOUT: Duration = Duration::from_secs(30);

/// Reloads this node's configuration from `index`. A missing index changes nothing.
pub fn reload_local(cs: &ClusterService, svc: &SecurityService, index_name: &str) -> OsResult<bool> {
    match index::load(cs, index_name)? {
        Some(config) => {
            svc.reload_from_index(config);
            tracing::info!(generation = svc.generation(), "security configuration reloaded from the index");
            Ok(true)
        }
        None => Ok(false),
    }
}

/// The transport handler: `{"index": name, "config_types": [...]}` → this node reloads.
pub fn handle(cs: &ClusterService, svc: Option<&SecurityService>, payload: &[u8]) -> OsResult<Vec<u8>> {
    let req: Value = serde_json::from_slice(payload)
        .map_err(|e| OsError::illegal(format!("unreadable [{ACTION_CONFIG_UPDATE}] request: {e}")))?;
    let index_name = req.get("index").and_then(Value::as_str).unwrap_or(index::DEFAULT_INDEX);
    let Some(svc) = svc else {
        return Err(OsError::new(ErrorKind::IllegalState, "OpenSearch Security not initialized."));
    };
    let reloaded = reload_local(cs, svc, index_name)?;
    Ok(serde_json::to_vec(&json!({"node": cs.node.node_id, "reloaded": reloaded})).unwrap_or_default())
}

/// Tells every node (this one included) to reload: the answers and the failed nodes.
pub fn broadcast_gather(cs: &ClusterService, svc: &SecurityService, index_name: &str, types: &[&str]) -> Gathered {
    let ids: Vec<String> = members(cs).into_iter().map(|m| m.node_id).collect();
    let payload = json!({"index": index_name, "config_types": types});
    let local = || reload_local(cs, svc, index_name).map(|r| json!({"node": cs.node.node_id, "reloaded": r}));
    fan_out(cs, &ids, ACTION_CONFIG_UPDATE, &payload, TIMEOUT, &local)
}

/// [`broadcast_gather`]; the first node failure is the error.
pub fn broadcast(cs: &ClusterService, svc: &SecurityService, index_name: &str, types: &[&str]) -> OsResult<()> {
    let g = broadcast_gather(cs, svc, index_name, types);
    match g.failures.into_iter().next() {
        Some((m, e)) => Err(OsError::internal(format!(
            "security configuration reload failed on node [{}]: {}",
            m.node_id, e.reason
        ))),
        None => Ok(()),
    }
}
