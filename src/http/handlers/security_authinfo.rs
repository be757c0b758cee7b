//! `GET|POST /_plugins/_security/authinfo` (and the deprecated `/_opendistro/_security/authinfo`)
//! and `GET|POST /_plugins/_security/whoami`: the security plugin's `SecurityInfoAction` and
//! `SecurityWhoAmIAction`. Registered always; with security off they answer as OpenSearch
//! without the plugin (400, no handler).

use serde_json::{json, Value};

use crate::error::{OsError, OsResult};
use crate::http::render::RestResponse;
use crate::http::request::{Method, RestRequest};
use crate::http::router::{Pool, Router};
use crate::node::Node;

fn security_on(node: &Node) -> bool {
    node.settings.get("plugins.security.disabled") == Some("false")
}

fn no_handler(req: &RestRequest) -> RestResponse {
    RestResponse::json(
        400,
        json!({"error": format!("no handler found for uri [{}] and method [{}]", req.path, req.method.name())}),
    )
}

/// Lucene's `RamUsageEstimator.humanReadableUnits`: `0.#` with GB/MB/KB, else `N bytes`.
fn human_units(bytes: usize) -> String {
    const KB: usize = 1024;
    let f = |v: f64, unit: &str| {
        let s = format!("{:.1}", v);
        let s = s.strip_suffix(".0").unwrap_or(&s).to_string();
        format!("{s} {unit}")
    };
    if bytes >= KB * KB * KB {
        f(bytes as f64 / (KB * KB * KB) as f64, "GB")
    } else if bytes >= KB * KB {
        f(bytes as f64 / (KB * KB) as f64, "MB")
    } else if bytes >= KB {
        f(bytes as f64 / KB as f64, "KB")
    } else {
        format!("{bytes} bytes")
    }
}

fn authinfo(node: &Node, req: &RestRequest) -> OsResult<RestResponse> {
    if !security_on(node) {
        return Ok(no_handler(req));
    }
    let verbose = req.bool_param("verbose", false)?;
    let _auth_type = req.param("auth_type");
    let Some(user) = req.user.as_deref() else {
        return Err(OsError::new(crate::error::ErrorKind::Security, "OpenSearch Security not initialized."));
    };
    let tenants: serde_json::Map<String, Value> = match node.security.get() {
        Some(svc) => {
            // authinfo is rare: the tenant permissions of the configuration in force are
            // compiled for it.
            let cfg = svc.current();
            crate::security::authz::Compiled::new(0, &cfg)
                .tenants(user)
                .into_iter()
                .map(|(k, v)| (k, Value::Bool(v)))
                .collect()
        }
        None => serde_json::Map::new(),
    };
    let mut body = json!({
        "user": user.to_string(),
        "user_name": user.name,
        "user_requested_tenant": user.requested_tenant,
        "remote_address": user.remote_address.map(|a| a.to_string()),
        "backend_roles": user.backend_roles,
        "custom_attribute_names": user.attributes.keys().collect::<Vec<_>>(),
        "roles": user.roles,
        "tenants": tenants,
        "principal": req.tls_peer_dn.as_deref(),
        // Fathom keeps the verified leaf certificate's subject, not the chain.
        "peer_certificates": if req.tls_peer_dn.is_some() { "1" } else { "0" },
        "sso_logout_url": Value::Null,
    });
    if verbose {
        // The plugin reports Java-serialized sizes; Fathom reports the size of the same parts
        // serialized as JSON, the form Fathom would carry them in.
        let user_json = json!({"name": user.name, "backend_roles": user.backend_roles, "roles": user.security_roles, "attributes": user.attributes, "requested_tenant": user.requested_tenant});
        let size = |v: &Value| human_units(serde_json::to_vec(v).map(|b| b.len()).unwrap_or(0));
        body["size_of_user"] = json!(size(&user_json));
        body["size_of_custom_attributes"] = json!(size(&json!(user.attributes)));
        body["size_of_backendroles"] = json!(size(&json!(user.backend_roles)));
    }
    let resp = RestResponse::ok(body);
    if req.path.starts_with("/_opendistro/") {
        return Ok(
            resp.warn("[_opendistro/_security] is a deprecated endpoint path. Please use _plugins/_security instead.")
        );
    }
    Ok(resp)
}

fn whoami(node: &Node, req: &RestRequest) -> OsResult<RestResponse> {
    if !security_on(node) {
        return Ok(no_handler(req));
    }
    if node.settings.get("plugins.security.ssl.http.enabled") != Some("true") {
        let mut r = RestResponse::text("No security data".to_string());
        r.status = 403;
        return Ok(r);
    }
    let dn = req.tls_peer_dn.as_deref();
    let sec = crate::security::SecuritySettings::from_node(&node.settings).ok().flatten();
    let (admin, nodes) = sec.map(|s| (s.admin_dn, s.nodes_dn)).unwrap_or_default();
    let is = |list: &[String]| dn.is_some_and(|d| list.iter().any(|p| crate::security::dn::matches(p, d)));
    Ok(RestResponse::ok(json!({
        "dn": dn,
        "is_admin": is(&admin),
        "is_node_certificate_request": is(&nodes),
    })))
}

pub fn register(r: &mut Router) {
    const AUTHINFO: &str = "cluster:admin/opendistro_security/authinfo";
    for p in ["/_plugins/_security/authinfo", "/_opendistro/_security/authinfo"] {
        r.add(&[Method::Get, Method::Post], p, AUTHINFO, Pool::Management, &["verbose", "auth_type"], authinfo);
    }
    r.add(
        &[Method::Get, Method::Post],
        "/_plugins/_security/whoami",
        "cluster:admin/opendistro_security/whoami",
        Pool::Management,
        &[],
        whoami,
    );
}

#[cfg(test)]
mod tests {
    use super::human_units;

    #[test]
    fn units_as_lucene() {
        assert_eq!(human_units(12), "12 bytes");
        assert_eq!(human_units(1024), "1 KB");
        assert_eq!(human_units(1536), "1.5 KB");
        assert_eq!(human_units(3 * 1024 * 1024), "3 MB");
    }
}
