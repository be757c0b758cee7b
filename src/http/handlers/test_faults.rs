//! A hook for multi-process fault tests (OpenSearch's tests use `MockTransportService` in one
//! JVM; Fathom's cluster tests run real processes, so they reach the transport's fault rules
//! over HTTP). Present only on a node started with `fathom.test.fault_injection: true`; any
//! other node answers 400.
//!
//! `PUT /_fathom/test/faults` replaces the rules with the body's:
//! `{"partition": [node ids], "drop_outbound": [node ids], "delay_ms": {node id: ms}}`;
//! `DELETE /_fathom/test/faults` clears them. Answers the counts of dropped and delayed
//! messages so far.

use serde_json::{json, Value};

use crate::error::{OsError, OsResult};
use crate::http::render::RestResponse;
use crate::http::request::{Method, RestRequest};
use crate::http::router::{Pool, Router};
use crate::node::Node;
use crate::transport::FaultTarget;

/// The node setting that turns the hook on.
pub const SETTING: &str = "fathom.test.fault_injection";

fn transport(node: &Node) -> OsResult<&std::sync::Arc<crate::transport::Transport>> {
    if node.settings.get(SETTING) != Some("true") {
        return Err(OsError::illegal(format!("fault injection is off: start the node with [{SETTING}: true]")));
    }
    node.transport.get().ok_or_else(|| OsError::illegal("the transport is not bound yet"))
}

fn counts(t: &crate::transport::Transport) -> RestResponse {
    RestResponse::json(200, json!({"dropped": t.faults().dropped_count(), "delayed": t.faults().delayed_count()}))
}

fn node_ids(v: &Value, key: &str) -> OsResult<Vec<String>> {
    match v.get(key) {
        None => Ok(Vec::new()),
        Some(Value::Array(a)) => a
            .iter()
            .map(|x| x.as_str().map(str::to_string).ok_or_else(|| OsError::illegal(format!("[{key}] holds node ids"))))
            .collect(),
        Some(_) => Err(OsError::illegal(format!("[{key}] must be an array of node ids"))),
    }
}

fn put(node: &Node, req: &RestRequest) -> OsResult<RestResponse> {
    let t = transport(node)?;
    let body: Value = if req.has_body() { req.json()? } else { json!({}) };
    if let Some(k) = body
        .as_object()
        .and_then(|o| o.keys().find(|k| !["partition", "drop_outbound", "delay_ms"].contains(&k.as_str())))
    {
        return Err(OsError::illegal(format!("unknown fault [{k}]")));
    }
    let partition = node_ids(&body, "partition")?;
    let drop = node_ids(&body, "drop_outbound")?;
    let mut delays = Vec::new();
    if let Some(d) = body.get("delay_ms") {
        let o = d.as_object().ok_or_else(|| OsError::illegal("[delay_ms] must map node ids to milliseconds"))?;
        for (id, ms) in o {
            let ms = ms.as_u64().ok_or_else(|| OsError::illegal("[delay_ms] values are milliseconds"))?;
            delays.push((id.clone(), std::time::Duration::from_millis(ms)));
        }
    }
    let f = t.faults();
    f.clear_all();
    for id in partition {
        f.partition(FaultTarget::Node(id)).map_err(OsError::illegal)?;
    }
    for id in drop {
        f.drop_all(FaultTarget::Node(id)).map_err(OsError::illegal)?;
    }
    for (id, by) in delays {
        f.delay(FaultTarget::Node(id), by).map_err(OsError::illegal)?;
    }
    Ok(counts(t))
}

fn clear(node: &Node, _req: &RestRequest) -> OsResult<RestResponse> {
    let t = transport(node)?;
    t.faults().clear_all();
    Ok(counts(t))
}

/// Registers the routes.
pub fn register(r: &mut Router) {
    r.add(&[Method::Put], "/_fathom/test/faults", "fathom:test_faults", Pool::Management, &[], put);
    r.add(&[Method::Delete], "/_fathom/test/faults", "fathom:test_faults", Pool::Management, &[], clear);
}
