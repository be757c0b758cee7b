//! composite, multi_terms, rare_terms and variable_width_histogram over HTTP against a naive
//! model of random documents (multi-valued keywords, longs, doubles, dates), on one shard and on
//! three: paging a composite aggregation with `after_key` (terms, histogram and date_histogram
//! sources) visits every key exactly once in order, multi_terms gives the model's top buckets,
//! rare_terms the model's rare terms, variable_width_histogram finds well-separated clusters.

mod common;

use common::aggs::{close, search, Lcg};

use std::collections::{BTreeMap, BTreeSet};

use common::http::{post, put, TestServer};
use serde_json::{json, Value};

#[derive(Debug, Clone)]
struct Doc {
    tags: Vec<String>,
    n: Option<i64>,
    x: f64,
}

fn docs(seed: u64, count: usize) -> Vec<Doc> {
    let mut r = Lcg(seed);
    (0..count)
        .map(|_| {
            let k = r.below(4);
            let tags: BTreeSet<String> = (0..k)
                .map(|_| if r.below(3) == 0 { format!("r{}", r.below(40)) } else { format!("t{}", r.below(6)) })
                .collect();
            Doc {
                tags: tags.into_iter().collect(),
                n: (r.below(6) != 0).then(|| r.below(60) as i64 - 15),
                x: (r.below(800) as f64) / 4.0,
            }
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
        if !d.tags.is_empty() {
            src.insert("tag".into(), json!(d.tags));
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

/// Composite key of the model: tag (descending, missing last) then n's histogram bucket.
type CKey = (bool, std::cmp::Reverse<Option<String>>, i64);

fn composite_model(ds: &[Doc]) -> BTreeMap<(Option<String>, i64), (u64, f64)> {
    let mut m = BTreeMap::new();
    for d in ds {
        let Some(n) = d.n else { continue };
        let h = n.div_euclid(10) * 10;
        let tags: Vec<Option<String>> =
            if d.tags.is_empty() { vec![None] } else { d.tags.iter().cloned().map(Some).collect() };
        for t in tags {
            let e: &mut (u64, f64) = m.entry((t, h)).or_default();
            e.0 += 1;
            e.1 += d.x;
        }
    }
    m
}

fn ckey(t: &Option<String>, h: i64) -> CKey {
    // Descending tags with the missing bucket last.
    (t.is_none(), std::cmp::Reverse(t.clone()), h)
}

#[test]
fn composite_pages_visit_every_key_once_in_order() {
    let dir = tempfile::tempdir().unwrap();
    let s = TestServer::start(dir.path(), &[]);
    for (seed, n) in [(3u64, 120usize), (11, 400)] {
        let ds = docs(seed, n);
        let model = composite_model(&ds);
        let mut want: Vec<(&(Option<String>, i64), &(u64, f64))> = model.iter().collect();
        want.sort_by_key(|((t, h), _)| ckey(t, *h));
        assert!(want.len() > 20 && want.iter().any(|((t, _), _)| t.is_none()), "the model must page");
        for shards in [1u32, 3] {
            let index = format!("c{seed}s{shards}");
            load(&s, &index, shards, &ds);
            for page_size in [1usize, 7, 1000] {
                let mut after: Option<Value> = None;
                let mut got: Vec<(Option<String>, i64, u64, f64)> = Vec::new();
                for _page in 0..=want.len() + 1 {
                    let mut comp = json!({
                        "size": page_size,
                        "sources": [
                            {"tag": {"terms": {"field": "tag", "order": "desc", "missing_bucket": true}}},
                            {"h": {"histogram": {"field": "n", "interval": 10}}}
                        ]
                    });
                    if let Some(a) = &after {
                        comp["after"] = a.clone();
                    }
                    let r = search(
                        &s,
                        &index,
                        json!({"size": 0, "aggs": {"c": {"composite": comp, "aggs": {"sx": {"sum": {"field": "x"}}}}}}),
                    );
                    let c = &r["aggregations"]["c"];
                    let b = c["buckets"].as_array().unwrap();
                    assert!(b.len() <= page_size, "{index}: {c}");
                    for bk in b {
                        let t = bk["key"]["tag"].as_str().map(str::to_string);
                        let h = bk["key"]["h"].as_f64().unwrap();
                        assert_eq!(h.fract(), 0.0);
                        got.push((t, h as i64, bk["doc_count"].as_u64().unwrap(), bk["sx"]["value"].as_f64().unwrap()));
                    }
                    if b.is_empty() {
                        assert!(c.get("after_key").is_none(), "{index}: {c}");
                        break;
                    }
                    assert_eq!(c["after_key"], b.last().unwrap()["key"], "{index}");
                    after = Some(c["after_key"].clone());
                }
                assert_eq!(got.len(), want.len(), "{index} page {page_size}");
                for (g, ((t, h), (cnt, sx))) in got.iter().zip(&want) {
                    assert_eq!((&g.0, g.1, g.2), (t, *h, *cnt), "{index} page {page_size}");
                    assert!(close(g.3, *sx), "{index}: {g:?} vs {sx}");
                }
            }
        }
    }
}

#[test]
fn multi_terms_and_rare_terms_match_the_model() {
    let dir = tempfile::tempdir().unwrap();
    let s = TestServer::start(dir.path(), &[]);
    for (seed, n) in [(5u64, 150usize), (23, 500)] {
        let ds = docs(seed, n);
        // multi_terms [tag, n]: count desc, then key asc (tag, then n).
        let mut mt: BTreeMap<(String, i64), u64> = BTreeMap::new();
        let mut tag_counts: BTreeMap<String, u64> = BTreeMap::new();
        for d in &ds {
            for t in &d.tags {
                *tag_counts.entry(t.clone()).or_default() += 1;
                if let Some(n) = d.n {
                    *mt.entry((t.clone(), n)).or_default() += 1;
                }
            }
        }
        let mut want_mt: Vec<(&(String, i64), &u64)> = mt.iter().collect();
        want_mt.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
        let total: u64 = mt.values().sum();
        let mut want_rare: Vec<(&String, &u64)> = tag_counts.iter().filter(|(_, &c)| c <= 3).collect();
        want_rare.sort_by(|a, b| a.1.cmp(b.1).then(a.0.cmp(b.0)));
        assert!(want_rare.len() > 3 && tag_counts.len() > want_rare.len(), "the model must have rare and common tags");
        for shards in [1u32, 3] {
            let index = format!("m{seed}s{shards}");
            load(&s, &index, shards, &ds);
            let r = search(
                &s,
                &index,
                json!({"size": 0, "aggs": {
                    "mt": {"multi_terms": {"terms": [{"field": "tag"}, {"field": "n"}], "size": 8, "shard_size": 100000}},
                    "rare": {"rare_terms": {"field": "tag", "max_doc_count": 3}, "aggs": {"c": {"value_count": {"field": "x"}}}}
                }}),
            );
            let a = &r["aggregations"];
            let got = a["mt"]["buckets"].as_array().unwrap();
            assert_eq!(got.len(), want_mt.len().min(8), "{index}: {}", a["mt"]);
            let mut shown = 0;
            for (g, ((t, n), c)) in got.iter().zip(&want_mt) {
                assert_eq!(g["key"], json!([t, n]), "{index}");
                assert_eq!(g["key_as_string"], json!(format!("{t}|{n}")), "{index}");
                assert_eq!(g["doc_count"], json!(c), "{index}");
                shown += **c;
            }
            assert_eq!(a["mt"]["sum_other_doc_count"], json!(total - shown), "{index}");
            assert_eq!(a["mt"]["doc_count_error_upper_bound"], json!(0), "{index}");
            let rare = a["rare"]["buckets"].as_array().unwrap();
            assert_eq!(rare.len(), want_rare.len(), "{index}: {}", a["rare"]);
            for (g, (t, c)) in rare.iter().zip(&want_rare) {
                assert_eq!(g["key"], json!(t), "{index}");
                assert_eq!(g["doc_count"], json!(c), "{index}");
                assert_eq!(g["c"]["value"], json!(c), "{index}");
            }
        }
    }
}

#[test]
fn composite_refusals_are_client_errors() {
    let dir = tempfile::tempdir().unwrap();
    let s = TestServer::start(dir.path(), &[]);
    load(&s, "e", 1, &docs(1, 5));
    for (body, needle) in [
        (
            json!({"composite": {"sources": [{"d": {"geotile_grid": {"field": "n"}}}]}}),
            "Field [n] of type [long] is not supported for aggregation [geotile_grid]",
        ),
        (
            json!({"composite": {"sources": [{"d": {"date_histogram": {"field": "tag", "calendar_interval": "1d"}}}]}}),
            "is not supported for aggregation [date_histogram]",
        ),
        (
            json!({"composite": {"sources": [{"d": {"date_histogram": {"field": "n", "calendar_interval": "1d",
                "format": "yyyy-MM-dd"}}}], "after": {"d": "not a date"}}}),
            "failed to parse date field [not a date]",
        ),
        (json!({"composite": {"sources": [{"k": {"terms": {"field": "tag"}}}], "after": {"k": 5}}}), "expected string"),
        (
            json!({"terms": {"field": "tag"}, "aggs": {"c": {"composite": {"sources": [{"k": {"terms": {"field": "tag"}}}]}}}}),
            "[composite] aggregation cannot be used with a parent aggregation of type: [TermsAggregatorFactory]",
        ),
        (json!({"rare_terms": {"field": "x"}}), "does not support floating point fields"),
    ] {
        let r = post(s.addr, "/e/_search", &json!({"aggs": {"a": body}}).to_string());
        assert!(r.status >= 400 && r.status < 500, "{}: {}", r.status, r.text());
        assert!(r.text().contains(needle), "{}", r.text());
    }
}

/// The composite key of a date: 6h buckets shifted by 1h in a fixed -03:00 zone (local time
/// rounded down, as OpenSearch's `TimeIntervalRounding` with an offset).
fn six_hours(ms: i64) -> i64 {
    let (i, offset, zone) = (6 * 3_600_000i64, 3_600_000i64, -3 * 3_600_000i64);
    (ms - offset + zone).div_euclid(i) * i - zone + offset
}

#[test]
fn composite_date_histogram_pages_match_the_model() {
    let dir = tempfile::tempdir().unwrap();
    let s = TestServer::start(dir.path(), &[]);
    let base = 1_600_000_000_000i64;
    let mut r = Lcg(17);
    let ds: Vec<(Option<i64>, Vec<String>)> = (0..300)
        .map(|_| {
            let d = (r.below(8) != 0).then(|| base + r.below(6 * 86_400) as i64 * 1000);
            let tags: BTreeSet<String> = (0..r.below(3)).map(|_| format!("t{}", r.below(4))).collect();
            (d, tags.into_iter().collect())
        })
        .collect();
    // Date descending with the missing bucket last, then tag ascending; docs without tags drop.
    let mut model: BTreeMap<(bool, std::cmp::Reverse<Option<i64>>, String), u64> = BTreeMap::new();
    for (d, tags) in &ds {
        for t in tags {
            *model.entry((d.is_none(), std::cmp::Reverse(d.map(six_hours)), t.clone())).or_default() += 1;
        }
    }
    assert!(model.len() > 30 && model.keys().any(|k| k.0), "the model must page");
    for shards in [1u32, 3] {
        let index = format!("dates{shards}");
        let body = json!({
            "settings": {"number_of_shards": shards, "number_of_replicas": 0},
            "mappings": {"properties": {"tag": {"type": "keyword"}, "d": {"type": "date"}}}
        });
        let resp = put(s.addr, &format!("/{index}"), &body.to_string());
        assert_eq!(resp.status, 200, "{}", resp.text());
        let mut bulk = String::new();
        for (i, (d, tags)) in ds.iter().enumerate() {
            bulk.push_str(&json!({"index": {"_index": index, "_id": i.to_string()}}).to_string());
            bulk.push('\n');
            let mut src = serde_json::Map::new();
            if let Some(d) = d {
                src.insert("d".into(), json!(d));
            }
            src.insert("tag".into(), json!(tags));
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
        // Raw millis keys, and keys printed (and `after` parsed) with the epoch_millis format.
        for (format, page_size) in [(None, 1usize), (None, 9), (Some("epoch_millis"), 4), (None, 1000)] {
            let mut after: Option<Value> = None;
            let mut got: Vec<(Option<i64>, String, u64)> = Vec::new();
            for _page in 0..=model.len() + 1 {
                let mut dh = json!({"field": "d", "fixed_interval": "6h", "offset": "+1h", "time_zone": "-03:00",
                    "order": "desc", "missing_bucket": true});
                if let Some(f) = format {
                    dh["format"] = json!(f);
                }
                let mut comp = json!({"size": page_size, "sources": [{"day": {"date_histogram": dh}},
                    {"tag": {"terms": {"field": "tag"}}}]});
                if let Some(a) = &after {
                    comp["after"] = a.clone();
                }
                let resp = search(&s, &index, json!({"size": 0, "aggs": {"c": {"composite": comp}}}));
                let c = &resp["aggregations"]["c"];
                let b = c["buckets"].as_array().unwrap();
                assert!(b.len() <= page_size, "{index}: {c}");
                for bk in b {
                    let day = match &bk["key"]["day"] {
                        Value::Null => None,
                        Value::String(s) if format.is_some() => Some(s.parse::<i64>().unwrap()),
                        v if format.is_none() => Some(v.as_i64().unwrap()),
                        v => panic!("{index}: key {v} with format {format:?}"),
                    };
                    got.push((day, bk["key"]["tag"].as_str().unwrap().to_string(), bk["doc_count"].as_u64().unwrap()));
                }
                if b.is_empty() {
                    assert!(c.get("after_key").is_none(), "{index}: {c}");
                    break;
                }
                after = Some(c["after_key"].clone());
            }
            let want: Vec<(Option<i64>, String, u64)> =
                model.iter().map(|((_, std::cmp::Reverse(d), t), n)| (*d, t.clone(), *n)).collect();
            assert_eq!(got, want, "{index} page {page_size} format {format:?}");
        }
    }
}

#[test]
fn variable_width_histogram_finds_separated_clusters() {
    let dir = tempfile::tempdir().unwrap();
    let s = TestServer::start(dir.path(), &[]);
    let mut r = Lcg(29);
    // Three groups of values far apart; each doc has one or two values of one group.
    let groups = [0.0, 1000.0, 5000.0];
    let ds: Vec<Vec<f64>> = (0..240)
        .map(|_| {
            let g = groups[r.below(3) as usize];
            let vals: BTreeSet<u64> = (0..1 + r.below(2)).map(|_| r.below(40)).collect();
            vals.into_iter().map(|v| g + v as f64 / 4.0).collect()
        })
        .collect();
    for shards in [1u32, 3] {
        let index = format!("vw{shards}");
        let body = json!({
            "settings": {"number_of_shards": shards, "number_of_replicas": 0},
            "mappings": {"properties": {"v": {"type": "double"}, "k": {"type": "keyword"}}}
        });
        let resp = put(s.addr, &format!("/{index}"), &body.to_string());
        assert_eq!(resp.status, 200, "{}", resp.text());
        let mut bulk = String::new();
        for (i, vals) in ds.iter().enumerate() {
            bulk.push_str(&json!({"index": {"_index": index, "_id": i.to_string()}}).to_string());
            bulk.push('\n');
            bulk.push_str(&json!({"v": vals, "k": "x"}).to_string());
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
        let all: Vec<f64> = ds.iter().flatten().copied().collect();
        // With room for every value as its own shard cluster, the reduce merges the closest
        // centroids: exactly the three groups.
        let resp = search(
            &s,
            &index,
            json!({"size": 0, "aggs": {"h": {"variable_width_histogram": {"field": "v", "buckets": 3, "shard_size": 500}}}}),
        );
        let b = resp["aggregations"]["h"]["buckets"].as_array().unwrap().clone();
        assert_eq!(b.len(), 3, "{index}: {b:?}");
        for (bk, g) in b.iter().zip(groups) {
            let vals: Vec<f64> = all.iter().copied().filter(|v| *v >= g && *v < g + 100.0).collect();
            let mean = vals.iter().sum::<f64>() / vals.len() as f64;
            let (lo, hi) = vals.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), &v| (l.min(v), h.max(v)));
            assert_eq!(bk["doc_count"].as_u64().unwrap(), vals.len() as u64, "{index}: {bk}");
            assert!(close(bk["key"].as_f64().unwrap(), mean), "{index}: {bk} vs {mean}");
            assert_eq!((bk["min"].as_f64().unwrap(), bk["max"].as_f64().unwrap()), (lo, hi), "{index}: {bk}");
        }
        // Past a small initial buffer the clustering is approximate, but every value is
        // counted once and the buckets are ordered and disjoint.
        let resp = search(
            &s,
            &index,
            json!({"size": 0, "aggs": {"h": {"variable_width_histogram": {"field": "v", "buckets": 3, "initial_buffer": 10}}}}),
        );
        let b = resp["aggregations"]["h"]["buckets"].as_array().unwrap().clone();
        assert!(!b.is_empty() && b.len() <= 3, "{index}: {b:?}");
        assert_eq!(b.iter().map(|bk| bk["doc_count"].as_u64().unwrap()).sum::<u64>(), all.len() as u64);
        for w in b.windows(2) {
            assert!(w[0]["key"].as_f64() < w[1]["key"].as_f64(), "{index}: {b:?}");
            assert!(w[0]["max"].as_f64() <= w[1]["min"].as_f64(), "{index}: {b:?}");
        }
        let (lo, hi) = all.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), &v| (l.min(v), h.max(v)));
        assert_eq!((b[0]["min"].as_f64().unwrap(), b[b.len() - 1]["max"].as_f64().unwrap()), (lo, hi));
        for (bad, what) in [
            (json!({"variable_width_histogram": {"field": "k"}}), "not supported for aggregation"),
            (json!({"variable_width_histogram": {"field": "v", "buckets": 0}}), "buckets must be greater than [0]"),
            (
                json!({"variable_width_histogram": {"field": "v", "buckets": 20, "shard_size": 10}}),
                "3/4 of shard_size must be at least buckets",
            ),
        ] {
            let resp = post(s.addr, &format!("/{index}/_search"), &json!({"size": 0, "aggs": {"h": bad}}).to_string());
            assert_eq!(resp.status, 400, "{}", resp.text());
            assert!(resp.text().contains(what), "{}", resp.text());
        }
    }
}

/// The slippy-map tile of a point at `zoom` (the OpenStreetMap formula).
fn tile(lat: f64, lon: f64, zoom: u32) -> (i64, i64) {
    let n = (1i64 << zoom) as f64;
    let x = ((lon + 180.0) / 360.0 * n).floor() as i64;
    let r = lat.to_radians();
    let y = ((1.0 - (r.tan() + 1.0 / r.cos()).ln() / std::f64::consts::PI) / 2.0 * n).floor() as i64;
    (x, y)
}

/// Points near the centres of zoom-3 tiles (far from the edges of zoom 0 to 3 tiles).
fn tile_points(seed: u64, count: usize) -> Vec<(Vec<(f64, f64)>, String)> {
    let mut r = Lcg(seed);
    (0..count)
        .map(|_| {
            let pts = (0..r.below(3))
                .map(|_| {
                    let (x, y) = (r.below(8) as f64, r.below(8) as f64);
                    let lon = (x + 0.5) / 8.0 * 360.0 - 180.0 + (r.below(100) as f64 - 50.0) / 100.0;
                    let n = std::f64::consts::PI * (1.0 - 2.0 * (y + 0.5) / 8.0);
                    let lat = n.sinh().atan().to_degrees() + (r.below(100) as f64 - 50.0) / 200.0;
                    (lat, lon)
                })
                .collect();
            (pts, format!("k{}", r.below(3)))
        })
        .collect()
}

#[test]
fn composite_geotile_grid_pages_in_tile_order() {
    let dir = tempfile::tempdir().unwrap();
    let s = TestServer::start(dir.path(), &[]);
    let ds = tile_points(29, 200);
    for shards in [1u32, 3] {
        let index = format!("tiles{shards}");
        let body = json!({
            "settings": {"number_of_shards": shards, "number_of_replicas": 0},
            "mappings": {"properties": {"p": {"type": "geo_point"}, "k": {"type": "keyword"}}}
        });
        assert_eq!(put(s.addr, &format!("/{index}"), &body.to_string()).status, 200);
        let mut bulk = String::new();
        for (i, (pts, k)) in ds.iter().enumerate() {
            bulk.push_str(&json!({"index": {"_index": index, "_id": i.to_string()}}).to_string());
            bulk.push('\n');
            let p: Vec<Value> = pts.iter().map(|(lat, lon)| json!({"lat": lat, "lon": lon})).collect();
            bulk.push_str(&json!({"p": p, "k": k}).to_string());
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
        for (zoom, asc, bounded) in [(3u32, true, false), (2, false, false), (3, true, true), (0, true, false)] {
            // The model: (x, y, k) -> doc count, with the points inside the bounds (lat within ±60).
            let mut model: BTreeMap<(i64, i64, String), u64> = BTreeMap::new();
            for (pts, k) in &ds {
                let tiles: BTreeSet<(i64, i64)> = pts
                    .iter()
                    .filter(|(lat, _)| !bounded || lat.abs() <= 60.0)
                    .map(|&(lat, lon)| tile(lat, lon, zoom))
                    .collect();
                for (x, y) in tiles {
                    *model.entry((x, y, k.clone())).or_insert(0) += 1;
                }
            }
            let mut want: Vec<(String, String, u64)> =
                model.iter().map(|((x, y, k), c)| (format!("{zoom}/{x}/{y}"), k.clone(), *c)).collect();
            if !asc {
                // Tiles descending (by x, then y), terms ascending.
                let mut by_tile: Vec<((i64, i64), Vec<(String, String, u64)>)> = Vec::new();
                for ((x, y, _), (t, k, c)) in model.keys().zip(want.iter().cloned()) {
                    match by_tile.last_mut() {
                        Some((xy, v)) if *xy == (*x, *y) => v.push((t, k, c)),
                        _ => by_tile.push(((*x, *y), vec![(t, k, c)])),
                    }
                }
                want = by_tile.into_iter().rev().flat_map(|(_, v)| v).collect();
            }
            let mut tile_src = json!({"field": "p", "precision": zoom, "order": if asc { "asc" } else { "desc" }});
            if bounded {
                tile_src["bounds"] =
                    json!({"top_left": {"lat": 60.0, "lon": -180.0}, "bottom_right": {"lat": -60.0, "lon": 180.0}});
            }
            let mut after: Option<Value> = None;
            let mut got = Vec::new();
            for _page in 0..=want.len() + 1 {
                let mut comp = json!({"size": 4, "sources": [{"t": {"geotile_grid": tile_src}}, {"k": {"terms": {"field": "k"}}}]});
                if let Some(a) = &after {
                    comp["after"] = a.clone();
                }
                let r = search(&s, &index, json!({"size": 0, "aggs": {"c": {"composite": comp}}}));
                let c = &r["aggregations"]["c"];
                let b = c["buckets"].as_array().unwrap();
                for bk in b {
                    let t = bk["key"]["t"].as_str().unwrap().to_string();
                    got.push((t, bk["key"]["k"].as_str().unwrap().to_string(), bk["doc_count"].as_u64().unwrap()));
                }
                if b.is_empty() {
                    break;
                }
                after = Some(c["after_key"].clone());
            }
            assert_eq!(got, want, "{index} zoom {zoom} asc {asc} bounded {bounded}");
        }
        // An after key as the long encoding of the tile pages the same as its string.
        let long = (3i64 << 58) | (4 << 29) | 2;
        let page = |after: Value| {
            let comp = json!({"size": 100, "after": {"t": after}, "sources": [{"t": {"geotile_grid": {"field": "p", "precision": 3}}}]});
            search(&s, &index, json!({"size": 0, "aggs": {"c": {"composite": comp}}}))["aggregations"]["c"]["buckets"]
                .clone()
        };
        assert_eq!(page(json!(long)), page(json!("3/4/2")), "{index}");
        for (src, after, reason) in [
            (
                json!({"field": "p", "precision": 30}),
                None,
                "Invalid geotile_grid precision of 30. Must be between 0 and 29.",
            ),
            (json!({"field": "p", "format": "x"}), None, "[format] is not supported for [geotile_grid]"),
            (
                json!({"field": "k"}),
                None,
                "Field [k] of type [keyword] is not supported for aggregation [geotile_grid]",
            ),
            (json!({"field": "p"}), Some(json!("3/4")), "Invalid geotile_grid hash string of 3/4."),
            (json!({"field": "p", "interval": 3}), None, "[geotile_grid] unknown field [interval]"),
        ] {
            let mut comp = json!({"sources": [{"t": {"geotile_grid": src}}]});
            if let Some(a) = after {
                comp["after"] = json!({"t": a});
            }
            let r = post(
                s.addr,
                &format!("/{index}/_search"),
                &json!({"size": 0, "aggs": {"c": {"composite": comp}}}).to_string(),
            );
            assert_eq!(r.status, 400, "{}", r.text());
            assert!(r.text().contains(reason), "{reason}: {}", r.text());
        }
    }
}
