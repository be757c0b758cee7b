//! Top-10 query latency, Fathom vs tantivy, over the text corpus (whole corpus by default,
//! `$FATHOM_READ_DOCS` to cap it), each engine force-merged to one segment, one thread.
//! Queries are `shared/bench/queries.json` on `body`: 200 terms, 100 pairs run as AND and as
//! OR, 50 two-word phrases, 20 date ranges (1 day to 25 years) on `date`.
//!
//! Before timing, every query's hit count is computed on both engines and asserted equal; every
//! timed closure asserts each query returned `min(10, count)` hits. Criterion times a pass over
//! all queries of a type (its throughput line is queries per second); the summary printed at the
//! end gives per-query median-of-rounds latencies, their median and p99 across queries, and the
//! ratio to tantivy, for top-10 and count-only (`$FATHOM_QUERY_EACH` prints every query's).

mod common;

use std::ops::Bound;
use std::time::{Duration, Instant};

use common::{
    build_pair, fathom_config, fathom_index, queries, queries_of, read_docs, tantivy_index, terms_of, Corpus,
    FathomTokenizer, TantivyTokens, FATHOM_TOKENIZER, WRITER_BUDGET,
};
use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use fathom::engine::index::IndexWriter;
use fathom::engine::query::bm25::Bm25;
use fathom::engine::query::{Query as FQuery, RangeKind, TopSpec, TrackTotalHits};
use fathom::engine::segment::points::sortable;
use fathom::engine::segment::{Postings, NO_MORE_DOCS};
use fathom::engine::store::FsDirectory;
use serde_json::Value;
use std::path::Path;
use std::sync::Arc;
use tantivy::collector::{Count, TopDocs};
use tantivy::query::{BooleanQuery, Occur, PhraseQuery, Query as TQuery, RangeQuery, TermQuery};
use tantivy::schema::{Field, IndexRecordOption};
use tantivy::time::format_description::well_known::Rfc3339;
use tantivy::time::OffsetDateTime;
use tantivy::{DateTime, Term};

const KINDS: [&str; 5] = ["term", "and", "or", "phrase", "date_range"];

/// One query on both engines.
struct Q {
    id: String,
    fathom: FQuery,
    tantivy: Box<dyn TQuery>,
    count: u64,
}

fn millis(s: &str) -> i64 {
    let t = OffsetDateTime::parse(s, &Rfc3339).unwrap_or_else(|e| panic!("{s}: {e}"));
    (t.unix_timestamp_nanos() / 1_000_000) as i64
}

fn build(kind: &str, q: &Value, body: Field, date: Field) -> (FQuery, Box<dyn TQuery>) {
    let tt = |t: &str| -> Box<dyn TQuery> {
        Box::new(TermQuery::new(Term::from_field_text(body, t), IndexRecordOption::WithFreqs))
    };
    match kind {
        "term" => {
            let t = &terms_of(q)[0];
            (FQuery::term("body", t), tt(t))
        }
        "and" | "or" => {
            let ts = terms_of(q);
            let f: Vec<FQuery> = ts.iter().map(|t| FQuery::term("body", t)).collect();
            let occur = if kind == "and" { Occur::Must } else { Occur::Should };
            let t = BooleanQuery::new(ts.iter().map(|t| (occur, tt(t))).collect());
            (if kind == "and" { FQuery::and(f) } else { FQuery::or(f) }, Box::new(t))
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
            (f, Box::new(t))
        }
        "date_range" => {
            assert_eq!(q["field"], "date");
            let lo = millis(q["gte"].as_str().expect("gte"));
            let hi = millis(q["lt"].as_str().expect("lt"));
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
            (f, Box::new(t))
        }
        _ => unreachable!("kinds are listed in KINDS"),
    }
}

/// Why a term top-10 is slow: over the term's blocks, how many have a block-max bound (max freq
/// and min norm of the block, combined) at or above the final 10th-best score, i.e. cannot be
/// skipped, versus how many have an *actual* best score (max over the block's docs) that high.
fn block_bound_report(seg: &fathom::engine::index::Leaf, term: &str, tenth: f32) -> String {
    let r = &seg.reader;
    let f = r.field_infos.by_name("body").expect("body").number;
    let ft = r.postings.field(f).expect("postings");
    let norms = r.norms.field(f).expect("body has norms");
    let Some(info) = ft.seek_exact(term.as_bytes()).expect("seek") else { return format!("{term}: absent") };
    let st = ft.stats();
    let sim = Bm25::new(1.0, st.doc_count as u64, st.sum_total_term_freq, &[info.doc_freq as u64]);
    let mut walk = ft.postings(&info, false).expect("postings");
    let mut shallow = ft.postings(&info, false).expect("postings");
    let (mut blocks, mut bound_ge, mut actual_ge) = (0u32, 0u32, 0u32);
    let mut target = 0;
    let mut d = walk.next();
    loop {
        let end = shallow.shallow_advance(target);
        if end == NO_MORE_DOCS && d == NO_MORE_DOCS {
            break;
        }
        let (mf, mn) = shallow.block_max();
        let bound = sim.score(mf as f32, mn);
        let mut best = 0f32;
        while d != NO_MORE_DOCS && d <= end {
            best = best.max(sim.score(walk.freq() as f32, norms.get(d as usize).copied().unwrap_or(1)));
            d = walk.next();
        }
        blocks += 1;
        bound_ge += (bound >= tenth) as u32;
        actual_ge += (best >= tenth) as u32;
        if end == NO_MORE_DOCS {
            break;
        }
        target = end + 1;
    }
    format!("{term}: {blocks} blocks, bound >= 10th score ({tenth:.3}) in {bound_ge}, actual block max >= it in {actual_ge}")
}

/// The band of query `id` in `queries.json` (`high`, `high+low`, ...; `?` when absent).
fn band_of<'a>(all: &'a Value, id: &str) -> &'a str {
    all["queries"]
        .as_array()
        .and_then(|a| a.iter().find(|x| x["id"] == id))
        .map_or("?", |x| x["band"].as_str().unwrap_or("?"))
}

/// One line per band of `kind`: Fathom and tantivy medians of the per-query latencies `f`, `t`
/// (indexed like `qs`) and their ratio.
fn band_table(kind: &str, mode: &str, qs: &[Q], all: &Value, f: &[f64], t: &[f64]) -> Vec<String> {
    let mut names: Vec<&str> = qs.iter().map(|q| band_of(all, &q.id)).collect();
    names.sort_unstable();
    names.dedup();
    names
        .into_iter()
        .map(|b| {
            let idx: Vec<usize> = (0..qs.len()).filter(|&i| band_of(all, &qs[i].id) == b).collect();
            let mut fb: Vec<f64> = idx.iter().map(|&i| f[i]).collect();
            let mut tb: Vec<f64> = idx.iter().map(|&i| t[i]).collect();
            let (fm, tm) = (median(&mut fb), median(&mut tb));
            format!(
                "{kind:<11} {mode:<6} {b:<14} ({:>3}) fathom {fm:>9.1}  tantivy {tm:>9.1}  ratio {:.2}",
                idx.len(),
                fm / tm
            )
        })
        .collect()
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

fn p99(v: &mut [f64]) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[((v.len() as f64 * 0.99).ceil() as usize).clamp(1, v.len()) - 1]
}

/// Median over `rounds` runs of `f`, in microseconds.
fn latency(rounds: usize, mut f: impl FnMut()) -> f64 {
    let mut v: Vec<f64> = (0..rounds)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed().as_secs_f64() * 1e6
        })
        .collect();
    median(&mut v)
}

/// Both one-segment text indexes kept in `dir` (built there on first use, reopened after), so
/// that a profiling run under callgrind does not rebuild them (`$FATHOM_QUERY_INDEX_DIR`).
fn persistent_pair(dir: &Path) -> (IndexWriter, tantivy::Index) {
    let (fd, td) = (dir.join("fathom"), dir.join("tantivy"));
    if !dir.join("done").exists() {
        let _ = std::fs::remove_dir_all(dir);
        std::fs::create_dir_all(&fd).expect("index dir");
        std::fs::create_dir_all(&td).expect("index dir");
        let lines = Corpus::Text.load_n(read_docs()).expect("text corpus");
        let f = fathom_index(&fd, Corpus::Text, &lines);
        f.force_merge(1).expect("force merge");
        f.commit(Default::default()).expect("commit");
        drop(f);
        let t = tantivy_index(&td, Corpus::Text, &lines, TantivyTokens::Fathom);
        let ids = t.searchable_segment_ids().expect("segments");
        if ids.len() > 1 {
            let mut w: tantivy::IndexWriter = t.writer_with_num_threads(1, WRITER_BUDGET).expect("tantivy writer");
            w.merge(&ids).wait().expect("merge");
            w.wait_merging_threads().expect("merges");
        }
        std::fs::write(dir.join("done"), b"").expect("done marker");
    }
    let fs = FsDirectory::open(&fd).expect("fathom dir");
    let (f, _) = IndexWriter::open(Arc::new(fs), fathom_config()).expect("open writer");
    let t = tantivy::Index::open_in_dir(&td).expect("open tantivy");
    t.tokenizers().register(FATHOM_TOKENIZER, FathomTokenizer::default());
    (f, t)
}

/// Callgrind driver (`$FATHOM_QUERY_PROFILE=N`): each query `n` times on Fathom, then on
/// tantivy, in two functions to name in `--toggle-collect`.
#[inline(never)]
fn profile_fathom(qs: &[Q], n: usize, run: &dyn Fn(&Q)) {
    for q in qs {
        for _ in 0..n {
            run(q);
        }
    }
}

#[inline(never)]
fn profile_tantivy(qs: &[Q], n: usize, run: &dyn Fn(&Q)) {
    for q in qs {
        for _ in 0..n {
            run(q);
        }
    }
}

fn queries_bench(c: &mut Criterion) {
    let (_pair, fathom_w, tantivy_i);
    let (fw, ti) = match std::env::var_os("FATHOM_QUERY_INDEX_DIR") {
        Some(d) => {
            (fathom_w, tantivy_i) = persistent_pair(Path::new(&d));
            (&fathom_w, &tantivy_i)
        }
        None => {
            let Some(p) = build_pair(Corpus::Text) else { return };
            _pair = p;
            (&_pair.fathom, &_pair.tantivy)
        }
    };
    struct PairRef<'a> {
        fathom: &'a IndexWriter,
        tantivy: &'a tantivy::Index,
    }
    let pair = PairRef { fathom: fw, tantivy: ti };
    let all = queries();
    let fs = pair.fathom.reader().expect("searcher");
    let fq = fs.query();
    let tr = pair.tantivy.reader().expect("reader");
    let ts = tr.searcher();
    let schema = pair.tantivy.schema();
    let (body, date) = (schema.get_field("body").expect("body"), schema.get_field("date").expect("date"));
    let top = TopSpec { size: 10, track_total_hits: TrackTotalHits::Disabled, ..TopSpec::default() };
    let tcol = TopDocs::with_limit(10).order_by_score();

    // `$FATHOM_QUERY_KINDS=term,or` restricts the kinds (for profiling one of them).
    let only = std::env::var("FATHOM_QUERY_KINDS").ok();
    let mut sets: Vec<(&str, Vec<Q>)> = Vec::new();
    for kind in KINDS.into_iter().filter(|k| only.as_deref().is_none_or(|o| o.split(',').any(|x| x == *k))) {
        let src = queries_of(&all, if kind == "or" { "and" } else { kind });
        // `$FATHOM_QUERY_IDS=term-medium,and-hh` keeps the queries whose id starts with one of these.
        let ids = std::env::var("FATHOM_QUERY_IDS").ok();
        let mut qs = Vec::new();
        for q in src.iter().filter(|q| {
            ids.as_deref().is_none_or(|p| p.split(',').any(|p| q["id"].as_str().unwrap_or("").starts_with(p)))
        }) {
            let (f, t) = build(kind, q, body, date);
            let count = ts.search(t.as_ref(), &Count).expect("tantivy count") as u64;
            let fc = fq.count(&f).expect("fathom count");
            let id = q["id"].as_str().unwrap_or("?").to_string();
            assert_eq!(fc, count, "{kind} {id} {f}: hit counts differ (fathom {fc}, tantivy {count})");
            qs.push(Q { id, fathom: f, tantivy: t, count });
        }
        eprintln!(
            "{kind}: {} queries, {} hits in all, counts equal on both engines",
            qs.len(),
            qs.iter().map(|q| q.count).sum::<u64>()
        );
        sets.push((kind, qs));
    }

    let fathom_top = |q: &Q| {
        let r = fq.search(&q.fathom, &top).expect("fathom search");
        assert_eq!(r.hits.len() as u64, q.count.min(10), "fathom top-10 of {}", q.id);
    };
    let tantivy_top = |q: &Q| {
        let r = ts.search(q.tantivy.as_ref(), &tcol).expect("tantivy search");
        assert_eq!(r.len() as u64, q.count.min(10), "tantivy top-10 of {}", q.id);
    };

    if let Some(n) = std::env::var("FATHOM_QUERY_PROFILE").ok().and_then(|v| v.parse::<usize>().ok()) {
        for (_, qs) in &sets {
            qs.iter().for_each(|q| {
                fathom_top(q);
                tantivy_top(q);
            });
            profile_fathom(qs, n, &fathom_top);
            profile_tantivy(qs, n, &tantivy_top);
        }
        return;
    }
    for (kind, qs) in &sets {
        let mut g = c.benchmark_group(format!("query_top10/{kind}"));
        g.sample_size(10).warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(3));
        g.throughput(Throughput::Elements(qs.len() as u64));
        g.bench_function("fathom", |b| {
            b.iter(|| {
                qs.iter().for_each(|q| {
                    let _: () = fathom_top(q);
                    black_box(())
                })
            })
        });
        g.bench_function("tantivy", |b| {
            b.iter(|| {
                qs.iter().for_each(|q| {
                    let _: () = tantivy_top(q);
                    black_box(())
                })
            })
        });
        g.finish();
    }

    // Per-query latencies (median of 7 rounds after one warm-up run), then median / p99.
    let rounds = 7;
    let mut slowest: Vec<String> = Vec::new();
    let mut ranges: Vec<String> = Vec::new();
    let mut bands: Vec<String> = Vec::new();
    eprintln!("\n== query latency, us, median of {rounds} rounds per query, then median / p99 across queries ==");
    eprintln!(
        "{:<11} {:<6} {:>20} {:>20} {:>12}",
        "query", "mode", "fathom med / p99", "tantivy med / p99", "median ratio"
    );
    for (kind, qs) in &sets {
        for mode in ["top10", "count"] {
            let (mut f, mut t): (Vec<f64>, Vec<f64>) = (Vec::new(), Vec::new());
            for q in qs {
                if mode == "top10" {
                    fathom_top(q);
                    tantivy_top(q);
                    f.push(latency(rounds, || fathom_top(q)));
                    t.push(latency(rounds, || tantivy_top(q)));
                } else {
                    let fc = || assert_eq!(fq.count(&q.fathom).expect("count"), q.count);
                    let tc = || assert_eq!(ts.search(q.tantivy.as_ref(), &Count).expect("count") as u64, q.count);
                    fc();
                    tc();
                    f.push(latency(rounds, fc));
                    t.push(latency(rounds, tc));
                }
            }
            if *kind == "date_range" {
                for (i, q) in qs.iter().enumerate() {
                    let band = all["queries"]
                        .as_array()
                        .and_then(|a| a.iter().find(|x| x["id"] == q.id.as_str()))
                        .map_or("", |x| x["band"].as_str().unwrap_or(""));
                    ranges.push(format!(
                        "{:<10} {mode:<6} {band:>5} {:>8} hits  fathom {:>8.1} us  tantivy {:>8.1} us  ratio {:.2}",
                        q.id,
                        q.count,
                        f[i],
                        t[i],
                        f[i] / t[i]
                    ));
                }
            }
            if std::env::var_os("FATHOM_QUERY_EACH").is_some() {
                for (i, q) in qs.iter().enumerate() {
                    eprintln!("each {kind:<6} {:<22} {mode:<6} {:>8} hits  fathom {:>8.1} us  tantivy {:>8.1} us  ratio {:.2}", q.id, q.count, f[i], t[i], f[i] / t[i]);
                }
            }
            bands.extend(band_table(kind, mode, qs, &all, &f, &t));
            if mode == "top10" {
                let mut by: Vec<usize> = (0..qs.len()).collect();
                by.sort_by(|&a, &b| f[b].total_cmp(&f[a]));
                for &i in by.iter().take(3) {
                    slowest.push(format!(
                        "{kind:<11} {:<22} {:>9} hits  fathom {:>8.1} us  tantivy {:>8.1} us  {}",
                        qs[i].id, qs[i].count, f[i], t[i], qs[i].fathom
                    ));
                }
            }
            let (fm, tm) = (median(&mut f), median(&mut t));
            eprintln!(
                "{kind:<11} {mode:<6} {:>20} {:>20} {:>12.2}",
                format!("{fm:.1} / {:.0}", p99(&mut f)),
                format!("{tm:.1} / {:.0}", p99(&mut t)),
                fm / tm
            );
        }
    }
    eprintln!("\n== per band: median of the per-query medians, us (n queries) ==");
    for line in bands {
        eprintln!("{line}");
    }
    eprintln!("\n== slowest Fathom top-10 queries per kind ==");
    for line in slowest {
        eprintln!("{line}");
    }
    eprintln!("\n== date ranges one by one (band = width) ==");
    for line in ranges {
        eprintln!("{line}");
    }
    if let Some((_, qs)) = sets.iter().find(|(k, _)| *k == "term") {
        eprintln!("\n== block-max bounds of the highest-df terms (one segment) ==");
        let mut by: Vec<&Q> = qs.iter().collect();
        by.sort_by_key(|q| std::cmp::Reverse(q.count));
        for q in by.iter().take(4) {
            let FQuery::Term { term, .. } = &q.fathom else { continue };
            let top = fq.search(&q.fathom, &top).expect("search");
            let tenth = top.hits.last().map_or(0.0, |h| h.score);
            eprintln!("{}", block_bound_report(&fs.leaves()[0], std::str::from_utf8(term).expect("utf-8"), tenth));
        }
    }
}

criterion_group!(benches, queries_bench);
criterion_main!(benches);
