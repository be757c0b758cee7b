//! Aggregations over HTTP against a naive model of random documents, on one shard and on
//! several (the shard results must reduce to the same buckets and counts): terms, histogram,
//! range, filters, missing, global and the numeric metrics, with sub-aggregations.

mod common;

use common::aggs::{close, search, Lcg};

use std::collections::BTreeMap;

use common::http::{post, put, TestServer};
use serde_json::{json, Value};

#[derive(Debug, Clone)]
struct Doc {
    tag: Option<String>,
    n: Option<i64>,
    x: f64,
}

fn docs(seed: u64, count: usize) -> Vec<Doc> {
    let mut r = Lcg(seed);
    (0..count)
        .map(|_| Doc {
            tag: (r.below(10) != 0).then(|| format!("t{}", r.below(7))),
            n: (r.below(8) != 0).then(|| r.below(50) as i64 - 10),
            x: (r.below(1000) as f64) / 8.0,
        })
        .collect()
}

fn load(s: &TestServer, index: &str, shards: u32, docs: &[Doc]) {
    let body = json!({
        "settings": {"number_of_shards": shards, "number_of_replicas": 0},
        "mappings": {"properties": {"tag": {"type": "keyword"}, "n": {"type": "long"}, "x": {"type": "double"}}}
    });
    let r = put(s.addr, &format!("/{index}"), &body.to_string());
    assert_eq!(r.status, 200, "{}", r.text());
    let mut bulk = String::new();
    for (i, d) in docs.iter().enumerate() {
        bulk.push_str(&json!({"index": {"_index": index, "_id": i.to_string()}}).to_string());
        bulk.push('\n');
        let mut src = serde_json::Map::new();
        if let Some(t) = &d.tag {
            src.insert("tag".into(), json!(t));
        }
        if let Some(n) = d.n {
            src.insert("n".into(), json!(n));
        }
        src.insert("x".into(), json!(d.x));
        bulk.push_str(&Value::Object(src).to_string());
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

#[test]
fn buckets_and_metrics_match_a_naive_model_on_one_shard_and_several() {
    let dir = tempfile::tempdir().unwrap();
    let s = TestServer::start(dir.path(), &[]);
    for (seed, n) in [(1u64, 60usize), (7, 300), (42, 1)] {
        let ds = docs(seed, n);
        for shards in [1u32, 3] {
            let index = format!("m{seed}s{shards}");
            load(&s, &index, shards, &ds);
            let body = json!({
                "size": 0,
                "aggs": {
                    "tags": {"terms": {"field": "tag", "size": 100}, "aggs": {"sx": {"sum": {"field": "x"}}}},
                    "hist": {"histogram": {"field": "n", "interval": 10}},
                    "nterms": {"terms": {"field": "n", "size": 100}},
                    "ranges": {"range": {"field": "x", "ranges": [{"to": 20}, {"from": 20, "to": 80}, {"from": 80}]}},
                    "st": {"stats": {"field": "x"}},
                    "few": {"filters": {"filters": {"low": {"range": {"n": {"lt": 0}}}, "t1": {"term": {"tag": "t1"}}}, "other_bucket": true}},
                    "no_tag": {"missing": {"field": "tag"}},
                    "all": {"global": {}, "aggs": {"c": {"value_count": {"field": "n"}}}}
                },
                "query": {"range": {"x": {"gte": 5}}}
            });
            let r = search(&s, &index, body);
            let a = &r["aggregations"];
            let m: Vec<&Doc> = ds.iter().filter(|d| d.x >= 5.0).collect();
            // terms: count desc, key asc; the sum of x per tag.
            let mut tags: BTreeMap<String, (u64, f64)> = BTreeMap::new();
            for d in &m {
                if let Some(t) = &d.tag {
                    let e = tags.entry(t.clone()).or_default();
                    e.0 += 1;
                    e.1 += d.x;
                }
            }
            let mut want: Vec<(String, u64, f64)> = tags.into_iter().map(|(k, (c, s))| (k, c, s)).collect();
            want.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
            let got = a["tags"]["buckets"].as_array().unwrap();
            assert_eq!(got.len(), want.len(), "{index}: {}", a["tags"]);
            for (g, w) in got.iter().zip(&want) {
                assert_eq!(g["key"], json!(w.0), "{index}");
                assert_eq!(g["doc_count"], json!(w.1), "{index}");
                assert!(close(g["sx"]["value"].as_f64().unwrap(), w.2), "{index}: {g} vs {w:?}");
            }
            assert_eq!(a["tags"]["sum_other_doc_count"], json!(0), "{index}");
            assert_eq!(a["tags"]["doc_count_error_upper_bound"], json!(0), "{index}");
            // numeric terms (the dense-column counting path).
            let mut nt: BTreeMap<i64, u64> = BTreeMap::new();
            for d in &m {
                if let Some(n) = d.n {
                    *nt.entry(n).or_default() += 1;
                }
            }
            let mut want_n: Vec<(i64, u64)> = nt.into_iter().collect();
            want_n.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
            let got_n: Vec<(i64, u64)> = a["nterms"]["buckets"]
                .as_array()
                .unwrap()
                .iter()
                .map(|b| (b["key"].as_i64().unwrap(), b["doc_count"].as_u64().unwrap()))
                .collect();
            assert_eq!(got_n, want_n, "{index}");
            // histogram: every bucket from the first key to the last, empty ones too.
            let mut hist: BTreeMap<i64, u64> = BTreeMap::new();
            for d in &m {
                if let Some(n) = d.n {
                    *hist.entry(n.div_euclid(10) * 10).or_default() += 1;
                }
            }
            let hb = a["hist"]["buckets"].as_array().unwrap();
            if let (Some((&lo, _)), Some((&hi, _))) = (hist.first_key_value(), hist.last_key_value()) {
                assert_eq!(hb.len() as i64, (hi - lo) / 10 + 1, "{index}: {}", a["hist"]);
                for b in hb {
                    let k = b["key"].as_f64().unwrap() as i64;
                    assert_eq!(b["doc_count"].as_u64().unwrap(), hist.get(&k).copied().unwrap_or(0), "{index} key {k}");
                }
            } else {
                assert!(hb.is_empty());
            }
            // ranges: from inclusive, to exclusive.
            let rb = a["ranges"]["buckets"].as_array().unwrap();
            let bounds = [(f64::NEG_INFINITY, 20.0), (20.0, 80.0), (80.0, f64::INFINITY)];
            for (b, (lo, hi)) in rb.iter().zip(bounds) {
                let c = m.iter().filter(|d| d.x >= lo && d.x < hi).count() as u64;
                assert_eq!(b["doc_count"], json!(c), "{index}: {b}");
            }
            assert_eq!(rb[0]["key"], json!("*-20.0"));
            // stats.
            let xs: Vec<f64> = m.iter().map(|d| d.x).collect();
            assert_eq!(a["st"]["count"], json!(xs.len()), "{index}");
            if !xs.is_empty() {
                let sum: f64 = xs.iter().sum();
                assert!(close(a["st"]["sum"].as_f64().unwrap(), sum));
                assert!(close(a["st"]["avg"].as_f64().unwrap(), sum / xs.len() as f64));
                assert!(close(a["st"]["min"].as_f64().unwrap(), xs.iter().cloned().fold(f64::INFINITY, f64::min)));
                assert!(close(a["st"]["max"].as_f64().unwrap(), xs.iter().cloned().fold(f64::NEG_INFINITY, f64::max)));
            } else {
                assert_eq!(a["st"]["min"], Value::Null);
            }
            // filters (keyed, sorted by name) with the other bucket.
            let low = m.iter().filter(|d| d.n.is_some_and(|n| n < 0)).count() as u64;
            let t1 = m.iter().filter(|d| d.tag.as_deref() == Some("t1")).count() as u64;
            let other =
                m.iter().filter(|d| d.n.is_none_or(|n| n >= 0) && d.tag.as_deref() != Some("t1")).count() as u64;
            assert_eq!(
                a["few"]["buckets"],
                json!({"low": {"doc_count": low}, "t1": {"doc_count": t1}, "_other_": {"doc_count": other}}),
                "{index}"
            );
            // missing and global (global ignores the query).
            assert_eq!(a["no_tag"]["doc_count"], json!(m.iter().filter(|d| d.tag.is_none()).count()), "{index}");
            assert_eq!(a["all"]["doc_count"], json!(ds.len()), "{index}");
            assert_eq!(a["all"]["c"]["value"], json!(ds.iter().filter(|d| d.n.is_some()).count()), "{index}");
        }
    }
}

#[test]
fn terms_over_shards_report_their_error_bounds() {
    // Skewed counts across shards with a small size: the reduce reports what it could miss.
    let dir = tempfile::tempdir().unwrap();
    let s = TestServer::start(dir.path(), &[]);
    let ds = docs(99, 500);
    load(&s, "skew", 4, &ds);
    let r = search(
        &s,
        "skew",
        json!({"size": 0, "aggs": {"t": {"terms": {"field": "tag", "size": 2, "shard_size": 2, "show_term_doc_count_error": true}}}}),
    );
    let t = &r["aggregations"]["t"];
    let b = t["buckets"].as_array().unwrap();
    assert_eq!(b.len(), 2, "{t}");
    let total: u64 = ds.iter().filter(|d| d.tag.is_some()).count() as u64;
    let shown: u64 = b.iter().map(|x| x["doc_count"].as_u64().unwrap()).sum();
    assert_eq!(shown + t["sum_other_doc_count"].as_u64().unwrap(), total, "{t}");
    assert!(t["doc_count_error_upper_bound"].as_i64().unwrap() >= 0, "{t}");
    for x in b {
        assert!(x["doc_count_error_upper_bound"].as_i64().unwrap() >= 0, "{x}");
    }
    // typed_keys and meta.
    let r =
        post(s.addr, "/skew/_search?typed_keys", r#"{"size":0,"aggs":{"t":{"terms":{"field":"n"},"meta":{"k":1}}}}"#)
            .json();
    assert_eq!(r["aggregations"]["lterms#t"]["meta"], json!({"k": 1}), "{r}");
}

#[test]
fn bad_aggregations_are_client_errors() {
    let dir = tempfile::tempdir().unwrap();
    let s = TestServer::start(dir.path(), &[]);
    load(&s, "e", 1, &docs(3, 10));
    for (body, kind, text) in [
        (
            json!({"aggs": {"a": {"termz": {"field": "tag"}}}}),
            "parsing_exception",
            "Unknown aggregation type [termz] did you mean [terms]?",
        ),
        (
            json!({"aggs": {"a": {"terms": {"field": "tag", "sise": 3}}}}),
            "parsing_exception",
            "[terms] unknown field [sise]",
        ),
        (
            json!({"aggs": {"a": {"terms": {"field": "tag", "size": 0}}}}),
            "illegal_argument_exception",
            "[size] must be greater than 0",
        ),
        (
            json!({"aggs": {"a": {"avg": {"field": "tag"}}}}),
            "illegal_argument_exception",
            "Field [tag] of type [keyword] is not supported for aggregation [avg]",
        ),
        (json!({"aggs": {"a": {"histogram": {"field": "n"}}}}), "illegal_argument_exception", "[interval] must be >0"),
        (
            json!({"aggs": {"a": {"terms": {"field": "tag"}, "max": {"field": "n"}}}}),
            "parsing_exception",
            "Found two aggregation type definitions in [a]",
        ),
        (
            json!({"aggs": {"a": {"avg": {"field": "n"}, "aggs": {"b": {"max": {"field": "n"}}}}}}),
            "aggregation_initialization_exception",
            "cannot accept sub-aggregations",
        ),
        (
            json!({"aggs": {"a": {"terms": {"field": "tag", "order": {"nope": "asc"}}}}}),
            "aggregation_execution_exception",
            "Invalid aggregator order path [nope]",
        ),
    ] {
        let r = post(s.addr, "/e/_search", &body.to_string());
        assert!(r.status >= 400 && r.status < 500, "{body}: {}", r.text());
        assert!(r.text().contains(kind), "{body}: {}", r.text());
        assert!(r.text().contains(text), "{body}: {}", r.text());
    }
}
