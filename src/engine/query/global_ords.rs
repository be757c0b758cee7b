//! Global ordinals (Lucene's `OrdinalMap`): the terms of a field across every segment of a
//! reader numbered in byte order, with each segment's ordinals mapped onto them. A terms
//! aggregation then counts by an array index per document instead of hashing term bytes once
//! per segment, and resolves the bytes of the buckets it keeps only. Built by merging the
//! segments' sorted dictionaries; the node keeps it (as fielddata of the field) for as long as
//! every segment of the reader is open.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use crate::engine::Result;

/// How often the merge reads the cancel flag (terms merged between checks).
const CANCEL_CHECK_EVERY: u64 = 1 << 14;

/// The global ordinals of one field over the segments of one reader.
#[derive(Debug, Default)]
pub struct GlobalOrdinals {
    /// Per segment: segment ordinal -> global ordinal (empty for a segment without the field).
    maps: Vec<Vec<u32>>,
    /// Per global ordinal: a (segment, segment ordinal) that holds its term.
    first: Vec<(u32, u32)>,
    /// With one segment the global ordinals are the segment's own: no maps are built.
    identity: Option<u64>,
}

impl GlobalOrdinals {
    /// The ordinals of a single segment with `count` terms, which are already global.
    pub fn identity(count: u64) -> GlobalOrdinals {
        GlobalOrdinals { identity: Some(count), ..Default::default() }
    }

    /// Merges the dictionaries of segments with `counts[s]` terms each; `term(s, ord)` reads a
    /// term (each segment's ordinals follow the byte order of its terms). `None` when the
    /// thread's work was cancelled during the merge.
    pub fn build(
        counts: &[u64],
        term: &mut dyn FnMut(usize, u64) -> Result<Vec<u8>>,
    ) -> Result<Option<GlobalOrdinals>> {
        let mut g =
            GlobalOrdinals { maps: counts.iter().map(|&c| vec![0u32; c as usize]).collect(), ..Default::default() };
        let mut heap: BinaryHeap<Reverse<(Vec<u8>, usize, u64)>> = BinaryHeap::with_capacity(counts.len());
        for (s, &c) in counts.iter().enumerate() {
            if c > 0 {
                heap.push(Reverse((term(s, 0)?, s, 0)));
            }
        }
        let mut last: Option<Vec<u8>> = None;
        let mut merged = 0u64;
        while let Some(Reverse((t, s, ord))) = heap.pop() {
            merged += 1;
            if merged % CANCEL_CHECK_EVERY == 0 && crate::engine::cancel::requested() {
                return Ok(None);
            }
            if last.as_deref() != Some(t.as_slice()) {
                g.first.push((s as u32, ord as u32));
                last = Some(t);
            }
            g.maps[s][ord as usize] = (g.first.len() - 1) as u32;
            if ord + 1 < counts[s] {
                heap.push(Reverse((term(s, ord + 1)?, s, ord + 1)));
            }
        }
        Ok(Some(g))
    }

    /// The number of distinct terms.
    pub fn count(&self) -> u64 {
        self.identity.unwrap_or(self.first.len() as u64)
    }

    /// The segment ordinal -> global ordinal map of segment `s` (`None`: the identity).
    pub fn segment_map(&self, s: usize) -> Option<&[u32]> {
        if self.identity.is_some() {
            None
        } else {
            Some(self.maps.get(s).map_or(&[], Vec::as_slice))
        }
    }

    /// Where the term of global ordinal `g` can be read: (segment, segment ordinal).
    pub fn source_of(&self, g: u64) -> Option<(usize, u64)> {
        if self.identity.is_some() {
            return (g < self.count()).then_some((0, g));
        }
        self.first.get(g as usize).map(|&(s, o)| (s as usize, u64::from(o)))
    }

    /// Bytes held.
    pub fn mem_bytes(&self) -> u64 {
        (self.maps.iter().map(|m| m.capacity() * 4).sum::<usize>()
            + self.first.capacity() * 8
            + std::mem::size_of::<Self>()) as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    fn build(segs: &[Vec<&str>]) -> GlobalOrdinals {
        let counts: Vec<u64> = segs.iter().map(|s| s.len() as u64).collect();
        GlobalOrdinals::build(&counts, &mut |s, o| Ok(segs[s][o as usize].as_bytes().to_vec())).unwrap().unwrap()
    }

    #[test]
    fn merges_dictionaries_in_byte_order() {
        let segs = vec![vec!["b", "d"], vec![], vec!["a", "b", "c"], vec!["d"]];
        let g = build(&segs);
        assert_eq!(g.count(), 4);
        assert_eq!(g.segment_map(0), Some(&[1, 3][..]));
        assert_eq!(g.segment_map(1), Some(&[][..]));
        assert_eq!(g.segment_map(2), Some(&[0, 1, 2][..]));
        assert_eq!(g.segment_map(3), Some(&[3][..]));
        let term = |g: u64| {
            let (s, o) = build(&segs).source_of(g).unwrap();
            segs[s][o as usize]
        };
        assert_eq!((0..4).map(term).collect::<Vec<_>>(), ["a", "b", "c", "d"]);
        assert_eq!(g.source_of(4), None);
    }

    #[test]
    fn identity_of_one_segment() {
        let g = GlobalOrdinals::identity(3);
        assert_eq!(g.count(), 3);
        assert_eq!(g.segment_map(0), None);
        assert_eq!(g.source_of(2), Some((0, 2)));
        assert_eq!(g.source_of(3), None);
    }

    #[test]
    fn a_cancelled_merge_stops() {
        let flag = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(true));
        let prev = crate::engine::cancel::set(Some(flag));
        let n = CANCEL_CHECK_EVERY * 2;
        let r = GlobalOrdinals::build(&[n], &mut |_, o| Ok(format!("{o:08}").into_bytes())).unwrap();
        crate::engine::cancel::set(prev);
        assert!(r.is_none());
    }

    /// Against a model: the global ordinal of every (segment, ordinal) is the rank of its term
    /// among the union of all terms.
    #[test]
    fn matches_the_rank_in_the_union() {
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for _ in 0..50 {
            let nsegs = (next() % 6) as usize + 1;
            let segs: Vec<Vec<String>> = (0..nsegs)
                .map(|_| {
                    let set: BTreeSet<String> = (0..next() % 20).map(|_| format!("t{}", next() % 40)).collect();
                    set.into_iter().collect()
                })
                .collect();
            let union: Vec<&String> = segs.iter().flatten().collect::<BTreeSet<_>>().into_iter().collect();
            let counts: Vec<u64> = segs.iter().map(|s| s.len() as u64).collect();
            let g = GlobalOrdinals::build(&counts, &mut |s, o| Ok(segs[s][o as usize].as_bytes().to_vec()))
                .unwrap()
                .unwrap();
            assert_eq!(g.count() as usize, union.len());
            for (s, seg) in segs.iter().enumerate() {
                for (o, t) in seg.iter().enumerate() {
                    let want = union.binary_search(&t).unwrap() as u32;
                    assert_eq!(g.segment_map(s).unwrap()[o], want);
                }
            }
        }
    }
}
