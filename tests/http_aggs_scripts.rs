//! Scripts as aggregation value sources over HTTP: each script-based aggregation must answer as
//! its field-based twin does (the script reads the same field through `doc`), on one shard and
//! on three; scripts with several values per document; the refusals.

mod common;

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

fn load(s: &TestServer, index: &str, shards: u32, count: usize) {
    let body = json!({
        "settings": {"number_of_shards": shards, "number_of_replicas": 0},
        "mappings": {"properties": {"tag": {"type": "keyword"}, "n": {"type": "long"}, "x": {"type": "double"},
            "t": {"type": "text"}}}
    });
    let r = put(s.addr, &format!("/{index}"), &body.to_string());
    assert_eq!(r.status, 200, "{}", r.text());
    let mut r = Lcg(7);
    let mut bulk = String::new();
    for i in 0..count {
        bulk.push_str(&json!({"index": {"_index": index, "_id": i.to_string()}}).to_string());
        bulk.push('\n');
        let mut src = serde_json::Map::new();
        if r.below(10) != 0 {
            src.insert("tag".into(), json!(format!("t{}", r.below(7))));
        }
        if r.below(8) != 0 {
            src.insert("n".into(), json!(r.below(50) as i64 - 10));
        }
        src.insert("x".into(), json!((r.below(1000) as f64) / 8.0));
        bulk.push_str(&Value::Object(src).to_string());
        bulk.push('\n');
    }
    let resp = common::http::send(
        s.addr,
        "POST",
        "/_bulk?refresh=true",
        Some(bulk.as_bytes()),
        &[("content-type", "application/x-ndjson")],
    );
    assert_eq!(resp.status, 200, "{}", resp.text());
}

fn aggs(s: &TestServer, index: &str, aggs: Value) -> Value {
    let body = json!({"size": 0, "aggs": aggs});
    let r = post(s.addr, &format!("/{index}/_search"), &body.to_string());
    assert_eq!(r.status, 200, "{}", r.text());
    r.json()["aggregations"].clone()
}

const N: &str = "doc['n'].size() == 0 ? null : doc['n'].value";
const X: &str = "doc['x'].value";

#[test]
fn script_sources_match_fields() {
    let dir = tempfile::tempdir().unwrap();
    let s = TestServer::start(dir.path(), &[]);
    for (index, shards) in [("one", 1), ("three", 3)] {
        load(&s, index, shards, 300);
        for (kind, extra) in [
            ("avg", json!({})),
            ("sum", json!({})),
            ("min", json!({})),
            ("max", json!({})),
            ("stats", json!({})),
            ("extended_stats", json!({})),
            ("value_count", json!({})),
            ("cardinality", json!({})),
            ("percentiles", json!({"percents": [1, 50, 99]})),
            ("histogram", json!({"interval": 5})),
        ] {
            for (field, script) in [("x", X), ("n", N)] {
                let mut by_field = extra.clone();
                by_field["field"] = json!(field);
                let mut by_script = extra.clone();
                by_script["script"] = json!({"source": script});
                let a = aggs(&s, index, json!({"a": {kind: by_field}}));
                let b = aggs(&s, index, json!({"a": {kind: by_script}}));
                let v = &b["a"];
                assert!(
                    v["value"].as_f64().is_some_and(|x| x != 0.0)
                        || v["count"].as_u64() > Some(0)
                        || v["values"].is_object()
                        || v["buckets"].as_array().is_some_and(|b| b.len() > 3),
                    "{kind}: {v}"
                );
                if field == "n" && kind == "histogram" {
                    // The script's values are doubles: keys match, as numbers.
                    let keys = |v: &Value| -> Vec<(f64, u64)> {
                        v["a"]["buckets"]
                            .as_array()
                            .unwrap()
                            .iter()
                            .map(|b| (b["key"].as_f64().unwrap(), b["doc_count"].as_u64().unwrap()))
                            .collect()
                    };
                    assert_eq!(keys(&a), keys(&b), "{kind} {field} on {index}");
                } else {
                    assert_eq!(a, b, "{kind} {field} on {index}");
                }
            }
        }
        // terms on a numeric script needs a numeric value_type; then it matches the long field.
        let a = aggs(&s, index, json!({"a": {"terms": {"field": "n", "size": 100}}}));
        let b = aggs(&s, index, json!({"a": {"terms": {"script": N, "value_type": "long", "size": 100}}}));
        assert_eq!(a, b, "terms on {index}");
        // Several values per document: one per element of the returned list.
        let a = aggs(&s, index, json!({"a": {"value_count": {"field": "x"}}}));
        let b = aggs(
            &s,
            index,
            json!({"a": {"value_count": {"script": {"source": "[doc['x'].value, doc['x'].value + params.d]", "params": {"d": 1}}}}}),
        );
        assert_eq!(b["a"]["value"].as_u64(), a["a"]["value"].as_u64().map(|v| v * 2));
        // A keyword read through doc, made numeric.
        let b = aggs(
            &s,
            index,
            json!({"a": {"sum": {"script": "doc['tag'].size() == 0 ? 0 : Integer.parseInt(doc['tag'].value.substring(1))"}}}),
        );
        assert!(b["a"]["value"].as_f64().unwrap() > 0.0);
    }
    s.stop();
}

#[test]
fn script_source_errors() {
    let dir = tempfile::tempdir().unwrap();
    let s = TestServer::start(dir.path(), &[]);
    load(&s, "e", 1, 20);
    let fails = |aggs: Value, needle: &str| {
        let body = json!({"size": 0, "aggs": aggs});
        let r = post(s.addr, "/e/_search", &body.to_string());
        assert_eq!(r.status, 400, "{}", r.text());
        assert!(r.text().contains(needle), "{needle}: {}", r.text());
    };
    fails(json!({"a": {"avg": {"script": "doc['zz'].value"}}}), "No field found for [zz] in mapping");
    fails(json!({"a": {"avg": {"script": "doc['t'].value"}}}), "Text fields are not optimised");
    fails(json!({"a": {"avg": {"script": "doc['tag'].value"}}}), "Unsupported script value");
    fails(json!({"a": {"avg": {"script": "doc['n'].value"}}}), "doesn't have a value");
    fails(json!({"a": {"avg": {"script": "doc['n'].value +"}}}), "compile error");
    fails(json!({"a": {"terms": {"script": "doc['tag'].value"}}}), "not supported by this node");
    fails(json!({"a": {"avg": {"script": "_score"}}}), "[_score]");
    fails(json!({"a": {"avg": {"field": "n", "script": "_value * 2"}}}), "value script");
    s.stop();
}

#[test]
fn scripted_metric_profit() {
    let dir = tempfile::tempdir().unwrap();
    let s = TestServer::start(dir.path(), &[]);
    for (index, shards) in [("p1", 1), ("p3", 3)] {
        let body = json!({"settings": {"number_of_shards": shards, "number_of_replicas": 0},
            "mappings": {"properties": {"type": {"type": "keyword"}, "amount": {"type": "long"}, "x": {"type": "double"}}}});
        assert_eq!(put(s.addr, &format!("/{index}"), &body.to_string()).status, 200);
        let mut bulk = String::new();
        let mut r = Lcg(3);
        let mut profit = 0i64;
        for i in 0..200 {
            let sale = r.below(3) != 0;
            let amount = r.below(100) as i64;
            profit += if sale { amount } else { -amount };
            bulk.push_str(&json!({"index": {"_index": index, "_id": i.to_string()}}).to_string());
            bulk.push('\n');
            bulk.push_str(&json!({"type": if sale {"sale"} else {"cost"}, "amount": amount, "x": 1}).to_string());
            bulk.push('\n');
        }
        let resp = common::http::send(
            s.addr,
            "POST",
            "/_bulk?refresh=true",
            Some(bulk.as_bytes()),
            &[("content-type", "application/x-ndjson")],
        );
        assert_eq!(resp.status, 200);
        let a = aggs(
            &s,
            index,
            json!({"profit": {"scripted_metric": {
                "init_script": "state.transactions = []",
                "map_script": "state.transactions.add(doc.type.value == 'sale' ? doc.amount.value : -1 * doc.amount.value)",
                "combine_script": "double profit = 0; for (t in state.transactions) { profit += t } return profit",
                "reduce_script": "double profit = 0; for (a in states) { profit += a } return profit"
            }}}),
        );
        assert_eq!(a["profit"]["value"], json!(profit as f64), "{index}");
        // The same by params, and the count of shard states seen by the reduce.
        let a = aggs(
            &s,
            index,
            json!({"c": {"scripted_metric": {
                "params": {"w": 2},
                "map_script": "state.n = (state.n == null ? 0 : state.n) + params.w",
                "combine_script": "state.n",
                "reduce_script": {"source": "long t = 0; for (a in states) { if (a != null) { t += a } } return t + params.k", "params": {"k": 1}}
            }}}),
        );
        assert_eq!(a["c"]["value"], json!(401), "{index}");
    }
    let fails = |aggs: Value, needle: &str| {
        let r = post(s.addr, "/p1/_search", &json!({"size": 0, "aggs": aggs}).to_string());
        assert_eq!(r.status, 400, "{}", r.text());
        assert!(r.text().contains(needle), "{needle}: {}", r.text());
    };
    fails(
        json!({"m": {"scripted_metric": {"combine_script": "1", "reduce_script": "1"}}}),
        "[mapScript] must not be null: [m]",
    );
    fails(
        json!({"m": {"scripted_metric": {"map_script": "1", "reduce_script": "1"}}}),
        "[combineScript] must not be null: [m]",
    );
    fails(
        json!({"m": {"scripted_metric": {"map_script": "1", "combine_script": "1"}}}),
        "[reduceScript] must not be null: [m]",
    );
    fails(
        json!({"m": {"scripted_metric": {"map_script": "1", "combine_script": "1", "reduce_script": "1", "bad": 1}}}),
        "unknown field [bad]",
    );
    fails(
        json!({"m": {"scripted_metric": {"params": {"a": 1}, "map_script": {"source": "1", "params": {"a": 2}},
        "combine_script": "1", "reduce_script": "1"}}}),
        "used in both aggregation and script parameters",
    );
    s.stop();
}
