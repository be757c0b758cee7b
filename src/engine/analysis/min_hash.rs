//! `min_hash`: Lucene's `MinHashFilter`. Every term (its UTF-16LE bytes) is hashed with
//! MurmurHash3 x64 128, combined with the hash of each hash function's index, and the smallest
//! `hash_set_size` values of each of `bucket_count` buckets (split on the top 32 bits) are kept
//! per hash function; with `with_rotation` an empty bucket takes the smallest hash of the next
//! non-empty one. The output tokens (type `MIN_HASH`, all at the first position, offsets over
//! the whole value) spell the hash as UTF-16 code units, as Lucene does; a unit that is an
//! unpaired surrogate cannot be held by a Rust string and comes out as U+FFFD.

use std::collections::BTreeSet;

use super::chain::TokenFilter;
use super::token_stream::TokenState;

/// The filter's settings (OpenSearch's `hash_count`, `bucket_count`, `hash_set_size`,
/// `with_rotation`).
#[derive(Clone, Copy, Debug)]
pub struct MinHash {
    /// Hash functions (default 1).
    pub hash_count: usize,
    /// Buckets per hash function (default 512).
    pub bucket_count: usize,
    /// Smallest hashes kept per bucket (default 1).
    pub hash_set_size: usize,
    /// Fill empty buckets from the next ones (default: more than one bucket).
    pub with_rotation: bool,
}

/// 128 bits ordered as Lucene's `LongPair.compareTo`: the high long then the low, unsigned.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Hash {
    high: u64,
    low: u64,
}

fn fmix64(mut k: u64) -> u64 {
    k ^= k >> 33;
    k = k.wrapping_mul(0xff51_afd7_ed55_8ccd);
    k ^= k >> 33;
    k = k.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    k ^ (k >> 33)
}

/// MurmurHash3 x64 128 with seed 0: (h1, h2), Lucene's (`val1`, `val2`).
pub fn murmur3_x64_128(key: &[u8]) -> (u64, u64) {
    const C1: u64 = 0x87c3_7b91_1142_53d5;
    const C2: u64 = 0x4cf5_ad43_2745_937f;
    let (mut h1, mut h2) = (0u64, 0u64);
    let mut blocks = key.chunks_exact(16);
    for block in &mut blocks {
        let mut k1 = u64::from_le_bytes(block[..8].try_into().unwrap_or([0; 8]));
        let mut k2 = u64::from_le_bytes(block[8..].try_into().unwrap_or([0; 8]));
        k1 = k1.wrapping_mul(C1).rotate_left(31).wrapping_mul(C2);
        h1 ^= k1;
        h1 = h1.rotate_left(27).wrapping_add(h2).wrapping_mul(5).wrapping_add(0x52dc_e729);
        k2 = k2.wrapping_mul(C2).rotate_left(33).wrapping_mul(C1);
        h2 ^= k2;
        h2 = h2.rotate_left(31).wrapping_add(h1).wrapping_mul(5).wrapping_add(0x3849_5ab5);
    }
    let tail = blocks.remainder();
    let (mut k1, mut k2) = (0u64, 0u64);
    for (i, byte) in tail.iter().enumerate() {
        if i < 8 {
            k1 |= u64::from(*byte) << (8 * i);
        } else {
            k2 |= u64::from(*byte) << (8 * (i - 8));
        }
    }
    if tail.len() > 8 {
        k2 = k2.wrapping_mul(C2).rotate_left(33).wrapping_mul(C1);
        h2 ^= k2;
    }
    if !tail.is_empty() {
        k1 = k1.wrapping_mul(C1).rotate_left(31).wrapping_mul(C2);
        h1 ^= k1;
    }
    let len = key.len() as u64;
    h1 ^= len;
    h2 ^= len;
    h1 = h1.wrapping_add(h2);
    h2 = h2.wrapping_add(h1);
    h1 = fmix64(h1);
    h2 = fmix64(h2);
    h1 = h1.wrapping_add(h2);
    h2 = h2.wrapping_add(h1);
    (h1, h2)
}

/// The hash of hash function `i` (its index as four big-endian bytes).
fn int_hash(i: usize) -> (u64, u64) {
    murmur3_x64_128(&(i as u32).to_be_bytes())
}

impl MinHash {
    fn min_hashes(&self, terms: impl Iterator<Item = String>) -> Vec<Vec<BTreeSet<Hash>>> {
        let bucket_size = (1u64 << 32).div_ceil(self.bucket_count as u64);
        let mut sets: Vec<Vec<BTreeSet<Hash>>> = vec![vec![BTreeSet::new(); self.bucket_count]; self.hash_count];
        let salts: Vec<(u64, u64)> = (0..self.hash_count).map(int_hash).collect();
        for term in terms {
            let bytes: Vec<u8> = term.encode_utf16().flat_map(u16::to_le_bytes).collect();
            let (val1, val2) = murmur3_x64_128(&bytes);
            for (i, salt) in salts.iter().enumerate() {
                // combineOrdered(hash, salt): 0 * 37 + hash, then * 37 + salt.
                let low = val1.wrapping_mul(37).wrapping_add(salt.0);
                let high = val2.wrapping_mul(37).wrapping_add(salt.1);
                let bucket = ((high >> 32) / bucket_size) as usize;
                if let Some(set) = sets[i].get_mut(bucket) {
                    let hash = Hash { high, low };
                    if set.len() >= self.hash_set_size {
                        match set.last() {
                            Some(last) if hash >= *last => continue,
                            _ => {
                                set.pop_last();
                            }
                        }
                    }
                    set.insert(hash);
                }
            }
        }
        if self.with_rotation && self.hash_set_size == 1 {
            for buckets in &mut sets {
                for bucket in 0..self.bucket_count {
                    if !buckets[bucket].is_empty() {
                        continue;
                    }
                    let replacement = (1..self.bucket_count)
                        .find_map(|offset| buckets[(bucket + offset) % self.bucket_count].first().copied());
                    if let Some(hash) = replacement {
                        buckets[bucket].insert(hash);
                    }
                }
            }
        }
        sets
    }
}

fn units_of_long(x: u64) -> [u16; 4] {
    [(x >> 48) as u16, (x >> 32) as u16, (x >> 16) as u16, x as u16]
}

impl TokenFilter for MinHash {
    fn filter(&self, tokens: Vec<TokenState>, _end: &mut u32) -> Vec<TokenState> {
        let Some(end) = tokens.iter().map(|t| t.end).max() else { return tokens };
        let sets = self.min_hashes(tokens.into_iter().map(|t| t.term));
        let mut out = Vec::new();
        for (hash_index, buckets) in sets.iter().enumerate() {
            for bucket in buckets {
                for hash in bucket {
                    let mut units: Vec<u16> = Vec::with_capacity(10);
                    if self.hash_count > 1 {
                        units.extend([(hash_index >> 16) as u16, hash_index as u16]);
                    }
                    units.extend(units_of_long(hash.high));
                    let low = units_of_long(hash.low);
                    units.extend(&low[..2]);
                    if self.hash_count == 1 {
                        units.extend(&low[2..]);
                    }
                    let term: String = char::decode_utf16(units).map(|c| c.unwrap_or('\u{FFFD}')).collect();
                    let mut token = TokenState::new(&term, 0, end, "MIN_HASH");
                    token.position_increment = u32::from(out.is_empty());
                    out.push(token);
                }
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn murmur3_matches_the_reference_vectors() {
        // MurmurHash3_x64_128 of "" and "hello" with seed 0 (reference implementation).
        assert_eq!(murmur3_x64_128(b""), (0, 0));
        assert_eq!(murmur3_x64_128(b"hello"), (0xcbd8_a7b3_41bd_9b02, 0x5b1e_906a_48ae_1d19));
        assert_eq!(
            murmur3_x64_128(b"The quick brown fox jumps over the lazy dog"),
            (0xe34b_bc7b_bc07_1b6c, 0x7a43_3ca9_c49a_9347)
        );
    }

    #[test]
    fn one_token_per_bucket_with_rotation() {
        let filter = MinHash { hash_count: 1, bucket_count: 512, hash_set_size: 1, with_rotation: true };
        let tokens: Vec<TokenState> = ["the", "quick", "brown", "fox"]
            .iter()
            .enumerate()
            .map(|(i, w)| TokenState::new(w, i * 6, i * 6 + w.len(), "word"))
            .collect();
        let out = filter.filter(tokens, &mut 0);
        assert_eq!(out.len(), 512);
        assert_eq!(out[0].position_increment, 1);
        assert!(out[1..].iter().all(|t| t.position_increment == 0 && t.start == 0 && t.end == 21));
        let without = MinHash { with_rotation: false, ..filter };
        let four: Vec<TokenState> =
            ["the", "quick", "brown", "fox"].iter().map(|w| TokenState::new(w, 0, 3, "word")).collect();
        assert_eq!(without.filter(four, &mut 0).len(), 4);
    }
}
