//! The in-memory inverted index of a segment being built.
//!
//! Per field, a hash map from term bytes to a dense term id, and per term two byte streams of
//! LEB128 varints:
//!
//! ```text
//! docs := (DocDelta, Freq)*  DocDelta [pending Freq kept in TermBuffer::freq]
//! pos  := (Position << 1 | HasOffsets, [Start, End])*      one entry per occurrence, doc order
//! ```
//!
//! A token costs one hash lookup (no allocation: the map is probed with the borrowed `&[u8]`) and
//! two or three varint pushes; only a new term allocates (its key and its two streams).

use std::collections::HashMap;

use crate::engine::segment::{DocId, IndexOptions, NO_MORE_DOCS};

/// Estimated allocator overhead of one term's key allocation (map slots and `TermBuffer`s are
/// counted from the tables' capacities).
const TERM_OVERHEAD: usize = 16;

/// The in-memory inverted index of one segment being built. Field options are applied when it
/// is written ([`write_postings`](super::write_postings)): it records freqs, positions and
/// offsets for every field and the writer drops what a field does not index.
#[derive(Debug, Default)]
pub struct PostingsBuffer {
    pub(crate) fields: Vec<FieldBuffer>,
    mem: usize,
}

#[derive(Debug, Default)]
pub(crate) struct FieldBuffer {
    pub(crate) terms: HashMap<Box<[u8]>, u32, ahash::RandomState>,
    pub(crate) postings: Vec<TermBuffer>,
    /// Last document seen in this field (`NO_MORE_DOCS` before the first).
    last_doc: DocId,
    /// Number of distinct documents with at least one token in this field.
    pub(crate) doc_count: u32,
    /// Whether positions (and offsets) are recorded; see [`PostingsBuffer::set_index_options`].
    skip_positions: bool,
}

#[derive(Debug)]
pub(crate) struct TermBuffer {
    pub(crate) docs: Vec<u8>,
    pub(crate) pos: Vec<u8>,
    pub(crate) last_doc: DocId,
    /// Occurrences in `last_doc` so far (not yet in `docs`).
    pub(crate) freq: u32,
}

#[inline]
fn push_vint(out: &mut Vec<u8>, mut v: u64) {
    if v < 0x80 {
        out.push(v as u8);
        return;
    }
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

impl PostingsBuffer {
    /// An empty buffer.
    pub fn new() -> Self {
        PostingsBuffer::default()
    }

    /// Optional: tells the buffer what `field` indexes, so that positions and offsets are not
    /// recorded for fields without positions (saves memory and time for keyword fields). Call it
    /// before the field's first token, and again if the field's options are widened (docs added
    /// before the widening then read as position 0).
    pub fn set_index_options(&mut self, field: u32, opts: IndexOptions) {
        self.field_mut(field).skip_positions = !opts.has_positions();
    }

    fn field_mut(&mut self, field: u32) -> &mut FieldBuffer {
        let f = field as usize;
        if f >= self.fields.len() {
            self.fields.resize_with(f + 1, || FieldBuffer { last_doc: NO_MORE_DOCS, ..FieldBuffer::default() });
        }
        &mut self.fields[f]
    }

    /// One occurrence of `term` in `field` of `doc`. Docs arrive in non-decreasing order per
    /// field. For Docs-only fields position/offsets are ignored and freq stays 1 per doc (when
    /// written). Positions of one term in one doc may arrive in any order; they are sorted when
    /// written.
    pub fn add(&mut self, field: u32, term: &[u8], doc: DocId, position: u32, offsets: Option<(u32, u32)>) {
        let f = field as usize;
        if f >= self.fields.len() {
            self.field_mut(field);
        }
        let fb = &mut self.fields[f];
        if fb.last_doc != doc {
            debug_assert!(fb.last_doc == NO_MORE_DOCS || doc > fb.last_doc, "docs must arrive in order per field");
            fb.last_doc = doc;
            fb.doc_count += 1;
        }
        let id = match fb.terms.get(term) {
            Some(&id) => id as usize,
            None => {
                let id = fb.postings.len();
                fb.terms.insert(term.into(), id as u32);
                fb.postings.push(TermBuffer { docs: Vec::new(), pos: Vec::new(), last_doc: doc, freq: 0 });
                self.mem += term.len() + TERM_OVERHEAD;
                // The first doc's delta is the doc itself.
                let tb = &mut fb.postings[id];
                push_vint(&mut tb.docs, doc as u64);
                id
            }
        };
        let tb = &mut fb.postings[id];
        let (dc, pc) = (tb.docs.capacity(), tb.pos.capacity());
        if doc != tb.last_doc {
            debug_assert!(doc > tb.last_doc, "docs must arrive in order per field");
            push_vint(&mut tb.docs, tb.freq as u64);
            push_vint(&mut tb.docs, doc.wrapping_sub(tb.last_doc) as u64);
            tb.last_doc = doc;
            tb.freq = 0;
        }
        tb.freq += 1;
        if fb.skip_positions {
            self.mem += tb.docs.capacity() - dc;
            return;
        }
        match offsets {
            None => push_vint(&mut tb.pos, (position as u64) << 1),
            Some((start, end)) => {
                push_vint(&mut tb.pos, ((position as u64) << 1) | 1);
                push_vint(&mut tb.pos, start as u64);
                push_vint(&mut tb.pos, end as u64);
            }
        }
        self.mem += (tb.docs.capacity() - dc) + (tb.pos.capacity() - pc);
    }

    /// Approximate heap use in bytes (stream capacities, keys, per-term overhead), for
    /// refresh-by-size.
    pub fn mem_bytes(&self) -> usize {
        let tables: usize = self
            .fields
            .iter()
            .map(|f| f.terms.capacity() * 24 + f.postings.capacity() * std::mem::size_of::<TermBuffer>())
            .sum();
        self.mem + tables + self.fields.capacity() * std::mem::size_of::<FieldBuffer>()
    }

    /// Whether nothing was added.
    pub fn is_empty(&self) -> bool {
        self.fields.iter().all(|f| f.postings.is_empty())
    }
}

/// Decodes one term's buffered streams into flat arrays (freqs and positions kept whatever the
/// field options; the caller drops what it does not index). Positions of each doc are sorted.
pub(crate) fn decode_term(
    tb: &TermBuffer,
    docs: &mut Vec<u32>,
    freqs: &mut Vec<u32>,
    positions: &mut Vec<u32>,
    offsets: &mut Vec<(u32, u32)>,
    want_positions: bool,
    want_offsets: bool,
) {
    docs.clear();
    freqs.clear();
    positions.clear();
    offsets.clear();
    let mut d = ByteCursor { b: &tb.docs, i: 0 };
    let mut doc = 0u32;
    loop {
        let delta = d.vint() as u32;
        doc = doc.wrapping_add(delta);
        docs.push(doc);
        if d.done() {
            freqs.push(tb.freq);
            break;
        }
        freqs.push(d.vint() as u32);
    }
    if !want_positions {
        return;
    }
    let mut p = ByteCursor { b: &tb.pos, i: 0 };
    for &freq in freqs.iter() {
        let start = positions.len();
        for _ in 0..freq {
            let v = p.vint();
            positions.push((v >> 1) as u32);
            let off = if v & 1 == 1 { (p.vint() as u32, p.vint() as u32) } else { (0, 0) };
            if want_offsets {
                offsets.push(off);
            }
        }
        let ps = &positions[start..];
        if ps.windows(2).any(|w| w[0] > w[1]) {
            if want_offsets {
                let mut pairs: Vec<(u32, (u32, u32))> =
                    positions[start..].iter().copied().zip(offsets[start..].iter().copied()).collect();
                pairs.sort_unstable();
                for (i, (p, o)) in pairs.into_iter().enumerate() {
                    positions[start + i] = p;
                    offsets[start + i] = o;
                }
            } else {
                positions[start..].sort_unstable();
            }
        }
    }
}

/// A cursor over bytes this process wrote itself (trusted: no error paths).
struct ByteCursor<'a> {
    b: &'a [u8],
    i: usize,
}

impl ByteCursor<'_> {
    #[inline]
    fn done(&self) -> bool {
        self.i >= self.b.len()
    }
    #[inline]
    fn vint(&mut self) -> u64 {
        let mut v = 0u64;
        let mut shift = 0;
        while let Some(&byte) = self.b.get(self.i) {
            self.i += 1;
            v |= ((byte & 0x7f) as u64) << shift;
            if byte & 0x80 == 0 {
                break;
            }
            shift += 7;
        }
        v
    }
}
