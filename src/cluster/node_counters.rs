//! Node-wide counters the `_nodes/stats` sections read: HTTP connections (counted by the HTTP
//! server as it accepts and closes them), indexing pressure (bytes of write requests in flight,
//! counted by the bulk and write paths) and, once the transport runs, a reader of its counters.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::OnceLock;

use serde_json::{json, Value};

/// Where a write's bytes are in flight (OpenSearch's `IndexingPressure` stages).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    /// The node that received the request and splits it by shard.
    Coordinating,
    /// A primary applying its part.
    Primary,
    /// A replica applying its part.
    Replica,
}

/// Bytes of write requests per stage: now and since the node started.
#[derive(Debug, Default)]
pub struct IndexingPressure {
    current: [AtomicU64; 3],
    total: [AtomicU64; 3],
    rejections: [AtomicU64; 3],
}

/// Bytes in flight until dropped.
#[derive(Debug)]
pub struct InFlight<'a> {
    p: &'a IndexingPressure,
    stage: Stage,
    bytes: u64,
}

impl Drop for InFlight<'_> {
    fn drop(&mut self) {
        self.p.current[self.stage as usize].fetch_sub(self.bytes, Relaxed);
    }
}

impl IndexingPressure {
    /// Counts `bytes` of a write at `stage` until the returned guard drops.
    pub fn track(&self, stage: Stage, bytes: usize) -> InFlight<'_> {
        let bytes = bytes as u64;
        self.current[stage as usize].fetch_add(bytes, Relaxed);
        self.total[stage as usize].fetch_add(bytes, Relaxed);
        InFlight { p: self, stage, bytes }
    }

    /// The `indexing_pressure` section; `limit` is the memory limit in bytes (Fathom rejects no
    /// write for indexing pressure, so rejections stay zero).
    pub fn section(&self, limit: u64) -> Value {
        let l = |a: &[AtomicU64; 3], s: Stage| a[s as usize].load(Relaxed);
        let figures = |a: &[AtomicU64; 3]| {
            let (c, p, r) = (l(a, Stage::Coordinating), l(a, Stage::Primary), l(a, Stage::Replica));
            json!({
                "combined_coordinating_and_primary_in_bytes": c + p,
                "coordinating_in_bytes": c, "primary_in_bytes": p, "replica_in_bytes": r,
                "all_in_bytes": c + p + r,
            })
        };
        let mut total = figures(&self.total);
        total["coordinating_rejections"] = json!(l(&self.rejections, Stage::Coordinating));
        total["primary_rejections"] = json!(l(&self.rejections, Stage::Primary));
        total["replica_rejections"] = json!(l(&self.rejections, Stage::Replica));
        json!({"memory": {"current": figures(&self.current), "total": total, "limit_in_bytes": limit}})
    }
}

/// The node's counters.
#[derive(Default)]
pub struct NodeCounters {
    /// HTTP connections open now, and accepted since start.
    pub http_open: AtomicU64,
    pub http_total: AtomicU64,
    pub indexing_pressure: IndexingPressure,
    /// Documents through ingest pipelines.
    pub ingest: super::ingest_stats::IngestStats,
    transport: OnceLock<Box<dyn Fn() -> Value + Send + Sync>>,
    search_backpressure: OnceLock<Box<dyn Fn() -> Option<Value> + Send + Sync>>,
}

impl std::fmt::Debug for NodeCounters {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NodeCounters").field("http_open", &self.http_open).finish()
    }
}

/// An open HTTP connection, counted until dropped.
#[derive(Debug)]
pub struct HttpConnection(std::sync::Arc<NodeCounters>);

impl Drop for HttpConnection {
    fn drop(&mut self) {
        self.0.http_open.fetch_sub(1, Relaxed);
    }
}

impl NodeCounters {
    /// Counts an accepted HTTP connection, open until the guard drops.
    pub fn http_connection(self: &std::sync::Arc<Self>) -> HttpConnection {
        self.http_open.fetch_add(1, Relaxed);
        self.http_total.fetch_add(1, Relaxed);
        HttpConnection(self.clone())
    }

    /// Sets the reader of the transport's `_nodes/stats` section (once the transport runs).
    pub fn set_transport(&self, f: Box<dyn Fn() -> Value + Send + Sync>) {
        let _ = self.transport.set(f);
    }

    /// The transport's section, if it runs.
    pub fn transport(&self) -> Option<Value> {
        self.transport.get().map(|f| f())
    }

    /// Sets the reader of the `search_backpressure` section (once its service runs).
    pub fn set_search_backpressure(&self, f: Box<dyn Fn() -> Option<Value> + Send + Sync>) {
        let _ = self.search_backpressure.set(f);
    }

    /// The search backpressure section, if its service runs.
    pub fn search_backpressure(&self) -> Option<Value> {
        self.search_backpressure.get().and_then(|f| f())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_in_flight_fall_when_done() {
        let p = IndexingPressure::default();
        let g = p.track(Stage::Coordinating, 100);
        let _r = p.track(Stage::Replica, 7);
        let v = p.section(1000);
        assert_eq!(v["memory"]["current"]["coordinating_in_bytes"], 100);
        assert_eq!(v["memory"]["current"]["all_in_bytes"], 107);
        drop(g);
        let v = p.section(1000);
        assert_eq!(v["memory"]["current"]["coordinating_in_bytes"], 0);
        assert_eq!(v["memory"]["total"]["coordinating_in_bytes"], 100);
        assert_eq!(v["memory"]["limit_in_bytes"], 1000);
        let n = std::sync::Arc::new(NodeCounters::default());
        let c = n.http_connection();
        assert_eq!(n.http_open.load(Relaxed), 1);
        drop(c);
        assert_eq!((n.http_open.load(Relaxed), n.http_total.load(Relaxed)), (0, 1));
    }
}
