//! Counting matches of one segment without scoring: statistics when possible, a bitset union for
//! disjunctions (each clause's matches are set in a bitset, then counted with popcount: no
//! doc-at-a-time merge), and a plain leapfrog over the clauses' scorers for conjunctions.

use super::block_buf::BlockBuf;
use super::scorer::{BoxScorer, Scorer};
use super::view::SegmentView;
use super::weight::Weight;
use crate::engine::codec::bitpack::BLOCK;
use crate::engine::segment::{DocId, Postings, NO_MORE_DOCS};
use crate::engine::Result;
use smallvec::SmallVec;

/// The number of live docs of `seg` matching `w` (`w` compiled without scoring).
pub fn count_segment(w: &Weight, seg: &dyn SegmentView) -> Result<u64> {
    // A filter that is not cached on this segment counts as itself (its fast paths below).
    if let Weight::Cached(c) = w {
        if !c.applies(seg) {
            return count_segment(&c.inner, seg);
        }
    }
    if let Some(c) = w.count_fast(seg)? {
        return Ok(c);
    }
    if let Weight::Bool { must, should, must_not, filter, msm, .. } = w {
        if must.is_empty() && filter.is_empty() && must_not.is_empty() && *msm <= 1 && should.len() > 1 {
            return count_union(should, seg);
        }
        if should.is_empty() && must_not.is_empty() && must.len() + filter.len() > 1 {
            if let Some(n) = count_term_intersection(must.iter().chain(filter.iter()), seg)? {
                return Ok(n);
            }
        }
    }
    let Some(mut sc) = w.scorer(seg)? else { return Ok(0) };
    drain(&mut *sc, seg)
}

/// Walks `sc` to the end, counting live docs.
fn drain(sc: &mut dyn Scorer, seg: &dyn SegmentView) -> Result<u64> {
    let deletions = seg.has_deletions();
    let mut n = 0u64;
    let mut d = sc.doc();
    while d != NO_MORE_DOCS {
        if !deletions || seg.is_live(d) {
            n += 1;
        }
        d = sc.next();
    }
    match sc.take_error() {
        Some(e) => Err(e),
        None => Ok(n),
    }
}

/// Matches of every one of `clauses` when they are all terms: a leapfrog over their postings
/// from the rarest (no scorer layers, no scoring); `None` when a clause is not a term.
fn count_term_intersection<'w>(
    clauses: impl Iterator<Item = &'w Weight>,
    seg: &dyn SegmentView,
) -> Result<Option<u64>> {
    let mut ps: Vec<Box<dyn Postings + '_>> = Vec::new();
    let mut absent = false;
    for c in clauses {
        match c.term_postings(seg)? {
            None => return Ok(None),
            Some(None) => absent = true,
            Some(Some(p)) => ps.push(p),
        }
    }
    if absent {
        return Ok(Some(0));
    }
    ps.sort_by_key(|p| p.cost());
    let deletions = seg.has_deletions();
    let mut n = 0u64;
    let mut bs: SmallVec<[BlockBuf<Box<dyn Postings + '_>>; 4]> = ps
        .into_iter()
        .map(|mut p| {
            p.next();
            BlockBuf::new(p)
        })
        .collect();
    let Some((lead, others)) = bs.split_first_mut() else { return Ok(Some(0)) };
    let mut d = lead.doc();
    'outer: while d != NO_MORE_DOCS {
        for p in others.iter_mut() {
            let o = p.seek(d);
            if o > d {
                d = lead.seek(o);
                continue 'outer;
            }
        }
        if !deletions || seg.is_live(d) {
            n += 1;
        }
        d = lead.step();
    }
    for b in bs.iter_mut() {
        if let Some(e) = b.src.take_error() {
            return Err(e);
        }
    }
    Ok(Some(n))
}

/// Matches of any of `clauses`: a bitset over the segment when the clauses are dense enough to
/// make it cheaper than merging, else the doc-at-a-time disjunction.
fn count_union(clauses: &[Weight], seg: &dyn SegmentView) -> Result<u64> {
    if let Some(n) = count_term_union(clauses, seg)? {
        return Ok(n);
    }
    let mut subs: Vec<BoxScorer<'_>> = Vec::with_capacity(clauses.len());
    for c in clauses {
        if let Some(s) = c.scorer(seg)? {
            subs.push(s);
        }
    }
    let max_doc = seg.max_doc() as usize;
    let words = max_doc.div_ceil(64);
    let cost: u64 = subs.iter().map(|s| s.cost()).sum();
    if subs.len() == 1 || cost < (words / 4) as u64 {
        // Sparse: merging touches fewer words than clearing and counting a bitset.
        let mut d = super::disjunction::Disjunction::new(subs, 1);
        return drain(&mut d, seg);
    }
    let mut bits = vec![0u64; words];
    for s in subs.iter_mut() {
        let mut d = s.doc();
        while d != NO_MORE_DOCS {
            // Scorers only produce docs below max_doc; a bad doc id is ignored, never a panic.
            if let Some(w) = bits.get_mut((d >> 6) as usize) {
                *w |= 1u64 << (d & 63);
            }
            d = s.next();
        }
        if let Some(e) = s.take_error() {
            return Err(e);
        }
    }
    if !seg.has_deletions() {
        return Ok(bits.iter().map(|w| w.count_ones() as u64).sum());
    }
    let mut n = 0u64;
    for (i, &w) in bits.iter().enumerate() {
        let mut w = w;
        while w != 0 {
            let d = (i as u32) * 64 + w.trailing_zeros();
            n += seg.is_live(d) as u64;
            w &= w - 1;
        }
    }
    Ok(n)
}

/// Matches of any of `clauses` when they are all terms: each term's postings are read a block at
/// a time into a per-thread bitset over the segment (kept zero between calls); only the words
/// set are counted and cleared when the terms are sparse. `None` when a clause is not a term.
fn count_term_union(clauses: &[Weight], seg: &dyn SegmentView) -> Result<Option<u64>> {
    let mut ps: SmallVec<[Box<dyn Postings + '_>; 4]> = SmallVec::new();
    for c in clauses {
        if matches!(c, Weight::MatchNone) {
            continue;
        }
        match c.term_postings(seg)? {
            None => return Ok(None),
            Some(None) => {}
            Some(Some(p)) => ps.push(p),
        }
    }
    let max_doc = seg.max_doc() as usize;
    let words = max_doc.div_ceil(64);
    // Sparse: remember the words set instead of scanning the whole bitset.
    let sparse = ps.iter().map(|p| p.cost()).sum::<u64>() < (words / 8) as u64;
    UNION_BITS.with(|cell| {
        let mut u = cell.borrow_mut();
        let UnionBits { bits, touched } = &mut *u;
        if bits.len() < words {
            bits.resize(words, 0);
        }
        let bits = &mut bits[..words];
        touched.clear();
        let mut docs = [0 as DocId; BLOCK];
        let mut freqs = [0u32; BLOCK];
        let mut failed = None;
        for p in ps.iter_mut() {
            // One read per block of the term (plus the final empty one), each block decoded
            // straight into `docs`.
            loop {
                let (i, n) = p.move_and_read(None, &mut docs, &mut freqs);
                if i >= n {
                    break;
                }
                for &doc in &docs[i..n] {
                    // Postings only hold docs below max_doc; a bad doc id is ignored, never a panic.
                    if let Some(w) = bits.get_mut((doc >> 6) as usize) {
                        if sparse && *w == 0 {
                            touched.push(doc >> 6);
                        }
                        *w |= 1u64 << (doc & 63);
                    }
                }
            }
            if let Some(e) = p.take_error() {
                failed = Some(e);
                break;
            }
        }
        let deletions = seg.has_deletions();
        let mut n = 0u64;
        let mut count_word = |i: usize, w: &mut u64| {
            let mut x = std::mem::take(w);
            if !deletions {
                n += x.count_ones() as u64;
                return;
            }
            while x != 0 {
                n += seg.is_live((i as u32) * 64 + x.trailing_zeros()) as u64;
                x &= x - 1;
            }
        };
        if sparse {
            for &i in touched.iter() {
                if let Some(w) = bits.get_mut(i as usize) {
                    count_word(i as usize, w);
                }
            }
        } else {
            for (i, w) in bits.iter_mut().enumerate() {
                count_word(i, w);
            }
        }
        // Every word set has been taken back: the bitset is zero again, even after an error.
        match failed {
            Some(e) => Err(e),
            None => Ok(Some(n)),
        }
    })
}

/// Per-thread scratch of [`count_term_union`]: a zeroed bitset and the words set in it.
struct UnionBits {
    bits: Vec<u64>,
    touched: Vec<u32>,
}

thread_local! {
    static UNION_BITS: std::cell::RefCell<UnionBits> = const { std::cell::RefCell::new(UnionBits { bits: Vec::new(), touched: Vec::new() }) };
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::super::model::{MDoc, ModelSegment};
    use super::super::searcher::Searcher;
    use super::super::view::SegmentView;
    use super::super::Query;
    use crate::engine::segment::DocId;

    fn doc(body: &str) -> MDoc {
        MDoc {
            text: vec![("body".into(), body.split_whitespace().map(String::from).collect())],
            keyword: vec![],
            long: vec![],
        }
    }

    /// Term unions and intersections counted block by block equal a count over the docs, for
    /// sparse unions (words set tracked) and dense ones (whole bitset), with deletions.
    #[test]
    fn term_union_and_intersection_counts() {
        // 3000 docs: `a` every 7th, `b` every 11th, `r` in 2 docs, `s` in 1 (sparse union).
        let body = |i: usize| {
            let mut t = vec!["x"];
            if i % 7 == 0 {
                t.push("a");
            }
            if i % 11 == 0 {
                t.push("b");
            }
            if i == 5 || i == 2900 {
                t.push("r");
            }
            if i == 2900 {
                t.push("s");
            }
            t.join(" ")
        };
        let docs: Vec<MDoc> = (0..3000).map(|i| doc(&body(i))).collect();
        for deleted in [vec![], vec![0 as DocId, 5, 77, 2900]] {
            let seg = Arc::new(ModelSegment::new(docs.clone(), &deleted, 128));
            let s = Searcher::new(vec![seg as Arc<dyn SegmentView>]);
            let live = |i: usize| !deleted.contains(&(i as DocId));
            let expect = |f: &dyn Fn(&str) -> bool| (0..3000).filter(|&i| live(i) && f(&body(i))).count() as u64;
            let has = |b: &str, t: &str| b.split(' ').any(|x| x == t);
            let terms = |ts: &[&str]| ts.iter().map(|t| Query::term("body", t)).collect::<Vec<_>>();
            for _ in 0..2 {
                // Twice: the per-thread bitset must be zero again after each count.
                assert_eq!(s.count(&Query::or(terms(&["a", "b"]))).unwrap(), expect(&|b| has(b, "a") || has(b, "b")));
                assert_eq!(s.count(&Query::or(terms(&["r", "s"]))).unwrap(), expect(&|b| has(b, "r") || has(b, "s")));
                assert_eq!(s.count(&Query::or(terms(&["r", "zz"]))).unwrap(), expect(&|b| has(b, "r")));
                assert_eq!(s.count(&Query::and(terms(&["a", "b"]))).unwrap(), expect(&|b| has(b, "a") && has(b, "b")));
                assert_eq!(
                    s.count(&Query::and(terms(&["a", "b", "x"]))).unwrap(),
                    expect(&|b| has(b, "a") && has(b, "b"))
                );
                assert_eq!(s.count(&Query::and(terms(&["a", "r"]))).unwrap(), expect(&|b| has(b, "a") && has(b, "r")));
            }
        }
    }
}
