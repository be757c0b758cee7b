//! Reading a `.dvd` file: open checks the frame and every column's lengths (so accesses stay in
//! bounds by construction); [`DocValuesReader::check_integrity`] checks the checksum and every
//! value.

use std::collections::BTreeMap;

use super::int_column::{read_int_meta, IntColumn, IntMeta};
use super::packed::{check_bits, open_frame, packed_len, Bits, Frame, PackedInts, Section};
use super::writer::{KIND_BINARY, KIND_NUMERIC, KIND_SORTED_SET};
use super::{CODEC, EXT, VERSION};
use crate::engine::codec::{check_footer, ByteReader};
use crate::engine::segment::{DocId, DocValuesKind, FieldInfos, SegmentId};
use crate::engine::store::{Directory, FileBytes};
use crate::engine::{Error, Result};

/// Offsets table plus concatenated bytes (the sorted-set dictionary and binary values).
#[derive(Debug, Clone, Copy)]
struct BlobMeta {
    count: u64,
    offset_bits: u8,
    offsets: Section,
    bytes: Section,
}

#[derive(Debug, Clone)]
enum ColumnMeta {
    Numeric(IntMeta),
    SortedSet(IntMeta, BlobMeta),
    Binary { docs_with_value: u64, blobs: BlobMeta, presence: Option<Section> },
}

/// What [`check_file`] found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Summary {
    /// Columns in the file.
    pub columns: usize,
    /// Total values (numeric values, ordinals, binary values).
    pub values: u64,
}

/// An open `.dvd` file. `Send + Sync`; columns borrow from the mapped bytes.
#[derive(Debug)]
pub struct DocValuesReader {
    name: String,
    bytes: FileBytes,
    max_doc: u32,
    columns: BTreeMap<u32, ColumnMeta>,
}

fn read_blob(frame: &Frame<'_>, r: &mut ByteReader<'_>, count: u64) -> Result<BlobMeta> {
    let offset_bits = r.u8()?;
    check_bits(r, offset_bits, 64)?;
    let offsets = frame.section(r, "offsets", Some(packed_len(count.saturating_add(1), offset_bits)))?;
    let bytes = frame.section(r, "bytes", None)?;
    Ok(BlobMeta { count, offset_bits, offsets, bytes })
}

fn parse(frame: &Frame<'_>, max_doc: u32, infos: Option<&FieldInfos>) -> Result<BTreeMap<u32, ColumnMeta>> {
    let mut r = frame.meta_reader();
    let n = r.len(r.remaining())?;
    let mut columns = BTreeMap::new();
    for _ in 0..n {
        let at = r.offset();
        let field = r.vu32()?;
        let kind = r.u8()?;
        let col = match kind {
            KIND_NUMERIC => ColumnMeta::Numeric(read_int_meta(frame, &mut r, max_doc)?),
            KIND_SORTED_SET => {
                let ords = read_int_meta(frame, &mut r, max_doc)?;
                let count = r.vu64()?;
                if count > ords.num_values || ords.max as u64 >= count {
                    return Err(r.error(format!(
                        "dictionary of {count} terms for {} ordinals up to {}",
                        ords.num_values, ords.max
                    )));
                }
                if ords.min < 0 {
                    return Err(r.error(format!("negative ordinal {}", ords.min)));
                }
                ColumnMeta::SortedSet(ords, read_blob(frame, &mut r, count)?)
            }
            KIND_BINARY => {
                let docs_with_value = r.vu64()?;
                if docs_with_value == 0 || docs_with_value > max_doc as u64 {
                    return Err(r.error(format!("{docs_with_value} binary values in a segment of {max_doc} docs")));
                }
                let blobs = read_blob(frame, &mut r, max_doc as u64)?;
                let presence = if docs_with_value < max_doc as u64 {
                    Some(frame.section(&mut r, "presence", Some((max_doc as u64).div_ceil(8)))?)
                } else {
                    None
                };
                ColumnMeta::Binary { docs_with_value, blobs, presence }
            }
            k => return Err(Error::corrupt("", at, format!("unknown doc values kind {k} for field {field}"))),
        };
        if let Some(infos) = infos {
            let want = infos.get(field).map(|f| f.doc_values);
            if want != Some(kind_of(&col)) {
                return Err(Error::corrupt(
                    "",
                    at,
                    format!("column of field {field} is {:?}, field infos say {want:?}", kind_of(&col)),
                ));
            }
        }
        if columns.insert(field, col).is_some() {
            return Err(Error::corrupt("", at, format!("two columns for field {field}")));
        }
    }
    if !r.is_empty() {
        return Err(r.error(format!("{} trailing bytes after the column metadata", r.remaining())));
    }
    Ok(columns)
}

fn kind_of(c: &ColumnMeta) -> DocValuesKind {
    match c {
        ColumnMeta::Numeric(_) => DocValuesKind::SortedNumeric,
        ColumnMeta::SortedSet(..) => DocValuesKind::SortedSet,
        ColumnMeta::Binary { .. } => DocValuesKind::Binary,
    }
}

impl DocValuesReader {
    /// Opens `{segment}.dvd`: checks header, footer structure and every column's lengths.
    pub fn open(dir: &dyn Directory, seg: &SegmentId, infos: &FieldInfos, max_doc: u32) -> Result<Self> {
        let name = seg.file(EXT);
        let bytes = dir.open(&name)?;
        let columns = {
            let frame = open_frame(&bytes, &name, CODEC, VERSION, Some(&seg.id))?;
            parse(&frame, max_doc, Some(infos)).map_err(|e| e.in_file(&name))?
        };
        Ok(DocValuesReader { name, bytes, max_doc, columns })
    }

    /// The documents the file covers.
    pub fn max_doc(&self) -> u32 {
        self.max_doc
    }

    /// Verifies the checksum and every column in full (offsets, order, ranges, dictionaries).
    pub fn check_integrity(&self) -> Result<()> {
        check_footer(&self.bytes, &self.name)?;
        self.check_columns().map_err(|e| e.in_file(&self.name))
    }

    fn check_columns(&self) -> Result<()> {
        for (&field, c) in &self.columns {
            match c {
                ColumnMeta::Numeric(_) => self.numeric(field).ok_or_else(|| bad_view(field))?.ints.check(false)?,
                ColumnMeta::SortedSet(_, blob) => {
                    let col = self.sorted_set(field).ok_or_else(|| bad_view(field))?;
                    col.ords.check(true)?;
                    let mut prev: Option<&[u8]> = None;
                    for ord in 0..col.value_count() {
                        let t = col.lookup_ord(ord)?;
                        if prev.is_some_and(|p| p >= t) {
                            return Err(Error::corrupt(
                                "",
                                blob.offsets.offset as u64,
                                format!("dictionary term {ord} is not above the previous one"),
                            ));
                        }
                        prev = Some(t);
                    }
                    check_blob_end(&col.dict, blob)?;
                }
                ColumnMeta::Binary { docs_with_value, blobs, .. } => {
                    let col = self.binary(field).ok_or_else(|| bad_view(field))?;
                    let mut docs = 0u64;
                    for doc in 0..self.max_doc {
                        let present = col.presence.is_none_or(|p| p.get(doc));
                        let (s, e) = col.blobs.range(doc as u64)?;
                        docs += present as u64;
                        if !present && s != e {
                            return Err(Error::corrupt(
                                "",
                                blobs.offsets.offset as u64,
                                format!("absent doc {doc} has bytes"),
                            ));
                        }
                    }
                    if docs != *docs_with_value || col.presence.is_some_and(|p| p.count_ones() != docs) {
                        return Err(Error::corrupt(
                            "",
                            blobs.offsets.offset as u64,
                            format!("{docs} binary values, metadata says {docs_with_value}"),
                        ));
                    }
                    check_blob_end(&col.blobs, blobs)?;
                }
            }
        }
        Ok(())
    }

    /// The sorted-numeric column of `field`, `None` if it has none in this segment.
    pub fn numeric(&self, field: u32) -> Option<NumericColumn<'_>> {
        match self.columns.get(&field)? {
            ColumnMeta::Numeric(m) => Some(NumericColumn { ints: IntColumn::new(m, &self.bytes, self.max_doc).ok()? }),
            _ => None,
        }
    }

    /// The sorted-set column of `field`, `None` if it has none in this segment.
    pub fn sorted_set(&self, field: u32) -> Option<SortedSetColumn<'_>> {
        match self.columns.get(&field)? {
            ColumnMeta::SortedSet(m, blob) => Some(SortedSetColumn {
                ords: IntColumn::new(m, &self.bytes, self.max_doc).ok()?,
                dict: Blobs::new(blob, &self.bytes).ok()?,
            }),
            _ => None,
        }
    }

    /// The binary column of `field`, `None` if it has none in this segment.
    pub fn binary(&self, field: u32) -> Option<BinaryColumn<'_>> {
        match self.columns.get(&field)? {
            ColumnMeta::Binary { blobs, presence, .. } => Some(BinaryColumn {
                blobs: Blobs::new(blobs, &self.bytes).ok()?,
                presence: match presence {
                    Some(p) => Some(Bits::new(p.bytes(&self.bytes), self.max_doc).ok()?),
                    None => None,
                },
            }),
            _ => None,
        }
    }
}

fn bad_view(field: u32) -> Error {
    Error::corrupt("", 0, format!("column of field {field} does not match its metadata"))
}

fn check_blob_end(b: &Blobs<'_>, meta: &BlobMeta) -> Result<()> {
    let first = b.offsets.get(0).unwrap_or(u64::MAX);
    let last = b.offsets.get(b.count).unwrap_or(u64::MAX);
    if first != 0 || last != b.bytes.len() as u64 {
        return Err(Error::corrupt(
            "",
            meta.offsets.offset as u64,
            format!("offsets span [{first}, {last}], bytes hold {}", b.bytes.len()),
        ));
    }
    Ok(())
}

/// `count` byte strings: `offsets[i]..offsets[i + 1]` within `bytes`.
#[derive(Debug, Clone, Copy)]
struct Blobs<'a> {
    count: u64,
    offsets: PackedInts<'a>,
    bytes: &'a [u8],
}

impl<'a> Blobs<'a> {
    fn new(m: &BlobMeta, file: &'a [u8]) -> Result<Self> {
        Ok(Blobs {
            count: m.count,
            offsets: PackedInts::new(m.offsets.bytes(file), m.offset_bits, m.count + 1)?,
            bytes: m.bytes.bytes(file),
        })
    }

    fn range(&self, i: u64) -> Result<(usize, usize)> {
        let (Some(s), Some(e)) = (self.offsets.get(i), i.checked_add(1).and_then(|j| self.offsets.get(j))) else {
            return Err(Error::corrupt("", 0, format!("entry {i} past the end of {}", self.count)));
        };
        if s > e || e > self.bytes.len() as u64 {
            return Err(Error::corrupt("", 0, format!("entry {i} spans [{s}, {e}) of {} bytes", self.bytes.len())));
        }
        Ok((s as usize, e as usize))
    }

    fn get(&self, i: u64) -> Result<&'a [u8]> {
        let (s, e) = self.range(i)?;
        self.bytes.get(s..e).ok_or_else(|| Error::corrupt("", 0, "entry out of bounds"))
    }
}

/// A sorted-numeric column: any number of `i64` per doc, ascending.
#[derive(Debug, Clone, Copy)]
pub struct NumericColumn<'a> {
    ints: IntColumn<'a>,
}

impl NumericColumn<'_> {
    /// The smallest value of `doc` (the sort key).
    #[inline]
    pub fn first(&self, doc: DocId) -> Option<i64> {
        self.ints.first(doc)
    }
    /// The values of `doc`, ascending (duplicates kept); `out` is cleared first.
    pub fn values(&self, doc: DocId, out: &mut Vec<i64>) {
        self.ints.values(doc, out)
    }
    /// Whether `doc` has a value.
    #[inline]
    pub fn has_value(&self, doc: DocId) -> bool {
        self.ints.has_value(doc)
    }
    /// Dense columns: the values of docs `start..end` in order (see
    /// [`super::int_column::IntColumn::for_dense_range`]); false for other columns.
    #[inline]
    pub fn for_dense_range(&self, start: DocId, end: DocId, f: impl FnMut(i64)) -> bool {
        self.ints.for_dense_range(start, end, f)
    }

    /// Whether no doc has more than one value.
    pub fn is_single_valued(&self) -> bool {
        !matches!(self.ints.meta.mode, super::int_column::Mode::Multi)
    }
    /// The smallest value in the column.
    pub fn min_value(&self) -> Option<i64> {
        Some(self.ints.meta.min)
    }
    /// The largest value in the column.
    pub fn max_value(&self) -> Option<i64> {
        Some(self.ints.meta.max)
    }
}

/// A sorted-set column: ordinals into a sorted dictionary of unique terms.
#[derive(Debug, Clone, Copy)]
pub struct SortedSetColumn<'a> {
    ords: IntColumn<'a>,
    dict: Blobs<'a>,
}

impl<'a> SortedSetColumn<'a> {
    /// The smallest ordinal of `doc`.
    #[inline]
    pub fn first_ord(&self, doc: DocId) -> Option<u64> {
        self.ords.first(doc).map(|o| o as u64)
    }
    /// The ordinals of `doc`, ascending and unique; `out` is cleared first.
    pub fn ords(&self, doc: DocId, out: &mut Vec<u64>) {
        out.clear();
        self.ords.for_each(doc, |o| out.push(o as u64));
    }
    /// Number of terms in the dictionary.
    pub fn value_count(&self) -> u64 {
        self.dict.count
    }
    /// Whether no doc has more than one ordinal.
    pub fn is_single_valued(&self) -> bool {
        !matches!(self.ords.meta.mode, super::int_column::Mode::Multi)
    }
    /// The term of an ordinal.
    pub fn lookup_ord(&self, ord: u64) -> Result<&'a [u8]> {
        self.dict.get(ord)
    }
    /// `Ok(ord)` of `term`, or `Err(insertion point)` when absent.
    pub fn lookup_term(&self, term: &[u8]) -> Result<Result<u64, u64>> {
        let (mut lo, mut hi) = (0u64, self.dict.count);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            match self.dict.get(mid)?.cmp(term) {
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
                std::cmp::Ordering::Equal => return Ok(Ok(mid)),
            }
        }
        Ok(Err(lo))
    }
}

/// A binary column: at most one byte string per doc.
#[derive(Debug, Clone, Copy)]
pub struct BinaryColumn<'a> {
    blobs: Blobs<'a>,
    presence: Option<Bits<'a>>,
}

impl<'a> BinaryColumn<'a> {
    /// The value of `doc`.
    pub fn get(&self, doc: DocId) -> Option<&'a [u8]> {
        if self.presence.is_some_and(|p| !p.get(doc)) {
            return None;
        }
        self.blobs.get(doc as u64).ok()
    }
}

/// Verifies a whole `.dvd` image (checksum, structure, every column) without field infos — the
/// fuzz target's entry point.
pub fn check_file(bytes: &[u8], max_doc: u32) -> Result<Summary> {
    let name = "<dvd>";
    check_footer(bytes, name)?;
    let frame = open_frame(bytes, name, CODEC, VERSION, None)?;
    let columns = parse(&frame, max_doc, None).map_err(|e| e.in_file(name))?;
    let values = columns
        .values()
        .map(|c| match c {
            ColumnMeta::Numeric(m) | ColumnMeta::SortedSet(m, _) => m.num_values,
            ColumnMeta::Binary { docs_with_value, .. } => *docs_with_value,
        })
        .sum();
    let r = DocValuesReader { name: name.to_string(), bytes: FileBytes::copy_from_slice(bytes), max_doc, columns };
    r.check_columns().map_err(|e| e.in_file(name))?;
    Ok(Summary { columns: r.columns.len(), values })
}
