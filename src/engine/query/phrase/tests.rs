//! Phrase top-k pruning on real segments: docs whose bound (BM25 of the first term's freq and the
//! doc's norm) is below the competitive score are passed over without reading positions; the
//! pruned top-k must equal the exhaustive one, hits and f32 scores, whatever the phrase shape.

use std::sync::Arc;

use proptest::prelude::*;

use super::super::*;
use crate::engine::index::{Document, IndexWriter, IndexWriterConfig};
use crate::engine::schema::{FieldValue, IndexableField};
use crate::engine::segment::DocId;
use crate::engine::store::RamDirectory;

const WORDS: [&str; 6] = ["alpha", "beta", "gamma", "delta", "eps", "zeta"];

/// One segment (or a few, `per_seg` docs each) of `docs` Zipf-like bodies from `seed`, some docs
/// deleted: many 128-doc blocks, so positions of passed-over docs are skipped inside blocks.
fn index(seed: u64, docs: usize, per_seg: usize) -> IndexWriter {
    let mut x = seed;
    let mut next = move || {
        x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (x >> 33) as usize
    };
    let (writer, _) = IndexWriter::open(Arc::new(RamDirectory::new()), IndexWriterConfig::default()).expect("open");
    for d in 0..docs {
        let len = 1 + next() % 30;
        let body: Vec<&str> = (0..len).map(|_| WORDS[(next() % 64).trailing_zeros().min(5) as usize]).collect();
        let doc = Document {
            id: format!("{d}"),
            routing: None,
            source: b"{}".to_vec(),
            fields: vec![IndexableField {
                name: "body".into(),
                value: FieldValue::Text {
                    text: body.join(" "),
                    analyzer: "whitespace".into(),
                    freqs: true,
                    positions: true,
                    offsets: false,
                    norms: true,
                    position_increment_gap: 100,
                },
                index: true,
                doc_values: false,
            }],
            seq_no: d as i64,
            primary_term: 1,
            version: 1,
            nested: vec![],
        };
        writer.append(&doc).expect("append");
        if d % 97 == 13 {
            writer.delete(&format!("{}", d - 7)).expect("delete");
        }
        if (d + 1) % per_seg == 0 {
            writer.refresh().expect("refresh");
        }
    }
    writer.refresh().expect("refresh");
    writer
}

fn phrase(words: &[usize], slop: u32) -> Query {
    Query::Phrase {
        field: "body".into(),
        terms: words.iter().enumerate().map(|(i, &w)| (WORDS[w].as_bytes().to_vec(), i as u32)).collect(),
        slop,
        boost: 1.0,
    }
}

fn hits(top: &TopDocs) -> Vec<(f32, usize, DocId)> {
    top.hits.iter().map(|h| (h.score, h.segment, h.doc)).collect()
}

fn check(writer: &IndexWriter, q: &Query, k: usize) -> std::result::Result<(), TestCaseError> {
    let s = writer.reader().expect("searcher");
    let s = s.query();
    let exhaustive = s
        .search(q, &TopSpec { size: k, track_total_hits: TrackTotalHits::Accurate, ..TopSpec::default() })
        .expect("search");
    let pruned = s
        .search(q, &TopSpec { size: k, track_total_hits: TrackTotalHits::UpTo(0), ..TopSpec::default() })
        .expect("search");
    prop_assert_eq!(hits(&pruned), hits(&exhaustive), "query {} k {}", q, k);
    let up_to = s
        .search(q, &TopSpec { size: k, track_total_hits: TrackTotalHits::UpTo(5), ..TopSpec::default() })
        .expect("search");
    prop_assert_eq!(hits(&up_to), hits(&exhaustive), "query {} k {}", q, k);
    let n = exhaustive.total.0;
    prop_assert_eq!(up_to.total, if n > 5 { (5, Relation::Gte) } else { (n, Relation::Eq) });
    Ok(())
}

#[test]
fn pruned_phrase_top_k_equals_exhaustive_on_many_blocks() {
    let w = index(7, 4000, 4000);
    let shapes: [&[usize]; 7] = [&[0, 1], &[1, 0], &[0, 0], &[2, 0, 1], &[0, 1, 0], &[4, 0], &[0, 0, 0]];
    for words in shapes {
        for k in [1, 3, 10] {
            for slop in [0, 2] {
                check(&w, &phrase(words, slop), k).expect("pruned equals exhaustive");
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn pruned_phrase_top_k_equals_exhaustive(seed in any::<u64>(), docs in 1usize..700, per_seg in 50usize..400, words in prop::collection::vec(0usize..4, 2..4), k in 1usize..12) {
        let w = index(seed, docs, per_seg);
        check(&w, &phrase(&words, 0), k)?;
    }
}
