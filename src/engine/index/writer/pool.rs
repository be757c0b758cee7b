//! The in-memory builders of one writer (Lucene's DocumentsWriterPerThread pool): a fixed number of
//! slots, each a mutex-guarded [`SegmentBuilder`]. An append takes the first free slot (the lowest
//! free index, so a single writer thread always fills slot 0 and a refresh makes one segment),
//! inverts its document there and lets go; only when every slot is busy does it wait, on a slot
//! picked round-robin. No lock but the slot's is held while inverting.
//!
//! Each slot publishes its builder's memory use in an atomic after every add, so
//! `buffer_full` sums them without locking a builder.
//!
//! Lock order: the writer's `refresh` → `state` → one slot at a time. Appends take a slot only.

use super::super::builder::SegmentBuilder;
use crate::engine::sync::{lock, AtomicUsize, Mutex, MutexGuard, Ordering};

/// At most this many builders, whatever the machine's parallelism.
const MAX_SLOTS: usize = 16;

pub(super) struct BuilderPool {
    slots: Vec<Slot>,
    /// Round-robin start for waiting when every slot is busy.
    next: AtomicUsize,
}

struct Slot {
    builder: Mutex<SegmentBuilder>,
    /// `builder.mem_bytes()` as of its last change.
    bytes: AtomicUsize,
}

/// A locked builder; the slot's memory figure is updated when it is dropped.
pub(super) struct Held<'a> {
    pub(super) index: usize,
    guard: MutexGuard<'a, SegmentBuilder>,
    bytes: &'a AtomicUsize,
}

impl std::ops::Deref for Held<'_> {
    type Target = SegmentBuilder;
    fn deref(&self) -> &SegmentBuilder {
        &self.guard
    }
}

impl std::ops::DerefMut for Held<'_> {
    fn deref_mut(&mut self) -> &mut SegmentBuilder {
        &mut self.guard
    }
}

impl Drop for Held<'_> {
    fn drop(&mut self) {
        self.bytes.store(self.guard.mem_bytes(), Ordering::Relaxed);
    }
}

impl BuilderPool {
    /// A pool of `n` builders (clamped to 1..=16). Empty builders allocate nothing to speak of.
    pub(super) fn new(n: usize) -> BuilderPool {
        let n = n.clamp(1, MAX_SLOTS);
        let slots =
            (0..n).map(|_| Slot { builder: Mutex::new(SegmentBuilder::new()), bytes: AtomicUsize::new(0) }).collect();
        BuilderPool { slots, next: AtomicUsize::new(0) }
    }

    /// The number of builders.
    pub(super) fn len(&self) -> usize {
        self.slots.len()
    }

    /// A free builder: the lowest-numbered unlocked one, or (all busy) the next round-robin slot
    /// once its holder lets go.
    pub(super) fn acquire(&self) -> Held<'_> {
        for i in 0..self.slots.len() {
            let slot = &self.slots[i];
            let guard = match slot.builder.try_lock() {
                Ok(g) => Some(g),
                Err(std::sync::TryLockError::Poisoned(p)) => Some(p.into_inner()),
                Err(std::sync::TryLockError::WouldBlock) => None,
            };
            if let Some(guard) = guard {
                return Held { index: i, guard, bytes: &slot.bytes };
            }
        }
        let i = self.next.fetch_add(1, Ordering::Relaxed) % self.slots.len();
        self.get(i)
    }

    /// Builder `i` (waits for it). `i` must be below [`BuilderPool::len`].
    pub(super) fn get(&self, i: usize) -> Held<'_> {
        let slot = &self.slots[i];
        Held { index: i, guard: lock(&slot.builder), bytes: &slot.bytes }
    }

    /// Every builder in turn, with its index.
    pub(super) fn each(&self) -> impl Iterator<Item = Held<'_>> {
        (0..self.slots.len()).map(|i| self.get(i))
    }

    /// Takes every non-empty builder out (leaving empty ones in their place), in slot order.
    pub(super) fn take_all(&self) -> Vec<SegmentBuilder> {
        let mut out = Vec::new();
        for mut b in self.each() {
            if !b.is_empty() {
                out.push(std::mem::take(&mut *b));
            }
        }
        out
    }

    /// The memory all builders hold, as of their last change.
    pub(super) fn mem_bytes(&self) -> usize {
        self.slots.iter().map(|s| s.bytes.load(Ordering::Relaxed)).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn single_thread_uses_slot_zero_and_busy_slots_are_skipped() {
        let p = BuilderPool::new(3);
        assert_eq!(p.acquire().index, 0);
        let a = p.acquire();
        let b = p.acquire();
        assert_eq!((a.index, b.index), (0, 1));
        let c = p.acquire();
        assert_eq!(c.index, 2);
        drop((a, b, c));
        assert_eq!(BuilderPool::new(0).len(), 1);
        assert_eq!(BuilderPool::new(1000).len(), MAX_SLOTS);
        assert!(p.take_all().is_empty());
        assert_eq!(p.mem_bytes(), 0);
    }
}
