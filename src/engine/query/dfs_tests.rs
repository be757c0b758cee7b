//! Statistics recorded per shard, summed and put in force score every shard as one searcher
//! over all shards' segments does (the model: the same segments searched together).

use std::collections::BTreeMap;
use std::sync::Arc;

use super::super::blended::{Blend, BlendedTerm};
use super::super::model::{MDoc, ModelSegment};
use super::super::{Query, SegmentView, TopSpec, TrackTotalHits, Weight};
use super::*;
use crate::engine::query::Searcher;

fn doc(body: &str, title: &str) -> MDoc {
    MDoc {
        text: vec![
            ("body".into(), body.split_whitespace().map(String::from).collect()),
            ("title".into(), title.split_whitespace().map(String::from).collect()),
        ],
        keyword: vec![],
        long: vec![],
    }
}

/// Three shards with uneven term distributions (shard 1 is full of "fox", shard 2 has none).
fn shards() -> Vec<Arc<ModelSegment>> {
    let s0 = vec![doc("quick brown fox", "fox news"), doc("lazy dog", "dog"), doc("the brown dog jumps", "")];
    let s1 = vec![
        doc("fox fox fox", "fox"),
        doc("fox and dog", "brown fox"),
        doc("a fox", "quick"),
        doc("fox", "fox fox"),
        doc("quick fox jumps over the lazy dog", "x"),
    ];
    let s2 = vec![doc("quick brown", "lazy"), doc("dog dog brown", "brown dog")];
    [s0, s1, s2].into_iter().map(|d| Arc::new(ModelSegment::new(d, &[1], 4))).collect()
}

fn searcher(segs: &[Arc<ModelSegment>]) -> Searcher {
    Searcher::new(segs.iter().map(|s| s.clone() as Arc<dyn SegmentView>).collect())
}

fn all() -> TopSpec {
    TopSpec { size: 100, track_total_hits: TrackTotalHits::Accurate, ..TopSpec::default() }
}

fn term(f: &str, t: &str) -> Query {
    Query::Term { field: f.into(), term: t.as_bytes().to_vec(), boost: 1.0 }
}

fn queries() -> Vec<Query> {
    let phrase = Query::Phrase {
        field: "body".into(),
        terms: vec![(b"brown".to_vec(), 0), (b"fox".to_vec(), 1)],
        slop: 0,
        boost: 1.0,
    };
    let blended = |blend| Query::Blended {
        terms: vec![
            BlendedTerm { field: "body".into(), term: b"fox".to_vec(), boost: 1.0 },
            BlendedTerm { field: "title".into(), term: b"fox".to_vec(), boost: 2.0 },
        ],
        blend,
        boost: 1.0,
    };
    vec![
        term("body", "fox"),
        term("body", "dog"),
        Query::or(vec![term("body", "fox"), term("body", "quick"), term("title", "dog")]),
        phrase,
        Query::MultiPhrase {
            field: "body".into(),
            positions: vec![
                (vec![b"quick".to_vec(), b"lazy".to_vec()], 0),
                (vec![b"fox".to_vec(), b"dog".to_vec()], 1),
            ],
            slop: 0,
            boost: 1.0,
        },
        blended(Blend::CrossFields { tie_breaker: 0.0 }),
        blended(Blend::MaxDocFreq),
        Query::CombinedField {
            fields: vec![("body".into(), 1.0), ("title".into(), 2.0)],
            term: b"fox".to_vec(),
            boost: 1.0,
        },
    ]
}

/// Each doc's score, keyed by (shard, doc), from one searcher over every shard.
fn scores_together(q: &Query, segs: &[Arc<ModelSegment>]) -> BTreeMap<(usize, u32), f32> {
    let top = searcher(segs).search(q, &all()).unwrap();
    top.hits.iter().map(|h| ((h.segment, h.doc), h.score)).collect()
}

/// Each doc's score from each shard searched alone, with `stats` in force when given.
fn scores_apart(q: &Query, segs: &[Arc<ModelSegment>], stats: Option<&Arc<DfsStats>>) -> BTreeMap<(usize, u32), f32> {
    let mut out = BTreeMap::new();
    for (i, s) in segs.iter().enumerate() {
        let top = with_global(stats, || searcher(std::slice::from_ref(s)).search(q, &all())).unwrap();
        out.extend(top.hits.iter().map(|h| ((i, h.doc), h.score)));
    }
    out
}

/// The dfs round: each shard's statistics recorded while compiling, then summed.
fn dfs(q: &Query, segs: &[Arc<ModelSegment>]) -> DfsStats {
    let mut sum = DfsStats::default();
    for s in segs {
        let view: &dyn SegmentView = s.as_ref();
        let (w, mut rec) = recording(|| Weight::compile(q, &[view], 1.0, true));
        w.unwrap();
        rec.max_doc = view.max_doc() as u64;
        sum.merge(&rec);
    }
    sum
}

#[test]
fn global_statistics_score_each_shard_as_the_whole_index() {
    let segs = shards();
    for q in queries() {
        let together = scores_together(&q, &segs);
        assert!(!together.is_empty(), "{q}");
        let stats = Arc::new(dfs(&q, &segs));
        assert_eq!(scores_apart(&q, &segs, Some(&stats)), together, "{q}");
    }
    // Without them the shards' own statistics give other scores (what the test guards).
    let q = term("body", "fox");
    assert_ne!(scores_apart(&q, &segs, None), scores_together(&q, &segs));
}

#[test]
fn recorded_statistics_sum_over_shards_and_survive_the_wire() {
    let segs = shards();
    let stats = dfs(&term("body", "fox"), &segs);
    // "fox" in body: 1 doc of shard 0, 5 of shard 1 (deleted doc 1 included), none in shard 2.
    let fox = stats.terms[&("body".to_string(), b"fox".to_vec())];
    assert_eq!(fox.doc_freq, 6);
    assert_eq!(fox.total_term_freq, 1 + 3 + 1 + 1 + 1 + 1);
    // The field's statistics come from every shard, the term's absent ones included.
    assert_eq!(stats.fields["body"].doc_count, 3 + 5 + 2);
    assert_eq!(stats.max_doc, 10);
    let back: DfsStats = serde_json::from_slice(&serde_json::to_vec(&stats).unwrap()).unwrap();
    assert_eq!(back, stats);
}

#[test]
fn scopes_nest_and_end() {
    let stats = Arc::new(DfsStats { max_doc: 7, ..DfsStats::default() });
    assert_eq!(max_doc(3), 3);
    with_global(Some(&stats), || {
        assert_eq!(max_doc(3), 7);
        let ((), rec) = recording(|| assert_eq!(max_doc(3), 3));
        assert_eq!(rec, DfsStats::default());
        assert_eq!(max_doc(3), 7);
    });
    assert_eq!(max_doc(3), 3);
    // A term the first round did not see keeps its local statistics.
    let local = TermAgg { doc_freq: 2, total_term_freq: 5 };
    with_global(Some(&stats), || assert_eq!(super::term("f", b"t", local), local));
}
