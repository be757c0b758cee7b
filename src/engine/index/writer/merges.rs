//! Merges of the index writer: asking the policy, reserving segments, running a merge without
//! the lock, and installing its result with the deletes that happened meanwhile.

use super::{IndexWriter, Segment, State};
use crate::engine::index::merge_policy::MergeCandidate;
use crate::engine::index::merger;
use crate::engine::segment::live_docs::LiveDocs;
use crate::engine::segment::reader::SegmentReader;
use crate::engine::segment::{random_id, segment_name, SegmentId};
use crate::engine::sync::{lock, Arc};
use crate::engine::{Error, Result};

/// A merge picked by the policy and not yet run.
#[derive(Debug)]
pub struct MergeSpec {
    seg: SegmentId,
    sources: Vec<(Arc<SegmentReader>, Arc<LiveDocs>)>,
}

impl MergeSpec {
    /// Names of the segments being merged.
    pub fn source_names(&self) -> Vec<String> {
        self.sources.iter().map(|(r, _)| r.name().to_string()).collect()
    }
}

/// What the writer's merges did (the shard's merge stats): relaxed counters, times in
/// nanoseconds; `current*` describe the merges running now.
#[derive(Debug, Default)]
pub struct MergeCounters {
    pub total: std::sync::atomic::AtomicU64,
    pub time_ns: std::sync::atomic::AtomicU64,
    pub docs: std::sync::atomic::AtomicU64,
    pub size: std::sync::atomic::AtomicU64,
    pub current: std::sync::atomic::AtomicU64,
    pub current_docs: std::sync::atomic::AtomicU64,
    pub current_size: std::sync::atomic::AtomicU64,
}

impl IndexWriter {
    fn candidates(s: &State) -> Vec<MergeCandidate> {
        s.segments
            .iter()
            .filter(|seg| !seg.merging)
            .map(|seg| MergeCandidate {
                name: seg.reader.name().to_string(),
                size_bytes: seg.reader.info.size_in_bytes(),
                max_doc: seg.reader.max_doc(),
                del_count: seg.live.num_deleted(),
            })
            .collect()
    }

    fn reserve(&self, s: &mut State, names: Vec<String>) -> MergeSpec {
        let mut sources = Vec::new();
        for seg in s.segments.iter_mut() {
            if names.iter().any(|n| n == seg.reader.name()) {
                seg.merging = true;
                sources.push((seg.reader.clone(), seg.live.clone()));
            }
        }
        let seg = SegmentId { name: segment_name(s.counter), id: random_id() };
        s.counter += 1;
        MergeSpec { seg, sources }
    }

    /// Asks the merge policy for a merge and reserves its segments.
    pub fn find_merge(&self) -> Result<Option<MergeSpec>> {
        let mut s = self.locked()?;
        let names = self.config.merge_policy.find_merge(&Self::candidates(&s));
        Ok(names.map(|n| self.reserve(&mut s, n)))
    }

    /// Runs a reserved merge and installs its result:
    ///
    /// 1. without the lock, write the merged segment from the sources' readers and the live docs
    ///    they had when the merge was picked;
    /// 2. take the lock; for each source, documents deleted since step 1 began (live then, not
    ///    now) are deleted in the merged segment through the doc map;
    /// 3. replace the sources by the merged segment in the segment list, at the first source's
    ///    place (order matters for `_doc` sort ties);
    /// 4. drop the sources' file references: their files go when no searcher or commit holds them.
    ///
    /// On failure the sources are released for later merges and the partial files are deleted.
    pub fn run_merge(&self, spec: MergeSpec) -> Result<()> {
        use std::sync::atomic::Ordering::Relaxed;
        let m = &self.merge_counters;
        let docs: u64 = spec.sources.iter().map(|(r, _)| u64::from(r.max_doc())).sum();
        let size: u64 = spec.sources.iter().map(|(r, _)| r.info.size_in_bytes()).sum();
        m.current.fetch_add(1, Relaxed);
        m.current_docs.fetch_add(docs, Relaxed);
        m.current_size.fetch_add(size, Relaxed);
        let start = std::time::Instant::now();
        let r = self.run_merge_inner(spec);
        m.current.fetch_sub(1, Relaxed);
        m.current_docs.fetch_sub(docs, Relaxed);
        m.current_size.fetch_sub(size, Relaxed);
        if r.is_ok() {
            m.total.fetch_add(1, Relaxed);
            m.time_ns.fetch_add(u64::try_from(start.elapsed().as_nanos()).unwrap_or(u64::MAX), Relaxed);
            m.docs.fetch_add(docs, Relaxed);
            m.size.fetch_add(size, Relaxed);
        }
        r
    }

    fn run_merge_inner(&self, spec: MergeSpec) -> Result<()> {
        let refs: Vec<(&SegmentReader, &LiveDocs)> =
            spec.sources.iter().map(|(r, l)| (r.as_ref(), l.as_ref())).collect();
        let out = merger::merge(self.dir.as_ref(), &refs, &spec.seg).and_then(|o| {
            let reader = SegmentReader::open(self.dir.as_ref(), &spec.seg)?;
            Ok((o, reader))
        });
        let mut s = lock(&self.state);
        let (out, reader) = match out {
            Ok(x) => x,
            Err(e) => {
                for seg in s.segments.iter_mut() {
                    if spec.sources.iter().any(|(r, _)| Arc::ptr_eq(&seg.reader, r)) {
                        seg.merging = false;
                    }
                }
                // Leftover files of the failed merge are unreferenced (the name is new): taking
                // and dropping a reference deletes them.
                let prefix = format!("{}.", spec.seg.name);
                let leftovers: Vec<String> =
                    self.dir.list().unwrap_or_default().into_iter().filter(|f| f.starts_with(&prefix)).collect();
                drop(self.deleter.acquire(leftovers));
                self.merge_done.notify_all();
                return Err(e);
            }
        };
        let mut merged_live = LiveDocs::all_live(out.info.max_doc);
        let mut first_pos = None;
        for (i, (src, live_then)) in spec.sources.iter().enumerate() {
            let Some(pos) = s.segments.iter().position(|seg| Arc::ptr_eq(&seg.reader, src)) else {
                continue;
            };
            first_pos = Some(first_pos.map_or(pos, |p: usize| p.min(pos)));
            let now = &s.segments[pos].live;
            for d in 0..src.max_doc() {
                if live_then.is_live(d) && !now.is_live(d) {
                    if let Some(nd) = out.doc_maps[i].get(d) {
                        merged_live.delete(nd);
                    }
                }
            }
        }
        let files = Arc::new(self.deleter.acquire(reader.files()));
        let dirty = merged_live.num_deleted() > 0;
        // The merged segment is searchable with every delete it carries (deletes made since
        // the last refresh to documents it merged become visible with it).
        let merged_live = Arc::new(merged_live);
        let merged = Segment {
            reader: Arc::new(reader),
            searchable: merged_live.clone(),
            live: merged_live,
            del_gen: 0,
            liv_dirty: dirty,
            files,
            liv_file: None,
            merging: false,
            committed: false,
        };
        s.segments.retain(|seg| !spec.sources.iter().any(|(r, _)| Arc::ptr_eq(&seg.reader, r)));
        let at = first_pos.unwrap_or(s.segments.len()).min(s.segments.len());
        s.segments.insert(at, merged);
        s.version += 1;
        self.merge_done.notify_all();
        Ok(())
    }

    /// Runs the merges the policy asks for until it is satisfied (at most `max` of them).
    pub fn maybe_merge(&self, max: usize) -> Result<usize> {
        let mut n = 0;
        while n < max {
            let Some(spec) = self.find_merge()? else { break };
            self.run_merge(spec)?;
            n += 1;
        }
        Ok(n)
    }

    /// `_forcemerge`: refreshes and merges until at most `max_num_segments` remain.
    pub fn force_merge(&self, max_num_segments: usize) -> Result<()> {
        self.refresh()?;
        for _ in 0..64 {
            let spec = {
                let mut s = self.locked()?;
                // Merges already running (background) must finish first: their segments are not
                // candidates, and the count is only right once they are installed.
                while s.segments.iter().any(|seg| seg.merging) {
                    s = match self.merge_done.wait_timeout(s, std::time::Duration::from_millis(100)) {
                        Ok((g, _)) => g,
                        Err(p) => p.into_inner().0,
                    };
                    if let Some(f) = &s.failure {
                        return Err(Error::Closed(f.clone()));
                    }
                }
                match self.config.merge_policy.find_forced_merge(&Self::candidates(&s), max_num_segments) {
                    Some(names) => self.reserve(&mut s, names),
                    None => return Ok(()),
                }
            };
            self.run_merge(spec)?;
        }
        Ok(())
    }
}
