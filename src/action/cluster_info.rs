//! `GET /`, `_cluster/health` (with its waits) and `_cluster/state`.

use std::time::{Duration, Instant};

use serde_json::{json, Map, Value};

use crate::cluster::health::Status;
use crate::cluster::resolve::{resolve, IndicesOptions};
use crate::cluster::ClusterService;
use crate::error::{ErrorKind, OsError, OsResult};

/// The build's git commit (set by build.rs when git is available).
pub const BUILD_HASH: &str = match option_env!("FATHOM_GIT_HASH") {
    Some(h) => h,
    None => "unknown",
};

/// `GET /`.
pub fn root(cs: &ClusterService) -> Value {
    json!({
        "name": cs.node.node_name,
        "cluster_name": cs.node.cluster_name,
        "cluster_uuid": cs.metadata().cluster_uuid,
        "version": {
            "distribution": "opensearch",
            "number": "3.3.0",
            "build_type": "tar",
            "build_hash": BUILD_HASH,
            "build_date": "2025-10-01T00:00:00.000000000Z",
            "build_snapshot": false,
            "lucene_version": "10.3.1",
            "minimum_wire_compatibility_version": "2.19.0",
            "minimum_index_compatibility_version": "2.0.0"
        },
        "tagline": "The OpenSearch Project: https://opensearch.org/"
    })
}

/// The level of detail of a health response.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Level {
    Cluster,
    Indices,
    Shards,
    AwarenessAttributes,
}

/// A health request.
#[derive(Debug, Clone)]
pub struct HealthRequest {
    pub indices: Option<String>,
    pub level: Level,
    pub wait_for_status: Option<Status>,
    pub wait_for_nodes: Option<String>,
    pub wait_for_active_shards: Option<String>,
    pub wait_for_no_relocating_shards: bool,
    pub wait_for_no_initializing_shards: bool,
    pub wait_for_events: Option<String>,
    pub timeout: Duration,
    pub expand: IndicesOptions,
    /// `awareness_attribute`: the one attribute `level=awareness_attributes` shows.
    pub awareness_attribute: Option<String>,
    /// `ensure_node_weighed_in`: fail when weighted routing sends this node no searches.
    pub ensure_node_weighed_in: bool,
    /// `local`: answer from this node's state (the cluster state is replicated; this only
    /// matters to `ensure_node_weighed_in`, which requires it).
    pub local: bool,
}

impl Default for HealthRequest {
    fn default() -> Self {
        HealthRequest {
            indices: None,
            level: Level::Cluster,
            wait_for_status: None,
            wait_for_nodes: None,
            wait_for_active_shards: None,
            wait_for_no_relocating_shards: false,
            wait_for_no_initializing_shards: false,
            wait_for_events: None,
            timeout: Duration::from_secs(30),
            expand: IndicesOptions {
                ignore_unavailable: false,
                allow_no_indices: true,
                expand: crate::cluster::resolve::ExpandWildcards { open: true, closed: true, hidden: true },
                forbid_closed: false,
            },
            awareness_attribute: None,
            ensure_node_weighed_in: false,
            local: false,
        }
    }
}

fn nodes_condition(spec: &str, nodes: u32) -> OsResult<bool> {
    let s = spec.trim();
    let parse = |x: &str| {
        x.trim().parse::<u32>().map_err(|_| OsError::illegal(format!("cannot parse wait_for_nodes [{spec}]")))
    };
    Ok(if let Some(r) = s.strip_prefix(">=") {
        nodes >= parse(r)?
    } else if let Some(r) = s.strip_prefix("<=") {
        nodes <= parse(r)?
    } else if let Some(r) = s.strip_prefix('>') {
        nodes > parse(r)?
    } else if let Some(r) = s.strip_prefix('<') {
        nodes < parse(r)?
    } else if let Some(r) = s.strip_prefix("ge(").and_then(|r| r.strip_suffix(')')) {
        nodes >= parse(r)?
    } else if let Some(r) = s.strip_prefix("le(").and_then(|r| r.strip_suffix(')')) {
        nodes <= parse(r)?
    } else if let Some(r) = s.strip_prefix("gt(").and_then(|r| r.strip_suffix(')')) {
        nodes > parse(r)?
    } else if let Some(r) = s.strip_prefix("lt(").and_then(|r| r.strip_suffix(')')) {
        nodes < parse(r)?
    } else {
        nodes == parse(s)?
    })
}

/// `ClusterHealthRequest.validate()`: the awareness level is for the whole cluster, the
/// attribute needs that level, the weighed-in check a local request.
fn validate(req: &HealthRequest) -> OsResult<()> {
    let awareness = req.level == Level::AwarenessAttributes;
    if awareness && req.indices.as_deref().is_some_and(|i| !i.split(',').all(|x| x.trim().is_empty())) {
        return Err(OsError::validation(
            &["awareness_attribute is not a supported parameter with index health".into()],
        ));
    }
    if !awareness && req.awareness_attribute.is_some() {
        return Err(OsError::validation(&[
            "level=awareness_attributes is required with awareness_attribute parameter".into(),
        ]));
    }
    if req.ensure_node_weighed_in && !req.local {
        return Err(OsError::validation(&[
            "not a local request to ensure local node commissioned or weighed in".into()
        ]));
    }
    Ok(())
}

/// `GET /_cluster/health[/{indices}]`: `(http status, body)`; 408 when a wait timed out.
pub fn health(cs: &ClusterService, req: &HealthRequest) -> OsResult<(u16, Value)> {
    validate(req)?;
    if let Some(e) = &req.wait_for_events {
        if !["immediate", "urgent", "high", "normal", "low", "languid"].contains(&e.to_ascii_lowercase().as_str()) {
            return Err(OsError::illegal(format!(
                "No enum constant org.opensearch.common.Priority.{}",
                e.to_ascii_uppercase()
            )));
        }
    }
    if let Some(n) = &req.wait_for_nodes {
        nodes_condition(n, node_counts(cs).0 as u32)?;
    }
    let deadline = Instant::now() + req.timeout.min(Duration::from_secs(300));
    loop {
        let (body, satisfied) = health_once(cs, req)?;
        if satisfied {
            if req.ensure_node_weighed_in {
                ensure_node_weighed_in(cs)?;
            }
            return Ok((200, body));
        }
        if Instant::now() >= deadline {
            let mut body = body;
            body["timed_out"] = json!(true);
            return Ok((408, body));
        }
        std::thread::sleep(Duration::from_millis(20).min(deadline.saturating_duration_since(Instant::now())));
    }
}

/// `ensure_node_weighed_in` (`TransportClusterHealthAction`): no cluster manager → 503; this
/// node a data node whose awareness value has weight 0 → 421.
fn ensure_node_weighed_in(cs: &ClusterService) -> OsResult<()> {
    if !node_counts(cs).2 {
        return Err(OsError::new(ErrorKind::ClusterManagerNotDiscovered, "cluster-manager not discovered"));
    }
    let st = cs.state();
    let me = &cs.node.node_id;
    let data = st.node(me).is_some_and(|m| m.roles.iter().any(|r| r == "data"));
    if data && crate::cluster::allocation::awareness_health::is_weighed_away(&st, me) {
        return Err(OsError::new(ErrorKind::NodeWeighedAway, "local node is weighed away"));
    }
    Ok(())
}

/// (nodes, data nodes, whether a cluster manager is known): the nodes of the applied cluster
/// state, the manager from the coordination (a node without one is its own).
fn node_counts(cs: &ClusterService) -> (usize, usize, bool) {
    let st = cs.state();
    let manager = cs.has_cluster_manager();
    (st.nodes.len(), st.nodes.iter().filter(|m| m.roles.iter().any(|r| r == "data")).count(), manager)
}

fn health_once(cs: &ClusterService, req: &HealthRequest) -> OsResult<(Value, bool)> {
    let md = cs.metadata();
    let (names, missing) = match &req.indices {
        None => (md.indices.keys().cloned().collect::<Vec<_>>(), false),
        Some(expr) => match resolve(&md, expr, req.expand) {
            Ok(n) => (n, false),
            Err(e) if e.kind == ErrorKind::IndexNotFound => (Vec::new(), true),
            Err(e) => return Err(e),
        },
    };
    // Health follows the routing table (ClusterStateHealth): the indices asked for.
    let st = cs.state();
    let table = with_local_failures(cs, &st.routing);
    let all = crate::cluster::allocation::health(&table, &md);
    let indices: Vec<_> = all.into_iter().filter(|ih| names.contains(&ih.name)).collect();
    let h = crate::cluster::allocation::cluster_totals(&indices);
    let status = if missing { Status::Red } else { h.status };
    let (nodes, data_nodes, discovered) = node_counts(cs);
    // The updates this node submitted and has not applied (see `cluster::pending`).
    let pending = cs.pending.list();
    let max_wait = pending.iter().map(|t| t.time_in_queue.as_millis() as u64).max().unwrap_or(0);
    let mut v = json!({
        "cluster_name": cs.node.cluster_name,
        "status": status.name(),
        "timed_out": false,
        "number_of_nodes": nodes,
        "number_of_data_nodes": data_nodes,
        "discovered_master": discovered,
        "discovered_cluster_manager": discovered,
        "active_primary_shards": h.active_primaries,
        "active_shards": h.active,
        "relocating_shards": h.relocating,
        "initializing_shards": h.initializing,
        "unassigned_shards": h.unassigned,
        "delayed_unassigned_shards": h.delayed_unassigned,
        "number_of_pending_tasks": pending.len(),
        "number_of_in_flight_fetch": 0,
        "task_max_waiting_in_queue_millis": max_wait,
        "active_shards_percent_as_number": h.active_percent,
    });
    match req.level {
        Level::Indices | Level::Shards => {
            let mut m = Map::new();
            for ih in &indices {
                m.insert(ih.name.clone(), ih.to_json(req.level == Level::Shards));
            }
            v["indices"] = Value::Object(m);
        }
        Level::AwarenessAttributes => {
            let settings = cs.cluster_settings(&md);
            v["awareness_attributes"] = crate::cluster::allocation::awareness_health::awareness_health(
                &st,
                &settings,
                req.awareness_attribute.as_deref(),
            );
        }
        Level::Cluster => {}
    }
    let mut ok = !missing;
    if let Some(want) = req.wait_for_status {
        ok &= status <= want;
    }
    if let Some(n) = &req.wait_for_nodes {
        ok &= nodes_condition(n, nodes as u32)?;
    }
    if let Some(a) = &req.wait_for_active_shards {
        let want = match a.as_str() {
            "all" => h.active + h.initializing + h.unassigned,
            "" => 0,
            n => {
                n.parse::<u32>().map_err(|_| OsError::illegal(format!("cannot parse wait_for_active_shards [{n}]")))?
            }
        };
        ok &= h.active >= want;
    }
    Ok((v, ok))
}

/// The routing table with this node's copies that failed (to open, or while running) shown
/// unassigned: the cluster manager learns of them a moment later (the report is a
/// publication), and health must not call such a copy active meanwhile.
pub fn with_local_failures(
    cs: &ClusterService,
    table: &crate::cluster::routing_table::RoutingTable,
) -> crate::cluster::routing_table::RoutingTable {
    use crate::cluster::routing_table::{ShardState, UnassignedInfo};
    let mut t = table.clone();
    let me = cs.node.node_id.clone();
    for svc in cs.open_indices() {
        for f in svc.failed() {
            let Some(ir) = t.indices.get_mut(&svc.name).filter(|ir| ir.uuid == svc.uuid) else { continue };
            let Some(st) = ir.shards.iter_mut().find(|s| s.id == f.id) else { continue };
            for c in st.copies.iter_mut().filter(|c| c.on(&me) && c.active()) {
                c.state = ShardState::Unassigned;
                c.node = None;
                c.unassigned = Some(UnassignedInfo {
                    reason: "ALLOCATION_FAILED".into(),
                    at_millis: crate::clock::now_millis(),
                    delayed: false,
                    failed_attempts: 1,
                    details: Some(f.reason.clone()),
                    last_node: Some(me.clone()),
                    allocation_status: "no_attempt".into(),
                });
            }
        }
    }
    t
}

/// The metrics `_cluster/state` knows (`ClusterState.Metric`, with `_all`).
pub const STATE_METRICS: &[&str] = &[
    "_all",
    "version",
    "master_node",
    "cluster_manager_node",
    "blocks",
    "nodes",
    "metadata",
    "routing_table",
    "routing_nodes",
    "customs",
];

/// `GET /_cluster/state[/{metrics}[/{indices}]]`.
pub fn state(cs: &ClusterService, metrics: &[String], indices: Option<&str>) -> OsResult<Value> {
    state_with(cs, metrics, indices, None)
}

/// [`state`] with `routing` in place of the applied routing table (a reroute's dry run).
pub fn state_with(
    cs: &ClusterService,
    metrics: &[String],
    indices: Option<&str>,
    routing: Option<&crate::cluster::routing_table::RoutingTable>,
) -> OsResult<Value> {
    let md = cs.metadata();
    let all = metrics.is_empty() || metrics.iter().any(|m| m == "_all");
    let want = |m: &str| all || metrics.iter().any(|x| x == m);
    let names = match indices {
        Some(expr) => resolve(&md, expr, IndicesOptions::strict_expand_open_closed())?,
        None => md.indices.keys().cloned().collect(),
    };
    let node_id = cs.node.node_id.clone();
    let coordination = cs.coordination();
    // The elected cluster manager (null while none is known).
    let manager = match &coordination {
        Some(c) => c.cluster_manager.clone().map_or(Value::Null, Value::String),
        None => json!(node_id),
    };
    let mut v = json!({"cluster_name": cs.node.cluster_name, "cluster_uuid": md.cluster_uuid});
    if want("version") {
        let version = cs.state().version;
        v["version"] = json!(version);
        v["state_uuid"] = json!(format!("{}-{}", md.cluster_uuid, version));
    }
    if want("master_node") {
        v["master_node"] = manager.clone();
    }
    if want("cluster_manager_node") {
        v["cluster_manager_node"] = manager.clone();
    }
    if want("blocks") {
        v["blocks"] = crate::cluster::blocks::state_json(&cs.global_blocks(), &md, &names);
    }
    if want("nodes") {
        let mut nodes = Map::new();
        let st = cs.state();
        match &coordination {
            Some(_) if !st.nodes.is_empty() => {
                for m in st.nodes.iter() {
                    let attrs: Map<String, Value> = m.attributes.iter().map(|(k, v)| (k.clone(), json!(v))).collect();
                    nodes.insert(
                        m.node_id.clone(),
                        json!({"name": m.name, "ephemeral_id": m.node_id, "transport_address": m.transport_address, "attributes": attrs}),
                    );
                }
            }
            _ => {
                let attrs: Map<String, Value> = cs.node.attributes.iter().map(|(k, v)| (k.clone(), json!(v))).collect();
                nodes.insert(
                    node_id.clone(),
                    json!({"name": cs.node.node_name, "ephemeral_id": node_id, "transport_address": cs.transport_address(), "attributes": attrs}),
                );
            }
        }
        v["nodes"] = Value::Object(nodes);
    }
    if want("metadata") {
        let mut im = Map::new();
        for n in &names {
            if let Some(m) = md.indices.get(n) {
                let mut s = m.to_state_json();
                if let Some(o) = s.as_object_mut() {
                    o.remove("name");
                    o.remove("alias_definitions");
                }
                im.insert(n.clone(), s);
            }
        }
        let exclusions = md.coordination.to_json()["voting_config_exclusions"].take();
        v["metadata"] = json!({
            "cluster_uuid": md.cluster_uuid,
            "cluster_uuid_committed": true,
            "cluster_coordination": match &coordination {
                Some(c) => json!({"term": c.term, "last_committed_config": c.last_committed_config, "last_accepted_config": c.last_accepted_config, "voting_config_exclusions": exclusions}),
                None => json!({"term": 0, "last_committed_config": [], "last_accepted_config": [], "voting_config_exclusions": exclusions}),
            },
            "templates": md.templates,
            "indices": im,
            "index-graveyard": {"tombstones": []},
            "component_template": {"component_template": md.component_templates},
            "index_template": {"index_template": md.index_templates},
        });
        if let Some(w) = &md.weighted_routing {
            v["metadata"]["weighted_shard_routing"] = w.to_json();
        }
        if let Some(d) = &md.decommission {
            v["metadata"]["decommissionedAttribute"] = d.to_state_api_json();
        }
    }
    if want("routing_table") || want("routing_nodes") {
        let st = cs.state();
        let mut rt = routing.cloned().unwrap_or_else(|| (*st.routing).clone());
        rt.indices.retain(|n, _| names.contains(n));
        if want("routing_table") {
            v["routing_table"] = crate::cluster::allocation::render_routing_table(&rt, &md);
        }
        if want("routing_nodes") {
            let nodes = crate::cluster::applier::alloc_nodes(&st);
            v["routing_nodes"] = crate::cluster::allocation::render_routing_nodes(&rt, &nodes);
        }
    }
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn health_requests_are_validated_as_opensearch_does() {
        let reason = |r: HealthRequest| validate(&r).map_err(|e| e.reason);
        let awareness = HealthRequest { level: Level::AwarenessAttributes, ..Default::default() };
        assert!(reason(HealthRequest { awareness_attribute: Some("zone".into()), ..awareness.clone() }).is_ok());
        assert_eq!(
            reason(HealthRequest { indices: Some("books".into()), ..awareness.clone() }),
            Err("Validation Failed: 1: awareness_attribute is not a supported parameter with index health;".into())
        );
        assert_eq!(
            reason(HealthRequest { awareness_attribute: Some("zone".into()), ..Default::default() }),
            Err("Validation Failed: 1: level=awareness_attributes is required with awareness_attribute parameter;"
                .into())
        );
        assert_eq!(
            reason(HealthRequest { ensure_node_weighed_in: true, ..Default::default() }),
            Err("Validation Failed: 1: not a local request to ensure local node commissioned or weighed in;".into())
        );
        assert!(reason(HealthRequest { ensure_node_weighed_in: true, local: true, ..Default::default() }).is_ok());
    }
}
