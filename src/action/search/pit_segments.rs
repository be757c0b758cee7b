//! The segments pinned by PITs (`_cat/pit_segments`): each node lists the segments of its own
//! PIT contexts; across nodes the coordinating node asks every node holding some
//! (`indices:monitor/point_in_time/segments[n]`) and lists their rows in node order.

use std::collections::HashSet;

use serde::{Deserialize, Serialize};

use super::pit::{decode_pit_id, ContextId, ContextKind, ReaderContexts, ShardRef};
use super::remote_contexts as rc;
use super::ShardContext;
use crate::cluster::ClusterService;
use crate::error::OsResult;

/// A node's PIT segments.
pub const ACTION_PIT_SEGMENTS: &str = "indices:monitor/point_in_time/segments[n]";

/// One segment pinned by a PIT.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SegmentRow {
    pub index: String,
    pub shard: u32,
    pub ip: String,
    pub node_id: String,
    pub segment: String,
    pub generation: u64,
    pub docs_count: u64,
    pub docs_deleted: u64,
    pub size: u64,
    pub committed: bool,
}

/// The contexts whose segments a node lists: all its PITs' (`None`) or these shards'.
#[derive(Debug, Serialize, Deserialize)]
pub struct SegmentsQuery {
    pub shards: Option<Vec<ShardRef>>,
}

/// The segment rows of `ctxs` (each shard's pinned segments; committed when the segment is
/// still the writer's and in its last commit).
pub fn rows(cs: &ClusterService, ctxs: &[ShardContext]) -> Vec<SegmentRow> {
    let ident = &cs.node;
    let mut out = Vec::new();
    for c in ctxs {
        let committed: Vec<(String, bool)> = cs
            .index(&c.index)
            .ok()
            .and_then(|svc| svc.shard(c.shard).map(|s| s.engine.writer().segment_stats()))
            .map(|v| v.into_iter().map(|s| (s.name, s.committed)).collect())
            .unwrap_or_default();
        for leaf in c.reader.leaves() {
            let name = leaf.reader.name().to_string();
            let deleted = leaf.live.num_deleted();
            out.push(SegmentRow {
                index: c.index.clone(),
                shard: c.shard,
                ip: ident.host.clone(),
                node_id: ident.node_id.clone(),
                generation: u64::from_str_radix(name.trim_start_matches('_'), 36).unwrap_or(0),
                committed: committed.iter().any(|(n, c)| *n == name && *c),
                segment: name,
                docs_count: u64::from(leaf.reader.max_doc().saturating_sub(deleted)),
                docs_deleted: u64::from(deleted),
                size: leaf.reader.info.size_in_bytes(),
            });
        }
    }
    out
}

/// The contexts of PIT shards held here, each pinned reader once.
fn contexts_of(reg: &ReaderContexts, shards: &[ShardRef]) -> Vec<ShardContext> {
    let found = reg.find(&ContextId { kind: ContextKind::Pit, shards: shards.to_vec() }, None);
    let mut seen = HashSet::new();
    found.contexts.into_iter().filter(|c| seen.insert((c.index_uuid.clone(), c.shard, c.reader.version()))).collect()
}

/// The receiving side of [`ACTION_PIT_SEGMENTS`] (and this node's own part).
pub fn node_rows(cs: &ClusterService, reg: &ReaderContexts, q: &SegmentsQuery) -> OsResult<Vec<SegmentRow>> {
    let ctxs = match &q.shards {
        None => reg.all_pit_contexts(),
        Some(shards) => contexts_of(reg, shards),
    };
    Ok(rows(cs, &ctxs))
}

/// The rows of every PIT (`ids` `None`) or of the PITs `ids`, from every node holding them.
pub fn segments(cs: &ClusterService, reg: &ReaderContexts, ids: Option<&[String]>) -> OsResult<Vec<SegmentRow>> {
    let targets: Vec<(String, SegmentsQuery)> = match ids {
        None if !rc::has_other_nodes(cs) => return Ok(rows(cs, &reg.all_pit_contexts())),
        None => rc::all_nodes(cs).into_iter().map(|n| (n, SegmentsQuery { shards: None })).collect(),
        Some(ids) if !rc::has_other_nodes(cs) => return Ok(rows(cs, &super::pit::pit_contexts(reg, ids)?)),
        Some(ids) => {
            let mut targets: Vec<(String, SegmentsQuery)> = Vec::new();
            for id in ids {
                for (node, c) in decode_pit_id(id)?.by_node() {
                    match targets.iter_mut().find(|t| t.0 == node) {
                        Some(t) => t.1.shards.get_or_insert_with(Vec::new).extend(c.shards),
                        None => targets.push((node, SegmentsQuery { shards: Some(c.shards) })),
                    }
                }
            }
            targets
        }
    };
    let mut out = Vec::new();
    for r in rc::on_nodes(cs, ACTION_PIT_SEGMENTS, &targets, &|q| node_rows(cs, reg, q), &rc::no_node) {
        out.extend(r?);
    }
    Ok(out)
}
