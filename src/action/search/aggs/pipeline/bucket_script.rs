//! Parent pipelines over the buckets of any multi-bucket aggregation: bucket_script (a value per
//! bucket from a script over `buckets_path` variables), bucket_selector (keeps the buckets its
//! script accepts) and bucket_sort (sorts and pages the buckets).

use std::cmp::Ordering;

use serde_json::{Map, Value};

use super::super::fmt::Fmt;
use super::super::result::{AggResult, Bucket};
use super::super::source::token;
use super::super::{AggDef, AggSpec, Collector, PipelineCtx, ReduceCtx, RenderCtx, ShardEnv};
use super::{absent, bucket_value, render_value, split, value_result, GapPolicy, PipelineCollector};
use crate::action::script_glue::search_script_error;
use crate::error::{ErrorKind, OsError, OsResult};
use crate::script::{AggScriptValue, Script};

/// bucket_script or bucket_selector.
#[derive(Debug, Clone)]
pub struct ScriptedSpec {
    /// bucket_selector keeps or drops buckets; bucket_script adds a value.
    pub selector: bool,
    pub paths: Vec<(String, String)>,
    pub script: Script,
    pub params: Map<String, Value>,
    pub fmt: Fmt,
    pub gap: GapPolicy,
}

impl ScriptedSpec {
    pub fn parse(t: &str, name: &str, body: &Map<String, Value>) -> OsResult<ScriptedSpec> {
        let selector = t == "bucket_selector";
        let what = if selector { "bucket_selector" } else { "series_arithmetic" };
        let mut paths = None;
        let mut script = None;
        let mut fmt = Fmt::Raw;
        let mut gap = GapPolicy::Skip;
        for (k, v) in body {
            match k.as_str() {
                "buckets_path" => paths = Some(super::parse_paths(v, name, true)?),
                "script" => {
                    let req = super::script_request(v)?;
                    let compiled = Script::compile_aggregation(&req.source, Some(&req.lang))
                        .map_err(|e| search_script_error(&e))?;
                    script = Some((compiled, req.params));
                }
                "format" if !selector => fmt = super::parse_format(v, name)?,
                "gap_policy" => gap = GapPolicy::parse(v, name)?,
                _ => return Err(super::unknown_key(name, k, v)),
            }
        }
        let Some(paths) = paths else {
            return Err(OsError::parsing(format!(
                "Missing required field [buckets_path] for {what} aggregation [{name}]"
            )));
        };
        let Some((script, params)) = script else {
            return Err(OsError::parsing(format!("Missing required field [script] for {what} aggregation [{name}]")));
        };
        Ok(ScriptedSpec { selector, paths, script, params, fmt, gap })
    }

    fn vars(&self, parent: &AggDef, b: &Bucket) -> OsResult<Option<Vec<(String, Option<f64>)>>> {
        let mut vars = Vec::with_capacity(self.paths.len());
        for (var, path) in &self.paths {
            let v = bucket_value(parent, b, &split(path), self.gap)?;
            if !self.selector && self.gap == GapPolicy::Skip && v.is_none_or(f64::is_nan) {
                return Ok(None);
            }
            vars.push((var.clone(), v));
        }
        Ok(Some(vars))
    }
}

impl AggSpec for ScriptedSpec {
    fn type_name(&self) -> &'static str {
        if self.selector {
            "bucket_selector"
        } else {
            "bucket_script"
        }
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
        self.paths.iter().map(|(_, p)| p.clone()).collect()
    }

    fn validate_pipeline(&self, def: &AggDef, _siblings: &[AggDef], parent: Option<&AggDef>, errors: &mut Vec<String>) {
        super::validate_has_parent(self.type_name(), &def.name, parent, errors);
    }

    fn run_pipeline(&self, def: &AggDef, ctx: &mut PipelineCtx<'_>) -> OsResult<()> {
        let at = ctx.at;
        let Some((parent, buckets)) = ctx.parent.as_mut() else { return Ok(()) };
        let mut keep = Vec::with_capacity(buckets.len());
        for b in buckets.iter_mut() {
            let Some(vars) = self.vars(parent, b)? else {
                keep.push(true);
                continue;
            };
            let out = self.script.execute_aggregation(&self.params, &vars).map_err(|e| search_script_error(&e))?;
            if self.selector {
                match out {
                    AggScriptValue::Bool(k) => keep.push(k),
                    other => {
                        return Err(OsError::new(
                            ErrorKind::AggregationExecution,
                            format!("bucket_selector script for [{}] must return a boolean, got [{other:?}]", def.name),
                        )
                        .status(400))
                    }
                }
                continue;
            }
            keep.push(true);
            match out {
                AggScriptValue::Null => {}
                AggScriptValue::Number(n) => {
                    if let Some(slot) = b.subs.get_mut(at) {
                        *slot = value_result(n);
                    }
                }
                _ => {
                    return Err(OsError::new(
                        ErrorKind::AggregationExecution,
                        format!("series_arithmetic script for reducer [{}] must return a Number", def.name),
                    )
                    .status(400))
                }
            }
        }
        if self.selector {
            let mut it = keep.into_iter();
            buckets.retain(|_| it.next().unwrap_or(true));
        }
        Ok(())
    }
}

/// One `sort` entry of bucket_sort: a path (or `_key`) and whether ascending.
#[derive(Debug, Clone, PartialEq)]
pub struct SortField {
    pub path: String,
    pub asc: bool,
}

#[derive(Debug, Clone)]
pub struct BucketSortSpec {
    pub sorts: Vec<SortField>,
    pub from: usize,
    pub size: Option<usize>,
    pub gap: GapPolicy,
}

fn sort_order(v: &Value) -> OsResult<bool> {
    match v.as_str().map(str::to_ascii_lowercase).as_deref() {
        Some("asc") => Ok(true),
        Some("desc") => Ok(false),
        _ => Err(OsError::illegal(format!("Unknown SortOrder [{}]", v.as_str().unwrap_or(&v.to_string())))),
    }
}

fn parse_sort(v: &Value, out: &mut Vec<SortField>) -> OsResult<()> {
    let field = |path: &str, asc: bool| -> OsResult<SortField> {
        if path == "_score" || path == "_geo_distance" || path == "_script" {
            return Err(OsError::illegal(format!(
                "[bucket_sort] only supports field based sorting; incompatible sort: [{path}]"
            )));
        }
        Ok(SortField { path: path.to_string(), asc })
    };
    match v {
        Value::String(s) => out.push(field(s, true)?),
        Value::Array(a) => {
            for x in a {
                parse_sort(x, out)?;
            }
        }
        Value::Object(m) => {
            for (k, o) in m {
                let asc = match o {
                    Value::String(_) => sort_order(o)?,
                    Value::Object(om) => {
                        let mut asc = true;
                        for (ok, ov) in om {
                            match ok.as_str() {
                                "order" => asc = sort_order(ov)?,
                                _ => return Err(OsError::parsing(format!("[field_sort] unknown field [{ok}]"))),
                            }
                        }
                        asc
                    }
                    _ => return Err(OsError::parsing(format!("unexpected token [{}] in sort [{k}]", token(o)))),
                };
                out.push(field(k, asc)?);
            }
        }
        _ => return Err(OsError::parsing(format!("unexpected token [{}] in [sort]", token(v)))),
    }
    Ok(())
}

impl BucketSortSpec {
    pub fn parse(name: &str, body: &Map<String, Value>) -> OsResult<BucketSortSpec> {
        let _ = name;
        let mut spec = BucketSortSpec { sorts: Vec::new(), from: 0, size: None, gap: GapPolicy::Skip };
        let int = |k: &str, v: &Value| -> OsResult<i64> {
            v.as_i64().or_else(|| v.as_str().and_then(|s| s.trim().parse().ok())).ok_or_else(|| {
                OsError::parsing(format!("[bucket_sort] {k} doesn't support values of type: {}", token(v)))
            })
        };
        for (k, v) in body {
            match k.as_str() {
                "sort" => parse_sort(v, &mut spec.sorts)?,
                "from" => {
                    let n = int(k, v)?;
                    if n < 0 {
                        return Err(OsError::illegal(format!("[from] must be a non-negative integer: [{n}]")));
                    }
                    spec.from = n as usize;
                }
                "size" => {
                    let n = int(k, v)?;
                    if n < 1 {
                        return Err(OsError::illegal(format!("[size] must be a positive integer: [{n}]")));
                    }
                    spec.size = Some(n as usize);
                }
                "gap_policy" => spec.gap = GapPolicy::parse(v, name)?,
                _ => {
                    return Err(OsError::parsing(crate::error::unknown_field(
                        "bucket_sort",
                        k,
                        &["sort", "from", "size", "gap_policy"],
                    )))
                }
            }
        }
        Ok(spec)
    }
}

/// A sort value of one bucket (`None`: no value, sorts last).
fn cmp_values(a: &Option<SortVal>, b: &Option<SortVal>, asc: bool) -> Ordering {
    match (a, b) {
        (None, None) => Ordering::Equal,
        (None, Some(_)) => Ordering::Greater,
        (Some(_), None) => Ordering::Less,
        (Some(x), Some(y)) => {
            let o = match (x, y) {
                (SortVal::Key(x), SortVal::Key(y)) => x.cmp_key(y),
                (SortVal::Num(x), SortVal::Num(y)) => x.total_cmp(y),
                _ => Ordering::Equal,
            };
            if asc {
                o
            } else {
                o.reverse()
            }
        }
    }
}

enum SortVal {
    Key(super::super::result::Key),
    Num(f64),
}

impl AggSpec for BucketSortSpec {
    fn type_name(&self) -> &'static str {
        "bucket_sort"
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

    fn render(&self, _def: &AggDef, _r: &AggResult, _rc: &RenderCtx) -> OsResult<Map<String, Value>> {
        Ok(Map::new())
    }

    fn takes_subs(&self) -> bool {
        false
    }

    fn is_pipeline(&self) -> bool {
        true
    }

    fn buckets_paths(&self) -> Vec<String> {
        self.sorts.iter().map(|s| s.path.clone()).collect()
    }

    fn validate_pipeline(&self, def: &AggDef, _siblings: &[AggDef], parent: Option<&AggDef>, errors: &mut Vec<String>) {
        super::validate_has_parent("bucket_sort", &def.name, parent, errors);
        if self.sorts.is_empty() && self.size.is_none() && self.from == 0 {
            errors.push(format!(
                "[{}] is configured to perform nothing. Please set either of [sort, size, from] to use bucket_sort",
                def.name
            ));
        }
    }

    fn run_pipeline(&self, _def: &AggDef, ctx: &mut PipelineCtx<'_>) -> OsResult<()> {
        let Some((parent, buckets)) = ctx.parent.as_mut() else { return Ok(()) };
        let n = buckets.len();
        let size = self.size.unwrap_or(n);
        if self.from >= n {
            buckets.clear();
            return Ok(());
        }
        if !self.sorts.is_empty() {
            let mut keyed: Vec<(Vec<Option<SortVal>>, Bucket)> = Vec::with_capacity(n);
            for b in buckets.drain(..) {
                let mut vals = Vec::with_capacity(self.sorts.len());
                for s in &self.sorts {
                    vals.push(if s.path == "_key" {
                        Some(SortVal::Key(b.key.clone()))
                    } else {
                        bucket_value(parent, &b, &split(&s.path), self.gap)?
                            .filter(|v| !(self.gap == GapPolicy::Skip && v.is_nan()))
                            .map(SortVal::Num)
                    });
                }
                keyed.push((vals, b));
            }
            keyed.sort_by(|a, b| {
                for (i, s) in self.sorts.iter().enumerate() {
                    let o = cmp_values(&a.0[i], &b.0[i], s.asc);
                    if o != Ordering::Equal {
                        return o;
                    }
                }
                Ordering::Equal
            });
            buckets.extend(keyed.into_iter().map(|(_, b)| b));
        }
        let end = self.from.saturating_add(size).min(n);
        buckets.truncate(end);
        buckets.drain(..self.from);
        Ok(())
    }
}
