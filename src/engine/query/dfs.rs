//! Global term statistics for `dfs_query_then_fetch` (OpenSearch's `DfsPhase` and
//! `AggregatedDfs`): a first round compiles the query on every shard while *recording* the term
//! and field statistics the compilation looks up; the coordinator sums them; the query round
//! compiles again with the sums *in force*, so BM25 sees the statistics of the whole search
//! whatever shards a node holds.
//!
//! The mode is a scope on the calling thread (compilation is synchronous), like Lucene's
//! `ContextIndexSearcher` whose `termStatistics`/`collectionStatistics` read the aggregated
//! statistics: a term or field the first round did not see keeps its local statistics.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

/// A term's statistics summed over shards.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct TermAgg {
    pub doc_freq: u64,
    pub total_term_freq: u64,
}

/// A field's statistics summed over shards (Lucene's `CollectionStatistics`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct FieldAgg {
    pub doc_count: u64,
    pub sum_total_term_freq: u64,
    pub sum_doc_freq: u64,
}

impl FieldAgg {
    fn add(&mut self, o: &FieldAgg) {
        self.doc_count += o.doc_count;
        self.sum_total_term_freq += o.sum_total_term_freq;
        self.sum_doc_freq += o.sum_doc_freq;
    }
}

/// Term and field statistics of some shards (one shard's `DfsSearchResult`, or their sum).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(from = "Wire", into = "Wire")]
pub struct DfsStats {
    /// Per (field, term).
    pub terms: BTreeMap<(String, Vec<u8>), TermAgg>,
    pub fields: BTreeMap<String, FieldAgg>,
    /// Documents of the shards, deleted ones included.
    pub max_doc: u64,
}

/// [`DfsStats`] as sent between nodes (JSON maps have string keys only).
#[derive(Serialize, Deserialize)]
struct Wire {
    terms: Vec<(String, Vec<u8>, TermAgg)>,
    fields: Vec<(String, FieldAgg)>,
    max_doc: u64,
}

impl From<Wire> for DfsStats {
    fn from(w: Wire) -> DfsStats {
        DfsStats {
            terms: w.terms.into_iter().map(|(f, t, s)| ((f, t), s)).collect(),
            fields: w.fields.into_iter().collect(),
            max_doc: w.max_doc,
        }
    }
}

impl From<DfsStats> for Wire {
    fn from(s: DfsStats) -> Wire {
        Wire {
            terms: s.terms.into_iter().map(|((f, t), a)| (f, t, a)).collect(),
            fields: s.fields.into_iter().collect(),
            max_doc: s.max_doc,
        }
    }
}

impl DfsStats {
    /// Adds `other`'s statistics (OpenSearch's `SearchPhaseController.aggregateDfs`).
    pub fn merge(&mut self, other: &DfsStats) {
        for (k, v) in &other.terms {
            let e = self.terms.entry(k.clone()).or_default();
            e.doc_freq += v.doc_freq;
            e.total_term_freq += v.total_term_freq;
        }
        for (k, v) in &other.fields {
            self.fields.entry(k.clone()).or_default().add(v);
        }
        self.max_doc += other.max_doc;
    }
}

enum Mode {
    Global(Arc<DfsStats>),
    Record(DfsStats),
}

thread_local! {
    static MODE: RefCell<Option<Mode>> = const { RefCell::new(None) };
}

/// Restores the previous mode when the scope ends (also on unwinding).
struct Restore(Option<Mode>);

impl Drop for Restore {
    fn drop(&mut self) {
        let prev = self.0.take();
        MODE.with(|m| *m.borrow_mut() = prev);
    }
}

fn enter(mode: Option<Mode>) -> Restore {
    Restore(MODE.with(|m| std::mem::replace(&mut *m.borrow_mut(), mode)))
}

/// Runs `f` with `stats` (when given) in force for every compilation on this thread.
pub fn with_global<T>(stats: Option<&Arc<DfsStats>>, f: impl FnOnce() -> T) -> T {
    match stats {
        None => f(),
        Some(s) => {
            let _restore = enter(Some(Mode::Global(s.clone())));
            f()
        }
    }
}

/// Runs `f` and returns what it returned with the statistics its compilations looked up (the
/// terms that occur, the fields that have documents; `max_doc` is left 0 for the caller).
pub fn recording<T>(f: impl FnOnce() -> T) -> (T, DfsStats) {
    let restore = enter(Some(Mode::Record(DfsStats::default())));
    let out = f();
    let recorded = MODE.with(|m| match m.borrow_mut().take() {
        Some(Mode::Record(s)) => s,
        _ => DfsStats::default(),
    });
    drop(restore);
    (out, recorded)
}

/// The statistics scoring uses for a term found locally with `local` (`doc_freq > 0`).
pub(super) fn term(field: &str, term: &[u8], local: TermAgg) -> TermAgg {
    MODE.with(|m| match &mut *m.borrow_mut() {
        None => local,
        Some(Mode::Global(s)) => s.terms.get(&(field.to_string(), term.to_vec())).copied().unwrap_or(local),
        Some(Mode::Record(s)) => {
            if local.doc_freq > 0 {
                s.terms.insert((field.to_string(), term.to_vec()), local);
            }
            local
        }
    })
}

/// The statistics scoring uses for a field whose local ones are `local`.
pub(super) fn field(field: &str, local: FieldAgg) -> FieldAgg {
    MODE.with(|m| match &mut *m.borrow_mut() {
        None => local,
        Some(Mode::Global(s)) => s.fields.get(field).copied().unwrap_or(local),
        Some(Mode::Record(s)) => {
            if local.doc_count > 0 {
                s.fields.insert(field.to_string(), local);
            }
            local
        }
    })
}

/// The document count (deleted ones included) scoring uses when the local one is `local`.
pub(super) fn max_doc(local: u64) -> u64 {
    MODE.with(|m| match &*m.borrow() {
        Some(Mode::Global(s)) if s.max_doc > 0 => s.max_doc,
        _ => local,
    })
}

#[cfg(test)]
#[path = "dfs_tests.rs"]
mod tests;
