//! `search_type=dfs_query_then_fetch` across nodes (OpenSearch's `SearchDfsQueryThenFetchAsyncAction`):
//! a first round, `indices:data/read/search[phase/dfs]`, asks every node for the term and field
//! statistics its shards look up for the request's query and rescore queries (each shard apart,
//! OpenSearch's `DfsPhase`); the coordinator sums them (`AggregatedDfs`) and the query round runs
//! on the same copies with the sums in force (see [`crate::engine::query::dfs`]), so the scores
//! are those of one index holding every searched document.

use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::context::{self, ShardContext};
use super::execute::{self, unit_query, unit_query_context};
use super::node_result::NodeResult;
use super::remote::{self, NodeShards};
use super::request::SearchRequest;
use super::rescore;
use crate::cluster::ClusterService;
use crate::engine::query::dfs::{self, DfsStats};
use crate::error::{OsError, OsResult};

/// The node-level dfs round of a search across nodes.
pub const ACTION_DFS: &str = "indices:data/read/search[phase/dfs]";

const TIMEOUT: Duration = Duration::from_secs(300);

#[derive(Debug, Serialize, Deserialize)]
struct WireDfs {
    expr: String,
    shards: Vec<(String, u32)>,
    req: SearchRequest,
}

/// The dfs round over this node's `ctxs`: per shard, the statistics the compilation of its
/// query (and rescore queries) looks up, with its document count; summed.
pub fn node_dfs(ctxs: &[ShardContext], req: &SearchRequest) -> OsResult<DfsStats> {
    let now = crate::clock::now_millis();
    let mut sum = DfsStats::default();
    for u in execute::units(ctxs, false) {
        let qc = unit_query_context(&u, ctxs, req, now);
        let query = unit_query(&u, ctxs, req, &qc)?;
        let rescores = match &req.rescore {
            Some(v) => rescore::Compiled::new(&rescore::parse(v)?, &qc)?.rescores,
            None => Vec::new(),
        };
        let (compiled, mut recorded) = dfs::recording(|| -> OsResult<()> {
            u.searcher.match_weight(&query, true)?;
            for (_, q) in &rescores {
                u.searcher.match_weight(q, true)?;
            }
            Ok(())
        });
        compiled?;
        recorded.max_doc = u.searcher.segments.iter().map(|s| s.max_doc() as u64).sum();
        sum.merge(&recorded);
    }
    Ok(sum)
}

/// What the dfs round gathered: the summed statistics, the failures of the shards whose round
/// failed (as node results), and which parts failed (those leave the query round).
pub struct Gathered {
    pub stats: DfsStats,
    pub failures: Vec<NodeResult>,
    pub local_failed: bool,
    pub failed_nodes: Vec<String>,
}

/// The dfs round of a search over this node's `ctxs` and the `remote` nodes' shards.
pub fn gather(
    cs: &ClusterService,
    expr: &str,
    req: &SearchRequest,
    ctxs: &[ShardContext],
    remote: &[NodeShards],
) -> OsResult<Gathered> {
    // The round's own parse leaves its warnings in a sink of its own: the query round reports them.
    let round = SearchRequest { warnings: Default::default(), ..req.clone() };
    let (local, answers) = std::thread::scope(|s| {
        let handles: Vec<_> = remote
            .iter()
            .map(|(node, shards)| {
                let w = WireDfs { expr: expr.to_string(), shards: shards.clone(), req: round.clone() };
                s.spawn(move || {
                    let payload = serde_json::to_vec(&w).map_err(|e| OsError::internal(e.to_string()))?;
                    let b = cs.send(node, ACTION_DFS, payload, TIMEOUT)?;
                    serde_json::from_slice::<DfsStats>(&b)
                        .map_err(|e| OsError::internal(format!("malformed dfs answer: {e}")))
                })
            })
            .collect();
        let local = (!ctxs.is_empty()).then(|| node_dfs(ctxs, &round));
        let answers: Vec<OsResult<DfsStats>> = handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|_| Err(OsError::internal("a dfs thread panicked"))))
            .collect();
        (local, answers)
    });
    let mut g =
        Gathered { stats: DfsStats::default(), failures: Vec::new(), local_failed: false, failed_nodes: Vec::new() };
    if let Some(r) = local {
        match r {
            Ok(s) => g.stats.merge(&s),
            Err(e) => {
                let ids: Vec<(String, u32)> = ctxs.iter().map(|c| (c.index.clone(), c.shard)).collect();
                g.failures.push(remote::node_outcome(Err(e), &ids, None)?);
                g.local_failed = true;
            }
        }
    }
    for (r, (node, shards)) in answers.into_iter().zip(remote) {
        match r {
            Ok(s) => g.stats.merge(&s),
            Err(e) => {
                g.failures.push(remote::node_outcome(Err(e), shards, Some(node))?);
                g.failed_nodes.push(node.clone());
            }
        }
    }
    Ok(g)
}

/// The receiving side of [`ACTION_DFS`]: the dfs round of the listed shards of this node
/// (shards that did not open here are left out: the query round reports them).
pub fn handle(cs: &ClusterService, payload: &[u8]) -> OsResult<Vec<u8>> {
    let w: WireDfs =
        serde_json::from_slice(payload).map_err(|e| OsError::illegal(format!("malformed dfs request: {e}")))?;
    let (ctxs, _failed) = context::acquire_shards(cs, &w.expr, &w.shards)?;
    let stats = node_dfs(&ctxs, &w.req)?;
    serde_json::to_vec(&stats).map_err(|e| OsError::internal(e.to_string()))
}

#[cfg(test)]
#[path = "dfs_phase_tests.rs"]
mod tests;
