//! The search request: the body (`query`, `from`, `size`, `sort`, ...) and URL parameters (which
//! win over the body, as in OpenSearch's `RestSearchAction`), parsed without the mapping.

use serde_json::{Map, Value};

use super::dsl::perr;
use super::field_values::{self, FieldAndFormat};
use super::sort::{parse_sort, SortSpec};
use crate::action::source_filter::SourceFilter;
use crate::engine::query::TrackTotalHits;
use crate::error::{ErrorKind, OsError, OsResult};

/// Default `track_total_hits` threshold.
pub const DEFAULT_TRACK_TOTAL_HITS: u64 = 10_000;

/// A parsed `_search` request.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct SearchRequest {
    /// The query (`None`: match_all).
    pub query: Option<Value>,
    /// A Lucene query string from `q=` with its options.
    pub q: Option<QueryStringParams>,
    pub post_filter: Option<Value>,
    pub from: usize,
    pub size: usize,
    pub sort: Vec<SortSpec>,
    pub search_after: Option<Vec<Value>>,
    pub track_total_hits: TrackTotalHits,
    /// Whether `track_total_hits` was given explicitly.
    pub track_total_hits_set: bool,
    pub rest_total_hits_as_int: bool,
    pub source: SourceFilter,
    /// Whether `_source` was given explicitly.
    pub source_set: bool,
    /// `stored_fields` (`_none_` disables metadata and source).
    pub stored_fields: Option<Vec<String>>,
    pub docvalue_fields: Vec<FieldAndFormat>,
    /// The fields API (`fields`).
    pub fields: Vec<FieldAndFormat>,
    /// `timeout`: the query phase's time budget (partial results and `timed_out: true` past it).
    pub timeout: Option<std::time::Duration>,
    pub version: bool,
    pub seq_no_primary_term: bool,
    pub explain: bool,
    /// `"profile": true`: each shard reports its query and aggregation timings.
    #[serde(default)]
    pub profile: bool,
    pub track_scores: bool,
    pub min_score: Option<f32>,
    pub terminate_after: Option<u64>,
    pub highlight: Option<Value>,
    /// `routing`: only the shards these comma-separated values route to are searched.
    pub routing: Option<String>,
    /// `preference` (`_shards:...` restricts the shards searched).
    pub preference: Option<String>,
    /// `search_type=dfs_query_then_fetch`.
    pub dfs: bool,
    /// `"pit": {"id", "keep_alive"}` (searched by `pit::search`).
    pub pit: Option<Value>,
    /// `scroll=` keep alive: the search opens a scroll (no result-window check on later pages).
    pub scroll: Option<std::time::Duration>,
    /// `request_cache=`: whether the shards' request cache serves the search (see
    /// [`super::request_cache`]); `true` is refused with `scroll`.
    pub request_cache: Option<bool>,
    /// `script_fields` and `rescore` as given: not built yet, refused after the shards' limit
    /// checks on them (see [`super::limits`]).
    pub script_fields: Option<Value>,
    pub rescore: Option<Value>,
    /// `include_named_queries_score`: `matched_queries` maps each name to its score.
    pub named_queries_score: bool,
    /// `slice`: one slice of a scroll or PIT search.
    pub slice: Option<super::slice::Slice>,
    /// `collapse`: one hit per value of a field.
    pub collapse: Option<super::collapse::Collapse>,
    /// `indices_boost` as given: `(index expression, boost)`.
    pub indices_boost: Vec<(String, f32)>,
    /// `indices_boost` resolved to concrete indices (see [`super::index_boost`]).
    pub resolved_boosts: Option<Vec<(String, f32)>>,
    /// Deprecation warnings the shards' query parsers leave for the answer (output, not input).
    #[serde(skip)]
    pub warnings: crate::action::deferred::Warnings,
    /// `aggs` (or `aggregations`), parsed (sent to other nodes as [`Self::aggs_source`]).
    #[serde(skip)]
    pub aggs: Option<std::sync::Arc<Vec<super::aggs::AggDef>>>,
    /// `typed_keys`: aggregation names carry their type (`sterms#name`).
    pub typed_keys: bool,
    /// `batched_reduce_size`: shard results reduced at once (default 512).
    pub batched_reduce_size: usize,
    /// `aggs` as given, parsed again by the other nodes of a search across nodes.
    pub aggs_source: Option<Value>,
    /// `search.max_buckets` (a cluster setting) for the final reduce, set by the coordinating
    /// node.
    pub max_buckets: u64,
    /// `search.allow_expensive_queries` (a cluster setting), set by the coordinating node:
    /// when false, the queries OpenSearch calls expensive are refused.
    #[serde(default = "yes")]
    pub allow_expensive_queries: bool,
    /// The number of shards of the whole search when this node runs part of it across nodes
    /// (aggregations size their shard results by it).
    pub total_shards: Option<usize>,
    /// With a PIT or scroll across nodes: each searched context's place among the id's shards
    /// (what `_shard_doc` values encode, so they compare across nodes).
    #[serde(default)]
    pub shard_ordinals: Option<Vec<usize>>,
    /// With `dfs_query_then_fetch` across nodes: the statistics the dfs round summed, in force
    /// while this node's units compile (sent beside the request, see `super::remote`).
    #[serde(skip)]
    pub dfs_stats: Option<std::sync::Arc<crate::engine::query::dfs::DfsStats>>,
    /// The search stats groups (`"stats": [..]`) this search also counts in.
    #[serde(default)]
    pub stats_groups: Vec<String>,
}

/// `q=` and its companions.
#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
pub struct QueryStringParams {
    pub q: String,
    pub df: Option<String>,
    pub default_operator: Option<String>,
    pub analyzer: Option<String>,
    pub lenient: bool,
    pub analyze_wildcard: bool,
}

impl Default for SearchRequest {
    fn default() -> Self {
        SearchRequest {
            query: None,
            q: None,
            post_filter: None,
            from: 0,
            size: 10,
            sort: vec![],
            search_after: None,
            track_total_hits: TrackTotalHits::UpTo(DEFAULT_TRACK_TOTAL_HITS),
            track_total_hits_set: false,
            rest_total_hits_as_int: false,
            source: SourceFilter::default(),
            source_set: false,
            stored_fields: None,
            docvalue_fields: vec![],
            fields: vec![],
            timeout: None,
            version: false,
            seq_no_primary_term: false,
            explain: false,
            profile: false,
            track_scores: false,
            min_score: None,
            terminate_after: None,
            highlight: None,
            routing: None,
            preference: None,
            dfs: false,
            pit: None,
            scroll: None,
            request_cache: None,
            script_fields: None,
            rescore: None,
            named_queries_score: false,
            slice: None,
            collapse: None,
            indices_boost: Vec::new(),
            resolved_boosts: None,
            warnings: Default::default(),
            aggs: None,
            typed_keys: false,
            batched_reduce_size: 512,
            aggs_source: None,
            max_buckets: super::aggs::DEFAULT_MAX_BUCKETS,
            allow_expensive_queries: true,
            total_shards: None,
            shard_ordinals: None,
            dfs_stats: None,
            stats_groups: Vec::new(),
        }
    }
}

fn yes() -> bool {
    true
}

fn int(key: &str, v: &Value) -> OsResult<i64> {
    match v {
        Value::Number(n) => n.as_i64().ok_or_else(|| perr(format!("[{key}] must be an integer"))),
        Value::String(s) => s.parse::<i64>().map_err(|_| perr(format!("[{key}] failed to parse field [{key}]"))),
        _ => Err(perr(format!("[{key}] must be an integer"))),
    }
}

/// An `int` field: a JSON number beyond Java's `int` range fails as Jackson's coercion does.
fn int32(key: &str, v: &Value) -> OsResult<i64> {
    let n = int(key, v)?;
    if n > i32::MAX as i64 || n < i32::MIN as i64 {
        return Err(OsError::new(
            ErrorKind::InputCoercion,
            format!("Numeric value ({n}) out of range of int (-2147483648 - 2147483647)"),
        ));
    }
    Ok(n)
}

fn flag(key: &str, v: &Value) -> OsResult<bool> {
    match v {
        Value::Bool(b) => Ok(*b),
        Value::String(s) if s == "true" => Ok(true),
        Value::String(s) if s == "false" => Ok(false),
        _ => Err(perr(format!("[{key}] must be a boolean"))),
    }
}

fn names(key: &str, v: &Value) -> OsResult<Vec<String>> {
    match v {
        Value::String(s) => Ok(vec![s.clone()]),
        Value::Array(a) => a
            .iter()
            .map(|x| match x {
                Value::String(s) => Ok(s.clone()),
                Value::Object(m) => m
                    .get("field")
                    .and_then(Value::as_str)
                    .map(str::to_string)
                    .ok_or_else(|| perr(format!("[{key}] entries need a [field]"))),
                _ => Err(perr(format!("[{key}] must be a list of strings"))),
            })
            .collect(),
        _ => Err(perr(format!("[{key}] must be a list of strings"))),
    }
}

/// Parses `track_total_hits` (`true`, `false`, a number).
pub fn parse_track_total_hits(v: &Value) -> OsResult<TrackTotalHits> {
    match v {
        Value::Bool(true) => Ok(TrackTotalHits::Accurate),
        Value::Bool(false) => Ok(TrackTotalHits::Disabled),
        Value::String(s) if s == "true" => Ok(TrackTotalHits::Accurate),
        Value::String(s) if s == "false" => Ok(TrackTotalHits::Disabled),
        other => {
            let n = int("track_total_hits", other)?;
            if n < -1 {
                return Err(OsError::validation(&[
                    "[track_total_hits] parameter must be positive or equals to -1, got ".to_string() + &n.to_string(),
                ]));
            }
            Ok(if n == -1 { TrackTotalHits::Accurate } else { TrackTotalHits::UpTo(n as u64) })
        }
    }
}

/// OpenSearch's `parsing_exception` for a search body key it has no parser for.
pub(super) fn unknown_key(key: &str, v: &Value) -> OsError {
    let tok = match v {
        Value::Object(_) => "START_OBJECT",
        Value::Array(_) => "START_ARRAY",
        _ => "VALUE",
    };
    perr(format!("Unknown key for a {tok} in [{key}]."))
}

impl SearchRequest {
    /// Parses a request body (`Value::Null` for none).
    pub fn from_body(body: Value) -> OsResult<SearchRequest> {
        let mut r = SearchRequest::default();
        let m: Map<String, Value> = match body {
            Value::Null => return Ok(r),
            Value::Object(m) => m,
            _ => return Err(perr("Unexpected token in search body, expected START_OBJECT")),
        };
        // The body is taken by value: the query and other sub-objects move into the request.
        for (key, val) in m {
            let (k, v) = (key.as_str(), &val);
            match k {
                "query" => r.query = Some(val),
                "post_filter" => r.post_filter = Some(val),
                "from" => r.from = usize_from("from", int32(k, v)?)?,
                "size" => r.size = usize_from("size", int32(k, v)?)?,
                "sort" => r.sort = parse_sort(v)?,
                "search_after" => {
                    r.search_after = Some(v.as_array().cloned().ok_or_else(|| perr("[search_after] must be an array"))?)
                }
                "track_total_hits" => {
                    r.track_total_hits = parse_track_total_hits(v)?;
                    r.track_total_hits_set = true;
                }
                "_source" => {
                    r.source = SourceFilter::from_json(v).map_err(perr)?;
                    r.source_set = true;
                }
                "stored_fields" => r.stored_fields = Some(names(k, v)?),
                "docvalue_fields" => r.docvalue_fields = field_values::parse_list(k, v)?,
                "fields" => r.fields = field_values::parse_list(k, v)?,
                "timeout" => {
                    let s = match v {
                        Value::String(s) => s.clone(),
                        Value::Number(n) => n.to_string(),
                        _ => return Err(perr("[timeout] must be a string")),
                    };
                    r.timeout = parse_timeout(&s)?;
                }
                "version" => r.version = flag(k, v)?,
                "seq_no_primary_term" => r.seq_no_primary_term = flag(k, v)?,
                "explain" => r.explain = flag(k, v)?,
                "track_scores" => r.track_scores = flag(k, v)?,
                "slice" => r.slice = Some(super::slice::parse(v)?),
                "include_named_queries_score" => r.named_queries_score = flag(k, v)?,
                "min_score" => {
                    r.min_score = Some(v.as_f64().ok_or_else(|| perr("[min_score] must be a number"))? as f32)
                }
                "terminate_after" => r.terminate_after = Some(int(k, v)?.max(0) as u64),
                "profile" => r.profile = flag(k, v)?,
                // Asking for nothing: accepted.
                "ext" if v.as_object().is_some_and(|m| m.is_empty()) => {}
                // Parts of the search body Fathom does not build yet (the rest below) are
                // refused as an
                // OpenSearch node without them refuses an unknown key, never dropped.
                "indices_boost" if v.is_array() => {
                    r.indices_boost = super::index_boost::parse(v.as_array().map_or(&[][..], Vec::as_slice))?
                }
                "collapse" => r.collapse = Some(super::collapse::parse(v)?),
                "aggs" | "aggregations" => {
                    if r.aggs.is_some() {
                        return Err(perr("Found two aggregation definitions"));
                    }
                    let defs = super::aggs::parse::parse_aggs(v)?;
                    let mut deprecated = Vec::new();
                    super::aggs::pipeline::moving_avg::deprecations(&defs, &mut deprecated);
                    for w in deprecated {
                        r.warnings.warn(w);
                    }
                    r.aggs = Some(std::sync::Arc::new(defs));
                    r.aggs_source = Some(val.clone());
                }
                "stats" if v.as_array().is_some_and(|a| a.iter().all(Value::is_string)) => {
                    r.stats_groups =
                        v.as_array().into_iter().flatten().filter_map(|g| g.as_str().map(String::from)).collect()
                }
                "stats" | "indices_boost" | "ext" | "suggest" | "search_pipeline" | "derived" | "verbose_pipeline" => {
                    return Err(unknown_key(k, v));
                }
                "highlight" => r.highlight = Some(val),
                "script_fields" if v.is_object() => r.script_fields = Some(val),
                "rescore" if v.is_object() || v.is_array() => {
                    super::rescore::parse(v)?;
                    r.rescore = Some(val)
                }
                "pit" => {
                    if !v.is_object() {
                        return Err(perr("[point_in_time] must be an object"));
                    }
                    r.pit = Some(val);
                }
                other => return Err(unknown_key(other, v)),
            }
        }
        Ok(r)
    }

    /// Applies URL parameters (`get` returns a parameter's value).
    pub fn apply_params(&mut self, get: &dyn Fn(&str) -> Option<String>) -> OsResult<()> {
        let num = |k: &str| -> OsResult<Option<i64>> {
            get(k)
                .map(|s| {
                    s.parse::<i64>()
                        .map_err(|_| OsError::illegal(format!("Failed to parse int parameter [{k}] with value [{s}]")))
                })
                .transpose()
        };
        let boolp = |k: &str| -> OsResult<Option<bool>> {
            get(k)
                .map(|s| match s.as_str() {
                    "" | "true" => Ok(true),
                    "false" => Ok(false),
                    _ => Err(OsError::illegal(format!(
                        "Failed to parse value [{s}] as only [true] or [false] are allowed."
                    ))),
                })
                .transpose()
        };
        if let Some(q) = get("q") {
            self.q = Some(QueryStringParams {
                q,
                df: get("df"),
                default_operator: get("default_operator"),
                analyzer: get("analyzer"),
                lenient: boolp("lenient")?.unwrap_or(false),
                analyze_wildcard: boolp("analyze_wildcard")?.unwrap_or(false),
            });
        }
        if let Some(n) = num("from")? {
            self.from = usize_from("from", n)?;
        }
        if let Some(b) = boolp("typed_keys")? {
            self.typed_keys = b;
        }
        if let Some(n) = num("batched_reduce_size")? {
            if n < 2 {
                return Err(OsError::validation(&["batchedReduceSize must be >= 2".to_string()]));
            }
            self.batched_reduce_size = n as usize;
        }
        if let Some(n) = num("size")? {
            self.size = usize_from("size", n)?;
        }
        if let Some(s) = get("sort") {
            self.sort = super::sort::parse_sort_param(&s)?;
        }
        if let Some(v) = get("track_total_hits") {
            let val = match v.as_str() {
                "" | "true" => Value::Bool(true),
                "false" => Value::Bool(false),
                s => Value::String(s.to_string()),
            };
            self.track_total_hits = parse_track_total_hits(&val)?;
            self.track_total_hits_set = true;
        }
        if get("_source").is_some() || get("_source_includes").is_some() || get("_source_excludes").is_some() {
            self.source = SourceFilter::from_params(
                get("_source").as_deref(),
                get("_source_includes").as_deref(),
                get("_source_excludes").as_deref(),
            );
            self.source_set = true;
        }
        if let Some(s) = get("stored_fields") {
            self.stored_fields =
                Some(s.split(',').map(str::trim).filter(|x| !x.is_empty()).map(str::to_string).collect());
        }
        if let Some(s) = get("docvalue_fields") {
            self.docvalue_fields = s
                .split(',')
                .map(str::trim)
                .filter(|x| !x.is_empty())
                .map(|f| FieldAndFormat { field: f.to_string(), format: None })
                .collect();
        }
        if let Some(t) = get("timeout") {
            self.timeout = parse_timeout(&t)?;
        }
        if let Some(g) = get("stats") {
            self.stats_groups = g.split(',').map(str::trim).filter(|x| !x.is_empty()).map(str::to_string).collect();
        }
        for (k, slot) in [
            ("version", &mut self.version),
            ("seq_no_primary_term", &mut self.seq_no_primary_term),
            ("explain", &mut self.explain),
            ("track_scores", &mut self.track_scores),
            ("include_named_queries_score", &mut self.named_queries_score),
        ] {
            if let Some(b) = boolp(k)? {
                *slot = b;
            }
        }
        if let Some(n) = num("terminate_after")? {
            self.terminate_after = Some(n.max(0) as u64);
        }
        if let Some(b) = boolp("rest_total_hits_as_int")? {
            self.rest_total_hits_as_int = b;
        }
        if let Some(s) = get("scroll") {
            let d = crate::cluster::settings::parse_time(&s, "scroll").map_err(|_| {
                OsError::new(ErrorKind::Parse, format!("failed to parse setting [scroll] with value [{s}] as a time value: unit is missing or unrecognized"))
            })?;
            self.scroll = Some(d.unwrap_or(std::time::Duration::ZERO));
        }
        if let Some(b) = boolp("request_cache")? {
            self.request_cache = Some(b);
        }
        if let Some(r) = get("routing") {
            self.routing = Some(r);
        }
        if let Some(p) = get("preference") {
            self.preference = Some(p);
        }
        if let Some(t) = get("search_type") {
            match t.as_str() {
                "query_then_fetch" => self.dfs = false,
                "dfs_query_then_fetch" => self.dfs = true,
                other => return Err(OsError::illegal(format!("No search type for [{other}]"))),
            }
        }
        self.finish()
    }

    /// The error for a part of the body Fathom parses for its limits but does not build yet
    /// (`script_fields`, `rescore`): OpenSearch's error for a body key it has no parser for.
    pub fn refuse_unbuilt(&self) -> OsResult<()> {
        for (k, v) in [("script_fields", &self.script_fields)] {
            if let Some(v) = v {
                return Err(unknown_key(k, v));
            }
        }
        Ok(())
    }

    /// Cross-field checks after body and parameters are read.
    pub fn finish(&mut self) -> OsResult<()> {
        if self.scroll.is_some() && self.rescore.is_some() {
            return Err(OsError::validation(&["using [rescore] is not allowed in a scroll context".to_string()]));
        }
        if self.pit.is_none() && self.sort.iter().any(|s| s.field == "_shard_doc") {
            return Err(OsError::validation(&[
                "[_shard_doc] sort field cannot be used without [point in time]".to_string()
            ]));
        }
        if self.rest_total_hits_as_int {
            match self.track_total_hits {
                TrackTotalHits::Accurate => {}
                _ if !self.track_total_hits_set => self.track_total_hits = TrackTotalHits::Accurate,
                TrackTotalHits::UpTo(n) => {
                    return Err(OsError::illegal(format!(
                    "[rest_total_hits_as_int] cannot be used if the tracking of total hits is not accurate, got {n}"
                )))
                }
                TrackTotalHits::Disabled => {}
            }
        }
        Ok(())
    }
}

/// A `timeout` value (`10ms`, `1s`; `-1`: none), with OpenSearch's message for a bad one.
pub fn parse_timeout(s: &str) -> OsResult<Option<std::time::Duration>> {
    crate::cluster::settings::parse_time(s, "timeout").map_err(|_| {
        OsError::new(
            ErrorKind::Parse,
            format!(
                "failed to parse setting [timeout] with value [{s}] as a time value: unit is missing or unrecognized"
            ),
        )
        .status(400)
    })
}

fn usize_from(key: &str, n: i64) -> OsResult<usize> {
    if n < 0 {
        return Err(OsError::illegal(format!("[{key}] parameter cannot be negative, found [{n}]")));
    }
    Ok(n as usize)
}
