//! `_cluster/decommission/awareness`: register a decommission (`cluster:admin/decommission/awareness/put`),
//! read its status, and recommission. The cluster manager walks the registered decommission
//! through its states (`node/decommission.rs`); the PUT answers once the zone's
//! cluster-manager-eligible nodes are out of the voting configuration, as OpenSearch's does.

use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::cluster::blocks::Level;
use crate::cluster::decommission::{check_request, exclusions_for, STEP_TIMEOUT_MILLIS};
use crate::cluster::operations_metadata::{DecommissionMetadata, DecommissionStatus};
use crate::cluster::state::ClusterState;
use crate::cluster::ClusterService;
use crate::error::{ErrorKind, OsError, OsResult};

/// A parsed `PUT /_cluster/decommission/awareness/{attr}/{value}`.
#[derive(Debug, Clone, PartialEq)]
pub struct DecommissionRequest {
    pub attribute: String,
    pub value: String,
    pub delay_timeout: Duration,
    pub no_delay: bool,
}

/// The default drain (`DEFAULT_NODE_DRAINING_TIMEOUT`).
pub const DEFAULT_DELAY: Duration = Duration::from_secs(120);

impl DecommissionRequest {
    /// `DecommissionRequest.validate()`.
    pub fn validate(&self) -> OsResult<()> {
        let mut errors = Vec::new();
        if self.attribute.is_empty() {
            errors.push("attribute name is missing".to_string());
        }
        if self.value.is_empty() {
            errors.push("attribute value is missing".to_string());
        }
        if self.no_delay && self.delay_timeout.as_secs() > 0 {
            errors.push(format!(
                "Invalid decommission request. no_delay is true and delay_timeout is set to {}] Seconds",
                self.delay_timeout.as_secs()
            ));
        }
        if errors.is_empty() {
            Ok(())
        } else {
            Err(OsError::validation(&errors))
        }
    }
}

/// Registers the decommission (INIT, with the zone's cluster-manager-eligible nodes excluded
/// from voting in the same change) and waits until the exclusions took effect and the elected
/// cluster manager is outside the zone.
pub fn put(cs: &ClusterService, req: &DecommissionRequest) -> OsResult<Value> {
    req.validate()?;
    cs.check_cluster_manager_blocks(Level::MetadataWrite)?;
    let request_id = crate::cluster::indices::new_uuid();
    let excluded = cs.update(|md| {
        let st = ClusterState { metadata: std::sync::Arc::new(md.clone()), ..(*cs.state()).clone() };
        let settings = cs.cluster_settings(md);
        check_request(md, &settings, &req.attribute, &req.value)?;
        let max = crate::cluster::voting_exclusions::max_exclusions(&settings)?;
        let new = exclusions_for(&st, &req.attribute, &req.value, max)?;
        let ids: Vec<String> = new.iter().map(|e| e.node_id.clone()).collect();
        md.coordination.voting_config_exclusions.extend(new);
        md.decommission = Some(DecommissionMetadata {
            attribute: req.attribute.clone(),
            value: req.value.clone(),
            status: DecommissionStatus::Init,
            request_id: request_id.clone(),
            started_millis: crate::clock::now_millis(),
            delay_timeout_millis: if req.no_delay { 0 } else { req.delay_timeout.as_millis() as i64 },
            no_delay: req.no_delay,
            draining_until_millis: None,
            in_progress_since_millis: None,
        });
        Ok((true, ids))
    })?;
    let deadline = Instant::now() + Duration::from_millis(STEP_TIMEOUT_MILLIS as u64);
    loop {
        if let Some(view) = cs.coordination() {
            let out_of_config = !view.last_committed_config.iter().any(|id| excluded.contains(id));
            let manager_outside = view.cluster_manager.as_ref().is_some_and(|m| !excluded.contains(m));
            if out_of_config && manager_outside {
                return Ok(json!({"acknowledged": true}));
            }
        } else {
            // A node without coordination (tests of the action alone) has no configuration.
            return Ok(json!({"acknowledged": true}));
        }
        if Instant::now() >= deadline {
            return Err(OsError::new(
                ErrorKind::Timeout,
                format!(
                    "timed out [2m] while removing to-be-decommissioned cluster manager eligible nodes [[{}]] from voting config",
                    excluded.join(", ")
                ),
            ));
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// `GET /_cluster/decommission/awareness/{attr}/_status`: `{value: STATUS}` or `{}`.
pub fn status(cs: &ClusterService, attribute: &str) -> OsResult<Value> {
    if attribute.is_empty() {
        return Err(OsError::validation(&["attribute name is missing".into()]));
    }
    cs.check_blocks(Level::MetadataRead, &[])?;
    let md = cs.metadata();
    Ok(match &md.decommission {
        Some(d) if d.attribute == attribute => json!({d.value.clone(): d.status.name()}),
        _ => json!({}),
    })
}

/// `DELETE /_cluster/decommission/awareness`: clears the voting exclusions and the decommission
/// in one change; the zone's nodes may join again.
pub fn delete(cs: &ClusterService) -> OsResult<Value> {
    cs.check_cluster_manager_blocks(Level::MetadataWrite)?;
    cs.update(|md| {
        let changed = md.decommission.is_some() || !md.coordination.voting_config_exclusions.is_empty();
        md.decommission = None;
        md.coordination.voting_config_exclusions.clear();
        Ok((changed, ()))
    })?;
    Ok(json!({"acknowledged": true}))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn req(attr: &str, value: &str, delay: u64, no_delay: bool) -> DecommissionRequest {
        DecommissionRequest {
            attribute: attr.into(),
            value: value.into(),
            delay_timeout: Duration::from_secs(delay),
            no_delay,
        }
    }

    #[test]
    fn validation_messages() {
        assert!(req("zone", "b", 120, false).validate().is_ok());
        assert!(req("zone", "b", 0, true).validate().is_ok());
        assert_eq!(
            req("", "", 120, false).validate().unwrap_err().reason,
            "Validation Failed: 1: attribute name is missing;2: attribute value is missing;"
        );
        assert_eq!(
            req("zone", "b", 30, true).validate().unwrap_err().reason,
            "Validation Failed: 1: Invalid decommission request. no_delay is true and delay_timeout is set to 30] Seconds;"
        );
    }
}
