//! The cluster-state parts of the operators' tools: voting configuration exclusions, weighted
//! shard routing and the decommission of an awareness attribute value. They live in
//! [`super::metadata::Metadata`], so they travel in every Raft entry and snapshot and survive
//! restarts and cluster-manager failovers.

use serde_json::{json, Map, Value};
use std::collections::BTreeMap;

/// The node id or name OpenSearch records for an exclusion whose other half is not known.
pub const ABSENT: &str = "_absent_";

/// One voting configuration exclusion (`VotingConfigExclusion`).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct VotingConfigExclusion {
    pub node_id: String,
    pub node_name: String,
}

impl VotingConfigExclusion {
    /// OpenSearch's `toString()`: `{name}{id}` (the name part only when it is non-empty).
    pub fn describe(&self) -> String {
        if self.node_name.is_empty() {
            format!("{{{}}}", self.node_id)
        } else {
            format!("{{{}}}{{{}}}", self.node_name, self.node_id)
        }
    }

    pub fn to_json(&self) -> Value {
        json!({"node_id": self.node_id, "node_name": self.node_name})
    }

    fn from_json(v: &Value) -> Option<VotingConfigExclusion> {
        Some(VotingConfigExclusion {
            node_id: v["node_id"].as_str()?.to_string(),
            node_name: v["node_name"].as_str()?.to_string(),
        })
    }
}

/// `metadata.cluster_coordination`'s part that lives in the metadata (the configurations come
/// from the Raft membership).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CoordinationMetadata {
    /// In insertion order, without duplicates.
    pub voting_config_exclusions: Vec<VotingConfigExclusion>,
}

impl CoordinationMetadata {
    pub fn to_json(&self) -> Value {
        json!({"voting_config_exclusions": self.voting_config_exclusions.iter().map(|e| e.to_json()).collect::<Vec<_>>()})
    }

    fn from_json(v: &Value) -> CoordinationMetadata {
        let list = v["voting_config_exclusions"]
            .as_array()
            .map(|a| a.iter().filter_map(VotingConfigExclusion::from_json).collect());
        CoordinationMetadata { voting_config_exclusions: list.unwrap_or_default() }
    }

    /// The node ids that may not vote (an `_absent_` id names no node).
    pub fn excluded_ids(&self) -> impl Iterator<Item = &str> {
        self.voting_config_exclusions.iter().map(|e| e.node_id.as_str()).filter(|id| *id != ABSENT)
    }
}

/// Weighted shard routing (`WeightedRoutingMetadata`): search traffic per awareness attribute
/// value. The deleted form keeps the version with an empty attribute and no weights.
#[derive(Debug, Clone, PartialEq)]
pub struct WeightedRouting {
    pub attribute: String,
    pub weights: BTreeMap<String, f64>,
    pub version: i64,
}

impl WeightedRouting {
    /// Weights are set (not the deleted form).
    pub fn is_set(&self) -> bool {
        !self.attribute.is_empty() && !self.weights.is_empty()
    }

    /// The state file's form (and `_cluster/state`'s `weighted_shard_routing`).
    pub fn to_json(&self) -> Value {
        let mut awareness = Map::new();
        if self.is_set() {
            awareness.insert(self.attribute.clone(), json!(self.weights));
        }
        json!({"awareness": awareness, "_version": self.version})
    }

    fn from_json(v: &Value) -> Option<WeightedRouting> {
        let version = v["_version"].as_i64()?;
        let (attribute, weights) = match v["awareness"].as_object().and_then(|m| m.iter().next()) {
            Some((attr, w)) => {
                let weights =
                    w.as_object().map(|m| m.iter().filter_map(|(k, x)| Some((k.clone(), x.as_f64()?))).collect());
                (attr.clone(), weights.unwrap_or_default())
            }
            None => (String::new(), BTreeMap::new()),
        };
        Some(WeightedRouting { attribute, weights, version })
    }
}

/// Where a decommission is (`DecommissionStatus`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DecommissionStatus {
    Init,
    Draining,
    InProgress,
    Successful,
    Failed,
}

impl DecommissionStatus {
    /// The enum name (`_status` answers, messages).
    pub fn name(self) -> &'static str {
        match self {
            DecommissionStatus::Init => "INIT",
            DecommissionStatus::Draining => "DRAINING",
            DecommissionStatus::InProgress => "IN_PROGRESS",
            DecommissionStatus::Successful => "SUCCESSFUL",
            DecommissionStatus::Failed => "FAILED",
        }
    }

    /// The lower-case `status()` string (`_cluster/state`, join refusals).
    pub fn status(self) -> &'static str {
        match self {
            DecommissionStatus::Init => "init",
            DecommissionStatus::Draining => "draining",
            DecommissionStatus::InProgress => "in_progress",
            DecommissionStatus::Successful => "successful",
            DecommissionStatus::Failed => "failed",
        }
    }

    pub fn from_status(s: &str) -> Option<DecommissionStatus> {
        [Self::Init, Self::Draining, Self::InProgress, Self::Successful, Self::Failed]
            .into_iter()
            .find(|x| x.status() == s)
    }

    /// Whether nodes with the attribute value are out of the cluster in this status.
    pub fn keeps_nodes_out(self) -> bool {
        matches!(self, DecommissionStatus::Draining | DecommissionStatus::InProgress | DecommissionStatus::Successful)
    }

    /// OpenSearch's `validateNewStatus`: the statuses a move to `self` may come from
    /// (the same status and FAILED are always allowed).
    pub fn allowed_from(self) -> &'static [DecommissionStatus] {
        match self {
            DecommissionStatus::Draining => &[DecommissionStatus::Init],
            DecommissionStatus::InProgress => &[DecommissionStatus::Draining, DecommissionStatus::Init],
            DecommissionStatus::Successful => &[DecommissionStatus::InProgress],
            DecommissionStatus::Init | DecommissionStatus::Failed => &[],
        }
    }

    /// `Ok` when `current` may move to `self`, else OpenSearch's `illegal_state_exception` text.
    pub fn validate_move_from(self, current: DecommissionStatus) -> Result<(), String> {
        if self == current || self == DecommissionStatus::Failed || self.allowed_from().contains(&current) {
            return Ok(());
        }
        let expected: Vec<&str> = self.allowed_from().iter().map(|s| s.name()).collect();
        Err(format!(
            "can't move decommission status to [{}]. current status: [{}] (expected [[{}]])",
            self.name(),
            current.name(),
            expected.join(", ")
        ))
    }
}

/// A decommission of one awareness attribute value (`DecommissionAttributeMetadata`), with the
/// timers a new cluster manager needs to carry on where the old one was.
#[derive(Debug, Clone, PartialEq)]
pub struct DecommissionMetadata {
    pub attribute: String,
    pub value: String,
    pub status: DecommissionStatus,
    pub request_id: String,
    /// Wall-clock millis when INIT was registered.
    pub started_millis: i64,
    /// How long DRAINING lasts (0 with `no_delay`).
    pub delay_timeout_millis: i64,
    pub no_delay: bool,
    /// When DRAINING ends (set when DRAINING is published).
    pub draining_until_millis: Option<i64>,
    /// When IN_PROGRESS began (for its deadline).
    pub in_progress_since_millis: Option<i64>,
}

impl DecommissionMetadata {
    /// OpenSearch's `DecommissionAttribute.toString()`.
    pub fn describe_attribute(attribute: &str, value: &str) -> String {
        format!("DecommissionAttribute{{attributeName='{attribute}', attributeValue='{value}'}}")
    }

    /// `_cluster/state`'s `decommissionedAttribute`.
    pub fn to_state_api_json(&self) -> Value {
        json!({"awareness": {self.attribute.clone(): self.value}, "status": self.status.status(), "requestID": self.request_id})
    }

    /// The state file's form (the API form plus the timers).
    pub fn to_json(&self) -> Value {
        let mut v = self.to_state_api_json();
        v["started_millis"] = json!(self.started_millis);
        v["delay_timeout_millis"] = json!(self.delay_timeout_millis);
        v["no_delay"] = json!(self.no_delay);
        v["draining_until_millis"] = json!(self.draining_until_millis);
        v["in_progress_since_millis"] = json!(self.in_progress_since_millis);
        v
    }

    fn from_json(v: &Value) -> Option<DecommissionMetadata> {
        let (attribute, value) = v["awareness"].as_object()?.iter().next()?;
        Some(DecommissionMetadata {
            attribute: attribute.clone(),
            value: value.as_str()?.to_string(),
            status: DecommissionStatus::from_status(v["status"].as_str()?)?,
            request_id: v["requestID"].as_str().unwrap_or_default().to_string(),
            started_millis: v["started_millis"].as_i64().unwrap_or(0),
            delay_timeout_millis: v["delay_timeout_millis"].as_i64().unwrap_or(0),
            no_delay: v["no_delay"].as_bool().unwrap_or(false),
            draining_until_millis: v["draining_until_millis"].as_i64(),
            in_progress_since_millis: v["in_progress_since_millis"].as_i64(),
        })
    }

    /// Whether a node with these attributes may be in the cluster (`nodeCommissioned`).
    pub fn commissions(&self, attributes: &BTreeMap<String, String>) -> bool {
        !(self.status.keeps_nodes_out() && attributes.get(&self.attribute) == Some(&self.value))
    }
}

/// The three parts in the state file's JSON, read back (absent parts: defaults).
pub(super) fn read_parts(v: &Value) -> (CoordinationMetadata, Option<WeightedRouting>, Option<DecommissionMetadata>) {
    (
        CoordinationMetadata::from_json(&v["coordination"]),
        WeightedRouting::from_json(&v["weighted_shard_routing"]),
        DecommissionMetadata::from_json(&v["decommission"]),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_round_trips() {
        let c = CoordinationMetadata {
            voting_config_exclusions: vec![
                VotingConfigExclusion { node_id: "a".into(), node_name: "n1".into() },
                VotingConfigExclusion { node_id: ABSENT.into(), node_name: "ghost".into() },
            ],
        };
        let w = WeightedRouting {
            attribute: "zone".into(),
            weights: [("a".into(), 1.0), ("b".into(), 0.0)].into(),
            version: 3,
        };
        let d = DecommissionMetadata {
            attribute: "zone".into(),
            value: "b".into(),
            status: DecommissionStatus::Draining,
            request_id: "r".into(),
            started_millis: 5,
            delay_timeout_millis: 120_000,
            no_delay: false,
            draining_until_millis: Some(9),
            in_progress_since_millis: None,
        };
        let v =
            json!({"coordination": c.to_json(), "weighted_shard_routing": w.to_json(), "decommission": d.to_json()});
        assert_eq!(read_parts(&v), (c.clone(), Some(w), Some(d)));
        assert_eq!(c.excluded_ids().collect::<Vec<_>>(), vec!["a"]);
        let deleted = WeightedRouting { attribute: String::new(), weights: BTreeMap::new(), version: 4 };
        assert_eq!(deleted.to_json(), json!({"awareness": {}, "_version": 4}));
        assert_eq!(WeightedRouting::from_json(&deleted.to_json()), Some(deleted));
        assert_eq!(read_parts(&json!({})), (CoordinationMetadata::default(), None, None));
    }

    #[test]
    fn status_moves() {
        use DecommissionStatus::*;
        assert!(Draining.validate_move_from(Init).is_ok());
        assert!(InProgress.validate_move_from(Init).is_ok());
        assert!(Failed.validate_move_from(Successful).is_ok());
        assert_eq!(
            Successful.validate_move_from(Draining).unwrap_err(),
            "can't move decommission status to [SUCCESSFUL]. current status: [DRAINING] (expected [[IN_PROGRESS]])"
        );
        assert_eq!(
            InProgress.validate_move_from(Successful).unwrap_err(),
            "can't move decommission status to [IN_PROGRESS]. current status: [SUCCESSFUL] (expected [[DRAINING, INIT]])"
        );
    }

    #[test]
    fn exclusion_describe() {
        let e = VotingConfigExclusion { node_id: "id1".into(), node_name: ABSENT.into() };
        assert_eq!(e.describe(), "{_absent_}{id1}");
    }
}
