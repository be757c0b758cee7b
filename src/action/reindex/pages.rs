//! Where a worker's documents come from: pages of search hits. [`LocalScroll`] scrolls this
//! cluster's indices through the search action's scroll (pinned readers, so the job sees the
//! source as it was when it started); the remote source is in `remote_source.rs`.

use std::sync::Arc;

use serde_json::{json, Value};

use super::request::Job;
use crate::action::search::pit::ReaderContexts;
use crate::action::search::slice::Slice;
use crate::action::search::{remote_scroll, scroll};
use crate::cluster::ClusterService;
use crate::error::{OsError, OsResult};

/// One page of hits.
#[derive(Debug, Default)]
pub struct Page {
    /// The search's total hits (first page).
    pub total: u64,
    /// Each with `_index`, `_id`, `_routing`, `_version`, `_seq_no`, `_primary_term`, `_source`.
    pub hits: Vec<Value>,
}

/// A source of pages.
pub trait Pages {
    fn first(&mut self) -> OsResult<Page>;
    fn next(&mut self) -> OsResult<Page>;
    /// Frees what the source holds (best effort).
    fn close(&mut self);
}

/// Reads a search response into a page; shard failures fail the page (OpenSearch's worker
/// ends with them as search failures).
pub fn page_of(mut v: Value) -> OsResult<Page> {
    if let Some(f) = v["_shards"]["failures"].as_array().and_then(|a| a.first()) {
        let reason = f["reason"]["reason"].as_str().unwrap_or("shard failure").to_string();
        return Err(OsError::internal(format!("search failure during reindex: {reason}")));
    }
    let total = v["hits"]["total"]["value"].as_u64().or_else(|| v["hits"]["total"].as_u64()).unwrap_or(0);
    let hits = match v["hits"]["hits"].take() {
        Value::Array(a) => a,
        _ => Vec::new(),
    };
    Ok(Page { total, hits })
}

/// A scroll over this cluster's indices.
pub struct LocalScroll {
    cs: Arc<ClusterService>,
    reg: Arc<ReaderContexts>,
    job: Job,
    slice: Option<Slice>,
    batch: usize,
    scroll_id: Option<String>,
}

impl LocalScroll {
    pub fn new(
        cs: Arc<ClusterService>,
        reg: Arc<ReaderContexts>,
        job: &Job,
        slice: Option<(i32, i32)>,
        max_docs: Option<u64>,
    ) -> LocalScroll {
        let mut batch = job.search.size.max(1);
        if let Some(m) = max_docs {
            batch = batch.min(m.max(1) as usize);
        }
        LocalScroll {
            cs,
            reg,
            job: job.clone(),
            slice: slice.map(|(id, max)| Slice { field: "_id".into(), id, max }),
            batch,
            scroll_id: None,
        }
    }
}

impl Pages for LocalScroll {
    fn first(&mut self) -> OsResult<Page> {
        let mut req = self.job.search.clone();
        req.size = self.batch;
        req.version = true;
        req.seq_no_primary_term = true;
        req.slice = self.slice.clone();
        req.scroll = Some(self.job.scroll);
        req.routing = self.job.routing.clone();
        crate::action::search::apply_cluster_limits(&self.cs, &mut req);
        let mut v = scroll::start(&self.cs, &self.reg, &self.job.source, self.job.opts, &req, self.job.scroll)?;
        self.scroll_id = v["_scroll_id"].as_str().map(str::to_string);
        v["_scroll_id"] = json!(null);
        page_of(v)
    }

    fn next(&mut self) -> OsResult<Page> {
        let Some(id) = self.scroll_id.clone() else { return Ok(Page::default()) };
        let v = remote_scroll::next(&self.cs, &self.reg, &id, Some(self.job.scroll), None)?;
        page_of(v)
    }

    fn close(&mut self) {
        if let Some(id) = self.scroll_id.take() {
            let _ = remote_scroll::clear(&self.cs, &self.reg, &[id]);
        }
    }
}
