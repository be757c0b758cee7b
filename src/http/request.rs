//! A REST request as handlers see it: method, decoded path parameters, query parameters (typed
//! accessors with OpenSearch's errors) and the body.

use std::collections::HashMap;

use bytes::Bytes;
use serde_json::Value;

use crate::error::{ErrorKind, OsError, OsResult};

/// HTTP methods the router knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Method {
    Get,
    Head,
    Post,
    Put,
    Delete,
    Patch,
    Options,
}

impl Method {
    /// Parses an HTTP method name.
    pub fn parse(s: &str) -> Option<Method> {
        Some(match s {
            "GET" => Method::Get,
            "HEAD" => Method::Head,
            "POST" => Method::Post,
            "PUT" => Method::Put,
            "DELETE" => Method::Delete,
            "PATCH" => Method::Patch,
            "OPTIONS" => Method::Options,
            _ => return None,
        })
    }
    /// The name.
    pub fn name(self) -> &'static str {
        match self {
            Method::Get => "GET",
            Method::Head => "HEAD",
            Method::Post => "POST",
            Method::Put => "PUT",
            Method::Delete => "DELETE",
            Method::Patch => "PATCH",
            Method::Options => "OPTIONS",
        }
    }
}

/// One request.
#[derive(Debug, Clone)]
pub struct RestRequest {
    pub method: Method,
    /// The raw path (as sent, without the query string).
    pub path: String,
    /// `{name}` segments of the matched route, percent-decoded.
    pub path_params: HashMap<String, String>,
    /// Query parameters, percent-decoded; a repeated key keeps the last value.
    pub params: HashMap<String, String>,
    pub body: Bytes,
    /// The subject DN (RFC 2253) of the client certificate of an HTTPS connection, verified
    /// against `plugins.security.ssl.http.pemtrustedcas_filepath`; `None` on plain HTTP or
    /// without a client certificate. For the authentication slice (`authcz.admin_dn`).
    pub tls_peer_dn: Option<std::sync::Arc<str>>,
    /// The authenticated user when security is on (`None` when it is off).
    pub user: Option<std::sync::Arc<crate::security::User>>,
}

/// Percent-decodes a URL component (`+` stays `+` in paths; in queries it means space).
pub fn percent_decode(s: &str, plus_is_space: bool) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'%' if i + 2 < b.len() => {
                let hex = |c: u8| (c as char).to_digit(16);
                match (hex(b[i + 1]), hex(b[i + 2])) {
                    (Some(h), Some(l)) => {
                        out.push((h * 16 + l) as u8);
                        i += 3;
                    }
                    _ => {
                        out.push(b'%');
                        i += 1;
                    }
                }
            }
            b'+' if plus_is_space => {
                out.push(b' ');
                i += 1;
            }
            c => {
                out.push(c);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Parses a query string.
pub fn parse_query(q: &str) -> HashMap<String, String> {
    let mut m = HashMap::new();
    for pair in q.split('&').filter(|p| !p.is_empty()) {
        let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
        m.insert(percent_decode(k, true), percent_decode(v, true));
    }
    m
}

impl RestRequest {
    /// A path parameter.
    pub fn path_param(&self, name: &str) -> Option<&str> {
        self.path_params.get(name).map(String::as_str)
    }
    /// A query parameter.
    pub fn param(&self, name: &str) -> Option<&str> {
        self.params.get(name).map(String::as_str)
    }
    /// Whether a query parameter is present.
    pub fn has(&self, name: &str) -> bool {
        self.params.contains_key(name)
    }
    /// A boolean parameter (`""` and `true` are true) with OpenSearch's error for other values.
    pub fn bool_param(&self, name: &str, default: bool) -> OsResult<bool> {
        match self.param(name) {
            None => Ok(default),
            Some("") | Some("true") => Ok(true),
            Some("false") => Ok(false),
            Some(v) => {
                Err(OsError::illegal(format!("Failed to parse value [{v}] as only [true] or [false] are allowed.")))
            }
        }
    }
    /// An integer parameter.
    pub fn int_param(&self, name: &str) -> OsResult<Option<i64>> {
        match self.param(name) {
            None => Ok(None),
            Some(v) => v
                .parse::<i64>()
                .map(Some)
                .map_err(|_| OsError::illegal(format!("Failed to parse int parameter [{name}] with value [{v}]"))),
        }
    }
    /// A time parameter (`30s`, `1m`, `-1`).
    pub fn time_param(&self, name: &str) -> OsResult<Option<std::time::Duration>> {
        match self.param(name) {
            None => Ok(None),
            Some(v) => crate::cluster::settings::parse_time(v, name).map_err(|_| {
                OsError::new(ErrorKind::Parse, format!("failed to parse setting [{name}] with value [{v}] as a time value: unit is missing or unrecognized"))
            }),
        }
    }
    /// A comma-separated list parameter.
    pub fn list_param(&self, name: &str) -> Option<Vec<String>> {
        self.param(name).map(|v| v.split(',').map(str::trim).filter(|s| !s.is_empty()).map(str::to_string).collect())
    }
    /// Whether a body was sent.
    pub fn has_body(&self) -> bool {
        !self.body.iter().all(u8::is_ascii_whitespace)
    }
    /// The body as JSON (`Null` when empty).
    pub fn json(&self) -> OsResult<Value> {
        if !self.has_body() {
            return Ok(Value::Null);
        }
        parse_json(&self.body)
    }
    /// The body as JSON, or a 400 when there is none.
    pub fn required_json(&self) -> OsResult<Value> {
        if !self.has_body() {
            return Err(OsError::new(ErrorKind::Parse, "request body is required"));
        }
        parse_json(&self.body)
    }
}

/// Parses JSON with OpenSearch-like errors (a `parse_exception` naming line and column).
pub fn parse_json(bytes: &[u8]) -> OsResult<Value> {
    serde_json::from_slice(bytes).map_err(|e| {
        OsError::new(ErrorKind::Parse, "Failed to parse content to map".to_string()).caused_by(OsError::new(
            ErrorKind::JsonParse,
            format!("{e} at [Source: REDACTED; line: {}, column: {}]", e.line(), e.column()),
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes() {
        assert_eq!(percent_decode("a%2Cb", false), "a,b");
        assert_eq!(percent_decode("a+b", true), "a b");
        assert_eq!(percent_decode("a+b", false), "a+b");
        assert_eq!(percent_decode("%", false), "%");
        assert_eq!(percent_decode("%zz", false), "%zz");
        assert_eq!(percent_decode("%4", false), "%4");
        let q = parse_query("pretty&h=a%2Cb&v=true");
        assert_eq!(q["pretty"], "");
        assert_eq!(q["h"], "a,b");
    }
}
