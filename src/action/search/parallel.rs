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
        let _task = crate::tasks::child("indices:data/read/search[phase/query]");
        let r = crate::engine::query::dfs::with_global(self.req.dfs_stats.as_ref(), || {
            run_unit(u, &self.ctxs, &self.req, self.now, self.deadline, self.lasts[ui].as_ref())
        });
        // A shard task cancelled on its own (search backpressure) fails its shard, as
        // OpenSearch's query phase throws, rather than answering what it collected so far.
        let r = match crate::tasks::current().filter(|t| _task.is_some() && t.is_cancelled()) {
            Some(t) => Err(crate::error::OsError::new(
                crate::error::ErrorKind::TaskCancelled,
                format!("cancelled task with reason: {}", t.cancel_reason().unwrap_or_default()),
            )),
            None => r,
        };
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
    /// The page: (unit, hit, collapse value).
    pub page: Vec<(usize, Hit, Option<serde_json::Value>)>,
    pub raw: bool,
    pub sorted_by_fields: bool,
    pub engine_fields: Vec<SortField>,
    pub fields: Vec<(SortField, ValueFormat)>,
}

impl FetchPhase {
    /// Fetches the hits at page positions `at` (all of one shard).
    fn shard(&self, at: &[usize]) -> Vec<OsResult<HitJson>> {
        let _task = crate::tasks::child("indices:data/read/search[phase/fetch/id]");
        // Explanations and inner hits score with the dfs round's statistics too.
        crate::engine::query::dfs::with_global(self.query.req.dfs_stats.as_ref(), || self.shard_in_scope(at))
    }

    fn shard_in_scope(&self, at: &[usize]) -> Vec<OsResult<HitJson>> {
        let q = &*self.query;
        let mut named_weights: Vec<Option<NamedWeights>> = (0..q.units.len()).map(|_| None).collect();
        at.iter()
            .map(|&p| {
                let (ui, h, key) = &self.page[p];
                let u = &q.units[*ui];
                let (ci, li) = u.origin[h.segment];
                fetch_hit(
                    u,
                    ci,
                    li,
                    h,
                    key.as_ref(),
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
        for (p, (ui, h, _)) in self.page.iter().enumerate() {
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

#[cfg(test)]
mod tests {
    use std::sync::mpsc;
    use std::time::Duration;

    use serde_json::{json, Value};

    use super::super::context::acquire;
    use super::super::execute::search_contexts;
    use super::*;
    use crate::cluster::resolve::IndicesOptions;
    use crate::cluster::{ClusterService, CreateIndex, NodeIdentity};
    use crate::shard::IndexOp;
    use crate::threadpool::ThreadPool;

    /// Four shards of 60 documents in all.
    fn contexts(dir: &std::path::Path) -> (Arc<ClusterService>, Vec<ShardContext>) {
        let node = NodeIdentity {
            cluster_name: "c".into(),
            node_name: "n".into(),
            node_id: "id".into(),
            roles: vec!["cluster_manager".into(), "data".into()],
            attributes: vec![],
            host: "127.0.0.1".into(),
            http_address: "127.0.0.1:0".into(),
        };
        let cs = ClusterService::open(dir, node).unwrap();
        let mut settings = std::collections::BTreeMap::new();
        settings.insert("index.number_of_shards".to_string(), json!("4"));
        settings.insert("index.number_of_replicas".to_string(), json!("0"));
        let mappings = Some(json!({"properties": {"t": {"type": "text"}, "n": {"type": "long"}}}));
        cs.create_index(CreateIndex { name: "i".into(), settings, mappings, ..Default::default() }).unwrap();
        let svc = cs.index("i").unwrap();
        for n in 0..60 {
            let id = n.to_string();
            let words = ["alpha", "beta", "gamma", "delta"];
            let text = (0..=n % 7).map(|k| words[(n + k) % 4]).collect::<Vec<_>>().join(" ");
            let source = serde_json::to_vec(&json!({"t": text, "n": n})).unwrap();
            let fields = svc.parse(&id, &source).unwrap().fields;
            let shard = svc.route(&id).unwrap().clone();
            shard.engine.index(IndexOp { id, source, fields, ..Default::default() }).unwrap();
        }
        for s in svc.shards() {
            s.refresh().unwrap();
        }
        let ctxs = acquire(&cs, "i", IndicesOptions::lenient_expand_open()).unwrap();
        assert_eq!(ctxs.len(), 4);
        (cs, ctxs)
    }

    fn without_took(mut v: Value) -> Value {
        v.as_object_mut().map(|o| o.remove("took"));
        v
    }

    fn on_pool(pool: &ThreadPool, ctxs: &Arc<Vec<ShardContext>>, req: &SearchRequest) -> Value {
        let (tx, rx) = mpsc::channel();
        let (c, req) = (ctxs.clone(), req.clone());
        pool.execute(move || {
            let _ = tx.send(search_contexts(&c, &req).map(without_took).map_err(|e| e.reason));
        })
        .unwrap();
        rx.recv_timeout(Duration::from_secs(30)).expect("answered in time").unwrap()
    }

    #[test]
    fn parallel_shards_answer_exactly_as_sequential_ones() {
        let dir = tempfile::tempdir().unwrap();
        let (_cs, ctxs) = contexts(dir.path());
        let ctxs = Arc::new(ctxs);
        let pool = ThreadPool::new("n", "search", 4, 100);
        let bodies = [
            json!({"query": {"match": {"t": "alpha gamma"}}, "size": 7}),
            json!({"query": {"match": {"t": "beta"}}, "from": 3, "size": 20, "explain": true}),
            json!({"query": {"bool": {"should": [{"match": {"t": {"query": "delta", "_name": "d"}}}, {"match": {"t": {"query": "alpha", "_name": "a"}}}]}}, "size": 60}),
            json!({"sort": [{"n": "desc"}], "size": 13, "track_scores": true}),
            json!({"query": {"match": {"t": "gamma"}}, "size": 5}),
        ];
        for (i, body) in bodies.iter().enumerate() {
            let mut req = SearchRequest::from_body(body.clone()).unwrap();
            // The last one as `dfs_query_then_fetch`: one unit for the index's four shards.
            req.dfs = i == bodies.len() - 1;
            let seq = without_took(search_contexts(&ctxs, &req).unwrap());
            let par = on_pool(&pool, &ctxs, &req);
            assert_eq!(par, seq, "{body}");
            assert_eq!(par["_shards"]["successful"], json!(4), "{par}");
        }
    }

    #[test]
    fn searches_filling_the_pool_still_finish() {
        // Two threads and six searches of four shards each: coordinators waiting for shard
        // tasks queued behind themselves would never answer.
        let dir = tempfile::tempdir().unwrap();
        let (_cs, ctxs) = contexts(dir.path());
        let ctxs = Arc::new(ctxs);
        let pool = ThreadPool::new("n", "search", 2, 1000);
        let body = json!({"query": {"match": {"t": "alpha"}}, "size": 3});
        let (tx, rx) = mpsc::channel();
        for _ in 0..6 {
            let (c, tx) = (ctxs.clone(), tx.clone());
            let req = SearchRequest::from_body(body.clone()).unwrap();
            pool.execute(move || {
                let _ = tx.send(search_contexts(&c, &req).map(without_took).map_err(|e| e.reason));
            })
            .unwrap();
        }
        let first = rx.recv_timeout(Duration::from_secs(30)).expect("no self-deadlock").unwrap();
        for _ in 1..6 {
            assert_eq!(rx.recv_timeout(Duration::from_secs(30)).expect("no self-deadlock").unwrap(), first);
        }
    }
}
