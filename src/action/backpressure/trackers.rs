//! The task resource trackers (OpenSearch's `CpuUsageTracker`, `HeapUsageTracker` and
//! `ElapsedTimeTracker`) and node duress (its `NodeDuressTracker`): pure functions of what was
//! measured, so a test drives them with made-up figures and its own clock.

use std::collections::VecDeque;

use crate::units::{human_bytes, human_nanos};

/// The task types backpressure watches (OpenSearch's `SearchTask` and `SearchShardTask`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TaskKind {
    Search = 0,
    SearchShard = 1,
}

/// The type of a task of `action`: the REST-level search, or one of its shard-level phases
/// (here or sent from another node).
pub fn kind_of(action: &str) -> Option<TaskKind> {
    if action == "indices:data/read/search" {
        Some(TaskKind::Search)
    } else if action.starts_with("indices:data/read/search[phase/") {
        Some(TaskKind::SearchShard)
    } else {
        None
    }
}

/// The trackers, in OpenSearch's order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tracker {
    Cpu = 0,
    Heap = 1,
    Elapsed = 2,
}

impl Tracker {
    /// The name in `resource_tracker_stats`.
    pub fn name(self) -> &'static str {
        match self {
            Tracker::Cpu => "cpu_usage_tracker",
            Tracker::Heap => "heap_usage_tracker",
            Tracker::Elapsed => "elapsed_time_tracker",
        }
    }
}

/// What a running task used, as the monitor saw it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sample {
    pub id: u64,
    pub kind: TaskKind,
    pub elapsed_nanos: u64,
    pub cpu_nanos: u64,
    /// Bytes its threads allocated (the counting allocator's figure).
    pub heap_bytes: u64,
}

/// Why a tracker would cancel a task, and how much cancelling it would help.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reason {
    pub tracker: Tracker,
    pub message: String,
    pub score: u64,
}

/// The mean of the last `window` values (OpenSearch's `MovingAverage`); ready once full.
#[derive(Debug, Clone, PartialEq)]
pub struct MovingAverage {
    window: usize,
    values: VecDeque<u64>,
    sum: u128,
}

impl MovingAverage {
    pub fn new(window: usize) -> MovingAverage {
        MovingAverage { window, values: VecDeque::new(), sum: 0 }
    }

    pub fn window(&self) -> usize {
        self.window
    }

    pub fn record(&mut self, v: u64) {
        if self.window == 0 {
            return;
        }
        if self.values.len() == self.window {
            if let Some(old) = self.values.pop_front() {
                self.sum -= u128::from(old);
            }
        }
        self.values.push_back(v);
        self.sum += u128::from(v);
    }

    /// Whether `window` values were recorded (a window of 0 never is).
    pub fn is_ready(&self) -> bool {
        self.window > 0 && self.values.len() == self.window
    }

    pub fn average(&self) -> f64 {
        if self.values.is_empty() {
            0.0
        } else {
            self.sum as f64 / self.values.len() as f64
        }
    }
}

/// `cpu usage exceeded [used >= threshold]` once the task's CPU time reaches the threshold.
pub fn cpu(s: &Sample, threshold_nanos: u64) -> Option<Reason> {
    (s.cpu_nanos >= threshold_nanos).then(|| Reason {
        tracker: Tracker::Cpu,
        message: format!("cpu usage exceeded [{} >= {}]", human_nanos(s.cpu_nanos), human_nanos(threshold_nanos)),
        score: 1,
    })
}

/// `elapsed time exceeded [..]` once the task has run for the threshold.
pub fn elapsed(s: &Sample, threshold_nanos: u64) -> Option<Reason> {
    (s.elapsed_nanos >= threshold_nanos).then(|| Reason {
        tracker: Tracker::Elapsed,
        message: format!(
            "elapsed time exceeded [{} >= {}]",
            human_nanos(s.elapsed_nanos),
            human_nanos(threshold_nanos)
        ),
        score: 1,
    })
}

/// `heap usage exceeded [..]` when the task used at least `heap_percent` of the node's memory
/// and `variance` times the moving average of completed tasks (once that average is ready).
pub fn heap(s: &Sample, avg: &MovingAverage, variance: f64, heap_percent: f64, heap_max: u64) -> Option<Reason> {
    if heap_max == 0 || !avg.is_ready() {
        return None;
    }
    let usage = s.heap_bytes as f64;
    let average = avg.average();
    let allowed = average * variance;
    if usage < heap_percent * heap_max as f64 || usage < allowed {
        return None;
    }
    Some(Reason {
        tracker: Tracker::Heap,
        message: format!("heap usage exceeded [{} >= {}]", human_bytes(usage as u64), human_bytes(allowed as u64)),
        score: if average > 0.0 { (usage / average) as u64 } else { 1 },
    })
}

/// Successive breaches of one resource's threshold (OpenSearch's `NodeDuressTracker`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Streak {
    count: u32,
}

impl Streak {
    /// Records one observation.
    pub fn record(&mut self, breached: bool) {
        self.count = if breached { self.count.saturating_add(1) } else { 0 };
    }

    /// Whether the last `n` observations all breached.
    pub fn in_duress(&self, n: u32) -> bool {
        self.count >= n.max(1)
    }
}

/// The current max and average of `figures` (0 for none).
pub fn max_avg(figures: impl Iterator<Item = u64>) -> (u64, u64) {
    let (mut max, mut sum, mut n) = (0u64, 0u128, 0u128);
    for f in figures {
        max = max.max(f);
        sum += u128::from(f);
        n += 1;
    }
    (max, sum.checked_div(n).map_or(0, |a| a as u64))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(cpu: u64, elapsed: u64, heap: u64) -> Sample {
        Sample { id: 1, kind: TaskKind::SearchShard, elapsed_nanos: elapsed, cpu_nanos: cpu, heap_bytes: heap }
    }

    #[test]
    fn kinds_of_search_actions() {
        assert_eq!(kind_of("indices:data/read/search"), Some(TaskKind::Search));
        assert_eq!(kind_of("indices:data/read/search[phase/query]"), Some(TaskKind::SearchShard));
        assert_eq!(kind_of("indices:data/read/search[phase/query+fetch]"), Some(TaskKind::SearchShard));
        assert_eq!(kind_of("indices:data/read/scroll"), None);
        assert_eq!(kind_of("cluster:monitor/nodes/stats"), None);
    }

    #[test]
    fn cpu_and_elapsed_trip_at_their_thresholds_with_opensearchs_messages() {
        assert_eq!(cpu(&sample(14_999_999, 0, 0), 15_000_000), None);
        let r = cpu(&sample(17_900_000, 0, 0), 15_000_000).unwrap();
        assert_eq!(r.message, "cpu usage exceeded [17.9ms >= 15ms]");
        let r = elapsed(&sample(0, 1_100_000_000, 0), 300_000_000).unwrap();
        assert_eq!(r.message, "elapsed time exceeded [1.1s >= 300ms]");
        assert_eq!(elapsed(&sample(0, 299_999_999, 0), 300_000_000), None);
    }

    #[test]
    fn heap_needs_a_full_average_and_both_thresholds() {
        let mut avg = MovingAverage::new(3);
        avg.record(100);
        avg.record(100);
        let big = sample(0, 0, 1 << 20);
        assert_eq!(heap(&big, &avg, 2.0, 0.0, 1 << 30), None, "average not ready");
        avg.record(100);
        assert!(avg.is_ready());
        let r = heap(&big, &avg, 2.0, 0.0, 1 << 30).unwrap();
        assert_eq!(r.message, "heap usage exceeded [1mb >= 200b]");
        assert_eq!(r.score, (1 << 20) / 100);
        assert_eq!(heap(&sample(0, 0, 150), &avg, 2.0, 0.0, 1 << 30), None, "under variance x average");
        assert_eq!(heap(&big, &avg, 2.0, 0.01, 1 << 30), None, "under the percent of the heap");
        assert_eq!(heap(&big, &avg, 2.0, 0.0, 0), None, "no heap size known");
    }

    #[test]
    fn moving_average_keeps_the_last_window() {
        let mut m = MovingAverage::new(2);
        m.record(10);
        m.record(20);
        m.record(40);
        assert_eq!(m.average(), 30.0);
        let mut zero = MovingAverage::new(0);
        zero.record(5);
        assert!(!zero.is_ready());
    }

    #[test]
    fn duress_needs_successive_breaches() {
        let mut s = Streak::default();
        s.record(true);
        s.record(true);
        assert!(!s.in_duress(3));
        s.record(true);
        assert!(s.in_duress(3));
        s.record(false);
        assert!(!s.in_duress(1));
        assert_eq!(max_avg([3u64, 5, 1].into_iter()), (5, 3));
        assert_eq!(max_avg(std::iter::empty()), (0, 0));
    }
}
