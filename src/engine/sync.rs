//! Synchronisation primitives, swapped for loom's under `cfg(loom)` so that the reference
//! counting of the file deleter and the checkpoint tracker can be model-checked.
//!
//! `Arc` stays std's under loom: loom's `Arc` supports neither unsized coercion
//! (`Arc<dyn Directory>`) nor `self: &Arc<Self>`, and the logic under test is Fathom's own
//! (the mutex-guarded reference table, the atomics), not `Arc`'s counter.

pub use std::sync::Arc;

#[cfg(loom)]
pub use loom::sync::atomic::{AtomicBool, AtomicI64, AtomicU64, AtomicUsize, Ordering};
#[cfg(loom)]
pub use loom::sync::{Condvar, Mutex, MutexGuard};

#[cfg(not(loom))]
pub use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU64, AtomicUsize, Ordering};
#[cfg(not(loom))]
pub use std::sync::{Condvar, Mutex, MutexGuard};

/// Locks a mutex, treating poisoning as the holder's panic having already been reported: the
/// protected data structures here stay consistent across a panic (every mutation completes or is
/// not started), so the guard is recovered rather than propagating the panic.
pub fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    match m.lock() {
        Ok(g) => g,
        Err(poisoned) => poisoned.into_inner(),
    }
}
