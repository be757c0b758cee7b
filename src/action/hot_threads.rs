//! `GET /_nodes[/{node_id}]/hot_threads` (OpenSearch's `HotThreads`): on each node selected
//! (`cluster:monitor/nodes/hot_threads[n]`), every thread's time is measured over `interval`,
//! the `threads` busiest are kept, `snapshots` stacks of each are captured 10 ms apart, and
//! stacks sharing their outer frames are printed once with their count.
//!
//! `type`: `cpu` is time on a CPU. Java's `wait` (time in WAITING) and `block` (time BLOCKED
//! on a monitor) have no per-thread counter on Linux; their counterparts here, from
//! `/proc/self/task/{tid}/schedstat`: `wait` is the time the thread was neither running nor
//! runnable (asleep on a condition, lock, socket or timer: the interval less its CPU and
//! run-queue time), `block` the time it was runnable but waiting for a CPU.

use std::time::{Duration, Instant};

use serde_json::{json, Value};

use super::nodes_fanout;
use super::thread_probe::{self, Frame, ThreadTimes};
use crate::cluster::coordination_view::MemberView;
use crate::cluster::ClusterService;
use crate::error::{OsError, OsResult};
use crate::units::{human_millis, human_nanos, iso_millis};

/// The node-level action answering with this node's hot threads.
pub const ACTION_NODE_HOT_THREADS: &str = "cluster:monitor/nodes/hot_threads[n]";

/// The pause between two stack snapshots (OpenSearch's `threadElementsSnapshotDelay`).
const SNAPSHOT_DELAY: Duration = Duration::from_millis(10);
/// Most snapshots a request may ask (each pauses [`SNAPSHOT_DELAY`] per thread shown).
const MAX_SNAPSHOTS: i64 = 1000;
/// Longest interval a request may ask.
const MAX_INTERVAL: Duration = Duration::from_secs(60);

/// What is measured.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Cpu,
    Wait,
    Block,
}

impl Kind {
    pub fn name(self) -> &'static str {
        match self {
            Kind::Cpu => "cpu",
            Kind::Wait => "wait",
            Kind::Block => "block",
        }
    }

    pub fn parse(s: &str) -> OsResult<Kind> {
        match s {
            "cpu" => Ok(Kind::Cpu),
            "wait" => Ok(Kind::Wait),
            "block" => Ok(Kind::Block),
            other => Err(OsError::illegal(format!("type not supported [{other}]"))),
        }
    }
}

/// A hot threads request.
#[derive(Debug, Clone, PartialEq)]
pub struct HotThreadsRequest {
    pub threads: usize,
    pub interval: Duration,
    pub snapshots: usize,
    pub kind: Kind,
    pub ignore_idle: bool,
}

impl Default for HotThreadsRequest {
    fn default() -> Self {
        HotThreadsRequest {
            threads: 3,
            interval: Duration::from_millis(500),
            snapshots: 10,
            kind: Kind::Cpu,
            ignore_idle: true,
        }
    }
}

impl HotThreadsRequest {
    /// From the request's values (`None` for a parameter not given).
    pub fn new(
        threads: Option<i64>,
        interval: Option<Duration>,
        snapshots: Option<i64>,
        kind: Option<&str>,
        ignore_idle: Option<bool>,
    ) -> OsResult<HotThreadsRequest> {
        let d = HotThreadsRequest::default();
        let threads = match threads {
            None => d.threads,
            Some(t) if t >= 1 => usize::try_from(t).unwrap_or(usize::MAX),
            Some(t) => return Err(OsError::illegal(format!("threads must be greater than 0, got [{t}]"))),
        };
        let snapshots = match snapshots {
            None => d.snapshots,
            Some(s) if (1..=MAX_SNAPSHOTS).contains(&s) => s as usize,
            Some(s) => {
                return Err(OsError::illegal(format!("snapshots must be between 1 and {MAX_SNAPSHOTS}, got [{s}]")))
            }
        };
        let interval = interval.unwrap_or(d.interval);
        if interval > MAX_INTERVAL {
            return Err(OsError::illegal(format!(
                "interval must be at most {}, got [{}]",
                human_millis(MAX_INTERVAL.as_millis() as u64),
                human_millis(interval.as_millis() as u64)
            )));
        }
        Ok(HotThreadsRequest {
            threads,
            interval,
            snapshots,
            kind: kind.map_or(Ok(d.kind), Kind::parse)?,
            ignore_idle: ignore_idle.unwrap_or(d.ignore_idle),
        })
    }

    fn to_json(&self) -> Value {
        json!({"threads": self.threads, "interval_nanos": self.interval.as_nanos() as u64, "snapshots": self.snapshots,
               "type": self.kind.name(), "ignore_idle_threads": self.ignore_idle})
    }

    fn from_json(v: &Value) -> OsResult<HotThreadsRequest> {
        HotThreadsRequest::new(
            v["threads"].as_i64(),
            v["interval_nanos"].as_u64().map(Duration::from_nanos),
            v["snapshots"].as_i64(),
            v["type"].as_str(),
            v["ignore_idle_threads"].as_bool(),
        )
    }
}

/// The measured time of one thread over the interval for `kind`.
fn measured(kind: Kind, before: &ThreadTimes, after: &ThreadTimes, wall: Duration) -> u64 {
    let cpu = after.cpu_nanos.saturating_sub(before.cpu_nanos);
    let rq = match (before.runqueue_nanos, after.runqueue_nanos) {
        (Some(b), Some(a)) => a.saturating_sub(b),
        _ => 0,
    };
    match kind {
        Kind::Cpu => cpu,
        Kind::Block => rq,
        Kind::Wait => u64::try_from(wall.as_nanos()).unwrap_or(u64::MAX).saturating_sub(cpu + rq),
    }
}

/// How many outer frames two stacks share (OpenSearch's `similarity`).
fn similarity(a: Option<&[Frame]>, b: Option<&[Frame]>) -> usize {
    let (a, b) = (a.unwrap_or_default(), b.unwrap_or_default());
    a.iter()
        .rev()
        .zip(b.iter().rev())
        .take_while(|(x, y)| x.name.is_some() && x.name == y.name && x.line == y.line)
        .count()
}

/// The stack lines of one thread's snapshots, grouped as OpenSearch groups them.
fn render_snapshots(snaps: &[Option<Vec<Frame>>], out: &mut String) {
    let n = snaps.len();
    let mut done = vec![false; n];
    for i in 0..n {
        if done[i] {
            continue;
        }
        let mut max_sim = 1;
        let mut similars = vec![false; n];
        for j in i + 1..n {
            if done[j] {
                continue;
            }
            let s = similarity(snaps[i].as_deref(), snaps[j].as_deref());
            if s > max_sim {
                max_sim = s;
                similars = vec![false; n];
            }
            if s == max_sim {
                similars[j] = true;
            }
        }
        let mut count = 1;
        for j in i + 1..n {
            if similars[j] {
                done[j] = true;
                count += 1;
            }
        }
        let Some(show) = &snaps[i] else { continue };
        if count == 1 {
            out.push_str("  unique snapshot\n");
            for f in show {
                out.push_str(&format!("    {}\n", f.render()));
            }
        } else {
            out.push_str(&format!("  {count}/{n} snapshots sharing following {max_sim} elements\n"));
            for f in &show[show.len().saturating_sub(max_sim)..] {
                out.push_str(&format!("    {}\n", f.render()));
            }
        }
    }
}

/// This node's hot threads text (one request at a time, as OpenSearch's `HotThreads`).
pub fn detect(req: &HotThreadsRequest) -> String {
    static ONE: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _one = ONE.lock().unwrap_or_else(|e| e.into_inner());
    let me = crate::threadpool::names::current_tid();
    let mut out = format!(
        "Hot threads at {}, interval={}, busiestThreads={}, ignoreIdleThreads={}:\n",
        iso_millis(crate::clock::now_millis()),
        human_millis(req.interval.as_millis() as u64),
        req.threads,
        req.ignore_idle
    );
    let before: Vec<ThreadTimes> = thread_probe::sample().into_iter().filter(|t| t.tid != me).collect();
    let start = Instant::now();
    std::thread::sleep(req.interval);
    let after = thread_probe::sample();
    let wall = start.elapsed();
    let mut hot: Vec<(i64, u64)> = before
        .iter()
        .filter_map(|b| after.iter().find(|a| a.tid == b.tid).map(|a| (b.tid, measured(req.kind, b, a, wall))))
        .collect();
    hot.sort_by_key(|t| std::cmp::Reverse(t.1));
    hot.truncate(req.threads);
    // Snapshots of every busiest thread, `snapshots` times.
    let mut snaps: Vec<Vec<Option<Vec<Frame>>>> = vec![Vec::new(); hot.len()];
    for k in 0..req.snapshots {
        for (t, (tid, _)) in hot.iter().enumerate() {
            snaps[t].push(thread_probe::capture(*tid).map(|c| thread_probe::symbolize(&c)));
        }
        if k + 1 < req.snapshots {
            std::thread::sleep(SNAPSHOT_DELAY);
        }
    }
    let interval_nanos = u64::try_from(req.interval.as_nanos()).unwrap_or(u64::MAX).max(1);
    for ((tid, time), mut s) in hot.into_iter().zip(snaps) {
        if req.ignore_idle {
            for snap in s.iter_mut() {
                if snap.as_deref().is_some_and(thread_probe::is_idle) {
                    *snap = None;
                }
            }
        }
        // Idle in every snapshot, or gone: not shown (OpenSearch skips such a thread).
        if s.iter().all(Option::is_none) {
            continue;
        }
        let Some(name) = thread_probe::thread_name(tid) else { continue };
        let percent = time as f64 / interval_nanos as f64 * 100.0;
        out.push_str(&format!(
            "\n{percent:4.1}% ({} out of {}) {} usage by thread '{name}'\n",
            human_nanos(time),
            human_millis(req.interval.as_millis() as u64),
            req.kind.name()
        ));
        render_snapshots(&s, &mut out);
    }
    out
}

/// This node's answer to [`ACTION_NODE_HOT_THREADS`].
pub fn handle(payload: &[u8]) -> OsResult<Vec<u8>> {
    let v: Value =
        serde_json::from_slice(payload).map_err(|e| OsError::illegal(format!("bad hot threads request: {e}")))?;
    let req = HotThreadsRequest::from_json(&v)?;
    serde_json::to_vec(&json!({"hot_threads": detect(&req)})).map_err(|e| OsError::internal(e.to_string()))
}

fn member_line(m: &MemberView) -> String {
    let n = crate::cluster::allocation::AllocNode {
        id: m.node_id.clone(),
        name: m.name.clone(),
        host: nodes_fanout::host_of(m).to_string(),
        transport_address: m.transport_address.clone(),
        roles: m.roles.clone(),
        attributes: m.attributes.iter().cloned().collect(),
    };
    format!("::: {}\n", crate::cluster::allocation::node_string(&n))
}

/// The whole response text for the nodes `filters` select: per node its `:::` line and its
/// hot threads indented by three spaces (a node that failed is left out, as OpenSearch does).
pub fn hot_threads(cs: &ClusterService, filters: &[&str], req: &HotThreadsRequest, timeout: Duration) -> String {
    let members = nodes_fanout::members(cs);
    let manager = nodes_fanout::cluster_manager(cs);
    let ids = nodes_fanout::resolve_nodes(&members, &cs.node.node_id, manager.as_deref(), filters);
    let local = || Ok(json!({"hot_threads": detect(req)}));
    let g = nodes_fanout::fan_out(cs, &ids, ACTION_NODE_HOT_THREADS, &req.to_json(), timeout, &local);
    let mut out = String::new();
    for (m, v) in &g.answers {
        out.push_str(&member_line(m));
        for line in v["hot_threads"].as_str().unwrap_or_default().lines() {
            out.push_str("   ");
            out.push_str(line);
            out.push('\n');
        }
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_are_validated() {
        let d = HotThreadsRequest::new(None, None, None, None, None).unwrap();
        assert_eq!(d, HotThreadsRequest::default());
        assert_eq!(
            HotThreadsRequest::new(None, None, None, Some("mem"), None).unwrap_err().reason,
            "type not supported [mem]"
        );
        assert_eq!(HotThreadsRequest::new(None, None, Some(0), None, None).unwrap_err().status, 400);
        assert!(HotThreadsRequest::new(None, None, Some(500_000_000), None, None).is_err());
        assert!(HotThreadsRequest::new(Some(0), None, None, None, None).is_err());
        let r = HotThreadsRequest::new(Some(1), Some(Duration::from_millis(100)), Some(3), Some("wait"), Some(false))
            .unwrap();
        assert_eq!(HotThreadsRequest::from_json(&r.to_json()).unwrap(), r);
    }

    fn f(name: &str) -> Frame {
        Frame { ip: 1, name: Some(name.into()), file: None, line: None }
    }

    #[test]
    fn similar_snapshots_print_once() {
        let a = vec![f("inner1"), f("mid"), f("main")];
        let b = vec![f("inner2"), f("mid"), f("main")];
        let mut out = String::new();
        render_snapshots(&[Some(a.clone()), Some(b), Some(a.clone())], &mut out);
        assert_eq!(out, "  2/3 snapshots sharing following 3 elements\n    inner1\n    mid\n    main\n  unique snapshot\n    inner2\n    mid\n    main\n");
    }

    #[test]
    fn measures_by_kind() {
        let b = ThreadTimes { tid: 1, cpu_nanos: 100, runqueue_nanos: Some(10) };
        let a = ThreadTimes { tid: 1, cpu_nanos: 400, runqueue_nanos: Some(60) };
        let wall = Duration::from_nanos(1000);
        assert_eq!(measured(Kind::Cpu, &b, &a, wall), 300);
        assert_eq!(measured(Kind::Block, &b, &a, wall), 50);
        assert_eq!(measured(Kind::Wait, &b, &a, wall), 650);
    }

    #[test]
    fn a_busy_thread_is_the_hottest() {
        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let s = stop.clone();
        let h = std::thread::Builder::new()
            .name("hot-spinner".into())
            .spawn(move || {
                let mut x = 0u64;
                while !s.load(std::sync::atomic::Ordering::Relaxed) {
                    x = std::hint::black_box(x.wrapping_add(1));
                }
                x
            })
            .unwrap();
        let req =
            HotThreadsRequest { threads: 64, interval: Duration::from_millis(200), snapshots: 2, ..Default::default() };
        let text = detect(&req);
        stop.store(true, std::sync::atomic::Ordering::Relaxed);
        h.join().unwrap();
        assert!(text.starts_with("Hot threads at "), "{text}");
        assert!(text.contains("interval=200ms, busiestThreads=64, ignoreIdleThreads=true:\n"), "{text}");
        assert!(text.contains("cpu usage by thread 'hot-spinner'"), "{text}");
    }
}
