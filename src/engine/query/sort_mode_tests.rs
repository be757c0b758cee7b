//! `NumericSort::pick`: OpenSearch's `MultiValueMode` over longs and doubles, and custom missing
//! values, against a direct computation.

use proptest::prelude::*;

use super::*;

fn ns(stored_double: bool, mode: NumMode, missing: Option<i64>) -> NumericSort {
    NumericSort { field: "f".into(), stored_double, out_double: stored_double, mode, missing }
}

#[test]
fn modes_over_longs() {
    let v = [1i64, 2, 4, 10];
    assert_eq!(ns(false, NumMode::Sum, None).pick(&v, SortOrder::Asc), Some(17));
    assert_eq!(ns(false, NumMode::Avg, None).pick(&v, SortOrder::Asc), Some(4)); // round(4.25)
    assert_eq!(ns(false, NumMode::Median, None).pick(&v, SortOrder::Asc), Some(3)); // round(3.0)
    assert_eq!(ns(false, NumMode::Median, None).pick(&[1, 2], SortOrder::Asc), Some(2)); // round(1.5)
    assert_eq!(ns(false, NumMode::Min, None).pick(&v, SortOrder::Desc), Some(1));
    assert_eq!(ns(false, NumMode::Max, None).pick(&v, SortOrder::Asc), Some(10));
    assert_eq!(ns(false, NumMode::Auto, None).pick(&v, SortOrder::Desc), Some(10));
    assert_eq!(ns(false, NumMode::Sum, Some(-5)).pick(&[], SortOrder::Asc), Some(-5));
    assert_eq!(ns(false, NumMode::Sum, None).pick(&[], SortOrder::Asc), None);
}

proptest! {
    #[test]
    fn modes_over_doubles(mut v in proptest::collection::vec(-1e6f64..1e6, 1..8)) {
        v.sort_by(|a, b| a.total_cmp(b));
        let enc: Vec<i64> = v.iter().map(|d| double_to_sortable_long(*d)).collect();
        let dec = |x: Option<i64>| x.map(sortable_long_to_double);
        let sum: f64 = v.iter().sum();
        prop_assert_eq!(dec(ns(true, NumMode::Sum, None).pick(&enc, SortOrder::Asc)), Some(sum));
        prop_assert_eq!(dec(ns(true, NumMode::Avg, None).pick(&enc, SortOrder::Asc)), Some(sum / v.len() as f64));
        let n = v.len();
        let med = if n % 2 == 1 { v[n / 2] } else { (v[n / 2 - 1] + v[n / 2]) / 2.0 };
        prop_assert_eq!(dec(ns(true, NumMode::Median, None).pick(&enc, SortOrder::Asc)), Some(med));
    }
}
