//! `percentiles`, `percentile_ranks` (t-digest with `compression`, or HDR with
//! `number_of_significant_value_digits`) and `median_absolute_deviation`, over the sketches of
//! [`super::sketch`], shaped as OpenSearch's `InternalTDigestPercentiles` and friends.

use serde_json::{json, Map, Value};

use super::fmt::{double, java_double, Fmt};
use super::result::AggResult;
use super::sketch::hdr::Hdr;
use super::sketch::tdigest::TDigest;
use super::source::{resolve, token, NumKind, SegValues, SourceSpec};
use super::{AggDef, AggSpec, Collector, LeafCollector, ReduceCtx, RenderCtx, ShardEnv};
use crate::engine::query::SegmentView;
use crate::engine::segment::DocId;
use crate::error::{OsError, OsResult};

/// Which estimator.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Method {
    TDigest { compression: f64 },
    Hdr { digits: u8 },
}

/// What is asked of the sketch.
#[derive(Debug, Clone, PartialEq)]
pub enum Ask {
    /// `percentiles`: values at these percents.
    Percents(Vec<f64>),
    /// `percentile_ranks`: ranks of these values.
    Ranks(Vec<f64>),
    /// `median_absolute_deviation`.
    Mad,
}

#[derive(Debug, Clone)]
pub struct PercentilesSpec {
    pub source: SourceSpec,
    pub method: Method,
    pub ask: Ask,
    pub keyed: bool,
}

const DEFAULT_PERCENTS: [f64; 7] = [1.0, 5.0, 25.0, 50.0, 75.0, 95.0, 99.0];

fn numbers(t: &str, k: &str, v: &Value) -> OsResult<Vec<f64>> {
    let Value::Array(a) = v else {
        return Err(OsError::parsing(format!("[{t}] {k} doesn't support values of type: {}", token(v))));
    };
    a.iter()
        .map(|x| {
            x.as_f64().ok_or_else(|| {
                OsError::parsing(format!("[{t}] failed to parse field [{k}]: value [{x}] is not a number"))
            })
        })
        .collect()
}

impl PercentilesSpec {
    /// Parses `percentiles` (`t` = "percentiles"), `percentile_ranks` or `median_absolute_deviation`.
    pub fn parse(t: &str, name: &str, body: &Map<String, Value>) -> OsResult<PercentilesSpec> {
        let mut source = SourceSpec::default();
        let mut method = None;
        let mut compression = None;
        let mut ask = match t {
            "percentiles" => Ask::Percents(DEFAULT_PERCENTS.to_vec()),
            "percentile_ranks" => Ask::Ranks(Vec::new()),
            _ => Ask::Mad,
        };
        let mut values_given = false;
        let mut keyed = true;
        for (k, v) in body {
            if source.take(t, k, v)? {
                continue;
            }
            match (k.as_str(), &ask) {
                ("percents", Ask::Percents(_)) => {
                    if v.is_null() {
                        return Err(OsError::illegal(format!("[percents] must not be null: [{name}]")));
                    }
                    let p = numbers(t, k, v)?;
                    if p.is_empty() {
                        return Err(OsError::illegal(format!("[percents] must not be empty: [{name}]")));
                    }
                    for x in &p {
                        if !(0.0..=100.0).contains(x) {
                            return Err(OsError::illegal(format!(
                                "percent must be in [0,100], got [{}]: [{name}]",
                                java_double(*x)
                            )));
                        }
                    }
                    ask = Ask::Percents(p);
                }
                ("values", Ask::Ranks(_)) => {
                    if v.is_null() {
                        return Err(OsError::illegal(format!("[values] must not be null: [{name}]")));
                    }
                    let mut p = numbers(t, k, v)?;
                    if p.is_empty() {
                        return Err(OsError::illegal(format!("[values] must not be an empty array: [{name}]")));
                    }
                    p.sort_by(f64::total_cmp);
                    values_given = true;
                    ask = Ask::Ranks(p);
                }
                ("keyed", Ask::Percents(_) | Ask::Ranks(_)) => {
                    keyed = v.as_bool().ok_or_else(|| {
                        OsError::parsing(format!("[{t}] keyed doesn't support values of type: {}", token(v)))
                    })?
                }
                ("compression", Ask::Mad) => {
                    compression = Some(v.as_f64().ok_or_else(|| {
                        OsError::parsing(format!("[{t}] compression doesn't support values of type: {}", token(v)))
                    })?)
                }
                ("tdigest", Ask::Percents(_) | Ask::Ranks(_)) => {
                    if method.is_some() {
                        return Err(OsError::parsing(format!("[{t}] only one of [tdigest] or [hdr] may be set")));
                    }
                    let Value::Object(m) = v else {
                        return Err(OsError::parsing(format!(
                            "[{t}] tdigest doesn't support values of type: {}",
                            token(v)
                        )));
                    };
                    let mut c = 100.0;
                    for (mk, mv) in m {
                        match mk.as_str() {
                            "compression" => {
                                c = mv.as_f64().ok_or_else(|| {
                                    OsError::parsing(format!(
                                        "[tdigest] compression doesn't support values of type: {}",
                                        token(mv)
                                    ))
                                })?
                            }
                            _ => {
                                return Err(OsError::parsing(crate::error::unknown_field(
                                    "tdigest",
                                    mk,
                                    &["compression"],
                                )))
                            }
                        }
                    }
                    if c < 0.0 {
                        return Err(OsError::illegal(format!(
                            "[compression] must be greater than or equal to 0. Found [{}] in [{name}]",
                            java_double(c)
                        )));
                    }
                    method = Some(Method::TDigest { compression: c });
                }
                ("hdr", Ask::Percents(_) | Ask::Ranks(_)) => {
                    if method.is_some() {
                        return Err(OsError::parsing(format!("[{t}] only one of [tdigest] or [hdr] may be set")));
                    }
                    let Value::Object(m) = v else {
                        return Err(OsError::parsing(format!(
                            "[{t}] hdr doesn't support values of type: {}",
                            token(v)
                        )));
                    };
                    let mut d = super::sketch::hdr::DEFAULT_DIGITS as i64;
                    for (mk, mv) in m {
                        match mk.as_str() {
                            "number_of_significant_value_digits" => {
                                d = mv.as_i64().ok_or_else(|| {
                                    OsError::parsing(format!(
                                        "[hdr] number_of_significant_value_digits doesn't support values of type: {}",
                                        token(mv)
                                    ))
                                })?
                            }
                            _ => {
                                return Err(OsError::parsing(crate::error::unknown_field(
                                    "hdr",
                                    mk,
                                    &["number_of_significant_value_digits"],
                                )))
                            }
                        }
                    }
                    if !(0..=5).contains(&d) {
                        return Err(OsError::illegal(format!(
                            "[numberOfSignificantValueDigits] must be between 0 and 5: [{name}]"
                        )));
                    }
                    method = Some(Method::Hdr { digits: d as u8 });
                }
                _ => {
                    let keys: &[&str] = match ask {
                        Ask::Percents(_) => &[
                            "field",
                            "script",
                            "missing",
                            "format",
                            "value_type",
                            "percents",
                            "keyed",
                            "tdigest",
                            "hdr",
                        ],
                        Ask::Ranks(_) => {
                            &["field", "script", "missing", "format", "value_type", "values", "keyed", "tdigest", "hdr"]
                        }
                        Ask::Mad => &["field", "script", "missing", "format", "value_type", "compression"],
                    };
                    return Err(OsError::parsing(crate::error::unknown_field(t, k, keys)));
                }
            }
        }
        if matches!(ask, Ask::Ranks(_)) && !values_given {
            return Err(OsError::illegal(format!("[values] must not be null: [{name}]")));
        }
        source.require(t, name)?;
        let method = match (&ask, method) {
            (Ask::Mad, _) => Method::TDigest { compression: compression.unwrap_or(1000.0) },
            (_, Some(m)) => m,
            (_, None) => Method::TDigest { compression: 100.0 },
        };
        Ok(PercentilesSpec { source, method, ask, keyed })
    }

    fn new_sketch(&self) -> AggResult {
        match self.method {
            Method::TDigest { compression } => AggResult::TDigest(TDigest::new(compression), Fmt::Raw),
            Method::Hdr { digits } => AggResult::Hdr(Hdr::new(digits), Fmt::Raw),
        }
    }

    fn type_str(&self) -> &'static str {
        match self.ask {
            Ask::Percents(_) => "percentiles",
            Ask::Ranks(_) => "percentile_ranks",
            Ask::Mad => "median_absolute_deviation",
        }
    }

    /// The sketch's value at a percent (percentiles) or the rank of a value (percentile_ranks).
    fn value(&self, r: &AggResult, x: f64) -> f64 {
        match (r, &self.ask) {
            (AggResult::TDigest(d, _), Ask::Ranks(_)) => d.percentile_rank(x),
            (AggResult::TDigest(d, _), Ask::Mad) => d.median_absolute_deviation(),
            (AggResult::TDigest(d, _), _) => d.percentile(x),
            (AggResult::Hdr(h, _), Ask::Ranks(_)) => h.percentile_at_or_below(x),
            (AggResult::Hdr(h, _), _) => h.value_at_percentile(x),
            _ => f64::NAN,
        }
    }

    fn count(r: &AggResult) -> u64 {
        match r {
            AggResult::TDigest(d, _) => d.size(),
            AggResult::Hdr(h, _) => h.count(),
            _ => 0,
        }
    }
}

impl AggSpec for PercentilesSpec {
    fn type_name(&self) -> &'static str {
        self.type_str()
    }

    fn typed_name(&self, _r: &AggResult) -> &'static str {
        match (&self.ask, self.method) {
            (Ask::Mad, _) => "median_absolute_deviation",
            (Ask::Percents(_), Method::TDigest { .. }) => "tdigest_percentiles",
            (Ask::Percents(_), Method::Hdr { .. }) => "hdr_percentiles",
            (Ask::Ranks(_), Method::TDigest { .. }) => "tdigest_percentile_ranks",
            (Ask::Ranks(_), Method::Hdr { .. }) => "hdr_percentile_ranks",
        }
    }

    fn takes_subs(&self) -> bool {
        false
    }

    fn collector(&self, _def: &AggDef, env: &ShardEnv<'_>) -> OsResult<Box<dyn Collector>> {
        let cfg = resolve(&self.source, env.qc, self.type_str())?;
        let num = cfg.numeric(self.type_str())?;
        let mut proto = self.new_sketch();
        match &mut proto {
            AggResult::TDigest(_, f) | AggResult::Hdr(_, f) => *f = cfg.fmt.clone(),
            _ => {}
        }
        Ok(Box::new(SketchCollector { cfg, num, proto, states: Vec::new() }))
    }

    fn empty(&self, _def: &AggDef) -> AggResult {
        self.new_sketch()
    }

    fn reduce(&self, _def: &AggDef, parts: Vec<AggResult>, _rc: &mut ReduceCtx) -> OsResult<AggResult> {
        let mut it = parts.into_iter();
        let Some(mut acc) = it.next() else { return Ok(self.new_sketch()) };
        if let AggResult::Hdr(h, _) = &mut acc {
            *h = Hdr::reduce(std::iter::once(&*h)).map_err(OsError::illegal)?.unwrap_or_else(|| h.clone());
        }
        for p in it {
            match (&mut acc, &p) {
                (AggResult::TDigest(a, _), AggResult::TDigest(b, _)) => a.merge(b),
                (AggResult::Hdr(a, _), AggResult::Hdr(b, _)) => a.merge(b).map_err(OsError::illegal)?,
                _ => {}
            }
        }
        Ok(acc)
    }

    fn render(&self, _def: &AggDef, r: &AggResult, _rc: &RenderCtx) -> OsResult<Map<String, Value>> {
        let fmt = match r {
            AggResult::TDigest(_, f) | AggResult::Hdr(_, f) => f.clone(),
            _ => Fmt::Raw,
        };
        let any = Self::count(r) > 0;
        let mut m = Map::new();
        let keys = match &self.ask {
            Ask::Mad => {
                let v = self.value(r, 0.0);
                m.insert("value".into(), if any { double(v) } else { Value::Null });
                if any && !fmt.is_raw() {
                    if let Some(s) = fmt.number_string(v) {
                        m.insert("value_as_string".into(), json!(s));
                    }
                }
                return Ok(m);
            }
            Ask::Percents(p) | Ask::Ranks(p) => p,
        };
        if self.keyed {
            let mut o = Map::new();
            for &k in keys {
                let v = self.value(r, k);
                let name = java_double(k);
                o.insert(name.clone(), if any { double(v) } else { Value::Null });
                if any && !fmt.is_raw() {
                    if let Some(s) = fmt.number_string(v) {
                        o.insert(format!("{name}_as_string"), json!(s));
                    }
                }
            }
            m.insert("values".into(), Value::Object(o));
        } else {
            let mut a = Vec::new();
            for &k in keys {
                let v = self.value(r, k);
                let mut o = Map::new();
                o.insert("key".into(), double(k));
                o.insert("value".into(), if any { double(v) } else { Value::Null });
                if any && !fmt.is_raw() {
                    if let Some(s) = fmt.number_string(v) {
                        o.insert("value_as_string".into(), json!(s));
                    }
                }
                a.push(Value::Object(o));
            }
            m.insert("values".into(), Value::Array(a));
        }
        Ok(m)
    }

    fn property(&self, def: &AggDef, r: &AggResult, path: &[String]) -> OsResult<f64> {
        match (&self.ask, path) {
            (Ask::Mad, []) => Ok(self.value(r, 0.0)),
            (Ask::Mad, [p]) if p == "value" => Ok(self.value(r, 0.0)),
            (_, [p]) => {
                let x: f64 = p.parse().map_err(|_| {
                    OsError::illegal(format!("Invalid aggregation path [{}.{p}]: not a number", def.name))
                })?;
                Ok(self.value(r, x))
            }
            _ => Err(OsError::illegal(format!(
                "Invalid aggregation path [{}]: a [{}] needs a percent",
                def.name,
                self.type_str()
            ))),
        }
    }
}

struct SketchCollector {
    cfg: super::source::Config,
    num: Option<NumKind>,
    proto: AggResult,
    states: Vec<AggResult>,
}

impl Collector for SketchCollector {
    fn leaf<'a>(&'a mut self, seg: &'a dyn SegmentView, _si: usize) -> OsResult<Box<dyn LeafCollector + 'a>> {
        Ok(Box::new(SketchLeaf {
            values: self.cfg.open(seg),
            num: self.num,
            proto: &self.proto,
            states: &mut self.states,
        }))
    }

    fn result(&mut self, ord: u32) -> OsResult<AggResult> {
        Ok(self.states.get(ord as usize).cloned().unwrap_or_else(|| self.proto.clone()))
    }

    fn mem_bytes(&self) -> usize {
        self.states
            .iter()
            .map(|s| match s {
                AggResult::TDigest(d, _) => d.mem_bytes(),
                AggResult::Hdr(h, _) => h.mem_bytes(),
                _ => 0,
            })
            .sum()
    }
}

struct SketchLeaf<'a> {
    values: SegValues<'a>,
    num: Option<NumKind>,
    proto: &'a AggResult,
    states: &'a mut Vec<AggResult>,
}

impl LeafCollector for SketchLeaf<'_> {
    fn collect(&mut self, doc: DocId, ord: u32, _score: f32) -> OsResult<()> {
        let (SegValues::Num(r), Some(k)) = (&mut self.values, self.num) else { return Ok(()) };
        let o = ord as usize;
        if self.states.len() <= o {
            self.states.resize(o + 1, self.proto.clone());
        }
        for &raw in r.values(doc) {
            let v = k.to_f64(raw);
            match &mut self.states[o] {
                AggResult::TDigest(d, _) => d.add(v),
                AggResult::Hdr(h, _) => h.record(v).map_err(|e| {
                    debug_assert_eq!(
                        super::sketch::hdr::ERROR_TYPE,
                        crate::error::ErrorKind::ArrayIndexOutOfBounds.name()
                    );
                    OsError::new(crate::error::ErrorKind::ArrayIndexOutOfBounds, e)
                })?,
                _ => {}
            }
        }
        Ok(())
    }
}
