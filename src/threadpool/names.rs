//! The full names of the process's threads by kernel thread id. Linux keeps only 15 bytes of a
//! thread's name (`/proc/self/task/{tid}/comm`), which cuts `fathom[node-1][search][T#3]` to
//! `fathom[node-1][`; threads that matter to hot threads register their whole name here while
//! they run.

use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

fn registry() -> &'static Mutex<HashMap<i64, String>> {
    static NAMES: OnceLock<Mutex<HashMap<i64, String>>> = OnceLock::new();
    NAMES.get_or_init(|| Mutex::new(HashMap::new()))
}

/// The calling thread's kernel id.
pub fn current_tid() -> i64 {
    // SAFETY: gettid takes no arguments and cannot fail.
    unsafe { libc::syscall(libc::SYS_gettid) }
}

/// The registered full name of thread `tid`.
pub fn name_of(tid: i64) -> Option<String> {
    registry().lock().unwrap_or_else(|e| e.into_inner()).get(&tid).cloned()
}

/// The calling thread's name, registered until the guard drops (the thread ends).
#[derive(Debug)]
pub struct Registered(i64);

impl Registered {
    /// Registers the calling thread under its `std` name (nothing when it has none).
    pub fn current() -> Option<Registered> {
        let name = std::thread::current().name()?.to_string();
        let tid = current_tid();
        registry().lock().unwrap_or_else(|e| e.into_inner()).insert(tid, name);
        Some(Registered(tid))
    }
}

impl Drop for Registered {
    fn drop(&mut self) {
        registry().lock().unwrap_or_else(|e| e.into_inner()).remove(&self.0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_thread_is_named_while_it_runs() {
        let h = std::thread::Builder::new()
            .name("fathom[some-long-node][search][T#12]".into())
            .spawn(|| {
                let g = Registered::current();
                assert!(g.is_some());
                let tid = current_tid();
                assert_eq!(name_of(tid).as_deref(), Some("fathom[some-long-node][search][T#12]"));
                drop(g);
                assert_eq!(name_of(tid), None);
            })
            .unwrap();
        h.join().unwrap();
    }
}
