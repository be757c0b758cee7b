//! What an action leaves for after its answer is built, returned in its result instead of
//! through thread-locals: OpenSearch's deprecation warnings (its `Warning` response headers) and
//! the shards whose next refresh the answer waits for (`refresh=wait_for`).
//!
//! The refresh waits are not done on the pool thread that ran the write (which they would hold
//! for up to a refresh interval, as OpenSearch's refresh listeners do not): the HTTP layer waits
//! for them off the pools before it sends the answer. A later refresh than the next one after the
//! write is as good.

use std::sync::{Arc, Mutex};

use crate::cluster::indices::IndexShard;

/// Deferred work of one request.
#[derive(Debug, Clone, Default)]
pub struct Deferred {
    /// Deprecation warnings, each once, in the order given.
    pub warnings: Vec<String>,
    /// Shards whose next refresh the answer waits for, each once.
    pub refresh_waits: Vec<Arc<IndexShard>>,
}

impl Deferred {
    /// Adds a deprecation warning (once).
    pub fn warn(&mut self, msg: impl Into<String>) {
        let msg = msg.into();
        if !self.warnings.contains(&msg) {
            self.warnings.push(msg);
        }
    }
    /// Records that the answer waits for `shard`'s next refresh.
    pub fn wait_for_refresh(&mut self, shard: &Arc<IndexShard>) {
        if !self.refresh_waits.iter().any(|s| Arc::ptr_eq(s, shard)) {
            self.refresh_waits.push(shard.clone());
        }
    }
    /// Takes in what `other` left.
    pub fn absorb(&mut self, other: Deferred) {
        for w in other.warnings {
            self.warn(w);
        }
        for s in &other.refresh_waits {
            self.wait_for_refresh(s);
        }
    }
}

/// Deprecation warnings found while a request is parsed or executed in parts that share it by
/// reference (the query parsers of the shards of one search, which may run in parallel). Clones
/// share one sink (a request copied into a scroll context still reports to its answer).
#[derive(Debug, Default, Clone)]
pub struct Warnings(Arc<Mutex<Vec<String>>>);

impl Warnings {
    /// Adds a warning (once).
    pub fn warn(&self, msg: impl Into<String>) {
        let msg = msg.into();
        let mut w = self.0.lock().unwrap_or_else(|e| e.into_inner());
        if !w.contains(&msg) {
            w.push(msg);
        }
    }
    /// Takes the warnings given so far.
    pub fn take(&self) -> Vec<String> {
        std::mem::take(&mut *self.0.lock().unwrap_or_else(|e| e.into_inner()))
    }
}

impl PartialEq for Warnings {
    fn eq(&self, _: &Warnings) -> bool {
        // Warnings are output, not part of what a request asks.
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn warnings_are_kept_once_in_order() {
        let mut d = Deferred::default();
        d.warn("b");
        d.warn("a");
        d.warn("b");
        assert_eq!(d.warnings, ["b", "a"]);
        let w = Warnings::default();
        w.warn("x");
        w.warn("x");
        w.warn("y");
        assert_eq!(w.take(), ["x", "y"]);
        assert!(w.take().is_empty());
    }
}
