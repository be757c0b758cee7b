//! Weighted shard routing across processes: three nodes in two zones (n0, n2 in zoneA, n1 in
//! zoneB) with forced awareness; an index of 4 shards, one copy in each zone. The nodes of zoneA
//! delay every message they send to n1, so a search that reads a copy on n1 is slow: before
//! weights some searches are slow, after `zoneB: 0` none is (and none fails, whichever node
//! coordinates). Also the weights API round trip with versions, its conflicts, the awareness
//! health figures and `ensure_node_weighed_in`.

mod common;

use std::time::{Duration, Instant};

use common::cluster::{free_port, local_id, one_cluster_at_a_time, start_with, wait_agreement, Proc};
use common::http::{get, post, put, send, Resp};
use serde_json::{json, Value};

const DOCS: usize = 20;
/// The delay zoneA's nodes put on messages to n1.
const DELAY_MS: u64 = 800;
/// A search slower than this read a copy on n1.
const SLOW: Duration = Duration::from_millis(600);

fn delete_with(p: &Proc, path: &str, body: &Value) -> Resp {
    send(p.http, "DELETE", path, Some(body.to_string().as_bytes()), &[])
}

/// Searches `rounds` times through `p`, each answer complete; the number of slow ones.
fn searches(p: &Proc, rounds: usize) -> usize {
    let mut slow = 0;
    for _ in 0..rounds {
        let t = Instant::now();
        let r = post(p.http, "/w/_search", r#"{"size": 0, "track_total_hits": true}"#);
        let took = t.elapsed();
        assert_eq!(r.status, 200, "{}", r.text());
        let v = r.json();
        assert_eq!(v["_shards"]["failed"], 0, "{v}");
        assert_eq!(v["_shards"]["successful"], 4, "{v}");
        assert_eq!(v["hits"]["total"]["value"], DOCS, "{v}");
        if took >= SLOW {
            slow += 1;
        }
    }
    slow
}

fn health(p: &Proc) -> Value {
    let r = get(p.http, "/_cluster/health?level=awareness_attributes&awareness_attribute=zone");
    assert_eq!(r.status, 200, "{}", r.text());
    r.json()["awareness_attributes"]["zone"].clone()
}

#[test]
fn zero_weight_zone_takes_no_searches_and_the_api_keeps_versions() {
    let _turn = one_cluster_at_a_time();
    let dirs: Vec<_> = (0..3).map(|_| tempfile::tempdir().unwrap()).collect();
    let ports: Vec<u16> = (0..3).map(|_| free_port()).collect();
    let seeds = ports.iter().map(|p| format!("127.0.0.1:{p}")).collect::<Vec<_>>().join(",");
    let names = ["n0", "n1", "n2"];
    let zones = ["zoneA", "zoneB", "zoneA"];
    let procs: Vec<Proc> = (0..3)
        .map(|i| {
            start_with(
                dirs[i].path(),
                names[i],
                ports[i],
                &seeds,
                "n0,n1,n2",
                &[
                    ("node.attr.zone", zones[i]),
                    ("cluster.routing.allocation.awareness.attributes", "zone"),
                    ("cluster.routing.allocation.awareness.force.zone.values", "zoneA,zoneB"),
                    ("cluster.routing.allocation.awareness.balance", "true"),
                    ("fathom.test.fault_injection", "true"),
                ],
            )
        })
        .collect();
    let all: Vec<&Proc> = procs.iter().collect();
    wait_agreement(&all, 3, Duration::from_secs(60));
    let n1 = local_id(&procs[1]);

    // No weights yet.
    assert_eq!(get(procs[0].http, "/_cluster/routing/awareness/zone/weights").json(), json!({}));
    let r = get(procs[0].http, "/_cluster/routing/awareness/rack/weights");
    assert_eq!(r.status, 400, "{}", r.text());
    assert_eq!(
        r.json()["error"]["reason"],
        "Validation Failed: 1: invalid awareness attribute rack requested for weighted routing;"
    );

    let r = put(procs[0].http, "/w", r#"{"settings": {"number_of_shards": 4, "number_of_replicas": 1}}"#);
    assert_eq!(r.status, 200, "{}", r.text());
    let r = get(procs[0].http, "/_cluster/health/w?wait_for_status=green&timeout=60s");
    assert_eq!(r.status, 200, "{}", r.text());
    let mut bulk = String::new();
    for i in 0..DOCS {
        bulk.push_str(&format!("{}\n{}\n", json!({"index": {"_id": i.to_string()}}), json!({"n": i})));
    }
    let r = post(procs[0].http, "/w/_bulk?refresh=true", &bulk);
    assert_eq!((r.status, r.json()["errors"].clone()), (200, json!(false)), "{}", r.text());

    // One copy of each shard per zone: zoneB's only node holds 4, zoneA's two nodes 4 together.
    let h = health(&procs[0]);
    assert_eq!(
        h["zoneB"],
        json!({"active_shards": 4, "initializing_shards": 0, "relocating_shards": 0, "unassigned_shards": 0, "data_nodes": 1, "weight": 1.0}),
        "{h}"
    );
    assert_eq!((h["zoneA"]["active_shards"].clone(), h["zoneA"]["data_nodes"].clone()), (json!(4), json!(2)), "{h}");

    // zoneA's nodes slow down every message to n1 (only while searching: the coordination
    // would suffer from it).
    let slow_to_n1 = |on: bool| {
        for p in [&procs[0], &procs[2]] {
            let r = match on {
                true => put(p.http, "/_fathom/test/faults", &json!({"delay_ms": {n1.clone(): DELAY_MS}}).to_string()),
                false => send(p.http, "DELETE", "/_fathom/test/faults", None, &[]),
            };
            assert_eq!(r.status, 200, "{}", r.text());
        }
    };
    slow_to_n1(true);
    // Without weights, zoneA's coordinators read some shards on n1 (the copies in turn).
    let before = searches(&procs[0], 12) + searches(&procs[2], 12);
    assert!(before > 0, "no search read a copy on n1 before the weights: the delay does not show");
    slow_to_n1(false);

    // zoneB weighed away.
    let r = put(
        procs[1].http,
        "/_cluster/routing/awareness/zone/weights",
        r#"{"weights": {"zoneA": "1", "zoneB": "0"}, "_version": -1}"#,
    );
    assert_eq!((r.status, r.text()), (200, r#"{"acknowledged":true}"#.to_string()));
    for p in &procs {
        let v = get(p.http, "/_cluster/routing/awareness/zone/weights").json();
        assert_eq!(
            v,
            json!({"weights": {"zoneA": "1.0", "zoneB": "0.0"}, "_version": 0, "discovered_cluster_manager": true})
        );
    }
    slow_to_n1(true);
    let after = searches(&procs[0], 30) + searches(&procs[2], 30);
    assert_eq!(after, 0, "searches still read copies on the zero-weight zone");
    // n1 itself sends its searches to zoneA (they answer fully).
    searches(&procs[1], 10);
    // Gets follow the weights too.
    for i in 0..DOCS {
        let t = Instant::now();
        let r = get(procs[0].http, &format!("/w/_doc/{i}"));
        assert_eq!((r.status, r.json()["found"].clone()), (200, json!(true)), "{}", r.text());
        assert!(t.elapsed() < SLOW, "get {i} read the zero-weight copy");
    }
    slow_to_n1(false);

    // Preferences naming nodes are refused under strict weighted routing.
    let r = post(procs[0].http, &format!("/w/_search?preference=_prefer_nodes:{n1}"), "{}");
    assert_eq!(r.status, 403, "{}", r.text());
    assert_eq!(r.json()["error"]["type"], "preference_based_search_not_allowed_exception");

    // Health shows the weight; a weighed-away node says so when asked.
    let h = health(&procs[2]);
    assert_eq!((h["zoneB"]["weight"].clone(), h["zoneA"]["weight"].clone()), (json!(0.0), json!(1.0)), "{h}");
    let r = get(procs[1].http, "/_cluster/health?ensure_node_weighed_in=true&local=true");
    assert_eq!(r.status, 421, "{}", r.text());
    assert_eq!(
        (r.json()["error"]["type"].clone(), r.json()["error"]["reason"].clone()),
        (json!("node_weighed_away_exception"), json!("local node is weighed away"))
    );
    assert_eq!(get(procs[0].http, "/_cluster/health?ensure_node_weighed_in=true&local=true").status, 200);
    let r = get(procs[1].http, "/_cluster/health?ensure_node_weighed_in=true");
    assert_eq!(r.status, 400, "{}", r.text());
    assert_eq!(
        r.json()["error"]["reason"],
        "Validation Failed: 1: not a local request to ensure local node commissioned or weighed in;"
    );
    let state = get(procs[0].http, "/_cluster/state/metadata").json();
    assert_eq!(
        state["metadata"]["weighted_shard_routing"],
        json!({"awareness": {"zone": {"zoneA": 1.0, "zoneB": 0.0}}, "_version": 0})
    );

    // Conflicts: a stale version, a zone without a weight, too many zeros.
    let r = put(
        procs[0].http,
        "/_cluster/routing/awareness/zone/weights",
        r#"{"weights": {"zoneA": "1", "zoneB": "1"}, "_version": -1}"#,
    );
    assert_eq!(r.status, 409, "{}", r.text());
    assert_eq!(
        r.json()["error"]["reason"],
        "requested version is -1 but cluster weighted routing metadata is at a different version 0 "
    );
    let r =
        put(procs[0].http, "/_cluster/routing/awareness/zone/weights", r#"{"weights": {"zoneA": "1"}, "_version": 0}"#);
    assert_eq!(r.status, 409, "{}", r.text());
    assert_eq!(
        r.json()["error"]["reason"],
        "weight for [zoneB] is not set and it is part of forced awareness value or a routing node has this attribute."
    );
    let r = put(
        procs[0].http,
        "/_cluster/routing/awareness/zone/weights",
        r#"{"weights": {"zoneA": "0", "zoneB": "0"}, "_version": 0}"#,
    );
    assert_eq!(r.status, 400, "{}", r.text());
    // Setting the same weights again keeps the version.
    let r = put(
        procs[0].http,
        "/_cluster/routing/awareness/zone/weights",
        r#"{"weights": {"zoneB": "0", "zoneA": "1"}, "_version": 0}"#,
    );
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(get(procs[0].http, "/_cluster/routing/awareness/zone/weights").json()["_version"], 0);

    // Delete: a stale version conflicts; the right one leaves the deleted form one version up.
    let r = delete_with(&procs[2], "/_cluster/routing/awareness/weights", &json!({"_version": 5}));
    assert_eq!(r.status, 409, "{}", r.text());
    let r = delete_with(&procs[2], "/_cluster/routing/awareness/zone/weights", &json!({"_version": "0"}));
    assert_eq!(r.status, 200, "{}", r.text());
    for p in &procs {
        let v = get(p.http, "/_cluster/routing/awareness/zone/weights").json();
        assert_eq!(v, json!({"weights": {}, "_version": 1, "discovered_cluster_manager": true}));
    }
    let state = get(procs[1].http, "/_cluster/state/metadata").json();
    assert_eq!(state["metadata"]["weighted_shard_routing"], json!({"awareness": {}, "_version": 1}));
    assert_eq!(health(&procs[0])["zoneB"]["weight"], json!(1.0));
    assert_eq!(get(procs[1].http, "/_cluster/health?ensure_node_weighed_in=true&local=true").status, 200);
    let r = delete_with(&procs[0], "/_cluster/routing/awareness/zone/weights", &json!({"_version": 1}));
    assert_eq!(r.status, 404, "{}", r.text());
    assert_eq!(
        r.json()["error"]["reason"],
        "weighted routing metadata does not have weights set for awareness attribute zone"
    );
    // Weights can be set again from the deleted form's version; searches are fast again.
    let r = put(
        procs[0].http,
        "/_cluster/routing/awareness/zone/weights",
        r#"{"weights": {"zoneA": "1", "zoneB": "0"}, "_version": 1}"#,
    );
    assert_eq!(r.status, 200, "{}", r.text());
    slow_to_n1(true);
    assert_eq!(searches(&procs[0], 10) + searches(&procs[2], 10), 0);
    slow_to_n1(false);
}
