//! Top-k of a disjunction of term clauses (or of one term) by windowed MaxScore (Lucene's
//! `MaxScoreBulkScorer`): the segment is cut into windows of at most [`WINDOW`] docs, ending at
//! the first block end of any clause once pruning has started; in each window the clauses whose summed
//! bounds over the window cannot reach the minimum competitive score are *non-essential*; the
//! essential ones are walked clause by clause (tight loops, no doc-at-a-time merge), their scores
//! summed into a per-window array, and only the docs they produced are completed with the
//! non-essential clauses (stopping as soon as the remaining bounds cannot make the doc compete).
//! A window where every clause is non-essential is skipped without reading a posting.
//!
//! Scores equal the doc-at-a-time disjunction's bit for bit: clause scores are summed in double
//! and cast to float, and the windowed path is used only when [`exact_sums`] shows that every such
//! double sum is exact (so the order of the additions does not matter).

use super::scorer::{below, Scorer, TermScorer};
use super::view::SegmentView;
use crate::engine::segment::{DocId, NO_MORE_DOCS};
use crate::engine::Result;

/// Docs per window.
pub const WINDOW: u32 = 4096;

/// Whether summing one score of each clause in double is exact whatever the order: every score
/// of clause `i` lies in `[lows[i], highs[i]]` with `lows[i] > 0`, so all scores and partial sums
/// are multiples of the ulp of the smallest low, and the largest sum stays below 2^28 of them.
pub fn exact_sums(lows: &[f32], highs: &[f32]) -> bool {
    let min = lows.iter().copied().fold(f32::INFINITY, f32::min);
    let total: f64 = highs.iter().map(|&h| h as f64).sum();
    min > 0.0 && min.is_finite() && total.is_finite() && total / (min as f64) < (1u64 << 28) as f64
}

/// What the windowed scorer reports to: each live doc that may compete, with its score, in doc
/// order; returns the minimum competitive score from now on (0 while everything is wanted).
pub trait Sink {
    /// Collects `doc` with `score`.
    fn collect(&mut self, doc: DocId, score: f32);
    /// The score a doc needs from now on (0 when every doc must be collected).
    fn min_competitive(&self) -> f32;
}

/// Runs the disjunction of `clauses` over `seg`, passing every competitive live doc to `sink`.
pub fn search(mut clauses: Vec<TermScorer<'_>>, seg: &dyn SegmentView, sink: &mut dyn Sink) -> Result<()> {
    BUFFERS.with(|b| {
        let mut b = b.borrow_mut();
        let b = &mut *b;
        if !b.clean || b.acc.len() != WINDOW as usize {
            b.acc.clear();
            b.acc.resize(WINDOW as usize, 0.0);
            b.bits.clear();
            b.bits.resize((WINDOW / 64) as usize, 0);
        }
        b.clean = false;
        let r = run(&mut clauses, seg, sink, &mut b.acc, &mut b.bits);
        // Every window takes back what it set, so the buffers are zero again.
        b.clean = true;
        r
    })?;
    for c in clauses.iter_mut() {
        if let Some(e) = c.take_error() {
            return Err(e);
        }
    }
    Ok(())
}

/// Per-thread window buffers, all zero between searches (`clean`), reused so a query does not
/// allocate and clear 36 KiB.
struct Buffers {
    acc: Vec<f64>,
    bits: Vec<u64>,
    clean: bool,
}

thread_local! {
    static BUFFERS: std::cell::RefCell<Buffers> = const { std::cell::RefCell::new(Buffers { acc: Vec::new(), bits: Vec::new(), clean: false }) };
}

fn run(clauses: &mut [TermScorer<'_>], seg: &dyn SegmentView, sink: &mut dyn Sink, acc: &mut [f64], bits: &mut [u64]) -> Result<()> {
    let n = clauses.len();
    let max_doc = seg.max_doc();
    let deletions = seg.has_deletions();
    let mut bounds = vec![0f32; n];
    let mut order: Vec<usize> = (0..n).collect();
    let mut lo: DocId = 0;
    while lo < max_doc {
        let mut hi = lo.saturating_add(WINDOW).min(max_doc);
        let min = sink.min_competitive();
        // Partition: order[..ne] are non-essential in this window.
        let mut ne = 0;
        // The window ends with the first block end, so bounds are per block and pruning starts
        // at most one block after the threshold is known.
        for c in clauses.iter_mut() {
            let t = lo.max(c.doc());
            if t < hi {
                hi = hi.min(c.shallow_advance(t).saturating_add(1));
            }
        }
        if min > 0.0 {
            for (c, b) in clauses.iter_mut().zip(bounds.iter_mut()) {
                *b = window_bound(c, lo, hi);
            }
            order.sort_by(|&a, &b| bounds[a].total_cmp(&bounds[b]));
            let mut sum = 0f64;
            for &i in &order {
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
        // Essential clauses, in clause order, into the window's accumulator.
        let essential = |i: usize| order[ne..].contains(&i);
        let mut any = false;
        for (i, c) in clauses.iter_mut().enumerate() {
            if ne > 0 && !essential(i) {
                continue;
            }
            let mut d = c.doc();
            if d < lo {
                d = c.advance(lo);
            }
            while d < hi {
                let off = (d - lo) as usize;
                // `off < WINDOW` because lo <= d < hi <= lo + WINDOW.
                acc[off] += c.score() as f64;
                bits[off >> 6] |= 1u64 << (off & 63);
                any = true;
                d = c.next();
            }
        }
        if any {
            let rest_all: f64 = order[..ne].iter().map(|&i| bounds[i] as f64).sum();
            for w in 0..bits.len() {
                let mut word = std::mem::take(&mut bits[w]);
                while word != 0 {
                    let off = (w << 6) | word.trailing_zeros() as usize;
                    word &= word - 1;
                    let mut score = std::mem::take(&mut acc[off]);
                    let doc = lo + off as DocId;
                    if deletions && !seg.is_live(doc) {
                        continue;
                    }
                    if ne > 0 {
                        let min = sink.min_competitive();
                        let mut rest = rest_all;
                        let mut ok = true;
                        for k in (0..ne).rev() {
                            if below(score + rest, min) {
                                ok = false;
                                break;
                            }
                            rest -= bounds[order[k]] as f64;
                            let c = &mut clauses[order[k]];
                            if c.doc() < doc {
                                c.advance(doc);
                            }
                            if c.doc() == doc {
                                score += c.score() as f64;
                            }
                        }
                        if !ok {
                            continue;
                        }
                    }
                    sink.collect(doc, score as f32);
                }
            }
        }
        lo = hi;
    }
    Ok(())
}

/// The best score `c` can give a doc of `[lo, hi)`: the max of its block bounds over the blocks
/// overlapping the window (0 when it has no doc left).
fn window_bound(c: &mut TermScorer<'_>, lo: DocId, hi: DocId) -> f32 {
    let mut t = lo.max(c.doc());
    let mut bound = 0f32;
    while t < hi {
        let end = c.shallow_advance(t);
        bound = bound.max(c.max_score(end));
        if end == NO_MORE_DOCS {
            break;
        }
        t = end + 1;
    }
    bound
}
