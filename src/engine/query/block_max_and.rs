//! Top-k of a conjunction of scoring term clauses (Lucene's block-max conjunction): leapfrog from
//! the cheapest clause, and once a minimum competitive score is known, skip every window (up to
//! the first block end of any clause) whose summed block bounds cannot reach it. Term scorers are
//! driven directly (no boxed scorer layers); scores are summed in double in clause order and cast
//! to float, exactly as [`super::boolean::Conjunction`] does.

use super::max_score::Sink;
use super::scorer::{below, Scorer, TermScorer};
use super::view::SegmentView;
use crate::engine::segment::{DocId, NO_MORE_DOCS};
use crate::engine::Result;

/// Runs the conjunction of `clauses` (in query order) over `seg`, passing every competitive live
/// match to `sink`. No clause means no match.
pub fn search(mut clauses: Vec<TermScorer<'_>>, seg: &dyn SegmentView, sink: &mut dyn Sink) -> Result<()> {
    if clauses.is_empty() {
        return Ok(());
    }
    let mut by_cost: Vec<usize> = (0..clauses.len()).collect();
    by_cost.sort_by_key(|&i| clauses[i].cost());
    let lead = by_cost[0];
    let max_doc = seg.max_doc();
    let deletions = seg.has_deletions();
    let mut window_end: Option<DocId> = None;
    let mut window_bound = 0f64;
    let mut target = clauses[lead].doc();
    'outer: loop {
        let d = {
            let l = &mut clauses[lead];
            if l.doc() < target {
                l.advance(target)
            } else {
                l.doc()
            }
        };
        if d >= max_doc {
            break;
        }
        let min = sink.min_competitive();
        if min > 0.0 {
            if window_end.is_none_or(|e| d > e) {
                // Clauses already beyond `d` need bounds only from their own doc on.
                let mut end = NO_MORE_DOCS;
                for c in clauses.iter_mut() {
                    end = end.min(c.shallow_advance(d.max(c.doc())));
                }
                let end = end.max(d);
                window_bound = clauses.iter_mut().map(|c| c.max_score(end) as f64).sum();
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
        for &i in &by_cost[1..] {
            let c = &mut clauses[i];
            let o = if c.doc() < d { c.advance(d) } else { c.doc() };
            if o > d {
                target = o;
                continue 'outer;
            }
        }
        if !deletions || seg.is_live(d) {
            let score: f64 = clauses.iter_mut().map(|c| c.score() as f64).sum();
            sink.collect(d, score as f32);
        }
        target = d + 1;
    }
    for c in clauses.iter_mut() {
        if let Some(e) = c.take_error() {
            return Err(e);
        }
    }
    Ok(())
}
