//! Ingest APIs: `_ingest/pipeline` (put, get, delete), `_ingest/pipeline[/{id}]/_simulate`,
//! `_ingest/processor/grok` (the built-in grok pattern bank).

use crate::action::ingest::{self, simulate};
use crate::error::OsResult;
use crate::http::render::RestResponse;
use crate::http::request::{Method, RestRequest};
use crate::http::router::{Pool, Router};
use crate::node::Node;

fn put(node: &Node, req: &RestRequest) -> OsResult<RestResponse> {
    let body = req.required_json()?;
    let id = req.path_param("id").unwrap_or_default();
    Ok(RestResponse::ok(ingest::put(&node.cluster, id, &body)?))
}

fn get(node: &Node, req: &RestRequest) -> OsResult<RestResponse> {
    let (status, body) = ingest::get(&node.cluster.metadata(), req.path_param("id"));
    Ok(RestResponse::json(status, body))
}

fn delete(node: &Node, req: &RestRequest) -> OsResult<RestResponse> {
    let id = req.path_param("id").unwrap_or_default();
    Ok(RestResponse::ok(ingest::delete(&node.cluster, id)?))
}

fn run_simulate(node: &Node, req: &RestRequest) -> OsResult<RestResponse> {
    let body = req.required_json()?;
    let verbose = req.bool_param("verbose", false)?;
    let md = node.cluster.metadata();
    Ok(RestResponse::ok(simulate::simulate(&md, req.path_param("id"), &body, verbose)?))
}

fn grok_patterns(_node: &Node, req: &RestRequest) -> OsResult<RestResponse> {
    let sorted = req.bool_param("s", false)?;
    Ok(RestResponse::ok(serde_json::json!({"patterns": ingest::processors::grok::bank_json(sorted)})))
}

const PUT_P: &[&str] = &["timeout", "master_timeout", "cluster_manager_timeout"];
const GET_P: &[&str] = &["master_timeout", "cluster_manager_timeout"];
const SIM_P: &[&str] = &["verbose"];
const GROK_P: &[&str] = &["s"];

/// Registers the routes.
pub fn register(r: &mut Router) {
    use Method::*;
    r.add(&[Put], "/_ingest/pipeline/{id}", "cluster:admin/ingest/pipeline/put", Pool::Management, PUT_P, put);
    r.add(&[Get], "/_ingest/pipeline", "cluster:admin/ingest/pipeline/get", Pool::Management, GET_P, get);
    r.add(&[Get], "/_ingest/pipeline/{id}", "cluster:admin/ingest/pipeline/get", Pool::Management, GET_P, get);
    r.add(
        &[Get],
        "/_ingest/processor/grok",
        "cluster:admin/ingest/processor/grok/get",
        Pool::Management,
        GROK_P,
        grok_patterns,
    );
    r.add(&[Delete], "/_ingest/pipeline/{id}", "cluster:admin/ingest/pipeline/delete", Pool::Management, PUT_P, delete);
    r.add(
        &[Get, Post],
        "/_ingest/pipeline/_simulate",
        "cluster:admin/ingest/pipeline/simulate",
        Pool::Write,
        SIM_P,
        run_simulate,
    );
    r.add(
        &[Get, Post],
        "/_ingest/pipeline/{id}/_simulate",
        "cluster:admin/ingest/pipeline/simulate",
        Pool::Write,
        SIM_P,
        run_simulate,
    );
}
