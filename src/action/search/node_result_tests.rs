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
        shard: None,
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
    let asc = vec![MergeSort { score: false, desc: false, missing_first: false, unsigned: false }];
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
        sort: vec![MergeSort { score: false, desc: false, missing_first: false, unsigned: false }],
        ..NodeResult::default()
    };
    let parts = vec![sorted(&[1, 5, 6]), sorted(&[2, 3, 4])];
    assert_eq!(page_counts(&parts, &req), vec![1, 3]);
    let req = SearchRequest { from: 0, size: 10, ..SearchRequest::default() };
    assert_eq!(page_counts(&parts, &req), vec![3, 3]);
}

#[test]
fn an_unsigned_sort_on_one_node_only_is_refused() {
    let req = SearchRequest::default();
    let part = |unsigned: bool| NodeResult {
        hits: vec![hit("x", f32::NAN, vec![SortValue::Long(1)], None)],
        sort: vec![MergeSort { score: false, desc: false, missing_first: false, unsigned }],
        shards: 1,
        ..NodeResult::default()
    };
    let e = finish(vec![part(true), part(false)], &req, Instant::now(), false).unwrap_err();
    assert_eq!((e.kind, e.status), (ErrorKind::SearchPhaseExecution, 400));
    assert!(finish(vec![part(true), part(true)], &req, Instant::now(), false).is_ok());
    // A node whose shards failed reports no sort: it is not compared.
    let failed = NodeResult { shards: 1, failed: 1, ..NodeResult::default() };
    assert!(finish(vec![part(false), failed], &req, Instant::now(), false).is_ok());
}

#[test]
fn ties_across_nodes_follow_the_shard_order() {
    let req = SearchRequest::default();
    let on = |id: &str, index: &str, shard: u32| NodeHit {
        shard: Some((index.into(), shard)),
        ..hit(id, 1.0, vec![], None)
    };
    // Node A answers for b/0 and a/1; node B for a/0: the page goes a/0, a/1, b/0.
    let a = NodeResult { hits: vec![on("x", "b", 0), on("y", "a", 1)], shards: 2, ..NodeResult::default() };
    let b = NodeResult { hits: vec![on("z", "a", 0)], shards: 1, ..NodeResult::default() };
    assert_eq!(ids(finish(vec![a.clone(), b.clone()], &req, Instant::now(), false).unwrap()), ["z", "y", "x"]);
    assert_eq!(page_counts(&[a, b], &req), vec![2, 1]);
}
