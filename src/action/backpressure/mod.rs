//! Search backpressure (OpenSearch's `SearchBackpressureService`): a monitor on every node
//! watches whether the node is in duress (process CPU or heap over its threshold for
//! `num_successive_breaches` checks in a row) and, while it is, looks at the running search
//! and search-shard tasks; the ones whose CPU time, heap or elapsed time pass their type's
//! thresholds are cancelled in `enforced` mode (as token buckets allow: `cancellation_rate`
//! per millisecond, `cancellation_ratio` per completed task, at most `cancellation_burst`)
//! and only logged in `monitor_only` mode (the default). `_nodes/stats/search_backpressure`
//! shows the counters.
//!
//! | file | holds |
//! |---|---|
//! | `settings.rs` | the settings in force, read from the effective cluster settings |
//! | `trackers.rs` | task types, the CPU / heap / elapsed trackers, node duress streaks |
//! | `bucket.rs` | the token bucket |
//! | `state.rs` | one monitor run's decision and the counters (pure, clock passed in) |
//!
//! Fathom's figures for OpenSearch's JVM ones: a task's CPU is its threads' CPU clocks and its
//! heap the bytes its threads allocated through the counting allocator (`tasks::resource`;
//! a thread still working on the task adds its bytes when its execution ends). The node's
//! heap is its anonymous resident memory over the memory the process may use, the figures
//! `_nodes/stats` reports as `jvm.mem` (`os_probe`); its CPU is the process's CPU percent.

pub mod bucket;
pub mod settings;
pub mod state;
pub mod trackers;

use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::cluster::ClusterService;
use crate::tasks::{Filter, Task, TaskManager};
use settings::{Mode, Settings};
use state::{Cancellation, Duress, State};
use trackers::{Sample, Streak};

/// The node's backpressure service.
#[derive(Debug)]
pub struct Backpressure {
    cs: Arc<ClusterService>,
    tasks: Arc<TaskManager>,
    state: Mutex<State>,
    /// The mode as of the last run (read on every task end without the settings).
    mode: AtomicU8,
    streaks: Mutex<(Streak, Streak)>,
    /// The monotonic zero of the rate limiter's clock.
    epoch: Instant,
}

impl Backpressure {
    /// The service of a node; nothing runs until [`Backpressure::start`].
    pub fn new(cs: Arc<ClusterService>, tasks: Arc<TaskManager>) -> Arc<Backpressure> {
        let s = Settings::from_map(&cs.cluster_settings(&cs.metadata()));
        Arc::new(Backpressure {
            cs,
            tasks,
            state: Mutex::new(State::new(&s, 0)),
            mode: AtomicU8::new(s.mode as u8),
            streaks: Mutex::new((Streak::default(), Streak::default())),
            epoch: Instant::now(),
        })
    }

    fn now_nanos(&self) -> u64 {
        u64::try_from(self.epoch.elapsed().as_nanos()).unwrap_or(u64::MAX)
    }

    /// Hooks the service to its node (task ends, the stats section) and starts the monitor:
    /// one run every `interval` until `stop` is set.
    pub fn start(self: &Arc<Self>, interval: Duration, stop: Arc<AtomicBool>) -> std::io::Result<()> {
        let me = Arc::downgrade(self);
        self.tasks.set_on_end(Box::new(move |t: &Arc<Task>| {
            if let Some(bp) = me.upgrade() {
                bp.task_ended(t);
            }
        }));
        let me = Arc::downgrade(self);
        self.cs.counters.set_search_backpressure(Box::new(move || me.upgrade().map(|bp| bp.section())));
        let me = self.clone();
        let name = format!("fathom[{}][search_backpressure]", self.cs.node.node_name);
        std::thread::Builder::new().name(name).spawn(move || {
            let step = Duration::from_millis(50).min(interval);
            let mut next = Instant::now() + interval;
            while !stop.load(Ordering::Relaxed) {
                std::thread::sleep(step);
                if Instant::now() >= next {
                    me.run_once();
                    next = Instant::now() + interval;
                }
            }
        })?;
        Ok(())
    }

    fn task_ended(&self, t: &Arc<Task>) {
        let Some(kind) = trackers::kind_of(&t.action) else { return };
        let mode = Mode::from_u8(self.mode.load(Ordering::Relaxed));
        if mode == Mode::Disabled {
            return;
        }
        let bytes = t.usage().total.bytes;
        self.state.lock().unwrap_or_else(|e| e.into_inner()).task_ended(mode, kind, t.is_cancelled(), bytes);
    }

    /// The running search and search-shard tasks, measured now.
    fn samples(&self) -> Vec<(Sample, Arc<Task>)> {
        self.tasks
            .list(&Filter::default())
            .into_iter()
            .filter(|t| t.cancellable)
            .filter_map(|t| {
                let kind = trackers::kind_of(&t.action)?;
                let u = t.usage();
                let s = Sample {
                    id: t.id,
                    kind,
                    elapsed_nanos: t.running_nanos(),
                    cpu_nanos: u.total.cpu_nanos,
                    heap_bytes: u.total.bytes,
                };
                Some((s, t))
            })
            .collect()
    }

    /// One monitor run.
    pub fn run_once(&self) {
        let s = Settings::from_map(&self.cs.cluster_settings(&self.cs.metadata()));
        self.mode.store(s.mode as u8, Ordering::Relaxed);
        let duress = if s.mode == Mode::Disabled { Duress::default() } else { self.duress(&s) };
        let heap_max = crate::action::os_probe::heap_max().unwrap_or(0);
        let running = if duress.cpu || duress.heap { self.samples() } else { Vec::new() };
        let samples: Vec<Sample> = running.iter().map(|(s, _)| *s).collect();
        let now = self.now_nanos();
        let tasks = &self.tasks;
        let mut cancel = |c: &Cancellation| {
            // Cancelled with its children here (bans), unless it ended or was cancelled meanwhile.
            tasks.get(c.id).is_some_and(|t| !t.is_cancelled())
                && !tasks.cancel(&Filter { id: Some(c.id), ..Filter::default() }, &c.reason).is_empty()
        };
        let cancelled =
            self.state.lock().unwrap_or_else(|e| e.into_inner()).run(&s, duress, &samples, heap_max, now, &mut cancel);
        // A search's shard tasks on other nodes are banned there (outside the state's lock).
        for c in cancelled.iter().filter(|c| c.kind == trackers::TaskKind::Search) {
            let parent = crate::tasks::TaskId { node: self.tasks.node_id().to_string(), id: c.id };
            crate::action::tasks::ban_on_other_nodes(&self.cs, &parent, &c.reason);
        }
    }

    /// Records this run's CPU and heap readings; which resources are in duress.
    fn duress(&self, s: &Settings) -> Duress {
        let cpu = crate::action::os_probe::process_cpu_percent().map(|p| p as f64 / 100.0);
        let heap = crate::action::os_probe::process().heap_used.zip(crate::action::os_probe::heap_max());
        let heap = heap.map(|(u, m)| crate::action::os_probe::percent(u, m) as f64 / 100.0);
        let mut st = self.streaks.lock().unwrap_or_else(|e| e.into_inner());
        st.0.record(cpu.is_some_and(|c| c >= s.cpu_threshold));
        st.1.record(heap.is_some_and(|h| h >= s.heap_threshold));
        Duress { cpu: st.0.in_duress(s.num_successive_breaches), heap: st.1.in_duress(s.num_successive_breaches) }
    }

    /// The `search_backpressure` section of `_nodes/stats`.
    pub fn section(&self) -> Value {
        let samples: Vec<Sample> = self.samples().into_iter().map(|(s, _)| s).collect();
        let mode = Settings::from_map(&self.cs.cluster_settings(&self.cs.metadata())).mode;
        self.state.lock().unwrap_or_else(|e| e.into_inner()).section(mode, &samples)
    }
}
