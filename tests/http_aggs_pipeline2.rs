//! More aggregations over HTTP against naive models, on one shard and on three:
//! sub-aggregations under `variable_width_histogram` (each bucket's sub-aggregations see the
//! documents whose values the bucket counted), and `moving_avg` with `predict` and `minimize`.

mod common;

use std::collections::BTreeMap;

use common::http::{post, put, TestServer};
use serde_json::{json, Value};

struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        self.0 >> 33
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

fn create(s: &TestServer, index: &str, shards: u32, props: Value) {
    let body = json!({
        "settings": {"number_of_shards": shards, "number_of_replicas": 0},
        "mappings": {"properties": props}
    });
    let r = put(s.addr, &format!("/{index}"), &body.to_string());
    assert_eq!(r.status, 200, "{}", r.text());
}

fn bulk(s: &TestServer, index: &str, docs: &[Value]) {
    let mut bulk = String::new();
    for (i, d) in docs.iter().enumerate() {
        bulk.push_str(&json!({"index": {"_index": index, "_id": i.to_string()}}).to_string());
        bulk.push('\n');
        bulk.push_str(&d.to_string());
        bulk.push('\n');
    }
    let r = common::http::send(
        s.addr,
        "POST",
        "/_bulk?refresh=true",
        Some(bulk.as_bytes()),
        &[("content-type", "application/x-ndjson")],
    );
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.json()["errors"], json!(false), "{}", r.text());
}

fn search(s: &TestServer, index: &str, body: Value) -> Value {
    let r = post(s.addr, &format!("/{index}/_search"), &body.to_string());
    assert_eq!(r.status, 200, "{}", r.text());
    r.json()
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * a.abs().max(b.abs()).max(1.0)
}

#[test]
fn variable_width_histogram_sub_aggregations_see_their_buckets_documents() {
    let dir = tempfile::tempdir().unwrap();
    let s = TestServer::start(dir.path(), &[]);
    let mut r = Lcg(41);
    // (v, w, k): v in one of four groups far apart, in random order.
    let groups = [0.0, 1000.0, 2000.0, 3000.0];
    let ds: Vec<(f64, i64, String)> = (0..300)
        .map(|_| {
            let g = groups[r.below(4) as usize];
            (g + r.below(200) as f64 / 4.0, r.below(100) as i64, format!("k{}", r.below(3)))
        })
        .collect();
    let docs: Vec<Value> = ds.iter().map(|(v, w, k)| json!({"v": v, "w": w, "k": k})).collect();
    let subs = json!({
        "w": {"sum": {"field": "w"}},
        "s": {"stats": {"field": "v"}},
        "t": {"terms": {"field": "k"}}
    });
    for shards in [1u32, 3] {
        let index = format!("vws{shards}");
        create(&s, &index, shards, json!({"v": {"type": "double"}, "w": {"type": "long"}, "k": {"type": "keyword"}}));
        bulk(&s, &index, &docs);
        // Every buffered value is its own cluster and later values join their group's clusters
        // (or start one), so the four buckets are the four groups; the model: the documents
        // whose value is in the bucket's [min, max].
        let resp = search(
            &s,
            &index,
            json!({"size": 0, "aggs": {"h": {
                "variable_width_histogram": {"field": "v", "buckets": 4, "shard_size": 40, "initial_buffer": 20},
                "aggs": subs
            }}}),
        );
        let b = resp["aggregations"]["h"]["buckets"].as_array().unwrap().clone();
        assert_eq!(b.len(), 4, "{index}: {b:?}");
        for bk in &b {
            let (lo, hi) = (bk["min"].as_f64().unwrap(), bk["max"].as_f64().unwrap());
            let inside: Vec<&(f64, i64, String)> = ds.iter().filter(|d| d.0 >= lo && d.0 <= hi).collect();
            assert_eq!(bk["doc_count"].as_u64().unwrap(), inside.len() as u64, "{index}: {bk}");
            assert_eq!(bk["w"]["value"].as_f64().unwrap(), inside.iter().map(|d| d.1).sum::<i64>() as f64, "{index}");
            assert_eq!(bk["s"]["count"].as_u64().unwrap(), inside.len() as u64, "{index}: {bk}");
            assert_eq!((bk["s"]["min"].as_f64().unwrap(), bk["s"]["max"].as_f64().unwrap()), (lo, hi), "{index}");
            assert!(close(bk["s"]["avg"].as_f64().unwrap(), bk["key"].as_f64().unwrap()), "{index}: {bk}");
            let mut terms: BTreeMap<String, u64> = BTreeMap::new();
            for d in &inside {
                *terms.entry(d.2.clone()).or_default() += 1;
            }
            let got: BTreeMap<String, u64> = bk["t"]["buckets"]
                .as_array()
                .unwrap()
                .iter()
                .map(|t| (t["key"].as_str().unwrap().to_string(), t["doc_count"].as_u64().unwrap()))
                .collect();
            assert_eq!(got, terms, "{index}: {bk}");
        }
        // Any clustering (a small buffer, clusters merging at the reduce): a bucket's stats of
        // the clustered field count its values and average to its centroid, and the sums over
        // the buckets add up to the whole.
        for (buffer, buckets) in [(10, 3), (30, 5), (5, 2)] {
            let resp = search(
                &s,
                &index,
                json!({"size": 0, "aggs": {"h": {
                    "variable_width_histogram": {"field": "v", "buckets": buckets, "initial_buffer": buffer},
                    "aggs": subs
                }}}),
            );
            let b = resp["aggregations"]["h"]["buckets"].as_array().unwrap().clone();
            assert!(!b.is_empty() && b.len() <= buckets, "{index}: {b:?}");
            let mut w = 0.0;
            for bk in &b {
                let n = bk["doc_count"].as_u64().unwrap();
                assert_eq!(bk["s"]["count"].as_u64().unwrap(), n, "{index} {buffer}: {bk}");
                assert!(close(bk["s"]["avg"].as_f64().unwrap(), bk["key"].as_f64().unwrap()), "{index}: {bk}");
                let tn: u64 =
                    bk["t"]["buckets"].as_array().unwrap().iter().map(|t| t["doc_count"].as_u64().unwrap()).sum();
                assert_eq!(tn, n, "{index} {buffer}: {bk}");
                w += bk["w"]["value"].as_f64().unwrap();
            }
            assert_eq!(w, ds.iter().map(|d| d.1).sum::<i64>() as f64, "{index} {buffer}");
        }
    }
}
