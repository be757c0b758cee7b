//! Counting range-like buckets from the points index (OpenSearch's "filter rewrite"
//! optimization of `range`, `date_histogram` and `auto_date_histogram`): a top-level
//! aggregation without sub-aggregations whose query is `match_all` (or, for date histograms, a
//! range of the aggregated field) counts each segment's buckets from the field's sorted points
//! instead of visiting its matches. A block of points whose smallest and largest keys fall in
//! the same bucket is counted whole from the block index (`inner_visited`); any other block has
//! its keys read in order (`leaf_visited`, counted when the block was read to its end: as in
//! OpenSearch, a block where the collection stopped because the keys passed the last bucket is
//! not). A segment qualifies when it has no deletions and every document with the field has
//! exactly one point (so points and documents count alike).
//!
//! The profile's `debug` shows the figures: `optimized_segments`, `unoptimized_segments`,
//! `leaf_visited`, `inner_visited` (only when a segment was optimized, as OpenSearch).

use serde_json::{json, Value};

use super::source::{Config, NumKind};
use super::{AggDef, ShardEnv};
use crate::engine::query::{Query, RangeKind, SegmentView};
use crate::engine::segment::points::{sortable, FieldPoints};
use crate::error::{OsError, OsResult};

/// What the traversal figures out about a key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Class {
    /// Below every bucket (or the query's range).
    Before,
    /// In bucket `k`.
    Bucket(i64),
    /// Between buckets.
    Gap,
    /// Past the last bucket (or the query's range): nothing after it counts.
    After,
}

/// The segments counted from points and the blocks visited.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct RewriteStats {
    pub segments: u64,
    pub optimized: u64,
    pub leaf: u64,
    pub inner: u64,
}

impl RewriteStats {
    /// The profile's debug entries (none when no segment was optimized).
    pub fn debug(&self, add: &mut dyn FnMut(&'static str, Value)) {
        if self.optimized > 0 {
            add("optimized_segments", json!(self.optimized));
            add("unoptimized_segments", json!(self.segments - self.optimized));
            add("leaf_visited", json!(self.leaf));
            add("inner_visited", json!(self.inner));
        }
    }
}

/// How a top-level aggregation may count from points: its field, how its keys decode, and the
/// query's bounds on the field (sortable keys, inclusive).
#[derive(Debug, Clone)]
pub struct Plan {
    pub field: String,
    pub kind: NumKind,
    pub lo: Option<Vec<u8>>,
    pub hi: Option<Vec<u8>>,
}

impl Plan {
    /// The plan of the aggregation `def` over `cfg`, when it qualifies; `range_query`: a range
    /// query on the field qualifies too (its bounds clip the buckets).
    pub fn of(def: &AggDef, env: &ShardEnv<'_>, cfg: &Config, range_query: bool) -> Option<Plan> {
        let q = env.top_query?;
        if !def.subs.iter().all(|d| d.spec.is_pipeline()) || cfg.script.is_some() || cfg.missing.is_some() {
            return None;
        }
        let field = cfg.field.clone()?;
        let kind = match cfg.vt {
            Some(super::source::VType::Num(k @ (NumKind::Long | NumKind::Date { nanos: false } | NumKind::Double))) => {
                k
            }
            _ => return None,
        };
        let (lo, hi) = match unwrap_single(q) {
            Query::MatchAll { .. } => (None, None),
            Query::Range { field: f, lo, hi, include_lo, include_hi, kind: RangeKind::Points, .. }
                if range_query && *f == field =>
            {
                (inclusive(lo.as_deref(), *include_lo, true)?, inclusive(hi.as_deref(), *include_hi, false)?)
            }
            _ => return None,
        };
        Some(Plan { field, kind, lo, hi })
    }

    /// The value a key holds, as the doc-values column reads it (`to_f64` of the raw value).
    pub fn value(&self, key: &[u8]) -> f64 {
        match self.kind {
            NumKind::Double => sortable::decode_f64(key),
            _ => sortable::decode_i64(key) as f64,
        }
    }

    /// The raw column value of a key (longs and dates).
    pub fn raw(&self, key: &[u8]) -> i64 {
        sortable::decode_i64(key)
    }

    /// Whether `key` lies below or above the query's bounds.
    pub fn clip(&self, key: &[u8]) -> Option<Class> {
        if self.lo.as_deref().is_some_and(|lo| key < lo) {
            return Some(Class::Before);
        }
        if self.hi.as_deref().is_some_and(|hi| key > hi) {
            return Some(Class::After);
        }
        None
    }
}

/// `q` without a wrapper that changes nothing about its matches.
fn unwrap_single(q: &Query) -> &Query {
    match q {
        Query::ConstantScore { query, .. } => unwrap_single(query),
        Query::Bool { must, should, must_not, filter, .. }
            if should.is_empty() && must_not.is_empty() && must.len() + filter.len() == 1 =>
        {
            unwrap_single(must.first().or(filter.first()).unwrap_or(q))
        }
        other => other,
    }
}

/// An 8-byte bound made inclusive (`None` for an exclusive bound at the end of the key space:
/// nothing matches past it, the plan is then not used). `lower`: it is a lower bound.
fn inclusive(b: Option<&[u8]>, incl: bool, lower: bool) -> Option<Option<Vec<u8>>> {
    let Some(b) = b else { return Some(None) };
    if b.len() != 8 {
        return None;
    }
    if incl {
        return Some(Some(b.to_vec()));
    }
    let v = u64::from_be_bytes(b.try_into().ok()?);
    let v = if lower { v.checked_add(1)? } else { v.checked_sub(1)? };
    Some(Some(v.to_be_bytes().to_vec()))
}

/// The field's points in segment `seg` when the segment can be counted from them.
pub fn points<'a>(seg: &'a dyn SegmentView, plan: &Plan) -> Option<FieldPoints<'a>> {
    if seg.has_deletions() {
        return None;
    }
    let p = seg.points_field(&plan.field)?;
    (p.width() == 8 && u64::from(p.doc_count()) == p.num_points()).then_some(p)
}

/// Counts the points of `p` into buckets: `classify` places a key, `add(bucket, n)` counts `n`
/// documents in a bucket. Updates the block figures of `stats`.
pub fn count(
    p: &FieldPoints<'_>,
    stats: &mut RewriteStats,
    classify: &mut dyn FnMut(&[u8]) -> Class,
    add: &mut dyn FnMut(i64, u64),
) -> OsResult<()> {
    let io = |e: crate::engine::Error| OsError::from(e);
    for b in 0..p.block_count() {
        let (min, max, n) = p.block_bounds(b).ok_or_else(|| OsError::internal("points block index entry missing"))?;
        let (cmin, cmax) = (classify(min), classify(max));
        if cmin == Class::After {
            return Ok(());
        }
        if cmax == Class::Before {
            continue;
        }
        if let (Class::Bucket(a), Class::Bucket(z)) = (cmin, cmax) {
            if a == z {
                add(a, n);
                stats.inner += 1;
                continue;
            }
        }
        // Read the block's keys, counting runs of one bucket.
        let mut run: Option<(i64, u64)> = None;
        let mut ended = false;
        let complete = p
            .block_keys(b, &mut |key| match classify(key) {
                Class::After => {
                    ended = true;
                    false
                }
                Class::Bucket(k) => {
                    match &mut run {
                        Some((rk, c)) if *rk == k => *c += 1,
                        _ => {
                            if let Some((rk, c)) = run.take() {
                                add(rk, c);
                            }
                            run = Some((k, 1));
                        }
                    }
                    true
                }
                Class::Before | Class::Gap => true,
            })
            .map_err(io)?;
        if let Some((rk, c)) = run {
            add(rk, c);
        }
        if complete {
            stats.leaf += 1;
        }
        if ended {
            return Ok(());
        }
    }
    Ok(())
}

/// The leaf of a segment counted from points: it wants no documents.
#[derive(Debug, Clone, Copy, Default)]
pub struct Counted;

impl super::LeafCollector for Counted {
    fn collect(&mut self, _doc: crate::engine::segment::DocId, _ord: u32, _score: f32) -> OsResult<()> {
        Ok(())
    }

    fn collect_block(&mut self, _docs: &[crate::engine::segment::DocId], _ord: u32) -> OsResult<()> {
        Ok(())
    }

    fn done(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exclusive_bounds_become_inclusive() {
        let k = sortable::encode_i64(10).to_vec();
        assert_eq!(inclusive(Some(&k), false, true), Some(Some(sortable::encode_i64(11).to_vec())));
        assert_eq!(inclusive(Some(&k), false, false), Some(Some(sortable::encode_i64(9).to_vec())));
        assert_eq!(inclusive(Some(&k), true, false), Some(Some(k.clone())));
        assert_eq!(inclusive(None, false, false), Some(None));
        assert_eq!(inclusive(Some(&[0xFF; 8]), false, true), None);
    }

    #[test]
    fn debug_only_when_optimized() {
        let mut out = Vec::new();
        RewriteStats { segments: 2, ..RewriteStats::default() }.debug(&mut |k, v| out.push((k, v)));
        assert!(out.is_empty());
        RewriteStats { segments: 2, optimized: 1, leaf: 1, inner: 3 }.debug(&mut |k, v| out.push((k, v)));
        assert_eq!(out[1], ("unoptimized_segments", json!(1)));
        assert_eq!(out[3], ("inner_visited", json!(3)));
    }
}
