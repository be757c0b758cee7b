//! The node-level actions of PITs and scrolls whose shards are spread over nodes
//! ([`crate::action::search::remote_contexts::ACTIONS`]): registered on the transport, each run
//! on the search pool (opening contexts, query+fetch over them) or the generic pool (naming,
//! freeing and listing contexts, which must not wait behind searches).

use std::sync::Arc;

use bytes::Bytes;

use super::Node;
use crate::action::search::remote_contexts::{handle, ACTIONS};
use crate::error::OsError;
use crate::threadpool::ThreadPool;
use crate::transport::Transport;

/// Runs `f` on `pool` and awaits its answer.
async fn on_pool(
    pool: &ThreadPool,
    f: impl FnOnce() -> Result<Vec<u8>, OsError> + Send + 'static,
) -> Result<Bytes, OsError> {
    let (tx, rx) = tokio::sync::oneshot::channel();
    pool.execute(move || {
        let _ = tx.send(f());
    })?;
    rx.await.map_err(|_| OsError::internal("the thread pool dropped the request"))?.map(Bytes::from)
}

/// Registers the PIT and scroll context actions this node answers for others.
pub fn register(node: &Arc<Node>, transport: &Transport) {
    for &(action, search_pool) in ACTIONS {
        let n = node.clone();
        transport.register_fn(action, move |req| {
            let n = n.clone();
            async move {
                let pool = if search_pool { &n.pools.search } else { &n.pools.generic };
                let (cs, reg) = (n.cluster.clone(), n.reader_contexts.clone());
                on_pool(pool, move || handle(&cs, &reg, action, &req.payload)).await
            }
        });
    }
}
