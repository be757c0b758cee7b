//! moving_avg (OpenSearch's deprecated `MovAvgPipelineAggregator`, still registered): for each
//! bucket with a value, the model's prediction from the up to `window` values before it. Models:
//! simple, linear, ewma, holt, holt_winters with their `settings`. `predict` (extrapolated
//! buckets) and `minimize` (simulated annealing, random) are refused with a 400.

use std::collections::VecDeque;

use serde_json::{Map, Value};

use super::super::fmt::Fmt;
use super::super::result::AggResult;
use super::super::source::token;
use super::super::{AggDef, AggSpec, Collector, PipelineCtx, ReduceCtx, RenderCtx, ShardEnv};
use super::moving;
use super::{absent, bucket_value, render_value, split, value_result, GapPolicy, PipelineCollector};
use crate::error::{ErrorKind, OsError, OsResult};

/// The warning OpenSearch sends with every moving_avg request.
pub const DEPRECATION: &str = "The moving_avg aggregation has been deprecated in favor of the moving_fn aggregation.";

#[derive(Debug, Clone, PartialEq)]
pub enum Model {
    Simple,
    Linear,
    Ewma { alpha: f64 },
    Holt { alpha: f64, beta: f64 },
    HoltWinters { alpha: f64, beta: f64, gamma: f64, period: i64, mult: bool, pad: bool },
}

impl Model {
    fn name(&self) -> &'static str {
        match self {
            Model::Simple => "simple",
            Model::Linear => "linear",
            Model::Ewma { .. } => "ewma",
            Model::Holt { .. } => "holt",
            Model::HoltWinters { .. } => "holt_winters",
        }
    }

    /// Parses a model and its settings (OpenSearch's model parsers).
    fn parse(name: &str, settings: Option<&Map<String, Value>>) -> Result<Model, String> {
        let mut s = settings.cloned().unwrap_or_default();
        let mut double = |k: &str, default: f64| -> Result<f64, String> {
            match s.remove(k) {
                None => Ok(default),
                Some(Value::Number(n)) => {
                    let v = n.as_f64().unwrap_or(f64::NAN);
                    if (0.0..=1.0).contains(&v) {
                        Ok(v)
                    } else {
                        Err(format!("Parameter [{k}] must be between 0-1 inclusive.  Provided value was [{v}]"))
                    }
                }
                Some(other) => {
                    Err(format!("Parameter [{k}] must be a double, type `{}` provided instead", java_type(&other)))
                }
            }
        };
        let model = match name {
            "simple" => Model::Simple,
            "linear" => Model::Linear,
            "ewma" => Model::Ewma { alpha: double("alpha", 0.3)? },
            "holt" => Model::Holt { alpha: double("alpha", 0.3)?, beta: double("beta", 0.1)? },
            _ => {
                let (alpha, beta, gamma) = (double("alpha", 0.3)?, double("beta", 0.1)?, double("gamma", 0.3)?);
                let period = match s.remove("period") {
                    None => 1,
                    Some(Value::Number(n)) if n.as_i64().is_some() => n.as_i64().unwrap_or(1),
                    Some(other) => {
                        return Err(format!(
                            "Parameter [period] must be an integer, type `{}` provided instead",
                            java_type(&other)
                        ))
                    }
                };
                let mult = match s.remove("type") {
                    None => false,
                    Some(Value::String(t)) if t == "add" => false,
                    Some(Value::String(t)) if t == "mult" => true,
                    Some(other) => return Err(format!("Unknown value [{other}] for seasonality type [type]")),
                };
                let pad = match s.remove("pad") {
                    None => true,
                    Some(Value::Bool(b)) => b,
                    Some(other) => {
                        return Err(format!(
                            "Parameter [pad] must be a boolean, type `{}` provided instead",
                            java_type(&other)
                        ))
                    }
                };
                Model::HoltWinters { alpha, beta, gamma, period, mult, pad }
            }
        };
        if !s.is_empty() {
            let keys: Vec<&str> = s.keys().map(String::as_str).collect();
            return Err(format!("Unrecognized parameter(s): [[{}]]", keys.join(", ")));
        }
        Ok(model)
    }

    /// Whether the model gives a value with `n` values available.
    fn has_value(&self, n: usize) -> bool {
        match self {
            Model::HoltWinters { period, .. } => n as i64 >= period * 2,
            _ => n > 0,
        }
    }

    fn next(&self, values: &[f64]) -> OsResult<f64> {
        Ok(match *self {
            Model::Simple => moving::unweighted_avg(values),
            Model::Linear => moving::linear_weighted_avg(values),
            Model::Ewma { alpha } => moving::ewma(values, alpha),
            Model::Holt { alpha, beta } => moving::holt(values, alpha, beta),
            Model::HoltWinters { alpha, beta, gamma, period, mult, pad } => {
                let padding = if mult && pad { 0.000_000_000_1 } else { 0.0 };
                moving::holt_winters_padded(values, alpha, beta, gamma, period, padding, mult)?
            }
        })
    }
}

fn java_type(v: &Value) -> &'static str {
    match v {
        Value::String(_) => "String",
        Value::Bool(_) => "Boolean",
        Value::Number(n) if n.is_i64() => "Integer",
        Value::Number(_) => "Double",
        Value::Array(_) => "ArrayList",
        Value::Object(_) => "HashMap",
        Value::Null => "null",
    }
}

#[derive(Debug, Clone)]
pub struct MovAvgSpec {
    pub path: Vec<String>,
    pub fmt: Fmt,
    pub gap: GapPolicy,
    pub window: usize,
    pub model: Model,
    pub minimize: Option<bool>,
}

impl MovAvgSpec {
    pub fn parse(name: &str, body: &Map<String, Value>) -> OsResult<MovAvgSpec> {
        let mut paths: Option<Vec<String>> = None;
        let mut fmt = Fmt::Raw;
        let mut gap = GapPolicy::Skip;
        let mut window: i64 = 5;
        let mut model_name: Option<String> = None;
        let mut settings = None;
        let mut minimize = None;
        let unknown =
            |k: &str, v: &Value| OsError::parsing(format!("Unknown key for a {} in [{name}]: [{k}].", token(v)));
        for (k, v) in body {
            match (k.as_str(), v) {
                ("window", Value::Number(n)) => {
                    window = n.as_i64().unwrap_or(n.as_f64().unwrap_or(0.0) as i64);
                    if window <= 0 {
                        return Err(OsError::parsing(format!(
                            "[window] value must be a positive, non-zero integer.  Value supplied was [null] in [{name}]."
                        )));
                    }
                }
                ("predict", Value::Number(n)) => {
                    let p = n.as_i64().unwrap_or(n.as_f64().unwrap_or(0.0) as i64);
                    if p <= 0 {
                        return Err(OsError::parsing(format!(
                            "[predict] value must be a positive integer.  Value supplied was [{p}] in [{name}]."
                        )));
                    }
                    return Err(OsError::new(
                        ErrorKind::IllegalArgument,
                        format!("[predict] of moving_avg aggregation [{name}] is not supported by this node"),
                    ));
                }
                ("format", Value::String(_)) => fmt = super::parse_format(v, name)?,
                ("buckets_path", Value::String(s)) => paths = Some(vec![s.clone()]),
                ("buckets_path", Value::Array(_)) => {
                    paths = Some(super::parse_paths(v, name, false)?.into_iter().map(|(_, p)| p).collect())
                }
                ("gap_policy", Value::String(_)) => gap = GapPolicy::parse(v, name)?,
                ("model", Value::String(s)) => model_name = Some(s.clone()),
                ("settings", Value::Object(m)) => settings = Some(m.clone()),
                ("minimize", Value::Bool(b)) => minimize = Some(*b),
                (_, Value::Null) => return Err(OsError::parsing(format!("Unexpected token VALUE_NULL in [{name}]."))),
                _ => return Err(unknown(k, v)),
            }
        }
        let Some(paths) = paths else {
            return Err(OsError::parsing(format!(
                "Missing required field [buckets_path] for movingAvg aggregation [{name}]"
            )));
        };
        if paths.len() != 1 {
            return Err(OsError::validation(&[format!(
                "buckets_path must contain a single entry for aggregation [{name}]"
            )]));
        }
        let model = match model_name.as_deref() {
            None => Model::Simple,
            Some(m @ ("simple" | "linear" | "ewma" | "holt" | "holt_winters")) => Model::parse(m, settings.as_ref())
                .map_err(|e| {
                    OsError::parsing(format!("Could not parse settings for model [{m}]."))
                        .caused_by(OsError::new(ErrorKind::Parse, e))
                })?,
            Some(m) => return Err(OsError::parsing(format!("no [movavg_model] registered for [{m}]"))),
        };
        if let Model::HoltWinters { period, .. } = model {
            if window <= 2 * period {
                return Err(OsError::illegal(format!(
                    "Field [window] must be at least twice as large as the period when using Holt-Winters.  Value provided for [window] was [{window}] and [period] was [{period}] in moving_avg aggregation [{name}]"
                )));
            }
        }
        if minimize == Some(true)
            && matches!(model, Model::Ewma { .. } | Model::Holt { .. } | Model::HoltWinters { .. })
        {
            return Err(OsError::illegal(format!(
                "[minimize] of moving_avg aggregation [{name}] is not supported by this node"
            )));
        }
        Ok(MovAvgSpec { path: paths, fmt, gap, window: window as usize, model, minimize })
    }
}

impl AggSpec for MovAvgSpec {
    fn type_name(&self) -> &'static str {
        "moving_avg"
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
        if let AggResult::Value { value, .. } = r {
            render_value(*value, &self.fmt, &mut m);
        }
        Ok(m)
    }

    fn typed_name(&self, _r: &AggResult) -> &'static str {
        "simple_value"
    }

    fn property(&self, def: &AggDef, r: &AggResult, path: &[String]) -> OsResult<f64> {
        let value = if let AggResult::Value { value, .. } = r { value.unwrap_or(f64::NAN) } else { f64::NAN };
        match path {
            [] => Ok(value),
            [p] if p == "value" => Ok(value),
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
        self.path.clone()
    }

    fn validate_pipeline(&self, def: &AggDef, _siblings: &[AggDef], parent: Option<&AggDef>, errors: &mut Vec<String>) {
        if self.minimize == Some(true) && matches!(self.model, Model::Simple | Model::Linear) {
            errors.push(format!(
                "The [{}] model cannot be minimized for aggregation [{}]",
                self.model.name(),
                def.name
            ));
        }
        super::validate_sequential("moving_avg", &def.name, parent, errors);
    }

    fn run_pipeline(&self, _def: &AggDef, ctx: &mut PipelineCtx<'_>) -> OsResult<()> {
        let at = ctx.at;
        let Some((parent, buckets)) = ctx.parent.as_mut() else { return Ok(()) };
        let path = split(&self.path[0]);
        let mut window: VecDeque<f64> = VecDeque::with_capacity(self.window);
        for i in 0..buckets.len() {
            let v = bucket_value(parent, &buckets[i], &path, self.gap)?;
            let Some(v) = v.filter(|v| !v.is_nan()) else { continue };
            if self.model.has_value(window.len()) {
                let vals: Vec<f64> = window.iter().copied().collect();
                let r = value_result(self.model.next(&vals)?);
                if let Some(slot) = buckets[i].subs.get_mut(at) {
                    *slot = r;
                }
            }
            if window.len() == self.window {
                window.pop_front();
            }
            window.push_back(v);
        }
        Ok(())
    }
}

/// The warnings a parsed `aggs` tree gives (moving_avg's deprecation).
pub fn deprecations(defs: &[AggDef], out: &mut Vec<&'static str>) {
    for d in defs {
        if d.spec.type_name() == "moving_avg" && !out.contains(&DEPRECATION) {
            out.push(DEPRECATION);
        }
        deprecations(&d.subs, out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn parse(v: Value) -> OsResult<MovAvgSpec> {
        MovAvgSpec::parse("m", v.as_object().unwrap())
    }

    #[test]
    fn parses_models_and_refuses_what_it_cannot_do() {
        let s = parse(json!({"buckets_path": "x", "model": "holt", "settings": {"alpha": 0.5}})).unwrap();
        assert_eq!(s.model, Model::Holt { alpha: 0.5, beta: 0.1 });
        assert_eq!(s.window, 5);
        let e = parse(json!({"buckets_path": "x", "model": "ewma", "settings": {"alpha": 2}})).unwrap_err();
        assert_eq!(e.reason, "Could not parse settings for model [ewma].");
        let e = parse(json!({"buckets_path": "x", "model": "simple", "settings": {"alpha": 0.5}})).unwrap_err();
        assert!(e.caused_by.unwrap().reason.starts_with("Unrecognized parameter(s)"));
        assert!(parse(json!({"buckets_path": "x", "predict": 2})).is_err());
        assert!(parse(json!({"buckets_path": "x", "model": "ewma", "minimize": true})).is_err());
        assert!(parse(json!({"buckets_path": "x", "model": "holt_winters", "settings": {"period": 3}})).is_err());
        assert!(parse(json!({"buckets_path": "x", "model": "nope"})).is_err());
    }

    #[test]
    fn models_predict_from_the_values_before() {
        assert_eq!(Model::Simple.next(&[1.0, 2.0, 3.0]).unwrap(), 2.0);
        assert!(!Model::Simple.has_value(0));
        let hw = Model::HoltWinters { alpha: 0.5, beta: 0.5, gamma: 0.5, period: 2, mult: false, pad: true };
        assert!(!hw.has_value(3) && hw.has_value(4));
        assert!(hw.next(&[1.0, 2.0, 1.0, 2.0]).unwrap().is_finite());
    }
}
