//! Scripts as aggregation value sources over HTTP: each script-based aggregation must answer as
//! its field-based twin does (the script reads the same field through `doc`), on one shard and
//! on three; scripts with several values per document; the refusals.

mod common;

use common::aggs::Lcg;

use common::http::{post, put, TestServer};
use serde_json::{json, Value};

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
    fails(json!({"a": {"terms": {"script": "doc['tag'].value", "value_type": "ip"}}}), "not supported by this node");
    fails(json!({"a": {"avg": {"field": "n", "script": "_value * 2", "value_type": "string"}}}), "value script");
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

/// Documents for the value-script, string-script, score and date tests: (tags, n, d millis, body).
type Doc = (Vec<String>, Option<i64>, Option<i64>, String);

fn load_docs(s: &TestServer, index: &str, shards: u32, count: usize) -> Vec<Doc> {
    let body = json!({
        "settings": {"number_of_shards": shards, "number_of_replicas": 0},
        "mappings": {"properties": {"tag": {"type": "keyword"}, "n": {"type": "long"}, "d": {"type": "date"},
            "body": {"type": "text"}}}
    });
    let r = put(s.addr, &format!("/{index}"), &body.to_string());
    assert_eq!(r.status, 200, "{}", r.text());
    let mut r = Lcg(11);
    let mut docs = Vec::new();
    let mut bulk = String::new();
    for i in 0..count {
        let tags: Vec<String> = (0..r.below(3)).map(|_| format!("k{}", r.below(5))).collect();
        let n = (r.below(6) != 0).then(|| r.below(20) as i64 - 5);
        // 2015 .. 2024, any time of day.
        let d =
            (r.below(5) != 0).then(|| 1_420_070_400_000 + (r.below(3650) * 86_400_000 + r.below(86_400_000)) as i64);
        let words = ["fox", "dog", "cat", "owl"];
        let body: Vec<&str> = (0..1 + r.below(4)).map(|_| words[r.below(4) as usize]).collect();
        let mut src = serde_json::Map::new();
        src.insert("tag".into(), json!(tags));
        if let Some(n) = n {
            src.insert("n".into(), json!(n));
        }
        if let Some(d) = d {
            src.insert("d".into(), json!(d));
        }
        src.insert("body".into(), json!(body.join(" ")));
        bulk.push_str(&json!({"index": {"_index": index, "_id": i.to_string()}}).to_string());
        bulk.push('\n');
        bulk.push_str(&Value::Object(src).to_string());
        bulk.push('\n');
        docs.push((tags, n, d, body.join(" ")));
    }
    let resp = common::http::send(
        s.addr,
        "POST",
        "/_bulk?refresh=true",
        Some(bulk.as_bytes()),
        &[("content-type", "application/x-ndjson")],
    );
    assert_eq!(resp.status, 200, "{}", resp.text());
    docs
}

/// A terms result as (key as JSON, doc_count), in response order.
fn buckets(v: &Value) -> Vec<(Value, u64)> {
    v["buckets"].as_array().unwrap().iter().map(|b| (b["key"].clone(), b["doc_count"].as_u64().unwrap())).collect()
}

/// The naive terms model: each doc counts once per distinct key, ordered by count desc then key.
fn model_terms<K: Ord + Clone>(keys_of_docs: impl Iterator<Item = Vec<K>>) -> Vec<(K, u64)> {
    let mut m = std::collections::BTreeMap::new();
    for mut ks in keys_of_docs {
        ks.sort();
        ks.dedup();
        for k in ks {
            *m.entry(k).or_insert(0u64) += 1;
        }
    }
    let mut v: Vec<(K, u64)> = m.into_iter().collect();
    v.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    v
}

#[test]
fn value_scripts_map_each_value() {
    let dir = tempfile::tempdir().unwrap();
    let s = TestServer::start(dir.path(), &[]);
    for (index, shards) in [("v1", 1), ("v3", 3)] {
        let docs = load_docs(&s, index, shards, 200);
        // A numeric field: `_value` is the value as a double, keys are doubles.
        let a = aggs(&s, index, json!({"a": {"terms": {"field": "n", "script": "_value * 2 + 1", "size": 100}}}));
        let want = model_terms(docs.iter().map(|d| d.1.map(|n| 2 * n + 1).into_iter().collect()));
        let got: Vec<(i64, u64)> = buckets(&a["a"]).into_iter().map(|(k, c)| (k.as_f64().unwrap() as i64, c)).collect();
        assert_eq!(got, want, "{index}");
        assert!(buckets(&a["a"]).iter().all(|(k, _)| k.is_f64()), "{a}");
        // A keyword field: strings in, the script's toString out, every value of the doc.
        let a = aggs(&s, index, json!({"a": {"terms": {"field": "tag", "script": "_value + '_x'", "size": 100}}}));
        let want = model_terms(docs.iter().map(|d| d.0.iter().map(|t| format!("{t}_x")).collect()));
        let got: Vec<(String, u64)> =
            buckets(&a["a"]).into_iter().map(|(k, c)| (k.as_str().unwrap().to_string(), c)).collect();
        assert_eq!(got, want, "{index}");
        // A number from a keyword value script is a string key.
        let a = aggs(&s, index, json!({"a": {"terms": {"field": "tag", "script": "_value.length()", "size": 5}}}));
        assert_eq!(buckets(&a["a"])[0].0, json!("2"), "{a}");
        // Metrics: the script on each value; `missing` stands for docs without values (not scripted).
        let a = aggs(
            &s,
            index,
            json!({"s": {"sum": {"field": "n", "script": {"source": "_value * params.f", "params": {"f": 3}}}},
                "m": {"sum": {"field": "n", "script": "_value * 3", "missing": 100}},
                "c": {"value_count": {"field": "tag", "script": "_value + 'z'"}}}),
        );
        let sum: i64 = docs.iter().filter_map(|d| d.1).sum();
        let without = docs.iter().filter(|d| d.1.is_none()).count() as i64;
        assert_eq!(a["s"]["value"], json!((3 * sum) as f64), "{index}");
        assert_eq!(a["m"]["value"], json!((3 * sum + 100 * without) as f64), "{index}");
        let tags: usize = docs.iter().map(|d| d.0.iter().collect::<std::collections::BTreeSet<_>>().len()).sum();
        assert_eq!(a["c"]["value"], json!(tags), "{index}");
        // OpenSearch's painless 100_terms_agg: a value script reading `doc` instead of `_value`.
        let a = aggs(&s, index, json!({"a": {"terms": {"field": "n", "script": {"source": "return doc.n[0] + 1"}}}}));
        assert!(buckets(&a["a"]).iter().all(|(k, _)| k.is_f64()), "{a}");
        // An unmapped field runs no script: only `missing` counts.
        let a = aggs(&s, index, json!({"a": {"terms": {"field": "nope", "script": "_value + 1", "missing": "m"}}}));
        assert_eq!(buckets(&a["a"]), vec![(json!("m"), docs.len() as u64)]);
    }
    let fails = |aggs: Value, needle: &str| {
        let r = post(s.addr, "/v1/_search", &json!({"size": 0, "aggs": aggs}).to_string());
        assert_eq!(r.status, 400, "{}", r.text());
        assert!(r.text().contains(needle), "{needle}: {}", r.text());
    };
    // `runAsDouble`: a numeric value script must give a number.
    fails(json!({"a": {"sum": {"field": "n", "script": "'x' + _value"}}}), "cannot be cast to class java.lang.Number");
    fails(
        json!({"a": {"terms": {"field": "d", "script": "_value", "value_type": "string"}}}),
        "not supported by this node",
    );
    fails(json!({"a": {"terms": {"field": "body", "script": "_value"}}}), "Text fields are not optimised");
    s.stop();
}

#[test]
fn string_scripts_are_bytes_sources() {
    let dir = tempfile::tempdir().unwrap();
    let s = TestServer::start(dir.path(), &[]);
    for (index, shards) in [("s1", 1), ("s3", 3)] {
        let docs = load_docs(&s, index, shards, 200);
        let tags = "doc['tag']";
        let field = aggs(
            &s,
            index,
            json!({"t": {"terms": {"field": "tag", "size": 100}}, "c": {"cardinality": {"field": "tag"}},
                "v": {"value_count": {"field": "tag"}}, "m": {"missing": {"field": "tag"}}}),
        );
        let script = aggs(
            &s,
            index,
            json!({"t": {"terms": {"script": format!("{tags}.values"), "size": 100}},
                "c": {"cardinality": {"script": format!("{tags}.values")}},
                "v": {"value_count": {"script": format!("{tags}.values")}},
                "m": {"missing": {"script": format!("{tags}.empty ? null : {tags}.value")}}}),
        );
        assert_eq!(field, script, "{index}");
        // Concatenation, and `missing` for the docs the script gives nothing.
        let a = aggs(
            &s,
            index,
            json!({"t": {"terms": {"script": "doc['tag'].empty ? null : doc['tag'].value + '-' + doc['tag'].size()",
                "missing": "none", "size": 100}}}),
        );
        let want = model_terms(docs.iter().map(|d| {
            let mut t = d.0.clone();
            t.sort();
            t.dedup();
            vec![t.first().map_or("none".to_string(), |f| format!("{f}-{}", t.len()))]
        }));
        let got: Vec<(String, u64)> =
            buckets(&a["t"]).into_iter().map(|(k, c)| (k.as_str().unwrap().to_string(), c)).collect();
        assert_eq!(got, want, "{index}");
        // A number from a terms script without value_type is a string key (ScriptBytesValues).
        let a =
            aggs(&s, index, json!({"t": {"terms": {"script": "doc['n'].empty ? null : doc['n'].value", "size": 100}}}));
        let want = model_terms(docs.iter().map(|d| d.1.map(|n| n.to_string()).into_iter().collect()));
        let got: Vec<(String, u64)> =
            buckets(&a["t"]).into_iter().map(|(k, c)| (k.as_str().unwrap().to_string(), c)).collect();
        assert_eq!(got, want, "{index}");
        // `missing` on a numeric script source, min_doc_count 0 keeps the script's every term.
        let a = aggs(
            &s,
            index,
            json!({"s": {"sum": {"script": "doc['n'].empty ? null : doc['n'].value", "missing": 1000}},
                "z": {"terms": {"script": "doc['tag'].values", "min_doc_count": 0, "size": 100,
                    "include": "k[01]"}}}),
        );
        let sum: i64 = docs.iter().map(|d| d.1.unwrap_or(1000)).sum();
        assert_eq!(a["s"]["value"], json!(sum as f64), "{index}");
        assert_eq!(buckets(&a["z"]).len(), 2, "{a}");
    }
    s.stop();
}

#[test]
fn score_in_value_source_scripts() {
    let dir = tempfile::tempdir().unwrap();
    let s = TestServer::start(dir.path(), &[]);
    for (index, shards) in [("q1", 1), ("q3", 3)] {
        let docs = load_docs(&s, index, shards, 120);
        let q = json!({"match": {"body": "fox owl"}});
        let r = post(
            s.addr,
            &format!("/{index}/_search"),
            &json!({"size": 1000, "query": q, "aggs": {"s": {"sum": {"script": "_score"}},
                "x": {"max": {"script": "_score * 2"}},
                "t": {"terms": {"field": "tag", "size": 1}, "aggs": {"m": {"min": {"script": "_score"}}}}}})
            .to_string(),
        );
        assert_eq!(r.status, 200, "{}", r.text());
        let v = r.json();
        let hits = v["hits"]["hits"].as_array().unwrap();
        let matching = docs.iter().filter(|d| d.3.contains("fox") || d.3.contains("owl")).count();
        assert_eq!(hits.len(), matching);
        let scores: Vec<f64> = hits.iter().map(|h| h["_score"].as_f64().unwrap()).collect();
        let sum: f64 = scores.iter().sum();
        let max = scores.iter().cloned().fold(f64::MIN, f64::max);
        assert!(scores.iter().any(|&x| x != scores[0]), "scores vary");
        let a = &v["aggregations"];
        assert!((a["s"]["value"].as_f64().unwrap() - sum).abs() < 1e-3, "{a} vs {sum}");
        assert!((a["x"]["value"].as_f64().unwrap() - 2.0 * max).abs() < 1e-4, "{a} vs {max}");
        let m = a["t"]["buckets"][0]["m"]["value"].as_f64().unwrap();
        assert!(m > 0.0 && m <= max + 1e-6, "{a}");
    }
    s.stop();
}

#[test]
fn dates_in_aggregation_scripts() {
    let dir = tempfile::tempdir().unwrap();
    let s = TestServer::start(dir.path(), &[]);
    for (index, shards) in [("d1", 1), ("d3", 3)] {
        let docs = load_docs(&s, index, shards, 200);
        let d = "doc['d']";
        let a = aggs(
            &s,
            index,
            json!({"y": {"terms": {"script": format!("{d}.empty ? null : {d}.value.year"), "value_type": "long", "size": 100}},
                "m": {"max": {"script": format!("{d}.empty ? null : {d}.value.millis")}},
                "g": {"min": {"script": format!("{d}.empty ? null : {d}.value.getMillis()")}},
                "h": {"terms": {"script": format!("{d}.empty ? -1 : {d}.value.getHour() * 100 + {d}.value.getMinute()"),
                    "value_type": "long", "size": 5, "order": {"_key": "asc"}}},
                "mo": {"terms": {"script": format!("{d}.empty ? null : {d}.value.getMonthValue() + '/' + {d}.value.getDayOfMonth()"),
                    "size": 3}},
                "f": {"max": {"field": "d"}}}),
        );
        let civil = |ms: i64| {
            let days = ms.div_euclid(86_400_000);
            // Howard Hinnant's civil_from_days, the model for the server's own.
            let z = days + 719_468;
            let era = z.div_euclid(146_097);
            let doe = z - era * 146_097;
            let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
            let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
            let mp = (5 * doy + 2) / 153;
            let day = doy - (153 * mp + 2) / 5 + 1;
            let month = if mp < 10 { mp + 3 } else { mp - 9 };
            (yoe + era * 400 + i64::from(month <= 2), month, day)
        };
        let want = model_terms(docs.iter().map(|x| x.2.map(|ms| civil(ms).0).into_iter().collect()));
        let got: Vec<(i64, u64)> = buckets(&a["y"]).into_iter().map(|(k, c)| (k.as_i64().unwrap(), c)).collect();
        assert_eq!(got, want, "{index}");
        let max = docs.iter().filter_map(|x| x.2).max().unwrap();
        let min = docs.iter().filter_map(|x| x.2).min().unwrap();
        assert_eq!(a["m"]["value"], json!(max as f64));
        assert_eq!(a["m"]["value"], a["f"]["value"]);
        assert_eq!(a["g"]["value"], json!(min as f64));
        let first = docs.iter().filter_map(|x| x.2).map(|ms| ms.rem_euclid(86_400_000) / 60_000).min().unwrap();
        let first = (first / 60) * 100 + first % 60;
        let keys: Vec<i64> = buckets(&a["h"]).iter().map(|(k, _)| k.as_i64().unwrap()).collect();
        assert_eq!(keys[0], -1);
        assert_eq!(keys[1], first, "{a}");
        let want = model_terms(
            docs.iter().map(|x| x.2.map(|ms| format!("{}/{}", civil(ms).1, civil(ms).2)).into_iter().collect()),
        );
        assert_eq!(buckets(&a["mo"])[0], (json!(want[0].0), want[0].1), "{index}");
        // A date as a string key is its strict_date_time; as a date_histogram source, its millis.
        let a = aggs(
            &s,
            index,
            json!({"s": {"terms": {"script": format!("{d}.empty ? null : {d}.value"), "size": 1, "order": {"_key": "asc"}}},
                "h": {"date_histogram": {"script": format!("{d}.empty ? null : {d}.value"), "calendar_interval": "year"}},
                "hf": {"date_histogram": {"field": "d", "calendar_interval": "year"}}}),
        );
        let key = a["s"]["buckets"][0]["key"].as_str().unwrap().to_string();
        let (y, mo, da) = civil(min);
        let tod = min.rem_euclid(86_400_000);
        assert_eq!(
            key,
            format!(
                "{y:04}-{mo:02}-{da:02}T{:02}:{:02}:{:02}.{:03}Z",
                tod / 3_600_000,
                tod / 60_000 % 60,
                tod / 1000 % 60,
                tod % 1000
            )
        );
        assert_eq!(a["h"], a["hf"], "{index}");
    }
    s.stop();
}
