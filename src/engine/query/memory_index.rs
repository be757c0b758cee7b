//! A one-document index in memory (Lucene's `MemoryIndex`): the analyzed values of a few fields
//! with their positions, searchable by any [`Query`] through the ordinary weights and scorers.
//!
//! Used to run a positional query against a value that was indexed without positions
//! (`match_only_text` phrases are checked against the document's `_source`, re-analyzed).

use std::collections::{BTreeMap, HashMap};

use super::tree::Query;
use super::view::{FieldStats, SegmentView, TermStats};
use super::weight::Weight;
use crate::engine::segment::{DocId, Postings, NO_MORE_DOCS};
use crate::engine::Result;

/// One document: field → term → positions (increasing).
#[derive(Debug, Default, Clone)]
pub struct MemoryIndex {
    fields: HashMap<String, BTreeMap<Vec<u8>, Vec<u32>>>,
    lengths: HashMap<String, u32>,
}

impl MemoryIndex {
    /// An empty document.
    pub fn new() -> MemoryIndex {
        MemoryIndex::default()
    }

    /// Adds one occurrence of `term` at `position` in `field`.
    pub fn add(&mut self, field: &str, term: &[u8], position: u32) {
        let f = self.fields.entry(field.to_string()).or_default();
        let ps = f.entry(term.to_vec()).or_default();
        let at = ps.partition_point(|&p| p <= position);
        ps.insert(at, position);
        *self.lengths.entry(field.to_string()).or_default() += 1;
    }

    /// Whether `query` matches the document.
    pub fn matches(&self, query: &Query) -> Result<bool> {
        let segs: [&dyn SegmentView; 1] = [self];
        let w = Weight::compile(query, &segs, 1.0, false)?;
        let Some(mut s) = w.scorer(self)? else { return Ok(false) };
        // A scorer starts on its first match.
        let d = s.doc();
        if let Some(e) = s.take_error() {
            return Err(e);
        }
        Ok(d == 0)
    }

    fn positions(&self, field: &str, term: &[u8]) -> Option<&Vec<u32>> {
        self.fields.get(field)?.get(term)
    }
}

/// The postings of one term of the one document.
struct OneDoc<'a> {
    positions: &'a [u32],
    /// 0 before the doc, 1 on it, 2 exhausted.
    state: u8,
}

impl Postings for OneDoc<'_> {
    fn doc(&self) -> DocId {
        match self.state {
            0 | 1 => 0,
            _ => NO_MORE_DOCS,
        }
    }
    fn next(&mut self) -> DocId {
        self.state = (self.state + 1).min(2);
        self.doc()
    }
    fn advance(&mut self, target: DocId) -> DocId {
        self.state = if target == 0 { 1 } else { 2 };
        self.doc()
    }
    fn freq(&self) -> u32 {
        self.positions.len().max(1) as u32
    }
    fn positions(&mut self, out: &mut Vec<u32>) {
        out.clear();
        if self.state == 1 {
            out.extend_from_slice(self.positions);
        }
    }
    fn cost(&self) -> u64 {
        1
    }
    fn shallow_advance(&mut self, target: DocId) -> DocId {
        if target == 0 {
            0
        } else {
            NO_MORE_DOCS
        }
    }
    fn block_max(&self) -> (u32, u8) {
        (self.freq(), 1)
    }
    fn take_error(&mut self) -> Option<crate::engine::Error> {
        None
    }
}

impl SegmentView for MemoryIndex {
    fn max_doc(&self) -> u32 {
        1
    }
    fn is_live(&self, doc: DocId) -> bool {
        doc == 0
    }
    fn has_deletions(&self) -> bool {
        false
    }
    fn field_stats(&self, field: &str) -> Option<FieldStats> {
        let f = self.fields.get(field)?;
        let len = self.lengths.get(field).copied().unwrap_or(0) as u64;
        Some(FieldStats { doc_count: 1, sum_total_term_freq: len, sum_doc_freq: f.len() as u64 })
    }
    fn term_stats(&self, field: &str, term: &[u8]) -> Result<Option<TermStats>> {
        Ok(self.positions(field, term).map(|p| TermStats { doc_freq: 1, total_term_freq: p.len() as u64 }))
    }
    fn postings(&self, field: &str, term: &[u8], _positions: bool) -> Result<Option<Box<dyn Postings + '_>>> {
        Ok(self.positions(field, term).map(|p| Box::new(OneDoc { positions: p, state: 0 }) as Box<dyn Postings + '_>))
    }
    fn visit_terms(&self, field: &str, from: &[u8], f: &mut dyn FnMut(&[u8]) -> bool) -> Result<()> {
        if let Some(terms) = self.fields.get(field) {
            for t in terms.range(from.to_vec()..).map(|(t, _)| t) {
                if !f(t) {
                    break;
                }
            }
        }
        Ok(())
    }
    fn norms(&self, _field: &str) -> Option<&[u8]> {
        None
    }
    fn points_docs(&self, _field: &str, _lo: &[u8], _hi: &[u8]) -> Result<Option<Vec<DocId>>> {
        Ok(None)
    }
    fn numeric_values(&self, _field: &str, _doc: DocId, out: &mut Vec<i64>) -> bool {
        out.clear();
        false
    }
    fn sorted_set_ords(&self, _field: &str, _doc: DocId, out: &mut Vec<u64>) -> bool {
        out.clear();
        false
    }
    fn sorted_set_term(&self, field: &str, ord: u64) -> Result<Vec<u8>> {
        Err(crate::engine::Error::InvalidArgument(format!(
            "no doc values for [{field}] (ordinal {ord}) in a memory index"
        )))
    }
    fn has_value(&self, field: &str, doc: DocId) -> bool {
        doc == 0 && self.fields.contains_key(field)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc(words: &str) -> MemoryIndex {
        let mut m = MemoryIndex::new();
        for (i, w) in words.split_whitespace().enumerate() {
            m.add("f", w.as_bytes(), i as u32);
        }
        m
    }

    fn phrase(words: &[&str], slop: u32) -> Query {
        Query::Phrase {
            field: "f".into(),
            terms: words.iter().enumerate().map(|(i, w)| (w.as_bytes().to_vec(), i as u32)).collect(),
            slop,
            boost: 1.0,
        }
    }

    /// A naive model: some start position where every phrase term sits within `slop` moves
    /// (exact only for slop 0, which is all the model claims).
    fn naive_exact(doc: &[&str], words: &[&str]) -> bool {
        doc.windows(words.len()).any(|w| w == words)
    }

    #[test]
    fn exact_phrases_agree_with_a_scan() {
        let text = "peter piper picked a peck of pickled peppers a peck";
        let d = doc(text);
        let toks: Vec<&str> = text.split_whitespace().collect();
        for len in 1..4 {
            for start in 0..toks.len() {
                for shift in 0..3 {
                    // Real sub-phrases, and phrases with one word swapped for a later one.
                    let mut words: Vec<&str> = toks.iter().skip(start).take(len).copied().collect();
                    if words.len() < len {
                        continue;
                    }
                    if shift > 0 {
                        let j = (start + len + shift) % toks.len();
                        words[len - 1] = toks[j];
                    }
                    assert_eq!(d.matches(&phrase(&words, 0)).unwrap(), naive_exact(&toks, &words), "{words:?}");
                }
            }
        }
    }

    #[test]
    fn slop_and_terms() {
        let d = doc("peter piper picked a peck");
        assert!(!d.matches(&phrase(&["peter", "picked"], 0)).unwrap());
        assert!(d.matches(&phrase(&["peter", "picked"], 1)).unwrap());
        assert!(d.matches(&phrase(&["picked", "peter"], 3)).unwrap());
        assert!(!d.matches(&phrase(&["picked", "peter"], 2)).unwrap());
        assert!(d.matches(&Query::term("f", "peck")).unwrap());
        assert!(!d.matches(&Query::term("f", "pepper")).unwrap());
        assert!(!d.matches(&Query::term("g", "peck")).unwrap());
        let mp = Query::MultiPhrase {
            field: "f".into(),
            positions: vec![(vec![b"paul".to_vec(), b"peter".to_vec()], 0), (vec![b"piper".to_vec()], 1)],
            slop: 0,
            boost: 1.0,
        };
        assert!(d.matches(&mp).unwrap());
    }
}
