//! `GET` and `PUT /_cluster/settings`: persistent and transient cluster settings stored in the
//! cluster state (`cluster:admin/settings/update`, `cluster:monitor/settings`... as OpenSearch's
//! `ClusterUpdateSettingsAction` and the cluster state read).

use serde_json::{json, Map, Value};

use crate::cluster::blocks::Level;
use crate::cluster::cluster_settings::{apply_update, flatten, nest, REGISTRY};
use crate::cluster::ClusterService;
use crate::error::{unknown_field, ErrorKind, OsError, OsResult};

/// A parsed `PUT /_cluster/settings` body: flat keys per scope.
#[derive(Debug, Default, PartialEq)]
pub struct Update {
    pub persistent: Map<String, Value>,
    pub transient: Map<String, Value>,
}

/// Parses the body (`ClusterUpdateSettingsRequest.fromXContent`).
pub fn parse(body: &Value) -> OsResult<Update> {
    let obj = body.as_object().ok_or_else(|| OsError::parsing("request body must be an object"))?;
    let mut u = Update::default();
    for (k, v) in obj {
        let target = match k.as_str() {
            "persistent" => &mut u.persistent,
            "transient" => &mut u.transient,
            other => {
                return Err(OsError::new(
                    ErrorKind::XContentParse,
                    unknown_field("cluster_update_settings_request", other, &["persistent", "transient"]),
                ))
            }
        };
        match v {
            Value::Object(_) => flatten("", v, target),
            Value::Null => {}
            _ => {
                return Err(OsError::parsing(format!(
                    "[cluster_update_settings_request] {k} doesn't support values of type: VALUE_STRING"
                )))
            }
        }
    }
    if u.persistent.is_empty() && u.transient.is_empty() {
        return Err(OsError::validation(&["no settings to update".into()]));
    }
    Ok(u)
}

fn render(m: &Map<String, Value>, flat: bool) -> Value {
    if flat {
        Value::Object(m.clone())
    } else {
        Value::Object(nest(m))
    }
}

/// Applies `u` in one publication (transient first, as OpenSearch's `SettingsUpdater`) and
/// answers `{acknowledged, persistent, transient}` with what was set.
pub fn put(cs: &ClusterService, u: &Update, flat: bool) -> OsResult<Value> {
    let p: Vec<&str> = u.persistent.keys().map(String::as_str).collect();
    let t: Vec<&str> = u.transient.keys().map(String::as_str).collect();
    if !crate::cluster::blocks::cluster_settings_update_passes_blocks(&p, &t) {
        cs.check_cluster_manager_blocks(Level::MetadataWrite)?;
    }
    let _source = crate::cluster::pending::source("cluster_update_settings");
    let (transient, persistent) = cs.update(|md| {
        let mut t = md.transient_settings.clone();
        let mut p = md.persistent_settings.clone();
        let ta = apply_update("transient", &mut t, &u.transient)?;
        let pa = apply_update("persistent", &mut p, &u.persistent)?;
        let changed = t != md.transient_settings || p != md.persistent_settings;
        md.transient_settings = t;
        md.persistent_settings = p;
        Ok((changed, (ta, pa)))
    })?;
    Ok(json!({
        "acknowledged": true,
        "persistent": render(&persistent, flat),
        "transient": render(&transient, flat),
    }))
}

/// `GET /_cluster/settings`; with `include_defaults`, `defaults` holds the node's settings and
/// the defaults of the registered settings that are set nowhere.
pub fn get(
    cs: &ClusterService,
    node_settings: &Map<String, Value>,
    flat: bool,
    include_defaults: bool,
) -> OsResult<Value> {
    cs.check_blocks(Level::MetadataRead, &[])?;
    let md = cs.metadata();
    let mut out = json!({
        "persistent": render(&md.persistent_settings, flat),
        "transient": render(&md.transient_settings, flat),
    });
    if include_defaults {
        let mut defaults = Map::new();
        for def in REGISTRY {
            if let Some(v) = def.default {
                let value = if v == "[]" { json!([]) } else { json!(v) };
                defaults.insert(def.key.to_string(), value);
            }
        }
        for (k, v) in node_settings {
            defaults.insert(k.clone(), v.clone());
        }
        defaults.retain(|k, _| !md.persistent_settings.contains_key(k) && !md.transient_settings.contains_key(k));
        out["defaults"] = render(&defaults, flat);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_bodies() {
        let u =
            parse(&json!({"persistent": {"cluster": {"routing.allocation.enable": "none"}}, "transient": {}})).unwrap();
        assert_eq!(u.persistent, json!({"cluster.routing.allocation.enable": "none"}).as_object().unwrap().clone());
        let e = parse(&json!({"persistnt": {}})).unwrap_err();
        assert_eq!(e.reason, "[cluster_update_settings_request] unknown field [persistnt] did you mean [persistent]?");
        let e = parse(&json!({"persistent": {}})).unwrap_err();
        assert_eq!(e.reason, "Validation Failed: 1: no settings to update;");
        // A null resets: the key is kept as an update.
        let u = parse(&json!({"transient": {"cluster.routing.allocation.enable": null}})).unwrap();
        assert_eq!(u.transient["cluster.routing.allocation.enable"], Value::Null);
    }
}
