//! The background merge thread of a shard (OpenSearch's `ConcurrentMergeScheduler`, one thread):
//! refreshes and flushes ask for merges; the thread runs what the merge policy picks, off the
//! write path. Named `fathom[merge]` for hot-threads reports.

use std::thread::JoinHandle;
use std::time::Duration;

use crate::engine::index::IndexWriter;
use crate::engine::sync::{lock, Arc, Condvar, Mutex};
use crate::engine::Error;

/// Merges per round at most, so a stop request is never kept waiting behind a long cascade.
const MAX_MERGES_PER_ROUND: usize = 64;
/// The thread re-checks for a stop at least this often.
const IDLE_WAIT: Duration = Duration::from_millis(500);

#[derive(Debug, Default)]
struct Signal {
    requested: bool,
    stop: bool,
    rounds: u64,
}

/// Handle of the merge thread; dropping it stops and joins the thread.
#[derive(Debug)]
pub struct MergeScheduler {
    signal: Arc<(Mutex<Signal>, Condvar)>,
    thread: Option<JoinHandle<()>>,
}

impl MergeScheduler {
    /// Starts the thread for `writer`.
    pub fn start(writer: Arc<IndexWriter>, on_error: Box<dyn Fn(&Error) + Send>) -> MergeScheduler {
        let signal: Arc<(Mutex<Signal>, Condvar)> = Arc::new((Mutex::new(Signal::default()), Condvar::new()));
        let s = signal.clone();
        let thread = std::thread::Builder::new()
            .name("fathom[merge]".into())
            .spawn(move || loop {
                {
                    let (m, cv) = &*s;
                    let mut g = lock(m);
                    while !g.requested && !g.stop {
                        g = match cv.wait_timeout(g, IDLE_WAIT) {
                            Ok((g, _)) => g,
                            Err(p) => p.into_inner().0,
                        };
                    }
                    if g.stop {
                        return;
                    }
                    g.requested = false;
                }
                // One merge at a time until the policy is satisfied, checking for a stop in between.
                for _ in 0..MAX_MERGES_PER_ROUND {
                    match writer.maybe_merge(1) {
                        Ok(0) => break,
                        Ok(_) => {}
                        Err(e) => {
                            tracing::warn!(error = %e, "background merge failed");
                            on_error(&e);
                            break;
                        }
                    }
                    if lock(&s.0).stop {
                        return;
                    }
                }
                let (m, cv) = &*s;
                lock(m).rounds += 1;
                cv.notify_all();
            })
            .ok();
        if thread.is_none() {
            tracing::warn!("could not start the merge thread; merges run only on request");
        }
        MergeScheduler { signal, thread }
    }

    /// Asks for a merge round (cheap; many requests coalesce into one round).
    pub fn request(&self) {
        let (m, cv) = &*self.signal;
        lock(m).requested = true;
        cv.notify_all();
    }

    /// Rounds completed so far (tests wait on it).
    pub fn rounds(&self) -> u64 {
        lock(&self.signal.0).rounds
    }
}

impl Drop for MergeScheduler {
    fn drop(&mut self) {
        {
            let (m, cv) = &*self.signal;
            lock(m).stop = true;
            cv.notify_all();
        }
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}
