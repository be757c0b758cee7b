//! Iterating one term's postings. Layout: `format/postings.md`, `format/positions.md`.
//!
//! A whole 128-doc block is decoded at once into `docs`/`freqs` (bit-unpacking, then the block's
//! base added to a frame of reference's offsets, or a prefix sum over gaps); `next` is then an
//! array step. `advance` first looks in the
//! loaded block, otherwise walks the skip entries (fixed width, last doc of each block) and
//! decodes only the block that holds the target. Positions are decoded lazily per document.
//!
//! Two moves leave the iterator on a doc of a block it does not hold (the *probed* state):
//! `probe` searches a frame of reference's packed offsets in place and reads one freq, and
//! `move_and_read` decodes a block straight into the caller's arrays. Anything that needs the
//! block afterwards decodes it again (`unprobe`).

use super::impacts;
use super::reader::PostingsReader;
use super::terms::{FieldEntry, TermInfo};
use super::top_docs;
use super::unpack::{unpack_block, unpack_block_plus1, unpack_lanes, unpack_lanes_plus1};
use super::{
    num_blocks, skip_entry_len, BLOCK, FOR_BLOCK, SKIP_DOC_OFF, SKIP_IMP_OFF, SKIP_MAX_FREQ, SKIP_MIN_NORM,
    SKIP_POS_OFF,
};
use crate::engine::codec::bitpack::packed_len;
use crate::engine::codec::bitpack::unpack32;
use crate::engine::codec::{unzigzag, ByteReader, FOOTER_LEN};
use crate::engine::segment::{DocId, Postings, NO_MORE_DOCS};
use crate::engine::{Error, Result};

/// The postings of one term in one segment. Implements [`Postings`].
pub struct SegmentPostings<'a> {
    doc_bytes: &'a [u8],
    pos_bytes: &'a [u8],
    doc_name: &'a str,
    pos_name: &'a str,
    max_doc: u32,
    has_freqs: bool,
    has_pos: bool,
    has_off: bool,
    has_norms: bool,
    /// Unpacks a full block of gaps: four lanes (`.doc` version 2 on) or sequential (version 1).
    unpack_full: fn(&[u8], u8, &mut [u32; BLOCK]) -> Option<usize>,
    /// The same for a full block of freqs, adding back the 1 they are stored without.
    unpack_full_freqs: fn(&[u8], u8, &mut [u32; BLOCK]) -> Option<usize>,
    /// Multi-block terms store their top docs (`.doc` version 3 on).
    has_top: bool,
    /// Full doc blocks may be frames of reference (`.doc` version 4 on).
    doc_for: bool,
    df: u32,
    nb: usize,
    singleton: bool,
    /// The skip entries (exactly `nb * skip_w` bytes, empty for one block).
    skip: &'a [u8],
    skip_w: usize,
    blocks_start: usize,
    pos_start: u64,
    single_max_freq: u32,
    single_min_norm: u8,
    single_doc: u32,
    ttf: u64,

    docs: [u32; BLOCK],
    freqs: [u32; BLOCK],
    n: usize,
    idx: usize,
    block: usize,
    doc: DocId,
    shallow: usize,
    pos_cursor: usize,
    pos_doc: usize,
    /// Where the positions of doc `pos_doc - 1` start (to read them again).
    pos_last: usize,
    /// Single-block terms: where the block's impact list starts (set when the block is loaded).
    single_imp_at: usize,
    /// On a doc of block `block` without holding the block: after a [`Postings::probe`] that
    /// read the block in place, or a [`Postings::move_and_read`] that decoded it into the
    /// caller's arrays (then on its last doc). `docs` is not this block's (`n == 0`), `doc` is
    /// the doc, `idx` its index in the block and `freqs[idx]` its freq. Anything else decodes
    /// the block first ([`Self::unprobe`]).
    probed: bool,
    /// The layout of the last block probed (`block == usize::MAX`: none yet).
    pr: Probed,
    error: Option<Error>,
}

/// Where a full frame-of-reference block's packed offsets and freqs lie, read once per block
/// for probes ([`Postings::probe`]), which then read single values in place.
#[derive(Clone, Copy, Debug)]
pub(super) struct Probed {
    block: usize,
    /// The packed offsets (after the width byte) and their width (1 to 32) and mask.
    off: usize,
    bits: u32,
    mask: u32,
    /// The block's first possible doc (its offsets count from it) and its last doc.
    base: DocId,
    last: DocId,
    /// The packed freqs (minus 1) and their width (0 to 31) and mask.
    foff: usize,
    fbits: u32,
    fmask: u32,
}

impl Probed {
    const NONE: Probed =
        Probed { block: usize::MAX, off: 0, bits: 0, mask: 0, base: 0, last: 0, foff: 0, fbits: 0, fmask: 0 };

    /// A layout for a block at byte 1 (after its width byte) with freqs at `foff`.
    #[cfg(test)]
    pub(super) fn for_test(bits: u32, base: DocId, last: DocId, foff: usize, fbits: u32) -> Probed {
        Probed { block: 0, off: 1, bits, mask: low_bits(bits), base, last, foff, fbits, fmask: low_bits(fbits) }
    }

    /// The packed values at `at` of `bits` bits, with the row after them ([`lane_value`]);
    /// `probe_layout` checked that they lie within `bytes` (zeros otherwise, never a panic).
    #[inline(always)]
    fn packed(bytes: &[u8], at: usize, bits: u32) -> &[u8] {
        static ZEROS: [u8; LANES_READ] = [0; LANES_READ];
        bytes.get(at..at + 16 * bits as usize + 16).unwrap_or(&ZEROS)
    }

    /// Offset `i` of the block.
    #[inline]
    fn offset_at(&self, bytes: &[u8], i: usize) -> u32 {
        lane_value(Self::packed(bytes, self.off, self.bits), self.bits, self.mask, i)
    }

    /// The freq of doc `i` of the block.
    #[inline]
    pub(super) fn freq(&self, bytes: &[u8], i: usize) -> u32 {
        if self.fbits == 0 {
            return 1;
        }
        lane_value(Self::packed(bytes, self.foff, self.fbits), self.fbits, self.fmask, i).wrapping_add(1)
    }

    /// The first doc `>= target` (`base <= target <= last`) and its index: an interpolation
    /// guess (docs of a block spread about evenly over its range), then galloping from the
    /// guess toward the answer and a binary search in the last stride, so a badly skewed block
    /// costs a logarithmic number of reads. The offset before the index found (if any) is
    /// always one read and found below the target. Damaged offsets give some doc; the caller
    /// checks it.
    #[inline]
    pub(super) fn seek(&self, bytes: &[u8], target: DocId) -> (usize, DocId) {
        let t = target.wrapping_sub(self.base);
        let span = self.last.wrapping_sub(self.base).max(1);
        let g = ((t as u64 * (BLOCK as u64 - 1)) / span as u64).min(BLOCK as u64 - 1) as usize;
        let p = Self::packed(bytes, self.off, self.bits);
        let v = |i: usize| lane_value(p, self.bits, self.mask, i);
        // The answer lies in lo..=hi, and v(hi) >= t (v(BLOCK - 1) is the last doc's offset).
        let (mut lo, mut hi);
        if v(g) >= t {
            hi = g;
            lo = g;
            let mut step = 1;
            loop {
                if lo < step {
                    lo = 0;
                    break;
                }
                let p = lo - step;
                if v(p) < t {
                    lo = p + 1;
                    break;
                }
                hi = p;
                lo = p;
                step *= 2;
            }
        } else {
            lo = g + 1;
            hi = BLOCK - 1;
            let mut step = 1;
            while lo + step - 1 < BLOCK - 1 {
                let p = lo + step - 1;
                if v(p) >= t {
                    hi = p;
                    break;
                }
                lo = p + 1;
                step *= 2;
            }
        }
        while lo < hi {
            let mid = (lo + hi) / 2;
            if v(mid) >= t {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        let i = lo.min(BLOCK - 1);
        (i, self.base.wrapping_add(v(i)))
    }
}

impl std::fmt::Debug for SegmentPostings<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SegmentPostings")
            .field("df", &self.df)
            .field("doc", &self.doc)
            .field("block", &self.block)
            .finish()
    }
}

impl<'a> SegmentPostings<'a> {
    pub(crate) fn new(r: &'a PostingsReader, e: &FieldEntry, info: &TermInfo, positions: bool) -> Result<Self> {
        let doc_bytes: &'a [u8] = &r.doc[..r.doc.len() - FOOTER_LEN];
        let pos_bytes: &'a [u8] = &r.pos[..r.pos.len() - FOOTER_LEN];
        let has_pos = positions && e.opts.has_positions();
        let df = info.doc_freq;
        let nb = num_blocks(df);
        let skip_w = skip_entry_len(e.opts.has_positions());
        let singleton = df == 1;
        let (skip, blocks_start) = if singleton {
            (&doc_bytes[..0], 0)
        } else {
            let skip_len = if nb > 1 { nb * skip_w } else { 0 };
            let start = usize::try_from(info.doc_start).unwrap_or(usize::MAX);
            let skip = start.checked_add(skip_len).and_then(|end| doc_bytes.get(start..end)).ok_or_else(|| {
                Error::corrupt(
                    r.names[1].as_str(),
                    info.doc_start,
                    format!("term postings at {} with {nb} skip entries past end {}", info.doc_start, doc_bytes.len()),
                )
            })?;
            (skip, start + skip_len)
        };
        if info.pos_start > pos_bytes.len() as u64 {
            return Err(Error::corrupt(r.names[2].as_str(), info.pos_start, "term positions start past end"));
        }
        let p = SegmentPostings {
            doc_bytes,
            pos_bytes,
            doc_name: &r.names[1],
            pos_name: &r.names[2],
            max_doc: r.max_doc,
            has_freqs: e.opts.has_freqs(),
            has_pos,
            has_off: e.opts.has_offsets(),
            has_norms: e.has_norms,
            unpack_full: if r.doc_lanes { unpack_lanes } else { unpack_block },
            unpack_full_freqs: if r.doc_lanes { unpack_lanes_plus1 } else { unpack_block_plus1 },
            has_top: r.doc_top,
            doc_for: r.doc_for,
            df,
            nb,
            singleton,
            skip,
            skip_w,
            blocks_start,
            pos_start: info.pos_start,
            single_max_freq: info.max_freq,
            single_min_norm: info.min_norm,
            single_doc: if singleton { info.doc_start as u32 } else { 0 },
            ttf: info.total_term_freq,
            docs: [0; BLOCK],
            freqs: [1; BLOCK],
            n: 0,
            idx: usize::MAX,
            block: usize::MAX,
            doc: 0,
            shallow: 0,
            pos_cursor: 0,
            pos_doc: 0,
            pos_last: 0,
            single_imp_at: usize::MAX,
            probed: false,
            pr: Probed::NONE,
            error: None,
        };
        Ok(p)
    }

    #[inline]
    fn skip_u32(&self, b: usize, at: usize) -> u32 {
        let o = b * self.skip_w + at;
        let bytes =
            self.skip.get(o..o + 4).expect("skip entry index < nb and the skip array length was checked in new()");
        u32::from_le_bytes(bytes.try_into().expect("4 bytes"))
    }

    #[inline]
    fn skip_u64(&self, b: usize, at: usize) -> u64 {
        let o = b * self.skip_w + at;
        let bytes =
            self.skip.get(o..o + 8).expect("skip entry index < nb and the skip array length was checked in new()");
        u64::from_le_bytes(bytes.try_into().expect("8 bytes"))
    }

    /// Last doc of block `b` (multi-block terms only).
    #[inline]
    fn last_doc_of(&self, b: usize) -> u32 {
        self.skip_u32(b, 0)
    }

    fn fail(&mut self, e: Error) -> DocId {
        if self.error.is_none() {
            self.error = Some(e);
        }
        self.exhaust()
    }

    fn exhaust(&mut self) -> DocId {
        self.probed = false;
        self.n = 0;
        self.idx = usize::MAX;
        self.block = self.nb;
        self.shallow = self.nb;
        self.doc = NO_MORE_DOCS;
        NO_MORE_DOCS
    }

    /// The first block from `from` on whose last doc is `>= target` (`nb` if none; multi-block
    /// terms). The next two blocks are looked at first (most moves are short); farther targets
    /// are found by galloping over the skip entries and a binary search in the last stride.
    fn first_block_reaching(&self, from: usize, target: DocId) -> usize {
        let nb = self.nb;
        // Block-max searches move the skip data (`shallow`) to the target's block before the
        // iterator follows: start there when the block before it ends below the target (last
        // docs increase, so then every block between does).
        let s = self.shallow;
        let from = if s > from && s < nb && self.last_doc_of(s - 1) < target { s } else { from };
        let mut b = from;
        for _ in 0..2 {
            if b >= nb || self.last_doc_of(b) >= target {
                return b;
            }
            b += 1;
        }
        // last_doc_of(b - 1) < target: gallop to a block that reaches it (or the end).
        let mut lo = b;
        let mut step = 2;
        let mut hi = loop {
            let probe = lo + step;
            if probe >= nb {
                break nb;
            }
            if self.last_doc_of(probe) >= target {
                break probe;
            }
            lo = probe + 1;
            step *= 2;
        };
        // The answer is in lo..=hi (hi == nb: none before the end).
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if self.last_doc_of(mid) >= target {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        lo
    }

    /// Decodes block `b` into `docs`/`freqs`.
    fn load_block(&mut self, b: usize) -> Result<()> {
        self.block = b;
        self.probed = false;
        self.idx = 0;
        self.pos_doc = 0;
        if self.singleton {
            self.docs[0] = self.single_doc;
            if self.has_freqs {
                self.freqs[0] = self.ttf as u32;
            }
            self.n = 1;
            self.pos_cursor = self.pos_start as usize;
            return Ok(());
        }
        let (n, end) = self.decode_block(b, None)?;
        if self.nb == 1 {
            self.single_imp_at = end;
        }
        self.n = n;
        if self.has_pos {
            let rel = if self.nb > 1 { self.skip_u64(b, SKIP_POS_OFF) } else { 0 };
            let p = self.pos_start.checked_add(rel).filter(|&p| p <= self.pos_bytes.len() as u64);
            self.pos_cursor = p
                .ok_or_else(|| Error::corrupt(self.pos_name, self.pos_start, format!("block {b} positions past end")))?
                as usize;
        }
        Ok(())
    }

    /// Decodes the docs and freqs of block `b` (not of a singleton) into `out`, or into the
    /// iterator's own buffers when `None`, checking them against the skip entry; returns how
    /// many docs, and where the block's bytes end. Changes no other state of the iterator.
    fn decode_block(
        &mut self,
        b: usize,
        out: Option<(&mut [u32; BLOCK], &mut [u32; BLOCK])>,
    ) -> Result<(usize, usize)> {
        let (off, n, base) = if self.nb == 1 {
            (self.blocks_start, self.df as usize, 0u64)
        } else {
            let off =
                usize::try_from(self.skip_u64(b, SKIP_DOC_OFF)).unwrap_or(usize::MAX).saturating_add(self.blocks_start);
            let n = if b + 1 == self.nb { self.df as usize - b * BLOCK } else { BLOCK };
            let base = if b == 0 { 0 } else { self.last_doc_of(b - 1) as u64 + 1 };
            (off, n, base)
        };
        let skip_last = if self.nb > 1 { Some(self.last_doc_of(b)) } else { None };
        let name = self.doc_name;
        let (doc_bytes, doc_for, max_doc, has_freqs) = (self.doc_bytes, self.doc_for, self.max_doc, self.has_freqs);
        let (unpack_full, unpack_full_freqs) = (self.unpack_full, self.unpack_full_freqs);
        let external = out.is_some();
        let (docs, freqs) = match out {
            Some((d, f)) => (d, f),
            None => (&mut self.docs, &mut self.freqs),
        };
        let bad = |at: usize, msg: String| Error::corrupt(name, at as u64, msg);
        let mut r =
            ByteReader::at(doc_bytes.get(off..).ok_or_else(|| bad(off, "block offset past end".into()))?, off as u64);
        let width = r.u8().map_err(|e| e.in_file(name))?;
        // A frame of reference (version 4 on, full blocks only) holds offsets from `base`, in
        // four lanes; otherwise the block holds gaps.
        let frame = width & FOR_BLOCK != 0;
        if frame && (!doc_for || n != BLOCK) {
            return Err(bad(off, format!("doc block width byte {width:#x}: a frame of reference where gaps belong")));
        }
        let bits = width & !FOR_BLOCK;
        let used = if n == BLOCK {
            let unpack = if frame { unpack_lanes } else { unpack_full };
            unpack(r.rest(), bits, docs)
                .ok_or_else(|| bad(off, format!("doc block of width {bits} past end or too wide")))?
        } else {
            unpack32(r.rest(), bits, &mut docs[..n]).map_err(|e| bad(off, e.to_string()))?
        };
        r.skip(used).map_err(|e| e.in_file(name))?;
        let last = if !frame {
            prefix_sum(&mut docs[..n], base, bits)
        } else if rebase(docs, base) {
            docs[BLOCK - 1] as u64
        } else {
            return Err(bad(off, format!("block {b}: docs not increasing from {base}")));
        };
        if last >= max_doc as u64 || skip_last.is_some_and(|l| last != l as u64) {
            return Err(bad(
                off,
                format!(
                    "block {b} ends at doc {last}, max_doc {max_doc} (skip data says {})",
                    skip_last.map_or(-1, |l| l as i64)
                ),
            ));
        }
        if has_freqs {
            let at = r.offset() as usize;
            let bits = r.u8().map_err(|e| e.in_file(name))?;
            if bits > 31 {
                return Err(bad(at, format!("freq bit width {bits} exceeds 31")));
            }
            let used = if n == BLOCK {
                unpack_full_freqs(r.rest(), bits, freqs).ok_or_else(|| bad(at, "freq block past end".into()))?
            } else {
                let used = unpack32(r.rest(), bits, &mut freqs[..n]).map_err(|e| bad(at, e.to_string()))?;
                for f in &mut freqs[..n] {
                    *f += 1;
                }
                used
            };
            r.skip(used).map_err(|e| e.in_file(name))?;
        } else if external {
            // The iterator's own freqs are all 1 from the start for a field without them.
            freqs[..n].fill(1);
        }
        Ok((n, r.offset() as usize))
    }

    /// The first block that can hold a doc after the current one: the current block while it is
    /// probed (not held, so it may still hold a later doc), else the next.
    #[inline]
    fn next_unread_block(&self) -> usize {
        if self.probed {
            self.block
        } else {
            self.block.wrapping_add(1)
        }
    }

    /// The number of docs in block `b` (multi-block terms).
    fn block_len(&self, b: usize) -> usize {
        if b + 1 == self.nb {
            self.df as usize - b * BLOCK
        } else {
            BLOCK
        }
    }

    /// The tail of `advance`: decodes block `b` (the first reaching `target`) and moves to its
    /// first doc `>= target`.
    fn advance_into(&mut self, b: usize, target: DocId) -> DocId {
        if let Err(e) = self.load_block(b) {
            return self.fail(e);
        }
        if self.docs[self.n - 1] < target {
            // Only possible for a single-block term.
            return self.exhaust();
        }
        let i = first_at_least(&self.docs, 0, self.n, target);
        self.idx = i;
        self.doc = self.docs[i];
        self.doc
    }

    /// For a reader of the current doc's block (positions, block reads): decodes a probed
    /// block; whether the iterator now holds its doc's block. Off the hot path (the block is
    /// normally held).
    #[cold]
    fn hold_probed_block(&mut self) -> bool {
        if !self.probed {
            return false;
        }
        match self.unprobe() {
            Ok(()) => true,
            Err(e) => {
                self.fail(e);
                false
            }
        }
    }

    /// Decodes the probed block and puts the iterator on the probed doc's index in it.
    #[cold]
    fn unprobe(&mut self) -> Result<()> {
        let i = self.idx & (BLOCK - 1);
        self.load_block(self.block)?;
        // A probed doc's index lies in its block (`min` only guards damaged skip data).
        self.idx = i.min(self.n.saturating_sub(1));
        self.doc = self.docs[self.idx];
        Ok(())
    }

    /// Reads and checks the layout of block `b` for probes ([`Probed`]); whether it can be
    /// probed: a full frame-of-reference block whose packed offsets and freqs lie within the
    /// file and whose last offset gives the last doc of its skip entry. Anything else is left
    /// to decoding, which reports what is wrong.
    fn probe_layout(&mut self, b: usize) -> bool {
        let layout = (|| {
            if b + 1 == self.nb && self.df as usize % BLOCK != 0 {
                return None;
            }
            let off = usize::try_from(self.skip_u64(b, SKIP_DOC_OFF)).ok()?.checked_add(self.blocks_start)?;
            let width = *self.doc_bytes.get(off)?;
            let bits = (width & !FOR_BLOCK) as u32;
            if width & FOR_BLOCK == 0 || bits == 0 || bits > 32 {
                return None;
            }
            let len = 16 * bits as usize;
            let base = if b == 0 { 0 } else { self.last_doc_of(b - 1).checked_add(1)? };
            let last = self.last_doc_of(b);
            let (fbits, foff) = if self.has_freqs {
                let at = off + 1 + len;
                let fbits = *self.doc_bytes.get(at)? as u32;
                if fbits > 31 {
                    return None;
                }
                (fbits, at + 1)
            } else {
                (0, 0)
            };
            // Reads go a row past the packed values ([`lane_value`]).
            let end = if self.has_freqs { foff + 16 * fbits as usize } else { off + 1 + len };
            if end + 16 > self.doc_bytes.len() {
                return None;
            }
            let pr = Probed {
                block: b,
                off: off + 1,
                bits,
                mask: low_bits(bits),
                base,
                last,
                foff,
                fbits,
                fmask: low_bits(fbits),
            };
            (last < self.max_doc && base.checked_add(pr.offset_at(self.doc_bytes, BLOCK - 1)) == Some(last))
                .then_some(pr)
        })();
        match layout {
            Some(pr) => {
                self.pr = pr;
                true
            }
            None => false,
        }
    }

    /// The largest freq and smallest norm byte over all blocks of the term: with BM25 they bound
    /// every score of the term in this segment (MaxScore's per-term bound). O(blocks) over the
    /// skip entries, no decoding.
    pub fn term_max(&self) -> (u32, u8) {
        let (mut f, mut n) = if self.nb <= 1 { (self.single_max_freq, self.single_min_norm) } else { (0, u8::MAX) };
        if self.nb > 1 {
            for b in 0..self.nb {
                f = f.max(self.skip_u32(b, SKIP_MAX_FREQ));
                n = n.min(
                    self.skip
                        .get(b * self.skip_w + SKIP_MIN_NORM)
                        .copied()
                        .expect("b < nb and the skip array length was checked in new()"),
                );
            }
        }
        (if self.has_freqs { f } else { 1 }, if self.has_norms { n } else { 1 })
    }

    /// Where the impact list of block `b` starts in `.doc` (multi-block terms), or of the only
    /// block (single-block terms: right after the block, found from its two bit widths).
    fn impacts_at(&self, b: usize) -> Result<usize> {
        if self.nb > 1 {
            let rel = usize::try_from(self.skip_u64(b, SKIP_IMP_OFF)).unwrap_or(usize::MAX);
            return Ok(rel.saturating_add(self.blocks_start));
        }
        if self.single_imp_at != usize::MAX {
            return Ok(self.single_imp_at);
        }
        let n = self.df as usize;
        let bad = |at: usize| Error::corrupt(self.doc_name, at as u64, "postings block past end");
        let at = self.blocks_start;
        let width = *self.doc_bytes.get(at).ok_or_else(|| bad(at))?;
        // A full block of version 4 on may be a frame of reference: the same packed size.
        let bits = if self.doc_for && n == BLOCK { width & !FOR_BLOCK } else { width };
        let mut end = at + 1 + packed_len(n, bits.min(32));
        if self.has_freqs {
            let bits = *self.doc_bytes.get(end).ok_or_else(|| bad(end))?;
            end += 1 + packed_len(n, bits.min(32));
        }
        Ok(end)
    }

    /// A term of 2+ blocks: skips the last block's impact list (at `at`) and decodes the term's
    /// (`TermImpacts`, which follows it) into `out`; returns where that ends (where `TopDocs`
    /// starts from version 3 on).
    fn read_term_impacts(&self, at: usize, out: &mut Vec<(u32, u8)>) -> Result<usize> {
        let end = self.read_impacts(at, out)?;
        self.read_impacts(end, out)
    }

    /// Decodes the impact list at `at`; returns where it ends.
    fn read_impacts(&self, at: usize, out: &mut Vec<(u32, u8)>) -> Result<usize> {
        let bytes = self.doc_bytes.get(at..).unwrap_or(&[]);
        let used = impacts::decode(bytes, out).map_err(|m| Error::corrupt(self.doc_name, at as u64, m))?;
        for p in out.iter_mut() {
            *p = (if self.has_freqs { p.0 } else { 1 }, if self.has_norms { p.1 } else { 1 });
        }
        Ok(at + used)
    }

    /// [`Postings::top_docs`] with damage reported: a term of one block gives all of its docs
    /// (when the iterator sits in that block), a longer one its stored list. The list follows the term's `TermImpacts`,
    /// which follow the last block's impacts; its freqs are at most the term's largest (the
    /// last `TermImpacts` pair) and it carries its own CRC32 (`top_docs.rs`).
    pub(crate) fn try_top_docs(&self, out: &mut Vec<(DocId, u32)>) -> Result<()> {
        out.clear();
        if self.nb == 1 {
            // One block, already decoded while the iterator sits in it: all of its docs.
            if self.block == 0 && self.n == self.df as usize {
                out.extend(self.docs[..self.n].iter().copied().zip(self.freqs[..self.n].iter().map(|&f| {
                    if self.has_freqs {
                        f
                    } else {
                        1
                    }
                })));
            }
            return Ok(());
        }
        if !self.has_top {
            return Ok(());
        }
        // Damaged impact lists only cost the floor (searches fall back to the skip entries'
        // bounds, and `check_files` reports them); a damaged `TopDocs` list is an error.
        let mut imp = Vec::with_capacity(super::MAX_IMPACTS);
        let Ok(end) = self.impacts_at(self.nb - 1).and_then(|at| self.read_term_impacts(at, &mut imp)) else {
            return Ok(());
        };
        let max_freq = imp.last().map_or(1, |p| p.0);
        let bytes = self.doc_bytes.get(end..).unwrap_or(&[]);
        top_docs::decode(bytes, self.max_doc, max_freq, out)
            .map_err(|m| Error::corrupt(self.doc_name, end as u64, m))?;
        if !self.has_freqs {
            out.iter_mut().for_each(|p| p.1 = 1);
        }
        Ok(())
    }

    /// [`Postings::block_impacts`] with damage reported: the list must decode and agree with the
    /// block's `MaxFreq`/`MinNorm` (its largest freq and smallest norm are exactly those).
    pub(crate) fn try_block_impacts(&self, out: &mut Vec<(u32, u8)>) -> Result<()> {
        out.clear();
        if self.shallow >= self.nb {
            return Ok(());
        }
        if self.singleton {
            out.push(self.block_max());
            return Ok(());
        }
        let at = self.impacts_at(self.shallow)?;
        self.read_impacts(at, out)?;
        let (mf, mn) = self.block_max();
        let (first, last) = (out.first().copied(), out.last().copied());
        if first.map(|p| p.1) != Some(mn) || last.map(|p| p.0) != Some(mf) {
            return Err(Error::corrupt(
                self.doc_name,
                at as u64,
                format!("block impacts {out:?} disagree with the block's max freq {mf} and min norm {mn}"),
            ));
        }
        Ok(())
    }

    /// The competitive (freq, norm) pairs of the whole term (MaxScore's per-term bound; at most
    /// [`MAX_IMPACTS`](super::MAX_IMPACTS) pairs, a dominating superset if the term had more).
    /// Falls back to [`term_max`](Self::term_max) if the stored list is damaged.
    pub fn term_impacts(&self, out: &mut Vec<(u32, u8)>) {
        let res = (|| -> Result<()> {
            out.clear();
            if self.singleton {
                out.push(self.term_max());
                return Ok(());
            }
            let at = self.impacts_at(self.nb - 1)?;
            if self.nb > 1 {
                self.read_term_impacts(at, out)?;
            } else {
                self.read_impacts(at, out)?;
            }
            let (mf, mn) = self.term_max();
            if out.first().map(|p| p.1) != Some(mn) || out.last().map(|p| p.0) != Some(mf) {
                return Err(Error::corrupt(self.doc_name, at as u64, "term impacts disagree with the skip data"));
            }
            Ok(())
        })();
        if res.is_err() {
            out.clear();
            out.push(self.term_max());
        }
    }

    /// Positions and offsets of the current doc (offsets empty unless indexed).
    pub fn positions_and_offsets(&mut self, pos: &mut Vec<u32>, offsets: &mut Vec<(u32, u32)>) {
        pos.clear();
        offsets.clear();
        if !self.has_pos || (self.idx >= self.n && !self.hold_probed_block()) {
            return;
        }
        if let Err(e) = self.read_positions(pos, Some(offsets)) {
            pos.clear();
            offsets.clear();
            self.fail(e);
        }
    }

    fn read_positions(&mut self, pos: &mut Vec<u32>, mut offsets: Option<&mut Vec<(u32, u32)>>) -> Result<()> {
        let name = self.pos_name;
        let per = if self.has_off { 3 } else { 1 };
        // Skip the docs of this block whose positions were not read.
        let mut skip_vints: u64 =
            self.freqs[self.pos_doc.min(self.idx)..self.idx].iter().map(|&f| f as u64).sum::<u64>() * per;
        let mut at = self.pos_cursor;
        if self.pos_doc == self.idx + 1 {
            // Positions of this doc were read already: read them again.
            at = self.pos_last;
            skip_vints = 0;
        }
        at = skip_varints(self.pos_bytes, at, skip_vints)
            .ok_or_else(|| Error::corrupt(name, at as u64, "positions past end"))?;
        self.pos_last = at;
        let freq = self.freqs[self.idx & (BLOCK - 1)];
        if !self.has_off {
            // Fast path: one varint per position, no offsets.
            let bytes = self.pos_bytes;
            pos.reserve(freq as usize);
            let mut last = 0u64;
            for _ in 0..freq {
                let mut v = 0u64;
                let mut shift = 0u32;
                loop {
                    let b = *bytes.get(at).ok_or_else(|| Error::corrupt(name, at as u64, "positions past end"))?;
                    at += 1;
                    v |= ((b & 0x7f) as u64) << (shift & 63);
                    if b < 0x80 {
                        break;
                    }
                    shift += 7;
                    if shift > 63 {
                        return Err(Error::corrupt(name, at as u64, "position varint too long"));
                    }
                }
                last += v;
                if last > u32::MAX as u64 {
                    return Err(Error::corrupt(name, at as u64, format!("position {last} exceeds u32")));
                }
                pos.push(last as u32);
            }
            self.pos_cursor = at;
            self.pos_doc = self.idx + 1;
            return Ok(());
        }
        let mut r = ByteReader::at(self.pos_bytes.get(at..).unwrap_or(&[]), at as u64);
        let (mut last, mut last_start) = (0u64, 0i64);
        for _ in 0..freq {
            last += r.vu64().map_err(|e| e.in_file(name))?;
            if last > u32::MAX as u64 {
                return Err(Error::corrupt(name, r.offset(), format!("position {last} exceeds u32")));
            }
            pos.push(last as u32);
            let start = last_start + unzigzag(r.vu64().map_err(|e| e.in_file(name))?);
            let end = start.checked_add(unzigzag(r.vu64().map_err(|e| e.in_file(name))?));
            match end {
                Some(end) if (0..=u32::MAX as i64).contains(&start) && (0..=u32::MAX as i64).contains(&end) => {
                    if let Some(o) = offsets.as_deref_mut() {
                        o.push((start as u32, end as u32));
                    }
                }
                _ => return Err(Error::corrupt(name, r.offset(), "offset out of range")),
            }
            last_start = start;
        }
        self.pos_cursor = r.offset() as usize;
        self.pos_doc = self.idx + 1;
        Ok(())
    }

    fn next_block(&mut self) -> DocId {
        if self.probed {
            if self.idx + 1 < self.block_len(self.block) {
                // The probed doc's block, decoded: its next doc lies in it.
                return match self.unprobe() {
                    Ok(()) => self.next(),
                    Err(e) => self.fail(e),
                };
            }
            // On the last doc of a block not held: the next doc starts the next block.
            self.probed = false;
        }
        let b = self.block.wrapping_add(1);
        if b >= self.nb {
            return self.exhaust();
        }
        match self.load_block(b) {
            Ok(()) => {
                self.doc = self.docs[0];
                self.doc
            }
            Err(e) => self.fail(e),
        }
    }
}

#[cfg(test)]
thread_local! {
    /// Tests: how many probes were answered in place (without decoding a block).
    pub(crate) static PROBED: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// The low `bits` bits set (all for 32).
fn low_bits(bits: u32) -> u32 {
    if bits >= 32 {
        u32::MAX
    } else {
        (1u32 << bits) - 1
    }
}

/// The most bytes [`lane_value`] reads: a block of 32-bit values and one more row.
const LANES_READ: usize = 16 * 32 + 16;

/// Value `i` of a full block packed by [`super::unpack::pack_lanes`] at `bits` (1 to 32) bits
/// (`mask` its low bits): the `i / 4`-th value of lane `i % 4`, in word `bit / 32` of that lane
/// and the next word of the lane (16 bytes on) when it straddles. `p` starts at the block and
/// holds at least `16 * bits + 16` bytes, so both words lie within it (`bit / 32 < bits`); the
/// next word is read either way: when the value does not straddle, its bits land above `bits`
/// and are masked off.
#[inline(always)]
fn lane_value(p: &[u8], bits: u32, mask: u32, i: usize) -> u32 {
    let bit = (i as u32 >> 2 & 31) * bits;
    let w = (bit >> 5) as usize * 16 + (i & 3) * 4;
    let s = bit & 31;
    let word = |o: usize| u32::from_le_bytes(p[o..o + 4].try_into().expect("4 bytes"));
    // `(hi << 1) << (31 - s)` is `hi << (32 - s)` without a shift by 32 when s == 0.
    ((word(w) >> s) | ((word(w + 16) << 1) << (31 - s))) & mask
}

/// Turns a frame of reference's offsets into docs (`base` added to each); whether they are
/// strictly increasing from `base` (no add wrapped). Compares and adds over the whole block, no
/// branch per doc.
fn rebase(docs: &mut [u32; BLOCK], base: u64) -> bool {
    let Ok(b) = u32::try_from(base) else { return false };
    for d in docs.iter_mut() {
        *d = d.wrapping_add(b);
    }
    let mut ok = docs[0] >= b;
    for i in 1..BLOCK {
        ok &= docs[i - 1] < docs[i];
    }
    ok
}

/// Turns the block's decoded values `doc[i] - doc[i-1] - 1` (with `doc[-1] = base - 1`) into
/// docs in place; returns the last doc. Values have at most `bits` bits, so when
/// `base + len * 2^bits` fits in 32 bits no sum can wrap and the chain is one 32-bit add per
/// doc; otherwise (huge gaps, or damaged data whose last doc the caller then rejects) it is
/// summed in 64 bits and every doc is clamped, so the docs stay non-decreasing either way.
#[inline]
fn prefix_sum(docs: &mut [u32], base: u64, bits: u8) -> u64 {
    let span = (docs.len() as u64) << bits.min(32);
    if base + span <= u32::MAX as u64 {
        // Four docs at a time: their sums within the group do not depend on `acc`, so the only
        // serial chain is one add per group (instead of two per doc).
        let mut acc = (base as u32).wrapping_sub(1);
        let mut groups = docs.chunks_exact_mut(4);
        for g in &mut groups {
            let p0 = g[0].wrapping_add(1);
            let p1 = p0.wrapping_add(g[1]).wrapping_add(1);
            let p2 = p1.wrapping_add(g[2]).wrapping_add(1);
            let p3 = p2.wrapping_add(g[3]).wrapping_add(1);
            g[0] = acc.wrapping_add(p0);
            g[1] = acc.wrapping_add(p1);
            g[2] = acc.wrapping_add(p2);
            g[3] = acc.wrapping_add(p3);
            acc = acc.wrapping_add(p3);
        }
        for d in groups.into_remainder() {
            acc = acc.wrapping_add(*d).wrapping_add(1);
            *d = acc;
        }
        return if docs.is_empty() { base.wrapping_sub(1) } else { acc as u64 };
    }
    let mut acc = base;
    for d in docs.iter_mut() {
        acc += *d as u64 + 1;
        *d = (acc - 1).min(u32::MAX as u64) as u32;
    }
    acc.wrapping_sub(1)
}

/// The index of the first of `docs[from..n]` that is `>= target`, given `docs[n - 1] >= target`
/// (`from < n <= BLOCK`, docs increasing). Whole groups of 16 below the target are stepped over,
/// and the position within the last group is a count of the docs below the target (compares
/// that vectorize, no branch per doc: a scan's exit, at a data-dependent step, is a mispredicted
/// branch on nearly every advance into a new block).
#[inline]
pub(super) fn first_at_least(docs: &[u32; BLOCK], from: usize, n: usize, target: DocId) -> usize {
    const G: usize = 16;
    let mut i = from;
    while i + G <= n && docs[i + G - 1] < target {
        i += G;
    }
    let end = (i + G).min(n);
    i + docs[i.min(end)..end].iter().map(|&d| (d < target) as usize).sum::<usize>()
}

/// The offset just past the `n` varints starting at `at`, or `None` if they run past the end.
/// Counts varint ends (bytes below 0x80) eight bytes at a time: the ends' high bits shifted to
/// one 0/1 per byte lane, summed into the top lane by one multiply (the default x86-64 target
/// has no `popcnt`, so `count_ones` is a dozen instructions); the word holding the last end is
/// resolved by clearing lower end bits, the last few bytes of the input one at a time.
pub(super) fn skip_varints(bytes: &[u8], mut at: usize, mut n: u64) -> Option<usize> {
    const HIGH: u64 = 0x8080_8080_8080_8080;
    const LANES: u64 = 0x0101_0101_0101_0101;
    while n > 0 {
        let Some(w) = bytes.get(at..at + 8) else { break };
        let mut m = !u64::from_le_bytes(w.try_into().expect("8 bytes")) & HIGH;
        let ends = (m >> 7).wrapping_mul(LANES) >> 56;
        if ends >= n {
            // The n-th end of this word: drop the n - 1 lower ones (n <= 8 here).
            for _ in 1..n {
                m &= m - 1;
            }
            return Some(at + (m.trailing_zeros() / 8) as usize + 1);
        }
        n -= ends;
        at += 8;
    }
    while n > 0 {
        let b = *bytes.get(at)?;
        at += 1;
        n -= (b < 0x80) as u64;
    }
    Some(at)
}

impl Postings for SegmentPostings<'_> {
    fn top_docs(&mut self, out: &mut Vec<(DocId, u32)>) {
        if let Err(e) = self.try_top_docs(out) {
            out.clear();
            self.fail(e);
        }
    }

    #[inline]
    fn doc(&self) -> DocId {
        self.doc
    }

    #[inline]
    fn next(&mut self) -> DocId {
        let i = self.idx.wrapping_add(1);
        if i < self.n {
            self.idx = i;
            self.doc = self.docs[i];
            return self.doc;
        }
        self.next_block()
    }

    fn advance(&mut self, target: DocId) -> DocId {
        if self.idx < self.n && target <= self.doc {
            return self.doc;
        }
        if self.n > 0 && target <= self.docs[self.n - 1] {
            // In the loaded block: mostly a short hop, where a scan is cheapest.
            let mut i = self.idx.wrapping_add(1);
            while self.docs[i] < target {
                i += 1;
            }
            self.idx = i;
            self.doc = self.docs[i];
            return self.doc;
        }
        if self.probed && target <= self.doc {
            return self.doc;
        }
        let mut b = self.next_unread_block();
        if self.nb > 1 {
            b = self.first_block_reaching(b, target);
        }
        if b >= self.nb {
            return self.exhaust();
        }
        self.advance_into(b, target)
    }

    fn probe(&mut self, target: DocId) -> DocId {
        if (self.probed || self.idx < self.n) && target <= self.doc {
            return self.doc;
        }
        if !self.doc_for || self.nb <= 1 || (self.n > 0 && target <= self.docs[self.n - 1]) {
            // Frames of reference only from `.doc` version 4 on; a decoded block is scanned.
            return self.advance(target);
        }
        let b = if self.probed && self.pr.block == self.block && target <= self.pr.last {
            self.block
        } else {
            let b = self.first_block_reaching(self.block.wrapping_add(1), target);
            if b >= self.nb {
                return self.exhaust();
            }
            b
        };
        if self.pr.block != b && !self.probe_layout(b) {
            // A partial block, a block of gaps, or bytes that do not add up: decoded (and
            // checked) whole.
            return self.advance_into(b, target);
        }
        let (i, doc) = self.pr.seek(self.doc_bytes, target);
        // The search leaves the offset before the doc below the target; the one after must be
        // above the doc. Offsets out of order there (or a doc outside the block): decoding
        // reports them.
        if doc < target
            || doc > self.pr.last
            || (i + 1 < BLOCK && self.pr.base.wrapping_add(self.pr.offset_at(self.doc_bytes, i + 1)) <= doc)
        {
            return self.advance_into(b, target);
        }
        #[cfg(test)]
        PROBED.with(|c| c.set(c.get() + 1));
        self.block = b;
        self.probed = true;
        self.n = 0;
        self.idx = i;
        self.freqs[i] = if self.has_freqs { self.pr.freq(self.doc_bytes, i) } else { 1 };
        self.doc = doc;
        doc
    }

    #[inline]
    fn freq(&self) -> u32 {
        self.freqs[self.idx & (BLOCK - 1)]
    }

    fn positions(&mut self, out: &mut Vec<u32>) {
        out.clear();
        if !self.has_pos || (self.idx >= self.n && !self.hold_probed_block()) {
            return;
        }
        if let Err(e) = self.read_positions(out, None) {
            out.clear();
            self.fail(e);
        }
    }

    fn cost(&self) -> u64 {
        self.df as u64
    }

    fn shallow_advance(&mut self, target: DocId) -> DocId {
        if self.nb == 1 {
            // One block: its impact is in the dictionary; its last doc needs the block, which is
            // decoded now (as the first `next` would) while the iterator stays where it was.
            if self.block == usize::MAX {
                if let Err(e) = self.load_block(0) {
                    return self.fail(e);
                }
                self.idx = usize::MAX;
            }
            let last = if self.n > 0 { self.docs[self.n - 1] } else { NO_MORE_DOCS };
            self.shallow = if self.block >= self.nb || target > last { self.nb } else { 0 };
            return if self.shallow == 0 { last } else { NO_MORE_DOCS };
        }
        let b =
            self.first_block_reaching(self.shallow.max(if self.block == usize::MAX { 0 } else { self.block }), target);
        self.shallow = b;
        if b >= self.nb {
            NO_MORE_DOCS
        } else {
            self.last_doc_of(b)
        }
    }

    fn block_max(&self) -> (u32, u8) {
        if self.shallow >= self.nb {
            return (0, u8::MAX);
        }
        let (f, n) = if self.nb == 1 {
            (self.single_max_freq, self.single_min_norm)
        } else {
            let o = self.shallow * self.skip_w + SKIP_MIN_NORM;
            let norm = self.skip.get(o).copied().expect("shallow < nb and the skip array length was checked in new()");
            (self.skip_u32(self.shallow, SKIP_MAX_FREQ), norm)
        };
        (if self.has_freqs { f } else { 1 }, if self.has_norms { n } else { 1 })
    }

    fn block_impacts(&self, out: &mut Vec<(u32, u8)>) {
        if self.try_block_impacts(out).is_err() {
            // Damaged list: the loose pair from the skip entry still bounds every doc.
            out.clear();
            out.push(self.block_max());
        }
    }

    fn read_block(&mut self, docs: &mut [DocId; BLOCK], freqs: &mut [u32; BLOCK]) -> usize {
        if self.probed && !self.hold_probed_block() {
            return 0;
        }
        let (i, n) = (self.idx, self.n);
        if i >= n {
            return 0;
        }
        let k = n - i;
        docs[..k].copy_from_slice(&self.docs[i..n]);
        freqs[..k].copy_from_slice(&self.freqs[i..n]);
        self.idx = n - 1;
        self.doc = self.docs[n - 1];
        k
    }

    fn move_and_read(
        &mut self,
        target: Option<DocId>,
        docs: &mut [DocId; BLOCK],
        freqs: &mut [u32; BLOCK],
    ) -> (usize, usize) {
        // Decoded straight into `docs`/`freqs` when the move leaves the block held for another
        // block of a multi-block term (a later one, or a probed block not held); otherwise a
        // move and a copy.
        let within = match target {
            Some(t) => {
                self.nb <= 1
                    || (self.n > 0 && t <= self.docs[self.n - 1])
                    || ((self.probed || self.idx < self.n) && t <= self.doc)
            }
            None => {
                self.nb <= 1
                    || self.idx.wrapping_add(1) < self.n
                    || (self.probed && self.idx + 1 < self.block_len(self.block))
            }
        };
        if within {
            let d = match target {
                Some(t) => self.advance(t),
                None => self.next(),
            };
            return if d == NO_MORE_DOCS { (0, 0) } else { (0, self.read_block(docs, freqs)) };
        }
        let b = match target {
            Some(t) => self.first_block_reaching(self.next_unread_block(), t),
            None => self.block.wrapping_add(1),
        };
        if b >= self.nb {
            self.exhaust();
            return (0, 0);
        }
        let n = match self.decode_block(b, Some((docs, freqs))) {
            Ok((n, _)) => n,
            Err(e) => {
                self.fail(e);
                return (0, 0);
            }
        };
        let i = match target {
            Some(t) if docs[n - 1] < t => {
                // Not for a block found by its skip entry (checked against it).
                self.exhaust();
                return (0, 0);
            }
            Some(t) => first_at_least(docs, 0, n, t),
            None => 0,
        };
        // The iterator sits on the block's last doc without holding the block (a probed
        // state: anything but a move past it decodes the block again).
        self.block = b;
        self.probed = true;
        self.n = 0;
        self.idx = n - 1;
        self.freqs[n - 1] = freqs[n - 1];
        self.doc = docs[n - 1];
        (i, n)
    }

    fn take_error(&mut self) -> Option<Error> {
        self.error.take()
    }
}
