//! The node-level inspection actions other nodes call on this one (`_nodes` info and stats,
//! the per-copy figures of `_cat/shards` and `_cat/allocation`, the copies' recoveries). They run on the generic pool,
//! never on the management pool: the REST requests that send them wait there, and two nodes
//! whose management pools were full of such waits would wait for each other. The task actions
//! (`_tasks` list, cancel, bans) run there too.

use std::sync::Arc;

use bytes::Bytes;
use serde_json::{Map, Value};

use super::Node;
use crate::action::{hot_threads, node_stats, nodes_info, nodes_usage, pending_tasks, recovery, shard_stats};
use crate::error::{OsError, OsResult};
use crate::transport::Transport;

/// Runs `f` on the node's generic pool and awaits its answer (the task actions, which register
/// their own per-node task).
async fn on_generic(node: &Node, f: impl FnOnce() -> OsResult<Vec<u8>> + Send + 'static) -> Result<Bytes, OsError> {
    let (tx, rx) = tokio::sync::oneshot::channel();
    node.pools.generic.execute(move || {
        let _ = tx.send(f());
    })?;
    rx.await.map_err(|_| OsError::internal("the thread pool dropped the request"))?.map(Bytes::from)
}

/// Runs `f` on the node's generic pool as the request's task (a child of the sender's).
async fn as_task(
    node: &Node,
    task: crate::tasks::TaskSpec,
    f: impl FnOnce() -> OsResult<Vec<u8>> + Send + 'static,
) -> Result<Bytes, OsError> {
    super::transport_actions::on_pool(node, &node.pools.generic, task, f).await
}

/// Registers the inspection actions.
pub fn register(node: &Arc<Node>, transport: &Transport) {
    let n = node.clone();
    transport.register_fn(nodes_info::ACTION_NODE_INFO, move |req| {
        let n = n.clone();
        async move {
            let m = n.clone();
            as_task(&n, super::transport_actions::task_of(&req), move || {
                let settings: Map<String, Value> =
                    m.settings.all().iter().map(|(k, v)| (k.clone(), Value::String(v.clone()))).collect();
                nodes_info::handle(&m.cluster, &m.pools, &settings, m.max_content_length, &req.payload)
            })
            .await
        }
    });
    let n = node.clone();
    transport.register_fn(node_stats::ACTION_NODE_STATS, move |req| {
        let n = n.clone();
        async move {
            let m = n.clone();
            as_task(&n, super::transport_actions::task_of(&req), move || {
                node_stats::handle(&m.cluster, &m.pools, &req.payload)
            })
            .await
        }
    });
    let n = node.clone();
    transport.register_fn(shard_stats::ACTION_SHARD_STATS, move |req| {
        let n = n.clone();
        async move {
            let m = n.clone();
            as_task(&n, super::transport_actions::task_of(&req), move || shard_stats::handle(&m.cluster, &req.payload))
                .await
        }
    });
    register_tasks(node, transport);
    let n = node.clone();
    transport.register_fn(recovery::ACTION_NODE_RECOVERIES, move |req| {
        let n = n.clone();
        async move {
            let m = n.clone();
            as_task(&n, super::transport_actions::task_of(&req), move || recovery::handle(&m.cluster, &req.payload))
                .await
        }
    });
}

/// The task actions: list and cancel on this node, and bans of cancelled parents.
fn register_tasks(node: &Arc<Node>, transport: &Transport) {
    use crate::action::tasks;
    let n = node.clone();
    transport.register_fn(tasks::ACTION_LIST_NODE, move |req| {
        let n = n.clone();
        async move {
            let m = n.clone();
            on_generic(&n, move || tasks::handle_list(&m.tasks, &req.payload)).await
        }
    });
    let n = node.clone();
    transport.register_fn(tasks::ACTION_CANCEL_NODE, move |req| {
        let n = n.clone();
        async move {
            let m = n.clone();
            on_generic(&n, move || {
                let cs = m.cluster.clone();
                tasks::handle_cancel(&m.tasks, &req.payload, &|p, r| tasks::ban_on_other_nodes(&cs, p, r))
            })
            .await
        }
    });
    let n = node.clone();
    transport.register_fn(tasks::ACTION_BAN, move |req| {
        let n = n.clone();
        async move {
            let m = n.clone();
            on_generic(&n, move || tasks::handle_ban(&m.tasks, &req.payload)).await
        }
    });
    let n = node.clone();
    transport.register_fn(pending_tasks::ACTION_NODE_PENDING, move |_req| {
        let n = n.clone();
        async move {
            let m = n.clone();
            on_generic(&n, move || pending_tasks::handle(&m.cluster)).await
        }
    });
    let n = node.clone();
    transport.register_fn(hot_threads::ACTION_NODE_HOT_THREADS, move |req| {
        let n = n.clone();
        async move { on_generic(&n, move || hot_threads::handle(&req.payload)).await }
    });
    let n = node.clone();
    transport.register_fn(nodes_usage::ACTION_NODE_USAGE, move |req| {
        let n = n.clone();
        async move {
            let m = n.clone();
            on_generic(&n, move || nodes_usage::handle(&m.usage, &req.payload)).await
        }
    });
}
