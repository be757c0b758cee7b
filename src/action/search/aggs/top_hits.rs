//! `top_hits` (OpenSearch's `TopHitsAggregator`): per bucket, the best `from + size` documents
//! by score or by the `sort`, fetched on the shard as the search fetches its hits (`_source`,
//! `stored_fields`, `docvalue_fields`, `fields`, `highlight`, `version`, `seq_no_primary_term`,
//! `explain` and the query's `inner_hits`); the coordinator merges shards by sort order (ties by
//! shard, then doc) and keeps `size` hits after `from`. Under a `nested` aggregation the hits
//! are nested documents, rendered with their `_nested` identity and source slice.

use std::cmp::Ordering;
use std::sync::Arc;

use serde_json::{json, Map, Value};

use super::result::{AggResult, SortKey, TopHit};
use super::source::token;
use super::{AggDef, AggSpec, Collector, LeafCollector, ReduceCtx, RenderCtx, ShardEnv};
use crate::action::search::context::ShardContext;
use crate::action::search::fetch::{self, explanation_json, f32_json};
use crate::action::search::field_values::{self, FieldAndFormat};
use crate::action::search::inner_hits::{self, InnerHitsDef};
use crate::action::search::request::SearchRequest;
use crate::action::search::sort::{self as search_sort, SortSpec, ValueFormat};
use crate::action::source_filter::SourceFilter;
use crate::engine::index::writer::{read_stored_fields, read_version};
use crate::engine::query::block_join::{path_docs, Bits};
use crate::engine::query::nested_source::{offsets, slice, wrap};
use crate::engine::query::sort::{cmp_values, KeyReader};
use crate::engine::query::{Query, Searcher, SegmentView, SortBy, SortField, SortValue};
use crate::engine::segment::DocId;
use crate::error::{OsError, OsResult};

/// A parsed `top_hits`.
#[derive(Debug, Clone, Default)]
pub struct TopHitsSpec {
    pub from: usize,
    pub size: usize,
    pub sort: Vec<SortSpec>,
    pub track_scores: bool,
    pub explain: bool,
    pub version: bool,
    pub seq_no_primary_term: bool,
    pub source: SourceFilter,
    pub source_set: bool,
    pub stored_fields: Option<Vec<String>>,
    pub docvalue_fields: Vec<FieldAndFormat>,
    pub fields: Vec<FieldAndFormat>,
    pub highlight: Option<Value>,
}

fn unknown(k: &str, v: &Value) -> OsError {
    OsError::parsing(format!("Unknown key for a {} in [{k}].", token(v)))
}

fn flag(k: &str, v: &Value) -> OsResult<bool> {
    match v {
        Value::Bool(b) => Ok(*b),
        Value::String(s) if s == "true" || s == "false" => Ok(s == "true"),
        Value::Object(_) | Value::Array(_) => Err(unknown(k, v)),
        _ => Err(OsError::parsing(format!("Failed to parse value [{v}] as only [true] or [false] are allowed."))),
    }
}

fn int(k: &str, v: &Value) -> OsResult<i64> {
    match v {
        Value::Number(n) => n.as_i64().or_else(|| n.as_f64().map(|f| f as i64)).ok_or_else(|| unknown(k, v)),
        Value::String(s) => s.parse().map_err(|_| OsError::parsing(format!("For input string: \"{s}\""))),
        _ => Err(unknown(k, v)),
    }
}

fn names(k: &str, v: &Value) -> OsResult<Vec<String>> {
    match v {
        Value::String(s) => Ok(vec![s.clone()]),
        Value::Array(a) => a
            .iter()
            .map(|x| {
                x.as_str().map(str::to_string).ok_or_else(|| {
                    OsError::parsing(format!("Expected [VALUE_STRING] in [{k}] but found [{}]", token(x)))
                })
            })
            .collect(),
        _ => Err(unknown(k, v)),
    }
}

impl TopHitsSpec {
    /// Parses the body of `{"top_hits": {...}}` (OpenSearch's `TopHitsAggregationBuilder.parse`).
    pub fn parse(name: &str, body: &Map<String, Value>) -> OsResult<TopHitsSpec> {
        let mut s = TopHitsSpec { size: 3, ..TopHitsSpec::default() };
        for (k, v) in body {
            match k.as_str() {
                "from" | "size" => {
                    let n = int(k, v)?;
                    if n < 0 {
                        return Err(OsError::illegal(format!(
                            "[{k}] must be greater than or equal to 0. Found [{n}] in [{name}]"
                        )));
                    }
                    let n = usize::try_from(n).unwrap_or(usize::MAX);
                    if k == "from" {
                        s.from = n;
                    } else {
                        s.size = n;
                    }
                }
                "version" => s.version = flag(k, v)?,
                "seq_no_primary_term" => s.seq_no_primary_term = flag(k, v)?,
                "explain" => s.explain = flag(k, v)?,
                "track_scores" => s.track_scores = flag(k, v)?,
                "_source" => {
                    s.source = SourceFilter::from_json(v).map_err(OsError::parsing)?;
                    s.source_set = true;
                }
                "stored_fields" => s.stored_fields = Some(names(k, v)?),
                "sort" => s.sort = search_sort::parse_sort(v)?,
                "docvalue_fields" | "fields" if v.is_array() => {
                    let list = field_values::parse_list(k, v)?;
                    if k == "fields" {
                        s.fields = list;
                    } else {
                        s.docvalue_fields = list;
                    }
                }
                // As the search refuses it: scripts as fields are not built.
                "script_fields" => return Err(crate::action::search::request::unknown_key(k, v)),
                "highlight" if v.is_object() => s.highlight = Some(v.clone()),
                _ => return Err(unknown(k, v)),
            }
        }
        Ok(s)
    }

    /// The search request the fetch of one hit reads its options from.
    fn fetch_request(&self, req: &SearchRequest) -> SearchRequest {
        SearchRequest {
            source: self.source.clone(),
            source_set: self.source_set,
            stored_fields: self.stored_fields.clone(),
            docvalue_fields: self.docvalue_fields.clone(),
            fields: self.fields.clone(),
            highlight: self.highlight.clone(),
            version: self.version,
            seq_no_primary_term: self.seq_no_primary_term,
            explain: self.explain,
            rest_total_hits_as_int: req.rest_total_hits_as_int,
            ..SearchRequest::default()
        }
    }
}

/// Orders hits: by the sort keys, then by shard and doc.
fn cmp_hits(a: &TopHit, b: &TopHit, fields: &[SortField]) -> Ordering {
    for ((x, y), f) in a.keys.iter().zip(&b.keys).zip(fields) {
        let o = search_value_cmp(x, y, f);
        if o != Ordering::Equal {
            return o;
        }
    }
    a.shard.cmp(&b.shard).then(a.doc.cmp(&b.doc))
}

fn to_value(k: &SortKey) -> SortValue {
    match k {
        SortKey::Score(s) => SortValue::Float(*s),
        SortKey::Long(v) => SortValue::Long(*v),
        SortKey::Double(v) => SortValue::Double(*v),
        SortKey::Bytes(b) => SortValue::Bytes(b.clone()),
        SortKey::Null => SortValue::Null,
    }
}

fn to_key(v: &SortValue) -> SortKey {
    match v {
        SortValue::Float(s) => SortKey::Score(*s),
        SortValue::Long(v) => SortKey::Long(*v),
        SortValue::Double(v) => SortKey::Double(*v),
        SortValue::Bytes(b) => SortKey::Bytes(b.clone()),
        SortValue::Null => SortKey::Null,
    }
}

fn search_value_cmp(a: &SortKey, b: &SortKey, f: &SortField) -> Ordering {
    cmp_values(&[to_value(a)], &[to_value(b)], std::slice::from_ref(f))
}

/// The sort fields the reduce compares with (the shard-side resolution only changes how values
/// print, not their order; keys of an unsorted top_hits are the score).
fn order_fields(spec: &TopHitsSpec) -> Vec<SortField> {
    use crate::engine::query::{Missing, SortOrder};
    if spec.sort.is_empty() {
        return vec![SortField::score()];
    }
    spec.sort
        .iter()
        .map(|s| {
            let by = match s.field.as_str() {
                "_score" => SortBy::Score,
                "_doc" => SortBy::Doc,
                f => SortBy::Keyword(f.to_string()),
            };
            let default = if by == SortBy::Score { SortOrder::Desc } else { SortOrder::Asc };
            SortField {
                by,
                order: s.order.unwrap_or(default),
                missing: s.missing.unwrap_or(Missing::Last),
                nested: None,
            }
        })
        .collect()
}

impl AggSpec for TopHitsSpec {
    fn type_name(&self) -> &'static str {
        "top_hits"
    }

    fn takes_subs(&self) -> bool {
        false
    }

    fn collector(&self, def: &AggDef, env: &ShardEnv<'_>) -> OsResult<Box<dyn Collector>> {
        let window = self.from.saturating_add(self.size);
        let max = env.ctx.limits.max_inner_result_window;
        if window > max {
            return Err(OsError::illegal(format!(
                "Top hits result window is too large, the top hits aggregator [{}]'s from + size must be less than or equal to: [{max}] but was [{window}]. This limit can be set by changing the [index.max_inner_result_window] index level setting.",
                def.name
            )));
        }
        let scope = env.qc.nested_scope.map(str::to_string);
        let mut fields = search_sort::resolve(&self.sort, env.qc.mapping)?;
        if scope.is_none() && self.sort.iter().any(|s| s.nested.is_some()) {
            search_sort::resolve_nested(&self.sort, &mut fields, env.qc)?;
        }
        // A keyword sort's custom `missing` value stands for the documents without one.
        let missing: Vec<Option<Vec<u8>>> = self
            .sort
            .iter()
            .zip(&fields)
            .map(|(s, (f, fmt))| match (&s.missing_value, &f.by, fmt) {
                (Some(Value::String(t)), SortBy::Keyword(_), ValueFormat::Plain) => Some(t.clone().into_bytes()),
                (Some(v), SortBy::Keyword(_), ValueFormat::Plain) => Some(v.to_string().into_bytes()),
                _ => None,
            })
            .collect();
        let query = if self.explain || self.highlight.is_some() {
            Some(crate::action::search::execute::build_query(env.req, env.qc)?)
        } else {
            None
        };
        // The query's `inner_hits` come with root hits, as the search's own hits have them.
        let inner = match scope {
            None => inner_hits::collect(env.req.query.as_ref(), env.qc, env.ctx.limits.max_inner_result_window)?,
            Some(_) => Vec::new(),
        };
        let mut bases = Vec::with_capacity(env.searcher.segments.len());
        let mut base = 0u64;
        for s in &env.searcher.segments {
            bases.push(base);
            base += u64::from(s.max_doc());
        }
        Ok(Box::new(TopHitsCollector {
            spec: self.clone(),
            fetch_req: self.fetch_request(env.req),
            ctx: env.ctx.clone(),
            searcher: env.searcher.clone(),
            fields,
            missing,
            scope,
            query,
            inner,
            bases,
            states: Vec::new(),
        }))
    }

    fn empty(&self, _def: &AggDef) -> AggResult {
        AggResult::TopHits { total: 0, max_score: None, hits: Vec::new(), total_as_int: false }
    }

    fn reduce(&self, _def: &AggDef, parts: Vec<AggResult>, rc: &mut ReduceCtx) -> OsResult<AggResult> {
        let order = order_fields(self);
        let mut total = 0;
        let mut max_score: Option<f32> = None;
        let mut hits = Vec::new();
        let mut as_int = false;
        for p in parts {
            if let AggResult::TopHits { total: t, max_score: m, hits: h, total_as_int } = p {
                total += t;
                if let Some(m) = m {
                    max_score = Some(max_score.map_or(m, |x| x.max(m)));
                }
                hits.extend(h);
                as_int |= total_as_int;
            }
        }
        hits.sort_by(|a, b| cmp_hits(a, b, &order));
        if rc.final_reduce {
            hits = hits.into_iter().skip(self.from).take(self.size).collect();
        } else {
            hits.truncate(self.from.saturating_add(self.size));
        }
        Ok(AggResult::TopHits { total, max_score, hits, total_as_int: as_int })
    }

    fn render(&self, _def: &AggDef, r: &AggResult, _rc: &RenderCtx) -> OsResult<Map<String, Value>> {
        let AggResult::TopHits { total, max_score, hits, total_as_int } = r else {
            return Err(OsError::internal("top_hits result of another kind"));
        };
        let total = if *total_as_int { json!(total) } else { json!({"value": total, "relation": "eq"}) };
        let mut m = Map::new();
        m.insert(
            "hits".into(),
            json!({
                "total": total,
                "max_score": max_score.map_or(Value::Null, f32_json),
                "hits": hits.iter().map(|h| h.hit.clone()).collect::<Vec<_>>(),
            }),
        );
        Ok(m)
    }

    fn property(&self, def: &AggDef, r: &AggResult, path: &[String]) -> OsResult<f64> {
        let AggResult::TopHits { hits, .. } = r else { return Ok(f64::NAN) };
        // OpenSearch's `InternalTopHits.getProperty`: `_count` is not there; a sort value of
        // the first hit by the field's name.
        let Some(name) = path.first() else {
            return Err(OsError::illegal(format!("[{}] top_hits needs a field name in its path", def.name)));
        };
        let Some(first) = hits.first() else { return Ok(f64::NAN) };
        let Some(i) = self.sort.iter().position(|s| &s.field == name) else {
            return Err(OsError::illegal(format!("No aggregation found for path [{}>{name}]", def.name)));
        };
        Ok(match first.keys.get(i) {
            Some(SortKey::Long(v)) => *v as f64,
            Some(SortKey::Double(v)) => *v,
            Some(SortKey::Score(v)) => f64::from(*v),
            _ => f64::NAN,
        })
    }
}

/// One candidate hit of a bucket.
struct Cand {
    keys: Vec<SortValue>,
    score: f32,
    si: u32,
    doc: DocId,
}

#[derive(Default)]
struct State {
    total: u64,
    max_score: Option<f32>,
    cands: Vec<Cand>,
}

struct TopHitsCollector {
    spec: TopHitsSpec,
    fetch_req: SearchRequest,
    ctx: ShardContext,
    searcher: Searcher,
    fields: Vec<(SortField, ValueFormat)>,
    /// Per sort field: a keyword's custom `missing` value.
    missing: Vec<Option<Vec<u8>>>,
    /// The nested path of the collected documents (`None`: root documents).
    scope: Option<String>,
    /// The search's query (highlighting and explanations).
    query: Option<Query>,
    inner: Vec<InnerHitsDef>,
    /// The shard-wide number of each segment's first doc.
    bases: Vec<u64>,
    states: Vec<State>,
}

fn cmp_cands(a: &Cand, b: &Cand, fields: &[SortField]) -> Ordering {
    let o = if fields.is_empty() { b.score.total_cmp(&a.score) } else { cmp_values(&a.keys, &b.keys, fields) };
    o.then(a.si.cmp(&b.si)).then(a.doc.cmp(&b.doc))
}

impl TopHitsCollector {
    fn engine_fields(&self) -> Vec<SortField> {
        self.fields.iter().map(|(f, _)| f.clone()).collect()
    }

    /// Whether hits show their scores (and `max_score`): unsorted, or `track_scores`.
    fn scored(&self) -> bool {
        self.fields.is_empty() || self.spec.track_scores
    }

    /// The segment index `si` of the searcher in this shard's reader.
    fn leaf_of(&self, si: usize) -> OsResult<usize> {
        let own = &self.ctx.reader.query().segments;
        match (own.get(si), self.searcher.segments.get(si)) {
            (Some(a), Some(b)) if Arc::ptr_eq(a, b) => Ok(si),
            _ => Err(OsError::illegal(
                "[top_hits] is not supported by this node with [dfs_query_then_fetch] over several shards of one index",
            )),
        }
    }

    fn render_hit(&self, c: &Cand) -> OsResult<Value> {
        let li = self.leaf_of(c.si as usize)?;
        let score = if self.scored() { Some(c.score) } else { None };
        let sort_vals: Option<Vec<Value>> = if self.fields.is_empty() {
            None
        } else {
            Some(c.keys.iter().zip(&self.fields).map(|(v, (f, fmt))| search_sort::render(v, f, fmt)).collect())
        };
        if let Some(path) = &self.scope {
            return self.render_nested(path, li, c, score, sort_vals);
        }
        let explanation = match (&self.query, self.spec.explain) {
            (Some(q), true) => Some(self.searcher.explain(q, c.si as usize, c.doc)?),
            _ => None,
        };
        let mut v = fetch::hit(
            &self.ctx,
            li,
            c.doc,
            score,
            sort_vals,
            explanation,
            None,
            self.query.as_ref(),
            &self.fetch_req,
        )?;
        if !self.inner.is_empty() {
            let parent = inner_hits::Parent {
                ctx: &self.ctx,
                leaf: li,
                doc: c.doc,
                root: c.doc,
                rest_total_hits_as_int: self.fetch_req.rest_total_hits_as_int,
            };
            if let Value::Object(m) = &mut v {
                m.insert("inner_hits".into(), inner_hits::render(&self.inner, parent)?);
            }
        }
        Ok(v)
    }

    /// A nested document's hit: its root's `_id`, its `_nested` identity and source slice.
    fn render_nested(
        &self,
        path: &str,
        li: usize,
        c: &Cand,
        score: Option<f32>,
        sort_vals: Option<Vec<Value>>,
    ) -> OsResult<Value> {
        let segs = &self.ctx.reader.query().segments;
        let seg: &dyn SegmentView = segs[li].as_ref();
        let all = seg.with_nested().unwrap_or(seg);
        let mut root = c.doc;
        while seg.is_nested(root) && root < seg.max_doc() {
            root += 1;
        }
        let leaves = self.ctx.reader.leaves();
        let leaf = leaves.get(li).ok_or_else(|| OsError::internal(format!("no segment {li}")))?;
        let stored = read_stored_fields(&leaf.reader, root, true)?;
        let kept: Option<Value> =
            if stored.source.is_empty() { None } else { serde_json::from_slice(&stored.source).ok() };
        let levels = inner_hits::levels(&self.ctx.mapping, path);
        let level_docs: Vec<Bits> = levels.iter().map(|l| path_docs(all, l)).collect::<Result<_, _>>()?;
        let offs = offsets(all, &level_docs, c.doc);
        let mut h = Map::new();
        if self.spec.explain {
            h.insert("_shard".into(), json!(format!("[{}][{}]", self.ctx.index, self.ctx.shard)));
            h.insert("_node".into(), json!("fathom"));
        }
        h.insert("_index".into(), json!(self.ctx.index));
        h.insert("_id".into(), json!(stored.id));
        h.insert("_nested".into(), inner_hits::identity(&levels, &offs));
        if self.spec.version || self.spec.seq_no_primary_term {
            let v = read_version(&leaf.reader, root)?;
            if self.spec.version {
                h.insert("_version".into(), json!(v.version));
            }
            if self.spec.seq_no_primary_term {
                h.insert("_seq_no".into(), json!(v.seq_no));
                h.insert("_primary_term".into(), json!(v.primary_term));
            }
        }
        h.insert("_score".into(), score.map_or(Value::Null, f32_json));
        let src = kept.as_ref().and_then(|s| slice(s, &levels, &offs));
        let wanted = match &self.spec.stored_fields {
            None => true,
            Some(sf) => self.spec.source_set || sf.iter().any(|f| f == "_source"),
        };
        if let Some(ns) = src.as_ref().filter(|_| wanted && inner_hits::source_enabled(&self.ctx.mapping)) {
            if let Some(v) = inner_hits::filtered(&self.spec.source, ns, path) {
                h.insert("_source".into(), v);
            }
        }
        let mut fields = Map::new();
        field_values::docvalue_fields(&self.ctx.mapping, all, c.doc, &self.spec.docvalue_fields, &mut fields)?;
        if !fields.is_empty() {
            h.insert("fields".into(), Value::Object(fields));
        }
        if let (Some(spec), Some(q)) = (&self.spec.highlight, &self.query) {
            let wrapped = wrap(path, src.clone().unwrap_or(Value::Null));
            let spec = inner_hits::highlightable(spec, &self.ctx.mapping);
            if let Some(hl) = crate::action::search::highlight::highlight(&spec, q, &wrapped, &self.ctx, &stored.id)? {
                h.insert("highlight".into(), hl);
            }
        }
        if let Some(s) = sort_vals {
            h.insert("sort".into(), Value::Array(s));
        }
        if let (Some(q), true) = (&self.query, self.spec.explain) {
            let w = crate::engine::query::Weight::compile(q, &[all], 1.0, true)?;
            h.insert("_explanation".into(), explanation_json(&w.explain(all, c.doc)?));
        }
        Ok(Value::Object(h))
    }
}

impl Collector for TopHitsCollector {
    fn leaf<'a>(&'a mut self, seg: &'a dyn SegmentView, si: usize) -> OsResult<Box<dyn LeafCollector + 'a>> {
        let engine = self.engine_fields();
        let base = self.bases.get(si).copied().unwrap_or(0) as i64;
        let mut keys = KeyReader::new(seg, base);
        keys.prepare(&engine)?;
        let window = self.spec.from.saturating_add(self.spec.size);
        Ok(Box::new(TopHitsLeaf {
            keys,
            engine,
            missing: &self.missing,
            si: si as u32,
            window,
            states: &mut self.states,
        }))
    }

    fn result(&mut self, ord: u32) -> OsResult<AggResult> {
        let engine = self.engine_fields();
        let window = self.spec.from.saturating_add(self.spec.size);
        let st = self.states.get_mut(ord as usize).map(std::mem::take).unwrap_or_default();
        let mut cands = st.cands;
        cands.sort_by(|a, b| cmp_cands(a, b, &engine));
        cands.truncate(window);
        let mut hits = Vec::with_capacity(cands.len());
        for c in &cands {
            let keys =
                if engine.is_empty() { vec![SortKey::Score(c.score)] } else { c.keys.iter().map(to_key).collect() };
            hits.push(TopHit {
                keys,
                shard: self.ctx.shard,
                doc: self.bases.get(c.si as usize).copied().unwrap_or(0) + u64::from(c.doc),
                hit: self.render_hit(c)?,
            });
        }
        let max_score = st.max_score.filter(|_| self.scored());
        Ok(AggResult::TopHits { total: st.total, max_score, hits, total_as_int: self.fetch_req.rest_total_hits_as_int })
    }

    fn needs_scores(&self) -> bool {
        self.fields.is_empty() || self.spec.track_scores || self.fields.iter().any(|(f, _)| f.by == SortBy::Score)
    }

    fn mem_bytes(&self) -> usize {
        self.states.iter().map(|s| 48 + s.cands.capacity() * 64).sum()
    }
}

struct TopHitsLeaf<'a> {
    keys: KeyReader<'a>,
    engine: Vec<SortField>,
    missing: &'a [Option<Vec<u8>>],
    si: u32,
    window: usize,
    states: &'a mut Vec<State>,
}

impl LeafCollector for TopHitsLeaf<'_> {
    fn collect(&mut self, doc: DocId, ord: u32, score: f32) -> OsResult<()> {
        let o = ord as usize;
        if self.states.len() <= o {
            self.states.resize_with(o + 1, State::default);
        }
        let st = &mut self.states[o];
        st.total += 1;
        if !score.is_nan() {
            st.max_score = Some(st.max_score.map_or(score, |m| m.max(score)));
        }
        if self.window == 0 {
            return Ok(());
        }
        let mut keys = Vec::with_capacity(self.engine.len());
        for (i, f) in self.engine.iter().enumerate() {
            let k = self.keys.key(f, doc, score);
            let v = match (self.keys.value(f, &k)?, self.missing.get(i)) {
                (SortValue::Null, Some(Some(m))) => SortValue::Bytes(m.clone()),
                (v, _) => v,
            };
            keys.push(v);
        }
        st.cands.push(Cand { keys, score, si: self.si, doc });
        // Bounded: sort and cut back to the window whenever twice as many wait.
        if st.cands.len() >= self.window.saturating_mul(2).max(64) {
            let engine = &self.engine;
            st.cands.sort_by(|a, b| cmp_cands(a, b, engine));
            st.cands.truncate(self.window);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::action::search::aggs::parse::parse_aggs;

    fn spec(v: Value) -> OsResult<TopHitsSpec> {
        TopHitsSpec::parse("t", v.as_object().unwrap())
    }

    #[test]
    fn parsing_defaults_and_errors() {
        let s = spec(json!({})).unwrap();
        assert_eq!((s.from, s.size), (0, 3));
        let s = spec(json!({"from": 2, "size": 5, "sort": "x", "_source": false, "version": true})).unwrap();
        assert_eq!((s.from, s.size, s.version, s.source.disabled), (2, 5, true, true));
        assert_eq!(s.sort[0].field, "x");
        let e = spec(json!({"size": -1})).unwrap_err().to_string();
        assert!(e.contains("[size] must be greater than or equal to 0. Found [-1] in [t]"), "{e}");
        let e = spec(json!({"nope": true})).unwrap_err().to_string();
        assert!(e.contains("Unknown key for a VALUE_BOOLEAN in [nope]."), "{e}");
        let e = spec(json!({"script_fields": {}})).unwrap_err().to_string();
        assert!(e.contains("Unknown key for a START_OBJECT in [script_fields]."), "{e}");
    }

    fn hit(score: f32, shard: u32, doc: u64) -> TopHit {
        TopHit { keys: vec![SortKey::Score(score)], shard, doc, hit: json!({"s": score, "shard": shard, "doc": doc}) }
    }

    /// Shards merge by score (ties by shard, then doc), then `from` and `size` apply once.
    #[test]
    fn reduce_merges_by_sort_then_pages() {
        let defs = parse_aggs(&json!({"t": {"top_hits": {"from": 1, "size": 2}}})).unwrap();
        let d = &defs[0];
        let part = |hits: Vec<TopHit>, total| AggResult::TopHits {
            total,
            max_score: hits.first().map(|h| match h.keys[0] {
                SortKey::Score(s) => s,
                _ => 0.0,
            }),
            hits,
            total_as_int: false,
        };
        let a = part(vec![hit(3.0, 0, 5), hit(1.0, 0, 1), hit(0.5, 0, 2)], 7);
        let b = part(vec![hit(2.0, 1, 0), hit(1.0, 1, 0)], 4);
        let mut rc = ReduceCtx::new(true, 100);
        let r = d.spec.reduce(d, vec![a, b], &mut rc).unwrap();
        let AggResult::TopHits { total, max_score, hits, .. } = &r else { panic!("{r:?}") };
        assert_eq!((*total, *max_score), (11, Some(3.0)));
        let got: Vec<(u32, u64)> = hits.iter().map(|h| (h.shard, h.doc)).collect();
        assert_eq!(got, vec![(1, 0), (0, 1)]);
        let m = d.spec.render(d, &r, &RenderCtx::default()).unwrap();
        assert_eq!(m["hits"]["total"], json!({"value": 11, "relation": "eq"}));
        assert_eq!(m["hits"]["hits"].as_array().unwrap().len(), 2);
    }

    #[test]
    fn field_sorts_order_missing_last_and_descending() {
        let s = spec(json!({"sort": [{"n": "desc"}]})).unwrap();
        let f = order_fields(&s);
        let k = |v: Option<i64>| TopHit {
            keys: vec![v.map_or(SortKey::Null, SortKey::Long)],
            shard: 0,
            doc: 0,
            hit: Value::Null,
        };
        let mut v = [k(None), k(Some(1)), k(Some(7))];
        v.sort_by(|a, b| cmp_hits(a, b, &f));
        assert_eq!(
            v.iter().map(|h| h.keys[0].clone()).collect::<Vec<_>>(),
            vec![SortKey::Long(7), SortKey::Long(1), SortKey::Null]
        );
    }
}
