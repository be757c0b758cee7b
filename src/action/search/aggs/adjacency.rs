//! `adjacency_matrix` (OpenSearch's `AdjacencyMatrixAggregator`): named filters, sorted by name;
//! one bucket per filter and one per pair of filters (`A&B`, joined by `separator`) holding the
//! documents that match both. Buckets without documents are left out; the reduce merges buckets
//! by key and sorts them by key. `show_only_intersecting` keeps the pair buckets only.

use serde_json::{json, Map, Value};

use super::filter::{has_bit, matching_bits_in};
use super::result::{AggResult, Bucket, Buckets, Key, KeyKind};
use super::source::token;
use super::{render_into, AggDef, AggSpec, Collector, LeafCollector, ReduceCtx, RenderCtx, ShardEnv, SubLeaves, Subs};
use crate::action::search::dsl;
use crate::engine::query::weight::Weight;
use crate::engine::query::{Searcher, SegmentView};
use crate::engine::segment::DocId;
use crate::error::{OsError, OsResult};

const T: &str = "adjacency_matrix";

/// OpenSearch's default `index.max_adjacency_matrix_filters`.
const MAX_FILTERS: usize = 100;

/// A parsed `adjacency_matrix`.
#[derive(Debug, Clone)]
pub struct AdjacencySpec {
    /// (name, query), sorted by name.
    pub filters: Vec<(String, Value)>,
    pub separator: String,
    pub only_intersecting: bool,
}

impl AdjacencySpec {
    pub fn parse(name: &str, body: &Map<String, Value>) -> OsResult<AdjacencySpec> {
        let mut filters = Vec::new();
        let mut separator = "&".to_string();
        let mut only_intersecting = false;
        for (k, v) in body {
            match k.as_str() {
                "filters" => {
                    let Value::Object(m) = v else {
                        return Err(OsError::parsing(format!(
                            "[{T}] filters doesn't support values of type: {}",
                            token(v)
                        )));
                    };
                    filters = m.iter().map(|(n, q)| (n.clone(), q.clone())).collect();
                }
                "separator" => match v {
                    Value::String(s) => separator = s.clone(),
                    _ => {
                        return Err(OsError::parsing(format!(
                            "[{T}] separator doesn't support values of type: {}",
                            token(v)
                        )))
                    }
                },
                "show_only_intersecting" => {
                    only_intersecting = match v {
                        Value::Bool(b) => *b,
                        Value::String(s) if s == "true" || s == "false" => s == "true",
                        _ => {
                            return Err(OsError::parsing(format!(
                                "[{T}] show_only_intersecting doesn't support values of type: {}",
                                token(v)
                            )))
                        }
                    }
                }
                _ => {
                    return Err(OsError::parsing(crate::error::unknown_field(
                        T,
                        k,
                        &["filters", "separator", "show_only_intersecting"],
                    )))
                }
            }
        }
        if filters.is_empty() {
            return Err(OsError::illegal(format!("[{name}] is missing : filters parameter")));
        }
        filters.sort_by(|a, b| a.0.cmp(&b.0));
        Ok(AdjacencySpec { filters, separator, only_intersecting })
    }

    /// The bucket keys of one owning bucket, in collection order: the filters, then the pairs.
    fn keys(&self) -> Vec<(String, bool)> {
        let n = self.filters.len();
        let mut out: Vec<(String, bool)> = self.filters.iter().map(|f| (f.0.clone(), false)).collect();
        for i in 0..n {
            for j in i + 1..n {
                out.push((format!("{}{}{}", self.filters[i].0, self.separator, self.filters[j].0), true));
            }
        }
        out
    }
}

impl AggSpec for AdjacencySpec {
    fn type_name(&self) -> &'static str {
        T
    }

    fn queries(&self) -> Vec<&Value> {
        self.filters.iter().map(|(_, q)| q).collect()
    }

    fn with_queries(&self, qs: Vec<Value>) -> Option<std::sync::Arc<dyn AggSpec>> {
        let mut out = self.clone();
        super::filter::replace_named_queries(&mut out.filters, qs).then(|| std::sync::Arc::new(out) as _)
    }

    fn collector(&self, def: &AggDef, env: &ShardEnv<'_>) -> OsResult<Box<dyn Collector>> {
        if self.filters.len() > MAX_FILTERS {
            return Err(OsError::illegal(format!(
                "Number of filters is too large, must be less than or equal to: [{MAX_FILTERS}] but was [{}].This limit can be set by changing the [index.max_adjacency_matrix_filters] index level setting.",
                self.filters.len()
            )));
        }
        let mut weights = Vec::with_capacity(self.filters.len());
        for (_, q) in &self.filters {
            let q = dsl::parse(q, env.qc)?;
            weights.push(env.searcher.match_weight(&q, false)?);
        }
        Ok(Box::new(AdjacencyCollector {
            keys: self.keys(),
            only_intersecting: self.only_intersecting,
            weights,
            searcher: env.searcher.clone(),
            counts: Vec::new(),
            subs: Subs::new(def, env)?,
        }))
    }

    fn empty(&self, _def: &AggDef) -> AggResult {
        AggResult::Buckets(Buckets::of(KeyKind::String, Vec::new()))
    }

    fn reduce(&self, def: &AggDef, parts: Vec<AggResult>, rc: &mut ReduceCtx) -> OsResult<AggResult> {
        let mut merged: std::collections::BTreeMap<String, (u64, Vec<Vec<AggResult>>)> = Default::default();
        for p in parts {
            let AggResult::Buckets(b) = p else { continue };
            for bk in b.buckets {
                let Key::Str(k) = bk.key else { continue };
                let e = merged.entry(k).or_default();
                e.0 += bk.doc_count;
                e.1.push(bk.subs);
            }
        }
        let mut out = Vec::with_capacity(merged.len());
        for (k, (n, subs)) in merged {
            if n >= 1 {
                out.push(Bucket::new(Key::Str(k), n, super::reduce_subs(def, subs, rc)?));
            }
        }
        rc.consume(out.len())?;
        Ok(AggResult::Buckets(Buckets::of(KeyKind::String, out)))
    }

    fn render(&self, def: &AggDef, r: &AggResult, rc: &RenderCtx) -> OsResult<Map<String, Value>> {
        let AggResult::Buckets(b) = r else { return Err(OsError::internal("adjacency_matrix result of another kind")) };
        let mut arr = Vec::with_capacity(b.buckets.len());
        for bk in &b.buckets {
            let mut o = Map::new();
            if let Key::Str(k) = &bk.key {
                o.insert("key".into(), json!(k));
            }
            o.insert("doc_count".into(), json!(bk.doc_count));
            arr.push(Value::Object(render_into(&def.subs, &bk.subs, rc, o)?));
        }
        let mut m = Map::new();
        m.insert("buckets".into(), Value::Array(arr));
        Ok(m)
    }

    fn property(&self, def: &AggDef, r: &AggResult, path: &[String]) -> OsResult<f64> {
        let AggResult::Buckets(b) = r else { return Ok(f64::NAN) };
        let Some(name) = path.first() else {
            return Err(OsError::illegal(format!("[{}] is a multi-bucket aggregation: name a bucket", def.name)));
        };
        let Some(bk) = b.buckets.iter().find(|x| matches!(&x.key, Key::Str(k) if k == name)) else {
            return Err(OsError::illegal(format!("Unknown bucket key [{name}] in [{}]", def.name)));
        };
        super::bucket_property(&def.subs, bk, &path[1..])
    }
}

struct AdjacencyCollector {
    /// Every bucket's key and whether it is a pair.
    keys: Vec<(String, bool)>,
    only_intersecting: bool,
    weights: Vec<Weight>,
    searcher: Searcher,
    /// `counts[owner * keys.len() + i]`.
    counts: Vec<u64>,
    subs: Subs,
}

impl Collector for AdjacencyCollector {
    fn leaf<'a>(&'a mut self, seg: &'a dyn SegmentView, si: usize) -> OsResult<Box<dyn LeafCollector + 'a>> {
        let bits =
            self.weights.iter().map(|w| matching_bits_in(&self.searcher, w, si, seg)).collect::<OsResult<Vec<_>>>()?;
        Ok(Box::new(AdjacencyLeaf {
            bits,
            width: self.keys.len(),
            hit: Vec::new(),
            counts: &mut self.counts,
            subs: self.subs.leaves(seg, si)?,
        }))
    }

    fn result(&mut self, owner: u32) -> OsResult<AggResult> {
        let w = self.keys.len();
        let mut out = Vec::new();
        for (i, (k, pair)) in self.keys.iter().enumerate() {
            let o = owner as usize * w + i;
            let n = self.counts.get(o).copied().unwrap_or(0);
            if n == 0 || (self.only_intersecting && !pair) {
                continue;
            }
            out.push(Bucket::new(Key::Str(k.clone()), n, self.subs.results(o as u32)?));
        }
        Ok(AggResult::Buckets(Buckets::of(KeyKind::String, out)))
    }

    fn needs_scores(&self) -> bool {
        self.subs.needs_scores()
    }

    fn mem_bytes(&self) -> usize {
        self.counts.capacity() * 8 + self.subs.mem_bytes()
    }
}

struct AdjacencyLeaf<'a> {
    bits: Vec<Vec<u64>>,
    width: usize,
    hit: Vec<bool>,
    counts: &'a mut Vec<u64>,
    subs: SubLeaves<'a>,
}

impl AdjacencyLeaf<'_> {
    fn count(&mut self, at: usize, doc: DocId, score: f32) -> OsResult<()> {
        self.counts[at] += 1;
        self.subs.collect(doc, at as u32, score)
    }
}

impl LeafCollector for AdjacencyLeaf<'_> {
    fn collect(&mut self, doc: DocId, owner: u32, score: f32) -> OsResult<()> {
        let base = owner as usize * self.width;
        if self.counts.len() < base + self.width {
            self.counts.resize(base + self.width, 0);
        }
        let mut hit = std::mem::take(&mut self.hit);
        hit.clear();
        hit.extend(self.bits.iter().map(|b| has_bit(b, doc)));
        for (i, _) in hit.iter().enumerate().filter(|(_, &h)| h) {
            self.count(base + i, doc, score)?;
        }
        let n = hit.len();
        let mut pos = n;
        for (i, &hi) in hit.iter().enumerate() {
            for &hj in &hit[i + 1..] {
                if hi && hj {
                    self.count(base + pos, doc, score)?;
                }
                pos += 1;
            }
        }
        self.hit = hit;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_filters_then_pairs_in_name_order() {
        let body = json!({"filters": {"b": {"match_all": {}}, "a": {"match_all": {}}, "c": {"match_all": {}}}, "separator": "|"});
        let s = AdjacencySpec::parse("m", body.as_object().unwrap()).unwrap();
        let keys: Vec<String> = s.keys().into_iter().map(|k| k.0).collect();
        assert_eq!(keys, vec!["a", "b", "c", "a|b", "a|c", "b|c"]);
        let e = AdjacencySpec::parse("m", json!({}).as_object().unwrap()).unwrap_err();
        assert!(e.to_string().contains("[m] is missing : filters parameter"), "{e}");
    }
}
