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
use crate::tasks::{TaskId, TaskSpec};
use crate::threadpool::ThreadPool;
use crate::transport::{Inbound, Transport};

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
        // The request is a child of the calling thread's task (`_tasks` parent_task_id).
        let parent = crate::tasks::current().and_then(|t| t.task_id()).map(|t| t.to_string());
        let r = block(
            &self.handle,
            self.transport.request_as_child(addr, action, parent.as_deref(), Bytes::from(payload), timeout),
        );
        r.map(|b| b.to_vec()).map_err(OsError::from)
    }
}

/// What an inbound request runs as: a task of its action, child of the sender's task.
pub(super) fn task_of(req: &Inbound) -> TaskSpec {
    TaskSpec {
        action: req.action.clone().into(),
        parent: req.parent_task.as_deref().and_then(|p| TaskId::parse(p).ok()),
        cancellable: crate::tasks::cancellable(&req.action),
        ..TaskSpec::default()
    }
}

/// Runs `f` on `pool` as the task `task` of `n` and awaits its answer.
pub(super) async fn on_pool(
    n: &Node,
    pool: &ThreadPool,
    task: TaskSpec,
    f: impl FnOnce() -> OsResult<Vec<u8>> + Send + 'static,
) -> Result<Bytes, OsError> {
    let (tx, rx) = tokio::sync::oneshot::channel();
    let tasks = n.tasks.clone();
    pool.execute(move || {
        let guard = tasks.register(task);
        let working = guard.task.enter();
        let r = f();
        let r = match guard.task.cancel_reason() {
            Some(reason) => Err(crate::tasks::cancelled_error(&reason)),
            None => r,
        };
        drop(working);
        drop(guard);
        let _ = tx.send(r);
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
            on_pool(&n, &n.pools.write, task_of(&req), move || {
                crate::action::bulk::remote::handle_shard_bulk(&cs, &req.payload)
            })
            .await
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
                on_pool(&n, &n.pools.generic, task_of(&req), move || handler(&cs, &req.payload)).await
            }
        });
    }
    let n = node.clone();
    transport.register_fn(crate::action::documents::remote_get::ACTION_GET, move |req| {
        let n = n.clone();
        async move {
            let cs = n.cluster.clone();
            on_pool(&n, &n.pools.get, task_of(&req), move || {
                crate::action::documents::remote_get::handle(&cs, &req.payload)
            })
            .await
        }
    });
    let n = node.clone();
    transport.register_fn(crate::action::search::remote::ACTION_QUERY_FETCH, move |req| {
        let n = n.clone();
        async move {
            let cs = n.cluster.clone();
            on_pool(&n, &n.pools.search, task_of(&req), move || {
                crate::action::search::remote::handle(&cs, &req.payload)
            })
            .await
        }
    });
    let n = node.clone();
    transport.register_fn(crate::action::explain::ACTION_EXPLAIN, move |req| {
        let n = n.clone();
        async move {
            let cs = n.cluster.clone();
            on_pool(&n, &n.pools.search, task_of(&req), move || crate::action::explain::handle(&cs, &req.payload)).await
        }
    });
    let n = node.clone();
    transport.register_fn(crate::action::search::dfs_phase::ACTION_DFS, move |req| {
        let n = n.clone();
        async move {
            let cs = n.cluster.clone();
            on_pool(&n, &n.pools.search, task_of(&req), move || {
                crate::action::search::dfs_phase::handle(&cs, &req.payload)
            })
            .await
        }
    });
    super::transport_search_contexts::register(node, transport);
    super::security_sync::register(node, transport);
}
