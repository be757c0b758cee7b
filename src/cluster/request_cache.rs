//! The shard request cache (OpenSearch's `IndicesRequestCache`): one per node, shared by every
//! shard copy on it, holding shard-level search results keyed by the copy, its reader version
//! and the request. A refresh or merge gives the copy a new reader version, so entries of the
//! old one are never hit again; they are dropped as soon as an entry of a newer version of the
//! same copy arrives (invalidated, not counted as evictions). The cache is bounded in bytes and
//! evicts the least recently used entry first; each eviction counts for the copy it held.
//!
//! Values are opaque here (`Arc<dyn Any>`): the action layer decides what a shard result holds
//! and how many bytes it weighs.

use std::any::Any;
use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, Weak};

/// A cached shard result.
pub type Value = Arc<dyn Any + Send + Sync>;

/// Fixed bytes an entry costs beyond its key and value (map and LRU bookkeeping).
const ENTRY_OVERHEAD: u64 = 96;

/// One shard copy's part of the cache: its identity in keys and its figures (`_stats`'
/// `request_cache`). Held by the copy; entries hold it weakly, so a copy that closed leaves
/// entries that are swept instead of hit.
#[derive(Debug)]
pub struct ShardRequestCache {
    /// Unique per opened copy in this process (a reopened copy starts with a clean slate).
    pub instance: u64,
    hits: AtomicU64,
    misses: AtomicU64,
    evictions: AtomicU64,
    memory: AtomicU64,
}

impl Default for ShardRequestCache {
    fn default() -> Self {
        static NEXT: AtomicU64 = AtomicU64::new(1);
        ShardRequestCache {
            instance: NEXT.fetch_add(1, Ordering::Relaxed),
            hits: AtomicU64::new(0),
            misses: AtomicU64::new(0),
            evictions: AtomicU64::new(0),
            memory: AtomicU64::new(0),
        }
    }
}

/// A copy's request cache figures.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct RequestCacheStats {
    pub memory_size_in_bytes: u64,
    pub evictions: u64,
    pub hit_count: u64,
    pub miss_count: u64,
}

impl RequestCacheStats {
    pub fn add(&mut self, o: &RequestCacheStats) {
        self.memory_size_in_bytes += o.memory_size_in_bytes;
        self.evictions += o.evictions;
        self.hit_count += o.hit_count;
        self.miss_count += o.miss_count;
    }
}

impl ShardRequestCache {
    pub fn stats(&self) -> RequestCacheStats {
        RequestCacheStats {
            memory_size_in_bytes: self.memory.load(Ordering::Relaxed),
            evictions: self.evictions.load(Ordering::Relaxed),
            hit_count: self.hits.load(Ordering::Relaxed),
            miss_count: self.misses.load(Ordering::Relaxed),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct Key {
    instance: u64,
    reader_version: u64,
    request: Arc<str>,
}

struct Entry {
    value: Value,
    bytes: u64,
    tick: u64,
    shard: Weak<ShardRequestCache>,
}

#[derive(Default)]
struct Inner {
    map: HashMap<Key, Entry>,
    /// Entries by last use, oldest first.
    lru: BTreeMap<u64, Key>,
    tick: u64,
    bytes: u64,
    /// Per copy instance, the newest reader version cached.
    newest: HashMap<u64, u64>,
    inserts: u64,
}

/// The node's request cache.
pub struct RequestCache {
    inner: Mutex<Inner>,
    capacity: AtomicU64,
}

impl std::fmt::Debug for RequestCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RequestCache").field("capacity", &self.capacity.load(Ordering::Relaxed)).finish()
    }
}

impl Default for RequestCache {
    /// 1% of the machine's memory (OpenSearch's default is 1% of the heap; a Rust process's
    /// heap is the machine's memory it allocates from).
    fn default() -> Self {
        RequestCache::with_capacity(default_capacity())
    }
}

/// 1% of physical memory, at least 1 MiB.
pub fn default_capacity() -> u64 {
    (super::breakers::physical_memory() / 100).max(1 << 20)
}

impl RequestCache {
    pub fn with_capacity(bytes: u64) -> RequestCache {
        RequestCache { inner: Mutex::new(Inner::default()), capacity: AtomicU64::new(bytes) }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The cached value of `request` on `shard`'s reader `version`; counts a hit or a miss.
    pub fn get(&self, shard: &ShardRequestCache, version: u64, request: &str) -> Option<Value> {
        let key = Key { instance: shard.instance, reader_version: version, request: Arc::from(request) };
        let mut g = self.lock();
        let inner = &mut *g;
        inner.tick += 1;
        let tick = inner.tick;
        let found = inner.map.get_mut(&key).map(|e| {
            let old = std::mem::replace(&mut e.tick, tick);
            (old, e.value.clone())
        });
        match found {
            Some((old, v)) => {
                inner.lru.remove(&old);
                inner.lru.insert(tick, key);
                shard.hits.fetch_add(1, Ordering::Relaxed);
                Some(v)
            }
            None => {
                shard.misses.fetch_add(1, Ordering::Relaxed);
                None
            }
        }
    }

    /// Caches `value` (weighing `value_bytes`) for `request` on `shard`'s reader `version`.
    /// Entries of older versions of the copy go; least recently used entries are evicted until
    /// the cache fits. A value larger than the whole cache is not kept.
    pub fn put(&self, shard: &Arc<ShardRequestCache>, version: u64, request: &str, value: Value, value_bytes: u64) {
        let bytes = request.len() as u64 + value_bytes + ENTRY_OVERHEAD;
        let capacity = self.capacity.load(Ordering::Relaxed);
        if bytes > capacity {
            return;
        }
        let key = Key { instance: shard.instance, reader_version: version, request: Arc::from(request) };
        let mut g = self.lock();
        let inner = &mut *g;
        let newest = inner.newest.entry(shard.instance).or_insert(version);
        if version < *newest {
            // A search of an older reader (a point in time) does not push out the current one's.
            return;
        }
        if version > *newest {
            *newest = version;
            inner.remove_where(|k| k.instance == shard.instance && k.reader_version < version, false);
        }
        inner.inserts += 1;
        if inner.inserts % 64 == 0 {
            inner.remove_where_entry(|e| e.shard.strong_count() == 0, false);
            let live: std::collections::HashSet<u64> = inner.map.keys().map(|k| k.instance).collect();
            inner.newest.retain(|i, _| live.contains(i) || *i == shard.instance);
        }
        if let Some(old) = inner.map.remove(&key) {
            inner.lru.remove(&old.tick);
            inner.bytes -= old.bytes;
            if let Some(s) = old.shard.upgrade() {
                s.memory.fetch_sub(old.bytes, Ordering::Relaxed);
            }
        }
        while inner.bytes + bytes > capacity {
            let Some((_, k)) = inner.lru.pop_first() else { break };
            if let Some(e) = inner.map.remove(&k) {
                inner.bytes -= e.bytes;
                if let Some(s) = e.shard.upgrade() {
                    s.memory.fetch_sub(e.bytes, Ordering::Relaxed);
                    s.evictions.fetch_add(1, Ordering::Relaxed);
                }
            }
        }
        inner.tick += 1;
        let tick = inner.tick;
        inner.lru.insert(tick, key.clone());
        inner.bytes += bytes;
        shard.memory.fetch_add(bytes, Ordering::Relaxed);
        inner.map.insert(key, Entry { value, bytes, tick, shard: Arc::downgrade(shard) });
    }

    /// Drops every entry of the copies `instances` (`_cache/clear`); not counted as evictions.
    pub fn clear_shards(&self, instances: &[u64]) {
        self.lock().remove_where(|k| instances.contains(&k.instance), false);
    }

    /// Bytes held.
    pub fn bytes(&self) -> u64 {
        self.lock().bytes
    }

    /// Entries held.
    pub fn len(&self) -> usize {
        self.lock().map.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl Inner {
    fn remove_where(&mut self, f: impl Fn(&Key) -> bool, evicted: bool) {
        let doomed: Vec<Key> = self.map.keys().filter(|k| f(k)).cloned().collect();
        self.remove_keys(doomed, evicted);
    }

    fn remove_where_entry(&mut self, f: impl Fn(&Entry) -> bool, evicted: bool) {
        let doomed: Vec<Key> = self.map.iter().filter(|(_, e)| f(e)).map(|(k, _)| k.clone()).collect();
        self.remove_keys(doomed, evicted);
    }

    fn remove_keys(&mut self, keys: Vec<Key>, evicted: bool) {
        for k in keys {
            if let Some(e) = self.map.remove(&k) {
                self.lru.remove(&e.tick);
                self.bytes -= e.bytes;
                if let Some(s) = e.shard.upgrade() {
                    s.memory.fetch_sub(e.bytes, Ordering::Relaxed);
                    if evicted {
                        s.evictions.fetch_add(1, Ordering::Relaxed);
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(n: u32) -> Value {
        Arc::new(n)
    }

    fn got(c: &RequestCache, s: &ShardRequestCache, version: u64, req: &str) -> Option<u32> {
        c.get(s, version, req).and_then(|v| v.downcast_ref::<u32>().copied())
    }

    #[test]
    fn hits_misses_and_new_reader_versions() {
        let c = RequestCache::with_capacity(1 << 20);
        let s = Arc::new(ShardRequestCache::default());
        assert_eq!(got(&c, &s, 1, "q"), None);
        c.put(&s, 1, "q", v(7), 10);
        assert_eq!(got(&c, &s, 1, "q"), Some(7));
        assert_eq!(got(&c, &s, 1, "other"), None);
        assert_eq!(got(&c, &s, 2, "q"), None, "a refreshed reader does not see the old result");
        let st = s.stats();
        assert_eq!((st.hit_count, st.miss_count, st.evictions), (1, 3, 0));
        assert_eq!(st.memory_size_in_bytes, 1 + 10 + ENTRY_OVERHEAD);
        c.put(&s, 2, "q", v(8), 10);
        assert_eq!(c.len(), 1, "the old version's entry is invalidated");
        assert_eq!(s.stats().evictions, 0);
        assert_eq!(got(&c, &s, 2, "q"), Some(8));
        // An older reader (a point in time) does not displace the newest.
        c.put(&s, 1, "q", v(9), 10);
        assert_eq!(got(&c, &s, 2, "q"), Some(8));
        assert_eq!(c.len(), 1);
    }

    #[test]
    fn evicts_least_recently_used_within_capacity() {
        let per = 1 + 100 + ENTRY_OVERHEAD;
        let c = RequestCache::with_capacity(3 * per);
        let s = Arc::new(ShardRequestCache::default());
        for (i, q) in ["a", "b", "c"].iter().enumerate() {
            c.put(&s, 1, q, v(i as u32), 100);
        }
        assert_eq!(got(&c, &s, 1, "a"), Some(0)); // `a` is now the most recent
        c.put(&s, 1, "d", v(3), 100);
        assert_eq!(got(&c, &s, 1, "b"), None, "b was least recently used");
        assert_eq!(got(&c, &s, 1, "a"), Some(0));
        assert_eq!(s.stats().evictions, 1);
        assert_eq!(c.bytes(), 3 * per);
        assert_eq!(s.stats().memory_size_in_bytes, 3 * per);
        c.put(&s, 1, "huge", v(4), 10 * per);
        assert_eq!(got(&c, &s, 1, "huge"), None, "larger than the cache: not kept");
    }

    #[test]
    fn clear_and_closed_copies() {
        let c = RequestCache::with_capacity(1 << 20);
        let a = Arc::new(ShardRequestCache::default());
        let b = Arc::new(ShardRequestCache::default());
        c.put(&a, 1, "q", v(1), 10);
        c.put(&b, 1, "q", v(2), 10);
        assert_ne!(a.instance, b.instance);
        c.clear_shards(&[a.instance]);
        assert_eq!(got(&c, &a, 1, "q"), None);
        assert_eq!(got(&c, &b, 1, "q"), Some(2));
        assert_eq!(a.stats().memory_size_in_bytes, 0);
        drop(b);
        for i in 0..64 {
            c.put(&a, 1, &format!("q{i}"), v(i), 10);
        }
        assert_eq!(c.len(), 64, "the closed copy's entry was swept");
    }
}
