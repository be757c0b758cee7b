//! Scoring fidelity over real HTTP: `cross_fields`, `fuzzy`, `match_phrase_prefix`, keyword
//! normalizers and `random_score`, each against an independent computation of Lucene's formulas.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};

use fathom::http::{start, Running};
use fathom::node::settings::NodeSettings;
use serde_json::{json, Value};

struct Server {
    rt: tokio::runtime::Runtime,
    running: Option<Running>,
    addr: SocketAddr,
    _dir: tempfile::TempDir,
}

impl Server {
    fn new() -> Server {
        let dir = tempfile::tempdir().expect("temp dir");
        let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().expect("runtime");
        let data = dir.path().to_string_lossy().to_string();
        let running = rt
            .block_on(start(NodeSettings::from_pairs(&[("path.data", &data), ("http.port", "0")])))
            .expect("server starts");
        let addr = running.addr;
        Server { rt, running: Some(running), addr, _dir: dir }
    }

    /// Sends one request; returns (status, JSON body).
    fn call(&self, method: &str, path: &str, body: Option<&str>) -> (u16, Value) {
        let mut s = TcpStream::connect(self.addr).expect("connect");
        let body = body.unwrap_or("");
        let ct = if path.contains("_bulk") || path.contains("_msearch") {
            "application/x-ndjson"
        } else {
            "application/json"
        };
        let req = format!("{method} {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Type: {ct}\r\nContent-Length: {}\r\n\r\n{body}", body.len());
        s.write_all(req.as_bytes()).expect("write");
        let mut raw = Vec::new();
        s.read_to_end(&mut raw).expect("read");
        let text = String::from_utf8_lossy(&raw).to_string();
        let (head, rest) = text.split_once("\r\n\r\n").expect("a header");
        let status: u16 = head.split_whitespace().nth(1).and_then(|x| x.parse().ok()).expect("status");
        let payload = if head.to_ascii_lowercase().contains("transfer-encoding: chunked") {
            let mut out = String::new();
            let mut r = rest;
            while let Some((len, tail)) = r.split_once("\r\n") {
                let n = usize::from_str_radix(len.trim(), 16).unwrap_or(0);
                if n == 0 {
                    break;
                }
                out.push_str(&tail[..n]);
                r = &tail[n + 2..];
            }
            out
        } else {
            rest.to_string()
        };
        (status, serde_json::from_str(&payload).unwrap_or(Value::Null))
    }

    fn ok(&self, method: &str, path: &str, body: Value) -> Value {
        let (st, v) = self.call(method, path, Some(&body.to_string()));
        assert!(st < 300, "{method} {path} -> {st}: {v}");
        v
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if let Some(r) = self.running.take() {
            self.rt.block_on(r.stop());
        }
    }
}

/// Lucene's BM25 idf.
fn idf(doc_freq: f64, docs: f64) -> f64 {
    (1.0 + (docs - doc_freq + 0.5) / (doc_freq + 0.5)).ln()
}

/// Lucene's BM25 (k1 1.2, b 0.75) with a given idf: exact lengths (short documents, so the
/// one-byte norm is lossless).
fn bm25_idf(idf: f64, freq: f64, dl: f64, avgdl: f64) -> f64 {
    let norm = 1.2 * (0.25 + 0.75 * dl / avgdl);
    idf * freq / (freq + norm)
}

/// A whitespace-tokenized field of a small corpus (`None`: the doc lacks the field).
struct Field {
    docs: Vec<Option<Vec<String>>>,
}

impl Field {
    fn new(texts: &[Option<&str>]) -> Field {
        Field { docs: texts.iter().map(|t| t.map(|s| s.split(' ').map(String::from).collect())).collect() }
    }
    fn doc_count(&self) -> f64 {
        self.docs.iter().filter(|d| d.is_some()).count() as f64
    }
    fn sum_ttf(&self) -> f64 {
        self.docs.iter().flatten().map(|d| d.len()).sum::<usize>() as f64
    }
    fn avgdl(&self) -> f64 {
        self.sum_ttf() / self.doc_count()
    }
    fn df(&self, t: &str) -> f64 {
        self.docs.iter().flatten().filter(|d| d.iter().any(|x| x == t)).count() as f64
    }
    fn freq(&self, doc: usize, t: &str) -> f64 {
        self.docs[doc].as_ref().map_or(0, |d| d.iter().filter(|x| *x == t).count()) as f64
    }
    fn dl(&self, doc: usize) -> f64 {
        self.docs[doc].as_ref().map_or(0, |d| d.len()) as f64
    }
}

fn scores(r: &Value) -> Vec<(usize, f64)> {
    let mut out: Vec<(usize, f64)> = r["hits"]["hits"]
        .as_array()
        .expect("hits")
        .iter()
        .map(|h| (h["_id"].as_str().and_then(|x| x.parse().ok()).expect("id"), h["_score"].as_f64().expect("score")))
        .collect();
    out.sort_by_key(|x| x.0);
    out
}

fn assert_scores(what: &str, got: &[(usize, f64)], want: &[(usize, f64)]) {
    assert_eq!(
        got.iter().map(|g| g.0).collect::<Vec<_>>(),
        want.iter().map(|w| w.0).collect::<Vec<_>>(),
        "{what}: matching docs"
    );
    for (g, w) in got.iter().zip(want) {
        assert!((g.1 - w.1).abs() <= 1e-5 * w.1.max(1.0), "{what}: doc {}: got {}, want {}", g.0, g.1, w.1);
    }
}

fn index(s: &Server, name: &str, mappings: Value, docs: &[Value]) {
    s.ok("PUT", &format!("/{name}"), json!({"settings": {"number_of_shards": 1, "analysis": {"normalizer": {"lower": {"type": "custom", "filter": ["lowercase"]}}}}, "mappings": mappings}));
    for (i, d) in docs.iter().enumerate() {
        s.ok("PUT", &format!("/{name}/_doc/{i}"), d.clone());
    }
    s.ok("POST", &format!("/{name}/_refresh"), json!({}));
}

/// OpenSearch's `BlendedTermQuery.blend`, written from its description: per field (df,
/// docCount, sumTTF) → blended df.
fn blend(stats: &[(f64, f64, f64)], max_doc: f64) -> Vec<f64> {
    let max = stats.iter().map(|s| s.0).fold(0.0, f64::max);
    let min_sum_ttf = stats.iter().filter(|s| s.0 > 0.0).map(|s| s.2).fold(f64::INFINITY, f64::min);
    let max_doc = max_doc.min(min_sum_ttf);
    let mut order: Vec<usize> = (0..stats.len()).collect();
    order.sort_by(|&a, &b| stats[b].0.total_cmp(&stats[a].0));
    let mut out: Vec<f64> = stats.iter().map(|s| s.0).collect();
    let mut actual = max.min(max_doc);
    let mut prev = stats[order[0]].0;
    for i in order {
        if stats[i].0 == 0.0 {
            break;
        }
        if prev > stats[i].0 {
            actual += 1.0;
        }
        out[i] = actual.min(max_doc.min(stats[i].1));
        prev = stats[i].0;
    }
    out
}

#[test]
fn cross_fields_blends_doc_freqs_across_fields() {
    let s = Server::new();
    let title = [Some("fox"), Some("quick fox"), None, Some("lazy dog"), Some("fox den")];
    let body =
        [Some("the quick brown dog"), Some("a fox"), Some("quick quick fox jumps"), Some("the end"), Some("dog days")];
    let docs: Vec<Value> = title
        .iter()
        .zip(&body)
        .map(|(t, b)| match t {
            Some(t) => json!({"title": t, "body": b}),
            None => json!({"body": b}),
        })
        .collect();
    index(&s, "cf", json!({"properties": {"title": {"type": "text"}, "body": {"type": "text"}}}), &docs);
    let fields = [(Field::new(&title), 1.0), (Field::new(&body), 2.0)];
    let tie = 0.3;
    for (q, and) in [("fox", false), ("quick fox", false), ("quick fox", true), ("dog", false)] {
        let op = if and { "and" } else { "or" };
        let r = s.ok(
            "POST",
            "/cf/_search?size=20",
            json!({"query": {"multi_match": {"query": q, "type": "cross_fields", "fields": ["title", "body^2"], "tie_breaker": tie, "operator": op}}}),
        );
        let terms: Vec<&str> = q.split(' ').collect();
        let mut want = Vec::new();
        for d in 0..title.len() {
            let mut total = 0.0;
            let mut matched = 0;
            for t in &terms {
                let stats: Vec<(f64, f64, f64)> =
                    fields.iter().map(|(f, _)| (f.df(t), f.doc_count(), f.sum_ttf())).collect();
                let dfs = blend(&stats, title.len() as f64);
                let per: Vec<f64> = fields
                    .iter()
                    .zip(&dfs)
                    .filter(|((f, _), _)| f.freq(d, t) > 0.0)
                    .map(|((f, boost), df)| boost * bm25_idf(idf(*df, f.doc_count()), f.freq(d, t), f.dl(d), f.avgdl()))
                    .collect();
                if per.is_empty() {
                    continue;
                }
                matched += 1;
                let max = per.iter().cloned().fold(f64::MIN, f64::max);
                total += max + tie * (per.iter().sum::<f64>() - max);
            }
            if matched > 0 && (!and || matched == terms.len()) {
                want.push((d, total));
            }
        }
        assert_scores(&format!("cross_fields [{q}] {op}"), &scores(&r), &want);
    }
}

#[test]
fn fuzzy_blends_expansions_and_boosts_by_similarity() {
    let s = Server::new();
    let body = [Some("brown fox"), Some("bran muffin"), Some("brown brown bread"), Some("grown ups"), Some("nothing")];
    let docs: Vec<Value> = body.iter().map(|b| json!({"body": b})).collect();
    index(&s, "fz", json!({"properties": {"body": {"type": "text"}}}), &docs);
    let f = Field::new(&body);
    // "brwn" (4 chars, AUTO: 1 edit): brown (insert), bran (substitute); grown needs 2.
    let expansions = [("brown", 1.0 - 1.0 / 4.0), ("bran", 1.0 - 1.0 / 4.0)];
    let max_df = expansions.iter().map(|(t, _)| f.df(t)).fold(0.0, f64::max);
    let expected = |allowed: &[&str]| -> Vec<(usize, f64)> {
        let mut want = Vec::new();
        for d in 0..body.len() {
            let mut total = 0.0;
            let mut any = false;
            for (t, sim) in expansions.iter().filter(|(t, _)| allowed.contains(t)) {
                if f.freq(d, t) > 0.0 {
                    any = true;
                    total +=
                        sim * bm25_idf(idf(max_df_of(&f, allowed), f.doc_count()), f.freq(d, t), f.dl(d), f.avgdl());
                }
            }
            if any {
                want.push((d, total));
            }
        }
        want
    };
    fn max_df_of(f: &Field, allowed: &[&str]) -> f64 {
        allowed.iter().map(|t| f.df(t)).fold(0.0, f64::max)
    }
    assert_eq!(max_df, 2.0);
    let r = s.ok("POST", "/fz/_search?size=20", json!({"query": {"fuzzy": {"body": {"value": "brwn"}}}}));
    assert_scores("fuzzy brwn", &scores(&r), &expected(&["brown", "bran"]));
    let r = s.ok(
        "POST",
        "/fz/_search?size=20",
        json!({"query": {"match": {"body": {"query": "brwn", "fuzziness": "AUTO"}}}}),
    );
    assert_scores("match brwn fuzziness", &scores(&r), &expected(&["brown", "bran"]));
    // One expansion: equal boosts, the smaller term wins.
    let r = s.ok(
        "POST",
        "/fz/_search?size=20",
        json!({"query": {"fuzzy": {"body": {"value": "brwn", "max_expansions": 1}}}}),
    );
    assert_scores("fuzzy brwn max_expansions 1", &scores(&r), &expected(&["bran"]));
    // The prefix covering the value: exact matches only.
    let r = s.ok(
        "POST",
        "/fz/_search?size=20",
        json!({"query": {"fuzzy": {"body": {"value": "bran", "fuzziness": 1, "prefix_length": 4}}}}),
    );
    assert_eq!(scores(&r).iter().map(|x| x.0).collect::<Vec<_>>(), vec![1]);
}

#[test]
fn match_phrase_prefix_is_one_multi_phrase() {
    let s = Server::new();
    let body = [
        Some("quick brown fox"),
        Some("quick brownie pie"),
        Some("quick bread"),
        Some("slow brown cow"),
        Some("brown quick"),
    ];
    let docs: Vec<Value> = body.iter().map(|b| json!({"body": b})).collect();
    index(&s, "pp", json!({"properties": {"body": {"type": "text"}}}), &docs);
    let f = Field::new(&body);
    let n = f.doc_count();
    let phrase = |exp: &[&str], docs: &[usize]| -> Vec<(usize, f64)> {
        // idf: the sum over every term of the multi-phrase; phrase freq 1.
        let sum_idf = idf(f.df("quick"), n) + exp.iter().map(|t| idf(f.df(t), n)).sum::<f64>();
        docs.iter().map(|&d| (d, bm25_idf(sum_idf as f32 as f64, 1.0, f.dl(d), f.avgdl()))).collect()
    };
    let r = s.ok("POST", "/pp/_search?size=20", json!({"query": {"match_phrase_prefix": {"body": "quick bro"}}}));
    assert_scores("quick bro", &scores(&r), &phrase(&["brown", "brownie"], &[0, 1]));
    let r = s.ok(
        "POST",
        "/pp/_search?size=20",
        json!({"query": {"match_phrase_prefix": {"body": {"query": "quick bro", "max_expansions": 1}}}}),
    );
    assert_scores("quick bro, 1 expansion", &scores(&r), &phrase(&["brown"], &[0]));
    let r = s.ok(
        "POST",
        "/pp/_search?size=20",
        json!({"query": {"multi_match": {"query": "quick bro", "type": "phrase_prefix", "fields": ["body"]}}}),
    );
    assert_scores("multi_match phrase_prefix", &scores(&r), &phrase(&["brown", "brownie"], &[0, 1]));
    // One term: a disjunction of the expansions, each scored with its own statistics.
    let r = s.ok("POST", "/pp/_search?size=20", json!({"query": {"match_phrase_prefix": {"body": "bro"}}}));
    let want: Vec<(usize, f64)> = (0..body.len())
        .filter_map(|d| {
            let sc: f64 = ["brown", "brownie"]
                .iter()
                .filter(|t| f.freq(d, t) > 0.0)
                .map(|t| bm25_idf(idf(f.df(t), n), f.freq(d, t), f.dl(d), f.avgdl()))
                .sum();
            (sc > 0.0).then_some((d, sc))
        })
        .collect();
    assert_scores("bro", &scores(&r), &want);
}

#[test]
fn keyword_normalizer_applies_to_term_level_queries() {
    let s = Server::new();
    let docs = [
        json!({"tag": "Foo", "raw": "FoO"}),
        json!({"tag": "BAR", "raw": "bar"}),
        json!({"tag": "foobar", "raw": "Baz"}),
    ];
    index(
        &s,
        "kn",
        json!({"properties": {"tag": {"type": "keyword", "normalizer": "lower"}, "raw": {"type": "keyword"}}}),
        &docs,
    );
    let ids = |q: Value| -> Vec<usize> {
        scores(&s.ok("POST", "/kn/_search", json!({ "query": q }))).into_iter().map(|x| x.0).collect()
    };
    assert_eq!(ids(json!({"term": {"tag": "FOO"}})), vec![0]);
    assert_eq!(ids(json!({"terms": {"tag": ["fOo", "Bar"]}})), vec![0, 1]);
    assert_eq!(ids(json!({"prefix": {"tag": "FO"}})), vec![0, 2]);
    assert_eq!(ids(json!({"wildcard": {"tag": {"value": "F*BA?"}}})), vec![2]);
    assert_eq!(ids(json!({"match": {"tag": "BaR"}})), vec![1]);
    assert_eq!(ids(json!({"fuzzy": {"tag": {"value": "FOX"}}})), vec![0]);
    // Without a normalizer: exact unless case_insensitive.
    assert_eq!(ids(json!({"term": {"raw": "foo"}})), Vec::<usize>::new());
    assert_eq!(ids(json!({"term": {"raw": {"value": "foo", "case_insensitive": true}}})), vec![0]);
    assert_eq!(ids(json!({"prefix": {"raw": {"value": "BA", "case_insensitive": true}}})), vec![1, 2]);
    assert_eq!(ids(json!({"wildcard": {"raw": {"value": "b?Z", "case_insensitive": true}}})), vec![2]);
}

/// MurmurHash3 x86_32 (Lucene's `StringHelper.murmurhash3_x86_32`).
fn murmur3(data: &[u8], seed: u32) -> u32 {
    let (c1, c2) = (0xcc9e_2d51u32, 0x1b87_3593u32);
    let mut h = seed;
    let chunks = data.chunks_exact(4);
    let tail = chunks.remainder();
    for c in chunks {
        let mut k = u32::from_le_bytes([c[0], c[1], c[2], c[3]]);
        k = k.wrapping_mul(c1).rotate_left(15).wrapping_mul(c2);
        h ^= k;
        h = h.rotate_left(13).wrapping_mul(5).wrapping_add(0xe654_6b64);
    }
    let mut k = 0u32;
    for (i, b) in tail.iter().enumerate() {
        k ^= (*b as u32) << (8 * i);
    }
    if !tail.is_empty() {
        h ^= k.wrapping_mul(c1).rotate_left(15).wrapping_mul(c2);
    }
    h ^= data.len() as u32;
    h ^= h >> 16;
    h = h.wrapping_mul(0x85eb_ca6b);
    h ^= h >> 13;
    h = h.wrapping_mul(0xc2b2_ae35);
    h ^ (h >> 16)
}

/// hppc's `BitMixer.mix32`.
fn mix32(k: u32) -> u32 {
    let k = (k ^ (k >> 16)).wrapping_mul(0x85eb_ca6b);
    let k = (k ^ (k >> 13)).wrapping_mul(0xc2b2_ae35);
    k ^ (k >> 16)
}

fn java_hash(s: &str) -> u32 {
    s.encode_utf16().fold(0u32, |h, c| h.wrapping_mul(31).wrapping_add(c as u32))
}

#[test]
fn random_score_hashes_seq_no_and_id_like_opensearch() {
    let s = Server::new();
    s.ok(
        "PUT",
        "/rs",
        json!({"settings": {"number_of_shards": 1}, "mappings": {"properties": {"n": {"type": "long"}}}}),
    );
    for i in 0..6 {
        s.ok("PUT", &format!("/rs/_doc/d{i}"), json!({"n": i}));
    }
    s.ok("POST", "/rs/_refresh", json!({}));
    let seed = 42u32;
    // `(index.hashCode() << 10) | shardId`, then `BitMixer.mix(seed, salt)`.
    let salted = mix32(seed ^ (java_hash("rs") << 10));
    let value = |h: u32| ((h & 0x00FF_FFFF) as f32 / (1u32 << 24) as f32) as f64;
    let run = |field: Option<&str>| -> Vec<(usize, f64)> {
        let mut rs = json!({"seed": seed});
        if let Some(f) = field {
            rs["field"] = json!(f);
        }
        let r = s.ok("POST", "/rs/_search?size=20", json!({"query": {"function_score": {"query": {"match_all": {}}, "random_score": rs, "boost_mode": "replace"}}}));
        let mut out: Vec<(usize, f64)> = r["hits"]["hits"]
            .as_array()
            .expect("hits")
            .iter()
            .map(|h| {
                (
                    h["_id"].as_str().and_then(|x| x.trim_start_matches('d').parse().ok()).expect("id"),
                    h["_score"].as_f64().expect("score"),
                )
            })
            .collect();
        out.sort_by_key(|x| x.0);
        out
    };
    // Docs were indexed one by one: doc `d{i}` has seq_no i.
    let by_seq_no: Vec<(usize, f64)> = (0..6).map(|i| (i, value(murmur3(i.to_string().as_bytes(), salted)))).collect();
    assert_scores("random_score _seq_no", &run(Some("_seq_no")), &by_seq_no);
    let by_id: Vec<(usize, f64)> = (0..6).map(|i| (i, value(murmur3(format!("d{i}").as_bytes(), salted)))).collect();
    assert_scores("random_score seed only (_id)", &run(None), &by_id);
    assert_scores("random_score _id", &run(Some("_id")), &by_id);
}

#[test]
fn fuzzy_rewrite_methods() {
    let s = Server::new();
    let body = [Some("brown fox"), Some("bran muffin"), Some("brown brown bread"), Some("nothing")];
    let docs: Vec<Value> = body.iter().map(|b| json!({"body": b})).collect();
    index(&s, "fr", json!({"properties": {"body": {"type": "text"}}}), &docs);
    let f = Field::new(&body);
    let q = |rewrite: &str| {
        scores(&s.ok(
            "POST",
            "/fr/_search?size=20",
            json!({"query": {"fuzzy": {"body": {"value": "brwn", "rewrite": rewrite, "boost": 2.0}}}}),
        ))
    };
    assert_scores("constant_score", &q("constant_score"), &[(0, 2.0), (1, 2.0), (2, 2.0)]);
    // Each term with its own statistics, boosted by its similarity 0.75.
    let own = |d: usize, t: &str| 2.0 * 0.75 * bm25_idf(idf(f.df(t), f.doc_count()), f.freq(d, t), f.dl(d), f.avgdl());
    assert_scores(
        "scoring_boolean",
        &q("scoring_boolean"),
        &[(0, own(0, "brown")), (1, own(1, "bran")), (2, own(2, "brown"))],
    );
    assert_scores("top_terms_1", &q("top_terms_1"), &[(1, own(1, "bran"))]);
    assert_scores("top_terms_boost_5", &q("top_terms_boost_5"), &[(0, 1.5), (1, 1.5), (2, 1.5)]);
    let (st, _) = s.call(
        "POST",
        "/fr/_search",
        Some(&json!({"query": {"fuzzy": {"body": {"value": "brwn", "rewrite": "nope"}}}}).to_string()),
    );
    assert_eq!(st, 400);
}
