//! Parsing the `aggs` object (OpenSearch's `AggregatorFactories.parseAggregators`): each name
//! holds one type, optional `meta` and optional sub-aggregations; errors carry OpenSearch's
//! messages.

use std::sync::Arc;

use serde_json::{Map, Value};

use super::composite::CompositeSpec;
use super::filter::{FiltersSpec, SingleKind, SingleSpec};
use super::histogram::HistogramSpec;
use super::metric::{Metric, MetricSpec};
use super::multi_terms::MultiTermsSpec;
use super::range::RangeSpec;
use super::rare_terms::RareTermsSpec;
use super::source::token;
use super::terms::TermsSpec;
use super::{AggDef, AggSpec};
use crate::error::{ErrorKind, OsError, OsResult};

/// The type names a parser exists for (OpenSearch's registered aggregations; those Fathom has
/// not built are refused with a clear error, not as unknown).
const KNOWN: &[&str] = &[
    "adjacency_matrix",
    "auto_date_histogram",
    "avg",
    "avg_bucket",
    "bucket_script",
    "bucket_selector",
    "bucket_sort",
    "cardinality",
    "composite",
    "cumulative_sum",
    "date_histogram",
    "date_range",
    "derivative",
    "diversified_sampler",
    "extended_stats",
    "extended_stats_bucket",
    "filter",
    "filters",
    "geo_bounds",
    "geo_centroid",
    "geo_distance",
    "geohash_grid",
    "geotile_grid",
    "global",
    "histogram",
    "ip_range",
    "max",
    "max_bucket",
    "median_absolute_deviation",
    "min",
    "min_bucket",
    "missing",
    "moving_avg",
    "moving_fn",
    "multi_terms",
    "nested",
    "percentile_ranks",
    "percentiles",
    "percentiles_bucket",
    "range",
    "rare_terms",
    "reverse_nested",
    "sampler",
    "scripted_metric",
    "serial_diff",
    "significant_terms",
    "significant_text",
    "stats",
    "stats_bucket",
    "sum",
    "sum_bucket",
    "terms",
    "top_hits",
    "value_count",
    "variable_width_histogram",
    "weighted_avg",
];

/// A parser of one aggregation type's body.
pub type Parser = fn(&str, &str, &Value) -> OsResult<Arc<dyn AggSpec>>;

fn body<'a>(t: &str, v: &'a Value) -> OsResult<&'a Map<String, Value>> {
    v.as_object()
        .ok_or_else(|| OsError::parsing(format!("Expected [START_OBJECT] under [{t}], but got a [{}] in", token(v))))
}

/// The built parsers; other known types are refused.
fn parser(t: &str) -> Option<Parser> {
    Some(match t {
        "min" | "max" | "sum" | "avg" | "value_count" | "stats" | "extended_stats" => |t, name, v| {
            Ok(Arc::new(MetricSpec::parse(Metric::from_name(t).unwrap_or(Metric::Avg), name, body(t, v)?)?))
        },
        "terms" => |_, name, v| Ok(Arc::new(TermsSpec::parse(name, body("terms", v)?)?)),
        "date_histogram" => |_, name, v| {
            Ok(Arc::new(super::date_histogram::DateHistogramSpec::parse(name, body("date_histogram", v)?)?))
        },
        "auto_date_histogram" => |_, name, v| {
            Ok(Arc::new(super::auto_date_histogram::AutoDateHistogramSpec::parse(
                name,
                body("auto_date_histogram", v)?,
            )?))
        },
        "percentiles" | "percentile_ranks" | "median_absolute_deviation" => {
            |t, name, v| Ok(Arc::new(super::percentiles::PercentilesSpec::parse(t, name, body(t, v)?)?))
        }
        "cardinality" => {
            |_, name, v| Ok(Arc::new(super::cardinality::CardinalitySpec::parse(name, body("cardinality", v)?)?))
        }
        "histogram" => |_, name, v| Ok(Arc::new(HistogramSpec::parse(name, body("histogram", v)?)?)),
        "range" => |_, name, v| Ok(Arc::new(RangeSpec::parse(false, name, body("range", v)?)?)),
        "date_range" => |_, name, v| Ok(Arc::new(RangeSpec::parse(true, name, body("date_range", v)?)?)),
        "filter" => |_, _, v| {
            if !v.is_object() {
                return Err(OsError::parsing(format!(
                    "Expected [START_OBJECT] under [filter], but got a [{}] in",
                    token(v)
                )));
            }
            Ok(Arc::new(SingleSpec { kind: SingleKind::Filter(v.clone()) }))
        },
        "filters" => |_, name, v| Ok(Arc::new(FiltersSpec::parse(name, body("filters", v)?)?)),
        "missing" => |_, name, v| Ok(Arc::new(SingleSpec::parse_missing(name, body("missing", v)?)?)),
        "global" => |_, _, v| Ok(Arc::new(SingleSpec::parse_global(body("global", v)?)?)),
        _ => return extra_parser(t),
    })
}

/// Parsers registered by the other aggregation files (kept apart so each family adds its own).
fn extra_parser(t: &str) -> Option<Parser> {
    Some(match t {
        "composite" => |_, name, v| Ok(Arc::new(CompositeSpec::parse(name, body("composite", v)?)?)),
        "multi_terms" => |_, name, v| Ok(Arc::new(MultiTermsSpec::parse(name, body("multi_terms", v)?)?)),
        "rare_terms" => |_, name, v| Ok(Arc::new(RareTermsSpec::parse(name, body("rare_terms", v)?)?)),
        "top_hits" => |_, name, v| Ok(Arc::new(super::top_hits::TopHitsSpec::parse(name, body("top_hits", v)?)?)),
        "nested" => |_, name, v| Ok(Arc::new(super::nested::NestedSpec::parse(name, body("nested", v)?)?)),
        "reverse_nested" => {
            |_, name, v| Ok(Arc::new(super::nested::ReverseNestedSpec::parse(name, body("reverse_nested", v)?)?))
        }
        "sampler" => |_, name, v| Ok(Arc::new(super::sampler::SamplerSpec::parse_sampler(name, body("sampler", v)?)?)),
        "diversified_sampler" => |_, name, v| {
            Ok(Arc::new(super::sampler::SamplerSpec::parse_diversified(name, body("diversified_sampler", v)?)?))
        },
        "scripted_metric" => |_, name, v| {
            Ok(Arc::new(super::scripted_metric::ScriptedMetricSpec::parse(name, body("scripted_metric", v)?)?))
        },
        "weighted_avg" => {
            |_, name, v| Ok(Arc::new(super::weighted_avg::WeightedAvgSpec::parse(name, body("weighted_avg", v)?)?))
        }
        "adjacency_matrix" => {
            |_, name, v| Ok(Arc::new(super::adjacency::AdjacencySpec::parse(name, body("adjacency_matrix", v)?)?))
        }
        "ip_range" => |_, name, v| Ok(Arc::new(super::ip_range::IpRangeSpec::parse(name, body("ip_range", v)?)?)),
        "geo_distance" => {
            |_, name, v| Ok(Arc::new(super::geo_distance::GeoDistanceSpec::parse(name, body("geo_distance", v)?)?))
        }
        "geo_bounds" => {
            |_, name, v| Ok(Arc::new(super::geo_metrics::GeoMetricSpec::parse(false, name, body("geo_bounds", v)?)?))
        }
        "geo_centroid" => {
            |_, name, v| Ok(Arc::new(super::geo_metrics::GeoMetricSpec::parse(true, name, body("geo_centroid", v)?)?))
        }
        "geohash_grid" => |_, name, v| {
            use super::geo_grid::{GeoGridSpec, Grid};
            Ok(Arc::new(GeoGridSpec::parse(Grid::Geohash, name, body("geohash_grid", v)?)?))
        },
        "geotile_grid" => |_, name, v| {
            use super::geo_grid::{GeoGridSpec, Grid};
            Ok(Arc::new(GeoGridSpec::parse(Grid::Geotile, name, body("geotile_grid", v)?)?))
        },
        "significant_terms" => {
            |_, name, v| Ok(Arc::new(super::significant::SigSpec::parse(false, name, body("significant_terms", v)?)?))
        }
        "significant_text" => {
            |_, name, v| Ok(Arc::new(super::significant::SigSpec::parse(true, name, body("significant_text", v)?)?))
        }
        "variable_width_histogram" => |_, name, v| {
            Ok(Arc::new(super::variable_width::VariableWidthSpec::parse(name, body("variable_width_histogram", v)?)?))
        },
        _ => return super::pipeline::parser(t),
    })
}

/// Parses an `aggs` object.
pub fn parse_aggs(v: &Value) -> OsResult<Vec<AggDef>> {
    let defs = parse_level(v, 0)?;
    super::pipeline::validate(&defs)?;
    super::composite::check_parents(&defs, None)?;
    Ok(defs)
}

fn parse_level(v: &Value, depth: usize) -> OsResult<Vec<AggDef>> {
    let Value::Object(m) = v else {
        return Err(OsError::parsing(format!("Unexpected token {} in [aggs].", token(v))));
    };
    if depth > 100 {
        return Err(OsError::parsing("Aggregations are nested too deeply"));
    }
    let mut out: Vec<AggDef> = Vec::with_capacity(m.len());
    for (name, def) in m {
        if name.contains(['[', ']', '>']) || name.is_empty() {
            return Err(OsError::parsing(format!(
                "Invalid aggregation name [{name}]. Aggregation names can contain any character except '[', ']', and '>'"
            )));
        }
        let Value::Object(dm) = def else {
            return Err(OsError::parsing(format!(
                "Aggregation definition for [{name} starts with a [{}], expected a [START_OBJECT].",
                token(def)
            )));
        };
        let mut spec: Option<(String, Arc<dyn AggSpec>)> = None;
        let mut subs: Option<Vec<AggDef>> = None;
        let mut meta = None;
        for (k, body) in dm {
            match k.as_str() {
                "meta" => {
                    if !body.is_object() {
                        return Err(OsError::parsing(format!(
                            "Expected [START_OBJECT] under [meta], but got a [{}] in [{name}]",
                            token(body)
                        )));
                    }
                    meta = Some(body.clone());
                }
                "aggs" | "aggregations" => {
                    if subs.is_some() {
                        return Err(OsError::parsing(format!("Found two sub aggregation definitions under [{name}]")));
                    }
                    subs = Some(parse_level(body, depth + 1)?);
                }
                t => {
                    if let Some((prev, _)) = &spec {
                        return Err(OsError::parsing(format!(
                            "Found two aggregation type definitions in [{name}]: [{prev}] and [{t}]"
                        )));
                    }
                    let Some(p) = parser(t) else {
                        if KNOWN.contains(&t) {
                            return Err(OsError::new(
                                ErrorKind::Parsing,
                                format!("Aggregation type [{t}] is not supported by this node yet"),
                            )
                            .status(400));
                        }
                        return Err(OsError::parsing(format!(
                            "Unknown aggregation type [{t}]{}",
                            crate::error::did_you_mean(t, KNOWN, 0.5)
                        )));
                    };
                    spec = Some((t.to_string(), p(t, name, body)?));
                }
            }
        }
        let Some((_, spec)) = spec else {
            return Err(OsError::parsing(format!("Missing definition for aggregation [{name}]")));
        };
        let subs = subs.unwrap_or_default();
        if !subs.is_empty() && !spec.takes_subs() {
            return Err(OsError::new(
                ErrorKind::AggregationInitialization,
                format!("Aggregator [{name}] of type [{}] cannot accept sub-aggregations", spec.type_name()),
            )
            .status(400));
        }
        if depth > 0 && spec.type_name() == "global" {
            return Err(OsError::new(
                ErrorKind::AggregationInitialization,
                format!("Aggregator [{name}] of type [global] cannot be a sub-aggregation"),
            )
            .status(400));
        }
        if out.iter().any(|d| d.name == *name) {
            return Err(OsError::illegal(format!("Two sibling aggregations cannot have the same name: [{name}]")));
        }
        out.push(AggDef { name: name.clone(), spec, subs, meta });
    }
    Ok(out)
}
