//! Starting the node's part of the cluster (server builds): bind the transport, start the
//! coordination on it, and either bootstrap a one-node cluster (`discovery.type: single-node`,
//! or no `discovery.seed_hosts`) or discover the seed hosts and join the cluster they belong to,
//! bootstrapping it from `cluster.initial_cluster_manager_nodes` when there is none yet.

use std::net::{SocketAddr, ToSocketAddrs};
use std::sync::Arc;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::Node;
use crate::cluster::coordination::transport_wire::TransportWire;
use crate::cluster::coordination::{
    network, ClusterNode, Coordinator, Timing, ACTION_ELECT_NOW, ACTION_JOIN, ACTION_PUBLISH,
};
use crate::cluster::ClusterService;
use crate::engine::store::FsDirectory;
use crate::error::OsError;
use crate::transport::{Transport, TransportConfig};

/// Asks a node who it is and which cluster manager it follows (OpenSearch's peer finder).
pub const ACTION_REQUEST_PEERS: &str = "internal:discovery/request_peers";

/// The transport and coordination of a running node.
#[derive(Debug, Clone)]
pub struct ClusterLink {
    pub transport: Arc<Transport>,
    pub coordinator: Coordinator,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
struct PeersAnswer {
    node: ClusterNode,
    cluster_manager: Option<ClusterNode>,
}

fn list(s: Option<&str>) -> Vec<String> {
    s.map(|v| v.split(',').map(|x| x.trim().to_string()).filter(|x| !x.is_empty()).collect()).unwrap_or_default()
}

/// `host[:port]` → addresses (port 9300 when absent, as OpenSearch).
fn seed_addresses(seeds: &[String]) -> Vec<SocketAddr> {
    let mut out = Vec::new();
    for s in seeds {
        let with_port = if s.rsplit_once(':').is_some_and(|(_, p)| p.parse::<u16>().is_ok()) {
            s.clone()
        } else {
            format!("{s}:9300")
        };
        match with_port.to_socket_addrs() {
            Ok(addrs) => out.extend(addrs),
            Err(e) => tracing::warn!(seed = %s, error = %e, "cannot resolve a seed host"),
        }
    }
    out
}

/// Transport TLS when security is on (`plugins.security.disabled: false`), else plain TCP.
fn transport_tls(s: &crate::node::NodeSettings) -> Result<Option<crate::transport::TransportTls>, OsError> {
    let sec = crate::security::SecuritySettings::from_node(s).map_err(OsError::illegal)?;
    let Some(sec) = sec else { return Ok(None) };
    let tls = crate::security::node_tls::node_tls(&sec).map_err(OsError::illegal)?;
    Ok(Some(crate::transport::TransportTls {
        acceptor: tokio_rustls::TlsAcceptor::from(tls.server),
        connector: tokio_rustls::TlsConnector::from(tls.client),
    }))
}

/// Binds the transport and starts the coordination; returns once this node knows its cluster
/// manager when it runs alone, at once otherwise (discovery goes on in the background).
pub async fn start(node: &Arc<Node>) -> Result<ClusterLink, OsError> {
    let s = &node.settings;
    let id = node.cluster.node.clone();
    let transport = Transport::bind(TransportConfig {
        cluster_name: id.cluster_name.clone(),
        node_id: id.node_id.clone(),
        node_name: id.node_name.clone(),
        host: s.get_or("transport.host", s.get_or("network.host", "127.0.0.1")).to_string(),
        port_spec: s.get_or("transport.port", "9300-9399").to_string(),
        compress: s.get("transport.compress").is_none_or(|v| v != "false"),
        tls: transport_tls(s)?,
    })
    .await?;
    let transport_address = transport.local_address().to_string();
    let local = ClusterNode {
        node_id: id.node_id.clone(),
        name: id.node_name.clone(),
        transport_address: transport_address.clone(),
        http_address: id.http_address.clone(),
        roles: id.roles.clone(),
        attributes: id.attributes.iter().cloned().collect(),
    };
    let dir = Arc::new(FsDirectory::open(node.data_path.join("nodes").join("0").join("_state").join("coordination"))?);
    let wire = Arc::new(TransportWire { transport: transport.clone() });
    // `cluster.publish.timeout` (OpenSearch's default 30s): how long a publication may take.
    let publish_timeout = super::fault_detection::time_setting(s, "cluster.publish.timeout", Duration::from_secs(30))
        .map_err(OsError::illegal)?;
    let timing = Timing { publish_timeout, ..Timing::default() };
    let coordinator = Coordinator::start(dir, local.clone(), wire, timing).await?;
    for action in [
        network::ACTION_APPEND,
        network::ACTION_VOTE,
        network::ACTION_SNAPSHOT,
        ACTION_PUBLISH,
        ACTION_JOIN,
        ACTION_ELECT_NOW,
    ] {
        let c = coordinator.clone();
        transport.register_fn(action, move |req| {
            let c = c.clone();
            async move { c.handle(&req.action, &req.payload).await.map(bytes::Bytes::from).map_err(OsError::internal) }
        });
    }
    let c = coordinator.clone();
    transport.register_fn(ACTION_REQUEST_PEERS, move |_req| {
        let c = c.clone();
        async move {
            let a = PeersAnswer { node: c.local.clone(), cluster_manager: c.leader().map(|l| l.1) };
            serde_json::to_vec(&a).map(bytes::Bytes::from).map_err(|e| OsError::internal(e.to_string()))
        }
    });
    let rate = s.get("indices.recovery.max_bytes_per_sec");
    let parsed = rate.map(|v| {
        crate::cluster::peer_recovery::parse_byte_size(v).ok_or_else(|| {
            OsError::illegal(format!(
                "failed to parse setting [indices.recovery.max_bytes_per_sec] with value [{v}] as a size in bytes"
            ))
        })
    });
    node.cluster.recoveries.set_node_rate(parsed.transpose()?);
    super::transport_actions::register(node, &transport);
    let _ = node.transport.set(transport.clone());
    let weak = Arc::downgrade(&transport);
    node.cluster.counters.set_transport(Box::new(move || {
        weak.upgrade().map_or(serde_json::Value::Null, |t| serde_json::to_value(t.stats()).unwrap_or_default())
    }));
    node.cluster.set_node_client(Arc::new(super::transport_actions::TransportClient {
        transport: transport.clone(),
        handle: tokio::runtime::Handle::current(),
    }));
    let cs = node.cluster.clone();
    transport.register_fn(super::state_sync::ACTION_APPLIED, move |_req| {
        let v = cs.state().version;
        async move { Ok(bytes::Bytes::from(v.to_string())) }
    });
    transport.register_fn(super::fault_detection::ACTION_FOLLOWER_CHECK, |_req| async { Ok(bytes::Bytes::new()) });
    let checks = super::fault_detection::Checks::from_settings(s).map_err(OsError::illegal)?;
    node.cluster.set_coordination(Arc::new(coordinator.clone()), transport_address);
    // A node of a decommissioned zone may not join until it is recommissioned.
    let cs = Arc::downgrade(&node.cluster);
    coordinator.set_join_guard(Arc::new(move |n: &ClusterNode| {
        let Some(cs) = cs.upgrade() else { return Ok(()) };
        let st = cs.state();
        let member = n.view();
        match &st.metadata.decommission {
            Some(d) if !crate::cluster::decommission::commissioned(&member, &st.metadata) => {
                Err(crate::cluster::decommission::join_refusal(&member, d))
            }
            _ => Ok(()),
        }
    }));
    let seeds = list(s.get("discovery.seed_hosts"));
    let single = match s.get("discovery.type") {
        None | Some("multi-node") => seeds.is_empty(),
        Some("single-node") => true,
        Some(other) => return Err(OsError::illegal(format!("Unknown discovery type [{other}]"))),
    };
    if single {
        coordinator.bootstrap(vec![local]).await?;
        // A one-voter cluster elects itself at once; wait for it so the node starts as the
        // cluster manager.
        let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
        while coordinator.leader().is_none() && tokio::time::Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        attach_state(node, &coordinator, &transport).await?;
        tokio::spawn(super::fault_detection::run(node.cluster.clone(), coordinator.clone(), transport.clone(), checks));
        tokio::spawn(super::voting_config::run(node.cluster.clone(), coordinator.clone(), transport.clone()));
    } else {
        let initial =
            list(s.get("cluster.initial_cluster_manager_nodes").or_else(|| s.get("cluster.initial_master_nodes")));
        attach_state(node, &coordinator, &transport).await?;
        tokio::spawn(super::fault_detection::run(node.cluster.clone(), coordinator.clone(), transport.clone(), checks));
        tokio::spawn(super::decommission::run(node.cluster.clone(), coordinator.clone(), transport.clone()));
        tokio::spawn(super::voting_config::run(node.cluster.clone(), coordinator.clone(), transport.clone()));
        let link = ClusterLink { transport: transport.clone(), coordinator: coordinator.clone() };
        tokio::spawn(discover(link, node.cluster.clone(), seed_addresses(&seeds), initial));
    }
    Ok(ClusterLink { transport, coordinator })
}

/// Moves the node's cluster state onto the coordination (see [`super::state_sync::attach`]).
async fn attach_state(node: &Arc<Node>, coordinator: &Coordinator, transport: &Arc<Transport>) -> Result<(), OsError> {
    let (cs, c, stop, t) = (node.cluster.clone(), coordinator.clone(), node.stop_flag(), transport.clone());
    let handle = tokio::runtime::Handle::current();
    tokio::task::spawn_blocking(move || super::state_sync::attach(&cs, &c, t, handle, stop))
        .await
        .map_err(|e| OsError::internal(e.to_string()))??;
    Ok(())
}

/// How long a node that follows a manager may be missing from its own applied cluster state
/// before it asks to join again (it was removed, or refused and since admitted).
const REJOIN_AFTER: Duration = Duration::from_secs(3);

/// Asks every seed who it is and whom it follows; joins a cluster that has a manager, or
/// bootstraps one from the initial cluster-manager nodes once all of them are found (the node
/// whose name sorts first does it). A node that follows a manager but has not been listed in
/// its own applied cluster state for [`REJOIN_AFTER`] asks to join again. Runs until the
/// transport closes.
async fn discover(link: ClusterLink, cs: Arc<ClusterService>, seeds: Vec<SocketAddr>, initial: Vec<String>) {
    let c = &link.coordinator;
    let mut interval = Duration::from_millis(200);
    let mut unlisted_since: Option<tokio::time::Instant> = None;
    loop {
        tokio::time::sleep(interval).await;
        if link.transport.is_closed() {
            return;
        }
        if c.leader().is_some() {
            // A member that follows a manager: look again now and then (it may be removed).
            interval = Duration::from_secs(1);
            let listed = c.state().version == 0 || cs.state().node(&c.local.node_id).is_some();
            if listed {
                unlisted_since = None;
                continue;
            }
            let since = *unlisted_since.get_or_insert_with(tokio::time::Instant::now);
            if since.elapsed() < REJOIN_AFTER {
                continue;
            }
            tracing::debug!("this node is not in its cluster state; asking to join again");
        }
        let mut found: Vec<PeersAnswer> = Vec::new();
        for addr in &seeds {
            if *addr == link.transport.local_address() {
                continue;
            }
            let r =
                link.transport.request(*addr, ACTION_REQUEST_PEERS, bytes::Bytes::new(), Duration::from_secs(3)).await;
            match r
                .map_err(|e| e.to_string())
                .and_then(|b| serde_json::from_slice::<PeersAnswer>(&b).map_err(|e| e.to_string()))
            {
                Ok(a) => found.push(a),
                Err(e) => tracing::debug!(seed = %addr, error = %e, "seed host did not answer"),
            }
        }
        if let Some(manager) = found.iter().find_map(|a| a.cluster_manager.clone()) {
            match c.join_via(&manager, Duration::from_secs(10)).await {
                Ok(()) => tracing::info!(cluster_manager = %manager, "joined the cluster"),
                Err(e) => tracing::info!(cluster_manager = %manager, error = %e.reason, "join failed; retrying"),
            }
            continue;
        }
        if initial.contains(&c.local.name) {
            let mut members = vec![c.local.clone()];
            members.extend(found.iter().filter(|a| initial.contains(&a.node.name)).map(|a| a.node.clone()));
            members.sort_by(|a, b| a.name.cmp(&b.name));
            members.dedup_by(|a, b| a.node_id == b.node_id);
            let all_found = initial.iter().all(|n| members.iter().any(|m| m.name == *n));
            if all_found && members[0].node_id == c.local.node_id {
                match c.bootstrap(members).await {
                    Ok(()) => tracing::info!("bootstrapped the cluster from cluster.initial_cluster_manager_nodes"),
                    Err(e) => tracing::warn!(error = %e.reason, "bootstrap failed; retrying"),
                }
            }
        }
    }
}
