//! Node-level requests over every node selected (OpenSearch's `TransportNodesAction`): the node
//! filter resolved against the cluster state's members (`DiscoveryNodes.resolveNodes`), one
//! transport request per other node sent in parallel (this node answers for itself without the
//! transport), and the answers gathered with the nodes that failed.

use std::collections::BTreeSet;
use std::time::Duration;

use serde_json::{json, Map, Value};

use crate::cluster::coordination_view::MemberView;
use crate::cluster::resolve::glob;
use crate::cluster::ClusterService;
use crate::error::{ErrorKind, OsError, OsResult};

/// How long a node-level request waits for a node by default.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);

/// The members of the cluster state (a node whose state lists none yet: itself alone).
pub fn members(cs: &ClusterService) -> Vec<MemberView> {
    let st = cs.state();
    if st.nodes.is_empty() {
        vec![crate::cluster::state::member_of(&cs.node, &cs.transport_address())]
    } else {
        st.nodes.to_vec()
    }
}

/// The elected cluster manager's node id (a node without coordination manages itself).
pub fn cluster_manager(cs: &ClusterService) -> Option<String> {
    match cs.coordination() {
        Some(c) => c.cluster_manager,
        None => Some(cs.node.node_id.clone()),
    }
}

/// A member's IP (its transport address without the port).
pub fn host_of(m: &MemberView) -> &str {
    m.transport_address.rsplit_once(':').map_or(m.transport_address.as_str(), |(h, _)| h)
}

/// A member's transport port.
pub fn port_of(m: &MemberView) -> Option<u16> {
    m.transport_address.rsplit_once(':').and_then(|(_, p)| p.parse().ok())
}

fn has_role(m: &MemberView, role: &str) -> bool {
    m.roles.iter().any(|r| r == role || (role == "master" && r == "cluster_manager"))
}

/// The node ids `filters` select, in member order, as `DiscoveryNodes.resolveNodes` resolves
/// them: none given or `_all` is every node; `_local`, `_cluster_manager`/`_master`; a node id;
/// a pattern over names and host addresses; `role:true|false` (data, ingest, cluster_manager,
/// master, or any role name) adds or removes the nodes with that role; `attr:value` patterns.
pub fn resolve_nodes(nodes: &[MemberView], local: &str, manager: Option<&str>, filters: &[&str]) -> Vec<String> {
    if filters.is_empty() {
        return nodes.iter().map(|n| n.node_id.clone()).collect();
    }
    let mut out: BTreeSet<String> = BTreeSet::new();
    for f in filters {
        match *f {
            "_local" => {
                out.insert(local.to_string());
            }
            "_master" | "_cluster_manager" => {
                if let Some(m) = manager {
                    out.insert(m.to_string());
                }
            }
            id if nodes.iter().any(|n| n.node_id == id) => {
                out.insert(id.to_string());
            }
            pattern => {
                for n in nodes {
                    let host = host_of(n);
                    if pattern == "_all" || glob(pattern, &n.name) || glob(pattern, host) {
                        out.insert(n.node_id.clone());
                    }
                }
                if let Some((name, value)) = pattern.split_once(':') {
                    let role = match name {
                        "master" => Some("cluster_manager"),
                        r if nodes.iter().any(|n| n.roles.iter().any(|x| x == r)) => Some(r),
                        "data" | "ingest" | "cluster_manager" | "remote_cluster_client" => Some(name),
                        _ => None,
                    };
                    if let Some(role) = role {
                        // `Booleans.parseBoolean(value, true)`: anything but `false` adds.
                        let add = value != "false";
                        for n in nodes.iter().filter(|n| has_role(n, role)) {
                            if add {
                                out.insert(n.node_id.clone());
                            } else {
                                out.remove(&n.node_id);
                            }
                        }
                    } else {
                        for n in nodes {
                            if n.attributes.iter().any(|(k, v)| glob(name, k) && glob(value, v)) {
                                out.insert(n.node_id.clone());
                            }
                        }
                    }
                }
            }
        }
    }
    nodes.iter().filter(|n| out.contains(&n.node_id)).map(|n| n.node_id.clone()).collect()
}

/// The answers of a fan-out, in member order, and the nodes that failed.
#[derive(Debug, Default)]
pub struct Gathered {
    pub answers: Vec<(MemberView, Value)>,
    pub failures: Vec<(MemberView, OsError)>,
}

impl Gathered {
    /// The answer of `node_id`, if it answered.
    pub fn of(&self, node_id: &str) -> Option<&Value> {
        self.answers.iter().find(|(m, _)| m.node_id == node_id).map(|(_, v)| v)
    }

    /// OpenSearch's `_nodes` header: `total`, `successful`, `failed` and (when some failed)
    /// `failures`, each a `failed_node_exception` caused by the node's error.
    pub fn header(&self) -> Value {
        let total = self.answers.len() + self.failures.len();
        let mut h = json!({"total": total, "successful": self.answers.len(), "failed": self.failures.len()});
        if !self.failures.is_empty() {
            h["failures"] = Value::Array(self.failures.iter().map(|(m, e)| failed_node(&m.node_id, e)).collect());
        }
        h
    }

    /// The answers keyed by node id (`nodes` of a nodes response).
    pub fn nodes_object(&self) -> Value {
        let m: Map<String, Value> = self.answers.iter().map(|(n, v)| (n.node_id.clone(), v.clone())).collect();
        Value::Object(m)
    }
}

/// A failed node as a nodes response lists it.
pub fn failed_node(node_id: &str, cause: &OsError) -> Value {
    OsError::new(ErrorKind::FailedNode, format!("Failed node [{node_id}]"))
        .with("node_id", node_id)
        .caused_by(cause.clone())
        .to_json()
}

/// Asks every node of `node_ids` (members of the cluster state) with `action` and `payload`;
/// this node answers through `local`. Each answer is a JSON value.
pub fn fan_out(
    cs: &ClusterService,
    node_ids: &[String],
    action: &str,
    payload: &Value,
    timeout: Duration,
    local: &(dyn Fn() -> OsResult<Value> + Sync),
) -> Gathered {
    let members = members(cs);
    let me = cs.node.node_id.as_str();
    let targets: Vec<&MemberView> =
        node_ids.iter().filter_map(|id| members.iter().find(|m| &m.node_id == id)).collect();
    let bytes = serde_json::to_vec(payload).unwrap_or_default();
    let results: Vec<OsResult<Value>> = std::thread::scope(|s| {
        let handles: Vec<_> = targets
            .iter()
            .map(|m| {
                let bytes = bytes.clone();
                let id = m.node_id.clone();
                let remote = id != me;
                s.spawn(move || {
                    if !remote {
                        return local();
                    }
                    let answer = cs.send(&id, action, bytes, timeout)?;
                    serde_json::from_slice::<Value>(&answer)
                        .map_err(|e| OsError::internal(format!("[{id}] unreadable answer to [{action}]: {e}")))
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|_| Err(OsError::internal("a node request panicked"))))
            .collect()
    });
    let mut g = Gathered::default();
    for (m, r) in targets.into_iter().zip(results) {
        match r {
            Ok(v) => g.answers.push((m.clone(), v)),
            Err(e) => g.failures.push((m.clone(), e)),
        }
    }
    g
}

/// A node-level request's `timeout` parameter (OpenSearch's time value), the default without.
pub fn parse_timeout(v: Option<&str>) -> OsResult<Duration> {
    match v {
        None => Ok(DEFAULT_TIMEOUT),
        Some(t) => Ok(crate::cluster::settings::parse_time(t, "timeout")?.unwrap_or(DEFAULT_TIMEOUT)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(id: &str, name: &str, port: u16, roles: &[&str], attrs: &[(&str, &str)]) -> MemberView {
        MemberView {
            node_id: id.into(),
            name: name.into(),
            transport_address: format!("127.0.0.1:{port}"),
            http_address: String::new(),
            roles: roles.iter().map(|r| r.to_string()).collect(),
            attributes: attrs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect(),
        }
    }

    #[test]
    fn filters_resolve_as_opensearch_does() {
        let nodes = vec![
            m("a1", "alpha", 9300, &["cluster_manager", "data"], &[("zone", "z1")]),
            m("b2", "beta", 9301, &["data", "ingest"], &[("zone", "z2")]),
            m("c3", "gamma", 9302, &["cluster_manager"], &[]),
        ];
        let r = |f: &[&str]| resolve_nodes(&nodes, "b2", Some("c3"), f);
        assert_eq!(r(&[]), ["a1", "b2", "c3"]);
        assert_eq!(r(&["_all"]), ["a1", "b2", "c3"]);
        assert_eq!(r(&["_local"]), ["b2"]);
        assert_eq!(r(&["_master"]), ["c3"]);
        assert_eq!(r(&["_cluster_manager", "a1"]), ["a1", "c3"]);
        assert_eq!(r(&["gam*"]), ["c3"]);
        assert_eq!(r(&["127.0.0.1"]), ["a1", "b2", "c3"]);
        assert_eq!(r(&["zone:z*"]), ["a1", "b2"]);
        assert_eq!(r(&["zone:z2"]), ["b2"]);
        assert_eq!(r(&["data:true"]), ["a1", "b2"]);
        assert_eq!(r(&["_all", "data:false"]), ["c3"]);
        assert_eq!(r(&["master:true"]), ["a1", "c3"]);
        assert_eq!(r(&["ingest:true", "b2"]), ["b2"]);
        assert!(r(&["nobody"]).is_empty());
        assert!(resolve_nodes(&nodes, "b2", None, &["_cluster_manager"]).is_empty());
    }

    #[test]
    fn the_header_counts_and_lists_failures() {
        let mut g = Gathered::default();
        g.answers.push((m("a1", "alpha", 1, &[], &[]), json!({"x": 1})));
        assert_eq!(g.header(), json!({"total": 1, "successful": 1, "failed": 0}));
        g.failures.push((m("b2", "beta", 2, &[], &[]), OsError::new(ErrorKind::NodeNotConnected, "gone")));
        let h = g.header();
        assert_eq!((h["total"].clone(), h["failed"].clone()), (json!(2), json!(1)));
        assert_eq!(h["failures"][0]["type"], "failed_node_exception");
        assert_eq!(h["failures"][0]["reason"], "Failed node [b2]");
        assert_eq!(h["failures"][0]["caused_by"]["type"], "node_not_connected_exception");
        assert_eq!(g.nodes_object(), json!({"a1": {"x": 1}}));
        assert_eq!(g.of("a1"), Some(&json!({"x": 1})));
        assert!(g.of("b2").is_none());
    }
}
