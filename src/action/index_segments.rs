//! `GET [/{index}]/_segments` (`indices:monitor/segments`): the segments of every copy of the
//! selected indices, as the nodes holding them list them.

use std::collections::BTreeMap;
use std::time::Duration;

use serde_json::{json, Map, Value};

use super::index_stats::{copies, Copy};
use crate::cluster::resolve::IndicesOptions;
use crate::cluster::ClusterService;
use crate::error::OsResult;

/// The copies of `expr`'s indices, each with its segment list.
pub fn segment_copies(
    cs: &ClusterService,
    expr: &str,
    options: IndicesOptions,
    timeout: Duration,
) -> OsResult<(Vec<String>, Vec<Copy>)> {
    copies(cs, expr, options, true, false, timeout)
}

/// The `_segments` response; `version` is the segment version shown (as `_cat/segments`).
pub fn segments(cs: &ClusterService, expr: &str, options: IndicesOptions, version: &str) -> OsResult<Value> {
    let (names, copies) = segment_copies(cs, expr, options, super::nodes_fanout::DEFAULT_TIMEOUT)?;
    let total = copies.len();
    let successful = copies.iter().filter(|c| c.stats.is_some()).count();
    let mut indices = Map::new();
    for name in &names {
        let mut shards: BTreeMap<u32, Vec<Value>> = BTreeMap::new();
        for c in copies.iter().filter(|c| &c.index == name) {
            let Some(s) = &c.stats else { continue };
            let mut segs = Map::new();
            for e in &s.segment_list {
                segs.insert(
                    e.name.clone(),
                    json!({
                        "generation": e.generation, "num_docs": e.docs, "deleted_docs": e.deleted,
                        "size_in_bytes": e.size_bytes,
                        // Segment readers map their files; nothing is held on the heap per segment.
                        "memory_in_bytes": 0,
                        "committed": e.committed, "search": true, "version": version, "compound": false,
                        "attributes": {},
                    }),
                );
            }
            let committed = s.segment_list.iter().filter(|e| e.committed).count();
            shards.entry(c.shard).or_default().push(json!({
                "routing": {"state": c.state, "primary": c.primary, "node": c.node},
                "num_committed_segments": committed,
                "num_search_segments": s.segment_list.len(),
                "segments": segs,
            }));
        }
        let shards: Map<String, Value> = shards.into_iter().map(|(k, v)| (k.to_string(), Value::Array(v))).collect();
        indices.insert(name.clone(), json!({"shards": shards}));
    }
    Ok(json!({
        "_shards": {"total": total, "successful": successful, "failed": 0},
        "indices": indices,
    }))
}
