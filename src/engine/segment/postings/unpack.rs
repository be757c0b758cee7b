//! Unpacking a full block of 128 bit-packed values with the bit width known at compile time, so
//! that every shift and byte offset is a constant and there is no per-value branch.

use super::BLOCK;
use crate::engine::codec::bitpack::packed_len;

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
    let src = input;
    macro_rules! dispatch {
        ($($b:literal)*) => {
            match bits {
                0 => out.fill(0),
                $($b => unpack_fixed::<$b>(src, out),)*
                _ => return None,
            }
        };
    }
    dispatch!(1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32);
    Some(need)
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
}
