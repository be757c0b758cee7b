//! Sibling pipelines over the buckets of a multi-bucket aggregation (OpenSearch's
//! `BucketMetricsPipelineAggregator` family): avg_bucket, sum_bucket, min_bucket, max_bucket,
//! stats_bucket, extended_stats_bucket and percentiles_bucket.

use serde_json::{json, Map, Value};

use super::super::fmt::{double, java_double, Fmt};
use super::super::metric::{Metric, MetricSpec};
use super::super::result::{AggResult, Stats};
use super::super::source::{token, SourceSpec};
use super::super::{AggDef, AggSpec, Collector, PipelineCtx, ReduceCtx, RenderCtx, ShardEnv};
use super::{absent, bucket_value, builder_class, is_absent, render_value, split, GapPolicy, PipelineCollector};
use crate::error::{OsError, OsResult};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Avg,
    Sum,
    Min,
    Max,
    Stats,
    ExtendedStats,
    Percentiles,
}

impl Kind {
    fn from_name(t: &str) -> Kind {
        match t {
            "avg_bucket" => Kind::Avg,
            "sum_bucket" => Kind::Sum,
            "min_bucket" => Kind::Min,
            "max_bucket" => Kind::Max,
            "stats_bucket" => Kind::Stats,
            "extended_stats_bucket" => Kind::ExtendedStats,
            _ => Kind::Percentiles,
        }
    }

    fn name(self) -> &'static str {
        match self {
            Kind::Avg => "avg_bucket",
            Kind::Sum => "sum_bucket",
            Kind::Min => "min_bucket",
            Kind::Max => "max_bucket",
            Kind::Stats => "stats_bucket",
            Kind::ExtendedStats => "extended_stats_bucket",
            Kind::Percentiles => "percentiles_bucket",
        }
    }
}

/// The default percents of percentiles_bucket.
const DEFAULT_PERCENTS: [f64; 7] = [1.0, 5.0, 25.0, 50.0, 75.0, 95.0, 99.0];

/// A sibling bucket-metrics pipeline.
#[derive(Debug, Clone)]
pub struct BucketMetricsSpec {
    pub kind: Kind,
    pub paths: Vec<String>,
    pub fmt: Fmt,
    pub gap: GapPolicy,
    /// extended_stats_bucket.
    pub sigma: f64,
    /// percentiles_bucket.
    pub percents: Vec<f64>,
    pub keyed: bool,
}

impl BucketMetricsSpec {
    /// Parses the body (OpenSearch's `BucketMetricsParser`).
    pub fn parse(t: &str, name: &str, body: &Map<String, Value>) -> OsResult<BucketMetricsSpec> {
        let kind = Kind::from_name(t);
        let mut spec = BucketMetricsSpec {
            kind,
            paths: Vec::new(),
            fmt: Fmt::Raw,
            gap: GapPolicy::Skip,
            sigma: 2.0,
            percents: DEFAULT_PERCENTS.to_vec(),
            keyed: true,
        };
        let mut have_paths = false;
        let unexpected =
            |k: &str, v: &Value| OsError::parsing(format!("Unexpected token {} [{k}] in [{name}]", token(v)));
        for (k, v) in body {
            match (k.as_str(), v) {
                ("buckets_path", Value::String(_) | Value::Array(_)) => {
                    spec.paths = super::parse_paths(v, name, false)?.into_iter().map(|(_, p)| p).collect();
                    have_paths = true;
                }
                ("format", Value::String(_)) => spec.fmt = super::parse_format(v, name)?,
                ("gap_policy", Value::String(_)) => spec.gap = GapPolicy::parse(v, name)?,
                ("sigma", Value::Number(n)) if kind == Kind::ExtendedStats => {
                    let s = n.as_f64().unwrap_or(f64::NAN);
                    if s.is_nan() || s < 0.0 {
                        return Err(OsError::illegal(format!(
                            "[sigma] must be greater than or equal to 0. Found [{s}] in [{name}]"
                        )));
                    }
                    spec.sigma = s;
                }
                ("percents", Value::Array(a)) if kind == Kind::Percentiles => {
                    let mut ps = Vec::with_capacity(a.len());
                    for p in a {
                        let x = p
                            .as_f64()
                            .or_else(|| p.as_str().and_then(|s| s.parse().ok()))
                            .ok_or_else(|| unexpected(k, p))?;
                        if !(0.0..=100.0).contains(&x) {
                            return Err(OsError::illegal(
                                "percents must only contain non-null doubles from 0.0-100.0 inclusive",
                            ));
                        }
                        ps.push(x);
                    }
                    spec.percents = ps;
                }
                ("keyed", Value::Bool(b)) if kind == Kind::Percentiles => spec.keyed = *b,
                _ => return Err(unexpected(k, v)),
            }
        }
        if !have_paths {
            return Err(OsError::parsing(format!("Missing required field [buckets_path] for aggregation [{name}]")));
        }
        Ok(spec)
    }

    fn metric(&self) -> MetricSpec {
        MetricSpec {
            metric: if self.kind == Kind::ExtendedStats { Metric::ExtendedStats } else { Metric::Stats },
            source: SourceSpec::default(),
            sigma: self.sigma,
        }
    }

    /// The values of the buckets `buckets_path` reaches, with their keys.
    fn values(&self, ctx: &PipelineCtx<'_>) -> OsResult<Vec<(String, f64)>> {
        let path = split(&self.paths[0]);
        let mut out = Vec::new();
        let Some(i) = ctx.siblings.iter().position(|d| d.name == path[0]) else { return Ok(out) };
        let def = &ctx.siblings[i];
        match ctx.results.get(i) {
            Some(AggResult::Buckets(b)) => {
                for bucket in &b.buckets {
                    if let Some(v) = bucket_value(def, bucket, &path[1..], self.gap)? {
                        if !v.is_nan() {
                            out.push((b.fmt.key_string(&bucket.key), v));
                        }
                    }
                }
            }
            _ => {
                return Err(OsError::illegal(format!(
                    "buckets_path must reference a multi-bucket aggregation, [{}] is not one",
                    def.name
                )))
            }
        }
        Ok(out)
    }

    fn compute(&self, vals: &[(String, f64)]) -> AggResult {
        match self.kind {
            Kind::Avg => {
                let mut s = super::super::result::KahanSum::default();
                vals.iter().for_each(|(_, v)| s.add(*v));
                super::value_result(if vals.is_empty() { f64::NAN } else { s.value / vals.len() as f64 })
            }
            Kind::Sum => {
                let mut s = super::super::result::KahanSum::default();
                vals.iter().for_each(|(_, v)| s.add(*v));
                super::value_result(s.value)
            }
            Kind::Min | Kind::Max => {
                let max = self.kind == Kind::Max;
                let mut best = if max { f64::NEG_INFINITY } else { f64::INFINITY };
                let mut keys = Vec::new();
                for (k, v) in vals {
                    if (max && *v > best) || (!max && *v < best) {
                        best = *v;
                        keys.clear();
                        keys.push(k.clone());
                    } else if *v == best {
                        keys.push(k.clone());
                    }
                }
                AggResult::Value { value: Some(best).filter(|x| x.is_finite()), keys }
            }
            Kind::Stats | Kind::ExtendedStats => {
                let mut s = Stats::default();
                for (_, v) in vals {
                    s.add(*v);
                    s.sum_sq.add(v * v);
                }
                AggResult::Stats(s, self.fmt.clone())
            }
            Kind::Percentiles => {
                let mut data: Vec<f64> = vals.iter().map(|(_, v)| *v).collect();
                data.sort_by(f64::total_cmp);
                let results: Vec<Value> = self
                    .percents
                    .iter()
                    .map(|p| {
                        if data.is_empty() {
                            return Value::Null;
                        }
                        let idx = ((p / 100.0) * (data.len() - 1) as f64).round() as usize;
                        double(data[idx.min(data.len() - 1)])
                    })
                    .collect();
                AggResult::Json(json!({ "values": results }))
            }
        }
    }

    fn percentile(&self, r: &AggResult, p: f64) -> OsResult<f64> {
        let Some(i) = self.percents.iter().position(|x| *x == p) else {
            let shown: Vec<String> = self.percents.iter().map(|x| java_double(*x)).collect();
            return Err(OsError::illegal(format!(
                "Percent requested [{}] was not one of the computed percentiles.  Available keys are: [{}]",
                java_double(p),
                shown.join(", ")
            )));
        };
        Ok(match r {
            AggResult::Json(v) => v["values"][i].as_f64().unwrap_or(f64::NAN),
            _ => f64::NAN,
        })
    }
}

impl AggSpec for BucketMetricsSpec {
    fn type_name(&self) -> &'static str {
        self.kind.name()
    }

    fn collector(&self, _def: &AggDef, _env: &ShardEnv<'_>) -> OsResult<Box<dyn Collector>> {
        Ok(Box::new(PipelineCollector))
    }

    fn empty(&self, _def: &AggDef) -> AggResult {
        absent()
    }

    fn reduce(&self, _def: &AggDef, _parts: Vec<AggResult>, _rc: &mut ReduceCtx) -> OsResult<AggResult> {
        Ok(absent())
    }

    fn render(&self, def: &AggDef, r: &AggResult, rc: &RenderCtx) -> OsResult<Map<String, Value>> {
        let mut m = Map::new();
        match (self.kind, r) {
            (Kind::Stats | Kind::ExtendedStats, AggResult::Stats(..)) => return self.metric().render(def, r, rc),
            (Kind::Percentiles, AggResult::Json(v)) => {
                let vals = v["values"].as_array().cloned().unwrap_or_default();
                let with_string = !self.fmt.is_raw();
                if self.keyed {
                    let mut o = Map::new();
                    for (p, x) in self.percents.iter().zip(&vals) {
                        let key = java_double(*p);
                        o.insert(key.clone(), x.clone());
                        if let (Some(f), true) = (x.as_f64(), with_string) {
                            if let Some(s) = self.fmt.number_string(f) {
                                o.insert(format!("{key}_as_string"), json!(s));
                            }
                        }
                    }
                    m.insert("values".into(), Value::Object(o));
                } else {
                    let mut a = Vec::new();
                    for (p, x) in self.percents.iter().zip(&vals) {
                        let mut o = Map::new();
                        o.insert("key".into(), double(*p));
                        o.insert("value".into(), x.clone());
                        if let (Some(f), true) = (x.as_f64(), with_string) {
                            if let Some(s) = self.fmt.number_string(f) {
                                o.insert(format!("{}_as_string", java_double(*p)), json!(s));
                            }
                        }
                        a.push(Value::Object(o));
                    }
                    m.insert("values".into(), Value::Array(a));
                }
            }
            (_, AggResult::Value { value, keys }) => {
                render_value(*value, &self.fmt, &mut m);
                if matches!(self.kind, Kind::Min | Kind::Max) {
                    m.insert("keys".into(), json!(keys));
                }
            }
            _ => return Err(OsError::internal("pipeline result of another kind")),
        }
        Ok(m)
    }

    fn typed_name(&self, _r: &AggResult) -> &'static str {
        match self.kind {
            Kind::Min | Kind::Max => "bucket_metric_value",
            Kind::Avg | Kind::Sum => "simple_value",
            k => k.name(),
        }
    }

    fn property(&self, def: &AggDef, r: &AggResult, path: &[String]) -> OsResult<f64> {
        if is_absent(r) {
            return Ok(f64::NAN);
        }
        match (self.kind, r, path) {
            (Kind::Stats | Kind::ExtendedStats, AggResult::Stats(..), _) => self.metric().property(def, r, path),
            (Kind::Percentiles, _, [p]) => match p.parse::<f64>() {
                Ok(x) => self.percentile(r, x),
                Err(_) => Err(OsError::illegal(format!("Invalid percent [{p}] in [{}]", def.name))),
            },
            (_, AggResult::Value { value, .. }, []) => Ok(value.unwrap_or(f64::NAN)),
            (_, AggResult::Value { value, .. }, [p]) if p == "value" => Ok(value.unwrap_or(f64::NAN)),
            _ => Err(OsError::illegal(format!("path not supported for [{}]: [{}]", def.name, path.join(".")))),
        }
    }

    fn takes_subs(&self) -> bool {
        false
    }

    fn is_pipeline(&self) -> bool {
        true
    }

    fn buckets_paths(&self) -> Vec<String> {
        self.paths.clone()
    }

    fn validate_pipeline(&self, def: &AggDef, siblings: &[AggDef], _parent: Option<&AggDef>, errors: &mut Vec<String>) {
        let name = &def.name;
        if self.paths.len() != 1 {
            errors.push(format!("buckets_path must contain a single entry for aggregation [{name}]"));
            return;
        }
        let path = &self.paths[0];
        let first = path.split(['>', '.']).next().unwrap_or(path);
        let Some(agg) = siblings.iter().find(|d| d.name == first && !d.spec.is_pipeline()) else {
            errors.push(format!("buckets_path aggregation does not exist for aggregation [{name}]: {path}"));
            return;
        };
        if !super::is_multi_bucket(agg.spec.type_name()) {
            errors.push(format!(
                "The first aggregation in buckets_path must be a multi-bucket aggregation for aggregation [{name}] found :{} for buckets path: {path}",
                builder_class(agg.spec.type_name())
            ));
        }
    }

    fn run_pipeline(&self, def: &AggDef, ctx: &mut PipelineCtx<'_>) -> OsResult<()> {
        if ctx.parent.is_some() {
            return Ok(());
        }
        let _ = def;
        let vals = self.values(ctx)?;
        let r = self.compute(&vals);
        if let Some(slot) = ctx.results.get_mut(ctx.at) {
            *slot = r;
        }
        Ok(())
    }
}
