//! Terms scored with statistics shared among them, the two `BlendedTermQuery`s behind
//! OpenSearch's scores:
//!
//! - [`Blend::CrossFields`]: OpenSearch's `BlendedTermQuery.dismaxBlendedQuery` (one analyzed
//!   term over the fields of a `multi_match` `cross_fields` group). Every field's doc freq
//!   becomes the largest one (capped by `maxDoc`, the smallest `sumTotalTermFreq` of the fields
//!   holding the term, and the field's doc count); walking the fields by decreasing doc freq,
//!   each drop in doc freq adds one, so the most frequent field keeps the lowest df (a small
//!   bias towards it). The terms are then a dis_max with the tie breaker.
//! - [`Blend::MaxDocFreq`]: Lucene's `BlendedTermQuery` with `BOOLEAN_REWRITE`, which
//!   `TopTermsBlendedFreqScoringRewrite` (the fuzzy query's default rewrite) builds: every term's
//!   doc freq becomes the largest one, and the terms are a disjunction (sum of scores).
//!
//! BM25 reads only the doc freq of a term (its total term freq is not used), and the field's own
//! doc count and length statistics, so blending doc freqs is all the scores need. A term absent
//! from the index (doc freq 0) keeps it and matches nothing.

use std::fmt;
use std::sync::Arc;

use super::bm25::Bm25;
use super::view::SegmentView;
use super::weight::{term_stats, Weight};
use crate::engine::Result;

/// One term of a blended query.
#[derive(Debug, Clone, PartialEq)]
pub struct BlendedTerm {
    pub field: String,
    pub term: Vec<u8>,
    /// The term's own boost (field boost, fuzzy similarity).
    pub boost: f32,
}

/// How the terms' statistics are shared and their scores combined.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Blend {
    /// OpenSearch's `dismaxBlendedQuery` with this tie breaker.
    CrossFields { tie_breaker: f32 },
    /// Lucene's `BlendedTermQuery`: the largest doc freq for all, scores summed.
    MaxDocFreq,
}

/// Per term: (doc freq, field doc count, field `sumTotalTermFreq`).
pub type RawStats = (u64, u64, u64);

/// OpenSearch's `BlendedTermQuery.blend`: the adjusted doc freq of each term, from the terms'
/// (doc freq, field doc count, field sumTTF) and the reader's `maxDoc`.
pub fn cross_fields_doc_freqs(raw: &[RawStats], max_doc: u64) -> Vec<u64> {
    let mut out: Vec<u64> = raw.iter().map(|r| r.0).collect();
    if raw.len() <= 1 {
        return out;
    }
    let max = raw.iter().map(|r| r.0).max().unwrap_or(0);
    let min_sum_ttf = raw.iter().filter(|r| r.0 > 0).map(|r| r.2).min().unwrap_or(u64::MAX);
    let max_doc = max_doc.min(min_sum_ttf);
    if max == 0 {
        return out;
    }
    // Decreasing doc freq, stable (Lucene's merge sort keeps ties in term order).
    let mut order: Vec<usize> = (0..raw.len()).collect();
    order.sort_by(|&a, &b| raw[b].0.cmp(&raw[a].0));
    let mut prev = raw[order[0]].0;
    let mut actual = max_doc.min(max);
    for &i in &order {
        let current = raw[i].0;
        if current == 0 {
            break;
        }
        if prev > current {
            actual += 1;
        }
        out[i] = actual.min(max_doc.min(raw[i].1));
        prev = current;
    }
    out
}

/// Compiles a blended query for `segments` with the inherited `boost`.
pub fn compile(
    terms: &[BlendedTerm],
    blend: Blend,
    segments: &[&dyn SegmentView],
    boost: f32,
    scoring: bool,
    explained: bool,
) -> Result<Weight> {
    let mut raw = Vec::with_capacity(terms.len());
    let mut states = Vec::with_capacity(terms.len());
    for t in terms {
        let (df, doc_count, sum_ttf, st) = term_stats(segments, &t.field, &t.term)?;
        raw.push((df, doc_count, sum_ttf));
        states.push(st);
    }
    let dfs = match blend {
        Blend::CrossFields { .. } => {
            let max_doc = super::dfs::max_doc(segments.iter().map(|s| s.max_doc() as u64).sum());
            cross_fields_doc_freqs(&raw, max_doc)
        }
        Blend::MaxDocFreq => {
            let max = raw.iter().map(|r| r.0).max().unwrap_or(0);
            raw.iter().map(|r| if r.0 == 0 { 0 } else { max }).collect()
        }
    };
    let mut subs = Vec::with_capacity(terms.len());
    for (((t, (df, doc_count, sum_ttf)), st), blended_df) in terms.iter().zip(raw).zip(states).zip(dfs) {
        if df == 0 {
            continue;
        }
        let sim = Arc::new(Bm25::new(boost * t.boost, doc_count.max(blended_df), sum_ttf, &[blended_df]));
        let display = if explained {
            super::tree::Query::Term { field: t.field.clone(), term: t.term.clone(), boost: 1.0 }.to_string()
        } else {
            String::new()
        };
        let constant = if scoring { None } else { Some(0.0) };
        subs.push(Weight::Term {
            field: t.field.clone(),
            term: t.term.clone(),
            sim,
            constant,
            display,
            states: Arc::new(st),
        });
    }
    if subs.is_empty() {
        return Ok(Weight::MatchNone);
    }
    let display = if explained { blended_display(terms) } else { String::new() };
    Ok(match blend {
        Blend::CrossFields { tie_breaker } => Weight::DisMax { subs, tie: tie_breaker, display },
        Blend::MaxDocFreq => {
            Weight::Bool { must: vec![], should: subs, must_not: vec![], filter: vec![], msm: 0, scoring, display }
        }
    })
}

fn blended_display(terms: &[BlendedTerm]) -> String {
    struct D<'a>(&'a [BlendedTerm]);
    impl fmt::Display for D<'_> {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            fmt_blended(self.0, f)
        }
    }
    D(terms).to_string()
}

/// OpenSearch's `BlendedTermQuery.toString`: `blended(terms:[title:fox, body:fox^2.0])`.
pub fn fmt_blended(terms: &[BlendedTerm], f: &mut fmt::Formatter<'_>) -> fmt::Result {
    write!(f, "blended(terms:[")?;
    for (i, t) in terms.iter().enumerate() {
        write!(f, "{}{}:{}", if i > 0 { ", " } else { "" }, t.field, String::from_utf8_lossy(&t.term))?;
        if t.boost != 1.0 {
            write!(f, "^{}", super::bm25::java_float(t.boost))?;
        }
    }
    write!(f, "])")
}

#[cfg(test)]
mod tests;
