//! `POST /_cluster/voting_config_exclusions` (and its deprecated `/{node_name}` form) and
//! `DELETE /_cluster/voting_config_exclusions`. Both answer 200 with an empty body, as
//! OpenSearch's empty responses render.

use crate::action::voting_config::{self, add_request};
use crate::error::OsResult;
use crate::http::render::RestResponse;
use crate::http::request::{Method, RestRequest};
use crate::http::router::{Pool, Router};
use crate::node::Node;

/// The warning of the deprecated route (`RestAddVotingConfigExclusionAction`).
const DEPRECATED_ROUTE: &str = "POST /_cluster/voting_config_exclusions/{node_name} will be removed in a future version. Please use POST /_cluster/voting_config_exclusions?node_ids=... or POST /_cluster/voting_config_exclusions?node_names=... instead.";

/// The warning of a request with node descriptions (`AddVotingConfigExclusionsRequest`).
const DEPRECATED_DESCRIPTIONS: &str =
    "nodeDescription is deprecated and will be removed, use nodeIds or nodeNames instead";

fn add(node: &Node, req: &RestRequest) -> OsResult<RestResponse> {
    let deprecated_route = req.path_param("node_name").is_some();
    let descriptions = req.path_param("node_name").or_else(|| req.param("node_name"));
    let r = add_request(descriptions, req.param("node_ids"), req.param("node_names"), req.param("timeout"))?;
    let uses_descriptions = !r.targets.descriptions().is_empty();
    voting_config::add(&node.cluster, &r)?;
    let mut resp = RestResponse::status(200);
    if deprecated_route {
        resp = resp.warn(DEPRECATED_ROUTE);
    }
    if uses_descriptions {
        resp = resp.warn(DEPRECATED_DESCRIPTIONS);
    }
    Ok(resp)
}

fn clear(node: &Node, req: &RestRequest) -> OsResult<RestResponse> {
    let wait_for_removal = req.bool_param("wait_for_removal", true)?;
    voting_config::clear(&node.cluster, wait_for_removal)?;
    Ok(RestResponse::status(200))
}

/// OpenSearch's handlers read only these (no `master_timeout`: it is refused there too).
const ADD_P: &[&str] = &["node_ids", "node_names", "node_name", "timeout"];
const CLEAR_P: &[&str] = &["wait_for_removal"];

/// Registers the routes (on the management pool: adding and clearing wait).
pub fn register(r: &mut Router) {
    use Method::*;
    const ADD: &str = "cluster:admin/voting_config/add_exclusions";
    r.add(&[Post], "/_cluster/voting_config_exclusions", ADD, Pool::Management, ADD_P, add);
    r.add(&[Post], "/_cluster/voting_config_exclusions/{node_name}", ADD, Pool::Management, ADD_P, add);
    r.add(
        &[Delete],
        "/_cluster/voting_config_exclusions",
        "cluster:admin/voting_config/clear_exclusions",
        Pool::Management,
        CLEAR_P,
        clear,
    );
}
