//! The template APIs: legacy `_template`, composable `_index_template`, `_component_template`,
//! and `_index_template/_simulate_index`. Templates are kept in `Metadata` as JSON, normalised
//! the way OpenSearch prints them: settings nested with string values under `index`, mappings
//! without the `_doc` wrapper, aliases as their parsed definitions.

use serde_json::{json, Map, Value};

use super::templates::{self, merge_json};
use crate::cluster::metadata::{AliasMetadata, Metadata};
use crate::cluster::resolve::glob;
use crate::cluster::settings::{flat_json, flatten_index_settings, nest};
use crate::cluster::{ClusterService, CreateIndex};
use crate::engine::schema::Mapping;
use crate::error::{ErrorKind, OsError, OsResult};

/// Which kind of template.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Legacy,
    Composable,
    Component,
}

fn store(md: &mut Metadata, kind: Kind) -> &mut std::collections::BTreeMap<String, Value> {
    match kind {
        Kind::Legacy => &mut md.templates,
        Kind::Composable => &mut md.index_templates,
        Kind::Component => &mut md.component_templates,
    }
}

fn parse_err(msg: impl Into<String>) -> OsError {
    OsError::new(ErrorKind::Parse, msg)
}

fn patterns(v: &Value) -> OsResult<Vec<String>> {
    match v {
        Value::String(s) => Ok(s.split(',').map(|p| p.trim().to_string()).filter(|p| !p.is_empty()).collect()),
        Value::Array(a) => a
            .iter()
            .map(|x| x.as_str().map(str::to_string).ok_or_else(|| parse_err("index_patterns must be strings")))
            .collect(),
        Value::Null => Ok(Vec::new()),
        _ => Err(parse_err("Malformed [index_patterns] value, should be a string or a list of strings")),
    }
}

/// `{settings, mappings, aliases}` normalised; validates settings and mappings.
fn normalise_template_body(v: &Value, what: &str) -> OsResult<Map<String, Value>> {
    let mut out = Map::new();
    let Some(m) = v.as_object() else {
        return Err(parse_err(format!("[{what}] must be an object")));
    };
    for (k, val) in m {
        match k.as_str() {
            "settings" => {
                out.insert("settings".into(), nest(&flatten_index_settings(val)?));
            }
            "mappings" => {
                let unwrapped = match val.as_object() {
                    Some(o) if o.len() == 1 && o.get("_doc").is_some_and(Value::is_object) => o["_doc"].clone(),
                    _ => val.clone(),
                };
                Mapping::from_json(&unwrapped).map_err(|e| {
                    OsError::new(ErrorKind::MapperParsing, "Failed to parse mapping: ".to_string() + &e.reason)
                        .caused_by(OsError::from(e))
                })?;
                out.insert("mappings".into(), unwrapped);
            }
            "aliases" => {
                let Some(a) = val.as_object() else {
                    return Err(parse_err("failed to parse aliases"));
                };
                let mut am = Map::new();
                for (name, def) in a {
                    am.insert(name.clone(), AliasMetadata::from_json(name, def)?.to_json());
                }
                out.insert("aliases".into(), Value::Object(am));
            }
            other => return Err(OsError::illegal(format!("unknown key [{other}] in the template "))),
        }
    }
    Ok(out)
}

/// Parses and normalises a PUT body.
pub fn normalise(kind: Kind, name: &str, body: &Value, order_param: Option<i64>) -> OsResult<Value> {
    let Some(m) = body.as_object() else {
        return Err(parse_err("request body is required"));
    };
    let mut out = Map::new();
    match kind {
        Kind::Legacy => {
            let mut inner = Map::new();
            for (k, v) in m {
                match k.as_str() {
                    "index_patterns" | "template" => {
                        out.insert("index_patterns".into(), json!(patterns(v)?));
                    }
                    "order" => {
                        out.insert(
                            "order".into(),
                            json!(v
                                .as_i64()
                                .or_else(|| v.as_str().and_then(|s| s.parse().ok()))
                                .ok_or_else(|| parse_err("[order] must be a number"))?),
                        );
                    }
                    "version" => {
                        out.insert("version".into(), v.clone());
                    }
                    "settings" | "mappings" | "aliases" => {
                        inner.insert(k.clone(), v.clone());
                    }
                    other => return Err(OsError::illegal(format!("unknown key [{other}] in the template "))),
                }
            }
            if let Some(o) = order_param {
                out.insert("order".into(), json!(o));
            }
            if !out.contains_key("index_patterns") || out["index_patterns"].as_array().is_some_and(Vec::is_empty) {
                return Err(OsError::validation(&["index patterns are missing".into()]));
            }
            out.entry("order").or_insert(json!(0));
            let body = normalise_template_body(&Value::Object(inner), "template")?;
            out.insert("settings".into(), body.get("settings").cloned().unwrap_or(json!({})));
            out.insert("mappings".into(), body.get("mappings").cloned().unwrap_or(json!({})));
            out.insert("aliases".into(), body.get("aliases").cloned().unwrap_or(json!({})));
        }
        Kind::Composable | Kind::Component => {
            for (k, v) in m {
                match (k.as_str(), kind) {
                    ("index_patterns", Kind::Composable) => {
                        out.insert(k.clone(), json!(patterns(v)?));
                    }
                    ("composed_of", Kind::Composable) => {
                        out.insert(k.clone(), json!(patterns(v)?));
                    }
                    ("priority", Kind::Composable) => {
                        let p = v
                            .as_i64()
                            .filter(|p| *p >= 0)
                            .ok_or_else(|| OsError::validation(&["index template priority must be >= 0".into()]))?;
                        out.insert(k.clone(), json!(p));
                    }
                    ("data_stream", Kind::Composable) | ("version", _) | ("_meta", _) => {
                        out.insert(k.clone(), v.clone());
                    }
                    ("template", _) => {
                        out.insert("template".into(), Value::Object(normalise_template_body(v, "template")?));
                    }
                    (other, _) => {
                        return Err(OsError::illegal(format!(
                            "[{}] unknown field [{other}]",
                            if kind == Kind::Component { "component_template" } else { "index_template" }
                        )))
                    }
                }
            }
            if kind == Kind::Composable && out.get("index_patterns").and_then(Value::as_array).is_none_or(Vec::is_empty)
            {
                return Err(OsError::validation(&["index patterns are missing".into()]));
            }
            if kind == Kind::Component && !out.contains_key("template") {
                return Err(OsError::validation(&["template is missing".into()]));
            }
        }
    }
    let _ = name;
    Ok(Value::Object(out))
}

fn str_list(v: &Value) -> Vec<String> {
    v.as_array().map(|a| a.iter().filter_map(|x| x.as_str().map(str::to_string)).collect()).unwrap_or_default()
}

/// Whether two sets of patterns can match a common index name (OpenSearch's `Automaton`
/// intersection, approximated by matching each pattern against the other taken literally).
fn overlaps(a: &[String], b: &[String]) -> bool {
    a.iter().any(|x| b.iter().any(|y| glob(x, y) || glob(y, x) || x == y))
}

/// `PUT _template/{name}`, `_index_template/{name}`, `_component_template/{name}`.
pub fn put(
    cs: &ClusterService,
    kind: Kind,
    name: &str,
    body: &Value,
    create: bool,
    order: Option<i64>,
) -> OsResult<Value> {
    if name.is_empty() || name.contains(' ') || name.contains(',') || name.contains('*') {
        return Err(OsError::validation(&[format!("name must not contain a space, ',' or '*' [{name}]")]));
    }
    let t = normalise(kind, name, body, order)?;
    cs.update(|md| {
        if create && store(md, kind).contains_key(name) {
            let what = match kind {
                Kind::Legacy => "index_template",
                Kind::Composable => "index template",
                Kind::Component => "component template",
            };
            return Err(OsError::illegal(format!("{what} [{name}] already exists")));
        }
        if kind == Kind::Composable {
            check_composable(md, name, &t)?;
        }
        store(md, kind).insert(name.to_string(), t.clone());
        Ok((true, ()))
    })?;
    Ok(json!({"acknowledged": true}))
}

fn check_composable(md: &Metadata, name: &str, t: &Value) -> OsResult<()> {
    let missing: Vec<String> =
        str_list(&t["composed_of"]).into_iter().filter(|c| !md.component_templates.contains_key(c)).collect();
    if !missing.is_empty() {
        return Err(OsError::new(ErrorKind::InvalidIndexTemplate, format!("index_template [{name}] invalid, cause [index template [{name}] specifies component templates {} that do not exist]", fmt_list(&missing))));
    }
    let pats = str_list(&t["index_patterns"]);
    let prio = t["priority"].as_i64().unwrap_or(0);
    let conflicts: Vec<(&String, Vec<String>)> = md
        .index_templates
        .iter()
        .filter(|(n, o)| {
            n.as_str() != name
                && o["priority"].as_i64().unwrap_or(0) == prio
                && overlaps(&pats, &str_list(&o["index_patterns"]))
        })
        .map(|(n, o)| (n, str_list(&o["index_patterns"])))
        .collect();
    if !conflicts.is_empty() {
        let names: Vec<String> = conflicts.iter().map(|(n, _)| (*n).clone()).collect();
        let details: Vec<String> = conflicts.iter().map(|(n, p)| format!("{n} => {}", fmt_list(p))).collect();
        return Err(OsError::illegal(format!(
            "index template [{name}] has index patterns {} matching patterns from existing templates {} with patterns ({}) that have the same priority [{prio}], multiple index templates may not match during index creation, please use a different priority",
            fmt_list(&pats),
            fmt_list(&names),
            details.join(",")
        )));
    }
    // Validate the composed result (settings and mappings merge).
    let mut merged = Map::new();
    for c in str_list(&t["composed_of"]) {
        if let Some(ct) = md.component_templates.get(&c) {
            let mut v = Value::Object(merged);
            merge_json(&mut v, &ct["template"]);
            merged = v.as_object().cloned().unwrap_or_default();
        }
    }
    let mut v = Value::Object(merged);
    merge_json(&mut v, &t["template"]);
    if let Some(m) = v.get("mappings") {
        Mapping::from_json(m).map_err(OsError::from)?;
    }
    Ok(())
}

fn fmt_list(v: &[String]) -> String {
    format!("[{}]", v.join(", "))
}

fn names_matching<'a>(all: &'a std::collections::BTreeMap<String, Value>, expr: Option<&str>) -> Vec<&'a String> {
    match expr {
        None | Some("") | Some("_all") | Some("*") => all.keys().collect(),
        Some(e) => {
            let pats: Vec<&str> = e.split(',').map(str::trim).collect();
            all.keys().filter(|k| pats.iter().any(|p| glob(p, k))).collect()
        }
    }
}

fn with_flat_settings(mut t: Value, flat: bool, path: &[&str]) -> Value {
    if flat {
        let mut cur = &mut t;
        for p in path {
            cur = &mut cur[*p];
        }
        if cur.is_object() {
            *cur = flat_json(&flatten_index_settings(cur).unwrap_or_default());
        }
    }
    t
}

/// `GET _template[/{name}]`: `(status, body)` (404 with `{}` when a named template is missing).
pub fn get_legacy(md: &Metadata, expr: Option<&str>, flat: bool) -> (u16, Value) {
    let names = names_matching(&md.templates, expr);
    let mut out = Map::new();
    for n in &names {
        let t = &md.templates[*n];
        let mut v = Map::new();
        v.insert("order".into(), t["order"].clone());
        if !t["version"].is_null() {
            v.insert("version".into(), t["version"].clone());
        }
        for k in ["index_patterns", "settings", "mappings", "aliases"] {
            v.insert(k.into(), t.get(k).cloned().unwrap_or(json!({})));
        }
        out.insert((*n).clone(), with_flat_settings(Value::Object(v), flat, &["settings"]));
    }
    let status =
        if out.is_empty() && expr.is_some_and(|e| !e.is_empty() && e != "_all" && e != "*") { 404 } else { 200 };
    (status, Value::Object(out))
}

/// `GET _index_template[/{name}]` or `_component_template[/{name}]`.
pub fn get(md: &Metadata, kind: Kind, expr: Option<&str>, flat: bool) -> OsResult<Value> {
    let (all, list_key, item_key, what) = match kind {
        Kind::Composable => (&md.index_templates, "index_templates", "index_template", "index template"),
        _ => (&md.component_templates, "component_templates", "component_template", "component template"),
    };
    let names = names_matching(all, expr);
    if names.is_empty() {
        if let Some(e) = expr.filter(|e| !e.contains('*') && !e.is_empty()) {
            return Err(OsError::new(ErrorKind::ResourceNotFound, format!("{what} matching [{e}] not found")));
        }
    }
    let items: Vec<Value> = names
        .iter()
        .map(|n| json!({"name": n, item_key: with_flat_settings(all[*n].clone(), flat, &["template", "settings"])}))
        .collect();
    Ok(json!({ list_key: items }))
}

/// `DELETE` of a template (names, wildcards).
pub fn delete(cs: &ClusterService, kind: Kind, expr: &str) -> OsResult<Value> {
    cs.update(|md| {
        let names: Vec<String> = names_matching(store(md, kind), Some(expr)).into_iter().cloned().collect();
        if names.is_empty() {
            return Err(match kind {
                Kind::Legacy | Kind::Composable => {
                    OsError::new(ErrorKind::IndexTemplateMissing, format!("index_template [{expr}] missing"))
                }
                Kind::Component => OsError::new(ErrorKind::ResourceNotFound, expr.to_string()),
            });
        }
        if kind == Kind::Component {
            for n in &names {
                let users: Vec<String> = md
                    .index_templates
                    .iter()
                    .filter(|(_, t)| str_list(&t["composed_of"]).contains(n))
                    .map(|(k, _)| k.clone())
                    .collect();
                if !users.is_empty() {
                    return Err(OsError::illegal(format!(
                        "component templates [{n}] cannot be removed as they are still in use by index templates {}",
                        fmt_list(&users)
                    )));
                }
            }
        }
        for n in &names {
            store(md, kind).remove(n);
        }
        Ok((true, ()))
    })?;
    Ok(json!({"acknowledged": true}))
}

/// `HEAD`: whether every named template exists.
pub fn exists(md: &Metadata, kind: Kind, expr: &str) -> bool {
    let all = match kind {
        Kind::Legacy => &md.templates,
        Kind::Composable => &md.index_templates,
        Kind::Component => &md.component_templates,
    };
    expr.split(',').all(|p| all.keys().any(|k| glob(p.trim(), k)))
}

/// `POST _index_template/_simulate_index/{index}`: the settings, mappings and aliases an index of
/// that name would get, and the other templates whose patterns overlap the winning template's
/// (legacy ones first), as `TransportSimulateIndexTemplateAction` answers. A `body` is a
/// composable template considered as if it existed (validated as a put would be).
pub fn simulate_index(md: &Metadata, index: &str, body: Option<&Value>) -> OsResult<Value> {
    let mut with_template;
    let md = match body {
        Some(b) => {
            let name = format!("simulate_index_template_{}", crate::action::documents::generate_id().to_lowercase());
            let t = normalise(Kind::Composable, &name, b, None)?;
            with_template = md.clone();
            check_composable(&with_template, &name, &t)?;
            with_template.index_templates.insert(name, t);
            &with_template
        }
        None => md,
    };
    let r = templates::apply(md, CreateIndex { name: index.to_string(), ..Default::default() })?;
    let winner = templates::find_composable(md, index).map(|(n, t)| (n.clone(), str_list(&t["index_patterns"])));
    let overlapping: Vec<Value> = match &winner {
        Some((w, pats)) => {
            let v1 = md.templates.iter().filter(|(_, t)| overlaps(pats, &str_list(&t["index_patterns"])));
            let v2 =
                md.index_templates.iter().filter(|(n, t)| *n != w && overlaps(pats, &str_list(&t["index_patterns"])));
            v1.chain(v2).map(|(n, t)| json!({"name": n, "index_patterns": t["index_patterns"]})).collect()
        }
        None => md
            .index_templates
            .iter()
            .filter(|(_, t)| str_list(&t["index_patterns"]).iter().any(|p| glob(p, index)))
            .map(|(n, t)| json!({"name": n, "index_patterns": t["index_patterns"]}))
            .collect(),
    };
    let aliases: Map<String, Value> = r.aliases.iter().map(|(n, a)| (n.clone(), a.to_json())).collect();
    Ok(json!({
        "template": {
            "settings": nest(&r.settings),
            "mappings": r.mappings.unwrap_or(json!({})),
            "aliases": aliases,
        },
        "overlapping": overlapping,
    }))
}

/// One row of `_cat/templates`.
#[derive(Debug, Clone)]
pub struct CatRow {
    pub name: String,
    pub patterns: Vec<String>,
    pub order: Option<i64>,
    pub version: Option<i64>,
    /// `None` for legacy templates.
    pub composed_of: Option<Vec<String>>,
}

/// `_cat/templates[/{name}]`: legacy templates, then composable ones.
pub fn cat_rows(md: &Metadata, name: Option<&str>) -> Vec<CatRow> {
    let keep = |n: &str| name.is_none_or(|p| glob(p, n));
    let mut out = Vec::new();
    for (n, t) in md.templates.iter().filter(|(n, _)| keep(n)) {
        out.push(CatRow {
            name: n.clone(),
            patterns: str_list(&t["index_patterns"]),
            order: Some(t["order"].as_i64().unwrap_or(0)),
            version: t["version"].as_i64(),
            composed_of: None,
        });
    }
    for (n, t) in md.index_templates.iter().filter(|(n, _)| keep(n)) {
        out.push(CatRow {
            name: n.clone(),
            patterns: str_list(&t["index_patterns"]),
            order: Some(t["priority"].as_i64().unwrap_or(0)),
            version: t["version"].as_i64(),
            composed_of: Some(str_list(&t["composed_of"])),
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn legacy_body_is_normalised() {
        let t = normalise(Kind::Legacy, "t", &json!({"index_patterns": "te*", "settings": {"number_of_shards": 1}, "mappings": {"_doc": {"properties": {"f": {"type": "keyword"}}}}, "aliases": {"a": {"routing": "1"}}}), None).unwrap();
        assert_eq!(t["index_patterns"], json!(["te*"]));
        assert_eq!(t["order"], json!(0));
        assert_eq!(t["settings"], json!({"index": {"number_of_shards": "1"}}));
        assert_eq!(t["mappings"]["properties"]["f"]["type"], "keyword");
        assert_eq!(t["aliases"]["a"], json!({"index_routing": "1", "search_routing": "1"}));
        assert!(normalise(Kind::Legacy, "t", &json!({"settings": {}}), None)
            .unwrap_err()
            .reason
            .contains("index patterns are missing"));
    }

    #[test]
    fn same_priority_overlap_is_refused() {
        let mut md = Metadata::default();
        md.index_templates.insert("a".into(), json!({"index_patterns": ["foo*"], "priority": 0}));
        let t = normalise(Kind::Composable, "b", &json!({"index_patterns": ["foo-bar*"]}), None).unwrap();
        let e = check_composable(&md, "b", &t).unwrap_err();
        assert!(e.reason.starts_with("index template [b] has index patterns [foo-bar*] matching patterns from existing templates [a] with patterns (a => [foo*]) that have the same priority [0]"), "{}", e.reason);
        let t =
            normalise(Kind::Composable, "b", &json!({"index_patterns": ["foo-bar*"], "priority": 1}), None).unwrap();
        assert!(check_composable(&md, "b", &t).is_ok());
    }

    #[test]
    fn simulate_lists_overlapping_legacy_then_composable_and_uses_the_body() {
        let mut md = Metadata::default();
        md.templates.insert(
            "v1".into(),
            json!({"index_patterns": ["t*", "t1*"], "order": 0, "settings": {"index": {"number_of_shards": "5"}}}),
        );
        md.index_templates.insert("v2".into(), json!({"index_patterns": ["te*"], "priority": 10}));
        md.index_templates.insert("win".into(), json!({"index_patterns": ["te*"], "priority": 20, "template": {"settings": {"index": {"number_of_shards": "1"}}}}));
        md.index_templates.insert("other".into(), json!({"index_patterns": ["x*"], "priority": 1}));
        let v = simulate_index(&md, "test", None).unwrap();
        assert_eq!(
            v["overlapping"],
            json!([{"name": "v1", "index_patterns": ["t*", "t1*"]}, {"name": "v2", "index_patterns": ["te*"]}])
        );
        assert_eq!(v["template"]["settings"]["index"]["number_of_shards"], "1");
        // A body template with a higher priority wins, and the stored ones become overlapping.
        let body =
            json!({"index_patterns": "te*", "priority": 30, "template": {"settings": {"index.blocks.write": true}}});
        let v = simulate_index(&md, "test", Some(&body)).unwrap();
        assert_eq!(v["template"]["settings"]["index"]["blocks"]["write"], "true");
        let names: Vec<&str> =
            v["overlapping"].as_array().unwrap().iter().map(|o| o["name"].as_str().unwrap()).collect();
        assert_eq!(names, ["v1", "v2", "win"]);
        assert_eq!(md.index_templates.len(), 3, "the simulation stores nothing");
    }

    #[test]
    fn cat_rows_list_both_kinds() {
        let mut md = Metadata::default();
        md.templates.insert("l".into(), json!({"index_patterns": ["t*"], "order": 2, "version": 1}));
        md.index_templates.insert("c".into(), json!({"index_patterns": ["v*"], "priority": 4, "composed_of": ["x"]}));
        let r = cat_rows(&md, None);
        assert_eq!(r.len(), 2);
        assert_eq!(r[0].order, Some(2));
        assert_eq!(r[1].composed_of.as_deref(), Some(&["x".to_string()][..]));
        assert_eq!(cat_rows(&md, Some("l*")).len(), 1);
    }
}
