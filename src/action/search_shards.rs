//! `GET|POST [/{index}]/_search_shards` (OpenSearch's `ClusterSearchShardsAction`): the shards a
//! search of the same indices, `routing`, `preference` and `slice` would reach, each with the
//! copies it could read (active ones first, then initializing, as the shard iterator lists
//! them), the nodes holding those copies, and per index the aliases the expression reached it
//! through with their combined filter. Read from this node's applied cluster state.

use serde_json::{json, Map, Value};

use crate::action::search::context::{alias_filters, names_alias, shard_filter};
use crate::action::search::slice::Slice;
use crate::cluster::allocation::render::copy_json;
use crate::cluster::metadata::Metadata;
use crate::cluster::resolve::{self, glob, IndicesOptions};
use crate::cluster::routing_table::ShardCopy;
use crate::cluster::state::ClusterState;
use crate::cluster::ClusterService;
use crate::error::OsResult;

/// What a `_search_shards` request names.
#[derive(Debug, Clone, Default)]
pub struct SearchShardsRequest {
    pub expr: String,
    pub routing: Option<String>,
    pub preference: Option<String>,
    /// The body's `slice`: only the shards that slice of a sliced search reads.
    pub slice: Option<Slice>,
}

/// The response of `_search_shards`.
pub fn search_shards(cs: &ClusterService, opts: IndicesOptions, r: &SearchShardsRequest) -> OsResult<Value> {
    let md = cs.metadata();
    let mut names = resolve::resolve(&md, &r.expr, opts)?;
    names.sort();
    let refs: Vec<&str> = names.iter().map(String::as_str).collect();
    cs.check_blocks(crate::cluster::blocks::Level::MetadataRead, &refs)?;
    let keep = shard_filter(cs, r.routing.as_deref(), r.preference.as_deref())?;
    let st = cs.state();
    let pref = r.preference.as_deref().map(|p| p.split_once('|').map_or(p, |(_, rest)| rest));
    let pref = pref.filter(|p| !p.starts_with("_shards:"));
    let me = cs.node.node_id.as_str();
    let mut groups = Vec::new();
    let mut node_ids: Vec<String> = Vec::new();
    let mut indices = Map::new();
    for name in &names {
        let n = md.indices.get(name).map_or(0, |m| m.number_of_shards());
        let reached: Vec<u32> = (0..n).filter(|&s| keep(name, s)).collect();
        let count = reached.len() as i64;
        for (pos, shard) in reached.into_iter().enumerate() {
            if r.slice.as_ref().is_some_and(|s| !slice_matches(s, pos as i64, count)) {
                continue;
            }
            let copies = readable_copies(&st, me, name, shard, pref);
            for c in &copies {
                for node in [c.node.as_ref(), c.relocating_node.as_ref()].into_iter().flatten() {
                    if !node_ids.contains(node) {
                        node_ids.push(node.clone());
                    }
                }
            }
            groups.push(Value::Array(copies.iter().map(|c| copy_json(name, shard, c)).collect()));
        }
        indices.insert(name.clone(), index_entry(&md, &r.expr, name));
    }
    node_ids.sort();
    let mut nodes = Map::new();
    for id in node_ids {
        nodes.insert(id.clone(), node_json(cs, &st, &id));
    }
    Ok(json!({"nodes": nodes, "indices": indices, "shards": groups}))
}

/// OpenSearch's `SliceBuilder.shardMatches`: with more slices than shards each shard serves
/// several slices; otherwise each slice reads every `max`-th shard.
fn slice_matches(s: &Slice, ordinal: i64, shards: i64) -> bool {
    let (id, max) = (i64::from(s.id), i64::from(s.max));
    if max >= shards {
        crate::action::search::slice::floor_mod(id, shards) == ordinal
    } else {
        crate::action::search::slice::floor_mod(ordinal, max) == id
    }
}

/// The copies of a shard a search with `preference` may read: active ones, then initializing.
fn readable_copies(st: &ClusterState, me: &str, index: &str, shard: u32, pref: Option<&str>) -> Vec<ShardCopy> {
    let Some(t) = st.routing.shard(index, shard) else { return Vec::new() };
    let allowed = |c: &ShardCopy| -> bool {
        let on = |pattern: &str| {
            c.node.as_deref().is_some_and(|n| {
                let name = st.node(n).map(|m| m.name.as_str()).unwrap_or("");
                pattern.split(',').map(str::trim).any(|p| glob(p, n) || glob(p, name))
            })
        };
        match pref.filter(|p| !p.is_empty()) {
            Some("_primary" | "_only_primary") => c.primary,
            Some("_replica") => !c.primary,
            Some("_only_local") => c.on(me),
            Some(p) if p.starts_with("_only_nodes:") => on(&p["_only_nodes:".len()..]),
            _ => true,
        }
    };
    let mut out: Vec<ShardCopy> =
        t.copies.iter().filter(|c| c.node.is_some() && c.active() && allowed(c)).cloned().collect();
    out.extend(t.copies.iter().filter(|c| c.node.is_some() && !c.active() && allowed(c)).cloned());
    out
}

/// `indices.{index}`: the aliases the expression reached the index through (sorted), and the
/// filter a search through them applies (absent when any path reaches it unfiltered).
fn index_entry(md: &Metadata, expr: &str, index: &str) -> Value {
    let Some(meta) = md.indices.get(index) else { return json!({}) };
    let mut aliases: Vec<&str> = Vec::new();
    for part in expr.split(',').map(str::trim).filter(|p| !p.is_empty() && !p.starts_with('-')) {
        for alias in meta.aliases.keys() {
            let hit = part == "_all" || names_alias(part, alias);
            if hit && !aliases.contains(&alias.as_str()) {
                aliases.push(alias);
            }
        }
    }
    if aliases.is_empty() {
        return json!({});
    }
    aliases.sort_unstable();
    let mut m = Map::new();
    m.insert("aliases".into(), json!(aliases));
    match alias_filters(md, expr, index) {
        Some(mut f) if f.len() == 1 => {
            m.insert("filter".into(), canonical(&f.remove(0)));
        }
        Some(f) if !f.is_empty() => {
            let should: Vec<Value> = f.iter().map(canonical).collect();
            m.insert("filter".into(), json!({"bool": {"should": should, "adjust_pure_negative": true, "boost": 1.0}}));
        }
        _ => {}
    }
    Value::Object(m)
}

/// A query as OpenSearch prints a parsed query builder, for the builders whose defaults it
/// spells out (`term`, `match_all`, `bool`); any other query is shown as stored.
fn canonical(q: &Value) -> Value {
    let Some((kind, body)) = q.as_object().filter(|m| m.len() == 1).and_then(|m| m.iter().next()) else {
        return q.clone();
    };
    match (kind.as_str(), body) {
        ("term", Value::Object(b)) if b.len() == 1 => {
            let Some((field, v)) = b.iter().next() else { return q.clone() };
            let mut inner = match v {
                Value::Object(o) => o.clone(),
                other => {
                    let mut o = Map::new();
                    o.insert("value".into(), other.clone());
                    o
                }
            };
            let boost = inner.remove("boost").unwrap_or(json!(1.0));
            inner.insert("boost".into(), boost);
            json!({"term": {field: inner}})
        }
        ("match_all", Value::Object(b)) => {
            let mut b = b.clone();
            let boost = b.remove("boost").unwrap_or(json!(1.0));
            b.insert("boost".into(), boost);
            json!({"match_all": b})
        }
        ("bool", Value::Object(b)) => {
            let mut out = Map::new();
            for clause in ["must", "filter", "must_not", "should"] {
                let list: Vec<Value> = match b.get(clause) {
                    Some(Value::Array(a)) => a.iter().map(canonical).collect(),
                    Some(one @ Value::Object(_)) => vec![canonical(one)],
                    _ => continue,
                };
                if !list.is_empty() {
                    out.insert(clause.into(), Value::Array(list));
                }
            }
            out.insert("adjust_pure_negative".into(), b.get("adjust_pure_negative").cloned().unwrap_or(json!(true)));
            if let Some(m) = b.get("minimum_should_match") {
                out.insert("minimum_should_match".into(), m.clone());
            }
            if let Some(n) = b.get("_name") {
                out.insert("_name".into(), n.clone());
            }
            out.insert("boost".into(), b.get("boost").cloned().unwrap_or(json!(1.0)));
            json!({"bool": out})
        }
        _ => q.clone(),
    }
}

/// `DiscoveryNode.toXContent` of a node of the cluster (this node without coordination).
fn node_json(cs: &ClusterService, st: &ClusterState, id: &str) -> Value {
    if let Some(m) = st.node(id) {
        let attrs: Map<String, Value> = m.attributes.iter().map(|(k, v)| (k.clone(), json!(v))).collect();
        let mut roles = m.roles.clone();
        roles.sort();
        return json!({"name": m.name, "ephemeral_id": m.node_id, "transport_address": m.transport_address,
            "attributes": attrs, "roles": roles});
    }
    let attrs: Map<String, Value> = cs.node.attributes.iter().map(|(k, v)| (k.clone(), json!(v))).collect();
    json!({"name": cs.node.node_name, "ephemeral_id": id, "transport_address": cs.transport_address(),
        "attributes": attrs})
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slices_pick_shards_as_opensearch() {
        let s = |id, max| Slice { field: "_id".into(), id, max };
        let pick = |sl: &Slice, n: i64| (0..n).filter(|&o| slice_matches(sl, o, n)).collect::<Vec<_>>();
        assert_eq!(pick(&s(0, 3), 7), vec![0, 3, 6]);
        assert_eq!(pick(&s(1, 3), 7), vec![1, 4]);
        assert_eq!(pick(&s(2, 3), 7), vec![2, 5]);
        assert_eq!(pick(&s(0, 3), 4), vec![0, 3]);
        // More slices than shards: each slice reads one shard.
        assert_eq!(pick(&s(5, 8), 3), vec![2]);
    }

    #[test]
    fn filters_print_with_their_defaults() {
        assert_eq!(
            canonical(&json!({"term": {"field": "value1"}})),
            json!({"term": {"field": {"value": "value1", "boost": 1.0}}})
        );
        assert_eq!(
            canonical(&json!({"term": {"f": {"value": 3, "boost": 2.0}}})),
            json!({"term": {"f": {"value": 3, "boost": 2.0}}})
        );
        assert_eq!(
            canonical(&json!({"bool": {"must_not": {"term": {"a": "b"}}}})),
            json!({"bool": {"must_not": [{"term": {"a": {"value": "b", "boost": 1.0}}}], "adjust_pure_negative": true, "boost": 1.0}})
        );
        assert_eq!(canonical(&json!({"range": {"n": {"gte": 1}}})), json!({"range": {"n": {"gte": 1}}}));
    }
}
