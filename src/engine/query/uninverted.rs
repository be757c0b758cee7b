//! A field's indexed terms uninverted on one segment: per document, the ordinals of the terms
//! it holds (ascending; ordinals follow the terms' byte order), as OpenSearch loads fielddata
//! for a `text` field with `fielddata: true` (Lucene's uninverted `SortedSetDocValues`). Built
//! once from the postings, then read like a sorted-set column.

use super::view::SegmentView;
use crate::engine::segment::{DocId, NO_MORE_DOCS};
use crate::engine::Result;

/// The uninverted terms of one field on one segment.
#[derive(Debug, Default)]
pub struct Uninverted {
    /// The terms' bytes, one after another, in byte order.
    term_bytes: Vec<u8>,
    /// The end of each term in `term_bytes`.
    term_ends: Vec<u32>,
    /// Where each document's ordinals start in `ords` (`max_doc + 1` entries).
    doc_starts: Vec<u32>,
    ords: Vec<u32>,
}

impl Uninverted {
    /// Uninverts `field` on `seg` (every document, deleted or not: liveness is the reader's).
    pub fn build(seg: &dyn SegmentView, field: &str) -> Result<Uninverted> {
        let mut u = Uninverted::default();
        seg.visit_terms(field, b"", &mut |t| {
            u.term_bytes.extend_from_slice(t);
            u.term_ends.push(u.term_bytes.len() as u32);
            true
        })?;
        let max_doc = seg.max_doc() as usize;
        // (doc, ord) in ord order; a stable sort by doc keeps each doc's ords ascending.
        let mut pairs: Vec<(u32, u32)> = Vec::new();
        for ord in 0..u.term_ends.len() {
            let term = u.term(ord as u64).to_vec();
            if let Some(mut p) = seg.postings(field, &term, false)? {
                let mut d = p.next();
                while d != NO_MORE_DOCS {
                    if (d as usize) < max_doc {
                        pairs.push((d, ord as u32));
                    }
                    d = p.next();
                }
            }
        }
        let mut counts = vec![0u32; max_doc + 1];
        for &(d, _) in &pairs {
            counts[d as usize + 1] += 1;
        }
        for i in 1..counts.len() {
            counts[i] += counts[i - 1];
        }
        let mut ords = vec![0u32; pairs.len()];
        let mut next = counts.clone();
        for (d, o) in pairs {
            let at = &mut next[d as usize];
            ords[*at as usize] = o;
            *at += 1;
        }
        u.doc_starts = counts;
        u.ords = ords;
        u.term_bytes.shrink_to_fit();
        Ok(u)
    }

    /// The ordinals of `doc`'s terms, ascending (empty: none).
    pub fn ords(&self, doc: DocId) -> &[u32] {
        let d = doc as usize;
        match (self.doc_starts.get(d), self.doc_starts.get(d + 1)) {
            (Some(&a), Some(&b)) => &self.ords[a as usize..b as usize],
            _ => &[],
        }
    }

    /// The bytes of term `ord` (empty for an ordinal out of range).
    pub fn term(&self, ord: u64) -> &[u8] {
        let i = ord as usize;
        let Some(&end) = self.term_ends.get(i) else { return &[] };
        let start = if i == 0 { 0 } else { self.term_ends[i - 1] };
        &self.term_bytes[start as usize..end as usize]
    }

    /// The number of distinct terms (ordinals are `0..value_count`).
    pub fn value_count(&self) -> u64 {
        self.term_ends.len() as u64
    }

    /// Bytes held.
    pub fn mem_bytes(&self) -> u64 {
        (self.term_bytes.capacity()
            + 4 * (self.term_ends.capacity() + self.doc_starts.capacity() + self.ords.capacity())) as u64
            + std::mem::size_of::<Uninverted>() as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::query::model::{MDoc, ModelSegment};

    fn doc(words: &[&str]) -> MDoc {
        let mut d = MDoc::default();
        if !words.is_empty() {
            d.text.push(("t".into(), words.iter().map(|w| w.to_string()).collect()));
        }
        d
    }

    #[test]
    fn uninverts_postings_into_sorted_ordinals() {
        let seg = ModelSegment::new(vec![doc(&["quick", "brown", "fox"]), doc(&[]), doc(&["brown", "dog"])], &[], 1);
        let u = Uninverted::build(&seg, "t").unwrap();
        let terms: Vec<&[u8]> = (0..u.value_count()).map(|o| u.term(o)).collect();
        assert_eq!(terms, vec![&b"brown"[..], b"dog", b"fox", b"quick"]);
        assert_eq!(u.ords(0), &[0, 2, 3]);
        assert_eq!(u.ords(1), &[] as &[u32]);
        assert_eq!(u.ords(2), &[0, 1]);
        assert_eq!(u.ords(9), &[] as &[u32]);
        assert!(u.mem_bytes() > 0);
        let none = Uninverted::build(&seg, "missing").unwrap();
        assert_eq!((none.value_count(), none.ords(0).len()), (0, 0));
    }
}
