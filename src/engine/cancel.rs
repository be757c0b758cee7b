//! Cooperative cancellation of the work a thread does for a cancelled task: the layer that owns
//! the task (`tasks/`) installs its cancel flag on the thread for the duration of the work, and
//! the engine's collection loops read it where they read their deadline (between segments and
//! every [`super::query::searcher::DEADLINE_CHECK_EVERY`] docs), stopping as they stop at a
//! timeout. The caller then sees the flag set and answers its own cancellation error.

use std::cell::RefCell;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

thread_local! {
    static FLAG: RefCell<Option<Arc<AtomicBool>>> = const { RefCell::new(None) };
}

/// Whether the work on this thread has been cancelled.
#[inline]
pub fn requested() -> bool {
    FLAG.try_with(|f| f.borrow().as_ref().is_some_and(|f| f.load(Ordering::Relaxed))).unwrap_or(false)
}

/// The flag installed on this thread, if any.
pub fn current() -> Option<Arc<AtomicBool>> {
    FLAG.try_with(|f| f.borrow().clone()).ok().flatten()
}

/// Installs `flag` on this thread and returns the one it replaces (give it back to [`set`]
/// when the work ends).
pub fn set(flag: Option<Arc<AtomicBool>>) -> Option<Arc<AtomicBool>> {
    FLAG.try_with(|f| std::mem::replace(&mut *f.borrow_mut(), flag)).ok().flatten()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_set_flag_is_seen_until_replaced() {
        assert!(!requested());
        let f = Arc::new(AtomicBool::new(false));
        let prev = set(Some(f.clone()));
        assert!(!requested());
        f.store(true, Ordering::Relaxed);
        assert!(requested());
        set(prev);
        assert!(!requested());
    }
}
