//! Spans against a brute-force model over a document's positions: every choice of one position
//! per clause enumerated for near queries, filters checked against every span of the other
//! clause; scores against the term query (a span term scores as a term) and BM25 over the
//! model's frequency.

use std::sync::Arc;

use proptest::prelude::*;

use super::eval::{sloppy_freq, spans, Span};
use super::scorer::SpanScorer;
use super::*;
use crate::engine::query::model::{MDoc, ModelSegment};
use crate::engine::query::searcher::{Searcher, TopSpec, TrackTotalHits};
use crate::engine::query::{Query, Scorer};
use crate::engine::segment::NO_MORE_DOCS;

const F: &str = "f";
const WORDS: [&str; 4] = ["a", "b", "c", "d"];

fn t(s: &str) -> SpanQuery {
    SpanQuery::Term { field: F.into(), term: s.as_bytes().to_vec() }
}

/// The spans of `q` over a document of tokens.
fn run(q: &SpanQuery, doc: &[&str]) -> Vec<Span> {
    let mut leaves = Vec::new();
    q.leaves(&mut leaves);
    let positions: Vec<Vec<u32>> = leaves
        .iter()
        .map(|(_, tm)| doc.iter().enumerate().filter(|(_, w)| w.as_bytes() == &tm[..]).map(|(p, _)| p as u32).collect())
        .collect();
    spans(q, &positions)
}

fn pos(doc: &[&str], w: &str) -> Vec<i32> {
    doc.iter().enumerate().filter(|(_, x)| **x == w).map(|(p, _)| p as i32).collect()
}

/// Every choice of one position per word.
fn choices(doc: &[&str], words: &[&str]) -> Vec<Vec<i32>> {
    let mut out: Vec<Vec<i32>> = vec![vec![]];
    for w in words {
        let ps = pos(doc, w);
        out = out.iter().flat_map(|c| ps.iter().map(move |&p| [c.clone(), vec![p]].concat())).collect();
    }
    out
}

/// Whether an ordered near of terms matches: increasing positions, gaps summing to at most slop.
fn model_ordered_exists(doc: &[&str], words: &[&str], slop: i32) -> bool {
    let n = words.len() as i32;
    choices(doc, words).iter().any(|c| c.windows(2).all(|w| w[0] < w[1]) && c[c.len() - 1] - c[0] + 1 - n <= slop)
}

/// An ordered near's spans: for each position of the first word, every later word at its first
/// position after the previous one (the closest fit); none past the first word left without one.
fn model_ordered(doc: &[&str], words: &[&str], slop: i32) -> Vec<Span> {
    let mut out = Vec::new();
    'first: for p in pos(doc, words[0]) {
        let mut prev_end = p + 1;
        let mut width = 0;
        for w in &words[1..] {
            let Some(q) = pos(doc, w).into_iter().find(|&q| q >= prev_end) else { break 'first };
            width += q - prev_end;
            prev_end = q + 1;
        }
        if width <= slop {
            out.push(Span { start: p, end: prev_end, width });
        }
    }
    out
}

/// Whether an unordered near of distinct words matches: a window holding one of each, at most
/// slop positions besides them.
fn model_unordered_exists(doc: &[&str], words: &[&str], slop: i32) -> bool {
    let n = words.len() as i32;
    choices(doc, words).iter().any(|c| c.iter().max().unwrap() - c.iter().min().unwrap() + 1 - n <= slop)
}

fn distinct_words(n: usize) -> impl Strategy<Value = Vec<&'static str>> {
    prop::sample::subsequence(WORDS.to_vec(), n).prop_shuffle()
}

fn doc() -> impl Strategy<Value = Vec<&'static str>> {
    prop::collection::vec(prop::sample::select(&WORDS[..]), 0..12)
}

fn near(words: &[&str], slop: i32, in_order: bool) -> SpanQuery {
    SpanQuery::Near { clauses: words.iter().map(|w| t(w)).collect(), slop, in_order }
}

fn overlaps(a: &Span, lo: i64, hi: i64) -> bool {
    (a.end as i64) > lo && (a.start as i64) < hi
}

proptest! {
    #[test]
    fn ordered_near_matches_the_model(words in prop::collection::vec(prop::sample::select(&WORDS[..]), 2..4), slop in 0i32..4, d in doc()) {
        let got = run(&near(&words, slop, true), &d);
        prop_assert_eq!(!got.is_empty(), model_ordered_exists(&d, &words, slop));
        prop_assert_eq!(got, model_ordered(&d, &words, slop));
    }

    #[test]
    fn unordered_near_matches_the_model(words in (2usize..4).prop_flat_map(distinct_words), slop in 0i32..4, d in doc()) {
        let got = run(&near(&words, slop, false), &d);
        prop_assert_eq!(!got.is_empty(), model_unordered_exists(&d, &words, slop), "{:?} {:?} {}", words, d, slop);
        // Every span is a window holding each word.
        for s in &got {
            for w in &words {
                prop_assert!(pos(&d, w).iter().any(|&p| p >= s.start && p < s.end));
            }
            prop_assert_eq!(s.width, s.end - s.start);
        }
    }

    #[test]
    fn or_merges_the_clauses(a in prop::sample::select(&WORDS[..]), b in prop::sample::select(&WORDS[..]), d in doc()) {
        let got = run(&SpanQuery::Or(vec![t(a), t(b)]), &d);
        let mut want: Vec<i32> = pos(&d, a).into_iter().chain(pos(&d, b)).collect();
        want.sort();
        prop_assert_eq!(got.iter().map(|s| s.start).collect::<Vec<_>>(), want);
    }

    #[test]
    fn not_drops_spans_near_an_exclusion(inc in prop::sample::select(&WORDS[..]), exc in prop::sample::select(&WORDS[..]), pre in 0i32..3, post in 0i32..3, d in doc()) {
        let q = SpanQuery::Not { include: Box::new(t(inc)), exclude: Box::new(t(exc)), pre, post };
        let got = run(&q, &d);
        let ex = run(&t(exc), &d);
        let want: Vec<Span> = run(&t(inc), &d)
            .into_iter()
            .filter(|s| !ex.iter().any(|e| overlaps(e, s.start as i64 - pre as i64, s.end as i64 + post as i64)))
            .collect();
        prop_assert_eq!(got, want);
    }

    #[test]
    fn first_keeps_spans_ending_early(words in prop::collection::vec(prop::sample::select(&WORDS[..]), 1..3), end in 0i32..6, d in doc()) {
        let inner = if words.len() == 1 { t(words[0]) } else { near(&words, 1, true) };
        let got = run(&SpanQuery::First { inner: Box::new(inner.clone()), end }, &d);
        let want: Vec<Span> = run(&inner, &d).into_iter().filter(|s| s.end <= end).collect();
        prop_assert_eq!(got, want);
    }

    #[test]
    fn containment_matches_the_model(a in prop::sample::select(&WORDS[..]), b in prop::sample::select(&WORDS[..]), l in prop::sample::select(&WORDS[..]), slop in 0i32..4, d in doc()) {
        let big = near(&[a, b], slop, true);
        let bigs = run(&big, &d);
        let littles = run(&t(l), &d);
        let inside = |x: &Span, y: &Span| x.start <= y.start && y.end <= x.end;
        let containing = run(&SpanQuery::Containing { big: Box::new(big.clone()), little: Box::new(t(l)) }, &d);
        let want: Vec<Span> = bigs.iter().copied().filter(|x| littles.iter().any(|y| inside(x, y))).collect();
        prop_assert_eq!(containing, want);
        let within = run(&SpanQuery::Within { big: Box::new(big), little: Box::new(t(l)) }, &d);
        let want: Vec<Span> = littles.iter().copied().filter(|y| bigs.iter().any(|x| inside(x, y))).collect();
        prop_assert_eq!(within, want);
    }

    #[test]
    fn scorer_finds_the_documents_with_spans(words in prop::collection::vec(prop::sample::select(&WORDS[..]), 2..4), slop in 0i32..3, in_order in any::<bool>(), docs in prop::collection::vec(doc(), 1..10)) {
        let mdocs: Vec<MDoc> = docs.iter().map(|d| MDoc { text: vec![(F.into(), d.iter().map(|w| w.to_string()).collect())], ..Default::default() }).collect();
        let seg = ModelSegment::new(mdocs, &[], 4);
        let q = near(&words, slop, in_order);
        let Weight::Spans { sim, .. } = compile(&q, &[&seg], 1.0, true, String::new()).unwrap() else {
            // No document can match: no word occurs anywhere.
            prop_assert!(docs.iter().all(|d| run(&q, d).is_empty()));
            return Ok(());
        };
        let want: Vec<u32> = docs.iter().enumerate().filter(|(_, d)| !run(&q, d).is_empty()).map(|(i, _)| i as u32).collect();
        let mut got = Vec::new();
        if let Some(mut sc) = SpanScorer::new(&seg, Arc::new(q.clone()), sim.clone()).unwrap() {
            while sc.doc() != NO_MORE_DOCS {
                let d = sc.doc() as usize;
                prop_assert_eq!(sc.freq(), sloppy_freq(&run(&q, &docs[d])));
                got.push(sc.doc());
                sc.next();
            }
        }
        prop_assert_eq!(got, want);
    }
}

#[test]
fn ordered_near_moves_later_clauses_forward_only() {
    // Lucene's example: "t1 t2 t3" with slop 1 over "t1 t2 t1 t3 t2 t3" matches twice.
    let d = ["a", "b", "a", "c", "b", "c"];
    let got = run(&near(&["a", "b", "c"], 1, true), &d);
    assert_eq!(got, vec![Span { start: 0, end: 4, width: 1 }, Span { start: 2, end: 6, width: 1 }]);
    // A gap takes positions between clauses.
    let g = SpanQuery::Near {
        clauses: vec![t("a"), SpanQuery::Gap { field: F.into(), width: 2 }, t("b")],
        slop: 0,
        in_order: true,
    };
    assert_eq!(run(&g, &["a", "x", "y", "b"]), vec![Span { start: 0, end: 4, width: 0 }]);
    assert!(run(&g, &["a", "x", "b"]).is_empty());
    // A leading gap stops after the last listed position.
    let g = SpanQuery::Near {
        clauses: vec![SpanQuery::Gap { field: F.into(), width: 1 }, t("b")],
        slop: 0,
        in_order: true,
    };
    assert_eq!(run(&g, &["a", "b"]).len(), 1);
}

#[test]
fn unordered_near_reports_window_widths() {
    // Unordered clauses may overlap: a repeated term matches one occurrence (Lucene's quirk).
    let q = near(&["a", "a"], 0, false);
    assert_eq!(run(&q, &["a", "b"]), vec![Span { start: 0, end: 1, width: 1 }]);
    assert_eq!(run(&near(&["b", "a"], 0, false), &["a", "b"]), vec![Span { start: 0, end: 2, width: 2 }]);
    assert_eq!(sloppy_freq(&[Span { start: 0, end: 2, width: 2 }]), 1.0 / 3.0);
}

#[test]
fn span_term_scores_as_the_term_query() {
    let docs = ["a b a", "b c", "a d d d a a"];
    let mdocs: Vec<MDoc> = docs
        .iter()
        .map(|d| MDoc { text: vec![(F.into(), d.split(' ').map(String::from).collect())], ..Default::default() })
        .collect();
    let seg = Arc::new(ModelSegment::new(mdocs, &[], 4));
    let searcher = Searcher::new(vec![seg.clone()]);
    let spec = TopSpec { size: 10, track_total_hits: TrackTotalHits::UpTo(100), ..TopSpec::default() };
    let by_term = searcher.search(&Query::Term { field: F.into(), term: b"a".to_vec(), boost: 2.0 }, &spec).unwrap();
    let by_span = searcher.search(&Query::Spans { query: Box::new(t("a")), boost: 2.0 }, &spec).unwrap();
    let scores = |td: &crate::engine::query::TopDocs| td.hits.iter().map(|h| (h.doc, h.score)).collect::<Vec<_>>();
    assert_eq!(scores(&by_term), scores(&by_span));
    assert_eq!(by_span.hits.len(), 2);
    // An index-prefix term reads its expansions' positions; its statistics are the union's.
    let ip = SpanQuery::Mask {
        inner: Box::new(SpanQuery::IndexPrefix {
            field: prefix_field(F),
            parent: F.into(),
            prefix: b"x".to_vec(),
            terms: vec![b"a".to_vec(), b"b".to_vec()],
        }),
        field: F.into(),
    };
    let hits = searcher.search(&Query::Spans { query: Box::new(ip.clone()), boost: 1.0 }, &spec).unwrap();
    assert_eq!(hits.hits.len(), 3);
    assert_eq!(ip.to_string(), "mask(f._index_prefix:x) as f");
    let q = near(&["a", "b"], 0, true);
    assert_eq!(q.to_string(), "spanNear([f:a, f:b], 0, true)");
}
