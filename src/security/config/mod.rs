//! The security configuration: the plugin's files (`opensearch-security/*.yml`), typed and
//! checked, merged with the built-in (static) roles, action groups and tenants.
//!
//! | file | holds |
//! |---|---|
//! | `file.rs` | one file / index doc: `_meta`, entries, the plugin's version checks, JSON/index forms |
//! | `types.rs` | users, roles, role mappings, action groups, tenants, nodes_dn, allowlist |
//! | `dynamic.rs` | `config.yml`: `config.dynamic` (authc/authz domains and switches) |
//! | `index_doc.rs` | the source of a security index doc (base64 of the type's JSON) |
//! | `index_settings.rs` | the settings of the configuration index and its REST API |
//! | `service.rs` | `SecurityService`: the current configuration of a node and its reload hook |
//! | `static_config/` | the plugin's static_{roles,action_groups,tenants}.yml (embedded) |
//! | `demo_config/` | the plugin's demo files written by `fathom setup-security` (embedded) |

pub mod dynamic;
pub mod file;
pub mod index_doc;
pub mod index_settings;
pub mod service;
pub mod types;

use std::collections::BTreeMap;
use std::path::Path;

use serde::de::DeserializeOwned;
use serde::Serialize;

pub use dynamic::{AuthcDomain, AuthzDomain, Dynamic};
pub use file::{CType, ConfigFile, Meta};
pub use service::SecurityService;
pub use types::{
    ActionGroup, Allowlist, IndexPermission, InternalUser, NodesDn, Role, RoleMapping, Tenant, TenantPermission,
};

/// The directory under the node's config directory that holds the files.
pub const DIR: &str = "opensearch-security";

// Data files from the OpenSearch security plugin (Apache-2.0),
// github.com/opensearch-project/security @bb55e64, src/main/resources/static_config/.
const STATIC_ROLES: &str = include_str!("../static_config/static_roles.yml");
const STATIC_ACTION_GROUPS: &str = include_str!("../static_config/static_action_groups.yml");
const STATIC_TENANTS: &str = include_str!("../static_config/static_tenants.yml");

/// The plugin's demo configuration files (Apache-2.0, same repository and commit, `config/`),
/// as `(file name, text)`: what `fathom setup-security` writes (with the admin hash replaced).
pub const DEMO_FILES: [(&str, &str); 8] = [
    ("config.yml", include_str!("../demo_config/config.yml")),
    ("internal_users.yml", include_str!("../demo_config/internal_users.yml")),
    ("roles.yml", include_str!("../demo_config/roles.yml")),
    ("roles_mapping.yml", include_str!("../demo_config/roles_mapping.yml")),
    ("action_groups.yml", include_str!("../demo_config/action_groups.yml")),
    ("tenants.yml", include_str!("../demo_config/tenants.yml")),
    ("allowlist.yml", include_str!("../demo_config/allowlist.yml")),
    ("nodes_dn.yml", include_str!("../demo_config/nodes_dn.yml")),
];

/// The whole configuration of a cluster, as the privilege evaluation and authentication see it:
/// the stored configuration plus the static entries (which win over same-named stored entries, as
/// the plugin's `DynamicConfigFactory.addStatics` puts them over the originals).
#[derive(Debug, Clone, PartialEq)]
pub struct SecurityConfig {
    pub config: ConfigFile<dynamic::ConfigEntry>,
    pub internal_users: ConfigFile<InternalUser>,
    pub roles: ConfigFile<Role>,
    pub roles_mapping: ConfigFile<RoleMapping>,
    pub action_groups: ConfigFile<ActionGroup>,
    pub tenants: ConfigFile<Tenant>,
    pub nodes_dn: ConfigFile<NodesDn>,
    pub allowlist: ConfigFile<Allowlist>,
}

/// The stored (non-static) configuration by type, as JSON: what goes into the security index.
pub type StoredConfig = BTreeMap<&'static str, serde_json::Value>;

impl SecurityConfig {
    /// Reads and checks every file of `dir` (`$conf/opensearch-security`). Errors name the file
    /// and the entry or key at fault.
    pub fn load_dir(dir: &Path) -> Result<SecurityConfig, String> {
        let mut texts = BTreeMap::new();
        for ctype in CType::ALL {
            let path = dir.join(ctype.file_name());
            match std::fs::read_to_string(&path) {
                Ok(t) => {
                    texts.insert(ctype, t);
                }
                Err(e) if e.kind() == std::io::ErrorKind::NotFound && ctype.optional() => {}
                Err(e) => return Err(format!("security configuration file [{}]: {e}", path.display())),
            }
        }
        Self::from_parts(|ctype| match texts.get(&ctype) {
            Some(t) => parse_yaml_file(t).map_err(|e| format!("{}: {e}", dir.join(ctype.file_name()).display())),
            None => Ok(None),
        })
    }

    /// Builds the configuration from the JSON form of each type (the security index), `None` for
    /// a type with no doc.
    pub fn from_json_parts(parts: &BTreeMap<String, serde_json::Value>) -> Result<SecurityConfig, String> {
        Self::from_parts(|ctype| match parts.get(ctype.name()) {
            Some(v) => Ok(Some(v.clone())),
            None => Ok(None),
        })
    }

    fn from_parts(get: impl Fn(CType) -> Result<Option<serde_json::Value>, String>) -> Result<SecurityConfig, String> {
        fn one<T: DeserializeOwned + Serialize>(
            ctype: CType,
            get: &impl Fn(CType) -> Result<Option<serde_json::Value>, String>,
        ) -> Result<ConfigFile<T>, String> {
            match get(ctype)? {
                Some(v) => ConfigFile::from_json(ctype, v).map_err(|e| format!("{}: {e}", ctype.file_name())),
                None if ctype.optional() => Ok(ConfigFile::empty(ctype)),
                None => Err(format!("security configuration [{}] is missing", ctype.file_name())),
            }
        }
        let mut cfg = SecurityConfig {
            config: one(CType::Config, &get)?,
            internal_users: one(CType::InternalUsers, &get)?,
            roles: one(CType::Roles, &get)?,
            roles_mapping: one(CType::RolesMapping, &get)?,
            action_groups: one(CType::ActionGroups, &get)?,
            tenants: one(CType::Tenants, &get)?,
            nodes_dn: one(CType::NodesDn, &get)?,
            allowlist: one(CType::Allowlist, &get)?,
        };
        cfg.add_statics()?;
        Ok(cfg)
    }

    /// Puts the static roles, action groups and tenants over the stored ones.
    fn add_statics(&mut self) -> Result<(), String> {
        let roles: ConfigFile<Role> = ConfigFile::from_yaml(CType::Roles, STATIC_ROLES)?;
        let groups: ConfigFile<ActionGroup> = ConfigFile::from_yaml(CType::ActionGroups, STATIC_ACTION_GROUPS)?;
        let tenants: ConfigFile<Tenant> = ConfigFile::from_yaml(CType::Tenants, STATIC_TENANTS)?;
        self.roles.entries.extend(roles.entries);
        self.action_groups.entries.extend(groups.entries);
        self.tenants.entries.extend(tenants.entries);
        Ok(())
    }

    /// `config.dynamic`.
    pub fn dynamic(&self) -> &Dynamic {
        self.config.entries.get("config").map(|c| &c.dynamic).unwrap_or(&*DEFAULT_DYNAMIC)
    }

    /// The stored form of every type, static entries left out (they are never stored).
    pub fn stored(&self) -> StoredConfig {
        let mut out = BTreeMap::new();
        out.insert(CType::Config.name(), self.config.to_json());
        out.insert(CType::InternalUsers.name(), self.internal_users.to_json());
        out.insert(CType::Roles.name(), without_static(&self.roles, |r| r.is_static).to_json());
        out.insert(CType::RolesMapping.name(), self.roles_mapping.to_json());
        out.insert(CType::ActionGroups.name(), without_static(&self.action_groups, |g| g.is_static).to_json());
        out.insert(CType::Tenants.name(), without_static(&self.tenants, |t| t.is_static).to_json());
        out.insert(CType::NodesDn.name(), self.nodes_dn.to_json());
        out.insert(CType::Allowlist.name(), self.allowlist.to_json());
        out
    }
}

static DEFAULT_DYNAMIC: std::sync::LazyLock<Dynamic> = std::sync::LazyLock::new(Dynamic::default);

fn without_static<T: Clone>(file: &ConfigFile<T>, is_static: impl Fn(&T) -> bool) -> ConfigFile<T> {
    ConfigFile {
        meta: file.meta.clone(),
        entries: file.entries.iter().filter(|(_, v)| !is_static(v)).map(|(k, v)| (k.clone(), v.clone())).collect(),
    }
}

/// YAML text → JSON value, with the syntax error (line, column) of the YAML parser.
fn parse_yaml_file(text: &str) -> Result<Option<serde_json::Value>, String> {
    if text.trim().is_empty() {
        return Ok(Some(serde_json::Value::Null));
    }
    serde_norway::from_str(text).map(Some).map_err(|e| format!("invalid YAML: {e}"))
}

#[cfg(test)]
mod tests;
