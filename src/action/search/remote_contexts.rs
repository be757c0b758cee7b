//! Reader contexts on other nodes: the node-level actions that open, name and free a node's
//! part of a PIT or scroll whose shards are spread over nodes (OpenSearch's
//! `SearchTransportService` create/update/free context actions), and the fan-out that calls a
//! node-level action on several nodes at once (this node's part runs in place).

use std::time::Duration;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use super::context::{self, FailedShard};
use super::pit::{ContextId, ContextKind, ReaderContexts, ScrollCursor, ShardRef};
use super::request::SearchRequest;
use crate::cluster::ClusterService;
use crate::error::{ErrorKind, OsError, OsResult};

/// Opens reader contexts for listed shards of the receiving node.
pub const ACTION_CREATE_CONTEXT: &str = "indices:data/read/search[create_context]";
/// Names the PIT id (and creation time) of contexts opened by [`ACTION_CREATE_CONTEXT`].
pub const ACTION_UPDATE_CONTEXT: &str = "indices:data/read/search[update_context]";
/// Frees listed contexts of a PIT.
pub const ACTION_FREE_PIT_CONTEXT: &str = "indices:data/read/search[free_context/pit]";
/// Frees every PIT context of the node.
pub const ACTION_FREE_ALL_PIT_CONTEXTS: &str = "indices:data/read/search[free_pit_contexts]";
/// Frees listed contexts of a scroll.
pub const ACTION_FREE_SCROLL_CONTEXT: &str = "indices:data/read/search[free_context/scroll]";
/// Frees every scroll context of the node.
pub const ACTION_CLEAR_SCROLL_CONTEXTS: &str = "indices:data/read/search[clear_scroll_contexts]";

/// How long a node-level context action may take.
pub(super) const TIMEOUT: Duration = Duration::from_secs(300);

/// Opens contexts of `kind` on `shards` of this node, reached through `expr`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct CreateContext {
    pub expr: String,
    pub shards: Vec<(String, u32)>,
    pub pit: bool,
    pub keep_alive_ms: u64,
    /// A scroll's request (kept by the node's cursor for its pages).
    pub request: Option<SearchRequest>,
}

/// The contexts opened, and the shards that did not open here.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Created {
    pub shards: Vec<ShardRef>,
    pub failed: Vec<FailedShard>,
}

/// Names the id of contexts of this node.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct UpdateContext {
    pub contexts: Vec<u64>,
    pub owner: String,
    pub created_ms: i64,
}

/// Contexts of an id held by this node (the shards of one node).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Contexts {
    pub pit: bool,
    pub shards: Vec<ShardRef>,
}

/// The receiving side of [`ACTION_CREATE_CONTEXT`].
pub fn create(cs: &ClusterService, reg: &ReaderContexts, r: &CreateContext) -> OsResult<Created> {
    let (ctxs, failed) = context::acquire_shards(cs, &r.expr, &r.shards)?;
    let keep_alive = Duration::from_millis(r.keep_alive_ms);
    let (kind, max, cursor) = if r.pit {
        (ContextKind::Pit, Some(reg.max_open_pit(cs)?), None)
    } else {
        let request = r.request.clone().ok_or_else(|| OsError::illegal("a scroll context needs its request"))?;
        (ContextKind::Scroll, None, Some(ScrollCursor { request, state: Default::default() }))
    };
    let shards = reg.open(ctxs, kind, keep_alive, max, cursor)?;
    Ok(Created { shards, failed })
}

/// The receiving side of [`ACTION_UPDATE_CONTEXT`]: how many of the contexts are still open.
pub fn update(reg: &ReaderContexts, r: &UpdateContext) -> OsResult<usize> {
    Ok(reg.adopt(&r.contexts, &r.owner, Some(r.created_ms)))
}

/// The receiving side of the free actions: how many contexts were freed.
pub fn free(reg: &ReaderContexts, r: &Contexts) -> OsResult<usize> {
    let kind = if r.pit { ContextKind::Pit } else { ContextKind::Scroll };
    Ok(reg.free(&ContextId { kind, shards: r.shards.clone() }))
}

/// The receiving side of [`ACTION_FREE_ALL_PIT_CONTEXTS`]: the PIT ids freed (with their
/// context counts).
pub fn free_all_pits(reg: &ReaderContexts) -> OsResult<Vec<(String, usize)>> {
    Ok(reg.free_all(ContextKind::Pit).into_iter().filter(|o| !o.0.is_empty()).collect())
}

/// The receiving side of [`ACTION_CLEAR_SCROLL_CONTEXTS`]: how many contexts were freed.
pub fn clear_all_scrolls(reg: &ReaderContexts) -> OsResult<usize> {
    Ok(reg.free_all(ContextKind::Scroll).iter().map(|o| o.1).sum())
}

/// Decodes a node-level request.
fn parse<T: DeserializeOwned>(payload: &[u8]) -> OsResult<T> {
    serde_json::from_slice(payload).map_err(|e| OsError::illegal(format!("malformed node request: {e}")))
}

/// Encodes a node-level answer.
fn answer<T: Serialize>(v: OsResult<T>) -> OsResult<Vec<u8>> {
    serde_json::to_vec(&v?).map_err(|e| OsError::internal(e.to_string()))
}

/// The node-level actions of PITs and scrolls across nodes, and whether each runs on the search
/// pool (the others, which only free or name contexts or list them, run on the generic pool).
pub const ACTIONS: &[(&str, bool)] = &[
    (ACTION_CREATE_CONTEXT, true),
    (ACTION_UPDATE_CONTEXT, false),
    (ACTION_FREE_PIT_CONTEXT, false),
    (ACTION_FREE_ALL_PIT_CONTEXTS, false),
    (ACTION_FREE_SCROLL_CONTEXT, false),
    (ACTION_CLEAR_SCROLL_CONTEXTS, false),
    (super::remote_pit::ACTION_PIT_QUERY, true),
    (super::remote_pit::ACTION_LIST_PITS, false),
    (super::remote_scroll::ACTION_SCROLL_QUERY, true),
    (super::remote_scroll::ACTION_SCROLL_EMITTED, false),
    (super::pit_segments::ACTION_PIT_SEGMENTS, false),
];

/// Answers one of [`ACTIONS`] sent by another node.
pub fn handle(cs: &ClusterService, reg: &ReaderContexts, action: &str, payload: &[u8]) -> OsResult<Vec<u8>> {
    use super::{pit_segments, remote_pit, remote_scroll};
    match action {
        ACTION_CREATE_CONTEXT => answer(create(cs, reg, &parse(payload)?)),
        ACTION_UPDATE_CONTEXT => answer(update(reg, &parse(payload)?)),
        ACTION_FREE_PIT_CONTEXT | ACTION_FREE_SCROLL_CONTEXT => answer(free(reg, &parse(payload)?)),
        ACTION_FREE_ALL_PIT_CONTEXTS => answer(free_all_pits(reg)),
        ACTION_CLEAR_SCROLL_CONTEXTS => answer(clear_all_scrolls(reg)),
        remote_pit::ACTION_PIT_QUERY => answer(remote_pit::query(cs, reg, &parse(payload)?)),
        remote_pit::ACTION_LIST_PITS => answer(remote_pit::list_local(reg)),
        remote_scroll::ACTION_SCROLL_QUERY => answer(remote_scroll::query(cs, reg, &parse(payload)?)),
        remote_scroll::ACTION_SCROLL_EMITTED => answer(remote_scroll::emitted(reg, &parse(payload)?)),
        pit_segments::ACTION_PIT_SEGMENTS => answer(pit_segments::node_rows(cs, reg, &parse(payload)?)),
        other => Err(OsError::new(ErrorKind::ActionNotFoundTransport, format!("No handler for action [{other}]"))),
    }
}

/// Runs a node-level action on each target node at once: this node's request with `local`,
/// the others' over the transport. A node not in the cluster state fails with `gone(node)`.
pub(super) fn on_nodes<Q, R>(
    cs: &ClusterService,
    action: &str,
    targets: &[(String, Q)],
    local: &(dyn Fn(&Q) -> OsResult<R> + Sync),
    gone: &(dyn Fn(&str) -> OsError + Sync),
) -> Vec<OsResult<R>>
where
    Q: Serialize + Sync,
    R: DeserializeOwned + Send,
{
    let me = cs.node.node_id.as_str();
    let st = cs.state();
    std::thread::scope(|s| {
        let handles: Vec<_> = targets
            .iter()
            .map(|(node, q)| {
                let known = node == me || st.node(node).is_some();
                s.spawn(move || -> OsResult<R> {
                    if node == me {
                        return local(q);
                    }
                    if !known {
                        return Err(gone(node));
                    }
                    let payload = serde_json::to_vec(q).map_err(|e| OsError::internal(e.to_string()))?;
                    let bytes = cs.send(node, action, payload, TIMEOUT)?;
                    serde_json::from_slice(&bytes)
                        .map_err(|e| OsError::internal(format!("malformed answer to [{action}]: {e}")))
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|_| Err(OsError::internal("a node request thread panicked"))))
            .collect()
    })
}

/// Every node of the cluster state (this one first), for the actions that ask them all.
pub(super) fn all_nodes(cs: &ClusterService) -> Vec<String> {
    let me = cs.node.node_id.clone();
    let mut out = vec![me.clone()];
    out.extend(cs.state().nodes.iter().map(|n| n.node_id.clone()).filter(|n| *n != me));
    out
}

/// Whether `id` names a shard held by another node (its search or free then goes there).
pub fn spans_nodes(cs: &ClusterService, id: &ContextId) -> bool {
    id.shards.iter().any(|s| s.node != cs.node.node_id)
}

/// Whether the cluster has other nodes (the `_all` actions then ask each of them).
pub fn has_other_nodes(cs: &ClusterService) -> bool {
    cs.state().nodes.iter().any(|n| n.node_id != cs.node.node_id)
}

/// The place in the whole id of each context found for `shards` (`positions`: each shard's
/// place; the contexts found are the shards' in order, less the `missing` ones).
pub(super) fn ordinals(shards: &[ShardRef], positions: &[usize], missing: &[ShardRef]) -> Vec<usize> {
    shards.iter().zip(positions).filter(|(s, _)| !missing.iter().any(|m| m == *s)).map(|(_, p)| *p).collect()
}

/// Each shard's place among `all` (the whole id's shards).
pub(super) fn positions(all: &ContextId, shards: &[ShardRef]) -> Vec<usize> {
    shards.iter().map(|s| all.shards.iter().position(|x| x == s).unwrap_or(0)).collect()
}

/// OpenSearch's failure for a shard whose context is held by a node not in the cluster.
pub(super) fn no_node(node: &str) -> OsError {
    OsError::new(ErrorKind::IllegalState, format!("no node found for id: {node}")).status(500)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(node: &str, context: u64) -> ShardRef {
        ShardRef {
            index: "i".into(),
            index_uuid: "u".into(),
            shard: context as u32,
            node: node.into(),
            session: "s".into(),
            context,
        }
    }

    #[test]
    fn ordinals_are_places_in_the_whole_id() {
        let id = ContextId { kind: ContextKind::Pit, shards: vec![r("a", 0), r("b", 1), r("a", 2), r("b", 3)] };
        let groups = id.by_node();
        let b = &groups[1].1.shards;
        let pos = positions(&id, b);
        assert_eq!(pos, vec![1, 3]);
        assert_eq!(ordinals(b, &pos, &[]), vec![1, 3]);
        // A context gone: the ones found keep their places.
        assert_eq!(ordinals(b, &pos, &[r("b", 1)]), vec![3]);
        // An older coordinator sent no places: the contexts' own order is used.
        assert!(ordinals(b, &[], &[]).is_empty());
    }

    #[test]
    fn node_requests_round_trip_and_bad_ones_are_400() {
        let q = Contexts { pit: true, shards: vec![r("a", 4)] };
        let back: Contexts = parse(&answer(Ok(&q)).unwrap()).unwrap();
        assert_eq!(back.shards, q.shards);
        let e = parse::<Contexts>(b"{\"pit\": 1}").unwrap_err();
        assert_eq!(e.status, 400);
        let reg = ReaderContexts::new(10);
        let cs_free = handle_free_only(&reg, b"not json");
        assert_eq!(cs_free.unwrap_err().status, 400);
    }

    /// [`handle`]'s free path, which needs no cluster.
    fn handle_free_only(reg: &ReaderContexts, payload: &[u8]) -> OsResult<Vec<u8>> {
        answer(free(reg, &parse(payload)?))
    }
}
