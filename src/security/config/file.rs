//! One security configuration file (`opensearch-security/<name>.yml`, or one doc of the
//! `.opendistro_security` index): its `_meta` header and its named entries, checked the way the
//! plugin's `SecurityDynamicConfiguration.validate` checks them, with the plugin's messages.

use std::collections::BTreeMap;

use base64::Engine as _;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// The configuration types (the plugin's `CType`): the `_meta.type`, the index doc `_id`, the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum CType {
    Config,
    InternalUsers,
    Roles,
    RolesMapping,
    ActionGroups,
    Tenants,
    Allowlist,
    NodesDn,
}

impl CType {
    /// Every type, in the order the plugin uploads them.
    pub const ALL: [CType; 8] = [
        CType::Config,
        CType::InternalUsers,
        CType::Roles,
        CType::RolesMapping,
        CType::ActionGroups,
        CType::Tenants,
        CType::NodesDn,
        CType::Allowlist,
    ];

    /// The lower-case name: `_meta.type` and the `_id` of its doc in the security index.
    pub fn name(self) -> &'static str {
        match self {
            CType::Config => "config",
            CType::InternalUsers => "internalusers",
            CType::Roles => "roles",
            CType::RolesMapping => "rolesmapping",
            CType::ActionGroups => "actiongroups",
            CType::Tenants => "tenants",
            CType::Allowlist => "allowlist",
            CType::NodesDn => "nodesdn",
        }
    }

    /// The file name under `opensearch-security/`.
    pub fn file_name(self) -> &'static str {
        match self {
            CType::Config => "config.yml",
            CType::InternalUsers => "internal_users.yml",
            CType::Roles => "roles.yml",
            CType::RolesMapping => "roles_mapping.yml",
            CType::ActionGroups => "action_groups.yml",
            CType::Tenants => "tenants.yml",
            CType::Allowlist => "allowlist.yml",
            CType::NodesDn => "nodes_dn.yml",
        }
    }

    /// Whether a node may start without the file (the plugin treats these as optional).
    pub fn optional(self) -> bool {
        matches!(self, CType::Allowlist | CType::NodesDn)
    }

    /// The type named `name` (`_meta.type` or a doc `_id`), if any.
    pub fn from_name(name: &str) -> Option<CType> {
        CType::ALL.into_iter().find(|c| c.name() == name)
    }

    /// The upper-case form the plugin's messages print (`CType.toString`).
    fn upper(self) -> String {
        self.name().to_ascii_uppercase()
    }
}

/// `_meta`: `{type, config_version}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Meta {
    #[serde(rename = "type")]
    pub kind: String,
    pub config_version: i64,
}

/// A parsed file: `_meta` and the entries by name (sorted, so the JSON form is stable).
#[derive(Debug, Clone, PartialEq)]
pub struct ConfigFile<T> {
    pub meta: Meta,
    pub entries: BTreeMap<String, T>,
}

impl<T: DeserializeOwned + Serialize> ConfigFile<T> {
    /// Parses the YAML text of `ctype`'s file.
    pub fn from_yaml(ctype: CType, text: &str) -> Result<Self, String> {
        let value: Value = if text.trim().is_empty() {
            Value::Null
        } else {
            serde_norway::from_str(text).map_err(|e| format!("invalid YAML: {e}"))?
        };
        Self::from_json(ctype, value)
    }

    /// Parses the JSON form (REST API bodies, the security index) of `ctype`'s configuration.
    pub fn from_json(ctype: CType, value: Value) -> Result<Self, String> {
        let mut map = match value {
            Value::Object(map) => map,
            Value::Null => Map::new(),
            other => return Err(format!("expected an object of entries, found {}", kind_of(&other))),
        };
        let meta = match map.remove("_meta") {
            None | Some(Value::Null) => None,
            Some(v) => Some(serde_json::from_value::<Meta>(v).map_err(|e| format!("[_meta]: {e}"))?),
        };
        // The plugin reads the version from `_meta.config_version` (1 when absent), then validates.
        let version = meta.as_ref().map_or(1, |m| m.config_version);
        if version < 2 {
            return Err(format!("Config version {version} is not supported; config type: {}", ctype.upper()));
        }
        let Some(meta) = meta else {
            return Err(format!("A version of {version} must have a _meta key for {}", ctype.upper()));
        };
        if meta.kind != ctype.name() {
            return Err(format!("[_meta.type] is [{}] but this file holds [{}]", meta.kind, ctype.name()));
        }
        if version > 2 {
            return Err(format!("Config version {version} is not supported; config type: {}", ctype.upper()));
        }
        if ctype == CType::Config && (map.len() != 1 || !map.contains_key("config")) {
            return Err(format!(
                "A version of {version} must have a single toplevel key named 'config' for {}",
                ctype.upper()
            ));
        }
        let mut entries = BTreeMap::new();
        for (name, v) in map {
            // An entry written as `name:` with nothing under it is an entry with all defaults.
            let v = if v.is_null() { Value::Object(Map::new()) } else { v };
            let entry = serde_json::from_value::<T>(v).map_err(|e| format!("[{name}]: {e}"))?;
            entries.insert(name, entry);
        }
        Ok(ConfigFile { meta, entries })
    }

    /// The JSON form: `_meta` first, then the entries.
    pub fn to_json(&self) -> Value {
        let mut map = Map::new();
        map.insert("_meta".to_string(), serde_json::to_value(&self.meta).unwrap_or(Value::Null));
        for (name, entry) in &self.entries {
            map.insert(name.clone(), serde_json::to_value(entry).unwrap_or(Value::Null));
        }
        Value::Object(map)
    }

    /// The source of this type's doc in `.opendistro_security`: `{"<type>": "<base64 of the JSON>"}`
    /// (the plugin stores the JSON bytes as a binary field, which JSON shows as base64).
    pub fn to_index_source(&self, ctype: CType) -> Value {
        let bytes = serde_json::to_vec(&self.to_json()).unwrap_or_default();
        let mut map = Map::new();
        map.insert(ctype.name().to_string(), Value::String(base64::engine::general_purpose::STANDARD.encode(bytes)));
        Value::Object(map)
    }

    /// Reads the source of `ctype`'s doc in `.opendistro_security`.
    pub fn from_index_source(ctype: CType, source: &Value) -> Result<Self, String> {
        let encoded = source
            .get(ctype.name())
            .and_then(Value::as_str)
            .ok_or_else(|| format!("security index doc [{}] has no [{}] field", ctype.name(), ctype.name()))?;
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(encoded)
            .map_err(|e| format!("security index doc [{}]: invalid base64: {e}", ctype.name()))?;
        let value: Value = serde_json::from_slice(&bytes)
            .map_err(|e| format!("security index doc [{}]: invalid JSON: {e}", ctype.name()))?;
        Self::from_json(ctype, value)
    }

    /// An empty file of `ctype` (`_meta` only), as the plugin creates for a missing optional file.
    pub fn empty(ctype: CType) -> Self {
        ConfigFile { meta: Meta { kind: ctype.name().to_string(), config_version: 2 }, entries: BTreeMap::new() }
    }
}

fn kind_of(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}
