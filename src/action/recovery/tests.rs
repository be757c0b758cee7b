use proptest::prelude::*;

use super::*;
use crate::shard::recovery::PeerNode;

fn node() -> TargetNode {
    TargetNode {
        id: "abc".into(),
        name: "n1".into(),
        host: "127.0.0.1".into(),
        transport_address: "127.0.0.1:9300".into(),
    }
}

fn done(source: RecoverySource, files: &[(&str, u64)], ops: u64) -> RecoveryState {
    let mut rs = RecoveryState::new(source, true);
    rs.advance(Stage::Index);
    for (n, l) in files {
        rs.index.add_file(n.to_string(), *l, true);
    }
    rs.advance(Stage::Translog);
    rs.translog.total = ops as i64;
    rs.translog.total_on_start = ops as i64;
    rs.translog.recovered = ops;
    rs.advance(Stage::Done);
    rs
}

#[test]
fn empty_store_shape() {
    let r =
        ShardRecovery { index: "i".into(), shard: 0, state: done(RecoverySource::EmptyStore, &[], 0), target: node() };
    let v = response_json(&[r], true, true);
    let s = &v["i"]["shards"][0];
    assert_eq!(s["type"], "EMPTY_STORE");
    assert_eq!(s["stage"], "DONE");
    assert_eq!(s["primary"], true);
    assert_eq!(s["source"], json!({}));
    assert_eq!(s["target"]["ip"], "127.0.0.1");
    assert_eq!(s["target"]["transport_address"], "127.0.0.1:9300");
    assert!(s["start_time"].as_str().is_some_and(|t| t.starts_with('2') && t.ends_with('Z')), "{s}");
    assert!(s["stop_time_in_millis"].as_u64().is_some());
    assert_eq!(s["index"]["files"]["percent"], "0.0%");
    assert_eq!(s["index"]["size"]["percent"], "0.0%");
    assert_eq!(s["index"]["files"]["details"], json!([]));
    assert_eq!(s["index"]["source_throttle_time"], "-1");
    assert_eq!(s["translog"]["percent"], "100.0%");
    assert!(s["verify_index"]["check_index_time_in_millis"].as_u64().is_some());
}

#[test]
fn existing_store_counts_and_details() {
    let rs = done(RecoverySource::ExistingStore, &[("_0.seg", 2048), ("segments_2", 100)], 7);
    let r = ShardRecovery { index: "i".into(), shard: 2, state: rs, target: node() };
    let plain = shard_json(&r, false, false);
    assert_eq!(plain["id"], 2);
    assert_eq!(plain["source"], json!({"bootstrap_new_history_uuid": false}));
    assert_eq!(plain["index"]["files"], json!({"total": 2, "reused": 2, "recovered": 0, "percent": "100.0%"}));
    assert_eq!(
        plain["index"]["size"],
        json!({"total_in_bytes": 2148, "reused_in_bytes": 2148, "recovered_in_bytes": 0, "percent": "100.0%"})
    );
    assert_eq!(plain["translog"]["recovered"], 7);
    assert_eq!(plain["translog"]["total"], 7);
    assert!(plain.get("start_time").is_none() && plain["index"].get("total_time").is_none());
    let detailed = shard_json(&r, true, true);
    assert_eq!(
        detailed["index"]["files"]["details"][0],
        json!({"name": "_0.seg", "length": "2kb", "length_in_bytes": 2048, "reused": true, "recovered": "0b", "recovered_in_bytes": 0})
    );
    assert_eq!(detailed["index"]["size"]["total"], "2kb");
}

#[test]
fn translog_unknown_is_minus_one() {
    let rs = RecoveryState::new(RecoverySource::ExistingStore, true);
    assert_eq!(percent_string(translog_percent(&rs)), "-1.0%");
    assert_eq!(files_percent(&rs), 0.0);
    assert_eq!(percent_string(12.25), "12.3%");
    assert_eq!(percent_string(100.0 / 3.0), "33.3%");
}

#[test]
fn human_units() {
    assert_eq!(human_bytes(0), "0b");
    assert_eq!(human_bytes(1536), "1.5kb");
    assert_eq!(human_millis(15), "15ms");
    assert_eq!(human_millis(1500), "1.5s");
    assert_eq!(iso(1_706_702_400_123), "2024-01-31T12:00:00.123Z");
}

#[test]
fn closed_shard_reads_its_store() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a"), b"12345").unwrap();
    std::fs::write(dir.path().join("b"), b"1").unwrap();
    let rs = closed_shard_state(5, dir.path());
    assert_eq!(rs.source, RecoverySource::ExistingStore);
    assert_eq!(rs.stage(), Stage::Done);
    assert_eq!((rs.index.total_files, rs.index.reused_files, rs.index.total_bytes), (2, 2, 6));
    assert_eq!(rs.translog.total, 0);
    assert!(rs.timer.start_millis() > 5 && rs.timer.start_millis() == rs.timer.stop_millis());
    let missing = closed_shard_state(5, &dir.path().join("none"));
    assert_eq!((missing.index.total_files, missing.timer.start_millis()), (0, 5));
}

#[test]
fn a_recovery_read_from_another_node_renders_as_it_did_there() {
    let mut rs = done(RecoverySource::Peer, &[("_0.seg", 2048)], 3);
    rs.source_node = Some(PeerNode { id: "src".into(), name: "n0".into(), transport_address: "127.0.0.1:9301".into() });
    let r = ShardRecovery { index: "i".into(), shard: 1, state: rs, target: node() };
    let wire = serde_json::to_vec(&r).unwrap();
    let back: ShardRecovery = serde_json::from_slice(&wire).unwrap();
    let (a, b) = (shard_json(&r, true, false), shard_json(&back, true, false));
    assert_eq!(a, b);
    assert_eq!(b["source"]["name"], "n0");
    assert_eq!(b["target"]["id"], "abc");
    assert!(serde_json::from_slice::<ShardRecovery>(b"{\"index\": 3}").is_err());
}

proptest! {
    /// The percentages follow OpenSearch's definitions over a simple model of the files.
    #[test]
    fn percents_match_model(files in proptest::collection::vec((1u64..10_000, any::<bool>()), 0..20)) {
        let mut rs = RecoveryState::new(RecoverySource::Peer, false);
        rs.advance(Stage::Index);
        for (k, (len, reused)) in files.iter().enumerate() {
            rs.index.add_file(format!("f{k}"), *len, *reused);
        }
        let fp = files_percent(&rs);
        let bp = bytes_percent(&rs);
        if files.is_empty() {
            prop_assert_eq!((fp, bp), (0.0, 0.0));
        } else {
            // Every added non-reused file is fully recovered: nothing is left.
            prop_assert_eq!((fp, bp), (100.0, 100.0));
        }
        let reused: u64 = files.iter().filter(|f| f.1).map(|f| f.0).sum();
        let total: u64 = files.iter().map(|f| f.0).sum();
        prop_assert_eq!(rs.index.reused_bytes, reused);
        prop_assert_eq!(rs.index.recovered_bytes, total - reused);
        prop_assert!((0.0..=100.0).contains(&fp));
    }
}
