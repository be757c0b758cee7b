//! A reindex killed mid-way (SIGKILL of the node, 20,000 documents, `slices=auto` over 2
//! shards, throttled so the kill lands mid-way): after the restart the task is reported as
//! ended without a result, every document in `dest` is one of the source's, unchanged (nothing
//! invented), and a rerun with `op_type: create` and `conflicts: proceed` completes the copy.
//! (Issue 22 names 1M documents; 20k keeps a debug-build test short. The code path is the same.)

mod common;

use std::time::Duration;

use common::cluster::{free_port, start_with, Proc};
use common::http::{get, post, put};
use serde_json::Value;

const DOCS: u64 = 20_000;

fn start(dir: &std::path::Path, port: u16) -> Proc {
    start_with(dir, "n1", port, &format!("127.0.0.1:{port}"), "n1", &[])
}

fn wait_green(p: &Proc) {
    for _ in 0..600 {
        let r = get(p.http, "/_cluster/health?wait_for_status=yellow&timeout=1s");
        if r.status == 200 {
            return;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    panic!("the node did not come up");
}

/// Every document of `dest` (scrolled), checked against what the source holds for its id.
fn check_dest(p: &Proc) -> u64 {
    post(p.http, "/dest/_refresh", "");
    let mut seen = 0;
    let mut r = post(p.http, "/dest/_search?scroll=1m", r#"{"size":2000,"sort":["_doc"]}"#).json();
    loop {
        let hits = r["hits"]["hits"].as_array().cloned().unwrap_or_default();
        if hits.is_empty() {
            break;
        }
        for h in hits {
            let id: u64 = h["_id"].as_str().unwrap().parse().expect("a source id");
            assert!(id < DOCS, "invented id {id}");
            assert_eq!(h["_source"]["n"], id, "{h}");
            assert_eq!(h["_source"]["body"], format!("document number {id}"), "{h}");
            seen += 1;
        }
        let id = r["_scroll_id"].as_str().unwrap().to_string();
        r = post(p.http, "/_search/scroll", &format!(r#"{{"scroll":"1m","scroll_id":"{id}"}}"#)).json();
    }
    seen
}

#[test]
fn killed_reindex_invents_nothing_and_a_create_rerun_completes_it() {
    let _turn = common::cluster::one_cluster_at_a_time();
    let dir = tempfile::tempdir().unwrap();
    let port = free_port();
    let mut p = start(dir.path(), port);
    wait_green(&p);
    put(p.http, "/source", r#"{"settings":{"number_of_shards":2,"number_of_replicas":0}}"#);
    for chunk in 0..(DOCS / 5000) {
        let mut body = String::new();
        for i in chunk * 5000..(chunk + 1) * 5000 {
            body.push_str(&format!(
                "{{\"index\":{{\"_id\":\"{i}\"}}}}\n{{\"n\":{i},\"body\":\"document number {i}\"}}\n"
            ));
        }
        let r = post(p.http, "/source/_bulk", &body);
        assert_eq!(r.json()["errors"], false);
    }
    post(p.http, "/source/_refresh", "");
    // 4,000 documents a second over the two slices: about five seconds of work.
    let r = post(
        p.http,
        "/_reindex?wait_for_completion=false&slices=auto&requests_per_second=4000",
        r#"{"source":{"index":"source","size":500},"dest":{"index":"dest"}}"#,
    );
    assert_eq!(r.status, 200, "{}", r.text());
    let task = r.json()["task"].as_str().unwrap().to_string();
    let mut created = 0;
    for _ in 0..3000 {
        let t = get(p.http, &format!("/_tasks/{task}")).json();
        created = t["task"]["status"]["created"].as_u64().unwrap_or(0);
        if created > 0 {
            break;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    assert!(created > 0 && created < DOCS, "the kill lands mid-way ({created})");
    p.child.kill().unwrap(); // SIGKILL
    p.child.wait().unwrap();
    drop(p);

    let p = start(dir.path(), port);
    wait_green(&p);
    // The task ended with its node: it is reported as such, with no invented result.
    let r = get(p.http, &format!("/_tasks/{task}"));
    assert_eq!(r.status, 404, "{}", r.text());
    assert!(r.text().contains("isn't running and hasn't stored its results"), "{}", r.text());
    let partial = check_dest(&p);
    assert!(partial < DOCS, "part of the copy was acknowledged before the kill ({partial})");

    let body = r#"{"source":{"index":"source"},"dest":{"index":"dest","op_type":"create"},"conflicts":"proceed"}"#;
    let r = post(p.http, "/_reindex?slices=auto&refresh=true", body);
    assert_eq!(r.status, 200, "{}", r.text());
    let v: Value = r.json();
    assert_eq!(v["failures"], serde_json::json!([]), "{v}");
    assert_eq!(v["created"].as_u64().unwrap() + v["version_conflicts"].as_u64().unwrap(), DOCS, "{v}");
    assert_eq!(check_dest(&p), DOCS);
}
