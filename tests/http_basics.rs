//! The server over real HTTP: info, indices, documents, bulk, errors, limits, restarts.
#![cfg(feature = "server")]

mod common;

use common::http::*;
use serde_json::json;

#[test]
fn info_and_errors() {
    let dir = tempfile::tempdir().unwrap();
    let s = TestServer::start(dir.path(), &[]);
    let r = get(s.addr, "/");
    assert_eq!(r.status, 200);
    let v = r.json();
    assert_eq!(v["version"]["number"], "3.3.0");
    assert_eq!(v["version"]["distribution"], "opensearch");
    assert_eq!(send(s.addr, "HEAD", "/", None, &[]).status, 200);

    let r = get(s.addr, "/_cluster/health?bogus=1");
    assert_eq!(r.status, 400);
    assert_eq!(r.json()["error"]["reason"], "request [/_cluster/health] contains unrecognized parameter: [bogus]");

    let r = send(s.addr, "PATCH", "/idx", None, &[]);
    assert_eq!(r.status, 405);
    assert!(r.json()["error"].as_str().unwrap().starts_with("Incorrect HTTP method for uri [/idx] and method [PATCH]"));

    let r = get(s.addr, "/missing/_doc/1");
    assert_eq!(r.status, 404);
    assert_eq!(r.json()["error"]["type"], "index_not_found_exception");

    let r = put(s.addr, "/idx", "{not json");
    assert_eq!(r.status, 400);
    let r = put(s.addr, "/BadName", "{}");
    assert_eq!(r.status, 400);
    assert_eq!(r.json()["error"]["type"], "invalid_index_name_exception");
}

#[test]
fn documents_round_trip() {
    let dir = tempfile::tempdir().unwrap();
    let s = TestServer::start(dir.path(), &[]);
    let r = put(s.addr, "/docs", r#"{"settings":{"number_of_shards":3,"number_of_replicas":0}}"#);
    assert_eq!(r.status, 200, "{}", r.text());
    for i in 0..20 {
        let r = put(s.addr, &format!("/docs/_doc/{i}"), &json!({"n": i, "t": format!("doc {i}")}).to_string());
        assert_eq!(r.status, 201, "{}", r.text());
    }
    // Realtime get without refresh.
    let r = get(s.addr, "/docs/_doc/7");
    assert_eq!(r.status, 200);
    assert_eq!(r.json()["_source"]["n"], 7);
    // Update with doc, then noop.
    let r = post(s.addr, "/docs/_update/7", r#"{"doc":{"n":70}}"#);
    assert_eq!(r.json()["result"], "updated");
    let r = post(s.addr, "/docs/_update/7", r#"{"doc":{"n":70}}"#);
    assert_eq!(r.json()["result"], "noop");
    let r = post(s.addr, "/docs/_update/nope", r#"{"doc":{"n":1}}"#);
    assert_eq!(r.status, 404);
    assert_eq!(r.json()["error"]["type"], "document_missing_exception");
    // Optimistic concurrency.
    let r = put(s.addr, "/docs/_doc/7?if_seq_no=0&if_primary_term=1", r#"{"n":1}"#);
    assert_eq!(r.status, 409);
    assert_eq!(r.json()["error"]["type"], "version_conflict_engine_exception");
    // Delete.
    assert_eq!(delete(s.addr, "/docs/_doc/3").json()["result"], "deleted");
    assert_eq!(delete(s.addr, "/docs/_doc/3").status, 404);
    assert_eq!(get(s.addr, "/docs/_doc/3").json()["found"], false);
    // Source filtering.
    let r = get(s.addr, "/docs/_doc/5?_source_includes=t");
    assert_eq!(r.json()["_source"], json!({"t": "doc 5"}));
    let r = get(s.addr, "/docs/_source/5");
    assert_eq!(r.json(), json!({"n": 5, "t": "doc 5"}));
    // Dynamic mapping was applied.
    let m = get(s.addr, "/docs/_mapping").json();
    assert_eq!(m["docs"]["mappings"]["properties"]["n"]["type"], "long");
    assert_eq!(m["docs"]["mappings"]["properties"]["t"]["fields"]["keyword"]["ignore_above"], 256);
}

#[test]
fn bulk_and_gzip_and_limits() {
    let dir = tempfile::tempdir().unwrap();
    let s = TestServer::start(dir.path(), &[("http.max_content_length", "64kb")]);
    let mut body = String::new();
    for i in 0..100 {
        body.push_str(&format!("{{\"index\":{{\"_index\":\"b\",\"_id\":\"{i}\"}}}}\n{{\"v\":{i}}}\n"));
    }
    body.push_str("{\"delete\":{\"_index\":\"b\",\"_id\":\"0\"}}\n");
    body.push_str("{\"create\":{\"_index\":\"b\",\"_id\":\"1\"}}\n{\"v\":1}\n");
    let r = send(s.addr, "POST", "/_bulk", Some(body.as_bytes()), &[("Content-Type", "application/x-ndjson")]);
    assert_eq!(r.status, 200, "{}", r.text());
    let v = r.json();
    assert_eq!(v["errors"], true);
    assert_eq!(v["items"].as_array().unwrap().len(), 102);
    assert_eq!(v["items"][100]["delete"]["result"], "deleted");
    assert_eq!(v["items"][101]["create"]["status"], 409);

    // gzip request body.
    use std::io::Write;
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    enc.write_all(br#"{"g": true}"#).unwrap();
    let gz = enc.finish().unwrap();
    let r = send(s.addr, "PUT", "/b/_doc/gz", Some(&gz), &[("Content-Encoding", "gzip")]);
    assert_eq!(r.status, 201, "{}", r.text());
    assert_eq!(get(s.addr, "/b/_doc/gz").json()["_source"]["g"], true);

    // Over the body limit.
    let big = vec![b' '; 70 * 1024];
    assert_eq!(send(s.addr, "POST", "/_bulk", Some(&big), &[]).status, 413);
}

#[test]
fn acknowledged_writes_survive_restart_and_unclean_stop() {
    let dir = tempfile::tempdir().unwrap();
    {
        let s = TestServer::start(dir.path(), &[]);
        for i in 0..10 {
            assert_eq!(put(s.addr, &format!("/r/_doc/{i}"), &json!({"i": i}).to_string()).status, 201);
        }
        s.stop();
    }
    {
        let s = TestServer::start(dir.path(), &[]);
        for i in 0..10 {
            assert_eq!(get(s.addr, &format!("/r/_doc/{i}")).json()["_source"]["i"], i);
        }
        for i in 10..20 {
            assert_eq!(put(s.addr, &format!("/r/_doc/{i}"), &json!({"i": i}).to_string()).status, 201);
        }
        // No flush, no close: the translog (fsynced before each ack) must carry these.
        let mut s = s;
        let running = s.running.take();
        std::mem::forget(running);
    }
    let s = TestServer::start(dir.path(), &[]);
    for i in 0..20 {
        let r = get(s.addr, &format!("/r/_doc/{i}"));
        assert_eq!(r.json()["_source"]["i"], i, "doc {i} lost");
    }
}
