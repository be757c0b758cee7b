use super::*;
use proptest::prelude::*;

const PERCENTS: [f64; 7] = [1.0, 5.0, 25.0, 50.0, 75.0, 95.0, 99.0];

fn hdr(digits: u8, values: &[f64]) -> Hdr {
    let mut h = Hdr::new(digits);
    for &v in values {
        h.record(v).unwrap();
    }
    h
}

fn percentiles(h: &Hdr) -> Vec<f64> {
    PERCENTS.iter().map(|&p| h.value_at_percentile(p)).collect()
}

/// Each value in its own shard histogram, reduced in the given order.
fn reduced(digits: u8, shards: &[&[f64]]) -> Hdr {
    let parts: Vec<Hdr> = shards.iter().map(|s| hdr(digits, s)).collect();
    Hdr::reduce(&parts).unwrap().unwrap()
}

#[test]
fn yaml_190_basic() {
    let expected = vec![1.0, 1.0, 1.0, 51.0302734375, 101.0615234375, 151.1240234375, 151.1240234375];
    let values = [1.0, 51.0, 101.0, 151.0];
    assert_eq!(percentiles(&hdr(3, &values)), expected);
    // The index has five shards: any split and order reduces to the same numbers.
    assert_eq!(percentiles(&reduced(3, &[&[151.0], &[1.0], &[101.0, 51.0]])), expected);
    assert_eq!(percentiles(&reduced(3, &[&[51.0], &[], &[151.0], &[1.0], &[101.0]])), expected);
    assert_eq!(percentiles(&reduced(3, &[&[1.0, 51.0, 101.0, 151.0]])), expected);
}

#[test]
fn yaml_190_filtered_and_missing() {
    let expected = vec![51.0, 51.0, 51.0, 101.03125, 126.03125, 151.09375, 151.09375];
    assert_eq!(percentiles(&hdr(3, &[51.0, 101.0, 151.0, 126.0])), expected);
    assert_eq!(percentiles(&reduced(3, &[&[126.0], &[151.0], &[51.0, 101.0]])), expected);
    assert_eq!(percentiles(&hdr(3, &[1.0, 1.0, 1.0, 1.0])), vec![1.0; 7]);
}

#[test]
fn yaml_190_unsigned() {
    let big = 1425497558138880.0;
    let expected = vec![1.0, 1.0, 1.0, 51.0302734375, 1101.9990234375, 1426066581225472.0, 1426066581225472.0];
    assert_eq!(percentiles(&hdr(3, &[1.0, 51.0, 1101.0, big])), expected);
    assert_eq!(percentiles(&reduced(3, &[&[big], &[1101.0], &[51.0], &[1.0]])), expected);
}

#[test]
fn yaml_190_negative_value_fails() {
    let mut h = hdr(3, &[1.0, 51.0]);
    let e = h.record(-10.0).unwrap_err();
    assert_eq!(
        e,
        "The value -10.0 is out of bounds for histogram, current covered range [1.0, 64.0) cannot be extended \
         any further.\nCaused by: java.lang.ArrayIndexOutOfBoundsException: Negative values cannot be recorded"
    );
    assert_eq!(h.count(), 2);
    assert!(Hdr::new(3).record(f64::NEG_INFINITY).is_err());
    assert!(Hdr::new(3).record(f64::INFINITY).unwrap_err().contains("Values above 4.49423283715579E307"));
}

#[test]
fn digits_are_checked() {
    assert_eq!(Hdr::try_new(-1).unwrap_err(), "[numberOfSignificantValueDigits] must be between 0 and 5");
    assert!(Hdr::try_new(10).is_err());
    for d in 0..=5 {
        let h = hdr(d, &[0.5, 3.0, 1e6]);
        assert_eq!(h.significant_digits(), d);
        assert_eq!(h.count(), 3);
    }
}

#[test]
fn percentile_ranks() {
    let h = hdr(3, &[1.0, 51.0, 101.0, 151.0]);
    assert_eq!(h.percentile_at_or_below(0.5), 0.0);
    assert_eq!(h.percentile_at_or_below(1.0), 25.0);
    assert_eq!(h.percentile_at_or_below(100.0), 50.0);
    assert_eq!(h.percentile_at_or_below(1e300), 100.0);
    assert_eq!(h.try_percentile_at_or_below(-5.0), Err("Histogram recorded value cannot be negative.".into()));
    assert_eq!(h.percentile_at_or_below(-5.0), 0.0);
    assert!(Hdr::new(3).percentile_at_or_below(1.0).is_nan());
    assert!(Hdr::new(3).value_at_percentile(50.0).is_nan());
}

#[test]
fn zero_and_nan_record_at_zero() {
    let h = hdr(2, &[0.0, -0.0, f64::NAN, 5.0]);
    assert_eq!(h.count(), 4);
    assert_eq!(h.value_at_percentile(50.0), 0.0);
    assert_eq!(h.value_at_percentile(100.0), 5.0);
}

#[test]
fn too_wide_a_range_is_an_error_not_a_panic() {
    let mut h = hdr(3, &[1e-300]);
    let e = h.record(1e300).unwrap_err();
    // HdrHistogram 2.2.2's message, word for word.
    assert_eq!(
        e,
        "The value 1.0E300 is out of bounds for histogram, current covered range [7.466108948025751E-301, \
         1.2826677504057426E-290) cannot be extended any further.\nCaused by: \
         java.lang.ArrayIndexOutOfBoundsException: Cannot resize histogram covered range beyond (1L << 63) / \
         (1L << 10) - 1.\nCaused by: java.lang.ArrayIndexOutOfBoundsException: Operation would underflow and \
         lose precision of already recorded value counts"
    );
    assert_eq!(h.count(), 1);
    let _ = h.value_at_percentile(50.0);
}

#[test]
fn serde_round_trip() {
    let h = hdr(3, &[0.001, 2.5, 7.0, 7.0, 1e9]);
    let back: Hdr = serde_json::from_str(&serde_json::to_string(&h).unwrap()).unwrap();
    assert_eq!(back.count(), h.count());
    for p in [0.0, 10.0, 50.0, 99.0, 100.0] {
        assert_eq!(back.value_at_percentile(p).to_bits(), h.value_at_percentile(p).to_bits());
    }
    let empty: Hdr = serde_json::from_str(&serde_json::to_string(&Hdr::new(3)).unwrap()).unwrap();
    assert_eq!(empty.count(), 0);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Every estimate is within the histogram's relative precision (10^-digits, doubled for the
    /// power-of-two sub-buckets) of the exact order statistic.
    #[test]
    fn percentiles_within_relative_precision(values in proptest::collection::vec(1e-3f64..1e9, 1..500),
                                             digits in 1u8..=5) {
        let h = hdr(digits, &values);
        let mut sorted = values.clone();
        sorted.sort_by(f64::total_cmp);
        let rel = 2.0 * 10f64.powi(-(digits as i32));
        for p in [1.0, 10.0, 25.0, 50.0, 75.0, 90.0, 99.0, 100.0] {
            let rank = ((p / 100.0 * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len());
            let exact = sorted[rank - 1];
            let est = h.value_at_percentile(p);
            prop_assert!((est - exact).abs() <= exact * rel, "p{} est {} exact {}", p, est, exact);
        }
        for &x in values.iter().take(10) {
            let below = sorted.partition_point(|&v| v <= x) as f64 * 100.0 / sorted.len() as f64;
            let r = h.percentile_at_or_below(x);
            prop_assert!((0.0..=100.0).contains(&r));
            prop_assert!(r <= below + 1e-9 || sorted.iter().any(|&v| v > x && v <= x * (1.0 + rel)), "{} {}", r, below);
        }
    }

    /// Reducing split histograms equals recording everything in one.
    #[test]
    fn merged_splits_equal_the_whole(values in proptest::collection::vec(1e-2f64..1e7, 1..300), parts in 1usize..6) {
        let whole = hdr(3, &values);
        let shards: Vec<Hdr> = values.chunks(values.len().div_ceil(parts)).map(|c| hdr(3, c)).collect();
        let merged = Hdr::reduce(&shards).unwrap().unwrap();
        prop_assert_eq!(merged.count(), whole.count());
        for p in [0.0, 1.0, 25.0, 50.0, 75.0, 99.0, 100.0] {
            prop_assert_eq!(merged.value_at_percentile(p), whole.value_at_percentile(p));
        }
    }

    /// No double makes recording or querying panic.
    #[test]
    fn any_double_is_handled(bits in proptest::collection::vec(any::<u64>(), 1..20), p in any::<f64>()) {
        let mut h = Hdr::new(3);
        for b in bits {
            let _ = h.record(f64::from_bits(b));
        }
        let _ = (h.value_at_percentile(p), h.percentile_at_or_below(p), h.mem_bytes());
        let mut m = h.empty_copy();
        let _ = m.merge(&h);
    }
}
