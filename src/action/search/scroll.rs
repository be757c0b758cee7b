//! Scroll: `_search?scroll=` pins the shards as reader contexts of kind scroll in the node's
//! [`ReaderContexts`] (the same registry as point in time) with a shared cursor; each
//! `/_search/scroll` call runs the original request over the pinned contexts for the top `size`
//! hits of each shard AFTER the last hit that shard emitted ([`ScrollState`], OpenSearch's
//! `ScrollContext.lastEmittedDoc`), so pages follow the original sort over a frozen view at the
//! cost of one page each; `hits.total` (and `max_score`) stay the first page's.
//! Scroll ids are [`ContextId`]s of kind scroll.

use std::time::Duration;

use serde_json::{json, Value};

use super::context::acquire;
use super::execute::{search_contexts_with, ScrollState};
use super::pit::{
    all_missing, check_keep_alive, prepend, search_found_with, ContextId, ContextKind, ReaderContexts, ScrollCursor,
};
use super::request::SearchRequest;
use crate::cluster::resolve::IndicesOptions;
use crate::cluster::ClusterService;
use crate::engine::query::TrackTotalHits;
use crate::error::{ErrorKind, OsError, OsResult};

/// `search.default_keep_alive`.
#[cfg(test)]
pub const DEFAULT_KEEP_ALIVE: Duration = Duration::from_secs(300);

/// Checks a request that opens a scroll (OpenSearch's `SearchRequest.validate` in a scroll
/// context) and makes its total hits accurate.
pub fn validate(req: &mut SearchRequest) -> OsResult<()> {
    let mut errs = Vec::new();
    if req.track_total_hits_set && req.track_total_hits != TrackTotalHits::Accurate {
        errs.push("disabling [track_total_hits] is not allowed in a scroll context".to_string());
    }
    if req.from > 0 {
        errs.push("using [from] is not allowed in a scroll context".to_string());
    }
    if req.size == 0 {
        errs.push("[size] cannot be [0] in a scroll context".to_string());
    }
    if req.rescore.as_ref().is_some_and(|r| r.as_array().is_none_or(|a| !a.is_empty())) {
        errs.push("using [rescore] is not allowed in a scroll context".to_string());
    }
    if req.request_cache == Some(true) {
        errs.push("[request_cache] cannot be used in a scroll context".to_string());
    }
    if !errs.is_empty() {
        return Err(OsError::validation(&errs));
    }
    if req.search_after.is_some() {
        return Err(OsError::new(ErrorKind::Search, "`search_after` cannot be used in a scroll context.").status(400));
    }
    req.track_total_hits = TrackTotalHits::Accurate;
    Ok(())
}

/// `_search?scroll=`: the first page and `_scroll_id`.
pub fn start(
    cs: &ClusterService,
    reg: &ReaderContexts,
    expr: &str,
    opts: IndicesOptions,
    req: &SearchRequest,
    keep_alive: Duration,
) -> OsResult<Value> {
    check_keep_alive(keep_alive, "search.max_keep_alive")?;
    let mut req = req.clone();
    validate(&mut req)?;
    let (remote, unavailable) = super::remote::remote_targets(cs, expr, opts, &req)?;
    if !remote.is_empty() {
        return super::remote_scroll::start(cs, reg, expr, opts, &req, keep_alive, remote, unavailable);
    }
    let mut ctxs = acquire(cs, expr, opts)?;
    super::context::restrict(cs, &mut ctxs, req.routing.as_deref(), req.preference.as_deref())?;
    let window = ctxs.iter().map(|c| c.max_result_window).min().unwrap_or(super::context::DEFAULT_MAX_RESULT_WINDOW);
    if req.size > window {
        return Err(OsError::illegal(format!(
            "Batch size is too large, size must be less than or equal to: [{window}] but was [{}]. Scroll batch sizes cost as much memory as result windows so they are controlled by the [index.max_result_window] index level setting.",
            req.size
        )));
    }
    let mut state = ScrollState::default();
    let body = search_contexts_with(&ctxs, &req, Some(&mut state))?;
    let id = reg.register(ctxs, ContextKind::Scroll, keep_alive, None, Some(ScrollCursor { request: req, state }))?;
    Ok(prepend(body, "_scroll_id", json!(id)))
}

/// Decodes a scroll id.
pub fn decode(id: &str) -> OsResult<ContextId> {
    ContextId::decode(id, ContextKind::Scroll).ok_or_else(|| OsError::illegal("Cannot parse scroll id"))
}

/// `/_search/scroll`: the next page.
pub fn next(
    reg: &ReaderContexts,
    scroll_id: &str,
    keep_alive: Option<Duration>,
    rest_total_hits_as_int: Option<bool>,
) -> OsResult<Value> {
    if let Some(k) = keep_alive {
        check_keep_alive(k, "search.max_keep_alive")?;
    }
    let id = decode(scroll_id)?;
    let found = reg.find(&id, keep_alive);
    let Some(cursor) = found.cursor.clone() else {
        return Err(all_missing(&found.missing));
    };
    let mut cur = cursor.lock().unwrap_or_else(|e| e.into_inner());
    let mut req = cur.request.clone();
    if let Some(b) = rest_total_hits_as_int {
        req.rest_total_hits_as_int = b;
    }
    // A failed page leaves the scroll where it was.
    let mut state = cur.state.clone();
    let body = search_found_with(&found, &req, Some(&mut state))?;
    cur.state = state;
    Ok(prepend(body, "_scroll_id", json!(scroll_id)))
}

/// Clear scroll: `ids` or `_all`; `(status, {succeeded, num_freed})`, 404 when nothing was freed.
pub fn clear(reg: &ReaderContexts, ids: &[String]) -> OsResult<(u16, Value)> {
    let freed = if ids.iter().any(|i| i == "_all") {
        reg.free_all(ContextKind::Scroll).iter().map(|o| o.1).sum()
    } else {
        let decoded: Vec<ContextId> = ids.iter().map(|i| decode(i)).collect::<OsResult<_>>()?;
        decoded.iter().map(|d| reg.free(d)).sum::<usize>()
    };
    Ok((if freed == 0 { 404 } else { 200 }, json!({"succeeded": true, "num_freed": freed})))
}

/// The scroll ids of a body (`"scroll_id": "..."` or `[...]`).
pub fn body_scroll_ids(body: &Value) -> OsResult<Vec<String>> {
    match body.get("scroll_id") {
        None | Some(Value::Null) => Ok(vec![]),
        Some(Value::String(s)) => {
            Ok(s.split(',').map(str::trim).filter(|x| !x.is_empty()).map(str::to_string).collect())
        }
        Some(Value::Array(a)) => a
            .iter()
            .map(|v| {
                v.as_str()
                    .map(str::to_string)
                    .ok_or_else(|| OsError::parsing("[scroll_id] must be a string or a list of strings"))
            })
            .collect(),
        Some(_) => Err(OsError::parsing("[scroll_id] must be a string or a list of strings")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scroll_validation() {
        let mut r = SearchRequest { from: 3, ..SearchRequest::default() };
        let e = validate(&mut r).unwrap_err();
        assert!(e.reason.contains("using [from] is not allowed in a scroll context"), "{}", e.reason);
        let mut r = SearchRequest::default();
        validate(&mut r).expect("valid");
        assert_eq!(r.track_total_hits, TrackTotalHits::Accurate);
    }

    #[test]
    fn malformed_and_unknown_ids() {
        let reg = ReaderContexts::new(300);
        assert_eq!(next(&reg, "zzz", None, None).unwrap_err().reason, "Cannot parse scroll id");
        let (st, v) = clear(&reg, &["_all".to_string()]).expect("clear");
        assert_eq!((st, v["num_freed"].as_u64()), (404, Some(0)));
        let id = reg.register(vec![], ContextKind::Scroll, DEFAULT_KEEP_ALIVE, None, None).expect("register");
        assert_eq!(next(&reg, &id, None, None).unwrap_err().status, 404);
        assert!(body_scroll_ids(&json!({"scroll_id": ["a", "b"]})).expect("ids").len() == 2);
    }
}
