//! The header and footer that every Fathom file carries (`format/README.md`, "Header and footer").
//!
//! ```text
//! Header --> Magic u32 = 0x4D485446 ("FTHM"), CodecLen u8, Codec [u8; CodecLen] (ASCII),
//!            Version u32, Id [u8; 16]
//! Footer --> FooterMagic u32 = !Magic, Algorithm u32 = 0 (CRC32), Checksum u64 (CRC32 of every
//!            byte of the file before the footer, zero-extended)
//! ```

use super::ByteReader;
use crate::engine::{Error, Result};

/// The first four bytes of every Fathom file: "FTHM" read as a little-endian u32.
pub const HEADER_MAGIC: u32 = u32::from_le_bytes(*b"FTHM");
/// The first four bytes of every footer.
pub const FOOTER_MAGIC: u32 = !HEADER_MAGIC;
/// The footer's fixed length.
pub const FOOTER_LEN: usize = 16;
/// Algorithm id of CRC32 (the only one so far).
pub const ALGORITHM_CRC32: u32 = 0;
/// Longest codec name.
pub const MAX_CODEC_LEN: usize = 64;

/// What a header says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileHeader {
    /// The format version the file was written with.
    pub version: u32,
    /// The segment id, translog uuid or commit id the file belongs to.
    pub id: [u8; 16],
    /// The header's length in bytes: where the body starts.
    pub len: usize,
}

/// Appends a header.
pub fn write_header(out: &mut Vec<u8>, codec: &str, version: u32, id: &[u8; 16]) {
    assert!(codec.len() <= MAX_CODEC_LEN && codec.is_ascii(), "codec names are short ASCII constants");
    out.extend_from_slice(&HEADER_MAGIC.to_le_bytes());
    out.push(codec.len() as u8);
    out.extend_from_slice(codec.as_bytes());
    out.extend_from_slice(&version.to_le_bytes());
    out.extend_from_slice(id);
}

/// The header length for a codec name.
pub fn header_len(codec: &str) -> usize {
    4 + 1 + codec.len() + 4 + 16
}

/// Reads and checks a header: magic, codec name, version within `[min, max]`, and the id when
/// one is expected. Errors are labelled with `file`.
pub fn check_header(
    bytes: &[u8],
    file: &str,
    codec: &str,
    min: u32,
    max: u32,
    expected_id: Option<&[u8; 16]>,
) -> Result<FileHeader> {
    let mut r = ByteReader::new(bytes);
    let at = |r: &ByteReader<'_>, msg: String| Error::corrupt(file, r.offset(), msg);
    let magic = r.u32().map_err(|e| e.in_file(file))?;
    if magic != HEADER_MAGIC {
        return Err(Error::corrupt(
            file,
            0,
            format!("codec header mismatch: actual header={magic:#010x} vs expected header={HEADER_MAGIC:#010x}"),
        ));
    }
    let n = r.u8().map_err(|e| e.in_file(file))? as usize;
    let name = r.take(n).map_err(|e| e.in_file(file))?;
    if name != codec.as_bytes() {
        return Err(at(
            &r,
            format!("codec mismatch: actual codec={} vs expected codec={codec}", String::from_utf8_lossy(name)),
        ));
    }
    let version = r.u32().map_err(|e| e.in_file(file))?;
    if version < min {
        return Err(Error::FormatTooOld { file: file.to_string(), version, min });
    }
    if version > max {
        return Err(Error::FormatTooNew { file: file.to_string(), version, max });
    }
    let mut id = [0u8; 16];
    id.copy_from_slice(r.take(16).map_err(|e| e.in_file(file))?);
    if let Some(want) = expected_id {
        if &id != want {
            return Err(at(&r, format!("file id mismatch: expected={} actual={}", hex(want), hex(&id))));
        }
    }
    Ok(FileHeader { version, id, len: r.pos() })
}

/// The 16 footer bytes for a checksum.
pub fn footer_bytes(crc: u32) -> [u8; FOOTER_LEN] {
    let mut f = [0u8; FOOTER_LEN];
    f[0..4].copy_from_slice(&FOOTER_MAGIC.to_le_bytes());
    f[4..8].copy_from_slice(&ALGORITHM_CRC32.to_le_bytes());
    f[8..16].copy_from_slice(&(crc as u64).to_le_bytes());
    f
}

/// Tests: `file` with its footer's checksum recomputed, so that damage made to it reaches the
/// structural checks behind the CRC.
#[cfg(test)]
pub fn refooter(mut file: Vec<u8>) -> Vec<u8> {
    let n = file.len() - FOOTER_LEN;
    let crc = crc32fast::hash(&file[..n]);
    file.truncate(n);
    file.extend_from_slice(&footer_bytes(crc));
    file
}

/// Checks the footer's structure in O(1) and returns the stored checksum, without hashing the
/// file (Lucene's `retrieveChecksum`).
pub fn footer_checksum(bytes: &[u8], file: &str) -> Result<u32> {
    if bytes.len() < FOOTER_LEN {
        return Err(Error::corrupt(
            file,
            0,
            format!("misplaced codec footer (file truncated?): length={} but footerLength={FOOTER_LEN}", bytes.len()),
        ));
    }
    let start = bytes.len() - FOOTER_LEN;
    let mut r = ByteReader::at(&bytes[start..], start as u64);
    let magic = r.u32()?;
    if magic != FOOTER_MAGIC {
        return Err(Error::corrupt(
            file,
            start as u64,
            format!("codec footer mismatch (file truncated?): actual footer={magic:#010x} vs expected footer={FOOTER_MAGIC:#010x}"),
        ));
    }
    let algo = r.u32()?;
    if algo != ALGORITHM_CRC32 {
        return Err(Error::corrupt(file, start as u64 + 4, format!("unknown checksum algorithm id {algo}")));
    }
    let crc = r.u64()?;
    if crc >> 32 != 0 {
        return Err(Error::corrupt(file, start as u64 + 8, format!("illegal CRC-32 checksum: {crc}")));
    }
    Ok(crc as u32)
}

/// Verifies the whole file: footer structure and the CRC32 of every byte before it. Returns the
/// body without the footer.
pub fn check_footer<'a>(bytes: &'a [u8], file: &str) -> Result<&'a [u8]> {
    let expected = footer_checksum(bytes, file)?;
    let body = &bytes[..bytes.len() - FOOTER_LEN];
    let actual = crc32fast::hash(body);
    if actual != expected {
        return Err(Error::ChecksumMismatch { file: file.to_string(), expected, actual });
    }
    Ok(body)
}

/// Lower-case hex of an id, for messages and `fathom inspect`.
pub fn hex(id: &[u8]) -> String {
    id.iter().map(|b| format!("{b:02x}")).collect()
}
