//! Peer recovery (OpenSearch's `PeerRecoveryTargetService` / `RecoverySourceHandler`): a new
//! replica copies the primary's files and then the operations above them, while the primary
//! keeps replicating new operations to it, and becomes in sync once it holds everything.
//!
//! The target drives the recovery and pulls, in the stages `_recovery` reports:
//!
//! 1. INIT — `start_recovery`: the primary flushes, pins the files of that commit (no merge can
//!    delete them while they are copied), keeps its translog, and answers with the commit's
//!    files (name, length, footer checksum) and local checkpoint.
//! 2. INDEX — files already held with the same name, length and checksum are reused; the others
//!    are pulled in chunks (`file_chunk`), throttled by `indices.recovery.max_bytes_per_sec` on
//!    the primary's node; files of the target's store that the commit does not name are deleted.
//! 3. VERIFY_INDEX — every copied file's checksum is computed again and compared with its footer.
//! 4. TRANSLOG — the store gets a fresh translog and opens as a replica; `prepare_translog` makes
//!    the primary *track* the copy (every later write goes to it too) and only then take the
//!    translog snapshot above the commit's checkpoint, so that each operation reaches the copy
//!    through the snapshot or through replication (or both: applying is idempotent). The target
//!    pulls the snapshot in batches (`translog_ops`).
//! 4. FINALIZE — the target syncs and sends its checkpoint (`finalize`): the primary marks it in
//!    sync and releases the pinned files and translog.
//! 5. DONE — the copy serves, and tells the cluster manager it started (the routing table marks
//!    it STARTED and adds it to the in-sync set).

pub mod handoff;
pub mod source;
pub mod target;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

pub const ACTION_START: &str = "internal:index/shard/recovery/start_recovery";
pub const ACTION_FILE_CHUNK: &str = "internal:index/shard/recovery/file_chunk";
pub const ACTION_PREPARE_TRANSLOG: &str = "internal:index/shard/recovery/prepare_translog";
pub const ACTION_TRANSLOG_OPS: &str = "internal:index/shard/recovery/translog_ops";
pub const ACTION_FINALIZE: &str = "internal:index/shard/recovery/finalize";

/// `indices.recovery.chunk_size`'s default.
pub const CHUNK_SIZE: usize = 512 * 1024;
/// Operations per `translog_ops` batch, at most.
pub const OPS_PER_BATCH: usize = 2048;
/// `indices.recovery.max_bytes_per_sec`'s default (40mb).
pub const DEFAULT_MAX_BYTES_PER_SEC: u64 = 40 * 1024 * 1024;

/// One file of the commit a recovery copies.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileMeta {
    pub name: String,
    pub length: u64,
    /// The CRC32 its footer stores.
    pub checksum: u32,
}

#[derive(Debug, Serialize, Deserialize)]
pub(crate) struct StartRequest {
    pub index: String,
    pub uuid: String,
    pub shard: u32,
    pub target_allocation_id: String,
    pub target_node: String,
}

#[derive(Debug, Serialize, Deserialize)]
pub(crate) struct StartAnswer {
    pub session: String,
    pub files: Vec<FileMeta>,
    /// The commit's local checkpoint: the translog phase starts above it.
    pub local_checkpoint: i64,
    pub source_node: String,
}

#[derive(Debug, Serialize, Deserialize)]
pub(crate) struct ChunkRequest {
    pub session: String,
    pub name: String,
    pub offset: u64,
    pub len: u32,
}

#[derive(Debug, Serialize, Deserialize)]
pub(crate) struct SessionRequest {
    pub session: String,
    /// `translog_ops`: the position in the snapshot; `finalize`: the target's persisted
    /// checkpoint.
    #[serde(default)]
    pub at: i64,
}

#[derive(Debug, Serialize, Deserialize)]
pub(crate) struct PrepareAnswer {
    pub total_ops: u64,
}

/// A recovery this node serves as the source.
pub(crate) struct Session {
    pub shard: Arc<super::index_service::IndexShard>,
    pub dir: Arc<dyn crate::engine::store::Directory>,
    pub files: Vec<FileMeta>,
    pub local_checkpoint: i64,
    pub target_allocation_id: String,
    pub target_node: String,
    /// The operations of the translog phase, once prepared.
    pub ops: Option<Arc<Vec<crate::engine::translog::Operation>>>,
    /// Keeps the commit's files.
    pub _pin: crate::engine::index::deleter::FileRefs,
    pub last_used: Instant,
}

impl Drop for Session {
    fn drop(&mut self) {
        self.shard.engine.release_translog();
    }
}

/// The recoveries of this node: sessions it serves as a source, recoveries it runs as a
/// target, and the throttle shared by every file it sends.
#[derive(Default)]
pub struct Recoveries {
    pub(crate) sessions: Mutex<HashMap<String, Session>>,
    /// `(index uuid, shard, allocation id)` of the recoveries running here as a target.
    pub(crate) running: Mutex<Vec<(String, u32, String)>>,
    /// When the throttle lets the next byte out.
    next_free: Mutex<Option<Instant>>,
    /// `indices.recovery.max_bytes_per_sec` from the node's settings (bytes/s, 0 unlimited;
    /// the cluster setting overrides it). `None`: OpenSearch's default.
    node_rate: Mutex<Option<u64>>,
}

impl std::fmt::Debug for Recoveries {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Recoveries").finish_non_exhaustive()
    }
}

/// Sessions unused this long are dropped (their target died or gave up).
const SESSION_IDLE: Duration = Duration::from_secs(300);

impl Recoveries {
    /// Waits until `bytes` more may be sent at `rate` bytes/s (0: unlimited): each send books
    /// its time slot after the previous one's, so concurrent recoveries share the rate.
    pub(crate) fn throttle(&self, bytes: usize, rate: u64) {
        if rate == 0 {
            return;
        }
        let wait = {
            let mut next = self.next_free.lock().unwrap_or_else(|e| e.into_inner());
            let now = Instant::now();
            let start = next.filter(|n| *n > now).unwrap_or(now);
            *next = Some(start + Duration::from_secs_f64(bytes as f64 / rate as f64));
            start - now
        };
        if !wait.is_zero() {
            std::thread::sleep(wait.min(Duration::from_secs(10)));
        }
    }

    /// Sets the node-level `indices.recovery.max_bytes_per_sec`.
    pub fn set_node_rate(&self, rate: Option<u64>) {
        *self.node_rate.lock().unwrap_or_else(|e| e.into_inner()) = rate;
    }

    /// The rate in force: the cluster setting, else the node's, else 40mb.
    pub(crate) fn rate(&self, md: &super::metadata::Metadata) -> u64 {
        let node = *self.node_rate.lock().unwrap_or_else(|e| e.into_inner());
        cluster_rate(md).or(node).unwrap_or(DEFAULT_MAX_BYTES_PER_SEC)
    }

    /// Drops the sessions idle too long, or whose target copy the routing table no longer
    /// assigns (`assigned(allocation id)`).
    pub(crate) fn prune(&self, assigned: &dyn Fn(&str) -> bool) {
        let mut s = self.sessions.lock().unwrap_or_else(|e| e.into_inner());
        s.retain(|_, x| x.last_used.elapsed() < SESSION_IDLE && assigned(&x.target_allocation_id));
    }
}

/// `indices.recovery.max_concurrent_file_chunks`' default.
pub const DEFAULT_CONCURRENT_FILE_CHUNKS: usize = 2;

/// `indices.recovery.max_concurrent_file_chunks` from the cluster settings (1 to 8, as
/// OpenSearch bounds it), else its default: the chunk requests a recovery keeps outstanding.
pub(crate) fn concurrent_file_chunks(md: &super::metadata::Metadata) -> usize {
    md.transient_settings
        .get("indices.recovery.max_concurrent_file_chunks")
        .or(md.persistent_settings.get("indices.recovery.max_concurrent_file_chunks"))
        .and_then(|v| match v {
            serde_json::Value::String(s) => s.trim().parse::<usize>().ok(),
            other => other.as_u64().map(|n| n as usize),
        })
        .filter(|n| (1..=8).contains(n))
        .unwrap_or(DEFAULT_CONCURRENT_FILE_CHUNKS)
}

/// `indices.recovery.max_bytes_per_sec` from the cluster settings (`0`: unlimited).
fn cluster_rate(md: &super::metadata::Metadata) -> Option<u64> {
    let key = "indices.recovery.max_bytes_per_sec";
    let v = md.transient_settings.get(key).or(md.persistent_settings.get(key)).map(|v| match v {
        serde_json::Value::String(s) => s.clone(),
        other => other.to_string(),
    });
    v.and_then(|s| parse_byte_size(&s))
}

/// A byte size as OpenSearch writes them (`40mb`, `1gb`, `512kb`, `100b`, `-1` and `0`:
/// unlimited here).
pub fn parse_byte_size(s: &str) -> Option<u64> {
    let t = s.trim().to_ascii_lowercase();
    if t == "-1" {
        return Some(0);
    }
    let units: [(&str, f64); 6] = [
        ("kb", 1024.0),
        ("mb", 1048576.0),
        ("gb", 1073741824.0),
        ("tb", 1099511627776.0),
        ("pb", 1125899906842624.0),
        ("b", 1.0),
    ];
    for (u, m) in units {
        if let Some(n) = t.strip_suffix(u) {
            return n.trim().parse::<f64>().ok().filter(|v| *v >= 0.0 && v.is_finite()).map(|v| (v * m) as u64);
        }
    }
    t.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn byte_sizes_and_the_rate_in_force() {
        assert_eq!(parse_byte_size("40mb"), Some(40 * 1024 * 1024));
        assert_eq!(parse_byte_size("1.5kb"), Some(1536));
        assert_eq!(parse_byte_size("0"), Some(0));
        assert_eq!(parse_byte_size("-1"), Some(0));
        assert_eq!(parse_byte_size("x"), None);
        let r = Recoveries::default();
        let mut md = crate::cluster::metadata::Metadata::default();
        assert_eq!(r.rate(&md), DEFAULT_MAX_BYTES_PER_SEC);
        r.set_node_rate(Some(0));
        assert_eq!(r.rate(&md), 0);
        md.persistent_settings.insert("indices.recovery.max_bytes_per_sec".into(), serde_json::json!("1mb"));
        assert_eq!(r.rate(&md), 1024 * 1024);
    }

    #[test]
    fn the_throttle_spaces_sends_at_the_rate() {
        let r = Recoveries::default();
        let t = Instant::now();
        for _ in 0..4 {
            r.throttle(25_000, 1_000_000); // 25 ms each at 1 MB/s
        }
        assert!(t.elapsed() >= Duration::from_millis(70), "{:?}", t.elapsed());
        let t = Instant::now();
        r.throttle(1 << 30, 0);
        assert!(t.elapsed() < Duration::from_millis(50));
    }
}
