//! Bucket ordinals (OpenSearch's `LongKeyedBucketOrds` / `BytesKeyedBucketOrds`): each
//! (owning bucket, key) pair gets a dense ordinal the first time it is seen; doc counts and the
//! sub-aggregations' state are indexed by it.

use std::collections::HashMap;

/// A raw bucket key: a column long (numbers, dates, rounded histogram keys) or term bytes.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum RawKey {
    L(i64),
    B(Box<[u8]>),
}

/// Dense ordinals of (owner, key) pairs with their doc counts.
#[derive(Debug, Default)]
pub struct BucketOrds {
    map: HashMap<(u32, RawKey), u32, ahash::RandomState>,
    /// Per ordinal: its owner and key.
    pub keys: Vec<(u32, RawKey)>,
    /// Per ordinal: documents collected.
    pub counts: Vec<u64>,
    /// Per owner: its ordinals in creation order.
    pub per_owner: Vec<Vec<u32>>,
}

impl BucketOrds {
    /// The ordinal of `(owner, key)`, made on first sight.
    #[inline]
    pub fn ord(&mut self, owner: u32, key: RawKey) -> u32 {
        if let Some(&o) = self.map.get(&(owner, key.clone())) {
            return o;
        }
        let o = self.keys.len() as u32;
        self.map.insert((owner, key.clone()), o);
        self.keys.push((owner, key));
        self.counts.push(0);
        let ow = owner as usize;
        if self.per_owner.len() <= ow {
            self.per_owner.resize_with(ow + 1, Vec::new);
        }
        self.per_owner[ow].push(o);
        o
    }

    /// The ordinal of a long key (no allocation when it exists).
    #[inline]
    pub fn ord_long(&mut self, owner: u32, key: i64) -> u32 {
        self.ord(owner, RawKey::L(key))
    }

    /// The ordinals of `owner`.
    pub fn of_owner(&self, owner: u32) -> &[u32] {
        self.per_owner.get(owner as usize).map_or(&[], Vec::as_slice)
    }

    /// Approximate bytes held.
    pub fn mem_bytes(&self) -> usize {
        self.keys.capacity() * (std::mem::size_of::<(u32, RawKey)>() * 2 + 12)
            + self.keys.iter().map(|(_, k)| if let RawKey::B(b) = k { b.len() * 2 } else { 0 }).sum::<usize>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ordinals_are_dense_per_pair() {
        let mut o = BucketOrds::default();
        assert_eq!(o.ord_long(0, 5), 0);
        assert_eq!(o.ord_long(1, 5), 1);
        assert_eq!(o.ord_long(0, 5), 0);
        assert_eq!(o.ord(0, RawKey::B(b"x".to_vec().into())), 2);
        assert_eq!(o.of_owner(0), &[0, 2]);
        assert_eq!(o.of_owner(7), &[] as &[u32]);
    }
}
