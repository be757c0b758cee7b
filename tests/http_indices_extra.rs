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

/// A `_bulk` request with an NDJSON body.
fn bulk(addr: SocketAddr, nd: &str) -> (u16, Value) {
    let mut s = TcpStream::connect(addr).expect("connect to the test server");
    let req = format!(
        "POST /_bulk HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Type: application/x-ndjson\r\nContent-Length: {}\r\n\r\n{nd}",
        nd.len()
    );
    s.write_all(req.as_bytes()).expect("write the request");
    let mut out = Vec::new();
    s.read_to_end(&mut out).expect("read the response");
    let text = String::from_utf8_lossy(&out).into_owned();
    let status: u16 = text.get(9..12).and_then(|c| c.parse().ok()).expect("status line");
    let (head, rest) = text.split_once("\r\n\r\n").expect("headers end");
    let body =
        if head.to_ascii_lowercase().contains("transfer-encoding: chunked") { dechunk(rest) } else { rest.to_string() };
    (status, serde_json::from_str(&body).unwrap_or(Value::Null))
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

/// `index.blocks.*`: each block stops its levels with OpenSearch's `cluster_block_exception`,
/// and the settings that lift a block go through it.
#[test]
fn index_blocks_stop_what_they_name() {
    let dir = tempfile::tempdir().expect("temp dir");
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().expect("runtime");
    let data = dir.path().to_string_lossy().to_string();
    let running = rt
        .block_on(fathom::http::start(NodeSettings::from_pairs(&[("path.data", &data), ("http.port", "0")])))
        .expect("start");
    let a = running.addr;
    assert_eq!(call(a, "PUT", "/b", Some(json!({"settings": {"number_of_replicas": 0}}))).0, 200);
    assert_eq!(call(a, "PUT", "/b/_doc/1?refresh=true", Some(json!({"f": 1}))).0, 201);
    let blocked = |r: (u16, Value), status: u16, reason: &str| {
        assert_eq!(r.0, status, "{}", r.1);
        assert_eq!(r.1["error"]["type"], "cluster_block_exception", "{}", r.1);
        assert_eq!(r.1["error"]["reason"], reason, "{}", r.1);
    };

    // write: documents refused (alone and in a bulk item), reads and mappings allowed.
    assert_eq!(call(a, "PUT", "/b/_settings", Some(json!({"index.blocks.write": true}))).0, 200);
    let write = "index [b] blocked by: [FORBIDDEN/8/index write (api)];";
    blocked(json_of(call(a, "PUT", "/b/_doc/2", Some(json!({"f": 2})))), 403, write);
    blocked(json_of(call(a, "DELETE", "/b/_doc/1", None)), 403, write);
    blocked(json_of(call(a, "POST", "/b/_update/1", Some(json!({"doc": {"f": 3}})))), 403, write);
    let (s, v) = bulk(a, "{\"index\":{\"_index\":\"b\",\"_id\":\"9\"}}\n{\"f\":9}\n");
    assert_eq!(s, 200, "{v}");
    assert_eq!(v["errors"], true, "{v}");
    assert_eq!(v["items"][0]["index"]["status"], 403, "{v}");
    assert_eq!(v["items"][0]["index"]["error"]["type"], "cluster_block_exception", "{v}");
    assert_eq!(json_of(call(a, "GET", "/b/_doc/1", None)).0, 200);
    assert_eq!(json_of(call(a, "GET", "/b/_search", None)).1["hits"]["total"]["value"], 1);
    assert_eq!(call(a, "PUT", "/b/_mapping", Some(json!({"properties": {"k": {"type": "keyword"}}}))).0, 200);
    assert_eq!(call(a, "PUT", "/b/_settings", Some(json!({"index.blocks.write": false}))).0, 200);
    assert_eq!(call(a, "PUT", "/b/_doc/2", Some(json!({"f": 2}))).0, 201);

    // read_only: writes and metadata writes refused; lifting it goes through.
    assert_eq!(call(a, "PUT", "/b/_settings", Some(json!({"index.blocks.read_only": true}))).0, 200);
    let ro = "index [b] blocked by: [FORBIDDEN/5/index read-only (api)];";
    blocked(json_of(call(a, "PUT", "/b/_doc/3", Some(json!({"f": 3})))), 403, ro);
    blocked(json_of(call(a, "PUT", "/b/_mapping", Some(json!({"properties": {"z": {"type": "long"}}})))), 403, ro);
    blocked(json_of(call(a, "PUT", "/b/_settings", Some(json!({"index.number_of_replicas": 0})))), 403, ro);
    blocked(
        json_of(call(a, "POST", "/_aliases", Some(json!({"actions": [{"add": {"index": "b", "alias": "x"}}]})))),
        403,
        ro,
    );
    blocked(json_of(call(a, "DELETE", "/b", None)), 403, ro);
    let (_, state) = json_of(call(a, "GET", "/_cluster/state/blocks", None));
    assert_eq!(state["blocks"]["indices"]["b"]["5"]["description"], "index read-only (api)", "{state}");
    assert_eq!(call(a, "PUT", "/b/_settings", Some(json!({"index.blocks.read_only": false}))).0, 200);
    assert_eq!(json_of(call(a, "GET", "/_cluster/state/blocks", None)).1["blocks"], json!({}));

    // read: searches and gets refused; metadata: mappings and settings reads refused.
    assert_eq!(call(a, "PUT", "/b/_settings", Some(json!({"index.blocks.read": true}))).0, 200);
    let read = "index [b] blocked by: [FORBIDDEN/7/index read (api)];";
    blocked(json_of(call(a, "GET", "/b/_search", None)), 403, read);
    blocked(json_of(call(a, "GET", "/b/_doc/1", None)), 403, read);
    assert_eq!(
        call(a, "PUT", "/b/_settings", Some(json!({"index.blocks.read": false, "index.blocks.metadata": true}))).0,
        200
    );
    let meta = "index [b] blocked by: [FORBIDDEN/9/index metadata (api)];";
    blocked(json_of(call(a, "GET", "/b/_mapping", None)), 403, meta);
    blocked(json_of(call(a, "GET", "/b/_settings", None)), 403, meta);
    assert_eq!(call(a, "PUT", "/b/_settings", Some(json!({"index.blocks.metadata": false}))).0, 200);

    // read_only_allow_delete, added with the block API: writes get 429, the index can still be
    // deleted.
    let (s, v) = json_of(call(a, "PUT", "/b/_block/read_only_allow_delete", None));
    assert_eq!(s, 200, "{v}");
    assert_eq!(
        v,
        json!({"acknowledged": true, "shards_acknowledged": true, "indices": [{"name": "b", "blocked": true}]})
    );
    let (s, v) = json_of(call(a, "PUT", "/b/_block/nope", None));
    assert_eq!((s, v["error"]["reason"].as_str()), (400, Some("No block found with name nope")), "{v}");
    let (s, v) = json_of(call(a, "PUT", "/b/_doc/4", Some(json!({"f": 4}))));
    assert_eq!((s, v["error"]["type"].as_str()), (429, Some("cluster_block_exception")), "{v}");
    assert_eq!(call(a, "DELETE", "/b", None).0, 200);
    drop(running);
}
