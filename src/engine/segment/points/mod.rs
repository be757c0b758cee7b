//! Points (`.pts`): per field the sorted run of its fixed-width keys (numbers, dates, ips as
//! sortable bytes), cut into blocks of [`BLOCK`] points whose min and max keys form an index, so a
//! range query binary-searches the index, reads only the blocks that overlap the range and takes
//! fully covered blocks without comparing keys. Layout: `format/points.md`.
//!
//! Keys of one field all have the width `FieldInfo::point_bytes` (4, 8 or 16) and compare as
//! unsigned big-endian byte strings; [`sortable`] turns numbers into such bytes.
//!
//! Order of calls: [`PointsBuffer::add`] in any order; [`write_points`] at flush;
//! [`merge_points`] from the sources' readers (fields matched by name).

mod reader;
pub mod sortable;
mod writer;

pub use reader::{check_file, FieldPoints, PointsReader, Summary};
pub use writer::{merge_points, write_points};

use super::DocId;

/// Codec name in the `.pts` header.
pub const CODEC: &str = "FathomPoints";
/// Current `.pts` format version.
pub const VERSION: u32 = 1;
/// File extension.
pub const EXT: &str = "pts";
/// Points per block (the last block of a field may hold fewer).
pub const BLOCK: usize = 512;
/// Widest key accepted.
pub const MAX_KEY_BYTES: usize = 16;

/// The keys of one field, accumulated before flush.
#[derive(Debug, Default)]
struct FieldBuffer {
    width: usize,
    keys: Vec<u8>,
    docs: Vec<DocId>,
}

/// Accumulates the points of a segment being written.
#[derive(Debug, Default)]
pub struct PointsBuffer {
    /// Per field number (numbers are small and dense: they come from the field infos).
    fields: Vec<Option<FieldBuffer>>,
    mem: usize,
    /// The first misuse (keys of differing or unsupported widths); [`write_points`] reports it.
    misuse: Option<String>,
}

impl PointsBuffer {
    /// An empty buffer.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a key for `doc` (any number per doc). Every key of a field must have the same width,
    /// 1 to [`MAX_KEY_BYTES`] bytes; otherwise [`write_points`] fails.
    pub fn add(&mut self, field: u32, doc: DocId, key: &[u8]) {
        let i = field as usize;
        if i >= self.fields.len() {
            self.fields.resize_with(i + 1, || None);
        }
        let f = self.fields[i].get_or_insert_with(|| FieldBuffer { width: key.len(), ..FieldBuffer::default() });
        if key.len() != f.width || key.is_empty() || key.len() > MAX_KEY_BYTES {
            if self.misuse.is_none() {
                self.misuse = Some(format!(
                    "point of field {field} has {} bytes, expected {} (1 to {MAX_KEY_BYTES})",
                    key.len(),
                    f.width
                ));
            }
            return;
        }
        f.keys.extend_from_slice(key);
        f.docs.push(doc);
        self.mem += key.len() + 4;
    }

    /// Approximate heap bytes held.
    pub fn mem_bytes(&self) -> usize {
        self.mem
    }
}

#[cfg(test)]
mod tests;
