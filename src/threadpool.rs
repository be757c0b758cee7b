//! Named, fixed-size thread pools with bounded queues, as OpenSearch runs engine work
//! (`write`, `search`, `get`, `management`, ...). Threads are named
//! `fathom[{node}][{pool}][T#{n}]`. A full queue rejects the task
//! (`rejected_execution_exception`, 429) instead of growing without bound.
//!
//! Idle workers wait on their own condition variable and are woken last-idle-first: a steady
//! stream of requests keeps landing on the thread (and so the core and caches) that ran the
//! previous one, where one shared condition variable wakes waiters in turn and spreads
//! consecutive searches over every thread of the pool.

use std::collections::VecDeque;
use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;
use std::time::Instant;

use crate::error::{ErrorKind, OsError};

mod fan_out;
pub mod names;
pub use fan_out::fan_out;

type Job = Box<dyn FnOnce() + Send + 'static>;

struct Queue {
    /// Waiting tasks with the moment each was queued.
    jobs: VecDeque<(Job, Instant)>,
    shutdown: bool,
    /// Waiting workers, the most recently idle last.
    idle: Vec<usize>,
}

struct Shared {
    name: String,
    queue: Mutex<Queue>,
    /// One per worker.
    wake: Vec<Condvar>,
    capacity: usize,
    completed: AtomicU64,
    rejected: AtomicU64,
    active: AtomicU64,
    /// The most workers ever busy at once.
    largest: AtomicU64,
    /// Nanoseconds the started tasks waited in the queue, summed.
    wait_nanos: AtomicU64,
}

/// One named pool.
pub struct ThreadPool {
    name: String,
    size: usize,
    shared: Arc<Shared>,
    threads: Mutex<Vec<JoinHandle<()>>>,
}

impl fmt::Debug for ThreadPool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ThreadPool").field("name", &self.name).field("size", &self.size).finish()
    }
}

/// Counters of a pool (`_cat/thread_pool`, `_nodes/stats`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PoolStats {
    pub threads: usize,
    pub queue: usize,
    pub active: u64,
    pub completed: u64,
    pub rejected: u64,
    /// The most workers ever busy at once (OpenSearch's `largest`: its fixed pools start threads
    /// on demand, so their largest count is the peak of concurrent work; Fathom's threads all
    /// start with the pool, and the peak of busy workers is that figure).
    pub largest: u64,
    /// Time the started tasks waited in the queue, summed.
    pub total_wait: std::time::Duration,
}

impl ThreadPool {
    /// Starts `size` threads with a queue of `capacity` waiting tasks.
    pub fn new(node: &str, name: &str, size: usize, capacity: usize) -> ThreadPool {
        let size = size.max(1);
        let shared = Arc::new(Shared {
            name: name.to_string(),
            queue: Mutex::new(Queue { jobs: VecDeque::new(), shutdown: false, idle: Vec::with_capacity(size) }),
            wake: (0..size).map(|_| Condvar::new()).collect(),
            capacity,
            completed: AtomicU64::new(0),
            rejected: AtomicU64::new(0),
            active: AtomicU64::new(0),
            largest: AtomicU64::new(0),
            wait_nanos: AtomicU64::new(0),
        });
        let mut threads = Vec::new();
        for i in 0..size {
            let s = shared.clone();
            let spawned =
                std::thread::Builder::new().name(format!("fathom[{node}][{name}][T#{}]", i + 1)).spawn(move || {
                    let _named = names::Registered::current();
                    worker(s, i)
                });
            match spawned {
                Ok(h) => threads.push(h),
                Err(e) => tracing::error!(pool = name, error = %e, "could not start a pool thread"),
            }
        }
        ThreadPool { name: name.to_string(), size, shared, threads: Mutex::new(threads) }
    }

    /// The pool's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Threads of the pool.
    pub fn size(&self) -> usize {
        self.size
    }

    /// How many tasks may wait in the queue.
    pub fn capacity(&self) -> usize {
        self.shared.capacity
    }

    /// Queues a task, or rejects it when the queue is full or the pool is shut down.
    pub fn execute(&self, job: impl FnOnce() + Send + 'static) -> Result<(), OsError> {
        self.shared.submit(Box::new(job))
    }

    /// Current counters.
    pub fn stats(&self) -> PoolStats {
        let queue = self.shared.queue.lock().unwrap_or_else(|e| e.into_inner()).jobs.len();
        PoolStats {
            threads: self.size,
            queue,
            active: self.shared.active.load(Ordering::Relaxed),
            completed: self.shared.completed.load(Ordering::Relaxed),
            rejected: self.shared.rejected.load(Ordering::Relaxed),
            largest: self.shared.largest.load(Ordering::Relaxed),
            total_wait: std::time::Duration::from_nanos(self.shared.wait_nanos.load(Ordering::Relaxed)),
        }
    }

    /// Stops accepting tasks, runs the queued ones, and joins the threads.
    pub fn shutdown(&self) {
        self.shared.queue.lock().unwrap_or_else(|e| e.into_inner()).shutdown = true;
        for cv in &self.shared.wake {
            cv.notify_all();
        }
        let threads: Vec<_> = std::mem::take(&mut *self.threads.lock().unwrap_or_else(|e| e.into_inner()));
        for t in threads {
            let _ = t.join();
        }
    }
}

impl Shared {
    fn submit(&self, job: Job) -> Result<(), OsError> {
        let mut q = self.queue.lock().unwrap_or_else(|e| e.into_inner());
        if q.shutdown || q.jobs.len() >= self.capacity {
            self.rejected.fetch_add(1, Ordering::Relaxed);
            return Err(OsError::new(
                ErrorKind::RejectedExecution,
                format!(
                    "rejected execution of task on pool [{}] (queue capacity = {}, shutdown = {})",
                    self.name, self.capacity, q.shutdown
                ),
            ));
        }
        q.jobs.push_back((job, Instant::now()));
        let w = q.idle.pop();
        drop(q);
        // The popped worker is inside `wait` (it released the lock only there), so the notify
        // reaches it; with no idle worker, a busy one takes the job before it waits again.
        if let Some(cv) = w.and_then(|w| self.wake.get(w)) {
            cv.notify_one();
        }
        Ok(())
    }
}

impl Drop for ThreadPool {
    fn drop(&mut self) {
        self.shutdown();
    }
}

fn worker(s: Arc<Shared>, me: usize) {
    let Some(cv) = s.wake.get(me) else { return };
    fan_out::set_current(Arc::downgrade(&s), s.wake.len());
    loop {
        let job = {
            let mut q = s.queue.lock().unwrap_or_else(|e| e.into_inner());
            loop {
                if let Some((j, queued)) = q.jobs.pop_front() {
                    let waited = u64::try_from(queued.elapsed().as_nanos()).unwrap_or(u64::MAX);
                    s.wait_nanos.fetch_add(waited, Ordering::Relaxed);
                    break Some(j);
                }
                if q.shutdown {
                    break None;
                }
                q.idle.push(me);
                q = cv.wait(q).unwrap_or_else(|e| e.into_inner());
                // Woken by `execute` (which took us off the list), by shutdown, or spuriously.
                q.idle.retain(|&w| w != me);
            }
        };
        let Some(job) = job else { return };
        let busy = s.active.fetch_add(1, Ordering::Relaxed) + 1;
        s.largest.fetch_max(busy, Ordering::Relaxed);
        // A panicking task must not take the worker down with it.
        let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(job));
        s.active.fetch_sub(1, Ordering::Relaxed);
        s.completed.fetch_add(1, Ordering::Relaxed);
    }
}

/// The node's pools, sized from the processor count as OpenSearch sizes them.
#[derive(Debug)]
pub struct Pools {
    pub write: ThreadPool,
    pub search: ThreadPool,
    pub get: ThreadPool,
    pub management: ThreadPool,
    pub refresh: ThreadPool,
    pub flush: ThreadPool,
    /// Force merges: one at a time per node, as OpenSearch's `force_merge` pool.
    pub force_merge: ThreadPool,
    pub generic: ThreadPool,
}

impl Pools {
    /// Starts every pool for a node with `processors` cores.
    pub fn new(node: &str, processors: usize) -> Pools {
        let p = processors.max(1);
        Pools {
            write: ThreadPool::new(node, "write", p, 10_000),
            search: ThreadPool::new(node, "search", p * 3 / 2 + 1, 1000),
            get: ThreadPool::new(node, "get", p, 1000),
            management: ThreadPool::new(node, "management", p.min(5), 10_000),
            refresh: ThreadPool::new(node, "refresh", (p / 2).clamp(1, 10), 10_000),
            flush: ThreadPool::new(node, "flush", (p / 2).clamp(1, 5), 10_000),
            force_merge: ThreadPool::new(node, "force_merge", 1, 10_000),
            generic: ThreadPool::new(node, "generic", p.max(4), 10_000),
        }
    }

    /// Every pool with its name.
    pub fn all(&self) -> [&ThreadPool; 8] {
        [
            &self.write,
            &self.search,
            &self.get,
            &self.management,
            &self.refresh,
            &self.flush,
            &self.force_merge,
            &self.generic,
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc;
    use std::time::Duration;

    #[test]
    fn runs_tasks_on_named_threads() {
        let pool = ThreadPool::new("n1", "write", 2, 10);
        let (tx, rx) = mpsc::channel();
        for _ in 0..4 {
            let tx = tx.clone();
            pool.execute(move || {
                let _ = tx.send(std::thread::current().name().unwrap_or_default().to_string());
            })
            .unwrap();
        }
        for _ in 0..4 {
            let name = rx.recv_timeout(Duration::from_secs(5)).unwrap();
            assert!(name.starts_with("fathom[n1][write][T#"), "{name}");
        }
    }

    #[test]
    fn full_queue_rejects() {
        let pool = ThreadPool::new("n", "get", 1, 1);
        let (block_tx, block_rx) = mpsc::channel::<()>();
        let (started_tx, started_rx) = mpsc::channel::<()>();
        pool.execute(move || {
            let _ = started_tx.send(());
            let _ = block_rx.recv_timeout(Duration::from_secs(5));
        })
        .unwrap();
        started_rx.recv_timeout(Duration::from_secs(5)).unwrap();
        pool.execute(|| {}).unwrap();
        let e = pool.execute(|| {}).unwrap_err();
        assert_eq!(e.status, 429);
        drop(block_tx);
        assert_eq!(pool.stats().rejected, 1);
    }

    #[test]
    fn consecutive_tasks_run_on_the_last_idle_thread() {
        let pool = ThreadPool::new("n", "search", 4, 100);
        let (tx, rx) = mpsc::channel();
        let mut names = Vec::new();
        for _ in 0..20 {
            // Every worker waiting (the last one to finish on top) before the next task.
            let t = std::time::Instant::now();
            while pool.shared.queue.lock().unwrap().idle.len() < 4 && t.elapsed() < Duration::from_secs(5) {
                std::thread::yield_now();
            }
            let tx = tx.clone();
            pool.execute(move || {
                let _ = tx.send(std::thread::current().name().unwrap_or_default().to_string());
            })
            .unwrap();
            names.push(rx.recv_timeout(Duration::from_secs(5)).unwrap());
        }
        assert!(names.windows(2).all(|w| w[0] == w[1]), "{names:?}");
    }

    #[test]
    fn many_producers_lose_no_task() {
        let pool = Arc::new(ThreadPool::new("n", "write", 3, 100_000));
        let done = Arc::new(AtomicU64::new(0));
        let producers: Vec<_> = (0..4)
            .map(|_| {
                let (pool, done) = (pool.clone(), done.clone());
                std::thread::spawn(move || {
                    for _ in 0..2_000 {
                        let d = done.clone();
                        pool.execute(move || {
                            d.fetch_add(1, Ordering::Relaxed);
                        })
                        .unwrap();
                    }
                })
            })
            .collect();
        for p in producers {
            p.join().unwrap();
        }
        let t = std::time::Instant::now();
        while done.load(Ordering::Relaxed) < 8_000 && t.elapsed() < Duration::from_secs(10) {
            std::thread::sleep(Duration::from_millis(1));
        }
        assert_eq!(done.load(Ordering::Relaxed), 8_000);
        pool.shutdown();
    }

    #[test]
    fn a_panicking_task_does_not_kill_the_worker() {
        let pool = ThreadPool::new("n", "generic", 1, 10);
        pool.execute(|| panic!("boom")).unwrap();
        let (tx, rx) = mpsc::channel();
        pool.execute(move || {
            let _ = tx.send(1);
        })
        .unwrap();
        assert_eq!(rx.recv_timeout(Duration::from_secs(5)).unwrap(), 1);
    }
}
