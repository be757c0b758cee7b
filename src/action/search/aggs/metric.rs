//! The numeric metrics over one value source: min, max, sum, avg, value_count, stats and
//! extended_stats (OpenSearch's `InternalMin` ... `InternalExtendedStats`), summed with Kahan
//! compensation as OpenSearch sums.

use serde_json::{json, Map, Value};

use super::fmt::{double, Fmt};
use super::result::{AggResult, Stats};
use super::source::{resolve, Config, NumKind, SegValues, SourceSpec, VType};
use super::{AggDef, AggSpec, Collector, LeafCollector, ReduceCtx, RenderCtx, ShardEnv};
use crate::engine::query::SegmentView;
use crate::engine::segment::DocId;
use crate::error::{OsError, OsResult};

/// Which metric.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Metric {
    Min,
    Max,
    Sum,
    Avg,
    ValueCount,
    Stats,
    ExtendedStats,
}

impl Metric {
    pub fn from_name(s: &str) -> Option<Metric> {
        Some(match s {
            "min" => Metric::Min,
            "max" => Metric::Max,
            "sum" => Metric::Sum,
            "avg" => Metric::Avg,
            "value_count" => Metric::ValueCount,
            "stats" => Metric::Stats,
            "extended_stats" => Metric::ExtendedStats,
            _ => return None,
        })
    }

    fn name(self) -> &'static str {
        match self {
            Metric::Min => "min",
            Metric::Max => "max",
            Metric::Sum => "sum",
            Metric::Avg => "avg",
            Metric::ValueCount => "value_count",
            Metric::Stats => "stats",
            Metric::ExtendedStats => "extended_stats",
        }
    }
}

/// A numeric metric aggregation.
#[derive(Debug, Clone)]
pub struct MetricSpec {
    pub metric: Metric,
    pub source: SourceSpec,
    /// extended_stats: the bounds' width in standard deviations (default 2).
    pub sigma: f64,
}

impl MetricSpec {
    /// Parses the body of `{"avg": {...}}`.
    pub fn parse(metric: Metric, name: &str, body: &Map<String, Value>) -> OsResult<MetricSpec> {
        let mut source = SourceSpec::default();
        let mut sigma = 2.0;
        let t = metric.name();
        for (k, v) in body {
            if source.take(t, k, v)? {
                continue;
            }
            match (metric, k.as_str()) {
                (Metric::ExtendedStats, "sigma") => {
                    sigma = v.as_f64().ok_or_else(|| {
                        OsError::parsing(format!(
                            "[{t}] sigma doesn't support values of type: {}",
                            super::source::token(v)
                        ))
                    })?;
                    if sigma < 0.0 {
                        return Err(OsError::illegal(format!(
                            "[sigma] must be greater than or equal to 0. Found [{sigma}] in [{name}]"
                        )));
                    }
                }
                _ => {
                    return Err(OsError::parsing(crate::error::unknown_field(
                        t,
                        k,
                        &["field", "script", "missing", "format", "value_type"],
                    )))
                }
            }
        }
        source.require(t, name)?;
        Ok(MetricSpec { metric, source, sigma })
    }
}

/// A resolved metric with its format, kept in the shard result's place for rendering.
struct MetricCollector {
    metric: Metric,
    cfg: Config,
    num: Option<NumKind>,
    states: Vec<Stats>,
}

impl AggSpec for MetricSpec {
    fn type_name(&self) -> &'static str {
        self.metric.name()
    }

    fn takes_subs(&self) -> bool {
        false
    }

    fn collector(&self, _def: &AggDef, env: &ShardEnv<'_>) -> OsResult<Box<dyn Collector>> {
        let cfg = resolve(&self.source, env.qc, self.metric.name())?;
        let num = match (self.metric, &cfg.vt) {
            (Metric::ValueCount, Some(VType::Bytes { .. } | VType::GeoPoint)) => None,
            _ => cfg.numeric(self.metric.name())?,
        };
        Ok(Box::new(MetricCollector { metric: self.metric, cfg, num, states: Vec::new() }))
    }

    fn empty(&self, _def: &AggDef) -> AggResult {
        AggResult::Stats(Stats::default(), Fmt::Raw)
    }

    fn reduce(&self, _def: &AggDef, parts: Vec<AggResult>, _rc: &mut ReduceCtx) -> OsResult<AggResult> {
        let mut s = Stats::default();
        let mut fmt = None;
        for p in &parts {
            if let AggResult::Stats(x, f) = p {
                s.merge(x);
                fmt.get_or_insert_with(|| f.clone());
            }
        }
        Ok(AggResult::Stats(s, fmt.unwrap_or(Fmt::Raw)))
    }

    fn render(&self, _def: &AggDef, r: &AggResult, _rc: &RenderCtx) -> OsResult<Map<String, Value>> {
        let AggResult::Stats(s, fmt) = r else { return Err(OsError::internal("metric result of another kind")) };
        let mut m = Map::new();
        let with_string = |m: &mut Map<String, Value>, key: &str, v: f64| {
            if let Some(s) = fmt.number_string(v).filter(|_| !fmt.is_raw()) {
                m.insert(format!("{key}_as_string"), json!(s));
            }
        };
        match self.metric {
            Metric::Min | Metric::Max => {
                let v = if self.metric == Metric::Min { s.min } else { s.max };
                if v.is_infinite() {
                    m.insert("value".into(), Value::Null);
                } else {
                    m.insert("value".into(), double(v));
                    with_string(&mut m, "value", v);
                }
            }
            Metric::Sum => {
                m.insert("value".into(), double(s.sum.value));
                with_string(&mut m, "value", s.sum.value);
            }
            Metric::Avg => {
                if s.count == 0 {
                    m.insert("value".into(), Value::Null);
                } else {
                    let v = s.sum.value / s.count as f64;
                    m.insert("value".into(), double(v));
                    with_string(&mut m, "value", v);
                }
            }
            Metric::ValueCount => {
                m.insert("value".into(), json!(s.count));
            }
            Metric::Stats | Metric::ExtendedStats => {
                m.insert("count".into(), json!(s.count));
                let has = s.count > 0;
                let avg = if has { s.sum.value / s.count as f64 } else { f64::NAN };
                for (k, v) in [("min", s.min), ("max", s.max), ("avg", avg)] {
                    m.insert(k.into(), if has { double(v) } else { Value::Null });
                }
                m.insert("sum".into(), double(s.sum.value));
                if self.metric == Metric::ExtendedStats {
                    extended(&mut m, s, self.sigma);
                }
                if has {
                    for (k, v) in [("min", s.min), ("max", s.max), ("avg", avg), ("sum", s.sum.value)] {
                        with_string(&mut m, k, v);
                    }
                }
            }
        }
        Ok(m)
    }

    fn property(&self, def: &AggDef, r: &AggResult, path: &[String]) -> OsResult<f64> {
        let AggResult::Stats(s, _) = r else { return Ok(f64::NAN) };
        let avg = if s.count == 0 { f64::NAN } else { s.sum.value / s.count as f64 };
        let single = match self.metric {
            Metric::Min => Some(s.min),
            Metric::Max => Some(s.max),
            Metric::Sum => Some(s.sum.value),
            Metric::Avg => Some(avg),
            Metric::ValueCount => Some(s.count as f64),
            _ => None,
        };
        match (single, path) {
            (Some(v), []) => return Ok(v),
            (Some(v), [p]) if p == "value" => return Ok(v),
            (None, [p]) => {
                let n = s.count as f64;
                let var = variance(s, n);
                let std = var.sqrt();
                let got = match p.as_str() {
                    "count" => Some(n),
                    "min" => Some(s.min),
                    "max" => Some(s.max),
                    "avg" => Some(avg),
                    "sum" => Some(s.sum.value),
                    "sum_of_squares" if self.metric == Metric::ExtendedStats => Some(s.sum_sq.value),
                    "variance" | "variance_population" if self.metric == Metric::ExtendedStats => Some(var),
                    "std_deviation" | "std_deviation_population" if self.metric == Metric::ExtendedStats => Some(std),
                    "std_upper" if self.metric == Metric::ExtendedStats => Some(avg + self.sigma * std),
                    "std_lower" if self.metric == Metric::ExtendedStats => Some(avg - self.sigma * std),
                    _ => None,
                };
                if let Some(v) = got {
                    return Ok(v);
                }
            }
            _ => {}
        }
        let what = if path.is_empty() { def.name.clone() } else { format!("{}.{}", def.name, path.join(".")) };
        Err(OsError::illegal(format!(
            "Invalid aggregation path [{what}]: unknown property of a [{}] aggregation",
            self.metric.name()
        )))
    }
}

fn variance(s: &Stats, n: f64) -> f64 {
    let v = (s.sum_sq.value - s.sum.value * s.sum.value / n) / n;
    if v < 0.0 {
        0.0
    } else {
        v
    }
}

/// The extended_stats fields beyond stats.
fn extended(m: &mut Map<String, Value>, s: &Stats, sigma: f64) {
    let keys = [
        "sum_of_squares",
        "variance",
        "variance_population",
        "variance_sampling",
        "std_deviation",
        "std_deviation_population",
        "std_deviation_sampling",
    ];
    if s.count == 0 {
        for k in keys {
            m.insert(k.into(), Value::Null);
        }
        m.insert(
            "std_deviation_bounds".into(),
            json!({"upper": null, "lower": null, "upper_population": null, "lower_population": null, "upper_sampling": null, "lower_sampling": null}),
        );
        return;
    }
    let n = s.count as f64;
    let var = variance(s, n);
    let var_s = if s.count > 1 {
        let v = (s.sum_sq.value - s.sum.value * s.sum.value / n) / (n - 1.0);
        if v < 0.0 {
            0.0
        } else {
            v
        }
    } else {
        f64::NAN
    };
    let avg = s.sum.value / n;
    let (std, std_s) = (var.sqrt(), var_s.sqrt());
    for (k, v) in keys.iter().zip([s.sum_sq.value, var, var, var_s, std, std, std_s]) {
        m.insert((*k).into(), double(v));
    }
    m.insert(
        "std_deviation_bounds".into(),
        json!({
            "upper": double(avg + sigma * std),
            "lower": double(avg - sigma * std),
            "upper_population": double(avg + sigma * std),
            "lower_population": double(avg - sigma * std),
            "upper_sampling": double(avg + sigma * std_s),
            "lower_sampling": double(avg - sigma * std_s),
        }),
    );
}

impl Collector for MetricCollector {
    fn leaf<'a>(&'a mut self, seg: &'a dyn SegmentView, _si: usize) -> OsResult<Box<dyn LeafCollector + 'a>> {
        let values = self.cfg.open(seg);
        Ok(Box::new(MetricLeaf {
            values,
            num: self.num,
            squares: self.metric == Metric::ExtendedStats,
            states: &mut self.states,
        }))
    }

    fn result(&mut self, ord: u32) -> OsResult<AggResult> {
        Ok(AggResult::Stats(self.states.get(ord as usize).cloned().unwrap_or_default(), self.cfg.fmt.clone()))
    }

    fn mem_bytes(&self) -> usize {
        self.states.capacity() * std::mem::size_of::<Stats>()
    }
}

struct MetricLeaf<'a> {
    values: SegValues<'a>,
    num: Option<NumKind>,
    squares: bool,
    states: &'a mut Vec<Stats>,
}

impl LeafCollector for MetricLeaf<'_> {
    fn collect_block(&mut self, docs: &[DocId], ord: u32) -> OsResult<()> {
        let col = match (&self.values, self.num) {
            (SegValues::Num(r), Some(_)) => r.single().copied(),
            _ => None,
        };
        let (Some(col), Some(k)) = (col, self.num) else {
            for &d in docs {
                self.collect(d, ord, f32::NAN)?;
            }
            return Ok(());
        };
        let o = ord as usize;
        if o >= self.states.len() {
            self.states.resize(o + 1, Stats::default());
        }
        let st = &mut self.states[o];
        let exact = match k {
            NumKind::Long | NumKind::Date { .. } | NumKind::Bool => Some(false),
            NumKind::Unsigned => Some(true),
            _ => None,
        };
        match exact {
            // Integers summed exactly, then added once: the same double as OpenSearch's Kahan sum
            // of the values while every partial sum is below 2^53.
            Some(unsigned) => {
                let (mut n, mut sum, mut sq, mut lo, mut hi) = (0u64, 0i128, 0i128, i128::MAX, i128::MIN);
                let squares = self.squares;
                super::source::for_block_values(&col, docs, |_, raw| {
                    let v = if unsigned { ((raw as u64) ^ (1u64 << 63)) as i128 } else { raw as i128 };
                    n += 1;
                    sum += v;
                    lo = lo.min(v);
                    hi = hi.max(v);
                    if squares {
                        sq = sq.saturating_add(v.saturating_mul(v));
                    }
                });
                if n > 0 {
                    st.count += n;
                    st.sum.add(sum as f64);
                    st.min = st.min.min(lo as f64);
                    st.max = st.max.max(hi as f64);
                    if self.squares {
                        st.sum_sq.add(sq as f64);
                    }
                }
            }
            None => {
                let squares = self.squares;
                super::source::for_block_values(&col, docs, |_, raw| {
                    let v = k.to_f64(raw);
                    st.add(v);
                    if squares {
                        st.sum_sq.add(v * v);
                    }
                });
            }
        }
        Ok(())
    }

    #[inline]
    fn collect(&mut self, doc: DocId, ord: u32, _score: f32) -> OsResult<()> {
        let o = ord as usize;
        if o >= self.states.len() {
            self.states.resize(o + 1, Stats::default());
        }
        let st = &mut self.states[o];
        match (&mut self.values, self.num) {
            (SegValues::Num(r), Some(k)) => {
                if let (Some(col), false) = (r.single(), self.squares) {
                    if let Some(raw) = col.first(doc) {
                        st.add(k.to_f64(raw));
                    }
                    return Ok(());
                }
                for &raw in r.values(doc) {
                    let v = k.to_f64(raw);
                    st.add(v);
                    if self.squares {
                        st.sum_sq.add(v * v);
                    }
                }
            }
            (SegValues::Num(r), None) => st.count += r.values(doc).len() as u64,
            (SegValues::Bytes(r), _) => {
                let n = r.value_len(doc);
                st.count += if n == 0 && r.missing.is_some() { 1 } else { n as u64 };
            }
            (SegValues::None, _) => {}
        }
        Ok(())
    }
}
