//! The in-memory segment: documents are inverted into per-component buffers as they arrive, and
//! [`SegmentBuilder::flush`] serializes them into a new immutable segment.
//!
//! How each kind of value is indexed (the same rules as OpenSearch's field mappers on Lucene):
//!
//! | value | inverted index | points | doc values |
//! |---|---|---|---|
//! | text | analyzed tokens, freqs, positions (offsets if asked), norms | – | – |
//! | keyword | one term, docs only | – | sorted-set |
//! | long, date, ... | – | 8-byte sortable key | sorted-numeric |
//! | double, float, ... | – | 8-byte sortable key | sorted-numeric (sortable bits) |
//! | unsigned_long | – | 8-byte unsigned key | sorted-numeric (sign-flipped) |
//! | boolean | term `T` / `F` | – | sorted-numeric 0/1 |
//! | ip | – | 16-byte key | sorted-set (16 bytes) |
//! | binary | – | – | binary |
//!
//! Metadata: `_id` and `_routing` are docs-only terms; `_seq_no` has points and doc values;
//! `_primary_term` and `_version` have doc values; `_id`, `_source` and `_routing` are stored.

use std::collections::BTreeMap;

use super::{Document, StoredDocument};
use crate::engine::analysis::AnalyzerRegistry;
use crate::engine::schema::FieldValue;
use crate::engine::segment::doc_values::{write_doc_values, DocValuesBuffer};
use crate::engine::segment::info::{file_entries, SegmentInfo};
use crate::engine::segment::norms::{write_norms, NormsBuffer};
use crate::engine::segment::points::{sortable, write_points, PointsBuffer};
use crate::engine::segment::postings::{write_postings, PostingsBuffer};
use crate::engine::segment::smallfloat::length_to_norm;
use crate::engine::segment::stored::StoredWriter;
use crate::engine::segment::{DocId, DocValuesKind, FieldInfos, IndexOptions, SegmentId};
use crate::engine::store::Directory;
use crate::engine::{Error, Result};

/// Metadata field names.
pub mod meta {
    pub const ID: &str = "_id";
    pub const ROUTING: &str = "_routing";
    pub const SEQ_NO: &str = "_seq_no";
    pub const PRIMARY_TERM: &str = "_primary_term";
    pub const VERSION: &str = "_version";
    pub const SOURCE: &str = "_source";
    /// Docs-only terms: the names of a document's fields that have neither doc values nor
    /// norms, so that `exists` finds them (Lucene's `_field_names`).
    pub const FIELD_NAMES: &str = "_field_names";
    /// Docs-only term of a nested document: its object's path (`user.address`). Root documents
    /// have none.
    pub const NESTED_PATH: &str = "_nested_path";
}

/// Keys of the stored fields of every document.
pub mod stored_keys {
    pub const ID: u32 = 0;
    pub const SOURCE: u32 = 1;
    pub const ROUTING: u32 = 2;
}

/// `id_docs` entry of an `_id` with no successfully added document.
const NO_DOC: DocId = DocId::MAX;

/// Per-field state while one document is inverted.
#[derive(Debug, Clone, Copy, Default)]
struct FieldDocState {
    doc: DocId,
    next_position: u32,
    length: u32,
    offset_base: u32,
    seen: bool,
}

/// Encodes an f64 as a sortable i64 (Lucene's `NumericUtils.doubleToSortableLong`).
pub fn double_to_sortable_long(v: f64) -> i64 {
    let bits = v.to_bits() as i64;
    bits ^ ((bits >> 63) & 0x7fff_ffff_ffff_ffff)
}

/// Inverse of [`double_to_sortable_long`].
pub fn sortable_long_to_double(v: i64) -> f64 {
    f64::from_bits((v ^ ((v >> 63) & 0x7fff_ffff_ffff_ffff)) as u64)
}

/// An unsigned long as a sortable i64 (sign bit flipped).
pub fn unsigned_to_sortable_long(v: u64) -> i64 {
    (v ^ (1u64 << 63)) as i64
}

/// The in-memory segment being built.
#[derive(Debug)]
pub struct SegmentBuilder {
    infos: FieldInfos,
    postings: PostingsBuffer,
    norms: NormsBuffer,
    doc_values: DocValuesBuffer,
    points: PointsBuffer,
    docs: Vec<StoredDocument>,
    /// `_id`s of the buffered documents, and per interned id the last doc added with it.
    /// Per term id of the `_id` field in `postings`: the last document added successfully with
    /// that `_id` (`NO_DOC` if none: a failed document created the term).
    id_docs: Vec<DocId>,
    /// Term id of the `_id` of the document being added.
    pending_id: u32,
    /// Reused per document: fields with a value in the document being inverted.
    touched: Vec<u32>,
    /// Field numbers of `_id`, `_routing`, `_seq_no`, `_primary_term`, `_version`,
    /// `_field_names`, `_nested_path` once created.
    meta_fields: [Option<u32>; 7],
    deleted: Vec<bool>,
    /// Per doc: a nested document (part of the block of the next root document).
    nested: Vec<bool>,
    num_deleted: u32,
    field_state: Vec<FieldDocState>,
    stored_bytes: usize,
}

impl Default for SegmentBuilder {
    fn default() -> Self {
        SegmentBuilder::new()
    }
}

impl SegmentBuilder {
    /// An empty buffer.
    pub fn new() -> SegmentBuilder {
        SegmentBuilder {
            infos: FieldInfos::new(),
            postings: PostingsBuffer::new(),
            norms: NormsBuffer::new(),
            doc_values: DocValuesBuffer::new(),
            points: PointsBuffer::new(),
            docs: Vec::new(),
            id_docs: Vec::new(),
            pending_id: 0,
            touched: Vec::new(),
            meta_fields: [None; 7],
            deleted: Vec::new(),
            nested: Vec::new(),
            num_deleted: 0,
            field_state: Vec::new(),
            stored_bytes: 0,
        }
    }

    /// Documents added (deleted or not).
    pub fn max_doc(&self) -> u32 {
        self.docs.len() as u32
    }

    /// Whether nothing was added.
    pub fn is_empty(&self) -> bool {
        self.docs.is_empty()
    }

    /// Approximate heap use, to trigger a refresh when the indexing buffer is full.
    pub fn mem_bytes(&self) -> usize {
        self.id_docs.capacity() * 4
            + self.postings.mem_bytes()
            + self.doc_values.mem_bytes()
            + self.points.mem_bytes()
            + self.stored_bytes
            + self.docs.len() * 96
    }

    /// The live buffered document with this id.
    pub fn find(&self, id: &str) -> Option<DocId> {
        let f = self.meta_fields[0]?;
        let i = self.postings.term_id(f, id.as_bytes())?;
        self.id_docs.get(i as usize).copied().filter(|&d| d != NO_DOC && !self.deleted[d as usize])
    }

    /// A buffered document (deleted or not).
    pub fn doc(&self, doc: DocId) -> Option<&StoredDocument> {
        self.docs.get(doc as usize)
    }

    /// Marks a buffered document deleted, with its nested documents; returns whether it was live.
    pub fn delete(&mut self, doc: DocId) -> bool {
        let live = match self.deleted.get_mut(doc as usize) {
            Some(d) if !*d => {
                *d = true;
                self.num_deleted += 1;
                true
            }
            _ => false,
        };
        for c in self.block_start(doc)..doc {
            if let Some(d) = self.deleted.get_mut(c as usize).filter(|d| !**d) {
                *d = true;
                self.num_deleted += 1;
            }
        }
        live
    }

    /// The first doc of the block that root document `doc` ends (`doc` itself without nested
    /// documents).
    pub fn block_start(&self, doc: DocId) -> DocId {
        let mut start = doc;
        while start > 0 && self.nested.get(start as usize - 1).copied().unwrap_or(false) {
            start -= 1;
        }
        start
    }

    /// Deleted documents in the buffer.
    pub fn num_deleted(&self) -> u32 {
        self.num_deleted
    }

    /// The number of metadata field `name` (cached in `meta_fields[slot]` after its first use:
    /// its options never change, so later calls would not widen anything).
    fn meta_field(
        &mut self,
        slot: usize,
        name: &str,
        index: IndexOptions,
        dv: DocValuesKind,
        points: u8,
    ) -> Result<u32> {
        if let Some(Some(n)) = self.meta_fields.get(slot) {
            return Ok(*n);
        }
        let n = self.field(name, index, false, dv, points)?;
        if let Some(c) = self.meta_fields.get_mut(slot) {
            *c = Some(n);
        }
        Ok(n)
    }

    fn field(&mut self, name: &str, index: IndexOptions, norms: bool, dv: DocValuesKind, points: u8) -> Result<u32> {
        self.infos.add_or_widen(name, index, norms, dv, points)
    }

    /// Inverts one document into the buffers and returns its doc id.
    ///
    /// All or nothing for readers: if inverting fails part-way (a field whose type conflicts with
    /// an earlier document, an unknown analyzer), some postings and doc values for doc id `d`
    /// were already written, so `d` is used up by a *deleted* placeholder: nothing can find it
    /// by `_id`, no search sees it, and the next document gets `d + 1`.
    ///
    /// The document's nested documents come first (one block, root last); if any of them fails,
    /// the whole block so far is left deleted, ended by an empty deleted root.
    pub fn add(&mut self, doc: &Document, analyzers: &AnalyzerRegistry) -> Result<DocId> {
        let first = self.docs.len();
        for n in &doc.nested {
            let d = self.docs.len() as DocId;
            match self.invert_nested(d, doc, n, analyzers) {
                Ok(()) => {
                    self.nested.push(true);
                    self.deleted.push(false);
                }
                Err(e) => {
                    // The failed doc may have its `_nested_path` term already: it is nested, and
                    // an empty deleted root ends the (deleted) block, so the next document's block
                    // never takes it in.
                    self.push_placeholder(doc);
                    self.nested.push(true);
                    self.push_placeholder(doc);
                    self.nested.push(false);
                    self.delete_from(first);
                    return Err(e);
                }
            }
        }
        let d = self.docs.len() as DocId;
        self.nested.push(false);
        match self.invert(d, doc, analyzers) {
            Ok(()) => {
                let i = self.pending_id as usize;
                if i >= self.id_docs.len() {
                    self.id_docs.resize(i + 1, NO_DOC);
                }
                self.id_docs[i] = d;
                self.deleted.push(false);
                Ok(d)
            }
            Err(e) => {
                self.push_placeholder(doc);
                self.delete_from(first);
                Err(e)
            }
        }
    }

    /// Uses up the next doc id with an empty stored document (its deleted bit is set by the
    /// caller).
    fn push_placeholder(&mut self, doc: &Document) {
        self.docs.push(StoredDocument {
            id: doc.id.clone(),
            routing: None,
            source: Vec::new(),
            seq_no: doc.seq_no,
            primary_term: doc.primary_term,
            version: doc.version,
        });
        if self.deleted.len() < self.docs.len() {
            self.deleted.push(false);
        }
    }

    /// Marks docs `first..` deleted (a block that failed part-way).
    fn delete_from(&mut self, first: usize) {
        for d in self.deleted.iter_mut().skip(first) {
            if !*d {
                *d = true;
                self.num_deleted += 1;
            }
        }
    }

    /// Inverts nested document `n` of `doc` as doc `d`: its `_nested_path` term and its fields.
    fn invert_nested(
        &mut self,
        d: DocId,
        doc: &Document,
        n: &crate::engine::schema::NestedDoc,
        analyzers: &AnalyzerRegistry,
    ) -> Result<()> {
        if d == i32::MAX as u32 {
            return Err(Error::InvalidArgument("segment buffer is full (2^31-1 documents)".into()));
        }
        let f = self.meta_field(6, meta::NESTED_PATH, IndexOptions::Docs, DocValuesKind::None, 0)?;
        self.postings.add(f, n.path.as_bytes(), d, 0, None);
        let mut touched = std::mem::take(&mut self.touched);
        touched.clear();
        let r = self.invert_fields(d, &n.fields, analyzers, &mut touched);
        self.touched = touched;
        r?;
        self.stored_bytes += doc.id.len();
        self.docs.push(StoredDocument {
            id: doc.id.clone(),
            routing: None,
            source: Vec::new(),
            seq_no: doc.seq_no,
            primary_term: doc.primary_term,
            version: doc.version,
        });
        Ok(())
    }

    fn invert(&mut self, d: DocId, doc: &Document, analyzers: &AnalyzerRegistry) -> Result<()> {
        if d == i32::MAX as u32 {
            return Err(Error::InvalidArgument("segment buffer is full (2^31-1 documents)".into()));
        }
        // Metadata fields.
        let f = self.meta_field(0, meta::ID, IndexOptions::Docs, DocValuesKind::None, 0)?;
        self.pending_id = self.postings.add(f, doc.id.as_bytes(), d, 0, None);
        if let Some(r) = &doc.routing {
            let f = self.meta_field(1, meta::ROUTING, IndexOptions::Docs, DocValuesKind::None, 0)?;
            self.postings.add(f, r.as_bytes(), d, 0, None);
        }
        let f = self.meta_field(2, meta::SEQ_NO, IndexOptions::None, DocValuesKind::SortedNumeric, 8)?;
        self.points.add(f, d, &sortable::encode_i64(doc.seq_no));
        self.doc_values.add_numeric(f, d, doc.seq_no);
        let f = self.meta_field(3, meta::PRIMARY_TERM, IndexOptions::None, DocValuesKind::SortedNumeric, 0)?;
        self.doc_values.add_numeric(f, d, doc.primary_term as i64);
        let f = self.meta_field(4, meta::VERSION, IndexOptions::None, DocValuesKind::SortedNumeric, 0)?;
        self.doc_values.add_numeric(f, d, doc.version);

        let mut touched = std::mem::take(&mut self.touched);
        touched.clear();
        let r = self.invert_fields(d, &doc.fields, analyzers, &mut touched);
        self.touched = touched;
        r?;

        self.stored_bytes += doc.source.len() + doc.id.len();
        self.docs.push(StoredDocument {
            id: doc.id.clone(),
            routing: doc.routing.clone(),
            source: doc.source.clone(),
            seq_no: doc.seq_no,
            primary_term: doc.primary_term,
            version: doc.version,
        });
        Ok(())
    }

    /// The mapping's fields of a document, then the norms of the fields it touched.
    fn invert_fields(
        &mut self,
        d: DocId,
        fields: &[crate::engine::schema::IndexableField],
        analyzers: &AnalyzerRegistry,
        touched: &mut Vec<u32>,
    ) -> Result<()> {
        for field in fields {
            if field.name == meta::ID {
                // The mapping reports `_id` too; it was indexed above from the document itself.
                continue;
            }
            self.add_value(d, &field.name, &field.value, field.index, field.doc_values, analyzers, touched)?;
            let invisible = match &field.value {
                FieldValue::Text { norms, .. } => field.index && !norms,
                _ => !field.doc_values,
            };
            if invisible {
                let f = self.meta_field(5, meta::FIELD_NAMES, IndexOptions::Docs, DocValuesKind::None, 0)?;
                self.postings.add(f, field.name.as_bytes(), d, 0, None);
            }
        }
        for &n in touched.iter() {
            let st = self.field_state[n as usize];
            let has_norms = self.infos.get(n).map(|i| i.has_norms).unwrap_or(false);
            if has_norms {
                self.norms.set(n, d, if st.length == 0 { 0 } else { length_to_norm(st.length) });
            }
        }
        Ok(())
    }

    #[allow(clippy::too_many_arguments)]
    fn add_value(
        &mut self,
        d: DocId,
        name: &str,
        value: &FieldValue,
        index: bool,
        doc_values: bool,
        analyzers: &AnalyzerRegistry,
        touched: &mut Vec<u32>,
    ) -> Result<()> {
        let dv = |kind: DocValuesKind| if doc_values { kind } else { DocValuesKind::None };
        match value {
            FieldValue::Text { text, analyzer, freqs, positions, offsets, norms, position_increment_gap } => {
                if !index {
                    return Ok(());
                }
                let opts = match (freqs, positions, offsets) {
                    (_, true, true) => IndexOptions::DocsFreqsPositionsOffsets,
                    (_, true, false) => IndexOptions::DocsFreqsPositions,
                    (true, false, _) => IndexOptions::DocsFreqs,
                    (false, false, _) => IndexOptions::Docs,
                };
                let f = self.field(name, opts, *norms, DocValuesKind::None, 0)?;
                let an = analyzers.get(analyzer).ok_or_else(|| {
                    Error::InvalidArgument(format!("analyzer [{analyzer}] has not been configured in mappings"))
                })?;
                if self.field_state.len() <= f as usize {
                    self.field_state.resize(f as usize + 1, FieldDocState { doc: u32::MAX, ..Default::default() });
                }
                let mut st = self.field_state[f as usize];
                if st.doc != d || !st.seen {
                    st = FieldDocState { doc: d, next_position: 0, length: 0, offset_base: 0, seen: true };
                    touched.push(f);
                } else {
                    st.next_position += position_increment_gap;
                }
                let with_offsets = *offsets;
                let base = st.offset_base;
                let postings = &mut self.postings;
                let end = an.analyze(text, st.next_position, &mut |tok| {
                    let offs = with_offsets.then(|| (base + tok.start as u32, base + tok.end as u32));
                    postings.add(f, tok.term.as_bytes(), d, tok.position, offs);
                });
                st.next_position = end.next_position;
                st.length += end.length;
                st.offset_base = base + text.len() as u32 + 1;
                self.field_state[f as usize] = st;
            }
            FieldValue::Keyword(s) => {
                let f = self.field(
                    name,
                    if index { IndexOptions::Docs } else { IndexOptions::None },
                    false,
                    dv(DocValuesKind::SortedSet),
                    0,
                )?;
                if index {
                    self.postings.add(f, s.as_bytes(), d, 0, None);
                }
                if doc_values {
                    self.doc_values.add_bytes(f, d, s.as_bytes());
                }
            }
            FieldValue::Long(v) => {
                let f = self.field(
                    name,
                    IndexOptions::None,
                    false,
                    dv(DocValuesKind::SortedNumeric),
                    if index { 8 } else { 0 },
                )?;
                if index {
                    self.points.add(f, d, &sortable::encode_i64(*v));
                }
                if doc_values {
                    self.doc_values.add_numeric(f, d, *v);
                }
            }
            FieldValue::Double(v) => {
                let f = self.field(
                    name,
                    IndexOptions::None,
                    false,
                    dv(DocValuesKind::SortedNumeric),
                    if index { 8 } else { 0 },
                )?;
                if index {
                    self.points.add(f, d, &sortable::encode_f64(*v));
                }
                if doc_values {
                    self.doc_values.add_numeric(f, d, double_to_sortable_long(*v));
                }
            }
            FieldValue::UnsignedLong(v) => {
                let f = self.field(
                    name,
                    IndexOptions::None,
                    false,
                    dv(DocValuesKind::SortedNumeric),
                    if index { 8 } else { 0 },
                )?;
                if index {
                    self.points.add(f, d, &sortable::encode_u64(*v));
                }
                if doc_values {
                    self.doc_values.add_numeric(f, d, unsigned_to_sortable_long(*v));
                }
            }
            FieldValue::Bool(b) => {
                let f = self.field(
                    name,
                    if index { IndexOptions::Docs } else { IndexOptions::None },
                    false,
                    dv(DocValuesKind::SortedNumeric),
                    0,
                )?;
                if index {
                    self.postings.add(f, if *b { b"T" } else { b"F" }, d, 0, None);
                }
                if doc_values {
                    self.doc_values.add_numeric(f, d, *b as i64);
                }
            }
            FieldValue::Ip(v) => {
                let f = self.field(
                    name,
                    IndexOptions::None,
                    false,
                    dv(DocValuesKind::SortedSet),
                    if index { 16 } else { 0 },
                )?;
                let key = sortable::encode_u128(*v);
                if index {
                    self.points.add(f, d, &key);
                }
                if doc_values {
                    self.doc_values.add_bytes(f, d, &key);
                }
            }
            FieldValue::TokenCount { text, analyzer, position_increments } => {
                let an = analyzers.get(analyzer).ok_or_else(|| {
                    Error::InvalidArgument(format!("analyzer [{analyzer}] has not been configured in mappings"))
                })?;
                let mut tokens = 0i64;
                let end = an.analyze(text, 0, &mut |_| tokens += 1);
                // Lucene's `countPositions`: with position increments, removed tokens count.
                let count = if *position_increments { i64::from(end.next_position) } else { tokens };
                self.add_value(d, name, &FieldValue::Long(count), index, doc_values, analyzers, touched)?;
            }
            FieldValue::Range(b) => {
                // Searched through its doc values (see `schema/range.rs`).
                if doc_values {
                    let f = self.field(name, IndexOptions::None, false, DocValuesKind::SortedSet, 0)?;
                    self.doc_values.add_bytes(f, d, b);
                }
            }
            FieldValue::Binary(b) => {
                if doc_values {
                    let f = self.field(name, IndexOptions::None, false, DocValuesKind::Binary, 0)?;
                    self.doc_values.set_binary(f, d, b);
                }
            }
        }
        Ok(())
    }

    /// Writes the buffer as segment `seg` (every component, then the `.si`), all fsynced. Returns
    /// the segment info and the buffer's deletions (doc ids), which the caller turns into live docs.
    pub fn flush(&self, dir: &dyn Directory, seg: &SegmentId) -> Result<(SegmentInfo, Vec<DocId>)> {
        let max_doc = self.max_doc();
        let mut files = Vec::new();
        files.push(self.infos.write(dir, seg)?);
        files.push(write_norms(dir, seg, &self.infos, &self.norms, max_doc)?);
        let norms = &self.norms;
        files.extend(write_postings(dir, seg, &self.infos, &self.postings, &|f, d| norms.get(f, d), max_doc)?);
        files.push(write_doc_values(dir, seg, &self.infos, &self.doc_values, max_doc)?);
        files.push(write_points(dir, seg, &self.infos, &self.points, max_doc)?);
        let mut stored = StoredWriter::create(dir, seg)?;
        for doc in &self.docs {
            let mut fields: Vec<(u32, &[u8])> =
                vec![(stored_keys::ID, doc.id.as_bytes()), (stored_keys::SOURCE, &doc.source)];
            if let Some(r) = &doc.routing {
                fields.push((stored_keys::ROUTING, r.as_bytes()));
            }
            stored.add(&fields)?;
        }
        files.push(stored.finish()?);
        let mut diagnostics = BTreeMap::new();
        diagnostics.insert("source".to_string(), "flush".to_string());
        diagnostics.insert("timestamp".to_string(), crate::clock::now_millis().to_string());
        let info = SegmentInfo { id: seg.clone(), max_doc, files: file_entries(dir, &files)?, diagnostics };
        info.write(dir)?;
        let deleted = self.deleted.iter().enumerate().filter(|(_, &x)| x).map(|(i, _)| i as DocId).collect();
        Ok((info, deleted))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::schema::IndexableField;

    fn doc(id: &str, seq_no: i64, fields: Vec<IndexableField>) -> Document {
        Document {
            id: id.into(),
            source: b"{}".to_vec(),
            fields,
            seq_no,
            primary_term: 1,
            version: 1,
            ..Document::default()
        }
    }

    fn kw(name: &str, v: &str) -> IndexableField {
        IndexableField { name: name.into(), value: FieldValue::Keyword(v.into()), index: true, doc_values: true }
    }

    /// `find` returns the last document added successfully with an id: a failed add with the same
    /// id (which did post the `_id` term) leaves the earlier one findable; deletes hide it.
    #[test]
    fn find_ignores_failed_adds_and_deleted_docs() {
        let an = AnalyzerRegistry::with_builtins();
        let mut b = SegmentBuilder::new();
        assert_eq!(b.find("a"), None);
        assert_eq!(b.add(&doc("a", 0, vec![kw("x", "1")]), &an).ok(), Some(0));
        let conflicting =
            IndexableField { name: "x".into(), value: FieldValue::Long(1), index: false, doc_values: true };
        assert!(b.add(&doc("a", 1, vec![conflicting.clone()]), &an).is_err());
        assert!(b.add(&doc("b", 2, vec![conflicting]), &an).is_err());
        assert_eq!(b.find("a"), Some(0));
        assert_eq!(b.find("b"), None);
        assert_eq!(b.add(&doc("b", 3, vec![]), &an).ok(), Some(3));
        assert_eq!(b.add(&doc("a", 4, vec![]), &an).ok(), Some(4));
        assert_eq!((b.find("a"), b.find("b")), (Some(4), Some(3)));
        assert!(b.delete(4));
        assert_eq!(b.find("a"), None);
        assert_eq!(b.doc(3).map(|d| d.seq_no), Some(3));
    }
}
