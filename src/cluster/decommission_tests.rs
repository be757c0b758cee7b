use std::sync::Arc;

use serde_json::{json, Map, Value};

use super::*;
use crate::cluster::operations_metadata::WeightedRouting;

fn node(id: &str, zone: &str, manager: bool) -> MemberView {
    MemberView {
        node_id: id.into(),
        name: format!("n-{id}"),
        roles: if manager { vec!["cluster_manager".into(), "data".into()] } else { vec!["data".into()] },
        attributes: vec![("zone".into(), zone.into())],
        ..Default::default()
    }
}

fn settings() -> Map<String, Value> {
    json!({
        "cluster.routing.allocation.awareness.attributes": "zone",
        "cluster.routing.allocation.awareness.force.zone.values": "a,b,c",
    })
    .as_object()
    .unwrap()
    .clone()
}

fn weights(attr: &str, w: &[(&str, f64)]) -> Option<WeightedRouting> {
    Some(WeightedRouting {
        attribute: attr.into(),
        weights: w.iter().map(|(k, v)| (k.to_string(), *v)).collect(),
        version: 0,
    })
}

fn decom(value: &str, status: DecommissionStatus) -> DecommissionMetadata {
    DecommissionMetadata {
        attribute: "zone".into(),
        value: value.into(),
        status,
        request_id: "r1".into(),
        started_millis: 1000,
        delay_timeout_millis: 5000,
        no_delay: false,
        draining_until_millis: None,
        in_progress_since_millis: None,
    }
}

fn reason(r: Result<(), OsError>) -> String {
    let e = r.unwrap_err();
    assert_eq!(e.kind, ErrorKind::DecommissioningFailed);
    assert_eq!(e.status, 400);
    e.reason
}

const B: &str = "[DecommissionAttribute{attributeName='zone', attributeValue='b'}] ";

#[test]
fn preconditions_in_order_with_their_messages() {
    let mut md = Metadata::default();
    let s = settings();
    let no_awareness = Map::new();
    assert_eq!(
        reason(check_request(&md, &no_awareness, "zone", "b")),
        format!("{B}invalid awareness attribute requested for decommissioning")
    );
    let mut only_attr = Map::new();
    only_attr.insert("cluster.routing.allocation.awareness.attributes".into(), json!("zone"));
    only_attr.insert("cluster.routing.allocation.awareness.force.rack.values".into(), json!(["r1", "r2"]));
    assert_eq!(
        reason(check_request(&md, &only_attr, "zone", "b")),
        format!("{B}forced awareness attribute [{{rack=[r1, r2]}}] doesn't have the decommissioning attribute")
    );
    assert_eq!(
        reason(check_request(&md, &s, "zone", "b")),
        format!("{B}no weights are set to the attribute. Please set appropriate weights before triggering decommission action")
    );
    md.weighted_routing = weights("rack", &[("r1", 1.0)]);
    assert_eq!(reason(check_request(&md, &s, "zone", "b")), format!("{B}no weights are specified to attribute [zone]"));
    md.weighted_routing = weights("zone", &[("a", 1.0), ("b", 1.0), ("c", 1.0)]);
    assert_eq!(
        reason(check_request(&md, &s, "zone", "b")),
        format!("{B}weight for decommissioned attribute is expected to be [0.0] but found [1.0]")
    );
    md.weighted_routing = weights("zone", &[("a", 1.0), ("b", 0.0), ("c", 1.0)]);
    assert!(check_request(&md, &s, "zone", "b").is_ok());

    md.decommission = Some(decom("b", DecommissionStatus::Draining));
    assert_eq!(reason(check_request(&md, &s, "zone", "b")), format!("{B}same request is already in status [DRAINING]"));
    md.decommission = Some(decom("b", DecommissionStatus::Failed));
    assert!(check_request(&md, &s, "zone", "b").is_ok(), "a failed decommission may be retried");
    md.decommission = Some(decom("c", DecommissionStatus::InProgress));
    assert_eq!(
        reason(check_request(&md, &s, "zone", "b")),
        format!("{B}there's an inflight decommission request for attribute [DecommissionAttribute{{attributeName='zone', attributeValue='c'}}] is in progress, cannot process this request")
    );
    md.decommission = Some(decom("c", DecommissionStatus::Successful));
    assert!(reason(check_request(&md, &s, "zone", "b"))
        .ends_with("already successfully decommissioned, recommission before triggering another decommission"));
}

fn state(nodes: Vec<MemberView>, md: Metadata) -> ClusterState {
    ClusterState { nodes: Arc::new(nodes), metadata: Arc::new(md), ..Default::default() }
}

#[test]
fn exclusions_cover_the_zones_eligible_nodes_within_the_limit() {
    let st = state(
        vec![node("1", "a", true), node("2", "b", true), node("3", "b", false), node("4", "b", true)],
        Metadata::default(),
    );
    let ex = exclusions_for(&st, "zone", "b", 10).unwrap();
    assert_eq!(ex.iter().map(|e| e.node_id.as_str()).collect::<Vec<_>>(), ["2", "4"]);
    assert_eq!(ex[0].node_name, "n-2");
    let e = exclusions_for(&st, "zone", "b", 1).unwrap_err();
    assert_eq!(
        e.reason,
        "add voting config exclusions request for [] would add [2] exclusions to the existing [0] which would exceed the maximum of [1] set by [cluster.max_voting_config_exclusions]"
    );
}

#[test]
fn the_state_machine_walks_to_successful() {
    let nodes = vec![node("1", "a", true), node("2", "b", true), node("3", "c", true)];
    let md = Metadata {
        decommission: Some(decom("b", DecommissionStatus::Init)),
        coordination: crate::cluster::operations_metadata::CoordinationMetadata {
            voting_config_exclusions: vec![VotingConfigExclusion { node_id: "2".into(), node_name: "n-2".into() }],
        },
        ..Default::default()
    };
    let view = |cfg: &[&str]| CoordinationView {
        last_committed_config: cfg.iter().map(|s| s.to_string()).collect(),
        ..Default::default()
    };

    // INIT waits for the exclusion to commit, then drains.
    let st = state(nodes.clone(), md.clone());
    assert_eq!(next_step(&st, &view(&["1", "2", "3"]), "1", 2000), Step::Nothing);
    assert_eq!(
        next_step(&st, &view(&["1", "3"]), "1", 2000),
        Step::Move { to: DecommissionStatus::Draining, reason: String::new() }
    );
    // ... or fails after two minutes.
    assert!(matches!(
        next_step(&st, &view(&["1", "2", "3"]), "1", 1000 + STEP_TIMEOUT_MILLIS + 1),
        Step::Move { to: DecommissionStatus::Failed, .. }
    ));
    // A manager in the zone waits for its abdication.
    assert_eq!(next_step(&st, &view(&["1", "3"]), "2", 2000), Step::Nothing);

    let md = moved(&md, "r1", DecommissionStatus::Init, DecommissionStatus::Draining, 2000).unwrap();
    assert_eq!(md.decommission.as_ref().unwrap().draining_until_millis, Some(7000));
    assert!(
        moved(&md, "other", DecommissionStatus::Draining, DecommissionStatus::InProgress, 2000).is_none(),
        "another request"
    );
    assert!(
        moved(&md, "r1", DecommissionStatus::Init, DecommissionStatus::InProgress, 2000).is_none(),
        "moved meanwhile"
    );
    let st = state(nodes.clone(), md.clone());
    assert_eq!(next_step(&st, &view(&["1", "3"]), "1", 6999), Step::Nothing);
    assert_eq!(
        next_step(&st, &view(&["1", "3"]), "1", 7000),
        Step::Move { to: DecommissionStatus::InProgress, reason: String::new() }
    );

    let md = moved(&md, "r1", DecommissionStatus::Draining, DecommissionStatus::InProgress, 7000).unwrap();
    let st = state(nodes.clone(), md.clone());
    assert_eq!(next_step(&st, &view(&["1", "3"]), "1", 7100), Step::Remove(vec!["2".into()]));
    let st = state(vec![nodes[0].clone(), nodes[2].clone()], md.clone());
    assert_eq!(
        next_step(&st, &view(&["1", "3"]), "1", 7200),
        Step::Move { to: DecommissionStatus::Successful, reason: String::new() }
    );
    let done = moved(&md, "r1", DecommissionStatus::InProgress, DecommissionStatus::Successful, 7200).unwrap();
    assert!(done.coordination.voting_config_exclusions.is_empty(), "SUCCESSFUL clears the exclusions");
    assert!(!commissioned(&nodes[1], &done));
    assert!(commissioned(&nodes[0], &done));
    assert_eq!(
        join_refusal(&nodes[1], done.decommission.as_ref().unwrap()),
        "node [{n-2}{2}] has decommissioned attribute [DecommissionAttribute{attributeName='zone', attributeValue='b'}] with current status of decommissioning [successful]"
    );
}
