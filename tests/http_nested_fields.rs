//! The fields API over nested objects: values grouped per nested object under the nested path,
//! recursively, in `_source` order, as OpenSearch's `FieldFetcher` does.
#![cfg(feature = "server")]

mod common;

use common::http::*;
use serde_json::json;

#[test]
fn fields_of_nested_objects_are_grouped_per_object() {
    let dir = tempfile::tempdir().unwrap();
    let s = TestServer::start(dir.path(), &[]);
    let mapping = json!({"mappings": {"properties": {
        "title": {"type": "keyword"},
        "user": {"type": "nested", "properties": {
            "first": {"type": "keyword"}, "age": {"type": "integer"},
            "addr": {"type": "nested", "properties": {"city": {"type": "keyword"}}}}}}}});
    assert_eq!(put(s.addr, "/nf", &mapping.to_string()).status, 200);
    let doc = json!({"title": "t", "user": [
        {"first": "John", "age": "42", "addr": [{"city": "Oslo"}, {"city": "Rome"}]},
        {"age": 7},
        {"first": "Alice", "addr": {"city": "Lima"}}]});
    assert_eq!(put(s.addr, "/nf/_doc/1?refresh=true", &doc.to_string()).status, 201);

    let body = json!({"fields": ["title", "user.first", "user.age", "user.addr.city"], "_source": false});
    let r = post(s.addr, "/nf/_search", &body.to_string());
    assert_eq!(r.status, 200, "{}", r.text());
    let fields = r.json()["hits"]["hits"][0]["fields"].clone();
    assert_eq!(
        fields,
        json!({"title": ["t"], "user": [
            {"first": ["John"], "age": [42], "addr": [{"city": ["Oslo"]}, {"city": ["Rome"]}]},
            {"age": [7]},
            {"first": ["Alice"], "addr": [{"city": ["Lima"]}]}]})
    );
    // Only a deeper field: objects without it are left out.
    let body = json!({"fields": ["user.addr.city"], "_source": false});
    let fields = post(s.addr, "/nf/_search", &body.to_string()).json()["hits"]["hits"][0]["fields"].clone();
    assert_eq!(
        fields,
        json!({"user": [{"addr": [{"city": ["Oslo"]}, {"city": ["Rome"]}]}, {"addr": [{"city": ["Lima"]}]}]})
    );
    // A wildcard reaches them too.
    let body = json!({"fields": ["user.f*"], "_source": false});
    let fields = post(s.addr, "/nf/_search", &body.to_string()).json()["hits"]["hits"][0]["fields"].clone();
    assert_eq!(fields, json!({"user": [{"first": ["John"]}, {"first": ["Alice"]}]}));
}
