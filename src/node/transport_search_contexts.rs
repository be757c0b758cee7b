//! The node-level actions of PITs and scrolls whose shards are spread over nodes
//! ([`crate::action::search::remote_contexts::ACTIONS`]): registered on the transport, each run
//! on the search pool (opening contexts, query+fetch over them) or the generic pool (naming,
//! freeing and listing contexts, which must not wait behind searches), each as a task (a child
//! of the sender's).

use std::sync::Arc;

use super::transport_actions::{on_pool, task_of};
use super::Node;
use crate::action::search::remote_contexts::{handle, ACTIONS};
use crate::transport::Transport;

/// Registers the PIT and scroll context actions this node answers for others.
pub fn register(node: &Arc<Node>, transport: &Transport) {
    for &(action, search_pool) in ACTIONS {
        let n = node.clone();
        transport.register_fn(action, move |req| {
            let n = n.clone();
            async move {
                let pool = if search_pool { &n.pools.search } else { &n.pools.generic };
                let (cs, reg) = (n.cluster.clone(), n.reader_contexts.clone());
                on_pool(&n, pool, task_of(&req), move || handle(&cs, &reg, action, &req.payload)).await
            }
        });
    }
}
