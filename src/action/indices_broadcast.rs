//! Broadcast operations over every copy of some indices (OpenSearch's
//! `TransportBroadcastByNodeAction` / `TransportBroadcastReplicationAction`): `_refresh`,
//! `_flush`, `_forcemerge`, `_cache/clear`. Each node runs the operation on the copies it holds
//! (primaries and replicas) and answers its counts; the coordinating node asks, in parallel,
//! every other node that holds a copy, and sums. `_shards.total` counts every copy the indices
//! have (`shards × (1 + replicas)`), so unassigned copies show as not successful.

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use super::indices::Broadcast;
use crate::cluster::health::effective_replicas;
use crate::cluster::ClusterService;
use crate::error::{OsError, OsResult};

/// The node-level half of a broadcast.
pub const ACTION_BROADCAST: &str = "indices:admin/broadcast[n]";

#[derive(Debug, Serialize, Deserialize)]
struct NodeRequest {
    indices: Vec<String>,
    op: Broadcast,
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct NodeAnswer {
    ok: u32,
    failures: Vec<Value>,
}

/// Runs `op` on the copies of `indices` held here.
fn local(cs: &ClusterService, indices: &[String], op: Broadcast) -> NodeAnswer {
    let mut a = NodeAnswer::default();
    for n in indices {
        let Ok(svc) = cs.index(n) else { continue };
        for s in svc.shards() {
            let r = match &op {
                Broadcast::Refresh => s.refresh().map(|_| ()),
                Broadcast::ClearCache { query, request, fielddata, fields } => {
                    if *query {
                        cs.query_cache.clear_shard(&s.query_cache);
                    }
                    if *request {
                        cs.request_cache.clear_shards(&[s.request_cache.instance]);
                    }
                    if *fielddata {
                        cs.fielddata.clear((&s.index_uuid, s.id), fields.as_deref());
                    }
                    Ok(())
                }
                Broadcast::Flush => s.engine.flush().map_err(OsError::from),
                Broadcast::ForceMerge { max_num_segments } => s
                    .refresh()
                    .and_then(|_| s.engine.force_merge(*max_num_segments).map_err(OsError::from))
                    .and_then(|_| s.refresh().map(|_| ())),
            };
            match r {
                Ok(()) => a.ok += 1,
                Err(e) => a
                    .failures
                    .push(json!({"shard": s.id, "index": n, "status": "INTERNAL_SERVER_ERROR", "reason": e.to_json()})),
            }
        }
    }
    a
}

/// `op` on every copy of `indices` (open indices, resolved), on every node that holds one.
pub fn run(cs: &ClusterService, indices: &[String], op: Broadcast) -> OsResult<Value> {
    let st = cs.state();
    let mut total = 0u32;
    for n in indices {
        if let Some(m) = st.metadata.indices.get(n) {
            total += m.number_of_shards() * (1 + effective_replicas(m, 1));
        }
    }
    let me = cs.node.node_id.as_str();
    let mut others: Vec<String> = st
        .routing
        .copies()
        .filter(|(name, _, c)| indices.iter().any(|n| n == name) && c.active())
        .filter_map(|(_, _, c)| c.node.clone())
        .filter(|n| n != me)
        .collect();
    others.sort();
    others.dedup();
    let req = serde_json::to_vec(&NodeRequest { indices: indices.to_vec(), op: op.clone() })
        .map_err(|e| OsError::internal(e.to_string()))?;
    let (mine, theirs) = std::thread::scope(|s| {
        let handles: Vec<_> = others
            .iter()
            .map(|node| {
                let req = req.clone();
                s.spawn(move || {
                    let timeout = std::time::Duration::from_secs(300);
                    cs.send(node, ACTION_BROADCAST, req, timeout).and_then(|b| {
                        serde_json::from_slice::<NodeAnswer>(&b)
                            .map_err(|e| OsError::internal(format!("malformed broadcast answer: {e}")))
                    })
                })
            })
            .collect();
        let mine = local(cs, indices, op);
        let theirs: Vec<_> = handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|_| Err(OsError::internal("a broadcast panicked"))))
            .collect();
        (mine, theirs)
    });
    let (mut ok, mut failures) = (mine.ok, mine.failures);
    for (node, a) in others.iter().zip(theirs) {
        match a {
            Ok(a) => {
                ok += a.ok;
                failures.extend(a.failures);
            }
            // The node's copies count as failed: one entry for the node (OpenSearch lists a
            // failed node's shards; it does not know which copies the node had applied).
            Err(e) => failures.push(json!({"node": node, "status": "INTERNAL_SERVER_ERROR", "reason": e.to_json()})),
        }
    }
    let mut shards = json!({"total": total, "successful": ok, "failed": failures.len()});
    if !failures.is_empty() {
        shards["failures"] = Value::Array(failures);
    }
    Ok(json!({"_shards": shards}))
}

/// The receiving side of [`ACTION_BROADCAST`].
pub fn handle(cs: &ClusterService, payload: &[u8]) -> OsResult<Vec<u8>> {
    let req: NodeRequest =
        serde_json::from_slice(payload).map_err(|e| OsError::illegal(format!("malformed broadcast request: {e}")))?;
    serde_json::to_vec(&local(cs, &req.indices, req.op)).map_err(|e| OsError::internal(e.to_string()))
}
