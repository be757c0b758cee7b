//! Counting matches of one segment without scoring: statistics when possible, a bitset union for
//! disjunctions (each clause's matches are set in a bitset, then counted with popcount: no
//! doc-at-a-time merge), and a plain leapfrog over the clauses' scorers for conjunctions.

use super::scorer::{BoxScorer, Scorer};
use super::view::SegmentView;
use super::weight::Weight;
use crate::engine::segment::{Postings, NO_MORE_DOCS};
use crate::engine::Result;

/// The number of live docs of `seg` matching `w` (`w` compiled without scoring).
pub fn count_segment(w: &Weight, seg: &dyn SegmentView) -> Result<u64> {
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
fn count_term_intersection<'w>(clauses: impl Iterator<Item = &'w Weight>, seg: &dyn SegmentView) -> Result<Option<u64>> {
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
    for p in ps.iter_mut().skip(1) {
        p.next();
    }
    let Some((lead, others)) = ps.split_first_mut() else { return Ok(Some(0)) };
    let mut d = lead.next();
    'outer: while d != NO_MORE_DOCS {
        for p in others.iter_mut() {
            let o = if p.doc() < d { p.advance(d) } else { p.doc() };
            if o > d {
                d = if o == NO_MORE_DOCS { NO_MORE_DOCS } else { lead.advance(o) };
                continue 'outer;
            }
        }
        if !deletions || seg.is_live(d) {
            n += 1;
        }
        d = lead.next();
    }
    for p in ps.iter_mut() {
        if let Some(e) = p.take_error() {
            return Err(e);
        }
    }
    Ok(Some(n))
}

/// Matches of any of `clauses`: a bitset over the segment when the clauses are dense enough to
/// make it cheaper than merging, else the doc-at-a-time disjunction.
fn count_union(clauses: &[Weight], seg: &dyn SegmentView) -> Result<u64> {
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
