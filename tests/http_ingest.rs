//! Ingest pipelines over real HTTP (issue 22): stored pipelines (put, get, delete), `_simulate`
//! (plain and verbose), `pipeline` on index and on bulk items, `index.default_pipeline` and
//! `index.final_pipeline`, `drop`, failures handled by `on_failure` with the failure metadata,
//! unknown processors refused at PUT time, the per-pipeline counts of `_nodes/stats/ingest`, and
//! the grok processor with `_ingest/processor/grok`.
#![cfg(feature = "server")]

mod common;

use common::http::*;
use serde_json::json;

fn ndjson(s: std::net::SocketAddr, path: &str, body: &str) -> Resp {
    send(s, "POST", path, Some(body.as_bytes()), &[("Content-Type", "application/x-ndjson")])
}

#[test]
fn stored_pipelines_put_get_delete_and_refuse_unknown_processors() {
    let dir = tempfile::tempdir().unwrap();
    let s = TestServer::start(dir.path(), &[]);
    let def = r#"{"description": "d", "processors": [{"set": {"field": "a", "value": 1}}]}"#;
    let r = put(s.addr, "/_ingest/pipeline/p1", def);
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.json(), json!({"acknowledged": true}));
    let r = get(s.addr, "/_ingest/pipeline/p1");
    assert_eq!(r.status, 200);
    assert_eq!(r.json()["p1"]["processors"][0]["set"]["field"], "a");
    assert_eq!(get(s.addr, "/_ingest/pipeline/nope").status, 404);

    // A processor type Fathom does not have is an error at PUT time, never skipped.
    let r = put(s.addr, "/_ingest/pipeline/bad", r#"{"processors": [{"no_such": {"field": "a"}}]}"#);
    assert_eq!(r.status, 400, "{}", r.text());
    assert_eq!(r.json()["error"]["reason"], "No processor type exists with name [no_such]");
    assert_eq!(r.json()["error"]["processor_type"], "no_such");
    // A missing option names its property.
    let r = put(s.addr, "/_ingest/pipeline/bad", r#"{"processors": [{"set": {"tag": "t", "value": 1}}]}"#);
    assert_eq!(r.status, 400);
    let e = &r.json()["error"];
    assert_eq!(
        (e["type"].as_str(), e["reason"].as_str()),
        (Some("parse_exception"), Some("[field] required property is missing"))
    );
    assert_eq!((e["processor_tag"].as_str(), e["property_name"].as_str()), (Some("t"), Some("field")));
    // An unknown option too.
    let r = put(s.addr, "/_ingest/pipeline/bad", r#"{"processors": [{"set": {"field": "a", "value": 1, "x": 2}}]}"#);
    assert_eq!(r.status, 400);
    assert!(r.json()["error"]["reason"]
        .as_str()
        .unwrap()
        .contains("doesn't support one or more provided configuration parameters [x]"));

    let r = delete(s.addr, "/_ingest/pipeline/p1");
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(delete(s.addr, "/_ingest/pipeline/p1").status, 404);
}

#[test]
fn index_and_bulk_run_pipelines_default_and_final() {
    let dir = tempfile::tempdir().unwrap();
    let s = TestServer::start(dir.path(), &[]);
    let p = |id: &str, field: &str| {
        let body =
            format!(r#"{{"processors": [{{"set": {{"field": "{field}", "value": "{{{{_ingest.pipeline}}}}"}}}}]}}"#);
        assert_eq!(put(s.addr, &format!("/_ingest/pipeline/{id}"), &body).status, 200);
    };
    p("explicit", "by_explicit");
    p("dflt", "by_default");
    p("fin", "by_final");
    let r = put(s.addr, "/idx", r#"{"settings": {"index.default_pipeline": "dflt", "index.final_pipeline": "fin"}}"#);
    assert_eq!(r.status, 200, "{}", r.text());

    // The default pipeline and then the final one.
    assert_eq!(put(s.addr, "/idx/_doc/1", r#"{"x": 1}"#).status, 201);
    let src = get(s.addr, "/idx/_doc/1").json()["_source"].clone();
    assert_eq!(src, json!({"x": 1, "by_default": "dflt", "by_final": "fin"}));
    // An explicit pipeline replaces the default; the final one still runs.
    assert_eq!(put(s.addr, "/idx/_doc/2?pipeline=explicit", r#"{"x": 2}"#).status, 201);
    let src = get(s.addr, "/idx/_doc/2").json()["_source"].clone();
    assert_eq!(src, json!({"x": 2, "by_explicit": "explicit", "by_final": "fin"}));
    // `_none` skips the default only.
    assert_eq!(put(s.addr, "/idx/_doc/3?pipeline=_none", r#"{"x": 3}"#).status, 201);
    assert_eq!(get(s.addr, "/idx/_doc/3").json()["_source"], json!({"x": 3, "by_final": "fin"}));

    // Bulk: per-item pipeline over the URL's, and `ingest_took`.
    let body = concat!(
        "{\"index\": {\"_index\": \"plain\", \"_id\": \"a\"}}\n{\"n\": 1}\n",
        "{\"index\": {\"_index\": \"plain\", \"_id\": \"b\", \"pipeline\": \"dflt\"}}\n{\"n\": 2}\n",
    );
    let r = ndjson(s.addr, "/_bulk?pipeline=explicit&refresh=true", body);
    assert_eq!(r.status, 200, "{}", r.text());
    let v = r.json();
    assert_eq!(v["errors"], false, "{v}");
    assert!(v["ingest_took"].is_u64(), "{v}");
    assert_eq!(get(s.addr, "/plain/_doc/a").json()["_source"], json!({"n": 1, "by_explicit": "explicit"}));
    assert_eq!(get(s.addr, "/plain/_doc/b").json()["_source"], json!({"n": 2, "by_default": "dflt"}));

    // A pipeline that does not exist fails the item, not the request.
    let r = ndjson(s.addr, "/_bulk", "{\"index\": {\"_index\": \"plain\", \"pipeline\": \"gone\"}}\n{}\n");
    assert_eq!(r.json()["items"][0]["index"]["error"]["reason"], "pipeline with id [gone] does not exist");

    // The node counted every document through each pipeline.
    let st = get(s.addr, "/_nodes/stats/ingest").json();
    let node = st["nodes"].as_object().unwrap().values().next().unwrap().clone();
    assert_eq!(node["ingest"]["pipelines"]["fin"]["count"], 3, "{node}");
    assert_eq!(node["ingest"]["pipelines"]["explicit"]["count"], 2);
    assert_eq!(node["ingest"]["total"]["count"], 7);
    assert_eq!(node["ingest"]["total"]["failed"], 0);
    assert_eq!(node["ingest"]["pipelines"]["fin"]["processors"][0]["set"]["stats"]["count"], 3, "{node}");
    assert_eq!(node["ingest"]["pipelines"]["fin"]["processors"][0]["set"]["type"], "set");
}

#[test]
fn drop_and_on_failure_metadata() {
    let dir = tempfile::tempdir().unwrap();
    let s = TestServer::start(dir.path(), &[]);
    let def = r#"{"processors": [
        {"drop": {"if": "ctx.kind == 'noise'"}},
        {"rename": {"field": "missing", "target_field": "x", "tag": "rn",
          "on_failure": [{"set": {"field": "why", "value": "{{_ingest.on_failure_message}} by {{_ingest.on_failure_processor_type}}/{{_ingest.on_failure_processor_tag}}"}}]}},
        {"fail": {"message": "fatal {{kind}}", "if": "ctx.kind == 'bad'"}}
    ]}"#;
    assert_eq!(put(s.addr, "/_ingest/pipeline/p", def).status, 200);
    let r = put(s.addr, "/i/_doc/1?pipeline=p", r#"{"kind": "noise"}"#);
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.json()["result"], "noop");
    assert_eq!(get(s.addr, "/i/_doc/1").status, 404);

    assert_eq!(put(s.addr, "/i/_doc/2?pipeline=p", r#"{"kind": "ok"}"#).status, 201);
    let src = get(s.addr, "/i/_doc/2").json()["_source"].clone();
    assert_eq!(src["why"], "field [missing] doesn't exist by rename/rn");

    let r = put(s.addr, "/i/_doc/3?pipeline=p", r#"{"kind": "bad"}"#);
    assert_eq!(r.status, 500, "{}", r.text());
    assert_eq!(r.json()["error"]["type"], "fail_processor_exception");
    assert_eq!(r.json()["error"]["reason"], "fatal bad");
}

#[test]
fn simulate_plain_and_verbose() {
    let dir = tempfile::tempdir().unwrap();
    let s = TestServer::start(dir.path(), &[]);
    let body = r#"{
        "pipeline": {"processors": [
            {"set": {"field": "a", "value": "v", "tag": "t1"}},
            {"uppercase": {"field": "a"}},
            {"lowercase": {"field": "nope", "ignore_failure": true}}
        ]},
        "docs": [{"_index": "x", "_id": "1", "_version": 7, "_source": {"f": 1}}, {"_source": {}}]
    }"#;
    let r = post(s.addr, "/_ingest/pipeline/_simulate", body);
    assert_eq!(r.status, 200, "{}", r.text());
    let v = r.json();
    assert_eq!(v["docs"][0]["doc"]["_source"], json!({"f": 1, "a": "V"}));
    assert_eq!(v["docs"][0]["doc"]["_version"], "7");
    assert_eq!(v["docs"][1]["doc"]["_index"], "_index");
    assert!(v["docs"][0]["doc"]["_ingest"]["timestamp"].is_string());

    let r = post(s.addr, "/_ingest/pipeline/_simulate?verbose=true", body);
    let res = r.json()["docs"][0]["processor_results"].clone();
    assert_eq!(res.as_array().map(Vec::len), Some(3), "{res}");
    assert_eq!(res[0]["tag"], "t1");
    assert_eq!(res[0]["doc"]["_source"]["a"], "v");
    assert_eq!(res[0]["doc"]["_ingest"]["pipeline"], "_simulate_pipeline");
    assert_eq!(res[1]["doc"]["_source"]["a"], "V");
    assert_eq!(res[2]["status"], "error_ignored");
    assert_eq!(res[2]["ignored_error"]["error"]["type"], "illegal_argument_exception");

    // No pipeline at all.
    let r = post(s.addr, "/_ingest/pipeline/_simulate", r#"{"docs": [{"_source": {}}]}"#);
    assert_eq!(r.status, 400);
    assert_eq!(r.json()["error"]["reason"], "[pipeline] required property is missing");
}

#[test]
fn grok_processor_and_pattern_bank() {
    let dir = tempfile::tempdir().unwrap();
    let s = TestServer::start(dir.path(), &[]);
    let r = get(s.addr, "/_ingest/processor/grok?s");
    assert_eq!(r.status, 200, "{}", r.text());
    let bank = r.json()["patterns"].as_object().cloned().unwrap_or_default();
    assert!(bank.contains_key("COMBINEDAPACHELOG") && bank.contains_key("IPV4"));
    let keys: Vec<&String> = bank.keys().collect();
    assert!(keys.windows(2).all(|w| w[0] <= w[1]), "?s sorts the names");

    // An unknown pattern is refused at PUT time.
    let r =
        put(s.addr, "/_ingest/pipeline/g", r#"{"processors": [{"grok": {"field": "f", "patterns": ["%{NOPE:x}"]}}]}"#);
    assert_eq!(r.status, 400, "{}", r.text());
    assert_eq!(
        r.json()["error"]["reason"],
        "[patterns] Invalid regex pattern found in: [%{NOPE:x}]. Unable to find pattern [NOPE] in Grok's pattern dictionary"
    );

    let body = r#"{"pipeline": {"processors": [{"grok": {"field": "f", "trace_match": true,
        "patterns": ["x%{INT:n:int}", "%{WORD:w}"]}}]},
        "docs": [{"_source": {"f": "hello"}}, {"_source": {"f": "x12"}}, {"_source": {"f": "!!"}}]}"#;
    let r = post(s.addr, "/_ingest/pipeline/_simulate", body);
    assert_eq!(r.status, 200, "{}", r.text());
    let d = r.json()["docs"].clone();
    assert_eq!(d[0]["doc"]["_source"]["w"], "hello");
    assert_eq!(d[0]["doc"]["_ingest"]["_grok_match_index"], "1");
    assert_eq!(d[1]["doc"]["_source"]["n"], 12);
    assert_eq!(d[1]["doc"]["_ingest"]["_grok_match_index"], "0");
    assert_eq!(d[2]["error"]["reason"], "Provided Grok expressions do not match field value: [!!]");
}
