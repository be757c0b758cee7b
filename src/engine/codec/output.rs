//! A file writer that computes the CRC32 of everything it writes, so the footer never needs a
//! second pass over the file.

use super::header::{footer_bytes, write_header};
use crate::engine::store::{Directory, FileWrite};
use crate::engine::Result;

/// Staging buffer size: small writes are batched before they reach the directory.
const STAGE: usize = 32 * 1024;

/// A checksumming, buffered writer of one new file.
///
/// Order of calls: [`IndexOutput::create`] (writes the header) → any `put_*` →
/// [`IndexOutput::finish`] (writes the footer and fsyncs). Dropping it without `finish` leaves a
/// file without a footer, which every reader rejects.
pub struct IndexOutput {
    inner: Box<dyn FileWrite>,
    hasher: crc32fast::Hasher,
    stage: Vec<u8>,
    written: u64,
}

impl std::fmt::Debug for IndexOutput {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("IndexOutput").field("file", &self.inner.name()).field("len", &self.len()).finish()
    }
}

impl IndexOutput {
    /// Creates `name` in `dir` and writes its header.
    pub fn create(dir: &dyn Directory, name: &str, codec: &str, version: u32, id: &[u8; 16]) -> Result<IndexOutput> {
        let inner = dir.create(name)?;
        let mut out =
            IndexOutput { inner, hasher: crc32fast::Hasher::new(), stage: Vec::with_capacity(STAGE), written: 0 };
        let mut h = Vec::with_capacity(64);
        write_header(&mut h, codec, version, id);
        out.put(&h)?;
        Ok(out)
    }

    /// Bytes written so far, header included: the offset of the next byte.
    pub fn len(&self) -> u64 {
        self.written + self.stage.len() as u64
    }

    /// Whether nothing at all was written (never true after `create`).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The file's name.
    pub fn name(&self) -> &str {
        self.inner.name()
    }

    fn drain(&mut self) -> Result<()> {
        if !self.stage.is_empty() {
            self.hasher.update(&self.stage);
            self.inner.write_all(&self.stage)?;
            self.written += self.stage.len() as u64;
            self.stage.clear();
        }
        Ok(())
    }

    /// Appends raw bytes.
    #[inline]
    pub fn put(&mut self, b: &[u8]) -> Result<()> {
        if self.stage.len() + b.len() > STAGE {
            self.drain()?;
            if b.len() >= STAGE {
                self.hasher.update(b);
                self.inner.write_all(b)?;
                self.written += b.len() as u64;
                return Ok(());
            }
        }
        self.stage.extend_from_slice(b);
        Ok(())
    }

    pub fn put_u8(&mut self, v: u8) -> Result<()> {
        self.put(&[v])
    }
    pub fn put_u16(&mut self, v: u16) -> Result<()> {
        self.put(&v.to_le_bytes())
    }
    pub fn put_u32(&mut self, v: u32) -> Result<()> {
        self.put(&v.to_le_bytes())
    }
    pub fn put_u64(&mut self, v: u64) -> Result<()> {
        self.put(&v.to_le_bytes())
    }
    pub fn put_vu64(&mut self, v: u64) -> Result<()> {
        let mut b = [0u8; 10];
        let mut n = 0;
        let mut v = v;
        while v >= 0x80 {
            b[n] = (v as u8) | 0x80;
            v >>= 7;
            n += 1;
        }
        b[n] = v as u8;
        self.put(&b[..=n])
    }
    pub fn put_bytes(&mut self, b: &[u8]) -> Result<()> {
        self.put_vu64(b.len() as u64)?;
        self.put(b)
    }

    /// Writes the footer (CRC32 of every byte before it), fsyncs, and returns the file's length
    /// and checksum.
    pub fn finish(mut self) -> Result<(u64, u32)> {
        self.drain()?;
        let crc = self.hasher.clone().finalize();
        let footer = footer_bytes(crc);
        self.inner.write_all(&footer)?;
        self.written += footer.len() as u64;
        self.inner.sync()?;
        Ok((self.written, crc))
    }
}
