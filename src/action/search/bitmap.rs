//! `terms` with `value_type: bitmap` (OpenSearch's bitmap filtering): the single value is a
//! base64 RoaringBitmap in its portable serialization; the query matches the numeric values it
//! holds (32-bit unsigned, as RoaringBitmap stores them).

use base64::Engine as _;

/// Most values a bitmap may hold here (each becomes a term of the query).
pub const MAX_BITMAP_VALUES: usize = 65_536;

const SERIAL_COOKIE_NO_RUNCONTAINER: u32 = 12346;
const SERIAL_COOKIE: u32 = 12347;
const NO_OFFSET_THRESHOLD: usize = 4;
const MAX_ARRAY: usize = 4096;

struct Reader<'a> {
    b: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    fn take(&mut self, n: usize) -> Result<&[u8], String> {
        let end = self.at.checked_add(n).filter(|&e| e <= self.b.len()).ok_or("truncated bitmap")?;
        let s = &self.b[self.at..end];
        self.at = end;
        Ok(s)
    }
    fn u16(&mut self) -> Result<u16, String> {
        let s = self.take(2)?;
        Ok(u16::from_le_bytes([s[0], s[1]]))
    }
    fn u32(&mut self) -> Result<u32, String> {
        let s = self.take(4)?;
        Ok(u32::from_le_bytes([s[0], s[1], s[2], s[3]]))
    }
}

/// The values of a base64 RoaringBitmap, ascending.
pub fn decode_base64(s: &str) -> Result<Vec<u32>, String> {
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(s.trim())
        .map_err(|e| format!("invalid base64 bitmap: {e}"))?;
    decode(&bytes)
}

/// The values of a RoaringBitmap in its portable serialization, ascending.
pub fn decode(bytes: &[u8]) -> Result<Vec<u32>, String> {
    let mut r = Reader { b: bytes, at: 0 };
    let cookie = r.u32()?;
    let (size, runs): (usize, Option<Vec<u8>>) = if cookie & 0xFFFF == SERIAL_COOKIE {
        let size = (cookie >> 16) as usize + 1;
        let runs = r.take(size.div_ceil(8))?.to_vec();
        (size, Some(runs))
    } else if cookie == SERIAL_COOKIE_NO_RUNCONTAINER {
        (r.u32()? as usize, None)
    } else {
        return Err("invalid bitmap: unknown cookie".into());
    };
    if size > 1 << 16 {
        return Err("invalid bitmap: too many containers".into());
    }
    let mut heads = Vec::with_capacity(size);
    for _ in 0..size {
        let key = r.u16()?;
        let card = r.u16()? as usize + 1;
        heads.push((key, card));
    }
    if runs.is_none() || size >= NO_OFFSET_THRESHOLD {
        r.take(4 * size)?;
    }
    let mut out = Vec::new();
    for (i, (key, card)) in heads.into_iter().enumerate() {
        let high = (key as u32) << 16;
        let is_run = runs.as_ref().is_some_and(|rb| rb[i / 8] & (1 << (i % 8)) != 0);
        if out.len() + card > MAX_BITMAP_VALUES && !is_run {
            return Err(format!("bitmap holds more than {MAX_BITMAP_VALUES} values"));
        }
        if is_run {
            let n = r.u16()? as usize;
            for _ in 0..n {
                let start = r.u16()? as u32;
                let len = r.u16()? as u32;
                if out.len() + len as usize + 1 > MAX_BITMAP_VALUES {
                    return Err(format!("bitmap holds more than {MAX_BITMAP_VALUES} values"));
                }
                for v in start..=(start + len).min(0xFFFF) {
                    out.push(high | v);
                }
            }
        } else if card > MAX_ARRAY {
            let words = r.take(8192)?;
            for (w, chunk) in words.chunks_exact(8).enumerate() {
                let mut bits = u64::from_le_bytes(chunk.try_into().map_err(|_| "truncated bitmap")?);
                while bits != 0 {
                    let t = bits.trailing_zeros();
                    out.push(high | (w as u32 * 64 + t));
                    bits &= bits - 1;
                }
            }
        } else {
            for _ in 0..card {
                out.push(high | r.u16()? as u32);
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_array_containers() {
        // RoaringBitmap.bitmapOf(111, 222), serialized and base64 encoded.
        assert_eq!(decode_base64("OjAAAAEAAAAAAAEAEAAAAG8A3gA=").unwrap(), vec![111, 222]);
    }

    #[test]
    fn decodes_run_and_bitmap_containers() {
        // Cookie with runs: one container (key 1) holding the run 5..=7.
        let mut b = vec![];
        b.extend_from_slice(&(SERIAL_COOKIE).to_le_bytes());
        b.push(1); // run flags
        b.extend_from_slice(&1u16.to_le_bytes()); // key
        b.extend_from_slice(&2u16.to_le_bytes()); // cardinality - 1
        b.extend_from_slice(&1u16.to_le_bytes()); // one run
        b.extend_from_slice(&5u16.to_le_bytes());
        b.extend_from_slice(&2u16.to_le_bytes());
        assert_eq!(decode(&b).unwrap(), vec![65541, 65542, 65543]);
        // A bitmap container of 5000 values.
        let mut b = vec![];
        b.extend_from_slice(&SERIAL_COOKIE_NO_RUNCONTAINER.to_le_bytes());
        b.extend_from_slice(&1u32.to_le_bytes());
        b.extend_from_slice(&0u16.to_le_bytes());
        b.extend_from_slice(&4999u16.to_le_bytes());
        b.extend_from_slice(&16u32.to_le_bytes());
        let mut words = vec![0u64; 1024];
        for v in 0..5000u32 {
            words[(v / 64) as usize] |= 1 << (v % 64);
        }
        for w in words {
            b.extend_from_slice(&w.to_le_bytes());
        }
        assert_eq!(decode(&b).unwrap(), (0..5000).collect::<Vec<u32>>());
        assert!(decode(&b[..20]).is_err());
        assert!(decode(&[1, 2, 3, 4]).is_err());
    }
}
