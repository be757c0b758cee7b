//! Writing a `.dvd` file: from a [`DocValuesBuffer`] at flush, or from source readers at merge.
//! Both paths normalise a field to sorted `(doc, value)` pairs and call the same encoders.

use super::int_column::write_int_column;
use super::packed::{pack_min_width, put_bits, Section};
use super::{DocValuesBuffer, DocValuesReader, FieldBuffer, CODEC, EXT, VERSION};
use crate::engine::codec::{put_vu64, IndexOutput};
use crate::engine::segment::{DocId, DocMap, DocValuesKind, FieldInfos, SegmentId};
use crate::engine::store::Directory;
use crate::engine::{Error, Result};

/// Kind tags of columns in the metadata (the same numbers as [`DocValuesKind`]).
pub(super) const KIND_NUMERIC: u8 = DocValuesKind::SortedNumeric as u8;
pub(super) const KIND_SORTED_SET: u8 = DocValuesKind::SortedSet as u8;
pub(super) const KIND_BINARY: u8 = DocValuesKind::Binary as u8;

/// Streams column data into the file and collects their metadata for the end.
struct ColumnsWriter {
    out: IndexOutput,
    meta: Vec<u8>,
    columns: u64,
    max_doc: u32,
}

impl ColumnsWriter {
    fn create(dir: &dyn Directory, seg: &SegmentId, max_doc: u32) -> Result<(Self, String)> {
        let name = seg.file(EXT);
        let out = IndexOutput::create(dir, &name, CODEC, VERSION, &seg.id)?;
        Ok((ColumnsWriter { out, meta: Vec::new(), columns: 0, max_doc }, name))
    }

    fn check_docs(&self, field: u32, mut docs: impl Iterator<Item = DocId>) -> Result<()> {
        match docs.find(|&d| d >= self.max_doc) {
            Some(d) => Err(Error::InvalidArgument(format!(
                "doc values of field {field} for doc {d} >= max_doc {}",
                self.max_doc
            ))),
            None => Ok(()),
        }
    }

    fn begin(&mut self, field: u32, kind: u8) {
        put_vu64(&mut self.meta, field as u64);
        self.meta.push(kind);
        self.columns += 1;
    }

    /// `pairs` sorted by doc, then value.
    fn numeric(&mut self, field: u32, pairs: &[(DocId, i64)]) -> Result<()> {
        if pairs.is_empty() {
            return Ok(());
        }
        self.check_docs(field, pairs.iter().map(|p| p.0))?;
        self.begin(field, KIND_NUMERIC);
        let m = write_int_column(&mut self.out, self.max_doc, pairs)?;
        self.meta.extend_from_slice(&m);
        Ok(())
    }

    /// `terms` sorted and unique; `ords` sorted by doc then ord, deduplicated.
    fn sorted_set(&mut self, field: u32, terms: &[&[u8]], ords: &[(DocId, i64)]) -> Result<()> {
        if ords.is_empty() {
            return Ok(());
        }
        self.check_docs(field, ords.iter().map(|p| p.0))?;
        self.begin(field, KIND_SORTED_SET);
        let m = write_int_column(&mut self.out, self.max_doc, ords)?;
        self.meta.extend_from_slice(&m);
        put_vu64(&mut self.meta, terms.len() as u64);
        let mut starts = Vec::with_capacity(terms.len() + 1);
        let mut total = 0u64;
        starts.push(0);
        for t in terms {
            total += t.len() as u64;
            starts.push(total);
        }
        self.put_offsets_and_bytes(&starts, terms.iter().copied())
    }

    /// `pairs` sorted by doc, one per doc.
    fn binary(&mut self, field: u32, pairs: &[(DocId, &[u8])]) -> Result<()> {
        if pairs.is_empty() {
            return Ok(());
        }
        self.check_docs(field, pairs.iter().map(|p| p.0))?;
        self.begin(field, KIND_BINARY);
        put_vu64(&mut self.meta, pairs.len() as u64);
        let mut starts = Vec::with_capacity(self.max_doc as usize + 1);
        let mut total = 0u64;
        let mut i = 0;
        for d in 0..self.max_doc {
            starts.push(total);
            if let Some(&(pd, v)) = pairs.get(i) {
                if pd == d {
                    total += v.len() as u64;
                    i += 1;
                }
            }
        }
        starts.push(total);
        self.put_offsets_and_bytes(&starts, pairs.iter().map(|p| p.1))?;
        if pairs.len() < self.max_doc as usize {
            let mut bits = Vec::new();
            put_bits(self.max_doc, pairs.iter().map(|p| p.0), &mut bits);
            Section { offset: self.out.len() as usize, len: bits.len() }.put(&mut self.meta);
            self.out.put(&bits)?;
        }
        Ok(())
    }

    fn put_offsets_and_bytes<'a>(&mut self, starts: &[u64], values: impl Iterator<Item = &'a [u8]>) -> Result<()> {
        let mut packed = Vec::new();
        let bits = pack_min_width(starts, &mut packed);
        self.meta.push(bits);
        Section { offset: self.out.len() as usize, len: packed.len() }.put(&mut self.meta);
        self.out.put(&packed)?;
        let start = self.out.len();
        for v in values {
            self.out.put(v)?;
        }
        Section { offset: start as usize, len: (self.out.len() - start) as usize }.put(&mut self.meta);
        Ok(())
    }

    fn finish(mut self) -> Result<()> {
        let meta_start = self.out.len();
        let mut head = Vec::new();
        put_vu64(&mut head, self.columns);
        self.out.put(&head)?;
        self.out.put(&self.meta)?;
        self.out.put_u64(meta_start)?;
        self.out.finish()?;
        Ok(())
    }
}

fn expect_kind(infos: &FieldInfos, field: u32, kind: DocValuesKind) -> Result<()> {
    match infos.get(field) {
        Some(f) if f.doc_values == kind => Ok(()),
        Some(f) => Err(Error::InvalidArgument(format!(
            "field [{}] has doc values {:?}, was given {kind:?} values",
            f.name, f.doc_values
        ))),
        None => Err(Error::InvalidArgument(format!("doc values for unknown field number {field}"))),
    }
}

/// Writes `{segment}.dvd` from a buffer; returns the file name.
pub fn write_doc_values(
    dir: &dyn Directory,
    seg: &SegmentId,
    infos: &FieldInfos,
    buf: &DocValuesBuffer,
    max_doc: u32,
) -> Result<String> {
    if let Some(m) = &buf.misuse {
        return Err(Error::InvalidArgument(m.clone()));
    }
    let (mut w, name) = ColumnsWriter::create(dir, seg, max_doc)?;
    for (field, fb) in buf.fields.iter().enumerate().filter_map(|(f, fb)| Some((f as u32, fb.as_ref()?))) {
        match fb {
            FieldBuffer::Numeric(pairs) => {
                expect_kind(infos, field, DocValuesKind::SortedNumeric)?;
                let mut p = pairs.clone();
                p.sort_unstable();
                w.numeric(field, &p)?;
            }
            FieldBuffer::SortedSet { terms, pairs, .. } => {
                expect_kind(infos, field, DocValuesKind::SortedSet)?;
                let order = terms.sorted_ids();
                let mut rank = vec![0i64; terms.len()];
                for (ord, &id) in order.iter().enumerate() {
                    rank[id as usize] = ord as i64;
                }
                let mut ords: Vec<(DocId, i64)> = pairs.iter().map(|&(d, id)| (d, rank[id as usize])).collect();
                ords.sort_unstable();
                ords.dedup();
                let sorted: Vec<&[u8]> = order.iter().map(|&id| terms.key(id)).collect();
                w.sorted_set(field, &sorted, &ords)?;
            }
            FieldBuffer::Binary(pairs) => {
                expect_kind(infos, field, DocValuesKind::Binary)?;
                let mut p: Vec<(DocId, &[u8])> = pairs.iter().map(|(d, v)| (*d, v.as_slice())).collect();
                p.sort_by_key(|x| x.0); // stable: the last value set for a doc stays last
                let mut last: Vec<(DocId, &[u8])> = Vec::with_capacity(p.len());
                for x in p {
                    match last.last_mut() {
                        Some(l) if l.0 == x.0 => *l = x,
                        _ => last.push(x),
                    }
                }
                w.binary(field, &last)?;
            }
        }
    }
    w.finish()?;
    Ok(name)
}

/// Writes the merged segment's `{segment}.dvd` from its sources, matching fields by name
/// through each source's field infos; deleted docs (absent from a [`DocMap`]) are dropped.
pub fn merge_doc_values(
    dir: &dyn Directory,
    seg: &SegmentId,
    infos: &FieldInfos,
    sources: &[(&DocValuesReader, &FieldInfos, &DocMap)],
    max_doc: u32,
) -> Result<String> {
    let (mut w, name) = ColumnsWriter::create(dir, seg, max_doc)?;
    let mut vals = Vec::new();
    let mut ords = Vec::new();
    for info in infos.iter() {
        let source_field = |s_infos: &FieldInfos| s_infos.by_name(&info.name).map(|f| f.number);
        match info.doc_values {
            DocValuesKind::None => {}
            DocValuesKind::SortedNumeric => {
                let mut pairs = Vec::new();
                for &(r, s_infos, map) in sources {
                    let Some(col) = source_field(s_infos).and_then(|f| r.numeric(f)) else { continue };
                    for (old, new) in live(map, r.max_doc()) {
                        col.values(old, &mut vals);
                        pairs.extend(vals.iter().map(|&v| (new, v)));
                    }
                }
                pairs.sort_unstable();
                w.numeric(info.number, &pairs)?;
            }
            DocValuesKind::SortedSet => {
                let mut pairs: Vec<(DocId, &[u8])> = Vec::new();
                for &(r, s_infos, map) in sources {
                    let Some(col) = source_field(s_infos).and_then(|f| r.sorted_set(f)) else { continue };
                    for (old, new) in live(map, r.max_doc()) {
                        col.ords(old, &mut ords);
                        for &o in &ords {
                            pairs.push((new, col.lookup_ord(o)?));
                        }
                    }
                }
                let mut terms: Vec<&[u8]> = pairs.iter().map(|p| p.1).collect();
                terms.sort_unstable();
                terms.dedup();
                let mut o: Vec<(DocId, i64)> = pairs
                    .iter()
                    .map(|&(d, t)| {
                        (d, terms.binary_search(&t).expect("every term was collected into the dictionary") as i64)
                    })
                    .collect();
                o.sort_unstable();
                o.dedup();
                w.sorted_set(info.number, &terms, &o)?;
            }
            DocValuesKind::Binary => {
                let mut pairs: Vec<(DocId, &[u8])> = Vec::new();
                for &(r, s_infos, map) in sources {
                    let Some(col) = source_field(s_infos).and_then(|f| r.binary(f)) else { continue };
                    for (old, new) in live(map, r.max_doc()) {
                        if let Some(v) = col.get(old) {
                            pairs.push((new, v));
                        }
                    }
                }
                pairs.sort_by_key(|p| p.0);
                pairs.dedup_by_key(|p| p.0);
                w.binary(info.number, &pairs)?;
            }
        }
    }
    w.finish()?;
    Ok(name)
}

/// The live docs of a source: `(old, new)` for every doc the map keeps.
pub(crate) fn live(map: &DocMap, max_doc: u32) -> impl Iterator<Item = (DocId, DocId)> + '_ {
    (0..max_doc.min(map.new_ids.len() as u32)).filter_map(move |old| map.get(old).map(|new| (old, new)))
}
