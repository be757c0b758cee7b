//! Terms lookup (OpenSearch's `TermsLookup`, resolved in `TermsQueryBuilder.doRewrite` before
//! the shards parse the query): `{"terms": {FIELD: {"index", "id"|"query", "path", "routing",
//! "store"}}}` becomes `{"terms": {FIELD: [values]}}`, the values read at `path` from the
//! `_source` of the document `id` of `index`, or of every document of `index` that `query`
//! matches (duplicates dropped). A missing document gives no terms.

use std::collections::HashSet;
use std::sync::Arc;

use serde_json::{json, Map, Value};

use super::aggs::AggDef;
use super::dsl::perr;
use super::request::SearchRequest;
use crate::action::documents::extract_values;
use crate::cluster::resolve::IndicesOptions;
use crate::cluster::ClusterService;
use crate::error::{OsError, OsResult};

/// Lookups nested in lookup queries, at most this deep.
const MAX_DEPTH: usize = 8;
/// Most documents a lookup query reads (`index.max_result_window`'s default).
const MAX_LOOKUP_DOCS: usize = 10_000;
/// Most terms a lookup gives (`index.max_terms_count`'s default).
const MAX_TERMS: usize = 65_536;

/// `req` with its lookups resolved (`None`: there is none, use `req` as it is).
pub fn resolve(cs: &ClusterService, req: &SearchRequest) -> OsResult<Option<SearchRequest>> {
    resolve_at(cs, req, 0)
}

fn resolve_at(cs: &ClusterService, req: &SearchRequest, depth: usize) -> OsResult<Option<SearchRequest>> {
    let has = |q: &Option<Value>| q.as_ref().is_some_and(has_lookup);
    let in_aggs = req.aggs.as_ref().is_some_and(|a| aggs_have_lookup(a));
    if !has(&req.query) && !has(&req.post_filter) && !in_aggs {
        return Ok(None);
    }
    if depth >= MAX_DEPTH {
        return Err(OsError::illegal(format!("terms lookups nested deeper than {MAX_DEPTH} levels")));
    }
    let mut out = req.clone();
    if let Some(q) = out.query.as_mut() {
        walk(cs, q, depth)?;
    }
    if let Some(q) = out.post_filter.as_mut() {
        walk(cs, q, depth)?;
    }
    if in_aggs {
        if let Some(a) = &req.aggs {
            out.aggs = Some(Arc::new(rewrite_aggs(cs, a, depth)?));
        }
    }
    Ok(Some(out))
}

/// Whether a query of an aggregation (`filter`, `filters`, ...) at any depth has a lookup.
fn aggs_have_lookup(defs: &[AggDef]) -> bool {
    defs.iter().any(|d| d.spec.queries().into_iter().any(has_lookup) || aggs_have_lookup(&d.subs))
}

/// The aggregations with the lookups of their queries resolved (OpenSearch rewrites the
/// aggregation builders' queries on the coordinator too).
fn rewrite_aggs(cs: &ClusterService, defs: &[AggDef], depth: usize) -> OsResult<Vec<AggDef>> {
    let mut out = Vec::with_capacity(defs.len());
    for d in defs {
        let mut d = d.clone();
        let qs = d.spec.queries();
        if qs.iter().any(|q| has_lookup(q)) {
            let mut qs: Vec<Value> = qs.into_iter().cloned().collect();
            for q in &mut qs {
                walk(cs, q, depth)?;
            }
            if let Some(spec) = d.spec.with_queries(qs) {
                d.spec = spec;
            }
        }
        if aggs_have_lookup(&d.subs) {
            d.subs = rewrite_aggs(cs, &d.subs, depth)?;
        }
        out.push(d);
    }
    Ok(out)
}

fn lookup_of(terms: &Map<String, Value>) -> impl Iterator<Item = (&String, &Map<String, Value>)> {
    terms.iter().filter_map(|(k, v)| match v {
        Value::Object(o) if !matches!(k.as_str(), "boost" | "_name" | "value_type") => Some((k, o)),
        _ => None,
    })
}

fn has_lookup(v: &Value) -> bool {
    match v {
        Value::Object(m) => m.iter().any(|(k, v)| {
            (k == "terms" && v.as_object().is_some_and(|t| lookup_of(t).next().is_some())) || has_lookup(v)
        }),
        Value::Array(a) => a.iter().any(has_lookup),
        _ => false,
    }
}

fn walk(cs: &ClusterService, v: &mut Value, depth: usize) -> OsResult<()> {
    match v {
        Value::Object(m) => {
            for (k, child) in m.iter_mut() {
                if k == "terms" {
                    if let Value::Object(t) = child {
                        let fields: Vec<String> = lookup_of(t).map(|(f, _)| f.clone()).collect();
                        for f in fields {
                            let spec = t.get(&f).and_then(Value::as_object).cloned().unwrap_or_default();
                            let values = fetch(cs, &spec, depth)?;
                            t.insert(f, Value::Array(values));
                        }
                        continue;
                    }
                }
                walk(cs, child, depth)?;
            }
            Ok(())
        }
        Value::Array(a) => a.iter_mut().try_for_each(|x| walk(cs, x, depth)),
        _ => Ok(()),
    }
}

/// The values a lookup element names.
fn fetch(cs: &ClusterService, spec: &Map<String, Value>, depth: usize) -> OsResult<Vec<Value>> {
    let (mut index, mut id, mut path, mut routing, mut query) = (None, None, None, None, None);
    let s = |k: &str, v: &Value| -> OsResult<String> {
        match v {
            Value::String(s) => Ok(s.clone()),
            Value::Number(n) => Ok(n.to_string()),
            _ => Err(perr(format!("[terms] query does not support [{k}] within lookup element"))),
        }
    };
    for (k, v) in spec {
        match k.as_str() {
            "index" => index = Some(s(k, v)?),
            "id" => id = Some(s(k, v)?),
            "path" => path = Some(s(k, v)?),
            "routing" => routing = Some(s(k, v)?),
            "query" => query = Some(v.clone()),
            "store" => {}
            other => return Err(perr(format!("[terms] query does not support [{other}] within lookup element"))),
        }
    }
    let index = index.ok_or_else(|| OsError::illegal("[terms] query lookup element requires specifying the index."))?;
    let path = path.ok_or_else(|| OsError::illegal("[terms] query lookup element requires specifying the path."))?;
    let sources: Vec<Value> = match (id, query) {
        (Some(_), Some(_)) | (None, None) => {
            return Err(OsError::illegal(
                "[terms] query lookup element requires specifying either the id or the query.",
            ));
        }
        (Some(id), None) => {
            // A realtime get (OpenSearch's `TermsQueryBuilder.fetch`), on whichever node holds a copy.
            let g = crate::action::documents::GetRequest { index, id, routing, ..Default::default() };
            match crate::action::documents::get(cs, &g)? {
                (true, body) => body.get("_source").cloned().into_iter().collect(),
                (false, _) => vec![],
            }
        }
        (None, Some(q)) => {
            let body =
                json!({"query": q, "size": MAX_LOOKUP_DOCS, "_source": [path.clone()], "track_total_hits": false});
            let req = SearchRequest::from_body(body)?;
            let req = resolve_at(cs, &req, depth + 1)?.unwrap_or(req);
            // Through `search`: the lookup index's shards may be on other nodes.
            let res = super::search(cs, &index, IndicesOptions::lenient_expand_open(), &req)?;
            res.pointer("/hits/hits")
                .and_then(Value::as_array)
                .map(|hits| hits.iter().filter_map(|h| h.get("_source").cloned()).collect())
                .unwrap_or_default()
        }
    };
    let mut seen: HashSet<String> = HashSet::new();
    let mut out = Vec::new();
    for src in &sources {
        for v in extract_values(src, &path) {
            if v.is_object() {
                continue;
            }
            if seen.insert(v.to_string()) {
                out.push(v);
                if out.len() > MAX_TERMS {
                    return Err(OsError::illegal(format!(
                        "The number of terms [{}] used in the Terms Query request has exceeded the allowed maximum of [{MAX_TERMS}]. This maximum can be set by changing the [index.max_terms_count] index level setting.",
                        out.len()
                    )));
                }
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_lookups_only_in_terms_objects() {
        assert!(has_lookup(
            &json!({"bool": {"filter": [{"terms": {"user": {"index": "i", "id": "1", "path": "p"}}}]}})
        ));
        assert!(!has_lookup(&json!({"terms": {"user": ["a", "b"], "boost": 2}})));
        assert!(!has_lookup(&json!({"match": {"terms": {"query": "x"}}})));
        let aggs = |v: Value| crate::action::search::aggs::parse::parse_aggs(&v).unwrap();
        let lookup = json!({"terms": {"m": {"index": "i", "id": "1", "path": "p"}}});
        assert!(aggs_have_lookup(&aggs(json!({"f": {"filter": lookup}}))));
        assert!(aggs_have_lookup(&aggs(
            json!({"t": {"terms": {"field": "k"}, "aggs": {"f": {"filters": {"filters": {"a": {"match_all": {}}, "b": lookup}}}}}})
        )));
        assert!(!aggs_have_lookup(&aggs(
            json!({"f": {"filter": {"terms": {"m": ["a"]}}}, "t": {"terms": {"field": "m"}}})
        )));
        let t = json!({"user": {"index": "i"}, "boost": 1, "_name": "n"});
        assert_eq!(lookup_of(t.as_object().unwrap()).map(|(f, _)| f.as_str()).collect::<Vec<_>>(), vec!["user"]);
    }
}
