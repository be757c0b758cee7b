//! The integer column behind numeric columns and sorted-set ordinals: per column a minimum, a
//! GCD and a bit width; values are stored as `(v - min) / gcd` bit-packed.
//!
//! Four modes (`format/doc-values.md`, "IntColumn"):
//! - `Empty`: no values;
//! - `Dense`: every doc has exactly one value, `values[doc]`;
//! - `Sparse`: every doc has at most one value, a presence bitset says which, `values[doc]` (0 for
//!   absent docs) — O(1) access at the cost of `bits` per absent doc;
//! - `Multi`: `offsets[doc]..offsets[doc + 1]` (bit-packed, `max_doc + 1` entries) index the values,
//!   which are sorted ascending within each doc.

use super::packed::{check_bits, pack_min_width, packed_len, put_bits, Bits, Frame, PackedInts, Section};
use crate::engine::codec::bitpack::{bits_needed, pack64};
use crate::engine::codec::{put_vu64, zigzag, ByteReader, IndexOutput};
use crate::engine::segment::DocId;
use crate::engine::{Error, Result};

/// How an integer column is laid out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum Mode {
    /// No values.
    Empty = 0,
    /// One value per doc, every doc.
    Dense = 1,
    /// At most one value per doc, a presence bitset.
    Sparse = 2,
    /// Any number of values per doc, an offsets table.
    Multi = 3,
}

/// The decoded metadata of an integer column (sections validated against the frame).
#[derive(Debug, Clone, Copy)]
pub struct IntMeta {
    pub mode: Mode,
    pub docs_with_value: u32,
    pub num_values: u64,
    pub min: i64,
    pub max: i64,
    pub gcd: u64,
    pub bits: u8,
    pub values: Section,
    pub presence: Section,
    pub offset_bits: u8,
    pub offsets: Section,
}

/// Writes the data of a column of `(doc, value)` pairs sorted by doc then value (every doc
/// `< max_doc`) and returns its metadata bytes.
pub fn write_int_column(out: &mut IndexOutput, max_doc: u32, pairs: &[(DocId, i64)]) -> Result<Vec<u8>> {
    let mut meta = Vec::new();
    let Some(min) = pairs.iter().map(|p| p.1).min() else {
        meta.push(Mode::Empty as u8);
        return Ok(meta);
    };
    let max = pairs.iter().map(|p| p.1).max().expect("non-empty: min exists");
    let mut gcd = 0u64;
    for &(_, v) in pairs {
        gcd = gcd_u64(gcd, (v as u64).wrapping_sub(min as u64));
        if gcd == 1 {
            break;
        }
    }
    let gcd = gcd.max(1);
    let delta = |v: i64| (v as u64).wrapping_sub(min as u64) / gcd;
    let bits = bits_needed(delta(max));
    let mut docs_with_value = 0u32;
    let mut multi = false;
    let mut prev: Option<DocId> = None;
    for &(d, _) in pairs {
        if prev == Some(d) {
            multi = true;
        } else {
            docs_with_value += 1;
        }
        prev = Some(d);
    }
    let mode = if multi {
        Mode::Multi
    } else if docs_with_value == max_doc {
        Mode::Dense
    } else {
        Mode::Sparse
    };
    let mut data = Vec::new();
    let mut presence = Section::default();
    let mut offsets = Section::default();
    let mut offset_bits = 0u8;
    let values;
    match mode {
        Mode::Dense | Mode::Sparse => {
            let mut deltas = vec![0u64; max_doc as usize];
            for &(d, v) in pairs {
                if let Some(slot) = deltas.get_mut(d as usize) {
                    *slot = delta(v);
                }
            }
            pack64(&deltas, bits, &mut data);
            values = Section { offset: out.len() as usize, len: data.len() };
            out.put(&data)?;
            if mode == Mode::Sparse {
                data.clear();
                put_bits(max_doc, pairs.iter().map(|p| p.0), &mut data);
                presence = Section { offset: out.len() as usize, len: data.len() };
                out.put(&data)?;
            }
        }
        Mode::Multi => {
            let deltas: Vec<u64> = pairs.iter().map(|&(_, v)| delta(v)).collect();
            pack64(&deltas, bits, &mut data);
            values = Section { offset: out.len() as usize, len: data.len() };
            out.put(&data)?;
            let mut starts = Vec::with_capacity(max_doc as usize + 1);
            let mut i = 0usize;
            for d in 0..max_doc {
                starts.push(i as u64);
                while pairs.get(i).is_some_and(|p| p.0 == d) {
                    i += 1;
                }
            }
            starts.push(i as u64);
            data.clear();
            offset_bits = pack_min_width(&starts, &mut data);
            offsets = Section { offset: out.len() as usize, len: data.len() };
            out.put(&data)?;
        }
        Mode::Empty => unreachable!("pairs is not empty"),
    }
    meta.push(mode as u8);
    put_vu64(&mut meta, docs_with_value as u64);
    put_vu64(&mut meta, pairs.len() as u64);
    put_vu64(&mut meta, zigzag(min));
    put_vu64(&mut meta, zigzag(max));
    put_vu64(&mut meta, gcd);
    meta.push(bits);
    values.put(&mut meta);
    if mode == Mode::Sparse {
        presence.put(&mut meta);
    }
    if mode == Mode::Multi {
        meta.push(offset_bits);
        offsets.put(&mut meta);
    }
    Ok(meta)
}

fn gcd_u64(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// Reads an integer column's metadata and validates every length against `max_doc`.
pub fn read_int_meta(frame: &Frame<'_>, r: &mut ByteReader<'_>, max_doc: u32) -> Result<IntMeta> {
    let at = r.offset();
    let mode = match r.u8()? {
        0 => Mode::Empty,
        1 => Mode::Dense,
        2 => Mode::Sparse,
        3 => Mode::Multi,
        m => return Err(Error::corrupt("", at, format!("unknown column mode {m}"))),
    };
    let mut m = IntMeta {
        mode,
        docs_with_value: 0,
        num_values: 0,
        min: 0,
        max: 0,
        gcd: 1,
        bits: 0,
        values: Section::default(),
        presence: Section::default(),
        offset_bits: 0,
        offsets: Section::default(),
    };
    if mode == Mode::Empty {
        return Ok(m);
    }
    m.docs_with_value = r.vu32()?;
    m.num_values = r.vu64()?;
    m.min = r.vi64()?;
    m.max = r.vi64()?;
    m.gcd = r.vu64()?;
    m.bits = r.u8()?;
    check_bits(r, m.bits, 64)?;
    let bad = |why: String| Error::corrupt("", at, why);
    if m.gcd == 0 || m.min > m.max {
        return Err(bad(format!("bad value range: min {} max {} gcd {}", m.min, m.max, m.gcd)));
    }
    if m.docs_with_value == 0 || m.docs_with_value > max_doc || m.num_values < m.docs_with_value as u64 {
        return Err(bad(format!(
            "{} docs with {} values in a segment of {max_doc} docs",
            m.docs_with_value, m.num_values
        )));
    }
    let value_slots = match mode {
        Mode::Dense | Mode::Sparse => {
            if m.num_values != m.docs_with_value as u64 || (mode == Mode::Dense && m.docs_with_value != max_doc) {
                return Err(bad(format!(
                    "{mode:?} column with {} values for {} docs",
                    m.num_values, m.docs_with_value
                )));
            }
            max_doc as u64
        }
        _ => m.num_values,
    };
    m.values = frame.section(r, "values", Some(packed_len(value_slots, m.bits)))?;
    if mode == Mode::Sparse {
        m.presence = frame.section(r, "presence", Some((max_doc as u64).div_ceil(8)))?;
    }
    if mode == Mode::Multi {
        m.offset_bits = r.u8()?;
        check_bits(r, m.offset_bits, 64)?;
        m.offsets = frame.section(r, "offsets", Some(packed_len(max_doc as u64 + 1, m.offset_bits)))?;
    }
    Ok(m)
}

/// A view of an integer column over the mapped file.
#[derive(Debug, Clone, Copy)]
pub struct IntColumn<'a> {
    pub meta: &'a IntMeta,
    values: PackedInts<'a>,
    presence: Option<Bits<'a>>,
    offsets: PackedInts<'a>,
    max_doc: u32,
}

impl<'a> IntColumn<'a> {
    /// Builds the view; lengths were validated by [`read_int_meta`], so this only fails if the
    /// metadata was not produced by it.
    pub fn new(meta: &'a IntMeta, file: &'a [u8], max_doc: u32) -> Result<Self> {
        let slots = if matches!(meta.mode, Mode::Multi) {
            meta.num_values
        } else if meta.mode == Mode::Empty {
            0
        } else {
            max_doc as u64
        };
        let values = PackedInts::new(meta.values.bytes(file), meta.bits, slots)?;
        let presence =
            if meta.mode == Mode::Sparse { Some(Bits::new(meta.presence.bytes(file), max_doc)?) } else { None };
        let offsets = if meta.mode == Mode::Multi {
            PackedInts::new(meta.offsets.bytes(file), meta.offset_bits, max_doc as u64 + 1)?
        } else {
            PackedInts::empty()
        };
        Ok(IntColumn { meta, values, presence, offsets, max_doc })
    }

    #[inline]
    fn decode(&self, delta: u64) -> i64 {
        (self.meta.min as u64).wrapping_add(delta.wrapping_mul(self.meta.gcd)) as i64
    }

    /// The range of value indexes of `doc`.
    #[inline]
    fn range(&self, doc: DocId) -> (u64, u64) {
        if doc >= self.max_doc {
            return (0, 0);
        }
        match self.meta.mode {
            Mode::Empty => (0, 0),
            Mode::Dense => (doc as u64, doc as u64 + 1),
            Mode::Sparse => match self.presence {
                Some(p) if p.get(doc) => (doc as u64, doc as u64 + 1),
                _ => (0, 0),
            },
            Mode::Multi => {
                let (Some(s), Some(e)) = (self.offsets.get(doc as u64), self.offsets.get(doc as u64 + 1)) else {
                    return (0, 0);
                };
                if s > e {
                    (0, 0)
                } else {
                    (s, e)
                }
            }
        }
    }

    /// The smallest value of `doc`.
    #[inline]
    pub fn first(&self, doc: DocId) -> Option<i64> {
        let (s, e) = self.range(doc);
        if s < e {
            self.values.get(s).map(|d| self.decode(d))
        } else {
            None
        }
    }

    /// For a dense column (one value per doc): calls `f` with the values of docs `start..end` in
    /// order, unpacked in batches; false (nothing called) for other columns.
    #[inline]
    pub fn for_dense_range(&self, start: DocId, end: DocId, mut f: impl FnMut(i64)) -> bool {
        if self.meta.mode != Mode::Dense {
            return false;
        }
        let end = end.min(self.max_doc);
        self.values.for_range(start as u64, end as u64, |d| f(self.decode(d)));
        true
    }

    /// Appends the values of `doc` (ascending) to `out` after clearing it.
    pub fn values(&self, doc: DocId, out: &mut Vec<i64>) {
        out.clear();
        self.for_each(doc, |v| out.push(v));
    }

    /// Calls `f` with the values of `doc`, ascending.
    #[inline]
    pub fn for_each(&self, doc: DocId, mut f: impl FnMut(i64)) {
        let (s, e) = self.range(doc);
        self.values.for_range(s, e, |d| f(self.decode(d)));
    }

    /// Whether `doc` has at least one value.
    #[inline]
    pub fn has_value(&self, doc: DocId) -> bool {
        let (s, e) = self.range(doc);
        s < e
    }

    /// Verifies everything open-time validation does not: offsets, ordering, the value range.
    pub fn check(&self, strictly_ascending: bool) -> Result<()> {
        let m = self.meta;
        let err = |why: String| Error::corrupt("", m.values.offset as u64, why);
        let span = (m.max as u64).wrapping_sub(m.min as u64) / m.gcd;
        if m.mode == Mode::Empty {
            return Ok(());
        }
        if let Some(p) = self.presence {
            if p.count_ones() != m.docs_with_value as u64 {
                return Err(err(format!(
                    "presence bitset has {} docs, metadata says {}",
                    p.count_ones(),
                    m.docs_with_value
                )));
            }
            let padded = (self.max_doc as u64).div_ceil(8) * 8;
            if (self.max_doc as u64..padded).any(|k| p.get(k as u32)) {
                return Err(err("presence bits set past max_doc".into()));
            }
        }
        let mut docs = 0u32;
        let mut prev_end = 0u64;
        let mut seen_min = false;
        let mut seen_max = false;
        for doc in 0..self.max_doc {
            if m.mode == Mode::Multi {
                let s = self.offsets.get(doc as u64).unwrap_or(u64::MAX);
                let e = self.offsets.get(doc as u64 + 1).unwrap_or(u64::MAX);
                if s != prev_end || e < s || e > m.num_values {
                    return Err(err(format!("offsets of doc {doc} are [{s}, {e}) after {prev_end}")));
                }
                prev_end = e;
            }
            let (s, e) = self.range(doc);
            if s < e {
                docs += 1;
            }
            let mut prev: Option<u64> = None;
            for i in s..e {
                let d = self.values.get(i).ok_or_else(|| err(format!("value {i} missing")))?;
                if d > span {
                    return Err(err(format!("doc {doc} has a value outside [{}, {}]", m.min, m.max)));
                }
                seen_min |= d == 0;
                seen_max |= d == span;
                if let Some(p) = prev {
                    if d < p || (strictly_ascending && d == p) {
                        return Err(err(format!("values of doc {doc} are not sorted")));
                    }
                }
                prev = Some(d);
            }
        }
        if m.mode == Mode::Multi && prev_end != m.num_values {
            return Err(err(format!("offsets end at {prev_end}, {} values", m.num_values)));
        }
        if docs != m.docs_with_value || !seen_min || !seen_max {
            return Err(err(format!(
                "column holds {docs} docs (min seen {seen_min}, max seen {seen_max}), metadata says {}",
                m.docs_with_value
            )));
        }
        Ok(())
    }
}
