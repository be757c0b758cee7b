//! `_field_caps` and `GET _mapping/field/{fields}`: what each index's mapping says about fields.
//!
//! Field caps merge per field and type across indices: `searchable`/`aggregatable` are true when
//! true in every index with that type; `indices` is listed when the field has more than one type;
//! `non_searchable_indices` / `non_aggregatable_indices` when the indices disagree; `meta` is the
//! union of each key's values. `index_filter` is decided the way OpenSearch's can-match phase
//! decides cheaply: `match_all` keeps an index, `match_none` drops it, a query on a field the index
//! does not map drops it, anything else keeps it.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{json, Map, Value};

use crate::cluster::resolve::{glob, resolve, IndicesOptions};
use crate::cluster::ClusterService;
use crate::engine::schema::{FieldKind, FieldType, Mapper, Mapping, ObjectMapping};
use crate::error::{OsError, OsResult};

/// One field of one index as field caps sees it.
#[derive(Debug, Clone, PartialEq)]
pub struct FieldCap {
    pub type_name: String,
    pub searchable: bool,
    pub aggregatable: bool,
    pub meta: BTreeMap<String, String>,
}

/// Metadata fields every index has: name, searchable, aggregatable.
const METADATA: &[(&str, bool, bool)] = &[
    ("_id", true, true),
    ("_index", true, true),
    ("_routing", true, false),
    ("_seq_no", true, true),
    ("_source", false, false),
    ("_version", false, false),
    ("_field_names", true, false),
    ("_ignored", true, false),
    ("_doc_count", false, false),
];

fn leaf_cap(f: &FieldType) -> FieldCap {
    let aggregatable = match &f.kind {
        FieldKind::Text(_) => f.extra.get("fielddata").and_then(Value::as_bool).unwrap_or(false),
        _ => f.effective_doc_values(),
    };
    let meta = f
        .extra
        .get("meta")
        .and_then(Value::as_object)
        .map(|m| m.iter().map(|(k, v)| (k.clone(), v.as_str().map_or_else(|| v.to_string(), str::to_string))).collect())
        .unwrap_or_default();
    FieldCap { type_name: f.type_name().to_string(), searchable: f.effective_index(), aggregatable, meta }
}

/// Every field of a mapping (objects, leaves, multi-fields, metadata fields) by full path.
pub fn index_fields(m: &Mapping) -> BTreeMap<String, FieldCap> {
    fn walk(m: &Mapping, prefix: &str, o: &ObjectMapping, out: &mut BTreeMap<String, FieldCap>) {
        for (k, mapper) in &o.properties {
            let path = if prefix.is_empty() { k.clone() } else { format!("{prefix}.{k}") };
            match mapper {
                Mapper::Object(inner) => {
                    out.insert(
                        path.clone(),
                        FieldCap {
                            type_name: inner.type_name().into(),
                            searchable: false,
                            aggregatable: false,
                            meta: BTreeMap::new(),
                        },
                    );
                    walk(m, &path, inner, out);
                }
                Mapper::Field(f) => {
                    // An alias reports its target's capabilities.
                    let f = match &f.kind {
                        FieldKind::Alias { path: target } => m.field_type(target).unwrap_or(f),
                        _ => f,
                    };
                    out.insert(path.clone(), leaf_cap(f));
                    for (s, sf) in &f.fields {
                        out.insert(format!("{path}.{s}"), leaf_cap(sf));
                    }
                }
            }
        }
    }
    let mut out = BTreeMap::new();
    for (name, s, a) in METADATA {
        out.insert(
            (*name).to_string(),
            FieldCap { type_name: (*name).to_string(), searchable: *s, aggregatable: *a, meta: BTreeMap::new() },
        );
    }
    walk(m, "", &m.root, &mut out);
    out
}

/// The fields a query names (for the can-match decision), or `None` when the query matches
/// nothing (`match_none`). Unknown query types are `parsing_exception`s as in search.
fn query_fields(q: &Value) -> OsResult<Option<Vec<String>>> {
    let Some((kind, body)) = q.as_object().filter(|m| m.len() == 1).and_then(|m| m.iter().next()) else {
        return Err(OsError::parsing("[_na] query malformed, must start with start_object"));
    };
    Ok(Some(match kind.as_str() {
        "match_all" => Vec::new(),
        "match_none" => return Ok(None),
        "term"
        | "terms"
        | "range"
        | "match"
        | "match_phrase"
        | "prefix"
        | "wildcard"
        | "regexp"
        | "fuzzy"
        | "match_phrase_prefix" => body
            .as_object()
            .map(|m| m.keys().filter(|k| !matches!(k.as_str(), "boost" | "_name")).cloned().collect())
            .unwrap_or_default(),
        "exists" => body.get("field").and_then(Value::as_str).map(|f| vec![f.to_string()]).unwrap_or_default(),
        "bool" => {
            // Only `must`/`filter` clauses restrict the indices; anything else keeps the index.
            let mut out = Vec::new();
            for clause in ["must", "filter"] {
                let items = match &body[clause] {
                    Value::Array(a) => a.clone(),
                    Value::Null => Vec::new(),
                    v => vec![v.clone()],
                };
                for i in items {
                    match query_fields(&i)? {
                        None => return Ok(None),
                        Some(f) => out.extend(f),
                    }
                }
            }
            out
        }
        other => return Err(crate::action::search::dsl::unknown_query(other).with("line", 1).with("col", 1)),
    }))
}

fn can_match(m: &Mapping, index: &str, filter: &Value) -> OsResult<bool> {
    let Some(fields) = query_fields(filter)? else { return Ok(false) };
    for f in fields {
        if f == "_index" {
            if let Some(v) = filter.pointer("/term/_index").map(|v| v.get("value").unwrap_or(v)).and_then(Value::as_str)
            {
                if !glob(v, index) {
                    return Ok(false);
                }
            }
            continue;
        }
        if !f.starts_with('_') && m.field_type(&f).is_none() {
            return Ok(false);
        }
    }
    Ok(true)
}

/// A field caps request.
#[derive(Debug, Clone, Default)]
pub struct FieldCapsRequest {
    pub fields: Vec<String>,
    pub include_unmapped: bool,
    pub index_filter: Option<Value>,
}

#[derive(Default)]
struct Merged {
    indices: Vec<String>,
    non_searchable: Vec<String>,
    non_aggregatable: Vec<String>,
    meta: BTreeMap<String, BTreeSet<String>>,
}

/// `_field_caps`.
pub fn field_caps(cs: &ClusterService, expr: &str, opts: IndicesOptions, req: &FieldCapsRequest) -> OsResult<Value> {
    if req.fields.is_empty() {
        return Err(OsError::validation(&["specified fields can't be null or empty".into()]));
    }
    let md = cs.metadata();
    let names = resolve(&md, expr, opts)?;
    let mut per_index: Vec<(String, BTreeMap<String, FieldCap>)> = Vec::new();
    for n in names {
        let Some(m) = md.indices.get(&n) else { continue };
        if let Some(f) = &req.index_filter {
            if !can_match(&m.mapping, &n, f)? {
                continue;
            }
        }
        let all = index_fields(&m.mapping);
        let wanted: BTreeMap<String, FieldCap> =
            all.into_iter().filter(|(k, _)| req.fields.iter().any(|p| glob(p, k))).collect();
        per_index.push((n, wanted));
    }
    // field -> type -> merged
    let mut merged: BTreeMap<String, BTreeMap<String, (bool, bool, Merged)>> = BTreeMap::new();
    for (index, fields) in &per_index {
        for (name, cap) in fields {
            let e = merged
                .entry(name.clone())
                .or_default()
                .entry(cap.type_name.clone())
                .or_insert_with(|| (true, true, Merged::default()));
            e.0 &= cap.searchable;
            e.1 &= cap.aggregatable;
            e.2.indices.push(index.clone());
            if !cap.searchable {
                e.2.non_searchable.push(index.clone());
            }
            if !cap.aggregatable {
                e.2.non_aggregatable.push(index.clone());
            }
            for (k, v) in &cap.meta {
                e.2.meta.entry(k.clone()).or_default().insert(v.clone());
            }
        }
    }
    if req.include_unmapped {
        for (field, types) in merged.iter_mut() {
            let mapped: BTreeSet<&String> = types.values().flat_map(|t| t.2.indices.iter()).collect();
            let unmapped: Vec<String> =
                per_index.iter().map(|(i, _)| i).filter(|i| !mapped.contains(i)).cloned().collect();
            if !unmapped.is_empty() && !field.starts_with('_') {
                types.insert(
                    "unmapped".into(),
                    (
                        false,
                        false,
                        Merged {
                            non_searchable: unmapped.clone(),
                            non_aggregatable: unmapped.clone(),
                            indices: unmapped,
                            meta: BTreeMap::new(),
                        },
                    ),
                );
            }
        }
    }
    let mut fields = Map::new();
    for (field, types) in merged {
        let multi = types.len() > 1;
        let mut tm = Map::new();
        for (t, (s, a, m)) in types {
            let mut o = Map::new();
            o.insert("type".into(), json!(t));
            o.insert("searchable".into(), json!(s));
            o.insert("aggregatable".into(), json!(a));
            if multi {
                o.insert("indices".into(), json!(m.indices));
            }
            if !s && m.non_searchable.len() != m.indices.len() {
                o.insert("non_searchable_indices".into(), json!(m.non_searchable));
            }
            if !a && m.non_aggregatable.len() != m.indices.len() {
                o.insert("non_aggregatable_indices".into(), json!(m.non_aggregatable));
            }
            if !m.meta.is_empty() {
                o.insert("meta".into(), json!(m.meta));
            }
            tm.insert(t, Value::Object(o));
        }
        fields.insert(field, Value::Object(tm));
    }
    let indices: Vec<&String> = per_index.iter().map(|(i, _)| i).collect();
    Ok(json!({"indices": indices, "fields": fields}))
}

/// `GET [/{index}]/_mapping/field/{fields}`: `{index: {"mappings": {full_name: {"full_name",
/// "mapping": {leaf_name: definition}}}}}`.
pub fn field_mapping(
    cs: &ClusterService,
    expr: &str,
    opts: IndicesOptions,
    fields: &[String],
    include_defaults: bool,
) -> OsResult<Value> {
    let md = cs.metadata();
    let names = resolve(&md, expr, opts)?;
    let mut out = Map::new();
    for n in names {
        let Some(m) = md.indices.get(&n) else { continue };
        let mut found = Map::new();
        for (path, f) in m.mapping.leaf_fields() {
            if !fields.iter().any(|p| glob(p, &path)) {
                continue;
            }
            let leaf = path.rsplit('.').next().unwrap_or(&path).to_string();
            let mapping = if include_defaults { super::field_defaults::with_defaults(f) } else { f.to_json() };
            found.insert(path.clone(), json!({"full_name": path, "mapping": {leaf: mapping}}));
        }
        for p in fields {
            if let Some((name, ..)) = METADATA.iter().find(|(name, ..)| name == p) {
                found.insert((*name).to_string(), json!({"full_name": name, "mapping": {*name: {}}}));
            }
        }
        out.insert(n, json!({"mappings": found}));
    }
    Ok(Value::Object(out))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mapping(v: Value) -> Mapping {
        Mapping::from_json(&v).unwrap()
    }

    #[test]
    fn caps_of_a_mapping() {
        let m = mapping(
            json!({"properties": {"t": {"type": "text", "fields": {"k": {"type": "keyword"}}}, "o": {"properties": {"n": {"type": "long", "index": false, "meta": {"unit": "ms"}}}}}}),
        );
        let f = index_fields(&m);
        assert_eq!(
            f["t"],
            FieldCap { type_name: "text".into(), searchable: true, aggregatable: false, meta: BTreeMap::new() }
        );
        assert!(f["t.k"].aggregatable);
        assert_eq!(f["o"].type_name, "object");
        assert!(!f["o.n"].searchable);
        assert_eq!(f["o.n"].meta["unit"], "ms");
        assert!(f.contains_key("_id"));
    }

    #[test]
    fn index_filter_can_match() {
        let m = mapping(json!({"properties": {"a": {"type": "long"}}}));
        assert!(can_match(&m, "i", &json!({"match_all": {}})).unwrap());
        assert!(!can_match(&m, "i", &json!({"match_none": {}})).unwrap());
        assert!(can_match(&m, "i", &json!({"range": {"a": {"gte": 1}}})).unwrap());
        assert!(!can_match(&m, "i", &json!({"term": {"b": 1}})).unwrap());
        assert!(!can_match(&m, "i", &json!({"term": {"_index": "j"}})).unwrap());
        assert!(can_match(&m, "i", &json!({"bogus": {}})).is_err());
    }
}
