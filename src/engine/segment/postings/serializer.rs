//! Writes `.tim`, `.doc` and `.pos` term by term. Layouts: `format/terms.md`,
//! `format/postings.md`, `format/positions.md`.
//!
//! Order of calls: [`PostingsSerializer::create`] → for each field in increasing number:
//! [`start_field`](PostingsSerializer::start_field) → [`add_term`](PostingsSerializer::add_term)
//! for each term in increasing byte order → [`finish_field`](PostingsSerializer::finish_field);
//! then [`finish`](PostingsSerializer::finish), which writes the field table and the footers.

use super::impacts::{competitive, encode};
use super::top_docs::{self, TopSelector};
use super::{
    num_blocks, skip_entry_len, BLOCK, DOC_CODEC, DOC_EXT, DOC_VERSION, FOR_BLOCK, POS_CODEC, POS_EXT, SKIP_IMP_OFF,
    TERMS_CODEC, TERMS_EXT, TERMS_PER_BLOCK, VERSION,
};
use crate::engine::codec::bitpack::{bits_needed, pack32};
use crate::engine::codec::{put_vu64, zigzag, IndexOutput};
use crate::engine::segment::smallfloat::LENGTH_TABLE;
use crate::engine::segment::{DocId, IndexOptions, SegmentId};
use crate::engine::store::Directory;
use crate::engine::{Error, Result};

/// One term's postings, flat. `freqs` has one entry per doc (ignored unless the field has
/// freqs); `positions` holds `sum(freqs)` entries in doc order, sorted within a doc (ignored
/// unless the field has positions); `offsets` parallels `positions` (ignored unless offsets).
#[derive(Debug, Clone, Copy)]
pub(crate) struct TermData<'x> {
    pub docs: &'x [u32],
    pub freqs: &'x [u32],
    pub positions: &'x [u32],
    pub offsets: &'x [(u32, u32)],
}

struct FieldState {
    number: u32,
    opts: IndexOptions,
    has_norms: bool,
    sum_ttf: u64,
    sum_df: u64,
    num_terms: u64,
    blocks_start: u64,
    block: Vec<u8>,
    block_terms: usize,
    block_first_term_off: u32,
    last_term: Vec<u8>,
    last_doc_start: u64,
    last_pos_start: u64,
    index: Vec<u8>,
    index_terms: Vec<u8>,
    num_blocks: u64,
    /// Chooses the top docs of the field's multi-block terms (made on the first such term).
    top: Option<TopSelector>,
}

/// The writer of one segment's postings files.
pub(crate) struct PostingsSerializer<'n> {
    tim: IndexOutput,
    doc: IndexOutput,
    pos: IndexOutput,
    max_doc: u32,
    norms: &'n dyn Fn(u32, DocId) -> u8,
    table: Vec<u8>,
    num_fields: u64,
    field: Option<FieldState>,
    skip: Vec<u8>,
    blocks: Vec<u8>,
    posbuf: Vec<u8>,
    block_pos_off: Vec<u64>,
    scratch: Vec<u32>,
    /// One block's (freq, norm) pairs, then its competitive impacts.
    pairs: Vec<(u32, u8)>,
    /// The competitive impacts of every block of the term (for the term's own list).
    term_pairs: Vec<(u32, u8)>,
    /// The encoded impact lists of the term's blocks, and where each starts in it.
    imps: Vec<u8>,
    imp_off: Vec<u64>,
    /// One term's top docs, and the norm byte of each of its docs (to choose them).
    top_list: Vec<(DocId, u32)>,
    term_norms: Vec<u8>,
}

impl<'n> PostingsSerializer<'n> {
    pub fn create(
        dir: &dyn Directory,
        seg: &SegmentId,
        max_doc: u32,
        norms: &'n dyn Fn(u32, DocId) -> u8,
    ) -> Result<Self> {
        Ok(PostingsSerializer {
            tim: IndexOutput::create(dir, &seg.file(TERMS_EXT), TERMS_CODEC, VERSION, &seg.id)?,
            doc: IndexOutput::create(dir, &seg.file(DOC_EXT), DOC_CODEC, DOC_VERSION, &seg.id)?,
            pos: IndexOutput::create(dir, &seg.file(POS_EXT), POS_CODEC, VERSION, &seg.id)?,
            max_doc,
            norms,
            table: Vec::new(),
            num_fields: 0,
            field: None,
            skip: Vec::new(),
            blocks: Vec::new(),
            posbuf: Vec::new(),
            block_pos_off: Vec::new(),
            scratch: Vec::with_capacity(BLOCK),
            pairs: Vec::with_capacity(BLOCK),
            term_pairs: Vec::new(),
            imps: Vec::new(),
            imp_off: Vec::new(),
            top_list: Vec::with_capacity(top_docs::TOP_DOCS),
            term_norms: Vec::new(),
        })
    }

    pub fn start_field(&mut self, number: u32, opts: IndexOptions, has_norms: bool) {
        debug_assert!(self.field.is_none(), "finish_field before start_field");
        self.field = Some(FieldState {
            number,
            opts,
            has_norms,
            sum_ttf: 0,
            sum_df: 0,
            num_terms: 0,
            blocks_start: self.tim.len(),
            block: Vec::new(),
            block_terms: 0,
            block_first_term_off: 0,
            last_term: Vec::new(),
            last_doc_start: 0,
            last_pos_start: 0,
            index: Vec::new(),
            index_terms: Vec::new(),
            num_blocks: 0,
            top: None,
        });
    }

    /// Adds a term (greater than the previous one of this field) with at least one doc.
    pub fn add_term(&mut self, term: &[u8], t: &TermData<'_>) -> Result<()> {
        let f = self.field.as_mut().expect("add_term is called between start_field and finish_field");
        let df = t.docs.len();
        if df == 0 {
            return Ok(());
        }
        if f.num_terms > 0 && term <= f.last_term.as_slice() {
            return Err(Error::InvalidArgument("terms must be added in increasing order".into()));
        }
        let (has_freqs, has_pos, has_off) = (f.opts.has_freqs(), f.opts.has_positions(), f.opts.has_offsets());
        let freq_at = |i: usize| if has_freqs { t.freqs.get(i).copied().unwrap_or(1) } else { 1 };
        // Validate doc order and range once; everything below relies on it.
        let mut prev: i64 = -1;
        for &d in t.docs {
            if (d as i64) <= prev || d >= self.max_doc {
                return Err(Error::InvalidArgument(format!("doc {d} out of order or >= max_doc {}", self.max_doc)));
            }
            prev = d as i64;
        }
        let ttf: u64 = if has_freqs { (0..df).map(|i| freq_at(i) as u64).sum() } else { df as u64 };
        if has_pos && t.positions.len() as u64 != ttf {
            return Err(Error::InvalidArgument(format!("{} positions for total term freq {ttf}", t.positions.len())));
        }
        let norm = |d: DocId| if f.has_norms { (self.norms)(f.number, d) } else { 1 };

        // Positions: one varint run per doc; remember where each doc block starts.
        let pos_start = self.pos.len();
        self.posbuf.clear();
        let mut block_pos_off = std::mem::take(&mut self.block_pos_off);
        block_pos_off.clear();
        if has_pos {
            let mut p = 0usize;
            for i in 0..df {
                if i % BLOCK == 0 {
                    block_pos_off.push(self.posbuf.len() as u64);
                }
                let (mut last_pos, mut last_start) = (0u32, 0u32);
                for _ in 0..freq_at(i) {
                    let ps = t.positions[p];
                    put_vu64(&mut self.posbuf, ps.wrapping_sub(last_pos) as u64);
                    last_pos = ps;
                    if has_off {
                        let (s, e) = t.offsets.get(p).copied().unwrap_or((0, 0));
                        put_vu64(&mut self.posbuf, zigzag(s as i64 - last_start as i64));
                        put_vu64(&mut self.posbuf, zigzag(e as i64 - s as i64));
                        last_start = s;
                    }
                    p += 1;
                }
            }
            self.pos.put(&self.posbuf)?;
        }

        // Docs: singletons live in the term dictionary; otherwise skip entries, blocks, then the
        // blocks' impact lists (and the term's, with 2+ blocks).
        let doc_start = self.doc.len();
        let (mut max_freq, mut min_norm) = (0u32, u8::MAX);
        if df > 1 {
            let nb = num_blocks(df as u32);
            let skip_w = skip_entry_len(has_pos);
            self.skip.clear();
            self.blocks.clear();
            self.imps.clear();
            self.imp_off.clear();
            self.term_pairs.clear();
            self.term_norms.clear();
            let mut prev: i64 = -1;
            #[allow(clippy::needless_range_loop)] // `b` also slices `t.docs` and names the block
            for b in 0..nb {
                let chunk = &t.docs[b * BLOCK..((b + 1) * BLOCK).min(df)];
                let (mut bmax, mut bmin) = (0u32, u8::MAX);
                self.scratch.clear();
                self.pairs.clear();
                let mut or = 0u32;
                // A full block stores each doc's offset from the block's first possible doc
                // (frame of reference: no prefix sum to decode); a term's last, partial block
                // stores gaps.
                let full = chunk.len() == BLOCK;
                let base = (prev + 1) as u32;
                for (i, &d) in chunk.iter().enumerate() {
                    let v = if full { d - base } else { (d as i64 - prev - 1) as u32 };
                    or |= v;
                    self.scratch.push(v);
                    prev = d as i64;
                    let nd = norm(d);
                    self.term_norms.push(nd);
                    bmin = bmin.min(nd);
                    self.pairs.push((freq_at(b * BLOCK + i).max(1), nd));
                }
                let doc_off = self.blocks.len() as u64;
                let bits_d = bits_needed(or as u64);
                self.blocks.push(if full { bits_d | FOR_BLOCK } else { bits_d });
                pack_block(&self.scratch, bits_d, &mut self.blocks);
                if has_freqs {
                    self.scratch.clear();
                    let mut or = 0u32;
                    for i in b * BLOCK..b * BLOCK + chunk.len() {
                        let fr = freq_at(i).max(1);
                        bmax = bmax.max(fr);
                        or |= fr - 1;
                        self.scratch.push(fr - 1);
                    }
                    let bits_f = bits_needed(or as u64);
                    self.blocks.push(bits_f);
                    pack_block(&self.scratch, bits_f, &mut self.blocks);
                } else {
                    bmax = 1;
                }
                competitive(&mut self.pairs);
                self.imp_off.push(self.imps.len() as u64);
                encode(&self.pairs, &mut self.imps);
                self.term_pairs.extend_from_slice(&self.pairs);
                max_freq = max_freq.max(bmax);
                min_norm = min_norm.min(bmin);
                if nb > 1 {
                    self.skip.extend_from_slice(&(prev as u32).to_le_bytes());
                    self.skip.extend_from_slice(&doc_off.to_le_bytes());
                    self.skip.extend_from_slice(&bmax.to_le_bytes());
                    self.skip.push(bmin);
                    self.skip.extend_from_slice(&0u64.to_le_bytes()); // ImpOff, set below
                    if has_pos {
                        self.skip.extend_from_slice(&block_pos_off[b].to_le_bytes());
                    }
                }
            }
            if nb > 1 {
                let base = self.blocks.len() as u64;
                for (b, off) in self.imp_off.iter().enumerate() {
                    let at = b * skip_w + SKIP_IMP_OFF;
                    self.skip[at..at + 8].copy_from_slice(&(base + off).to_le_bytes());
                }
                competitive(&mut self.term_pairs);
                encode(&self.term_pairs, &mut self.imps);
                let (max_doc, norms, number, has_norms) = (self.max_doc, self.norms, f.number, f.has_norms);
                let sel = f.top.get_or_insert_with(|| {
                    TopSelector::new(has_norms.then(|| avg_length(max_doc, |d| norms(number, d))))
                });
                sel.select(t.docs, freq_at, &self.term_norms, &mut self.top_list);
                top_docs::encode(&self.top_list, &mut self.imps);
            }
            self.doc.put(&self.skip)?;
            self.doc.put(&self.blocks)?;
            self.doc.put(&self.imps)?;
        } else {
            max_freq = freq_at(0).max(1);
            min_norm = norm(t.docs[0]);
        }
        self.block_pos_off = block_pos_off;

        // The term entry.
        if f.block_terms == TERMS_PER_BLOCK {
            Self::flush_block(&mut self.tim, f)?;
        }
        if f.block_terms == 0 {
            f.block_first_term_off = f.index_terms.len() as u32;
            f.index_terms.extend_from_slice(term);
            f.last_term.clear();
            f.last_doc_start = 0;
            f.last_pos_start = 0;
        }
        let prefix = term.iter().zip(f.last_term.iter()).take_while(|(a, b)| a == b).count();
        let e = &mut f.block;
        put_vu64(e, prefix as u64);
        put_vu64(e, (term.len() - prefix) as u64);
        e.extend_from_slice(&term[prefix..]);
        put_vu64(e, df as u64);
        if has_freqs {
            put_vu64(e, ttf - df as u64);
        }
        if df == 1 {
            put_vu64(e, t.docs[0] as u64);
        } else {
            put_vu64(e, doc_start - f.last_doc_start);
            f.last_doc_start = doc_start;
        }
        if has_pos {
            put_vu64(e, pos_start - f.last_pos_start);
            f.last_pos_start = pos_start;
        }
        if df <= BLOCK {
            if has_freqs {
                put_vu64(e, max_freq as u64);
            }
            if f.has_norms {
                e.push(min_norm);
            }
        }
        f.block_terms += 1;
        f.last_term.clear();
        f.last_term.extend_from_slice(term);
        f.num_terms += 1;
        f.sum_df += df as u64;
        f.sum_ttf += ttf;
        Ok(())
    }

    fn flush_block(tim: &mut IndexOutput, f: &mut FieldState) -> Result<()> {
        if f.block_terms == 0 {
            return Ok(());
        }
        f.index.extend_from_slice(&f.block_first_term_off.to_le_bytes());
        f.index.extend_from_slice(&tim.len().to_le_bytes());
        tim.put_vu64(f.block_terms as u64)?;
        tim.put(&f.block)?;
        f.block.clear();
        f.block_terms = 0;
        f.num_blocks += 1;
        Ok(())
    }

    /// Ends the current field; `doc_count` is the number of docs with at least one term in it.
    pub fn finish_field(&mut self, doc_count: u32) -> Result<()> {
        let Some(mut f) = self.field.take() else { return Ok(()) };
        Self::flush_block(&mut self.tim, &mut f)?;
        if f.num_terms == 0 {
            return Ok(());
        }
        let blocks_end = self.tim.len();
        let index_start = self.tim.len();
        self.tim.put(&f.index)?;
        self.tim.put(&f.index_terms)?;
        let t = &mut self.table;
        put_vu64(t, f.number as u64);
        t.push(f.opts as u8);
        t.push(f.has_norms as u8);
        put_vu64(t, doc_count as u64);
        put_vu64(t, f.sum_ttf);
        put_vu64(t, f.sum_df);
        put_vu64(t, f.num_terms);
        put_vu64(t, f.blocks_start);
        put_vu64(t, blocks_end);
        put_vu64(t, index_start);
        put_vu64(t, f.num_blocks);
        put_vu64(t, f.index_terms.len() as u64);
        self.num_fields += 1;
        Ok(())
    }

    /// Writes the field table and the three footers; returns the file names.
    pub fn finish(mut self) -> Result<Vec<String>> {
        self.finish_field(0)?;
        let table_off = self.tim.len();
        self.tim.put_u32(self.max_doc)?;
        self.tim.put_vu64(self.num_fields)?;
        self.tim.put(&self.table)?;
        self.tim.put_u64(table_off)?;
        let names = vec![self.tim.name().to_string(), self.doc.name().to_string(), self.pos.name().to_string()];
        self.tim.finish()?;
        self.doc.finish()?;
        self.pos.finish()?;
        Ok(names)
    }
}

/// The mean field length (decoded norm) over the docs that have the field (norm byte not 0),
/// BM25's `avgdl` as this segment alone sees it; 1 when no doc has it.
fn avg_length(max_doc: u32, norm: impl Fn(DocId) -> u8) -> f32 {
    let (mut sum, mut n) = (0u64, 0u64);
    for d in 0..max_doc {
        let b = norm(d);
        if b != 0 {
            sum += LENGTH_TABLE[b as usize] as u64;
            n += 1;
        }
    }
    if n == 0 {
        1.0
    } else {
        (sum as f64 / n as f64) as f32
    }
}

/// Packs one block's values: a full block in the four lanes of `.doc` version 2, the last
/// (partial) block of a term sequentially.
fn pack_block(values: &[u32], bits: u8, out: &mut Vec<u8>) {
    match <&[u32; BLOCK]>::try_from(values) {
        Ok(full) => super::unpack::pack_lanes(full, bits, out),
        Err(_) => pack32(values, bits, out),
    }
}
