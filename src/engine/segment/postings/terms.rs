//! The term dictionary of one field: exact seeks, ordered iteration from a term, and the
//! statistics BM25 needs. Layout: `format/terms.md`.
//!
//! A seek binary-searches the block index (first term of every block, copied at open into a
//! contiguous array of 8-byte keys) and then scans one block of at most [`TERMS_PER_BLOCK`]
//! prefix-compressed entries, comparing suffixes only.

use std::cmp::Ordering;

use super::iter::SegmentPostings;
use super::reader::PostingsReader;
use super::{BLOCK, INDEX_ENTRY_LEN, TERMS_PER_BLOCK};
use crate::engine::codec::ByteReader;
use crate::engine::segment::IndexOptions;
use crate::engine::{Error, Result};

/// Statistics of one field in one segment.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct FieldStats {
    /// Documents with at least one term in the field.
    pub doc_count: u32,
    /// Sum over terms of their total term freq (= number of tokens; = sum_doc_freq without freqs).
    pub sum_total_term_freq: u64,
    /// Sum over terms of their doc freq.
    pub sum_doc_freq: u64,
    /// Number of distinct terms.
    pub num_terms: u64,
}

/// What the dictionary records for one term.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TermInfo {
    /// Documents containing the term.
    pub doc_freq: u32,
    /// Occurrences of the term (= `doc_freq` when freqs are not indexed).
    pub total_term_freq: u64,
    /// Offset of the term's data in `.doc`; for a single-doc term, that doc's id.
    pub(crate) doc_start: u64,
    /// Offset of the term's positions in `.pos` (0 without positions).
    pub(crate) pos_start: u64,
    /// For terms of one block: largest freq and smallest norm byte (skip entries hold them otherwise).
    pub(crate) max_freq: u32,
    pub(crate) min_norm: u8,
}

pub(crate) struct FieldEntry {
    pub number: u32,
    pub opts: IndexOptions,
    pub has_norms: bool,
    pub stats: FieldStats,
    pub blocks_start: u64,
    pub blocks_end: u64,
    pub index_start: u64,
    pub num_blocks: u64,
    pub index_terms_len: u64,
    pub index: BlockIndex,
}

/// The block index of a field, copied at open into two contiguous arrays so a binary search
/// touches one small array: the first 8 bytes of each block's first term (big-endian, zero
/// padded: equal keys fall back to comparing the whole terms), and per block its first term's
/// range in `.tim` and its offset. Validated when built, so lookups need no checks.
#[derive(Debug, Default)]
pub(crate) struct BlockIndex {
    keys: Vec<u64>,
    /// (first term start, first term end, block offset), absolute in `.tim`.
    entries: Vec<(usize, usize, usize)>,
}

#[inline]
fn key_of(term: &[u8]) -> u64 {
    let mut k = [0u8; 8];
    let n = term.len().min(8);
    k[..n].copy_from_slice(&term[..n]);
    u64::from_be_bytes(k)
}

impl BlockIndex {
    /// Reads and checks the `num_blocks` entries of field `e`'s index in `tim`.
    pub(crate) fn build(tim: &[u8], e: &FieldEntry) -> std::result::Result<BlockIndex, (u64, String)> {
        let n = usize::try_from(e.num_blocks).map_err(|_| (e.index_start, "too many blocks".to_string()))?;
        let at = |i: usize| e.index_start as usize + i * INDEX_ENTRY_LEN;
        let entry = |i: usize| -> Option<(u64, u64)> {
            let b = tim.get(at(i)..at(i) + INDEX_ENTRY_LEN)?;
            Some((u32::from_le_bytes(b[0..4].try_into().ok()?) as u64, u64::from_le_bytes(b[4..12].try_into().ok()?)))
        };
        let terms_base = e.index_start + e.num_blocks * INDEX_ENTRY_LEN as u64;
        let mut idx = BlockIndex { keys: Vec::with_capacity(n), entries: Vec::with_capacity(n) };
        for i in 0..n {
            let bad = |msg: String| (at(i) as u64, msg);
            let (term_off, block_off) = entry(i).ok_or_else(|| bad("block index entry past end".into()))?;
            let term_end = if i + 1 < n {
                entry(i + 1).ok_or_else(|| bad("block index entry past end".into()))?.0
            } else {
                e.index_terms_len
            };
            if term_off > term_end
                || term_end > e.index_terms_len
                || block_off < e.blocks_start
                || block_off >= e.blocks_end
            {
                return Err(bad(format!(
                    "block index entry {i} out of range: term bytes [{term_off}, {term_end}), block at {block_off}"
                )));
            }
            let (start, end) = ((terms_base + term_off) as usize, (terms_base + term_end) as usize);
            let term = tim.get(start..end).ok_or_else(|| bad("index term past end".into()))?;
            idx.keys.push(key_of(term));
            idx.entries.push((start, end, block_off as usize));
        }
        Ok(idx)
    }
}

impl std::fmt::Debug for FieldEntry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FieldEntry")
            .field("number", &self.number)
            .field("opts", &self.opts)
            .field("stats", &self.stats)
            .finish()
    }
}

/// The terms of one field of a segment.
#[derive(Debug, Clone, Copy)]
pub struct FieldTerms<'a> {
    pub(crate) r: &'a PostingsReader,
    pub(crate) e: &'a FieldEntry,
}

impl<'a> FieldTerms<'a> {
    /// The field's statistics.
    pub fn stats(&self) -> FieldStats {
        self.e.stats
    }

    /// What the field indexes (as written in this segment).
    pub fn index_options(&self) -> IndexOptions {
        self.e.opts
    }

    fn name(&self) -> &'a str {
        &self.r.names[0]
    }

    /// The last block whose first term is `<= term`, or `None` if `term` sorts before all.
    fn find_block(&self, term: &[u8]) -> Option<usize> {
        let idx = &self.e.index;
        let tim: &[u8] = &self.r.tim;
        let key = key_of(term);
        // Blocks with a smaller key sort before `term`, with a larger one after it; only blocks
        // with an equal key (rarely more than one) need their whole first term compared.
        let lo = idx.keys.partition_point(|&k| k < key);
        let mut n = lo;
        while idx.keys.get(n) == Some(&key) {
            let (s, e, _) = idx.entries[n];
            if tim.get(s..e).unwrap_or(&[]) > term {
                break;
            }
            n += 1;
        }
        n.checked_sub(1)
    }

    fn cursor_at(&self, block: usize) -> Result<TermIter<'a>> {
        let off = self.e.index.entries.get(block).map_or(self.e.blocks_start as usize, |x| x.2) as u64;
        let tim: &'a [u8] = &self.r.tim;
        let area = tim
            .get(..self.e.blocks_end as usize)
            .ok_or_else(|| Error::corrupt(self.name(), off, "term blocks past end"))?;
        let mut r = ByteReader::new(area);
        r.seek(off as usize).map_err(|e| e.in_file(self.name()))?;
        Ok(TermIter {
            ft: *self,
            r,
            left: 0,
            term: Vec::new(),
            last_doc_start: 0,
            last_pos_start: 0,
            pending: None,
            failed: false,
        })
    }

    /// The term's info, or `None` if the field does not have it. Scans one block comparing only
    /// suffixes against the common prefix already matched; stats are fully decoded (and checked)
    /// only for the term found.
    pub fn seek_exact(&self, term: &[u8]) -> Result<Option<TermInfo>> {
        let Some(b) = self.find_block(term) else { return Ok(None) };
        let mut it = self.cursor_at(b)?;
        it.start_block()?;
        let e = self.e;
        let (has_freqs, has_pos, has_norms) = (e.opts.has_freqs(), e.opts.has_positions(), e.has_norms);
        let buf = it.r.rest();
        let base = it.r.offset();
        let corrupt =
            |at: usize| Error::corrupt(self.name(), base + at as u64, "term block entry past end or malformed");
        let mut at = 0usize;
        // Bytes the previous term of the block shares with `term` (it sorts before `term`).
        let mut matched = 0usize;
        let (mut doc_acc, mut pos_acc) = (0u64, 0u64);
        for i in 0..it.left {
            let entry_at = at;
            let prefix = vint(buf, &mut at).ok_or_else(|| corrupt(at))? as usize;
            let suf_len = vint(buf, &mut at).ok_or_else(|| corrupt(at))? as usize;
            let suffix = at.checked_add(suf_len).and_then(|end| buf.get(at..end)).ok_or_else(|| corrupt(at))?;
            at += suf_len;
            let ord = if prefix > matched {
                Ordering::Less
            } else if prefix < matched {
                Ordering::Greater
            } else {
                let rest = term.get(matched..).unwrap_or(&[]);
                let c = suffix.iter().zip(rest).take_while(|(x, y)| x == y).count();
                matched += c;
                match (suffix.get(c), rest.get(c)) {
                    (None, None) => Ordering::Equal,
                    (None, Some(_)) => Ordering::Less,
                    (Some(_), None) => Ordering::Greater,
                    (Some(x), Some(y)) => x.cmp(y),
                }
            };
            match ord {
                Ordering::Greater => return Ok(None),
                Ordering::Equal => {
                    // Decode this entry with every check, from the state before it.
                    it.r.seek(it.r.pos() + entry_at).map_err(|e| e.in_file(self.name()))?;
                    it.left -= i;
                    it.term.clear();
                    it.term.extend_from_slice(term.get(..prefix).unwrap_or(&[]));
                    it.last_doc_start = doc_acc;
                    it.last_pos_start = pos_acc;
                    return it.decode_one().map(Some);
                }
                Ordering::Less => {
                    // Skip the stats, keeping the running offsets.
                    let df = vint(buf, &mut at).ok_or_else(|| corrupt(at))?;
                    if has_freqs {
                        vint(buf, &mut at).ok_or_else(|| corrupt(at))?;
                    }
                    let d = vint(buf, &mut at).ok_or_else(|| corrupt(at))?;
                    if df > 1 {
                        doc_acc = doc_acc.wrapping_add(d);
                    }
                    if has_pos {
                        pos_acc = pos_acc.wrapping_add(vint(buf, &mut at).ok_or_else(|| corrupt(at))?);
                    }
                    if df as usize <= BLOCK {
                        if has_freqs {
                            vint(buf, &mut at).ok_or_else(|| corrupt(at))?;
                        }
                        if has_norms {
                            at += 1;
                        }
                    }
                }
            }
        }
        Ok(None)
    }

    /// Terms `>= from` in byte order.
    pub fn iter_from(&self, from: &[u8]) -> Result<TermIter<'a>> {
        let block = self.find_block(from).unwrap_or(0);
        let mut it = self.cursor_at(block)?;
        while let Some(info) = it.advance_raw()? {
            if it.term.as_slice() >= from {
                it.pending = Some(info);
                break;
            }
        }
        Ok(it)
    }

    /// All terms in byte order.
    pub fn iter(&self) -> Result<TermIter<'a>> {
        self.iter_from(&[])
    }

    /// The postings of a term of this field; `positions` asks for positions (ignored when the
    /// field has none).
    pub fn postings(&self, info: &TermInfo, positions: bool) -> Result<SegmentPostings<'a>> {
        SegmentPostings::new(self.r, self.e, info, positions)
    }
}

/// Walks a field's terms in byte order. `next` returns the term (borrowed until the next call).
#[derive(Debug)]
pub struct TermIter<'a> {
    ft: FieldTerms<'a>,
    r: ByteReader<'a>,
    left: usize,
    term: Vec<u8>,
    last_doc_start: u64,
    last_pos_start: u64,
    pending: Option<TermInfo>,
    failed: bool,
}

impl<'a> TermIter<'a> {
    /// The next term and its info, `None` at the end. After an error the iterator stays ended.
    #[allow(clippy::should_implement_trait)]
    pub fn next(&mut self) -> Result<Option<(&[u8], TermInfo)>> {
        if let Some(info) = self.pending.take() {
            return Ok(Some((&self.term, info)));
        }
        match self.advance_raw()? {
            Some(info) => Ok(Some((&self.term, info))),
            None => Ok(None),
        }
    }

    fn advance_raw(&mut self) -> Result<Option<TermInfo>> {
        if self.failed {
            return Ok(None);
        }
        let res = (|| {
            if self.left == 0 {
                if self.r.offset() >= self.ft.e.blocks_end {
                    return Ok(None);
                }
                self.start_block()?;
            }
            self.decode_one().map(Some)
        })();
        if res.is_err() {
            self.failed = true;
        }
        res
    }

    fn start_block(&mut self) -> Result<()> {
        let name = self.ft.name();
        let n = self.r.vu64().map_err(|e| e.in_file(name))?;
        if n == 0 || n > TERMS_PER_BLOCK as u64 {
            return Err(Error::corrupt(
                name,
                self.r.offset(),
                format!("term block holds {n} terms, expected 1..={TERMS_PER_BLOCK}"),
            ));
        }
        self.left = n as usize;
        self.term.clear();
        self.last_doc_start = 0;
        self.last_pos_start = 0;
        Ok(())
    }

    fn decode_one(&mut self) -> Result<TermInfo> {
        let name = self.ft.name();
        self.decode_inner().map_err(|e| e.in_file(name))
    }

    fn decode_inner(&mut self) -> Result<TermInfo> {
        let e = self.ft.e;
        let max_doc = self.ft.r.max_doc;
        let r = &mut self.r;
        let prefix = r.len(self.term.len())?;
        let suffix = r.bytes()?;
        self.term.truncate(prefix);
        self.term.extend_from_slice(suffix);
        let df = r.vu32()?;
        if df == 0 || df > max_doc {
            return Err(r.error(format!("doc freq {df} outside 1..={max_doc}")));
        }
        let ttf = if e.opts.has_freqs() {
            (df as u64).checked_add(r.vu64()?).ok_or_else(|| r.error("total term freq overflows"))?
        } else {
            df as u64
        };
        let doc_start = if df == 1 {
            let d = r.vu64()?;
            if d >= max_doc as u64 || ttf > u32::MAX as u64 {
                return Err(r.error(format!("single doc {d} >= max_doc {max_doc} or freq {ttf} too large")));
            }
            d
        } else {
            let v = self.last_doc_start.checked_add(r.vu64()?).ok_or_else(|| r.error("doc offset overflows"))?;
            self.last_doc_start = v;
            v
        };
        let pos_start = if e.opts.has_positions() {
            let v = self.last_pos_start.checked_add(r.vu64()?).ok_or_else(|| r.error("position offset overflows"))?;
            self.last_pos_start = v;
            v
        } else {
            0
        };
        let (mut max_freq, mut min_norm) = (1u32, 1u8);
        if df as usize <= BLOCK {
            if e.opts.has_freqs() {
                max_freq = r.vu32()?;
                if max_freq == 0 {
                    return Err(r.error("max freq 0"));
                }
            }
            if e.has_norms {
                min_norm = r.u8()?;
            }
        } else {
            max_freq = 0;
            min_norm = u8::MAX;
        }
        self.left -= 1;
        Ok(TermInfo { doc_freq: df, total_term_freq: ttf, doc_start, pos_start, max_freq, min_norm })
    }
}

/// A LEB128 varint of at most 10 bytes at `*at`, advancing `*at`; `None` past the end or too long.
#[inline]
fn vint(buf: &[u8], at: &mut usize) -> Option<u64> {
    let mut v = 0u64;
    for shift in (0..70).step_by(7) {
        let b = *buf.get(*at)?;
        *at += 1;
        v |= ((b & 0x7f) as u64) << shift;
        if b & 0x80 == 0 {
            return Some(v);
        }
    }
    None
}
