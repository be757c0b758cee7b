//! Top-k of a conjunction of scoring term clauses (Lucene's block-max conjunction): leapfrog from
//! the cheapest clause, and once a minimum competitive score is known, skip every window (up to
//! the first block end of any clause) whose summed block bounds cannot reach it. Term clauses
//! are read a block at a time ([`TermCursor`]), so stepping, advancing and scoring are array
//! operations; scores are summed in double in clause order and cast to float, exactly as
//! [`super::boolean::Conjunction`] does.

use super::max_score::Sink;
use super::scorer::{below, TermScorer};
use super::term_cursor::TermCursor;
use super::view::SegmentView;
use crate::engine::codec::bitpack::BLOCK;
use crate::engine::segment::{DocId, NO_MORE_DOCS};
use crate::engine::Result;
use smallvec::{smallvec, SmallVec};

/// How many times commoner than the lead a clause must be to be probed
/// ([`TermCursor::set_probing`]): then most advances land a block or more ahead, where a probe
/// (a search of the packed block, about a third of a decode) beats decoding the block.
const PROBE_RATIO: u64 = 16;

#[cfg(test)]
thread_local! {
    /// Tests: replaces [`PROBE_RATIO`] (`u64::MAX`: never probe).
    pub(super) static PROBE_RATIO_OVERRIDE: std::cell::Cell<Option<u64>> = const { std::cell::Cell::new(None) };
}

fn probe_ratio() -> u64 {
    #[cfg(test)]
    if let Some(r) = PROBE_RATIO_OVERRIDE.with(|c| c.get()) {
        return r;
    }
    PROBE_RATIO
}

/// Runs the conjunction of `clauses` (in query order) over `seg`, passing every competitive live
/// match to `sink`. No clause means no match.
pub fn search(clauses: Vec<TermScorer<'_>>, seg: &dyn SegmentView, sink: &mut dyn Sink) -> Result<()> {
    if clauses.is_empty() {
        return Ok(());
    }
    // A Vec, not a SmallVec: a cursor is over 2 KB (its block buffers and score table), and
    // four inline ones made every move of the collection an 8 KB copy.
    let mut cursors: Vec<TermCursor<'_>> = clauses.into_iter().map(TermCursor::new).collect();
    let mut order: SmallVec<[usize; 4]> = (0..cursors.len()).collect();
    order.sort_by_key(|&i| cursors[i].cost());
    // Plain slices from here on: indexing a SmallVec checks inline-or-heap at every access.
    let cs: &mut [TermCursor<'_>] = &mut cursors;
    let by_cost: &[usize] = &order;
    let lead = by_cost[0];
    let max_doc = seg.max_doc();
    let deletions = seg.has_deletions();
    let mut window_end: Option<DocId> = None;
    let mut window_bound = 0f64;
    // The summed window bounds of every clause but the lead.
    let mut rest_bound = 0f64;
    let mut min = sink.min_competitive();
    let mut target = cs[lead].doc();
    // Batches pay off when the lead is dense (many matches per block); a sparse lead matches
    // about once per batch, where the doc-at-a-time step is cheaper (and needs no batch buffers).
    let mut batch =
        if cs[lead].cost().saturating_mul(32) >= max_doc as u64 { Some(Batch::new(cs.len())) } else { None };
    if batch.is_none() {
        // A clause far commoner than the lead is sought about once per block of its own:
        // probed in place instead of decoded a block at a time.
        let lead_cost = cs[lead].cost();
        let ratio = probe_ratio();
        for &i in &by_cost[1..] {
            if cs[i].cost() >= lead_cost.saturating_mul(ratio) {
                cs[i].set_probing();
            }
        }
    }
    'outer: loop {
        if target >= max_doc {
            break;
        }
        // Windows are checked before the lead moves, so skipped blocks are never decoded.
        if min > 0.0 {
            if window_end.is_none_or(|e| target > e) {
                // Clauses already beyond `target` need bounds only from their own doc on.
                let mut end = NO_MORE_DOCS;
                for c in cs.iter_mut() {
                    end = end.min(c.shallow_advance(target.max(c.doc())));
                }
                let end = end.max(target);
                window_bound = 0.0;
                rest_bound = 0.0;
                for (i, c) in cs.iter_mut().enumerate() {
                    let m = c.max_score(end) as f64;
                    window_bound += m;
                    if i != lead {
                        rest_bound += m;
                    }
                }
                window_end = Some(end);
            }
            if below(window_bound, min) {
                match window_end {
                    Some(e) if e != NO_MORE_DOCS => {
                        target = e + 1;
                        continue 'outer;
                    }
                    _ => break,
                }
            }
        }
        let d = cs[lead].advance(target);
        if d >= max_doc {
            break;
        }
        if min > 0.0 && window_end.is_some_and(|e| d > e) {
            // Past the window: check the bounds of the one holding `d` first.
            target = d;
            continue 'outer;
        }
        if let (Some(b), Some(e)) = (batch.as_mut(), window_end.filter(|_| min > 0.0)) {
            // Pruning with a dense lead (tantivy's `block_wand_intersection`): score the lead's
            // docs of the window first; only those whose score plus the other clauses' window
            // bounds may compete are looked up in the other clauses, so a window without such
            // a doc never decodes the other clauses' blocks.
            let upto = cs[lead].buffered().last().copied().unwrap_or(d).min(e);
            let nl = survivors(&mut cs[lead], lead, upto, rest_bound, min, b);
            'cand: for k in 0..nl {
                let doc = b.docs[k];
                for &i in &by_cost[1..] {
                    if cs[i].advance(doc) != doc {
                        continue 'cand;
                    }
                }
                if deletions && !seg.is_live(doc) {
                    continue;
                }
                // Summed in double in clause (query) order, as `Conjunction` does.
                let mut sum = 0f64;
                for (ci, c) in cs.iter_mut().enumerate() {
                    sum += if ci == lead { b.lead_scores[k] } else { c.score() } as f64;
                }
                let score = sum as f32;
                if score >= min {
                    sink.collect(doc, score);
                    min = sink.min_competitive();
                }
            }
            // The lead's buffer is left as it is: the next `advance` moves it (and decodes only
            // the block of a window that is not skipped).
            target = upto.saturating_add(1);
            continue;
        }
        if min > 0.0
            && by_cost[1..].iter().any(|&i| cs[i].beyond_buffer(d))
            && below(cs[lead].score() as f64 + rest_bound, min)
        {
            // Moving the other clauses to `d` would decode a block, and the lead's score with
            // their window bounds cannot compete: they are not moved (within their buffered
            // blocks the leapfrog is cheaper than scoring every lead doc).
            target = d + 1;
            continue;
        }
        for &i in &by_cost[1..] {
            let o = cs[i].advance(d);
            if o > d {
                target = o;
                continue 'outer;
            }
        }
        let Some(b) = batch.as_mut() else {
            if !deletions || seg.is_live(d) {
                let score = cs.iter_mut().map(|c| c.score() as f64).sum::<f64>() as f32;
                // Below `min` the sink would drop the doc (and counting is over once min > 0).
                if score >= min {
                    sink.collect(d, score);
                    min = sink.min_competitive();
                }
            }
            target = d + 1;
            continue;
        };
        // Every clause is on `d`: intersect the buffered blocks up to the first buffered end
        // (and the bounds window's end once pruning), then score the matches clause by clause.
        let mut upto = cs.iter().map(|c| c.buffered().last().copied().unwrap_or(d)).min().unwrap_or(d);
        if min > 0.0 {
            if let Some(e) = window_end {
                upto = upto.min(e);
            }
        }
        // Once pruning, the lead's docs are scored first and only those that may compete with
        // the other clauses' bounds are intersected (Lucene's per-doc early exit, by batch).
        let prune = if min > 0.0 { Some((rest_bound, min)) } else { None };
        let nm = intersect(cs, by_cost, upto, prune, b);
        let nm = if deletions { b.keep_live(nm, seg) } else { nm };
        let acc = &mut b.acc[..nm];
        acc.fill(0.0);
        // Summed in double in clause (query) order, as `Conjunction` does.
        for (ci, c) in cs.iter_mut().enumerate() {
            if ci == lead && prune.is_some() {
                for (a, &s) in acc.iter_mut().zip(&b.lead_scores[..nm]) {
                    *a += s as f64;
                }
            } else {
                c.add_scores(&b.idx[ci][..nm], acc);
            }
        }
        for (&doc, &s) in b.docs[..nm].iter().zip(acc.iter()) {
            let score = s as f32;
            // Below `min` the sink would drop the doc (and counting is over once min > 0).
            if score >= min {
                sink.collect(doc, score);
                min = sink.min_competitive();
            }
        }
        for (ci, c) in cs.iter_mut().enumerate() {
            c.jump_past(upto, b.end[ci]);
        }
        target = upto.saturating_add(1);
    }
    for c in cs.iter_mut() {
        if let Some(e) = c.take_error() {
            return Err(e);
        }
    }
    Ok(())
}

/// The matches of one batch: docs, and per clause (in query order) their buffer indices.
struct Batch {
    docs: [DocId; BLOCK],
    idx: SmallVec<[[u8; BLOCK]; 4]>,
    /// Per clause: a buffer index at or before its first doc past the batch.
    end: SmallVec<[usize; 4]>,
    acc: [f64; BLOCK],
    /// When pruning: the lead clause's score of each match.
    lead_scores: [f32; BLOCK],
}

impl Batch {
    fn new(n: usize) -> Batch {
        Batch {
            docs: [0; BLOCK],
            idx: smallvec![[0; BLOCK]; n],
            end: smallvec![0; n],
            acc: [0.0; BLOCK],
            lead_scores: [0.0; BLOCK],
        }
    }

    /// Drops the deleted docs among the first `nm` matches; returns how many remain.
    fn keep_live(&mut self, nm: usize, seg: &dyn SegmentView) -> usize {
        let mut k = 0;
        for m in 0..nm {
            if seg.is_live(self.docs[m]) {
                self.docs[k] = self.docs[m];
                self.lead_scores[k] = self.lead_scores[m];
                for row in self.idx.iter_mut() {
                    row[k] = row[m];
                }
                k += 1;
            }
        }
        k
    }
}

/// Intersects the buffered docs `<= upto` of every clause (all on the same current doc, and
/// each holding a buffered doc `>= upto`) by branch-free merges, the cheapest clause first;
/// fills `b` and returns the number of matches.
fn intersect(
    cs: &mut [TermCursor<'_>],
    by_cost: &[usize],
    upto: DocId,
    prune: Option<(f64, f32)>,
    b: &mut Batch,
) -> usize {
    let lead = by_cost[0];
    let nl = candidates(&cs[lead], lead, upto, b);
    let nl = match prune {
        None => nl,
        Some((rest, min)) => survivors(&mut cs[lead], lead, upto, rest, min, b),
    };
    if let [_, other] = by_cost {
        // Two clauses (the common case): one merge, no candidate rows to carry along.
        let od = cs[*other].buffered();
        let o0 = cs[*other].buffer_start();
        // Compacted in place (m <= i): no copies of the rows per batch.
        let (lrow, orow) = two_rows(&mut b.idx, lead, *other);
        let (docs, ls) = (&mut b.docs, &mut b.lead_scores);
        let (mut i, mut j, mut m) = (0usize, 0usize, 0usize);
        // i < nl <= BLOCK and m <= i, j < od.len() <= BLOCK: the indices stay in bounds.
        while i < nl && j < od.len() {
            let (a, c) = (docs[i], od[j]);
            docs[m] = a;
            lrow[m] = lrow[i];
            ls[m] = ls[i];
            orow[m] = (o0 + j) as u8;
            m += (a == c) as usize;
            i += (a <= c) as usize;
            j += (c <= a) as usize;
        }
        b.end[*other] = o0 + j;
        return m;
    }
    let mut nc = nl;
    for (p, &ci) in by_cost.iter().enumerate().skip(1) {
        let od = cs[ci].buffered();
        let o0 = cs[ci].buffer_start();
        let (mut i, mut j, mut m) = (0usize, 0usize, 0usize);
        while i < nc && j < od.len() {
            let (a, c) = (b.docs[i], od[j]);
            // Written unconditionally, kept when equal (m <= i, so nothing unread is overwritten).
            b.docs[m] = a;
            for &q in &by_cost[..p] {
                b.idx[q][m] = b.idx[q][i];
            }
            b.idx[ci][m] = (o0 + j) as u8;
            b.lead_scores[m] = b.lead_scores[i];
            m += (a == c) as usize;
            i += (a <= c) as usize;
            j += (c <= a) as usize;
        }
        b.end[ci] = o0 + j;
        nc = m;
    }
    nc
}

/// Copies the lead's buffered docs `<= upto` (it is at index `li` in query order) into `b.docs`
/// and their buffer indices into its row; returns how many.
fn candidates(lead: &TermCursor<'_>, li: usize, upto: DocId, b: &mut Batch) -> usize {
    let ld = lead.buffered();
    let l0 = lead.buffer_start();
    let nl = ld.partition_point(|&d| d <= upto);
    b.docs[..nl].copy_from_slice(&ld[..nl]);
    for (k, x) in b.idx[li][..nl].iter_mut().enumerate() {
        *x = (l0 + k) as u8;
    }
    b.end[li] = l0 + nl;
    nl
}

/// The lead's buffered docs `<= upto` whose score plus `rest` (the other clauses' bounds) may
/// reach `min`: their docs, buffer indices and lead scores (`lead_scores`) in `b`; returns how
/// many. Branch-free: every candidate is written, the count moves only for survivors.
fn survivors(lead: &mut TermCursor<'_>, li: usize, upto: DocId, rest: f64, min: f32, b: &mut Batch) -> usize {
    let nl = candidates(lead, li, upto, b);
    let acc = &mut b.acc[..nl];
    acc.fill(0.0);
    lead.add_scores(&b.idx[li][..nl], acc);
    let mut m = 0;
    for k in 0..nl {
        let s = b.acc[k] as f32;
        b.docs[m] = b.docs[k];
        b.idx[li][m] = b.idx[li][k];
        b.lead_scores[m] = s;
        m += !below(s as f64 + rest, min) as usize;
    }
    m
}

/// Rows `a` and `b` (distinct) of `rows`, both mutable.
fn two_rows(rows: &mut [[u8; BLOCK]], a: usize, b: usize) -> (&mut [u8; BLOCK], &mut [u8; BLOCK]) {
    if a < b {
        let (x, y) = rows.split_at_mut(b);
        (&mut x[a], &mut y[0])
    } else {
        let (x, y) = rows.split_at_mut(a);
        (&mut y[0], &mut x[b])
    }
}
