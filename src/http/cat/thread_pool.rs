//! `_cat/thread_pool[/{thread_pool_patterns}]` (`RestThreadPoolAction`): one row per node and
//! pool, pools sorted by name within a node. The counters come from each node's stats
//! (`cluster:monitor/nodes/stats[n]`), the pools' configuration and process id from its info
//! (`cluster:monitor/nodes/info[n]`). Fathom's pools are all fixed-size; `total_wait_time` is
//! the time the started tasks waited in the queue, summed (measured for every pool).

use serde_json::Value;

use super::{Cell, Table};
use crate::action::{node_stats, nodes_fanout, nodes_info};
use crate::cluster::coordination_view::MemberView;
use crate::cluster::resolve::glob;
use crate::error::OsResult;
use crate::http::render::RestResponse;
use crate::http::request::{Method, RestRequest};
use crate::http::router::{Pool, Router};
use crate::node::Node;

fn columns() -> Table {
    Table::with_columns(&[
        ("node_name", "default:true;alias:nn;desc:node name"),
        ("node_id", "default:false;alias:id;desc:persistent node id"),
        ("ephemeral_node_id", "default:false;alias:eid;desc:ephemeral node id"),
        ("pid", "default:false;alias:p;desc:process id"),
        ("host", "default:false;alias:h;desc:host name"),
        ("ip", "default:false;alias:i;desc:ip address"),
        ("port", "default:false;alias:po;desc:bound transport port"),
        ("name", "default:true;alias:n;desc:thread pool name"),
        ("type", "alias:t;default:false;desc:thread pool type"),
        ("active", "alias:a;default:true;text-align:right;desc:number of active threads"),
        ("pool_size", "alias:psz;default:false;text-align:right;desc:number of threads"),
        ("queue", "alias:q;default:true;text-align:right;desc:number of tasks currently in queue"),
        ("queue_size", "alias:qs;default:false;text-align:right;desc:maximum number of tasks permitted in queue"),
        ("rejected", "alias:r;default:true;text-align:right;desc:number of rejected tasks"),
        ("largest", "alias:l;default:false;text-align:right;desc:highest number of seen active threads"),
        ("completed", "alias:c;default:false;text-align:right;desc:number of completed tasks"),
        (
            "total_wait_time",
            "alias:twt;default:false;text-align:right;desc:total time tasks spent waiting in thread_pool queue",
        ),
        ("core", "alias:cr;default:false;text-align:right;desc:core number of threads in a scaling thread pool"),
        ("max", "alias:mx;default:false;text-align:right;desc:maximum number of threads in a scaling thread pool"),
        ("size", "alias:sz;default:false;text-align:right;desc:number of threads in a fixed thread pool"),
        ("keep_alive", "alias:ka;default:false;text-align:right;desc:thread keep alive time"),
    ])
}

/// The rows: every member's pools matching `patterns`, from its stats and info answers (a
/// member without stats has no row).
pub fn table(
    members: &[MemberView],
    patterns: &[&str],
    info: &dyn Fn(&str) -> Option<Value>,
    stats: &dyn Fn(&str) -> Option<Value>,
) -> Table {
    let mut t = columns();
    for m in members {
        let Some(st) = stats(&m.node_id) else { continue };
        let Some(pools) = st["thread_pool"].as_object() else { continue };
        let inf = info(&m.node_id);
        let mut names: Vec<&String> = pools.keys().filter(|n| patterns.iter().any(|p| glob(p, n))).collect();
        names.sort();
        for name in names {
            let s = &pools[name.as_str()];
            let pi = inf.as_ref().map(|i| &i["thread_pool"][name.as_str()]);
            let int = |v: &Value| v.as_i64().map_or(Cell::Null, Cell::Int);
            let (core, max, size) = match pi.and_then(|p| p["type"].as_str()) {
                Some("scaling") => (
                    int(&pi.map_or(Value::Null, |p| p["core"].clone())),
                    int(&pi.map_or(Value::Null, |p| p["max"].clone())),
                    Cell::Null,
                ),
                Some(_) => (Cell::Null, Cell::Null, int(&pi.map_or(Value::Null, |p| p["size"].clone()))),
                None => (Cell::Null, Cell::Null, Cell::Null),
            };
            let wait = s["total_wait_time_in_nanos"].as_u64().map_or(Cell::Int(-1), |n| Cell::Millis(n / 1_000_000));
            t.rows.push(vec![
                m.name.clone().into(),
                m.node_id.clone().into(),
                m.node_id.clone().into(),
                inf.as_ref().and_then(|i| i["process"]["id"].as_i64()).map_or(Cell::Null, Cell::Int),
                nodes_fanout::host_of(m).into(),
                nodes_fanout::host_of(m).into(),
                nodes_fanout::port_of(m).map_or(Cell::Null, |p| Cell::Int(i64::from(p))),
                name.clone().into(),
                pi.and_then(|p| p["type"].as_str()).map_or(Cell::Null, Cell::from),
                int(&s["active"]),
                int(&s["threads"]),
                int(&s["queue"]),
                pi.and_then(|p| p["queue_size"].as_i64()).map_or(Cell::Int(-1), Cell::Int),
                int(&s["rejected"]),
                int(&s["largest"]),
                int(&s["completed"]),
                wait,
                core,
                max,
                size,
                pi.and_then(|p| p["keep_alive"].as_str()).map_or(Cell::Null, Cell::from),
            ]);
        }
    }
    t
}

fn cat_thread_pool(node: &Node, req: &RestRequest) -> OsResult<RestResponse> {
    req.bool_param("local", false)?;
    let cs = &node.cluster;
    let timeout = nodes_fanout::DEFAULT_TIMEOUT;
    let members = nodes_fanout::members(cs);
    let settings = crate::http::handlers::nodes::settings_map(node);
    let info_metrics = vec!["process".to_string(), "thread_pool".to_string()];
    let infos = nodes_info::gather(cs, &node.pools, None, &info_metrics, timeout, &settings, node.max_content_length);
    let stats_req = node_stats::parse_request("/_nodes/stats", Some("thread_pool"), None)?;
    let stats = node_stats::gather(cs, &node.pools, &[], &stats_req, timeout);
    let pat = req.path_param("thread_pool_patterns").unwrap_or("*");
    let patterns: Vec<&str> = pat.split(',').map(str::trim).filter(|p| !p.is_empty()).collect();
    let patterns = if patterns.is_empty() { vec!["*"] } else { patterns };
    table(&members, &patterns, &|id| infos.of(id).cloned(), &|id| stats.of(id).cloned()).respond(req)
}

const P: &[&str] = &["format", "h", "help", "s", "v", "size", "local", "master_timeout", "cluster_manager_timeout"];

/// Registers the routes.
pub fn register(r: &mut Router) {
    for p in ["/_cat/thread_pool", "/_cat/thread_pool/{thread_pool_patterns}"] {
        r.add(&[Method::Get], p, "cat:thread_pool", Pool::Management, P, cat_thread_pool);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn rows_per_matching_pool_sorted() {
        let m = MemberView {
            node_id: "abc".into(),
            name: "n1".into(),
            transport_address: "127.0.0.1:9300".into(),
            http_address: String::new(),
            roles: vec![],
            attributes: Default::default(),
        };
        let stats = json!({"thread_pool": {
            "write": {"threads": 2, "queue": 0, "active": 1, "rejected": 0, "largest": 2, "completed": 5, "total_wait_time_in_nanos": 3_000_000},
            "search": {"threads": 4, "queue": 1, "active": 0, "rejected": 3, "largest": 4, "completed": 9, "total_wait_time_in_nanos": 0},
            "get": {"threads": 2}}});
        let info =
            json!({"process": {"id": 42}, "thread_pool": {"write": {"type": "fixed", "size": 2, "queue_size": 10000}}});
        let t = table(&[m], &["write", "s*"], &|_| Some(info.clone()), &|_| Some(stats.clone()));
        assert_eq!(t.rows.len(), 2);
        assert_eq!(t.rows[0][7], Cell::Str("search".into()));
        assert_eq!(t.rows[0][12], Cell::Int(-1));
        let w = &t.rows[1];
        assert_eq!((w[3].clone(), w[8].clone(), w[12].clone()), (Cell::Int(42), "fixed".into(), Cell::Int(10000)));
        assert_eq!((w[14].clone(), w[16].clone(), w[19].clone()), (Cell::Int(2), Cell::Millis(3), Cell::Int(2)));
    }
}
