//! The merge of node results: order across nodes, ties, collapse, paging, totals.

use serde_json::json;

use super::*;

fn hit(id: &str, score: f32, sort: Vec<SortValue>, key: Option<&str>) -> NodeHit {
    NodeHit {
        json: HitJson::Value(json!({"_id": id})),
        score,
        sort_values: sort,
        key: key.map(|k| json!(k)),
        mark: None,
    }
}

fn ids(b: SearchBody) -> Vec<String> {
    b.into_value()["hits"]["hits"].as_array().unwrap().iter().map(|h| h["_id"].as_str().unwrap().to_string()).collect()
}

fn node(hits: Vec<NodeHit>, total: u64, sort: Vec<MergeSort>) -> NodeResult {
    NodeResult { hits, total, shards: 2, sort, ..NodeResult::default() }
}

#[test]
fn hits_merge_by_score_then_node_order() {
    let a = node(vec![hit("a1", 3.0, vec![], None), hit("a2", 1.0, vec![], None)], 2, vec![]);
    let b = node(vec![hit("b1", 3.0, vec![], None), hit("b2", 2.0, vec![], None)], 5, vec![]);
    let req = SearchRequest { size: 3, ..SearchRequest::default() };
    let body = finish(vec![a.clone(), b.clone()], &req, Instant::now(), false).unwrap();
    assert_eq!(body.shards, json!({"total": 4, "successful": 4, "skipped": 0, "failed": 0}));
    assert_eq!(body.total, Some(json!({"value": 7, "relation": "eq"})));
    assert_eq!(ids(body), ["a1", "b1", "b2"]);
    let req = SearchRequest { from: 2, size: 5, track_total_hits: TrackTotalHits::UpTo(6), ..SearchRequest::default() };
    let body = finish(vec![a, b], &req, Instant::now(), false).unwrap();
    assert_eq!(body.total, Some(json!({"value": 6, "relation": "gte"})));
    assert_eq!(ids(body), ["b2", "a2"]);
}

#[test]
fn hits_merge_by_sort_values_and_collapse_keeps_the_first_of_each_key() {
    let asc = vec![MergeSort { score: false, desc: false, missing_first: false }];
    let l = |v: i64| vec![SortValue::Long(v)];
    let a = node(vec![hit("a1", f32::NAN, l(1), Some("x")), hit("a2", f32::NAN, l(4), Some("y"))], 2, asc.clone());
    let b = node(
        vec![
            hit("b1", f32::NAN, l(2), Some("x")),
            hit("b2", f32::NAN, l(3), Some("z")),
            hit("b3", f32::NAN, vec![SortValue::Null], Some("w")),
        ],
        3,
        asc,
    );
    let req = SearchRequest::default();
    let body = finish(vec![a.clone(), b.clone()], &req, Instant::now(), false).unwrap();
    assert_eq!(body.max_score, None, "a field sort reports no max score");
    assert_eq!(ids(body), ["a1", "b1", "b2", "a2", "b3"]);
    let req = SearchRequest {
        collapse: Some(crate::action::search::collapse::Collapse {
            field: "k".into(),
            inner_hits: vec![],
            max_concurrent_group_searches: None,
        }),
        ..SearchRequest::default()
    };
    assert_eq!(ids(finish(vec![a, b], &req, Instant::now(), false).unwrap()), ["a1", "b2", "a2", "b3"]);
}

#[test]
fn failures_add_up_and_all_failed_is_an_error() {
    let e = OsError::new(ErrorKind::NodeDisconnected, "[127.0.0.1:9][] disconnected");
    let lost = all_failed_result(&e, &[("i".into(), 1), ("i".into(), 4)]);
    assert_eq!((lost.shards, lost.failed, lost.failures.len()), (2, 2, 1), "grouped per index and reason");
    let ok = node(vec![hit("a", 1.0, vec![], None)], 1, vec![]);
    let body = finish(vec![ok, lost.clone()], &SearchRequest::default(), Instant::now(), false).unwrap();
    assert_eq!(body.shards["failed"], 2);
    assert_eq!(body.shards["successful"], 2);
    assert_eq!(body.shards["failures"][0]["reason"]["type"], "node_disconnected_exception");
    let err = finish(vec![lost], &SearchRequest::default(), Instant::now(), false).unwrap_err();
    assert_eq!(err.reason, "all shards failed");
    assert_eq!(err.meta["failed_shards"].as_array().unwrap().len(), 1);
}

#[test]
fn page_counts_are_each_part_s_prefix_on_the_page() {
    let req = SearchRequest { from: 0, size: 4, ..SearchRequest::default() };
    let part = |scores: &[f32]| NodeResult {
        hits: scores.iter().map(|s| hit("x", *s, vec![], None)).collect(),
        ..NodeResult::default()
    };
    // By score: 9, 8, 7 (a tie: the first part first), 7.
    let parts = vec![part(&[9.0, 7.0, 1.0]), part(&[8.0, 7.0, 6.0]), part(&[])];
    assert_eq!(page_counts(&parts, &req), vec![2, 2, 0]);
    // By a sort value, ascending.
    let sorted = |vals: &[i64]| NodeResult {
        hits: vals.iter().map(|v| hit("x", f32::NAN, vec![SortValue::Long(*v)], None)).collect(),
        sort: vec![MergeSort { score: false, desc: false, missing_first: false }],
        ..NodeResult::default()
    };
    let parts = vec![sorted(&[1, 5, 6]), sorted(&[2, 3, 4])];
    assert_eq!(page_counts(&parts, &req), vec![1, 3]);
    let req = SearchRequest { from: 0, size: 10, ..SearchRequest::default() };
    assert_eq!(page_counts(&parts, &req), vec![3, 3]);
}
