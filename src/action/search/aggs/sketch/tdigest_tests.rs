use super::*;
use proptest::prelude::*;

const PERCENTS: [f64; 7] = [1.0, 5.0, 25.0, 50.0, 75.0, 95.0, 99.0];

fn digest(compression: f64, values: &[f64]) -> TDigest {
    let mut t = TDigest::new(compression);
    for &v in values {
        t.add(v);
    }
    t
}

fn percentiles(t: &TDigest) -> Vec<f64> {
    PERCENTS.iter().map(|p| t.quantile(p / 100.0)).collect()
}

/// The unsigned_long/double documents of OpenSearch's 180_percentiles_tdigest_metric_unsigned.
fn yaml_180_values() -> Vec<f64> {
    vec![1.0, 51.0, 1101.0, 10223372036854778000u64 as f64]
}

#[test]
fn yaml_180_basic_and_compression_3x() {
    let big = 10223372036854778000u64 as f64;
    let expected = vec![1.0, 1.0, 51.0, 1101.0, big, big, big];
    for compression in [100.0, 200.0] {
        assert_eq!(percentiles(&digest(compression, &yaml_180_values())), expected);
    }
    // As one shard's digest reduced into a fresh one.
    let mut reduced = TDigest::new(100.0);
    reduced.merge(&digest(100.0, &yaml_180_values()));
    assert_eq!(percentiles(&reduced), expected);
}

#[test]
fn yaml_180_filtered_3x() {
    let big = 10223372036854778000u64 as f64;
    let t = digest(100.0, &[51.0, 1101.0, big]);
    assert_eq!(percentiles(&t), vec![51.0, 51.0, 51.0, 1101.0, big, big, big]);
}

#[test]
fn yaml_270_median_absolute_deviation() {
    let values = [10223372036700000000u64 as f64, 10223372036800000000u64 as f64, 10223372036900000000u64 as f64];
    for compression in [1000.0, 500.0] {
        assert_eq!(digest(compression, &values).median_absolute_deviation(), 99999744.0);
    }
    // "missing value": 1000, 2000 and the missing 30000000000000000000 for the third document.
    assert_eq!(digest(1000.0, &[1000.0, 2000.0, 3e19]).median_absolute_deviation(), 1000.0);
    assert!(TDigest::new(100.0).median_absolute_deviation().is_nan());
}

/// Numbers t-digest 3.3's own `AVLTreeDigest` gives (its generator seeded like ours): repeated
/// values (in-place merges that leave the tree's subtree sums stale), compression of sequential
/// input, and a two-shard reduce.
#[test]
fn equals_java_avl_tree_digest() {
    let qs = [0.01, 0.1, 0.25, 0.5, 0.75, 0.9, 0.99];
    let quantiles = |t: &TDigest| qs.iter().map(|&q| t.quantile(q)).collect::<Vec<_>>();

    let repeats: Vec<f64> = (0..300).map(|i| ((i * 37) % 11) as f64).collect();
    let t = digest(20.0, &repeats);
    assert_eq!(
        quantiles(&t),
        [0.0, 0.26666666666666666, 2.244805194805195, 4.981481481481482, 8.0, 9.488372093023257, 10.0]
    );
    assert_eq!((t.cdf(3.0), t.cdf(5.5)), (0.31683908045977016, 0.5466666666666666));
    assert_eq!(t.median_absolute_deviation(), 2.6572839699345727);
    assert_eq!(t.centroid_count(), 18);

    let sequential: Vec<f64> = (0..2000).map(f64::from).collect();
    let t = digest(5.0, &sequential);
    assert_eq!(quantiles(&t), [19.5, 199.5, 499.5, 999.5, 1499.5, 1799.5, 1979.9436201780416]);
    assert_eq!((t.cdf(3.0), t.cdf(1500.5)), (0.0018125, 0.7505));
    assert_eq!(t.median_absolute_deviation(), 512.1425948487397);
    assert_eq!(t.centroid_count(), 10);

    let values: Vec<f64> = (0..3000).map(|i| ((i * 7919) % 1000) as f64 / 4.0).collect();
    let mut reduced = TDigest::new(10.0);
    reduced.merge(&digest(10.0, &values[..1000]));
    reduced.merge(&digest(10.0, &values[1000..]));
    assert_eq!(
        quantiles(&reduced),
        [
            2.4762518805071996,
            24.942616084443813,
            62.31703806284046,
            124.87976929151624,
            187.375,
            224.89527655540053,
            247.375
        ]
    );
    assert_eq!(reduced.cdf(100.0), 0.40050861386782505);
    assert_eq!(reduced.median_absolute_deviation(), 62.81805996334061);
    assert_eq!(reduced.centroid_count(), 27);
}

#[test]
fn empty_digest_is_nan() {
    let t = TDigest::new(100.0);
    assert_eq!(t.size(), 0);
    assert!(t.quantile(0.5).is_nan());
    assert!(t.cdf(1.0).is_nan());
    assert_eq!(t.min(), f64::INFINITY);
    assert_eq!(t.max(), f64::NEG_INFINITY);
}

#[test]
fn odd_inputs_do_not_panic() {
    let mut t = TDigest::new(100.0);
    assert_eq!(t.try_add(f64::NAN), Err("Cannot add NaN".to_string()));
    t.add(f64::NAN);
    assert_eq!(t.size(), 0);
    for v in [f64::INFINITY, f64::NEG_INFINITY, 0.0, -0.0, f64::MAX, f64::MIN, 1.0, 1.0, 1.0] {
        t.add(v);
    }
    assert_eq!(t.size(), 9);
    for q in [-1.0, 0.0, 0.3, 0.5, 1.0, 2.0, f64::NAN] {
        let _ = t.quantile(q);
    }
    for x in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY, 0.0, 1.0] {
        let _ = t.cdf(x);
    }
    assert!(t.quantile(1.5).is_nan());
    assert_eq!(t.quantile(0.0), f64::NEG_INFINITY);
    assert_eq!(t.quantile(1.0), f64::INFINITY);
    let _ = t.median_absolute_deviation();
    for c in [0.0, -5.0, f64::NAN, f64::INFINITY, 1e-9] {
        let mut t = TDigest::new(c);
        for i in 0..300 {
            t.add(i as f64);
        }
        let _ = (t.quantile(0.5), t.cdf(10.0));
    }
}

#[test]
fn sequential_input_compresses() {
    let mut t = TDigest::new(20.0);
    for i in 0..100_000 {
        t.add(i as f64);
    }
    assert_eq!(t.size(), 100_000);
    assert!(t.centroid_count() <= 400, "{} centroids", t.centroid_count());
    assert_eq!(t.quantile(0.0), 0.0);
    assert_eq!(t.quantile(1.0), 99_999.0);
    assert!((t.quantile(0.5) - 50_000.0).abs() < 2_000.0, "{}", t.quantile(0.5));
}

#[test]
fn cdf_of_distinct_values() {
    let t = digest(100.0, &[1.0, 2.0, 3.0, 4.0]);
    assert_eq!(t.cdf(0.0), 0.0);
    assert_eq!(t.cdf(1.0), 0.125);
    assert_eq!(t.cdf(2.0), 0.375);
    assert_eq!(t.cdf(2.5), 0.5);
    assert_eq!(t.cdf(4.0), 0.875);
    assert_eq!(t.cdf(5.0), 1.0);
}

#[test]
fn serde_round_trip() {
    let mut t = TDigest::new(50.0);
    for i in 0..5000 {
        t.add(((i * 7919) % 1000) as f64 / 3.0);
    }
    t.add(f64::INFINITY);
    for d in [t.clone(), TDigest::new(100.0)] {
        let json = serde_json::to_string(&d).unwrap();
        let back: TDigest = serde_json::from_str(&json).unwrap();
        assert_eq!(back.size(), d.size());
        assert_eq!(back.min().to_bits(), d.min().to_bits());
        assert_eq!(back.max().to_bits(), d.max().to_bits());
        for q in [0.0, 0.1, 0.5, 0.9, 1.0] {
            assert_eq!(back.quantile(q).to_bits(), d.quantile(q).to_bits());
        }
        // The generator state travels too: both keep adding alike.
        let (mut a, mut b) = (d.clone(), back);
        for i in 0..500 {
            a.add((i % 10) as f64);
            b.add((i % 10) as f64);
        }
        assert_eq!(a.quantile(0.3).to_bits(), b.quantile(0.3).to_bits());
    }
}

/// The fraction of `sorted` strictly below `v`, and at or below it.
fn rank_bounds(sorted: &[f64], v: f64) -> (f64, f64) {
    let n = sorted.len() as f64;
    let below = sorted.partition_point(|&x| x < v) as f64;
    let at_or_below = sorted.partition_point(|&x| x <= v) as f64;
    (below / n, at_or_below / n)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// The estimate of the q-quantile sits at a rank within t-digest's error (about 3/compression
    /// away from q, far less at the tails) of the exact one.
    #[test]
    fn quantiles_are_near_exact_ranks(values in proptest::collection::vec(-1e6f64..1e6, 1..3000),
                                      compression in 20.0f64..300.0) {
        let t = digest(compression, &values);
        let mut sorted = values.clone();
        sorted.sort_by(f64::total_cmp);
        let tolerance = 3.0 / compression + 1.0 / sorted.len() as f64;
        for q in [0.0, 0.01, 0.1, 0.25, 0.5, 0.75, 0.9, 0.99, 1.0] {
            let v = t.quantile(q);
            prop_assert!(v >= sorted[0] && v <= sorted[sorted.len() - 1]);
            let (lo, hi) = rank_bounds(&sorted, v);
            prop_assert!(lo - tolerance <= q && q <= hi + tolerance, "q {} -> {} ranks [{}, {}]", q, v, lo, hi);
        }
        prop_assert_eq!(t.quantile(0.0), sorted[0]);
        prop_assert_eq!(t.quantile(1.0), sorted[sorted.len() - 1]);
        for &x in values.iter().take(20) {
            let c = t.cdf(x);
            let (lo, hi) = rank_bounds(&sorted, x);
            prop_assert!(c >= lo - tolerance && c <= hi + tolerance, "cdf {} = {} ranks [{}, {}]", x, c, lo, hi);
        }
    }

    /// Small sets keep a centroid per value: quantiles are then exact order statistics.
    #[test]
    fn small_sets_are_exact(values in proptest::collection::vec(-1e9f64..1e9, 1..40)) {
        let t = digest(100.0, &values);
        prop_assert_eq!(t.centroid_count(), values.len());
        let mut sorted = values.clone();
        sorted.sort_by(f64::total_cmp);
        for (q, v) in [(0.0, sorted[0]), (1.0, sorted[sorted.len() - 1])] {
            prop_assert_eq!(t.quantile(q), v);
        }
        let mid = t.quantile(0.5);
        prop_assert!(sorted.contains(&mid) || sorted.windows(2).any(|w| w[0] <= mid && mid <= w[1]));
    }

    /// Shard digests reduced into a fresh one answer within the error of the whole.
    #[test]
    fn merged_splits_match_the_whole(values in proptest::collection::vec(-1e6f64..1e6, 2..3000),
                                     parts in 1usize..6) {
        let whole = digest(100.0, &values);
        let mut merged = TDigest::new(100.0);
        for chunk in values.chunks(values.len().div_ceil(parts)) {
            merged.merge(&digest(100.0, chunk));
        }
        prop_assert_eq!(merged.size(), whole.size());
        prop_assert_eq!(merged.min(), whole.min());
        prop_assert_eq!(merged.max(), whole.max());
        let mut sorted = values.clone();
        sorted.sort_by(f64::total_cmp);
        let tolerance = 0.06 + 1.0 / sorted.len() as f64;
        for q in [0.05, 0.25, 0.5, 0.75, 0.95] {
            let (lo, hi) = rank_bounds(&sorted, merged.quantile(q));
            prop_assert!(lo - tolerance <= q && q <= hi + tolerance);
        }
    }
}
