//! What a task's threads used: CPU time from the OS's per-thread clock
//! (`clock_gettime(CLOCK_THREAD_CPUTIME_ID)`) and heap bytes allocated, from a counting global
//! allocator ([`CountingAlloc`]) that adds every allocation's size to a thread-local counter.
//!
//! A Rust process has no JVM `ThreadMXBean`; these are the process's true equivalents of what
//! OpenSearch's `ResourceTrackingService` reads (thread CPU time and thread allocated bytes).
//! Without [`CountingAlloc`] as the global allocator (test binaries) the byte counter stays 0.

use std::alloc::{GlobalAlloc, Layout};
use std::cell::Cell;

use serde_json::{json, Value};

thread_local! {
    /// Bytes this thread has allocated through [`CountingAlloc`] since it started.
    static ALLOCATED: Cell<u64> = const { Cell::new(0) };
}

/// A global allocator that counts the bytes each thread allocates, around any allocator
/// (the binary wraps mimalloc: `CountingAlloc(mimalloc::MiMalloc)`).
#[derive(Debug)]
pub struct CountingAlloc<A>(pub A);

fn count(n: usize) {
    // `try_with`: a thread being torn down has no counter any more; its bytes go uncounted.
    let _ = ALLOCATED.try_with(|c| c.set(c.get().wrapping_add(n as u64)));
}

// SAFETY: every method forwards to the wrapped allocator with the caller's own arguments; the
// counter touches no allocation (a const-initialised `Cell` thread-local without destructor).
unsafe impl<A: GlobalAlloc> GlobalAlloc for CountingAlloc<A> {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count(layout.size());
        // SAFETY: the caller's contract for `alloc` is passed on unchanged.
        unsafe { self.0.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from this allocator's `alloc` with `layout`, as the caller promises.
        unsafe { self.0.dealloc(ptr, layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        count(layout.size());
        // SAFETY: as `alloc`.
        unsafe { self.0.alloc_zeroed(layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count(new_size.saturating_sub(layout.size()));
        // SAFETY: the caller's contract for `realloc` is passed on unchanged.
        unsafe { self.0.realloc(ptr, layout, new_size) }
    }
}

/// Bytes the calling thread has allocated so far.
pub fn thread_allocated_bytes() -> u64 {
    ALLOCATED.try_with(Cell::get).unwrap_or(0)
}

/// CPU time the calling thread has used so far, in nanoseconds.
pub fn thread_cpu_nanos() -> u64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: `ts` is a valid, writable timespec; the clock id is a constant the kernel knows.
    let r = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    if r != 0 {
        return 0;
    }
    (ts.tv_sec as u64).saturating_mul(1_000_000_000).saturating_add(ts.tv_nsec as u64)
}

/// A point in a thread's life: its CPU time and allocated bytes.
#[derive(Debug, Clone, Copy, Default)]
pub struct Mark {
    pub cpu_nanos: u64,
    pub bytes: u64,
}

impl Mark {
    /// The calling thread now.
    pub fn now() -> Mark {
        Mark { cpu_nanos: thread_cpu_nanos(), bytes: thread_allocated_bytes() }
    }

    /// What the thread used since `self` (taken on the same thread).
    pub fn since(self) -> Mark {
        let now = Mark::now();
        Mark { cpu_nanos: now.cpu_nanos.saturating_sub(self.cpu_nanos), bytes: now.bytes.saturating_sub(self.bytes) }
    }
}

/// The usage of a task's thread executions: each one's CPU and bytes, and how many threads are
/// working on it now (OpenSearch's `TaskResourceStats` with `thread_info`).
#[derive(Debug, Clone, Default)]
pub struct Usage {
    pub executions: u64,
    pub active_threads: u64,
    pub total: Mark,
    pub min: Option<Mark>,
    pub max: Mark,
}

impl Usage {
    /// Adds one finished (or, for a snapshot, still running) execution.
    pub fn add(&mut self, m: Mark) {
        self.executions += 1;
        self.total.cpu_nanos = self.total.cpu_nanos.saturating_add(m.cpu_nanos);
        self.total.bytes = self.total.bytes.saturating_add(m.bytes);
        let min = self.min.get_or_insert(m);
        min.cpu_nanos = min.cpu_nanos.min(m.cpu_nanos);
        min.bytes = min.bytes.min(m.bytes);
        self.max.cpu_nanos = self.max.cpu_nanos.max(m.cpu_nanos);
        self.max.bytes = self.max.bytes.max(m.bytes);
    }

    /// `resource_stats` as `_tasks` renders it.
    pub fn to_json(&self) -> Value {
        let stat = |m: Mark| json!({"cpu_time_in_nanos": m.cpu_nanos, "memory_in_bytes": m.bytes});
        let n = self.executions.max(1);
        let avg = Mark { cpu_nanos: self.total.cpu_nanos / n, bytes: self.total.bytes / n };
        json!({
            "average": stat(avg),
            "total": stat(self.total),
            "min": stat(self.min.unwrap_or_default()),
            "max": stat(self.max),
            "thread_info": {"thread_executions": self.executions, "active_threads": self.active_threads},
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_thread_clock_advances_with_work() {
        let start = Mark::now();
        let mut x = 0u64;
        for i in 0..2_000_000u64 {
            x = x.wrapping_mul(31).wrapping_add(i);
        }
        std::hint::black_box(x);
        assert!(start.since().cpu_nanos > 0);
    }

    #[test]
    fn usage_keeps_min_max_and_average() {
        let mut u = Usage::default();
        u.add(Mark { cpu_nanos: 10, bytes: 100 });
        u.add(Mark { cpu_nanos: 30, bytes: 50 });
        let j = u.to_json();
        assert_eq!(j["total"]["cpu_time_in_nanos"], 40);
        assert_eq!(j["min"]["memory_in_bytes"], 50);
        assert_eq!(j["max"]["cpu_time_in_nanos"], 30);
        assert_eq!(j["average"]["memory_in_bytes"], 75);
        assert_eq!(j["thread_info"]["thread_executions"], 2);
    }
}
