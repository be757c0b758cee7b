//! `indices_boost` over real HTTP: the same document in two indices scores `boost` times more in
//! the boosted one (by name, wildcard or alias; the first entry naming an index wins), the
//! order follows, and the malformed and unknown forms answer OpenSearch's errors.
#![cfg(feature = "server")]

mod common;

use common::http::*;
use serde_json::json;

#[test]
fn indices_boost_multiplies_scores_per_index() {
    let dir = tempfile::tempdir().unwrap();
    let s = TestServer::start(dir.path(), &[]);
    for i in ["ib_a", "ib_b"] {
        assert_eq!(put(s.addr, &format!("/{i}"), r#"{"settings": {"number_of_shards": 1}}"#).status, 200);
        let r = put(s.addr, &format!("/{i}/_doc/1?refresh=true"), r#"{"t": "hello world"}"#);
        assert_eq!(r.status, 201, "{}", r.text());
    }
    assert_eq!(post(s.addr, "/_aliases", r#"{"actions": [{"add": {"index": "ib_b", "alias": "bee"}}]}"#).status, 200);
    let q = json!({"match": {"t": "hello"}});
    let plain = post(s.addr, "/ib_a,ib_b/_search", &json!({"query": q}).to_string()).json();
    let base = plain["hits"]["hits"][0]["_score"].as_f64().unwrap();
    assert_eq!(plain["hits"]["hits"][1]["_score"].as_f64().unwrap(), base);

    for boosts in [json!([{"ib_b": 3.0}]), json!([{"bee": 3.0}]), json!([{"ib_b*": 3.0}, {"ib_b": 0.1}])] {
        let r = post(s.addr, "/ib_a,ib_b/_search", &json!({"query": q, "indices_boost": boosts}).to_string());
        assert_eq!(r.status, 200, "{}", r.text());
        let v = r.json();
        assert_eq!(v["hits"]["hits"][0]["_index"], "ib_b", "{boosts}: {v}");
        let top = v["hits"]["hits"][0]["_score"].as_f64().unwrap();
        assert!((top - 3.0 * base).abs() < 1e-5, "{boosts}: {top} vs {base}");
        assert_eq!(v["hits"]["hits"][1]["_score"].as_f64().unwrap(), base);
        assert_eq!(v["hits"]["max_score"].as_f64().unwrap(), top);
    }
    let r = post(s.addr, "/ib_a,ib_b/_search", &json!({"query": q, "indices_boost": [{"nope": 2}]}).to_string());
    assert_eq!(r.status, 404, "{}", r.text());
    assert_eq!(r.json()["error"]["type"], "index_not_found_exception");
    let r = post(s.addr, "/ib_a/_search", &json!({"indices_boost": {"ib_a": 2}}).to_string());
    assert_eq!(r.status, 400);
    assert_eq!(r.json()["error"]["reason"], "Unknown key for a START_OBJECT in [indices_boost].");
    let r = post(s.addr, "/ib_a/_search", &json!({"indices_boost": [{"ib_a": "x"}]}).to_string());
    assert_eq!(r.status, 400);
    assert_eq!(r.json()["error"]["reason"], "Expected [VALUE_NUMBER] in [indices_boost] but found [VALUE_STRING]");
}
