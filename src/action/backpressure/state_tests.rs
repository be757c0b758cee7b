use super::*;
use serde_json::{Map, Value};

fn settings(v: Value) -> Settings {
    Settings::from_map(v.as_object().unwrap_or(&Map::new()))
}

fn shard(id: u64, cpu_ms: u64, elapsed_ms: u64) -> Sample {
    Sample {
        id,
        kind: TaskKind::SearchShard,
        elapsed_nanos: elapsed_ms * 1_000_000,
        cpu_nanos: cpu_ms * 1_000_000,
        heap_bytes: 0,
    }
}

fn yes(_: &Cancellation) -> bool {
    true
}

const CPU: Duress = Duress { cpu: true, heap: false };

fn enforced() -> Settings {
    settings(serde_json::json!({
        "search_backpressure.mode": "enforced",
        "search_backpressure.search_shard_task.cpu_time_millis_threshold": "10",
        "search_backpressure.search_shard_task.elapsed_time_millis_threshold": "100000",
        "search_backpressure.search_shard_task.total_heap_percent_threshold": "0.0",
        "search_backpressure.search_shard_task.cancellation_burst": "2",
    }))
}

#[test]
fn nothing_is_cancelled_without_duress_or_when_disabled() {
    let s = enforced();
    let mut st = State::new(&s, 0);
    assert!(st.run(&s, Duress::default(), &[shard(1, 50, 0)], 1 << 30, 0, &mut yes).is_empty());
    let mut off = s.clone();
    off.mode = Mode::Disabled;
    assert!(st.run(&off, CPU, &[shard(1, 50, 0)], 1 << 30, 0, &mut yes).is_empty());
}

#[test]
fn enforced_cancels_the_breaching_tasks_up_to_the_burst() {
    let s = enforced();
    let mut st = State::new(&s, 0);
    let tasks = [shard(1, 50, 0), shard(2, 5, 0), shard(3, 20, 0), shard(4, 30, 0)];
    let c = st.run(&s, CPU, &tasks, 1 << 30, 0, &mut yes);
    assert_eq!(c.iter().map(|c| c.id).collect::<Vec<_>>(), [1, 3], "burst of 2, task 2 under the threshold");
    assert_eq!(c[0].reason, "cpu usage exceeded [50ms >= 10ms]");
    let t = &st.types[TaskKind::SearchShard as usize];
    assert_eq!((t.cancellations, t.limit_reached, t.by_tracker), (2, 1, [2, 0, 0]));
    // The rate refills the bucket: 0.003 per ms, so one token after 334 ms.
    let c = st.run(&s, CPU, &[shard(4, 30, 0)], 1 << 30, 334_000_000, &mut yes);
    assert_eq!(c.len(), 1);
}

#[test]
fn completions_refill_the_ratio_bucket() {
    let mut s = enforced();
    s.search_shard_task.rate_per_ms = 1e-12;
    s.search_shard_task.burst = 1.0;
    s.search_shard_task.ratio = 0.5;
    let mut st = State::new(&s, 0);
    assert_eq!(st.run(&s, CPU, &[shard(1, 50, 0)], 1 << 30, 0, &mut yes).len(), 1);
    assert!(st.run(&s, CPU, &[shard(2, 50, 0)], 1 << 30, 0, &mut yes).is_empty());
    st.task_ended(Mode::Enforced, TaskKind::SearchShard, false, 0);
    st.task_ended(Mode::Enforced, TaskKind::SearchShard, false, 0);
    assert_eq!(st.run(&s, CPU, &[shard(2, 50, 0)], 1 << 30, 0, &mut yes).len(), 1, "two completions, one token");
    assert_eq!(st.types[1].completions, 2);
}

#[test]
fn monitor_only_cancels_and_counts_nothing() {
    let mut s = enforced();
    s.mode = Mode::MonitorOnly;
    let mut st = State::new(&s, 0);
    assert!(st.run(&s, CPU, &[shard(1, 50, 0)], 1 << 30, 0, &mut yes).is_empty());
    assert_eq!(st.types[1].cancellations, 0);
    st.task_ended(Mode::MonitorOnly, TaskKind::SearchShard, false, 10);
    assert_eq!(st.types[1].completions, 1);
    st.task_ended(Mode::Disabled, TaskKind::SearchShard, false, 10);
    assert_eq!(st.types[1].completions, 1, "disabled counts nothing");
}

#[test]
fn elapsed_applies_in_any_duress_and_cpu_only_in_cpu_duress() {
    let mut s = enforced();
    s.search_shard_task.elapsed_nanos = 1_000_000;
    let mut st = State::new(&s, 0);
    let heap_only = Duress { cpu: false, heap: true };
    let c = st.run(&s, heap_only, &[shard(1, 50, 5)], 1 << 30, 0, &mut yes);
    assert_eq!(c[0].reason, "elapsed time exceeded [5ms >= 1ms]");
    let c = st.run(&s, CPU, &[shard(2, 50, 5)], 1 << 30, 0, &mut yes);
    assert_eq!(c[0].reason, "cpu usage exceeded [50ms >= 10ms], elapsed time exceeded [5ms >= 1ms]");
}

#[test]
fn tasks_using_little_heap_together_are_spared() {
    let mut s = enforced();
    s.search_shard_task.total_heap_percent = 0.5;
    let mut st = State::new(&s, 0);
    assert!(st.run(&s, CPU, &[shard(1, 50, 0)], 1 << 30, 0, &mut yes).is_empty());
}

#[test]
fn the_section_has_opensearchs_shape() {
    let s = enforced();
    let mut st = State::new(&s, 0);
    st.run(&s, CPU, &[shard(1, 50, 0)], 1 << 30, 0, &mut yes);
    let v = st.section(Mode::Enforced, &[shard(7, 40, 80), shard(8, 20, 20)]);
    assert_eq!(v["mode"], "enforced");
    let sh = &v["search_shard_task"];
    assert_eq!(sh["cancellation_stats"]["cancellation_count"], 1);
    assert_eq!(sh["cancellation_stats"]["cancellation_limit_reached_count"], 0);
    assert_eq!(sh["completion_count"], 0);
    let cpu = &sh["resource_tracker_stats"]["cpu_usage_tracker"];
    assert_eq!((cpu["cancellation_count"].as_u64(), cpu["current_max_millis"].as_u64()), (Some(1), Some(40)));
    assert_eq!(cpu["current_avg_millis"], 30);
    assert_eq!(sh["resource_tracker_stats"]["elapsed_time_tracker"]["current_max_millis"], 80);
    assert_eq!(sh["resource_tracker_stats"]["heap_usage_tracker"]["rolling_avg_bytes"], 0);
    assert_eq!(v["search_task"]["resource_tracker_stats"]["cpu_usage_tracker"]["current_max_millis"], 0);
}

#[test]
fn a_task_already_cancelled_is_not_counted() {
    let s = enforced();
    let mut st = State::new(&s, 0);
    let c = st.run(&s, CPU, &[shard(1, 50, 0), shard(2, 50, 0)], 1 << 30, 0, &mut |c: &Cancellation| c.id != 1);
    assert_eq!(c.iter().map(|c| c.id).collect::<Vec<_>>(), [2]);
    assert_eq!(st.types[1].cancellations, 1);
}
