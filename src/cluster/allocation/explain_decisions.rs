//! The pieces of an allocation explanation: node results (`NodeAllocationResult`), their order
//! (`AbstractAllocationDecision.sortNodeDecisions`) and OpenSearch's decision names.

use serde_json::{json, Map, Value};

use super::combine::Decisions;
use super::AllocNode;

/// `AllocationDecision`, in its declaration order (the sort order of node results).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Outcome {
    Yes,
    Throttled,
    No,
    WorseBalance,
    AwaitingInfo,
    AllocationDelayed,
    NoValidShardCopy,
    NoAttempt,
}

impl Outcome {
    pub(crate) fn name(self) -> &'static str {
        match self {
            Outcome::Yes => "yes",
            Outcome::Throttled => "throttled",
            Outcome::No => "no",
            Outcome::WorseBalance => "worse_balance",
            Outcome::AwaitingInfo => "awaiting_info",
            Outcome::AllocationDelayed => "allocation_delayed",
            Outcome::NoValidShardCopy => "no_valid_shard_copy",
            Outcome::NoAttempt => "no_attempt",
        }
    }
    pub(crate) fn of(k: super::deciders::Kind) -> Outcome {
        match k {
            super::deciders::Kind::Yes => Outcome::Yes,
            super::deciders::Kind::Throttle => Outcome::Throttled,
            super::deciders::Kind::No => Outcome::No,
        }
    }
    /// `AllocationDecision.fromAllocationStatus` of an unassigned copy's last status.
    pub(crate) fn of_status(s: &str) -> Outcome {
        match s {
            "deciders_throttled" => Outcome::Throttled,
            "fetching_shard_data" => Outcome::AwaitingInfo,
            "delayed_allocation" => Outcome::AllocationDelayed,
            "no_valid_shard_copy" => Outcome::NoValidShardCopy,
            "no_attempt" => Outcome::NoAttempt,
            _ => Outcome::No,
        }
    }
}

/// One node's result.
pub(crate) struct NodeResult<'a> {
    pub node: &'a AllocNode,
    pub outcome: Outcome,
    pub store: Option<Value>,
    pub ranking: usize,
    pub decisions: Option<Decisions>,
}

/// `discoveryNodeToXContent`: `id`/`name` inside an object of its own, `node_id`/`node_name`
/// inline; attributes only when there are some.
pub(crate) fn node_fields(n: &AllocNode, outer: bool, m: &mut Map<String, Value>) {
    m.insert(if outer { "id" } else { "node_id" }.into(), json!(n.id));
    m.insert(if outer { "name" } else { "node_name" }.into(), json!(n.name));
    m.insert("transport_address".into(), json!(n.transport_address));
    if !n.attributes.is_empty() {
        m.insert(if outer { "attributes" } else { "node_attributes" }.into(), json!(n.attributes));
    }
}

/// A node object (`target_node`, `current_node`).
pub(crate) fn node_object(n: &AllocNode) -> Map<String, Value> {
    let mut m = Map::new();
    node_fields(n, true, &mut m);
    m
}

/// The `deciders` entries.
pub(crate) fn deciders_json(d: &Decisions) -> Value {
    Value::Array(
        d.list
            .iter()
            .map(|x| json!({"decider": x.decider, "decision": x.kind.name(), "explanation": x.explanation}))
            .collect(),
    )
}

/// `node_allocation_decisions`, sorted by outcome, weight ranking, node id.
pub(crate) fn node_results_json(mut v: Vec<NodeResult>) -> Value {
    v.sort_by(|a, b| a.outcome.cmp(&b.outcome).then(a.ranking.cmp(&b.ranking)).then_with(|| a.node.id.cmp(&b.node.id)));
    Value::Array(
        v.into_iter()
            .map(|r| {
                let mut m = Map::new();
                node_fields(r.node, false, &mut m);
                m.insert("node_decision".into(), json!(r.outcome.name()));
                if let Some(s) = r.store {
                    m.insert("store".into(), s);
                }
                if r.ranking > 0 {
                    m.insert("weight_ranking".into(), json!(r.ranking));
                }
                if let Some(d) = r.decisions.filter(|d| !d.list.is_empty()) {
                    m.insert("deciders".into(), deciders_json(&d));
                }
                Value::Object(m)
            })
            .collect(),
    )
}

/// `TimeValue.toString()` of milliseconds: `0s`, `500ms`, `59.9s`, `1m` (one decimal, truncated).
pub(crate) fn time_value(ms: i64) -> String {
    if ms <= 0 {
        return "0s".into();
    }
    let ms = ms as u64;
    for (suffix, unit) in [("d", 86_400_000u64), ("h", 3_600_000), ("m", 60_000), ("s", 1000)] {
        if ms >= unit {
            let tenths = ms * 10 / unit;
            return if tenths % 10 == 0 {
                format!("{}{suffix}", tenths / 10)
            } else {
                format!("{}.{}{suffix}", tenths / 10, tenths % 10)
            };
        }
    }
    format!("{ms}ms")
}
