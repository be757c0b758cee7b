//! The deciders that look at how loaded nodes are: `ThrottlingAllocationDecider`,
//! `ShardsLimitAllocationDecider`, `AwarenessAllocationDecider`.

use std::collections::BTreeSet;

use super::deciders::{d, index_created, Ctx, Decision, Kind, ShardRef};
use super::settings::IndexAlloc;
use super::AllocNode;
use crate::cluster::routing_table::ShardState;

/// `ThrottlingAllocationDecider`: initial primary recoveries per node, then peer recoveries in
/// and out (replicas of new indices count against `node_initial_replicas_recoveries`).
pub(crate) fn throttling(c: &Ctx, sh: ShardRef, node: &AllocNode) -> Decision {
    const NAME: &str = "throttling";
    if sh.copy.primary && sh.copy.state == ShardState::Unassigned {
        let n = c.initial_primaries_incoming(&node.id) as i64;
        let limit = c.s.initial_primaries_recoveries;
        return if n >= limit {
            d(NAME, Kind::Throttle, format!("reached the limit of ongoing initial primary recoveries [{n}], cluster setting [cluster.routing.allocation.node_initial_primaries_recoveries={limit}]"))
        } else {
            d(NAME, Kind::Yes, format!("below primary recovery limit of [{limit}]"))
        };
    }
    let initial = index_created(sh.copy);
    let incoming = c.incoming(&node.id, initial) as i64;
    let (in_limit, out_limit) = if initial {
        (c.s.initial_replicas_recoveries, c.s.initial_replicas_recoveries)
    } else {
        (c.s.incoming_recoveries, c.s.outgoing_recoveries)
    };
    if incoming >= in_limit {
        return d(
            NAME,
            Kind::Throttle,
            if initial {
                format!("reached the limit of incoming shard recoveries [{incoming}], cluster setting [cluster.routing.allocation.node_initial_replicas_recoveries={in_limit}]")
            } else {
                format!("reached the limit of incoming shard recoveries [{incoming}], cluster setting [cluster.routing.allocation.node_concurrent_incoming_recoveries={in_limit}] (can also be set via [cluster.routing.allocation.node_concurrent_recoveries])")
            },
        );
    }
    let Some(primary) = c.active_primary(sh.index, sh.id) else {
        return d(NAME, Kind::No, "primary shard for this replica is not yet active");
    };
    let pnode = primary.node.as_deref().unwrap_or_default();
    let outgoing = c.outgoing(pnode, initial) as i64;
    if outgoing >= out_limit {
        return d(
            NAME,
            Kind::Throttle,
            if initial {
                format!("reached the limit of outgoing shard recoveries [{outgoing}] on the node [{pnode}] which holds the primary, cluster setting [cluster.routing.allocation.node_initial_replicas_recoveries={in_limit}]")
            } else {
                format!("reached the limit of outgoing shard recoveries [{outgoing}] on the node [{pnode}] which holds the primary, cluster setting [cluster.routing.allocation.node_concurrent_outgoing_recoveries={out_limit}] (can also be set via [cluster.routing.allocation.node_concurrent_recoveries])")
            },
        );
    }
    d(
        NAME,
        Kind::Yes,
        format!(
            "below shard recovery limit of outgoing: [{outgoing} < {out_limit}] incoming: [{incoming} < {in_limit}]"
        ),
    )
}

/// `ShardsLimitAllocationDecider`: `remain` compares with `>` instead of `>=`.
pub(crate) fn shards_limit(c: &Ctx, sh: ShardRef, node: &AllocNode, remain: bool) -> Decision {
    const NAME: &str = "shards_limit";
    let index_limit = c.index_md(sh.index).map_or(-1, |m| IndexAlloc(m).total_shards_per_node());
    let cluster_limit = c.s.total_shards_per_node;
    if index_limit <= 0 && cluster_limit <= 0 {
        return d(
            NAME,
            Kind::Yes,
            format!("total shard limits are disabled: [index: {index_limit}, cluster: {cluster_limit}] <= 0"),
        );
    }
    let over = |count: i64, limit: i64| if remain { count > limit } else { count >= limit };
    let count = c.owning(&node.id, None) as i64;
    if cluster_limit > 0 && over(count, cluster_limit) {
        return d(NAME, Kind::No, format!("too many shards [{count}] allocated to this node, cluster setting [cluster.routing.allocation.total_shards_per_node={cluster_limit}]"));
    }
    if index_limit > 0 {
        let n = c.owning(&node.id, Some(sh.index)) as i64;
        if over(n, index_limit) {
            return d(NAME, Kind::No, format!("too many shards [{n}] allocated to this node for index [{}], index setting [index.routing.allocation.total_shards_per_node={index_limit}]", sh.index));
        }
    }
    d(NAME, Kind::Yes, format!("the shard count [{count}] for this node is under the index limit [{index_limit}] and cluster level node limit [{cluster_limit}]"))
}

/// `AwarenessAllocationDecider`: copies spread over the values of each awareness attribute.
pub(crate) fn awareness(c: &Ctx, sh: ShardRef, node: &AllocNode, move_to_node: bool) -> Decision {
    const NAME: &str = "awareness";
    if c.s.awareness.is_empty() {
        return d(NAME, Kind::Yes, "allocation awareness is not enabled, set cluster setting [cluster.routing.allocation.awareness.attributes] to enable it");
    }
    if c.index_md(sh.index).is_some_and(|m| IndexAlloc(m).auto_expand_all()) {
        return d(NAME, Kind::Yes, "allocation awareness is ignored, this index is set to auto-expand to all");
    }
    let Some(st) = c.shard(sh.index, sh.id) else {
        return d(NAME, Kind::Yes, "node meets all awareness attribute requirements");
    };
    let shard_count = st.copies.len();
    for attr in &c.s.awareness {
        let Some(value) = node.attributes.get(attr) else {
            return d(NAME, Kind::No, format!("node does not contain the awareness attribute [{attr}]; required attributes cluster setting [cluster.routing.allocation.awareness.attributes={}]", c.s.awareness.join(",")));
        };
        let attr_of = |id: &str| c.node(id).and_then(|n| n.attributes.get(attr));
        let mut count = st
            .copies_and_targets()
            .iter()
            .filter(|x| matches!(x.state, ShardState::Started | ShardState::Initializing))
            .filter(|x| x.node.as_deref().and_then(attr_of) == Some(value))
            .count();
        if move_to_node {
            match sh.copy.node.as_deref() {
                Some(current) if current != node.id => {
                    if attr_of(current) == Some(value) && count > 0 {
                        count -= 1;
                    }
                    count += 1;
                }
                Some(_) => {}
                None => count += 1,
            }
        }
        let mut values: BTreeSet<&str> =
            c.nodes.iter().filter_map(|n| n.attributes.get(attr).map(String::as_str)).collect();
        if let Some((_, forced)) = c.s.forced_awareness.iter().find(|(a, _)| a == attr) {
            values.extend(forced.iter().map(String::as_str));
        }
        let attributes = values.len().max(1);
        let max = shard_count.div_ceil(attributes);
        if count > max {
            return d(NAME, Kind::No, format!("there are too many copies of the shard allocated to nodes with attribute [{attr}], there are [{shard_count}] total configured shard copies for this shard id and [{attributes}] total attribute values, expected the allocated shard count per attribute [{count}] to be less than or equal to the upper bound of the required number of shards per attribute [{max}]"));
        }
    }
    d(NAME, Kind::Yes, "node meets all awareness attribute requirements")
}
