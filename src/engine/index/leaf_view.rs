//! The query layer's view of a real segment: [`SegmentView`] for a searcher [`Leaf`] (a segment
//! reader plus the live docs pinned with it).

use super::reader::Leaf;
use crate::engine::query::{FieldStats, SegmentView, TermState, TermStats};
use crate::engine::segment::postings::SegmentPostings;
use crate::engine::segment::{DocId, FieldInfo, Postings};
use crate::engine::Result;

impl Leaf {
    fn info(&self, field: &str) -> Option<&FieldInfo> {
        self.reader.field_infos.by_name(field)
    }
}

impl SegmentView for Leaf {
    fn max_doc(&self) -> u32 {
        self.reader.max_doc()
    }

    fn core_key(&self) -> Option<crate::engine::query::view::CoreKey> {
        Some(self.reader.core.key())
    }

    fn is_live(&self, doc: DocId) -> bool {
        doc < self.reader.max_doc() && self.live.is_live(doc) && (self.shows_nested || !self.is_nested(doc))
    }

    fn has_deletions(&self) -> bool {
        self.live.num_deleted() > 0 || (!self.shows_nested && self.reader.nested.is_some())
    }

    fn is_nested(&self, doc: DocId) -> bool {
        self.reader.nested.as_ref().is_some_and(|n| n.is_nested(doc))
    }

    fn with_nested(&self) -> Option<&dyn SegmentView> {
        self.with_nested.as_deref().map(|l| l as &dyn SegmentView)
    }

    fn field_stats(&self, field: &str) -> Option<FieldStats> {
        let f = self.info(field)?;
        let s = self.reader.postings.field(f.number)?.stats();
        Some(FieldStats {
            doc_count: s.doc_count,
            sum_total_term_freq: s.sum_total_term_freq,
            sum_doc_freq: s.sum_doc_freq,
        })
    }

    fn term_stats(&self, field: &str, term: &[u8]) -> Result<Option<TermStats>> {
        let Some(f) = self.info(field) else { return Ok(None) };
        let Some(terms) = self.reader.postings.field(f.number) else { return Ok(None) };
        Ok(terms.seek_exact(term)?.map(|ti| TermStats { doc_freq: ti.doc_freq, total_term_freq: ti.total_term_freq }))
    }

    fn term_state(&self, field: &str, term: &[u8]) -> Result<Option<TermState>> {
        let Some(f) = self.info(field) else { return Ok(None) };
        let Some(terms) = self.reader.postings.field(f.number) else { return Ok(None) };
        Ok(terms.seek_exact(term)?.map(|ti| TermState {
            stats: TermStats { doc_freq: ti.doc_freq, total_term_freq: ti.total_term_freq },
            info: Some(ti),
        }))
    }

    fn postings_of(
        &self,
        field: &str,
        term: &[u8],
        state: &TermState,
        positions: bool,
    ) -> Result<Option<Box<dyn Postings + '_>>> {
        match self.segment_postings_of(field, term, state, positions) {
            Some(found) => Ok(found?.map(|p| Box::new(p) as Box<dyn Postings + '_>)),
            None => self.postings(field, term, positions),
        }
    }

    fn segment_postings_of(
        &self,
        field: &str,
        _term: &[u8],
        state: &TermState,
        positions: bool,
    ) -> Option<Result<Option<SegmentPostings<'_>>>> {
        let ti = state.info?;
        let Some(f) = self.info(field) else { return Some(Ok(None)) };
        let Some(terms) = self.reader.postings.field(f.number) else { return Some(Ok(None)) };
        let with_positions = positions && f.index.has_positions();
        Some(terms.postings(&ti, with_positions).map(Some))
    }

    fn postings(&self, field: &str, term: &[u8], positions: bool) -> Result<Option<Box<dyn Postings + '_>>> {
        let Some(f) = self.info(field) else { return Ok(None) };
        let Some(terms) = self.reader.postings.field(f.number) else { return Ok(None) };
        let Some(ti) = terms.seek_exact(term)? else { return Ok(None) };
        let with_positions = positions && f.index.has_positions();
        Ok(Some(Box::new(terms.postings(&ti, with_positions)?)))
    }

    fn visit_terms(&self, field: &str, from: &[u8], f: &mut dyn FnMut(&[u8]) -> bool) -> Result<()> {
        let Some(info) = self.info(field) else { return Ok(()) };
        let Some(terms) = self.reader.postings.field(info.number) else { return Ok(()) };
        let mut it = terms.iter_from(from)?;
        while let Some((term, _)) = it.next()? {
            if !f(term) {
                break;
            }
        }
        Ok(())
    }

    fn norms(&self, field: &str) -> Option<&[u8]> {
        let f = self.info(field)?;
        if !f.has_norms {
            return None;
        }
        self.reader.norms.field(f.number)
    }

    fn points_docs(&self, field: &str, lo: &[u8], hi: &[u8]) -> Result<Option<Vec<DocId>>> {
        let Some(f) = self.info(field) else { return Ok(None) };
        let Some(points) = self.reader.points.field(f.number) else { return Ok(None) };
        points.docs_in_range(lo, hi).map(Some)
    }

    fn points_field(&self, field: &str) -> Option<crate::engine::segment::points::FieldPoints<'_>> {
        let f = self.info(field)?;
        self.reader.points.field(f.number)
    }

    fn numeric_values(&self, field: &str, doc: DocId, out: &mut Vec<i64>) -> bool {
        out.clear();
        let Some(f) = self.info(field) else { return false };
        let Some(col) = self.reader.doc_values.numeric(f.number) else { return false };
        col.values(doc, out);
        true
    }

    fn sorted_set_ords(&self, field: &str, doc: DocId, out: &mut Vec<u64>) -> bool {
        out.clear();
        let Some(f) = self.info(field) else { return false };
        let Some(col) = self.reader.doc_values.sorted_set(f.number) else { return false };
        col.ords(doc, out);
        true
    }

    fn sorted_set_term(&self, field: &str, ord: u64) -> Result<Vec<u8>> {
        let f = self.info(field).ok_or_else(|| crate::engine::Error::InvalidArgument(format!("no field [{field}]")))?;
        let col = self.reader.doc_values.sorted_set(f.number).ok_or_else(|| {
            crate::engine::Error::InvalidArgument(format!("field [{field}] has no sorted-set doc values"))
        })?;
        col.lookup_ord(ord).map(|b| b.to_vec())
    }

    fn numeric_column(&self, field: &str) -> Option<crate::engine::segment::doc_values::NumericColumn<'_>> {
        self.reader.doc_values.numeric(self.info(field)?.number)
    }

    fn sorted_set_column(&self, field: &str) -> Option<crate::engine::segment::doc_values::SortedSetColumn<'_>> {
        self.reader.doc_values.sorted_set(self.info(field)?.number)
    }

    fn source(&self, doc: DocId) -> Result<Option<Vec<u8>>> {
        let Some(n) = self.reader.nested.as_ref().filter(|n| n.is_nested(doc)) else {
            return Ok(Some(crate::engine::index::writer::read_stored_fields(&self.reader, doc, true)?.source));
        };
        // A nested document: its object from the root's source, under its full path.
        let root = crate::engine::index::writer::read_stored_fields(&self.reader, n.root_of(doc), true)?.source;
        let Ok(root) = serde_json::from_slice::<serde_json::Value>(&root) else { return Ok(None) };
        let all = self.with_nested().unwrap_or(self);
        Ok(crate::engine::query::nested_source::nested_source(all, doc, &root)?
            .map(|v| serde_json::to_vec(&v).unwrap_or_default()))
    }

    fn has_value(&self, field: &str, doc: DocId) -> bool {
        let Some(f) = self.info(field) else { return false };
        let n = f.number;
        let r = &self.reader;
        r.doc_values.numeric(n).is_some_and(|c| c.has_value(doc))
            || r.doc_values.sorted_set(n).is_some_and(|c| c.first_ord(doc).is_some())
            || r.doc_values.binary(n).is_some_and(|c| c.get(doc).is_some())
            || (f.has_norms && r.norms.field(n).is_some_and(|x| x.get(doc as usize).is_some_and(|&b| b != 0)))
    }
}
