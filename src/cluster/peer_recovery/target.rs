//! The recovering copy's side of a peer recovery: a thread per recovery that pulls the files
//! and operations from the primary (see the module docs of [`super`] for the protocol), then
//! lets the copy serve and reports it started.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::{ChunkRequest, FileMeta, PrepareAnswer, SessionRequest, StartAnswer, StartRequest, CHUNK_SIZE};
use crate::cluster::applier::ShardEvent;
use crate::cluster::index_service::{IndexService, IndexShard};
use crate::cluster::ClusterService;
use crate::engine::store::{Directory, FsDirectory};
use crate::error::{ErrorKind, OsError, OsResult};
use crate::shard::recovery::{RecoverySource, RecoveryState, Stage};

/// How long one request of a recovery may take.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(60);
/// How long the target retries `start_recovery` while the primary is not ready.
const START_RETRY: Duration = Duration::from_secs(30);

/// What a recovery needs to know about the copy it fills.
#[derive(Debug, Clone)]
pub struct Job {
    pub svc: Arc<IndexService>,
    pub shard: u32,
    pub allocation_id: String,
    pub source_node: String,
    pub primary_term: u64,
}

/// Starts recovering `job` on a thread of its own, unless it already runs.
pub fn spawn(cs: &Arc<ClusterService>, job: Job) {
    let key = (job.svc.uuid.clone(), job.shard, job.allocation_id.clone());
    {
        let mut running = cs.recoveries.running.lock().unwrap_or_else(|e| e.into_inner());
        if running.contains(&key) {
            return;
        }
        running.push(key.clone());
    }
    let cs2 = cs.clone();
    let key2 = key.clone();
    let spawned = std::thread::Builder::new().name("fathom[recovery]".into()).spawn(move || {
        let outcome = run(&cs2, &job);
        let event = match outcome {
            Ok(shard) => {
                job.svc.finish_recovery(&shard);
                ShardEvent::Started {
                    index: job.svc.name.clone(),
                    shard: job.shard,
                    allocation_id: job.allocation_id.clone(),
                }
            }
            Err(e) => {
                job.svc.drop_recovering(job.shard);
                tracing::warn!(index = %job.svc.name, shard = job.shard, error = %e.reason, "peer recovery failed");
                ShardEvent::Failed {
                    index: job.svc.name.clone(),
                    shard: job.shard,
                    allocation_id: job.allocation_id.clone(),
                    reason: format!("failed recovery: {}", e.reason),
                }
            }
        };
        cs2.recoveries.running.lock().unwrap_or_else(|e| e.into_inner()).retain(|k| *k != key);
        if still_assigned(&cs2, &job) {
            if let Err(e) = cs2.report(vec![event]) {
                tracing::warn!(error = %e.reason, "reporting a peer recovery's outcome failed");
            }
        }
    });
    if let Err(e) = spawned {
        tracing::error!(error = %e, "cannot start a recovery thread");
        cs.recoveries.running.lock().unwrap_or_else(|e| e.into_inner()).retain(|k| *k != key2);
    }
}

/// Whether the routing table still assigns the copy to this node.
fn still_assigned(cs: &ClusterService, job: &Job) -> bool {
    let st = cs.state();
    st.routing
        .shard(&job.svc.name, job.shard)
        .and_then(|t| t.assigned_on(&cs.node.node_id))
        .is_some_and(|c| c.allocation_id.as_deref() == Some(job.allocation_id.as_str()))
}

fn call<T: serde::de::DeserializeOwned>(
    cs: &ClusterService,
    node: &str,
    action: &str,
    req: &impl serde::Serialize,
) -> OsResult<T> {
    let body = serde_json::to_vec(req).map_err(|e| OsError::internal(e.to_string()))?;
    let bytes = cs.send(node, action, body, REQUEST_TIMEOUT)?;
    serde_json::from_slice(&bytes).map_err(|e| OsError::internal(format!("malformed answer to {action}: {e}")))
}

fn cancelled(cs: &ClusterService, job: &Job) -> OsResult<()> {
    if still_assigned(cs, job) {
        Ok(())
    } else {
        Err(OsError::new(ErrorKind::IllegalState, "the copy is no longer assigned here; recovery cancelled"))
    }
}

/// Runs the recovery; the copy, serving-ready, on success.
fn run(cs: &ClusterService, job: &Job) -> OsResult<Arc<IndexShard>> {
    let svc = &job.svc;
    let mut rs = RecoveryState::new(RecoverySource::Peer, false);
    rs.source_node = cs.state().node(&job.source_node).map(|m| crate::shard::recovery::PeerNode {
        id: m.node_id.clone(),
        name: m.name.clone(),
        transport_address: m.transport_address.clone(),
    });
    let start = StartRequest {
        index: svc.name.clone(),
        uuid: svc.uuid.clone(),
        shard: job.shard,
        target_allocation_id: job.allocation_id.clone(),
        target_node: cs.node.node_id.clone(),
    };
    let deadline = Instant::now() + START_RETRY;
    let answer: StartAnswer = loop {
        cancelled(cs, job)?;
        match call(cs, &job.source_node, super::ACTION_START, &start) {
            Ok(a) => break a,
            Err(e) if e.kind == ErrorKind::ShardNotFound && Instant::now() < deadline => {
                std::thread::sleep(Duration::from_millis(200));
            }
            Err(e) => return Err(e),
        }
    };
    rs.advance(Stage::Index);
    let base = svc.shard_dir(job.shard);
    let open = |d: &str| -> OsResult<Arc<dyn Directory>> {
        Ok(Arc::new(FsDirectory::open(base.join(d)).map_err(OsError::from)?) as Arc<dyn Directory>)
    };
    let (index_dir, translog_dir) = (open("index")?, open("translog")?);
    let wanted: HashMap<&str, &FileMeta> = answer.files.iter().map(|f| (f.name.as_str(), f)).collect();
    let mut reused = Vec::new();
    for name in index_dir.list().map_err(OsError::from)? {
        let same = wanted
            .get(name.as_str())
            .is_some_and(|w| super::source::file_meta(index_dir.as_ref(), &name).is_ok_and(|m| m == **w));
        if same {
            reused.push(name);
        } else {
            index_dir.delete(&name).map_err(OsError::from)?;
        }
    }
    for name in translog_dir.list().map_err(OsError::from)? {
        translog_dir.delete(&name).map_err(OsError::from)?;
    }
    // Commit points last: a store interrupted here names no file it lacks.
    let mut order: Vec<&FileMeta> = answer.files.iter().collect();
    order.sort_by_key(|f| f.name.starts_with(crate::engine::index::commit::PREFIX));
    let mut copied = Vec::new();
    for f in order {
        if reused.contains(&f.name) {
            rs.index.add_file(f.name.clone(), f.length, true);
        } else {
            copied.push(f);
        }
    }
    let in_flight = super::concurrent_file_chunks(&cs.metadata());
    copy_files(cs, job, &answer.session, index_dir.as_ref(), &copied, in_flight, &mut |f| {
        rs.index.add_file(f.name.clone(), f.length, false)
    })?;
    index_dir.sync_dir().map_err(OsError::from)?;
    rs.advance(Stage::VerifyIndex);
    for f in copied {
        let bytes = index_dir.open(&f.name).map_err(OsError::from)?;
        let actual = match crate::engine::codec::footer_checksum(&bytes, &f.name) {
            Ok(_) => crate::engine::codec::check_footer(&bytes, &f.name).map(|_| f.checksum).map_err(OsError::from)?,
            Err(_) => crc32fast::hash(&bytes),
        };
        if actual != f.checksum || bytes.len() as u64 != f.length {
            return Err(OsError::new(
                ErrorKind::CorruptIndex,
                format!("[{}] copied file does not match the primary's (checksum or length)", f.name),
            ));
        }
    }
    rs.advance(Stage::Translog);
    crate::shard::replica::bootstrap_copied_store(
        index_dir.as_ref(),
        translog_dir,
        job.primary_term,
        svc.translog_config(),
    )
    .map_err(OsError::from)?;
    let engine = svc.open_engine(job.shard, &job.allocation_id, job.primary_term).map_err(OsError::from)?;
    let shard = Arc::new(svc.new_shard(job.shard, &job.allocation_id, engine, false, job.primary_term));
    svc.recovering.write().unwrap_or_else(|e| e.into_inner()).push(shard.clone());
    let session = SessionRequest { session: answer.session.clone(), at: 0 };
    let prepared: PrepareAnswer = call(cs, &job.source_node, super::ACTION_PREPARE_TRANSLOG, &session)?;
    rs.translog.total = prepared.total_ops as i64;
    rs.translog.total_on_start = prepared.total_ops as i64;
    let mut at = 0i64;
    loop {
        cancelled(cs, job)?;
        let req = SessionRequest { session: answer.session.clone(), at };
        let body = serde_json::to_vec(&req).map_err(|e| OsError::internal(e.to_string()))?;
        let bytes = cs.send(&job.source_node, super::ACTION_TRANSLOG_OPS, body, REQUEST_TIMEOUT)?;
        let ops = crate::cluster::replication::decode_ops(&bytes)?;
        if ops.is_empty() {
            break;
        }
        // One batch under the write lock at once; durable at the sync below.
        shard.engine.apply_replica_ops(&ops, &|_| false).map_err(OsError::from)?;
        at += ops.len() as i64;
        rs.translog.recovered += ops.len() as u64;
    }
    let persisted = shard.engine.sync_replica().map_err(OsError::from)?;
    rs.advance(Stage::Finalize);
    // Searchable as soon as it serves (OpenSearch refreshes a recovered copy in finalize).
    shard.refresh()?;
    // The copy's own commit, so that a restart replays little.
    shard.engine.flush().map_err(OsError::from)?;
    let _: serde_json::Value =
        call(cs, &job.source_node, super::ACTION_FINALIZE, &SessionRequest { session: answer.session, at: persisted })?;
    rs.advance(Stage::Done);
    *shard.peer_recovery.lock().unwrap_or_else(|e| e.into_inner()) = Some(rs);
    Ok(shard)
}

/// One chunk a recovery pulls: a file of the list, the offset and the length.
struct Chunk {
    file: usize,
    offset: u64,
    len: u32,
}

/// Pulls `files` into `dir` in chunks, with up to `in_flight` chunk requests outstanding
/// (OpenSearch's `indices.recovery.max_concurrent_file_chunks`): fetcher `k` pulls chunks
/// `k`, `k + in_flight`, ... and hands each over on a channel of its own, and this thread
/// writes them in order, one file after the other (each fsynced, then `done(file)`), so at
/// most two chunks per fetcher are held in memory.
fn copy_files(
    cs: &ClusterService,
    job: &Job,
    session: &str,
    dir: &dyn Directory,
    files: &[&FileMeta],
    in_flight: usize,
    done: &mut dyn FnMut(&FileMeta),
) -> OsResult<()> {
    let mut chunks = Vec::new();
    for (file, f) in files.iter().enumerate() {
        let mut offset = 0u64;
        loop {
            let len = (f.length - offset).min(CHUNK_SIZE as u64) as u32;
            chunks.push(Chunk { file, offset, len });
            offset += u64::from(len);
            if offset >= f.length {
                break;
            }
        }
    }
    let in_flight = in_flight.clamp(1, chunks.len().max(1));
    let fetch = |c: &Chunk| -> OsResult<Vec<u8>> {
        if c.len == 0 {
            return Ok(Vec::new());
        }
        let f = files[c.file];
        let req = ChunkRequest { session: session.to_string(), name: f.name.clone(), offset: c.offset, len: c.len };
        let body = serde_json::to_vec(&req).map_err(|e| OsError::internal(e.to_string()))?;
        let bytes = cs.send(&job.source_node, super::ACTION_FILE_CHUNK, body, REQUEST_TIMEOUT)?;
        if bytes.len() != c.len as usize {
            return Err(OsError::internal(format!(
                "[{}] the primary sent {} bytes at offset {} where {} were asked for",
                f.name,
                bytes.len(),
                c.offset,
                c.len
            )));
        }
        Ok(bytes)
    };
    let stop = std::sync::atomic::AtomicBool::new(false);
    std::thread::scope(|s| {
        let mut from = Vec::new();
        for k in 0..in_flight {
            let (tx, rx) = std::sync::mpsc::sync_channel::<OsResult<Vec<u8>>>(1);
            from.push(rx);
            let (chunks, stop, fetch) = (&chunks, &stop, &fetch);
            s.spawn(move || {
                for c in chunks.iter().skip(k).step_by(in_flight) {
                    if stop.load(std::sync::atomic::Ordering::SeqCst) {
                        break;
                    }
                    let r = fetch(c);
                    let failed = r.is_err();
                    if tx.send(r).is_err() || failed {
                        break;
                    }
                }
            });
        }
        let r = write_chunks(cs, job, dir, files, &chunks, &from, done);
        // Fetchers still running stop at their next chunk (or at a send nobody receives).
        stop.store(true, std::sync::atomic::Ordering::SeqCst);
        drop(from);
        r
    })
}

/// The writing half of [`copy_files`]: chunk `i` comes from `from[i % from.len()]`.
fn write_chunks(
    cs: &ClusterService,
    job: &Job,
    dir: &dyn Directory,
    files: &[&FileMeta],
    chunks: &[Chunk],
    from: &[std::sync::mpsc::Receiver<OsResult<Vec<u8>>>],
    done: &mut dyn FnMut(&FileMeta),
) -> OsResult<()> {
    let mut open: Option<(usize, Box<dyn crate::engine::store::FileWrite>)> = None;
    for (i, c) in chunks.iter().enumerate() {
        if open.as_ref().is_none_or(|(n, _)| *n != c.file) {
            if let Some((n, mut w)) = open.take() {
                w.sync().map_err(OsError::from)?;
                done(files[n]);
            }
            cancelled(cs, job)?;
            open = Some((c.file, dir.create(&files[c.file].name).map_err(OsError::from)?));
        }
        let bytes = from[i % from.len()]
            .recv()
            .map_err(|_| OsError::internal("a file chunk fetcher of the recovery stopped"))??;
        if let Some((_, w)) = open.as_mut() {
            w.write_all(&bytes).map_err(OsError::from)?;
        }
    }
    if let Some((n, mut w)) = open.take() {
        w.sync().map_err(OsError::from)?;
        done(files[n]);
    }
    Ok(())
}
