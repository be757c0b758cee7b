//! `GET /_fathom/`: the status page, one HTML file embedded in the binary (no external assets).
//! Its script reads the public APIs (`_cluster/health`, `_nodes/stats`, `_cat/indices`,
//! `_cat/shards`, `_tasks`, `_recovery`) every two seconds and has a request console; it holds no
//! figure of its own.

use crate::error::OsResult;
use crate::http::render::{Body, RestResponse};
use crate::http::request::{Method, RestRequest};
use crate::http::router::{Pool, Router};
use crate::node::Node;

/// The page.
pub const PAGE: &str = include_str!("../status_page.html");

fn page(_: &Node, _: &RestRequest) -> OsResult<RestResponse> {
    // A HEAD answer keeps the headers (type, length) and drops the body when it is sent.
    let mut resp = RestResponse::status(200);
    resp.body = Body::Html(PAGE);
    resp.headers.push(("Cache-Control".into(), "no-store".into()));
    Ok(resp)
}

/// Registers the routes.
pub fn register(r: &mut Router) {
    // The router ignores a trailing slash: this is `/_fathom` and `/_fathom/`.
    r.add(&[Method::Get, Method::Head], "/_fathom", "cluster:monitor/fathom/status_page", Pool::Management, &[], page);
}

#[cfg(test)]
mod tests {
    use super::PAGE;

    #[test]
    fn the_page_is_self_contained() {
        assert!(PAGE.starts_with("<!DOCTYPE html>"));
        for external in ["src=\"http", "href=\"http", "@import", "src=\"//", "href=\"//"] {
            assert!(!PAGE.contains(external), "the page must not load {external}");
        }
        for id in ["health-status", "nodes", "indices", "tasks", "console-send", "console-response"] {
            assert!(PAGE.contains(&format!("id=\"{id}\"")), "{id}");
        }
    }
}
