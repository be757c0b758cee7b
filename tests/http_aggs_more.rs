//! More aggregations over HTTP against a naive model of random documents, on one shard and on
//! three: top_hits (under terms and under nested), nested and reverse_nested, sampler and
//! diversified_sampler, weighted_avg and adjacency_matrix; and their client errors.

mod common;

use common::aggs::{close, search, Lcg};

use std::collections::{BTreeMap, BTreeSet};

use common::http::{post, put, TestServer};
use serde_json::{json, Value};

#[derive(Debug, Clone)]
struct Item {
    k: String,
    v: i64,
}

#[derive(Debug, Clone)]
struct Doc {
    tag: Option<String>,
    n: Option<i64>,
    /// Distinct across documents (sorts have no ties).
    x: f64,
    items: Vec<Item>,
}

fn docs(seed: u64, count: usize) -> Vec<Doc> {
    let mut r = Lcg(seed);
    (0..count)
        .map(|i| Doc {
            tag: (r.below(10) != 0).then(|| format!("t{}", r.below(5))),
            n: (r.below(6) != 0).then(|| r.below(40) as i64 - 10),
            x: ((i * 7919) % 1000) as f64 / 8.0,
            items: (0..r.below(4)).map(|_| Item { k: format!("k{}", r.below(4)), v: r.below(100) as i64 }).collect(),
        })
        .collect()
}

fn load(s: &TestServer, index: &str, shards: u32, docs: &[Doc]) {
    let body = json!({
        "settings": {"number_of_shards": shards, "number_of_replicas": 0},
        "mappings": {"properties": {
            "tag": {"type": "keyword"}, "n": {"type": "long"}, "x": {"type": "double"},
            "items": {"type": "nested", "properties": {"k": {"type": "keyword"}, "v": {"type": "long"}}}
        }}
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
        if !d.items.is_empty() {
            src.insert("items".into(), d.items.iter().map(|it| json!({"k": it.k, "v": it.v})).collect());
        }
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

/// Each index of the test: (name, documents), on one shard and on three.
fn indices(s: &TestServer) -> Vec<(String, Vec<Doc>)> {
    let mut out = Vec::new();
    for (seed, n) in [(3u64, 80usize), (11, 250)] {
        let ds = docs(seed, n);
        for shards in [1u32, 3] {
            let index = format!("more{seed}s{shards}");
            load(s, &index, shards, &ds);
            out.push((index, ds.clone()));
        }
    }
    out
}

#[test]
fn aggregations_match_a_naive_model() {
    let dir = tempfile::tempdir().unwrap();
    let s = TestServer::start(dir.path(), &[]);
    for (index, ds) in indices(&s) {
        top_hits_per_tag(&s, &index, &ds);
        nested_and_back(&s, &index, &ds);
        weighted_avg(&s, &index, &ds);
        adjacency(&s, &index, &ds);
        samplers(&s, &index, &ds);
    }
}

fn top_hits_per_tag(s: &TestServer, index: &str, ds: &[Doc]) {
    let r = search(
        s,
        index,
        json!({"size": 0, "aggs": {"tags": {"terms": {"field": "tag", "size": 20}, "aggs": {
            "best": {"top_hits": {"size": 2, "from": 1, "sort": [{"x": "desc"}], "_source": ["x"]}}
        }}}}),
    );
    let mut by_tag: BTreeMap<&str, Vec<(f64, usize)>> = BTreeMap::new();
    for (i, d) in ds.iter().enumerate() {
        if let Some(t) = &d.tag {
            by_tag.entry(t).or_default().push((d.x, i));
        }
    }
    let buckets = r["aggregations"]["tags"]["buckets"].as_array().unwrap();
    assert_eq!(buckets.len(), by_tag.len(), "{index}");
    for b in buckets {
        let tag = b["key"].as_str().unwrap();
        let mut want = by_tag[tag].clone();
        want.sort_by(|a, b| b.0.total_cmp(&a.0));
        let hits = &b["best"]["hits"];
        assert_eq!(hits["total"], json!({"value": want.len(), "relation": "eq"}), "{index} {tag}");
        assert_eq!(hits["max_score"], Value::Null);
        let got: Vec<(String, f64)> = hits["hits"]
            .as_array()
            .unwrap()
            .iter()
            .map(|h| {
                assert_eq!(h["_score"], Value::Null);
                assert_eq!(h["_source"].as_object().unwrap().len(), 1, "{h}");
                assert_eq!(h["sort"][0], h["_source"]["x"]);
                (h["_id"].as_str().unwrap().to_string(), h["_source"]["x"].as_f64().unwrap())
            })
            .collect();
        let want: Vec<(String, f64)> = want.iter().skip(1).take(2).map(|(x, i)| (i.to_string(), *x)).collect();
        assert_eq!(got, want, "{index} {tag}");
    }
    // Unsorted: by score (all 1.0 under match_all), with max_score; typed_keys names the type.
    let r = post(
        s.addr,
        &format!("/{index}/_search?typed_keys=true&rest_total_hits_as_int=true"),
        &json!({"size": 0, "aggs": {"any": {"top_hits": {"size": 5}}}}).to_string(),
    )
    .json();
    let hits = &r["aggregations"]["top_hits#any"]["hits"];
    assert_eq!(hits["total"], json!(ds.len()));
    assert_eq!(hits["max_score"], json!(1.0));
    assert_eq!(hits["hits"].as_array().unwrap().len(), 5.min(ds.len()));
}

fn nested_and_back(s: &TestServer, index: &str, ds: &[Doc]) {
    let r = search(
        s,
        index,
        json!({"size": 0, "query": {"range": {"x": {"gte": 20}}}, "aggs": {"items": {"nested": {"path": "items"}, "aggs": {
            "high": {"filter": {"range": {"items.v": {"gte": 50}}}},
            "k": {"terms": {"field": "items.k", "size": 10}, "aggs": {
                "sv": {"sum": {"field": "items.v"}},
                "top": {"top_hits": {"size": 1, "sort": [{"items.v": "desc"}]}},
                "back": {"reverse_nested": {}, "aggs": {"tags": {"terms": {"field": "tag", "size": 10}}}}
            }}
        }}}}),
    );
    let m: Vec<(usize, &Doc)> = ds.iter().enumerate().filter(|(_, d)| d.x >= 20.0).collect();
    let a = &r["aggregations"]["items"];
    let total: usize = m.iter().map(|(_, d)| d.items.len()).sum();
    assert_eq!(a["doc_count"], json!(total), "{index}");
    let high = m.iter().flat_map(|(_, d)| &d.items).filter(|it| it.v >= 50).count();
    assert_eq!(a["high"]["doc_count"], json!(high), "{index}");
    // Per key: item count, sum of v, best v, distinct parents and their tags.
    #[derive(Default)]
    struct K {
        count: u64,
        sum: i64,
        best: i64,
        parents: BTreeSet<usize>,
    }
    let mut ks: BTreeMap<String, K> = BTreeMap::new();
    for (i, d) in &m {
        for it in &d.items {
            let e = ks.entry(it.k.clone()).or_default();
            e.count += 1;
            e.sum += it.v;
            e.best = if e.count == 1 { it.v } else { e.best.max(it.v) };
            e.parents.insert(*i);
        }
    }
    let buckets = a["k"]["buckets"].as_array().unwrap();
    assert_eq!(buckets.len(), ks.len(), "{index}");
    for b in buckets {
        let k = &ks[b["key"].as_str().unwrap()];
        assert_eq!(b["doc_count"], json!(k.count), "{index} {b}");
        assert!(close(b["sv"]["value"].as_f64().unwrap(), k.sum as f64), "{index} {b}");
        let top = &b["top"]["hits"]["hits"][0];
        assert_eq!(top["sort"][0], json!(k.best), "{index} {b}");
        assert_eq!(top["_nested"]["field"], json!("items"));
        assert_eq!(top["_source"]["k"], b["key"], "{index} {top}");
        assert_eq!(b["back"]["doc_count"], json!(k.parents.len()), "{index} {b}");
        let mut tags: BTreeMap<&str, u64> = BTreeMap::new();
        for p in &k.parents {
            if let Some(t) = &ds[*p].tag {
                *tags.entry(t).or_default() += 1;
            }
        }
        let got: BTreeMap<&str, u64> = b["back"]["tags"]["buckets"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| (t["key"].as_str().unwrap(), t["doc_count"].as_u64().unwrap()))
            .collect();
        assert_eq!(got, tags, "{index} {b}");
    }
}

fn weighted_avg(s: &TestServer, index: &str, ds: &[Doc]) {
    let r = search(
        s,
        index,
        json!({"size": 0, "aggs": {
            "w": {"weighted_avg": {"value": {"field": "x"}, "weight": {"field": "n", "missing": 3}}},
            "by": {"terms": {"field": "tag", "size": 10}, "aggs": {"w": {"weighted_avg": {"value": {"field": "n"}, "weight": {"field": "x"}}}}}
        }}),
    );
    let (mut sum, mut weights) = (0.0, 0.0);
    for d in ds {
        let w = d.n.unwrap_or(3) as f64;
        sum += d.x * w;
        weights += w;
    }
    let got = &r["aggregations"]["w"]["value"];
    if weights == 0.0 {
        assert_eq!(got, &Value::Null);
    } else {
        assert!(close(got.as_f64().unwrap(), sum / weights), "{index} {got} {}", sum / weights);
    }
    for b in r["aggregations"]["by"]["buckets"].as_array().unwrap() {
        let tag = b["key"].as_str().unwrap();
        let (mut sum, mut weights) = (0.0, 0.0);
        for d in ds.iter().filter(|d| d.tag.as_deref() == Some(tag)) {
            if let Some(n) = d.n {
                sum += n as f64 * d.x;
                weights += d.x;
            }
        }
        let got = &b["w"]["value"];
        if weights == 0.0 {
            assert_eq!(got, &Value::Null, "{index} {b}");
        } else {
            assert!(close(got.as_f64().unwrap(), sum / weights), "{index} {b}");
        }
    }
}

fn adjacency(s: &TestServer, index: &str, ds: &[Doc]) {
    let r = search(
        s,
        index,
        json!({"size": 0, "aggs": {"m": {"adjacency_matrix": {"filters": {
            "t1": {"term": {"tag": "t1"}}, "neg": {"range": {"n": {"lt": 0}}}, "big": {"range": {"x": {"gte": 60}}}
        }}, "aggs": {"mx": {"max": {"field": "x"}}}}}}),
    );
    let tests: [(&str, Box<dyn Fn(&Doc) -> bool>); 3] = [
        ("big", Box::new(|d: &Doc| d.x >= 60.0)),
        ("neg", Box::new(|d: &Doc| d.n.is_some_and(|n| n < 0))),
        ("t1", Box::new(|d: &Doc| d.tag.as_deref() == Some("t1"))),
    ];
    let mut want: BTreeMap<String, (u64, f64)> = BTreeMap::new();
    let mut add = |k: String, d: &Doc| {
        let e = want.entry(k).or_insert((0, f64::NEG_INFINITY));
        e.0 += 1;
        e.1 = e.1.max(d.x);
    };
    for d in ds {
        for (i, (a, fa)) in tests.iter().enumerate() {
            if !fa(d) {
                continue;
            }
            add(a.to_string(), d);
            for (b, fb) in &tests[i + 1..] {
                if fb(d) {
                    add(format!("{a}&{b}"), d);
                }
            }
        }
    }
    let got: Vec<(String, u64, f64)> = r["aggregations"]["m"]["buckets"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| {
            (
                b["key"].as_str().unwrap().to_string(),
                b["doc_count"].as_u64().unwrap(),
                b["mx"]["value"].as_f64().unwrap(),
            )
        })
        .collect();
    let want: Vec<(String, u64, f64)> = want.into_iter().map(|(k, (c, m))| (k, c, m)).collect();
    assert_eq!(got, want, "{index}");
}

fn samplers(s: &TestServer, index: &str, ds: &[Doc]) {
    // Scores: 1 + 5 for tag t1 + 2 for n >= 20; a sample as large as the t1 documents on one
    // shard is exactly those documents.
    let query = json!({"bool": {"should": [
        {"constant_score": {"filter": {"match_all": {}}, "boost": 1}},
        {"constant_score": {"filter": {"term": {"tag": "t1"}}, "boost": 5}},
        {"constant_score": {"filter": {"range": {"n": {"gte": 20}}}, "boost": 2}}
    ]}});
    let t1: Vec<&Doc> = ds.iter().filter(|d| d.tag.as_deref() == Some("t1")).collect();
    let one_shard = index.ends_with("s1");
    if one_shard && !t1.is_empty() {
        let r = search(
            s,
            index,
            json!({"size": 0, "query": query, "aggs": {"s": {"sampler": {"shard_size": t1.len()}, "aggs": {
                "tags": {"terms": {"field": "tag"}}, "sx": {"sum": {"field": "x"}}
            }}}}),
        );
        let a = &r["aggregations"]["s"];
        assert_eq!(a["doc_count"], json!(t1.len()), "{index}");
        assert_eq!(a["tags"]["buckets"], json!([{"key": "t1", "doc_count": t1.len()}]), "{index}");
        assert!(close(a["sx"]["value"].as_f64().unwrap(), t1.iter().map(|d| d.x).sum()), "{index}");
    }
    // A sample larger than every shard keeps every match.
    let r = search(
        s,
        index,
        json!({"size": 0, "query": query, "aggs": {"s": {"sampler": {"shard_size": 10_000}, "aggs": {"c": {"value_count": {"field": "x"}}}}}}),
    );
    assert_eq!(r["aggregations"]["s"]["doc_count"], json!(ds.len()), "{index}");
    assert_eq!(r["aggregations"]["s"]["c"]["value"], json!(ds.len()), "{index}");
    // Diversified: one document per tag on each shard.
    let r = search(
        s,
        index,
        json!({"size": 0, "query": {"exists": {"field": "tag"}}, "aggs": {"d": {"diversified_sampler": {"field": "tag", "shard_size": 1000}, "aggs": {"tags": {"terms": {"field": "tag"}}}}}}),
    );
    let distinct: BTreeSet<&str> = ds.iter().filter_map(|d| d.tag.as_deref()).collect();
    let a = &r["aggregations"]["d"];
    let buckets = a["tags"]["buckets"].as_array().unwrap();
    assert_eq!(buckets.len(), distinct.len(), "{index}");
    if one_shard {
        assert_eq!(a["doc_count"], json!(distinct.len()), "{index}");
        assert!(buckets.iter().all(|b| b["doc_count"] == json!(1)), "{index} {a}");
    } else {
        assert!(buckets.iter().all(|b| b["doc_count"].as_u64().unwrap() <= 3), "{index} {a}");
    }
}

#[test]
fn bad_requests_are_client_errors() {
    let dir = tempfile::tempdir().unwrap();
    let s = TestServer::start(dir.path(), &[]);
    load(&s, "bad", 1, &docs(5, 10));
    for (aggs, reason) in [
        (json!({"r": {"reverse_nested": {}}}), "can only be used inside a [nested] aggregation"),
        (json!({"n": {"nested": {}}}), "Missing [path] field for nested aggregation [n]"),
        (json!({"t": {"top_hits": {"size": -1}}}), "[size] must be greater than or equal to 0. Found [-1] in [t]"),
        (json!({"t": {"top_hits": {"bogus": 1}}}), "Unknown key for a VALUE_NUMBER in [bogus]."),
        (
            json!({"t": {"top_hits": {"script_fields": {"a": {"script": "1"}}}}}),
            "Unknown key for a START_OBJECT in [script_fields].",
        ),
        (json!({"t": {"top_hits": {}, "aggs": {"c": {"max": {"field": "x"}}}}}), "cannot accept sub-aggregations"),
        (json!({"t": {"top_hits": {"size": 200}}}), "Top hits result window is too large"),
        (json!({"w": {"weighted_avg": {"value": {"field": "x"}}}}), "[weight] must be set"),
        (
            json!({"w": {"weighted_avg": {"value": {"field": "tag"}, "weight": {"field": "n"}}}}),
            "is not supported for aggregation [weighted_avg]",
        ),
        (json!({"m": {"adjacency_matrix": {}}}), "is missing : filters parameter"),
        (
            json!({"d": {"diversified_sampler": {"field": "tag", "max_docs_per_value": -2}}}),
            "[maxDocsPerValue] must be greater than or equal to 0",
        ),
    ] {
        let r = post(s.addr, "/bad/_search", &json!({"size": 0, "aggs": aggs}).to_string());
        let text = r.text();
        assert!(r.status >= 400 && r.status < 600, "{aggs}: {text}");
        assert!(text.contains(reason), "{aggs}: {text}");
    }
    // An unmapped nested path counts nothing.
    let r = search(
        &s,
        "bad",
        json!({"size": 0, "aggs": {"n": {"nested": {"path": "nope"}, "aggs": {"c": {"value_count": {"field": "nope.v"}}}}}}),
    );
    assert_eq!(r["aggregations"]["n"]["doc_count"], json!(0));
    assert_eq!(r["aggregations"]["n"]["c"]["value"], json!(0));
}

/// Random documents with zero to three intervals of `lo..=hi` (some open-ended).
fn range_docs(seed: u64, count: usize) -> Vec<Vec<(Option<i64>, Option<i64>)>> {
    let mut r = Lcg(seed);
    (0..count)
        .map(|_| {
            (0..r.below(4))
                .map(|_| {
                    // Non-negative: `date_range` bounds are epoch millis after 1970 here.
                    let lo = r.below(200) as i64;
                    let hi = lo + r.below(60) as i64;
                    match r.below(12) {
                        0 => (None, Some(hi)),
                        1 => (Some(lo), None),
                        _ => (Some(lo), Some(hi)),
                    }
                })
                .collect()
        })
        .collect()
}

fn range_json(iv: &[(Option<i64>, Option<i64>)], scale: i64) -> Value {
    let one = |&(lo, hi): &(Option<i64>, Option<i64>)| {
        let mut m = serde_json::Map::new();
        if let Some(l) = lo {
            m.insert("gte".into(), json!(l * scale));
        }
        if let Some(h) = hi {
            m.insert("lte".into(), json!(h * scale));
        }
        Value::Object(m)
    };
    Value::Array(iv.iter().map(one).collect())
}

/// The model: per bucket index, the documents one of whose intervals, its bounds clipped to
/// `[min, max]`, overlaps `[k * interval, (k + 1) * interval)`.
fn range_model(ds: &[Vec<(Option<i64>, Option<i64>)>], interval: i64, min: i64, max: i64) -> BTreeMap<i64, u64> {
    let mut out = BTreeMap::new();
    for d in ds {
        let mut keys = BTreeSet::new();
        for &(lo, hi) in d {
            // As OpenSearch: the clipped bounds are rounded, so an interval starting past `max`
            // still counts in the bucket of `max` (and one ending before `min` in min's).
            let (lo, hi) = (lo.unwrap_or(i64::MIN).max(min), hi.unwrap_or(i64::MAX).min(max));
            keys.extend(lo.div_euclid(interval)..=hi.div_euclid(interval));
        }
        for k in keys {
            *out.entry(k).or_insert(0) += 1;
        }
    }
    out
}

#[test]
fn histograms_over_range_fields_count_every_overlapped_bucket() {
    let dir = tempfile::tempdir().unwrap();
    let s = TestServer::start(dir.path(), &[]);
    const DAY: i64 = 86_400_000;
    let ds = range_docs(17, 150);
    for shards in [1u32, 3] {
        let index = format!("ranges{shards}");
        let body = json!({
            "settings": {"number_of_shards": shards, "number_of_replicas": 0},
            "mappings": {"properties": {"r": {"type": "long_range"}, "d": {"type": "date_range"}, "ip": {"type": "ip_range"}}}
        });
        assert_eq!(put(s.addr, &format!("/{index}"), &body.to_string()).status, 200);
        let mut bulk = String::new();
        for (i, d) in ds.iter().enumerate() {
            bulk.push_str(&json!({"index": {"_index": index, "_id": i.to_string()}}).to_string());
            bulk.push('\n');
            bulk.push_str(&json!({"r": range_json(d, 1), "d": range_json(d, DAY)}).to_string());
            bulk.push('\n');
        }
        let r = common::http::send(
            s.addr,
            "POST",
            "/_bulk?refresh=true",
            Some(bulk.as_bytes()),
            &[("content-type", "application/x-ndjson")],
        );
        assert_eq!(r.json()["errors"], json!(false), "{}", r.text());
        for (interval, min, max) in [(7i64, -60i64, 240i64), (25, 0, 100), (1, -3, 3)] {
            let want = range_model(&ds, interval, min, max);
            let got = |agg: &str, field: &str, scale: i64, extra: Value| -> BTreeMap<i64, u64> {
                let mut a = json!({"field": field, "min_doc_count": 1, "hard_bounds": {"min": min * scale, "max": max * scale}});
                a.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
                let r = search(&s, &index, json!({"size": 0, "aggs": {"h": {agg: a}}}));
                r["aggregations"]["h"]["buckets"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|b| (b["key"].as_f64().unwrap() as i64 / (interval * scale), b["doc_count"].as_u64().unwrap()))
                    .collect()
            };
            assert_eq!(got("histogram", "r", 1, json!({"interval": interval})), want, "{index} {interval}");
            let fixed = json!({"fixed_interval": format!("{}d", interval)});
            assert_eq!(got("date_histogram", "d", DAY, fixed), want, "{index} {interval}");
        }
        // Keys print as dates; an interval without an upper bound and no hard bounds would
        // make more buckets than search.max_buckets.
        let r = search(
            &s,
            &index,
            json!({"size": 0, "query": {"range": {"r": {"lte": 0}}}, "aggs": {"h": {"date_histogram": {"field": "d", "calendar_interval": "year", "hard_bounds": {"min": "1969-01-01", "max": "1970-12-31"}}}}}),
        );
        let b = &r["aggregations"]["h"]["buckets"];
        assert_eq!(b[0]["key_as_string"], json!("1969-01-01T00:00:00.000Z"), "{r}");
        let open = ds.iter().any(|d| d.iter().any(|iv| iv.1.is_none()));
        let r = post(
            s.addr,
            &format!("/{index}/_search"),
            &json!({"size": 0, "aggs": {"h": {"histogram": {"field": "r", "interval": 1}}}}).to_string(),
        );
        if open {
            assert_eq!(r.status / 100, 5, "{}", r.text());
            assert!(r.text().contains("too_many_buckets_exception"), "{}", r.text());
        }
        for (agg, reason) in [
            (
                json!({"date_histogram": {"field": "r", "fixed_interval": "1d"}}),
                "Expected date range type but found range type [long_range]",
            ),
            (
                json!({"histogram": {"field": "ip", "interval": 1}}),
                "Expected numeric range type but found non-numeric range [ip_range]",
            ),
            (
                json!({"histogram": {"field": "r", "interval": 1, "missing": 3}}),
                "Can't apply missing values on a class",
            ),
            (json!({"avg": {"field": "r"}}), "Field [r] of type [long_range] is not supported for aggregation [avg]"),
        ] {
            let r = post(s.addr, &format!("/{index}/_search"), &json!({"size": 0, "aggs": {"h": agg}}).to_string());
            assert_eq!(r.status, 400, "{agg}: {}", r.text());
            assert!(r.text().contains(reason), "{agg}: {}", r.text());
        }
    }
    // `_index` is a keyword every document holds: its index's name.
    let r = search(
        &s,
        "ranges1,ranges3",
        json!({"size": 0, "aggs": {"i": {"terms": {"field": "_index"}}, "m": {"missing": {"field": "_index"}}}}),
    );
    let b = &r["aggregations"]["i"]["buckets"];
    assert_eq!(b.as_array().unwrap().len(), 2, "{r}");
    assert_eq!(b[0]["doc_count"], json!(ds.len()), "{r}");
    assert_eq!(r["aggregations"]["m"]["doc_count"], json!(0), "{r}");
}
