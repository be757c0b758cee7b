//! ip_range, geo_distance, geohash_grid, geotile_grid, geo_bounds, geo_centroid,
//! significant_terms and significant_text over HTTP against a naive model of random documents,
//! on one shard and on three (the shard results must reduce to the same buckets and counts).

mod common;

use common::aggs::{close, search, Lcg};

use std::collections::{BTreeMap, BTreeSet};

use common::http::{post, put, TestServer};
use serde_json::{json, Value};

#[derive(Debug, Clone)]
struct Doc {
    /// (lat, lon) as indexed: the lower-left corner of its cell in Lucene's encoding (the
    /// document holds the cell's middle, which encodes to that cell whatever the rounding).
    loc: Option<(f64, f64)>,
    ip: Option<[u8; 4]>,
    class: &'static str,
    tag: String,
    words: Vec<String>,
}

const LAT_DECODE: f64 = 180.0 / 4294967296.0;
const LON_DECODE: f64 = 360.0 / 4294967296.0;

fn quantize(lat: f64, lon: f64) -> (f64, f64) {
    ((lat / LAT_DECODE).floor() * LAT_DECODE, (lon / LON_DECODE).floor() * LON_DECODE)
}

fn docs(seed: u64, count: usize) -> Vec<Doc> {
    let mut r = Lcg(seed);
    (0..count)
        .map(|_| {
            let class = if r.below(3) == 0 { "a" } else { "b" };
            // Class "a" favours tags t0..t2 and the word "alpha".
            let tag =
                if class == "a" && r.below(2) == 0 { format!("t{}", r.below(3)) } else { format!("t{}", r.below(12)) };
            let mut words: Vec<String> = (0..3).map(|_| format!("w{}", r.below(15))).collect();
            if class == "a" && r.below(3) != 0 {
                words.push("alpha".into());
            }
            Doc {
                loc: (r.below(10) != 0)
                    .then(|| quantize(r.below(12_000) as f64 / 100.0 - 60.0, r.below(20_000) as f64 / 100.0 - 100.0)),
                ip: (r.below(8) != 0).then(|| [10, r.below(3) as u8, r.below(256) as u8, r.below(256) as u8]),
                class,
                tag,
                words,
            }
        })
        .collect()
}

fn load(s: &TestServer, index: &str, shards: u32, docs: &[Doc]) {
    let body = json!({
        "settings": {"number_of_shards": shards, "number_of_replicas": 0},
        "mappings": {"properties": {
            "loc": {"type": "geo_point"}, "ip": {"type": "ip"}, "class": {"type": "keyword"},
            "tag": {"type": "keyword"}, "body": {"type": "text"}
        }}
    });
    let r = put(s.addr, &format!("/{index}"), &body.to_string());
    assert_eq!(r.status, 200, "{}", r.text());
    let mut bulk = String::new();
    for (i, d) in docs.iter().enumerate() {
        bulk.push_str(&json!({"index": {"_index": index, "_id": i.to_string()}}).to_string());
        bulk.push('\n');
        let mut src = serde_json::Map::new();
        if let Some((lat, lon)) = d.loc {
            src.insert("loc".into(), json!({"lat": lat + LAT_DECODE / 2.0, "lon": lon + LON_DECODE / 2.0}));
        }
        if let Some(ip) = d.ip {
            src.insert("ip".into(), json!(format!("{}.{}.{}.{}", ip[0], ip[1], ip[2], ip[3])));
        }
        src.insert("class".into(), json!(d.class));
        src.insert("tag".into(), json!(d.tag));
        src.insert("body".into(), json!(d.words.join(" ")));
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

/// Lucene's `SloppyMath.haversinMeters` (exact trigonometry).
fn haversin(lat1: f64, lon1: f64, lat2: f64, lon2: f64) -> f64 {
    let (x1, x2) = (lat1.to_radians(), lat2.to_radians());
    let h1 = 1.0 - (x1 - x2).cos();
    let h2 = 1.0 - (lon1 - lon2).to_radians().cos();
    let h = (h1 + x1.cos() * x2.cos() * h2).min(1.0);
    6_371_008.771_4 * 2.0 * (h * 0.5).sqrt().min(1.0).asin()
}

/// A geohash by bisection.
fn geohash(lat: f64, lon: f64, len: usize) -> String {
    const B32: &[u8] = b"0123456789bcdefghjkmnpqrstuvwxyz";
    let (mut la, mut lo) = ((-90.0, 90.0), (-180.0, 180.0));
    let mut out = String::new();
    let (mut bits, mut n, mut even) = (0usize, 0, true);
    while out.len() < len {
        let (range, v): (&mut (f64, f64), f64) = if even { (&mut lo, lon) } else { (&mut la, lat) };
        let mid = (range.0 + range.1) / 2.0;
        bits <<= 1;
        if v >= mid {
            bits |= 1;
            range.0 = mid;
        } else {
            range.1 = mid;
        }
        even = !even;
        n += 1;
        if n == 5 {
            out.push(B32[bits] as char);
            bits = 0;
            n = 0;
        }
    }
    out
}

fn jlh(sub_df: f64, sub: f64, sup_df: f64, sup: f64) -> f64 {
    let (ps, pb) = (sub_df / sub, sup_df.max(1.0) / sup);
    if ps - pb <= 0.0 {
        0.0
    } else {
        (ps - pb) * (ps / pb)
    }
}

/// The significant terms a model expects: (term, subset df, superset df, score), best first.
fn significant(fg: &[BTreeSet<String>], bg: &[BTreeSet<String>], min: u64) -> Vec<(String, u64, u64, f64)> {
    let mut sub: BTreeMap<&str, u64> = BTreeMap::new();
    for t in fg.iter().flatten() {
        *sub.entry(t).or_default() += 1;
    }
    let mut out = Vec::new();
    for (t, c) in sub {
        let b = bg.iter().filter(|s| s.contains(t)).count() as u64;
        let score = jlh(c as f64, fg.len() as f64, b as f64, bg.len() as f64);
        if score > 0.0 && c >= min {
            out.push((t.to_string(), c, b, score));
        }
    }
    out.sort_by(|a, b| b.3.total_cmp(&a.3).then(a.0.cmp(&b.0)));
    out.truncate(10);
    out
}

/// One shard: exactly the model. Several: a shard that saw a term only in the background does
/// not return it, so its background count is missing from the sum (as in OpenSearch); the
/// foreground counts, sizes and the scores of what is returned must still be exact.
fn check_significant(index: &str, got: &Value, fg: &[BTreeSet<String>], bg: &[BTreeSet<String>], exact: bool) {
    assert_eq!(got["doc_count"], json!(fg.len()), "{index}: {got}");
    assert_eq!(got["bg_count"], json!(bg.len()), "{index}: {got}");
    let b = got["buckets"].as_array().unwrap();
    if exact {
        let want = significant(fg, bg, 3);
        assert_eq!(b.len(), want.len(), "{index}: {got} vs {want:?}");
        for (g, w) in b.iter().zip(&want) {
            assert_eq!(g["key"], json!(w.0), "{index}: {got}");
            assert_eq!(g["doc_count"], json!(w.1), "{index}");
            assert_eq!(g["bg_count"], json!(w.2), "{index}");
            assert!(close(g["score"].as_f64().unwrap(), w.3), "{index}: {g} vs {w:?}");
        }
        return;
    }
    assert!(b.len() <= 10);
    let mut prev = f64::INFINITY;
    for g in b {
        let t = g["key"].as_str().unwrap();
        let sub = fg.iter().filter(|s| s.contains(t)).count() as u64;
        let sup = bg.iter().filter(|s| s.contains(t)).count() as u64;
        let (c, bc) = (g["doc_count"].as_u64().unwrap(), g["bg_count"].as_u64().unwrap());
        assert_eq!(c, sub, "{index}: {g}");
        assert!(bc <= sup && bc >= c, "{index}: {g}");
        let score = g["score"].as_f64().unwrap();
        assert!(close(score, jlh(c as f64, fg.len() as f64, bc as f64, bg.len() as f64)), "{index}: {g}");
        assert!(score > 0.0 && score <= prev && c >= 3, "{index}: {got}");
        prev = score;
    }
}

#[test]
fn geo_ip_and_significant_aggregations_match_a_naive_model() {
    let dir = tempfile::tempdir().unwrap();
    let s = TestServer::start(dir.path(), &[]);
    for (seed, n) in [(3u64, 80usize), (11, 400)] {
        let ds = docs(seed, n);
        for shards in [1u32, 3] {
            let index = format!("g{seed}s{shards}");
            load(&s, &index, shards, &ds);
            let origin = (10.0, 20.0);
            let body = json!({
                "size": 0,
                "aggs": {
                    "ips": {"ip_range": {"field": "ip", "ranges": [
                        {"to": "10.1.0.0"}, {"from": "10.1.0.0", "to": "10.2.128.0"}, {"mask": "10.2.0.0/16"}]}},
                    "dist": {"geo_distance": {"field": "loc", "origin": {"lat": origin.0, "lon": origin.1}, "unit": "km",
                        "ranges": [{"to": 3000}, {"from": 3000, "to": 7000}, {"from": 7000}]}},
                    "cells": {"geohash_grid": {"field": "loc", "precision": 2, "size": 5, "shard_size": 1000}},
                    "tiles": {"geotile_grid": {"field": "loc", "precision": 3}},
                    "boxed": {"geotile_grid": {"field": "loc", "precision": 4, "size": 1000,
                        "bounds": {"top_left": {"lat": 30.05, "lon": -50.05}, "bottom_right": {"lat": -10.05, "lon": 40.05}}}},
                    "box": {"geo_bounds": {"field": "loc"}},
                    "mid": {"geo_centroid": {"field": "loc"}},
                    "classes": {"terms": {"field": "class"}, "aggs": {
                        "sig": {"significant_terms": {"field": "tag"}},
                        "sigt": {"significant_text": {"field": "body"}}
                    }}
                }
            });
            let a = search(&s, &index, body)["aggregations"].clone();
            // ip_range: sorted by (from, to); the mask bucket is keyed by the mask.
            let ipn = |d: &Doc| d.ip.map(u32::from_be_bytes);
            let v = |s: [u8; 4]| u32::from_be_bytes(s);
            let want = [
                ("*-10.1.0.0", None, Some(v([10, 1, 0, 0]))),
                ("10.1.0.0-10.2.128.0", Some(v([10, 1, 0, 0])), Some(v([10, 2, 128, 0]))),
                ("10.2.0.0/16", Some(v([10, 2, 0, 0])), Some(v([10, 3, 0, 0]))),
            ];
            let ib = a["ips"]["buckets"].as_array().unwrap();
            assert_eq!(ib.len(), 3);
            for (b, (key, lo, hi)) in ib.iter().zip(want) {
                let c = ds
                    .iter()
                    .filter_map(ipn)
                    .filter(|x| lo.is_none_or(|l| *x >= l) && hi.is_none_or(|h| *x < h))
                    .count();
                assert_eq!(b["key"], json!(key), "{index}: {b}");
                assert_eq!(b["doc_count"], json!(c), "{index}: {b}");
            }
            assert_eq!(ib[2]["from"], json!("10.2.0.0"));
            assert_eq!(ib[2]["to"], json!("10.3.0.0"));
            // geo_distance in km.
            let pts: Vec<(f64, f64)> = ds.iter().filter_map(|d| d.loc).collect();
            let db = a["dist"]["buckets"].as_array().unwrap();
            for (b, (lo, hi)) in db.iter().zip([(0.0, 3000.0), (3000.0, 7000.0), (7000.0, f64::INFINITY)]) {
                let c = pts
                    .iter()
                    .filter(|p| {
                        let d = haversin(origin.0, origin.1, p.0, p.1) / 1000.0;
                        d >= lo && d < hi
                    })
                    .count();
                assert_eq!(b["doc_count"], json!(c), "{index}: {b}");
            }
            assert_eq!(db[0]["key"], json!("*-3000.0"));
            // geohash_grid: the 5 fullest cells, ties by descending cell.
            let mut cells: BTreeMap<String, u64> = BTreeMap::new();
            for p in &pts {
                *cells.entry(geohash(p.0, p.1, 2)).or_default() += 1;
            }
            let mut want: Vec<(String, u64)> = cells.into_iter().collect();
            want.sort_by(|x, y| y.1.cmp(&x.1).then(y.0.cmp(&x.0)));
            want.truncate(5);
            let got: Vec<(String, u64)> = a["cells"]["buckets"]
                .as_array()
                .unwrap()
                .iter()
                .map(|b| (b["key"].as_str().unwrap().to_string(), b["doc_count"].as_u64().unwrap()))
                .collect();
            assert_eq!(got, want, "{index}");
            let tiles: u64 =
                a["tiles"]["buckets"].as_array().unwrap().iter().map(|b| b["doc_count"].as_u64().unwrap()).sum();
            assert_eq!(tiles, pts.len() as u64, "{index}");
            let boxed: u64 =
                a["boxed"]["buckets"].as_array().unwrap().iter().map(|b| b["doc_count"].as_u64().unwrap()).sum();
            let inside = pts.iter().filter(|p| p.0 <= 30.05 && p.0 >= -10.05 && p.1 >= -50.05 && p.1 <= 40.05).count();
            assert_eq!(boxed, inside as u64, "{index}");
            // geo_bounds (lons within [-100, 100]: the unwrapped box is the narrower one).
            let top = pts.iter().map(|p| p.0).fold(f64::NEG_INFINITY, f64::max);
            let bottom = pts.iter().map(|p| p.0).fold(f64::INFINITY, f64::min);
            let left = pts.iter().map(|p| p.1).fold(f64::INFINITY, f64::min);
            let right = pts.iter().map(|p| p.1).fold(f64::NEG_INFINITY, f64::max);
            let bx = &a["box"]["bounds"];
            assert!(close(bx["top_left"]["lat"].as_f64().unwrap(), top), "{index}: {bx}");
            assert!(close(bx["top_left"]["lon"].as_f64().unwrap(), left), "{index}: {bx}");
            assert!(close(bx["bottom_right"]["lat"].as_f64().unwrap(), bottom), "{index}: {bx}");
            assert!(close(bx["bottom_right"]["lon"].as_f64().unwrap(), right), "{index}: {bx}");
            // geo_centroid.
            let n = pts.len() as f64;
            let mid = &a["mid"];
            assert_eq!(mid["count"], json!(pts.len()));
            assert!((mid["location"]["lat"].as_f64().unwrap() - pts.iter().map(|p| p.0).sum::<f64>() / n).abs() < 1e-9);
            assert!((mid["location"]["lon"].as_f64().unwrap() - pts.iter().map(|p| p.1).sum::<f64>() / n).abs() < 1e-9);
            // significant_terms and significant_text under each class.
            let tags: Vec<BTreeSet<String>> = ds.iter().map(|d| BTreeSet::from([d.tag.clone()])).collect();
            let words: Vec<BTreeSet<String>> = ds.iter().map(|d| d.words.iter().cloned().collect()).collect();
            for cb in a["classes"]["buckets"].as_array().unwrap() {
                let class = cb["key"].as_str().unwrap();
                let pick = |sets: &[BTreeSet<String>]| -> Vec<BTreeSet<String>> {
                    ds.iter().zip(sets).filter(|(d, _)| d.class == class).map(|(_, s)| s.clone()).collect()
                };
                check_significant(&index, &cb["sig"], &pick(&tags), &tags, shards == 1);
                check_significant(&index, &cb["sigt"], &pick(&words), &words, shards == 1);
            }
        }
    }
    // typed_keys names and refusals.
    let r = search(
        &s,
        "g3s1",
        json!({"size": 0, "aggs": {"sig": {"significant_terms": {"field": "tag"}}, "ips": {"ip_range": {"field": "ip", "ranges": [{"to": "10.1.0.0"}]}}}}),
    );
    assert!(r["aggregations"]["sig"]["buckets"].is_array());
    let r = post(
        s.addr,
        "/g3s1/_search?typed_keys=true",
        &json!({"size": 0, "aggs": {"sig": {"significant_terms": {"field": "tag"}}, "h": {"geohash_grid": {"field": "loc"}}}}).to_string(),
    );
    assert_eq!(r.status, 200, "{}", r.text());
    assert!(r.json()["aggregations"]["sigsterms#sig"].is_object(), "{}", r.text());
    assert!(r.json()["aggregations"]["geohash_grid#h"].is_object(), "{}", r.text());
    for bad in [
        json!({"s": {"significant_terms": {"field": "tag", "script_heuristic": {"script": "1"}}}}),
        json!({"s": {"significant_terms": {"field": "body"}}}),
        json!({"s": {"ip_range": {"field": "ip", "ranges": [{"mask": "10.0.0.0/40"}]}}}),
        json!({"s": {"geo_distance": {"field": "loc", "ranges": [{"to": 1}]}}}),
        json!({"s": {"geohash_grid": {"field": "loc", "precision": 13}}}),
        json!({"s": {"ip_range": {"field": "tag", "ranges": [{"to": "10.1.0.0"}]}}}),
    ] {
        let r = post(s.addr, "/g3s1/_search", &json!({"size": 0, "aggs": bad}).to_string());
        assert_eq!(r.status, 400, "{bad}: {}", r.text());
    }
}
