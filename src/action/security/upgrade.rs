//! `GET api/_upgrade_check` and `POST api/_upgrade_perform` (the plugin's
//! `ConfigUpgradeApiAction`): the active roles compared with the roles file shipped in
//! `$conf/opensearch-security/roles.yml`. Roles the file lacks (the user's own) are not
//! upgrades; every other difference is grouped by role as `add`, `replace`, `remove` (inside a
//! role), or `modify` when a role has several kinds. Perform writes the file's version of each
//! such role.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{json, Map, Value};

use super::api::{load, save, Ctx};
use super::content::Resource;
use super::responses::Reply;
use crate::security::config::CType;

/// The kinds of change that turn `old` into `new` (a JSON diff's operations, by kind).
fn diff_kinds(old: &Value, new: &Value, out: &mut BTreeSet<&'static str>) {
    match (old, new) {
        (Value::Object(a), Value::Object(b)) => {
            for (k, v) in b {
                match a.get(k) {
                    None => {
                        out.insert("add");
                    }
                    Some(o) if o != v => diff_kinds(o, v, out),
                    Some(_) => {}
                }
            }
            if a.keys().any(|k| !b.contains_key(k)) {
                out.insert("remove");
            }
        }
        (Value::Array(a), Value::Array(b)) if a != b => {
            if b.iter().any(|x| !a.contains(x)) {
                out.insert("add");
            }
            if a.iter().any(|x| !b.contains(x)) {
                out.insert("remove");
            }
            if b.iter().all(|x| a.contains(x)) && a.iter().all(|x| b.contains(x)) {
                out.insert("replace");
            }
        }
        (a, b) if a != b => {
            out.insert("replace");
        }
        _ => {}
    }
}

/// Per role of `shipped` that differs from `active`: the kind of upgrade.
pub fn differences(active: &Map<String, Value>, shipped: &Map<String, Value>) -> BTreeMap<&'static str, Vec<String>> {
    let mut out: BTreeMap<&'static str, Vec<String>> = BTreeMap::new();
    for (name, new) in shipped {
        let kind = match active.get(name) {
            None => Some("add"),
            Some(old) if old != new => {
                let mut kinds = BTreeSet::new();
                diff_kinds(old, new, &mut kinds);
                match kinds.len() {
                    0 => None,
                    1 => kinds.into_iter().next(),
                    _ => Some("modify"),
                }
            }
            Some(_) => None,
        };
        if let Some(k) = kind {
            out.entry(k).or_default().push(name.clone());
        }
    }
    out
}

/// The shipped roles file, normalised as the active ones are.
fn shipped_roles(ctx: &Ctx) -> Result<Map<String, Value>, Reply> {
    let path = ctx.svc.dir().join(CType::Roles.file_name());
    let err = |e: String| {
        tracing::warn!(file = %path.display(), error = %e, "cannot read the shipped roles");
        Reply::bad_request("Error processing configuration, see the log file to troubleshoot.")
    };
    let text = std::fs::read_to_string(&path).map_err(|e| err(e.to_string()))?;
    let file: crate::security::config::ConfigFile<crate::security::config::Role> =
        crate::security::config::ConfigFile::from_yaml(CType::Roles, &text).map_err(err)?;
    let mut m = match file.to_json() {
        Value::Object(m) => m,
        _ => Map::new(),
    };
    let meta = m.remove("_meta").unwrap_or(Value::Null);
    Resource::normalize(CType::Roles, &meta, &m).map_err(err)
}

fn active_roles(ctx: &Ctx) -> Result<(super::api::Loaded, Map<String, Value>), Reply> {
    let loaded = load(ctx, CType::Roles)?;
    let active: Map<String, Value> = loaded
        .entries
        .iter()
        .filter(|(_, v)| !v.get("static").and_then(Value::as_bool).unwrap_or(false))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    Ok((loaded, active))
}

fn as_json(d: &BTreeMap<&'static str, Vec<String>>) -> Value {
    let m: Map<String, Value> = d.iter().map(|(k, v)| (k.to_string(), json!(v))).collect();
    json!({"roles": m})
}

/// `GET api/_upgrade_check`.
pub fn check(ctx: &Ctx) -> Reply {
    let run = || -> Result<Reply, Reply> {
        let (_, active) = active_roles(ctx)?;
        let d = differences(&active, &shipped_roles(ctx)?);
        if d.is_empty() {
            return Ok(Reply::body(200, json!({"status": "OK", "upgradeAvailable": false})));
        }
        Ok(Reply::body(200, json!({"status": "OK", "upgradeAvailable": true, "upgradeActions": as_json(&d)})))
    };
    match run() {
        Ok(r) | Err(r) => r,
    }
}

/// `POST api/_upgrade_perform`.
pub fn perform(ctx: &Ctx) -> Reply {
    let run = || -> Result<Reply, Reply> {
        let (mut loaded, active) = active_roles(ctx)?;
        let shipped = shipped_roles(ctx)?;
        let d = differences(&active, &shipped);
        if d.is_empty() {
            return Err(Reply::bad_request("Unable to upgrade, no differences found"));
        }
        for name in d.values().flatten() {
            if let Some(v) = shipped.get(name) {
                loaded.entries.insert(name.clone(), v.clone());
            }
        }
        save(ctx, CType::Roles, &loaded)?;
        Ok(Reply::body(200, json!({"status": "OK", "upgrades": as_json(&d)})))
    };
    match run() {
        Ok(r) | Err(r) => r,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn differences_are_grouped_by_role() {
        let active = json!({
            "same": {"cluster_permissions": ["a"]},
            "more": {"cluster_permissions": ["a"]},
            "mixed": {"cluster_permissions": ["a"], "description": "x"},
            "mine": {"cluster_permissions": ["z"]},
        });
        let shipped = json!({
            "same": {"cluster_permissions": ["a"]},
            "more": {"cluster_permissions": ["a", "b"]},
            "mixed": {"cluster_permissions": ["b"], "description": "y"},
            "new": {"cluster_permissions": []},
        });
        let d = differences(active.as_object().unwrap(), shipped.as_object().unwrap());
        assert_eq!(d.get("add"), Some(&vec!["more".to_string(), "new".to_string()]));
        assert_eq!(d.get("modify"), Some(&vec!["mixed".to_string()]));
        assert_eq!(d.len(), 2, "{d:?}");
        assert!(differences(active.as_object().unwrap(), active.as_object().unwrap()).is_empty());
    }
}
