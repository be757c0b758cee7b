//! `POST /_cluster/reroute` (OpenSearch's `RestClusterRerouteAction` /
//! `ClusterRerouteRequest`): the body's `commands` parsed as OpenSearch parses them, run by the
//! cluster layer, and the answer `{acknowledged, state, explanations}` with the state filtered
//! by `metric` (everything but `metadata` unless asked).

use serde_json::{json, Map, Value};

use crate::cluster::allocation::Command;
use crate::cluster::ClusterService;
use crate::error::{ErrorKind, OsError, OsResult};

/// A parsed reroute request.
#[derive(Debug, Clone, Default)]
pub struct RerouteRequest {
    pub commands: Vec<Command>,
    pub dry_run: bool,
    pub explain: bool,
    pub retry_failed: bool,
    /// `metric`: the parts of the state in the answer (empty: OpenSearch's default).
    pub metrics: Vec<String>,
}

/// The state metrics a reroute answer shows unless `metric` says otherwise
/// (`ClusterState.Metric` without `metadata`).
const DEFAULT_METRICS: &[&str] =
    &["version", "master_node", "cluster_manager_node", "blocks", "nodes", "routing_table", "routing_nodes", "customs"];

fn parse_error(msg: String) -> OsError {
    OsError::new(ErrorKind::Parse, msg)
}

fn text(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

fn boolean(name: &str, field: &str, v: &Value) -> OsResult<bool> {
    match v {
        Value::Bool(b) => Ok(*b),
        Value::String(s) if s == "true" || s == "false" => Ok(s == "true"),
        other => Err(OsError::new(
            ErrorKind::XContentParse,
            format!("[{name}] failed to parse field [{field}]: Failed to parse value [{other}] as only [true] or [false] are allowed."),
        )),
    }
}

/// One command object: `{"move": {...}}`.
fn parse_command(name: &str, body: &Value) -> OsResult<Command> {
    let Some(o) = body.as_object() else {
        return Err(parse_error(format!("[{name}] command must be an object")));
    };
    let (mut index, mut shard, mut node, mut from, mut to) = (None, None::<i64>, None, None, None);
    let (mut allow_primary, mut accept) = (false, false);
    for (k, v) in o {
        if v.is_object() || v.is_array() {
            return Err(parse_error(format!("[{name}] command does not support complex json tokens [START_OBJECT]")));
        }
        let bad_value = || parse_error(format!("[{name}] failed to parse field [{k}]"));
        match (name, k.as_str()) {
            (_, "index") => index = text(v),
            (_, "shard") => {
                shard = Some(match v {
                    Value::Number(n) => n.as_i64().ok_or_else(bad_value)?,
                    Value::String(s) => s.trim().parse().map_err(|_| bad_value())?,
                    _ => return Err(bad_value()),
                })
            }
            ("move", "from_node" | "fromNode") => from = text(v),
            ("move", "to_node" | "toNode") => to = text(v),
            ("cancel" | "allocate_replica" | "allocate_empty_primary" | "allocate_stale_primary", "node") => {
                node = text(v)
            }
            ("cancel", "allow_primary" | "allowPrimary") => allow_primary = boolean(name, k, v)?,
            ("allocate_empty_primary" | "allocate_stale_primary", "accept_data_loss") => accept = boolean(name, k, v)?,
            _ => {
                return Err(match name {
                    "move" | "cancel" => parse_error(format!("[{name}] command does not support field [{k}]")),
                    _ => OsError::new(ErrorKind::XContentParse, format!("[{name}] unknown field [{k}]")),
                })
            }
        }
    }
    if name == "move" || name == "cancel" {
        let missing = |p: &str| parse_error(format!("[{name}] command missing the {p} parameter"));
        let index = index.ok_or_else(|| missing("index"))?;
        let shard = shard.filter(|s| *s != -1).ok_or_else(|| missing("shard"))?;
        let shard =
            u32::try_from(shard).map_err(|_| OsError::illegal(format!("[{name}] shard [{shard}] is negative")))?;
        return Ok(if name == "move" {
            let from_node = from.ok_or_else(|| missing("from_node"))?;
            let to_node = to.ok_or_else(|| missing("to_node"))?;
            Command::Move { index, shard, from_node, to_node }
        } else {
            let node = node.ok_or_else(|| missing("node"))?;
            Command::Cancel { index, shard, node, allow_primary }
        });
    }
    // `AbstractAllocateAllocationCommand.Builder.validate`.
    let index = index.ok_or_else(|| OsError::illegal("Argument [index] must be defined"))?;
    let shard = shard
        .and_then(|s| u32::try_from(s).ok())
        .ok_or_else(|| OsError::illegal("Argument [shard] must be defined and non-negative"))?;
    let node = node.ok_or_else(|| OsError::illegal("Argument [node] must be defined"))?;
    Ok(match name {
        "allocate_replica" => Command::AllocateReplica { index, shard, node },
        "allocate_empty_primary" => Command::AllocateEmptyPrimary { index, shard, node, accept_data_loss: accept },
        _ => Command::AllocateStalePrimary { index, shard, node, accept_data_loss: accept },
    })
}

/// `AllocationCommands.fromXContent`: an array of single-key objects.
fn parse_commands(v: &Value) -> OsResult<Vec<Command>> {
    let Some(list) = v.as_array() else {
        return Err(parse_error("commands should be an array".into()));
    };
    let mut out = Vec::new();
    for item in list {
        let Some(o) = item.as_object().filter(|o| o.len() == 1) else {
            return Err(parse_error("allocation command is missing the command name".into()));
        };
        let (name, body) = o.iter().next().expect("one entry");
        if !["move", "cancel", "allocate_replica", "allocate_empty_primary", "allocate_stale_primary"]
            .contains(&name.as_str())
        {
            return Err(parse_error(format!("unknown allocation command [{name}]")));
        }
        out.push(parse_command(name, body)?);
    }
    Ok(out)
}

/// Parses the body (`commands`, `dry_run`) into `req`.
pub fn parse_body(body: &Value, req: &mut RerouteRequest) -> OsResult<()> {
    let Some(o) = body.as_object() else {
        return Err(parse_error("request body must be an object".into()));
    };
    for (k, v) in o {
        match k.as_str() {
            "commands" => req.commands = parse_commands(v)?,
            "dry_run" => req.dry_run = boolean("cluster_reroute", k, v)?,
            other => {
                return Err(OsError::new(
                    ErrorKind::XContentParse,
                    format!("[cluster_reroute] unknown field [{other}]"),
                ))
            }
        }
    }
    Ok(())
}

/// Checks the `metric` parameter's values.
pub fn parse_metrics(raw: &str) -> OsResult<Vec<String>> {
    let v: Vec<String> = raw.split(',').map(|m| m.trim().to_string()).filter(|m| !m.is_empty()).collect();
    for m in &v {
        if !super::cluster_info::STATE_METRICS.contains(&m.as_str()) {
            return Err(OsError::illegal(format!("unknown metric [{m}]")));
        }
    }
    Ok(v)
}

/// Runs the request; the answer's body.
pub fn reroute(cs: &ClusterService, req: &RerouteRequest) -> OsResult<Value> {
    let out = cs.reroute_commands(&req.commands, req.dry_run, req.explain, req.retry_failed)?;
    let metrics: Vec<String> = if req.metrics.is_empty() {
        DEFAULT_METRICS.iter().map(|m| m.to_string()).collect()
    } else {
        req.metrics.clone()
    };
    let state = crate::action::cluster_info::state_with(cs, &metrics, None, Some(&out.routing))?;
    let mut m = Map::new();
    m.insert("acknowledged".into(), json!(true));
    m.insert("state".into(), state);
    if req.explain {
        m.insert("explanations".into(), Value::Array(out.explanations));
    }
    Ok(Value::Object(m))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_parse_as_opensearch_parses_them() {
        let mut r = RerouteRequest::default();
        let body = json!({"commands": [
            {"move": {"index": "i", "shard": 0, "from_node": "a", "to_node": "b"}},
            {"cancel": {"index": "i", "shard": "1", "node": "a", "allow_primary": true}},
            {"allocate_replica": {"index": "i", "shard": 0, "node": "c"}},
            {"allocate_empty_primary": {"index": "i", "shard": 0, "node": "c", "accept_data_loss": true}}
        ], "dry_run": true});
        parse_body(&body, &mut r).unwrap();
        assert!(r.dry_run);
        assert_eq!(r.commands.len(), 4);
        assert_eq!(
            r.commands[1],
            Command::Cancel { index: "i".into(), shard: 1, node: "a".into(), allow_primary: true }
        );
        let e = parse_body(&json!({"commands": [{"move": {"index": "i", "shard": 0, "to_node": "b"}}]}), &mut r);
        assert_eq!(e.unwrap_err().reason, "[move] command missing the from_node parameter");
        let e = parse_body(&json!({"commands": [{"move": {"index": "i", "x": 1}}]}), &mut r);
        assert_eq!(e.unwrap_err().reason, "[move] command does not support field [x]");
        let e = parse_body(&json!({"commands": [{"allocate_replica": {"shard": 0, "node": "n"}}]}), &mut r);
        assert_eq!(e.unwrap_err().reason, "Argument [index] must be defined");
        let e = parse_body(&json!({"commands": [{"jump": {}}]}), &mut r);
        assert_eq!(e.unwrap_err().reason, "unknown allocation command [jump]");
        let e = parse_body(&json!({"other": 1}), &mut r);
        assert_eq!(e.unwrap_err().reason, "[cluster_reroute] unknown field [other]");
        assert!(parse_metrics("nodes,nope").is_err());
    }
}
