//! Reading a `.fdt` file of version 1 or 2. Open decodes and checks the block index (doc counts,
//! offsets and lengths add up); a doc is found by binary search over the blocks' first docs.
//! Version 2 reads the fields other than `_source` straight from the file; the last decompressed
//! block is cached, and decompression reuses one zstd context per thread.

use std::cell::RefCell;
use std::io::Read;

use super::{decode_doc, encode_split, CODEC, EXT, KEY_SOURCE, MAX_BLOCK_RAW, MIN_VERSION, VERSION};
use crate::engine::codec::{check_footer, check_header, ByteReader};
use crate::engine::segment::doc_values::packed::open_frame;
use crate::engine::segment::{DocId, SegmentId};
use crate::engine::store::{Directory, FileBytes};
use crate::engine::sync::{lock, Arc, Mutex};
use crate::engine::{Error, Result};

/// One block. Version 1: `light_len` is 0 and the zstd frame holds whole docs; version 2: the
/// uncompressed fields other than `_source` come first, then the frame of `_source` fields.
#[derive(Debug, Clone, Copy)]
struct BlockEntry {
    first_doc: DocId,
    docs: u32,
    offset: usize,
    light_len: usize,
    comp_len: usize,
    raw_len: u64,
}

impl BlockEntry {
    fn comp_offset(&self) -> usize {
        self.offset + self.light_len
    }
}

/// What [`check_file`] found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Summary {
    /// Documents.
    pub docs: u32,
    /// Blocks.
    pub blocks: usize,
    /// Uncompressed bytes of all blocks (both sections in version 2).
    pub raw_bytes: u64,
    /// Format version of the file.
    pub version: u32,
}

/// An open `.fdt` file. `Send + Sync`; the cache of the last decompressed block sits behind a
/// mutex held only to swap the block in or out.
#[derive(Debug)]
pub struct StoredReader {
    name: String,
    bytes: FileBytes,
    max_doc: u32,
    version: u32,
    blocks: Vec<BlockEntry>,
    cache: Mutex<Option<(usize, Arc<Vec<u8>>)>>,
}

/// Blocks up to this raw size are decompressed in one call into a buffer of their announced size.
const BULK_MAX: u64 = 1 << 20;

thread_local! {
    /// One zstd decompression context per thread (creating one per block is a large reset).
    static DCTX: RefCell<Option<zstd::bulk::Decompressor<'static>>> = const { RefCell::new(None) };
}

/// Decompresses `comp` into `out`'s spare capacity (never more): the bytes written.
fn decompress_into(comp: &[u8], out: &mut Vec<u8>) -> std::io::Result<usize> {
    DCTX.with(|c| {
        let mut c = c.try_borrow_mut().map_err(|_| std::io::Error::other("zstd context in use"))?;
        if c.is_none() {
            *c = Some(zstd::bulk::Decompressor::new()?);
        }
        match c.as_mut() {
            Some(d) => d.decompress_to_buffer(comp, out),
            None => Err(std::io::Error::other("no zstd context")),
        }
    })
}

fn parse_index(bytes: &[u8], name: &str, id: Option<&[u8; 16]>, max_doc: u32) -> Result<(u32, Vec<BlockEntry>)> {
    let version = check_header(bytes, name, CODEC, MIN_VERSION, VERSION, id)?.version;
    let frame = open_frame(bytes, name, CODEC, version, id)?;
    let mut r = ByteReader::at(frame.meta, frame.meta_start as u64);
    let parse = |r: &mut ByteReader<'_>| -> Result<Vec<BlockEntry>> {
        let docs = r.vu64()?;
        if docs != max_doc as u64 {
            return Err(r.error(format!("file holds {docs} docs, segment has {max_doc}")));
        }
        // Each entry takes at least 3 (version 1) or 4 bytes.
        let n = r.len(r.remaining() / 3)?;
        let mut blocks = Vec::with_capacity(n);
        let mut first_doc = 0u64;
        let mut offset = frame.data_start as u64;
        for b in 0..n {
            let count = r.vu64()?;
            let light_len = if version >= 2 { r.vu64()? } else { 0 };
            let comp_len = r.vu64()?;
            let raw_len = r.vu64()?;
            let room = frame.meta_start as u64 - offset;
            let light_ok = if version >= 2 { light_len >= count.saturating_mul(2) } else { light_len == 0 };
            if count == 0
                || count > docs - first_doc
                || raw_len > MAX_BLOCK_RAW
                || raw_len < count
                || !light_ok
                || light_len > room
                || comp_len > room - light_len
            {
                return Err(r.error(format!(
                    "block {b}: {count} docs from doc {first_doc}, {light_len} + {comp_len} bytes at {offset}, {raw_len} raw bytes do not fit"
                )));
            }
            blocks.push(BlockEntry {
                first_doc: first_doc as u32,
                docs: count as u32,
                offset: offset as usize,
                light_len: light_len as usize,
                comp_len: comp_len as usize,
                raw_len,
            });
            first_doc += count;
            offset += light_len + comp_len;
        }
        if first_doc != docs || offset != frame.meta_start as u64 || !r.is_empty() {
            return Err(r.error(format!(
                "blocks cover {first_doc} docs and end at {offset}; expected {docs} docs ending at {}",
                frame.meta_start
            )));
        }
        Ok(blocks)
    };
    let blocks = parse(&mut r).map_err(|e| e.in_file(name))?;
    Ok((version, blocks))
}

impl StoredReader {
    /// Opens `{segment}.fdt`: checks header, footer structure and the block index.
    pub fn open(dir: &dyn Directory, seg: &SegmentId, max_doc: u32) -> Result<Self> {
        let name = seg.file(EXT);
        let bytes = dir.open(&name)?;
        let (version, blocks) = parse_index(&bytes, &name, Some(&seg.id), max_doc)?;
        Ok(StoredReader { name, bytes, max_doc, version, blocks, cache: Mutex::new(None) })
    }

    /// The documents the file holds.
    pub fn max_doc(&self) -> u32 {
        self.max_doc
    }

    /// The file's format version.
    pub fn version(&self) -> u32 {
        self.version
    }

    /// Verifies the checksum, decompresses every block and decodes every doc.
    pub fn check_integrity(&self) -> Result<()> {
        check_footer(&self.bytes, &self.name)?;
        for b in 0..self.blocks.len() {
            let e = self.entry(b)?;
            let raw = self.decompress(b)?;
            let light = self.light(e)?;
            for doc in e.first_doc..e.first_doc + e.docs {
                let (s, end) =
                    doc_range(&raw, e.comp_offset() as u64, e, doc).map_err(|err| err.in_file(&self.name))?;
                decode_doc(raw.get(s..end).unwrap_or(&[]), e.comp_offset() as u64)
                    .map_err(|err| err.in_file(&self.name))?;
                if self.version >= 2 {
                    let (s, end) = doc_range(light, e.offset as u64, e, doc).map_err(|err| err.in_file(&self.name))?;
                    decode_doc(light.get(s..end).unwrap_or(&[]), e.offset as u64)
                        .map_err(|err| err.in_file(&self.name))?;
                }
            }
        }
        Ok(())
    }

    fn entry(&self, b: usize) -> Result<BlockEntry> {
        self.blocks.get(b).copied().ok_or_else(|| Error::corrupt(&self.name, 0, format!("no block {b}")))
    }

    /// The uncompressed section of a version-2 block (empty in version 1).
    fn light(&self, e: BlockEntry) -> Result<&[u8]> {
        self.bytes
            .get(e.offset..e.comp_offset())
            .ok_or_else(|| Error::corrupt(&self.name, e.offset as u64, "block beyond the file"))
    }

    fn decompress(&self, b: usize) -> Result<Arc<Vec<u8>>> {
        let e = self.entry(b)?;
        let at = e.comp_offset();
        let bad = |why: String| Error::corrupt(&self.name, at as u64, format!("block {b}: {why}"));
        let comp = self.bytes.get(at..at + e.comp_len).ok_or_else(|| bad("beyond the file".into()))?;
        let n = if e.raw_len <= BULK_MAX {
            // The capacity bounds what zstd may write: a frame announcing more is an error.
            let mut raw = Vec::with_capacity(e.raw_len as usize);
            let n = decompress_into(comp, &mut raw)
                .map_err(|err| bad(format!("zstd: {err} (index says {} bytes)", e.raw_len)))?;
            (n, raw)
        } else {
            // Large (single-doc) blocks grow the buffer as bytes really come out, so a damaged
            // index cannot make the reader reserve up to `MAX_BLOCK_RAW` up front. One byte more
            // than announced detects a longer block.
            let dec = zstd::stream::read::Decoder::with_buffer(comp).map_err(|err| bad(err.to_string()))?;
            let mut raw = Vec::with_capacity(BULK_MAX as usize);
            dec.single_frame().take(e.raw_len + 1).read_to_end(&mut raw).map_err(|err| bad(format!("zstd: {err}")))?;
            (raw.len(), raw)
        };
        let (n, raw) = n;
        if n as u64 != e.raw_len || raw.len() != n {
            return Err(bad(format!("decompressed to {n} bytes, index says {}", e.raw_len)));
        }
        Ok(Arc::new(raw))
    }

    /// The decompressed section of block `b`, from the cache when it holds it.
    fn block(&self, b: usize) -> Result<Arc<Vec<u8>>> {
        let cached = lock(&self.cache).as_ref().filter(|c| c.0 == b).map(|c| c.1.clone());
        match cached {
            Some(raw) => Ok(raw),
            None => {
                let raw = self.decompress(b)?;
                *lock(&self.cache) = Some((b, raw.clone()));
                Ok(raw)
            }
        }
    }

    fn block_of(&self, doc: DocId) -> Result<usize> {
        if doc >= self.max_doc {
            return Err(Error::InvalidArgument(format!("doc {doc} out of range (max_doc {})", self.max_doc)));
        }
        Ok(self.blocks.partition_point(|e| e.first_doc <= doc).saturating_sub(1))
    }

    /// Calls `f` with the encodings of `doc`'s fields other than `_source` and of its `_source`
    /// fields (version-1 docs are split, so a merge writes version 2 from either).
    pub(super) fn with_raw_parts<T>(&self, doc: DocId, f: impl FnOnce(&[u8], &[u8]) -> Result<T>) -> Result<T> {
        let b = self.block_of(doc)?;
        let e = self.entry(b)?;
        let raw = self.block(b)?;
        let at = e.comp_offset() as u64;
        let (s, end) = doc_range(&raw, at, e, doc).map_err(|err| err.in_file(&self.name))?;
        let heavy = raw.get(s..end).unwrap_or(&[]);
        if self.version >= 2 {
            let light = self.light(e)?;
            let (s, end) = doc_range(light, e.offset as u64, e, doc).map_err(|err| err.in_file(&self.name))?;
            return f(light.get(s..end).unwrap_or(&[]), heavy);
        }
        let fields = decode_doc(heavy, at).map_err(|err| err.in_file(&self.name))?;
        let fields: Vec<(u32, &[u8])> = fields.iter().map(|(k, v)| (*k, v.as_slice())).collect();
        let (mut light, mut heavy) = (Vec::new(), Vec::new());
        encode_split(&fields, &mut light, &mut heavy);
        f(&light, &heavy)
    }

    /// The stored fields of `doc`: in version 2 the fields other than `_source` in the order
    /// they were added, then the `_source` fields; in version 1 all in the order added.
    pub fn document(&self, doc: DocId) -> Result<Vec<(u32, Vec<u8>)>> {
        self.document_fields(doc, true)
    }

    /// As [`document`](Self::document); without `with_source` the `_source` fields are left
    /// out, which in version 2 reads no compressed data.
    pub fn document_fields(&self, doc: DocId, with_source: bool) -> Result<Vec<(u32, Vec<u8>)>> {
        let b = self.block_of(doc)?;
        let e = self.entry(b)?;
        let mut out = Vec::new();
        if self.version >= 2 {
            let light = self.light(e)?;
            let (s, end) = doc_range(light, e.offset as u64, e, doc).map_err(|err| err.in_file(&self.name))?;
            out =
                decode_doc(light.get(s..end).unwrap_or(&[]), e.offset as u64).map_err(|err| err.in_file(&self.name))?;
            if !with_source {
                return Ok(out);
            }
        }
        let raw = self.block(b)?;
        let at = e.comp_offset() as u64;
        let (s, end) = doc_range(&raw, at, e, doc).map_err(|err| err.in_file(&self.name))?;
        out.extend(decode_doc(raw.get(s..end).unwrap_or(&[]), at).map_err(|err| err.in_file(&self.name))?);
        if !with_source {
            out.retain(|f| f.0 != KEY_SOURCE);
        }
        Ok(out)
    }
}

/// Where `doc` lies in a section's raw bytes (`<DocLen vu64>^Docs` then the docs); `base` is
/// the file offset reported in errors.
fn doc_range(raw: &[u8], base: u64, e: BlockEntry, doc: DocId) -> Result<(usize, usize)> {
    let mut r = ByteReader::at(raw, base);
    let k = doc.saturating_sub(e.first_doc);
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
    let (version, blocks) = parse_index(bytes, name, None, max_doc)?;
    let raw_bytes = blocks.iter().map(|b| b.raw_len + b.light_len as u64).sum();
    let r = StoredReader {
        name: name.to_string(),
        bytes: FileBytes::copy_from_slice(bytes),
        max_doc,
        version,
        blocks,
        cache: Mutex::new(None),
    };
    r.check_integrity()?;
    Ok(Summary { docs: max_doc, blocks: r.blocks.len(), raw_bytes, version })
}
