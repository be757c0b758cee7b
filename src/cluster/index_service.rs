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
use crate::engine::store::{Directory, FsDirectory};
use crate::engine::translog::Durability;
use crate::error::{ErrorKind, OsError, OsResult};
use crate::shard::engine::{default_config, DocumentParser, ShardConfig, ShardEngine};

/// One shard of an open index on this node.
#[derive(Debug)]
pub struct IndexShard {
    /// The index's name and uuid.
    pub index: String,
    pub index_uuid: String,
    pub id: u32,
    /// The routing table's id of this copy (see [`super::routing_table::ShardCopy`]).
    pub allocation_id: String,
    pub engine: ShardEngine,
    pub(super) last_refresh: Mutex<Instant>,
    pub(super) listeners: RefreshListeners,
    /// Primary or replica, and (primary) the copies it replicates to.
    pub replication: super::replication::ReplicationGroup,
    /// How this copy recovered when it was a peer recovery (`_recovery` shows it; the
    /// engine's own record is the store recovery of the copied files).
    pub(super) peer_recovery: Mutex<Option<crate::shard::recovery::RecoveryState>>,
    /// A primary relocation's handoff (see [`super::peer_recovery::handoff`]).
    pub handoff: super::peer_recovery::handoff::Handoff,
    /// This copy's part of the node's request cache (its key and figures).
    pub request_cache: Arc<super::request_cache::ShardRequestCache>,
    /// This copy's part of the node's query cache (its figures and filter history).
    pub query_cache: Arc<crate::engine::query::query_cache::ShardQueryCache>,
}

impl IndexShard {
    /// How this copy recovered: its peer recovery, or its engine's store recovery.
    pub fn recovery_state(&self) -> crate::shard::recovery::RecoveryState {
        let peer = self.peer_recovery.lock().unwrap_or_else(|e| e.into_inner()).clone();
        peer.unwrap_or_else(|| self.engine.recovery_state())
    }

    /// Refreshes and records the time; wakes the writes waiting for it (`refresh=wait_for`).
    pub fn refresh(&self) -> OsResult<bool> {
        self.listeners.refresh(|| {
            let r = self.engine.refresh()?;
            *self.last_refresh.lock().unwrap_or_else(|e| e.into_inner()) = Instant::now();
            Ok(r)
        })
    }

    /// Writes waiting for this copy's next refresh.
    pub fn refresh_listeners(&self) -> usize {
        self.listeners.waiting()
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
    /// The copies this node holds that opened, in shard order (one that failed to open is
    /// absent; see `open_failures`). One whose engine failed since stays here, out of serving.
    /// The applier adds and removes copies as the routing table assigns them.
    pub(super) opened: RwLock<Vec<Arc<IndexShard>>>,
    /// Copies a peer recovery is filling: their engine runs and takes replicated operations,
    /// they do not serve until the recovery finishes (then they move to `opened`).
    pub(super) recovering: RwLock<Vec<Arc<IndexShard>>>,
    /// Copies that could not open (corruption, I/O errors), by shard: the routing table learns
    /// of it; a corrupted copy stays failed across restarts (see [`super::corruption`]).
    pub(super) open_failures: RwLock<Vec<FailedShard>>,
    /// The engine configuration every copy of the index opens with.
    pub(super) config: ShardConfig,
    /// `indices/{uuid}` under the node's data directory.
    pub(super) dir: PathBuf,
    /// How a copy that fails while running is reported.
    pub(super) on_failed: Option<Hook>,
}

/// A [`CopyFailed`] held by an index service.
#[derive(Clone)]
pub struct Hook(pub CopyFailed);

impl std::fmt::Debug for Hook {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Hook")
    }
}

/// A shard copy that failed to open, and why.
#[derive(Debug, Clone)]
pub struct FailedShard {
    pub id: u32,
    pub reason: String,
}

impl IndexService {
    /// An index service holding no copy yet (the applier opens the copies assigned here):
    /// its analysis, live mapping and the engine configuration of its copies.
    pub(super) fn build(meta: Arc<IndexMetadata>, dir: PathBuf, on_failed: Option<Hook>) -> OsResult<IndexService> {
        let mapping = Arc::new(RwLock::new(meta.mapping.clone()));
        let analysis = Arc::new(super::indices::build_analysis(&meta.settings)?);
        let parser_mapping = mapping.clone();
        let parser_analysis = analysis.clone();
        let parser: DocumentParser = Arc::new(move |id: &str, source: &[u8]| {
            // Read under the lock (no copy of the mapping per document: replicas and
            // recoveries parse every operation here); a mapping update waits one parse.
            let m = parser_mapping.read().unwrap_or_else(|e| e.into_inner());
            let mut p = m.parse(id, source).map_err(|e| crate::engine::Error::InvalidArgument(e.to_string()))?;
            normalize_keywords(&m, &parser_analysis, &mut p.fields);
            for n in &mut p.nested {
                normalize_keywords(&m, &parser_analysis, &mut n.fields);
            }
            drop(m);
            Ok((p.fields, p.nested))
        });
        let analyzers = Arc::new(analysis.registry());
        let mut config = default_config(parser);
        config.writer.analyzers = analyzers.clone();
        config.primary_term = meta.primary_term;
        config.translog.durability = match meta.setting("index.translog.durability") {
            Some(s) if s.eq_ignore_ascii_case("async") => Durability::Async,
            _ => Durability::Request,
        };
        if let Some(Some(d)) = meta
            .setting("index.translog.sync_interval")
            .map(|s| settings::parse_time(s, "sync_interval").ok().flatten())
        {
            config.translog.sync_interval = d;
        }
        Ok(IndexService {
            name: meta.name.clone(),
            uuid: meta.uuid.clone(),
            meta: RwLock::new(meta),
            mapping,
            analysis,
            analyzers,
            opened: RwLock::new(Vec::new()),
            recovering: RwLock::new(Vec::new()),
            open_failures: RwLock::new(Vec::new()),
            config,
            dir,
            on_failed,
        })
    }

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
        self.opened_now().into_iter().filter(|s| !s.engine.failer().is_failed()).collect()
    }
    fn opened_now(&self) -> Vec<Arc<IndexShard>> {
        self.opened.read().unwrap_or_else(|e| e.into_inner()).clone()
    }
    /// The serving shard `id`, if it serves here.
    pub fn shard(&self, id: u32) -> Option<Arc<IndexShard>> {
        self.opened_now().into_iter().find(|s| s.id == id && !s.engine.failer().is_failed())
    }
    /// The copy of shard `id` this node holds, serving or failed.
    pub(super) fn held(&self, id: u32) -> Option<Arc<IndexShard>> {
        self.opened_now().into_iter().find(|s| s.id == id)
    }
    /// The shards that do not serve, and why: those that failed to open and those whose
    /// engine failed while running, in shard order.
    pub fn failed(&self) -> Vec<FailedShard> {
        let mut out = self.open_failures.read().unwrap_or_else(|e| e.into_inner()).clone();
        for s in self.opened_now() {
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
    pub fn route(&self, routing: &str) -> OsResult<Arc<IndexShard>> {
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
    /// Closes every copy (flushes first those that serve).
    pub(super) fn close(&self) {
        let all: Vec<_> = std::mem::take(&mut *self.opened.write().unwrap_or_else(|e| e.into_inner()));
        for s in all {
            close_copy(&self.name, &s);
        }
    }

    /// Closes the copy of shard `id` this node holds (it is no longer assigned here).
    pub(super) fn close_shard(&self, id: u32) {
        let taken = {
            let mut o = self.opened.write().unwrap_or_else(|e| e.into_inner());
            let pos = o.iter().position(|s| s.id == id);
            pos.map(|p| o.remove(p))
        };
        if let Some(s) = taken {
            close_copy(&self.name, &s);
        }
        self.open_failures.write().unwrap_or_else(|e| e.into_inner()).retain(|f| f.id != id);
    }

    /// `indices/{uuid}/{shard}`: the copy's store (`index/`) and translog (`translog/`).
    pub(super) fn shard_dir(&self, id: u32) -> PathBuf {
        self.dir.join(id.to_string())
    }

    /// Opens (recovers) this node's copy of shard `id` with `allocation_id` and `primary_term`
    /// and adds it to the serving copies; on failure records why (a corruption also marks the
    /// copy so it stays failed across restarts) and returns the reason.
    pub(super) fn open_shard(
        &self,
        id: u32,
        allocation_id: &str,
        primary_term: u64,
        primary: bool,
    ) -> Result<(), String> {
        let base = self.shard_dir(id);
        let fail = |reason: String| {
            let mut f = self.open_failures.write().unwrap_or_else(|e| e.into_inner());
            f.retain(|x| x.id != id);
            f.push(FailedShard { id, reason: reason.clone() });
            f.sort_by_key(|x| x.id);
            reason
        };
        if let Some(reason) = super::corruption::marked(&base) {
            tracing::error!(index = %self.name, shard = id, %reason, "shard copy is marked corrupted; it stays failed until the marker is removed");
            return Err(fail(reason));
        }
        match self.open_engine(id, allocation_id, primary_term) {
            Ok(engine) => {
                let shard = Arc::new(self.new_shard(id, allocation_id, engine, primary, primary_term));
                self.open_failures.write().unwrap_or_else(|e| e.into_inner()).retain(|x| x.id != id);
                let mut o = self.opened.write().unwrap_or_else(|e| e.into_inner());
                o.retain(|x| x.id != id);
                o.push(shard);
                o.sort_by_key(|x| x.id);
                Ok(())
            }
            Err(e) => {
                let reason = format!("failed to recover from gateway: {e}");
                tracing::error!(index = %self.name, shard = id, error = %e, "shard failed to open; its other shards serve");
                if super::corruption::is_corruption(&e) {
                    if let Err(w) = super::corruption::mark(&base, &reason) {
                        tracing::error!(index = %self.name, shard = id, error = %w, "could not write the corruption marker");
                    }
                }
                Err(fail(reason))
            }
        }
    }
}

impl IndexService {
    /// Opens the engine of this node's copy of shard `id` from its store.
    pub(super) fn open_engine(
        &self,
        id: u32,
        allocation_id: &str,
        primary_term: u64,
    ) -> Result<ShardEngine, crate::engine::Error> {
        let base = self.shard_dir(id);
        let mut config = self.config.clone();
        config.primary_term = primary_term;
        let report = self.on_failed.clone().map(|r| (allocation_id.to_string(), r.0));
        config.on_failure = Some(shard_failure_listener(&self.name, id, base.clone(), report));
        let index_dir: Arc<dyn Directory> = Arc::new(FsDirectory::open(base.join("index"))?);
        let translog_dir: Arc<dyn Directory> = Arc::new(FsDirectory::open(base.join("translog"))?);
        ShardEngine::open(index_dir, translog_dir, config)
    }

    /// A copy around an opened engine.
    pub(super) fn new_shard(
        &self,
        id: u32,
        allocation_id: &str,
        engine: ShardEngine,
        primary: bool,
        term: u64,
    ) -> IndexShard {
        IndexShard {
            index: self.name.clone(),
            index_uuid: self.uuid.clone(),
            id,
            allocation_id: allocation_id.to_string(),
            engine,
            last_refresh: Mutex::new(Instant::now()),
            listeners: RefreshListeners::default(),
            replication: super::replication::ReplicationGroup::new(primary, term),
            peer_recovery: Mutex::new(None),
            handoff: Default::default(),
            request_cache: Default::default(),
            query_cache: Default::default(),
        }
    }

    /// The translog settings copies of this index open with.
    pub(super) fn translog_config(&self) -> crate::engine::translog::TranslogConfig {
        self.config.translog.clone()
    }

    /// The copy of shard `id` with `allocation_id`, serving or recovering.
    pub(super) fn copy_with(&self, id: u32, allocation_id: &str) -> Option<Arc<IndexShard>> {
        let held = self.held(id).filter(|s| s.allocation_id == allocation_id);
        held.or_else(|| {
            self.recovering
                .read()
                .unwrap_or_else(|e| e.into_inner())
                .iter()
                .find(|s| s.id == id && s.allocation_id == allocation_id)
                .cloned()
        })
    }

    /// A recovered copy starts serving.
    pub(super) fn finish_recovery(&self, shard: &Arc<IndexShard>) {
        self.recovering.write().unwrap_or_else(|e| e.into_inner()).retain(|s| !Arc::ptr_eq(s, shard));
        let mut o = self.opened.write().unwrap_or_else(|e| e.into_inner());
        o.retain(|x| x.id != shard.id);
        o.push(shard.clone());
        o.sort_by_key(|x| x.id);
    }

    /// Drops a recovering copy (its recovery failed or was cancelled) and closes its engine.
    pub(super) fn drop_recovering(&self, id: u32) {
        let taken: Vec<_> = {
            let mut r = self.recovering.write().unwrap_or_else(|e| e.into_inner());
            let (gone, keep) = std::mem::take(&mut *r).into_iter().partition(|s| s.id == id);
            *r = keep;
            gone
        };
        for s in taken {
            let _ = s.engine.close();
        }
    }
}

/// Flushes (when it serves) and closes one copy.
fn close_copy(index: &str, s: &IndexShard) {
    if s.engine.failer().is_failed() {
        let _ = s.engine.close();
        return;
    }
    if let Err(e) = s.engine.flush() {
        tracing::warn!(index = %index, shard = s.id, error = %e, "flush before close failed");
    }
    if let Err(e) = s.engine.close() {
        tracing::warn!(index = %index, shard = s.id, error = %e, "close failed");
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
pub(super) fn shard_failure_listener(
    index: &str,
    shard: u32,
    base: PathBuf,
    report: Option<(String, CopyFailed)>,
) -> crate::shard::failure::FailureListener {
    let index = index.to_string();
    Arc::new(move |reason: &str, corruption: bool| {
        tracing::error!(index = %index, shard, %reason, "shard failed; the index is red, its other shards serve");
        if corruption {
            if let Err(w) = super::corruption::mark(&base, &format!("failed engine (reason: [{reason}])")) {
                tracing::error!(index = %index, shard, error = %w, "could not write the corruption marker");
            }
        }
        // The cluster manager fails the copy in the routing table (OpenSearch's shard-failed
        // action): the copy leaves the in-sync set, a replica may take over.
        if let Some((allocation_id, report)) = &report {
            report(&index, shard, allocation_id, &format!("shard failure, reason [{reason}]"));
        }
    })
}

/// Tells the cluster manager a copy failed: `(index, shard, allocation id, reason)`.
pub type CopyFailed = Arc<dyn Fn(&str, u32, &str, &str) + Send + Sync>;
