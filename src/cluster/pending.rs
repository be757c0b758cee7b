//! The cluster-state updates this node has submitted and not yet applied (OpenSearch's pending
//! cluster tasks, `_cluster/pending_tasks`). Fathom has no single queue on the cluster manager:
//! every node proposes its updates to the coordination itself, so each node knows the updates it
//! is waiting on. An update counts from its submission until this node applied its result;
//! `executing` once its change was computed against a current state (it is being published).

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

thread_local! {
    /// What the update this thread submits next is for (set by [`source`]).
    static SOURCE: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// Names the updates the calling thread submits until the guard drops (OpenSearch's task
/// source, e.g. `create-index [logs], cause [api]`).
pub fn source(s: impl Into<String>) -> SourceGuard {
    let prev = SOURCE.with(|c| c.replace(Some(s.into())));
    SourceGuard(prev)
}

/// Restores the previous source when dropped.
#[derive(Debug)]
pub struct SourceGuard(Option<String>);

impl Drop for SourceGuard {
    fn drop(&mut self) {
        let prev = self.0.take();
        SOURCE.with(|c| *c.borrow_mut() = prev);
    }
}

/// One update waiting to be applied.
#[derive(Debug, Clone)]
pub struct PendingTask {
    pub insert_order: u64,
    /// OpenSearch's `Priority` name.
    pub priority: &'static str,
    pub source: String,
    pub executing: bool,
    pub time_in_queue: Duration,
    /// Epoch millis of the submission.
    pub queued_at_millis: i64,
}

#[derive(Debug)]
struct Entry {
    priority: &'static str,
    source: String,
    executing: bool,
    queued: Instant,
    queued_at_millis: i64,
}

/// The node's submitted, not yet applied updates.
#[derive(Debug, Default)]
pub struct Pending {
    next: AtomicU64,
    tasks: Mutex<BTreeMap<u64, Entry>>,
}

impl Pending {
    /// Records an update submitted now; it leaves the list when the guard drops.
    pub fn submit(self: &Arc<Self>, priority: &'static str, default_source: &str) -> Submitted {
        let order = self.next.fetch_add(1, Ordering::Relaxed);
        let source = SOURCE.with(|c| c.borrow().clone()).unwrap_or_else(|| default_source.to_string());
        let e = Entry {
            priority,
            source,
            executing: false,
            queued: Instant::now(),
            queued_at_millis: crate::clock::now_millis(),
        };
        self.tasks.lock().unwrap_or_else(|e| e.into_inner()).insert(order, e);
        Submitted { pending: self.clone(), order }
    }

    /// The updates waiting, oldest first.
    pub fn list(&self) -> Vec<PendingTask> {
        self.tasks
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .iter()
            .map(|(o, e)| PendingTask {
                insert_order: *o,
                priority: e.priority,
                source: e.source.clone(),
                executing: e.executing,
                time_in_queue: e.queued.elapsed(),
                queued_at_millis: e.queued_at_millis,
            })
            .collect()
    }
}

/// An update in the list until dropped.
#[derive(Debug)]
pub struct Submitted {
    pending: Arc<Pending>,
    order: u64,
}

impl Submitted {
    /// Its change is being computed and published.
    pub fn executing(&self) {
        if let Some(e) = self.pending.tasks.lock().unwrap_or_else(|e| e.into_inner()).get_mut(&self.order) {
            e.executing = true;
        }
    }
}

impl Drop for Submitted {
    fn drop(&mut self) {
        self.pending.tasks.lock().unwrap_or_else(|e| e.into_inner()).remove(&self.order);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn updates_are_listed_until_applied() {
        let p = Arc::new(Pending::default());
        let a = p.submit("URGENT", "shard-started");
        let b = {
            let _s = source("create-index [x], cause [api]");
            p.submit("NORMAL", "update")
        };
        let c = p.submit("NORMAL", "update");
        b.executing();
        let l = p.list();
        assert_eq!(l.len(), 3);
        assert_eq!((l[0].insert_order, l[0].priority, l[0].source.as_str()), (0, "URGENT", "shard-started"));
        assert_eq!((l[1].source.as_str(), l[1].executing), ("create-index [x], cause [api]", true));
        assert_eq!((l[2].source.as_str(), l[2].executing), ("update", false));
        drop(a);
        drop(b);
        assert_eq!(p.list().iter().map(|t| t.insert_order).collect::<Vec<_>>(), [2]);
        drop(c);
        assert!(p.list().is_empty());
    }
}
