//! Top-k of a disjunction of term clauses (or of one term) by windowed MaxScore (Lucene's
//! `MaxScoreBulkScorer`): the segment is cut into windows of at most [`WINDOW`] docs, ending at
//! the first block end of any clause once pruning has started; in each window the clauses whose summed
//! bounds over the window cannot reach the minimum competitive score are *non-essential*; the
//! essential ones are walked clause by clause (tight loops, no doc-at-a-time merge), their scores
//! summed into a per-window array, and only the docs they produced are completed with the
//! non-essential clauses (stopping as soon as the remaining bounds cannot make the doc compete).
//! A window where every clause is non-essential is skipped without reading a posting.
//!
//! Scores equal the doc-at-a-time disjunction's bit for bit: each clause's score of a candidate
//! is kept, and a collected doc's score is their sum in double, in clause order, cast to float
//! (the running sums used for pruning are only compared with margins, see [`below`]).

use super::scorer::{below, Scorer, TermScorer};
use super::term_cursor::TermCursor;
use super::view::SegmentView;
use crate::engine::segment::postings::BLOCK;
use crate::engine::segment::{DocId, NO_MORE_DOCS};
use crate::engine::Result;
use smallvec::{smallvec, SmallVec};

/// Docs per window.
pub const WINDOW: u32 = 4096;

/// What the windowed scorer reports to: each live doc that may compete, with its score, in doc
/// order; returns the minimum competitive score from now on (0 while everything is wanted).
pub trait Sink {
    /// Collects `doc` with `score`.
    fn collect(&mut self, doc: DocId, score: f32);
    /// The score a doc needs from now on (0 when every doc must be collected).
    fn min_competitive(&self) -> f32;
    /// How many hits the sink keeps, when it may be given a floor now ([`Self::raise_floor`]);
    /// `None` (the default) when every doc must still be collected or ranks are offset
    /// (`search_after`).
    fn floor_k(&self) -> Option<usize> {
        None
    }
    /// `floor_k()` distinct live docs are known to score at least `floor`: from now on a doc
    /// scoring below it is not competitive ([`super::floor`]).
    fn raise_floor(&mut self, _floor: f32) {}
}

/// Runs the disjunction of `clauses` over `seg`, passing every competitive live doc to `sink`.
pub fn search(mut clauses: Vec<TermScorer<'_>>, seg: &dyn SegmentView, sink: &mut dyn Sink) -> Result<()> {
    let n = clauses.len();
    let sparse = clauses.iter().map(|c| c.cost()).sum::<u64>().saturating_mul(SPARSE) <= seg.max_doc() as u64
        && !windows_forced();
    if !sparse || n == 1 || lopsided(&clauses) {
        super::floor::prime(&mut clauses, seg, sink);
    }
    if let [one] = clauses.as_mut_slice() {
        one.collect_top(if seg.has_deletions() { Some(seg) } else { None }, sink);
        return match one.take_error() {
            Some(e) => Err(e),
            None => Ok(()),
        };
    }
    // A Vec, not a SmallVec: a cursor is over 2 KB (its block buffers and score table), and
    // four inline ones made every move of the collection an 8 KB copy.
    let mut cs: Vec<TermCursor<'_>> = clauses.into_iter().map(TermCursor::new).collect();
    if sparse {
        doc_at_a_time(&mut cs, seg, sink);
        return cs.iter_mut().find_map(|c| c.take_error()).map_or(Ok(()), Err);
    }
    BUFFERS.with(|b| {
        let mut b = b.borrow_mut();
        let b = &mut *b;
        let w = WINDOW as usize;
        if !b.clean || b.acc.len() != w || b.scores.len() < w * n {
            b.acc.clear();
            b.acc.resize(w, 0.0);
            b.bits.clear();
            b.bits.resize(w / 64, 0);
            b.scores.clear();
            b.scores.resize(w * n, f32::NAN);
        }
        b.clean = false;
        let r = run(&mut cs, seg, sink, &mut b.acc, &mut b.bits, &mut b.scores);
        // Every window takes back what it set, so the buffers are clean again.
        b.clean = true;
        r
    })?;
    for c in cs.iter_mut() {
        if let Some(e) = c.take_error() {
            return Err(e);
        }
    }
    Ok(())
}

/// Whether a sparse disjunction is worth a floor: a pair where one clause holds most of the
/// postings, so that walking the other's docs instead of its own ([`walk_pair`], once the floor
/// leaves it unable to make a doc compete alone) saves more than the floor costs. Between
/// clauses of about one size a floor seldom gets there, and the plain merge does not use it.
fn lopsided(clauses: &[TermScorer<'_>]) -> bool {
    let [a, b] = clauses else { return false };
    let (hi, lo) = (a.cost().max(b.cost()), a.cost().min(b.cost()));
    hi >= 8 * BLOCK as u64 && hi >= 4 * lo
}

/// Disjunctions whose clauses hold at most one posting per this many docs of the segment (in
/// all) run doc at a time: a window of [`WINDOW`] docs would hold a few dozen postings, too few
/// to pay for its set-up and its bitset scan.
const SPARSE: u64 = 64;

#[cfg(test)]
thread_local! {
    /// Tests: sparse disjunctions take the windowed loop too (to compare both).
    pub(crate) static FORCE_WINDOWS: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

#[inline(always)]
fn windows_forced() -> bool {
    #[cfg(test)]
    return FORCE_WINDOWS.with(|f| f.get());
    #[cfg(not(test))]
    false
}

/// Doc-at-a-time disjunction over block-buffered cursors (no windows: every posting is scored
/// once), until a pair's lesser clause can no longer make a doc compete alone: from then on
/// [`walk_pair`] goes over the other clause's docs only. The score of a doc is the sum in double
/// of the matching clauses' scores in clause order, cast to float, as in the windowed loop.
fn doc_at_a_time(cs: &mut [TermCursor<'_>], seg: &dyn SegmentView, sink: &mut dyn Sink) {
    let deletions = seg.has_deletions();
    let max_doc = seg.max_doc();
    let mut min = sink.min_competitive();
    // Each clause's current doc, kept beside the cursors (one read of a cursor per move).
    let mut cur_v: SmallVec<[DocId; INLINE]> = cs.iter().map(|c| c.doc()).collect();
    let cur: &mut [DocId] = &mut cur_v;
    // A pair (no clause scoring below 0): the clause of the lesser whole-segment bound.
    let lesser = match cs {
        [a, b] if a.global_bound() >= 0.0 && b.global_bound() >= 0.0 => {
            Some(if b.global_bound() < a.global_bound() { 1 } else { 0 })
        }
        _ => None,
    };
    let hand_off = |min: f32, cs: &[TermCursor<'_>]| lesser.filter(|&o| below(cs[o].global_bound() as f64, min));
    if let Some(o) = hand_off(min, cs) {
        return walk_pair(cs, cur, o, seg, sink);
    }
    // Every pass moves at least one cursor past `d`: bounded by the clauses' postings.
    loop {
        let d = cur.iter().copied().min().unwrap_or(NO_MORE_DOCS);
        if d >= max_doc {
            break;
        }
        let mut sum = 0f64;
        for (c, at) in cs.iter_mut().zip(cur.iter_mut()) {
            if *at == d {
                sum += c.score() as f64;
                *at = c.next();
            }
        }
        let score = sum as f32;
        // Below the minimum the sink would drop it (and counting is over once min > 0).
        if score >= min && (!deletions || seg.is_live(d)) {
            sink.collect(d, score);
            min = sink.min_competitive();
            if let Some(o) = hand_off(min, cs) {
                return walk_pair(cs, cur, o, seg, sink);
            }
        }
    }
}

/// The rest of a two-clause disjunction once clause `o` cannot make a doc compete alone
/// (MaxScore with `o`, the clause of the lesser bound, non-essential; without boosts that is the
/// commoner term, its idf being lower): the other clause's docs are the candidates, and `o` is
/// moved to a candidate only when the candidate's score plus `o`'s bound may compete. `cur`
/// holds each clause's current doc (`o`'s may lag behind).
#[inline(never)]
fn walk_pair(cs: &mut [TermCursor<'_>], cur: &mut [DocId], o: usize, seg: &dyn SegmentView, sink: &mut dyn Sink) {
    let e = 1 - o;
    let deletions = seg.has_deletions();
    let max_doc = seg.max_doc();
    let bound = cs[o].global_bound() as f64;
    let both = bound + cs[e].global_bound() as f64;
    let mut min = sink.min_competitive();
    if below(both, min) {
        return;
    }
    // Every pass moves `e` past `d`: bounded by its postings.
    loop {
        let d = cur[e];
        if d >= max_doc {
            break;
        }
        let se = cs[e].score();
        cur[e] = cs[e].next();
        if below(se as f64 + bound, min) {
            continue;
        }
        if cur[o] < d {
            cur[o] = cs[o].advance(d);
        }
        let score = if cur[o] != d {
            se
        } else {
            // Summed in double, as the merge does (two terms: the order does not matter).
            (cs[o].score() as f64 + se as f64) as f32
        };
        if score >= min && (!deletions || seg.is_live(d)) {
            sink.collect(d, score);
            min = sink.min_competitive();
            if below(both, min) {
                // No doc can compete any more.
                break;
            }
        }
    }
}

/// Per-thread window buffers, reused so a query does not allocate and clear them. Between
/// searches (`clean`): `acc` and `bits` are zero, `scores` is NaN.
struct Buffers {
    /// Running sum of the essential clauses' scores by window offset.
    acc: Vec<f64>,
    /// Window offsets some essential clause matched.
    bits: Vec<u64>,
    /// `scores[i * WINDOW + off]`: clause `i`'s score at the offset (NaN: no match).
    scores: Vec<f32>,
    clean: bool,
}

thread_local! {
    static BUFFERS: std::cell::RefCell<Buffers> = const { std::cell::RefCell::new(Buffers { acc: Vec::new(), bits: Vec::new(), scores: Vec::new(), clean: false }) };
}

/// Up to this many clauses, the per-query scratch of [`run`] lives on the stack.
const INLINE: usize = 8;

fn run(
    clauses: &mut [TermCursor<'_>],
    seg: &dyn SegmentView,
    sink: &mut dyn Sink,
    acc: &mut [f64],
    bits: &mut [u64],
    scores: &mut [f32],
) -> Result<()> {
    let n = clauses.len();
    let w = WINDOW as usize;
    // The per-clause state lives in SmallVecs, used through plain slices (indexing a SmallVec
    // tests inline-or-heap at every access).
    let mut essential_v: SmallVec<[bool; INLINE]> = smallvec![true; n];
    let essential: &mut [bool] = &mut essential_v;
    let mut at_v: SmallVec<[f32; INLINE]> = smallvec![f32::NAN; n];
    let at: &mut [f32] = &mut at_v;
    let max_doc = seg.max_doc();
    let deletions = seg.has_deletions();
    let mut bounds_v: SmallVec<[f32; INLINE]> = smallvec![0f32; n];
    let bounds: &mut [f32] = &mut bounds_v;
    let mut order_v: SmallVec<[usize; INLINE]> = (0..n).collect();
    let order: &mut [usize] = &mut order_v;
    // Whole-segment bounds, and the clauses whose summed whole-segment bounds stay below the
    // minimum (globally non-essential: a doc they alone match never competes).
    let global_v: SmallVec<[f32; INLINE]> = clauses.iter().map(|c| c.global_bound()).collect();
    let global: &[f32] = &global_v;
    let mut by_global_v: SmallVec<[usize; INLINE]> = (0..n).collect();
    by_global_v.sort_unstable_by(|&a, &b| global[a].total_cmp(&global[b]).then(a.cmp(&b)));
    let by_global: &[usize] = &by_global_v;
    let mut gne_v: SmallVec<[bool; INLINE]> = smallvec![false; n];
    let gne: &mut [bool] = &mut gne_v;
    let mut gne_min = 0f32;
    let mut lo: DocId = 0;
    while lo < max_doc {
        let mut min = sink.min_competitive();
        if min > gne_min {
            gne_min = min;
            let mut sum = 0f64;
            for &i in by_global {
                sum += global[i] as f64;
                if !below(sum, min) {
                    break;
                }
                gne[i] = true;
            }
        }
        // No clause that could make a doc compete has a doc in [lo, first): start the window
        // there (clauses behind `lo` count as at `lo`).
        let first = clauses
            .iter()
            .zip(gne.iter())
            .filter(|(_, g)| !**g)
            .map(|(c, _)| c.doc().max(lo))
            .min()
            .unwrap_or(NO_MORE_DOCS);
        if first >= max_doc {
            break;
        }
        lo = first;
        let mut hi = lo.saturating_add(WINDOW).min(max_doc);
        // Partition: order[..ne] are non-essential in this window.
        let mut ne = 0;
        // The window ends with the first block end of a clause that may be essential, so bounds
        // are per block and pruning starts at most one block after the threshold is known.
        for (c, _) in clauses.iter_mut().zip(gne.iter()).filter(|(_, g)| !**g) {
            let t = lo.max(c.doc());
            if t < hi {
                hi = hi.min(c.shallow_advance(t).saturating_add(1));
            }
        }
        if min > 0.0 {
            // Tight bounds for every clause (globally non-essential ones too: with their
            // whole-segment bound the essential ones would rarely become non-essential). A
            // globally non-essential clause does not cut the window, which may span many of its
            // blocks: past its first block there it keeps its whole-segment bound, and the
            // candidates check its block bounds one by one (see [`complete`]).
            for ((c, b), &g) in clauses.iter_mut().zip(bounds.iter_mut()).zip(gne.iter()) {
                *b = window_bound(c, lo, hi, g);
            }
            // Stable for equal bounds (clause order), as the sort of the whole order was.
            order.sort_by(|&a, &b| bounds[a].total_cmp(&bounds[b]));
            let mut sum = 0f64;
            for &i in order.iter() {
                sum += bounds[i] as f64;
                if !below(sum, min) {
                    break;
                }
                ne += 1;
            }
            if ne == n {
                lo = hi;
                continue;
            }
        }
        // Essential clauses into the window's accumulator and their own score rows.
        for (k, &i) in order.iter().enumerate() {
            essential[i] = k >= ne;
        }
        // The per-clause score rows are needed only to re-sum in clause order a candidate that
        // non-essential clauses complete, and then only with two essential clauses or more: a
        // lone essential clause's score is its accumulated sum (0 + score, exact in double).
        // With every clause essential, `acc` sums the scores in clause order: it is the score.
        let rows = ne > 0 && n - ne > 1;
        let mut any = false;
        for (i, c) in clauses.iter_mut().enumerate() {
            if !essential[i] {
                continue;
            }
            if c.doc() < lo {
                c.advance(lo);
            }
            // `off < WINDOW` because lo <= d < hi <= lo + WINDOW.
            let row = if rows { Some(&mut scores[i * w..(i + 1) * w]) } else { None };
            any |= c.accumulate(lo, hi, acc, row, bits);
        }
        if !any {
            lo = hi;
            continue;
        }
        let words = ((hi - lo) as usize).div_ceil(64);
        if ne == 0 {
            for (wi, slot) in bits.iter_mut().take(words).enumerate() {
                let mut word = std::mem::take(slot);
                while word != 0 {
                    let off = (wi << 6) | word.trailing_zeros() as usize;
                    word &= word - 1;
                    let score = std::mem::take(&mut acc[off]) as f32;
                    let doc = lo + off as DocId;
                    // Below the minimum the sink would drop it (and counting is over once min > 0).
                    if score >= min && (!deletions || seg.is_live(doc)) {
                        sink.collect(doc, score);
                        min = sink.min_competitive();
                    }
                }
            }
            lo = hi;
            continue;
        }
        let rest_all: f64 = order[..ne].iter().map(|&i| bounds[i] as f64).sum();
        let lone = if rows { None } else { order.get(ne).copied() };
        for (wi, slot) in bits.iter_mut().take(words).enumerate() {
            let mut word = std::mem::take(slot);
            while word != 0 {
                let off = (wi << 6) | word.trailing_zeros() as usize;
                word &= word - 1;
                let mut partial = std::mem::take(&mut acc[off]);
                match lone {
                    Some(e) => {
                        for &i in &order[..ne] {
                            at[i] = f32::NAN;
                        }
                        at[e] = partial as f32;
                    }
                    None => {
                        for (i, a) in at.iter_mut().enumerate() {
                            *a = if essential[i] {
                                std::mem::replace(&mut scores[i * w + off], f32::NAN)
                            } else {
                                f32::NAN
                            };
                        }
                    }
                }
                let doc = lo + off as DocId;
                if deletions && !seg.is_live(doc) {
                    continue;
                }
                if !complete(clauses, &order[..ne], bounds, doc, &mut partial, rest_all, min, at) {
                    continue;
                }
                // The disjunction's score: the matching clauses summed in clause order.
                let score = at.iter().filter(|x| !x.is_nan()).map(|&x| x as f64).sum::<f64>() as f32;
                // Below the minimum the sink would drop it (and counting is over once min > 0).
                if score >= min {
                    sink.collect(doc, score);
                    min = sink.min_competitive();
                }
            }
        }
        lo = hi;
    }
    Ok(())
}

/// Completes candidate `doc` (essential sum `partial`) with the non-essential clauses `ne`
/// (ascending window bounds `bounds`, summing to `rest`), the largest bound first, storing each
/// matching clause's score in `at`; false as soon as the remaining bounds cannot make the doc
/// reach `min`. A clause whose buffered block ends before `doc` is first checked against the
/// bound of the block holding `doc` (from the skip data): when that cannot compete either, the
/// block is not decoded.
#[inline]
#[allow(
    clippy::too_many_arguments,
    reason = "the candidate loop's state, passed without a struct to keep it in registers"
)]
fn complete(
    clauses: &mut [TermCursor<'_>],
    ne: &[usize],
    bounds: &[f32],
    doc: DocId,
    partial: &mut f64,
    mut rest: f64,
    min: f32,
    at: &mut [f32],
) -> bool {
    for &i in ne.iter().rev() {
        if below(*partial + rest, min) {
            return false;
        }
        rest -= bounds[i] as f64;
        let c = &mut clauses[i];
        if c.doc() < doc {
            if c.beyond_buffer(doc) && below(*partial + rest + c.block_bound_at(doc) as f64, min) {
                return false;
            }
            c.advance(doc);
        }
        if c.doc() == doc {
            let sc = c.score();
            at[i] = sc;
            *partial += sc as f64;
        }
    }
    true
}

/// The best score `c` can give a doc of `[lo, hi)`: the max of its block bounds over the blocks
/// overlapping the window (0 when it has no doc left); with `first_only`, its whole-segment
/// bound unless its first block there covers the window.
fn window_bound(c: &mut TermCursor<'_>, lo: DocId, hi: DocId, first_only: bool) -> f32 {
    let mut t = lo.max(c.doc());
    let mut bound = 0f32;
    while t < hi {
        let end = c.shallow_advance(t);
        bound = bound.max(c.max_score(end));
        if end == NO_MORE_DOCS {
            break;
        }
        t = end + 1;
        if first_only && t < hi {
            return c.global_bound();
        }
    }
    bound
}
