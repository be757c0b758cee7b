//! One task, the threads working on it, and the current task of a thread.

use std::cell::RefCell;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::time::Instant;

use super::resource::{Mark, Usage};
use super::{TaskGuard, TaskId, TaskManager, TaskSpec};

/// A running task.
#[derive(Debug)]
pub struct Task {
    pub id: u64,
    pub action: std::borrow::Cow<'static, str>,
    pub parent: Option<TaskId>,
    pub cancellable: bool,
    pub headers: Vec<(String, String)>,
    /// Wall-clock start, milliseconds since the epoch.
    pub start_millis: u64,
    started: Instant,
    description: Mutex<String>,
    cancel_flag: Arc<AtomicBool>,
    /// When and why it was cancelled.
    cancelled: Mutex<Option<(u64, String)>>,
    usage: Mutex<Tracked>,
    /// The manager that runs it (children of the task register there).
    manager: Weak<TaskManager>,
    /// What the task reports as its `status` (a reindex's progress), read when listed.
    status: Mutex<Option<StatusSource>>,
}

/// The holder of a [`StatusFn`] (printed by name only).
#[derive(Clone)]
struct StatusSource(StatusFn);

impl std::fmt::Debug for StatusSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("StatusFn")
    }
}

/// A task's live `status` (see [`Task::set_status`]).
pub type StatusFn = Arc<dyn Fn() -> serde_json::Value + Send + Sync>;

thread_local! {
    /// The tasks this thread works for, innermost last (a node's child of a request that runs
    /// on the request's own thread), each with the thread's usage when it started on it.
    static CURRENT: RefCell<Vec<(Arc<Task>, Mark)>> = const { RefCell::new(Vec::new()) };
}

/// The task the calling thread works for.
pub fn current() -> Option<Arc<Task>> {
    CURRENT.try_with(|c| c.borrow().last().map(|(t, _)| t.clone())).ok().flatten()
}

/// The calling thread's id for [`thread_cpu_nanos_of`].
fn this_thread() -> libc::pthread_t {
    // SAFETY: `pthread_self` has no preconditions.
    unsafe { libc::pthread_self() }
}

/// The CPU time of a live thread of this process (0 if the OS does not say).
fn thread_cpu_nanos_of(thread: libc::pthread_t) -> u64 {
    let mut clock: libc::clockid_t = 0;
    // SAFETY: callers pass a thread that is alive (its execution is registered and it removes
    // the registration, under the same lock the caller holds, before it can end).
    if unsafe { libc::pthread_getcpuclockid(thread, &mut clock) } != 0 {
        return 0;
    }
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: `ts` is a valid, writable timespec.
    if unsafe { libc::clock_gettime(clock, &mut ts) } != 0 {
        return 0;
    }
    (ts.tv_sec as u64).saturating_mul(1_000_000_000).saturating_add(ts.tv_nsec as u64)
}

/// A task's usage: the executions that ended, and the threads working on it now.
#[derive(Debug, Default)]
struct Tracked {
    done: Usage,
    /// (thread, its CPU time when it started on the task).
    running: Vec<(libc::pthread_t, u64)>,
}

fn now_millis() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_millis() as u64)
}

impl Task {
    pub(super) fn new(id: u64, spec: TaskSpec, manager: Weak<TaskManager>) -> Task {
        Task {
            id,
            action: spec.action,
            parent: spec.parent,
            cancellable: spec.cancellable,
            headers: spec.headers,
            start_millis: now_millis(),
            started: Instant::now(),
            description: Mutex::new(spec.description),
            cancel_flag: Arc::new(AtomicBool::new(false)),
            cancelled: Mutex::new(None),
            usage: Mutex::new(Tracked::default()),
            manager,
            status: Mutex::new(None),
        }
    }

    /// The task's id (`None` once its node shut its manager down).
    pub fn task_id(&self) -> Option<TaskId> {
        self.manager.upgrade().map(|m| TaskId { node: m.node_id().to_string(), id: self.id })
    }

    /// Nanoseconds since the task started.
    pub fn running_nanos(&self) -> u64 {
        self.started.elapsed().as_nanos() as u64
    }

    /// The description `detailed=true` shows.
    pub fn description(&self) -> String {
        self.description.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// Sets the description (handlers describe their request once parsed).
    pub fn set_description(&self, d: String) {
        *self.description.lock().unwrap_or_else(|e| e.into_inner()) = d;
    }

    /// A header's value (`X-Opaque-Id`).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }

    /// Marks the task cancelled (its work stops at its next check); the first reason stays.
    pub fn cancel(&self, reason: &str) {
        let mut c = self.cancelled.lock().unwrap_or_else(|e| e.into_inner());
        if c.is_none() {
            *c = Some((now_millis(), reason.to_string()));
        }
        self.cancel_flag.store(true, Ordering::Relaxed);
    }

    /// Sets what the task reports as its `status` (OpenSearch's `Task.Status`).
    pub fn set_status(&self, f: StatusFn) {
        *self.status.lock().unwrap_or_else(|e| e.into_inner()) = Some(StatusSource(f));
    }

    /// The task's `status` now, if it reports one.
    pub fn status(&self) -> Option<serde_json::Value> {
        let f = self.status.lock().unwrap_or_else(|e| e.into_inner()).clone();
        f.map(|f| (f.0)())
    }

    /// Whether the task was cancelled.
    pub fn is_cancelled(&self) -> bool {
        self.cancel_flag.load(Ordering::Relaxed)
    }

    /// Why the task was cancelled.
    pub fn cancel_reason(&self) -> Option<String> {
        self.cancelled.lock().unwrap_or_else(|e| e.into_inner()).as_ref().map(|(_, r)| r.clone())
    }

    /// When the task was cancelled (ms since the epoch).
    pub fn cancelled_at(&self) -> Option<u64> {
        self.cancelled.lock().unwrap_or_else(|e| e.into_inner()).as_ref().map(|(t, _)| *t)
    }

    /// The flag the engine's loops read (see [`crate::engine::cancel`]).
    pub fn cancel_flag(&self) -> Arc<AtomicBool> {
        self.cancel_flag.clone()
    }

    /// The calling thread starts working for this task: until the returned guard drops, it is
    /// the thread's current task, the engine sees its cancel flag, and the thread's CPU time
    /// and allocations count for it.
    pub fn enter(self: &Arc<Self>) -> Execution {
        let start = Mark::now();
        self.usage.lock().unwrap_or_else(|e| e.into_inner()).running.push((this_thread(), start.cpu_nanos));
        let prev_flag = crate::engine::cancel::set(Some(self.cancel_flag.clone()));
        let _ = CURRENT.try_with(|c| c.borrow_mut().push((self.clone(), start)));
        Execution { prev_flag, _not_send: std::marker::PhantomData }
    }

    /// What the task's threads used: the executions that ended, and the running ones so far
    /// (the calling thread's CPU and bytes; another thread's CPU from its clock, its bytes
    /// once it ends: a thread's allocation counter is its own).
    pub fn usage(self: &Arc<Self>) -> Usage {
        let me = this_thread();
        let mine = CURRENT
            .try_with(|c| c.borrow().iter().find(|(t, _)| Arc::ptr_eq(t, self)).map(|(_, m)| m.since()))
            .ok()
            .flatten();
        let g = self.usage.lock().unwrap_or_else(|e| e.into_inner());
        let mut u = g.done.clone();
        u.active_threads = g.running.len() as u64;
        let mut mine_counted = false;
        for &(thread, cpu_start) in &g.running {
            // SAFETY: `pthread_equal` compares two thread ids.
            if !mine_counted && unsafe { libc::pthread_equal(thread, me) } != 0 {
                if let Some(m) = mine {
                    u.add(m);
                    mine_counted = true;
                    continue;
                }
            }
            let cpu = thread_cpu_nanos_of(thread).saturating_sub(cpu_start);
            u.add(Mark { cpu_nanos: cpu, bytes: 0 });
        }
        u
    }
}

/// A child task of the calling thread's current task, entered on this thread (the shard-level
/// phases of a search: `indices:data/read/search[phase/query]`); `None` without a current task.
pub fn child(action: &'static str) -> Option<Child> {
    let parent = current()?;
    let manager = parent.manager.upgrade()?;
    let guard = manager.register(TaskSpec {
        action: action.into(),
        parent: Some(TaskId { node: manager.node_id().to_string(), id: parent.id }),
        cancellable: parent.cancellable,
        headers: parent.headers.clone(),
        description: String::new(),
    });
    if parent.is_cancelled() {
        guard.task.cancel(&parent.cancel_reason().unwrap_or_default());
    }
    let working = guard.task.enter();
    Some(Child { _working: working, _guard: guard })
}

/// A running child task (see [`child`]): the execution ends, then the task.
#[derive(Debug)]
pub struct Child {
    _working: Execution,
    _guard: TaskGuard,
}

/// A thread's work for a task (see [`Task::enter`]); ends when dropped, on the thread that
/// entered (it is not `Send`).
#[derive(Debug)]
pub struct Execution {
    prev_flag: Option<Arc<AtomicBool>>,
    _not_send: std::marker::PhantomData<*const ()>,
}

impl Drop for Execution {
    fn drop(&mut self) {
        let ended = CURRENT.try_with(|c| c.borrow_mut().pop()).ok().flatten();
        crate::engine::cancel::set(self.prev_flag.take());
        if let Some((task, start)) = ended {
            let used = start.since();
            let me = this_thread();
            let mut u = task.usage.lock().unwrap_or_else(|e| e.into_inner());
            u.done.add(used);
            // SAFETY: `pthread_equal` compares two thread ids.
            if let Some(i) = u.running.iter().rposition(|(t, _)| unsafe { libc::pthread_equal(*t, me) } != 0) {
                u.running.remove(i);
            }
        }
    }
}
