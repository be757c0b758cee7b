//! Interval iterators against a brute-force model: every choice of sub-intervals enumerated,
//! the minimal ones kept (Lucene's minimal-interval semantics), filters checked pair by pair.

use std::collections::BTreeSet;

use proptest::prelude::*;

use super::iter::{build, Leaves, NO_MORE};
use super::scorer::{saturation, IntervalScorer};
use super::*;
use crate::engine::query::model::{MDoc, ModelSegment};
use crate::engine::query::scorer::Scorer;
use crate::engine::segment::NO_MORE_DOCS;

const F: &str = "f";

fn t(s: &str) -> Source {
    term(F, s.as_bytes())
}

/// The intervals the iterator of `src` yields over `doc`'s tokens.
fn run(src: &Source, doc: &[&str]) -> Vec<(i32, i32)> {
    let mut terms: Vec<Vec<u8>> = Vec::new();
    let mut root = build(src, &mut |_, tm| {
        terms.push(tm.to_vec());
        terms.len() - 1
    });
    let positions = terms
        .iter()
        .map(|tm| doc.iter().enumerate().filter(|(_, w)| w.as_bytes() == &tm[..]).map(|(p, _)| p as u32).collect())
        .collect();
    let lv = Leaves { positions };
    root.reset(&lv);
    let mut out = Vec::new();
    while root.next_interval(&lv) != NO_MORE {
        out.push((root.start(), root.end()));
        assert!(out.len() < 10_000, "runaway iterator");
    }
    out
}

/// Drops intervals containing another one.
fn minimal(v: Vec<(i32, i32)>) -> BTreeSet<(i32, i32)> {
    let all: BTreeSet<(i32, i32)> = v.into_iter().collect();
    all.iter()
        .copied()
        .filter(|&(s, e)| !all.iter().any(|&(s2, e2)| (s2, e2) != (s, e) && s <= s2 && e2 <= e))
        .collect()
}

/// Every choice of one interval per sub-source, in order.
fn choices(subs: &[Vec<(i32, i32)>]) -> Vec<Vec<(i32, i32)>> {
    let mut out: Vec<Vec<(i32, i32)>> = vec![vec![]];
    for s in subs {
        let mut next = Vec::new();
        for prefix in &out {
            for &i in s {
                let mut p = prefix.clone();
                p.push(i);
                next.push(p);
            }
        }
        out = next;
    }
    out
}

/// Shapes the model knows (sub-sources of combinations are terms).
#[derive(Debug, Clone)]
enum Shape {
    Term(&'static str),
    Ordered(Vec<&'static str>, Option<i32>),
    Unordered(Vec<&'static str>, Option<i32>),
    Phrase(Vec<&'static str>),
}

impl Shape {
    fn source(&self) -> Source {
        let ts = |v: &[&str]| v.iter().map(|x| t(x)).collect::<Vec<_>>();
        match self {
            Shape::Term(x) => t(x),
            Shape::Ordered(v, g) => {
                let s = ordered(ts(v));
                match g {
                    Some(g) => max_gaps(*g, s).unwrap(),
                    None => s,
                }
            }
            Shape::Unordered(v, g) => {
                let s = unordered(ts(v));
                match g {
                    Some(g) => max_gaps(*g, s).unwrap(),
                    None => s,
                }
            }
            Shape::Phrase(v) => phrase(ts(v)).unwrap(),
        }
    }

    /// The model's intervals.
    fn model(&self, doc: &[&str]) -> BTreeSet<(i32, i32)> {
        let pos = |x: &str| {
            doc.iter().enumerate().filter(|(_, w)| **w == x).map(|(p, _)| (p as i32, p as i32)).collect::<Vec<_>>()
        };
        let subs = |v: &[&str]| v.iter().map(|x| pos(x)).collect::<Vec<_>>();
        match self {
            Shape::Term(x) => pos(x).into_iter().collect(),
            Shape::Ordered(v, g) => {
                let found = choices(&subs(v))
                    .into_iter()
                    .filter(|c| c.windows(2).all(|w| w[0].1 < w[1].0))
                    .map(|c| (c[0].0, c[c.len() - 1].1))
                    .collect();
                let n = v.len() as i32;
                minimal(found).into_iter().filter(|(s, e)| g.is_none_or(|g| e - s + 1 - n <= g)).collect()
            }
            Shape::Unordered(v, g) => {
                // Repeated terms take distinct positions.
                let found = choices(&subs(v))
                    .into_iter()
                    .filter(|c| c.iter().collect::<BTreeSet<_>>().len() == c.len())
                    .map(|c| (c.iter().map(|i| i.0).min().unwrap(), c.iter().map(|i| i.1).max().unwrap()))
                    .collect();
                let n = v.len() as i32;
                minimal(found).into_iter().filter(|(s, e)| g.is_none_or(|g| e - s + 1 - n <= g)).collect()
            }
            Shape::Phrase(v) => choices(&subs(v))
                .into_iter()
                .filter(|c| c.windows(2).all(|w| w[0].1 + 1 == w[1].0))
                .map(|c| (c[0].0, c[c.len() - 1].1))
                .collect(),
        }
    }
}

const WORDS: [&str; 4] = ["a", "b", "c", "d"];

fn word() -> impl Strategy<Value = &'static str> {
    prop::sample::select(&WORDS[..])
}

fn shape() -> impl Strategy<Value = Shape> {
    let gaps = prop::option::of(0i32..3);
    prop_oneof![
        word().prop_map(Shape::Term),
        (prop::collection::vec(word(), 2..4), gaps.clone()).prop_map(|(v, g)| Shape::Ordered(v, g)),
        (prop::collection::vec(word(), 2..4), gaps).prop_map(|(v, g)| Shape::Unordered(v, g)),
        prop::collection::vec(word(), 2..4).prop_map(Shape::Phrase),
    ]
}

fn doc() -> impl Strategy<Value = Vec<&'static str>> {
    prop::collection::vec(word(), 0..12)
}

/// A filter of `a` by `b` in the model.
fn filtered(kind: usize, a: &BTreeSet<(i32, i32)>, b: &BTreeSet<(i32, i32)>) -> BTreeSet<(i32, i32)> {
    let any = |f: &dyn Fn((i32, i32), (i32, i32)) -> bool, x: (i32, i32)| b.iter().any(|&y| f(x, y));
    a.iter()
        .copied()
        .filter(|&x| match kind {
            0 => any(&|x, y| x.0 <= y.0 && y.1 <= x.1, x),
            1 => any(&|x, y| y.0 <= x.0 && x.1 <= y.1, x),
            // Lucene's `NotContainingIterator` judges only the first interval of `b` not entirely
            // before `x` (neither starting nor ending before it): kept when there is none or it
            // starts after `x`; so an interval starting inside `x` and ending past it rejects `x`.
            2 => b.iter().find(|y| y.0 >= x.0 || y.1 >= x.1).is_none_or(|y| y.0 > x.1),
            3 => !any(&|x, y| y.0 <= x.0 && x.1 <= y.1, x),
            4 => any(&|x, y| y.0 <= x.1 && x.0 <= y.1, x),
            5 => !any(&|x, y| y.0 <= x.1 && x.0 <= y.1, x),
            6 => any(&|x, y| x.1 <= (y.0 - 1).max(0), x),
            _ => any(&|x, y| x.0 > y.1, x),
        })
        .collect()
}

fn filter_source(kind: usize, a: Source, b: Source) -> Source {
    match kind {
        0 => containing(a, b).unwrap(),
        1 => contained_by(a, b).unwrap(),
        2 => not_containing(a, b).unwrap(),
        3 => not_contained_by(a, b).unwrap(),
        4 => overlapping(a, b),
        5 => non_overlapping(a, b),
        6 => before(a, b).unwrap(),
        _ => after(a, b).unwrap(),
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn combinations_yield_the_minimal_intervals(s in shape(), d in doc()) {
        let got: BTreeSet<(i32, i32)> = run(&s.source(), &d).into_iter().collect();
        prop_assert_eq!(got, s.model(&d), "{:?} over {:?}", s, d);
    }

    #[test]
    fn filters_keep_what_the_model_keeps(a in shape(), b in shape(), kind in 0usize..8, d in doc()) {
        let got: BTreeSet<(i32, i32)> = run(&filter_source(kind, a.source(), b.source()), &d).into_iter().collect();
        let want = filtered(kind, &a.model(&d), &b.model(&d));
        prop_assert_eq!(got, want, "filter {} of {:?} by {:?} over {:?}", kind, a, b, d);
    }

    #[test]
    fn disjunctions_match_where_a_clause_does(a in shape(), b in shape(), d in doc()) {
        let got = run(&or(vec![a.source(), b.source()]), &d);
        let any = !a.model(&d).is_empty() || !b.model(&d).is_empty();
        prop_assert_eq!(!got.is_empty(), any);
    }

    #[test]
    fn scorer_finds_the_model_documents(s in shape(), docs in prop::collection::vec(doc(), 1..12)) {
        let mdocs: Vec<MDoc> = docs.iter().map(|d| MDoc { text: vec![(F.into(), d.iter().map(|w| w.to_string()).collect())], ..Default::default() }).collect();
        let seg = ModelSegment::new(mdocs, &[], 4);
        let src = s.source();
        let want: Vec<u32> = docs.iter().enumerate().filter(|(_, d)| !s.model(d).is_empty()).map(|(i, _)| i as u32).collect();
        let mut got = Vec::new();
        if let Some(mut sc) = IntervalScorer::new(&seg, &src, 2.0, None).unwrap() {
            while sc.doc() != NO_MORE_DOCS {
                let d = sc.doc() as usize;
                // The sloppy frequency over the model's intervals (all minimal here).
                let me = src.min_extent();
                let freq: f32 = s.model(&docs[d]).iter().fold(0f32, |f, (a, b)| f + 1f32 / ((b - a + 1) - me + 1).max(1) as f32);
                prop_assert_eq!(sc.score(), saturation(2.0, freq));
                got.push(sc.doc());
                sc.next();
            }
        }
        prop_assert_eq!(got, want);
    }
}

#[test]
fn rewrites_follow_lucene() {
    // Equal neighbours of an ordered list repeat; unordered counts them anywhere.
    assert_eq!(ordered(vec![t("a"), t("a"), t("b")]).to_string(), "ORDERED(a,a,b)");
    assert!(
        matches!(ordered(vec![t("a"), t("a"), t("b")]), Source::Ordered(ref v) if matches!(v[0], Source::Repeat(_, 2, None)))
    );
    assert_eq!(unordered(vec![t("a"), t("a")]).to_string(), "UNORDERED(a,a)");
    // A phrase pulls a disjunction of different widths up.
    let p = phrase(vec![or(vec![t("a"), phrase(vec![t("b"), t("c")]).unwrap()]), t("d")]).unwrap();
    assert_eq!(p.to_string(), "or(BLOCK(a,d),BLOCK(b,c,d))");
    // max_gaps over a disjunction filters each disjunct.
    let m = max_gaps(1, or(vec![ordered(vec![t("a"), t("b")]), t("c")])).unwrap();
    assert_eq!(m.to_string(), "or(MAXGAPS/1(ORDERED(a,b)),MAXGAPS/1(c))");
    assert_eq!(or(vec![t("b"), t("a"), t("b")]).to_string(), "or(a,b)");
    assert_eq!(extend(t("a"), i32::MAX, 0).min_extent(), i32::MAX);
}

#[test]
fn repeated_terms_need_distinct_positions() {
    assert_eq!(run(&unordered(vec![t("a"), t("a")]), &["a", "b", "a"]), vec![(0, 2)]);
    assert!(run(&unordered(vec![t("a"), t("a")]), &["a", "b"]).is_empty());
    assert_eq!(run(&ordered(vec![t("a"), t("a"), t("b")]), &["a", "a", "b", "a"]), vec![(0, 2)]);
}

#[test]
fn extended_terms_leave_room_before() {
    // `phrase(a, extend(b, 1, 0))`: one position between a and b.
    let s = phrase(vec![t("a"), extend(t("b"), 1, 0)]).unwrap();
    assert_eq!(run(&s, &["a", "x", "b", "a", "b"]), vec![(0, 2)]);
}

#[test]
fn ordered_finds_every_minimal_interval() {
    let d = ["c", "b", "c", "a", "b", "a"];
    assert_eq!(run(&ordered(vec![t("c"), t("b"), t("a")]), &d), vec![(0, 3), (2, 5)]);
}
