//! The authenticated user of a request (the plugin's `User` plus what authentication learned
//! about it): set on every `RestRequest` when security is on, `None` when it is off.

use std::collections::BTreeMap;
use std::net::SocketAddr;

use super::patterns::UserVars;

/// How the user was authenticated.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum AuthType {
    /// HTTP basic against the internal users.
    #[default]
    Basic,
    /// A client certificate through a `clientcert` authentication domain.
    ClientCert,
    /// A client certificate matching `plugins.security.authcz.admin_dn`: the super admin.
    AdminCert,
    /// Anonymous authentication (`config.dynamic.http.anonymous_auth_enabled`).
    Anonymous,
}

impl AuthType {
    /// The name the plugin uses for the authenticator type (`basic`, `clientcert`, ...).
    pub fn name(self) -> &'static str {
        match self {
            AuthType::Basic => "basic",
            AuthType::ClientCert | AuthType::AdminCert => "clientcert",
            AuthType::Anonymous => "anonymous",
        }
    }
}

/// The authenticated user, as the plugin's `User` and its thread context hold it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct User {
    pub name: String,
    /// Backend roles (internal user's `backend_roles`, the anonymous backend role, ...).
    pub backend_roles: Vec<String>,
    /// `opendistro_security_roles` of an internal user: security roles given without a mapping.
    pub security_roles: Vec<String>,
    /// Custom attributes as `attr.<source>.<name>` → value (`attr.internal.dept` for an internal
    /// user's `attributes: {dept: ...}`).
    pub attributes: BTreeMap<String, String>,
    /// The mapped security roles: `roles_mapping.yml` matches plus `security_roles`; sorted and
    /// deduplicated. Filled by authentication.
    pub roles: Vec<String>,
    /// The tenant asked for with the `securitytenant` header, if any.
    pub requested_tenant: Option<String>,
    pub auth_type: AuthType,
    /// Authenticated with an admin certificate (`plugins.security.authcz.admin_dn`): every
    /// check is skipped, system indices included.
    pub is_admin: bool,
    /// The anonymous user (`opendistro_security_anonymous`).
    pub is_anonymous: bool,
    /// The client's address (the TCP peer).
    pub remote_address: Option<SocketAddr>,
}

/// The anonymous user's name and backend role, as the plugin names them.
pub const ANONYMOUS_NAME: &str = "opendistro_security_anonymous";
pub const ANONYMOUS_BACKEND_ROLE: &str = "opendistro_security_anonymous_backendrole";

impl User {
    /// A named user with nothing else (tests, the evaluator's tables).
    pub fn named(name: &str) -> User {
        User { name: name.to_string(), ..Default::default() }
    }
}

impl UserVars for User {
    fn name(&self) -> &str {
        &self.name
    }
    fn backend_roles(&self) -> &[String] {
        &self.backend_roles
    }
    fn attribute(&self, key: &str) -> Option<&str> {
        self.attributes.get(key).map(String::as_str)
    }
}

impl std::fmt::Display for User {
    /// `User [name=bob, backend_roles=[], requestedTenant=null]`, as the plugin prints it.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "User [name={}, backend_roles=[{}], requestedTenant={}]",
            self.name,
            self.backend_roles.join(", "),
            self.requested_tenant.as_deref().unwrap_or("null")
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prints_as_the_plugin() {
        let mut u = User::named("admin");
        u.backend_roles = vec!["admin".into(), "x".into()];
        assert_eq!(u.to_string(), "User [name=admin, backend_roles=[admin, x], requestedTenant=null]");
        u.requested_tenant = Some("global_tenant".into());
        assert!(u.to_string().ends_with("requestedTenant=global_tenant]"));
    }
}
