//! More aggregations over HTTP against naive models, on one shard and on three:
//! sub-aggregations under `variable_width_histogram` (each bucket's sub-aggregations see the
//! documents whose values the bucket counted), and `moving_avg` with `predict` and `minimize`.

mod common;

use common::aggs::{close, search, Lcg};

use std::collections::BTreeMap;

use common::http::{post, put, TestServer};
use serde_json::{json, Value};

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

/// Holt's forecast (s + i * b from i = 0), the model.
fn holt(values: &[f64], alpha: f64, beta: f64, n: usize) -> Vec<f64> {
    let (mut s, mut b) = (values[0], 0.0);
    for &v in &values[1..] {
        let last_s = s;
        s = alpha * v + (1.0 - alpha) * (last_s + b);
        b = beta * (s - last_s) + (1.0 - beta) * b;
    }
    (0..n).map(|i| s + i as f64 * b).collect()
}

#[test]
fn moving_avg_predicts_past_the_last_bucket_and_minimizes() {
    let dir = tempfile::tempdir().unwrap();
    let s = TestServer::start(dir.path(), &[]);
    let mut r = Lcg(53);
    // n in 0..50 (the histogram's bucket 50 is empty, by extended_bounds), x in eighths, and a
    // date in the first five months of 2024.
    let ds: Vec<(i64, f64, String)> = (0..400)
        .map(|_| {
            let month = 1 + r.below(5);
            let day = 1 + r.below(28);
            (r.below(50) as i64, r.below(800) as f64 / 8.0, format!("2024-{month:02}-{day:02}"))
        })
        .collect();
    let docs: Vec<Value> = ds.iter().map(|(n, x, d)| json!({"n": n, "x": x, "d": d})).collect();
    let sums: Vec<f64> = (0..5).map(|b| ds.iter().filter(|d| d.0 / 10 == b).map(|d| d.1).sum()).collect();
    let histo = |ma: Value, metric: &str| {
        json!({"size": 0, "aggs": {"h": {
            "histogram": {"field": "n", "interval": 10, "extended_bounds": {"min": 0, "max": 59}},
            "aggs": {"m": {metric: {"field": "x"}}, "ma": {"moving_avg": ma}}
        }}})
    };
    let mut minimized: Vec<Value> = Vec::new();
    for shards in [1u32, 3] {
        let index = format!("ma{shards}");
        create(&s, &index, shards, json!({"n": {"type": "long"}, "x": {"type": "double"}, "d": {"type": "date"}}));
        bulk(&s, &index, &docs);

        // simple over sums: the empty bucket 50 is a gap (skipped), so the first prediction goes
        // into it (it keeps its sum) and two buckets are appended.
        let resp = search(&s, &index, histo(json!({"buckets_path": "m", "window": 3, "predict": 3}), "sum"));
        let b = resp["aggregations"]["h"]["buckets"].as_array().unwrap().clone();
        assert_eq!(b.len(), 8, "{index}: {b:?}");
        let last3 = (sums[2] + sums[3] + sums[4]) / 3.0;
        for (i, bk) in b.iter().enumerate().skip(5) {
            assert_eq!(bk["key"].as_f64().unwrap(), (i * 10) as f64, "{index}: {bk}");
            assert_eq!(bk["doc_count"], json!(0));
            assert_eq!(bk.get("m").is_some(), i == 5, "{index}: appended buckets hold only the moving_avg: {bk}");
            assert!(close(bk["ma"]["value"].as_f64().unwrap(), last3), "{index}: {bk} vs {last3}");
        }
        assert!(b[0].get("ma").is_none());
        for (i, bk) in b.iter().enumerate().take(5).skip(1) {
            let lo = i.saturating_sub(3);
            let want = sums[lo..i].iter().sum::<f64>() / (i - lo) as f64;
            assert!(close(bk["ma"]["value"].as_f64().unwrap(), want), "{index}: {bk} vs {want}");
        }

        // holt over avgs: bucket 50 has no avg (skipped), so the first prediction goes into it
        // (keeping its doc count and its empty avg) and two more buckets are appended.
        let resp = search(
            &s,
            &index,
            histo(
                json!({"buckets_path": "m", "window": 10, "model": "holt", "settings": {"alpha": 0.6, "beta": 0.4}, "predict": 3}),
                "avg",
            ),
        );
        let b = resp["aggregations"]["h"]["buckets"].as_array().unwrap().clone();
        assert_eq!(b.len(), 8, "{index}: {b:?}");
        let avgs: Vec<f64> = (0..5).map(|i| b[i]["m"]["value"].as_f64().unwrap()).collect();
        let want = holt(&avgs, 0.6, 0.4, 3);
        assert_eq!(b[5]["key"], json!(50.0));
        assert_eq!(b[5]["doc_count"], json!(0));
        assert_eq!(b[5]["m"]["value"], Value::Null, "{index}: {}", b[5]);
        for (bk, w) in b[5..].iter().zip(&want) {
            assert!(close(bk["ma"]["value"].as_f64().unwrap(), *w), "{index}: {bk} vs {w}");
        }
        assert_eq!((b[6]["key"].as_f64(), b[7]["key"].as_f64()), (Some(60.0), Some(70.0)));

        // date_histogram: the predicted keys are the next months.
        let resp = search(
            &s,
            &index,
            json!({"size": 0, "aggs": {"h": {
                "date_histogram": {"field": "d", "calendar_interval": "month", "format": "yyyy-MM-dd"},
                "aggs": {"c": {"value_count": {"field": "x"}}, "ma": {"moving_avg": {"buckets_path": "c", "predict": 2}}}
            }}}),
        );
        let b = resp["aggregations"]["h"]["buckets"].as_array().unwrap().clone();
        let keys: Vec<&str> = b.iter().map(|bk| bk["key_as_string"].as_str().unwrap()).collect();
        assert_eq!(
            keys,
            ["2024-01-01", "2024-02-01", "2024-03-01", "2024-04-01", "2024-05-01", "2024-06-01", "2024-07-01"]
        );
        assert_eq!(b[6]["key"], json!(1_719_792_000_000i64));
        assert_eq!(b[5]["ma"], b[6]["ma"], "{index}: simple repeats its prediction");
        // auto_date_histogram: the next value of the rounding it picked (months here).
        let resp = search(
            &s,
            &index,
            json!({"size": 0, "aggs": {"h": {
                "auto_date_histogram": {"field": "d", "buckets": 6, "format": "yyyy-MM-dd"},
                "aggs": {"c": {"value_count": {"field": "x"}}, "ma": {"moving_avg": {"buckets_path": "c", "predict": 1}}}
            }}}),
        );
        let h = &resp["aggregations"]["h"];
        assert_eq!(h["interval"], json!("1M"), "{index}: {h}");
        let keys: Vec<&str> =
            h["buckets"].as_array().unwrap().iter().map(|bk| bk["key_as_string"].as_str().unwrap()).collect();
        assert_eq!(keys, ["2024-01-01", "2024-02-01", "2024-03-01", "2024-04-01", "2024-05-01", "2024-06-01"]);

        // minimize: a fixed-seed annealing, so the same fit on any shard count and every time.
        let body =
            histo(json!({"buckets_path": "m", "window": 2, "model": "ewma", "minimize": true, "predict": 1}), "sum");
        let one = search(&s, &index, body.clone());
        assert_eq!(one["aggregations"], search(&s, &index, body)["aggregations"]);
        minimized.push(one["aggregations"].clone());
        // Holt-Winters minimizes unless told not to.
        let hw = |min: Option<bool>| {
            let mut ma = json!({"buckets_path": "m", "window": 5, "model": "holt_winters", "settings": {"period": 2}});
            if let Some(m) = min {
                ma["minimize"] = json!(m);
            }
            search(&s, &index, histo(ma, "sum"))["aggregations"].clone()
        };
        assert_eq!(hw(None), hw(Some(true)), "{index}");
        for (ma, what) in [
            (json!({"buckets_path": "m", "minimize": true}), "The [org.opensearch.search.aggregations.pipeline.SimpleModel@0] model cannot be minimized for aggregation [ma]"),
            (json!({"buckets_path": "m", "model": "linear", "minimize": true}), "LinearModel@0] model cannot be minimized"),
            (json!({"buckets_path": "m", "predict": 0}), "[predict] value must be a positive integer."),
        ] {
            let resp = post(s.addr, &format!("/{index}/_search"), &histo(ma, "sum").to_string());
            assert_eq!(resp.status, 400, "{}", resp.text());
            assert!(resp.text().contains(what), "{}", resp.text());
        }
    }
    assert_eq!(minimized[0], minimized[1]);
}

/// `buckets_path` with a bucket key (`terms['key']>metric`) picks that bucket in every parent
/// bucket; a key that no bucket has is an error.
#[test]
fn buckets_path_selects_a_bucket_by_key() {
    let dir = tempfile::tempdir().unwrap();
    let s = TestServer::start(dir.path(), &[]);
    create(&s, "kp", 2, json!({"k": {"type": "keyword"}, "n": {"type": "long"}, "g": {"type": "keyword"}}));
    let mut rng = Lcg(7);
    let mut docs = Vec::new();
    let mut model: BTreeMap<(String, String), (f64, u64)> = BTreeMap::new();
    for _ in 0..200 {
        let g = ["x", "y"][rng.below(2) as usize].to_string();
        let k = ["abc", "bcd", "cde"][rng.below(3) as usize].to_string();
        let n = rng.below(100) as f64;
        let e = model.entry((g.clone(), k.clone())).or_insert((0.0, 0));
        e.0 += n;
        e.1 += 1;
        docs.push(json!({"g": g, "k": k, "n": n}));
    }
    bulk(&s, "kp", &docs);
    let body = json!({"size": 0, "aggs": {"by_g": {"terms": {"field": "g"}, "aggs": {
        "by_k": {"terms": {"field": "k"}, "aggs": {"the_avg": {"avg": {"field": "n"}}}},
        "pick": {"bucket_script": {"buckets_path": {"v": "by_k['bcd']>the_avg.value", "c": "by_k['bcd']>_count"}, "script": "params.v * params.c"}}
    }}}});
    let r = search(&s, "kp", body);
    let buckets = r["aggregations"]["by_g"]["buckets"].as_array().unwrap();
    assert_eq!(buckets.len(), 2);
    for b in buckets {
        let g = b["key"].as_str().unwrap().to_string();
        let (sum, _) = model[&(g, "bcd".to_string())];
        assert!(close(b["pick"]["value"].as_f64().unwrap(), sum), "{b}");
    }
}
