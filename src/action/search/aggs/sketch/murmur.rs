//! MurmurHash3 x64 128-bit (`org.opensearch.common.hash.MurmurHash3.hash128`); the cardinality
//! aggregation keeps `h1`. (`engine::codec::murmur3` is the x86 32-bit variant.)

const C1: u64 = 0x87c3_7b91_1142_53d5;
const C2: u64 = 0x4cf5_ad43_2745_937f;

fn fmix(mut k: u64) -> u64 {
    k ^= k >> 33;
    k = k.wrapping_mul(0xff51_afd7_ed55_8ccd);
    k ^= k >> 33;
    k = k.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    k ^ (k >> 33)
}

fn mix_k1(k1: u64) -> u64 {
    k1.wrapping_mul(C1).rotate_left(31).wrapping_mul(C2)
}

fn mix_k2(k2: u64) -> u64 {
    k2.wrapping_mul(C2).rotate_left(33).wrapping_mul(C1)
}

/// `(h1, h2)` of `data` with `seed`.
pub(super) fn murmur3_x64_128(data: &[u8], seed: u64) -> (u64, u64) {
    let mut h1 = seed;
    let mut h2 = seed;
    let mut blocks = data.chunks_exact(16);
    for b in &mut blocks {
        let k1 = u64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]);
        let k2 = u64::from_le_bytes([b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]]);
        h1 ^= mix_k1(k1);
        h1 = h1.rotate_left(27).wrapping_add(h2).wrapping_mul(5).wrapping_add(0x52dc_e729);
        h2 ^= mix_k2(k2);
        h2 = h2.rotate_left(31).wrapping_add(h1).wrapping_mul(5).wrapping_add(0x3849_5ab5);
    }
    let tail = blocks.remainder();
    let mut k1 = 0u64;
    let mut k2 = 0u64;
    for (i, &b) in tail.iter().enumerate() {
        if i < 8 {
            k1 |= (b as u64) << (8 * i);
        } else {
            k2 |= (b as u64) << (8 * (i - 8));
        }
    }
    if tail.len() > 8 {
        h2 ^= mix_k2(k2);
    }
    if !tail.is_empty() {
        h1 ^= mix_k1(k1);
    }
    let len = data.len() as u64;
    h1 ^= len;
    h2 ^= len;
    h1 = h1.wrapping_add(h2);
    h2 = h2.wrapping_add(h1);
    h1 = fmix(h1);
    h2 = fmix(h2);
    h1 = h1.wrapping_add(h2);
    h2 = h2.wrapping_add(h1);
    (h1, h2)
}

#[cfg(test)]
mod tests {
    use super::murmur3_x64_128;

    #[test]
    fn known_vectors() {
        // The reference MurmurHash3_x64_128 with seed 0 (as mmh3.hash64 prints them, signed).
        assert_eq!(murmur3_x64_128(b"", 0), (0, 0));
        assert_eq!(murmur3_x64_128(b"hello", 0).0 as i64, -3758069500696749310);
        assert_eq!(murmur3_x64_128(b"hello", 0).1 as i64, 6565844092913065241);
        let signed = |d: &[u8]| {
            let (a, b) = murmur3_x64_128(d, 0);
            (a as i64, b as i64)
        };
        assert_eq!(signed(b"foo"), (-2129773440516405919, 9128664383759220103));
        assert_eq!(signed(b"0123456789abcdef"), (5467490433528156583, -8663980805763692326));
        assert_eq!(signed(b"0123456789abcdefXYZ"), (-7362412312553418723, 5650296070450224371));
        let bytes: Vec<u8> = (0..31).collect();
        assert_eq!(signed(&bytes), (377690909827715220, -6997016091742415728));
    }
}
