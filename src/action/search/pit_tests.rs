//! Tests of the reader-context registry and the PIT id codec.

use super::*;
use proptest::prelude::*;

fn id(n: usize) -> ContextId {
    ContextId {
        kind: ContextKind::Pit,
        shards: (0..n)
            .map(|i| ShardRef {
                index: format!("ix{i}"),
                index_uuid: format!("u{i}"),
                shard: i as u32,
                node: format!("node{}", i % 2),
                session: format!("sess{}", i % 2),
                context: 1000 + i as u64,
            })
            .collect(),
    }
}

#[test]
fn id_round_trips() {
    let c = id(3);
    let s = c.encode();
    assert_eq!(ContextId::decode(&s, ContextKind::Pit), Some(c.clone()));
    assert_eq!(ContextId::decode(&s, ContextKind::Scroll), None);
    assert_eq!(c.indices(), vec!["ix0", "ix1", "ix2"]);
}

#[test]
fn malformed_ids_are_errors() {
    let e = decode_pit_id("not-an-id!").unwrap_err();
    assert_eq!(e.kind, crate::error::ErrorKind::IllegalArgument);
    assert_eq!(e.reason, "invalid id: [not-an-id!]");
    assert!(decode_pit_id("").is_err());
    let mut b = id(2).encode_bytes();
    b.push(0);
    assert_eq!(ContextId::decode_bytes(&b), None);
}

#[test]
fn ids_name_the_node_of_each_shard() {
    let c = id(5);
    let back = ContextId::decode(&c.encode(), ContextKind::Pit).expect("round trip");
    assert_eq!(
        back.shards.iter().map(|s| s.node.as_str()).collect::<Vec<_>>(),
        ["node0", "node1", "node0", "node1", "node0"]
    );
    assert_eq!(back.shards[3].session, "sess1");
    // Grouped by node in first-seen order, each group in id order.
    let groups = back.by_node();
    assert_eq!(groups.len(), 2);
    assert_eq!(groups[0].0, "node0");
    assert_eq!(groups[0].1.shards.iter().map(|s| s.shard).collect::<Vec<_>>(), [0, 2, 4]);
    assert_eq!(groups[1].1.shards.iter().map(|s| s.context).collect::<Vec<_>>(), [1001, 1003]);
    // Each node is written once.
    assert!(c.encode_bytes().len() < id(1).encode_bytes().len() * 5);
}

#[test]
fn other_versions_and_bad_node_ordinals_are_rejected() {
    let mut b = id(2).encode_bytes();
    b[0] = 1;
    assert_eq!(ContextId::decode_bytes(&b), None);
    // One node, one shard whose node ordinal points past the node table.
    let mut b = vec![2u8, 0, 1, 1, b'n', 1, b's', 1, 1, b'i', 1, b'u', 0, 1, 7];
    assert_eq!(ContextId::decode_bytes(&b), None);
    let at = b.len() - 2;
    b[at] = 0;
    let ok = ContextId::decode_bytes(&b).expect("ordinal 0");
    assert_eq!((ok.shards[0].node.as_str(), ok.shards[0].context), ("n", 7));
    let scroll = crate::action::search::scroll::decode("AAAA").unwrap_err();
    assert_eq!((scroll.status, scroll.reason.as_str()), (400, "Cannot parse scroll id"));
}

#[test]
fn a_registry_finds_only_its_own_session() {
    let reg = ReaderContexts::for_node(10, "me");
    let refs = reg
        .open(vec![shard("a", 0), shard("a", 1)], ContextKind::Pit, Duration::from_secs(60), Some(10), None)
        .expect("open");
    assert!(refs.iter().all(|r| r.node == "me" && r.session == reg.session()));
    // Not listed before it has an id.
    assert!(reg.list_pits().is_empty());
    let numbers: Vec<u64> = refs.iter().map(|r| r.context).collect();
    assert_eq!(reg.adopt(&numbers, "the-id", Some(42)), 2);
    assert_eq!(reg.list_pits(), vec![("the-id".to_string(), 42, 60_000)]);
    let mut id = ContextId { kind: ContextKind::Pit, shards: refs.clone() };
    id.shards[1].session = "another process".into();
    let f = reg.find(&id, None);
    assert_eq!((f.contexts.len(), f.missing.len()), (1, 1));
    assert_eq!(reg.free(&id), 1);
    let all = ContextId { kind: ContextKind::Pit, shards: refs };
    assert_eq!(reg.free(&all), 1, "the shard the other session's ref did not name");
    assert_eq!(reg.free(&all), 0);
}

proptest! {
    #[test]
    fn decoding_never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..200)) {
        let _ = ContextId::decode_bytes(&bytes);
    }

    #[test]
    fn truncations_are_rejected(n in 0usize..4, cut in 1usize..40) {
        let b = id(n).encode_bytes();
        let cut = cut.min(b.len());
        prop_assert_eq!(ContextId::decode_bytes(&b[..b.len() - cut]), None);
    }
}

#[test]
fn time_values_print_as_opensearch() {
    assert_eq!(time_value(86_400_000), "1d");
    assert_eq!(time_value(90 * 60_000), "1.5h");
    assert_eq!(time_value(999), "999ms");
}

#[test]
fn keep_alive_limit() {
    assert!(check_keep_alive(Duration::from_secs(3600), "x").is_ok());
    let e = check_keep_alive(Duration::from_secs(2 * 86400), "point_in_time.max_keep_alive").unwrap_err();
    assert_eq!(
        e.reason,
        "Keep alive for request (2d) is too large. It must be less than (1d). This limit can be set by changing the [point_in_time.max_keep_alive] cluster level setting."
    );
}

fn shard(index: &str, shard: u32) -> ShardContext {
    ShardContext {
        alias_filter: None,
        index: index.into(),
        index_uuid: format!("{index}-uuid"),
        shard,
        mapping: Arc::new(crate::engine::schema::Mapping::default()),
        max_result_window: 10,
        limits: Default::default(),
        max_slices_per_scroll: 1024,
        num_shards: 1,
        analyzers: Arc::new(crate::engine::index::writer::default_analyzers()),
        analysis: None,
        reader: crate::engine::index::IndexReader::new(vec![], 0),
        failer: None,
        request_cache: None,
        breakers: None,
        fielddata: None,
        query_cache: None,
        counters: None,
        node_id: Arc::from("node"),
    }
}

#[derive(Debug, Clone)]
enum Op {
    Create { shards: u32, pit: bool },
    Free(usize),
    FreeAll(bool),
    Expire(usize),
    CloseIndex,
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        (1u32..4, any::<bool>()).prop_map(|(shards, pit)| Op::Create { shards, pit }),
        (0usize..8).prop_map(Op::Free),
        any::<bool>().prop_map(Op::FreeAll),
        (0usize..8).prop_map(Op::Expire),
        Just(Op::CloseIndex),
    ]
}

proptest! {
    /// The registry against a model: a list of live ids with their shard count and kind.
    #[test]
    fn registry_matches_model(ops in proptest::collection::vec(op(), 1..40)) {
        let max = 5usize;
        let reg = ReaderContexts::new(max);
        // (id, shards, kind, index)
        let mut model: Vec<(String, usize, ContextKind, String)> = Vec::new();
        let mut closed: Vec<String> = Vec::new();
        let mut made = 0usize;
        for op in ops {
            match op {
                Op::Create { shards, pit } => {
                    let index = format!("ix{made}");
                    made += 1;
                    let ctxs: Vec<ShardContext> = (0..shards).map(|s| shard(&index, s)).collect();
                    let kind = if pit { ContextKind::Pit } else { ContextKind::Scroll };
                    let open_pits: usize = model.iter().filter(|m| m.2 == ContextKind::Pit).map(|m| m.1).sum();
                    let r = reg.register(ctxs, kind, Duration::from_secs(600), pit.then_some(max), None);
                    if pit && open_pits + shards as usize > max {
                        prop_assert_eq!(r.unwrap_err().status, 429);
                    } else {
                        let id = r.expect("registered");
                        let d = ContextId::decode(&id, kind).expect("decodable");
                        prop_assert_eq!(d.shards.len(), shards as usize);
                        prop_assert_eq!(d.indices(), vec![index.clone()]);
                        model.push((id, shards as usize, kind, index));
                    }
                }
                Op::Free(i) => {
                    if !model.is_empty() {
                        let m = model.remove(i % model.len());
                        let d = ContextId::decode(&m.0, m.2).expect("decodable");
                        prop_assert_eq!(reg.free(&d), m.1);
                        prop_assert_eq!(reg.free(&d), 0);
                    }
                }
                Op::FreeAll(pit) => {
                    let kind = if pit { ContextKind::Pit } else { ContextKind::Scroll };
                    let freed: usize = reg.free_all(kind).iter().map(|f| f.1).sum();
                    let want: usize = model.iter().filter(|m| m.2 == kind).map(|m| m.1).sum();
                    prop_assert_eq!(freed, want);
                    model.retain(|m| m.2 != kind);
                }
                Op::Expire(i) => {
                    if !model.is_empty() {
                        let m = model.remove(i % model.len());
                        let d = ContextId::decode(&m.0, m.2).expect("decodable");
                        let f = reg.find(&d, None);
                        prop_assert_eq!(f.contexts.len(), m.1);
                        // Shrink its lifetime to zero and let time pass.
                        let mut map = reg.lock();
                        for s in &d.shards {
                            if let Some(c) = map.get_mut(&s.context) {
                                c.keep_alive = Duration::ZERO;
                                c.last_access = Instant::now().checked_sub(Duration::from_millis(5)).unwrap_or_else(Instant::now);
                            }
                        }
                        drop(map);
                        prop_assert_eq!(reg.reap(&|u| !closed.iter().any(|c| c == u)), m.1);
                        let f = reg.find(&d, Some(Duration::from_secs(1)));
                        prop_assert!(f.contexts.is_empty());
                        prop_assert_eq!(f.missing.len(), m.1);
                    }
                }
                Op::CloseIndex => {
                    if let Some(m) = model.first().cloned() {
                        closed.push(format!("{}-uuid", m.3));
                        prop_assert_eq!(reg.reap(&|u| !closed.iter().any(|c| c == u)), m.1);
                        model.remove(0);
                    }
                }
            }
            let pits: Vec<String> = reg.list_pits().into_iter().map(|p| p.0).collect();
            let want: Vec<String> = model.iter().filter(|m| m.2 == ContextKind::Pit).map(|m| m.0.clone()).collect();
            prop_assert_eq!(pits, want);
            prop_assert_eq!(reg.open_count(ContextKind::Scroll), model.iter().filter(|m| m.2 == ContextKind::Scroll).map(|m| m.1).sum::<usize>());
        }
    }
}

#[test]
fn empty_registry() {
    let r = ReaderContexts::new(2);
    assert_eq!(
        r.register(vec![], ContextKind::Pit, Duration::from_secs(1), Some(2), None).map(|s| !s.is_empty()).ok(),
        Some(true)
    );
    assert_eq!(r.reap(&|_| true), 0);
    assert!(r.list_pits().is_empty());
    let f = r.find(&id(1), None);
    assert!(f.contexts.is_empty());
    assert_eq!(f.missing.len(), 1);
    assert_eq!(all_missing(&f.missing).status, 404);
}
