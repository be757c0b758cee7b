//! Running the parts of one task in parallel on the pool the task runs on (the shards of one
//! search on the `search` pool), without the pool's self-deadlock.
//!
//! The danger: a task on a saturated pool that queues its parts on the same pool and then blocks
//! until they finish waits for work that only its own (blocked) thread could run. Here the parts
//! are *claimed*, not assigned: the coordinating task queues at most one helper per other
//! thread of the pool and then claims parts itself, one at a time, like the helpers do; a helper
//! that starts after every part was claimed returns at once. The coordinator waits only for parts
//! another thread has claimed, and a claimed part is running on a live thread, never sitting in
//! a queue. So a search completes even when every other thread of the pool is busy (or blocked
//! in the same way): it then runs its shards one after another on its own thread.

use std::cell::RefCell;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, Weak};

use super::Shared;

thread_local! {
    /// The pool this thread works for (and its size), set when a pool thread starts.
    static CURRENT: RefCell<Option<(Weak<Shared>, usize)>> = const { RefCell::new(None) };
}

pub(super) fn set_current(pool: Weak<Shared>, size: usize) {
    CURRENT.with(|c| *c.borrow_mut() = Some((pool, size)));
}

/// A part's result (deprecation warnings travel in the request's shared sink, not here).
type Outcome<R> = std::thread::Result<R>;

struct Parts<R> {
    n: usize,
    next: AtomicUsize,
    run: Box<dyn Fn(usize) -> R + Send + Sync>,
    done: Mutex<(Vec<Option<Outcome<R>>>, usize)>,
    all_done: Condvar,
}

impl<R> Parts<R> {
    /// Claims and runs parts until none is left.
    fn work(&self) {
        loop {
            let i = self.next.fetch_add(1, Ordering::SeqCst);
            if i >= self.n {
                return;
            }
            let r = catch_unwind(AssertUnwindSafe(|| (self.run)(i)));
            let mut d = self.done.lock().unwrap_or_else(|e| e.into_inner());
            d.0[i] = Some(r);
            d.1 += 1;
            if d.1 == self.n {
                self.all_done.notify_all();
            }
        }
    }
}

/// Runs `run(0)`, ..., `run(n - 1)` and returns their results in that order. On a pool thread
/// the parts run in parallel on that pool (the calling thread runs its share; see the module
/// docs for why this cannot deadlock); elsewhere, or with one part, they run one after another
/// on the calling thread. A part that panics makes this panic (after every part finished).
pub fn fan_out<R, F>(n: usize, run: F) -> Vec<R>
where
    R: Send + 'static,
    F: Fn(usize) -> R + Send + Sync + 'static,
{
    let parts = Arc::new(Parts {
        n,
        next: AtomicUsize::new(0),
        run: Box::new(run),
        done: Mutex::new(((0..n).map(|_| None).collect(), 0)),
        all_done: Condvar::new(),
    });
    let pool = CURRENT.with(|c| c.borrow().clone());
    if let Some((pool, size)) = pool.filter(|_| n > 1) {
        if let Some(shared) = pool.upgrade() {
            // Helpers work for the caller's task: its cancel flag stops them, their CPU and
            // allocations count for it (`_tasks` resource_stats, thread_executions).
            let task = crate::tasks::current();
            for _ in 0..(n - 1).min(size.saturating_sub(1)) {
                // A helper holds the parts weakly: one that starts after the search ended (its
                // parts all claimed by others) neither runs anything nor keeps the data alive.
                let weak = Arc::downgrade(&parts);
                let task = task.clone();
                let helper = Box::new(move || {
                    if let Some(p) = weak.upgrade() {
                        let _working = task.as_ref().map(|t| t.enter());
                        p.work();
                    }
                });
                // A full queue is no error: this thread runs the parts itself.
                if shared.submit(helper).is_err() {
                    break;
                }
            }
        }
    }
    parts.work();
    let mut d = parts.done.lock().unwrap_or_else(|e| e.into_inner());
    while d.1 < n {
        d = parts.all_done.wait(d).unwrap_or_else(|e| e.into_inner());
    }
    let outcomes = std::mem::take(&mut d.0);
    drop(d);
    let mut out = Vec::with_capacity(n);
    let mut panicked = None;
    for r in outcomes.into_iter().flatten() {
        match r {
            Ok(r) => out.push(r),
            Err(panic) => {
                panicked.get_or_insert(panic);
            }
        }
    }
    if let Some(panic) = panicked {
        resume_unwind(panic);
    }
    debug_assert_eq!(out.len(), n, "every part is done");
    out
}

#[cfg(test)]
mod tests {
    use super::super::ThreadPool;
    use super::*;
    use std::sync::mpsc;
    use std::time::{Duration, Instant};

    /// Runs `f` as a task on `pool` and returns its result (bounded in time).
    fn on_pool<T: Send + 'static>(pool: &ThreadPool, f: impl FnOnce() -> T + Send + 'static) -> T {
        let (tx, rx) = mpsc::channel();
        pool.execute(move || {
            let _ = tx.send(f());
        })
        .unwrap();
        rx.recv_timeout(Duration::from_secs(20)).expect("the task finished in time")
    }

    #[test]
    fn results_keep_their_order_on_and_off_a_pool() {
        let expect: Vec<usize> = (0..50).map(|i| i * i).collect();
        assert_eq!(fan_out(50, |i| i * i), expect);
        let pool = ThreadPool::new("n", "search", 4, 100);
        assert_eq!(on_pool(&pool, || fan_out(50, |i| i * i)), expect);
        assert_eq!(on_pool(&pool, || fan_out(0, |i| i)), Vec::<usize>::new());
        assert_eq!(on_pool(&pool, || fan_out(1, |i| i + 7)), vec![7]);
    }

    #[test]
    fn parts_overlap_in_time() {
        // Four parts that each wait until all four have started: one after another they would
        // each wait out the timeout and see fewer than four.
        let pool = ThreadPool::new("n", "search", 4, 100);
        let all_met = on_pool(&pool, || {
            let arrived = Arc::new((Mutex::new(0usize), Condvar::new()));
            fan_out(4, move |_| {
                let (m, cv) = &*arrived;
                let mut n = m.lock().unwrap();
                *n += 1;
                cv.notify_all();
                let t = Instant::now();
                while *n < 4 && t.elapsed() < Duration::from_secs(2) {
                    n = cv.wait_timeout(n, Duration::from_millis(50)).unwrap().0;
                }
                *n == 4
            })
        });
        assert_eq!(all_met, vec![true; 4]);
    }

    #[test]
    fn a_saturated_pool_does_not_deadlock() {
        // Every thread of the pool runs a coordinating task that fans out on the same pool: were
        // the coordinators to wait for parts queued behind themselves, none would finish.
        let pool = Arc::new(ThreadPool::new("n", "search", 2, 1000));
        let (tx, rx) = mpsc::channel();
        for t in 0..6 {
            let tx = tx.clone();
            pool.execute(move || {
                let r = fan_out(8, move |i| {
                    std::thread::sleep(Duration::from_millis(5));
                    t * 100 + i
                });
                let _ = tx.send(r);
            })
            .unwrap();
        }
        let mut got = Vec::new();
        for _ in 0..6 {
            got.push(rx.recv_timeout(Duration::from_secs(20)).expect("no self-deadlock"));
        }
        got.sort();
        assert_eq!(got, (0..6).map(|t| (0..8).map(|i| t * 100 + i).collect::<Vec<_>>()).collect::<Vec<_>>());
    }

    #[test]
    fn a_full_queue_runs_the_parts_on_the_caller() {
        // No queue room at all: every helper is rejected, the coordinator runs everything.
        let pool = ThreadPool::new("n", "search", 3, 0);
        let (tx, rx) = mpsc::channel();
        // `execute` rejects with a zero-capacity queue too, so start the coordinator by hand.
        let shared = Arc::downgrade(&pool.shared);
        std::thread::spawn(move || {
            set_current(shared, 3);
            let names = fan_out(5, |_| std::thread::current().id());
            let _ = tx.send(names);
        });
        let ids = rx.recv_timeout(Duration::from_secs(20)).unwrap();
        assert!(ids.windows(2).all(|w| w[0] == w[1]), "{ids:?}");
        assert!(pool.stats().rejected >= 1);
    }

    #[test]
    fn a_panicking_part_is_reported_to_the_caller() {
        let pool = ThreadPool::new("n", "search", 3, 100);
        let caught =
            on_pool(&pool, || catch_unwind(|| fan_out(6, |i| if i == 4 { panic!("part 4") } else { i })).is_err());
        assert!(caught);
        // The pool still works.
        assert_eq!(on_pool(&pool, || fan_out(3, |i| i)), vec![0, 1, 2]);
    }
}
