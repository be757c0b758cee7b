//! Stored fields (`.fdt`): per doc a list of `(key, bytes)` — `_id`, `_source`, `_routing` under
//! keys fixed by the caller ([`KEY_ID`], [`KEY_SOURCE`], [`KEY_ROUTING`]), not field numbers —
//! in small blocks (at most [`BLOCK_MAX_DOCS`] docs or about [`BLOCK_TARGET`] bytes of source),
//! with a block index for random access. Version 2 keeps every field but `_source` in an
//! uncompressed section of its block, so reading `_id` / `_routing` needs no decompression, and
//! compresses the `_source` values of a block as one zstd frame. Version 1 files (one zstd frame
//! of whole docs per ~32 KiB block) are still read. Layout: `format/stored-fields.md`.
//!
//! Order of calls: [`StoredWriter::create`] → [`StoredWriter::add`] once per doc in doc-id order
//! → [`StoredWriter::finish`]. [`merge_stored`] copies the live docs of its sources without
//! re-encoding them.

mod reader;
mod writer;

pub use reader::{check_file, StoredReader, Summary};
pub use writer::{merge_stored, StoredWriter};

use crate::engine::codec::{put_vu64, ByteReader};
use crate::engine::Result;

/// Codec name in the `.fdt` header.
pub const CODEC: &str = "FathomStoredFields";
/// Current `.fdt` format version (the one written).
pub const VERSION: u32 = 2;
/// Oldest `.fdt` format version still read.
pub const MIN_VERSION: u32 = 1;
/// File extension.
pub const EXT: &str = "fdt";
/// A block is closed once its raw `_source` values (or its uncompressed other fields) reach
/// this many bytes: one hit decompresses about this much.
pub const BLOCK_TARGET: usize = 8 * 1024;
/// A block holds at most this many docs (bounds the work to locate one doc in a block).
pub const BLOCK_MAX_DOCS: usize = 16;
/// zstd level: 1, the fastest, since blocks are compressed on every flush and merge.
pub const ZSTD_LEVEL: i32 = 1;
/// Largest raw block accepted when reading (a single doc may exceed [`BLOCK_TARGET`]).
pub const MAX_BLOCK_RAW: u64 = 1 << 31;

/// Key of the `_id` value.
pub const KEY_ID: u32 = 0;
/// Key of the `_source` value.
pub const KEY_SOURCE: u32 = 1;
/// Key of the `_routing` value.
pub const KEY_ROUTING: u32 = 2;

/// Appends a doc's encoding: `NumFields vu64, <Key vu32, Len vu64, Bytes>^NumFields` (the
/// writer splits docs with [`encode_split`]; tests build version-1 files with this).
#[cfg(test)]
fn encode_doc(fields: &[(u32, &[u8])], out: &mut Vec<u8>) {
    put_vu64(out, fields.len() as u64);
    for (k, v) in fields {
        put_vu64(out, *k as u64);
        put_vu64(out, v.len() as u64);
        out.extend_from_slice(v);
    }
}

/// Appends the encodings of the doc's fields other than `_source` (to `light`) and of its
/// `_source` fields (to `heavy`), each in the order given.
fn encode_split(fields: &[(u32, &[u8])], light: &mut Vec<u8>, heavy: &mut Vec<u8>) {
    let n_src = fields.iter().filter(|f| f.0 == KEY_SOURCE).count();
    put_vu64(light, (fields.len() - n_src) as u64);
    put_vu64(heavy, n_src as u64);
    for (k, v) in fields {
        let out = if *k == KEY_SOURCE { &mut *heavy } else { &mut *light };
        put_vu64(out, *k as u64);
        put_vu64(out, v.len() as u64);
        out.extend_from_slice(v);
    }
}

/// Decodes one doc's encoding (exactly: trailing bytes are an error).
fn decode_doc(bytes: &[u8], base: u64) -> Result<Vec<(u32, Vec<u8>)>> {
    let mut r = ByteReader::at(bytes, base);
    // Each field takes at least 2 bytes, which bounds the count.
    let n = r.len(r.remaining() / 2)?;
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        let k = r.vu32()?;
        out.push((k, r.bytes()?.to_vec()));
    }
    if !r.is_empty() {
        return Err(r.error(format!("{} trailing bytes after a stored document", r.remaining())));
    }
    Ok(out)
}

#[cfg(test)]
mod tests;
