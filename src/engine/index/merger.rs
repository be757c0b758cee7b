//! Merging segments: every component of the merged segment is written from the readers of its
//! sources, skipping deleted documents (doc ids are renumbered by [`DocMap`]s). Sources are
//! verified in full first, so a merge never spreads corruption into a new segment with a fresh
//! checksum.

use std::collections::BTreeMap;

use crate::engine::segment::doc_values::merge_doc_values;
use crate::engine::segment::info::{file_entries, SegmentInfo};
use crate::engine::segment::live_docs::LiveDocs;
use crate::engine::segment::norms::{merge_norms, NormsReader};
use crate::engine::segment::points::merge_points;
use crate::engine::segment::postings::merge_postings;
use crate::engine::segment::reader::SegmentReader;
use crate::engine::segment::stored::merge_stored;
use crate::engine::segment::{DocId, DocMap, FieldInfos, SegmentId};
use crate::engine::store::Directory;
use crate::engine::Result;

/// The result of a merge.
#[derive(Debug)]
pub struct MergeOutput {
    /// The new segment's info (its files are written and fsynced).
    pub info: SegmentInfo,
    /// For each source, where its documents went.
    pub doc_maps: Vec<DocMap>,
}

/// Merges `sources` (each with the live docs as of the merge start) into segment `seg`.
pub fn merge(dir: &dyn Directory, sources: &[(&SegmentReader, &LiveDocs)], seg: &SegmentId) -> Result<MergeOutput> {
    for (r, _) in sources {
        r.check_integrity(dir)?;
    }
    let max_docs: Vec<u32> = sources.iter().map(|(r, _)| r.max_doc()).collect();
    let (doc_maps, max_doc) = DocMap::concatenate(&max_docs, |s, d| sources[s].1.is_live(d));

    let mut infos = FieldInfos::new();
    for (r, _) in sources {
        for f in r.field_infos.iter() {
            infos.add_or_widen(&f.name, f.index, f.has_norms, f.doc_values, f.point_bytes)?;
        }
    }

    // new doc -> (source, old doc), for the norms lookup of the postings merge.
    let mut origin: Vec<(u32, DocId)> = vec![(0, 0); max_doc as usize];
    for (s, m) in doc_maps.iter().enumerate() {
        for (old, &new) in m.new_ids.iter().enumerate() {
            if let Some(slot) = origin.get_mut(new as usize) {
                *slot = (s as u32, old as DocId);
            }
        }
    }
    // merged field number -> per source field number.
    let field_map: Vec<Vec<Option<u32>>> = infos
        .iter()
        .map(|f| sources.iter().map(|(r, _)| r.field_infos.by_name(&f.name).map(|x| x.number)).collect())
        .collect();

    let mut files = vec![infos.write(dir, seg)?];
    let norm_sources: Vec<(&NormsReader, &FieldInfos, &DocMap)> =
        sources.iter().zip(&doc_maps).map(|((r, _), m)| (&r.norms, &r.field_infos, m)).collect();
    files.push(merge_norms(dir, seg, &infos, &norm_sources, max_doc)?);
    let norms = |field: u32, doc: DocId| -> u8 {
        let Some(&(s, old)) = origin.get(doc as usize) else { return 0 };
        let Some(Some(sf)) = field_map.get(field as usize).map(|v| v[s as usize]) else { return 0 };
        sources[s as usize].0.norms.field(sf).and_then(|n| n.get(old as usize).copied()).unwrap_or(0)
    };
    let postings: Vec<_> = sources.iter().zip(&doc_maps).map(|((r, _), m)| (&r.postings, &r.field_infos, m)).collect();
    files.extend(merge_postings(dir, seg, &infos, &postings, &norms, max_doc)?);
    let dv: Vec<_> = sources.iter().zip(&doc_maps).map(|((r, _), m)| (&r.doc_values, &r.field_infos, m)).collect();
    files.push(merge_doc_values(dir, seg, &infos, &dv, max_doc)?);
    let pts: Vec<_> = sources.iter().zip(&doc_maps).map(|((r, _), m)| (&r.points, &r.field_infos, m)).collect();
    files.push(merge_points(dir, seg, &infos, &pts, max_doc)?);
    let st: Vec<_> = sources.iter().zip(&doc_maps).map(|((r, _), m)| (&r.stored, m)).collect();
    files.push(merge_stored(dir, seg, &st)?);

    let mut diagnostics = BTreeMap::new();
    diagnostics.insert("source".to_string(), "merge".to_string());
    diagnostics.insert("timestamp".to_string(), crate::clock::now_millis().to_string());
    diagnostics.insert(
        "merged_from".to_string(),
        sources.iter().map(|(r, _)| r.name().to_string()).collect::<Vec<_>>().join(","),
    );
    let info = SegmentInfo { id: seg.clone(), max_doc, files: file_entries(dir, &files)?, diagnostics };
    info.write(dir)?;
    Ok(MergeOutput { info, doc_maps })
}
