//! Index-level actions: create, delete, get, exists, open, close, refresh, flush, force merge,
//! mappings and settings.

use serde_json::{json, Map, Value};

use super::deferred::Deferred;
use super::templates;
use crate::cluster::blocks::{self, check_global, check_indices, Level};
use crate::cluster::metadata::{AliasMetadata, IndexMetadata};
use crate::cluster::resolve::{resolve, IndicesOptions};
use crate::cluster::settings::{self, flat_json, flatten_index_settings, nest, FlatSettings};
use crate::cluster::{ClusterService, CreateIndex, IndexState};
use crate::engine::schema::Mapping;
use crate::error::{ErrorKind, OsError, OsResult};

/// `PUT /{index}` with its body.
pub fn create(cs: &ClusterService, name: &str, body: &Value) -> OsResult<(Value, Deferred)> {
    let mut req = CreateIndex { name: name.to_string(), ..Default::default() };
    if let Some(m) = body.as_object() {
        for (k, v) in m {
            match k.as_str() {
                "settings" => req.settings = flatten_index_settings(v)?,
                "mappings" => {
                    reject_type_nesting(v)?;
                    req.mappings = Some(v.clone());
                }
                "aliases" => {
                    let Some(a) = v.as_object() else {
                        return Err(OsError::new(ErrorKind::Parse, "failed to parse aliases"));
                    };
                    for (alias, def) in a {
                        req.aliases.push((alias.clone(), AliasMetadata::from_json(alias, def)?));
                    }
                }
                other => return Err(OsError::new(ErrorKind::Parse, format!("unknown key [{other}] for create index"))),
            }
        }
    } else if !body.is_null() {
        return Err(OsError::new(ErrorKind::Parse, "request body must be an object"));
    }
    crate::cluster::indices::validate_index_name(name)?;
    let mut deferred = Deferred::default();
    if req.settings.contains_key("index.soft_deletes.enabled") {
        deferred.warn(format!(
            "Creating indices with soft-deletes disabled is deprecated and will be removed in future OpenSearch versions. Please do not specify value for setting [index.soft_deletes.enabled] of index [{name}]."
        ));
    }
    let md = cs.metadata();
    if let Some(m) = md.indices.get(name) {
        return Err(OsError::index_exists(name, &m.uuid));
    }
    let req = templates::apply(&md, req)?;
    cs.create_index(req)?;
    let started = cs.wait_for_primaries(&[name.to_string()], ACTIVE_SHARDS_WAIT);
    Ok((json!({"acknowledged": true, "shards_acknowledged": started, "index": name}), deferred))
}

/// Mappings nested under a type name are refused (types are gone since 7.0).
fn reject_type_nesting(m: &Value) -> OsResult<()> {
    if let Some(o) = m.as_object() {
        if o.len() == 1 && o.get("_doc").is_some_and(Value::is_object) {
            return Err(OsError::illegal(
                "The mapping definition cannot be nested under a type [_doc] unless include_type_name is set to true.",
            ));
        }
    }
    Ok(())
}

/// `DELETE /{targets}`.
pub fn delete(cs: &ClusterService, expr: &str, opts: IndicesOptions) -> OsResult<Value> {
    let md = cs.metadata();
    // Deleting through an alias is not allowed.
    for part in expr.split(',') {
        if !md.indices.contains_key(part) && md.is_alias(part) {
            return Err(OsError::illegal(format!(
                "The provided expression [{part}] matches an alias, specify the corresponding concrete indices instead."
            )));
        }
    }
    let names = resolve(&md, expr, opts)?;
    // Blocks that allow releasing resources (read_only_allow_delete) let a delete through.
    crate::cluster::blocks::check_global_releasing(&cs.global_blocks(), Level::MetadataWrite)?;
    check_indices(&md, Level::MetadataWrite, &refs(&names), true)?;
    cs.delete_indices(&names)?;
    Ok(json!({"acknowledged": true}))
}

/// The `settings` object of an index as GET prints it.
pub fn settings_json(m: &IndexMetadata, flat: bool, filter: Option<&[String]>) -> Value {
    let mut s: FlatSettings = m.settings.clone();
    if let Some(f) = filter {
        s.retain(|k, _| {
            f.iter()
                .any(|p| crate::cluster::resolve::glob(p, k) || crate::cluster::resolve::glob(&format!("index.{p}"), k))
        });
    }
    if flat {
        flat_json(&s)
    } else {
        nest(&s)
    }
}

/// Defaults shown by `include_defaults=true` (the ones Fathom applies).
fn defaults() -> FlatSettings {
    let mut d = FlatSettings::new();
    for (k, v) in [
        ("index.refresh_interval", "1s"),
        ("index.translog.durability", "REQUEST"),
        ("index.translog.sync_interval", "5s"),
        ("index.max_result_window", "10000"),
        ("index.analyze.max_token_count", "10000"),
        ("index.hidden", "false"),
        ("index.gc_deletes", "60s"),
        ("index.mapping.total_fields.limit", "1000"),
    ] {
        d.insert(k.into(), json!(v));
    }
    d
}

/// `GET /{targets}`.
pub fn get(
    cs: &ClusterService,
    expr: &str,
    opts: IndicesOptions,
    flat: bool,
    include_defaults: bool,
) -> OsResult<Value> {
    let md = cs.metadata();
    let names = resolve(&md, expr, opts)?;
    let mut out = Map::new();
    for n in names {
        let Some(m) = md.indices.get(&n) else { continue };
        let aliases: Map<String, Value> = m.aliases.iter().map(|(k, v)| (k.clone(), v.to_json())).collect();
        let mut v = json!({
            "aliases": aliases,
            "mappings": m.mapping_json(),
            "settings": settings_json(m, flat, None),
        });
        if include_defaults {
            let mut d = defaults();
            d.retain(|k, _| !m.settings.contains_key(k));
            v["defaults"] = if flat { flat_json(&d) } else { nest(&d) };
        }
        out.insert(n, v);
    }
    Ok(Value::Object(out))
}

/// `HEAD /{targets}`: whether every named index exists.
pub fn exists(cs: &ClusterService, expr: &str, opts: IndicesOptions) -> bool {
    resolve(&cs.metadata(), expr, IndicesOptions { allow_no_indices: false, ..opts }).is_ok()
}

/// `POST /{targets}/_close`.
pub fn close(cs: &ClusterService, expr: &str, opts: IndicesOptions) -> OsResult<Value> {
    let names = resolve(&cs.metadata(), expr, opts)?;
    cs.check_blocks(Level::MetadataWrite, &refs(&names))?;
    cs.close_indices(&names)?;
    let indices: Map<String, Value> = names.iter().map(|n| (n.clone(), json!({"closed": true}))).collect();
    Ok(json!({"acknowledged": true, "shards_acknowledged": true, "indices": indices}))
}

/// How long create and open wait for the primaries to start (OpenSearch's default `timeout`).
const ACTIVE_SHARDS_WAIT: std::time::Duration = std::time::Duration::from_secs(30);

/// `POST /{targets}/_open`.
pub fn open(cs: &ClusterService, expr: &str, opts: IndicesOptions) -> OsResult<Value> {
    let names = resolve(&cs.metadata(), expr, opts)?;
    cs.check_blocks(Level::MetadataWrite, &refs(&names))?;
    cs.open_indices_by_name(&names)?;
    let started = cs.wait_for_primaries(&names, ACTIVE_SHARDS_WAIT);
    Ok(json!({"acknowledged": true, "shards_acknowledged": started}))
}

/// What a broadcast operation does to each shard.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Broadcast {
    Refresh,
    Flush,
    ForceMerge {
        max_num_segments: usize,
    },
    /// `_cache/clear`: which caches each copy clears (all when the request names none):
    /// `query` the node query cache's sets of its segments, `request` its request cache
    /// entries, `fielddata` its fielddata (`fields`: of these fields only).
    ClearCache {
        query: bool,
        request: bool,
        fielddata: bool,
        fields: Option<Vec<String>>,
    },
}

/// `_refresh`, `_flush`, `_forcemerge`, `_cache/clear`: `{"_shards": {...}}` over every copy
/// of the indices, on this node and on the others (see [`super::indices_broadcast`]).
pub fn broadcast(cs: &ClusterService, expr: &str, opts: IndicesOptions, op: Broadcast) -> OsResult<Value> {
    let names = resolve(&cs.metadata(), expr, opts)?;
    let mut open = Vec::new();
    for n in names {
        match cs.index(&n) {
            Ok(_) => open.push(n),
            Err(e) if e.kind == ErrorKind::IndexClosed => continue,
            Err(e) => return Err(e),
        }
    }
    super::indices_broadcast::run(cs, &open, op)
}

/// `GET [/{targets}]/_mapping`.
pub fn get_mapping(cs: &ClusterService, expr: &str, opts: IndicesOptions) -> OsResult<Value> {
    let md = cs.metadata();
    let names = resolve(&md, expr, opts)?;
    cs.check_blocks(Level::MetadataRead, &refs(&names))?;
    let mut out = Map::new();
    for n in names {
        if let Some(m) = md.indices.get(&n) {
            out.insert(n.clone(), json!({"mappings": m.mapping_json()}));
        }
    }
    Ok(Value::Object(out))
}

/// `PUT /{targets}/_mapping`.
pub fn put_mapping(
    cs: &ClusterService,
    expr: &str,
    opts: IndicesOptions,
    write_index_only: bool,
    body: &Value,
) -> OsResult<Value> {
    if !body.is_object() {
        return Err(OsError::new(ErrorKind::Parse, "request body is required"));
    }
    if body.as_object().is_some_and(|o| o.len() == 1 && o.get("_doc").is_some_and(Value::is_object)) {
        return Err(OsError::illegal("Types cannot be provided in put mapping requests"));
    }
    let update = Mapping::from_json(body)?;
    let md = cs.metadata();
    let mut names = resolve(&md, expr, opts)?;
    if write_index_only {
        // Through an alias, only its write index.
        let mut keep = Vec::new();
        for part in expr.split(',') {
            for m in md.alias_indices(part) {
                if m.aliases.get(part).and_then(|a| a.is_write_index) == Some(true) {
                    keep.push(m.name.clone());
                }
            }
            if md.indices.contains_key(part) {
                keep.push(part.to_string());
            }
        }
        if !keep.is_empty() {
            names = keep;
        }
    }
    cs.check_blocks(Level::MetadataWrite, &refs(&names))?;
    // Validate against every target first, so a conflict changes nothing.
    for n in &names {
        if let Some(m) = md.indices.get(n) {
            let merged = m.mapping.merge(&update)?;
            let analysis = crate::cluster::indices::build_analysis(&m.settings)?;
            crate::cluster::indices::check_mapping_analyzers(&merged, &analysis)?;
            crate::cluster::mapping_limits::check_mapping(&m.settings, &merged)?;
        }
    }
    for n in &names {
        cs.update_index(n, |m| {
            let merged = m.mapping.merge(&update)?;
            if merged == *m.mapping {
                return Ok(false);
            }
            m.mapping = std::sync::Arc::new(merged);
            m.mapping_version += 1;
            Ok(true)
        })?;
    }
    Ok(json!({"acknowledged": true}))
}

/// `GET [/{targets}]/_settings[/{names}]`.
pub fn get_settings(
    cs: &ClusterService,
    expr: &str,
    opts: IndicesOptions,
    filter: Option<&[String]>,
    flat: bool,
    include_defaults: bool,
) -> OsResult<Value> {
    let md = cs.metadata();
    let names = resolve(&md, expr, opts)?;
    cs.check_blocks(Level::MetadataRead, &refs(&names))?;
    let mut out = Map::new();
    for n in names {
        if let Some(m) = md.indices.get(&n) {
            let mut v = json!({"settings": settings_json(m, flat, filter)});
            if include_defaults {
                let mut d = defaults();
                d.retain(|k, _| !m.settings.contains_key(k));
                v["defaults"] = if flat { flat_json(&d) } else { nest(&d) };
            }
            out.insert(n, v);
        }
    }
    Ok(Value::Object(out))
}

/// `PUT [/{targets}]/_settings`.
pub fn put_settings(
    cs: &ClusterService,
    expr: &str,
    opts: IndicesOptions,
    body: &Value,
    preserve_existing: bool,
) -> OsResult<Value> {
    let body = match body.get("settings") {
        Some(s) if body.as_object().is_some_and(|m| m.len() == 1) => s,
        _ => body,
    };
    let update = flatten_index_settings(body)?;
    if update.is_empty() {
        return Err(OsError::validation(&["no settings to update".into()]));
    }
    for k in update.keys() {
        if settings::PRIVATE.contains(&k.as_str()) {
            return Err(OsError::illegal(format!("private index setting [{k}] can not be set explicitly")));
        }
        if !settings::is_known(k) {
            return Err(settings::unknown_setting(k));
        }
    }
    let md = cs.metadata();
    let names = resolve(&md, expr, opts)?;
    // An update that lifts a block goes through the index blocks.
    let keys: Vec<&str> = update.keys().map(String::as_str).collect();
    if blocks::settings_update_passes_blocks(&keys) {
        check_global(&cs.global_blocks(), Level::MetadataWrite)?;
    } else {
        cs.check_blocks(Level::MetadataWrite, &refs(&names))?;
    }
    for n in &names {
        let Some(m) = md.indices.get(n) else { continue };
        let static_keys: Vec<&String> = update.keys().filter(|k| !settings::is_dynamic(k)).collect();
        if !static_keys.is_empty() && m.state == IndexState::Open {
            let list = static_keys.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(", ");
            return Err(OsError::illegal(format!(
                "Can't update non dynamic settings [[{list}]] for open indices [[{}/{}]]",
                m.name, m.uuid
            )));
        }
    }
    for n in &names {
        cs.update_index(n, |m| {
            let mut s = m.settings.clone();
            for (k, v) in &update {
                if preserve_existing && s.contains_key(k) {
                    continue;
                }
                if v.is_null() {
                    s.remove(k);
                } else {
                    s.insert(k.clone(), v.clone());
                }
            }
            settings::validate_values(&s)?;
            if s == m.settings {
                return Ok(false);
            }
            m.settings = s;
            m.settings_version += 1;
            Ok(true)
        })?;
    }
    Ok(json!({"acknowledged": true}))
}

/// `PUT /{targets}/_block/{block}` (`TransportAddIndexBlockAction`): sets `index.blocks.{block}`
/// on every target.
pub fn add_block(cs: &ClusterService, expr: &str, opts: IndicesOptions, block: &str) -> OsResult<Value> {
    let key = format!("index.blocks.{block}");
    if !blocks::INDEX_BLOCKS.iter().any(|(k, _)| *k == key) {
        return Err(OsError::illegal(format!("No block found with name {block}")));
    }
    let md = cs.metadata();
    let names = resolve(&md, expr, opts)?;
    cs.check_blocks(Level::MetadataWrite, &refs(&names))?;
    for n in &names {
        cs.update_index(n, |m| {
            if settings::get_str(&m.settings, &key) == Some("true") {
                return Ok(false);
            }
            m.settings.insert(key.clone(), json!("true"));
            m.settings_version += 1;
            Ok(true)
        })?;
    }
    let indices: Vec<Value> = names.iter().map(|n| json!({"name": n, "blocked": true})).collect();
    Ok(json!({"acknowledged": true, "shards_acknowledged": true, "indices": indices}))
}

/// Index names as the block checks take them.
fn refs(names: &[String]) -> Vec<&str> {
    names.iter().map(String::as_str).collect()
}
