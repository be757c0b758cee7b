//! Lucene's `SmallFloat` one-byte encoding of field lengths ("norms"), bit for bit, so that BM25
//! scores equal OpenSearch's. Lengths below 24 are exact; above, 4 significant bits are kept.

/// `longToInt4(Integer.MAX_VALUE)` in Lucene.
const MAX_INT4: u32 = long_to_int4(i32::MAX as u64);
/// Byte values used for exact small lengths (24).
const NUM_FREE_VALUES: u32 = 255 - MAX_INT4;

/// Lucene `SmallFloat.longToInt4`: a float-like encoding with 3 mantissa bits.
const fn long_to_int4(i: u64) -> u32 {
    let num_bits = 64 - i.leading_zeros();
    if num_bits < 4 {
        i as u32
    } else {
        let shift = num_bits - 4;
        let mut encoded = (i >> shift) as u32;
        encoded &= 0x07;
        encoded |= (shift + 1) << 3;
        encoded
    }
}

/// Lucene `SmallFloat.int4ToLong`.
const fn int4_to_long(i: u32) -> u64 {
    let bits = (i & 0x07) as u64;
    let shift = (i >> 3) as i32 - 1;
    if shift == -1 {
        bits
    } else {
        (bits | 0x08) << shift
    }
}

/// Encodes a field length (number of tokens, overlaps discounted) as a norm byte
/// (Lucene `SmallFloat.intToByte4`). Lengths above `i32::MAX` saturate.
pub const fn length_to_norm(len: u32) -> u8 {
    let i = if len > i32::MAX as u32 { i32::MAX as u32 } else { len };
    if i < NUM_FREE_VALUES {
        i as u8
    } else {
        (NUM_FREE_VALUES + long_to_int4((i - NUM_FREE_VALUES) as u64)) as u8
    }
}

/// Decodes a norm byte to the (approximate) field length (Lucene `SmallFloat.byte4ToInt`).
pub const fn norm_to_length(b: u8) -> u32 {
    let i = b as u32;
    if i < NUM_FREE_VALUES {
        i
    } else {
        (NUM_FREE_VALUES as u64 + int4_to_long(i - NUM_FREE_VALUES)) as u32
    }
}

/// `norm_to_length` for every byte value (Lucene's `BM25Similarity.LENGTH_TABLE`).
pub const LENGTH_TABLE: [u32; 256] = {
    let mut t = [0u32; 256];
    let mut i = 0;
    while i < 256 {
        t[i] = norm_to_length(i as u8);
        i += 1;
    }
    t
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_lucene() {
        assert_eq!(NUM_FREE_VALUES, 24);
        for len in 0..24 {
            assert_eq!(length_to_norm(len), len as u8);
            assert_eq!(norm_to_length(len as u8), len);
        }
        // Hand-computed from Lucene's algorithm: 100 - 24 = 76 = 0b1001100 → shift 3,
        // mantissa 0b001, exponent 4 → 33; byte 24 + 33 = 57 decodes to 24 + (0b1001 << 3) = 96.
        assert_eq!(length_to_norm(24), 24);
        assert_eq!(length_to_norm(100), 57);
        assert_eq!(norm_to_length(57), 96);
        assert_eq!(length_to_norm(i32::MAX as u32), 255);
        // Monotonic, and decode(encode(x)) <= x.
        let mut prev = 0u8;
        for len in (0..100_000u32).step_by(7) {
            let b = length_to_norm(len);
            assert!(b >= prev);
            assert!(norm_to_length(b) <= len);
            prev = b;
        }
    }
}
