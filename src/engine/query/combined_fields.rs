//! Lucene's `CombinedFieldQuery` (BM25F), behind OpenSearch's `combined_fields`: one term over
//! several text fields scored as if the fields were one field, each weighted.
//!
//! Statistics: the term's doc freq is its largest over the fields, the pseudo field's doc count
//! the largest doc count, its summed length `Σ weight × sumTotalTermFreq` (truncated to a long
//! after each addition, as Java's `long += double`). Per document: `freq = Σ weight × tf` over
//! the fields holding the term, and the length `Σ weight × length` over every field with a norm
//! in the document, rounded and re-encoded as a norm byte (`MultiNormsLeafSimScorer`).

use std::sync::Arc;

use super::bm25::Bm25;
use super::explain::Explanation;
use super::scorer::Scorer;
use super::tree::Query;
use super::view::SegmentView;
use super::weight::Weight;
use crate::engine::segment::smallfloat::{length_to_norm, LENGTH_TABLE};
use crate::engine::segment::{DocId, Postings, NO_MORE_DOCS};
use crate::engine::{Error, Result};

/// Fields sorted by name (Lucene keeps them in a `TreeMap`) with their weights (at least 1).
pub type Fields = Vec<(String, f32)>;

/// Compiles a combined-field term (`boost` inherited).
pub fn compile(
    fields: &Fields,
    term: &[u8],
    b: f32,
    segments: &[&dyn SegmentView],
    boost: f32,
    scoring: bool,
    explained: bool,
) -> Result<Weight> {
    if !scoring {
        // Lucene rewrites to a disjunction of the fields' terms when scores are not needed.
        let q = Query::or(
            fields.iter().map(|(f, _)| Query::Term { field: f.clone(), term: term.to_vec(), boost: 1.0 }).collect(),
        );
        return Weight::build(&q, segments, boost * b, false, explained);
    }
    let mut doc_freq = 0u64;
    for (f, _) in fields {
        let mut local = super::dfs::TermAgg::default();
        for s in segments {
            if let Some(ts) = s.term_stats(f, term)? {
                local.doc_freq += ts.doc_freq as u64;
                local.total_term_freq += ts.total_term_freq;
            }
        }
        if local.doc_freq > 0 {
            doc_freq = doc_freq.max(super::dfs::term(f, term, local).doc_freq);
        }
    }
    // The fields' statistics are looked up even when the term is missing (a dfs round records
    // them; Lucene's `CombinedFieldQuery.createWeight`).
    let (mut doc_count, mut sum_ttf) = (0u64, 0u64);
    for (f, w) in fields {
        let mut local = super::dfs::FieldAgg::default();
        for s in segments {
            if let Some(fs) = s.field_stats(f) {
                local.doc_count += fs.doc_count as u64;
                local.sum_total_term_freq += fs.sum_total_term_freq;
                local.sum_doc_freq += fs.sum_doc_freq;
            }
        }
        let global = super::dfs::field(f, local);
        let (dc, st) = (global.doc_count, global.sum_total_term_freq);
        if dc > 0 {
            doc_count = doc_count.max(dc);
            sum_ttf = (sum_ttf as f64 + *w as f64 * st as f64) as u64;
        }
    }
    if doc_freq == 0 {
        return Ok(Weight::MatchNone);
    }
    let sim = Arc::new(Bm25::new(boost * b, doc_count.max(doc_freq), sum_ttf, &[doc_freq]));
    let display = if explained {
        Query::CombinedField { fields: fields.clone(), term: term.to_vec(), boost: b }.to_string()
    } else {
        String::new()
    };
    Ok(Weight::CombinedField { fields: fields.clone(), term: term.to_vec(), sim, display })
}

/// Lucene's `toString`: `CombinedFieldQuery((a b^2.0)(term))`.
pub fn fmt_combined(fields: &Fields, term: &[u8], f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
    write!(f, "CombinedFieldQuery((")?;
    for (i, (name, w)) in fields.iter().enumerate() {
        write!(f, "{}{name}", if i > 0 { " " } else { "" })?;
        if *w != 1.0 {
            write!(f, "^{}", super::bm25::java_float(*w))?;
        }
    }
    write!(f, ")({}))", String::from_utf8_lossy(term))
}

/// Scores the documents of one segment holding the term in any of the fields.
pub struct CombinedFieldScorer<'a> {
    /// (postings, weight) of the fields holding the term in the segment.
    subs: Vec<(Box<dyn Postings + 'a>, f32)>,
    /// (norms, weight) of every field with norms in the segment.
    norms: Vec<(&'a [u8], f32)>,
    sim: Arc<Bm25>,
    doc: DocId,
}

impl std::fmt::Debug for CombinedFieldScorer<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CombinedFieldScorer").field("doc", &self.doc).finish_non_exhaustive()
    }
}

impl<'a> CombinedFieldScorer<'a> {
    /// The scorer in `seg`, `None` when no field holds the term there.
    pub fn new(seg: &'a dyn SegmentView, fields: &Fields, term: &[u8], sim: Arc<Bm25>) -> Result<Option<Self>> {
        let mut subs = Vec::new();
        let mut norms = Vec::new();
        for (f, w) in fields {
            if let Some(mut p) = seg.postings(f, term, false)? {
                p.next();
                subs.push((p, *w));
            }
            if let Some(n) = seg.norms(f) {
                norms.push((n, *w));
            }
        }
        if subs.is_empty() {
            return Ok(None);
        }
        let doc = subs.iter().map(|(p, _)| p.doc()).min().unwrap_or(NO_MORE_DOCS);
        Ok(Some(CombinedFieldScorer { subs, norms, sim, doc }))
    }

    /// `Σ weight × tf` of the current document.
    pub fn freq(&self) -> f32 {
        let mut freq = 0f32;
        for (p, w) in &self.subs {
            if p.doc() == self.doc {
                freq += w * p.freq() as f32;
            }
        }
        freq
    }

    /// The norm byte of the combined length of the current document.
    pub fn norm(&self) -> u8 {
        let mut len = 0f32;
        let mut found = false;
        for (n, w) in &self.norms {
            if let Some(&b) = n.get(self.doc as usize) {
                if b != 0 {
                    len += w * LENGTH_TABLE[b as usize] as f32;
                    found = true;
                }
            }
        }
        if !found {
            return 1;
        }
        // Java's Math.round(float): floor(x + 0.5), as an int.
        let rounded = (len + 0.5).floor().clamp(0.0, i32::MAX as f32) as u32;
        length_to_norm(rounded)
    }

    /// Lucene's explanation of the current document's score.
    pub fn explain(&self, display: &str) -> Explanation {
        let freq = self.freq();
        let f = Explanation::float(freq, format!("termFreq={}", super::bm25::java_float(freq)), vec![]);
        let e = self.sim.explain(f, self.norm());
        Explanation::float(e.value.as_f32(), format!("weight({display} in {}), result of:", self.doc), vec![e])
    }
}

impl Scorer for CombinedFieldScorer<'_> {
    fn doc(&self) -> DocId {
        self.doc
    }
    fn next(&mut self) -> DocId {
        if self.doc != NO_MORE_DOCS {
            let d = self.doc + 1;
            self.doc = self.advance_all(d);
        }
        self.doc
    }
    fn advance(&mut self, target: DocId) -> DocId {
        if target > self.doc {
            self.doc = self.advance_all(target);
        }
        self.doc
    }
    fn score(&mut self) -> f32 {
        self.sim.score(self.freq(), self.norm())
    }
    fn cost(&self) -> u64 {
        self.subs.iter().map(|(p, _)| p.cost()).sum()
    }
    fn max_score(&mut self, _up_to: DocId) -> f32 {
        // BM25 approaches its weight as the frequency grows.
        self.sim.weight
    }
    fn take_error(&mut self) -> Option<Error> {
        let mut err = None;
        for (p, _) in self.subs.iter_mut() {
            if let Some(e) = p.take_error() {
                err.get_or_insert(e);
            }
        }
        err
    }
}

impl CombinedFieldScorer<'_> {
    fn advance_all(&mut self, target: DocId) -> DocId {
        let mut min = NO_MORE_DOCS;
        for (p, _) in self.subs.iter_mut() {
            let d = if p.doc() < target { p.advance(target) } else { p.doc() };
            min = min.min(d);
        }
        min
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::query::bm25::idf;
    use crate::engine::query::model::{MDoc, ModelSegment};
    use crate::engine::segment::smallfloat::norm_to_length;

    fn doc(a: &str, b: &str) -> MDoc {
        let toks = |s: &str| s.split_whitespace().map(String::from).collect::<Vec<_>>();
        let mut text = vec![];
        if !a.is_empty() {
            text.push(("a".to_string(), toks(a)));
        }
        if !b.is_empty() {
            text.push(("b".to_string(), toks(b)));
        }
        MDoc { text, ..Default::default() }
    }

    /// BM25F computed from the documents' tokens.
    fn model(docs: &[MDoc], fields: &[(&str, f32)], term: &str, d: usize) -> Option<f32> {
        let toks =
            |doc: &MDoc, f: &str| doc.text.iter().find(|(n, _)| n == f).map(|(_, t)| t.clone()).unwrap_or_default();
        let tf = |doc: &MDoc, f: &str| toks(doc, f).iter().filter(|t| *t == term).count();
        if fields.iter().all(|(f, _)| tf(&docs[d], f) == 0) {
            return None;
        }
        let df = fields.iter().map(|(f, _)| docs.iter().filter(|x| tf(x, f) > 0).count() as u64).max().unwrap();
        let dc =
            fields.iter().map(|(f, _)| docs.iter().filter(|x| !toks(x, f).is_empty()).count() as u64).max().unwrap();
        let mut sum = 0u64;
        for (f, w) in fields {
            let st: u64 = docs.iter().map(|x| toks(x, f).len() as u64).sum();
            sum = (sum as f64 + *w as f64 * st as f64) as u64;
        }
        let avgdl = (sum as f64 / dc as f64) as f32;
        let freq: f32 = fields.iter().map(|(f, w)| w * tf(&docs[d], f) as f32).sum();
        let len: f32 = fields
            .iter()
            .filter(|(f, _)| !toks(&docs[d], f).is_empty())
            .map(|(f, w)| w * norm_to_length(length_to_norm(toks(&docs[d], f).len() as u32)) as f32)
            .sum();
        let dl = norm_to_length(length_to_norm((len + 0.5).floor() as u32)) as f32;
        let w = idf(df, dc);
        let k = 1.2f32 * (0.25f32 + 0.75f32 * dl / avgdl);
        Some(w - w / (1f32 + freq / k))
    }

    #[test]
    fn bm25f_matches_the_model() {
        let docs = vec![doc("x y", "y y z"), doc("y", ""), doc("", "z z z z z y"), doc("q", "q"), doc("y y y y", "y")];
        let seg = ModelSegment::new(docs.clone(), &[], 2);
        let fields: Fields = vec![("a".into(), 3.0), ("b".into(), 1.0)];
        let pairs: Vec<(&str, f32)> = fields.iter().map(|(f, w)| (f.as_str(), *w)).collect();
        let views: Vec<&dyn SegmentView> = vec![&seg];
        let w = compile(&fields, b"y", 1.0, &views, 1.0, true, false).unwrap();
        let Weight::CombinedField { sim, .. } = &w else { panic!("{w:?}") };
        let mut sc = CombinedFieldScorer::new(&seg, &fields, b"y", sim.clone()).unwrap().unwrap();
        let mut got = vec![];
        while sc.doc() != NO_MORE_DOCS {
            let d = sc.doc() as usize;
            got.push(d);
            let want = model(&docs, &pairs, "y", d).unwrap();
            assert!((sc.score() - want).abs() <= want * 1e-6, "doc {d}: {} vs {want}", sc.score());
            sc.next();
        }
        assert_eq!(got, vec![0, 1, 2, 4]);
        assert!(matches!(compile(&fields, b"nope", 1.0, &views, 1.0, true, false).unwrap(), Weight::MatchNone));
    }
}
