//! The Raft log, vote and commit point on disk (`format/raft-log.md`), synchronous core.
//!
//! - `raft-log-{gen}.rlog`: a header, then one record per entry:
//!   `len u32 | payload (the entry as JSON) | crc32(len ‖ payload) u32`, little-endian.
//! - `raft-meta-{gen}.st`: a generational state file (`state_file::Kind`) holding the vote, the
//!   last purged and committed log ids, the live log generation and its durable length.
//!
//! An append writes its records, fsyncs the log, then stores the meta with the new durable
//! length: bytes past the durable length are an unacknowledged tail and are ignored; a record
//! that fails its checksum inside it is corruption, reported with the file and offset. Truncating
//! the tail or purging the head writes a new log generation with the entries kept, then the meta
//! that names it, then deletes the old generation. Files are write-once, so opening starts a new
//! generation too.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::types::{Entry, LogId, Vote};
use crate::cluster::state_file::Kind;
use crate::engine::codec::header::header_len;
use crate::engine::codec::{check_header, write_header};
use crate::engine::store::{Directory, FileWrite};
use crate::engine::{Error, Result};

/// The log file's codec name.
pub const LOG_CODEC: &str = "fathom_raft_log";
/// The log file's format version.
pub const LOG_VERSION: u32 = 1;
/// The meta state files.
pub const META: Kind = Kind { codec: "fathom_raft_meta", prefix: "raft-meta-", what: "raft meta" };
const LOG_PREFIX: &str = "raft-log-";
const LOG_SUFFIX: &str = ".rlog";
/// The largest entry accepted on read (a cluster state is far smaller).
pub const MAX_RECORD: usize = 256 << 20;

/// What the meta file records.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Meta {
    pub log_gen: u64,
    pub durable_len: u64,
    pub vote: Option<Vote>,
    pub committed: Option<LogId>,
    pub purged: Option<LogId>,
}

/// The log in memory and its files.
#[derive(Debug)]
pub struct LogFiles {
    dir: Arc<dyn Directory>,
    pub meta: Meta,
    meta_gen: u64,
    pub entries: BTreeMap<u64, Entry>,
    /// The live generation's writer (set by `open`).
    writer: Option<Box<dyn FileWrite>>,
}

fn log_name(gen: u64) -> String {
    format!("{LOG_PREFIX}{gen}{LOG_SUFFIX}")
}

fn parse_log_gen(name: &str) -> Option<u64> {
    name.strip_prefix(LOG_PREFIX)?.strip_suffix(LOG_SUFFIX)?.parse().ok()
}

/// Appends one record for `entry` to `out`.
pub fn encode_record(out: &mut Vec<u8>, entry: &Entry) -> Result<()> {
    let payload = serde_json::to_vec(entry)
        .map_err(|e| Error::InvalidArgument(format!("raft entry is not serialisable: {e}")))?;
    let len = u32::try_from(payload.len())
        .ok()
        .filter(|l| (*l as usize) <= MAX_RECORD)
        .ok_or_else(|| Error::InvalidArgument(format!("raft entry of {} bytes is too large", payload.len())))?;
    let start = out.len();
    out.extend_from_slice(&len.to_le_bytes());
    out.extend_from_slice(&payload);
    let crc = crc32fast::hash(&out[start..]);
    out.extend_from_slice(&crc.to_le_bytes());
    Ok(())
}

/// Decodes the records of a log file up to `durable_len` bytes. Bytes beyond it are ignored.
pub fn decode_log(bytes: &[u8], file: &str, durable_len: u64) -> Result<Vec<Entry>> {
    let header = check_header(bytes, file, LOG_CODEC, LOG_VERSION, LOG_VERSION, None)?;
    let end = usize::try_from(durable_len).unwrap_or(usize::MAX);
    if end > bytes.len() {
        return Err(Error::corrupt(
            file,
            bytes.len() as u64,
            format!("log is {} bytes but {durable_len} were made durable", bytes.len()),
        ));
    }
    if end < header.len {
        return Err(Error::corrupt(file, 0, "durable length is shorter than the header"));
    }
    let mut at = header.len;
    let mut out = Vec::new();
    while at < end {
        let rest = &bytes[at..end];
        if rest.len() < 8 {
            return Err(Error::corrupt(file, at as u64, "truncated record header"));
        }
        let len = u32::from_le_bytes([rest[0], rest[1], rest[2], rest[3]]) as usize;
        if len > MAX_RECORD || len + 8 > rest.len() {
            return Err(Error::corrupt(file, at as u64, format!("record of {len} bytes runs past the durable end")));
        }
        let body = &rest[..4 + len];
        let stored = u32::from_le_bytes([rest[4 + len], rest[5 + len], rest[6 + len], rest[7 + len]]);
        let actual = crc32fast::hash(body);
        if stored != actual {
            return Err(Error::corrupt(
                file,
                at as u64,
                format!("record checksum mismatch (stored {stored:#010x}, computed {actual:#010x})"),
            ));
        }
        let entry: Entry = serde_json::from_slice(&body[4..])
            .map_err(|e| Error::corrupt(file, at as u64, format!("record is not a raft entry: {e}")))?;
        out.push(entry);
        at += 8 + len;
    }
    Ok(out)
}

impl LogFiles {
    /// Opens the log in `dir` (empty for a new node), verifying everything it reads, and starts a
    /// fresh generation holding the entries kept.
    pub fn open(dir: Arc<dyn Directory>) -> Result<LogFiles> {
        let (meta_gen, meta) = match META.load(&dir)? {
            Some((g, v)) => {
                let m: Meta = serde_json::from_value(v).map_err(|e| {
                    Error::corrupt(META.file_name(g), 0, format!("raft meta has an unexpected shape: {e}"))
                })?;
                (g, m)
            }
            None => (0, Meta::default()),
        };
        let mut entries = BTreeMap::new();
        if meta_gen > 0 && meta.durable_len > 0 {
            let name = log_name(meta.log_gen);
            let bytes = dir.open(&name)?;
            for e in decode_log(&bytes, &name, meta.durable_len)? {
                if meta.purged.is_none_or(|p| e.log_id.index > p.index) {
                    entries.insert(e.log_id.index, e);
                }
            }
        }
        let mut files = LogFiles { dir, meta, meta_gen, entries, writer: None };
        files.rewrite()?;
        files.delete_stale_logs()?;
        Ok(files)
    }

    fn delete_stale_logs(&self) -> Result<()> {
        for name in self.dir.list()? {
            if parse_log_gen(&name).is_some_and(|g| g != self.meta.log_gen) {
                self.dir.delete(&name)?;
            }
        }
        self.dir.sync_dir()
    }

    fn store_meta(&mut self) -> Result<()> {
        let v = serde_json::to_value(&self.meta)
            .map_err(|e| Error::InvalidArgument(format!("raft meta is not serialisable: {e}")))?;
        META.store(&self.dir, self.meta_gen + 1, &v)?;
        self.meta_gen += 1;
        Ok(())
    }

    /// Writes the kept entries to a new generation, makes it durable, then points the meta at
    /// it and deletes the old one.
    fn rewrite(&mut self) -> Result<()> {
        let gen = self.meta.log_gen + 1;
        let name = log_name(gen);
        if self.dir.exists(&name) {
            self.dir.delete(&name)?;
        }
        let mut w = self.dir.create(&name)?;
        let mut buf = Vec::new();
        write_header(&mut buf, LOG_CODEC, LOG_VERSION, &crate::engine::segment::random_id());
        for e in self.entries.values() {
            encode_record(&mut buf, e)?;
        }
        w.write_all(&buf)?;
        w.sync()?;
        self.dir.sync_dir()?;
        let old = self.meta.log_gen;
        self.meta.log_gen = gen;
        self.meta.durable_len = w.len();
        self.store_meta()?;
        self.writer = Some(w);
        if old > 0 && self.dir.exists(&log_name(old)) {
            self.dir.delete(&log_name(old))?;
            self.dir.sync_dir()?;
        }
        Ok(())
    }

    /// Appends entries durably (they are readable in memory before this returns either way).
    pub fn append(&mut self, new: Vec<Entry>) -> Result<()> {
        let mut buf = Vec::new();
        for e in &new {
            encode_record(&mut buf, e)?;
        }
        for e in new {
            self.entries.insert(e.log_id.index, e);
        }
        let w = self.writer.as_mut().ok_or_else(|| Error::InvalidArgument("raft log is not open".into()))?;
        w.write_all(&buf)?;
        w.sync()?;
        self.meta.durable_len = w.len();
        self.store_meta()
    }

    /// Deletes the entries from `log_id.index` on (a conflicting uncommitted tail).
    pub fn truncate(&mut self, log_id: LogId) -> Result<()> {
        self.entries.split_off(&log_id.index);
        self.rewrite()
    }

    /// Forgets the entries up to and including `log_id` (they are in a snapshot).
    pub fn purge(&mut self, log_id: LogId) -> Result<()> {
        let keep = self.entries.split_off(&(log_id.index + 1));
        self.entries = keep;
        self.meta.purged = Some(log_id);
        self.rewrite()
    }

    pub fn save_vote(&mut self, vote: Vote) -> Result<()> {
        self.meta.vote = Some(vote);
        self.store_meta()
    }

    /// Records the commit point; it reaches disk with the next meta write (it only speeds up
    /// applying after a restart, so a stale one is harmless).
    pub fn set_committed(&mut self, committed: Option<LogId>) {
        self.meta.committed = committed;
    }

    /// The last log id present (or purged).
    pub fn last_log_id(&self) -> Option<LogId> {
        self.entries.values().next_back().map(|e| e.log_id).or(self.meta.purged)
    }

    /// The current log generation's file name (tests and `fathom inspect`).
    pub fn log_file(&self) -> String {
        log_name(self.meta.log_gen)
    }

    /// Header length of a log file (the durable length of an empty log).
    pub fn empty_len() -> u64 {
        header_len(LOG_CODEC) as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cluster::coordination::types::{ClusterNode, Command, TypeConfig};
    use crate::engine::store::{CrashMode, FaultyDirectory, RamDirectory};
    use openraft::{CommittedLeaderId, EntryPayload};

    fn entry(term: u64, index: u64) -> Entry {
        let state = Arc::new(serde_json::json!({"i": index}));
        Entry {
            log_id: LogId::new(CommittedLeaderId::new(term, 1), index),
            payload: EntryPayload::Normal(Command::Publish { base_version: index, state }),
        }
    }

    fn indexes(f: &LogFiles) -> Vec<u64> {
        f.entries.keys().copied().collect()
    }

    #[test]
    fn append_truncate_purge_survive_reopen() {
        let dir: Arc<dyn Directory> = Arc::new(RamDirectory::new());
        let mut f = LogFiles::open(dir.clone()).unwrap();
        f.append((1..=5).map(|i| entry(1, i)).collect()).unwrap();
        f.save_vote(Vote::new(3, 1)).unwrap();
        f.truncate(LogId::new(CommittedLeaderId::new(1, 1), 4)).unwrap();
        f.append(vec![entry(2, 4)]).unwrap();
        f.purge(LogId::new(CommittedLeaderId::new(1, 1), 2)).unwrap();
        drop(f);
        let f = LogFiles::open(dir.clone()).unwrap();
        assert_eq!(indexes(&f), vec![3, 4]);
        assert_eq!(f.entries[&4].log_id.leader_id.term, 2);
        assert_eq!(f.meta.vote, Some(Vote::new(3, 1)));
        assert_eq!(f.meta.purged.map(|p| p.index), Some(2));
        let logs: Vec<_> = dir.list().unwrap().into_iter().filter(|n| n.ends_with(LOG_SUFFIX)).collect();
        assert_eq!(logs, vec![f.log_file()]);
        let _ = ClusterNode::default();
        let _ = std::marker::PhantomData::<TypeConfig>;
    }

    #[test]
    fn every_flipped_byte_inside_the_durable_length_is_detected() {
        let dir: Arc<dyn Directory> = Arc::new(RamDirectory::new());
        let mut f = LogFiles::open(dir.clone()).unwrap();
        f.append(vec![entry(1, 1), entry(1, 2)]).unwrap();
        let name = f.log_file();
        let len = f.meta.durable_len;
        let bytes = dir.open(&name).unwrap().to_vec();
        assert_eq!(decode_log(&bytes, &name, len).unwrap().len(), 2);
        // The header's random id (16 bytes before the first record) only tells generations
        // apart when reading a dump; every other byte is checked.
        let id = header_len(LOG_CODEC) - 16..header_len(LOG_CODEC);
        for i in (0..bytes.len()).filter(|i| !id.contains(i)) {
            let mut b = bytes.clone();
            b[i] ^= 0x21;
            assert!(decode_log(&b, &name, len).is_err(), "flip at {i} not detected");
        }
        // A tail past the durable length is not read at all.
        let mut b = bytes.clone();
        b.extend_from_slice(b"garbage");
        assert_eq!(decode_log(&b, &name, len).unwrap().len(), 2);
    }

    /// Crash at every I/O call of an append: after the crash, the log reopens, and an append
    /// that returned is there in full.
    #[test]
    fn crash_at_every_io_keeps_acknowledged_entries() {
        for fail_after in 1..60u64 {
            let faulty = FaultyDirectory::new();
            let d: Arc<dyn Directory> = Arc::new(faulty.clone());
            let mut f = LogFiles::open(d.clone()).unwrap();
            f.append(vec![entry(1, 1)]).unwrap();
            faulty.fail_after(fail_after);
            let ok2 = f.append(vec![entry(1, 2), entry(1, 3)]).is_ok();
            let ok3 = ok2 && f.truncate(LogId::new(CommittedLeaderId::new(1, 1), 3)).is_ok();
            let ok4 = ok3 && f.append(vec![entry(2, 3)]).is_ok();
            drop(f);
            faulty.crash(CrashMode::DropUnsynced);
            let f = match LogFiles::open(d.clone()) {
                Ok(f) => f,
                Err(e) => panic!("reopen failed at fail_after {fail_after}: {e}"),
            };
            let got = indexes(&f);
            assert!(got.starts_with(&[1]), "entry 1 lost at {fail_after}: {got:?}");
            if ok2 && !ok3 {
                assert!(got.starts_with(&[1, 2]), "acknowledged 2 lost at {fail_after}: {got:?}");
            }
            if ok4 {
                assert_eq!(got, vec![1, 2, 3], "at {fail_after}");
                assert_eq!(f.entries[&3].log_id.leader_id.term, 2, "at {fail_after}");
            }
        }
    }
}
