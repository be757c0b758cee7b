//! What one node's query+fetch over its shards yields (a [`NodeResult`]: fetched hits with the
//! values they merge by, totals, aggregation partials, shard counts and failures), and the
//! reduce of several nodes' results into OpenSearch's response body ([`finish`]). A search of
//! shards all held here is one node result already paged; a search across nodes merges the
//! results of every node holding target shards, each for the top `from + size`.

use std::time::Instant;

use serde_json::{json, Value};

use super::aggs::AggResult;
use super::body::{HitJson, SearchBody};
use super::request::SearchRequest;
use crate::engine::query::{self, Missing, SortBy, SortField, SortOrder, SortValue, TrackTotalHits};
use crate::error::{ErrorKind, OsError, OsResult};

/// One sort criterion as the merge of nodes' hits needs it (what [`query::sort::cmp_value`]
/// reads, and whether it is `_score`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MergeSort {
    pub score: bool,
    pub desc: bool,
    pub missing_first: bool,
    /// An `unsigned_long` field: its values compare with no other number type's (see
    /// [`mixed_unsigned_sorts`]).
    pub unsigned: bool,
}

impl MergeSort {
    /// The merge view of a resolved sort field.
    pub fn of(f: &SortField) -> MergeSort {
        MergeSort {
            score: f.by == SortBy::Score,
            desc: f.order == SortOrder::Desc,
            missing_first: f.missing == Missing::First,
            unsigned: false,
        }
    }

    /// A sort field comparing as this one does (`by` only tells score from the rest).
    fn field(&self) -> SortField {
        SortField {
            by: if self.score { SortBy::Score } else { SortBy::Doc },
            order: if self.desc { SortOrder::Desc } else { SortOrder::Asc },
            missing: if self.missing_first { Missing::First } else { Missing::Last },
            nested: None,
        }
    }
}

/// One fetched hit and what it merges by.
#[derive(Debug, Clone, PartialEq)]
pub struct NodeHit {
    pub json: HitJson,
    /// The hit's score (NaN when a field sort did not score).
    pub score: f32,
    /// Its sort values (empty when sorted by score).
    pub sort_values: Vec<SortValue>,
    /// Its collapse value, with `collapse`.
    pub key: Option<Value>,
    /// In a scroll, the hit as its unit's last emitted one (set when it makes the page).
    pub mark: Option<super::execute::LastHit>,
    /// Its shard `(index, shard)`: hits that tie across nodes are ordered by shard, as
    /// OpenSearch orders the shards of a search (by index name, then number).
    pub shard: Option<(String, u32)>,
}

/// One shard failure: its HTTP status and its `_shards.failures` entry.
pub type FailureEntry = (u16, Value);

/// One node's query+fetch over its target shards.
#[derive(Debug, Clone, Default)]
pub struct NodeResult {
    /// The hits in merge order (a node's own best `from + size`, or the page on one node).
    pub hits: Vec<NodeHit>,
    pub total: u64,
    /// `hits.total.relation` is `gte`.
    pub total_gte: bool,
    /// The best score before the sort decides whether it is reported.
    pub max_score: Option<f32>,
    /// The request's sort as resolved (empty: by score).
    pub sort: Vec<MergeSort>,
    /// The aggregation partials, one list per search unit.
    pub aggs: Vec<Vec<AggResult>>,
    /// With `"profile": true`: the searched shards' `profile.shards[]` entries.
    pub profiles: Vec<Value>,
    pub timed_out: bool,
    pub terminated_early: Option<bool>,
    /// Shards searched (failed ones included).
    pub shards: usize,
    /// Shards failed.
    pub failed: usize,
    /// The failures as `_shards.failures` lists them (grouped per index and reason).
    pub failures: Vec<FailureEntry>,
}

/// The node result of shards that all failed with `e` (a node that cannot be reached, or a
/// node's own all-shards-failed error).
pub fn all_failed_result(e: &OsError, shards: &[(String, u32)]) -> NodeResult {
    let entries: Vec<FailureEntry> = match e
        .meta
        .get("failed_shards")
        .and_then(Value::as_array)
        .filter(|_| e.kind == ErrorKind::SearchPhaseExecution)
    {
        Some(fs) => fs.iter().map(|f| (e.status, f.clone())).collect(),
        None => {
            let mut seen: Vec<&str> = Vec::new();
            let mut out = Vec::new();
            for (index, shard) in shards {
                if seen.contains(&index.as_str()) {
                    continue;
                }
                seen.push(index);
                out.push((e.status, json!({"shard": shard, "index": index, "node": null, "reason": e.to_json()})));
            }
            out
        }
    };
    NodeResult { shards: shards.len(), failed: shards.len(), failures: entries, ..NodeResult::default() }
}

/// Whether a node's error fails only its shards (it could not be reached, or every shard
/// failed there) rather than the whole request (a bad request fails the same on every node).
pub fn fails_shards_only(e: &OsError) -> bool {
    matches!(
        e.kind,
        ErrorKind::SearchPhaseExecution
            | ErrorKind::NodeNotConnected
            | ErrorKind::ConnectTransport
            | ErrorKind::ReceiveTimeoutTransport
            | ErrorKind::NodeDisconnected
            | ErrorKind::ActionNotFoundTransport
            | ErrorKind::NoShardAvailableAction
    ) && !(e.kind == ErrorKind::SearchPhaseExecution
        && e.meta.get("failed_shards").and_then(|f| f.as_array()).is_none_or(|f| f.is_empty()))
}

/// OpenSearch's `validateMergeSortValueFormats`: a sort field that is an `unsigned_long` in one
/// index must be one in every index (its values do not compare with other numbers).
pub fn mixed_unsigned_sorts() -> OsError {
    let cause = OsError::illegal("Can't do sort across indices, as a field has [unsigned_long] type in one index, and different type in another index!");
    OsError::new(ErrorKind::SearchPhaseExecution, "")
        .status(400)
        .with("phase", "fetch")
        .with("grouped", true)
        .with("failed_shards", json!([]))
        .caused_by(cause)
}

/// Reduces node results into the response body. `paged`: the single result's hits are the
/// page already (a search of local shards only); otherwise the hits of all results merge
/// (by score or the sort values; ties by shard, then position) and the page is cut.
pub fn finish(parts: Vec<NodeResult>, req: &SearchRequest, start: Instant, paged: bool) -> OsResult<SearchBody> {
    let sort: Vec<MergeSort> = parts.iter().find(|p| !p.sort.is_empty()).map(|p| p.sort.clone()).unwrap_or_default();
    let unsigned = |s: &[MergeSort]| s.iter().map(|f| f.unsigned).collect::<Vec<_>>();
    if parts.iter().any(|p| !p.sort.is_empty() && unsigned(&p.sort) != unsigned(&sort)) {
        return Err(mixed_unsigned_sorts());
    }
    let mut total = 0u64;
    let mut gte = false;
    let mut max_score: Option<f32> = None;
    let mut timed_out = false;
    let mut terminated_early: Option<bool> = None;
    let (mut shards_total, mut failed) = (0usize, 0usize);
    let mut failures: Vec<FailureEntry> = Vec::new();
    let mut aggs: Vec<Vec<AggResult>> = Vec::new();
    let mut profiles: Vec<Value> = Vec::new();
    let mut hits: Vec<NodeHit> = Vec::new();
    for p in parts {
        total += p.total;
        gte |= p.total_gte;
        if let Some(m) = p.max_score.filter(|m| !m.is_nan()) {
            max_score = Some(max_score.map_or(m, |x| x.max(m)));
        }
        timed_out |= p.timed_out;
        if let Some(t) = p.terminated_early {
            terminated_early = Some(terminated_early.unwrap_or(false) || t);
        }
        shards_total += p.shards;
        failed += p.failed;
        for f in p.failures {
            let key = |v: &Value| (v["index"].clone(), v["reason"]["type"].clone(), v["reason"]["reason"].clone());
            if !failures.iter().any(|(_, g)| key(g) == key(&f.1)) {
                failures.push(f);
            }
        }
        aggs.extend(p.aggs);
        profiles.extend(p.profiles);
        hits.extend(p.hits);
    }
    if shards_total > 0 && failed == shards_total {
        return Err(all_failed(&failures));
    }
    if let TrackTotalHits::UpTo(n) = req.track_total_hits {
        if total > n {
            total = n;
            gte = true;
        }
    }
    if !paged {
        hits = merge_hits(hits, &sort, req);
    }
    let aggregations = match &req.aggs {
        None => None,
        Some(defs) => {
            let reduced = super::aggs::reduce_all(defs, aggs, req.batched_reduce_size, req.max_buckets)?;
            Some(super::aggs::render(defs, &reduced, &super::aggs::RenderCtx { typed_keys: req.typed_keys })?)
        }
    };
    // A sort reports a max score only when it leads with `_score` descending (the first hit's
    // score, OpenSearch 3.2+) or with `track_scores`.
    let score_first = sort.first().is_some_and(|f| f.score && f.desc);
    let max_score = if !sort.is_empty() && !score_first && !req.track_scores { None } else { max_score };
    let mut shards_json =
        json!({"total": shards_total, "successful": shards_total - failed, "skipped": 0, "failed": failed});
    if failed > 0 {
        shards_json["failures"] = Value::Array(failures.into_iter().map(|f| f.1).collect());
    }
    let total = if req.track_total_hits != TrackTotalHits::Disabled || req.rest_total_hits_as_int {
        Some(if req.rest_total_hits_as_int {
            if req.track_total_hits == TrackTotalHits::Disabled {
                json!(-1)
            } else {
                json!(total)
            }
        } else {
            json!({"value": total, "relation": if gte { "gte" } else { "eq" }})
        })
    } else {
        None
    };
    Ok(SearchBody {
        took: start.elapsed().as_millis() as u64,
        timed_out,
        terminated_early,
        shards: shards_json,
        total,
        max_score,
        hits: hits.into_iter().map(|h| h.json).collect(),
        aggregations,
        profile: req.profile.then(|| {
            // OpenSearch lists the shards by their id.
            profiles.sort_by(|a, b| a["id"].as_str().cmp(&b["id"].as_str()));
            json!({ "shards": profiles })
        }),
    })
}

/// Merges the hits of several nodes (each list in merge order) and cuts `from..from + size`;
/// with `collapse`, the first hit of each value across nodes.
fn merge_hits(mut hits: Vec<NodeHit>, sort: &[MergeSort], req: &SearchRequest) -> Vec<NodeHit> {
    // A stable sort: ties by shard, then each node's own order.
    if sort.is_empty() {
        hits.sort_by(|a, b| b.score.total_cmp(&a.score).then_with(|| a.shard.cmp(&b.shard)));
    } else {
        let fields: Vec<SortField> = sort.iter().map(MergeSort::field).collect();
        hits.sort_by(|a, b| {
            query::sort::cmp_values(&a.sort_values, &b.sort_values, &fields).then_with(|| a.shard.cmp(&b.shard))
        });
    }
    if req.collapse.is_some() {
        let mut seen = std::collections::HashSet::new();
        hits.retain(|h| seen.insert(h.key.as_ref().map(Value::to_string)));
    }
    hits.into_iter().skip(req.from).take(req.size).collect()
}

/// How many hits of each of `parts` make the page `merge_hits` cuts (without `collapse`): a
/// prefix of each part's hits, since the merge is stable.
pub fn page_counts(parts: &[NodeResult], req: &SearchRequest) -> Vec<usize> {
    let sort: Vec<MergeSort> = parts.iter().find(|p| !p.sort.is_empty()).map(|p| p.sort.clone()).unwrap_or_default();
    let mut all: Vec<(usize, &NodeHit)> =
        parts.iter().enumerate().flat_map(|(i, p)| p.hits.iter().map(move |h| (i, h))).collect();
    if sort.is_empty() {
        all.sort_by(|a, b| b.1.score.total_cmp(&a.1.score).then_with(|| a.1.shard.cmp(&b.1.shard)));
    } else {
        let fields: Vec<SortField> = sort.iter().map(MergeSort::field).collect();
        all.sort_by(|a, b| {
            query::sort::cmp_values(&a.1.sort_values, &b.1.sort_values, &fields).then_with(|| a.1.shard.cmp(&b.1.shard))
        });
    }
    let mut counts = vec![0; parts.len()];
    for (i, _) in all.into_iter().skip(req.from).take(req.size) {
        counts[i] += 1;
    }
    counts
}

/// OpenSearch's `search_phase_execution_exception` "all shards failed" over the failures of
/// several nodes: the first failure is the cause.
pub fn all_failed(failures: &[FailureEntry]) -> OsError {
    let status = failures.first().map_or(503, |f| f.0);
    let mut e = OsError::new(ErrorKind::SearchPhaseExecution, "all shards failed")
        .status(status)
        .with("phase", "query")
        .with("grouped", true)
        .with("failed_shards", Value::Array(failures.iter().map(|f| f.1.clone()).collect()));
    if let Some((st, f)) = failures.first() {
        e = e.caused_by(OsError::from_json(&f["reason"], *st));
    }
    e
}

#[cfg(test)]
#[path = "node_result_tests.rs"]
mod tests;
