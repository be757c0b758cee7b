//! The query layer on real segments: the same random corpora and query trees as the model tests,
//! indexed through the real `IndexWriter` (terms dictionary, 128-doc postings blocks with skip
//! data, norms, doc values, points, live docs), must give exactly the model's hits and f32 scores.

use std::sync::Arc;

use proptest::prelude::*;

use super::super::model::ModelSegment;
use super::super::*;
use super::{corpus, hits_of, query, term_combo};
use crate::engine::index::{Document, IndexWriter, IndexWriterConfig};
use crate::engine::schema::{FieldValue, IndexableField};
use crate::engine::store::RamDirectory;

/// A linear congruential generator (Knuth's MMIX constants) from `seed`: the tests' corpora are
/// the same on every run.
fn lcg(seed: u64) -> impl FnMut() -> usize {
    let mut x = seed;
    move || {
        x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (x >> 33) as usize
    }
}

/// Document `d` with whitespace-analyzed `body` text (positions and norms).
fn body_doc(d: i64, body: &str) -> Document {
    Document {
        id: format!("{d}"),
        routing: None,
        source: b"{}".to_vec(),
        fields: vec![IndexableField {
            name: "body".into(),
            value: FieldValue::Text {
                text: body.to_string(),
                analyzer: "whitespace".into(),
                freqs: true,
                positions: true,
                offsets: false,
                norms: true,
                position_increment_gap: 100,
            },
            index: true,
            doc_values: false,
        }],
        seq_no: d,
        primary_term: 1,
        version: 1,
        nested: vec![],
    }
}

fn fields(d: &super::super::model::MDoc) -> Vec<IndexableField> {
    let mut out = Vec::new();
    for (name, words) in &d.text {
        out.push(IndexableField {
            name: name.clone(),
            value: FieldValue::Text {
                text: words.join(" "),
                analyzer: "whitespace".into(),
                freqs: true,
                positions: true,
                offsets: false,
                norms: true,
                position_increment_gap: 100,
            },
            index: true,
            doc_values: false,
        });
    }
    for (name, values) in &d.keyword {
        for v in values {
            out.push(IndexableField {
                name: name.clone(),
                value: FieldValue::Keyword(v.clone()),
                index: true,
                doc_values: true,
            });
        }
    }
    for (name, values) in &d.long {
        for v in values {
            out.push(IndexableField { name: name.clone(), value: FieldValue::Long(*v), index: true, doc_values: true });
        }
    }
    out
}

/// Real segments with the same documents, order and deletions as the model segments (empty
/// model segments produce no segment, so they are dropped from both).
fn build(segs: Vec<ModelSegment>) -> (crate::engine::index::IndexReader, Searcher) {
    let segs: Vec<ModelSegment> = segs.into_iter().filter(|s| !s.docs.is_empty()).collect();
    let (writer, _) = IndexWriter::open(Arc::new(RamDirectory::new()), IndexWriterConfig::default()).expect("open");
    let mut seq = 0;
    for (si, s) in segs.iter().enumerate() {
        for (di, d) in s.docs.iter().enumerate() {
            let doc = Document {
                id: format!("{si}-{di}"),
                routing: None,
                source: b"{}".to_vec(),
                fields: fields(d),
                seq_no: seq,
                primary_term: 1,
                version: 1,
                nested: vec![],
            };
            seq += 1;
            writer.append(&doc).expect("append");
        }
        for (di, live) in s.live.iter().enumerate() {
            if !live {
                assert!(writer.delete(&format!("{si}-{di}")).expect("delete"));
            }
        }
        assert!(writer.refresh().expect("refresh"));
    }
    let real = writer.reader().expect("searcher");
    let views: Vec<Arc<dyn SegmentView>> = segs.into_iter().map(|s| Arc::new(s) as Arc<dyn SegmentView>).collect();
    (real, Searcher::new(views))
}

fn all(size: usize) -> TopSpec {
    TopSpec { size, track_total_hits: TrackTotalHits::Accurate, ..TopSpec::default() }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn real_segments_answer_like_the_model(segs in corpus(), q in query()) {
        let (real, model) = build(segs);
        let want = model.search(&q, &all(1000)).unwrap();
        let got = real.query().search(&q, &all(1000)).unwrap();
        prop_assert_eq!(got.total, want.total, "query {}", q);
        prop_assert_eq!(hits_of(&got), hits_of(&want), "query {}", q);
        prop_assert_eq!(real.query().count(&q).unwrap(), model.count(&q).unwrap());
    }

    #[test]
    fn real_block_max_top_k_equals_exhaustive(segs in corpus(), q in term_combo(), k in 1usize..6) {
        let (real, _) = build(segs);
        let s = real.query();
        let exhaustive = s.search(&q, &TopSpec { size: k, track_total_hits: TrackTotalHits::Accurate, ..TopSpec::default() }).unwrap();
        let pruned = s.search(&q, &TopSpec { size: k, track_total_hits: TrackTotalHits::UpTo(0), ..TopSpec::default() }).unwrap();
        prop_assert_eq!(hits_of(&pruned), hits_of(&exhaustive), "query {}", q);
    }
}

/// Many 128-doc blocks with skewed term frequencies and lengths, so block-max skipping over the
/// real skip data actually skips: pruned top-10 must equal exhaustive top-10 for every query.
#[test]
fn multi_block_pruning_on_real_postings() {
    let mut next = lcg(42);
    let words = ["alpha", "beta", "gamma", "delta", "eps", "zeta", "eta", "theta"];
    let (writer, _) = IndexWriter::open(Arc::new(RamDirectory::new()), IndexWriterConfig::default()).unwrap();
    for d in 0..5000 {
        let len = 1 + next() % 40;
        // Zipf-like: lower words are far more frequent.
        let body: Vec<&str> = (0..len).map(|_| words[(next() % 64).trailing_zeros().min(7) as usize]).collect();
        writer.append(&body_doc(d, &body.join(" "))).unwrap();
    }
    writer.refresh().unwrap();
    let real = writer.reader().unwrap();
    let t = |w: &str| Query::Term { field: "body".into(), term: w.as_bytes().to_vec(), boost: 1.0 };
    let queries = vec![
        t("alpha"),
        t("theta"),
        Query::or(vec![t("alpha"), t("zeta")]),
        Query::or(vec![t("gamma"), t("eta"), t("theta")]),
        Query::and(vec![t("alpha"), t("delta")]),
        Query::and(vec![t("beta"), t("zeta")]),
        Query::Phrase {
            field: "body".into(),
            terms: vec![(b"alpha".to_vec(), 0), (b"beta".to_vec(), 1)],
            slop: 0,
            boost: 1.0,
        },
    ];
    for q in &queries {
        let s = real.query();
        let exhaustive = s
            .search(q, &TopSpec { size: 10, track_total_hits: TrackTotalHits::Accurate, ..TopSpec::default() })
            .unwrap();
        let pruned = s
            .search(q, &TopSpec { size: 10, track_total_hits: TrackTotalHits::UpTo(0), ..TopSpec::default() })
            .unwrap();
        assert_eq!(hits_of(&pruned), hits_of(&exhaustive), "query {q}");
        assert!(exhaustive.total.0 > 0, "query {q} matched nothing");
    }
}

/// Sparse disjunctions (rare terms over many docs) run doc at a time: hits and f32 scores must
/// equal the windowed MaxScore loop's, pruned or exhaustive, with deletions too.
#[test]
fn sparse_disjunctions_doc_at_a_time_equal_windows() {
    let mut next = lcg(7);
    let (writer, _) = IndexWriter::open(Arc::new(RamDirectory::new()), IndexWriterConfig::default()).unwrap();
    for d in 0..6000i64 {
        let len = 1 + next() % 30;
        let mut body: Vec<&str> = (0..len).map(|_| "filler").collect();
        for (w, every) in [("r1", 150), ("r2", 300), ("r3", 700), ("r4", 2000)] {
            if next() % every == 0 {
                for _ in 0..1 + next() % 3 {
                    body.push(w);
                }
            }
        }
        writer.append(&body_doc(d, &body.join(" "))).unwrap();
    }
    writer.refresh().unwrap();
    let t = |w: &str| Query::Term { field: "body".into(), term: w.as_bytes().to_vec(), boost: 1.0 };
    let queries = vec![
        Query::or(vec![t("r1"), t("r2")]),
        Query::or(vec![t("r3"), t("r4"), t("r2")]),
        Query::or(vec![t("r4"), t("absent")]),
    ];
    let check = |real: &crate::engine::index::IndexReader| {
        for q in &queries {
            for (k, tth) in
                [(10, TrackTotalHits::UpTo(0)), (3, TrackTotalHits::Accurate), (1000, TrackTotalHits::Accurate)]
            {
                let spec = TopSpec { size: k, track_total_hits: tth, ..TopSpec::default() };
                let daat = real.query().search(q, &spec).unwrap();
                super::super::max_score::FORCE_WINDOWS.with(|f| f.set(true));
                let windows = real.query().search(q, &spec).unwrap();
                super::super::max_score::FORCE_WINDOWS.with(|f| f.set(false));
                assert_eq!(hits_of(&daat), hits_of(&windows), "query {q}, size {k}");
                assert_eq!(daat.total, windows.total, "query {q}, size {k}");
            }
        }
    };
    check(&writer.reader().unwrap());
    for d in (0..6000).step_by(7) {
        writer.delete(&format!("{d}")).unwrap();
    }
    writer.refresh().unwrap();
    check(&writer.reader().unwrap());
}

/// A sparse pair hands off to the walk over the rarer clause once the commoner one cannot make a
/// doc compete alone (`max_score::walk_pair`): same hits and scores as the windowed loop and as
/// exhaustive top-k, with deletions too, and fewer docs scored than the postings of the pair.
#[test]
fn sparse_pair_walks_the_rarer_clause() {
    let (writer, _) = IndexWriter::open(Arc::new(RamDirectory::new()), IndexWriterConfig::default()).unwrap();
    for d in 0..6000i64 {
        let mut body: Vec<&str> = vec!["filler"; 1 + (d as usize * 7) % 25];
        if d % 75 == 0 {
            body.push("common");
        }
        if d % 600 == 0 {
            // Short docs with the rare term three times: they alone outscore any `common` doc.
            body = vec!["rare", "rare", "rare"];
            if d % 1200 == 0 {
                body.push("common");
            }
        }
        writer.append(&body_doc(d, &body.join(" "))).unwrap();
    }
    writer.refresh().unwrap();
    let t = |w: &str| Query::Term { field: "body".into(), term: w.as_bytes().to_vec(), boost: 1.0 };
    let check = |real: &crate::engine::index::IndexReader, postings: u64| {
        // Both clause orders: the walk sums the two scores in clause order either way.
        for (q, k) in [Query::or(vec![t("common"), t("rare")]), Query::or(vec![t("rare"), t("common")])]
            .iter()
            .flat_map(|q| [1usize, 2, 3].map(|k| (q, k)))
        {
            let pruned = TopSpec { size: k, track_total_hits: TrackTotalHits::UpTo(0), ..TopSpec::default() };
            super::super::scorer::SCORED.with(|c| c.set(0));
            let daat = real.query().search(q, &pruned).unwrap();
            let scored = super::super::scorer::SCORED.with(|c| c.get());
            super::super::max_score::FORCE_WINDOWS.with(|f| f.set(true));
            let windows = real.query().search(q, &pruned).unwrap();
            super::super::max_score::FORCE_WINDOWS.with(|f| f.set(false));
            let exhaustive = real
                .query()
                .search(q, &TopSpec { size: k, track_total_hits: TrackTotalHits::Accurate, ..TopSpec::default() })
                .unwrap();
            assert_eq!(hits_of(&daat), hits_of(&windows), "{q}, size {k}");
            assert_eq!(hits_of(&daat), hits_of(&exhaustive), "{q}, size {k}");
            assert!(scored < postings, "{q}, size {k}: {scored} docs scored, the pair has {postings} postings");
        }
    };
    // 75 docs with `common` and 10 with `rare`, 5 of them with both.
    check(&writer.reader().unwrap(), 75 + 10);
    for d in (0..6000).step_by(1200) {
        writer.delete(&format!("{d}")).unwrap();
    }
    writer.refresh().unwrap();
    // (Deleted docs keep their postings until a merge.)
    check(&writer.reader().unwrap(), 75 + 10);
}

/// A conjunction whose lead is far rarer than its other clause probes that clause's blocks in
/// place ([`crate::engine::segment::Postings::probe`]) and answers exactly as without probing
/// and as an exhaustive search: both clause orders, several k, with deletions.
#[test]
fn sparse_lead_probes_the_common_clause() {
    use super::super::block_max_and::PROBE_RATIO_OVERRIDE;
    use crate::engine::segment::postings::PROBED;
    let (writer, _) = IndexWriter::open(Arc::new(RamDirectory::new()), IndexWriterConfig::default()).unwrap();
    for d in 0..6000i64 {
        let mut body: Vec<&str> = vec!["filler"; 1 + (d as usize * 7) % 25];
        if d % 2 == 0 || d % 7 == 0 {
            body.push("common");
            if d % 5 == 0 {
                body.push("common");
            }
        }
        if d % 97 == 0 || d % 101 == 3 {
            body.push("rare");
        }
        writer.append(&body_doc(d, &body.join(" "))).unwrap();
    }
    writer.refresh().unwrap();
    let t = |w: &str| Query::Term { field: "body".into(), term: w.as_bytes().to_vec(), boost: 1.0 };
    let check = |real: &crate::engine::index::IndexReader| {
        for q in [Query::and(vec![t("common"), t("rare")]), Query::and(vec![t("rare"), t("common")])] {
            for k in [1usize, 3, 10, 200] {
                let pruned = TopSpec { size: k, track_total_hits: TrackTotalHits::UpTo(0), ..TopSpec::default() };
                PROBE_RATIO_OVERRIDE.with(|c| c.set(Some(u64::MAX)));
                let plain = real.query().search(&q, &pruned).unwrap();
                PROBE_RATIO_OVERRIDE.with(|c| c.set(None));
                PROBED.with(|c| c.set(0));
                let probed = real.query().search(&q, &pruned).unwrap();
                assert!(PROBED.with(|c| c.get()) > 0, "{q}, size {k}: no probe answered in place");
                let exhaustive = real
                    .query()
                    .search(&q, &TopSpec { size: k, track_total_hits: TrackTotalHits::Accurate, ..TopSpec::default() })
                    .unwrap();
                assert_eq!(hits_of(&probed), hits_of(&plain), "{q}, size {k}");
                assert_eq!(hits_of(&probed), hits_of(&exhaustive), "{q}, size {k}");
            }
        }
    };
    check(&writer.reader().unwrap());
    for d in (0..6000).step_by(97 * 3) {
        writer.delete(&format!("{d}")).unwrap();
    }
    writer.refresh().unwrap();
    check(&writer.reader().unwrap());
}

/// Threshold priming (`floor.rs`) on real segments: with the stored top docs of multi-block terms,
/// deletions among them and several segments, pruned top-k (k up to 17, one past the stored 16)
/// equals exhaustive top-k; and the floor a segment gives is positive and never above the k-th
/// best exhaustive score.
#[test]
fn primed_top_k_equals_exhaustive_with_deletions_and_segments() {
    let mut next = lcg(99);
    let words = ["alpha", "beta", "gamma", "delta", "eps", "zeta", "eta", "theta"];
    let (writer, _) = IndexWriter::open(Arc::new(RamDirectory::new()), IndexWriterConfig::default()).unwrap();
    for d in 0..4000i64 {
        let len = 1 + next() % 40;
        let body: Vec<&str> = (0..len).map(|_| words[(next() % 64).trailing_zeros().min(7) as usize]).collect();
        writer.append(&body_doc(d, &body.join(" "))).unwrap();
        if d == 2500 {
            writer.refresh().unwrap();
        }
    }
    writer.refresh().unwrap();
    let t = |w: &str| Query::Term { field: "body".into(), term: w.as_bytes().to_vec(), boost: 1.0 };
    let queries = vec![
        t("alpha"),
        t("delta"),
        Query::or(vec![t("alpha"), t("zeta")]),
        Query::or(vec![t("beta"), t("eta"), t("theta")]),
        Query::or(vec![t("gamma"), t("absent")]),
    ];
    struct Rec(usize, f32);
    impl super::super::max_score::Sink for Rec {
        fn collect(&mut self, _: crate::engine::segment::DocId, _: f32) {}
        fn min_competitive(&self) -> f32 {
            0.0
        }
        fn floor_k(&self) -> Option<usize> {
            Some(self.0)
        }
        fn raise_floor(&mut self, f: f32) {
            self.1 = f;
        }
    }
    for round in 0..2 {
        let real = writer.reader().unwrap();
        for q in &queries {
            for k in [1usize, 5, 10, 16, 17] {
                let s = real.query();
                let exhaustive = s
                    .search(q, &TopSpec { size: k, track_total_hits: TrackTotalHits::Accurate, ..TopSpec::default() })
                    .unwrap();
                let pruned = s
                    .search(q, &TopSpec { size: k, track_total_hits: TrackTotalHits::UpTo(0), ..TopSpec::default() })
                    .unwrap();
                assert_eq!(hits_of(&pruned), hits_of(&exhaustive), "round {round}, query {q}, size {k}");
                if k > crate::engine::segment::postings::TOP_DOCS {
                    continue;
                }
                // Each segment's floor alone is below the k-th best hit of the whole index.
                let kth = exhaustive.hits.get(k - 1).map_or(0.0, |h| h.score);
                let views: Vec<&dyn SegmentView> = real.leaves().iter().map(|l| l as &dyn SegmentView).collect();
                let w = Weight::compile(q, &views, 1.0, true).unwrap();
                let mut floors = Vec::new();
                for seg in &views {
                    let mut clauses = w.term_disjunction(*seg).unwrap().expect("term disjunction");
                    let mut rec = Rec(k, 0.0);
                    super::super::floor::prime(&mut clauses, *seg, &mut rec);
                    assert!(
                        rec.1 <= kth,
                        "round {round}, query {q}, size {k}: floor {} above the k-th score {kth}",
                        rec.1
                    );
                    floors.push(rec.1);
                }
                if *q == t("alpha") && round == 0 {
                    // (After the deletions a segment may keep fewer than k live top docs.)
                    assert!(floors.iter().all(|&f| f > 0.0), "alpha has stored top docs in every segment: {floors:?}");
                }
            }
        }
        if round == 0 {
            // The floor takes effect: fewer docs scored than without it, same hits.
            for q in [t("alpha"), Query::or(vec![t("alpha"), t("zeta")])] {
                let spec = TopSpec { size: 10, track_total_hits: TrackTotalHits::UpTo(0), ..TopSpec::default() };
                let run = |off: bool| {
                    super::super::floor::OFF.with(|o| o.set(off));
                    super::super::scorer::SCORED.with(|c| c.set(0));
                    let top = real.query().search(&q, &spec).unwrap();
                    super::super::floor::OFF.with(|o| o.set(false));
                    (super::super::scorer::SCORED.with(|c| c.get()), hits_of(&top))
                };
                let ((primed, a), (plain, b)) = (run(false), run(true));
                assert_eq!(a, b, "query {q}");
                assert!(primed < plain, "query {q}: {primed} docs scored with a floor, {plain} without");
            }
        }
        // Delete docs (among them top docs of the frequent terms) for the second round.
        for d in (0..4000).step_by(3) {
            writer.delete(&format!("{d}")).unwrap();
        }
        writer.refresh().unwrap();
    }
}

/// Priming on a keyword field (no freqs, no norms: every doc of a term scores the same) and
/// with `track_total_hits` up to a count (the floor only once the count is past it): pruned
/// top-k equals exhaustive top-k, and the totals keep their meaning.
#[test]
fn primed_keyword_terms_and_total_hits_thresholds() {
    let mut next = lcg(5);
    let (writer, _) = IndexWriter::open(Arc::new(RamDirectory::new()), IndexWriterConfig::default()).unwrap();
    let tags = ["red", "green", "blue", "grey"];
    for d in 0..3000i64 {
        let mut doc = body_doc(d, if next() % 3 == 0 { "alpha beta" } else { "alpha" });
        // "red" in about half the docs, the others rarer: all of them span several blocks.
        let tag = tags[(next() % 8).trailing_zeros().min(3) as usize];
        doc.fields.push(IndexableField {
            name: "tag".into(),
            value: FieldValue::Keyword(tag.into()),
            index: true,
            doc_values: false,
        });
        writer.append(&doc).unwrap();
    }
    writer.refresh().unwrap();
    let real = writer.reader().unwrap();
    let kw = |w: &str| Query::Term { field: "tag".into(), term: w.as_bytes().to_vec(), boost: 1.0 };
    let t = |w: &str| Query::Term { field: "body".into(), term: w.as_bytes().to_vec(), boost: 1.0 };
    let queries = vec![
        kw("red"),
        Query::or(vec![kw("red"), kw("grey")]),
        Query::or(vec![kw("green"), t("beta")]),
        Query::or(vec![t("alpha"), t("beta")]),
    ];
    for q in &queries {
        for k in [1usize, 10, 16] {
            let s = real.query();
            let exhaustive = s
                .search(q, &TopSpec { size: k, track_total_hits: TrackTotalHits::Accurate, ..TopSpec::default() })
                .unwrap();
            for tth in [TrackTotalHits::UpTo(0), TrackTotalHits::UpTo(50), TrackTotalHits::UpTo(100_000)] {
                let got = s.search(q, &TopSpec { size: k, track_total_hits: tth, ..TopSpec::default() }).unwrap();
                assert_eq!(hits_of(&got), hits_of(&exhaustive), "query {q}, size {k}, {tth:?}");
                let n = exhaustive.total.0;
                match tth {
                    TrackTotalHits::UpTo(100_000) => {
                        assert_eq!(got.total, exhaustive.total, "query {q}: counted in full")
                    }
                    TrackTotalHits::UpTo(50) if n > 50 => assert_eq!(got.total, (50, Relation::Gte), "query {q}"),
                    _ => {}
                }
            }
        }
    }
}
