//! Blended statistics and multi-phrases against hand-computed Lucene numbers and naive models.

use std::collections::BTreeSet;
use std::sync::Arc;

use proptest::prelude::*;

use super::super::model::{MDoc, ModelSegment};
use super::super::multi_phrase::UnionPostings;
use super::super::*;
use super::*;
use crate::engine::segment::{DocId, Postings, NO_MORE_DOCS};

fn mdoc(title: &str, body: &str) -> MDoc {
    let toks = |s: &str| s.split_whitespace().map(String::from).collect::<Vec<_>>();
    let mut text = vec![("body".to_string(), toks(body))];
    if !title.is_empty() {
        text.push(("title".to_string(), toks(title)));
    }
    MDoc { text, ..MDoc::default() }
}

fn searcher(docs: Vec<MDoc>) -> Searcher {
    Searcher::new(vec![Arc::new(ModelSegment::new(docs, &[], 4)) as Arc<dyn SegmentView>])
}

fn scores(s: &Searcher, q: &Query) -> Vec<(DocId, f32)> {
    let top = s
        .search(q, &TopSpec { size: 100, track_total_hits: TrackTotalHits::Accurate, ..TopSpec::default() })
        .expect("search");
    let mut out: Vec<(DocId, f32)> = top.hits.iter().map(|h| (h.doc, h.score)).collect();
    out.sort_by_key(|h| h.0);
    out
}

/// Lucene's BM25 in f32 in its operation order, from scratch.
fn bm25(boost: f32, df: u64, doc_count: u64, sum_ttf: u64, freq: f32, len: u32) -> f32 {
    let idf = (1.0 + ((doc_count - df) as f64 + 0.5) / (df as f64 + 0.5)).ln() as f32;
    let avgdl = (sum_ttf as f64 / doc_count as f64) as f32;
    let w = boost * idf;
    let inv = 1.0 / (1.2 * ((1.0 - 0.75) + 0.75 * len as f32 / avgdl));
    w - w / (1.0 + freq * inv)
}

#[test]
fn cross_fields_doc_freqs_follow_opensearch_blend() {
    // Max df 3 for the most frequent field; each drop in df adds one; capped by doc count.
    assert_eq!(cross_fields_doc_freqs(&[(3, 10, 40), (2, 10, 40), (1, 10, 40)], 10), vec![3, 4, 5]);
    // Equal dfs do not increase.
    assert_eq!(cross_fields_doc_freqs(&[(2, 10, 40), (2, 10, 40)], 10), vec![2, 2]);
    // The field's doc count caps its df.
    assert_eq!(cross_fields_doc_freqs(&[(5, 10, 40), (1, 3, 40)], 10), vec![5, 3]);
    // maxDoc is capped by the smallest sumTTF of the fields holding the term.
    assert_eq!(cross_fields_doc_freqs(&[(4, 10, 40), (2, 10, 5)], 10), vec![4, 5]);
    // Absent terms keep df 0; one field is unchanged.
    assert_eq!(cross_fields_doc_freqs(&[(0, 10, 40), (2, 10, 40)], 10), vec![0, 2]);
    assert_eq!(cross_fields_doc_freqs(&[(7, 10, 40)], 10), vec![7]);
}

#[test]
fn cross_fields_scores_use_blended_doc_freqs() {
    let docs = vec![mdoc("fox", "a b fox"), mdoc("fox den", "c"), mdoc("", "fox"), mdoc("dog", "d e")];
    let s = searcher(docs);
    let terms = vec![
        BlendedTerm { field: "title".into(), term: b"fox".to_vec(), boost: 1.0 },
        BlendedTerm { field: "body".into(), term: b"fox".to_vec(), boost: 2.0 },
    ];
    let q = Query::Blended { terms, blend: Blend::CrossFields { tie_breaker: 0.5 }, boost: 1.0 };
    // title: df 2 of 3 docs (sumTTF 4); body: df 2 of 4 docs (sumTTF 7). Equal dfs: both 2.
    let t = |len| bm25(1.0, 2, 3, 4, 1.0, len);
    let b = |len| bm25(2.0, 2, 4, 7, 1.0, len);
    let want = vec![(0, b(3).max(t(1)) + 0.5 * b(3).min(t(1))), (1, t(2)), (2, b(1))];
    assert_eq!(scores(&s, &q), want);
}

#[test]
fn max_doc_freq_blend_sums_boosted_terms() {
    let docs = vec![mdoc("", "brown fox"), mdoc("", "bran"), mdoc("", "brown brown x"), mdoc("", "y")];
    let s = searcher(docs);
    let terms = vec![
        BlendedTerm { field: "body".into(), term: b"bran".to_vec(), boost: 0.75 },
        BlendedTerm { field: "body".into(), term: b"brown".to_vec(), boost: 0.5 },
    ];
    let q = Query::Blended { terms, blend: Blend::MaxDocFreq, boost: 2.0 };
    let sc = |boost: f32, freq: f32, len: u32| bm25(2.0 * boost, 2, 4, 7, freq, len);
    assert_eq!(scores(&s, &q), vec![(0, sc(0.5, 1.0, 2)), (1, sc(0.75, 1.0, 1)), (2, sc(0.5, 2.0, 3))]);
    // Absent terms only: nothing.
    let none = Query::Blended {
        terms: vec![BlendedTerm { field: "body".into(), term: b"zzz".to_vec(), boost: 1.0 }],
        blend: Blend::MaxDocFreq,
        boost: 1.0,
    };
    assert!(scores(&s, &none).is_empty());
}

#[test]
fn multi_phrase_matches_alternatives_and_sums_idfs() {
    let docs = vec![
        mdoc("", "quick brown fox"),
        mdoc("", "quick brownie"),
        mdoc("", "quick x brown"),
        mdoc("", "brown quick"),
    ];
    let s = searcher(docs);
    let positions =
        vec![(vec![b"quick".to_vec()], 0), (vec![b"brown".to_vec(), b"brownie".to_vec(), b"absent".to_vec()], 1)];
    let q = Query::MultiPhrase { field: "body".into(), positions: positions.clone(), slop: 0, boost: 1.0 };
    let idf = |df: u64| (1.0 + ((4 - df) as f64 + 0.5) / (df as f64 + 0.5)).ln() as f32;
    let sum_idf = (idf(4) as f64 + idf(3) as f64 + idf(1) as f64) as f32;
    let sc = |freq: f32, len: u32| {
        let avgdl = (10f64 / 4.0) as f32;
        let inv = 1.0 / (1.2 * ((1.0 - 0.75) + 0.75 * len as f32 / avgdl));
        sum_idf - sum_idf / (1.0 + freq * inv)
    };
    assert_eq!(scores(&s, &q), vec![(0, sc(1.0, 3)), (1, sc(1.0, 2))]);
    assert_eq!(q.to_string(), "body:\"quick (brown brownie absent)\"");
    // Slop 1 reaches "quick x brown" (sloppy freq 1/2).
    let sloppy = Query::MultiPhrase { field: "body".into(), positions, slop: 1, boost: 1.0 };
    assert_eq!(scores(&s, &sloppy).iter().map(|h| h.0).collect::<Vec<_>>(), vec![0, 1, 2]);
    // One position: a disjunction of term queries with their own statistics.
    let one = Query::MultiPhrase {
        field: "body".into(),
        positions: vec![(vec![b"brownie".to_vec(), b"fox".to_vec()], 0)],
        slop: 0,
        boost: 1.0,
    };
    assert_eq!(scores(&s, &one), vec![(0, bm25(1.0, 1, 4, 10, 1.0, 3)), (1, bm25(1.0, 1, 4, 10, 1.0, 2))]);
}

proptest! {
    /// The union's docs, freqs and positions equal a naive merge, through next and advance.
    #[test]
    fn union_postings_match_a_naive_union(lists in prop::collection::vec(prop::collection::btree_set(0u32..60, 0..20), 1..4), jumps in prop::collection::vec(1u32..8, 0..30)) {
        let docs: Vec<MDoc> = (0..60u32)
            .map(|d| {
                let toks: Vec<String> = lists.iter().enumerate().filter(|(_, l)| l.contains(&d)).map(|(i, _)| format!("t{i}")).collect();
                MDoc { text: vec![("body".into(), if toks.is_empty() { vec!["pad".into()] } else { toks })], ..MDoc::default() }
            })
            .collect();
        let seg = ModelSegment::new(docs, &[], 4);
        let subs: Vec<Box<dyn Postings + '_>> = (0..lists.len()).filter_map(|i| seg.postings("body", format!("t{i}").as_bytes(), true).expect("postings")).collect();
        let mut u = UnionPostings::new(subs);
        let want: BTreeSet<u32> = lists.iter().flatten().copied().collect();
        let mut got = Vec::new();
        let mut d = u.next();
        let mut j = jumps.iter();
        while d != NO_MORE_DOCS {
            got.push(d);
            let nf = lists.iter().filter(|l| l.contains(&d)).count() as u32;
            prop_assert_eq!(u.freq(), nf);
            let mut pos = Vec::new();
            u.positions(&mut pos);
            prop_assert_eq!(pos, (0..nf).collect::<Vec<u32>>());
            d = match j.next() {
                Some(&k) if k > 1 => u.advance(d + k),
                _ => u.next(),
            };
        }
        prop_assert!(u.take_error().is_none());
        // Every visited doc is in the union, and no doc between visited ones was skipped
        // except by an advance.
        prop_assert!(got.iter().all(|g| want.contains(g)));
        prop_assert!(got.windows(2).all(|w| w[0] < w[1]));
        if jumps.iter().all(|&k| k <= 1) {
            prop_assert_eq!(got, want.into_iter().collect::<Vec<_>>());
        }
    }
}
