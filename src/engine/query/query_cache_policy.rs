//! Which filters the node query cache keeps (Lucene's `UsageTrackingQueryCachingPolicy`): a
//! filter is cached once it was used often enough among the last 256 filters a shard copy ran,
//! 2 times for costly ones (multi-term, terms-in-set, point ranges), 4 for compound ones
//! (`bool`, `dis_max`), 5 for the others; term and match-all queries are never cached (their
//! iterators are already as fast as a cached set). Only queries whose matches depend on nothing
//! but the segment's files are cacheable at all (no scripts, source checks, nested joins).

use std::collections::HashMap;

use super::tree::Query;

/// How many recent uses a copy remembers (Lucene's default history size).
pub const HISTORY: usize = 256;

/// A cacheable query's cost class.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Class {
    /// Never worth caching (term, match_all, an empty bool).
    Never,
    /// Costly to build (multi-term, terms, ranges): cached after 2 uses.
    Costly,
    /// `bool` or `dis_max`: after 4 uses.
    Compound,
    /// Any other: after 5 uses.
    Plain,
}

impl Class {
    /// Uses in the history before the query is cached.
    pub fn min_frequency(self) -> u32 {
        match self {
            Class::Never => u32::MAX,
            Class::Costly => 2,
            Class::Compound => 4,
            Class::Plain => 5,
        }
    }
}

/// Whether `q`'s matches on a segment depend only on the segment's files (deletions aside).
fn deterministic(q: &Query) -> bool {
    match q {
        Query::Term { .. }
        | Query::Terms { .. }
        | Query::Phrase { .. }
        | Query::Prefix { .. }
        | Query::Wildcard { .. }
        | Query::Range { .. }
        | Query::Exists { .. }
        | Query::DocValues { .. }
        | Query::MatchAll { .. }
        | Query::MultiPhrase { .. }
        | Query::MatchNone => true,
        Query::ConstantScore { query, .. } => deterministic(query),
        Query::Bool { must, should, must_not, filter, .. } => {
            must.iter().chain(should).chain(must_not).chain(filter).all(deterministic)
        }
        Query::DisMax { queries, .. } => queries.iter().all(deterministic),
        _ => false,
    }
}

/// The class of `q` as a cache key, `None` when it is not cacheable (or is keyed by what it
/// wraps: a `constant_score` caches its inner query, as Lucene unwraps `ConstantScoreQuery`).
pub fn classify(q: &Query) -> Option<Class> {
    if !deterministic(q) {
        return None;
    }
    Some(match q {
        Query::Term { .. } | Query::MatchAll { .. } => Class::Never,
        Query::ConstantScore { .. } | Query::MatchNone => return None,
        Query::Terms { .. } | Query::Prefix { .. } | Query::Wildcard { .. } | Query::Range { .. } => Class::Costly,
        Query::Bool { must, should, must_not, filter, .. } => {
            if must.is_empty() && should.is_empty() && must_not.is_empty() && filter.is_empty() {
                Class::Never
            } else {
                Class::Compound
            }
        }
        Query::DisMax { queries, .. } if queries.is_empty() => Class::Never,
        Query::DisMax { .. } => Class::Compound,
        _ => Class::Plain,
    })
}

/// The recent uses of one shard copy: a ring of query hashes with their counts (Lucene's
/// `FrequencyTrackingRingBuffer`; hashes only, so a collision at worst caches a query early).
#[derive(Debug, Default)]
pub struct UsageHistory {
    ring: Vec<u64>,
    next: usize,
    counts: HashMap<u64, u32>,
}

impl UsageHistory {
    /// Records one use of the query hashed `h`.
    pub fn add(&mut self, h: u64) {
        if self.ring.len() < HISTORY {
            self.ring.push(h);
        } else {
            let old = std::mem::replace(&mut self.ring[self.next], h);
            if let Some(c) = self.counts.get_mut(&old) {
                *c -= 1;
                if *c == 0 {
                    self.counts.remove(&old);
                }
            }
            self.next = (self.next + 1) % HISTORY;
        }
        *self.counts.entry(h).or_default() += 1;
    }

    /// How many of the remembered uses were of the query hashed `h`.
    pub fn frequency(&self, h: u64) -> u32 {
        self.counts.get(&h).copied().unwrap_or(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classes_follow_lucene() {
        assert_eq!(classify(&Query::term("f", "x")), Some(Class::Never));
        assert_eq!(classify(&Query::MatchAll { boost: 1.0 }), Some(Class::Never));
        let terms = Query::Terms { field: "f".into(), terms: vec![b"a".to_vec()], boost: 1.0 };
        assert_eq!(classify(&terms), Some(Class::Costly));
        assert_eq!(classify(&Query::and(vec![Query::term("f", "a"), terms.clone()])), Some(Class::Compound));
        assert_eq!(classify(&Query::and(vec![])), Some(Class::Never));
        assert_eq!(classify(&Query::Exists { field: "f".into(), boost: 1.0 }), Some(Class::Plain));
        assert_eq!(classify(&Query::ConstantScore { query: Box::new(terms), boost: 1.0 }), None);
        assert_eq!(Class::Costly.min_frequency(), 2);
        assert_eq!(Class::Compound.min_frequency(), 4);
        assert_eq!(Class::Plain.min_frequency(), 5);
    }

    #[test]
    fn history_forgets_uses_older_than_its_size() {
        let mut h = UsageHistory::default();
        h.add(7);
        h.add(7);
        assert_eq!(h.frequency(7), 2);
        for i in 0..HISTORY as u64 - 1 {
            h.add(100 + i);
        }
        assert_eq!(h.frequency(7), 1);
        h.add(1);
        assert_eq!(h.frequency(7), 0);
        assert_eq!(h.frequency(100), 1);
        assert_eq!(h.counts.values().sum::<u32>() as usize, HISTORY);
    }
}
