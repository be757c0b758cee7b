//! Cluster blocks (OpenSearch's `ClusterBlocks`): what an index's `index.blocks.*` settings and
//! the loss of the elected cluster manager forbid, checked by the actions before they run and
//! shown under `blocks` in `_cluster/state`.
//!
//! A block names the levels it stops (`read`, `write`, `metadata_read`, `metadata_write`); a
//! request of a blocked level fails with `cluster_block_exception`, whose status is the highest
//! status of its blocks (429 when they are all 429s).

use std::time::{Duration, Instant};

use serde_json::{json, Map, Value};

use super::metadata::{IndexMetadata, Metadata};
use super::settings;
use crate::error::{ErrorKind, OsError, OsResult};

/// What a request does, as far as blocks go (`ClusterBlockLevel`, in its declared order).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Level {
    Read,
    Write,
    MetadataRead,
    MetadataWrite,
}

impl Level {
    fn name(self) -> &'static str {
        match self {
            Level::Read => "read",
            Level::Write => "write",
            Level::MetadataRead => "metadata_read",
            Level::MetadataWrite => "metadata_write",
        }
    }
}

/// One block (`ClusterBlock`).
#[derive(Debug, PartialEq, Eq)]
pub struct Block {
    pub id: u32,
    pub description: &'static str,
    /// A request may wait for the block to go (the cluster manager coming back).
    pub retryable: bool,
    /// Deleting the index is allowed despite the block (`isAllowReleaseResources`).
    pub allow_release_resources: bool,
    pub status: u16,
    pub levels: &'static [Level],
}

/// `index.blocks.read_only`.
pub const INDEX_READ_ONLY: Block = Block {
    id: 5,
    description: "index read-only (api)",
    retryable: false,
    allow_release_resources: false,
    status: 403,
    levels: &[Level::Write, Level::MetadataWrite],
};
/// `index.blocks.read`.
pub const INDEX_READ: Block = Block {
    id: 7,
    description: "index read (api)",
    retryable: false,
    allow_release_resources: false,
    status: 403,
    levels: &[Level::Read],
};
/// `index.blocks.write`.
pub const INDEX_WRITE: Block = Block {
    id: 8,
    description: "index write (api)",
    retryable: false,
    allow_release_resources: false,
    status: 403,
    levels: &[Level::Write],
};
/// `index.blocks.metadata`.
pub const INDEX_METADATA: Block = Block {
    id: 9,
    description: "index metadata (api)",
    retryable: false,
    allow_release_resources: false,
    status: 403,
    levels: &[Level::MetadataRead, Level::MetadataWrite],
};
/// `index.blocks.read_only_allow_delete`.
pub const INDEX_READ_ONLY_ALLOW_DELETE: Block = Block {
    id: 12,
    description: "disk usage exceeded flood-stage watermark, index has read-only-allow-delete block",
    retryable: false,
    allow_release_resources: true,
    status: 429,
    levels: &[Level::Write, Level::MetadataWrite],
};
/// No elected cluster manager (`cluster.no_cluster_manager_block: write`, the default).
pub const NO_CLUSTER_MANAGER_WRITES: Block = Block {
    id: 2,
    description: "no cluster-manager",
    retryable: true,
    allow_release_resources: false,
    status: 503,
    levels: &[Level::Write, Level::MetadataWrite],
};

/// `cluster.blocks.read_only` (`Metadata.CLUSTER_READ_ONLY_BLOCK`).
pub const CLUSTER_READ_ONLY: Block = Block {
    id: 6,
    description: "cluster read-only (api)",
    retryable: false,
    allow_release_resources: false,
    status: 403,
    levels: &[Level::Write, Level::MetadataWrite],
};
/// `cluster.blocks.read_only_allow_delete` (`Metadata.CLUSTER_READ_ONLY_ALLOW_DELETE_BLOCK`).
pub const CLUSTER_READ_ONLY_ALLOW_DELETE: Block = Block {
    id: 13,
    description: "cluster read-only / allow delete (api)",
    retryable: false,
    allow_release_resources: true,
    status: 403,
    levels: &[Level::Write, Level::MetadataWrite],
};

/// The cluster-wide blocks of cluster settings, in OpenSearch's order.
pub const CLUSTER_BLOCKS: &[(&str, &Block)] = &[
    ("cluster.blocks.read_only", &CLUSTER_READ_ONLY),
    ("cluster.blocks.read_only_allow_delete", &CLUSTER_READ_ONLY_ALLOW_DELETE),
];

/// The index blocks and their settings, in the order OpenSearch lists them.
pub const INDEX_BLOCKS: &[(&str, &Block)] = &[
    ("index.blocks.read_only", &INDEX_READ_ONLY),
    ("index.blocks.read", &INDEX_READ),
    ("index.blocks.write", &INDEX_WRITE),
    ("index.blocks.metadata", &INDEX_METADATA),
    ("index.blocks.read_only_allow_delete", &INDEX_READ_ONLY_ALLOW_DELETE),
];

/// The blocks an index's settings put on it.
pub fn index_blocks(m: &IndexMetadata) -> Vec<&'static Block> {
    INDEX_BLOCKS
        .iter()
        .filter(|(key, _)| settings::get_bool(&m.settings, key, false).unwrap_or(false))
        .map(|(_, b)| *b)
        .collect()
}

/// Whether a settings update goes through an index's metadata blocks, so that a block can be
/// lifted (`TransportUpdateSettingsAction.checkBlock`, its precedence kept): `index.blocks.metadata`
/// alone, or any update touching `index.blocks.read_only` or `index.blocks.read_only_allow_delete`.
pub fn settings_update_passes_blocks(keys: &[&str]) -> bool {
    (keys.len() == 1 && keys[0] == "index.blocks.metadata")
        || keys.iter().any(|k| *k == "index.blocks.read_only" || *k == "index.blocks.read_only_allow_delete")
}

/// The cluster-wide blocks: `no cluster-manager` while this node knows of no elected manager,
/// and those the effective cluster `settings` turn on.
pub fn global_blocks(has_cluster_manager: bool, settings: &serde_json::Map<String, Value>) -> Vec<&'static Block> {
    let mut out: Vec<&'static Block> = Vec::new();
    if !has_cluster_manager {
        out.push(&NO_CLUSTER_MANAGER_WRITES);
    }
    for (key, block) in CLUSTER_BLOCKS {
        if settings.get(*key).and_then(super::cluster_settings::text).as_deref() == Some("true") {
            out.push(block);
        }
    }
    out
}

/// Whether a cluster settings update goes through the global blocks, so that a cluster block can
/// be lifted (`TransportClusterUpdateSettingsAction.checkBlock`): an update of only one of the
/// two cluster block settings, in one scope.
pub fn cluster_settings_update_passes_blocks(persistent: &[&str], transient: &[&str]) -> bool {
    let only_block = |keys: &[&str]| keys.len() == 1 && CLUSTER_BLOCKS.iter().any(|(k, _)| *k == keys[0]);
    (transient.is_empty() && only_block(persistent)) || (persistent.is_empty() && only_block(transient))
}

/// [`check_global`] for releasing resources (deleting indices): blocks that allow it do not
/// count.
pub fn check_global_releasing(global: &[&'static Block], level: Level) -> OsResult<()> {
    let kept: Vec<&'static Block> = global.iter().copied().filter(|b| !b.allow_release_resources).collect();
    check_global(&kept, level)
}

fn status_name(status: u16) -> &'static str {
    match status {
        403 => "FORBIDDEN",
        429 => "TOO_MANY_REQUESTS",
        503 => "SERVICE_UNAVAILABLE",
        _ => "INTERNAL_SERVER_ERROR",
    }
}

fn describe(b: &Block) -> String {
    format!("{}/{}/{}", status_name(b.status), b.id, b.description)
}

/// `ClusterBlockException.status()`: the highest status of the blocks that are not 429s, or 429.
fn exception_status<'a>(blocks: impl Iterator<Item = &'a Block>) -> u16 {
    blocks.filter(|b| b.status != 429).map(|b| b.status).max().unwrap_or(429)
}

/// The exception for global blocks of `level`, if any.
pub fn check_global(global: &[&'static Block], level: Level) -> OsResult<()> {
    let hit: Vec<&Block> = global.iter().copied().filter(|b| b.levels.contains(&level)).collect();
    if hit.is_empty() {
        return Ok(());
    }
    let reason = format!("blocked by: [{}];", hit.iter().map(|b| describe(b)).collect::<Vec<_>>().join(", "));
    Err(OsError::new(ErrorKind::ClusterBlock, reason).status(exception_status(hit.iter().copied())))
}

/// Whether every block of a global-block error may go away (the request may wait for it).
pub fn retryable(global: &[&'static Block], level: Level) -> bool {
    let hit: Vec<&Block> = global.iter().copied().filter(|b| b.levels.contains(&level)).collect();
    !hit.is_empty() && hit.iter().all(|b| b.retryable)
}

/// The exception for the blocks of `level` on the indices `names` (in order), if any. With
/// `releasing`, blocks that allow releasing resources (deleting the index) do not count.
pub fn check_indices(md: &Metadata, level: Level, names: &[&str], releasing: bool) -> OsResult<()> {
    let mut reason = String::new();
    let mut hit: Vec<&Block> = Vec::new();
    for name in names {
        let Some(m) = md.indices.get(*name) else { continue };
        let blocks: Vec<&Block> = index_blocks(m)
            .into_iter()
            .filter(|b| b.levels.contains(&level) && !(releasing && b.allow_release_resources))
            .collect();
        if blocks.is_empty() {
            continue;
        }
        reason.push_str(&format!(
            "index [{name}] blocked by: [{}];",
            blocks.iter().map(|b| describe(b)).collect::<Vec<_>>().join(", ")
        ));
        hit.extend(blocks);
    }
    if hit.is_empty() {
        return Ok(());
    }
    Err(OsError::new(ErrorKind::ClusterBlock, reason).status(exception_status(hit.into_iter())))
}

impl super::ClusterService {
    /// The cluster-wide blocks on this node now.
    pub fn global_blocks(&self) -> Vec<&'static Block> {
        let settings = self.cluster_settings(&self.metadata());
        global_blocks(self.has_cluster_manager(), &settings)
    }

    /// Fails when a global block or a block of one of `names` stops requests of `level`.
    pub fn check_blocks(&self, level: Level, names: &[&str]) -> OsResult<()> {
        check_global(&self.global_blocks(), level)?;
        check_indices(&self.metadata(), level, names, false)
    }

    /// The block check of a cluster-manager action (a change of the cluster state): a retryable
    /// global block (no elected cluster manager, as while one abdicates) is waited out for up to
    /// 30 s, OpenSearch's default `cluster_manager_timeout`, as `TransportClusterManagerNodeAction`
    /// retries on the next cluster state; other blocks fail at once.
    pub fn check_cluster_manager_blocks(&self, level: Level) -> OsResult<()> {
        self.await_global_unblocked(level, Duration::from_secs(30))?;
        self.check_blocks(level, &[])
    }

    /// Waits while a retryable global block stops `level` (a cluster manager being elected),
    /// at most `timeout`; then the block's exception, or nothing.
    pub fn await_global_unblocked(&self, level: Level, timeout: Duration) -> OsResult<()> {
        let deadline = Instant::now() + timeout;
        loop {
            let global = self.global_blocks();
            match check_global(&global, level) {
                Err(_) if retryable(&global, level) && Instant::now() < deadline => {
                    std::thread::sleep(
                        Duration::from_millis(50).min(deadline.saturating_duration_since(Instant::now())),
                    );
                }
                r => return r,
            }
        }
    }
}

fn block_json(b: &Block) -> Value {
    let levels: Vec<&str> = b.levels.iter().map(|l| l.name()).collect();
    json!({"description": b.description, "retryable": b.retryable, "levels": levels})
}

/// `blocks` of `_cluster/state`: `global` and `indices` (by index name), each block under its
/// id; an empty object when nothing is blocked.
pub fn state_json(global: &[&'static Block], md: &Metadata, names: &[String]) -> Value {
    let mut out = Map::new();
    if !global.is_empty() {
        let g: Map<String, Value> = global.iter().map(|b| (b.id.to_string(), block_json(b))).collect();
        out.insert("global".into(), Value::Object(g));
    }
    let mut indices = Map::new();
    for name in names {
        let Some(m) = md.indices.get(name) else { continue };
        let blocks = index_blocks(m);
        if !blocks.is_empty() {
            let o: Map<String, Value> = blocks.iter().map(|b| (b.id.to_string(), block_json(b))).collect();
            indices.insert(name.clone(), Value::Object(o));
        }
    }
    if !indices.is_empty() {
        out.insert("indices".into(), Value::Object(indices));
    }
    Value::Object(out)
}

#[cfg(test)]
mod tests;
