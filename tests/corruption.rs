//! Corruption of every file type of a shard on the real file system (the T3 design of
//! `shared/reference/reliability.md`): for each file in `index/` and `translog/`, flip a byte,
//! truncate, or delete it, then reopen the shard. The result must be an error that names the file,
//! or — where the damage is harmless by design — a shard with exactly the right documents.
//! Never a panic, never a wrong answer.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

use fathom::engine::index::writer::read_document;
use fathom::engine::store::{Directory, FsDirectory};
use fathom::shard::engine::{default_config, no_fields_parser};
use fathom::shard::versioning::Constraints;
use fathom::shard::{IndexOp, ShardEngine};

fn open(root: &Path) -> fathom::engine::Result<ShardEngine> {
    let index: Arc<dyn Directory> = Arc::new(FsDirectory::open(root.join("index"))?);
    let translog: Arc<dyn Directory> = Arc::new(FsDirectory::open(root.join("translog"))?);
    ShardEngine::open(index, translog, default_config(no_fields_parser()))
}

fn index(engine: &ShardEngine, id: &str, body: &str) {
    let r = engine
        .index(IndexOp {
            id: id.into(),
            source: body.as_bytes().to_vec(),
            constraints: Constraints::default(),
            ..Default::default()
        })
        .expect("index");
    engine.ensure_synced(r.location, r.seq_no).expect("sync");
}

fn contents(engine: &ShardEngine) -> BTreeMap<String, Vec<u8>> {
    engine.refresh().expect("refresh");
    let s = engine.reader().expect("searcher");
    let mut out = BTreeMap::new();
    for leaf in s.leaves() {
        for d in 0..leaf.reader.max_doc() {
            if leaf.live.is_live(d) {
                let doc = read_document(&leaf.reader, d).expect("stored doc");
                out.insert(doc.id, doc.source);
            }
        }
    }
    out
}

/// A shard with two flushed segments (one with deletes) and unflushed operations in the translog.
fn build(root: &Path) -> BTreeMap<String, Vec<u8>> {
    let engine = open(root).expect("create shard");
    for i in 0..30 {
        index(&engine, &format!("a{i}"), &format!("{{\"n\":{i},\"text\":\"alpha beta {i}\"}}"));
    }
    engine.flush().expect("flush");
    for i in 0..20 {
        index(&engine, &format!("b{i}"), &format!("{{\"n\":{i}}}"));
    }
    let r = engine.delete("a3", Constraints::default()).expect("delete");
    engine.ensure_synced(r.location, r.seq_no).expect("sync");
    engine.flush().expect("flush");
    for i in 0..10 {
        index(&engine, &format!("c{i}"), &format!("{{\"n\":{i}}}"));
    }
    let expected = contents(&engine);
    engine.close().expect("close");
    expected
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let p = e.path();
        if p.is_dir() {
            copy_dir(&p, &to.join(e.file_name()));
        } else {
            std::fs::copy(&p, to.join(e.file_name())).unwrap();
        }
    }
}

#[test]
fn every_file_flipped_truncated_or_deleted_is_detected() {
    let golden = tempfile::tempdir().unwrap();
    let expected = build(golden.path());
    let mut files = Vec::new();
    for sub in ["index", "translog"] {
        for e in std::fs::read_dir(golden.path().join(sub)).unwrap() {
            files.push(format!("{sub}/{}", e.unwrap().file_name().to_string_lossy()));
        }
    }
    files.sort();
    assert!(files.iter().any(|f| f.ends_with(".liv")), "the shard should have a live-docs file: {files:?}");
    let mut detected = 0;
    let mut tolerated = 0;
    for (i, file) in files.iter().enumerate() {
        for mutation in ["flip", "truncate", "delete"] {
            let work = tempfile::tempdir().unwrap();
            copy_dir(golden.path(), work.path());
            let path = work.path().join(file);
            let mut bytes = std::fs::read(&path).unwrap();
            match mutation {
                "flip" => {
                    if bytes.is_empty() {
                        continue;
                    }
                    let at = (i * 7919 + 13) % bytes.len();
                    bytes[at] ^= 0x5a;
                    std::fs::write(&path, &bytes).unwrap();
                }
                "truncate" => {
                    bytes.truncate(bytes.len() / 2);
                    std::fs::write(&path, &bytes).unwrap();
                }
                _ => std::fs::remove_file(&path).unwrap(),
            }
            let name = file.rsplit('/').next().unwrap();
            match open(work.path()) {
                Err(e) => {
                    let msg = e.to_string();
                    // A deleted commit point cannot be named (it is gone); the error says that no
                    // commit point was found over existing segment files.
                    let names_it = msg.contains(name)
                        || (mutation == "delete"
                            && name.starts_with("segments_")
                            && msg.contains("no commit point found"));
                    assert!(names_it, "{mutation} {file}: error does not name the file: {msg}");
                    detected += 1;
                }
                Ok(engine) => {
                    // Tolerated only if the shard is exactly right (e.g. a checkpoint copy of a
                    // generation that is no longer needed).
                    assert_eq!(contents(&engine), expected, "{mutation} {file}: opened with wrong contents");
                    tolerated += 1;
                    eprintln!("tolerated: {mutation} {file}");
                }
            }
        }
    }
    eprintln!(
        "corruption: {} files × 3 mutations: {detected} detected, {tolerated} tolerated with correct contents",
        files.len()
    );
    assert!(detected > files.len(), "most mutations must be detected");
}

#[test]
fn garbage_after_the_translog_checkpoint_is_ignored() {
    let dir = tempfile::tempdir().unwrap();
    let expected = build(dir.path());
    let tl = dir.path().join("translog");
    let mut gens: Vec<_> = std::fs::read_dir(&tl)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().to_string())
        .filter(|n| n.ends_with(".tlog"))
        .collect();
    gens.sort_by_key(|n| n.trim_start_matches("translog-").trim_end_matches(".tlog").parse::<u64>().unwrap_or(0));
    let last = tl.join(gens.last().expect("a translog generation"));
    let mut bytes = std::fs::read(&last).unwrap();
    bytes.extend_from_slice(&[0xAB; 100]);
    std::fs::write(&last, bytes).unwrap();
    let engine = open(dir.path()).expect("a torn tail past the checkpoint is tolerated");
    assert_eq!(contents(&engine), expected);
}
