//! The node's ingest counters (`_nodes/stats/ingest`): documents through pipelines, their time
//! and failures, in total and per pipeline, as this node measured them.

use std::collections::BTreeMap;
use std::sync::Mutex;

use serde_json::{json, Map, Value};

#[derive(Debug, Default, Clone, Copy)]
struct Figures {
    count: u64,
    nanos: u64,
    failed: u64,
}

impl Figures {
    fn add(&mut self, nanos: u64, failed: bool) {
        self.count += 1;
        self.nanos += nanos;
        self.failed += u64::from(failed);
    }

    fn to_json(self) -> Value {
        // Pipelines run synchronously inside the request that counts them: none is current
        // when the section is read between requests.
        json!({"count": self.count, "time_in_millis": self.nanos / 1_000_000, "current": 0, "failed": self.failed})
    }
}

/// Counts per pipeline and in total.
#[derive(Debug, Default)]
pub struct IngestStats {
    inner: Mutex<(Figures, BTreeMap<String, Figures>)>,
}

impl IngestStats {
    /// One document through pipeline `id`.
    pub fn record(&self, id: &str, nanos: u64, failed: bool) {
        let mut g = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        g.0.add(nanos, failed);
        match g.1.get_mut(id) {
            Some(f) => f.add(nanos, failed),
            None => g.1.entry(id.to_string()).or_default().add(nanos, failed),
        }
    }

    /// The `ingest` section.
    pub fn section(&self) -> Value {
        let g = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        let pipelines: Map<String, Value> =
            g.1.iter()
                .map(|(k, f)| {
                    (k.clone(), {
                        let mut v = f.to_json();
                        v["processors"] = json!([]);
                        v
                    })
                })
                .collect();
        json!({"total": g.0.to_json(), "pipelines": pipelines})
    }
}
