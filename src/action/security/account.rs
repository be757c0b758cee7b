//! `GET|PUT /_plugins/_security/api/account` (the plugin's `AccountApiAction`): any
//! authenticated user reads its account, and an internal user changes its own password with its
//! current one (reserved and hidden accounts only by the super admin).

use serde_json::{json, Value};

use super::api::{check_exists, check_mutable, load, save, Ctx};
use super::content::{password_message, Resource};
use super::responses::{error_reason, invalid_configuration, Reply};
use crate::security::config::CType;
use crate::security::User;

fn flag(entry: Option<&Value>, key: &str) -> bool {
    entry.and_then(|e| e.get(key)).and_then(Value::as_bool).unwrap_or(false)
}

/// `GET api/account`.
pub fn get(ctx: &Ctx, user: Option<&User>) -> Reply {
    let Some(user) = user else { return Reply::message(401, "Unauthorized") };
    let loaded = match load(ctx, CType::InternalUsers) {
        Ok(l) => l,
        Err(r) => return r,
    };
    let entry = loaded.entries.get(&user.name);
    let tenants = crate::security::authz::Compiled::new(0, &ctx.svc.current()).tenants(user);
    let attrs: Vec<&String> = user.attributes.keys().collect();
    Reply::body(
        200,
        json!({
            "user_name": user.name,
            "is_reserved": flag(entry, "reserved"),
            "is_hidden": flag(entry, "hidden"),
            "is_internal_user": entry.is_some(),
            "user_requested_tenant": user.requested_tenant,
            "backend_roles": user.backend_roles,
            "custom_attribute_names": attrs,
            "tenants": tenants,
            "roles": user.roles,
        }),
    )
}

/// `PUT api/account`: `{"current_password", "password" | "hash"}`.
pub fn put(ctx: &Ctx, user: Option<&User>, body: &Value) -> Reply {
    let run = || -> Result<Reply, Reply> {
        let Some(user) = user else { return Err(Reply::message(401, "Unauthorized")) };
        let name = user.name.as_str();
        let Some(m) = body.as_object() else { return Err(error_reason("Could not parse content of request.")) };
        let invalid: Vec<String> =
            m.keys().filter(|k| !matches!(k.as_str(), "current_password" | "password" | "hash")).cloned().collect();
        let missing: Vec<String> =
            if m.contains_key("current_password") { Vec::new() } else { vec!["current_password".to_string()] };
        if !invalid.is_empty() || !missing.is_empty() {
            return Err(invalid_configuration(&invalid, &missing, &[]));
        }
        let wrong: Vec<&String> = m.iter().filter(|(_, v)| !v.is_string()).map(|(k, _)| k).collect();
        if !wrong.is_empty() {
            let mut r = error_reason("Wrong datatype");
            r.body["wrong_datatypes"] = wrong.iter().map(|k| ((*k).clone(), json!("String expected"))).collect();
            return Err(r);
        }
        let password = m.get("password").and_then(Value::as_str).unwrap_or("");
        if !password.is_empty() {
            crate::security::password::validate(name, password).map_err(|e| error_reason(password_message(e)))?;
        }
        let mut loaded = load(ctx, CType::InternalUsers)?;
        check_exists(Resource::InternalUsers, &loaded, name)?;
        check_mutable(ctx, &loaded, name)?;
        let current = m.get("current_password").and_then(Value::as_str).unwrap_or("");
        let hash = loaded.entries.get(name).and_then(|e| e.get("hash")).and_then(Value::as_str).unwrap_or("");
        if hash.is_empty() || !crate::security::password::verify(current, hash) {
            return Err(Reply::bad_request("Could not validate your current password."));
        }
        let new_hash = if password.is_empty() {
            m.get("hash").and_then(Value::as_str).unwrap_or("").to_string()
        } else {
            crate::security::password::hash(password).map_err(|e| Reply::message(500, e))?
        };
        if new_hash.is_empty() {
            return Err(Reply::bad_request("Both provided password and hash cannot be null/empty."));
        }
        if let Some(e) = loaded.entries.get_mut(name).and_then(Value::as_object_mut) {
            e.insert("hash".into(), Value::String(new_hash));
        }
        save(ctx, CType::InternalUsers, &loaded)?;
        Ok(Reply::ok(format!("'{name}' updated.")))
    };
    match run() {
        Ok(r) | Err(r) => r,
    }
}
