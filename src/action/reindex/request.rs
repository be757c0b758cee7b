//! Parsing of `_reindex`, `_update_by_query` and `_delete_by_query` requests into a [`Job`], with
//! OpenSearch's messages (`ReindexRequest.fromXContent`, `AbstractBulkByQueryRestHandler`,
//! `AbstractBulkByScrollRequest.validate`, `RemoteInfo`).

use std::time::Duration;

use serde_json::{Map, Value};

use super::remote::RemoteInfo;
use crate::action::documents::ActiveWait;
use crate::action::search::SearchRequest;
use crate::cluster::resolve::IndicesOptions;
use crate::error::{unknown_field, ErrorKind, OsError, OsResult};
use crate::script::Script;

/// Which of the three actions a job is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Reindex,
    UpdateByQuery,
    DeleteByQuery,
}

impl Kind {
    /// The task's action name.
    pub fn action(self) -> &'static str {
        match self {
            Kind::Reindex => "indices:data/write/reindex",
            Kind::UpdateByQuery => "indices:data/write/update/byquery",
            Kind::DeleteByQuery => "indices:data/write/delete/byquery",
        }
    }
}

/// `slices`: a count or `auto` (one per shard of the source, at most 20).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Slices {
    Count(u32),
    Auto,
}

/// `dest.routing` of a reindex.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum Routing {
    #[default]
    Keep,
    Discard,
    Set(String),
}

/// `dest` of a reindex.
#[derive(Debug, Clone, Default)]
pub struct Dest {
    pub index: String,
    /// `internal`, `external`, `external_gt`, `external_gte`.
    pub version_type: Option<String>,
    pub op_create: bool,
    pub pipeline: Option<String>,
    pub routing: Routing,
}

/// A compiled script with its params.
#[derive(Debug, Clone)]
pub struct JobScript {
    pub script: Script,
    pub params: Map<String, Value>,
}

/// A parsed request.
#[derive(Debug, Clone)]
pub struct Job {
    pub kind: Kind,
    /// Source index expression.
    pub source: String,
    pub opts: IndicesOptions,
    /// The source search (query, sort, `_source`, batch `size`).
    pub search: SearchRequest,
    pub remote: Option<RemoteInfo>,
    pub dest: Option<Dest>,
    pub max_docs: Option<u64>,
    pub abort_on_conflict: bool,
    pub script: Option<JobScript>,
    pub refresh: bool,
    pub wait: ActiveWait,
    pub scroll: Duration,
    /// Documents per second; infinite when unthrottled.
    pub requests_per_second: f32,
    pub slices: Slices,
    pub require_alias: bool,
    /// `pipeline` of an update by query.
    pub pipeline: Option<String>,
    /// `routing` of an update or delete by query (the search's, kept on the writes).
    pub routing: Option<String>,
}

/// The default scroll batch size.
pub const DEFAULT_BATCH: usize = 1000;
/// The default scroll keep-alive.
pub const DEFAULT_SCROLL: Duration = Duration::from_secs(300);

impl Job {
    pub fn new(kind: Kind) -> Job {
        Job {
            kind,
            source: String::new(),
            opts: IndicesOptions::lenient_expand_open(),
            search: SearchRequest { size: DEFAULT_BATCH, ..SearchRequest::default() },
            remote: None,
            dest: None,
            max_docs: None,
            abort_on_conflict: true,
            script: None,
            refresh: false,
            wait: ActiveWait::default(),
            scroll: DEFAULT_SCROLL,
            requests_per_second: f32::INFINITY,
            slices: Slices::Count(1),
            require_alias: false,
            pipeline: None,
            routing: None,
        }
    }

    /// `setMaxDocs` with its checks: negative values and two different values are errors.
    pub fn set_max_docs(&mut self, n: i64) -> OsResult<()> {
        if n < 0 {
            return Err(OsError::illegal(format!("[max_docs] parameter cannot be negative, found [{n}]")));
        }
        if let Some(old) = self.max_docs {
            if old != n as u64 {
                return Err(OsError::illegal(format!("[max_docs] set to two different values [{old}] and [{n}]")));
            }
        }
        self.max_docs = Some(n as u64);
        Ok(())
    }

    /// `conflicts`: `abort` or `proceed`.
    pub fn set_conflicts(&mut self, v: &str) -> OsResult<()> {
        self.abort_on_conflict = match v {
            "abort" => true,
            "proceed" => false,
            other => {
                return Err(OsError::illegal(format!(
                    "conflicts may only be \"proceed\" or \"abort\" but was [{other}]"
                )))
            }
        };
        Ok(())
    }

    /// `AbstractBulkByScrollRequest.validate` and the search checks of a bulk-by-scroll source.
    pub fn validate(&self) -> OsResult<()> {
        let mut errs = Vec::new();
        if self.search.from > 0 {
            errs.push("from is not supported in this context".to_string());
        }
        if self.search.stored_fields.is_some() {
            errs.push("stored_fields is not supported in this context".to_string());
        }
        if let (Some(m), Slices::Count(s)) = (self.max_docs, self.slices) {
            if m < u64::from(s) {
                errs.push("[max_docs] should be >= [slices]".to_string());
            }
        }
        if self.kind == Kind::Reindex && self.dest.as_ref().is_none_or(|d| d.index.is_empty()) {
            errs.push("index must be specified".to_string());
        }
        if !errs.is_empty() {
            return Err(OsError::validation(&errs));
        }
        if self.search.source_set && self.search.source.disabled {
            return Err(OsError::illegal("_source:false is not supported in this context"));
        }
        Ok(())
    }
}

/// `requests_per_second` (`-1`: unthrottled).
pub fn parse_rps(v: Option<&str>) -> OsResult<Option<f32>> {
    let Some(s) = v else { return Ok(None) };
    let bad =
        || OsError::illegal("[requests_per_second] must be a float greater than 0. Use -1 to disable throttling.");
    let f: f32 = s.trim().parse().map_err(|_| bad())?;
    if f == -1.0 {
        return Ok(Some(f32::INFINITY));
    }
    if f.is_nan() || f <= 0.0 {
        return Err(bad());
    }
    Ok(Some(f))
}

/// `slices`: a positive integer or `auto`.
pub fn parse_slices(v: Option<&str>) -> OsResult<Slices> {
    let Some(s) = v else { return Ok(Slices::Count(1)) };
    if s == "auto" {
        return Ok(Slices::Auto);
    }
    match s.parse::<i64>() {
        Ok(n) if n > 0 && n <= i64::from(u32::MAX) => Ok(Slices::Count(n as u32)),
        _ => {
            Err(OsError::illegal(format!("[slices] must be a positive integer or the string \"auto\", but was [{s}]")))
        }
    }
}

fn number_format(v: &Value) -> OsError {
    let s = v.as_str().map_or_else(|| v.to_string(), str::to_string);
    OsError::new(ErrorKind::NumberFormat, format!("For input string: \"{s}\""))
}

fn int_value(v: &Value) -> OsResult<i64> {
    match v {
        Value::Number(n) => n.as_i64().ok_or_else(|| number_format(v)),
        Value::String(s) => s.trim().parse().map_err(|_| number_format(v)),
        _ => Err(number_format(v)),
    }
}

fn string_value(parser: &str, key: &str, v: &Value) -> OsResult<String> {
    match v {
        Value::String(s) => Ok(s.clone()),
        Value::Number(n) => Ok(n.to_string()),
        Value::Bool(b) => Ok(b.to_string()),
        _ => Err(OsError::new(
            ErrorKind::XContentParse,
            format!("[{parser}] {key} doesn't support values of type: {}", token(v)),
        )),
    }
}

fn token(v: &Value) -> &'static str {
    match v {
        Value::Object(_) => "START_OBJECT",
        Value::Array(_) => "START_ARRAY",
        Value::Null => "VALUE_NULL",
        _ => "VALUE",
    }
}

/// Compiles a request's `script` (a compile error is the request's 400).
pub fn parse_script(v: &Value) -> OsResult<JobScript> {
    let req =
        crate::script::parse_script_request(v).map_err(|e| crate::action::script_glue::search_script_error(&e))?;
    let script = req.compile().map_err(|e| crate::action::script_glue::search_script_error(&e))?;
    Ok(JobScript { script, params: req.params })
}

/// The body of a `_reindex`.
pub fn parse_reindex_body(job: &mut Job, body: &Value) -> OsResult<()> {
    let Some(m) = body.as_object() else {
        return Err(OsError::parsing("request body is required"));
    };
    for (k, v) in m {
        match k.as_str() {
            "source" => parse_source(job, v)?,
            "dest" => job.dest = Some(parse_dest(v)?),
            "size" | "max_docs" => job.set_max_docs(int_value(v)?)?,
            "conflicts" => job.set_conflicts(&string_value("reindex", k, v)?)?,
            "script" => job.script = Some(parse_script(v)?),
            other => {
                return Err(OsError::new(
                    ErrorKind::XContentParse,
                    unknown_field("reindex", other, &["conflicts", "dest", "max_docs", "script", "size", "source"]),
                ))
            }
        }
    }
    Ok(())
}

fn parse_source(job: &mut Job, v: &Value) -> OsResult<()> {
    let Some(m) = v.as_object() else {
        return Err(OsError::new(ErrorKind::XContentParse, "[reindex] source doesn't support values of type: VALUE"));
    };
    let mut search = Map::new();
    let mut indices: Vec<String> = Vec::new();
    let mut size = None;
    for (k, v) in m {
        match k.as_str() {
            "index" => match v {
                Value::Array(a) => {
                    for i in a {
                        indices.push(string_value("source", k, i)?);
                    }
                }
                other => indices.extend(string_value("source", k, other)?.split(',').map(str::to_string)),
            },
            "remote" => job.remote = Some(RemoteInfo::parse(v)?),
            "size" => size = Some(int_value(v)?),
            _ => {
                search.insert(k.clone(), v.clone());
            }
        }
    }
    job.source = indices.join(",");
    job.search = SearchRequest::from_body(Value::Object(search))?;
    job.search.size = match size {
        Some(n) if n < 0 => return Err(OsError::illegal(format!("[size] parameter cannot be negative, found [{n}]"))),
        Some(n) => n as usize,
        None => DEFAULT_BATCH,
    };
    Ok(())
}

fn parse_dest(v: &Value) -> OsResult<Dest> {
    let Some(m) = v.as_object() else {
        return Err(OsError::new(ErrorKind::XContentParse, "[reindex] dest doesn't support values of type: VALUE"));
    };
    let mut d = Dest::default();
    for (k, v) in m {
        let s = || string_value("dest", k, v);
        match k.as_str() {
            "index" => d.index = s()?,
            "version_type" => {
                let t = s()?;
                crate::action::documents::parse_version_type(Some(&t))?;
                d.version_type = Some(t);
            }
            "op_type" => {
                d.op_create = match s()?.as_str() {
                    "create" => true,
                    "index" => false,
                    other => {
                        return Err(OsError::illegal(format!("opType must be 'create' or 'index', found: [{other}]")))
                    }
                }
            }
            "pipeline" => d.pipeline = Some(s()?),
            "routing" => {
                d.routing = match s()?.as_str() {
                    "keep" => Routing::Keep,
                    "discard" => Routing::Discard,
                    r if r.starts_with('=') => Routing::Set(r[1..].to_string()),
                    other => {
                        return Err(OsError::illegal(format!(
                            "Routing must be [keep], [discard] or [=<some new value>] but was [{other}]"
                        )))
                    }
                }
            }
            other => {
                return Err(OsError::new(
                    ErrorKind::XContentParse,
                    unknown_field("dest", other, &["index", "op_type", "pipeline", "routing", "version_type"]),
                ))
            }
        }
    }
    Ok(d)
}

/// The body of an update or delete by query: `conflicts`, `max_docs`, `size` (deprecated
/// `max_docs`), `script` (update only) and the search.
pub fn parse_by_query_body(job: &mut Job, body: &Value) -> OsResult<()> {
    let mut search = Map::new();
    if let Some(m) = body.as_object() {
        for (k, v) in m {
            match k.as_str() {
                "conflicts" => job.set_conflicts(&string_value("by_query", k, v)?)?,
                "max_docs" | "size" => job.set_max_docs(int_value(v)?)?,
                "script" if job.kind == Kind::UpdateByQuery => job.script = Some(parse_script(v)?),
                _ => {
                    search.insert(k.clone(), v.clone());
                }
            }
        }
    }
    if job.kind == Kind::DeleteByQuery && !search.contains_key("query") && !search.contains_key("stored_fields") {
        return Err(OsError::validation(&["query is missing".to_string()]));
    }
    job.search = SearchRequest::from_body(Value::Object(search))?;
    job.search.size = DEFAULT_BATCH;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn max_docs_checks() {
        let mut j = Job::new(Kind::Reindex);
        assert!(j.set_max_docs(-4).unwrap_err().reason.contains("cannot be negative, found [-4]"));
        j.set_max_docs(4).expect("set");
        assert!(j.set_max_docs(5).unwrap_err().reason.contains("two different values [4] and [5]"));
    }

    #[test]
    fn rps_and_slices() {
        assert_eq!(parse_rps(Some("-1")).expect("rps"), Some(f32::INFINITY));
        for bad in ["", "0", "-12", "unlimited"] {
            assert!(parse_rps(Some(bad)).is_err(), "{bad}");
        }
        assert_eq!(parse_slices(Some("auto")).expect("auto"), Slices::Auto);
        assert!(parse_slices(Some("0")).is_err());
        assert!(parse_slices(Some("junk")).is_err());
    }

    #[test]
    fn reindex_body_errors() {
        let mut j = Job::new(Kind::Reindex);
        let e = parse_reindex_body(&mut j, &json!({"junk": {}})).unwrap_err();
        assert!(e.reason.contains("unknown field [junk]"), "{}", e.reason);
        let e = parse_reindex_body(&mut j, &json!({"dest": {"version": 10}})).unwrap_err();
        assert!(e.reason.contains("[dest] unknown field [version]"), "{}", e.reason);
        let e = parse_reindex_body(&mut j, &json!({"conflicts": "cat"})).unwrap_err();
        assert!(e.reason.contains("but was [cat]"), "{}", e.reason);
        let e = parse_reindex_body(&mut j, &json!({"source": {"size": "cat"}})).unwrap_err();
        assert_eq!(e.kind, ErrorKind::NumberFormat);
        let mut j = Job::new(Kind::Reindex);
        parse_reindex_body(&mut j, &json!({"source": {"from": 1}, "dest": {"index": "d"}})).expect("parsed");
        assert!(j.validate().unwrap_err().reason.contains("from is not supported in this context"));
    }
}
