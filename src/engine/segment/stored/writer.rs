//! Writing a `.fdt` file (version 2), at flush or at merge.

use super::{encode_split, StoredReader, BLOCK_MAX_DOCS, BLOCK_TARGET, CODEC, EXT, VERSION, ZSTD_LEVEL};
use crate::engine::codec::{put_vu64, IndexOutput};
use crate::engine::segment::{DocMap, SegmentId};
use crate::engine::store::Directory;
use crate::engine::{Error, Result};

/// One half of the block being filled: the docs' encodings back to back and their lengths.
#[derive(Default)]
struct Part {
    docs: Vec<u8>,
    lens: Vec<u64>,
}

impl Part {
    /// Records the doc whose encoding was appended to `docs` since it held `start` bytes.
    fn close_doc(&mut self, start: usize) {
        self.lens.push((self.docs.len() - start) as u64);
    }

    fn push(&mut self, doc: &[u8]) {
        self.docs.extend_from_slice(doc);
        self.lens.push(doc.len() as u64);
    }

    /// `DocLen vu64 ^ DocCount, Doc ^ DocCount` into `out` (cleared first); empties the part.
    fn take_raw(&mut self, out: &mut Vec<u8>) {
        out.clear();
        for &l in &self.lens {
            put_vu64(out, l);
        }
        out.extend_from_slice(&self.docs);
        self.docs.clear();
        self.lens.clear();
    }
}

/// Streams docs into blocks; keeps only the current block and the block index in memory.
pub struct StoredWriter {
    out: IndexOutput,
    name: String,
    /// Fields other than `_source` (stored uncompressed) and `_source` (compressed).
    light: Part,
    heavy: Part,
    /// Encoded block index entries: `DocCount vu64, LightLen vu64, CompLen vu64, RawLen vu64`.
    index: Vec<u8>,
    blocks: u64,
    docs: u64,
    /// Raw bytes of the section being written (reused).
    raw: Vec<u8>,
    /// The compressed frame being written (reused).
    comp: Vec<u8>,
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
            light: Part::default(),
            heavy: Part::default(),
            index: Vec::new(),
            blocks: 0,
            docs: 0,
            raw: Vec::new(),
            comp: Vec::new(),
            zstd,
        })
    }

    /// Adds the next doc (doc ids are assigned in call order from 0).
    pub fn add(&mut self, fields: &[(u32, &[u8])]) -> Result<()> {
        // Encoded straight into the block's parts (no per-doc scratch copy).
        let (l0, h0) = (self.light.docs.len(), self.heavy.docs.len());
        encode_split(fields, &mut self.light.docs, &mut self.heavy.docs);
        self.light.close_doc(l0);
        self.heavy.close_doc(h0);
        self.doc_added()
    }

    /// Adds the next doc as the encodings of its fields other than `_source` and of its
    /// `_source` fields (merges copy docs this way).
    pub(super) fn add_parts(&mut self, light: &[u8], heavy: &[u8]) -> Result<()> {
        self.light.push(light);
        self.heavy.push(heavy);
        self.doc_added()
    }

    /// Counts the doc just appended to both parts and closes the block if it is full.
    fn doc_added(&mut self) -> Result<()> {
        self.docs += 1;
        if self.heavy.docs.len() >= BLOCK_TARGET
            || self.light.docs.len() >= BLOCK_TARGET
            || self.light.lens.len() >= BLOCK_MAX_DOCS
        {
            self.flush_block()?;
        }
        Ok(())
    }

    fn flush_block(&mut self) -> Result<()> {
        let count = self.light.lens.len() as u64;
        if count == 0 {
            return Ok(());
        }
        self.light.take_raw(&mut self.raw);
        self.out.put(&self.raw)?;
        let light_len = self.raw.len() as u64;
        self.heavy.take_raw(&mut self.raw);
        // Into a reused buffer of the worst-case size: no allocation per block.
        self.comp.clear();
        self.comp.reserve(zstd::zstd_safe::compress_bound(self.raw.len()));
        let n = self
            .zstd
            .compress_to_buffer(&self.raw, &mut self.comp)
            .map_err(|e| Error::io(self.name.clone(), "compress", e))?;
        self.out.put(&self.comp)?;
        for v in [count, light_len, n as u64, self.raw.len() as u64] {
            put_vu64(&mut self.index, v);
        }
        self.blocks += 1;
        Ok(())
    }

    /// Docs added so far.
    pub fn num_docs(&self) -> u64 {
        self.docs
    }

    /// Writes the last block, the block index and the footer; returns the file name.
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
/// order, copied as encoded bytes (version-1 sources are split into the two parts). The new ids
/// of all sources together must be `0..n`.
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
        r.with_raw_parts(old, |light, heavy| w.add_parts(light, heavy))?;
    }
    w.finish()
}
