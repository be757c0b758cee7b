//! The fields API over nested objects, as OpenSearch's `FieldFetcher` groups them: a requested
//! field inside a `nested` object is reported under the nested path, one map per nested object
//! (in `_source` order, objects without any requested value left out), each map holding the
//! object's own fields by their name relative to it and, recursively, deeper nested objects:
//! `"fields": {"user": [{"first": ["John"]}, {"first": ["Alice"], "addr": [{"city": ["X"]}]}]}`.
//!
//! Each nested object's values are parsed through the mapping from its slice of `_source` (so
//! they print as the fields API prints any value: dates formatted, numbers coerced).

use serde_json::{Map, Value};

use super::fetch::values_at;
use crate::engine::query::nested_source::wrap;
use crate::engine::schema::{FieldType, Mapping};

/// A requested field: its full name, type and `format`.
pub type Requested<'a> = (String, &'a FieldType, Option<String>);

/// The outermost nested object strictly below `below` (`""`: the root) that holds `name`.
pub fn outer_nested(mapping: &Mapping, name: &str, below: &str) -> Option<String> {
    let mut prefix = String::new();
    for part in name.split('.') {
        if !prefix.is_empty() {
            prefix.push('.');
        }
        prefix.push_str(part);
        if prefix.len() >= name.len() {
            return None;
        }
        let deeper = below.is_empty() || (prefix.len() > below.len() && prefix.starts_with(below));
        if deeper && mapping.object(&prefix).is_some_and(|o| o.nested) {
            return Some(prefix);
        }
    }
    None
}

/// The groups of the requested fields that live in nested objects under `below` (the root:
/// `""`), keyed by each outermost nested path (relative to `below`), read from `obj` (the
/// object at `below`).
pub fn groups(
    mapping: &Mapping,
    below: &str,
    obj: &Value,
    fields: &[Requested<'_>],
    display: &dyn Fn(&crate::engine::schema::FieldValue, &FieldType, Option<&str>) -> Option<Value>,
) -> Map<String, Value> {
    let mut by_path: Vec<(String, Vec<&Requested<'_>>)> = Vec::new();
    for f in fields {
        if let Some(p) = outer_nested(mapping, &f.0, below) {
            match by_path.iter_mut().find(|(q, _)| *q == p) {
                Some((_, v)) => v.push(f),
                None => by_path.push((p, vec![f])),
            }
        }
    }
    let mut out = Map::new();
    for (path, reqs) in by_path {
        let rel = if below.is_empty() { path.as_str() } else { &path[below.len() + 1..] };
        let mut objs = Vec::new();
        values_at(obj, rel, &mut objs);
        let mut maps = Vec::new();
        for o in objs.into_iter().filter(Value::is_object) {
            let m = object_fields(mapping, &path, &o, &reqs, display);
            if !m.is_empty() {
                maps.push(Value::Object(m));
            }
        }
        if !maps.is_empty() {
            out.insert(rel.to_string(), Value::Array(maps));
        }
    }
    out
}

/// The requested values of one nested object at `path`: its own fields, then deeper groups.
fn object_fields(
    mapping: &Mapping,
    path: &str,
    obj: &Value,
    reqs: &[&Requested<'_>],
    display: &dyn Fn(&crate::engine::schema::FieldValue, &FieldType, Option<&str>) -> Option<Value>,
) -> Map<String, Value> {
    let own: Vec<&&Requested<'_>> = reqs.iter().filter(|r| outer_nested(mapping, &r.0, path).is_none()).collect();
    let mut out = Map::new();
    if !own.is_empty() {
        let doc = serde_json::to_vec(&wrap(path, obj.clone())).unwrap_or_default();
        let parsed = mapping.parse("_nested", &doc).ok();
        let values = parsed.as_ref().and_then(|p| p.nested.iter().find(|n| n.path == path));
        for (name, ft, format) in own.iter().map(|r| (&r.0, r.1, r.2.as_deref())) {
            let mut vals = Vec::new();
            match values {
                Some(n) => {
                    for f in n.fields.iter().filter(|f| f.name == *name) {
                        vals.extend(display(&f.value, ft, format));
                    }
                }
                None => values_at(obj, &name[path.len() + 1..], &mut vals),
            }
            if !vals.is_empty() {
                out.insert(name[path.len() + 1..].to_string(), Value::Array(vals));
            }
        }
    }
    let deeper: Vec<Requested<'_>> = reqs.iter().map(|r| (*r).clone()).collect();
    out.extend(groups(mapping, path, obj, &deeper, display));
    out
}
