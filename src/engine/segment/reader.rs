//! A segment opened for reading: every component over memory-mapped files. Opening checks every
//! header and footer structure and verifies the small files in full; [`SegmentReader::check_integrity`]
//! verifies every byte (before merges, on `verify_index`).

use super::doc_values::DocValuesReader;
use super::info::SegmentInfo;
use super::norms::NormsReader;
use super::points::PointsReader;
use super::postings::PostingsReader;
use super::stored::StoredReader;
use super::{FieldInfos, SegmentId};
use crate::engine::store::Directory;
use crate::engine::Result;

/// An open, immutable segment.
#[derive(Debug)]
pub struct SegmentReader {
    /// Name, id, max_doc, files.
    pub info: SegmentInfo,
    /// Field names and numbers of this segment.
    pub field_infos: FieldInfos,
    /// Terms and postings.
    pub postings: PostingsReader,
    /// Field lengths.
    pub norms: NormsReader,
    /// Columns.
    pub doc_values: DocValuesReader,
    /// `_id`, `_source`, `_routing`.
    pub stored: StoredReader,
    /// Numeric, date and ip ranges.
    pub points: PointsReader,
    /// The nested documents (`None`: the segment has none), read from `_nested_path` on open.
    pub nested: Option<super::nested::NestedDocs>,
    /// The segment's identity for per-segment caches (fielddata).
    pub core: crate::engine::query::view::CoreToken,
}

impl SegmentReader {
    /// Opens segment `id` (its `.si` is read and verified first).
    pub fn open(dir: &dyn Directory, id: &SegmentId) -> Result<SegmentReader> {
        let info = SegmentInfo::read(dir, &id.name, &id.id)?;
        let max_doc = info.max_doc;
        let field_infos = FieldInfos::read(dir, id)?;
        let postings = PostingsReader::open(dir, id, &field_infos)?;
        let nested = super::nested::NestedDocs::read(&postings, &field_infos, max_doc)?;
        Ok(SegmentReader {
            postings,
            nested,
            norms: NormsReader::open(dir, id, &field_infos, max_doc)?,
            doc_values: DocValuesReader::open(dir, id, &field_infos, max_doc)?,
            stored: StoredReader::open(dir, id, max_doc)?,
            points: PointsReader::open(dir, id, &field_infos, max_doc)?,
            field_infos,
            info,
            core: Default::default(),
        })
    }

    /// Segment name.
    pub fn name(&self) -> &str {
        &self.info.id.name
    }

    /// The first doc of the block of root document `doc` (its nested documents come first).
    pub fn block_start(&self, doc: u32) -> u32 {
        self.nested.as_ref().map_or(doc, |n| n.block_start(doc))
    }

    /// Documents in the segment, deleted or not.
    pub fn max_doc(&self) -> u32 {
        self.info.max_doc
    }

    /// Every file of the segment, `.si` included.
    pub fn files(&self) -> Vec<String> {
        let mut f: Vec<String> = self.info.files.iter().map(|e| e.name.clone()).collect();
        f.push(self.info.file_name());
        f
    }

    /// Verifies every byte of every file against its checksum.
    pub fn check_integrity(&self, dir: &dyn Directory) -> Result<()> {
        self.info.check_integrity(dir)
    }

    /// The document with `_id == id` for which `is_live` holds (at most one copy of an id is live).
    pub fn find_id(&self, id: &str, is_live: &dyn Fn(u32) -> bool) -> Result<Option<u32>> {
        let Some(f) = self.field_infos.by_name(crate::engine::index::builder::meta::ID) else {
            return Ok(None);
        };
        let Some(terms) = self.postings.field(f.number) else {
            return Ok(None);
        };
        let Some(ti) = terms.seek_exact(id.as_bytes())? else {
            return Ok(None);
        };
        let mut p = terms.postings(&ti, false)?;
        use super::Postings;
        let mut found = None;
        loop {
            let d = p.next();
            if d == super::NO_MORE_DOCS {
                break;
            }
            if is_live(d) {
                found = Some(d);
            }
        }
        if let Some(e) = p.take_error() {
            return Err(e);
        }
        Ok(found)
    }
}
