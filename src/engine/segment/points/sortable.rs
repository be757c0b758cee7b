//! Sortable byte encodings: `encode(a) < encode(b)` as unsigned big-endian byte strings exactly
//! when `a < b`, so points of any type share one comparison.

/// `i64` with the sign bit flipped, big-endian.
pub fn encode_i64(v: i64) -> [u8; 8] {
    ((v as u64) ^ (1 << 63)).to_be_bytes()
}

/// Inverse of [`encode_i64`]; reads the first 8 bytes (missing bytes count as 0).
pub fn decode_i64(b: &[u8]) -> i64 {
    (be_u64(b) ^ (1 << 63)) as i64
}

/// `f64` in IEEE total order: `-inf < ... < -0.0 < 0.0 < ... < inf < NaN` (every NaN is
/// encoded as the canonical positive quiet NaN, so NaN sorts last).
pub fn encode_f64(v: f64) -> [u8; 8] {
    let v = if v.is_nan() { f64::NAN } else { v };
    let bits = v.to_bits();
    let s = if bits >> 63 == 1 { !bits } else { bits ^ (1 << 63) };
    s.to_be_bytes()
}

/// Inverse of [`encode_f64`]; reads the first 8 bytes (missing bytes count as 0).
pub fn decode_f64(b: &[u8]) -> f64 {
    let s = be_u64(b);
    let bits = if s >> 63 == 1 { s ^ (1 << 63) } else { !s };
    f64::from_bits(bits)
}

/// `u64` big-endian.
pub fn encode_u64(v: u64) -> [u8; 8] {
    v.to_be_bytes()
}

/// `u128` big-endian (IPv6 addresses, and IPv4 mapped into IPv6).
pub fn encode_u128(v: u128) -> [u8; 16] {
    v.to_be_bytes()
}

fn be_u64(b: &[u8]) -> u64 {
    let mut a = [0u8; 8];
    let n = b.len().min(8);
    a[..n].copy_from_slice(&b[..n]);
    u64::from_be_bytes(a)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn float_edges() {
        let order = [
            f64::NEG_INFINITY,
            f64::MIN,
            -1.0,
            -f64::MIN_POSITIVE,
            -0.0,
            0.0,
            f64::MIN_POSITIVE,
            1.0,
            f64::MAX,
            f64::INFINITY,
            f64::NAN,
        ];
        for w in order.windows(2) {
            assert!(encode_f64(w[0]) < encode_f64(w[1]), "{} !< {}", w[0], w[1]);
        }
        assert_eq!(encode_f64(-f64::NAN), encode_f64(f64::NAN));
        assert!(decode_f64(&encode_f64(f64::NAN)).is_nan());
        assert_eq!(decode_f64(&encode_f64(-0.0)).to_bits(), (-0.0f64).to_bits());
        assert_eq!(decode_i64(&[]), i64::MIN);
    }

    proptest! {
        #[test]
        fn order_is_preserved(a in any::<i64>(), b in any::<i64>(), x in any::<f64>().prop_filter("NaN is canonicalised", |x| !x.is_nan()), y in any::<f64>().prop_filter("NaN", |y| !y.is_nan()), u in any::<u128>(), v in any::<u128>()) {
            prop_assert_eq!(a.cmp(&b), encode_i64(a).cmp(&encode_i64(b)));
            prop_assert_eq!(decode_i64(&encode_i64(a)), a);
            prop_assert_eq!(x.total_cmp(&y), encode_f64(x).cmp(&encode_f64(y)));
            prop_assert_eq!(decode_f64(&encode_f64(x)).to_bits(), x.to_bits());
            prop_assert_eq!(u.cmp(&v), encode_u128(u).cmp(&encode_u128(v)));
            prop_assert_eq!((a as u64).cmp(&(b as u64)), encode_u64(a as u64).cmp(&encode_u64(b as u64)));
        }
    }
}
