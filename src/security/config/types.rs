//! The entry types of the security configuration files, field for field the plugin's V7 classes
//! (`InternalUserV7`, `RoleV7`, `RoleMappingV7`, `ActionGroupsV7`, `TenantV7`, `NodesDn`,
//! `AllowlistingSettings`). Unknown keys are rejected; absent keys take the plugin's defaults.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// An entry of `internal_users.yml`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct InternalUser {
    pub hash: String,
    pub reserved: bool,
    pub hidden: bool,
    pub backend_roles: Vec<String>,
    pub attributes: BTreeMap<String, String>,
    pub opendistro_security_roles: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(rename = "static")]
    pub is_static: bool,
}

/// An entry of `roles.yml`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Role {
    pub reserved: bool,
    pub hidden: bool,
    #[serde(rename = "static")]
    pub is_static: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    pub cluster_permissions: Vec<String>,
    pub index_permissions: Vec<IndexPermission>,
    pub tenant_permissions: Vec<TenantPermission>,
}

/// One `index_permissions` item of a role.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct IndexPermission {
    pub index_patterns: Vec<String>,
    /// The document-level security query (a JSON query as a string), if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dls: Option<String>,
    pub fls: Vec<String>,
    pub masked_fields: Vec<String>,
    pub allowed_actions: Vec<String>,
}

/// One `tenant_permissions` item of a role.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct TenantPermission {
    pub tenant_patterns: Vec<String>,
    pub allowed_actions: Vec<String>,
}

/// An entry of `roles_mapping.yml` (keyed by role name).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RoleMapping {
    pub reserved: bool,
    pub hidden: bool,
    pub backend_roles: Vec<String>,
    pub hosts: Vec<String>,
    pub users: Vec<String>,
    pub and_backend_roles: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
}

/// An entry of `action_groups.yml`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ActionGroup {
    pub reserved: bool,
    pub hidden: bool,
    #[serde(rename = "static")]
    pub is_static: bool,
    pub allowed_actions: Vec<String>,
    /// `cluster`, `index` or `kibana` (free text in the plugin; absent for untyped groups).
    #[serde(rename = "type", skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
}

/// An entry of `tenants.yml`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Tenant {
    pub reserved: bool,
    pub hidden: bool,
    #[serde(rename = "static")]
    pub is_static: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
}

/// An entry of `nodes_dn.yml`: more node certificate DNs accepted besides `plugins.security.nodes_dn`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct NodesDn {
    pub nodes_dn: Vec<String>,
}

/// The single `config` entry of `allowlist.yml`: which REST endpoints non-admin users may call.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Allowlist {
    pub enabled: bool,
    /// Path → allowed HTTP methods.
    pub requests: BTreeMap<String, Vec<String>>,
}
