//! The background fsync of `Durability::Async`: a thread that calls [`Translog::sync`] every
//! `sync_interval` until its handle is dropped or the translog is closed or dropped.

use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

use super::Translog;

/// Smallest accepted `sync_interval`.
pub const MIN_SYNC_INTERVAL: Duration = Duration::from_millis(10);

/// Stops and joins the syncer thread when dropped.
#[derive(Debug)]
pub struct SyncerHandle {
    stop: Option<mpsc::Sender<()>>,
    thread: Option<JoinHandle<()>>,
}

impl SyncerHandle {
    /// Whether the thread has exited (translog closed, dropped or failed).
    pub fn is_finished(&self) -> bool {
        self.thread.as_ref().is_none_or(|t| t.is_finished())
    }
}

impl Drop for SyncerHandle {
    fn drop(&mut self) {
        // Dropping the sender wakes the thread at once (`Disconnected`).
        drop(self.stop.take());
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

impl Translog {
    /// Starts the `Async`-durability syncer. It holds only a weak reference, so it never keeps
    /// the translog alive; it sleeps on a channel (no busy loop) and exits when the handle is
    /// dropped, the translog is dropped, or a sync fails (closed or poisoned).
    pub fn start_async_syncer(self: &Arc<Self>) -> SyncerHandle {
        let weak = Arc::downgrade(self);
        let interval = self.config.sync_interval.max(MIN_SYNC_INTERVAL);
        let (tx, rx) = mpsc::channel::<()>();
        let thread = std::thread::Builder::new()
            .name("translog-sync".into())
            .spawn(move || loop {
                match rx.recv_timeout(interval) {
                    Err(RecvTimeoutError::Timeout) => {
                        let Some(translog) = weak.upgrade() else { return };
                        if let Err(e) = translog.sync() {
                            tracing::debug!(error = %e, "translog syncer stops");
                            return;
                        }
                    }
                    Ok(()) | Err(RecvTimeoutError::Disconnected) => return,
                }
            })
            .expect("spawning a thread only fails when the OS is out of resources at startup");
        SyncerHandle { stop: Some(tx), thread: Some(thread) }
    }
}
