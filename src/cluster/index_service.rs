//! An open index on this node: its metadata, live mapping and analysis, and the shard copies
//! this node holds.

use std::path::PathBuf;
use std::sync::{Arc, Mutex, RwLock};
use std::time::{Duration, Instant};

use super::metadata::IndexMetadata;
use super::refresh_listeners::{self, RefreshListeners};
use super::routing::shard_id;
use super::settings;
use crate::engine::analysis::IndexAnalysis;
use crate::engine::schema::{Mapping, ParsedDocument};
use crate::engine::translog::Durability;
use crate::error::{ErrorKind, OsError, OsResult};
use crate::shard::engine::ShardEngine;

/// One shard of an open index on this node.
#[derive(Debug)]
pub struct IndexShard {
    pub id: u32,
    pub engine: ShardEngine,
    pub(super) last_refresh: Mutex<Instant>,
    pub(super) listeners: RefreshListeners,
}

impl IndexShard {
    /// Refreshes and records the time; wakes the writes waiting for it (`refresh=wait_for`).
    pub fn refresh(&self) -> OsResult<bool> {
        self.listeners.refresh(|| {
            let r = self.engine.refresh()?;
            *self.last_refresh.lock().unwrap_or_else(|e| e.into_inner()) = Instant::now();
            Ok(r)
        })
    }

    /// `refresh=wait_for` after a write: waits for the shard's next refresh (scheduled or
    /// asked for by anyone); see [`RefreshListeners`]. Returns whether a refresh was forced.
    pub fn wait_for_refresh(&self) -> OsResult<bool> {
        self.listeners
            .wait(refresh_listeners::MAX_LISTENERS, refresh_listeners::WAIT_LIMIT, || self.refresh().map(|_| ()))
    }
}

/// An open index: its metadata, live mapping and shards.
#[derive(Debug)]
pub struct IndexService {
    pub name: String,
    pub uuid: String,
    pub(super) meta: RwLock<Arc<IndexMetadata>>,
    pub(super) mapping: Arc<RwLock<Arc<Mapping>>>,
    pub(super) analysis: Arc<IndexAnalysis>,
    pub(super) analyzers: Arc<crate::engine::analysis::AnalyzerRegistry>,
    /// The shards that opened, in shard order (one that failed to open is absent; see
    /// `open_failures`). One whose engine failed since stays here, out of serving.
    pub(super) opened: Vec<Arc<IndexShard>>,
    /// Shards that could not open (corruption, I/O errors): the index is red, its other shards
    /// serve. A corrupted copy stays failed across restarts (see [`super::corruption`]).
    pub(super) open_failures: Vec<FailedShard>,
}

/// A shard copy that failed to open, and why.
#[derive(Debug, Clone)]
pub struct FailedShard {
    pub id: u32,
    pub reason: String,
}

impl IndexService {
    /// The current metadata.
    pub fn metadata(&self) -> Arc<IndexMetadata> {
        self.meta.read().unwrap_or_else(|e| e.into_inner()).clone()
    }
    /// The index's analysis chains (built-ins plus `index.analysis.*`).
    pub fn analysis(&self) -> &Arc<IndexAnalysis> {
        &self.analysis
    }
    /// The analyzers by name (built-ins, the index's custom ones, `default`, `default_search`).
    pub fn analyzers(&self) -> &Arc<crate::engine::analysis::AnalyzerRegistry> {
        &self.analyzers
    }
    /// The current mapping.
    pub fn mapping(&self) -> Arc<Mapping> {
        self.mapping.read().unwrap_or_else(|e| e.into_inner()).clone()
    }
    /// The shards that serve, in shard order: those that opened and whose engine has not
    /// failed since (corruption found while running takes a shard out; see
    /// [`crate::shard::failure`]).
    pub fn shards(&self) -> Vec<Arc<IndexShard>> {
        self.opened.iter().filter(|s| !s.engine.failer().is_failed()).cloned().collect()
    }
    /// The serving shard `id`, if it serves.
    pub fn shard(&self, id: u32) -> Option<&Arc<IndexShard>> {
        self.opened.iter().find(|s| s.id == id && !s.engine.failer().is_failed())
    }
    /// The shards that do not serve, and why: those that failed to open and those whose
    /// engine failed while running, in shard order.
    pub fn failed(&self) -> Vec<FailedShard> {
        let mut out = self.open_failures.clone();
        for s in &self.opened {
            if s.engine.failer().is_failed() {
                let reason = s.engine.failer().failure().unwrap_or_default();
                out.push(FailedShard { id: s.id, reason: format!("shard failure, reason [{reason}]") });
            }
        }
        out.sort_by_key(|f| f.id);
        out
    }
    /// The shard a routing value (or id) maps to; OpenSearch's `unavailable_shards_exception`
    /// (503) when that shard failed.
    pub fn route(&self, routing: &str) -> OsResult<&Arc<IndexShard>> {
        let meta = self.metadata();
        let i = shard_id(routing, meta.number_of_shards(), meta.routing_num_shards);
        self.shard(i).ok_or_else(|| {
            OsError::new(ErrorKind::UnavailableShards, format!("[{}][{i}] primary shard is not active", self.name))
                .with_index(&self.name, &self.uuid)
                .with("shard", i.to_string())
        })
    }
    /// The ids of the shards that failed to open.
    pub fn failed_ids(&self) -> Vec<u32> {
        self.failed().iter().map(|f| f.id).collect()
    }
    /// Parses a document with the current mapping (keyword normalizers applied).
    pub fn parse(&self, id: &str, source: &[u8]) -> OsResult<ParsedDocument> {
        let mapping = self.mapping();
        let limits = super::mapping_limits::mapping_limits(&self.metadata().settings)?;
        let mut parsed = mapping.parse_limited(id, source, limits.doc_limits(&mapping))?;
        normalize_keywords(&mapping, &self.analysis, &mut parsed.fields);
        for n in &mut parsed.nested {
            normalize_keywords(&mapping, &self.analysis, &mut n.fields);
        }
        Ok(parsed)
    }
    pub(super) fn set_metadata(&self, m: Arc<IndexMetadata>) {
        *self.mapping.write().unwrap_or_else(|e| e.into_inner()) = m.mapping.clone();
        *self.meta.write().unwrap_or_else(|e| e.into_inner()) = m;
    }
    /// `index.translog.durability`.
    pub fn durability(&self) -> Durability {
        match self.metadata().setting("index.translog.durability") {
            Some(s) if s.eq_ignore_ascii_case("async") => Durability::Async,
            _ => Durability::Request,
        }
    }
    pub(super) fn refresh_interval(&self) -> Option<Duration> {
        let m = self.metadata();
        match m.setting("index.refresh_interval") {
            Some(s) => settings::parse_time(s, "index.refresh_interval").ok().flatten(),
            None => Some(Duration::from_secs(1)),
        }
    }
    /// Closes every shard (flushes first those that serve).
    pub(super) fn close(&self) {
        for s in &self.opened {
            if s.engine.failer().is_failed() {
                let _ = s.engine.close();
                continue;
            }
            if let Err(e) = s.engine.flush() {
                tracing::warn!(index = %self.name, shard = s.id, error = %e, "flush before close failed");
            }
            if let Err(e) = s.engine.close() {
                tracing::warn!(index = %self.name, shard = s.id, error = %e, "close failed");
            }
        }
    }
}

/// Applies keyword fields' `normalizer` to their values, as OpenSearch indexes them: the
/// normalizer's tokens (one, for a normalizer) joined.
pub fn normalize_keywords(
    mapping: &Mapping,
    analysis: &IndexAnalysis,
    fields: &mut [crate::engine::schema::IndexableField],
) {
    use crate::engine::schema::{FieldKind, FieldValue};
    for f in fields.iter_mut() {
        let FieldValue::Keyword(value) = &mut f.value else { continue };
        let Some(ft) = mapping.field_type(&f.name) else { continue };
        let FieldKind::Keyword(k) = &ft.kind else { continue };
        let Some(norm) = k.normalizer.as_deref().and_then(|n| analysis.normalizer(n)) else { continue };
        let mut out = String::new();
        norm.analyze(value, 0, &mut |t| out.push_str(t.term));
        *value = out;
    }
}

/// What happens when a running shard's engine fails (OpenSearch's `IndexShard.failShard` after
/// `Engine.failEngine`): the reason goes to the log, a corruption marks the copy corrupted
/// (written and fsynced before anything else, so the copy stays failed across a restart), and
/// the shard leaves serving ([`IndexService::shards`] skips a failed engine): writes routed to
/// it answer 503, searches count it failed, health turns the index red.
pub(super) fn shard_failure_listener(index: &str, shard: u32, base: PathBuf) -> crate::shard::failure::FailureListener {
    let index = index.to_string();
    Arc::new(move |reason: &str, corruption: bool| {
        tracing::error!(index = %index, shard, %reason, "shard failed; the index is red, its other shards serve");
        if corruption {
            if let Err(w) = super::corruption::mark(&base, &format!("failed engine (reason: [{reason}])")) {
                tracing::error!(index = %index, shard, error = %w, "could not write the corruption marker");
            }
        }
    })
}
