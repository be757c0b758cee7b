//! `nested` and `reverse_nested` (OpenSearch's `NestedAggregator`, `ReverseNestedAggregator`):
//! a nested aggregation collects, for each parent document in its bucket, the nested documents
//! of its `path` inside that parent's block (Lucene's block join: children come right before
//! their parent); its sub-aggregations run over the view that shows nested documents, in the
//! nested scope of `path`. `reverse_nested` goes from nested documents back to their root (or
//! to an enclosing nested level), counting each parent once per bucket.
//!
//! The parent level of a `nested` aggregation is the nested scope it is in (the enclosing
//! `nested` or `reverse_nested` aggregation's path, or the root documents), as OpenSearch's
//! `NestedScope` decides it.

use std::cell::Cell;

use serde_json::{Map, Value};

use super::filter::{reduce_single, render_single, single_property};
use super::result::AggResult;
use super::source::token;
use super::{AggDef, AggSpec, Collector, LeafCollector, ReduceCtx, RenderCtx, ShardEnv, SubLeaves, Subs};
use crate::action::search::dsl::QueryContext;
use crate::engine::query::block_join::{path_docs, Bits};
use crate::engine::query::SegmentView;
use crate::engine::segment::{DocId, NO_MORE_DOCS};
use crate::error::{ErrorKind, OsError, OsResult};

thread_local! {
    /// How many `nested` aggregations enclose the collectors being built on this thread
    /// (`reverse_nested` needs one).
    static NESTED_DEPTH: Cell<u32> = const { Cell::new(0) };
}

/// Counts one enclosing `nested` aggregation while it lives.
struct DepthGuard;

impl DepthGuard {
    fn enter() -> DepthGuard {
        NESTED_DEPTH.with(|d| d.set(d.get() + 1));
        DepthGuard
    }
}

impl Drop for DepthGuard {
    fn drop(&mut self) {
        NESTED_DEPTH.with(|d| d.set(d.get().saturating_sub(1)));
    }
}

/// Reads `{"path": "..."}` (OpenSearch's parser: string values only).
fn parse_path(name: &str, body: &Map<String, Value>) -> OsResult<Option<String>> {
    let mut path = None;
    for (k, v) in body {
        match v {
            Value::String(s) if k == "path" => path = Some(s.clone()),
            Value::String(_) | Value::Number(_) | Value::Bool(_) => {
                return Err(OsError::parsing(format!("Unknown key for a {} in [{name}]: [{k}].", token(v))))
            }
            _ => return Err(OsError::parsing(format!("Unexpected token {} in [{name}].", token(v)))),
        }
    }
    Ok(path)
}

/// `nested`.
#[derive(Debug, Clone)]
pub struct NestedSpec {
    pub path: String,
}

impl NestedSpec {
    pub fn parse(name: &str, body: &Map<String, Value>) -> OsResult<NestedSpec> {
        match parse_path(name, body)? {
            Some(path) => Ok(NestedSpec { path }),
            None => Err(OsError::parsing(format!("Missing [path] field for nested aggregation [{name}]"))),
        }
    }
}

/// `reverse_nested` (`path`: an enclosing nested level; none: the root documents).
#[derive(Debug, Clone)]
pub struct ReverseNestedSpec {
    pub path: Option<String>,
}

impl ReverseNestedSpec {
    pub fn parse(name: &str, body: &Map<String, Value>) -> OsResult<ReverseNestedSpec> {
        Ok(ReverseNestedSpec { path: parse_path(name, body)? })
    }
}

fn not_nested(agg: &str, path: &str) -> OsError {
    OsError::new(ErrorKind::AggregationExecution, format!("[{agg}] nested path [{path}] is not nested"))
}

/// The sub-collectors of `def` in nested scope `scope`.
fn scoped_subs(def: &AggDef, env: &ShardEnv<'_>, scope: Option<&str>) -> OsResult<Subs> {
    let qc = QueryContext { nested_scope: scope, ..*env.qc };
    let inner = ShardEnv { qc: &qc, ..env.sub() };
    Subs::new(def, &inner)
}

/// A single bucket that collects nothing (an unmapped path).
struct Unmapped {
    empty: Vec<AggResult>,
}

impl Collector for Unmapped {
    fn leaf<'a>(&'a mut self, _seg: &'a dyn SegmentView, _si: usize) -> OsResult<Box<dyn LeafCollector + 'a>> {
        Ok(Box::new(NoLeaf))
    }

    fn result(&mut self, _ord: u32) -> OsResult<AggResult> {
        Ok(AggResult::Single { doc_count: 0, subs: self.empty.clone() })
    }
}

struct NoLeaf;

impl LeafCollector for NoLeaf {
    fn collect(&mut self, _doc: DocId, _ord: u32, _score: f32) -> OsResult<()> {
        Ok(())
    }
}

impl AggSpec for NestedSpec {
    fn type_name(&self) -> &'static str {
        "nested"
    }

    fn collector(&self, def: &AggDef, env: &ShardEnv<'_>) -> OsResult<Box<dyn Collector>> {
        let Some(obj) = env.qc.mapping.object(&self.path) else {
            return Ok(Box::new(Unmapped { empty: def.empty_subs() }));
        };
        if !obj.nested {
            return Err(not_nested("nested", &self.path));
        }
        let parent = env.qc.nested_scope.map(str::to_string);
        let _depth = DepthGuard::enter();
        let subs = scoped_subs(def, env, Some(self.path.as_str()))?;
        Ok(Box::new(NestedCollector { path: self.path.clone(), parent, counts: Vec::new(), subs }))
    }

    fn empty(&self, def: &AggDef) -> AggResult {
        AggResult::Single { doc_count: 0, subs: def.empty_subs() }
    }

    fn reduce(&self, def: &AggDef, parts: Vec<AggResult>, rc: &mut ReduceCtx) -> OsResult<AggResult> {
        reduce_single(def, parts, rc)
    }

    fn render(&self, def: &AggDef, r: &AggResult, rc: &RenderCtx) -> OsResult<Map<String, Value>> {
        render_single(def, r, rc)
    }

    fn property(&self, def: &AggDef, r: &AggResult, path: &[String]) -> OsResult<f64> {
        single_property(def, r, path)
    }
}

impl AggSpec for ReverseNestedSpec {
    fn type_name(&self) -> &'static str {
        "reverse_nested"
    }

    fn collector(&self, def: &AggDef, env: &ShardEnv<'_>) -> OsResult<Box<dyn Collector>> {
        if NESTED_DEPTH.with(Cell::get) == 0 {
            return Err(OsError::illegal(format!(
                "Reverse nested aggregation [{}] can only be used inside a [nested] aggregation",
                def.name
            )));
        }
        if let Some(p) = &self.path {
            match env.qc.mapping.object(p) {
                None => return Ok(Box::new(Unmapped { empty: def.empty_subs() })),
                Some(o) if !o.nested => return Err(not_nested("reverse_nested", p)),
                Some(_) => {}
            }
        }
        let subs = scoped_subs(def, env, self.path.as_deref())?;
        Ok(Box::new(ReverseCollector { path: self.path.clone(), counts: Vec::new(), subs }))
    }

    fn empty(&self, def: &AggDef) -> AggResult {
        AggResult::Single { doc_count: 0, subs: def.empty_subs() }
    }

    fn reduce(&self, def: &AggDef, parts: Vec<AggResult>, rc: &mut ReduceCtx) -> OsResult<AggResult> {
        reduce_single(def, parts, rc)
    }

    fn render(&self, def: &AggDef, r: &AggResult, rc: &RenderCtx) -> OsResult<Map<String, Value>> {
        render_single(def, r, rc)
    }

    fn property(&self, def: &AggDef, r: &AggResult, path: &[String]) -> OsResult<f64> {
        single_property(def, r, path)
    }
}

/// The documents of a level in `all`: a nested path's, or the root documents.
fn level_docs(all: &dyn SegmentView, path: Option<&str>) -> OsResult<Bits> {
    Ok(match path {
        Some(p) => path_docs(all, p)?,
        None => {
            let flags: Vec<bool> = (0..all.max_doc()).map(|d| !all.is_nested(d)).collect();
            Bits::from_flags(&flags)
        }
    })
}

/// The last set doc `< d` (`None`: none).
fn prev_set(bits: &Bits, d: DocId) -> Option<DocId> {
    if d == 0 {
        return None;
    }
    let words = bits.words();
    let last = d - 1;
    let mut i = last as usize / 64;
    let mut w = words.get(i).copied().unwrap_or(0) & (u64::MAX >> (63 - (last % 64)));
    loop {
        if w != 0 {
            return Some((i * 64) as DocId + 63 - w.leading_zeros());
        }
        if i == 0 {
            return None;
        }
        i -= 1;
        w = words.get(i).copied().unwrap_or(0);
    }
}

fn bump(counts: &mut Vec<u64>, ord: u32) {
    let o = ord as usize;
    if counts.len() <= o {
        counts.resize(o + 1, 0);
    }
    counts[o] += 1;
}

struct NestedCollector {
    path: String,
    /// The parent level (`None`: root documents).
    parent: Option<String>,
    counts: Vec<u64>,
    subs: Subs,
}

impl Collector for NestedCollector {
    fn leaf<'a>(&'a mut self, seg: &'a dyn SegmentView, si: usize) -> OsResult<Box<dyn LeafCollector + 'a>> {
        let all = seg.with_nested().unwrap_or(seg);
        let children = path_docs(all, &self.path)?;
        let parents = level_docs(all, self.parent.as_deref())?;
        Ok(Box::new(NestedLeaf { all, children, parents, counts: &mut self.counts, subs: self.subs.leaves(all, si)? }))
    }

    fn result(&mut self, ord: u32) -> OsResult<AggResult> {
        Ok(AggResult::Single {
            doc_count: self.counts.get(ord as usize).copied().unwrap_or(0),
            subs: self.subs.results(ord)?,
        })
    }

    fn needs_scores(&self) -> bool {
        self.subs.needs_scores()
    }

    fn mem_bytes(&self) -> usize {
        self.counts.capacity() * 8 + self.subs.mem_bytes()
    }
}

struct NestedLeaf<'a> {
    all: &'a dyn SegmentView,
    children: Bits,
    parents: Bits,
    counts: &'a mut Vec<u64>,
    subs: SubLeaves<'a>,
}

impl LeafCollector for NestedLeaf<'_> {
    fn collect(&mut self, parent: DocId, ord: u32, score: f32) -> OsResult<()> {
        let start = prev_set(&self.parents, parent).map_or(0, |p| p + 1);
        let mut c = self.children.next_set(start);
        while c < parent && c != NO_MORE_DOCS {
            if self.all.is_live(c) {
                bump(self.counts, ord);
                self.subs.collect(c, ord, score)?;
            }
            c = self.children.next_set(c + 1);
        }
        Ok(())
    }
}

struct ReverseCollector {
    path: Option<String>,
    counts: Vec<u64>,
    subs: Subs,
}

impl Collector for ReverseCollector {
    fn leaf<'a>(&'a mut self, seg: &'a dyn SegmentView, si: usize) -> OsResult<Box<dyn LeafCollector + 'a>> {
        let all = seg.with_nested().unwrap_or(seg);
        let parents = level_docs(all, self.path.as_deref())?;
        Ok(Box::new(ReverseLeaf {
            parents,
            last: std::collections::HashMap::new(),
            counts: &mut self.counts,
            subs: self.subs.leaves(all, si)?,
        }))
    }

    fn result(&mut self, ord: u32) -> OsResult<AggResult> {
        Ok(AggResult::Single {
            doc_count: self.counts.get(ord as usize).copied().unwrap_or(0),
            subs: self.subs.results(ord)?,
        })
    }

    fn needs_scores(&self) -> bool {
        self.subs.needs_scores()
    }

    fn mem_bytes(&self) -> usize {
        self.counts.capacity() * 8 + self.subs.mem_bytes()
    }
}

struct ReverseLeaf<'a> {
    parents: Bits,
    /// The last parent collected per bucket ordinal.
    last: std::collections::HashMap<u32, DocId>,
    counts: &'a mut Vec<u64>,
    subs: SubLeaves<'a>,
}

impl LeafCollector for ReverseLeaf<'_> {
    fn collect(&mut self, child: DocId, ord: u32, score: f32) -> OsResult<()> {
        let parent = self.parents.next_set(child);
        if parent == NO_MORE_DOCS {
            return Ok(());
        }
        if self.last.get(&ord).is_some_and(|&p| parent <= p) {
            return Ok(());
        }
        self.last.insert(ord, parent);
        bump(self.counts, ord);
        self.subs.collect(parent, ord, score)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn previous_set_bit() {
        let b = Bits::from_flags(&[true, false, false, true, false]);
        assert_eq!(prev_set(&b, 0), None);
        assert_eq!(prev_set(&b, 1), Some(0));
        assert_eq!(prev_set(&b, 3), Some(0));
        assert_eq!(prev_set(&b, 4), Some(3));
        let mut flags = vec![false; 200];
        flags[5] = true;
        flags[130] = true;
        let b = Bits::from_flags(&flags);
        assert_eq!(prev_set(&b, 130), Some(5));
        assert_eq!(prev_set(&b, 199), Some(130));
        assert_eq!(prev_set(&b, 64), Some(5));
        assert_eq!(prev_set(&b, 5), None);
    }

    #[test]
    fn path_parsing() {
        let m = |v: Value| v.as_object().cloned().unwrap();
        assert_eq!(NestedSpec::parse("n", &m(serde_json::json!({"path": "a"}))).unwrap().path, "a");
        let e = NestedSpec::parse("n", &m(serde_json::json!({}))).unwrap_err();
        assert!(e.to_string().contains("Missing [path] field for nested aggregation [n]"), "{e}");
        let e = NestedSpec::parse("n", &m(serde_json::json!({"foo": "a"}))).unwrap_err();
        assert!(e.to_string().contains("Unknown key for a VALUE_STRING in [n]: [foo]."), "{e}");
        assert!(ReverseNestedSpec::parse("r", &m(serde_json::json!({}))).unwrap().path.is_none());
    }
}
