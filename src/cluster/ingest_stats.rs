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

/// One pipeline's counts, and its top-level processors' (`type`, `tag`, counts) in order.
#[derive(Debug, Default)]
struct PipelineFigures {
    own: Figures,
    processors: Vec<(String, Option<String>, Figures)>,
}

/// Counts per pipeline and in total.
#[derive(Debug, Default)]
pub struct IngestStats {
    inner: Mutex<(Figures, BTreeMap<String, PipelineFigures>)>,
}

impl IngestStats {
    /// One document through pipeline `id`.
    pub fn record(&self, id: &str, nanos: u64, failed: bool) {
        let mut g = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        g.0.add(nanos, failed);
        match g.1.get_mut(id) {
            Some(f) => f.own.add(nanos, failed),
            None => g.1.entry(id.to_string()).or_default().own.add(nanos, failed),
        }
    }

    /// One document through pipeline `id` called by another pipeline (not in the total).
    pub fn record_nested(&self, id: &str, nanos: u64, failed: bool) {
        let mut g = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        match g.1.get_mut(id) {
            Some(f) => f.own.add(nanos, failed),
            None => g.1.entry(id.to_string()).or_default().own.add(nanos, failed),
        }
    }

    /// One run of the `at`-th top-level processor of pipeline `id`.
    pub fn record_processor(&self, id: &str, at: usize, ty: &str, tag: Option<&str>, nanos: u64, failed: bool) {
        let mut g = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        let p = match g.1.get_mut(id) {
            Some(p) => p,
            None => g.1.entry(id.to_string()).or_default(),
        };
        if p.processors.len() <= at {
            p.processors.resize_with(at + 1, Default::default);
        }
        let slot = &mut p.processors[at];
        if slot.0 != ty || slot.1.as_deref() != tag {
            // The pipeline was replaced by one with another processor here: counts restart.
            *slot = (ty.to_string(), tag.map(str::to_string), Figures::default());
        }
        slot.2.add(nanos, failed);
    }

    /// The `ingest` section.
    pub fn section(&self) -> Value {
        let g = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        let pipelines: Map<String, Value> =
            g.1.iter()
                .map(|(k, f)| {
                    (k.clone(), {
                        let mut v = f.own.to_json();
                        // Keyed `type` or `type:tag`, as OpenSearch's `IngestStats` lists them.
                        let procs: Vec<Value> = f
                            .processors
                            .iter()
                            .map(|(ty, tag, pf)| {
                                let name = match tag {
                                    Some(t) => format!("{ty}:{t}"),
                                    None => ty.clone(),
                                };
                                json!({ name: {"type": ty, "stats": pf.to_json()} })
                            })
                            .collect();
                        v["processors"] = Value::Array(procs);
                        v
                    })
                })
                .collect();
        json!({"total": g.0.to_json(), "pipelines": pipelines})
    }
}
