//! A bounds-checked cursor over bytes. Every read returns `Error::Corrupt` with the offset
//! instead of panicking; the file name is filled in by the caller with
//! [`Error::in_file`](crate::engine::Error::in_file).

use crate::engine::{Error, Result};

/// A cursor over a byte slice that never panics.
#[derive(Debug, Clone)]
pub struct ByteReader<'a> {
    buf: &'a [u8],
    pos: usize,
    /// Offset of `buf[0]` within its file, so errors report file offsets.
    base: u64,
}

impl<'a> ByteReader<'a> {
    /// A reader at the start of `buf`.
    pub fn new(buf: &'a [u8]) -> ByteReader<'a> {
        ByteReader { buf, pos: 0, base: 0 }
    }

    /// A reader over `buf`, which starts at `base` in its file.
    pub fn at(buf: &'a [u8], base: u64) -> ByteReader<'a> {
        ByteReader { buf, pos: 0, base }
    }

    /// The current position within the file.
    pub fn offset(&self) -> u64 {
        self.base + self.pos as u64
    }

    /// The position within `buf`.
    pub fn pos(&self) -> usize {
        self.pos
    }

    /// Bytes left.
    pub fn remaining(&self) -> usize {
        self.buf.len() - self.pos
    }

    /// Whether everything was read.
    pub fn is_empty(&self) -> bool {
        self.pos >= self.buf.len()
    }

    /// The unread rest.
    pub fn rest(&self) -> &'a [u8] {
        &self.buf[self.pos..]
    }

    /// An error at the current offset.
    pub fn error(&self, reason: impl Into<String>) -> Error {
        Error::corrupt("", self.offset(), reason)
    }

    /// Moves to an absolute position within `buf`.
    pub fn seek(&mut self, pos: usize) -> Result<()> {
        if pos > self.buf.len() {
            return Err(self.error(format!("seek to {pos} past end {}", self.buf.len())));
        }
        self.pos = pos;
        Ok(())
    }

    /// Takes the next `n` bytes.
    #[inline]
    pub fn take(&mut self, n: usize) -> Result<&'a [u8]> {
        if n > self.remaining() {
            return Err(self.error(format!("read of {n} bytes past end (file truncated?); {} left", self.remaining())));
        }
        let s = &self.buf[self.pos..self.pos + n];
        self.pos += n;
        Ok(s)
    }

    /// Skips `n` bytes.
    pub fn skip(&mut self, n: usize) -> Result<()> {
        self.take(n).map(|_| ())
    }

    #[inline]
    pub fn u8(&mut self) -> Result<u8> {
        Ok(self.take(1)?[0])
    }

    #[inline]
    pub fn u16(&mut self) -> Result<u16> {
        let b = self.take(2)?;
        Ok(u16::from_le_bytes([b[0], b[1]]))
    }

    #[inline]
    pub fn u32(&mut self) -> Result<u32> {
        let b = self.take(4)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    #[inline]
    pub fn u64(&mut self) -> Result<u64> {
        let b = self.take(8)?;
        let mut a = [0u8; 8];
        a.copy_from_slice(b);
        Ok(u64::from_le_bytes(a))
    }

    #[inline]
    pub fn i64(&mut self) -> Result<i64> {
        Ok(self.u64()? as i64)
    }

    /// An unsigned LEB128 varint of at most 10 bytes.
    #[inline]
    pub fn vu64(&mut self) -> Result<u64> {
        let mut v: u64 = 0;
        let mut shift = 0u32;
        loop {
            let b = self.u8()?;
            if shift == 63 && b > 1 {
                return Err(self.error("varint overflows 64 bits"));
            }
            v |= ((b & 0x7f) as u64) << shift;
            if b & 0x80 == 0 {
                return Ok(v);
            }
            shift += 7;
            if shift > 63 {
                return Err(self.error("varint longer than 10 bytes"));
            }
        }
    }

    /// A varint that must fit in u32.
    #[inline]
    pub fn vu32(&mut self) -> Result<u32> {
        let v = self.vu64()?;
        u32::try_from(v).map_err(|_| self.error(format!("varint {v} exceeds u32")))
    }

    /// A varint used as a length or count, checked against `max`.
    pub fn len(&mut self, max: usize) -> Result<usize> {
        let v = self.vu64()?;
        if v > max as u64 {
            return Err(self.error(format!("length {v} exceeds limit {max}")));
        }
        Ok(v as usize)
    }

    /// A zig-zag varint.
    pub fn vi64(&mut self) -> Result<i64> {
        Ok(super::unzigzag(self.vu64()?))
    }

    /// A length-prefixed byte string that must fit in the rest of the input.
    pub fn bytes(&mut self) -> Result<&'a [u8]> {
        let n = self.len(self.remaining())?;
        self.take(n)
    }

    /// A length-prefixed UTF-8 string.
    pub fn string(&mut self) -> Result<&'a str> {
        let at = self.offset();
        let b = self.bytes()?;
        std::str::from_utf8(b).map_err(|_| Error::corrupt("", at, "invalid UTF-8 in string"))
    }
}
