//! Document and index API defects of issue 16 over real HTTP: compare-and-set on `_update`,
//! `realtime=false` reads, `_source` filtering forms of get/get_source/mget, and the status of
//! creating an index that exists.
#![cfg(feature = "server")]

mod common;

use common::http::*;
use serde_json::{json, Value};

fn ndjson(s: &TestServer, path: &str, body: &str) -> Resp {
    send(s.addr, "POST", path, Some(body.as_bytes()), &[("Content-Type", "application/x-ndjson")])
}

#[test]
fn update_with_a_stale_seq_no_is_a_conflict_and_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let s = TestServer::start(dir.path(), &[]);
    assert_eq!(put(s.addr, "/u/_doc/1?refresh=true", r#"{"a":1}"#).status, 201);
    assert_eq!(put(s.addr, "/u/_doc/1", r#"{"a":1}"#).status, 200); // seq_no 1 now
                                                                    // A doc that would be a noop, a script that deletes, and a real change: all 409.
    for body in [r#"{"doc":{"a":1}}"#, r#"{"script":"ctx.op = 'delete'"}"#, r#"{"doc":{"a":2}}"#] {
        let r = post(s.addr, "/u/_update/1?if_seq_no=0&if_primary_term=1", body);
        assert_eq!(r.status, 409, "{body}: {}", r.text());
        assert_eq!(r.json()["error"]["type"], "version_conflict_engine_exception");
        assert_eq!(
            r.json()["error"]["reason"],
            "[1]: version conflict, required seqNo [0], primary term [1]. current document has seqNo [1] and primary term [1]"
        );
    }
    let r = post(s.addr, "/u/_update/1?if_seq_no=1&if_primary_term=9", r#"{"doc":{"a":1}}"#);
    assert_eq!(r.status, 409, "{}", r.text());
    let g = get(s.addr, "/u/_doc/1").json();
    assert_eq!((g["_version"].clone(), g["_source"].clone()), (json!(2), json!({"a": 1})));

    // The same in a bulk update line.
    let r = ndjson(
        &s,
        "/_bulk",
        "{\"update\":{\"_index\":\"u\",\"_id\":\"1\",\"if_seq_no\":0,\"if_primary_term\":1}}\n{\"doc\":{\"a\":1}}\n",
    );
    let item = &r.json()["items"][0]["update"];
    assert_eq!(item["status"], 409, "{item}");
    assert_eq!(item["error"]["type"], "version_conflict_engine_exception");
    assert_eq!(get(s.addr, "/u/_doc/1").json()["_version"], 2);

    // The current pair works.
    let r = post(s.addr, "/u/_update/1?if_seq_no=1&if_primary_term=1", r#"{"doc":{"a":3}}"#);
    assert_eq!((r.status, r.json()["result"].clone()), (200, json!("updated")));

    // UpdateRequest.validate and the bulk parser's versioning check.
    let r = post(s.addr, "/u/_update/9?if_seq_no=0&if_primary_term=1", r#"{"doc":{"a":1},"upsert":{"a":0}}"#);
    assert_eq!(
        r.json()["error"]["reason"],
        "Validation Failed: 1: upsert requests don't support `if_seq_no` and `if_primary_term`;"
    );
    let r = post(s.addr, "/u/_update/9?if_seq_no=0&if_primary_term=1", r#"{"doc":{"a":1},"doc_as_upsert":true}"#);
    assert_eq!(
        r.json()["error"]["reason"],
        "Validation Failed: 1: compare and write operations can not be used with upsert;"
    );
    let r = post(s.addr, "/u/_update/9", r#"{"script":"ctx._source.a = 1","doc_as_upsert":true}"#);
    assert_eq!(r.json()["error"]["reason"], "Validation Failed: 1: doc must be specified if doc_as_upsert is enabled;");
    let r = post(s.addr, "/u/_update/1?version=3", r#"{"doc":{"a":1}}"#);
    assert_eq!(
        (r.status, r.json()["error"]["reason"].clone()),
        (400, json!("Validation Failed: 1: internal versioning can not be used for optimistic concurrency control. Please use `if_seq_no` and `if_primary_term` instead;"))
    );
    let r = ndjson(&s, "/_bulk", "{\"update\":{\"_index\":\"u\",\"_id\":\"1\",\"version\":3}}\n{\"doc\":{\"a\":1}}\n");
    assert_eq!(r.status, 400, "{}", r.text());
    assert_eq!(
        r.json()["error"]["reason"],
        "Update requests do not support versioning. Please use `if_seq_no` and `if_primary_term` instead"
    );
}

#[test]
fn realtime_false_reads_only_refreshed_documents() {
    let dir = tempfile::tempdir().unwrap();
    let s = TestServer::start(dir.path(), &[]);
    assert_eq!(put(s.addr, "/r", r#"{"settings":{"refresh_interval":"-1","number_of_replicas":0}}"#).status, 200);
    assert_eq!(put(s.addr, "/r/_doc/old?refresh=true", r#"{"v":1}"#).status, 201);
    assert_eq!(put(s.addr, "/r/_doc/1", r#"{"foo":"bar"}"#).status, 201);
    assert_eq!(put(s.addr, "/r/_doc/old", r#"{"v":2}"#).status, 200);

    assert_eq!(get(s.addr, "/r/_doc/1?realtime=false").json()["found"], false);
    assert_eq!(send(s.addr, "HEAD", "/r/_doc/1?realtime=false", None, &[]).status, 404);
    let r = get(s.addr, "/r/_source/1?realtime=false");
    assert_eq!((r.status, r.json()["error"]["reason"].clone()), (404, json!("Document not found [r]/[1]")));
    let m = post(s.addr, "/r/_mget?realtime=false", r#"{"ids":["1","old"]}"#).json();
    assert_eq!(m["docs"][0]["found"], false);
    // The refreshed copy of `old`, not the newer buffered one.
    assert_eq!(m["docs"][1]["_source"], json!({"v": 1}));
    // A delete is not visible to non-realtime reads (nor searches) before a refresh either.
    assert_eq!(delete(s.addr, "/r/_doc/old").status, 200);
    assert_eq!(get(s.addr, "/r/_doc/old?realtime=false").json()["_source"], json!({"v": 1}));
    assert_eq!(
        post(s.addr, "/r/_search", r#"{"query":{"ids":{"values":["old"]}}}"#).json()["hits"]["total"]["value"],
        1
    );
    assert_eq!(post(s.addr, "/r/_refresh", "").status, 200);
    assert_eq!(get(s.addr, "/r/_doc/old?realtime=false").json()["found"], false);
    assert_eq!(put(s.addr, "/r/_doc/old", r#"{"v":2}"#).status, 201);
    // Realtime (the default) sees both writes.
    assert_eq!(get(s.addr, "/r/_doc/1").json()["found"], true);
    assert_eq!(get(s.addr, "/r/_doc/old").json()["_source"], json!({"v": 2}));
    // refresh=true makes them visible to the non-realtime read too.
    assert_eq!(get(s.addr, "/r/_doc/1?realtime=false&refresh=true").json()["found"], true);
    assert_eq!(get(s.addr, "/r/_doc/old?realtime=false").json()["_source"], json!({"v": 2}));
}

#[test]
fn source_filtering_forms_of_get_get_source_and_mget() {
    let dir = tempfile::tempdir().unwrap();
    let s = TestServer::start(dir.path(), &[]);
    let doc = json!({"a.b": 1, "a": {"c": 2}, "x": {"y": {"z": 3, "w": 4}}, "arr": [{"k": 1, "l": 2}], "n": 5});
    assert_eq!(put(s.addr, "/f/_doc/1?refresh=true", &doc.to_string()).status, 201);
    let src = |q: &str| get(s.addr, &format!("/f/_doc/1?{q}")).json()["_source"].clone();
    assert_eq!(src("_source=a"), json!({"a.b": 1, "a": {"c": 2}}));
    assert_eq!(src("_source_excludes=a"), json!({"x": {"y": {"z": 3, "w": 4}}, "arr": [{"k": 1, "l": 2}], "n": 5}));
    assert_eq!(src("_source_includes=x.*&_source_excludes=x.y.w"), json!({"x": {"y": {"z": 3}}}));
    assert_eq!(src("_source=*.z,n"), json!({"x": {"y": {"z": 3}}, "n": 5}));
    assert_eq!(src("_source_includes=arr.k"), json!({"arr": [{"k": 1}]}));
    assert_eq!(src("_source=false&_source_includes=n"), Value::Null);
    // An explicit `_source=true` returns the source beside stored_fields; without it, not.
    assert_eq!(src("_source=true&stored_fields=n"), doc);
    assert_eq!(src("stored_fields=n"), Value::Null);
    assert_eq!(src("stored_fields=n,_source"), doc);

    let r = get(s.addr, "/f/_source/1?_source_includes=x.y.z");
    assert_eq!(r.json(), json!({"x": {"y": {"z": 3}}}));
    let r = get(s.addr, "/f/_source/1?_source=false");
    assert_eq!(
        (r.status, r.json()["error"]["reason"].clone()),
        (400, json!("Validation Failed: 1: fetching source can not be disabled;"))
    );
    assert_eq!(get(s.addr, "/f/_source/1?stored_fields=n").status, 400);

    let m = post(
        s.addr,
        "/f/_mget?_source_excludes=x",
        r#"{"docs":[{"_id":"1"},{"_id":"1","_source":{"include":["x"],"exclude":["*.w"]}},{"_id":"1","_source":"n"},{"_id":"1","_source":false}]}"#,
    )
    .json();
    assert_eq!(m["docs"][0]["_source"], json!({"a.b": 1, "a": {"c": 2}, "arr": [{"k": 1, "l": 2}], "n": 5}));
    assert_eq!(m["docs"][1]["_source"], json!({"x": {"y": {"z": 3}}}));
    assert_eq!(m["docs"][2]["_source"], json!({"n": 5}));
    assert_eq!(m["docs"][3].get("_source"), None);

    // `_source.enabled: false` keeps no source to return.
    assert_eq!(put(s.addr, "/nosrc", r#"{"mappings":{"_source":{"enabled":false}}}"#).status, 200);
    assert_eq!(put(s.addr, "/nosrc/_doc/1", r#"{"foo":"bar"}"#).status, 201);
    assert_eq!(get(s.addr, "/nosrc/_doc/1").json().get("_source"), None);
    let r = get(s.addr, "/nosrc/_source/1");
    assert_eq!((r.status, r.json()["error"]["reason"].clone()), (404, json!("Source not found [nosrc]/[1]")));
}

#[test]
fn creating_an_existing_index_is_a_bad_request() {
    let dir = tempfile::tempdir().unwrap();
    let s = TestServer::start(dir.path(), &[]);
    assert_eq!(put(s.addr, "/dup", "{}").status, 200);
    let r = put(s.addr, "/dup", "{}");
    assert_eq!(r.status, 400, "{}", r.text());
    assert_eq!(r.json()["status"], 400);
    assert_eq!(r.json()["error"]["type"], "resource_already_exists_exception");
}

#[test]
fn mget_validation_and_removed_item_fields() {
    let dir = tempfile::tempdir().unwrap();
    let s = TestServer::start(dir.path(), &[]);
    assert_eq!(put(s.addr, "/m/_doc/1", r#"{"foo":"bar"}"#).status, 201);
    let r = post(s.addr, "/_mget", r#"{"docs":[{"_index":"m"},{"_id":"1"}]}"#);
    assert_eq!(
        r.json()["error"]["reason"],
        "Validation Failed: 1: id is missing for doc 0;2: index is missing for doc 1;"
    );
    let r = post(s.addr, "/_mget", "{}");
    assert_eq!(r.json()["error"]["reason"], "Validation Failed: 1: no documents to get;");
    let r = post(s.addr, "/_mget", r#"{"docs":[{"_index":"m","_id":"1","_routing":"x"}]}"#);
    assert_eq!((r.status, r.json()["error"]["type"].clone()), (400, json!("parse_exception")));
    let r = post(s.addr, "/m/_mget", r#"{"docs":[{"_id":"1","version":7}]}"#).json();
    assert_eq!(r["docs"][0]["error"]["type"], "version_conflict_engine_exception");
}

#[test]
fn explain_scores_one_document() {
    let dir = tempfile::tempdir().unwrap();
    let s = TestServer::start(dir.path(), &[]);
    assert_eq!(put(s.addr, "/e", r#"{"aliases":{"ea":{"filter":{"term":{"foo":"bar"}}}}}"#).status, 200);
    assert_eq!(put(s.addr, "/e/_doc/1?refresh=true", r#"{"foo":"bar","title":"howdy partner"}"#).status, 201);
    let r = post(s.addr, "/e/_explain/1", r#"{"query":{"match_all":{}}}"#).json();
    assert_eq!(
        (r["_index"].clone(), r["matched"].clone(), r["explanation"]["value"].clone()),
        (json!("e"), json!(true), json!(1.0))
    );
    let r = get(s.addr, "/ea/_explain/1?q=title:howdy").json();
    assert_eq!((r["_index"].clone(), r["matched"].clone()), (json!("e"), json!(true)));
    assert!(r["explanation"]["value"].as_f64().unwrap() > 0.0, "{r}");
    let r = get(s.addr, "/e/_explain/1?q=title:nope").json();
    assert_eq!(r["matched"], false);
    let r = get(s.addr, "/e/_explain/zz?q=title:howdy");
    assert_eq!((r.status, r.json()["matched"].clone()), (404, json!(false)));
    let r = post(s.addr, "/e/_explain/1", r#"{"match_all":{}}"#);
    assert_eq!((r.status, r.json()["error"]["reason"].clone()), (400, json!("request does not support [match_all]")));
    // Not refreshed yet: a search (and so explain) does not see it.
    assert_eq!(put(s.addr, "/e/_doc/2", r#"{"foo":"bar"}"#).status, 201);
    assert_eq!(get(s.addr, "/e/_explain/2?q=foo:bar").status, 404);
}

#[test]
fn put_alias_forms_and_error_traces() {
    let dir = tempfile::tempdir().unwrap();
    let s = TestServer::start(dir.path(), &[]);
    assert_eq!(put(s.addr, "/pa", "{}").status, 200);
    assert_eq!(post(s.addr, "/_alias/a1", r#"{"index":"pa"}"#).status, 200);
    assert_eq!(put(s.addr, "/_alias", r#"{"index":"pa","alias":"a2","routing":"r","index_routing":"i"}"#).status, 200);
    assert_eq!(put(s.addr, "/nope/_alias/zz", r#"{"index":"pa","alias":"a3"}"#).status, 200);
    let a = get(s.addr, "/pa/_alias").json();
    assert_eq!(a["pa"]["aliases"]["a2"], json!({"index_routing": "i", "search_routing": "r"}));
    assert!(a["pa"]["aliases"]["a1"].is_object() && a["pa"]["aliases"]["a3"].is_object(), "{a}");
    let r = put(s.addr, "/pa/_alias/a4", r#"{"abc":1}"#);
    assert_eq!((r.status, r.json()["error"]["reason"].clone()), (400, json!("unknown field [abc]")));
    assert_eq!(put(s.addr, "/_alias", "{}").status, 400);

    // error_trace: every error of the body gets a stack_trace, only when asked.
    let body = "{\"update\":{\"_index\":\"missing_idx\",\"_id\":\"123\"}}\n{\"doc\":{\"f\":1}}\n";
    let r = ndjson(&s, "/_bulk?error_trace=true", body).json();
    let trace = r["items"][0]["update"]["error"]["stack_trace"].as_str().unwrap().to_string();
    assert!(
        trace.contains("[[missing_idx][0]]") && trace.contains("DocumentMissingException[[123]: document missing]"),
        "{trace}"
    );
    let r = ndjson(&s, "/_bulk", body).json();
    assert_eq!(r["items"][0]["update"]["error"].get("stack_trace"), None);
    let r = get(s.addr, "/never_made/_doc/1?error_trace=true").json();
    assert!(
        r["error"]["root_cause"][0]["stack_trace"]
            .as_str()
            .unwrap()
            .contains("IndexNotFoundException[no such index [never_made]]"),
        "{r}"
    );

    // flush and forcemerge parameters.
    let r = post(s.addr, "/pa/_flush?force=true&wait_if_ongoing=false", "");
    assert_eq!(r.json()["error"]["reason"], "Validation Failed: 1: wait_if_ongoing must be true for a force flush;");
    let r = post(s.addr, "/pa/_forcemerge?only_expunge_deletes=true&max_num_segments=2", "");
    assert_eq!(r.status, 200, "{}", r.text());
    assert!(r.header("Warning").is_some_and(
        |w| w.contains("setting only_expunge_deletes and max_num_segments at the same time is deprecated")
    ));
}

#[test]
fn resolve_index_and_validate_query() {
    let dir = tempfile::tempdir().unwrap();
    let s = TestServer::start(dir.path(), &[]);
    assert_eq!(put(s.addr, "/ri1", r#"{"aliases":{"ra":{},"rb":{}}}"#).status, 200);
    assert_eq!(put(s.addr, "/ri2", r#"{"aliases":{"ra":{}}}"#).status, 200);
    assert_eq!(post(s.addr, "/ri2/_close", "").status, 200);
    let r = get(s.addr, "/_resolve/index/r*").json();
    assert_eq!(r["indices"], json!([{"name": "ri1", "aliases": ["ra", "rb"], "attributes": ["open"]}]));
    assert_eq!(r["aliases"][0], json!({"name": "ra", "indices": ["ri1", "ri2"]}));
    assert_eq!(r["data_streams"], json!([]));
    let r = get(s.addr, "/_resolve/index/r*?expand_wildcards=all").json();
    assert_eq!(r["indices"][1]["attributes"], json!(["closed"]));
    assert_eq!(get(s.addr, "/_resolve/index/nope").status, 404);

    let r = post(s.addr, "/ri1/_validate/query", r#"{"query":{"match":{"f":"x"}}}"#).json();
    assert_eq!(r["valid"], true);
    assert_eq!(get(s.addr, "/ri1/_validate/query?q=f:x").json()["valid"], true);
    let r = post(s.addr, "/ri1/_validate/query", r#"{"query":{"invalid_query":{}}}"#).json();
    assert_eq!(r, json!({"valid": false}));
    let r = post(s.addr, "/ri1/_validate/query?explain=true", r#"{"match_all":{}}"#).json();
    assert_eq!(r, json!({"valid": false, "error": "ParsingException[request does not support [match_all]]"}));
    // Lucene's query text is not something Fathom can print: refused, not faked.
    assert_eq!(post(s.addr, "/ri1/_validate/query?explain=true", r#"{"query":{"match_all":{}}}"#).status, 400);
}
