//! The test model: a naive in-memory [`SegmentView`] (Vecs and BTreeMaps) whose postings
//! implement block-max skip data over small blocks, plus failure injection.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::atomic::{AtomicU64, Ordering};

use super::view::{FieldStats, SegmentView, TermStats};
use crate::engine::codec::bitpack::BLOCK;
use crate::engine::segment::smallfloat::length_to_norm;
use crate::engine::segment::{DocId, Postings, NO_MORE_DOCS};
use crate::engine::{Error, Result};

/// A document of the model.
#[derive(Debug, Clone, Default)]
pub struct MDoc {
    /// Text fields: tokens in position order (freqs, positions, norms).
    pub text: Vec<(String, Vec<String>)>,
    /// Keyword fields: values (indexed docs-only, no norms, sorted-set doc values).
    pub keyword: Vec<(String, Vec<String>)>,
    /// Long fields: values (points and numeric doc values).
    pub long: Vec<(String, Vec<i64>)>,
}

/// The sortable big-endian point key of a long.
pub fn long_key(v: i64) -> Vec<u8> {
    ((v as u64) ^ (1 << 63)).to_be_bytes().to_vec()
}

/// One posting: doc and positions (freq = number of positions, 1 for keywords).
type Posting = (DocId, u32, Vec<u32>);

/// A naive segment.
#[derive(Debug, Default)]
pub struct ModelSegment {
    pub docs: Vec<MDoc>,
    pub live: Vec<bool>,
    postings: BTreeMap<(String, Vec<u8>), Vec<Posting>>,
    norms: HashMap<String, Vec<u8>>,
    stats: HashMap<String, FieldStats>,
    numeric: HashMap<String, Vec<Vec<i64>>>,
    sorted_terms: HashMap<String, Vec<Vec<u8>>>,
    sorted_ords: HashMap<String, Vec<Vec<u64>>>,
    /// Block size of the postings' skip data.
    pub block: usize,
    /// Postings of this term fail (sticky error) after this many docs.
    pub fail: Option<(String, Vec<u8>, usize)>,
    /// Number of `freq` calls on this segment's postings (how many docs were scored).
    pub freq_calls: AtomicU64,
    /// The core key it answers, when set (caches of per-segment structures key on it).
    pub core: Option<super::view::CoreToken>,
}

impl ModelSegment {
    /// Builds a segment of `docs`; `deleted` docs are not live.
    pub fn new(docs: Vec<MDoc>, deleted: &[DocId], block: usize) -> ModelSegment {
        let n = docs.len();
        let mut s = ModelSegment { live: vec![true; n], block: block.max(1), ..Default::default() };
        for &d in deleted {
            if let Some(l) = s.live.get_mut(d as usize) {
                *l = false;
            }
        }
        let mut kw_values: HashMap<String, BTreeSet<Vec<u8>>> = HashMap::new();
        for (d, doc) in docs.iter().enumerate() {
            let d = d as DocId;
            for (f, toks) in &doc.text {
                let norms = s.norms.entry(f.clone()).or_insert_with(|| vec![0; n]);
                if toks.is_empty() {
                    continue;
                }
                norms[d as usize] = length_to_norm(toks.len() as u32);
                let st = s.stats.entry(f.clone()).or_default();
                st.doc_count += 1;
                st.sum_total_term_freq += toks.len() as u64;
                let mut per: BTreeMap<&str, Vec<u32>> = BTreeMap::new();
                for (p, t) in toks.iter().enumerate() {
                    per.entry(t).or_default().push(p as u32);
                }
                st.sum_doc_freq += per.len() as u64;
                for (t, pos) in per {
                    s.postings.entry((f.clone(), t.as_bytes().to_vec())).or_default().push((d, pos.len() as u32, pos));
                }
            }
            for (f, vals) in &doc.keyword {
                let set: BTreeSet<&String> = vals.iter().collect();
                if set.is_empty() {
                    continue;
                }
                let st = s.stats.entry(f.clone()).or_default();
                st.doc_count += 1;
                st.sum_total_term_freq += set.len() as u64;
                st.sum_doc_freq += set.len() as u64;
                for v in set {
                    s.postings.entry((f.clone(), v.as_bytes().to_vec())).or_default().push((d, 1, vec![]));
                    kw_values.entry(f.clone()).or_default().insert(v.as_bytes().to_vec());
                }
            }
            for (f, vals) in &doc.long {
                let col = s.numeric.entry(f.clone()).or_insert_with(|| vec![vec![]; n]);
                let mut v = vals.clone();
                v.sort();
                col[d as usize] = v;
            }
        }
        for (f, values) in kw_values {
            let terms: Vec<Vec<u8>> = values.into_iter().collect();
            let mut ords = vec![vec![]; n];
            for (d, doc) in docs.iter().enumerate() {
                let mut o: Vec<u64> = doc
                    .keyword
                    .iter()
                    .filter(|(kf, _)| *kf == f)
                    .flat_map(|(_, vs)| vs.iter())
                    .filter_map(|v| terms.binary_search(&v.as_bytes().to_vec()).ok().map(|i| i as u64))
                    .collect();
                o.sort();
                o.dedup();
                ords[d] = o;
            }
            s.sorted_terms.insert(f.clone(), terms);
            s.sorted_ords.insert(f, ords);
        }
        s.docs = docs;
        s
    }
}

/// Postings over a Vec with block-max skip data over blocks of `block` docs.
struct MemPostings<'a> {
    list: &'a [Posting],
    norms: Option<&'a [u8]>,
    block: usize,
    /// Index of the current posting; `usize::MAX` before the first.
    i: usize,
    /// Block reached by `shallow_advance`.
    shallow: usize,
    /// Last `shallow_advance` target.
    last_shallow: DocId,
    fail_after: Option<usize>,
    error: Option<Error>,
    freq_calls: &'a AtomicU64,
}

impl MemPostings<'_> {
    fn doc_at(&self, i: usize) -> DocId {
        self.list.get(i).map_or(NO_MORE_DOCS, |p| p.0)
    }
    fn check_fail(&mut self) {
        if let Some(n) = self.fail_after {
            if self.i != usize::MAX && self.i >= n && self.i < self.list.len() {
                self.error = Some(Error::corrupt("model.doc", self.i as u64, "injected corruption"));
                self.i = self.list.len();
            }
        }
    }
}

impl Postings for MemPostings<'_> {
    fn doc(&self) -> DocId {
        if self.i == usize::MAX {
            return 0;
        }
        self.doc_at(self.i)
    }
    fn next(&mut self) -> DocId {
        self.i = if self.i == usize::MAX { 0 } else { (self.i + 1).min(self.list.len()) };
        self.check_fail();
        self.doc()
    }
    fn advance(&mut self, target: DocId) -> DocId {
        // The contract the real postings rely on: targets beyond the current doc.
        assert!(self.i == usize::MAX || target > self.doc(), "advance({target}) from doc {}", self.doc());
        let start = if self.i == usize::MAX { 0 } else { self.i };
        self.i = start + self.list[start.min(self.list.len())..].partition_point(|p| p.0 < target);
        self.check_fail();
        self.doc()
    }
    fn freq(&self) -> u32 {
        self.freq_calls.fetch_add(1, Ordering::Relaxed);
        self.list.get(self.i).map_or(1, |p| p.1)
    }
    fn read_block(&mut self, docs: &mut [DocId; BLOCK], freqs: &mut [u32; BLOCK]) -> usize {
        // Up to the end of the model's block (and never past an injected failure).
        let i = self.i;
        if i >= self.list.len() {
            return 0;
        }
        let mut end = ((i / self.block + 1) * self.block).min(self.list.len()).min(i + BLOCK);
        if let Some(n) = self.fail_after {
            end = end.min(n.max(i + 1));
        }
        for (k, p) in self.list[i..end].iter().enumerate() {
            docs[k] = p.0;
            freqs[k] = p.1;
        }
        self.freq_calls.fetch_add((end - i) as u64, Ordering::Relaxed);
        self.i = end - 1;
        end - i
    }
    fn positions(&mut self, out: &mut Vec<u32>) {
        out.clear();
        if let Some(p) = self.list.get(self.i) {
            out.extend_from_slice(&p.2);
        }
    }
    fn cost(&self) -> u64 {
        self.list.len() as u64
    }
    fn shallow_advance(&mut self, target: DocId) -> DocId {
        // Skip data only moves forward, and never behind the iterator.
        assert!(target >= self.last_shallow, "shallow_advance({target}) after {}", self.last_shallow);
        assert!(self.i == usize::MAX || target >= self.doc(), "shallow_advance({target}) behind doc {}", self.doc());
        self.last_shallow = target;
        let first = self.list.partition_point(|p| p.0 < target);
        self.shallow = first / self.block;
        let end = ((self.shallow + 1) * self.block).min(self.list.len());
        if first >= self.list.len() {
            return NO_MORE_DOCS;
        }
        if end == self.list.len() {
            NO_MORE_DOCS
        } else {
            self.doc_at(end - 1)
        }
    }
    fn block_max(&self) -> (u32, u8) {
        let lo = self.shallow * self.block;
        let hi = (lo + self.block).min(self.list.len());
        let mut f = 0;
        let mut n = u8::MAX;
        for p in self.list.get(lo..hi).unwrap_or(&[]) {
            f = f.max(p.1);
            n = n.min(self.norms.map_or(1, |ns| ns.get(p.0 as usize).copied().unwrap_or(1)));
        }
        (f.max(1), n)
    }
    fn block_impacts(&self, out: &mut Vec<(u32, u8)>) {
        // The exact Pareto set: pairs no other doc of the block dominates.
        out.clear();
        let lo = self.shallow * self.block;
        let hi = (lo + self.block).min(self.list.len());
        let pairs: Vec<(u32, u8)> = self
            .list
            .get(lo..hi)
            .unwrap_or(&[])
            .iter()
            .map(|p| (p.1.max(1), self.norms.map_or(1, |ns| ns.get(p.0 as usize).copied().unwrap_or(1))))
            .collect();
        for &(f, n) in &pairs {
            let dominated = pairs.iter().any(|&(g, m)| (g, m) != (f, n) && g >= f && m <= n);
            if !dominated && !out.contains(&(f, n)) {
                out.push((f, n));
            }
        }
        if out.is_empty() {
            out.push((1, u8::MAX));
        }
    }
    fn take_error(&mut self) -> Option<Error> {
        self.error.take()
    }
}

impl SegmentView for ModelSegment {
    fn max_doc(&self) -> u32 {
        self.docs.len() as u32
    }
    fn core_key(&self) -> Option<super::view::CoreKey> {
        self.core.as_ref().map(|c| c.key())
    }
    fn is_live(&self, doc: DocId) -> bool {
        self.live.get(doc as usize).copied().unwrap_or(false)
    }
    fn has_deletions(&self) -> bool {
        self.live.iter().any(|l| !l)
    }
    fn field_stats(&self, field: &str) -> Option<FieldStats> {
        self.stats.get(field).copied()
    }
    fn term_stats(&self, field: &str, term: &[u8]) -> Result<Option<TermStats>> {
        Ok(self
            .postings
            .get(&(field.to_string(), term.to_vec()))
            .map(|l| TermStats { doc_freq: l.len() as u32, total_term_freq: l.iter().map(|p| p.1 as u64).sum() }))
    }
    fn postings(&self, field: &str, term: &[u8], _positions: bool) -> Result<Option<Box<dyn Postings + '_>>> {
        let Some(list) = self.postings.get(&(field.to_string(), term.to_vec())) else { return Ok(None) };
        let fail_after = match &self.fail {
            Some((f, t, n)) if f == field && t == term => Some(*n),
            _ => None,
        };
        Ok(Some(Box::new(MemPostings {
            list,
            norms: self.norms(field),
            block: self.block,
            i: usize::MAX,
            shallow: 0,
            last_shallow: 0,
            fail_after,
            error: None,
            freq_calls: &self.freq_calls,
        })))
    }
    fn visit_terms(&self, field: &str, from: &[u8], f: &mut dyn FnMut(&[u8]) -> bool) -> Result<()> {
        for ((fld, t), _) in self.postings.range((field.to_string(), from.to_vec())..) {
            if fld != field || !f(t) {
                break;
            }
        }
        Ok(())
    }
    fn norms(&self, field: &str) -> Option<&[u8]> {
        self.norms.get(field).map(|v| v.as_slice())
    }
    fn points_docs(&self, field: &str, lo: &[u8], hi: &[u8]) -> Result<Option<Vec<DocId>>> {
        let Some(col) = self.numeric.get(field) else { return Ok(None) };
        Ok(Some(
            (0..self.docs.len())
                .filter(|&d| col[d].iter().any(|&v| (lo..=hi).contains(&long_key(v).as_slice())))
                .map(|d| d as DocId)
                .collect(),
        ))
    }
    fn numeric_values(&self, field: &str, doc: DocId, out: &mut Vec<i64>) -> bool {
        out.clear();
        let Some(col) = self.numeric.get(field) else { return false };
        if let Some(v) = col.get(doc as usize) {
            out.extend_from_slice(v);
        }
        true
    }
    fn sorted_set_ords(&self, field: &str, doc: DocId, out: &mut Vec<u64>) -> bool {
        out.clear();
        let Some(col) = self.sorted_ords.get(field) else { return false };
        if let Some(v) = col.get(doc as usize) {
            out.extend_from_slice(v);
        }
        true
    }
    fn sorted_set_term(&self, field: &str, ord: u64) -> Result<Vec<u8>> {
        self.sorted_terms
            .get(field)
            .and_then(|t| t.get(ord as usize))
            .cloned()
            .ok_or_else(|| Error::corrupt("model.dvd", ord, format!("no ordinal {ord} in {field}")))
    }
    fn has_value(&self, field: &str, doc: DocId) -> bool {
        let d = doc as usize;
        self.norms.get(field).is_some_and(|n| n.get(d).is_some_and(|&b| b != 0))
            || self.sorted_ords.get(field).is_some_and(|c| c.get(d).is_some_and(|v| !v.is_empty()))
            || self.numeric.get(field).is_some_and(|c| c.get(d).is_some_and(|v| !v.is_empty()))
    }
}
