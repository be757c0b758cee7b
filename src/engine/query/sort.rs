//! Sorting by doc values: sort specifications, per-segment keys (ordinals within a segment) and
//! global sort values (term bytes across segments), with missing values first or last.

use std::cmp::Ordering;

use super::view::SegmentView;
use crate::engine::segment::DocId;
use crate::engine::Result;

/// Sort direction.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum SortOrder {
    /// Smallest first.
    Asc,
    /// Largest first.
    Desc,
}

/// Where documents without a value go (in either direction, like OpenSearch's `missing`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Missing {
    /// Before every value.
    First,
    /// After every value (OpenSearch's default).
    Last,
}

/// What to sort by.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SortBy {
    /// Relevance (`_score`).
    Score,
    /// Index order (`_doc`): segment order then doc id.
    Doc,
    /// A numeric doc-values column of longs (also dates, booleans).
    Long(String),
    /// A numeric doc-values column of doubles stored as sortable longs.
    Double(String),
    /// A sorted-set doc-values column (keywords), compared by term bytes.
    Keyword(String),
    /// A numeric column with a `mode` over multiple values, a custom `missing` value or a
    /// `numeric_type` other than the field's.
    Numeric(NumericSort),
}

/// OpenSearch's `MultiValueMode` for numeric sorts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NumMode {
    /// The smallest ascending, the largest descending (the default).
    Auto,
    Min,
    Max,
    Sum,
    Avg,
    Median,
}

/// A numeric sort beyond the defaults.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NumericSort {
    pub field: String,
    /// The column holds doubles as sortable longs.
    pub stored_double: bool,
    /// Sort values print as doubles (`numeric_type: double`), else as longs.
    pub out_double: bool,
    pub mode: NumMode,
    /// The value of documents without one, in the column's encoding.
    pub missing: Option<i64>,
    /// The column holds `unsigned_long`s with the sign bit flipped (so that they order as
    /// signed longs): `sum`, `avg` and `median` compute over the unsigned values, wrapping
    /// around 2^64 like OpenSearch's `UnsignedLongValuesComparatorSource`.
    pub unsigned: bool,
    /// `scaled_float`: the bits of the scaling factor; the column holds `round(value * factor)`
    /// and sort values are the doubles `key / factor` (OpenSearch sorts them as doubles).
    pub scale: Option<u64>,
}

impl NumericSort {
    /// The key of a doc with `vals` (sorted ascending) sorted in `order`.
    pub fn pick(&self, vals: &[i64], order: SortOrder) -> Option<i64> {
        let (first, last) = (vals.first().copied(), vals.last().copied());
        let Some(lo) = first else { return self.missing };
        let n = vals.len();
        if self.unsigned && matches!(self.mode, NumMode::Sum | NumMode::Avg | NumMode::Median) {
            return Some(self.pick_unsigned(vals));
        }
        let as_f = |v: i64| if self.stored_double { sortable_long_to_double(v) } else { v as f64 };
        let back = |d: f64| if self.stored_double { double_to_sortable_long(d) } else { d as i64 };
        let round = |d: f64| (d + 0.5).floor();
        Some(match self.mode {
            NumMode::Auto => {
                if order == SortOrder::Asc {
                    lo
                } else {
                    last.unwrap_or(lo)
                }
            }
            NumMode::Min => lo,
            NumMode::Max => last.unwrap_or(lo),
            NumMode::Sum if self.stored_double => back(vals.iter().map(|v| as_f(*v)).sum()),
            NumMode::Sum => vals.iter().fold(0i64, |a, v| a.wrapping_add(*v)),
            NumMode::Avg if self.stored_double => back(vals.iter().map(|v| as_f(*v)).sum::<f64>() / n as f64),
            NumMode::Avg => {
                let t = vals.iter().fold(0i64, |a, v| a.wrapping_add(*v));
                if n > 1 {
                    round(t as f64 / n as f64) as i64
                } else {
                    t
                }
            }
            NumMode::Median => {
                let mid = n / 2;
                if n % 2 == 1 {
                    vals[mid]
                } else {
                    let m = (as_f(vals[mid - 1]) + as_f(vals[mid])) / 2.0;
                    if self.stored_double {
                        back(m)
                    } else {
                        round(m) as i64
                    }
                }
            }
        })
    }
}

impl NumericSort {
    /// `sum`, `avg` and `median` over a non-empty `vals` of unsigned longs (sign-flipped).
    fn pick_unsigned(&self, vals: &[i64]) -> i64 {
        let flip = |v: i64| (v as u64) ^ (1 << 63);
        let back = |u: u64| (u ^ (1 << 63)) as i64;
        // Half up, as `Math.round` over the exact quotient.
        let div_round = |t: u64, n: u64| {
            let q = t / n;
            if (t % n) * 2 >= n {
                q.wrapping_add(1)
            } else {
                q
            }
        };
        let n = vals.len() as u64;
        let sum = || vals.iter().fold(0u64, |a, v| a.wrapping_add(flip(*v)));
        back(match self.mode {
            NumMode::Sum => sum(),
            NumMode::Avg => div_round(sum(), n),
            _ => {
                let mid = vals.len() / 2;
                if vals.len() % 2 == 1 {
                    flip(vals[mid])
                } else {
                    div_round(flip(vals[mid - 1]).wrapping_add(flip(vals[mid])), 2)
                }
            }
        })
    }
}

/// One sort criterion. Multi-valued fields sort by their minimum ascending and their maximum
/// descending (OpenSearch's default `mode`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SortField {
    /// What to sort by.
    pub by: SortBy,
    /// Direction.
    pub order: SortOrder,
    /// Placement of documents without a value (ignored for score and doc).
    pub missing: Missing,
    /// The values come from the root's nested documents (see [`super::sort_nested`]).
    pub nested: Option<super::sort_nested::NestedSortRef>,
}

impl SortField {
    /// `_score` descending.
    pub fn score() -> SortField {
        SortField { by: SortBy::Score, order: SortOrder::Desc, missing: Missing::Last, nested: None }
    }
}

/// A sort value of a hit, as OpenSearch returns it in `sort`.
#[derive(Debug, Clone, PartialEq)]
pub enum SortValue {
    /// A score.
    Float(f32),
    /// A long (also `_doc`, as the index-wide doc number).
    Long(i64),
    /// A double.
    Double(f64),
    /// Keyword bytes.
    Bytes(Vec<u8>),
    /// Missing.
    Null,
}

/// Lucene's `NumericUtils.sortableLongToDouble`.
pub fn sortable_long_to_double(l: i64) -> f64 {
    f64::from_bits((l ^ ((l >> 63) & 0x7fff_ffff_ffff_ffff)) as u64)
}

/// Lucene's `NumericUtils.doubleToSortableLong`.
pub fn double_to_sortable_long(d: f64) -> i64 {
    let b = d.to_bits() as i64;
    b ^ ((b >> 63) & 0x7fff_ffff_ffff_ffff)
}

fn apply(order: SortOrder, o: Ordering) -> Ordering {
    match order {
        SortOrder::Asc => o,
        SortOrder::Desc => o.reverse(),
    }
}

/// Compares two optional values: missing placement first, then direction.
fn cmp_opt<T: PartialOrd>(a: Option<&T>, b: Option<&T>, f: &SortField) -> Ordering {
    match (a, b) {
        (None, None) => Ordering::Equal,
        (None, Some(_)) => {
            if f.missing == Missing::First {
                Ordering::Less
            } else {
                Ordering::Greater
            }
        }
        (Some(_), None) => {
            if f.missing == Missing::First {
                Ordering::Greater
            } else {
                Ordering::Less
            }
        }
        (Some(x), Some(y)) => apply(f.order, x.partial_cmp(y).unwrap_or(Ordering::Equal)),
    }
}

/// Compares two global sort values under `f` (`Less`: `a` comes first).
pub fn cmp_value(a: &SortValue, b: &SortValue, f: &SortField) -> Ordering {
    let opt = |v: &SortValue| !matches!(v, SortValue::Null);
    match (a, b) {
        (SortValue::Float(x), SortValue::Float(y)) => apply(f.order, x.total_cmp(y)),
        (SortValue::Long(x), SortValue::Long(y)) => cmp_opt(Some(x), Some(y), f),
        (SortValue::Double(x), SortValue::Double(y)) => cmp_opt(Some(x), Some(y), f),
        // A field mapped as a long in one index and a double in another (OpenSearch widens the
        // sort to compare them numerically).
        (SortValue::Long(x), SortValue::Double(y)) => apply(f.order, cmp_long_double(*x, *y)),
        (SortValue::Double(x), SortValue::Long(y)) => apply(f.order, cmp_long_double(*y, *x).reverse()),
        (SortValue::Bytes(x), SortValue::Bytes(y)) => cmp_opt(Some(x), Some(y), f),
        _ => cmp_opt(opt(a).then_some(&()), opt(b).then_some(&()), f),
    }
}

/// Compares a long with a double exactly (NaN sorts after every long).
pub fn cmp_long_double(x: i64, y: f64) -> Ordering {
    if y.is_nan() {
        return Ordering::Less;
    }
    // 2^63 is exact in a double; a double below it fits an i64 after flooring.
    if y >= 9_223_372_036_854_775_808.0 {
        return Ordering::Less;
    }
    if y < -9_223_372_036_854_775_808.0 {
        return Ordering::Greater;
    }
    let fl = y.floor();
    match x.cmp(&(fl as i64)) {
        Ordering::Equal if y > fl => Ordering::Less,
        o => o,
    }
}

/// Compares two lists of sort values field by field.
pub fn cmp_values(a: &[SortValue], b: &[SortValue], fields: &[SortField]) -> Ordering {
    for ((x, y), f) in a.iter().zip(b).zip(fields) {
        let o = cmp_value(x, y, f);
        if o != Ordering::Equal {
            return o;
        }
    }
    Ordering::Equal
}

/// A sort key within one segment: ordinals instead of bytes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum SegKey {
    /// A score.
    Score(f32),
    /// A doc (index-wide number).
    Doc(i64),
    /// A numeric value or missing.
    Num(Option<i64>),
    /// A keyword ordinal or missing.
    Ord(Option<u64>),
}

/// Compares two segment keys under `f`.
pub fn cmp_key(a: &SegKey, b: &SegKey, f: &SortField) -> Ordering {
    match (a, b) {
        (SegKey::Score(x), SegKey::Score(y)) => apply(f.order, x.total_cmp(y)),
        (SegKey::Doc(x), SegKey::Doc(y)) => apply(f.order, x.cmp(y)),
        (SegKey::Num(x), SegKey::Num(y)) => cmp_opt(x.as_ref(), y.as_ref(), f),
        (SegKey::Ord(x), SegKey::Ord(y)) => cmp_opt(x.as_ref(), y.as_ref(), f),
        _ => Ordering::Equal,
    }
}

/// Reads the per-segment sort keys of documents.
pub struct KeyReader<'a> {
    seg: &'a dyn SegmentView,
    doc_base: i64,
    nums: Vec<i64>,
    ords: Vec<u64>,
    /// Per nested sort (by the address of its spec): its value-carrying nested documents.
    nested: Vec<(usize, super::sort_nested::NestedValues)>,
    scratch: Vec<i64>,
    scratch_ords: Vec<u64>,
}

impl<'a> KeyReader<'a> {
    /// Keys of `seg`, whose first doc is index-wide doc `doc_base`.
    pub fn new(seg: &'a dyn SegmentView, doc_base: i64) -> Self {
        KeyReader {
            seg,
            doc_base,
            nums: Vec::new(),
            ords: Vec::new(),
            nested: Vec::new(),
            scratch: Vec::new(),
            scratch_ords: Vec::new(),
        }
    }

    /// Prepares the nested sorts among `fields` (finds their nested documents in the segment).
    pub fn prepare(&mut self, fields: &[SortField]) -> Result<()> {
        for f in fields {
            if let Some(n) = &f.nested {
                let k = std::sync::Arc::as_ptr(&n.0) as usize;
                if !self.nested.iter().any(|(a, _)| *a == k) {
                    self.nested.push((k, super::sort_nested::NestedValues::new(self.seg, &n.0)?));
                }
            }
        }
        Ok(())
    }

    /// The numeric values of `field` for `doc`: its own, or those of its nested documents.
    fn numeric_of(&mut self, f: &SortField, field: &str, doc: DocId) {
        self.nums.clear();
        let Some(n) = &f.nested else {
            if !self.seg.numeric_values(field, doc, &mut self.nums) {
                self.nums.clear();
            }
            return;
        };
        let k = std::sync::Arc::as_ptr(&n.0) as usize;
        let Some((_, nv)) = self.nested.iter().find(|(a, _)| *a == k) else { return };
        let all = self.seg.with_nested().unwrap_or(self.seg);
        for c in nv.children(self.seg, doc) {
            if all.numeric_values(field, c, &mut self.scratch) {
                self.nums.extend_from_slice(&self.scratch);
            }
        }
        self.nums.sort_unstable();
    }

    /// The ordinals of `field` for `doc`: its own, or those of its nested documents.
    fn ords_of(&mut self, f: &SortField, field: &str, doc: DocId) {
        self.ords.clear();
        let Some(n) = &f.nested else {
            if !self.seg.sorted_set_ords(field, doc, &mut self.ords) {
                self.ords.clear();
            }
            return;
        };
        let k = std::sync::Arc::as_ptr(&n.0) as usize;
        let Some((_, nv)) = self.nested.iter().find(|(a, _)| *a == k) else { return };
        let all = self.seg.with_nested().unwrap_or(self.seg);
        for c in nv.children(self.seg, doc) {
            if all.sorted_set_ords(field, c, &mut self.scratch_ords) {
                self.ords.extend_from_slice(&self.scratch_ords);
            }
        }
        self.ords.sort_unstable();
        self.ords.dedup();
    }

    /// The key of `doc` under `f` (`score` is the doc's score, NaN when not computed).
    pub fn key(&mut self, f: &SortField, doc: DocId, score: f32) -> SegKey {
        let pick = |n: usize| match f.order {
            SortOrder::Asc => 0,
            SortOrder::Desc => n.saturating_sub(1),
        };
        match &f.by {
            SortBy::Score => SegKey::Score(score),
            SortBy::Doc => SegKey::Doc(self.doc_base + doc as i64),
            SortBy::Long(field) | SortBy::Double(field) => {
                self.numeric_of(f, field, doc);
                SegKey::Num(self.nums.get(pick(self.nums.len())).copied())
            }
            SortBy::Numeric(ns) => {
                self.numeric_of(f, &ns.field, doc);
                SegKey::Num(ns.pick(&self.nums, f.order))
            }
            SortBy::Keyword(field) => {
                self.ords_of(f, field, doc);
                SegKey::Ord(self.ords.get(pick(self.ords.len())).copied())
            }
        }
    }

    /// The global sort value of a segment key.
    pub fn value(&self, f: &SortField, key: &SegKey) -> Result<SortValue> {
        Ok(match (key, &f.by) {
            (SegKey::Score(s), _) => SortValue::Float(*s),
            (SegKey::Doc(d), _) => SortValue::Long(*d),
            (SegKey::Num(Some(v)), SortBy::Double(_)) => SortValue::Double(sortable_long_to_double(*v)),
            (SegKey::Num(Some(v)), SortBy::Numeric(NumericSort { scale: Some(bits), .. })) => {
                SortValue::Double(*v as f64 / f64::from_bits(*bits))
            }
            (SegKey::Num(Some(v)), SortBy::Numeric(ns)) => {
                let d = if ns.stored_double { sortable_long_to_double(*v) } else { *v as f64 };
                match (ns.out_double, ns.stored_double) {
                    (true, _) => SortValue::Double(d),
                    (false, true) => SortValue::Long(d as i64),
                    (false, false) => SortValue::Long(*v),
                }
            }
            (SegKey::Num(Some(v)), _) => SortValue::Long(*v),
            (SegKey::Ord(Some(o)), SortBy::Keyword(field)) => SortValue::Bytes(self.seg.sorted_set_term(field, *o)?),
            _ => SortValue::Null,
        })
    }
}

impl std::fmt::Debug for KeyReader<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("KeyReader").finish_non_exhaustive()
    }
}

#[cfg(test)]
#[path = "sort_mode_tests.rs"]
mod mode_tests;
