//! Query-then-fetch over pinned shards: each search unit (one shard, or with
//! `dfs_query_then_fetch` all shards of an index, so term statistics are global) runs the query
//! for its top `from + size`, the units' hits are merged by score or sort values (ties by unit
//! order, then segment and doc), and the page `from..from + size` is fetched.

use std::sync::Arc;
use std::time::Instant;

use serde_json::{json, Value};

use super::body::{HitJson, SearchBody};
use super::collapse;
use super::context::ShardContext;
use super::dsl::{self, QueryContext};
use super::fetch;
use super::field_values;
use super::inner_hits;
use super::named;
use super::node_result::{FailureEntry, MergeSort, NodeHit, NodeResult};
use super::parallel::{FetchPhase, QueryPhase};
use super::query_string::{self, QsOptions};
use super::request::SearchRequest;
use super::rescore;
use super::slice;
use super::sort::{self, ValueFormat};
use super::sort_missing;
use crate::engine::query::{self, Hit, Query, Relation, SortField, SortValue, TopSpec, TrackTotalHits};
use crate::error::{ErrorKind, OsError, OsResult};
use crate::shard::stats::{Phase, SearchOp, ShardCounters};

/// Most hits a `min_score` search collects per unit before filtering.
pub const MIN_SCORE_COLLECT_LIMIT: usize = 100_000;

/// The built-in analyzers (for tests). Searches use the index's own registry from its
/// [`ShardContext`].
#[cfg(test)]
pub fn analyzers() -> &'static crate::engine::analysis::AnalyzerRegistry {
    static R: std::sync::OnceLock<crate::engine::analysis::AnalyzerRegistry> = std::sync::OnceLock::new();
    R.get_or_init(crate::engine::index::writer::default_analyzers)
}

/// A set of segments searched together, and where each came from.
pub(super) struct Unit {
    pub(super) searcher: query::Searcher,
    /// Per unit segment: (context index, leaf index in that context).
    pub(super) origin: Vec<(usize, usize)>,
    /// The first context (mapping, index name).
    pub(super) ctx: usize,
}

pub(super) fn units(ctxs: &[ShardContext], dfs: bool) -> Vec<Unit> {
    let mut out: Vec<Unit> = Vec::new();
    for (ci, c) in ctxs.iter().enumerate() {
        let segs = &c.reader.query().segments;
        let joins = dfs && out.last().is_some_and(|u| ctxs[u.ctx].index == c.index);
        match out.last_mut() {
            Some(u) if joins => {
                let mut s = u.searcher.segments.clone();
                s.extend(segs.iter().cloned());
                u.searcher = query::Searcher::new(s);
                u.origin.extend((0..segs.len()).map(|li| (ci, li)));
            }
            _ => out.push(Unit {
                searcher: query::Searcher::new(segs.clone()),
                origin: (0..segs.len()).map(|li| (ci, li)).collect(),
                ctx: ci,
            }),
        }
    }
    out
}

/// The positions of `_shard_doc` in the request's sort.
fn shard_doc_positions(req: &SearchRequest) -> impl Iterator<Item = usize> + '_ {
    req.sort.iter().enumerate().filter(|(_, s)| s.field == "_shard_doc").map(|(i, _)| i)
}

/// The shard index `_shard_doc` encodes for the context `ctx`: its place among the PIT's or
/// scroll's shards across nodes, else its place in this search.
fn shard_ordinal(req: &SearchRequest, ctx: usize) -> usize {
    req.shard_ordinals.as_ref().and_then(|o| o.get(ctx).copied()).unwrap_or(ctx)
}

/// `_shard_doc` values as OpenSearch's `ShardDocSortField` makes them: the shard's index in the
/// request (`shard`, here its context's position) in the high 32 bits, the doc in the low ones,
/// so a PIT over several shards orders its hits shard by shard.
fn shard_doc_values(values: &mut [SortValue], req: &SearchRequest, shard: usize) {
    let shard = shard_ordinal(req, shard);
    for i in shard_doc_positions(req) {
        if let Some(SortValue::Long(d)) = values.get_mut(i) {
            *d = ((shard as i64) << 32) | (*d & 0xFFFF_FFFF);
        }
    }
}

/// A `search_after` `_shard_doc` value as the shard `shard` sees it: its own docs after the
/// value's doc when the value is in this shard; all of them when the value is in a shard that
/// comes before it in the sort's direction, none when it comes after.
fn shard_doc_after(after: &mut [SortValue], req: &SearchRequest, fields: &[(SortField, ValueFormat)], shard: usize) {
    let shard = shard_ordinal(req, shard);
    for i in shard_doc_positions(req) {
        let desc = fields.get(i).is_some_and(|(f, _)| f.order == crate::engine::query::SortOrder::Desc);
        if let Some(SortValue::Long(v)) = after.get_mut(i) {
            let (s, d) = ((*v >> 32) as i128, *v & 0xFFFF_FFFF);
            let here = shard as i128;
            *v = match (s.cmp(&here), desc) {
                (std::cmp::Ordering::Equal, _) => d,
                (std::cmp::Ordering::Less, false) | (std::cmp::Ordering::Greater, true) => {
                    if desc {
                        i64::MAX
                    } else {
                        -1
                    }
                }
                _ => {
                    if desc {
                        -1
                    } else {
                        i64::MAX
                    }
                }
            };
        }
    }
}

/// `q` restricted by the shard's alias filter (an index searched through filtered aliases).
pub(super) fn with_alias_filter(q: Query, c: &ShardContext, qc: &QueryContext<'_>) -> OsResult<Query> {
    Ok(match &c.alias_filter {
        None => q,
        Some(f) => {
            let f = dsl::parse(f, qc)?;
            Query::Bool {
                must: vec![q],
                should: vec![],
                must_not: vec![],
                filter: vec![f],
                minimum_should_match: 0,
                boost: 1.0,
            }
        }
    })
}

/// Builds the engine query of a request for one unit.
pub fn build_query(req: &SearchRequest, qc: &QueryContext<'_>) -> OsResult<Query> {
    let mut q = match (&req.query, &req.q) {
        (Some(v), _) => dsl::parse(v, qc)?,
        (None, Some(p)) => {
            let fields = match &p.df {
                Some(f) => vec![(f.clone(), 1.0)],
                None => vec![("*".into(), 1.0)],
            };
            let o = QsOptions {
                fields,
                and: p.default_operator.as_deref().is_some_and(|s| s.eq_ignore_ascii_case("and")),
                analyzer: p.analyzer.clone(),
                lenient: p.lenient || p.df.is_none(),
                analyze_wildcard: p.analyze_wildcard,
                ..QsOptions::default()
            };
            super::match_only::verify_phrases(query_string::parse_query_string(&p.q, qc, &o)?, qc)
        }
        (None, None) => Query::MatchAll { boost: 1.0 },
    };
    if let Some(pf) = &req.post_filter {
        let f = dsl::parse(pf, qc)?;
        q = Query::Bool {
            must: vec![q],
            should: vec![],
            must_not: vec![],
            filter: vec![f],
            minimum_should_match: 0,
            boost: 1.0,
        };
    }
    Ok(q)
}

/// The last hit a search unit emitted to a scroll.
#[derive(Debug, Clone, PartialEq)]
pub struct LastHit {
    /// The unit's first shard: (index, shard).
    pub unit: (String, u32),
    /// Its sort values (`[Float(score)]` when sorted by score).
    pub values: Vec<SortValue>,
    pub segment: usize,
    pub doc: crate::engine::segment::DocId,
}

/// Where a scroll stands (OpenSearch's per-shard `ScrollContext`): per search unit the last hit
/// it emitted, so the next page is each unit's top-k after that hit (like `search_after`, ties
/// broken by segment and doc, never a re-run with a growing `from`); and the first page's total
/// hits and max score, which every later page repeats.
#[derive(Debug, Clone, Default)]
pub struct ScrollState {
    pub last: Vec<LastHit>,
    /// The first page's total hits.
    pub total: Option<(u64, Relation)>,
    /// The first page's max score.
    pub max_score: Option<Option<f32>>,
}

impl ScrollState {
    pub(super) fn last_of(&self, unit: &(String, u32)) -> Option<&LastHit> {
        self.last.iter().find(|l| &l.unit == unit)
    }

    pub(super) fn emitted(&mut self, hit: LastHit) {
        match self.last.iter_mut().find(|l| l.unit == hit.unit) {
            Some(l) => *l = hit,
            None => self.last.push(hit),
        }
    }
}

/// One unit's outcome.
pub(super) struct UnitResult {
    hits: Vec<Hit>,
    total: (u64, Relation),
    max_score: Option<f32>,
    query: Query,
    /// The named queries (`_name`) of `query` and `post_filter`.
    named: Vec<(String, Query)>,
    fields: Vec<(SortField, ValueFormat)>,
    /// Collection stopped at the deadline.
    timed_out: bool,
    /// The rescorers and the hits each one's window held.
    rescore: Option<(rescore::Compiled, Vec<Vec<(usize, u32)>>)>,
    /// With `collapse`: each hit's collapse value (parallel to `hits`).
    keys: Vec<Value>,
    /// `terminate_after`: whether a shard had more matches than it collected.
    terminated: Option<bool>,
    /// The `inner_hits` of the query's `nested` queries.
    inner: Vec<inner_hits::InnerHitsDef>,
    /// The shard-level aggregation results.
    aggs: Option<Vec<super::aggs::AggResult>>,
    /// With `"profile": true`: the shard's `profile.shards[]` entry.
    profile: Option<Value>,
}

/// A shard's number and the index's shard count as a slice sees them: with `routing` or
/// `preference` reaching only some shards of the index, its position among those searched and
/// their count (`SliceBuilder.toFilter`).
fn slice_position(ctxs: &[ShardContext], ci: usize, req: &SearchRequest) -> (i32, i32) {
    let c = &ctxs[ci];
    let mut same: Vec<u32> = ctxs.iter().filter(|x| x.index == c.index).map(|x| x.shard).collect();
    if (req.routing.is_some() || req.preference.is_some()) && (same.len() as u32) < c.num_shards {
        same.sort_unstable();
        let pos = same.iter().position(|&s| s == c.shard).unwrap_or(0);
        return (pos as i32, same.len() as i32);
    }
    (c.shard as i32, c.num_shards as i32)
}

/// The query context of unit `u`'s shards.
pub(super) fn unit_query_context<'a>(
    u: &'a Unit,
    ctxs: &'a [ShardContext],
    req: &'a SearchRequest,
    now: i64,
) -> QueryContext<'a> {
    let c = &ctxs[u.ctx];
    QueryContext {
        mapping: &c.mapping,
        analyzers: &c.analyzers,
        segments: &u.searcher.segments,
        index: &c.index,
        now_millis: now,
        analysis: c.analysis.as_deref(),
        max_regex_length: c.limits.max_regex_length,
        warnings: &req.warnings,
        nested_scope: None,
        allow_expensive: req.allow_expensive_queries,
    }
}

/// The query unit `u` runs: the request's query (and `post_filter`), boosted for its index,
/// within its alias filter and slice. Checks the shard serves and the request's limits first.
pub(super) fn unit_query(
    u: &Unit,
    ctxs: &[ShardContext],
    req: &SearchRequest,
    qc: &QueryContext<'_>,
) -> OsResult<Query> {
    let c = &ctxs[u.ctx];
    c.check_serving()?;
    // The shard's limits first, then the refusal of the parts not built (OpenSearch checks the
    // limits before it compiles scripts or runs rescorers).
    super::limits::check_request(&c.limits, req)?;
    req.refuse_unbuilt()?;
    let query = dsl::boosted(build_query(req, qc)?, super::index_boost::boost_of(req, &c.index));
    let query = with_alias_filter(query, c, qc)?;
    Ok(match &req.slice {
        None => query,
        Some(s) => {
            slice::check(s, c, req.scroll.is_some() || req.pit.is_some())?;
            let (shard, n) = slice_position(ctxs, u.ctx, req);
            let f = slice::filter(s, c, shard, n)?;
            Query::Bool {
                must: vec![query],
                should: vec![],
                must_not: vec![],
                filter: vec![f],
                minimum_should_match: 0,
                boost: 1.0,
            }
        }
    })
}

/// Runs one unit's query phase; `last`: the unit's last hit emitted to a scroll. A size-0
/// search of one shard is served from the node's request cache when it can be (see
/// [`super::request_cache`]), and its result kept there otherwise.
pub(super) fn run_unit(
    u: &Unit,
    ctxs: &[ShardContext],
    req: &SearchRequest,
    now: i64,
    deadline: Option<Instant>,
    last: Option<&LastHit>,
) -> OsResult<UnitResult> {
    // Fielddata loads go through the shard's node cache and breakers, filters through the
    // node's query cache.
    let uncached = || {
        crate::engine::query::cached::with_scope(ctxs[u.ctx].query_cache.clone(), || {
            super::aggs::fielddata::with_shard(&ctxs[u.ctx], || run_unit_uncached(u, ctxs, req, now, deadline, last))
        })
    };
    let Some(probe) = super::request_cache::probe(u, ctxs, req) else {
        return uncached();
    };
    if let Some(hit) = probe.get() {
        return cached_unit(u, ctxs, req, now, hit);
    }
    let r = uncached()?;
    if !r.timed_out {
        probe.put(super::request_cache::Cached {
            total: r.total,
            max_score: r.max_score,
            terminated: r.terminated,
            aggs: r.aggs.clone(),
        });
    }
    Ok(r)
}

/// A unit's result from the request cache: the query is still built (the shard's checks and
/// limits apply as to any search), the collection is not run.
fn cached_unit(
    u: &Unit,
    ctxs: &[ShardContext],
    req: &SearchRequest,
    now: i64,
    hit: super::request_cache::Cached,
) -> OsResult<UnitResult> {
    let c = &ctxs[u.ctx];
    let Prepared { qc, query, named, inner } = prepare_unit(u, ctxs, req, now)?;
    let mut fields = sort::resolve(&req.sort, &c.mapping)?;
    sort::resolve_nested(&req.sort, &mut fields, &qc)?;
    Ok(UnitResult {
        hits: Vec::new(),
        total: hit.total,
        max_score: hit.max_score,
        query,
        named,
        fields,
        timed_out: false,
        rescore: None,
        keys: Vec::new(),
        terminated: hit.terminated,
        inner,
        aggs: hit.aggs,
        profile: None,
    })
}

/// What a unit's query phase builds before it collects (a request-cache hit builds it too:
/// the shard's checks and limits apply as to any search).
struct Prepared<'a> {
    qc: QueryContext<'a>,
    query: Query,
    named: Vec<(String, Query)>,
    inner: Vec<inner_hits::InnerHitsDef>,
}

fn prepare_unit<'a>(u: &'a Unit, ctxs: &'a [ShardContext], req: &'a SearchRequest, now: i64) -> OsResult<Prepared<'a>> {
    let qc = unit_query_context(u, ctxs, req, now);
    let query = unit_query(u, ctxs, req, &qc)?;
    let named = named::parse(&named::collect(req.query.as_ref(), req.post_filter.as_ref()), &qc)?;
    let inner = inner_hits::collect(req.query.as_ref(), &qc, ctxs[u.ctx].limits.max_inner_result_window)?;
    Ok(Prepared { qc, query, named, inner })
}

fn run_unit_uncached(
    u: &Unit,
    ctxs: &[ShardContext],
    req: &SearchRequest,
    now: i64,
    deadline: Option<Instant>,
    last: Option<&LastHit>,
) -> OsResult<UnitResult> {
    if !req.profile {
        return run_unit_inner(u, ctxs, req, now, deadline, last, None);
    }
    use super::profile;
    let mut times = profile::UnitTimes::default();
    let start = Instant::now();
    let mut r = run_unit_inner(u, ctxs, req, now, deadline, last, Some(&mut times))?;
    times.total_nanos = profile::since(start);
    let c = &ctxs[u.ctx];
    let by_score = r.fields.iter().all(|(f, _)| f.by == query::SortBy::Score);
    let tree = profile::query_tree(&u.searcher, &r.query, by_score || req.track_scores, &c.mapping)?;
    let names: Vec<&str> = req.aggs.iter().flat_map(|d| d.iter().map(|d| d.name.as_str())).collect();
    let collector = profile::collector_json(req.size, !by_score, &names, &times);
    let id = profile::shard_id(&c.node_id, &c.index, c.shard);
    r.profile = Some(profile::shard_json(id, vec![tree], times, collector));
    Ok(r)
}

/// A unit's query phase; `times`: what a profiled search measures.
fn run_unit_inner(
    u: &Unit,
    ctxs: &[ShardContext],
    req: &SearchRequest,
    now: i64,
    deadline: Option<Instant>,
    last: Option<&LastHit>,
    mut times: Option<&mut super::profile::UnitTimes>,
) -> OsResult<UnitResult> {
    let c = &ctxs[u.ctx];
    let t = Instant::now();
    let Prepared { qc, query, named, inner } = prepare_unit(u, ctxs, req, now)?;
    if let Some(tm) = times.as_deref_mut() {
        tm.rewrite_nanos = super::profile::since(t);
    }
    let aggs = unit_aggs(u, ctxs, req, &qc, &query, times)?;
    // `terminate_after`: each shard collects its first N matches only.
    let limited;
    let (searcher, terminated) = match req.terminate_after {
        Some(t) if t > 0 => {
            let shard_of: Vec<usize> = u.origin.iter().map(|o| o.0).collect();
            let (s, term) = query::limited::limit(&u.searcher, &query, t, &shard_of)?;
            limited = s;
            (&limited, Some(term))
        }
        _ => (&u.searcher, None),
    };
    let mut fields = sort::resolve(&req.sort, &c.mapping)?;
    sort::resolve_nested(&req.sort, &mut fields, &qc)?;
    let rescorer = match &req.rescore {
        None => None,
        Some(v) => {
            let score_only =
                fields.iter().all(|(f, _)| f.by == query::SortBy::Score && f.order == query::SortOrder::Desc);
            rescore::check_sort(score_only)?;
            Some(rescore::Compiled::new(&rescore::parse(v)?, &qc)?)
        }
    };
    let collapse = match &req.collapse {
        None => None,
        Some(cl) => {
            let single_sort = if req.sort.len() == 1 { Some(req.sort[0].field.as_str()) } else { None };
            let after = req.search_after.is_some();
            let ft = collapse::check(cl, c, req.scroll.is_some(), req.rescore.is_some(), after, single_sort)?;
            Some((cl.field.as_str(), ft))
        }
    };
    field_values::check_docvalue_fields(&c.mapping, &req.docvalue_fields)?;
    field_values::check_fields(&c.mapping, &req.fields)?;
    let source_disabled =
        c.mapping.source.as_ref().and_then(|s| s.get("enabled")).and_then(Value::as_bool) == Some(false);
    if !req.fields.is_empty() && source_disabled {
        return Err(OsError::illegal(format!(
            "Unable to retrieve the requested [fields] since _source is disabled in the mappings for index [{}]",
            c.index
        )));
    }
    let engine_sort: Vec<SortField> = fields.iter().map(|(f, _)| f.clone()).collect();
    let after = match &req.search_after {
        None => None,
        Some(vals) => {
            if req.sort.is_empty() {
                if vals.len() != 1 {
                    return Err(OsError::illegal("Sort must contain at least one field.".to_string()));
                }
                Some(vec![SortValue::Float(
                    vals[0]
                        .as_f64()
                        .ok_or_else(|| OsError::illegal("search_after value must be a number when sorting by score"))?
                        as f32,
                )])
            } else {
                if vals.len() != fields.len() {
                    return Err(OsError::illegal(format!(
                        "search_after has {} value(s) but sort has {}.",
                        vals.len(),
                        fields.len()
                    )));
                }
                let mut after = vals
                    .iter()
                    .zip(&fields)
                    .map(|(v, (f, fmt))| sort::after_value(v, f, fmt))
                    .collect::<OsResult<Vec<_>>>()?;
                shard_doc_after(&mut after, req, &fields, u.ctx);
                Some(after)
            }
        }
    };
    let k = req.from.saturating_add(req.size);
    let mut spec = TopSpec {
        size: k,
        from: 0,
        sort: engine_sort,
        track_total_hits: req.track_total_hits,
        after,
        after_doc: None,
        deadline,
    };
    if let Some(l) = last {
        spec.after = Some(l.values.clone());
        spec.after_doc = Some((l.segment, l.doc));
    }
    if let Some(r) = &rescorer {
        spec.size = r.collect_size(k);
    }
    if let Some(min) = req.min_score {
        spec.track_total_hits = TrackTotalHits::Accurate;
        let n = searcher.count(&query)? as usize;
        spec.size = n.min(MIN_SCORE_COLLECT_LIMIT).max(k);
        let mut top = searcher.search(&query, &spec)?;
        top.hits.retain(|h| h.score >= min);
        // Exact even past the collection limit: every match is scored once more and counted.
        let total =
            if n > MIN_SCORE_COLLECT_LIMIT { searcher.count_min_score(&query, min)? } else { top.hits.len() as u64 };
        top.max_score =
            top.hits.iter().map(|h| h.score).fold(None, |m: Option<f32>, s| Some(m.map_or(s, |m| m.max(s))));
        let rescore = rescore_hits(rescorer, searcher, &mut top.hits, &mut top.max_score)?;
        let keys = match collapse {
            Some((f, ft)) => collapse_heads(searcher, &mut top.hits, f, ft, k)?,
            None => Vec::new(),
        };
        top.hits.truncate(k);
        return Ok(UnitResult {
            keys,
            hits: top.hits,
            total: (total, Relation::Eq),
            max_score: top.max_score,
            query,
            named,
            fields,
            timed_out: top.timed_out,
            rescore,
            terminated,
            inner,
            aggs,
            profile: None,
        });
    }
    let run_top = |spec: &TopSpec| match sort_missing::keyword_missing(&req.sort, &fields) {
        Some((fi, missing)) => sort_missing::search(searcher, &query, spec, fi, &missing),
        None => Ok(searcher.search(&query, spec)?),
    };
    let (mut top, keys) = match collapse {
        None => (run_top(&spec)?, Vec::new()),
        Some((f, ft)) => {
            // Growing windows until `k` groups are seen or the matches run out.
            let mut size = spec.size.max(1).saturating_mul(4);
            loop {
                spec.size = size;
                let mut top = run_top(&spec)?;
                let exhausted = top.hits.len() < size;
                let keys = collapse_heads(searcher, &mut top.hits, f, ft, k)?;
                if exhausted || keys.len() >= k {
                    break (top, keys);
                }
                size = size.saturating_mul(4);
            }
        }
    };
    let mut max_score = top.max_score;
    if req.track_scores && max_score.is_none() && !spec.sort.is_empty() {
        // A field sort does not score; `track_scores` wants the best score all the same.
        let by_score = TopSpec { size: 1, track_total_hits: TrackTotalHits::Disabled, deadline, ..TopSpec::default() };
        max_score = searcher.search(&query, &by_score)?.max_score;
    }
    let rescore = rescore_hits(rescorer, searcher, &mut top.hits, &mut max_score)?;
    top.hits.truncate(k);
    Ok(UnitResult {
        hits: top.hits,
        total: top.total,
        max_score,
        query,
        named,
        fields,
        timed_out: top.timed_out,
        rescore,
        keys,
        terminated,
        inner,
        aggs,
        profile: None,
    })
}

/// The unit's aggregations over the matches of its query without `post_filter` (which only
/// filters hits).
fn unit_aggs(
    u: &Unit,
    ctxs: &[ShardContext],
    req: &SearchRequest,
    qc: &QueryContext<'_>,
    query: &Query,
    times: Option<&mut super::profile::UnitTimes>,
) -> OsResult<Option<Vec<super::aggs::AggResult>>> {
    let Some(defs) = &req.aggs else { return Ok(None) };
    let start = Instant::now();
    let c = &ctxs[u.ctx];
    let q = if req.post_filter.is_some() {
        let mut bare = req.clone();
        bare.post_filter = None;
        let q = dsl::boosted(build_query(&bare, qc)?, super::index_boost::boost_of(req, &c.index));
        with_alias_filter(q, c, qc)?
    } else {
        query.clone()
    };
    let shards = req.total_shards.unwrap_or(ctxs.len());
    let prof = times.is_some().then(super::aggs::profile::AggProfiler::new);
    let env =
        super::aggs::ShardEnv { qc, searcher: &u.searcher, ctx: c, req, shards, prof: prof.as_ref(), top_query: None };
    let results = super::aggs::collect_shard(defs, &env, &q)?;
    if let (Some(tm), Some(p)) = (times, &prof) {
        tm.aggs_nanos = super::profile::since(start);
        tm.aggs = p.to_json();
    }
    Ok(Some(results))
}

/// Reduces `hits` to the first hit of each collapse value (at most `k`); returns the values.
fn collapse_heads(
    searcher: &query::Searcher,
    hits: &mut Vec<Hit>,
    field: &str,
    ft: &crate::engine::schema::FieldType,
    k: usize,
) -> OsResult<Vec<Value>> {
    let mut keyed = Vec::with_capacity(hits.len());
    for h in hits.drain(..) {
        let seg = searcher.segments.get(h.segment).ok_or_else(|| OsError::internal("hit of an unknown segment"))?;
        let key = collapse::key_of(seg.as_ref(), &h, field, ft)?;
        keyed.push((h, key));
    }
    let (heads, keys): (Vec<Hit>, Vec<Value>) = collapse::heads(keyed, k).into_iter().unzip();
    *hits = heads;
    Ok(keys)
}

/// Runs the rescorers over a unit's first-pass hits; the best score is then the first hit's.
fn rescore_hits(
    rescorer: Option<rescore::Compiled>,
    searcher: &query::Searcher,
    hits: &mut [Hit],
    max_score: &mut Option<f32>,
) -> OsResult<Option<(rescore::Compiled, Vec<Vec<(usize, u32)>>)>> {
    let Some(r) = rescorer else { return Ok(None) };
    let windows = r.apply(searcher, hits)?;
    if let Some(h) = hits.first() {
        *max_score = Some(h.score);
    }
    Ok(Some((r, windows)))
}

/// The score of one hit of a field-sorted search (`track_scores`), from its explanation.
fn score_of(u: &Unit, query: &Query, h: &Hit) -> OsResult<Option<f32>> {
    let e = u.searcher.explain(query, h.segment, h.doc)?;
    Ok(match e.value {
        query::ExplValue::Float(f) => Some(f),
        query::ExplValue::Int(i) => Some(i as f32),
    })
}

/// The body of an all-shards-failed error, with the shard failures as `root_cause`.
pub fn all_failed(failures: Vec<(usize, OsError)>, ctxs: &[ShardContext]) -> OsError {
    let first = failures.first().map(|f| f.1.clone()).unwrap_or_else(|| OsError::internal("no shards"));
    let mut e = OsError::new(ErrorKind::SearchPhaseExecution, "all shards failed").status(first.status);
    e = e.with("phase", "query").with("grouped", true).with("failed_shards", shard_failures(&failures, ctxs));
    e.caused_by(first)
}

pub(super) fn shard_failures(failures: &[(usize, OsError)], ctxs: &[ShardContext]) -> Value {
    Value::Array(failure_entries(failures, ctxs).into_iter().map(|f| f.1).collect())
}

/// The `_shards.failures` entries of `failures`, each with its status.
fn failure_entries(failures: &[(usize, OsError)], ctxs: &[ShardContext]) -> Vec<FailureEntry> {
    let mut seen: Vec<(String, String)> = Vec::new();
    let mut out = Vec::new();
    for (ci, e) in failures {
        let c = &ctxs[*ci];
        // Grouped like OpenSearch: one entry per index and reason.
        let key = (c.index.clone(), e.reason.clone());
        if seen.contains(&key) {
            continue;
        }
        seen.push(key);
        let mut reason = e.to_json();
        if let Some(o) = reason.as_object_mut() {
            o.entry("index_uuid").or_insert(json!(c.index_uuid));
            o.entry("index").or_insert(json!(c.index));
        }
        out.push((e.status, json!({"shard": c.shard, "index": c.index, "node": "fathom", "reason": reason})));
    }
    out
}

/// Runs a search over pinned shards and renders OpenSearch's response body.
pub fn search_contexts(ctxs: &[ShardContext], req: &SearchRequest) -> OsResult<Value> {
    run(ctxs, req, None, false).map(SearchBody::into_value)
}

/// [`search_contexts`] as a [`SearchBody`] whose plain hits are already compact JSON (the
/// `_search` endpoint writes it out as bytes).
pub fn search_contexts_body(ctxs: &[ShardContext], req: &SearchRequest) -> OsResult<SearchBody> {
    run(ctxs, req, None, true)
}

/// [`search_contexts`] for a scroll page: continues after each unit's last emitted hit of
/// `scroll` and records the new ones (the first page, with an empty state, records the total).
pub fn search_contexts_with(
    ctxs: &[ShardContext],
    req: &SearchRequest,
    scroll: Option<&mut ScrollState>,
) -> OsResult<Value> {
    run(ctxs, req, scroll, false).map(SearchBody::into_value)
}

/// Query-then-fetch; `raw`: plain hits rendered as bytes (see [`fetch::hit_json`]).
fn run(
    ctxs: &[ShardContext],
    req: &SearchRequest,
    scroll: Option<&mut ScrollState>,
    raw: bool,
) -> OsResult<SearchBody> {
    let start = Instant::now();
    let r = node_phase(ctxs, req, scroll, raw, start)?;
    super::node_result::finish(vec![r], req, start, true)
}

/// This node's part of a search across nodes: query+fetch over `ctxs` for the request's page
/// (the coordinating node asks each node for the top `from + size`, with `from` 0), its hits
/// as compact JSON with what they merge by.
pub fn node_search(ctxs: &[ShardContext], req: &SearchRequest) -> OsResult<NodeResult> {
    node_phase(ctxs, req, None, true, Instant::now())
}

/// [`node_search`] for one node's part of a scroll across nodes: each unit continues after
/// its last emitted hit of `scroll`, and each hit carries its mark (see [`NodeHit::mark`]).
pub fn node_search_scroll(
    ctxs: &[ShardContext],
    req: &SearchRequest,
    scroll: &mut ScrollState,
) -> OsResult<NodeResult> {
    node_phase(ctxs, req, Some(scroll), true, Instant::now())
}

/// Query, merge of the units' hits and fetch of the page: the node's result before the
/// aggregations are reduced and the body rendered (see [`super::node_result::finish`]).
fn node_phase(
    ctxs: &[ShardContext],
    req: &SearchRequest,
    scroll: Option<&mut ScrollState>,
    raw: bool,
    start: Instant,
) -> OsResult<NodeResult> {
    let window = ctxs.iter().map(|c| c.max_result_window).min().unwrap_or(super::context::DEFAULT_MAX_RESULT_WINDOW);
    let k = req.from.saturating_add(req.size);
    if k > window && !ctxs.is_empty() && req.scroll.is_none() {
        let e = OsError::illegal(format!(
            "Result window is too large, from + size must be less than or equal to: [{window}] but was [{k}]. See the scroll api for a more efficient way to request large data sets. This limit can be set by changing the [index.max_result_window] index level setting."
        ));
        return Err(all_failed(ctxs.iter().enumerate().map(|(i, _)| (i, e.clone())).collect(), ctxs));
    }
    if ctxs.is_empty() {
        req.refuse_unbuilt()?;
    }
    let now = crate::clock::now_millis();
    let units = units(ctxs, req.dfs && req.slice.is_none());
    let mut results: Vec<Option<UnitResult>> = Vec::with_capacity(units.len());
    let mut failures: Vec<(usize, OsError)> = Vec::new();
    // `timeout`: checked when a unit starts and, inside a unit, every few thousand collected docs
    // (the collectors stop there and keep the hits so far); a unit that starts past the deadline
    // is not searched, the first excepted (its shards count as successful, with no hits: OpenSearch's partial
    // results), and one that stops or ends past it makes the response `timed_out`.
    let deadline = req.timeout.map(|t| start + t);
    let mut timed_out = false;
    let lasts: Vec<Option<LastHit>> = units
        .iter()
        .map(|u| scroll.as_deref().and_then(|s| s.last_of(&(ctxs[u.ctx].index.clone(), ctxs[u.ctx].shard))).cloned())
        .collect();
    let phase = QueryPhase { units, ctxs: ctxs.to_vec(), req: req.clone(), now, deadline, lasts };
    let counted = count_phase(ctxs, 0..ctxs.len(), req, Phase::Query);
    let (phase, outcomes) = phase.run();
    finish_phase(counted);
    let units = &phase.units;
    for (u, outcome) in units.iter().zip(outcomes) {
        let Some((r, late)) = outcome else {
            timed_out = true;
            results.push(None);
            continue;
        };
        if late || r.as_ref().is_ok_and(|r| r.timed_out) {
            timed_out = true;
        }
        match r {
            Ok(r) => results.push(Some(r)),
            Err(e) if e.kind == ErrorKind::Parsing || e.kind == ErrorKind::ActionRequestValidation => return Err(e),
            Err(e) => {
                // Corruption found by the unit fails its shard (a unit of several shards, with
                // `dfs_query_then_fetch`, cannot tell which one holds the damaged file: the next
                // search of each alone finds it).
                if u.origin.iter().all(|o| o.0 == u.ctx) {
                    ctxs[u.ctx].report_corruption("search", &e);
                }
                for ci in u.origin.iter().map(|o| o.0).chain(std::iter::once(u.ctx)) {
                    if !failures.iter().any(|f| f.0 == ci) {
                        failures.push((ci, e.clone()));
                    }
                }
                results.push(None);
            }
        }
    }
    if !ctxs.is_empty() && failures.len() == ctxs.len() {
        return Err(all_failed(failures, ctxs));
    }
    check_unsigned_sorts(&results)?;
    // Merge.
    let mut total = 0u64;
    let mut relation = Relation::Eq;
    let mut max_score: Option<f32> = None;
    let mut merged: Vec<(usize, Hit, Option<Value>)> = Vec::new();
    let mut sort_fields: Option<Vec<(SortField, ValueFormat)>> = None;
    for (ui, r) in results.iter().enumerate() {
        let Some(r) = r else { continue };
        total += r.total.0;
        if r.total.1 == Relation::Gte {
            relation = Relation::Gte;
        }
        if let Some(m) = r.max_score {
            if !m.is_nan() {
                max_score = Some(max_score.map_or(m, |x: f32| x.max(m)));
            }
        }
        if sort_fields.is_none() {
            sort_fields = Some(r.fields.clone());
        }
        merged.extend(r.hits.iter().cloned().enumerate().map(|(i, mut h)| {
            shard_doc_values(&mut h.sort_values, req, units[ui].ctx);
            (ui, h, r.keys.get(i).cloned())
        }));
    }
    if let TrackTotalHits::UpTo(n) = req.track_total_hits {
        if total > n {
            total = n;
            relation = Relation::Gte;
        }
    }
    let fields = sort_fields.unwrap_or_default();
    let engine_fields: Vec<SortField> = fields.iter().map(|f| f.0.clone()).collect();
    if engine_fields.is_empty() {
        merged.sort_by(|a, b| {
            b.1.score
                .total_cmp(&a.1.score)
                .then(a.0.cmp(&b.0))
                .then(a.1.segment.cmp(&b.1.segment))
                .then(a.1.doc.cmp(&b.1.doc))
        });
    } else {
        merged.sort_by(|a, b| {
            query::sort::cmp_values(&a.1.sort_values, &b.1.sort_values, &engine_fields)
                .then(a.0.cmp(&b.0))
                .then(a.1.segment.cmp(&b.1.segment))
                .then(a.1.doc.cmp(&b.1.doc))
        });
    }
    if req.collapse.is_some() {
        // The shards' group heads: the first of each value across shards.
        let mut seen = std::collections::HashSet::new();
        merged.retain(|(_, _, k)| seen.insert(k.as_ref().map(Value::to_string)));
    }
    // Any shard terminated early makes the response so (OpenSearch's merge of the shards').
    let terminated_early = results.iter().flatten().filter_map(|r| r.terminated).reduce(|a, b| a || b);
    let page: Vec<(usize, Hit, Option<Value>)> = merged.into_iter().skip(req.from).take(req.size).collect();
    // With a scroll, each hit's place in its unit (a coordinator across nodes tells each node
    // which of its hits made the page).
    let mut marks: Vec<Option<LastHit>> = Vec::with_capacity(page.len());
    if let Some(st) = scroll {
        for (ui, h, _) in &page {
            let c = &ctxs[units[*ui].ctx];
            let values = if h.sort_values.is_empty() { vec![SortValue::Float(h.score)] } else { h.sort_values.clone() };
            let mark = LastHit { unit: (c.index.clone(), c.shard), values, segment: h.segment, doc: h.doc };
            marks.push(Some(mark.clone()));
            st.emitted(mark);
        }
        match st.total {
            Some(t) => (total, relation) = t,
            None => st.total = Some((total, relation)),
        }
        match st.max_score {
            Some(m) => max_score = m,
            None => st.max_score = Some(max_score),
        }
    }
    let sorted_by_fields = !engine_fields.is_empty() && !engine_fields.iter().any(|f| f.by == query::SortBy::Score);
    let mut results = results;
    let phase_results: Vec<Option<Vec<super::aggs::AggResult>>> =
        results.iter_mut().map(|r| r.as_mut().and_then(|r| r.aggs.take())).collect();
    let profiles: Vec<Value> = results.iter_mut().filter_map(|r| r.as_mut().and_then(|r| r.profile.take())).collect();
    marks.resize(page.len(), None);
    let merge_keys: Vec<(f32, Vec<SortValue>, Option<Value>, Option<LastHit>)> =
        page.iter().zip(marks).map(|((_, h, k), m)| (h.score, h.sort_values.clone(), k.clone(), m)).collect();
    let mut fetching: Vec<usize> = page.iter().map(|(ui, _, _)| units[*ui].ctx).collect();
    fetching.sort_unstable();
    fetching.dedup();
    let counted = count_phase(ctxs, fetching.into_iter(), req, Phase::Fetch);
    let fetched = FetchPhase {
        query: phase.clone(),
        results,
        page,
        raw,
        sorted_by_fields,
        engine_fields: engine_fields.clone(),
        fields: fields.clone(),
    }
    .run();
    finish_phase(counted);
    // Damaged bytes met while fetching: the shard fails (OpenSearch's fetch phase reports it as
    // a shard failure) and its hits leave the page. Any other error fails the request (the first
    // in page order).
    for (ci, r) in &fetched {
        match r {
            Err(e) if e.is_corruption() => {
                if !failures.iter().any(|f| f.0 == *ci) {
                    ctxs[*ci].report_corruption("fetch", e);
                    failures.push((*ci, e.clone()));
                }
            }
            Err(e) => return Err(e.clone()),
            Ok(_) => {}
        }
    }
    let mut hits = Vec::with_capacity(fetched.len());
    for ((ci, r), (score, sort_values, key, mark)) in fetched.into_iter().zip(merge_keys) {
        if let (Ok(json), false) = (r, failures.iter().any(|f| f.0 == ci)) {
            let shard = Some((ctxs[ci].index.clone(), ctxs[ci].shard));
            hits.push(NodeHit { json, score, sort_values, key, mark, shard });
        }
    }
    let failed_shards = failures.len();
    if !ctxs.is_empty() && failed_shards == ctxs.len() {
        return Err(all_failed(failures, ctxs));
    }
    let aggs: Vec<Vec<super::aggs::AggResult>> = phase_results.into_iter().flatten().collect();
    let failures = failure_entries(&failures, ctxs);
    Ok(NodeResult {
        hits,
        total,
        total_gte: relation == Relation::Gte,
        max_score,
        sort: fields
            .iter()
            .map(|(f, fmt)| MergeSort { unsigned: *fmt == ValueFormat::Unsigned, ..MergeSort::of(f) })
            .collect(),
        aggs,
        profiles,
        timed_out,
        terminated_early,
        shards: ctxs.len(),
        failed: failed_shards,
        failures,
    })
}

/// Starts counting `phase` on the shards `which` of `ctxs` (in their stats groups too).
fn count_phase(
    ctxs: &[ShardContext],
    which: impl Iterator<Item = usize>,
    req: &SearchRequest,
    phase: Phase,
) -> Vec<(Arc<ShardCounters>, SearchOp)> {
    which
        .filter_map(|i| ctxs.get(i)?.counters.clone())
        .map(|c| {
            let op = SearchOp::start(&c, &req.stats_groups, phase);
            (c, op)
        })
        .collect()
}

fn finish_phase(counted: Vec<(Arc<ShardCounters>, SearchOp)>) {
    for (c, op) in counted {
        op.finish(&c);
    }
}

/// The fetch phase of one hit of the page: its score, sort values, explanation, matched queries
/// and stored fields.
#[allow(clippy::too_many_arguments)]
pub(super) fn fetch_hit(
    u: &Unit,
    ci: usize,
    li: usize,
    h: &Hit,
    key: Option<&Value>,
    ui: usize,
    results: &[Option<UnitResult>],
    named_weights: &mut [Option<named::NamedWeights>],
    ctxs: &[ShardContext],
    req: &SearchRequest,
    raw: bool,
    sorted_by_fields: bool,
    engine_fields: &[SortField],
    fields: &[(SortField, ValueFormat)],
) -> OsResult<super::body::HitJson> {
    let r = results[ui].as_ref();
    let score = match r {
        Some(r) if sorted_by_fields && req.track_scores && h.score.is_nan() => score_of(u, &r.query, h)?,
        _ if sorted_by_fields && !req.track_scores || h.score.is_nan() => None,
        _ => Some(h.score),
    };
    let sort_vals: Option<Vec<Value>> = if engine_fields.is_empty() {
        None
    } else {
        Some(h.sort_values.iter().zip(fields).map(|(v, (f, fmt))| sort::render(v, f, fmt)).collect())
    };
    let explanation = match (req.explain, r) {
        (true, Some(r)) => {
            let first = u.searcher.explain(&r.query, h.segment, h.doc)?;
            Some(match &r.rescore {
                None => first,
                Some((rs, windows)) => {
                    let held: Vec<bool> = windows.iter().map(|w| w.contains(&(h.segment, h.doc))).collect();
                    rs.explain(&u.searcher, h.segment, h.doc, first, &held)?
                }
            })
        }
        _ => None,
    };
    let matched = match r {
        Some(r) if !r.named.is_empty() => {
            let w = match &mut named_weights[ui] {
                Some(w) => w,
                slot => slot.insert(named::NamedWeights::compile(&r.named, &u.searcher)?),
            };
            named::render(&w.matches(&u.searcher, h.segment, h.doc)?, req.named_queries_score)
        }
        _ => None,
    };
    let q = r.map(|r| &r.query);
    let mut hit = match r.map(|r| &r.inner).filter(|d| !d.is_empty()) {
        None => fetch::hit_json(&ctxs[ci], li, h.doc, score, sort_vals, explanation, matched, q, req, raw)?,
        Some(defs) => {
            let mut v = fetch::hit(&ctxs[ci], li, h.doc, score, sort_vals, explanation, matched, q, req)?;
            let parent = inner_hits::Parent {
                ctx: &ctxs[ci],
                leaf: li,
                doc: h.doc,
                root: h.doc,
                rest_total_hits_as_int: req.rest_total_hits_as_int,
            };
            if let Value::Object(m) = &mut v {
                m.insert("inner_hits".into(), inner_hits::render(defs, parent)?);
            }
            HitJson::Value(v)
        }
    };
    if let (Some(cl), Some(key), HitJson::Value(v)) = (&req.collapse, key, &mut hit) {
        collapse::add_field(v, &cl.field, key);
        if !cl.inner_hits.is_empty() {
            v["inner_hits"] = collapse::expand(cl, ctxs, req, key)?;
        }
    }
    Ok(hit)
}

/// OpenSearch's `validateMergeSortValueFormats`: a sort field that is an `unsigned_long` in one
/// index must be one in every index (its values do not compare with other numbers).
fn check_unsigned_sorts(results: &[Option<UnitResult>]) -> OsResult<()> {
    let mut first: Option<Vec<bool>> = None;
    for r in results.iter().flatten() {
        let uns: Vec<bool> = r.fields.iter().map(|(_, fmt)| *fmt == ValueFormat::Unsigned).collect();
        match &first {
            None => first = Some(uns),
            Some(f) if f.iter().zip(&uns).any(|(a, b)| a != b) => {
                return Err(super::node_result::mixed_unsigned_sorts())
            }
            Some(_) => {}
        }
    }
    Ok(())
}
