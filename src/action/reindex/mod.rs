//! Reindex, update by query and delete by query: bulk-by-scroll jobs.
//!
//! | file | holds |
//! |---|---|
//! | `request.rs` | the request ([`Job`]) and its parsing and validation |
//! | `remote.rs` | `source.remote` and `reindex.remote.allowlist` |
//! | `pages.rs` | where hits come from: a local scroll |
//! | `remote_source.rs` | hits from a remote cluster over HTTP |
//! | `worker.rs` | one worker: hits → bulk items (script applied) → counts; throttling |
//! | `status.rs` | the live status (`BulkByScrollTask.Status`) and its rendering |
//!
//! A job runs in the calling thread (one worker) or in one thread per slice, all on the job's
//! task: `_tasks` shows its status, a cancel stops it between batches, and `_rethrottle` finds
//! it here ([`rethrottle`]) by its task id.

pub mod pages;
pub mod remote;
pub mod remote_source;
pub mod request;
pub mod status;
pub mod worker;

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Instant;

use serde_json::{json, Value};

use crate::action::search::pit::ReaderContexts;
use crate::cluster::ClusterService;
use crate::error::{ErrorKind, OsError, OsResult};
use crate::tasks::{Task, TaskId};
pub use request::{Job, Kind, Slices};
use status::WorkerState;

/// Slices of `slices=auto` at most (`AUTO_SLICES` caps at the shard count, OpenSearch's limit
/// for one request is 20 in the user's document).
pub const MAX_AUTO_SLICES: u32 = 20;

/// A running job, as `_rethrottle` and `_tasks` see it.
#[derive(Debug)]
pub struct Running {
    pub kind: Kind,
    pub workers: Vec<Arc<WorkerState>>,
}

fn running() -> &'static Mutex<HashMap<TaskId, Arc<Running>>> {
    static JOBS: OnceLock<Mutex<HashMap<TaskId, Arc<Running>>>> = OnceLock::new();
    JOBS.get_or_init(|| Mutex::new(HashMap::new()))
}

/// Removes a job from [`running`] when it ends.
struct Registered(Option<TaskId>);

impl Drop for Registered {
    fn drop(&mut self) {
        if let Some(id) = self.0.take() {
            running().lock().unwrap_or_else(|e| e.into_inner()).remove(&id);
        }
    }
}

/// What a job needs from its node.
#[derive(Clone)]
pub struct Env {
    pub cs: Arc<ClusterService>,
    pub reg: Arc<ReaderContexts>,
    /// `reindex.remote.allowlist`.
    pub allowlist: Option<String>,
}

/// The number of workers: `slices` or, for `auto`, the fewest shards of a source index (at
/// most [`MAX_AUTO_SLICES`]).
fn slice_count(env: &Env, job: &Job) -> OsResult<u32> {
    match job.slices {
        Slices::Count(n) => Ok(n),
        Slices::Auto if job.remote.is_some() => Ok(1),
        Slices::Auto => {
            let md = env.cs.metadata();
            let names = crate::cluster::resolve::resolve(&md, &job.source, job.opts)?;
            let fewest =
                names.iter().filter_map(|n| md.indices.get(n)).map(|m| m.number_of_shards()).min().unwrap_or(1);
            Ok(fewest.clamp(1, MAX_AUTO_SLICES))
        }
    }
}

/// Runs a job to its end on the calling thread's task; answers the HTTP status and the
/// response body (`BulkByScrollResponse`).
pub fn execute(env: &Env, job: &Job) -> OsResult<(u16, Value)> {
    let start = Instant::now();
    job.validate()?;
    if let Some(r) = &job.remote {
        remote::check_allowlist(env.allowlist.as_deref(), r)?;
    }
    let n = slice_count(env, job)?;
    let sliced = n > 1;
    let workers: Vec<Arc<WorkerState>> = if sliced {
        (0..n).map(|i| Arc::new(WorkerState::new(Some(i), job.requests_per_second / n as f32))).collect()
    } else {
        vec![Arc::new(WorkerState::new(None, job.requests_per_second))]
    };
    let run = Arc::new(Running { kind: job.kind, workers: workers.clone() });
    let task = crate::tasks::current();
    let _registered = Registered(task.as_ref().and_then(|t| {
        let id = t.task_id()?;
        running().lock().unwrap_or_else(|e| e.into_inner()).insert(id.clone(), run.clone());
        Some(id)
    }));
    if let Some(t) = &task {
        let r = run.clone();
        let weak = Arc::downgrade(t);
        t.set_status(Arc::new(move || {
            let canceled = weak.upgrade().and_then(|t| t.cancel_reason());
            status::status_json(&r.workers, r.kind, false, canceled)
        }));
    }
    let cancelled = {
        let t = task.clone();
        move || t.as_ref().is_some_and(|t| t.is_cancelled())
    };
    let results: Vec<OsResult<worker::WorkerResult>> = if sliced {
        std::thread::scope(|s| {
            let handles: Vec<_> = workers
                .iter()
                .enumerate()
                .map(|(i, w)| {
                    let max_docs = job.max_docs.map(|m| m / u64::from(n) + u64::from((i as u64) < m % u64::from(n)));
                    let task = task.clone();
                    let cancelled = &cancelled;
                    s.spawn(move || {
                        let _working = task.as_ref().map(|t| t.enter());
                        run_worker(env, job, w, Some((i as i32, n as i32)), max_docs, cancelled)
                    })
                })
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().unwrap_or_else(|_| Err(OsError::internal("a reindex worker panicked"))))
                .collect()
        })
    } else {
        vec![run_worker(env, job, &workers[0], None, job.max_docs, &cancelled)]
    };
    let mut failures = Vec::new();
    let mut written: Vec<String> = Vec::new();
    for r in results {
        let r = r?;
        failures.extend(r.failures);
        for i in r.written {
            if !written.contains(&i) {
                written.push(i);
            }
        }
    }
    if job.refresh {
        let expr = if job.kind == Kind::Reindex { written.join(",") } else { job.source.clone() };
        if !expr.is_empty() {
            let opts = crate::cluster::resolve::IndicesOptions::lenient_expand_open();
            crate::action::indices::broadcast(&env.cs, &expr, opts, crate::action::indices::Broadcast::Refresh)?;
        }
    }
    let canceled = task.as_ref().and_then(|t| t.cancel_reason());
    let mut body = serde_json::Map::new();
    body.insert("took".into(), json!(start.elapsed().as_millis() as u64));
    body.insert("timed_out".into(), json!(false));
    if let Value::Object(m) = status::status_json(&workers, job.kind, true, canceled) {
        body.extend(m);
    }
    let code = worker::response_status(&failures);
    body.insert("failures".into(), Value::Array(failures));
    Ok((code, Value::Object(body)))
}

fn run_worker(
    env: &Env,
    job: &Job,
    w: &WorkerState,
    slice: Option<(i32, i32)>,
    max_docs: Option<u64>,
    cancelled: &(dyn Fn() -> bool + Sync),
) -> OsResult<worker::WorkerResult> {
    match &job.remote {
        Some(r) => {
            let mut pages = remote_source::RemoteScroll::new(r.clone(), job, max_docs);
            worker::run(&env.cs, job, w, &mut pages, max_docs, cancelled)
        }
        None => {
            let mut pages = pages::LocalScroll::new(env.cs.clone(), env.reg.clone(), job, slice, max_docs);
            worker::run(&env.cs, job, w, &mut pages, max_docs, cancelled)
        }
    }
}

/// `_rethrottle`: sets the rate of the running job of task `id` (of this node), split over its
/// slices; answers the task.
pub fn rethrottle(id: &TaskId, rps: f32) -> OsResult<Arc<Running>> {
    let run = running().lock().unwrap_or_else(|e| e.into_inner()).get(id).cloned();
    let Some(run) = run else {
        return Err(OsError::new(ErrorKind::ResourceNotFound, format!("task [{id}] is missing")));
    };
    let per = rps / run.workers.len() as f32;
    for w in &run.workers {
        w.rethrottle(per);
    }
    Ok(run)
}

/// The running task `id`, for the answer of a rethrottle.
pub fn task_of(tm: &crate::tasks::TaskManager, id: &TaskId) -> Option<Arc<Task>> {
    tm.get(id.id)
}
