//! A bulk request whose items' primaries live on several nodes (OpenSearch's
//! `TransportBulkAction` splitting into `TransportShardBulkAction` requests): the coordinating
//! node resolves each item's index and shard (generating missing ids first, so the shard is
//! known), sends each other node the items whose primary it holds as a shard-level bulk
//! (`indices:data/write/bulk[s]`), runs its own items, and puts the answers back in the
//! request's order. A node that cannot be reached fails its items, never the others.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::meta::OpType;
use super::{render, BulkDefaults, Item};
use crate::action::deferred::Deferred;
use crate::action::documents::active_shards::ActiveShardCount;
use crate::action::documents::remote_write::retryable;
use crate::action::documents::{write_target, ActiveWait, Refresh};
use crate::action::source_filter::SourceFilter;
use crate::cluster::remote::{frame_pair, unframe_pair};
use crate::cluster::ClusterService;
use crate::error::{OsError, OsResult};

/// The shard-level bulk a node sends to the node holding the primaries.
pub const ACTION_SHARD_BULK: &str = "indices:data/write/bulk[s]";

/// How long a shard-level bulk may take beyond the request's own timeout.
const SLACK: Duration = Duration::from_secs(30);

/// [`BulkDefaults`] as they travel.
#[derive(Debug, Serialize, Deserialize)]
struct WireDefaults {
    index: Option<String>,
    routing: Option<String>,
    pipeline: Option<String>,
    require_alias: bool,
    refresh: String,
    source: Option<(bool, Vec<String>, Vec<String>)>,
    wait_for_active_shards: Option<String>,
    timeout_ms: u64,
}

impl WireDefaults {
    fn of(d: &BulkDefaults) -> WireDefaults {
        WireDefaults {
            index: d.index.clone(),
            routing: d.routing.clone(),
            pipeline: d.pipeline.clone(),
            require_alias: d.require_alias,
            refresh: match d.refresh {
                Refresh::False => "false",
                Refresh::True => "true",
                Refresh::WaitFor => "wait_for",
            }
            .into(),
            source: d.source.as_ref().map(|s| (s.disabled, s.includes.clone(), s.excludes.clone())),
            wait_for_active_shards: match d.wait.want {
                ActiveShardCount::Default => None,
                ActiveShardCount::All => Some("all".into()),
                ActiveShardCount::Count(n) => Some(n.to_string()),
            },
            timeout_ms: d.wait.timeout.as_millis() as u64,
        }
    }

    fn into_defaults(self) -> OsResult<BulkDefaults> {
        Ok(BulkDefaults {
            index: self.index,
            routing: self.routing,
            pipeline: self.pipeline,
            require_alias: self.require_alias,
            refresh: Refresh::parse(Some(&self.refresh))?,
            source: self.source.map(|(disabled, includes, excludes)| SourceFilter { disabled, includes, excludes }),
            wait: ActiveWait {
                want: ActiveShardCount::parse(self.wait_for_active_shards.as_deref())?,
                timeout: Duration::from_millis(self.timeout_ms),
            },
            forwarded: true,
        })
    }
}

/// Per node (`None`: this one), the request positions and NDJSON lines of its items; `None`
/// when every item is for this node (the common case, and always on a node alone).
type Plan = BTreeMap<Option<String>, (Vec<usize>, Vec<u8>)>;

/// The node holding the active primary of the item's shard, when it is another node. Items
/// that cannot be resolved here stay here (their error is this node's to give).
fn destination(cs: &ClusterService, item: &Item, id: &str, d: &BulkDefaults) -> Option<String> {
    let name = item.meta.index.as_deref().or(d.index.as_deref())?;
    let require_alias = item.meta.require_alias.unwrap_or(d.require_alias);
    let svc = write_target(cs, name, require_alias).ok()?;
    let routing = item.meta.routing().or(d.routing.as_deref());
    crate::action::documents::remote_write::remote_primary(cs, &svc, id, routing)
}

/// The item's NDJSON lines, with `id` written into its action line when it had none.
pub(super) fn item_lines(item: &Item, id: Option<&str>) -> Vec<u8> {
    let mut out = Vec::new();
    match id {
        None => out.extend_from_slice(item.raw),
        Some(id) => {
            let mut v: Value = serde_json::from_slice(item.raw).unwrap_or(Value::Null);
            if let Some(body) = v.as_object_mut().and_then(|o| o.values_mut().next()).and_then(Value::as_object_mut) {
                body.insert("_id".into(), Value::String(id.to_string()));
            }
            out.extend_from_slice(&serde_json::to_vec(&v).unwrap_or_default());
        }
    }
    out.push(b'\n');
    if let Some(s) = item.source {
        out.extend_from_slice(s);
        out.push(b'\n');
    }
    out
}

/// Groups the items by the node of their primary; `None` when all are local.
pub(super) fn plan(cs: &ClusterService, items: &[Item], d: &BulkDefaults) -> Option<Plan> {
    if cs.state().nodes.len() <= 1 {
        return None;
    }
    let mut dests = Vec::with_capacity(items.len());
    let mut any_remote = false;
    for item in items {
        let given = item.meta.id.as_deref().map(str::to_string);
        let generated = match (&given, item.op) {
            (None, OpType::Index | OpType::Create) => Some(crate::cluster::indices::new_uuid()),
            _ => None,
        };
        let id = given.or(generated.clone()).unwrap_or_default();
        let dest = destination(cs, item, &id, d);
        any_remote |= dest.is_some();
        dests.push((dest, generated));
    }
    if !any_remote {
        return None;
    }
    let mut plan = Plan::new();
    for (i, (item, (dest, generated))) in items.iter().zip(dests).enumerate() {
        let e = plan.entry(dest).or_default();
        e.0.push(i);
        e.1.extend_from_slice(&item_lines(item, generated.as_deref()));
    }
    Some(plan)
}

/// Runs the plan: this node's items here, the others' on their nodes in parallel; the
/// answers merged in request order.
pub(super) fn execute(
    cs: &ClusterService,
    items: &[Item],
    plan: Plan,
    d: &BulkDefaults,
    start: Instant,
) -> OsResult<(Vec<u8>, Deferred)> {
    let head = serde_json::to_vec(&WireDefaults::of(d)).map_err(|e| OsError::internal(e.to_string()))?;
    let local_d = BulkDefaults { forwarded: true, ..d.clone() };
    let mut answers: Vec<Option<Value>> = vec![None; items.len()];
    let mut deferred = Deferred::default();
    let results: Vec<(Vec<usize>, Result<(Vec<u8>, Deferred), OsError>)> = std::thread::scope(|scope| {
        let handles: Vec<_> = plan
            .into_iter()
            .map(|(dest, (positions, body))| {
                let (head, local_d) = (&head, &local_d);
                scope.spawn(move || {
                    let r = match &dest {
                        None => super::bulk(cs, &body, local_d),
                        Some(node) => {
                            let sent = cs
                                .send(node, ACTION_SHARD_BULK, frame_pair(head, &body), local_d.wait.timeout + SLACK)
                                .map(|b| (b, Deferred::default()));
                            match sent {
                                // The node is gone or its primaries fail over: once a newer
                                // state is here, the items run again from the top (split anew).
                                Err(e) if retryable(cs, &e) && start.elapsed() < d.wait.timeout => {
                                    let seen = cs.state().version;
                                    cs.wait_for_state(Duration::from_secs(1), |st| st.version > seen);
                                    let left = d.wait.timeout.saturating_sub(start.elapsed());
                                    let again = BulkDefaults {
                                        forwarded: false,
                                        wait: ActiveWait { timeout: left, ..d.wait },
                                        ..d.clone()
                                    };
                                    super::bulk(cs, &body, &again)
                                }
                                r => r,
                            }
                        }
                    };
                    (positions, r)
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|_| (Vec::new(), Err(OsError::internal("a shard bulk panicked")))))
            .collect()
    });
    let mut errors = false;
    for (positions, r) in results {
        match r.and_then(|(bytes, def)| {
            let v: Value = serde_json::from_slice(&bytes)
                .map_err(|e| OsError::internal(format!("malformed shard bulk answer: {e}")))?;
            Ok((v, def))
        }) {
            Ok((v, def)) => {
                deferred.absorb(def);
                errors |= v["errors"] == true;
                let got = v["items"].as_array().cloned().unwrap_or_default();
                for (p, item) in positions.iter().zip(got) {
                    answers[*p] = Some(item);
                }
            }
            Err(e) => {
                // The node's items fail with its error; the others stand.
                errors = true;
                for p in positions {
                    let item = &items[p];
                    let index = item.meta.index.as_deref().or(d.index.as_deref()).unwrap_or_default();
                    let mut out = Vec::new();
                    render::failed(&mut out, item.op, index, item.meta.id.as_deref(), e.status, &e.to_json());
                    answers[p] = serde_json::from_slice(&out).ok();
                }
            }
        }
    }
    let mut out = Vec::new();
    for (n, a) in answers.into_iter().enumerate() {
        if n > 0 {
            out.push(b',');
        }
        let a = a.ok_or_else(|| OsError::internal("a bulk item got no answer"))?;
        out.extend_from_slice(&serde_json::to_vec(&a).map_err(|e| OsError::internal(e.to_string()))?);
    }
    Ok((render::body(start.elapsed().as_millis() as u64, errors, &out), deferred))
}

/// What a shard-level bulk of single-document writes carries besides its items.
#[derive(Debug, Clone, Copy)]
pub struct ShardBulkDefaults {
    pub refresh: Refresh,
    pub wait: ActiveWait,
}

/// Sends `body` (items all for `node`) as a shard-level bulk; its answer.
pub fn send_shard_bulk(cs: &ClusterService, node: &str, d: &ShardBulkDefaults, body: &[u8]) -> OsResult<Value> {
    let full = BulkDefaults { refresh: d.refresh, wait: d.wait, ..Default::default() };
    let head = serde_json::to_vec(&WireDefaults::of(&full)).map_err(|e| OsError::internal(e.to_string()))?;
    let bytes = cs.send(node, ACTION_SHARD_BULK, frame_pair(&head, body), d.wait.timeout + SLACK)?;
    serde_json::from_slice(&bytes).map_err(|e| OsError::internal(format!("malformed shard bulk answer: {e}")))
}

/// The receiving side of [`ACTION_SHARD_BULK`]: runs the items here (never forwarding them
/// again) and answers once their refreshes, if asked for, happened.
pub fn handle_shard_bulk(cs: &ClusterService, payload: &[u8]) -> OsResult<Vec<u8>> {
    let (head, body) = unframe_pair(payload).ok_or_else(|| OsError::illegal("malformed shard bulk request"))?;
    let wire: WireDefaults =
        serde_json::from_slice(head).map_err(|e| OsError::illegal(format!("malformed shard bulk request: {e}")))?;
    let d = wire.into_defaults()?;
    let (bytes, deferred) = super::bulk(cs, body, &d)?;
    for s in &deferred.refresh_waits {
        s.wait_for_refresh()?;
    }
    Ok(bytes)
}
