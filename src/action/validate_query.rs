//! `GET/POST [/{index}]/_validate/query`: whether a query parses and builds against each
//! index's mapping, as OpenSearch's `TransportValidateQueryAction` answers `valid`/`error`.
//!
//! `explain`/`rewrite` of a valid query print Lucene's `Query.toString()`, which Fathom's engine
//! has no equivalent of: they are refused with a 400 rather than answered with another format.

use super::deferred::Deferred;
use serde_json::{json, Value};

use super::search::dsl::QueryContext;
use super::search::execute::build_query;
use super::search::request::QueryStringParams;
use super::search::{acquire, SearchRequest};
use crate::clock::now_millis;
use crate::cluster::resolve::IndicesOptions;
use crate::cluster::ClusterService;
use crate::error::{ErrorKind, OsError, OsResult};

/// A validate-query request. `parse_error` is a failure of reading the body (OpenSearch
/// answers it as `valid: false` too, with the error when `explain` is set).
#[derive(Debug, Clone, Default)]
pub struct ValidateRequest {
    pub query: Option<Value>,
    pub q: Option<QueryStringParams>,
    pub explain: bool,
    pub rewrite: bool,
    pub parse_error: Option<OsError>,
}

fn invalid(e: &OsError, explain: bool) -> Value {
    let mut v = json!({"valid": false});
    if explain {
        v["error"] = json!(e.detailed_message());
    }
    v
}

/// The response body (always a 200, as OpenSearch's).
pub fn validate(
    cs: &ClusterService,
    expr: &str,
    opts: IndicesOptions,
    req: &ValidateRequest,
) -> OsResult<(Value, Deferred)> {
    if let Some(e) = &req.parse_error {
        return Ok((invalid(e, req.explain), Deferred::default()));
    }
    let ctxs = acquire(cs, expr, opts)?;
    let sr = SearchRequest { query: req.query.clone(), q: req.q.clone(), ..SearchRequest::default() };
    let mut valid = true;
    let mut error = None;
    for c in &ctxs {
        let segs = &c.reader.query().segments;
        let qc = QueryContext {
            mapping: &c.mapping,
            analyzers: &c.analyzers,
            segments: segs,
            index: &c.index,
            now_millis: now_millis(),
            analysis: c.analysis.as_deref(),
            max_regex_length: c.limits.max_regex_length,
            warnings: &sr.warnings,
            nested_scope: None,
            allow_expensive: crate::action::search::allow_expensive_queries(cs),
        };
        if let Err(e) = build_query(&sr, &qc) {
            // A query that does not parse fails in OpenSearch's REST layer, before any shard.
            if e.kind == ErrorKind::Parsing || e.kind == ErrorKind::XContentParse {
                return Ok((invalid(&e, req.explain), Deferred::default()));
            }
            c.report_corruption("validate", &e);
            valid = false;
            error = Some(format!("[{}/{}] {}", c.index, c.index_uuid, e.detailed_message().trim()));
            break;
        }
    }
    if valid && (req.explain || req.rewrite) {
        return Err(OsError::illegal(
            "[explain] and [rewrite] of a valid query are not supported: Fathom has no Lucene query to print",
        ));
    }
    // One shard per index answers, as OpenSearch picks one random shard per index.
    let mut indices: Vec<&str> = ctxs.iter().map(|c| c.index.as_str()).collect();
    indices.dedup();
    let mut v = json!({"_shards": {"total": indices.len(), "successful": indices.len(), "failed": 0}, "valid": valid});
    if let (Some(e), true) = (error, req.explain) {
        v["explanations"] = json!([{"index": indices.first(), "valid": false, "error": e}]);
    }
    Ok((v, Deferred { warnings: sr.warnings.take(), ..Deferred::default() }))
}
