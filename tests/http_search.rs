//! `_search`, `_count` and `_msearch` over real HTTP: BM25 scores against an independent
//! computation of Lucene's formula, multi-shard sorting and paging against a model, errors.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};

use fathom::http::{start, Running};
use fathom::node::settings::NodeSettings;
use serde_json::{json, Value};

struct Server {
    rt: tokio::runtime::Runtime,
    running: Option<Running>,
    addr: SocketAddr,
    _dir: tempfile::TempDir,
}

impl Server {
    fn new() -> Server {
        let dir = tempfile::tempdir().expect("temp dir");
        let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().expect("runtime");
        let data = dir.path().to_string_lossy().to_string();
        let running = rt
            .block_on(start(NodeSettings::from_pairs(&[("path.data", &data), ("http.port", "0")])))
            .expect("server starts");
        let addr = running.addr;
        Server { rt, running: Some(running), addr, _dir: dir }
    }

    /// Sends one request; returns (status, JSON body).
    fn call(&self, method: &str, path: &str, body: Option<&str>) -> (u16, Value) {
        let mut s = TcpStream::connect(self.addr).expect("connect");
        let body = body.unwrap_or("");
        let ct = if path.contains("_bulk") || path.contains("_msearch") {
            "application/x-ndjson"
        } else {
            "application/json"
        };
        let req = format!("{method} {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Type: {ct}\r\nContent-Length: {}\r\n\r\n{body}", body.len());
        s.write_all(req.as_bytes()).expect("write");
        let mut raw = Vec::new();
        s.read_to_end(&mut raw).expect("read");
        let text = String::from_utf8_lossy(&raw).to_string();
        let (head, rest) = text.split_once("\r\n\r\n").expect("a header");
        let status: u16 = head.split_whitespace().nth(1).and_then(|x| x.parse().ok()).expect("status");
        let payload = if head.to_ascii_lowercase().contains("transfer-encoding: chunked") {
            let mut out = String::new();
            let mut r = rest;
            while let Some((len, tail)) = r.split_once("\r\n") {
                let n = usize::from_str_radix(len.trim(), 16).unwrap_or(0);
                if n == 0 {
                    break;
                }
                out.push_str(&tail[..n]);
                r = &tail[n + 2..];
            }
            out
        } else {
            rest.to_string()
        };
        (status, serde_json::from_str(&payload).unwrap_or(Value::Null))
    }

    fn ok(&self, method: &str, path: &str, body: Value) -> Value {
        let (st, v) = self.call(method, path, Some(&body.to_string()));
        assert!(st < 300, "{method} {path} -> {st}: {v}");
        v
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if let Some(r) = self.running.take() {
            self.rt.block_on(r.stop());
        }
    }
}

/// Lucene's BM25 (k1 1.2, b 0.75) for one term, computed from scratch: exact lengths (short
/// documents, so the one-byte norm is lossless).
fn bm25(freq: f64, dl: f64, doc_freq: f64, docs: f64, avgdl: f64) -> f64 {
    let idf = (1.0 + (docs - doc_freq + 0.5) / (doc_freq + 0.5)).ln();
    let norm = 1.2 * (0.25 + 0.75 * dl / avgdl);
    idf * freq / (freq + norm)
}

#[test]
fn bm25_scores_match_lucene_formula() {
    let s = Server::new();
    let corpus = [
        "the quick brown fox jumps",
        "brown dogs and brown cats",
        "a fox in the den",
        "quick quick quick",
        "nothing to see here at all today",
        "fox",
    ];
    s.ok(
        "PUT",
        "/bm",
        json!({"settings": {"number_of_shards": 1}, "mappings": {"properties": {"body": {"type": "text"}}}}),
    );
    for (i, d) in corpus.iter().enumerate() {
        s.ok("PUT", &format!("/bm/_doc/{i}"), json!({"body": d}));
    }
    s.ok("POST", "/bm/_refresh", json!({}));
    let toks: Vec<Vec<&str>> = corpus.iter().map(|d| d.split(' ').collect()).collect();
    let n = toks.len() as f64;
    let avgdl = toks.iter().map(|t| t.len()).sum::<usize>() as f64 / n;
    for q in ["fox", "brown fox", "quick", "the den fox"] {
        let r = s.ok("POST", "/bm/_search?size=20", json!({"query": {"match": {"body": q}}}));
        let hits = r["hits"]["hits"].as_array().expect("hits");
        for h in hits {
            let id: usize = h["_id"].as_str().and_then(|x| x.parse().ok()).expect("id");
            let got = h["_score"].as_f64().expect("score");
            let mut want = 0.0;
            for t in q.split(' ') {
                let df = toks.iter().filter(|d| d.contains(&t)).count() as f64;
                let freq = toks[id].iter().filter(|x| **x == t).count() as f64;
                if freq > 0.0 {
                    want += bm25(freq, toks[id].len() as f64, df, n, avgdl);
                }
            }
            assert!((got - want).abs() <= 1e-5 * want.max(1.0), "query [{q}] doc {id}: got {got}, want {want}");
        }
        let expected_hits = toks.iter().filter(|d| q.split(' ').any(|t| d.contains(&t))).count();
        assert_eq!(hits.len(), expected_hits, "query [{q}]");
    }
}

#[test]
fn multi_shard_sort_paging_and_counts() {
    let s = Server::new();
    s.ok("PUT", "/m", json!({"settings": {"number_of_shards": 3, "max_result_window": 50}, "mappings": {"properties": {"n": {"type": "long"}, "k": {"type": "keyword"}, "t": {"type": "text"}, "d": {"type": "date"}}}}));
    let mut bulk = String::new();
    for i in 0..40 {
        bulk.push_str(&format!("{{\"index\":{{\"_index\":\"m\",\"_id\":\"{i}\"}}}}\n"));
        bulk.push_str(&json!({"n": (i * 7) % 13, "k": format!("k{:02}", i % 5), "t": if i % 2 == 0 { "even word" } else { "odd word" }, "d": format!("2024-01-{:02}", 1 + i % 28)}).to_string());
        bulk.push('\n');
    }
    let (st, _) = s.call("POST", "/_bulk?refresh=true", Some(&bulk));
    assert_eq!(st, 200);
    // Model: sort by n desc, then _id... OpenSearch ties break by shard and doc; sort by (n, k) and
    // check the sequence of sort values instead.
    let mut model: Vec<(i64, String)> = (0..40).map(|i| (((i * 7) % 13) as i64, format!("k{:02}", i % 5))).collect();
    model.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    let mut seen = Vec::new();
    let mut after: Option<Value> = None;
    for _ in 0..20 {
        let mut body = json!({"size": 7, "sort": [{"n": "desc"}, {"k": {"order": "asc"}}]});
        if let Some(a) = &after {
            body["search_after"] = a.clone();
        }
        let r = s.ok("POST", "/m/_search", body);
        assert_eq!(r["_shards"]["total"], 3);
        let hits = r["hits"]["hits"].as_array().expect("hits").clone();
        if hits.is_empty() {
            break;
        }
        for h in &hits {
            let sv = h["sort"].as_array().expect("sort");
            seen.push((sv[0].as_i64().expect("n"), sv[1].as_str().expect("k").to_string()));
            assert!(h["_score"].is_null());
        }
        after = hits.last().map(|h| h["sort"].clone());
    }
    // search_after skips ties of the last page's values, so compare the distinct sequence.
    let mut dedup_model = model.clone();
    dedup_model.dedup();
    let mut dedup_seen = seen.clone();
    dedup_seen.dedup();
    assert_eq!(dedup_seen, dedup_model);
    let r = s.ok("POST", "/m/_search", json!({"from": 35, "size": 10, "sort": ["n", "k"]}));
    assert_eq!(r["hits"]["hits"].as_array().map(Vec::len), Some(5));
    assert_eq!(r["hits"]["total"], json!({"value": 40, "relation": "eq"}));
    // Counts and the window limit.
    assert_eq!(s.ok("POST", "/m/_count", json!({"query": {"match": {"t": "even"}}}))["count"], 20);
    assert_eq!(s.ok("GET", "/m/_count?q=k:k01", json!(null))["count"], 8);
    assert_eq!(
        s.ok("POST", "/m/_count", json!({"query": {"range": {"d": {"gte": "2024-01-10", "lt": "2024-01-12"}}}}))
            ["count"],
        4
    );
    assert_eq!(
        s.ok(
            "POST",
            "/m/_count",
            json!({"query": {"range": {"d": {"gte": "2024-01-10||/d", "lte": "2024-01-11||/d"}}}})
        )["count"],
        4
    );
    let (st, e) = s.call("POST", "/m/_search", Some(&json!({"from": 45, "size": 10}).to_string()));
    assert_eq!(st, 400, "{e}");
    assert_eq!(e["error"]["root_cause"][0]["type"], "illegal_argument_exception");
    // track_total_hits.
    let r = s.ok("POST", "/m/_search", json!({"track_total_hits": 10, "size": 0}));
    assert_eq!(r["hits"]["total"], json!({"value": 10, "relation": "gte"}));
    let r = s.ok("POST", "/m/_search", json!({"track_total_hits": false, "size": 0}));
    assert!(r["hits"].get("total").is_none());
    let r = s.ok("POST", "/m/_search?rest_total_hits_as_int=true", json!({"size": 0}));
    assert_eq!(r["hits"]["total"], 40);
    // dfs: one shard's statistics or all three, the same documents match.
    let a = s.ok(
        "POST",
        "/m/_search?search_type=dfs_query_then_fetch",
        json!({"query": {"match": {"t": "odd"}}, "size": 40}),
    );
    assert_eq!(a["hits"]["hits"].as_array().map(Vec::len), Some(20));
    // msearch.
    let ms = "{\"index\":\"m\"}\n{\"query\":{\"term\":{\"k\":\"k02\"}},\"size\":0}\n{\"index\":\"missing\"}\n{}\n";
    let (st, r) = s.call("POST", "/_msearch", Some(ms));
    assert_eq!(st, 200);
    assert_eq!(r["responses"][0]["hits"]["total"]["value"], 8);
    assert_eq!(r["responses"][1]["status"], 404);
}

#[test]
fn query_errors_are_parsing_exceptions() {
    let s = Server::new();
    s.ok("PUT", "/e", json!({}));
    for (body, reason) in [
        (json!({"query": {"nope": {}}}), "unknown query [nope]"),
        (json!({"query": {"match": "x"}}), "[match] query malformed, no start_object after query name"),
        (json!({"match": {"a": "b"}}), "Unknown key for a START_OBJECT in [match]."),
        (json!({"query": {}}), "query malformed, empty clause found"),
    ] {
        let (st, e) = s.call("POST", "/e/_search", Some(&body.to_string()));
        assert_eq!(st, 400, "{body}");
        assert_eq!(e["error"]["type"], "parsing_exception", "{body}: {e}");
        assert_eq!(e["error"]["reason"], reason);
    }
    let (st, e) = s.call("POST", "/missing/_search", Some("{}"));
    assert_eq!(st, 404, "{e}");
    let (st, _) = s.call("POST", "/missing/_search?ignore_unavailable=true", Some("{}"));
    assert_eq!(st, 200);
}
