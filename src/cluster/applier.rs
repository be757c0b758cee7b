//! Applying cluster states on this node (OpenSearch's `ClusterApplierService` and
//! `IndicesClusterStateService`): each applied state is reconciled with what the node holds —
//! an index service for every open index, the copies the routing table assigns here opened, the
//! others closed, deleted indices' files removed — and the node reports the copies it started
//! or failed to open back to the cluster manager, as a publication.
//!
//! Applying is idempotent and may skip versions: it compares the wanted copies with the held
//! ones, never replays a history.

use std::sync::Arc;
use std::time::{Duration, Instant};

use super::allocation;
use super::coordination_view::MemberView;
use super::index_service::IndexService;
use super::indices::ClusterService;
use super::metadata::{IndexState, Metadata};
use super::routing_table::{RecoverySource, RoutingTable, ShardState};
use super::state::{ClusterState, NextState};
use super::state_file;
use crate::error::OsResult;

/// What the node tells the cluster manager after applying a state.
#[derive(Debug, Clone, PartialEq)]
pub enum ShardEvent {
    Started { index: String, shard: u32, allocation_id: String },
    Failed { index: String, shard: u32, allocation_id: String, reason: String },
}

/// The allocation nodes of a state's members.
pub fn alloc_nodes(st: &ClusterState) -> Vec<allocation::AllocNode> {
    st.nodes
        .iter()
        .map(|m| allocation::AllocNode {
            id: m.node_id.clone(),
            name: m.name.clone(),
            host: m.transport_address.rsplit_once(':').map_or(m.transport_address.clone(), |(h, _)| h.to_string()),
            transport_address: m.transport_address.clone(),
            roles: m.roles.clone(),
            attributes: m.attributes.iter().cloned().collect(),
        })
        .collect()
}

/// The metadata with the exclusions `{node_id: "_absent_", node_name: <name>}` of the joining
/// cluster-manager-eligible nodes given their ids, or `None` when none matches.
fn fill_in_absent_exclusions(md: &Metadata, joined: &[&MemberView]) -> Option<Metadata> {
    use super::operations_metadata::{VotingConfigExclusion, ABSENT};
    let eligible = |m: &MemberView| m.roles.iter().any(|r| r == "cluster_manager" || r == "master");
    let mut out: Option<Metadata> = None;
    for j in joined.iter().filter(|j| eligible(j)) {
        let absent = VotingConfigExclusion { node_id: ABSENT.to_string(), node_name: j.name.clone() };
        let list = &out.as_ref().unwrap_or(md).coordination.voting_config_exclusions;
        let Some(i) = list.iter().position(|e| *e == absent) else { continue };
        let next = out.get_or_insert_with(|| md.clone());
        let named = VotingConfigExclusion { node_id: j.node_id.clone(), node_name: j.name.clone() };
        let excl = &mut next.coordination.voting_config_exclusions;
        if excl.contains(&named) {
            excl.remove(i);
        } else {
            excl[i] = named;
        }
    }
    if let Some(m) = out.as_mut() {
        m.version += 1;
    }
    out
}

/// Most publications one call makes to report started copies (each report may start more).
const MAX_REPORT_ROUNDS: usize = 16;

impl ClusterService {
    /// The next state after `cur` with metadata `md`: the routing table rerouted over the
    /// members.
    pub(super) fn rerouted(&self, cur: &ClusterState, md: Arc<Metadata>) -> ClusterState {
        let routing = allocation::reroute(
            &cur.routing,
            &md,
            &alloc_nodes(cur),
            &self.cluster_settings(&md),
            crate::clock::now_millis(),
            &mut super::indices::new_uuid,
        );
        ClusterState { metadata: md, routing: Arc::new(routing), ..cur.clone() }
    }

    /// Publishes what `next` computes, applies the result here, then reports the copies that
    /// started or failed (more publications) until nothing is left to report.
    pub(super) fn publish(&self, next: &mut NextState<'_>) -> OsResult<Arc<ClusterState>> {
        let publisher = self.publisher();
        let task = self.pending.submit("NORMAL", "cluster-state-update");
        let st = publisher.publish(&mut |cur| {
            task.executing();
            next(cur)
        })?;
        let events = self.apply(&st)?;
        self.report(events)?;
        Ok(self.state())
    }

    /// The first publication of a coordination that has none: `local` (the metadata and
    /// copies this node held on its own) becomes the cluster's state.
    pub fn import(&self, local: Arc<ClusterState>) -> OsResult<()> {
        let _source = super::pending::source("import-local-cluster-state");
        self.publish(&mut |cur| {
            if cur.version != 0 {
                return Ok(None);
            }
            let interim = ClusterState { routing: local.routing.clone(), nodes: local.nodes.clone(), ..cur.clone() };
            Ok(Some(self.rerouted(&interim, local.metadata.clone())))
        })?;
        Ok(())
    }

    /// Publishes a rerouted routing table if it differs from the current one (the cluster
    /// manager calls it when members change and now and then for delayed copies).
    pub fn reroute_if_needed(&self) -> OsResult<()> {
        let _source = super::pending::source("reroute");
        self.publish(&mut |cur| {
            if cur.version == 0 {
                return Ok(None);
            }
            let next = self.rerouted(cur, cur.metadata.clone());
            Ok((next.routing != cur.routing).then_some(next))
        })?;
        Ok(())
    }

    /// A node that starts again gets its copies that failed retried (their failed allocation
    /// count starts over), as OpenSearch's full-cluster restart recovers every copy afresh: an
    /// operator who repaired a copy restarts the node.
    pub fn retry_failed_copies_here(&self) -> OsResult<()> {
        let me = self.node.node_id.clone();
        let _source = super::pending::source("retry-failed-copies");
        self.publish(&mut |cur| {
            if cur.version == 0 {
                return Ok(None);
            }
            let mut rt: RoutingTable = (*cur.routing).clone();
            let mut changed = false;
            for ir in rt.indices.values_mut() {
                for st in &mut ir.shards {
                    for c in st.copies.iter_mut().filter(|c| c.state == ShardState::Unassigned) {
                        if let Some(u) = c.unassigned.as_mut() {
                            if u.failed_attempts > 0 && u.last_node.as_deref() == Some(me.as_str()) {
                                u.failed_attempts = 0;
                                changed = true;
                            }
                        }
                    }
                }
            }
            if !changed {
                return Ok(None);
            }
            let interim = ClusterState { routing: Arc::new(rt), ..cur.clone() };
            Ok(Some(self.rerouted(&interim, cur.metadata.clone())))
        })?;
        Ok(())
    }

    /// Publishes the nodes `join` added to and `leave` removed from the cluster state, with the
    /// routing that follows (the copies of a node that left are rerouted). A joining
    /// cluster-manager-eligible node fills in the id of a voting configuration exclusion that
    /// named it while it was absent, in the same state (OpenSearch's `JoinTaskExecutor`).
    pub fn change_nodes(&self, join: &[MemberView], leave: &[String]) -> OsResult<()> {
        let names: Vec<&str> = join.iter().map(|m| m.name.as_str()).collect();
        let _source = super::pending::source(format!("node-join{names:?}, node-left{leave:?}"));
        self.publish(&mut |cur| {
            let mut nodes: Vec<MemberView> =
                cur.nodes.iter().filter(|n| !leave.contains(&n.node_id)).cloned().collect();
            let mut joined = Vec::new();
            for j in join {
                if !nodes.iter().any(|n| n.node_id == j.node_id) {
                    nodes.push(j.clone());
                    joined.push(j);
                }
            }
            nodes.sort_by(|a, b| a.node_id.cmp(&b.node_id));
            if nodes == *cur.nodes {
                return Ok(None);
            }
            let md = match fill_in_absent_exclusions(&cur.metadata, &joined) {
                Some(md) => Arc::new(md),
                None => cur.metadata.clone(),
            };
            let interim = ClusterState { nodes: Arc::new(nodes), ..cur.clone() };
            Ok(Some(self.rerouted(&interim, md)))
        })?;
        Ok(())
    }

    /// Publishes shard events (started or failed copies), and those the resulting states cause.
    pub fn report(&self, mut events: Vec<ShardEvent>) -> OsResult<()> {
        for _ in 0..MAX_REPORT_ROUNDS {
            if events.is_empty() {
                return Ok(());
            }
            let publisher = self.publisher();
            // OpenSearch runs shard-started and shard-failed updates as URGENT.
            let task = self.pending.submit("URGENT", "shard-started/shard-failed");
            let st = publisher.publish(&mut |cur| {
                task.executing();
                let now = crate::clock::now_millis();
                let mut rt: RoutingTable = (*cur.routing).clone();
                let mut changed = false;
                for e in &events {
                    let r = match e {
                        ShardEvent::Started { index, shard, allocation_id } => {
                            allocation::shard_started(&rt, index, *shard, allocation_id)
                        }
                        ShardEvent::Failed { index, shard, allocation_id, reason } => {
                            allocation::shard_failed(&rt, index, *shard, allocation_id, reason, now)
                        }
                    };
                    // A stale event (the copy moved on) changes nothing.
                    if let Ok(t) = r {
                        rt = t;
                        changed = true;
                    }
                }
                if !changed {
                    return Ok(None);
                }
                let interim = ClusterState { routing: Arc::new(rt), ..cur.clone() };
                Ok(Some(self.rerouted(&interim, cur.metadata.clone())))
            })?;
            events = self.apply(&st)?;
        }
        Ok(())
    }

    /// Applies `st` on this node (skipped when this node applied it or a newer one) and returns
    /// what to report.
    pub fn apply(&self, st: &Arc<ClusterState>) -> OsResult<Vec<ShardEvent>> {
        let mut applied = self.applied.lock().unwrap_or_else(|e| e.into_inner());
        if st.applied_index <= applied.version && applied.version != 0 {
            return Ok(Vec::new());
        }
        // Files are deleted only between two states of one publisher's history (never against
        // what the node loaded from disk before the coordination caught it up).
        let same_history = applied.version != 0;
        let prev = self.state();
        let md_changed = !Arc::ptr_eq(&prev.metadata, &st.metadata)
            && (prev.metadata.version != st.metadata.version
                || prev.metadata.cluster_uuid != st.metadata.cluster_uuid
                || prev.metadata.indices.len() != st.metadata.indices.len());
        if md_changed || applied.gen == 0 {
            // The state file first: the directories of a new index exist only once the
            // metadata that names it is on disk (the startup's dangling check relies on it).
            state_file::store(&self.state_dir, applied.gen + 1, &st.metadata.to_state_json())?;
            applied.gen += 1;
        }
        *self.state.write().unwrap_or_else(|e| e.into_inner()) = st.clone();
        applied.version = st.applied_index;
        let settings_changed = prev.metadata.persistent_settings != st.metadata.persistent_settings
            || prev.metadata.transient_settings != st.metadata.transient_settings;
        if settings_changed || !same_history {
            super::logging::apply(&self.cluster_settings(&st.metadata));
        }
        let events = self.reconcile(&prev, st, same_history);
        self.applied_cv.notify_all();
        Ok(events)
    }

    /// Opens, updates and closes index services and copies to match `st`.
    fn reconcile(&self, prev: &ClusterState, st: &ClusterState, same_history: bool) -> Vec<ShardEvent> {
        let me = self.node.node_id.as_str();
        let mut events = Vec::new();
        for (name, m) in &st.metadata.indices {
            if m.state != IndexState::Open {
                continue;
            }
            let existing = self.services.read().unwrap_or_else(|e| e.into_inner()).get(name).cloned();
            let svc = match existing {
                Some(s) if s.uuid == m.uuid => {
                    if !Arc::ptr_eq(&s.metadata(), m) && *s.metadata() != **m {
                        s.set_metadata(m.clone());
                    }
                    s
                }
                other => {
                    if let Some(old) = other {
                        old.close();
                    }
                    match IndexService::build(
                        m.clone(),
                        self.index_dir(&m.uuid),
                        Some(super::index_service::Hook(self.copy_failed_reporter())),
                    ) {
                        Ok(s) => {
                            let s = Arc::new(s);
                            self.services.write().unwrap_or_else(|e| e.into_inner()).insert(name.clone(), s.clone());
                            s
                        }
                        Err(e) => {
                            tracing::error!(index = %name, error = %e.reason, "cannot build the index service");
                            continue;
                        }
                    }
                }
            };
            let Some(ir) = st.routing.indices.get(name).filter(|ir| ir.uuid == m.uuid) else { continue };
            for table in &ir.shards {
                let mine = table.assigned_on(me).filter(|c| c.state != ShardState::Unassigned);
                let held = svc.held(table.id);
                match (mine, held) {
                    (None, Some(_)) => {
                        svc.close_shard(table.id);
                        svc.drop_recovering(table.id);
                    }
                    (None, None) => {
                        svc.open_failures.write().unwrap_or_else(|e| e.into_inner()).retain(|f| f.id != table.id);
                        svc.drop_recovering(table.id);
                    }
                    (Some(c), held) => {
                        let Some(aid) = c.allocation_id.clone() else { continue };
                        let held_same = held.as_ref().filter(|h| h.allocation_id == aid);
                        if let Some(h) = held_same {
                            if c.primary && !c.is_relocation_target() {
                                if c.state == ShardState::Started {
                                    // A relocation that was cancelled after the handoff.
                                    h.handoff.resume();
                                }
                                self.follow_as_primary(h, table);
                            } else if table.primary_term > h.replication.term() {
                                // A new primary: this copy may hold operations it never got
                                // (or lack some); it recovers again from the new primary.
                                svc.close_shard(table.id);
                                events.push(ShardEvent::Failed {
                                    index: name.clone(),
                                    shard: table.id,
                                    allocation_id: aid.clone(),
                                    reason: format!(
                                        "primary term raised to [{}]: recovering from the new primary",
                                        table.primary_term
                                    ),
                                });
                                continue;
                            }
                        } else {
                            if held.is_some() {
                                svc.close_shard(table.id);
                            }
                            if c.recovery_source == Some(RecoverySource::Peer) {
                                self.start_peer_recovery(&svc, table, &aid);
                                continue;
                            }
                            if let Err(reason) = svc.open_shard(table.id, &aid, table.primary_term, c.primary) {
                                events.push(ShardEvent::Failed {
                                    index: name.clone(),
                                    shard: table.id,
                                    allocation_id: aid.clone(),
                                    reason,
                                });
                                continue;
                            }
                            if let Some(h) = svc.held(table.id).filter(|_| c.primary) {
                                self.follow_as_primary(&h, table);
                            }
                        }
                        if c.state == ShardState::Initializing {
                            events.push(ShardEvent::Started {
                                index: name.clone(),
                                shard: table.id,
                                allocation_id: aid,
                            });
                        }
                    }
                }
            }
        }
        let assigned = |aid: &str| st.routing.indices.values().flat_map(|ir| &ir.shards).any(|t| t.has_allocation(aid));
        self.recoveries.prune(&assigned);
        // Services of indices that are gone or closed.
        let stale: Vec<Arc<IndexService>> = {
            let mut services = self.services.write().unwrap_or_else(|e| e.into_inner());
            let names: Vec<String> = services
                .iter()
                .filter(|(n, s)| {
                    !st.metadata.indices.get(*n).is_some_and(|m| m.uuid == s.uuid && m.state == IndexState::Open)
                })
                .map(|(n, _)| n.clone())
                .collect();
            names.into_iter().filter_map(|n| services.remove(&n)).collect()
        };
        for s in stale {
            s.close();
        }
        // Files of indices deleted by this state (known to the previous one, absent now).
        for m in prev.metadata.indices.values().filter(|_| same_history) {
            if !st.metadata.indices.values().any(|x| x.uuid == m.uuid) {
                if let Err(e) = std::fs::remove_dir_all(self.index_dir(&m.uuid)) {
                    if e.kind() != std::io::ErrorKind::NotFound {
                        tracing::warn!(index = %m.name, error = %e, "could not delete index files");
                    }
                }
            }
        }
        events
    }

    /// A primary held here follows the routing table: a promotion raises its term, its
    /// replication group follows the assigned copies.
    fn follow_as_primary(&self, h: &Arc<super::index_service::IndexShard>, table: &super::routing_table::ShardTable) {
        if !h.replication.is_primary() || table.primary_term > h.engine.term() {
            if let Err(e) = h.engine.raise_primary_term(table.primary_term) {
                tracing::error!(index = %h.index, shard = h.id, error = %e, "cannot raise the primary term");
                return;
            }
            if let Err(e) = h.engine.fill_seq_no_gaps() {
                tracing::error!(index = %h.index, shard = h.id, error = %e, "cannot fill the sequence number gaps");
                return;
            }
            h.replication.promote(table.primary_term);
        }
        h.replication.follow_table(table, &self.node.node_id);
        h.update_global_checkpoint();
    }

    /// Starts the peer recovery of this node's copy `aid` once the primary is active.
    fn start_peer_recovery(&self, svc: &Arc<IndexService>, table: &super::routing_table::ShardTable, aid: &str) {
        let Some(source) = table.primary().filter(|p| p.active()).and_then(|p| p.node.clone()) else { return };
        if source == self.node.node_id {
            return;
        }
        let Some(me) = self.me.get().and_then(std::sync::Weak::upgrade) else { return };
        let job = super::peer_recovery::target::Job {
            svc: svc.clone(),
            shard: table.id,
            allocation_id: aid.to_string(),
            source_node: source,
            primary_term: table.primary_term,
        };
        super::peer_recovery::target::spawn(&me, job);
    }

    /// Reports a copy whose engine failed while running, from a thread of its own (the
    /// failure is found deep inside a write or a search).
    fn copy_failed_reporter(&self) -> super::index_service::CopyFailed {
        let me = self.me.get().cloned().unwrap_or_default();
        Arc::new(move |index: &str, shard: u32, allocation_id: &str, reason: &str| {
            let Some(cs) = me.upgrade() else { return };
            let ev = ShardEvent::Failed {
                index: index.to_string(),
                shard,
                allocation_id: allocation_id.to_string(),
                reason: reason.to_string(),
            };
            let spawned = std::thread::Builder::new().name("fathom[shard-failed]".into()).spawn(move || {
                if let Err(e) = cs.report(vec![ev]) {
                    tracing::warn!(error = %e.reason, "reporting a failed shard copy failed");
                }
            });
            if let Err(e) = spawned {
                tracing::warn!(error = %e, "cannot start the thread reporting a failed shard copy");
            }
        })
    }

    /// Waits (at most `timeout`) until every primary of each of `indices` is active; whether
    /// they are (`shards_acknowledged` of create and open).
    pub fn wait_for_primaries(&self, indices: &[String], timeout: Duration) -> bool {
        self.wait_for_state(timeout, |st| {
            indices.iter().all(|n| {
                st.routing.indices.get(n).is_some_and(|ir| {
                    ir.shards.iter().all(|t| t.primary().is_some_and(super::routing_table::ShardCopy::active))
                })
            })
        })
    }

    /// Waits until the applied state satisfies `done`, at most `timeout`; returns whether it did.
    pub fn wait_for_state(&self, timeout: Duration, done: impl Fn(&ClusterState) -> bool) -> bool {
        let deadline = Instant::now() + timeout;
        let mut applied = self.applied.lock().unwrap_or_else(|e| e.into_inner());
        loop {
            if done(&self.state()) {
                return true;
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return false;
            }
            applied = self.applied_cv.wait_timeout(applied, left).unwrap_or_else(|e| e.into_inner()).0;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cluster::operations_metadata::VotingConfigExclusion;

    fn excl(id: &str, name: &str) -> VotingConfigExclusion {
        VotingConfigExclusion { node_id: id.into(), node_name: name.into() }
    }

    fn member(id: &str, name: &str, roles: &[&str]) -> MemberView {
        MemberView {
            node_id: id.into(),
            name: name.into(),
            roles: roles.iter().map(|r| r.to_string()).collect(),
            ..Default::default()
        }
    }

    #[test]
    fn a_joining_eligible_node_fills_in_its_absent_exclusion() {
        let mut md = Metadata::default();
        md.coordination.voting_config_exclusions =
            vec![excl("_absent_", "n1"), excl("id9", "_absent_"), excl("_absent_", "n2")];
        let n1 = member("id1", "n1", &["cluster_manager", "data"]);
        let n2 = member("id2", "n2", &["data"]);
        let next = fill_in_absent_exclusions(&md, &[&n1, &n2]).expect("changed");
        assert_eq!(
            next.coordination.voting_config_exclusions,
            vec![excl("id1", "n1"), excl("id9", "_absent_"), excl("_absent_", "n2")],
            "only the eligible node's name is filled in; id-only exclusions keep their `_absent_` name"
        );
        assert_eq!(next.version, md.version + 1);
        // Nothing to fill in: no change.
        assert!(fill_in_absent_exclusions(&next, &[&n1]).is_none());
        // The filled-in exclusion is already there: the absent one merges into it.
        md.coordination.voting_config_exclusions = vec![excl("_absent_", "n1"), excl("id1", "n1")];
        let next = fill_in_absent_exclusions(&md, &[&n1]).expect("changed");
        assert_eq!(next.coordination.voting_config_exclusions, vec![excl("id1", "n1")]);
    }
}
