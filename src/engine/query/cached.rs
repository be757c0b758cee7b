//! Filters through the node query cache ([`super::query_cache`]), as Lucene's `IndexSearcher`
//! wraps every weight built without scores in a `CachingWrapperWeight`. The layer that runs a
//! shard's search installs the copy's [`Scope`] on the thread ([`with_scope`]); weights compiled
//! meanwhile without scores, for a cacheable query, become [`CachedWeight`]s. Their scorer on a
//! segment: the cached set when there is one (a hit), else (a miss) the query's own scorer, or,
//! once the policy says the filter is used often enough, its matches collected into a set that
//! is kept and iterated. Segments that are small, or have no core key, are not cached on.

use std::cell::RefCell;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use super::query_cache::{CacheQuery, DocSet, QueryCache, ShardQueryCache};
use super::query_cache_policy::{classify, Class};
use super::scorer::{BoxScorer, Scorer};
use super::tree::Query;
use super::view::SegmentView;
use super::weight::Weight;
use crate::engine::segment::{DocId, NO_MORE_DOCS};
use crate::engine::Result;

/// Holds `bytes` under the node's request circuit breaker while a set is built (`None`: the
/// breaker refuses them; the filter then runs uncached instead of failing the search).
pub type Reserve = Arc<dyn Fn(u64) -> Option<Box<dyn std::any::Any + Send>> + Send + Sync>;

/// The cache a shard copy's searches use.
#[derive(Clone)]
pub struct Scope {
    pub cache: Arc<QueryCache>,
    pub shard: Arc<ShardQueryCache>,
    /// `index.queries.cache.everything`: every filter is cached at its first use (Lucene's
    /// `QueryCachingPolicy.ALWAYS_CACHE`) instead of after the policy's count of uses.
    pub always: bool,
    /// The request breaker, for sets of at least [`RESERVE_FROM`] bytes (`None`: no breaker).
    pub reserve: Option<Reserve>,
}

impl std::fmt::Debug for Scope {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Scope").field("always", &self.always).finish_non_exhaustive()
    }
}

/// Sets built under the request breaker: at least this many bytes while collected.
pub const RESERVE_FROM: u64 = 64 << 10;

thread_local! {
    static SCOPE: RefCell<Option<Scope>> = const { RefCell::new(None) };
}

/// Runs `f` with `scope` as this thread's query cache (`None`: no caching).
pub fn with_scope<R>(scope: Option<Scope>, f: impl FnOnce() -> R) -> R {
    let prev = SCOPE.with(|s| std::mem::replace(&mut *s.borrow_mut(), scope));
    struct Restore(Option<Option<Scope>>);
    impl Drop for Restore {
        fn drop(&mut self) {
            let prev = self.0.take().flatten();
            let _ = SCOPE.try_with(|s| *s.borrow_mut() = prev);
        }
    }
    let _restore = Restore(Some(prev));
    f()
}

fn current() -> Option<Scope> {
    SCOPE.try_with(|s| s.borrow().clone()).ok().flatten()
}

/// A weight whose per-segment matches go through the cache.
#[derive(Debug)]
pub struct CachedWeight {
    pub inner: Weight,
    key: Arc<CacheQuery>,
    class: Class,
    scope: Scope,
    /// Documents of the searcher the weight was compiled for (segment eligibility).
    total_docs: u64,
    used: AtomicBool,
}

/// `w` (compiled without scores from `query` over `segments`) wrapped for the thread's cache,
/// when there is one and the query is cacheable; `w` itself otherwise.
pub(super) fn wrap(query: &Query, w: Weight, segments: &[&dyn SegmentView]) -> Weight {
    if matches!(w, Weight::MatchNone | Weight::Cached(_)) {
        return w;
    }
    let Some(class) = classify(query) else { return w };
    // Term and match_all queries are never cached: left as they are, their fast paths stay.
    if class == Class::Never {
        return w;
    }
    let Some(scope) = current() else { return w };
    let total_docs = segments.iter().map(|s| s.max_doc() as u64).sum();
    let key = Arc::new(CacheQuery::new(query.with_boost(1.0)));
    Weight::Cached(Arc::new(CachedWeight { inner: w, key, class, scope, total_docs, used: AtomicBool::new(false) }))
}

/// Docs between checks for cancellation while a set is built.
const CANCEL_CHECK_EVERY: u32 = 4096;

impl CachedWeight {
    /// Whether `seg` is one the cache keeps sets of (it has a core key and is large enough).
    pub fn applies(&self, seg: &dyn SegmentView) -> bool {
        seg.core_key().is_some() && self.scope.cache.eligible(seg.max_doc(), self.total_docs)
    }

    /// The scorer on `seg` (see the module doc).
    pub fn scorer<'a>(&self, seg: &'a dyn SegmentView) -> Result<Option<BoxScorer<'a>>> {
        if !self.used.swap(true, Ordering::Relaxed) {
            self.scope.shard.on_use(&self.key);
        }
        let Some(core) = seg.core_key().filter(|_| self.applies(seg)) else { return self.inner.scorer(seg) };
        if let Some(set) = self.scope.cache.get(&core, &self.key, &self.scope.shard) {
            return Ok(SetScorer::boxed(set));
        }
        if !self.scope.always && self.scope.shard.frequency(&self.key) < self.class.min_frequency() {
            return self.inner.scorer(seg);
        }
        let set = match self.inner.scorer(seg)? {
            None => DocSet::from_sorted(Vec::new(), seg.max_doc()),
            Some(mut sc) => {
                // The ids collected (4 bytes each) are held under the request breaker.
                let bytes = 4 * sc.cost().min(seg.max_doc() as u64);
                let _held = match &self.scope.reserve {
                    Some(r) if bytes >= RESERVE_FROM => match r(bytes) {
                        Some(h) => Some(h),
                        None => return Ok(Some(sc)),
                    },
                    _ => None,
                };
                match collect(&mut *sc, seg.max_doc())? {
                    Some(s) => s,
                    // Cancelled: nothing kept; the caller's loop sees the cancellation too.
                    None => return self.inner.scorer(seg),
                }
            }
        };
        let set = Arc::new(set);
        self.scope.cache.put(&core, &self.key, set.clone(), &self.scope.shard);
        Ok(SetScorer::boxed(set))
    }
}

/// Every match of `sc` (`None` when the work was cancelled meanwhile).
fn collect(sc: &mut dyn Scorer, max_doc: u32) -> Result<Option<DocSet>> {
    let mut docs = Vec::with_capacity(sc.cost().min(max_doc as u64) as usize);
    let mut d = sc.doc();
    let mut n = 0u32;
    while d != NO_MORE_DOCS && d < max_doc {
        docs.push(d);
        n += 1;
        if n % CANCEL_CHECK_EVERY == 0 && crate::engine::cancel::requested() {
            return Ok(None);
        }
        d = sc.next();
    }
    if let Some(e) = sc.take_error() {
        return Err(e);
    }
    Ok(Some(DocSet::from_sorted(docs, max_doc)))
}

/// Iterates a cached set; scores 0 (filters do not score).
#[derive(Debug)]
pub struct SetScorer {
    set: Arc<DocSet>,
    doc: DocId,
}

impl SetScorer {
    fn boxed<'a>(set: Arc<DocSet>) -> Option<BoxScorer<'a>> {
        let doc = set.next_from(0)?;
        Some(Box::new(SetScorer { set, doc }))
    }
}

impl Scorer for SetScorer {
    fn doc(&self) -> DocId {
        self.doc
    }
    fn next(&mut self) -> DocId {
        if self.doc != NO_MORE_DOCS {
            self.doc = self.set.next_from(self.doc + 1).unwrap_or(NO_MORE_DOCS);
        }
        self.doc
    }
    fn advance(&mut self, target: DocId) -> DocId {
        if target > self.doc {
            self.doc = self.set.next_from(target).unwrap_or(NO_MORE_DOCS);
        }
        self.doc
    }
    fn score(&mut self) -> f32 {
        0.0
    }
    fn cost(&self) -> u64 {
        self.set.len() as u64
    }
    fn max_score(&mut self, _up_to: DocId) -> f32 {
        0.0
    }
}

#[cfg(test)]
#[path = "cached_tests.rs"]
mod tests;
