//! Document routing: which shard of an index holds a document, exactly as OpenSearch computes it
//! (`OperationRouting.generateShardId`): Murmur3 x86 32-bit (seed 0) over the UTF-16 code units of
//! `_routing` or `_id` (each unit as two little-endian bytes), `floorMod` over the routing shard
//! count, divided by the routing factor.

pub use crate::engine::codec::murmur3::murmur3_x86_32;

/// OpenSearch's default number of routing shards for `num_shards` primaries
/// (`MetadataCreateIndexService.calculateNumRoutingShards`): the largest `num_shards * 2^k ≤ 1024`,
/// with at least one split.
pub fn default_routing_shards(num_shards: u32) -> u32 {
    let num_shards = num_shards.max(1);
    let log2_num = 32 - (num_shards - 1).leading_zeros();
    let splits = 10i64 - log2_num as i64;
    let splits = splits.max(1) as u32;
    num_shards.checked_shl(splits).unwrap_or(num_shards)
}

/// The shard (0-based) that `routing` (the `_routing` value, or the `_id`) maps to.
pub fn shard_id(routing: &str, num_shards: u32, routing_num_shards: u32) -> u32 {
    let num_shards = num_shards.max(1);
    let routing_num_shards = routing_num_shards.max(num_shards);
    let hash = murmur3_utf16(routing);
    let factor = routing_num_shards / num_shards;
    let m = (hash as i64).rem_euclid(routing_num_shards as i64) as u32;
    m / factor.max(1)
}

/// Murmur3 (x86, 32-bit, seed 0) of the string's UTF-16 code units, each written as two bytes
/// low byte first (OpenSearch's `Murmur3HashFunction.hash(String)`).
pub fn murmur3_utf16(s: &str) -> i32 {
    let mut bytes = Vec::with_capacity(s.len() * 2);
    for u in s.encode_utf16() {
        bytes.push(u as u8);
        bytes.push((u >> 8) as u8);
    }
    murmur3_x86_32(&bytes, 0) as i32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn murmur3_reference_vectors() {
        // Published vectors of MurmurHash3_x86_32.
        assert_eq!(murmur3_x86_32(b"", 0), 0);
        assert_eq!(murmur3_x86_32(b"", 1), 0x514E_28B7);
        assert_eq!(murmur3_x86_32(b"hello", 0), 0x248b_fa47);
        assert_eq!(murmur3_x86_32(b"Hello, world!", 1234), 0xfaf6_cdb3);
        assert_eq!(murmur3_x86_32(b"The quick brown fox jumps over the lazy dog", 0x9747_b28c), 0x2fa8_26cd);
    }

    #[test]
    fn routing_shards_defaults() {
        assert_eq!(default_routing_shards(1), 1024);
        assert_eq!(default_routing_shards(2), 1024);
        assert_eq!(default_routing_shards(3), 768);
        assert_eq!(default_routing_shards(5), 640);
        assert_eq!(default_routing_shards(1024), 2048);
    }

    #[test]
    fn one_shard_is_shard_zero() {
        for id in ["a", "b", "1", "xyz", "ü"] {
            assert_eq!(shard_id(id, 1, default_routing_shards(1)), 0);
        }
    }

    #[test]
    fn string_hash_matches_opensearch() {
        // OpenSearch's Murmur3HashFunctionTests (hashes of the UTF-16 bytes of strings).
        assert_eq!(murmur3_utf16("hell") as u32, 0x5a0c_b7c3);
        assert_eq!(murmur3_utf16("hello") as u32, 0xd7c3_1989);
        assert_eq!(murmur3_utf16("hello w") as u32, 0x22ab_2984);
        assert_eq!(murmur3_utf16("hello wo") as u32, 0xdf0c_a123);
        assert_eq!(murmur3_utf16("hello wor") as u32, 0xe774_4d61);
        assert_eq!(murmur3_utf16("The quick brown fox jumps over the lazy dog") as u32, 0xe07d_b09c);
        assert_eq!(murmur3_utf16("The quick brown fox jumps over the lazy cog") as u32, 0x4e63_d2ad);
    }
}
