//! Single-document actions: index, create, get, delete, and the write-target resolution they
//! share (aliases with a write index, auto-creation with templates, `require_alias`).

use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{json, Map, Value};

use super::deferred::Deferred;
use super::source_filter::SourceFilter;
use super::templates;
use crate::cluster::blocks::Level;
use crate::cluster::health::effective_replicas;
use crate::cluster::replication::Replicated;
use crate::cluster::{ClusterService, CreateIndex, IndexService, IndexShard};
use crate::error::{ErrorKind, OsError, OsResult};
use crate::shard::engine::{IndexOp, WriteResult};
use crate::shard::versioning::{Constraints, VersionType};

pub mod active_shards;
mod ids;
pub mod mget;
pub mod remote_get;
pub mod remote_write;

use active_shards::ActiveShardCount;
pub use ids::generate_id;

/// `wait_for_active_shards` and `timeout` of a write request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ActiveWait {
    pub want: ActiveShardCount,
    pub timeout: Duration,
}

impl Default for ActiveWait {
    fn default() -> Self {
        ActiveWait { want: ActiveShardCount::Default, timeout: active_shards::DEFAULT_TIMEOUT }
    }
}

impl ActiveWait {
    /// Checks shard `shard` of `svc` (waiting up to the timeout); `describe` renders the
    /// request for the error message.
    pub fn check(
        &self,
        cs: &ClusterService,
        svc: &IndexService,
        shard: u32,
        describe: impl FnOnce() -> String,
    ) -> OsResult<()> {
        active_shards::check(cs, svc, shard, self.want, self.timeout, Instant::now() + self.timeout)
            .map_err(|s| s.error(&describe()))
    }
}

/// `refresh` of a write request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Refresh {
    #[default]
    False,
    True,
    WaitFor,
}

impl Refresh {
    /// What the write's replicas do about refresh.
    pub fn for_replicas(self) -> crate::cluster::replication::ReplicaRefresh {
        use crate::cluster::replication::ReplicaRefresh;
        match self {
            Refresh::False => ReplicaRefresh::No,
            Refresh::True => ReplicaRefresh::Now,
            Refresh::WaitFor => ReplicaRefresh::WaitFor,
        }
    }

    /// Parses `refresh=` (`""` and `true` mean true).
    pub fn parse(s: Option<&str>) -> OsResult<Refresh> {
        match s {
            None | Some("false") => Ok(Refresh::False),
            Some("") | Some("true") => Ok(Refresh::True),
            Some("wait_for") => Ok(Refresh::WaitFor),
            Some(other) => Err(OsError::illegal(format!("Unknown value for refresh: [{other}]."))),
        }
    }
}

/// Parses `version_type`.
pub fn parse_version_type(s: Option<&str>) -> OsResult<VersionType> {
    match s {
        None | Some("internal") => Ok(VersionType::Internal),
        Some("external") => Ok(VersionType::External),
        Some("external_gte") => Ok(VersionType::ExternalGte),
        Some("force") => Err(OsError::validation(&["version type [force] may no longer be used".into()])),
        Some(other) => Err(OsError::illegal(format!("No version type match [{other}]"))),
    }
}

/// An index (or create) request.
#[derive(Debug, Clone, Default)]
pub struct IndexRequest {
    pub index: String,
    pub id: Option<String>,
    pub routing: Option<String>,
    pub source: Vec<u8>,
    pub constraints: Constraints,
    pub refresh: Refresh,
    pub require_alias: bool,
    pub pipeline: Option<String>,
    pub wait: ActiveWait,
}

/// The outcome of a write, rendered by [`write_response`].
#[derive(Debug, Clone)]
pub struct WriteOutcome {
    pub index: String,
    pub id: String,
    pub result: &'static str,
    pub write: Option<WriteResult>,
    pub shards_total: u32,
    pub forced_refresh: bool,
    /// What the answer waits for (`refresh=wait_for`).
    pub deferred: Deferred,
    /// The replicas that took the write, and those that failed (`_shards`).
    pub replicated: Replicated,
    pub status: u16,
}

/// `_shards` of a write: the copies it reached (OpenSearch's `ReplicationResponse.ShardInfo`).
fn shards_json(o: &WriteOutcome) -> Value {
    if o.write.is_none() {
        return json!({"total": 0, "successful": 0, "failed": 0});
    }
    let r = &o.replicated;
    let mut v = json!({"total": o.shards_total, "successful": 1 + r.successful, "failed": r.failed.len()});
    if !r.failed.is_empty() {
        v["failures"] = Value::Array(
            r.failed
                .iter()
                .map(|(node, reason)| {
                    json!({"_index": o.index, "_shard": r.shard, "_node": node,
                        "reason": {"type": "exception", "reason": reason},
                        "status": "INTERNAL_SERVER_ERROR", "primary": false})
                })
                .collect(),
        );
    }
    v
}

/// Renders a write outcome as OpenSearch's index/delete/update response.
pub fn write_response(o: &WriteOutcome) -> Value {
    let mut m = Map::new();
    m.insert("_index".into(), json!(o.index));
    m.insert("_id".into(), json!(o.id));
    if let Some(w) = &o.write {
        m.insert("_version".into(), json!(w.version));
    }
    m.insert("result".into(), json!(o.result));
    if o.forced_refresh {
        m.insert("forced_refresh".into(), json!(true));
    }
    m.insert("_shards".into(), shards_json(o));
    if let Some(w) = &o.write {
        m.insert("_seq_no".into(), json!(w.seq_no));
        m.insert("_primary_term".into(), json!(w.primary_term));
    }
    Value::Object(m)
}

/// Validates an id as OpenSearch does.
pub fn validate_id(id: &str) -> OsResult<()> {
    if id.is_empty() {
        return Err(OsError::illegal("if _id is specified it must not be empty"));
    }
    if id.len() > 512 {
        return Err(OsError::validation(&[format!(
            "id [{id}] is too long, must be no longer than 512 bytes but was: {}",
            id.len()
        )]));
    }
    Ok(())
}

/// The index a write to `name` goes to: the index itself, an alias's write index, or a new
/// index created from templates (`action.auto_create_index`).
/// A blocked index (`index.blocks.write`, `read_only`, ...) is refused with its block.
pub fn write_target(cs: &ClusterService, name: &str, require_alias: bool) -> OsResult<Arc<IndexService>> {
    let svc = write_index(cs, name, require_alias)?;
    cs.check_blocks(Level::Write, &[&svc.name])?;
    Ok(svc)
}

fn write_index(cs: &ClusterService, name: &str, require_alias: bool) -> OsResult<Arc<IndexService>> {
    let md = cs.metadata();
    if md.indices.contains_key(name) {
        if require_alias {
            return Err(OsError::index_not_found(name).tap_reason(format!(
                "no such index [{name}] and [require_alias] request flag is [true] and [{name}] is not an alias"
            )));
        }
        return cs.index(name);
    }
    let targets = md.alias_indices(name);
    if !targets.is_empty() {
        let write: Vec<_> =
            targets.iter().filter(|m| m.aliases.get(name).and_then(|a| a.is_write_index) == Some(true)).collect();
        let chosen = match (write.first(), targets.len()) {
            (Some(m), _) => m.name.clone(),
            (None, 1) if targets[0].aliases.get(name).and_then(|a| a.is_write_index) != Some(false) => targets[0].name.clone(),
            _ => {
                return Err(OsError::illegal(format!(
                    "no write index is defined for alias [{name}]. The write index may be explicitly disabled using is_write_index=false or the alias points to multiple indices without one being designated as a write index"
                )))
            }
        };
        return cs.index(&chosen);
    }
    if require_alias {
        return Err(OsError::index_not_found(name).tap_reason(format!(
            "no such index [{name}] and [require_alias] request flag is [true] and [{name}] is not an alias"
        )));
    }
    if !auto_create_allowed(&cs.cluster_settings(&md), name) {
        return Err(OsError::index_not_found(name)
            .tap_reason(format!("no such index [{name}] and [action.auto_create_index] is [false]")));
    }
    let req = templates::apply(&md, CreateIndex { name: name.to_string(), ..Default::default() })?;
    match cs.create_index(req) {
        Ok(_) => cs.index(name),
        Err(e) if e.kind == ErrorKind::ResourceAlreadyExists => {
            // Another write created it at the same moment: its shards may still be opening here
            // (concurrent first writes to a new index, e.g. the slices of a reindex).
            let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
            loop {
                match cs.index(name) {
                    Ok(svc) => return Ok(svc),
                    Err(e) if std::time::Instant::now() >= deadline => return Err(e),
                    Err(_) => std::thread::sleep(std::time::Duration::from_millis(2)),
                }
            }
        }
        Err(e) => Err(e),
    }
}

fn auto_create_allowed(settings: &Map<String, Value>, _name: &str) -> bool {
    !matches!(settings.get("action.auto_create_index"), Some(Value::String(s)) if s == "false")
        && !matches!(settings.get("action.auto_create_index"), Some(Value::Bool(false)))
}

trait TapReason {
    fn tap_reason(self, reason: String) -> Self;
}

impl TapReason for OsError {
    fn tap_reason(mut self, reason: String) -> Self {
        self.reason = reason;
        self
    }
}

/// Number of copies a write reports in `_shards.total`.
pub fn shards_total(svc: &IndexService) -> u32 {
    1 + effective_replicas(&svc.metadata(), 1)
}

/// Adds `index`, `shard`, `index_uuid` to an engine-level error about one document.
pub fn doc_error(e: OsError, svc: &IndexService, shard: &IndexShard) -> OsError {
    // Refused because the primary handed off to its relocation target: retried on the next state.
    if shard.handoff.is_relocated() && e.kind == ErrorKind::Engine {
        return crate::cluster::peer_recovery::handoff::relocated_error(shard);
    }
    if e.kind == ErrorKind::VersionConflictEngine || e.kind == ErrorKind::DocumentMissing {
        e.with("index", svc.name.as_str()).with("shard", shard.id.to_string()).with("index_uuid", svc.uuid.as_str())
    } else {
        e
    }
}

/// Checks `_routing.required`.
pub fn check_routing(svc: &IndexService, id: &str, routing: Option<&str>) -> OsResult<()> {
    if routing.is_none() && svc.mapping().routing_required == Some(true) {
        return Err(OsError::new(ErrorKind::RoutingMissing, format!("routing is required for [{}]/[{id}]", svc.name))
            .with("index", svc.name.as_str())
            .with("index_uuid", svc.uuid.as_str()));
    }
    Ok(())
}

/// Indexes one document into a resolved index without waiting for durability; the caller calls
/// [`sync_and_refresh`]. Dynamic mapping updates are persisted before the document is indexed.
pub fn index_into(
    cs: &ClusterService,
    svc: &IndexService,
    id: Option<String>,
    routing: Option<String>,
    source: Vec<u8>,
    constraints: Constraints,
) -> OsResult<(Arc<IndexShard>, String, WriteResult)> {
    let (id, auto) = assign_id(id, &constraints)?;
    let shard = route_doc(svc, &id, routing.as_deref())?;
    let w = index_routed(cs, svc, &shard, id.clone(), auto, routing, source, constraints)?;
    Ok((shard, id, w))
}

/// Validates a given id, or generates one (`true`: auto-generated).
pub fn assign_id(id: Option<String>, constraints: &Constraints) -> OsResult<(String, bool)> {
    match id {
        Some(id) => {
            validate_id(&id)?;
            Ok((id, false))
        }
        None if constraints.version.is_some() && constraints.version_type == VersionType::Internal => {
            Err(OsError::validation(&["an id must be provided if version type or value are set".into()]))
        }
        None => Ok((generate_id(), true)),
    }
}

/// The shard a document goes to (checks `_routing.required`).
pub fn route_doc(svc: &IndexService, id: &str, routing: Option<&str>) -> OsResult<Arc<IndexShard>> {
    check_routing(svc, id, routing)?;
    let shard = svc.route(routing.unwrap_or(id))?;
    // A replica held here never takes a write as if it were the primary.
    if shard.handoff.is_relocated() {
        return Err(crate::cluster::peer_recovery::handoff::relocated_error(&shard)
            .with_index(&svc.name, &svc.uuid)
            .with("shard", shard.id.to_string()));
    }
    if !shard.replication.is_primary() {
        return Err(OsError::new(
            ErrorKind::UnavailableShards,
            format!("[{}][{}] primary shard is not active", svc.name, shard.id),
        )
        .with_index(&svc.name, &svc.uuid)
        .with("shard", shard.id.to_string()));
    }
    Ok(shard)
}

/// Parses and indexes a document on its shard (see [`route_doc`]).
#[allow(clippy::too_many_arguments)]
pub fn index_routed(
    cs: &ClusterService,
    svc: &IndexService,
    shard: &IndexShard,
    id: String,
    auto: bool,
    routing: Option<String>,
    source: Vec<u8>,
    constraints: Constraints,
) -> OsResult<WriteResult> {
    let parsed = svc.parse(&id, &source)?;
    if let Some(update) = &parsed.mapping_update {
        cs.apply_mapping_update(&svc.name, update)?;
    }
    let op = IndexOp {
        id,
        routing,
        source,
        fields: parsed.fields,
        nested: parsed.nested,
        constraints,
        auto_generated_id: auto,
    };
    shard.index(op).map_err(|e| doc_error(OsError::from(e), svc, shard))
}

/// Makes a write durable (translog fsync under `request` durability) and applies `refresh`
/// (`wait_for`: the answer waits for the shard's next refresh, returned in the [`Deferred`]).
/// Returns whether a refresh was forced.
pub fn sync_and_refresh(
    cs: &ClusterService,
    svc: &IndexService,
    shard: &Arc<IndexShard>,
    w: &WriteResult,
    refresh: Refresh,
) -> OsResult<(bool, Deferred, Replicated)> {
    // Durable here and on every copy of the replication group before the answer.
    let replicated = shard.sync_and_replicate(cs, w.location, &[w.seq_no], refresh.for_replicas())?;
    let _ = svc;
    let mut deferred = Deferred::default();
    match refresh {
        Refresh::False => Ok((false, deferred, replicated)),
        Refresh::True => {
            shard.refresh()?;
            Ok((true, deferred, replicated))
        }
        Refresh::WaitFor => {
            deferred.wait_for_refresh(shard);
            Ok((false, deferred, replicated))
        }
    }
}

/// `PUT/POST {index}/_doc[/{id}]`, `_create/{id}`.
pub fn index(cs: &ClusterService, mut req: IndexRequest) -> OsResult<WriteOutcome> {
    if let Some(dropped) = run_pipelines(cs, &mut req)? {
        return Ok(dropped);
    }
    // Without a cluster manager, writes wait for one (OpenSearch's retryable block).
    cs.await_global_unblocked(Level::Write, req.wait.timeout)?;
    write_target(cs, &req.index, req.require_alias)?;
    let (id, auto) = assign_id(req.id.clone(), &req.constraints)?;
    // The primary may be failing over: wait for the cluster state that names its successor.
    remote_write::retry_primary(cs, req.wait.timeout, || index_once(cs, &req, &id, auto))
}

/// Runs the ingest pipelines that apply to `req`, rewriting it with their result; a dropped
/// document is answered with OpenSearch's `noop` (version -3, nothing written).
fn run_pipelines(cs: &ClusterService, req: &mut IndexRequest) -> OsResult<Option<WriteOutcome>> {
    let version_type = match req.constraints.version_type {
        VersionType::Internal => None,
        VersionType::External => Some("external"),
        VersionType::ExternalGte => Some("external_gte"),
    };
    let w = super::ingest::WriteDoc {
        index: &req.index,
        id: req.id.as_deref(),
        routing: req.routing.as_deref(),
        version: req.constraints.version,
        version_type,
        op_type: Some(if req.constraints.create { "create" } else { "index" }),
        source: &req.source,
    };
    let Some(g) = super::ingest::run_for_write(cs, &w, req.pipeline.as_deref())? else { return Ok(None) };
    if g.dropped {
        return Ok(Some(WriteOutcome {
            index: req.index.clone(),
            id: req.id.clone().unwrap_or_default(),
            result: "noop",
            write: None,
            shards_total: 0,
            forced_refresh: false,
            deferred: Deferred::default(),
            replicated: Default::default(),
            status: 200,
        }));
    }
    req.index = g.index;
    req.id = g.id;
    req.routing = g.routing;
    req.source = g.source;
    if g.op_type.as_deref() == Some("create") {
        req.constraints.create = true;
    }
    Ok(None)
}

fn index_once(cs: &ClusterService, req: &IndexRequest, id: &str, auto: bool) -> OsResult<WriteOutcome> {
    let svc = write_target(cs, &req.index, req.require_alias)?;
    let id = id.to_string();
    if let Some(node) = remote_write::remote_primary(cs, &svc, &id, req.routing.as_deref()) {
        check_routing(&svc, &id, req.routing.as_deref())?;
        return remote_write::write(
            cs,
            &node,
            &svc.name,
            &id,
            req.routing.as_deref(),
            &req.constraints,
            Some(&req.source),
            req.refresh,
            req.wait,
        );
    }
    let shard = route_doc(&svc, &id, req.routing.as_deref())?;
    req.wait.check(cs, &svc, shard.id, || {
        let one = active_shards::describe_index(&svc.name, &id, &req.source);
        active_shards::describe_shard_request(&svc.name, shard.id, 1, &one, req.refresh)
    })?;
    let w = index_routed(cs, &svc, &shard, id.clone(), auto, req.routing.clone(), req.source.clone(), req.constraints)?;
    let (forced, deferred, replicated) = sync_and_refresh(cs, &svc, &shard, &w, req.refresh)?;
    Ok(WriteOutcome {
        index: svc.name.clone(),
        id,
        result: if w.created_or_found { "created" } else { "updated" },
        write: Some(w),
        shards_total: shards_total(&svc),
        forced_refresh: forced,
        deferred,
        replicated,
        status: if w.created_or_found { 201 } else { 200 },
    })
}

/// A delete request.
#[derive(Debug, Clone, Default)]
pub struct DeleteRequest {
    pub index: String,
    pub id: String,
    pub routing: Option<String>,
    pub constraints: Constraints,
    pub refresh: Refresh,
    pub wait: ActiveWait,
}

/// Deletes in a resolved index without syncing.
pub fn delete_in(
    svc: &IndexService,
    id: &str,
    routing: Option<&str>,
    constraints: Constraints,
) -> OsResult<(Arc<IndexShard>, WriteResult)> {
    let shard = route_doc(svc, id, routing)?;
    let w = delete_routed(svc, &shard, id, constraints)?;
    Ok((shard, w))
}

/// Deletes a document on its shard (see [`route_doc`]).
pub fn delete_routed(
    svc: &IndexService,
    shard: &IndexShard,
    id: &str,
    constraints: Constraints,
) -> OsResult<WriteResult> {
    shard.delete(id, constraints).map_err(|e| doc_error(OsError::from(e), svc, shard))
}

/// `DELETE {index}/_doc/{id}`.
pub fn delete(cs: &ClusterService, req: DeleteRequest) -> OsResult<WriteOutcome> {
    cs.await_global_unblocked(Level::Write, req.wait.timeout)?;
    let svc = match cs.index(&req.index) {
        Ok(s) => s,
        Err(e) if e.kind == ErrorKind::IndexNotFound && cs.metadata().is_alias(&req.index) => {
            write_target(cs, &req.index, false)?
        }
        Err(e) => return Err(e),
    };
    cs.check_blocks(Level::Write, &[&svc.name])?;
    remote_write::retry_primary(cs, req.wait.timeout, || delete_once(cs, &svc, &req))
}

fn delete_once(cs: &ClusterService, svc: &Arc<IndexService>, req: &DeleteRequest) -> OsResult<WriteOutcome> {
    let svc = cs.index(&svc.name).unwrap_or_else(|_| svc.clone());
    if let Some(node) = remote_write::remote_primary(cs, &svc, &req.id, req.routing.as_deref()) {
        check_routing(&svc, &req.id, req.routing.as_deref())?;
        let (routing, c) = (req.routing.as_deref(), &req.constraints);
        return remote_write::write(cs, &node, &svc.name, &req.id, routing, c, None, req.refresh, req.wait);
    }
    let shard = route_doc(&svc, &req.id, req.routing.as_deref())?;
    req.wait.check(cs, &svc, shard.id, || {
        active_shards::describe_shard_request(
            &svc.name,
            shard.id,
            1,
            &active_shards::describe_delete(&svc.name, &req.id),
            req.refresh,
        )
    })?;
    let w = delete_routed(&svc, &shard, &req.id, req.constraints)?;
    let (forced, deferred, replicated) = sync_and_refresh(cs, &svc, &shard, &w, req.refresh)?;
    Ok(WriteOutcome {
        index: svc.name.clone(),
        id: req.id.clone(),
        result: if w.created_or_found { "deleted" } else { "not_found" },
        write: Some(w),
        shards_total: shards_total(&svc),
        forced_refresh: forced,
        deferred,
        replicated,
        status: if w.created_or_found { 200 } else { 404 },
    })
}

/// A get request.
#[derive(Debug, Clone, Default)]
pub struct GetRequest {
    pub index: String,
    pub id: String,
    pub routing: Option<String>,
    /// `_source`/`_source_includes`/`_source_excludes`; `None` when the request gave none (then
    /// the source is returned unless `stored_fields` leaves it out).
    pub source: Option<SourceFilter>,
    pub stored_fields: Option<Vec<String>>,
    pub version: Option<i64>,
    pub version_type: VersionType,
    pub refresh: bool,
    /// `realtime=false`: read only what the last refresh made searchable.
    pub not_realtime: bool,
    /// `preference`: which copy of the shard reads (see `search::copy_choice`).
    pub preference: Option<String>,
}

/// The index a read of `name` goes to (an index, or an alias with exactly one index).
pub fn read_target(cs: &ClusterService, name: &str) -> OsResult<Arc<IndexService>> {
    let svc = read_index(cs, name)?;
    cs.check_blocks(Level::Read, &[&svc.name])?;
    Ok(svc)
}

fn read_index(cs: &ClusterService, name: &str) -> OsResult<Arc<IndexService>> {
    match cs.index(name) {
        Ok(s) => Ok(s),
        Err(e) if e.kind == ErrorKind::IndexNotFound => {
            let md = cs.metadata();
            let targets = md.alias_indices(name);
            match targets.len() {
                0 => Err(e),
                1 => cs.index(&targets[0].name),
                _ => Err(OsError::illegal(format!(
                    "alias [{name}] has more than one index associated with it [{}], can't execute a single index op",
                    targets.iter().map(|m| m.name.as_str()).collect::<Vec<_>>().join(", ")
                ))),
            }
        }
        Err(e) => Err(e),
    }
}

/// The values at a dotted path of a source (arrays flattened), as stored fields return them.
pub fn extract_values(source: &Value, path: &str) -> Vec<Value> {
    let mut out = Vec::new();
    fn walk(v: &Value, parts: &[&str], out: &mut Vec<Value>) {
        match v {
            Value::Array(items) => {
                for i in items {
                    walk(i, parts, out);
                }
            }
            Value::Object(m) if !parts.is_empty() => {
                // A key may itself contain dots: try the longest matching prefix first.
                for n in (1..=parts.len()).rev() {
                    if let Some(child) = m.get(&parts[..n].join(".")) {
                        walk(child, &parts[n..], out);
                    }
                }
            }
            Value::Null => {}
            leaf if parts.is_empty() => out.push(leaf.clone()),
            _ => {}
        }
    }
    let parts: Vec<&str> = path.split('.').collect();
    walk(source, &parts, &mut out);
    out
}

/// Whether the index keeps `_source` (`"_source": {"enabled": false}` in its mapping turns it off).
pub fn source_enabled(svc: &IndexService) -> bool {
    svc.mapping().source.as_ref().and_then(|s| s.get("enabled")).and_then(Value::as_bool) != Some(false)
}

/// `GET {index}/_doc/{id}`: `(found, body)`, read on the copy `preference` picks (this node's
/// when it has one and no preference says otherwise), the next copy when one cannot answer.
pub fn get(cs: &ClusterService, req: &GetRequest) -> OsResult<(bool, Value)> {
    let svc = read_target(cs, &req.index)?;
    remote_get::get_on_copies(cs, &svc, req)
}

/// The get on this node's copy.
pub fn get_local(cs: &ClusterService, req: &GetRequest) -> OsResult<(bool, Value)> {
    let svc = read_target(cs, &req.index)?;
    let shard = svc.route(req.routing.as_deref().unwrap_or(&req.id))?.clone();
    check_routing(&svc, &req.id, req.routing.as_deref())?;
    if req.refresh {
        shard.refresh()?;
    }
    let doc = if req.not_realtime { shard.engine.get_searchable(&req.id)? } else { shard.engine.get(&req.id)? };
    let mut m = Map::new();
    m.insert("_index".into(), json!(svc.name));
    m.insert("_id".into(), json!(req.id));
    let Some(doc) = doc else {
        m.insert("found".into(), json!(false));
        return Ok((false, Value::Object(m)));
    };
    if let Some(v) = req.version {
        let ok = match req.version_type {
            VersionType::Internal => doc.version == v,
            VersionType::External | VersionType::ExternalGte => doc.version == v,
        };
        if !ok {
            return Err(OsError::new(
                ErrorKind::VersionConflictEngine,
                format!(
                    "[{}]: version conflict, current version [{}] is different than the one provided [{v}]",
                    req.id, doc.version
                ),
            )
            .with("index", svc.name.as_str())
            .with("shard", shard.id.to_string())
            .with("index_uuid", svc.uuid.as_str()));
        }
    }
    m.insert("_version".into(), json!(doc.version));
    m.insert("_seq_no".into(), json!(doc.seq_no));
    m.insert("_primary_term".into(), json!(doc.primary_term));
    m.insert("found".into(), json!(true));
    if let Some(r) = &doc.routing {
        m.insert("_routing".into(), json!(r));
    }
    let src: Value = serde_json::from_slice(&doc.source).unwrap_or(Value::Null);
    if let Some(fields) = &req.stored_fields {
        let mapping = svc.mapping();
        let mut out = Map::new();
        for f in fields {
            if mapping.field_type(f).is_some_and(|t| t.store == Some(true)) {
                let vals = extract_values(&src, f);
                if !vals.is_empty() {
                    out.insert(f.clone(), Value::Array(vals));
                }
            }
        }
        if !out.is_empty() {
            m.insert("fields".into(), Value::Object(out));
        }
    }
    // As OpenSearch's `ShardGetService`: without a source filter, `stored_fields` leaves the
    // source out unless it names `_source`; a mapping with `_source.enabled: false` has none.
    let source_wanted = match &req.source {
        Some(f) => !f.disabled,
        None => req.stored_fields.as_ref().is_none_or(|f| f.iter().any(|x| x == "_source")),
    };
    if source_wanted && source_enabled(&svc) {
        let all = SourceFilter::default();
        if let Some(s) = req.source.as_ref().unwrap_or(&all).apply(&src) {
            m.insert("_source".into(), s);
        }
    }
    Ok((true, Value::Object(m)))
}
