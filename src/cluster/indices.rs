//! The node's indices (each open index's [`IndexService`]) and
//! the operations that change metadata (create, delete, open, close, mapping and settings
//! updates). Metadata changes are serialised by one lock (OpenSearch's cluster-state update
//! thread) and persisted before they take effect.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Condvar, Mutex, RwLock};
use std::time::Instant;

use serde_json::{json, Value};

pub use super::index_service::{IndexService, IndexShard};
use super::metadata::{AliasMetadata, IndexMetadata, IndexState, Metadata, VERSION_CREATED};
use super::routing::default_routing_shards;
use super::settings::{self, FlatSettings};
use super::state::{ClusterState, LocalPublisher, StatePublisher};
use super::state_file;
use crate::engine::analysis::{AnalysisError, IndexAnalysis};
use crate::engine::schema::Mapping;
use crate::engine::store::{Directory, FsDirectory};
use crate::error::{ErrorKind, OsError, OsResult};

/// Node identity shown by the APIs.
#[derive(Debug, Clone)]
pub struct NodeIdentity {
    pub cluster_name: String,
    pub node_name: String,
    pub node_id: String,
    pub roles: Vec<String>,
    pub attributes: Vec<(String, String)>,
    pub host: String,
    pub http_address: String,
}

/// The node's view of the cluster: the cluster state it applied and its open indices.
#[derive(Debug)]
pub struct ClusterService {
    pub node: NodeIdentity,
    pub(super) data: PathBuf,
    pub(super) state_dir: Arc<dyn Directory>,
    /// The last applied cluster state.
    pub(super) state: RwLock<Arc<ClusterState>>,
    /// Serialises applying; counts the applied versions and the state file's generation.
    pub(super) applied: Mutex<Applied>,
    /// Woken after each applied state.
    pub(super) applied_cv: Condvar,
    publisher: RwLock<Arc<dyn StatePublisher>>,
    pub(super) services: RwLock<HashMap<String, Arc<IndexService>>>,
    pub started: Instant,
    /// The coordination, once the node has started it (server builds).
    coordination: std::sync::OnceLock<Arc<dyn super::coordination_view::Coordination>>,
    /// `host:port` the transport is bound to, once it is.
    transport_address: std::sync::OnceLock<String>,
    /// Calls to other nodes, once the transport runs.
    remote: std::sync::OnceLock<Arc<dyn super::remote::NodeClient>>,
    /// This service itself (for the threads that report failed copies).
    pub(super) me: std::sync::OnceLock<std::sync::Weak<ClusterService>>,
    /// Peer recoveries this node serves or runs.
    pub(crate) recoveries: super::peer_recovery::Recoveries,
    /// The node's own values of cluster settings (`-E`, `opensearch.yml`): the layer under the
    /// persistent and transient ones.
    node_cluster_settings: std::sync::OnceLock<serde_json::Map<String, serde_json::Value>>,
    /// The node's shard request cache (see [`super::request_cache`]).
    pub request_cache: Arc<super::request_cache::RequestCache>,
    /// The node's circuit breakers; read them through [`ClusterService::breakers`], which
    /// brings their limits up to the cluster settings.
    breakers: Arc<super::breakers::Breakers>,
    /// The node's fielddata cache.
    pub fielddata: Arc<super::fielddata_cache::FielddataCache>,
    /// The node's query (filter) cache (see [`crate::engine::query::query_cache`]).
    pub query_cache: Arc<crate::engine::query::query_cache::QueryCache>,
    /// The cluster-state updates this node submitted and has not applied yet.
    pub pending: Arc<super::pending::Pending>,
    /// Node-wide counters (HTTP connections, indexing pressure, the transport's reader).
    pub counters: Arc<super::node_counters::NodeCounters>,
}

/// How long a metadata update waits for the other nodes to apply it (OpenSearch's default
/// ack `timeout`).
const ACK_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(30);

/// What the applier has done so far.
#[derive(Debug, Default)]
pub(super) struct Applied {
    /// The version last applied from the current publisher (0: none yet).
    pub version: u64,
    /// The state file's generation.
    pub gen: u64,
}

/// A random 22-character URL-safe id (index and cluster uuids).
pub fn new_uuid() -> String {
    use base64::Engine;
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(crate::engine::segment::random_id())
}

/// Checks an index name as OpenSearch's `MetadataCreateIndexService.validateIndexOrAliasName` does.
pub fn validate_index_name(name: &str) -> OsResult<()> {
    let invalid = |why: &str| {
        OsError::new(ErrorKind::InvalidIndexName, format!("Invalid index name [{name}], {why}"))
            .with("index", name)
            .with("index_uuid", "_na_")
    };
    if name.is_empty() {
        return Err(invalid("must not be empty"));
    }
    if name.contains(['\\', '/', '*', '?', '"', '<', '>', '|', ' ', ',']) {
        return Err(invalid("must not contain the following characters [ , \", *, \\, <, |, ,, >, /, ?]"));
    }
    if name.contains('#') {
        return Err(invalid("must not contain '#'"));
    }
    if name.contains(':') {
        return Err(invalid("must not contain ':'"));
    }
    if name.starts_with(['_', '-', '+']) {
        return Err(invalid("must not start with '_', '-', or '+'"));
    }
    if name != name.to_lowercase() {
        return Err(invalid("must be lowercase"));
    }
    if name == "." || name == ".." {
        return Err(invalid("must not be '.' or '..'"));
    }
    if name.len() > 255 {
        return Err(invalid(&format!("index name is too long, ({} > 255)", name.len())));
    }
    Ok(())
}

fn analysis_error(e: AnalysisError) -> OsError {
    OsError::new(e.kind, e.reason)
}

/// Builds an index's analysis from its flat settings.
pub fn build_analysis(flat: &FlatSettings) -> OsResult<IndexAnalysis> {
    IndexAnalysis::from_settings(&settings::nest(flat)).map_err(analysis_error)
}

/// Every analyzer and normalizer a mapping names must exist (OpenSearch's messages).
pub fn check_mapping_analyzers(mapping: &Mapping, analysis: &IndexAnalysis) -> OsResult<()> {
    use crate::engine::schema::FieldKind;
    fn check(path: &str, ft: &crate::engine::schema::FieldType, a: &IndexAnalysis) -> OsResult<()> {
        match &ft.kind {
            FieldKind::Text(p) => {
                for (what, name) in [("analyzer", &p.analyzer), ("search_analyzer", &p.search_analyzer)] {
                    if let Some(n) = name {
                        if a.analyzer(n).is_none() {
                            return Err(OsError::new(ErrorKind::MapperParsing, format!("Failed to parse mapping [_doc]: analyzer [{n}] has not been configured in mappings"))
                                .caused_by(OsError::new(ErrorKind::MapperParsing, format!("{what} [{n}] has not been configured in mappings"))));
                        }
                    }
                }
            }
            FieldKind::TokenCount { analyzer: n, .. } if a.analyzer(n).is_none() => {
                return Err(OsError::new(
                    ErrorKind::MapperParsing,
                    format!("Failed to parse mapping [_doc]: analyzer [{n}] has not been configured in mappings"),
                )
                .caused_by(OsError::new(
                    ErrorKind::MapperParsing,
                    format!("analyzer [{n}] has not been configured in mappings"),
                )));
            }
            FieldKind::Keyword(_) | FieldKind::FlatObject(_) => {
                let normalizer = match &ft.kind {
                    FieldKind::Keyword(k) => k.normalizer.as_deref(),
                    FieldKind::FlatObject(p) => p.normalizer(),
                    _ => None,
                };
                if let Some(n) = normalizer {
                    if a.normalizer(n).is_none() {
                        return Err(OsError::new(
                            ErrorKind::MapperParsing,
                            format!("Failed to parse mapping [_doc]: normalizer [{n}] not found for field [{path}]"),
                        )
                        .caused_by(OsError::new(
                            ErrorKind::MapperParsing,
                            format!("normalizer [{n}] not found for field [{path}]"),
                        )));
                    }
                }
            }
            _ => {}
        }
        for (sub, st) in &ft.fields {
            check(&format!("{path}.{sub}"), st, a)?;
        }
        Ok(())
    }
    for (path, ft) in mapping.leaf_fields() {
        check(&path, ft, analysis)?;
    }
    Ok(())
}

/// What a create-index request asks for (after templates were applied).
#[derive(Debug, Clone, Default)]
pub struct CreateIndex {
    pub name: String,
    pub settings: FlatSettings,
    pub mappings: Option<Value>,
    pub aliases: Vec<(String, AliasMetadata)>,
}

impl ClusterService {
    /// Opens the node's data: loads the metadata it last applied and opens (recovers) the
    /// copies of every open index, as a one-node cluster publishing to its own state file
    /// (see [`LocalPublisher`]); a node with coordination moves to it with
    /// [`ClusterService::set_publisher`].
    pub fn open(path_data: &Path, node: NodeIdentity) -> OsResult<Arc<ClusterService>> {
        let cs = ClusterService::open_deferred(path_data, node)?;
        cs.recover_local()?;
        Ok(cs)
    }

    /// Opens the node's data without opening any copy: the metadata it last applied is the
    /// state until the coordination publishes (see [`ClusterService::set_publisher`]), or until
    /// [`ClusterService::recover_local`].
    pub fn open_deferred(path_data: &Path, node: NodeIdentity) -> OsResult<Arc<ClusterService>> {
        let data = path_data.join("nodes").join("0");
        let state_dir: Arc<dyn Directory> = Arc::new(FsDirectory::open(data.join("_state"))?);
        let (gen, metadata) = match state_file::load(&state_dir)? {
            Some((g, v)) => (g, Metadata::from_state_json(&v)?),
            None => (0, Metadata { cluster_uuid: new_uuid(), ..Default::default() }),
        };
        let me = super::state::member_of(&node, &format!("{}:9300", node.host));
        let initial =
            Arc::new(ClusterState { nodes: Arc::new(vec![me]), metadata: Arc::new(metadata), ..Default::default() });
        let cs = Arc::new(ClusterService {
            node,
            data,
            state_dir,
            state: RwLock::new(initial.clone()),
            applied: Mutex::new(Applied { version: 0, gen }),
            applied_cv: Condvar::new(),
            publisher: RwLock::new(Arc::new(LocalPublisher::new(initial))),
            services: RwLock::new(HashMap::new()),
            started: Instant::now(),
            coordination: std::sync::OnceLock::new(),
            transport_address: std::sync::OnceLock::new(),
            remote: std::sync::OnceLock::new(),
            me: std::sync::OnceLock::new(),
            recoveries: Default::default(),
            node_cluster_settings: Default::default(),
            request_cache: Default::default(),
            breakers: Default::default(),
            fielddata: Default::default(),
            query_cache: Default::default(),
            pending: Default::default(),
            counters: Default::default(),
        });
        let _ = cs.me.set(Arc::downgrade(&cs));
        Ok(cs)
    }

    /// A node on its own: deletes index directories its metadata does not name (a delete that
    /// crashed before removing them) and publishes the first state, every copy assigned here.
    pub fn recover_local(&self) -> OsResult<()> {
        let md = self.metadata();
        self.delete_dangling_dirs(&md);
        self.publish(&mut |cur| Ok(Some(self.rerouted(cur, md.clone()))))?;
        Ok(())
    }

    pub(super) fn publisher(&self) -> Arc<dyn StatePublisher> {
        self.publisher.read().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// Moves to another publisher (the coordination): states are applied from its versions on.
    pub fn set_publisher(&self, p: Arc<dyn StatePublisher>) {
        let mut a = self.applied.lock().unwrap_or_else(|e| e.into_inner());
        *self.publisher.write().unwrap_or_else(|e| e.into_inner()) = p;
        a.version = 0;
    }

    fn delete_dangling_dirs(&self, md: &Metadata) {
        let Ok(entries) = std::fs::read_dir(self.data.join("indices")) else { return };
        for e in entries.flatten() {
            let name = e.file_name().to_string_lossy().to_string();
            if !md.indices.values().any(|m| m.uuid == name) {
                tracing::info!(dir = %name, "deleting index directory not in the metadata");
                let _ = std::fs::remove_dir_all(e.path());
            }
        }
    }

    fn services_mut(&self) -> std::sync::RwLockWriteGuard<'_, HashMap<String, Arc<IndexService>>> {
        self.services.write().unwrap_or_else(|e| e.into_inner())
    }

    /// Records the running coordination and the transport address (once, at node start).
    pub fn set_coordination(&self, c: Arc<dyn super::coordination_view::Coordination>, transport_address: String) {
        let _ = self.coordination.set(c);
        let _ = self.transport_address.set(transport_address);
    }

    /// Records the node's own values of cluster settings (once, at node start).
    pub fn set_node_cluster_settings(&self, m: serde_json::Map<String, serde_json::Value>) {
        let _ = self.node_cluster_settings.set(m);
    }

    /// The effective cluster settings of `md`: the node's values, then persistent, then
    /// transient.
    pub fn cluster_settings(&self, md: &Metadata) -> serde_json::Map<String, serde_json::Value> {
        let empty = serde_json::Map::new();
        super::cluster_settings::effective(self.node_cluster_settings.get().unwrap_or(&empty), md)
    }

    /// The node's circuit breakers, their limits as the applied cluster settings set them.
    pub fn breakers(&self) -> &Arc<super::breakers::Breakers> {
        let st = self.state();
        self.breakers.refresh_limits(st.version, || self.cluster_settings(&st.metadata));
        &self.breakers
    }

    /// The node's own values of cluster settings.
    pub fn node_cluster_settings(&self) -> serde_json::Map<String, serde_json::Value> {
        self.node_cluster_settings.get().cloned().unwrap_or_default()
    }

    /// The node's data directory (`{path.data}/nodes/0`).
    pub fn data_path(&self) -> PathBuf {
        self.data.clone()
    }

    /// Records how to reach other nodes (once, at node start).
    pub fn set_node_client(&self, c: Arc<dyn super::remote::NodeClient>) {
        let _ = self.remote.set(c);
    }

    /// Sends `action` to the node `node_id` of the cluster state and waits for its answer.
    pub fn send(
        &self,
        node_id: &str,
        action: &str,
        payload: Vec<u8>,
        timeout: std::time::Duration,
    ) -> OsResult<Vec<u8>> {
        let st = self.state();
        let node = st
            .node(node_id)
            .ok_or_else(|| OsError::new(ErrorKind::NodeNotConnected, format!("[{node_id}] Node not connected")))?;
        let client = self.remote.get().ok_or_else(|| {
            OsError::new(ErrorKind::NodeNotConnected, format!("[{node_id}] Node not connected (no transport)"))
        })?;
        client.send(node, action, payload, timeout)
    }

    /// The coordination as this node sees it, once it runs.
    pub fn coordination(&self) -> Option<super::coordination_view::CoordinationView> {
        self.coordination.get().map(|c| c.view())
    }

    /// Whether a cluster manager is elected (true without coordination: a node alone).
    pub fn has_cluster_manager(&self) -> bool {
        self.coordination.get().is_none_or(|c| c.has_cluster_manager())
    }

    /// `host:port` of this node's transport (`host:9300` before it is bound).
    pub fn transport_address(&self) -> String {
        self.transport_address.get().cloned().unwrap_or_else(|| format!("{}:9300", self.node.host))
    }

    /// The current metadata.
    pub fn metadata(&self) -> Arc<Metadata> {
        self.state().metadata.clone()
    }

    /// The cluster state this node applied last.
    pub fn state(&self) -> Arc<ClusterState> {
        self.state.read().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// Applies `f` to a copy of the metadata and publishes the result (with the routing table
    /// that follows from it); returns once this node applied it. `f` returns whether it changed
    /// anything; it may run more than once (when another publication came first).
    pub fn update<R>(&self, mut f: impl FnMut(&mut Metadata) -> OsResult<(bool, R)>) -> OsResult<R> {
        let mut out: Option<R> = None;
        let mut changed = false;
        let st = self.publish(&mut |cur| {
            changed = false;
            let mut md = (*cur.metadata).clone();
            let (changed_now, r) = f(&mut md)?;
            out = Some(r);
            if !changed_now {
                return Ok(None);
            }
            changed = true;
            md.version += 1;
            Ok(Some(self.rerouted(cur, Arc::new(md))))
        })?;
        if changed {
            // Acknowledged once every node applied it (or the ack timeout passed).
            self.publisher().await_applied(&st, ACK_TIMEOUT);
        }
        out.ok_or_else(|| OsError::internal("the metadata update did not run"))
    }

    /// The service of an open index, or `index_not_found` / `index_closed`.
    pub fn index(&self, name: &str) -> OsResult<Arc<IndexService>> {
        if let Some(s) = self.services.read().unwrap_or_else(|e| e.into_inner()).get(name) {
            return Ok(s.clone());
        }
        match self.metadata().indices.get(name) {
            Some(m) if m.state == IndexState::Close => Err(OsError::index_closed(name, &m.uuid)),
            _ => Err(OsError::index_not_found(name)),
        }
    }

    /// Every open index service.
    pub fn open_indices(&self) -> Vec<Arc<IndexService>> {
        let mut v: Vec<_> = self.services.read().unwrap_or_else(|e| e.into_inner()).values().cloned().collect();
        v.sort_by(|a, b| a.name.cmp(&b.name));
        v
    }

    pub(super) fn index_dir(&self, uuid: &str) -> PathBuf {
        self.data.join("indices").join(uuid)
    }

    /// The store directory of shard `shard` of the index with `uuid` (the segment files and
    /// commit points; the translog sits beside it).
    pub fn shard_store_path(&self, uuid: &str, shard: u32) -> PathBuf {
        self.index_dir(uuid).join(shard.to_string()).join("index")
    }

    /// Creates an index (templates already applied by the caller).
    pub fn create_index(&self, req: CreateIndex) -> OsResult<Arc<IndexMetadata>> {
        validate_index_name(&req.name)?;
        settings::validate_new(&req.settings)?;
        let mapping = match &req.mappings {
            Some(m) if !m.as_object().is_some_and(|o| o.is_empty()) => {
                Mapping::from_json(m).and_then(|m| m.validate_aliases().map(|()| m)).map_err(|e| {
                    OsError::new(ErrorKind::MapperParsing, format!("Failed to parse mapping [_doc]: {}", e.reason))
                        .caused_by(OsError::from(e))
                })?
            }
            _ => Mapping::new_dynamic(),
        };
        let analysis = build_analysis(&req.settings)?;
        check_mapping_analyzers(&mapping, &analysis)?;
        super::mapping_limits::check_mapping(&req.settings, &mapping)?;
        let name = req.name.clone();
        let mapping = Arc::new(mapping);
        let _source = super::pending::source(format!("create-index [{name}], cause [api]"));
        let node = self.update(|md| {
            if let Some(m) = md.indices.get(&name) {
                return Err(OsError::index_exists(&name, &m.uuid));
            }
            if md.is_alias(&name) {
                return Err(OsError::new(ErrorKind::InvalidIndexName, format!("Invalid index name [{name}], already exists as alias"))
                    .with("index", name.as_str())
                    .with("index_uuid", "_na_"));
            }
            for (alias, _) in &req.aliases {
                if md.indices.contains_key(alias) || *alias == name {
                    return Err(OsError::new(ErrorKind::InvalidAliasName, format!("Invalid alias name [{alias}]: an index or data stream exists with the same name as the alias")).with("index", alias.as_str()));
                }
            }
            let uuid = new_uuid();
            let mut s = req.settings.clone();
            s.entry("index.number_of_shards".into()).or_insert(json!("1"));
            s.entry("index.number_of_replicas".into()).or_insert(json!("1"));
            s.insert("index.uuid".into(), json!(uuid));
            s.insert("index.creation_date".into(), json!(crate::clock::now_millis().to_string()));
            s.insert("index.version.created".into(), json!(VERSION_CREATED));
            s.insert("index.provided_name".into(), json!(name));
            s.entry("index.replication.type".into()).or_insert(json!("DOCUMENT"));
            let shards = settings::get_int(&s, "index.number_of_shards", 1, 1, 1024)? as u32;
            let routing_shards = match settings::get_str(&s, "index.number_of_routing_shards") {
                Some(v) => v.parse::<u32>().map_err(|_| OsError::illegal(format!("Failed to parse value [{v}] for setting [index.number_of_routing_shards]")))?,
                None => default_routing_shards(shards),
            };
            let meta = Arc::new(IndexMetadata {
                name: name.clone(),
                uuid,
                state: IndexState::Open,
                settings: s,
                mapping: mapping.clone(),
                aliases: req.aliases.iter().cloned().collect(),
                routing_num_shards: routing_shards,
                primary_term: 1,
                version: 1,
                mapping_version: 1,
                settings_version: 1,
                aliases_version: 1,
            });
            md.indices.insert(name.clone(), meta.clone());
            Ok((true, meta))
        })?;
        // A new primary that cannot open fails the create on a one-node cluster as before
        // (nothing of it is kept); elsewhere the copy is retried on other nodes.
        if let Ok(svc) = self.index(&name) {
            let failed = svc.open_failures.read().unwrap_or_else(|e| e.into_inner()).first().cloned();
            if let Some(f) = failed {
                if self.state().nodes.len() == 1 {
                    let _ = self.delete_indices(std::slice::from_ref(&name));
                    return Err(OsError::new(ErrorKind::IndexShardRecovery, f.reason)
                        .status(500)
                        .with_index(&node.name, &node.uuid)
                        .with("shard", f.id.to_string()));
                }
            }
        }
        Ok(node)
    }

    /// Deletes indices by exact name.
    pub fn delete_indices(&self, names: &[String]) -> OsResult<()> {
        let _source = super::pending::source(format!("delete-index {names:?}"));
        let removed = self.update(|md| {
            let mut removed = Vec::new();
            for n in names {
                match md.indices.remove(n) {
                    Some(m) => removed.push(m),
                    None => return Err(OsError::index_not_found(n)),
                }
            }
            Ok((!removed.is_empty(), removed))
        })?;
        // The applier closed their copies and deleted their files.
        drop(removed);
        Ok(())
    }

    /// Closes indices.
    pub fn close_indices(&self, names: &[String]) -> OsResult<()> {
        let _source = super::pending::source(format!("close-indices {names:?}"));
        self.update(|md| {
            let mut changed = false;
            for n in names {
                let m = md.indices.get(n).ok_or_else(|| OsError::index_not_found(n))?;
                if m.state == IndexState::Close {
                    continue;
                }
                let mut nm = (**m).clone();
                nm.state = IndexState::Close;
                nm.version += 1;
                md.indices.insert(n.clone(), Arc::new(nm));
                changed = true;
            }
            Ok((changed, ()))
        })
    }

    /// Opens closed indices (recovering their shards).
    pub fn open_indices_by_name(&self, names: &[String]) -> OsResult<()> {
        let _source = super::pending::source(format!("open-indices {names:?}"));
        self.update(|md| {
            let mut changed = false;
            for n in names {
                let m = md.indices.get(n).ok_or_else(|| OsError::index_not_found(n))?;
                if m.state == IndexState::Open {
                    continue;
                }
                let mut nm = (**m).clone();
                nm.state = IndexState::Open;
                nm.version += 1;
                md.indices.insert(n.clone(), Arc::new(nm));
                changed = true;
            }
            Ok((changed, ()))
        })
    }

    /// Replaces an index's metadata through `f` (mapping, settings, aliases updates) and
    /// publishes it to the open service.
    pub fn update_index(
        &self,
        name: &str,
        mut f: impl FnMut(&mut IndexMetadata) -> OsResult<bool>,
    ) -> OsResult<Arc<IndexMetadata>> {
        let meta = self.update(|md| {
            let m = md.indices.get(name).ok_or_else(|| OsError::index_not_found(name))?;
            let mut nm = (**m).clone();
            if !f(&mut nm)? {
                return Ok((false, m.clone()));
            }
            nm.version += 1;
            let nm = Arc::new(nm);
            md.indices.insert(name.to_string(), nm.clone());
            Ok((true, nm))
        })?;
        Ok(meta)
    }

    /// Merges a dynamic mapping update from a document into the index mapping (persisted before
    /// the document is indexed, so translog replay parses it with the same mapping).
    pub fn apply_mapping_update(&self, name: &str, update: &Mapping) -> OsResult<()> {
        let _source = super::pending::source(format!("put-mapping [{name}]"));
        self.update_index(name, |m| {
            let merged = m.mapping.merge(update)?;
            if merged == *m.mapping {
                return Ok(false);
            }
            super::mapping_limits::check_mapping(&m.settings, &merged)?;
            m.mapping = Arc::new(merged);
            m.mapping_version += 1;
            Ok(true)
        })
        .map(|_| ())
    }

    /// Refreshes shards whose `refresh_interval` elapsed (called by the scheduler thread).
    pub fn scheduled_refresh(&self) {
        for svc in self.open_indices() {
            let Some(interval) = svc.refresh_interval() else { continue };
            for s in svc.shards() {
                let due = s.last_refresh.lock().unwrap_or_else(|e| e.into_inner()).elapsed() >= interval;
                if due {
                    if let Err(e) = s.refresh() {
                        tracing::warn!(index = %svc.name, shard = s.id, error = %e, "scheduled refresh failed");
                    }
                }
            }
        }
    }

    /// Flushes and closes every shard (node shutdown).
    pub fn shutdown(&self) {
        let services: Vec<_> = self.services_mut().drain().map(|(_, s)| s).collect();
        for s in services {
            s.close();
        }
    }
}
