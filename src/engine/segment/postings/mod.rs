//! postings/: "which documents contain this term, how often, at which positions; and how good
//! can a block of them score at best".
//!
//! Three files per segment (layouts: `format/terms.md`, `format/postings.md`, `format/positions.md`):
//!
//! | ext | holds |
//! |---|---|
//! | `tim` | per field: sorted terms in prefix-compressed blocks of up to [`TERMS_PER_BLOCK`], a fixed-width block index for binary-search seeks, the field's statistics |
//! | `doc` | per term: skip entries (last doc, offsets, max freq, min norm) then 128-doc blocks of bit-packed docs (gaps, or offsets from the block's base) and freqs, then each block's competitive impacts (and the term's, and its top docs) |
//! | `pos` | per term: positions (and offsets) as varints, addressable per 128-doc block |
//!
//! The pieces, in the order data flows through them:
//!
//! - [`PostingsBuffer`] (`buffer.rs`): the in-memory inverted index of a segment being built;
//!   one hash probe and a few byte pushes per token; terms live in one arena and their streams in
//!   slices of one byte pool, so nothing is allocated per term (pools grow by doubling).
//! - [`write_postings`] / [`merge_postings`] (`writer.rs`, `merge.rs`) drive the serializer
//!   (`serializer.rs`), which writes the three files term by term.
//! - [`PostingsReader`] (`reader.rs`) opens them in O(fields); [`FieldTerms`] (`terms.rs`) seeks and
//!   iterates terms; [`SegmentPostings`] (`iter.rs`) decodes a whole block at a time and skips
//!   blocks with the skip entries.
//! - [`check_files`] verifies and walks everything (the fuzz targets' entry point).

mod buffer;
mod check;
mod impacts;
mod iter;
mod merge;
mod reader;
mod serializer;
mod terms;
mod top_docs;
mod unpack;
mod writer;

pub(crate) use buffer::BytesInterner;
pub use buffer::PostingsBuffer;
pub use check::{check_files, Summary};
pub use impacts::MAX_IMPACTS;
pub use iter::SegmentPostings;
#[cfg(test)]
pub(crate) use iter::PROBED;
pub use merge::merge_postings;
pub use reader::PostingsReader;
pub use terms::{FieldStats, FieldTerms, TermInfo, TermIter};
pub use top_docs::TOP_DOCS;
pub use writer::write_postings;

/// Codec name in the `.tim` header.
pub const TERMS_CODEC: &str = "FathomTerms";
/// Codec name in the `.doc` header.
pub const DOC_CODEC: &str = "FathomPostingsDoc";
/// Codec name in the `.pos` header.
pub const POS_CODEC: &str = "FathomPostingsPos";
/// Current format version of `.tim` and `.pos`.
pub const VERSION: u32 = 1;
/// Current format version of `.doc`: 4 stores full doc blocks as frames of reference
/// ([`FOR_BLOCK`]); 3 stores each multi-block term's top docs after its impacts ([`top_docs`]);
/// 2 packs full blocks in four lanes ([`unpack::pack_lanes`]); versions 1 (sequential
/// bit-packing) to 3 are still read.
pub const DOC_VERSION: u32 = 4;
/// Set in a full block's doc bit width from `.doc` version 4 on: the block stores each doc's
/// offset from the block's base (frame of reference) instead of gaps.
pub const FOR_BLOCK: u8 = 0x80;
/// Term dictionary extension.
pub const TERMS_EXT: &str = "tim";
/// Doc/freq/skip extension.
pub const DOC_EXT: &str = "doc";
/// Positions extension.
pub const POS_EXT: &str = "pos";

/// Documents per postings block.
pub const BLOCK: usize = crate::engine::codec::bitpack::BLOCK;
/// Most terms in one term-dictionary block.
pub const TERMS_PER_BLOCK: usize = 16;
/// Width of one block-index entry in `.tim`: term offset u32, block offset u64.
pub(crate) const INDEX_ENTRY_LEN: usize = 12;

/// Width of a skip entry: LastDoc u32, DocOff u64, MaxFreq u32, MinNorm u8, ImpOff u64, then
/// PosOff u64 when the field has positions.
#[inline]
pub(crate) const fn skip_entry_len(positions: bool) -> usize {
    if positions {
        SKIP_POS_OFF + 8
    } else {
        SKIP_POS_OFF
    }
}

/// Offsets of the fields in a skip entry.
pub(crate) const SKIP_DOC_OFF: usize = 4;
pub(crate) const SKIP_MAX_FREQ: usize = 12;
pub(crate) const SKIP_MIN_NORM: usize = 16;
pub(crate) const SKIP_IMP_OFF: usize = 17;
pub(crate) const SKIP_POS_OFF: usize = 25;

/// Number of 128-doc blocks of a term with `doc_freq` documents.
#[inline]
pub(crate) fn num_blocks(doc_freq: u32) -> usize {
    (doc_freq as usize).div_ceil(BLOCK)
}

#[cfg(test)]
mod tests;
