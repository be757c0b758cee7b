//! What hot threads measures of the process's own threads (Linux):
//!
//! - Per-thread times from `/proc/self/task/{tid}/schedstat`: nanoseconds on a CPU and
//!   nanoseconds runnable but waiting for a CPU (falling back to `stat`'s `utime + stime` in
//!   clock ticks, with no run-queue figure, where the kernel has no schedstat).
//! - A thread's stack, captured by the thread itself: a real-time signal sent with `tgkill`
//!   runs a handler on that thread which walks its frames (`backtrace::trace_unsynchronized`,
//!   libgcc's unwinder) into a static buffer, only instruction pointers, no allocation and no
//!   lock of ours, with the interrupted instruction from the signal's context; the caller
//!   symbolizes them afterwards from that instruction outwards. One capture at a time (a process-wide
//!   lock). The handler saves and restores `errno` and is installed with `SA_RESTART`; a system
//!   call the signal interrupts that the kernel does not restart returns `EINTR`, which the
//!   standard library and tokio retry or treat as a spurious wake-up. A thread that does not
//!   run the handler within [`CAPTURE_WAIT`] (it ended, or is stopped) yields no stack.

use std::sync::atomic::{AtomicBool, AtomicI64, AtomicUsize, Ordering};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

use crate::threadpool::names;

/// Frames kept of one stack.
pub const MAX_FRAMES: usize = 96;
/// How long a capture waits for the thread to run the handler.
pub const CAPTURE_WAIT: Duration = Duration::from_millis(200);

/// One thread's times at a moment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ThreadTimes {
    pub tid: i64,
    /// On a CPU.
    pub cpu_nanos: u64,
    /// Runnable, waiting for a CPU (`None` without schedstat).
    pub runqueue_nanos: Option<u64>,
}

fn read_times(tid: i64) -> Option<ThreadTimes> {
    if let Ok(s) = std::fs::read_to_string(format!("/proc/self/task/{tid}/schedstat")) {
        let mut it = s.split_whitespace().map(|x| x.parse::<u64>().ok());
        if let (Some(Some(cpu)), Some(Some(rq))) = (it.next(), it.next()) {
            return Some(ThreadTimes { tid, cpu_nanos: cpu, runqueue_nanos: Some(rq) });
        }
    }
    let stat = std::fs::read_to_string(format!("/proc/self/task/{tid}/stat")).ok()?;
    // Fields after the command name (which may hold spaces) start at the state, field 3.
    let rest = &stat[stat.rfind(')')? + 1..];
    let f: Vec<&str> = rest.split_whitespace().collect();
    let (ut, st) = (f.get(11)?.parse::<u64>().ok()?, f.get(12)?.parse::<u64>().ok()?);
    // SAFETY: sysconf only reads a configuration value.
    let hz = u64::try_from(unsafe { libc::sysconf(libc::_SC_CLK_TCK) }).ok().filter(|h| *h > 0).unwrap_or(100);
    Some(ThreadTimes { tid, cpu_nanos: (ut + st).saturating_mul(1_000_000_000 / hz), runqueue_nanos: None })
}

/// The ids of the process's threads.
pub fn thread_ids() -> Vec<i64> {
    let Ok(dir) = std::fs::read_dir("/proc/self/task") else { return Vec::new() };
    dir.filter_map(|e| e.ok()?.file_name().to_str()?.parse::<i64>().ok()).collect()
}

/// The times of every thread of the process now.
pub fn sample() -> Vec<ThreadTimes> {
    thread_ids().into_iter().filter_map(read_times).collect()
}

/// A thread's name: the full name a pool registered, else the kernel's (15 bytes at most).
pub fn thread_name(tid: i64) -> Option<String> {
    names::name_of(tid).or_else(|| {
        std::fs::read_to_string(format!("/proc/self/task/{tid}/comm")).ok().map(|s| s.trim_end().to_string())
    })
}

/// A symbolized frame.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Frame {
    pub ip: usize,
    /// The demangled function name (without its hash), when known.
    pub name: Option<String>,
    pub file: Option<String>,
    pub line: Option<u32>,
}

impl Frame {
    /// As a stack line: `name(file:line)`, `name`, or the address.
    pub fn render(&self) -> String {
        match (&self.name, &self.file, self.line) {
            (Some(n), Some(f), Some(l)) => format!("{n}({f}:{l})"),
            (Some(n), Some(f), None) => format!("{n}({f})"),
            (Some(n), None, _) => n.clone(),
            (None, ..) => format!("{:#x}", self.ip),
        }
    }
}

// The capture's shared state: the thread asked, the frames it wrote, and whether it is done.
// TARGET is the tid asked, BUSY while the handler writes, 0 when no capture is open.
const BUSY: i64 = -1;
static TARGET: AtomicI64 = AtomicI64::new(0);
static DONE: AtomicBool = AtomicBool::new(false);
static COUNT: AtomicUsize = AtomicUsize::new(0);
/// The interrupted instruction (from the signal's context): where the thread's own frames start.
static PC: AtomicUsize = AtomicUsize::new(0);
static FRAMES: [AtomicUsize; MAX_FRAMES] = [const { AtomicUsize::new(0) }; MAX_FRAMES];

/// The interrupted program counter of a signal context.
///
/// # Safety
/// `ctx` is the `ucontext_t` the kernel passed to an `SA_SIGINFO` handler (or null).
unsafe fn interrupted_pc(ctx: *mut libc::c_void) -> usize {
    if ctx.is_null() {
        return 0;
    }
    // SAFETY: the caller passes the kernel's ucontext_t.
    let uc = unsafe { &*(ctx as *const libc::ucontext_t) };
    #[cfg(target_arch = "x86_64")]
    {
        uc.uc_mcontext.gregs[libc::REG_RIP as usize] as usize
    }
    #[cfg(target_arch = "aarch64")]
    {
        uc.uc_mcontext.pc as usize
    }
    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    {
        let _ = uc;
        0
    }
}

extern "C" fn on_signal(_sig: libc::c_int, _info: *mut libc::siginfo_t, ctx: *mut libc::c_void) {
    // SAFETY: errno is thread-local; the handler restores what the interrupted code saw.
    let errno = unsafe { *libc::__errno_location() };
    let me = names::current_tid();
    if TARGET.compare_exchange(me, BUSY, Ordering::AcqRel, Ordering::Acquire).is_ok() {
        // SAFETY: the kernel's context of this very signal.
        PC.store(unsafe { interrupted_pc(ctx) }, Ordering::Relaxed);
        let mut n = 0usize;
        // SAFETY: only this handler walks frames while the capture lock is held (one capture at
        // a time); the closure stores into static atomics and allocates nothing.
        unsafe {
            backtrace::trace_unsynchronized(|f| {
                if let Some(slot) = FRAMES.get(n) {
                    slot.store(f.ip() as usize, Ordering::Relaxed);
                    n += 1;
                    true
                } else {
                    false
                }
            });
        }
        COUNT.store(n, Ordering::Relaxed);
        TARGET.store(0, Ordering::Release);
        DONE.store(true, Ordering::Release);
    }
    // SAFETY: as above.
    unsafe { *libc::__errno_location() = errno };
}

fn capture_signal() -> libc::c_int {
    libc::SIGRTMIN() + 4
}

/// Installs the handler once; whether it is installed.
fn install() -> bool {
    static INSTALLED: OnceLock<bool> = OnceLock::new();
    *INSTALLED.get_or_init(|| {
        // SAFETY: a zeroed sigaction is valid; the handler is async-signal-safe as described in
        // the module documentation.
        unsafe {
            let mut sa: libc::sigaction = std::mem::zeroed();
            sa.sa_sigaction = on_signal as *const () as libc::sighandler_t;
            sa.sa_flags = libc::SA_SIGINFO | libc::SA_RESTART;
            libc::sigemptyset(&mut sa.sa_mask);
            libc::sigaction(capture_signal(), &sa, std::ptr::null_mut()) == 0
        }
    })
}

/// A captured stack: instruction pointers innermost first (the handler's own frames included)
/// and the interrupted instruction, where the thread's own frames start.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Captured {
    pub ips: Vec<usize>,
    pub pc: usize,
}

/// Thread `tid`'s stack, or `None` when the thread did not answer.
pub fn capture(tid: i64) -> Option<Captured> {
    static LOCK: Mutex<()> = Mutex::new(());
    if tid == names::current_tid() || !install() {
        return None;
    }
    let _one = LOCK.lock().unwrap_or_else(|e| e.into_inner());
    DONE.store(false, Ordering::Release);
    TARGET.store(tid, Ordering::Release);
    // SAFETY: tgkill to a thread of this process with a signal whose handler is installed.
    let sent = unsafe { libc::syscall(libc::SYS_tgkill, libc::getpid(), tid, capture_signal()) } == 0;
    let deadline = Instant::now() + CAPTURE_WAIT;
    loop {
        if DONE.load(Ordering::Acquire) {
            let n = COUNT.load(Ordering::Relaxed).min(MAX_FRAMES);
            let ips = FRAMES[..n].iter().map(|f| f.load(Ordering::Relaxed)).collect();
            return Some(Captured { ips, pc: PC.load(Ordering::Relaxed) });
        }
        if !sent || Instant::now() >= deadline {
            // Withdraw the request unless the handler already took it (then it finishes).
            if TARGET.compare_exchange(tid, 0, Ordering::AcqRel, Ordering::Acquire).is_ok() {
                return None;
            }
        }
        std::thread::sleep(Duration::from_micros(200));
    }
}

/// Symbolizes a captured stack from the interrupted instruction outwards (the capture's own
/// frames and the signal trampoline dropped); inlined functions become one frame each. Without
/// the interrupted instruction among the frames, the frames after the handler's are shown.
pub fn symbolize(c: &Captured) -> Vec<Frame> {
    let start = match c.ips.iter().position(|&ip| ip == c.pc && ip != 0) {
        Some(i) => i,
        None => {
            let names: Vec<bool> = c.ips.iter().map(|&ip| resolve(ip, true).iter().any(is_capture_frame)).collect();
            names.iter().rposition(|b| *b).map_or(0, |i| i + 1)
        }
    };
    let mut frames = Vec::new();
    for (k, &ip) in c.ips.iter().enumerate().skip(start) {
        // A return address points after its call: look up the call itself (the interrupted
        // instruction is exact).
        frames.extend(resolve(ip, k != start || ip != c.pc));
    }
    frames
}

fn is_capture_frame(f: &Frame) -> bool {
    f.name.as_deref().is_some_and(|n| n.contains("thread_probe::on_signal"))
}

fn resolve(ip: usize, return_address: bool) -> Vec<Frame> {
    let mut out = Vec::new();
    let at = if return_address { ip.saturating_sub(1) } else { ip };
    backtrace::resolve(at as *mut libc::c_void, |s| {
        let name = s.name().map(|n| format!("{n:#}"));
        // Java prints a frame's file name alone (`Thread.java:750`).
        let file = s.filename().and_then(|f| f.file_name()).map(|f| f.to_string_lossy().into_owned());
        out.push(Frame { ip, name, file, line: s.lineno() });
    });
    if out.is_empty() {
        out.push(Frame { ip, name: None, file: None, line: None });
    }
    out
}

/// Whether a stack shows a thread waiting for work (a pool worker on its condition variable,
/// a runtime worker parked or polling for events): OpenSearch's idle threads.
pub fn is_idle(frames: &[Frame]) -> bool {
    let has = |s: &str| frames.iter().any(|f| f.name.as_deref().is_some_and(|n| n.contains(s)));
    (has("fathom::threadpool::worker") && has("Condvar") && has("wait"))
        || has("epoll_wait")
        || has("tokio::runtime::park")
        || has("parking_lot::Condvar")
        || (has("tokio::runtime::scheduler") && has("park"))
        || has("tokio::runtime::blocking::pool::Inner::run") && has("wait_timeout")
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicBool;
    use std::sync::Arc;

    #[inline(never)]
    fn spin_here(stop: &AtomicBool) -> u64 {
        let mut x = 0u64;
        while !stop.load(Ordering::Relaxed) {
            x = std::hint::black_box(x.wrapping_mul(31).wrapping_add(7));
        }
        x
    }

    #[test]
    fn times_of_a_busy_thread_grow_and_its_stack_is_captured() {
        let stop = Arc::new(AtomicBool::new(false));
        let (tx, rx) = std::sync::mpsc::channel();
        let s = stop.clone();
        let h = std::thread::Builder::new()
            .name("probe-spinner".into())
            .spawn(move || {
                let _ = tx.send(names::current_tid());
                spin_here(&s)
            })
            .unwrap();
        let tid = rx.recv().unwrap();
        let before = read_times(tid).unwrap();
        // The thread may still be handing over its id when the first signal lands: capture
        // until the stack shows the spinning (bounded).
        let spins = |f: &[Frame]| f.iter().any(|f| f.name.as_deref().is_some_and(|n| n.contains("spin_here")));
        let mut frames = Vec::new();
        for _ in 0..50 {
            if let Some(c) = capture(tid) {
                frames = symbolize(&c);
                if spins(&frames) {
                    break;
                }
            }
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        let after = read_times(tid).unwrap();
        stop.store(true, Ordering::Relaxed);
        h.join().unwrap();
        assert!(after.cpu_nanos >= before.cpu_nanos);
        assert!(thread_ids().contains(&names::current_tid()));
        assert!(!frames.is_empty(), "the spinning thread answered");
        assert!(
            frames.iter().any(|f| f.name.as_deref().is_some_and(|n| n.contains("spin_here"))),
            "{:?}",
            frames.iter().map(Frame::render).collect::<Vec<_>>()
        );
        assert!(!frames.iter().any(|f| f.name.as_deref().is_some_and(|n| n.contains("on_signal"))));
        // The stack starts at the interrupted instruction, not at the signal trampoline.
        assert!(frames[0].name.is_some(), "{:?}", frames[0]);
    }

    #[test]
    fn a_missing_thread_yields_nothing() {
        assert_eq!(read_times(i64::MAX), None);
        assert_eq!(capture(names::current_tid()), None);
    }

    #[test]
    fn frames_render_as_stack_lines() {
        let f = Frame { ip: 0x10, name: Some("a::b".into()), file: Some("src/a.rs".into()), line: Some(3) };
        assert_eq!(f.render(), "a::b(src/a.rs:3)");
        assert_eq!(Frame { ip: 0x10, name: None, file: None, line: None }.render(), "0x10");
    }
}
