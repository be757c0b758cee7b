//! Failing a shard engine while it runs (OpenSearch's `Engine.failEngine` and
//! `maybeFailEngine`): when any operation finds damaged bytes (a checksum mismatch, bytes that
//! do not follow their format) the engine is failed once: the index writer refuses further work
//! (its tragic state), every later operation of the engine answers [`Error::Closed`], and the
//! listener the owner installed is told (the cluster layer writes the corruption marker and takes
//! the shard out of serving). Searches read pinned segments outside the engine, so their callers
//! report what they find through a clone of the [`ShardFailer`].

use std::fmt;

use crate::engine::index::IndexWriter;
use crate::engine::sync::{lock, Arc, Mutex};
use crate::engine::Error;

/// Told once when the engine fails: the reason, and whether it is corruption (then the copy
/// must be marked corrupted before anything else happens, as `Store.markStoreCorrupted`).
pub type FailureListener = Arc<dyn Fn(&str, bool) + Send + Sync>;

#[derive(Default)]
struct State {
    /// Why the engine refuses work: a failure, or "engine closed".
    failure: Option<String>,
    /// Closed on purpose (index closed or deleted): later damage is not reported (the shard's
    /// folder may be gone, and a marker must never bring it back).
    closed: bool,
    listener: Option<FailureListener>,
}

/// A handle on one shard engine's failure state; cheap to clone.
#[derive(Clone)]
pub struct ShardFailer {
    state: Arc<Mutex<State>>,
    writer: Arc<IndexWriter>,
}

impl fmt::Debug for ShardFailer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ShardFailer").field("failure", &self.failure()).finish()
    }
}

impl ShardFailer {
    pub(crate) fn new(writer: Arc<IndexWriter>) -> ShardFailer {
        ShardFailer { state: Arc::new(Mutex::new(State::default())), writer }
    }

    /// Installs the listener (after recovery: a failure while opening is the opener's to report).
    pub(crate) fn arm(&self, listener: Option<FailureListener>) {
        lock(&self.state).listener = listener;
    }

    /// Why the engine refuses work, if it does.
    pub fn failure(&self) -> Option<String> {
        lock(&self.state).failure.clone()
    }

    /// Whether the engine failed (not closed on purpose).
    pub fn is_failed(&self) -> bool {
        let s = lock(&self.state);
        s.failure.is_some() && !s.closed
    }

    /// Records a failure that refuses writes (a translog write that failed) without telling the
    /// listener: no bytes are known damaged, the shard recovers from its files at the next open.
    pub(crate) fn refuse(&self, reason: String) {
        let mut s = lock(&self.state);
        if s.failure.is_none() {
            s.failure = Some(reason);
        }
    }

    /// Marks the engine closed on purpose.
    pub(crate) fn close(&self) {
        let mut s = lock(&self.state);
        s.closed = true;
        if s.failure.is_none() {
            s.failure = Some("engine closed".into());
        }
    }

    /// OpenSearch's `maybeFailEngine`: fails the engine when `e` is corruption found by
    /// `source` (`"search"`, `"merge"`, `"refresh"`, ...). Returns whether it did.
    pub fn maybe_fail(&self, source: &str, e: &Error) -> bool {
        if !e.is_corruption() {
            return false;
        }
        self.fail(&format!("corrupt file (source: [{source}]): {e}"), true)
    }

    /// Fails the engine once (`failEngine`): the writer is failed (refuses every write, refresh,
    /// commit and merge), then the listener is told. Later calls, and calls after a deliberate
    /// close, do nothing and return false.
    pub fn fail(&self, reason: &str, corruption: bool) -> bool {
        let listener = {
            let mut s = lock(&self.state);
            if s.closed || s.failure.as_deref().is_some_and(|f| f.starts_with("failed engine")) {
                return false;
            }
            s.failure = Some(format!("failed engine (reason: [{reason}])"));
            s.listener.clone()
        };
        tracing::error!(%reason, corruption, "failing the shard engine");
        self.writer.fail_tragic(format!("failed engine (reason: [{reason}])"));
        if let Some(l) = listener {
            l(reason, corruption);
        }
        true
    }

    /// Passes `r` through, failing the engine first when it is corruption.
    pub fn check<T>(&self, source: &str, r: crate::engine::Result<T>) -> crate::engine::Result<T> {
        if let Err(e) = &r {
            self.maybe_fail(source, e);
        }
        r
    }
}

#[cfg(test)]
mod tests {
    use std::io::{Seek, SeekFrom, Write};
    use std::path::{Path, PathBuf};

    use super::*;
    use crate::engine::store::{Directory, FsDirectory};
    use crate::shard::engine::{default_config, no_fields_parser};
    use crate::shard::versioning::Constraints;
    use crate::shard::{IndexOp, ShardEngine};

    type Calls = Arc<Mutex<Vec<(String, bool)>>>;

    fn open(root: &Path) -> (ShardEngine, Calls) {
        let index: Arc<dyn Directory> = Arc::new(FsDirectory::open(root.join("index")).unwrap());
        let translog: Arc<dyn Directory> = Arc::new(FsDirectory::open(root.join("translog")).unwrap());
        let calls: Calls = Arc::default();
        let mut config = default_config(no_fields_parser());
        config.background_merges = false;
        let c = calls.clone();
        config.on_failure = Some(Arc::new(move |reason: &str, corruption: bool| {
            lock(&c).push((reason.to_string(), corruption));
        }));
        (ShardEngine::open(index, translog, config).unwrap(), calls)
    }

    fn index(engine: &ShardEngine, id: &str) -> crate::engine::Result<()> {
        let source = format!("{{\"text\":\"document {id} with some words to compress\"}}").into_bytes();
        let r = engine.index(IndexOp {
            id: id.into(),
            source,
            constraints: Constraints::default(),
            ..Default::default()
        })?;
        engine.ensure_synced(r.location, r.seq_no)
    }

    /// A shard with two flushed segments.
    fn two_segments(root: &Path) -> (ShardEngine, Calls) {
        let (engine, calls) = open(root);
        for round in 0..2 {
            for i in 0..20 {
                index(&engine, &format!("{round}-{i}")).unwrap();
            }
            engine.flush().unwrap();
        }
        (engine, calls)
    }

    fn files(root: &Path, ext: &str) -> Vec<PathBuf> {
        let mut v: Vec<PathBuf> = std::fs::read_dir(root.join("index"))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|x| x == ext))
            .collect();
        v.sort();
        v
    }

    /// Changes bytes of a live (mapped) file in place, as a failing disk would: never truncates.
    fn overwrite(path: &Path, at: u64, bytes: &[u8]) {
        let mut f = std::fs::OpenOptions::new().write(true).open(path).unwrap();
        f.seek(SeekFrom::Start(at)).unwrap();
        f.write_all(bytes).unwrap();
        f.sync_all().unwrap();
    }

    fn flip_middle(path: &Path) {
        let b = std::fs::read(path).unwrap();
        let mid = b.len() as u64 / 2;
        overwrite(path, mid, &[b[mid as usize] ^ 0x10]);
    }

    /// Breaks the magic of every zstd frame (the `_source` blocks) of a stored-fields file.
    fn break_frames(path: &Path) {
        let b = std::fs::read(path).unwrap();
        let magic = [0x28, 0xB5, 0x2F, 0xFD];
        let at: Vec<usize> = b.windows(4).enumerate().filter(|(_, w)| *w == magic).map(|(i, _)| i).collect();
        assert!(!at.is_empty(), "no zstd frame in {}", path.display());
        for i in at {
            overwrite(path, i as u64, &[0x00]);
        }
    }

    #[test]
    fn a_merge_that_meets_damaged_bytes_fails_the_engine_once() {
        let dir = tempfile::tempdir().unwrap();
        let (engine, calls) = two_segments(dir.path());
        flip_middle(&files(dir.path(), "fdt")[0]);
        let e = engine.force_merge(1).unwrap_err();
        assert!(e.is_corruption(), "{e}");
        let seen = lock(&calls).clone();
        assert_eq!(seen.len(), 1, "{seen:?}");
        assert!(seen[0].0.starts_with("corrupt file (source: [force merge])") && seen[0].1, "{seen:?}");
        assert!(engine.failer().is_failed());
        // The writer is closed: writes, refreshes, flushes and merges are refused.
        assert!(matches!(index(&engine, "new"), Err(Error::Closed(_))));
        assert!(matches!(engine.refresh(), Err(Error::Closed(_))));
        assert!(matches!(engine.flush(), Err(Error::Closed(_))));
        assert!(engine.force_merge(1).is_err());
        // Failing again changes nothing and tells no one.
        assert!(!engine.failer().fail("again", true));
        assert_eq!(lock(&calls).len(), 1);
    }

    #[test]
    fn a_background_merge_that_meets_damaged_bytes_fails_the_engine() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        // Two segments (as many as the policy below keeps), then reopened with that policy.
        let (engine, _) = open(root);
        for s in 0..2 {
            index(&engine, &format!("s{s}")).unwrap();
            engine.flush().unwrap();
        }
        engine.close().unwrap();
        drop(engine);
        let index_dir: Arc<dyn Directory> = Arc::new(FsDirectory::open(root.join("index")).unwrap());
        let translog: Arc<dyn Directory> = Arc::new(FsDirectory::open(root.join("translog")).unwrap());
        let calls: Calls = Arc::default();
        let mut config = default_config(no_fields_parser());
        config.writer.merge_policy.segments_per_tier = 2.0;
        config.writer.merge_policy.max_merge_at_once = 2;
        let c = calls.clone();
        config.on_failure = Some(Arc::new(move |r: &str, k: bool| lock(&c).push((r.to_string(), k))));
        let engine = ShardEngine::open(index_dir, translog, config).unwrap();
        for f in files(root, "fdt") {
            flip_middle(&f);
        }
        // A third segment asks for a merge; any merge the policy picks has a damaged source.
        index(&engine, "new").unwrap();
        let _ = engine.flush();
        let t = std::time::Instant::now();
        while lock(&calls).is_empty() && t.elapsed() < std::time::Duration::from_secs(20) {
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        let seen = lock(&calls).clone();
        assert_eq!(seen.len(), 1, "{seen:?}");
        assert!(seen[0].0.starts_with("corrupt file (source: [merge])") && seen[0].1, "{seen:?}");
        assert!(engine.failer().is_failed());
        assert!(matches!(index(&engine, "later"), Err(Error::Closed(_))));
    }

    #[test]
    fn a_get_that_meets_damaged_bytes_fails_the_engine() {
        let dir = tempfile::tempdir().unwrap();
        let (engine, calls) = two_segments(dir.path());
        for f in files(dir.path(), "fdt") {
            break_frames(&f);
        }
        let e = engine.get("0-3").unwrap_err();
        assert!(e.is_corruption(), "{e}");
        assert!(engine.failer().is_failed());
        assert_eq!(lock(&calls).len(), 1);
        assert!(lock(&calls)[0].0.contains("source: [get]"));
    }

    #[test]
    fn a_search_reports_through_a_cloned_handle() {
        let dir = tempfile::tempdir().unwrap();
        let (engine, calls) = two_segments(dir.path());
        let failer = engine.failer().clone();
        assert!(!failer.maybe_fail("search", &Error::io("x", "read", std::io::Error::other("disk"))));
        assert!(!failer.is_failed(), "an I/O error is not damage");
        assert!(failer.maybe_fail("search", &Error::corrupt("_0.doc", 7, "bad block")));
        assert!(engine.failer().is_failed());
        assert_eq!(lock(&calls).len(), 1);
        assert!(matches!(engine.reader(), Err(Error::Closed(_))), "the failed writer serves no new searcher");
    }

    #[test]
    fn an_engine_closed_on_purpose_is_never_failed() {
        let dir = tempfile::tempdir().unwrap();
        let (engine, calls) = two_segments(dir.path());
        engine.close().unwrap();
        assert!(!engine.failer().fail("late damage", true));
        assert!(!engine.failer().is_failed());
        assert!(lock(&calls).is_empty());
    }

    #[test]
    fn damage_found_while_opening_is_the_openers_to_report() {
        let dir = tempfile::tempdir().unwrap();
        let (engine, _) = two_segments(dir.path());
        engine.close().unwrap();
        drop(engine);
        flip_middle(&files(dir.path(), "fdt")[0]);
        let index: Arc<dyn Directory> = Arc::new(FsDirectory::open(dir.path().join("index")).unwrap());
        let translog: Arc<dyn Directory> = Arc::new(FsDirectory::open(dir.path().join("translog")).unwrap());
        let calls: Calls = Arc::default();
        let c = calls.clone();
        let mut config = default_config(no_fields_parser());
        config.on_failure = Some(Arc::new(move |r: &str, k: bool| lock(&c).push((r.to_string(), k))));
        assert!(ShardEngine::open(index, translog, config).unwrap_err().is_corruption());
        assert!(lock(&calls).is_empty());
    }
}
