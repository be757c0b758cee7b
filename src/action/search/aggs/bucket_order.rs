//! Bucket orders (OpenSearch's `BucketOrder`): `_count`, `_key` (`_term` and `_time` are its old
//! names), or a sub-aggregation path such as `avg_price` or `stats.max`, ascending or
//! descending, alone or compound; ties break by key ascending.

use std::cmp::Ordering;

use serde_json::Value;

use super::result::Bucket;
use super::{bucket_property, AggDef};
use crate::error::{ErrorKind, OsError, OsResult};

#[derive(Debug, Clone, PartialEq)]
pub enum OrderKey {
    Count,
    Key,
    /// A sub-aggregation path, split at `>` and at the metric's `.`.
    Path(Vec<String>),
}

#[derive(Debug, Clone, PartialEq)]
pub struct BucketOrder {
    pub keys: Vec<(OrderKey, bool)>,
}

impl BucketOrder {
    pub fn count_desc() -> BucketOrder {
        BucketOrder { keys: vec![(OrderKey::Count, false), (OrderKey::Key, true)] }
    }

    pub fn key_asc() -> BucketOrder {
        BucketOrder { keys: vec![(OrderKey::Key, true)] }
    }

    /// Whether the first criterion is the key (the terms error is then 0).
    pub fn is_key_order(&self) -> bool {
        matches!(self.keys.first(), Some((OrderKey::Key, _)))
    }

    /// Whether the order is by count descending.
    pub fn is_count_desc(&self) -> bool {
        matches!(self.keys.first(), Some((OrderKey::Count, false)))
    }

    /// The sub-aggregation paths it reads.
    pub fn paths(&self) -> impl Iterator<Item = &Vec<String>> {
        self.keys.iter().filter_map(|(k, _)| if let OrderKey::Path(p) = k { Some(p) } else { None })
    }

    /// Checks the paths against the sub-aggregations (OpenSearch's `validate`).
    pub fn validate(&self, subs: &[AggDef]) -> OsResult<()> {
        for p in self.paths() {
            let first = &p[0];
            match subs.iter().find(|d| &d.name == first) {
                Some(d) if !d.spec.is_pipeline() => {}
                _ => {
                    return Err(OsError::new(
                        ErrorKind::AggregationExecution,
                        format!(
                            "Invalid aggregator order path [{}]. The provided aggregation [{first}] either does not exist, or is a pipeline aggregation and cannot be used to sort the buckets.",
                            p.join(">")
                        ),
                    )
                    .status(400))
                }
            }
        }
        Ok(())
    }

    /// Sorts buckets (sub-aggregation values are read once per bucket).
    pub fn sort(&self, buckets: &mut Vec<Bucket>, subs: &[AggDef]) -> OsResult<()> {
        let npaths = self.paths().count();
        if npaths == 0 {
            buckets.sort_by(|a, b| self.cmp(a, b, &[], &[]));
            return Ok(());
        }
        let mut vals: Vec<(Vec<f64>, Bucket)> = Vec::with_capacity(buckets.len());
        for b in buckets.drain(..) {
            let v = self.paths().map(|p| bucket_property(subs, &b, p)).collect::<OsResult<Vec<_>>>()?;
            vals.push((v, b));
        }
        vals.sort_by(|a, b| self.cmp(&a.1, &b.1, &a.0, &b.0));
        buckets.extend(vals.into_iter().map(|x| x.1));
        Ok(())
    }

    /// Compares two buckets given their path values.
    pub fn cmp(&self, a: &Bucket, b: &Bucket, av: &[f64], bv: &[f64]) -> Ordering {
        let mut pi = 0;
        for (k, asc) in &self.keys {
            let o = match k {
                OrderKey::Count => a.doc_count.cmp(&b.doc_count),
                OrderKey::Key => a.key.cmp_key(&b.key),
                OrderKey::Path(_) => {
                    let (x, y) = (av.get(pi).copied().unwrap_or(f64::NAN), bv.get(pi).copied().unwrap_or(f64::NAN));
                    pi += 1;
                    // NaN (no value) sorts last either way, as OpenSearch's comparators.
                    match (x.is_nan(), y.is_nan()) {
                        (true, true) => Ordering::Equal,
                        (true, false) => return Ordering::Greater,
                        (false, true) => return Ordering::Less,
                        _ => x.total_cmp(&y),
                    }
                }
            };
            let o = if *asc { o } else { o.reverse() };
            if o != Ordering::Equal {
                return o;
            }
        }
        Ordering::Equal
    }
}

/// Parses `order` (an object or an array of objects); `tie_break`: add `_key asc` after a
/// non-key criterion (terms, histograms).
pub fn parse(v: &Value, agg: &str, tie_break: bool) -> OsResult<BucketOrder> {
    let mut keys = Vec::new();
    let mut one = |m: &serde_json::Map<String, Value>| -> OsResult<()> {
        for (k, dir) in m {
            let asc = match dir.as_str().map(str::to_ascii_lowercase).as_deref() {
                Some("asc") => true,
                Some("desc") => false,
                _ => {
                    return Err(OsError::parsing(format!(
                        "Unknown order direction [{}]",
                        dir.as_str().map(str::to_string).unwrap_or_else(|| dir.to_string())
                    )))
                }
            };
            let key = match k.as_str() {
                "_count" => OrderKey::Count,
                "_key" | "_term" | "_time" => OrderKey::Key,
                path => OrderKey::Path(split_path(path)),
            };
            keys.push((key, asc));
        }
        Ok(())
    };
    match v {
        Value::Object(m) => one(m)?,
        Value::Array(a) => {
            for x in a {
                match x {
                    Value::Object(m) => one(m)?,
                    _ => return Err(OsError::parsing(format!("Order elements must be objects in [{agg}]"))),
                }
            }
        }
        _ => {
            return Err(OsError::parsing(format!(
                "Unexpected token {} for [order] in [{agg}].",
                super::source::token(v)
            )))
        }
    }
    if keys.is_empty() {
        return Err(OsError::parsing(format!("Must specify at least one field for [order] in [{agg}].")));
    }
    if tie_break && !keys.iter().any(|(k, _)| *k == OrderKey::Key) {
        keys.push((OrderKey::Key, true));
    }
    Ok(BucketOrder { keys })
}

/// Splits `a>b.metric` (or `a>b[metric]`) into `["a", "b", "metric"]`.
pub fn split_path(path: &str) -> Vec<String> {
    let mut out = Vec::new();
    let parts: Vec<&str> = path.split('>').collect();
    for (i, p) in parts.iter().enumerate() {
        let last = i + 1 == parts.len();
        if let (true, Some(open)) = (last, p.find('[')) {
            out.push(p[..open].to_string());
            out.push(p[open + 1..].trim_end_matches(']').to_string());
        } else if let (true, Some((name, metric))) = (last, p.split_once('.')) {
            out.push(name.to_string());
            out.push(metric.to_string());
        } else {
            out.push(p.to_string());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::action::search::aggs::result::Key;
    use serde_json::json;

    #[test]
    fn parses_orders_with_key_tie_break() {
        let o = parse(&json!({"_count": "asc"}), "terms", true).unwrap();
        assert_eq!(o.keys, vec![(OrderKey::Count, true), (OrderKey::Key, true)]);
        let o = parse(&json!([{"m.avg": "desc"}, {"_key": "desc"}]), "terms", true).unwrap();
        assert_eq!(o.keys, vec![(OrderKey::Path(vec!["m".into(), "avg".into()]), false), (OrderKey::Key, false)]);
        assert!(parse(&json!({"_count": "up"}), "terms", true).is_err());
        assert_eq!(split_path("a>b[99.9]"), vec!["a", "b", "99.9"]);
    }

    #[test]
    fn sorts_by_count_then_key() {
        let mut b = vec![
            Bucket::new(Key::Bytes(b"b".to_vec()), 2, vec![]),
            Bucket::new(Key::Bytes(b"a".to_vec()), 2, vec![]),
            Bucket::new(Key::Bytes(b"c".to_vec()), 5, vec![]),
        ];
        BucketOrder::count_desc().sort(&mut b, &[]).unwrap();
        let keys: Vec<_> = b.iter().map(|b| b.key.clone()).collect();
        assert_eq!(keys, vec![Key::Bytes(b"c".to_vec()), Key::Bytes(b"a".to_vec()), Key::Bytes(b"b".to_vec())]);
    }
}
