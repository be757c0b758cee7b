//! `histogram` and `date_histogram` over range fields (OpenSearch's `RangeHistogramAggregator`
//! and `DateRangeHistogramAggregator`): a document counts once in every bucket one of its
//! intervals overlaps. `hard_bounds` clip the intervals before they are rounded (an interval
//! without an upper bound reaches the type's maximum, so it needs them to stay within
//! `search.max_buckets`).
//!
//! A range field's doc values are sorted-set terms `lo ++ hi` (inclusive bound keys, see
//! `engine::schema::range`), in ascending order of their lower bound.

use std::collections::HashMap;
use std::sync::Arc;

use super::fmt::Fmt;
use super::histogram::{histo_result, intern_key, Bounds, HistoCommon, Rounder};
use super::ords::BucketOrds;
use super::result::{AggResult, Key, KeyIdent};
use super::source::{resolve_alias, Config, SegValues, SourceSpec, VType};
use super::{AggDef, Collector, LeafCollector, ShardEnv, SubLeaves, Subs, DEFAULT_MAX_BUCKETS};
use crate::engine::query::SegmentView;
use crate::engine::schema::range::RangeType;
use crate::engine::schema::{FieldKind, Mapping};
use crate::engine::segment::points::sortable;
use crate::engine::segment::DocId;
use crate::error::{OsError, OsResult};

/// A range field a histogram reads: its name, element type and (dates) mapped format.
#[derive(Debug, Clone)]
pub struct RangeField {
    pub name: String,
    pub rt: RangeType,
    pub format: Option<String>,
}

/// The range field `spec` names (`None`: a script, or not a range field).
pub fn range_field(spec: &SourceSpec, mapping: &Mapping) -> Option<RangeField> {
    if spec.script.is_some() {
        return None;
    }
    let name = spec.field.as_deref()?;
    let ft = resolve_alias(mapping, mapping.field_type(name)?);
    match &ft.kind {
        FieldKind::Range { kind, format } => {
            Some(RangeField { name: name.to_string(), rt: *kind, format: format.clone() })
        }
        _ => None,
    }
}

/// One bound of an interval: the value as a double and as a long (dates round the long).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BoundValue {
    pub v: f64,
    pub raw: i64,
}

/// Decodes an indexed interval `lo ++ hi` of a numeric or date range type.
pub fn decode(rt: RangeType, encoded: &[u8]) -> Option<(BoundValue, BoundValue)> {
    let w = rt.width();
    if rt == RangeType::Ip || encoded.len() != 2 * w {
        return None;
    }
    let one = |k: &[u8]| match rt {
        RangeType::Float | RangeType::Double => {
            let v = sortable::decode_f64(k);
            BoundValue { v, raw: v as i64 }
        }
        _ => {
            let raw = sortable::decode_i64(k);
            BoundValue { v: raw as f64, raw }
        }
    };
    Some((one(&encoded[..w]), one(&encoded[w..])))
}

/// `hard_bounds` applied to one bound: `max(b, min)` for a lower bound, `min(b, max)` for an upper.
fn clip(b: BoundValue, limit: Option<f64>, lower: bool) -> BoundValue {
    match limit {
        Some(l) if (lower && b.v < l) || (!lower && b.v > l) => BoundValue { v: l, raw: l as i64 },
        _ => b,
    }
}

/// The collector of a histogram over range field `rf`; `fmt` prints the keys.
pub fn range_histo_collector(
    def: &AggDef,
    env: &ShardEnv<'_>,
    rf: RangeField,
    fmt: Fmt,
    common: &HistoCommon,
    rounder: Arc<dyn Rounder>,
) -> OsResult<Box<dyn Collector>> {
    if common.source.missing.is_some() {
        return Err(OsError::illegal(
            "Can't apply missing values on a class org.opensearch.search.aggregations.support.ValuesSource$Range",
        ));
    }
    common.order.validate(&def.subs)?;
    // The terms of the field's sorted-set column (no `missing`: every interval is indexed).
    let cfg = Config {
        field: Some(rf.name.clone()),
        vt: Some(VType::Bytes { ip: false }),
        missing: None,
        fmt,
        type_name: rf.rt.type_name().to_string(),
        script: None,
    };
    Ok(Box::new(RangeHistoCollector {
        cfg,
        rt: rf.rt,
        rounder,
        hard: common.hard,
        keys: Vec::new(),
        index: HashMap::new(),
        ords: BucketOrds::default(),
        subs: Subs::new(def, env)?,
    }))
}

struct RangeHistoCollector {
    cfg: Config,
    rt: RangeType,
    rounder: Arc<dyn Rounder>,
    hard: Option<Bounds>,
    keys: Vec<Key>,
    index: HashMap<KeyIdent, i64>,
    ords: BucketOrds,
    subs: Subs,
}

impl Collector for RangeHistoCollector {
    fn leaf<'a>(&'a mut self, seg: &'a dyn SegmentView, si: usize) -> OsResult<Box<dyn LeafCollector + 'a>> {
        Ok(Box::new(RangeHistoLeaf {
            values: self.cfg.open(seg),
            rt: self.rt,
            rounder: self.rounder.as_ref(),
            hard: self.hard,
            keys: &mut self.keys,
            index: &mut self.index,
            ords: &mut self.ords,
            subs: self.subs.leaves(seg, si)?,
            ords_buf: Vec::new(),
        }))
    }

    fn result(&mut self, owner: u32) -> OsResult<AggResult> {
        histo_result(&self.ords, &self.keys, &mut self.subs, owner, &self.cfg.fmt)
    }

    fn needs_scores(&self) -> bool {
        self.subs.needs_scores()
    }

    fn mem_bytes(&self) -> usize {
        self.ords.mem_bytes() + self.keys.capacity() * 32 + self.subs.mem_bytes()
    }
}

struct RangeHistoLeaf<'a> {
    values: SegValues<'a>,
    rt: RangeType,
    rounder: &'a dyn Rounder,
    hard: Option<Bounds>,
    keys: &'a mut Vec<Key>,
    index: &'a mut HashMap<KeyIdent, i64>,
    ords: &'a mut BucketOrds,
    subs: SubLeaves<'a>,
    ords_buf: Vec<u64>,
}

impl RangeHistoLeaf<'_> {
    /// The bucket ordinal of `key` under `owner`; more distinct keys than `search.max_buckets`
    /// is OpenSearch's `too_many_buckets_exception`.
    fn bucket(&mut self, owner: u32, key: &Key) -> OsResult<u32> {
        let ki = intern_key(self.keys, self.index, key);
        if ki as u64 >= DEFAULT_MAX_BUCKETS {
            return Err(super::too_many_buckets(DEFAULT_MAX_BUCKETS, ki as u64 + 1));
        }
        Ok(self.ords.ord_long(owner, ki))
    }
}

impl LeafCollector for RangeHistoLeaf<'_> {
    fn collect(&mut self, doc: DocId, owner: u32, score: f32) -> OsResult<()> {
        let SegValues::Bytes(r) = &mut self.values else { return Ok(()) };
        self.ords_buf.clear();
        self.ords_buf.extend_from_slice(r.ords(doc));
        // The last key counted for this document: intervals come in ascending order of their
        // lower bound, so the keys before it were counted already.
        let mut previous: Option<Key> = None;
        for i in 0..self.ords_buf.len() {
            let SegValues::Bytes(r) = &self.values else { return Ok(()) };
            let term = r.term(self.ords_buf[i])?;
            let Some((from, to)) = decode(self.rt, &term) else {
                return Err(OsError::internal(format!("bad indexed [{}] value", self.rt.type_name())));
            };
            let from = clip(from, self.hard.and_then(|h| h.min), true);
            let to = clip(to, self.hard.and_then(|h| h.max), false);
            let start = self.rounder.key_of(from.v, from.raw);
            let end = self.rounder.key_of(to.v, to.raw);
            let mut key = match &previous {
                Some(p) if p.cmp_key(&start).is_gt() => p.clone(),
                _ => start,
            };
            while key.cmp_key(&end).is_le() {
                if previous.as_ref().is_none_or(|p| !p.cmp_key(&key).is_eq()) {
                    let b = self.bucket(owner, &key)?;
                    self.ords.counts[b as usize] += 1;
                    self.subs.collect(doc, b, score)?;
                }
                let next = self.rounder.next(&key);
                if !next.cmp_key(&key).is_gt() {
                    break;
                }
                key = next;
            }
            if previous.as_ref().is_none_or(|p| end.cmp_key(p).is_gt()) {
                previous = Some(end);
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn enc_long(lo: i64, hi: i64) -> Vec<u8> {
        [sortable::encode_i64(lo), sortable::encode_i64(hi)].concat()
    }

    #[test]
    fn decodes_numeric_intervals_only() {
        let (a, b) = decode(RangeType::Date, &enc_long(-5, 7)).unwrap();
        assert_eq!((a.raw, b.raw, a.v, b.v), (-5, 7, -5.0, 7.0));
        let d = [sortable::encode_f64(1.5), sortable::encode_f64(2.25)].concat();
        let (a, b) = decode(RangeType::Double, &d).unwrap();
        assert_eq!((a.v, b.v), (1.5, 2.25));
        assert!(decode(RangeType::Ip, &[0u8; 32]).is_none());
        assert!(decode(RangeType::Long, &[0u8; 9]).is_none());
    }

    #[test]
    fn hard_bounds_clip_the_interval() {
        let b = |v: f64| BoundValue { v, raw: v as i64 };
        assert_eq!(clip(b(3.0), Some(5.0), true), b(5.0));
        assert_eq!(clip(b(7.0), Some(5.0), true), b(7.0));
        assert_eq!(clip(b(7.0), Some(5.0), false), b(5.0));
        assert_eq!(clip(b(i64::MAX as f64), None, false), b(i64::MAX as f64));
    }
}
