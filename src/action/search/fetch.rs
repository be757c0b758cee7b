//! The fetch phase: one hit's JSON (`_index`, `_id`, `_version`, `_seq_no`, `_primary_term`,
//! `_score`, `_routing`, `_source`, `fields`, `highlight`, `sort`, `_explanation`) in
//! OpenSearch's key order.

use serde_json::{json, Map, Value};

use super::body::{write_str, write_value, HitJson};
use super::context::ShardContext;
use super::field_values::{self, ParsedSource};
use super::highlight;
use super::request::SearchRequest;
use crate::engine::index::writer::{read_stored_fields, read_version};
use crate::engine::query::{ExplValue, Explanation, Query};
use crate::engine::segment::DocId;
use crate::error::OsResult;

/// A float as OpenSearch prints it: the shortest decimal that reads back as the same `f32`
/// (`0.2876821`, not the widened double `0.28768208622932434`).
pub fn f32_json(x: f32) -> Value {
    if !x.is_finite() {
        return Value::Null;
    }
    // zmij writes the shortest decimal that reads back as the same f32 (as Rust's `Display`
    // does, at a fraction of the cost), into its own stack buffer.
    let mut b = zmij::Buffer::new();
    let parsed = b.format_finite(x).parse::<f64>().ok();
    parsed.and_then(serde_json::Number::from_f64).map_or(Value::Null, Value::Number)
}

/// Renders an explanation as OpenSearch does.
pub fn explanation_json(e: &Explanation) -> Value {
    json!({
        "value": match e.value { ExplValue::Int(i) => json!(i), ExplValue::Float(f) => f32_json(f) },
        "description": e.description,
        "details": e.details.iter().map(explanation_json).collect::<Vec<_>>(),
    })
}

/// The values at a dotted path of a source document (arrays flattened).
pub fn values_at(src: &Value, path: &str, out: &mut Vec<Value>) {
    fn walk(v: &Value, parts: &[&str], out: &mut Vec<Value>, depth: usize) {
        if depth > 64 {
            return;
        }
        match (v, parts.split_first()) {
            (Value::Array(a), _) => {
                for x in a {
                    walk(x, parts, out, depth + 1);
                }
            }
            (Value::Null, None) => {}
            (_, None) => out.push(v.clone()),
            (Value::Object(m), Some((first, rest))) => {
                if let Some(x) = m.get(*first) {
                    walk(x, rest, out, depth + 1);
                }
                // Dotted keys in the source (`{"a.b": 1}`).
                for i in 1..=rest.len() {
                    let key = std::iter::once(*first).chain(rest[..i].iter().copied()).collect::<Vec<_>>().join(".");
                    if let Some(x) = m.get(&key) {
                        walk(x, &rest[i..], out, depth + 1);
                    }
                }
            }
            _ => {}
        }
    }
    let parts: Vec<&str> = path.split('.').collect();
    walk(src, &parts, out, 0);
}

/// Whether a hit needs its `_source` read: returned, or the source of `fields`, stored fields
/// or highlighting (`docvalue_fields` read doc values). Without it the fetch reads no compressed
/// stored data.
fn source_needed(req: &SearchRequest) -> bool {
    let returned = match &req.stored_fields {
        None => true,
        Some(sf) => req.source_set || sf.iter().any(|f| f == "_source"),
    } && !req.source.disabled;
    let stored = req.stored_fields.as_ref().is_some_and(|sf| sf.iter().any(|f| f != "_none_" && f != "_source"));
    returned || stored || !req.fields.is_empty() || req.highlight.is_some()
}

/// A hit names a segment its shard context does not have (never, for hits of that context).
fn no_segment(ctx: &ShardContext, leaf: usize) -> crate::error::OsError {
    crate::error::OsError::internal(format!("no segment {leaf} in shard [{}][{}]", ctx.index, ctx.shard))
}

/// Whether a hit is only metadata, score, sort values and the whole `_source` (or none), the
/// shape [`hit_json`] writes without a JSON tree.
fn plain(req: &SearchRequest) -> bool {
    !req.explain
        && req.stored_fields.is_none()
        && req.fields.is_empty()
        && req.docvalue_fields.is_empty()
        && req.highlight.is_none()
        && req.collapse.is_none()
        && (req.source.disabled || req.source.is_noop())
}

/// The hit's `_ignored` metadata field: the fields whose malformed values were dropped
/// (`ignore_malformed`), from the field's doc values; `None` when there are none.
fn ignored_fields(ctx: &ShardContext, leaf: usize, doc: DocId) -> OsResult<Option<Value>> {
    let segs = &ctx.reader.query().segments;
    let seg = segs.get(leaf).ok_or_else(|| no_segment(ctx, leaf))?;
    let mut ords = Vec::new();
    if !seg.sorted_set_ords("_ignored", doc, &mut ords) || ords.is_empty() {
        return Ok(None);
    }
    let mut names = Vec::with_capacity(ords.len());
    for o in ords {
        names.push(json!(String::from_utf8_lossy(&seg.sorted_set_term("_ignored", o)?)));
    }
    Ok(Some(Value::Array(names)))
}

/// One hit, as [`hit`] renders it; with `raw` and a [`plain`] request, written straight to
/// compact JSON with the stored `_source` bytes copied unchanged.
#[allow(clippy::too_many_arguments)]
pub fn hit_json(
    ctx: &ShardContext,
    leaf: usize,
    doc: DocId,
    score: Option<f32>,
    sort: Option<Vec<Value>>,
    explanation: Option<Explanation>,
    matched: Option<Value>,
    query: Option<&Query>,
    req: &SearchRequest,
    raw: bool,
) -> OsResult<HitJson> {
    if !raw || explanation.is_some() || matched.is_some() || !plain(req) {
        return hit(ctx, leaf, doc, score, sort, explanation, matched, query, req).map(HitJson::Value);
    }
    let leaves = ctx.reader.leaves();
    let l = leaves.get(leaf).ok_or_else(|| no_segment(ctx, leaf))?;
    let with_source = !req.source.disabled;
    let d = read_stored_fields(&l.reader, doc, with_source)?;
    let mut out = Vec::with_capacity(64 + ctx.index.len() + d.id.len() + d.source.len());
    out.extend_from_slice(b"{\"_index\":");
    write_str(&mut out, &ctx.index);
    out.extend_from_slice(b",\"_id\":");
    write_str(&mut out, &d.id);
    if req.version || req.seq_no_primary_term {
        let v = read_version(&l.reader, doc)?;
        if req.version {
            out.extend_from_slice(b",\"_version\":");
            write_value(&mut out, &Value::from(v.version));
        }
        if req.seq_no_primary_term {
            out.extend_from_slice(b",\"_seq_no\":");
            write_value(&mut out, &Value::from(v.seq_no));
            out.extend_from_slice(b",\"_primary_term\":");
            write_value(&mut out, &Value::from(v.primary_term));
        }
    }
    out.extend_from_slice(b",\"_score\":");
    write_value(&mut out, &score.map_or(Value::Null, f32_json));
    if let Some(r) = &d.routing {
        out.extend_from_slice(b",\"_routing\":");
        write_str(&mut out, r);
    }
    if let Some(ignored) = ignored_fields(ctx, leaf, doc)? {
        out.extend_from_slice(b",\"_ignored\":");
        write_value(&mut out, &ignored);
    }
    if with_source {
        out.extend_from_slice(b",\"_source\":");
        // What `hit` shows for a source that does not parse (or is absent): null.
        let valid = !d.source.is_empty() && serde_json::from_slice::<serde::de::IgnoredAny>(&d.source).is_ok();
        if valid {
            out.extend_from_slice(&d.source);
        } else {
            out.extend_from_slice(b"null");
        }
    }
    if let Some(s) = sort {
        out.extend_from_slice(b",\"sort\":");
        write_value(&mut out, &Value::Array(s));
    }
    out.push(b'}');
    Ok(HitJson::Raw(out))
}

/// One hit.
#[allow(clippy::too_many_arguments)]
pub fn hit(
    ctx: &ShardContext,
    leaf: usize,
    doc: DocId,
    score: Option<f32>,
    sort: Option<Vec<Value>>,
    explanation: Option<Explanation>,
    matched: Option<Value>,
    query: Option<&Query>,
    req: &SearchRequest,
) -> OsResult<Value> {
    let leaves = ctx.reader.leaves();
    let l = leaves.get(leaf).ok_or_else(|| no_segment(ctx, leaf))?;
    let mut m = Map::new();
    if req.explain {
        m.insert("_shard".into(), json!(format!("[{}][{}]", ctx.index, ctx.shard)));
        m.insert("_node".into(), json!("fathom"));
    }
    m.insert("_index".into(), json!(ctx.index));
    // `stored_fields: "_none_"`: no metadata, no source (OpenSearch's hit keeps `_index`).
    let none = req.stored_fields.as_ref().is_some_and(|s| s.len() == 1 && s[0] == "_none_");
    if none {
        m.insert("_score".into(), score.map_or(Value::Null, f32_json));
        if let Some(s) = sort {
            m.insert("sort".into(), Value::Array(s));
        }
        if let Some(mq) = matched {
            m.insert("matched_queries".into(), mq);
        }
        return Ok(Value::Object(m));
    }
    let d = read_stored_fields(&l.reader, doc, source_needed(req))?;
    m.insert("_id".into(), json!(d.id));
    if req.version || req.seq_no_primary_term {
        let v = read_version(&l.reader, doc)?;
        if req.version {
            m.insert("_version".into(), json!(v.version));
        }
        if req.seq_no_primary_term {
            m.insert("_seq_no".into(), json!(v.seq_no));
            m.insert("_primary_term".into(), json!(v.primary_term));
        }
    }
    m.insert("_score".into(), score.map_or(Value::Null, f32_json));
    if let Some(r) = &d.routing {
        m.insert("_routing".into(), json!(r));
    }
    if let Some(ignored) = ignored_fields(ctx, leaf, doc)? {
        m.insert("_ignored".into(), ignored);
    }
    let src: Value =
        if d.source.is_empty() { Value::Null } else { serde_json::from_slice(&d.source).unwrap_or(Value::Null) };
    // With `stored_fields`, `_source` comes only when asked for (`_source` in the list or the
    // body's `_source`).
    let source_wanted = match &req.stored_fields {
        None => true,
        Some(sf) => req.source_set || sf.iter().any(|f| f == "_source"),
    };
    if source_wanted {
        if let Some(s) = req.source.apply(&src) {
            m.insert("_source".into(), s);
        }
    }
    // OpenSearch's sub-phase order: stored fields, then doc values (appended to a field already
    // there), then the fields API (replacing).
    let mut fields = Map::new();
    let stored: &[String] = req.stored_fields.as_deref().unwrap_or(&[]);
    let parsed =
        (!req.fields.is_empty() || !stored.is_empty()).then(|| ParsedSource::new(&ctx.mapping, &d.id, &d.source));
    if let Some(p) = &parsed {
        field_values::stored_fields(&ctx.mapping, p, &src, stored, &mut fields);
    }
    if !req.docvalue_fields.is_empty() {
        let segs = &ctx.reader.query().segments;
        let seg = segs.get(leaf).ok_or_else(|| no_segment(ctx, leaf))?;
        field_values::docvalue_fields(&ctx.mapping, seg.as_ref(), doc, &req.docvalue_fields, &mut fields)?;
    }
    if let Some(p) = &parsed {
        field_values::fields_api(&ctx.mapping, p, &src, &req.fields, &mut fields);
        if !req.fields.is_empty() {
            let segs = &ctx.reader.query().segments;
            let seg = segs.get(leaf).ok_or_else(|| no_segment(ctx, leaf))?;
            field_values::token_count_fields(&ctx.mapping, seg.as_ref(), doc, &req.fields, &mut fields)?;
        }
    }
    if !fields.is_empty() {
        m.insert("fields".into(), Value::Object(fields));
    }
    if let (Some(h), Some(q)) = (&req.highlight, query) {
        if let Some(hl) = highlight::highlight(h, q, &src, ctx, &d.id)? {
            m.insert("highlight".into(), hl);
        }
    }
    if let Some(s) = sort {
        m.insert("sort".into(), Value::Array(s));
    }
    if let Some(mq) = matched {
        m.insert("matched_queries".into(), mq);
    }
    if let Some(e) = explanation {
        m.insert("_explanation".into(), explanation_json(&e));
    }
    Ok(Value::Object(m))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The reference: the shortest decimal of the `f32`, read back as a double.
    fn by_string(x: f32) -> Value {
        format!("{x}").parse::<f64>().ok().and_then(serde_json::Number::from_f64).map_or(Value::Null, Value::Number)
    }

    #[test]
    fn floats_print_as_java_prints_them() {
        assert_eq!(serde_json::to_string(&f32_json(0.2876821)).unwrap(), "0.2876821");
        assert_eq!(serde_json::to_string(&f32_json(1.0)).unwrap(), "1.0");
        for x in [f32::MIN_POSITIVE, f32::MAX, f32::MIN, 1e-45, -0.0, 3.4028235e38, 1.1754942e-38] {
            assert_eq!(f32_json(x), by_string(x), "{x}");
        }
        assert_eq!(f32_json(f32::NAN), Value::Null);
        assert_eq!(f32_json(f32::INFINITY), Value::Null);
    }

    /// A tie between two shortest decimals goes to the even last digit, as Java 19+ prints
    /// floats (`Float.toString`, JDK-4511638; OpenSearch 3.3 runs on Java 21); Rust's `Display`
    /// picks the other one here.
    #[test]
    fn ties_go_to_the_even_digit() {
        assert_eq!(serde_json::to_string(&f32_json(1_298_194.3)).unwrap(), "1298194.2");
        assert_eq!(serde_json::to_string(&by_string(1_298_194.3)).unwrap(), "1298194.3");
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(20_000))]
        /// As short as `Display`'s shortest decimal, and reads back as the same f32.
        #[test]
        fn shortest_round_trip(bits in any::<u32>()) {
            let x = f32::from_bits(bits);
            let (ours, display) = (f32_json(x), by_string(x));
            if !x.is_finite() {
                prop_assert_eq!(ours, Value::Null);
            } else {
                prop_assert_eq!(ours.as_f64().map(|v| v as f32), Some(x));
                let len = |v: &Value| serde_json::to_string(v).unwrap().len();
                prop_assert_eq!(len(&ours), len(&display), "{} vs {}", ours, display);
            }
        }
    }
}
