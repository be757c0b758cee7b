//! Figures of shard copies as the node holding each copy measures them (OpenSearch's
//! `indices:monitor/stats[n]` per-node answer of `ShardStats`): documents, store, segments,
//! sequence numbers and paths. `_cat/shards` asks each node holding a copy once; `_cat/allocation`
//! and `_nodes/stats` sum a node's copies.

use std::collections::{BTreeMap, HashMap};
use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use super::nodes_fanout;
use crate::cluster::ClusterService;
use crate::error::OsResult;
use crate::shard::stats::CountersSnapshot;

/// The node-level action answering with the stats of this node's copies.
pub const ACTION_SHARD_STATS: &str = "indices:monitor/stats[n]";

/// One copy's figures.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CopyStats {
    pub index: String,
    pub shard: u32,
    pub allocation_id: String,
    pub primary: bool,
    pub docs: u64,
    pub deleted: u64,
    pub store_bytes: u64,
    pub segments: u64,
    pub max_seq_no: i64,
    pub local_checkpoint: i64,
    pub global_checkpoint: i64,
    pub path_data: String,
    pub path_state: String,
    /// What the copy did (indexing, gets, searches, refreshes, flushes, merges).
    #[serde(default)]
    pub counters: CountersSnapshot,
    #[serde(default)]
    pub translog: TranslogFigures,
    /// Bytes of the copy's segment files by extension (`tim`, `fdt`, `dvd`, ...).
    #[serde(default)]
    pub file_sizes: BTreeMap<String, u64>,
    /// Writes waiting for a refresh (`refresh=wait_for`).
    #[serde(default)]
    pub refresh_listeners: u64,
    /// Fielddata bytes the node holds for the copy, per field.
    #[serde(default)]
    pub fielddata_fields: BTreeMap<String, u64>,
    /// The copy's segments, when asked for (`_segments`, `_cat/segments`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub segment_list: Vec<SegmentEntry>,
}

/// One segment of a copy.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SegmentEntry {
    pub name: String,
    pub generation: u64,
    pub docs: u64,
    pub deleted: u64,
    pub size_bytes: u64,
    /// In the last commit (and no deletes since).
    pub committed: bool,
}

/// The translog of a copy.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TranslogFigures {
    pub operations: u64,
    pub size_in_bytes: u64,
    pub uncommitted_operations: u64,
    pub uncommitted_size_in_bytes: u64,
    /// Milliseconds since the oldest retained generation file was last modified.
    pub earliest_last_modified_age: u64,
}

/// The figures of every copy this node holds.
pub fn local_copies(cs: &ClusterService) -> Vec<CopyStats> {
    local_copies_with(cs, false)
}

/// [`local_copies`], with each copy's segment list when `segments`.
pub fn local_copies_with(cs: &ClusterService, segments: bool) -> Vec<CopyStats> {
    let mut out = Vec::new();
    for svc in cs.open_indices() {
        for shard in svc.shards() {
            let mut c = CopyStats {
                index: shard.index.clone(),
                shard: shard.id,
                allocation_id: shard.allocation_id.clone(),
                primary: shard.replication.is_primary(),
                max_seq_no: shard.engine.max_seq_no(),
                local_checkpoint: shard.engine.local_checkpoint(),
                global_checkpoint: shard.engine.global_checkpoint(),
                ..Default::default()
            };
            for seg in shard.engine.writer().segment_stats() {
                c.docs += u64::from(seg.max_doc.saturating_sub(seg.deleted));
                c.deleted += u64::from(seg.deleted);
                c.store_bytes += seg.size_bytes;
                c.segments += 1;
                if segments {
                    c.segment_list.push(SegmentEntry {
                        generation: seg.generation,
                        docs: u64::from(seg.max_doc.saturating_sub(seg.deleted)),
                        deleted: u64::from(seg.deleted),
                        size_bytes: seg.size_bytes,
                        committed: seg.committed,
                        name: seg.name,
                    });
                }
            }
            for (ext, len) in shard.engine.writer().segment_files() {
                *c.file_sizes.entry(ext).or_default() += len;
            }
            c.counters = shard.engine.counters_snapshot();
            // The node's caches count for the copies they hold results of.
            let rc = shard.request_cache.stats();
            let ops = &mut c.counters.ops;
            (ops.request_cache_hit, ops.request_cache_miss) = (rc.hit_count, rc.miss_count);
            (ops.request_cache_evictions, ops.request_cache_memory) = (rc.evictions, rc.memory_size_in_bytes);
            let fd = cs.fielddata.stats(Some((&shard.index_uuid, shard.id)));
            (ops.fielddata_memory, ops.fielddata_evictions) = (fd.memory_size_in_bytes, fd.evictions);
            c.fielddata_fields = fd.fields;
            cs.query_cache.sweep();
            let qc = shard.query_cache.stats();
            (ops.query_cache_hit, ops.query_cache_miss) = (qc.hit_count, qc.miss_count);
            (ops.query_cache_entries, ops.query_cache_memory) = (qc.cache_size, qc.memory_size_in_bytes);
            ops.query_cache_evictions = qc.evictions;
            c.refresh_listeners = shard.refresh_listeners() as u64;
            let path = cs.shard_store_path(&shard.index_uuid, shard.id);
            c.translog = translog_figures(shard.engine.translog(), &path.with_file_name("translog"));
            let shard_dir = path.parent().map(|p| p.display().to_string()).unwrap_or_default();
            c.path_data = shard_dir.clone();
            c.path_state = shard_dir;
            out.push(c);
        }
    }
    out
}

fn translog_figures(t: &crate::engine::translog::Translog, dir: &std::path::Path) -> TranslogFigures {
    let st = t.stats();
    let oldest = dir.join(crate::engine::translog::generation_file(st.min_generation));
    let age = std::fs::metadata(oldest)
        .and_then(|m| m.modified())
        .ok()
        .and_then(|m| m.elapsed().ok())
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX));
    TranslogFigures {
        operations: st.operations,
        size_in_bytes: st.size_in_bytes,
        uncommitted_operations: st.uncommitted_operations,
        uncommitted_size_in_bytes: st.uncommitted_size_in_bytes,
        earliest_last_modified_age: age,
    }
}

/// The number of segments of the last commit of a shard this node stores (a closed index's:
/// `include_unloaded_segments`); 0 when it stores none or the commit cannot be read.
pub fn committed_segments(cs: &ClusterService, index_uuid: &str, shard: u32) -> u64 {
    let path = cs.shard_store_path(index_uuid, shard);
    if !path.is_dir() {
        return 0;
    }
    let Ok(dir) = crate::engine::store::FsDirectory::open(path) else { return 0 };
    match crate::engine::index::commit::read_latest(&dir) {
        Ok(Some(cp)) => cp.segments.len() as u64,
        _ => 0,
    }
}

/// This node's answer to [`ACTION_SHARD_STATS`].
pub fn handle(cs: &ClusterService, payload: &[u8]) -> OsResult<Vec<u8>> {
    let segments = serde_json::from_slice::<Value>(payload).ok().is_some_and(|v| v["segments"] == json!(true));
    Ok(serde_json::to_vec(&local_copies_with(cs, segments)).unwrap_or_default())
}

/// Copy figures gathered from the nodes, by (node id, index, shard): a node holds at most one
/// copy of a shard.
#[derive(Debug, Default)]
pub struct ClusterCopies {
    pub by_copy: HashMap<(String, String, u32), CopyStats>,
}

impl ClusterCopies {
    /// The figures of the copy of `index`/`shard` on `node`, if that node answered.
    pub fn get(&self, node: Option<&str>, index: &str, shard: u32) -> Option<&CopyStats> {
        self.by_copy.get(&(node?.to_string(), index.to_string(), shard))
    }
}

/// Asks each node in `node_ids` (once) for its copies' figures; a node that does not answer
/// leaves its copies without figures (empty cells, as OpenSearch shows a copy without stats).
pub fn gather(cs: &ClusterService, node_ids: &[String], timeout: Duration) -> ClusterCopies {
    gather_with(cs, node_ids, timeout, false)
}

/// [`gather`], with each copy's segment list when `segments`.
pub fn gather_with(cs: &ClusterService, node_ids: &[String], timeout: Duration, segments: bool) -> ClusterCopies {
    let local = || Ok(serde_json::to_value(local_copies_with(cs, segments)).unwrap_or(Value::Null));
    let payload = json!({"segments": segments});
    let g = nodes_fanout::fan_out(cs, node_ids, ACTION_SHARD_STATS, &payload, timeout, &local);
    let mut out = ClusterCopies::default();
    for (m, v) in g.answers {
        if let Ok(copies) = serde_json::from_value::<Vec<CopyStats>>(v) {
            for c in copies {
                out.by_copy.insert((m.node_id.clone(), c.index.clone(), c.shard), c);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn copies_travel_and_are_found_by_node() {
        let c = |docs, store| CopyStats { docs, store_bytes: store, segments: 1, ..Default::default() };
        let back: CopyStats = serde_json::from_value(serde_json::to_value(c(1, 2)).unwrap()).unwrap();
        assert_eq!(back, c(1, 2));
        let mut cc = ClusterCopies::default();
        cc.by_copy.insert(("n".into(), "i".into(), 0), c(1, 1));
        assert!(cc.get(Some("n"), "i", 0).is_some() && cc.get(None, "i", 0).is_none());
        assert!(cc.get(Some("n"), "i", 1).is_none() && cc.get(Some("m"), "i", 0).is_none());
    }
}
