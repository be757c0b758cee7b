//! What the operating system tells of this machine and this process (OpenSearch's `OsProbe`,
//! `ProcessProbe` and `FsProbe`), read from Linux's `/proc` and `getrlimit`. Every figure is
//! `None` when the system does not give it; the APIs then report it as OpenSearch reports an
//! unknown value (a missing field, `-1`, or an empty `_cat` cell).
//!
//! OpenSearch's heap figures are the JVM's. A Rust process has no separate managed heap: what it
//! allocates is its anonymous resident memory (`RssAnon`: the allocator's pages and the thread
//! stacks), bounded only by the memory the process may use (its cgroup's `memory.max`, else the
//! machine's memory). [`ProcessFigures::heap_used`] and [`heap_max`] are those two measured
//! figures; nothing JVM-only (garbage collectors, buffer pools, class counts) is reported.

use std::sync::Mutex;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// Machine memory (`/proc/meminfo`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MemFigures {
    pub total: u64,
    /// `MemAvailable` (what a new process could use without swapping).
    pub free: u64,
}

impl MemFigures {
    pub fn used(&self) -> u64 {
        self.total.saturating_sub(self.free)
    }
    /// OpenSearch's `OsStats.Mem.getUsedPercent` (rounded ratio).
    pub fn used_percent(&self) -> u64 {
        percent(self.used(), self.total)
    }
}

/// `round(100 * part / total)`, 0 for an empty total (OpenSearch's `calculatePercentage`).
pub fn percent(part: u64, total: u64) -> u64 {
    if total == 0 {
        0
    } else {
        ((part as f64 * 100.0) / total as f64).round() as u64
    }
}

/// Reads `/proc/meminfo`'s `MemTotal` and `MemAvailable` (kB) from its text.
pub fn parse_meminfo(text: &str) -> Option<MemFigures> {
    let field = |name: &str| {
        text.lines().find_map(|l| {
            let rest = l.strip_prefix(name)?.strip_prefix(':')?;
            rest.trim().trim_end_matches("kB").trim().parse::<u64>().ok().map(|kb| kb * 1024)
        })
    };
    Some(MemFigures { total: field("MemTotal")?, free: field("MemAvailable").or_else(|| field("MemFree"))? })
}

/// The machine's memory.
pub fn mem() -> Option<MemFigures> {
    parse_meminfo(&std::fs::read_to_string("/proc/meminfo").ok()?)
}

/// The 1, 5 and 15 minute load averages (`/proc/loadavg`).
pub fn parse_loadavg(text: &str) -> Option<[f64; 3]> {
    let mut it = text.split_whitespace().map(|s| s.parse::<f64>().ok());
    Some([it.next()??, it.next()??, it.next()??])
}

pub fn load_average() -> Option<[f64; 3]> {
    parse_loadavg(&std::fs::read_to_string("/proc/loadavg").ok()?)
}

/// (busy, total) jiffies of all CPUs from `/proc/stat`'s first line.
pub fn parse_cpu_line(text: &str) -> Option<(u64, u64)> {
    let line = text.lines().next()?.strip_prefix("cpu ")?;
    let v: Vec<u64> = line.split_whitespace().filter_map(|s| s.parse().ok()).collect();
    if v.len() < 4 {
        return None;
    }
    let total: u64 = v.iter().sum();
    // idle + iowait are not busy.
    let idle = v[3] + v.get(4).copied().unwrap_or(0);
    Some((total - idle, total))
}

/// A counter sampled over time, for a recent rate: the last sample and the percent measured up
/// to it. Calls closer together than [`MIN_INTERVAL`] get the last percent (the counters tick
/// every 10 ms; a shorter interval would read 0 or 100).
#[derive(Debug, Clone, Copy)]
struct Sample {
    at: Instant,
    busy: u64,
    total: u64,
    percent: Option<u64>,
}

const MIN_INTERVAL: Duration = Duration::from_secs(1);

/// The recent percent of `read()`'s (busy, total) counters, kept in `slot`: over the time since
/// the previous sample, or over `probe` measured now when there is none recent.
fn recent_percent(slot: &Mutex<Option<Sample>>, probe: Duration, read: &dyn Fn() -> Option<(u64, u64)>) -> Option<u64> {
    let mut last = slot.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(s) = *last {
        if s.at.elapsed() < MIN_INTERVAL && s.percent.is_some() {
            return s.percent;
        }
    }
    let mut before = match *last {
        Some(s) if s.at.elapsed() < Duration::from_secs(60) => Some((s.busy, s.total)),
        _ => None,
    };
    if before.is_none() {
        before = read();
        std::thread::sleep(probe);
    }
    let (b0, t0) = before?;
    let (b1, t1) = read()?;
    let percent = (t1 > t0).then(|| percent(b1.saturating_sub(b0), t1 - t0));
    *last = Some(Sample { at: Instant::now(), busy: b1, total: t1, percent });
    percent
}

static CPU_SAMPLE: Mutex<Option<Sample>> = Mutex::new(None);

/// The machine's recent CPU use in percent (OpenSearch's `OsStats.Cpu.percent`).
pub fn cpu_percent() -> Option<u64> {
    recent_percent(&CPU_SAMPLE, Duration::from_millis(100), &|| {
        parse_cpu_line(&std::fs::read_to_string("/proc/stat").ok()?)
    })
}

/// This process's figures.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ProcessFigures {
    pub open_fds: Option<u64>,
    pub max_fds: Option<u64>,
    /// User plus system CPU time.
    pub cpu_millis: Option<u64>,
    pub virtual_bytes: Option<u64>,
    /// Anonymous resident memory (`RssAnon`): the heap of a native process.
    pub heap_used: Option<u64>,
}

/// `RssAnon` (or, on old kernels, `VmRSS`) and `VmSize` of `/proc/self/status`, in bytes.
pub fn parse_status(text: &str) -> (Option<u64>, Option<u64>) {
    let field = |name: &str| {
        text.lines().find_map(|l| {
            let rest = l.strip_prefix(name)?.strip_prefix(':')?;
            rest.trim().trim_end_matches("kB").trim().parse::<u64>().ok().map(|kb| kb * 1024)
        })
    };
    (field("RssAnon").or_else(|| field("VmRSS")), field("VmSize"))
}

/// utime + stime (clock ticks) of `/proc/self/stat` (fields 14 and 15, after the command).
pub fn parse_stat_ticks(text: &str) -> Option<u64> {
    let after = &text[text.rfind(')')? + 1..];
    let f: Vec<&str> = after.split_whitespace().collect();
    // `after` starts at field 3 (state).
    Some(f.get(11)?.parse::<u64>().ok()? + f.get(12)?.parse::<u64>().ok()?)
}

pub fn process() -> ProcessFigures {
    let open_fds = std::fs::read_dir("/proc/self/fd").ok().map(|d| d.count() as u64);
    let mut lim = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
    // SAFETY: `lim` is a valid out-parameter for getrlimit.
    let max_fds = (unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim) } == 0).then_some(lim.rlim_cur);
    // SAFETY: sysconf has no memory effects.
    let ticks = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    let cpu_millis = std::fs::read_to_string("/proc/self/stat")
        .ok()
        .and_then(|s| parse_stat_ticks(&s))
        .filter(|_| ticks > 0)
        .map(|t| t * 1000 / ticks as u64);
    let (heap_used, virtual_bytes) =
        std::fs::read_to_string("/proc/self/status").ok().map(|s| parse_status(&s)).unwrap_or((None, None));
    ProcessFigures { open_fds, max_fds, cpu_millis, virtual_bytes, heap_used }
}

/// The most memory this process may use: its cgroup's limit when it has one, else the
/// machine's memory.
pub fn heap_max() -> Option<u64> {
    let cgroup = std::fs::read_to_string("/sys/fs/cgroup/memory.max").ok().and_then(|s| s.trim().parse::<u64>().ok());
    let machine = mem().map(|m| m.total);
    match (cgroup, machine) {
        (Some(c), Some(m)) => Some(c.min(m)),
        (c, m) => c.or(m),
    }
}

static PROCESS_CPU: Mutex<Option<Sample>> = Mutex::new(None);

/// The process's recent CPU use in percent of the machine's cores (OpenSearch's
/// `ProcessStats.Cpu.percent`): CPU time over wall time times cores.
pub fn process_cpu_percent() -> Option<u64> {
    let cores = std::thread::available_parallelism().map(|n| n.get() as u64).unwrap_or(1);
    recent_percent(&PROCESS_CPU, Duration::from_millis(100), &|| {
        Some((process().cpu_millis?, monotonic_millis() * cores))
    })
}

/// Milliseconds since a fixed point of this process (a monotonic wall clock).
fn monotonic_millis() -> u64 {
    static BASE: std::sync::OnceLock<Instant> = std::sync::OnceLock::new();
    BASE.get_or_init(Instant::now).elapsed().as_millis() as u64
}

/// Epoch milliseconds now.
pub fn now_millis() -> i64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_millis() as i64).unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn proc_texts_parse() {
        let m = parse_meminfo("MemTotal:       16000 kB\nMemFree:  100 kB\nMemAvailable:    4000 kB\n").unwrap();
        assert_eq!((m.total, m.free, m.used()), (16000 * 1024, 4000 * 1024, 12000 * 1024));
        assert_eq!(m.used_percent(), 75);
        assert_eq!(parse_meminfo("MemTotal: 1 kB\n"), None);
        assert_eq!(parse_loadavg("0.50 1.25 2.00 1/200 3333\n"), Some([0.5, 1.25, 2.0]));
        assert_eq!(parse_loadavg("x"), None);
        assert_eq!(parse_cpu_line("cpu  10 0 10 70 10 0 0 0 0 0\ncpu0 1"), Some((20, 100)));
        assert_eq!(parse_cpu_line("intr 1"), None);
        let (heap, virt) = parse_status("Name:\tfathom\nVmSize:\t  2048 kB\nVmRSS:\t 900 kB\nRssAnon:\t 512 kB\n");
        assert_eq!((heap, virt), (Some(512 * 1024), Some(2048 * 1024)));
        assert_eq!(parse_status("VmRSS: 4 kB").0, Some(4096));
        let stat = "123 (a b) c) S 1 2 3 4 5 6 7 8 9 10 40 2 0 0";
        assert_eq!(parse_stat_ticks(stat), Some(42));
        assert_eq!(parse_stat_ticks("1 (x) S"), None);
        assert_eq!(percent(1, 3), 33);
        assert_eq!(percent(5, 0), 0);
    }

    #[test]
    fn rates_are_measured_over_an_interval_and_kept_within_it() {
        let slot = Mutex::new(None);
        let counter = std::sync::atomic::AtomicU64::new(0);
        // Each read advances the counter: 30 busy of 100 total.
        let read = || {
            let n = counter.fetch_add(1, std::sync::atomic::Ordering::SeqCst) + 1;
            Some((30 * n, 100 * n))
        };
        assert_eq!(recent_percent(&slot, Duration::from_millis(1), &read), Some(30));
        assert_eq!(counter.load(std::sync::atomic::Ordering::SeqCst), 2);
        // Within the interval: the same figure, no new reading.
        assert_eq!(recent_percent(&slot, Duration::from_millis(1), &read), Some(30));
        assert_eq!(counter.load(std::sync::atomic::Ordering::SeqCst), 2);
        // An older sample is the start of the next interval (one reading).
        if let Some(s) = slot.lock().unwrap().as_mut() {
            s.at -= Duration::from_secs(2);
        }
        assert_eq!(recent_percent(&slot, Duration::from_millis(1), &read), Some(30));
        assert_eq!(counter.load(std::sync::atomic::Ordering::SeqCst), 3);
        assert_eq!(recent_percent(&Mutex::new(None), Duration::ZERO, &|| None), None);
    }

    #[test]
    fn this_process_and_machine_are_measured() {
        let p = process();
        assert!(p.open_fds.unwrap() > 0 && p.max_fds.unwrap() >= p.open_fds.unwrap(), "{p:?}");
        assert!(p.heap_used.unwrap() > 0 && p.heap_used <= p.virtual_bytes, "{p:?}");
        assert!(heap_max().unwrap() > 0);
        let m = mem().unwrap();
        assert!(m.free <= m.total);
        let first = cpu_percent().unwrap();
        assert!(first <= 100);
        // A second call within the interval reads the same figure.
        assert_eq!(cpu_percent(), Some(first));
        assert!(process_cpu_percent().unwrap() <= 100);
        assert!(load_average().is_some());
    }
}
