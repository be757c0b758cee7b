//! Unpacking a full block of 128 bit-packed values with the bit width known at compile time, so
//! that every shift and byte offset is a constant and there is no per-value branch: the
//! sequential layout of `.doc` version 1 and the four-lane layout of version 2.

use super::BLOCK;
use crate::engine::codec::bitpack::packed_len;

/// Calls `$f::<B>($src, $out)`, or `$f::<B, G>($src, $out)` for `$f<G>`, with the bit width
/// `$bits` as the constant `B` (1 to 32); width 0 fills `$out` with `$zero` (what a width-0
/// value decodes to); a wider one returns `None` from the calling function.
macro_rules! by_width {
    ($bits:expr, $f:ident $(<$g:tt>)?, $src:expr, $out:expr, $zero:expr) => {
        by_width!(@ $bits, $f [$($g)?], $src, $out, $zero; 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32)
    };
    (@ $bits:expr, $f:ident [], $src:expr, $out:expr, $zero:expr; $($b:literal)*) => {
        match $bits {
            0 => $out.fill($zero),
            $($b => $f::<$b>($src, $out),)*
            _ => return None,
        }
    };
    (@ $bits:expr, $f:ident [$g:tt], $src:expr, $out:expr, $zero:expr; $($b:literal)*) => {
        match $bits {
            0 => $out.fill($zero),
            $($b => $f::<$b, $g>($src, $out),)*
            _ => return None,
        }
    };
}

/// Bytes read past the packed data by the fixed-width loop (one unaligned u64 load).
const SLACK: usize = 8;

#[inline(always)]
fn unpack_fixed<const B: usize>(src: &[u8], out: &mut [u32; BLOCK]) {
    // Groups of 8 values take exactly B bytes; within a group every byte offset and shift is a
    // constant once the inner loop is unrolled. One length check for the whole block.
    let src = &src[..B * BLOCK / 8 + SLACK];
    let mask: u64 = if B == 32 { u32::MAX as u64 } else { (1u64 << B) - 1 };
    for (g, chunk) in out.chunks_exact_mut(8).enumerate() {
        let base = g * B;
        let window = &src[base..base + B + SLACK];
        for (j, slot) in chunk.iter_mut().enumerate() {
            let bit = j * B;
            let byte = bit >> 3;
            let w = u64::from_le_bytes(window[byte..byte + 8].try_into().expect("8-byte window inside the group"));
            *slot = ((w >> (bit & 7)) & mask) as u32;
        }
    }
}

/// Unpacks from a copy padded with zeros (input ends within [`SLACK`] bytes of the data).
#[cold]
#[inline(never)]
fn unpack_padded(input: &[u8], need: usize, bits: u8, out: &mut [u32; BLOCK]) -> Option<usize> {
    let mut pad = [0u8; 32 * BLOCK / 8 + SLACK];
    pad[..need].copy_from_slice(&input[..need]);
    unpack_block(&pad, bits, out)
}

/// Unpacks 128 values of `bits` (<= 32) bits from the front of `input`; returns the bytes used,
/// or `None` when `input` is too short or `bits > 32`.
pub(crate) fn unpack_block(input: &[u8], bits: u8, out: &mut [u32; BLOCK]) -> Option<usize> {
    if bits > 32 {
        return None;
    }
    let need = packed_len(BLOCK, bits);
    if input.len() < need {
        return None;
    }
    if input.len() < need + SLACK {
        return unpack_padded(input, need, bits, out).map(|_| need);
    }
    by_width!(bits, unpack_fixed, input, out, 0);
    Some(need)
}

/// Appends a full block of [`BLOCK`] values at `bits` bits each in the four-lane layout of
/// `.doc` version 2 (`format/postings.md`): value `i` is the `i / 4`-th value of lane `i % 4`;
/// each lane is a little-endian bit stream of 32 values cut into 32-bit words, and word `j` of
/// lane `l` is the `(4 j + l)`-th little-endian u32 of the block. Same size as the sequential
/// layout (`16 * bits` bytes), but every lane decodes with the same shifts, so the compiler
/// decodes the four lanes as one SIMD vector (SSE2 is part of every x86-64).
pub(crate) fn pack_lanes(values: &[u32; BLOCK], bits: u8, out: &mut Vec<u8>) {
    let b = bits as usize;
    if b == 0 {
        return;
    }
    debug_assert!(b <= 32);
    let mut words = [[0u32; 4]; 32];
    for (i, &v) in values.iter().enumerate() {
        debug_assert!(b == 32 || v >> b == 0, "value {v} does not fit in {b} bits");
        let (k, l) = (i / 4, i % 4);
        let bit = k * b;
        let (j, s) = (bit / 32, bit % 32);
        words[j][l] |= v << s;
        if s + b > 32 {
            words[j + 1][l] |= v >> (32 - s);
        }
    }
    for row in &words[..b] {
        for w in row {
            out.extend_from_slice(&w.to_le_bytes());
        }
    }
}

#[inline(always)]
fn row(src: &[u8], j: usize) -> [u32; 4] {
    let mut w = [0u32; 4];
    for (x, c) in w.iter_mut().zip(src[16 * j..16 * j + 16].chunks_exact(4)) {
        *x = u32::from_le_bytes(c.try_into().expect("chunks of 4"));
    }
    w
}

/// Row `k` of the block (values `4k..4k+4`, one per lane). Inlined with a literal `k`, the word
/// index, the shift and the straddle test are constants.
#[inline(always)]
fn lanes_row<const B: usize, const ADD: u32>(src: &[u8], out: &mut [u32; BLOCK], k: usize) {
    let mask: u32 = if B == 32 { u32::MAX } else { (1u32 << B) - 1 };
    let bit = k * B;
    let (j, s) = (bit / 32, (bit % 32) as u32);
    let lo = row(src, j);
    let mut v = [lo[0] >> s, lo[1] >> s, lo[2] >> s, lo[3] >> s];
    if s as usize + B > 32 {
        let hi = row(src, j + 1);
        for l in 0..4 {
            v[l] |= hi[l] << (32 - s);
        }
    }
    for l in 0..4 {
        out[4 * k + l] = (v[l] & mask).wrapping_add(ADD);
    }
}

#[inline(always)]
fn unpack_lanes_fixed<const B: usize, const ADD: u32>(src: &[u8], out: &mut [u32; BLOCK]) {
    // `src` holds exactly B rows of 16 bytes; the 32 rows are written out so that every index
    // is a constant and the one length check here is the only one.
    let src = &src[..16 * B];
    macro_rules! rows {
        ($($k:literal)*) => { $( lanes_row::<B, ADD>(src, out, $k); )* };
    }
    rows!(0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31);
}

/// Unpacks a full block written by [`pack_lanes`] from the front of `input`; returns the bytes
/// used, or `None` when `input` is too short or `bits > 32`.
pub(crate) fn unpack_lanes(input: &[u8], bits: u8, out: &mut [u32; BLOCK]) -> Option<usize> {
    unpack_lanes_adding::<0>(input, bits, out)
}

/// [`unpack_lanes`], then 1 added to every value (freqs are stored minus 1): the add rides on
/// the unpack's last step instead of a second pass over the block.
pub(crate) fn unpack_lanes_plus1(input: &[u8], bits: u8, out: &mut [u32; BLOCK]) -> Option<usize> {
    unpack_lanes_adding::<1>(input, bits, out)
}

#[inline(always)]
fn unpack_lanes_adding<const ADD: u32>(input: &[u8], bits: u8, out: &mut [u32; BLOCK]) -> Option<usize> {
    if bits > 32 {
        return None;
    }
    let need = 16 * bits as usize;
    by_width!(bits, unpack_lanes_fixed<ADD>, input.get(..need)?, out, ADD);
    Some(need)
}

/// [`unpack_block`] (sequential, `.doc` version 1), then 1 added to every value.
pub(crate) fn unpack_block_plus1(input: &[u8], bits: u8, out: &mut [u32; BLOCK]) -> Option<usize> {
    let used = unpack_block(input, bits, out)?;
    for v in out.iter_mut() {
        *v = v.wrapping_add(1);
    }
    Some(used)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::codec::bitpack::{pack32, unpack32};

    #[test]
    fn matches_the_generic_unpacker_at_every_width() {
        for bits in 0..=32u8 {
            let mask = if bits == 32 { u32::MAX } else { (1u32 << bits) - 1 };
            let vals: Vec<u32> = (0..BLOCK as u32).map(|i| i.wrapping_mul(2_654_435_761) & mask).collect();
            let mut packed = Vec::new();
            pack32(&vals, bits, &mut packed);
            let mut out = [0u32; BLOCK];
            // Exact length (padded path) and with trailing bytes (direct path).
            assert_eq!(unpack_block(&packed, bits, &mut out), Some(packed.len()));
            assert_eq!(&out[..], &vals[..]);
            packed.extend_from_slice(&[0xff; 9]);
            assert_eq!(unpack_block(&packed, bits, &mut out), Some(packed.len() - 9));
            let mut generic = [0u32; BLOCK];
            unpack32(&packed, bits, &mut generic).unwrap();
            assert_eq!(out, generic);
            if bits > 0 {
                assert_eq!(unpack_block(&packed[..packed_len(BLOCK, bits) - 1], bits, &mut out), None);
            }
        }
        assert_eq!(unpack_block(&[0; 600], 33, &mut [0; BLOCK]), None);
    }

    #[test]
    fn lanes_round_trip_at_every_width() {
        for bits in 0..=32u8 {
            let mask = if bits == 32 { u32::MAX } else { (1u32 << bits) - 1 };
            let mut vals = [0u32; BLOCK];
            for (i, v) in vals.iter_mut().enumerate() {
                *v = (i as u32).wrapping_mul(2_654_435_761) & mask;
            }
            if bits > 0 {
                vals[BLOCK - 1] = mask; // the widest value, in the last lane
            }
            let mut packed = Vec::new();
            pack_lanes(&vals, bits, &mut packed);
            assert_eq!(packed.len(), packed_len(BLOCK, bits));
            let mut out = [7u32; BLOCK];
            assert_eq!(unpack_lanes(&packed, bits, &mut out), Some(packed.len()));
            assert_eq!(out, vals, "bits {bits}");
            // The freq variants add 1 to every value, for both layouts.
            let plus1 = vals.map(|v| v.wrapping_add(1));
            assert_eq!(unpack_lanes_plus1(&packed, bits, &mut out), Some(packed.len()));
            assert_eq!(out, plus1, "bits {bits}, plus 1");
            let mut seq = Vec::new();
            pack32(&vals, bits, &mut seq);
            seq.extend_from_slice(&[0; 8]);
            assert_eq!(unpack_block_plus1(&seq, bits, &mut out), Some(packed_len(BLOCK, bits)));
            assert_eq!(out, plus1, "bits {bits}, sequential plus 1");
            if bits > 0 {
                assert_eq!(unpack_lanes(&packed[..packed.len() - 1], bits, &mut out), None);
                assert_eq!(unpack_lanes_plus1(&packed[..packed.len() - 1], bits, &mut out), None);
            }
        }
        assert_eq!(unpack_lanes(&[0; 600], 33, &mut [0; BLOCK]), None);
        assert_eq!(unpack_lanes_plus1(&[0; 600], 33, &mut [0; BLOCK]), None);
    }
}
