//! `source.remote` of a reindex: parsed as OpenSearch's `RemoteInfo` (host of the form
//! `scheme://host:port[/pathPrefix]`, credentials, headers, timeouts) and checked against the
//! node setting `reindex.remote.allowlist` (`host:port` patterns with `*` wildcards).

use std::time::Duration;

use serde_json::{Map, Value};

use crate::error::{ErrorKind, OsError, OsResult};

/// A parsed `source.remote`.
#[derive(Debug, Clone, PartialEq)]
pub struct RemoteInfo {
    pub scheme: String,
    pub host: String,
    pub port: u16,
    pub path_prefix: Option<String>,
    pub username: Option<String>,
    pub password: Option<String>,
    pub headers: Vec<(String, String)>,
    pub socket_timeout: Duration,
    pub connect_timeout: Duration,
}

/// `RemoteInfo.DEFAULT_SOCKET_TIMEOUT` and `DEFAULT_CONNECT_TIMEOUT`.
const DEFAULT_SOCKET_TIMEOUT: Duration = Duration::from_secs(30);
const DEFAULT_CONNECT_TIMEOUT: Duration = Duration::from_secs(30);

fn timeout(key: &str, v: &Value) -> OsResult<Duration> {
    let s = v.as_str().map_or_else(|| v.to_string(), str::to_string);
    let bad = || OsError::new(ErrorKind::NumberFormat, format!("For input string: \"{s}\""));
    match crate::cluster::settings::parse_time(&s, key) {
        Ok(Some(d)) => Ok(d),
        Ok(None) => Ok(Duration::ZERO),
        Err(_) => Err(bad()),
    }
}

fn host_error(host: &str) -> OsError {
    OsError::illegal(format!("[host] must be of the form [scheme]://[host]:[port](/[pathPrefix])? but was [{host}]"))
}

impl RemoteInfo {
    /// Parses `source.remote` (`ReindexRequest.buildRemoteInfo`).
    pub fn parse(v: &Value) -> OsResult<RemoteInfo> {
        let Some(m) = v.as_object() else {
            return Err(OsError::new(
                ErrorKind::XContentParse,
                "[source] remote doesn't support values of type: VALUE",
            ));
        };
        let mut rest: Map<String, Value> = m.clone();
        let host_given = rest.shift_remove("host").and_then(|h| h.as_str().map(str::to_string)).unwrap_or_default();
        let (scheme, after) = host_given.split_once("://").ok_or_else(|| host_error(&host_given))?;
        let (authority, path) = match after.find('/') {
            Some(i) => (&after[..i], Some(after[i..].to_string())),
            None => (after, None),
        };
        let (host, port) = authority.rsplit_once(':').ok_or_else(|| host_error(&host_given))?;
        let port: u16 = port.parse().map_err(|_| host_error(&host_given))?;
        if scheme.is_empty() || scheme.contains(':') || host.is_empty() {
            return Err(host_error(&host_given));
        }
        let text = |v: Option<Value>| v.and_then(|v| v.as_str().map(str::to_string));
        let username = text(rest.shift_remove("username"));
        let password = text(rest.shift_remove("password"));
        let mut headers = Vec::new();
        if let Some(Value::Object(h)) = rest.shift_remove("headers") {
            for (k, v) in h {
                headers.push((k, v.as_str().map_or_else(|| v.to_string(), str::to_string)));
            }
        }
        let socket_timeout = match rest.shift_remove("socket_timeout") {
            Some(v) => timeout("socket_timeout", &v)?,
            None => DEFAULT_SOCKET_TIMEOUT,
        };
        let connect_timeout = match rest.shift_remove("connect_timeout") {
            Some(v) => timeout("connect_timeout", &v)?,
            None => DEFAULT_CONNECT_TIMEOUT,
        };
        if !rest.is_empty() {
            let keys: Vec<&str> = rest.keys().map(String::as_str).collect();
            return Err(OsError::illegal(format!("Unsupported fields in [remote]: [{}]", keys.join(","))));
        }
        Ok(RemoteInfo {
            scheme: scheme.to_string(),
            host: host.to_string(),
            port,
            path_prefix: path,
            username,
            password,
            headers,
            socket_timeout,
            connect_timeout,
        })
    }

    /// `host:port`, as the allowlist matches it.
    pub fn authority(&self) -> String {
        format!("{}:{}", self.host, self.port)
    }

    /// The base URL (`scheme://host:port[/prefix]`).
    pub fn base_url(&self) -> String {
        format!("{}://{}:{}{}", self.scheme, self.host, self.port, self.path_prefix.as_deref().unwrap_or(""))
    }
}

/// `*` glob matching (OpenSearch's `Regex.simpleMatch`).
fn glob(pattern: &str, s: &str) -> bool {
    let parts: Vec<&str> = pattern.split('*').collect();
    if parts.len() == 1 {
        return pattern == s;
    }
    let mut rest = s;
    for (i, p) in parts.iter().enumerate() {
        if i == 0 {
            match rest.strip_prefix(p) {
                Some(r) => rest = r,
                None => return false,
            }
        } else if i == parts.len() - 1 {
            return rest.ends_with(p);
        } else {
            match rest.find(p) {
                Some(at) => rest = &rest[at + p.len()..],
                None => return false,
            }
        }
    }
    true
}

/// Checks the remote against `reindex.remote.allowlist` (comma-separated `host:port` patterns;
/// empty: no remote is allowed).
pub fn check_allowlist(allowlist: Option<&str>, r: &RemoteInfo) -> OsResult<()> {
    let authority = r.authority();
    let allowed = allowlist
        .map(|l| l.trim_matches(|c| c == '[' || c == ']'))
        .into_iter()
        .flat_map(|l| l.split(','))
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .any(|p| glob(p, &authority));
    if allowed {
        Ok(())
    } else {
        Err(OsError::illegal(format!("[{authority}] not allowlisted in reindex.remote.allowlist")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn host_forms_and_junk() {
        let r = RemoteInfo::parse(&json!({"host": "http://okremote:9200/pre"})).expect("parsed");
        assert_eq!((r.host.as_str(), r.port, r.path_prefix.as_deref()), ("okremote", 9200, Some("/pre")));
        let e = RemoteInfo::parse(&json!({"host": "badremote", "weird": 1})).unwrap_err();
        assert!(e.reason.contains("[host] must be of the form"), "{}", e.reason);
        let e = RemoteInfo::parse(&json!({"host": "http://ok:9200", "weird": "stuff", "badkey": "b"})).unwrap_err();
        assert_eq!(e.reason, "Unsupported fields in [remote]: [weird,badkey]");
        let e = RemoteInfo::parse(&json!({"host": "http://ok:9200", "socket_timeout": "borked"})).unwrap_err();
        assert_eq!(e.kind, ErrorKind::NumberFormat);
    }

    #[test]
    fn allowlist() {
        let r = RemoteInfo::parse(&json!({"host": "http://badremote:9200"})).expect("parsed");
        let e = check_allowlist(None, &r).unwrap_err();
        assert_eq!(e.reason, "[badremote:9200] not allowlisted in reindex.remote.allowlist");
        check_allowlist(Some("127.0.0.1:*, badremote:9200"), &r).expect("allowed");
        assert!(check_allowlist(Some("127.0.0.1:*"), &r).is_err());
    }
}
