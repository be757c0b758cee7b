use super::*;
use proptest::prelude::*;

fn count_longs(threshold: u64, values: impl IntoIterator<Item = i64>) -> Hll {
    let mut h = Hll::with_precision_threshold(threshold);
    for v in values {
        h.add_hash(Hll::hash_long(v));
    }
    h
}

#[test]
fn precision_from_threshold_as_opensearch() {
    assert_eq!(Hll::precision_from_threshold(3000), 14);
    assert_eq!(Hll::precision_from_threshold(0), 4);
    assert_eq!(Hll::precision_from_threshold(1), 4);
    assert_eq!(Hll::precision_from_threshold(100), 10);
    assert_eq!(Hll::precision_from_threshold(40000), 18);
    assert_eq!(Hll::precision_from_threshold(u64::MAX), 18);
    assert_eq!(Hll::with_precision_threshold(3000).precision(), DEFAULT_PRECISION);
}

#[test]
fn yaml_170_counts() {
    let big = 10223372036854778000u64 as f64;
    for threshold in [3000, 100] {
        let mut unsigned = Hll::with_precision_threshold(threshold);
        let mut double = Hll::with_precision_threshold(threshold);
        let mut string = Hll::with_precision_threshold(threshold);
        for v in [1.0, 51.0, 1101.0, big] {
            unsigned.add_hash(Hll::hash_double(v));
            double.add_hash(Hll::hash_double(v));
            string.add_hash(Hll::hash_bytes(b"foo"));
        }
        assert_eq!((unsigned.cardinality(), double.cardinality(), string.cardinality()), (4, 4, 1));
    }
    assert_eq!(Hll::with_precision(14).cardinality(), 0);
}

#[test]
fn hashes_as_opensearch() {
    // BitMixer.mix64 and MurmurHash3.hash128(..).h1 as Java computes them.
    assert_eq!(Hll::hash_long(0), 0);
    assert_eq!(Hll::hash_long(1) as i64, -2508561340476696217);
    assert_eq!(Hll::hash_long(-1) as i64, 8912229458432966433);
    assert_eq!(Hll::hash_long(i64::MAX) as i64, -4767257309785776240);
    assert_eq!(Hll::hash_double(1.0) as i64, -8670583120986450077);
    assert_eq!(Hll::hash_double(f64::NAN), Hll::hash_double(f64::from_bits(0x7ff8_0000_0000_0001)));
    assert_ne!(Hll::hash_double(0.0), Hll::hash_double(-0.0));
    assert_eq!(Hll::hash_bytes(b"hello") as i64, -3758069500696749310);
}

#[test]
fn linear_counting_is_exact_below_threshold() {
    let h = count_longs(3000, 0..3000);
    assert!(!h.is_hyperloglog());
    assert_eq!(h.cardinality(), 3000);
    let h = count_longs(3000, (0..3072).chain(0..100));
    assert_eq!(h.cardinality(), 3072);
    assert!(!h.is_hyperloglog());
    let h = count_longs(3000, 0..3073);
    assert!(h.is_hyperloglog());
}

#[test]
fn hyperloglog_estimates_within_a_few_percent() {
    for (threshold, n) in [(3000u64, 10_000i64), (3000, 200_000), (100, 5_000), (40000, 100_000)] {
        let h = count_longs(threshold, 0..n);
        let est = h.cardinality() as f64;
        let err = (est - n as f64).abs() / n as f64;
        assert!(err < 0.05, "threshold {threshold} n {n} estimate {est}");
    }
}

#[test]
fn odd_merges_do_not_panic() {
    let mut a = Hll::with_precision(14);
    let b = count_longs(100, 0..10);
    assert!(a.try_merge(&b).is_err());
    a.merge(&b);
    assert_eq!(a.cardinality(), 0);
    for p in [0, 4, 18, 200] {
        let mut h = Hll::with_precision(p);
        for v in 0..2000 {
            h.add_hash(Hll::hash_long(v));
        }
        let _ = (h.cardinality(), h.mem_bytes());
    }
}

#[test]
fn serde_round_trip() {
    for n in [0i64, 10, 50_000] {
        let h = count_longs(3000, 0..n);
        let back: Hll = serde_json::from_str(&serde_json::to_string(&h).unwrap()).unwrap();
        assert_eq!(back.cardinality(), h.cardinality());
        assert_eq!(back.is_hyperloglog(), h.is_hyperloglog());
    }
}

/// Registers as `AbstractHyperLogLog.collect` sets them straight from 64-bit hashes.
fn direct_registers(p: u32, hashes: &[u64]) -> Vec<u8> {
    let mut regs = vec![0u8; 1 << p];
    for &h in hashes {
        let index = (h >> (64 - p)) as usize;
        let run_len = 1 + (h << p).leading_zeros().min(64 - p) as u8;
        regs[index] = regs[index].max(run_len);
    }
    regs
}

fn registers(h: &Hll) -> &[u8] {
    match &h.state {
        State::Registers(r) => r,
        State::Linear(_) => panic!("still linear counting"),
    }
}

#[test]
fn linear_counting_encoding_replays_to_the_same_registers() {
    // Hashes with many leading zeros below the index bits take the encoding's run-length path.
    let hashes: Vec<u64> = (0..5000u64)
        .map(|i| {
            let h = Hll::hash_long(i as i64);
            if i % 3 == 0 {
                h & !(((1u64 << 30) - 1) << 20)
            } else {
                h
            }
        })
        .collect();
    for p in MIN_PRECISION..=MAX_PRECISION {
        let mut h = Hll::with_precision(p);
        for &x in &hashes {
            h.add_hash(x);
        }
        if !h.is_hyperloglog() {
            continue;
        }
        assert_eq!(registers(&h), direct_registers(p as u32, &hashes).as_slice(), "precision {p}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// Below the threshold the count is exact up to collisions of the 25-bit encoded hashes
    /// (OpenSearch's linear counting has them too: about one in a hundred sets of 800 values
    /// loses a value to one).
    #[test]
    fn exact_below_threshold(values in proptest::collection::vec(any::<i64>(), 0..800)) {
        let h = count_longs(1000, values.iter().copied());
        let distinct = values.iter().copied().collect::<std::collections::HashSet<i64>>().len() as u64;
        let got = h.cardinality();
        prop_assert!(got <= distinct && got + 3 >= distinct, "{} of {} distinct", got, distinct);
    }

    /// Merging split counters equals counting everything in one, in either mode.
    #[test]
    fn merged_splits_equal_the_whole(start in any::<i32>(), n in 0i64..6000, parts in 1usize..5, threshold in 10u64..4000) {
        let values: Vec<i64> = (0..n).map(|i| start as i64 * 7 + i * 13 % 9001).collect();
        let whole = count_longs(threshold, values.iter().copied());
        let mut merged = Hll::with_precision_threshold(threshold);
        for chunk in values.chunks(values.len().div_ceil(parts).max(1)) {
            merged.merge(&count_longs(threshold, chunk.iter().copied()));
        }
        prop_assert_eq!(merged.cardinality(), whole.cardinality());
    }

    /// Strings and doubles count like longs do.
    #[test]
    fn strings_and_doubles(values in proptest::collection::vec("[a-z]{0,6}", 0..300), doubles in proptest::collection::vec(any::<f64>(), 0..300)) {
        let mut h = Hll::with_precision_threshold(3000);
        for v in &values {
            h.add_hash(Hll::hash_bytes(v.as_bytes()));
        }
        // Linear counting keeps 25 bits of each hash, as OpenSearch's does: two distinct values
        // whose encodings collide count once (about 1 in 10^4 for a few hundred values).
        let p = h.precision() as u32;
        let distinct: std::collections::HashSet<u32> =
            values.iter().map(|v| encode_hash(Hll::hash_bytes(v.as_bytes()), p)).collect();
        prop_assert_eq!(h.cardinality(), distinct.len() as u64);
        let mut d = Hll::with_precision_threshold(3000);
        for &v in &doubles {
            d.add_hash(Hll::hash_double(v));
        }
        let encoded: std::collections::HashSet<u32> = doubles
            .iter()
            .map(|v| if v.is_nan() { 0x7ff8_0000_0000_0000 } else { v.to_bits() })
            .map(|bits| encode_hash(Hll::hash_double(f64::from_bits(bits)), p))
            .collect();
        prop_assert_eq!(d.cardinality(), encoded.len() as u64);
    }
}
