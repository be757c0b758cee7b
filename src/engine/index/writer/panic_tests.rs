//! A panic while a document is inverted (a bug in an analyzer) must not leave a half-updated
//! builder in the pool: the writer fails as on any tragic event, and the panic is an error.

use std::sync::Arc;

use crate::engine::analysis::{AnalyzeEnd, Analyzer, AnalyzerRegistry, Token};
use crate::engine::index::{Document, IndexWriter, IndexWriterConfig};
use crate::engine::schema::{FieldValue, IndexableField};
use crate::engine::store::RamDirectory;
use crate::engine::Error;

/// Whitespace tokens; panics after emitting its first token when the text holds "boom".
#[derive(Debug)]
struct Fragile;

impl Analyzer for Fragile {
    fn analyze(&self, text: &str, first: u32, sink: &mut dyn FnMut(&Token<'_>)) -> AnalyzeEnd {
        let mut pos = first;
        for (i, w) in text.split(' ').enumerate() {
            sink(&Token { term: w, start: 0, end: w.len(), position: pos, position_length: 1, token_type: "word" });
            pos += 1;
            if i == 0 && text.contains("boom") {
                panic!("analyzer bug");
            }
        }
        AnalyzeEnd { next_position: pos, length: pos - first }
    }
    fn position_increment_gap(&self) -> u32 {
        100
    }
}

fn doc(id: &str, text: &str) -> Document {
    Document {
        id: id.into(),
        routing: None,
        source: b"{}".to_vec(),
        fields: vec![IndexableField {
            name: "body".into(),
            value: FieldValue::Text {
                text: text.into(),
                analyzer: "fragile".into(),
                freqs: true,
                positions: true,
                offsets: false,
                norms: true,
                position_increment_gap: 100,
            },
            index: true,
            doc_values: false,
        }],
        seq_no: 0,
        primary_term: 1,
        version: 1,
        nested: vec![],
    }
}

#[test]
fn a_panic_while_inverting_fails_the_writer() {
    let mut reg = AnalyzerRegistry::with_builtins();
    reg.register("fragile", Arc::new(Fragile));
    let config = IndexWriterConfig { analyzers: Arc::new(reg), builders: 1, ..IndexWriterConfig::default() };
    let (writer, _) = IndexWriter::open(Arc::new(RamDirectory::new()), config).expect("open");
    writer.append(&doc("1", "fine words")).expect("a good document");
    for (i, add) in [true, false].into_iter().enumerate() {
        let d = doc(&format!("b{i}"), "first boom");
        let e = if add { writer.append(&d) } else { writer.update(&d).map(|_| ()) };
        match e {
            Err(Error::Closed(m)) => assert!(m.contains("panicked") || m.contains("failed"), "{m}"),
            other => panic!("expected the writer to fail, got {other:?}"),
        }
    }
    // Nothing more is indexed or refreshed: the half-inverted builder is never reused.
    assert!(matches!(writer.append(&doc("2", "more words")), Err(Error::Closed(_))));
    assert!(writer.refresh().is_err());
}
