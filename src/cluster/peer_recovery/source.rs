//! The primary's side of a peer recovery: the actions a recovering copy calls (see the module
//! docs of [`super`] for the protocol).

use std::sync::Arc;
use std::time::Instant;

use super::{
    ChunkRequest, FileMeta, PrepareAnswer, Session, SessionRequest, StartAnswer, StartRequest, CHUNK_SIZE,
    OPS_PER_BATCH,
};
use crate::cluster::ClusterService;
use crate::engine::store::Directory;
use crate::error::{ErrorKind, OsError, OsResult};

fn parse<T: serde::de::DeserializeOwned>(payload: &[u8], what: &str) -> OsResult<T> {
    serde_json::from_slice(payload).map_err(|e| OsError::illegal(format!("malformed {what} request: {e}")))
}

fn json<T: serde::Serialize>(v: &T) -> OsResult<Vec<u8>> {
    serde_json::to_vec(v).map_err(|e| OsError::internal(e.to_string()))
}

/// The footer checksum of a file (its whole CRC32 when it has no footer).
pub(crate) fn file_meta(dir: &dyn Directory, name: &str) -> OsResult<FileMeta> {
    let bytes = dir.open(name).map_err(OsError::from)?;
    let checksum = crate::engine::codec::footer_checksum(&bytes, name).unwrap_or_else(|_| crc32fast::hash(&bytes));
    Ok(FileMeta { name: name.to_string(), length: bytes.len() as u64, checksum })
}

/// `start_recovery`: flush, pin the commit's files, keep the translog, list the files.
pub fn handle_start(cs: &ClusterService, payload: &[u8]) -> OsResult<Vec<u8>> {
    let req: StartRequest = parse(payload, "start recovery")?;
    let svc = cs.index(&req.index)?;
    let shard = svc
        .held(req.shard)
        .filter(|s| svc.uuid == req.uuid && s.replication.is_primary() && !s.engine.failer().is_failed())
        .ok_or_else(|| {
            OsError::new(
                ErrorKind::ShardNotFound,
                format!("[{}][{}] the primary is not started on this node yet", req.index, req.shard),
            )
        })?;
    shard.engine.retain_translog();
    let pinned = shard.engine.flush_pinned();
    let (cp, pin) = match pinned {
        Ok(p) => p,
        Err(e) => {
            shard.engine.release_translog();
            return Err(e.into());
        }
    };
    let dir = shard.engine.writer().directory().clone();
    let names = cp.files(dir.as_ref());
    let files: OsResult<Vec<FileMeta>> =
        names.map_err(OsError::from).and_then(|names| names.iter().map(|n| file_meta(dir.as_ref(), n)).collect());
    let session = crate::cluster::indices::new_uuid();
    let local_checkpoint = cp.user_i64(crate::engine::index::commit::keys::LOCAL_CHECKPOINT).unwrap_or(-1);
    // From here the session owns the translog retention (released when it drops).
    let mut s = Session {
        shard,
        dir,
        files: Vec::new(),
        local_checkpoint,
        target_allocation_id: req.target_allocation_id,
        target_node: req.target_node,
        ops: None,
        _pin: pin,
        last_used: Instant::now(),
    };
    let files = files?;
    let answer = StartAnswer {
        session: session.clone(),
        files: files.clone(),
        local_checkpoint,
        source_node: cs.node.node_id.clone(),
    };
    s.files = files;
    lock(&cs.recoveries.sessions).insert(session, s);
    json(&answer)
}

fn lock<T>(m: &std::sync::Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

fn no_session(id: &str) -> OsError {
    OsError::new(ErrorKind::IllegalState, format!("recovery session [{id}] is not running on this node"))
}

/// `file_chunk`: bytes of one pinned file, throttled.
pub fn handle_chunk(cs: &ClusterService, payload: &[u8]) -> OsResult<Vec<u8>> {
    let req: ChunkRequest = parse(payload, "file chunk")?;
    let dir = {
        let mut sessions = lock(&cs.recoveries.sessions);
        let s = sessions.get_mut(&req.session).ok_or_else(|| no_session(&req.session))?;
        if !s.files.iter().any(|f| f.name == req.name) {
            return Err(OsError::illegal(format!("[{}] is not a file of this recovery", req.name)));
        }
        s.last_used = Instant::now();
        s.dir.clone()
    };
    let bytes = dir.open(&req.name).map_err(OsError::from)?;
    let start = (req.offset as usize).min(bytes.len());
    let end = start.saturating_add((req.len as usize).min(CHUNK_SIZE)).min(bytes.len());
    cs.recoveries.throttle(end - start, cs.recoveries.rate(&cs.metadata()));
    Ok(bytes[start..end].to_vec())
}

/// `prepare_translog`: track the copy (new writes reach it), then snapshot the translog above
/// the commit (every older write is in the snapshot).
pub fn handle_prepare(cs: &ClusterService, payload: &[u8]) -> OsResult<Vec<u8>> {
    let req: SessionRequest = parse(payload, "prepare translog")?;
    let (shard, aid, node, from) = {
        let mut sessions = lock(&cs.recoveries.sessions);
        let s = sessions.get_mut(&req.session).ok_or_else(|| no_session(&req.session))?;
        s.last_used = Instant::now();
        (s.shard.clone(), s.target_allocation_id.clone(), s.target_node.clone(), s.local_checkpoint + 1)
    };
    shard.replication.track(&aid, &node);
    let ops = shard.engine.operations_from(from).map_err(OsError::from)?;
    let total_ops = ops.len() as u64;
    if let Some(s) = lock(&cs.recoveries.sessions).get_mut(&req.session) {
        s.ops = Some(Arc::new(ops));
    }
    json(&PrepareAnswer { total_ops })
}

/// `translog_ops`: the next batch of the snapshot from position `at` (empty at the end).
pub fn handle_ops(cs: &ClusterService, payload: &[u8]) -> OsResult<Vec<u8>> {
    let req: SessionRequest = parse(payload, "translog ops")?;
    let ops = {
        let mut sessions = lock(&cs.recoveries.sessions);
        let s = sessions.get_mut(&req.session).ok_or_else(|| no_session(&req.session))?;
        s.last_used = Instant::now();
        s.ops.clone().ok_or_else(|| OsError::new(ErrorKind::IllegalState, "the translog phase was not prepared"))?
    };
    let from = usize::try_from(req.at).unwrap_or(0).min(ops.len());
    let to = (from + OPS_PER_BATCH).min(ops.len());
    Ok(crate::cluster::replication::encode_ops(&ops[from..to]))
}

/// `finalize`: the copy holds everything; it joins the in-sync copies and the session ends.
pub fn handle_finalize(cs: &ClusterService, payload: &[u8]) -> OsResult<Vec<u8>> {
    let req: SessionRequest = parse(payload, "finalize")?;
    let s = lock(&cs.recoveries.sessions).remove(&req.session).ok_or_else(|| no_session(&req.session))?;
    // The copy catches up with the global checkpoint through replication (its answers raise
    // the checkpoint the group knows); bounded wait.
    let deadline = Instant::now() + std::time::Duration::from_secs(30);
    loop {
        let gcp = s.shard.engine.global_checkpoint();
        if s.shard.replication.mark_in_sync(&s.target_allocation_id, req.at, gcp) {
            break;
        }
        if Instant::now() >= deadline {
            return Err(OsError::new(
                ErrorKind::IllegalState,
                format!(
                    "[{}][{}] the recovered copy did not reach the global checkpoint [{gcp}]",
                    s.shard.index, s.shard.id
                ),
            ));
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    s.shard.update_global_checkpoint();
    super::handoff::hand_off(cs, &s.shard, &s.target_allocation_id)?;
    drop(s);
    Ok(b"{}".to_vec())
}
