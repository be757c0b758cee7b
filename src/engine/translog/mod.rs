//! translog/: "remember this operation durably before it is acknowledged; replay it after a crash".
//!
//! The translog of a shard copy lives in its own [`Directory`](crate::engine::store::Directory)
//! (`translog/`) and is made of:
//!
//! | file | holds | module | format |
//! |---|---|---|---|
//! | `translog-{gen}.tlog` | header (uuid, primary term), then framed operations; no footer | [`generation`] | `format/translog.md` |
//! | `translog.ckp` | how far the current generation is trusted, seq_no bookkeeping | [`checkpoint`] | `format/translog-checkpoint.md` |
//! | `translog-{gen}.ckp` | the frozen final checkpoint of each finished generation | [`checkpoint`] | same |
//!
//! The design rule (OpenSearch's): readers trust a generation's bytes only up to its checkpoint's
//! `offset`. Appends are buffered; a *sync* writes the buffer, fsyncs the generation, then replaces
//! `translog.ckp` atomically. An operation is durable once a checkpoint covering it is durable, and
//! only then may the write be acknowledged ([`Translog::ensure_synced`], group commit).
//!
//! Not this module's job: deciding *when* to roll or trim (the engine does it after a commit) and
//! replaying operations into the index (recovery does it with [`Translog::snapshot`]).

pub mod checkpoint;
pub mod generation;
mod log;
pub mod operation;
mod recovery;
mod syncer;

use std::time::Duration;

pub use checkpoint::{Checkpoint, NO_OPS_PERFORMED, UNASSIGNED_SEQ_NO};
pub use log::Translog;
pub use operation::Operation;
pub use syncer::SyncerHandle;

use crate::engine::{Error, Result};

/// The name of the live checkpoint file.
pub const CHECKPOINT_FILE: &str = "translog.ckp";

/// The file name of generation `gen`.
pub fn generation_file(gen: u64) -> String {
    format!("translog-{gen}.tlog")
}

/// The file name of the frozen checkpoint of finished generation `gen`.
pub fn generation_checkpoint_file(gen: u64) -> String {
    format!("translog-{gen}.ckp")
}

/// Parses `translog-{gen}.tlog` or `translog-{gen}.ckp` into `(gen, is_tlog)`.
pub fn parse_file_name(name: &str) -> Option<(u64, bool)> {
    let rest = name.strip_prefix("translog-")?;
    let (num, is_tlog) = match (rest.strip_suffix(".tlog"), rest.strip_suffix(".ckp")) {
        (Some(n), _) => (n, true),
        (_, Some(n)) => (n, false),
        _ => return None,
    };
    if num.is_empty() || !num.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some((num.parse().ok()?, is_tlog))
}

/// When a write is made durable (`index.translog.durability`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Durability {
    /// Each write is fsynced before it is acknowledged; concurrent writers share one fsync.
    #[default]
    Request,
    /// Writes are acknowledged at once and fsynced every `sync_interval`: a crash may lose the
    /// last interval of acknowledged writes.
    Async,
}

/// Translog settings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TranslogConfig {
    /// `index.translog.durability`. Default [`Durability::Request`].
    pub durability: Durability,
    /// `index.translog.sync_interval`: period of the background fsync in `Async` mode.
    /// Default 5 s; minimum 10 ms (smaller values are raised to it by the syncer).
    pub sync_interval: Duration,
    /// `index.translog.generation_threshold_size`: [`Translog::should_roll`] answers true once
    /// the current generation is this large. Default 64 MiB; no minimum (0 means "always").
    pub generation_threshold_bytes: u64,
}

impl Default for TranslogConfig {
    fn default() -> Self {
        TranslogConfig {
            durability: Durability::Request,
            sync_interval: Duration::from_secs(5),
            generation_threshold_bytes: 64 * 1024 * 1024,
        }
    }
}

/// How much damage recovery accepts. Named so that leniency is a decision, never an accident.
/// Under every policy, bytes beyond a generation's checkpointed offset were never acknowledged:
/// they are ignored and logged (file and offset) with `tracing::warn!`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum RecoveryPolicy {
    /// Any damage inside the checkpointed range (bad CRC, unparsable frame, frame crossing the
    /// checkpoint, wrong op count, missing file) fails recovery with
    /// [`Error::TranslogCorrupted`] naming the file and offset. The default.
    #[default]
    Strict,
    /// The same rules as `Strict`, spelled out for callers that want to say they rely on the
    /// torn tail beyond the checkpoint being ignored.
    TolerateTornTail,
}

/// Where an added operation sits: enough to ask whether it is durable yet.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Location {
    /// The generation file holding the frame.
    pub generation: u64,
    /// The frame's first byte in that file.
    pub offset: u64,
    /// The frame's size in bytes (payload plus 8 bytes of framing).
    pub size: u64,
}

/// What `_stats/translog` reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct TranslogStats {
    /// Operations in the retained generations (added, synced or not).
    pub operations: u64,
    /// Bytes of the retained generation files (headers included).
    pub size_in_bytes: u64,
    /// Operations a restart would replay: the retained generations are exactly those the last
    /// commit still needs (no extra retention yet), so this equals `operations`.
    pub uncommitted_operations: u64,
    /// Bytes a restart would read; equals `size_in_bytes` for the same reason.
    pub uncommitted_size_in_bytes: u64,
    /// Age in ms of the oldest retained generation (not tracked yet: always 0).
    pub earliest_last_modified_age: u64,
    /// The current generation.
    pub generation: u64,
    /// The oldest retained generation.
    pub min_generation: u64,
}

/// Validates a `.tlog` or `.ckp` file image and summarises it for `fathom inspect` and the fuzz
/// targets. Never panics. A `.tlog` has no footer and its checkpoint is not at hand, so frames
/// are walked until the first one that does not verify; what follows is reported, not rejected
/// (only the checkpoint can tell a torn tail from damage).
pub fn check_file(name: &str, bytes: &[u8]) -> Result<String> {
    let base = name.rsplit(['/', '\\']).next().unwrap_or(name);
    if base.ends_with(".ckp") {
        let c = Checkpoint::from_bytes(bytes, name, None)?;
        return Ok(format!(
            "translog checkpoint [{name}]: generation {}, offset {}, {} ops, seq_no [{}, {}], global checkpoint {}, min translog generation {}, trimmed above seq_no {}",
            c.generation, c.offset, c.num_ops, c.min_seq_no, c.max_seq_no, c.global_checkpoint, c.min_translog_generation, c.trimmed_above_seq_no
        ));
    }
    if !base.ends_with(".tlog") {
        return Err(Error::InvalidArgument(format!(
            "[{name}] is neither a translog generation (.tlog) nor a checkpoint (.ckp)"
        )));
    }
    let h = generation::read_header(bytes, name, None)?;
    let (mut ops, mut min, mut max) = (0u64, NO_OPS_PERFORMED, NO_OPS_PERFORMED);
    let mut pos = generation::HEADER_LEN;
    let end = bytes.len() as u64;
    let mut tail = String::new();
    while pos < end {
        match generation::decode_frame(bytes, pos, end, name) {
            Ok((op, next)) => {
                ops += 1;
                min = if min < 0 { op.seq_no() } else { min.min(op.seq_no()) };
                max = max.max(op.seq_no());
                pos = next;
            }
            Err(e) => {
                tail = format!("; {} bytes from offset {pos} are not a valid frame ({e})", end - pos);
                break;
            }
        }
    }
    Ok(format!(
        "translog generation [{name}]: uuid {}, primary term {}, {ops} ops in {pos} bytes, seq_no [{min}, {max}]{tail}",
        crate::engine::codec::header::hex(&h.uuid),
        h.primary_term
    ))
}

#[cfg(test)]
mod tests;
