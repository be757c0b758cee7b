//! Cluster metadata: indices (settings, mappings, aliases, state), templates and cluster-level
//! settings, and its JSON form for the state file and `_cluster/state`.

use serde_json::{json, Map, Value};
use std::collections::BTreeMap;
use std::sync::Arc;

use super::operations_metadata::{CoordinationMetadata, DecommissionMetadata, WeightedRouting};
use super::settings::{get_bool, get_int, get_str, FlatSettings};
use crate::engine::schema::Mapping;
use crate::error::{OsError, OsResult};

/// OpenSearch 3.3.0's version id (`Version.V_3_3_0.id` with the OpenSearch mask): what
/// `index.version.created` shows.
pub const VERSION_CREATED: &str = "137247827";

/// Open or closed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IndexState {
    Open,
    Close,
}

impl IndexState {
    /// `open` / `close`, as the state file and `_cluster/state` print it.
    pub fn name(self) -> &'static str {
        match self {
            IndexState::Open => "open",
            IndexState::Close => "close",
        }
    }
}

/// One alias of one index.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct AliasMetadata {
    pub filter: Option<Value>,
    pub index_routing: Option<String>,
    pub search_routing: Option<String>,
    pub is_write_index: Option<bool>,
    pub is_hidden: Option<bool>,
}

impl AliasMetadata {
    /// As `GET {index}/_alias` prints it (only the set fields).
    pub fn to_json(&self) -> Value {
        let mut m = Map::new();
        if let Some(f) = &self.filter {
            m.insert("filter".into(), f.clone());
        }
        if let Some(r) = &self.index_routing {
            m.insert("index_routing".into(), json!(r));
        }
        if let Some(r) = &self.search_routing {
            m.insert("search_routing".into(), json!(r));
        }
        if let Some(w) = self.is_write_index {
            m.insert("is_write_index".into(), json!(w));
        }
        if let Some(h) = self.is_hidden {
            m.insert("is_hidden".into(), json!(h));
        }
        Value::Object(m)
    }

    /// Parses an alias definition (`{"filter", "routing", "index_routing", "search_routing",
    /// "is_write_index", "is_hidden"}`).
    pub fn from_json(name: &str, v: &Value) -> OsResult<AliasMetadata> {
        let Some(m) = v.as_object() else {
            return Err(OsError::illegal(format!("alias [{name}] definition must be an object")));
        };
        let mut a = AliasMetadata::default();
        // `routing` sets both and the specific keys win, whatever their order in the object
        // (as `AliasActions.routing` before `indexRouting`/`searchRouting`).
        let mut keys: Vec<(&String, &Value)> = m.iter().collect();
        keys.sort_by_key(|(k, _)| k.as_str() != "routing");
        for (k, val) in keys {
            let s = || -> OsResult<String> {
                match val {
                    Value::String(s) => Ok(s.clone()),
                    Value::Number(n) => Ok(n.to_string()),
                    _ => Err(OsError::illegal(format!("[{k}] must be a string in alias [{name}]"))),
                }
            };
            match k.as_str() {
                "filter" => a.filter = Some(val.clone()),
                "routing" => {
                    let r = s()?;
                    a.index_routing = Some(r.clone());
                    a.search_routing = Some(r);
                }
                "index_routing" | "indexRouting" | "index-routing" => a.index_routing = Some(s()?),
                "search_routing" | "searchRouting" | "search-routing" => a.search_routing = Some(s()?),
                "is_write_index" => a.is_write_index = val.as_bool(),
                "is_hidden" => a.is_hidden = val.as_bool(),
                _ => {
                    return Err(OsError::illegal(format!("Unsupported field [{k}]")).status(400));
                }
            }
        }
        Ok(a)
    }
}

/// Everything the cluster knows about one index.
#[derive(Debug, Clone, PartialEq)]
pub struct IndexMetadata {
    pub name: String,
    pub uuid: String,
    pub state: IndexState,
    /// Flat settings, private ones (`index.uuid`, `index.creation_date`, ...) included.
    pub settings: FlatSettings,
    pub mapping: Arc<Mapping>,
    pub aliases: BTreeMap<String, AliasMetadata>,
    pub routing_num_shards: u32,
    pub primary_term: u64,
    pub version: u64,
    pub mapping_version: u64,
    pub settings_version: u64,
    pub aliases_version: u64,
}

impl IndexMetadata {
    /// `index.number_of_shards`.
    pub fn number_of_shards(&self) -> u32 {
        get_int(&self.settings, "index.number_of_shards", 1, 1, 1024).unwrap_or(1) as u32
    }
    /// `index.number_of_replicas`.
    pub fn number_of_replicas(&self) -> u32 {
        get_int(&self.settings, "index.number_of_replicas", 1, 0, i32::MAX as i64).unwrap_or(1) as u32
    }
    /// `index.hidden`.
    pub fn hidden(&self) -> bool {
        get_bool(&self.settings, "index.hidden", false).unwrap_or(false)
    }
    /// `index.creation_date` in epoch millis.
    pub fn creation_date(&self) -> i64 {
        get_str(&self.settings, "index.creation_date").and_then(|s| s.parse().ok()).unwrap_or(0)
    }
    /// A setting's string value.
    pub fn setting(&self, key: &str) -> Option<&str> {
        get_str(&self.settings, key)
    }
    /// The mapping as `GET _mapping` prints it (`{}` when empty).
    pub fn mapping_json(&self) -> Value {
        self.mapping.to_json()
    }

    /// The form kept in the state file and shown by `_cluster/state` (`metadata.indices.{name}`).
    pub fn to_state_json(&self) -> Value {
        let aliases: Map<String, Value> = self.aliases.iter().map(|(k, v)| (k.clone(), v.to_json())).collect();
        let mapping = self.mapping_json();
        let mappings =
            if mapping.as_object().is_some_and(|m| m.is_empty()) { json!({}) } else { json!({"_doc": mapping}) };
        json!({
            "version": self.version,
            "mapping_version": self.mapping_version,
            "settings_version": self.settings_version,
            "aliases_version": self.aliases_version,
            "routing_num_shards": self.routing_num_shards,
            "state": self.state.name(),
            "settings": super::settings::nest(&self.settings),
            "mappings": mappings,
            "aliases": aliases.keys().cloned().collect::<Vec<_>>(),
            "alias_definitions": Value::Object(aliases),
            "primary_terms": (0..self.number_of_shards()).map(|i| (i.to_string(), json!(self.primary_term))).collect::<Map<_, _>>(),
            "in_sync_allocations": (0..self.number_of_shards()).map(|i| (i.to_string(), json!([]))).collect::<Map<_, _>>(),
            "name": self.name,
        })
    }

    /// Reads [`IndexMetadata::to_state_json`]'s output back.
    pub fn from_state_json(v: &Value) -> OsResult<IndexMetadata> {
        let bad = |what: &str| OsError::internal(format!("corrupt index metadata: {what}"));
        let name = v["name"].as_str().ok_or_else(|| bad("name"))?.to_string();
        let settings = super::settings::flatten_index_settings(&v["settings"])?;
        let uuid = get_str(&settings, "index.uuid").ok_or_else(|| bad("index.uuid"))?.to_string();
        let mapping = match v["mappings"].get("_doc") {
            Some(m) => Mapping::from_json(m).map_err(|e| bad(&e.reason))?,
            None => Mapping::new_dynamic(),
        };
        let mut aliases = BTreeMap::new();
        if let Some(defs) = v["alias_definitions"].as_object() {
            for (k, d) in defs {
                aliases.insert(k.clone(), AliasMetadata::from_json(k, d)?);
            }
        }
        let num = |k: &str| v[k].as_u64().unwrap_or(1);
        Ok(IndexMetadata {
            name,
            uuid,
            state: if v["state"] == "close" { IndexState::Close } else { IndexState::Open },
            settings,
            mapping: Arc::new(mapping),
            aliases,
            routing_num_shards: v["routing_num_shards"].as_u64().unwrap_or(1) as u32,
            primary_term: v["primary_terms"]["0"].as_u64().unwrap_or(1),
            version: num("version"),
            mapping_version: num("mapping_version"),
            settings_version: num("settings_version"),
            aliases_version: num("aliases_version"),
        })
    }
}

/// The whole metadata of the cluster.
#[derive(Debug, Clone, Default)]
pub struct Metadata {
    pub cluster_uuid: String,
    /// Incremented on every change (`_cluster/state` `version`).
    pub version: u64,
    pub indices: BTreeMap<String, Arc<IndexMetadata>>,
    /// Legacy templates (`_template`), kept as their JSON definition.
    pub templates: BTreeMap<String, Value>,
    /// Composable index templates (`_index_template`).
    pub index_templates: BTreeMap<String, Value>,
    /// Component templates (`_component_template`).
    pub component_templates: BTreeMap<String, Value>,
    /// Cluster settings (`_cluster/settings`), flat keys.
    pub persistent_settings: Map<String, Value>,
    /// Transient cluster settings, flat keys. Unlike OpenSearch, Fathom keeps them across a
    /// full-cluster restart (they are part of the replicated state).
    pub transient_settings: Map<String, Value>,
    /// Voting configuration exclusions.
    pub coordination: CoordinationMetadata,
    /// Weighted shard routing, once set (the deleted form stays, with its version).
    pub weighted_routing: Option<WeightedRouting>,
    /// The decommission of an awareness attribute value, while one is registered.
    pub decommission: Option<DecommissionMetadata>,
    /// Ingest pipelines (`_ingest/pipeline`), by id, their definitions as given.
    pub ingest_pipelines: Map<String, Value>,
}

impl Metadata {
    /// The state file's JSON.
    pub fn to_state_json(&self) -> Value {
        let indices: Map<String, Value> = self.indices.iter().map(|(k, v)| (k.clone(), v.to_state_json())).collect();
        json!({
            "cluster_uuid": self.cluster_uuid,
            "version": self.version,
            "indices": indices,
            "templates": self.templates,
            "index_templates": self.index_templates,
            "component_templates": self.component_templates,
            "persistent_settings": self.persistent_settings,
            "transient_settings": self.transient_settings,
            "coordination": self.coordination.to_json(),
            "weighted_shard_routing": self.weighted_routing.as_ref().map(|w| w.to_json()),
            "decommission": self.decommission.as_ref().map(|d| d.to_json()),
            "ingest_pipelines": self.ingest_pipelines,
        })
    }

    /// Reads the state file's JSON.
    pub fn from_state_json(v: &Value) -> OsResult<Metadata> {
        let obj = |k: &str| -> BTreeMap<String, Value> {
            v[k].as_object().map(|m| m.iter().map(|(a, b)| (a.clone(), b.clone())).collect()).unwrap_or_default()
        };
        let mut indices = BTreeMap::new();
        if let Some(m) = v["indices"].as_object() {
            for (k, iv) in m {
                indices.insert(k.clone(), Arc::new(IndexMetadata::from_state_json(iv)?));
            }
        }
        let (coordination, weighted_routing, decommission) = super::operations_metadata::read_parts(v);
        Ok(Metadata {
            cluster_uuid: v["cluster_uuid"].as_str().unwrap_or_default().to_string(),
            version: v["version"].as_u64().unwrap_or(0),
            indices,
            templates: obj("templates"),
            index_templates: obj("index_templates"),
            component_templates: obj("component_templates"),
            persistent_settings: v["persistent_settings"].as_object().cloned().unwrap_or_default(),
            transient_settings: v["transient_settings"].as_object().cloned().unwrap_or_default(),
            coordination,
            weighted_routing,
            decommission,
            ingest_pipelines: v["ingest_pipelines"].as_object().cloned().unwrap_or_default(),
        })
    }

    /// The indices an alias points to.
    pub fn alias_indices(&self, alias: &str) -> Vec<&Arc<IndexMetadata>> {
        self.indices.values().filter(|m| m.aliases.contains_key(alias)).collect()
    }

    /// Whether `name` is an alias of some index.
    pub fn is_alias(&self, name: &str) -> bool {
        self.indices.values().any(|m| m.aliases.contains_key(name))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> IndexMetadata {
        let mut settings = FlatSettings::new();
        settings.insert("index.uuid".into(), json!("u1"));
        settings.insert("index.number_of_shards".into(), json!("3"));
        let mut aliases = BTreeMap::new();
        aliases.insert("al".into(), AliasMetadata { is_write_index: Some(true), ..Default::default() });
        IndexMetadata {
            name: "idx".into(),
            uuid: "u1".into(),
            state: IndexState::Open,
            settings,
            mapping: Arc::new(Mapping::from_json(&json!({"properties": {"a": {"type": "long"}}})).unwrap()),
            aliases,
            routing_num_shards: 768,
            primary_term: 1,
            version: 3,
            mapping_version: 2,
            settings_version: 1,
            aliases_version: 1,
        }
    }

    #[test]
    fn state_json_round_trip() {
        let m = sample();
        let back = IndexMetadata::from_state_json(&m.to_state_json()).unwrap();
        assert_eq!(back, m);
        assert_eq!(back.number_of_shards(), 3);
    }

    #[test]
    fn metadata_round_trip() {
        let mut md = Metadata { cluster_uuid: "c".into(), version: 9, ..Default::default() };
        md.indices.insert("idx".into(), Arc::new(sample()));
        md.templates.insert("t".into(), json!({"index_patterns": ["a*"]}));
        let back = Metadata::from_state_json(&md.to_state_json()).unwrap();
        assert_eq!(back.indices, md.indices);
        assert_eq!(back.templates, md.templates);
        assert!(back.is_alias("al"));
    }
}
