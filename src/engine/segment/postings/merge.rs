//! Writes the postings of a merged segment from the readers of its sources.
//!
//! Per field of the merged segment (matched BY NAME in each source, since field numbers differ),
//! the sources' term iterators are merged in byte order; for each term the live postings of every
//! source holding it are mapped through the source's [`DocMap`] and written. Doc maps that do not
//! keep doc order (index sorting) are handled by sorting the term's postings.

use super::serializer::{PostingsSerializer, TermData};
use super::terms::{TermInfo, TermIter};
use super::{FieldTerms, PostingsReader};
use crate::engine::segment::{DocId, DocMap, FieldInfos, IndexOptions, Postings, SegmentId, NO_MORE_DOCS};
use crate::engine::store::Directory;
use crate::engine::Result;

struct Source<'a> {
    ft: FieldTerms<'a>,
    it: TermIter<'a>,
    map: &'a DocMap,
    term: Vec<u8>,
    info: Option<TermInfo>,
}

impl Source<'_> {
    fn step(&mut self) -> Result<()> {
        match self.it.next()? {
            Some((t, info)) => {
                self.term.clear();
                self.term.extend_from_slice(t);
                self.info = Some(info);
            }
            None => self.info = None,
        }
        Ok(())
    }
}

/// One merged term's postings, accumulated flat.
#[derive(Default)]
struct Acc {
    docs: Vec<u32>,
    freqs: Vec<u32>,
    positions: Vec<u32>,
    offsets: Vec<(u32, u32)>,
    starts: Vec<usize>,
    pos: Vec<u32>,
    offs: Vec<(u32, u32)>,
}

impl Acc {
    fn clear(&mut self) {
        self.docs.clear();
        self.freqs.clear();
        self.positions.clear();
        self.offsets.clear();
        self.starts.clear();
    }

    /// Re-orders by doc when sources were not mapped in order.
    fn sort_by_doc(&mut self) {
        if self.docs.windows(2).all(|w| w[0] < w[1]) {
            return;
        }
        let mut order: Vec<usize> = (0..self.docs.len()).collect();
        order.sort_by_key(|&i| self.docs[i]);
        let ends: Vec<usize> =
            (0..self.docs.len()).map(|i| self.starts.get(i + 1).copied().unwrap_or(self.positions.len())).collect();
        let (mut d, mut f, mut p, mut o) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        for i in order {
            d.push(self.docs[i]);
            f.push(self.freqs[i]);
            p.extend_from_slice(&self.positions[self.starts[i]..ends[i]]);
            if !self.offsets.is_empty() {
                o.extend_from_slice(&self.offsets[self.starts[i]..ends[i]]);
            }
        }
        (self.docs, self.freqs, self.positions, self.offsets) = (d, f, p, o);
    }
}

/// Merges sources (each: its reader, its own FieldInfos, its DocMap) into a new segment with
/// field infos `infos`; returns the file names written.
pub fn merge_postings(
    dir: &dyn Directory,
    seg: &SegmentId,
    infos: &FieldInfos,
    sources: &[(&PostingsReader, &FieldInfos, &DocMap)],
    norms: &dyn Fn(u32, DocId) -> u8,
    max_doc: u32,
) -> Result<Vec<String>> {
    let mut ser = PostingsSerializer::create(dir, seg, max_doc, norms)?;
    let mut acc = Acc::default();
    for info in infos.iter() {
        if info.index == IndexOptions::None {
            continue;
        }
        let mut srcs = Vec::new();
        for &(r, finfos, map) in sources {
            let Some(ft) = finfos.by_name(&info.name).and_then(|fi| r.field(fi.number)) else { continue };
            let mut s = Source { ft, it: ft.iter()?, map, term: Vec::new(), info: None };
            s.step()?;
            srcs.push(s);
        }
        if srcs.is_empty() {
            continue;
        }
        let (want_pos, want_off) = (info.index.has_positions(), info.index.has_offsets());
        let mut seen = vec![0u64; (max_doc as usize).div_ceil(64)];
        ser.start_field(info.number, info.index, info.has_norms);
        let mut term = Vec::new();
        while let Some(min) = srcs.iter().filter(|s| s.info.is_some()).map(|s| &s.term).min() {
            term.clear();
            term.extend_from_slice(min);
            acc.clear();
            for s in srcs.iter_mut() {
                let Some(ti) = s.info.filter(|_| s.term == term) else { continue };
                let src_pos = s.ft.index_options().has_positions();
                let mut p = s.ft.postings(&ti, want_pos)?;
                loop {
                    let d = p.next();
                    if d == NO_MORE_DOCS {
                        break;
                    }
                    let Some(nd) = s.map.get(d) else { continue };
                    let freq = p.freq();
                    acc.docs.push(nd);
                    acc.freqs.push(freq);
                    acc.starts.push(acc.positions.len());
                    if want_pos {
                        if src_pos {
                            p.positions_and_offsets(&mut acc.pos, &mut acc.offs);
                            if let Some(e) = p.take_error() {
                                return Err(e);
                            }
                        } else {
                            acc.pos.clear();
                            acc.pos.resize(freq as usize, 0);
                            acc.offs.clear();
                        }
                        acc.positions.extend_from_slice(&acc.pos);
                        if want_off {
                            let have = acc.offs.len();
                            acc.offsets.extend_from_slice(&acc.offs);
                            acc.offsets.extend(std::iter::repeat_n((0, 0), acc.pos.len().saturating_sub(have)));
                        }
                    }
                }
                if let Some(e) = p.take_error() {
                    return Err(e);
                }
                s.step()?;
            }
            if acc.docs.is_empty() {
                continue;
            }
            acc.sort_by_doc();
            for &d in &acc.docs {
                if let Some(w) = seen.get_mut(d as usize / 64) {
                    *w |= 1 << (d % 64);
                }
            }
            ser.add_term(
                &term,
                &TermData { docs: &acc.docs, freqs: &acc.freqs, positions: &acc.positions, offsets: &acc.offsets },
            )?;
        }
        let doc_count: u32 = seen.iter().map(|w| w.count_ones()).sum();
        ser.finish_field(doc_count)?;
    }
    ser.finish()
}
