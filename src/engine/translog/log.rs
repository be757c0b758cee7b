//! [`Translog`]: appends, group-commit syncs, rolls and trims (opening an existing translog is in
//! `recovery.rs`, the background syncer in `syncer.rs`).
//!
//! Concurrency. `state` (a mutex) holds the bookkeeping and the append buffer; `file` holds the
//! current generation's writer. Appends only touch the buffer. The thread that *leads* a sync
//! sets `io_busy`, takes the buffer and the matching in-memory checkpoint, releases `state`, and
//! with only `file` locked writes the buffer, fsyncs it and replaces `translog.ckp`; meanwhile
//! other threads keep appending into a fresh buffer, and threads that need durability wait on
//! `io_done`. Roll, trim and close hold `state` for their whole duration (they are rare) after
//! waiting until no sync is in flight. Lock order: `state` then `file`; a sync leader never takes
//! `state` while it holds `file`.
//!
//! Why a waiter can trust a leader's checkpoint (numbered, as the code relies on it):
//! 1. `add` returns a location only after the frame is in the buffer, under `state`.
//! 2. A leader takes the whole buffer and `current` (whose `offset` is the end of the buffer)
//!    atomically under `state`, so the checkpoint it writes covers exactly the bytes it writes.
//! 3. Only one leader exists at a time (`io_busy`), so buffers reach the file in append order.
//! 4. `synced` is updated only after the checkpoint is durable (rename + directory fsync), so
//!    `is_durable` never answers yes for bytes a crash could take away.
//! 5. After any failed write, fsync or checkpoint write the translog is poisoned (`failed`): we
//!    cannot know what reached the disk, so nothing more is acknowledged (a "tragic event").

use std::sync::Arc;

use super::checkpoint::Checkpoint;
use super::generation;
use super::{
    generation_checkpoint_file, generation_file, parse_file_name, Location, Operation, TranslogConfig, TranslogStats,
    CHECKPOINT_FILE,
};
use crate::engine::store::{Directory, FileWrite};
use crate::engine::sync::{lock, Condvar, Mutex, MutexGuard};
use crate::engine::{Error, Result};

/// Buffered bytes above which `add` writes the buffer to the file (without fsync).
const BUFFER_LIMIT: usize = 256 * 1024;

/// The write-ahead log of one shard copy (see the module docs of `translog/`).
pub struct Translog {
    pub(super) dir: Arc<dyn Directory>,
    pub(super) uuid: [u8; 16],
    pub(super) config: TranslogConfig,
    pub(super) state: Mutex<State>,
    pub(super) io_done: Condvar,
    pub(super) file: Mutex<Option<Box<dyn FileWrite>>>,
}

impl std::fmt::Debug for Translog {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Translog").field("dir", &self.dir).field("stats", &self.stats()).finish()
    }
}

pub(super) struct State {
    /// Why the translog refuses work: closed, or an earlier I/O failure.
    pub failed: Option<String>,
    /// A sync leader is writing outside the `state` lock.
    pub io_busy: bool,
    pub primary_term: u64,
    /// Frozen checkpoints of the finished generations `>= min_generation`, oldest first.
    pub finished: Vec<Checkpoint>,
    pub min_generation: u64,
    /// What `translog.ckp` would say if everything added so far were synced.
    pub current: Checkpoint,
    /// The last checkpoint known durable.
    pub synced: Checkpoint,
    /// Frames added but not yet handed to the file.
    pub buffer: Vec<u8>,
}

impl State {
    fn check_open(&self) -> Result<()> {
        match &self.failed {
            None => Ok(()),
            Some(why) => Err(Error::Closed(format!("translog: {why}"))),
        }
    }

    fn fail(&mut self, e: &Error) {
        if self.failed.is_none() {
            tracing::error!(error = %e, "translog failed; refusing further operations");
            self.failed = Some(format!("failed earlier and refuses further work: {e}"));
        }
    }

    fn is_durable(&self, loc: Location) -> bool {
        loc.generation < self.synced.generation
            || (loc.generation == self.synced.generation && loc.offset + loc.size <= self.synced.offset)
    }

    fn sync_needed(&self) -> bool {
        !self.buffer.is_empty() || self.current != self.synced
    }
}

/// Creates generation file `gen` with its header, fsynced and with a durable name.
pub(super) fn create_generation(
    dir: &dyn Directory,
    uuid: &[u8; 16],
    gen: u64,
    primary_term: u64,
) -> Result<Box<dyn FileWrite>> {
    let name = generation_file(gen);
    if dir.exists(&name) {
        // Left by an interrupted roll: no checkpoint ever covered it, so it holds nothing acknowledged.
        dir.delete(&name)?;
    }
    let mut w = dir.create(&name)?;
    w.write_all(&generation::header_bytes(uuid, primary_term))?;
    w.sync()?;
    dir.sync_dir()?;
    Ok(w)
}

/// Whether `name` is a file the translog owns.
pub(super) fn is_translog_file(name: &str) -> bool {
    name == CHECKPOINT_FILE
        || parse_file_name(name).is_some()
        || (name.starts_with("translog") && name.ends_with(".tmp"))
}

impl Translog {
    pub(super) fn from_parts(
        dir: Arc<dyn Directory>,
        uuid: [u8; 16],
        config: TranslogConfig,
        primary_term: u64,
        finished: Vec<Checkpoint>,
        current: Checkpoint,
        writer: Box<dyn FileWrite>,
    ) -> Translog {
        let state = State {
            failed: None,
            io_busy: false,
            primary_term,
            finished,
            min_generation: current.min_translog_generation,
            current,
            synced: current,
            buffer: Vec::new(),
        };
        Translog {
            dir,
            uuid,
            config,
            state: Mutex::new(state),
            io_done: Condvar::new(),
            file: Mutex::new(Some(writer)),
        }
    }

    /// Creates a new, empty translog in `dir` (generation 1), replacing any translog files there.
    pub fn create(
        dir: Arc<dyn Directory>,
        uuid: [u8; 16],
        primary_term: u64,
        global_checkpoint: i64,
        config: TranslogConfig,
    ) -> Result<Translog> {
        if global_checkpoint < super::UNASSIGNED_SEQ_NO {
            return Err(Error::InvalidArgument(format!("global checkpoint must be >= -2, got {global_checkpoint}")));
        }
        for name in dir.list()? {
            if is_translog_file(&name) {
                dir.delete(&name)?;
            }
        }
        let w = create_generation(&*dir, &uuid, 1, primary_term)?;
        let ckp = Checkpoint::empty(1, global_checkpoint, 1);
        ckp.write_atomic(&*dir, CHECKPOINT_FILE, &uuid)?;
        Ok(Translog::from_parts(dir, uuid, config, primary_term, Vec::new(), ckp, w))
    }

    /// The translog uuid (every file's header id; the commit point records it).
    pub fn uuid(&self) -> [u8; 16] {
        self.uuid
    }

    /// The settings.
    pub fn config(&self) -> &TranslogConfig {
        &self.config
    }

    /// The generation new operations go to.
    pub fn current_generation(&self) -> u64 {
        lock(&self.state).current.generation
    }

    /// Appends an operation (not yet durable: see [`Translog::ensure_synced`]).
    pub fn add(&self, op: &Operation) -> Result<Location> {
        if op.seq_no() < 0 {
            return Err(Error::InvalidArgument(format!(
                "translog operations need an assigned seq_no, got {}",
                op.seq_no()
            )));
        }
        let mut st = lock(&self.state);
        st.check_open()?;
        if op.primary_term() > st.primary_term {
            return Err(Error::InvalidArgument(format!(
                "operation primary term [{}] is above the translog's primary term [{}]",
                op.primary_term(),
                st.primary_term
            )));
        }
        let size = generation::encode_frame(op, &mut st.buffer)?;
        let c = &mut st.current;
        let loc = Location { generation: c.generation, offset: c.offset, size };
        c.offset += size;
        c.num_ops += 1;
        c.min_seq_no = if c.num_ops == 1 { op.seq_no() } else { c.min_seq_no.min(op.seq_no()) };
        c.max_seq_no = c.max_seq_no.max(op.seq_no());
        if st.buffer.len() >= BUFFER_LIMIT && !st.io_busy {
            let (_st, res) = self.lead_io(st, false);
            res?;
        }
        Ok(loc)
    }

    /// Group commit: returns once `loc` is durable. If it already is, returns `Ok(false)` at
    /// once; otherwise either waits for the sync in flight or leads one that fsyncs everything
    /// buffered and writes the checkpoint for every waiter, returning `Ok(true)`.
    pub fn ensure_synced(&self, loc: Location) -> Result<bool> {
        let mut st = lock(&self.state);
        loop {
            if st.is_durable(loc) {
                return Ok(false);
            }
            st.check_open()?;
            if loc.generation > st.current.generation
                || (loc.generation == st.current.generation && loc.offset + loc.size > st.current.offset)
            {
                return Err(Error::InvalidArgument(format!("translog location {loc:?} was never added")));
            }
            if !st.io_busy {
                break;
            }
            st = self.wait(st);
        }
        let (_st, res) = self.lead_io(st, true);
        res.map(|()| true)
    }

    /// Makes everything added so far durable (and the in-memory global checkpoint).
    pub fn sync(&self) -> Result<()> {
        let mut st = lock(&self.state);
        loop {
            st.check_open()?;
            if !st.sync_needed() {
                return Ok(());
            }
            if !st.io_busy {
                break;
            }
            st = self.wait(st);
        }
        self.lead_io(st, true).1
    }

    fn wait<'a>(&'a self, st: MutexGuard<'a, State>) -> MutexGuard<'a, State> {
        match self.io_done.wait(st) {
            Ok(g) => g,
            Err(poisoned) => poisoned.into_inner(),
        }
    }

    /// Leads one write (and, if `fsync`, an fsync and checkpoint) with `state` released.
    fn lead_io<'a>(&'a self, mut st: MutexGuard<'a, State>, fsync: bool) -> (MutexGuard<'a, State>, Result<()>) {
        st.io_busy = true;
        let buf = std::mem::take(&mut st.buffer);
        let target = st.current;
        drop(st);
        // If write_out panics (a bug, or a panicking Directory), the guard clears `io_busy`,
        // poisons the translog and wakes the waiters, so no thread waits forever.
        let guard = LeaderGuard { tl: self };
        let res = self.write_out(&buf, fsync.then_some(&target));
        std::mem::forget(guard);
        let mut st = lock(&self.state);
        st.io_busy = false;
        match &res {
            Ok(()) if fsync => st.synced = target,
            Ok(()) => {}
            Err(e) => st.fail(e),
        }
        self.io_done.notify_all();
        (st, res)
    }

    /// Writes `buf` to the current generation, then optionally fsyncs it and publishes `ckp`.
    /// (See `LeaderGuard` for what happens if this panics.)
    fn write_out(&self, buf: &[u8], ckp: Option<&Checkpoint>) -> Result<()> {
        let mut file = lock(&self.file);
        let w = file.as_mut().ok_or_else(|| Error::Closed("translog: closed".into()))?;
        if !buf.is_empty() {
            w.write_all(buf)?;
        }
        if let Some(ckp) = ckp {
            w.sync()?;
            ckp.write_atomic(&*self.dir, CHECKPOINT_FILE, &self.uuid)?;
        }
        Ok(())
    }

    /// Locks `state` once no sync is in flight and the translog is open.
    fn lock_idle(&self) -> Result<MutexGuard<'_, State>> {
        let mut st = lock(&self.state);
        while st.io_busy {
            st = self.wait(st);
        }
        st.check_open()?;
        Ok(st)
    }

    /// `sync` with `state` held throughout (roll, trim, close).
    fn sync_holding(&self, st: &mut State) -> Result<()> {
        if !st.sync_needed() {
            return Ok(());
        }
        let buf = std::mem::take(&mut st.buffer);
        let target = st.current;
        self.write_out(&buf, Some(&target))?;
        st.synced = target;
        Ok(())
    }

    /// Runs `f` with `state` held; any error poisons the translog.
    fn poisoning<T>(&self, f: impl FnOnce(&mut State) -> Result<T>) -> Result<T> {
        let mut st = self.lock_idle()?;
        let res = f(&mut st);
        if let Err(e) = &res {
            st.fail(e);
        }
        self.io_done.notify_all();
        res
    }

    /// Finishes the current generation and starts the next; returns the new generation.
    ///
    /// Steps (crash analysis per step in `format/translog.md`, "Crash analysis"):
    /// 1. sync: the buffer is written and fsynced, `translog.ckp` covers all of it;
    /// 2. `translog-{g}.ckp` is written atomically with the same content (frozen end of `g`);
    /// 3. `translog-{g+1}.tlog` is created with its header, fsynced, directory fsynced;
    /// 4. `translog.ckp` is replaced atomically by the empty checkpoint of `g+1`.
    pub fn roll_generation(&self) -> Result<u64> {
        self.poisoning(|st| self.roll_holding(st))
    }

    fn roll_holding(&self, st: &mut State) -> Result<u64> {
        self.sync_holding(st)?;
        let done = st.current;
        done.write_atomic(&*self.dir, &generation_checkpoint_file(done.generation), &self.uuid)?;
        let next = done.generation + 1;
        let w = create_generation(&*self.dir, &self.uuid, next, st.primary_term)?;
        let ckp = Checkpoint::empty(next, done.global_checkpoint, st.min_generation);
        ckp.write_atomic(&*self.dir, CHECKPOINT_FILE, &self.uuid)?;
        *lock(&self.file) = Some(w);
        st.finished.push(done);
        st.current = ckp;
        st.synced = ckp;
        Ok(next)
    }

    /// A new primary term (a promotion, or a replica learning of one): operations of `term` may
    /// be added from now on. The current generation is finished and the next one starts with
    /// `term` in its header (headers bound the terms of their operations). Lower terms are
    /// ignored.
    pub fn raise_primary_term(&self, term: u64) -> Result<()> {
        self.poisoning(|st| {
            if term <= st.primary_term {
                return Ok(());
            }
            st.primary_term = term;
            self.roll_holding(st).map(|_| ())
        })
    }

    /// The highest primary term operations may carry.
    pub fn primary_term(&self) -> u64 {
        lock(&self.state).primary_term
    }

    /// Whether the current generation reached `generation_threshold_bytes`.
    pub fn should_roll(&self) -> bool {
        lock(&self.state).current.offset >= self.config.generation_threshold_bytes
    }

    /// After a durable commit that needs no generation below `min_required_generation`: records
    /// the new minimum in `translog.ckp` (first), then deletes the older generation files and
    /// their checkpoint copies. `min_required_generation` is capped at the current generation.
    pub fn trim_unreferenced(&self, min_required_generation: u64) -> Result<()> {
        let min = self.poisoning(|st| {
            let min = min_required_generation.min(st.current.generation).max(st.min_generation);
            if min > st.min_generation {
                st.current.min_translog_generation = min;
                self.sync_holding(st)?;
                st.min_generation = min;
                st.finished.retain(|c| c.generation >= min);
            }
            Ok(min)
        })?;
        // Deleting is not a durability step: a failure leaves files that the next trim or open removes.
        let mut deleted = false;
        for name in self.dir.list()? {
            if matches!(parse_file_name(&name), Some((g, _)) if g < min) {
                self.dir.delete(&name)?;
                deleted = true;
            }
        }
        if deleted {
            self.dir.sync_dir()?;
        }
        Ok(())
    }

    /// Sets the global checkpoint recorded by the next checkpoint write.
    pub fn set_global_checkpoint(&self, global_checkpoint: i64) -> Result<()> {
        if global_checkpoint < super::UNASSIGNED_SEQ_NO {
            return Err(Error::InvalidArgument(format!("global checkpoint must be >= -2, got {global_checkpoint}")));
        }
        let mut st = lock(&self.state);
        st.check_open()?;
        // Never backwards: concurrent callers may arrive out of order.
        st.current.global_checkpoint = st.current.global_checkpoint.max(global_checkpoint);
        Ok(())
    }

    /// Drops every operation with a seq_no above `seq_no` from what snapshots return (primary
    /// promotion resync). Rolls first, so operations added afterwards are not affected, then
    /// records `trimmed_above_seq_no` in the frozen checkpoint of each older generation that has
    /// such operations.
    pub fn trim_operations_above(&self, seq_no: i64) -> Result<()> {
        if seq_no < 0 {
            return Err(Error::InvalidArgument(format!("cannot trim operations above seq_no {seq_no}")));
        }
        self.poisoning(|st| {
            self.roll_holding(st)?;
            for c in st.finished.iter_mut() {
                let trim = if c.trimmed_above_seq_no == super::UNASSIGNED_SEQ_NO {
                    seq_no
                } else {
                    c.trimmed_above_seq_no.min(seq_no)
                };
                if c.max_seq_no > seq_no && trim != c.trimmed_above_seq_no {
                    let mut new = *c;
                    new.trimmed_above_seq_no = trim;
                    new.write_atomic(&*self.dir, &generation_checkpoint_file(c.generation), &self.uuid)?;
                    *c = new;
                }
            }
            Ok(())
        })
    }

    /// Every retained operation with `seq_no >= from_seq_no`, in log order, skipping trimmed
    /// ones. Syncs first, then reads each generation only up to its checkpointed offset,
    /// re-verifying every frame.
    pub fn snapshot(&self, from_seq_no: i64) -> Result<Vec<Operation>> {
        self.sync()?;
        let st = lock(&self.state);
        st.check_open()?;
        let mut ckps = st.finished.clone();
        ckps.push(st.synced);
        let mut out = Vec::new();
        for c in &ckps {
            super::recovery::read_generation(&*self.dir, &self.uuid, c, st.primary_term, |op| {
                if op.seq_no() >= from_seq_no && !c.is_trimmed(op.seq_no()) {
                    out.push(op);
                }
            })?;
        }
        Ok(out)
    }

    /// Operation counts and sizes.
    pub fn stats(&self) -> TranslogStats {
        let st = lock(&self.state);
        let all = st.finished.iter().chain(std::iter::once(&st.current));
        let (ops, bytes) = all.fold((0, 0), |(o, b), c| (o + c.num_ops, b + c.offset));
        TranslogStats {
            operations: ops,
            size_in_bytes: bytes,
            uncommitted_operations: ops,
            uncommitted_size_in_bytes: bytes,
            earliest_last_modified_age: 0,
            generation: st.current.generation,
            min_generation: st.min_generation,
        }
    }

    /// The last durable checkpoint (what `translog.ckp` holds).
    pub fn last_synced_checkpoint(&self) -> Checkpoint {
        lock(&self.state).synced
    }

    /// Syncs and closes; later calls return [`Error::Closed`]. Closing twice is a no-op.
    pub fn close(&self) -> Result<()> {
        let mut st = lock(&self.state);
        while st.io_busy {
            st = self.wait(st);
        }
        let res = if st.failed.is_none() { self.sync_holding(&mut st) } else { Ok(()) };
        if let Err(e) = &res {
            st.fail(e);
        }
        if st.failed.is_none() {
            st.failed = Some("closed".to_string());
        }
        *lock(&self.file) = None;
        self.io_done.notify_all();
        res
    }
}

/// Armed while a sync leader does I/O without the state lock; dropped only by unwinding.
struct LeaderGuard<'a> {
    tl: &'a Translog,
}

impl Drop for LeaderGuard<'_> {
    fn drop(&mut self) {
        let mut st = lock(&self.tl.state);
        st.io_busy = false;
        st.fail(&Error::Closed("translog: a sync panicked".into()));
        self.tl.io_done.notify_all();
    }
}
