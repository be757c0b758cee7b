//! Pipeline aggregations (OpenSearch's `search.aggregations.pipeline`): they collect nothing on
//! the shards (their collector returns a placeholder) and compute their values after the final
//! reduce from other aggregations' results, found through `buckets_path`.
//!
//! ```text
//! mod.rs            buckets_path, gap policies, value resolution, validation and run order
//! bucket_metrics.rs sibling pipelines: avg/sum/min/max/stats/extended_stats/percentiles_bucket
//! sequence.rs       parent pipelines over histograms: derivative, cumulative_sum, serial_diff, moving_fn
//! moving.rs         MovingFunctions and the moving_fn scripts Fathom evaluates
//! moving_avg.rs     the deprecated moving_avg (mov_avg_model.rs: its models, predictions, minimizer)
//! bucket_script.rs  bucket_script, bucket_selector, bucket_sort
//! ```
//!
//! Sibling pipelines sit beside a multi-bucket aggregation and reduce its buckets' values to one
//! result; parent pipelines sit inside a multi-bucket aggregation and add a value to (or filter,
//! or reorder) its buckets. A pipeline's slot in a result list holds [`absent`] until it runs,
//! and stays so where it adds nothing (the first bucket of a derivative): it is then not rendered.

pub mod bucket_metrics;
pub mod bucket_script;
pub mod mov_avg_model;
pub mod moving;
pub mod moving_avg;
pub mod sequence;

use std::sync::Arc;

use serde_json::{json, Map, Value};

use super::fmt::{double, Fmt};
use super::result::{AggResult, Bucket, KeyKind};
use super::source::token;
use super::{AggDef, Collector, LeafCollector};
use crate::engine::query::SegmentView;
use crate::engine::segment::DocId;
use crate::error::{ErrorKind, OsError, OsResult};

/// The parsers of the pipeline types.
pub fn parser(t: &str) -> Option<super::parse::Parser> {
    Some(match t {
        "avg_bucket"
        | "sum_bucket"
        | "min_bucket"
        | "max_bucket"
        | "stats_bucket"
        | "extended_stats_bucket"
        | "percentiles_bucket" => {
            |t, name, v| Ok(Arc::new(bucket_metrics::BucketMetricsSpec::parse(t, name, body(t, v)?)?))
        }
        "derivative" | "cumulative_sum" | "serial_diff" | "moving_fn" => {
            |t, name, v| Ok(Arc::new(sequence::SequenceSpec::parse(t, name, body(t, v)?)?))
        }
        "bucket_script" | "bucket_selector" => {
            |t, name, v| Ok(Arc::new(bucket_script::ScriptedSpec::parse(t, name, body(t, v)?)?))
        }
        "moving_avg" => |t, name, v| Ok(Arc::new(moving_avg::MovAvgSpec::parse(name, body(t, v)?)?)),
        "bucket_sort" => |t, name, v| Ok(Arc::new(bucket_script::BucketSortSpec::parse(name, body(t, v)?)?)),
        _ => return None,
    })
}

fn body<'a>(t: &str, v: &'a Value) -> OsResult<&'a Map<String, Value>> {
    v.as_object()
        .ok_or_else(|| OsError::parsing(format!("Expected [START_OBJECT] under [{t}], but got a [{}] in", token(v))))
}

/// The result a pipeline's slot holds where it has no value (not rendered).
pub fn absent() -> AggResult {
    AggResult::Json(Value::Null)
}

pub fn is_absent(r: &AggResult) -> bool {
    matches!(r, AggResult::Json(Value::Null))
}

/// How buckets without a value (empty buckets, NaN or infinite values) are treated. OpenSearch
/// has these two (Elasticsearch's later `keep_values` is not among them).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GapPolicy {
    Skip,
    InsertZeros,
}

impl GapPolicy {
    pub fn parse(v: &Value, name: &str) -> OsResult<GapPolicy> {
        let Some(s) = v.as_str() else {
            return Err(OsError::parsing(format!("Unexpected token {} [gap_policy] in [{name}]", token(v))));
        };
        Ok(match s {
            "skip" => GapPolicy::Skip,
            "insert_zeros" => GapPolicy::InsertZeros,
            _ => {
                return Err(OsError::parsing(format!(
                    "Invalid gap policy: [{s}], accepted values: [insert_zeros, skip]"
                )))
            }
        })
    }
}

/// `buckets_path` as a string, an array of strings or (for the scripted pipelines) an object of
/// script variable names to paths; strings and arrays name their variables `_value` and
/// `_value0`, `_value1`, ...
pub fn parse_paths(v: &Value, name: &str, objects: bool) -> OsResult<Vec<(String, String)>> {
    let bad = || OsError::parsing(format!("Unexpected token {} [buckets_path] in [{name}]", token(v)));
    match v {
        Value::String(s) => Ok(vec![("_value".to_string(), s.clone())]),
        Value::Array(a) => a
            .iter()
            .enumerate()
            .map(|(i, p)| match p {
                Value::String(s) => Ok((format!("_value{i}"), s.clone())),
                _ => Err(bad()),
            })
            .collect(),
        Value::Object(m) if objects => m
            .iter()
            .map(|(k, p)| match p {
                Value::String(s) => Ok((k.clone(), s.clone())),
                _ => Err(bad()),
            })
            .collect(),
        _ => Err(bad()),
    }
}

/// A `format` parameter: a `DecimalFormat` pattern for `value_as_string`.
pub fn parse_format(v: &Value, name: &str) -> OsResult<Fmt> {
    match v.as_str() {
        Some("") => Err(OsError::illegal("[format] must not be null or an empty string.")),
        Some(s) => Ok(Fmt::Decimal(s.to_string())),
        None => Err(OsError::parsing(format!("Unexpected token {} [format] in [{name}]", token(v)))),
    }
}

/// The shard collector of a pipeline: nothing to collect; every bucket gets the placeholder.
pub struct PipelineCollector;

struct NoLeaf;

impl LeafCollector for NoLeaf {
    fn collect(&mut self, _doc: DocId, _ord: u32, _score: f32) -> OsResult<()> {
        Ok(())
    }
}

impl Collector for PipelineCollector {
    fn leaf<'a>(&'a mut self, _seg: &'a dyn SegmentView, _si: usize) -> OsResult<Box<dyn LeafCollector + 'a>> {
        Ok(Box::new(NoLeaf))
    }

    fn result(&mut self, _ord: u32) -> OsResult<AggResult> {
        Ok(absent())
    }
}

/// The `{"value": x, "value_as_string"?}` body of a single-value pipeline result.
pub fn render_value(v: Option<f64>, fmt: &Fmt, m: &mut Map<String, Value>) {
    match v.filter(|x| x.is_finite()) {
        Some(x) => {
            m.insert("value".into(), double(x));
            if let Some(s) = fmt.number_string(x).filter(|_| !fmt.is_raw()) {
                m.insert("value_as_string".into(), json!(s));
            }
        }
        None => {
            m.insert("value".into(), Value::Null);
        }
    }
}

/// A single value as a result (`None` for NaN and infinities, which render as null).
pub fn value_result(v: f64) -> AggResult {
    AggResult::Value { value: Some(v).filter(|x| x.is_finite()), keys: Vec::new() }
}

/// What a path inside a bucket leads to.
#[derive(Debug)]
enum Prop {
    Num(f64),
    /// Not a number: the Java class OpenSearch would name, and whether it is a multi-value metric.
    Obj(String, bool),
    /// No such aggregation (OpenSearch's `InvalidAggregationPathException`: the value is null).
    Invalid,
}

/// Multi-value numeric metrics (a `buckets_path` must then name one of their values).
fn is_multi_value(t: &str) -> bool {
    matches!(
        t,
        "stats"
            | "extended_stats"
            | "percentiles"
            | "percentile_ranks"
            | "stats_bucket"
            | "extended_stats_bucket"
            | "percentiles_bucket"
            | "matrix_stats"
    )
}

fn camel(t: &str) -> String {
    t.split('_')
        .map(|w| {
            let mut c = w.chars();
            c.next().map(|f| f.to_ascii_uppercase().to_string() + c.as_str()).unwrap_or_default()
        })
        .collect()
}

/// The Java class of an aggregation's result (for OpenSearch's buckets_path messages).
fn result_class(def: &AggDef, r: &AggResult) -> String {
    let t = def.spec.type_name();
    match (t, r) {
        ("terms", AggResult::Buckets(b)) => match b.kind {
            KeyKind::String => "StringTerms",
            KeyKind::Long => "LongTerms",
            KeyKind::Double => "DoubleTerms",
            KeyKind::Unsigned => "UnsignedLongTerms",
            KeyKind::Unmapped => "UnmappedTerms",
        }
        .to_string(),
        _ => format!("Internal{}", camel(t)),
    }
}

/// The value at `path` in a bucket whose sub-aggregations are `defs` / `subs`.
fn prop_in(defs: &[AggDef], subs: &[AggResult], doc_count: u64, key: Option<&Bucket>, path: &[String]) -> Prop {
    let Some(first) = path.first() else { return Prop::Obj("InternalBucket".into(), false) };
    match first.as_str() {
        "_count" if path.len() == 1 => return Prop::Num(doc_count as f64),
        "_key" if path.len() == 1 => {
            return match key {
                Some(b) => {
                    let k = b.key.as_f64();
                    if k.is_nan() {
                        Prop::Obj("String".into(), false)
                    } else {
                        Prop::Num(k)
                    }
                }
                None => Prop::Invalid,
            }
        }
        "_count" | "_key" => return Prop::Invalid,
        _ => {}
    }
    // `agg['key']`: one bucket of a multi-bucket aggregation, chosen by its key as a string
    // (OpenSearch's `InternalMultiBucketAggregation.resolvePropertyFromPath`).
    let (name, bucket_key) = match first.strip_suffix(']').and_then(|f| f.split_once('[')) {
        Some((n, k)) if k.len() >= 2 && k.starts_with('\'') && k.ends_with('\'') => (n, Some(&k[1..k.len() - 1])),
        _ => (first.as_str(), None),
    };
    let Some(i) = defs.iter().position(|d| d.name == name) else { return Prop::Invalid };
    let (def, Some(r)) = (&defs[i], subs.get(i)) else { return Prop::Invalid };
    let rest = &path[1..];
    if is_absent(r) {
        return Prop::Invalid;
    }
    if let Some(want) = bucket_key {
        let AggResult::Buckets(b) = r else { return Prop::Invalid };
        let keyed = |bucket: &&Bucket| {
            let (k, s) = b.fmt.key(&bucket.key);
            s.unwrap_or_else(|| match k {
                Value::String(s) => s,
                other => other.to_string(),
            }) == want
        };
        return match b.buckets.iter().find(keyed) {
            Some(bucket) => prop_in(&def.subs, &bucket.subs, bucket.doc_count, Some(bucket), rest),
            None => Prop::Invalid,
        };
    }
    match r {
        AggResult::Buckets(b) => match rest {
            [] => Prop::Obj(result_class(def, r), false),
            [p] if p == "_bucket_count" => Prop::Num(b.buckets.len() as f64),
            _ => Prop::Obj("Object[]".into(), false),
        },
        AggResult::Single { doc_count, subs } => {
            if rest.is_empty() {
                Prop::Obj(result_class(def, r), false)
            } else {
                prop_in(&def.subs, subs, *doc_count, None, rest)
            }
        }
        _ => {
            if rest.is_empty() && is_multi_value(def.spec.type_name()) {
                return Prop::Obj(result_class(def, r), true);
            }
            match def.spec.property(def, r, rest) {
                Ok(v) => Prop::Num(v),
                Err(_) => Prop::Invalid,
            }
        }
    }
}

fn path_error(msg: String) -> OsError {
    OsError::new(ErrorKind::AggregationExecution, msg).status(400)
}

/// The value at `path` of each of a parent's buckets (gap policy applied), in bucket order: the
/// series the sequential pipelines (derivative, moving_fn, moving_avg, ...) run over.
pub fn series_values(
    parent: &AggDef,
    buckets: &[Bucket],
    path: &[String],
    gap: GapPolicy,
) -> OsResult<Vec<Option<f64>>> {
    buckets.iter().map(|b| bucket_value(parent, b, path, gap)).collect()
}

/// A pipeline's `script` (a string or `{source, lang, params}`), its errors as OpenSearch's
/// script errors.
pub fn script_request(v: &Value) -> OsResult<crate::script::ScriptRequest> {
    crate::script::parse_script_request(v).map_err(|e| crate::action::script_glue::search_script_error(&e))
}

/// OpenSearch's `BucketHelpers.resolveBucketValue`: the value at `path` in one bucket of
/// `parent`, with the gap policy applied; `None` when the path leads nowhere.
pub fn bucket_value(parent: &AggDef, bucket: &Bucket, path: &[String], gap: GapPolicy) -> OsResult<Option<f64>> {
    let value = match prop_in(&parent.subs, &bucket.subs, bucket.doc_count, Some(bucket), path) {
        Prop::Invalid => return Ok(None),
        Prop::Num(v) => v,
        Prop::Obj(class, multi) => {
            let name = path.first().cloned().unwrap_or_else(|| parent.name.clone());
            return Err(path_error(if multi {
                format!("buckets_path must reference either a number value or a single value numeric metric aggregation, but [{name}] contains multiple values. Please specify which to use.")
            } else {
                format!("buckets_path must reference either a number value or a single value numeric metric aggregation, got: [{class}] at aggregation [{name}]")
            }));
        }
    };
    let is_count = path.len() == 1 && path[0] == "_count";
    if value.is_nan() || value.is_infinite() || (bucket.doc_count == 0 && !is_count) {
        return Ok(Some(match gap {
            GapPolicy::InsertZeros => 0.0,
            GapPolicy::Skip => f64::NAN,
        }));
    }
    Ok(Some(value))
}

/// A `buckets_path` split as OpenSearch's `AggregationPath.getPathElementsAsStringList`.
pub fn split(path: &str) -> Vec<String> {
    super::bucket_order::split_path(path)
}

/// The aggregation names of a path's elements (keys after `.` or in `[]` dropped).
fn element_names(path: &str) -> Vec<String> {
    let parts: Vec<&str> = path.split('>').collect();
    parts
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let p = p.split('[').next().unwrap_or(p);
            if i + 1 == parts.len() {
                p.split('.').next().unwrap_or(p).to_string()
            } else {
                p.to_string()
            }
        })
        .collect()
}

/// Whether a type makes many buckets (OpenSearch's `BucketCardinality.MANY`).
pub fn is_multi_bucket(t: &str) -> bool {
    matches!(
        t,
        "terms"
            | "multi_terms"
            | "rare_terms"
            | "significant_terms"
            | "significant_text"
            | "histogram"
            | "date_histogram"
            | "auto_date_histogram"
            | "variable_width_histogram"
            | "range"
            | "date_range"
            | "ip_range"
            | "geo_distance"
            | "filters"
            | "adjacency_matrix"
            | "composite"
            | "geohash_grid"
            | "geotile_grid"
    )
}

/// The Java builder class of a type (OpenSearch names it in one validation message).
pub fn builder_class(t: &str) -> String {
    let pkg = match t {
        "filter" | "filters" => "bucket.filter",
        "global" => "bucket.global",
        "missing" => "bucket.missing",
        "nested" | "reverse_nested" => "bucket.nested",
        "sampler" | "diversified_sampler" => "bucket.sampler",
        _ if is_multi_bucket(t) => "bucket",
        _ => "metrics",
    };
    format!("org.opensearch.search.aggregations.{pkg}.{}AggregationBuilder", camel(t))
}

/// Validates a parsed `aggs` tree (OpenSearch's `AggregatorFactories.Builder.validate` and
/// its pipeline ordering): all validation failures together, then `buckets_path` targets and
/// dependency cycles.
pub fn validate(defs: &[AggDef]) -> OsResult<()> {
    let mut errors = Vec::new();
    validate_level(defs, None, &mut errors);
    if !errors.is_empty() {
        return Err(OsError::validation(&errors));
    }
    check_order(defs)
}

fn validate_level(defs: &[AggDef], parent: Option<&AggDef>, errors: &mut Vec<String>) {
    for d in defs {
        if d.spec.is_pipeline() {
            d.spec.validate_pipeline(d, defs, parent, errors);
        } else {
            validate_level(&d.subs, Some(d), errors);
        }
    }
}

fn check_order(defs: &[AggDef]) -> OsResult<()> {
    run_order(defs)?;
    for d in defs.iter().filter(|d| !d.spec.is_pipeline()) {
        check_order(&d.subs)?;
    }
    Ok(())
}

/// The pipelines of one level in the order they must run (those a pipeline reads first), as
/// OpenSearch's `resolvePipelineAggregatorOrder`; errors for paths that lead nowhere and cycles.
pub fn run_order(defs: &[AggDef]) -> OsResult<Vec<usize>> {
    let mut out = Vec::new();
    let mut state = vec![0u8; defs.len()]; // 0 unmarked, 1 in progress, 2 done
    for i in 0..defs.len() {
        if defs[i].spec.is_pipeline() {
            visit(defs, i, &mut state, &mut out)?;
        }
    }
    Ok(out)
}

fn visit(defs: &[AggDef], i: usize, state: &mut [u8], out: &mut Vec<usize>) -> OsResult<()> {
    match state[i] {
        1 => {
            return Err(OsError::illegal(format!(
                "Cyclical dependency found with pipeline aggregator [{}]",
                defs[i].name
            )))
        }
        2 => return Ok(()),
        _ => {}
    }
    state[i] = 1;
    for path in defs[i].spec.buckets_paths() {
        if path == "_count" || path == "_key" {
            continue;
        }
        let names = element_names(&path);
        let first = &names[0];
        if let Some(agg) = defs.iter().find(|d| &d.name == first && !d.spec.is_pipeline()) {
            let mut agg = agg;
            for (j, name) in names.iter().enumerate().skip(1) {
                let last = j + 1 == names.len();
                if last && (name.eq_ignore_ascii_case("_key") || name == "_count") {
                    break;
                }
                match agg.subs.iter().find(|s| &s.name == name) {
                    Some(s) if !s.spec.is_pipeline() => agg = s,
                    Some(_) if last => {}
                    _ => return Err(OsError::illegal(format!("No aggregation [{name}] found for path [{path}]"))),
                }
            }
        } else if let Some(j) = defs.iter().position(|d| &d.name == first && d.spec.is_pipeline()) {
            visit(defs, j, state, out)?;
        } else {
            return Err(OsError::illegal(format!("No aggregation found for path [{path}]")));
        }
    }
    state[i] = 2;
    out.push(i);
    Ok(())
}

/// Validation of a parent pipeline that needs a histogram parent (OpenSearch's
/// `validateParentAggSequentiallyOrdered`).
pub fn validate_sequential(t: &str, name: &str, parent: Option<&AggDef>, errors: &mut Vec<String>) {
    match parent {
        None => errors.push(format!(
            "{t} aggregation [{name}] must have a histogram, date_histogram or auto_date_histogram as parent but doesn't have a parent"
        )),
        Some(p) => match p.spec.type_name() {
            "histogram" | "date_histogram" => {
                if p.spec.histogram_min_doc_count().unwrap_or(0) != 0 {
                    errors.push(format!("parent histogram of {t} aggregation [{name}] must have min_doc_count of 0"));
                }
            }
            "auto_date_histogram" => {}
            _ => errors.push(format!(
                "{t} aggregation [{name}] must have a histogram, date_histogram or auto_date_histogram as parent"
            )),
        },
    }
}

/// Validation of a pipeline that must sit inside a multi-bucket aggregation.
pub fn validate_has_parent(t: &str, name: &str, parent: Option<&AggDef>, errors: &mut Vec<String>) {
    match parent {
        None => errors.push(format!("{t} aggregation [{name}] must be declared inside of another aggregation")),
        Some(p) if !is_multi_bucket(p.spec.type_name()) => errors.push(format!(
            "{t} aggregation [{name}] must be declared inside of a multi-bucket aggregation, not [{}]",
            p.spec.type_name()
        )),
        _ => {}
    }
}

/// An unknown key of a hand-parsed pipeline (OpenSearch's message).
pub fn unknown_key(name: &str, k: &str, v: &Value) -> OsError {
    OsError::parsing(format!("Unknown key for a {} in [{name}]: [{k}].", token(v)))
}

#[cfg(test)]
mod tests;
