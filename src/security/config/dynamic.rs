//! `config.yml`: the single `config` entry whose `dynamic` part holds the authentication and
//! authorization domains and the switches of the plugin's `ConfigV7.Dynamic`. Known sections are
//! typed and reject unknown keys; an authenticator's or backend's own `config` map is kept as JSON
//! (its keys depend on the `type`, checked by the authentication slice that implements the type).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// The `config` entry of `config.yml`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ConfigEntry {
    pub dynamic: Dynamic,
}

/// `config.dynamic`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Dynamic {
    pub filtered_alias_mode: String,
    pub disable_rest_auth: bool,
    pub disable_intertransport_auth: bool,
    pub respect_request_indices_options: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub license: Option<String>,
    /// The Dashboards section (`multitenancy_enabled`, `server_username`, ...), kept as given.
    pub kibana: Map<String, Value>,
    pub http: Http,
    pub authc: BTreeMap<String, AuthcDomain>,
    pub authz: BTreeMap<String, AuthzDomain>,
    /// Rate limiting of failed logins, kept as given.
    pub auth_failure_listeners: Map<String, Value>,
    pub do_not_fail_on_forbidden: bool,
    pub multi_rolespan_enabled: bool,
    pub hosts_resolver_mode: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub transport_userrname_attribute: Option<String>,
    pub do_not_fail_on_forbidden_empty: bool,
    pub on_behalf_of: Map<String, Value>,
    pub api_tokens: Map<String, Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub privileges_evaluation_type: Option<String>,
    pub privileges_evaluation_ignore_unauthorized_indices: bool,
}

impl Default for Dynamic {
    fn default() -> Self {
        Dynamic {
            filtered_alias_mode: "warn".to_string(),
            disable_rest_auth: false,
            disable_intertransport_auth: false,
            respect_request_indices_options: false,
            license: None,
            kibana: Map::new(),
            http: Http::default(),
            authc: BTreeMap::new(),
            authz: BTreeMap::new(),
            auth_failure_listeners: Map::new(),
            do_not_fail_on_forbidden: false,
            multi_rolespan_enabled: true,
            hosts_resolver_mode: "ip-only".to_string(),
            transport_userrname_attribute: None,
            do_not_fail_on_forbidden_empty: false,
            on_behalf_of: Map::new(),
            api_tokens: Map::new(),
            privileges_evaluation_type: None,
            privileges_evaluation_ignore_unauthorized_indices: true,
        }
    }
}

impl Dynamic {
    /// The authentication domains with `http_enabled`, in the plugin's order (ascending `order`,
    /// then name for a stable tie-break).
    pub fn http_authc_domains(&self) -> Vec<(&str, &AuthcDomain)> {
        let mut v: Vec<_> = self.authc.iter().filter(|(_, d)| d.http_enabled).map(|(n, d)| (n.as_str(), d)).collect();
        v.sort_by_key(|(n, d)| (d.order, *n));
        v
    }
}

/// `config.dynamic.http`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Http {
    pub anonymous_auth_enabled: bool,
    pub xff: Xff,
}

/// `config.dynamic.http.xff`: trusting `X-Forwarded-For` from internal proxies.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Xff {
    pub enabled: bool,
    #[serde(rename = "internalProxies")]
    pub internal_proxies: String,
    #[serde(rename = "remoteIpHeader")]
    pub remote_ip_header: String,
}

impl Default for Xff {
    fn default() -> Self {
        Xff {
            enabled: false,
            internal_proxies: concat!(
                "10\\.\\d{1,3}\\.\\d{1,3}\\.\\d{1,3}|",
                "192\\.168\\.\\d{1,3}\\.\\d{1,3}|",
                "169\\.254\\.\\d{1,3}\\.\\d{1,3}|",
                "127\\.\\d{1,3}\\.\\d{1,3}\\.\\d{1,3}|",
                "172\\.1[6-9]{1}\\.\\d{1,3}\\.\\d{1,3}|",
                "172\\.2[0-9]{1}\\.\\d{1,3}\\.\\d{1,3}|",
                "172\\.3[0-1]{1}\\.\\d{1,3}\\.\\d{1,3}"
            )
            .to_string(),
            remote_ip_header: "X-Forwarded-For".to_string(),
        }
    }
}

/// One `config.dynamic.authc` domain.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct AuthcDomain {
    pub http_enabled: bool,
    /// Accepted as the plugin's demo file writes it; transport authentication uses certificates.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub transport_enabled: Option<bool>,
    pub order: i32,
    pub http_authenticator: HttpAuthenticator,
    pub authentication_backend: Backend,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
}

impl Default for AuthcDomain {
    fn default() -> Self {
        AuthcDomain {
            http_enabled: true,
            transport_enabled: None,
            order: 0,
            http_authenticator: HttpAuthenticator::default(),
            authentication_backend: Backend { kind: "intern".to_string(), config: Map::new() },
            description: None,
        }
    }
}

/// `http_authenticator` of a domain: `basic`, `clientcert`, `jwt`, `proxy`, `kerberos`, ...
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct HttpAuthenticator {
    pub challenge: bool,
    #[serde(rename = "type", skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    pub config: Map<String, Value>,
}

impl Default for HttpAuthenticator {
    fn default() -> Self {
        HttpAuthenticator { challenge: true, kind: None, config: Map::new() }
    }
}

/// `authentication_backend` / `authorization_backend` of a domain: `intern`, `noop`, `ldap`, ...
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Backend {
    #[serde(rename = "type")]
    pub kind: String,
    pub config: Map<String, Value>,
}

impl Default for Backend {
    fn default() -> Self {
        Backend { kind: "noop".to_string(), config: Map::new() }
    }
}

/// One `config.dynamic.authz` domain.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct AuthzDomain {
    pub http_enabled: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub transport_enabled: Option<bool>,
    pub authorization_backend: Backend,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
}

impl Default for AuthzDomain {
    fn default() -> Self {
        AuthzDomain {
            http_enabled: true,
            transport_enabled: None,
            authorization_backend: Backend::default(),
            description: None,
        }
    }
}
