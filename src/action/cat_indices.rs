//! What `_cat/indices` shows of each index: metadata, health, and document and store figures
//! summed over the index's shard copies, as the node holding each copy measures it
//! (`indices:monitor/stats[n]`): documents of the primaries, store of all copies and of the
//! primaries. A single node holds only primaries, so the totals equal the primaries' figures.

use crate::cluster::health::{IndexHealth, Status};
use crate::cluster::metadata::IndexState;
use crate::cluster::resolve::{resolve, IndicesOptions};
use crate::cluster::ClusterService;
use crate::error::{OsError, OsResult};

/// Document and store figures of an open index.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DocStats {
    /// Live documents of the primaries.
    pub docs: u64,
    /// Deleted documents of the primaries.
    pub deleted: u64,
    /// Store of every copy.
    pub store_bytes: u64,
    /// Store of the primaries.
    pub pri_store_bytes: u64,
    /// Segments of every copy.
    pub segments: u64,
    /// Every figure of the primaries and of all copies (`_cat/indices` statistics columns).
    pub pri_all: super::shard_stats::CopyStats,
    pub all: super::shard_stats::CopyStats,
}

impl DocStats {
    /// Adds one copy's figures.
    pub fn add(&mut self, c: &super::shard_stats::CopyStats) {
        if c.primary {
            self.docs += c.docs;
            self.deleted += c.deleted;
            self.pri_store_bytes += c.store_bytes;
            super::common_stats::add(&mut self.pri_all, c);
        }
        super::common_stats::add(&mut self.all, c);
        self.store_bytes += c.store_bytes;
        self.segments += c.segments;
    }
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
    // Each node holding a copy of a selected open index (this node always) is asked once.
    let mut holders = vec![cs.node.node_id.clone()];
    for (name, _, c) in st.routing.copies() {
        if let Some(n) = &c.node {
            if names.iter().any(|x| x == name) && !holders.contains(n) {
                holders.push(n.clone());
            }
        }
    }
    let copies = super::shard_stats::gather(cs, &holders, super::nodes_fanout::DEFAULT_TIMEOUT);
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
            IndexState::Open => {
                let mut s = DocStats::default();
                for c in copies.by_copy.values().filter(|c| c.index == n) {
                    s.add(c);
                }
                Some(s)
            }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::action::shard_stats::CopyStats;

    #[test]
    fn documents_count_the_primaries_and_store_every_copy() {
        let c = |primary, docs, store| CopyStats {
            primary,
            docs,
            deleted: 1,
            store_bytes: store,
            segments: 2,
            ..Default::default()
        };
        let mut s = DocStats::default();
        for x in [c(true, 5, 100), c(false, 5, 90), c(true, 3, 50), c(false, 3, 40)] {
            s.add(&x);
        }
        assert_eq!((s.docs, s.deleted, s.store_bytes, s.pri_store_bytes, s.segments), (8, 2, 280, 150, 8));
        assert_eq!((s.all.docs, s.pri_all.docs), (16, 8));
    }
}
