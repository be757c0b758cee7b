//! One flipped bit in one file of one shard (issue 16): the node still starts, that shard is
//! failed (its index red with the reason in the log and a corruption marker), the index's other
//! shard and every other index serve, writes routed to the failed shard get 503, and the marker
//! keeps the copy failed across restarts until the operator removes it.

mod common;

use std::path::{Path, PathBuf};

use common::http::{get, post, put, TestServer};
use serde_json::json;

fn shard_dir(data: &Path, uuid: &str, shard: u32) -> PathBuf {
    data.join("nodes/0/indices").join(uuid).join(shard.to_string())
}

/// Flips one bit in the middle of the shard's first `.si` file.
fn flip_a_bit(dir: &Path) -> PathBuf {
    let index = dir.join("index");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&index)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "si"))
        .collect();
    files.sort();
    let f = files.first().cloned().unwrap_or_else(|| panic!("no .si in {}", index.display()));
    let mut bytes = std::fs::read(&f).unwrap();
    let mid = bytes.len() / 2;
    bytes[mid] ^= 0x10;
    std::fs::write(&f, &bytes).unwrap();
    f
}

#[test]
fn a_corrupt_shard_fails_alone_and_stays_failed() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path();
    let s = TestServer::start(data, &[]);
    assert_eq!(put(s.addr, "/two", r#"{"settings":{"number_of_shards":2,"number_of_replicas":0}}"#).status, 200);
    assert_eq!(put(s.addr, "/other", r#"{"settings":{"number_of_shards":1,"number_of_replicas":0}}"#).status, 200);
    // Documents on both shards of `two` (routing values that land on shards 0 and 1).
    let mut on = [None, None];
    for r in 0..40 {
        let routing = format!("r{r}");
        let resp = put(s.addr, &format!("/two/_doc/{r}?routing={routing}"), r#"{"x":1}"#);
        assert_eq!(resp.status, 201, "{}", resp.text());
    }
    assert_eq!(put(s.addr, "/other/_doc/1", r#"{"y":2}"#).status, 201);
    assert_eq!(post(s.addr, "/_flush", "").status, 200);
    // Which routing value lives on which shard: search each shard alone.
    for sh in 0..2u32 {
        let r = get(s.addr, &format!("/two/_search?preference=_shards:{sh}&size=1")).json();
        let hit = &r["hits"]["hits"][0];
        on[sh as usize] = Some(hit["_routing"].as_str().expect("a routed hit").to_string());
    }
    let uuid = get(s.addr, "/two/_settings").json()["two"]["settings"]["index"]["uuid"].as_str().unwrap().to_string();
    s.stop();

    let bad = shard_dir(data, &uuid, 0);
    flip_a_bit(&bad);
    for round in 0..2 {
        let s = TestServer::start(data, &[]);
        let h = get(s.addr, "/_cluster/health?level=shards").json();
        assert_eq!(h["status"], json!("red"), "round {round}: {h}");
        assert_eq!(h["indices"]["two"]["status"], json!("red"), "{h}");
        assert_eq!(h["indices"]["two"]["shards"]["0"]["primary_active"], json!(false), "{h}");
        assert_eq!(h["indices"]["two"]["shards"]["1"]["status"], json!("green"), "{h}");
        assert_eq!(h["indices"]["other"]["status"], json!("green"), "{h}");
        assert!(bad.join("corrupted").exists(), "the marker is written");
        // The other index and the healthy shard serve.
        assert_eq!(get(s.addr, "/other/_doc/1").json()["found"], json!(true));
        let r1 = on[1].clone().unwrap();
        let g = get(s.addr, &format!("/two/_doc/{}?routing={r1}", r1.trim_start_matches('r'))).json();
        assert_eq!(g["found"], json!(true), "{g}");
        let sr = get(s.addr, "/two/_search").json();
        assert_eq!(sr["_shards"]["total"], json!(2), "{sr}");
        assert_eq!(sr["_shards"]["failed"], json!(1), "{sr}");
        assert!(sr["hits"]["total"]["value"].as_u64().unwrap() > 0, "{sr}");
        // Writes to the failed shard: 503.
        let r0 = on[0].clone().unwrap();
        let w = put(s.addr, &format!("/two/_doc/new?routing={r0}"), r#"{"x":2}"#);
        assert_eq!(w.status, 503, "{}", w.text());
        assert_eq!(w.json()["error"]["type"], json!("unavailable_shards_exception"), "{}", w.text());
        s.stop();
    }
    // The marker alone keeps the copy failed: restoring the bit does not bring it back...
    flip_a_bit(&bad);
    let s = TestServer::start(data, &[]);
    assert_eq!(get(s.addr, "/_cluster/health").json()["status"], json!("red"));
    s.stop();
    // ...until the operator removes the marker.
    std::fs::remove_file(bad.join("corrupted")).unwrap();
    let s = TestServer::start(data, &[]);
    assert_eq!(get(s.addr, "/_cluster/health").json()["status"], json!("green"));
    assert_eq!(get(s.addr, "/two/_count").json()["count"], json!(40));
}
