//! Nested `inner_hits` (OpenSearch's `InnerHitBuilder` on a `nested` query): for each hit, the
//! nested documents under it that match the nested query's inner query, scored by it, with
//! their `_nested` identity (field and offset per nested level), the nested object's source,
//! `_version` and `_seq_no` doc values of the root document, `highlight`, `_explanation`, and the
//! inner hits of `nested` queries inside the inner query (their parents are these documents).
//!
//! Supported options: `name`, `from`, `size`, `sort` (fields of the nested documents),
//! `track_scores`, `_source`, `highlight`, `version`, `explain`, `docvalue_fields`,
//! `ignore_unmapped`; `seq_no_primary_term` fails as OpenSearch's does (nested documents have no
//! sequence numbers); `stored_fields`, `fields`, `script_fields` and `collapse` are refused.

use serde_json::{json, Map, Value};

use super::context::ShardContext;
use super::dsl::{parse_at, perr, QueryContext};
use super::fetch::{explanation_json, f32_json};
use super::field_values::{self, FieldAndFormat};
use crate::action::source_filter::SourceFilter;
use crate::engine::index::writer::{read_stored_fields, read_version};
use crate::engine::query::block_join::{path_docs, Bits};
use crate::engine::query::nested_source::{offsets, slice, wrap};
use crate::engine::query::sort::{cmp_key, KeyReader, SegKey};
use crate::engine::query::{Query, SegmentView, SortBy, SortField, Weight};
use crate::engine::schema::Mapping;
use crate::engine::segment::{DocId, NO_MORE_DOCS};
use crate::error::{ErrorKind, OsError, OsResult};

/// One inner hits definition of a `nested` query.
#[derive(Debug, Clone)]
pub struct InnerHitsDef {
    pub name: String,
    /// The nested path of the inner hits.
    pub path: String,
    /// The enclosing nested path (`None`: the hits are root documents).
    pub scope: Option<String>,
    /// The nested query's inner query.
    pub query: Query,
    pub from: usize,
    pub size: usize,
    pub explain: bool,
    pub version: bool,
    pub source: SourceFilter,
    pub highlight: Option<Value>,
    pub docvalue_fields: Vec<FieldAndFormat>,
    /// `sort` (fields of the nested documents; empty: by score).
    pub sort: Vec<super::sort::SortSpec>,
    /// With a sort: compute scores anyway.
    pub track_scores: bool,
    /// Inner hits of `nested` queries inside `query`.
    pub children: Vec<InnerHitsDef>,
}

/// The inner hits definitions of a search's query.
/// `max_window`: `index.max_inner_result_window`.
pub fn collect(query: Option<&Value>, qc: &QueryContext<'_>, max_window: usize) -> OsResult<Vec<InnerHitsDef>> {
    let mut out = Vec::new();
    if let Some(q) = query {
        walk(q, qc, max_window, &mut out, 0)?;
    }
    Ok(out)
}

fn walk(
    v: &Value,
    qc: &QueryContext<'_>,
    max_window: usize,
    out: &mut Vec<InnerHitsDef>,
    depth: usize,
) -> OsResult<()> {
    if depth > super::dsl::MAX_DEPTH * 2 {
        return Ok(());
    }
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                let nested_query = k == "nested" && x.get("path").is_some() && x.get("query").is_some();
                if !nested_query {
                    walk(x, qc, max_window, out, depth + 1)?;
                    continue;
                }
                let s = super::dsl_nested::spec(x)?;
                let Some(ih) = s.inner_hits else { continue };
                if !super::dsl_nested::check_path(&s.path, s.ignore_unmapped, qc)? {
                    continue;
                }
                let inner = QueryContext { nested_scope: Some(&s.path), ..*qc };
                let query = super::match_only::verify_phrases(parse_at(s.query, &inner, depth + 1)?, &inner);
                let mut children = Vec::new();
                walk(s.query, &inner, max_window, &mut children, depth + 1)?;
                let def = definition(ih, &s.path, qc.nested_scope, query, children, max_window)?;
                if out.iter().any(|d| d.name == def.name) {
                    return Err(OsError::illegal(format!(
                        "[inner_hits] already contains an entry for key [{}]",
                        def.name
                    )));
                }
                out.push(def);
            }
        }
        Value::Array(a) => {
            for x in a {
                walk(x, qc, max_window, out, depth + 1)?;
            }
        }
        _ => {}
    }
    Ok(())
}

fn usize_of(k: &str, v: &Value) -> OsResult<usize> {
    let n = v.as_i64().ok_or_else(|| perr(format!("[inner_hits] [{k}] must be an integer")))?;
    usize::try_from(n).map_err(|_| OsError::illegal(format!("[{k}] parameter cannot be negative, found [{n}]")))
}

fn flag(k: &str, v: &Value) -> OsResult<bool> {
    v.as_bool().ok_or_else(|| perr(format!("[inner_hits] [{k}] must be a boolean")))
}

fn definition(
    m: &Map<String, Value>,
    path: &str,
    scope: Option<&str>,
    query: Query,
    children: Vec<InnerHitsDef>,
    max_window: usize,
) -> OsResult<InnerHitsDef> {
    let mut d = InnerHitsDef {
        name: path.to_string(),
        path: path.to_string(),
        scope: scope.map(str::to_string),
        query,
        from: 0,
        size: 3,
        explain: false,
        version: false,
        source: SourceFilter::default(),
        highlight: None,
        docvalue_fields: Vec::new(),
        sort: Vec::new(),
        track_scores: false,
        children,
    };
    for (k, v) in m {
        match k.as_str() {
            "name" => d.name = v.as_str().ok_or_else(|| perr("[inner_hits] [name] must be a string"))?.to_string(),
            "from" => d.from = usize_of(k, v)?,
            "size" => d.size = usize_of(k, v)?,
            "explain" => d.explain = flag(k, v)?,
            "version" => d.version = flag(k, v)?,
            "track_scores" => d.track_scores = flag(k, v)?,
            "ignore_unmapped" => {
                flag(k, v)?;
            }
            "sort" => d.sort = super::sort::parse_sort(v)?,
            "seq_no_primary_term" => {
                if flag(k, v)? {
                    return Err(OsError::new(
                        ErrorKind::UnsupportedOperation,
                        "nested documents are not assigned sequence numbers",
                    )
                    .status(500));
                }
            }
            "_source" => d.source = SourceFilter::from_json(v).map_err(perr)?,
            "highlight" => d.highlight = Some(v.clone()),
            "docvalue_fields" => d.docvalue_fields = field_values::parse_list(k, v)?,
            "stored_fields" | "fields" | "script_fields" | "collapse" => {
                return Err(OsError::illegal(format!("[inner_hits] [{k}] is not supported by Fathom yet")))
            }
            other => return Err(perr(format!("[inner_hits] unknown field [{other}]"))),
        }
    }
    if d.from.saturating_add(d.size) > max_window {
        return Err(OsError::illegal(format!(
            "Inner result window is too large, the inner hit definition's [{}]'s from + size must be less than or equal to: [{max_window}] but was [{}]. This limit can be set by changing the [index.max_inner_result_window] index level setting.",
            d.name,
            d.from.saturating_add(d.size)
        )));
    }
    Ok(d)
}

/// Where one hit's inner hits are computed: the segment, the parent document and its root.
#[derive(Clone, Copy, Debug)]
pub struct Parent<'a> {
    pub ctx: &'a ShardContext,
    pub leaf: usize,
    pub doc: DocId,
    pub root: DocId,
    pub rest_total_hits_as_int: bool,
}

/// The `inner_hits` object of one hit.
pub fn render(defs: &[InnerHitsDef], p: Parent<'_>) -> OsResult<Value> {
    let mut out = Map::new();
    for d in defs {
        out.insert(d.name.clone(), one(d, p)?);
    }
    Ok(Value::Object(out))
}

fn one(d: &InnerHitsDef, p: Parent<'_>) -> OsResult<Value> {
    let segs = &p.ctx.reader.query().segments;
    let seg = segs.get(p.leaf).ok_or_else(|| OsError::internal(format!("no segment {}", p.leaf)))?;
    let seg: &dyn SegmentView = seg.as_ref();
    let mut matches: Vec<(DocId, f32)> = Vec::new();
    let mut weight = None;
    if let Some(all) = seg.with_nested() {
        let views: Vec<&dyn SegmentView> = segs.iter().map(|s| s.with_nested().unwrap_or(s.as_ref())).collect();
        let w = Weight::compile(&d.query, &views, 1.0, true)?;
        let children = path_docs(all, &d.path)?;
        let scope = match &d.scope {
            Some(s) => Some(path_docs(all, s)?),
            None => None,
        };
        // The parent's own block: back from it over nested docs that are not parents.
        let mut start = p.doc;
        while start > 0 && all.is_nested(start - 1) && !scope.as_ref().is_some_and(|b| b.get(start - 1)) {
            start -= 1;
        }
        if let Some(mut sc) = w.scorer(all)? {
            let mut c = sc.advance(start);
            while c < p.doc && c != NO_MORE_DOCS {
                if children.get(c) && all.is_live(c) {
                    matches.push((c, sc.score()));
                }
                c = sc.next();
            }
            if let Some(e) = sc.take_error() {
                return Err(e.into());
            }
        }
        weight = Some(w);
    }
    let fields = super::sort::resolve(&d.sort, &p.ctx.mapping)?;
    let mut sort_values: Vec<Vec<Value>> = Vec::new();
    if fields.is_empty() {
        matches.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    } else {
        let all = seg.with_nested().unwrap_or(seg);
        let engine: Vec<SortField> = fields.iter().map(|(f, _)| f.clone()).collect();
        let mut keys = KeyReader::new(all, 0);
        keys.prepare(&engine)?;
        let mut keyed: Vec<(Vec<SegKey>, DocId, f32)> =
            matches.iter().map(|&(c, s)| (engine.iter().map(|f| keys.key(f, c, s)).collect(), c, s)).collect();
        keyed.sort_by(|a, b| {
            for ((x, y), f) in a.0.iter().zip(&b.0).zip(&engine) {
                let o = cmp_key(x, y, f);
                if o != std::cmp::Ordering::Equal {
                    return o;
                }
            }
            a.1.cmp(&b.1)
        });
        for (ks, _, _) in keyed.iter().skip(d.from).take(d.size) {
            let mut vals = Vec::with_capacity(ks.len());
            for ((k, f), (_, fmt)) in ks.iter().zip(&engine).zip(&fields) {
                vals.push(super::sort::render(&keys.value(f, k)?, f, fmt));
            }
            sort_values.push(vals);
        }
        matches = keyed.into_iter().map(|(_, c, s)| (c, s)).collect();
    }
    // Sorted by fields: scores only with `track_scores` or a `_score` sort.
    let scored = fields.is_empty() || d.track_scores || fields.iter().any(|(f, _)| f.by == SortBy::Score);
    let total = matches.len();
    let max_score = matches.iter().map(|m| m.1).fold(None, |m: Option<f32>, s| Some(m.map_or(s, |m| m.max(s))));
    let max_score = max_score.filter(|_| scored);
    let mut hits = Vec::new();
    if d.size > 0 {
        let leaves = p.ctx.reader.leaves();
        let leaf = leaves.get(p.leaf).ok_or_else(|| OsError::internal(format!("no segment {}", p.leaf)))?;
        let root = read_stored_fields(&leaf.reader, p.root, true)?;
        // Fathom keeps the source even when the mapping disables it (stored fields read their
        // values from it); hits show it only when enabled.
        let kept: Option<Value> = if root.source.is_empty() { None } else { serde_json::from_slice(&root.source).ok() };
        let shown = source_enabled(&p.ctx.mapping);
        let all = seg.with_nested().unwrap_or(seg);
        let levels = levels(&p.ctx.mapping, &d.path);
        let level_docs: Vec<Bits> = levels.iter().map(|l| path_docs(all, l)).collect::<Result<_, _>>()?;
        for (i, &(c, score)) in matches.iter().skip(d.from).take(d.size).enumerate() {
            let mut h = Map::new();
            h.insert("_index".into(), json!(p.ctx.index));
            h.insert("_id".into(), json!(root.id));
            let offsets = offsets(all, &level_docs, c);
            h.insert("_nested".into(), identity(&levels, &offsets));
            if d.version {
                h.insert("_version".into(), json!(read_version(&leaf.reader, p.root)?.version));
            }
            h.insert("_score".into(), if scored { f32_json(score) } else { Value::Null });
            let stored_src = kept.as_ref().and_then(|s| slice(s, &levels, &offsets));
            if let Some(ns) = stored_src.as_ref().filter(|_| shown) {
                if let Some(v) = filtered(&d.source, ns, &d.path) {
                    h.insert("_source".into(), v);
                }
            }
            let mut fields = Map::new();
            // `_seq_no` is the root's (nested documents have none), other fields the nested doc's.
            let (meta, own): (Vec<FieldAndFormat>, Vec<FieldAndFormat>) =
                d.docvalue_fields.iter().cloned().partition(|f| f.field == "_seq_no");
            field_values::docvalue_fields(&p.ctx.mapping, seg, p.root, &meta, &mut fields)?;
            field_values::docvalue_fields(&p.ctx.mapping, all, c, &own, &mut fields)?;
            if !fields.is_empty() {
                h.insert("fields".into(), Value::Object(fields));
            }
            if let Some(spec) = &d.highlight {
                let wrapped = wrap(&d.path, stored_src.clone().unwrap_or(Value::Null));
                let spec = highlightable(spec, &p.ctx.mapping);
                if let Some(hl) = super::highlight::highlight(&spec, &d.query, &wrapped, p.ctx, &root.id)? {
                    h.insert("highlight".into(), hl);
                }
            }
            if let Some(vals) = sort_values.get(i) {
                h.insert("sort".into(), Value::Array(vals.clone()));
            }
            if d.explain {
                if let Some(w) = &weight {
                    h.insert("_explanation".into(), explanation_json(&w.explain(all, c)?));
                }
            }
            if !d.children.is_empty() {
                let child = Parent { doc: c, ..p };
                h.insert("inner_hits".into(), render(&d.children, child)?);
            }
            hits.push(Value::Object(h));
        }
    }
    let total = if p.rest_total_hits_as_int { json!(total) } else { json!({"value": total, "relation": "eq"}) };
    Ok(json!({"hits": {"total": total, "max_score": max_score.map_or(Value::Null, f32_json), "hits": hits}}))
}

/// Whether the mapping keeps `_source`.
pub(super) fn source_enabled(m: &Mapping) -> bool {
    m.source.as_ref().and_then(|s| s.get("enabled")).and_then(Value::as_bool) != Some(false)
}

/// The nested levels from the root down to `path` (each a nested object path).
pub fn levels(m: &Mapping, path: &str) -> Vec<String> {
    let mut out = Vec::new();
    for (i, _) in path.match_indices('.') {
        let prefix = &path[..i];
        if m.object(prefix).is_some_and(|o| o.nested) {
            out.push(prefix.to_string());
        }
    }
    out.push(path.to_string());
    out
}

/// `_nested`: `{"field", "offset", "_nested": ...}` from the top level down.
pub(super) fn identity(levels: &[String], offsets: &[usize]) -> Value {
    let mut v: Option<Value> = None;
    for i in (0..levels.len()).rev() {
        let field = match i {
            0 => levels[0].as_str(),
            _ => levels[i].strip_prefix(&format!("{}.", levels[i - 1])).unwrap_or(&levels[i]),
        };
        let mut m = Map::new();
        m.insert("field".into(), json!(field));
        m.insert("offset".into(), json!(offsets[i]));
        if let Some(inner) = v.take() {
            m.insert("_nested".into(), inner);
        }
        v = Some(Value::Object(m));
    }
    v.unwrap_or(Value::Null)
}

/// The inner hit's `_source` option applied to the nested object (patterns may name fields by
/// their full path).
pub(super) fn filtered(f: &SourceFilter, ns: &Value, path: &str) -> Option<Value> {
    if f.disabled {
        return None;
    }
    let strip = |p: &String| p.strip_prefix(&format!("{path}.")).unwrap_or(p).to_string();
    let rel = SourceFilter {
        disabled: false,
        includes: f.includes.iter().map(strip).collect(),
        excludes: f.excludes.iter().map(strip).collect(),
    };
    rel.apply(ns)
}

/// The highlight spec without the fields a hit cannot show: with `_source` disabled or the
/// field excluded from it, only stored fields have values to highlight.
pub(super) fn highlightable(spec: &Value, m: &Mapping) -> Value {
    let enabled = source_enabled(m);
    let excludes: Vec<String> = m
        .source
        .as_ref()
        .and_then(|s| s.get("excludes"))
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).map(str::to_string).collect())
        .unwrap_or_default();
    let keep = |field: &str| {
        let stored = m.field_type(field).is_some_and(|f| f.store == Some(true));
        let hidden = !enabled || excludes.iter().any(|e| crate::cluster::resolve::glob(e, field));
        stored || !hidden
    };
    let mut spec = spec.clone();
    match spec.get_mut("fields") {
        Some(Value::Object(fs)) => fs.retain(|k, _| keep(k)),
        Some(Value::Array(a)) => {
            for x in a.iter_mut() {
                if let Some(fs) = x.as_object_mut() {
                    fs.retain(|k, _| keep(k));
                }
            }
        }
        _ => {}
    }
    spec
}

#[cfg(test)]
#[path = "inner_hits_tests.rs"]
mod tests;
