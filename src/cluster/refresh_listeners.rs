//! `refresh=wait_for`: a write waits for the next refresh of its shard instead of forcing one,
//! as OpenSearch's `RefreshListeners` do. Refreshes are numbered as they start; a write that
//! completed before refresh `k` started is visible once any refresh numbered `k` or later has
//! finished. A waiter forces a refresh (and reports `forced_refresh`) when the shard already has
//! `index.max_refresh_listeners` (1,000) waiters, or, where OpenSearch would wait for ever (a
//! shard with `refresh_interval: -1` that nobody refreshes), after [`WAIT_LIMIT`].

use std::sync::{Condvar, Mutex};
use std::time::{Duration, Instant};

use crate::error::OsResult;

/// OpenSearch's default `index.max_refresh_listeners`.
pub const MAX_LISTENERS: usize = 1_000;

/// The longest a write waits for a refresh before forcing one (OpenSearch's default write
/// `timeout`).
pub const WAIT_LIMIT: Duration = Duration::from_secs(60);

#[derive(Debug, Default)]
struct State {
    /// Refreshes started so far (the number of the last one).
    started: u64,
    /// The highest number of a refresh that finished.
    finished: u64,
    /// Writes waiting.
    waiting: usize,
}

/// One shard's refresh counter and waiting writes.
#[derive(Debug, Default)]
pub struct RefreshListeners {
    state: Mutex<State>,
    done: Condvar,
}

impl RefreshListeners {
    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Runs one refresh (`refresh`), numbering it before it starts and waking the waiters it
    /// satisfies when it succeeds.
    pub fn refresh<T>(&self, refresh: impl FnOnce() -> OsResult<T>) -> OsResult<T> {
        let k = {
            let mut s = self.lock();
            s.started += 1;
            s.started
        };
        let r = refresh()?;
        {
            let mut s = self.lock();
            s.finished = s.finished.max(k);
        }
        self.done.notify_all();
        Ok(r)
    }

    /// Waits until a refresh that starts after this call has finished; `force` runs a refresh
    /// when too many writes wait already or `limit` passes. Returns whether it forced one.
    pub fn wait(&self, max_waiting: usize, limit: Duration, force: impl FnOnce() -> OsResult<()>) -> OsResult<bool> {
        let mut s = self.lock();
        let target = s.started + 1;
        if s.waiting >= max_waiting {
            drop(s);
            force()?;
            return Ok(true);
        }
        s.waiting += 1;
        let deadline = Instant::now() + limit;
        while s.finished < target {
            let now = Instant::now();
            if now >= deadline {
                break;
            }
            s = self.done.wait_timeout(s, deadline - now).unwrap_or_else(|e| e.into_inner()).0;
        }
        s.waiting -= 1;
        let seen = s.finished >= target;
        drop(s);
        if seen {
            Ok(false)
        } else {
            force()?;
            Ok(true)
        }
    }

    /// Writes waiting now.
    pub fn waiting(&self) -> usize {
        self.lock().waiting
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicU64, Ordering};
    use std::sync::Arc;

    #[test]
    fn a_waiter_returns_after_the_next_refresh_without_forcing() {
        let l = Arc::new(RefreshListeners::default());
        let refreshes = Arc::new(AtomicU64::new(0));
        let (l2, r2) = (l.clone(), refreshes.clone());
        let waiter = std::thread::spawn(move || {
            l2.wait(MAX_LISTENERS, Duration::from_secs(10), || panic!("must not force")).unwrap()
        });
        let t = Instant::now();
        while l.waiting() == 0 && t.elapsed() < Duration::from_secs(5) {
            std::thread::yield_now();
        }
        l.refresh(|| {
            r2.fetch_add(1, Ordering::Relaxed);
            Ok(())
        })
        .unwrap();
        assert!(!waiter.join().unwrap());
        assert_eq!(refreshes.load(Ordering::Relaxed), 1);
        assert_eq!(l.waiting(), 0);
    }

    #[test]
    fn a_refresh_that_started_before_the_write_does_not_count() {
        let l = RefreshListeners::default();
        l.refresh(|| Ok(())).unwrap();
        // Nothing refreshes after the wait starts: it times out and forces.
        let mut forced = 0;
        assert!(l
            .wait(MAX_LISTENERS, Duration::from_millis(30), || {
                forced += 1;
                Ok(())
            })
            .unwrap());
        assert_eq!(forced, 1);
    }

    #[test]
    fn too_many_waiters_force_at_once() {
        let l = RefreshListeners::default();
        let t = Instant::now();
        assert!(l.wait(0, Duration::from_secs(30), || Ok(())).unwrap());
        assert!(t.elapsed() < Duration::from_secs(5));
    }

    #[test]
    fn a_failed_refresh_wakes_nobody() {
        let l = RefreshListeners::default();
        let e = l.refresh::<()>(|| Err(crate::error::OsError::internal("disk gone")));
        assert!(e.is_err());
        assert!(l.wait(MAX_LISTENERS, Duration::from_millis(20), || Ok(())).unwrap());
    }
}
