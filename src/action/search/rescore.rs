//! `rescore`: OpenSearch's query rescorer. Each shard re-scores the top `window_size` hits of
//! its first pass with a second query and re-sorts them (`QueryRescorer`): a hit the rescore query
//! matches scores `combine(first * query_weight, second * rescore_query_weight)` under
//! `score_mode`; one it does not match, and every hit past the window, scores
//! `first * query_weight`. Several rescorers run in order, each on the previous one's result.

use serde_json::Value;

use super::dsl::{self, perr, QueryContext};
use crate::engine::query::{Explanation, Hit, Query, Searcher};
use crate::error::{ErrorKind, OsError, OsResult};

/// `RescorerBuilder.DEFAULT_WINDOW_SIZE`.
pub const DEFAULT_WINDOW_SIZE: usize = 10;

/// How the two passes' scores combine (`QueryRescoreMode`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScoreMode {
    Total,
    Multiply,
    Avg,
    Max,
    Min,
}

impl ScoreMode {
    fn parse(s: &str) -> OsResult<ScoreMode> {
        Ok(match s {
            "total" => ScoreMode::Total,
            "multiply" => ScoreMode::Multiply,
            "avg" => ScoreMode::Avg,
            "max" => ScoreMode::Max,
            "min" => ScoreMode::Min,
            other => return Err(OsError::illegal(format!("illegal score_mode [{other}]"))),
        })
    }

    /// `QueryRescoreMode.combine`.
    pub fn combine(self, primary: f32, secondary: f32) -> f32 {
        match self {
            ScoreMode::Total => primary + secondary,
            ScoreMode::Multiply => primary * secondary,
            ScoreMode::Avg => (primary + secondary) / 2.0,
            ScoreMode::Max => primary.max(secondary),
            ScoreMode::Min => primary.min(secondary),
        }
    }

    /// The name in explanations (`QueryRescoreMode.toString`).
    fn name(self) -> &'static str {
        match self {
            ScoreMode::Total => "sum",
            ScoreMode::Multiply => "product",
            ScoreMode::Avg => "avg",
            ScoreMode::Max => "max",
            ScoreMode::Min => "min",
        }
    }
}

/// One rescorer as the request gives it.
#[derive(Debug, Clone, PartialEq)]
pub struct Rescore {
    pub window_size: usize,
    /// The `rescore_query` (parsed per shard, like the main query).
    pub query: Value,
    pub query_weight: f32,
    pub rescore_query_weight: f32,
    pub score_mode: ScoreMode,
}

/// Parses `rescore` (one object or an array of them), as `RescorerBuilder.parseFromXContent`.
pub fn parse(v: &Value) -> OsResult<Vec<Rescore>> {
    match v {
        Value::Array(a) => a.iter().map(parse_one).collect(),
        other => Ok(vec![parse_one(other)?]),
    }
}

fn parse_one(v: &Value) -> OsResult<Rescore> {
    let m = v.as_object().ok_or_else(|| perr("rescore must be an object"))?;
    let mut window = None;
    let mut rescore = None;
    for (k, v) in m {
        match (k.as_str(), v) {
            ("window_size", Value::Number(n)) => {
                let w = n.as_i64().ok_or_else(|| perr(format!("[window_size] must be an integer, got [{n}]")))?;
                window = Some(usize::try_from(w).map_err(|_| OsError::illegal("window_size must be >= 0"))?);
            }
            ("window_size", Value::String(s)) => {
                let w = s
                    .parse::<i64>()
                    .map_err(|_| OsError::new(ErrorKind::NumberFormat, format!("For input string: \"{s}\"")))?;
                window = Some(usize::try_from(w).map_err(|_| OsError::illegal("window_size must be >= 0"))?);
            }
            ("query", Value::Object(q)) => rescore = Some(parse_query_rescorer(q)?),
            (name, Value::Object(_)) => {
                return Err(OsError::new(ErrorKind::NamedObjectNotFound, format!("unknown field [{name}]")))
            }
            (name, Value::Array(_)) => return Err(perr(format!("unexpected token [START_ARRAY] after [{name}]"))),
            (name, _) => return Err(perr(format!("rescore doesn't support [{name}]"))),
        }
    }
    let mut r = rescore.ok_or_else(|| perr("missing rescore type"))?;
    r.window_size = window.unwrap_or(DEFAULT_WINDOW_SIZE);
    Ok(r)
}

fn parse_query_rescorer(m: &serde_json::Map<String, Value>) -> OsResult<Rescore> {
    let mut r = Rescore {
        window_size: DEFAULT_WINDOW_SIZE,
        query: Value::Null,
        query_weight: 1.0,
        rescore_query_weight: 1.0,
        score_mode: ScoreMode::Total,
    };
    let xparse = |reason: String| OsError::new(ErrorKind::XContentParse, reason);
    for (k, v) in m {
        match k.as_str() {
            "rescore_query" if v.is_object() => r.query = v.clone(),
            "rescore_query" => {
                return Err(xparse("[query] rescore_query doesn't support values of type: VALUE".into()))
            }
            "query_weight" => r.query_weight = dsl::f32_of("query", k, v)?,
            "rescore_query_weight" => r.rescore_query_weight = dsl::f32_of("query", k, v)?,
            "score_mode" => {
                let s = v
                    .as_str()
                    .ok_or_else(|| xparse("[query] score_mode doesn't support values of type: VALUE".into()))?;
                r.score_mode = ScoreMode::parse(s)?;
            }
            other => return Err(xparse(format!("[query] unknown field [{other}]"))),
        }
    }
    if r.query.is_null() {
        return Err(OsError::illegal("rescore_query cannot be null"));
    }
    Ok(r)
}

/// The rescorers of a request compiled for one shard.
#[derive(Debug)]
pub struct Compiled {
    pub rescores: Vec<(Rescore, Query)>,
}

impl Compiled {
    /// Parses each `rescore_query` for a shard.
    pub fn new(list: &[Rescore], qc: &QueryContext<'_>) -> OsResult<Compiled> {
        let rescores = list.iter().map(|r| Ok((r.clone(), dsl::parse(&r.query, qc)?))).collect::<OsResult<_>>()?;
        Ok(Compiled { rescores })
    }

    /// How many first-pass hits the shard must collect (`max(from + size, window_size)`).
    pub fn collect_size(&self, k: usize) -> usize {
        self.rescores.iter().map(|(r, _)| r.window_size).fold(k, usize::max)
    }

    /// Rescores `hits` (sorted by score) in place, as `QueryRescorer.rescore` then `combine`;
    /// returns, per rescorer, the hits its window held (for explanations).
    pub fn apply(&self, searcher: &Searcher, hits: &mut [Hit]) -> OsResult<Vec<Vec<(usize, u32)>>> {
        let mut windows = Vec::with_capacity(self.rescores.len());
        for (r, q) in &self.rescores {
            let n = r.window_size.min(hits.len());
            let docs: Vec<(usize, u32)> = hits[..n].iter().map(|h| (h.segment, h.doc)).collect();
            let second = searcher.score_docs(q, &docs)?;
            for (h, s) in hits[..n].iter_mut().zip(second) {
                h.score = match s {
                    Some(s) => r.score_mode.combine(h.score * r.query_weight, s * r.rescore_query_weight),
                    None => h.score * r.query_weight,
                };
            }
            hits[..n].sort_by(by_score);
            if hits.len() > n {
                // Past the window: as a hit the rescore query did not match; then all re-sorted.
                for h in &mut hits[n..] {
                    h.score *= r.query_weight;
                }
                hits.sort_by(by_score);
            }
            windows.push(docs);
        }
        Ok(windows)
    }

    /// The explanation of a hit with the rescorers' parts (`QueryRescorer.explain`), built on
    /// the first pass's explanation. `rescored[i]`: whether rescorer `i` had the hit in its window.
    pub fn explain(
        &self,
        searcher: &Searcher,
        segment: usize,
        doc: u32,
        mut source: Explanation,
        rescored: &[bool],
    ) -> OsResult<Explanation> {
        for (i, (r, q)) in self.rescores.iter().enumerate() {
            let prim = if source.matched {
                let v = source.value.as_f32() * r.query_weight;
                Explanation::float(
                    v,
                    "product of:",
                    vec![source, Explanation::float(r.query_weight, "primaryWeight", vec![])],
                )
            } else {
                Explanation::no_match("First pass did not match", vec![source])
            };
            source = prim;
            if rescored.get(i).copied().unwrap_or(false) {
                let e = searcher.explain(q, segment, doc)?;
                if e.matched {
                    let w = r.rescore_query_weight;
                    let sec = Explanation::float(
                        e.value.as_f32() * w,
                        "product of:",
                        vec![e, Explanation::float(w, "secondaryWeight", vec![])],
                    );
                    let v = r.score_mode.combine(source.value.as_f32(), sec.value.as_f32());
                    source = Explanation::float(v, format!("{} of:", r.score_mode.name()), vec![source, sec]);
                }
            }
        }
        Ok(source)
    }
}

/// Score descending, then segment and doc (Lucene's global doc order).
fn by_score(a: &Hit, b: &Hit) -> std::cmp::Ordering {
    b.score.total_cmp(&a.score).then(a.segment.cmp(&b.segment)).then(a.doc.cmp(&b.doc))
}

/// `Cannot use [sort] option in conjunction with [rescore].` unless the sort is `_score`
/// descending alone (which is no sort at all to OpenSearch).
pub fn check_sort(sort_is_score_only: bool) -> OsResult<()> {
    if !sort_is_score_only {
        return Err(OsError::illegal("Cannot use [sort] option in conjunction with [rescore]."));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn parses_one_or_many_with_defaults() {
        let r = parse(&json!({"query": {"rescore_query": {"match_all": {}}}})).unwrap();
        assert_eq!(r.len(), 1);
        assert_eq!((r[0].window_size, r[0].query_weight, r[0].score_mode), (10, 1.0, ScoreMode::Total));
        let r = parse(&json!([
            {"window_size": 5, "query": {"rescore_query": {"match_all": {}}, "query_weight": 0.5, "score_mode": "max"}},
            {"query": {"rescore_query": {"match_all": {}}, "rescore_query_weight": 2}}
        ]))
        .unwrap();
        assert_eq!((r[0].window_size, r[0].query_weight, r[0].score_mode), (5, 0.5, ScoreMode::Max));
        assert_eq!(r[1].rescore_query_weight, 2.0);
    }

    #[test]
    fn parse_errors_are_opensearch_s() {
        let e = |v: Value| parse(&v).unwrap_err();
        assert_eq!(e(json!({"window_size": 3})).reason, "missing rescore type");
        assert_eq!(e(json!({"foo": 1, "query": {}})).reason, "rescore doesn't support [foo]");
        assert_eq!(e(json!({"other": {}})).kind, ErrorKind::NamedObjectNotFound);
        assert_eq!(e(json!({"query": {}})).reason, "rescore_query cannot be null");
        assert_eq!(
            e(json!({"query": {"rescore_query": {"match_all": {}}, "x": 1}})).reason,
            "[query] unknown field [x]"
        );
        assert_eq!(
            e(json!({"query": {"rescore_query": {"match_all": {}}, "score_mode": "sum"}})).reason,
            "illegal score_mode [sum]"
        );
    }

    #[test]
    fn combine_modes() {
        assert_eq!(ScoreMode::Total.combine(1.0, 2.0), 3.0);
        assert_eq!(ScoreMode::Multiply.combine(1.5, 2.0), 3.0);
        assert_eq!(ScoreMode::Avg.combine(1.0, 2.0), 1.5);
        assert_eq!(ScoreMode::Max.combine(1.0, 2.0), 2.0);
        assert_eq!(ScoreMode::Min.combine(1.0, 2.0), 1.0);
    }
}
