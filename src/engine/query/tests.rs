//! Tests against the naive model: BM25 values against independent computations and hand-checked
//! OpenSearch numbers, every query type against a brute-force oracle, block-max top-k against
//! exhaustive top-k, sorts, totals, explanations and injected corruption.

use std::cmp::Ordering;
use std::sync::Arc;

use proptest::prelude::*;

use super::bm25::{idf, Bm25};
use super::model::{long_key, MDoc, ModelSegment};
use super::*;
use crate::engine::segment::smallfloat::{length_to_norm, norm_to_length};
use crate::engine::segment::DocId;

fn text(s: &str) -> Vec<String> {
    s.split_whitespace().map(|t| t.to_string()).collect()
}

fn doc(body: &str, tags: &[&str], nums: &[i64]) -> MDoc {
    MDoc {
        text: vec![("body".into(), text(body))],
        keyword: vec![("tag".into(), tags.iter().map(|t| t.to_string()).collect())],
        long: vec![("num".into(), nums.to_vec())],
    }
}

fn searcher(segs: Vec<ModelSegment>) -> (Searcher, Vec<Arc<ModelSegment>>) {
    let arcs: Vec<Arc<ModelSegment>> = segs.into_iter().map(Arc::new).collect();
    let views: Vec<Arc<dyn SegmentView>> = arcs.iter().map(|a| a.clone() as Arc<dyn SegmentView>).collect();
    (Searcher::new(views), arcs)
}

fn all(size: usize) -> TopSpec {
    TopSpec { size, track_total_hits: TrackTotalHits::Accurate, ..TopSpec::default() }
}

// ---------------------------------------------------------------- BM25 numbers

#[test]
fn idf_and_score_match_hand_checked_opensearch_numbers() {
    // A one-document index, "freq 1, dl == avgdl": OpenSearch 2.x (LegacyBM25, boost 2.2) shows
    // score 0.2876821 = 2.2 * idf 0.2876821 * tf 0.45454544; OpenSearch 3 (BM25) shows the same
    // without the 2.2.
    assert_eq!(idf(1, 1), 0.287_682_1);
    // An Elasticsearch 7 explain (elastic/elasticsearch#95929): n 53, N 1570 → idf 3.379786,
    // and score 4.425681 = 2.2 * idf * tf 0.59520733.
    assert_eq!(idf(53, 1570), 3.379_786);
    let w = 2.2f32 * idf(53, 1570);
    assert!((w * 0.595_207_33 - 4.425_681).abs() <= 1e-6 * 4.425_681);
    let sim = Bm25::new(1.0, 1, 1, &[1]);
    assert_eq!(sim.avgdl, 1.0);
    assert_eq!(sim.score(1.0, 1), 0.287_682_1 * 0.454_545_44);
    let legacy = Bm25::new(2.2, 1, 1, &[1]);
    assert_eq!(legacy.score(1.0, 1), 0.287_682_1);

    let (s, _) = searcher(vec![ModelSegment::new(vec![doc("quick fox", &[], &[])], &[], 4)]);
    let q = Query::Term { field: "body".into(), term: b"fox".to_vec(), boost: 2.2 };
    let top = s.search(&q, &all(10)).unwrap();
    assert_eq!(top.hits[0].score, 0.287_682_1);
}

/// Lucene's formula written independently in f32 and the textbook formula in f64.
fn lucene_f32(boost: f32, n: u64, big_n: u64, sum_ttf: u64, freq: f32, len: u32) -> f32 {
    let idf = (1.0f64 + ((big_n as f64 - n as f64) + 0.5) / (n as f64 + 0.5)).ln() as f32;
    let avgdl = (sum_ttf as f64 / big_n as f64) as f32;
    let norm_inverse = 1f32 / (1.2f32 * (0.25f32 + 0.75f32 * norm_to_length(length_to_norm(len)) as f32 / avgdl));
    let w = boost * idf;
    w - w / (1f32 + freq * norm_inverse)
}

fn textbook_f64(boost: f64, n: u64, big_n: u64, sum_ttf: u64, freq: f64, len: u32) -> f64 {
    let idf = (1.0 + (big_n as f64 - n as f64 + 0.5) / (n as f64 + 0.5)).ln();
    let avgdl = sum_ttf as f64 / big_n as f64;
    let dl = norm_to_length(length_to_norm(len)) as f64;
    boost * idf * freq / (freq + 1.2 * (1.0 - 0.75 + 0.75 * dl / avgdl))
}

#[test]
fn bm25_matches_independent_computations() {
    let bodies = ["a b c", "a a a b", "c d e f g h i j k l m n o p q r s t u v w x y z a", "b", "a c c c c c"];
    let docs: Vec<MDoc> = bodies.iter().map(|b| doc(b, &[], &[])).collect();
    let lens: Vec<u32> = bodies.iter().map(|b| b.split_whitespace().count() as u32).collect();
    let sum_ttf: u64 = lens.iter().map(|&l| l as u64).sum();
    // Two segments (and a deleted doc, which still counts in the statistics).
    let seg0 = ModelSegment::new(docs[..2].to_vec(), &[], 2);
    let seg1 = ModelSegment::new(docs[2..].to_vec(), &[1], 2);
    let (s, _) = searcher(vec![seg0, seg1]);
    for term in ["a", "b", "c", "z"] {
        let n = bodies.iter().filter(|b| b.split_whitespace().any(|t| t == term)).count() as u64;
        let q = Query::Term { field: "body".into(), term: term.as_bytes().to_vec(), boost: 1.5 };
        let top = s.search(&q, &all(10)).unwrap();
        assert_eq!(top.hits.len() as u64, n - (term == "b") as u64, "{term}");
        for h in &top.hits {
            let g = if h.segment == 0 { h.doc as usize } else { 2 + h.doc as usize };
            let freq = bodies[g].split_whitespace().filter(|t| *t == term).count() as f32;
            let expect = lucene_f32(1.5, n, 5, sum_ttf, freq, lens[g]);
            assert_eq!(h.score, expect, "{term} doc {g}");
            let tb = textbook_f64(1.5, n, 5, sum_ttf, freq as f64, lens[g]);
            assert!((h.score as f64 - tb).abs() <= 1e-5 * tb, "{term} doc {g}: {} vs {tb}", h.score);
        }
    }
}

#[test]
fn explanation_tree_has_lucene_shape_and_values() {
    let docs = vec![doc("the quick brown fox", &[], &[]), doc("the lazy dog", &[], &[]), doc("fox", &[], &[])];
    let (s, _) = searcher(vec![ModelSegment::new(docs, &[], 4)]);
    let q = Query::Term { field: "body".into(), term: b"fox".to_vec(), boost: 1.0 };
    let e = s.explain(&q, 0, 0).unwrap();
    let score = s.search(&q, &all(10)).unwrap().hits.iter().find(|h| h.doc == 0).unwrap().score;
    assert_eq!(e.value, ExplValue::Float(score));
    assert_eq!(e.description, "weight(body:fox in 0) [PerFieldSimilarity], result of:");
    let sc = &e.details[0];
    assert_eq!(sc.description, "score(freq=1.0), computed as boost * idf * tf from:");
    assert_eq!(sc.details.len(), 2, "no boost node at boost 1");
    let idf_e = &sc.details[0];
    assert_eq!(idf_e.description, "idf, computed as log(1 + (N - n + 0.5) / (n + 0.5)) from:");
    assert_eq!(idf_e.value, ExplValue::Float(idf(2, 3)));
    assert_eq!(idf_e.details[0].value, ExplValue::Int(2));
    assert_eq!(idf_e.details[0].description, "n, number of documents containing term");
    assert_eq!(idf_e.details[1].value, ExplValue::Int(3));
    assert_eq!(idf_e.details[1].description, "N, total number of documents with field");
    let tf = &sc.details[1];
    assert_eq!(tf.description, "tf, computed as freq / (freq + k1 * (1 - b + b * dl / avgdl)) from:");
    let descs: Vec<&str> = tf.details.iter().map(|d| d.description.as_str()).collect();
    assert_eq!(
        descs,
        [
            "freq, occurrences of term within document",
            "k1, term saturation parameter",
            "b, length normalization parameter",
            "dl, length of field",
            "avgdl, average length of field"
        ]
    );
    assert_eq!(tf.details[3].value, ExplValue::Float(4.0));
    assert_eq!(tf.details[4].value, ExplValue::Float(8.0 / 3.0));
    // Bool: "sum of:" with the matching clauses; a missing required clause explains why.
    let b = Query::Bool {
        must: vec![Query::term("body", "fox")],
        should: vec![Query::term("body", "quick")],
        must_not: vec![],
        filter: vec![Query::term("body", "the")],
        minimum_should_match: 0,
        boost: 1.0,
    };
    let e = s.explain(&b, 0, 0).unwrap();
    assert_eq!(e.description, "sum of:");
    assert_eq!(e.value, ExplValue::Float(s.search(&b, &all(10)).unwrap().hits[0].score));
    assert_eq!(e.details[2].description, "match on required clause, product of:");
    let e = s.explain(&b, 0, 2).unwrap();
    assert!(!e.matched);
    assert_eq!(e.details.last().unwrap().description, "no match on required clause (body:the)");
    // Phrase freq.
    let p = Query::Phrase {
        field: "body".into(),
        terms: vec![(b"brown".to_vec(), 0), (b"fox".to_vec(), 1)],
        slop: 0,
        boost: 1.0,
    };
    let e = s.explain(&p, 0, 0).unwrap();
    assert_eq!(e.details[0].details[1].details[0].description, "phraseFreq=1.0");
    assert_eq!(e.details[0].details[0].description, "idf, sum of:");
}

// ---------------------------------------------------------------- phrases

#[test]
fn phrase_freqs() {
    let docs = vec![
        doc("a b c a b", &[], &[]), // "a b": 2 exact
        doc("b a", &[], &[]),       // reversed: slop 2
        doc("a x b", &[], &[]),     // slop 1
        doc("a x x x b", &[], &[]), // slop 3
    ];
    let (s, _) = searcher(vec![ModelSegment::new(docs, &[], 2)]);
    let phrase = |slop| Query::Phrase {
        field: "body".into(),
        terms: vec![(b"a".to_vec(), 0), (b"b".to_vec(), 1)],
        slop,
        boost: 1.0,
    };
    let docs_of = |q: &Query| {
        let mut d: Vec<DocId> = s.search(q, &all(10)).unwrap().hits.iter().map(|h| h.doc).collect();
        d.sort();
        d
    };
    assert_eq!(docs_of(&phrase(0)), [0]);
    assert_eq!(docs_of(&phrase(1)), [0, 2]);
    assert_eq!(docs_of(&phrase(2)), [0, 1, 2]);
    assert_eq!(docs_of(&phrase(3)), [0, 1, 2, 3]);
    let freq = |q: &Query, d: DocId| {
        s.explain(q, 0, d).unwrap().details[0].details.last().unwrap().details[0].description.clone()
    };
    assert_eq!(freq(&phrase(0), 0), "phraseFreq=2.0");
    // Doc 0 with slop 1: the two exact matches (1 each); "b c a" gives no extra match within 1.
    assert_eq!(freq(&phrase(1), 2), "phraseFreq=0.5");
    assert_eq!(freq(&phrase(3), 3), "phraseFreq=0.25");
    assert_eq!(freq(&phrase(2), 1), format!("phraseFreq={}", 1.0f32 / 3.0));
}

// ---------------------------------------------------------------- the oracle

const VOCAB: [&str; 8] = ["a", "ab", "abc", "b", "bc", "c", "cd", "d"];

fn field_terms<'a>(d: &'a MDoc, field: &str) -> Vec<&'a String> {
    d.text.iter().chain(d.keyword.iter()).filter(|(f, _)| f == field).flat_map(|(_, v)| v.iter()).collect()
}

fn is_text(field: &str) -> bool {
    field == "body"
}

fn naive_wildcard(p: &[char], t: &[char]) -> bool {
    match p.split_first() {
        None => t.is_empty(),
        Some(('*', rest)) => (0..=t.len()).any(|i| naive_wildcard(rest, &t[i..])),
        Some(('?', rest)) => !t.is_empty() && naive_wildcard(rest, &t[1..]),
        Some((c, rest)) => t.first() == Some(c) && naive_wildcard(rest, &t[1..]),
    }
}

struct Oracle<'a> {
    segs: &'a [Arc<ModelSegment>],
}

impl Oracle<'_> {
    fn all_docs(&self) -> impl Iterator<Item = &MDoc> {
        self.segs.iter().flat_map(|s| s.docs.iter())
    }

    /// (docFreq, docCount, sumTotalTermFreq) computed from the documents.
    fn stats(&self, field: &str, term: &str) -> (u64, u64, u64) {
        let (mut n, mut big_n, mut sum) = (0, 0, 0);
        for d in self.all_docs() {
            let ts = field_terms(d, field);
            if ts.is_empty() {
                continue;
            }
            big_n += 1;
            sum += if is_text(field) {
                ts.len() as u64
            } else {
                ts.iter().collect::<std::collections::BTreeSet<_>>().len() as u64
            };
            n += ts.iter().any(|t| *t == term) as u64;
        }
        (n, big_n, sum)
    }

    fn term_score(&self, d: &MDoc, field: &str, term: &str, boost: f32) -> Option<f32> {
        let ts = field_terms(d, field);
        let freq = ts.iter().filter(|t| **t == term).count();
        if freq == 0 {
            return None;
        }
        let (n, big_n, sum) = self.stats(field, term);
        if is_text(field) {
            Some(lucene_f32(boost, n, big_n, sum, freq as f32, ts.len() as u32))
        } else {
            // No norms: Lucene scores with norm byte 1 (length 1) and freq 1.
            Some(lucene_f32(boost, n, big_n, sum, 1.0, 1))
        }
    }

    fn matches_multi(&self, q: &Query, d: &MDoc) -> bool {
        match q {
            Query::Terms { field, terms, .. } => {
                field_terms(d, field).iter().any(|t| terms.contains(&t.as_bytes().to_vec()))
            }
            Query::Prefix { field, prefix, .. } => {
                field_terms(d, field).iter().any(|t| t.as_bytes().starts_with(prefix))
            }
            Query::Wildcard { field, pattern, .. } => {
                let p: Vec<char> = pattern.chars().collect();
                field_terms(d, field).iter().any(|t| naive_wildcard(&p, &t.chars().collect::<Vec<_>>()))
            }
            Query::Range { field, lo, hi, include_lo, include_hi, kind: RangeKind::Terms, .. } => {
                field_terms(d, field).iter().any(|t| {
                    let t = t.as_bytes();
                    let lo_ok = lo.as_deref().is_none_or(|l| t > l || (*include_lo && t == l));
                    let hi_ok = hi.as_deref().is_none_or(|h| t < h || (*include_hi && t == h));
                    lo_ok && hi_ok
                })
            }
            Query::Range { field, lo, hi, include_lo, include_hi, kind: RangeKind::Points, .. } => {
                d.long.iter().filter(|(f, _)| f == field).flat_map(|(_, v)| v.iter()).any(|&v| {
                    let k = long_key(v);
                    let lo_ok = lo.as_deref().is_none_or(|l| k.as_slice() > l || (*include_lo && k.as_slice() == l));
                    let hi_ok = hi.as_deref().is_none_or(|h| k.as_slice() < h || (*include_hi && k.as_slice() == h));
                    lo_ok && hi_ok
                })
            }
            Query::Exists { field, .. } => {
                !field_terms(d, field).is_empty() || d.long.iter().any(|(f, v)| f == field && !v.is_empty())
            }
            Query::DocValues { field, filter, .. } => {
                d.long
                    .iter()
                    .filter(|(f, _)| f == field)
                    .flat_map(|(_, v)| v.iter())
                    .any(|v| filter.matches_numeric(*v))
                    || d.keyword
                        .iter()
                        .filter(|(f, _)| f == field)
                        .flat_map(|(_, v)| v.iter())
                        .any(|t| filter.matches_bytes(t.as_bytes()))
            }
            _ => unreachable!("not a multi-term query"),
        }
    }

    /// The score of `d` for `q` (`None`: no match), mirroring Lucene's scorer structure for the
    /// float roundings of nested sums.
    fn score(&self, q: &Query, d: &MDoc, boost: f32) -> Option<f32> {
        match q {
            Query::Term { field, term, boost: b } => {
                self.term_score(d, field, std::str::from_utf8(term).unwrap(), boost * b)
            }
            Query::Phrase { field, terms, boost: b, .. } => {
                let toks = field_terms(d, field);
                let starts = (0..toks.len() as i64)
                    .filter(|&s| {
                        terms.iter().all(|(t, o)| toks.get((s + *o as i64) as usize).is_some_and(|x| x.as_bytes() == t))
                    })
                    .count();
                if starts == 0 {
                    return None;
                }
                if terms.len() == 1 {
                    return self.term_score(d, field, std::str::from_utf8(&terms[0].0).unwrap(), boost * b);
                }
                let mut idf_sum = 0f64;
                let (mut big_n, mut sum) = (0, 0);
                for (t, _) in terms {
                    let (n, bn, s) = self.stats(field, std::str::from_utf8(t).unwrap());
                    idf_sum += idf(n, bn) as f64;
                    (big_n, sum) = (bn, s);
                }
                let avgdl = (sum as f64 / big_n as f64) as f32;
                let inv = 1f32
                    / (1.2f32 * (0.25f32 + 0.75f32 * norm_to_length(length_to_norm(toks.len() as u32)) as f32 / avgdl));
                let w = boost * b * idf_sum as f32;
                Some(w - w / (1f32 + starts as f32 * inv))
            }
            Query::Bool { must, should, must_not, filter, minimum_should_match, boost: b } => {
                let bb = boost * b;
                let must = &super::tree::dedupe_clauses(must)[..];
                let should = &if *minimum_should_match <= 1 {
                    super::tree::dedupe_clauses(should)
                } else {
                    std::borrow::Cow::Borrowed(&should[..])
                }[..];
                let msm = *minimum_should_match as usize;
                if must.is_empty() && filter.is_empty() && should.is_empty() {
                    return None;
                }
                let mut req = Vec::new();
                for m in must {
                    req.push(self.score(m, d, bb)?);
                }
                for f in filter {
                    self.score(f, d, 1.0)?;
                }
                if must_not.iter().any(|m| self.score(m, d, 1.0).is_some()) {
                    return None;
                }
                let opt: Vec<f32> = should.iter().filter_map(|s| self.score(s, d, bb)).collect();
                let opt_sum = (!opt.is_empty()).then(|| opt.iter().map(|&x| x as f64).sum::<f64>() as f32);
                let required_empty = must.is_empty() && filter.is_empty();
                let msm_eff = if required_empty { msm.max(1) } else { msm };
                if opt.len() < msm_eff {
                    return None;
                }
                if required_empty {
                    return opt_sum;
                }
                if msm > 0 {
                    req.push(opt_sum.expect("msm > 0 matched"));
                }
                let req_score = req.iter().map(|&x| x as f64).sum::<f64>() as f32;
                match opt_sum {
                    Some(o) if msm == 0 => Some((req_score as f64 + o as f64) as f32),
                    _ => Some(req_score),
                }
            }
            Query::ConstantScore { query, boost: b } => self.score(query, d, 1.0).map(|_| boost * b),
            Query::MatchAll { boost: b } => Some(boost * b),
            Query::MatchNone => None,
            Query::Blended { .. }
            | Query::MultiPhrase { .. }
            | Query::Verified { .. }
            | Query::Intervals { .. }
            | Query::Spans { .. }
            | Query::DistanceFeature { .. }
            | Query::CombinedField { .. }
            | Query::Nested { .. } => {
                unreachable!(
                    "not generated (see blended/tests.rs, intervals/tests.rs, verified.rs, block_join_tests.rs)"
                )
            }
            Query::Boosting { positive, negative, negative_boost, boost: b } => {
                let p = self.score(positive, d, 1.0)? as f64;
                let f = if self.score(negative, d, 1.0).is_some() { p * *negative_boost as f64 } else { p };
                Some((f * (boost * b) as f64) as f32)
            }
            Query::FunctionScore { .. } => unreachable!("function_score is tested in function_score/tests.rs"),
            Query::DisMax { queries, tie_breaker, boost: b } => {
                let scores: Vec<f32> = queries.iter().filter_map(|c| self.score(c, d, boost * b)).collect();
                (!scores.is_empty()).then(|| super::dis_max::combine(scores.into_iter(), *tie_breaker))
            }
            Query::Terms { boost: b, .. }
            | Query::Prefix { boost: b, .. }
            | Query::Wildcard { boost: b, .. }
            | Query::Range { boost: b, .. }
            | Query::Exists { boost: b, .. }
            | Query::DocValues { boost: b, .. } => self.matches_multi(q, d).then_some(boost * b),
        }
    }

    /// All live matches as (score, segment, doc), best first.
    fn ranked(&self, q: &Query) -> Vec<(f32, usize, DocId)> {
        let mut out = Vec::new();
        for (si, s) in self.segs.iter().enumerate() {
            for (di, d) in s.docs.iter().enumerate() {
                if s.live[di] {
                    if let Some(sc) = self.score(q, d, 1.0) {
                        out.push((sc, si, di as DocId));
                    }
                }
            }
        }
        out.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)).then(a.2.cmp(&b.2)));
        out
    }
}

// ---------------------------------------------------------------- strategies

fn word() -> impl Strategy<Value = String> {
    prop::sample::select(VOCAB.to_vec()).prop_map(|s| s.to_string())
}

fn mdoc() -> impl Strategy<Value = MDoc> {
    (prop::collection::vec(word(), 0..8), prop::collection::vec(word(), 0..3), prop::collection::vec(-5i64..5, 0..3))
        .prop_map(|(body, tags, nums)| MDoc {
            text: vec![("body".into(), body)],
            keyword: vec![("tag".into(), tags)],
            long: vec![("num".into(), nums)],
        })
}

pub(super) fn corpus() -> impl Strategy<Value = Vec<ModelSegment>> {
    prop::collection::vec(
        (prop::collection::vec(mdoc(), 0..25), prop::collection::vec(0u32..25, 0..4), 1usize..5),
        1..4,
    )
    .prop_map(|segs| segs.into_iter().map(|(docs, del, block)| ModelSegment::new(docs, &del, block)).collect())
}

fn boost() -> impl Strategy<Value = f32> {
    prop::sample::select(vec![1.0f32, 1.0, 2.0, 0.5, 3.7])
}

fn field() -> impl Strategy<Value = String> {
    prop::sample::select(vec!["body", "tag"]).prop_map(|s| s.to_string())
}

fn key_bound() -> impl Strategy<Value = Option<Vec<u8>>> {
    prop::option::of((-6i64..6).prop_map(long_key))
}

fn leaf() -> impl Strategy<Value = Query> {
    prop_oneof![
        4 => (field(), word(), boost()).prop_map(|(field, t, boost)| Query::Term { field, term: t.into_bytes(), boost }),
        1 => (field(), prop::collection::vec(word(), 0..3), boost())
            .prop_map(|(field, ts, boost)| Query::Terms { field, terms: ts.into_iter().map(|t| t.into_bytes()).collect(), boost }),
        2 => (word(), word(), boost()).prop_map(|(a, b, boost)| Query::Phrase {
            field: "body".into(),
            terms: vec![(a.into_bytes(), 0), (b.into_bytes(), 1)],
            slop: 0,
            boost
        }),
        1 => (field(), prop::sample::select(vec!["a", "ab", "b", "c", "x", ""]), boost())
            .prop_map(|(field, p, boost)| Query::Prefix { field, prefix: p.as_bytes().to_vec(), boost }),
        1 => (field(), prop::sample::select(vec!["a*", "?b*", "*c", "a?c", "*", "?", "*b*"]), boost())
            .prop_map(|(field, p, boost)| Query::Wildcard { field, pattern: p.to_string(), boost }),
        1 => (field(), prop::option::of(word()), prop::option::of(word()), any::<bool>(), any::<bool>()).prop_map(|(field, lo, hi, il, ih)| Query::Range {
            field,
            lo: lo.map(String::into_bytes),
            hi: hi.map(String::into_bytes),
            include_lo: il,
            include_hi: ih,
            kind: RangeKind::Terms,
            boost: 1.0
        }),
        1 => (key_bound(), key_bound(), any::<bool>(), any::<bool>()).prop_map(|(lo, hi, il, ih)| Query::Range {
            field: "num".into(),
            lo,
            hi,
            include_lo: il,
            include_hi: ih,
            kind: RangeKind::Points,
            boost: 2.0
        }),
        1 => prop::sample::select(vec!["body", "tag", "num", "nope"]).prop_map(|f| Query::Exists { field: f.into(), boost: 1.0 }),
        1 => (-6i64..6, 0i64..4, -6i64..6, boost()).prop_map(|(lo, w, other, boost)| Query::DocValues {
            field: "num".into(),
            filter: DvFilter::Numeric(vec![(lo, lo + w), (other, other)]),
            boost
        }),
        1 => (word(), any::<bool>(), prop::option::of(word())).prop_map(|(t, prefix, hi)| Query::DocValues {
            field: "tag".into(),
            filter: DvFilter::Bytes(vec![
                if prefix { BytesMatch::Prefix(t.as_bytes()[..1].to_vec()) } else { BytesMatch::Exact(t.into_bytes()) },
                BytesMatch::Range { lo: None, hi: hi.map(String::into_bytes), include_lo: true, include_hi: false },
            ]),
            boost: 1.0
        }),
        1 => boost().prop_map(|boost| Query::MatchAll { boost }),
        1 => Just(Query::MatchNone),
    ]
}

pub(super) fn query() -> impl Strategy<Value = Query> {
    leaf().prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            4 => (
                prop::collection::vec(inner.clone(), 0..3),
                prop::collection::vec(inner.clone(), 0..4),
                prop::collection::vec(inner.clone(), 0..2),
                prop::collection::vec(inner.clone(), 0..2),
                0u32..3,
                boost()
            )
                .prop_map(|(must, should, must_not, filter, minimum_should_match, boost)| Query::Bool {
                    must,
                    should,
                    must_not,
                    filter,
                    minimum_should_match,
                    boost
                }),
            1 => (inner.clone(), boost()).prop_map(|(q, boost)| Query::ConstantScore { query: Box::new(q), boost }),
            1 => (prop::collection::vec(inner, 1..4), prop::sample::select(vec![0.0f32, 0.3, 1.0]), boost())
                .prop_map(|(queries, tie_breaker, boost)| Query::DisMax { queries, tie_breaker, boost }),
        ]
    })
}

/// Disjunctions and conjunctions of terms (where block-max pruning applies).
fn term_combo() -> impl Strategy<Value = Query> {
    let t =
        || (word(), boost()).prop_map(|(w, boost)| Query::Term { field: "body".into(), term: w.into_bytes(), boost });
    prop_oneof![
        prop::collection::vec(t(), 1..5).prop_map(Query::or),
        prop::collection::vec(t(), 1..4).prop_map(Query::and),
        t(),
        (prop::collection::vec(t(), 1..3), prop::collection::vec(t(), 1..3), prop::collection::vec(t(), 0..2))
            .prop_map(|(must, should, must_not)| Query::Bool {
                must,
                should,
                must_not,
                filter: vec![],
                minimum_should_match: 0,
                boost: 1.0
            }),
    ]
}

fn hits_of(top: &TopDocs) -> Vec<(f32, usize, DocId)> {
    top.hits.iter().map(|h| (h.score, h.segment, h.doc)).collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn every_query_type_matches_the_oracle(segs in corpus(), q in query()) {
        let (s, arcs) = searcher(segs);
        let oracle = Oracle { segs: &arcs };
        let expect = oracle.ranked(&q);
        let top = s.search(&q, &all(1000)).unwrap();
        prop_assert_eq!(top.total, (expect.len() as u64, Relation::Eq));
        prop_assert_eq!(hits_of(&top), expect.clone(), "query {}", q);
        prop_assert_eq!(s.count(&q).unwrap(), expect.len() as u64);
        prop_assert_eq!(top.max_score, expect.first().map(|e| e.0));
        // Explanations agree with the scores, and explain why other documents do not match.
        for &(score, seg, doc) in expect.iter().take(5) {
            let e = s.explain(&q, seg, doc).unwrap();
            prop_assert!(e.matched, "{}: {:?}", q, e);
            prop_assert_eq!(e.value, ExplValue::Float(score), "{}", q);
        }
        for (si, sg) in arcs.iter().enumerate() {
            for d in 0..sg.docs.len() as DocId {
                if sg.live[d as usize] && !expect.iter().any(|e| e.1 == si && e.2 == d) {
                    prop_assert!(!s.explain(&q, si, d).unwrap().matched, "{} doc {}/{}", q, si, d);
                }
            }
        }
    }

    #[test]
    fn block_max_top_k_equals_exhaustive_top_k(segs in corpus(), q in prop_oneof![term_combo(), query()], k in 1usize..6) {
        let (s, arcs) = searcher(segs);
        let exhaustive = s.search(&q, &TopSpec { size: k, track_total_hits: TrackTotalHits::Accurate, ..TopSpec::default() }).unwrap();
        let pruned = s.search(&q, &TopSpec { size: k, track_total_hits: TrackTotalHits::UpTo(0), ..TopSpec::default() }).unwrap();
        prop_assert_eq!(hits_of(&pruned), hits_of(&exhaustive), "query {}", q);
        let n = Oracle { segs: &arcs }.ranked(&q).len() as u64;
        prop_assert_eq!(pruned.total, if n > 0 { (0, Relation::Gte) } else { (0, Relation::Eq) });
        let up_to = s.search(&q, &TopSpec { size: k, track_total_hits: TrackTotalHits::UpTo(3), ..TopSpec::default() }).unwrap();
        prop_assert_eq!(up_to.total, if n > 3 { (3, Relation::Gte) } else { (n, Relation::Eq) });
        prop_assert_eq!(hits_of(&up_to), hits_of(&exhaustive));
    }

    #[test]
    fn paging_and_search_after_by_score(segs in corpus(), q in term_combo(), from in 0usize..4) {
        let (s, _) = searcher(segs);
        let full = hits_of(&s.search(&q, &all(1000)).unwrap());
        let page = s.search(&q, &TopSpec { from, size: 3, ..TopSpec::default() }).unwrap();
        let expect: Vec<_> = full.iter().skip(from).take(3).cloned().collect();
        prop_assert_eq!(hits_of(&page), expect);
        if let Some(&(score, _, _)) = full.first() {
            let after = s.search(&q, &TopSpec { after: Some(vec![SortValue::Float(score)]), ..all(1000) }).unwrap();
            let expect: Vec<_> = full.iter().filter(|h| h.0 < score).cloned().collect();
            prop_assert_eq!(hits_of(&after), expect);
        }
    }

    #[test]
    fn sort_by_doc_values(segs in corpus(), q in query(), asc in any::<bool>(), first in any::<bool>(), by_tag in any::<bool>(), size in 1usize..30) {
        let (s, arcs) = searcher(segs);
        let order = if asc { SortOrder::Asc } else { SortOrder::Desc };
        let missing = if first { Missing::First } else { Missing::Last };
        let by = if by_tag { SortBy::Keyword("tag".into()) } else { SortBy::Long("num".into()) };
        let sort = vec![SortField { by: by.clone(), order, missing, nested: None }, SortField { by: SortBy::Doc, order: SortOrder::Asc, missing: Missing::Last, nested: None }];
        let top = s.search(&q, &TopSpec { size, sort: sort.clone(), track_total_hits: TrackTotalHits::Accurate, ..TopSpec::default() }).unwrap();
        // The oracle: every match with its value (min ascending, max descending), then doc order.
        let oracle = Oracle { segs: &arcs };
        let mut expect: Vec<(Option<SortValue>, i64)> = Vec::new();
        let mut base = 0i64;
        for seg in arcs.iter() {
            for (di, d) in seg.docs.iter().enumerate() {
                if seg.live[di] && oracle.score(&q, d, 1.0).is_some() {
                    let v = if by_tag {
                        let mut vs: Vec<&String> = field_terms(d, "tag");
                        vs.sort();
                        let v = if asc { vs.first() } else { vs.last() };
                        v.map(|v| SortValue::Bytes(v.as_bytes().to_vec()))
                    } else {
                        let mut vs: Vec<i64> = d.long.iter().flat_map(|(_, v)| v.iter().copied()).collect();
                        vs.sort();
                        let v = if asc { vs.first() } else { vs.last() };
                        v.map(|&v| SortValue::Long(v))
                    };
                    expect.push((v, base + di as i64));
                }
            }
            base += seg.docs.len() as i64;
        }
        expect.sort_by(|a, b| {
            let o = match (&a.0, &b.0) {
                (None, None) => Ordering::Equal,
                (None, _) => if first { Ordering::Less } else { Ordering::Greater },
                (_, None) => if first { Ordering::Greater } else { Ordering::Less },
                (Some(x), Some(y)) => {
                    let o = match (x, y) {
                        (SortValue::Long(x), SortValue::Long(y)) => x.cmp(y),
                        (SortValue::Bytes(x), SortValue::Bytes(y)) => x.cmp(y),
                        _ => unreachable!(),
                    };
                    if asc { o } else { o.reverse() }
                }
            };
            o.then(a.1.cmp(&b.1))
        });
        let got: Vec<(Option<SortValue>, i64)> = top.hits.iter().map(|h| {
            let v = match &h.sort_values[0] { SortValue::Null => None, v => Some(v.clone()) };
            let SortValue::Long(d) = h.sort_values[1] else { panic!("doc sort value") };
            (v, d)
        }).collect();
        prop_assert_eq!(got, expect.iter().take(size).cloned().collect::<Vec<_>>());
        prop_assert_eq!(top.total, (expect.len() as u64, Relation::Eq));
        // search_after walks the same order page by page.
        let mut walked = Vec::new();
        let mut after = None;
        loop {
            let page = s.search(&q, &TopSpec { size: 2, sort: sort.clone(), after: after.clone(), ..TopSpec::default() }).unwrap();
            let Some(last) = page.hits.last() else { break };
            after = Some(last.sort_values.clone());
            walked.extend(page.hits.iter().map(|h| (h.segment, h.doc)));
            prop_assert!(walked.len() <= expect.len());
        }
        prop_assert_eq!(walked.len(), expect.len());
    }

    #[test]
    fn sloppy_phrases_match_like_a_window_search(segs in corpus(), words in prop::sample::subsequence(VOCAB.to_vec(), 3).prop_shuffle(), slop in 0u32..4) {
        let (a, b, c) = (words[0].to_string(), words[1].to_string(), words[2].to_string());
        let (s, arcs) = searcher(segs);
        let q = Query::Phrase { field: "body".into(), terms: vec![(a.clone().into_bytes(), 0), (b.clone().into_bytes(), 1), (c.clone().into_bytes(), 2)], slop, boost: 1.0 };
        let got: std::collections::BTreeSet<(usize, DocId)> = s.search(&q, &all(1000)).unwrap().hits.iter().map(|h| (h.segment, h.doc)).collect();
        let mut expect = std::collections::BTreeSet::new();
        for (si, seg) in arcs.iter().enumerate() {
            for (di, d) in seg.docs.iter().enumerate() {
                let toks = field_terms(d, "body");
                let pos = |w: &str, off: i64| toks.iter().enumerate().filter(|(_, t)| t.as_str() == w).map(|(p, _)| p as i64 - off).collect::<Vec<_>>();
                let (pa, pb, pc) = (pos(&a, 0), pos(&b, 1), pos(&c, 2));
                let hit = pa.iter().any(|x| pb.iter().any(|y| pc.iter().any(|z| {
                    let (lo, hi) = (x.min(y).min(z), x.max(y).max(z));
                    hi - lo <= slop as i64
                })));
                if hit && seg.live[di] {
                    expect.insert((si, di as DocId));
                }
            }
        }
        prop_assert_eq!(got, expect);
    }
}

// ---------------------------------------------------------------- totals, counts, errors

#[test]
fn totals_follow_track_total_hits() {
    let docs: Vec<MDoc> = (0..50).map(|i| doc(if i % 2 == 0 { "a b" } else { "a" }, &[], &[])).collect();
    let (s, _) = searcher(vec![ModelSegment::new(docs, &[3], 4)]);
    let q = Query::term("body", "a");
    let spec = |t| TopSpec { size: 5, track_total_hits: t, ..TopSpec::default() };
    assert_eq!(s.search(&q, &spec(TrackTotalHits::Accurate)).unwrap().total, (49, Relation::Eq));
    assert_eq!(s.search(&q, &spec(TrackTotalHits::UpTo(10))).unwrap().total, (10, Relation::Gte));
    assert_eq!(s.search(&q, &spec(TrackTotalHits::UpTo(49))).unwrap().total, (49, Relation::Eq));
    assert_eq!(s.search(&q, &spec(TrackTotalHits::UpTo(10_000))).unwrap().total, (49, Relation::Eq));
    assert_eq!(s.count(&q).unwrap(), 49);
    assert_eq!(s.count(&Query::MatchAll { boost: 1.0 }).unwrap(), 49);
    let huge = s.search(&q, &TopSpec { size: usize::MAX, from: 3, ..TopSpec::default() }).unwrap();
    assert_eq!(huge.hits.len(), 46);
    let sort = vec![SortField { by: SortBy::Doc, order: SortOrder::Desc, missing: Missing::Last, nested: None }];
    assert_eq!(s.search(&q, &TopSpec { size: usize::MAX, sort, ..TopSpec::default() }).unwrap().hits.len(), 49);
    let size0 = s.search(&q, &TopSpec { size: 0, ..TopSpec::default() }).unwrap();
    assert_eq!((size0.total, size0.hits.len()), ((49, Relation::Eq), 0));
}

#[test]
fn corrupt_postings_are_errors_never_short_results() {
    let docs: Vec<MDoc> = (0..40).map(|i| doc(if i % 3 == 0 { "a b" } else { "a c" }, &["x"], &[i])).collect();
    let queries = [
        Query::term("body", "a"),
        Query::or(vec![Query::term("body", "a"), Query::term("body", "b")]),
        Query::and(vec![Query::term("body", "b"), Query::term("body", "a")]),
        Query::Phrase {
            field: "body".into(),
            terms: vec![(b"a".to_vec(), 0), (b"b".to_vec(), 1)],
            slop: 1,
            boost: 1.0,
        },
        Query::Prefix { field: "body".into(), prefix: b"a".to_vec(), boost: 1.0 },
        Query::ConstantScore { query: Box::new(Query::term("body", "a")), boost: 1.0 },
    ];
    let (clean, _) = searcher(vec![ModelSegment::new(docs.clone(), &[1], 3)]);
    for fail_after in [0, 1, 5, 20] {
        let mut seg = ModelSegment::new(docs.clone(), &[1], 3);
        seg.fail = Some(("body".into(), b"a".to_vec(), fail_after));
        let (s, _) = searcher(vec![seg]);
        for q in &queries {
            let r = s.search(q, &TopSpec { size: 3, track_total_hits: TrackTotalHits::Accurate, ..TopSpec::default() });
            assert!(matches!(r, Err(ref e) if e.is_corruption()), "{q} after {fail_after}: {r:?}");
            // With pruning, a damaged block that is skipped is never read (as in Lucene): the
            // result is then an error or exactly the undamaged result.
            let spec = TopSpec { size: 3, track_total_hits: TrackTotalHits::UpTo(0), ..TopSpec::default() };
            match s.search(q, &spec) {
                Err(e) => assert!(e.is_corruption()),
                Ok(top) => {
                    assert_eq!(hits_of(&top), hits_of(&clean.search(q, &spec).unwrap()), "{q} after {fail_after}")
                }
            }
            let sorted = s.search(
                q,
                &TopSpec {
                    sort: vec![SortField {
                        by: SortBy::Long("num".into()),
                        order: SortOrder::Asc,
                        missing: Missing::Last,
                        nested: None,
                    }],
                    ..TopSpec::default()
                },
            );
            assert!(sorted.is_err(), "{q}");
            let c = s.count(&Query::Bool {
                must: vec![],
                should: vec![],
                must_not: vec![],
                filter: vec![q.clone()],
                minimum_should_match: 0,
                boost: 1.0,
            });
            assert!(c.is_err() || fail_after >= 40, "{q}");
        }
    }
}

#[test]
fn boolean_edge_cases() {
    let docs = vec![doc("a b", &["x"], &[1]), doc("b c", &["y"], &[2]), doc("c", &[], &[])];
    let (s, _) = searcher(vec![ModelSegment::new(docs, &[], 2)]);
    let only_not = Query::Bool {
        must: vec![],
        should: vec![],
        must_not: vec![Query::term("body", "a")],
        filter: vec![],
        minimum_should_match: 0,
        boost: 1.0,
    };
    assert_eq!(s.count(&only_not).unwrap(), 0, "a pure negative query matches nothing, as in Lucene");
    let filter_only = Query::Bool {
        must: vec![],
        should: vec![],
        must_not: vec![],
        filter: vec![Query::term("body", "b")],
        minimum_should_match: 0,
        boost: 1.0,
    };
    let top = s.search(&filter_only, &all(10)).unwrap();
    assert_eq!(top.hits.iter().map(|h| h.score).collect::<Vec<_>>(), [0.0, 0.0]);
    let msm = Query::Bool {
        must: vec![],
        should: vec![Query::term("body", "a"), Query::term("body", "b"), Query::term("body", "c")],
        must_not: vec![],
        filter: vec![],
        minimum_should_match: 2,
        boost: 1.0,
    };
    let mut d: Vec<DocId> = s.search(&msm, &all(10)).unwrap().hits.iter().map(|h| h.doc).collect();
    d.sort();
    assert_eq!(d, [0, 1]);
    let cs = Query::ConstantScore { query: Box::new(Query::term("body", "c")), boost: 2.5 };
    assert!(s.search(&cs, &all(10)).unwrap().hits.iter().all(|h| h.score == 2.5));
}

#[test]
fn block_max_pruning_scores_fewer_documents() {
    // "a" is common with low scores, "z" rare; short docs with "a" repeated score higher.
    let docs: Vec<MDoc> = (0..20_000)
        .map(|i| {
            // The best documents come first; later blocks cannot compete.
            let body = match i % 100 {
                0 if i < 2000 => "z a a a",
                7 if i < 2000 => "a a a a a",
                _ => "a b c d e f g h i j k l",
            };
            doc(body, &[], &[])
        })
        .collect();
    let (s, _arcs) = searcher(vec![ModelSegment::new(docs, &[], 128)]);
    let calls = |q: &Query, t| {
        super::scorer::SCORED.with(|c| c.set(0));
        let top = s.search(q, &TopSpec { size: 10, track_total_hits: t, ..TopSpec::default() }).unwrap();
        (super::scorer::SCORED.with(|c| c.get()), hits_of(&top))
    };
    for q in [
        Query::term("body", "a"),
        Query::or(vec![Query::term("body", "a"), Query::term("body", "z")]),
        Query::and(vec![Query::term("body", "a"), Query::term("body", "c")]),
    ] {
        let (all_calls, all_hits) = calls(&q, TrackTotalHits::Accurate);
        let (pruned_calls, pruned_hits) = calls(&q, TrackTotalHits::UpTo(1000));
        eprintln!("{q}: scored {pruned_calls} of {all_calls}");
        assert_eq!(all_hits, pruned_hits, "{q}");
        assert!(pruned_calls * 3 < all_calls, "{q}: {pruned_calls} vs {all_calls}");
    }
}

/// Blocks where the largest freq and the shortest length come from different docs: the loose
/// (max freq, min norm) bound reaches the top scores in every block, the competitive impacts
/// (Pareto set) do not, so term, OR and AND top-k skip almost every block.
#[test]
fn competitive_impacts_prune_where_block_max_cannot() {
    let docs: Vec<MDoc> = (0..20_000)
        .map(|i| {
            let body = if i < 10 {
                "a a a a b"
            } else if i % 2 == 0 {
                "a a a a b x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x"
            } else {
                "a b"
            };
            doc(body, &[], &[])
        })
        .collect();
    let (s, _arcs) = searcher(vec![ModelSegment::new(docs, &[], 128)]);
    let calls = |q: &Query, t| {
        super::scorer::SCORED.with(|c| c.set(0));
        let top = s.search(q, &TopSpec { size: 10, track_total_hits: t, ..TopSpec::default() }).unwrap();
        (super::scorer::SCORED.with(|c| c.get()), hits_of(&top))
    };
    for q in [
        Query::term("body", "a"),
        Query::or(vec![Query::term("body", "a"), Query::term("body", "b")]),
        Query::and(vec![Query::term("body", "a"), Query::term("body", "b")]),
    ] {
        let (all_calls, all_hits) = calls(&q, TrackTotalHits::Accurate);
        let (pruned_calls, pruned_hits) = calls(&q, TrackTotalHits::UpTo(10));
        eprintln!("{q}: scored {pruned_calls} of {all_calls}");
        assert_eq!(all_hits, pruned_hits, "{q}");
        assert!(pruned_calls * 10 < all_calls, "{q}: {pruned_calls} vs {all_calls}");
    }
}

/// Once the threshold passes the common clause's bounds, it is non-essential: only the rare
/// clause's docs are scored (the disjunction then jumps from one to the next when the common
/// clause's whole-term bound is below the threshold too).
#[test]
fn max_score_scores_only_essential_docs() {
    let docs: Vec<MDoc> = (0..20_000).map(|i| doc(if i % 1000 == 0 { "z b c" } else { "a b c" }, &[], &[])).collect();
    let (s, _arcs) = searcher(vec![ModelSegment::new(docs, &[], 128)]);
    let q = Query::or(vec![Query::term("body", "a"), Query::term("body", "z")]);
    super::scorer::SCORED.with(|c| c.set(0));
    let pruned =
        s.search(&q, &TopSpec { size: 10, track_total_hits: TrackTotalHits::UpTo(10), ..TopSpec::default() }).unwrap();
    let pruned_calls = super::scorer::SCORED.with(|c| c.get());
    let all =
        s.search(&q, &TopSpec { size: 10, track_total_hits: TrackTotalHits::Accurate, ..TopSpec::default() }).unwrap();
    assert_eq!(hits_of(&pruned), hits_of(&all));
    assert!(pruned_calls < 200, "scored {pruned_calls}");
}

/// Found by the proptest: in a MaxScore window whose essential clauses run out, the
/// non-essential clauses still have documents in later windows.
#[test]
fn max_score_continues_after_essential_clauses_run_out() {
    let bodies = [
        "b a ab",
        "d b cd bc abc",
        "abc b d abc a",
        "bc ab cd abc",
        "cd c b b",
        "",
        "c b c abc c a",
        "",
        "abc",
        "c cd b a cd d cd",
        "c d",
        "bc abc bc b",
    ];
    let seg = ModelSegment::new(bodies.iter().map(|b| doc(b, &[], &[])).collect(), &[], 3);
    let views: Vec<&dyn SegmentView> = vec![&seg];
    let q = Query::or(vec![Query::term("body", "cd"), Query::term("body", "ab"), Query::term("body", "d")]);
    let w = Weight::compile(&q, &views, 1.0, true).unwrap();
    let run = |min: f32| {
        let mut sc = w.scorer(&seg).unwrap().unwrap();
        let mut out = vec![];
        let mut d = sc.doc();
        while d != crate::engine::segment::NO_MORE_DOCS {
            let s = sc.score();
            if s >= min {
                out.push((d, s));
            }
            sc.set_min_competitive_score(min);
            d = sc.next();
        }
        out
    };
    let all = run(0.0);
    assert_eq!(run(0.8), all.iter().filter(|x| x.1 >= 0.8).cloned().collect::<Vec<_>>());
    assert!(run(0.8).iter().any(|x| x.0 == 9));
}

#[test]
fn sloppy_phrase_with_repeated_terms_never_reuses_a_position() {
    let docs = vec![doc("a", &[], &[]), doc("a b a", &[], &[]), doc("a a", &[], &[]), doc("a b c a", &[], &[])];
    let (s, _) = searcher(vec![ModelSegment::new(docs, &[], 2)]);
    let q = |slop| Query::Phrase {
        field: "body".into(),
        terms: vec![(b"a".to_vec(), 0), (b"a".to_vec(), 1)],
        slop,
        boost: 1.0,
    };
    let freqs = |q: &Query| -> Vec<(DocId, String)> {
        let mut hits: Vec<DocId> = s.search(q, &all(10)).unwrap().hits.iter().map(|h| h.doc).collect();
        hits.sort();
        hits.into_iter()
            .map(|d| (d, s.explain(q, 0, d).unwrap().details[0].details.last().unwrap().details[0].description.clone()))
            .collect()
    };
    assert_eq!(freqs(&q(0)), [(2, "phraseFreq=1.0".to_string())]);
    assert_eq!(freqs(&q(1)), [(1, "phraseFreq=0.5".to_string()), (2, "phraseFreq=1.0".to_string())]);
    assert_eq!(
        freqs(&q(2)),
        [
            (1, "phraseFreq=0.5".to_string()),
            (2, "phraseFreq=1.0".to_string()),
            (3, format!("phraseFreq={}", 1.0f32 / 3.0))
        ]
    );
}

#[test]
fn duplicate_clauses_are_merged_like_lucene() {
    let t = |b: f32| Query::Term { field: "body".into(), term: b"a".to_vec(), boost: b };
    let clauses = [t(0.5), Query::term("body", "b"), t(3.7)];
    let merged = super::tree::dedupe_clauses(&clauses);
    assert_eq!(&merged[..], [t((0.5f64 + 3.7f32 as f64) as f32), Query::term("body", "b")]);
    let distinct = [t(1.0), Query::term("body", "b")];
    assert!(matches!(super::tree::dedupe_clauses(&distinct), std::borrow::Cow::Borrowed(_)));
    let (s, _) = searcher(vec![ModelSegment::new(vec![doc("a b", &[], &[]), doc("c", &[], &[])], &[], 2)]);
    let dup = s.search(&Query::or(vec![t(0.5), t(3.7)]), &all(10)).unwrap();
    let one = s.search(&t((0.5f64 + 3.7f32 as f64) as f32), &all(10)).unwrap();
    assert_eq!(hits_of(&dup), hits_of(&one));
}

#[test]
fn queries_display_like_lucene() {
    let p = Query::Phrase {
        field: "body".into(),
        terms: vec![(b"a".to_vec(), 0), (b"b".to_vec(), 2), (b"c".to_vec(), 2)],
        slop: 1,
        boost: 1.0,
    };
    assert_eq!(p.to_string(), "body:\"a ? b|c\"~1");
    let b = Query::Bool {
        must: vec![Query::term("f", "x")],
        should: vec![Query::term("f", "y")],
        must_not: vec![Query::term("f", "z")],
        filter: vec![Query::MatchAll { boost: 1.0 }],
        minimum_should_match: 0,
        boost: 1.0,
    };
    assert_eq!(b.to_string(), "+f:x -f:z f:y #*:*");
    let nested = Query::Bool {
        must: vec![],
        should: vec![b, Query::term("f", "w")],
        must_not: vec![],
        filter: vec![],
        minimum_should_match: 1,
        boost: 1.0,
    };
    assert_eq!(nested.to_string(), "((+f:x -f:z f:y #*:*) f:w)~1");
}

#[test]
#[ignore = "prints the explanation tree documented in bm25.rs"]
fn print_explanation() {
    let docs = vec![doc("the quick brown fox", &[], &[]), doc("the lazy dog", &[], &[]), doc("fox", &[], &[])];
    let (s, _) = searcher(vec![ModelSegment::new(docs, &[], 4)]);
    let q = Query::Term { field: "body".into(), term: b"fox".to_vec(), boost: 2.0 };
    fn show(e: &Explanation, depth: usize) {
        eprintln!("{}{:?} {}", "  ".repeat(depth), e.value, e.description);
        for d in &e.details {
            show(d, depth + 1);
        }
    }
    show(&s.explain(&q, 0, 0).unwrap(), 0);
}

#[test]
fn keys_and_sortable_doubles() {
    use super::multi_term::{key_predecessor, key_successor};
    use super::sort::{double_to_sortable_long, sortable_long_to_double};
    assert_eq!(key_successor(&[0x00, 0xFF]), Some(vec![0x01, 0x00]));
    assert_eq!(key_successor(&[0xFF, 0xFF]), None);
    assert_eq!(key_predecessor(&[0x01, 0x00]), Some(vec![0x00, 0xFF]));
    assert_eq!(key_predecessor(&[0x00, 0x00]), None);
    let vals = [f64::NEG_INFINITY, -1e300, -1.5, -0.0, 0.0, 1e-300, 2.5, f64::INFINITY];
    for w in vals.windows(2) {
        assert!(double_to_sortable_long(w[0]) < double_to_sortable_long(w[1]), "{w:?}");
    }
    for v in vals {
        assert_eq!(sortable_long_to_double(double_to_sortable_long(v)).to_bits(), v.to_bits());
    }
    // An exclusive bound at the end of the key space matches nothing.
    let (s, _) =
        searcher(vec![ModelSegment::new(vec![doc("a", &[], &[i64::MAX]), doc("b", &[], &[i64::MIN])], &[], 2)]);
    let r = |lo: Option<i64>, hi: Option<i64>, il: bool, ih: bool| {
        let q = Query::Range {
            field: "num".into(),
            lo: lo.map(long_key),
            hi: hi.map(long_key),
            include_lo: il,
            include_hi: ih,
            kind: RangeKind::Points,
            boost: 1.0,
        };
        s.count(&q).unwrap()
    };
    assert_eq!(r(Some(i64::MAX), None, false, true), 0);
    assert_eq!(r(Some(i64::MAX), None, true, true), 1);
    assert_eq!(r(None, Some(i64::MIN), true, false), 0);
    assert_eq!(r(None, None, true, true), 2);
    assert_eq!(r(Some(5), Some(-5), true, true), 0);
}

#[test]
fn sort_by_field_then_score_and_doubles() {
    let d = |body: &str, n: f64| MDoc {
        long: vec![("price".into(), vec![super::sort::double_to_sortable_long(n)])],
        ..doc(body, &[], &[])
    };
    let docs = vec![d("a", 2.5), d("a a", 2.5), d("a b c", -1.0), doc("a", &[], &[])];
    let (s, _) = searcher(vec![ModelSegment::new(docs, &[], 2)]);
    let sort = vec![
        SortField { by: SortBy::Double("price".into()), order: SortOrder::Desc, missing: Missing::First, nested: None },
        SortField::score(),
    ];
    let top = s.search(&Query::term("body", "a"), &TopSpec { sort, ..TopSpec::default() }).unwrap();
    let order: Vec<DocId> = top.hits.iter().map(|h| h.doc).collect();
    assert_eq!(order, [3, 1, 0, 2], "missing first, then price desc, then score desc");
    assert_eq!(top.hits[1].sort_values[0], SortValue::Double(2.5));
    assert_eq!(top.hits[0].sort_values[0], SortValue::Null);
    assert!(top.hits[1].score > top.hits[2].score);
    assert_eq!(top.max_score, Some(top.hits[1].score.max(top.hits[0].score)));
}

proptest! {
    #![proptest_config(ProptestConfig { failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn wildcards_match_like_a_naive_matcher(p in "[ab?*]{0,6}", t in "[ab]{0,6}") {
        use super::multi_term::{parse_wildcard, wildcard_matches};
        let pc: Vec<char> = p.chars().collect();
        let tc: Vec<char> = t.chars().collect();
        prop_assert_eq!(wildcard_matches(&parse_wildcard(&p), &t), naive_wildcard(&pc, &tc));
    }
}

proptest! {
    #![proptest_config(ProptestConfig { failure_persistence: None, ..ProptestConfig::default() })]

    /// A scroll's pages (each the top `size` after the previous page's last hit: its sort values
    /// plus `after_doc`) are the full ranking cut in pieces, ties included.
    #[test]
    fn search_after_with_doc_pages_through_ties(segs in corpus(), q in query(), size in 1usize..4, by_tag in any::<bool>()) {
        let (s, _) = searcher(segs);
        let sort = if by_tag { vec![SortField { by: SortBy::Keyword("tag".into()), order: SortOrder::Asc, missing: Missing::Last, nested: None }] } else { vec![] };
        let base = TopSpec { sort: sort.clone(), track_total_hits: TrackTotalHits::Accurate, ..TopSpec::default() };
        let key = |t: &TopDocs| t.hits.iter().map(|h| (h.segment, h.doc)).collect::<Vec<_>>();
        let full = key(&s.search(&q, &TopSpec { size: 1000, ..base.clone() }).unwrap());
        let mut paged = Vec::new();
        let mut spec = TopSpec { size, ..base.clone() };
        for _ in 0..200 {
            let page = s.search(&q, &spec).unwrap();
            let Some(last) = page.hits.last() else { break };
            spec.after = Some(if sort.is_empty() { vec![SortValue::Float(last.score)] } else { last.sort_values.clone() });
            spec.after_doc = Some((last.segment, last.doc));
            paged.extend(key(&page));
        }
        prop_assert_eq!(paged, full);
    }
}

/// A deadline already past stops collection within [`DEADLINE_CHECK_EVERY`] docs: partial hits,
/// `timed_out`, by score (term, disjunction, generic scorer) and by field.
#[test]
fn deadline_stops_collection_inside_a_segment() {
    let n = 3 * super::searcher::DEADLINE_CHECK_EVERY as usize;
    let docs: Vec<MDoc> = (0..n).map(|i| doc(if i % 2 == 0 { "a b" } else { "a c" }, &["t"], &[i as i64])).collect();
    let (s, _) = searcher(vec![ModelSegment::new(docs, &[], 128)]);
    let past = Some(std::time::Instant::now());
    let queries = [
        Query::term("body", "a"),
        Query::or(vec![Query::term("body", "b"), Query::term("body", "c")]),
        Query::MatchAll { boost: 1.0 },
    ];
    for q in &queries {
        let spec =
            TopSpec { size: 5, track_total_hits: TrackTotalHits::Accurate, deadline: past, ..TopSpec::default() };
        let top = s.search(q, &spec).unwrap();
        assert!(top.timed_out, "{q}");
        assert_eq!(top.hits.len(), 5, "{q}: the hits collected before the deadline");
        assert!(top.total.0 < n as u64, "{q}: {:?}", top.total);
        let untimed = s.search(q, &TopSpec { deadline: None, ..spec }).unwrap();
        assert!(!untimed.timed_out);
        assert_eq!(untimed.total.0, n as u64);
    }
    let by_num = vec![SortField {
        by: SortBy::Long("num".into()),
        order: SortOrder::Desc,
        missing: Missing::Last,
        nested: None,
    }];
    let top = s
        .search(
            &Query::MatchAll { boost: 1.0 },
            &TopSpec {
                size: 3,
                sort: by_num,
                track_total_hits: TrackTotalHits::Accurate,
                deadline: past,
                ..TopSpec::default()
            },
        )
        .unwrap();
    assert!(top.timed_out);
    assert_eq!(top.hits.len(), 3);
    assert!(top.total.0 < n as u64);
}

#[path = "real_segments_tests.rs"]
mod real_segments;

#[test]
fn count_min_score_counts_every_live_match_at_or_above_the_minimum() {
    let bodies = ["fox", "fox fox", "fox fox fox", "a fox", "the quick brown fox jumps", "dog", "fox dog fox"];
    let segs = vec![
        ModelSegment::new(bodies.iter().map(|b| doc(b, &[], &[])).collect(), &[1], 2),
        ModelSegment::new(bodies.iter().rev().map(|b| doc(b, &[], &[])).collect(), &[], 3),
    ];
    let (s, _) = searcher(segs);
    let q = Query::Term { field: "body".into(), term: b"fox".to_vec(), boost: 1.0 };
    let scores: Vec<f32> = s.search(&q, &all(100)).unwrap().hits.iter().map(|h| h.score).collect();
    assert_eq!(scores.len(), 11, "six live docs with fox in one segment, six in the other, one deleted");
    for min in [0.0f32, 0.1, scores[5], scores[0], scores[0] + 1.0] {
        let naive = scores.iter().filter(|&&x| x >= min).count() as u64;
        assert_eq!(s.count_min_score(&q, min).unwrap(), naive, "min {min}");
    }
}
