//! The security configuration REST API (the plugin's `*ApiAction` classes over
//! `AbstractApiAction` and `EndpointValidator`): GET, PUT, DELETE and PATCH of internal users,
//! roles, role mappings, action groups and tenants, and of `config` (`api/securityconfig`), with
//! the plugin's checks and messages. Every write goes to the security index (with the doc's
//! `if_seq_no`/`if_primary_term`) and then every node reloads (`reload::broadcast`).

use std::collections::BTreeSet;

use serde_json::{json, Map, Value};

use super::content::{validate_content, Resource};
use super::responses::{error_reason, Reply};
use super::{index, patch, reload};
use crate::cluster::ClusterService;
use crate::error::ErrorKind;
use crate::security::config::{CType, SecurityService};
use crate::shard::versioning::Constraints;

/// What a request runs with.
#[derive(Debug)]
pub struct Ctx<'a> {
    pub cs: &'a ClusterService,
    pub svc: &'a SecurityService,
    pub index: &'a str,
    /// The caller is the super admin (admin certificate): may see hidden and change reserved,
    /// static and hidden entries.
    pub admin: bool,
    /// Who changes the configuration (the `modified_by` of versions), for logs.
    pub user: Option<String>,
    /// Configuration versions, when `plugins.security.configurations_versions.enabled`.
    pub versions: Option<crate::security::config::index_settings::VersionSettings>,
}

/// A type's configuration as the API sees it: its stored entries with the static ones over them.
#[derive(Debug, Clone)]
pub(super) struct Loaded {
    pub(super) meta: Value,
    pub(super) entries: Map<String, Value>,
    pub(super) seq_no: i64,
    pub(super) primary_term: u64,
}

fn flag(entry: &Value, key: &str) -> bool {
    entry.get(key).and_then(Value::as_bool).unwrap_or(false)
}

pub(super) fn load(ctx: &Ctx, ctype: CType) -> Result<Loaded, Reply> {
    if !index::exists(ctx.cs, ctx.index) {
        return Err(Reply::message(500, "Security index not initialized"));
    }
    let doc = index::read_doc(ctx.cs, ctx.index, ctype).map_err(|e| Reply::message(500, e.reason))?;
    let Some(doc) = doc else {
        return Err(Reply::forbidden(format!(
            "Security index need to be updated to support '{}'. Use SecurityAdmin to populate.",
            ctype.name()
        )));
    };
    let mut entries = match doc.json {
        Value::Object(m) => m,
        _ => Map::new(),
    };
    let meta = entries.remove("_meta").unwrap_or(json!({"type": ctype.name(), "config_version": 2}));
    // Normalized through the typed entries (defaults filled in, as the plugin's objects print).
    let normalized = Resource::normalize(ctype, &meta, &entries).map_err(|e| Reply::message(500, e))?;
    let mut entries = normalized;
    let cur = ctx.svc.current();
    let statics: Vec<(String, Value)> = match ctype {
        CType::Roles => statics_of(&cur.roles.entries, |r| r.is_static),
        CType::ActionGroups => statics_of(&cur.action_groups.entries, |g| g.is_static),
        CType::Tenants => statics_of(&cur.tenants.entries, |t| t.is_static),
        _ => Vec::new(),
    };
    entries.extend(statics);
    Ok(Loaded { meta, entries, seq_no: doc.seq_no, primary_term: doc.primary_term })
}

fn statics_of<T: serde::Serialize>(
    m: &std::collections::BTreeMap<String, T>,
    is_static: impl Fn(&T) -> bool,
) -> Vec<(String, Value)> {
    m.iter()
        .filter(|(_, v)| is_static(v))
        .map(|(k, v)| (k.clone(), serde_json::to_value(v).unwrap_or(Value::Null)))
        .collect()
}

/// The immutability check of a change (`EndpointValidator.isAllowedToChangeImmutableEntity`):
/// hidden → 404, static → 403, reserved → 403; the super admin may change them all.
pub(super) fn check_mutable(ctx: &Ctx, loaded: &Loaded, name: &str) -> Result<(), Reply> {
    if ctx.admin {
        return Ok(());
    }
    let Some(entry) = loaded.entries.get(name) else { return Ok(()) };
    if flag(entry, "hidden") {
        return Err(Reply::not_found(format!("Resource '{name}' is not available.")));
    }
    if flag(entry, "static") {
        return Err(Reply::forbidden(format!("Resource '{name}' is static.")));
    }
    if flag(entry, "reserved") {
        return Err(Reply::forbidden(format!("Resource '{name}' is reserved.")));
    }
    Ok(())
}

pub(super) fn check_exists(res: Resource, loaded: &Loaded, name: &str) -> Result<(), Reply> {
    if loaded.entries.contains_key(name) {
        Ok(())
    } else {
        Err(Reply::not_found(format!("{} '{name}' not found.", res.noun())))
    }
}

/// What GET shows of an entry: hashes blanked.
fn redact(ctype: CType, mut entry: Value) -> Value {
    if ctype == CType::InternalUsers {
        if let Some(m) = entry.as_object_mut() {
            m.insert("hash".into(), Value::String(String::new()));
        }
    }
    entry
}

/// `GET api/<resource>[/<name>]`.
pub fn get(ctx: &Ctx, res: Resource, name: Option<&str>) -> Reply {
    let ctype = res.ctype();
    let loaded = match load(ctx, ctype) {
        Ok(l) => l,
        Err(r) => return r,
    };
    if let Some(name) = name {
        let Some(entry) = loaded.entries.get(name) else {
            return Reply::not_found(format!("{} '{name}' not found.", res.noun()));
        };
        if flag(entry, "hidden") && !ctx.admin {
            return Reply::not_found(format!("Resource '{name}' is not available."));
        }
        return Reply::body(200, json!({ name: redact(ctype, entry.clone()) }));
    }
    let out: Map<String, Value> = loaded
        .entries
        .into_iter()
        .filter(|(_, e)| ctx.admin || !flag(e, "hidden"))
        .map(|(k, e)| (k, redact(ctype, e)))
        .collect();
    Reply::body(200, Value::Object(out))
}

/// `PUT api/<resource>/<name>`.
pub fn put(ctx: &Ctx, res: Resource, name: &str, body: &Value) -> Reply {
    match put_inner(ctx, res, name, body) {
        Ok(r) | Err(r) => r,
    }
}

fn put_inner(ctx: &Ctx, res: Resource, name: &str, body: &Value) -> Result<Reply, Reply> {
    required_name(res, name)?;
    validate_content(res, body, ctx.admin, Some(name))?;
    let mut loaded = load(ctx, res.ctype())?;
    check_mutable(ctx, &loaded, name)?;
    let existed = loaded.entries.contains_key(name);
    let entry = on_change(ctx, res, &loaded, name, body.clone())?;
    loaded.entries.insert(name.to_string(), entry);
    save(ctx, res.ctype(), &loaded)?;
    Ok(if existed { Reply::ok(format!("'{name}' updated.")) } else { Reply::created(format!("'{name}' created.")) })
}

/// `DELETE api/<resource>/<name>`.
pub fn delete(ctx: &Ctx, res: Resource, name: &str) -> Reply {
    let run = || -> Result<Reply, Reply> {
        let mut loaded = load(ctx, res.ctype())?;
        check_mutable(ctx, &loaded, name)?;
        check_exists(res, &loaded, name)?;
        loaded.entries.remove(name);
        save(ctx, res.ctype(), &loaded)?;
        Ok(Reply::ok(format!("'{name}' deleted.")))
    };
    match run() {
        Ok(r) | Err(r) => r,
    }
}

/// `PATCH api/<resource>[/<name>]`: an RFC 6902 patch of one entry or of the whole type.
pub fn patch(ctx: &Ctx, res: Resource, name: Option<&str>, body: &Value) -> Reply {
    let run = || -> Result<Reply, Reply> {
        let ops = patch_ops(body)?;
        let mut loaded = load(ctx, res.ctype())?;
        match name {
            Some(name) => {
                check_mutable(ctx, &loaded, name)?;
                check_exists(res, &loaded, name)?;
                let before = loaded.entries.get(name).cloned().unwrap_or(Value::Null);
                let patched = patch::apply(&before, &ops).map_err(Reply::bad_request)?;
                let content = strip_unchanged_flags(&patched, &before);
                validate_content(res, &content, ctx.admin, Some(name))?;
                let entry = on_change(ctx, res, &loaded, name, content)?;
                loaded.entries.insert(name.to_string(), entry);
                save(ctx, res.ctype(), &loaded)?;
                Ok(Reply::ok(format!("'{name}' updated.")))
            }
            None => {
                let before = Value::Object(loaded.entries.clone());
                let patched = patch::apply(&before, &ops).map_err(Reply::bad_request)?;
                if patched == before {
                    return Ok(Reply::ok("No updates required"));
                }
                let Value::Object(after) = patched else { return Err(Reply::bad_request("Wrong request body")) };
                let names: BTreeSet<String> = ops
                    .iter()
                    .filter_map(|op| patch::tokens(op.path()).ok().and_then(|t| t.into_iter().next()))
                    .collect();
                let mut next = loaded.clone();
                next.entries = after.clone();
                for n in &names {
                    let old = loaded.entries.get(n);
                    let new = after.get(n);
                    if old.is_some() && old != new {
                        check_mutable(ctx, &loaded, n)?;
                    }
                    let Some(new) = new else { continue };
                    if old != Some(new) {
                        let content = match old {
                            Some(o) => strip_unchanged_flags(new, o),
                            None => new.clone(),
                        };
                        validate_content(res, &content, ctx.admin, Some(n))?;
                        let entry = on_change(ctx, res, &loaded, n, content)?;
                        next.entries.insert(n.clone(), entry);
                    }
                }
                save(ctx, res.ctype(), &next)?;
                Ok(Reply::ok("Resource updated."))
            }
        }
    };
    match run() {
        Ok(r) | Err(r) => r,
    }
}

/// The patch document, checked as the plugin checks it.
fn patch_ops(body: &Value) -> Result<Vec<patch::Op>, Reply> {
    let Some(items) = body.as_array() else { return Err(Reply::bad_request("Wrong request body")) };
    let ops: Vec<&str> = items.iter().filter_map(|i| i.get("op").and_then(Value::as_str)).collect();
    if ops.is_empty() {
        return Err(Reply::bad_request("Wrong request body"));
    }
    if let Some(op) = ops.iter().find(|o| !matches!(**o, "add" | "replace" | "remove")) {
        return Err(Reply::bad_request(format!(
            "Unsupported patch operation: {op}. Supported are: add,replace,remove"
        )));
    }
    patch::parse(body).map_err(|e| Reply::bad_request(format!("Error in JSON patch: {e}")))
}

/// A patched entry minus the flags it had before unchanged (they are not request content).
fn strip_unchanged_flags(patched: &Value, before: &Value) -> Value {
    let mut out = patched.clone();
    if let Some(m) = out.as_object_mut() {
        for k in ["reserved", "hidden", "static"] {
            if m.get(k) == before.get(k) {
                m.remove(k);
            }
        }
        // An unchanged hash is not new content either (GET blanks it).
        if m.get("hash") == before.get("hash") {
            m.remove("hash");
        }
    }
    out
}

fn required_name(res: Resource, name: &str) -> Result<(), Reply> {
    if name.is_empty() {
        return Err(Reply::bad_request(format!("No {} specified.", res.noun())));
    }
    if name.chars().count() > super::content::MAX_STRING_LENGTH {
        return Err(Reply::bad_request(format!(
            "{} name exceeds maximum length of {}.",
            res.noun(),
            super::content::MAX_STRING_LENGTH
        )));
    }
    Ok(())
}

/// The type-specific checks of a new or changed entry and its stored form.
fn on_change(ctx: &Ctx, res: Resource, loaded: &Loaded, name: &str, mut content: Value) -> Result<Value, Reply> {
    let Some(m) = content.as_object_mut() else { return Err(Reply::bad_request("Wrong request body")) };
    match res {
        Resource::InternalUsers => {
            if name.contains(':') {
                return Err(Reply::bad_request(
                    "A restricted character(s) was detected in the account name. Please remove: ':'",
                ));
            }
            let password = m.remove("password").and_then(|p| p.as_str().map(str::to_string));
            let hash = m.get("hash").and_then(Value::as_str).filter(|h| !h.is_empty()).map(str::to_string);
            match (password.filter(|p| !p.is_empty()), hash) {
                (Some(p), _) => {
                    if let Err(e) = crate::security::password::validate(name, &p) {
                        return Err(error_reason(super::content::password_message(e)));
                    }
                    let h = crate::security::password::hash(&p).map_err(|e| Reply::message(500, e))?;
                    m.insert("hash".into(), Value::String(h));
                }
                (None, Some(_)) => {}
                (None, None) => match loaded.entries.get(name).and_then(|e| e.get("hash")).and_then(Value::as_str) {
                    Some(h) if !h.is_empty() => {
                        m.insert("hash".into(), Value::String(h.to_string()));
                    }
                    Some(_) => {
                        return Err(Reply::message(
                            500,
                            format!("Existing user {name} has no password, and no new password or hash was specified."),
                        ))
                    }
                    None => {
                        return Err(Reply::bad_request(
                            "Please specify either 'hash' or 'password' when creating a new internal user.",
                        ))
                    }
                },
            }
            let roles: Vec<String> = m
                .get("opendistro_security_roles")
                .and_then(Value::as_array)
                .map(|a| a.iter().filter_map(|v| v.as_str().map(str::to_string)).collect())
                .unwrap_or_default();
            if !roles.is_empty() {
                let all_roles = load(ctx, CType::Roles)?;
                for r in &roles {
                    check_role(ctx, &all_roles, r)?;
                }
            }
        }
        Resource::RolesMapping => {
            let roles = load(ctx, CType::Roles)?;
            check_role(ctx, &roles, name)?;
        }
        Resource::ActionGroups => {
            let own = m
                .get("allowed_actions")
                .and_then(Value::as_array)
                .is_some_and(|a| a.iter().any(|v| v.as_str() == Some(name)));
            if own {
                return Err(Reply::bad_request(format!("{name} cannot be an allowed_action of itself")));
            }
        }
        Resource::Roles | Resource::Tenants | Resource::Config => {}
    }
    // The stored form: typed, defaults filled in, the old flags kept.
    if let Some(old) = loaded.entries.get(name) {
        for k in ["reserved", "hidden", "static"] {
            if !m.contains_key(k) {
                if let Some(v) = old.get(k) {
                    if k != "static" {
                        m.insert(k.into(), v.clone());
                    }
                }
            }
        }
    }
    let one: Map<String, Value> = [(name.to_string(), content)].into_iter().collect();
    let mut typed = Resource::normalize(res.ctype(), &loaded.meta, &one).map_err(error_reason)?;
    Ok(typed.remove(name).unwrap_or(Value::Null))
}

/// A role named by a mapping or a user must exist and be visible (`validateRoles`).
fn check_role(ctx: &Ctx, roles: &Loaded, name: &str) -> Result<(), Reply> {
    match roles.entries.get(name) {
        None => Err(Reply::not_found(format!("role '{name}' not found."))),
        Some(r) if flag(r, "hidden") && !ctx.admin => {
            Err(Reply::not_found(format!("Resource '{name}' is not available.")))
        }
        Some(_) => Ok(()),
    }
}

/// Writes the type (static entries left out) and has every node reload.
pub(super) fn save(ctx: &Ctx, ctype: CType, loaded: &Loaded) -> Result<(), Reply> {
    let mut doc = Map::new();
    doc.insert("_meta".into(), loaded.meta.clone());
    for (k, v) in &loaded.entries {
        if !flag(v, "static") {
            doc.insert(k.clone(), v.clone());
        }
    }
    let doc = Value::Object(doc);
    if let Some(vs) = &ctx.versions {
        // The configuration before the first change becomes v1 (the plugin records it at start).
        super::versions::record_initial(ctx, vs)?;
    }
    let constraints = Constraints {
        if_seq_no: Some(loaded.seq_no),
        if_primary_term: Some(loaded.primary_term),
        ..Constraints::default()
    };
    match index::write_doc(ctx.cs, ctx.index, ctype, &doc, constraints) {
        Ok(()) => {}
        Err(e) if e.kind == ErrorKind::VersionConflictEngine => return Err(Reply::message(409, e.reason)),
        Err(e) => return Err(Reply::message(500, format!("Error {}", e.reason))),
    }
    tracing::info!(config_type = ctype.name(), user = ?ctx.user, "security configuration changed");
    reload::broadcast(ctx.cs, ctx.svc, ctx.index, &[ctype.name()])
        .map_err(|e| Reply::message(500, format!("Error {}", e.reason)))?;
    match &ctx.versions {
        Some(vs) => super::versions::record(ctx, vs),
        None => Ok(()),
    }
}

/// `GET api/securityconfig`: `{"config": {"dynamic": ...}}`.
pub fn get_config(ctx: &Ctx) -> Reply {
    match load(ctx, CType::Config) {
        Ok(l) => Reply::body(200, Value::Object(l.entries)),
        Err(r) => r,
    }
}

/// `PUT api/securityconfig/config` (`{"dynamic": ...}`); the caller checked the access.
pub fn put_config(ctx: &Ctx, body: &Value) -> Reply {
    let run = || -> Result<Reply, Reply> {
        validate_content(Resource::Config, body, ctx.admin, None)?;
        let mut loaded = load(ctx, CType::Config)?;
        let entry = on_change(ctx, Resource::Config, &loaded, "config", body.clone())?;
        loaded.entries.insert("config".into(), entry);
        save(ctx, CType::Config, &loaded)?;
        Ok(Reply::ok("'config' updated."))
    };
    match run() {
        Ok(r) | Err(r) => r,
    }
}

/// `PATCH api/securityconfig`: a patch of `{"config": {...}}`.
pub fn patch_config(ctx: &Ctx, body: &Value) -> Reply {
    patch(ctx, Resource::Config, None, body)
}
