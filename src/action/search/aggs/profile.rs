//! The aggregation profiler (OpenSearch's `AggregationProfiler` behind `"profile": true`): each
//! collector of a profiled search is wrapped in a [`Profiled`] collector that times its phases
//! (`initialize`: building it, `build_leaf_collector`: opening a segment, `collect`: the calls
//! that hand it documents, `post_collection`, `build_aggregation`: building a bucket's result)
//! and counts the calls, and reads the collector's [`Collector::debug`] figures after it built
//! its results. The profile tree mirrors the aggregation tree: a sub-aggregation's node is a
//! child of its parent's (a parent's times include its children's work, as in OpenSearch).
//!
//! Unprofiled searches never see this module: the wrapping happens only when the shard
//! environment carries an [`AggProfiler`], so the unprofiled hot path has no timing calls.

use std::cell::RefCell;
use std::rc::Rc;
use std::time::Instant;

use serde_json::{json, Map, Value};

use super::{AggDef, AggResult, Collector, LeafCollector, ShardEnv};
use crate::engine::query::SegmentView;
use crate::engine::segment::DocId;
use crate::error::OsResult;

/// The timed phases, in the order OpenSearch's `AggregationTimingType` lists them.
const PHASES: [&str; 6] =
    ["initialize", "build_leaf_collector", "collect", "post_collection", "build_aggregation", "reduce"];
const INITIALIZE: usize = 0;
const BUILD_LEAF: usize = 1;
const COLLECT: usize = 2;
const POST_COLLECTION: usize = 3;
const BUILD_AGGREGATION: usize = 4;

/// One aggregation's profile.
#[derive(Debug, Default)]
pub struct Node {
    name: String,
    type_name: String,
    nanos: [u64; 6],
    counts: [u64; 6],
    debug: Map<String, Value>,
    children: Vec<Rc<RefCell<Node>>>,
}

impl Node {
    fn add(&mut self, phase: usize, start: Instant, calls: u64) {
        self.nanos[phase] = self.nanos[phase].saturating_add(start.elapsed().as_nanos() as u64);
        self.counts[phase] = self.counts[phase].saturating_add(calls);
    }

    /// OpenSearch's `ProfileResult` of an aggregation.
    fn to_json(&self) -> Value {
        let mut breakdown = Map::new();
        for (i, p) in PHASES.iter().enumerate() {
            breakdown.insert((*p).to_string(), json!(self.nanos[i]));
            breakdown.insert(format!("{p}_count"), json!(self.counts[i]));
        }
        let mut m = Map::new();
        m.insert("type".into(), json!(self.type_name));
        m.insert("description".into(), json!(self.name));
        m.insert("time_in_nanos".into(), json!(self.nanos.iter().fold(0u64, |a, b| a.saturating_add(*b))));
        m.insert("breakdown".into(), Value::Object(breakdown));
        if !self.debug.is_empty() {
            m.insert("debug".into(), Value::Object(self.debug.clone()));
        }
        if !self.children.is_empty() {
            m.insert("children".into(), Value::Array(self.children.iter().map(|c| c.borrow().to_json()).collect()));
        }
        Value::Object(m)
    }
}

/// The profile of one shard's aggregations, built while its collectors are made.
#[derive(Debug, Default)]
pub struct AggProfiler {
    roots: RefCell<Vec<Rc<RefCell<Node>>>>,
    /// The nodes of the collectors being built (a parent builds its subs' collectors).
    stack: RefCell<Vec<Rc<RefCell<Node>>>>,
}

impl AggProfiler {
    pub fn new() -> AggProfiler {
        AggProfiler::default()
    }

    /// The node of `def` under the collector being built (one node per aggregation even when
    /// a parent builds its subs' collectors more than once).
    fn enter(&self, def: &AggDef) -> Rc<RefCell<Node>> {
        let parent = self.stack.borrow().last().cloned();
        let find = |list: &mut Vec<Rc<RefCell<Node>>>| {
            if let Some(n) = list.iter().find(|n| n.borrow().name == def.name) {
                return n.clone();
            }
            let n = Rc::new(RefCell::new(Node { name: def.name.clone(), ..Node::default() }));
            list.push(n.clone());
            n
        };
        let node = match parent {
            Some(p) => find(&mut p.borrow_mut().children),
            None => find(&mut self.roots.borrow_mut()),
        };
        self.stack.borrow_mut().push(node.clone());
        node
    }

    /// Builds the collector of `def`, timed, and wraps it.
    pub fn build(&self, def: &AggDef, env: &ShardEnv<'_>) -> OsResult<Box<dyn Collector>> {
        let node = self.enter(def);
        let start = Instant::now();
        let built = def.spec.collector(def, env);
        node.borrow_mut().add(INITIALIZE, start, 1);
        self.stack.borrow_mut().pop();
        let inner = built?;
        let type_name = match inner.profile_type() {
            Some(t) => t.to_string(),
            None => class_name(def.spec.type_name()),
        };
        node.borrow_mut().type_name = type_name;
        Ok(Box::new(Profiled { inner, node }))
    }

    /// The `aggregations` list of the shard's profile.
    pub fn to_json(&self) -> Vec<Value> {
        self.roots.borrow().iter().map(|n| n.borrow().to_json()).collect()
    }
}

/// OpenSearch's aggregator class for a type whose collector does not name its own.
fn class_name(type_name: &str) -> String {
    let known = match type_name {
        "avg" => "AvgAggregator",
        "sum" => "SumAggregator",
        "min" => "MinAggregator",
        "max" => "MaxAggregator",
        "stats" => "StatsAggregator",
        "extended_stats" => "ExtendedStatsAggregator",
        "value_count" => "ValueCountAggregator",
        "cardinality" => "CardinalityAggregator",
        "percentiles" => "TDigestPercentilesAggregator",
        "percentile_ranks" => "TDigestPercentileRanksAggregator",
        "median_absolute_deviation" => "MedianAbsoluteDeviationAggregator",
        "weighted_avg" => "WeightedAvgAggregator",
        "geo_bounds" => "GeoBoundsAggregator",
        "geo_centroid" => "GeoCentroidAggregator",
        "scripted_metric" => "ScriptedMetricAggregator",
        "top_hits" => "TopHitsAggregator",
        "range" | "date_range" => "RangeAggregator",
        "ip_range" => "BinaryRangeAggregator",
        "geo_distance" => "RangeAggregator",
        "date_histogram" => "DateHistogramAggregator",
        "histogram" => "NumericHistogramAggregator",
        "variable_width_histogram" => "VariableWidthHistogramAggregator",
        "filter" => "FilterAggregator",
        "filters" => "FiltersAggregator",
        "adjacency_matrix" => "AdjacencyMatrixAggregator",
        "global" => "GlobalAggregator",
        "missing" => "MissingAggregator",
        "nested" => "NestedAggregator",
        "reverse_nested" => "ReverseNestedAggregator",
        "sampler" => "SamplerAggregator",
        "diversified_sampler" => "DiversifiedMapSamplerAggregator",
        "composite" => "CompositeAggregator",
        "multi_terms" => "MultiTermsAggregator",
        "rare_terms" => "StringRareTermsAggregator",
        "significant_terms" => "MapStringTermsAggregator",
        "significant_text" => "SignificantTextAggregator",
        "geohash_grid" => "GeoHashGridAggregator",
        "geotile_grid" => "GeoTileGridAggregator",
        "auto_date_histogram" => "AutoDateHistogramAggregator.FromMany",
        _ => "",
    };
    if !known.is_empty() {
        return known.to_string();
    }
    // Any other type: its name in OpenSearch's class style (`foo_bar` -> `FooBarAggregator`).
    let mut out = String::new();
    for part in type_name.split('_') {
        let mut cs = part.chars();
        if let Some(c) = cs.next() {
            out.extend(c.to_uppercase());
            out.push_str(cs.as_str());
        }
    }
    out.push_str("Aggregator");
    out
}

/// A collector that times the one it wraps.
struct Profiled {
    inner: Box<dyn Collector>,
    node: Rc<RefCell<Node>>,
}

impl Collector for Profiled {
    fn leaf<'a>(&'a mut self, seg: &'a dyn SegmentView, si: usize) -> OsResult<Box<dyn LeafCollector + 'a>> {
        let node = self.node.clone();
        let start = Instant::now();
        let leaf = self.inner.leaf(seg, si);
        node.borrow_mut().add(BUILD_LEAF, start, 1);
        Ok(Box::new(ProfiledLeaf { inner: leaf?, node }))
    }

    fn result(&mut self, ord: u32) -> OsResult<AggResult> {
        let start = Instant::now();
        let r = self.inner.result(ord);
        let mut node = self.node.borrow_mut();
        node.add(BUILD_AGGREGATION, start, 1);
        let mut debug = Map::new();
        self.inner.debug(&mut |k, v| {
            debug.insert(k.to_string(), v);
        });
        node.debug = debug;
        r
    }

    fn post_collection(&mut self) -> OsResult<()> {
        let start = Instant::now();
        let r = self.inner.post_collection();
        self.node.borrow_mut().add(POST_COLLECTION, start, 1);
        r
    }

    fn needs_scores(&self) -> bool {
        self.inner.needs_scores()
    }

    fn mem_bytes(&self) -> usize {
        self.inner.mem_bytes()
    }

    fn debug(&self, add: &mut dyn FnMut(&'static str, Value)) {
        self.inner.debug(add)
    }

    fn profile_type(&self) -> Option<&'static str> {
        self.inner.profile_type()
    }

    fn replay(&mut self, ords: &[u32]) -> OsResult<()> {
        self.inner.replay(ords)
    }
}

/// A leaf collector timing the calls that hand documents to the one it wraps (`collect_count`:
/// the documents handed, a block counting each of its documents).
struct ProfiledLeaf<'a> {
    inner: Box<dyn LeafCollector + 'a>,
    node: Rc<RefCell<Node>>,
}

impl LeafCollector for ProfiledLeaf<'_> {
    fn collect(&mut self, doc: DocId, ord: u32, score: f32) -> OsResult<()> {
        let start = Instant::now();
        let r = self.inner.collect(doc, ord, score);
        self.node.borrow_mut().add(COLLECT, start, 1);
        r
    }

    fn collect_block(&mut self, docs: &[DocId], ord: u32) -> OsResult<()> {
        let start = Instant::now();
        let r = self.inner.collect_block(docs, ord);
        self.node.borrow_mut().add(COLLECT, start, docs.len() as u64);
        r
    }

    fn done(&self) -> bool {
        self.inner.done()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn class_names() {
        assert_eq!(class_name("max"), "MaxAggregator");
        assert_eq!(class_name("range"), "RangeAggregator");
        assert_eq!(class_name("bucket_thing"), "BucketThingAggregator");
    }

    #[test]
    fn node_json_has_every_phase_and_its_count() {
        let mut n = Node { name: "a".into(), type_name: "MaxAggregator".into(), ..Node::default() };
        n.add(COLLECT, Instant::now(), 4);
        let v = n.to_json();
        for p in PHASES {
            assert!(v["breakdown"][p].is_u64(), "{p}");
            assert!(v["breakdown"][format!("{p}_count")].is_u64(), "{p}_count");
        }
        assert_eq!(v["breakdown"]["collect_count"], 4);
        assert!(v.get("debug").is_none());
        assert!(v.get("children").is_none());
        assert_eq!(v["description"], "a");
    }
}
