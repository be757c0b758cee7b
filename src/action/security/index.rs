//! The security configuration index (`plugins.security.config_index_name`, default
//! `.opendistro_security`), as the plugin's `ConfigurationRepository` keeps it: one doc per
//! configuration type, `_id` = the type name, source `{"<type>": "<base64 of the type's JSON>"}`
//! (format/security-config.md). The elected cluster manager creates it from the files of
//! `$conf/opensearch-security` when `plugins.security.allow_default_init_securityindex` is true;
//! every node loads its configuration from it once it is readable.

use std::collections::BTreeMap;

use serde_json::{json, Value};

use crate::action::documents::{self, GetRequest, IndexRequest, Refresh};
use crate::cluster::ClusterService;
use crate::error::{ErrorKind, OsError, OsResult};
pub use crate::security::config::index_doc::{decode_source, encode_source};
pub use crate::security::config::index_settings::DEFAULT_INDEX;
use crate::security::config::{CType, SecurityConfig};
use crate::shard::versioning::Constraints;

/// The index settings the plugin creates it with (one shard, a copy on every node), hidden.
fn index_body() -> Value {
    json!({"settings": {"index.number_of_shards": 1, "index.auto_expand_replicas": "0-all", "index.hidden": true}})
}

/// Whether the index exists in the cluster state.
pub fn exists(cs: &ClusterService, index: &str) -> bool {
    cs.metadata().indices.contains_key(index)
}

/// Creates the index (if absent) and writes every type of `config` into it as the plugin's
/// default initialisation does; an existing doc is left as it is (`op_type=create`).
pub fn initialize(cs: &ClusterService, index: &str, config: &SecurityConfig) -> OsResult<()> {
    if !exists(cs, index) {
        match crate::action::indices::create(cs, index, &index_body()) {
            Ok(_) => {}
            Err(e) if e.kind == ErrorKind::ResourceAlreadyExists => {}
            Err(e) => return Err(e),
        }
    }
    for (name, value) in config.stored() {
        let Some(ctype) = CType::from_name(name) else { continue };
        let constraints = Constraints { create: true, ..Constraints::default() };
        match write_doc(cs, index, ctype, &value, constraints) {
            Ok(()) => {}
            Err(e) if e.kind == ErrorKind::VersionConflictEngine => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

/// One type's doc as read from the index, with its concurrency tokens.
#[derive(Debug, Clone)]
pub struct StoredDoc {
    pub json: Value,
    pub seq_no: i64,
    pub primary_term: u64,
}

/// Reads every type's doc. `Ok(None)` when the index does not exist; a doc that is missing for
/// a required type is an error (the index is not fully initialised yet).
pub fn read_all(cs: &ClusterService, index: &str) -> OsResult<Option<BTreeMap<CType, StoredDoc>>> {
    if !exists(cs, index) {
        return Ok(None);
    }
    let mut out = BTreeMap::new();
    for ctype in CType::ALL {
        if let Some(doc) = read_doc(cs, index, ctype)? {
            out.insert(ctype, doc);
        } else if !ctype.optional() {
            return Err(OsError::new(
                ErrorKind::ResourceNotFound,
                format!("security index [{index}] has no [{}] doc yet", ctype.name()),
            ));
        }
    }
    Ok(Some(out))
}

/// Reads one type's doc, `None` when it is absent.
pub fn read_doc(cs: &ClusterService, index: &str, ctype: CType) -> OsResult<Option<StoredDoc>> {
    let req = GetRequest { index: index.to_string(), id: ctype.name().to_string(), ..GetRequest::default() };
    let (found, v) = documents::get(cs, &req)?;
    if !found {
        return Ok(None);
    }
    let source = v.get("_source").cloned().unwrap_or(Value::Null);
    let json = decode_source(ctype, &source).map_err(OsError::internal)?;
    Ok(Some(StoredDoc {
        json,
        seq_no: v.get("_seq_no").and_then(Value::as_i64).unwrap_or(-1),
        primary_term: v.get("_primary_term").and_then(Value::as_u64).unwrap_or(0),
    }))
}

/// The configuration the docs hold (static entries added).
pub fn to_config(docs: &BTreeMap<CType, StoredDoc>) -> Result<SecurityConfig, String> {
    let parts: BTreeMap<String, Value> = docs.iter().map(|(c, d)| (c.name().to_string(), d.json.clone())).collect();
    SecurityConfig::from_json_parts(&parts)
}

/// Loads the configuration from the index: `Ok(None)` when the index does not exist.
pub fn load(cs: &ClusterService, index: &str) -> OsResult<Option<SecurityConfig>> {
    match read_all(cs, index)? {
        None => Ok(None),
        Some(docs) => to_config(&docs).map(Some).map_err(|e| OsError::internal(format!("security index: {e}"))),
    }
}

/// Writes `json` (a whole type, `_meta` included, no static entries) as `ctype`'s doc.
pub fn write_doc(
    cs: &ClusterService,
    index: &str,
    ctype: CType,
    json: &Value,
    constraints: Constraints,
) -> OsResult<()> {
    let source = serde_json::to_vec(&encode_source(ctype, json)).map_err(|e| OsError::internal(e.to_string()))?;
    let req = IndexRequest {
        index: index.to_string(),
        id: Some(ctype.name().to_string()),
        source,
        constraints,
        refresh: Refresh::True,
        ..IndexRequest::default()
    };
    documents::index(cs, req).map(|_| ())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn source_round_trips_and_bad_sources_are_errors() {
        let j = json!({"_meta": {"type": "tenants", "config_version": 2}, "t": {"description": "x"}});
        let s = encode_source(CType::Tenants, &j);
        assert!(s["tenants"].is_string());
        assert_eq!(decode_source(CType::Tenants, &s).unwrap(), j);
        assert_eq!(decode_source(CType::Tenants, &json!({"tenants": j.clone()})).unwrap(), j);
        assert!(decode_source(CType::Tenants, &json!({"tenants": "%%%"})).unwrap_err().contains("base64"));
        assert!(decode_source(CType::Tenants, &json!({"tenants": "bm90IGpzb24="})).unwrap_err().contains("JSON"));
        assert!(decode_source(CType::Tenants, &json!({})).unwrap_err().contains("no [tenants]"));
    }
}
