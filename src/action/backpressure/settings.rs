//! The search backpressure settings in force, read from the effective cluster settings; a key
//! not set takes its registered default (`cluster::cluster_settings::REGISTRY` holds the keys,
//! their checks and OpenSearch's defaults).

use serde_json::{Map, Value};

use crate::cluster::cluster_settings::{lookup, text};

/// `search_backpressure.mode`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    Disabled = 0,
    MonitorOnly = 1,
    Enforced = 2,
}

impl Mode {
    /// The name OpenSearch shows.
    pub fn name(self) -> &'static str {
        match self {
            Mode::Disabled => "disabled",
            Mode::MonitorOnly => "monitor_only",
            Mode::Enforced => "enforced",
        }
    }

    /// The mode of a stored value (the value was checked when set).
    pub fn of(s: &str) -> Mode {
        match s {
            "disabled" => Mode::Disabled,
            "enforced" => Mode::Enforced,
            _ => Mode::MonitorOnly,
        }
    }

    /// The mode of [`Mode`]`as u8`.
    pub fn from_u8(n: u8) -> Mode {
        match n {
            0 => Mode::Disabled,
            2 => Mode::Enforced,
            _ => Mode::MonitorOnly,
        }
    }
}

/// The settings of one task type (`search_task` or `search_shard_task`).
#[derive(Debug, Clone, PartialEq)]
pub struct TaskSettings {
    pub elapsed_nanos: u64,
    pub cpu_nanos: u64,
    /// Of the node's memory: a task using less heap is never cancelled for heap.
    pub heap_percent: f64,
    /// A task is cancelled for heap when it uses this many times the moving average.
    pub heap_variance: f64,
    /// Completed tasks in the moving average.
    pub window: usize,
    /// Of the node's memory: tasks of this type together using less are not cancelled at all.
    pub total_heap_percent: f64,
    /// Cancellation tokens added per completed task.
    pub ratio: f64,
    /// Cancellation tokens added per millisecond.
    pub rate_per_ms: f64,
    pub burst: f64,
}

/// The settings in force.
#[derive(Debug, Clone, PartialEq)]
pub struct Settings {
    pub mode: Mode,
    pub num_successive_breaches: u32,
    pub cpu_threshold: f64,
    pub heap_threshold: f64,
    pub search_task: TaskSettings,
    pub search_shard_task: TaskSettings,
}

/// The value of `key` in `m`, else its registered default, as text.
fn raw(m: &Map<String, Value>, key: &str) -> String {
    m.get(key).and_then(text).or_else(|| lookup(key).and_then(|d| d.default).map(str::to_string)).unwrap_or_default()
}

fn float(m: &Map<String, Value>, key: &str) -> f64 {
    let default = lookup(key).and_then(|d| d.default).and_then(|d| d.parse().ok()).unwrap_or(0.0);
    raw(m, key).trim().parse().unwrap_or(default)
}

fn int(m: &Map<String, Value>, key: &str) -> u64 {
    let default = lookup(key).and_then(|d| d.default).and_then(|d| d.parse().ok()).unwrap_or(0);
    raw(m, key).trim().parse().unwrap_or(default)
}

fn task(m: &Map<String, Value>, prefix: &str) -> TaskSettings {
    let k = |s: &str| format!("search_backpressure.{prefix}.{s}");
    TaskSettings {
        elapsed_nanos: int(m, &k("elapsed_time_millis_threshold")).saturating_mul(1_000_000),
        cpu_nanos: int(m, &k("cpu_time_millis_threshold")).saturating_mul(1_000_000),
        heap_percent: float(m, &k("heap_percent_threshold")),
        heap_variance: float(m, &k("heap_variance")),
        window: usize::try_from(int(m, &k("heap_moving_average_window_size"))).unwrap_or(usize::MAX),
        total_heap_percent: float(m, &k("total_heap_percent_threshold")),
        ratio: float(m, &k("cancellation_ratio")),
        rate_per_ms: float(m, &k("cancellation_rate")),
        burst: float(m, &k("cancellation_burst")),
    }
}

impl Settings {
    /// The settings of the effective cluster settings `m`.
    pub fn from_map(m: &Map<String, Value>) -> Settings {
        Settings {
            mode: Mode::of(&raw(m, "search_backpressure.mode")),
            num_successive_breaches: u32::try_from(int(m, "search_backpressure.node_duress.num_successive_breaches"))
                .unwrap_or(u32::MAX),
            cpu_threshold: float(m, "search_backpressure.node_duress.cpu_threshold"),
            heap_threshold: float(m, "search_backpressure.node_duress.heap_threshold"),
            search_task: task(m, "search_task"),
            search_shard_task: task(m, "search_shard_task"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn defaults_are_opensearchs_and_values_override_them() {
        let s = Settings::from_map(&Map::new());
        assert_eq!(s.mode, Mode::MonitorOnly);
        assert_eq!(s.num_successive_breaches, 3);
        assert_eq!((s.cpu_threshold, s.heap_threshold), (0.9, 0.7));
        assert_eq!(s.search_task.elapsed_nanos, 45_000_000_000);
        assert_eq!(s.search_task.burst, 5.0);
        assert_eq!(s.search_shard_task.cpu_nanos, 15_000_000_000);
        assert_eq!(s.search_shard_task.window, 100);
        assert_eq!(s.search_shard_task.rate_per_ms, 0.003);
        let m = json!({"search_backpressure.mode": "enforced",
                       "search_backpressure.search_task.cancellation_burst": "11"});
        let s = Settings::from_map(m.as_object().unwrap());
        assert_eq!(s.mode, Mode::Enforced);
        assert_eq!(s.search_task.burst, 11.0);
    }
}
