//! `wait_for_active_shards` of write requests (OpenSearch's `ActiveShardCount` and the check of
//! `ReplicationOperation`): before a shard executes a write, enough copies of it must be active;
//! otherwise the request waits (up to its `timeout`, default 1m) for more copies and fails with a
//! 503 `unavailable_shards_exception`. The active copies are those the routing table shows
//! started (a node alone has only its primaries: 1 active copy out of `1 + number_of_replicas`).

use std::time::{Duration, Instant};

use crate::cluster::health::effective_replicas;
use crate::cluster::metadata::IndexMetadata;
use crate::cluster::{ClusterService, IndexService};
use crate::error::{ErrorKind, OsError, OsResult};
use crate::units::human_millis;

/// How long a write waits for active copies by default (`timeout`).
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);

/// Poll interval while waiting for copies.
const POLL: Duration = Duration::from_millis(25);

/// `ActiveShardCount`: the copies a write needs active.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ActiveShardCount {
    /// The index's `index.write.wait_for_active_shards` (default 1).
    #[default]
    Default,
    /// Every copy (`all`).
    All,
    /// This many copies.
    Count(u32),
}

impl ActiveShardCount {
    /// `ActiveShardCount.parseString`: absent → default, `all`, or a non-negative int.
    pub fn parse(s: Option<&str>) -> OsResult<ActiveShardCount> {
        match s {
            None => Ok(ActiveShardCount::Default),
            Some("all") => Ok(ActiveShardCount::All),
            Some(v) => match v.parse::<i32>() {
                Ok(n) if n < 0 => Err(OsError::illegal("shard count cannot be a negative value")),
                Ok(n) => Ok(ActiveShardCount::Count(n as u32)),
                Err(_) => Err(OsError::illegal(format!("cannot parse ActiveShardCount[{v}]"))
                    .caused_by(OsError::new(ErrorKind::NumberFormat, format!("For input string: \"{v}\"")))),
            },
        }
    }

    /// The request's count with `Default` resolved from the index setting.
    fn resolve(self, m: &IndexMetadata) -> ActiveShardCount {
        match self {
            ActiveShardCount::Default => match m.setting("index.write.wait_for_active_shards") {
                Some("all") => ActiveShardCount::All,
                Some(v) => ActiveShardCount::Count(v.parse().unwrap_or(1)),
                None => ActiveShardCount::Count(1),
            },
            other => other,
        }
    }

    /// Whether a write never has to wait whatever the index (`0` or `1`): the common case,
    /// checked without touching metadata.
    pub fn trivially_met(self) -> bool {
        matches!(self, ActiveShardCount::Count(0 | 1))
    }
}

/// The outcome of a failed check: everything of the message but the request description.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Shortfall {
    pub index: String,
    pub shard: u32,
    pub label: String,
    pub have: u32,
    pub needed: u32,
    pub timeout: Duration,
}

impl Shortfall {
    /// OpenSearch's `UnavailableShardsException` for `request` (the request's `toString`).
    pub fn error(&self, request: &str) -> OsError {
        OsError::new(
            ErrorKind::UnavailableShards,
            format!(
                "[{}][{}] Not enough active copies to meet shard count of [{}] (have {}, needed {}). Timeout: [{}], request: [{request}]",
                self.index,
                self.shard,
                self.label,
                self.have,
                self.needed,
                time_value(self.timeout)
            ),
        )
    }
}

/// `TimeValue.toString()` (`0s` for zero).
pub fn time_value(d: Duration) -> String {
    let ms = d.as_millis() as u64;
    if ms == 0 {
        "0s".into()
    } else {
        human_millis(ms)
    }
}

/// `(have, needed, label)` when `m`'s shards lack copies for `want`, `None` when enough are active.
fn short_of(want: ActiveShardCount, m: &IndexMetadata, active: u32) -> Option<(u32, u32, String)> {
    let total = 1 + effective_replicas(m, 1);
    match want.resolve(m) {
        ActiveShardCount::All if active < total => Some((active, total, "ALL".into())),
        ActiveShardCount::Count(n) if n > active => Some((active, n, n.to_string())),
        _ => None,
    }
}

/// Checks shard `shard` of `svc` against `want`, waiting until `deadline` for copies (a bulk
/// request shares one deadline among its shards, as their waits run in parallel in OpenSearch).
pub fn check(
    cs: &ClusterService,
    svc: &IndexService,
    shard: u32,
    want: ActiveShardCount,
    timeout: Duration,
    deadline: Instant,
) -> Result<(), Shortfall> {
    if want.trivially_met() {
        return Ok(());
    }
    // Bounded: one poll per POLL until the deadline.
    loop {
        let m = svc.metadata();
        let active = cs
            .state()
            .routing
            .shard(&svc.name, shard)
            .map_or(1, |t| t.copies.iter().filter(|c| c.active()).count().max(1) as u32);
        let Some((have, needed, label)) = short_of(want, &m, active) else { return Ok(()) };
        let now = Instant::now();
        if now >= deadline {
            return Err(Shortfall { index: svc.name.clone(), shard, label, have, needed, timeout });
        }
        std::thread::sleep(POLL.min(deadline - now));
    }
}

/// `IndexRequest.toString()`: `index {[idx][id], source[{...}]}` (source re-rendered compactly;
/// longer than 2 KiB → its length only).
pub fn describe_index(index: &str, id: &str, source: &[u8]) -> String {
    const MAX: usize = 2048;
    let s = if source.len() > MAX {
        format!(
            "n/a, actual length: [{}], max length: {}",
            crate::units::human_bytes(source.len() as u64),
            crate::units::human_bytes(MAX as u64)
        )
    } else {
        match serde_json::from_slice::<serde_json::Value>(source) {
            Ok(v) => v.to_string(),
            Err(_) => "_na_".into(),
        }
    };
    format!("index {{[{index}][{id}], source[{s}]}}")
}

/// `UpdateRequest.toString()` (the doc or script rendered as JSON).
pub fn describe_update(index: &str, req: &crate::action::update::UpdateRequest) -> String {
    let mut s = format!("update {{[{index}][{}], doc_as_upsert[{}]", req.id, req.doc_as_upsert);
    if let Some(doc) = &req.doc {
        s.push_str(&format!(", doc[index {{[null][null], source[{doc}]}}]"));
    }
    if let Some(script) = &req.script {
        s.push_str(&format!(", script[{script}]"));
    }
    if let Some(up) = &req.upsert {
        s.push_str(&format!(", upsert[index {{[null][null], source[{up}]}}]"));
    }
    s.push_str(&format!(", scripted_upsert[{}], detect_noop[{}]}}", req.scripted_upsert, req.detect_noop));
    s
}

/// `DeleteRequest.toString()`.
pub fn describe_delete(index: &str, id: &str) -> String {
    format!("delete {{[{index}][{id}]}}")
}

/// `BulkShardRequest.toString()` for `items` requests on `[index][shard]` (`single` describes
/// the only one), with the refresh suffix.
pub fn describe_shard_request(index: &str, shard: u32, items: usize, single: &str, refresh: super::Refresh) -> String {
    let mut s = format!("BulkShardRequest [[{index}][{shard}]] containing [");
    if items > 1 {
        s.push_str(&format!("{items}] requests"));
    } else {
        s.push_str(single);
        s.push(']');
    }
    match refresh {
        super::Refresh::True => s.push_str(" and a refresh"),
        super::Refresh::WaitFor => s.push_str(" blocking until refresh"),
        super::Refresh::False => {}
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_as_opensearch() {
        assert_eq!(ActiveShardCount::parse(None).unwrap(), ActiveShardCount::Default);
        assert_eq!(ActiveShardCount::parse(Some("all")).unwrap(), ActiveShardCount::All);
        assert_eq!(ActiveShardCount::parse(Some("2")).unwrap(), ActiveShardCount::Count(2));
        let e = ActiveShardCount::parse(Some("abc")).unwrap_err();
        assert_eq!((e.status, e.reason.as_str()), (400, "cannot parse ActiveShardCount[abc]"));
        assert_eq!(e.caused_by.unwrap().reason, "For input string: \"abc\"");
        assert_eq!(ActiveShardCount::parse(Some("-1")).unwrap_err().reason, "shard count cannot be a negative value");
        assert!(ActiveShardCount::parse(Some("ALL")).is_err(), "case-sensitive as parseString");
    }

    #[test]
    fn messages() {
        let s = Shortfall {
            index: "i".into(),
            shard: 0,
            label: "2".into(),
            have: 1,
            needed: 2,
            timeout: Duration::from_millis(100),
        };
        let single = describe_index("i", "1", br#"{ "a" : 1 }"#);
        assert_eq!(single, r#"index {[i][1], source[{"a":1}]}"#);
        let req = describe_shard_request("i", 0, 1, &single, super::super::Refresh::False);
        assert_eq!(
            s.error(&req).reason,
            r#"[i][0] Not enough active copies to meet shard count of [2] (have 1, needed 2). Timeout: [100ms], request: [BulkShardRequest [[i][0]] containing [index {[i][1], source[{"a":1}]}]]"#
        );
        assert_eq!(
            describe_shard_request("i", 3, 5, "", super::super::Refresh::True),
            "BulkShardRequest [[i][3]] containing [5] requests and a refresh"
        );
        assert_eq!(time_value(Duration::from_secs(60)), "1m");
        assert_eq!(time_value(Duration::ZERO), "0s");
    }
}
