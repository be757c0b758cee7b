//! The `mappings` and `analysis` parts of `_cluster/stats` `indices`, from the metadata
//! (OpenSearch's `MappingStats` and `AnalysisStats`): how many fields of each type the
//! indices map, and which analysis component types their settings define.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{json, Value};

use crate::cluster::metadata::Metadata;

/// Counts the fields of each type under `properties` (objects and nested included).
fn walk(props: &Value, out: &mut BTreeMap<String, u64>) {
    let Some(m) = props.as_object() else { return };
    for def in m.values() {
        let ty = def["type"].as_str().unwrap_or(if def.get("properties").is_some() { "object" } else { "" });
        if !ty.is_empty() {
            *out.entry(ty.to_string()).or_default() += 1;
        }
        walk(&def["properties"], out);
        if let Some(fields) = def["fields"].as_object() {
            for sub in fields.values() {
                if let Some(t) = sub["type"].as_str() {
                    *out.entry(t.to_string()).or_default() += 1;
                }
            }
        }
    }
}

/// The analyzers a mapping's fields name (`analyzer`, `search_analyzer`, `search_quote_analyzer`).
fn used_analyzers(props: &Value, out: &mut BTreeSet<String>) {
    let Some(m) = props.as_object() else { return };
    for def in m.values() {
        for k in ["analyzer", "search_analyzer", "search_quote_analyzer"] {
            if let Some(a) = def[k].as_str() {
                out.insert(a.to_string());
            }
        }
        used_analyzers(&def["properties"], out);
        used_analyzers(&def["fields"], out);
    }
}

/// `mappings.field_types`: per type, the fields and the indices using it.
pub fn mappings(md: &Metadata) -> Value {
    let mut fields: BTreeMap<String, (u64, u64)> = BTreeMap::new();
    for m in md.indices.values() {
        let mut per = BTreeMap::new();
        walk(&m.mapping_json()["properties"], &mut per);
        for (t, n) in per {
            let e = fields.entry(t).or_default();
            e.0 += n;
            e.1 += 1;
        }
    }
    let types: Vec<Value> = fields
        .into_iter()
        .map(|(name, (count, idx))| json!({"name": name, "count": count, "index_count": idx}))
        .collect();
    json!({"field_types": types})
}

/// `analysis`: the custom component types the indices' settings define
/// (`index.analysis.{analyzer,tokenizer,filter,char_filter}.<name>.type`).
pub fn analysis(md: &Metadata) -> Value {
    let kinds = [
        ("char_filter", "char_filter_types"),
        ("tokenizer", "tokenizer_types"),
        ("filter", "filter_types"),
        ("analyzer", "analyzer_types"),
    ];
    let mut out = serde_json::Map::new();
    for (kind, field) in kinds {
        let mut counts: BTreeMap<String, (u64, BTreeSet<&str>)> = BTreeMap::new();
        for (name, m) in &md.indices {
            let prefix = format!("index.analysis.{kind}.");
            for (k, v) in m.settings.iter() {
                let Some(rest) = k.strip_prefix(&prefix) else { continue };
                if !rest.ends_with(".type") || rest.matches('.').count() != 1 {
                    continue;
                }
                if let Some(t) = v.as_str() {
                    let e = counts.entry(t.to_string()).or_default();
                    e.0 += 1;
                    e.1.insert(name.as_str());
                }
            }
        }
        let list: Vec<Value> =
            counts.into_iter().map(|(t, (c, idx))| json!({"name": t, "count": c, "index_count": idx.len()})).collect();
        out.insert(field.to_string(), Value::Array(list));
    }
    // Built-in components: named by an index (a custom analyzer's parts, a mapping's
    // analyzers) without being defined by its settings.
    let mut built_in: BTreeMap<&str, BTreeMap<String, (u64, BTreeSet<&str>)>> = BTreeMap::new();
    for (name, m) in &md.indices {
        let defined = |kind: &str, n: &str| m.settings.contains_key(&format!("index.analysis.{kind}.{n}.type"));
        let mut note = |field: &'static str, kind: &str, n: &str| {
            if !defined(kind, n) {
                let e = built_in.entry(field).or_default().entry(n.to_string()).or_default();
                e.0 += 1;
                e.1.insert(name.as_str());
            }
        };
        for (k, v) in m.settings.iter() {
            let Some(rest) = k.strip_prefix("index.analysis.analyzer.") else { continue };
            let names: Vec<&str> = match v {
                Value::String(x) => vec![x.as_str()],
                Value::Array(a) => a.iter().filter_map(Value::as_str).collect(),
                _ => continue,
            };
            let (field, kind) = if rest.ends_with(".tokenizer") {
                ("built_in_tokenizers", "tokenizer")
            } else if rest.ends_with(".filter") {
                ("built_in_filters", "filter")
            } else if rest.ends_with(".char_filter") {
                ("built_in_char_filters", "char_filter")
            } else {
                continue;
            };
            for n in names {
                note(field, kind, n);
            }
        }
        let mut analyzers = BTreeSet::new();
        used_analyzers(&m.mapping_json()["properties"], &mut analyzers);
        for a in analyzers {
            note("built_in_analyzers", "analyzer", &a);
        }
    }
    for field in ["built_in_char_filters", "built_in_tokenizers", "built_in_filters", "built_in_analyzers"] {
        let list: Vec<Value> = built_in
            .remove(field)
            .unwrap_or_default()
            .into_iter()
            .map(|(t, (c, idx))| json!({"name": t, "count": c, "index_count": idx.len()}))
            .collect();
        out.insert(field.to_string(), Value::Array(list));
    }
    Value::Object(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn field_types_are_counted() {
        let mut out = BTreeMap::new();
        let props = json!({"a": {"type": "text", "fields": {"k": {"type": "keyword"}}},
                           "o": {"properties": {"n": {"type": "long"}, "m": {"type": "text", "analyzer": "english"}}}});
        walk(&props, &mut out);
        assert_eq!(out["text"], 2);
        assert_eq!(out["keyword"], 1);
        assert_eq!(out["object"], 1);
        let mut a = BTreeSet::new();
        used_analyzers(&props, &mut a);
        assert!(a.contains("english"));
    }
}
