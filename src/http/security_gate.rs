//! Security on every request (only when `plugins.security.disabled: false`): authentication
//! before the request runs (the plugin's `SecurityRestFilter`), authorization of the matched
//! route's action on the handler's pool (the plugin's `PrivilegesEvaluator`).

use std::net::SocketAddr;
use std::sync::Arc;

use super::request::{Method, RestRequest};
use super::router::Route;
use crate::error::{OsError, OsResult};
use crate::node::Node;
use crate::security::actions::{required, Request};
use crate::security::authn::{AuthInput, Authenticator, AuthnSettings, Outcome, Reply};
use crate::security::User;

/// The authenticator of a node with security on; `None` when security is off.
pub fn authenticator(settings: &crate::node::NodeSettings) -> Result<Option<Arc<Authenticator>>, String> {
    let Some(sec) = crate::security::SecuritySettings::from_node(settings)? else { return Ok(None) };
    let ttl = match settings.get("plugins.security.cache.ttl_minutes") {
        None => 60,
        Some(v) => v
            .parse::<u64>()
            .map_err(|_| format!("Failed to parse value [{v}] for setting [plugins.security.cache.ttl_minutes]"))?,
    };
    let a = Authenticator::new(AuthnSettings {
        admin_dn: sec.admin_dn,
        nodes_dn: sec.nodes_dn,
        ttl: std::time::Duration::from_secs(ttl * 60),
    })?;
    Ok(Some(Arc::new(a)))
}

/// Routes of the security plugin's own REST API: authorized by their handlers (REST-admin
/// roles, admin certificate), not by the action privileges.
pub fn is_security_api(pattern: &str) -> bool {
    pattern.starts_with("/_plugins/_security") || pattern.starts_with("/_opendistro/_security")
}

/// The plugin's `shouldSkipAuthentication`: OPTIONS, and the `health` and `whoami` endpoints.
pub fn skips_authentication(method: Method, path: &str) -> bool {
    if method == Method::Options {
        return true;
    }
    let p = path.trim_end_matches('/');
    ["/_plugins/_security/", "/_opendistro/_security/"]
        .iter()
        .filter_map(|prefix| p.strip_prefix(prefix))
        .any(|suffix| suffix == "health" || suffix == "whoami")
}

/// Authenticates a request; `Err` is the reply to send instead. Bcrypt runs on a blocking
/// thread, never on the event loop; a cached login is answered inline.
pub async fn authenticate(
    node: &Arc<Node>,
    authn: &Arc<Authenticator>,
    headers: &hyper::HeaderMap,
    params: &std::collections::HashMap<String, String>,
    peer_dn: Option<Arc<str>>,
    remote: Option<SocketAddr>,
) -> Result<Arc<User>, Reply> {
    let header = |name: &str| headers.get(name).and_then(|v| v.to_str().ok()).map(str::to_string);
    let input = AuthInput {
        authorization: header("authorization"),
        tenant: header("securitytenant").or_else(|| header("security_tenant")),
        peer_dn,
        remote,
        auth_type: params.get("auth_type").cloned(),
        force_login: params.get("force_login").is_some_and(|v| v == "true"),
    };
    let config = node.security.get().map(|s| s.current());
    let outcome = match authn.authenticate(config.as_ref(), &input, false) {
        Outcome::NeedsBlocking => {
            let authn = authn.clone();
            tokio::task::spawn_blocking(move || authn.authenticate(config.as_ref(), &input, true)).await.unwrap_or_else(
                |_| Outcome::Reply(Reply { status: 500, body: "authentication failed".into(), challenge: false }),
            )
        }
        other => other,
    };
    match outcome {
        Outcome::User(u) => Ok(u),
        Outcome::Reply(r) => Err(r),
        Outcome::NeedsBlocking => Err(Reply { status: 500, body: "authentication failed".into(), challenge: false }),
    }
}

/// Authorizes `rest` (with its authenticated user) for `route`: the 403 `security_exception`
/// with the plugin's message when the user's roles miss a privilege.
///
/// With `config.dynamic.do_not_fail_on_forbidden`, a read-type request (the plugin's
/// `DNFOF_MATCHER`) over an index expression of which only some names are allowed runs over
/// those names (its `{index}` is replaced); with none allowed it stays a 403.
pub fn authorize(node: &Node, authn: &Authenticator, route: &Route, rest: &mut RestRequest) -> OsResult<()> {
    let Some(user) = rest.user.as_deref() else { return Ok(()) };
    if user.is_admin || is_security_api(route.pattern) {
        return Ok(());
    }
    let Some(config) = node.security.get().map(|s| s.current()) else {
        return Err(OsError::new(crate::error::ErrorKind::Security, "OpenSearch Security not initialized."));
    };
    let state = authn.state(&config);
    let mut needs = required(&Request {
        action: route.action,
        pattern: route.pattern,
        params: &rest.path_params,
        body: Some(&rest.body),
    });
    if !needs.pit_ids.is_empty() {
        let mut indices: Vec<String> = Vec::new();
        for id in &needs.pit_ids {
            // A malformed id is the handler's `invalid id` error; it names no index here.
            if let Ok(ctx) = crate::action::search::context_id::decode_pit_id(id) {
                indices.extend(ctx.indices());
            }
        }
        indices.sort();
        indices.dedup();
        if indices.is_empty() {
            // Nothing decodable: the handler answers the id's error.
            needs.pit_actions.clear();
        }
        needs = needs.with_pit_indices(indices);
    }
    let cluster = authn.cluster_indices(&node.cluster.metadata());
    let privileges = &state.compiled.privileges;
    let denied = match privileges.evaluate(user, &user.roles, &needs, &cluster, user.is_admin) {
        Ok(()) => return Ok(()),
        Err(d) => d,
    };
    let narrowable = state.config.dynamic().do_not_fail_on_forbidden
        && needs.cluster.is_empty()
        && needs.every_index.is_empty()
        && needs.pit_ids.is_empty()
        && needs.indices.len() == 1
        && needs.indices[0].1.iter().all(|a| crate::security::privileges::dnfof_action(a));
    if narrowable {
        let (exprs, actions) = &needs.indices[0];
        let allowed = privileges.allowed_names(user, &user.roles, exprs, actions, &cluster);
        if !allowed.is_empty() {
            tracing::debug!(user = %user.name, ?allowed, "do_not_fail_on_forbidden: request narrowed");
            rest.path_params.insert("index".to_string(), allowed.join(","));
            return Ok(());
        }
    }
    tracing::debug!(user = %user.name, missing = ?denied.missing, "request denied");
    Err(denied.to_error())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn skipped_paths() {
        assert!(skips_authentication(Method::Get, "/_plugins/_security/whoami"));
        assert!(skips_authentication(Method::Get, "/_plugins/_security/health/"));
        assert!(skips_authentication(Method::Options, "/anything"));
        assert!(!skips_authentication(Method::Get, "/_plugins/_security/authinfo"));
        assert!(!skips_authentication(Method::Get, "/whoami"));
        assert!(is_security_api("/_plugins/_security/api/roles/{name}"));
        assert!(!is_security_api("/_search"));
    }
}
