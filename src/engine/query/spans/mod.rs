//! Span queries (Lucene's `org.apache.lucene.queries.spans`, OpenSearch's `span_*` queries): a
//! tree of span sources over the positions of one field, each yielding the spans
//! `[start, end)` of a document in Lucene's order, with Lucene's iteration quirks (sub-spans
//! only ever move forward), because those decide which spans match and the sloppy frequency.
//!
//! Scoring is Lucene's `SpanWeight`: BM25 with the idf summed over every term of the tree (in
//! term order, as Lucene's `TreeMap` of term states), collection statistics and norms of the
//! top query's field, and the frequency `Σ 1 / (1 + width)` over the document's spans.
//!
//! [`eval`] computes a document's spans from its leaves' positions; [`scorer`] is the
//! per-segment scorer.

use std::fmt;
use std::sync::Arc;

use super::bm25::Bm25;
use super::view::SegmentView;
use super::weight::Weight;
use crate::engine::segment::NO_MORE_DOCS;
use crate::engine::Result;

pub mod eval;
pub mod scorer;

#[cfg(test)]
mod tests;

/// A span query.
#[derive(Debug, Clone, PartialEq)]
pub enum SpanQuery {
    /// The positions of a term (`SpanTermQuery`).
    Term { field: String, term: Vec<u8> },
    /// The term `prefix` of `field`, the `index_prefixes` subfield of `parent` (which holds each
    /// token's prefixes at the token's position): read as the positions of `terms` (the parent's
    /// terms starting with `prefix`), with the statistics the subfield's term has.
    IndexPrefix { field: String, parent: String, prefix: Vec<u8>, terms: Vec<Vec<u8>> },
    /// Spans of any clause (`SpanOrQuery`).
    Or(Vec<SpanQuery>),
    /// Spans of every clause near one another (`SpanNearQuery`).
    Near { clauses: Vec<SpanQuery>, slop: i32, in_order: bool },
    /// A gap of `width` positions in an ordered near query (`SpanGapQuery`).
    Gap { field: String, width: i32 },
    /// Spans of `include` not overlapping a span of `exclude` widened by `pre`/`post`.
    Not { include: Box<SpanQuery>, exclude: Box<SpanQuery>, pre: i32, post: i32 },
    /// Spans of the query ending at or before `end` (`SpanFirstQuery`).
    First { inner: Box<SpanQuery>, end: i32 },
    /// Spans of `big` containing a span of `little`.
    Containing { big: Box<SpanQuery>, little: Box<SpanQuery> },
    /// Spans of `little` inside a span of `big`.
    Within { big: Box<SpanQuery>, little: Box<SpanQuery> },
    /// The query's spans, reported as being of `field` (`FieldMaskingSpanQuery`).
    Mask { inner: Box<SpanQuery>, field: String },
    /// No span (`SpanMatchNoDocsQuery`).
    NoMatch { field: String, reason: String },
}

/// The subfield of `field` holding its `index_prefixes`.
pub fn prefix_field(field: &str) -> String {
    format!("{field}._index_prefix")
}

impl SpanQuery {
    /// Lucene's `SpanQuery.getField`.
    pub fn field(&self) -> &str {
        match self {
            SpanQuery::Term { field, .. }
            | SpanQuery::IndexPrefix { field, .. }
            | SpanQuery::Gap { field, .. }
            | SpanQuery::NoMatch { field, .. } => field,
            SpanQuery::Or(c) | SpanQuery::Near { clauses: c, .. } => c.first().map_or("", |q| q.field()),
            SpanQuery::Not { include: q, .. } | SpanQuery::First { inner: q, .. } => q.field(),
            SpanQuery::Containing { big, .. } | SpanQuery::Within { big, .. } => big.field(),
            SpanQuery::Mask { field, .. } => field,
        }
    }

    /// The terms whose statistics score the query (`extractTermStates`): `(field, term)`; the
    /// exclusions of `span_not` do not count.
    pub fn stat_terms(&self, out: &mut Vec<(String, Vec<u8>)>) {
        match self {
            SpanQuery::Term { field, term } => out.push((field.clone(), term.clone())),
            SpanQuery::IndexPrefix { field, prefix, .. } => out.push((field.clone(), prefix.clone())),
            SpanQuery::Or(c) | SpanQuery::Near { clauses: c, .. } => c.iter().for_each(|q| q.stat_terms(out)),
            SpanQuery::Not { include, .. } => include.stat_terms(out),
            SpanQuery::First { inner, .. } | SpanQuery::Mask { inner, .. } => inner.stat_terms(out),
            SpanQuery::Containing { big, little } | SpanQuery::Within { big, little } => {
                big.stat_terms(out);
                little.stat_terms(out);
            }
            SpanQuery::Gap { .. } | SpanQuery::NoMatch { .. } => {}
        }
    }

    /// The postings the query reads, `(field, term)` in tree order (the leaf numbering of
    /// [`eval`]).
    pub fn leaves(&self, out: &mut Vec<(String, Vec<u8>)>) {
        match self {
            SpanQuery::Term { field, term } => out.push((field.clone(), term.clone())),
            SpanQuery::IndexPrefix { parent, terms, .. } => {
                out.extend(terms.iter().map(|t| (parent.clone(), t.clone())));
            }
            SpanQuery::Or(c) | SpanQuery::Near { clauses: c, .. } => c.iter().for_each(|q| q.leaves(out)),
            SpanQuery::Not { include: a, exclude: b, .. }
            | SpanQuery::Containing { big: a, little: b }
            | SpanQuery::Within { big: a, little: b } => {
                a.leaves(out);
                b.leaves(out);
            }
            SpanQuery::First { inner, .. } | SpanQuery::Mask { inner, .. } => inner.leaves(out),
            SpanQuery::Gap { .. } | SpanQuery::NoMatch { .. } => {}
        }
    }

    /// Whether no document can match (a required part matches nothing).
    pub fn is_no_match(&self) -> bool {
        match self {
            SpanQuery::NoMatch { .. } => true,
            SpanQuery::IndexPrefix { terms, .. } => terms.is_empty(),
            SpanQuery::Or(c) => c.iter().all(|q| q.is_no_match()),
            SpanQuery::Near { clauses, .. } => {
                clauses.iter().any(|q| q.is_no_match()) || clauses.iter().all(|q| matches!(q, SpanQuery::Gap { .. }))
            }
            SpanQuery::Not { include, .. } => include.is_no_match(),
            SpanQuery::First { inner, .. } | SpanQuery::Mask { inner, .. } => inner.is_no_match(),
            SpanQuery::Containing { big, little } | SpanQuery::Within { big, little } => {
                big.is_no_match() || little.is_no_match()
            }
            SpanQuery::Term { .. } | SpanQuery::Gap { .. } => false,
        }
    }
}

/// Lucene's `SpanQuery.toString()` (every field printed: the outer call passes no field).
impl fmt::Display for SpanQuery {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let list = |f: &mut fmt::Formatter<'_>, c: &[SpanQuery]| -> fmt::Result {
            for (i, q) in c.iter().enumerate() {
                write!(f, "{}{q}", if i > 0 { ", " } else { "" })?;
            }
            Ok(())
        };
        match self {
            SpanQuery::Term { field, term } => write!(f, "{field}:{}", String::from_utf8_lossy(term)),
            SpanQuery::IndexPrefix { field, prefix, .. } => write!(f, "{field}:{}", String::from_utf8_lossy(prefix)),
            SpanQuery::Or(c) => {
                write!(f, "spanOr([")?;
                list(f, c)?;
                write!(f, "])")
            }
            SpanQuery::Near { clauses, slop, in_order } => {
                write!(f, "spanNear([")?;
                list(f, clauses)?;
                write!(f, "], {slop}, {in_order})")
            }
            SpanQuery::Gap { width, .. } => write!(f, "SpanGap(:{width})"),
            SpanQuery::Not { include, exclude, pre, post } => write!(f, "spanNot({include}, {exclude}, {pre}, {post})"),
            SpanQuery::First { inner, end } => write!(f, "spanFirst({inner}, {end})"),
            SpanQuery::Containing { big, little } => write!(f, "SpanContaining({big}, {little})"),
            SpanQuery::Within { big, little } => write!(f, "SpanWithin({big}, {little})"),
            SpanQuery::Mask { inner, field } => write!(f, "mask({inner}) as {field}"),
            SpanQuery::NoMatch { reason, .. } => write!(f, "SpanMatchNoDocsQuery(\"{reason}\")"),
        }
    }
}

/// The global statistics of a term: (doc freq, total term freq), summed over the segments,
/// deleted documents included. The `index_prefixes` term counts the documents holding any of
/// its expansions.
fn term_stats(q_terms: &SpanQuery, field: &str, term: &[u8], segments: &[&dyn SegmentView]) -> Result<(u64, u64)> {
    let expansions = find_prefix(q_terms, field, term);
    let (mut df, mut ttf) = (0u64, 0u64);
    for seg in segments {
        match expansions {
            None => {
                if let Some(st) = seg.term_stats(field, term)? {
                    df += st.doc_freq as u64;
                    ttf += st.total_term_freq;
                }
            }
            Some((parent, terms)) => {
                let mut docs: Vec<u32> = Vec::new();
                for t in terms {
                    if let Some(st) = seg.term_stats(parent, t)? {
                        ttf += st.total_term_freq;
                    }
                    if let Some(mut p) = seg.postings(parent, t, false)? {
                        let mut d = p.next();
                        while d != NO_MORE_DOCS {
                            docs.push(d);
                            d = p.next();
                        }
                        if let Some(e) = p.take_error() {
                            return Err(e);
                        }
                    }
                }
                docs.sort_unstable();
                docs.dedup();
                df += docs.len() as u64;
            }
        }
    }
    if df == 0 {
        return Ok((0, 0));
    }
    // `dfs_query_then_fetch`: the global statistics when in force (see `super::dfs`).
    let g = super::dfs::term(field, term, super::dfs::TermAgg { doc_freq: df, total_term_freq: ttf });
    Ok((g.doc_freq, g.total_term_freq))
}

/// The parent field and expansions of the `index_prefixes` term `(field, term)` in `q`.
fn find_prefix<'q>(q: &'q SpanQuery, field: &str, term: &[u8]) -> Option<(&'q str, &'q [Vec<u8>])> {
    match q {
        SpanQuery::IndexPrefix { field: f, parent, prefix, terms } if f == field && prefix == term => {
            Some((parent, terms))
        }
        SpanQuery::Or(c) | SpanQuery::Near { clauses: c, .. } => c.iter().find_map(|s| find_prefix(s, field, term)),
        SpanQuery::Not { include: a, exclude: b, .. }
        | SpanQuery::Containing { big: a, little: b }
        | SpanQuery::Within { big: a, little: b } => {
            find_prefix(a, field, term).or_else(|| find_prefix(b, field, term))
        }
        SpanQuery::First { inner, .. } | SpanQuery::Mask { inner, .. } => find_prefix(inner, field, term),
        _ => None,
    }
}

/// Compiles a span query (Lucene's `SpanWeight.buildSimWeight`): BM25 with the idfs of the
/// query's distinct terms that occur, in term order (field, then bytes), and the collection
/// statistics of the query's field.
pub fn compile(
    q: &SpanQuery,
    segments: &[&dyn SegmentView],
    boost: f32,
    scoring: bool,
    display: String,
) -> Result<Weight> {
    if q.is_no_match() {
        return Ok(Weight::MatchNone);
    }
    let field = q.field().to_string();
    let sim = if scoring {
        let mut terms = Vec::new();
        q.stat_terms(&mut terms);
        terms.sort();
        terms.dedup();
        let mut dfs = Vec::with_capacity(terms.len());
        for (f, t) in &terms {
            let (df, _) = term_stats(q, f, t, segments)?;
            if df > 0 {
                dfs.push(df);
            }
        }
        let mut local = super::dfs::FieldAgg::default();
        for s in segments {
            if let Some(fs) = s.field_stats(&field) {
                local.doc_count += fs.doc_count as u64;
                local.sum_total_term_freq += fs.sum_total_term_freq;
                local.sum_doc_freq += fs.sum_doc_freq;
            }
        }
        let global = super::dfs::field(&field, local);
        let (doc_count, sum_ttf) = (global.doc_count, global.sum_total_term_freq);
        if dfs.is_empty() {
            None
        } else {
            let max_df = dfs.iter().copied().max().unwrap_or(0);
            Some(Arc::new(Bm25::new(boost, doc_count.max(max_df), sum_ttf, &dfs)))
        }
    } else {
        None
    };
    let constant = if scoring { None } else { Some(0.0) };
    Ok(Weight::Spans { query: Arc::new(q.clone()), sim: scorer::SpanSim { sim, field, constant }, display })
}
