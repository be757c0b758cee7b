//! The node's metadata on disk: `{path.data}/nodes/0/_state/metadata-{gen}.st` (see
//! `format/metadata-state.md`). Each update writes generation `gen + 1` as a pending file, fsyncs
//! it, renames it into place, fsyncs the directory, then deletes older generations. Opening picks
//! the highest generation and verifies its header and CRC footer in full.

use std::sync::Arc;

use serde_json::Value;

use crate::engine::codec::{check_footer, check_header, IndexOutput};
use crate::engine::store::Directory;
use crate::engine::{Error, Result};

/// Codec name in the header.
pub const CODEC: &str = "fathom_metadata";
/// Current format version.
pub const VERSION: u32 = 1;
const SUFFIX: &str = ".st";

/// One family of generational state files: its codec name and file-name prefix. The node's
/// metadata is [`METADATA`]; the coordination layer keeps its Raft vote and snapshot the same way
/// (`format/raft-state.md`).
#[derive(Debug, Clone, Copy)]
pub struct Kind {
    pub codec: &'static str,
    /// `{prefix}{gen}.st`; pending files are `pending_{prefix}{gen}.st`.
    pub prefix: &'static str,
    /// What the body holds, for error messages.
    pub what: &'static str,
}

/// The node's metadata (`format/metadata-state.md`).
pub const METADATA: Kind = Kind { codec: CODEC, prefix: "metadata-", what: "metadata" };

impl Kind {
    /// The file name of generation `gen`.
    pub fn file_name(&self, gen: u64) -> String {
        format!("{}{gen}{SUFFIX}", self.prefix)
    }

    fn pending(&self, gen: u64) -> String {
        format!("pending_{}{gen}{SUFFIX}", self.prefix)
    }

    fn parse_gen(&self, name: &str) -> Option<u64> {
        name.strip_prefix(self.prefix)?.strip_suffix(SUFFIX)?.parse().ok()
    }

    /// Reads the newest generation: `(gen, json)`, or `None` when there is none. Leftover
    /// pending files (a crash before the rename) are deleted.
    pub fn load(&self, dir: &Arc<dyn Directory>) -> Result<Option<(u64, Value)>> {
        let pending = format!("pending_{}", self.prefix);
        let mut best: Option<u64> = None;
        for name in dir.list()? {
            if name.starts_with(&pending) {
                dir.delete(&name)?;
                continue;
            }
            if let Some(g) = self.parse_gen(&name) {
                best = Some(best.map_or(g, |b| b.max(g)));
            }
        }
        let Some(gen) = best else { return Ok(None) };
        let name = self.file_name(gen);
        let bytes = dir.open(&name)?;
        Ok(Some((gen, self.decode(&bytes, &name)?)))
    }

    /// Decodes and verifies one state file.
    pub fn decode(&self, bytes: &[u8], file: &str) -> Result<Value> {
        let header = check_header(bytes, file, self.codec, VERSION, VERSION, None)?;
        let body = check_footer(bytes, file)?;
        let json = body
            .get(header.len..)
            .ok_or_else(|| Error::corrupt(file, header.len as u64, "body shorter than its header"))?;
        serde_json::from_slice(json).map_err(|e| {
            Error::corrupt(file, header.len as u64 + e.column() as u64, format!("{} is not valid JSON: {e}", self.what))
        })
    }

    /// Writes generation `gen` durably and removes older generations.
    pub fn store(&self, dir: &Arc<dyn Directory>, gen: u64, state: &Value) -> Result<()> {
        let pending = self.pending(gen);
        if dir.exists(&pending) {
            dir.delete(&pending)?;
        }
        let mut out =
            IndexOutput::create(dir.as_ref(), &pending, self.codec, VERSION, &crate::engine::segment::random_id())?;
        let body = serde_json::to_vec(state)
            .map_err(|e| Error::InvalidArgument(format!("{} is not serialisable: {e}", self.what)))?;
        out.put(&body)?;
        out.finish()?;
        dir.rename(&pending, &self.file_name(gen))?;
        dir.sync_dir()?;
        for name in dir.list()? {
            if self.parse_gen(&name).is_some_and(|g| g < gen) {
                dir.delete(&name)?;
            }
        }
        Ok(())
    }
}

/// The file name of metadata generation `gen`.
pub fn file_name(gen: u64) -> String {
    METADATA.file_name(gen)
}

/// Reads the newest metadata generation: `(gen, json)`, or `None` for an empty directory.
pub fn load(dir: &Arc<dyn Directory>) -> Result<Option<(u64, Value)>> {
    METADATA.load(dir)
}

/// Decodes and verifies one metadata state file.
pub fn decode(bytes: &[u8], file: &str) -> Result<Value> {
    METADATA.decode(bytes, file)
}

/// Writes metadata generation `gen` durably and removes older generations.
pub fn store(dir: &Arc<dyn Directory>, gen: u64, state: &Value) -> Result<()> {
    METADATA.store(dir, gen, state)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::store::{CrashMode, FaultyDirectory, RamDirectory};
    use serde_json::json;

    #[test]
    fn round_trip_keeps_newest() {
        let dir: Arc<dyn Directory> = Arc::new(RamDirectory::new());
        assert!(load(&dir).unwrap().is_none());
        store(&dir, 1, &json!({"a": 1})).unwrap();
        store(&dir, 2, &json!({"a": 2})).unwrap();
        let (g, v) = load(&dir).unwrap().unwrap();
        assert_eq!((g, v), (2, json!({"a": 2})));
        assert_eq!(dir.list().unwrap(), vec![file_name(2)]);
    }

    #[test]
    fn every_flipped_byte_is_detected() {
        let dir: Arc<dyn Directory> = Arc::new(RamDirectory::new());
        store(&dir, 7, &json!({"indices": {"x": {"uuid": "abc"}}})).unwrap();
        let bytes = dir.open(&file_name(7)).unwrap().to_vec();
        for i in 0..bytes.len() {
            let mut b = bytes.clone();
            b[i] ^= 0x40;
            assert!(decode(&b, "f").is_err(), "flip at {i} not detected");
        }
        for n in 0..bytes.len() {
            assert!(decode(&bytes[..n], "f").is_err());
        }
    }

    #[test]
    fn crash_at_every_io_keeps_old_or_new() {
        for fail_after in 1..40u64 {
            let faulty = FaultyDirectory::new();
            let d: Arc<dyn Directory> = Arc::new(faulty.clone());
            store(&d, 1, &json!({"v": 1})).unwrap();
            faulty.fail_after(fail_after);
            let ok = store(&d, 2, &json!({"v": 2})).is_ok();
            faulty.crash(CrashMode::DropUnsynced);
            let (_, v) = load(&d).unwrap().unwrap();
            if ok {
                assert_eq!(v, json!({"v": 2}), "acknowledged store lost at fail_after {fail_after}");
            } else {
                assert!(v == json!({"v": 1}) || v == json!({"v": 2}), "{v}");
            }
        }
    }
}
