//! Field infos (`.fnm`): which fields a segment has and what is indexed for each.
//! Layout: `format/field-infos.md`. Verified in full on open (it is small).

use ahash::AHashMap as HashMap;

use super::SegmentId;
use crate::engine::codec::{check_footer, check_header, ByteReader, IndexOutput};
use crate::engine::store::Directory;
use crate::engine::{Error, Result};

/// Codec name in the `.fnm` header.
pub const CODEC: &str = "FathomFieldInfos";
/// Current `.fnm` format version.
pub const VERSION: u32 = 1;
/// File extension.
pub const EXT: &str = "fnm";

/// What the inverted index records for a field (Lucene's `IndexOptions`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(u8)]
pub enum IndexOptions {
    /// Not in the inverted index.
    None = 0,
    /// Doc ids only (keyword-like fields: freq is always 1).
    Docs = 1,
    /// Doc ids and term frequencies.
    DocsFreqs = 2,
    /// Doc ids, frequencies and positions (text fields; phrases need positions).
    DocsFreqsPositions = 3,
    /// As above plus start and end character offsets.
    DocsFreqsPositionsOffsets = 4,
}

impl IndexOptions {
    fn from_u8(v: u8) -> Option<IndexOptions> {
        Some(match v {
            0 => IndexOptions::None,
            1 => IndexOptions::Docs,
            2 => IndexOptions::DocsFreqs,
            3 => IndexOptions::DocsFreqsPositions,
            4 => IndexOptions::DocsFreqsPositionsOffsets,
            _ => return None,
        })
    }

    /// Whether frequencies are stored.
    pub fn has_freqs(self) -> bool {
        self >= IndexOptions::DocsFreqs
    }
    /// Whether positions are stored.
    pub fn has_positions(self) -> bool {
        self >= IndexOptions::DocsFreqsPositions
    }
    /// Whether offsets are stored.
    pub fn has_offsets(self) -> bool {
        self == IndexOptions::DocsFreqsPositionsOffsets
    }
}

/// Which doc-values column a field has. All kinds are multi-valued capable.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum DocValuesKind {
    /// No column.
    None = 0,
    /// 64-bit integers (numbers, dates, booleans, doubles as sortable bits), any count per doc.
    SortedNumeric = 1,
    /// Byte strings as ordinals into a sorted dictionary (keyword, ip), any count per doc.
    SortedSet = 2,
    /// One opaque byte string per doc (binary fields).
    Binary = 3,
}

impl DocValuesKind {
    fn from_u8(v: u8) -> Option<DocValuesKind> {
        Some(match v {
            0 => DocValuesKind::None,
            1 => DocValuesKind::SortedNumeric,
            2 => DocValuesKind::SortedSet,
            3 => DocValuesKind::Binary,
            _ => return None,
        })
    }
}

/// One field of a segment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldInfo {
    /// Full dotted path (`user.name`, `title.keyword`, `_id`).
    pub name: String,
    /// Dense number within the segment; components key their data by it.
    pub number: u32,
    /// What the inverted index holds.
    pub index: IndexOptions,
    /// Whether a norm (field length) is recorded per doc, for BM25.
    pub has_norms: bool,
    /// The doc-values column kind.
    pub doc_values: DocValuesKind,
    /// Width in bytes of this field's point keys (0 = no points; 8 numbers/dates, 16 ip).
    pub point_bytes: u8,
}

/// The fields of one segment, by number and by name.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FieldInfos {
    fields: Vec<FieldInfo>,
    by_name: HashMap<String, u32>,
}

impl FieldInfos {
    /// An empty set.
    pub fn new() -> FieldInfos {
        FieldInfos::default()
    }

    /// Returns the number of `name`, adding the field with these options if it is new; for an
    /// existing field the options are widened (a field indexed with positions in one document and
    /// without in another keeps positions, as Lucene does).
    pub fn add_or_widen(
        &mut self,
        name: &str,
        index: IndexOptions,
        has_norms: bool,
        doc_values: DocValuesKind,
        point_bytes: u8,
    ) -> Result<u32> {
        if let Some(&n) = self.by_name.get(name) {
            let f = &mut self.fields[n as usize];
            f.index = f.index.max(index);
            f.has_norms |= has_norms;
            if f.doc_values == DocValuesKind::None {
                f.doc_values = doc_values;
            } else if doc_values != DocValuesKind::None && doc_values != f.doc_values {
                return Err(Error::InvalidArgument(format!(
                    "cannot change doc values type from {:?} to {:?} for field [{name}]",
                    f.doc_values, doc_values
                )));
            }
            if f.point_bytes == 0 {
                f.point_bytes = point_bytes;
            } else if point_bytes != 0 && point_bytes != f.point_bytes {
                return Err(Error::InvalidArgument(format!(
                    "cannot change point width from {} to {point_bytes} for field [{name}]",
                    f.point_bytes
                )));
            }
            return Ok(n);
        }
        let number = self.fields.len() as u32;
        self.fields.push(FieldInfo { name: name.to_string(), number, index, has_norms, doc_values, point_bytes });
        self.by_name.insert(name.to_string(), number);
        Ok(number)
    }

    /// The field numbered `n`.
    pub fn get(&self, n: u32) -> Option<&FieldInfo> {
        self.fields.get(n as usize)
    }

    /// The field named `name`.
    pub fn by_name(&self, name: &str) -> Option<&FieldInfo> {
        self.by_name.get(name).map(|&n| &self.fields[n as usize])
    }

    /// All fields in number order.
    pub fn iter(&self) -> impl Iterator<Item = &FieldInfo> {
        self.fields.iter()
    }

    /// Number of fields.
    pub fn len(&self) -> usize {
        self.fields.len()
    }

    /// Whether there are no fields.
    pub fn is_empty(&self) -> bool {
        self.fields.is_empty()
    }

    /// Encodes the body (between header and footer).
    pub fn encode(&self, out: &mut Vec<u8>) {
        use crate::engine::codec::{put_bytes, put_vu64};
        put_vu64(out, self.fields.len() as u64);
        for f in &self.fields {
            put_bytes(out, f.name.as_bytes());
            out.push(f.index as u8);
            out.push(f.has_norms as u8);
            out.push(f.doc_values as u8);
            out.push(f.point_bytes);
        }
    }

    /// Decodes a body written by [`FieldInfos::encode`]. `base` is the body's offset in the file.
    pub fn decode(body: &[u8], base: u64) -> Result<FieldInfos> {
        let mut r = ByteReader::at(body, base);
        let n = r.len(body.len())?;
        let mut infos = FieldInfos::new();
        for number in 0..n as u32 {
            let name = r.string()?.to_string();
            let index = IndexOptions::from_u8(r.u8()?).ok_or_else(|| r.error("unknown index options"))?;
            let has_norms = match r.u8()? {
                0 => false,
                1 => true,
                v => return Err(r.error(format!("has_norms must be 0 or 1, got {v}"))),
            };
            let doc_values = DocValuesKind::from_u8(r.u8()?).ok_or_else(|| r.error("unknown doc values kind"))?;
            let point_bytes = r.u8()?;
            if !matches!(point_bytes, 0 | 4 | 8 | 16) {
                return Err(r.error(format!("point width must be 0, 4, 8 or 16 bytes, got {point_bytes}")));
            }
            if infos.by_name.contains_key(&name) {
                return Err(r.error(format!("duplicate field [{name}]")));
            }
            infos.by_name.insert(name.clone(), number);
            infos.fields.push(FieldInfo { name, number, index, has_norms, doc_values, point_bytes });
        }
        if !r.is_empty() {
            return Err(r.error(format!("{} trailing bytes after field infos", r.remaining())));
        }
        Ok(infos)
    }

    /// Writes `{segment}.fnm`; returns the file name.
    pub fn write(&self, dir: &dyn Directory, seg: &SegmentId) -> Result<String> {
        let name = seg.file(EXT);
        let mut out = IndexOutput::create(dir, &name, CODEC, VERSION, &seg.id)?;
        let mut body = Vec::new();
        self.encode(&mut body);
        out.put(&body)?;
        out.finish()?;
        Ok(name)
    }

    /// Reads and fully verifies `{segment}.fnm`.
    pub fn read(dir: &dyn Directory, seg: &SegmentId) -> Result<FieldInfos> {
        let name = seg.file(EXT);
        let bytes = dir.open(&name)?;
        FieldInfos::decode_file(&bytes, &name, Some(&seg.id))
    }

    /// Verifies and decodes a whole `.fnm` file image (the fuzz target's entry point).
    pub fn decode_file(bytes: &[u8], name: &str, id: Option<&[u8; 16]>) -> Result<FieldInfos> {
        let body = check_footer(bytes, name)?;
        let h = check_header(body, name, CODEC, VERSION, VERSION, id)?;
        FieldInfos::decode(&body[h.len..], h.len as u64).map_err(|e| e.in_file(name))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::store::RamDirectory;

    #[test]
    fn round_trip_and_widen() {
        let mut f = FieldInfos::new();
        let a = f.add_or_widen("body", IndexOptions::DocsFreqs, true, DocValuesKind::None, 0).unwrap();
        f.add_or_widen("date", IndexOptions::None, false, DocValuesKind::SortedNumeric, 8).unwrap();
        assert_eq!(f.add_or_widen("body", IndexOptions::DocsFreqsPositions, true, DocValuesKind::None, 0).unwrap(), a);
        assert_eq!(f.get(a).unwrap().index, IndexOptions::DocsFreqsPositions);
        assert!(f.add_or_widen("date", IndexOptions::None, false, DocValuesKind::SortedSet, 8).is_err());
        let dir = RamDirectory::new();
        let seg = SegmentId { name: "_0".into(), id: [1; 16] };
        f.write(&dir, &seg).unwrap();
        assert_eq!(FieldInfos::read(&dir, &seg).unwrap(), f);
        let other = SegmentId { name: "_0".into(), id: [2; 16] };
        assert!(FieldInfos::read(&dir, &other).is_err());
    }
}
