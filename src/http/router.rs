//! The route table: method, path pattern, action name, thread pool, accepted parameters and
//! handler. Matching prefers literal segments over `{params}` at each position, as OpenSearch's
//! path trie does; a path that matches with another method is a 405.

use std::collections::HashMap;

use super::render::RestResponse;
use super::request::{percent_decode, Method, RestRequest};
use crate::error::{OsError, OsResult};
use crate::node::Node;

/// A handler: runs on the route's thread pool.
pub type Handler = fn(&Node, &RestRequest) -> OsResult<RestResponse>;

/// Which named pool runs a route's handler.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pool {
    Write,
    Search,
    Get,
    Management,
    /// `_refresh`, `_flush`, `_forcemerge`: their own pools, as OpenSearch runs them.
    Refresh,
    Flush,
    ForceMerge,
}

#[derive(Debug, Clone)]
enum Seg {
    Lit(&'static str),
    Param(&'static str),
}

/// One route.
#[derive(Debug, Clone)]
pub struct Route {
    pub method: Method,
    pub pattern: &'static str,
    segs: Vec<Seg>,
    pub action: &'static str,
    pub pool: Pool,
    pub params: &'static [&'static str],
    pub handler: Handler,
}

/// Parameters every endpoint accepts.
pub const COMMON_PARAMS: &[&str] =
    &["pretty", "human", "error_trace", "filter_path", "format", "source", "source_content_type"];

/// The table.
#[derive(Debug, Default)]
pub struct Router {
    routes: Vec<Route>,
}

/// The outcome of matching a path.
#[derive(Debug)]
pub enum Match<'a> {
    Found(&'a Route, HashMap<String, String>),
    /// The path exists with other methods.
    WrongMethod(Vec<Method>),
    NotFound,
}

fn split(path: &str) -> Vec<&str> {
    path.split('/').filter(|s| !s.is_empty()).collect()
}

impl Router {
    /// Every route, in the order added (one per method).
    pub fn routes(&self) -> &[Route] {
        &self.routes
    }

    /// Adds a route for each method.
    pub fn add(
        &mut self,
        methods: &[Method],
        pattern: &'static str,
        action: &'static str,
        pool: Pool,
        params: &'static [&'static str],
        handler: Handler,
    ) {
        let segs: Vec<Seg> = split(pattern)
            .into_iter()
            .map(|s| match s.strip_prefix('{').and_then(|s| s.strip_suffix('}')) {
                Some(p) => Seg::Param(p),
                None => Seg::Lit(s),
            })
            .collect();
        for m in methods {
            self.routes.push(Route { method: *m, pattern, segs: segs.clone(), action, pool, params, handler });
        }
    }

    /// Finds the route for a method and path.
    pub fn find(&self, method: Method, path: &str) -> Match<'_> {
        let parts = split(path);
        // Score: literal matches first at each position, a bit per segment with the first
        // segment as the most significant bit, so comparing scores compares the segments in
        // order (no pattern has more than a handful of segments).
        let mut best: Option<(u64, &Route)> = None;
        let mut methods = Vec::new();
        let mut best_any: Option<u64> = None;
        for r in &self.routes {
            if r.segs.len() != parts.len() {
                continue;
            }
            let mut score = 0u64;
            let mut ok = true;
            for (i, (s, p)) in r.segs.iter().zip(&parts).enumerate() {
                match s {
                    Seg::Lit(l) => {
                        if l != p {
                            ok = false;
                            break;
                        }
                        if i < 64 {
                            score |= 1 << (63 - i);
                        }
                    }
                    // A parameter matches any segment; the literal-first scoring picks the
                    // more specific route, as OpenSearch's trie does.
                    Seg::Param(_) => {}
                }
            }
            if !ok {
                continue;
            }
            if best_any.is_none_or(|b| score > b) {
                best_any = Some(score);
                methods.clear();
            }
            if best_any == Some(score) && !methods.contains(&r.method) {
                methods.push(r.method);
            }
            let method_ok = r.method == method
                || (method == Method::Head && r.method == Method::Get && !self.has_explicit_head(r.pattern));
            if method_ok && best.is_none_or(|(b, _)| score > b) {
                best = Some((score, r));
            }
        }
        match best {
            Some((score, r)) if Some(score) == best_any || best_any.is_none() => {
                let mut params = HashMap::new();
                for (s, p) in r.segs.iter().zip(&parts) {
                    if let Seg::Param(name) = s {
                        params.insert((*name).to_string(), percent_decode(p, false));
                    }
                }
                Match::Found(r, params)
            }
            Some((_, r)) => {
                // A less specific route matched the method; OpenSearch's trie would have walked into the
                // more specific branch and answered 405. Keep OpenSearch's behaviour.
                let _ = r;
                Match::WrongMethod(methods)
            }
            None if !methods.is_empty() => Match::WrongMethod(methods),
            None => Match::NotFound,
        }
    }

    fn has_explicit_head(&self, pattern: &str) -> bool {
        self.routes.iter().any(|r| r.pattern == pattern && r.method == Method::Head)
    }
}

/// Rejects parameters the route does not accept, with OpenSearch's message.
pub fn check_params(route: &Route, req: &RestRequest) -> OsResult<()> {
    let mut unknown: Vec<&str> = req
        .params
        .keys()
        .map(String::as_str)
        .filter(|k| !COMMON_PARAMS.contains(k) && !route.params.contains(k) && !route.params.contains(&"*"))
        .collect();
    if unknown.is_empty() {
        return Ok(());
    }
    unknown.sort_unstable();
    let mut msg =
        format!("request [{}] contains unrecognized parameter{}: ", req.path, if unknown.len() > 1 { "s" } else { "" });
    let parts: Vec<String> = unknown
        .iter()
        .map(|u| {
            let similar: Vec<&str> =
                route.params.iter().copied().filter(|p| crate::error::similarity(u, p) >= 0.7).collect();
            if similar.is_empty() {
                format!("[{u}]")
            } else {
                format!("[{u}] -> did you mean [{}]?", similar.join(", "))
            }
        })
        .collect();
    msg.push_str(&parts.join(", "));
    Err(OsError::illegal(msg))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::http::render::RestResponse;

    fn h(_: &Node, _: &RestRequest) -> OsResult<RestResponse> {
        Ok(RestResponse::status(200))
    }

    #[test]
    fn literal_beats_param() {
        let mut r = Router::default();
        r.add(&[Method::Get], "/{index}", "get_index", Pool::Management, &[], h);
        r.add(&[Method::Get], "/_cat", "cat", Pool::Management, &[], h);
        r.add(&[Method::Get, Method::Put], "/{index}/_doc/{id}", "doc", Pool::Write, &[], h);
        match r.find(Method::Get, "/_cat") {
            Match::Found(rt, _) => assert_eq!(rt.action, "cat"),
            other => panic!("{other:?}"),
        }
        match r.find(Method::Get, "/idx/_doc/a%2Fb") {
            Match::Found(rt, p) => {
                assert_eq!(rt.action, "doc");
                assert_eq!(p["id"], "a/b");
            }
            other => panic!("{other:?}"),
        }
        assert!(matches!(r.find(Method::Delete, "/idx/_doc/1"), Match::WrongMethod(_)));
        assert!(matches!(r.find(Method::Get, "/a/b/c/d"), Match::NotFound));
        // HEAD falls back to GET.
        assert!(matches!(r.find(Method::Head, "/idx"), Match::Found(..)));
    }

    #[test]
    fn an_earlier_literal_outranks_a_later_one() {
        let mut r = Router::default();
        r.add(&[Method::Get], "/{index}/_b", "later", Pool::Management, &[], h);
        r.add(&[Method::Get], "/_a/{x}", "earlier", Pool::Management, &[], h);
        r.add(&[Method::Get], "/{index}/{y}", "none", Pool::Management, &[], h);
        match r.find(Method::Get, "/_a/_b") {
            Match::Found(rt, p) => {
                assert_eq!(rt.action, "earlier");
                assert_eq!(p["x"], "_b");
            }
            other => panic!("{other:?}"),
        }
        match r.find(Method::Get, "/i/_b") {
            Match::Found(rt, _) => assert_eq!(rt.action, "later"),
            other => panic!("{other:?}"),
        }
        match r.find(Method::Get, "/i/j") {
            Match::Found(rt, _) => assert_eq!(rt.action, "none"),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn similar_names() {
        assert!(crate::error::similarity("pretyy", "pretty") >= 0.7);
        assert!(crate::error::similarity("foo", "refresh") < 0.7);
    }
}
