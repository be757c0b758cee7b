//! `ip_range` (OpenSearch's `IpRangeAggregationBuilder` / `BinaryRangeAggregator`): a bucket per
//! requested range of addresses (`from` inclusive, `to` exclusive, or a CIDR `mask`), sorted by
//! (from, to); a document counts once in each range one of its addresses falls in. Addresses are
//! compared as the 16-byte terms of the field's sorted-set column.
//!
//! A bucket's key is `Key::Multi([Str(key), from, to])` with the bounds as 16-byte `Key::Bytes`
//! (`None`: unbounded), so that shard results carry the exact 128-bit bounds.

use serde_json::{json, Map, Value};

use super::fmt::Fmt;
use super::result::{AggResult, Bucket, Buckets, Key, KeyKind};
use super::source::{resolve, token, Config, SegValues, SourceSpec, VType};
use super::{render_into, AggDef, AggSpec, Collector, LeafCollector, ReduceCtx, RenderCtx, ShardEnv, SubLeaves, Subs};
use crate::engine::query::SegmentView;
use crate::engine::schema::ip;
use crate::engine::segment::DocId;
use crate::error::{OsError, OsResult};

const T: &str = "ip_range";

/// One requested range, bounds as addresses.
#[derive(Debug, Clone, PartialEq)]
pub struct IpRange {
    pub key: String,
    pub from: Option<u128>,
    pub to: Option<u128>,
}

#[derive(Debug, Clone)]
pub struct IpRangeSpec {
    pub source: SourceSpec,
    /// Sorted by (from, to) as `BinaryRangeAggregator` sorts them.
    pub ranges: Vec<IpRange>,
    pub keyed: bool,
}

fn address(s: &str) -> OsResult<u128> {
    ip::parse_ip(s).ok_or_else(|| OsError::illegal(ip::not_an_ip(s)))
}

/// `InetAddresses.parseCidr` then the range of the block: `from` is `None` at `::`, `to` (one past
/// the last address) is `None` past the end of the space.
pub fn cidr(mask: &str) -> OsResult<(Option<u128>, Option<u128>)> {
    let bad = || OsError::illegal(format!("Expected [ip/prefix] but was [{mask}]"));
    let (addr, len) = mask.split_once('/').ok_or_else(bad)?;
    let v4 = addr.parse::<std::net::Ipv4Addr>().is_ok();
    let a = address(addr)?;
    let len: u32 = len.parse().map_err(|_| bad())?;
    let width = if v4 { 32 } else { 128 };
    if len > width {
        return Err(OsError::illegal(format!("Illegal prefix length [{len}] in [{mask}]. Must be 0-{width}")));
    }
    let prefix = len + (128 - width);
    let host: u128 = if prefix == 0 { u128::MAX } else { u128::MAX >> prefix };
    let lower = a & !host;
    let upper = a | host;
    Ok(((lower != 0).then_some(lower), upper.checked_add(1)))
}

/// `*-192.168.0.0`: the key OpenSearch generates from the printed bounds.
fn generated_key(from: Option<u128>, to: Option<u128>) -> String {
    let p = |b: Option<u128>| b.map_or_else(|| "*".to_string(), ip::format_ip);
    format!("{}-{}", p(from), p(to))
}

impl IpRangeSpec {
    pub fn parse(name: &str, body: &Map<String, Value>) -> OsResult<IpRangeSpec> {
        let mut s = IpRangeSpec { source: SourceSpec::default(), ranges: Vec::new(), keyed: false };
        for (k, v) in body {
            if s.source.take(T, k, v)? {
                continue;
            }
            match k.as_str() {
                "keyed" => {
                    s.keyed = v.as_bool().ok_or_else(|| {
                        OsError::parsing(format!("[{T}] keyed doesn't support values of type: {}", token(v)))
                    })?
                }
                "ranges" => {
                    let Value::Array(a) = v else {
                        return Err(OsError::parsing(format!(
                            "[{T}] ranges doesn't support values of type: {}",
                            token(v)
                        )));
                    };
                    for r in a {
                        s.ranges.push(parse_range(r)?);
                    }
                }
                _ => {
                    return Err(OsError::parsing(crate::error::unknown_field(
                        T,
                        k,
                        &["field", "script", "missing", "format", "value_type", "ranges", "keyed"],
                    )))
                }
            }
        }
        s.source.require(T, name)?;
        if s.ranges.is_empty() {
            return Err(OsError::illegal(format!("No [ranges] specified for the [{name}] aggregation")));
        }
        // Unbounded `from` sorts first, unbounded `to` last.
        s.ranges.sort_by_key(|r| (r.from.is_some(), r.from.unwrap_or(0), r.to.is_none(), r.to.unwrap_or(0)));
        Ok(s)
    }
}

fn parse_range(r: &Value) -> OsResult<IpRange> {
    let Value::Object(m) = r else {
        return Err(OsError::parsing(format!("[ranges] doesn't support values of type: {}", token(r))));
    };
    let (mut key, mut from, mut to, mut mask) = (None, None, None, None);
    for (k, v) in m {
        let text = || -> OsResult<Option<String>> {
            match v {
                Value::Null => Ok(None),
                Value::String(s) => Ok(Some(s.clone())),
                other => Ok(Some(other.to_string())),
            }
        };
        match k.as_str() {
            "key" => key = text()?,
            "from" => from = text()?,
            "to" => to = text()?,
            "mask" => mask = text()?,
            _ => return Err(OsError::parsing(format!("Unexpected ip range parameter: [{k}]"))),
        }
    }
    if let Some(mask) = mask {
        let (from, to) = cidr(&mask)?;
        return Ok(IpRange { key: key.unwrap_or(mask), from, to });
    }
    let from = from.as_deref().map(address).transpose()?;
    let to = to.as_deref().map(address).transpose()?;
    Ok(IpRange { key: key.unwrap_or_else(|| generated_key(from, to)), from, to })
}

fn bound(b: Option<u128>) -> Option<Key> {
    b.map(|v| Key::Bytes(v.to_be_bytes().to_vec()))
}

fn bound_of(k: &Option<Key>) -> Option<u128> {
    match k {
        Some(Key::Bytes(b)) => <[u8; 16]>::try_from(b.as_slice()).ok().map(u128::from_be_bytes),
        _ => None,
    }
}

impl AggSpec for IpRangeSpec {
    fn type_name(&self) -> &'static str {
        T
    }

    fn typed_name(&self, _r: &AggResult) -> &'static str {
        "ip_range"
    }

    fn collector(&self, def: &AggDef, env: &ShardEnv<'_>) -> OsResult<Box<dyn Collector>> {
        let cfg = resolve(&self.source, env.qc, T)?;
        match &cfg.vt {
            None | Some(VType::Bytes { ip: true }) => {}
            Some(_) => {
                return Err(OsError::illegal(format!(
                    "Field [{}] of type [{}] is not supported for aggregation [{T}]",
                    cfg.field.as_deref().unwrap_or(""),
                    cfg.type_name
                )))
            }
        }
        let bounds =
            self.ranges.iter().map(|r| (r.from.map(|v| v.to_be_bytes()), r.to.map(|v| v.to_be_bytes()))).collect();
        Ok(Box::new(IpCollector { spec: self.clone(), cfg, bounds, counts: Vec::new(), subs: Subs::new(def, env)? }))
    }

    fn empty(&self, def: &AggDef) -> AggResult {
        let buckets = self.ranges.iter().map(|r| bucket(r, 0, def.empty_subs())).collect();
        AggResult::Buckets(Buckets { fmt: Fmt::Ip, ..Buckets::of(KeyKind::String, buckets) })
    }

    fn reduce(&self, def: &AggDef, parts: Vec<AggResult>, rc: &mut ReduceCtx) -> OsResult<AggResult> {
        let n = self.ranges.len();
        let mut counts = vec![0u64; n];
        let mut subs: Vec<Vec<Vec<AggResult>>> = (0..n).map(|_| Vec::new()).collect();
        for p in parts {
            let AggResult::Buckets(b) = p else { continue };
            for (i, x) in b.buckets.into_iter().enumerate().take(n) {
                counts[i] += x.doc_count;
                subs[i].push(x.subs);
            }
        }
        let mut buckets = Vec::with_capacity(n);
        for ((r, c), s) in self.ranges.iter().zip(counts).zip(subs) {
            let s = if s.is_empty() { def.empty_subs() } else { super::reduce_subs(def, s, rc)? };
            buckets.push(bucket(r, c, s));
        }
        rc.consume(buckets.len())?;
        Ok(AggResult::Buckets(Buckets { fmt: Fmt::Ip, ..Buckets::of(KeyKind::String, buckets) }))
    }

    fn render(&self, def: &AggDef, r: &AggResult, rc: &RenderCtx) -> OsResult<Map<String, Value>> {
        let AggResult::Buckets(b) = r else { return Err(OsError::internal("ip_range result of another kind")) };
        let mut arr = Vec::new();
        let mut obj = Map::new();
        for bk in &b.buckets {
            let Key::Multi(parts) = &bk.key else { return Err(OsError::internal("ip_range bucket key")) };
            let key = match parts.first() {
                Some(Some(Key::Str(s))) => s.clone(),
                _ => String::new(),
            };
            let from = parts.get(1).and_then(bound_of);
            let to = parts.get(2).and_then(bound_of);
            let mut o = Map::new();
            if !self.keyed {
                o.insert("key".into(), json!(key));
            }
            if let Some(f) = from {
                o.insert("from".into(), json!(ip::format_ip(f)));
            }
            if let Some(t) = to {
                o.insert("to".into(), json!(ip::format_ip(t)));
            }
            o.insert("doc_count".into(), json!(bk.doc_count));
            let o = render_into(&def.subs, &bk.subs, rc, o)?;
            if self.keyed {
                obj.insert(key, Value::Object(o));
            } else {
                arr.push(Value::Object(o));
            }
        }
        let mut m = Map::new();
        m.insert("buckets".into(), if self.keyed { Value::Object(obj) } else { Value::Array(arr) });
        Ok(m)
    }
}

fn bucket(r: &IpRange, doc_count: u64, subs: Vec<AggResult>) -> Bucket {
    Bucket::new(Key::Multi(vec![Some(Key::Str(r.key.clone())), bound(r.from), bound(r.to)]), doc_count, subs)
}

type Bounds = (Option<[u8; 16]>, Option<[u8; 16]>);

struct IpCollector {
    spec: IpRangeSpec,
    cfg: Config,
    bounds: Vec<Bounds>,
    /// Per (owner, range): `counts[owner * n + i]`.
    counts: Vec<u64>,
    subs: Subs,
}

impl Collector for IpCollector {
    fn leaf<'a>(&'a mut self, seg: &'a dyn SegmentView, si: usize) -> OsResult<Box<dyn LeafCollector + 'a>> {
        Ok(Box::new(IpLeaf {
            values: self.cfg.open(seg),
            bounds: &self.bounds,
            counts: &mut self.counts,
            subs: self.subs.leaves(seg, si)?,
            hit: Vec::new(),
            ords: Vec::new(),
        }))
    }

    fn result(&mut self, owner: u32) -> OsResult<AggResult> {
        let n = self.spec.ranges.len();
        let mut buckets = Vec::with_capacity(n);
        for (i, r) in self.spec.ranges.iter().enumerate() {
            let o = owner as usize * n + i;
            buckets.push(bucket(r, self.counts.get(o).copied().unwrap_or(0), self.subs.results(o as u32)?));
        }
        Ok(AggResult::Buckets(Buckets { fmt: Fmt::Ip, ..Buckets::of(KeyKind::String, buckets) }))
    }

    fn needs_scores(&self) -> bool {
        self.subs.needs_scores()
    }

    fn mem_bytes(&self) -> usize {
        self.counts.capacity() * 8 + self.subs.mem_bytes()
    }
}

struct IpLeaf<'a> {
    values: SegValues<'a>,
    bounds: &'a [Bounds],
    counts: &'a mut Vec<u64>,
    subs: SubLeaves<'a>,
    hit: Vec<bool>,
    ords: Vec<u64>,
}

impl IpLeaf<'_> {
    fn mark(&mut self, term: &[u8]) {
        for (i, (from, to)) in self.bounds.iter().enumerate() {
            let ge = from.as_ref().is_none_or(|f| term >= f.as_slice());
            let lt = to.as_ref().is_none_or(|t| term < t.as_slice());
            if ge && lt {
                self.hit[i] = true;
            }
        }
    }
}

impl LeafCollector for IpLeaf<'_> {
    fn collect(&mut self, doc: DocId, owner: u32, score: f32) -> OsResult<()> {
        let n = self.bounds.len();
        self.hit.clear();
        self.hit.resize(n, false);
        let terms: Vec<Vec<u8>> = match &mut self.values {
            SegValues::Bytes(r) => {
                self.ords.clear();
                self.ords.extend_from_slice(r.ords(doc));
                if self.ords.is_empty() {
                    r.missing.clone().into_iter().collect()
                } else {
                    self.ords.iter().map(|&o| r.term(o)).collect::<OsResult<_>>()?
                }
            }
            _ => return Ok(()),
        };
        for t in &terms {
            self.mark(t);
        }
        for i in 0..n {
            if self.hit[i] {
                let o = owner as usize * n + i;
                if self.counts.len() <= o {
                    self.counts.resize(o + 1, 0);
                }
                self.counts[o] += 1;
                self.subs.collect(doc, o as u32, score)?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn a(s: &str) -> u128 {
        ip::parse_ip(s).unwrap()
    }

    #[test]
    fn cidr_blocks() {
        assert_eq!(cidr("192.168.0.0/16").unwrap(), (Some(a("192.168.0.0")), Some(a("192.169.0.0"))));
        let (f, t) = cidr("::/24").unwrap();
        assert_eq!(f, None);
        assert_eq!(ip::format_ip(t.unwrap()), "0:100::");
        assert_eq!(cidr("::/0").unwrap(), (None, None));
        assert!(cidr("10.0.0.0/33").is_err());
        assert!(cidr("10.0.0.0").is_err());
    }

    #[test]
    fn parse_generates_keys_and_sorts() {
        let body = json!({"field": "ip", "ranges": [{"from": "192.169.0.0"}, {"to": "192.168.0.0"}, {"mask": "10.0.0.0/8", "key": "ten"}]});
        let s = IpRangeSpec::parse("r", body.as_object().unwrap()).unwrap();
        let keys: Vec<&str> = s.ranges.iter().map(|r| r.key.as_str()).collect();
        assert_eq!(keys, ["*-192.168.0.0", "ten", "192.169.0.0-*"]);
        let bad = json!({"field": "ip", "ranges": [{"form": "1.2.3.4"}]});
        assert!(IpRangeSpec::parse("r", bad.as_object().unwrap()).is_err());
        let bad = json!({"field": "ip", "ranges": [{"from": "1.2.3"}]});
        assert!(IpRangeSpec::parse("r", bad.as_object().unwrap()).is_err());
    }
}
