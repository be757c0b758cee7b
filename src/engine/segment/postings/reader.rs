//! Opens a segment's `.tim`, `.doc` and `.pos`: headers, footer structure and the field table
//! are checked on open, and each field's block index is copied and checked (O(fields + term
//! blocks)); the CRCs only by [`PostingsReader::check_integrity`].

use super::terms::{BlockIndex, FieldEntry, FieldStats, FieldTerms};
use super::{
    DOC_CODEC, DOC_EXT, DOC_VERSION, INDEX_ENTRY_LEN, POS_CODEC, POS_EXT, TERMS_CODEC, TERMS_EXT, TERMS_PER_BLOCK,
    VERSION,
};
use crate::engine::codec::{check_footer, check_header, footer_checksum, ByteReader, FOOTER_LEN};
use crate::engine::segment::{FieldInfos, IndexOptions, SegmentId};
use crate::engine::store::{Directory, FileBytes};
use crate::engine::{Error, Result};

/// The postings of one segment: term dictionary, doc/freq/skip data, positions. `Send + Sync`;
/// everything borrowed from it reads the (memory-mapped) file bytes directly.
#[derive(Debug)]
pub struct PostingsReader {
    pub(crate) tim: FileBytes,
    pub(crate) doc: FileBytes,
    pub(crate) pos: FileBytes,
    pub(crate) names: [String; 3],
    pub(crate) max_doc: u32,
    /// `.doc` version 2 or later: full blocks are packed in four lanes.
    pub(crate) doc_lanes: bool,
    /// `.doc` version 3 on: multi-block terms store their top docs (`top_docs.rs`).
    pub(crate) doc_top: bool,
    /// Full doc blocks are frames of reference (`.doc` version 4 on).
    pub(crate) doc_for: bool,
    fields: Vec<Option<FieldEntry>>,
}

impl PostingsReader {
    /// Opens the three files of `seg`; checks headers (codec, version, segment id), footer
    /// structure (O(1), not the CRC) and the field table against `infos`.
    pub fn open(dir: &dyn Directory, seg: &SegmentId, infos: &FieldInfos) -> Result<Self> {
        let names = [seg.file(TERMS_EXT), seg.file(DOC_EXT), seg.file(POS_EXT)];
        let tim = dir.open(&names[0])?;
        let doc = dir.open(&names[1])?;
        let pos = dir.open(&names[2])?;
        Self::from_bytes(tim, doc, pos, names, Some(&seg.id), Some(infos))
    }

    /// Opens file images (checks as [`PostingsReader::open`]); without `infos`, field numbers are
    /// not checked against a schema.
    pub(crate) fn from_bytes(
        tim: FileBytes,
        doc: FileBytes,
        pos: FileBytes,
        names: [String; 3],
        id: Option<&[u8; 16]>,
        infos: Option<&FieldInfos>,
    ) -> Result<Self> {
        let codecs = [(TERMS_CODEC, VERSION), (DOC_CODEC, DOC_VERSION), (POS_CODEC, VERSION)];
        let mut ids = Vec::new();
        let mut doc_version = 1;
        for ((bytes, name), (codec, max_version)) in [&tim, &doc, &pos].into_iter().zip(&names).zip(codecs) {
            footer_checksum(bytes, name)?;
            let h = check_header(bytes, name, codec, 1, max_version, id)?;
            if h.len > bytes.len() - FOOTER_LEN {
                return Err(Error::corrupt(name.as_str(), 0, "header overlaps footer (file truncated?)"));
            }
            if codec == DOC_CODEC {
                doc_version = h.version;
            }
            ids.push(h.id);
        }
        if ids.iter().any(|i| *i != ids[0]) {
            return Err(Error::corrupt(
                names[1].as_str(),
                0,
                "postings files belong to different segments (id mismatch)",
            ));
        }
        let header_len = check_header(&tim, &names[0], TERMS_CODEC, VERSION, VERSION, None)?.len as u64;
        let (max_doc, fields) = parse_table(&tim, &names[0], header_len, infos)?;
        Ok(PostingsReader {
            tim,
            doc,
            pos,
            names,
            max_doc,
            doc_lanes: doc_version >= 2,
            doc_top: doc_version >= 3,
            doc_for: doc_version >= 4,
            fields,
        })
    }

    /// Verifies the CRC32 of every byte of the three files.
    pub fn check_integrity(&self) -> Result<()> {
        check_footer(&self.tim, &self.names[0])?;
        check_footer(&self.doc, &self.names[1])?;
        check_footer(&self.pos, &self.names[2])?;
        Ok(())
    }

    /// The names of the files this reader reads.
    pub fn files(&self) -> Vec<String> {
        self.names.to_vec()
    }

    /// The segment's `max_doc` as recorded in `.tim`.
    pub fn max_doc(&self) -> u32 {
        self.max_doc
    }

    /// The terms of `field`, or `None` if the segment has no term in it.
    pub fn field(&self, field: u32) -> Option<FieldTerms<'_>> {
        let e = self.fields.get(field as usize)?.as_ref()?;
        Some(FieldTerms { r: self, e })
    }

    /// Numbers of the fields that have terms, increasing.
    pub fn field_numbers(&self) -> impl Iterator<Item = u32> + '_ {
        self.fields.iter().flatten().map(|e| e.number)
    }
}

/// Parses the field table at the end of `.tim` (format/terms.md, "FieldTable").
fn parse_table(
    tim: &[u8],
    name: &str,
    header_len: u64,
    infos: Option<&FieldInfos>,
) -> Result<(u32, Vec<Option<FieldEntry>>)> {
    let body = &tim[..tim.len() - FOOTER_LEN];
    let err = |off: u64, msg: String| Error::corrupt(name, off, msg);
    if (body.len() as u64) < header_len + 8 {
        return Err(err(body.len() as u64, "no room for the field table pointer (file truncated?)".into()));
    }
    let ptr_at = body.len() - 8;
    let table_off = ByteReader::at(&body[ptr_at..], ptr_at as u64).u64().map_err(|e| e.in_file(name))?;
    if table_off < header_len || table_off > ptr_at as u64 {
        return Err(err(ptr_at as u64, format!("field table offset {table_off} outside [{header_len}, {ptr_at}]")));
    }
    let start = table_off as usize;
    let mut r = ByteReader::at(&body[start..ptr_at], table_off);
    let run = |r: &mut ByteReader<'_>| -> Result<(u32, Vec<Option<FieldEntry>>)> {
        let max_doc = r.u32()?;
        let n = r.len(r.remaining())?;
        let mut fields: Vec<Option<FieldEntry>> = Vec::new();
        let mut prev_end = header_len;
        for _ in 0..n {
            let at = r.offset();
            let number = r.vu32()?;
            let opts = match r.u8()? {
                1 => IndexOptions::Docs,
                2 => IndexOptions::DocsFreqs,
                3 => IndexOptions::DocsFreqsPositions,
                4 => IndexOptions::DocsFreqsPositionsOffsets,
                v => return Err(r.error(format!("index options must be 1..=4, got {v}"))),
            };
            let has_norms = match r.u8()? {
                0 => false,
                1 => true,
                v => return Err(r.error(format!("has_norms must be 0 or 1, got {v}"))),
            };
            let stats = FieldStats {
                doc_count: r.vu32()?,
                sum_total_term_freq: r.vu64()?,
                sum_doc_freq: r.vu64()?,
                num_terms: r.vu64()?,
            };
            let (blocks_start, blocks_end, index_start) = (r.vu64()?, r.vu64()?, r.vu64()?);
            let num_blocks = r.vu64()?;
            let index_terms_len = r.vu64()?;
            let index_end = (num_blocks.checked_mul(INDEX_ENTRY_LEN as u64))
                .and_then(|v| v.checked_add(index_start))
                .and_then(|v| v.checked_add(index_terms_len));
            let ok_layout = blocks_start >= prev_end
                && blocks_start < blocks_end
                && blocks_end <= index_start
                && index_end.is_some_and(|e| e <= table_off);
            if !ok_layout {
                return Err(Error::corrupt("", at, format!(
                    "field {number}: sections out of order or past the field table: blocks [{blocks_start}, {blocks_end}), index at {index_start}, {num_blocks} blocks, {index_terms_len} index term bytes, table at {table_off}"
                )));
            }
            prev_end = index_end.unwrap_or(table_off);
            if num_blocks == 0 || stats.num_terms < num_blocks || stats.num_terms > num_blocks * TERMS_PER_BLOCK as u64
            {
                return Err(Error::corrupt(
                    "",
                    at,
                    format!("field {number}: {} terms cannot fill {num_blocks} blocks", stats.num_terms),
                ));
            }
            if stats.sum_doc_freq < stats.num_terms
                || stats.sum_total_term_freq < stats.sum_doc_freq
                || stats.doc_count > max_doc
            {
                return Err(Error::corrupt(
                    "",
                    at,
                    format!("field {number}: inconsistent statistics {stats:?} (max_doc {max_doc})"),
                ));
            }
            if let Some(infos) = infos {
                match infos.get(number) {
                    Some(fi) if fi.index != IndexOptions::None => {}
                    _ => {
                        return Err(Error::corrupt(
                            "",
                            at,
                            format!("field {number} has terms but is not an indexed field of the segment"),
                        ))
                    }
                }
            }
            let slot = number as usize;
            if slot >= fields.len() {
                if slot > n.saturating_mul(4).max(1024) && infos.is_none_or(|i| slot >= i.len()) {
                    return Err(Error::corrupt("", at, format!("field number {number} is implausibly large")));
                }
                fields.resize_with(slot + 1, || None);
            }
            if fields[slot].is_some() {
                return Err(Error::corrupt("", at, format!("field {number} appears twice")));
            }
            let mut entry = FieldEntry {
                number,
                opts,
                has_norms,
                stats,
                blocks_start,
                blocks_end,
                index_start,
                num_blocks,
                index_terms_len,
                index: BlockIndex::default(),
            };
            entry.index = BlockIndex::build(body, &entry)
                .map_err(|(off, msg)| Error::corrupt("", off, format!("field {number}: {msg}")))?;
            fields[slot] = Some(entry);
        }
        if !r.is_empty() {
            return Err(r.error(format!("{} trailing bytes after the field table", r.remaining())));
        }
        Ok((max_doc, fields))
    };
    run(&mut r).map_err(|e| e.in_file(name))
}
