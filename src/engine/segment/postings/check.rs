//! Whole-file verification of a segment's postings (the fuzz targets' entry point): CRCs,
//! headers, field table, every term in order, every postings list, every position, the field
//! statistics, the block-max bounds and the impact lists.

use super::reader::PostingsReader;
use super::{DOC_EXT, POS_EXT, TERMS_EXT};
use crate::engine::codec::check_footer;
use crate::engine::segment::{DocId, Postings, NO_MORE_DOCS};
use crate::engine::store::FileBytes;
use crate::engine::{Error, Result};

/// What [`check_files`] found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Summary {
    /// `max_doc` recorded in `.tim`.
    pub max_doc: u32,
    /// Fields with terms.
    pub fields: u32,
    /// Terms over all fields.
    pub terms: u64,
    /// (term, doc) pairs over all fields.
    pub postings: u64,
    /// Positions over all fields (0 for fields without positions).
    pub positions: u64,
}

/// Verifies the three files of one segment (`.tim`, `.doc`, `.pos` images) and walks every term
/// and postings list. Any damage is an error, never a panic.
pub fn check_files(tim: &[u8], doc: &[u8], pos: &[u8]) -> Result<Summary> {
    let names = [format!("segment.{TERMS_EXT}"), format!("segment.{DOC_EXT}"), format!("segment.{POS_EXT}")];
    check_footer(tim, &names[0])?;
    check_footer(doc, &names[1])?;
    check_footer(pos, &names[2])?;
    let r = PostingsReader::from_bytes(
        FileBytes::copy_from_slice(tim),
        FileBytes::copy_from_slice(doc),
        FileBytes::copy_from_slice(pos),
        names,
        None,
        None,
    )?;
    walk(&r)
}

/// Walks every field, term, postings list and position of an open reader.
pub(crate) fn walk(r: &PostingsReader) -> Result<Summary> {
    let name = r.names[0].as_str();
    let doc_name = r.names[1].as_str();
    let mut sum = Summary { max_doc: r.max_doc, ..Summary::default() };
    let mut pos = Vec::new();
    let mut imps = Vec::new();
    let mut top = Vec::new();
    for number in r.field_numbers().collect::<Vec<_>>() {
        let ft = r.field(number).expect("field_numbers lists present fields");
        let stats = ft.stats();
        let has_pos = ft.index_options().has_positions();
        sum.fields += 1;
        let (mut terms, mut sdf, mut sttf) = (0u64, 0u64, 0u64);
        let mut docs_seen: Vec<u32> = Vec::new();
        let mut prev: Option<Vec<u8>> = None;
        let mut it = ft.iter()?;
        while let Some((term, info)) = it.next()? {
            if prev.as_deref().is_some_and(|p| p >= term) {
                return Err(Error::corrupt(name, 0, format!("field {number}: terms out of order at {term:?}")));
            }
            prev = Some(term.to_vec());
            // The block index must find every term the blocks hold (a damaged index term would
            // make seeks miss terms that iteration lists).
            match ft.seek_exact(term)? {
                Some(found) if found.doc_freq == info.doc_freq && found.total_term_freq == info.total_term_freq => {}
                _ => {
                    return Err(Error::corrupt(
                        name,
                        0,
                        format!("field {number}: term index does not lead to term {term:?}"),
                    ))
                }
            }
            terms += 1;
            sdf += info.doc_freq as u64;
            sttf += info.total_term_freq;
            let mut p = ft.postings(&info, true)?;
            // The stored top docs (multi-block terms) must be docs of the term with their freqs.
            p.try_top_docs(&mut top)?;
            let mut tj = 0;
            let (mut n, mut freqs, mut last) = (0u64, 0u64, None);
            let not_a_doc = |(td, tf): (DocId, u32)| {
                Error::corrupt(
                    doc_name,
                    0,
                    format!("field {number}: top doc ({td}, freq {tf}) is not a doc of term {term:?} with that freq"),
                )
            };
            loop {
                let d = p.next();
                if d == NO_MORE_DOCS {
                    break;
                }
                if let Some(&(td, tf)) = top.get(tj).filter(|t| t.0 <= d) {
                    if td < d || tf != p.freq() {
                        return Err(not_a_doc((td, tf)));
                    }
                    tj += 1;
                }
                if last.is_some_and(|l| l >= d) || d >= r.max_doc {
                    return Err(Error::corrupt(name, 0, format!("field {number}: doc {d} out of order or >= max_doc")));
                }
                last = Some(d);
                n += 1;
                let f = p.freq();
                freqs += f as u64;
                docs_seen.push(d);
                if p.shallow_advance(d) < d {
                    return Err(Error::corrupt(name, 0, format!("field {number}: skip data ends before doc {d}")));
                }
                if p.block_max().0 < f {
                    return Err(Error::corrupt(
                        name,
                        0,
                        format!("field {number}: block max freq {} below freq {f} of doc {d}", p.block_max().0),
                    ));
                }
                p.try_block_impacts(&mut imps)?;
                if !imps.iter().any(|&(pf, _)| pf >= f) {
                    return Err(Error::corrupt(
                        name,
                        0,
                        format!("field {number}: block impacts {imps:?} below freq {f} of doc {d}"),
                    ));
                }
                if has_pos {
                    p.positions(&mut pos);
                    if pos.len() as u64 != f as u64 && p.doc() != NO_MORE_DOCS {
                        return Err(Error::corrupt(
                            name,
                            0,
                            format!("field {number}: {} positions for freq {f}", pos.len()),
                        ));
                    }
                    if pos.windows(2).any(|w| w[0] > w[1]) {
                        return Err(Error::corrupt(
                            name,
                            0,
                            format!("field {number}: positions out of order in doc {d}"),
                        ));
                    }
                    sum.positions += pos.len() as u64;
                }
            }
            if let Some(e) = p.take_error() {
                return Err(e);
            }
            if let Some(&t) = top.get(tj) {
                return Err(not_a_doc(t));
            }
            if n != info.doc_freq as u64 || (ft.index_options().has_freqs() && freqs != info.total_term_freq) {
                return Err(Error::corrupt(
                    name,
                    0,
                    format!(
                        "field {number}: term has {n} docs / {freqs} occurrences, dictionary says {} / {}",
                        info.doc_freq, info.total_term_freq
                    ),
                ));
            }
            sum.postings += n;
        }
        docs_seen.sort_unstable();
        docs_seen.dedup();
        if terms != stats.num_terms
            || sdf != stats.sum_doc_freq
            || sttf != stats.sum_total_term_freq
            || docs_seen.len() as u64 != stats.doc_count as u64
        {
            return Err(Error::corrupt(name, 0, format!(
                "field {number}: statistics {stats:?} disagree with the terms ({terms} terms, sum df {sdf}, sum ttf {sttf}, {} docs)",
                docs_seen.len()
            )));
        }
        sum.terms += terms;
    }
    Ok(sum)
}
