//! `NumericSort::pick`: OpenSearch's `MultiValueMode` over longs and doubles, and custom missing
//! values, against a direct computation.

use proptest::prelude::*;

use super::*;

fn ns(stored_double: bool, mode: NumMode, missing: Option<i64>) -> NumericSort {
    NumericSort {
        field: "f".into(),
        stored_double,
        out_double: stored_double,
        mode,
        missing,
        unsigned: false,
        scale: None,
    }
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

fn uns(mode: NumMode) -> NumericSort {
    NumericSort {
        field: "f".into(),
        stored_double: false,
        out_double: false,
        mode,
        missing: None,
        unsigned: true,
        scale: None,
    }
}

/// The sign-flipped column form of an unsigned long.
fn enc(u: u64) -> i64 {
    (u ^ (1 << 63)) as i64
}

#[test]
fn modes_over_unsigned_longs_wrap_like_opensearch() {
    // OpenSearch's figures (search/260_sort_unsigned_long.yml).
    let pick = |mode, v: &[u64]| {
        let mut e: Vec<i64> = v.iter().map(|u| enc(*u)).collect();
        e.sort();
        uns(mode).pick(&e, SortOrder::Asc).map(|x| (x as u64) ^ (1 << 63))
    };
    assert_eq!(pick(NumMode::Median, &[13835058055282163713, 13835058055282163714]), Some(4611686018427387906));
    assert_eq!(pick(NumMode::Median, &[13835058055282163715, 13835058055282163716, 2]), Some(13835058055282163715));
    assert_eq!(pick(NumMode::Sum, &[13835058055282163720, 13835058055282163721, 3, 4]), Some(9223372036854775832));
    assert_eq!(pick(NumMode::Avg, &[13835058055282163715, 13835058055282163716, 2]), Some(3074457345618258606));
    assert_eq!(pick(NumMode::Avg, &[13835058055282163712, 1]), Some(6917529027641081857));
    assert_eq!(pick(NumMode::Max, &[13835058055282163712, 1]), Some(13835058055282163712));
    assert_eq!(pick(NumMode::Min, &[13835058055282163712, 1]), Some(1));
}

proptest! {
    #[test]
    fn long_double_comparison_is_exact(x in any::<i64>(), y in -1e30f64..1e30, d in -3i64..3) {
        let exact = |x: i64, y: f64| (x as i128).cmp(&(y.floor() as i128)).then(if y.fract() != 0.0 { std::cmp::Ordering::Less } else { std::cmp::Ordering::Equal });
        prop_assert_eq!(cmp_long_double(x, y), exact(x, y));
        // Doubles next to the long, where a conversion to double would tie.
        let near = x.saturating_add(d) as f64;
        prop_assert_eq!(cmp_long_double(x, near), exact(x, near));
        prop_assert_eq!(cmp_long_double(x, f64::NAN), std::cmp::Ordering::Less);
    }
}

#[test]
fn scaled_float_sort_values_are_unscaled_doubles() {
    use crate::engine::query::model::{MDoc, ModelSegment};
    let doc = |v: &[i64]| MDoc { long: vec![("f".into(), v.to_vec())], ..MDoc::default() };
    let seg = ModelSegment::new(vec![doc(&[150, 275]), doc(&[])], &[], 4);
    let ns = NumericSort {
        field: "f".into(),
        stored_double: false,
        out_double: true,
        mode: NumMode::Auto,
        missing: None,
        unsigned: false,
        scale: Some(100f64.to_bits()),
    };
    let f = SortField { by: SortBy::Numeric(ns), order: SortOrder::Desc, missing: Missing::Last, nested: None };
    let mut keys = KeyReader::new(&seg, 0);
    let k = keys.key(&f, 0, f32::NAN);
    assert_eq!(keys.value(&f, &k).unwrap(), SortValue::Double(2.75));
    let k = keys.key(&f, 1, f32::NAN);
    assert_eq!(keys.value(&f, &k).unwrap(), SortValue::Null);
}
