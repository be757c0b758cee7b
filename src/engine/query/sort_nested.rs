//! Sorting root documents by the values of their nested documents (OpenSearch's
//! `"nested": {"path": ..., "filter": ...}` sort option): the values of a root's nested documents
//! of `path` (those matching `filter`, when given) are the root's values, reduced by the sort's
//! mode as a multi-valued field's are.

use std::sync::Arc;

use super::block_join::{path_docs, Bits};
use super::tree::Query;
use super::view::SegmentView;
use super::weight::Weight;
use crate::engine::segment::{DocId, NO_MORE_DOCS};
use crate::engine::Result;

/// The nested part of a sort field.
#[derive(Debug, Clone, PartialEq)]
pub struct NestedSort {
    /// The nested object path whose documents carry the values.
    pub path: String,
    /// Only nested documents matching it count.
    pub filter: Option<Query>,
    /// At most this many nested documents of a root count (the first ones).
    pub max_children: Option<usize>,
}

/// A shared [`NestedSort`] (sort fields compare by pointer: two requests' specs are never
/// compared, one request's fields are).
#[derive(Debug, Clone)]
pub struct NestedSortRef(pub Arc<NestedSort>);

impl PartialEq for NestedSortRef {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0) || *self.0 == *other.0
    }
}

impl Eq for NestedSortRef {}

/// The nested documents of one segment that carry a nested sort's values.
#[derive(Debug)]
pub struct NestedValues {
    docs: Bits,
    max_children: usize,
}

impl NestedValues {
    /// The documents of `nested.path` (matching its filter) in `seg`.
    pub fn new(seg: &dyn SegmentView, nested: &NestedSort) -> Result<NestedValues> {
        let all = seg.with_nested().unwrap_or(seg);
        let mut docs = path_docs(all, &nested.path)?;
        if let Some(f) = &nested.filter {
            let w = Weight::compile(f, &[all], 1.0, false)?;
            let mut matched = vec![0u64; docs.words().len()];
            if let Some(mut sc) = w.scorer(all)? {
                let mut d = sc.doc();
                while d != NO_MORE_DOCS {
                    if let Some(word) = matched.get_mut(d as usize / 64) {
                        *word |= 1 << (d % 64);
                    }
                    d = sc.next();
                }
                if let Some(e) = sc.take_error() {
                    return Err(e);
                }
            }
            docs.and(&matched);
        }
        Ok(NestedValues { docs, max_children: nested.max_children.unwrap_or(usize::MAX) })
    }

    /// The nested documents of root `doc` that carry values, in doc order.
    pub fn children(&self, seg: &dyn SegmentView, doc: DocId) -> impl Iterator<Item = DocId> + '_ {
        let mut start = doc;
        while start > 0 && seg.is_nested(start - 1) {
            start -= 1;
        }
        (start..doc).filter(|&c| self.docs.get(c)).take(self.max_children)
    }
}
