//! The node query cache (Lucene's `LRUQueryCache` as OpenSearch's `IndicesQueryCache` runs it):
//! the matches of filters (queries run without scores) per segment, keyed by the segment's core
//! ([`super::view::CoreKey`]) and the filter. One per node, shared by every shard copy on it;
//! bounded by a number of distinct filters (`indices.queries.cache.count`) and by bytes
//! (`indices.queries.cache.size`): past either, the least recently used filter leaves, with its
//! sets on every segment. Sets ignore deletions (the collector applies live docs after them),
//! so a refresh that only deletes keeps them right; a segment that closes (merged away, its
//! index deleted or closed) takes its sets with it. Each copy's figures ([`ShardQueryCache`])
//! count what happened to its segments' sets: hits, misses, sets held and their bytes, and
//! sets removed (OpenSearch's `evictions`: `cache_count - cache_size`).
//! Which filters are worth a set is the policy's ([`super::query_cache_policy`]); wiring into
//! query execution is [`super::cached`].

use std::collections::{BTreeMap, HashMap};
use std::hash::{Hash, Hasher};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::sync::{Arc, Mutex, Weak};

use super::query_cache_policy::UsageHistory;
use super::tree::Query;
use super::view::CoreKey;
use crate::engine::segment::DocId;

/// Bytes an entry costs beyond its set (map slots, the `Arc`, LRU bookkeeping).
pub const ENTRY_OVERHEAD: u64 = 64;

/// Lucene's `LRUQueryCache` defaults for which segments are worth caching on: at least this
/// many documents ...
pub const MIN_SEGMENT_DOCS: u32 = 10_000;
/// ... and at least this share of the searcher's documents.
pub const MIN_SEGMENT_RATIO: f32 = 0.03;

/// A filter as a cache key: the query (boost 1) with its hash.
#[derive(Debug)]
pub struct CacheQuery {
    pub query: Query,
    pub hash: u64,
    /// What the key costs in memory (its printed form's length stands for its size).
    pub bytes: u64,
}

impl CacheQuery {
    pub fn new(query: Query) -> CacheQuery {
        let text = format!("{query:?}");
        let mut h = std::collections::hash_map::DefaultHasher::new();
        text.hash(&mut h);
        CacheQuery { query, hash: h.finish(), bytes: text.len() as u64 + std::mem::size_of::<CacheQuery>() as u64 }
    }
}

impl PartialEq for CacheQuery {
    fn eq(&self, o: &CacheQuery) -> bool {
        self.hash == o.hash && self.query == o.query
    }
}
impl Eq for CacheQuery {}
impl Hash for CacheQuery {
    fn hash<H: Hasher>(&self, h: &mut H) {
        h.write_u64(self.hash)
    }
}

/// The matches of a filter on one segment, deleted documents included: sorted ids when sparse,
/// a bitset when that is smaller.
#[derive(Debug, PartialEq, Eq)]
pub enum DocSet {
    Sparse(Box<[DocId]>),
    Dense { words: Box<[u64]>, count: u32 },
}

impl DocSet {
    /// The set of `docs` (sorted, distinct, `< max_doc`) in the smaller form.
    pub fn from_sorted(docs: Vec<DocId>, max_doc: u32) -> DocSet {
        let words = (max_doc as usize).div_ceil(64);
        if docs.len() * 4 <= words * 8 {
            return DocSet::Sparse(docs.into_boxed_slice());
        }
        let mut bits = vec![0u64; words];
        for &d in &docs {
            if let Some(w) = bits.get_mut(d as usize / 64) {
                *w |= 1 << (d % 64);
            }
        }
        DocSet::Dense { words: bits.into_boxed_slice(), count: docs.len() as u32 }
    }

    /// The number of documents in the set.
    pub fn len(&self) -> u32 {
        match self {
            DocSet::Sparse(d) => d.len() as u32,
            DocSet::Dense { count, .. } => *count,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Bytes held.
    pub fn mem_bytes(&self) -> u64 {
        std::mem::size_of::<DocSet>() as u64
            + match self {
                DocSet::Sparse(d) => 4 * d.len() as u64,
                DocSet::Dense { words, .. } => 8 * words.len() as u64,
            }
    }

    /// The first document `>= target`, `None` past the last.
    pub fn next_from(&self, target: DocId) -> Option<DocId> {
        match self {
            DocSet::Sparse(d) => d.get(d.partition_point(|&x| x < target)).copied(),
            DocSet::Dense { words, .. } => {
                let mut i = target as usize / 64;
                let mut w = *words.get(i)? & (u64::MAX << (target % 64));
                loop {
                    if w != 0 {
                        return Some((i * 64) as u32 + w.trailing_zeros());
                    }
                    i += 1;
                    w = *words.get(i)?;
                }
            }
        }
    }
}

/// One shard copy's part of the cache: its figures and the history of the filters it used
/// (its caching policy's, per copy as OpenSearch keeps one policy per shard).
#[derive(Debug, Default)]
pub struct ShardQueryCache {
    hits: AtomicU64,
    misses: AtomicU64,
    entries: AtomicU64,
    memory: AtomicU64,
    removed: AtomicU64,
    history: Mutex<UsageHistory>,
}

/// A copy's query cache figures.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct QueryCacheStats {
    pub hit_count: u64,
    pub miss_count: u64,
    /// Sets held (`cache_size`).
    pub cache_size: u64,
    /// Bytes of the sets held.
    pub memory_size_in_bytes: u64,
    /// Sets removed (evicted, cleared, or gone with their segment).
    pub evictions: u64,
}

impl ShardQueryCache {
    /// The copy's figures now (see [`QueryCache::sweep`] to drop closed segments first).
    pub fn stats(&self) -> QueryCacheStats {
        QueryCacheStats {
            hit_count: self.hits.load(Relaxed),
            miss_count: self.misses.load(Relaxed),
            cache_size: self.entries.load(Relaxed),
            memory_size_in_bytes: self.memory.load(Relaxed),
            evictions: self.removed.load(Relaxed),
        }
    }

    /// Records a use of `q` (once per search that runs it).
    pub fn on_use(&self, q: &CacheQuery) {
        self.history.lock().unwrap_or_else(|e| e.into_inner()).add(q.hash);
    }

    /// How often `q` was used recently.
    pub fn frequency(&self, q: &CacheQuery) -> u32 {
        self.history.lock().unwrap_or_else(|e| e.into_inner()).frequency(q.hash)
    }

    fn added(&self, bytes: u64) {
        self.entries.fetch_add(1, Relaxed);
        self.memory.fetch_add(bytes, Relaxed);
    }

    fn dropped(&self, bytes: u64) {
        self.entries.fetch_sub(1, Relaxed);
        self.memory.fetch_sub(bytes, Relaxed);
        self.removed.fetch_add(1, Relaxed);
    }
}

struct Leaf {
    alive: Weak<()>,
    shard: Arc<ShardQueryCache>,
    sets: HashMap<Arc<CacheQuery>, Arc<DocSet>>,
}

#[derive(Default)]
struct Inner {
    /// Distinct filters with their last use.
    queries: HashMap<Arc<CacheQuery>, u64>,
    /// Filters by last use (oldest first).
    order: BTreeMap<u64, Arc<CacheQuery>>,
    tick: u64,
    /// Sets by segment core id.
    leaves: HashMap<u64, Leaf>,
    bytes: u64,
}

impl Inner {
    fn touch(&mut self, q: &Arc<CacheQuery>) {
        self.tick += 1;
        let t = self.tick;
        match self.queries.get_mut(q) {
            Some(old) => {
                self.order.remove(old);
                *old = t;
            }
            None => {
                self.queries.insert(q.clone(), t);
                self.bytes += q.bytes;
            }
        }
        self.order.insert(t, q.clone());
    }

    fn drop_leaf(&mut self, id: u64) {
        if let Some(l) = self.leaves.remove(&id) {
            for s in l.sets.values() {
                let b = s.mem_bytes() + ENTRY_OVERHEAD;
                self.bytes -= b;
                l.shard.dropped(b);
            }
        }
    }

    fn sweep(&mut self) {
        let dead: Vec<u64> = self.leaves.iter().filter(|(_, l)| l.alive.strong_count() == 0).map(|(k, _)| *k).collect();
        for id in dead {
            self.drop_leaf(id);
        }
    }

    /// Removes the least recently used filter and its sets.
    fn evict_oldest(&mut self) -> bool {
        let Some((_, q)) = self.order.pop_first() else { return false };
        self.queries.remove(&q);
        self.bytes -= q.bytes;
        for l in self.leaves.values_mut() {
            if let Some(s) = l.sets.remove(&q) {
                let b = s.mem_bytes() + ENTRY_OVERHEAD;
                self.bytes -= b;
                l.shard.dropped(b);
            }
        }
        self.leaves.retain(|_, l| !l.sets.is_empty());
        true
    }

    fn clear_queries_if_empty(&mut self) {
        if self.leaves.is_empty() {
            for q in self.queries.keys() {
                self.bytes -= q.bytes;
            }
            self.queries.clear();
            self.order.clear();
        }
    }
}

/// The node's query cache.
pub struct QueryCache {
    inner: Mutex<Inner>,
    max_bytes: AtomicU64,
    max_count: AtomicU64,
    all_segments: AtomicBool,
}

impl std::fmt::Debug for QueryCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("QueryCache").field("max_bytes", &self.max_bytes.load(Relaxed)).finish_non_exhaustive()
    }
}

impl Default for QueryCache {
    /// OpenSearch's defaults: 10 000 filters, 10% of the heap; a Rust process's heap is the
    /// machine's memory, so 10% of that (see [`default_bytes`]).
    fn default() -> Self {
        QueryCache::new(default_bytes(), 10_000, false)
    }
}

/// 10% of the machine's memory (`MemTotal`; 1 GiB when unreadable).
pub fn default_bytes() -> u64 {
    let total = std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|m| {
            m.lines()
                .find(|l| l.starts_with("MemTotal:"))
                .and_then(|l| l.split_whitespace().nth(1).and_then(|k| k.parse::<u64>().ok()))
        })
        .map_or(1 << 30, |kb| kb * 1024);
    total / 10
}

impl QueryCache {
    /// A cache of at most `max_bytes` and `max_count` filters; `all_segments` caches on every
    /// segment (`indices.queries.cache.all_segments`, a testing setting) instead of large ones.
    pub fn new(max_bytes: u64, max_count: u64, all_segments: bool) -> QueryCache {
        QueryCache {
            inner: Mutex::new(Inner::default()),
            max_bytes: AtomicU64::new(max_bytes),
            max_count: AtomicU64::new(max_count.max(1)),
            all_segments: AtomicBool::new(all_segments),
        }
    }

    /// Sets the bounds from the node's settings (at start, before any search).
    pub fn configure(&self, max_bytes: u64, max_count: u64, all_segments: bool) {
        self.max_bytes.store(max_bytes, Relaxed);
        self.max_count.store(max_count.max(1), Relaxed);
        self.all_segments.store(all_segments, Relaxed);
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Whether a segment of `max_doc` documents, in a searcher of `total` documents, is worth
    /// caching on (Lucene's `MinSegmentSizePredicate`).
    pub fn eligible(&self, max_doc: u32, total: u64) -> bool {
        self.all_segments.load(Relaxed)
            || (max_doc >= MIN_SEGMENT_DOCS && max_doc as f32 / total.max(1) as f32 >= MIN_SEGMENT_RATIO)
    }

    /// The set of `q` on the segment `core`, counted as a hit or a miss for `shard`.
    pub fn get(&self, core: &CoreKey, q: &Arc<CacheQuery>, shard: &ShardQueryCache) -> Option<Arc<DocSet>> {
        let mut g = self.lock();
        let found = g.leaves.get(&core.id).filter(|l| l.alive.strong_count() > 0).and_then(|l| l.sets.get(q).cloned());
        match found {
            Some(s) => {
                g.touch(q);
                shard.hits.fetch_add(1, Relaxed);
                Some(s)
            }
            None => {
                shard.misses.fetch_add(1, Relaxed);
                None
            }
        }
    }

    /// Keeps `set` as `q`'s on the segment `core` of `shard`, then evicts the least recently
    /// used filters while past a bound.
    pub fn put(&self, core: &CoreKey, q: &Arc<CacheQuery>, set: Arc<DocSet>, shard: &Arc<ShardQueryCache>) {
        let mut g = self.lock();
        g.sweep();
        g.touch(q);
        let leaf = g.leaves.entry(core.id).or_insert_with(|| Leaf {
            alive: core.alive.clone(),
            shard: shard.clone(),
            sets: HashMap::new(),
        });
        if !leaf.sets.contains_key(q) {
            let b = set.mem_bytes() + ENTRY_OVERHEAD;
            leaf.sets.insert(q.clone(), set);
            leaf.shard.added(b);
            g.bytes += b;
        }
        let (max_bytes, max_count) = (self.max_bytes.load(Relaxed), self.max_count.load(Relaxed));
        while (g.queries.len() as u64 > max_count || g.bytes > max_bytes) && g.evict_oldest() {}
    }

    /// Drops the sets of segments that closed (their copies' figures follow).
    pub fn sweep(&self) {
        self.lock().sweep();
    }

    /// Drops every set of `shard`'s segments (`_cache/clear?query`).
    pub fn clear_shard(&self, shard: &Arc<ShardQueryCache>) {
        let mut g = self.lock();
        let mine: Vec<u64> = g.leaves.iter().filter(|(_, l)| Arc::ptr_eq(&l.shard, shard)).map(|(k, _)| *k).collect();
        for id in mine {
            g.drop_leaf(id);
        }
        g.sweep();
        // As OpenSearch's `clearIndex`: with no set left, the filters go too.
        g.clear_queries_if_empty();
    }

    /// Bytes held (sets, keys and bookkeeping) and distinct filters held.
    pub fn usage(&self) -> (u64, usize) {
        let g = self.lock();
        (g.bytes, g.queries.len())
    }
}

#[cfg(test)]
#[path = "query_cache_tests.rs"]
mod tests;
