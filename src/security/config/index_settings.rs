//! The node settings of the security configuration index and its REST API.

use crate::node::NodeSettings;

/// The plugin's default name of the configuration index.
pub const DEFAULT_INDEX: &str = ".opendistro_security";

/// The index- and API-related security settings of a node.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IndexSettings {
    /// `plugins.security.config_index_name`.
    pub index: String,
    /// `plugins.security.allow_default_init_securityindex` (default false; the demo sets true).
    pub allow_default_init: bool,
    /// `plugins.security.restapi.roles_enabled`: roles whose users may call the REST API.
    pub roles_enabled: Vec<String>,
    /// `plugins.security.unsupported.restapi.allow_securityconfig_modification`.
    pub allow_securityconfig_modification: bool,
    /// `plugins.security.authcz.admin_dn`.
    pub admin_dn: Vec<String>,
}

impl IndexSettings {
    pub fn from_node(settings: &NodeSettings) -> IndexSettings {
        let list = |k: &str| -> Vec<String> {
            settings
                .get(k)
                .map(|v| {
                    v.trim_matches(['[', ']'])
                        .split(',')
                        .map(|s| s.trim().trim_matches(['"', '\'']).to_string())
                        .filter(|s| !s.is_empty())
                        .collect()
                })
                .unwrap_or_default()
        };
        let admin_dn = crate::security::SecuritySettings::from_node(settings)
            .ok()
            .flatten()
            .map(|s| s.admin_dn)
            .unwrap_or_default();
        IndexSettings {
            index: settings.get_or("plugins.security.config_index_name", DEFAULT_INDEX).to_string(),
            allow_default_init: settings.get("plugins.security.allow_default_init_securityindex") == Some("true"),
            roles_enabled: list("plugins.security.restapi.roles_enabled"),
            allow_securityconfig_modification: settings
                .get("plugins.security.unsupported.restapi.allow_securityconfig_modification")
                == Some("true"),
            admin_dn,
        }
    }
}

/// The versions settings of a node.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VersionSettings {
    pub enabled: bool,
    pub index: String,
    pub retention: usize,
}

impl VersionSettings {
    pub fn from_node(s: &NodeSettings) -> VersionSettings {
        VersionSettings {
            enabled: s.get("plugins.security.configurations_versions.enabled") == Some("true"),
            index: s
                .get_or("plugins.security.config_versions_index_name", ".opensearch_security_config_versions")
                .to_string(),
            retention: s
                .get("plugins.security.config_version.retention_count")
                .and_then(|v| v.parse().ok())
                .filter(|n| *n >= 1)
                .unwrap_or(10),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_default_to_the_plugin_index() {
        let s = IndexSettings::from_node(&NodeSettings::from_pairs(&[]));
        assert_eq!(s.index, DEFAULT_INDEX);
        assert!(!s.allow_default_init && !s.allow_securityconfig_modification);
        assert!(s.roles_enabled.is_empty());
        let s = IndexSettings::from_node(&NodeSettings::from_pairs(&[
            ("plugins.security.config_index_name", ".sec"),
            ("plugins.security.allow_default_init_securityindex", "true"),
            ("plugins.security.restapi.roles_enabled", "all_access,security_rest_api_access"),
        ]));
        assert_eq!(s.index, ".sec");
        assert!(s.allow_default_init);
        assert_eq!(s.roles_enabled, ["all_access", "security_rest_api_access"]);
    }
}
