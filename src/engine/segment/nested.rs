//! Which documents of a segment are nested documents (Lucene's block join): the docs that have a
//! `_nested_path` term. A root document and the nested documents right before it form one block;
//! blocks are written whole by the builder and the merger (which keeps doc order), and deletes
//! take whole blocks, so the layout holds in every segment.

use super::postings::PostingsReader;
use super::{DocId, FieldInfos, Postings, NO_MORE_DOCS};
use crate::engine::Result;

/// The nested documents of a segment, as a bitset.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NestedDocs {
    words: Vec<u64>,
}

impl NestedDocs {
    /// Reads the `_nested_path` postings of a segment; `None` when it has no nested documents.
    pub fn read(postings: &PostingsReader, infos: &FieldInfos, max_doc: u32) -> Result<Option<NestedDocs>> {
        let Some(f) = infos.by_name(crate::engine::index::builder::meta::NESTED_PATH) else { return Ok(None) };
        let Some(terms) = postings.field(f.number) else { return Ok(None) };
        let mut out = NestedDocs { words: vec![0; (max_doc as usize).div_ceil(64)] };
        let mut it = terms.iter()?;
        while let Some((_, info)) = it.next()? {
            let mut p = terms.postings(&info, false)?;
            loop {
                let d = p.next();
                if d == NO_MORE_DOCS {
                    break;
                }
                out.set(d);
            }
            if let Some(e) = p.take_error() {
                return Err(e);
            }
        }
        Ok(Some(out))
    }

    /// From per-doc flags (tests and in-memory views).
    pub fn from_flags(flags: &[bool]) -> NestedDocs {
        let mut out = NestedDocs { words: vec![0; flags.len().div_ceil(64)] };
        for (d, _) in flags.iter().enumerate().filter(|(_, &f)| f) {
            out.set(d as DocId);
        }
        out
    }

    fn set(&mut self, d: DocId) {
        if let Some(w) = self.words.get_mut(d as usize / 64) {
            *w |= 1 << (d % 64);
        }
    }

    /// Whether `doc` is a nested document.
    pub fn is_nested(&self, doc: DocId) -> bool {
        self.words.get(doc as usize / 64).is_some_and(|w| w & (1 << (doc % 64)) != 0)
    }

    /// The first doc of the block ending at root `doc` (`doc` itself when it has no nested
    /// documents).
    pub fn block_start(&self, doc: DocId) -> DocId {
        let mut start = doc;
        while start > 0 && self.is_nested(start - 1) {
            start -= 1;
        }
        start
    }

    /// The root document of the block holding `doc` (the first non-nested doc at or after it).
    pub fn root_of(&self, doc: DocId) -> DocId {
        let mut d = doc;
        while self.is_nested(d) {
            d += 1;
        }
        d
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_and_roots() {
        // Blocks: [0 1 2] [3] [4 5]
        let n = NestedDocs::from_flags(&[true, true, false, false, true, false]);
        assert_eq!((n.block_start(2), n.block_start(3), n.block_start(5)), (0, 3, 4));
        assert_eq!((n.root_of(0), n.root_of(1), n.root_of(3), n.root_of(4)), (2, 2, 3, 5));
        assert!(n.is_nested(4) && !n.is_nested(5) && !n.is_nested(100));
    }
}
