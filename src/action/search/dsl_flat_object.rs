//! Queries on `flat_object` fields, as OpenSearch's `FlatObjectFieldType` rewrites them (see
//! `engine::schema::flat_object` for what is indexed): a query on the field itself `f` runs on
//! `f._value`; a query on a key path `f.a.b` runs on `f._valueAndPath` with its values
//! prefixed by `f.a.b=`; `exists` on `f.x` looks for `f.x` among `f`'s terms (`f.` and each key
//! name, at any depth, as OpenSearch indexes them).
//!
//! `similarity: boolean` makes term queries score their boost (other similarities: BM25).
//!
//! Difference: a `range` on a key path with an open end stays within that path's values
//! (OpenSearch prefixes the missing bound as the string `null`).

use serde_json::{json, Map, Value};

use super::dsl::{body, single_field, QueryContext};
use super::dsl_term;
use crate::engine::query::Query;
use crate::engine::schema::flat_object::{VALUE_AND_PATH_SUFFIX, VALUE_SUFFIX};
use crate::engine::schema::FieldKind;
use crate::error::OsResult;

/// Where a query field lands under a flat_object: its root, and whether it names a key path
/// below the root (`None`: not under a flat_object, or one of its sub-fields by name).
pub fn split<'f>(ctx: &QueryContext<'_>, field: &'f str) -> Option<(&'f str, bool)> {
    for i in field.match_indices('.').map(|(i, _)| i).chain(std::iter::once(field.len())) {
        let root = &field[..i];
        if matches!(ctx.mapping.field_type(root).map(|f| &f.kind), Some(FieldKind::FlatObject(_))) {
            let rest = field.get(i + 1..).unwrap_or("");
            if rest == VALUE_SUFFIX || rest == VALUE_AND_PATH_SUFFIX {
                return None;
            }
            return Some((root, i < field.len()));
        }
    }
    None
}

/// A term-level query (`term`, `terms`, `prefix`, `wildcard`, `regexp`, `fuzzy`, `range`) on a
/// flat_object field or key path, rewritten onto its sub-fields; `None` for other fields.
pub fn rewrite(name: &str, v: &Value, ctx: &QueryContext<'_>) -> Option<OsResult<Query>> {
    let m = body(name, v).ok()?;
    let (field, spec, _) = single_field(name, m).ok()?;
    let field = ctx.mapping.resolve_alias(field);
    let (root, dotted) = split(ctx, field)?;
    let target = format!("{root}.{}", if dotted { VALUE_AND_PATH_SUFFIX } else { VALUE_SUFFIX });
    let path = if dotted { format!("{field}=") } else { String::new() };
    let text = |v: &Value| match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    // The path as a literal in the query's own syntax.
    let literal: String = match name {
        "wildcard" => path.chars().flat_map(|c| if "*?\\".contains(c) { vec!['\\', c] } else { vec![c] }).collect(),
        "regexp" => regex::escape(&path),
        _ => path.clone(),
    };
    let prefixed = |v: &Value| Value::String(format!("{literal}{}", text(v)));
    let new_spec = match (name, spec) {
        ("terms", Value::Array(a)) => Value::Array(a.iter().map(prefixed).collect()),
        ("range", Value::Object(o)) => {
            let mut o: Map<String, Value> = o.clone();
            for k in ["gte", "gt", "lte", "lt", "from", "to"] {
                if let Some(x) = o.get(k).filter(|x| !x.is_null()).cloned() {
                    o.insert(k.into(), prefixed(&x));
                }
            }
            if dotted {
                let has =
                    |o: &Map<String, Value>, ks: &[&str]| ks.iter().any(|k| o.get(*k).is_some_and(|x| !x.is_null()));
                let (has_lo, has_hi) = (has(&o, &["gte", "gt", "from"]), has(&o, &["lte", "lt", "to"]));
                if !has_lo {
                    o.remove("from");
                    o.insert("gte".into(), json!(path));
                }
                if !has_hi {
                    // '>' follows '=': below every `path=...` value's successor.
                    o.remove("to");
                    o.insert("lt".into(), json!(format!("{}>", &path[..path.len() - 1])));
                }
            }
            Value::Object(o)
        }
        (_, Value::Object(o)) => {
            let mut o = o.clone();
            for k in ["value", "wildcard", "term"] {
                if let Some(x) = o.get(k).cloned() {
                    o.insert(k.into(), prefixed(&x));
                }
            }
            Value::Object(o)
        }
        (_, scalar) => prefixed(scalar),
    };
    let mut outer: Map<String, Value> = m
        .iter()
        .filter(|(k, _)| k.as_str() == "boost" || k.as_str() == "_name")
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    outer.insert(target, new_spec);
    let q = dsl_term::parse(name, &Value::Object(outer), ctx);
    // `similarity: boolean`: a matching term scores its boost.
    let boolean =
        ctx.mapping.field_type(root).and_then(|f| f.extra.get("similarity")).and_then(Value::as_str) == Some("boolean");
    Some(q.map(|q| match q {
        Query::Term { field, term, boost } if boolean => {
            Query::ConstantScore { query: Box::new(Query::Term { field, term, boost: 1.0 }), boost }
        }
        other => other,
    }))
}

/// `exists` on a flat_object field (`None` for other fields).
pub fn exists(ctx: &QueryContext<'_>, field: &str, boost: f32) -> Option<Query> {
    let (root, dotted) = split(ctx, field)?;
    if !dotted {
        return Some(Query::Exists { field: root.into(), boost });
    }
    Some(Query::ConstantScore { query: Box::new(Query::term(root, field)), boost })
}

#[cfg(test)]
#[path = "dsl_flat_object_tests.rs"]
mod tests;
