//! Building blocks shared by the column files (`.dvd`, `.pts`): the file frame (header, data
//! sections, metadata block, metadata offset, footer), length-validated views of bit-packed
//! integer arrays and of bitsets.
//!
//! Frame (see `format/doc-values.md`, "Frame"):
//! ```text
//! File --> Header, Data, Meta, MetaOffset u64, Footer
//! ```
//! Sections are `(offset vu64, len vu64)` pairs in the metadata that must lie inside `Data`.

use crate::engine::codec::bitpack::{get64, pack64, unpack32};
use crate::engine::codec::{check_header, footer_checksum, ByteReader, FOOTER_LEN};
use crate::engine::{Error, Result};

/// The parts of a framed file once header, footer structure and metadata offset are checked.
#[derive(Debug, Clone, Copy)]
pub struct Frame<'a> {
    /// The whole file.
    pub file: &'a [u8],
    /// Where the data area starts (just after the header).
    pub data_start: usize,
    /// Where the data area ends and the metadata starts.
    pub meta_start: usize,
    /// The metadata bytes.
    pub meta: &'a [u8],
}

/// Checks the header (codec, version, id) and the footer structure (not the checksum, which is
/// O(file)), and locates the metadata through the trailing `MetaOffset`.
pub fn open_frame<'a>(
    file: &'a [u8],
    name: &str,
    codec: &str,
    version: u32,
    id: Option<&[u8; 16]>,
) -> Result<Frame<'a>> {
    footer_checksum(file, name)?;
    let body = &file[..file.len() - FOOTER_LEN];
    let h = check_header(body, name, codec, version, version, id)?;
    if body.len() < h.len + 8 {
        return Err(Error::corrupt(name, h.len as u64, "file too short for its metadata offset (file truncated?)"));
    }
    let trailer = body.len() - 8;
    let mut r = ByteReader::at(&body[trailer..], trailer as u64);
    let meta_start = r.u64().map_err(|e| e.in_file(name))?;
    if meta_start < h.len as u64 || meta_start > trailer as u64 {
        return Err(Error::corrupt(
            name,
            trailer as u64,
            format!("metadata offset {meta_start} outside [{}, {trailer}]", h.len),
        ));
    }
    let meta_start = meta_start as usize;
    Ok(Frame { file, data_start: h.len, meta_start, meta: &body[meta_start..trailer] })
}

impl<'a> Frame<'a> {
    /// A reader over the metadata, reporting file offsets.
    pub fn meta_reader(&self) -> ByteReader<'a> {
        ByteReader::at(self.meta, self.meta_start as u64)
    }

    /// Reads a section `(offset, len)` from the metadata and checks it lies in the data area and
    /// has exactly `expected_len` bytes when that is given.
    pub fn section(&self, r: &mut ByteReader<'_>, what: &str, expected_len: Option<u64>) -> Result<Section> {
        let at = r.offset();
        let offset = r.vu64()?;
        let len = r.vu64()?;
        let end = offset.checked_add(len);
        if offset < self.data_start as u64 || end.is_none_or(|e| e > self.meta_start as u64) {
            return Err(Error::corrupt(
                "",
                at,
                format!(
                    "{what} section [{offset}, +{len}) outside data area [{}, {})",
                    self.data_start, self.meta_start
                ),
            ));
        }
        if let Some(want) = expected_len {
            if len != want {
                return Err(Error::corrupt("", at, format!("{what} section has {len} bytes, expected {want}")));
            }
        }
        Ok(Section { offset: offset as usize, len: len as usize })
    }
}

/// Where a part of a column lives in its file. Validated against the data area on open.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Section {
    /// Start offset in the file.
    pub offset: usize,
    /// Length in bytes.
    pub len: usize,
}

impl Section {
    /// The section's bytes (empty if the file is shorter, which open-time validation excludes).
    #[inline]
    pub fn bytes<'a>(&self, file: &'a [u8]) -> &'a [u8] {
        file.get(self.offset..self.offset.saturating_add(self.len)).unwrap_or(&[])
    }

    /// Appends the section to metadata.
    pub fn put(&self, meta: &mut Vec<u8>) {
        crate::engine::codec::put_vu64(meta, self.offset as u64);
        crate::engine::codec::put_vu64(meta, self.len as u64);
    }
}

/// Bytes `n` values of `bits` bits occupy (`u64::MAX`, which no section can have, when absurd).
pub fn packed_len(n: u64, bits: u8) -> u64 {
    let b = (n as u128) * bits as u128;
    u64::try_from(b.div_ceil(8)).unwrap_or(u64::MAX)
}

/// Checks a bit width read from disk.
pub fn check_bits(r: &ByteReader<'_>, bits: u8, max: u8) -> Result<u8> {
    if bits > max {
        return Err(r.error(format!("bit width {bits} exceeds {max}")));
    }
    Ok(bits)
}

/// Packs `values` at the smallest width that holds the largest; returns the width.
pub fn pack_min_width(values: &[u64], out: &mut Vec<u8>) -> u8 {
    let bits = crate::engine::codec::bitpack::bits_needed(values.iter().copied().max().unwrap_or(0));
    pack64(values, bits, out);
    bits
}

/// A read-only array of `count` integers of `bits` bits each whose length was checked.
#[derive(Debug, Clone, Copy)]
pub struct PackedInts<'a> {
    bytes: &'a [u8],
    bits: u8,
    count: u64,
}

impl<'a> PackedInts<'a> {
    /// A view; `bytes` must hold exactly `packed_len(count, bits)` bytes.
    pub fn new(bytes: &'a [u8], bits: u8, count: u64) -> Result<Self> {
        if bits > 64 || packed_len(count, bits) != bytes.len() as u64 {
            return Err(Error::corrupt(
                "",
                0,
                format!("{count} values of {bits} bits do not fill {} bytes", bytes.len()),
            ));
        }
        Ok(PackedInts { bytes, bits, count })
    }

    /// An empty array.
    pub fn empty() -> PackedInts<'static> {
        PackedInts { bytes: &[], bits: 0, count: 0 }
    }

    /// The `i`-th value, `None` past the end.
    #[inline]
    pub fn get(&self, i: u64) -> Option<u64> {
        if i >= self.count {
            return None;
        }
        get64(self.bytes, self.bits, i as usize).ok()
    }

    /// Number of values.
    pub fn len(&self) -> u64 {
        self.count
    }

    /// Whether there are no values.
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// Bit width.
    pub fn bits(&self) -> u8 {
        self.bits
    }

    /// Calls `f` with values `start..end` in order, unpacking 64 at a time from an aligned start.
    pub fn for_range(&self, start: u64, end: u64, mut f: impl FnMut(u64)) {
        let end = end.min(self.count);
        if start >= end {
            return;
        }
        if self.bits == 0 || self.bits > 32 {
            for i in start..end {
                match get64(self.bytes, self.bits, i as usize) {
                    Ok(v) => f(v),
                    Err(_) => return,
                }
            }
            return;
        }
        let mut buf = [0u32; 64];
        // 8 values of `bits` bits end on a byte boundary, so an index that is a multiple of 8
        // starts at byte `index / 8 * bits`.
        let mut i = start & !7;
        while i < end {
            let n = (end - i).min(64) as usize;
            let byte = (i / 8) as usize * self.bits as usize;
            let Some(input) = self.bytes.get(byte..) else { return };
            let Some(out) = buf.get_mut(..n) else { return };
            if unpack32(input, self.bits, out).is_err() {
                return;
            }
            for (k, &v) in out.iter().enumerate() {
                if i + k as u64 >= start {
                    f(v as u64);
                }
            }
            i += n as u64;
        }
    }
}

/// A read-only bitset of `len` bits (least significant bit first) whose length was checked.
#[derive(Debug, Clone, Copy)]
pub struct Bits<'a> {
    bytes: &'a [u8],
}

impl<'a> Bits<'a> {
    /// A view over exactly `ceil(len / 8)` bytes.
    pub fn new(bytes: &'a [u8], len: u32) -> Result<Self> {
        if bytes.len() != (len as usize).div_ceil(8) {
            return Err(Error::corrupt("", 0, format!("bitset of {len} bits does not fit {} bytes", bytes.len())));
        }
        Ok(Bits { bytes })
    }

    /// Bit `i` (`false` past the end).
    #[inline]
    pub fn get(&self, i: u32) -> bool {
        self.bytes.get((i >> 3) as usize).is_some_and(|b| (b >> (i & 7)) & 1 == 1)
    }

    /// Set bits.
    pub fn count_ones(&self) -> u64 {
        self.bytes.iter().map(|b| b.count_ones() as u64).sum()
    }
}

/// Appends a bitset of `len` bits with the given bits set.
pub fn put_bits(len: u32, set: impl Iterator<Item = u32>, out: &mut Vec<u8>) {
    let start = out.len();
    out.resize(start + (len as usize).div_ceil(8), 0);
    for i in set {
        if let Some(b) = out.get_mut(start + (i >> 3) as usize) {
            *b |= 1 << (i & 7);
        }
    }
}
