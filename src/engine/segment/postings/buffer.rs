//! The in-memory inverted index of a segment being built.
//!
//! Per field, a [`BytesInterner`] from term bytes to a dense term id, and per term two byte
//! streams of LEB128 varints, both slices of one shared arena (`PostingsBuffer::pool`):
//!
//! ```text
//! docs := (DocDelta, Freq)*  DocDelta [pending Freq kept in TermBuffer::freq]
//! pos  := (Position << 1 | HasOffsets, [Start, End])*      one entry per occurrence, doc order
//! ```
//!
//! A token costs one hash lookup and two or three varint pushes. Nothing is allocated per term:
//! term bytes go to the interner's arena and a stream that outgrows its slice moves to a slice
//! twice as large at the end of the pool (the old one is left as garbage, as a `Vec` would free
//! it), so dropping the buffer frees a handful of large blocks.

use crate::engine::segment::{DocId, IndexOptions, NO_MORE_DOCS};

/// Initial capacity of a stream slice in the pool.
const FIRST_SLICE: usize = 4;

/// Interns byte strings: dense ids in order of first appearance, every key in one arena as
/// `[id: u32 LE][len: u32 LE][bytes]`, and an open-addressing table (linear probing, at most half
/// full) of 16-byte slots: a tag of the key's ahash, its length (up to 8, or "longer") and id + 1
/// in one word, the key's first 8 bytes (zero-padded) in the other. A key of at most 8 bytes is
/// matched in the slot alone; a longer one also compares the rest in the arena. No allocation
/// per key; lookups with a borrowed `&[u8]`.
#[derive(Debug, Default)]
pub(crate) struct BytesInterner {
    arena: Vec<u8>,
    /// Arena offset of each id's entry.
    offsets: Vec<usize>,
    /// Hash of each id's key (rehashing on growth then never hashes again).
    hashes: Vec<u64>,
    /// `[tag << 36 | len code << 32 | id + 1, prefix]` per slot, `[0, 0]` = empty; the length
    /// is 0 or a power of two.
    table: Vec<[u64; 2]>,
    hasher: ahash::RandomState,
}

/// Bytes before a key's bytes in the arena.
const ENTRY_HEAD: usize = 8;
/// Keys of at most this many bytes are compared in the table slot alone.
const INLINE_KEY: usize = 8;
/// Length code of keys longer than [`INLINE_KEY`].
const LONG_KEY: u64 = 15;

impl BytesInterner {
    /// An empty interner.
    pub(crate) fn new() -> Self {
        Self::default()
    }

    /// Number of distinct keys.
    pub(crate) fn len(&self) -> usize {
        self.offsets.len()
    }

    /// The key bytes of the entry at arena offset `off`.
    #[inline]
    fn entry_at(&self, off: usize) -> &[u8] {
        let head = &self.arena[off..off + ENTRY_HEAD];
        let len = u32::from_le_bytes([head[4], head[5], head[6], head[7]]) as usize;
        &self.arena[off + ENTRY_HEAD..off + ENTRY_HEAD + len]
    }

    /// The bytes of key `id` (ids come from [`intern`](Self::intern)).
    pub(crate) fn key(&self, id: u32) -> &[u8] {
        self.entry_at(self.offsets[id as usize])
    }

    /// The id of `key`, if it was interned.
    pub(crate) fn get(&self, key: &[u8]) -> Option<u32> {
        if self.table.is_empty() {
            return None;
        }
        let hash = self.hasher.hash_one(key);
        let (head, prefix) = Self::slot_key(key, hash);
        self.probe(key, hash, head, prefix).ok()
    }

    /// The id of `key`, interning it if new; the flag says whether it was new.
    #[inline]
    pub(crate) fn intern(&mut self, key: &[u8]) -> (u32, bool) {
        if self.offsets.len() * 2 >= self.table.len() {
            self.grow();
        }
        let hash = self.hasher.hash_one(key);
        let (head, prefix) = Self::slot_key(key, hash);
        match self.probe(key, hash, head, prefix) {
            Ok(id) => (id, false),
            Err(slot) => {
                let id = self.offsets.len() as u32;
                assert!(id < u32::MAX, "at most 2^32 - 1 interned keys");
                let off = self.arena.len();
                let len = u32::try_from(key.len()).expect("a key is shorter than 4 GiB (terms are bounded far below)");
                self.arena.extend_from_slice(&id.to_le_bytes());
                self.arena.extend_from_slice(&len.to_le_bytes());
                self.arena.extend_from_slice(key);
                self.offsets.push(off);
                self.hashes.push(hash);
                self.table[slot] = [head | (id as u64 + 1), prefix];
                (id, true)
            }
        }
    }

    /// The slot's first word without the id (tag and length code) and its prefix word.
    #[inline]
    fn slot_key(key: &[u8], hash: u64) -> (u64, u64) {
        let n = key.len().min(INLINE_KEY);
        let mut b = [0u8; INLINE_KEY];
        b[..n].copy_from_slice(&key[..n]);
        let code = if key.len() <= INLINE_KEY { key.len() as u64 } else { LONG_KEY };
        ((hash >> 36) << 36 | code << 32, u64::from_le_bytes(b))
    }

    /// `Ok(id)` of `key`, or `Err(slot)`: the empty slot where it belongs. The table is non-empty.
    #[inline]
    fn probe(&self, key: &[u8], hash: u64, head: u64, prefix: u64) -> Result<u32, usize> {
        let mask = self.table.len() - 1;
        let mut slot = hash as usize & mask;
        loop {
            let [w, p] = self.table[slot];
            if w == 0 {
                return Err(slot);
            }
            if w >> 32 << 32 == head && p == prefix {
                let id = (w as u32).wrapping_sub(1);
                if key.len() <= INLINE_KEY || self.key(id)[INLINE_KEY..] == key[INLINE_KEY..] {
                    return Ok(id);
                }
            }
            slot = (slot + 1) & mask;
        }
    }

    #[cold]
    fn grow(&mut self) {
        let size = (self.table.len() * 2).max(16);
        let mask = size - 1;
        let mut table = vec![[0u64; 2]; size];
        for (id, &hash) in self.hashes.iter().enumerate() {
            let (head, prefix) = Self::slot_key(self.key(id as u32), hash);
            let mut slot = hash as usize & mask;
            while table[slot][0] != 0 {
                slot = (slot + 1) & mask;
            }
            table[slot] = [head | (id as u64 + 1), prefix];
        }
        self.table = table;
    }

    /// Ids sorted by key bytes.
    pub(crate) fn sorted_ids(&self) -> Vec<u32> {
        // Sort by the first 8 bytes (zero-padded, big-endian: the same order as the bytes) and
        // compare whole keys only on ties, so most comparisons stay in the vector.
        let prefix = |k: &[u8]| {
            let mut b = [0u8; 8];
            let n = k.len().min(8);
            b[..n].copy_from_slice(&k[..n]);
            u64::from_be_bytes(b)
        };
        let mut v: Vec<(u64, u32)> = (0..self.offsets.len() as u32).map(|id| (prefix(self.key(id)), id)).collect();
        v.sort_unstable_by(|a, b| a.0.cmp(&b.0).then_with(|| self.key(a.1).cmp(self.key(b.1))));
        v.into_iter().map(|p| p.1).collect()
    }

    /// Heap bytes held (capacities).
    pub(crate) fn mem_bytes(&self) -> usize {
        self.arena.capacity()
            + self.offsets.capacity() * std::mem::size_of::<usize>()
            + self.hashes.capacity() * 8
            + self.table.capacity() * 16
    }
}

/// A growable byte stream stored as a slice of the pool.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Slice {
    start: usize,
    len: usize,
    cap: usize,
}

impl Slice {
    /// The stream's bytes.
    fn bytes<'a>(&self, pool: &'a [u8]) -> &'a [u8] {
        &pool[self.start..self.start + self.len]
    }
}

/// Appends `v` as a LEB128 varint to stream `s` of `pool` (written byte by byte: a `memcpy`
/// call of a variable 1 to 10 bytes cost more than the bytes themselves).
#[inline]
fn push_vint(pool: &mut Vec<u8>, s: &mut Slice, mut v: u64) {
    let n = (64 - (v | 1).leading_zeros() as usize).div_ceil(7);
    if s.len + n > s.cap {
        grow_slice(pool, s, n);
    }
    let at = s.start + s.len;
    let out = &mut pool[at..at + n];
    let (last, head) = match out.split_last_mut() {
        Some(x) => x,
        None => return,
    };
    for b in head.iter_mut() {
        *b = (v as u8) | 0x80;
        v >>= 7;
    }
    *last = v as u8;
    s.len += n;
}

/// Makes room for `need` more bytes in `s`: extends it in place when it ends the pool, else
/// moves it to a slice twice as large at the end.
#[cold]
fn grow_slice(pool: &mut Vec<u8>, s: &mut Slice, need: usize) {
    let cap = (s.cap * 2).max(FIRST_SLICE).max(s.len + need);
    if s.cap > 0 && s.start + s.cap == pool.len() {
        pool.resize(s.start + cap, 0);
    } else {
        let start = pool.len();
        pool.resize(start + cap, 0);
        pool.copy_within(s.start..s.start + s.len, start);
        s.start = start;
    }
    s.cap = cap;
}

/// The in-memory inverted index of one segment being built. Field options are applied when it
/// is written ([`write_postings`](super::write_postings)): it records freqs, positions and
/// offsets for every field and the writer drops what a field does not index.
#[derive(Debug, Default)]
pub struct PostingsBuffer {
    pub(crate) fields: Vec<FieldBuffer>,
    /// Every term's streams (see the module doc).
    pool: Vec<u8>,
}

#[derive(Debug, Default)]
pub(crate) struct FieldBuffer {
    pub(crate) terms: BytesInterner,
    /// Per term id.
    postings: Vec<TermBuffer>,
    /// Last document seen in this field (`NO_MORE_DOCS` before the first).
    last_doc: DocId,
    /// Number of distinct documents with at least one token in this field.
    pub(crate) doc_count: u32,
    /// Whether positions (and offsets) are recorded; see [`PostingsBuffer::set_index_options`].
    skip_positions: bool,
}

impl FieldBuffer {
    /// Whether the field has no term.
    pub(crate) fn is_empty(&self) -> bool {
        self.postings.is_empty()
    }
}

#[derive(Debug)]
struct TermBuffer {
    docs: Slice,
    pos: Slice,
    last_doc: DocId,
    /// Occurrences in `last_doc` so far (not yet in `docs`).
    freq: u32,
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
    ///
    /// Returns the term's id in the field: dense, in order of first appearance (see
    /// [`term_id`](Self::term_id)).
    pub fn add(&mut self, field: u32, term: &[u8], doc: DocId, position: u32, offsets: Option<(u32, u32)>) -> u32 {
        let f = field as usize;
        if f >= self.fields.len() {
            self.field_mut(field);
        }
        let fb = &mut self.fields[f];
        let pool = &mut self.pool;
        if fb.last_doc != doc {
            debug_assert!(fb.last_doc == NO_MORE_DOCS || doc > fb.last_doc, "docs must arrive in order per field");
            fb.last_doc = doc;
            fb.doc_count += 1;
        }
        let (id, new) = fb.terms.intern(term);
        if new {
            let mut tb = TermBuffer { docs: Slice::default(), pos: Slice::default(), last_doc: doc, freq: 0 };
            // The first doc's delta is the doc itself.
            push_vint(pool, &mut tb.docs, doc as u64);
            fb.postings.push(tb);
        }
        let tb = &mut fb.postings[id as usize];
        if doc != tb.last_doc {
            debug_assert!(doc > tb.last_doc, "docs must arrive in order per field");
            push_vint(pool, &mut tb.docs, tb.freq as u64);
            push_vint(pool, &mut tb.docs, doc.wrapping_sub(tb.last_doc) as u64);
            tb.last_doc = doc;
            tb.freq = 0;
        }
        tb.freq += 1;
        if fb.skip_positions {
            return id;
        }
        match offsets {
            None => push_vint(pool, &mut tb.pos, (position as u64) << 1),
            Some((start, end)) => {
                push_vint(pool, &mut tb.pos, ((position as u64) << 1) | 1);
                push_vint(pool, &mut tb.pos, start as u64);
                push_vint(pool, &mut tb.pos, end as u64);
            }
        }
        id
    }

    /// The id [`add`](Self::add) returned for `term` in `field`, if the term was added.
    pub fn term_id(&self, field: u32, term: &[u8]) -> Option<u32> {
        self.fields.get(field as usize)?.terms.get(term)
    }

    /// Approximate heap use in bytes (pool, interners and per-term tables by capacity), for
    /// refresh-by-size.
    pub fn mem_bytes(&self) -> usize {
        let fields: usize = self
            .fields
            .iter()
            .map(|f| f.terms.mem_bytes() + f.postings.capacity() * std::mem::size_of::<TermBuffer>())
            .sum();
        self.pool.capacity() + fields + self.fields.capacity() * std::mem::size_of::<FieldBuffer>()
    }

    /// Whether nothing was added.
    pub fn is_empty(&self) -> bool {
        self.fields.iter().all(|f| f.postings.is_empty())
    }

    /// Decodes term `id` of `fb` (a field of this buffer) into flat arrays (freqs and positions
    /// kept whatever the field options; the caller drops what it does not index). Positions of
    /// each doc are sorted.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn decode_term(
        &self,
        fb: &FieldBuffer,
        id: u32,
        docs: &mut Vec<u32>,
        freqs: &mut Vec<u32>,
        positions: &mut Vec<u32>,
        offsets: &mut Vec<(u32, u32)>,
        want_positions: bool,
        want_offsets: bool,
    ) {
        let tb = &fb.postings[id as usize];
        decode_streams(
            tb.docs.bytes(&self.pool),
            tb.pos.bytes(&self.pool),
            tb.freq,
            docs,
            freqs,
            positions,
            offsets,
            want_positions,
            want_offsets,
        );
    }
}

/// Decodes one term's streams (`pending_freq`: the last doc's freq, not in `docs_bytes`).
#[allow(clippy::too_many_arguments)]
fn decode_streams(
    docs_bytes: &[u8],
    pos_bytes: &[u8],
    pending_freq: u32,
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
    let mut d = ByteCursor { b: docs_bytes, i: 0 };
    let mut doc = 0u32;
    loop {
        let delta = d.vint() as u32;
        doc = doc.wrapping_add(delta);
        docs.push(doc);
        if d.done() {
            freqs.push(pending_freq);
            break;
        }
        freqs.push(d.vint() as u32);
    }
    if !want_positions {
        return;
    }
    let mut p = ByteCursor { b: pos_bytes, i: 0 };
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
        // Most values (deltas, small freqs and positions) take one byte.
        if let Some(&byte) = self.b.get(self.i) {
            if byte < 0x80 {
                self.i += 1;
                return byte as u64;
            }
        }
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

#[cfg(test)]
mod interner_tests {
    use std::collections::HashMap;

    use proptest::prelude::*;

    use super::BytesInterner;

    proptest! {
        /// Ids are dense in order of first appearance, `get` and `key` agree with a map, and
        /// `sorted_ids` orders by bytes.
        #[test]
        fn interner_matches_a_map(keys in proptest::collection::vec(proptest::collection::vec(0u8..3, 0..12), 0..300)) {
            let mut it = BytesInterner::new();
            let mut model: HashMap<Vec<u8>, u32> = HashMap::new();
            for k in &keys {
                let next = model.len() as u32;
                let want = *model.entry(k.clone()).or_insert(next);
                prop_assert_eq!(it.intern(k), (want, want == next));
            }
            prop_assert_eq!(it.len(), model.len());
            for (k, &id) in &model {
                prop_assert_eq!(it.get(k), Some(id));
                prop_assert_eq!(it.key(id), &k[..]);
            }
            prop_assert_eq!(it.get(&[9, 9, 9]), None);
            let mut sorted: Vec<(&Vec<u8>, u32)> = model.iter().map(|(k, &v)| (k, v)).collect();
            sorted.sort();
            prop_assert_eq!(it.sorted_ids(), sorted.iter().map(|p| p.1).collect::<Vec<_>>());
        }
    }
}
