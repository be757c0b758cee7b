//! `collapse`: field collapsing. Each shard keeps the best hit of each distinct value of a
//! single-valued keyword or numeric field with doc values (the top `from + size` groups, ranked
//! by their best hit, as Lucene's `CollapsingTopDocsCollector`); the coordinating node merges the
//! shards' group heads and keeps the first of each value. Each hit reports its value in
//! `fields.{field}`; `hits.total` still counts documents.
//!
//! Group heads are found exactly: hits are read in sort order, in growing windows, until
//! `from + size` distinct values are seen or the matches run out (a group's rank is the rank of
//! its best hit, so the first distinct values met are the top groups).

use std::collections::HashSet;

use serde_json::{json, Map, Value};

use super::context::ShardContext;
use super::field_values;
use super::request::SearchRequest;
use crate::engine::query::{Hit, SegmentView};
use crate::engine::schema::{FieldKind, FieldType};
use crate::error::{ErrorKind, OsError, OsResult};

/// A `collapse` request.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Collapse {
    pub field: String,
    /// `inner_hits` as given (one object or several).
    pub inner_hits: Vec<Value>,
    pub max_concurrent_group_searches: Option<i64>,
}

fn xparse(reason: String) -> OsError {
    OsError::new(ErrorKind::XContentParse, reason)
}

/// Parses `collapse` (`CollapseBuilder`'s object parser).
pub fn parse(v: &Value) -> OsResult<Collapse> {
    let m = v.as_object().ok_or_else(|| OsError::parsing(format!("Unknown key for a {} in [collapse].", token(v))))?;
    let mut c = Collapse { field: String::new(), inner_hits: Vec::new(), max_concurrent_group_searches: None };
    let mut field = None;
    for (k, v) in m {
        match k.as_str() {
            "field" => {
                field = Some(
                    v.as_str()
                        .ok_or_else(|| {
                            xparse(format!("[collapse] field doesn't support values of type: {}", token(v)))
                        })?
                        .to_string(),
                )
            }
            "inner_hits" => match v {
                Value::Object(_) => c.inner_hits = vec![v.clone()],
                Value::Array(a) if a.iter().all(Value::is_object) => c.inner_hits = a.clone(),
                _ => return Err(xparse(format!("[collapse] inner_hits doesn't support values of type: {}", token(v)))),
            },
            "max_concurrent_group_searches" => {
                let n = v.as_i64().ok_or_else(|| {
                    xparse(format!(
                        "[collapse] max_concurrent_group_searches doesn't support values of type: {}",
                        token(v)
                    ))
                })?;
                if n < 1 {
                    return Err(OsError::illegal("maxConcurrentGroupRequests must be positive"));
                }
                c.max_concurrent_group_searches = Some(n);
            }
            other => return Err(xparse(format!("[collapse] unknown field [{other}]"))),
        }
    }
    c.field = field.ok_or_else(|| OsError::illegal("[collapse] requires a [field]"))?;
    let mut names = HashSet::new();
    for ih in &c.inner_hits {
        let spec = InnerHits::parse(ih, &c.field, &Value::Null)?;
        if !names.insert(spec.name.clone()) {
            return Err(OsError::illegal(format!("[inner_hits] already contains an entry for key [{}]", spec.name)));
        }
    }
    Ok(c)
}

/// One `inner_hits` of a collapse: the group's own search (`ExpandSearchPhase`): the request's
/// query with the group's value as a filter, and the inner hit's paging, sort and fetch options.
#[derive(Debug, Clone)]
pub struct InnerHits {
    pub name: String,
    pub request: SearchRequest,
}

/// The keys of an inner hit definition (`InnerHitBuilder`) that become its search's body.
const INNER_KEYS: &[&str] = &[
    "from",
    "size",
    "explain",
    "version",
    "seq_no_primary_term",
    "track_scores",
    "stored_fields",
    "docvalue_fields",
    "fields",
    "_source",
    "sort",
    "highlight",
    "script_fields",
    "collapse",
];

impl InnerHits {
    /// The search of one group (`key`: its collapse value, null for the docs without one).
    pub fn parse(spec: &Value, field: &str, key: &Value) -> OsResult<InnerHits> {
        let m = spec.as_object().ok_or_else(|| xparse("[inner_hits] must be an object".into()))?;
        let mut body = Map::new();
        let mut name = None;
        for (k, v) in m {
            match k.as_str() {
                "name" => name = Some(v.as_str().ok_or_else(|| xparse("[inner_hits] name must be a string".into()))?),
                "ignore_unmapped" => {}
                k if INNER_KEYS.contains(&k) => {
                    body.insert(k.to_string(), v.clone());
                }
                other => return Err(xparse(format!("[inner_hits] unknown field [{other}]"))),
            }
        }
        body.entry("size").or_insert(json!(3));
        let filter = if key.is_null() {
            json!({"bool": {"must_not": [{"exists": {"field": field}}]}})
        } else {
            json!({"term": {field: key}})
        };
        body.insert("post_filter".into(), filter);
        let request = SearchRequest::from_body(Value::Object(body))?;
        Ok(InnerHits { name: name.unwrap_or(field).to_string(), request })
    }

    /// The group's search request: the outer request's query, boosts and time budget with the
    /// group's filter and the inner hit's options.
    pub fn prepare(mut self, outer: &SearchRequest) -> OsResult<(String, SearchRequest)> {
        self.request.query = outer.query.clone();
        self.request.q = outer.q.clone();
        self.request.indices_boost = outer.indices_boost.clone();
        self.request.resolved_boosts = outer.resolved_boosts.clone();
        self.request.timeout = outer.timeout;
        self.request.warnings = outer.warnings.clone();
        self.request.finish()?;
        Ok((self.name, self.request))
    }

    /// The group's search over the same shards as the request.
    pub fn run(self, ctxs: &[ShardContext], outer: &SearchRequest) -> OsResult<(String, Value)> {
        let (name, req) = self.prepare(outer)?;
        let v = super::execute::search_contexts(ctxs, &req)?;
        Ok((name, json!({"hits": v.get("hits").cloned().unwrap_or(Value::Null)})))
    }
}

/// The `inner_hits` object of one collapsed hit.
pub fn expand(c: &Collapse, ctxs: &[ShardContext], outer: &SearchRequest, key: &Value) -> OsResult<Value> {
    let mut out = Map::new();
    for spec in &c.inner_hits {
        let (name, hits) = InnerHits::parse(spec, &c.field, key)?.run(ctxs, outer)?;
        out.insert(name, hits);
    }
    Ok(Value::Object(out))
}

fn token(v: &Value) -> &'static str {
    match v {
        Value::Object(_) => "START_OBJECT",
        Value::Array(_) => "START_ARRAY",
        Value::String(_) => "VALUE_STRING",
        Value::Number(_) => "VALUE_NUMBER",
        Value::Bool(_) => "VALUE_BOOLEAN",
        Value::Null => "VALUE_NULL",
    }
}

fn search_exception(reason: impl Into<String>) -> OsError {
    OsError::new(ErrorKind::Search, reason)
}

/// The shard's checks (`SearchService.parseSource`, `CollapseBuilder.build`); returns the field.
pub fn check<'m>(
    c: &Collapse,
    ctx: &'m ShardContext,
    scroll: bool,
    rescore: bool,
    search_after: bool,
    single_sort_on: Option<&str>,
) -> OsResult<&'m FieldType> {
    if scroll {
        return Err(search_exception("cannot use `collapse` in a scroll context"));
    }
    if search_after && single_sort_on != Some(c.field.as_str()) {
        return Err(search_exception(
            "collapse field and sort field must be the same when use `collapse` in conjunction with `search_after`",
        ));
    }
    if rescore {
        return Err(search_exception("cannot use `collapse` in conjunction with `rescore`"));
    }
    let ft = ctx
        .mapping
        .field_type(&c.field)
        .ok_or_else(|| OsError::illegal(format!("no mapping found for `{}` in order to collapse on", c.field)))?;
    if !matches!(ft.kind, FieldKind::Keyword(_) | FieldKind::Number(_) | FieldKind::ScaledFloat { .. }) {
        return Err(OsError::illegal(format!(
            "unknown type for collapse field `{}`, only keywords and numbers are accepted",
            c.field
        )));
    }
    if !ft.effective_doc_values() {
        return Err(OsError::illegal(format!("cannot collapse on field `{}` without `doc_values`", c.field)));
    }
    Ok(ft)
}

/// The collapse value of one hit (`Value::Null` when the doc has none).
pub fn key_of(seg: &dyn SegmentView, hit: &Hit, field: &str, ft: &FieldType) -> OsResult<Value> {
    let mut vals = field_values::doc_values(seg, hit.doc, field, ft, None)?;
    match vals.len() {
        0 => Ok(Value::Null),
        1 => Ok(vals.remove(0)),
        _ => Err(OsError::illegal(format!("failed to collapse {}, the collapse field must be single valued", hit.doc))),
    }
}

/// Keeps the first hit of each key among `hits` (in their order), at most `limit` of them.
pub fn heads(hits: Vec<(Hit, Value)>, limit: usize) -> Vec<(Hit, Value)> {
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    for (h, k) in hits {
        if out.len() >= limit {
            break;
        }
        if seen.insert(k.to_string()) {
            out.push((h, k));
        }
    }
    out
}

/// Adds the collapse value to a rendered hit: `fields.{field}: [value]`.
pub fn add_field(hit: &mut Value, field: &str, key: &Value) {
    if let Value::Object(m) = hit {
        let fields = m.entry("fields").or_insert_with(|| Value::Object(Map::new()));
        if let Value::Object(f) = fields {
            f.insert(field.to_string(), Value::Array(vec![key.clone()]));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn hit(doc: u32) -> Hit {
        Hit { segment: 0, doc, score: 1.0, sort_values: vec![] }
    }

    #[test]
    fn heads_keep_the_first_of_each_key() {
        let hits = vec![
            (hit(1), json!("a")),
            (hit(2), json!("b")),
            (hit(3), json!("a")),
            (hit(4), Value::Null),
            (hit(5), Value::Null),
        ];
        let h: Vec<u32> = heads(hits.clone(), 10).iter().map(|(h, _)| h.doc).collect();
        assert_eq!(h, [1, 2, 4]);
        let h: Vec<u32> = heads(hits, 2).iter().map(|(h, _)| h.doc).collect();
        assert_eq!(h, [1, 2]);
    }

    #[test]
    fn parse_forms_and_errors() {
        let c = parse(&json!({"field": "user", "max_concurrent_group_searches": 4})).unwrap();
        assert_eq!((c.field.as_str(), c.max_concurrent_group_searches), ("user", Some(4)));
        assert_eq!(parse(&json!({})).unwrap_err().reason, "[collapse] requires a [field]");
        assert_eq!(parse(&json!({"field": "u", "x": 1})).unwrap_err().reason, "[collapse] unknown field [x]");
        assert_eq!(parse(&json!({"field": 3})).unwrap_err().kind, ErrorKind::XContentParse);
    }
}
