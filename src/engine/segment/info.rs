//! Segment info (`.si`): a segment's document count and the list of its files with their lengths
//! and checksums. Written last when a segment is created (after every component file is fsynced),
//! so a segment whose `.si` exists and verifies is complete. Layout: `format/segment-info.md`.

use std::collections::BTreeMap;

use super::SegmentId;
use crate::engine::codec::{check_footer, check_header, put_bytes, put_vu64, ByteReader, IndexOutput};
use crate::engine::store::Directory;
use crate::engine::{Error, Result};

/// Codec name in the `.si` header.
pub const CODEC: &str = "FathomSegmentInfo";
/// Current `.si` format version.
pub const VERSION: u32 = 1;
/// File extension.
pub const EXT: &str = "si";

/// One file of a segment as it was written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileEntry {
    /// File name (`_3.tim`).
    pub name: String,
    /// Length in bytes.
    pub len: u64,
    /// The CRC32 stored in its footer.
    pub checksum: u32,
}

/// What a segment is made of.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SegmentInfo {
    /// Name and id.
    pub id: SegmentId,
    /// Number of documents, deleted or not.
    pub max_doc: u32,
    /// Every component file except the `.si` itself and live-docs files.
    pub files: Vec<FileEntry>,
    /// How the segment came to be (`source`: `flush` or `merge`, `timestamp`, `merged_from`).
    pub diagnostics: BTreeMap<String, String>,
}

impl SegmentInfo {
    /// The `.si` file name.
    pub fn file_name(&self) -> String {
        self.id.file(EXT)
    }

    /// Total bytes of the segment's files.
    pub fn size_in_bytes(&self) -> u64 {
        self.files.iter().map(|f| f.len).sum()
    }

    fn encode(&self, out: &mut Vec<u8>) {
        put_vu64(out, self.max_doc as u64);
        put_vu64(out, self.files.len() as u64);
        for f in &self.files {
            put_bytes(out, f.name.as_bytes());
            put_vu64(out, f.len);
            out.extend_from_slice(&f.checksum.to_le_bytes());
        }
        put_vu64(out, self.diagnostics.len() as u64);
        for (k, v) in &self.diagnostics {
            put_bytes(out, k.as_bytes());
            put_bytes(out, v.as_bytes());
        }
    }

    /// Writes `{segment}.si` (fsynced); returns its name.
    pub fn write(&self, dir: &dyn Directory) -> Result<String> {
        let name = self.file_name();
        let mut out = IndexOutput::create(dir, &name, CODEC, VERSION, &self.id.id)?;
        let mut body = Vec::new();
        self.encode(&mut body);
        out.put(&body)?;
        out.finish()?;
        Ok(name)
    }

    /// Reads and fully verifies `{name}.si`, checking it belongs to segment id `id`.
    pub fn read(dir: &dyn Directory, name: &str, id: &[u8; 16]) -> Result<SegmentInfo> {
        let file = format!("{name}.{EXT}");
        let bytes = dir.open(&file)?;
        let info = SegmentInfo::decode_file(&bytes, &file)?;
        if &info.id.id != id {
            return Err(Error::corrupt(&file, 0, "segment id differs from the commit point's"));
        }
        if info.id.name != name {
            return Err(Error::corrupt(&file, 0, format!("segment name [{}] differs from file name", info.id.name)));
        }
        Ok(info)
    }

    /// Verifies and decodes a whole `.si` image (also the fuzz entry point). The segment name is
    /// taken from the file name (`_3.si`).
    pub fn decode_file(bytes: &[u8], file: &str) -> Result<SegmentInfo> {
        let body = check_footer(bytes, file)?;
        let h = check_header(body, file, CODEC, VERSION, VERSION, None)?;
        let seg_name = file.rsplit('/').next().unwrap_or(file).trim_end_matches(".si").to_string();
        let mut r = ByteReader::at(&body[h.len..], h.len as u64);
        let parse = |r: &mut ByteReader<'_>| -> Result<SegmentInfo> {
            let max_doc = r.vu64()?;
            if max_doc > i32::MAX as u64 {
                return Err(r.error(format!("max_doc {max_doc} exceeds the limit")));
            }
            let n = r.len(r.remaining())?;
            let mut files = Vec::with_capacity(n.min(64));
            for _ in 0..n {
                let name = r.string()?.to_string();
                let len = r.vu64()?;
                let checksum = r.u32()?;
                files.push(FileEntry { name, len, checksum });
            }
            let n = r.len(r.remaining())?;
            let mut diagnostics = BTreeMap::new();
            for _ in 0..n {
                let k = r.string()?.to_string();
                let v = r.string()?.to_string();
                diagnostics.insert(k, v);
            }
            if !r.is_empty() {
                return Err(r.error(format!("{} trailing bytes", r.remaining())));
            }
            Ok(SegmentInfo {
                id: SegmentId { name: seg_name.clone(), id: h.id },
                max_doc: max_doc as u32,
                files,
                diagnostics,
            })
        };
        parse(&mut r).map_err(|e| e.in_file(file))
    }

    /// Verifies every file of the segment in full: length, footer checksum equal to the recorded
    /// one, and the CRC32 of the bytes (what runs before merges and on `verify_index`).
    pub fn check_integrity(&self, dir: &dyn Directory) -> Result<()> {
        for f in &self.files {
            let bytes = dir.open(&f.name)?;
            if bytes.len() as u64 != f.len {
                return Err(Error::corrupt(
                    &f.name,
                    bytes.len() as u64,
                    format!("file length differs from segment info: expected={} actual={}", f.len, bytes.len()),
                ));
            }
            check_footer(&bytes, &f.name)?;
            let stored = crate::engine::codec::footer_checksum(&bytes, &f.name)?;
            if stored != f.checksum {
                return Err(Error::ChecksumMismatch { file: f.name.clone(), expected: f.checksum, actual: stored });
            }
        }
        Ok(())
    }
}

/// Reads the footer checksums of freshly written files to build their [`FileEntry`]s.
pub fn file_entries(dir: &dyn Directory, names: &[String]) -> Result<Vec<FileEntry>> {
    names
        .iter()
        .map(|n| {
            let bytes = dir.open(n)?;
            let checksum = crate::engine::codec::footer_checksum(&bytes, n)?;
            Ok(FileEntry { name: n.clone(), len: bytes.len() as u64, checksum })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::codec::IndexOutput;
    use crate::engine::store::RamDirectory;

    #[test]
    fn round_trip_and_integrity() {
        let dir = RamDirectory::new();
        let id = SegmentId { name: "_1".into(), id: [9; 16] };
        let mut o = IndexOutput::create(&dir, "_1.fnm", "x", 1, &id.id).unwrap();
        o.put(b"abc").unwrap();
        o.finish().unwrap();
        let files = file_entries(&dir, &["_1.fnm".to_string()]).unwrap();
        let mut diagnostics = BTreeMap::new();
        diagnostics.insert("source".to_string(), "flush".to_string());
        let info = SegmentInfo { id: id.clone(), max_doc: 3, files, diagnostics };
        info.write(&dir).unwrap();
        let back = SegmentInfo::read(&dir, "_1", &id.id).unwrap();
        assert_eq!(back, info);
        back.check_integrity(&dir).unwrap();
        assert!(SegmentInfo::read(&dir, "_1", &[0; 16]).is_err());
        let mut bad = dir.open("_1.fnm").unwrap().to_vec();
        bad[30] ^= 1;
        dir.overwrite("_1.fnm", bad);
        let e = info.check_integrity(&dir).unwrap_err();
        assert_eq!(e.file(), Some("_1.fnm"));
    }
}
