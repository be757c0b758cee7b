//! `_tasks` (list, get, cancel) and `_cat/tasks`.

use std::time::Duration;

use crate::action::nodes_fanout;
use crate::action::task_results;
use crate::action::tasks::{gather, list_response, TasksRequest, ACTION_CANCEL, ACTION_LIST};
use crate::error::{OsError, OsResult};
use crate::http::cat::{Cell, Table};
use crate::http::render::RestResponse;
use crate::http::request::{Method, RestRequest};
use crate::http::router::{Pool, Router};
use crate::node::Node;
use crate::tasks::TaskId;

fn tasks_request(req: &RestRequest) -> OsResult<TasksRequest> {
    let parent = match req.param("parent_task_id") {
        Some(p) if !p.is_empty() => Some(TaskId::parse(p)?),
        _ => None,
    };
    let task = match req.path_param("task_id") {
        Some(t) => Some(TaskId::parse(t)?),
        None => None,
    };
    Ok(TasksRequest {
        actions: req.list_param("actions").unwrap_or_default(),
        parent,
        task,
        nodes: req.list_param("nodes").unwrap_or_default(),
        detailed: req.bool_param("detailed", false)?,
        wait_for_completion: req.bool_param("wait_for_completion", false)?,
        timeout: req.time_param("timeout")?.unwrap_or(nodes_fanout::DEFAULT_TIMEOUT),
        reason: crate::tasks::BY_USER_REQUEST.to_string(),
    })
}

fn group_by(req: &RestRequest) -> OsResult<String> {
    let g = req.param("group_by").unwrap_or("nodes");
    if !matches!(g, "nodes" | "parents" | "none") {
        return Err(OsError::illegal(format!(
            "[group_by] must be one of [nodes] or [parents] or [none] but was [{g}]"
        )));
    }
    Ok(g.to_string())
}

fn list(node: &Node, req: &RestRequest) -> OsResult<RestResponse> {
    let group = group_by(req)?;
    let r = tasks_request(req)?;
    let (infos, g) = gather(&node.cluster, &node.tasks, &r, false);
    Ok(RestResponse::ok(list_response(&node.cluster, infos, &g, &group)))
}

fn cancel(node: &Node, req: &RestRequest) -> OsResult<RestResponse> {
    let group = group_by(req)?;
    let r = tasks_request(req)?;
    let (infos, g) = gather(&node.cluster, &node.tasks, &r, true);
    Ok(RestResponse::ok(list_response(&node.cluster, infos, &g, &group)))
}

fn get(node: &Node, req: &RestRequest) -> OsResult<RestResponse> {
    let id = TaskId::parse(req.path_param("task_id").unwrap_or_default())?;
    let wait = req.bool_param("wait_for_completion", false)?;
    let timeout = req.time_param("timeout")?.unwrap_or(Duration::from_secs(30));
    Ok(RestResponse::ok(task_results::get_task(&node.cluster, &node.tasks, &id, wait, timeout)?))
}

/// `TimeValue.toString()` of nanoseconds: the largest unit the value reaches, one decimal.
pub fn time_value_nanos(n: u64) -> String {
    const UNITS: [(u64, &str); 6] = [
        (86_400_000_000_000, "d"),
        (3_600_000_000_000, "h"),
        (60_000_000_000, "m"),
        (1_000_000_000, "s"),
        (1_000_000, "ms"),
        (1_000, "micros"),
    ];
    for (size, unit) in UNITS {
        if n >= size {
            let v = n as f64 / size as f64;
            let s = format!("{:.1}", (v * 10.0).floor() / 10.0);
            return format!("{}{unit}", s.strip_suffix(".0").unwrap_or(&s));
        }
    }
    format!("{n}nanos")
}

fn hms(ms: u64) -> String {
    let s = (ms / 1000) % 86_400;
    format!("{:02}:{:02}:{:02}", s / 3600, (s / 60) % 60, s % 60)
}

fn cat_tasks(node: &Node, req: &RestRequest) -> OsResult<RestResponse> {
    let r = tasks_request(req)?;
    let full_id = req.bool_param("full_id", false)?;
    let (infos, _) = gather(&node.cluster, &node.tasks, &r, false);
    let mut cols = vec![
        ("id", "default:false;desc:id of the task with the node"),
        ("action", "alias:ac;desc:task action"),
        ("task_id", "alias:ti;desc:unique task id"),
        ("parent_task_id", "alias:pti;desc:parent task id"),
        ("type", "alias:ty;desc:task type"),
        ("start_time", "alias:start;desc:start time in ms"),
        ("timestamp", "alias:ts,hms,hhmmss;desc:start time in HH:MM:SS"),
        ("running_time_ns", "default:false;alias:time;desc:running time ns"),
        ("running_time", "default:true;alias:time;desc:running time"),
        ("node_id", "default:false;alias:ni;desc:unique node id"),
        ("ip", "default:true;alias:i;desc:ip address"),
        ("port", "default:false;alias:po;desc:bound transport port"),
        ("node", "default:true;alias:n;desc:node name"),
        ("version", "default:false;alias:v;desc:es version"),
        ("x_opaque_id", "default:false;alias:x;desc:X-Opaque-ID header"),
    ];
    if r.detailed {
        cols.push(("description", "default:true;alias:desc;desc:task action"));
    }
    let mut t = Table::with_columns(&cols);
    let members = nodes_fanout::members(&node.cluster);
    for i in crate::tasks::info::tree_order(&infos) {
        let node_id = i["node"].as_str().unwrap_or_default().to_string();
        let m = members.iter().find(|m| m.node_id == node_id);
        let start = i["start_time_in_millis"].as_u64().unwrap_or(0);
        let running = i["running_time_in_nanos"].as_u64().unwrap_or(0);
        let mut row: Vec<Cell> = vec![
            i["id"].as_i64().map_or(Cell::Null, Cell::Int),
            i["action"].as_str().unwrap_or_default().into(),
            crate::tasks::info::id_of(&i).into(),
            i["parent_task_id"].as_str().unwrap_or("-").into(),
            i["type"].as_str().unwrap_or_default().into(),
            Cell::Int(start as i64),
            hms(start).into(),
            Cell::Int(running as i64),
            if req.has("time") { Cell::Millis(running / 1_000_000) } else { time_value_nanos(running).into() },
            if full_id { node_id.clone() } else { node_id.chars().take(4).collect() }.into(),
            m.map_or("-", nodes_fanout::host_of).into(),
            m.and_then(nodes_fanout::port_of).map_or(Cell::Null, |p| Cell::Int(i64::from(p))),
            m.map_or("-".to_string(), |m| m.name.clone()).into(),
            "3.3.0".into(),
            i["headers"]["X-Opaque-Id"].as_str().unwrap_or("-").into(),
        ];
        if r.detailed {
            row.push(i["description"].as_str().unwrap_or_default().into());
        }
        t.rows.push(row);
    }
    t.respond(req)
}

const LIST_P: &[&str] =
    &["nodes", "actions", "detailed", "parent_task_id", "wait_for_completion", "group_by", "timeout"];
const CANCEL_P: &[&str] = &["nodes", "actions", "parent_task_id", "wait_for_completion", "group_by"];
const CAT_P: &[&str] =
    &["format", "h", "help", "s", "v", "time", "nodes", "actions", "detailed", "parent_task_id", "full_id"];

/// Registers the routes.
pub fn register(r: &mut Router) {
    use Method::*;
    r.add(&[Get], "/_tasks", ACTION_LIST, Pool::Management, LIST_P, list);
    r.add(
        &[Get],
        "/_tasks/{task_id}",
        "cluster:monitor/task/get",
        Pool::Management,
        &["wait_for_completion", "timeout"],
        get,
    );
    for p in ["/_tasks/_cancel", "/_tasks/{task_id}/_cancel"] {
        r.add(&[Post], p, ACTION_CANCEL, Pool::Management, CANCEL_P, cancel);
    }
    // `_cat/tasks` runs the list action, as OpenSearch's does.
    r.add(&[Get], "/_cat/tasks", ACTION_LIST, Pool::Management, CAT_P, cat_tasks);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_print_as_time_values() {
        assert_eq!(time_value_nanos(0), "0nanos");
        assert_eq!(time_value_nanos(999), "999nanos");
        assert_eq!(time_value_nanos(1_500), "1.5micros");
        assert_eq!(time_value_nanos(2_000_000), "2ms");
        assert_eq!(time_value_nanos(61_000_000_000), "1m");
        assert_eq!(hms(3_723_000), "01:02:03");
    }
}
