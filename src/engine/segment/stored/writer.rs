//! Writing a `.fdt` file, at flush or at merge.

use super::{encode_doc, StoredReader, BLOCK_MAX_DOCS, BLOCK_TARGET, CODEC, EXT, VERSION, ZSTD_LEVEL};
use crate::engine::codec::{put_vu64, IndexOutput};
use crate::engine::segment::{DocMap, SegmentId};
use crate::engine::store::Directory;
use crate::engine::{Error, Result};

/// Streams docs into compressed blocks; keeps only the current block and the block index in
/// memory.
pub struct StoredWriter {
    out: IndexOutput,
    name: String,
    /// Raw docs of the block being filled, and each one's length.
    pending: Vec<u8>,
    lens: Vec<u64>,
    /// Encoded block index entries: `DocCount vu64, CompLen vu64, RawLen vu64`.
    index: Vec<u8>,
    blocks: u64,
    docs: u64,
    scratch: Vec<u8>,
    /// Raw bytes of the block being compressed (reused).
    raw: Vec<u8>,
    /// One zstd context for every block (creating one per block costs a large table reset).
    zstd: zstd::bulk::Compressor<'static>,
}

impl std::fmt::Debug for StoredWriter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StoredWriter").field("file", &self.name).field("docs", &self.docs).finish()
    }
}

impl StoredWriter {
    /// Creates `{segment}.fdt` and writes its header.
    pub fn create(dir: &dyn Directory, seg: &SegmentId) -> Result<Self> {
        let name = seg.file(EXT);
        let out = IndexOutput::create(dir, &name, CODEC, VERSION, &seg.id)?;
        let zstd = zstd::bulk::Compressor::new(ZSTD_LEVEL).map_err(|e| Error::io(name.clone(), "compress", e))?;
        Ok(StoredWriter {
            out,
            name,
            pending: Vec::new(),
            lens: Vec::new(),
            index: Vec::new(),
            blocks: 0,
            docs: 0,
            scratch: Vec::new(),
            raw: Vec::new(),
            zstd,
        })
    }

    /// Adds the next doc (doc ids are assigned in call order from 0).
    pub fn add(&mut self, fields: &[(u32, &[u8])]) -> Result<()> {
        let mut doc = std::mem::take(&mut self.scratch);
        doc.clear();
        encode_doc(fields, &mut doc);
        let r = self.add_raw(&doc);
        self.scratch = doc;
        r
    }

    /// Adds the next doc as its encoded bytes (merges copy docs this way).
    pub(super) fn add_raw(&mut self, doc: &[u8]) -> Result<()> {
        self.pending.extend_from_slice(doc);
        self.lens.push(doc.len() as u64);
        self.docs += 1;
        if self.pending.len() >= BLOCK_TARGET || self.lens.len() >= BLOCK_MAX_DOCS {
            self.flush_block()?;
        }
        Ok(())
    }

    fn flush_block(&mut self) -> Result<()> {
        if self.lens.is_empty() {
            return Ok(());
        }
        let raw = &mut self.raw;
        raw.clear();
        for &l in &self.lens {
            put_vu64(raw, l);
        }
        raw.extend_from_slice(&self.pending);
        let comp = self.zstd.compress(raw).map_err(|e| Error::io(self.name.clone(), "compress", e))?;
        self.out.put(&comp)?;
        put_vu64(&mut self.index, self.lens.len() as u64);
        put_vu64(&mut self.index, comp.len() as u64);
        put_vu64(&mut self.index, self.raw.len() as u64);
        self.blocks += 1;
        self.pending.clear();
        self.lens.clear();
        Ok(())
    }

    /// Docs added so far.
    pub fn num_docs(&self) -> u64 {
        self.docs
    }

    /// Compresses the last block, writes the block index and the footer; returns the file name.
    pub fn finish(mut self) -> Result<String> {
        self.flush_block()?;
        let index_start = self.out.len();
        let mut head = Vec::new();
        put_vu64(&mut head, self.docs);
        put_vu64(&mut head, self.blocks);
        self.out.put(&head)?;
        self.out.put(&self.index)?;
        self.out.put_u64(index_start)?;
        self.out.finish()?;
        Ok(self.name)
    }
}

/// Writes the merged segment's `{segment}.fdt`: the live docs of every source in their new
/// order, copied as encoded bytes. The new ids of all sources together must be `0..n`.
pub fn merge_stored(dir: &dyn Directory, seg: &SegmentId, sources: &[(&StoredReader, &DocMap)]) -> Result<String> {
    let mut order = Vec::new();
    for (s, &(r, map)) in sources.iter().enumerate() {
        let n = r.max_doc().min(map.new_ids.len() as u32);
        order.extend((0..n).filter_map(|old| map.get(old).map(|new| (new, s, old))));
    }
    order.sort_unstable();
    let mut w = StoredWriter::create(dir, seg)?;
    for (i, &(new, s, old)) in order.iter().enumerate() {
        if new as usize != i {
            return Err(Error::InvalidArgument(format!("merged doc ids are not dense: {new} at position {i}")));
        }
        let (r, _) = sources[s];
        r.with_raw_document(old, |raw| w.add_raw(raw))?;
    }
    w.finish()
}
