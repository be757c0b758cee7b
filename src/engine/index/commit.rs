//! Commit points (`segments_N`): the list of segments that make up the durable index, with their
//! live-docs generations, and the shard's user data (max seq_no, local checkpoint, translog uuid and
//! generation, history uuid). Layout and crash analysis: `format/commit-point.md`.
//!
//! Writing a commit (the order is the crash analysis; see the format page for each case):
//!
//! 1. every segment and live-docs file named by the commit was fsynced when it was written;
//! 2. `sync_dir` makes their names durable;
//! 3. `pending_segments_N` is written and fsynced;
//! 4. it is renamed to `segments_N` (atomic replace of nothing: N is new);
//! 5. `sync_dir` makes the rename durable. Only now is the commit acknowledged.
//!
//! Opening: the highest `N` whose `segments_N` exists is the commit. It is verified in full; a
//! damaged latest commit is an error naming it, never a silent fall-back to an older one (that
//! would lose acknowledged flushes whose translog was already trimmed).

use std::collections::BTreeMap;

use crate::engine::codec::{check_footer, check_header, put_bytes, put_vu64, ByteReader, IndexOutput};
use crate::engine::segment::SegmentId;
use crate::engine::store::Directory;
use crate::engine::{Error, Result};

/// Codec name in the commit point header.
pub const CODEC: &str = "FathomCommit";
/// Current commit point format version.
pub const VERSION: u32 = 1;
/// File name prefix of commit points.
pub const PREFIX: &str = "segments_";
/// File name prefix of a commit being written.
pub const PENDING_PREFIX: &str = "pending_segments_";

/// User-data keys, as OpenSearch names them in Lucene's commit user data.
pub mod keys {
    pub const MAX_SEQ_NO: &str = "max_seq_no";
    pub const LOCAL_CHECKPOINT: &str = "local_checkpoint";
    pub const TRANSLOG_UUID: &str = "translog_uuid";
    pub const TRANSLOG_GENERATION: &str = "translog_generation";
    pub const HISTORY_UUID: &str = "history_uuid";
    pub const MAX_UNSAFE_AUTO_ID_TIMESTAMP: &str = "max_unsafe_auto_id_timestamp";
    pub const MIN_RETAINED_SEQ_NO: &str = "min_retained_seq_no";
}

/// One segment as a commit references it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommitSegment {
    /// Name and id (the id is checked against the segment's `.si`).
    pub id: SegmentId,
    /// Documents in the segment.
    pub max_doc: u32,
    /// Live-docs generation (0: no deletes, no `.liv` file).
    pub del_gen: u64,
    /// Deleted documents in that generation.
    pub del_count: u32,
}

/// A commit point.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct CommitPoint {
    /// `N` of `segments_N`.
    pub generation: u64,
    /// Incremented by every change to the segment list, for readers to compare.
    pub version: u64,
    /// The next segment number to hand out (segment names never repeat).
    pub counter: u64,
    /// The segments, in order.
    pub segments: Vec<CommitSegment>,
    /// String pairs the shard stores (see [`keys`]).
    pub user_data: BTreeMap<String, String>,
}

/// The file name of commit generation `gen` (`segments_` + base 36, as Lucene).
pub fn file_name(gen: u64) -> String {
    format!("{PREFIX}{}", crate::engine::segment::segment_name(gen).trim_start_matches('_'))
}

/// Parses the generation out of a `segments_N` name.
pub fn parse_generation(name: &str) -> Option<u64> {
    let digits = name.strip_prefix(PREFIX)?;
    if digits.is_empty() {
        return None;
    }
    u64::from_str_radix(digits, 36).ok()
}

impl CommitPoint {
    /// The file name of this commit.
    pub fn file_name(&self) -> String {
        file_name(self.generation)
    }

    /// A user-data value parsed as i64.
    pub fn user_i64(&self, key: &str) -> Option<i64> {
        self.user_data.get(key)?.parse().ok()
    }

    fn encode(&self, out: &mut Vec<u8>) {
        put_vu64(out, self.generation);
        put_vu64(out, self.version);
        put_vu64(out, self.counter);
        put_vu64(out, self.segments.len() as u64);
        for s in &self.segments {
            put_bytes(out, s.id.name.as_bytes());
            out.extend_from_slice(&s.id.id);
            put_vu64(out, s.max_doc as u64);
            put_vu64(out, s.del_gen);
            put_vu64(out, s.del_count as u64);
        }
        put_vu64(out, self.user_data.len() as u64);
        for (k, v) in &self.user_data {
            put_bytes(out, k.as_bytes());
            put_bytes(out, v.as_bytes());
        }
    }

    /// Verifies and decodes a whole commit point image (the fuzz entry point).
    pub fn decode_file(bytes: &[u8], file: &str) -> Result<CommitPoint> {
        let body = check_footer(bytes, file)?;
        let h = check_header(body, file, CODEC, VERSION, VERSION, None)?;
        let mut r = ByteReader::at(&body[h.len..], h.len as u64);
        let parse = |r: &mut ByteReader<'_>| -> Result<CommitPoint> {
            let generation = r.vu64()?;
            let version = r.vu64()?;
            let counter = r.vu64()?;
            let n = r.len(r.remaining())?;
            let mut segments = Vec::with_capacity(n.min(1024));
            for _ in 0..n {
                let name = r.string()?.to_string();
                if !name.starts_with('_') || name.len() < 2 || name.contains(['/', '.']) {
                    return Err(r.error(format!("invalid segment name [{name}]")));
                }
                let mut id = [0u8; 16];
                id.copy_from_slice(r.take(16)?);
                let max_doc = r.vu64()?;
                let del_gen = r.vu64()?;
                let del_count = r.vu64()?;
                if max_doc > i32::MAX as u64 || del_count > max_doc {
                    return Err(
                        r.error(format!("segment [{name}]: del_count {del_count} / max_doc {max_doc} out of range"))
                    );
                }
                segments.push(CommitSegment {
                    id: SegmentId { name, id },
                    max_doc: max_doc as u32,
                    del_gen,
                    del_count: del_count as u32,
                });
            }
            let n = r.len(r.remaining())?;
            let mut user_data = BTreeMap::new();
            for _ in 0..n {
                let k = r.string()?.to_string();
                let v = r.string()?.to_string();
                user_data.insert(k, v);
            }
            if !r.is_empty() {
                return Err(r.error(format!("{} trailing bytes", r.remaining())));
            }
            Ok(CommitPoint { generation, version, counter, segments, user_data })
        };
        let cp = parse(&mut r).map_err(|e| e.in_file(file))?;
        if parse_generation(file.rsplit('/').next().unwrap_or(file)).is_some_and(|g| g != cp.generation) {
            return Err(Error::corrupt(
                file,
                0,
                format!("commit generation {} differs from its file name", cp.generation),
            ));
        }
        Ok(cp)
    }

    /// Writes this commit durably (steps 2–5 of the module docs). The caller has fsynced every
    /// file the commit references.
    pub fn write(&self, dir: &dyn Directory) -> Result<()> {
        dir.sync_dir()?;
        let pending = format!("{PENDING_PREFIX}{}", self.generation);
        if dir.exists(&pending) {
            dir.delete(&pending)?;
        }
        let mut out = IndexOutput::create(dir, &pending, CODEC, VERSION, &crate::engine::segment::random_id())?;
        let mut body = Vec::new();
        self.encode(&mut body);
        out.put(&body)?;
        out.finish()?;
        dir.rename(&pending, &self.file_name())?;
        dir.sync_dir()
    }

    /// The files this commit needs: itself, every segment's files (from its `.si`), and live docs.
    pub fn files(&self, dir: &dyn Directory) -> Result<Vec<String>> {
        let mut files = vec![self.file_name()];
        for s in &self.segments {
            let info = crate::engine::segment::info::SegmentInfo::read(dir, &s.id.name, &s.id.id)?;
            files.push(info.file_name());
            files.extend(info.files.into_iter().map(|f| f.name));
            if s.del_gen > 0 {
                files.push(live_docs_file(&s.id, s.del_gen));
            }
        }
        Ok(files)
    }
}

/// The live-docs file of `seg` at generation `gen`: `{seg}_{gen base 36}.liv`.
pub fn live_docs_file(seg: &SegmentId, gen: u64) -> String {
    format!("{}_{}.liv", seg.name, crate::engine::segment::segment_name(gen).trim_start_matches('_'))
}

/// The generations of every `segments_N` in `dir`, ascending.
pub fn list_generations(dir: &dyn Directory) -> Result<Vec<u64>> {
    let mut gens: Vec<u64> = dir.list()?.iter().filter_map(|n| parse_generation(n)).collect();
    gens.sort_unstable();
    Ok(gens)
}

/// Reads the latest commit, or `None` in an empty directory. Leftover `pending_segments_*` files
/// (a crash during step 3 or 4) are ignored here and deleted by the writer on open.
pub fn read_latest(dir: &dyn Directory) -> Result<Option<CommitPoint>> {
    let Some(&gen) = list_generations(dir)?.last() else {
        return Ok(None);
    };
    let name = file_name(gen);
    let bytes = dir.open(&name)?;
    CommitPoint::decode_file(&bytes, &name).map(Some)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::store::{CrashMode, FaultyDirectory, RamDirectory};

    fn sample(gen: u64) -> CommitPoint {
        let mut user_data = BTreeMap::new();
        user_data.insert(keys::MAX_SEQ_NO.to_string(), "41".to_string());
        user_data.insert(keys::LOCAL_CHECKPOINT.to_string(), "41".to_string());
        CommitPoint {
            generation: gen,
            version: 7,
            counter: 3,
            segments: vec![CommitSegment {
                id: SegmentId { name: "_2".into(), id: [5; 16] },
                max_doc: 10,
                del_gen: 1,
                del_count: 2,
            }],
            user_data,
        }
    }

    #[test]
    fn names_round_trip() {
        assert_eq!(file_name(1), "segments_1");
        assert_eq!(file_name(36), "segments_10");
        assert_eq!(parse_generation("segments_10"), Some(36));
        assert_eq!(parse_generation("segments_"), None);
        assert_eq!(parse_generation("pending_segments_1"), None);
    }

    #[test]
    fn write_and_read_latest() {
        let dir = RamDirectory::new();
        assert_eq!(read_latest(&dir).unwrap(), None);
        sample(1).write(&dir).unwrap();
        sample(2).write(&dir).unwrap();
        assert_eq!(read_latest(&dir).unwrap().unwrap(), sample(2));
        assert_eq!(sample(2).user_i64(keys::MAX_SEQ_NO), Some(41));
    }

    #[test]
    fn damaged_latest_commit_is_an_error_naming_it() {
        let dir = RamDirectory::new();
        sample(1).write(&dir).unwrap();
        sample(2).write(&dir).unwrap();
        let mut b = dir.open("segments_2").unwrap().to_vec();
        let mid = b.len() / 2;
        b[mid] ^= 0xff;
        dir.overwrite("segments_2", b);
        let e = read_latest(&dir).unwrap_err();
        assert_eq!(e.file(), Some("segments_2"), "{e}");
        assert!(e.is_corruption());
    }

    /// Crash at every I/O call of a commit: afterwards the latest commit is either the old one or
    /// the new one, complete, never a damaged file.
    #[test]
    fn crash_at_every_step_leaves_old_or_new_commit() {
        let probe = FaultyDirectory::new();
        sample(1).write(&probe).unwrap();
        let before = probe.io_count();
        sample(2).write(&probe).unwrap();
        let steps = probe.io_count() - before;
        for n in 1..=steps + 1 {
            for mode in [CrashMode::DropUnsynced, CrashMode::TornTail { seed: n }] {
                let dir = FaultyDirectory::new();
                sample(1).write(&dir).unwrap();
                dir.fail_after(n);
                let acked = sample(2).write(&dir).is_ok();
                dir.crash(mode);
                let got = read_latest(&dir).unwrap().unwrap();
                if acked {
                    assert_eq!(got, sample(2), "step {n}: acknowledged commit lost");
                } else {
                    assert!(got == sample(1) || got == sample(2), "step {n}");
                }
            }
        }
    }
}
