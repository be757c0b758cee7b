//! Recovery state of a shard copy: the stages `INIT → INDEX → VERIFY_INDEX → TRANSLOG →
//! FINALIZE → DONE` and the counters and times that `_recovery` reports (OpenSearch's
//! `RecoveryState`).

use std::time::Instant;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// Where the copy recovers from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum RecoverySource {
    /// A new, empty shard.
    EmptyStore,
    /// Its own files: the last commit plus translog replay.
    ExistingStore,
    /// Files and operations copied from another copy.
    Peer,
    /// A snapshot.
    Snapshot,
}

impl RecoverySource {
    /// The name `_recovery` prints in `type`.
    pub fn name(self) -> &'static str {
        match self {
            RecoverySource::EmptyStore => "EMPTY_STORE",
            RecoverySource::ExistingStore => "EXISTING_STORE",
            RecoverySource::Peer => "PEER",
            RecoverySource::Snapshot => "SNAPSHOT",
        }
    }
}

/// Recovery stages, in the only order they may run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Stage {
    Init,
    Index,
    VerifyIndex,
    Translog,
    Finalize,
    Done,
}

impl Stage {
    /// The name `_recovery` prints in `stage`.
    pub fn name(self) -> &'static str {
        match self {
            Stage::Init => "INIT",
            Stage::Index => "INDEX",
            Stage::VerifyIndex => "VERIFY_INDEX",
            Stage::Translog => "TRANSLOG",
            Stage::Finalize => "FINALIZE",
            Stage::Done => "DONE",
        }
    }
}

/// A timer that records wall-clock start/stop (for `start_time_in_millis`) and monotonic duration.
/// A timer read from another node (`_recovery` across nodes) holds the duration it had there.
#[derive(Debug, Clone, Default)]
pub struct Timer {
    started: Option<(Instant, u64)>,
    stopped: Option<(Instant, u64)>,
    elapsed_elsewhere: Option<u64>,
}

/// The wire form of a [`Timer`]: epoch millis of start and stop (0 when not yet) and the
/// milliseconds elapsed when it was sent.
#[derive(Serialize, Deserialize)]
struct TimerWire {
    start: u64,
    stop: u64,
    total: u64,
}

impl Serialize for Timer {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        TimerWire { start: self.start_millis(), stop: self.stop_millis(), total: self.total_millis() }.serialize(s)
    }
}

impl<'de> Deserialize<'de> for Timer {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Timer, D::Error> {
        let w = TimerWire::deserialize(d)?;
        let now = Instant::now();
        Ok(Timer {
            started: (w.start > 0).then_some((now, w.start)),
            stopped: (w.stop > 0).then_some((now, w.stop)),
            elapsed_elsewhere: Some(w.total),
        })
    }
}

impl Timer {
    fn start(&mut self) {
        self.started = Some((Instant::now(), crate::clock::now_millis() as u64));
        self.stopped = None;
        self.elapsed_elsewhere = None;
    }
    fn stop(&mut self) {
        if self.started.is_some() && self.stopped.is_none() {
            self.stopped = Some((Instant::now(), crate::clock::now_millis() as u64));
        }
    }
    /// Wall-clock start in epoch millis (0 if not started).
    pub fn start_millis(&self) -> u64 {
        self.started.map(|s| s.1).unwrap_or(0)
    }
    /// Wall-clock stop in epoch millis (0 while running).
    pub fn stop_millis(&self) -> u64 {
        self.stopped.map(|s| s.1).unwrap_or(0)
    }
    /// A timer that ran from and to `millis` (epoch): for a recovery known only by when it
    /// happened (a closed index's shards, recovered from their store when the index closed).
    pub fn completed_at(millis: u64) -> Timer {
        let now = Instant::now();
        Timer { started: Some((now, millis)), stopped: Some((now, millis)), elapsed_elsewhere: None }
    }
    /// Elapsed milliseconds (up to now while running).
    pub fn total_millis(&self) -> u64 {
        if let Some(t) = self.elapsed_elsewhere {
            return t;
        }
        match (self.started, self.stopped) {
            (Some((s, _)), Some((e, _))) => e.duration_since(s).as_millis() as u64,
            (Some((s, _)), None) => s.elapsed().as_millis() as u64,
            _ => 0,
        }
    }
}

/// One file of the `index` stage (`files.details` with `detailed=true`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileDetail {
    pub name: String,
    pub length: u64,
    /// Bytes copied so far (0 for a reused file).
    pub recovered: u64,
    /// Taken from the local store rather than copied.
    pub reused: bool,
}

/// `index` section: files and bytes.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct IndexCounters {
    /// Every file of the recovery, in the order they were added.
    pub details: Vec<FileDetail>,
    pub total_files: u64,
    pub reused_files: u64,
    pub recovered_files: u64,
    pub total_bytes: u64,
    pub reused_bytes: u64,
    pub recovered_bytes: u64,
    pub timer: Timer,
}

impl IndexCounters {
    /// Adds a file to the recovery: counted in the totals, and as reused or (fully) recovered.
    pub fn add_file(&mut self, name: String, length: u64, reused: bool) {
        self.total_files += 1;
        self.total_bytes += length;
        if reused {
            self.reused_files += 1;
            self.reused_bytes += length;
        } else {
            self.recovered_files += 1;
            self.recovered_bytes += length;
        }
        self.details.push(FileDetail { name, recovered: if reused { 0 } else { length }, length, reused });
    }
    /// Percent of files recovered (reused files count as done), as `_recovery` prints it.
    pub fn files_percent(&self) -> f64 {
        percent(self.recovered_files + self.reused_files, self.total_files)
    }
    /// Percent of bytes recovered.
    pub fn bytes_percent(&self) -> f64 {
        percent(self.recovered_bytes + self.reused_bytes, self.total_bytes)
    }
}

/// `translog` section: operations replayed.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct TranslogCounters {
    pub recovered: u64,
    /// Operations to replay, -1 when unknown.
    pub total: i64,
    pub total_on_start: i64,
    pub timer: Timer,
}

impl TranslogCounters {
    /// Percent replayed.
    pub fn percent(&self) -> f64 {
        if self.total < 0 {
            return -1.0;
        }
        percent(self.recovered, self.total as u64)
    }
}

fn percent(done: u64, total: u64) -> f64 {
    if total == 0 {
        100.0
    } else {
        (done as f64 * 100.0 / total as f64).min(100.0)
    }
}

/// The state of one shard copy's recovery.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct RecoveryState {
    pub source: RecoverySource,
    pub primary: bool,
    stage: Stage,
    pub timer: Timer,
    pub index: IndexCounters,
    pub verify_index: Timer,
    pub translog: TranslogCounters,
    /// A peer recovery's source node.
    pub source_node: Option<PeerNode>,
}

/// A node a peer recovery copied from, as `_recovery` shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PeerNode {
    pub id: String,
    pub name: String,
    pub transport_address: String,
}

impl RecoveryState {
    /// A recovery in stage INIT.
    pub fn new(source: RecoverySource, primary: bool) -> RecoveryState {
        let mut timer = Timer::default();
        timer.start();
        RecoveryState {
            source,
            primary,
            stage: Stage::Init,
            timer,
            index: IndexCounters::default(),
            verify_index: Timer::default(),
            translog: TranslogCounters { total: -1, total_on_start: -1, ..Default::default() },
            source_node: None,
        }
    }

    /// The current stage.
    pub fn stage(&self) -> Stage {
        self.stage
    }

    /// Moves to the next stage; stages run strictly in order (a skipped stage is entered and
    /// left at once, as OpenSearch does for stages with nothing to do).
    pub fn advance(&mut self, to: Stage) {
        assert!(to > self.stage, "recovery stage may only move forward: {:?} -> {:?}", self.stage, to);
        while self.stage < to {
            self.leave(self.stage);
            self.stage = match self.stage {
                Stage::Init => Stage::Index,
                Stage::Index => Stage::VerifyIndex,
                Stage::VerifyIndex => Stage::Translog,
                Stage::Translog => Stage::Finalize,
                Stage::Finalize | Stage::Done => Stage::Done,
            };
            self.enter(self.stage);
        }
    }

    fn enter(&mut self, s: Stage) {
        match s {
            Stage::Index => self.index.timer.start(),
            Stage::VerifyIndex => self.verify_index.start(),
            Stage::Translog => self.translog.timer.start(),
            Stage::Done => self.timer.stop(),
            _ => {}
        }
    }

    fn leave(&mut self, s: Stage) {
        match s {
            Stage::Index => self.index.timer.stop(),
            Stage::VerifyIndex => self.verify_index.stop(),
            Stage::Translog => self.translog.timer.stop(),
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stages_run_in_order() {
        let mut r = RecoveryState::new(RecoverySource::ExistingStore, true);
        assert_eq!(r.stage(), Stage::Init);
        r.advance(Stage::Index);
        for i in 0..4 {
            r.index.add_file(format!("f{i}"), 10, true);
        }
        assert_eq!(
            (r.index.total_files, r.index.reused_files, r.index.total_bytes, r.index.reused_bytes),
            (4, 4, 40, 40)
        );
        assert_eq!(r.index.details.len(), 4);
        r.advance(Stage::Translog);
        r.translog.total = 10;
        r.translog.recovered = 5;
        assert_eq!(r.translog.percent(), 50.0);
        r.advance(Stage::Done);
        assert_eq!(r.stage().name(), "DONE");
        assert_eq!(r.index.files_percent(), 100.0);
        assert!(r.timer.stop_millis() >= r.timer.start_millis());
    }

    #[test]
    fn completed_timer_reports_its_instant() {
        let t = Timer::completed_at(1_700_000_000_000);
        assert_eq!((t.start_millis(), t.stop_millis(), t.total_millis()), (1_700_000_000_000, 1_700_000_000_000, 0));
    }

    #[test]
    #[should_panic(expected = "only move forward")]
    fn no_going_back() {
        let mut r = RecoveryState::new(RecoverySource::EmptyStore, true);
        r.advance(Stage::Translog);
        r.advance(Stage::Index);
    }
}
