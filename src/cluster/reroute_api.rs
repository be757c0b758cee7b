//! `_cluster/reroute` on the cluster state (OpenSearch's `TransportClusterRerouteAction` with
//! `AllocationService.reroute(state, commands, explain, retryFailed)`): the failed allocation
//! counters reset when asked, the commands run in order on the routing table, then the regular
//! reroute; published unless it is a dry run.

use std::sync::Arc;

use serde_json::Value;

use super::allocation::{self, Command, CommandError};
use super::applier::alloc_nodes;
use super::routing_table::RoutingTable;
use super::state::ClusterState;
use super::ClusterService;
use crate::error::{OsError, OsResult};

/// What a reroute request produced.
#[derive(Debug, Clone)]
pub struct RerouteOutcome {
    /// The routing table after the commands and the reroute (not published on a dry run).
    pub routing: Arc<RoutingTable>,
    /// One explanation per command (`RerouteExplanation`).
    pub explanations: Vec<Value>,
}

fn command_error(e: CommandError) -> OsError {
    match e {
        CommandError::Illegal(m) => OsError::illegal(m),
        CommandError::IndexNotFound(i) => OsError::index_not_found(&i),
    }
}

impl ClusterService {
    /// The next state: `commands` applied to `cur`'s table, then rerouted.
    fn with_commands(
        &self,
        cur: &ClusterState,
        commands: &[Command],
        explain: bool,
        retry_failed: bool,
    ) -> OsResult<(ClusterState, Vec<Value>)> {
        let mut rt = (*cur.routing).clone();
        if retry_failed {
            allocation::reset_failed_counters(&mut rt);
        }
        let nodes = alloc_nodes(cur);
        let settings = self.cluster_settings(&cur.metadata);
        let now = crate::clock::now_millis();
        let mut explanations = Vec::new();
        for c in commands {
            let done = allocation::execute_command(
                &mut rt,
                &cur.metadata,
                &nodes,
                &settings,
                c,
                explain,
                now,
                &mut super::indices::new_uuid,
            )
            .map_err(command_error)?;
            explanations.push(done.explanation);
        }
        let interim = ClusterState { routing: Arc::new(rt), ..cur.clone() };
        Ok((self.rerouted(&interim, cur.metadata.clone()), explanations))
    }

    /// Runs a reroute request; on a dry run nothing is published.
    pub fn reroute_commands(
        &self,
        commands: &[Command],
        dry_run: bool,
        explain: bool,
        retry_failed: bool,
    ) -> OsResult<RerouteOutcome> {
        if dry_run {
            let (st, explanations) = self.with_commands(&self.state(), commands, explain, retry_failed)?;
            return Ok(RerouteOutcome { routing: st.routing, explanations });
        }
        let mut explanations = Vec::new();
        self.publish(&mut |cur| {
            let (next, ex) = self.with_commands(cur, commands, explain, retry_failed)?;
            explanations = ex;
            Ok((next.routing != cur.routing).then_some(next))
        })?;
        Ok(RerouteOutcome { routing: self.state().routing.clone(), explanations })
    }
}
