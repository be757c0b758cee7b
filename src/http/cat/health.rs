//! `_cat/health` (`RestHealthAction`): the cluster health as one row, after the `epoch` and
//! `timestamp` columns (`ts=false` leaves them out).

use super::{Cell, Table};
use crate::action::cluster_info::{self, HealthRequest};
use crate::error::OsResult;
use crate::http::render::RestResponse;
use crate::http::request::{Method, RestRequest};
use crate::http::router::{Pool, Router};
use crate::node::Node;

/// The `epoch` and `timestamp` cells of a timestamped table for `now_millis`: seconds since
/// the epoch and `HH:MM:SS` (UTC).
pub fn time_cells(now_millis: i64) -> [Cell; 2] {
    let secs = now_millis.div_euclid(1000);
    let day = secs.rem_euclid(86_400);
    [Cell::Int(secs), format!("{:02}:{:02}:{:02}", day / 3600, day / 60 % 60, day % 60).into()]
}

fn columns() -> Table {
    Table::with_columns(&[
        ("epoch", "alias:t,time;desc:seconds since 1970-01-01 00:00:00"),
        ("timestamp", "alias:ts,hms,hhmmss;desc:time in HH:MM:SS"),
        ("cluster", "alias:cl;desc:cluster name"),
        ("status", "alias:st;desc:health status"),
        ("node.total", "alias:nt,nodeTotal;text-align:right;desc:total number of nodes"),
        ("node.data", "alias:nd,nodeData;text-align:right;desc:number of nodes that can store data"),
        ("discovered_cluster_manager", "alias:dcm;text-align:right;desc:cluster manager is discovered or not"),
        ("shards", "alias:t,sh,shards.total,shardsTotal;text-align:right;desc:total number of shards"),
        ("pri", "alias:p,shards.primary,shardsPrimary;text-align:right;desc:number of primary shards"),
        ("relo", "alias:r,shards.relocating,shardsRelocating;text-align:right;desc:number of relocating nodes"),
        ("init", "alias:i,shards.initializing,shardsInitializing;text-align:right;desc:number of initializing nodes"),
        ("unassign", "alias:u,shards.unassigned,shardsUnassigned;text-align:right;desc:number of unassigned shards"),
        ("pending_tasks", "alias:pt,pendingTasks;text-align:right;desc:number of pending tasks"),
        ("max_task_wait_time", "alias:mtwt,maxTaskWaitTime;text-align:right;desc:wait time of longest task pending"),
        (
            "active_shards_percent",
            "alias:asp,activeShardsPercent;text-align:right;desc:active number of shards in percent",
        ),
    ])
}

/// The health row of a `_cluster/health` body taken at `now_millis`.
pub fn table(h: &serde_json::Value, now_millis: i64) -> Table {
    let mut t = columns();
    let n = |k: &str| Cell::Int(h[k].as_i64().unwrap_or(0));
    let [epoch, ts] = time_cells(now_millis);
    let wait = h["task_max_waiting_in_queue_millis"].as_u64().unwrap_or(0);
    t.rows.push(vec![
        epoch,
        ts,
        h["cluster_name"].as_str().unwrap_or_default().into(),
        h["status"].as_str().unwrap_or_default().into(),
        n("number_of_nodes"),
        n("number_of_data_nodes"),
        h["discovered_cluster_manager"].as_bool().unwrap_or(false).to_string().into(),
        n("active_shards"),
        n("active_primary_shards"),
        n("relocating_shards"),
        n("initializing_shards"),
        n("unassigned_shards"),
        n("number_of_pending_tasks"),
        if wait == 0 { "-".into() } else { Cell::Millis(wait) },
        format!("{:.1}%", h["active_shards_percent_as_number"].as_f64().unwrap_or(0.0)).into(),
    ]);
    t
}

fn cat_health(node: &Node, req: &RestRequest) -> OsResult<RestResponse> {
    req.bool_param("local", false)?;
    let (_, h) = cluster_info::health(&node.cluster, &HealthRequest::default())?;
    table(&h, crate::clock::now_millis()).respond(req)
}

const P: &[&str] =
    &["format", "h", "help", "s", "v", "ts", "time", "local", "master_timeout", "cluster_manager_timeout"];

/// Registers the route.
pub fn register(r: &mut Router) {
    r.add(&[Method::Get], "/_cat/health", "cat:health", Pool::Management, P, cat_health);
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn one_row_with_the_time_first() {
        let h = json!({"cluster_name": "c", "status": "green", "number_of_nodes": 2, "number_of_data_nodes": 1,
            "discovered_cluster_manager": true, "active_shards": 4, "active_primary_shards": 2,
            "relocating_shards": 0, "initializing_shards": 0, "unassigned_shards": 1,
            "number_of_pending_tasks": 0, "task_max_waiting_in_queue_millis": 0,
            "active_shards_percent_as_number": 80.0});
        let t = table(&h, 1_706_702_405_123);
        let r = &t.rows[0];
        assert_eq!((r[0].clone(), r[1].clone()), (Cell::Int(1_706_702_405), Cell::Str("12:00:05".into())));
        assert_eq!(r[6], Cell::Str("true".into()));
        assert_eq!(r[13], Cell::Str("-".into()));
        assert_eq!(r[14], Cell::Str("80.0%".into()));
        assert_eq!(table(&json!({"task_max_waiting_in_queue_millis": 7}), 0).rows[0][13], Cell::Millis(7));
    }
}
