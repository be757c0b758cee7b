//! The term dictionary of one field: exact seeks, ordered iteration from a term, and the
//! statistics BM25 needs. Layout: `format/terms.md`.
//!
//! A seek binary-searches the fixed-width block index (first term of every block) and then
//! scans one block of at most [`TERMS_PER_BLOCK`] prefix-compressed entries.

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
}

impl std::fmt::Debug for FieldEntry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FieldEntry").field("number", &self.number).field("opts", &self.opts).field("stats", &self.stats).finish()
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

    /// The first term of block `i` and the block's offset.
    fn index_entry(&self, i: u64) -> Result<(&'a [u8], u64)> {
        let e = self.e;
        let tim: &'a [u8] = &self.r.tim;
        let at = e.index_start + i * INDEX_ENTRY_LEN as u64;
        let entry = |i: u64| -> Option<(u64, u64)> {
            let at = (e.index_start + i * INDEX_ENTRY_LEN as u64) as usize;
            let b = tim.get(at..at + INDEX_ENTRY_LEN)?;
            let term_off = u32::from_le_bytes(b[0..4].try_into().ok()?) as u64;
            let block_off = u64::from_le_bytes(b[4..12].try_into().ok()?);
            Some((term_off, block_off))
        };
        let bad = |msg: String| Error::corrupt(self.name(), at, msg);
        let (term_off, block_off) = entry(i).ok_or_else(|| bad("block index entry past end".into()))?;
        let term_end = if i + 1 < e.num_blocks {
            entry(i + 1).ok_or_else(|| bad("block index entry past end".into()))?.0
        } else {
            e.index_terms_len
        };
        let terms_base = e.index_start + e.num_blocks * INDEX_ENTRY_LEN as u64;
        if term_off > term_end || term_end > e.index_terms_len || block_off < e.blocks_start || block_off >= e.blocks_end {
            return Err(bad(format!("block index entry {i} out of range: term bytes [{term_off}, {term_end}), block at {block_off}")));
        }
        let term = tim
            .get((terms_base + term_off) as usize..(terms_base + term_end) as usize)
            .ok_or_else(|| bad("index term past end".into()))?;
        Ok((term, block_off))
    }

    /// The last block whose first term is `<= term`, or `None` if `term` sorts before all.
    fn find_block(&self, term: &[u8]) -> Result<Option<u64>> {
        let (mut lo, mut hi) = (0u64, self.e.num_blocks);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if self.index_entry(mid)?.0 <= term {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        Ok(lo.checked_sub(1))
    }

    fn cursor_at(&self, block: u64) -> Result<TermIter<'a>> {
        let (_, off) = self.index_entry(block)?;
        let tim: &'a [u8] = &self.r.tim;
        let area = tim.get(..self.e.blocks_end as usize).ok_or_else(|| Error::corrupt(self.name(), off, "term blocks past end"))?;
        let mut r = ByteReader::new(area);
        r.seek(off as usize).map_err(|e| e.in_file(self.name()))?;
        Ok(TermIter { ft: *self, r, left: 0, term: Vec::new(), last_doc_start: 0, last_pos_start: 0, pending: None, failed: false })
    }

    /// The term's info, or `None` if the field does not have it.
    pub fn seek_exact(&self, term: &[u8]) -> Result<Option<TermInfo>> {
        let Some(b) = self.find_block(term)? else { return Ok(None) };
        let mut it = self.cursor_at(b)?;
        it.start_block()?;
        while it.left > 0 {
            let info = it.decode_one()?;
            match it.term.as_slice().cmp(term) {
                Ordering::Less => {}
                Ordering::Equal => return Ok(Some(info)),
                Ordering::Greater => return Ok(None),
            }
        }
        Ok(None)
    }

    /// Terms `>= from` in byte order.
    pub fn iter_from(&self, from: &[u8]) -> Result<TermIter<'a>> {
        let block = self.find_block(from)?.unwrap_or(0);
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
            return Err(Error::corrupt(name, self.r.offset(), format!("term block holds {n} terms, expected 1..={TERMS_PER_BLOCK}")));
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
