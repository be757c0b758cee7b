//! Pipelines over hand-built reduced results, checked against direct computations.

use serde_json::{json, Value};

use super::super::fmt::Fmt;
use super::super::parse::parse_aggs;
use super::super::result::{AggResult, Bucket, Buckets, Key, KeyKind, Stats};
use super::super::{render, run_pipelines, AggDef, RenderCtx};

fn stats(vals: &[f64]) -> AggResult {
    let mut s = Stats::default();
    for v in vals {
        s.add(*v);
    }
    AggResult::Stats(s, Fmt::Raw)
}

/// A histogram `h` (interval 1) whose buckets hold `sum` over the given values per bucket (an
/// empty slice is an empty bucket), then the definitions' other subs as placeholders.
fn histo(defs: &[AggDef], per_bucket: &[&[f64]]) -> Vec<AggResult> {
    let h = &defs[0];
    let buckets = per_bucket
        .iter()
        .enumerate()
        .map(|(i, vals)| {
            let subs = h.subs.iter().map(|d| if d.name == "s" { stats(vals) } else { d.empty() }).collect();
            Bucket::new(Key::Double(i as f64), vals.len() as u64, subs)
        })
        .collect();
    let mut out = vec![AggResult::Buckets(Buckets::of(KeyKind::Double, buckets))];
    out.extend(defs[1..].iter().map(AggDef::empty));
    out
}

fn run(aggs: Value, per_bucket: &[&[f64]]) -> Value {
    let defs = parse_aggs(&aggs).unwrap();
    let mut results = histo(&defs, per_bucket);
    run_pipelines(&defs, &mut results, None).unwrap();
    render(&defs, &results, &RenderCtx::default()).unwrap()
}

fn err(aggs: Value) -> String {
    parse_aggs(&aggs).unwrap_err().reason
}

#[test]
fn sibling_bucket_metrics() {
    let aggs = json!({
        "h": {"histogram": {"field": "x", "interval": 1}, "aggs": {"s": {"sum": {"field": "x"}}}},
        "avg": {"avg_bucket": {"buckets_path": "h>s"}},
        "sum": {"sum_bucket": {"buckets_path": "h.s"}},
        "max": {"max_bucket": {"buckets_path": "h>s"}},
        "min": {"min_bucket": {"buckets_path": "h>s", "gap_policy": "insert_zeros"}},
        "st": {"stats_bucket": {"buckets_path": "h>s"}},
        "pc": {"percentiles_bucket": {"buckets_path": "h>s", "percents": [0, 50, 100]}},
        "cnt": {"max_bucket": {"buckets_path": "h>_count", "format": "0.00"}}
    });
    let out = run(aggs, &[&[1.0, 2.0], &[], &[5.0], &[2.0, 1.0]]);
    // Sums 3, (empty), 5, 3: the empty bucket is skipped except with insert_zeros.
    assert_eq!(out["avg"]["value"], json!(11.0 / 3.0));
    assert_eq!(out["sum"]["value"], json!(11.0));
    assert_eq!(out["max"], json!({"value": 5.0, "keys": ["2.0"]}));
    assert_eq!(out["min"], json!({"value": 0.0, "keys": ["1.0"]}));
    assert_eq!(out["st"]["count"], json!(3));
    assert_eq!(out["st"]["min"], json!(3.0));
    assert_eq!(out["pc"]["values"], json!({"0.0": 3.0, "50.0": 3.0, "100.0": 5.0}));
    assert_eq!(out["cnt"], json!({"value": 2.0, "value_as_string": "2.00", "keys": ["0.0", "3.0"]}));
}

#[test]
fn parent_pipelines_add_values_to_buckets() {
    let aggs = json!({
        "h": {"histogram": {"field": "x", "interval": 1}, "aggs": {
            "s": {"sum": {"field": "x"}},
            "d": {"derivative": {"buckets_path": "s"}},
            "c": {"cumulative_sum": {"buckets_path": "s"}},
            "sd": {"serial_diff": {"buckets_path": "s", "lag": 2}},
            "mf": {"moving_fn": {"buckets_path": "s", "window": 2, "script": "MovingFunctions.sum(values)"}},
            "bs": {"bucket_script": {"buckets_path": {"a": "s", "n": "_count"}, "script": "params.a / params.n"}}
        }}
    });
    let out = run(aggs, &[&[1.0, 2.0], &[4.0], &[], &[10.0]]);
    let b = &out["h"]["buckets"];
    assert!(b[0].get("d").is_none());
    assert_eq!(b[1]["d"]["value"], json!(1.0));
    // The empty bucket's value is NaN under skip: its derivative and the next are null.
    assert_eq!(b[2]["d"]["value"], Value::Null);
    assert_eq!(b[3]["d"]["value"], Value::Null);
    assert_eq!(b[3]["c"]["value"], json!(17.0));
    assert!(b[1].get("sd").is_none());
    assert_eq!(b[3]["sd"]["value"], json!(6.0));
    assert_eq!(b[0]["mf"]["value"], json!(0.0));
    assert_eq!(b[1]["mf"]["value"], json!(3.0));
    assert!(b[2].get("mf").is_none());
    assert_eq!(b[3]["mf"]["value"], json!(7.0));
    assert_eq!(b[0]["bs"]["value"], json!(1.5));
    assert!(b[2].get("bs").is_none());
}

#[test]
fn selector_and_sort_rewrite_buckets() {
    let aggs = json!({
        "h": {"histogram": {"field": "x", "interval": 1}, "aggs": {
            "s": {"sum": {"field": "x"}},
            "keep": {"bucket_selector": {"buckets_path": {"v": "s"}, "script": "params.v > 2"}},
            "order": {"bucket_sort": {"sort": [{"s": {"order": "desc"}}], "size": 2}}
        }}
    });
    let out = run(aggs, &[&[1.0], &[4.0], &[3.0], &[9.0]]);
    let keys: Vec<_> = out["h"]["buckets"].as_array().unwrap().iter().map(|b| b["key"].clone()).collect();
    assert_eq!(keys, vec![json!(3.0), json!(1.0)]);
}

#[test]
fn validation_messages() {
    assert_eq!(
        err(json!({"t": {"terms": {"field": "x"}}, "b": {"bucket_sort": {"sort": ["t>m"]}}})),
        "Validation Failed: 1: bucket_sort aggregation [b] must be declared inside of another aggregation;"
    );
    assert_eq!(
        err(json!({"t": {"terms": {"field": "x"}, "aggs": {"d": {"derivative": {"buckets_path": "_count"}}}}})),
        "Validation Failed: 1: derivative aggregation [d] must have a histogram, date_histogram or auto_date_histogram as parent;"
    );
    assert_eq!(
        err(json!({"a": {"avg_bucket": {"buckets_path": "nope>x"}}})),
        "Validation Failed: 1: buckets_path aggregation does not exist for aggregation [a]: nope>x;"
    );
    assert_eq!(
        err(
            json!({"h": {"histogram": {"field": "x", "interval": 1}, "aggs": {"d": {"derivative": {"buckets_path": "nope"}}}}})
        ),
        "No aggregation found for path [nope]"
    );
    assert_eq!(
        err(
            json!({"h": {"histogram": {"field": "x", "interval": 1, "min_doc_count": 1}, "aggs": {"d": {"derivative": {"buckets_path": "_count"}}}}})
        ),
        "Validation Failed: 1: parent histogram of derivative aggregation [d] must have min_doc_count of 0;"
    );
    assert_eq!(
        err(json!({"h": {"histogram": {"field": "x", "interval": 1}, "aggs": {
            "a": {"bucket_script": {"buckets_path": {"x": "b"}, "script": "params.x"}},
            "b": {"bucket_script": {"buckets_path": {"x": "a"}, "script": "params.x"}}}}})),
        "Cyclical dependency found with pipeline aggregator [a]"
    );
    assert_eq!(
        err(json!({"m": {"moving_fn": {"buckets_path": "x", "window": -1, "script": "MovingFunctions.max(values)"}}})),
        "[window] must be a positive, non-zero integer."
    );
    assert!(err(json!({"a": {"avg_bucket": {"buckets_path": "h>s", "gap_policy": "nope"}}}))
        .starts_with("Invalid gap policy"));
    // OpenSearch has no keep_values (Elasticsearch added it after the fork).
    assert_eq!(
        err(json!({"a": {"avg_bucket": {"buckets_path": "h>s", "gap_policy": "keep_values"}}})),
        "Invalid gap policy: [keep_values], accepted values: [insert_zeros, skip]"
    );
}

#[test]
fn moving_avg_predicts_from_the_window_before() {
    let aggs = json!({
        "h": {"histogram": {"field": "x", "interval": 1}, "aggs": {
            "s": {"sum": {"field": "x"}},
            "ma": {"moving_avg": {"buckets_path": "s", "window": 2}}
        }}
    });
    let out = run(aggs, &[&[1.0], &[3.0], &[], &[5.0], &[7.0]]);
    let b = &out["h"]["buckets"];
    assert!(b[0].get("ma").is_none());
    assert_eq!(b[1]["ma"]["value"], json!(1.0));
    assert!(b[2].get("ma").is_none());
    assert_eq!(b[3]["ma"]["value"], json!(2.0));
    assert_eq!(b[4]["ma"]["value"], json!(4.0));
}

#[test]
fn pipelines_run_after_what_they_read() {
    // The selector reads the script's output though declared first.
    let aggs = json!({
        "h": {"histogram": {"field": "x", "interval": 1}, "aggs": {
            "s": {"sum": {"field": "x"}},
            "keep": {"bucket_selector": {"buckets_path": {"v": "twice"}, "script": "params.v >= 8"}},
            "twice": {"bucket_script": {"buckets_path": {"v": "s"}, "script": "params.v * 2"}}
        }}
    });
    let out = run(aggs, &[&[1.0], &[4.0], &[3.0]]);
    let b = out["h"]["buckets"].as_array().unwrap();
    assert_eq!(b.len(), 1);
    assert_eq!(b[0]["twice"]["value"], json!(8.0));
}

#[test]
fn buckets_path_errors_name_the_aggregation() {
    let aggs = json!({
        "h": {"histogram": {"field": "x", "interval": 1}, "aggs": {"s": {"stats": {"field": "x"}}}},
        "m": {"max_bucket": {"buckets_path": "h>s"}}
    });
    let defs = parse_aggs(&aggs).unwrap();
    let mut results = histo(&defs, &[&[1.0]]);
    let e = run_pipelines(&defs, &mut results, None).unwrap_err();
    assert!(e.reason.contains("but [s] contains multiple values"), "{}", e.reason);
}
