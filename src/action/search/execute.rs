//! Query-then-fetch over pinned shards: each search unit (one shard, or with
//! `dfs_query_then_fetch` all shards of an index, so term statistics are global) runs the query
//! for its top `from + size`, the units' hits are merged by score or sort values (ties by unit
//! order, then segment and doc), and the page `from..from + size` is fetched.

use std::cmp::Ordering;
use std::sync::{Arc, OnceLock};
use std::time::Instant;

use serde_json::{json, Value};

use super::body::{HitJson, SearchBody};
use super::context::ShardContext;
use super::dsl::{self, QueryContext};
use super::fetch;
use super::field_values;
use super::inner_hits;
use super::named;
use super::query_string::{self, QsOptions};
use super::request::SearchRequest;
use super::slice;
use super::sort::{self, ValueFormat};
use super::sort_missing;
use crate::engine::analysis::AnalyzerRegistry;
use crate::engine::index::writer::default_analyzers;
use crate::engine::query::{self, Hit, Query, Relation, SegmentView, SortField, SortValue, TopSpec, TrackTotalHits};
use crate::error::{OsError, OsResult};

/// Most hits a `min_score` search collects per unit before filtering.
pub const MIN_SCORE_COLLECT_LIMIT: usize = 100_000;

/// The built-in analyzers (tests, and contexts without an index). Searches use the index's own
/// registry from its [`ShardContext`].
pub fn analyzers() -> &'static AnalyzerRegistry {
    static R: OnceLock<AnalyzerRegistry> = OnceLock::new();
    R.get_or_init(default_analyzers)
}

/// Epoch millis now.
pub fn now_millis() -> i64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_millis() as i64).unwrap_or(0)
}

/// A set of segments searched together, and where each came from.
struct Unit {
    searcher: query::Searcher,
    /// Per unit segment: (context index, leaf index in that context).
    origin: Vec<(usize, usize)>,
    /// The first context (mapping, index name).
    ctx: usize,
}

fn units(ctxs: &[ShardContext], dfs: bool) -> Vec<Unit> {
    let mut out: Vec<Unit> = Vec::new();
    for (ci, c) in ctxs.iter().enumerate() {
        let segs = &c.searcher.query().segments;
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

/// `_shard_doc` values as OpenSearch's `ShardDocSortField` makes them: the shard's index in the
/// request (`shard`, here its context's position) in the high 32 bits, the doc in the low ones,
/// so a PIT over several shards orders its hits shard by shard.
fn shard_doc_values(values: &mut [SortValue], req: &SearchRequest, shard: usize) {
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
fn with_alias_filter(q: Query, c: &ShardContext, qc: &QueryContext<'_>) -> OsResult<Query> {
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
    fn last_of(&self, unit: &(String, u32)) -> Option<&LastHit> {
        self.last.iter().find(|l| &l.unit == unit)
    }

    fn emitted(&mut self, hit: LastHit) {
        match self.last.iter_mut().find(|l| l.unit == hit.unit) {
            Some(l) => *l = hit,
            None => self.last.push(hit),
        }
    }
}

/// One unit's outcome.
struct UnitResult {
    hits: Vec<Hit>,
    total: (u64, Relation),
    max_score: Option<f32>,
    query: Query,
    /// The named queries (`_name`) of `query` and `post_filter`.
    named: Vec<(String, Query)>,
    fields: Vec<(SortField, ValueFormat)>,
    /// Collection stopped at the deadline.
    timed_out: bool,
    /// The `inner_hits` of the query's `nested` queries.
    inner: Vec<inner_hits::InnerHitsDef>,
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

/// Runs one unit's query phase; `last`: the unit's last hit emitted to a scroll.
fn run_unit(
    u: &Unit,
    ctxs: &[ShardContext],
    req: &SearchRequest,
    now: i64,
    deadline: Option<Instant>,
    last: Option<&LastHit>,
) -> OsResult<UnitResult> {
    let c = &ctxs[u.ctx];
    // The shard's limits first, then the refusal of the parts not built (OpenSearch checks the
    // limits before it compiles scripts or runs rescorers).
    super::limits::check_request(&c.limits, req)?;
    req.refuse_unbuilt()?;
    let qc = QueryContext {
        mapping: &c.mapping,
        analyzers: &c.analyzers,
        segments: &u.searcher.segments,
        index: &c.index,
        now_millis: now,
        analysis: c.analysis.as_deref(),
        max_regex_length: c.limits.max_regex_length,
        nested_scope: None,
    };
    let query = with_alias_filter(build_query(req, &qc)?, c, &qc)?;
    let query = match &req.slice {
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
    };
    let named = named::parse(&named::collect(req.query.as_ref(), req.post_filter.as_ref()), &qc)?;
    let inner = inner_hits::collect(req.query.as_ref(), &qc, c.limits.max_inner_result_window)?;
    let mut fields = sort::resolve(&req.sort, &c.mapping)?;
    sort::resolve_nested(&req.sort, &mut fields, &qc)?;
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
                    return Err(OsError::illegal(format!("Sort must contain at least one field.")));
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
    if let Some(min) = req.min_score {
        spec.track_total_hits = TrackTotalHits::Accurate;
        let n = u.searcher.count(&query)? as usize;
        spec.size = n.min(MIN_SCORE_COLLECT_LIMIT).max(k);
        let mut top = u.searcher.search(&query, &spec)?;
        top.hits.retain(|h| h.score >= min);
        // Exact even past the collection limit: every match is scored once more and counted.
        let total =
            if n > MIN_SCORE_COLLECT_LIMIT { u.searcher.count_min_score(&query, min)? } else { top.hits.len() as u64 };
        top.max_score =
            top.hits.iter().map(|h| h.score).fold(None, |m: Option<f32>, s| Some(m.map_or(s, |m| m.max(s))));
        top.hits.truncate(k);
        return Ok(UnitResult {
            hits: top.hits,
            total: (total, Relation::Eq),
            max_score: top.max_score,
            query,
            named,
            fields,
            timed_out: top.timed_out,
            inner,
        });
    }
    let top = match sort_missing::keyword_missing(&req.sort, &fields) {
        Some((fi, missing)) => sort_missing::search(&u.searcher, &query, &spec, fi, &missing)?,
        None => u.searcher.search(&query, &spec)?,
    };
    let mut max_score = top.max_score;
    if req.track_scores && max_score.is_none() && !spec.sort.is_empty() {
        // A field sort does not score; `track_scores` wants the best score all the same.
        let by_score = TopSpec { size: 1, track_total_hits: TrackTotalHits::Disabled, deadline, ..TopSpec::default() };
        max_score = u.searcher.search(&query, &by_score)?.max_score;
    }
    Ok(UnitResult {
        hits: top.hits,
        total: top.total,
        max_score,
        query,
        named,
        fields,
        timed_out: top.timed_out,
        inner,
    })
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
    let mut e = OsError::new("search_phase_execution_exception", "all shards failed").status(first.status);
    e = e.with("phase", "query").with("grouped", true).with("failed_shards", shard_failures(&failures, ctxs));
    e.caused_by(first)
}

fn shard_failures(failures: &[(usize, OsError)], ctxs: &[ShardContext]) -> Value {
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
        out.push(json!({"shard": c.shard, "index": c.index, "node": "fathom", "reason": reason}));
    }
    Value::Array(out)
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
    mut scroll: Option<&mut ScrollState>,
    raw: bool,
) -> OsResult<SearchBody> {
    let start = Instant::now();
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
    let now = now_millis();
    let units = units(ctxs, req.dfs && req.slice.is_none());
    let mut results: Vec<Option<UnitResult>> = Vec::with_capacity(units.len());
    let mut failures: Vec<(usize, OsError)> = Vec::new();
    // `timeout`: checked between units and, inside a unit, every few thousand collected docs
    // (the collectors stop there and keep the hits so far); a unit that starts past the deadline
    // is not searched, the first excepted (its shards count as successful, with no hits: OpenSearch's partial
    // results), and one that stops or ends past it makes the response `timed_out`.
    let deadline = req.timeout.map(|t| start + t);
    let mut timed_out = false;
    for (ui, u) in units.iter().enumerate() {
        // The first unit always runs (a shard's query phase starts before its timer can fire).
        if ui > 0 && deadline.is_some_and(|d| Instant::now() >= d) {
            timed_out = true;
            results.push(None);
            continue;
        }
        let key = (ctxs[u.ctx].index.clone(), ctxs[u.ctx].shard);
        let last = scroll.as_deref().and_then(|s| s.last_of(&key));
        let r = run_unit(u, ctxs, req, now, deadline, last);
        if deadline.is_some_and(|d| Instant::now() > d) || r.as_ref().is_ok_and(|r| r.timed_out) {
            timed_out = true;
        }
        match r {
            Ok(r) => results.push(Some(r)),
            Err(e) if e.kind == "parsing_exception" || e.kind == "action_request_validation_exception" => {
                return Err(e)
            }
            Err(e) => {
                for ci in u.origin.iter().map(|o| o.0).chain(std::iter::once(u.ctx)) {
                    if !failures.iter().any(|f| f.0 == ci) {
                        failures.push((ci, e.clone()));
                    }
                }
                results.push(None);
            }
        }
    }
    let failed_shards = failures.len();
    if !ctxs.is_empty() && failed_shards == ctxs.len() {
        return Err(all_failed(failures, ctxs));
    }
    check_unsigned_sorts(&results)?;
    // Merge.
    let mut total = 0u64;
    let mut relation = Relation::Eq;
    let mut max_score: Option<f32> = None;
    let mut merged: Vec<(usize, Hit)> = Vec::new();
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
        merged.extend(r.hits.iter().cloned().map(|mut h| {
            shard_doc_values(&mut h.sort_values, req, units[ui].ctx);
            (ui, h)
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
    let mut terminated_early = None;
    if let Some(t) = req.terminate_after {
        if t > 0 && total > t {
            total = t;
            relation = Relation::Eq;
            terminated_early = Some(true);
            merged.truncate(t as usize);
        } else if t > 0 {
            terminated_early = Some(false);
        }
    }
    let page: Vec<(usize, Hit)> = merged.into_iter().skip(req.from).take(req.size).collect();
    if let Some(st) = scroll.as_deref_mut() {
        for (ui, h) in &page {
            let c = &ctxs[units[*ui].ctx];
            let values = if h.sort_values.is_empty() { vec![SortValue::Float(h.score)] } else { h.sort_values.clone() };
            st.emitted(LastHit { unit: (c.index.clone(), c.shard), values, segment: h.segment, doc: h.doc });
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
    let mut hits = Vec::with_capacity(page.len());
    let mut named_weights: Vec<Option<named::NamedWeights>> = (0..units.len()).map(|_| None).collect();
    for (ui, h) in &page {
        let u = &units[*ui];
        let Some((ci, li)) = u.origin.get(h.segment).copied() else { continue };
        let r = results[*ui].as_ref();
        let score = match r {
            Some(r) if sorted_by_fields && req.track_scores && h.score.is_nan() => score_of(u, &r.query, h)?,
            _ if sorted_by_fields && !req.track_scores || h.score.is_nan() => None,
            _ => Some(h.score),
        };
        let sort_vals: Option<Vec<Value>> = if engine_fields.is_empty() {
            None
        } else {
            Some(h.sort_values.iter().zip(&fields).map(|(v, (f, fmt))| sort::render(v, f, fmt)).collect())
        };
        let explanation = match (req.explain, r) {
            (true, Some(r)) => Some(u.searcher.explain(&r.query, h.segment, h.doc)?),
            _ => None,
        };
        let matched = match r {
            Some(r) if !r.named.is_empty() => {
                let w = match &mut named_weights[*ui] {
                    Some(w) => w,
                    slot => slot.insert(named::NamedWeights::compile(&r.named, &u.searcher)?),
                };
                named::render(&w.matches(&u.searcher, h.segment, h.doc)?, req.named_queries_score)
            }
            _ => None,
        };
        let q = r.map(|r| &r.query);
        match r.map(|r| &r.inner).filter(|d| !d.is_empty()) {
            None => {
                hits.push(fetch::hit_json(&ctxs[ci], li, h.doc, score, sort_vals, explanation, matched, q, req, raw)?)
            }
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
                hits.push(HitJson::Value(v));
            }
        }
    }
    // A sort reports a max score only when it leads with `_score` descending (the first hit's
    // score, OpenSearch 3.2+) or with `track_scores`.
    let score_first =
        engine_fields.first().is_some_and(|f| f.by == query::SortBy::Score && f.order == query::SortOrder::Desc);
    let max_score = if !engine_fields.is_empty() && !score_first && !req.track_scores { None } else { max_score };
    let mut shards =
        json!({"total": ctxs.len(), "successful": ctxs.len() - failed_shards, "skipped": 0, "failed": failed_shards});
    if failed_shards > 0 {
        shards["failures"] = shard_failures(&failures, ctxs);
    }
    let total = if req.track_total_hits != TrackTotalHits::Disabled || req.rest_total_hits_as_int {
        Some(if req.rest_total_hits_as_int {
            if req.track_total_hits == TrackTotalHits::Disabled {
                json!(-1)
            } else {
                json!(total)
            }
        } else {
            json!({"value": total, "relation": if relation == Relation::Eq { "eq" } else { "gte" }})
        })
    } else {
        None
    };
    Ok(SearchBody {
        took: start.elapsed().as_millis() as u64,
        timed_out,
        terminated_early,
        shards,
        total,
        max_score,
        hits,
    })
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
                let cause = OsError::illegal("Can't do sort across indices, as a field has [unsigned_long] type in one index, and different type in another index!");
                return Err(OsError::new("search_phase_execution_exception", "")
                    .status(400)
                    .with("phase", "fetch")
                    .with("grouped", true)
                    .with("failed_shards", json!([]))
                    .caused_by(cause));
            }
            Some(_) => {}
        }
    }
    Ok(())
}

/// `_count` over pinned shards: `{"count", "_shards"}`.
pub fn count_contexts(ctxs: &[ShardContext], req: &SearchRequest) -> OsResult<Value> {
    let now = now_millis();
    let mut n = 0u64;
    let mut failures = Vec::new();
    for (ci, c) in ctxs.iter().enumerate() {
        let segs: &Vec<Arc<dyn SegmentView>> = &c.searcher.query().segments;
        let qc = QueryContext {
            mapping: &c.mapping,
            analyzers: &c.analyzers,
            segments: segs,
            index: &c.index,
            now_millis: now,
            analysis: c.analysis.as_deref(),
            max_regex_length: c.limits.max_regex_length,
            nested_scope: None,
        };
        let r = build_query(req, &qc).and_then(|q| with_alias_filter(q, c, &qc)).and_then(|q| {
            if let Some(min) = req.min_score {
                Ok(c.searcher.query().count_min_score(&q, min)?)
            } else {
                Ok(c.searcher.query().count(&q)?)
            }
        });
        match r {
            Ok(x) => {
                n += match req.terminate_after {
                    Some(t) if t > 0 => x.min(t),
                    _ => x,
                }
            }
            Err(e) if e.kind == "parsing_exception" => return Err(e),
            Err(e) => failures.push((ci, e)),
        }
    }
    if !ctxs.is_empty() && failures.len() == ctxs.len() {
        return Err(all_failed(failures, ctxs));
    }
    let mut shards =
        json!({"total": ctxs.len(), "successful": ctxs.len() - failures.len(), "skipped": 0, "failed": failures.len()});
    if !failures.is_empty() {
        shards["failures"] = shard_failures(&failures, ctxs);
    }
    let mut body = json!({"count": n, "_shards": shards});
    if let Some(t) = req.terminate_after {
        if t > 0 {
            body["terminated_early"] = json!(n >= t);
        }
    }
    Ok(body)
}

/// Orders two hits of the same sort (for tests and callers merging pages).
pub fn cmp_hits(a: &Hit, b: &Hit, fields: &[SortField]) -> Ordering {
    if fields.is_empty() {
        b.score.total_cmp(&a.score)
    } else {
        query::sort::cmp_values(&a.sort_values, &b.sort_values, fields)
    }
}
