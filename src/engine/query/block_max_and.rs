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
use crate::engine::segment::{DocId, NO_MORE_DOCS};
use crate::engine::Result;

/// Runs the conjunction of `clauses` (in query order) over `seg`, passing every competitive live
/// match to `sink`. No clause means no match.
pub fn search(clauses: Vec<TermScorer<'_>>, seg: &dyn SegmentView, sink: &mut dyn Sink) -> Result<()> {
    if clauses.is_empty() {
        return Ok(());
    }
    let mut cs: Vec<TermCursor<'_>> = clauses.into_iter().map(TermCursor::new).collect();
    let mut by_cost: Vec<usize> = (0..cs.len()).collect();
    by_cost.sort_by_key(|&i| cs[i].cost());
    let lead = by_cost[0];
    let max_doc = seg.max_doc();
    let deletions = seg.has_deletions();
    let mut window_end: Option<DocId> = None;
    let mut window_bound = 0f64;
    let mut min = sink.min_competitive();
    let mut target = cs[lead].doc();
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
                window_bound = cs.iter_mut().map(|c| c.max_score(end) as f64).sum();
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
        for &i in &by_cost[1..] {
            let o = cs[i].advance(d);
            if o > d {
                target = o;
                continue 'outer;
            }
        }
        if !deletions || seg.is_live(d) {
            let score = cs.iter_mut().map(|c| c.score() as f64).sum::<f64>() as f32;
            // Below `min` the sink would drop the doc (and counting is over once min > 0).
            if score >= min {
                sink.collect(d, score);
                min = sink.min_competitive();
            }
        }
        target = d + 1;
    }
    for c in cs.iter_mut() {
        if let Some(e) = c.take_error() {
            return Err(e);
        }
    }
    Ok(())
}
