//! Reading a `.fdt` file. Open decodes and checks the block index (doc counts, offsets and
//! lengths add up); a doc is found by binary search over the blocks' first docs, and the last
//! decompressed block is cached.

use std::io::Read;

use super::{decode_doc, CODEC, EXT, MAX_BLOCK_RAW, VERSION};
use crate::engine::codec::{check_footer, ByteReader};
use crate::engine::segment::doc_values::packed::open_frame;
use crate::engine::segment::{DocId, SegmentId};
use crate::engine::store::{Directory, FileBytes};
use crate::engine::sync::{lock, Arc, Mutex};
use crate::engine::{Error, Result};

/// One compressed block.
#[derive(Debug, Clone, Copy)]
struct BlockEntry {
    first_doc: DocId,
    docs: u32,
    offset: usize,
    comp_len: usize,
    raw_len: u64,
}

/// What [`check_file`] found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Summary {
    /// Documents.
    pub docs: u32,
    /// Compressed blocks.
    pub blocks: usize,
    /// Uncompressed bytes of all blocks.
    pub raw_bytes: u64,
}

/// An open `.fdt` file. `Send + Sync`; the cache of the last decompressed block sits behind a
/// mutex held only to swap the block in or out.
#[derive(Debug)]
pub struct StoredReader {
    name: String,
    bytes: FileBytes,
    max_doc: u32,
    blocks: Vec<BlockEntry>,
    cache: Mutex<Option<(usize, Arc<Vec<u8>>)>>,
}

fn parse_index(bytes: &[u8], name: &str, id: Option<&[u8; 16]>, max_doc: u32) -> Result<Vec<BlockEntry>> {
    let frame = open_frame(bytes, name, CODEC, VERSION, id)?;
    let mut r = ByteReader::at(frame.meta, frame.meta_start as u64);
    let parse = |r: &mut ByteReader<'_>| -> Result<Vec<BlockEntry>> {
        let docs = r.vu64()?;
        if docs != max_doc as u64 {
            return Err(r.error(format!("file holds {docs} docs, segment has {max_doc}")));
        }
        // Each entry takes at least 3 bytes.
        let n = r.len(r.remaining() / 3)?;
        let mut blocks = Vec::with_capacity(n);
        let mut first_doc = 0u64;
        let mut offset = frame.data_start as u64;
        for b in 0..n {
            let count = r.vu64()?;
            let comp_len = r.vu64()?;
            let raw_len = r.vu64()?;
            if count == 0 || count > docs - first_doc || raw_len > MAX_BLOCK_RAW || raw_len < count || comp_len > frame.meta_start as u64 - offset {
                return Err(r.error(format!(
                    "block {b}: {count} docs from doc {first_doc}, {comp_len} compressed bytes at {offset}, {raw_len} raw bytes do not fit"
                )));
            }
            blocks.push(BlockEntry { first_doc: first_doc as u32, docs: count as u32, offset: offset as usize, comp_len: comp_len as usize, raw_len });
            first_doc += count;
            offset += comp_len;
        }
        if first_doc != docs || offset != frame.meta_start as u64 || !r.is_empty() {
            return Err(r.error(format!("blocks cover {first_doc} docs and end at {offset}; expected {docs} docs ending at {}", frame.meta_start)));
        }
        Ok(blocks)
    };
    parse(&mut r).map_err(|e| e.in_file(name))
}

impl StoredReader {
    /// Opens `{segment}.fdt`: checks header, footer structure and the block index.
    pub fn open(dir: &dyn Directory, seg: &SegmentId, max_doc: u32) -> Result<Self> {
        let name = seg.file(EXT);
        let bytes = dir.open(&name)?;
        let blocks = parse_index(&bytes, &name, Some(&seg.id), max_doc)?;
        Ok(StoredReader { name, bytes, max_doc, blocks, cache: Mutex::new(None) })
    }

    /// The documents the file holds.
    pub fn max_doc(&self) -> u32 {
        self.max_doc
    }

    /// Verifies the checksum, decompresses every block and decodes every doc.
    pub fn check_integrity(&self) -> Result<()> {
        check_footer(&self.bytes, &self.name)?;
        for b in 0..self.blocks.len() {
            let raw = self.decompress(b)?;
            let e = self.entry(b)?;
            for doc in e.first_doc..e.first_doc + e.docs {
                let (s, end) = doc_range(&raw, e, doc).map_err(|err| err.in_file(&self.name))?;
                decode_doc(raw.get(s..end).unwrap_or(&[]), e.offset as u64).map_err(|err| err.in_file(&self.name))?;
            }
        }
        Ok(())
    }

    fn entry(&self, b: usize) -> Result<BlockEntry> {
        self.blocks.get(b).copied().ok_or_else(|| Error::corrupt(&self.name, 0, format!("no block {b}")))
    }

    fn decompress(&self, b: usize) -> Result<Arc<Vec<u8>>> {
        let e = self.entry(b)?;
        let comp = self.bytes.get(e.offset..e.offset + e.comp_len).unwrap_or(&[]);
        let bad = |why: String| Error::corrupt(&self.name, e.offset as u64, format!("block {b}: {why}"));
        let dec = zstd::stream::read::Decoder::with_buffer(comp).map_err(|err| bad(err.to_string()))?;
        let mut raw = Vec::with_capacity(e.raw_len.min(1 << 20) as usize);
        // Reading one byte more than announced detects a longer block without unbounded memory.
        dec.single_frame().take(e.raw_len + 1).read_to_end(&mut raw).map_err(|err| bad(format!("zstd: {err}")))?;
        if raw.len() as u64 != e.raw_len {
            return Err(bad(format!("decompressed to {} bytes, index says {}", raw.len(), e.raw_len)));
        }
        Ok(Arc::new(raw))
    }

    fn block_of(&self, doc: DocId) -> Result<usize> {
        if doc >= self.max_doc {
            return Err(Error::InvalidArgument(format!("doc {doc} out of range (max_doc {})", self.max_doc)));
        }
        Ok(self.blocks.partition_point(|e| e.first_doc <= doc).saturating_sub(1))
    }

    /// Calls `f` with the encoded bytes of `doc` (from the cached block when it holds the doc).
    pub(super) fn with_raw_document<T>(&self, doc: DocId, f: impl FnOnce(&[u8]) -> Result<T>) -> Result<T> {
        let b = self.block_of(doc)?;
        let cached = lock(&self.cache).as_ref().filter(|c| c.0 == b).map(|c| c.1.clone());
        let raw = match cached {
            Some(raw) => raw,
            None => {
                let raw = self.decompress(b)?;
                *lock(&self.cache) = Some((b, raw.clone()));
                raw
            }
        };
        let e = self.entry(b)?;
        let (s, end) = doc_range(&raw, e, doc).map_err(|err| err.in_file(&self.name))?;
        f(raw.get(s..end).unwrap_or(&[]))
    }

    /// The stored fields of `doc`, in the order they were added.
    pub fn document(&self, doc: DocId) -> Result<Vec<(u32, Vec<u8>)>> {
        let base = self.blocks.get(self.block_of(doc)?).map_or(0, |e| e.offset as u64);
        self.with_raw_document(doc, |raw| decode_doc(raw, base)).map_err(|e| e.in_file(&self.name))
    }
}

/// Where `doc` lies in its block's raw bytes: `<DocLen vu64>^Docs` then the docs.
fn doc_range(raw: &[u8], e: BlockEntry, doc: DocId) -> Result<(usize, usize)> {
    let mut r = ByteReader::at(raw, e.offset as u64);
    let k = doc - e.first_doc;
    let mut start = 0u64;
    let mut len = 0u64;
    let mut total = 0u64;
    for i in 0..e.docs {
        let l = r.vu64()?;
        if i < k {
            start = start.saturating_add(l);
        } else if i == k {
            len = l;
        }
        total = total.saturating_add(l);
    }
    if total != r.remaining() as u64 {
        return Err(r.error(format!("docs of the block take {total} bytes, {} follow their lengths", r.remaining())));
    }
    let s = r.pos() + start as usize;
    Ok((s, s + len as usize))
}

/// Verifies a whole `.fdt` image (checksum, index, every block and doc) — the fuzz target's
/// entry point.
pub fn check_file(bytes: &[u8], max_doc: u32) -> Result<Summary> {
    let name = "<fdt>";
    check_footer(bytes, name)?;
    let blocks = parse_index(bytes, name, None, max_doc)?;
    let raw_bytes = blocks.iter().map(|b| b.raw_len).sum();
    let r = StoredReader { name: name.to_string(), bytes: FileBytes::copy_from_slice(bytes), max_doc, blocks, cache: Mutex::new(None) };
    r.check_integrity()?;
    Ok(Summary { docs: max_doc, blocks: r.blocks.len(), raw_bytes })
}
