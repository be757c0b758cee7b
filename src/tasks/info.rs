//! A task's `TaskInfo` as `_tasks` renders it, and the three `group_by` shapes of a list
//! (`nodes`, `parents`, `none`) over the infos gathered from every node.

use std::sync::Arc;

use serde_json::{json, Map, Value};

use super::Task;

/// `TaskInfo.toXContent` of a running task of node `node_id`; `description` only when
/// `detailed`.
pub fn task_info(node_id: &str, t: &Arc<Task>, detailed: bool) -> Value {
    let mut m = Map::new();
    m.insert("node".into(), json!(node_id));
    m.insert("id".into(), json!(t.id));
    m.insert("type".into(), json!("transport"));
    m.insert("action".into(), json!(t.action));
    if let Some(status) = t.status() {
        m.insert("status".into(), status);
    }
    if detailed {
        m.insert("description".into(), json!(t.description()));
    }
    m.insert("start_time_in_millis".into(), json!(t.start_millis));
    m.insert("running_time_in_nanos".into(), json!(t.running_nanos()));
    m.insert("cancellable".into(), json!(t.cancellable));
    if t.cancellable {
        m.insert("cancelled".into(), json!(t.is_cancelled()));
    }
    if let Some(p) = &t.parent {
        m.insert("parent_task_id".into(), json!(p.to_string()));
    }
    let headers: Map<String, Value> = t.headers.iter().map(|(k, v)| (k.clone(), json!(v))).collect();
    m.insert("headers".into(), Value::Object(headers));
    m.insert("resource_stats".into(), t.usage().to_json());
    if let Some(at) = t.cancelled_at() {
        m.insert("cancellation_time_millis".into(), json!(at));
    }
    Value::Object(m)
}

/// The `node:id` of an info.
pub fn id_of(info: &Value) -> String {
    format!("{}:{}", info["node"].as_str().unwrap_or_default(), info["id"])
}

/// `group_by=parents`: the tasks whose parent is not listed are roots; each lists its
/// `children` (recursively), as `TaskGroup` does.
pub fn group_by_parents(infos: &[Value]) -> Map<String, Value> {
    let ids: Vec<String> = infos.iter().map(id_of).collect();
    let parent_listed = |i: &Value| i["parent_task_id"].as_str().is_some_and(|p| ids.iter().any(|x| x == p));
    let mut out = Map::new();
    for (i, id) in infos.iter().zip(&ids) {
        if !parent_listed(i) {
            out.insert(id.clone(), with_children(i, infos, 0));
        }
    }
    out
}

fn with_children(info: &Value, infos: &[Value], depth: usize) -> Value {
    let mut v = info.clone();
    let id = id_of(info);
    let children: Vec<Value> = if depth > 64 {
        Vec::new()
    } else {
        infos
            .iter()
            .filter(|c| c["parent_task_id"].as_str() == Some(id.as_str()))
            .map(|c| with_children(c, infos, depth + 1))
            .collect()
    };
    if !children.is_empty() {
        v["children"] = Value::Array(children);
    }
    v
}

/// The tasks in the `group_by=parents` tree order, each with its depth (what `_cat/tasks`
/// lists, parents before their children, roots by start time).
pub fn tree_order(infos: &[Value]) -> Vec<Value> {
    fn walk(v: &Value, out: &mut Vec<Value>) {
        let mut kids: Vec<&Value> = v["children"].as_array().map(|a| a.iter().collect()).unwrap_or_default();
        kids.sort_by_key(|c| c["start_time_in_millis"].as_u64());
        let mut me = v.clone();
        if let Some(o) = me.as_object_mut() {
            o.remove("children");
        }
        out.push(me);
        for k in kids {
            walk(k, out);
        }
    }
    let mut roots: Vec<Value> = group_by_parents(infos).into_iter().map(|(_, v)| v).collect();
    roots.sort_by_key(|r| r["start_time_in_millis"].as_u64());
    let mut out = Vec::new();
    for r in &roots {
        walk(r, &mut out);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn info(node: &str, id: u64, parent: Option<&str>, start: u64) -> Value {
        let mut v = json!({"node": node, "id": id, "action": "a", "start_time_in_millis": start});
        if let Some(p) = parent {
            v["parent_task_id"] = json!(p);
        }
        v
    }

    #[test]
    fn children_nest_under_listed_parents_only() {
        let infos = vec![info("n1", 1, None, 5), info("n2", 7, Some("n1:1"), 6), info("n1", 3, Some("gone:9"), 1)];
        let g = group_by_parents(&infos);
        assert_eq!(g.len(), 2, "{g:?}");
        assert_eq!(g["n1:1"]["children"][0]["id"], 7);
        assert!(g["n1:3"].get("children").is_none());
        let order: Vec<String> = tree_order(&infos).iter().map(id_of).collect();
        assert_eq!(order, ["n1:3", "n1:1", "n2:7"]);
    }
}
