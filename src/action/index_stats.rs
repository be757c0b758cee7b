//! `GET [/{index}]/_stats[/{metric}]` (`indices:monitor/stats`): the figures of every copy of
//! the selected indices, asked of the nodes holding them (`indices:monitor/stats[n]`), summed
//! per index (`primaries`, `total`) and over all of them (`_all`), optionally per shard copy
//! (`level=shards`).

use std::collections::BTreeMap;
use std::time::Duration;

use serde_json::{json, Map, Value};

use super::common_stats::{self, Detail};
use super::shard_stats::{self, CopyStats};
use crate::cluster::metadata::IndexState;
use crate::cluster::resolve::{resolve, IndicesOptions};
use crate::cluster::ClusterService;
use crate::error::{OsError, OsResult};

/// How deep the response goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Level {
    Cluster,
    Indices,
    Shards,
}

impl Level {
    /// `level`, with OpenSearch's message for another value.
    pub fn parse(s: Option<&str>) -> OsResult<Level> {
        match s.unwrap_or("indices") {
            "cluster" => Ok(Level::Cluster),
            "indices" => Ok(Level::Indices),
            "shards" => Ok(Level::Shards),
            other => Err(OsError::illegal(format!(
                "level parameter must be one of [cluster] or [indices] or [shards] but was [{other}]"
            ))),
        }
    }
}

/// An index stats request.
#[derive(Debug, Clone)]
pub struct StatsRequest {
    pub expr: String,
    pub options: IndicesOptions,
    pub metrics: Vec<&'static str>,
    pub level: Level,
    pub detail: Detail,
    /// `include_unloaded_segments`: a closed index shows the segments of its last commit.
    pub unloaded_segments: bool,
    pub timeout: Duration,
}

/// One copy in the routing table, with its figures when its node answered.
#[derive(Debug, Clone)]
pub struct Copy {
    pub index: String,
    pub shard: u32,
    pub primary: bool,
    pub state: &'static str,
    pub node: Option<String>,
    pub relocating_node: Option<String>,
    pub stats: Option<CopyStats>,
}

/// The indices `expr` selects and every copy of theirs in the routing table, each asked of
/// the node holding it (with its segment list when `segments`). A closed index's copies are on
/// disk but not open: zeros, and (`unloaded_segments`, a copy on this node) the segments of
/// its last commit.
pub fn copies(
    cs: &ClusterService,
    expr: &str,
    options: IndicesOptions,
    segments: bool,
    unloaded_segments: bool,
    timeout: Duration,
) -> OsResult<(Vec<String>, Vec<Copy>)> {
    let md = cs.metadata();
    let names = resolve(&md, expr, options)?;
    let st = cs.state();
    let mut holders: Vec<String> = Vec::new();
    for (name, _, c) in st.routing.copies() {
        if let Some(n) = &c.node {
            if names.iter().any(|x| x == name) && !holders.contains(n) {
                holders.push(n.clone());
            }
        }
    }
    let gathered = shard_stats::gather_with(cs, &holders, timeout, segments);
    let mut copies: Vec<Copy> = Vec::new();
    for (name, table, c) in st.routing.copies() {
        if !names.iter().any(|x| x == name) {
            continue;
        }
        let closed = md.indices.get(name).is_some_and(|m| m.state == IndexState::Close);
        let stats = match (c.active(), closed) {
            (false, _) => None,
            (true, false) => gathered.get(c.node.as_deref(), name, table.id).cloned(),
            (true, true) => {
                let mut s =
                    CopyStats { index: name.to_string(), shard: table.id, primary: c.primary, ..Default::default() };
                if unloaded_segments && c.on(&cs.node.node_id) {
                    if let Some(m) = md.indices.get(name) {
                        s.segments = shard_stats::committed_segments(cs, &m.uuid, table.id);
                    }
                }
                Some(s)
            }
        };
        copies.push(Copy {
            index: name.to_string(),
            shard: table.id,
            primary: c.primary,
            state: c.state.name(),
            node: c.node.clone(),
            relocating_node: c.relocating_node.clone(),
            stats,
        });
    }
    Ok((names, copies))
}

/// The `_stats` response.
pub fn stats(cs: &ClusterService, req: &StatsRequest) -> OsResult<Value> {
    let md = cs.metadata();
    let (names, copies) = copies(cs, &req.expr, req.options, false, req.unloaded_segments, req.timeout)?;
    let total = copies.len();
    let successful = copies.iter().filter(|c| c.stats.is_some()).count();
    let (mut all_pri, mut all_total) = (CopyStats::default(), CopyStats::default());
    let mut per_index: BTreeMap<&str, (CopyStats, CopyStats)> = BTreeMap::new();
    for c in &copies {
        let Some(s) = &c.stats else { continue };
        let e = per_index.entry(c.index.as_str()).or_default();
        common_stats::add(&mut e.1, s);
        common_stats::add(&mut all_total, s);
        if c.primary {
            common_stats::add(&mut e.0, s);
            common_stats::add(&mut all_pri, s);
        }
    }
    let render = |s: &CopyStats| common_stats::sections(s, &req.metrics, &req.detail);
    let mut out = json!({
        "_shards": {"total": total, "successful": successful, "failed": 0},
        "_all": {"primaries": render(&all_pri), "total": render(&all_total)},
    });
    if req.level != Level::Cluster {
        let mut indices = Map::new();
        for name in &names {
            let Some(m) = md.indices.get(name) else { continue };
            let (pri, tot) = per_index.get(name.as_str()).cloned().unwrap_or_default();
            let mut v = json!({"uuid": m.uuid, "primaries": render(&pri), "total": render(&tot)});
            if req.level == Level::Shards {
                v["shards"] = shards_of(name, &copies, &render);
            }
            indices.insert(name.clone(), v);
        }
        out["indices"] = Value::Object(indices);
    }
    Ok(out)
}

/// `level=shards`: each answered copy's figures with its routing, sequence numbers and paths.
fn shards_of(index: &str, copies: &[Copy], render: &dyn Fn(&CopyStats) -> Value) -> Value {
    let mut by_shard: BTreeMap<u32, Vec<Value>> = BTreeMap::new();
    for c in copies.iter().filter(|c| c.index == index) {
        let Some(s) = &c.stats else { continue };
        let mut v = render(s);
        if let Some(o) = v.as_object_mut() {
            let mut routing = Map::new();
            routing.insert("state".into(), json!(c.state));
            routing.insert("primary".into(), json!(c.primary));
            routing.insert("node".into(), json!(c.node));
            routing.insert("relocating_node".into(), json!(c.relocating_node));
            let mut m = Map::new();
            m.insert("routing".into(), Value::Object(routing));
            m.extend(std::mem::take(o));
            m.insert(
                "seq_no".into(),
                json!({"max_seq_no": s.max_seq_no, "local_checkpoint": s.local_checkpoint,
                       "global_checkpoint": s.global_checkpoint}),
            );
            m.insert(
                "shard_path".into(),
                json!({"state_path": s.path_state, "data_path": s.path_data, "is_custom_data_path": false}),
            );
            *o = m;
        }
        by_shard.entry(c.shard).or_default().push(v);
    }
    Value::Object(by_shard.into_iter().map(|(k, v)| (k.to_string(), Value::Array(v))).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_parse() {
        assert_eq!(Level::parse(None).unwrap(), Level::Indices);
        assert_eq!(Level::parse(Some("shards")).unwrap(), Level::Shards);
        assert_eq!(
            Level::parse(Some("node")).unwrap_err().reason,
            "level parameter must be one of [cluster] or [indices] or [shards] but was [node]"
        );
    }
}
