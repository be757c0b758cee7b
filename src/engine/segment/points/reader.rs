//! Reading a `.pts` file. Open checks the frame and, per field, every block index entry (sizes,
//! offsets, prefixes, block order), so a query touches only bytes known to exist;
//! [`PointsReader::check_integrity`] checks the checksum and every key and doc.

use std::cmp::Ordering;
use std::collections::BTreeMap;

use super::{BLOCK, CODEC, EXT, MAX_KEY_BYTES, VERSION};
use crate::engine::codec::check_footer;
use crate::engine::segment::doc_values::packed::{check_bits, open_frame, packed_len, Frame, PackedInts, Section};
use crate::engine::segment::{DocId, FieldInfos, SegmentId};
use crate::engine::store::{Directory, FileBytes};
use crate::engine::{Error, Result};

#[derive(Debug, Clone)]
struct FieldMeta {
    width: usize,
    num_points: u64,
    doc_count: u32,
    doc_bits: u8,
    min_key: Vec<u8>,
    max_key: Vec<u8>,
    index: Section,
    blocks: Section,
    docs: Section,
}

impl FieldMeta {
    fn num_blocks(&self) -> u64 {
        self.num_points.div_ceil(BLOCK as u64)
    }
    fn entry_len(&self) -> usize {
        2 * self.width + 9
    }
}

/// What [`check_file`] found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Summary {
    /// Fields with points.
    pub fields: usize,
    /// Points over all fields.
    pub points: u64,
}

/// An open `.pts` file. `Send + Sync`.
#[derive(Debug)]
pub struct PointsReader {
    name: String,
    bytes: FileBytes,
    max_doc: u32,
    fields: BTreeMap<u32, FieldMeta>,
}

fn parse(frame: &Frame<'_>, max_doc: u32, infos: Option<&FieldInfos>) -> Result<BTreeMap<u32, FieldMeta>> {
    let mut r = frame.meta_reader();
    let n = r.len(r.remaining())?;
    let mut fields = BTreeMap::new();
    for _ in 0..n {
        let at = r.offset();
        let field = r.vu32()?;
        let width = r.u8()? as usize;
        if width == 0 || width > MAX_KEY_BYTES {
            return Err(Error::corrupt(
                "",
                at,
                format!("point width {width} of field {field} not in 1..={MAX_KEY_BYTES}"),
            ));
        }
        if let Some(infos) = infos {
            let want = infos.get(field).map(|f| f.point_bytes as usize);
            if want != Some(width) {
                return Err(Error::corrupt(
                    "",
                    at,
                    format!("field {field} has {width}-byte points, field infos say {want:?}"),
                ));
            }
        }
        let num_points = r.vu64()?;
        let doc_count = r.vu32()?;
        let doc_bits = r.u8()?;
        check_bits(&r, doc_bits, 32)?;
        if doc_count == 0 || doc_count > max_doc || (doc_count as u64) > num_points {
            return Err(r.error(format!("{num_points} points in {doc_count} docs of a segment of {max_doc}")));
        }
        if max_doc > 1 && ((max_doc - 1) as u64) >> doc_bits != 0 {
            return Err(r.error(format!("{doc_bits}-bit doc ids cannot address {max_doc} docs")));
        }
        let min_key = r.take(width)?.to_vec();
        let max_key = r.take(width)?.to_vec();
        let mut m = FieldMeta {
            width,
            num_points,
            doc_count,
            doc_bits,
            min_key,
            max_key,
            index: Section::default(),
            blocks: Section::default(),
            docs: Section::default(),
        };
        let index_len = m.num_blocks().saturating_mul(m.entry_len() as u64);
        m.index = frame.section(&mut r, "block index", Some(index_len))?;
        m.blocks = frame.section(&mut r, "blocks", None)?;
        m.docs = frame.section(&mut r, "docs", Some(packed_len(num_points, doc_bits)))?;
        check_index(frame.file, &m)
            .map_err(|why| Error::corrupt("", m.index.offset as u64, format!("field {field}: {why}")))?;
        if fields.insert(field, m).is_some() {
            return Err(Error::corrupt("", at, format!("two point sets for field {field}")));
        }
    }
    if !r.is_empty() {
        return Err(r.error(format!("{} trailing bytes after the points metadata", r.remaining())));
    }
    Ok(fields)
}

/// Validates every index entry: prefix length and agreement, offsets equal to the running sum
/// of block sizes, blocks in key order, first and last keys equal to the field's min and max.
fn check_index(file: &[u8], m: &FieldMeta) -> std::result::Result<(), String> {
    let index = m.index.bytes(file);
    let w = m.width;
    let mut expected_offset = 0u64;
    let mut prev_max: Option<&[u8]> = None;
    let nb = m.num_blocks();
    for (b, e) in index.chunks_exact(m.entry_len()).enumerate() {
        let (min, rest) = e.split_at(w);
        let (max, rest) = rest.split_at(w);
        let prefix = rest[0] as usize;
        let offset = u64::from_le_bytes(rest[1..9].try_into().expect("entry has 8 offset bytes"));
        if prefix > w || min[..prefix.min(w)] != max[..prefix.min(w)] || min > max {
            return Err(format!("block {b} has min/max/prefix that disagree"));
        }
        if offset != expected_offset {
            return Err(format!("block {b} starts at {offset}, expected {expected_offset}"));
        }
        if prev_max.is_some_and(|p| p > min) || (b == 0 && min != m.min_key.as_slice()) {
            return Err(format!("block {b} is out of key order"));
        }
        let count = if b as u64 + 1 == nb { m.num_points - b as u64 * BLOCK as u64 } else { BLOCK as u64 };
        expected_offset += count * (w - prefix) as u64;
        prev_max = Some(max);
    }
    if prev_max != Some(m.max_key.as_slice()) {
        return Err("last block does not end at the max key".into());
    }
    if expected_offset != m.blocks.len as u64 {
        return Err(format!("blocks hold {} bytes, index describes {expected_offset}", m.blocks.len));
    }
    Ok(())
}

impl PointsReader {
    /// Opens `{segment}.pts`: checks header, footer structure, and every field's block index.
    pub fn open(dir: &dyn Directory, seg: &SegmentId, infos: &FieldInfos, max_doc: u32) -> Result<Self> {
        let name = seg.file(EXT);
        let bytes = dir.open(&name)?;
        let fields = {
            let frame = open_frame(&bytes, &name, CODEC, VERSION, Some(&seg.id))?;
            parse(&frame, max_doc, Some(infos)).map_err(|e| e.in_file(&name))?
        };
        Ok(PointsReader { name, bytes, max_doc, fields })
    }

    /// Verifies the checksum and every key (sorted, inside its block's bounds) and doc.
    pub fn check_integrity(&self) -> Result<()> {
        check_footer(&self.bytes, &self.name)?;
        self.check_fields().map_err(|e| e.in_file(&self.name))
    }

    fn check_fields(&self) -> Result<()> {
        for (&field, m) in &self.fields {
            let fp = self
                .field(field)
                .ok_or_else(|| Error::corrupt("", m.index.offset as u64, "field view does not match its metadata"))?;
            let mut prev: Option<([u8; MAX_KEY_BYTES], DocId)> = None;
            let mut seen = vec![0u64; (self.max_doc as usize).div_ceil(64)];
            let mut bad: Option<String> = None;
            let mut distinct = 0u32;
            let mut idx = 0u64;
            let mut blk: Option<Block<'_>> = None;
            fp.for_each_point(&mut |k, d| {
                let mut key = [0u8; MAX_KEY_BYTES];
                key[..k.len()].copy_from_slice(k);
                // Every key lies within its block's [min, max] from the index, the block's first
                // and last keys are its min and max, and the field's min/max are the extremes:
                // range queries take whole blocks on the strength of these bounds.
                if idx % BLOCK as u64 == 0 {
                    blk = fp.block(idx / BLOCK as u64);
                }
                match &blk {
                    Some(b) => {
                        let i = idx - b.first;
                        if k < b.min || k > b.max || (i == 0 && k != b.min) || (i + 1 == b.count && k != b.max) {
                            bad.get_or_insert(format!("point {idx} ({k:?}) outside its block's bounds in the index"));
                        }
                    }
                    None => {
                        bad.get_or_insert(format!("point {idx} has no block index entry"));
                    }
                }
                if (idx == 0 && k != fp.min_key()) || (idx + 1 == m.num_points && k != fp.max_key()) {
                    bad.get_or_insert(format!("field min/max key differs from point {idx}"));
                }
                idx += 1;
                if d >= self.max_doc || prev.is_some_and(|p| p > (key, d)) {
                    bad.get_or_insert(format!("point ({k:?}, doc {d}) out of order or past max_doc"));
                } else if let Some(word) = seen.get_mut((d >> 6) as usize) {
                    distinct += (*word >> (d & 63) & 1 == 0) as u32;
                    *word |= 1 << (d & 63);
                }
                prev = Some((key, d));
            })?;
            if bad.is_none() && distinct != m.doc_count {
                bad = Some(format!("{distinct} distinct docs, metadata says {}", m.doc_count));
            }
            if let Some(why) = bad {
                return Err(Error::corrupt("", m.docs.offset as u64, format!("field {field}: {why}")));
            }
        }
        Ok(())
    }

    /// The points of `field`, `None` if it has none in this segment.
    pub fn field(&self, field: u32) -> Option<FieldPoints<'_>> {
        let m = self.fields.get(&field)?;
        Some(FieldPoints {
            m,
            index: m.index.bytes(&self.bytes),
            blocks: m.blocks.bytes(&self.bytes),
            docs: PackedInts::new(m.docs.bytes(&self.bytes), m.doc_bits, m.num_points).ok()?,
            max_doc: self.max_doc,
        })
    }
}

/// One field's points: a sorted run of keys in blocks, each with its doc.
#[derive(Debug, Clone, Copy)]
pub struct FieldPoints<'a> {
    m: &'a FieldMeta,
    index: &'a [u8],
    blocks: &'a [u8],
    docs: PackedInts<'a>,
    max_doc: u32,
}

/// A block index entry.
struct Block<'a> {
    min: &'a [u8],
    max: &'a [u8],
    prefix: usize,
    /// Offset of the suffixes within the blocks section.
    offset: usize,
    /// Index of the block's first point.
    first: u64,
    count: u64,
}

impl<'a> FieldPoints<'a> {
    fn num_blocks(&self) -> u64 {
        self.m.num_blocks()
    }

    fn block(&self, b: u64) -> Option<Block<'a>> {
        let w = self.m.width;
        let el = self.m.entry_len();
        let e = self.index.get(b as usize * el..(b as usize + 1) * el)?;
        let prefix = *e.get(2 * w)? as usize;
        let offset = u64::from_le_bytes(e.get(2 * w + 1..2 * w + 9)?.try_into().ok()?) as usize;
        let first = b * BLOCK as u64;
        let count = (self.m.num_points - first).min(BLOCK as u64);
        Some(Block { min: e.get(..w)?, max: e.get(w..2 * w)?, prefix: prefix.min(w), offset, first, count })
    }

    /// The `i`-th key of block `blk` into `key` (its first `width` bytes).
    fn key(&self, blk: &Block<'_>, i: u64, key: &mut [u8; MAX_KEY_BYTES]) -> Result<()> {
        let w = self.m.width;
        let sl = w - blk.prefix;
        let start = blk.offset + i as usize * sl;
        let suffix = self
            .blocks
            .get(start..start + sl)
            .ok_or_else(|| Error::corrupt("", 0, format!("point {i} of a block past the end")))?;
        key[..blk.prefix].copy_from_slice(&blk.min[..blk.prefix]);
        key[blk.prefix..w].copy_from_slice(suffix);
        Ok(())
    }

    /// The first point index in `blk` whose key is not `before` the bound.
    fn partition(&self, blk: &Block<'_>, bound: &[u8], before: impl Fn(Ordering) -> bool) -> Result<u64> {
        let (mut lo, mut hi) = (0u64, blk.count);
        let mut key = [0u8; MAX_KEY_BYTES];
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            self.key(blk, mid, &mut key)?;
            if before(key[..self.m.width].cmp(bound)) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        Ok(blk.first + lo)
    }

    /// The point index ranges whose keys lie in `[lo, hi]`.
    fn ranges(&self, lo: &[u8], hi: &[u8]) -> Result<Vec<(u64, u64)>> {
        let w = self.m.width;
        if lo.len() != w || hi.len() != w {
            return Err(Error::InvalidArgument(format!(
                "range bounds of {} and {} bytes for {w}-byte points",
                lo.len(),
                hi.len()
            )));
        }
        let mut out: Vec<(u64, u64)> = Vec::new();
        if lo > hi || hi < self.min_key() || lo > self.max_key() {
            return Ok(out);
        }
        // First block whose max >= lo.
        let (mut a, mut b) = (0u64, self.num_blocks());
        while a < b {
            let mid = a + (b - a) / 2;
            let blk = self.block(mid).ok_or_else(|| Error::corrupt("", 0, "block index entry missing"))?;
            if blk.max < lo {
                a = mid + 1;
            } else {
                b = mid;
            }
        }
        for bi in a..self.num_blocks() {
            let blk = self.block(bi).ok_or_else(|| Error::corrupt("", 0, "block index entry missing"))?;
            if blk.min > hi {
                break;
            }
            let start = if blk.min >= lo { blk.first } else { self.partition(&blk, lo, |o| o == Ordering::Less)? };
            let end = if blk.max <= hi {
                blk.first + blk.count
            } else {
                self.partition(&blk, hi, |o| o != Ordering::Greater)?
            };
            match out.last_mut() {
                Some(last) if last.1 == start => last.1 = end,
                _ if start < end => out.push((start, end)),
                _ => {}
            }
        }
        Ok(out)
    }

    /// Calls `visit` for every doc with a value in `[lo, hi]` (inclusive; a doc may be visited
    /// once per matching value). Bounds must have the field's width.
    pub fn visit_range(&self, lo: &[u8], hi: &[u8], visit: &mut dyn FnMut(DocId)) -> Result<()> {
        for (s, e) in self.ranges(lo, hi)? {
            self.docs.for_range(s, e, |d| visit(d as DocId));
        }
        Ok(())
    }

    /// The docs (not values) with a value in `[lo, hi]`, sorted and deduplicated.
    pub fn docs_in_range(&self, lo: &[u8], hi: &[u8]) -> Result<Vec<DocId>> {
        let ranges = self.ranges(lo, hi)?;
        let total: u64 = ranges.iter().map(|r| r.1 - r.0).sum();
        let mut out = Vec::new();
        if total > (self.max_doc / 32) as u64 {
            // Many matches: a bitset beats sorting.
            let mut bits = vec![0u64; (self.max_doc as usize).div_ceil(64)];
            for &(s, e) in &ranges {
                self.docs.for_range(s, e, |d| {
                    if let Some(w) = bits.get_mut((d >> 6) as usize) {
                        *w |= 1 << (d & 63);
                    }
                });
            }
            out.reserve(total.min(self.max_doc as u64) as usize);
            for (i, &w) in bits.iter().enumerate() {
                let mut w = w;
                while w != 0 {
                    out.push((i as u32) << 6 | w.trailing_zeros());
                    w &= w - 1;
                }
            }
        } else {
            out.reserve(total as usize);
            for &(s, e) in &ranges {
                self.docs.for_range(s, e, |d| out.push(d as DocId));
            }
            out.sort_unstable();
            out.dedup();
        }
        Ok(out)
    }

    /// Calls `f` with every `(key, doc)` in key order (merges and integrity checks).
    pub fn for_each_point(&self, f: &mut dyn FnMut(&[u8], DocId)) -> Result<()> {
        let mut key = [0u8; MAX_KEY_BYTES];
        let mut docs = Vec::with_capacity(BLOCK);
        for b in 0..self.num_blocks() {
            let blk = self.block(b).ok_or_else(|| Error::corrupt("", 0, "block index entry missing"))?;
            docs.clear();
            self.docs.for_range(blk.first, blk.first + blk.count, |d| docs.push(d as DocId));
            if docs.len() as u64 != blk.count {
                return Err(Error::corrupt(
                    "",
                    0,
                    format!("block {b} has {} docs for {} points", docs.len(), blk.count),
                ));
            }
            for (i, &d) in docs.iter().enumerate() {
                self.key(&blk, i as u64, &mut key)?;
                f(&key[..self.m.width], d);
            }
        }
        Ok(())
    }

    /// Number of blocks (each of at most [`BLOCK`] points, in key order).
    pub fn block_count(&self) -> u64 {
        self.num_blocks()
    }

    /// Block `b`'s smallest and largest keys and its number of points, from the block index
    /// (no key of the block is read).
    pub fn block_bounds(&self, b: u64) -> Option<(&'a [u8], &'a [u8], u64)> {
        self.block(b).map(|blk| (blk.min, blk.max, blk.count))
    }

    /// Calls `f` with block `b`'s keys in order until it returns false; returns whether every
    /// key was visited.
    pub fn block_keys(&self, b: u64, f: &mut dyn FnMut(&[u8]) -> bool) -> Result<bool> {
        let blk = self.block(b).ok_or_else(|| Error::corrupt("", 0, "block index entry missing"))?;
        let mut key = [0u8; MAX_KEY_BYTES];
        for i in 0..blk.count {
            self.key(&blk, i, &mut key)?;
            if !f(&key[..self.m.width]) {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// Number of (key, doc) points.
    pub fn num_points(&self) -> u64 {
        self.m.num_points
    }
    /// Number of docs with at least one point.
    pub fn doc_count(&self) -> u32 {
        self.m.doc_count
    }
    /// The smallest key.
    pub fn min_key(&self) -> &'a [u8] {
        &self.m.min_key
    }
    /// The largest key.
    pub fn max_key(&self) -> &'a [u8] {
        &self.m.max_key
    }
    /// Key width in bytes.
    pub fn width(&self) -> usize {
        self.m.width
    }
}

/// Verifies a whole `.pts` image (checksum, structure, every point) without field infos — the
/// fuzz target's entry point.
pub fn check_file(bytes: &[u8], max_doc: u32) -> Result<Summary> {
    let name = "<pts>";
    check_footer(bytes, name)?;
    let frame = open_frame(bytes, name, CODEC, VERSION, None)?;
    let fields = parse(&frame, max_doc, None).map_err(|e| e.in_file(name))?;
    let points = fields.values().map(|m| m.num_points).sum();
    let r = PointsReader { name: name.to_string(), bytes: FileBytes::copy_from_slice(bytes), max_doc, fields };
    r.check_fields().map_err(|e| e.in_file(name))?;
    Ok(Summary { fields: r.fields.len(), points })
}
