//! moving_avg (OpenSearch's deprecated `MovAvgPipelineAggregator`, still registered): for each
//! bucket with a value, the model's prediction from the up to `window` values before it. Models:
//! simple, linear, ewma, holt, holt_winters with their `settings` (mov_avg_model.rs).
//!
//! `predict: n` gives the model's next `n` values after the last bucket with a value: the buckets
//! after it get them, and past the end new buckets are appended (keys from the histogram's
//! `nextKey`, doc count 0, only the moving_avg value). `minimize` fits the model's parameters
//! first (simulated annealing over the last `2 * window` values; Holt-Winters by default), with
//! a fixed-seed generator where OpenSearch uses `Math.random()`.

use std::collections::VecDeque;

use serde_json::{Map, Value};

use super::super::fmt::Fmt;
use super::super::result::{AggResult, Bucket, Key};
use super::super::source::token;
use super::super::{AggDef, AggSpec, Collector, PipelineCtx, ReduceCtx, RenderCtx, ShardEnv};
pub use super::mov_avg_model::Model;
use super::{absent, render_value, series_values, split, value_result, GapPolicy, PipelineCollector};
use crate::error::{ErrorKind, OsError, OsResult};

/// The warning OpenSearch sends with every moving_avg request.
pub const DEPRECATION: &str = "The moving_avg aggregation has been deprecated in favor of the moving_fn aggregation.";

#[derive(Debug, Clone)]
pub struct MovAvgSpec {
    pub path: Vec<String>,
    pub fmt: Fmt,
    pub gap: GapPolicy,
    pub window: usize,
    pub model: Model,
    pub minimize: Option<bool>,
    /// The number of predicted values (0: none).
    pub predict: usize,
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
        let mut predict = 0;
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
                    predict = usize::try_from(p).unwrap_or(usize::MAX).min(i32::MAX as usize);
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
        Ok(MovAvgSpec { path: paths, fmt, gap, window: window as usize, model, minimize, predict })
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
        if self.minimize == Some(true) && !self.model.can_be_minimized() {
            // OpenSearch prints the model with Java's default `toString` (class@hashCode, and
            // both models' hashCode is 0).
            let class = if self.model == Model::Simple { "SimpleModel" } else { "LinearModel" };
            errors.push(format!(
                "The [org.opensearch.search.aggregations.pipeline.{class}@0] model cannot be minimized for aggregation [{}]",
                def.name
            ));
        }
        super::validate_sequential("moving_avg", &def.name, parent, errors);
    }

    fn run_pipeline(&self, _def: &AggDef, ctx: &mut PipelineCtx<'_>) -> OsResult<()> {
        let at = ctx.at;
        let interval = ctx.parent_interval.clone();
        let Some((parent, buckets)) = ctx.parent.as_mut() else { return Ok(()) };
        let path = split(&self.path[0]);
        let values: Vec<Option<f64>> =
            series_values(parent, buckets, &path, self.gap)?.into_iter().map(|v| v.filter(|v| !v.is_nan())).collect();
        let model = if self.minimize.unwrap_or_else(|| self.model.minimize_by_default()) {
            self.fit(&values)?
        } else {
            self.model.clone()
        };
        let mut window: VecDeque<f64> = VecDeque::with_capacity(self.window);
        let mut last_valid: Option<usize> = None;
        for (i, v) in values.iter().enumerate() {
            let Some(v) = *v else { continue };
            if model.has_value(window.len()) {
                let vals: Vec<f64> = window.iter().copied().collect();
                let r = value_result(model.next(&vals)?);
                if let Some(slot) = buckets[i].subs.get_mut(at) {
                    *slot = r;
                }
            }
            last_valid = Some(i);
            if window.len() == self.window {
                window.pop_front();
            }
            window.push_back(v);
        }
        if buckets.is_empty() || self.predict == 0 {
            return Ok(());
        }
        // OpenSearch starts from key 0 and position 0 when no bucket had a value.
        let (mut key, pos) = match last_valid {
            Some(i) => (buckets[i].key.clone(), i),
            None => (if matches!(buckets[0].key, Key::Long(_)) { Key::Long(0) } else { Key::Double(0.0) }, 0),
        };
        let vals: Vec<f64> = window.iter().copied().collect();
        let n_subs = parent.subs.len();
        for (i, p) in model.predict(&vals, self.predict)?.into_iter().enumerate() {
            let next = parent.spec.next_key(&key, interval.as_deref()).ok_or_else(|| {
                OsError::illegal(format!("[{}] cannot give the key after a bucket", parent.spec.type_name()))
            })?;
            match buckets.get_mut(pos + i + 1) {
                Some(b) => {
                    b.key = next.clone();
                    if let Some(slot) = b.subs.get_mut(at) {
                        *slot = value_result(p);
                    }
                }
                None => {
                    let mut subs = vec![absent(); n_subs];
                    if let Some(slot) = subs.get_mut(at) {
                        *slot = value_result(p);
                    }
                    buckets.push(Bucket::new(next.clone(), 0, subs));
                }
            }
            key = next;
        }
        Ok(())
    }
}

impl MovAvgSpec {
    /// `MovAvgPipelineAggregator.minimize`: the last `window` values are the test set, the
    /// `window` before them the training set; with fewer, the model as given.
    fn fit(&self, values: &[Option<f64>]) -> OsResult<Model> {
        let valid: Vec<f64> = values.iter().flatten().copied().collect();
        if valid.len() < 2 * self.window {
            return Ok(self.model.clone());
        }
        let test = &valid[valid.len() - self.window..];
        let train = &valid[valid.len() - 2 * self.window..valid.len() - self.window];
        self.model.minimize(train, test)
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
        assert_eq!(parse(json!({"buckets_path": "x", "predict": 2})).unwrap().predict, 2);
        assert!(parse(json!({"buckets_path": "x", "predict": 0})).is_err());
        assert_eq!(
            parse(json!({"buckets_path": "x", "model": "ewma", "minimize": true})).unwrap().minimize,
            Some(true)
        );
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
