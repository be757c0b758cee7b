//! The security plugin's configuration REST API under `/_plugins/_security/api/` (and the
//! legacy `/_opendistro/_security/api/`): `internalusers`, `roles`, `rolesmapping`,
//! `actiongroups`, `tenants` (GET, PUT, DELETE, PATCH), `securityconfig` (GET, PATCH,
//! `PUT securityconfig/config`), and `GET/POST /_plugins/_security/health`. Access: the super
//! admin (a client certificate whose DN is in `plugins.security.authcz.admin_dn`) or a user
//! mapped to a role of `plugins.security.restapi.roles_enabled`.

use serde_json::{json, Value};

use crate::action::security::api::{self, Ctx};
use crate::action::security::content::Resource;
use crate::action::security::responses::Reply;
use crate::error::OsResult;
use crate::http::render::RestResponse;
use crate::http::request::{Method, RestRequest};
use crate::http::router::{Pool, Router};
use crate::node::Node;
use crate::security::config::index_settings::{IndexSettings, VersionSettings};

/// The request's authenticated user (`None` while security is off or before authentication).
pub fn current_user(req: &RestRequest) -> Option<&crate::security::User> {
    req.user.as_deref()
}

/// Whether the request comes from the super admin: an admin certificate
/// (`plugins.security.authcz.admin_dn`), as authenticated or as the TLS layer saw it.
pub fn is_admin_cert(settings: &IndexSettings, req: &RestRequest) -> bool {
    current_user(req).is_some_and(|u| u.is_admin)
        || req
            .tls_peer_dn
            .as_deref()
            .is_some_and(|dn| settings.admin_dn.iter().any(|p| crate::security::dn::matches(p, dn)))
}

/// With security off the plugin registers none of these routes: OpenSearch's answer to an
/// unknown route.
fn security_off(node: &Node, req: &RestRequest) -> Option<RestResponse> {
    if node.settings.get("plugins.security.disabled") == Some("false") {
        return None;
    }
    let msg = format!("no handler found for uri [{}] and method [{}]", req.path, req.method.name());
    Some(RestResponse::json(400, json!({"error": msg})))
}

fn render(r: Reply) -> OsResult<RestResponse> {
    Ok(RestResponse::json(r.status, r.body))
}

/// The access check of `AbstractApiAction.prepareRequest`: `Ok(admin)` or the plugin's refusal.
fn access(node: &Node, req: &RestRequest, settings: &IndexSettings) -> Result<bool, Reply> {
    if is_admin_cert(settings, req) {
        return Ok(true);
    }
    let cert_failure = match req.tls_peer_dn.as_deref() {
        None => "No client TLS certificate found in request".to_string(),
        Some(dn) => format!("Security admin permissions required but {dn} is not an admin"),
    };
    let Some(user) = current_user(req) else {
        let _ = node;
        return Err(Reply::message(401, "Unauthorized"));
    };
    if settings.roles_enabled.is_empty() {
        return Err(Reply::forbidden(format!(
            "No permission to access REST API: Role based access not enabled.. {cert_failure}"
        )));
    }
    if user.roles.iter().any(|r| settings.roles_enabled.contains(r)) {
        return Ok(false);
    }
    Err(Reply::forbidden(format!(
        "No permission to access REST API: User {} with Security roles [{}] does not have any role privileged for admin access. {cert_failure}",
        user.name,
        user.roles.join(", ")
    )))
}

/// Runs `f` with the request's context once security is initialized and the caller may.
fn with_ctx(node: &Node, req: &RestRequest, f: impl FnOnce(&Ctx) -> Reply) -> OsResult<RestResponse> {
    if let Some(r) = security_off(node, req) {
        return Ok(r);
    }
    let settings = IndexSettings::from_node(&node.settings);
    let Some(svc) = node.security.get() else {
        return render(Reply::message(500, "Security index not initialized"));
    };
    if !crate::action::security::index::exists(&node.cluster, &settings.index) {
        return render(Reply::message(500, "Security index not initialized"));
    }
    let admin = match access(node, req, &settings) {
        Ok(a) => a,
        Err(r) => return render(r),
    };
    let ctx = Ctx {
        cs: &node.cluster,
        svc,
        index: &settings.index,
        admin,
        user: current_user(req).map(|u| u.name.clone()),
        versions: versions_on(node),
    };
    render(f(&ctx))
}

fn resource(req: &RestRequest) -> Resource {
    let seg = req.path.split('/').filter(|s| !s.is_empty()).nth(3).unwrap_or("");
    Resource::from_segment(seg).unwrap_or(Resource::Roles)
}

fn body(req: &RestRequest) -> Result<Value, Reply> {
    if req.body.is_empty() {
        return Err(Reply::body(400, json!({"status": "error", "reason": "Request body required for this action."})));
    }
    serde_json::from_slice(&req.body)
        .map_err(|_| Reply::body(400, json!({"status": "error", "reason": "Could not parse content of request."})))
}

fn get(node: &Node, req: &RestRequest) -> OsResult<RestResponse> {
    with_ctx(node, req, |ctx| api::get(ctx, resource(req), req.path_param("name")))
}

fn put(node: &Node, req: &RestRequest) -> OsResult<RestResponse> {
    with_ctx(node, req, |ctx| match body(req) {
        Ok(b) => api::put(ctx, resource(req), req.path_param("name").unwrap_or(""), &b),
        Err(r) => r,
    })
}

fn put_without_name(node: &Node, req: &RestRequest) -> OsResult<RestResponse> {
    with_ctx(node, req, |_| Reply::bad_request(format!("No {} specified.", resource(req).noun())))
}

fn delete(node: &Node, req: &RestRequest) -> OsResult<RestResponse> {
    with_ctx(node, req, |ctx| api::delete(ctx, resource(req), req.path_param("name").unwrap_or("")))
}

fn patch(node: &Node, req: &RestRequest) -> OsResult<RestResponse> {
    with_ctx(node, req, |ctx| match body(req) {
        Ok(b) => api::patch(ctx, resource(req), req.path_param("name"), &b),
        Err(r) => r,
    })
}

fn get_config(node: &Node, req: &RestRequest) -> OsResult<RestResponse> {
    with_ctx(node, req, api::get_config)
}

/// `PUT securityconfig/config` and `PATCH securityconfig`: only with
/// `plugins.security.unsupported.restapi.allow_securityconfig_modification`.
fn change_config(node: &Node, req: &RestRequest) -> OsResult<RestResponse> {
    let allowed = IndexSettings::from_node(&node.settings).allow_securityconfig_modification;
    with_ctx(node, req, |ctx| {
        if !allowed {
            return Reply::forbidden("Access denied");
        }
        match body(req) {
            Ok(b) if req.method == Method::Put => api::put_config(ctx, &b),
            Ok(b) => api::patch_config(ctx, &b),
            Err(r) => r,
        }
    })
}

/// `GET|POST /_plugins/_security/health` (`SecurityHealthAction`): UP once the node enforces a
/// configuration loaded from the security index; `mode=lenient` is always UP.
fn health(node: &Node, req: &RestRequest) -> OsResult<RestResponse> {
    if let Some(r) = security_off(node, req) {
        return Ok(r);
    }
    let mode = req.param("mode").unwrap_or("strict").to_string();
    let initialized = node.security.get().is_some_and(|s| s.loaded_from_index());
    let ttl = node.settings.get("plugins.security.cache.ttl_minutes").and_then(|v| v.parse::<i64>().ok()).unwrap_or(60);
    let (status, code, message) = if mode.eq_ignore_ascii_case("strict") && !initialized {
        ("DOWN", 503, Value::String("Not initialized".into()))
    } else {
        ("UP", 200, Value::Null)
    };
    Ok(RestResponse::json(
        code,
        json!({"message": message, "mode": mode, "status": status, "settings": {"plugins.security.cache.ttl_minutes": ttl}}),
    ))
}

/// `PUT /_plugins/_security/configupdate[?config_types=...]` (`SecurityConfigUpdateAction`): every
/// node reloads from the security index. Only for the admin certificate (403 with an empty body
/// otherwise, as the plugin); what `fathom securityadmin` calls after writing the docs.
fn config_update(node: &Node, req: &RestRequest) -> OsResult<RestResponse> {
    if let Some(r) = security_off(node, req) {
        return Ok(r);
    }
    let settings = IndexSettings::from_node(&node.settings);
    let Some(svc) = node.security.get() else {
        return Ok(RestResponse::status(403));
    };
    if !is_admin_cert(&settings, req) {
        return Ok(RestResponse::status(403));
    }
    let types: Vec<String> = req.list_param("config_types").unwrap_or_default();
    let types: Vec<&str> = types.iter().map(String::as_str).collect();
    let g = crate::action::security::reload::broadcast_gather(&node.cluster, svc, &settings.index, &types);
    let nodes: serde_json::Map<String, Value> = g
        .answers
        .iter()
        .map(|(m, v)| (m.node_id.clone(), json!({"updated_config_types": types, "updated_config_size": types.len(), "message": v.get("message").cloned().unwrap_or(Value::Null)})))
        .collect();
    let body = json!({
        "_nodes": g.header(),
        "cluster_name": node.cluster.node.cluster_name,
        "configupdate_response": {
            "nodes": nodes,
            "node_size": g.answers.len() + g.failures.len(),
            "has_failures": !g.failures.is_empty(),
            "failures_size": g.failures.len(),
        },
    });
    Ok(RestResponse::json(200, body))
}

/// `GET|PUT api/account`: any authenticated user (no REST-admin check).
fn account(node: &Node, req: &RestRequest) -> OsResult<RestResponse> {
    if let Some(r) = security_off(node, req) {
        return Ok(r);
    }
    let settings = IndexSettings::from_node(&node.settings);
    let Some(svc) = node.security.get() else {
        return render(Reply::message(500, "Security index not initialized"));
    };
    if !crate::action::security::index::exists(&node.cluster, &settings.index) {
        return render(Reply::message(500, "Security index not initialized"));
    }
    let user = current_user(req);
    let ctx = Ctx {
        cs: &node.cluster,
        svc,
        index: &settings.index,
        admin: is_admin_cert(&settings, req),
        user: user.map(|u| u.name.clone()),
        versions: versions_on(node),
    };
    render(match req.method {
        Method::Get => crate::action::security::account::get(&ctx, user),
        _ => match body(req) {
            Ok(b) => crate::action::security::account::put(&ctx, user, &b),
            Err(r) => r,
        },
    })
}

fn upgrade_check(node: &Node, req: &RestRequest) -> OsResult<RestResponse> {
    with_ctx(node, req, crate::action::security::upgrade::check)
}

fn upgrade_perform(node: &Node, req: &RestRequest) -> OsResult<RestResponse> {
    with_ctx(node, req, crate::action::security::upgrade::perform)
}

fn versions_on(node: &Node) -> Option<VersionSettings> {
    Some(VersionSettings::from_node(&node.settings)).filter(|v| v.enabled)
}

/// The versions routes exist only with `plugins.security.configurations_versions.enabled`
/// (the plugin registers them only then): otherwise OpenSearch's answer to an unknown route.
fn versions_route(
    node: &Node,
    req: &RestRequest,
    f: impl FnOnce(&Ctx, &VersionSettings) -> Reply,
) -> OsResult<RestResponse> {
    let Some(vs) = versions_on(node) else {
        let msg = format!("no handler found for uri [{}] and method [{}]", req.path, req.method.name());
        return Ok(RestResponse::json(400, json!({"error": msg})));
    };
    with_ctx(node, req, |ctx| f(ctx, &vs))
}

fn versions_list(node: &Node, req: &RestRequest) -> OsResult<RestResponse> {
    versions_route(node, req, crate::action::security::versions::list)
}

fn version_get(node: &Node, req: &RestRequest) -> OsResult<RestResponse> {
    versions_route(node, req, |ctx, vs| {
        crate::action::security::versions::get(ctx, vs, req.path_param("id").unwrap_or(""))
    })
}

fn version_rollback(node: &Node, req: &RestRequest) -> OsResult<RestResponse> {
    versions_route(node, req, |ctx, vs| crate::action::security::versions::rollback(ctx, vs, req.path_param("id")))
}

/// Registers the routes under both prefixes.
pub fn register(r: &mut Router) {
    use Method::*;
    const P: &[&str] = &[];
    const M: Pool = Pool::Management;
    macro_rules! both {
        ($methods:expr, $tail:expr, $action:expr, $params:expr, $h:expr) => {
            r.add($methods, concat!("/_plugins/_security", $tail), $action, M, $params, $h);
            r.add($methods, concat!("/_opendistro/_security", $tail), $action, M, $params, $h);
        };
    }
    macro_rules! resource {
        ($seg:literal, $action:literal) => {
            both!(&[Get], concat!("/api/", $seg), $action, P, get);
            both!(&[Get], concat!("/api/", $seg, "/{name}"), $action, P, get);
            both!(&[Put], concat!("/api/", $seg, "/{name}"), $action, P, put);
            both!(&[Put], concat!("/api/", $seg), $action, P, put_without_name);
            both!(&[Delete], concat!("/api/", $seg, "/{name}"), $action, P, delete);
            both!(&[Patch], concat!("/api/", $seg), $action, P, patch);
            both!(&[Patch], concat!("/api/", $seg, "/{name}"), $action, P, patch);
        };
    }
    resource!("internalusers", "restapi:admin/internalusers");
    resource!("roles", "restapi:admin/roles");
    resource!("rolesmapping", "restapi:admin/rolesmapping");
    resource!("actiongroups", "restapi:admin/actiongroups");
    resource!("tenants", "restapi:admin/tenants");
    both!(&[Get], "/api/securityconfig", "restapi:admin/config", P, get_config);
    both!(&[Patch], "/api/securityconfig", "restapi:admin/config/update", P, change_config);
    both!(&[Put], "/api/securityconfig/config", "restapi:admin/config/update", P, change_config);
    both!(&[Get, Put], "/api/account", "restapi:admin/account", P, account);
    both!(&[Get], "/api/_upgrade_check", "restapi:admin/config/update", P, upgrade_check);
    both!(&[Post], "/api/_upgrade_perform", "restapi:admin/config/update", P, upgrade_perform);
    both!(&[Get], "/api/versions", "restapi:admin/view_version", P, versions_list);
    both!(&[Get], "/api/version/{id}", "restapi:admin/view_version", P, version_get);
    both!(&[Post], "/api/version/rollback", "restapi:admin/rollback_version", P, version_rollback);
    both!(&[Post], "/api/version/rollback/{id}", "restapi:admin/rollback_version", P, version_rollback);
    both!(&[Put], "/configupdate", "cluster:admin/opendistro_security/config/update", &["config_types"], config_update);
    both!(&[Get, Post], "/health", "cluster:admin/opendistro_security/health", &["mode"], health);
}
