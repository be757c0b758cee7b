//! The engine end to end on the real file system: a mapping parses JSON documents, the shard
//! indexes them, and every component (terms, postings, norms, doc values, points, stored source,
//! live docs) is read back through refreshes, updates, deletes, merges and restarts.

use std::path::Path;
use std::sync::Arc;

use fathom::engine::index::writer::read_document;
use fathom::engine::index::IndexReader;
use fathom::engine::schema::Mapping;
use fathom::engine::segment::points::sortable;
use fathom::engine::segment::{Postings, NO_MORE_DOCS};
use fathom::engine::store::{Directory, FsDirectory};
use fathom::engine::Error;
use fathom::shard::engine::{default_config, DocumentParser};
use fathom::shard::versioning::{Constraints, VersionType};
use fathom::shard::{IndexOp, ShardEngine};

fn mapping() -> Arc<Mapping> {
    let m = serde_json::json!({
        "properties": {
            "title": {"type": "text"},
            "body": {"type": "text"},
            "tag": {"type": "keyword"},
            "views": {"type": "long"},
            "price": {"type": "double"},
            "when": {"type": "date"},
            "ip": {"type": "ip"},
            "ok": {"type": "boolean"}
        }
    });
    Arc::new(Mapping::from_json(&m).expect("valid mapping"))
}

fn parser(m: Arc<Mapping>) -> DocumentParser {
    Arc::new(move |id: &str, source: &[u8]| {
        m.parse(id, source).map(|p| (p.fields, p.nested)).map_err(|e| Error::InvalidArgument(e.to_string()))
    })
}

fn open(root: &Path) -> ShardEngine {
    let index: Arc<dyn Directory> = Arc::new(FsDirectory::open(root.join("index")).unwrap());
    let translog: Arc<dyn Directory> = Arc::new(FsDirectory::open(root.join("translog")).unwrap());
    let mut config = default_config(parser(mapping()));
    config.writer.merge_policy.segments_per_tier = 2.0;
    config.writer.merge_policy.max_merge_at_once = 2;
    ShardEngine::open(index, translog, config).expect("open shard")
}

fn put(engine: &ShardEngine, id: &str, json: serde_json::Value) -> fathom::shard::WriteResult {
    let source = serde_json::to_vec(&json).unwrap();
    let fields = mapping().parse(id, &source).expect("parse").fields;
    let r = engine
        .index(IndexOp { id: id.into(), source, fields, constraints: Constraints::default(), ..Default::default() })
        .expect("index");
    engine.ensure_synced(r.location, r.seq_no).expect("sync");
    r
}

fn doc(i: u32) -> serde_json::Value {
    serde_json::json!({
        "title": format!("Document number {i}"),
        "body": if i % 2 == 0 { "the quick brown fox jumps over the lazy dog" } else { "a lazy afternoon" },
        "tag": format!("t{}", i % 3),
        "views": i * 10,
        "price": i as f64 / 4.0,
        "when": format!("2024-01-{:02}T00:00:00Z", 1 + i % 28),
        "ip": format!("10.0.0.{}", i % 256),
        "ok": i % 2 == 0
    })
}

/// Docs (global order) containing `term` in `field`, via the real postings.
fn term_docs(s: &IndexReader, field: &str, term: &str) -> Vec<String> {
    let mut ids = Vec::new();
    for leaf in s.leaves() {
        let r = &leaf.reader;
        let Some(f) = r.field_infos.by_name(field) else { continue };
        let Some(terms) = r.postings.field(f.number) else { continue };
        let Some(ti) = terms.seek_exact(term.as_bytes()).unwrap() else { continue };
        let mut p = terms.postings(&ti, true).unwrap();
        loop {
            let d = p.next();
            if d == NO_MORE_DOCS {
                break;
            }
            if leaf.live.is_live(d) {
                ids.push(read_document(r, d).unwrap().id);
            }
        }
        assert!(p.take_error().is_none());
    }
    ids.sort();
    ids
}

fn range_docs(s: &IndexReader, field: &str, lo: i64, hi: i64) -> Vec<String> {
    let mut ids = Vec::new();
    for leaf in s.leaves() {
        let r = &leaf.reader;
        let Some(f) = r.field_infos.by_name(field) else { continue };
        let Some(pts) = r.points.field(f.number) else { continue };
        for d in pts.docs_in_range(&sortable::encode_i64(lo), &sortable::encode_i64(hi)).unwrap() {
            if leaf.live.is_live(d) {
                ids.push(read_document(r, d).unwrap().id);
            }
        }
    }
    ids.sort();
    ids
}

#[test]
fn index_search_update_delete_merge_restart() {
    let dir = tempfile::tempdir().unwrap();
    let engine = open(dir.path());
    for i in 0..40 {
        put(&engine, &format!("d{i}"), doc(i));
        if i % 10 == 9 {
            engine.refresh().unwrap();
        }
    }
    engine.refresh().unwrap();
    let s = engine.reader().unwrap();
    assert_eq!(s.num_docs(), 40);
    assert_eq!(term_docs(&s, "body", "fox").len(), 20);
    assert_eq!(term_docs(&s, "tag", "t1").len(), 13);
    assert_eq!(term_docs(&s, "ok", "T").len(), 20);
    assert_eq!(
        term_docs(&s, "title.keyword", "Document number 7"),
        Vec::<String>::new(),
        "explicit text has no keyword sub-field"
    );
    assert_eq!(range_docs(&s, "views", 100, 150), vec!["d10", "d11", "d12", "d13", "d14", "d15"]);

    // Norms and doc values are there for BM25 and sorting.
    let leaf = &s.leaves()[0];
    let body = leaf.reader.field_infos.by_name("body").unwrap().number;
    let norms = leaf.reader.norms.field(body).expect("body has norms");
    assert_eq!(norms[0], 9, "9 tokens in the even body text");
    let views = leaf.reader.field_infos.by_name("views").unwrap().number;
    assert_eq!(leaf.reader.doc_values.numeric(views).unwrap().first(3), Some(30));

    // Update, delete, and versioning.
    let r = put(&engine, "d3", serde_json::json!({"title": "replaced", "views": 7}));
    assert_eq!(r.version, 2);
    let del = engine.delete("d4", Constraints::default()).unwrap();
    engine.ensure_synced(del.location, del.seq_no).unwrap();
    assert!(del.created_or_found);
    assert!(engine.get("d4").unwrap().is_none());
    assert_eq!(engine.get("d3").unwrap().unwrap().source, br#"{"title":"replaced","views":7}"#.to_vec());
    let conflict = engine.index(IndexOp {
        id: "d3".into(),
        source: b"{}".to_vec(),
        constraints: Constraints { version: Some(1), version_type: VersionType::External, ..Default::default() },
        ..Default::default()
    });
    assert!(matches!(conflict, Err(Error::VersionConflict { .. })));

    // The old searcher still sees the old data (a point in time).
    engine.refresh().unwrap();
    assert_eq!(term_docs(&s, "body", "fox").len(), 20);
    let s2 = engine.reader().unwrap();
    assert_eq!(s2.num_docs(), 39);
    assert_eq!(range_docs(&s2, "views", 0, 10), vec!["d0", "d1", "d3"]);

    // Merge to one segment: deletes are gone, content is intact, old files stay while `s` lives.
    let old_files: Vec<String> = s.leaves().iter().flat_map(|l| l.reader.files()).collect();
    engine.force_merge(1).unwrap();
    let s3 = engine.reader().unwrap();
    assert_eq!(s3.leaves().len(), 1);
    assert_eq!(s3.num_deleted(), 0);
    assert_eq!(s3.num_docs(), 39);
    assert_eq!(term_docs(&s3, "body", "fox").len(), 19);
    assert_eq!(term_docs(&s3, "tag", "t1").len(), 12, "d4 (t1) was deleted");
    let idx = dir.path().join("index");
    for f in &old_files {
        assert!(idx.join(f).exists(), "{f} deleted while a searcher uses it");
    }
    assert_eq!(term_docs(&s, "body", "fox").len(), 20);
    drop(s);
    drop(s2);
    engine.flush().unwrap();
    for f in &old_files {
        assert!(!idx.join(f).exists(), "{f} kept after every user released it");
    }

    // Restart: everything comes back, un-flushed writes from the translog.
    put(&engine, "late", serde_json::json!({"body": "written after the last flush"}));
    engine.close().unwrap();
    drop(engine);
    let engine = open(dir.path());
    let rs = engine.recovery_state();
    assert_eq!(rs.translog.recovered, 1);
    engine.refresh().unwrap();
    let s = engine.reader().unwrap();
    assert_eq!(s.num_docs(), 40);
    assert_eq!(term_docs(&s, "body", "flush"), vec!["late"]);
    assert_eq!(engine.get("d3").unwrap().unwrap().version, 2);
    assert_eq!(engine.local_checkpoint(), engine.max_seq_no());
}

#[test]
fn merges_keep_every_document_and_deletes_during_merge() {
    let dir = tempfile::tempdir().unwrap();
    let engine = open(dir.path());
    for i in 0..200u32 {
        put(&engine, &format!("d{i}"), doc(i));
        if i % 20 == 19 {
            engine.refresh().unwrap();
            engine.maybe_merge().unwrap();
        }
    }
    let spec = engine.writer().find_merge().unwrap();
    // Deletes landing on segments while they are being merged are carried over.
    for i in (0..200).step_by(7) {
        engine.delete(&format!("d{i}"), Constraints::default()).unwrap();
    }
    if let Some(spec) = spec {
        engine.writer().run_merge(spec).unwrap();
    }
    engine.force_merge(1).unwrap();
    let s = engine.reader().unwrap();
    let deleted = (0..200).step_by(7).count() as u64;
    assert_eq!(s.num_docs(), 200 - deleted);
    assert_eq!(term_docs(&s, "body", "fox").len() as u64, (0..200).filter(|i| i % 2 == 0 && i % 7 != 0).count() as u64);
}

#[test]
fn background_merges_bound_the_segment_count() {
    let dir = tempfile::tempdir().unwrap();
    let engine = open(dir.path());
    for i in 0..60u32 {
        put(&engine, &format!("d{i}"), doc(i));
        engine.refresh().unwrap();
    }
    // The merge thread runs off the write path; wait (bounded) for it to catch up.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    loop {
        let segments = engine.writer().segment_stats().len();
        if segments <= 8 || std::time::Instant::now() > deadline {
            assert!(segments <= 8, "60 refreshes left {segments} segments: background merges did not run");
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    assert!(engine.merge_rounds() > 0);
    let s = engine.reader().unwrap();
    assert_eq!(s.num_docs(), 60);
    assert_eq!(term_docs(&s, "body", "fox").len(), 30);
}

#[test]
fn a_rejected_update_keeps_the_live_copy_and_its_doc_id() {
    use fathom::engine::index::{Document, IndexWriter, IndexWriterConfig};
    use fathom::engine::schema::{FieldValue, IndexableField};
    use fathom::engine::store::RamDirectory;
    let (w, _) = IndexWriter::open(Arc::new(RamDirectory::new()), IndexWriterConfig::default()).unwrap();
    let field = |v: FieldValue| vec![IndexableField { name: "f".into(), value: v, index: true, doc_values: true }];
    let doc = |id: &str, fields, seq| Document {
        id: id.into(),
        routing: None,
        source: format!("{{\"id\":\"{id}\"}}").into_bytes(),
        fields,
        seq_no: seq,
        primary_term: 1,
        version: 1,
        nested: vec![],
    };
    w.update(&doc("x", field(FieldValue::Long(5)), 0)).unwrap();
    // Same field as a keyword: its doc-values kind conflicts, so the add fails part-way.
    assert!(w.update(&doc("x", field(FieldValue::Keyword("k".into())), 1)).is_err());
    assert_eq!(w.get("x").unwrap().unwrap().seq_no, 0, "the live copy survives a rejected update");
    w.update(&doc("y", field(FieldValue::Long(6)), 2)).unwrap();
    assert_eq!(w.get("x").unwrap().unwrap().source, br#"{"id":"x"}"#.to_vec());
    assert_eq!(w.get("y").unwrap().unwrap().seq_no, 2);
    w.refresh().unwrap();
    assert_eq!(w.get("x").unwrap().unwrap().seq_no, 0);
    assert_eq!(w.get("y").unwrap().unwrap().seq_no, 2);
    assert_eq!(w.reader().unwrap().num_docs(), 2);
}

/// Refreshes `engine` until `done` (at most 100,000 rounds), flushing every `flush_every`-th
/// round and yielding between rounds when asked; returns the rounds run.
fn spawn_refresher(
    engine: Arc<ShardEngine>,
    done: Arc<std::sync::atomic::AtomicBool>,
    flush_every: u32,
    yield_between: bool,
) -> std::thread::JoinHandle<u32> {
    std::thread::spawn(move || {
        let mut rounds = 0u32;
        while !done.load(std::sync::atomic::Ordering::Acquire) && rounds < 100_000 {
            engine.refresh().unwrap();
            if rounds % flush_every == flush_every - 1 {
                engine.flush().unwrap();
            }
            rounds += 1;
            if yield_between {
                std::thread::yield_now();
            }
        }
        rounds
    })
}

/// One xorshift64 step of the tests' id generators.
fn xorshift(x: &mut u64) {
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
}

/// The `views` of `id` by realtime get (`None`: no such document).
fn views_of(engine: &ShardEngine, id: &str) -> Option<u64> {
    engine
        .get(id)
        .unwrap()
        .map(|d| serde_json::from_slice::<serde_json::Value>(&d.source).unwrap()["views"].as_u64().unwrap())
}

/// Refreshes write the buffer outside the writer's lock while two threads index, update and
/// delete the same ids (many of them in the buffer being flushed) and a third commits: every
/// realtime read sees the thread's last write, and at the end the segments hold exactly the
/// model's documents with their last versions, before and after a restart.
#[test]
fn writes_during_concurrent_refreshes_and_commits_match_a_model() {
    use std::collections::HashMap;
    use std::sync::atomic::{AtomicBool, Ordering};
    let dir = tempfile::tempdir().unwrap();
    let engine = Arc::new(open(dir.path()));
    let done = Arc::new(AtomicBool::new(false));
    let refresher = spawn_refresher(engine.clone(), done.clone(), 16, false);
    let writers: Vec<_> = (0..2u64)
        .map(|t| {
            let engine = engine.clone();
            std::thread::spawn(move || {
                let mut model: HashMap<String, Option<u64>> = HashMap::new();
                let mut x = 0x9E37_79B9_7F4A_7C15u64 ^ t;
                for n in 0..1_500u64 {
                    xorshift(&mut x);
                    let id = format!("{t}-{}", x % 40);
                    if x % 5 == 0 {
                        let r = engine.delete(&id, Constraints::default()).unwrap();
                        engine.ensure_synced(r.location, r.seq_no).unwrap();
                        model.insert(id.clone(), None);
                    } else {
                        put(&engine, &id, serde_json::json!({"title": format!("write {n}"), "views": n}));
                        model.insert(id.clone(), Some(n));
                    }
                    let got = views_of(&engine, &id);
                    assert_eq!(got, model[&id], "realtime get of {id} after write {n}");
                }
                model
            })
        })
        .collect();
    let mut model = HashMap::new();
    for w in writers {
        model.extend(w.join().unwrap());
    }
    done.store(true, Ordering::Release);
    assert!(refresher.join().unwrap() > 0);
    let check = |engine: &ShardEngine| {
        engine.refresh().unwrap();
        let live: Vec<_> = model.iter().filter_map(|(id, v)| v.map(|v| (id, v))).collect();
        assert_eq!(engine.reader().unwrap().num_docs() as usize, live.len());
        for (id, v) in &model {
            let got = views_of(engine, id);
            assert_eq!(got, *v, "{id}");
        }
    };
    check(&engine);
    engine.flush().unwrap();
    drop(Arc::try_unwrap(engine).expect("the only reference"));
    check(&open(dir.path()));
}

/// Every live document's `_id` and `views`, read from the segments one by one (a duplicate shows
/// up as a second entry).
fn scan_live(engine: &ShardEngine) -> Vec<(String, u64)> {
    let s = engine.reader().unwrap();
    let mut out = Vec::new();
    for leaf in s.leaves() {
        for d in 0..leaf.reader.max_doc() {
            if leaf.live.is_live(d) {
                let doc = read_document(&leaf.reader, d).unwrap();
                let v = serde_json::from_slice::<serde_json::Value>(&doc.source).unwrap()["views"].as_u64().unwrap();
                out.push((doc.id, v));
            }
        }
    }
    out
}

#[test]
fn concurrent_appends_with_updates_deletes_refreshes_and_commits_match_a_model() {
    use std::collections::BTreeMap;
    use std::sync::atomic::{AtomicBool, Ordering};
    const APPENDERS: u64 = 3;
    const APPENDS: u64 = 1_200;
    let dir = tempfile::tempdir().unwrap();
    let open4 = |root: &Path| {
        let index: Arc<dyn Directory> = Arc::new(FsDirectory::open(root.join("index")).unwrap());
        let translog: Arc<dyn Directory> = Arc::new(FsDirectory::open(root.join("translog")).unwrap());
        let mut config = default_config(parser(mapping()));
        config.writer.builders = 4;
        config.writer.merge_policy.segments_per_tier = 2.0;
        config.writer.merge_policy.max_merge_at_once = 2;
        ShardEngine::open(index, translog, config).expect("open shard")
    };
    let engine = Arc::new(open4(dir.path()));
    assert_eq!(engine.writer().builders(), 4);
    let done = Arc::new(AtomicBool::new(false));
    // Nothing is in flight during a flush: the commit covers every issued op.
    let refresher = spawn_refresher(engine.clone(), done.clone(), 8, true);
    let appenders: Vec<_> = (0..APPENDERS)
        .map(|t| {
            let engine = engine.clone();
            std::thread::spawn(move || {
                let mut acked = Vec::new();
                for n in 0..APPENDS {
                    let id = format!("auto-{t}-{n}");
                    let source =
                        serde_json::to_vec(&serde_json::json!({"title": format!("append {n}"), "views": n})).unwrap();
                    let fields = mapping().parse(&id, &source).unwrap().fields;
                    let op = IndexOp { id: id.clone(), source, fields, auto_generated_id: true, ..Default::default() };
                    let r = engine.index(op).unwrap();
                    assert!(r.created_or_found);
                    engine.ensure_synced(r.location, r.seq_no).unwrap();
                    acked.push(id.clone());
                    if n % 16 == 0 {
                        // Realtime get finds an acknowledged append wherever it is.
                        let old = &acked[(n as usize) / 2];
                        assert!(engine.get(old).unwrap().is_some(), "realtime get of {old}");
                    }
                }
                acked
            })
        })
        .collect();
    let updater = {
        let engine = engine.clone();
        std::thread::spawn(move || {
            let mut model: BTreeMap<String, Option<u64>> = BTreeMap::new();
            let mut x = 0x2545_F491_4F6C_DD1Du64;
            for n in 0..1_500u64 {
                xorshift(&mut x);
                let id = format!("explicit-{}", x % 50);
                if x % 4 == 0 {
                    let r = engine.delete(&id, Constraints::default()).unwrap();
                    engine.ensure_synced(r.location, r.seq_no).unwrap();
                    assert_eq!(
                        r.created_or_found,
                        model.get(&id).copied().flatten().is_some(),
                        "delete of {id} found it"
                    );
                    model.insert(id.clone(), None);
                } else {
                    let r = put(&engine, &id, serde_json::json!({"title": format!("write {n}"), "views": n}));
                    assert_eq!(
                        r.created_or_found,
                        model.get(&id).copied().flatten().is_none(),
                        "index of {id} created it"
                    );
                    model.insert(id.clone(), Some(n));
                }
                let got = views_of(&engine, &id);
                assert_eq!(got, model[&id], "realtime get of {id} after write {n}");
            }
            model
        })
    };
    let mut expected: BTreeMap<String, u64> = BTreeMap::new();
    for a in appenders {
        for id in a.join().unwrap() {
            let n = id.rsplit('-').next().unwrap().parse().unwrap();
            assert!(expected.insert(id, n).is_none());
        }
    }
    for (id, v) in updater.join().unwrap() {
        if let Some(v) = v {
            expected.insert(id, v);
        }
    }
    done.store(true, Ordering::Release);
    assert!(refresher.join().unwrap() > 0);
    let check = |engine: &ShardEngine| {
        engine.refresh().unwrap();
        let mut live = scan_live(engine);
        live.sort();
        let want: Vec<(String, u64)> = expected.iter().map(|(k, v)| (k.clone(), *v)).collect();
        assert_eq!(live.len(), want.len(), "every acknowledged op present exactly once");
        assert_eq!(live, want);
        assert_eq!(engine.reader().unwrap().num_docs() as usize, want.len());
        assert_eq!(engine.local_checkpoint(), engine.max_seq_no());
    };
    check(&engine);
    // Without a final flush: the tail comes back from the translog.
    engine.close().unwrap();
    drop(Arc::try_unwrap(engine).expect("the only reference"));
    let reopened = open4(dir.path());
    check(&reopened);
    assert_eq!(reopened.max_seq_no() as u64 + 1, APPENDERS * APPENDS + 1_500);
}

#[test]
fn deletes_and_updates_reach_searchers_at_refresh() {
    let dir = tempfile::tempdir().unwrap();
    let engine = open(dir.path());
    put(&engine, "a", doc(1));
    put(&engine, "b", doc(2));
    engine.refresh().unwrap();
    engine.delete("a", Constraints::default()).unwrap();
    // The realtime view has the delete; a searcher keeps the last refresh's view.
    assert!(engine.get("a").unwrap().is_none());
    assert_eq!(engine.reader().unwrap().num_docs(), 2);
    assert!(engine.get_searchable("a").unwrap().is_some());
    // A refresh with only deletes to publish still publishes them.
    assert!(engine.refresh().unwrap());
    assert_eq!(engine.reader().unwrap().num_docs(), 1);
    assert!(engine.get_searchable("a").unwrap().is_none());
    // An update: the old copy stays searchable until the refresh brings the new one.
    put(&engine, "b", doc(3));
    let s = engine.reader().unwrap();
    assert_eq!(s.num_docs(), 1);
    assert_eq!(term_docs(&s, "tag", "t2"), vec!["b"]);
    engine.refresh().unwrap();
    let s = engine.reader().unwrap();
    assert_eq!(s.num_docs(), 1);
    assert_eq!(term_docs(&s, "tag", "t0"), vec!["b"]);
    assert!(!engine.refresh().unwrap(), "nothing left to refresh");
}
