//! Opening an existing translog after a restart or crash: verify the checkpoint and every
//! generation the commit needs, then start a fresh generation for new writes.

use std::sync::Arc;

use super::checkpoint::Checkpoint;
use super::generation::{corrupted, read_header, walk_frames, HEADER_LEN};
use super::log::{create_generation, Translog};
use super::{
    generation_checkpoint_file, generation_file, parse_file_name, Operation, RecoveryPolicy, TranslogConfig,
    CHECKPOINT_FILE,
};
use crate::engine::store::Directory;
use crate::engine::{Error, Result};

/// Verifies generation `ckp.generation` up to `ckp.offset` and hands each operation to `f`:
/// header (CRC, codec, uuid, primary term `<= max_primary_term`), every frame (length, CRC,
/// payload), and that the frames end exactly at the offset with the checkpoint's op count and
/// seq_no range. Returns the file's length (bytes beyond `ckp.offset` are not read).
pub(super) fn read_generation(
    dir: &dyn Directory,
    uuid: &[u8; 16],
    ckp: &Checkpoint,
    max_primary_term: u64,
    mut f: impl FnMut(Operation),
) -> Result<u64> {
    let name = generation_file(ckp.generation);
    let bytes = dir.open(&name).map_err(|e| match e {
        Error::FileNotFound { .. } => corrupted(
            &name,
            0,
            format!("translog generation file is missing but the checkpoint needs it up to offset {}", ckp.offset),
        ),
        other => other,
    })?;
    let header = read_header(&bytes, &name, Some(uuid))?;
    if header.primary_term > max_primary_term {
        return Err(corrupted(
            &name,
            HEADER_LEN - 12,
            format!(
                "translog primary term {} is above the shard's primary term {max_primary_term}",
                header.primary_term
            ),
        ));
    }
    let (mut n, mut min, mut max) = (0u64, super::NO_OPS_PERFORMED, super::NO_OPS_PERFORMED);
    walk_frames(&bytes, ckp.offset, &name, |at, op| {
        if op.primary_term() > header.primary_term {
            return Err(corrupted(
                &name,
                at,
                format!(
                    "operation primary term {} is above the file's primary term {}",
                    op.primary_term(),
                    header.primary_term
                ),
            ));
        }
        n += 1;
        min = if n == 1 { op.seq_no() } else { min.min(op.seq_no()) };
        max = max.max(op.seq_no());
        f(op);
        Ok(())
    })?;
    if (n, min, max) != (ckp.num_ops, ckp.min_seq_no, ckp.max_seq_no) {
        return Err(corrupted(
            &name,
            ckp.offset,
            format!(
                "checkpoint says {} ops with seq_no [{}, {}] but the file holds {n} ops with seq_no [{min}, {max}]",
                ckp.num_ops, ckp.min_seq_no, ckp.max_seq_no
            ),
        ));
    }
    Ok(bytes.len() as u64)
}

impl Translog {
    /// Opens the translog in `dir` for a shard whose last commit needs generations
    /// `>= min_generation`, verifying the checkpoint and every one of those generations up to
    /// its checkpointed offset (see [`RecoveryPolicy`]). Then it freezes the last generation and
    /// starts a new one for new writes: it never appends to a file that may have a torn tail.
    ///
    /// Steps (crash analysis in `format/translog.md`, "Crash analysis", case "during open"):
    /// 1. delete leftover `*.tmp` checkpoint files (never referenced);
    /// 2. read `translog.ckp` (generation `G`) and each `translog-{g}.ckp`, `min_generation <= g < G`;
    /// 3. verify every generation;
    /// 4. write `translog-{G}.ckp` (a copy of `translog.ckp`) atomically;
    /// 5. delete generation files above `G` (an interrupted roll's) and below `min_generation`;
    /// 6. create `translog-{G+1}.tlog`, fsync it and the directory;
    /// 7. replace `translog.ckp` by the empty checkpoint of `G+1`.
    pub fn open(
        dir: Arc<dyn Directory>,
        uuid: [u8; 16],
        min_generation: u64,
        primary_term: u64,
        config: TranslogConfig,
        policy: RecoveryPolicy,
    ) -> Result<Translog> {
        // Both policies accept exactly the same files today; see `RecoveryPolicy`.
        let _ = policy;
        for name in dir.list()? {
            if name.starts_with("translog") && name.ends_with(".tmp") {
                dir.delete(&name)?;
            }
        }
        let last = Checkpoint::read(&*dir, CHECKPOINT_FILE, &uuid)?;
        if min_generation == 0 || min_generation > last.generation {
            return Err(corrupted(
                CHECKPOINT_FILE,
                0,
                format!(
                    "the commit needs translog generation {min_generation} but the checkpoint is at generation {}",
                    last.generation
                ),
            ));
        }
        let mut finished = Vec::new();
        for g in min_generation..last.generation {
            let name = generation_checkpoint_file(g);
            let c = Checkpoint::read(&*dir, &name, &uuid)?;
            if c.generation != g {
                return Err(corrupted(
                    &name,
                    0,
                    format!("checkpoint of generation {g} says generation {}", c.generation),
                ));
            }
            finished.push(c);
        }
        finished.push(last);
        for c in &finished {
            let len = read_generation(&*dir, &uuid, c, primary_term, |_| {})?;
            if len > c.offset {
                tracing::warn!(
                    file = %generation_file(c.generation),
                    offset = c.offset,
                    ignored_bytes = len - c.offset,
                    "ignoring translog bytes beyond the checkpointed offset (torn tail of unacknowledged writes)"
                );
            }
        }
        last.write_atomic(&*dir, &generation_checkpoint_file(last.generation), &uuid)?;
        for name in dir.list()? {
            if matches!(parse_file_name(&name), Some((g, _)) if g > last.generation || g < min_generation) {
                dir.delete(&name)?;
            }
        }
        let next = last.generation.checked_add(1).ok_or_else(|| Error::TranslogCorrupted {
            file: CHECKPOINT_FILE.to_string(),
            offset: 0,
            reason: format!("generation {} cannot be followed", last.generation),
        })?;
        let writer = create_generation(&*dir, &uuid, next, primary_term)?;
        let ckp = Checkpoint::empty(next, last.global_checkpoint, min_generation);
        ckp.write_atomic(&*dir, CHECKPOINT_FILE, &uuid)?;
        Ok(Translog::from_parts(dir, uuid, config, primary_term, finished, ckp, writer))
    }
}
