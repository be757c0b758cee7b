//! Corruption found while the node runs (issue 16): damaged bytes met by a search's fetch
//! phase, a get or a force merge fail that shard alone, the same way a shard found corrupt at
//! start fails: the corruption marker is written with the reason, the writer is closed, the
//! shard leaves serving (writes routed to it answer 503, searches count it in `_shards.failed`),
//! health is red for its index and green for the others, and no request loops on 500s. The
//! marker keeps the copy failed across a restart.

mod common;

use std::io::{Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use common::http::{get, post, put, TestServer};
use fathom::cluster::routing::{default_routing_shards, shard_id};
use serde_json::{json, Value};

/// Routing values: `ROUTES[s]` all land on shard `s` of a two-shard index.
fn routes() -> [Vec<String>; 2] {
    let mut out = [Vec::new(), Vec::new()];
    for r in 0..200 {
        let v = format!("r{r}");
        let s = shard_id(&v, 2, default_routing_shards(2)) as usize;
        if out[s].len() < 10 {
            out[s].push(v);
        }
    }
    assert!(out.iter().all(|v| v.len() == 10));
    out
}

struct Setup {
    dir: tempfile::TempDir,
    uuid: String,
    routes: [Vec<String>; 2],
}

/// `two` (two shards, each with two flushed segments of ten documents in all) and `other`.
fn setup(s: &TestServer) -> (String, [Vec<String>; 2]) {
    let body = r#"{"settings":{"number_of_shards":2,"number_of_replicas":0,"refresh_interval":"-1"}}"#;
    assert_eq!(put(s.addr, "/two", body).status, 200);
    assert_eq!(put(s.addr, "/other", r#"{"settings":{"number_of_shards":1,"number_of_replicas":0}}"#).status, 200);
    let routes = routes();
    for half in [0..5, 5..10] {
        for shard in &routes {
            for r in &shard[half.clone()] {
                let resp =
                    put(s.addr, &format!("/two/_doc/{r}?routing={r}"), &format!(r#"{{"text":"words of {r}","n":1}}"#));
                assert_eq!(resp.status, 201, "{}", resp.text());
            }
        }
        assert_eq!(post(s.addr, "/two/_flush", "").status, 200);
    }
    assert_eq!(put(s.addr, "/other/_doc/1", r#"{"y":2}"#).status, 201);
    assert_eq!(post(s.addr, "/_flush", "").status, 200);
    let uuid = get(s.addr, "/two/_settings").json()["two"]["settings"]["index"]["uuid"].as_str().unwrap().to_string();
    (uuid, routes)
}

fn start() -> (Setup, TestServer) {
    let dir = tempfile::tempdir().unwrap();
    let s = TestServer::start(dir.path(), &[]);
    let (uuid, routes) = setup(&s);
    (Setup { dir, uuid, routes }, s)
}

impl Setup {
    fn shard_dir(&self, shard: u32) -> PathBuf {
        self.dir.path().join("nodes/0/indices").join(&self.uuid).join(shard.to_string())
    }
    fn files(&self, shard: u32, ext: &str) -> Vec<PathBuf> {
        let mut v: Vec<PathBuf> = std::fs::read_dir(self.shard_dir(shard).join("index"))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|x| x == ext))
            .collect();
        v.sort();
        assert!(!v.is_empty(), "no .{ext} file in shard {shard}");
        v
    }
}

/// Changes bytes of a live (memory-mapped) segment file in place, as a failing disk would.
fn overwrite(path: &Path, at: u64, bytes: &[u8]) {
    let mut f = std::fs::OpenOptions::new().write(true).open(path).unwrap();
    f.seek(SeekFrom::Start(at)).unwrap();
    f.write_all(bytes).unwrap();
    f.sync_all().unwrap();
}

/// Breaks every zstd frame (the `_source` blocks) of a stored-fields file.
fn break_frames(path: &Path) {
    let b = std::fs::read(path).unwrap();
    let at: Vec<usize> =
        b.windows(4).enumerate().filter(|(_, w)| *w == [0x28, 0xB5, 0x2F, 0xFD]).map(|(i, _)| i).collect();
    assert!(!at.is_empty(), "no zstd frame in {}", path.display());
    for i in at {
        overwrite(path, i as u64, &[0]);
    }
}

/// Flips one bit in the middle of a file.
fn flip_middle(path: &Path) {
    let b = std::fs::read(path).unwrap();
    let mid = b.len() / 2;
    overwrite(path, mid as u64, &[b[mid] ^ 0x10]);
}

/// Everything that must hold once shard 0 of `two` failed while running.
fn assert_failed_alone(st: &Setup, s: &TestServer, source: &str) {
    let marker = std::fs::read_to_string(st.shard_dir(0).join("corrupted")).expect("the marker is written");
    assert!(marker.contains(&format!("reason: failed engine (reason: [corrupt file (source: [{source}])")), "{marker}");
    assert!(!st.shard_dir(1).join("corrupted").exists());
    let h = get(s.addr, "/_cluster/health?level=shards").json();
    assert_eq!(h["status"], json!("red"), "{h}");
    assert_eq!(h["indices"]["two"]["status"], json!("red"), "{h}");
    assert_eq!(h["indices"]["two"]["shards"]["0"]["primary_active"], json!(false), "{h}");
    assert_eq!(h["indices"]["two"]["shards"]["1"]["status"], json!("green"), "{h}");
    assert_eq!(h["indices"]["other"]["status"], json!("green"), "{h}");
    // Searches report the failed shard and serve the other one, again and again (no 500s).
    for _ in 0..3 {
        let r = get(s.addr, "/two/_search?size=100");
        assert_eq!(r.status, 200, "{}", r.text());
        let r = r.json();
        assert_eq!(r["_shards"]["total"], json!(2), "{r}");
        assert_eq!(r["_shards"]["failed"], json!(1), "{r}");
        assert_eq!(r["_shards"]["failures"][0]["shard"], json!(0), "{r}");
        let hits = r["hits"]["hits"].as_array().unwrap();
        assert!(hits.iter().all(|h| st.routes[1].contains(&h["_routing"].as_str().unwrap().to_string())), "{r}");
        assert_eq!(hits.len(), 10, "{r}");
        let c = get(s.addr, "/two/_count").json();
        assert_eq!(c["count"], json!(10), "{c}");
        assert_eq!(c["_shards"]["failed"], json!(1), "{c}");
    }
    // Writes and gets routed to the failed shard: OpenSearch's 503.
    let r0 = &st.routes[0][0];
    let w = put(s.addr, &format!("/two/_doc/new?routing={r0}"), r#"{"x":2}"#);
    assert_eq!(w.status, 503, "{}", w.text());
    assert_eq!(w.json()["error"]["type"], json!("unavailable_shards_exception"), "{}", w.text());
    assert_eq!(get(s.addr, &format!("/two/_doc/{r0}?routing={r0}")).status, 503);
    // The healthy shard and the other index serve reads and writes; no data is lost there.
    let r1 = &st.routes[1][3];
    let g = get(s.addr, &format!("/two/_doc/{r1}?routing={r1}")).json();
    assert_eq!(g["found"], json!(true), "{g}");
    assert_eq!(g["_source"]["text"], json!(format!("words of {r1}")), "{g}");
    let w = put(s.addr, &format!("/two/_doc/new?routing={r1}&refresh=true"), r#"{"x":2}"#);
    assert_eq!(w.status, 201, "{}", w.text());
    assert_eq!(get(s.addr, "/other/_doc/1").json()["found"], json!(true));
    assert_eq!(put(s.addr, "/other/_doc/2?refresh=true", r#"{"y":3}"#).status, 201);
    assert_eq!(get(s.addr, "/other/_count").json()["count"], json!(2));
}

fn restart_stays_failed(st: &Setup, s: TestServer) {
    s.stop();
    let s = TestServer::start(st.dir.path(), &[]);
    let h = get(s.addr, "/_cluster/health?level=shards").json();
    assert_eq!(h["indices"]["two"]["shards"]["0"]["primary_active"], json!(false), "{h}");
    assert_eq!(h["indices"]["other"]["status"], json!("green"), "{h}");
    assert_eq!(get(s.addr, "/two/_count").json()["count"], json!(11));
    assert_eq!(get(s.addr, "/other/_count").json()["count"], json!(2));
    s.stop();
}

#[test]
fn damage_met_by_a_search_fetch_fails_the_shard() {
    let (st, s) = start();
    // A point in time opened before the damage pins both shards.
    let pit =
        post(s.addr, "/two/_search/point_in_time?keep_alive=5m", "").json()["pit_id"].as_str().unwrap().to_string();
    for f in st.files(0, "fdt") {
        break_frames(&f);
    }
    // The query phase reads no stored field; the fetch phase of shard 0's hits meets the damage.
    let r = get(s.addr, "/two/_search?size=100");
    assert_eq!(r.status, 200, "{}", r.text());
    let r = r.json();
    assert_eq!(r["_shards"]["failed"], json!(1), "{r}");
    let f = &r["_shards"]["failures"][0];
    assert_eq!(f["shard"], json!(0), "{r}");
    assert_eq!(f["reason"]["type"], json!("corrupt_index_exception"), "{r}");
    assert_eq!(r["hits"]["hits"].as_array().unwrap().len(), 10, "{r}");
    assert_failed_alone(&st, &s, "fetch");
    // The failed shard's pinned view is out of serving too: the PIT search counts it failed.
    let r = post(s.addr, "/_search", &json!({"size": 100, "pit": {"id": pit}, "_source": false}).to_string());
    assert_eq!(r.status, 200, "{}", r.text());
    let r = r.json();
    assert_eq!(r["_shards"]["total"], json!(2), "{r}");
    assert_eq!(r["_shards"]["failed"], json!(1), "{r}");
    assert_eq!(r["_shards"]["failures"][0]["reason"]["type"], json!("no_shard_available_action_exception"), "{r}");
    assert_eq!(r["hits"]["hits"].as_array().unwrap().len(), 10, "{r}");
    restart_stays_failed(&st, s);
}

#[test]
fn damage_met_by_a_get_fails_the_shard() {
    let (st, s) = start();
    for f in st.files(0, "fdt") {
        break_frames(&f);
    }
    let r0 = &st.routes[0][2];
    let g = get(s.addr, &format!("/two/_doc/{r0}?routing={r0}"));
    assert_eq!(g.status, 500, "{}", g.text());
    assert_eq!(g.json()["error"]["type"], json!("corrupt_index_exception"), "{}", g.text());
    assert_failed_alone(&st, &s, "get");
    restart_stays_failed(&st, s);
}

#[test]
fn damage_met_by_a_force_merge_fails_the_shard() {
    let (st, s) = start();
    // A merge verifies every byte of its sources first; no search reads this bit.
    flip_middle(&st.files(0, "fdt")[0]);
    let r = post(s.addr, "/two/_forcemerge?max_num_segments=1", "");
    assert_eq!(r.status, 200, "{}", r.text());
    let r: Value = r.json();
    assert_eq!(r["_shards"]["failed"], json!(1), "{r}");
    assert_eq!(r["_shards"]["failures"][0]["shard"], json!(0), "{r}");
    assert_failed_alone(&st, &s, "force merge");
    restart_stays_failed(&st, s);
}
