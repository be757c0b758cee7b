//! Pipeline aggregations over HTTP against a naive model of random documents, on one shard and
//! on three (pipelines run after the final reduce, so the results must not depend on the shard
//! count): sibling bucket metrics, parent pipelines over a histogram, bucket_script,
//! bucket_selector, bucket_sort, and the request errors.

mod common;

use common::aggs::Lcg;

use std::collections::BTreeMap;

use common::http::{post, put, TestServer};
use serde_json::{json, Value};

/// Documents `(n, x)`: `n` in 0..60 but never in 20..30 (an empty histogram bucket), `x` in
/// eighths (sums are exact).
fn docs(seed: u64, count: usize) -> Vec<(i64, f64)> {
    let mut r = Lcg(seed);
    (0..count)
        .map(|_| {
            let mut n = r.below(60) as i64;
            if (20..30).contains(&n) {
                n += 10;
            }
            (n, r.below(800) as f64 / 8.0)
        })
        .collect()
}

fn load(s: &TestServer, index: &str, shards: u32, docs: &[(i64, f64)]) {
    let body = json!({
        "settings": {"number_of_shards": shards, "number_of_replicas": 0},
        "mappings": {"properties": {"n": {"type": "long"}, "x": {"type": "double"}}}
    });
    let r = put(s.addr, &format!("/{index}"), &body.to_string());
    assert_eq!(r.status, 200, "{}", r.text());
    let mut bulk = String::new();
    for (i, (n, x)) in docs.iter().enumerate() {
        bulk.push_str(&json!({"index": {"_index": index, "_id": i.to_string()}}).to_string());
        bulk.push('\n');
        bulk.push_str(&json!({"n": n, "x": x}).to_string());
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
    assert_eq!(r.json()["errors"], json!(false));
}

fn search(s: &TestServer, index: &str, body: &Value) -> (u16, Value) {
    let r = post(s.addr, &format!("/{index}/_search"), &body.to_string());
    (r.status, r.json())
}

fn close(a: &Value, b: f64) -> bool {
    a.as_f64().is_some_and(|a| (a - b).abs() <= 1e-9 * a.abs().max(b.abs()).max(1.0))
}

fn request() -> Value {
    json!({
        "size": 0,
        "aggs": {
            "h": {
                "histogram": {"field": "n", "interval": 10},
                "aggs": {
                    "s": {"sum": {"field": "x"}},
                    "d": {"derivative": {"buckets_path": "s"}},
                    "c": {"cumulative_sum": {"buckets_path": "s"}},
                    "mf": {"moving_fn": {"buckets_path": "s", "window": 2, "script": "MovingFunctions.unweightedAvg(values)"}},
                    "mean": {"bucket_script": {"buckets_path": {"t": "s", "k": "_count"}, "script": "params.t / params.k"}}
                }
            },
            "avg": {"avg_bucket": {"buckets_path": "h>s"}},
            "max": {"max_bucket": {"buckets_path": "h>s"}},
            "st": {"stats_bucket": {"buckets_path": "h>s"}},
            "top": {"histogram": {"field": "n", "interval": 10}, "aggs": {
                "s": {"sum": {"field": "x"}},
                "big": {"bucket_selector": {"buckets_path": {"k": "_count"}, "script": "params.k > 0"}},
                "by": {"bucket_sort": {"sort": [{"s": "desc"}], "size": 2}}
            }}
        }
    })
}

#[test]
fn pipelines_match_a_naive_model_on_one_shard_and_three() {
    let dir = tempfile::tempdir().unwrap();
    let s = TestServer::start(dir.path(), &[]);
    for (seed, count) in [(3u64, 80usize), (11, 400)] {
        let ds = docs(seed, count);
        // The model: buckets 0, 10, ..., 50 with their count and sum (bucket 20 is empty).
        let mut model: BTreeMap<i64, (u64, f64)> = (0..6).map(|i| (i * 10, (0, 0.0))).collect();
        for (n, x) in &ds {
            let e = model.get_mut(&(n / 10 * 10)).unwrap();
            e.0 += 1;
            e.1 += x;
        }
        let model: Vec<(i64, u64, f64)> = model.into_iter().map(|(k, (c, s))| (k, c, s)).collect();
        let mut outs = Vec::new();
        for shards in [1u32, 3] {
            let index = format!("p{seed}s{shards}");
            load(&s, &index, shards, &ds);
            let (status, r) = search(&s, &index, &request());
            assert_eq!(status, 200, "{r}");
            let a = r["aggregations"].clone();
            let b = a["h"]["buckets"].as_array().unwrap();
            assert_eq!(b.len(), model.len(), "{a}");
            let mut sum = 0.0;
            let mut nonempty: Vec<f64> = Vec::new();
            for (i, (k, c, sm)) in model.iter().enumerate() {
                assert_eq!(b[i]["key"], json!(*k as f64));
                assert_eq!(b[i]["doc_count"], json!(c));
                sum += sm;
                assert!(close(&b[i]["c"]["value"], sum), "cumsum {i}: {}", b[i]);
                if i == 0 {
                    assert!(b[i].get("d").is_none());
                } else if *c > 0 && model[i - 1].1 > 0 {
                    assert!(close(&b[i]["d"]["value"], sm - model[i - 1].2), "deriv {i}: {}", b[i]);
                } else {
                    assert_eq!(b[i]["d"]["value"], Value::Null, "deriv {i}: {}", b[i]);
                }
                if *c > 0 {
                    let window: Vec<f64> = nonempty.iter().rev().take(2).copied().collect();
                    if window.is_empty() {
                        assert_eq!(b[i]["mf"]["value"], Value::Null);
                    } else {
                        assert!(close(&b[i]["mf"]["value"], window.iter().sum::<f64>() / window.len() as f64));
                    }
                    assert!(close(&b[i]["mean"]["value"], sm / *c as f64));
                    nonempty.push(*sm);
                } else {
                    assert!(b[i].get("mf").is_none() && b[i].get("mean").is_none(), "{}", b[i]);
                }
            }
            let avg = nonempty.iter().sum::<f64>() / nonempty.len() as f64;
            assert!(close(&a["avg"]["value"], avg));
            let max = nonempty.iter().copied().fold(f64::MIN, f64::max);
            assert!(close(&a["max"]["value"], max));
            let max_key = model.iter().find(|m| m.1 > 0 && m.2 == max).unwrap().0;
            assert_eq!(a["max"]["keys"], json!([format!("{}.0", max_key)]));
            assert_eq!(a["st"]["count"], json!(nonempty.len()));
            assert!(close(&a["st"]["sum"], nonempty.iter().sum()));
            // The selector drops the empty bucket; the sort keeps the two largest sums.
            let mut top: Vec<&(i64, u64, f64)> = model.iter().filter(|m| m.1 > 0).collect();
            top.sort_by(|x, y| y.2.total_cmp(&x.2));
            let got: Vec<Value> = a["top"]["buckets"].as_array().unwrap().iter().map(|b| b["key"].clone()).collect();
            assert_eq!(got, top.iter().take(2).map(|m| json!(m.0 as f64)).collect::<Vec<_>>());
            outs.push(a);
        }
        assert_eq!(outs[0], outs[1], "one shard and three differ");
    }
    s.stop();
}

#[test]
fn typed_keys_name_pipeline_results() {
    let dir = tempfile::tempdir().unwrap();
    let s = TestServer::start(dir.path(), &[]);
    load(&s, "tk", 2, &docs(5, 50));
    let body = request();
    let r = post(s.addr, "/tk/_search?typed_keys=true", &body.to_string());
    assert_eq!(r.status, 200, "{}", r.text());
    let a = &r.json()["aggregations"];
    assert!(a.get("simple_value#avg").is_some(), "{a}");
    assert!(a.get("bucket_metric_value#max").is_some(), "{a}");
    assert!(a.get("stats_bucket#st").is_some(), "{a}");
    let b1 = &a["histogram#h"]["buckets"][1];
    assert!(b1.get("derivative#d").is_some() && b1.get("simple_value#c").is_some(), "{b1}");
    s.stop();
}

#[test]
fn bad_pipelines_are_400s() {
    let dir = tempfile::tempdir().unwrap();
    let s = TestServer::start(dir.path(), &[]);
    load(&s, "e", 1, &docs(9, 20));
    let cases = [
        (
            json!({"h": {"histogram": {"field": "n", "interval": 10}, "aggs": {"m": {"max": {"field": "x"}}}},
                   "bs": {"bucket_sort": {"sort": ["h>m"]}}}),
            "bucket_sort aggregation [bs] must be declared inside of another aggregation",
        ),
        (
            json!({"t": {"terms": {"field": "n"}, "aggs": {"d": {"derivative": {"buckets_path": "_count"}}}}}),
            "derivative aggregation [d] must have a histogram, date_histogram or auto_date_histogram as parent",
        ),
        (
            json!({"h": {"histogram": {"field": "n", "interval": 10}, "aggs": {"d": {"derivative": {"buckets_path": "zz"}}}}}),
            "No aggregation found for path [zz]",
        ),
        (
            json!({"h": {"histogram": {"field": "n", "interval": 10}, "aggs": {"s": {"stats": {"field": "x"}}}},
                   "m": {"max_bucket": {"buckets_path": "h>s"}}}),
            "but [s] contains multiple values",
        ),
        (
            json!({"h": {"histogram": {"field": "n", "interval": 10}, "aggs": {"t": {"terms": {"field": "n"}}}},
                   "m": {"max_bucket": {"buckets_path": "h>t"}}}),
            "got: [LongTerms] at aggregation [t]",
        ),
        (
            json!({"h": {"histogram": {"field": "n", "interval": 10}, "aggs": {
                "mf": {"moving_fn": {"buckets_path": "_count", "window": 3, "script": "values.length"}}}}}),
            "is not supported",
        ),
        (json!({"a": {"avg_bucket": {"buckets_path": "h>s", "gap_policy": "fill"}}}), "Invalid gap policy: [fill]"),
    ];
    for (aggs, msg) in cases {
        let (status, r) = search(&s, "e", &json!({"size": 0, "aggs": aggs}));
        assert_eq!(status, 400, "{r}");
        assert!(r.to_string().contains(msg), "{msg} not in {r}");
    }
    s.stop();
}

#[test]
fn moving_avg_warns_that_it_is_deprecated() {
    let dir = tempfile::tempdir().unwrap();
    let s = TestServer::start(dir.path(), &[]);
    load(&s, "ma", 2, &docs(13, 60));
    let body = json!({"size": 0, "aggs": {"h": {"histogram": {"field": "n", "interval": 10}, "aggs": {
        "s": {"sum": {"field": "x"}},
        "ma": {"moving_avg": {"buckets_path": "s", "window": 3, "model": "linear"}}
    }}}});
    let r = post(s.addr, "/ma/_search", &body.to_string());
    assert_eq!(r.status, 200, "{}", r.text());
    let warning = r.header("warning").unwrap_or_default().to_string();
    assert!(warning.contains("The moving_avg aggregation has been deprecated"), "{:?}", r.headers);
    let b = &r.json()["aggregations"]["h"]["buckets"];
    assert!(b[0].get("ma").is_none());
    // OpenSearch's linear model starts its total weight at 1: one value v gives v / 2.
    assert!(close(&b[1]["ma"]["value"], b[0]["s"]["value"].as_f64().unwrap() / 2.0), "{b}");
    s.stop();
}
