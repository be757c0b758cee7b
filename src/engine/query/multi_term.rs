//! Multi-term queries (terms, prefix, wildcard, keyword range), point ranges and `exists`,
//! rewritten like Lucene's default constant-score rewrite: the union of the matching terms'
//! documents, every one scoring the query's boost.

use super::tree::{Query, RangeKind};
use super::view::SegmentView;
use crate::engine::index::builder::meta::FIELD_NAMES;
use crate::engine::segment::{DocId, NO_MORE_DOCS};
use crate::engine::{Error, Result};

/// A query that is answered by a set of documents.
#[derive(Debug, Clone, PartialEq)]
pub enum DocSetQuery {
    /// Any of these terms.
    Terms { field: String, terms: Vec<Vec<u8>> },
    /// Terms starting with `prefix`.
    Prefix { field: String, prefix: Vec<u8> },
    /// Terms matching a wildcard pattern; `prefix` is its literal start.
    Wildcard { field: String, pattern: Vec<WildcardToken>, prefix: Vec<u8> },
    /// Terms in `[lo, hi]` (`None`: unbounded) with exclusive ends dropped.
    TermRange { field: String, lo: Option<Vec<u8>>, hi: Option<Vec<u8>>, include_lo: bool, include_hi: bool },
    /// Point values in `[lo, hi]` (inclusive, already adjusted for exclusive bounds).
    PointRange { field: String, lo: Vec<u8>, hi: Vec<u8> },
    /// Docs with a value.
    Exists { field: String },
    /// Docs whose doc values pass a filter.
    DocValues { field: String, filter: super::doc_values_query::DvFilter },
}

/// One element of a parsed wildcard pattern.
#[derive(Debug, Clone, PartialEq)]
pub enum WildcardToken {
    /// A literal character.
    Char(char),
    /// `?`: exactly one character.
    One,
    /// `*`: any sequence.
    Any,
}

/// Parses a wildcard pattern (`\` escapes the next character).
pub fn parse_wildcard(pattern: &str) -> Vec<WildcardToken> {
    let mut out = Vec::new();
    let mut chars = pattern.chars();
    while let Some(c) = chars.next() {
        out.push(match c {
            '*' => WildcardToken::Any,
            '?' => WildcardToken::One,
            '\\' => WildcardToken::Char(chars.next().unwrap_or('\\')),
            c => WildcardToken::Char(c),
        });
    }
    out
}

/// Whether `text` matches the pattern (greedy star with backtracking to the last star).
pub fn wildcard_matches(pattern: &[WildcardToken], text: &str) -> bool {
    let t: Vec<char> = text.chars().collect();
    let (mut p, mut i) = (0usize, 0usize);
    let mut star: Option<(usize, usize)> = None;
    while i < t.len() {
        match pattern.get(p) {
            Some(WildcardToken::Any) => {
                star = Some((p, i));
                p += 1;
            }
            Some(WildcardToken::One) => {
                p += 1;
                i += 1;
            }
            Some(WildcardToken::Char(c)) if *c == t[i] => {
                p += 1;
                i += 1;
            }
            _ => match star {
                Some((sp, si)) => {
                    p = sp + 1;
                    i = si + 1;
                    star = Some((sp, si + 1));
                }
                None => return false,
            },
        }
    }
    pattern[p.min(pattern.len())..].iter().all(|t| *t == WildcardToken::Any)
}

/// Adds one to a fixed-width big-endian key; `None` on overflow.
pub fn key_successor(key: &[u8]) -> Option<Vec<u8>> {
    let mut k = key.to_vec();
    for b in k.iter_mut().rev() {
        if *b == 0xFF {
            *b = 0;
        } else {
            *b += 1;
            return Some(k);
        }
    }
    None
}

/// Subtracts one from a fixed-width big-endian key; `None` on underflow.
pub fn key_predecessor(key: &[u8]) -> Option<Vec<u8>> {
    let mut k = key.to_vec();
    for b in k.iter_mut().rev() {
        if *b == 0 {
            *b = 0xFF;
        } else {
            *b -= 1;
            return Some(k);
        }
    }
    None
}

impl DocSetQuery {
    /// The document-set form of a multi-term, range or exists query; `None` when it matches
    /// nothing (an empty point range). Other queries are an `InvalidArgument` error.
    pub fn from_query(q: &Query) -> Result<Option<DocSetQuery>> {
        Ok(Some(match q {
            Query::Terms { field, terms, .. } => {
                let mut terms = terms.clone();
                terms.sort();
                terms.dedup();
                DocSetQuery::Terms { field: field.clone(), terms }
            }
            Query::Prefix { field, prefix, .. } => DocSetQuery::Prefix { field: field.clone(), prefix: prefix.clone() },
            Query::Wildcard { field, pattern, .. } => {
                let pattern = parse_wildcard(pattern);
                let mut prefix = String::new();
                for t in &pattern {
                    match t {
                        WildcardToken::Char(c) => prefix.push(*c),
                        _ => break,
                    }
                }
                DocSetQuery::Wildcard { field: field.clone(), pattern, prefix: prefix.into_bytes() }
            }
            Query::Range { field, lo, hi, include_lo, include_hi, kind: RangeKind::Terms, .. } => {
                DocSetQuery::TermRange {
                    field: field.clone(),
                    lo: lo.clone(),
                    hi: hi.clone(),
                    include_lo: *include_lo,
                    include_hi: *include_hi,
                }
            }
            Query::Range { field, lo, hi, include_lo, include_hi, kind: RangeKind::Points, .. } => {
                let width = match (lo, hi) {
                    (Some(l), Some(h)) if l.len() != h.len() => {
                        return Err(Error::InvalidArgument(format!("range on [{field}]: bounds of different widths")))
                    }
                    (Some(k), _) | (_, Some(k)) => k.len(),
                    (None, None) => return Ok(Some(DocSetQuery::Exists { field: field.clone() })),
                };
                let lo = match lo {
                    None => vec![0u8; width],
                    Some(l) if *include_lo => l.clone(),
                    Some(l) => match key_successor(l) {
                        Some(k) => k,
                        None => return Ok(None),
                    },
                };
                let hi = match hi {
                    None => vec![0xFFu8; width],
                    Some(h) if *include_hi => h.clone(),
                    Some(h) => match key_predecessor(h) {
                        Some(k) => k,
                        None => return Ok(None),
                    },
                };
                if lo > hi {
                    return Ok(None);
                }
                DocSetQuery::PointRange { field: field.clone(), lo, hi }
            }
            Query::Exists { field, .. } => DocSetQuery::Exists { field: field.clone() },
            Query::DocValues { field, filter, .. } => {
                DocSetQuery::DocValues { field: field.clone(), filter: filter.clone() }
            }
            other => return Err(Error::InvalidArgument(format!("not a multi-term query: {other}"))),
        }))
    }

    /// The matching terms of a segment (not for point ranges and exists).
    fn terms(&self, seg: &dyn SegmentView) -> Result<Vec<Vec<u8>>> {
        let mut out = Vec::new();
        match self {
            DocSetQuery::Terms { terms, .. } => out = terms.clone(),
            DocSetQuery::Prefix { field, prefix } => seg.visit_terms(field, prefix, &mut |t| {
                let keep = t.starts_with(prefix);
                if keep {
                    out.push(t.to_vec());
                }
                keep
            })?,
            DocSetQuery::Wildcard { field, pattern, prefix } => seg.visit_terms(field, prefix, &mut |t| {
                if !t.starts_with(prefix) {
                    return false;
                }
                if wildcard_matches(pattern, &String::from_utf8_lossy(t)) {
                    out.push(t.to_vec());
                }
                true
            })?,
            DocSetQuery::TermRange { field, lo, hi, include_lo, include_hi } => {
                let from = lo.clone().unwrap_or_default();
                seg.visit_terms(field, &from, &mut |t| {
                    if let Some(h) = hi {
                        if t > h.as_slice() || (!include_hi && t == h.as_slice()) {
                            return false;
                        }
                    }
                    if *include_lo || lo.as_deref() != Some(t) {
                        out.push(t.to_vec());
                    }
                    true
                })?
            }
            DocSetQuery::PointRange { .. } | DocSetQuery::Exists { .. } | DocSetQuery::DocValues { .. } => {}
        }
        Ok(out)
    }
}

/// The sorted, deduplicated documents of `seg` matching `q` (deleted ones included).
pub fn collect_docs(q: &DocSetQuery, seg: &dyn SegmentView) -> Result<Vec<DocId>> {
    let max_doc = seg.max_doc();
    match q {
        DocSetQuery::PointRange { field, lo, hi } => {
            let mut docs: Vec<DocId> =
                seg.points_docs(field, lo, hi)?.unwrap_or_default().into_iter().filter(|&d| d < max_doc).collect();
            // Cheap insurance: the scorer's binary searches need sorted, unique docs.
            if !docs.windows(2).all(|w| w[0] < w[1]) {
                docs.sort_unstable();
                docs.dedup();
            }
            return Ok(docs);
        }
        DocSetQuery::Exists { field } => {
            // Doc values, norms and points; fields with none of them are in `_field_names`.
            let mut docs: Vec<DocId> = (0..max_doc).filter(|&d| seg.has_value(field, d)).collect();
            if let Some(mut p) = seg.postings(FIELD_NAMES, field.as_bytes(), false)? {
                let mut named = Vec::new();
                loop {
                    let d = p.next();
                    if d == NO_MORE_DOCS || d >= max_doc {
                        break;
                    }
                    named.push(d);
                }
                if let Some(e) = p.take_error() {
                    return Err(e);
                }
                docs.extend(named);
                docs.sort_unstable();
                docs.dedup();
            }
            return Ok(docs);
        }
        DocSetQuery::DocValues { field, filter } => return super::doc_values_query::collect_docs(field, filter, seg),
        _ => {}
    }
    let field = match q {
        DocSetQuery::Terms { field, .. }
        | DocSetQuery::Prefix { field, .. }
        | DocSetQuery::Wildcard { field, .. }
        | DocSetQuery::TermRange { field, .. } => field,
        DocSetQuery::PointRange { field, .. }
        | DocSetQuery::Exists { field }
        | DocSetQuery::DocValues { field, .. } => field,
    };
    let terms = q.terms(seg)?;
    let mut bits = vec![0u64; (max_doc as usize).div_ceil(64)];
    let mut any = false;
    for t in &terms {
        let Some(mut p) = seg.postings(field, t, false)? else { continue };
        loop {
            let d = p.next();
            if d == NO_MORE_DOCS {
                break;
            }
            let w = match bits.get_mut(d as usize / 64) {
                Some(w) if d < max_doc => w,
                _ => {
                    return Err(Error::corrupt(
                        format!("postings of {field}"),
                        0,
                        format!("doc {d} >= max_doc {max_doc}"),
                    ))
                }
            };
            *w |= 1 << (d % 64);
            any = true;
        }
        if let Some(e) = p.take_error() {
            return Err(e);
        }
    }
    let mut docs = Vec::new();
    if any {
        for (i, &w) in bits.iter().enumerate() {
            let mut w = w;
            while w != 0 {
                docs.push(i as u32 * 64 + w.trailing_zeros());
                w &= w - 1;
            }
        }
    }
    Ok(docs)
}
