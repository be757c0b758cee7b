//! The progress of a bulk-by-scroll job (OpenSearch's `BulkByScrollTask.Status`): one
//! [`WorkerState`] per slice (or one for an unsliced job), updated by its worker, read by
//! `_tasks` and the status page, and changed by `_rethrottle`. [`status_json`] renders
//! `innerXContent` in OpenSearch's key order.

use std::sync::{Condvar, Mutex};
use std::time::Instant;

use serde_json::{json, Map, Value};

use super::request::Kind;

/// The counters of one worker.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Counts {
    pub total: u64,
    pub updated: u64,
    pub created: u64,
    pub deleted: u64,
    pub batches: u64,
    pub version_conflicts: u64,
    pub noops: u64,
    pub bulk_retries: u64,
    pub search_retries: u64,
    pub throttled_nanos: u64,
}

#[derive(Debug)]
struct Inner {
    counts: Counts,
    rps: f32,
    /// When the worker's current throttle wait ends.
    throttled_until: Option<Instant>,
    /// Bumped by each rethrottle (a sleeping worker recomputes its wait).
    rethrottles: u64,
}

/// One worker's live state.
#[derive(Debug)]
pub struct WorkerState {
    pub slice_id: Option<u32>,
    inner: Mutex<Inner>,
    wake: Condvar,
}

impl WorkerState {
    pub fn new(slice_id: Option<u32>, rps: f32) -> WorkerState {
        WorkerState {
            slice_id,
            inner: Mutex::new(Inner { counts: Counts::default(), rps, throttled_until: None, rethrottles: 0 }),
            wake: Condvar::new(),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Changes the counters.
    pub fn update(&self, f: impl FnOnce(&mut Counts)) {
        f(&mut self.lock().counts);
    }

    #[cfg(test)]
    pub fn counts(&self) -> Counts {
        self.lock().counts.clone()
    }

    /// Whether the worker runs without a rate.
    pub fn unthrottled(&self) -> bool {
        self.lock().rps.is_infinite()
    }

    /// Sets the rate and wakes the worker if it waits.
    pub fn rethrottle(&self, rps: f32) {
        let mut g = self.lock();
        g.rps = rps;
        g.rethrottles += 1;
        self.wake.notify_all();
    }

    /// Waits before the next batch so that the last one (`last_size` documents started at
    /// `last_start`) keeps to the rate; a rethrottle recomputes the wait. Returns early when
    /// `cancelled` says so. Only completed waits count as throttled time.
    pub fn throttle(&self, last_start: Instant, last_size: usize, cancelled: &dyn Fn() -> bool) {
        let mut g = self.lock();
        loop {
            if g.rps.is_infinite() || last_size == 0 || cancelled() {
                g.throttled_until = None;
                return;
            }
            let wait = std::time::Duration::from_secs_f64((last_size as f64 / f64::from(g.rps)).min(1e9));
            let until = last_start + wait;
            let now = Instant::now();
            if until <= now {
                g.throttled_until = None;
                return;
            }
            g.throttled_until = Some(until);
            let seen = g.rethrottles;
            let scheduled = until - now;
            // Wake at least every 100ms to notice a cancellation.
            while g.rethrottles == seen && !cancelled() {
                let now = Instant::now();
                if now >= until {
                    g.counts.throttled_nanos += scheduled.as_nanos() as u64;
                    g.throttled_until = None;
                    return;
                }
                let step = (until - now).min(std::time::Duration::from_millis(100));
                g = self.wake.wait_timeout(g, step).unwrap_or_else(|e| e.into_inner()).0;
            }
        }
    }

    /// `innerXContent` of this worker.
    pub fn to_json(&self, kind: Kind, for_response: bool) -> Value {
        let g = self.lock();
        let until = g.throttled_until.map_or(0, |u| u.saturating_duration_since(Instant::now()).as_millis() as u64);
        render(self.slice_id, &g.counts, g.rps, until, kind, for_response, None, None)
    }
}

/// `Status.innerXContent`: `include_updated`/`include_created` are off for delete by query and
/// `include_created` for update by query in their responses (not in `_tasks`).
#[allow(clippy::too_many_arguments)]
pub fn render(
    slice_id: Option<u32>,
    c: &Counts,
    rps: f32,
    throttled_until_millis: u64,
    kind: Kind,
    for_response: bool,
    canceled: Option<String>,
    slices: Option<Vec<Value>>,
) -> Value {
    let mut m = Map::new();
    if let Some(s) = slice_id {
        m.insert("slice_id".into(), json!(s));
    }
    m.insert("total".into(), json!(c.total));
    if !(for_response && kind == Kind::DeleteByQuery) {
        m.insert("updated".into(), json!(c.updated));
    }
    if !(for_response && kind != Kind::Reindex) {
        m.insert("created".into(), json!(c.created));
    }
    m.insert("deleted".into(), json!(c.deleted));
    m.insert("batches".into(), json!(c.batches));
    m.insert("version_conflicts".into(), json!(c.version_conflicts));
    m.insert("noops".into(), json!(c.noops));
    m.insert("retries".into(), json!({"bulk": c.bulk_retries, "search": c.search_retries}));
    m.insert("throttled_millis".into(), json!(c.throttled_nanos / 1_000_000));
    m.insert("requests_per_second".into(), json!(if rps.is_infinite() { -1.0 } else { f64::from(rps) }));
    if let Some(r) = canceled {
        m.insert("canceled".into(), json!(r));
    }
    m.insert("throttled_until_millis".into(), json!(throttled_until_millis));
    if let Some(s) = slices {
        m.insert("slices".into(), Value::Array(s));
    }
    Value::Object(m)
}

/// The status of a whole job: a single worker's, or the merge of its slices with `slices`.
pub fn status_json(
    workers: &[std::sync::Arc<WorkerState>],
    kind: Kind,
    for_response: bool,
    canceled: Option<String>,
) -> Value {
    if let [one] = workers {
        if one.slice_id.is_none() {
            let mut v = one.to_json(kind, for_response);
            if let (Some(r), Some(m)) = (canceled, v.as_object_mut()) {
                // Before `throttled_until_millis`, as `innerXContent` writes it.
                let until = m.remove("throttled_until_millis");
                m.insert("canceled".into(), json!(r));
                if let Some(u) = until {
                    m.insert("throttled_until_millis".into(), u);
                }
            }
            return v;
        }
    }
    let mut merged = Counts::default();
    let mut rps = 0f32;
    let mut until = u64::MAX;
    let mut slices = Vec::new();
    for w in workers {
        let g = w.lock();
        let c = &g.counts;
        merged.total += c.total;
        merged.updated += c.updated;
        merged.created += c.created;
        merged.deleted += c.deleted;
        merged.batches += c.batches;
        merged.version_conflicts += c.version_conflicts;
        merged.noops += c.noops;
        merged.bulk_retries += c.bulk_retries;
        merged.search_retries += c.search_retries;
        merged.throttled_nanos += c.throttled_nanos;
        rps += g.rps;
        let u = g.throttled_until.map_or(0, |u| u.saturating_duration_since(Instant::now()).as_millis() as u64);
        until = until.min(u);
        drop(g);
        slices.push(w.to_json(kind, for_response));
    }
    let until = if until == u64::MAX { 0 } else { until };
    render(None, &merged, rps, until, kind, for_response, canceled, Some(slices))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn key_order_and_includes() {
        let w = WorkerState::new(None, f32::INFINITY);
        w.update(|c| c.deleted = 2);
        let v = w.to_json(Kind::DeleteByQuery, true);
        let keys: Vec<&str> = v.as_object().expect("object").keys().map(String::as_str).collect();
        assert_eq!(
            keys,
            [
                "total",
                "deleted",
                "batches",
                "version_conflicts",
                "noops",
                "retries",
                "throttled_millis",
                "requests_per_second",
                "throttled_until_millis"
            ]
        );
        assert_eq!(v["requests_per_second"], json!(-1.0));
        assert!(w.to_json(Kind::DeleteByQuery, false).get("created").is_some());
    }

    #[test]
    fn slices_merge() {
        let ws: Vec<Arc<WorkerState>> = (0..3).map(|i| Arc::new(WorkerState::new(Some(i), 2.0))).collect();
        ws[1].update(|c| c.created = 5);
        let v = status_json(&ws, Kind::Reindex, true, None);
        assert_eq!(v["created"], 5);
        assert_eq!(v["requests_per_second"], json!(6.0));
        assert_eq!(v["slices"][1]["slice_id"], 1);
    }

    #[test]
    fn rethrottle_ends_a_wait() {
        let w = Arc::new(WorkerState::new(None, 0.0001));
        let w2 = w.clone();
        let t = std::thread::spawn(move || w2.throttle(Instant::now(), 10, &|| false));
        // The worker waits (for about a day) until the rate changes.
        while w.to_json(Kind::Reindex, false)["throttled_until_millis"] == 0 {
            std::thread::yield_now();
        }
        w.rethrottle(f32::INFINITY);
        t.join().expect("joined");
        assert_eq!(w.counts().throttled_nanos, 0, "an interrupted wait is not counted");
    }
}
