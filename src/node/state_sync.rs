//! The cluster state through the coordination (server builds): publications become Raft
//! entries ([`RaftPublisher`]), and an applier thread applies every state the node's Raft
//! applies, reports the copies it started, and — on the cluster manager — reroutes when the
//! members change or delayed copies come due.

use std::future::Future;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::cluster::coordination::{Coordinator, Published};
use crate::cluster::state::{ClusterState, NextState, StatePublisher};
use crate::cluster::ClusterService;
use crate::error::{OsError, OsResult};

/// Asks a node which cluster-state version it applied (the acks of a publication).
pub const ACTION_APPLIED: &str = "internal:cluster/coordination/applied_version";

/// Publishes cluster states as Raft entries.
#[derive(Debug)]
pub struct RaftPublisher {
    coordinator: Coordinator,
    handle: tokio::runtime::Handle,
    transport: Arc<crate::transport::Transport>,
    /// The last decoded state (decoding parses every index's mapping).
    cache: Mutex<Option<Arc<ClusterState>>>,
}

/// Runs `f` to completion from synchronous code: pool threads block on the runtime; a runtime
/// worker moves its other tasks away first.
pub(crate) fn block<F: Future>(handle: &tokio::runtime::Handle, f: F) -> F::Output {
    if tokio::runtime::Handle::try_current().is_ok() {
        tokio::task::block_in_place(|| handle.block_on(f))
    } else {
        handle.block_on(f)
    }
}

impl RaftPublisher {
    pub fn new(
        coordinator: Coordinator,
        handle: tokio::runtime::Handle,
        transport: Arc<crate::transport::Transport>,
    ) -> RaftPublisher {
        RaftPublisher { coordinator, handle, transport, cache: Mutex::new(None) }
    }

    /// The cluster state of a published Raft state.
    pub fn decode(&self, p: &Published) -> OsResult<Arc<ClusterState>> {
        let index = p.last_applied.map_or(0, |l| l.index);
        let mut cache = self.cache.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(c) = cache.as_ref() {
            if c.applied_index == index && c.version == p.version {
                return Ok(c.clone());
            }
        }
        let st = match cache.as_ref() {
            // A change of the coordination's membership: the same state.
            Some(c) if c.version == p.version => ClusterState { applied_index: index, ..(**c).clone() },
            _ => ClusterState::from_published(p.version, index, &p.state)?,
        };
        let st = Arc::new(st);
        *cache = Some(st.clone());
        Ok(st)
    }

    /// The state the node's Raft applied last.
    pub fn current(&self) -> OsResult<Arc<ClusterState>> {
        self.decode(&self.coordinator.state())
    }
}

impl StatePublisher for RaftPublisher {
    fn publish(&self, next: &mut NextState<'_>) -> OsResult<Arc<ClusterState>> {
        let fut = self.coordinator.publish(|p| {
            let cur = self.decode(p)?;
            match next(&cur)? {
                None => Ok((None, ())),
                Some(s) => Ok((Some(s.to_published()), ())),
            }
        });
        let (p, ()) = block(&self.handle, fut)?;
        self.decode(&p)
    }

    fn await_applied(&self, st: &ClusterState, timeout: Duration) -> bool {
        let others: Vec<std::net::SocketAddr> = st
            .nodes
            .iter()
            .filter(|n| n.node_id != self.coordinator.local.node_id)
            .filter_map(|n| n.transport_address.parse().ok())
            .collect();
        if others.is_empty() {
            return true;
        }
        let (transport, version) = (self.transport.clone(), st.version);
        block(&self.handle, async move {
            let deadline = tokio::time::Instant::now() + timeout;
            let mut waiting = others;
            while !waiting.is_empty() {
                let mut still = Vec::new();
                for addr in waiting {
                    let r = transport.request(addr, ACTION_APPLIED, bytes::Bytes::new(), Duration::from_secs(1)).await;
                    // Unreachable: the follower checks deal with it, the ack does not wait.
                    if let Ok(b) = r {
                        let applied = std::str::from_utf8(&b).ok().and_then(|s| s.parse::<u64>().ok()).unwrap_or(0);
                        if applied < version {
                            still.push(addr);
                        }
                    }
                }
                waiting = still;
                if waiting.is_empty() {
                    return true;
                }
                if tokio::time::Instant::now() >= deadline {
                    return false;
                }
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
            true
        })
    }
}

/// Moves the node's cluster service onto the coordination: the first publication imports the
/// metadata the node holds (a node that ran alone before), then an applier thread follows the
/// Raft. Called once this node knows a cluster manager, or at once when it joins later.
pub fn attach(
    cs: &Arc<ClusterService>,
    coordinator: &Coordinator,
    transport: Arc<crate::transport::Transport>,
    handle: tokio::runtime::Handle,
    stop: Arc<AtomicBool>,
) -> OsResult<Arc<RaftPublisher>> {
    let publisher = Arc::new(RaftPublisher::new(coordinator.clone(), handle.clone(), transport));
    // What this node held on its own, as the only member.
    let local = Arc::new(ClusterState { nodes: Arc::new(vec![coordinator.local.view()]), ..(*cs.state()).clone() });
    cs.set_publisher(publisher.clone());
    let is_leader = coordinator.leader().is_some_and(|(id, _)| id == coordinator.id);
    if is_leader && coordinator.state().version == 0 {
        // Nothing published yet: this node's metadata and copies become the cluster's.
        cs.import(local.clone())?;
    }
    let mut initial = Vec::new();
    let mut retried = false;
    if coordinator.state().version > 0 {
        // A restart (or a state already here): apply it before serving; the applier thread
        // reports what it started.
        let st = publisher.current()?;
        initial = cs.apply(&st)?;
        if is_leader {
            cs.report(std::mem::take(&mut initial))?;
            cs.retry_failed_copies_here()?;
            retried = true;
        }
    }
    let (cs2, p2, c2) = (cs.clone(), publisher.clone(), coordinator.clone());
    std::thread::Builder::new()
        .name(format!("fathom[{}][clusterApplierService#updateTask][T#1]", cs.node.node_name))
        .spawn(move || applier_loop(cs2, p2, c2, local, (initial, retried), handle, stop))
        .map_err(|e| OsError::internal(format!("cannot start the cluster applier thread: {e}")))?;
    Ok(publisher)
}

/// Applies each state the Raft applies; on the cluster manager, reroutes when needed (members
/// changed, delayed copies due). Checks at least once a second; ends with `stop`.
fn applier_loop(
    cs: Arc<ClusterService>,
    publisher: Arc<RaftPublisher>,
    coordinator: Coordinator,
    local: Arc<ClusterState>,
    // What attach left to report, and whether it already retried this node's failed copies.
    (initial, mut retried): (Vec<crate::cluster::applier::ShardEvent>, bool),
    handle: tokio::runtime::Handle,
    stop: Arc<AtomicBool>,
) {
    // A task on the runtime passes the Raft's applied states on; it ends with the runtime
    // (or the coordination), and so does this thread.
    let mut rx = coordinator.subscribe();
    let (tx, states) = std::sync::mpsc::channel::<Arc<Published>>();
    handle.spawn(async move {
        loop {
            let p = rx.borrow_and_update().clone();
            if tx.send(p).is_err() {
                return;
            }
            if rx.changed().await.is_err() {
                return;
            }
        }
    });
    let mut pending = initial;
    let mut last = Arc::new(Published::default());
    while !stop.load(Ordering::Relaxed) {
        match states.recv_timeout(Duration::from_secs(1)) {
            Ok(p) => last = p,
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {}
            Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => return,
        }
        // Only the newest matters (applying reconciles, it does not replay).
        while let Ok(p) = states.try_recv() {
            last = p;
        }
        let p = last.clone();
        let leader = coordinator.leader().is_some_and(|(id, _)| id == coordinator.id);
        if p.version == 0 {
            if leader {
                if let Err(e) = cs.import(local.clone()) {
                    tracing::warn!(error = %e.reason, "publishing the first cluster state failed; retrying");
                }
            }
            continue;
        }
        let st = match publisher.decode(&p) {
            Ok(st) => st,
            Err(e) => {
                tracing::error!(error = %e.reason, "cannot decode the published cluster state");
                continue;
            }
        };
        let before = cs.state().nodes.clone();
        match cs.apply(&st) {
            Ok(events) => pending.extend(events),
            Err(e) => tracing::error!(error = %e.reason, "applying the cluster state failed"),
        }
        // Requests in flight to a node that left fail now (OpenSearch disconnects from nodes
        // the cluster state no longer lists): a primary waiting on such a replica fails it and
        // answers, instead of waiting out the request's timeout.
        for gone in before.iter().filter(|n| !st.nodes.iter().any(|m| m.node_id == n.node_id)) {
            if let Ok(addr) = gone.transport_address.parse() {
                publisher.transport.disconnect(addr);
            }
        }
        if !pending.is_empty() {
            match cs.report(pending.clone()) {
                Ok(()) => pending.clear(),
                Err(e) => {
                    tracing::warn!(error = %e.reason, "reporting shard copies to the cluster manager failed; retrying")
                }
            }
        }
        if !retried && coordinator.leader().is_some() {
            match cs.retry_failed_copies_here() {
                Ok(()) => retried = true,
                Err(e) => tracing::debug!(error = %e.reason, "retrying this node's failed copies failed; again later"),
            }
        }
        if leader {
            if let Err(e) = cs.reroute_if_needed() {
                tracing::warn!(error = %e.reason, "reroute failed; retrying");
            }
        }
    }
}
