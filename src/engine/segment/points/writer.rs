//! Writing a `.pts` file: from a [`PointsBuffer`] at flush, or from source readers at merge.
//! Both sort a field's `(key, doc)` pairs and call [`FieldsWriter::field`].

use super::{PointsBuffer, PointsReader, BLOCK, CODEC, EXT, MAX_KEY_BYTES, VERSION};
use crate::engine::codec::bitpack::{bits_needed, pack64};
use crate::engine::codec::{put_vu64, IndexOutput};
use crate::engine::segment::doc_values::packed::Section;
use crate::engine::segment::{DocId, DocMap, FieldInfos, SegmentId};
use crate::engine::store::Directory;
use crate::engine::{Error, Result};

/// A key padded to [`MAX_KEY_BYTES`] with zeros (order-preserving among keys of one width).
pub(super) type Key = [u8; MAX_KEY_BYTES];

struct FieldsWriter {
    out: IndexOutput,
    meta: Vec<u8>,
    fields: u64,
    max_doc: u32,
}

fn common_prefix(a: &[u8], b: &[u8]) -> usize {
    a.iter().zip(b).take_while(|(x, y)| x == y).count()
}

impl FieldsWriter {
    fn create(dir: &dyn Directory, seg: &SegmentId, max_doc: u32) -> Result<(Self, String)> {
        let name = seg.file(EXT);
        let out = IndexOutput::create(dir, &name, CODEC, VERSION, &seg.id)?;
        Ok((FieldsWriter { out, meta: Vec::new(), fields: 0, max_doc }, name))
    }

    /// Writes one field; `points` are sorted here.
    fn field(&mut self, field: u32, width: usize, points: &mut [(Key, DocId)]) -> Result<()> {
        if points.is_empty() {
            return Ok(());
        }
        if let Some(&(_, d)) = points.iter().find(|p| p.1 >= self.max_doc) {
            return Err(Error::InvalidArgument(format!(
                "point of field {field} for doc {d} >= max_doc {}",
                self.max_doc
            )));
        }
        points.sort_unstable();
        let n = points.len();
        // Index entries and block suffixes.
        let mut index = Vec::new();
        let mut blocks = Vec::new();
        for chunk in points.chunks(BLOCK) {
            let min = &chunk[0].0[..width];
            let max = &chunk[chunk.len() - 1].0[..width];
            let prefix = common_prefix(min, max);
            index.extend_from_slice(min);
            index.extend_from_slice(max);
            index.push(prefix as u8);
            index.extend_from_slice(&(blocks.len() as u64).to_le_bytes());
            for (k, _) in chunk {
                blocks.extend_from_slice(&k[prefix..width]);
            }
        }
        let doc_bits = bits_needed(self.max_doc.saturating_sub(1) as u64);
        let docs: Vec<u64> = points.iter().map(|p| p.1 as u64).collect();
        let mut packed = Vec::new();
        pack64(&docs, doc_bits, &mut packed);
        let mut distinct = docs.clone();
        distinct.sort_unstable();
        distinct.dedup();

        let m = &mut self.meta;
        put_vu64(m, field as u64);
        m.push(width as u8);
        put_vu64(m, n as u64);
        put_vu64(m, distinct.len() as u64);
        m.push(doc_bits);
        m.extend_from_slice(&points[0].0[..width]);
        m.extend_from_slice(&points[n - 1].0[..width]);
        for part in [&index, &blocks, &packed] {
            Section { offset: self.out.len() as usize, len: part.len() }.put(&mut self.meta);
            self.out.put(part)?;
        }
        self.fields += 1;
        Ok(())
    }

    fn finish(mut self) -> Result<()> {
        let meta_start = self.out.len();
        let mut head = Vec::new();
        put_vu64(&mut head, self.fields);
        self.out.put(&head)?;
        self.out.put(&self.meta)?;
        self.out.put_u64(meta_start)?;
        self.out.finish()?;
        Ok(())
    }
}

fn check_width(infos: &FieldInfos, field: u32, width: usize) -> Result<()> {
    match infos.get(field) {
        Some(f) if f.point_bytes as usize == width => Ok(()),
        Some(f) => Err(Error::InvalidArgument(format!(
            "field [{}] has {}-byte points, was given {width}-byte keys",
            f.name, f.point_bytes
        ))),
        None => Err(Error::InvalidArgument(format!("points for unknown field number {field}"))),
    }
}

/// Writes `{segment}.pts` from a buffer; returns the file name.
pub fn write_points(
    dir: &dyn Directory,
    seg: &SegmentId,
    infos: &FieldInfos,
    buf: &PointsBuffer,
    max_doc: u32,
) -> Result<String> {
    if let Some(m) = &buf.misuse {
        return Err(Error::InvalidArgument(m.clone()));
    }
    let (mut w, name) = FieldsWriter::create(dir, seg, max_doc)?;
    for (field, fb) in buf.fields.iter().enumerate().filter_map(|(f, fb)| Some((f as u32, fb.as_ref()?))) {
        check_width(infos, field, fb.width)?;
        let mut points: Vec<(Key, DocId)> = fb
            .keys
            .chunks_exact(fb.width)
            .zip(&fb.docs)
            .map(|(k, &d)| {
                let mut key = [0u8; MAX_KEY_BYTES];
                key[..k.len()].copy_from_slice(k);
                (key, d)
            })
            .collect();
        w.field(field, fb.width, &mut points)?;
    }
    w.finish()?;
    Ok(name)
}

/// Writes the merged segment's `{segment}.pts` from its sources, matching fields by name;
/// deleted docs (absent from a [`DocMap`]) are dropped.
pub fn merge_points(
    dir: &dyn Directory,
    seg: &SegmentId,
    infos: &FieldInfos,
    sources: &[(&PointsReader, &FieldInfos, &DocMap)],
    max_doc: u32,
) -> Result<String> {
    let (mut w, name) = FieldsWriter::create(dir, seg, max_doc)?;
    for info in infos.iter().filter(|f| f.point_bytes > 0) {
        let width = info.point_bytes as usize;
        let mut points = Vec::new();
        for &(r, s_infos, map) in sources {
            let Some(fp) = s_infos.by_name(&info.name).and_then(|f| r.field(f.number)) else { continue };
            if fp.width() != width {
                return Err(Error::InvalidArgument(format!(
                    "field [{}] has {}-byte points in a source, {width} in the merge",
                    info.name,
                    fp.width()
                )));
            }
            fp.for_each_point(&mut |k, old| {
                if let Some(new) = map.get(old) {
                    let mut key = [0u8; MAX_KEY_BYTES];
                    key[..width].copy_from_slice(k);
                    points.push((key, new));
                }
            })?;
        }
        w.field(info.number, width, &mut points)?;
    }
    w.finish()?;
    Ok(name)
}
