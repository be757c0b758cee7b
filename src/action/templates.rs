//! Applying templates when an index is created (explicitly or on first write), as OpenSearch's
//! `MetadataCreateIndexService` does: the highest-priority matching composable template
//! (`_index_template`, with its `composed_of` component templates in order) wins; if none
//! matches, every matching legacy template (`_template`) applies, lower `order` first. The
//! request's own settings, mappings and aliases override the templates'.

use serde_json::{Map, Value};

use crate::cluster::metadata::{AliasMetadata, Metadata};
use crate::cluster::resolve::glob;
use crate::cluster::settings::flatten_index_settings;
use crate::cluster::CreateIndex;
use crate::error::{OsError, OsResult};

fn patterns(t: &Value) -> Vec<String> {
    match &t["index_patterns"] {
        Value::String(s) => vec![s.clone()],
        Value::Array(a) => a.iter().filter_map(|x| x.as_str().map(str::to_string)).collect(),
        _ => Vec::new(),
    }
}

fn matches(t: &Value, index: &str) -> bool {
    patterns(t).iter().any(|p| glob(p, index))
}

/// Deep-merges mapping JSON: `over` wins; objects merge recursively.
pub fn merge_json(base: &mut Value, over: &Value) {
    match (base, over) {
        (Value::Object(b), Value::Object(o)) => {
            for (k, v) in o {
                match b.get_mut(k) {
                    Some(existing) if existing.is_object() && v.is_object() => merge_json(existing, v),
                    _ => {
                        b.insert(k.clone(), v.clone());
                    }
                }
            }
        }
        (b, o) => *b = o.clone(),
    }
}

fn unwrap_doc(m: &Value) -> Value {
    match m.as_object() {
        Some(o) if o.len() == 1 && o.get("_doc").is_some_and(Value::is_object) => o["_doc"].clone(),
        _ => m.clone(),
    }
}

struct Layer {
    settings: Value,
    mappings: Value,
    aliases: Value,
}

/// The composable template that applies to `index`, if any: `(name, template)`.
pub fn find_composable<'a>(md: &'a Metadata, index: &str) -> Option<(&'a String, &'a Value)> {
    md.index_templates
        .iter()
        .filter(|(_, t)| matches(t, index))
        .max_by_key(|(_, t)| t["priority"].as_i64().unwrap_or(0))
}

/// Applies matching templates to a create request.
pub fn apply(md: &Metadata, req: CreateIndex) -> OsResult<CreateIndex> {
    let mut layers: Vec<Layer> = Vec::new();
    if let Some((_, t)) = find_composable(md, &req.name) {
        if let Some(list) = t["composed_of"].as_array() {
            for c in list.iter().filter_map(Value::as_str) {
                let Some(ct) = md.component_templates.get(c) else {
                    return Err(OsError::illegal(format!("component template [{c}] does not exist")));
                };
                let inner = &ct["template"];
                layers.push(Layer {
                    settings: inner["settings"].clone(),
                    mappings: inner["mappings"].clone(),
                    aliases: inner["aliases"].clone(),
                });
            }
        }
        let inner = &t["template"];
        layers.push(Layer {
            settings: inner["settings"].clone(),
            mappings: inner["mappings"].clone(),
            aliases: inner["aliases"].clone(),
        });
    } else {
        let mut legacy: Vec<&Value> = md.templates.values().filter(|t| matches(t, &req.name)).collect();
        legacy.sort_by_key(|t| t["order"].as_i64().unwrap_or(0));
        for t in legacy {
            layers.push(Layer {
                settings: t["settings"].clone(),
                mappings: t["mappings"].clone(),
                aliases: t["aliases"].clone(),
            });
        }
    }
    if layers.is_empty() {
        return Ok(req);
    }
    let mut settings = crate::cluster::settings::FlatSettings::new();
    let mut mappings = Value::Object(Map::new());
    let mut aliases: Vec<(String, AliasMetadata)> = Vec::new();
    for l in &layers {
        settings.extend(flatten_index_settings(&l.settings)?);
        if l.mappings.is_object() {
            merge_json(&mut mappings, &unwrap_doc(&l.mappings));
        }
        if let Some(a) = l.aliases.as_object() {
            for (name, def) in a {
                let name = name.replace("{index}", &req.name);
                aliases.retain(|(n, _)| *n != name);
                aliases.push((name.clone(), AliasMetadata::from_json(&name, def)?));
            }
        }
    }
    settings.extend(req.settings);
    if let Some(m) = &req.mappings {
        merge_json(&mut mappings, &unwrap_doc(m));
    }
    for (n, a) in req.aliases {
        aliases.retain(|(x, _)| *x != n);
        aliases.push((n, a));
    }
    let empty = mappings.as_object().is_some_and(|m| m.is_empty());
    Ok(CreateIndex { name: req.name, settings, mappings: if empty { None } else { Some(mappings) }, aliases })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn legacy_templates_apply_in_order() {
        let mut md = Metadata::default();
        md.templates
            .insert("a".into(), json!({"index_patterns": ["t*"], "order": 1, "settings": {"number_of_shards": 2}}));
        md.templates.insert("b".into(), json!({"index_patterns": ["te*"], "order": 0, "settings": {"number_of_shards": 3, "number_of_replicas": 0}, "mappings": {"properties": {"f": {"type": "keyword"}}}}));
        let r = apply(&md, CreateIndex { name: "test".into(), ..Default::default() }).unwrap();
        assert_eq!(r.settings["index.number_of_shards"], json!("2"));
        assert_eq!(r.settings["index.number_of_replicas"], json!("0"));
        assert_eq!(r.mappings.unwrap()["properties"]["f"]["type"], "keyword");
    }

    #[test]
    fn composable_wins_over_legacy() {
        let mut md = Metadata::default();
        md.templates.insert("a".into(), json!({"index_patterns": ["t*"], "settings": {"number_of_shards": 2}}));
        md.component_templates
            .insert("c".into(), json!({"template": {"mappings": {"properties": {"x": {"type": "long"}}}}}));
        md.index_templates.insert("it".into(), json!({"index_patterns": ["t*"], "priority": 5, "composed_of": ["c"], "template": {"settings": {"number_of_replicas": 0}, "aliases": {"al": {}}}}));
        let r = apply(&md, CreateIndex { name: "test".into(), ..Default::default() }).unwrap();
        assert!(!r.settings.contains_key("index.number_of_shards"));
        assert_eq!(r.mappings.unwrap()["properties"]["x"]["type"], "long");
        assert_eq!(r.aliases[0].0, "al");
    }
}
