//! Doc values (`.dvd`): per field a column from doc id to values, for sorting, aggregations and
//! scripts. Layout: `format/doc-values.md`.
//!
//! Three kinds, matching [`DocValuesKind`](super::DocValuesKind), all multi-valued capable:
//! - sorted numeric: `i64`s, any number per doc, returned sorted ([`NumericColumn`]);
//! - sorted set: byte strings as ordinals into a sorted dictionary, deduplicated per doc
//!   ([`SortedSetColumn`]);
//! - binary: one opaque byte string per doc ([`BinaryColumn`]).
//!
//! Order of calls: values go into a [`DocValuesBuffer`] in any order; [`write_doc_values`]
//! writes the file at flush; [`merge_doc_values`] writes a merged segment's file from the
//! sources' readers, matching fields by name. A field without any value in the segment has no
//! column: the reader returns `None` for it.

mod int_column;
pub mod packed;
mod reader;
mod writer;

pub use reader::{check_file, BinaryColumn, DocValuesReader, NumericColumn, SortedSetColumn, Summary};
pub use writer::{merge_doc_values, write_doc_values};

use super::postings::BytesInterner;
use super::DocId;

/// Codec name in the `.dvd` header.
pub const CODEC: &str = "FathomDocValues";
/// Current `.dvd` format version.
pub const VERSION: u32 = 1;
/// File extension.
pub const EXT: &str = "dvd";

/// The values of one field, accumulated before flush.
#[derive(Debug)]
enum FieldBuffer {
    Numeric(Vec<(DocId, i64)>),
    SortedSet {
        /// Term <-> temporary id (order of first appearance).
        terms: BytesInterner,
        pairs: Vec<(DocId, u32)>,
    },
    Binary(Vec<(DocId, Vec<u8>)>),
}

/// Accumulates the doc values of a segment being written.
#[derive(Debug, Default)]
pub struct DocValuesBuffer {
    /// Per field number (numbers are small and dense: they come from the field infos).
    fields: Vec<Option<FieldBuffer>>,
    mem: usize,
    /// The first misuse (one field given values of two kinds); [`write_doc_values`] reports it.
    misuse: Option<String>,
}

impl DocValuesBuffer {
    /// An empty buffer.
    pub fn new() -> Self {
        Self::default()
    }

    fn field(&mut self, field: u32, kind: &str, make: fn() -> FieldBuffer) -> Option<&mut FieldBuffer> {
        let i = field as usize;
        if i >= self.fields.len() {
            self.fields.resize_with(i + 1, || None);
        }
        let f = self.fields[i].get_or_insert_with(make);
        let ok = matches!(
            (kind, &*f),
            ("numeric", FieldBuffer::Numeric(_))
                | ("sorted_set", FieldBuffer::SortedSet { .. })
                | ("binary", FieldBuffer::Binary(_))
        );
        if ok {
            Some(f)
        } else {
            if self.misuse.is_none() {
                self.misuse =
                    Some(format!("field number {field} was given {kind} doc values and values of another kind"));
            }
            None
        }
    }

    /// Adds a value to a sorted-numeric field (any count per doc; the reader returns them sorted).
    pub fn add_numeric(&mut self, field: u32, doc: DocId, v: i64) {
        if let Some(FieldBuffer::Numeric(pairs)) = self.field(field, "numeric", || FieldBuffer::Numeric(Vec::new())) {
            pairs.push((doc, v));
            self.mem += 12;
        }
    }

    /// Adds a term to a sorted-set field (any count per doc; duplicates within a doc collapse).
    pub fn add_bytes(&mut self, field: u32, doc: DocId, v: &[u8]) {
        let make = || FieldBuffer::SortedSet { terms: BytesInterner::new(), pairs: Vec::new() };
        let mut added = 8;
        if let Some(FieldBuffer::SortedSet { terms, pairs }) = self.field(field, "sorted_set", make) {
            let (id, new) = terms.intern(v);
            if new {
                added += v.len() + 32;
            }
            pairs.push((doc, id));
            self.mem += added;
        }
    }

    /// Sets the binary value of a doc (one per doc: the last one set wins).
    pub fn set_binary(&mut self, field: u32, doc: DocId, v: &[u8]) {
        if let Some(FieldBuffer::Binary(pairs)) = self.field(field, "binary", || FieldBuffer::Binary(Vec::new())) {
            pairs.push((doc, v.to_vec()));
            self.mem += v.len() + 32;
        }
    }

    /// Approximate heap bytes held.
    pub fn mem_bytes(&self) -> usize {
        self.mem
    }
}

#[cfg(test)]
mod tests;
