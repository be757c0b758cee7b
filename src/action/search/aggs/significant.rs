//! `significant_terms` and `significant_text` (OpenSearch's `SignificantTermsAggregationBuilder`,
//! `SignificantTextAggregationBuilder`, `InternalSignificantTerms`): the terms of the matched
//! documents (the foreground, per owning bucket) that are more frequent there than in the
//! background (the shard's documents, or those matching `background_filter`), scored by a
//! significance heuristic. Shards return their `shard_size` best terms with their foreground and
//! background counts; the reduce sums the counts, rescores with the global sizes and keeps the
//! `size` best with a positive score and at least `min_doc_count` foreground documents.
//!
//! Results are [`Buckets`] whose fields carry the significance state:
//! `other_doc_count` is the foreground size (`subset_size`), `doc_count_error` the background
//! size (`superset_size`); per bucket, `doc_count` is the foreground count (`subset_df`),
//! `error` the background count (`superset_df`) and `from` the score (final reduce only).

use std::collections::HashMap;

use serde_json::{json, Map, Value};

use super::include_exclude::IncludeExclude;
use super::result::{AggResult, Bucket, Buckets, KeyIdent, KeyKind};
use super::source::{token, SourceSpec};
use super::{render_into, AggDef, AggSpec, Collector, ReduceCtx, RenderCtx, ShardEnv};
use crate::error::{OsError, OsResult};

/// A significance heuristic (`SignificanceHeuristic.getScore`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Heuristic {
    Jlh,
    MutualInformation { include_negatives: bool, background_is_superset: bool },
    ChiSquare { include_negatives: bool, background_is_superset: bool },
    Gnd { background_is_superset: bool },
    Percentage,
}

/// `NXYSignificanceHeuristic.Frequencies`.
struct Nxy {
    n00: f64,
    n01: f64,
    n10: f64,
    n11: f64,
    n0_: f64,
    n1_: f64,
    n_0: f64,
    n_1: f64,
    n: f64,
}

fn check_validity(sub_df: i64, sub: i64, sup_df: i64, sup: i64, name: &str) -> OsResult<()> {
    if sub_df < 0 || sub < 0 || sup_df < 0 || sup < 0 {
        return Err(OsError::illegal(format!(
            "Frequencies of subset and superset must be positive in {name}.getScore()"
        )));
    }
    if sub_df > sub {
        return Err(OsError::illegal(format!("subsetFreq > subsetSize, in {name}")));
    }
    if sup_df > sup {
        return Err(OsError::illegal(format!("supersetFreq > supersetSize, in {name}")));
    }
    Ok(())
}

const SCORE_ERROR: &str = ", does your background filter not include all documents in the bucket? If so and it is intentional, set \"background_is_superset\": false";

fn nxy(sub_df: i64, sub: i64, sup_df: i64, sup: i64, superset: bool, name: &str) -> OsResult<Nxy> {
    check_validity(sub_df, sub, sup_df, sup, name)?;
    let (a, b, c, d) = (sub_df as f64, sub as f64, sup_df as f64, sup as f64);
    if superset {
        if sub_df > sup_df {
            return Err(OsError::illegal(format!("subsetFreq > supersetFreq{SCORE_ERROR}")));
        }
        if sub > sup {
            return Err(OsError::illegal(format!("subsetSize > supersetSize{SCORE_ERROR}")));
        }
        if sup_df - sub_df > sup - sub {
            return Err(OsError::illegal(format!(
                "supersetFreq - subsetFreq > supersetSize - subsetSize{SCORE_ERROR}"
            )));
        }
        Ok(Nxy { n00: d - c - (b - a), n01: b - a, n10: c - a, n11: a, n0_: d - c, n1_: c, n_0: d - b, n_1: b, n: d })
    } else {
        Ok(Nxy { n00: d - c, n01: b - a, n10: c, n11: a, n0_: d - c + b - a, n1_: c + a, n_0: d, n_1: b, n: d + b })
    }
}

fn mi_term(nxy: f64, nx_: f64, n_y: f64, n: f64) -> f64 {
    let num = (n * nxy).abs();
    let den = (nx_ * n_y).abs();
    let factor = (nxy / n).abs();
    if num < 1e-7 && factor < 1e-7 {
        0.0
    } else {
        factor * (num / den).ln()
    }
}

impl Heuristic {
    /// The score of a term seen in `sub_df` of `sub` foreground and `sup_df` of `sup`
    /// background documents.
    pub fn score(self, sub_df: i64, sub: i64, sup_df: i64, sup: i64) -> OsResult<f64> {
        match self {
            Heuristic::Jlh => {
                check_validity(sub_df, sub, sup_df, sup, "JLHScore")?;
                if sub == 0 || sup == 0 {
                    return Ok(0.0);
                }
                let sup_df = sup_df.max(1);
                let p_sub = sub_df as f64 / sub as f64;
                let p_sup = sup_df as f64 / sup as f64;
                let abs = p_sub - p_sup;
                if abs <= 0.0 {
                    return Ok(0.0);
                }
                Ok(abs * (p_sub / p_sup))
            }
            Heuristic::Percentage => {
                check_validity(sub_df, sub, sup_df, sup, "PercentageScore")?;
                Ok(if sup_df == 0 { 0.0 } else { sub_df as f64 / sup_df as f64 })
            }
            Heuristic::MutualInformation { include_negatives, background_is_superset } => {
                let f = nxy(sub_df, sub, sup_df, sup, background_is_superset, "MutualInformation")?;
                let mut s = (mi_term(f.n00, f.n0_, f.n_0, f.n)
                    + mi_term(f.n01, f.n0_, f.n_1, f.n)
                    + mi_term(f.n10, f.n1_, f.n_0, f.n)
                    + mi_term(f.n11, f.n1_, f.n_1, f.n))
                    / std::f64::consts::LN_2;
                if s.is_nan() {
                    s = f64::NEG_INFINITY;
                }
                if !include_negatives && f.n11 / f.n_1 < f.n10 / f.n_0 {
                    s = f64::NEG_INFINITY;
                }
                Ok(s)
            }
            Heuristic::ChiSquare { include_negatives, background_is_superset } => {
                let f = nxy(sub_df, sub, sup_df, sup, background_is_superset, "ChiSquare")?;
                if !include_negatives && f.n11 / f.n_1 < f.n10 / f.n_0 {
                    return Ok(f64::NEG_INFINITY);
                }
                Ok(f.n * (f.n11 * f.n00 - f.n01 * f.n10).powi(2) / (f.n_1 * f.n1_ * f.n0_ * f.n_0))
            }
            Heuristic::Gnd { background_is_superset } => {
                let f = nxy(sub_df, sub, sup_df, sup, background_is_superset, "GND")?;
                let (fx, fy, fxy, n) = (f.n1_, f.n_1, f.n11, f.n);
                if fxy == 0.0 {
                    return Ok(0.0);
                }
                if fx == fy && fx == fxy {
                    return Ok(1.0);
                }
                let s = (fx.ln().max(fy.ln()) - fxy.ln()) / (n.ln() - fx.ln().min(fy.ln()));
                Ok((-s).exp())
            }
        }
    }

    /// Parses the heuristic object under its name; `None` for names that are not heuristics.
    fn parse(agg: &str, name: &str, v: &Value) -> OsResult<Option<Heuristic>> {
        let known = ["jlh", "mutual_information", "chi_square", "gnd", "percentage", "script_heuristic"];
        if !known.contains(&name) {
            return Ok(None);
        }
        if name == "script_heuristic" {
            return Err(OsError::illegal(format!(
                "[script_heuristic] in aggregation [{agg}] is not supported by this node: scripts are not built"
            )));
        }
        let Value::Object(m) = v else {
            return Err(OsError::parsing(format!("[{agg}] {name} doesn't support values of type: {}", token(v))));
        };
        let (mut neg, mut superset) = (false, true);
        for (k, x) in m {
            let flag = || {
                x.as_bool().ok_or_else(|| {
                    OsError::parsing(format!("[{name}] {k} doesn't support values of type: {}", token(x)))
                })
            };
            match (name, k.as_str()) {
                ("mutual_information" | "chi_square", "include_negatives") => neg = flag()?,
                ("mutual_information" | "chi_square" | "gnd", "background_is_superset") => superset = flag()?,
                ("jlh" | "percentage", _) => {
                    return Err(OsError::new(
                        crate::error::ErrorKind::Parse,
                        format!("failed to parse [{name}] significance heuristic. expected an empty object, but got [{k}] instead"),
                    )
                    .status(400))
                }
                _ => return Err(OsError::parsing(format!("[{name}] unknown field [{k}]"))),
            }
        }
        Ok(Some(match name {
            "jlh" => Heuristic::Jlh,
            "percentage" => Heuristic::Percentage,
            "gnd" => Heuristic::Gnd { background_is_superset: superset },
            "chi_square" => Heuristic::ChiSquare { include_negatives: neg, background_is_superset: superset },
            _ => Heuristic::MutualInformation { include_negatives: neg, background_is_superset: superset },
        }))
    }
}

/// A significant_terms or significant_text request.
#[derive(Debug, Clone)]
pub struct SigSpec {
    /// significant_text (terms re-analyzed from `_source`) rather than significant_terms.
    pub text: bool,
    pub source: SourceSpec,
    pub size: usize,
    pub shard_size: Option<usize>,
    pub min_doc_count: u64,
    pub shard_min_doc_count: u64,
    pub inc_exc: IncludeExclude,
    pub background_filter: Option<Value>,
    pub heuristic: Heuristic,
    pub filter_duplicate_text: bool,
    pub source_fields: Option<Vec<String>>,
}

fn int(agg: &str, k: &str, v: &Value) -> OsResult<i64> {
    v.as_i64()
        .or_else(|| v.as_str().and_then(|s| s.parse().ok()))
        .ok_or_else(|| OsError::parsing(format!("[{agg}] {k} doesn't support values of type: {}", token(v))))
}

impl SigSpec {
    pub fn parse(text: bool, name: &str, body: &Map<String, Value>) -> OsResult<SigSpec> {
        let t = if text { "significant_text" } else { "significant_terms" };
        let mut s = SigSpec {
            text,
            source: SourceSpec::default(),
            size: 10,
            shard_size: None,
            min_doc_count: 3,
            shard_min_doc_count: 0,
            inc_exc: IncludeExclude::default(),
            background_filter: None,
            heuristic: Heuristic::Jlh,
            filter_duplicate_text: false,
            source_fields: None,
        };
        for (k, v) in body {
            if text && k == "field" {
                s.source.field = Some(super::source::string(t, k, v)?);
                continue;
            }
            if (!text && s.source.take(t, k, v)?) || s.inc_exc.take(t, k, v)? {
                continue;
            }
            if let Some(h) = Heuristic::parse(t, k, v)? {
                s.heuristic = h;
                continue;
            }
            match k.as_str() {
                "size" => {
                    let n = int(t, k, v)?;
                    if n <= 0 {
                        return Err(OsError::illegal(format!(
                            "[size] must be greater than 0. Found [{n}] in [{name}]"
                        )));
                    }
                    s.size = n as usize;
                }
                "shard_size" => {
                    let n = int(t, k, v)?;
                    if n <= 0 {
                        return Err(OsError::illegal(format!(
                            "[shardSize] must be greater than 0. Found [{n}] in [{name}]"
                        )));
                    }
                    s.shard_size = Some(n as usize);
                }
                "min_doc_count" => {
                    let n = int(t, k, v)?;
                    if n < 0 {
                        return Err(OsError::illegal(format!(
                            "[minDocCount] must be greater than or equal to 0. Found [{n}] in [{name}]"
                        )));
                    }
                    s.min_doc_count = n as u64;
                }
                "shard_min_doc_count" => {
                    let n = int(t, k, v)?;
                    if n < 0 {
                        return Err(OsError::illegal(format!(
                            "[shardMinDocCount] must be greater than or equal to 0. Found [{n}] in [{name}]"
                        )));
                    }
                    s.shard_min_doc_count = n as u64;
                }
                "background_filter" => {
                    if !v.is_object() {
                        return Err(OsError::parsing(format!(
                            "[{t}] background_filter doesn't support values of type: {}",
                            token(v)
                        )));
                    }
                    s.background_filter = Some(v.clone());
                }
                "execution_hint" if !text => {
                    super::source::string(t, k, v)?;
                }
                "filter_duplicate_text" if text => {
                    s.filter_duplicate_text = v.as_bool().ok_or_else(|| {
                        OsError::parsing(format!("[{t}] {k} doesn't support values of type: {}", token(v)))
                    })?
                }
                "source_fields" if text => {
                    let list = match v {
                        Value::Array(a) => a.iter().map(|x| super::source::string(t, k, x)).collect::<OsResult<_>>()?,
                        other => vec![super::source::string(t, k, other)?],
                    };
                    s.source_fields = Some(list);
                }
                _ => {
                    let mut known = vec![
                        "field",
                        "size",
                        "shard_size",
                        "min_doc_count",
                        "shard_min_doc_count",
                        "include",
                        "exclude",
                        "background_filter",
                        "jlh",
                        "mutual_information",
                        "chi_square",
                        "gnd",
                        "percentage",
                        "script_heuristic",
                    ];
                    if text {
                        known.extend(["filter_duplicate_text", "source_fields"]);
                    } else {
                        known.extend(["script", "missing", "format", "value_type", "execution_hint"]);
                    }
                    return Err(OsError::parsing(crate::error::unknown_field(t, k, &known)));
                }
            }
        }
        if text && s.source.field.is_none() {
            return Err(OsError::illegal(format!("[field] must not be null: [{name}]")));
        }
        s.source.require(t, name)?;
        Ok(s)
    }

    /// `2 * BucketUtils.suggestShardSideQueueSize(size)` unless given; never below `size`.
    pub fn shard_size(&self) -> usize {
        self.shard_size.unwrap_or(2 * (self.size * 3 / 2 + 10)).max(self.size)
    }
}

impl AggSpec for SigSpec {
    fn queries(&self) -> Vec<&Value> {
        self.background_filter.iter().collect()
    }

    fn with_queries(&self, qs: Vec<Value>) -> Option<std::sync::Arc<dyn AggSpec>> {
        let mut out = self.clone();
        if qs.len() != usize::from(out.background_filter.is_some()) {
            return None;
        }
        out.background_filter = qs.into_iter().next();
        Some(std::sync::Arc::new(out))
    }

    fn type_name(&self) -> &'static str {
        if self.text {
            "significant_text"
        } else {
            "significant_terms"
        }
    }

    fn typed_name(&self, r: &AggResult) -> &'static str {
        match r {
            AggResult::Buckets(b) => match b.kind {
                KeyKind::Long | KeyKind::Double | KeyKind::Unsigned => "siglterms",
                KeyKind::Unmapped => "umsigterms",
                KeyKind::String => "sigsterms",
            },
            _ => "sigsterms",
        }
    }

    fn collector(&self, def: &AggDef, env: &ShardEnv<'_>) -> OsResult<Box<dyn Collector>> {
        super::significant_collect::collector(self, def, env)
    }

    fn empty(&self, _def: &AggDef) -> AggResult {
        AggResult::Buckets(Buckets::of(KeyKind::Unmapped, Vec::new()))
    }

    fn reduce(&self, def: &AggDef, parts: Vec<AggResult>, rc: &mut ReduceCtx) -> OsResult<AggResult> {
        let mut all: Vec<Buckets> =
            parts.into_iter().filter_map(|p| if let AggResult::Buckets(b) = p { Some(b) } else { None }).collect();
        let first = all.first().cloned();
        all.retain(|b| b.kind != KeyKind::Unmapped);
        if all.is_empty() {
            return Ok(AggResult::Buckets(first.unwrap_or_else(|| Buckets::of(KeyKind::Unmapped, Vec::new()))));
        }
        let kind = all[0].kind;
        let fmt = all[0].fmt.clone();
        let subset: u64 = all.iter().map(|b| b.other_doc_count).sum();
        let superset: i64 = all.iter().map(|b| b.doc_count_error).sum();
        let mut index: HashMap<KeyIdent, usize> = HashMap::new();
        let mut merged: Vec<(Bucket, Vec<Vec<AggResult>>)> = Vec::new();
        for p in all {
            for mut b in p.buckets {
                let subs = std::mem::take(&mut b.subs);
                match index.get(&b.key.ident()) {
                    Some(&i) => {
                        merged[i].0.doc_count += b.doc_count;
                        merged[i].0.error += b.error;
                        merged[i].1.push(subs);
                    }
                    None => {
                        index.insert(b.key.ident(), merged.len());
                        merged.push((b, vec![subs]));
                    }
                }
            }
        }
        let mut scored: Vec<(f64, Bucket, Vec<Vec<AggResult>>)> = Vec::with_capacity(merged.len());
        for (mut b, subs) in merged {
            let score = self.heuristic.score(b.doc_count as i64, subset as i64, b.error, superset)?;
            if rc.final_reduce && !(score > 0.0 && b.doc_count >= self.min_doc_count) {
                continue;
            }
            b.from = if rc.final_reduce { Some(score) } else { None };
            scored.push((score, b, subs));
        }
        scored.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.key.cmp_key(&b.1.key)));
        if rc.final_reduce {
            scored.truncate(self.size);
        }
        let mut buckets = Vec::with_capacity(scored.len());
        for (_, mut b, subs) in scored {
            b.subs = super::reduce_subs(def, subs, rc)?;
            buckets.push(b);
        }
        rc.consume(buckets.len())?;
        Ok(AggResult::Buckets(Buckets {
            other_doc_count: subset,
            doc_count_error: superset,
            fmt,
            ..Buckets::of(kind, buckets)
        }))
    }

    fn render(&self, def: &AggDef, r: &AggResult, rc: &RenderCtx) -> OsResult<Map<String, Value>> {
        let AggResult::Buckets(b) = r else {
            return Err(OsError::internal("significant terms result of another kind"));
        };
        let mut m = Map::new();
        m.insert("doc_count".into(), json!(b.other_doc_count));
        m.insert("bg_count".into(), json!(b.doc_count_error));
        let mut out = Vec::with_capacity(b.buckets.len());
        for bk in &b.buckets {
            let mut o = Map::new();
            let (k, ks) = b.fmt.key(&bk.key);
            o.insert("key".into(), k);
            if let Some(s) = ks {
                o.insert("key_as_string".into(), json!(s));
            }
            o.insert("doc_count".into(), json!(bk.doc_count));
            o.insert("score".into(), super::fmt::double(bk.from.unwrap_or(0.0)));
            o.insert("bg_count".into(), json!(bk.error));
            out.push(Value::Object(render_into(&def.subs, &bk.subs, rc, o)?));
        }
        m.insert("buckets".into(), Value::Array(out));
        Ok(m)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn heuristics_match_opensearch_formulas() {
        // JLH: (4/4 - 5/7) * (4/4) / (5/7)
        let j = Heuristic::Jlh.score(4, 4, 5, 7).unwrap();
        assert!((j - (1.0 - 5.0 / 7.0) * (7.0 / 5.0)).abs() < 1e-12);
        assert_eq!(Heuristic::Jlh.score(1, 4, 5, 7).unwrap(), 0.0);
        assert_eq!(Heuristic::Percentage.score(2, 4, 8, 10).unwrap(), 0.25);
        let gnd = Heuristic::Gnd { background_is_superset: true };
        assert_eq!(gnd.score(3, 3, 3, 10).unwrap(), 1.0);
        assert_eq!(gnd.score(0, 3, 3, 10).unwrap(), 0.0);
        let chi = Heuristic::ChiSquare { include_negatives: false, background_is_superset: true };
        assert!(chi.score(4, 4, 5, 7).unwrap() > 0.0);
        assert_eq!(chi.score(0, 4, 3, 7).unwrap(), f64::NEG_INFINITY);
        let mi = Heuristic::MutualInformation { include_negatives: false, background_is_superset: true };
        assert!(mi.score(4, 4, 5, 7).unwrap() > 0.0);
        assert!(mi.score(5, 4, 5, 7).is_err());
        assert!(mi.score(3, 4, 2, 7).unwrap_err().reason.contains("background_is_superset"));
    }

    #[test]
    fn parse_defaults_and_heuristics() {
        let b = json!({"field": "f"});
        let s = SigSpec::parse(false, "s", b.as_object().unwrap()).unwrap();
        assert_eq!((s.size, s.min_doc_count, s.shard_size(), s.heuristic), (10, 3, 50, Heuristic::Jlh));
        let b = json!({"field": "f", "chi_square": {"include_negatives": true}});
        let s = SigSpec::parse(false, "s", b.as_object().unwrap()).unwrap();
        assert_eq!(s.heuristic, Heuristic::ChiSquare { include_negatives: true, background_is_superset: true });
        let b = json!({"field": "f", "script_heuristic": {"script": "1"}});
        assert!(SigSpec::parse(false, "s", b.as_object().unwrap()).is_err());
        let b = json!({"field": "f", "filter_duplicate_text": true});
        assert!(SigSpec::parse(false, "s", b.as_object().unwrap()).is_err());
        assert!(SigSpec::parse(true, "s", b.as_object().unwrap()).unwrap().filter_duplicate_text);
    }
}
