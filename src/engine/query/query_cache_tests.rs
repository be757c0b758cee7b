use std::sync::Arc;

use super::*;
use crate::engine::query::view::CoreToken;

fn q(i: u32) -> Arc<CacheQuery> {
    Arc::new(CacheQuery::new(Query::term("f", &i.to_string())))
}

fn set(n: u32) -> Arc<DocSet> {
    Arc::new(DocSet::from_sorted((0..n).collect(), 1000))
}

#[test]
fn doc_sets_pick_the_smaller_form_and_iterate() {
    let sparse = DocSet::from_sorted(vec![3, 70, 999], 1000);
    assert!(matches!(sparse, DocSet::Sparse(_)));
    let dense = DocSet::from_sorted((0..1000).filter(|d| d % 3 == 0).collect(), 1000);
    assert!(matches!(dense, DocSet::Dense { .. }));
    assert_eq!(dense.len(), 334);
    assert!(dense.mem_bytes() < 334 * 4);
    for s in [&sparse, &dense] {
        let mut out = vec![];
        let mut d = s.next_from(0);
        while let Some(x) = d {
            out.push(x);
            d = s.next_from(x + 1);
        }
        assert_eq!(out.len() as u32, s.len());
        assert!(out.windows(2).all(|w| w[0] < w[1]));
    }
    assert_eq!(sparse.next_from(4), Some(70));
    assert_eq!(sparse.next_from(1000), None);
    assert_eq!(dense.next_from(1), Some(3));
    assert_eq!(dense.next_from(999), Some(999));
    assert_eq!(dense.next_from(5000), None);
    assert!(DocSet::from_sorted(vec![], 10).is_empty());
}

#[test]
fn hits_misses_and_lru_eviction_by_count() {
    let c = QueryCache::new(1 << 30, 2, true);
    let shard = Arc::new(ShardQueryCache::default());
    let core = CoreToken::default();
    let k = core.key();
    assert!(c.get(&k, &q(1), &shard).is_none());
    c.put(&k, &q(1), set(5), &shard);
    c.put(&k, &q(2), set(5), &shard);
    assert_eq!(c.get(&k, &q(1), &shard).map(|s| s.len()), Some(5));
    // q(2) is now the least recently used: a third filter evicts it.
    c.put(&k, &q(3), set(5), &shard);
    assert!(c.get(&k, &q(2), &shard).is_none());
    assert!(c.get(&k, &q(1), &shard).is_some());
    let st = shard.stats();
    assert_eq!((st.hit_count, st.miss_count, st.cache_size, st.evictions), (2, 2, 2, 1));
    assert_eq!(st.memory_size_in_bytes, 2 * (set(5).mem_bytes() + ENTRY_OVERHEAD));
    assert_eq!(c.usage().1, 2);
}

#[test]
fn eviction_by_bytes() {
    let one = set(100).mem_bytes() + ENTRY_OVERHEAD + q(1).bytes;
    let c = QueryCache::new(one * 2 + one / 2, 100, true);
    let shard = Arc::new(ShardQueryCache::default());
    let core = CoreToken::default();
    for i in 0..5 {
        c.put(&core.key(), &q(i), set(100), &shard);
    }
    let st = shard.stats();
    assert_eq!((st.cache_size, st.evictions), (2, 3));
    assert!(c.usage().0 <= one * 2 + one / 2);
    assert!(c.get(&core.key(), &q(4), &shard).is_some());
    assert!(c.get(&core.key(), &q(0), &shard).is_none());
}

#[test]
fn a_closed_segment_takes_its_sets_and_clear_is_per_copy() {
    let c = QueryCache::new(1 << 30, 100, true);
    let (a, b) = (Arc::new(ShardQueryCache::default()), Arc::new(ShardQueryCache::default()));
    let seg_a = CoreToken::default();
    let seg_b = CoreToken::default();
    c.put(&seg_a.key(), &q(1), set(10), &a);
    c.put(&seg_b.key(), &q(1), set(10), &b);
    let key_a = seg_a.key();
    drop(seg_a);
    assert!(c.get(&key_a, &q(1), &a).is_none());
    c.sweep();
    assert_eq!((a.stats().cache_size, a.stats().memory_size_in_bytes, a.stats().evictions), (0, 0, 1));
    assert_eq!(b.stats().cache_size, 1);
    c.clear_shard(&a);
    assert_eq!(b.stats().cache_size, 1);
    c.clear_shard(&b);
    assert_eq!((b.stats().cache_size, b.stats().evictions), (0, 1));
    assert_eq!(c.usage(), (0, 0));
}
