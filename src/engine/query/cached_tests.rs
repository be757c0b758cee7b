use std::sync::Arc;

use proptest::prelude::*;

use super::*;
use crate::engine::query::model::{MDoc, ModelSegment};
use crate::engine::query::searcher::{Searcher, TopSpec, TrackTotalHits};
use crate::engine::query::view::CoreToken;

fn scope(always: bool) -> Scope {
    Scope { cache: Arc::new(QueryCache::new(1 << 30, 10_000, true)), shard: Default::default(), always, reserve: None }
}

fn searcher(segs: &[Arc<ModelSegment>]) -> Searcher {
    Searcher::new(segs.iter().map(|a| a.clone() as Arc<dyn SegmentView>).collect())
}

/// `q` as a filter: every live match, scored 0 (per segment, in doc order).
fn filtered(q: &Query) -> Query {
    Query::Bool {
        must: vec![Query::MatchAll { boost: 1.0 }],
        should: vec![],
        must_not: vec![],
        filter: vec![q.clone()],
        minimum_should_match: 0,
        boost: 1.0,
    }
}

fn hits(s: &Searcher, q: &Query) -> (Vec<(usize, DocId)>, u64) {
    let spec = TopSpec { size: 10_000, track_total_hits: TrackTotalHits::Accurate, ..TopSpec::default() };
    let top = s.search(q, &spec).unwrap();
    let mut h: Vec<(usize, DocId)> = top.hits.iter().map(|h| (h.segment, h.doc)).collect();
    h.sort_unstable();
    (h, s.count(q).unwrap())
}

fn doc(tag: &str, n: i64) -> MDoc {
    MDoc { keyword: vec![("tag".into(), vec![tag.into()])], long: vec![("num".into(), vec![n])], ..MDoc::default() }
}

fn tags() -> Query {
    Query::Terms { field: "tag".into(), terms: vec![b"a".to_vec(), b"b".to_vec()], boost: 1.0 }
}

#[test]
fn a_costly_filter_is_cached_at_its_second_use_then_hit() {
    let mut seg = ModelSegment::new((0..20).map(|i| doc(["a", "b", "c"][i % 3], i as i64)).collect(), &[], 4);
    seg.core = Some(CoreToken::default());
    let segs = vec![Arc::new(seg)];
    let s = searcher(&segs);
    let sc = scope(false);
    let q = filtered(&tags());
    let expect = hits(&s, &q);
    let st = || sc.shard.stats();
    with_scope(Some(sc.clone()), || {
        assert_eq!(hits(&s, &q), expect);
        // The search's filter: a use, a miss. The count's bool (compound, not cached yet): a
        // miss; its filter: the second use, a miss, then cached.
        assert_eq!((st().hit_count, st().miss_count, st().cache_size), (0, 3, 1));
        assert_eq!(hits(&s, &q), expect);
        assert_eq!((st().hit_count, st().miss_count, st().cache_size), (2, 4, 1));
        assert!(st().memory_size_in_bytes > 0);
    });
    // Term filters are never cached (nor counted).
    with_scope(Some(sc.clone()), || {
        let t = filtered(&Query::term("tag", "a"));
        let spec = TopSpec { size: 100, ..TopSpec::default() };
        for _ in 0..6 {
            s.search(&t, &spec).unwrap();
        }
    });
    assert_eq!((st().hit_count, st().miss_count, st().cache_size), (2, 4, 1));
    // Without a scope nothing is counted.
    hits(&s, &q);
    assert_eq!(st().hit_count, 2);
    sc.cache.clear_shard(&sc.shard);
    assert_eq!((st().cache_size, st().memory_size_in_bytes, st().evictions), (0, 0, 1));
    assert_eq!(sc.cache.usage(), (0, 0));
}

#[test]
fn small_segments_are_not_cached_unless_all_segments() {
    let mut seg = ModelSegment::new((0..20).map(|i| doc("a", i)).collect(), &[], 4);
    seg.core = Some(CoreToken::default());
    let segs = vec![Arc::new(seg)];
    let s = searcher(&segs);
    let sc = Scope {
        cache: Arc::new(QueryCache::new(1 << 30, 100, false)),
        shard: Default::default(),
        always: true,
        reserve: None,
    };
    with_scope(Some(sc.clone()), || hits(&s, &filtered(&tags())));
    assert_eq!(sc.shard.stats(), Default::default());
    assert!(!sc.cache.eligible(9_999, 10_000));
    assert!(sc.cache.eligible(10_000, 300_000));
    assert!(!sc.cache.eligible(10_000, 400_000));
}

#[test]
fn cancellation_keeps_nothing() {
    let mut seg = ModelSegment::new((0..9000).map(|i| doc("a", i)).collect(), &[], 128);
    seg.core = Some(CoreToken::default());
    let segs = vec![Arc::new(seg)];
    let s = searcher(&segs);
    let sc = scope(true);
    let flag = Arc::new(std::sync::atomic::AtomicBool::new(true));
    let prev = crate::engine::cancel::set(Some(flag));
    with_scope(Some(sc.clone()), || s.count(&filtered(&tags())).unwrap());
    crate::engine::cancel::set(prev);
    assert_eq!(sc.shard.stats().cache_size, 0);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, failure_persistence: None, ..ProptestConfig::default() })]

    /// Cached filters match what the uncached ones do, also once deletions arrive after the
    /// sets were built (a refresh keeps the segment's core: sets ignore deletions).
    #[test]
    fn cached_filters_equal_uncached(segs in crate::engine::query::tests::corpus(), q in crate::engine::query::tests::query(), del in prop::collection::vec(0u32..25, 0..6)) {
        let segs: Vec<Arc<ModelSegment>> = segs.into_iter().map(|mut s| { s.core = Some(CoreToken::default()); Arc::new(s) }).collect();
        let sc = scope(true);
        let forms = [filtered(&q), Query::ConstantScore { query: Box::new(q.clone()), boost: 2.0 }, filtered(&filtered(&q))];
        let s = searcher(&segs);
        for f in &forms {
            let expect = hits(&s, f);
            for _ in 0..2 {
                let got = with_scope(Some(sc.clone()), || hits(&s, f));
                prop_assert_eq!(&got, &expect, "{}", f);
            }
            // A cacheable filter with matches was answered from the cache the second time.
            if classify(&q).is_some_and(|c| c != Class::Never) && expect.1 > 0 {
                prop_assert!(sc.shard.stats().hit_count > 0, "{}", f);
            }
        }
        // Deletions on the same cores.
        drop(s);
        let moved: Vec<Arc<ModelSegment>> = segs.into_iter().map(|s| {
            let mut s = Arc::try_unwrap(s).expect("one owner");
            let mut n = ModelSegment::new(std::mem::take(&mut s.docs), &del, s.block);
            n.core = s.core.take();
            Arc::new(n)
        }).collect();
        let s = searcher(&moved);
        for f in &forms {
            let expect = hits(&s, f);
            let got = with_scope(Some(sc.clone()), || hits(&s, f));
            prop_assert_eq!(&got, &expect, "{}", f);
        }
    }
}

#[test]
fn a_set_the_breaker_refuses_is_not_built() {
    let mut seg = ModelSegment::new((0..20_000).map(|i| doc("a", i)).collect(), &[], 128);
    seg.core = Some(CoreToken::default());
    let segs = vec![Arc::new(seg)];
    let s = searcher(&segs);
    let asked = Arc::new(std::sync::atomic::AtomicU64::new(0));
    let a = asked.clone();
    let refuse: Reserve = Arc::new(move |b| {
        a.store(b, std::sync::atomic::Ordering::Relaxed);
        None
    });
    let sc = Scope { reserve: Some(refuse), ..scope(true) };
    let q = filtered(&tags());
    let expect = hits(&s, &q);
    assert_eq!(with_scope(Some(sc.clone()), || hits(&s, &q)), expect);
    assert_eq!(asked.load(std::sync::atomic::Ordering::Relaxed), 4 * 20_000);
    assert_eq!(sc.shard.stats().cache_size, 0);
    let allow: Reserve = Arc::new(|_| Some(Box::new(())));
    let sc = Scope { reserve: Some(allow), ..sc };
    assert_eq!(with_scope(Some(sc.clone()), || hits(&s, &q)), expect);
    // The search's filter and the count's whole bool.
    assert_eq!(sc.shard.stats().cache_size, 2);
}
