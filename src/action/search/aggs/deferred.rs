//! Deferred sub-aggregations (OpenSearch's `BestBucketsDeferringCollector`, behind a terms
//! aggregation's `collect_mode: breadth_first`): while the parent collects, each sub-aggregation
//! only records which documents went to which bucket; once the parent has picked the buckets it
//! keeps, the records of those buckets alone are replayed into the sub-aggregation, segment by
//! segment, so sub-aggregations never build state for pruned buckets.

use super::{AggResult, Collector, LeafCollector};
use crate::engine::query::{Searcher, SegmentView};
use crate::engine::segment::DocId;
use crate::error::{OsError, OsResult};

/// A sub-aggregation whose collection waits for [`Collector::replay`].
pub struct Deferred {
    inner: Box<dyn Collector>,
    searcher: Searcher,
    /// Per segment, in collection order: (doc, bucket ordinal).
    recs: Vec<Vec<(DocId, u32)>>,
}

impl Deferred {
    pub fn wrap(inner: Box<dyn Collector>, searcher: Searcher) -> Box<dyn Collector> {
        Box::new(Deferred { inner, searcher, recs: Vec::new() })
    }
}

impl Collector for Deferred {
    fn leaf<'a>(&'a mut self, _seg: &'a dyn SegmentView, si: usize) -> OsResult<Box<dyn LeafCollector + 'a>> {
        if self.recs.len() <= si {
            self.recs.resize_with(si + 1, Vec::new);
        }
        Ok(Box::new(Recorder { out: &mut self.recs[si] }))
    }

    fn replay(&mut self, ords: &[u32]) -> OsResult<()> {
        let Some(&max) = ords.iter().max() else {
            self.recs.clear();
            return Ok(());
        };
        let mut keep = vec![false; max as usize + 1];
        for &o in ords {
            keep[o as usize] = true;
        }
        let wanted = |o: u32| keep.get(o as usize).copied().unwrap_or(false);
        let recs = std::mem::take(&mut self.recs);
        for (si, seg_recs) in recs.iter().enumerate() {
            if !seg_recs.iter().any(|&(_, o)| wanted(o)) {
                continue;
            }
            let seg = self.searcher.segments.get(si).ok_or_else(|| OsError::internal("deferred segment gone"))?;
            let mut leaf = self.inner.leaf(seg.as_ref(), si)?;
            for &(d, o) in seg_recs {
                if wanted(o) {
                    leaf.collect(d, o, f32::NAN)?;
                }
            }
        }
        Ok(())
    }

    fn result(&mut self, ord: u32) -> OsResult<AggResult> {
        self.inner.result(ord)
    }

    fn mem_bytes(&self) -> usize {
        self.recs.iter().map(|r| r.capacity() * 8).sum::<usize>() + self.inner.mem_bytes()
    }
}

/// Records a segment's (doc, bucket) pairs.
struct Recorder<'a> {
    out: &'a mut Vec<(DocId, u32)>,
}

impl LeafCollector for Recorder<'_> {
    fn collect(&mut self, doc: DocId, ord: u32, _score: f32) -> OsResult<()> {
        self.out.push((doc, ord));
        Ok(())
    }

    fn collect_block(&mut self, docs: &[DocId], ord: u32) -> OsResult<()> {
        self.out.extend(docs.iter().map(|&d| (d, ord)));
        Ok(())
    }
}
