//! The actions other nodes call on this one over the transport (shard-level writes, reads,
//! ...), each run on its thread pool as the local request would be, and the client that
//! sends them ([`TransportClient`], the cluster layer's [`NodeClient`]).

use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;

use super::state_sync::block;
use super::Node;
use crate::cluster::coordination_view::MemberView;
use crate::cluster::remote::NodeClient;
use crate::error::{ErrorKind, OsError, OsResult};
use crate::threadpool::ThreadPool;
use crate::transport::Transport;

/// Sends actions over the node's transport.
#[derive(Debug)]
pub struct TransportClient {
    pub transport: Arc<Transport>,
    pub handle: tokio::runtime::Handle,
}

impl NodeClient for TransportClient {
    fn send(&self, node: &MemberView, action: &str, payload: Vec<u8>, timeout: Duration) -> OsResult<Vec<u8>> {
        let addr: std::net::SocketAddr = node.transport_address.parse().map_err(|_| {
            OsError::new(
                ErrorKind::NodeNotConnected,
                format!("[{}][{}] Node not connected", node.name, node.transport_address),
            )
        })?;
        let r = block(&self.handle, self.transport.request(addr, action, Bytes::from(payload), timeout));
        r.map(|b| b.to_vec()).map_err(OsError::from)
    }
}

/// Runs `f` on `pool` and awaits its answer.
async fn on_pool(pool: &ThreadPool, f: impl FnOnce() -> OsResult<Vec<u8>> + Send + 'static) -> Result<Bytes, OsError> {
    let (tx, rx) = tokio::sync::oneshot::channel();
    pool.execute(move || {
        let _ = tx.send(f());
    })?;
    rx.await.map_err(|_| OsError::internal("the thread pool dropped the request"))?.map(Bytes::from)
}

/// Registers the actions this node answers for others.
pub fn register(node: &Arc<Node>, transport: &Transport) {
    super::transport_info::register(node, transport);
    let n = node.clone();
    transport.register_fn(crate::action::bulk::remote::ACTION_SHARD_BULK, move |req| {
        let n = n.clone();
        async move {
            let cs = n.cluster.clone();
            on_pool(&n.pools.write, move || crate::action::bulk::remote::handle_shard_bulk(&cs, &req.payload)).await
        }
    });
    // Replica writes and the primary's side of peer recoveries run on the generic pool, never
    // on the write pool: a primary's write thread waits for its replicas, and two nodes whose
    // write pools were both full of such waits would wait for each other forever.
    let generic: [(&str, fn(&crate::cluster::ClusterService, &[u8]) -> OsResult<Vec<u8>>); 7] = [
        (crate::action::indices_broadcast::ACTION_BROADCAST, crate::action::indices_broadcast::handle),
        (crate::cluster::replication::ACTION_REPLICA, crate::cluster::replication::handle_replica),
        (crate::cluster::peer_recovery::ACTION_START, crate::cluster::peer_recovery::source::handle_start),
        (crate::cluster::peer_recovery::ACTION_FILE_CHUNK, crate::cluster::peer_recovery::source::handle_chunk),
        (crate::cluster::peer_recovery::ACTION_PREPARE_TRANSLOG, crate::cluster::peer_recovery::source::handle_prepare),
        (crate::cluster::peer_recovery::ACTION_TRANSLOG_OPS, crate::cluster::peer_recovery::source::handle_ops),
        (crate::cluster::peer_recovery::ACTION_FINALIZE, crate::cluster::peer_recovery::source::handle_finalize),
    ];
    for (action, handler) in generic {
        let n = node.clone();
        transport.register_fn(action, move |req| {
            let n = n.clone();
            async move {
                let cs = n.cluster.clone();
                on_pool(&n.pools.generic, move || handler(&cs, &req.payload)).await
            }
        });
    }
    let n = node.clone();
    transport.register_fn(crate::action::documents::remote_get::ACTION_GET, move |req| {
        let n = n.clone();
        async move {
            let cs = n.cluster.clone();
            on_pool(&n.pools.get, move || crate::action::documents::remote_get::handle(&cs, &req.payload)).await
        }
    });
    let n = node.clone();
    transport.register_fn(crate::action::search::remote::ACTION_QUERY_FETCH, move |req| {
        let n = n.clone();
        async move {
            let cs = n.cluster.clone();
            on_pool(&n.pools.search, move || crate::action::search::remote::handle(&cs, &req.payload)).await
        }
    });
    let n = node.clone();
    transport.register_fn(crate::action::explain::ACTION_EXPLAIN, move |req| {
        let n = n.clone();
        async move {
            let cs = n.cluster.clone();
            on_pool(&n.pools.search, move || crate::action::explain::handle(&cs, &req.payload)).await
        }
    });
    let n = node.clone();
    transport.register_fn(crate::action::search::dfs_phase::ACTION_DFS, move |req| {
        let n = n.clone();
        async move {
            let cs = n.cluster.clone();
            on_pool(&n.pools.search, move || crate::action::search::dfs_phase::handle(&cs, &req.payload)).await
        }
    });
    super::transport_search_contexts::register(node, transport);
}
