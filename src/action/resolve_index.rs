//! `GET /_resolve/index/{name}`: which indices, aliases (and data streams: Fathom has none)
//! an expression names, as OpenSearch's `ResolveIndexAction` lists them: each sorted by name,
//! an index with its aliases and attributes (`open`/`closed`, `hidden`, sorted), an alias with
//! all its indices.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{json, Value};

use crate::cluster::metadata::{IndexState, Metadata};
use crate::cluster::resolve::{glob, ExpandWildcards};
use crate::error::{OsError, OsResult};

/// Resolves the comma-separated `expr` over `md`. A wildcard matches indices and aliases by
/// name as `expand` allows; a plain name must exist (an index or an alias).
pub fn resolve_index(md: &Metadata, expr: &str, expand: ExpandWildcards) -> OsResult<Value> {
    // Alias name -> its indices (all of them, whatever their state).
    let mut aliases: BTreeMap<&str, (BTreeSet<&str>, bool)> = BTreeMap::new();
    for (name, m) in &md.indices {
        for (a, def) in &m.aliases {
            let e = aliases.entry(a.as_str()).or_default();
            e.0.insert(name.as_str());
            e.1 |= def.is_hidden == Some(true);
        }
    }
    let mut indices_out: BTreeSet<&str> = BTreeSet::new();
    let mut aliases_out: BTreeSet<&str> = BTreeSet::new();
    let parts: Vec<&str> = if expr.is_empty() || expr == "_all" {
        vec!["*"]
    } else {
        expr.split(',').map(str::trim).filter(|p| !p.is_empty()).collect()
    };
    for p in parts {
        if p.contains('*') {
            for (name, m) in &md.indices {
                let state_ok = match m.state {
                    IndexState::Open => expand.open,
                    IndexState::Close => expand.closed,
                };
                let hidden_ok = !m.hidden() || expand.hidden || p.starts_with('.') && name.starts_with('.');
                if state_ok && hidden_ok && glob(p, name) {
                    indices_out.insert(name.as_str());
                }
            }
            for (a, (_, hidden)) in &aliases {
                if (!*hidden || expand.hidden) && glob(p, a) {
                    aliases_out.insert(a);
                }
            }
        } else if let Some((name, _)) = md.indices.get_key_value(p) {
            indices_out.insert(name.as_str());
        } else if let Some((a, _)) = aliases.get_key_value(p) {
            aliases_out.insert(a);
        } else {
            return Err(OsError::index_not_found(p));
        }
    }
    let indices: Vec<Value> = indices_out
        .iter()
        .filter_map(|n| md.indices.get(*n).map(|m| (n, m)))
        .map(|(n, m)| {
            let mut attributes = vec![if m.state == IndexState::Open { "open" } else { "closed" }];
            if m.hidden() {
                attributes.push("hidden");
            }
            attributes.sort_unstable();
            let names: Vec<&String> = m.aliases.keys().collect();
            let mut v = json!({"name": n, "attributes": attributes});
            if !names.is_empty() {
                v["aliases"] = json!(names);
            }
            v
        })
        .collect();
    let aliases: Vec<Value> =
        aliases_out.iter().map(|a| json!({"name": a, "indices": aliases[a].0.iter().collect::<Vec<_>>()})).collect();
    Ok(json!({"indices": indices, "aliases": aliases, "data_streams": []}))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cluster::metadata::{AliasMetadata, IndexMetadata};

    fn index(name: &str, state: IndexState, aliases: &[&str]) -> IndexMetadata {
        IndexMetadata {
            name: name.into(),
            uuid: format!("u-{name}"),
            state,
            settings: Default::default(),
            mapping: std::sync::Arc::new(crate::engine::schema::Mapping::default()),
            aliases: aliases.iter().map(|a| (a.to_string(), AliasMetadata::default())).collect(),
            routing_num_shards: 1,
            primary_term: 1,
            version: 1,
            mapping_version: 1,
            settings_version: 1,
            aliases_version: 1,
        }
    }

    #[test]
    fn wildcards_follow_expand_and_aliases_list_all_their_indices() {
        let mut md = Metadata::default();
        for m in [
            index("i1", IndexState::Open, &["a", "b"]),
            index("i2", IndexState::Close, &["a"]),
            index("i3", IndexState::Open, &["b"]),
        ] {
            md.indices.insert(m.name.clone(), std::sync::Arc::new(m));
        }
        let open = ExpandWildcards { open: true, closed: false, hidden: false };
        let v = resolve_index(&md, "*", open).unwrap();
        let names: Vec<&str> = v["indices"].as_array().unwrap().iter().map(|i| i["name"].as_str().unwrap()).collect();
        assert_eq!(names, ["i1", "i3"]);
        assert_eq!(v["indices"][0]["aliases"], json!(["a", "b"]));
        assert_eq!(v["aliases"][0], json!({"name": "a", "indices": ["i1", "i2"]}));
        let all = ExpandWildcards { open: true, closed: true, hidden: true };
        let v = resolve_index(&md, "*", all).unwrap();
        assert_eq!(v["indices"][1], json!({"name": "i2", "attributes": ["closed"], "aliases": ["a"]}));
        assert_eq!(resolve_index(&md, "b", open).unwrap()["aliases"], json!([{"name": "b", "indices": ["i1", "i3"]}]));
        assert_eq!(resolve_index(&md, "nope", open).unwrap_err().kind, crate::error::ErrorKind::IndexNotFound);
    }
}
