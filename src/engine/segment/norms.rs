//! Norms (`.nvd`): per field with norms, one byte per document: the field's length in Lucene's
//! one-byte encoding ([`length_to_norm`](super::smallfloat::length_to_norm)), 0 when the document
//! has no value in the field. Dense, so a lookup is an array index. Layout: `format/norms.md`.

use super::{DocId, DocMap, FieldInfos, IndexOptions, SegmentId};
use crate::engine::codec::{check_footer, check_header, footer_checksum, ByteReader, IndexOutput, FOOTER_LEN};
use crate::engine::store::{Directory, FileBytes};
use crate::engine::{Error, Result};

/// Codec name in the `.nvd` header.
pub const CODEC: &str = "FathomNorms";
/// Current `.nvd` format version.
pub const VERSION: u32 = 1;
/// File extension.
pub const EXT: &str = "nvd";

/// The norms of a segment being built: per field, a byte per doc (grown on demand).
#[derive(Debug, Default, Clone)]
pub struct NormsBuffer {
    fields: Vec<Vec<u8>>,
}

impl NormsBuffer {
    /// An empty buffer.
    pub fn new() -> Self {
        NormsBuffer::default()
    }

    /// Records the norm byte of `field` in `doc`.
    pub fn set(&mut self, field: u32, doc: DocId, norm: u8) {
        let f = field as usize;
        if f >= self.fields.len() {
            self.fields.resize_with(f + 1, Vec::new);
        }
        let v = &mut self.fields[f];
        let d = doc as usize;
        if d >= v.len() {
            v.resize(d + 1, 0);
        }
        v[d] = norm;
    }

    /// The norm byte of `field` in `doc` (0 when unset).
    #[inline]
    pub fn get(&self, field: u32, doc: DocId) -> u8 {
        self.fields.get(field as usize).and_then(|v| v.get(doc as usize)).copied().unwrap_or(0)
    }

    /// Approximate heap use in bytes.
    pub fn mem_bytes(&self) -> usize {
        self.fields.iter().map(|v| v.capacity()).sum::<usize>() + self.fields.capacity() * 24
    }
}

/// The fields of `infos` that get norms, in number order.
fn norm_fields(infos: &FieldInfos) -> impl Iterator<Item = &super::FieldInfo> {
    infos.iter().filter(|f| f.has_norms && f.index != IndexOptions::None)
}

fn write(
    dir: &dyn Directory,
    seg: &SegmentId,
    infos: &FieldInfos,
    max_doc: u32,
    mut fill: impl FnMut(&super::FieldInfo, &mut [u8]) -> Result<()>,
) -> Result<String> {
    let name = seg.file(EXT);
    let mut out = IndexOutput::create(dir, &name, CODEC, VERSION, &seg.id)?;
    let fields: Vec<_> = norm_fields(infos).collect();
    out.put_u32(max_doc)?;
    out.put_vu64(fields.len() as u64)?;
    for f in &fields {
        out.put_vu64(f.number as u64)?;
    }
    let mut col = vec![0u8; max_doc as usize];
    for f in &fields {
        col.fill(0);
        fill(f, &mut col)?;
        out.put(&col)?;
    }
    out.finish()?;
    Ok(name)
}

/// Writes `{segment}.nvd` with a column for every field of `infos` that has norms; returns the
/// file name.
pub fn write_norms(
    dir: &dyn Directory,
    seg: &SegmentId,
    infos: &FieldInfos,
    buf: &NormsBuffer,
    max_doc: u32,
) -> Result<String> {
    write(dir, seg, infos, max_doc, |f, col| {
        if let Some(v) = buf.fields.get(f.number as usize) {
            let n = v.len().min(col.len());
            col[..n].copy_from_slice(&v[..n]);
        }
        Ok(())
    })
}

/// Writes the norms of a merged segment: each source's column (matched BY NAME) is copied
/// through its [`DocMap`]; deleted docs are dropped.
pub fn merge_norms(
    dir: &dyn Directory,
    seg: &SegmentId,
    infos: &FieldInfos,
    sources: &[(&NormsReader, &FieldInfos, &DocMap)],
    max_doc: u32,
) -> Result<String> {
    write(dir, seg, infos, max_doc, |f, col| {
        for &(r, finfos, map) in sources {
            let Some(src) = finfos.by_name(&f.name).and_then(|fi| r.field(fi.number)) else { continue };
            for (old, &b) in src.iter().enumerate() {
                if let Some(new) = map.get(old as DocId) {
                    let slot = col.get_mut(new as usize).ok_or_else(|| {
                        Error::InvalidArgument(format!("doc map sends doc {old} to {new}, beyond max_doc {max_doc}"))
                    })?;
                    *slot = b;
                }
            }
        }
        Ok(())
    })
}

/// A segment's norms, read in place from the (memory-mapped) file.
#[derive(Debug)]
pub struct NormsReader {
    bytes: FileBytes,
    name: String,
    /// `cols[field]` = offset of the field's column.
    cols: Vec<Option<usize>>,
    max_doc: u32,
}

impl NormsReader {
    /// Opens `{segment}.nvd`: header, footer structure (O(1), not the CRC), field list against
    /// `infos`, and the exact length implied by `max_doc`.
    pub fn open(dir: &dyn Directory, seg: &SegmentId, infos: &FieldInfos, max_doc: u32) -> Result<Self> {
        let name = seg.file(EXT);
        let bytes = dir.open(&name)?;
        footer_checksum(&bytes, &name)?;
        let (cols, _) = parse(&bytes, &name, Some(&seg.id), max_doc, Some(infos))?;
        Ok(NormsReader { bytes, name, cols, max_doc })
    }

    /// The norm bytes of `field` (`slice[doc]`, 0 = no value), or `None` if it has no norms.
    pub fn field(&self, field: u32) -> Option<&[u8]> {
        let start = (*self.cols.get(field as usize)?)?;
        self.bytes.get(start..start + self.max_doc as usize)
    }

    /// Verifies the file's CRC32.
    pub fn check_integrity(&self) -> Result<()> {
        check_footer(&self.bytes, &self.name).map(|_| ())
    }

    /// The file this reader reads.
    pub fn file(&self) -> &str {
        &self.name
    }
}

/// Parses the field list; returns column offsets by field number and the field numbers.
fn parse(
    bytes: &[u8],
    name: &str,
    id: Option<&[u8; 16]>,
    max_doc: u32,
    infos: Option<&FieldInfos>,
) -> Result<(Vec<Option<usize>>, Vec<u32>)> {
    let h = check_header(bytes, name, CODEC, VERSION, VERSION, id)?;
    let body_end = bytes
        .len()
        .checked_sub(FOOTER_LEN)
        .filter(|&e| e >= h.len)
        .ok_or_else(|| Error::corrupt(name, 0, "file shorter than header and footer"))?;
    let mut r = ByteReader::at(&bytes[h.len..body_end], h.len as u64);
    let run = |r: &mut ByteReader<'_>| -> Result<(Vec<Option<usize>>, Vec<u32>)> {
        let md = r.u32()?;
        if md != max_doc {
            return Err(r.error(format!("norms written for max_doc {md}, segment has {max_doc}")));
        }
        let n = r.len(r.remaining())?;
        let mut numbers = Vec::with_capacity(n);
        for _ in 0..n {
            let f = r.vu32()?;
            if numbers.last().is_some_and(|&l| l >= f) {
                return Err(r.error(format!("field numbers not increasing at {f}")));
            }
            if let Some(infos) = infos {
                if !infos.get(f).is_some_and(|fi| fi.has_norms) {
                    return Err(r.error(format!("field {f} has norms but the segment's field infos say it has none")));
                }
            }
            numbers.push(f);
        }
        let need = (n as u64) * max_doc as u64;
        if r.remaining() as u64 != need {
            return Err(r.error(format!(
                "{} norm bytes for {n} fields x {max_doc} docs = {need} (file truncated?)",
                r.remaining()
            )));
        }
        let data = r.offset() as usize;
        let top = numbers.last().map_or(0, |&l| l as usize + 1);
        if top > n.saturating_mul(4).max(4096) && infos.is_none() {
            return Err(r.error(format!("field number {} implausibly large", top - 1)));
        }
        let mut cols = vec![None; top];
        for (i, &f) in numbers.iter().enumerate() {
            cols[f as usize] = Some(data + i * max_doc as usize);
        }
        Ok((cols, numbers))
    };
    run(&mut r).map_err(|e| e.in_file(name))
}

/// Verifies a whole `.nvd` image (CRC, header, layout) for a segment of `max_doc` docs; returns
/// the numbers of the fields with norms (the fuzz target's entry point).
pub fn check_file(bytes: &[u8], max_doc: u32) -> Result<Vec<u32>> {
    let name = format!("segment.{EXT}");
    check_footer(bytes, &name)?;
    parse(bytes, &name, None, max_doc, None).map(|(_, numbers)| numbers)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::segment::DocValuesKind;
    use crate::engine::store::RamDirectory;

    fn infos() -> FieldInfos {
        let mut f = FieldInfos::new();
        f.add_or_widen("title", IndexOptions::DocsFreqsPositions, true, DocValuesKind::None, 0).unwrap();
        f.add_or_widen("tag", IndexOptions::Docs, false, DocValuesKind::None, 0).unwrap();
        f.add_or_widen("body", IndexOptions::DocsFreqs, true, DocValuesKind::None, 0).unwrap();
        f
    }

    #[test]
    fn round_trip_merge_and_corruption() {
        let dir = RamDirectory::new();
        let infos = infos();
        let seg = SegmentId { name: "_0".into(), id: [3; 16] };
        let mut buf = NormsBuffer::new();
        for d in 0..10u32 {
            buf.set(0, d, d as u8 + 1);
            if d % 2 == 0 {
                buf.set(2, d, 200 - d as u8);
            }
        }
        assert_eq!(buf.get(0, 3), 4);
        assert_eq!(buf.get(1, 3), 0);
        assert_eq!(buf.get(2, 99), 0);
        let name = write_norms(&dir, &seg, &infos, &buf, 10).unwrap();
        let r = NormsReader::open(&dir, &seg, &infos, 10).unwrap();
        r.check_integrity().unwrap();
        assert_eq!(r.field(0).unwrap(), &[1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
        assert!(r.field(1).is_none());
        assert_eq!(r.field(2).unwrap()[4], 196);
        assert_eq!(r.field(2).unwrap()[5], 0);
        assert!(NormsReader::open(&dir, &seg, &infos, 11).is_err());
        let bytes = dir.open(&name).unwrap();
        assert_eq!(check_file(&bytes, 10).unwrap(), vec![0, 2]);

        // Merge with itself, the second copy keeping only odd docs, into infos numbered differently.
        let mut infos2 = FieldInfos::new();
        infos2.add_or_widen("body", IndexOptions::DocsFreqs, true, DocValuesKind::None, 0).unwrap();
        infos2.add_or_widen("title", IndexOptions::DocsFreqsPositions, true, DocValuesKind::None, 0).unwrap();
        let all = DocMap { new_ids: (0..10).collect() };
        let odd = DocMap { new_ids: (0..10).map(|d| if d % 2 == 1 { 10 + d / 2 } else { u32::MAX }).collect() };
        let seg2 = SegmentId { name: "_1".into(), id: [4; 16] };
        merge_norms(&dir, &seg2, &infos2, &[(&r, &infos, &all), (&r, &infos, &odd)], 15).unwrap();
        let m = NormsReader::open(&dir, &seg2, &infos2, 15).unwrap();
        assert_eq!(m.field(1).unwrap(), &[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 2, 4, 6, 8, 10]);
        assert_eq!(&m.field(0).unwrap()[8..12], &[192, 0, 0, 0]);

        // Every flipped byte and every truncation is an error from check_file, never a panic.
        for i in 0..bytes.len() {
            let mut b = bytes.to_vec();
            b[i] ^= 0x41;
            assert!(check_file(&b, 10).is_err(), "flip at {i}");
            assert!(check_file(&bytes[..i], 10).is_err(), "truncate at {i}");
        }
        // Structure damage is found on open even without the CRC.
        let mut b = bytes.to_vec();
        b.truncate(b.len() - 17);
        b.extend_from_slice(&bytes[bytes.len() - 16..]);
        dir.overwrite(&name, b);
        let e = NormsReader::open(&dir, &seg, &infos, 10).unwrap_err();
        assert!(e.to_string().contains("file truncated") && e.to_string().contains("_0.nvd"), "{e}");
    }
}
