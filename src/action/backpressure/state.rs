//! The decision of one monitor run (OpenSearch's `SearchBackpressureService.doRun`) and the
//! counters behind `_nodes/stats/search_backpressure`, as pure state: the monitor passes in
//! the settings, node duress, the running tasks' samples, the memory size and the clock.

use serde_json::{json, Value};

use super::bucket::TokenBucket;
use super::settings::{Mode, Settings, TaskSettings};
use super::trackers::{self, MovingAverage, Reason, Sample, TaskKind, Tracker};

/// Which resources are in duress now.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Duress {
    pub cpu: bool,
    pub heap: bool,
}

/// A task to cancel, and why (the trackers' messages joined, as `TaskCancellation`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cancellation {
    pub id: u64,
    pub kind: TaskKind,
    pub reason: String,
}

/// One task type's counters, heap average and token buckets (OpenSearch's
/// `SearchBackpressureState` plus its trackers' counts).
#[derive(Debug, Clone)]
pub struct TypeState {
    pub completions: u64,
    pub cancellations: u64,
    pub limit_reached: u64,
    pub by_tracker: [u64; 3],
    pub heap_avg: MovingAverage,
    rate: TokenBucket,
    ratio: TokenBucket,
    /// The (rate per ms, ratio, burst) the buckets were made with.
    params: (f64, f64, f64),
}

impl TypeState {
    fn new(s: &TaskSettings, now_nanos: u64) -> TypeState {
        TypeState {
            completions: 0,
            cancellations: 0,
            limit_reached: 0,
            by_tracker: [0; 3],
            heap_avg: MovingAverage::new(s.window),
            rate: TokenBucket::new(s.rate_per_ms / 1e6, s.burst, now_nanos),
            ratio: TokenBucket::new(s.ratio, s.burst, 0),
            params: (s.rate_per_ms, s.ratio, s.burst),
        }
    }

    /// Follows changed settings: new buckets (full) for a new rate, ratio or burst, a new
    /// average for a new window (OpenSearch's settings listeners).
    fn follow(&mut self, s: &TaskSettings, now_nanos: u64) {
        if self.params != (s.rate_per_ms, s.ratio, s.burst) {
            self.rate = TokenBucket::new(s.rate_per_ms / 1e6, s.burst, now_nanos);
            self.ratio = TokenBucket::new(s.ratio, s.burst, self.completions);
            self.params = (s.rate_per_ms, s.ratio, s.burst);
        }
        if self.heap_avg.window() != s.window {
            self.heap_avg = MovingAverage::new(s.window);
        }
    }
}

/// The node's backpressure state.
#[derive(Debug, Clone)]
pub struct State {
    pub types: [TypeState; 2],
}

impl State {
    pub fn new(s: &Settings, now_nanos: u64) -> State {
        State { types: [TypeState::new(&s.search_task, now_nanos), TypeState::new(&s.search_shard_task, now_nanos)] }
    }

    /// A task of `kind` ended: a completion unless it was cancelled, and its heap joins the
    /// moving average (OpenSearch's `onTaskCompleted`; nothing in `disabled` mode).
    pub fn task_ended(&mut self, mode: Mode, kind: TaskKind, cancelled: bool, heap_bytes: u64) {
        if mode == Mode::Disabled {
            return;
        }
        let t = &mut self.types[kind as usize];
        if !cancelled {
            t.completions += 1;
        }
        t.heap_avg.record(heap_bytes);
    }

    /// One monitor run: the tasks to cancel (in `enforced` mode; `monitor_only` only logs
    /// them), most resource-hungry first, as the token buckets allow. `cancel` cancels one and
    /// says whether it did (a task that ended or was cancelled meanwhile, by its parent's
    /// cancellation say, is not counted, as OpenSearch counts only its own cancellations).
    /// Returns the tasks cancelled.
    pub fn run(
        &mut self,
        s: &Settings,
        duress: Duress,
        samples: &[Sample],
        heap_max: u64,
        now_nanos: u64,
        cancel: &mut dyn FnMut(&Cancellation) -> bool,
    ) -> Vec<Cancellation> {
        self.types[0].follow(&s.search_task, now_nanos);
        self.types[1].follow(&s.search_shard_task, now_nanos);
        if s.mode == Mode::Disabled || !(duress.cpu || duress.heap) {
            return Vec::new();
        }
        let mut out = Vec::new();
        for kind in [TaskKind::Search, TaskKind::SearchShard] {
            let ts = if kind == TaskKind::Search { &s.search_task } else { &s.search_shard_task };
            let of_kind: Vec<&Sample> = samples.iter().filter(|x| x.kind == kind).collect();
            // Heap not dominated by searches of this type: none of them is to blame.
            let total: u64 = of_kind.iter().map(|x| x.heap_bytes).sum();
            if heap_max > 0 && (total as f64) < ts.total_heap_percent * heap_max as f64 {
                continue;
            }
            let state = &mut self.types[kind as usize];
            let mut picked: Vec<(&Sample, Vec<Reason>)> = of_kind
                .into_iter()
                .map(|x| {
                    let mut reasons = Vec::new();
                    if duress.cpu {
                        reasons.extend(trackers::cpu(x, ts.cpu_nanos));
                    }
                    if duress.heap {
                        reasons.extend(trackers::heap(x, &state.heap_avg, ts.heap_variance, ts.heap_percent, heap_max));
                    }
                    reasons.extend(trackers::elapsed(x, ts.elapsed_nanos));
                    (x, reasons)
                })
                .filter(|(_, r)| !r.is_empty())
                .collect();
            let score = |r: &[Reason]| r.iter().map(|r| r.score).sum::<u64>();
            picked.sort_by(|a, b| score(&b.1).cmp(&score(&a.1)).then(a.0.id.cmp(&b.0.id)));
            for (x, reasons) in picked {
                let reason = reasons.iter().map(|r| r.message.as_str()).collect::<Vec<_>>().join(", ");
                tracing::warn!(mode = s.mode.name(), task = x.id, reason = %reason,
                    "cancelling task due to high resource consumption");
                if s.mode != Mode::Enforced {
                    continue;
                }
                // Both buckets are asked; only both empty stop the cancellations.
                let rate_ok = state.rate.request(now_nanos);
                let ratio_ok = state.ratio.request(state.completions);
                if !rate_ok && !ratio_ok {
                    state.limit_reached += 1;
                    break;
                }
                let c = Cancellation { id: x.id, kind, reason };
                if !cancel(&c) {
                    continue;
                }
                state.cancellations += 1;
                for r in &reasons {
                    state.by_tracker[r.tracker as usize] += 1;
                }
                out.push(c);
            }
        }
        out
    }

    /// The `search_backpressure` section: each type's counters and its trackers' view of the
    /// running `samples`.
    pub fn section(&self, mode: Mode, samples: &[Sample]) -> Value {
        let ty = |kind: TaskKind| {
            let t = &self.types[kind as usize];
            let of: Vec<&Sample> = samples.iter().filter(|x| x.kind == kind).collect();
            let millis = |(max, avg): (u64, u64)| (max / 1_000_000, avg / 1_000_000);
            let (cpu_max, cpu_avg) = millis(trackers::max_avg(of.iter().map(|x| x.cpu_nanos)));
            let (el_max, el_avg) = millis(trackers::max_avg(of.iter().map(|x| x.elapsed_nanos)));
            let (heap_max, heap_avg) = trackers::max_avg(of.iter().map(|x| x.heap_bytes));
            let n = |tr: Tracker| t.by_tracker[tr as usize];
            json!({
                "resource_tracker_stats": {
                    Tracker::Cpu.name(): {"cancellation_count": n(Tracker::Cpu),
                        "current_max_millis": cpu_max, "current_avg_millis": cpu_avg},
                    Tracker::Heap.name(): {"cancellation_count": n(Tracker::Heap),
                        "current_max_bytes": heap_max, "current_avg_bytes": heap_avg,
                        "rolling_avg_bytes": t.heap_avg.average() as u64},
                    Tracker::Elapsed.name(): {"cancellation_count": n(Tracker::Elapsed),
                        "current_max_millis": el_max, "current_avg_millis": el_avg},
                },
                "completion_count": t.completions,
                "cancellation_stats": {
                    "cancellation_count": t.cancellations,
                    "cancellation_limit_reached_count": t.limit_reached,
                },
            })
        };
        json!({
            "search_task": ty(TaskKind::Search),
            "search_shard_task": ty(TaskKind::SearchShard),
            "mode": mode.name(),
        })
    }
}

#[cfg(test)]
#[path = "state_tests.rs"]
mod tests;
