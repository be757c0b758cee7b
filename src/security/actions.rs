//! What a REST request needs, as the security plugin checks it: the cluster-level actions
//! and, per group of index expressions, the index-level actions. Built from the route's
//! action name and pattern, the path parameters and the body (for requests that name their
//! indices in the body: `_bulk`, `_mget`, `_msearch`, `_aliases`, `_reindex`, PIT ids).
//!
//! Cluster-level means the plugin's `isClusterPerm`: `cluster:*`, templates, scroll, and the
//! top-level `bulk`/`mget`/`msearch`/`mtv`/`reindex` (their per-index parts are index-level:
//! `bulk[s]` plus the item actions, `mget[shard]`, `search`). `_cat/*` endpoints need the
//! transport actions OpenSearch's cat handlers run.

use std::collections::HashMap;

/// Cluster actions and (index expressions, actions) pairs a request needs.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RequiredPrivileges {
    pub cluster: Vec<&'static str>,
    pub indices: Vec<(Vec<String>, Vec<&'static str>)>,
    /// Actions over every index (list-all and delete-all of PITs, `_cat/pit_segments/_all`):
    /// the role must grant them on the index pattern `*` itself.
    pub every_index: Vec<&'static str>,
    /// PIT ids the request targets: the caller decodes them to their indices and adds the
    /// pair (indices, `pit_actions`) before evaluating.
    pub pit_ids: Vec<String>,
    pub pit_actions: Vec<&'static str>,
}

/// The plugin's `isClusterPerm`.
pub fn is_cluster_perm(action: &str) -> bool {
    action.starts_with("cluster:")
        || action.starts_with("indices:admin/template/")
        || action.starts_with("indices:admin/index_template/")
        || action.starts_with("indices:data/read/scroll")
        || action == "indices:data/write/bulk"
        || action == "indices:data/read/mget"
        || action.starts_with("indices:data/read/msearch")
        || action == "indices:data/read/mtv"
        || action == "indices:data/write/reindex"
        || action == "indices:data/read/search/template/render"
}

const BULK_SHARD: &str = "indices:data/write/bulk[s]";
const INDEX: &str = "indices:data/write/index";
const UPDATE: &str = "indices:data/write/update";
const DELETE: &str = "indices:data/write/delete";
const SEARCH: &str = "indices:data/read/search";
const MGET_SHARD: &str = "indices:data/read/mget[shard]";
const STATE: &str = "cluster:monitor/state";
const HEALTH: &str = "cluster:monitor/health";
const NODES_INFO: &str = "cluster:monitor/nodes/info";
const NODES_STATS: &str = "cluster:monitor/nodes/stats";

/// One request: the matched route's action and pattern, its path parameters and body.
#[derive(Debug, Clone, Copy)]
pub struct Request<'a> {
    pub action: &'static str,
    pub pattern: &'a str,
    pub params: &'a HashMap<String, String>,
    pub body: Option<&'a [u8]>,
}

impl Request<'_> {
    fn path_index(&self) -> Option<String> {
        self.params.get("index").cloned()
    }

    /// The path's `{index}`, or every index.
    fn index_or_all(&self) -> Vec<String> {
        vec![self.path_index().unwrap_or_else(|| "_all".to_string())]
    }

    fn json(&self) -> Option<serde_json::Value> {
        self.body.filter(|b| !b.is_empty()).and_then(|b| serde_json::from_slice(b).ok())
    }
}

impl RequiredPrivileges {
    fn cluster(actions: &[&'static str]) -> RequiredPrivileges {
        RequiredPrivileges { cluster: actions.to_vec(), ..Default::default() }
    }

    fn index(exprs: Vec<String>, actions: &[&'static str]) -> RequiredPrivileges {
        RequiredPrivileges { indices: vec![(exprs, actions.to_vec())], ..Default::default() }
    }

    fn and_index(mut self, exprs: Vec<String>, actions: &[&'static str]) -> RequiredPrivileges {
        self.indices.push((exprs, actions.to_vec()));
        self
    }

    /// Adds the indices the caller decoded from `pit_ids`.
    pub fn with_pit_indices(mut self, indices: Vec<String>) -> RequiredPrivileges {
        if !self.pit_actions.is_empty() {
            let actions = std::mem::take(&mut self.pit_actions);
            self.indices.push((indices, actions));
        }
        self
    }
}

/// What `req` needs.
pub fn required(req: &Request<'_>) -> RequiredPrivileges {
    let a = req.action;
    if let Some(cat) = req.pattern.strip_prefix("/_cat") {
        return cat_privileges(req, cat);
    }
    match a {
        "indices:data/write/bulk" => bulk(req),
        "indices:data/read/mget" => mget(req),
        "indices:data/read/msearch" => msearch(req),
        "indices:data/write/reindex" => reindex(req),
        "indices:admin/aliases" => aliases(req),
        "indices:data/read/point_in_time/readall" => RequiredPrivileges { every_index: vec![a], ..Default::default() },
        "indices:data/read/point_in_time/delete" => {
            if req.pattern.ends_with("/_all") {
                RequiredPrivileges { every_index: vec![a], ..Default::default() }
            } else {
                pit_ids_of(req, a)
            }
        }
        SEARCH => match pit_of_search(req) {
            Some(id) => RequiredPrivileges { pit_ids: vec![id], pit_actions: vec![SEARCH], ..Default::default() },
            None => RequiredPrivileges::index(req.index_or_all(), &[SEARCH]),
        },
        _ if is_cluster_perm(a) || !a.starts_with("indices:") => RequiredPrivileges::cluster(&[a]),
        _ => {
            let mut exprs = req.index_or_all();
            // Alias routes name the alias too: the plugin checks it as an index name.
            if let (Some(name), true) = (req.params.get("name"), a.starts_with("indices:admin/aliases")) {
                exprs.push(name.clone());
            }
            RequiredPrivileges::index(exprs, &[a])
        }
    }
}

fn pit_of_search(req: &Request<'_>) -> Option<String> {
    let v = req.json()?;
    v.get("pit")?.get("id")?.as_str().map(str::to_string)
}

fn pit_ids_of(req: &Request<'_>, action: &'static str) -> RequiredPrivileges {
    let ids = req
        .json()
        .and_then(|v| match v.get("pit_id")? {
            serde_json::Value::String(s) => Some(vec![s.clone()]),
            serde_json::Value::Array(a) => Some(a.iter().filter_map(|x| x.as_str().map(str::to_string)).collect()),
            _ => None,
        })
        .unwrap_or_default();
    RequiredPrivileges { pit_ids: ids, pit_actions: vec![action], ..Default::default() }
}

/// NDJSON lines that parse as objects.
fn ndjson(body: Option<&[u8]>) -> Vec<Option<serde_json::Value>> {
    body.unwrap_or_default()
        .split(|&b| b == b'\n')
        .filter(|l| l.iter().any(|b| !b.is_ascii_whitespace()))
        .map(|l| serde_json::from_slice(l).ok())
        .collect()
}

fn index_names(v: Option<&serde_json::Value>) -> Vec<String> {
    match v {
        Some(serde_json::Value::String(s)) => vec![s.clone()],
        Some(serde_json::Value::Array(a)) => a.iter().filter_map(|x| x.as_str().map(str::to_string)).collect(),
        _ => Vec::new(),
    }
}

/// Groups (index, action) pairs into one entry per index.
fn per_index(pairs: Vec<(String, &'static str)>, base: &[&'static str]) -> Vec<(Vec<String>, Vec<&'static str>)> {
    let mut by: Vec<(String, Vec<&'static str>)> = Vec::new();
    for (index, action) in pairs {
        let slot = match by.iter().position(|(i, _)| *i == index) {
            Some(p) => p,
            None => {
                by.push((index, base.to_vec()));
                by.len() - 1
            }
        };
        if !by[slot].1.contains(&action) {
            by[slot].1.push(action);
        }
    }
    by.into_iter().map(|(i, a)| (vec![i], a)).collect()
}

fn bulk(req: &Request<'_>) -> RequiredPrivileges {
    let default = req.path_index();
    let mut pairs = Vec::new();
    let mut lines = ndjson(req.body).into_iter();
    while let Some(line) = lines.next() {
        let Some(obj) = line.as_ref().and_then(|v| v.as_object()).and_then(|o| o.iter().next()) else {
            continue;
        };
        let (op, meta) = obj;
        let action = match op.as_str() {
            "index" | "create" => INDEX,
            "update" => UPDATE,
            "delete" => DELETE,
            _ => continue,
        };
        if action != DELETE {
            lines.next();
        }
        let index = meta.get("_index").and_then(|i| i.as_str()).map(str::to_string).or_else(|| default.clone());
        if let Some(index) = index {
            pairs.push((index, action));
        }
    }
    RequiredPrivileges { cluster: vec![req.action], indices: per_index(pairs, &[BULK_SHARD]), ..Default::default() }
}

fn mget(req: &Request<'_>) -> RequiredPrivileges {
    let default = req.path_index();
    let mut pairs = Vec::new();
    if let Some(v) = req.json() {
        for d in v.get("docs").and_then(|d| d.as_array()).into_iter().flatten() {
            if let Some(i) = d.get("_index").and_then(|i| i.as_str()).map(str::to_string).or_else(|| default.clone()) {
                pairs.push((i, MGET_SHARD));
            }
        }
        if let (Some(i), true) = (&default, v.get("ids").is_some()) {
            pairs.push((i.clone(), MGET_SHARD));
        }
    }
    RequiredPrivileges { cluster: vec![req.action], indices: per_index(pairs, &[]), ..Default::default() }
}

fn msearch(req: &Request<'_>) -> RequiredPrivileges {
    let mut out = RequiredPrivileges::cluster(&[req.action]);
    let lines = ndjson(req.body);
    for header in lines.iter().step_by(2) {
        let named = index_names(header.as_ref().and_then(|h| h.get("index")));
        let exprs = if named.is_empty() { req.index_or_all() } else { named };
        out = out.and_index(exprs, &[SEARCH]);
    }
    out
}

fn reindex(req: &Request<'_>) -> RequiredPrivileges {
    let mut out = RequiredPrivileges::cluster(&[req.action]);
    if let Some(v) = req.json() {
        let source = index_names(v.get("source").and_then(|s| s.get("index")));
        if !source.is_empty() {
            out = out.and_index(source, &[SEARCH]);
        }
        let dest = index_names(v.get("dest").and_then(|s| s.get("index")));
        if !dest.is_empty() {
            out = out.and_index(dest, &[BULK_SHARD, INDEX]);
        }
    }
    out
}

fn aliases(req: &Request<'_>) -> RequiredPrivileges {
    let mut exprs = Vec::new();
    let mut deleted = Vec::new();
    if let Some(v) = req.json() {
        for act in v.get("actions").and_then(|a| a.as_array()).into_iter().flatten() {
            let Some((kind, body)) = act.as_object().and_then(|o| o.iter().next()) else { continue };
            let names: Vec<String> = ["index", "indices"].iter().flat_map(|k| index_names(body.get(*k))).collect();
            if kind == "remove_index" {
                deleted.extend(names);
                continue;
            }
            exprs.extend(names);
            exprs.extend(["alias", "aliases"].iter().flat_map(|k| index_names(body.get(*k))));
        }
    }
    if let Some(i) = req.path_index() {
        exprs.push(i);
    }
    if let Some(n) = req.params.get("name") {
        exprs.push(n.clone());
    }
    let mut out = RequiredPrivileges::index(exprs, &[req.action]);
    if !deleted.is_empty() {
        out = out.and_index(deleted, &["indices:admin/delete"]);
    }
    out
}

/// `_cat/*`: the transport actions OpenSearch's cat handlers run.
fn cat_privileges(req: &Request<'_>, cat: &str) -> RequiredPrivileges {
    let section = cat.trim_start_matches('/').split('/').next().unwrap_or("");
    let idx = || req.path_index().map(|i| vec![i]).unwrap_or_else(|| vec!["_all".to_string()]);
    let c = RequiredPrivileges::cluster;
    match section {
        "" => RequiredPrivileges::default(),
        "indices" => c(&[STATE, HEALTH]).and_index(idx(), &["indices:monitor/settings/get", "indices:monitor/stats"]),
        "shards" => c(&[STATE]).and_index(idx(), &["indices:monitor/stats"]),
        "segments" => c(&[STATE]).and_index(idx(), &["indices:monitor/segments"]),
        "count" => RequiredPrivileges::index(idx(), &[SEARCH]),
        "recovery" => RequiredPrivileges::index(idx(), &["indices:monitor/recovery"]),
        "segment_replication" => RequiredPrivileges::index(idx(), &["indices:monitor/segment_replication"]),
        "aliases" => {
            let mut exprs = vec!["_all".to_string()];
            exprs.extend(req.params.get("alias").cloned());
            RequiredPrivileges::index(exprs, &["indices:admin/aliases/get"])
        }
        "health" => c(&[HEALTH]),
        "nodes" | "thread_pool" => c(&[STATE, NODES_INFO, NODES_STATS]),
        "allocation" => c(&[STATE, NODES_STATS]),
        "fielddata" => c(&[NODES_STATS]),
        "plugins" | "nodeattrs" => c(&[STATE, NODES_INFO]),
        "tasks" => c(&["cluster:monitor/tasks/lists"]),
        "pending_tasks" => c(&["cluster:monitor/task"]),
        "repositories" => c(&["cluster:admin/repository/get"]),
        "snapshots" => c(&["cluster:admin/snapshot/get"]),
        "pit_segments" if req.pattern.ends_with("/_all") => {
            RequiredPrivileges { every_index: vec![req.action], ..Default::default() }
        }
        "pit_segments" => pit_ids_of(req, req.action),
        // cluster_manager, master, templates: the cluster state.
        _ => c(&[STATE]),
    }
}
