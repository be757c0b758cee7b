//! The API's resources and the plugin's `RequestContentValidator` for their bodies: allowed keys
//! and their data types (reserved/hidden only for the super admin), mandatory keys, the
//! password rules, and the typed normalisation of entries.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use super::responses::{error_reason, invalid_configuration, Reply};
use crate::security::config::{
    dynamic::ConfigEntry, ActionGroup, CType, ConfigFile, InternalUser, Role, RoleMapping, Tenant,
};
use crate::security::password::PasswordError;

/// The longest name or string value the plugin accepts (`MAX_STRING_LENGTH`).
pub const MAX_STRING_LENGTH: usize = 2048;

/// A resource of the API.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Resource {
    InternalUsers,
    Roles,
    RolesMapping,
    ActionGroups,
    Tenants,
    /// `api/securityconfig`: the single `config` entry.
    Config,
}

/// A key's expected JSON type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Array,
    Object,
    String,
    Boolean,
}

impl Resource {
    /// The resource of the path segment after `api/` (`internalusers`, `roles`, ...).
    pub fn from_segment(s: &str) -> Option<Resource> {
        Some(match s {
            "internalusers" => Resource::InternalUsers,
            "roles" => Resource::Roles,
            "rolesmapping" => Resource::RolesMapping,
            "actiongroups" => Resource::ActionGroups,
            "tenants" => Resource::Tenants,
            _ => return None,
        })
    }

    pub fn ctype(self) -> CType {
        match self {
            Resource::InternalUsers => CType::InternalUsers,
            Resource::Roles => CType::Roles,
            Resource::RolesMapping => CType::RolesMapping,
            Resource::ActionGroups => CType::ActionGroups,
            Resource::Tenants => CType::Tenants,
            Resource::Config => CType::Config,
        }
    }

    /// The word of the plugin's messages (`EndpointValidator.resourceName`).
    pub fn noun(self) -> &'static str {
        match self {
            Resource::InternalUsers => "user",
            Resource::Roles => "role",
            Resource::RolesMapping => "rolesmapping",
            Resource::ActionGroups => "actiongroup",
            Resource::Tenants => "tenant",
            Resource::Config => "config",
        }
    }

    /// The keys a body may hold (the plugin's `allowedKeys`), without the admin-only flags.
    fn allowed(self) -> &'static [(&'static str, Kind)] {
        use Kind::*;
        match self {
            Resource::InternalUsers => &[
                ("backend_roles", Array),
                ("attributes", Object),
                ("description", String),
                ("opendistro_security_roles", Array),
                ("hash", String),
                ("password", String),
            ],
            Resource::Roles => &[
                ("cluster_permissions", Array),
                ("tenant_permissions", Array),
                ("index_permissions", Array),
                ("description", String),
            ],
            Resource::RolesMapping => &[
                ("backend_roles", Array),
                ("and_backend_roles", Array),
                ("hosts", Array),
                ("users", Array),
                ("description", String),
            ],
            Resource::ActionGroups => &[("allowed_actions", Array), ("description", String), ("type", String)],
            Resource::Tenants => &[("description", String)],
            Resource::Config => &[("dynamic", Object)],
        }
    }

    /// Keys a body must hold.
    fn mandatory(self) -> &'static [&'static str] {
        match self {
            Resource::ActionGroups => &["allowed_actions"],
            _ => &[],
        }
    }

    /// `entries` of this type checked through the typed entries and printed back (defaults
    /// filled in), keyed by name.
    pub fn normalize(ctype: CType, meta: &Value, entries: &Map<String, Value>) -> Result<Map<String, Value>, String> {
        let mut whole = entries.clone();
        whole.insert("_meta".into(), meta.clone());
        let whole = Value::Object(whole);
        let mut out = match ctype {
            CType::InternalUsers => ConfigFile::<InternalUser>::from_json(ctype, whole)?.to_json(),
            CType::Roles => ConfigFile::<Role>::from_json(ctype, whole)?.to_json(),
            CType::RolesMapping => ConfigFile::<RoleMapping>::from_json(ctype, whole)?.to_json(),
            CType::ActionGroups => ConfigFile::<ActionGroup>::from_json(ctype, whole)?.to_json(),
            CType::Tenants => ConfigFile::<Tenant>::from_json(ctype, whole)?.to_json(),
            CType::Config => ConfigFile::<ConfigEntry>::from_json(ctype, whole)?.to_json(),
            other => return Err(format!("[{}] is not served by the REST API", other.name())),
        };
        let Some(m) = out.as_object_mut() else { return Ok(Map::new()) };
        m.remove("_meta");
        Ok(std::mem::take(m))
    }
}

fn kind_ok(kind: Kind, v: &Value) -> bool {
    match kind {
        Kind::Array => v.is_array(),
        Kind::Object => v.is_object(),
        Kind::String => v.is_string(),
        // The plugin accepts "true"/"false" strings for booleans too.
        Kind::Boolean => {
            v.is_boolean()
                || v.as_str().is_some_and(|s| s.eq_ignore_ascii_case("true") || s.eq_ignore_ascii_case("false"))
        }
    }
}

fn expected(kind: Kind) -> &'static str {
    match kind {
        Kind::Array => "Array expected",
        Kind::Object => "Object expected",
        Kind::String => "String expected",
        Kind::Boolean => "Boolean expected",
    }
}

/// Checks a PUT body (or a patched entry) as the plugin's `RequestContentValidator` does.
pub fn validate_content(res: Resource, body: &Value, admin: bool, _name: Option<&str>) -> Result<(), Reply> {
    let Some(m) = body.as_object() else {
        return Err(error_reason(if body.is_null() {
            "Request body required for this action."
        } else {
            "Could not parse content of request."
        }));
    };
    let mut allowed: BTreeMap<&str, Kind> = res.allowed().iter().copied().collect();
    if admin && res != Resource::Config {
        allowed.insert("reserved", Kind::Boolean);
        allowed.insert("hidden", Kind::Boolean);
    }
    let invalid: Vec<String> = m.keys().filter(|k| !allowed.contains_key(k.as_str())).cloned().collect();
    let missing: Vec<String> = res.mandatory().iter().filter(|k| !m.contains_key(**k)).map(|k| k.to_string()).collect();
    if !invalid.is_empty() || !missing.is_empty() {
        return Err(invalid_configuration(&invalid, &missing, &[]));
    }
    let wrong: Vec<(String, String)> = m
        .iter()
        .filter_map(|(k, v)| {
            let kind = allowed.get(k.as_str())?;
            (!kind_ok(*kind, v)).then(|| (k.clone(), expected(*kind).to_string()))
        })
        .collect();
    if !wrong.is_empty() {
        let mut r = error_reason("Wrong datatype");
        let w: Map<String, Value> = wrong.into_iter().map(|(k, v)| (k, Value::String(v))).collect();
        r.body["wrong_datatypes"] = Value::Object(w);
        return Err(r);
    }
    for (k, v) in m {
        if let Some(a) = v.as_array() {
            if a.iter().any(|x| x.is_null() || x.as_str().is_some_and(|s| s.trim().is_empty())) {
                return Err(error_reason("`null` or blank values are not allowed as json array elements"));
            }
        }
        if v.as_str().is_some_and(|s| s.chars().count() > MAX_STRING_LENGTH) {
            let _ = k;
            return Err(error_reason(format!(
                "String value exceeds the maximum allowed length of {MAX_STRING_LENGTH} characters"
            )));
        }
    }
    Ok(())
}

/// The message of a refused password: the demo configuration's regex message for a regex
/// mismatch (`plugins.security.restapi.password_validation_error_message`), else the plugin's.
pub fn password_message(e: PasswordError) -> &'static str {
    match e {
        PasswordError::InvalidRegex => "Password does not match minimum criteria",
        other => other.message(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn bodies_are_checked_as_the_plugin_checks_them() {
        let e = validate_content(
            Resource::Roles,
            &json!({"cluster_permissions": [], "bogus": 1, "reserved": true}),
            false,
            None,
        )
        .unwrap_err();
        assert_eq!(e.status, 400);
        assert_eq!(e.body["reason"], "Invalid configuration");
        assert_eq!(e.body["invalid_keys"]["keys"], "bogus,reserved");
        assert!(validate_content(Resource::Roles, &json!({"reserved": true}), true, None).is_ok());
        let e = validate_content(Resource::ActionGroups, &json!({"description": "x"}), false, None).unwrap_err();
        assert_eq!(e.body["missing_mandatory_keys"]["keys"], "allowed_actions");
        let e = validate_content(Resource::InternalUsers, &json!({"backend_roles": "x"}), false, None).unwrap_err();
        assert_eq!(e.body["reason"], "Wrong datatype");
        assert_eq!(e.body["wrong_datatypes"]["backend_roles"], "Array expected");
        let e = validate_content(Resource::RolesMapping, &json!({"users": [null]}), false, None).unwrap_err();
        assert!(e.body["reason"].as_str().unwrap().contains("null"));
        let e = validate_content(Resource::Tenants, &json!([1]), false, None).unwrap_err();
        assert_eq!(e.body["reason"], "Could not parse content of request.");
    }

    #[test]
    fn normalize_fills_defaults_and_rejects_bad_entries() {
        let meta = json!({"type": "tenants", "config_version": 2});
        let mut m = Map::new();
        m.insert("t".into(), json!({"description": "d"}));
        let n = Resource::normalize(CType::Tenants, &meta, &m).unwrap();
        assert_eq!(n["t"], json!({"reserved": false, "hidden": false, "static": false, "description": "d"}));
        m.insert("u".into(), json!({"nope": 1}));
        assert!(Resource::normalize(CType::Tenants, &meta, &m).unwrap_err().contains("[u]"));
    }
}
