//! Flushes a [`PostingsBuffer`] into a new segment's `.tim`, `.doc` and `.pos`.

use super::serializer::{PostingsSerializer, TermData};
use super::PostingsBuffer;
use crate::engine::segment::{DocId, FieldInfos, IndexOptions, SegmentId};
use crate::engine::store::Directory;
use crate::engine::Result;

/// Writes .tim/.doc/.pos of a new segment; field options come from `infos`; `norms(field, doc)`
/// gives the norm byte (0 = no norm) used for the per-block impacts. Returns the file names
/// written. Fields of the buffer that `infos` does not index are skipped.
pub fn write_postings(
    dir: &dyn Directory,
    seg: &SegmentId,
    infos: &FieldInfos,
    buf: &PostingsBuffer,
    norms: &dyn Fn(u32, DocId) -> u8,
    max_doc: u32,
) -> Result<Vec<String>> {
    let mut ser = PostingsSerializer::create(dir, seg, max_doc, norms)?;
    let (mut docs, mut freqs, mut positions, mut offsets) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for info in infos.iter() {
        if info.index == IndexOptions::None {
            continue;
        }
        let Some(fb) = buf.fields.get(info.number as usize) else { continue };
        if fb.is_empty() {
            continue;
        }
        ser.start_field(info.number, info.index, info.has_norms);
        for id in fb.terms.sorted_ids() {
            let term = fb.terms.key(id);
            buf.decode_term(
                fb,
                id,
                &mut docs,
                &mut freqs,
                &mut positions,
                &mut offsets,
                info.index.has_positions(),
                info.index.has_offsets(),
            );
            ser.add_term(term, &TermData { docs: &docs, freqs: &freqs, positions: &positions, offsets: &offsets })?;
        }
        ser.finish_field(fb.doc_count)?;
    }
    ser.finish()
}
