//! Sliced scrolls and PIT searches (`"slice": {"id", "max", "field"}`), as OpenSearch's
//! `SliceBuilder`: with fewer slices than shards a slice takes whole shards (`shard % max`);
//! otherwise each shard serves the slices `id % shards == shard`, split further within the
//! shard by `TermsSliceQuery` (`_id`: `floorMod(murmur3(encoded _id, 7919), n)`) or
//! `DocValuesSliceQuery` (a numeric doc-values field: `floorMod(BitMixer.mix(value), n)`, a
//! document without a value counting as hash 0).

use std::sync::Arc;

use serde_json::Value;

use super::context::ShardContext;
use crate::engine::codec::murmur3::murmur3_x86_32;
use crate::engine::query::verified::{CheckRef, DocCheck};
use crate::engine::query::{Query, SegmentView};
use crate::engine::schema::FieldKind;
use crate::engine::segment::DocId;
use crate::error::{ErrorKind, OsError, OsResult};

/// OpenSearch's default `index.max_slices_per_scroll`.
pub const DEFAULT_MAX_SLICES_PER_SCROLL: i64 = 1024;

/// `TermsSliceQuery`'s fixed murmur3 seed.
const SEED: u32 = 7919;

/// A parsed `slice` (unset `id`/`max` stay -1, as in `SliceBuilder`).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Slice {
    pub field: String,
    pub id: i32,
    pub max: i32,
}

fn parse_err(key: &str, cause: OsError) -> OsError {
    OsError::new(ErrorKind::XContentParse, format!("[slice] failed to parse field [{key}]")).caused_by(cause)
}

fn int_of(key: &str, v: &Value) -> OsResult<i32> {
    let bad = || {
        parse_err(
            key,
            OsError::illegal(format!(
                "For input string: \"{}\"",
                v.as_str().map_or_else(|| v.to_string(), str::to_string)
            )),
        )
    };
    match v {
        Value::Number(n) => n
            .as_i64()
            .and_then(|i| i32::try_from(i).ok())
            .or_else(|| n.as_f64().filter(|f| f.fract() == 0.0 && f.abs() < 2e9).map(|f| f as i32))
            .ok_or_else(bad),
        Value::String(s) => s.trim().parse::<i32>().map_err(|_| bad()),
        _ => Err(bad()),
    }
}

/// Parses the body's `slice` object (OpenSearch's `ObjectParser` with `SliceBuilder`'s setters).
pub fn parse(v: &Value) -> OsResult<Slice> {
    let m = v
        .as_object()
        .ok_or_else(|| OsError::new(ErrorKind::XContentParse, "[slice] Expected START_OBJECT but was: VALUE"))?;
    let mut s = Slice { field: "_id".into(), id: -1, max: -1 };
    for (k, v) in m {
        match k.as_str() {
            "field" => {
                let f = match v {
                    Value::String(f) => f.clone(),
                    Value::Number(n) => n.to_string(),
                    _ => return Err(parse_err(k, OsError::illegal("[field] must be a string"))),
                };
                if f.is_empty() {
                    return Err(parse_err(k, OsError::illegal("field name is null or empty")));
                }
                s.field = f;
            }
            "id" => {
                let id = int_of(k, v)?;
                if id < 0 {
                    return Err(parse_err(k, OsError::illegal("id must be greater than or equal to 0")));
                }
                if s.max != -1 && id >= s.max {
                    return Err(parse_err(k, OsError::illegal("max must be greater than id")));
                }
                s.id = id;
            }
            "max" => {
                let max = int_of(k, v)?;
                if max <= 1 {
                    return Err(parse_err(k, OsError::illegal("max must be greater than 1")));
                }
                if s.id != -1 && s.id >= max {
                    return Err(parse_err(k, OsError::illegal("max must be greater than id")));
                }
                s.max = max;
            }
            other => {
                return Err(OsError::new(
                    ErrorKind::XContentParse,
                    crate::error::unknown_field("slice", other, &["field", "id", "max"]),
                ))
            }
        }
    }
    Ok(s)
}

/// Java's `Math.floorMod` (any non-zero divisor).
pub fn floor_mod(a: i64, b: i64) -> i64 {
    ((a % b) + b) % b
}

/// Lucene's `Uid.encodeId`: how OpenSearch indexes an `_id` (digits packed two a byte after
/// 0xfe; url-safe base64 without padding decoded, escaped by 0xfd when its first byte is
/// 0xfd or more; anything else UTF-8 after 0xff).
pub fn encode_id(id: &str) -> Vec<u8> {
    if !id.is_empty() && id.bytes().all(|b| b.is_ascii_digit()) {
        let d = id.as_bytes();
        let mut out = vec![0xfe];
        for pair in d.chunks(2) {
            let hi = pair[0] - b'0';
            let lo = if pair.len() == 2 { pair[1] - b'0' } else { 0x0f };
            out.push((hi << 4) | lo);
        }
        return out;
    }
    if let Some(mut b) = base64_url_no_pad(id) {
        if b.first().is_some_and(|&x| x >= 0xfd) {
            b.insert(0, 0xfd);
        }
        return b;
    }
    let mut out = vec![0xff];
    out.extend_from_slice(id.as_bytes());
    out
}

/// The bytes of `s` when it is url-safe base64 without padding (`Uid.isURLBase64WithoutPadding`:
/// the unused bits of the last symbol must be zero).
fn base64_url_no_pad(s: &str) -> Option<Vec<u8>> {
    let val = |c: u8| -> Option<u32> {
        Some(match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'-' => 62,
            b'_' => 63,
            _ => return None,
        } as u32)
    };
    let b = s.as_bytes();
    if b.is_empty() || b.len() % 4 == 1 {
        return None;
    }
    let vals: Vec<u32> = b.iter().map(|&c| val(c)).collect::<Option<_>>()?;
    let last = *vals.last()?;
    match b.len() % 4 {
        2 if last & 0x0f != 0 => return None,
        3 if last & 0x03 != 0 => return None,
        _ => {}
    }
    let mut out = Vec::with_capacity(b.len() * 3 / 4);
    for chunk in vals.chunks(4) {
        let mut acc = 0u32;
        for (i, v) in chunk.iter().enumerate() {
            acc |= v << (18 - 6 * i);
        }
        let n = chunk.len() * 6 / 8;
        for i in 0..n {
            out.push((acc >> (16 - 8 * i)) as u8);
        }
    }
    Some(out)
}

/// `BitMixer.mix` (hppc's `mix64`).
pub fn mix64(z: i64) -> i64 {
    let mut z = z as u64;
    z = (z ^ (z >> 32)).wrapping_mul(0x4cd6_944c_5cc2_0b6d);
    z = (z ^ (z >> 29)).wrapping_mul(0xfc12_c5b1_9d32_59e9);
    (z ^ (z >> 32)) as i64
}

/// The slice `id` of `max` of a hash.
fn contains(hash: i64, id: i32, max: i32) -> bool {
    floor_mod(hash, max as i64) == id as i64
}

/// `DocValuesSliceQuery`'s per-document check.
struct DocValuesSlice {
    field: String,
    id: i32,
    max: i32,
}

impl DocCheck for DocValuesSlice {
    fn matches(&self, seg: &dyn SegmentView, doc: DocId) -> crate::engine::Result<bool> {
        let mut vals = Vec::new();
        if seg.numeric_values(&self.field, doc, &mut vals) && !vals.is_empty() {
            return Ok(vals.iter().any(|&v| contains(mix64(v), self.id, self.max)));
        }
        Ok(contains(0, self.id, self.max))
    }

    fn describe(&self) -> String {
        format!("DocValuesSliceQuery[field={}, id={}, max={}]", self.field, self.id, self.max)
    }
}

/// The filter of slice `id` of `max` within one shard.
fn within_shard(field: &str, id: i32, max: i32, ctx: &ShardContext) -> OsResult<Query> {
    if field == "_id" {
        let mut terms = Vec::new();
        for seg in &ctx.reader.query().segments {
            seg.visit_terms("_id", b"", &mut |t| {
                if contains(murmur3_x86_32(&encode_id(&String::from_utf8_lossy(t)), SEED) as i32 as i64, id, max) {
                    terms.push(t.to_vec());
                }
                true
            })
            .map_err(|e| OsError::internal(e.to_string()))?;
        }
        terms.sort();
        terms.dedup();
        if terms.is_empty() {
            return Ok(Query::MatchNone);
        }
        return Ok(Query::Terms { field: "_id".into(), terms, boost: 1.0 });
    }
    let check = DocValuesSlice { field: field.to_string(), id, max };
    Ok(Query::Verified {
        approx: Box::new(Query::MatchAll { boost: 1.0 }),
        check: CheckRef(Arc::new(check)),
        boost: 1.0,
    })
}

/// OpenSearch's checks of a sliced search on a shard: a scroll or PIT only, at most
/// `index.max_slices_per_scroll` slices, a slice field that exists and is `_id` or numeric
/// with doc values.
pub fn check(s: &Slice, ctx: &ShardContext, scroll_or_pit: bool) -> OsResult<()> {
    if !scroll_or_pit {
        return Err(OsError::new(
            ErrorKind::Search,
            "`slice` cannot be used outside of a scroll context or PIT context",
        ));
    }
    if s.max as i64 > ctx.max_slices_per_scroll {
        return Err(OsError::illegal(format!(
            "The number of slices [{}] is too large. It must be less than [{}]. This limit can be set by changing the [index.max_slices_per_scroll] index level setting.",
            s.max, ctx.max_slices_per_scroll
        )));
    }
    if s.field == "_id" {
        return Ok(());
    }
    if s.field == "_uid" {
        return Err(OsError::illegal(
            "Computing slices on the [_uid] field is illegal for 7.x indices, use [_id] instead",
        ));
    }
    let Some(ft) = ctx.mapping.field_type(&s.field) else {
        return Err(OsError::illegal(format!("field {} not found", s.field)));
    };
    let numeric = matches!(
        ft.kind,
        FieldKind::Number(_)
            | FieldKind::ScaledFloat { .. }
            | FieldKind::Date { .. }
            | FieldKind::Boolean
            | FieldKind::TokenCount { .. }
    );
    if !ft.effective_doc_values() || !numeric {
        return Err(OsError::illegal(format!("cannot load numeric doc values on {}", s.field)));
    }
    Ok(())
}

/// The filter of slice `s` on shard number `shard` of `num_shards` searched (`SliceBuilder.toFilter`).
pub fn filter(s: &Slice, ctx: &ShardContext, shard: i32, num_shards: i32) -> OsResult<Query> {
    let (id, max) = (s.id, s.max);
    if num_shards == 1 {
        return within_shard(&s.field, id, max, ctx);
    }
    if max >= num_shards {
        if id % num_shards != shard {
            return Ok(Query::MatchNone);
        }
        let mut in_shard = max / num_shards;
        if max % num_shards > shard {
            in_shard += 1;
        }
        if in_shard == 1 {
            return Ok(Query::MatchAll { boost: 1.0 });
        }
        return within_shard(&s.field, id / num_shards, in_shard, ctx);
    }
    Ok(if shard % max == id { Query::MatchAll { boost: 1.0 } } else { Query::MatchNone })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn parsing_and_its_errors() {
        assert_eq!(parse(&json!({"id": 1, "max": 3})).unwrap(), Slice { field: "_id".into(), id: 1, max: 3 });
        assert_eq!(
            parse(&json!({"field": "n", "id": 0, "max": 2})).unwrap(),
            Slice { field: "n".into(), id: 0, max: 2 }
        );
        let cause = |v: Value| parse(&v).unwrap_err().caused_by.map(|c| c.reason).unwrap_or_default();
        assert_eq!(cause(json!({"id": 0, "max": 1})), "max must be greater than 1");
        assert_eq!(cause(json!({"id": 2, "max": 2})), "max must be greater than id");
        assert_eq!(cause(json!({"max": 2, "id": 2})), "max must be greater than id");
        assert_eq!(cause(json!({"id": -1, "max": 2})), "id must be greater than or equal to 0");
        assert_eq!(cause(json!({"field": "", "id": 0, "max": 2})), "field name is null or empty");
        assert_eq!(parse(&json!({"x": 1})).unwrap_err().reason, "[slice] unknown field [x]");
    }

    #[test]
    fn java_floor_mod() {
        assert_eq!(floor_mod(-7, 3), 2);
        assert_eq!(floor_mod(7, 3), 1);
        assert_eq!(floor_mod(-6, 3), 0);
        assert_eq!(floor_mod(5, -1), 0);
        assert_eq!(floor_mod(i64::MIN, 7), i64::MIN.rem_euclid(7));
    }

    #[test]
    fn ids_encode_as_lucene_uid() {
        assert_eq!(encode_id("1"), vec![0xfe, 0x1f]);
        assert_eq!(encode_id("12"), vec![0xfe, 0x12]);
        assert_eq!(encode_id("123"), vec![0xfe, 0x12, 0x3f]);
        // "AAAA" is base64 for three zero bytes; "AB" has unused bits set: not base64.
        assert_eq!(encode_id("AAAA"), vec![0, 0, 0]);
        assert_eq!(encode_id("AB"), vec![0xff, b'A', b'B']);
        assert_eq!(encode_id("AA"), vec![0]);
        assert_eq!(encode_id("_w"), vec![0xfd, 0xff]);
        assert_eq!(encode_id("a b"), vec![0xff, b'a', b' ', b'b']);
        // "abc" is base64 (its last symbol's unused bits are zero), "abd" is not.
        assert_eq!(encode_id("abc"), vec![0x69, 0xb7]);
        assert_eq!(encode_id("abd"), vec![0xff, b'a', b'b', b'd']);
    }

    #[test]
    fn base64_round_trip_model() {
        // Every 1..=6 byte string encodes (url-safe, no padding) and decodes back.
        let enc = |b: &[u8]| {
            const A: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
            let mut s = String::new();
            for c in b.chunks(3) {
                let acc = c.iter().enumerate().fold(0u32, |a, (i, &x)| a | (x as u32) << (16 - 8 * i));
                for i in 0..=c.len() {
                    s.push(A[((acc >> (18 - 6 * i)) & 63) as usize] as char);
                }
            }
            s
        };
        for n in 1..=6usize {
            for seed in 0..50u32 {
                let b: Vec<u8> =
                    (0..n).map(|i| (seed.wrapping_mul(97).wrapping_add(i as u32 * 31) % 256) as u8).collect();
                assert_eq!(base64_url_no_pad(&enc(&b)), Some(b.clone()), "{b:?}");
            }
        }
    }

    #[test]
    fn bit_mixer() {
        assert_eq!(mix64(0), 0);
        // Distinct inputs spread over both halves of the slice space.
        let ones = (0..1000i64).filter(|&v| contains(mix64(v), 1, 2)).count();
        assert!((400..600).contains(&ones), "{ones}");
    }
}
