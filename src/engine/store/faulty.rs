//! A fault-injecting in-memory directory that models power loss.
//!
//! Files are inodes with an append-only byte vector and a *durable length*: [`FileWrite::sync`]
//! moves the durable length to the end. Names live in two maps: the *volatile* namespace that
//! the running process sees and the *durable* namespace that survives a crash;
//! [`Directory::sync_dir`] copies the volatile entries of that directory into the durable map.
//! [`FaultyDirectory::crash`] throws away everything not made durable, exactly like a power cut
//! on a file system that honours fsync and nothing more (the LazyFS model).
//!
//! It can also fail the N-th I/O call ([`FaultyDirectory::fail_after`]): that call and every
//! later one return [`Error::Injected`] until the next crash, as if the process died there.
//! Writers opened before a crash fail forever after it (their process is gone).
//!
//! Several directories (say `index/` and `translog/` of one shard) can share one fault state
//! through [`FaultyDirectory::sub`], so that "the N-th I/O call" counts across all of them.

use std::collections::{BTreeMap, HashMap};

use super::{Directory, FileBytes, FileWrite};
use crate::engine::sync::{lock, Arc, Mutex};
use crate::engine::{Error, Result};

/// What a crash keeps of the bytes written but not fsynced.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CrashMode {
    /// Every un-fsynced byte and un-synced directory entry is lost.
    DropUnsynced,
    /// Un-synced directory entries are lost; of each file's un-fsynced tail a seeded random
    /// prefix survives (a torn write), possibly cut mid-record.
    TornTail { seed: u64 },
}

#[derive(Debug, Default)]
struct Inode {
    data: Vec<u8>,
    durable_len: usize,
}

#[derive(Debug, Default)]
struct State {
    epoch: u64,
    next_inode: u64,
    inodes: HashMap<u64, Inode>,
    names: BTreeMap<String, u64>,
    durable_names: BTreeMap<String, u64>,
    ops: u64,
    fail_at: Option<u64>,
    failed: bool,
    crashes: u64,
}

impl State {
    /// Counts one I/O call and decides whether it fails.
    fn tick(&mut self, file: &str, op: &'static str) -> Result<()> {
        self.ops += 1;
        if self.failed {
            return Err(Error::Injected { file: file.to_string(), op });
        }
        if self.fail_at == Some(self.ops) {
            self.failed = true;
            return Err(Error::Injected { file: file.to_string(), op });
        }
        Ok(())
    }
}

/// A power-loss-simulating directory (see the module docs).
#[derive(Debug, Clone)]
pub struct FaultyDirectory {
    state: Arc<Mutex<State>>,
    prefix: String,
}

impl Default for FaultyDirectory {
    fn default() -> Self {
        FaultyDirectory::new()
    }
}

impl FaultyDirectory {
    /// An empty directory with no fault scheduled.
    pub fn new() -> FaultyDirectory {
        FaultyDirectory { state: Arc::new(Mutex::new(State::default())), prefix: String::new() }
    }

    /// A sibling directory named `name` sharing this one's fault state and crash.
    pub fn sub(&self, name: &str) -> FaultyDirectory {
        FaultyDirectory { state: self.state.clone(), prefix: format!("{}{}/", self.prefix, name) }
    }

    /// Makes the `n`-th I/O call from now (1-based) fail, and every call after it.
    pub fn fail_after(&self, n: u64) {
        let mut s = lock(&self.state);
        s.fail_at = Some(s.ops + n.max(1));
    }

    /// The number of I/O calls so far (to size a crash-point sweep).
    pub fn io_count(&self) -> u64 {
        lock(&self.state).ops
    }

    /// Whether the scheduled fault has fired.
    pub fn has_failed(&self) -> bool {
        lock(&self.state).failed
    }

    /// Simulates a power loss: forgets everything not durable (per `mode`), clears the fault,
    /// and invalidates every writer opened before.
    pub fn crash(&self, mode: CrashMode) {
        let mut s = lock(&self.state);
        let mut rng = match mode {
            CrashMode::TornTail { seed } => Some(SplitMix64(seed ^ s.crashes.wrapping_mul(0x9E37_79B9_7F4A_7C15))),
            CrashMode::DropUnsynced => None,
        };
        s.names = s.durable_names.clone();
        let live: std::collections::HashSet<u64> = s.names.values().copied().collect();
        s.inodes.retain(|id, _| live.contains(id));
        let mut ids: Vec<u64> = s.inodes.keys().copied().collect();
        ids.sort_unstable();
        for id in ids {
            let inode = s.inodes.get_mut(&id).expect("id was just listed from the map");
            let unsynced = inode.data.len() - inode.durable_len;
            let keep = match rng.as_mut() {
                Some(r) if unsynced > 0 => (r.next() % (unsynced as u64 + 1)) as usize,
                _ => 0,
            };
            inode.data.truncate(inode.durable_len + keep);
            inode.durable_len = inode.data.len();
        }
        s.epoch += 1;
        s.crashes += 1;
        s.failed = false;
        s.fail_at = None;
    }

    /// Replaces the bytes of a file, durably (corruption tests use this).
    pub fn overwrite(&self, name: &str, bytes: Vec<u8>) -> Result<()> {
        let mut s = lock(&self.state);
        let key = format!("{}{}", self.prefix, name);
        let id = *s.names.get(&key).ok_or_else(|| Error::FileNotFound { file: name.to_string() })?;
        let inode = s.inodes.get_mut(&id).expect("every named inode exists");
        inode.durable_len = bytes.len();
        inode.data = bytes;
        Ok(())
    }

    fn key(&self, name: &str) -> String {
        format!("{}{}", self.prefix, name)
    }
}

impl Directory for FaultyDirectory {
    fn create(&self, name: &str) -> Result<Box<dyn FileWrite>> {
        let mut s = lock(&self.state);
        s.tick(name, "create")?;
        let key = self.key(name);
        if s.names.contains_key(&key) {
            return Err(Error::FileExists { file: name.to_string() });
        }
        let id = s.next_inode;
        s.next_inode += 1;
        s.inodes.insert(id, Inode::default());
        s.names.insert(key, id);
        Ok(Box::new(FaultyFileWriter {
            state: self.state.clone(),
            name: name.to_string(),
            inode: id,
            epoch: s.epoch,
            len: 0,
        }))
    }

    fn open(&self, name: &str) -> Result<FileBytes> {
        let mut s = lock(&self.state);
        s.tick(name, "open")?;
        let id = *s.names.get(&self.key(name)).ok_or_else(|| Error::FileNotFound { file: name.to_string() })?;
        Ok(FileBytes::from(s.inodes[&id].data.clone()))
    }

    fn delete(&self, name: &str) -> Result<()> {
        let mut s = lock(&self.state);
        s.tick(name, "delete")?;
        s.names.remove(&self.key(name)).map(|_| ()).ok_or_else(|| Error::FileNotFound { file: name.to_string() })
    }

    fn rename(&self, from: &str, to: &str) -> Result<()> {
        let mut s = lock(&self.state);
        s.tick(from, "rename")?;
        let id = s.names.remove(&self.key(from)).ok_or_else(|| Error::FileNotFound { file: from.to_string() })?;
        s.names.insert(self.key(to), id);
        Ok(())
    }

    fn sync_dir(&self) -> Result<()> {
        let mut s = lock(&self.state);
        s.tick(&self.prefix, "fsync_dir")?;
        let prefix = self.prefix.clone();
        let in_dir = |k: &str| k.starts_with(&prefix) && !k[prefix.len()..].contains('/');
        s.durable_names.retain(|k, _| !in_dir(k));
        let entries: Vec<(String, u64)> =
            s.names.iter().filter(|(k, _)| in_dir(k)).map(|(k, v)| (k.clone(), *v)).collect();
        s.durable_names.extend(entries);
        Ok(())
    }

    fn list(&self) -> Result<Vec<String>> {
        let s = lock(&self.state);
        Ok(s.names
            .keys()
            .filter_map(|k| k.strip_prefix(&self.prefix))
            .filter(|k| !k.contains('/'))
            .map(str::to_string)
            .collect())
    }

    fn exists(&self, name: &str) -> bool {
        lock(&self.state).names.contains_key(&self.key(name))
    }

    fn file_len(&self, name: &str) -> Result<u64> {
        let s = lock(&self.state);
        let id = *s.names.get(&self.key(name)).ok_or_else(|| Error::FileNotFound { file: name.to_string() })?;
        Ok(s.inodes[&id].data.len() as u64)
    }
}

#[derive(Debug)]
struct FaultyFileWriter {
    state: Arc<Mutex<State>>,
    name: String,
    inode: u64,
    epoch: u64,
    len: u64,
}

impl FaultyFileWriter {
    fn with_inode<T>(&self, op: &'static str, f: impl FnOnce(&mut Inode) -> T) -> Result<T> {
        let mut s = lock(&self.state);
        s.tick(&self.name, op)?;
        if s.epoch != self.epoch {
            // The process that opened this writer "died" in a crash.
            return Err(Error::Injected { file: self.name.clone(), op });
        }
        match s.inodes.get_mut(&self.inode) {
            Some(inode) => Ok(f(inode)),
            // Unlinked and forgotten by a crash: writes go nowhere, like writes to a deleted file.
            None => Err(Error::Injected { file: self.name.clone(), op }),
        }
    }
}

impl FileWrite for FaultyFileWriter {
    fn write_all(&mut self, buf: &[u8]) -> Result<()> {
        self.with_inode("write", |i| i.data.extend_from_slice(buf))?;
        self.len += buf.len() as u64;
        Ok(())
    }
    fn flush(&mut self) -> Result<()> {
        Ok(())
    }
    fn sync(&mut self) -> Result<()> {
        self.with_inode("fsync", |i| i.durable_len = i.data.len())
    }
    fn len(&self) -> u64 {
        self.len
    }
    fn name(&self) -> &str {
        &self.name
    }
}

/// A tiny seeded PRNG (SplitMix64) so crash outcomes replay exactly from a seed.
#[derive(Debug, Clone)]
pub(crate) struct SplitMix64(pub u64);

impl SplitMix64 {
    pub(crate) fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}
