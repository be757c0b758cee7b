//! Query latency over HTTP next to the engine-level call and tantivy, on the same documents:
//! the text corpus (whole by default, `$FATHOM_READ_DOCS` to cap it) bulk-loaded into the real
//! `fathom` binary (same mapping as `benches/queries.rs`, 1 shard, refresh disabled while
//! loading, then `_forcemerge?max_num_segments=1`), and, in this process, the engine index and
//! tantivy index of `common::build_pair` (each one segment).
//!
//! Queries are `shared/bench/queries.json` on `body` (term, AND, OR, phrase, date range), sent as
//! the query DSL (`term`, `bool.must` / `bool.should` of terms, `match_phrase`, `range`) over one
//! keep-alive connection:
//! - `top10`: `_search` with `size: 10`, `track_total_hits: false`, `_source: false` (the engine
//!   call returns no source either);
//! - `top10+src`: the same with the default `_source` (the fetch phase reads 10 sources);
//! - `count`: `_count` (the engine's `Searcher::count`, as `Searcher::query().count`).
//!
//! Before timing, every query's hit count is asserted equal over HTTP, in the engine and in
//! tantivy; each timed HTTP response is checked (status 200, `min(10, count)` hits or the count)
//! after its clock stops, so JSON parsing on the client side is not timed. Criterion times a pass
//! over all queries of a kind (HTTP, engine, tantivy in one group); the summary gives per-query
//! medians of 7 rounds, their median and p99 across the queries of a kind, and the HTTP overhead
//! (HTTP median − engine median; target ≤ 100 µs).

mod common;
mod fathom_server;

use std::ops::Bound;
use std::time::{Duration, Instant};

use common::{build_pair, queries, queries_of, read_docs, terms_of, Corpus};
use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use fathom::engine::index::writer::read_document_with;
use fathom::engine::query::{Query as FQuery, RangeKind, TopSpec, TrackTotalHits};
use fathom::engine::segment::points::sortable;
use fathom_server::{bulk_bodies, bulk_load, Conn, Server};
use serde_json::{json, Value};
use tantivy::collector::{Count, TopDocs};
use tantivy::query::{BooleanQuery, Occur, PhraseQuery, Query as TQuery, RangeQuery, TermQuery};
use tantivy::schema::{Field, IndexRecordOption};
use tantivy::time::format_description::well_known::Rfc3339;
use tantivy::time::OffsetDateTime;
use tantivy::{DateTime, Term};

const KINDS: [&str; 5] = ["term", "and", "or", "phrase", "date_range"];
const MODES: [&str; 3] = ["top10", "top10+src", "count"];
const INDEX: &str = "text";
const BATCH: usize = 1_000;
const CLIENTS: usize = 2;

/// One query three ways.
struct Q {
    id: String,
    fathom: FQuery,
    tantivy: Box<dyn TQuery>,
    /// The DSL query (the value of `"query"`).
    dsl: Value,
    count: u64,
}

impl Q {
    /// `(path, body)` of the HTTP request of `mode`.
    fn http(&self, mode: &str) -> (String, String) {
        match mode {
            "top10" => (
                format!("/{INDEX}/_search"),
                json!({"size": 10, "track_total_hits": false, "_source": false, "query": self.dsl}).to_string(),
            ),
            "top10+src" => (
                format!("/{INDEX}/_search"),
                json!({"size": 10, "track_total_hits": false, "query": self.dsl}).to_string(),
            ),
            _ => (format!("/{INDEX}/_count"), json!({"query": self.dsl}).to_string()),
        }
    }

    /// Checks an HTTP response of `mode` (outside the timed region).
    fn check(&self, mode: &str, status: u16, body: &[u8]) {
        assert_eq!(status, 200, "{} {mode}: {}", self.id, String::from_utf8_lossy(body));
        let v: Value = serde_json::from_slice(body).expect("search responses are JSON");
        if mode == "count" {
            assert_eq!(v["count"].as_u64(), Some(self.count), "{} _count", self.id);
        } else {
            let n = v["hits"]["hits"].as_array().map_or(0, Vec::len) as u64;
            assert_eq!(n, self.count.min(10), "{} {mode} hits over HTTP", self.id);
        }
    }
}

fn millis(s: &str) -> i64 {
    let t = OffsetDateTime::parse(s, &Rfc3339).unwrap_or_else(|e| panic!("{s}: {e}"));
    (t.unix_timestamp_nanos() / 1_000_000) as i64
}

/// The engine query, the tantivy query and the DSL query of one `queries.json` entry (the first
/// two as in `benches/queries.rs`).
fn build(kind: &str, q: &Value, body: Field, date: Field) -> (FQuery, Box<dyn TQuery>, Value) {
    let tt = |t: &str| -> Box<dyn TQuery> {
        Box::new(TermQuery::new(Term::from_field_text(body, t), IndexRecordOption::WithFreqs))
    };
    match kind {
        "term" => {
            let t = &terms_of(q)[0];
            (FQuery::term("body", t), tt(t), json!({"term": {"body": t}}))
        }
        "and" | "or" => {
            let ts = terms_of(q);
            let f: Vec<FQuery> = ts.iter().map(|t| FQuery::term("body", t)).collect();
            let occur = if kind == "and" { Occur::Must } else { Occur::Should };
            let t = BooleanQuery::new(ts.iter().map(|t| (occur, tt(t))).collect());
            let clauses: Vec<Value> = ts.iter().map(|t| json!({"term": {"body": t}})).collect();
            let (fq, dsl) = if kind == "and" {
                (FQuery::and(f), json!({"bool": {"must": clauses}}))
            } else {
                (FQuery::or(f), json!({"bool": {"should": clauses}}))
            };
            (fq, Box::new(t), dsl)
        }
        "phrase" => {
            let ts = terms_of(q);
            let f = FQuery::Phrase {
                field: "body".into(),
                terms: ts.iter().enumerate().map(|(i, t)| (t.as_bytes().to_vec(), i as u32)).collect(),
                slop: 0,
                boost: 1.0,
            };
            let t = PhraseQuery::new(ts.iter().map(|t| Term::from_field_text(body, t)).collect());
            (f, Box::new(t), json!({"match_phrase": {"body": ts.join(" ")}}))
        }
        "date_range" => {
            assert_eq!(q["field"], "date");
            let (gte, lt) =
                (q["gte"].as_str().expect("date ranges have gte"), q["lt"].as_str().expect("date ranges have lt"));
            let (lo, hi) = (millis(gte), millis(lt));
            let f = FQuery::Range {
                field: "date".into(),
                lo: Some(sortable::encode_i64(lo).to_vec()),
                hi: Some(sortable::encode_i64(hi).to_vec()),
                include_lo: true,
                include_hi: false,
                kind: RangeKind::Points,
                boost: 1.0,
            };
            let term = |ms: i64| Term::from_field_date_for_search(date, DateTime::from_timestamp_millis(ms));
            let t = RangeQuery::new(Bound::Included(term(lo)), Bound::Excluded(term(hi)));
            (f, Box::new(t), json!({"range": {"date": {"gte": gte, "lt": lt}}}))
        }
        _ => unreachable!("kinds are listed in KINDS"),
    }
}

/// Starts the server and loads the same documents as `build_pair` into index `text`, force-merged
/// to one segment.
fn load_server() -> Option<Server> {
    let lines = Corpus::Text.load_n(read_docs())?;
    let (server, _) = Server::start();
    let mut c = Conn::open(&server.addr);
    let m = Corpus::Text.mapping().to_json();
    let settings = json!({"number_of_shards": 1, "number_of_replicas": 0, "refresh_interval": "-1"});
    c.ok("PUT", &format!("/{INDEX}"), &json!({"settings": settings, "mappings": m}).to_string());
    let t0 = Instant::now();
    let bodies = bulk_bodies(&lines, BATCH);
    let acked = bulk_load(&server.addr, INDEX, &bodies, CLIENTS);
    assert_eq!(acked, lines.len(), "every document acknowledged");
    let loaded = t0.elapsed();
    c.ok("POST", &format!("/{INDEX}/_refresh"), "");
    c.ok("POST", &format!("/{INDEX}/_forcemerge?max_num_segments=1"), "");
    let merged = t0.elapsed();
    let cat: Value = serde_json::from_slice(&c.ok(
        "GET",
        &format!("/_cat/indices/{INDEX}?format=json&h=docs.count,segments.count"),
        "",
    ))
    .expect("cat JSON");
    let docs = cat[0]["docs.count"].as_str().and_then(|s| s.parse::<u64>().ok());
    assert_eq!(docs, Some(lines.len() as u64), "docs in the server index: {cat}");
    let segments = cat[0]["segments.count"].as_str().unwrap_or("?").to_string();
    assert!(segments == "1" || segments == "?", "server index force-merged to one segment: {cat}");
    eprintln!(
        "loaded {} docs over HTTP ({CLIENTS} connections, {BATCH}/bulk) in {loaded:.1?}, refresh + force merge done at {merged:.1?}; segments: {segments}; server RSS {:.0} MB",
        lines.len(),
        server.rss_kb() as f64 / 1024.0
    );
    Some(server)
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

fn p99(v: &mut [f64]) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[((v.len() as f64 * 0.99).ceil() as usize).clamp(1, v.len()) - 1]
}

/// Median over `rounds` runs of `f` (which returns its own elapsed time), in microseconds.
fn latency(rounds: usize, mut f: impl FnMut() -> Duration) -> f64 {
    let mut v: Vec<f64> = (0..rounds).map(|_| f().as_secs_f64() * 1e6).collect();
    median(&mut v)
}

/// `$FATHOM_HTTP_DIAG`: the server's force-merged shard, flushed and copied, opened in this
/// process; every query of `kinds` timed on it and on the bench's own index with the same engine
/// call, and both segments' files compared (why a query is slower over HTTP than in the engine).
fn diagnose(
    server: &Server,
    conn: &mut Conn,
    bench: &fathom::engine::index::IndexReader,
    bench_dir: &std::path::Path,
    sets: &[(&str, Vec<Q>)],
) {
    use fathom::engine::index::IndexWriter;
    use fathom::engine::store::FsDirectory;
    conn.ok("POST", &format!("/{INDEX}/_flush"), "");
    let cmdline = std::fs::read(format!("/proc/{}/cmdline", server.pid())).unwrap_or_default();
    let data = cmdline
        .split(|&b| b == 0)
        .find_map(|a| std::str::from_utf8(a).ok()?.strip_prefix("path.data=").map(std::path::PathBuf::from));
    let Some(data) = data else { return eprintln!("diag: no path.data in the server's command line") };
    fn find(d: &std::path::Path, depth: usize) -> Option<std::path::PathBuf> {
        if d.file_name().is_some_and(|n| n == "index")
            && d.parent().is_some_and(|p| p.file_name().is_some_and(|n| n == "0"))
        {
            return Some(d.to_path_buf());
        }
        if depth == 0 {
            return None;
        }
        std::fs::read_dir(d).ok()?.flatten().filter(|e| e.path().is_dir()).find_map(|e| find(&e.path(), depth - 1))
    }
    let Some(shard) = find(&data, 8) else { return eprintln!("diag: no shard index dir under {}", data.display()) };
    let copy = tempfile::tempdir().expect("tempdir");
    for e in std::fs::read_dir(&shard).expect("shard dir").flatten() {
        if e.path().is_file() {
            std::fs::copy(e.path(), copy.path().join(e.file_name())).expect("copy a shard file");
        }
    }
    let (w, _) = IndexWriter::open(
        std::sync::Arc::new(FsDirectory::open(copy.path()).expect("copy dir")),
        common::fathom_config(),
    )
    .expect("open the server's shard copy");
    let server_s = w.reader().expect("searcher");
    let sizes = |dir: &std::path::Path| -> std::collections::BTreeMap<String, u64> {
        let mut m = std::collections::BTreeMap::new();
        for e in std::fs::read_dir(dir).expect("dir").flatten() {
            let name = e.file_name().to_string_lossy().to_string();
            let ext = name.rsplit_once('.').map_or(name.clone(), |(_, x)| x.to_string());
            *m.entry(ext).or_insert(0) += e.metadata().map_or(0, |m| m.len());
        }
        m
    };
    for (name, s) in [("bench", bench), ("server", &server_s)] {
        let l: Vec<String> = s
            .leaves()
            .iter()
            .map(|l| format!("max_doc {} deleted {}", l.reader.max_doc(), l.live.num_deleted()))
            .collect();
        eprintln!(
            "diag {name}: {} leaves [{}], num_docs {}, deleted {}",
            s.leaves().len(),
            l.join("; "),
            s.num_docs(),
            s.num_deleted()
        );
    }
    eprintln!("diag bench files by extension: {:?}", sizes(bench_dir));
    eprintln!("diag server files by extension: {:?}", sizes(copy.path()));
    let top = TopSpec { size: 10, track_total_hits: TrackTotalHits::Disabled, ..TopSpec::default() };
    for (kind, qs) in sets {
        let (mut b, mut sv) = (Vec::new(), Vec::new());
        for q in qs {
            let time = |s: &fathom::engine::index::IndexReader| {
                latency(7, || {
                    let t = Instant::now();
                    black_box(s.query().search(&q.fathom, &top).expect("search"));
                    t.elapsed()
                })
            };
            let (tb, ts) = (time(bench), time(&server_s));
            let rb = bench.query().search(&q.fathom, &top).expect("search");
            let rs = server_s.query().search(&q.fathom, &top).expect("search");
            let scores = |r: &fathom::engine::query::TopDocs| r.hits.iter().map(|h| h.score).collect::<Vec<f32>>();
            if kind == &"or" {
                eprintln!(
                    "diag or {:<22} {:>8} hits  bench {:>8.1} us  server {:>8.1} us  same scores: {}",
                    q.id,
                    q.count,
                    tb,
                    ts,
                    scores(&rb) == scores(&rs)
                );
            }
            b.push(tb);
            sv.push(ts);
        }
        eprintln!(
            "diag {kind}: engine top-10 median bench {:.1} us, server's segment {:.1} us",
            median(&mut b),
            median(&mut sv)
        );
    }
}

fn http_search_bench(c: &mut Criterion) {
    let Some(server) = load_server() else { return };
    let Some(pair) = build_pair(Corpus::Text) else { return };
    let all = queries();
    let fs = pair.fathom.reader().expect("searcher");
    let fq = fs.query();
    let tr = pair.tantivy.reader().expect("reader");
    let ts = tr.searcher();
    let schema = pair.tantivy.schema();
    let (body, date) = (schema.get_field("body").expect("body"), schema.get_field("date").expect("date"));
    let top = TopSpec { size: 10, track_total_hits: TrackTotalHits::Disabled, ..TopSpec::default() };
    let tcol = TopDocs::with_limit(10).order_by_score();
    let mut conn = Conn::open(&server.addr);

    let only = std::env::var("FATHOM_QUERY_KINDS").ok();
    let mut sets: Vec<(&str, Vec<Q>)> = Vec::new();
    for kind in KINDS.into_iter().filter(|k| only.as_deref().is_none_or(|o| o.split(',').any(|x| x == *k))) {
        let mut qs = Vec::new();
        for q in queries_of(&all, if kind == "or" { "and" } else { kind }) {
            let (f, t, dsl) = build(kind, &q, body, date);
            let count = ts.search(t.as_ref(), &Count).expect("tantivy count") as u64;
            let fc = fq.count(&f).expect("fathom count");
            let id = q["id"].as_str().unwrap_or("?").to_string();
            assert_eq!(fc, count, "{kind} {id}: engine {fc} hits, tantivy {count}");
            let q = Q { id, fathom: f, tantivy: t, dsl, count };
            let (path, req) = q.http("count");
            let (s, b) = conn.request("POST", &path, "application/json", req.as_bytes());
            q.check("count", s, &b);
            qs.push(q);
        }
        eprintln!(
            "{kind}: {} queries, {} hits in all, counts equal over HTTP, in the engine and in tantivy",
            qs.len(),
            qs.iter().map(|q| q.count).sum::<u64>()
        );
        sets.push((kind, qs));
    }

    // Prepared request bodies: (path, body) per query and mode.
    if std::env::var_os("FATHOM_HTTP_DIAG").is_some() {
        diagnose(&server, &mut conn, &fs, pair._fathom_dir.path(), &sets);
    }
    let reqs: Vec<Vec<[(String, String); 3]>> =
        sets.iter().map(|(_, qs)| qs.iter().map(|q| MODES.map(|m| q.http(m))).collect()).collect();
    let conn = std::cell::RefCell::new(conn);
    let http = |q: &Q, r: &(String, String), mode: &str| -> Duration {
        let mut c = conn.borrow_mut();
        let t = Instant::now();
        let (s, b) = c.request("POST", &r.0, "application/json", r.1.as_bytes());
        let el = t.elapsed();
        q.check(mode, s, &b);
        el
    };
    let engine = |q: &Q, mode: &str| -> Duration {
        if mode == "count" {
            let t = Instant::now();
            let n = fq.count(&q.fathom).expect("fathom count");
            let el = t.elapsed();
            assert_eq!(n, q.count, "engine count of {}", q.id);
            el
        } else {
            let t = Instant::now();
            let r = fq.search(&q.fathom, &top).expect("fathom search");
            let el = t.elapsed();
            assert_eq!(r.hits.len() as u64, q.count.min(10), "engine top-10 of {}", q.id);
            el
        }
    };
    let tantivy = |q: &Q, mode: &str| -> Duration {
        if mode == "count" {
            let t = Instant::now();
            let n = ts.search(q.tantivy.as_ref(), &Count).expect("tantivy count") as u64;
            let el = t.elapsed();
            assert_eq!(n, q.count, "tantivy count of {}", q.id);
            el
        } else {
            let t = Instant::now();
            let r = ts.search(q.tantivy.as_ref(), &tcol).expect("tantivy search");
            let el = t.elapsed();
            assert_eq!(r.len() as u64, q.count.min(10), "tantivy top-10 of {}", q.id);
            el
        }
    };

    // The engine's top-10 plus what the fetch phase reads per hit (`read_document_with`: the
    // stored `_id`, the version and, with `with_source`, the `_source` of each hit), to split
    // the HTTP overhead.
    let engine_fetch = |q: &Q, with_source: bool| -> Duration {
        let t = Instant::now();
        let r = fq.search(&q.fathom, &top).expect("fathom search");
        for h in &r.hits {
            let leaf = fs.leaves().get(h.segment).expect("hits name a leaf of the searcher");
            black_box(read_document_with(&leaf.reader, h.doc, with_source).expect("stored document of a hit"));
        }
        let el = t.elapsed();
        assert_eq!(r.hits.len() as u64, q.count.min(10), "engine top-10 of {}", q.id);
        el
    };

    for (si, (kind, qs)) in sets.iter().enumerate() {
        let mut g = c.benchmark_group(format!("http_query_top10/{kind}"));
        g.sample_size(10).warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(3));
        g.throughput(Throughput::Elements(qs.len() as u64));
        g.bench_function("fathom_http", |b| {
            b.iter(|| {
                qs.iter().zip(&reqs[si]).for_each(|(q, r)| {
                    black_box(http(q, &r[0], "top10"));
                })
            })
        });
        g.bench_function("fathom_engine", |b| {
            b.iter(|| {
                qs.iter().for_each(|q| {
                    black_box(engine(q, "top10"));
                })
            })
        });
        g.bench_function("tantivy", |b| {
            b.iter(|| {
                qs.iter().for_each(|q| {
                    black_box(tantivy(q, "top10"));
                })
            })
        });
        g.finish();
    }

    let rounds = 7;
    let mut worst: Vec<String> = Vec::new();
    eprintln!("\n== query latency, us, median of {rounds} rounds per query, then median / p99 across queries ==");
    eprintln!(
        "{:<11} {:<9} {:>18} {:>18} {:>18} {:>14} {:>16}",
        "query",
        "mode",
        "HTTP med / p99",
        "engine med / p99",
        "tantivy med / p99",
        "HTTP overhead",
        "per-query ovh med"
    );
    for (si, (kind, qs)) in sets.iter().enumerate() {
        for (mi, mode) in MODES.into_iter().enumerate() {
            let (mut h, mut e, mut t) = (Vec::new(), Vec::new(), Vec::new());
            for (q, r) in qs.iter().zip(&reqs[si]) {
                http(q, &r[mi], mode);
                engine(q, mode);
                tantivy(q, mode);
                h.push(latency(rounds, || http(q, &r[mi], mode)));
                e.push(latency(rounds, || engine(q, mode)));
                t.push(latency(rounds, || tantivy(q, mode)));
            }
            let mut diff: Vec<f64> = h.iter().zip(&e).map(|(a, b)| a - b).collect();
            if mode == "top10+src" {
                let i = (0..diff.len()).max_by(|&a, &b| diff[a].total_cmp(&diff[b])).unwrap_or(0);
                worst.push(format!(
                    "{kind:<11} {:<22} {:>8} hits  HTTP {:>9.1} us  engine {:>9.1} us",
                    qs[i].id, qs[i].count, h[i], e[i]
                ));
            }
            let (hm, em, tm) = (median(&mut h), median(&mut e), median(&mut t));
            eprintln!(
                "{kind:<11} {mode:<9} {:>18} {:>18} {:>18} {:>14.1} {:>16.1}",
                format!("{hm:.1} / {:.0}", p99(&mut h)),
                format!("{em:.1} / {:.0}", p99(&mut e)),
                format!("{tm:.1} / {:.0}", p99(&mut t)),
                hm - em,
                median(&mut diff)
            );
        }
    }
    eprintln!("\n== engine top-10 + read_document_with of each hit (what the fetch phase reads), us, median / p99 across queries ==");
    eprintln!("{:<11} {:>18} {:>18}", "query", "_id only (top10)", "with _source");
    for (kind, qs) in &sets {
        let mut per = [false, true].map(|with_source| -> Vec<f64> {
            qs.iter()
                .map(|q| {
                    engine_fetch(q, with_source);
                    latency(rounds, || engine_fetch(q, with_source))
                })
                .collect()
        });
        let hits: u64 = qs.iter().map(|q| q.count.min(10)).sum();
        let [a, b] = &mut per;
        eprintln!(
            "{kind:<11} {:>18} {:>18}   ({:.1} hits per query)",
            format!("{:.1} / {:.0}", median(a), p99(a)),
            format!("{:.1} / {:.0}", median(b), p99(b)),
            hits as f64 / qs.len() as f64
        );
    }
    eprintln!("\n== largest HTTP − engine difference per kind (top10+src) ==");
    for l in worst {
        eprintln!("{l}");
    }
    eprintln!("server RSS after the queries: {:.0} MB", server.rss_kb() as f64 / 1024.0);
}

criterion_group!(benches, http_search_bench);
criterion_main!(benches);
