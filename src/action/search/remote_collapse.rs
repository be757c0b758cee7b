//! `collapse` with `inner_hits` across nodes (OpenSearch's `ExpandSearchPhase`): once the merged
//! page of group heads is known, the coordinating node runs each inner hit's search per group
//! (the request's query with the group's value as a filter, see [`super::collapse::InnerHits`])
//! over the same shard copies as the request, and attaches the answers to the heads.

use serde_json::{json, Map, Value};

use super::body::{HitJson, SearchBody};
use super::collapse::{Collapse, InnerHits};
use super::context::{FailedShard, ShardContext};
use super::remote::{self, NodeShards};
use super::request::SearchRequest;
use crate::cluster::ClusterService;
use crate::error::{OsError, OsResult};

/// The shards a search across nodes reads: this node's, those that failed here, the others'.
#[derive(Clone)]
pub struct Targets {
    pub ctxs: Vec<ShardContext>,
    pub failed: Vec<FailedShard>,
    pub remote: Vec<NodeShards>,
}

/// The collapse value a head carries in `fields.{field}` (null for the docs without one).
pub fn key_of(hit: &Value, field: &str) -> Value {
    hit.get("fields").and_then(|f| f.get(field)).and_then(|v| v.get(0)).cloned().unwrap_or(Value::Null)
}

/// Adds each inner hit of `c` to every hit of `body`.
pub fn expand(
    cs: &ClusterService,
    expr: &str,
    outer: &SearchRequest,
    c: &Collapse,
    targets: &Targets,
    body: &mut SearchBody,
) -> OsResult<()> {
    for hit in body.hits.iter_mut() {
        let mut v = match std::mem::replace(hit, HitJson::Value(Value::Null)) {
            HitJson::Value(v) => v,
            HitJson::Raw(b) => serde_json::from_slice(&b)
                .map_err(|e| OsError::internal(format!("a collapsed hit does not parse: {e}")))?,
        };
        let key = key_of(&v, &c.field);
        let mut out = Map::new();
        for spec in &c.inner_hits {
            let (name, req) = InnerHits::parse(spec, &c.field, &key)?.prepare(outer)?;
            let t = targets.clone();
            let group = remote::search(cs, expr, &req, t.ctxs, t.failed, t.remote)?.into_value();
            out.insert(name, json!({"hits": group.get("hits").cloned().unwrap_or(Value::Null)}));
        }
        if let Value::Object(m) = &mut v {
            m.insert("inner_hits".into(), Value::Object(out));
        }
        *hit = HitJson::Value(v);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_key_comes_from_the_heads_fields() {
        assert_eq!(key_of(&json!({"fields": {"u": ["a"]}}), "u"), json!("a"));
        assert_eq!(key_of(&json!({"fields": {"u": [3]}}), "u"), json!(3));
        assert_eq!(key_of(&json!({"fields": {"u": [null]}}), "u"), Value::Null);
        assert_eq!(key_of(&json!({"_id": "1"}), "u"), Value::Null);
    }
}
