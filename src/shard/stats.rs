//! The counters of one shard copy (OpenSearch's `IndexingStats`, `GetStats`, `SearchStats`,
//! `MergeStats`, `RefreshStats`, `FlushStats`, ... of an `IndexShard`): relaxed atomics the
//! engine and the search and write paths bump where the work happens, read as a [`Snapshot`]
//! by the stats APIs. Times are kept in nanoseconds and shown in milliseconds.
//!
//! The cache counters (query cache, field data, request cache) are filled from the node's
//! caches when the stats are read (each cache keeps its figures per copy). Fathom has no index
//! warmers: the warmer counters stay zero for the same reason.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use serde::{Deserialize, Serialize};

macro_rules! counters {
    ($(#[$m:meta])* $name:ident / $snap:ident { $($f:ident),* $(,)? }) => {
        $(#[$m])*
        #[derive(Debug, Default)]
        pub struct $name {
            $(pub $f: AtomicU64,)*
        }

        /// The values of the counters at one moment (sums over copies add them up).
        #[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
        pub struct $snap {
            $(#[serde(default)] pub $f: u64,)*
        }

        impl $name {
            /// The counters' current values.
            pub fn snapshot(&self) -> $snap {
                $snap { $($f: self.$f.load(Relaxed),)* }
            }
        }

        impl $snap {
            /// Adds another copy's values.
            pub fn add(&mut self, o: &$snap) {
                $(self.$f += o.$f;)*
            }
        }
    };
}

counters!(
    /// Search phase counters (the shard's own, and one set per stats group).
    SearchCounters / SearchSnapshot {
        query_total, query_time_ns, query_current,
        fetch_total, fetch_time_ns, fetch_current,
        scroll_total, scroll_time_ns, scroll_current,
        point_in_time_total, point_in_time_time_ns, point_in_time_current,
        suggest_total, suggest_time_ns, suggest_current,
    }
);

counters!(
    /// Every other counter of a copy.
    OpCounters / OpSnapshot {
        index_total, index_time_ns, index_current, index_failed,
        delete_total, delete_time_ns, delete_current, noop_update_total,
        get_total, get_time_ns, get_current,
        get_exists_total, get_exists_time_ns, get_missing_total, get_missing_time_ns,
        refresh_total, refresh_time_ns, refresh_external_total, refresh_external_time_ns,
        flush_total, flush_periodic, flush_time_ns,
        warmer_current, warmer_total, warmer_time_ns,
        query_cache_hit, query_cache_miss, query_cache_evictions, query_cache_memory, query_cache_entries,
        fielddata_memory, fielddata_evictions,
        request_cache_hit, request_cache_miss, request_cache_evictions, request_cache_memory,
        recovery_as_source, recovery_as_target, recovery_throttle_ns,
        open_contexts,
    }
);

/// The merges of a copy, read from its index writer (which counts them where they run).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct MergeSnapshot {
    pub total: u64,
    pub time_ns: u64,
    pub docs: u64,
    pub size: u64,
    pub current: u64,
    pub current_docs: u64,
    pub current_size: u64,
}

impl MergeSnapshot {
    /// The writer's merge counters now.
    pub fn of(m: &crate::engine::index::writer::MergeCounters) -> MergeSnapshot {
        MergeSnapshot {
            total: m.total.load(Relaxed),
            time_ns: m.time_ns.load(Relaxed),
            docs: m.docs.load(Relaxed),
            size: m.size.load(Relaxed),
            current: m.current.load(Relaxed),
            current_docs: m.current_docs.load(Relaxed),
            current_size: m.current_size.load(Relaxed),
        }
    }

    fn add(&mut self, o: &MergeSnapshot) {
        self.total += o.total;
        self.time_ns += o.time_ns;
        self.docs += o.docs;
        self.size += o.size;
        self.current += o.current;
        self.current_docs += o.current_docs;
        self.current_size += o.current_size;
    }
}

/// All counters of one shard copy.
#[derive(Debug, Default)]
pub struct ShardCounters {
    pub ops: OpCounters,
    pub search: SearchCounters,
    /// Search counters per stats group (`"stats": ["group"]` in a search body).
    groups: Mutex<BTreeMap<String, Arc<SearchCounters>>>,
}

/// A [`ShardCounters`] at one moment.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CountersSnapshot {
    pub ops: OpSnapshot,
    pub search: SearchSnapshot,
    #[serde(default)]
    pub merges: MergeSnapshot,
    #[serde(default)]
    pub groups: BTreeMap<String, SearchSnapshot>,
}

impl CountersSnapshot {
    /// Adds another copy's values (groups by name).
    pub fn add(&mut self, o: &CountersSnapshot) {
        self.ops.add(&o.ops);
        self.search.add(&o.search);
        self.merges.add(&o.merges);
        for (g, s) in &o.groups {
            self.groups.entry(g.clone()).or_default().add(s);
        }
    }
}

/// An operation in progress: `current` is raised now and lowered when it ends.
#[derive(Debug)]
pub struct Op<'a> {
    current: &'a AtomicU64,
    start: Instant,
}

impl<'a> Op<'a> {
    /// Starts an operation counted by `current`.
    pub fn start(current: &'a AtomicU64) -> Op<'a> {
        current.fetch_add(1, Relaxed);
        Op { current, start: Instant::now() }
    }

    /// Ends it, adding one to `total` and its duration to `time_ns`; returns the duration.
    pub fn finish(self, total: &AtomicU64, time_ns: &AtomicU64) -> u64 {
        let ns = nanos(self.start);
        total.fetch_add(1, Relaxed);
        time_ns.fetch_add(ns, Relaxed);
        ns
    }
}

impl Drop for Op<'_> {
    fn drop(&mut self) {
        self.current.fetch_sub(1, Relaxed);
    }
}

/// Nanoseconds since `start`.
pub fn nanos(start: Instant) -> u64 {
    u64::try_from(start.elapsed().as_nanos()).unwrap_or(u64::MAX)
}

/// Adds one to `c`.
pub fn inc(c: &AtomicU64) {
    c.fetch_add(1, Relaxed);
}

impl ShardCounters {
    /// The counters' current values.
    pub fn snapshot(&self) -> CountersSnapshot {
        let groups = self.groups.lock().unwrap_or_else(|e| e.into_inner());
        CountersSnapshot {
            ops: self.ops.snapshot(),
            search: self.search.snapshot(),
            merges: MergeSnapshot::default(),
            groups: groups.iter().map(|(k, v)| (k.clone(), v.snapshot())).collect(),
        }
    }

    /// The counters of the search stats groups `names` (created on first use).
    pub fn groups(&self, names: &[String]) -> Vec<Arc<SearchCounters>> {
        if names.is_empty() {
            return Vec::new();
        }
        let mut g = self.groups.lock().unwrap_or_else(|e| e.into_inner());
        names.iter().map(|n| g.entry(n.clone()).or_default().clone()).collect()
    }
}

/// Which search phase a [`SearchOp`] counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    Query,
    Fetch,
    Suggest,
}

fn phase_fields(c: &SearchCounters, p: Phase) -> (&AtomicU64, &AtomicU64, &AtomicU64) {
    match p {
        Phase::Query => (&c.query_current, &c.query_total, &c.query_time_ns),
        Phase::Fetch => (&c.fetch_current, &c.fetch_total, &c.fetch_time_ns),
        Phase::Suggest => (&c.suggest_current, &c.suggest_total, &c.suggest_time_ns),
    }
}

/// One search phase on one shard, counted in the shard's search counters and in those of
/// its stats groups: current while it lives, total and time when it drops.
#[derive(Debug)]
pub struct SearchOp {
    counters: Vec<Arc<SearchCounters>>,
    phase: Phase,
    start: Instant,
}

impl SearchOp {
    /// Starts `phase` on the copy counted by `c`, for the groups `groups`.
    pub fn start(c: &Arc<ShardCounters>, groups: &[String], phase: Phase) -> SearchOp {
        let counters = c.groups(groups);
        let op = SearchOp { counters, phase, start: Instant::now() };
        for s in op.all(c) {
            phase_fields(s, phase).0.fetch_add(1, Relaxed);
        }
        op
    }

    fn all<'a>(&'a self, c: &'a ShardCounters) -> impl Iterator<Item = &'a SearchCounters> {
        std::iter::once(&c.search).chain(self.counters.iter().map(|a| a.as_ref()))
    }

    /// Ends the phase.
    pub fn finish(self, c: &ShardCounters) {
        let ns = nanos(self.start);
        for s in self.all(c) {
            let (cur, total, time) = phase_fields(s, self.phase);
            cur.fetch_sub(1, Relaxed);
            total.fetch_add(1, Relaxed);
            time.fetch_add(ns, Relaxed);
        }
    }
}

/// A scroll or point-in-time reader context open on a copy: counted as current (and in
/// `open_contexts`) until dropped, then in the total with the time it was held.
#[derive(Debug)]
pub struct OpenContext {
    counters: Arc<ShardCounters>,
    scroll: bool,
    start: Instant,
}

impl OpenContext {
    /// Counts a context opened on the copy counted by `c` (`scroll`: a scroll, else a PIT).
    pub fn open(c: &Arc<ShardCounters>, scroll: bool) -> OpenContext {
        let s = &c.search;
        inc(if scroll { &s.scroll_current } else { &s.point_in_time_current });
        inc(&c.ops.open_contexts);
        OpenContext { counters: c.clone(), scroll, start: Instant::now() }
    }
}

impl Drop for OpenContext {
    fn drop(&mut self) {
        let s = &self.counters.search;
        let (cur, total, time) = if self.scroll {
            (&s.scroll_current, &s.scroll_total, &s.scroll_time_ns)
        } else {
            (&s.point_in_time_current, &s.point_in_time_total, &s.point_in_time_time_ns)
        };
        cur.fetch_sub(1, Relaxed);
        self.counters.ops.open_contexts.fetch_sub(1, Relaxed);
        inc(total);
        time.fetch_add(nanos(self.start), Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn operations_count_current_total_and_time() {
        let c = ShardCounters::default();
        let op = Op::start(&c.ops.index_current);
        assert_eq!(c.snapshot().ops.index_current, 1);
        op.finish(&c.ops.index_total, &c.ops.index_time_ns);
        let s = c.snapshot();
        assert_eq!((s.ops.index_current, s.ops.index_total), (0, 1));
        // Dropped without finishing (a failed operation): current falls, total does not move.
        drop(Op::start(&c.ops.get_current));
        assert_eq!((c.snapshot().ops.get_current, c.snapshot().ops.get_total), (0, 0));
    }

    #[test]
    fn open_contexts_count_while_held() {
        let c = Arc::new(ShardCounters::default());
        let pit = OpenContext::open(&c, false);
        let scroll = OpenContext::open(&c, true);
        let s = c.snapshot();
        assert_eq!((s.ops.open_contexts, s.search.point_in_time_current, s.search.scroll_current), (2, 1, 1));
        drop(pit);
        drop(scroll);
        let s = c.snapshot();
        assert_eq!((s.ops.open_contexts, s.search.point_in_time_total, s.search.scroll_total), (0, 1, 1));
    }

    #[test]
    fn search_phases_count_in_their_groups_and_snapshots_add() {
        let c = Arc::new(ShardCounters::default());
        let q = SearchOp::start(&c, &["g1".to_string()], Phase::Query);
        assert_eq!(c.snapshot().search.query_current, 1);
        assert_eq!(c.snapshot().groups["g1"].query_current, 1);
        q.finish(&c);
        SearchOp::start(&c, &[], Phase::Fetch).finish(&c);
        let s = c.snapshot();
        assert_eq!((s.search.query_total, s.search.query_current, s.search.fetch_total), (1, 0, 1));
        assert_eq!((s.groups["g1"].query_total, s.groups["g1"].fetch_total), (1, 0));
        let mut sum = s.clone();
        sum.add(&s);
        assert_eq!((sum.search.query_total, sum.groups["g1"].query_total), (2, 2));
        let back: CountersSnapshot = serde_json::from_value(serde_json::to_value(&s).unwrap()).unwrap();
        assert_eq!(back, s);
    }
}
