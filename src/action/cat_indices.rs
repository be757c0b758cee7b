//! What `_cat/indices` shows of each index: metadata, health, and document and store figures
//! summed over the index's shards (`segment_stats`: live docs, deleted docs, bytes). A single node
//! holds only primaries, so the totals equal the primaries' figures.

use crate::cluster::health::{IndexHealth, Status};
use crate::cluster::metadata::IndexState;
use crate::cluster::resolve::{resolve, IndicesOptions};
use crate::cluster::ClusterService;
use crate::error::{OsError, OsResult};

/// Document and store figures of an open index.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DocStats {
    pub docs: u64,
    pub deleted: u64,
    pub store_bytes: u64,
    pub segments: u64,
}

/// One row of `_cat/indices`.
#[derive(Debug, Clone)]
pub struct IndexRow {
    pub name: String,
    pub uuid: String,
    pub state: IndexState,
    pub health: Status,
    pub shards: u32,
    pub replicas: u32,
    pub creation_date: i64,
    /// None for a closed index.
    pub stats: Option<DocStats>,
}

/// The rows for an index expression (`health`: only indices of that status, OpenSearch's
/// `ClusterHealthStatus.fromString` error otherwise).
pub fn rows(cs: &ClusterService, expr: &str, opts: IndicesOptions, health: Option<&str>) -> OsResult<Vec<IndexRow>> {
    let want = match health {
        None => None,
        Some(h) => {
            Some(Status::parse(h).ok_or_else(|| OsError::illegal(format!("unknown cluster health status [{h}]")))?)
        }
    };
    let md = cs.metadata();
    let names = resolve(&md, expr, opts)?;
    let st = cs.state();
    let patched = super::cluster_info::with_local_failures(cs, &st.routing);
    let table = crate::cluster::allocation::health(&patched, &md);
    let mut out = Vec::new();
    for n in names {
        let Some(m) = md.indices.get(&n) else { continue };
        // Open indices from the routing table; a closed one as its settings say.
        let mut h = IndexHealth::of(m);
        if let Some(t) = table.iter().find(|t| t.name == n) {
            h.status = t.status;
        }
        if want.is_some_and(|w| w != h.status) {
            continue;
        }
        let stats = match m.state {
            IndexState::Close => None,
            IndexState::Open => Some(
                cs.index(&n)
                    .map(|svc| {
                        let mut s = DocStats::default();
                        for shard in svc.shards() {
                            for seg in shard.engine.writer().segment_stats() {
                                s.docs += u64::from(seg.max_doc.saturating_sub(seg.deleted));
                                s.deleted += u64::from(seg.deleted);
                                s.store_bytes += seg.size_bytes;
                                s.segments += 1;
                            }
                        }
                        s
                    })
                    .unwrap_or_default(),
            ),
        };
        out.push(IndexRow {
            name: n.clone(),
            uuid: m.uuid.clone(),
            state: m.state,
            health: h.status,
            shards: h.shards,
            replicas: h.replicas,
            creation_date: m.creation_date(),
            stats,
        });
    }
    Ok(out)
}
