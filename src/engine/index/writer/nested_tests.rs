//! Nested documents stay whole blocks (children right before their root, live exactly when the
//! root is) through updates, deletes, failed adds, refreshes and merges, checked against a model
//! of the live documents and their children; the block join finds exactly the roots with
//! matching children, and top-level queries see only roots.

use std::collections::BTreeMap;
use std::sync::Arc;

use proptest::prelude::*;

use crate::engine::index::writer::read_stored_fields;
use crate::engine::index::{Document, IndexWriter, IndexWriterConfig};
use crate::engine::query::block_join::{Join, ScoreMode};
use crate::engine::query::Query;
use crate::engine::schema::{FieldValue, IndexableField, NestedDoc};
use crate::engine::store::RamDirectory;

#[derive(Debug, Clone)]
enum Op {
    /// Index (update) `id` with `children` nested docs; `fail`: its last part cannot be
    /// inverted (an unknown analyzer), so the add fails and the old copy stays.
    Index {
        id: u8,
        children: u8,
        fail: bool,
    },
    Delete(u8),
    Refresh,
    Merge,
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        6 => (0u8..8, 0u8..4, prop::bool::weighted(0.15)).prop_map(|(id, children, fail)| Op::Index { id, children, fail }),
        2 => (0u8..8).prop_map(Op::Delete),
        2 => Just(Op::Refresh),
        1 => Just(Op::Merge),
    ]
}

fn long(name: &str, v: i64) -> IndexableField {
    IndexableField { name: name.into(), value: FieldValue::Long(v), index: true, doc_values: true }
}

fn doc(id: u8, children: u8, fail: bool, seq: i64) -> Document {
    let mut nested: Vec<NestedDoc> =
        (0..children).map(|c| NestedDoc { path: "n".into(), fields: vec![long("n.v", i64::from(c))] }).collect();
    let bad = IndexableField {
        name: "t".into(),
        value: FieldValue::Text {
            text: "x".into(),
            analyzer: "no_such_analyzer".into(),
            freqs: true,
            positions: true,
            offsets: false,
            norms: true,
            position_increment_gap: 100,
        },
        index: true,
        doc_values: false,
    };
    let mut fields = vec![long("r", i64::from(id))];
    if fail {
        // In the last nested doc when there is one (a block failing part-way), else the root.
        match nested.last_mut() {
            Some(n) => n.fields.push(bad),
            None => fields.push(bad),
        }
    }
    Document {
        id: id.to_string(),
        source: b"{}".to_vec(),
        fields,
        seq_no: seq,
        primary_term: 1,
        version: 1,
        nested,
        ..Document::default()
    }
}

fn nested_query(query: Query) -> Query {
    Query::Nested {
        join: Box::new(Join { path: "n".into(), scope: None, query, score_mode: ScoreMode::Avg }),
        boost: 1.0,
    }
}

/// Refreshes and checks the searchable segments against the model (id -> children).
fn check(w: &IndexWriter, model: &BTreeMap<u8, u8>) {
    w.refresh().expect("refresh");
    let s = w.reader().expect("searcher");
    let mut seen: BTreeMap<u8, u8> = BTreeMap::new();
    for leaf in s.leaves() {
        let r = &leaf.reader;
        let nested = |d: u32| r.nested.as_ref().is_some_and(|n| n.is_nested(d));
        let mut children = 0u8;
        for d in 0..r.max_doc() {
            if nested(d) {
                // A block never ends with a nested doc, and its docs share the root's liveness.
                let root = r.nested.as_ref().map_or(d, |n| n.root_of(d));
                assert!(root < r.max_doc(), "nested doc {d} has no root in {}", r.name());
                assert_eq!(leaf.live.is_live(d), leaf.live.is_live(root), "doc {d} vs its root {root}");
                children += u8::from(leaf.live.is_live(d));
                continue;
            }
            if leaf.live.is_live(d) {
                let id: u8 = read_stored_fields(r, d, false).expect("stored").id.parse().expect("id");
                assert!(seen.insert(id, children).is_none(), "id {id} live twice");
            }
            children = 0;
        }
    }
    assert_eq!(&seen, model);
    let q = s.query();
    assert_eq!(q.count(&Query::MatchAll { boost: 1.0 }).expect("count"), model.len() as u64);
    let with_children = model.values().filter(|&&c| c > 0).count() as u64;
    assert_eq!(q.count(&nested_query(Query::MatchAll { boost: 1.0 })).expect("join"), with_children);
    // A nested value is found only through the join: `n.v >= 2` under roots with 3+ children.
    let at_least_2 = Query::Range {
        field: "n.v".into(),
        lo: Some(crate::engine::segment::points::sortable::encode_i64(2).to_vec()),
        hi: Some(crate::engine::segment::points::sortable::encode_i64(i64::MAX).to_vec()),
        include_lo: true,
        include_hi: true,
        kind: crate::engine::query::RangeKind::Points,
        boost: 1.0,
    };
    assert_eq!(q.count(&at_least_2).expect("range"), 0);
    let deep = model.values().filter(|&&c| c > 2).count() as u64;
    assert_eq!(q.count(&nested_query(at_least_2)).expect("join range"), deep);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]
    #[test]
    fn blocks_stay_whole(ops in prop::collection::vec(op(), 1..40)) {
        let config = IndexWriterConfig { builders: 1, ..IndexWriterConfig::default() };
        let (w, _) = IndexWriter::open(Arc::new(RamDirectory::new()), config).expect("open");
        let mut model: BTreeMap<u8, u8> = BTreeMap::new();
        for (seq, op) in ops.into_iter().enumerate() {
            match op {
                Op::Index { id, children, fail } => {
                    let r = w.update(&doc(id, children, fail, seq as i64));
                    prop_assert_eq!(r.is_err(), fail);
                    if !fail {
                        model.insert(id, children);
                    }
                }
                Op::Delete(id) => {
                    prop_assert_eq!(w.delete(&id.to_string()).expect("delete"), model.remove(&id).is_some());
                }
                Op::Refresh => check(&w, &model),
                Op::Merge => {
                    w.refresh().expect("refresh");
                    w.force_merge(1).expect("merge");
                }
            }
        }
        check(&w, &model);
        w.force_merge(1).expect("merge");
        check(&w, &model);
    }
}

fn text(name: &str, t: &str) -> IndexableField {
    IndexableField {
        name: name.into(),
        value: FieldValue::Text {
            text: t.into(),
            analyzer: "standard".into(),
            freqs: true,
            positions: true,
            offsets: false,
            norms: true,
            position_increment_gap: 100,
        },
        index: true,
        doc_values: false,
    }
}

/// Each score mode combines the matching children's scores (those of the child query run on
/// the nested documents) as Lucene's `ToParentBlockJoinQuery` does; `none` scores 0; a root
/// whose children do not match is not a hit, nor is a root's own text.
#[test]
fn score_modes_combine_child_scores() {
    use crate::engine::query::{SegmentView, TopSpec, Weight};
    let (w, _) = IndexWriter::open(Arc::new(RamDirectory::new()), IndexWriterConfig::default()).expect("open");
    let child = |t: &str| NestedDoc { path: "n".into(), fields: vec![text("n.t", t)] };
    let mk = |id: &str, root_text: &str, children: Vec<NestedDoc>| Document {
        id: id.into(),
        source: b"{}".to_vec(),
        fields: vec![text("n.t", root_text)],
        primary_term: 1,
        version: 1,
        nested: children,
        ..Document::default()
    };
    w.update(&mk("a", "x", vec![child("fox"), child("fox fox jumps over"), child("dog")])).expect("a");
    w.update(&mk("b", "fox", vec![child("cat")])).expect("b");
    w.update(&mk("c", "y", vec![child("the fox")])).expect("c");
    w.refresh().expect("refresh");
    let s = w.reader().expect("searcher");
    let q = s.query();
    let term = Query::term("n.t", "fox");
    // The children's own scores, from the term run over the nested documents.
    let all: Vec<&dyn SegmentView> = q.segments.iter().map(|v| v.with_nested().unwrap_or(v.as_ref())).collect();
    let cw = Weight::compile(&term, &all, 1.0, true).expect("compile");
    let mut by_root: BTreeMap<String, Vec<f32>> = BTreeMap::new();
    for (leaf, view) in s.leaves().iter().zip(&all) {
        let Some(mut sc) = cw.scorer(*view).expect("scorer") else { continue };
        let mut d = sc.doc();
        while d != crate::engine::segment::NO_MORE_DOCS {
            if leaf.reader.nested.as_ref().is_some_and(|n| n.is_nested(d)) {
                let root = leaf.reader.nested.as_ref().map_or(d, |n| n.root_of(d));
                let id = read_stored_fields(&leaf.reader, root, false).expect("stored").id;
                by_root.entry(id).or_default().push(sc.score());
            }
            d = sc.next();
        }
    }
    assert_eq!(by_root.keys().collect::<Vec<_>>(), vec!["a", "c"]);
    for mode in [ScoreMode::Avg, ScoreMode::Sum, ScoreMode::Min, ScoreMode::Max, ScoreMode::None] {
        let join = Query::Nested {
            join: Box::new(Join { path: "n".into(), scope: None, query: term.clone(), score_mode: mode }),
            boost: 2.0,
        };
        let top = q.search(&join, &TopSpec { size: 10, ..TopSpec::default() }).expect("search");
        let mut got: BTreeMap<String, f32> = BTreeMap::new();
        for h in &top.hits {
            let leaf = &s.leaves()[h.segment];
            got.insert(read_stored_fields(&leaf.reader, h.doc, false).expect("stored").id, h.score);
        }
        let want: BTreeMap<String, f32> = by_root
            .iter()
            .map(|(id, scores)| {
                let xs: Vec<f64> = scores.iter().map(|&x| f64::from(x) * 2.0).collect();
                let v = match mode {
                    ScoreMode::Avg => xs.iter().sum::<f64>() / xs.len() as f64,
                    ScoreMode::Sum => xs.iter().sum(),
                    ScoreMode::Min => xs.iter().copied().fold(f64::MAX, f64::min),
                    ScoreMode::Max => xs.iter().copied().fold(f64::MIN, f64::max),
                    ScoreMode::None => 0.0,
                };
                (id.clone(), v as f32)
            })
            .collect();
        assert_eq!(got.len(), want.len(), "{mode:?}");
        for (id, v) in &want {
            let g = got[id];
            assert!((g - v).abs() <= v.abs() * 1e-5, "{mode:?} {id}: {g} vs {v}");
        }
    }
}

/// A nested document's source is its object from the root's source, under its full path.
#[test]
fn nested_documents_read_their_slice_of_the_source() {
    use crate::engine::query::SegmentView;
    let (w, _) = IndexWriter::open(Arc::new(RamDirectory::new()), IndexWriterConfig::default()).expect("open");
    let child = |path: &str| NestedDoc { path: path.into(), fields: vec![] };
    // {"a": [{"b": [b0, b1]}, {"b": b2}]}: b0 b1 a0 b2 a1 root.
    let src = br#"{"a":[{"x":0,"b":[{"y":0},{"y":1}]},{"x":1,"b":{"y":2}}]}"#.to_vec();
    let d = Document {
        id: "1".into(),
        source: src,
        primary_term: 1,
        version: 1,
        nested: vec![child("a.b"), child("a.b"), child("a"), child("a.b"), child("a")],
        ..Document::default()
    };
    w.update(&d).expect("index");
    w.refresh().expect("refresh");
    let s = w.reader().expect("searcher");
    let leaf = &s.leaves()[0];
    let all = leaf.with_nested().expect("has nested docs");
    let read = |doc: u32| -> serde_json::Value {
        serde_json::from_slice(&all.source(doc).expect("source").expect("some")).expect("json")
    };
    assert_eq!(read(0), serde_json::json!({"a": {"b": {"y": 0}}}));
    assert_eq!(read(1), serde_json::json!({"a": {"b": {"y": 1}}}));
    assert_eq!(read(2), serde_json::json!({"a": {"x": 0, "b": [{"y": 0}, {"y": 1}]}}));
    assert_eq!(read(3), serde_json::json!({"a": {"b": {"y": 2}}}));
    assert_eq!(read(4), serde_json::json!({"a": {"x": 1, "b": {"y": 2}}}));
    assert_eq!(read(5)["a"][1]["x"], serde_json::json!(1));
}
