//! tasks/: the node's task manager. Every REST request and every transport action this node
//! runs is a task: an id `{node_id}:{n}`, OpenSearch's action name, an optional parent (a task
//! on this or another node), its start time, headers (`X-Opaque-Id`), a description, whether it
//! can be cancelled, and what its threads used ([`resource`]).
//!
//! | file | holds |
//! |---|---|
//! | `mod.rs` | [`TaskManager`]: registration, lookup, cancellation (with bans on cancelled parents), waiting |
//! | `task.rs` | [`Task`], its thread executions and the current task of a thread |
//! | `resource.rs` | thread CPU clock, the counting allocator, `resource_stats` |
//! | `info.rs` | a task's `TaskInfo` JSON and the `group_by` shapes of `_tasks` |
//!
//! Registration is one lock of one of [`SHARDS`] maps (by id) and one `Arc`: a search pays a
//! few hundred nanoseconds for it (see `benches/tasks.rs`).

pub mod info;
pub mod resource;
mod task;

use std::collections::HashMap;
use std::fmt;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use crate::error::{ErrorKind, OsError, OsResult};
pub use task::{child, current, Child, Execution, StatusFn, Task};

/// How many maps the running tasks are spread over (by id).
pub const SHARDS: usize = 16;

/// The reason a cancel request gives when the user gives none (`CancelTasksRequest`).
pub const BY_USER_REQUEST: &str = "by user request";

/// A task's id: the node that runs it and its number there.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct TaskId {
    pub node: String,
    pub id: u64,
}

impl TaskId {
    /// Parses `node:id` (OpenSearch's `TaskId(String)`).
    pub fn parse(s: &str) -> OsResult<TaskId> {
        let malformed = || OsError::illegal(format!("malformed task id {s}"));
        let (node, id) = s.rsplit_once(':').ok_or_else(malformed)?;
        if node.is_empty() {
            return Err(malformed());
        }
        let id = id.parse::<u64>().map_err(|_| malformed())?;
        Ok(TaskId { node: node.to_string(), id })
    }
}

impl fmt::Display for TaskId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.node, self.id)
    }
}

/// What a new task is.
#[derive(Debug, Clone, Default)]
pub struct TaskSpec {
    pub action: std::borrow::Cow<'static, str>,
    pub parent: Option<TaskId>,
    pub cancellable: bool,
    pub headers: Vec<(String, String)>,
    pub description: String,
}

/// Which tasks a list or cancel request selects (`actions`, `parent_task_id`, a task id).
#[derive(Debug, Clone, Default)]
pub struct Filter {
    /// Action patterns (`*` wildcards); empty selects every action.
    pub actions: Vec<String>,
    pub parent: Option<TaskId>,
    /// Only this task (of this node).
    pub id: Option<u64>,
}

impl Filter {
    /// Whether `t` is selected.
    pub fn matches(&self, t: &Task) -> bool {
        (self.actions.is_empty() || self.actions.iter().any(|p| crate::cluster::resolve::glob(p, &t.action)))
            && self.parent.as_ref().is_none_or(|p| t.parent.as_ref() == Some(p))
            && self.id.is_none_or(|id| id == t.id)
    }
}

/// The running tasks of one node.
#[derive(Debug)]
pub struct TaskManager {
    node_id: String,
    next: AtomicU64,
    shards: [Mutex<HashMap<u64, Arc<Task>>>; SHARDS],
    /// Cancelled parents (`node:id` → reason, when): a child that registers under one starts
    /// cancelled (OpenSearch's bans of `TaskCancellationService`).
    bans: Mutex<HashMap<TaskId, (String, Instant)>>,
    ban_count: AtomicUsize,
    /// Bumped and notified whenever a task ends (waits for completion watch it).
    ended: Mutex<u64>,
    ended_cv: Condvar,
    /// Threads in [`TaskManager::wait_for`]: an ending task wakes them only when there are any
    /// (a notify is a futex syscall, and every request ends tasks).
    waiters: AtomicUsize,
    /// Told of every task that ends (search backpressure counts completions and learns the
    /// heap a finished search used).
    on_end: std::sync::OnceLock<OnEnd>,
}

/// A function told of every task that ends, with the task.
pub type EndListener = Box<dyn Fn(&Arc<Task>) + Send + Sync>;

struct OnEnd(EndListener);

impl fmt::Debug for OnEnd {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("OnEnd")
    }
}

/// How long a ban on a cancelled parent lasts when nothing lifts it.
const BAN_TTL: Duration = Duration::from_secs(60);

impl TaskManager {
    /// The task manager of node `node_id`.
    pub fn new(node_id: &str) -> TaskManager {
        TaskManager {
            node_id: node_id.to_string(),
            next: AtomicU64::new(1),
            shards: std::array::from_fn(|_| Mutex::new(HashMap::new())),
            bans: Mutex::new(HashMap::new()),
            ban_count: AtomicUsize::new(0),
            ended: Mutex::new(0),
            ended_cv: Condvar::new(),
            waiters: AtomicUsize::new(0),
            on_end: std::sync::OnceLock::new(),
        }
    }

    /// This node's id.
    pub fn node_id(&self) -> &str {
        &self.node_id
    }

    fn shard(&self, id: u64) -> &Mutex<HashMap<u64, Arc<Task>>> {
        &self.shards[(id as usize) % SHARDS]
    }

    /// Registers a task; it ends when the returned guard drops.
    pub fn register(self: &Arc<Self>, spec: TaskSpec) -> TaskGuard {
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        let task = Arc::new(Task::new(id, spec, Arc::downgrade(self)));
        if self.ban_count.load(Ordering::Relaxed) > 0 {
            if let Some(p) = &task.parent {
                let reason = self.bans.lock().unwrap_or_else(|e| e.into_inner()).get(p).map(|(r, _)| r.clone());
                if let Some(r) = reason {
                    task.cancel(&format!("The parent task was cancelled, shouldn't start any child tasks, {r}"));
                }
            }
        }
        self.shard(id).lock().unwrap_or_else(|e| e.into_inner()).insert(id, task.clone());
        TaskGuard { manager: self.clone(), task }
    }

    /// Sets the function told of every task that ends (once; a second call is ignored).
    pub fn set_on_end(&self, f: EndListener) {
        let _ = self.on_end.set(OnEnd(f));
    }

    fn unregister(&self, id: u64) {
        let removed = self.shard(id).lock().unwrap_or_else(|e| e.into_inner()).remove(&id);
        if let (Some(t), Some(f)) = (&removed, self.on_end.get()) {
            (f.0)(t);
        }
        if let Some(t) = removed {
            if t.is_cancelled() && self.ban_count.load(Ordering::Relaxed) > 0 {
                let key = TaskId { node: self.node_id.clone(), id };
                let mut bans = self.bans.lock().unwrap_or_else(|e| e.into_inner());
                if bans.remove(&key).is_some() {
                    self.ban_count.store(bans.len(), Ordering::Relaxed);
                }
            }
        }
        let mut n = self.ended.lock().unwrap_or_else(|e| e.into_inner());
        *n = n.wrapping_add(1);
        // Waiters register under `ended`, which this thread holds: none is missed.
        let waiting = self.waiters.load(Ordering::Relaxed) > 0;
        drop(n);
        if waiting {
            self.ended_cv.notify_all();
        }
    }

    /// A running task of this node.
    pub fn get(&self, id: u64) -> Option<Arc<Task>> {
        self.shard(id).lock().unwrap_or_else(|e| e.into_inner()).get(&id).cloned()
    }

    /// The running tasks `filter` selects, by id.
    pub fn list(&self, filter: &Filter) -> Vec<Arc<Task>> {
        let mut out: Vec<Arc<Task>> = Vec::new();
        for s in &self.shards {
            out.extend(s.lock().unwrap_or_else(|e| e.into_inner()).values().filter(|t| filter.matches(t)).cloned());
        }
        out.sort_by_key(|t| t.id);
        out
    }

    /// Cancels the cancellable tasks `filter` selects and bans their ids as parents, so their
    /// children here (running or still to come) are cancelled too; returns the tasks cancelled.
    pub fn cancel(&self, filter: &Filter, reason: &str) -> Vec<Arc<Task>> {
        let picked: Vec<Arc<Task>> = self.list(filter).into_iter().filter(|t| t.cancellable).collect();
        for t in &picked {
            t.cancel(reason);
            self.ban(&TaskId { node: self.node_id.clone(), id: t.id }, reason);
        }
        picked
    }

    /// Bans `parent`: its running children here are cancelled, and children that register
    /// later start cancelled. Returns how many running children were cancelled.
    pub fn ban(&self, parent: &TaskId, reason: &str) -> usize {
        {
            let mut bans = self.bans.lock().unwrap_or_else(|e| e.into_inner());
            bans.retain(|_, (_, at)| at.elapsed() < BAN_TTL);
            bans.insert(parent.clone(), (reason.to_string(), Instant::now()));
            self.ban_count.store(bans.len(), Ordering::Relaxed);
        }
        let children = self.list(&Filter { parent: Some(parent.clone()), ..Filter::default() });
        let msg = format!("The parent task was cancelled, shouldn't start any child tasks, {reason}");
        for c in &children {
            c.cancel(&msg);
        }
        children.len()
    }

    /// Waits until task `id` of this node ends or `timeout` passes; `Ok` once it ended (or was
    /// not running), a `timeout_exception` on timeout.
    pub fn wait_for(&self, id: u64, timeout: Duration) -> OsResult<()> {
        let until = Instant::now() + timeout;
        let mut n = self.ended.lock().unwrap_or_else(|e| e.into_inner());
        self.waiters.fetch_add(1, Ordering::Relaxed);
        let r = loop {
            if self.get(id).is_none() {
                break Ok(());
            }
            let now = Instant::now();
            if now >= until {
                break Err(OsError::new(
                    ErrorKind::Timeout,
                    format!("Timed out waiting for completion of [{}:{id}]", self.node_id),
                ));
            }
            n = self.ended_cv.wait_timeout(n, until - now).unwrap_or_else(|e| e.into_inner()).0;
        };
        self.waiters.fetch_sub(1, Ordering::Relaxed);
        drop(n);
        r
    }
}

/// A registered task; dropping it ends the task.
#[derive(Debug)]
pub struct TaskGuard {
    manager: Arc<TaskManager>,
    pub task: Arc<Task>,
}

impl TaskGuard {
    /// The task's id.
    pub fn id(&self) -> TaskId {
        TaskId { node: self.manager.node_id.clone(), id: self.task.id }
    }
}

impl Drop for TaskGuard {
    fn drop(&mut self) {
        self.manager.unregister(self.task.id);
    }
}

/// Whether tasks of `action` can be cancelled (OpenSearch's `CancellableTask`s: searches,
/// by-query and reindex, node-level statistics).
pub fn cancellable(action: &str) -> bool {
    action.starts_with("indices:data/read/search")
        || action.starts_with("indices:data/read/msearch")
        || action.starts_with("indices:data/read/scroll")
        || action.ends_with("/byquery")
        || action == "indices:data/write/reindex"
        || action.starts_with("cluster:monitor/nodes/stats")
}

/// The error a cancelled task's work answers (`TaskCancelledException`).
pub fn cancelled_error(reason: &str) -> OsError {
    OsError::new(ErrorKind::TaskCancelled, format!("task cancelled [{reason}]"))
}

/// `Err(task_cancelled_exception)` when the current task of this thread was cancelled: long
/// work (by-query, reindex, a search's phases) calls it between units of work.
pub fn check_cancelled() -> OsResult<()> {
    match current() {
        Some(t) if t.is_cancelled() => Err(cancelled_error(&t.cancel_reason().unwrap_or_default())),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests;
