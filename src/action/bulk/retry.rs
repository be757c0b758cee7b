//! Items that never ran because their shard had no active primary at that moment (a primary
//! handing off to its relocation target, a failover not yet published, a coordinating node's
//! stale view): OpenSearch's bulk action retries them on the next cluster state until the
//! request's `timeout`. Here the coordinating node runs them again as a bulk of their own and
//! puts their answers in their places; items that ran (successfully or not) are never run twice.

use std::time::{Duration, Instant};

use serde_json::Value;

use super::{parse_items, remote::item_lines, BulkDefaults};
use crate::action::deferred::Deferred;
use crate::cluster::ClusterService;
use crate::error::{OsError, OsResult};

/// Rounds at most (each waits for a newer cluster state, at most a second).
const MAX_ROUNDS: usize = 30;

/// Whether an item's answer is a refusal made before it ran: no active primary for its shard.
fn unavailable(item: &Value) -> bool {
    let Some(body) = item.as_object().and_then(|o| o.values().next()) else { return false };
    body["status"] == 503 && body["error"]["type"] == "unavailable_shards_exception"
}

/// The answer `out` with its unavailable items run again while `run` has time left.
pub(super) fn unavailable_items(
    cs: &ClusterService,
    body: &[u8],
    d: &BulkDefaults,
    start: Instant,
    out: Vec<u8>,
    mut deferred: Deferred,
    run: &dyn Fn(&[u8], &BulkDefaults) -> OsResult<(Vec<u8>, Deferred)>,
) -> OsResult<(Vec<u8>, Deferred)> {
    // Cheap test first: most answers have no error at all.
    if !out.starts_with(b"{\"took\":") || !out.windows(14).take(64).any(|w| w == b"\"errors\":true,") {
        return Ok((out, deferred));
    }
    let mut v: Value = serde_json::from_slice(&out).map_err(|e| OsError::internal(format!("bulk answer: {e}")))?;
    let items = parse_items(body)?;
    for _ in 0..MAX_ROUNDS {
        let answers = v["items"].as_array().cloned().unwrap_or_default();
        let again: Vec<usize> = (0..answers.len()).filter(|i| unavailable(&answers[*i])).collect();
        let left = d.wait.timeout.saturating_sub(start.elapsed());
        if again.is_empty() || left.is_zero() || answers.len() != items.len() {
            break;
        }
        let seen = cs.state().version;
        cs.wait_for_state(left.min(Duration::from_secs(1)), |st| st.version > seen);
        let mut sub = Vec::new();
        for &i in &again {
            sub.extend_from_slice(&item_lines(&items[i], None));
        }
        let left = d.wait.timeout.saturating_sub(start.elapsed());
        let retry_d =
            BulkDefaults { wait: crate::action::documents::ActiveWait { timeout: left, ..d.wait }, ..d.clone() };
        let (sub_out, sub_def) = run(&sub, &retry_d)?;
        deferred.absorb(sub_def);
        let sub_v: Value =
            serde_json::from_slice(&sub_out).map_err(|e| OsError::internal(format!("bulk answer: {e}")))?;
        let sub_items = sub_v["items"].as_array().cloned().unwrap_or_default();
        if sub_items.len() != again.len() {
            break;
        }
        for (i, a) in again.into_iter().zip(sub_items) {
            v["items"][i] = a;
        }
    }
    let errors = v["items"].as_array().is_some_and(|a| {
        a.iter().any(|i| i.as_object().and_then(|o| o.values().next()).is_some_and(|b| b.get("error").is_some()))
    });
    v["errors"] = Value::Bool(errors);
    v["took"] = Value::from(start.elapsed().as_millis() as u64);
    Ok((serde_json::to_vec(&v).map_err(|e| OsError::internal(e.to_string()))?, deferred))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn only_refusals_before_running_are_run_again() {
        let refused = json!({"index": {"_index": "i", "_id": "1", "status": 503, "error": {"type": "unavailable_shards_exception", "reason": "[i][0] shard is not in primary mode: the primary relocated"}}});
        assert!(unavailable(&refused));
        let conflict = json!({"index": {"_index": "i", "_id": "1", "status": 409, "error": {"type": "version_conflict_engine_exception"}}});
        assert!(!unavailable(&conflict));
        let written = json!({"create": {"_index": "i", "_id": "1", "status": 201, "result": "created"}});
        assert!(!unavailable(&written));
        assert!(!unavailable(&json!(null)));
    }
}
