//! The search profiler (`"profile": true`, OpenSearch's `SearchProfileShardResults`): each
//! shard reports its query tree with timings, the time it took to build that tree from the
//! request (`rewrite_time`), its collectors, and its aggregations' profile
//! ([`super::aggs::profile`]); the response lists the shards under `profile.shards`.
//!
//! How the query tree is measured: Fathom's top-hits collection does not route through
//! per-node timers (that would cost the unprofiled search), so a profiled shard runs its query
//! tree once more, node by node: each node's weight is built (`create_weight`), its scorer
//! built on every segment (`build_scorer`) and iterated to the end (`next_doc`, and `score`
//! when the search scores), every call timed. Breakdown entries for calls that pass does not
//! make (`advance`, `match`, `shallow_advance`, `compute_max_score`,
//! `set_min_competitive_score`) are real zeros with zero counts. The `collector` entries time
//! the shard's real collection (top hits, and the aggregations' own pass).
//!
//! Known gaps: `inbound_network_time_in_millis` / `outbound_network_time_in_millis` are 0
//! (true for shards searched on the coordinating node; for shards of other nodes the one-way
//! transport times are not measured yet). A `dfs_query_then_fetch` search of several shards
//! on one node runs them as one unit (shared statistics, one searcher): it reports one entry,
//! under the unit's first shard.

use std::time::Instant;

use serde_json::{json, Map, Value};

use crate::engine::query::{Query, RangeKind, Searcher};
use crate::engine::schema::Mapping;
use crate::engine::segment::points::sortable;
use crate::engine::segment::NO_MORE_DOCS;
use crate::error::OsResult;

/// The query timing entries, in OpenSearch's `QueryTimingType` order.
const QUERY_PHASES: [&str; 9] = [
    "create_weight",
    "build_scorer",
    "next_doc",
    "advance",
    "match",
    "score",
    "shallow_advance",
    "compute_max_score",
    "set_min_competitive_score",
];
const CREATE_WEIGHT: usize = 0;
const BUILD_SCORER: usize = 1;
const NEXT_DOC: usize = 2;
const SCORE: usize = 5;

/// What a profiled search unit measured while it ran.
#[derive(Debug, Default)]
pub struct UnitTimes {
    /// Building the engine's query from the request.
    pub rewrite_nanos: u64,
    /// The aggregations' collection (their own pass over the matches).
    pub aggs_nanos: u64,
    /// The aggregations' profile tree.
    pub aggs: Vec<Value>,
    /// The whole unit (query phase).
    pub total_nanos: u64,
}

/// Nanoseconds since `t`.
pub fn since(t: Instant) -> u64 {
    t.elapsed().as_nanos() as u64
}

/// OpenSearch's shard id of a profile: `[nodeId][index][shard]`.
pub fn shard_id(node: &str, index: &str, shard: u32) -> String {
    format!("[{node}][{index}][{shard}]")
}

/// The `profile.shards[]` entry of one shard.
pub fn shard_json(id: String, query: Vec<Value>, times: UnitTimes, collector: Value) -> Value {
    json!({
        "id": id,
        // The shard ran on the node that holds it: no network between its phases.
        "inbound_network_time_in_millis": 0,
        "outbound_network_time_in_millis": 0,
        "searches": [{
            "query": query,
            "rewrite_time": times.rewrite_nanos,
            "collector": [collector],
        }],
        "aggregations": times.aggs,
    })
}

/// The collector entry: the top hits (or hit count) collection and, with aggregations, their
/// collection beside it (OpenSearch's `MultiCollector`).
pub fn collector_json(size: usize, sorted: bool, agg_names: &[&str], times: &UnitTimes) -> Value {
    let hits_nanos = times.total_nanos.saturating_sub(times.rewrite_nanos).saturating_sub(times.aggs_nanos);
    let (name, reason) = match (size, sorted) {
        (0, _) => ("TotalHitCountCollector", "search_count"),
        (_, false) => ("SimpleTopScoreDocCollector", "search_top_hits"),
        (_, true) => ("SimpleFieldCollector", "search_top_hits"),
    };
    let hits = json!({"name": name, "reason": reason, "time_in_nanos": hits_nanos});
    if agg_names.is_empty() {
        return hits;
    }
    let aggs = json!({
        "name": format!("BucketCollectorWrapper: [BucketCollectorWrapper[bucketCollector=[{}]]]", agg_names.join(", ")),
        "reason": "aggregation",
        "time_in_nanos": times.aggs_nanos,
    });
    json!({
        "name": "MultiCollector",
        "reason": "search_multi",
        "time_in_nanos": hits_nanos.saturating_add(times.aggs_nanos),
        "children": [hits, aggs],
    })
}

/// The profiled query tree of `q` over `searcher`'s segments (see the module docs).
pub fn query_tree(searcher: &Searcher, q: &Query, scoring: bool, mapping: &Mapping) -> OsResult<Value> {
    let mut nanos = [0u64; 9];
    let mut counts = [0u64; 9];
    let t = Instant::now();
    let w = searcher.match_weight(q, scoring)?;
    nanos[CREATE_WEIGHT] = since(t);
    counts[CREATE_WEIGHT] = 1;
    for seg in &searcher.segments {
        let t = Instant::now();
        let sc = w.scorer(seg.as_ref())?;
        nanos[BUILD_SCORER] += since(t);
        counts[BUILD_SCORER] += 1;
        let Some(mut sc) = sc else { continue };
        let mut doc = sc.doc();
        while doc != NO_MORE_DOCS {
            if scoring {
                let t = Instant::now();
                let _ = sc.score();
                nanos[SCORE] += since(t);
                counts[SCORE] += 1;
            }
            let t = Instant::now();
            doc = sc.next();
            nanos[NEXT_DOC] += since(t);
            counts[NEXT_DOC] += 1;
        }
        if let Some(e) = sc.take_error() {
            return Err(e.into());
        }
    }
    let mut breakdown = Map::new();
    for (i, p) in QUERY_PHASES.iter().enumerate() {
        breakdown.insert((*p).to_string(), json!(nanos[i]));
        breakdown.insert(format!("{p}_count"), json!(counts[i]));
    }
    let mut m = Map::new();
    m.insert("type".into(), json!(type_name(q)));
    m.insert("description".into(), json!(describe(q, mapping)));
    m.insert("time_in_nanos".into(), json!(nanos.iter().sum::<u64>()));
    m.insert("breakdown".into(), Value::Object(breakdown));
    let children = children(q)
        .into_iter()
        .map(|(c, scores)| query_tree(searcher, c, scoring && scores, mapping))
        .collect::<OsResult<Vec<_>>>()?;
    if !children.is_empty() {
        m.insert("children".into(), Value::Array(children));
    }
    Ok(Value::Object(m))
}

/// Lucene's `toString` of a query; point ranges print their bounds as the field's numbers
/// (Lucene's `PointRangeQuery`), a bound at the end of the key space as `*`.
pub fn describe(q: &Query, mapping: &Mapping) -> String {
    let Query::Range { field, lo, hi, include_lo, include_hi, kind: RangeKind::Points, .. } = q else {
        return q.to_string();
    };
    let decode: fn(&[u8]) -> String = match mapping.field_type(field).map(|t| t.type_name()) {
        Some("double" | "float" | "half_float") => |b| sortable::decode_f64(b).to_string(),
        Some("long" | "integer" | "short" | "byte" | "date" | "date_nanos" | "scaled_float") => {
            |b| sortable::decode_i64(b).to_string()
        }
        _ => return q.to_string(),
    };
    let bound = |b: &Option<Vec<u8>>, end: u8| match b {
        Some(b) if b.len() == 8 && !b.iter().all(|&x| x == end) => decode(b),
        _ => "*".to_string(),
    };
    format!(
        "{field}:{}{} TO {}{}",
        if *include_lo { '[' } else { '{' },
        bound(lo, 0x00),
        bound(hi, 0xFF),
        if *include_hi { ']' } else { '}' }
    )
}

/// The sub-queries of `q`, each with whether it scores within it.
fn children(q: &Query) -> Vec<(&Query, bool)> {
    match q {
        Query::Bool { must, should, must_not, filter, .. } => must
            .iter()
            .map(|c| (c, true))
            .chain(filter.iter().map(|c| (c, false)))
            .chain(should.iter().map(|c| (c, true)))
            .chain(must_not.iter().map(|c| (c, false)))
            .collect(),
        Query::ConstantScore { query, .. } => vec![(query.as_ref(), false)],
        Query::DisMax { queries, .. } => queries.iter().map(|c| (c, true)).collect(),
        Query::Boosting { positive, negative, .. } => vec![(positive.as_ref(), true), (negative.as_ref(), false)],
        _ => Vec::new(),
    }
}

/// The Lucene/OpenSearch class OpenSearch's profile names for a query of this shape.
pub fn type_name(q: &Query) -> &'static str {
    match q {
        Query::Term { .. } => "TermQuery",
        Query::Terms { .. } => "TermInSetQuery",
        Query::Bool { .. } => "BooleanQuery",
        Query::Phrase { .. } => "PhraseQuery",
        Query::Prefix { .. } => "PrefixQuery",
        Query::Wildcard { .. } => "WildcardQuery",
        Query::Range { kind: RangeKind::Points, .. } => "IndexOrDocValuesQuery",
        Query::Range { kind: RangeKind::Terms, .. } => "TermRangeQuery",
        Query::Exists { .. } => "FieldExistsQuery",
        Query::DocValues { .. } => "SortedNumericDocValuesRangeQuery",
        Query::MatchAll { .. } => "MatchAllDocsQuery",
        Query::ConstantScore { .. } => "ConstantScoreQuery",
        Query::DisMax { .. } => "DisjunctionMaxQuery",
        Query::Boosting { .. } => "FunctionScoreQuery",
        Query::FunctionScore { .. } => "FunctionScoreQuery",
        Query::Blended { .. } => "BlendedTermQuery",
        Query::MultiPhrase { .. } => "MultiPhraseQuery",
        Query::Verified { .. } => "TwoPhaseQuery",
        Query::Intervals { .. } => "IntervalQuery",
        Query::DistanceFeature { .. } => "LongDistanceFeatureQuery",
        Query::CombinedField { .. } => "CombinedFieldQuery",
        Query::Spans { .. } => "SpanQuery",
        Query::Nested { .. } => "ToParentBlockJoinQuery",
        Query::MatchNone => "MatchNoDocsQuery",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_and_names() {
        assert_eq!(shard_id("n1", "idx", 0), "[n1][idx][0]");
        assert_eq!(type_name(&Query::MatchAll { boost: 1.0 }), "MatchAllDocsQuery");
        assert_eq!(type_name(&Query::term("f", "v")), "TermQuery");
    }

    #[test]
    fn tree_of_an_empty_searcher_has_every_breakdown_key() {
        let s = Searcher::new(Vec::new());
        let q = Query::and(vec![Query::term("a", "b"), Query::MatchAll { boost: 1.0 }]);
        let v = query_tree(&s, &q, true, &Mapping::new_dynamic()).unwrap();
        assert_eq!(v["type"], "BooleanQuery");
        for p in QUERY_PHASES {
            assert!(v["breakdown"][p].is_u64(), "{p}");
            assert!(v["breakdown"][format!("{p}_count")].is_u64(), "{p}");
        }
        assert_eq!(v["breakdown"]["create_weight_count"], 1);
        assert_eq!(v["children"].as_array().map(Vec::len), Some(2));
        assert_eq!(v["children"][0]["type"], "TermQuery");
        assert_eq!(v["children"][0]["description"], "a:b");
    }

    #[test]
    fn collectors_with_and_without_aggs() {
        let t = UnitTimes { total_nanos: 100, rewrite_nanos: 10, aggs_nanos: 30, ..UnitTimes::default() };
        let c = collector_json(10, false, &[], &t);
        assert_eq!(c["name"], "SimpleTopScoreDocCollector");
        assert_eq!(c["time_in_nanos"], 60);
        let c = collector_json(0, false, &["a"], &t);
        assert_eq!(c["name"], "MultiCollector");
        assert_eq!(c["children"][1]["time_in_nanos"], 30);
    }
}
