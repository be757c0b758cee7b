//! Parent pipelines over the ordered buckets of a histogram (OpenSearch's
//! `DerivativePipelineAggregator`, `CumulativeSumPipelineAggregator`,
//! `SerialDiffPipelineAggregator`, `MovFnPipelineAggregator`): each adds a value to the buckets
//! it computes one for.

use std::collections::VecDeque;

use serde_json::{json, Map, Value};

use super::super::fmt::{double, Fmt};
use super::super::result::AggResult;
use super::super::source::token;
use super::super::{AggDef, AggSpec, Collector, PipelineCtx, ReduceCtx, RenderCtx, ShardEnv};
use super::moving::MovingScript;
use super::{absent, is_absent, render_value, series_values, split, value_result, GapPolicy, PipelineCollector};
use crate::error::{OsError, OsResult};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Derivative,
    CumulativeSum,
    SerialDiff,
    MovingFn,
}

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Kind::Derivative => "derivative",
            Kind::CumulativeSum => "cumulative_sum",
            Kind::SerialDiff => "serial_diff",
            Kind::MovingFn => "moving_fn",
        }
    }
}

#[derive(Debug, Clone)]
pub struct SequenceSpec {
    pub kind: Kind,
    pub paths: Vec<String>,
    pub fmt: Fmt,
    pub gap: GapPolicy,
    /// derivative: the x-axis unit in milliseconds (`unit`).
    pub unit: Option<f64>,
    /// serial_diff.
    pub lag: usize,
    /// moving_fn.
    pub window: i64,
    pub shift: i64,
    pub script: Option<MovingScript>,
}

fn int(k: &str, name: &str, v: &Value) -> OsResult<i64> {
    match v {
        Value::Number(n) => n
            .as_i64()
            .or_else(|| n.as_f64().filter(|f| f.fract() == 0.0).map(|f| f as i64))
            .ok_or_else(|| OsError::parsing(format!("[{k}] in [{name}] must be an integer"))),
        Value::String(s) => s.trim().parse().map_err(|_| OsError::illegal(format!("For input string: \"{s}\""))),
        _ => Err(OsError::parsing(format!("[{k}] in [{name}] doesn't support values of type: {}", token(v)))),
    }
}

/// The milliseconds of a derivative `unit`: a calendar unit or a time value.
fn parse_unit(s: &str) -> OsResult<f64> {
    let ms = match s {
        "year" | "1y" => 31_556_952_000.0,
        "quarter" | "1q" => 7_889_238_000.0,
        "month" | "1M" => 2_629_746_000.0,
        "week" | "1w" => 604_800_000.0,
        "day" | "1d" => 86_400_000.0,
        "hour" | "1h" => 3_600_000.0,
        "minute" | "1m" => 60_000.0,
        "second" | "1s" => 1_000.0,
        _ => {
            let d = crate::cluster::settings::parse_time(s, "DerivativePipelineAggregationBuilder.unit")?;
            d.map_or(-1.0, |d| d.as_secs_f64() * 1000.0)
        }
    };
    Ok(ms)
}

impl SequenceSpec {
    pub fn parse(t: &str, name: &str, body: &Map<String, Value>) -> OsResult<SequenceSpec> {
        let kind = match t {
            "derivative" => Kind::Derivative,
            "cumulative_sum" => Kind::CumulativeSum,
            "serial_diff" => Kind::SerialDiff,
            _ => Kind::MovingFn,
        };
        let mut spec = SequenceSpec {
            kind,
            paths: Vec::new(),
            fmt: Fmt::Raw,
            gap: GapPolicy::Skip,
            unit: None,
            lag: 1,
            window: 0,
            shift: 0,
            script: None,
        };
        let mut have = (false, false, false); // buckets_path, script, window
        let mut script_body = None;
        for (k, v) in body {
            match (kind, k.as_str()) {
                (Kind::MovingFn, "buckets_path") => match v {
                    Value::String(s) => {
                        spec.paths = vec![s.clone()];
                        have.0 = true;
                    }
                    _ => {
                        return Err(OsError::parsing(format!(
                            "[moving_fn] buckets_path doesn't support values of type: {}",
                            token(v)
                        )))
                    }
                },
                (_, "buckets_path") => {
                    spec.paths = super::parse_paths(v, name, false)?.into_iter().map(|(_, p)| p).collect();
                    have.0 = true;
                }
                (_, "format") => spec.fmt = super::parse_format(v, name)?,
                (Kind::Derivative | Kind::SerialDiff | Kind::MovingFn, "gap_policy") => {
                    spec.gap = GapPolicy::parse(v, name)?
                }
                (Kind::Derivative, "unit") => match v.as_str() {
                    Some(s) => spec.unit = Some(parse_unit(s)?).filter(|u| *u > 0.0),
                    None => return Err(super::unknown_key(name, k, v)),
                },
                (Kind::SerialDiff, "lag") => {
                    let lag = int(k, name, v)?;
                    if lag <= 0 {
                        return Err(OsError::parsing(format!(
                            "Lag must be a positive, non-zero integer.  Value supplied was{lag} in [{name}]: [lag]."
                        )));
                    }
                    spec.lag = lag as usize;
                }
                (Kind::MovingFn, "script") => {
                    script_body = Some(v.clone());
                    have.1 = true;
                }
                (Kind::MovingFn, "window") => {
                    spec.window = int(k, name, v)?;
                    have.2 = true;
                }
                (Kind::MovingFn, "shift") => spec.shift = int(k, name, v)?,
                (Kind::MovingFn, _) => {
                    return Err(OsError::parsing(crate::error::unknown_field(
                        "moving_fn",
                        k,
                        &["buckets_path", "script", "window", "shift", "format", "gap_policy"],
                    )))
                }
                _ => return Err(super::unknown_key(name, k, v)),
            }
        }
        if kind == Kind::MovingFn {
            let missing: Vec<&str> = [("buckets_path", have.0), ("script", have.1), ("window", have.2)]
                .iter()
                .filter(|(_, h)| !h)
                .map(|(n, _)| *n)
                .collect();
            if !missing.is_empty() {
                return Err(OsError::illegal(format!("Required [{}]", missing.join(", "))));
            }
            if spec.window <= 0 {
                return Err(OsError::illegal("[window] must be a positive, non-zero integer."));
            }
            spec.script = Some(MovingScript::parse(script_body.as_ref().unwrap_or(&Value::Null))?);
        } else if !have.0 {
            return Err(OsError::parsing(format!(
                "Missing required field [buckets_path] for {t} aggregation [{name}]"
            )));
        }
        Ok(spec)
    }

    /// The values this pipeline adds to `values`' buckets (`None`: the bucket gets nothing).
    fn compute(&self, values: &[Option<f64>], keys: &[f64]) -> OsResult<Vec<Option<AggResult>>> {
        let mut out = Vec::with_capacity(values.len());
        match self.kind {
            Kind::Derivative => {
                let mut last: Option<(f64, f64)> = None;
                for (v, k) in values.iter().zip(keys) {
                    match (last, v) {
                        (Some((lv, lk)), Some(v)) => {
                            let xdiff = self.unit.map_or(-1.0, |u| (k - lk) / u);
                            out.push(Some(AggResult::Json(json!({"value": double(v - lv), "factor": xdiff}))));
                        }
                        _ => out.push(None),
                    }
                    last = v.map(|v| (v, *k));
                }
            }
            Kind::CumulativeSum => {
                let mut sum = 0.0;
                for v in values {
                    if let Some(v) = v.filter(|v| v.is_finite()) {
                        sum += v;
                    }
                    out.push(Some(value_result(sum)));
                }
            }
            Kind::SerialDiff => {
                let mut window: VecDeque<f64> = VecDeque::with_capacity(self.lag);
                for (i, v) in values.iter().enumerate() {
                    let this = v.unwrap_or(f64::NAN);
                    let lagged = if i < self.lag { f64::NAN } else { window.front().copied().unwrap_or(f64::NAN) };
                    if !this.is_nan() && !lagged.is_nan() {
                        out.push(Some(value_result(this - lagged)));
                    } else {
                        out.push(None);
                    }
                    if window.len() == self.lag {
                        window.pop_front();
                    }
                    window.push_back(this);
                }
            }
            Kind::MovingFn => {
                let script = self.script.as_ref().ok_or_else(|| OsError::internal("moving_fn without a script"))?;
                let all: Vec<f64> = values.iter().flatten().copied().filter(|v| !v.is_nan()).collect();
                let clamp = |i: i64| i.clamp(0, all.len() as i64) as usize;
                let mut index: i64 = 0;
                for v in values {
                    if v.is_some_and(|v| !v.is_nan()) {
                        let from = clamp(index - self.window + self.shift);
                        let to = clamp(index + self.shift);
                        let window = if from < to { &all[from..to] } else { &[][..] };
                        out.push(Some(value_result(script.execute(window)?)));
                        index += 1;
                    } else {
                        out.push(None);
                    }
                }
            }
        }
        Ok(out)
    }
}

impl AggSpec for SequenceSpec {
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

    fn render(&self, _def: &AggDef, r: &AggResult, _rc: &RenderCtx) -> OsResult<Map<String, Value>> {
        let mut m = Map::new();
        match r {
            AggResult::Value { value, .. } => render_value(*value, &self.fmt, &mut m),
            AggResult::Json(v) => {
                let value = v["value"].as_f64();
                render_value(value, &self.fmt, &mut m);
                let factor = v["factor"].as_f64().unwrap_or(-1.0);
                if factor > 0.0 {
                    let n = value.map(|x| x / factor).filter(|x| x.is_finite());
                    m.insert("normalized_value".into(), n.map_or(Value::Null, double));
                    if let Some(s) = n.and_then(|x| self.fmt.number_string(x)).filter(|_| !self.fmt.is_raw()) {
                        m.insert("normalized_value_as_string".into(), json!(s));
                    }
                }
            }
            _ => return Err(OsError::internal("pipeline result of another kind")),
        }
        Ok(m)
    }

    fn typed_name(&self, _r: &AggResult) -> &'static str {
        match self.kind {
            Kind::Derivative => "derivative",
            _ => "simple_value",
        }
    }

    fn property(&self, def: &AggDef, r: &AggResult, path: &[String]) -> OsResult<f64> {
        let value = match r {
            AggResult::Value { value, .. } => value.unwrap_or(f64::NAN),
            AggResult::Json(v) if !is_absent(r) => v["value"].as_f64().unwrap_or(f64::NAN),
            _ => f64::NAN,
        };
        match path {
            [] => Ok(value),
            [p] if p == "value" => Ok(value),
            [p] if p == "normalized_value" && self.kind == Kind::Derivative => {
                let factor = if let AggResult::Json(v) = r { v["factor"].as_f64().unwrap_or(-1.0) } else { -1.0 };
                Ok(if factor > 0.0 { value / factor } else { value })
            }
            _ => Err(OsError::illegal(format!("path not supported for [{}]: {:?}", def.name, path))),
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

    fn validate_pipeline(&self, def: &AggDef, _siblings: &[AggDef], parent: Option<&AggDef>, errors: &mut Vec<String>) {
        if self.paths.len() != 1 {
            errors.push(format!("buckets_path must contain a single entry for aggregation [{}]", def.name));
        }
        super::validate_sequential(self.kind.name(), &def.name, parent, errors);
    }

    fn run_pipeline(&self, _def: &AggDef, ctx: &mut PipelineCtx<'_>) -> OsResult<()> {
        let at = ctx.at;
        let Some((parent, buckets)) = ctx.parent.as_mut() else { return Ok(()) };
        let path = split(&self.paths[0]);
        let gap = if self.kind == Kind::CumulativeSum { GapPolicy::InsertZeros } else { self.gap };
        let values = series_values(parent, buckets, &path, gap)?;
        let keys: Vec<f64> = buckets.iter().map(|b| b.key.as_f64()).collect();
        for (b, r) in buckets.iter_mut().zip(self.compute(&values, &keys)?) {
            if let (Some(r), Some(slot)) = (r, b.subs.get_mut(at)) {
                *slot = r;
            }
        }
        Ok(())
    }
}
