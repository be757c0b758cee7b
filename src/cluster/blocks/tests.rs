use std::collections::BTreeMap;
use std::sync::Arc;

use serde_json::json;

use super::*;
use crate::cluster::metadata::IndexState;

fn index(name: &str, blocks: &[(&str, &str)]) -> IndexMetadata {
    let mut settings: BTreeMap<String, Value> = BTreeMap::new();
    settings.insert("index.number_of_shards".into(), json!("1"));
    for (k, v) in blocks {
        settings.insert(k.to_string(), json!(v));
    }
    IndexMetadata {
        name: name.into(),
        uuid: format!("uuid-{name}"),
        state: IndexState::Open,
        settings,
        mapping: Arc::new(crate::engine::schema::Mapping::default()),
        aliases: BTreeMap::new(),
        routing_num_shards: 1,
        primary_term: 1,
        version: 1,
        mapping_version: 1,
        settings_version: 1,
        aliases_version: 1,
    }
}

fn md(indices: Vec<IndexMetadata>) -> Metadata {
    let mut m = Metadata::default();
    for i in indices {
        m.indices.insert(i.name.clone(), Arc::new(i));
    }
    m
}

#[test]
fn index_blocks_stop_their_levels_with_opensearch_s_messages() {
    let m = md(vec![
        index("ro", &[("index.blocks.read_only", "true")]),
        index("w", &[("index.blocks.write", "true"), ("index.blocks.read", "false")]),
        index("free", &[]),
        index("rod", &[("index.blocks.read_only_allow_delete", "true")]),
    ]);
    assert!(check_indices(&m, Level::Write, &["free", "missing"], false).is_ok());
    assert!(check_indices(&m, Level::Read, &["ro", "w"], false).is_ok());
    let e = check_indices(&m, Level::Write, &["w"], false).unwrap_err();
    assert_eq!(e.kind, ErrorKind::ClusterBlock);
    assert_eq!(e.reason, "index [w] blocked by: [FORBIDDEN/8/index write (api)];");
    assert_eq!(e.status, 403);
    let e = check_indices(&m, Level::MetadataWrite, &["ro", "w", "rod"], false).unwrap_err();
    assert_eq!(
        e.reason,
        "index [ro] blocked by: [FORBIDDEN/5/index read-only (api)];index [rod] blocked by: [TOO_MANY_REQUESTS/12/disk usage exceeded flood-stage watermark, index has read-only-allow-delete block];"
    );
    // A 403 beside a 429: the 403 wins; 429s alone: 429.
    assert_eq!(e.status, 403);
    assert_eq!(check_indices(&m, Level::Write, &["rod"], false).unwrap_err().status, 429);
    // Deleting releases resources: read_only_allow_delete lets it through, read_only does not.
    assert!(check_indices(&m, Level::MetadataWrite, &["rod"], true).is_ok());
    assert!(check_indices(&m, Level::MetadataWrite, &["ro"], true).is_err());
}

#[test]
fn no_cluster_manager_blocks_writes_not_reads() {
    let none = serde_json::Map::new();
    assert!(global_blocks(true, &none).is_empty());
    let g = global_blocks(false, &none);
    assert!(check_global(&g, Level::Read).is_ok());
    let e = check_global(&g, Level::Write).unwrap_err();
    assert_eq!(e.reason, "blocked by: [SERVICE_UNAVAILABLE/2/no cluster-manager];");
    assert_eq!(e.status, 503);
    assert!(retryable(&g, Level::MetadataWrite));
    assert!(!retryable(&g, Level::Read));
}

#[test]
fn cluster_settings_block_writes_and_can_be_lifted() {
    let mut s = serde_json::Map::new();
    s.insert("cluster.blocks.read_only_allow_delete".into(), json!("true"));
    let g = global_blocks(true, &s);
    let e = check_global(&g, Level::Write).unwrap_err();
    assert_eq!(e.reason, "blocked by: [FORBIDDEN/13/cluster read-only / allow delete (api)];");
    assert_eq!(e.status, 403);
    assert!(check_global(&g, Level::Read).is_ok());
    assert!(check_global_releasing(&g, Level::MetadataWrite).is_ok(), "deleting an index releases resources");
    s.insert("cluster.blocks.read_only".into(), json!(true));
    let g = global_blocks(true, &s);
    assert!(check_global_releasing(&g, Level::MetadataWrite).is_err());
    assert!(cluster_settings_update_passes_blocks(&["cluster.blocks.read_only"], &[]));
    assert!(!cluster_settings_update_passes_blocks(&["cluster.blocks.read_only", "search.max_buckets"], &[]));
    assert!(!cluster_settings_update_passes_blocks(&["cluster.blocks.read_only"], &["search.max_buckets"]));
}

#[test]
fn state_shows_blocks_by_id() {
    let m = md(vec![index("ro", &[("index.blocks.read_only", "true")]), index("free", &[])]);
    let names = vec!["ro".to_string(), "free".to_string()];
    assert_eq!(state_json(&[], &md(vec![]), &[]), json!({}));
    let v = state_json(&global_blocks(false, &serde_json::Map::new()), &m, &names);
    assert_eq!(
        v,
        json!({
            "global": {"2": {"description": "no cluster-manager", "retryable": true, "levels": ["write", "metadata_write"]}},
            "indices": {"ro": {"5": {"description": "index read-only (api)", "retryable": false, "levels": ["write", "metadata_write"]}}}
        })
    );
    assert!(settings_update_passes_blocks(&["index.blocks.write", "index.blocks.read_only"]));
    assert!(settings_update_passes_blocks(&["index.blocks.metadata"]));
    assert!(!settings_update_passes_blocks(&["index.blocks.metadata", "index.number_of_replicas"]));
    assert!(!settings_update_passes_blocks(&["index.blocks.write"]));
}
