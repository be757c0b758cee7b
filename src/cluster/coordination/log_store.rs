//! openraft's log storage over [`LogFiles`]: reads come from memory, writes go to disk on the
//! blocking pool, and an append is reported flushed only once its bytes and the meta that makes
//! them count are fsynced.

use std::fmt::Debug;
use std::ops::RangeBounds;
use std::sync::{Arc, Mutex};

use openraft::storage::{LogFlushed, RaftLogStorage};
use openraft::{LogState, RaftLogReader, StorageIOError};

use super::log_files::LogFiles;
use super::types::{Entry, LogId, StorageError, TypeConfig, Vote};
use crate::engine::store::Directory;

/// The log store (cheap to clone; openraft holds one and a reader).
#[derive(Debug, Clone)]
pub struct LogStore {
    files: Arc<Mutex<LogFiles>>,
}

fn lock(m: &Mutex<LogFiles>) -> std::sync::MutexGuard<'_, LogFiles> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

fn io(e: impl std::fmt::Display) -> std::io::Error {
    std::io::Error::other(e.to_string())
}

impl LogStore {
    /// Opens the log in `dir`.
    pub fn open(dir: Arc<dyn Directory>) -> crate::engine::Result<LogStore> {
        Ok(LogStore { files: Arc::new(Mutex::new(LogFiles::open(dir)?)) })
    }

    /// Runs `f` on the files on the blocking pool (disk I/O and fsyncs).
    async fn blocking<R: Send + 'static>(
        &self,
        f: impl FnOnce(&mut LogFiles) -> crate::engine::Result<R> + Send + 'static,
    ) -> std::io::Result<R> {
        let files = self.files.clone();
        tokio::task::spawn_blocking(move || f(&mut lock(&files))).await.map_err(io)?.map_err(io)
    }
}

impl RaftLogReader<TypeConfig> for LogStore {
    async fn try_get_log_entries<RB: RangeBounds<u64> + Clone + Debug + Send>(
        &mut self,
        range: RB,
    ) -> Result<Vec<Entry>, StorageError> {
        Ok(lock(&self.files).entries.range(range).map(|(_, e)| e.clone()).collect())
    }
}

impl RaftLogStorage<TypeConfig> for LogStore {
    type LogReader = Self;

    async fn get_log_state(&mut self) -> Result<LogState<TypeConfig>, StorageError> {
        let f = lock(&self.files);
        Ok(LogState { last_purged_log_id: f.meta.purged, last_log_id: f.last_log_id() })
    }

    async fn get_log_reader(&mut self) -> Self::LogReader {
        self.clone()
    }

    async fn save_vote(&mut self, vote: &Vote) -> Result<(), StorageError> {
        let v = *vote;
        self.blocking(move |f| f.save_vote(v)).await.map_err(|e| StorageIOError::write_vote(&e).into())
    }

    async fn read_vote(&mut self) -> Result<Option<Vote>, StorageError> {
        Ok(lock(&self.files).meta.vote)
    }

    async fn save_committed(&mut self, committed: Option<LogId>) -> Result<(), StorageError> {
        lock(&self.files).set_committed(committed);
        Ok(())
    }

    async fn read_committed(&mut self) -> Result<Option<LogId>, StorageError> {
        Ok(lock(&self.files).meta.committed)
    }

    async fn append<I>(&mut self, entries: I, callback: LogFlushed<TypeConfig>) -> Result<(), StorageError>
    where
        I: IntoIterator<Item = Entry> + Send,
        I::IntoIter: Send,
    {
        let entries: Vec<Entry> = entries.into_iter().collect();
        // Flushed before returning: openraft awaits each append in turn, so appends reach the
        // disk in log order. A failure is reported both ways (openraft stops on a storage error).
        match self.blocking(move |f| f.append(entries)).await {
            Ok(()) => {
                callback.log_io_completed(Ok(()));
                Ok(())
            }
            Err(e) => {
                let se = StorageIOError::write_logs(&e).into();
                callback.log_io_completed(Err(e));
                Err(se)
            }
        }
    }

    async fn truncate(&mut self, log_id: LogId) -> Result<(), StorageError> {
        self.blocking(move |f| f.truncate(log_id)).await.map_err(|e| StorageIOError::write_logs(&e).into())
    }

    async fn purge(&mut self, log_id: LogId) -> Result<(), StorageError> {
        self.blocking(move |f| f.purge(log_id)).await.map_err(|e| StorageIOError::write_logs(&e).into())
    }
}
