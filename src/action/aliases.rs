//! Aliases: `GET _alias`, `PUT/DELETE {index}/_alias/{name}` and `POST _aliases` (add, remove,
//! remove_index), as OpenSearch's `MetadataIndexAliasesService` applies them: every action of a
//! request is validated first, then applied to the metadata in one update.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{json, Map, Value};

use crate::cluster::metadata::{AliasMetadata, Metadata};
use crate::cluster::resolve::{glob, resolve, ExpandWildcards, IndicesOptions};
use crate::cluster::ClusterService;
use crate::error::{ErrorKind, OsError, OsResult};

/// One alias action.
#[derive(Debug, Clone, PartialEq)]
pub enum AliasAction {
    Add { indices: Vec<String>, aliases: Vec<String>, def: AliasMetadata },
    Remove { indices: Vec<String>, aliases: Vec<String>, must_exist: Option<bool> },
    RemoveIndex { indices: Vec<String> },
}

fn names(v: &Value, key: &str) -> OsResult<Vec<String>> {
    // `AliasActions.indices(...)`/`aliases(...)`/`index(...)`/`alias(...)` checks.
    match v {
        Value::String(s) if s.is_empty() => Err(OsError::illegal(format!("[{key}] can't be empty string"))),
        Value::Array(a) if a.is_empty() => Err(OsError::illegal(format!("[{key}] can't be empty"))),
        Value::Array(a) if a.iter().any(|x| x.as_str() == Some("")) => {
            Err(OsError::illegal(format!("[{key}] can't contain empty string")))
        }
        Value::String(s) => Ok(vec![s.clone()]),
        Value::Array(a) => a
            .iter()
            .map(|x| {
                x.as_str()
                    .map(str::to_string)
                    .ok_or_else(|| OsError::parsing(format!("[{key}] must be an array of strings")))
            })
            .collect(),
        _ => Err(OsError::parsing(format!("[{key}] must be a string or an array of strings"))),
    }
}

/// Parses one `{"add"|"remove"|"remove_index": {...}}` object.
pub fn parse_action(v: &Value) -> OsResult<AliasAction> {
    let Some((kind, body)) = v.as_object().filter(|m| m.len() == 1).and_then(|m| m.iter().next()) else {
        return Err(OsError::parsing("[aliases] failed to parse field [actions]"));
    };
    let Some(body) = body.as_object() else {
        return Err(OsError::parsing(format!("[{kind}] must be an object")));
    };
    let (mut indices, mut aliases, mut def_fields, mut must_exist) = (Vec::new(), Vec::new(), Map::new(), None);
    for (k, val) in body {
        match k.as_str() {
            "index" | "indices" => indices.extend(names(val, k)?),
            "alias" | "aliases" if kind != "remove_index" => aliases.extend(names(val, k)?),
            "must_exist" if kind == "remove" => must_exist = val.as_bool(),
            "filter" | "routing" | "index_routing" | "search_routing" | "is_write_index" | "is_hidden"
                if kind == "add" =>
            {
                def_fields.insert(k.clone(), val.clone());
            }
            other => return Err(OsError::illegal(format!("[{kind}] unknown field [{other}]"))),
        }
    }
    let mut errors = Vec::new();
    if indices.is_empty() {
        errors.push("One of [index/indices] is required".to_string());
    }
    if kind != "remove_index" && aliases.is_empty() {
        errors.push("One of [alias/aliases] is required".to_string());
    }
    if !errors.is_empty() {
        return Err(OsError::validation(&errors));
    }
    Ok(match kind.as_str() {
        "add" => {
            let label = aliases.first().cloned().unwrap_or_default();
            AliasAction::Add { indices, aliases, def: AliasMetadata::from_json(&label, &Value::Object(def_fields))? }
        }
        "remove" => AliasAction::Remove { indices, aliases, must_exist },
        "remove_index" => AliasAction::RemoveIndex { indices },
        other => return Err(OsError::parsing(format!("Unknown alias action [{other}]"))),
    })
}

/// Parses `POST _aliases`'s body.
pub fn parse_actions(body: &Value) -> OsResult<Vec<AliasAction>> {
    let Some(list) = body.get("actions").and_then(Value::as_array) else {
        return Err(OsError::validation(&["no actions specified".into()]));
    };
    if list.is_empty() {
        return Err(OsError::validation(&["no actions specified".into()]));
    }
    list.iter().map(parse_action).collect()
}

fn targets(md: &Metadata, exprs: &[String]) -> OsResult<Vec<String>> {
    let opts = IndicesOptions {
        ignore_unavailable: false,
        allow_no_indices: false,
        expand: ExpandWildcards { open: true, closed: true, hidden: false },
        forbid_closed: false,
    };
    let names = resolve(md, &exprs.join(","), opts)?;
    // Alias changes are metadata writes: a blocked index refuses them.
    let refs: Vec<&str> = names.iter().map(String::as_str).collect();
    crate::cluster::blocks::check_indices(md, crate::cluster::blocks::Level::MetadataWrite, &refs, false)?;
    Ok(names)
}

fn validate_alias_name(md: &Metadata, alias: &str) -> OsResult<()> {
    let bad = |why: &str| {
        Err(OsError::new(ErrorKind::InvalidAliasName, format!("Invalid alias name [{alias}]: {why}"))
            .with("index", alias)
            .with("index_uuid", "_na_"))
    };
    if md.indices.contains_key(alias) {
        return Err(OsError::new(
            ErrorKind::InvalidAliasName,
            format!("Invalid alias name [{alias}], an index exists with the same name as the alias"),
        )
        .with("index", alias)
        .with("index_uuid", "_na_"));
    }
    if alias.starts_with('_') || alias.starts_with('-') || alias.starts_with('+') {
        return bad("must not start with '_', '-', or '+'");
    }
    if alias != alias.to_lowercase() {
        return bad("must be lowercase");
    }
    if alias.chars().any(|c| "\\/*?\"<>| ,#".contains(c)) {
        return bad("must not contain the following characters [ , \", *, \\, <, |, ,, >, /, ?]");
    }
    Ok(())
}

/// Applies alias actions in one metadata update; `remove_index` deletes indices afterwards.
pub fn apply(cs: &ClusterService, actions: &[AliasAction]) -> OsResult<Value> {
    let mut to_delete: Vec<String> = Vec::new();
    let _source = crate::cluster::pending::source("index-aliases");
    let changed: BTreeSet<String> = cs.update(|md| {
        // Runs again when another publication came first: start over.
        to_delete.clear();
        let mut changed = BTreeSet::new();
        for a in actions {
            match a {
                AliasAction::Add { indices, aliases, def } => {
                    let names = targets(md, indices)?;
                    for alias in aliases {
                        validate_alias_name(md, alias)?;
                    }
                    for n in &names {
                        let Some(m) = md.indices.get_mut(n) else { continue };
                        let m = std::sync::Arc::make_mut(m);
                        for alias in aliases {
                            m.aliases.insert(alias.clone(), def.clone());
                        }
                        m.aliases_version += 1;
                        m.version += 1;
                        changed.insert(n.clone());
                    }
                }
                AliasAction::Remove { indices, aliases, must_exist } => {
                    let names = targets(md, indices)?;
                    let mut removed_any = false;
                    let mut missing: Vec<String> = Vec::new();
                    for alias in aliases {
                        let mut found = false;
                        for n in &names {
                            let Some(m) = md.indices.get_mut(n) else { continue };
                            let hits: Vec<String> = m.aliases.keys().filter(|k| glob(alias, k) || alias == "_all").cloned().collect();
                            if hits.is_empty() {
                                continue;
                            }
                            let m = std::sync::Arc::make_mut(m);
                            for h in hits {
                                m.aliases.remove(&h);
                            }
                            m.aliases_version += 1;
                            m.version += 1;
                            changed.insert(n.clone());
                            found = true;
                        }
                        removed_any |= found;
                        if !found {
                            missing.push(alias.clone());
                        }
                    }
                    if (*must_exist == Some(true) && !missing.is_empty()) || (*must_exist != Some(false) && !removed_any) {
                        return Err(aliases_not_found(&missing));
                    }
                }
                AliasAction::RemoveIndex { indices } => {
                    for e in indices {
                        if !md.indices.contains_key(e) && md.is_alias(e) {
                            return Err(OsError::illegal(format!("The provided expression [{e}] matches an alias, specify the corresponding concrete indices instead.")));
                        }
                    }
                    to_delete.extend(targets(md, indices)?);
                }
            }
        }
        check_write_indices(md, &changed)?;
        Ok((!changed.is_empty(), changed))
    })?;
    for n in &changed {
        // Publish the new metadata to the open index service (no further change).
        let _ = cs.update_index(n, |_| Ok(false));
    }
    if !to_delete.is_empty() {
        cs.delete_indices(&to_delete)?;
    }
    Ok(json!({"acknowledged": true}))
}

/// An alias may have at most one write index.
fn check_write_indices(md: &Metadata, changed: &BTreeSet<String>) -> OsResult<()> {
    let mut writers: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for m in md.indices.values() {
        for (a, d) in &m.aliases {
            if d.is_write_index == Some(true) {
                writers.entry(a.as_str()).or_default().push(m.name.as_str());
            }
        }
    }
    for (a, w) in writers {
        if w.len() > 1 && w.iter().any(|n| changed.contains(*n)) {
            return Err(OsError::illegal(format!("alias [{a}] has more than one write index [{}]", w.join(","))));
        }
    }
    Ok(())
}

/// `aliases_not_found_exception`.
pub fn aliases_not_found(names: &[String]) -> OsError {
    let list = names.join(",");
    OsError::new(ErrorKind::AliasesNotFound, format!("aliases [{list}] missing"))
        .status(404)
        .with("resource.type", "aliases")
        .with("resource.id", list)
}

/// `DELETE /{index}/_alias/{name}`.
pub fn delete(cs: &ClusterService, index: &str, names: &str) -> OsResult<Value> {
    let aliases: Vec<String> = names.split(',').map(str::to_string).collect();
    apply(cs, &[AliasAction::Remove { indices: vec![index.to_string()], aliases, must_exist: Some(true) }])
}

/// Whether the alias name patterns `ps` (`_all`, `*`, globs, `-` exclusions, in order) select
/// `alias`.
pub fn alias_selected(ps: &[&str], alias: &str) -> bool {
    let mut keep = false;
    for p in ps {
        if *p == "_all" || *p == "*" {
            keep = true;
        } else if let Some(neg) = p.strip_prefix('-') {
            if glob(neg, alias) {
                keep = false;
            }
        } else if glob(p, alias) {
            keep = true;
        }
    }
    keep
}

/// The answer of `GET [/{index}]/_alias[/{name}]`: `(status, body)`. A named alias that matches
/// nothing makes it a 404 whose body carries `error` and `status` beside what was found.
pub fn get(
    md: &Metadata,
    index_expr: Option<&str>,
    names: Option<&str>,
    opts: IndicesOptions,
) -> OsResult<(u16, Value)> {
    let indices = resolve(md, index_expr.unwrap_or("_all"), opts)?;
    let patterns: Option<Vec<&str>> = names.map(|n| n.split(',').map(str::trim).filter(|p| !p.is_empty()).collect());
    let wanted = |a: &str| patterns.as_deref().is_none_or(|ps| alias_selected(ps, a));
    let mut out = Map::new();
    let mut seen: BTreeSet<String> = BTreeSet::new();
    for n in &indices {
        let Some(m) = md.indices.get(n) else { continue };
        let aliases: Map<String, Value> =
            m.aliases.iter().filter(|(a, _)| wanted(a)).map(|(a, d)| (a.clone(), d.to_json())).collect();
        seen.extend(aliases.keys().cloned());
        if patterns.is_none() || !aliases.is_empty() {
            out.insert(n.clone(), json!({"aliases": aliases}));
        }
    }
    let missing: Vec<String> = patterns
        .iter()
        .flatten()
        .filter(|p| !p.contains('*') && !p.starts_with('-') && **p != "_all" && !seen.contains(**p))
        .map(|p| p.to_string())
        .collect();
    if !missing.is_empty() {
        out.insert(
            "error".into(),
            json!(format!("alias{} [{}] missing", if missing.len() > 1 { "es" } else { "" }, missing.join(","))),
        );
        out.insert("status".into(), json!(404));
        return Ok((404, Value::Object(out)));
    }
    Ok((200, Value::Object(out)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_actions() {
        let a = parse_actions(&json!({"actions": [{"add": {"index": "i", "alias": "a", "routing": "1", "is_write_index": true}}, {"remove": {"indices": ["i"], "aliases": ["b"], "must_exist": false}}, {"remove_index": {"index": "x"}}]})).unwrap();
        assert_eq!(a.len(), 3);
        match &a[0] {
            AliasAction::Add { def, .. } => {
                assert_eq!(def.index_routing.as_deref(), Some("1"));
                assert_eq!(def.is_write_index, Some(true));
            }
            other => panic!("{other:?}"),
        }
        assert!(matches!(&a[1], AliasAction::Remove { must_exist: Some(false), .. }));
        let e = parse_actions(&json!({"actions": [{"add": {"alias": "a"}}]})).unwrap_err();
        assert_eq!(e.reason, "Validation Failed: 1: One of [index/indices] is required;");
        assert!(parse_actions(&json!({"actions": [{"add": {"index": "i", "alias": "a", "bogus": 1}}]})).is_err());
        assert!(parse_actions(&json!({})).is_err());
    }

    #[test]
    fn missing_alias_message() {
        let e = aliases_not_found(&["a".into(), "b".into()]);
        assert_eq!((e.status, e.reason.as_str()), (404, "aliases [a,b] missing"));
    }
}
