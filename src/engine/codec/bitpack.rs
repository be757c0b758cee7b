//! Bit-packing of unsigned integers at a fixed width.
//!
//! `pack` writes `values.len()` integers of `bits` bits each, least significant bits first,
//! into `ceil(len * bits / 8)` bytes. Postings use blocks of [`BLOCK`] values.

use crate::engine::{Error, Result};

/// Values per postings block.
pub const BLOCK: usize = 128;

/// Bits needed to represent `max` (0 for 0).
#[inline]
pub fn bits_needed(max: u64) -> u8 {
    (64 - max.leading_zeros()) as u8
}

/// Bytes that `n` values of `bits` bits occupy.
#[inline]
pub fn packed_len(n: usize, bits: u8) -> usize {
    (n * bits as usize).div_ceil(8)
}

/// Appends `values` packed at `bits` bits each (`bits <= 32`; every value must fit).
pub fn pack32(values: &[u32], bits: u8, out: &mut Vec<u8>) {
    debug_assert!(bits <= 32);
    if bits == 0 {
        return;
    }
    let start = out.len();
    out.resize(start + packed_len(values.len(), bits), 0);
    let dst = &mut out[start..];
    let mut acc: u64 = 0;
    let mut acc_bits = 0u32;
    let mut o = 0usize;
    for &v in values {
        debug_assert!(bits == 32 || v >> bits == 0, "value {v} does not fit in {bits} bits");
        acc |= (v as u64) << acc_bits;
        acc_bits += bits as u32;
        while acc_bits >= 8 {
            dst[o] = acc as u8;
            o += 1;
            acc >>= 8;
            acc_bits -= 8;
        }
    }
    if acc_bits > 0 {
        dst[o] = acc as u8;
    }
}

/// Unpacks `out.len()` values of `bits` bits from the front of `input`; returns the bytes used.
#[inline]
pub fn unpack32(input: &[u8], bits: u8, out: &mut [u32]) -> Result<usize> {
    if bits > 32 {
        return Err(Error::corrupt("", 0, format!("bit width {bits} exceeds 32")));
    }
    let need = packed_len(out.len(), bits);
    if input.len() < need {
        return Err(Error::corrupt("", 0, format!("packed block needs {need} bytes, {} left", input.len())));
    }
    if bits == 0 {
        out.fill(0);
        return Ok(0);
    }
    let mask: u64 = if bits == 32 { u32::MAX as u64 } else { (1u64 << bits) - 1 };
    let b = bits as usize;
    for (i, slot) in out.iter_mut().enumerate() {
        let bit = i * b;
        let byte = bit >> 3;
        let shift = bit & 7;
        // Read up to 8 bytes without going past `need`.
        let word = if byte + 8 <= input.len() {
            u64::from_le_bytes(input[byte..byte + 8].try_into().expect("slice of 8"))
        } else {
            let mut tmp = [0u8; 8];
            let n = input.len() - byte;
            tmp[..n].copy_from_slice(&input[byte..]);
            u64::from_le_bytes(tmp)
        };
        *slot = ((word >> shift) & mask) as u32;
    }
    Ok(need)
}

/// Appends `values` packed at `bits` bits each (`bits <= 64`).
pub fn pack64(values: &[u64], bits: u8, out: &mut Vec<u8>) {
    if bits == 0 {
        return;
    }
    let start = out.len();
    out.resize(start + packed_len(values.len(), bits), 0);
    let dst = &mut out[start..];
    let mut bitpos = 0usize;
    for &v in values {
        let mut v = v;
        let mut left = bits as usize;
        while left > 0 {
            let byte = bitpos >> 3;
            let shift = bitpos & 7;
            let take = (8 - shift).min(left);
            dst[byte] |= ((v & ((1u64 << take) - 1)) as u8) << shift;
            v = if take == 64 { 0 } else { v >> take };
            left -= take;
            bitpos += take;
        }
    }
}

/// Reads the `index`-th value of `bits` bits from packed `input` (random access).
#[inline]
pub fn get64(input: &[u8], bits: u8, index: usize) -> Result<u64> {
    if bits == 0 {
        return Ok(0);
    }
    if bits > 64 {
        return Err(Error::corrupt("", 0, format!("bit width {bits} exceeds 64")));
    }
    let bit = index * bits as usize;
    let end = (bit + bits as usize).div_ceil(8);
    if end > input.len() {
        return Err(Error::corrupt("", 0, format!("packed value {index} past end of {} bytes", input.len())));
    }
    let byte = bit >> 3;
    let shift = (bit & 7) as u32;
    let mut tmp = [0u8; 16];
    let n = (input.len() - byte).min(16);
    tmp[..n].copy_from_slice(&input[byte..byte + n]);
    let word = u128::from_le_bytes(tmp) >> shift;
    let mask: u128 = if bits == 64 { u64::MAX as u128 } else { (1u128 << bits) - 1 };
    Ok((word & mask) as u64)
}
