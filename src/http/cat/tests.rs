use super::*;
use crate::http::render::Body;
use crate::http::request::{parse_query, Method};
use proptest::prelude::*;

fn req(q: &str) -> RestRequest {
    RestRequest {
        method: Method::Get,
        path: "/_cat/x".into(),
        path_params: Default::default(),
        params: parse_query(q),
        body: Default::default(),
        tls_peer_dn: None,
        user: None,
    }
}

fn table() -> Table {
    let mut t = Table::with_columns(&[
        ("index", "alias:i,idx;desc:index name"),
        ("docs.count", "alias:dc;text-align:right;desc:docs"),
        ("size", "alias:ss;default:false;text-align:right"),
        ("pri.size", "default:false;text-align:right"),
    ]);
    t.columns[2].sibling = Some("pri.size".into());
    t.rows.push(vec!["bb".into(), Cell::Int(5), Cell::Bytes(2048), Cell::Bytes(1024)]);
    t.rows.push(vec!["a".into(), Cell::Int(100), Cell::Bytes(100), Cell::Null]);
    t
}

fn text(r: RestResponse) -> String {
    match r.body {
        Body::Text(t) => t,
        Body::Html(t) => t.to_string(),
        Body::Json(v) => v.to_string(),
        Body::Empty => String::new(),
    }
}

#[test]
fn text_alignment_and_header() {
    assert_eq!(text(table().respond(&req("")).unwrap()), "bb   5\na  100\n");
    assert_eq!(text(table().respond(&req("v")).unwrap()), "index docs.count\nbb             5\na            100\n");
}

#[test]
fn columns_by_alias_and_pattern_and_sort() {
    assert_eq!(text(table().respond(&req("h=i,ss&s=i")).unwrap()), "a  100b\nbb  2kb\n");
    assert_eq!(text(table().respond(&req("h=i&s=dc:desc")).unwrap()), "a\nbb\n");
    assert_eq!(text(table().respond(&req("h=s*&bytes=b&pri")).unwrap()), "2048 1024\n 100     \n");
    let e = table().respond(&req("s=nope")).unwrap_err();
    assert_eq!(e.reason, "Unable to sort by unknown sort key `nope`");
}

#[test]
fn json_values_are_strings() {
    let r = table().respond(&req("format=json&h=idx,dc,pri.size")).unwrap();
    let got: Value = serde_json::from_str(&text(r)).unwrap();
    assert_eq!(
        got,
        serde_json::json!([{"idx": "bb", "dc": "5", "pri.size": "1kb"}, {"idx": "a", "dc": "100", "pri.size": null}])
    );
}

#[test]
fn help_lists_every_column() {
    let h = text(table().respond(&req("help")).unwrap());
    assert!(h.starts_with("index      | i,idx | index name   \n"), "{h}");
    assert_eq!(h.lines().count(), 4);
}

#[test]
fn human_units() {
    assert_eq!(human_bytes(0), "0b");
    assert_eq!(human_bytes(1023), "1023b");
    assert_eq!(human_bytes(1024), "1kb");
    assert_eq!(human_bytes(1126), "1kb");
    assert_eq!(human_bytes(1127), "1.1kb");
    assert_eq!(human_bytes(5 * 1024 * 1024 + 512 * 1024), "5.5mb");
    assert_eq!(human_millis(1500), "1.5s");
    assert_eq!(human_millis(15), "15ms");
}

proptest! {
    /// Every text line has the same width up to the trailing left-aligned cell, and sorting by a
    /// numeric column orders rows as the numbers do.
    #[test]
    fn numeric_sort_matches_model(values in proptest::collection::vec(-1000i64..1000, 0..20)) {
        let mut t = Table::with_columns(&[("n", "text-align:right")]);
        for v in &values {
            t.rows.push(vec![Cell::Int(*v)]);
        }
        let out = text(t.respond(&req("s=n")).unwrap());
        let got: Vec<i64> = out.lines().map(|l| l.trim().parse().unwrap()).collect();
        let mut want = values.clone();
        want.sort();
        prop_assert_eq!(got, want);
        let widths: std::collections::BTreeSet<usize> = out.lines().map(str::len).collect();
        prop_assert!(widths.len() <= 1);
    }
}
