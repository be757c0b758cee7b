//! `GET/POST {index}/_explain/{id}`: the engine's explanation of one document's score for a
//! query, as OpenSearch's `TransportExplainAction` computes it: the document is looked up by id
//! in a pinned searcher of its shard (what a search sees: refreshed documents), and the query
//! (with the alias's filter when `index` is a filtered alias) is explained against it.

use serde_json::{json, Map, Value};

use super::deferred::Deferred;
use super::documents::{check_routing, read_target};
use super::search::dsl::{self, QueryContext};
use super::search::execute::build_query;
use super::search::fetch::explanation_json;
use super::search::request::QueryStringParams;
use super::search::SearchRequest;
use super::source_filter::SourceFilter;
use crate::clock::now_millis;
use crate::cluster::ClusterService;
use crate::engine::index::writer::read_document;
use crate::engine::query::Query;
use crate::error::{OsError, OsResult};

/// The shard-level explain, run on the node holding the copy read.
pub const ACTION_EXPLAIN: &str = "indices:data/read/explain[s]";

/// An explain request.
#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
pub struct ExplainRequest {
    pub index: String,
    pub id: String,
    pub routing: Option<String>,
    /// The body's `query`.
    pub query: Option<Value>,
    /// `q=` and its options (used when the body has no query).
    pub q: Option<QueryStringParams>,
    /// `_source` filtering of the `get` part (`None`: no `get` part unless `stored_fields`).
    pub source: Option<SourceFilter>,
    pub stored_fields: Option<Vec<String>>,
    /// `preference`: which copy of the shard explains (see `search::copy_choice`).
    #[serde(default)]
    pub preference: Option<String>,
}

/// Reads the body as `RestActions.getQueryContent` does: only `query` is allowed.
pub fn parse_body(body: &Value) -> OsResult<Option<Value>> {
    match body {
        Value::Null => Ok(None),
        Value::Object(m) => {
            let mut query = None;
            for (k, v) in m {
                match k.as_str() {
                    "query" => query = Some(v.clone()),
                    other => return Err(OsError::parsing(format!("request does not support [{other}]"))),
                }
            }
            Ok(query)
        }
        _ => Err(OsError::parsing("Expected [START_OBJECT] but found [VALUE_STRING]")),
    }
}

/// `(status, body)` of the explain API: 404 with `matched: false` when the document does not
/// exist (for the searcher), else 200 with the explanation.
/// Returns the status, the body and the deprecation warnings of the query's parsers.
pub fn explain(cs: &ClusterService, req: &ExplainRequest) -> OsResult<(u16, Value, Deferred)> {
    if req.query.is_none() && req.q.is_none() {
        return Err(OsError::validation(&["query is missing".into()]));
    }
    let svc = read_target(cs, &req.index)?;
    let key = req.routing.as_deref().unwrap_or(&req.id);
    let here = || explain_here(cs, req);
    super::documents::remote_get::read_on_copies(cs, &svc, key, req.preference.as_deref(), here, |node| {
        forward(cs, node, req)
    })
}

/// The explain on `node`'s copy.
fn forward(cs: &ClusterService, node: &str, req: &ExplainRequest) -> OsResult<(u16, Value, Deferred)> {
    let payload = serde_json::to_vec(req).map_err(|e| OsError::internal(e.to_string()))?;
    let bytes = cs.send(node, ACTION_EXPLAIN, payload, std::time::Duration::from_secs(60))?;
    let (status, body, warnings): (u16, Value, Vec<String>) =
        serde_json::from_slice(&bytes).map_err(|e| OsError::internal(format!("malformed explain answer: {e}")))?;
    Ok((status, body, Deferred { warnings, ..Deferred::default() }))
}

/// The receiving side of [`ACTION_EXPLAIN`]: the explain on this node's copy.
pub fn handle(cs: &ClusterService, payload: &[u8]) -> OsResult<Vec<u8>> {
    let req: ExplainRequest =
        serde_json::from_slice(payload).map_err(|e| OsError::illegal(format!("malformed explain request: {e}")))?;
    let (status, body, deferred) = explain_here(cs, &req)?;
    serde_json::to_vec(&(status, body, deferred.warnings)).map_err(|e| OsError::internal(e.to_string()))
}

/// The explain on this node's copy of the shard.
fn explain_here(cs: &ClusterService, req: &ExplainRequest) -> OsResult<(u16, Value, Deferred)> {
    let r = explain_shard(cs, req);
    if let Err(e) = &r {
        // Damaged bytes in the shard's segments fail the shard, as for a search.
        if e.is_corruption() {
            if let Ok(shard) =
                read_target(cs, &req.index).and_then(|svc| svc.route(req.routing.as_deref().unwrap_or(&req.id)))
            {
                shard.engine.failer().fail(&format!("corrupt file (source: [explain]): {}", e.reason), true);
            }
        }
    }
    r
}

fn explain_shard(cs: &ClusterService, req: &ExplainRequest) -> OsResult<(u16, Value, Deferred)> {
    if req.query.is_none() && req.q.is_none() {
        return Err(OsError::validation(&["query is missing".into()]));
    }
    let svc = read_target(cs, &req.index)?;
    // A filtered alias restricts what matches, as OpenSearch's alias filter does.
    let alias_filter: Option<Value> = if svc.name != req.index {
        cs.metadata().indices.get(&svc.name).and_then(|m| m.aliases.get(&req.index)).and_then(|a| a.filter.clone())
    } else {
        None
    };
    check_routing(&svc, &req.id, req.routing.as_deref())?;
    let shard = svc.route(req.routing.as_deref().unwrap_or(&req.id))?.clone();
    let searcher = shard.engine.reader()?;
    let mut found = None;
    for (i, leaf) in searcher.leaves().iter().enumerate().rev() {
        let live = &leaf.live;
        if let Some(d) = leaf.reader.find_id(&req.id, &|d| live.is_live(d))? {
            found = Some((i, d));
            break;
        }
    }
    let mut out = Map::new();
    out.insert("_index".into(), json!(svc.name));
    out.insert("_id".into(), json!(req.id));
    let Some((segment, doc)) = found else {
        out.insert("matched".into(), json!(false));
        return Ok((404, Value::Object(out), Deferred::default()));
    };
    let mapping = svc.mapping();
    let analysis = svc.analysis().clone();
    let qsearcher = searcher.query();
    let sr = SearchRequest { query: req.query.clone(), q: req.q.clone(), ..SearchRequest::default() };
    let qc = QueryContext {
        mapping: &mapping,
        analyzers: svc.analyzers(),
        segments: &qsearcher.segments,
        index: &svc.name,
        now_millis: now_millis(),
        analysis: Some(&analysis),
        max_regex_length: svc
            .metadata()
            .setting("index.max_regex_length")
            .and_then(|s| s.parse().ok())
            .unwrap_or(crate::action::search::limits::DEFAULT_MAX_REGEX_LENGTH),
        warnings: &sr.warnings,
        nested_scope: None,
        allow_expensive: crate::action::search::allow_expensive_queries(cs),
    };
    let mut query = build_query(&sr, &qc)?;
    if let Some(f) = &alias_filter {
        let filter = dsl::parse(f, &qc)?;
        query = Query::Bool {
            must: vec![query],
            should: vec![],
            must_not: vec![],
            filter: vec![filter],
            minimum_should_match: 0,
            boost: 1.0,
        };
    }
    let e = qsearcher.explain(&query, segment, doc)?;
    out.insert("matched".into(), json!(e.matched));
    out.insert("explanation".into(), explanation_json(&e));
    if req.source.is_some() || req.stored_fields.is_some() {
        let leaf = &searcher.leaves()[segment];
        let d = read_document(&leaf.reader, doc)?;
        let src: Value = serde_json::from_slice(&d.source).unwrap_or(Value::Null);
        let mut get = Map::new();
        get.insert("_seq_no".into(), json!(d.seq_no));
        get.insert("_primary_term".into(), json!(d.primary_term));
        get.insert("found".into(), json!(true));
        let source_wanted = match &req.source {
            Some(f) => !f.disabled,
            None => req.stored_fields.as_ref().is_some_and(|f| f.iter().any(|x| x == "_source")),
        };
        if source_wanted && super::documents::source_enabled(&svc) {
            let all = SourceFilter::default();
            if let Some(s) = req.source.as_ref().unwrap_or(&all).apply(&src) {
                get.insert("_source".into(), s);
            }
        }
        if let Some(fields) = &req.stored_fields {
            let mut fm = Map::new();
            for f in fields {
                if mapping.field_type(f).is_some_and(|t| t.store == Some(true)) {
                    let vals = super::documents::extract_values(&src, f);
                    if !vals.is_empty() {
                        fm.insert(f.clone(), Value::Array(vals));
                    }
                }
            }
            if !fm.is_empty() {
                get.insert("fields".into(), Value::Object(fm));
            }
        }
        out.insert("get".into(), Value::Object(get));
    }
    let deferred = Deferred { warnings: sr.warnings.take(), ..Deferred::default() };
    Ok((200, Value::Object(out), deferred))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn body_takes_only_a_query() {
        assert_eq!(parse_body(&json!({"query": {"match_all": {}}})).unwrap(), Some(json!({"match_all": {}})));
        assert_eq!(parse_body(&Value::Null).unwrap(), None);
        let e = parse_body(&json!({"match_all": {}})).unwrap_err();
        assert_eq!((e.status, e.reason.as_str()), (400, "request does not support [match_all]"));
    }
}
