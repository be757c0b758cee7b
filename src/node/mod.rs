//! node/: one Fathom process: its settings, cluster service, thread pools and schedulers.
//!
//! | file | holds |
//! |---|---|
//! | `settings.rs` | `config/fathom.yml` and `-E` overrides |
//! | `cluster_start.rs` | the transport, the coordination, discovery and bootstrap |
//! | `decommission.rs` | the cluster manager's decommission driver |
//! | `fault_detection.rs` | follower checks: nodes leave and rejoin the cluster state |
//! | `transport_actions.rs` | the actions other nodes call here, and the client that calls them |
//! | `transport_info.rs` | the inspection actions other nodes call here (`_nodes`, `_cat` figures) |
//! | `security_sync.rs` | the security configuration index: `configupdate`, the loader thread |
//! | `state_sync.rs` | cluster states through the coordination; the applier thread |
//! | `voting_config.rs` | the cluster manager's choice of the voting configuration |

#[cfg(feature = "server")]
pub mod cluster_start;
#[cfg(feature = "server")]
pub mod decommission;
#[cfg(feature = "server")]
pub mod fault_detection;
#[cfg(feature = "server")]
pub mod security_sync;
pub mod settings;
#[cfg(feature = "server")]
pub mod state_sync;
#[cfg(feature = "server")]
pub mod transport_actions;
#[cfg(feature = "server")]
pub mod transport_info;
#[cfg(feature = "server")]
mod transport_search_contexts;
#[cfg(feature = "server")]
pub mod voting_config;

use std::net::IpAddr;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use crate::action::search::pit::{ReaderContexts, DEFAULT_MAX_OPEN_PIT_CONTEXT};
use crate::cluster::{ClusterService, NodeIdentity};
use crate::error::{OsError, OsResult};
use crate::threadpool::Pools;
pub use settings::NodeSettings;

/// A running node (without its HTTP server).
#[derive(Debug)]
pub struct Node {
    pub settings: NodeSettings,
    pub cluster: Arc<ClusterService>,
    pub pools: Pools,
    pub data_path: PathBuf,
    /// Bytes of the largest accepted request body (`http.max_content_length`).
    pub max_content_length: usize,
    /// Point-in-time and scroll reader contexts (reaped by the scheduler when they expire).
    pub reader_contexts: Arc<ReaderContexts>,
    /// How often each REST handler ran (`_nodes/usage`).
    pub usage: crate::action::nodes_usage::RestUsage,
    /// The node's running tasks (`_tasks`).
    pub tasks: Arc<crate::tasks::TaskManager>,
    /// The node's transport, once it is bound (server builds): the test hook that injects
    /// faults reaches it (see `http/handlers/test_faults.rs`).
    #[cfg(feature = "server")]
    pub transport: std::sync::OnceLock<Arc<crate::transport::Transport>>,
    /// The security configuration in force (set at start when `plugins.security.disabled` is
    /// false; empty when security is off).
    #[cfg(feature = "server")]
    pub security: std::sync::OnceLock<Arc<crate::security::config::SecurityService>>,
    stop: Arc<AtomicBool>,
    scheduler: Mutex<Option<JoinHandle<()>>>,
}

/// Parses a byte size (`100mb`, `1gb`, `512kb`, `1024b`, `1024`).
pub fn parse_bytes(s: &str) -> Option<usize> {
    let t = s.trim().to_ascii_lowercase();
    let units: [(&str, usize); 6] =
        [("kb", 1 << 10), ("mb", 1 << 20), ("gb", 1 << 30), ("tb", 1 << 40), ("pb", 1 << 50), ("b", 1)];
    for (u, m) in units {
        if let Some(n) = t.strip_suffix(u) {
            return n.trim().parse::<f64>().ok().filter(|v| *v >= 0.0).map(|v| (v * m as f64) as usize);
        }
    }
    t.parse().ok()
}

impl Node {
    /// Starts a node from settings: opens the data path, recovers indices, starts the pools and
    /// the refresh scheduler. `http_address` is what the APIs report.
    pub fn start(settings: NodeSettings, http_address: String) -> OsResult<Arc<Node>> {
        Node::start_with(settings, http_address, true)
    }

    /// [`Node::start`]; `standalone: false` opens no shard copy: the coordination's cluster
    /// state assigns them (see [`state_sync`]).
    pub fn start_with(settings: NodeSettings, http_address: String, standalone: bool) -> OsResult<Arc<Node>> {
        let data_path = PathBuf::from(settings.get_or("path.data", "data"));
        let host = settings.get_or("network.host", "127.0.0.1").to_string();
        let node_name = settings.get("node.name").map(str::to_string).unwrap_or_else(|| hostname_or("fathom-node"));
        let roles: Vec<String> = settings
            .get("node.roles")
            .map(|r| r.split(',').map(|s| s.trim().to_string()).filter(|s| !s.is_empty()).collect())
            .unwrap_or_else(|| {
                vec!["cluster_manager".into(), "data".into(), "ingest".into(), "remote_cluster_client".into()]
            });
        let identity = NodeIdentity {
            cluster_name: settings.get_or("cluster.name", "fathom").to_string(),
            node_name,
            node_id: crate::cluster::node_state::load_or_create_node_id(&data_path)?,
            roles,
            attributes: settings.with_prefix("node.attr."),
            host,
            http_address,
        };
        let max_content_length = match settings.get("http.max_content_length") {
            Some(v) => parse_bytes(v).ok_or_else(|| {
                OsError::illegal(format!("failed to parse [http.max_content_length] with value [{v}]"))
            })?,
            None => 100 << 20,
        };
        let cluster = if standalone {
            ClusterService::open(&data_path, identity.clone())?
        } else {
            ClusterService::open_deferred(&data_path, identity.clone())?
        };
        cluster.set_node_cluster_settings(crate::cluster::cluster_settings::node_level(
            settings.all().iter().map(|(k, v)| (k.as_str(), v.as_str())),
        ));
        configure_query_cache(&settings, &cluster)?;
        let processors = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(2);
        let pools = Pools::new(&identity.node_name, processors);
        let max_open_pit = match settings.get("search.max_open_pit_context") {
            Some(v) => v.parse::<usize>().map_err(|_| {
                OsError::illegal(format!("Failed to parse value [{v}] for setting [search.max_open_pit_context]"))
            })?,
            None => DEFAULT_MAX_OPEN_PIT_CONTEXT,
        };
        let reader_contexts = Arc::new(ReaderContexts::for_node(max_open_pit, &identity.node_id));
        let stop = Arc::new(AtomicBool::new(false));
        let node = Arc::new(Node {
            settings,
            cluster: cluster.clone(),
            pools,
            data_path,
            max_content_length,
            reader_contexts: reader_contexts.clone(),
            usage: Default::default(),
            tasks: Arc::new(crate::tasks::TaskManager::new(&identity.node_id)),
            #[cfg(feature = "server")]
            transport: std::sync::OnceLock::new(),
            #[cfg(feature = "server")]
            security: std::sync::OnceLock::new(),
            stop: stop.clone(),
            scheduler: Mutex::new(None),
        });
        let interval = match node.settings.get("search_backpressure.interval_millis") {
            Some(v) => v.trim().parse::<u64>().ok().filter(|n| *n >= 1).ok_or_else(|| {
                OsError::illegal(format!(
                    "Failed to parse value [{v}] for setting [search_backpressure.interval_millis] must be >= 1"
                ))
            })?,
            None => 1000,
        };
        crate::action::backpressure::Backpressure::new(cluster.clone(), node.tasks.clone())
            .start(Duration::from_millis(interval), node.stop.clone())
            .map_err(|e| OsError::internal(format!("cannot start the search backpressure thread: {e}")))?;
        let c = cluster.clone();
        let handle = std::thread::Builder::new()
            .name(format!("fathom[{}][scheduler][T#1]", identity.node_name))
            .spawn(move || {
                while !stop.load(Ordering::Relaxed) {
                    std::thread::sleep(Duration::from_millis(100));
                    c.scheduled_refresh();
                    reader_contexts.reap_in(&c);
                }
            })
            .map_err(|e| OsError::internal(format!("cannot start the scheduler thread: {e}")))?;
        *node.scheduler.lock().unwrap_or_else(|e| e.into_inner()) = Some(handle);
        Ok(node)
    }

    /// Set when the node shuts down (background threads end).
    pub fn stop_flag(&self) -> Arc<AtomicBool> {
        self.stop.clone()
    }

    /// Stops the scheduler and pools, then flushes and closes every shard.
    pub fn shutdown(&self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(h) = self.scheduler.lock().unwrap_or_else(|e| e.into_inner()).take() {
            let _ = h.join();
        }
        for p in self.pools.all() {
            p.shutdown();
        }
        self.cluster.shutdown();
    }
}

fn hostname_or(default: &str) -> String {
    std::fs::read_to_string("/etc/hostname")
        .ok()
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| default.to_string())
}

/// Whether an address is loopback (binding elsewhere needs security, which is not enabled).
pub fn is_loopback(host: &str) -> bool {
    match host {
        "localhost" | "_local_" | "_local:ipv4_" | "_local:ipv6_" => true,
        h => h.trim_matches(['[', ']']).parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback()),
    }
}

/// The node query cache's static settings: `indices.queries.cache.size` (a byte size or a
/// share of the machine's memory, default 10%: OpenSearch's is 10% of the heap, and a Rust
/// process's heap is the machine's memory), `indices.queries.cache.count` (distinct filters,
/// default 10 000, at least 1) and `indices.queries.cache.all_segments` (testing: cache on
/// every segment, not only large ones).
fn configure_query_cache(settings: &NodeSettings, cluster: &ClusterService) -> OsResult<()> {
    let memory = crate::cluster::breakers::physical_memory();
    let size = match settings.get("indices.queries.cache.size") {
        Some(v) => crate::cluster::breakers::parse_memory(v, memory).ok_or_else(|| {
            OsError::illegal(format!(
                "failed to parse setting [indices.queries.cache.size] with value [{v}] as a size in bytes"
            ))
        })?,
        None => memory / 10,
    };
    let count = match settings.get("indices.queries.cache.count") {
        Some(v) => match v.trim().parse::<i64>() {
            Ok(n) if n >= 1 => n as u64,
            Ok(_) => {
                return Err(OsError::illegal(format!(
                    "Failed to parse value [{v}] for setting [indices.queries.cache.count] must be >= 1"
                )))
            }
            Err(_) => {
                return Err(OsError::illegal(format!(
                    "Failed to parse value [{v}] for setting [indices.queries.cache.count]"
                )))
            }
        },
        None => 10_000,
    };
    let all = match settings.get("indices.queries.cache.all_segments") {
        None => false,
        Some("true") => true,
        Some("false") => false,
        Some(v) => {
            return Err(OsError::illegal(format!("Failed to parse value [{v}] as only [true] or [false] are allowed.")))
        }
    };
    cluster.query_cache.configure(size, count, all);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn byte_sizes() {
        assert_eq!(parse_bytes("100mb"), Some(100 << 20));
        assert_eq!(parse_bytes("1kb"), Some(1024));
        assert_eq!(parse_bytes("12"), Some(12));
        assert_eq!(parse_bytes("x"), None);
    }

    #[test]
    fn loopback() {
        assert!(is_loopback("127.0.0.1"));
        assert!(is_loopback("::1"));
        assert!(is_loopback("localhost"));
        assert!(!is_loopback("0.0.0.0"));
        assert!(!is_loopback("10.1.2.3"));
    }
}
