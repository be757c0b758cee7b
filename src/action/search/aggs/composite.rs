//! The `composite` aggregation: buckets keyed by one value of each source (`terms` or
//! `histogram`), in the sources' combined order, paged with `after`. Each shard returns its
//! first `size` keys after `after`; the reduce merges them and keeps the first `size`, the last
//! of which is the `after_key` of the next page (OpenSearch's `InternalComposite.reduce`).

use std::cmp::Ordering;
use std::collections::HashMap;
use std::sync::Arc;

use serde_json::{json, Map, Value};

use super::composite_geotile::{after_cell, TileOpts};
use super::date_histogram::DateIntervalOpts;
use super::fmt::Fmt;
use super::geo_distance::GeoReader;
use super::multi_key::{doc_parts, for_each_combination, render_part, MultiOrds, PartKind};
use super::result::{AggResult, Bucket, Buckets, Key, KeyIdent, KeyKind};
use super::source::{resolve, string, token, Config, NumKind, SourceSpec, VType};
use super::{render_into, AggDef, AggSpec, Collector, LeafCollector, ReduceCtx, RenderCtx, ShardEnv, SubLeaves, Subs};
use crate::action::search::date_math;
use crate::action::search::rounding::Rounding;
use crate::clock::tz::Zone;
use crate::engine::query::SegmentView;
use crate::engine::schema::geo::GeoPoint;
use crate::engine::schema::{date, ip};
use crate::engine::segment::DocId;
use crate::error::{ErrorKind, OsError, OsResult};

/// Where the missing bucket sorts (OpenSearch's `MissingOrder`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum MissingOrder {
    /// First when ascending, last when descending.
    Default,
    First,
    Last,
}

/// One source of the composite key.
#[derive(Debug, Clone)]
pub struct CompositeSource {
    pub name: String,
    /// `None`: terms; `Some(interval)`: histogram.
    pub interval: Option<f64>,
    /// The rounding of a date_histogram source.
    pub date: Option<Rounding>,
    /// The options of a geotile_grid source.
    pub tile: Option<TileOpts>,
    pub source: SourceSpec,
    pub missing_bucket: bool,
    pub missing_order: MissingOrder,
    pub asc: bool,
}

#[derive(Debug, Clone)]
pub struct CompositeSpec {
    pub sources: Vec<CompositeSource>,
    pub size: usize,
    pub after: Option<Map<String, Value>>,
}

fn parse_source(v: &Value) -> OsResult<CompositeSource> {
    let Value::Object(outer) = v else {
        return Err(OsError::parsing(format!(
            "Failed to parse object: expecting token of type [START_OBJECT] but found [{}]",
            token(v)
        )));
    };
    let (name, inner) = match (outer.len(), outer.iter().next()) {
        (1, Some((n, i))) => (n.clone(), i),
        _ => {
            return Err(OsError::parsing(
                "Failed to parse object: expecting token of type [FIELD_NAME] but found [END_OBJECT]",
            ))
        }
    };
    let Value::Object(typed) = inner else {
        return Err(OsError::parsing(format!(
            "Failed to parse object: expecting token of type [START_OBJECT] but found [{}]",
            token(inner)
        )));
    };
    let (ty, body) = match (typed.len(), typed.iter().next()) {
        (1, Some((t, b))) => (t.as_str(), b),
        _ => {
            return Err(OsError::parsing(
                "Failed to parse object: expecting token of type [FIELD_NAME] but found [END_OBJECT]",
            ))
        }
    };
    match ty {
        "terms" | "histogram" | "date_histogram" | "geotile_grid" => {}
        _ => return Err(OsError::parsing(format!("invalid source type: {ty}"))),
    }
    let Value::Object(body) = body else {
        return Err(OsError::parsing(format!(
            "Failed to parse object: expecting token of type [START_OBJECT] but found [{}]",
            token(body)
        )));
    };
    let mut s = CompositeSource {
        name,
        interval: None,
        date: None,
        tile: None,
        source: SourceSpec::default(),
        missing_bucket: false,
        missing_order: MissingOrder::Default,
        asc: true,
    };
    let mut dates = DateIntervalOpts::default();
    let mut tile = TileOpts::default();
    for (k, v) in body {
        if (ty == "date_histogram" && dates.take(ty, k, v)?) || (ty == "geotile_grid" && tile.take(k, v)?) {
            continue;
        }
        match k.as_str() {
            "format" if ty == "date_histogram" => {
                s.source.take(ty, k, v)?;
                if let Some(f) = &s.source.format {
                    date::validate_format(f).map_err(OsError::illegal)?;
                }
            }
            "field" | "script" | "value_type" => {
                s.source.take(ty, k, v)?;
            }
            "missing_bucket" => {
                s.missing_bucket = v.as_bool().ok_or_else(|| {
                    OsError::parsing(format!("[{ty}] missing_bucket doesn't support values of type: {}", token(v)))
                })?
            }
            "missing_order" => {
                let o = string(ty, k, v)?;
                s.missing_order = match o.to_ascii_lowercase().as_str() {
                    "default" => MissingOrder::Default,
                    "first" => MissingOrder::First,
                    "last" => MissingOrder::Last,
                    _ => {
                        return Err(OsError::parsing(format!("[{ty}] failed to parse field [missing_order]"))
                            .caused_by(OsError::illegal(format!(
                                "No enum constant org.opensearch.search.aggregations.bucket.missing.MissingOrder.{}",
                                o.to_uppercase()
                            ))))
                    }
                }
            }
            "order" => {
                let o = string(ty, k, v)?;
                s.asc = match o.to_ascii_lowercase().as_str() {
                    "asc" => true,
                    "desc" => false,
                    _ => {
                        return Err(OsError::parsing(format!("[{ty}] failed to parse field [order]"))
                            .caused_by(OsError::illegal(format!("Unknown SortOrder [{o}]"))))
                    }
                }
            }
            "interval" if ty == "histogram" => {
                let x = v.as_f64().or_else(|| v.as_str().and_then(|t| t.parse().ok())).ok_or_else(|| {
                    OsError::parsing(format!("[{ty}] interval doesn't support values of type: {}", token(v)))
                })?;
                if x <= 0.0 || x.is_nan() {
                    return Err(OsError::illegal("[interval] must be greater than 0 for [histogram] source"));
                }
                s.interval = Some(x);
            }
            _ => {
                let mut known = vec!["field", "missing_bucket", "missing_order", "value_type", "script", "order"];
                if ty == "histogram" {
                    known.insert(0, "interval");
                }
                if ty == "geotile_grid" {
                    known.splice(0..0, ["precision", "bounds"]);
                }
                if ty == "date_histogram" {
                    known.splice(
                        0..0,
                        ["calendar_interval", "fixed_interval", "interval", "time_zone", "offset", "format"],
                    );
                }
                return Err(OsError::parsing(crate::error::unknown_field(ty, k, &known)));
            }
        }
    }
    if ty == "date_histogram" {
        let zone = dates.zone.clone().unwrap_or_else(Zone::utc);
        s.date = Some(Rounding::new(dates.interval(&s.name)?, zone, dates.offset));
    }
    if ty == "geotile_grid" {
        s.tile = Some(tile);
    }
    if ty == "histogram" && s.interval.is_none() {
        return Err(OsError::illegal("[interval] must be greater than 0 for [histogram] source"));
    }
    if !s.missing_bucket && s.missing_order != MissingOrder::Default {
        return Err(OsError::illegal("missing_order require missing_bucket is true"));
    }
    if s.source.field.is_none() && s.source.script.is_none() {
        return Err(OsError::new(
            ErrorKind::IllegalState,
            "value source config is invalid; must have either a field or a script",
        ));
    }
    Ok(s)
}

fn java_class(v: &Value) -> &'static str {
    match v {
        Value::Object(_) => "LinkedHashMap",
        Value::Array(_) => "ArrayList",
        Value::String(_) => "String",
        Value::Bool(_) => "Boolean",
        Value::Number(n) if n.is_f64() => "Double",
        Value::Number(n) if n.as_i64().is_some_and(|x| i32::try_from(x).is_ok()) => "Integer",
        Value::Number(_) => "Long",
        Value::Null => "null",
    }
}

impl CompositeSpec {
    pub fn parse(_name: &str, body: &Map<String, Value>) -> OsResult<CompositeSpec> {
        let mut sources: Option<Vec<CompositeSource>> = None;
        let mut size = 10usize;
        let mut after = None;
        for (k, v) in body {
            match k.as_str() {
                "sources" => {
                    let Value::Array(a) = v else {
                        return Err(OsError::parsing(format!(
                            "[composite] sources doesn't support values of type: {}",
                            token(v)
                        )));
                    };
                    sources = Some(a.iter().map(parse_source).collect::<OsResult<_>>()?);
                }
                "size" => {
                    let n = v
                        .as_i64()
                        .or_else(|| v.as_str().and_then(|s| s.parse().ok()))
                        .filter(|n| i32::try_from(*n).is_ok())
                        .ok_or_else(|| {
                            OsError::parsing(format!("[composite] size doesn't support values of type: {}", token(v)))
                        })?;
                    if n < 1 {
                        return Err(OsError::illegal(format!(
                            "[size] must be greater than 0. Found [{n}] in [{_name}]"
                        )));
                    }
                    size = n as usize;
                }
                "after" => {
                    let Value::Object(m) = v else {
                        return Err(OsError::parsing(format!(
                            "[composite] after doesn't support values of type: {}",
                            token(v)
                        )));
                    };
                    after = Some(m.clone());
                }
                _ => {
                    return Err(OsError::parsing(crate::error::unknown_field(
                        "composite",
                        k,
                        &["sources", "size", "after"],
                    )))
                }
            }
        }
        let Some(sources) = sources else {
            return Err(OsError::illegal("Required [sources]"));
        };
        if sources.is_empty() {
            return Err(OsError::illegal("Composite [sources] cannot be null or empty"));
        }
        let mut dups: Vec<&str> = Vec::new();
        for (i, s) in sources.iter().enumerate() {
            if sources[..i].iter().any(|p| p.name == s.name) && !dups.contains(&s.name.as_str()) {
                dups.push(&s.name);
            }
        }
        if !dups.is_empty() {
            return Err(OsError::illegal(format!(
                "Composite source names must be unique, found duplicates: [{}]",
                dups.join(", ")
            )));
        }
        if let Some(a) = &after {
            if a.len() != sources.len() {
                return Err(OsError::illegal(format!(
                    "[after] has {} value(s) but [sources] has {}",
                    a.len(),
                    sources.len()
                )));
            }
            for s in &sources {
                match a.get(&s.name) {
                    None => return Err(OsError::illegal(format!("Missing value for [after.{}]", s.name))),
                    Some(Value::Null) if s.missing_bucket => {}
                    Some(v @ (Value::Null | Value::Object(_) | Value::Array(_))) => {
                        return Err(OsError::illegal(format!(
                            "Invalid value for [after.{}], expected comparable, got [{}]",
                            s.name,
                            java_class(v)
                        )))
                    }
                    Some(_) => {}
                }
            }
        }
        Ok(CompositeSpec { sources, size, after })
    }

    /// The composite order of two keys (each source's direction and missing order).
    pub fn cmp(&self, a: &[Option<Key>], b: &[Option<Key>]) -> Ordering {
        for (i, s) in self.sources.iter().enumerate() {
            let (x, y) = (a.get(i).and_then(Option::as_ref), b.get(i).and_then(Option::as_ref));
            let o = match (x, y) {
                (None, None) => Ordering::Equal,
                (None, Some(_)) | (Some(_), None) => {
                    let missing_first = match s.missing_order {
                        MissingOrder::First => true,
                        MissingOrder::Last => false,
                        MissingOrder::Default => s.asc,
                    };
                    let o = if missing_first { Ordering::Less } else { Ordering::Greater };
                    if x.is_none() {
                        o
                    } else {
                        o.reverse()
                    }
                }
                (Some(x), Some(y)) => {
                    let o = x.cmp_key(y);
                    if s.asc {
                        o
                    } else {
                        o.reverse()
                    }
                }
            };
            if o != Ordering::Equal {
                return o;
            }
        }
        Ordering::Equal
    }
}

/// The key parts of a multi key.
fn parts(k: &Key) -> &[Option<Key>] {
    match k {
        Key::Multi(p) => p,
        _ => &[],
    }
}

/// One source resolved on a shard.
struct ShardSource {
    cfg: Config,
    kind: PartKind,
    fmt: super::fmt::Fmt,
    /// A geotile_grid source: its tiles replace the column's values.
    tile: Option<TileOpts>,
}

fn shard_source(s: &CompositeSource, env: &ShardEnv<'_>) -> OsResult<ShardSource> {
    if let Some(t) = &s.tile {
        let cfg = resolve(&s.source, env.qc, "geotile_grid")?;
        let kind = match &cfg.vt {
            Some(VType::GeoPoint) => PartKind::Num(NumKind::Long),
            None => PartKind::None,
            _ => return Err(super::source::unsupported(&cfg, "geotile_grid")),
        };
        return Ok(ShardSource { cfg, kind, fmt: Fmt::GeoTile, tile: Some(t.clone()) });
    }
    if let Some(r) = &s.date {
        let cfg = resolve(&s.source, env.qc, "date_histogram")?;
        let kind = match &cfg.vt {
            Some(VType::Num(k)) if *k != NumKind::Bool => PartKind::Date(*k, Arc::new(r.clone())),
            None => PartKind::None,
            _ => return Err(super::source::unsupported(&cfg, "date_histogram")),
        };
        // Keys are millis, printed as dates (in the zone) only when a format is given.
        let fmt = match &s.source.format {
            Some(f) => {
                let id = r.zone().id();
                Fmt::Date { format: f.clone(), nanos: false, zone: (id != "UTC" && id != "Z").then(|| id.to_string()) }
            }
            None => Fmt::Raw,
        };
        return Ok(ShardSource { cfg, kind, fmt, tile: None });
    }
    let ty = if s.interval.is_some() { "histogram" } else { "terms" };
    let cfg = resolve(&s.source, env.qc, ty)?;
    let (kind, fmt) = match (&cfg.vt, s.interval) {
        (Some(VType::GeoPoint), _) | (Some(VType::Bytes { .. }), Some(_)) => {
            return Err(super::source::unsupported(&cfg, ty))
        }
        (Some(VType::Num(k)), Some(i)) => (PartKind::Histo(*k, i), cfg.fmt.clone()),
        // Dates print as longs in terms sources unless a format is given (OpenSearch).
        (Some(VType::Num(super::source::NumKind::Date { .. })), None) => (PartKind::of(&cfg.vt), super::fmt::Fmt::Raw),
        (vt, _) => (PartKind::of(vt), cfg.fmt.clone()),
    };
    Ok(ShardSource { cfg, kind, fmt, tile: None })
}

/// The `after` value of one source in the shard's key domain.
fn after_part(v: &Value, src: &ShardSource) -> OsResult<Option<Key>> {
    if v.is_null() {
        return Ok(None);
    }
    if src.tile.is_some() {
        return Ok(Some(Key::Long(after_cell(v)?)));
    }
    let text = match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    let bad = || OsError::new(ErrorKind::NumberFormat, format!("For input string: \"{text}\"")).status(400);
    Ok(Some(match &src.kind {
        PartKind::Bytes | PartKind::None => {
            let Value::String(s) = v else {
                return Err(OsError::illegal(format!("invalid value, expected string, got {}", java_class(v))));
            };
            if matches!(src.cfg.vt, Some(VType::Bytes { ip: true })) {
                let a =
                    ip::parse_ip(s).ok_or_else(|| OsError::illegal(format!("'{s}' is not an IP string literal.")))?;
                Key::Bytes(a.to_be_bytes().to_vec())
            } else {
                Key::Bytes(s.as_bytes().to_vec())
            }
        }
        PartKind::Histo(..) | PartKind::Num(super::source::NumKind::Double | super::source::NumKind::Scaled(_)) => {
            Key::Double(v.as_f64().or_else(|| text.parse().ok()).ok_or_else(bad)?)
        }
        PartKind::Date(_, r) => Key::Long(match v {
            Value::Number(n) => n.as_i64().or_else(|| n.as_f64().map(|f| f.floor() as i64)).ok_or_else(bad)?,
            _ => match &src.fmt {
                Fmt::Date { format, .. } => date_math::eval(&text, format, r.zone(), crate::clock::now_millis(), false)
                    .map_err(|e| {
                        OsError::new(
                            ErrorKind::Parse,
                            format!("failed to parse date field [{text}] with format [{format}]: [{e}]"),
                        )
                        .status(400)
                    })?,
                _ => {
                    text.parse::<i64>().or_else(|_| text.parse::<f64>().map(|f| f.floor() as i64)).map_err(|_| bad())?
                }
            },
        }),
        PartKind::Num(super::source::NumKind::Unsigned) => {
            Key::Unsigned(v.as_u64().or_else(|| text.parse().ok()).ok_or_else(bad)?)
        }
        PartKind::Num(k) => Key::Long(match v {
            Value::Number(n) => n.as_i64().or_else(|| n.as_f64().map(|f| f as i64)).ok_or_else(bad)?,
            Value::Bool(b) => *b as i64,
            _ => match (&src.fmt, k) {
                (super::fmt::Fmt::Bool, _) => match text.as_str() {
                    "true" => 1,
                    "false" => 0,
                    _ => {
                        return Err(OsError::illegal(format!(
                            "Cannot parse boolean [{text}], expected either [true] or [false]"
                        )))
                    }
                },
                (super::fmt::Fmt::Date { format, nanos, .. }, _) => {
                    let ms = date::parse_date(&text, format).map_err(OsError::illegal)?;
                    if *nanos {
                        ms.saturating_mul(1_000_000)
                    } else {
                        ms
                    }
                }
                _ => text.parse::<i64>().or_else(|_| text.parse::<f64>().map(|f| f as i64)).map_err(|_| bad())?,
            },
        }),
    }))
}

impl AggSpec for CompositeSpec {
    fn type_name(&self) -> &'static str {
        "composite"
    }

    fn collector(&self, def: &AggDef, env: &ShardEnv<'_>) -> OsResult<Box<dyn Collector>> {
        let srcs: Vec<ShardSource> = self.sources.iter().map(|s| shard_source(s, env)).collect::<OsResult<_>>()?;
        let after = match &self.after {
            None => None,
            Some(a) => Some(
                self.sources
                    .iter()
                    .zip(&srcs)
                    .map(|(s, ss)| after_part(a.get(&s.name).unwrap_or(&Value::Null), ss))
                    .collect::<OsResult<Vec<_>>>()?,
            ),
        };
        Ok(Box::new(CompositeCollector {
            spec: self.clone(),
            srcs,
            after,
            ords: MultiOrds::default(),
            window: Window::default(),
            subs: Subs::new(def, env)?,
        }))
    }

    fn empty(&self, _def: &AggDef) -> AggResult {
        AggResult::Buckets(Buckets::of(KeyKind::String, Vec::new()))
    }

    fn reduce(&self, def: &AggDef, parts_in: Vec<AggResult>, rc: &mut ReduceCtx) -> OsResult<AggResult> {
        if self.size as u64 > rc.max_buckets {
            return Err(super::too_many_buckets(rc.max_buckets, self.size as u64));
        }
        let mut fmts = Vec::new();
        let mut index: HashMap<KeyIdent, usize> = HashMap::new();
        let mut merged: Vec<(Bucket, Vec<Vec<AggResult>>)> = Vec::new();
        for p in parts_in {
            let AggResult::Buckets(b) = p else { continue };
            if fmts.is_empty() && !b.buckets.is_empty() {
                fmts = b.fmts.clone();
            }
            for mut bk in b.buckets {
                let subs = std::mem::take(&mut bk.subs);
                match index.get(&bk.key.ident()) {
                    Some(&i) => {
                        merged[i].0.doc_count += bk.doc_count;
                        merged[i].1.push(subs);
                    }
                    None => {
                        index.insert(bk.key.ident(), merged.len());
                        merged.push((bk, vec![subs]));
                    }
                }
            }
        }
        merged.sort_by(|a, b| self.cmp(parts(&a.0.key), parts(&b.0.key)));
        merged.truncate(self.size);
        let mut buckets = Vec::with_capacity(merged.len());
        for (mut b, subs) in merged {
            b.subs = super::reduce_subs(def, subs, rc)?;
            buckets.push(b);
        }
        rc.consume(buckets.len())?;
        let after_key = buckets.last().map(|b| b.key.clone());
        Ok(AggResult::Buckets(Buckets { fmts, after_key, ..Buckets::of(KeyKind::String, buckets) }))
    }

    fn render(&self, def: &AggDef, r: &AggResult, rc: &RenderCtx) -> OsResult<Map<String, Value>> {
        let AggResult::Buckets(b) = r else { return Err(OsError::internal("composite result of another kind")) };
        let key_obj = |k: &Key| -> Value {
            let mut m = Map::new();
            for (i, s) in self.sources.iter().enumerate() {
                let fmt = b.fmts.get(i).cloned().unwrap_or(super::fmt::Fmt::Raw);
                m.insert(s.name.clone(), render_part(parts(k).get(i).and_then(Option::as_ref), &fmt).0);
            }
            Value::Object(m)
        };
        let mut m = Map::new();
        if let Some(k) = &b.after_key {
            m.insert("after_key".into(), key_obj(k));
        }
        let mut out = Vec::with_capacity(b.buckets.len());
        for bk in &b.buckets {
            let mut o = Map::new();
            o.insert("key".into(), key_obj(&bk.key));
            o.insert("doc_count".into(), json!(bk.doc_count));
            out.push(Value::Object(render_into(&def.subs, &bk.subs, rc, o)?));
        }
        m.insert("buckets".into(), Value::Array(out));
        Ok(m)
    }
}

/// Refuses a composite aggregation under a parent other than nested, reverse_nested and
/// filter (OpenSearch's `validateParentAggregations`).
pub fn check_parents(defs: &[AggDef], parent: Option<&str>) -> OsResult<()> {
    for d in defs {
        let t = d.spec.type_name();
        if t == "composite" {
            if let Some(p) = parent {
                let class = match p {
                    "composite" => "CompositeAggregationFactory".to_string(),
                    "multi_terms" => "MultiTermsAggregationFactory".to_string(),
                    _ => {
                        let camel: String = p
                            .split('_')
                            .map(|w| {
                                let mut c = w.chars();
                                c.next().map(|f| f.to_ascii_uppercase().to_string() + c.as_str()).unwrap_or_default()
                            })
                            .collect();
                        format!("{camel}AggregatorFactory")
                    }
                };
                return Err(OsError::illegal(format!(
                    "[composite] aggregation cannot be used with a parent aggregation of type: [{class}]"
                )));
            }
        }
        let below = match t {
            "nested" | "reverse_nested" | "filter" => parent,
            other => Some(other),
        };
        check_parents(&d.subs, below)?;
    }
    Ok(())
}

struct CompositeCollector {
    spec: CompositeSpec,
    srcs: Vec<ShardSource>,
    after: Option<Vec<Option<Key>>>,
    ords: MultiOrds,
    window: Window,
    subs: Subs,
}

/// Per owning bucket, the keys that can still be among its first `size` (OpenSearch keeps a
/// queue of `size` keys): once twice `size` keys are live, the `size`-th smallest becomes a
/// bound and keys above it are no longer collected.
#[derive(Debug, Default)]
struct Window {
    live: Vec<Vec<u32>>,
    bound: Vec<Option<Vec<Option<Key>>>>,
}

impl Window {
    fn rejects(&self, spec: &CompositeSpec, owner: u32, key: &[Option<Key>]) -> bool {
        self.bound.get(owner as usize).and_then(Option::as_ref).is_some_and(|b| spec.cmp(key, b) == Ordering::Greater)
    }

    fn added(&mut self, spec: &CompositeSpec, ords: &MultiOrds, owner: u32, o: u32) {
        let ow = owner as usize;
        if self.live.len() <= ow {
            self.live.resize_with(ow + 1, Vec::new);
            self.bound.resize(ow + 1, None);
        }
        let live = &mut self.live[ow];
        live.push(o);
        if live.len() >= spec.size.saturating_mul(2).max(2) {
            live.sort_by(|&a, &b| spec.cmp(&ords.keys[a as usize], &ords.keys[b as usize]));
            live.truncate(spec.size);
            self.bound[ow] = live.last().map(|&l| ords.keys[l as usize].clone());
        }
    }

    fn of_owner(&self, owner: u32) -> &[u32] {
        self.live.get(owner as usize).map_or(&[], Vec::as_slice)
    }
}

impl Collector for CompositeCollector {
    fn leaf<'a>(&'a mut self, seg: &'a dyn SegmentView, si: usize) -> OsResult<Box<dyn LeafCollector + 'a>> {
        let values = self.srcs.iter().map(|s| s.cfg.open(seg)).collect();
        let geo =
            self.srcs.iter().map(|s| s.tile.as_ref().map(|_| GeoReader::new(seg, s.cfg.field.as_deref()))).collect();
        Ok(Box::new(CompositeLeaf {
            spec: &self.spec,
            srcs: &self.srcs,
            after: self.after.as_deref(),
            values,
            geo,
            points: Vec::new(),
            ords: &mut self.ords,
            window: &mut self.window,
            subs: self.subs.leaves(seg, si)?,
            scratch: Vec::new(),
        }))
    }

    fn result(&mut self, owner: u32) -> OsResult<AggResult> {
        let mut ords: Vec<u32> = self.window.of_owner(owner).to_vec();
        ords.sort_by(|&a, &b| self.spec.cmp(&self.ords.keys[a as usize], &self.ords.keys[b as usize]));
        ords.truncate(self.spec.size);
        let mut buckets = Vec::with_capacity(ords.len());
        for o in ords {
            let key = Key::Multi(self.ords.keys[o as usize].clone());
            buckets.push(Bucket::new(key, self.ords.counts[o as usize], self.subs.results(o)?));
        }
        let fmts = self.srcs.iter().map(|s| s.fmt.clone()).collect();
        Ok(AggResult::Buckets(Buckets { fmts, ..Buckets::of(KeyKind::String, buckets) }))
    }

    fn needs_scores(&self) -> bool {
        self.subs.needs_scores()
    }

    fn mem_bytes(&self) -> usize {
        self.ords.mem_bytes() + self.subs.mem_bytes()
    }
}

struct CompositeLeaf<'a> {
    spec: &'a CompositeSpec,
    srcs: &'a [ShardSource],
    after: Option<&'a [Option<Key>]>,
    values: Vec<super::source::SegValues<'a>>,
    /// The point readers of the geotile_grid sources.
    geo: Vec<Option<GeoReader<'a>>>,
    points: Vec<GeoPoint>,
    ords: &'a mut MultiOrds,
    window: &'a mut Window,
    subs: SubLeaves<'a>,
    scratch: Vec<Key>,
}

impl LeafCollector for CompositeLeaf<'_> {
    fn collect(&mut self, doc: DocId, owner: u32, score: f32) -> OsResult<()> {
        let mut per: Vec<Vec<Option<Key>>> = Vec::with_capacity(self.srcs.len());
        for (i, src) in self.srcs.iter().enumerate() {
            self.scratch.clear();
            match (&src.tile, &mut self.geo[i]) {
                (Some(t), Some(r)) => t.doc_cells(r, doc, &mut self.points, &mut self.scratch),
                _ => doc_parts(&src.kind, &mut self.values[i], doc, &mut self.scratch)?,
            }
            if self.scratch.is_empty() {
                if !self.spec.sources[i].missing_bucket {
                    return Ok(());
                }
                per.push(vec![None]);
            } else {
                per.push(self.scratch.drain(..).map(Some).collect());
            }
        }
        let CompositeLeaf { spec, after, ords, window, subs, .. } = self;
        for_each_combination(&per, &mut |key| {
            if let Some(a) = after {
                if spec.cmp(&key, a) != Ordering::Greater {
                    return Ok(());
                }
            }
            if window.rejects(spec, owner, &key) {
                return Ok(());
            }
            let before = ords.keys.len();
            let o = ords.ord(owner, key);
            if ords.keys.len() > before {
                window.added(spec, ords, owner, o);
            }
            ords.counts[o as usize] += 1;
            subs.collect(doc, o, score)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(v: Value) -> OsResult<CompositeSpec> {
        CompositeSpec::parse("c", v.as_object().unwrap())
    }

    #[test]
    fn parses_sources_and_validates_after() {
        let s = spec(json!({"sources": [{"a": {"terms": {"field": "x", "order": "desc"}}},
            {"b": {"histogram": {"field": "y", "interval": 5, "missing_bucket": true, "missing_order": "last"}}}],
            "size": 3, "after": {"a": "q", "b": null}}))
        .unwrap();
        assert_eq!(s.size, 3);
        assert!(!s.sources[0].asc);
        assert_eq!(s.sources[1].interval, Some(5.0));
        assert_eq!(s.sources[1].missing_order, MissingOrder::Last);
        let e = |v| spec(v).unwrap_err().reason;
        assert!(e(json!({"sources": []})).contains("cannot be null or empty"));
        assert!(e(json!({"size": 1})).contains("Required [sources]"));
        assert!(e(json!({"sources": [{"k": {"terms": {"field": "x"}}}, {"k": {"terms": {"field": "x"}}}]}))
            .contains("found duplicates: [k]"));
        assert!(e(json!({"sources": [{"k": {"terms": {"field": "x"}}}], "after": {"j": 1}}))
            .contains("Missing value for [after.k]"));
        assert!(e(json!({"sources": [{"k": {"terms": {"field": "x"}}}], "after": {"k": 1, "j": 2}}))
            .contains("[after] has 2 value(s) but [sources] has 1"));
        let g = spec(json!({"sources": [{"k": {"geotile_grid": {"field": "x", "precision": 4}}}]})).unwrap();
        assert_eq!(g.sources[0].tile.as_ref().map(|t| t.precision), Some(4));
        assert!(e(json!({"sources": [{"k": {"geotile_grid": {"field": "x", "interval": 1}}}]}))
            .contains("[geotile_grid] unknown field [interval]"));
        assert!(e(json!({"sources": [{"k": {"date_histogram": {"field": "x"}}}]})).contains("Invalid interval"));
        assert!(e(json!({"sources": [{"k": {"date_histogram": {"field": "x", "fixed_interval": "1d", "calendar_interval": "1d"}}}]}))
            .contains("Cannot use [fixed_interval] with [calendar_interval]"));
        assert!(e(
            json!({"sources": [{"k": {"date_histogram": {"field": "x", "calendar_interval": "1d", "bogus": 1}}}]})
        )
        .contains("bogus"));
        assert!(e(json!({"sources": [{"k": {"terms": {"field": "x", "missing_order": "last"}}}]}))
            .contains("missing_order require missing_bucket"));
    }

    #[test]
    fn composite_order_with_directions_and_missing() {
        let s = spec(json!({"sources": [{"a": {"terms": {"field": "x", "order": "desc", "missing_bucket": true}}},
            {"b": {"terms": {"field": "y", "missing_bucket": true, "missing_order": "last"}}}]}))
        .unwrap();
        let k = |a: Option<i64>, b: Option<i64>| vec![a.map(Key::Long), b.map(Key::Long)];
        let mut keys =
            vec![k(Some(1), Some(2)), k(None, Some(1)), k(Some(2), None), k(Some(2), Some(5)), k(Some(1), None)];
        keys.sort_by(|a, b| s.cmp(a, b));
        assert_eq!(
            keys,
            vec![k(Some(2), Some(5)), k(Some(2), None), k(Some(1), Some(2)), k(Some(1), None), k(None, Some(1))]
        );
    }

    #[test]
    fn window_keeps_the_first_keys_whatever_the_arrival_order() {
        let s = spec(json!({"sources": [{"a": {"terms": {"field": "x", "order": "desc"}}}], "size": 3})).unwrap();
        let mut ords = MultiOrds::default();
        let mut w = Window::default();
        let mut seen = 0;
        for i in 0..50i64 {
            let key = vec![Some(Key::Long((i * 37) % 50))];
            if w.rejects(&s, 0, &key) {
                continue;
            }
            seen += 1;
            let o = ords.ord(0, key);
            w.added(&s, &ords, 0, o);
        }
        assert!(seen < 50, "later keys above the bound are not collected");
        let mut live: Vec<Vec<Option<Key>>> = w.of_owner(0).iter().map(|&o| ords.keys[o as usize].clone()).collect();
        live.sort_by(|a, b| s.cmp(a, b));
        live.truncate(3);
        assert_eq!(live, vec![vec![Some(Key::Long(49))], vec![Some(Key::Long(48))], vec![Some(Key::Long(47))]]);
    }
}
