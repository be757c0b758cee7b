//! Term lookup, postings iteration and postings advance (leapfrog intersection), Fathom vs
//! tantivy, on the `body` field of the text corpus, each engine force-merged to one segment.
//! Terms come from `shared/bench/queries.json` (200 single terms in three df bands, 100
//! co-occurring pairs). Every timed closure asserts the engines agree (terms found, sum of doc
//! freqs, postings and freqs walked, intersection sizes).

mod common;

use std::time::Duration;

use common::{build_pair, queries, queries_of, terms_of, Corpus};
use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use fathom::engine::segment::postings::FieldTerms;
use fathom::engine::segment::{Postings, NO_MORE_DOCS};
use tantivy::postings::Postings as _;
use tantivy::schema::IndexRecordOption;
use tantivy::{DocSet, InvertedIndexReader, Term, TERMINATED};

fn fathom_lookup(ft: &FieldTerms<'_>, terms: &[String]) -> (u64, u64) {
    let (mut found, mut df) = (0, 0);
    for t in terms {
        if let Some(info) = ft.seek_exact(t.as_bytes()).expect("seek") {
            found += 1;
            df += info.doc_freq as u64;
        }
    }
    (found, df)
}

fn tantivy_lookup(inv: &InvertedIndexReader, field: tantivy::schema::Field, terms: &[String]) -> (u64, u64) {
    let (mut found, mut df) = (0, 0);
    for t in terms {
        if let Some(info) = inv.get_term_info(&Term::from_field_text(field, t)).expect("lookup") {
            found += 1;
            df += info.doc_freq as u64;
        }
    }
    (found, df)
}

/// Walks every posting of every term: (docs, sum of freqs, sum of doc ids).
fn fathom_iterate(ft: &FieldTerms<'_>, terms: &[String]) -> (u64, u64, u64) {
    let (mut n, mut freqs, mut ids) = (0, 0, 0);
    for t in terms {
        let Some(info) = ft.seek_exact(t.as_bytes()).expect("seek") else { continue };
        let mut p = ft.postings(&info, false).expect("postings");
        loop {
            let d = p.next();
            if d == NO_MORE_DOCS {
                break;
            }
            n += 1;
            freqs += p.freq() as u64;
            ids += d as u64;
        }
        assert!(p.take_error().is_none(), "postings decode cleanly");
    }
    (n, freqs, ids)
}

fn tantivy_iterate(inv: &InvertedIndexReader, field: tantivy::schema::Field, terms: &[String]) -> (u64, u64, u64) {
    let (mut n, mut freqs, mut ids) = (0, 0, 0);
    for t in terms {
        let Some(mut p) =
            inv.read_postings(&Term::from_field_text(field, t), IndexRecordOption::WithFreqs).expect("postings")
        else {
            continue;
        };
        let mut d = p.doc();
        while d != TERMINATED {
            n += 1;
            freqs += p.term_freq() as u64;
            ids += d as u64;
            d = p.advance();
        }
    }
    (n, freqs, ids)
}

/// Leapfrog intersection of each pair: total matching docs.
fn fathom_intersect(ft: &FieldTerms<'_>, pairs: &[(String, String)]) -> u64 {
    let mut total = 0;
    for (x, y) in pairs {
        let (Some(ix), Some(iy)) =
            (ft.seek_exact(x.as_bytes()).expect("seek"), ft.seek_exact(y.as_bytes()).expect("seek"))
        else {
            continue;
        };
        let (ix, iy) = if ix.doc_freq <= iy.doc_freq { (ix, iy) } else { (iy, ix) };
        let mut a = ft.postings(&ix, false).expect("postings");
        let mut b = ft.postings(&iy, false).expect("postings");
        let (mut d, mut e) = (a.next(), b.next());
        loop {
            if d < e {
                d = a.advance(e);
            } else if e < d {
                e = b.advance(d);
            } else {
                if d == NO_MORE_DOCS {
                    break;
                }
                total += 1;
                d = a.next();
            }
        }
    }
    total
}

fn tantivy_intersect(inv: &InvertedIndexReader, field: tantivy::schema::Field, pairs: &[(String, String)]) -> u64 {
    let mut total = 0;
    for (x, y) in pairs {
        let rd = |t: &str| {
            inv.read_postings(&Term::from_field_text(field, t), IndexRecordOption::WithFreqs).expect("postings")
        };
        let (Some(a), Some(b)) = (rd(x), rd(y)) else { continue };
        let (mut a, mut b) = if a.doc_freq() <= b.doc_freq() { (a, b) } else { (b, a) };
        let (mut d, mut e) = (a.doc(), b.doc());
        loop {
            if d < e {
                d = a.seek(e);
            } else if e < d {
                e = b.seek(d);
            } else {
                if d == TERMINATED {
                    break;
                }
                total += 1;
                d = a.advance();
            }
        }
    }
    total
}

fn postings(c: &mut Criterion) {
    let Some(pair) = build_pair(Corpus::Text) else { return };
    let qs = queries();
    let singles: Vec<String> = queries_of(&qs, "term").iter().flat_map(terms_of).collect();
    let pairs: Vec<(String, String)> = queries_of(&qs, "and")
        .iter()
        .map(|q| {
            let t = terms_of(q);
            (t[0].clone(), t[1].clone())
        })
        .collect();
    let mut lookups = singles.clone();
    lookups.extend(pairs.iter().flat_map(|(a, b)| [a.clone(), b.clone()]));
    // Terms absent from the corpus exercise the negative path.
    lookups.extend(singles.iter().map(|t| format!("{t}zq")));

    let searcher = pair.fathom.reader().expect("searcher");
    let reader = &searcher.leaves()[0].reader;
    let fnum = reader.field_infos.by_name("body").expect("body field").number;
    let ft = reader.postings.field(fnum).expect("body has postings");
    let tr = pair.tantivy.reader().expect("reader");
    let ts = tr.searcher();
    let body = pair.tantivy.schema().get_field("body").expect("body");
    let inv = ts.segment_reader(0).inverted_index(body).expect("inverted index");

    // Agreement, checked once up front and again inside every timed closure.
    let expect_lookup = tantivy_lookup(&inv, body, &lookups);
    assert_eq!(fathom_lookup(&ft, &lookups), expect_lookup, "term lookup: found terms and doc freqs agree");
    let expect_iter = tantivy_iterate(&inv, body, &singles);
    assert_eq!(fathom_iterate(&ft, &singles), expect_iter, "iteration: postings, freqs and doc ids agree");
    let expect_and = tantivy_intersect(&inv, body, &pairs);
    assert_eq!(fathom_intersect(&ft, &pairs), expect_and, "intersection sizes agree");
    eprintln!(
        "{} lookups ({} found), {} postings walked over {} terms, {} docs in {} intersections",
        lookups.len(),
        expect_lookup.0,
        expect_iter.0,
        singles.len(),
        expect_and,
        pairs.len()
    );

    let mut g = c.benchmark_group("postings/term_lookup");
    g.sample_size(20).warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(3));
    g.throughput(Throughput::Elements(lookups.len() as u64));
    g.bench_function("fathom", |b| b.iter(|| assert_eq!(black_box(fathom_lookup(&ft, &lookups)), expect_lookup)));
    g.bench_function("tantivy", |b| {
        b.iter(|| assert_eq!(black_box(tantivy_lookup(&inv, body, &lookups)), expect_lookup))
    });
    g.finish();

    let mut g = c.benchmark_group("postings/iterate");
    g.sample_size(20).warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(4));
    g.throughput(Throughput::Elements(expect_iter.0));
    g.bench_function("fathom", |b| b.iter(|| assert_eq!(black_box(fathom_iterate(&ft, &singles)), expect_iter)));
    g.bench_function("tantivy", |b| {
        b.iter(|| assert_eq!(black_box(tantivy_iterate(&inv, body, &singles)), expect_iter))
    });
    g.finish();

    let mut g = c.benchmark_group("postings/advance_and");
    g.sample_size(20).warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(4));
    g.throughput(Throughput::Elements(pairs.len() as u64));
    g.bench_function("fathom", |b| b.iter(|| assert_eq!(black_box(fathom_intersect(&ft, &pairs)), expect_and)));
    g.bench_function("tantivy", |b| {
        b.iter(|| assert_eq!(black_box(tantivy_intersect(&inv, body, &pairs)), expect_and))
    });
    g.finish();
}

criterion_group!(benches, postings);
criterion_main!(benches);
