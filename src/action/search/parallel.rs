//! The query and fetch phases of one search over its units in parallel on the search pool (see
//! [`crate::threadpool::fan_out`] for why a search on a saturated pool cannot deadlock): each
//! unit's outcome lands in its own slot, so merging sees them in unit order exactly as when they
//! ran one after another.

use std::sync::Arc;
use std::time::Instant;

use super::body::HitJson;
use super::context::ShardContext;
use super::execute::{fetch_hit, run_unit, LastHit, Unit, UnitResult};
use super::named::NamedWeights;
use super::request::SearchRequest;
use super::sort::ValueFormat;
use crate::engine::query::{Hit, SortField};
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

/// The fetch phase of one search: the page's hits grouped by shard, each shard's hits fetched
/// in parallel with the other shards' (in page order within a shard).
pub(super) struct FetchPhase {
    pub query: Arc<QueryPhase>,
    pub results: Vec<Option<UnitResult>>,
    /// The page: (unit, hit).
    pub page: Vec<(usize, Hit)>,
    pub raw: bool,
    pub sorted_by_fields: bool,
    pub engine_fields: Vec<SortField>,
    pub fields: Vec<(SortField, ValueFormat)>,
}

impl FetchPhase {
    /// Fetches the hits at page positions `at` (all of one shard).
    fn shard(&self, at: &[usize]) -> Vec<OsResult<HitJson>> {
        let q = &*self.query;
        let mut named_weights: Vec<Option<NamedWeights>> = (0..q.units.len()).map(|_| None).collect();
        at.iter()
            .map(|&p| {
                let (ui, h) = &self.page[p];
                let u = &q.units[*ui];
                let (ci, li) = u.origin[h.segment];
                fetch_hit(
                    u,
                    ci,
                    li,
                    h,
                    *ui,
                    &self.results,
                    &mut named_weights,
                    &q.ctxs,
                    &q.req,
                    self.raw,
                    self.sorted_by_fields,
                    &self.engine_fields,
                    &self.fields,
                )
            })
            .collect()
    }

    /// Every hit of the page fetched, in page order, with its shard context's index (a hit
    /// whose segment is unknown is left out).
    pub fn run(self) -> Vec<(usize, OsResult<HitJson>)> {
        let units = &self.query.units;
        let mut groups: Vec<(usize, Vec<usize>)> = Vec::new();
        for (p, (ui, h)) in self.page.iter().enumerate() {
            let Some(&(ci, _)) = units[*ui].origin.get(h.segment) else { continue };
            match groups.iter_mut().find(|g| g.0 == ci) {
                Some(g) => g.1.push(p),
                None => groups.push((ci, vec![p])),
            }
        }
        let n = self.page.len();
        let this = Arc::new(self);
        let groups = Arc::new(groups);
        let outs: Vec<Vec<OsResult<HitJson>>> = if groups.len() <= 1 {
            groups.iter().map(|(_, at)| this.shard(at)).collect()
        } else {
            let (t, g) = (this.clone(), groups.clone());
            crate::threadpool::fan_out(groups.len(), move |i| t.shard(&g[i].1))
        };
        let mut slots: Vec<Option<(usize, OsResult<HitJson>)>> = (0..n).map(|_| None).collect();
        for ((ci, at), out) in groups.iter().zip(outs) {
            for (p, r) in at.iter().zip(out) {
                slots[*p] = Some((*ci, r));
            }
        }
        slots.into_iter().flatten().collect()
    }
}
