//! Round trips through the public write APIs, from structured input:
//!
//! - index: index/update/delete documents with an `IndexWriter` on a `RamDirectory` (with
//!   refreshes in between, so several segments and live-docs files appear), commit, reopen, and
//!   check that every live `_id` returns its last stored document and version, that deleted ids
//!   are gone, and that the searcher's segments hold exactly the model's documents;
//! - translog: add operations (rolling generations in between), sync, reopen by recovery, and
//!   check that the snapshot equals the operations.
#![no_main]

use std::collections::BTreeMap;
use std::sync::Arc;

use arbitrary::Arbitrary;
use fathom::engine::index::writer::read_document;
use fathom::engine::index::{Document, IndexWriter, IndexWriterConfig, StoredDocument};
use fathom::engine::schema::{FieldValue, IndexableField};
use fathom::engine::store::{Directory, RamDirectory};
use fathom::engine::translog::{Operation, RecoveryPolicy, Translog, TranslogConfig};
use libfuzzer_sys::fuzz_target;

#[derive(Debug, Arbitrary)]
struct Input {
    actions: Vec<Action>,
    ops: Vec<Op>,
    roll_every: u8,
}

#[derive(Debug, Arbitrary)]
enum Action {
    Index(Box<Doc>),
    Delete(u8),
    Refresh,
    Commit,
}

#[derive(Debug, Arbitrary)]
struct Doc {
    /// Ids come from a small space so that updates and deletes hit existing documents.
    id: u8,
    routing: Option<String>,
    source: Vec<u8>,
    text: Option<String>,
    keyword: Option<String>,
    long: Option<i64>,
    double: Option<f64>,
    flag: Option<bool>,
    ip: Option<u128>,
    binary: Option<Vec<u8>>,
    version: i64,
}

#[derive(Debug, Arbitrary)]
enum Op {
    Index { id: String, routing: Option<String>, source: Vec<u8>, version: i64 },
    Delete { id: String, version: i64 },
    Nothing { reason: String },
}

fuzz_target!(|input: Input| {
    if input.actions.len() <= 64 {
        index_round_trip(&input.actions);
    }
    if input.ops.len() <= 256 {
        translog_round_trip(&input.ops, input.roll_every);
    }
});

fn field(name: &str, value: FieldValue) -> IndexableField {
    IndexableField { name: name.to_string(), value, index: true, doc_values: true }
}

fn document(d: &Doc, seq_no: i64) -> Document {
    let mut fields = Vec::new();
    if let Some(t) = &d.text {
        let value = FieldValue::Text {
            text: t.clone(),
            analyzer: "standard".into(),
            freqs: true,
            positions: true,
            offsets: true,
            norms: true,
            position_increment_gap: 100,
        };
        fields.push(IndexableField { name: "title".into(), value, index: true, doc_values: false });
    }
    if let Some(k) = &d.keyword {
        fields.push(field("tag", FieldValue::Keyword(k.clone())));
    }
    if let Some(v) = d.long {
        fields.push(field("n", FieldValue::Long(v)));
    }
    if let Some(v) = d.double {
        fields.push(field("x", FieldValue::Double(v)));
    }
    if let Some(v) = d.flag {
        fields.push(field("flag", FieldValue::Bool(v)));
    }
    if let Some(v) = d.ip {
        fields.push(field("ip", FieldValue::Ip(v)));
    }
    if let Some(v) = &d.binary {
        fields.push(IndexableField {
            name: "bin".into(),
            value: FieldValue::Binary(v.clone()),
            index: false,
            doc_values: true,
        });
    }
    Document {
        id: format!("id{}", d.id % 16),
        routing: d.routing.clone(),
        source: d.source.clone(),
        fields,
        seq_no,
        primary_term: 1,
        version: d.version,
        nested: Vec::new(),
    }
}

fn stored(doc: &Document) -> StoredDocument {
    StoredDocument {
        id: doc.id.clone(),
        routing: doc.routing.clone(),
        source: doc.source.clone(),
        seq_no: doc.seq_no,
        primary_term: doc.primary_term,
        version: doc.version,
    }
}

fn index_round_trip(actions: &[Action]) {
    let ram = RamDirectory::new();
    let dir: Arc<dyn Directory> = Arc::new(ram.clone());
    let (w, _) = IndexWriter::open(dir.clone(), IndexWriterConfig::default()).expect("an empty directory opens");
    let mut model: BTreeMap<String, StoredDocument> = BTreeMap::new();
    let mut seq_no = 0i64;
    for a in actions {
        match a {
            Action::Index(d) => {
                let doc = document(d, seq_no);
                seq_no += 1;
                let replaced = w.update(&doc).expect("a well-formed document indexes");
                assert_eq!(replaced, model.contains_key(&doc.id), "update reports whether {} existed", doc.id);
                model.insert(doc.id.clone(), stored(&doc));
            }
            Action::Delete(id) => {
                let id = format!("id{}", id % 16);
                let existed = w.delete(&id).expect("delete");
                assert_eq!(existed, model.remove(&id).is_some(), "delete reports whether {id} existed");
            }
            Action::Refresh => {
                w.refresh().expect("refresh");
            }
            Action::Commit => {
                w.commit(BTreeMap::new()).expect("commit");
            }
        }
    }
    check_index(&w, &model, "before commit");
    w.commit(BTreeMap::new()).expect("commit");
    drop(w);
    let (w, cp) = IndexWriter::open(dir.clone(), IndexWriterConfig::default()).expect("the committed index reopens");
    assert!(cp.is_some(), "a commit point was found");
    check_index(&w, &model, "after reopen");
    // Every file the reopened index references verifies in full.
    let s = w.reader().expect("searcher");
    for leaf in s.leaves() {
        leaf.reader.check_integrity(dir.as_ref()).expect("segment files verify");
    }
}

fn check_index(w: &IndexWriter, model: &BTreeMap<String, StoredDocument>, when: &str) {
    for i in 0..16 {
        let id = format!("id{i}");
        let got = w.get(&id).expect("get by _id");
        assert_eq!(got.as_ref(), model.get(&id), "get({id}) {when}");
        let v = w.lookup(&id).expect("lookup by _id");
        assert_eq!(
            v.map(|v| (v.seq_no, v.version)),
            model.get(&id).map(|d| (d.seq_no, d.version)),
            "lookup({id}) {when}"
        );
    }
    w.refresh().expect("refresh");
    let s = w.reader().expect("searcher");
    assert_eq!(s.num_docs(), model.len() as u64, "live docs {when}");
    let mut seen = BTreeMap::new();
    for leaf in s.leaves() {
        for d in 0..leaf.reader.max_doc() {
            if leaf.live.is_live(d) {
                let doc = read_document(&leaf.reader, d).expect("stored document reads");
                assert!(seen.insert(doc.id.clone(), doc).is_none(), "one live copy per _id {when}");
            }
        }
    }
    assert_eq!(&seen, model, "segments hold the model's documents {when}");
}

fn translog_round_trip(ops: &[Op], roll_every: u8) {
    let uuid = *b"fuzz-translog-01";
    let dir: Arc<dyn Directory> = Arc::new(RamDirectory::new());
    let t = Translog::create(dir.clone(), uuid, 1, -1, TranslogConfig::default()).expect("create translog");
    let mut want = Vec::new();
    for (i, op) in ops.iter().enumerate() {
        let seq_no = i as i64;
        let op = match op {
            Op::Index { id, routing, source, version } => Operation::Index {
                id: id.clone(),
                routing: routing.clone(),
                source: source.clone(),
                seq_no,
                primary_term: 1,
                version: *version,
            },
            Op::Delete { id, version } => {
                Operation::Delete { id: id.clone(), seq_no, primary_term: 1, version: *version }
            }
            Op::Nothing { reason } => Operation::NoOp { seq_no, primary_term: 1, reason: reason.clone() },
        };
        t.add(&op).expect("add");
        want.push(op);
        if roll_every > 0 && (i + 1) % roll_every as usize == 0 {
            t.roll_generation().expect("roll");
        }
    }
    assert_eq!(t.snapshot(0).expect("snapshot"), want, "snapshot before reopen");
    t.sync().expect("sync");
    t.close().expect("close");
    drop(t);
    let t = Translog::open(dir, uuid, 1, 1, TranslogConfig::default(), RecoveryPolicy::Strict).expect("recovery");
    assert_eq!(t.snapshot(0).expect("snapshot"), want, "snapshot after recovery");
}
