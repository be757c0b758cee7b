//! The query phase of one search over its units in parallel on the search pool (see
//! [`crate::threadpool::fan_out`] for why a search on a saturated pool cannot deadlock): each
//! unit's outcome lands in its own slot, so merging sees them in unit order exactly as when they
//! ran one after another.

use std::sync::Arc;
use std::time::Instant;

use super::context::ShardContext;
use super::execute::{run_unit, LastHit, Unit, UnitResult};
use super::request::SearchRequest;
use crate::error::OsResult;

/// Everything the units of one search share, owned (pool tasks outlive no borrow).
pub(super) struct QueryPhase {
    pub units: Vec<Unit>,
    pub ctxs: Vec<ShardContext>,
    pub req: SearchRequest,
    pub now: i64,
    pub deadline: Option<Instant>,
    /// Per unit, the last hit it emitted to a scroll.
    pub lasts: Vec<Option<LastHit>>,
}

/// A unit's outcome: `None` when it started past the deadline (not searched); else its result
/// and whether it ended past the deadline.
pub(super) type Outcome = Option<(OsResult<UnitResult>, bool)>;

impl QueryPhase {
    /// Runs unit `ui`. The first unit always runs (a shard's query phase starts before its
    /// timer can fire); a later one that starts past the deadline is skipped.
    fn unit(&self, ui: usize) -> Outcome {
        if ui > 0 && self.deadline.is_some_and(|d| Instant::now() >= d) {
            return None;
        }
        let u = &self.units[ui];
        let r = run_unit(u, &self.ctxs, &self.req, self.now, self.deadline, self.lasts[ui].as_ref());
        let late = self.deadline.is_some_and(|d| Instant::now() > d);
        Some((r, late))
    }

    /// Runs every unit (in parallel when there are several) and returns the outcomes in unit
    /// order, with the phase (the fetch phase reads its units).
    pub fn run(self) -> (Arc<QueryPhase>, Vec<Outcome>) {
        let phase = Arc::new(self);
        let n = phase.units.len();
        let outcomes = if n <= 1 {
            (0..n).map(|ui| phase.unit(ui)).collect()
        } else {
            let p = phase.clone();
            crate::threadpool::fan_out(n, move |ui| p.unit(ui))
        };
        (phase, outcomes)
    }
}
