//! Aggregations (OpenSearch's `search.aggregations`): the request's `aggs` tree is parsed once
//! into [`AggDef`]s; each shard collects the matches of the query (without `post_filter`) into a
//! tree of [`Collector`]s over the doc-values columns and returns plain [`AggResult`] values; the
//! coordinator reduces them (in batches of `batched_reduce_size`, then a final reduce that applies
//! sizes, `min_doc_count`, empty buckets, `search.max_buckets` and the pipelines) and renders the
//! `aggregations` object.
//!
//! Each aggregation type implements [`AggSpec`] in its own file; [`parse`] maps type names to
//! their parsers.

pub mod adjacency;
pub mod auto_date_histogram;
pub mod bucket_order;
pub mod cardinality;
pub mod composite;
pub mod composite_geotile;
pub mod date_histogram;
pub mod deferred;
pub mod fielddata;
pub mod filter;
pub mod fmt;
pub mod geo_distance;
pub mod geo_grid;
pub mod geo_metrics;
pub mod histogram;
pub mod include_exclude;
pub mod ip_range;
pub mod metric;
pub mod multi_key;
pub mod multi_terms;
pub mod nested;
pub mod ords;
pub mod parse;
pub mod percentiles;
pub mod pipeline;
pub mod points_count;
pub mod profile;
pub mod range;
pub mod range_histogram;
pub mod rare_terms;
pub mod result;
pub mod sampler;
pub mod script_source;
pub mod scripted_metric;
pub mod significant;
pub mod significant_collect;
pub mod sketch;
pub mod source;
pub mod terms;
pub mod top_hits;
pub mod variable_width;
pub mod weighted_avg;

use std::fmt::Debug;
use std::sync::Arc;

use serde_json::{Map, Value};

use result::Key;
pub use result::{AggResult, Bucket};

use super::context::ShardContext;
use super::dsl::QueryContext;
use super::request::SearchRequest;
use crate::engine::query::{Query, Searcher, SegmentView};
use crate::engine::segment::DocId;
use crate::error::{ErrorKind, OsError, OsResult};

/// OpenSearch's default `search.max_buckets`.
pub const DEFAULT_MAX_BUCKETS: u64 = 65_535;

/// The aggregation state a shard's collection holds, reserved under the node's `request`
/// circuit breaker (OpenSearch accounts aggregation buckets there): the reservation follows
/// what the collectors report after each segment, and a collection that would pass the limit
/// stops with a `circuit_breaking_exception` (429) instead of taking the node's memory.
#[derive(Debug, Default)]
pub struct Held(Option<crate::cluster::breakers::Reservation>);

impl Held {
    /// A reservation for the aggregations `defs` of the shard of `env` (none in tests that
    /// run without a node).
    pub fn new(defs: &[AggDef], env: &ShardEnv<'_>) -> OsResult<Held> {
        let Some(b) = &env.ctx.breakers else { return Ok(Held(None)) };
        let names: Vec<&str> = defs.iter().map(|d| d.name.as_str()).collect();
        let label = format!("<agg [{}]>", names.join(", "));
        Ok(Held(Some(b.reserve(crate::cluster::breakers::Kind::Request, 0, &label)?)))
    }

    /// Moves the reservation to `bytes`.
    pub fn set(&mut self, bytes: usize) -> OsResult<()> {
        match &mut self.0 {
            Some(r) => r.set(bytes as u64),
            None => Ok(()),
        }
    }
}

/// One aggregation of the request.
#[derive(Debug, Clone)]
pub struct AggDef {
    pub name: String,
    pub spec: Arc<dyn AggSpec>,
    pub subs: Vec<AggDef>,
    pub meta: Option<Value>,
}

impl AggDef {
    /// The empty result of this aggregation (no documents), its subs' empty results inside.
    pub fn empty(&self) -> AggResult {
        self.spec.empty(self)
    }

    /// The empty results of the sub-aggregations.
    pub fn empty_subs(&self) -> Vec<AggResult> {
        self.subs.iter().map(AggDef::empty).collect()
    }
}

/// What a shard's collectors can reach.
pub struct ShardEnv<'a> {
    pub qc: &'a QueryContext<'a>,
    pub searcher: &'a Searcher,
    pub ctx: &'a ShardContext,
    pub req: &'a SearchRequest,
    /// The number of shards the search reaches (terms' default `shard_size` grows with it).
    pub shards: usize,
    /// With `"profile": true`: the shard's aggregation profiler (collectors are wrapped in it).
    pub prof: Option<&'a profile::AggProfiler>,
    /// For a top-level aggregation: the query whose matches it collects (range-like
    /// aggregations count from the points index when it is `match_all` or a range of their
    /// field); `None` for sub-aggregations.
    pub top_query: Option<&'a Query>,
}

impl<'a> ShardEnv<'a> {
    /// The environment of sub-aggregations (no top-level query).
    pub fn sub(&self) -> ShardEnv<'a> {
        ShardEnv {
            qc: self.qc,
            searcher: self.searcher,
            ctx: self.ctx,
            req: self.req,
            shards: self.shards,
            prof: self.prof,
            top_query: None,
        }
    }
}

impl std::fmt::Debug for ShardEnv<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ShardEnv")
            .field("index", &self.ctx.index)
            .field("shard", &self.ctx.shard)
            .finish_non_exhaustive()
    }
}

/// An aggregation type.
pub trait AggSpec: Debug + Send + Sync {
    /// The request's type name (`terms`).
    fn type_name(&self) -> &'static str;
    /// The shard collector of `def`.
    fn collector(&self, def: &AggDef, env: &ShardEnv<'_>) -> OsResult<Box<dyn Collector>>;
    /// The result with no documents.
    fn empty(&self, def: &AggDef) -> AggResult;
    /// Merges shard (or partially reduced) results; `rc.final_reduce` applies sizes and limits.
    fn reduce(&self, def: &AggDef, parts: Vec<AggResult>, rc: &mut ReduceCtx) -> OsResult<AggResult>;
    /// The response object of a reduced result (without `meta`, which the caller adds).
    fn render(&self, def: &AggDef, r: &AggResult, rc: &RenderCtx) -> OsResult<Map<String, Value>>;
    /// The queries the aggregation holds (`filter`, `filters`, ...), in a fixed order: the
    /// coordinator rewrites them before the shards parse them (terms lookups).
    fn queries(&self) -> Vec<&Value> {
        Vec::new()
    }
    /// A copy holding `qs` in place of [`AggSpec::queries`] (`None`: it holds none).
    fn with_queries(&self, _qs: Vec<Value>) -> Option<Arc<dyn AggSpec>> {
        None
    }
    /// The name `typed_keys` prefixes (`sterms`).
    fn typed_name(&self, _r: &AggResult) -> &'static str {
        self.type_name()
    }
    /// A value of the result for ordering and `buckets_path` (`path` after the aggregation's
    /// name: `[]` for a single-value metric, `["avg"]` for stats, `["_count"]`, or a sub-agg path).
    fn property(&self, def: &AggDef, r: &AggResult, path: &[String]) -> OsResult<f64> {
        let _ = r;
        Err(OsError::illegal(format!(
            "No aggregation found for path [{}]",
            std::iter::once(def.name.as_str()).chain(path.iter().map(String::as_str)).collect::<Vec<_>>().join(">")
        )))
    }
    /// Whether this type takes sub-aggregations.
    fn takes_subs(&self) -> bool {
        true
    }
    /// Whether this is a pipeline aggregation (runs after the final reduce).
    fn is_pipeline(&self) -> bool {
        false
    }
    /// Pipeline aggregations: computes this aggregation's value from its siblings' reduced
    /// results (sibling pipelines) or rewrites the parent's buckets (parent pipelines).
    fn run_pipeline(&self, def: &AggDef, ctx: &mut PipelineCtx<'_>) -> OsResult<()> {
        let _ = (def, ctx);
        Ok(())
    }
    /// Pipelines: the `buckets_path` entries read (they run after what they read).
    fn buckets_paths(&self) -> Vec<String> {
        Vec::new()
    }
    /// Pipelines: request validation given the siblings and the parent (OpenSearch's
    /// `PipelineAggregationBuilder.validate`); failures are added to `errors`.
    fn validate_pipeline(&self, def: &AggDef, siblings: &[AggDef], parent: Option<&AggDef>, errors: &mut Vec<String>) {
        let _ = (def, siblings, parent, errors);
    }
    /// Histograms: their `min_doc_count` (parent pipelines need 0).
    fn histogram_min_doc_count(&self) -> Option<u64> {
        None
    }
    /// Histograms: the key after `key` (OpenSearch's `HistogramFactory.nextKey`, for moving_avg's
    /// predictions); `interval` is the reduced result's interval (auto_date_histogram's).
    fn next_key(&self, _key: &Key, _interval: Option<&str>) -> Option<Key> {
        None
    }
}

/// What a pipeline sees: its siblings' definitions and reduced results, and, for a pipeline
/// inside a multi-bucket aggregation, the parent's definition and buckets.
pub struct PipelineCtx<'a> {
    pub siblings: &'a [AggDef],
    pub results: &'a mut Vec<AggResult>,
    /// The position of the pipeline among its siblings.
    pub at: usize,
    pub parent: Option<(&'a AggDef, &'a mut Vec<Bucket>)>,
    /// The parent's reduced `interval` (auto_date_histogram's), when it has one.
    pub parent_interval: Option<String>,
}

impl std::fmt::Debug for PipelineCtx<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PipelineCtx").field("at", &self.at).finish_non_exhaustive()
    }
}

/// A shard-level aggregator (OpenSearch's `Aggregator`): collects documents into owning bucket
/// ordinals and builds the result of each.
pub trait Collector {
    /// Opens segment `si` for collection.
    fn leaf<'a>(&'a mut self, seg: &'a dyn SegmentView, si: usize) -> OsResult<Box<dyn LeafCollector + 'a>>;
    /// The result of owning bucket `ord`.
    fn result(&mut self, ord: u32) -> OsResult<AggResult>;
    /// Whether collection needs scores.
    fn needs_scores(&self) -> bool {
        false
    }
    /// Bytes of state held.
    fn mem_bytes(&self) -> usize {
        0
    }
    /// Work left once every segment is collected (OpenSearch's `postCollection`).
    fn post_collection(&mut self) -> OsResult<()> {
        Ok(())
    }
    /// The profile's `debug` figures of this collector (what its execution really did).
    fn debug(&self, _add: &mut dyn FnMut(&'static str, Value)) {}
    /// The profile's `type` when it depends on how the collector runs (e.g. terms).
    fn profile_type(&self) -> Option<&'static str> {
        None
    }
    /// Deferred collection ([`deferred`]): collects the recorded documents of buckets `ords`
    /// (the ones the parent kept) before their results are asked for.
    fn replay(&mut self, _ords: &[u32]) -> OsResult<()> {
        Ok(())
    }
}

/// A collector opened on one segment.
pub trait LeafCollector {
    /// Collects `doc` into owning bucket `ord`.
    fn collect(&mut self, doc: DocId, ord: u32, score: f32) -> OsResult<()>;
    /// Collects ascending `docs` (no scores) into owning bucket `ord`: collectors with a tight
    /// loop over their column override it (one dynamic call per block instead of per doc).
    fn collect_block(&mut self, docs: &[DocId], ord: u32) -> OsResult<()> {
        for &d in docs {
            self.collect(d, ord, f32::NAN)?;
        }
        Ok(())
    }
    /// Whether the collector already counted its segment (from the points index) and wants
    /// no documents: when every leaf of a segment is done its matches are not visited.
    fn done(&self) -> bool {
        false
    }
}

/// Documents handed to [`LeafCollector::collect_block`] at once.
pub const BLOCK: usize = 512;

/// The sub-aggregations of a bucket aggregation.
pub struct Subs {
    pub cols: Vec<Box<dyn Collector>>,
}

impl Subs {
    pub fn new(def: &AggDef, env: &ShardEnv<'_>) -> OsResult<Subs> {
        Ok(Subs { cols: collectors(&def.subs, &env.sub())? })
    }

    pub fn leaves<'a>(&'a mut self, seg: &'a dyn SegmentView, si: usize) -> OsResult<SubLeaves<'a>> {
        Ok(SubLeaves(self.cols.iter_mut().map(|c| c.leaf(seg, si)).collect::<OsResult<Vec<_>>>()?))
    }

    /// Replays the deferred sub-aggregations' documents of buckets `ords`.
    pub fn replay(&mut self, ords: &[u32]) -> OsResult<()> {
        self.cols.iter_mut().try_for_each(|c| c.replay(ords))
    }

    pub fn results(&mut self, ord: u32) -> OsResult<Vec<AggResult>> {
        self.cols.iter_mut().map(|c| c.result(ord)).collect()
    }

    pub fn needs_scores(&self) -> bool {
        self.cols.iter().any(|c| c.needs_scores())
    }

    pub fn mem_bytes(&self) -> usize {
        self.cols.iter().map(|c| c.mem_bytes()).sum()
    }
}

/// The sub-collectors opened on one segment.
pub struct SubLeaves<'a>(pub Vec<Box<dyn LeafCollector + 'a>>);

impl SubLeaves<'_> {
    #[inline]
    pub fn collect(&mut self, doc: DocId, ord: u32, score: f32) -> OsResult<()> {
        script_source::set_score(score);
        for l in &mut self.0 {
            l.collect(doc, ord, score)?;
        }
        Ok(())
    }

    /// Collects a block of ascending docs (no scores) into `ord`.
    #[inline]
    pub fn collect_block(&mut self, docs: &[DocId], ord: u32) -> OsResult<()> {
        for l in &mut self.0 {
            l.collect_block(docs, ord)?;
        }
        Ok(())
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// Runs of documents going to the same bucket, handed on as blocks (a bucket aggregation over
/// clustered values feeds its sub-aggregations a block per run instead of a call per doc).
#[derive(Debug, Default)]
pub struct Runs {
    docs: Vec<DocId>,
    ord: u32,
}

impl Runs {
    /// Adds `doc` of bucket `ord`, flushing the run of another bucket first.
    #[inline]
    pub fn push(&mut self, subs: &mut SubLeaves<'_>, doc: DocId, ord: u32) -> OsResult<()> {
        if (!self.docs.is_empty() && self.ord != ord) || self.docs.len() >= BLOCK {
            self.flush(subs)?;
        }
        self.ord = ord;
        self.docs.push(doc);
        Ok(())
    }

    pub fn flush(&mut self, subs: &mut SubLeaves<'_>) -> OsResult<()> {
        if !self.docs.is_empty() {
            subs.collect_block(&self.docs, self.ord)?;
            self.docs.clear();
        }
        Ok(())
    }
}

/// The collectors of a list of definitions (pipelines collect nothing).
pub fn collectors(defs: &[AggDef], env: &ShardEnv<'_>) -> OsResult<Vec<Box<dyn Collector>>> {
    defs.iter().map(|d| make_collector(d, env)).collect()
}

/// The collector of `d` (wrapped in the profiler when the search is profiled).
pub fn make_collector(d: &AggDef, env: &ShardEnv<'_>) -> OsResult<Box<dyn Collector>> {
    match env.prof {
        None => d.spec.collector(d, env),
        Some(p) => p.build(d, env),
    }
}

/// Runs the aggregations of one shard over the matches of `query` (global aggregations over
/// every document).
pub fn collect_shard(defs: &[AggDef], env: &ShardEnv<'_>, query: &Query) -> OsResult<Vec<AggResult>> {
    let (global, rest): (Vec<usize>, Vec<usize>) = (0..defs.len()).partition(|&i| defs[i].spec.type_name() == "global");
    let mut results: Vec<Option<AggResult>> = vec![None; defs.len()];
    let mut held = Held::new(defs, env)?;
    script_source::take_needs_scores();
    for (idx, q) in [(rest, query.clone()), (global, Query::MatchAll { boost: 1.0 })] {
        if idx.is_empty() {
            continue;
        }
        let top = ShardEnv { top_query: Some(&q), ..env.sub() };
        let mut cols: Vec<Box<dyn Collector>> =
            idx.iter().map(|&i| make_collector(&defs[i], &top)).collect::<OsResult<_>>()?;
        script_source::take_failure();
        let script_scores = script_source::take_needs_scores();
        run_collectors(&mut cols, env.searcher, &q, &mut held, script_scores)?;
        if let Some(e) = script_source::take_failure() {
            return Err(e);
        }
        for (c, &i) in cols.iter_mut().zip(&idx) {
            results[i] = Some(c.result(0)?);
        }
    }
    Ok(results.into_iter().map(|r| r.unwrap_or(AggResult::Json(Value::Null))).collect())
}

/// Feeds every match of `query` to `cols` (owning bucket 0).
pub fn run_collectors(
    cols: &mut [Box<dyn Collector>],
    searcher: &Searcher,
    query: &Query,
    held: &mut Held,
    script_scores: bool,
) -> OsResult<()> {
    // Values-source scripts reading `_score` need scores too (`take_needs_scores`).
    let scoring = script_scores || cols.iter().any(|c| c.needs_scores());
    let w = searcher.match_weight(query, scoring)?;
    for (si, seg) in searcher.segments.iter().enumerate() {
        {
            let mut leaves: Vec<Box<dyn LeafCollector + '_>> =
                cols.iter_mut().map(|c| c.leaf(seg.as_ref(), si)).collect::<OsResult<_>>()?;
            if leaves.iter().all(|l| l.done()) {
                // Counted from the points index: the segment's matches are not visited.
            } else if scoring {
                searcher.segment_matches(&w, si, scoring, &mut |doc, score| -> OsResult<()> {
                    script_source::set_score(score);
                    for l in &mut leaves {
                        l.collect(doc, 0, score)?;
                    }
                    Ok(())
                })?;
            } else if matches!(query, Query::MatchAll { .. }) {
                // Every live document, in blocks, without a scorer.
                let seg = seg.as_ref();
                let max = seg.max_doc();
                let dense = !seg.has_deletions();
                let mut block: Vec<DocId> = Vec::with_capacity(BLOCK);
                let mut start = 0u32;
                while start < max {
                    let end = start.saturating_add(BLOCK as u32).min(max);
                    block.clear();
                    if dense {
                        block.extend(start..end);
                    } else {
                        block.extend((start..end).filter(|&d| seg.is_live(d)));
                    }
                    for l in &mut leaves {
                        l.collect_block(&block, 0)?;
                    }
                    start = end;
                }
            } else {
                let mut block: Vec<DocId> = Vec::with_capacity(BLOCK);
                searcher.segment_matches(&w, si, false, &mut |doc, _| -> OsResult<()> {
                    block.push(doc);
                    if block.len() == BLOCK {
                        for l in &mut leaves {
                            l.collect_block(&block, 0)?;
                        }
                        block.clear();
                    }
                    Ok(())
                })?;
                for l in &mut leaves {
                    l.collect_block(&block, 0)?;
                }
            }
        }
        held.set(cols.iter().map(|c| c.mem_bytes()).sum())?;
    }
    for c in cols.iter_mut() {
        c.post_collection()?;
    }
    Ok(())
}

/// The coordinator's reduce state.
#[derive(Debug)]
pub struct ReduceCtx {
    /// The last reduce: sizes, `min_doc_count`, empty buckets, the bucket limit.
    pub final_reduce: bool,
    pub max_buckets: u64,
    buckets: u64,
}

impl ReduceCtx {
    pub fn new(final_reduce: bool, max_buckets: u64) -> ReduceCtx {
        ReduceCtx { final_reduce, max_buckets, buckets: 0 }
    }

    /// Counts `n` buckets made by the final reduce (OpenSearch's `MultiBucketConsumer`).
    pub fn consume(&mut self, n: usize) -> OsResult<()> {
        if !self.final_reduce {
            return Ok(());
        }
        self.buckets += n as u64;
        if self.buckets > self.max_buckets {
            return Err(too_many_buckets(self.max_buckets, self.buckets));
        }
        Ok(())
    }
}

/// OpenSearch's refusal of more buckets than `search.max_buckets`.
pub fn too_many_buckets(max: u64, size: u64) -> OsError {
    OsError::new(
        ErrorKind::TooManyBuckets,
        format!(
            "Trying to create too many buckets. Must be less than or equal to: [{max}] but was [{size}]. This limit can be set by changing the [search.max_buckets] cluster level setting."
        ),
    )
    .with("max_buckets", max)
}

/// Rendering options.
#[derive(Debug, Clone, Copy, Default)]
pub struct RenderCtx {
    pub typed_keys: bool,
}

/// Reduces the shards' results of `defs` (each part is one shard's list).
pub fn reduce(defs: &[AggDef], parts: Vec<Vec<AggResult>>, rc: &mut ReduceCtx) -> OsResult<Vec<AggResult>> {
    let mut per_def: Vec<Vec<AggResult>> = defs.iter().map(|_| Vec::with_capacity(parts.len())).collect();
    for p in parts {
        for (i, r) in p.into_iter().enumerate().take(defs.len()) {
            per_def[i].push(r);
        }
    }
    let mut out = Vec::with_capacity(defs.len());
    for (d, rs) in defs.iter().zip(per_def) {
        out.push(if rs.is_empty() { d.empty() } else { d.spec.reduce(d, rs, rc)? });
    }
    Ok(out)
}

/// Reduces the sub-aggregation lists of merged buckets.
pub fn reduce_subs(def: &AggDef, parts: Vec<Vec<AggResult>>, rc: &mut ReduceCtx) -> OsResult<Vec<AggResult>> {
    reduce(&def.subs, parts, rc)
}

/// Reduces in batches of `batch` (OpenSearch's partial reduce with `batched_reduce_size`), then
/// finally; the pipelines run on the final result.
pub fn reduce_all(
    defs: &[AggDef],
    mut parts: Vec<Vec<AggResult>>,
    batch: usize,
    max_buckets: u64,
) -> OsResult<Vec<AggResult>> {
    let batch = batch.max(2);
    while parts.len() > batch {
        let rest = parts.split_off(batch);
        let mut rc = ReduceCtx::new(false, max_buckets);
        let partial = reduce(defs, parts, &mut rc)?;
        parts = std::iter::once(partial).chain(rest).collect();
    }
    let mut rc = ReduceCtx::new(true, max_buckets);
    let mut results = reduce(defs, parts, &mut rc)?;
    run_pipelines(defs, &mut results, None)?;
    Ok(results)
}

/// Runs the pipelines of one level (and, first, of every level below).
pub fn run_pipelines(
    defs: &[AggDef],
    results: &mut Vec<AggResult>,
    parent: Option<(&AggDef, &mut Vec<Bucket>)>,
) -> OsResult<()> {
    for (d, r) in defs.iter().zip(results.iter_mut()) {
        if d.subs.is_empty() || d.spec.is_pipeline() {
            continue;
        }
        match r {
            AggResult::Buckets(b) => {
                for bucket in &mut b.buckets {
                    run_pipelines(&d.subs, &mut bucket.subs, None)?;
                }
                let has_parent_pipes = d.subs.iter().any(|s| s.spec.is_pipeline());
                if has_parent_pipes {
                    let mut empty = Vec::new();
                    let mut ctx = PipelineCtx {
                        siblings: &d.subs,
                        results: &mut empty,
                        at: 0,
                        parent: Some((d, &mut b.buckets)),
                        parent_interval: b.interval.clone(),
                    };
                    for i in pipeline::run_order(&d.subs)? {
                        let s = &d.subs[i];
                        ctx.at = i;
                        s.spec.run_pipeline(s, &mut ctx)?;
                    }
                }
            }
            AggResult::Single { subs, .. } => run_pipelines(&d.subs, subs, None)?,
            _ => {}
        }
    }
    let mut ctx = PipelineCtx { siblings: defs, results, at: 0, parent, parent_interval: None };
    if ctx.parent.is_none() {
        for i in pipeline::run_order(defs)? {
            let d = &defs[i];
            ctx.at = i;
            d.spec.run_pipeline(d, &mut ctx)?;
        }
    }
    Ok(())
}

/// The `aggregations` object of the response.
pub fn render(defs: &[AggDef], results: &[AggResult], rc: &RenderCtx) -> OsResult<Value> {
    Ok(Value::Object(render_into(defs, results, rc, Map::new())?))
}

/// Adds the rendered aggregations of `defs` to `out` (a bucket's object holds its sub-aggs).
pub fn render_into(
    defs: &[AggDef],
    results: &[AggResult],
    rc: &RenderCtx,
    mut out: Map<String, Value>,
) -> OsResult<Map<String, Value>> {
    for (d, r) in defs.iter().zip(results) {
        // Absent: a pipeline that added nothing, or any aggregation of a bucket moving_avg
        // predicted (only its value).
        if pipeline::is_absent(r) {
            continue;
        }
        let mut body = Map::new();
        if let Some(m) = &d.meta {
            body.insert("meta".into(), m.clone());
        }
        for (k, v) in d.spec.render(d, r, rc)? {
            body.insert(k, v);
        }
        let key = if rc.typed_keys { format!("{}#{}", d.spec.typed_name(r), d.name) } else { d.name.clone() };
        out.insert(key, Value::Object(body));
    }
    Ok(out)
}

/// The value at `path` (`agg>agg.metric` split in parts) under a bucket's sub-aggregations, for
/// ordering and `buckets_path`. `_count` is the bucket's doc count, `_key` its key.
pub fn bucket_property(defs: &[AggDef], bucket: &Bucket, path: &[String]) -> OsResult<f64> {
    match path.first().map(String::as_str) {
        None | Some("_count") => return Ok(bucket.doc_count as f64),
        Some("_key") => return Ok(bucket.key.as_f64()),
        _ => {}
    }
    sub_property(defs, &bucket.subs, path)
}

/// The value at `path` among the results of `defs`.
pub fn sub_property(defs: &[AggDef], results: &[AggResult], path: &[String]) -> OsResult<f64> {
    let name = &path[0];
    let Some(i) = defs.iter().position(|d| &d.name == name) else {
        return Err(OsError::illegal(format!("No aggregation found for path [{}]", path.join(">"))));
    };
    match results.get(i) {
        Some(r) => defs[i].spec.property(&defs[i], r, &path[1..]),
        None => Ok(f64::NAN),
    }
}
