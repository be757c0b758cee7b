//! Keys made of several values (composite sources, multi_terms terms): reading one source's
//! values of a document as [`Key`]s, the combinations of several sources, dense ordinals of
//! such keys, and how each position prints (OpenSearch's `InternalComposite.formatObject`).

use std::collections::HashMap;
use std::sync::Arc;

use serde_json::{json, Value};

use super::fmt::{double, java_double, Fmt};
use super::result::{Key, KeyIdent};
use super::source::{NumKind, SegValues, VType};
use crate::action::search::rounding::Rounding;
use crate::engine::segment::DocId;
use crate::error::OsResult;

/// How one source turns column values into key parts.
#[derive(Debug, Clone)]
pub enum PartKind {
    /// Keyword terms and ips.
    Bytes,
    /// Numbers by their kind (longs, dates, booleans, doubles, unsigned longs).
    Num(NumKind),
    /// `floor(value / interval) * interval` as a double (histogram sources).
    Histo(NumKind, f64),
    /// The date rounding of the value in millis as a long (date_histogram sources).
    Date(NumKind, Arc<Rounding>),
    /// No values (unmapped without `missing`).
    None,
}

impl PartKind {
    /// The kind of a resolved value type.
    pub fn of(vt: &Option<VType>) -> PartKind {
        match vt {
            Some(VType::Bytes { .. }) => PartKind::Bytes,
            Some(VType::Num(k)) => PartKind::Num(*k),
            _ => PartKind::None,
        }
    }

    /// The key of a raw column value.
    #[inline]
    pub fn num_key(&self, raw: i64) -> Key {
        match self {
            PartKind::Num(k @ (NumKind::Double | NumKind::Scaled(_))) => Key::Double(k.to_f64(raw)),
            PartKind::Num(NumKind::Unsigned) => Key::Unsigned((raw as u64) ^ (1u64 << 63)),
            PartKind::Histo(k, interval) => Key::Double((k.to_f64(raw) / interval).floor() * interval),
            PartKind::Date(k, r) => Key::Long(r.round(match k {
                NumKind::Date { nanos: true } => raw.div_euclid(1_000_000),
                NumKind::Double | NumKind::Scaled(_) | NumKind::Unsigned => k.to_f64(raw).floor() as i64,
                _ => raw,
            })),
            _ => Key::Long(raw),
        }
    }
}

/// Appends the distinct key parts of `doc` in `values` to `out` (ascending for numbers, in
/// ordinal order for terms; the source's `missing` value when the doc has none).
pub fn doc_parts(kind: &PartKind, values: &mut SegValues<'_>, doc: DocId, out: &mut Vec<Key>) -> OsResult<()> {
    match values {
        SegValues::Bytes(r) => {
            let ords: Vec<u64> = r.ords(doc).to_vec();
            if ords.is_empty() {
                if let Some(m) = &r.missing {
                    out.push(Key::Bytes(m.clone()));
                }
            }
            for o in ords {
                out.push(Key::Bytes(r.term(o)?));
            }
        }
        SegValues::Num(r) => {
            let start = out.len();
            for &v in r.values(doc) {
                let k = kind.num_key(v);
                if out.len() > start && out.last().is_some_and(|l| l.ident() == k.ident()) {
                    continue;
                }
                out.push(k);
            }
        }
        SegValues::None => {}
    }
    Ok(())
}

/// Every combination of one part per source (`parts[i]` the parts of source `i`), calling
/// `f` with each; a source without parts gives no combination.
pub fn for_each_combination(
    parts: &[Vec<Option<Key>>],
    f: &mut dyn FnMut(Vec<Option<Key>>) -> OsResult<()>,
) -> OsResult<()> {
    if parts.iter().any(Vec::is_empty) {
        return Ok(());
    }
    let mut idx = vec![0usize; parts.len()];
    loop {
        f(idx.iter().zip(parts).map(|(&i, p)| p[i].clone()).collect())?;
        let mut pos = parts.len();
        loop {
            if pos == 0 {
                return Ok(());
            }
            pos -= 1;
            idx[pos] += 1;
            if idx[pos] < parts[pos].len() {
                break;
            }
            idx[pos] = 0;
        }
    }
}

/// Dense ordinals of (owning bucket, multi-part key) with doc counts.
#[derive(Debug, Default)]
pub struct MultiOrds {
    map: HashMap<(u32, KeyIdent), u32, ahash::RandomState>,
    pub keys: Vec<Vec<Option<Key>>>,
    pub counts: Vec<u64>,
    per_owner: Vec<Vec<u32>>,
    bytes: usize,
}

impl MultiOrds {
    /// The ordinal of `(owner, key)`, made on first sight.
    pub fn ord(&mut self, owner: u32, key: Vec<Option<Key>>) -> u32 {
        let id = (owner, KeyIdent::Multi(key.iter().map(|k| k.as_ref().map(Key::ident)).collect()));
        if let Some(&o) = self.map.get(&id) {
            return o;
        }
        let o = self.keys.len() as u32;
        self.bytes += 64
            + key
                .iter()
                .map(|k| match k {
                    Some(Key::Bytes(b)) => 2 * b.len() + 32,
                    _ => 32,
                })
                .sum::<usize>();
        self.map.insert(id, o);
        self.keys.push(key);
        self.counts.push(0);
        let ow = owner as usize;
        if self.per_owner.len() <= ow {
            self.per_owner.resize_with(ow + 1, Vec::new);
        }
        self.per_owner[ow].push(o);
        o
    }

    pub fn of_owner(&self, owner: u32) -> &[u32] {
        self.per_owner.get(owner as usize).map_or(&[], Vec::as_slice)
    }

    pub fn mem_bytes(&self) -> usize {
        self.bytes
    }
}

/// One key part as the response shows it (`null` for a missing bucket) and as text (the
/// parts of multi_terms' `key_as_string`).
pub fn render_part(k: Option<&Key>, fmt: &Fmt) -> (Value, String) {
    let Some(k) = k else { return (Value::Null, "null".into()) };
    match k {
        Key::Long(v) => match fmt {
            Fmt::Bool => (json!(*v != 0), (*v != 0).to_string()),
            Fmt::GeoTile => {
                let s = super::geo_grid::Grid::Geotile.key(*v);
                (json!(s), s)
            }
            f if f.is_raw() => (json!(v), v.to_string()),
            f => {
                let s = f.number_string(*v as f64).unwrap_or_else(|| v.to_string());
                (json!(s), s)
            }
        },
        Key::Double(v) => {
            if fmt.is_raw() {
                (double(*v), java_double(*v))
            } else {
                let s = fmt.number_string(*v).unwrap_or_else(|| java_double(*v));
                (json!(s), s)
            }
        }
        Key::Unsigned(v) => (json!(v), v.to_string()),
        other => {
            let s = fmt.key_string(other);
            (json!(s), s)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn combinations_cover_the_product() {
        let parts = vec![
            vec![Some(Key::Long(1)), Some(Key::Long(2))],
            vec![Some(Key::Bytes(b"a".to_vec())), None, Some(Key::Bytes(b"b".to_vec()))],
        ];
        let mut seen = Vec::new();
        for_each_combination(&parts, &mut |k| {
            seen.push(k);
            Ok(())
        })
        .unwrap();
        assert_eq!(seen.len(), 6);
        assert_eq!(seen[1], vec![Some(Key::Long(1)), None]);
        let mut none = 0;
        for_each_combination(&[vec![Some(Key::Long(1))], vec![]], &mut |_| {
            none += 1;
            Ok(())
        })
        .unwrap();
        assert_eq!(none, 0);
    }

    #[test]
    fn ordinals_per_owner_and_key() {
        let mut o = MultiOrds::default();
        let k = vec![Some(Key::Long(1)), None];
        assert_eq!(o.ord(0, k.clone()), 0);
        assert_eq!(o.ord(1, k.clone()), 1);
        assert_eq!(o.ord(0, k), 0);
        assert_eq!(o.of_owner(0), &[0]);
    }

    #[test]
    fn parts_print_by_format() {
        assert_eq!(render_part(Some(&Key::Long(1)), &Fmt::Bool), (json!(true), "true".into()));
        assert_eq!(render_part(Some(&Key::Double(1234.5)), &Fmt::Raw), (json!(1234.5), "1234.5".into()));
        assert_eq!(render_part(Some(&Key::Bytes(b"x".to_vec())), &Fmt::Raw), (json!("x"), "x".into()));
        assert_eq!(render_part(None, &Fmt::Raw).0, Value::Null);
        let d = Fmt::Date { format: "strict_date_optional_time".into(), nanos: false, zone: None };
        assert_eq!(render_part(Some(&Key::Long(0)), &d).0, json!("1970-01-01T00:00:00.000Z"));
        let iso = Fmt::Date { format: "iso8601".into(), nanos: false, zone: Some("-02:00".into()) };
        assert_eq!(render_part(Some(&Key::Long(7_200_000)), &iso).0, json!("1970-01-01T00:00:00.000-02:00"));
    }
}
