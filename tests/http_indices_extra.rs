//! Aliases, templates, field caps and CAT over real HTTP.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};

use fathom::node::NodeSettings;
use serde_json::{json, Value};

/// A minimal HTTP/1.1 client: one request per connection.
fn call(addr: SocketAddr, method: &str, path: &str, body: Option<Value>) -> (u16, String) {
    let mut s = TcpStream::connect(addr).expect("connect to the test server");
    let body = body.map(|b| b.to_string()).unwrap_or_default();
    let req = format!("{method} {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}", body.len());
    s.write_all(req.as_bytes()).expect("write the request");
    let mut out = Vec::new();
    s.read_to_end(&mut out).expect("read the response");
    let text = String::from_utf8_lossy(&out).into_owned();
    let status: u16 = text.get(9..12).and_then(|c| c.parse().ok()).expect("status line");
    let (head, rest) = text.split_once("\r\n\r\n").expect("headers end");
    let body =
        if head.to_ascii_lowercase().contains("transfer-encoding: chunked") { dechunk(rest) } else { rest.to_string() };
    (status, body)
}

fn dechunk(mut s: &str) -> String {
    let mut out = String::new();
    while let Some((len, rest)) = s.split_once("\r\n") {
        let n = usize::from_str_radix(len.trim(), 16).unwrap_or(0);
        if n == 0 {
            break;
        }
        out.push_str(&rest[..n]);
        s = &rest[n + 2..];
    }
    out
}

fn json_of(r: (u16, String)) -> (u16, Value) {
    (r.0, serde_json::from_str(&r.1).unwrap_or(Value::Null))
}

#[test]
fn indices_extra_apis() {
    let dir = tempfile::tempdir().expect("temp dir");
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().expect("runtime");
    let data = dir.path().to_string_lossy().to_string();
    let running = rt
        .block_on(fathom::http::start(NodeSettings::from_pairs(&[("path.data", &data), ("http.port", "0")])))
        .expect("start");
    let a = running.addr;

    // Templates.
    let t = json!({"index_patterns": ["logs-*"], "order": 1, "version": 3, "settings": {"number_of_replicas": 0}, "aliases": {"{index}-alias": {}}, "mappings": {"properties": {"m": {"type": "keyword"}}}});
    assert_eq!(call(a, "PUT", "/_template/lt", Some(t)).0, 200);
    let (s, b) = json_of(call(a, "GET", "/_template/lt", None));
    assert_eq!(s, 200);
    assert_eq!(b["lt"]["settings"], json!({"index": {"number_of_replicas": "0"}}));
    assert_eq!(call(a, "HEAD", "/_template/nope", None).0, 404);
    assert_eq!(
        call(
            a,
            "PUT",
            "/_component_template/c1",
            Some(json!({"template": {"mappings": {"properties": {"c": {"type": "long"}}}}}))
        )
        .0,
        200
    );
    assert_eq!(call(a, "PUT", "/_index_template/it1", Some(json!({"index_patterns": ["data-*"], "composed_of": ["c1"], "template": {"settings": {"number_of_replicas": 0}}}))).0, 200);
    let (s, b) = json_of(call(a, "PUT", "/_index_template/it2", Some(json!({"index_patterns": ["data-x*"]}))));
    assert_eq!(s, 400);
    assert!(b["error"]["reason"].as_str().unwrap_or_default().contains("that have the same priority [0]"), "{b}");
    let (s, b) = json_of(call(a, "POST", "/_index_template/_simulate_index/data-1", None));
    assert_eq!(s, 200);
    assert_eq!(b["template"]["mappings"]["properties"]["c"]["type"], "long");
    let (s, b) = json_of(call(a, "GET", "/_index_template/nope", None));
    assert_eq!((s, b["error"]["type"].as_str()), (404, Some("resource_not_found_exception")));
    let (s, b) = json_of(call(a, "DELETE", "/_component_template/c1", None));
    assert_eq!(s, 400, "{b}");

    // Index creation applies the templates; aliases.
    assert_eq!(call(a, "PUT", "/logs-1", None).0, 200);
    assert_eq!(call(a, "PUT", "/data-1", None).0, 200);
    let (s, b) = json_of(call(a, "GET", "/_alias/logs-1-alias", None));
    assert_eq!((s, b["logs-1"]["aliases"]["logs-1-alias"].clone()), (200, json!({})));
    let actions = json!({"actions": [{"add": {"index": "data-1", "alias": "d", "routing": "r", "is_write_index": true}}, {"add": {"indices": ["logs-1", "data-1"], "aliases": ["both"]}}]});
    assert_eq!(call(a, "POST", "/_aliases", Some(actions)).0, 200);
    let (_, b) = json_of(call(a, "GET", "/data-1/_alias/d", None));
    assert_eq!(
        b["data-1"]["aliases"]["d"],
        json!({"index_routing": "r", "search_routing": "r", "is_write_index": true})
    );
    let (s, b) = json_of(call(a, "GET", "/_alias/both,missing", None));
    assert_eq!((s, b["error"].as_str()), (404, Some("alias [missing] missing")));
    assert!(b["logs-1"]["aliases"]["both"].is_object());
    assert_eq!(call(a, "HEAD", "/_alias/both", None).0, 200);
    assert_eq!(call(a, "DELETE", "/logs-1/_alias/both", None).0, 200);
    let (s, b) = json_of(call(a, "DELETE", "/logs-1/_alias/both", None));
    assert_eq!((s, b["error"]["type"].as_str()), (404, Some("aliases_not_found_exception")));
    assert_eq!(call(a, "PUT", "/logs-1/_alias/extra", Some(json!({"filter": {"term": {"m": "x"}}}))).0, 200);

    // Field caps and field mappings.
    let (s, b) = json_of(call(a, "GET", "/_field_caps?fields=m,c,_id", None));
    assert_eq!(s, 200);
    assert_eq!(b["fields"]["m"]["keyword"], json!({"type": "keyword", "searchable": true, "aggregatable": true}));
    assert_eq!(b["fields"]["_id"]["_id"]["type"], "_id");
    let (_, b) = json_of(call(a, "POST", "/_field_caps?fields=*", Some(json!({"index_filter": {"term": {"c": 1}}}))));
    assert_eq!(b["indices"], json!(["data-1"]));
    let (_, b) = json_of(call(a, "GET", "/logs-1/_mapping/field/m", None));
    assert_eq!(b["logs-1"]["mappings"]["m"], json!({"full_name": "m", "mapping": {"m": {"type": "keyword"}}}));

    // CAT.
    let (s, text) = call(a, "GET", "/_cat/indices?h=index,pri,rep&s=index:desc", None);
    assert_eq!((s, text.as_str()), (200, "logs-1 1 0\ndata-1 1 0\n"));
    let (_, b) = json_of(call(a, "GET", "/_cat/indices?format=json&h=index&expand_wildcards=all", None));
    assert_eq!(b, json!([{"index": "data-1"}, {"index": "logs-1"}]));
    let (_, text) = call(a, "GET", "/_cat/templates?v&s=name", None);
    assert!(text.starts_with("name index_patterns order version composed_of\nit1  [data-*]       0"), "{text}");
    assert!(call(a, "GET", "/_cat", None).1.contains("/_cat/indices\n"));

    // remove_index.
    assert_eq!(call(a, "POST", "/_aliases", Some(json!({"actions": [{"remove_index": {"index": "logs-1"}}]}))).0, 200);
    assert_eq!(call(a, "HEAD", "/logs-1", None).0, 404);
    rt.block_on(running.stop());
}
