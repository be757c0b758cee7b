//! Versions of the security configuration (`plugins.security.configurations_versions.enabled`,
//! experimental, default off; the plugin's `SecurityConfigVersionHandler`): each change records
//! `v<N>` (timestamp, modified_by, every type's data) in the single doc
//! `opensearch_security_config_versions` of `.opensearch_security_config_versions`, the newest
//! `plugins.security.config_version.retention_count` (default 10) kept; `GET api/versions`,
//! `GET api/version/{id}`, `POST api/version/rollback[/{id}]`. Unlike the plugin, the node that
//! made the change records the version (not a listener on the cluster manager).

use serde_json::{json, Map, Value};

use super::api::Ctx;
use super::responses::Reply;
use super::{index, reload};
use crate::action::documents::{self, GetRequest, IndexRequest, Refresh};
use crate::error::ErrorKind;
use crate::security::config::index_settings::VersionSettings;
use crate::security::config::CType;
use crate::shard::versioning::Constraints;

/// The doc holding every version.
const DOC_ID: &str = "opensearch_security_config_versions";

/// The versions doc: its `versions` array and its concurrency tokens (`None` when absent).
fn read(ctx: &Ctx, vs: &VersionSettings) -> Result<(Vec<Value>, Option<(i64, u64)>), Reply> {
    if !index::exists(ctx.cs, &vs.index) {
        return Ok((Vec::new(), None));
    }
    let req = GetRequest { index: vs.index.clone(), id: DOC_ID.into(), ..GetRequest::default() };
    match documents::get(ctx.cs, &req) {
        Ok((true, v)) => {
            let versions = v["_source"]["versions"].as_array().cloned().unwrap_or_default();
            let tokens = (v["_seq_no"].as_i64().unwrap_or(-1), v["_primary_term"].as_u64().unwrap_or(0));
            Ok((versions, Some(tokens)))
        }
        Ok((false, _)) => Ok((Vec::new(), None)),
        Err(e) => Err(Reply::message(500, e.reason)),
    }
}

fn number(v: &Value) -> u64 {
    v["version_id"].as_str().and_then(|s| s.strip_prefix('v')).and_then(|n| n.parse().ok()).unwrap_or(0)
}

/// Records the security index's current configuration as a new version (none when nothing
/// changed since the newest one).
pub fn record(ctx: &Ctx, vs: &VersionSettings) -> Result<(), Reply> {
    let docs = index::read_all(ctx.cs, ctx.index).map_err(|e| Reply::message(500, e.reason))?.unwrap_or_default();
    let now = crate::units::iso_millis(crate::clock::now_millis());
    let mut configs = Map::new();
    for (c, d) in &docs {
        configs.insert(c.name().to_string(), json!({"lastUpdated": now, "configData": d.json}));
    }
    if !index::exists(ctx.cs, &vs.index) {
        let body = json!({
            "settings": {"index.number_of_shards": 1, "index.auto_expand_replicas": "0-all", "index.hidden": true},
            "mappings": {"properties": {"versions": {"properties": {
                "version_id": {"type": "keyword"}, "timestamp": {"type": "date"},
                "modified_by": {"type": "keyword"}, "security_configs": {"type": "object", "enabled": false}}}}},
        });
        match crate::action::indices::create(ctx.cs, &vs.index, &body) {
            Ok(_) => {}
            Err(e) if e.kind == ErrorKind::ResourceAlreadyExists => {}
            Err(e) => return Err(Reply::message(500, e.reason)),
        }
    }
    let (mut versions, tokens) = read(ctx, vs)?;
    versions.sort_by_key(number);
    let same = |a: &Value| {
        let old = a["security_configs"].as_object();
        old.is_some_and(|o| {
            o.len() == configs.len()
                && configs.iter().all(|(k, v)| o.get(k).map(|x| &x["configData"]) == Some(&v["configData"]))
        })
    };
    if versions.last().is_some_and(same) {
        return Ok(());
    }
    let next = versions.last().map(number).unwrap_or(0) + 1;
    versions.push(json!({
        "version_id": format!("v{next}"),
        "timestamp": now,
        "modified_by": ctx.user.clone().unwrap_or_else(|| "system".to_string()),
        "security_configs": configs,
    }));
    let drop = versions.len().saturating_sub(vs.retention);
    versions.drain(..drop);
    let source = serde_json::to_vec(&json!({"versions": versions})).map_err(|e| Reply::message(500, e.to_string()))?;
    let constraints = match tokens {
        Some((s, t)) => Constraints { if_seq_no: Some(s), if_primary_term: Some(t), ..Constraints::default() },
        None => Constraints { create: true, ..Constraints::default() },
    };
    let req = IndexRequest {
        index: vs.index.clone(),
        id: Some(DOC_ID.into()),
        source,
        constraints,
        refresh: Refresh::True,
        ..IndexRequest::default()
    };
    documents::index(ctx.cs, req).map(|_| ()).map_err(|e| Reply::message(500, e.reason))
}

/// Records the current configuration when no version exists yet (v1).
pub fn record_initial(ctx: &Ctx, vs: &VersionSettings) -> Result<(), Reply> {
    if read(ctx, vs)?.0.is_empty() {
        let system = Ctx { user: None, versions: None, ..*ctx };
        record(&system, vs)?;
    }
    Ok(())
}

/// `GET api/versions`.
pub fn list(ctx: &Ctx, vs: &VersionSettings) -> Reply {
    match read(ctx, vs) {
        Ok((mut v, _)) => {
            v.sort_by_key(number);
            Reply::body(200, json!({"versions": v}))
        }
        Err(r) => r,
    }
}

/// `GET api/version/{id}`.
pub fn get(ctx: &Ctx, vs: &VersionSettings, id: &str) -> Reply {
    match read(ctx, vs) {
        Ok((v, _)) => match v.into_iter().find(|x| x["version_id"] == id) {
            Some(x) => Reply::body(200, json!({"versions": [x]})),
            None => Reply::not_found(format!("Version {id} not found")),
        },
        Err(r) => r,
    }
}

/// `POST api/version/rollback[/{id}]`: the given version, or the one before the newest.
pub fn rollback(ctx: &Ctx, vs: &VersionSettings, id: Option<&str>) -> Reply {
    let run = || -> Result<Reply, Reply> {
        let (mut versions, _) = read(ctx, vs)?;
        versions.sort_by_key(number);
        let target = match id {
            Some(id) => versions
                .iter()
                .find(|x| x["version_id"] == id)
                .cloned()
                .ok_or_else(|| Reply::not_found(format!("Version {id} not found")))?,
            None => {
                if versions.len() < 2 {
                    return Err(Reply::not_found("No previous version available to rollback"));
                }
                versions[versions.len() - 2].clone()
            }
        };
        let vid = target["version_id"].as_str().unwrap_or("").to_string();
        let current =
            index::read_all(ctx.cs, ctx.index).map_err(|e| Reply::message(500, e.reason))?.unwrap_or_default();
        let mut changed = Vec::new();
        if let Some(m) = target["security_configs"].as_object() {
            for (name, c) in m {
                let Some(ctype) = CType::from_name(name) else { continue };
                let data = &c["configData"];
                if current.get(&ctype).map(|d| &d.json) == Some(data) {
                    continue;
                }
                let cons = match current.get(&ctype) {
                    Some(d) => Constraints {
                        if_seq_no: Some(d.seq_no),
                        if_primary_term: Some(d.primary_term),
                        ..Constraints::default()
                    },
                    None => Constraints::default(),
                };
                index::write_doc(ctx.cs, ctx.index, ctype, data, cons)
                    .map_err(|e| Reply::message(500, format!("Rollback failed: {}", e.reason)))?;
                changed.push(ctype.name());
            }
        }
        reload::broadcast(ctx.cs, ctx.svc, ctx.index, &changed)
            .map_err(|e| Reply::message(500, format!("Rollback failed: {}", e.reason)))?;
        record(ctx, vs)?;
        Ok(Reply::ok(format!("config rolled back to version {vid}")))
    };
    match run() {
        Ok(r) | Err(r) => r,
    }
}
