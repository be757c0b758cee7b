//! `boosting` and `function_score` against their Java arithmetic recomputed from the plain
//! sub-query scores.

use std::collections::HashMap;
use std::sync::Arc;

use proptest::prelude::*;

use super::*;
use crate::engine::query::model::{MDoc, ModelSegment};
use crate::engine::query::{Searcher, TopSpec, TrackTotalHits};

fn doc(body: &str, tags: &[&str], nums: &[i64]) -> MDoc {
    MDoc {
        text: vec![("body".into(), body.split_whitespace().map(str::to_string).collect())],
        keyword: vec![("tag".into(), tags.iter().map(|t| t.to_string()).collect())],
        long: vec![("num".into(), nums.to_vec())],
    }
}

fn corpus() -> Searcher {
    let s1 = ModelSegment::new(
        vec![
            doc("quick brown fox", &["a"], &[3]),
            doc("lazy fox dog", &["b"], &[10, 1]),
            doc("fox fox jumps", &[], &[]),
        ],
        &[],
        2,
    );
    let s2 = ModelSegment::new(vec![doc("the lazy dog", &["a"], &[7]), doc("fox and lazy cat", &["c"], &[0])], &[], 2);
    let views: Vec<Arc<dyn SegmentView>> = vec![Arc::new(s1), Arc::new(s2)];
    Searcher::new(views)
}

fn all() -> TopSpec {
    TopSpec { size: 100, track_total_hits: TrackTotalHits::Accurate, ..TopSpec::default() }
}

/// Scores by (segment, doc).
fn scores(s: &Searcher, q: &Query) -> HashMap<(usize, u32), f32> {
    s.search(q, &all()).expect("search").hits.iter().map(|h| ((h.segment, h.doc), h.score)).collect()
}

fn fox() -> Query {
    Query::term("body", "fox")
}

fn fs(functions: Vec<FilterFunction>, score_mode: ScoreMode, boost_mode: CombineMode) -> FunctionScore {
    FunctionScore { query: fox(), functions, score_mode, boost_mode, max_boost: f32::MAX, min_score: None }
}

fn weight(filter: Option<Query>, w: f32) -> FilterFunction {
    FilterFunction { filter, function: ScoreFunction::One, weight: Some(w) }
}

#[test]
fn boosting_demotes_negative_matches() {
    let s = corpus();
    let base = scores(&s, &fox());
    let lazy = scores(&s, &Query::term("body", "lazy"));
    let q = Query::Boosting {
        positive: Box::new(fox()),
        negative: Box::new(Query::term("body", "lazy")),
        negative_boost: 0.2,
        boost: 3.0,
    };
    let got = scores(&s, &q);
    assert_eq!(got.len(), base.len());
    for (k, b) in &base {
        let f = if lazy.contains_key(k) { *b as f64 * 0.2f32 as f64 } else { *b as f64 };
        assert_eq!(got[k], (f * 3.0) as f32, "{k:?}");
    }
    // Only matches count: the negative query alone adds nothing.
    assert_eq!(s.count(&q).expect("count"), base.len() as u64);
}

#[test]
fn weight_and_boost_modes() {
    let s = corpus();
    let base = scores(&s, &fox());
    for (mode, f) in [
        (CombineMode::Multiply, (|q: f64, w: f64| q * w) as fn(f64, f64) -> f64),
        (CombineMode::Replace, |_q, w| w),
        (CombineMode::Sum, |q, w| q + w),
        (CombineMode::Avg, |q, w| (q + w) / 2.0),
        (CombineMode::Max, |q, w| q.max(w)),
        (CombineMode::Min, |q, w| q.min(w)),
    ] {
        let q =
            Query::FunctionScore { spec: Box::new(fs(vec![weight(None, 0.7)], ScoreMode::Multiply, mode)), boost: 1.0 };
        let got = scores(&s, &q);
        for (k, b) in &base {
            assert_eq!(got[k], f(*b as f64, 0.7f32 as f64) as f32, "{mode:?} {k:?}");
        }
    }
}

#[test]
fn field_value_factor_with_modifier_missing_and_error() {
    let s = corpus();
    let base = scores(&s, &fox());
    let fvf = |missing| FilterFunction {
        filter: None,
        function: ScoreFunction::FieldValueFactor {
            field: "num".into(),
            doubles: false,
            has_column: true,
            factor: 1.5,
            modifier: Modifier::Log1p,
            missing,
        },
        weight: None,
    };
    let q = Query::FunctionScore {
        spec: Box::new(fs(vec![fvf(Some(2.0))], ScoreMode::Multiply, CombineMode::Multiply)),
        boost: 1.0,
    };
    let got = scores(&s, &q);
    // Multi-valued docs use their smallest value.
    let nums: HashMap<(usize, u32), f64> =
        [((0, 0), 3.0), ((0, 1), 1.0), ((0, 2), 2.0), ((1, 1), 0.0)].into_iter().collect();
    for (k, b) in &base {
        let f = (nums[k] * 1.5f32 as f64 + 1.0).log10();
        assert_eq!(got[k], (*b as f64 * f) as f32, "{k:?}");
    }
    let q = Query::FunctionScore {
        spec: Box::new(fs(vec![fvf(None)], ScoreMode::Multiply, CombineMode::Multiply)),
        boost: 1.0,
    };
    let err = s.search(&q, &all()).expect_err("doc without value");
    assert!(format!("{err}").contains("Missing value for field [num]"), "{err}");
}

#[test]
fn score_modes_over_filtered_functions() {
    let s = corpus();
    let base = scores(&s, &fox());
    let a = || Some(Query::term("tag", "a"));
    let lazy = || Some(Query::term("body", "lazy"));
    let in_a: Vec<(usize, u32)> = vec![(0, 0)];
    let in_lazy: Vec<(usize, u32)> = vec![(0, 1), (1, 1)];
    let fns = || vec![weight(a(), 2.0), weight(lazy(), 5.0), weight(None, 3.0)];
    let cases: [(ScoreMode, fn(&[f64]) -> f64); 6] = [
        (ScoreMode::Multiply, |v| v.iter().product()),
        (ScoreMode::Sum, |v| v.iter().sum()),
        (ScoreMode::Avg, |v| v.iter().sum::<f64>() / v.iter().sum::<f64>()),
        (ScoreMode::First, |v| v[0]),
        (ScoreMode::Max, |v| v.iter().cloned().fold(f64::MIN, f64::max)),
        (ScoreMode::Min, |v| v.iter().cloned().fold(f64::MAX, f64::min)),
    ];
    for (mode, f) in cases {
        let q = Query::FunctionScore { spec: Box::new(fs(fns(), mode, CombineMode::Multiply)), boost: 2.0 };
        let got = scores(&s, &q);
        for (k, b) in &base {
            let mut vals = vec![];
            if in_a.contains(k) {
                vals.push(2.0);
            }
            if in_lazy.contains(k) {
                vals.push(5.0);
            }
            vals.push(3.0);
            let boosted = scores(&s, &Query::Term { field: "body".into(), term: b"fox".to_vec(), boost: 2.0 })[k];
            let _ = b;
            assert_eq!(got[k], (boosted as f64 * f(&vals)) as f32, "{mode:?} {k:?}");
        }
    }
}

#[test]
fn min_score_and_max_boost() {
    let s = corpus();
    let base = scores(&s, &fox());
    let mut spec = fs(vec![weight(Some(Query::term("tag", "a")), 10.0)], ScoreMode::Multiply, CombineMode::Replace);
    spec.max_boost = 4.0;
    spec.min_score = Some(2.0);
    let q = Query::FunctionScore { spec: Box::new(spec), boost: 1.0 };
    let got = scores(&s, &q);
    // Only doc (0,0) has tag a: factor min(10, 4) = 4; the others get 1 < min_score.
    assert_eq!(got.len(), 1);
    assert_eq!(got[&(0, 0)], 4.0);
    assert_eq!(s.count(&q).expect("count"), 1);
    assert!(base.len() > 1);
}

#[test]
fn hashes_match_java() {
    assert_eq!(murmurhash3_x86_32(b"", 0), 0);
    assert_eq!(murmurhash3_x86_32(b"hello", 0), 613_153_351);
    assert_eq!(java_string_hash("hello"), 99_162_322);
    assert_eq!(mix32(0), 0);
}

#[test]
fn random_score_is_stable_and_in_unit_interval() {
    let s = corpus();
    for source in [RandomSource::DocId, RandomSource::Keyword("tag".into()), RandomSource::Long("num".into())] {
        let f = FilterFunction {
            filter: None,
            function: ScoreFunction::Random { salted_seed: mix32(42), source: source.clone() },
            weight: None,
        };
        let q =
            Query::FunctionScore { spec: Box::new(fs(vec![f], ScoreMode::Multiply, CombineMode::Replace)), boost: 1.0 };
        let a = scores(&s, &q);
        assert_eq!(a, scores(&s, &q), "{source:?}");
        assert!(a.values().all(|v| (0.0..1.0).contains(v)), "{source:?} {a:?}");
    }
}

proptest! {
    #[test]
    fn combine_follows_java(q in 0f32..100.0, f in 0f64..100.0, mb in 0.5f32..200.0) {
        let c = f.min(mb as f64);
        prop_assert_eq!(CombineMode::Multiply.combine(q, f, mb), (q as f64 * c) as f32);
        prop_assert_eq!(CombineMode::Sum.combine(q, f, mb), (q as f64 + c) as f32);
        prop_assert!(CombineMode::Replace.combine(q, f, mb) <= mb);
    }
}
