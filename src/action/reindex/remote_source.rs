//! Hits from a remote cluster (`source.remote`): a scroll over its REST API (`_search?scroll=`,
//! `_search/scroll`, clear scroll), through a small blocking HTTP/1.1 client (one connection
//! per request, `Connection: close`; `http` only: an `https` remote is refused with a clear
//! error). Credentials go as basic auth, `headers` as given.

use std::io::{Read, Write};
use std::net::{TcpStream, ToSocketAddrs};

use base64::Engine;
use serde_json::{json, Map, Value};

use super::pages::{page_of, Page, Pages};
use super::remote::RemoteInfo;
use super::request::Job;
use crate::error::{OsError, OsResult};

/// Bytes of a remote answer at most (a page of 1000 large documents fits).
const MAX_ANSWER: usize = 512 << 20;

/// A scroll over a remote cluster.
pub struct RemoteScroll {
    remote: RemoteInfo,
    job: Job,
    batch: usize,
    scroll_id: Option<String>,
}

impl RemoteScroll {
    pub fn new(remote: RemoteInfo, job: &Job, max_docs: Option<u64>) -> RemoteScroll {
        let mut batch = job.search.size.max(1);
        if let Some(m) = max_docs {
            batch = batch.min(m.max(1) as usize);
        }
        RemoteScroll { remote, job: job.clone(), batch, scroll_id: None }
    }

    fn keep_alive(&self) -> String {
        format!("{}ms", self.job.scroll.as_millis())
    }
}

fn remote_error(r: &RemoteInfo, what: impl std::fmt::Display) -> OsError {
    OsError::illegal(format!("remote reindex from [{}] failed: {what}", r.base_url()))
}

/// One request to the remote; answers status and body.
pub fn call(r: &RemoteInfo, method: &str, path: &str, body: Option<&Value>) -> OsResult<(u16, Value)> {
    if r.scheme != "http" {
        return Err(remote_error(r, format!("scheme [{}] is not supported (only http)", r.scheme)));
    }
    let addr = (r.host.as_str(), r.port)
        .to_socket_addrs()
        .map_err(|e| remote_error(r, e))?
        .next()
        .ok_or_else(|| remote_error(r, "no address"))?;
    let mut s = TcpStream::connect_timeout(&addr, r.connect_timeout.max(std::time::Duration::from_millis(1)))
        .map_err(|e| remote_error(r, e))?;
    let timeout = Some(r.socket_timeout.max(std::time::Duration::from_millis(1)));
    s.set_read_timeout(timeout).map_err(|e| remote_error(r, e))?;
    s.set_write_timeout(timeout).map_err(|e| remote_error(r, e))?;
    let payload = body.map(|b| serde_json::to_vec(b).unwrap_or_default()).unwrap_or_default();
    let prefix = r.path_prefix.as_deref().unwrap_or("").trim_end_matches('/');
    let mut head = format!(
        "{method} {prefix}{path} HTTP/1.1\r\nHost: {}:{}\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: {}\r\n",
        r.host,
        r.port,
        payload.len()
    );
    if let Some(u) = &r.username {
        let cred =
            base64::engine::general_purpose::STANDARD.encode(format!("{u}:{}", r.password.as_deref().unwrap_or("")));
        head.push_str(&format!("Authorization: Basic {cred}\r\n"));
    }
    for (k, v) in &r.headers {
        if !k.contains(['\r', '\n']) && !v.contains(['\r', '\n']) {
            head.push_str(&format!("{k}: {v}\r\n"));
        }
    }
    head.push_str("\r\n");
    s.write_all(head.as_bytes()).and_then(|_| s.write_all(&payload)).map_err(|e| remote_error(r, e))?;
    let mut raw = Vec::new();
    s.take(MAX_ANSWER as u64).read_to_end(&mut raw).map_err(|e| remote_error(r, e))?;
    let (status, body) = parse_response(&raw).ok_or_else(|| remote_error(r, "malformed HTTP answer"))?;
    let v =
        if body.is_empty() { Value::Null } else { serde_json::from_slice(&body).map_err(|e| remote_error(r, e))? };
    Ok((status, v))
}

/// Status and body of an HTTP/1.1 answer (plain or chunked).
fn parse_response(raw: &[u8]) -> Option<(u16, Vec<u8>)> {
    let end = raw.windows(4).position(|w| w == b"\r\n\r\n")?;
    let head = std::str::from_utf8(&raw[..end]).ok()?;
    let mut lines = head.split("\r\n");
    let status: u16 = lines.next()?.split(' ').nth(1)?.parse().ok()?;
    let chunked = lines.any(|l| {
        let l = l.to_ascii_lowercase();
        l.starts_with("transfer-encoding:") && l.contains("chunked")
    });
    let rest = &raw[end + 4..];
    if !chunked {
        return Some((status, rest.to_vec()));
    }
    let mut out = Vec::new();
    let mut at = 0;
    loop {
        let nl = rest[at..].windows(2).position(|w| w == b"\r\n")?;
        let size_text = std::str::from_utf8(&rest[at..at + nl]).ok()?;
        let size = usize::from_str_radix(size_text.split(';').next()?.trim(), 16).ok()?;
        at += nl + 2;
        if size == 0 {
            return Some((status, out));
        }
        out.extend_from_slice(rest.get(at..at + size)?);
        at += size + 2;
    }
}

fn checked(r: &RemoteInfo, (status, v): (u16, Value)) -> OsResult<Value> {
    if status >= 300 {
        let mut e = OsError::from_json(v.get("error").unwrap_or(&v), status);
        if e.reason.is_empty() {
            e = remote_error(r, format!("status [{status}]"));
        }
        return Err(e.status(status));
    }
    Ok(v)
}

impl Pages for RemoteScroll {
    fn first(&mut self) -> OsResult<Page> {
        let s = &self.job.search;
        let mut body = Map::new();
        body.insert("size".into(), json!(self.batch));
        if let Some(q) = &s.query {
            body.insert("query".into(), q.clone());
        }
        if s.source_set {
            let mut f = Map::new();
            f.insert("includes".into(), json!(s.source.includes));
            f.insert("excludes".into(), json!(s.source.excludes));
            body.insert("_source".into(), Value::Object(f));
        }
        let index = if self.job.source.is_empty() { "_all".to_string() } else { self.job.source.clone() };
        let path = format!("/{index}/_search?scroll={}&version=true", self.keep_alive());
        let v = checked(&self.remote, call(&self.remote, "POST", &path, Some(&Value::Object(body)))?)?;
        self.scroll_id = v["_scroll_id"].as_str().map(str::to_string);
        page_of(v)
    }

    fn next(&mut self) -> OsResult<Page> {
        let Some(id) = self.scroll_id.clone() else { return Ok(Page::default()) };
        let body = json!({"scroll_id": id, "scroll": self.keep_alive()});
        let v = checked(&self.remote, call(&self.remote, "POST", "/_search/scroll", Some(&body))?)?;
        if let Some(id) = v["_scroll_id"].as_str() {
            self.scroll_id = Some(id.to_string());
        }
        page_of(v)
    }

    fn close(&mut self) {
        if let Some(id) = self.scroll_id.take() {
            let _ = call(&self.remote, "DELETE", "/_search/scroll", Some(&json!({ "scroll_id": [id] })));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_and_chunked_answers() {
        let (s, b) = parse_response(b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\n{}").expect("plain");
        assert_eq!((s, b.as_slice()), (200, b"{}".as_slice()));
        let raw = b"HTTP/1.1 404 Not Found\r\nTransfer-Encoding: chunked\r\n\r\n3\r\n{\"a\r\n4\r\n\":1}\r\n0\r\n\r\n";
        let (s, b) = parse_response(raw).expect("chunked");
        assert_eq!((s, b.as_slice()), (404, b"{\"a\":1}".as_slice()));
        assert!(parse_response(b"garbage").is_none());
    }
}
