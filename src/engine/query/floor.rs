//! Threshold priming: before a top-k disjunction (or a single term) runs over a segment, the
//! terms' stored top docs (`format/postings.md`, "TopDocs") are scored with the query's weights.
//! If `k` distinct live docs among them score at least `s` each, the k-th best hit of the whole
//! search scores at least `s`, so the sink may treat `s` as its minimum competitive score from
//! the first block on (instead of after its heap has filled with whatever came first), and
//! block-max skipping starts at once. Terms of one block take part with all of their docs (a rare
//! term of an OR is where its best hits are). A doc found in several clauses' lists counts once, with
//! the sum of those clauses' scores (a lower bound of its score: the other clauses add
//! non-negative scores). The floor is set one float step below that k-th score, so summation
//! order cannot make it exceed a real score.

use super::max_score::Sink;
use super::scorer::{Scorer, TermScorer};
use super::view::SegmentView;
use crate::engine::segment::postings::{BLOCK, TOP_DOCS};
use crate::engine::segment::DocId;
use smallvec::SmallVec;

/// Raises `sink`'s floor from the stored top docs of `clauses` (the scoring term clauses of a
/// disjunction over `seg`, or one term), when the sink allows one (see [`Sink::floor_k`]).
pub fn prime(clauses: &mut [TermScorer<'_>], seg: &dyn SegmentView, sink: &mut dyn Sink) {
    // Only terms of more than one block store top docs; a search over short terms alone is
    // cheap anyway (and a one-block term would list all of its docs).
    if clauses.iter().all(|c| c.cost() <= BLOCK as u64) {
        return;
    }
    // A partial sum bounds a doc's score from below only if no clause can score below 0 (a
    // negative boost).
    if clauses.iter().any(|c| c.global_bound() < 0.0 || c.global_bound().is_nan()) {
        return;
    }
    #[cfg(test)]
    if OFF.with(|o| o.get()) {
        return;
    }
    let Some(k) = sink.floor_k() else { return };
    if k == 0 || k > TOP_DOCS {
        return;
    }
    let deletions = seg.has_deletions();
    let mut list = Vec::with_capacity(TOP_DOCS);
    // (doc, clause, clause score)
    let mut cand: SmallVec<[(DocId, usize, f32); 64]> = SmallVec::new();
    for (ci, c) in clauses.iter_mut().enumerate() {
        c.top_docs(&mut list);
        for &(d, f) in &list {
            if deletions && !seg.is_live(d) {
                continue;
            }
            cand.push((d, ci, c.score_of(d, f)));
        }
    }
    if cand.len() < k {
        return;
    }
    cand.sort_unstable_by_key(|c| (c.0, c.1));
    // Per doc, its clauses' scores summed in double in clause order, as the disjunction does.
    let mut sums: SmallVec<[f32; 64]> = SmallVec::new();
    let mut i = 0;
    while i < cand.len() {
        let d = cand[i].0;
        let mut s = 0f64;
        while i < cand.len() && cand[i].0 == d {
            s += cand[i].2 as f64;
            i += 1;
        }
        sums.push(s as f32);
    }
    if sums.len() < k {
        return;
    }
    let (_, kth, _) = sums.select_nth_unstable_by(k - 1, |a, b| b.total_cmp(a));
    if *kth > 0.0 && kth.is_finite() {
        // One float step down (`f32::next_down`, newer than the crate's MSRV).
        sink.raise_floor(f32::from_bits(kth.to_bits() - 1));
    }
}

#[cfg(test)]
thread_local! {
    /// Tests: no priming (to compare the work done with and without a floor).
    pub(crate) static OFF: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}
