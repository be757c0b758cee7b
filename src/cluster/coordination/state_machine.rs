//! The state machine: the published cluster state (a versioned JSON document that the cluster
//! layer defines) and the Raft membership, with its snapshot on disk (`format/raft-log.md`).
//!
//! The state machine is not written on every apply: after a restart it is the last snapshot,
//! and openraft re-applies the log from there.

use std::io::Cursor;
use std::sync::Arc;

use openraft::storage::{RaftStateMachine, Snapshot};
use openraft::{EntryPayload, RaftSnapshotBuilder, SnapshotMeta, StorageIOError};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tokio::sync::{watch, Mutex};

use super::types::{
    ClusterNode, Command, CommandResult, Entry, LogId, RaftId, StorageError, StoredMembership, TypeConfig,
};
use crate::cluster::state_file::Kind;
use crate::engine::store::Directory;

/// The snapshot state files.
pub const SNAPSHOT: Kind = Kind { codec: "fathom_raft_snapshot", prefix: "raft-snapshot-", what: "raft snapshot" };

/// The published state as every node sees it once applied.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Published {
    /// 0 before anything was published.
    pub version: u64,
    pub state: Arc<Value>,
    pub last_applied: Option<LogId>,
    pub membership: StoredMembership,
}

impl Default for Published {
    fn default() -> Self {
        Published { version: 0, state: Arc::new(Value::Null), last_applied: None, membership: Default::default() }
    }
}

#[derive(Debug, Clone, Serialize, Deserialize)]
struct StoredSnapshot {
    meta: SnapshotMeta<RaftId, ClusterNode>,
    data: Vec<u8>,
}

/// The state machine store (cheap to clone; openraft holds one).
#[derive(Debug, Clone)]
pub struct StateMachine {
    inner: Arc<Mutex<Inner>>,
    tx: Arc<watch::Sender<Arc<Published>>>,
    dir: Arc<dyn Directory>,
}

#[derive(Debug)]
struct Inner {
    current: Published,
    snapshot: Option<StoredSnapshot>,
    snapshot_gen: u64,
    built: u64,
}

fn io_err(e: impl std::fmt::Display) -> std::io::Error {
    std::io::Error::other(e.to_string())
}

impl StateMachine {
    /// Loads the last snapshot from `dir` (none for a new node).
    pub fn open(dir: Arc<dyn Directory>) -> crate::engine::Result<StateMachine> {
        let (snapshot_gen, snapshot, current) = match SNAPSHOT.load(&dir)? {
            Some((g, v)) => {
                let s: StoredSnapshot = serde_json::from_value(v).map_err(|e| {
                    crate::engine::Error::corrupt(
                        SNAPSHOT.file_name(g),
                        0,
                        format!("snapshot has an unexpected shape: {e}"),
                    )
                })?;
                let p: Published = serde_json::from_slice(&s.data).map_err(|e| {
                    crate::engine::Error::corrupt(
                        SNAPSHOT.file_name(g),
                        0,
                        format!("snapshot data is not a state: {e}"),
                    )
                })?;
                (g, Some(s), p)
            }
            None => (0, None, Published::default()),
        };
        let (tx, _) = watch::channel(Arc::new(current.clone()));
        Ok(StateMachine {
            inner: Arc::new(Mutex::new(Inner { current, snapshot, snapshot_gen, built: 0 })),
            tx: Arc::new(tx),
            dir,
        })
    }

    /// Watches the applied state.
    pub fn subscribe(&self) -> watch::Receiver<Arc<Published>> {
        self.tx.subscribe()
    }

    /// The applied state now.
    pub fn current(&self) -> Arc<Published> {
        self.tx.borrow().clone()
    }

    async fn persist(&self, inner: &mut Inner, snap: StoredSnapshot) -> Result<(), StorageError> {
        let sig = Some(snap.meta.signature());
        let v = serde_json::to_value(&snap).map_err(|e| StorageIOError::write_snapshot(sig.clone(), &io_err(e)))?;
        let dir = self.dir.clone();
        let gen = inner.snapshot_gen + 1;
        tokio::task::spawn_blocking(move || SNAPSHOT.store(&dir, gen, &v))
            .await
            .map_err(|e| StorageIOError::write_snapshot(sig.clone(), &io_err(e)))?
            .map_err(|e| StorageIOError::write_snapshot(sig, &io_err(e)))?;
        inner.snapshot_gen = gen;
        inner.snapshot = Some(snap);
        Ok(())
    }
}

/// Applies one command to `p`.
pub fn apply_command(p: &mut Published, cmd: &Command) -> CommandResult {
    match cmd {
        Command::Publish { base_version, state } => {
            if *base_version != p.version {
                return CommandResult::Conflict { current: p.version };
            }
            p.version += 1;
            p.state = state.clone();
            CommandResult::Published { version: p.version }
        }
    }
}

impl RaftSnapshotBuilder<TypeConfig> for StateMachine {
    async fn build_snapshot(&mut self) -> Result<Snapshot<TypeConfig>, StorageError> {
        let mut inner = self.inner.lock().await;
        let data = serde_json::to_vec(&inner.current).map_err(|e| StorageIOError::read_state_machine(&io_err(e)))?;
        inner.built += 1;
        let snapshot_id = match inner.current.last_applied {
            Some(l) => format!("{}-{}-{}", l.leader_id, l.index, inner.built),
            None => format!("--{}", inner.built),
        };
        let meta = SnapshotMeta {
            last_log_id: inner.current.last_applied,
            last_membership: inner.current.membership.clone(),
            snapshot_id,
        };
        let snap = StoredSnapshot { meta: meta.clone(), data: data.clone() };
        self.persist(&mut inner, snap).await?;
        Ok(Snapshot { meta, snapshot: Box::new(Cursor::new(data)) })
    }
}

impl RaftStateMachine<TypeConfig> for StateMachine {
    type SnapshotBuilder = Self;

    async fn applied_state(&mut self) -> Result<(Option<LogId>, StoredMembership), StorageError> {
        let inner = self.inner.lock().await;
        Ok((inner.current.last_applied, inner.current.membership.clone()))
    }

    async fn apply<I>(&mut self, entries: I) -> Result<Vec<CommandResult>, StorageError>
    where
        I: IntoIterator<Item = Entry> + Send,
    {
        let mut inner = self.inner.lock().await;
        let mut out = Vec::new();
        for e in entries {
            inner.current.last_applied = Some(e.log_id);
            out.push(match &e.payload {
                EntryPayload::Blank => CommandResult::None,
                EntryPayload::Normal(cmd) => apply_command(&mut inner.current, cmd),
                EntryPayload::Membership(m) => {
                    inner.current.membership = StoredMembership::new(Some(e.log_id), m.clone());
                    CommandResult::None
                }
            });
        }
        self.tx.send_replace(Arc::new(inner.current.clone()));
        Ok(out)
    }

    async fn get_snapshot_builder(&mut self) -> Self::SnapshotBuilder {
        self.clone()
    }

    async fn begin_receiving_snapshot(&mut self) -> Result<Box<Cursor<Vec<u8>>>, StorageError> {
        Ok(Box::new(Cursor::new(Vec::new())))
    }

    async fn install_snapshot(
        &mut self,
        meta: &SnapshotMeta<RaftId, ClusterNode>,
        snapshot: Box<Cursor<Vec<u8>>>,
    ) -> Result<(), StorageError> {
        let data = snapshot.into_inner();
        let mut p: Published = serde_json::from_slice(&data)
            .map_err(|e| StorageIOError::read_snapshot(Some(meta.signature()), &io_err(e)))?;
        p.last_applied = meta.last_log_id;
        p.membership = meta.last_membership.clone();
        let mut inner = self.inner.lock().await;
        self.persist(&mut inner, StoredSnapshot { meta: meta.clone(), data }).await?;
        inner.current = p;
        self.tx.send_replace(Arc::new(inner.current.clone()));
        Ok(())
    }

    async fn get_current_snapshot(&mut self) -> Result<Option<Snapshot<TypeConfig>>, StorageError> {
        let inner = self.inner.lock().await;
        Ok(inner
            .snapshot
            .as_ref()
            .map(|s| Snapshot { meta: s.meta.clone(), snapshot: Box::new(Cursor::new(s.data.clone())) }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn publish_checks_the_base_version() {
        let mut p = Published::default();
        let s = Arc::new(serde_json::json!({"a": 1}));
        assert_eq!(
            apply_command(&mut p, &Command::Publish { base_version: 0, state: s.clone() }),
            CommandResult::Published { version: 1 }
        );
        assert_eq!(
            apply_command(&mut p, &Command::Publish { base_version: 0, state: s.clone() }),
            CommandResult::Conflict { current: 1 }
        );
        assert_eq!(p.version, 1);
        assert_eq!(*p.state, serde_json::json!({"a": 1}));
    }
}
