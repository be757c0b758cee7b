//! Named queries (`_name`): each hit lists the named sub-queries of `query` and `post_filter`
//! that match it (`matched_queries`), as OpenSearch's `MatchedQueriesPhase` does; with
//! `include_named_queries_score` each name maps to that query's own score for the document.
//!
//! The names are found by walking the request JSON (children before parents, as OpenSearch's
//! `QueryShardContext` records them while building the query), and each named query object is
//! parsed on its own into an engine [`Query`]. OpenSearch keeps them in `HashMap`s, so a hit
//! lists them in Java's `HashMap` iteration order; [`java_hash_order`] reproduces it.

use serde_json::{Map, Value};

use super::dsl::{self, QueryContext};
use crate::engine::query::{Query, Searcher, Weight};
use crate::engine::segment::DocId;
use crate::error::{OsError, OsResult};

/// The named queries of `query` then `post_filter`: (name, query object), children before
/// parents; a name given twice keeps its first position and its last query (Java's
/// `HashMap.put`).
pub fn collect<'v>(query: Option<&'v Value>, post_filter: Option<&'v Value>) -> Vec<(String, &'v Value)> {
    let mut out: Vec<(String, &'v Value)> = Vec::new();
    for v in [query, post_filter].into_iter().flatten() {
        walk(v, &mut out, 0);
    }
    out
}

fn put<'v>(out: &mut Vec<(String, &'v Value)>, name: String, q: &'v Value) {
    match out.iter_mut().find(|(n, _)| *n == name) {
        Some(e) => e.1 = q,
        None => out.push((name, q)),
    }
}

/// The `_name` of a query body: at its top (`{"bool": {.., "_name": n}}`) or in a field-level
/// query's field object (`{"match": {"f": {"query": .., "_name": n}}}`).
fn name_of(body: &Map<String, Value>) -> Option<String> {
    if let Some(Value::String(n)) = body.get("_name") {
        return Some(n.clone());
    }
    body.values().find_map(|v| match v.as_object()?.get("_name")? {
        Value::String(n) => Some(n.clone()),
        _ => None,
    })
}

fn walk<'v>(v: &'v Value, out: &mut Vec<(String, &'v Value)>, depth: usize) {
    if depth > 2 * dsl::MAX_DEPTH {
        return;
    }
    match v {
        Value::Array(a) => a.iter().for_each(|x| walk(x, out, depth + 1)),
        Value::Object(m) => {
            for x in m.values() {
                walk(x, out, depth + 1);
            }
            // A query object: one key whose value is the query's body.
            if m.len() == 1 {
                if let Some((_, Value::Object(body))) = m.iter().next() {
                    if let Some(n) = name_of(body) {
                        put(out, n, v);
                    }
                }
            }
        }
        _ => {}
    }
}

/// The named queries of a request, parsed for one search unit.
pub fn parse(named: &[(String, &Value)], qc: &QueryContext<'_>) -> OsResult<Vec<(String, Query)>> {
    named.iter().map(|(n, v)| Ok((n.clone(), dsl::parse(v, qc)?))).collect()
}

/// Java's `String.hashCode` (over UTF-16 code units).
pub fn java_string_hash(s: &str) -> i32 {
    s.encode_utf16().fold(0i32, |h, c| h.wrapping_mul(31).wrapping_add(c as i32))
}

/// The order OpenSearch lists `names` (distinct, in the order the query builders recorded
/// them). They pass through Java `HashMap`s: the context's (default capacity 16, doubling past
/// three quarters full), two copies made by `HashMap(Map)`/`putAll` into an empty map
/// (capacity `tableSizeFor(n / 0.75 + 1)`), then the weights' map (doubling from 16). A map
/// iterates by bucket (`(h ^ h >>> 16) & (capacity - 1)`), within a bucket in insertion order;
/// composed, that is the order of (bucket at the doubling capacity, bucket at the copy
/// capacity, recording order).
pub fn java_hash_order(names: &[&str]) -> Vec<usize> {
    let n = names.len();
    let mut cap = 16usize;
    while n > cap * 3 / 4 {
        cap *= 2;
    }
    let copy_cap = ((n as f32 / 0.75 + 1.0) as usize).max(1).next_power_of_two();
    let spread = |s: &str| {
        let h = java_string_hash(s) as u32;
        (h ^ (h >> 16)) as usize
    };
    let mut idx: Vec<usize> = (0..n).collect();
    idx.sort_by_key(|&i| {
        let h = spread(names[i]);
        (h & (cap - 1), h & (copy_cap - 1), i)
    });
    idx
}

/// The named queries compiled for one search unit, in the order hits list them.
pub struct NamedWeights {
    weights: Vec<(String, Weight)>,
}

impl std::fmt::Debug for NamedWeights {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.weights.iter().map(|(n, _)| n)).finish()
    }
}

impl NamedWeights {
    /// Compiles each named query once over the unit's segments.
    pub fn compile(named: &[(String, Query)], searcher: &Searcher) -> OsResult<NamedWeights> {
        let names: Vec<&str> = named.iter().map(|(n, _)| n.as_str()).collect();
        let mut weights = Vec::with_capacity(named.len());
        for i in java_hash_order(&names) {
            let (n, q) = &named[i];
            let w = searcher.explain_weight(q).map_err(|e| OsError::internal(e.to_string()))?;
            weights.push((n.clone(), w));
        }
        Ok(NamedWeights { weights })
    }

    /// The names matching `doc` of `segment` with their scores, in listing order.
    pub fn matches(&self, searcher: &Searcher, segment: usize, doc: DocId) -> OsResult<Vec<(String, f32)>> {
        let mut out = Vec::new();
        for (n, w) in &self.weights {
            let e = searcher.explain_with(w, segment, doc).map_err(|e| OsError::internal(e.to_string()))?;
            if e.matched {
                out.push((n.clone(), e.value.as_f32()));
            }
        }
        Ok(out)
    }
}

/// The hit's `matched_queries`: the names, or with `scores` a name → score object; `None`
/// when nothing matched.
pub fn render(matches: &[(String, f32)], scores: bool) -> Option<Value> {
    if matches.is_empty() {
        return None;
    }
    Some(if scores {
        Value::Object(matches.iter().map(|(n, s)| (n.clone(), super::fetch::f32_json(*s))).collect())
    } else {
        Value::Array(matches.iter().map(|(n, _)| Value::String(n.clone())).collect())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn names_are_found_children_first() {
        let q = json!({"bool": {"_name": "outer", "should": [
            {"match": {"foo": {"query": "bar", "_name": "m"}}},
            {"term": {"x": {"value": 1}}},
            {"bool": {"filter": {"term": {"y": {"value": 2, "_name": "t"}}}, "_name": "inner"}}
        ]}});
        let pf = json!({"range": {"n": {"gte": 1, "_name": "r"}}});
        let names: Vec<String> = collect(Some(&q), Some(&pf)).into_iter().map(|(n, _)| n).collect();
        assert_eq!(names, ["m", "t", "inner", "outer", "r"]);
    }

    #[test]
    fn a_repeated_name_keeps_its_place_and_takes_the_last_query() {
        let q = json!({"bool": {"should": [{"term": {"a": {"value": 1, "_name": "n"}}}, {"term": {"b": {"value": 2, "_name": "n"}}}]}});
        let named = collect(Some(&q), None);
        assert_eq!(named.len(), 1);
        assert_eq!(named[0].1, &json!({"term": {"b": {"value": 2, "_name": "n"}}}));
    }

    #[test]
    fn unnamed_queries_are_not_collected() {
        let q = json!({"bool": {"must": {"match": {"foo": "bar"}}, "_name": 3}});
        assert!(collect(Some(&q), None).is_empty());
    }

    #[test]
    fn java_hash_codes() {
        assert_eq!(java_string_hash(""), 0);
        assert_eq!(java_string_hash("a"), 97);
        assert_eq!(java_string_hash("hello"), 99162322);
        assert_eq!(
            java_string_hash("foo_query"),
            "foo_query".chars().fold(0i32, |h, c| h.wrapping_mul(31).wrapping_add(c as i32))
        );
    }

    /// A model of Java's `HashMap`: chained buckets, doubling past three quarters full with
    /// order-preserving splits; returns the iteration order of the inserted keys.
    fn model(names: &[&str], insert: &[usize], mut cap: usize) -> Vec<usize> {
        let mut table: Vec<Vec<usize>> = vec![Vec::new(); cap];
        let spread = |s: &str| {
            let h = java_string_hash(s) as u32;
            (h ^ (h >> 16)) as usize
        };
        for (k, &i) in insert.iter().enumerate() {
            table[spread(names[i]) & (cap - 1)].push(i);
            if k + 1 > cap * 3 / 4 {
                cap *= 2;
                let mut t2: Vec<Vec<usize>> = vec![Vec::new(); cap];
                for b in table {
                    for j in b {
                        t2[spread(names[j]) & (cap - 1)].push(j);
                    }
                }
                table = t2;
            }
        }
        table.into_iter().flatten().collect()
    }

    #[test]
    fn hash_order_matches_the_hashmap_chain() {
        let pool: Vec<String> = (0..60).map(|i| format!("q{}_{}", i * 7 % 13, i)).collect();
        for n in 0..60 {
            let names: Vec<&str> = pool[..n].iter().map(String::as_str).collect();
            let copy_cap = ((n as f32 / 0.75 + 1.0) as usize).max(1).next_power_of_two();
            let ctx = model(&names, &(0..n).collect::<Vec<_>>(), 16);
            let copy = model(&names, &ctx, copy_cap);
            let named = model(&names, &copy, copy_cap);
            let weights = model(&names, &named, 16);
            assert_eq!(java_hash_order(&names), weights, "{n} names");
        }
        // Buckets 98 & 15 = 2 and 97 & 15 = 1: "a" first.
        assert_eq!(java_hash_order(&["b", "a"]), vec![1, 0]);
    }

    #[test]
    fn rendering() {
        assert_eq!(render(&[], true), None);
        let m = vec![("a".to_string(), 1.5f32), ("b".to_string(), 0.25)];
        assert_eq!(render(&m, false), Some(json!(["a", "b"])));
        assert_eq!(render(&m, true), Some(json!({"a": 1.5, "b": 0.25})));
    }
}
