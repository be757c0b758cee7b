//! codec/: "how is a number, a block of numbers, a header or a footer written".
//!
//! Conventions (the full text is `format/README.md`):
//!
//! - Little-endian fixed-width integers; LEB128 varints (`vint`) for unsigned, zig-zag for signed.
//! - Every file starts with a [header](header) (magic, codec name, version, 16-byte id) and ends
//!   with a fixed 16-byte [footer](header::FOOTER_LEN) holding the CRC32 of every byte before it,
//!   computed by [`IndexOutput`] while writing, never by re-reading.
//! - Decoders are pure functions over byte slices ([`ByteReader`]): any input gives a value or an
//!   [`Error::Corrupt`](crate::engine::Error) naming the offset, never a panic.

pub mod bitpack;
pub mod header;
pub mod murmur3;
mod output;
mod reader;

pub use header::{check_footer, check_header, footer_checksum, write_header, FileHeader, FOOTER_LEN};
pub use output::IndexOutput;
pub use reader::ByteReader;

/// Appends an unsigned LEB128 varint.
#[inline]
pub fn put_vu64(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// Zig-zag encodes a signed integer so small magnitudes get short varints.
#[inline]
pub fn zigzag(v: i64) -> u64 {
    ((v << 1) ^ (v >> 63)) as u64
}

/// Inverse of [`zigzag`].
#[inline]
pub fn unzigzag(v: u64) -> i64 {
    ((v >> 1) as i64) ^ -((v & 1) as i64)
}

/// Appends a length-prefixed byte string.
pub fn put_bytes(out: &mut Vec<u8>, b: &[u8]) {
    put_vu64(out, b.len() as u64);
    out.extend_from_slice(b);
}

#[cfg(test)]
mod tests;
